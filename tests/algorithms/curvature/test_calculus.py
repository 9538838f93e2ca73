"""The local curvature calculus (shifted, scaled, summed), ‖x‖_p^p (Example 6.4), the blow-up retcode."""

import math

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from algorithms import RetCode, solve
from algorithms.curvature import (
    LCD2,
    LCD3,
    GradientDescent,
    lp_norm_power,
    scaled,
    shifted,
    squared_hinge,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
    summed,
)

RNG = np.random.default_rng(7)
A = RNG.standard_normal((8, 3))
B = RNG.standard_normal(8)
X0 = np.array([0.5, -1.0, 2.0])


def test_shifted_and_scaled_carry_values_curvature_and_constants():
    base = squared_norm_residual(A, B, x0=X0)
    up = shifted(base, -2.5)
    assert up.value(X0) == pytest.approx(base.value(X0) - 2.5)
    assert up.f_star == pytest.approx(base.f_star - 2.5)
    np.testing.assert_array_equal(up.curvature_at(X0), base.curvature_at(X0))
    half = scaled(base, 0.5)
    np.testing.assert_allclose(half.gradient(X0), 0.5 * base.gradient(X0))
    np.testing.assert_allclose(half.curvature_at(X0), 0.5 * base.curvature_at(X0))
    assert (half.L_C, half.L, half.f_star) == pytest.approx((0.5 * base.L_C, 0.5 * base.L, 0.5 * base.f_star))
    np.testing.assert_array_equal(half.x_star, base.x_star)


def test_summed_adds_curvatures_of_mixed_forms_and_constants():
    quad = sum_of_squared_abs_linear(A, B, x0=X0)            # matrix C, L_C = 0
    lp = squared_lp_norm(3, x0=X0)                           # diagonal C
    both = summed(quad, lp)
    np.testing.assert_allclose(both.curvature_at(X0), quad.curvature_at(X0) + np.diag(lp.curvature_at(X0)))
    assert both.L_C == lp.L_C and both.f_star is None and both.x_star is None
    assert both.L == pytest.approx(quad.L + lp.L)
    assert summed(lp, lp).curvature_at(X0).ndim == 1


def test_corollary_5_1_sum_with_a_convex_function_keeps_the_curvature():
    lp = squared_lp_norm(4, x0=X0)
    hinge = squared_hinge(A, np.sign(B), x0=X0)
    total = summed(lp, hinge)
    np.testing.assert_allclose(total.curvature_at(X0), lp.curvature_at(X0))
    assert total.L_C == lp.L_C + hinge.L_C


@pytest.mark.parametrize("p", [2.0, 3.0, 4.5])
@pytest.mark.parametrize("kind", ["diagonal", "rank_one"])
def test_lp_norm_power_gradient_curvature_and_lower_sandwich(p, kind):
    prob = lp_norm_power(p, x0=X0, curvature=kind)
    x = X0 + 0.3
    np.testing.assert_allclose(prob.gradient(x), approx_fprime(x, prob.value, 1e-7), rtol=1e-5)
    # C(x) ⪯ ∇²f(x) (Lemma E.6): ∇²f = p(p − 1) diag(|x|^{p−2})
    H = p * (p - 1) * np.diag(np.abs(x) ** (p - 2))
    C = prob.curvature_at(x)
    C = np.diag(C) if C.ndim == 1 else C
    assert np.linalg.eigvalsh(H - C)[0] >= -1e-10 * np.abs(H).max()
    assert (prob.L_C == math.inf) == (p > 2) and prob.f_star == 0.0


def test_lp_norm_power_is_tight_at_the_reflected_point():
    # the constant p of C₁ cannot be raised: at x = −y the lower bound is an equality
    prob = lp_norm_power(3.0, x0=np.array([1.0]))
    y, x = np.array([1.0]), np.array([-1.0])
    model = prob.value(y) + prob.gradient(y) @ (x - y) + 0.5 * prob.curvature_at(y)[0] * (x - y) @ (x - y)
    assert model == pytest.approx(prob.value(x))


def test_lp_norm_power_runs_with_the_polyak_type_methods():
    prob = lp_norm_power(4.0, x0=X0, curvature="rank_one")
    assert solve(prob, LCD2(), maxiters=200).retcode is RetCode.Success
    assert solve(prob, LCD3(), maxiters=200).retcode is RetCode.Success


def test_growth_past_the_blowup_threshold_is_diverged():
    prob = squared_norm_residual(A, B, x0=X0)
    sol = solve(prob, GradientDescent(lr=2.5 / prob.L), maxiters=100_000, store_trace=True)
    assert sol.retcode is RetCode.Diverged and np.isfinite(sol.value)
    threshold = prob.f0 + 1e15 * max(1.0, prob.f0)
    values = [r["value"] for r in sol.trace]
    assert values[-1] > threshold and max(values[:-1]) <= threshold  # stops at the first crossing
