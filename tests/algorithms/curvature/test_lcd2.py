"""LCD2: Polyak at C = 0, the App. C.3 rank-one closed form, the projection against scipy."""

import numpy as np
import pytest
from scipy.optimize import minimize

from algorithms import RetCode, solve
from algorithms.curvature import (
    LCD2,
    CurvatureProblem,
    Polyak,
    lcd2_coefficients,
    lcd2_gap,
    lcd2_multiplier,
    lcd2_step,
    squared_hinge,
    squared_huber,
    squared_norm_residual,
    sum_of_squared_abs_linear,
)

RNG = np.random.default_rng(2)
A = RNG.standard_normal((15, 4))
B = RNG.standard_normal(15)


def test_equals_polyak_when_curvature_is_zero():
    x_sep = RNG.standard_normal(4)
    labels = np.sign(A @ x_sep)
    prob = squared_hinge(A, labels, x0=np.zeros(4), f_star=0.0)  # separable: f* = 0
    lcd = solve(prob, LCD2(), maxiters=30, store_trace=True, tol=1.2e-38)
    pol = solve(prob, Polyak(), maxiters=30, store_trace=True, tol=1.2e-38)
    np.testing.assert_allclose(lcd.x, pol.x, rtol=1e-12, atol=1e-14)


def test_rank_one_closed_form_of_appendix_c3():
    # C = ∇f∇fᵀ/(2f): x⁺ = x − 2(f − √(f f*))/‖∇f‖² ∇f
    prob = squared_norm_residual(A, B, x0=np.ones(4))
    x = prob.x0
    f, g = prob.value(x), prob.gradient(x)
    x_new, _ = lcd2_step(x, g, prob.curvature_at(x), f - prob.f_star)
    expected = x - 2 * (f - np.sqrt(f * prob.f_star)) / (g @ g) * g
    np.testing.assert_allclose(x_new, expected, rtol=1e-9)


def _projection_by_scipy(x, g, C, delta):
    cons = {"type": "ineq", "fun": lambda z: -(delta + g @ (z - x) + 0.5 * (z - x) @ C @ (z - x)),
            "jac": lambda z: -(g + C @ (z - x))}
    res = minimize(lambda z: 0.5 * np.sum((z - x) ** 2), x - 1e-3 * g, jac=lambda z: z - x,
                   constraints=[cons], method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    return res.x


@pytest.mark.parametrize("seed", range(4))
def test_step_is_the_euclidean_projection(seed):
    rng = np.random.default_rng(seed)
    d = 4
    M = rng.standard_normal((d, d))
    C = M @ M.T / d
    x, g = rng.standard_normal(d), rng.standard_normal(d)
    # a feasible Δ: below the model's minimum gap ½gᵀC⁻¹g
    delta = 0.3 * 0.5 * g @ np.linalg.solve(C, g)
    x_new, info = lcd2_step(x, g, C, delta)
    np.testing.assert_allclose(x_new, _projection_by_scipy(x, g, C, delta), rtol=1e-5, atol=1e-6)
    assert delta + g @ (x_new - x) + 0.5 * (x_new - x) @ C @ (x_new - x) == pytest.approx(0.0, abs=1e-10)
    assert info["multiplier"] >= delta / (g @ g)


def test_multiplier_is_the_root():
    ghat, D = np.array([1.0, 2.0, 0.5]), np.array([0.0, 1.0, 3.0])
    lam = lcd2_multiplier(1.5, ghat, D)
    assert lcd2_gap(lam, 1.5, ghat, D) == pytest.approx(0.0, abs=1e-12)
    assert lcd2_multiplier(1.5, ghat, np.zeros(3)) == pytest.approx(1.5 / (ghat @ ghat))


def test_newton_step_in_the_equality_case():
    prob = sum_of_squared_abs_linear(A, B, x0=np.ones(4))
    sol = solve(prob, LCD2(), maxiters=1, store_trace=True, tol=1.2e-38)
    np.testing.assert_allclose(sol.x, prob.x_star, rtol=1e-9)
    assert sol.trace[1]["multiplier"] == np.inf


def test_converges_on_huber():
    x_true = RNG.standard_normal(4)
    prob = squared_huber(A, A @ x_true, delta=0.3, x0=x_true + 2.0)
    sol = solve(prob, LCD2(), maxiters=500, tol=1e-12)
    assert sol.retcode is RetCode.Success
    # f grows like Σ rᵢ⁴/4 near x*: f − f* <= 1e-12 pins the residuals only to ~(4e-12)^(1/4) ~ 1e-3
    np.testing.assert_allclose(sol.x, x_true, atol=1e-2)
    assert np.max(np.abs(A @ sol.x - A @ x_true)) <= 3e-3


def test_needs_f_star():
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: 2 * np.ones(2), L_C=0.0, x0=np.ones(2))
    with pytest.raises(ValueError, match="f_star"):
        solve(prob, LCD2())


def test_float32_and_maxiters_zero():
    prob = squared_norm_residual(A, B, x0=np.ones(4, dtype=np.float32))
    assert solve(prob, LCD2(), maxiters=5).x.dtype == np.float32
    assert solve(prob, LCD2(), maxiters=0).retcode is RetCode.MaxIters


def test_stats_count_one_curvature_and_one_solve_per_step():
    prob = squared_norm_residual(A, B, x0=np.ones(4))
    sol = solve(prob, LCD2(), maxiters=7, tol=1.2e-38)
    assert sol.retcode is RetCode.MaxIters and sol.stats.iterations == 7
    assert sol.stats.hess_calls == 7 and sol.stats.linear_solves == 7
    assert sol.stats.f_calls == 8 and sol.stats.grad_calls == 8


def test_multiplier_zero_is_a_valid_argument():
    # λ = 0 (no step) is in the domain of h and of the step coefficients: h(0) = Δ, coefficients 0
    ghat, D = np.array([1.0, -2.0]), np.array([0.0, 3.0])
    assert float(lcd2_gap(0.0, 1.5, ghat, D)) == 1.5
    assert lcd2_coefficients(0.0, D).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="lam must be >= 0"):
        lcd2_gap(-1e-300, 1.5, ghat, D)
