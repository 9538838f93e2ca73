"""LCD1: GD equivalence at C = 0, Newton at C = ∇²f, retcodes, dtype, the sympy path."""

import numpy as np
import pytest
import sympy

from algorithms import RetCode, solve
from algorithms.curvature import (
    LCD1,
    CurvatureProblem,
    GradientDescent,
    lcd1_step,
    squared_hinge,
    squared_huber,
    squared_norm_residual,
    sum_of_squared_abs_linear,
)

RNG = np.random.default_rng(1)
A = RNG.standard_normal((15, 5))
B = RNG.standard_normal(15)


def test_equals_gradient_descent_when_curvature_is_zero():
    prob = squared_hinge(A, np.sign(B), x0=np.zeros(5))  # C ≡ 0, L_C = 2‖A‖²
    lcd = solve(prob, LCD1(), maxiters=40, store_trace=True, tol=1.2e-38)
    gd = solve(prob, GradientDescent(lr=1 / prob.L_C), maxiters=40, store_trace=True, tol=1.2e-38)
    np.testing.assert_allclose(lcd.x, gd.x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose([r["value"] for r in lcd.trace], [r["value"] for r in gd.trace], rtol=1e-12)


def test_newton_in_one_step_on_least_squares():
    prob = sum_of_squared_abs_linear(A, B, x0=np.ones(5))
    sol = solve(prob, LCD1(), maxiters=1, tol=1.2e-38)
    np.testing.assert_allclose(sol.x, np.linalg.lstsq(A, B, rcond=None)[0], rtol=1e-10)


def test_step_formula():
    x, g = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    C = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(lcd1_step(x, g, C, 0.5), x - np.linalg.solve(C + 0.5 * np.eye(2), g))
    np.testing.assert_allclose(lcd1_step(x, g, np.array([2.0, 3.0]), 1.0), x - g / np.array([3.0, 4.0]))


def test_step_accepts_sympy():
    L = sympy.Symbol("L", positive=True)
    x, g = sympy.Matrix([1, 2]), sympy.Matrix([3, 4])
    assert lcd1_step(x, g, sympy.zeros(2, 2), L) == sympy.Matrix([1 - 3 / L, 2 - 4 / L])


def test_theorem_4_1_bound_on_huber():
    x_true = RNG.standard_normal(5)
    prob = squared_huber(A, A @ x_true, delta=0.5, x0=x_true + 3.0)
    sol = solve(prob, LCD1(), maxiters=200, store_trace=True, tol=1.2e-38)
    gaps = np.array([r["gap"] for r in sol.trace])
    k = np.arange(1, gaps.size)
    assert np.all(gaps[1:] <= prob.L_C * np.sum((prob.x0 - x_true) ** 2) / (2 * k) + 1e-12)
    assert np.all(np.diff(gaps) <= 1e-12)  # monotone


def test_maxiters_zero_and_trace():
    prob = squared_norm_residual(A, B, x0=np.ones(5))
    sol = solve(prob, LCD1(), maxiters=0, store_trace=True)
    assert sol.retcode is RetCode.MaxIters and np.array_equal(sol.x, prob.x0)
    assert sol.stats.iterations == 0 and len(sol.trace) == 1


def test_float32_kept():
    prob = squared_norm_residual(A.astype(np.float32), B.astype(np.float32))
    sol = solve(prob, LCD1(), maxiters=10)
    assert sol.x.dtype == np.float32


def test_diverged_is_a_retcode():
    # L_C far too small for f = x⁴ (Assumption 2.1 broken): the iterates blow up
    prob = CurvatureProblem(f=lambda x: float(x[0] ** 4), grad=lambda x: 4 * x**3,
                            curvature=lambda x: np.zeros(1), L_C=1e-3, x0=np.array([2.0]))
    with np.errstate(over="ignore", invalid="ignore"):
        sol = solve(prob, LCD1(), maxiters=50)
    assert sol.retcode is RetCode.Diverged


def test_stats_count_curvature_and_solves():
    prob = squared_norm_residual(A, B, x0=np.ones(5))
    sol = solve(prob, LCD1(), maxiters=7, tol=1.2e-38)
    assert sol.stats.iterations == 7 and sol.stats.hess_calls == 7 and sol.stats.linear_solves == 7
    assert sol.stats.grad_calls == 8


def test_callback_terminates():
    prob = squared_norm_residual(A, B, x0=np.ones(5))
    sol = solve(prob, LCD1(), maxiters=50, callback=lambda r: r["iteration"] >= 3)
    assert sol.retcode is RetCode.Terminated and sol.stats.iterations == 3


def test_singular_curvature_with_zero_LC_uses_pseudo_inverse():
    # f = (x1 + x2)², C = Hessian (singular), L_C = 0: the pseudo-inverse step is exact
    a = np.array([1.0, 1.0])
    prob = CurvatureProblem(f=lambda x: float((a @ x) ** 2), grad=lambda x: 2 * (a @ x) * a,
                            curvature=lambda x: 2 * np.outer(a, a), L_C=0.0, x0=np.array([1.0, 2.0]),
                            f_star=0.0)
    sol = solve(prob, LCD1(), maxiters=3)
    assert sol.retcode is RetCode.Success and sol.stats.iterations == 1
    assert a @ sol.x == pytest.approx(0.0, abs=1e-12)
