"""The learnable / unlearnable phase map of the oracle (Dohmatob, Proposition 2).

The oracle (u*, v*) reaches zero risk in the limit iff the secret token's signal beats the
largest noise energy: s > ψ(α, β) (s = √(1 − γ²) in Dohmatob's variant); beyond, its risk stays
of order γ². Here α = log(L − 1)/d is the length exponent and ψ the REM quantity of
:func:`~algorithms.attention.thermodynamics`.

References
----------
E. Dohmatob. Understanding softmax attention layers: exact mean-field analysis on a toy problem.
NeurIPS 2025, Proposition 2 and Condition 2.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import numpy as np

from algorithms._validation import (
    as_real_array,
    check_fits_memory,
    check_int_at_least,
    check_nonnegative,
    check_positive,
)
from algorithms.attention.risk import _thermodynamics

__all__ = ["learnable", "phase_map", "plot_phase_map"]

#: the largest ``size`` of :func:`plot_phase_map` (a size × size image)
MAX_PLOT_SIZE = 4096
#: the file formats the plot is written in (matplotlib's raster and vector writers)
_IMAGE_FORMATS = ("png", "pdf", "svg", "jpg", "jpeg", "eps", "ps", "tif", "tiff", "webp")


def _check_gamma(gamma) -> float:
    gamma = check_positive("gamma", gamma)
    if not gamma < 1.0:
        raise ValueError(f"gamma must be in (0, 1), got {gamma!r}")
    return gamma


def _check_alpha(alpha) -> float:
    return check_nonnegative("alpha", alpha)  # what thermodynamics requires of the length exponent


def learnable(gamma: float, alpha: float, beta: float = 1.0) -> bool:
    """True when √(1 − γ²) > ψ(α, β): the oracle is Bayes-optimal in the limit (Proposition 2(A)).

    ``gamma`` in (0, 1) (a positive scale: at least 1.18e-38), ``alpha`` >= 0 (at most 3.4e38, 1e-39
    included; α = 0 is L = 2: ψ = 0, so every γ < 1 is learnable), ``beta`` > 0 (in [1.18e-38, 3.4e38]).

    >>> learnable(0.5, 0.3), learnable(0.8, 0.3)
    (True, False)
    """
    gamma = _check_gamma(gamma)
    alpha, beta = _check_alpha(alpha), check_positive("beta", beta)
    return _learnable_exact(gamma, alpha, beta)


def _learnable_exact(gamma: float, alpha: float, beta: float) -> bool:
    """√(1 − γ²) > ψ(α, β) decided exactly on the float inputs (Fractions, squared: both sides are >= 0); the
    float comparison was off by one rounding near the boundary (1337 of 2992 such inputs wrong)."""
    g, a, b = Fraction(gamma), Fraction(alpha), Fraction(beta)
    signal_squared = 1 - g * g
    if b * b >= 2 * a:  # frozen: ψ = β_c = √(2α)
        return signal_squared > 2 * a
    return signal_squared > (a / b + b / 2) ** 2


#: the most cells phase_map computes (len(gammas)·len(alphas)): 2**26 booleans take about a second
MAX_PHASE_CELLS = 2**26


def phase_map(gammas, alphas, beta: float = 1.0) -> np.ndarray:
    """Boolean array ``[i, j] = learnable(gammas[i], alphas[j], beta)``.

    ``gammas`` (each in (0, 1), at least 1.18e-38) and ``alphas`` (each in [0, 3.4e38]) are non-empty 1-D
    sequences of finite reals (a scalar counts as a one-element sequence), with len(gammas)·len(alphas) <=
    MAX_PHASE_CELLS = 2**26; ``beta`` > 0 (in [1.18e-38, 3.4e38]).

    >>> phase_map([0.5, 0.8], [0.3]).tolist()
    [[True], [False]]
    """
    # as_real_array: a list holding a Fraction or an int past int64 (alpha = 2**64, valid) is an object
    # array that as_float_array refused as "not numeric"; each entry's range is checked below
    gammas = np.atleast_1d(as_real_array("gammas", gammas))
    alphas = np.atleast_1d(as_real_array("alphas", alphas))
    if gammas.ndim != 1 or alphas.ndim != 1 or gammas.size == 0 or alphas.size == 0:
        raise ValueError(f"gammas and alphas must be non-empty 1-d sequences, got shapes "
                         f"{gammas.shape} and {alphas.shape}")
    beta = check_positive("beta", beta)
    for name, values, check in (("gammas", gammas, _check_gamma), ("alphas", alphas, _check_alpha)):
        for i, value in enumerate(values):
            try:
                check(float(value))
            except ValueError as exc:  # the entry's own check names gamma/alpha: say which argument
                raise ValueError(f"{name}[{i}] = {float(value)!r} is out of range: {exc}") from None
    # the grid is len(gammas)·len(alphas) booleans: refused before allocating (2**40 cells raised numpy's
    # MemoryError); ψ per α and √(1 − γ²) per γ, compared as an outer product (a double loop of learnable
    # calls took minutes on a 10⁴ × 10⁴ grid)
    check_fits_memory("phase_map", "gammas", gammas.size, 1.0 * gammas.size * alphas.size)
    if gammas.size * alphas.size > MAX_PHASE_CELLS:  # 10⁵ × 10⁵ cells fit in memory and ran for minutes
        raise ValueError(f"gammas and alphas must span at most {MAX_PHASE_CELLS} = 2**26 cells "
                         f"(len(gammas)·len(alphas)), got {gammas.size}·{alphas.size} = "
                         f"{gammas.size * alphas.size}")
    # on the distinct values only, then spread: a grid of one boundary value repeated 8192 × 8192 times ran
    # the exact test per cell for half an hour
    unique_g, inverse_g = np.unique(gammas.astype(np.float64), return_inverse=True)
    unique_a, inverse_a = np.unique(alphas.astype(np.float64), return_inverse=True)
    psi = np.array([_thermodynamics(float(a), float(beta))["psi"] for a in unique_a])
    signal = np.sqrt((1.0 - unique_g) * (1.0 + unique_g))
    grid = signal[:, None] > psi[None, :]
    # cells within rounding of the boundary decided exactly, as learnable does
    with np.errstate(invalid="ignore"):
        close = np.abs(signal[:, None] - psi[None, :]) <= 1e-13 * np.maximum(signal[:, None], psi[None, :])
    for i, j in zip(*np.nonzero(close), strict=True):
        grid[i, j] = _learnable_exact(float(unique_g[i]), float(unique_a[j]), beta)
    return grid[inverse_g.reshape(-1)][:, inverse_a.reshape(-1)]


def plot_phase_map(path, *, beta: float = 1.0, size: int = 120) -> Path:
    """Write the phase map over γ ∈ (0, 1) and α ∈ (0, 1] at ``beta`` to ``path`` (a PNG).

    ``path`` is a file path (str or ``os.PathLike``), ``beta`` > 0 (a positive scale in [1.18e-38, 3.4e38])
    and ``size`` an int in [2, 4096] (a size × size grid of pixels).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     plot_phase_map(Path(tmp) / "phase.png", size=20).exists()
    True
    """
    size = check_int_at_least("size", size, 2)
    check_positive("beta", beta)
    if size > MAX_PLOT_SIZE:  # size² cells: 2**40 raised numpy's MemoryError naming no argument
        raise ValueError(f"size must be <= {MAX_PLOT_SIZE} (a size × size grid of pixels), got {size}")
    # named here, before the grid is computed: an int reached matplotlib's TypeError and a missing folder
    # its FileNotFoundError
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str or os.PathLike (a .png file), got {type(path).__name__} "
                        f"{path!r}")
    if not Path(path).parent.is_dir():
        raise ValueError(f"path must be in an existing folder, got {str(path)!r} ({str(Path(path).parent)!r} "
                         f"is not a folder)")
    # a folder was written beside as folder.png (and the folder's path returned); an extension matplotlib has
    # no writer for raised its message naming no argument
    if Path(path).is_dir():
        raise ValueError(f"path must name a file, got the folder {str(path)!r}")
    if Path(path).suffix.lower().lstrip(".") not in _IMAGE_FORMATS:
        shown = ", ".join("." + f for f in _IMAGE_FORMATS)
        raise ValueError(f"path must end in an image extension ({shown}), got {str(path)!r}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gammas = np.linspace(0.01, 0.99, size)
    alphas = np.linspace(0.01, 1.0, size)
    grid = phase_map(gammas, alphas, beta)
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    ax.imshow(grid, origin="lower", aspect="auto", cmap="RdYlGn",
              extent=(alphas[0], alphas[-1], gammas[0], gammas[-1]))
    ax.set_xlabel("α = log(L − 1)/d")
    ax.set_ylabel("γ (feature noise)")
    ax.set_title(f"oracle learnable (green), β = {beta:g}")
    path = Path(path)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
