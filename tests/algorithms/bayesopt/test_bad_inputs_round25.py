"""Round 25: CEI's unit-free tolerances from a robust spread of f, which one outlier cannot inflate (B)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import solve
from algorithms.bayesopt import CEI, ConstrainedBOProblem
from algorithms.bayesopt.gp import robust_spread, spread_of
from algorithms.core import RetCode


def _f(x: np.ndarray) -> float:
    """(x − 0.3)² on [0, 0.95), 1e30 above: one evaluation of 1e30 in the design."""
    return float((x[0] - 0.3) ** 2) if x[0] < 0.95 else 1e30


def test_an_outlier_does_not_make_the_default_tol_huge():
    # the standard deviation 4.7e29 made the default tol 4.7e23: Success at the design, 0.09 above f* = 0
    problem = ConstrainedBOProblem(f=_f, c=lambda x: -1.0, bounds=[[0.0, 1.0]],
                                   initial=np.array([[0.0], [1.0], [0.7]]), f_star=0.0)
    sol = solve(problem, CEI(), maxiters=2, seed=0)
    assert sol.retcode is RetCode.MaxIters
    assert sol.stats.iterations == 2


def test_an_outlier_does_not_hide_a_wrong_f_star():
    # f(0.31) = 1e-4 lies 0.05 below f_star: the slack 1e-6·S was 4e23 and the run said Success at once
    problem = ConstrainedBOProblem(f=_f, c=lambda x: -1.0, bounds=[[0.0, 1.0]],
                                   initial=np.array([[0.0], [1.0], [0.7], [0.31]]), f_star=0.05)
    with pytest.raises(ValueError, match="f_star"):
        solve(problem, CEI(), maxiters=2, seed=0)


def test_robust_spread():
    values = np.array([0.09, 1e30, 0.16, 1e-4])
    assert robust_spread(values) < 200.0 < spread_of(values)
    assert robust_spread(np.array([1.0, 2.0])) == spread_of(np.array([1.0, 2.0]))   # two values: the std
    near = np.r_[np.linspace(0.0, 1.0, 10), np.full(50, 1e-9)]   # a converged run: the design caps, not all
    assert robust_spread(near, near[:10]) == spread_of(near)
    assert robust_spread(np.array([1.0, 1.0, 5.0])) == spread_of(np.array([1.0, 1.0, 5.0]))   # MAD 0
    assert robust_spread(np.array([-3.4e38, 0.0, 3.4e38])) == pytest.approx(spread_of([-3.4e38, 0.0, 3.4e38]))


def test_constrained_minimum_polishes_past_an_outlying_node():
    # f's range 1e30 (one grid column) made the polish's scaled objective flat: the answer stayed at the grid
    # node, 2.9e-5 above f* = 0
    from algorithms.bayesopt import constrained_minimum

    def f(x: np.ndarray) -> float:
        return float((x[0] - 0.37) ** 2 + (x[1] - 0.61) ** 2) + (1e30 if x[0] > 0.999 else 0.0)

    x, value = constrained_minimum(f, lambda x: -1.0, [[0.0, 1.0], [0.0, 1.0]])
    assert value <= 1e-12
    assert np.allclose(x, [0.37, 0.61], atol=1e-6)


def test_repeat_check_floor_is_not_set_by_an_outlier():
    # the floor 1e-12·max|f| was 1e18 beside f = 1e30 at another point: f = 0 and then f = 1 at x = 0.5 passed
    bo = CEI().ask_tell([[0.0, 1.0]], 1)
    bo.observe(np.array([[0.0], [0.5], [0.9]]), np.array([1e30, 0.0, 0.3]), np.array([-1.0, -1.0, -1.0]))
    with pytest.raises(ValueError, match=r"f = .* contradicts"):
        bo.observe(np.array([0.5]), 1.0, -1.0)
    bo.observe(np.array([0.5]), 0.0, -1.0)   # the same value again is valid
