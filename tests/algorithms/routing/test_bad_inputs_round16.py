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


def _encode_cases():
    import torch

    from algorithms.routing.gflownet import RoutingGFlowNet

    x = torch.rand(1, 6, 2, generator=torch.Generator().manual_seed(0))
    d = torch.cdist(x, x)
    return {
        "NaN node_x": (lambda m: m.encode(x.clone().fill_(float("nan")), d), ValueError,
                       "node_x contains NaN"),
        "batch 2 vs 1": (lambda m: m.encode(torch.rand(2, 6, 2), d), ValueError, r"dist must have shape"),
        "half model": (lambda m: m.half().encode(x.half(), d.half()), TypeError,
                       "RoutingGFlowNet must have float32 or float64 parameters"),
        "float64 inputs": (lambda m: m.encode(x.double(), d.double()), TypeError,
                           "node_x must have the model's dtype"),
        "3 features": (lambda m: m.encode(torch.rand(1, 6, 3), d), ValueError,
                       r"node_x must have shape \(B, n, 2\)"),
        "5 nodes vs 6": (lambda m: m.encode(torch.rand(1, 5, 2), d), ValueError, r"dist must have shape"),
    }, RoutingGFlowNet


@pytest.mark.parametrize("case", ["NaN node_x", "batch 2 vs 1", "half model", "float64 inputs", "3 features",
                                  "5 nodes vs 6"])
def test_routing_gflownet_encode_refuses_bad_inputs_by_name(case):
    """encode checked only "a floating tensor": NaN, a mismatched batch and a half model ran in silence, a
    dtype or shape mismatch reached torch's own errors (red16b)."""
    cases, model_class = _encode_cases()
    call, error, words = cases[case]
    with pytest.raises(error, match=words):
        call(model_class())
