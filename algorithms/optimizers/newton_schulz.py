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

import math
from typing import Any

import numpy as np
import torch

__all__ = ["CUBIC_COEFFICIENTS", "QUINTIC_COEFFICIENTS", "newton_schulz", "singular_value_map"]

#: Keller Jordan's quintic (torch.optim.Muon's default): maximal slope at 0, not convergent to 1
QUINTIC_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
#: the classical cubic Newton–Schulz iteration (converges to 1, slowly from small σ)
CUBIC_COEFFICIENTS = (1.5, -0.5, 0.0)

_NS_DTYPES = (torch.bfloat16, torch.float32, torch.float64)


def _check_coefficients(ns_coefficients: Any) -> tuple[float, float, float]:
    if not isinstance(ns_coefficients, tuple | list) or len(ns_coefficients) != 3 or not all(
            isinstance(c, int | float) and not isinstance(c, bool) and math.isfinite(c)
            for c in ns_coefficients):
        raise ValueError(f"ns_coefficients must be three finite numbers (a, b, c), got {ns_coefficients!r}")
    return tuple(float(c) for c in ns_coefficients)


def _check_steps(ns_steps: Any) -> int:
    if isinstance(ns_steps, bool) or not isinstance(ns_steps, int) or not 0 <= ns_steps < 100:
        raise ValueError(f"ns_steps must be an int in [0, 100), got {ns_steps!r}")
    return ns_steps


def newton_schulz(matrix: torch.Tensor, ns_coefficients=QUINTIC_COEFFICIENTS, ns_steps: int = 5,
                  eps: float = 1e-7, dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """``ns_steps`` Newton–Schulz steps on ``matrix / max(‖matrix‖_F, eps)``, computed in ``dtype``.

    Returns a tensor of ``dtype`` and ``matrix``'s shape. bfloat16 is torch's choice (and
    reproduces ``torch.optim.Muon``); float64 gives the exact polynomial map.

    >>> g = torch.diag(torch.tensor([3.0, 1.0], dtype=torch.float64))
    >>> torch.linalg.svdvals(newton_schulz(g, dtype=torch.float64)).round(decimals=3).tolist()
    [1.134, 0.753]
    """
    if not isinstance(matrix, torch.Tensor) or matrix.ndim != 2:
        raise ValueError(f"matrix must be a 2-D torch.Tensor, got "
                         f"{getattr(matrix, 'shape', type(matrix).__name__)}")
    if not matrix.is_floating_point():
        raise TypeError(f"matrix must be a floating tensor, got dtype {matrix.dtype}")
    a, b, c = _check_coefficients(ns_coefficients)
    ns_steps = _check_steps(ns_steps)
    if isinstance(eps, bool) or not isinstance(eps, int | float) or not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps must be a positive finite float, got {eps!r}")
    if dtype not in _NS_DTYPES:
        raise ValueError(f"dtype must be one of {_NS_DTYPES}, got {dtype!r}")
    x = matrix.to(dtype)
    tall = matrix.size(0) > matrix.size(1)
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = torch.addmm(gram, gram, gram, beta=b, alpha=c)
        x = torch.addmm(x, gram_update, x, beta=a)
    return x.T if tall else x


def singular_value_map(sigma, ns_coefficients=QUINTIC_COEFFICIENTS, ns_steps: int = 5) -> np.ndarray:
    """The scalar map ``newton_schulz`` applies to each normalized singular value: p∘…∘p (float64).

    >>> singular_value_map([0.0, 1.0], ns_steps=1).round(4).tolist()
    [0.0, 0.701]
    """
    a, b, c = _check_coefficients(ns_coefficients)
    ns_steps = _check_steps(ns_steps)
    s = np.asarray(sigma, dtype=np.float64)
    if not np.all(np.isfinite(s)):
        raise ValueError("sigma must be finite")
    for _ in range(ns_steps):
        s = a * s + b * s**3 + c * s**5
    return s
