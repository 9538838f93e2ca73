import numpy as np

from algorithms import RetCode, solve
from algorithms.submodular import BruteForce, Greedy, MatchoidMaximization
from tests.algorithms.submodular._instances import cardinality, cut, two_partitions


def _plain_greedy(f, matchoid, elements):
    chosen = frozenset()
    while True:
        gains = [(f(chosen | {e}) - f(chosen), e) for e in elements
                 if e not in chosen and matchoid.is_independent(chosen | {e})]
        if not gains or max(gains)[0] <= 0:
            return chosen
        chosen = chosen | {max(gains)[1]}


def test_lazy_greedy_equals_plain_greedy():
    for seed in range(5):
        f, matchoid = cut(seed=seed), two_partitions()
        sol = solve(MatchoidMaximization(f, matchoid, range(8)), Greedy())
        assert sol.retcode is RetCode.Success
        assert sol.original["solution"] == _plain_greedy(f, matchoid, range(8))
        assert np.isclose(sol.value, f(sol.original["solution"]))


def test_greedy_is_within_opt_and_caps():
    f, matchoid = cut(), cardinality(3)
    problem = MatchoidMaximization(f, matchoid, range(8))
    greedy, opt = solve(problem, Greedy()), solve(problem, BruteForce())
    assert greedy.value <= opt.value + 1e-12
    capped = solve(problem, Greedy(), maxiters=1)
    assert capped.retcode is RetCode.MaxIters and int(capped.x.sum()) == 1
