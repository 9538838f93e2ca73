"""train → checkpoint → load → solve, resume, and the checkpoint guards."""

import json
import os

import pytest

from algorithms import RetCode, solve
from algorithms.routing import random_cvrp, random_tsp
from algorithms.routing.hbg import HBG
from algorithms.routing.train import beta_at, load_checkpoint, main, train


def test_train_checkpoint_load_solve(tmp_path):
    out = str(tmp_path / "tsp8.pt")
    meta = train(
        problem="tsp",
        size=8,
        loss="hybrid",
        steps=3,
        batch=1,
        samples=4,
        hidden=8,
        layers=1,
        out=out,
        progress=False,
    )
    assert meta["steps"] == 3 and os.path.isfile(out)
    with open(out[:-3] + ".json") as fh:
        assert json.load(fh)["loss"] == "hybrid"
    model, meta2, _ = load_checkpoint(out)
    assert model.problem == "tsp" and meta2["size"] == 8
    sol = solve(random_tsp(8, seed=1), HBG(checkpoint=out, samples=4), seed=0)
    assert sol.retcode is RetCode.Success
    assert solve(random_tsp(8, seed=1), HBG(checkpoint=out, samples=4), seed=0).x == sol.x


def test_resume_continues_to_the_target(tmp_path):
    out = str(tmp_path / "cvrp6.pt")
    train(
        problem="cvrp",
        size=6,
        loss="db",
        steps=2,
        batch=1,
        samples=3,
        hidden=8,
        layers=1,
        out=out,
        progress=False,
    )
    meta = train(
        problem="cvrp",
        size=6,
        loss="db",
        steps=4,
        batch=1,
        samples=3,
        hidden=8,
        layers=1,
        out=out,
        progress=False,
        resume=True,
    )
    assert meta["steps"] == 4
    with pytest.raises(ValueError, match="resume"):
        train(
            problem="cvrp",
            size=6,
            loss="tb",
            steps=5,
            batch=1,
            samples=3,
            hidden=8,
            layers=1,
            out=out,
            progress=False,
            resume=True,
        )


def test_cli(tmp_path, capsys):
    out = str(tmp_path / "cli.pt")
    meta = main(
        [
            "--problem",
            "tsp",
            "--size",
            "5",
            "--steps",
            "1",
            "--batch",
            "1",
            "--samples",
            "2",
            "--hidden",
            "8",
            "--layers",
            "1",
            "--out",
            out,
            "--no-progress",
        ]
    )
    assert meta["steps"] == 1 and '"steps": 1' in capsys.readouterr().out


def test_wrong_problem_or_size_is_refused(tmp_path):
    out = str(tmp_path / "tsp6.pt")
    train(problem="tsp", size=6, steps=1, batch=1, samples=2, hidden=8, layers=1, out=out, progress=False)
    with pytest.raises(ValueError, match="TSP"):
        solve(random_cvrp(6, seed=0), HBG(checkpoint=out))
    with pytest.raises(ValueError, match="allow_size_transfer"):
        solve(random_tsp(9, seed=0), HBG(checkpoint=out))
    assert solve(random_tsp(9, seed=0), HBG(checkpoint=out, allow_size_transfer=True, samples=2)).successful


def test_beta_schedule():
    assert beta_at(0, 5, 2.0, 32.0) == 2.0 and beta_at(4, 5, 2.0, 32.0) == pytest.approx(32.0)
    assert beta_at(2, 5, 2.0, 32.0) == pytest.approx(8.0)


def test_periodic_checkpoints_and_cpu_minutes(tmp_path, monkeypatch):
    """A checkpoint every ``save_every`` steps plus the final one, and ``cpu_minutes`` counts only
    this run's CPU (not the process's earlier work): at most wall minutes × cores."""
    import algorithms.routing.train as tr

    saved = []
    orig = tr.save_checkpoint

    def spy(path, model, meta, optimizer=None, extra=None):
        saved.append(meta["steps"])
        orig(path, model, meta, optimizer, extra)

    monkeypatch.setattr(tr, "save_checkpoint", spy)
    sum(i * i for i in range(2_000_000))  # some CPU spent by the process before the run
    meta = train(problem="tsp", size=6, loss="tb", steps=5, batch=1, samples=4, hidden=8, layers=1,
                 out=str(tmp_path / "m.pt"), save_every=2, progress=False)
    assert saved == [2, 4, 5]
    assert 0.0 <= meta["cpu_minutes"] <= meta["minutes"] * (os.cpu_count() or 1) + 1e-3
