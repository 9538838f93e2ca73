import numpy as np
import torch

from algorithms.optimizers import SOAP


def test_second_step_is_sign_in_the_first_steps_eigenbasis():
    """β₁ = β₂ = 0: the step is Adam's sign step on G₂ rotated into the eigenbasis of G₁'s statistics."""
    rng = np.random.default_rng(0)
    g1, g2 = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))   # full rank: distinct eigenvalues
    w = torch.nn.Parameter(torch.zeros(4, 4, dtype=torch.float64))
    opt = SOAP([w], lr=1.0, betas=(0.0, 0.0), shampoo_beta=0.5, eps=1e-14, precondition_frequency=100)
    w.grad = torch.as_tensor(g1)
    opt.step()
    before = w.detach().clone()
    w.grad = torch.as_tensor(g2)
    opt.step()
    _, ql = np.linalg.eigh(g1 @ g1.T)
    _, qr = np.linalg.eigh(g1.T @ g1)
    expected = ql @ np.sign(ql.T @ g2 @ qr) @ qr.T
    np.testing.assert_allclose((before - w.detach()).numpy(), expected, atol=1e-8)


def test_identity_basis_is_adam():
    """With both sides too long to precondition SOAP is Adam (torch.optim.Adam, same betas/eps)."""
    gen = torch.Generator().manual_seed(1)
    w = torch.nn.Parameter(torch.randn(4, 5, generator=gen, dtype=torch.float64))
    w_ref = torch.nn.Parameter(w.detach().clone())
    opt = SOAP([w], lr=0.01, betas=(0.9, 0.99), eps=1e-8, max_precond_dim=1)
    ref = torch.optim.Adam([w_ref], lr=0.01, betas=(0.9, 0.99), eps=1e-8)
    for _ in range(5):
        grad = torch.randn(4, 5, generator=gen, dtype=torch.float64)
        w.grad, w_ref.grad = grad.clone(), grad.clone()
        opt.step()
        ref.step()
    torch.testing.assert_close(w.detach(), w_ref.detach(), rtol=1e-10, atol=1e-12)


def test_refresh_keeps_an_orthonormal_basis_tracking_the_statistics():
    gen = torch.Generator().manual_seed(2)
    mix = torch.randn(6, 6, generator=gen, dtype=torch.float64)
    w = torch.nn.Parameter(torch.zeros(6, 4, dtype=torch.float64))
    opt = SOAP([w], lr=0.01, precondition_frequency=1, shampoo_beta=0.5)
    for _ in range(40):
        w.grad = mix @ torch.randn(6, 4, generator=gen, dtype=torch.float64)
        opt.step()
    q = opt.state[w]["basis_left"][0]
    torch.testing.assert_close(q.T @ q, torch.eye(6, dtype=torch.float64), atol=1e-10, rtol=0)
    rotated = q.T @ opt.state[w]["left"][0] @ q
    off = rotated - torch.diag(torch.diagonal(rotated))
    assert off.norm() < 0.2 * rotated.norm()        # nearly diagonal: the basis follows L
    diag = torch.diagonal(rotated)
    assert torch.all(diag[:-1] >= diag[1:] - 1e-9 * diag.abs().max())  # decreasing order
