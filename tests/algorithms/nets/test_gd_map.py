"""Unit tests for algorithms.nets.gd_map: GD/SGD maps, Jacobians, log-dets, saddles.

Bad inputs: test_bad_inputs_gd_nonsingular.py.
"""

import math

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.nets.gd_map import (
    EmpiricalLoss,
    GDMap,
    StrictSaddle,
    exact_logabsdet,
    gd_jacobian,
    gd_logabsdet_slq,
    gd_map,
    hessian_eigenvalues,
    hessian_matrix,
    singular_step_sizes,
    stochastic_logabsdet,
)
from algorithms.nets.models import CNN, MLP, SoftmaxAttention

torch.set_num_threads(1)
DT = torch.float64


def _loss(model, loss="cross_entropy", n=6, seed=0):
    gen = torch.Generator().manual_seed(seed)
    X = torch.randn(n, *model.input_shape, generator=gen, dtype=DT)
    k = model.out_features
    if loss == "cross_entropy":
        y = torch.randint(0, k, (n,), generator=gen)
    else:
        y = torch.randn(n, k, generator=gen, dtype=DT)
    return EmpiricalLoss(model, X, y, loss)


MODELS = [MLP(3, (4,), 2, activation="tanh", seed=1),
          CNN(in_channels=1, length=5, channels=2, kernel_size=2, out_features=2, activation="sigmoid",
              seed=2),
          SoftmaxAttention(seq_len=3, dim=2, out_features=2, activation="leaky_relu", seed=3)]


def _params(model, seed):
    """The parameter dict of a twin of ``model`` built with another seed."""
    gen = torch.Generator().manual_seed(seed)
    return {name: torch.randn(p.shape, generator=gen, dtype=p.dtype) * 0.7
            for name, p in model.named_parameters()}


def test_cross_entropy_and_mse_match_torch():
    model = MODELS[0]
    ce = _loss(model, "cross_entropy")
    ref = torch.nn.functional.cross_entropy(model(ce.X), ce.y)
    torch.testing.assert_close(ce.value(), ref)
    mse = _loss(model, "mse")
    ref = 0.5 * torch.nn.functional.mse_loss(model(mse.X), mse.y, reduction="sum") / mse.n
    torch.testing.assert_close(mse.value(), ref)
    params = _params(model, 4)
    theta, fn = mse.flat_objective(params)
    torch.testing.assert_close(fn(theta), mse.value(params))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("loss", ["cross_entropy", "mse"])
def test_gd_map_matches_autograd_step(model, loss):
    L = _loss(model, loss)
    theta, fn = L.flat_objective(_params(model, 2))
    leaf = theta.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(fn(leaf), leaf)
    torch.testing.assert_close(gd_map(fn, theta, lr=0.3), theta - 0.3 * g)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_gd_map_is_one_torch_sgd_step(model):
    """The flat GD map and torch.optim.SGD on the module's own parameters take the same step."""
    L = _loss(model, "cross_entropy")
    theta, fn = L.flat_objective()
    expected = gd_map(fn, theta, lr=0.2)
    opt = torch.optim.SGD(model.parameters(), lr=0.2)
    snapshot = [p.detach().clone() for p in model.parameters()]
    opt.zero_grad()
    L.value().backward()
    opt.step()
    stepped = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    with torch.no_grad():  # restore the shared module for the other tests
        for p, old in zip(model.parameters(), snapshot):
            p.copy_(old)
    torch.testing.assert_close(stepped, expected)


def test_empirical_loss_takes_the_two_layer_module():
    """Any nn.Module with out_features works, e.g. the shared TwoLayerReLU."""
    from algorithms.nets.two_layer import TwoLayerReLU

    net = TwoLayerReLU(in_features=3, width=4, out_features=2, seed=0)
    X = torch.randn(6, 3, dtype=DT)
    L = EmpiricalLoss(net, X, torch.tensor([0, 1, 1, 0, 1, 0]))
    theta, fn = L.flat_objective()
    torch.testing.assert_close(fn(theta), torch.nn.functional.cross_entropy(net(X), L.y))
    assert gd_jacobian(fn, theta, lr=0.1).shape == (theta.numel(), theta.numel())


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_jacobian_is_identity_minus_eta_hessian_and_matches_finite_differences(model):
    L = _loss(model, "cross_entropy")
    theta, fn = L.flat_objective(_params(model, 3))
    lr = 0.7
    J = gd_jacobian(fn, theta, lr)
    H = hessian_matrix(fn, theta)
    torch.testing.assert_close(J, torch.eye(theta.numel(), dtype=DT) - lr * H, atol=1e-12, rtol=0)
    # central differences of the map itself, column by column (O(h^2) error)
    h = 1e-5
    for j in range(0, theta.numel(), 5):
        e = torch.zeros_like(theta)
        e[j] = h
        col = (gd_map(fn, theta + e, lr) - gd_map(fn, theta - e, lr)) / (2 * h)
        torch.testing.assert_close(col, J[:, j], atol=1e-7, rtol=0)


def test_sgd_map_uses_the_batch_loss():
    model = MODELS[0]
    L = _loss(model, "mse", n=8)
    params = _params(model, 0)
    batch = [1, 4, 6]
    theta, fn_b = L.flat_objective(params, batch)
    sub = EmpiricalLoss(model, L.X[batch], L.y[batch], "mse")
    _, fn_sub = sub.flat_objective(params)
    torch.testing.assert_close(gd_map(fn_b, theta, 0.2), gd_map(fn_sub, theta, 0.2))
    torch.testing.assert_close(gd_jacobian(fn_b, theta, 0.2), gd_jacobian(fn_sub, theta, 0.2))


def test_exact_logabsdet_methods_agree_and_match_numpy():
    model = MODELS[1]
    theta, fn = _loss(model, "mse").flat_objective(_params(model, 4))
    H = hessian_matrix(fn, theta).numpy()
    for lr in (0.05, 1.3, 9.0):
        s1, l1 = exact_logabsdet(fn, theta, lr, method="slogdet")
        s2, l2 = exact_logabsdet(fn, theta, lr, method="eigvalsh")
        s3, l3 = np.linalg.slogdet(np.eye(H.shape[0]) - lr * H)
        assert s1 == s2 == s3
        assert l1 == pytest.approx(l3, rel=1e-10, abs=1e-10)
        assert l2 == pytest.approx(l3, rel=1e-8, abs=1e-8)


def test_singular_step_sizes_are_reciprocal_positive_eigenvalues():
    model = MODELS[0]
    theta, fn = _loss(model).flat_objective(_params(model, 5))
    lam = hessian_eigenvalues(fn, theta).numpy()
    steps = singular_step_sizes(fn, theta)
    expected = np.sort(1 / lam[lam > 10 * lam.size * np.finfo(float).eps * np.abs(lam).max()])
    np.testing.assert_allclose(steps, expected)
    assert steps.size <= theta.numel()
    H = hessian_matrix(fn, theta)
    for lr in steps:
        smin = torch.linalg.svdvals(torch.eye(H.shape[0], dtype=DT) - lr * H).min().item()
        assert smin <= 1e-12 * (1 + lr * np.abs(lam).max())


def test_singular_steps_of_diagonal_quadratic():
    def fn(t):
        return 0.5 * (4 * t[0] ** 2 - 2 * t[1] ** 2 + 0.5 * t[2] ** 2 + 0 * t[3] ** 2)

    np.testing.assert_allclose(singular_step_sizes(fn, torch.zeros(4, dtype=DT)), [0.25, 2.0])
    assert exact_logabsdet(fn, torch.zeros(4, dtype=DT), 0.25, method="eigvalsh") == (0.0, -math.inf)


def test_stochastic_logabsdet_on_explicit_matrix():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((60, 60)))
    mu = rng.uniform(0.3, 3.0, 60)
    A = torch.as_tensor(Q @ np.diag(mu) @ Q.T)
    exact = float(np.sum(np.log(mu)))
    est = stochastic_logabsdet(lambda V: A @ V, 60, num_probes=400, lanczos_steps=25, seed=1)
    bound = math.sqrt(2 * np.sum(np.log(mu) ** 2) / 400)
    assert abs(est.estimate - exact) <= 4 * bound
    assert est.samples.shape == (400,)
    assert est.stderr > 0
    # deterministic under the seed
    again = stochastic_logabsdet(lambda V: A @ V, 60, num_probes=400, lanczos_steps=25, seed=1)
    assert again.estimate == est.estimate


def test_stochastic_logabsdet_exact_when_krylov_space_is_exhausted():
    A = torch.diag(torch.tensor([0.5, 2.0, 2.0, 8.0], dtype=DT))  # 3 distinct eigenvalues
    est = stochastic_logabsdet(lambda V: A @ V, 4, num_probes=5, lanczos_steps=10, seed=3)
    # Lanczos terminates after 3 steps; the quadrature is exact for each probe z: zᵀ log A z = tr log A
    assert est.estimate == pytest.approx(math.log(0.5 * 4 * 8), abs=1e-10)


def test_slq_on_network_agrees_with_exact():
    model = MLP(4, (8,), 3, activation="tanh", seed=6)
    theta, fn = _loss(model, n=12).flat_objective()
    lam = hessian_eigenvalues(fn, theta).numpy()
    lr = 0.6 / lam.max()
    _, exact = exact_logabsdet(fn, theta, lr)
    est = gd_logabsdet_slq(fn, theta, lr, num_probes=200, lanczos_steps=20, seed=0)
    bound = math.sqrt(2 * np.sum(np.log(np.abs(1 - lr * lam)) ** 2) / 200)
    assert abs(est.estimate - exact) <= 4 * bound


# ----------------------------------------------------------------------------- strict saddle + GDMap

def test_strict_saddle_derivatives():
    """The hand-written gradient and Hessian against central differences and against autograd."""
    p = StrictSaddle(a=[1.0, 2.0], b=[0.5])
    z = np.array([0.3, -0.2, 0.9])
    h = 1e-6
    num = np.array([(p.value(z + h * e) - p.value(z - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(p.grad(z), num, atol=1e-8)
    num_hess = np.array([(p.grad(z + h * e) - p.grad(z - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(p.hessian(z), num_hess, atol=1e-8)
    np.testing.assert_allclose(p.hessian(np.zeros(3)), np.diag([1.0, 2.0, -0.5]))

    def f(t):  # the same function in torch
        u, v = t[:2], t[2:]
        return 0.5 * (torch.tensor([1.0, 2.0], dtype=DT) * u**2).sum() + (v**4 / 4 - 0.5 * 0.5 * v**2).sum()

    zt = torch.as_tensor(z)
    np.testing.assert_allclose(p.grad(z), torch.func.grad(f)(zt).numpy(), rtol=1e-14)
    np.testing.assert_allclose(p.hessian(z), hessian_matrix(f, zt).numpy(), rtol=1e-14)


def test_claim_closed_forms_match_autodiff():
    """The hand-written curvatures of theorems.gd_nonsingular (Figure 1 loss, two-parameter example)."""
    from theorems import gd_nonsingular as claims

    for point, curvature in ((0.0, -6.0), (math.sqrt(3.0), 12.0), (-math.sqrt(3.0), 12.0)):
        t = torch.tensor([point], dtype=DT)
        assert float(torch.func.grad(claims._figure1_separable)(t)) == pytest.approx(0.0, abs=1e-12)
        assert float(hessian_matrix(claims._figure1_separable, t)) == pytest.approx(curvature, rel=1e-12)
    fn = claims._two_param_objective()
    for t1 in (0.5, 1.0, 2.0):
        theta = torch.tensor([t1, 1 / t1], dtype=DT)
        lam = hessian_eigenvalues(fn, theta).numpy()
        r = t1**2 + t1**-2
        np.testing.assert_allclose(lam, [0.0, np.mean(np.square(claims.TWO_PARAM_X)) * r], atol=1e-12)


def test_gd_from_random_init_reaches_a_minimizer():
    p = StrictSaddle(a=[1.0, 0.5], b=[1.0, 2.0], init_scale=0.3)
    sol = solve(p, GDMap(lr=0.2), seed=11, store_trace=True)
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(np.abs(sol.x[2:]), np.sqrt([1.0, 2.0]), rtol=1e-7)
    np.testing.assert_allclose(sol.x[:2], 0.0, atol=1e-7)  # ‖∇f‖ ≤ 1e-8 with a = 0.5
    assert sol.value == pytest.approx(-(1.0 + 4.0) / 4)
    assert sol.trace[-1]["grad_norm"] <= 1e-8


def test_gd_on_stable_manifold_converges_to_saddle():
    p = StrictSaddle(a=[1.0], b=[1.0], x0=[0.7, 0.0])
    sol = solve(p, GDMap(lr=0.3))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, p.saddle(), atol=1e-8)


def test_gd_divergence_is_a_retcode():
    p = StrictSaddle(a=[1.0], b=[1.0], x0=[0.0, 10.0])
    sol = solve(p, GDMap(lr=1.0))
    assert sol.retcode is RetCode.Diverged
    assert np.all(np.isfinite(sol.x))
    assert sol.stats.iterations <= 5  # the blow-up threshold 1e8 (1 + |z0|) is crossed within a few steps


def test_gd_horizon_without_convergence_is_maxiters():
    sol = solve(StrictSaddle(a=[1.0], b=[1.0], x0=[0.5, 0.5]), GDMap(lr=0.01), maxiters=5)
    assert sol.retcode is RetCode.MaxIters and sol.stats.iterations == 5


def test_gd_float32_and_maxiters_zero():
    p = StrictSaddle(a=np.array([1.0], dtype=np.float32), b=np.array([1.0], dtype=np.float32))
    sol = solve(p, GDMap(lr=0.1), seed=0)
    assert sol.x.dtype == np.float32 and sol.retcode is RetCode.Success
    sol0 = solve(p, GDMap(lr=0.1), maxiters=0, seed=0)
    assert sol0.retcode is RetCode.MaxIters
    np.testing.assert_array_equal(sol0.x, p.start(0))


def test_mse_accepts_one_dimensional_targets_for_one_output():
    """(n,) targets of a one-output model are read as (n, 1) (a mutation survivor: no claim uses it)."""
    net = MLP(2, (3,), 1, seed=0)
    X = torch.randn(5, 2, dtype=DT)
    y = torch.randn(5, dtype=DT)
    flat, column = EmpiricalLoss(net, X, y, "mse"), EmpiricalLoss(net, X, y[:, None], "mse")
    assert flat.y.shape == (5, 1)
    torch.testing.assert_close(flat.value(), column.value())
