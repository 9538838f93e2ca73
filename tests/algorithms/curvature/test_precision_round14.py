"""Round 14: curvature's steps and helpers answered right at valid extremes (red14b findings)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from algorithms import solve
from algorithms.curvature import (
    LCD1,
    LCD2,
    LCD3,
    GradientDescent,
    Polyak,
    gd_step,
    lcd1_step,
    lcd2_gap,
    lcd2_step,
    lcd3_step,
    lp_norm_power,
    lp_regression,
    polyak_step,
    squared_huber,
    squared_lp_norm,
    sum_of_squared_abs_linear,
)


@pytest.mark.parametrize("lam, g, D", [(1e-310, 1.0, 1.0), (1e-320, 1e38, 1e38), (1e-310, 1e30, 1.0),
                                       (1e-300, 1.0, 1e38), (0.5, 1.0, 1.0)])
def test_lcd2_gap_keeps_the_sum_at_a_subnormal_multiplier(lam, g, D):
    # u = 1/(1/λ + D) was 0 once 1/λ overflowed: the whole sum was dropped (h = 0.0 for −1e-310)
    with mpmath.workdps(50):
        lam_, g_, D_ = mpmath.mpf(lam), mpmath.mpf(g), mpmath.mpf(D)
        ref = -(g_**2 * lam_ * (2 + lam_ * D_) / (2 * (1 + lam_ * D_) ** 2))
    got = lcd2_gap(lam, 0.0, np.array([g]), np.array([D]))
    assert abs(got - ref) <= 1e-13 * abs(ref) + 5e-324


def test_a_diagonal_curvature_is_exact_as_a_vector_or_a_matrix():
    # eigh / lstsq rank cut-offs dropped the exact eigenvalue 1e-17 (LCD1), 1e-13 (LCD3: Degenerate)
    x, g = np.zeros(2), np.array([1.0, 1.0])
    assert lcd1_step(x, g, np.diag([1.0, 1e-17]), 0.0).tolist() == [-1.0, -1e17]
    step, _ = lcd3_step(x, g, np.array([1.0, 1e-13]), 0.1)
    t = 0.2 / (1 + 1e13) / (1 + np.sqrt(1 - 0.2 / (1 + 1e13)))
    assert np.allclose(step, [-t, -t * 1e13], rtol=1e-12)
    step, _ = lcd2_step(x, g, np.array([1.0, 1e-13]), 0.5 * (1 + 1e13))   # the equality case: Newton
    assert np.allclose(step, [-1.0, -1e13], rtol=1e-12)


@pytest.mark.parametrize("algorithm", [LCD1(), LCD2(), LCD3()])
@pytest.mark.parametrize("small", [1e-9, 1e-7])
def test_the_solvers_reach_x_star_on_a_widely_scaled_diagonal_problem(algorithm, small):
    # A = diag(1, 1e-9): LCD1 MaxIters at [1, 0], LCD2 Success at [1, 8.75e8], LCD3 Degenerate
    prob = sum_of_squared_abs_linear(np.diag([1.0, small]), np.array([1.0, 1.0]))
    sol = solve(prob, algorithm, maxiters=50)
    assert sol.retcode.name == "Success" and np.allclose(sol.x, [1.0, 1.0 / small], rtol=1e-8)


def test_an_inconsistent_small_system_has_no_planted_optimum():
    # the absolute floor 1e-20 took b of size 1e-12 (not in A's range) as planted, then refused f* = 0
    A, b = np.array([[1.0], [1.0]]) * 1e-12, np.array([1.0, -1.0]) * 1e-12
    assert squared_huber(A, b, delta=1e12).f_star is None and lp_regression(A, b, 3).f_star is None
    A, b = np.array([[1.0], [2.0]]) * 1e-12, np.array([1.0, 2.0]) * 1e-12
    assert squared_huber(A, b, delta=1e12).f_star == 0.0 and lp_regression(A, b, 3).f_star == 0.0


def test_polyak_step_in_float32_computes_the_factor_in_float64():
    # Δ/‖g‖² = 2.5e39 overflowed float32 before multiplying g = 2e-19: a step of 5e20 was refused
    x, g = np.array([0.0], np.float32), np.array([2e-19], np.float32)
    step = polyak_step(x, g, 100.0, float(np.float64(g[0]) ** 2))
    assert step.dtype == np.float32 and np.isclose(step[0], -100.0 / float(g[0]), rtol=1e-6)


@pytest.mark.parametrize("algorithm", [LCD2(), LCD3(), Polyak()])
@pytest.mark.parametrize("p, x0", [(4, [1e-70]), (3, [1e-100, 2e-100])])
def test_tiny_representable_gradients_are_not_read_as_stationary(algorithm, p, x0):
    # √(Σ gᵢ²) of ∇f(x0) = 4e-210 underflowed to 0: f_star blamed (LCD2, LCD3, Polyak) at x0 far from x* = 0
    sol = solve(lp_norm_power(p, x0=np.array(x0)), algorithm)
    assert sol.retcode.name == "Success" and float(np.max(np.abs(sol.x))) < 1e-2 * max(x0)


def test_a_float32_gradient_beside_a_float64_point_is_promoted():
    # lr·g stayed a float32 product (NEP 50): [0.9499999992549419, 2.100000001490116] for [0.95, 2.1]
    x, g = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    assert gd_step(x, g.astype(np.float32), 0.1).tolist() == gd_step(x, g, 0.1).tolist() == [0.95, 2.1]
    assert polyak_step(x, g.astype(np.float32), 0.3, 1.25).tolist() == polyak_step(x, g, 0.3, 1.25).tolist()


def test_a_step_that_moves_nothing_ends_stalled_at_once():
    # lr = 1.2e-38 (valid) moved nothing: maxiters = 10**9 ran for hours to MaxIters
    sol = solve(squared_lp_norm(3, x0=np.array([1.0, -2.0])), GradientDescent(lr=1.2e-38), maxiters=10**9)
    assert sol.retcode.name == "Stalled" and sol.stats.iterations == 0


def test_squared_lp_norm_of_ones_is_exact():
    # N·N with N = √2 gave ‖(1, 1)‖₂² = 2.0000000000000004
    x = np.ones(2)
    assert squared_lp_norm(2, x0=x).value(x) == 2.0
    assert lp_regression(np.eye(2), np.zeros(2), 2, x0=x).value(x) == 2.0


@pytest.mark.parametrize("p", [1e15, 1e17, 1.7e38])
def test_squared_lp_norm_gradient_and_curvature_at_a_huge_p(p):
    # (|x|/N)^(p−2) of a rounded |x|/N gained e^(1e-16·p): ∇ was [2, 2, 0] for [1, 1, 0] from p = 1e17
    x = np.array([1.0, 1.0, 0.5])
    prob = squared_lp_norm(p, x0=x)
    with mpmath.workdps(80):
        X, P = [mpmath.mpf(v) for v in x], mpmath.mpf(p)
        N = mpmath.fsum(abs(t) ** P for t in X) ** (1 / P)
        grad = [float(2 * N ** (2 - P) * abs(t) ** (P - 2) * t) for t in X]
        curv = [float(2 * (abs(t) / N) ** (P - 2)) for t in X]
    assert np.allclose(prob.gradient(x), grad, rtol=1e-12, atol=1e-300)
    assert np.allclose(prob.curvature_at(x), curv, rtol=1e-12, atol=1e-300)
