import itertools

import pytest

from algorithms import RetCode, solve
from algorithms.submodular import BruteForce, MatchoidMaximization
from tests.algorithms.submodular._instances import cut, two_partitions


def test_brute_force_is_the_maximum_over_independent_sets():
    f, matchoid = cut(), two_partitions()
    best = max(f(frozenset(s)) for r in range(9) for s in itertools.combinations(range(8), r)
               if matchoid.is_independent(s))
    sol = solve(MatchoidMaximization(f, matchoid, range(8)), BruteForce())
    assert sol.retcode is RetCode.Success and sol.value == pytest.approx(best)
    assert matchoid.is_independent(sol.original["solution"])


def test_cap_and_size_limit():
    problem = MatchoidMaximization(cut(), two_partitions(), range(8))
    assert solve(problem, BruteForce(), maxiters=3).retcode is RetCode.MaxIters
    with pytest.raises(ValueError, match="elements"):
        solve(MatchoidMaximization(len, two_partitions(), range(31)), BruteForce())
