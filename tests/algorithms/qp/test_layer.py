"""The torch layer: gradcheck in float64, batching, broadcasting, sparse constants, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from algorithms.qp import DQP, QPLayer, qp_layer
from theorems.strategies import make_qp_instance

torch.set_num_threads(1)
ALG = DQP(backend="daqp")


def _batch(seeds, **kw):
    insts = [make_qp_instance(s, **kw) for s in seeds]
    return insts, [
        torch.tensor(np.stack([getattr(i, k) for i in insts]), dtype=torch.float64, requires_grad=True)
        for k in ("P", "q", "G", "h", "A", "b")
    ]


def test_gradcheck_batched_all_inputs():
    _, (P, q, G, h, A, b) = _batch(range(2), n=4, n_eq=1, n_ineq=4, n_active=2)

    def f(P, q, G, h, A, b):
        return qp_layer(0.5 * (P + P.transpose(-1, -2)), q, G, h, A, b, algorithm=ALG)

    assert torch.autograd.gradcheck(f, (P, q, G, h, A, b), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_symmetrize_takes_any_square_P_and_gradchecks_on_it():
    _, (P, q, G, h, A, b) = _batch(range(2), n=4, n_eq=1, n_ineq=4, n_active=2)
    skew = 0.3 * torch.triu(torch.ones(4, 4, dtype=torch.float64), 1)  # P + skew: not symmetric
    Pn = (P.detach() + skew).requires_grad_()
    with pytest.raises(ValueError, match="P must be symmetric"):  # the default still rejects it
        qp_layer(Pn, q, G, h, A, b, algorithm=ALG)
    x = qp_layer(Pn, q, G, h, A, b, algorithm=ALG, symmetrize=True)
    torch.testing.assert_close(x, qp_layer(0.5 * (Pn + Pn.transpose(-1, -2)), q, G, h, A, b, algorithm=ALG))
    layer = QPLayer(ALG, symmetrize=True)
    assert torch.autograd.gradcheck(lambda P, q: layer(P, q, G, h, A, b), (Pn, q),
                                    eps=1e-6, atol=1e-5, rtol=1e-4)
    x.sum().backward()
    grad = Pn.grad.detach()
    # the chain rule through ½(P + Pᵀ): a symmetric gradient (the QP's own one, halved twice over)
    torch.testing.assert_close(grad, grad.transpose(-1, -2))
    with pytest.raises(TypeError, match="symmetrize must be a bool, got str 'yes'"):
        QPLayer(ALG, symmetrize="yes")
    with pytest.raises(ValueError, match=r"P must be square, got shape \(2, 4, 3\)"):
        qp_layer(Pn[..., :3], q, G, h, A, b, algorithm=ALG, symmetrize=True)


def test_forward_matches_known_solution_and_broadcasts():
    insts, (P, q, G, h, A, b) = _batch(range(3), n=5, n_eq=1, n_ineq=3, n_active=1)
    x = QPLayer(ALG)(P, q, G, h, A, b)
    np.testing.assert_allclose(x.detach().numpy(), np.stack([i.x for i in insts]), atol=1e-10)
    # an unbatched P shared by the batch: its gradient is the sum over the batch
    P0 = torch.tensor(insts[0].P, requires_grad=True)
    qb = torch.tensor(np.stack([i.q for i in insts]), requires_grad=True)
    y = qp_layer(P0, qb, G.detach(), h.detach(), A.detach(), b.detach(), algorithm=ALG)
    y.sum().backward()
    assert P0.grad.shape == (5, 5) and qb.grad.shape == (3, 5)
    assert torch.autograd.gradcheck(
        lambda P0, qb: qp_layer(0.5 * (P0 + P0.T), qb, G.detach(), h.detach(), A.detach(), b.detach(),
                                algorithm=ALG),
        (P0.detach().requires_grad_(), qb.detach().requires_grad_()), eps=1e-6, atol=1e-5)


def test_sparse_constant_matrices():
    n = 6
    y = torch.tensor(np.linspace(-1, 1, n), requires_grad=True)
    P, G = sp.identity(n, format="csc"), -sp.identity(n, format="csc")
    A = sp.csc_matrix(np.ones((1, n)))
    h, b = torch.zeros(n, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda y: qp_layer(P, -y, G, h, A, b, algorithm=DQP(backend="piqp")),
                                    (y,), eps=1e-6, atol=1e-6)


def test_float32_output_dtype():
    q = torch.tensor([1.0, -1.0], requires_grad=True)
    x = qp_layer(torch.eye(2), q)
    assert x.dtype == torch.float32
    x.sum().backward()
    assert q.grad.dtype == torch.float32


def test_errors():
    with pytest.raises(RuntimeError, match="Infeasible"):
        qp_layer(torch.eye(1), torch.zeros(1), torch.tensor([[1.0], [-1.0]]), torch.tensor([-1.0, -1.0]))
    with pytest.raises(ValueError, match="G and h must be given together"):
        qp_layer(torch.eye(2), torch.zeros(2), G=torch.eye(2))
    with pytest.raises(ValueError, match="q contains NaN"):
        qp_layer(torch.eye(2), torch.tensor([0.0, float("nan")]))
    with pytest.raises(ValueError, match="P must have 2 or 3 dimensions"):
        qp_layer(torch.ones(2), torch.zeros(2))
    with pytest.raises(ValueError, match="batch size"):
        qp_layer(torch.eye(2).repeat(2, 1, 1), torch.zeros(3, 2))
    with pytest.raises(TypeError, match="q must be a torch tensor"):
        qp_layer(torch.eye(2), np.zeros(2))
    with pytest.raises(TypeError, match="algorithm must be a DQP"):
        QPLayer(algorithm="osqp")


def test_degenerate_warns():
    G = torch.tensor([[-1.0, 0.0], [0.0, -1.0], [-1.0, -1.0]], dtype=torch.float64)
    with pytest.warns(RuntimeWarning, match="degenerate"):
        x = qp_layer(torch.eye(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64), G,
                     torch.zeros(3, dtype=torch.float64), algorithm=ALG)
    assert torch.all(torch.isfinite(x))


def test_integer_inputs_are_promoted():
    # issue #6: an integer q used to give the integer tensor([0, 0]); the answer is [0.5, 0.5]
    G, h = -torch.eye(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    x = qp_layer(2 * torch.eye(2, dtype=torch.int64), torch.tensor([-1, -1]), G, h)
    assert x.dtype == torch.float64
    np.testing.assert_allclose(x.numpy(), [0.5, 0.5], atol=1e-12)


def test_layer_validates_like_qp():
    # issue #6: a non-symmetric P was solved as Px = -q, an indefinite one gave a saddle point
    with pytest.raises(ValueError, match="P must be symmetric"):
        qp_layer(torch.tensor([[1.0, 2.0], [0.0, 1.0]]), torch.zeros(2))
    with pytest.raises(ValueError, match="P must be positive semidefinite"):
        qp_layer(torch.diag(torch.tensor([1.0, -1.0])), torch.zeros(2), -torch.eye(2), torch.ones(2))


def test_auto_backend_is_the_default_and_recorded():
    layer = QPLayer()
    assert layer.algorithm.backend == "auto"
    q = torch.tensor([1.0, -1.0], dtype=torch.float64, requires_grad=True)
    x = layer(torch.eye(2, dtype=torch.float64), q, -torch.eye(2, dtype=torch.float64),
              torch.zeros(2, dtype=torch.float64))
    np.testing.assert_allclose(x.detach().numpy(), [0.0, 1.0], atol=1e-12)


def test_gradcheck_unbatched_auto_backend():
    # the backward of the default (auto) path, against finite differences, with equalities
    _, (P, q, G, h, A, b) = _batch([7], n=5, n_eq=1, n_ineq=6, n_active=2)

    def f(P, q, G, h, A, b):
        return qp_layer(0.5 * (P + P.transpose(-1, -2)), q, G, h, A, b)

    assert torch.autograd.gradcheck(f, (P[0].detach().requires_grad_(), q[0].detach().requires_grad_(),
                                        G[0].detach().requires_grad_(), h[0].detach().requires_grad_(),
                                        A[0].detach().requires_grad_(), b[0].detach().requires_grad_()),
                                    eps=1e-6, atol=1e-5, rtol=1e-4)


def test_layer_bounds_gradcheck():
    # lb/ub as tensors (one side infinite) pass torch's gradcheck (float64, away from active-set changes)
    torch.manual_seed(0)
    n = 4
    M = torch.randn(n, n, dtype=torch.float64)
    P = (M @ M.T + torch.eye(n, dtype=torch.float64)).requires_grad_()
    q = (3 * torch.randn(n, dtype=torch.float64)).requires_grad_()
    lb = torch.tensor([-0.5, -float("inf"), -0.3, -0.4], dtype=torch.float64, requires_grad=True)
    ub = torch.tensor([0.6, 0.5, float("inf"), 0.2], dtype=torch.float64, requires_grad=True)

    def f(P, q, lb, ub):
        return qp_layer(0.5 * (P + P.T), q, lb=lb, ub=ub, algorithm=DQP(backend="daqp"))

    x = f(P, q, lb, ub)
    assert torch.all(x >= lb - 1e-12) and torch.all(x <= ub + 1e-12)
    assert torch.autograd.gradcheck(f, (P, q, lb, ub), eps=1e-6, atol=1e-5)
