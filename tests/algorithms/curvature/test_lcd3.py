"""LCD3: the closed form against a scipy projection in the C-norm, LCD2 = LCD3 for rank-one C."""

import numpy as np
import pytest
from scipy.optimize import minimize

from algorithms import RetCode, solve
from algorithms.curvature import (
    LCD2,
    LCD3,
    CurvatureProblem,
    lcd3_step,
    lcd3_stepsize,
    squared_lp_norm,
    squared_norm_residual,
)

RNG = np.random.default_rng(3)
A = RNG.standard_normal((12, 4))
B = RNG.standard_normal(12)


@pytest.mark.parametrize("seed", range(3))
def test_closed_form_is_the_projection_in_the_C_norm(seed):
    rng = np.random.default_rng(seed)
    d = 3
    M = rng.standard_normal((d, d))
    C = M @ M.T / d + 0.2 * np.eye(d)
    x, g = rng.standard_normal(d), rng.standard_normal(d)
    delta = 0.4 * 0.5 * g @ np.linalg.solve(C, g)
    x_new, info = lcd3_step(x, g, C, delta)
    cons = {"type": "ineq", "fun": lambda z: -(delta + g @ (z - x) + 0.5 * (z - x) @ C @ (z - x))}
    ref = minimize(lambda z: 0.5 * (z - x) @ C @ (z - x), x - 1e-3 * g, constraints=[cons],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500}).x
    np.testing.assert_allclose(x_new, ref, rtol=1e-5, atol=1e-6)
    G = g @ np.linalg.solve(C, g)
    assert info["stepsize"] == pytest.approx(1 - np.sqrt(1 - 2 * delta / G))


def test_equals_lcd2_for_the_rank_one_curvature():
    prob = squared_norm_residual(A, B, x0=np.ones(4))
    s2 = solve(prob, LCD2(), maxiters=25, tol=1.2e-38)
    s3 = solve(prob, LCD3(), maxiters=25, tol=1.2e-38)
    np.testing.assert_allclose(s2.x, s3.x, rtol=1e-8, atol=1e-10)


def test_stepsize_formula():
    assert lcd3_stepsize(0.5, 1.0) == 1.0
    assert lcd3_stepsize(0.375, 1.0) == pytest.approx(0.5)


def test_degenerate_when_gradient_leaves_the_range_of_C():
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: np.array([2.0, 0.0]), L_C=2.0, x0=np.ones(2), f_star=0.0)
    sol = solve(prob, LCD3(), maxiters=10)
    assert sol.retcode is RetCode.Degenerate


def test_converges_on_lp_norm_and_keeps_float32():
    prob = squared_lp_norm(4.0, x0=np.array([1.0, -0.5, 2.0], dtype=np.float32))
    sol = solve(prob, LCD3(), maxiters=200, tol=1e-6)
    assert sol.retcode is RetCode.Success and sol.x.dtype == np.float32


def test_needs_f_star():
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: 2 * np.ones(2), L_C=0.0, x0=np.ones(2))
    with pytest.raises(ValueError, match="f_star"):
        solve(prob, LCD3())


def test_stepsize_at_zero_gap_is_zero_and_negative_gap_is_rejected():
    assert lcd3_stepsize(0.0, 2.0) == 0.0  # at the optimum the projection is the point itself
    with pytest.raises(ValueError, match="delta"):
        lcd3_stepsize(-1e-3, 2.0)


def test_stats_count_one_curvature_and_one_solve_per_step():
    prob = squared_norm_residual(A, B, x0=np.ones(4))
    sol = solve(prob, LCD3(), maxiters=6, tol=1.2e-38)
    assert sol.retcode is RetCode.MaxIters and sol.stats.iterations == 6
    assert sol.stats.hess_calls == 6 and sol.stats.linear_solves == 6
    assert sol.stats.f_calls == 7 and sol.stats.grad_calls == 7
