"""Round 14: valid inputs at their domains' extremes, answered right (mpmath / torch references)."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
import torch

from algorithms.optimizers import Muon, newton_schulz
from algorithms.optimizers.newton_schulz import QUINTIC_COEFFICIENTS


def _reference(matrix: torch.Tensor, steps: int, eps: float) -> np.ndarray:
    """ns_steps quintic steps on matrix / max(‖matrix‖_F, eps), at 50 digits."""
    mpmath.mp.dps = 50
    A = mpmath.matrix([[mpmath.mpf(float(v)) for v in row] for row in matrix.tolist()])
    norm = mpmath.sqrt(mpmath.fsum(A[i, j] ** 2 for i in range(A.rows) for j in range(A.cols)))
    X = A / max(norm, mpmath.mpf(eps))
    tall = A.rows > A.cols
    X = X.T if tall else X
    a, b, c = (mpmath.mpf(v) for v in QUINTIC_COEFFICIENTS)
    for _ in range(steps):
        G = X * X.T
        X = a * X + (b * G + c * G * G) * X
    X = X.T if tall else X
    return np.array([[float(X[i, j]) for j in range(X.cols)] for i in range(X.rows)])


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
@pytest.mark.parametrize("eps", [1e-7, 1.2e-38, 1.0, 1e38])
@pytest.mark.parametrize("scale", [1.0, 1e-30, 1e-20, 1.2e-33, 1e20, 1e38])
def test_newton_schulz_normalizes_by_max_norm_eps_at_every_scale(scale, eps, shape):
    # squares of 1e-30 entries underflowed the bfloat16/float32 norm (divided by eps = 1.2e-38 the matrix
    # overflowed the iteration: NaN), and entries past 1e15 were divided by their largest entry, which
    # ignored an eps above the norm (eps = 1e38, entries 1e20: G's orthogonalization instead of ~0)
    g = torch.Generator().manual_seed(0)
    M = torch.randn(*shape, generator=g, dtype=torch.float64) * scale
    want = _reference(M, 5, eps)
    top = np.abs(want).max()
    got = newton_schulz(M, ns_steps=5, eps=eps, dtype=torch.float64).numpy()
    assert np.abs(got - want).max() <= 1e-12 * top + 1e-300
    got32 = newton_schulz(M.float(), ns_steps=5, eps=eps, dtype=torch.float32).double().numpy()
    assert np.isfinite(got32).all()
    assert np.abs(got32 - want).max() <= 1e-5 * top + 1e-44     # float32 rounding (tiny answers flush to 0)
    got16 = newton_schulz(M.float(), ns_steps=5, eps=eps, dtype=torch.bfloat16).double().numpy()
    assert np.isfinite(got16).all()
    assert np.abs(got16 - want).max() <= 0.1 * top + 1e-38      # bfloat16's 8 bits through five steps


@pytest.mark.parametrize("scale", [1e-30, 1e-20])
def test_muon_tiny_gradients_with_tiny_eps_give_finite_orthogonal_steps(scale):
    # eps = 1.2e-38 (its documented smallest) and gradients of 1e-30: the update was NaN, written into the
    # weights although the class promises no setting writes NaN (torch.optim.Muon does the same)
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(5, 3, dtype=torch.float64))
    start = w.detach().clone()
    opt = Muon([w], lr=0.1, weight_decay=0.0, eps=1.2e-38, head="muon", ns_dtype=torch.float64)
    w.grad = torch.randn(5, 3, dtype=torch.float64) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    assert torch.isfinite(w).all()
    step = (w.detach() - start).numpy()
    want = -0.1 * np.sqrt(max(1.0, 5 / 3)) * _reference(w.grad * (1 - 0.95) * (1 + 0.95), 5, 1.2e-38)
    # nesterov: g.lerp(buf, mu) with buf = (1 - mu) g: the direction is g (1 - mu + mu (1 - mu)), a scale
    np.testing.assert_allclose(step, want, rtol=1e-10, atol=1e-14)


def test_muon_matches_torch_bit_for_bit_inside_the_torch_range():
    # the rescaled normalization runs only outside [1e-15, 1e15]: ordinary steps stay torch's, bit for bit
    torch.manual_seed(0)
    w1 = torch.nn.Parameter(torch.randn(6, 4))
    w2 = torch.nn.Parameter(w1.detach().clone())
    ours = Muon([w1], lr=0.02, head="muon")
    theirs = torch.optim.Muon([w2], lr=0.02)
    g = torch.Generator().manual_seed(1)
    for _ in range(3):
        grad = torch.randn(6, 4, generator=g) * 1e-12
        w1.grad, w2.grad = grad.clone(), grad.clone()
        ours.step()
        theirs.step()
    assert torch.equal(w1, w2)


@pytest.mark.parametrize("adjust_lr_fn", [None, "original", "match_rms_adamw"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_muon_adjusted_lr_matches_torch_bit_for_bit(adjust_lr_fn, dtype):
    # lr · 0.2 · √max(A, B) was rounded in another order than torch's lr · (0.2 · √max(A, B)): 1 ulp
    torch.manual_seed(0)
    w1 = torch.nn.Parameter(torch.randn(5, 3, dtype=dtype))
    w2 = torch.nn.Parameter(w1.detach().clone())
    ours = Muon([w1], lr=0.1, head="muon", adjust_lr_fn=adjust_lr_fn)
    theirs = torch.optim.Muon([w2], lr=0.1, adjust_lr_fn=adjust_lr_fn)
    g = torch.Generator().manual_seed(1)
    for _ in range(3):
        grad = torch.randn(5, 3, generator=g, dtype=dtype)
        w1.grad, w2.grad = grad.clone(), grad.clone()
        ours.step()
        theirs.step()
    assert torch.equal(w1, w2)


@pytest.mark.parametrize("decay, width, base_width", [(1e-3, 512, 128), (0.1, 2**53 + 1, 2**53),
                                                      (1.2e-38, 2**63 - 1, 1), (3.4e38, 1, 2**63 - 1),
                                                      (1e-39, 3, 7), (0.3, 3, 1)])
def test_independent_weight_decay_is_correctly_rounded(decay, width, base_width):
    # λ₀·w₀/w was rounded twice (and w₀ past 2**53 once more): 0.1·(2**53)/(2**53 + 1) came out 0.1
    from fractions import Fraction

    from algorithms.optimizers import independent_weight_decay

    assert independent_weight_decay(decay, width, base_width) == float(Fraction(decay) * base_width / width)
