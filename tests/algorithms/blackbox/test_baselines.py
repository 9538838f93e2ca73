import itertools

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.blackbox import CMAES, PSO, BlackBoxProblem, RandomSearch, ScipyDE, bbob_problem

ALGS = [ScipyDE(), ScipyDE(strategy="rand1bin", mutation=0.5), CMAES(), PSO(), RandomSearch()]


@pytest.mark.parametrize("alg", ALGS, ids=lambda a: type(a).__name__)
def test_budget_exact_and_progress(alg):
    calls = []
    def f(x):
        calls.append(1)
        return float(np.sum((x - 0.2) ** 2))

    prob = BlackBoxProblem(f, (-np.ones(3), np.ones(3)), 1500)
    sol = solve(prob, alg, seed=0)
    assert len(calls) == sol.stats.f_calls == 1500 and sol.retcode is RetCode.MaxIters
    assert sol.value < 0.05


def test_cmaes_and_de_reach_target():
    p = bbob_problem(1, 6, 4, 20000, target_precision=1e-6)
    for alg in (CMAES(), ScipyDE()):
        sol = solve(p, alg, seed=1)
        assert sol.retcode is RetCode.Success and sol.value <= p.target and sol.stats.f_calls < 20000


def test_stats_and_trace_bookkeeping():
    """Plumbing the claims do not read: a CMA-ES run that never restarts reports 0 restarts, and every
    trace numbers its iterations 1, 2, ... with non-decreasing evaluation counts."""
    sphere = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(3), np.ones(3)), 200)
    sol = solve(sphere, CMAES(), seed=0, store_trace=True)
    assert sol.stats.restarts == 0
    for alg in (CMAES(), ScipyDE(), PSO()):
        trace = solve(sphere, alg, seed=0, store_trace=True).trace
        assert [r["iteration"] for r in trace] == list(range(1, len(trace) + 1)), type(alg).__name__
        assert all(a["evaluations"] <= b["evaluations"] for a, b in itertools.pairwise(trace))
