"""#43 round 12: the working range (README) in the curvature family, one test per class."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.curvature import LCD2, Polyak, lcd2_multiplier, lcd2_step, squared_lp_norm


@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_lcd2_multiplier_refuses_a_tiny_delta_like_its_zero(tiny):
    with pytest.raises(ValueError, match=r"^delta = .* is outside the package's working range"):
        lcd2_multiplier(tiny, np.array([1.0, 1.0]), np.zeros(2))
    # lcd2_step takes any delta >= 0 (a tiny one is a valid near-0): its own multiplier call is not refused
    x, info = lcd2_step(np.array([1.0]), np.array([2.0]), np.zeros(1), tiny)
    assert np.isfinite(x).all() and info["multiplier"] >= 0


def test_an_underflowing_gradient_norm_is_named_not_a_zero_division():
    with pytest.raises(ValueError, match=r"^g is too small: ‖g‖² underflows"):
        lcd2_step(np.array([1.0]), np.array([5e-324]), np.zeros(1), 1.0)
    with pytest.raises(ValueError, match=r"^ghat is too small"):
        lcd2_multiplier(1.0, np.array([5e-324]), np.zeros(1))


@pytest.mark.parametrize("algorithm", [LCD2(), Polyak()])
def test_runs_at_the_ranges_edge_end_with_a_retcode(algorithm):
    # a start of 1e19 (f ~ 1e38 on ‖x‖²): the steps' own numbers are not refused as a caller's would be
    sol = solve(squared_lp_norm(2, x0=np.array([1e19, -1e19])), algorithm, maxiters=50)
    assert sol.retcode in (RetCode.Success, RetCode.MaxIters, RetCode.Diverged)


def test_x0_and_x_star_cannot_be_made_writable():
    problem = squared_lp_norm(2, x0=np.array([1.0, 2.0]))
    for array in (problem.x0, problem.x_star):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.setflags(write=True)
