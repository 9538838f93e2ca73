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
