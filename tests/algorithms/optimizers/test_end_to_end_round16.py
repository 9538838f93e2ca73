"""Round 16 (issue #43): the family's optimizers stepped end to end against references of their documented
update rules and exact invariants (lr = 0 bitwise, state_dict reload bit for bit)."""

import copy

import numpy as np
import pytest
import torch

from algorithms.optimizers import SOAP, Muon, Shampoo

_CLASSES = {"Muon": Muon, "Shampoo": Shampoo, "SOAP": SOAP}
_CONFIGS = [("Muon", {}), ("Muon", dict(weight_decay=0.5, nesterov=False, maximize=True)),
            ("Muon", dict(head="muon", ns_dtype=torch.float64)), ("Shampoo", {}),
            ("Shampoo", dict(weight_decay=0.5, grafting="adam", block_size=2, precondition_frequency=1)),
            ("SOAP", {}), ("SOAP", dict(weight_decay=0.5, block_size=2, precondition_frequency=1))]


def _bits(t):
    return t.detach().view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _params(dtype):
    g = torch.Generator().manual_seed(0)
    w = torch.nn.Parameter(torch.randn(5, 4, generator=g, dtype=torch.float64).to(dtype))
    b = torch.nn.Parameter(torch.randn(5, generator=g, dtype=torch.float64).to(dtype))
    head = torch.nn.Parameter(torch.randn(3, 5, generator=g, dtype=torch.float64).to(dtype))
    with torch.no_grad():
        w[0, 0] = -0.0
        b[1] = -0.0
        head[0, 0] = -0.0
    return [w, b, head]


def _set_grads(params, k, dtype):
    g = torch.Generator().manual_seed(100 + k)
    for p in params:
        p.grad = torch.randn(p.shape, generator=g, dtype=torch.float64).to(dtype)
        p.grad.view(-1)[0] = -1.0   # the −0.0 entries' step direction is negative: −0 · (−1) = +0


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
@pytest.mark.parametrize(("name", "config"), _CONFIGS)
def test_lr_zero_leaves_every_weight_bitwise(name, config, dtype):
    # W + (−0)·D turned the −0.0 weights into +0.0
    params = _params(dtype)
    before = [_bits(p).clone() for p in params]
    opt = _CLASSES[name](params, lr=0.0, **config)
    for k in range(3):
        _set_grads(params, k, dtype)
        opt.step()
    assert all(torch.equal(_bits(p), b) for p, b in zip(params, before, strict=True))
    assert opt.state      # the state still moves, as torch's


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize(("name", "config"), _CONFIGS)
def test_state_dict_mid_run_continues_bit_for_bit(name, config, dtype):
    params = _params(dtype)
    opt = _CLASSES[name](params, lr=1e-2, **config)
    for k in range(3):
        _set_grads(params, k, dtype)
        opt.step()
    copies = [torch.nn.Parameter(p.detach().clone()) for p in params]
    fresh = _CLASSES[name](copies, lr=1e-2, **config)
    fresh.load_state_dict(copy.deepcopy(opt.state_dict()))
    for k in range(3, 8):
        for ps, o in ((params, opt), (copies, fresh)):
            _set_grads(ps, k, dtype)
            o.step()
    assert all(torch.equal(_bits(p), _bits(q)) for p, q in zip(params, copies, strict=True))


def _muon_reference(w0, grads, lr, wd=0.1, mu=0.95, coefficients=(3.4445, -4.7750, 2.0315), eps=1e-7):
    """The module docstring's rule with the exact polynomial map (SVD), nesterov, adjust_lr_fn original."""
    w, buf = w0.copy(), np.zeros_like(w0)
    a, b, c = coefficients
    for g in grads:
        buf = mu * buf + (1 - mu) * g
        d = (1 - mu) * g + mu * buf
        u, s, vt = np.linalg.svd(d / max(np.linalg.norm(d), eps), full_matrices=False)
        for _ in range(5):
            s = a * s + b * s**3 + c * s**5
        w = (1 - lr * wd) * w - lr * np.sqrt(max(1.0, d.shape[0] / d.shape[1])) * (u * s) @ vt
    return w


@pytest.mark.parametrize("scale", [1e-30, 1.0, 1e30])
@pytest.mark.parametrize("steps", [1, 10])
def test_muon_matches_its_documented_rule(steps, scale):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((6, 4))
    grads = [scale * rng.standard_normal((6, 4)) for _ in range(steps)]
    w = torch.nn.Parameter(torch.tensor(w0))
    opt = Muon([w], lr=0.02, head="muon", ns_dtype=torch.float64)
    for g in grads:
        w.grad = torch.tensor(g)
        opt.step()
    expected = _muon_reference(w0, grads, 0.02)
    assert np.linalg.norm(w.detach().numpy() - expected) <= 1e-12 * np.linalg.norm(expected)


@pytest.mark.parametrize("eps", [1.2e-38, 1e-8])
@pytest.mark.parametrize("scale", [1e-30, 1.0, 1e30])
@pytest.mark.parametrize("block_size", [None, 2])
def test_soap_first_step_is_its_closed_form(scale, eps, block_size):
    # at t = 1 the rotated gradient is diag(σ) (Q_L, Q_R: G's singular vectors), so the step is
    # lr · U diag(σ/(σ + ε)) Vᵀ per tile; the rotation's rounding off the diagonal was divided by ε or the
    # floor (1e-7 off at scale 1, 1e-2 off at 1e30)
    rng = np.random.default_rng(1)
    w0, g = rng.standard_normal((4, 4)), scale * rng.standard_normal((4, 4))
    w = torch.nn.Parameter(torch.tensor(w0))
    opt = SOAP([w], lr=0.01, eps=eps, block_size=block_size)
    w.grad = torch.tensor(g)
    opt.step()
    expected = w0.copy()
    side = 4 if block_size is None else block_size
    for i in range(0, 4, side):
        for j in range(0, 4, side):
            u, s, vt = np.linalg.svd(g[i:i + side, j:j + side])
            expected[i:i + side, j:j + side] -= 0.01 * (u * (s / (s + eps))) @ vt
    step = w.detach().numpy() - w0
    assert np.linalg.norm(step - (expected - w0)) <= 1e-12 * np.linalg.norm(expected - w0)


@pytest.mark.parametrize("expansion", ["sgd", "sign"])
def test_block_expansion_under_maximize_is_expansion_on_the_negated_loss(expansion):
    # the inactive blocks descended L (W − β g) while the active block ascended it
    from algorithms.optimizers import BlockOptimizer

    x = torch.randn(6, 3, generator=torch.Generator().manual_seed(1))
    out = []
    for sign, maximize in ((1.0, True), (-1.0, False)):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        opt = BlockOptimizer(model, base=torch.optim.SGD, lr=0.05, switch_every=2, expansion=expansion,
                             maximize=maximize)
        for _ in range(4):
            opt.zero_grad()
            (sign * -model(x).pow(2).mean()).backward()
            opt.step()
        out.append(torch.cat([p.detach().flatten() for p in model.parameters()]))
    assert torch.equal(*out)
