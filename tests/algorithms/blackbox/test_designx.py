import json

import numpy as np
import torch

from algorithms import RetCode, solve
from algorithms.blackbox import DesignX, bbob_problem, load_agents, run_episode
from algorithms.blackbox.designx import DEFAULT_CHECKPOINT, log_regret_rewards, save_agents


def test_shipped_checkpoint_small_with_metadata():
    assert DEFAULT_CHECKPOINT.stat().st_size < 2_000_000
    meta = json.loads(DEFAULT_CHECKPOINT.with_suffix(".json").read_text())
    assert meta["minutes"] > 0 and meta["episodes"] > 0 and meta["train_instances"] == [1, 2, 3, 4, 5]


def test_solve_deterministic_and_counted():
    p = bbob_problem(2, 7, 3, 900)
    a, b = solve(p, DesignX(), seed=4), solve(p, DesignX(), seed=4)
    assert np.array_equal(a.x, b.x) and a.stats.f_calls == 900 and a.retcode is RetCode.MaxIters
    assert "workflow" in a.original


def test_episode_rewards_sum_to_normalized_gain(tmp_path):
    a1, a2 = load_agents()
    p = bbob_problem(1, 6, 2, 400)
    ep = run_episode(p, a1, a2, np.random.default_rng(0), generator=torch.Generator().manual_seed(0),
                     stochastic=True)
    r = log_regret_rewards(ep, p.optimum)
    assert len(r) == len(ep.obs) == len(ep.actions)
    if len(r):
        assert np.all(r >= -1e-12) and r.sum() <= 1 + 1e-9       # best-so-far only improves
    save_agents(tmp_path / "x.pt", a1, a2, {"k": 1})
    c1, _ = load_agents(tmp_path / "x.pt")
    assert all(torch.equal(u, v) for u, v in zip(c1.state_dict().values(), a1.state_dict().values()))
    sol = solve(p, DesignX(checkpoint=str(tmp_path / "x.pt")), seed=0)
    assert sol.stats.f_calls == 400
