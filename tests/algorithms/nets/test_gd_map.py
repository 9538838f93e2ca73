"""Unit and bad-input tests for algorithms.nets.gd_map: GD/SGD maps, Jacobians, log-dets, saddles."""

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
    if isinstance(model, MLP):
        X = torch.randn(n, model.sizes[0], generator=gen, dtype=DT)
    elif isinstance(model, CNN):
        X = torch.randn(n, model.in_channels, model.length, generator=gen, dtype=DT)
    else:
        X = torch.randn(n, model.seq_len, model.dim, generator=gen, dtype=DT)
    k = model.num_outputs
    if loss == "cross_entropy":
        y = torch.randint(0, k, (n,), generator=gen)
    else:
        y = torch.randn(n, k, generator=gen, dtype=DT)
    return EmpiricalLoss(model, X, y, loss)


MODELS = [MLP(sizes=(3, 4, 2), activation="tanh"),
          CNN(in_channels=1, length=5, channels=2, kernel_size=2, num_outputs=2, activation="sigmoid"),
          SoftmaxAttention(seq_len=3, dim=2, num_outputs=2, activation="leaky_relu")]


def test_cross_entropy_and_mse_match_torch():
    model = MODELS[0]
    params = model.init(seed=1)
    ce = _loss(model, "cross_entropy")
    ref = torch.nn.functional.cross_entropy(model.apply(params, ce.X), ce.y)
    torch.testing.assert_close(ce.value(params), ref)
    mse = _loss(model, "mse")
    ref = 0.5 * torch.nn.functional.mse_loss(model.apply(params, mse.X), mse.y, reduction="sum") / mse.n
    torch.testing.assert_close(mse.value(params), ref)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
@pytest.mark.parametrize("loss", ["cross_entropy", "mse"])
def test_gd_map_matches_autograd_step(model, loss):
    L = _loss(model, loss)
    params = model.init(seed=2)
    theta, fn = L.flat_objective(params)
    leaf = theta.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(fn(leaf), leaf)
    torch.testing.assert_close(gd_map(fn, theta, 0.3), theta - 0.3 * g)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_jacobian_is_identity_minus_eta_hessian_and_matches_finite_differences(model):
    L = _loss(model, "cross_entropy")
    theta, fn = L.flat_objective(model.init(seed=3))
    eta = 0.7
    J = gd_jacobian(fn, theta, eta)
    H = hessian_matrix(fn, theta)
    torch.testing.assert_close(J, torch.eye(theta.numel(), dtype=DT) - eta * H, atol=1e-12, rtol=0)
    # central differences of the map itself, column by column (O(h^2) error)
    h = 1e-5
    for j in range(0, theta.numel(), 5):
        e = torch.zeros_like(theta)
        e[j] = h
        col = (gd_map(fn, theta + e, eta) - gd_map(fn, theta - e, eta)) / (2 * h)
        torch.testing.assert_close(col, J[:, j], atol=1e-7, rtol=0)


def test_sgd_map_uses_the_batch_loss():
    model = MODELS[0]
    L = _loss(model, "mse", n=8)
    params = model.init(seed=0)
    batch = [1, 4, 6]
    theta, fn_b = L.flat_objective(params, batch)
    sub = EmpiricalLoss(model, L.X[batch], L.y[batch], "mse")
    _, fn_sub = sub.flat_objective(params)
    torch.testing.assert_close(gd_map(fn_b, theta, 0.2), gd_map(fn_sub, theta, 0.2))
    torch.testing.assert_close(gd_jacobian(fn_b, theta, 0.2), gd_jacobian(fn_sub, theta, 0.2))


def test_exact_logabsdet_methods_agree_and_match_numpy():
    model = MODELS[1]
    theta, fn = _loss(model, "mse").flat_objective(model.init(seed=4))
    H = hessian_matrix(fn, theta).numpy()
    for eta in (0.05, 1.3, 9.0):
        s1, l1 = exact_logabsdet(fn, theta, eta, method="slogdet")
        s2, l2 = exact_logabsdet(fn, theta, eta, method="eigvalsh")
        s3, l3 = np.linalg.slogdet(np.eye(H.shape[0]) - eta * H)
        assert s1 == s2 == s3
        assert l1 == pytest.approx(l3, rel=1e-10, abs=1e-10)
        assert l2 == pytest.approx(l3, rel=1e-8, abs=1e-8)


def test_singular_step_sizes_are_reciprocal_positive_eigenvalues():
    model = MODELS[0]
    theta, fn = _loss(model).flat_objective(model.init(seed=5))
    lam = hessian_eigenvalues(fn, theta).numpy()
    steps = singular_step_sizes(fn, theta)
    expected = np.sort(1 / lam[lam > 10 * lam.size * np.finfo(float).eps * np.abs(lam).max()])
    np.testing.assert_allclose(steps, expected)
    assert steps.size <= theta.numel()
    H = hessian_matrix(fn, theta)
    for eta in steps:
        smin = torch.linalg.svdvals(torch.eye(H.shape[0], dtype=DT) - eta * H).min().item()
        assert smin <= 1e-12 * (1 + eta * np.abs(lam).max())


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
    model = MLP(sizes=(4, 8, 3), activation="tanh")
    theta, fn = _loss(model, n=12).flat_objective(model.init(seed=6))
    lam = hessian_eigenvalues(fn, theta).numpy()
    eta = 0.6 / lam.max()
    _, exact = exact_logabsdet(fn, theta, eta)
    est = gd_logabsdet_slq(fn, theta, eta, num_probes=200, lanczos_steps=20, seed=0)
    bound = math.sqrt(2 * np.sum(np.log(np.abs(1 - eta * lam)) ** 2) / 200)
    assert abs(est.estimate - exact) <= 4 * bound


@pytest.mark.parametrize("eta", [0.0, -1.0, math.inf, math.nan])
def test_bad_eta(eta):
    fn = lambda t: (t**2).sum()  # noqa: E731
    theta = torch.ones(2, dtype=DT)
    for f in (lambda: gd_map(fn, theta, eta), lambda: gd_jacobian(fn, theta, eta),
              lambda: exact_logabsdet(fn, theta, eta), lambda: gd_logabsdet_slq(fn, theta, eta)):
        with pytest.raises(ValueError, match="eta"):
            f()
    with pytest.raises(TypeError, match="eta"):
        gd_map(fn, theta, "0.1")


def test_non_finite_parameters_rejected():
    fn = lambda t: (t**2).sum()  # noqa: E731
    with pytest.raises(ValueError, match="theta"):
        gd_map(fn, torch.tensor([1.0, math.nan], dtype=DT), 0.1)
    with pytest.raises(ValueError, match="theta"):
        hessian_matrix(fn, torch.tensor([math.inf], dtype=DT))
    model = MODELS[0]
    params = model.init(seed=0)
    params["W0"][0, 0] = math.nan
    with pytest.raises(ValueError, match=r"params\['W0'\]"):
        _loss(model).flat_objective(params)


def test_empirical_loss_bad_inputs():
    model = MODELS[0]
    X = torch.zeros(4, 3, dtype=DT)
    with pytest.raises(ValueError, match="loss"):
        EmpiricalLoss(model, X, torch.zeros(4, dtype=torch.int64), loss="hinge")
    with pytest.raises(ValueError, match="y labels"):
        EmpiricalLoss(model, X, torch.tensor([0, 1, 2, 0]))
    with pytest.raises(ValueError, match="y must be"):
        EmpiricalLoss(model, X, torch.zeros(4, dtype=DT))
    with pytest.raises(ValueError, match="y must have shape"):
        EmpiricalLoss(model, X, torch.zeros(4, 3, dtype=DT), loss="mse")
    with pytest.raises(ValueError, match="X contains NaN"):
        EmpiricalLoss(model, torch.full((4, 3), math.nan, dtype=DT), torch.zeros(4, dtype=torch.int64))
    with pytest.raises(TypeError, match="model"):
        EmpiricalLoss(object(), X, torch.zeros(4, dtype=torch.int64))
    L = EmpiricalLoss(model, X, torch.zeros(4, dtype=torch.int64))
    with pytest.raises(ValueError, match="batch"):
        L.flat_objective(model.init(seed=0), batch=[0, 9])
    with pytest.raises(ValueError, match="method"):
        exact_logabsdet(lambda t: (t**2).sum(), torch.ones(2, dtype=DT), 0.1, method="lu")


def test_slq_bad_inputs():
    with pytest.raises(ValueError, match="num_probes"):
        stochastic_logabsdet(lambda V: V, 3, num_probes=0)
    with pytest.raises(ValueError, match="lanczos_steps"):
        stochastic_logabsdet(lambda V: V, 3, lanczos_steps=-1)
    with pytest.raises(ValueError, match="dim"):
        stochastic_logabsdet(lambda V: V, 0)


# ----------------------------------------------------------------------------- strict saddle + GDMap

def test_strict_saddle_derivatives():
    p = StrictSaddle(a=[1.0, 2.0], b=[0.5])
    z = np.array([0.3, -0.2, 0.9])
    h = 1e-6
    num = np.array([(p.value(z + h * e) - p.value(z - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(p.grad(z), num, atol=1e-8)
    np.testing.assert_allclose(p.hessian(np.zeros(3)), np.diag([1.0, 2.0, -0.5]))


def test_gd_from_random_init_reaches_a_minimizer():
    p = StrictSaddle(a=[1.0, 0.5], b=[1.0, 2.0], init_scale=0.3)
    sol = solve(p, GDMap(step=0.2), seed=11, store_trace=True)
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(np.abs(sol.x[2:]), np.sqrt([1.0, 2.0]), rtol=1e-7)
    np.testing.assert_allclose(sol.x[:2], 0.0, atol=1e-7)  # ‖∇f‖ ≤ 1e-8 with a = 0.5
    assert sol.value == pytest.approx(-(1.0 + 4.0) / 4)
    assert sol.trace[-1]["grad_norm"] <= 1e-8


def test_gd_on_stable_manifold_converges_to_saddle():
    p = StrictSaddle(a=[1.0], b=[1.0], x0=[0.7, 0.0])
    sol = solve(p, GDMap(step=0.3))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, p.saddle(), atol=1e-8)


def test_gd_divergence_is_a_retcode():
    p = StrictSaddle(a=[1.0], b=[1.0], x0=[0.0, 10.0])
    sol = solve(p, GDMap(step=1.0))
    assert sol.retcode is RetCode.Diverged
    assert np.all(np.isfinite(sol.x))


def test_gd_float32_and_maxiters_zero():
    p = StrictSaddle(a=np.array([1.0], dtype=np.float32), b=np.array([1.0], dtype=np.float32))
    sol = solve(p, GDMap(step=0.1), seed=0)
    assert sol.x.dtype == np.float32 and sol.retcode is RetCode.Success
    sol0 = solve(p, GDMap(step=0.1), maxiters=0, seed=0)
    assert sol0.retcode is RetCode.MaxIters
    np.testing.assert_array_equal(sol0.x, p.start(0))


def test_saddle_and_gd_bad_inputs():
    with pytest.raises(ValueError, match="a must be > 0"):
        StrictSaddle(a=[0.0], b=[1.0])
    with pytest.raises(ValueError, match="b must be > 0"):
        StrictSaddle(a=[1.0], b=[-1.0])
    with pytest.raises(ValueError, match="x0 must have 3"):
        StrictSaddle(a=[1.0], b=[1.0, 2.0], x0=[0.0])
    with pytest.raises(ValueError, match="x0 contains NaN"):
        StrictSaddle(a=[1.0], b=[1.0], x0=[0.0, math.nan])
    with pytest.raises(ValueError, match="init_scale"):
        StrictSaddle(a=[1.0], b=[1.0], init_scale=0)
    with pytest.raises(ValueError, match="step"):
        GDMap(step=0.0)
    with pytest.raises(TypeError, match="step"):
        GDMap(step="big")
