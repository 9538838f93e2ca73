"""Round 16: the family's optimizers used end to end, the way a user runs them (issue #43)."""

import warnings

import numpy as np
import pytest

from algorithms import solve
from algorithms.blackbox import CMAES, PSO, BlackBoxProblem, DesignX, ModularOptimizer, RandomSearch, ScipyDE
from algorithms.core import RetCode

ALGORITHMS = {
    "ScipyDE": ScipyDE(), "CMAES": CMAES(), "PSO": PSO(), "RandomSearch": RandomSearch(),
    "ModularOptimizer": ModularOptimizer(("init.sobol", "pop.20", "pso.inertia", "bc.reflect", "sel.greedy")),
    "DesignX": DesignX(),
}


@pytest.mark.parametrize("target", [None, 1e-2], ids=["budget", "target"])
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_callback_true_at_the_last_record_is_terminated(name, target):
    # a True returned for the batch that spent the budget or met the target ended the run MaxIters or Success
    # (the last batch's record was "over either way"), though the callback had asked to stop
    problem = BlackBoxProblem(lambda x: float(np.sum((x - 0.3) ** 2)), ([-1, -1], [1, 1]), budget=300,
                              target=target)
    algorithm = ALGORITHMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = solve(problem, algorithm, seed=0, store_trace=True)
        last = len(full.trace)
        stopped = solve(problem, algorithm, seed=0, store_trace=True,
                        callback=lambda record: record["iteration"] == last)
    assert full.retcode in (RetCode.MaxIters, RetCode.Success)
    assert stopped.retcode is RetCode.Terminated
    assert len(stopped.trace) == last and stopped.value == full.value


def _sphere(unit: float, target: float | None = None) -> BlackBoxProblem:
    return BlackBoxProblem(lambda x: unit * float(np.sum((np.asarray(x, dtype=float) - 0.3) ** 2)),
                           ([-1.0] * 3, [1.0] * 3), budget=2000,
                           target=None if target is None else target * unit)


@pytest.mark.parametrize("unit", [1e-10, 1e-20, 1e-300, 1e30])
@pytest.mark.parametrize("name", ["CMAES", "ScipyDE"])
def test_the_units_of_f_change_nothing(name, unit):
    # red16a: pycma's absolute tolfun/tolfunhist ended every restart of f x 1e-20 at once (285 restarts,
    # 0.0061 against 2.7e-16); scipy's convergence test fired when the std of values ~1e-300 underflowed to 0
    # (MaxIters after 90 of 2000 evaluations)
    algorithm = ALGORITHMS[name]
    for target in (None, 1e-6):
        reference = solve(_sphere(1.0, target), algorithm, seed=3)
        scaled = solve(_sphere(unit, target), algorithm, seed=3)
        assert scaled.retcode is reference.retcode
        assert scaled.stats.f_calls == reference.stats.f_calls
        assert scaled.value / unit == pytest.approx(reference.value, rel=1e-6)


def test_scipy_de_runs_a_flat_f_to_its_budget():
    # scipy's convergence test (std of the energies <= 0) stopped a constant f after one generation, reported
    # MaxIters though neither the budget nor maxiters had ended the run
    sol = solve(BlackBoxProblem(lambda x: 1.0, ([-1.0] * 2, [1.0] * 2), budget=500), ScipyDE(), seed=0)
    assert sol.retcode is RetCode.MaxIters and sol.stats.f_calls == 500


def test_a_float64_agent_reads_float64_features_unrounded():
    # features went through float32 before a .double() agent converted them: its logits were those of the
    # float32-rounded features (1 + 1e-9 read as 1)
    import torch

    from algorithms.blackbox import WorkflowGenerator

    agent = WorkflowGenerator(seed=0).double()
    features = np.linspace(-1.0, 1.0, 13) * (1 + 1e-9)
    start = agent.feature(torch.as_tensor(features).reshape(1, 13)) + agent.pos[:1]
    by_hand = agent.head(agent.body(start[None], mask=torch.zeros(1, 1, dtype=torch.float64))[0, -1])
    assert torch.equal(agent.logits(features, ()), by_hand)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_maxiters_zero_is_max_iters_also_when_the_start_meets_the_target(name):
    # core: maxiters = 0 returns the start with MaxIters; a first population meeting the target ended Success
    problem = BlackBoxProblem(lambda x: float(np.sum(x ** 2)), ([-1.0, -1.0], [1.0, 1.0]), budget=300,
                              target=1e9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(problem, ALGORITHMS[name], seed=0, maxiters=0)
        one = solve(problem, ALGORITHMS[name], seed=0, maxiters=1)
    assert sol.retcode is RetCode.MaxIters and sol.stats.iterations == 0
    assert one.retcode is RetCode.Success


@pytest.mark.parametrize("name", ["CMAES", "RandomSearch"])
def test_a_wrong_optimum_of_f_in_tiny_units_is_refused(name):
    # the optimum check had an absolute floor of 1: f in units of 1e-10 with an optimum (and target) 5e-11
    # above its minimum passed, and CMAES ended Success at a point 5e-12 above that wrong optimum
    u = 1e-10
    problem = BlackBoxProblem(lambda x: u * float(x @ x), ([-1.0] * 2, [1.0] * 2), budget=200,
                              optimum=0.5 * u, target=0.5 * u)
    with pytest.raises(ValueError, match="optimum"):
        solve(problem, ALGORITHMS[name], seed=0)
    right = BlackBoxProblem(problem.f, problem.bounds, budget=200, optimum=0.0, target=0.5 * u)
    assert solve(right, ALGORITHMS[name], seed=0).retcode is RetCode.Success


def test_log_regret_rewards_refuse_a_wrong_optimum_in_tiny_units():
    import torch

    from algorithms.blackbox.designx import Episode, log_regret_rewards
    episode = Episode((), torch.zeros(()), torch.zeros(()), best_after=[2e-10, 1e-11], start_best=3e-10)
    with pytest.raises(ValueError, match="optimum"):
        log_regret_rewards(episode, 5e-11)
    assert log_regret_rewards(episode, 0.0)[-1] > 0
