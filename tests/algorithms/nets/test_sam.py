"""Unit tests of the SAM optimizer and the SAM/SGD training pairs."""

import math

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.nets.functional import flat_hessian, flatten_params
from algorithms.nets.sam import (
    SAM,
    SAMTraining,
    SGDTraining,
    TwoLayerMSETask,
    minimum_diagnostics,
    parity_task,
)

torch.set_num_threads(1)


def test_sam_step_on_quadratic_matches_formula():
    A = torch.tensor([[3.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
    w = torch.nn.Parameter(torch.tensor([1.0, -1.0], dtype=torch.float64))
    w0 = w.detach().clone()
    opt = SAM([w], lr=0.1, rho=0.2)

    def closure():
        opt.zero_grad()
        loss = 0.5 * w @ A @ w
        loss.backward()
        return loss

    opt.step(closure)
    g = A @ w0
    expected = w0 - 0.1 * (A @ (w0 + 0.2 * g / g.norm()))
    torch.testing.assert_close(w.detach(), expected)


def test_unnormalized_sam():
    w = torch.nn.Parameter(torch.tensor([2.0], dtype=torch.float64))
    opt = SAM([w], lr=0.1, rho=0.5, normalize=False)

    def closure():
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    opt.step(closure)   # w − η·2(w + ρ·2w) = 2 − 0.1·2·(2 + 2) = 1.2
    assert abs(w.item() - 1.2) < 1e-12


def test_sam_rho_zero_is_sgd_exactly():
    task = parity_task(n=16, input_dim=4, width=6, seed=1)
    a = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=60, seed=2)
    b = solve(task, SAMTraining(lr=0.1, rho=0.0, batch_size=4), maxiters=60, seed=2)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.value == b.value


def test_sam_differs_and_counts_gradients():
    task = parity_task(n=16, input_dim=4, width=6, seed=1)
    a = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=30, tol=1e-12, seed=2)
    b = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4), maxiters=30, tol=1e-12, seed=2,
              store_trace=True)
    assert not np.array_equal(a.x, b.x)
    assert b.stats.grad_calls == 2 * b.stats.iterations == 60
    assert len(b.trace) == 30 and "loss" in b.trace[0]


def test_maxiters_zero_returns_init():
    task = parity_task(n=8, input_dim=3, width=4, seed=0)
    sol = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4), maxiters=0, seed=5)
    assert sol.retcode is RetCode.MaxIters
    theta, _ = flatten_params(task.net.init(seed=5))
    np.testing.assert_array_equal(sol.x, theta.numpy())


def test_divergence_is_a_retcode():
    task = parity_task(n=8, input_dim=3, width=8, seed=0)
    sol = solve(task, SGDTraining(lr=50.0, batch_size=8), maxiters=200, seed=0)
    assert sol.retcode is RetCode.Diverged


def test_diagnostics_against_direct_computation():
    task = parity_task(n=12, input_dim=3, width=5, seed=3)
    sol = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=3000, tol=1e-10, seed=0)
    diag = minimum_diagnostics(task, sol.x, lr=0.1, batch_size=4, exact_sample_hessians=True)
    _, unflatten = flatten_params(task.net.init(seed=0))
    theta = torch.as_tensor(sol.x)
    H = flat_hessian(lambda t: task.loss(unflatten(t)), theta).numpy()
    assert abs(diag["sharpness"] - np.linalg.eigvalsh(H)[-1]) < 1e-9
    # near interpolation the Gauss–Newton part is the whole Hessian
    assert abs(diag["gn_sharpness"] - diag["sharpness"]) < 1e-3 * diag["sharpness"]
    X = torch.as_tensor(task.X)
    J = torch.func.jacrev(lambda t: task.net.apply(unflatten(t), X))(theta).numpy()
    S = 2 * np.abs(J @ J.T)
    assert abs(diag["coherence_top"] - np.linalg.eigvalsh(S)[-1]) < 1e-8 * diag["coherence_top"]
    assert diag["coherence_defined"] and diag["coherence_exact_defined"]
    assert 1 - 1e-9 <= diag["coherence"] <= task.n + 1e-9
    assert 0 < diag["sgd_radius"] <= 1 + 1e-9      # a point SGD converged to is not unstable
    # at (near) interpolation the true per-sample Hessians are the Gauss–Newton ones
    assert abs(diag["coherence_exact"] - diag["coherence"]) < 1e-3 * diag["coherence"]


def test_diagnostics_flag_undefined_coherence():
    """All-zero parameters: every ∇f_i (and ∇²ℓ_i) vanishes, σ is 0/0 -> NaN, flagged and warned."""
    task = parity_task(n=8, input_dim=3, width=4, seed=0)
    theta, _ = flatten_params(task.net.init(seed=0))
    with pytest.warns(RuntimeWarning) as record:
        diag = minimum_diagnostics(task, np.zeros(theta.numel()), exact_sample_hessians=True)
    messages = [str(w.message) for w in record]
    assert any(m.startswith("coherence is undefined") for m in messages), messages
    assert any(m.startswith("coherence_exact is undefined") for m in messages), messages
    assert diag["coherence_defined"] is False and math.isnan(diag["coherence"])
    assert diag["coherence_exact_defined"] is False and math.isnan(diag["coherence_exact"])
    assert diag["max_sample_top"] == 0.0 and diag["coherence_top"] == 0.0


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="lr"):
        SGDTraining(lr=0.0)
    with pytest.raises(ValueError, match="rho"):
        SAMTraining(rho=-0.1)
    with pytest.raises(ValueError, match="batch_size"):
        SAMTraining(batch_size=0)
    with pytest.raises(TypeError, match="normalize"):
        SAMTraining(normalize=1)
    with pytest.raises(ValueError, match="rho"):
        SAM([torch.nn.Parameter(torch.zeros(1))], lr=0.1, rho=-1.0)
    with pytest.raises(ValueError, match="y must have length"):
        TwoLayerMSETask(X=np.zeros((3, 2)), y=np.zeros(2), width=2)
    with pytest.raises(ValueError, match="width"):
        TwoLayerMSETask(X=np.zeros((3, 2)), y=np.zeros(3), width=0)
    with pytest.raises(ValueError, match="X contains NaN"):
        TwoLayerMSETask(X=np.full((3, 2), np.nan), y=np.zeros(3), width=2)
    with pytest.raises(ValueError, match="batch_size"):
        solve(parity_task(n=4, input_dim=2, width=2, seed=0), SGDTraining(batch_size=5))
    with pytest.raises(ValueError, match="closure"):
        SAM([torch.nn.Parameter(torch.zeros(1))], lr=0.1).step()
