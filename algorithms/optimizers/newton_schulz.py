"""Newton–Schulz orthogonalization: the polynomial map Muon applies to its momentum.

For a matrix G with SVD U Σ Vᵀ, X₀ = G / max(‖G‖_F, ε) has singular values in (0, 1], and
each step X ← a X + (b XXᵀ + c (XXᵀ)²) X applies the odd quintic p(σ) = aσ + bσ³ + cσ⁵ to every
singular value while keeping U and V. With Keller Jordan's coefficients (3.4445, −4.7750, 2.0315)
five steps send every singular value not too close to 0 into roughly [0.7, 1.2]: an approximate
U Vᵀ, cheaper than an SVD.

References
----------
K. Jordan et al., *Muon: an optimizer for hidden layers in neural networks*, 2024;
``torch.optim.Muon`` (torch 2.13), whose operation order this follows step for step.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    as_real_array,
    check_entries_in_range,
    check_finite_real,
    check_positive,
    is_choice,
    refuse_sparse,
)

__all__ = ["CUBIC_COEFFICIENTS", "QUINTIC_COEFFICIENTS", "newton_schulz", "singular_value_map"]

#: Keller Jordan's quintic (torch.optim.Muon's default): maximal slope at 0, not convergent to 1
QUINTIC_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
#: the classical cubic Newton–Schulz iteration (converges to 1, slowly from small σ)
CUBIC_COEFFICIENTS = (1.5, -0.5, 0.0)

_NS_DTYPES = (torch.bfloat16, torch.float32, torch.float64)


def _check_coefficients(ns_coefficients: Any) -> tuple[float, float, float]:
    if not isinstance(ns_coefficients, tuple | list) or len(ns_coefficients) != 3 or not all(
            isinstance(c, numbers.Real) and not isinstance(c, bool | np.bool_) for c in ns_coefficients):
        raise ValueError(f"ns_coefficients must be three finite numbers (a, b, c), got {ns_coefficients!r}")
    # finite and inside the working range, as floats (a Fraction or np.float32 is a number too; 1e39 was
    # taken with ns_steps = 0)
    try:
        return tuple(check_finite_real(f"ns_coefficients[{i}]", c) for i, c in enumerate(ns_coefficients))
    except ValueError as exc:
        raise ValueError(f"ns_coefficients must be three finite numbers (a, b, c) in the working range: "
                         f"{exc}") from None


def _check_steps(ns_steps: Any) -> int:
    if isinstance(ns_steps, bool | np.bool_) or not isinstance(ns_steps, int | np.integer) \
            or not 0 <= ns_steps < 100:
        raise ValueError(f"ns_steps must be an int in [0, 100), got {ns_steps!r}")
    return int(ns_steps)    # numpy's np.int64(5) is an int too, stored as one


#: the largest |p∘…∘p(σ)| over σ in [0, 1] accepted: the iteration's products reach its fifth power
#: (1e30), still inside bfloat16's and float32's range (3.4e38)
GROWTH_MAX = 1e6


@functools.lru_cache(maxsize=64)
def _check_growth(coefficients: tuple[float, float, float], ns_steps: int) -> None:
    """Refuse coefficients whose polynomial, iterated ``ns_steps`` times, sends some normalized singular
    value in [0, 1] past ``GROWTH_MAX`` (checked on a grid of 1025 points): ``(1e30, 0, 0)`` wrote inf
    into Muon's weights and into newton_schulz's result in silence."""
    a, b, c = coefficients
    s = np.linspace(0.0, 1.0, 1025)
    with np.errstate(all="ignore"):
        for step in range(ns_steps):
            s = a * s + b * s**3 + c * s**5
            peak = float(np.max(np.abs(s)))
            if not peak <= GROWTH_MAX:
                raise ValueError(f"ns_coefficients {coefficients} send a normalized singular value in [0, 1] "
                                 f"to {peak:.3g} within {step + 1} of ns_steps = {ns_steps} steps: the "
                                 f"iteration would overflow (|p∘…∘p| must stay <= {GROWTH_MAX:g} on [0, 1])")


def newton_schulz(matrix: torch.Tensor, ns_coefficients=QUINTIC_COEFFICIENTS, ns_steps: int = 5,
                  eps: float = 1e-7, dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """``ns_steps`` Newton–Schulz steps on ``matrix / max(‖matrix‖_F, eps)``, computed in ``dtype``.

    ``ns_coefficients`` (a, b, c) are three finite floats (the quintic p(x) = ax + bx³ + cx⁵).

    Returns a tensor of ``dtype`` and ``matrix``'s shape. bfloat16 is torch's choice (and
    reproduces ``torch.optim.Muon``); float64 gives the exact polynomial map.

    ``matrix``: a dense 2-D floating tensor with finite entries of magnitude <= 3.4e38 (the package's
    working range; a 0-row or 0-column matrix gives an empty result). The result depends on the matrix's
    direction only once its norm passes ``eps``: the normalization is ``matrix / max(‖matrix‖_F, eps)`` at
    every scale (a matrix whose largest entry lies outside [1e-15, 1e15] has its norm taken at unit scale,
    so ``newton_schulz(1e38 * G)`` and ``newton_schulz(1e-30 * G)`` are G's orthogonalization for
    ``eps`` below their norms, up to ``dtype``'s rounding, neither an overflow nor an underflow; inside
    that range the arithmetic is ``torch.optim.Muon``'s, bit for bit).
    ``ns_coefficients``: three finite numbers (a, b, c). ``ns_steps``: an int in [0, 100) (0 returns the
    normalized matrix). ``eps``: a positive scale in [1.18e-38, largest ``dtype`` number] (the working
    range; float32's smallest normal number is normal in every ``dtype``, so a zero matrix maps to zero).
    ``dtype``: torch.bfloat16,
    torch.float32 or torch.float64. Coefficients whose polynomial leaves [−1, 1] far behind overflow
    ``dtype`` after a few steps: coefficients whose iterated polynomial exceeds 1e6 on [0, 1] are
    refused naming ``ns_coefficients``.

    >>> g = torch.diag(torch.tensor([3.0, 1.0], dtype=torch.float64))
    >>> torch.linalg.svdvals(newton_schulz(g, dtype=torch.float64)).round(decimals=3).tolist()
    [1.134, 0.753]
    """
    if not isinstance(matrix, torch.Tensor) or matrix.ndim != 2:
        raise ValueError(f"matrix must be a 2-D torch.Tensor, got "
                         f"{getattr(matrix, 'shape', type(matrix).__name__)}")
    if not matrix.is_floating_point():
        raise TypeError(f"matrix must be a floating tensor, got dtype {matrix.dtype}")
    refuse_sparse("matrix", matrix)     # a sparse tensor failed inside torch's isfinite
    if matrix.device.type == "meta":
        raise ValueError("matrix is on the meta device (no data); move it to a real device")
    if not bool(torch.isfinite(matrix).all()):   # NaN/inf would pass through the normalization unseen
        raise ValueError("matrix contains NaN or inf entries")
    check_entries_in_range("matrix", matrix)     # the working range: |entry| <= 3.4e38
    a, b, c = _check_coefficients(ns_coefficients)
    ns_steps = _check_steps(ns_steps)
    _check_growth((a, b, c), ns_steps)
    eps = check_positive("eps", eps)   # a positive scale: in [1.18e-38, 3.4e38] (5e-324 acted as 1.18e-38)
    if not is_choice(dtype, _NS_DTYPES):
        raise ValueError(f"dtype must be one of {_NS_DTYPES}, got {dtype!r}")
    info = torch.finfo(dtype)
    if eps > info.max:              # torch's clamp failed with "cannot be converted ... without overflow"
        raise ValueError(f"eps must be <= {info.max:.4g} (the largest {dtype} number), got {eps!r}")
    return _newton_schulz(matrix, a, b, c, ns_steps, eps, dtype)


#: the largest entries the iteration normalizes as torch.optim.Muon does, bit for bit: the Frobenius norm
#: taken in ``dtype`` (squares of entries in [1e-15, 1e15] stay inside float32's and bfloat16's range)
PRESCALE_BELOW, PRESCALE_ABOVE = 1e-15, 1e15


def _in_torch_range(top: float) -> bool:
    return top == 0.0 or PRESCALE_BELOW <= top <= PRESCALE_ABOVE


def _normalized(matrix: torch.Tensor, eps: float, dtype: torch.dtype) -> torch.Tensor:
    """``matrix / max(‖matrix‖_F, eps)`` in ``dtype`` (a fresh tensor). Inside [PRESCALE_BELOW,
    PRESCALE_ABOVE] torch's arithmetic; outside it the norm is taken at unit scale (a power of two, exact)
    and compared with ``eps`` there: the squares of 1e-30 entries underflowed to a zero norm in bfloat16
    (the matrix divided by eps = 1.2e-38 then overflowed the iteration: NaN weights), those of 1e20 entries
    overflowed it (a zero update), and dividing by the largest entry first ignored an eps above the norm."""
    top = float(matrix.detach().abs().amax()) if matrix.numel() else 0.0
    if _in_torch_range(top):
        x = matrix.to(dtype) if matrix.dtype != dtype else matrix.clone()
        return x.div_(torch.linalg.vector_norm(x).clamp(min=eps))
    exponent = math.frexp(top)[1]
    # in the wider of the two dtypes: a float32 matrix normalized in float32 carried float32's rounding
    # (3e-8) into a float64 result, which the unit-scale matrix's float64 run does not have
    wide = torch.promote_types(matrix.dtype, dtype)
    scaled = matrix.to(wide) * math.ldexp(1.0, -exponent)    # largest entry in [0.5, 1): an exact rescaling
    norm = float(torch.linalg.vector_norm(scaled))
    if math.ldexp(norm, exponent) >= eps:
        return (scaled / norm).to(dtype)
    return (matrix.to(wide) / eps).to(dtype)


def _newton_schulz(matrix: torch.Tensor, a: float, b: float, c: float, ns_steps: int, eps: float,
                   dtype: torch.dtype) -> torch.Tensor:
    """:func:`newton_schulz` without the input checks (its callers validated them once)."""
    tall = matrix.size(0) > matrix.size(1)
    x = _normalized(matrix.T if tall else matrix, eps, dtype)
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = torch.addmm(gram, gram, gram, beta=b, alpha=c)
        x = torch.addmm(x, gram_update, x, beta=a)
    return x.T if tall else x


def _newton_schulz_stack(stack: torch.Tensor, a: float, b: float, c: float, ns_steps: int, eps: float,
                         dtype: torch.dtype) -> torch.Tensor:
    """:func:`_newton_schulz` of each matrix of a stack (n, rows, cols), as batched products. The stack
    is normalized in place when it already has ``dtype`` (callers pass a fresh one); every matrix's largest
    entry is 0 or inside [PRESCALE_BELOW, PRESCALE_ABOVE] (torch's arithmetic, see :func:`_normalized`)."""
    x = stack.to(dtype)
    tall = stack.size(1) > stack.size(2)
    if tall:
        x = x.mT
    x.div_(torch.linalg.vector_norm(x, dim=(-2, -1), keepdim=True).clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.mT
        gram_update = torch.baddbmm(gram, gram, gram, beta=b, alpha=c)
        x = torch.baddbmm(x, gram_update, x, beta=a)
    return x.mT if tall else x


@functools.lru_cache(maxsize=256)
def _stack_is_exact(rows: int, cols: int, count: int, a: float, b: float, c: float, ns_steps: int,
                    eps: float, dtype: torch.dtype, source_dtype: torch.dtype,
                    device: torch.device) -> bool:
    """Whether :func:`_newton_schulz_stack` gives the same bits as :func:`_newton_schulz` one matrix at
    a time for this shape, count and precision on this machine (the batched and single products may
    take different kernels, e.g. oneDNN's bfloat16 GEMM for one and not the other). Probed once on
    seeded random matrices; when they differ the caller goes one matrix at a time."""
    g = torch.Generator().manual_seed(rows * 1009 + cols * 31 + count)
    probe = torch.randn(count, rows, cols, generator=g, dtype=torch.float64).to(source_dtype).to(device)
    batched = _newton_schulz_stack(probe.clone(), a, b, c, ns_steps, eps, dtype)
    return all(torch.equal(batched[i], _newton_schulz(probe[i], a, b, c, ns_steps, eps, dtype))
               for i in range(count))


#: matrices of more entries go one at a time: batching saves per-call overhead, which matters for small
#: matrices (the small transformer's 64-wide ones: 0.74x torch.optim.Muon's step batched), while
#: batched bfloat16 products of 256 x 256 ran slower in training on our CPU (1.06-1.10x, against
#: 1.00x one at a time; benchmarks/bench_optimizers.py, paper_notes/second_order_scaling.md)
STACK_MAX_ENTRIES = 2**15


def _newton_schulz_many(matrices: list[torch.Tensor], a: float, b: float, c: float, ns_steps: int,
                        eps: float, dtype: torch.dtype) -> list[torch.Tensor]:
    """:func:`_newton_schulz` of each of ``matrices`` (equal shapes, dtypes and devices): one batched
    iteration when they are small (``STACK_MAX_ENTRIES``) and :func:`_stack_is_exact` says it gives
    the same bits, else one at a time."""
    first = matrices[0]
    if len(matrices) == 1 or first.numel() > STACK_MAX_ENTRIES:
        return [_newton_schulz(m, a, b, c, ns_steps, eps, dtype) for m in matrices]
    tops = torch.stack(matrices).detach().abs().amax(dim=(-2, -1))
    if bool(((tops != 0) & ((tops < PRESCALE_BELOW) | (tops > PRESCALE_ABOVE))).any()):
        return [_newton_schulz(m, a, b, c, ns_steps, eps, dtype) for m in matrices]    # see _normalized
    if _stack_is_exact(first.size(0), first.size(1), len(matrices), a, b, c,
                                             ns_steps, eps, dtype, first.dtype, first.device):
        return list(_newton_schulz_stack(torch.stack(matrices), a, b, c, ns_steps, eps, dtype).unbind(0))
    return [_newton_schulz(m, a, b, c, ns_steps, eps, dtype) for m in matrices]


def singular_value_map(sigma, ns_coefficients=QUINTIC_COEFFICIENTS, ns_steps: int = 5) -> np.ndarray:
    """The scalar map ``newton_schulz`` applies to each normalized singular value: p∘…∘p (float64).

    ``ns_coefficients`` (a, b, c) are three finite floats (the quintic p(x) = ax + bx³ + cx⁵) whose
    iterated polynomial stays within 1e6 on [0, 1] (larger ones are refused); ``ns_steps`` an int in
    [0, 100).

    ``sigma``: one value or a 1-D array of normalized singular values in [0, 1] (σ/‖X‖_F); a 0-d
    input gives a 0-d array, an empty one an empty array.

    >>> singular_value_map([0.0, 1.0], ns_steps=1).round(4).tolist()
    [0.0, 0.701]
    """
    a, b, c = _check_coefficients(ns_coefficients)
    ns_steps = _check_steps(ns_steps)
    _check_growth((a, b, c), ns_steps)
    s = as_real_array("sigma", sigma)
    if s.ndim > 1:      # singular values are a vector; a matrix here is usually the matrix itself
        raise ValueError(f"sigma must be a 1-D array of singular values (or one value), got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("sigma must be finite")
    if np.any(s < 0):   # singular values (normalized) are >= 0; the odd polynomial would hide the sign
        raise ValueError(f"sigma must hold singular values >= 0, got min {float(s.min())!r}")
    # newton_schulz divides by the Frobenius norm, so a normalized singular value is at most 1 (the
    # quintic grows as s⁵ beyond it: 1.5 gave inf); 1e-12 lets an SVD's rounding of a rank-1 σ₁/‖X‖_F pass
    if np.any(s > 1 + 1e-12):
        raise ValueError(f"sigma must hold normalized singular values in [0, 1] (σ/‖X‖_F), got max "
                         f"{float(s.max())!r}")
    for _ in range(ns_steps):
        s = a * s + b * s**3 + c * s**5
    return s
