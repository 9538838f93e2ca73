import numpy as np
import pytest
import scipy.linalg
import torch

from algorithms.optimizers import Shampoo


def _root(m, p, eps):
    return np.real(scipy.linalg.fractional_matrix_power(m + eps * np.eye(len(m)), -p))


def test_first_step_is_the_kronecker_preconditioned_gradient():
    g = np.random.default_rng(0).normal(size=(5, 3))
    w = torch.nn.Parameter(torch.zeros(5, 3, dtype=torch.float64))
    opt = Shampoo([w], lr=1.0, betas=(0.0, 0.0), eps=1e-3, precondition_frequency=1)
    w.grad = torch.as_tensor(g)
    opt.step()
    expected = _root(g @ g.T, 0.25, 1e-3) @ g @ _root(g.T @ g, 0.25, 1e-3)
    np.testing.assert_allclose(-w.detach().numpy(), expected, rtol=1e-9, atol=1e-12)


def test_blocking_equals_independent_shampoo_per_tile():
    g = torch.Generator().manual_seed(1)
    w = torch.nn.Parameter(torch.zeros(6, 6, dtype=torch.float64))
    tiles = [torch.nn.Parameter(torch.zeros(3, 3, dtype=torch.float64)) for _ in range(4)]
    corners = [(0, 0), (0, 3), (3, 0), (3, 3)]
    blocked = Shampoo([w], lr=0.1, block_size=3, precondition_frequency=2)
    separate = Shampoo(tiles, lr=0.1, precondition_frequency=2)
    for _ in range(5):
        w.grad = torch.randn(6, 6, generator=g, dtype=torch.float64)
        for t, (i, j) in zip(tiles, corners, strict=True):
            t.grad = w.grad[i:i + 3, j:j + 3].clone()
        blocked.step()
        separate.step()
    for t, (i, j) in zip(tiles, corners, strict=True):
        torch.testing.assert_close(w.detach()[i:i + 3, j:j + 3], t.detach(), rtol=1e-10, atol=1e-12)


def test_ragged_blocks_are_padded_and_cut():
    w = torch.nn.Parameter(torch.zeros(5, 7))
    opt = Shampoo([w], lr=0.1, block_size=3, precondition_frequency=1)
    w.grad = torch.randn(5, 7, generator=torch.Generator().manual_seed(2))
    opt.step()
    assert w.shape == (5, 7) and torch.isfinite(w).all()
    assert opt.state[w]["left"].shape == (6, 3, 3)


def test_adam_grafting_takes_adams_norm_per_tile():
    grad = torch.randn(6, 4, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    w = torch.nn.Parameter(torch.zeros(6, 4, dtype=torch.float64))
    opt = Shampoo([w], lr=1.0, block_size=3, grafting="adam", adam_eps=1e-12)
    w.grad = grad
    opt.step()
    # Adam's first direction is sign(g): each 3 x 3 tile's norm is 3 (tiles 3 x 3 then 3 x 1 -> 2 x 2 tiles)
    update = -w.detach()
    for rows in (slice(0, 3), slice(3, 6)):
        for cols, n in ((slice(0, 3), 9), (slice(3, 4), 3)):
            assert update[rows, cols].norm().item() == pytest.approx(np.sqrt(n), rel=1e-9)


def test_roots_are_kept_between_refreshes():
    w = torch.nn.Parameter(torch.zeros(3, 3, dtype=torch.float64))
    opt = Shampoo([w], lr=0.1, precondition_frequency=3)
    g = torch.Generator().manual_seed(4)
    roots = []
    for _ in range(4):
        w.grad = torch.randn(3, 3, generator=g, dtype=torch.float64)
        opt.step()
        roots.append(opt.state[w]["left_root"].clone())
    assert torch.equal(roots[0], roots[1]) and torch.equal(roots[1], roots[2])
    assert not torch.equal(roots[2], roots[3])


def test_long_side_is_not_preconditioned():
    w = torch.nn.Parameter(torch.zeros(50, 3))
    opt = Shampoo([w], lr=0.1, max_precond_dim=10)
    w.grad = torch.ones(50, 3)
    opt.step()
    assert "left" not in opt.state[w] and "right" in opt.state[w]


def test_grafting_reuses_the_momentum_as_adams_first_moment():
    w = torch.nn.Parameter(torch.zeros(4, 3))
    opt = Shampoo([w], lr=0.1, grafting="adam")
    w.grad = torch.ones(4, 3)
    opt.step()
    assert set(opt.state[w]) == {"step", "momentum", "left", "left_root", "right", "right_root", "exp_avg_sq"}


@pytest.mark.parametrize("grafting", [None, "adam"])
def test_unpreconditioned_shampoo_is_bias_corrected_momentum_and_keeps_its_state(grafting):
    """Both sides past max_precond_dim: D = M̂ (grafted: rescaled to Adam's norm), and the momentum
    buffer (which D is a view of before the rescaling) stays the EMA of the gradients."""
    gen = torch.Generator().manual_seed(5)
    w = torch.nn.Parameter(torch.zeros(4, 3, dtype=torch.float64))
    opt = Shampoo([w], lr=0.1, betas=(0.9, 0.95), max_precond_dim=1, grafting=grafting, adam_eps=1e-12)
    m = torch.zeros(4, 3, dtype=torch.float64)
    v = torch.zeros(4, 3, dtype=torch.float64)
    for t in range(1, 4):
        before = w.detach().clone()
        g = torch.randn(4, 3, generator=gen, dtype=torch.float64)
        w.grad = g
        opt.step()
        m = 0.9 * m + 0.1 * g
        v = 0.95 * v + 0.05 * g * g
        d = m / (1 - 0.9**t)
        if grafting:
            d = d * (d / ((v / (1 - 0.95**t)).sqrt() + 1e-12)).norm() / d.norm()
        torch.testing.assert_close(opt.state[w]["momentum"], m, rtol=1e-12, atol=1e-14)
        torch.testing.assert_close(before - w.detach(), 0.1 * d, rtol=1e-10, atol=1e-13)


def test_block_size_one_is_elementwise():
    """1×1 tiles: each entry is its own Shampoo, D = m̂ / ((v̂ + ε)^¼ (v̂ + ε)^¼), here the sign at t = 1."""
    w = torch.nn.Parameter(torch.zeros(3, 2, dtype=torch.float64))
    opt = Shampoo([w], lr=1.0, block_size=1, eps=1e-30, precondition_frequency=1)
    w.grad = torch.tensor([[2.0, -3.0], [0.5, 1.0], [-1.0, 4.0]], dtype=torch.float64)
    opt.step()
    assert opt.state[w]["left"].shape == (6, 1, 1)
    torch.testing.assert_close(-w.detach(), torch.sign(w.grad), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["Shampoo", "SOAP"])
def test_root_dtype_float32_stays_near_the_float64_reference(name):
    # root_dtype=float32 changes only the refreshes' eigendecomposition (and SOAP's QR). From the same
    # state (SOAP's eigenbasis of a rank-deficient first statistic is arbitrary in its null space, so
    # two runs from step 1 would differ by that choice, not by precision), the updates agree with
    # float64 to float32's accuracy; the default stays float64, bit for bit
    import copy

    from algorithms.optimizers import SOAP

    cls = {"Shampoo": Shampoo, "SOAP": SOAP}[name]
    kwargs = dict(lr=0.01, eps=1e-3, precondition_frequency=2)
    g = torch.Generator().manual_seed(4)
    w, w64 = torch.nn.Parameter(torch.zeros(6, 4)), torch.nn.Parameter(torch.zeros(6, 4))
    opt, opt64 = cls([w], **kwargs), cls([w64], root_dtype=torch.float64, **kwargs)
    for _ in range(5):
        grad = torch.randn(6, 4, generator=g)
        for p, o in ((w, opt), (w64, opt64)):
            p.grad = grad.clone()
            o.step()
    assert torch.equal(w.detach(), w64.detach())
    w32, opt32 = copy.deepcopy((w, opt))
    opt32.param_groups[0]["root_dtype"] = torch.float32
    start = w.detach().clone()
    for _ in range(4):                      # two refreshes in float32
        grad = torch.randn(6, 4, generator=g)
        for p, o in ((w, opt), (w32, opt32)):
            p.grad = grad.clone()
            o.step()
    moved, moved32 = w.detach() - start, w32.detach() - start
    error = float((moved32 - moved).norm() / moved.norm())
    # 1e-4: float32 eigendecompositions carry ~1e-6 relative error, amplified by at most the
    # conditioning of the statistics plus eps (≤ 1e2 here); a float32 path that reordered the basis or
    # dropped the ridge would be off by O(1)
    assert 0 < error < 1e-4, error


@pytest.mark.parametrize("name", ["Shampoo", "SOAP"])
def test_state_dict_without_root_dtype_loads_with_the_built_value(name):
    # a state_dict written before root_dtype existed lacks the key: it keeps this optimizer's value
    from algorithms.optimizers import SOAP

    cls = {"Shampoo": Shampoo, "SOAP": SOAP}[name]
    w = torch.nn.Parameter(torch.ones(4, 3))
    opt = cls([w], lr=0.01)
    w.grad = torch.ones(4, 3)
    opt.step()
    old = opt.state_dict()
    for group in old["param_groups"]:
        del group["root_dtype"]
    resumed = cls([w], lr=0.01, root_dtype=torch.float32)
    resumed.load_state_dict(old)
    assert resumed.param_groups[0]["root_dtype"] is torch.float32
    resumed.step()
