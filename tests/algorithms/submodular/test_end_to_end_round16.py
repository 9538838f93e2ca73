"""Round 16: answers against independent references. An f answering exact ints or Fractions past 2**53 keeps
its gains (they were rounded to float64, so every gain of 1 on top of 10**17 was 0 and BruteForce returned the
empty set with Success; red16b)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.submodular import (
    BruteForce,
    Greedy,
    Matchoid,
    MatchoidMaximization,
    SampleGreedy,
    UniformMatroid,
)

_OFFSETS = [2**53, 10**17, 10**30, Fraction(10**17), np.int64(2**62)]


def _best_by_enumeration(f, n: int, rank: int):
    sets = [frozenset(c) for size in range(rank + 1) for c in itertools.combinations(range(n), size)]
    return max(f(S) for S in sets)


@pytest.mark.parametrize("offset", _OFFSETS, ids=repr)
@pytest.mark.parametrize("algorithm", [BruteForce(), Greedy(), SampleGreedy()],
                         ids=lambda a: type(a).__name__)
def test_exact_answers_past_2_53_keep_their_gains(offset, algorithm):
    def f(S):
        return offset + len(S)

    problem = MatchoidMaximization(f, Matchoid([UniformMatroid(3)]), range(5))
    sol = solve(problem, algorithm, seed=0)
    chosen = problem.decode(sol.x)
    assert sol.retcode is RetCode.Success
    if isinstance(algorithm, BruteForce):
        assert f(chosen) == _best_by_enumeration(f, 5, 3) == offset + 3
    else:  # every positive gain is taken: a set of the rank, or all the sampled elements
        assert len(chosen) == 3 or (isinstance(algorithm, SampleGreedy) and len(chosen) >= 1)


_GRADED = [np.array([[1e20, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.5]]),
           np.array([[1e30, 1e-10], [1e-10, 1.0]]),
           np.array([[1e16, 1.0, 0.0], [1.0, 1.0, 0.5], [0.0, 0.5, 2.0]])]


@pytest.mark.parametrize("kernel", _GRADED, ids=["1e20", "1e30", "1e16"])
def test_logdet_of_a_full_rank_graded_kernel_against_mpmath(kernel):
    """log det(I + K_S) keeps a small eigenvalue beside a huge one (the λ_max cut-off dropped it: off by
    log 2, and BruteForce returned a wrong set with Success; red16b)."""
    import mpmath

    from algorithms.submodular import LogDet

    mpmath.mp.dps = 60
    f = LogDet(kernel)
    n = kernel.shape[0]
    for size in range(1, n + 1):
        for S in itertools.combinations(range(n), size):
            exact = mpmath.log(mpmath.det(mpmath.matrix(
                [[(i == j) + mpmath.mpf(float(kernel[i, j])) for j in S] for i in S])))
            assert f(frozenset(S)) == pytest.approx(float(exact), rel=1e-12)


def test_bruteforce_on_a_graded_logdet_finds_the_optimum():
    from algorithms.submodular import LogDet

    problem = MatchoidMaximization(LogDet(_GRADED[0]), Matchoid([UniformMatroid(2)]), range(3))
    sol = solve(problem, BruteForce())
    assert sol.retcode is RetCode.Success and problem.decode(sol.x) == frozenset({0, 1})


@pytest.mark.parametrize("stand_in", [True, np.True_, 1.0, np.float64(1.0)], ids=repr)
def test_a_delete_of_a_number_standing_for_the_element_is_refused(stand_in):
    """delete(True) deleted element 1 (True == 1) though insert(True) is refused (red16b)."""
    from algorithms.submodular import DynamicMatchoidMaximizer, GraphCut, UpdateStream

    f = GraphCut(np.ones((4, 4)) - np.eye(4))
    dm = DynamicMatchoidMaximizer(f, Matchoid([UniformMatroid(3)]), eps=0.1, seed=0)
    for e in range(4):
        dm.insert(e)
    with pytest.raises(ValueError, match=r"^e = .* standing for the present element 1"):
        dm.delete(stand_in)
    with pytest.raises(ValueError, match=r"updates\[1\] element = .* standing for the present element 1"):
        UpdateStream(f, Matchoid([UniformMatroid(2)]), [("insert", 1), ("delete", stand_in)])
    dm.delete(np.int64(1))  # the same kind (an int) is the element


@pytest.mark.parametrize("build", [
    lambda: __import__("algorithms.submodular", fromlist=["Coverage"]).Coverage(
        [{0}, {0, 1}, {0, 2}, {0, 3}], item_weights=[2**53, 1, 1, 1]),
    lambda: __import__("algorithms.submodular", fromlist=["Coverage"]).Coverage(
        [{0}, {0, 1}], item_weights={0: 10**17, 1: 1}),
    lambda: __import__("algorithms.submodular", fromlist=["GraphCut"]).GraphCut(
        np.array([[0, 2**53 + 1], [2**53 + 1, 0]])),
    lambda: __import__("algorithms.submodular", fromlist=["DirectedCut"]).DirectedCut(
        np.array([[0, 2**60], [1, 0]])),
    lambda: __import__("algorithms.submodular", fromlist=["FacilityLocation"]).FacilityLocation(
        np.array([[2**60, 1], [1, 1]])),
], ids=["Coverage list", "Coverage mapping", "GraphCut", "DirectedCut", "FacilityLocation"])
def test_builtin_functions_refuse_integer_data_float64_cannot_sum_exactly(build):
    """Int weights past 2**53 were summed in float64: f({1, 2}) of Coverage([{0}, {0,1}, {0,2}, {0,3}],
    [2**53, 1, 1, 1]) was 2**53 and BruteForce returned [0] with Success (red16b)."""
    with pytest.raises(ValueError, match=r"integer entries summing to \d+, past 2\*\*53"):
        build()
