"""The paper's reconstruction distortion for mixed tables (Section 5, Reconstruction).

Per column: 1 − R² for a numeric column (the share of variance left unexplained; a constant
column counts 0 when reproduced exactly, else 1, scikit-learn's convention) and the error rate
for a categorical one; the distortion is their mean over columns, in [0, 1] for any decoder no
worse than the column means.

>>> import numpy as np
>>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
>>> distortion(X, X), distortion(X, np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0]]),
...                             categorical=np.array([False, True]))
(0.0, 0.25)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from algorithms._validation import as_array, as_float_array, refuse_text_entries

__all__ = ["column_distortion", "distortion"]


def _table(name: str, value: Any) -> np.ndarray:
    """A finite float64 table; bool columns (and object arrays of numbers, e.g. a DataFrame mixing bool
    and float columns) count as numbers, as before."""
    if value is not None and not isinstance(value, str | bytes):
        array = as_array(name, value)  # a tensor with grad, an __array__ that raises: by name
        if array.dtype == bool:
            value = array.astype(np.float64)
        elif array.dtype == object:
            refuse_text_entries(name, array, bools=True)   # "0.1" was parsed as a number by astype
            try:
                value = array.astype(np.float64)
            except Exception as exc:  # also 10**400 (OverflowError), a raising __float__
                raise TypeError(f"{name} must be numeric, got dtype object: {exc}") from None
    try:
        return as_float_array(name, value, dtype=np.float64)
    except ValueError as exc:  # NaN/inf
        raise ValueError(f"X and X_hat must be finite and in the working range: {exc}") from None


def column_distortion(X: Any, X_hat: Any, categorical: Any = None) -> np.ndarray:
    """Per-column distortion: 1 − R² (numeric) or the error rate (categorical).

    ``X`` (n, p) is the data, n >= 1, and ``X_hat`` its reconstruction of the same shape (any real dtypes,
    mixed: both are compared in float64; bool entries count as the numbers 0/1, as for a DataFrame's bool
    column); ``categorical`` one bool flag per column (0/1 ints are read as the flags;
    other values are refused by name; None: all numeric). A
    numeric column that is constant in ``X`` scores 0 when reconstructed exactly, else 1 (R² is undefined
    there), so one row (n = 1) scores each column by exact reconstruction.
    """
    # strings, complex entries (not truncated to their real part) and NaN/inf are refused by name
    X = _table("X", X)
    X_hat = _table("X_hat", X_hat)
    if X.ndim != 2 or X_hat.shape != X.shape:
        raise ValueError(f"X_hat must have the shape of X {X.shape}, got {X_hat.shape}")
    if X.shape[0] == 0:  # 1 − R² over no rows answered 0.0 (a perfect reconstruction of nothing)
        raise ValueError("X must have at least one row, got 0")
    if categorical is None:
        categorical = np.zeros(X.shape[1], dtype=bool)
    else:  # the strings "no" and the float 0.5 were cast to True by np.asarray(..., bool)
        flags = as_array("categorical", categorical)
        if not (flags.dtype.kind == "b" or (flags.dtype.kind in "iu" and np.isin(flags, (0, 1)).all())):
            raise TypeError(f"categorical must hold bool flags (one per column), got {flags.dtype} "
                            f"{flags.tolist()!r:.60}")
        categorical = flags.astype(bool)
    if categorical.shape != (X.shape[1],):
        raise ValueError(f"categorical must have one flag per column ({X.shape[1]}), got {categorical.shape}")
    sse, sst, exponent = _squared_sums(X, X_hat)
    with np.errstate(over="ignore"):  # a ratio past float64 (X ~ 1e-200 beside X_hat ~ 1e30) is inf, not 1
        ratio = np.ldexp(sse / np.where(sst > 0, sst, 1.0), exponent)
    numeric = np.where(sst > 0, ratio, (sse > 0).astype(float))
    errors = (X != X_hat).mean(axis=0)
    return np.where(categorical, errors, numeric)


def _squared_sums(X: np.ndarray, X_hat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Σ(x − x̂)² and Σ(x − x̄)² per column, each scaled by its own power of two (the errors x − x̂ to max
    |x − x̂| in [1/2, 1), the column x to max |x| there; exact), and the exponent e with sse/sst·2**e the
    unscaled ratio: one scale from max(|x|, |x̂|) squared a column of 1e-200 beside an x̂ of 1e30 to 0 and
    scored 1 for a ratio of 1e460 (inf), and columns of 1e-170 squared to 0 before that.
    Σ(x − x̄)² is corrected by (Σ(x − x̄))²/n, the rounding of x̄ (an offset of 1e10 cost 1e-6 of 1 − R²)."""
    error = X - X_hat  # entries <= 3.4e38 apart: exact or rounded once, never inf; subnormal ones exact
    shift_e = _exponents(error)
    shift_x = _exponents(X)
    scaled_error, scaled_X = np.ldexp(error, shift_e), np.ldexp(X, shift_x)
    sse = (scaled_error**2).sum(axis=0)
    dev = scaled_X - scaled_X.mean(axis=0)
    sst = np.maximum((dev**2).sum(axis=0) - dev.sum(axis=0) ** 2 / X.shape[0], 0.0)
    return sse, sst, 2 * (shift_x - shift_e)


def _exponents(M: np.ndarray) -> np.ndarray:
    """Per column, −e with max |M| = m·2**e, m in [1/2, 1) (0 for a zero column): ldexp by it scales the
    column exactly (by the exponent itself: 2**1064 for a subnormal column overflowed to inf)."""
    top = np.abs(M).max(axis=0, initial=0.0)
    return -np.frexp(np.where(top > 0, top, 1.0))[1]


def distortion(X: Any, X_hat: Any, categorical: Any = None) -> float:
    """The mean over columns of :func:`column_distortion`.

    ``X`` (n, p) with p >= 1 columns (a mean over no columns is undefined), ``X_hat`` and ``categorical``
    as in :func:`column_distortion`.
    """
    per_column = column_distortion(X, X_hat, categorical)
    if per_column.size == 0:  # an (n, 0) table answered NaN (numpy's mean of nothing) in silence
        raise ValueError("X must have at least one column (p >= 1) for a mean distortion, got 0")
    return float(per_column.mean())
