"""GradientDescent, Polyak and the scipy L-BFGS-B wrapper."""

import numpy as np
import pytest
from scipy.optimize import OptimizeResult, minimize

from algorithms import RetCode, solve
from algorithms.curvature import (
    LBFGS,
    CurvatureProblem,
    GradientDescent,
    Polyak,
    squared_norm_residual,
)

RNG = np.random.default_rng(4)
A = RNG.standard_normal((10, 3))
B = RNG.standard_normal(10)


def test_gradient_descent_matches_a_hand_loop():
    prob = squared_norm_residual(A, B, x0=np.ones(3))
    L = prob.L
    x = prob.x0.copy()
    for _ in range(25):
        x = x - prob.gradient(x) / L
    sol = solve(prob, GradientDescent(), maxiters=25, tol=1.2e-38)
    np.testing.assert_allclose(sol.x, x, rtol=1e-12)


def test_gradient_descent_needs_a_step():
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: 2 * np.ones(2), L_C=0.0, x0=np.ones(2))
    with pytest.raises(ValueError, match="lr="):
        solve(prob, GradientDescent())
    assert solve(prob, GradientDescent(lr=0.5), maxiters=5).retcode is RetCode.Success


@pytest.mark.parametrize("lr", [0.0, -1.0, float("inf")])
def test_gradient_descent_bad_lr(lr):
    with pytest.raises(ValueError, match="lr"):
        GradientDescent(lr=lr)


def test_gradient_descent_too_long_a_step_diverges():
    prob = squared_norm_residual(A, B, x0=np.ones(3))
    sol = solve(prob, GradientDescent(lr=3 / prob.L), maxiters=10_000)
    assert sol.retcode is RetCode.Diverged and sol.stats.iterations < 200


def test_polyak_matches_a_hand_loop():
    prob = squared_norm_residual(A, B, x0=np.ones(3))
    x = prob.x0.copy()
    for _ in range(10):
        g = prob.gradient(x)
        x = x - (prob.value(x) - prob.f_star) / (g @ g) * g
    sol = solve(prob, Polyak(), maxiters=10, tol=1.2e-38, store_trace=True)
    np.testing.assert_allclose(sol.x, x, rtol=1e-10)
    # the trace records the step size Δ/‖∇f‖² of the step from each iterate, at the next one
    y = prob.x0.copy()
    for record in sol.trace[1:4]:
        g = prob.gradient(y)
        step = (prob.value(y) - prob.f_star) / (g @ g)
        assert record["stepsize"] == pytest.approx(step, rel=1e-12)
        y = y - step * g


def test_polyak_needs_f_star():
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: 2 * np.ones(2), L_C=0.0, x0=np.ones(2))
    with pytest.raises(ValueError, match="f_star"):
        solve(prob, Polyak())


def test_lbfgs_agrees_with_scipy():
    prob = squared_norm_residual(A, B, x0=np.ones(3))
    sol = solve(prob, LBFGS(memory=5), store_trace=True)
    ref = minimize(prob.value, prob.x0, jac=prob.gradient, method="L-BFGS-B")
    assert isinstance(sol.original, OptimizeResult)
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, ref.x, atol=1e-5)
    np.testing.assert_allclose(sol.x, prob.x_star, atol=1e-5)
    assert sol.stats.iterations == sol.original.nit and sol.trace[0]["iteration"] == 0


def test_lbfgs_maxiters_zero_and_float32():
    prob = squared_norm_residual(A, B, x0=np.ones(3, dtype=np.float32))
    sol = solve(prob, LBFGS(), maxiters=0)
    assert sol.retcode is RetCode.MaxIters and sol.x.dtype == np.float32
    assert solve(prob, LBFGS()).x.dtype == np.float32


@pytest.mark.parametrize("memory", [0, -2, 1.5, True])
def test_lbfgs_bad_memory(memory):
    with pytest.raises(ValueError, match="memory"):
        LBFGS(memory=memory)


def test_gradient_descent_default_step_from_L_C_when_C_is_zero():
    # no L given: with C ≡ 0, L_C is a smoothness constant and the step is 1/L_C
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: np.zeros(2), L_C=4.0, x0=np.array([1.0, -2.0]))
    sol = solve(prob, GradientDescent(), maxiters=1, tol=1.2e-38)
    np.testing.assert_allclose(sol.x, prob.x0 - 2 * prob.x0 / 4.0)


def test_gradient_descent_has_no_default_step_when_C_is_not_zero():
    # 1/L_C is GD's default only where C ≡ 0 (then L_C is a smoothness constant); with C ≠ 0 and no L
    # there is no step to default to, whatever L_C is
    prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                            curvature=lambda x: np.ones(2), L_C=1.0, x0=np.ones(2))
    with pytest.raises(ValueError, match="lr="):
        solve(prob, GradientDescent())
