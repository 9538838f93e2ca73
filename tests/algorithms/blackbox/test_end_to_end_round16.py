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
