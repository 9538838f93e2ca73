"""Round 16 bad inputs of the routing family."""

from __future__ import annotations

import pytest


def test_resume_with_another_seed_is_refused_by_name(tmp_path):
    """The restored generator continued the old seed's rollouts while the instances followed the new seed,
    and the metadata recorded the new one (red16b)."""
    from algorithms.routing.train import train

    settings = dict(problem="tsp", size=5, batch=2, samples=2, hidden=8, layers=1, progress=False,
                    save_every=1)
    out = str(tmp_path / "c.pt")
    train(steps=2, out=out, seed=0, **settings)
    with pytest.raises(ValueError, match=r"other settings: seed = 0 \(given 7\)"):
        train(steps=4, out=out, seed=7, resume=True, **settings)
    assert train(steps=3, out=out, seed=0, resume=True, **settings)["seed"] == 0
