"""Round 25: float32 problems and projections near the working range's ends (references in float64/exact)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.core import RetCode
from algorithms.unlearning import (
    DeepLinear,
    DeepLinearOG,
    GradientDescent,
    LinearModel,
    MinNormOG,
    Retrain,
    SparseWidthOG,
    TwoLayerPerceptron,
    UnlearningProblem,
    balanced_factorization,
    deep_linear_task,
    lemma1_perturbation,
    sine_poisoning_task,
    sup_error,
)
from algorithms.unlearning import orthogonal_gradient_step as step

_X = [[1.0, 2.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]


def _problem(scale: float, theta, dtype=torch.float32, y=(1.0, 2.0, 3.0)) -> UnlearningProblem:
    X = torch.tensor(_X, dtype=dtype) * scale
    y = torch.tensor(y, dtype=dtype)
    return UnlearningProblem(LinearModel(3, seed=0), torch.tensor(theta, dtype=dtype), (X[:2], y[:2]),
                             (X[2:], y[2:]))


@pytest.mark.parametrize("scale", [1e10, 1e15])
def test_float32_gradients_past_1e19_are_finite_not_diverged(scale):
    # torch's float32 vector_norm summed float32 squares: ‖∇J‖ = 1.7e20 read as inf and the run of finite
    # iterates ended Diverged at iteration 0
    sol = solve(_problem(scale, [0.1, 0.2, 0.3]), MinNormOG())
    assert sol.retcode == RetCode.Success and sol.stats.iterations >= 1
    x = sol.x.double().numpy()
    X = np.array(_X[:2])
    assert np.allclose(X @ x, X @ np.array([0.1, 0.2, 0.3]), rtol=1e-6)  # kept θ*'s row-space part


def test_float32_distance_to_retrain_of_a_huge_target_is_finite():
    # the target pinv(X_r) y_r = 1.3e30 for data of 1e-30: its float32 norm was inf
    sol = solve(_problem(1e-30, [0.1, 0.2, 0.3]), MinNormOG())
    target = np.linalg.pinv(np.array(_X[:2]) * np.float32(1e-30)) @ np.array([1.0, 2.0])
    reference = np.linalg.norm(sol.x.double().numpy() - target)
    assert math.isclose(sol.stats.distance_to_retrain, reference, rel_tol=1e-5)


def test_float32_gradient_below_1e_19_is_not_read_as_zero():
    # labels of 1e-25 at θ* = 0: ∇J ~ 1e-25 had float32 squares of 1e-50 (0), so ‖∇J‖ = 0 <= tol = 1e-30
    # was Success at θ* untouched
    prob = _problem(1.0, [0.0, 0.0, 0.0], y=(1e-25, 2e-25, 3e-25))
    sol = solve(prob, GradientDescent(lr=0.1), tol=1e-30, maxiters=3)
    assert sol.retcode == RetCode.MaxIters and sol.stats.iterations == 3
    assert math.isclose(sol.stats.grad_calls, 3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_orthogonal_gradient_step_near_the_working_range_top(dtype):
    # float32: a θ of 3e38 had an inf basis @ θ (NaN), gradients of 3e38 an inf singular value (θ -> 0)
    theta = torch.tensor([3e38, 3e38], dtype=dtype)
    assert torch.allclose(step(theta, torch.tensor([[1.0, 1.0]], dtype=dtype)), theta, rtol=1e-6)
    got = step(torch.tensor([1.0, 2.0], dtype=dtype), torch.tensor([[3e38, 3e38]], dtype=dtype))
    assert torch.allclose(got, torch.tensor([1.5, 1.5], dtype=dtype), rtol=1e-6)
    got = step(torch.tensor([1.0, 2.0], dtype=dtype), torch.tensor([[3e38, 3e38]], dtype=dtype), 1.0)
    assert torch.allclose(got, torch.tensor([1.25, 1.75], dtype=dtype), rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_orthogonal_gradient_step_at_tiny_scales(dtype):
    tiny = float(torch.finfo(dtype).tiny)
    got = step(torch.tensor([tiny, 2 * tiny], dtype=dtype), torch.tensor([[1e-30, 1e-30]], dtype=dtype))
    assert torch.allclose(got, torch.tensor([1.5 * tiny, 1.5 * tiny], dtype=dtype), rtol=1e-6, atol=0)
    got = step(torch.tensor([1.0, 2.0], dtype=dtype), torch.tensor([[tiny / 4, 0.0]], dtype=dtype))
    assert torch.equal(got, torch.tensor([1.0, 0.0], dtype=dtype))


# ----------------------------------------------------------------------------- class B: per-row acceptance
def _deep_linear_problem(big: float) -> UnlearningProblem:
    X = torch.tensor([[big, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=torch.float64)
    y = torch.tensor([big, 1.0, 1.0], dtype=torch.float64)
    net = DeepLinear(4, (3, 3), seed=0)
    theta = balanced_factorization(net, torch.tensor([1.0, 1.0, 1.0, 5.0], dtype=torch.float64))
    return UnlearningProblem(net, theta, (X[:2], y[:2]), (X[2:], y[2:]))


@pytest.mark.parametrize("complexity", ["predictor", "parameter"])
def test_deep_linear_og_success_fits_every_row_on_its_own_scale(complexity):
    # the rank cut drops the row of 1 beside a row of 1e11: its residual 1 passed tol·(1 + max|y|) = 1e3
    sol = solve(_deep_linear_problem(1e11), DeepLinearOG(complexity))
    prediction = sol.problem.predict(sol.x, sol.problem.retain[0])[:, 0]
    assert abs(float(prediction[1]) - 1.0) > 0.5 and sol.retcode == RetCode.Failure
    sol = solve(_deep_linear_problem(1e5), DeepLinearOG(complexity))  # both rows kept: still Success
    assert sol.retcode == RetCode.Success


def test_retrain_normal_equations_on_their_own_scale():
    # pinv drops the row of 1 beside a row of 1e17: ‖Xᵀr‖ = 1 passed tol·(1 + ‖X‖²‖θ‖) = 1e24
    X = torch.tensor([[1e17, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    y = torch.tensor([1e17, 1.0, 2.0], dtype=torch.float64)
    prob = UnlearningProblem(LinearModel(2, seed=0), torch.ones(2, dtype=torch.float64), (X[:2], y[:2]),
                             (X[2:], y[2:]))
    sol = solve(prob, Retrain())
    assert float(sol.x[1]) == 0.0 and sol.retcode == RetCode.Failure
    X[0, 0] = 1e10  # both kept: Success
    y[0] = 1e10
    prob = UnlearningProblem(LinearModel(2, seed=0), torch.ones(2, dtype=torch.float64), (X[:2], y[:2]),
                             (X[2:], y[2:]))
    assert solve(prob, Retrain()).retcode == RetCode.Success


def test_sparse_width_og_success_fits_every_row_on_its_own_scale():
    net = TwoLayerPerceptron(2, 3, seed=0)
    X = torch.tensor([[1.0, 0.0], [1e-11, 1e-11], [1.0, 1.0]], dtype=torch.float64)
    y = torch.tensor([1e11, 1.0, 2.0], dtype=torch.float64)
    theta = torch.cat([q.detach().reshape(-1) for q in net.parameters()]).to(torch.float64)
    prob = UnlearningProblem(net, theta, (X[:2], y[:2]), (X[2:], y[2:]))
    sol = solve(prob, SparseWidthOG())
    residual = abs(float(prob.predict(sol.x, X[:2])[1, 0]) - 1.0)
    assert residual > 1e-3 and sol.retcode == RetCode.Failure


@pytest.mark.parametrize("value", [np.float16(0.5), np.float32(0.5), np.float32(np.inf), np.float64(2.0)])
def test_numpy_float_lambda_without_a_runtime_warning(value):
    # np.float32 > sys.float_info.max cast the bound to float32: "overflow encountered in cast" (an error
    # under -W error)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        algorithm = MinNormOG(lambda_schedule=value)
        got = step(torch.ones(2, dtype=torch.float64), torch.ones(1, 2, dtype=torch.float64), value)
    assert algorithm.lambda_schedule == float(value) and type(algorithm.lambda_schedule) is float
    assert bool(torch.isfinite(got).all())


def test_sine_task_inputs_and_sup_error_are_the_documented_scaled_x():
    # the docstrings said "(x, sin x)" and "|f(θ, x) − sin x|": the data and the grid hold x/(5π)
    prob = sine_poisoning_task(8, 2, hidden=(4,), train_steps=5, seed=0)
    X, y = prob.retain
    assert float(X.abs().max()) <= 1.0
    assert torch.allclose(y[:, 0], torch.sin(X[:, 0] * 5 * math.pi), atol=1e-12)
    grid = torch.linspace(-5 * math.pi, 5 * math.pi, 11, dtype=torch.float64)
    with torch.no_grad():
        outputs = prob.predict(prob.params, (grid / (5 * math.pi))[:, None])[:, 0]
    want = float((outputs - torch.sin(grid)).abs().max())
    assert math.isclose(sup_error(prob, prob.params, grid=11), want, rel_tol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("scale", [1e-25, 1e-15, 1e15])
def test_lemma1_perturbation_is_independent_of_the_scale_of_c(dtype, scale):
    # c × s scales u and w by s, so Δ = −u (P⊥w)ᵀ/‖u‖² does not change; float32's u·u was 0 at s = 1e-25
    # (a nonzero u refused)
    task = deep_linear_task(n=4, d=7, widths=(3, 3), n_forget=1, seed=0)
    net = DeepLinear(7, (3, 3), seed=0, dtype=dtype)

    def problem(theta: torch.Tensor) -> UnlearningProblem:
        return UnlearningProblem(net, theta.to(dtype), tuple(t.to(dtype) for t in task.retain),
                                 tuple(t.to(dtype) for t in task.forget))

    base = lemma1_perturbation(problem(task.params))
    theta = task.params.clone()
    theta[:3] *= scale
    got = lemma1_perturbation(problem(theta))
    assert torch.allclose(got, base, rtol=1e-4 if dtype == torch.float32 else 1e-10,
                          atol=1e-4 * float(base.abs().max()) if dtype == torch.float32 else 0.0)
