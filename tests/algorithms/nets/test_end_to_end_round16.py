"""Round 16 (issue #43): SAM stepped end to end against a hand-written reference of its documented rule."""

import pytest
import torch

from algorithms.nets import SAM

_A = torch.randn(6, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
_Y = torch.randn(6, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
_W0 = torch.randn(4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))


def _loss(w, sign=1.0):
    return sign * ((torch.tanh(_A @ w) - _Y) ** 2).sum()


def _grad(w):
    w = w.detach().clone().requires_grad_(True)
    _loss(w).backward()
    return w.grad


def _reference(steps, lr, rho, momentum=0.0):
    """θ ← θ − η d, d the SGD(momentum) direction of ∇L(θ + ρ g/(‖g‖ + 1e-12))."""
    w, buf = _W0.clone(), None
    for _ in range(steps):
        g = _grad(w)
        d = _grad(w + rho * g / (g.norm() + 1e-12))
        buf = d if buf is None else momentum * buf + d
        w = w - lr * (buf if momentum else d)
    return w


def _run(steps, sign, **kwargs):
    w = torch.nn.Parameter(_W0.clone())
    opt = SAM([w], **kwargs)

    def closure():
        opt.zero_grad()
        loss = _loss(w, sign)
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
    return w.detach()


@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("steps", [1, 10])
def test_sam_maximize_is_sam_minimizing_the_negated_loss(steps, momentum):
    # the perturbation ascended L under maximize=True: 5 % off SAM on −L after one step
    expected = _reference(steps, 0.05, 0.1, momentum)
    assert torch.allclose(_run(steps, 1.0, lr=0.05, rho=0.1, momentum=momentum), expected, rtol=1e-12, atol=0)
    maximized = _run(steps, -1.0, lr=0.05, rho=0.1, momentum=momentum, maximize=True)
    assert torch.allclose(maximized, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("kwargs", [dict(rho=0.05),
                                    dict(rho=1e10, momentum=0.9, weight_decay=0.1, nesterov=True),
                                    dict(rho=0.05, base_optimizer=torch.optim.AdamW, weight_decay=0.1)])
def test_sam_lr_zero_leaves_every_weight_bitwise(kwargs, dtype):
    # −0.0 weights came back as +0.0 (θ + (−0)·d with d < 0)
    w = torch.nn.Parameter(torch.tensor([-0.0, 1.0, -2.0, 0.0], dtype=dtype))
    ints = {2: torch.int16, 4: torch.int32, 8: torch.int64}[w.element_size()]
    before = w.detach().clone().view(ints)
    opt = SAM([w], lr=0.0, **kwargs)
    coefficients = torch.tensor([-1.0, -1.0, 2.0, -3.0], dtype=torch.float64)

    def closure():
        opt.zero_grad()
        loss = (w.double() * coefficients).sum() + (w.double() ** 2).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    assert torch.equal(w.detach().view(ints), before)
