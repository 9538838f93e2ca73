"""Round 14: a step too small to move the iterate ends Stalled at once (a valid lr = 1.2e-38 with a valid
maxiters = 10**9 ran for hours; red14b)."""

import time

import pytest

from algorithms import solve
from algorithms.attention import OverlapFlow, SingleLocationProblem, SphericalGD
from algorithms.core import RetCode


@pytest.mark.parametrize("algorithm", [OverlapFlow(lr=1.2e-38), SphericalGD(lr=1.2e-38)])
def test_a_step_that_moves_nothing_is_stalled(algorithm):
    start = time.perf_counter()
    sol = solve(SingleLocationProblem(d=6, L=4, gamma=0.6), algorithm, maxiters=10**9, tol=1.2e-38)
    assert sol.retcode is RetCode.Stalled
    assert time.perf_counter() - start < 30.0
