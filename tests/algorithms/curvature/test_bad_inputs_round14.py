"""Round 14: curvature checks relative to the data's own scale (red14b findings)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms.curvature import (
    lcd1_step,
    lp_norm_power,
    lp_regression,
    squared_huber,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
)


@pytest.mark.parametrize("scale", [1e-9, 1e-30, 1.0, 1e30])
@pytest.mark.parametrize("C, words", [([[1.0, 0.0], [0.0, -1.0]], "positive semidefinite"),
                                      ([[1.0, 0.9], [0.0, 1.0]], "symmetric")])
def test_an_invalid_curvature_is_refused_at_every_scale(scale, C, words):
    # max(1, max|C|) as the scale took an indefinite or asymmetric C of 1e-9 (refused at scale 1)
    with pytest.raises(ValueError, match=rf"^C must be {words}"):
        lcd1_step(np.zeros(2), np.ones(2), scale * np.array(C), 0.0)


@pytest.mark.parametrize("build", [
    lambda: lp_norm_power(200, x0=np.array([1e-3])), lambda: lp_norm_power(2, x0=np.array([1e-170])),
    lambda: squared_lp_norm(2, x0=np.array([1e-170])),
    lambda: lp_norm_power(3, x0=np.array([1e-120, 1e-120])),
    lambda: squared_norm_residual(np.eye(2), np.array([1e-170, 0.0])),
    lambda: sum_of_squared_abs_linear(np.eye(2), np.array([1e-170, 0.0])),
    lambda: squared_huber(np.eye(2), np.array([1e-80, 0.0])),
    lambda: lp_regression(np.eye(2), np.array([1e-170, 0.0]), 3)])
def test_a_start_whose_f_underflows_away_from_x_star_is_refused(build):
    # f(x0) = 1e-600 rounded to 0 = f*: LCD2/LCD3/Polyak reported Success at x0 with 0 iterations
    with pytest.raises(ValueError, match=r"^x0 is too close to the minimizer for float64"):
        build()


def test_summed_names_first_and_second_when_the_constants_overflow():
    # L_C¹ + L_C² = 4e38 was blamed on L_C, which summed has no argument for
    from algorithms.curvature import summed

    a = squared_lp_norm(1e38, x0=np.array([0.5, 0.25]))
    with pytest.raises(ValueError, match=r"^first = .* second = .* L_C = 4e\+38"):
        summed(a, a)


@pytest.mark.parametrize("answer", [lambda r: r.astype(np.float32), lambda r: [np.float32(v) for v in r]])
def test_sum_of_squared_absolutely_convex_refuses_float32_residuals(answer):
    # a float32 residual beside a float64 x0 moved every step by a rounded value: Success 2.6e-8 off
    from algorithms import solve
    from algorithms.curvature import LCD2, sum_of_squared_absolutely_convex

    A = np.random.default_rng(0).standard_normal((5, 3))
    b = A @ np.ones(3)
    with pytest.raises(TypeError, match=r"^residuals\(x\) must return floats at least as precise"):
        prob = sum_of_squared_absolutely_convex(lambda x: answer(A @ x - b), lambda x: A, L_C=1.0,
                                                x0=np.zeros(3), f_star=0.0)
        solve(prob, LCD2(), maxiters=3)
