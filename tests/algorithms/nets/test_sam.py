"""Unit tests of the SAM optimizer and the SAM/SGD training pairs."""

import io
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
    generalizing_solution,
    memorizing_solution,
    minimum_diagnostics,
    parity_task,
    sample_coherence_matrix,
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
    task = parity_task(n=16, in_features=4, width=6, seed=1)
    a = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=60, seed=2)
    b = solve(task, SAMTraining(lr=0.1, rho=0.0, batch_size=4), maxiters=60, seed=2)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.value == b.value


def test_sam_differs_and_counts_gradients():
    task = parity_task(n=16, in_features=4, width=6, seed=1)
    a = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=30, tol=1e-12, seed=2)
    b = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4), maxiters=30, tol=1e-12, seed=2,
              store_trace=True)
    assert not np.array_equal(a.x, b.x)
    assert b.stats.grad_calls == 2 * b.stats.iterations == 60
    assert len(b.trace) == 30 and "loss" in b.trace[0]


def test_maxiters_zero_returns_init():
    task = parity_task(n=8, in_features=3, width=4, seed=0)
    sol = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4), maxiters=0, seed=5)
    assert sol.retcode is RetCode.MaxIters
    theta, _ = flatten_params(task.net.init(seed=5))
    np.testing.assert_array_equal(sol.x, theta.numpy())


def test_divergence_is_a_retcode():
    task = parity_task(n=8, in_features=3, width=8, seed=0)
    sol = solve(task, SGDTraining(lr=50.0, batch_size=8), maxiters=200, seed=0)
    assert sol.retcode is RetCode.Diverged


def test_diagnostics_against_direct_computation():
    task = parity_task(n=12, in_features=3, width=5, seed=3)
    sol = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=3000, tol=1e-10, seed=0)
    diag = minimum_diagnostics(task, sol.x, lr=0.1, batch_size=4, exact_sample_hessians=True)
    _, unflatten = flatten_params(task.net.init(seed=0))
    theta = torch.as_tensor(sol.x)
    H = flat_hessian(lambda t: task.loss(unflatten(t)), theta).numpy()
    assert abs(diag["sharpness"] - np.linalg.eigvalsh(H)[-1]) < 1e-9
    # near interpolation the Gauss–Newton part is the whole Hessian
    assert abs(diag["gn_sharpness"] - diag["sharpness"]) < 1e-3 * diag["sharpness"]
    X = torch.as_tensor(task.X)
    J = torch.func.jacrev(lambda t: task.net.forward_with(unflatten(t), X))(theta).numpy()
    S = 2 * np.abs(J @ J.T)
    assert abs(diag["coherence_top"] - np.linalg.eigvalsh(S)[-1]) < 1e-8 * diag["coherence_top"]
    assert diag["coherence_defined"] and diag["coherence_exact_defined"]
    assert 1 - 1e-9 <= diag["coherence"] <= task.n + 1e-9
    assert 0 < diag["sgd_radius"] <= 1 + 1e-9      # a point SGD converged to is not unstable
    # at (near) interpolation the true per-sample Hessians are the Gauss–Newton ones
    assert abs(diag["coherence_exact"] - diag["coherence"]) < 1e-3 * diag["coherence"]


def test_diagnostics_flag_undefined_coherence():
    """All-zero parameters: every ∇f_i (and ∇²ℓ_i) vanishes, σ is 0/0 -> NaN, flagged and warned."""
    task = parity_task(n=8, in_features=3, width=4, seed=0)
    theta, _ = flatten_params(task.net.init(seed=0))
    with pytest.warns(RuntimeWarning) as record:
        diag = minimum_diagnostics(task, np.zeros(theta.numel()), exact_sample_hessians=True)
    messages = [str(w.message) for w in record]
    assert any(m.startswith("coherence is undefined") for m in messages), messages
    assert any(m.startswith("coherence_exact is undefined") for m in messages), messages
    assert diag["coherence_defined"] is False and math.isnan(diag["coherence"])
    assert diag["coherence_exact_defined"] is False and math.isnan(diag["coherence_exact"])
    assert diag["max_sample_top"] == 0.0 and diag["coherence_top"] == 0.0


def _closure(opt, params, loss_fn):
    def closure():
        opt.zero_grad()
        loss = loss_fn(params)
        loss.backward()
        return loss
    return closure


def test_sam_step_against_independent_computation():
    """One SAM step on a non-quadratic loss: ascent sign, radius ρ, gradient at θ + ε, restore, base step."""
    a = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)

    def loss_of(w):
        return torch.cosh(w).sum() + (w @ a) ** 4

    w0 = torch.tensor([0.3, -0.2, 0.1], dtype=torch.float64)
    lr, rho = 0.05, 0.2
    g = torch.func.grad(loss_of)(w0)
    eps = rho * g / g.norm()
    expected = w0 - lr * torch.func.grad(loss_of)(w0 + eps)
    w = torch.nn.Parameter(w0.clone())
    opt = SAM([w], lr=lr, rho=rho)
    loss_of(w).backward()
    opt.first_step(zero_grad=True)
    torch.testing.assert_close(w.detach() - w0, eps, rtol=1e-10, atol=1e-12)   # +g direction, ‖ε‖ = ρ
    assert abs(float((w.detach() - w0).norm()) - rho) < 1e-12
    loss_of(w).backward()
    opt.second_step()
    torch.testing.assert_close(w.detach(), expected, rtol=1e-10, atol=1e-12)
    w.data.copy_(w0)                                 # and the closure form gives the same step
    opt.step(_closure(opt, w, loss_of))
    torch.testing.assert_close(w.detach(), expected, rtol=1e-10, atol=1e-12)


def test_sam_state_dict_round_trip_with_momentum():
    task = parity_task(n=12, in_features=3, width=5, seed=4)
    X, y = task.tensors()

    def loss_fn(params):
        return torch.mean((task.net.forward_with(params, X) - y) ** 2)

    def make(init):
        params = {k: torch.nn.Parameter(v.clone()) for k, v in init.items()}
        return params, SAM(list(params.values()), rho=0.05, lr=0.1, momentum=0.9)

    params, opt = make(task.net.init(seed=1))
    for _ in range(3):
        opt.step(_closure(opt, params, loss_fn))
    saved = opt.state_dict()
    assert saved["base_optimizer"]["state"], "the momentum buffers must be saved"
    file = io.BytesIO()          # through bytes, as to disk: torch's state_dict holds live tensors
    torch.save(saved, file)
    file.seek(0)
    twin_params, twin = make({k: p.detach().clone() for k, p in params.items()})
    twin.load_state_dict(torch.load(file))
    assert twin.param_groups is twin.base_optimizer.param_groups
    for _ in range(3):
        opt.step(_closure(opt, params, loss_fn))
        twin.step(_closure(twin, twin_params, loss_fn))
    for k in params:
        assert torch.equal(params[k].detach(), twin_params[k].detach()), k


def test_success_only_when_the_loss_reaches_tol():
    task = parity_task(n=8, in_features=3, width=8, seed=0)
    loose = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=500, tol=0.5, seed=0)
    assert loose.retcode is RetCode.Success and loose.value <= 0.5
    tight = solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=20, tol=1e-12, seed=0)
    assert tight.retcode is RetCode.MaxIters and tight.value > 1e-12


def test_gauss_newton_sample_hessians_are_exact_at_interpolation():
    """At the (C, r) solution (loss 0) 2∇f∇fᵀ is the autograd per-sample Hessian of (f − y)²."""
    from algorithms.nets.functional import flatten_params, per_sample_flat_hessians
    from algorithms.nets.stability import coherence_matrix

    task = parity_task(n=10, in_features=4, width=8, seed=2)
    r = 5 ** 0.25
    x = generalizing_solution(task, 3, r)
    assert task.loss_at(x) < 1e-28
    _, unflatten = flatten_params(task.net.init(seed=0))
    X, y = task.tensors()

    def sample_loss(t, xi, yi):
        return (task.net.forward_with(unflatten(t), xi[None])[0] - yi) ** 2

    exact = per_sample_flat_hessians(sample_loss, torch.as_tensor(x), X, y).numpy()
    np.testing.assert_allclose(sample_coherence_matrix(task, x), coherence_matrix(exact), atol=1e-12)
    # the hand-written ‖∇f‖² = r² + (d + 1)/r² (Appendix C.1) against autograd: λ_max(H_i) = 2‖∇f‖²
    np.testing.assert_allclose(np.linalg.eigvalsh(exact)[:, -1], 2 * (r**2 + 5 / r**2), rtol=1e-12)


def test_memorizing_solution_interpolates_with_diagonal_coherence():
    task = parity_task(n=5, in_features=8, width=7, seed=3)
    x = memorizing_solution(task)
    assert task.loss_at(x) < 1e-28
    S = sample_coherence_matrix(task, x)
    assert np.all(S - np.diag(np.diag(S)) == 0) and np.all(np.diag(S) > 0)
    shared = generalizing_solution(parity_task(n=5, in_features=8, width=8, seed=3), 2, 1.0)
    S2 = sample_coherence_matrix(parity_task(n=5, in_features=8, width=8, seed=3), shared)
    assert np.any(S2 - np.diag(np.diag(S2)) > 0)      # 5 samples, 4 units: some samples share one


@pytest.mark.parametrize("rows", [1, 2, 5])
def test_memorizing_solution_at_the_data_scale(rows):
    """The bias separates x_k from its nearest rival at the data's own scale (n = 1, 2 and more).

    On 0.25·{±1}^d a fixed offset (own − 2 as the rival) would let unit k fire on every sample.
    """
    from algorithms.nets.sam import TwoLayerMSETask

    base = parity_task(n=5, in_features=6, width=5, seed=4)
    X, y = 0.25 * base.X[:rows], base.y[:rows]
    task = TwoLayerMSETask(X=X, y=y, width=5)
    x = memorizing_solution(task)
    n, d = X.shape
    W, b, v = x[:5 * d].reshape(5, d), x[5 * d:5 * d + 5], x[5 * d + 5:]
    pre = X @ W.T + b
    fires = np.zeros((n, 5), dtype=bool)
    fires[:, :n] = np.eye(n, dtype=bool)
    assert np.array_equal(pre > 0, fires)
    np.testing.assert_allclose(np.maximum(pre, 0.0) @ v, y, atol=1e-12)
    assert task.loss_at(x) < 1e-24


def test_parity_task_smallest_input_dimension():
    # y = x0·x1 needs two input features, and two suffice (the guard's boundary is a valid task)
    task = parity_task(n=6, in_features=2, width=2, seed=0)
    assert task.X.shape == (6, 2) and np.array_equal(task.y, task.X[:, 0] * task.X[:, 1])
    with pytest.raises(ValueError, match="in_features"):
        parity_task(n=6, in_features=1, width=2, seed=0)


def test_sam_is_exported_from_nets():
    import algorithms.nets

    assert algorithms.nets.SAM is SAM and "SAM" in algorithms.nets.__all__


def test_two_step_path_with_a_scheduler_does_not_warn():
    import warnings

    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            (w ** 2).sum().backward()
            opt.first_step(zero_grad=True)
            (w ** 2).sum().backward()
            opt.second_step(zero_grad=True)
            sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.025)


def test_closure_without_backward_raises_and_leaves_the_parameters():
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1)
    with pytest.raises(RuntimeError, match="backward"):
        opt.step(lambda: (w ** 2).sum())
    assert w.detach().tolist() == [1.0, -2.0]


def test_training_with_another_sam_optimizer():
    """``SAMTraining(optimizer=...)`` trains with the given SAM-like class under the same batches: our SAM
    given explicitly is the default run exactly; a stand-in records that it was built and stepped."""
    task = parity_task(n=16, in_features=4, width=6, seed=1)
    a = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4), maxiters=20, seed=2)
    b = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4, optimizer=SAM), maxiters=20, seed=2)
    np.testing.assert_array_equal(a.x, b.x)
    built = []

    def recording(params, base_optimizer, **kwargs):
        built.append(kwargs)
        return SAM(params, base_optimizer, **kwargs)

    c = solve(task, SAMTraining(lr=0.1, rho=0.1, batch_size=4, optimizer=recording), maxiters=20, seed=2)
    np.testing.assert_array_equal(a.x, c.x)
    assert built == [{"rho": 0.1, "normalize": True, "lr": 0.1}]
