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
