"""Input checks shared by every constructor: each error names the argument and what was wrong."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import math
import numbers
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

FLOAT_DTYPES = (np.float32, np.float64)

#: held while a constructor seeds torch's global generator to draw initial weights and then restores it:
#: two threads building seeded models at once interleaved their draws (a solve on another thread got other
#: weights than the serial one)
GLOBAL_RNG_LOCK = threading.RLock()

#: the largest iteration cap a compiled backend takes (a C int: HiGHS, ARPACK, OSQP, SCS, Clarabel)
C_INT_MAX = 2**31 - 1


def _refuse_masked(name: str, value: Any) -> None:
    """numpy.asarray drops a MaskedArray's mask, so its masked entries would count as data: refused."""
    if isinstance(value, np.ma.MaskedArray) and np.ma.is_masked(value):
        raise ValueError(f"{name} has {int(np.ma.count_masked(value))} masked entries; pass a plain array "
                         f"(fill or drop the masked entries first)")


def refuse_bools_in_sequence(name: str, value: Any) -> None:
    """A list/tuple holding a bool among numbers ([True, 0.5]): numpy makes it a float array and True a 1."""
    if not isinstance(value, list | tuple):
        return
    stack = [value]
    while stack:
        for item in stack.pop():
            if isinstance(item, bool | np.bool_):
                raise TypeError(f"{name} must hold numbers, got the bool {item!r} among its entries")
            if isinstance(item, list | tuple):
                stack.append(item)


def _tensor_to_numpy(name: str, tensor: Any) -> np.ndarray:
    """A tensor's data as numpy; a bfloat16 tensor, which numpy has no type for (torch's "Got unsupported
    ScalarType BFloat16" named nothing), is a TypeError naming ``name``."""
    if str(tensor.dtype) == "torch.bfloat16":
        raise TypeError(f"{name} is a torch.bfloat16 tensor, which numpy cannot hold; convert it first "
                        f"(.float() or .double())")
    return tensor.detach().cpu().numpy()


def as_float_array(name: str, value: Any, *, ndim: int | None = None, dtype=None,
                   check_range: bool = True) -> np.ndarray:
    """``value`` as a finite float ndarray (float64 unless ``value`` is float32), its entries inside the
    working range (``check_range=False`` for a value computed during a run, such as a user callable's
    answer: a diverging run's gradient may grow past it, and the run reports ``Diverged``).

    >>> as_float_array("q", [1, 2]).dtype
    dtype('float64')
    >>> as_float_array("q", [1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: q contains NaN or inf entries
    """
    if value is None:
        raise TypeError(f"{name} is required, got None")
    if hasattr(value, "detach") and type(value).__module__.startswith("torch"):
        # a tensor's data (one with requires_grad: numpy's "Can't call numpy() on Tensor that requires grad")
        if value.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        refuse_sparse(name, value)  # torch's "can't convert Sparse layout tensor to numpy" named nothing
        value = _tensor_to_numpy(name, value)
    _refuse_masked(name, value)
    refuse_bools_in_sequence(name, value)
    try:
        array = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be array-like: {exc}") from exc
    if array.dtype == object and array.size and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in array.flat):
        array = as_float64(name, array)   # Fractions, ints past int64 (as_real_array takes them too)
    if array.dtype == object or not np.issubdtype(array.dtype, np.number):
        raise TypeError(f"{name} must be numeric, got dtype {array.dtype}")
    if np.iscomplexobj(array):
        raise TypeError(f"{name} must be real, got complex entries")
    if dtype is None:
        dtype = np.float32 if array.dtype == np.float32 else np.float64
    array = array.astype(dtype, copy=False)
    if isinstance(value, np.ndarray) and np.may_share_memory(array, value):
        # a copy: what was validated is what is kept (a frozen problem aliasing the caller's q answered
        # for q[:] = 5 written after construction, and a NaN written later would bypass every check)
        array = array.copy()
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or inf entries")
    if check_range:
        check_entries_in_range(name, array)
    return array


def as_array(name: str, value: Any) -> np.ndarray:
    """``np.asarray(value)`` for a data argument, with what numpy and torch raise inside refused by name
    first: a torch tensor is detached and copied to the CPU (a tensor with grad met "Can't call numpy() on
    Tensor that requires grad"), a meta tensor (no data) is refused, and an object whose ``__array__``
    raises, or a ragged list, is a TypeError naming ``name``. The dtype is left to the caller.

    >>> as_array("X", [[1, 2], [3]])
    Traceback (most recent call last):
    ...
    TypeError: X must be array-like: ValueError: setting an array element with a sequence. The ...
    """
    if hasattr(value, "detach") and type(value).__module__.startswith("torch"):
        if value.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        refuse_sparse(name, value)  # torch's "can't convert Sparse layout tensor to numpy" named nothing
        value = _tensor_to_numpy(name, value)
    _refuse_masked(name, value)   # np.asarray drops the mask: its masked entries were read as data
    try:
        return np.asarray(value)
    except Exception as exc:  # a ragged list, an __array__ that raises
        raise TypeError(f"{name} must be array-like: {type(exc).__name__}: {exc}") from None


def refuse_text_entries(name: str, array: np.ndarray, *, bools: bool = False) -> None:
    """Refuse, naming ``name``, an object array holding a str or bytes entry (``astype(np.float64)`` parses
    ``"0.1"`` as the number 0.1: a QP took ``lb = np.array(["-5", "-5"], dtype=object)`` as bounds) or, unless
    ``bools``, a bool (counted as 0/1)."""
    if not isinstance(array, np.ndarray) or array.dtype != object:
        return
    for entry in array.flat:
        if isinstance(entry, str | bytes | np.str_ | np.bytes_):
            raise TypeError(f"{name} must hold numbers, got the string {entry!r:.40} among its entries")
        if not bools and isinstance(entry, bool | np.bool_):
            raise TypeError(f"{name} must hold numbers, got the bool {entry!r} among its entries")


def as_float64(name: str, array: np.ndarray) -> np.ndarray:
    """An object or numeric ndarray as float64, or a TypeError naming ``name``: an object array holding an
    int past float's range (OverflowError), a str or a bool (:func:`refuse_text_entries`), or an object
    whose ``__float__`` raises."""
    refuse_text_entries(name, array)
    try:
        return array.astype(np.float64)
    except Exception as exc:
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}: {type(exc).__name__}: "
                        f"{exc}") from None


def as_real_array(name: str, value: Any, *, check_range: bool = True) -> np.ndarray:
    """``value`` as a float64 ndarray of real numbers (inf/NaN allowed: the caller decides; finite entries
    inside the working range unless ``check_range=False``, for a value computed during a run); strings,
    bools and complex entries refused by name (``np.asarray(value, dtype=float)`` would parse the first,
    count True as 1 and drop the imaginary part of the last).

    >>> as_real_array("x", np.array([True, False]))
    Traceback (most recent call last):
    ...
    TypeError: x must be numeric, got a bool array (dtype bool); pass numbers (.astype(float) if 0/1 is meant)
    """
    if value is None:
        raise TypeError(f"{name} is required, got None")
    if hasattr(value, "detach"):
        # a meta tensor: torch's "Cannot copy out of meta tensor" named nothing
        if getattr(getattr(value, "device", None), "type", None) == "meta":
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        if hasattr(value, "layout"):
            refuse_sparse(name, value)  # torch's "can't convert Sparse layout tensor to numpy" named nothing
        value = _tensor_to_numpy(name, value)
    _refuse_masked(name, value)
    refuse_bools_in_sequence(name, value)
    try:
        array = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be array-like: {exc}") from exc
    if array.dtype == object:
        refuse_text_entries(name, array)   # "0.1" was parsed as a number, True counted as 1
        try:
            array = array.astype(np.float64)
        except Exception as exc:  # also an int past float's range (OverflowError), a raising __float__
            raise TypeError(f"{name} must be numeric, got dtype object: {type(exc).__name__}: "
                            f"{exc}") from None
    if np.iscomplexobj(array):
        raise TypeError(f"{name} must be real, got complex entries")
    if array.dtype.kind == "b":  # True/False given as numbers: refused like as_float_array does
        raise TypeError(f"{name} must be numeric, got a bool array (dtype bool); pass numbers "
                        f"(.astype(float) if 0/1 is meant)")
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if check_range:
        check_entries_in_range(name, array)   # inf stays the caller's to allow (a bound), 1e300 is not
    return array


def as_float_matrix(name: str, value: Any, *, dtype=None, allow_sparse: bool = True):
    """A finite 2-D float matrix, dense ndarray or (if allowed) scipy CSC matrix."""
    if sp.issparse(value):
        if not allow_sparse:
            raise TypeError(f"{name} must be dense")
        matrix = sp.csc_matrix(value, dtype=dtype or np.float64)
        if not np.all(np.isfinite(matrix.data)):
            raise ValueError(f"{name} contains NaN or inf entries")
        return matrix
    return as_float_array(name, value, ndim=2, dtype=dtype)


def check_shape(name: str, array, shape: tuple[int | None, ...]) -> None:
    """Raise if ``array.shape`` differs from ``shape`` (``None`` matches any size)."""
    ok = len(array.shape) == len(shape) and all(
        want is None or want == got for want, got in zip(shape, array.shape)
    )
    if not ok:
        expected = str(tuple("*" if s is None else s for s in shape)).replace("'*'", "*")
        raise ValueError(f"{name} must have shape {expected}, got {tuple(array.shape)}")


def _refuse_non_finite_matrix(name: str, matrix) -> None:
    """A ValueError naming ``name`` when a dense or sparse matrix has a NaN or infinite entry (a NaN
    compares False, so a symmetry or eigenvalue test alone would pass it)."""
    values = matrix.data if sp.issparse(matrix) else np.asarray(matrix)
    if values.dtype.kind in "fc" and not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must have finite entries (it has a NaN or an infinite one)")


def _line_scales(matrix) -> np.ndarray:
    """Per index i, the largest |M_ik| and |M_ki| over k (row i and column i of a dense or sparse matrix)."""
    if sp.issparse(matrix):
        a = abs(sp.csr_array(matrix))
        rows = np.asarray(a.max(axis=1).todense()).ravel()
        cols = np.asarray(a.max(axis=0).todense()).ravel()
    else:
        a = np.abs(np.asarray(matrix))
        rows, cols = a.max(axis=1, initial=0), a.max(axis=0, initial=0)
    return np.maximum(rows, cols).astype(np.float64)


def check_square_symmetric(name: str, matrix, *, rtol: float = 1e-8, symbol: str | None = None) -> None:
    """Raise unless ``matrix`` is square and symmetric to relative tolerance ``rtol``, pair by pair:
    |M_ij − M_ji| <= rtol · max(|M_ij|, |M_ji|, √|M_ii M_jj|) (the entries themselves, or the diagonal's
    Cauchy–Schwarz bound, within which a computed Gram matrix's rounding lies). Relative to the pair, not to
    max |M|: one entry of 1e20 let an asymmetry of 999 elsewhere pass (a GraphCut with f({0}) = 1 and
    f({1}) = 1000 for the same edge); purely relative (a floor of 1 took 1e-12 · any asymmetric matrix as
    symmetric). ``symbol`` names the matrix in the message (``name`` by default)."""
    rows, cols = matrix.shape
    if rows != cols:
        raise ValueError(f"{name} must be square, got shape {matrix.shape}")
    _refuse_non_finite_matrix(name, matrix)
    diagonal = np.abs(np.asarray(matrix.diagonal(), dtype=np.float64))
    with np.errstate(over="ignore"):
        if sp.issparse(matrix):
            csr = sp.csr_array(matrix, dtype=np.float64)
            asym = sp.coo_array(csr - csr.T)
            i, j = asym.row.astype(np.int64), asym.col.astype(np.int64)
            diffs = np.abs(asym.data)
            if i.size:  # csr_array's [i, j] reads those entries as a 1-D array
                pair = np.maximum(np.abs(np.asarray(csr[i, j]).ravel()),
                                  np.abs(np.asarray(csr[j, i]).ravel()))
            else:
                pair = np.zeros(0)
            cauchy = np.sqrt(diagonal[i]) * np.sqrt(diagonal[j])
        else:
            dense = np.asarray(matrix, dtype=np.float64)
            diffs = np.abs(dense - dense.T)
            pair = np.maximum(np.abs(dense), np.abs(dense.T))
            root = np.sqrt(diagonal)
            cauchy = root[:, None] * root[None, :]
        bad = ~(diffs <= rtol * np.maximum(pair, cauchy))   # written so that a NaN refuses
    if np.any(bad):
        worst = float(np.max(np.where(bad, diffs, 0.0)))
        m = symbol or name
        raise ValueError(f"{name} must be symmetric (max |{m} - {m}ᵀ| = {worst:.3g})")


def min_eigenvalue(matrix) -> float:
    """Smallest eigenvalue of a symmetric dense or sparse matrix."""
    if sp.issparse(matrix):
        n = matrix.shape[0]
        if n <= 500:
            return float(np.linalg.eigvalsh(matrix.toarray())[0])
        from scipy.sparse.linalg import eigsh

        return float(eigsh(matrix.astype(np.float64), k=1, which="SA", return_eigenvectors=False)[0])
    return float(np.linalg.eigvalsh(np.asarray(matrix, dtype=np.float64))[0])


def check_psd(name: str, matrix, *, rtol: float = 1e-10) -> float:
    """Raise unless symmetric ``matrix`` is positive semidefinite, λ_min >= −rtol · max |M| (relative: a
    floor of 1 took 1e-12 · diag(1, −1) as PSD), no diagonal entry below −rtol times the largest entry of its
    row and column (:func:`negative_diagonal`), and its rows of positive diagonal scaled to a unit diagonal
    too (:func:`graded_psd_violation`); return its smallest eigenvalue."""
    _refuse_non_finite_matrix(name, matrix)
    lam_min = min_eigenvalue(matrix)
    scale = abs(matrix).max() if sp.issparse(matrix) else np.max(np.abs(matrix), initial=0.0)
    if not lam_min >= -rtol * scale:   # written so that a NaN refuses
        raise ValueError(
            f"{name} must be positive semidefinite (smallest eigenvalue {lam_min:.3g})"
        )
    negative = negative_diagonal(matrix, rtol)
    if negative is not None:
        i, value, scale = negative
        raise ValueError(f"{name} must be positive semidefinite (its diagonal entry {name}[{i}, {i}] = "
                         f"{value:.3g} bounds its smallest eigenvalue, and is below −rtol·{scale:.3g}, the "
                         f"largest entry of its row and column: not rounding)")
    graded = graded_psd_violation(matrix, rtol)
    if graded is not None:
        raise ValueError(f"{name} must be positive semidefinite (smallest eigenvalue {graded:.3g} once "
                         f"scaled to a unit diagonal, D·{name}·D with D = diag({name})^(-1/2))")
    return lam_min


def negative_diagonal(matrix, rtol: float) -> tuple[int, float, float] | None:
    """(i, M_ii, its line's scale) for the most negative diagonal entry below −rtol times the largest |entry|
    of its row and column, else None. λ_min <= M_ii, and the rounding of a PSD matrix's diagonal (sums of
    squares, or given entries) keeps its sign: against max |M| alone diag(1e20, −1) passed as PSD (the graded
    test scales the positive diagonal only), and LogDet's value of {1} was 0.0 for log det [−1]."""
    diagonal = np.asarray(matrix.diagonal(), dtype=np.float64)
    if not diagonal.size or diagonal.min() >= 0:
        return None
    scales = _line_scales(matrix)
    below = diagonal < -rtol * scales
    if not below.any():
        return None
    i = int(np.flatnonzero(below)[np.argmin(diagonal[below] / scales[below])])
    return i, float(diagonal[i]), float(scales[i])


def graded_psd_violation(matrix, rtol: float) -> float | None:
    """λ_min of D·M·D (D = diag(M)^(-1/2) over the indices whose diagonal entry exceeds ``rtol`` times its
    row's largest entry) when it is below −rtol·(their count), else None. A congruence keeps the signs of the
    eigenvalues (Sylvester) and brings a graded matrix to unit scale: against max |M| alone, one entry of 1e20
    hid an eigenvalue of −999 elsewhere (diag(1e20, [[1, 1000], [1000, 1]]) passed as PSD)."""
    diagonal = np.asarray(matrix.diagonal(), dtype=np.float64)
    keep = diagonal > rtol * _line_scales(matrix)
    count = int(np.count_nonzero(keep))
    if count < 2:
        return None
    d = 1.0 / np.sqrt(diagonal[keep])
    if sp.issparse(matrix):
        block = sp.csr_array(matrix, dtype=np.float64)[keep][:, keep]
        scaled = sp.diags_array(d) @ block @ sp.diags_array(d)
    else:
        block = np.asarray(matrix, dtype=np.float64)[np.ix_(keep, keep)]
        scaled = block * d[:, None] * d[None, :]
        try:  # a Cholesky factor of S + εI exists iff λ_min(S) > −ε: cheaper than eigvalsh (called per C(x))
            np.linalg.cholesky(scaled + (rtol * count) * np.eye(count))
            return None
        except np.linalg.LinAlgError:
            pass
    lam = min_eigenvalue(scaled)
    return None if lam >= -rtol * count else lam


#: float64's smallest positive (subnormal) number: a nonzero real below it stays nonzero as a float
_SMALLEST = 5e-324


def to_float(value: Any) -> float:
    """``float(value)`` for a real scalar, an int past float's range (10**400) as ±inf: ``float`` raised a
    bare ``OverflowError`` there, so a local range check never got to name the argument.

    >>> to_float(-10**400), to_float(3)
    (-inf, 3.0)
    """
    value = _plain_number(value)
    try:
        result = float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf
    if result == 0.0 and value != 0:  # Fraction(1, 10**400), longdouble 1e-4000: nonzero, keeps its sign
        # (as 0.0 a positive scale read as the "0 = no step" it is not; as -0.0 a negative passed ">= 0")
        return math.copysign(_SMALLEST, value)
    return result


def _plain_number(value: Any) -> Any:
    """An instance of a subclass of int or float as the plain int/float it holds, read through the base
    type's own method: a subclass whose ``__float__``/``__int__``/``__index__`` raises (or lies) let its
    RuntimeError out of ``float(value)``, naming nothing. Anything else is returned as it is."""
    kind = type(value)
    if kind in (int, float, bool) or isinstance(value, bool):
        return value
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, int):
        return int.__int__(value)
    return value


def _check_real_scalar(name: str, value: Any, expected: str) -> float:
    """A real scalar (a Python or numpy int or float, or a ``Fraction``: any ``numbers.Real``, never a bool)
    as a float; else a TypeError naming it (a Decimal is not a ``numbers.Real``: it is named, not rounded).
    A finite ``Fraction``/``longdouble`` past float64's range is refused here by name: as ±inf it read as
    the ``math.inf`` limit some parameters document."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number{expected}, got {type(value).__name__} {_brief(value)}")
    result = to_float(value)  # an int past float's range: ±inf, refused by the caller as not finite
    if math.isinf(result) and not isinstance(value, int | np.integer) and _finite_beyond_float(value):
        raise ValueError(f"{name} must be a real number{expected} of magnitude at most {WORKING_MAX:.5g} "
                         f"(the working range), got a finite {type(value).__name__} past float64's range")
    if result == 0 and value != 0:
        # below float64's range (Fraction(1, 10**400), np.longdouble("1e-4000")): the nearest nonzero float
        # of its sign, so the caller's ">= 0", "> 0" and working-range tests see the value given (as 0.0 a
        # negative one passed ">= 0" and a positive lr below 1.18e-38 passed as the 0 "no step")
        return -math.ulp(0.0) if value < 0 else math.ulp(0.0)
    return result


def _finite_beyond_float(value: Any) -> bool:
    """Whether a real that became ±inf as a float was finite (a Fraction always is; a longdouble 1e4000)."""
    try:
        return bool(np.isfinite(value))
    except TypeError:  # a Fraction or another numbers.Real numpy does not know: finite by construction
        return True


def check_finite_real(name: str, value: Any) -> float:
    """A finite real number, as a float.

    >>> check_finite_real("delta", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: delta must be finite, got nan
    """
    value = _check_real_scalar(name, value, "")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return check_working_range(name, value, scale=False)


def check_nonnegative(name: str, value: Any, *, scale: bool = False) -> float:
    """A finite real number >= 0, as a float, at most WORKING_MAX. With ``scale=True`` (a step size ``lr``
    where 0 means "no step"), a nonzero value is a positive scale: 0 or at least WORKING_MIN (1e-39 is a
    step that rounds away in float32; the docstring then says "0 or at least 1.18e-38")."""
    value = _check_real_scalar(name, value, " >= 0")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    # scale=False: 0 is valid and a tiny value acts as that 0, harmlessly
    return check_working_range(name, value, scale=scale)


#: The package's working range: one rule for every real number it takes (README, "Working range").
#: Any real (a scalar or an array entry) is at most WORKING_MAX in magnitude: float32's largest number,
#: the largest torch's default dtype holds (1e308 became inf in the first float32 tensor, or in the
#: first product in float64). A positive scale (any value that must be > 0: a step size, a rate, a
#: regularization weight, a noise level, a length scale, a tolerance) is at least WORKING_MIN, float32's
#: smallest normal number: a smaller one (5e-324) rounds to 0 in float32 or has lost its precision, and
#: acts as the 0 the parameter excludes (a step of it moved nothing while the run reported progress).
#: A parameter that may be 0 takes any value from 0 up to WORKING_MAX (a tiny one acts as its valid 0).
WORKING_MAX = float(np.finfo(np.float32).max)    # 3.4028234663852886e+38
WORKING_MIN = float(np.finfo(np.float32).tiny)   # 1.1754943508222875e-38


def check_working_range(name: str, value: float, *, scale: bool = True) -> float:
    """``value`` (a float already checked finite by the caller) inside the package's working range:
    ``|value| <= WORKING_MAX`` and, for a positive scale (``scale=True``), 0 or ``|value| >= WORKING_MIN``;
    else a ValueError naming ``name``. The value is returned.

    >>> check_working_range("lr", 5e-324)
    Traceback (most recent call last):
    ...
    ValueError: lr = 5e-324 is outside the package's working range: a positive scale must be >= 1.175e-38 ...
    """
    if abs(value) > WORKING_MAX:
        raise ValueError(f"{name} = {value!r} is outside the package's working range: at most "
                         f"{WORKING_MAX:.4g} in magnitude (float32's largest number; a larger one overflows "
                         f"to inf in a float32 tensor or in its first product)")
    if scale and value != 0 and abs(value) < WORKING_MIN:
        raise ValueError(f"{name} = {value!r} is outside the package's working range: a positive scale must "
                         f"be >= {WORKING_MIN:.4g} (float32's smallest normal number; 0 only where the "
                         f"parameter allows it); a smaller one rounds to 0 or has lost its precision")
    return value


def in_working_range(values: Any) -> bool:
    """True when every entry of ``values`` (an array, a tensor or a number) is finite and at most
    :data:`WORKING_MAX` in magnitude (NaN compares False): a run's iterate, value or gradient past it
    overflowed, and the run reports ``Diverged``."""
    if hasattr(values, "detach"):
        return bool((values.detach().abs() <= WORKING_MAX).all())
    return bool(np.all(np.abs(np.asarray(values)) <= WORKING_MAX))


#: True while the package itself calls its public helpers inside a run (a solve's step, a workflow's
#: operators): the values it passes are the run's own (f's answers, iterates), not a caller's input, and
#: the working range bounds what a caller gives (README)
_RUN_VALUES: contextvars.ContextVar[bool] = contextvars.ContextVar("run_values", default=False)


@contextlib.contextmanager
def run_values() -> Iterator[None]:
    """Inside this context the helpers take the run's computed values at any finite magnitude."""
    token = _RUN_VALUES.set(True)
    try:
        yield
    finally:
        _RUN_VALUES.reset(token)


def user_range() -> bool:
    """Whether values given now are a caller's (held to the working range) rather than a run's own."""
    return not _RUN_VALUES.get()


def check_entries_in_range(name: str, array: Any) -> None:
    """The finite entries of a data array (ndarray or tensor) at most :data:`WORKING_MAX` in magnitude,
    else a ValueError naming ``name`` (NaN/inf entries are the caller's to refuse or allow)."""
    if hasattr(array, "detach"):
        import torch

        try:
            values = array.detach()
            largest = float(values[torch.isfinite(values)].abs().max()) if values.numel() else 0.0
        except (RuntimeError, ValueError):   # a vmap-batched tensor, an empty selection
            return
    else:
        values = np.asarray(array)
        if values.size == 0 or values.dtype.kind not in "fiu":
            return
        finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
        largest = float(np.abs(finite).max()) if finite.size else 0.0
    if largest > WORKING_MAX:
        raise ValueError(f"{name} has an entry of magnitude {largest!r}, outside the package's working "
                         f"range (at most {WORKING_MAX:.4g}: float32's largest number; a larger one "
                         f"overflows to inf in a float32 tensor or in its first product)")


def check_positive(name: str, value: Any) -> float:
    """A finite real number > 0, as a float.

    >>> check_positive("lr", 1 + 2j)
    Traceback (most recent call last):
    ...
    TypeError: lr must be a real number > 0, got complex (1+2j)
    """
    value = _check_real_scalar(name, value, " > 0")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be > 0 and finite, got {value!r}")
    return check_working_range(name, value)


#: the largest count numpy and torch can hold (int64): a size above it overflows inside them
INT64_MAX = 2**63 - 1


class IntArgumentError(ValueError, TypeError):
    """A count given as something other than an int (a float, a bool, a str): both a ``ValueError``
    (the package's error for a bad count) and a ``TypeError`` (Python's for a wrong type), so either
    ``except`` catches it (scikit-learn's ``InvalidParameterError`` is built the same way)."""


def _check_representable(name: str, value: int) -> int:
    if value > INT64_MAX:  # numpy says "Maximum allowed dimension exceeded", torch "Overflow when unpacking"
        raise ValueError(f"{name} must be <= 2**63 - 1 (numpy's and torch's largest size), got {value!r}")
    return int(value)


def check_positive_int(name: str, value: Any) -> int:
    """An int >= 1 (numpy ints too, never a bool or a float) that numpy and torch can hold, as an int.

    >>> check_positive_int("width", 2**64)
    Traceback (most recent call last):
    ...
    ValueError: width must be <= 2**63 - 1 (numpy's and torch's largest size), got 18446744073709551616
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise IntArgumentError(f"{name} must be a positive int, got {type(value).__name__} {_brief(value)}")
    value = _plain_number(value)
    if value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return _check_representable(name, value)


#: what torch's CPU/CUDA allocators say when an allocation fails (numpy raises MemoryError instead)
_ALLOCATION_FAILURES = ("can't allocate memory", "not enough memory", "out of memory",
                        "Storage size calculation overflowed")   # torch, for a size past int64 bytes
#: numpy's ValueErrors for an array whose byte count or shape overflows before any allocation
_SIZE_OVERFLOWS = ("array is too big", "Maximum allowed dimension exceeded")


def _allocation_failed(exc: BaseException) -> bool:
    text = str(exc)
    return (isinstance(exc, MemoryError)
            or (isinstance(exc, RuntimeError) and any(t in text for t in _ALLOCATION_FAILURES))
            or (type(exc) is ValueError and any(t in text for t in _SIZE_OVERFLOWS)))


def _largest(value: Any) -> float:
    """The largest count in a size argument (an int or a tuple of ints, as layer widths)."""
    items = value if isinstance(value, tuple | list) else (value,)
    counts = [float(v) for v in items if isinstance(v, int | np.integer) and not isinstance(v, bool)]
    return max(counts, default=-1.0)


def _needed(exc: BaseException) -> str:
    """How much the failed allocation asked for, from numpy's or torch's message."""
    text = str(exc)
    found = re.search(r"allocate (\d+) bytes", text)  # torch
    if found:
        return f"{int(found.group(1)) / 2**40:.3g} TiB requested"
    found = re.search(r"allocate ([\d.]+ [KMGTPE]?i?B)", text)  # numpy
    if found:
        return f"{found.group(1)} requested"
    if any(t in text for t in _SIZE_OVERFLOWS):
        return "more bytes than numpy can address"
    return text.splitlines()[0][:100] if text else type(exc).__name__


def allocates(*names: str) -> Callable:
    """Decorator for a constructor or function that allocates arrays sized by its arguments ``names``:
    an allocation that fails inside it (numpy's ``MemoryError`` or "array is too big", torch's "can't
    allocate memory") becomes a ``ValueError`` naming the largest of those arguments and its value.
    Costs one ``try`` per call.

    >>> @allocates("d", "n")
    ... def ones(d, n):
    ...     return np.ones((d, n))
    >>> ones(2, 2**50)
    Traceback (most recent call last):
    ...
    ValueError: ones: n=1125899906842624 is too large: the arrays it sizes cannot be allocated (16.0 PiB
    requested); use a smaller n (with d=2)
    """
    def decorate(func: Callable) -> Callable:
        signature = inspect.signature(func)
        label = func.__qualname__.replace(".__init__", "")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except (MemoryError, RuntimeError, ValueError) as exc:
                if not _allocation_failed(exc):
                    raise
                given = signature.bind_partial(*args, **kwargs)
                given.apply_defaults()
                sizes = {n: given.arguments[n] for n in names if n in given.arguments}
                culprit = max(sizes, key=lambda n: _largest(sizes[n]), default=names[0])
                others = ", ".join(f"{n}={_brief(v)}" for n, v in sizes.items() if n != culprit)
                raise ValueError(
                    f"{label}: {culprit}={_brief(sizes.get(culprit))} is too large: the arrays it sizes "
                    f"cannot be allocated ({_needed(exc)}); use a smaller {culprit}"
                    + (f" (with {others})" if others else "")) from None
        return wrapper
    return decorate


def check_int_at_least(name: str, value: Any, minimum: int, *, size: bool = True) -> int:
    """An int (numpy ints too, never a bool or a float) >= ``minimum``, as an int (a count, a capacity).

    The one integer check of the package: another type raises :class:`IntArgumentError` (a ValueError
    and a TypeError), a value below ``minimum`` or past int64 a ValueError; each names the argument.
    ``size=False`` for a count that only enters formulas, never an array's shape (attention's number
    of tokens L, with L − 1 = e^{αd}): no int64 cap then.

    >>> check_int_at_least("L", 2.0, 2)
    Traceback (most recent call last):
    ...
    algorithms._validation.IntArgumentError: L must be an int >= 2, got float 2.0
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise IntArgumentError(f"{name} must be an int >= {minimum}, got {type(value).__name__} "
                               f"{_brief(value)}")
    value = _plain_number(value)
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return _check_representable(name, value) if size else int(value)


def check_count(name: str, value: Any, minimum: int, maximum: int = C_INT_MAX,
                why: str = "a count of steps or samples") -> int:
    """An int >= ``minimum`` that counts iterations, samples or population members: at most 2**31 - 1
    (a compiled backend's C int, as ``backend_cap``; a run of 2**40 steps would not finish, a hang
    rather than an error), or the caller's documented ``maximum`` (``why`` says what each unit costs).

    >>> check_count("inner_steps", 2**40, 1)
    Traceback (most recent call last):
    ...
    ValueError: inner_steps must be <= 2**31 - 1 (a count of steps or samples), got 1099511627776
    """
    # minimum 1 keeps check_positive_int's wording ("a positive int"), which callers' messages used
    value = check_positive_int(name, value) if minimum == 1 else check_int_at_least(name, value, minimum)
    if value > min(maximum, C_INT_MAX):
        bound = "2**31 - 1" if maximum >= C_INT_MAX else f"{maximum}"
        raise ValueError(f"{name} must be <= {bound} ({why}), got {value}")
    return value


#: a lower estimate of one torch layer's bytes beyond its parameters (the Module, its Parameter and tensor
#: objects, hooks' dicts): what a loop building ``depth`` layers costs even when each is tiny
LAYER_OVERHEAD_BYTES = 4096


def physical_memory() -> int:
    """This machine's memory in bytes (what no array it builds can exceed); 2**63 - 1 where unknown."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not POSIX
        return INT64_MAX


def check_fits_memory(owner: str, name: str, value: Any, n_bytes: float) -> None:
    """Refuse a size argument whose parameters or arrays (``n_bytes``, estimated before anything is built)
    exceed this machine's memory, in :func:`allocates`' words. For a constructor that builds its layers one
    at a time (``depth``), where a failed allocation would come only after hours of building.

    >>> check_fits_memory("MLP", "depth", 2**40, 2**40 * 4 * 16 * 16)
    Traceback (most recent call last):
    ...
    ValueError: MLP: depth=1099511627776 is too large: the arrays it sizes cannot be allocated (1.02e+03 ...
    """
    available = physical_memory()
    if n_bytes > available:
        raise ValueError(f"{owner}: {name}={_brief(value)} is too large: the arrays it sizes cannot be "
                         f"allocated ({n_bytes / 2**40:.3g} TiB needed, this machine has "
                         f"{available / 2**30:.3g} GiB); use a smaller {name}")


def is_choice(value: Any, choices) -> bool:
    """``value in choices`` as a bool, False where the test itself raises: an unhashable value (a list, a
    dict), or an array or tensor compared elementwise ("the truth value of an array ... is ambiguous")."""
    try:
        return bool(value in choices)
    except (TypeError, ValueError, RuntimeError):
        return False


class UnknownAttributeError(AttributeError, ValueError):
    """An attribute an object does not take, set after construction: Python's ``AttributeError`` and the
    package's ``ValueError``."""


def _constructing(obj: Any) -> bool:
    """Whether an ``__init__`` of ``obj`` itself is running: a user's subclass of an exported class (a model,
    an optimizer) sets its own attributes after ``super().__init__()`` fixed the names, and was refused
    them. Only read on the refusal path (a frame walk)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is obj:
            return True
        frame = frame.f_back
    return False


def refuse_unknown_attribute(obj: Any, name: str, known: Any) -> None:
    """Called from ``__setattr__`` once ``obj`` is built: a public name that is neither one of ``known``
    (its parameters), nor already set, nor a class attribute is refused by name. A misspelt parameter
    (``model.bta = 2.0``, ``ae.n_component = 3``) was stored as a new attribute and ignored in silence."""
    if name.startswith("_") or name in known or name in obj.__dict__ or hasattr(type(obj), name):
        return
    if _constructing(obj):  # a user's subclass setting its own attributes in its __init__, after ours
        return
    kind = type(obj).__name__
    raise UnknownAttributeError(f"{kind} takes no attribute {name!r} (a misspelt name would be stored and "
                                f"ignored); its settable parameters are {sorted(known)}")


#: |r| below this share of |reference| (x in x − s, 1 in 1 − ηλ) cancels: the float result's error (a few
#: ulps of the terms) is then more than 2**-42 of it, so such entries are recomputed exactly (outside, the
#: error is below 1e-12 relative)
CANCELLATION_SHARE = 2.0**-10


def power_of_two_units(largest: np.ndarray, span: int = 10) -> np.ndarray:
    """Per entry of ``largest`` (a slice's largest magnitude: a row's, a column's), the power of two nearest
    it where it lies outside [2**-span, 2**span], else 1.0 (also for 0, inf or NaN): dividing the slice by it
    is exact and brings data of extreme units to about 1, while data of ordinary size is left bit for bit."""
    largest = np.asarray(largest, dtype=np.float64)
    largest = np.where(np.isfinite(largest) & (largest > 0), largest, 1.0)
    k = np.round(np.log2(largest))
    return np.where((k >= -span) & (k <= span), 1.0, np.exp2(k))


def rounded_where_cancelled(result: Any, reference: Any, exact_entry: Callable[[tuple], Any]) -> Any:
    """``result`` (a number, a numpy array or a torch tensor) with its entries where it cancelled
    (``|r| <= CANCELLATION_SHARE·|reference|``) recomputed exactly: ``exact_entry(index)`` is the formula's
    exact rational value there (a Fraction from the float inputs), rounded once to the result's dtype.
    gd_step(1e-30, 1e-20, 1e-10) was 1.75e-46 where the formula's value is 1.02e-46 (lr·g rounded before the
    subtraction; heldout23). Object/symbolic arrays pass unchanged, and so does a tensor under
    ``torch.func.vmap`` (no data-dependent branch there: the batched caller's own)."""
    if type(result).__module__.startswith("torch"):
        import torch

        if isinstance(result, torch.Tensor):
            scale = reference.abs() if isinstance(reference, torch.Tensor) else abs(reference)
            limit = CANCELLATION_SHARE * scale
            try:
                cancelled = (result.abs() <= limit).nonzero().tolist()
            except RuntimeError:    # under torch.func.vmap
                return result
            if not cancelled:
                return result
            result = result.clone()
            for index in cancelled:
                result[tuple(index)] = float(exact_entry(tuple(index)))
            return result
    if not isinstance(result, numbers.Real | np.ndarray | np.generic) or np.asarray(result).dtype == object:
        return result   # symbolic (sympy) or an object array
    values = np.asarray(result)
    scale = np.broadcast_to(np.abs(np.asarray(reference, dtype=np.float64)), values.shape)
    limit = CANCELLATION_SHARE * scale
    cancelled = np.abs(values.astype(np.float64)) <= limit
    if not cancelled.any():
        return result
    exact = values.copy()
    for index in zip(*np.nonzero(cancelled), strict=True) if values.ndim else [()]:
        exact[index] = float(exact_entry(index))
    if isinstance(result, np.ndarray):
        return exact
    return type(result)(exact.item()) if isinstance(result, np.generic) else float(exact.item())


def refuse_replaced(kind: str, name: str, value: Any, fixed: Any, hint: str) -> None:
    """A container an object built and reads at every use (torch's ``defaults``, ``state`` and
    ``param_groups``, SAM's base optimizer) cannot be replaced after construction: ``param_groups = []``
    stepped nothing in silence, ``defaults = 'x'`` met a bare AttributeError at the step. Its entries stay
    editable; ``hint`` says how to change it instead."""
    if value is not fixed:
        raise ValueError(f"{kind}.{name} is fixed at construction ({hint}), got a {type(value).__name__}")


def same_setting(saved: Any, own: Any) -> bool:
    """A hyperparameter saved in a checkpoint (a resumed training's optimizer group) equal to the training's
    own: tuples and lists alike, bools/None/strings by type and value, numbers by value (NaN never)."""
    if isinstance(own, tuple | list):
        return isinstance(saved, tuple | list) and len(saved) == len(own) and all(
            same_setting(a, b) for a, b in zip(saved, own, strict=True))
    if isinstance(own, bool) or own is None or isinstance(own, str):
        return type(saved) is type(own) and saved == own
    return isinstance(saved, int | float) and not isinstance(saved, bool) and saved == own


def check_choice(name: str, value: Any, choices) -> Any:
    if not is_choice(value, choices):
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value


def backend_cap(maxiters: int | None) -> int | None:
    """An iteration cap as a compiled backend's C int, or None.

    Any int >= 0 is a valid cap; one above 2**31 - 1 caps nothing a run can reach, so it is clamped
    to 2**31 - 1 instead of overflowing the backend's int (HiGHS refuses it, ARPACK crashes,
    Clarabel returns NaN).

    >>> backend_cap(10**40) == 2**31 - 1, backend_cap(7), backend_cap(None)
    (True, 7, None)
    """
    return None if maxiters is None else min(int(maxiters), C_INT_MAX)


def check_callable(name: str, value: Any) -> None:
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {type(value).__name__}")


def check_takes(name: str, value: Any, call: str, n_args: int) -> None:
    """A user callable ``name`` that the package calls as ``call`` with ``n_args`` positional arguments:
    one that cannot take them is refused here by name (Python's own message at the first call, "<lambda>()
    takes 0 positional arguments but 1 was given", named neither). Callables without a readable signature
    (some builtins) pass.

    >>> check_takes("f", lambda: 1.0, "f(x)", 1)
    Traceback (most recent call last):
    ...
    TypeError: f must take 1 positional argument(s), as in f(x); its signature is ()
    """
    check_callable(name, value)
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):   # no signature to read (a builtin, a C extension)
        return
    try:
        signature.bind(*([None] * n_args))
    except TypeError:
        raise TypeError(f"{name} must take {n_args} positional argument(s), as in {call}; its signature is "
                        f"{signature}") from None


def check_seed(seed: Any, name: str = "seed", *, allow_none: bool = False,
               allow_generator: bool = False) -> Any:
    """The package's one seed check: an int (numpy integers too, never a bool) in [0, 2**64), returned
    as an int; also ``None`` and a ``numpy.random.Generator`` (returned as they are) where the caller's
    docstring promises them. Anything else (a float, a str, a bool, a ``SeedSequence``, a
    ``RandomState``) is a TypeError naming ``name`` and listing what is accepted.

    [0, 2**64) is what both ``numpy.random.default_rng`` and ``torch.manual_seed`` accept.

    >>> check_seed(2**64, "oracle_seed")
    Traceback (most recent call last):
    ...
    ValueError: oracle_seed must be an int >= 0 and < 2**64, got 18446744073709551616
    >>> check_seed(0.5, allow_none=True, allow_generator=True)
    Traceback (most recent call last):
    ...
    TypeError: seed must be an int in [0, 2**64), None or a numpy.random.Generator, got float 0.5
    """
    if seed is None and allow_none:
        return None
    if allow_generator and isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer):
        kinds = ["an int in [0, 2**64)", *["None"] * allow_none,
                 *["a numpy.random.Generator"] * allow_generator]
        kinds = ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if len(kinds) > 1 else "an int"
        raise TypeError(f"{name} must be {kinds}, got {type(seed).__name__} {_brief(seed)}")
    seed = _plain_number(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"{name} must be an int >= 0 and < 2**64, got {seed}")
    return int(seed)


def check_generator(name: str, value: Any) -> np.random.Generator:
    """A numpy ``Generator`` (``np.random.default_rng(seed)``); a seed or a string is refused by name."""
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)), got "
                        f"{type(value).__name__} {value!r:.60}")
    return value


def check_built_optimizer(name: str, value: Any):
    """What a user's optimizer factory ``name`` returned: a ``torch.optim.Optimizer`` (a str or None failed
    later with an AttributeError such as "'str' object has no attribute 'zero_grad'")."""
    import torch

    if not isinstance(value, torch.optim.Optimizer):
        raise TypeError(f"{name} must build a torch.optim.Optimizer, got {type(value).__name__} "
                        f"{_brief(value)}")
    if step_needs_closure(value):
        # the trainer calls step() with no closure: LBFGS failed with Python's bare missing-argument error
        raise TypeError(f"{name} must build an optimizer that steps without a closure (the trainer calls "
                        f"step() after backward), got {type(value).__name__}, whose step requires one")
    check_group_numbers(name, value)
    return value


def check_group_numbers(name: str, optimizer: Any) -> None:
    """The numbers in an optimizer's ``param_groups`` (``lr``, ``momentum``, each of ``betas``, ...) inside
    the working range: finite, magnitude <= 3.4e38, and ``lr`` 0 or at least 1.18e-38, else a ValueError
    naming ``name`` and the key. torch's constructors let ``lr = nan`` through (a run to Diverged), and
    ``lr = 1e39`` failed at the first step with torch's "cannot be converted to type float" naming nothing.
    Flags (bools), None and strings are left alone."""
    import torch

    for index, group in enumerate(getattr(optimizer, "param_groups", None) or ()):
        if not isinstance(group, dict):
            continue
        for key, value in group.items():
            if key == "params":
                continue
            for item in value if isinstance(value, tuple | list) else (value,):
                if isinstance(item, bool | np.bool_):
                    continue
                if isinstance(item, torch.Tensor):
                    if item.numel() != 1 or item.is_complex() or item.device.type == "meta" \
                            or item.dtype == torch.bool:
                        continue
                    number = float(item.detach())
                elif isinstance(item, numbers.Real):
                    try:
                        number = float(item)
                    except OverflowError:     # an int past float64 (10**400)
                        number = math.inf
                else:
                    continue
                floor = WORKING_MIN if key == "lr" and number != 0.0 else 0.0
                if not (math.isfinite(number) and floor <= abs(number) <= WORKING_MAX) \
                        or (key == "lr" and number < 0):
                    rule = ("0 or in [1.18e-38, 3.4e38]" if key == "lr"
                            else "finite, of magnitude <= 3.4e38 (the working range)")
                    raise ValueError(f"{name} built an optimizer whose param_groups[{index}][{key!r}] is "
                                     f"{_brief(item)}; it must be {rule}")


def step_needs_closure(optimizer: Any) -> bool:
    """Whether ``optimizer`` (an optimizer or its class) must be stepped with a closure: its ``step`` has a
    required ``closure`` argument (LBFGS), or the class says so (SAM: ``STEP_NEEDS_CLOSURE``)."""
    import inspect

    if getattr(optimizer, "STEP_NEEDS_CLOSURE", False):
        return True
    try:
        closure = inspect.signature(optimizer.step).parameters.get("closure")
    except (TypeError, ValueError):
        return False
    return closure is not None and closure.default is inspect.Parameter.empty


def check_bool(name: str, value: Any) -> bool:
    """A flag: a bool (or numpy bool), returned as a bool."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def check_float_tensor(name: str, value: Any, *, ndim: int | None = None, allow_half: bool = True):
    """A real floating torch tensor with finite entries, on a real device (not ``meta``).

    Complex tensors are refused (a later ``.to(float)`` would drop the imaginary part silently);
    ``allow_half=False`` also refuses float16/bfloat16 (a caller whose result follows the tensor's dtype).
    """
    import torch

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if not value.is_floating_point() or (not allow_half and value.dtype in (torch.float16, torch.bfloat16)):
        raise TypeError(f"{name} must be a real floating tensor (float32 or float64), got {value.dtype}")
    if value.device.type == "meta":
        raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
    refuse_sparse(name, value)
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(value.shape)}")
    if not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} contains NaN or inf entries")
    check_entries_in_range(name, value)
    return value


def as_real_tensor(name: str, value: Any, dtype: Any = None, *, allow_bool: bool = False):
    """``value`` (a torch tensor or an array-like of real numbers) as a finite floating tensor on its device:
    float32 stays float32, other real dtypes (integers included, as documented where used) become float64,
    or ``dtype`` when given. Refused, by name: bool (0/1 would count as numbers), complex (``.to(float)``
    drops the imaginary part), half precision (float16/bfloat16: the solves here run in float32/float64,
    and a silent upcast would hide that the data were rounded to half), the meta device (no data),
    non-numeric or ragged input, NaN/inf. ``allow_bool=True`` promotes bool to 0/1 (labels, where a
    caller documents it).

    >>> import torch
    >>> as_real_tensor("y", torch.ones(2, dtype=torch.float16))
    Traceback (most recent call last):
    ...
    TypeError: y has dtype torch.float16: half precision is not supported (the solves run in float32
    or float64); convert it with .float() or .double()
    """
    import torch

    if isinstance(value, torch.Tensor):
        tensor = value.detach()
        if tensor.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        refuse_sparse(name, tensor)
    else:
        _refuse_masked(name, value)
        try:
            array = np.asarray(value)
        except Exception as exc:  # ragged lists and the like
            raise TypeError(f"{name} must be array-like: {exc}") from exc
        if array.dtype == object and array.size and all(
                isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in array.flat):
            array = as_float64(name, array)  # lists of Fractions, as as_float_array takes them
        if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
            raise TypeError(f"{name} must be numeric, got dtype {array.dtype}")
        if array.dtype.kind in "iu":  # uint64 (np.asarray(2**63)) has no torch dtype; ints become float64
            array = array.astype(np.float64)
        # longdouble has no torch dtype (torch's TypeError named nothing): float64, as as_float_array does
        if array.dtype.kind == "f" and array.dtype.itemsize > 8:
            array = array.astype(np.float64)
        if not array.dtype.isnative:  # big-endian ('>f8'): torch's "byte order different ..." named nothing
            array = array.astype(array.dtype.newbyteorder("="))
        if not array.flags.writeable:  # torch.from_numpy warned "The given NumPy array is not writable"
            array = array.copy()
        tensor = torch.from_numpy(np.ascontiguousarray(array))
    if tensor.dtype == torch.bool and not allow_bool:
        raise TypeError(f"{name} must be numeric, got a bool tensor; pass numbers (.double() if 0/1 is "
                        f"meant)")
    if tensor.is_complex():
        raise TypeError(f"{name} must be real, got dtype {tensor.dtype}")
    if tensor.dtype in (torch.float16, torch.bfloat16):
        raise TypeError(f"{name} has dtype {tensor.dtype}: half precision is not supported (the solves run "
                        f"in float32 or float64); convert it with .float() or .double()")
    if dtype is None:
        dtype = torch.float32 if tensor.dtype == torch.float32 else torch.float64
    tensor = tensor.to(dtype)
    if not bool(torch.isfinite(tensor).all()):
        raise ValueError(f"{name} contains NaN or inf entries")
    check_entries_in_range(name, tensor)
    return tensor


def refuse_sparse(name: str, tensor: Any) -> None:
    """A sparse tensor (COO, CSR) where a dense one is meant: torch's isfinite and most ops raise their
    own NotImplementedError ("Could not run 'aten::ne.Scalar' ... 'SparseCPU' backend") on it."""
    import torch

    if getattr(tensor, "layout", torch.strided) != torch.strided:  # anything but a tensor passes
        raise TypeError(f"{name} must be a dense (strided) tensor, got layout {tensor.layout}; use "
                        f".to_dense()")


def check_device(name: str, tensor: Any, reference: Any) -> None:
    """``tensor`` on the device of ``reference`` (a model's parameter), else a ValueError naming it
    (torch's own message names neither the argument nor the model)."""
    if tensor.device != reference.device:
        raise ValueError(f"{name} must be on the model's device {reference.device}, got a tensor on "
                         f"{tensor.device} (move one of them with .to(...))")


def check_torch_dtype(dtype: Any):
    """A floating torch dtype the models support: torch.float32 or torch.float64."""
    import torch

    if not is_choice(dtype, (torch.float32, torch.float64)):
        raise TypeError(f"dtype must be torch.float32 or torch.float64, got {_brief(dtype)}")
    return dtype


def check_float_dtype(dtype: Any, name: str = "dtype") -> np.dtype:
    """A numpy float dtype the factories support (float32 or float64), as a ``numpy.dtype``.

    >>> check_float_dtype("x")
    Traceback (most recent call last):
    ...
    TypeError: dtype must be numpy.float32 or numpy.float64, got 'x'
    """
    try:  # np.dtype(None) is float64 and a dtype compares equal to None: both excluded explicitly; a numpy
        # value (np.float32(nan), an array) is no dtype, though np.dtype() reads its type from it
        value = dtype is not None and not isinstance(dtype, np.generic | np.ndarray)
        kind = np.dtype(dtype) if value else None
    except TypeError:
        kind = None
    if kind is None or kind not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"{name} must be numpy.float32 or numpy.float64, got {dtype!r}")
    return kind


def returned_pair(call: str, value: Any) -> tuple[Any, Any]:
    """A user callable's result that must be a pair, unpacked, or a TypeError naming the callable.

    >>> returned_pair("grad(x, y, rng)", "x")
    Traceback (most recent call last):
    ...
    TypeError: grad(x, y, rng) must return a pair (a tuple of two arrays), got str 'x'
    """
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError(f"{call} must return a pair (a tuple of two arrays), got {type(value).__name__} "
                        f"{_brief(value)}")
    return value[0], value[1]


def returned_scalar(call: str, value: Any) -> float:
    """A user callable's result that must be a real number, as a float, or a TypeError naming it.

    >>> returned_scalar("phi(x)", None)
    Traceback (most recent call last):
    ...
    TypeError: phi(x) must return a real number, got NoneType None
    """
    if hasattr(value, "detach") and type(value).__module__.startswith("torch"):
        # a loss tensor with requires_grad: numpy's "Can't call numpy() on Tensor that requires grad"
        if value.device.type == "meta":
            raise TypeError(f"{call} must return a real number, got a meta tensor (no data)")
        value = value.detach()
    # a str ("1") or a list ([1.0]) would be parsed or unpacked by float()/numpy; a bool counted as 0/1
    if (np.ndim(value) != 0 or isinstance(value, str | bytes | bool | np.bool_) or np.iscomplexobj(value)
            or getattr(value, "dtype", None) == np.bool_
            or str(getattr(value, "dtype", "")) in ("torch.bool", "torch.complex64", "torch.complex128")):
        raise TypeError(f"{call} must return a real number, got {type(value).__name__} {_brief(value)}")
    try:
        return to_float(value)   # an int past float's range (10**400) as ±inf: float() raised OverflowError
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{call} must return a real number, got {type(value).__name__} "
                        f"{_brief(value)}") from exc


def _brief(value: Any) -> str:
    try:
        shown = repr(value)
    except Exception:  # a __repr__ that raises: the message names the argument all the same
        shown = f"<{type(value).__name__} object>"
    text = " ".join(shown.split())  # one line (a SeedSequence's or a tensor's repr spans several)
    return text if len(text) <= 60 else text[:57] + "..."


def check_str(name: str, value: Any) -> str:
    """A label (a problem's ``name``): a str."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    return value


#: per-parameter state entries that have the parameter's own shape in every optimizer here
_PARAM_SHAPED = ("momentum", "momentum_buffer", "exp_avg", "exp_avg_sq")


#: optimizer state entries that are running means (or sums, maxima) of squares, >= 0 by construction:
#: Adam's exp_avg_sq / max_exp_avg_sq, SOAP's second_moment, RMSprop's square_avg, Adagrad's sum, Adadelta's
#: acc_delta, Adamax's exp_inf
NONNEGATIVE_STATE = frozenset({"exp_avg_sq", "max_exp_avg_sq", "second_moment", "square_avg", "sum",
                               "acc_delta", "exp_inf"})


def check_optimizer_state(saved: Any, groups: list[dict[str, Any]], where: str = "state_dict") -> None:
    """The one check of a saved optimizer state before it is loaded into an optimizer whose parameter
    groups are ``groups``: every error names the entry (``state_dict['state'][i]['key']``).

    torch's ``load_state_dict`` loads a hand-edited state as it is: a NaN buffer (the next step writes NaN
    into the weights), an entry for a parameter that does not exist, ``step = -5``, a buffer cast to an
    integer dtype or of another shape (a later step fails inside the update), no parameter groups (torch's
    message names no argument). Each is refused here, leaving the optimizer unchanged.
    """
    import torch

    if not isinstance(saved, dict):
        raise TypeError(f"{where} must be a dict (from the optimizer's state_dict()), got "
                        f"{type(saved).__name__}")
    state, saved_groups = saved.get("state"), saved.get("param_groups")
    if not isinstance(state, dict):
        raise TypeError(f"{where}['state'] must be a dict, got {type(state).__name__}")
    if not isinstance(saved_groups, list) or len(saved_groups) != len(groups):
        got = f"{len(saved_groups)} groups" if isinstance(saved_groups, list) else type(saved_groups).__name__
        raise ValueError(f"{where}['param_groups'] must hold this optimizer's {len(groups)} parameter "
                         f"group(s), got {got}")
    for index, (group, own) in enumerate(zip(saved_groups, groups, strict=True)):
        count = len(own["params"])
        if not isinstance(group, dict) or not isinstance(group.get("params"), list | tuple) \
                or len(group["params"]) != count:
            raise ValueError(f"{where}['param_groups'][{index}] must list the {count} parameter(s) of this "
                             f"optimizer's group {index}")
    # torch writes the parameter ids 0..n-1 in group order and maps saved state to parameters by them:
    # repeated or foreign ids ([0, 0, 0], [0, 1, 99]) would load a buffer onto another parameter
    ids = [i for group in saved_groups for i in group["params"]]
    if ids != list(range(len(ids))):
        raise ValueError(f"{where}['param_groups'][...]['params'] must be the parameter ids "
                         f"0..{len(ids) - 1} in group order (as state_dict() writes them), got {_brief(ids)}")
    params = [p for own in groups for p in own["params"]]
    for index, entry in state.items():
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(params):
            raise ValueError(f"{where}['state'] has an entry for parameter {index!r}; this optimizer has "
                             f"{len(params)} parameters (indices 0..{len(params) - 1})")
        if not isinstance(entry, dict):
            raise TypeError(f"{where}['state'][{index}] must be a dict, got {type(entry).__name__}")
        param = params[index]
        for key, value in entry.items():
            name = f"{where}['state'][{index}][{key!r}]"
            if key == "step" or key.endswith("_step"):  # a count: int, float or 0-d tensor (torch's Adam)
                number = value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value
                if isinstance(number, bool) or not isinstance(number, int | float) or not (
                        math.isfinite(number) and 0 <= number < 2**63 and float(number).is_integer()):
                    raise ValueError(f"{name} must be a step count (an integer >= 0), got {_brief(value)}")
            elif isinstance(value, torch.Tensor):
                if value.device.type == "meta":
                    raise ValueError(f"{name} is on the meta device (no data)")
                if not (value.is_floating_point() or (value.is_complex() and param.is_complex())):
                    raise TypeError(f"{name} must be a floating tensor (as the optimizer writes it), got "
                                    f"dtype {value.dtype}")
                if not bool(torch.isfinite(value).all()):
                    raise ValueError(f"{name} contains NaN or inf entries (the next step would write them "
                                     f"into the parameter)")
                if value.numel() and float(value.detach().abs().max()) > WORKING_MAX:
                    # 1e39 in a float64 momentum loaded and stepped ~1e38 weights in silence
                    raise ValueError(f"{name} has an entry of magnitude "
                                     f"{float(value.detach().abs().max()):.3g}, past the working range "
                                     f"(<= {WORKING_MAX:.5g})")
                if key in NONNEGATIVE_STATE and value.numel() and float(value.detach().min()) < 0:
                    # a second moment of -1 loaded: sqrt(-1) wrote NaN into the weights at the next step
                    raise ValueError(f"{name} must be >= 0 (a running mean of squares), got an entry "
                                     f"{float(value.detach().min()):.3g}")
                if key in _PARAM_SHAPED and tuple(value.shape) != tuple(param.shape):
                    raise ValueError(f"{name} has shape {tuple(value.shape)}, but parameter {index} has "
                                     f"shape {tuple(param.shape)}: the state_dict was written for other "
                                     f"parameters")


def check_module_state(state_dict: Any, where: str = "state_dict") -> None:
    """A ``torch.nn.Module`` state dict before ``load_state_dict``: a mapping whose floating tensors are
    finite (torch loads a hand-edited NaN weight as it is, and every later forward answers NaN) and inside
    the working range (entries at most 3.4e38 in magnitude).
    Shapes, missing and unexpected keys are left to torch, whose messages name the key."""
    import torch

    is_class = isinstance(state_dict, type)     # a class (OrderedDict itself) has an items attribute too
    if is_class or not hasattr(state_dict, "items"):
        shown = f"the class {state_dict.__name__}" if is_class else type(state_dict).__name__
        raise TypeError(f"{where} must be a mapping of parameter names to tensors (an instance), got {shown}")
    for key, value in state_dict.items():
        if not isinstance(key, str):   # torch's "'int' object has no attribute 'startswith'" (strict=False)
            raise TypeError(f"{where} keys must be parameter names (str), got {type(key).__name__} "
                            f"{key!r:.40}")
        if isinstance(value, torch.Tensor) and value.device.type == "meta":   # torch's copy error: no key
            raise ValueError(f"{where}[{key!r}] is on the meta device (no data); load a state dict that "
                             f"holds values")
        if isinstance(value, torch.Tensor) and value.layout != torch.strided:  # isfinite raised
            raise TypeError(f"{where}[{key!r}] must be a dense tensor, got layout {value.layout} (a module's "
                            f"parameters are dense: pass .to_dense())")
        if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex()) \
                and not bool(torch.isfinite(value).all()):
            raise ValueError(f"{where}[{key!r}] contains NaN or inf entries")
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            # a user's weights, held to the working range: 1e39 loaded into a float32 module became inf
            # and was refused only at the next forward, naming no key
            check_entries_in_range(f"{where}[{key!r}]", value)


def check_finite_data(name: str, value: Any, *, check_range: bool = True) -> None:
    """A data tensor (a model's input ``X``, targets ``y``, a probe ``vector``) without NaN/inf, else a
    ValueError naming ``name``: torch propagates them into a NaN output or gradient in silence. Its
    entries inside the working range unless ``check_range=False`` (a model's weights, which a diverging
    run may grow past it).

    Skipped inside ``torch.func.vmap``, where a data-dependent check cannot run (the batched call's entry
    point checks the data it is given); a meta tensor is refused first (it holds no data).
    """
    import torch

    if value.device.type == "meta":
        raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
    refuse_sparse(name, value)
    try:
        finite = bool(torch.isfinite(value).all())
    except RuntimeError:  # a vmap-batched tensor: no data-dependent control flow
        return
    if not finite:
        raise ValueError(f"{name} contains NaN or inf entries")
    if check_range:
        check_entries_in_range(name, value)


def check_saved_hyperparameters(optimizer_class: Any, groups: Any, where: str) -> None:
    """Each saved parameter group's hyperparameters through ``optimizer_class``'s own constructor (on a
    throwaway tensor): torch's optimizers check ``lr``, ``betas``, ``momentum``, ``weight_decay`` there
    only, and their ``load_state_dict`` loads ``lr = nan`` or ``weight_decay = -1`` as they are. Keys the
    constructor does not take (``initial_lr`` of a scheduler, labels) are left alone."""
    import inspect
    import warnings

    import torch

    signature = inspect.signature(optimizer_class).parameters
    accepted = set(signature) - {"params", "self"}
    probe = [torch.zeros(1, requires_grad=True)]
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        if not isinstance(group, dict):
            continue
        keywords = {k: v for k, v in group.items() if k in accepted}
        for key, value in keywords.items():
            _check_saved_keyword(f"{where}['param_groups'][{index}][{key!r}]", value, signature[key].default,
                                 optimizer_class.__name__)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                optimizer_class(probe, **keywords)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}['param_groups'][{index}]: {optimizer_class.__name__} refuses these "
                             f"hyperparameters: {exc}") from None


def _check_saved_keyword(name: str, value: Any, default: Any, owner: str) -> None:
    """A saved keyword of the kind its constructor default has: a flag a bool, a number (or a tuple of
    numbers) a real number (a one-element floating tensor too). A str or None met the constructor's "'<' not
    supported between 'NoneType' and 'float'" naming no key, and an unused one (SGD's dampening at momentum 0)
    loaded in silence."""
    import torch

    def real(v: Any) -> bool:
        return (isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)) or (
            isinstance(v, torch.Tensor) and v.numel() == 1 and v.is_floating_point())

    if isinstance(default, bool):
        if not isinstance(value, bool | np.bool_):
            raise TypeError(f"{name} must be a bool, as {owner} takes it, got {type(value).__name__} "
                            f"{_brief(value)}")
    elif isinstance(default, numbers.Real):
        if not real(value):
            raise TypeError(f"{name} must be a real number, as {owner} takes it, got {type(value).__name__} "
                            f"{_brief(value)}")
    elif isinstance(default, tuple) and default and all(isinstance(d, numbers.Real) for d in default):
        if not (isinstance(value, tuple | list) and all(real(v) for v in value)):
            raise TypeError(f"{name} must be a tuple of real numbers, as {owner} takes it, got "
                            f"{type(value).__name__} {_brief(value)}")


def check_module_state_fits(module: Any, state_dict: Any, strict: bool = True,
                            where: str = "state_dict") -> None:
    """``check_module_state`` plus the keys and shapes against ``module``'s own state, before torch loads
    anything: torch copies the entries that fit and only then raises a ``RuntimeError`` for the rest, so a
    refused state dict left the module half loaded. ``strict`` as ``load_state_dict``'s."""
    import torch

    check_module_state(state_dict, where)
    own = module.state_dict()
    for key, value in state_dict.items():
        if key in own and isinstance(own[key], torch.Tensor) and not isinstance(value, torch.Tensor):
            # a list met torch's RuntimeError after the entries before it were loaded
            raise TypeError(f"{where}[{key!r}] must be a torch.Tensor, got {type(value).__name__} "
                            f"{_brief(value)}")
        if key in own and isinstance(value, torch.Tensor) and tuple(value.shape) != tuple(own[key].shape):
            raise ValueError(f"{where}[{key!r}] must have shape {tuple(own[key].shape)} (the module's), got "
                             f"{tuple(value.shape)}")
        if key in own and isinstance(value, torch.Tensor) and own[key].is_floating_point() \
                and not value.is_floating_point():   # torch casts an int or bool weight into the float one
            raise ValueError(f"{where}[{key!r}] must be a floating tensor (the module's is "
                             f"{own[key].dtype}), got {value.dtype}")
    if strict:
        missing = sorted(set(own) - set(state_dict))
        unexpected = sorted(map(str, set(state_dict) - set(own)))
        if missing or unexpected:
            raise ValueError(f"{where} does not match {type(module).__name__}'s parameters: missing keys "
                             f"{missing}, unexpected keys {unexpected}")


def check_call_signature(name: str, fn: Any, call: str, *args: Any, **kwargs: Any) -> None:
    """A user callable that accepts the call the library makes (``fn(*args, **kwargs)``), checked when it is
    given: a factory without the keywords it is called with failed later with Python's "got an unexpected
    keyword argument", naming neither the argument nor the call. No signature: passes as it is."""
    import inspect

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{name} must accept the call {call}: {exc}") from None


def clone_tensors(value: Any) -> Any:
    """``value`` with every tensor inside (dicts, lists, tuples) replaced by a detached copy: a
    ``state_dict()`` that hands out its live buffers lets another optimizer's ``load_state_dict`` (torch's
    keeps tensors of the right dtype and device as they are) share them, and both then update one buffer."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, dict):
        return {k: clone_tensors(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(clone_tensors(v) for v in value)
    return value


class AbstractMethodError(NotImplementedError, TypeError):
    """An abstract method of a base class called on a subclass that does not implement it: a TypeError
    (the class is incomplete) and, as before, a NotImplementedError, whose message names the class and the
    method to implement (a bare ``raise NotImplementedError`` named neither)."""


def abstract_method(obj: Any, method: str, what: str) -> AbstractMethodError:
    """The error for ``obj``'s missing ``method`` (``what`` says what it must compute), to be raised."""
    kind = type(obj).__name__
    return AbstractMethodError(f"{kind} must define {method}, {what}; {kind} does not (a subclass of an "
                               f"abstract base)")


def _field_stamp(value: Any) -> Any:
    """What :func:`remember_validated` keeps of one field: the object itself, with a torch tensor's version
    counter (bumped by every in-place write) or a CRC of a writable numpy array's or a scipy.sparse
    matrix's buffers (``qp.P.data[0] = -5`` written in place; O(data), far below a solve)."""
    if type(value).__module__.startswith("torch") and hasattr(type(value), "_version"):
        try:
            return (value, value._version)
        except RuntimeError:  # an inference tensor keeps no version (and cannot be written outside it):
            return (value, None)  # a problem built in torch.inference_mode() met this RuntimeError
    if isinstance(value, np.ndarray) and value.dtype != object and value.flags.writeable:
        return (value, _crc(value))
    if sp.issparse(value) and hasattr(value, "data"):
        parts = [value.data] + [getattr(value, k) for k in ("indices", "indptr", "row", "col", "offsets")
                                if isinstance(getattr(value, k, None), np.ndarray)]
        return (value, (*(_crc(part) for part in parts), value.shape))
    if isinstance(value, dict | list) and len(value) <= 256:  # an options dict edited in place
        try:  # (backend_options["max_iter"] = -5); a long list: identity only
            return (value, repr(value))
        except Exception:  # an entry whose __repr__ raises: identity only
            return (value, None)
    return (value, None)


def _crc(array: np.ndarray) -> int:
    import zlib

    data = memoryview(np.ascontiguousarray(array).reshape(-1)).cast("B")  # flat: a (0, 3) view cannot cast
    # the shape and dtype by their text, not hash(): str hashes differ between processes, so an unpickled
    # problem looked changed (and was rebuilt) at its first solve
    return zlib.crc32(data, zlib.crc32(repr((array.shape, array.dtype.str)).encode()))


def refuse_overrides(obj: Any, base: type, methods: tuple[str, ...]) -> None:
    """A TypeError naming the first of ``methods`` that ``type(obj)`` (a user's subclass of ``base``)
    overrides: the package evaluates ``base``'s own formula there, so an override was used unchecked (a
    non-PSD kernel) or ignored in silence (a prior's prox: the solvers call the private one; red23a)."""
    for method in methods:
        if getattr(type(obj), method) is not getattr(base, method):
            raise TypeError(f"{type(obj).__name__} overrides {base.__name__}.{method}, which the package "
                            f"evaluates itself (a subclass may add methods and attributes, not change "
                            f"{method}): use {base.__name__} or a user callable where one is taken")


def remember_validated(obj: Any) -> None:
    """Called last in a frozen dataclass's ``__post_init__``: records the object each field holds once
    validated (and a tensor's version, an array's CRC), for :func:`revalidate_if_reassigned`."""
    object.__setattr__(obj, "_validated_fields", _stamps(obj))


def _stamps(obj: Any) -> dict[str, Any]:
    import dataclasses

    # public fields only (a private one is derived state, e.g. an unpicklable closure, that the rebuild
    # recomputes): the constructor's arguments by content (a tensor's version, an array's CRC), the derived
    # public ones (a problem's lower bounds, a cached factor) by identity
    return {f.name: _field_stamp(getattr(obj, f.name, None)) if f.init else (getattr(obj, f.name, None), None)
            for f in dataclasses.fields(obj) if not f.name.startswith("_")}


#: what a refused nested field is remembered as: it never matches, so every later use refuses it again
_STALE = object()


#: immutable scalars: a stamp of one compares by value (pickle does not keep a float's identity: an unpickled
#: CurvatureProblem's derived f0 was a new float, read as "changed after construction": every solve refused)
_VALUE_TYPES = (bool, int, float, complex, str, bytes, type(None), np.generic)


def _same_object(current: tuple[Any, Any], recorded: tuple[Any, Any]) -> bool:
    (now, stamp_now), (then, stamp_then) = current, recorded
    if stamp_now != stamp_then:
        return False
    if now is then:
        return True
    if type(now) is not type(then) or not isinstance(now, _VALUE_TYPES):
        return False
    try:
        return bool(now == then) or bool(now != now and then != then)  # NaN: equal to itself here
    except Exception:  # a numpy scalar whose comparison raises (none known): not the same
        return False


def forget_validation(obj: Any) -> None:
    """Mark the constructor fields of the frozen dataclass ``obj`` (and of each frozen dataclass it holds)
    as never validated, when ``obj`` holds no record of its validation (a pickled state stripped of
    ``_validated_fields``, with NaN coordinates, was solved unchecked: red23b): the next
    :func:`revalidate_if_reassigned` then builds it anew, as after a replaced field."""
    import dataclasses

    if not dataclasses.is_dataclass(obj) or isinstance(obj, type) or \
            "_validated_fields" in getattr(obj, "__dict__", {}):
        return
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name, None)
        nested = dataclasses.is_dataclass(value) and not isinstance(value, type)
        if nested and value.__dataclass_params__.frozen:
            forget_validation(value)
    obj.__dict__["_validated_fields"] = {
        f.name: (_STALE, None) if f.init else (getattr(obj, f.name, None), None)
        for f in dataclasses.fields(obj) if not f.name.startswith("_")}


def revalidate_if_reassigned(obj: Any) -> bool:
    """Before ``obj`` (a frozen dataclass that called :func:`remember_validated`) is used by a solve: a field
    replaced since its validation (``object.__setattr__(problem, "copies", -5)`` bypasses the frozen
    dataclass), or a tensor/array field written in place, is validated again by building the object anew
    from its current fields (the constructor's error names the field), and the rebuilt object's derived
    state (caches, purities, a Cholesky factor) is adopted, so nothing computed from the old value
    survives. Nested recorded dataclasses (a prior inside an algorithm) are checked first, and one that
    changed has its holder validated again too (a problem's own cross-checks of it: a LinearStructure
    edited behind a chance problem's back no longer reproduced its f and g). O(data) for array fields (a
    CRC), free otherwise (identity and version comparisons). Returns whether ``obj`` was validated again."""
    import dataclasses

    seen = getattr(obj, "__dict__", {}).get("_validated_fields")
    if seen is None:
        return False
    nested = [f.name for f in dataclasses.fields(obj)
              if dataclasses.is_dataclass(value := getattr(obj, f.name, None)) and not isinstance(value, type)
              and revalidate_if_reassigned(value)]
    now = _stamps(obj)
    own = [name for name, (value, stamp) in seen.items()
           if not _same_object(now.get(name, (_STALE, None)), (value, stamp))]
    if not nested and not own:
        return False
    kind = type(obj)
    derived = sorted(name for name in own if not kind.__dataclass_fields__[name].init)
    if derived:   # a rebuild recomputes it from the constructor's fields: the replacement vanished in silence
        obj.__dict__["_validated_fields"] = {**seen, **{name: (_STALE, None) for name in nested}}
        raise ValueError(f"{kind.__name__}.{', '.join(derived)} was changed after construction "
                         f"(object.__setattr__); derived from the constructor's arguments, it cannot be set: "
                         f"build a new {kind.__name__} from other arguments")
    changed = sorted({*nested, *own})
    try:
        fresh = kind(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init})
    except (TypeError, ValueError) as exc:
        # refused again at the next use too (the nested object, rebuilt, no longer looks changed)
        obj.__dict__["_validated_fields"] = {**seen, **{name: (_STALE, None) for name in nested}}
        error = TypeError if isinstance(exc, TypeError) else ValueError
        raise error(f"{kind.__name__}.{', '.join(changed)} was changed after construction (the frozen "
                    f"{kind.__name__} is validated again before use): {exc}") from None
    obj.__dict__.pop("_factory_call", None)   # the factory call no longer rebuilds these fields
    # a cache computed from the old values goes too (a cached_property: MarkovLanguageTask's transition kept
    # the old vocab_size's shape)
    for key in [k for k in obj.__dict__ if k not in fresh.__dict__]:
        del obj.__dict__[key]
    for key, value in fresh.__dict__.items():
        object.__setattr__(obj, key, value)
    return True


def store_plain_scalars(obj: Any) -> None:
    """Each field of the (frozen) dataclass ``obj`` that holds a numpy scalar or an instance of a subclass
    of bool/int/float/str (``np.float32(0.1)``, ``np.int64(5)``, ``np.str_("relu")``, an ``IntEnum``), or
    a non-integral ``numbers.Real`` (a ``Fraction``, as a float), re-stored as the plain Python value,
    before validation: the object then compares, hashes, reprs and pickles alike whichever spelling made
    it, and no float32/float16 scalar reaches the arithmetic.
    Values of other types (arrays, tensors, callables) are left to the field's own check."""
    import dataclasses

    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        kind = type(value)
        if kind in (bool, int, float, str) or value is None:
            continue
        if isinstance(value, bool | np.bool_):
            plain: Any = bool(value)
        elif isinstance(value, int | np.integer):
            plain = int(value)
        elif isinstance(value, float | np.floating):
            plain = float(value)
        elif isinstance(value, str):
            plain = str(value)
        elif isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
            try:   # a Fraction: stored as a float (numpy's ufuncs refused an object operand, cryptically)
                plain = float(value)
            except (OverflowError, ValueError, TypeError):
                continue   # past float's range: the field's own check names it
        else:
            continue
        object.__setattr__(obj, f.name, plain)


class UserCallableError(ValueError):
    """A user's callable (an objective, a constraint, a sampler, a callback) raised: its exception, whatever
    its class (a KeyError, a ZeroDivisionError), is the ``__cause__`` of this ``ValueError``, whose message
    names the callable and the call."""


def call_user(call: str, fn: Callable[..., Any], *args: Any,
              keep: tuple[type[BaseException], ...] = ()) -> Any:
    """``fn(*args)``, a user's callable; any exception it raises is re-raised as a :class:`UserCallableError`
    naming ``call`` (e.g. ``"f(x)"``) and chained to the original (a KeyError of the user's f reached the
    caller bare, naming neither f nor the call). Exceptions of the classes in ``keep`` pass as they are (an
    optimizer's closure runs the package's own models, whose TypeError/ValueError already name the
    argument, and torch's RuntimeError for a second backward).

    numpy array arguments are handed over as read-only views: a callable that wrote into a run's live
    iterate (``x[0] = 99``) changed the run in silence, and one that wrote only into a writeable point and
    then answered for it gave wrong values (heldout16: SGDA 450x off). One that writes regardless
    (``x *= 2`` to form its answer) is called once more on writeable copies: its write changes nothing of
    the run. A read-only array it returns (its argument, ``grad = lambda x: x``) comes back as a copy."""
    views = tuple(_read_only_view(arg) for arg in args)
    try:
        out = _call_wrapped(call, fn, views, keep)
    except ValueError as exc:   # numpy's "assignment destination is read-only" (wrapped, or kept as is)
        if "read-only" not in str(exc):
            raise
        copies = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        out = _call_wrapped(call, fn, copies, keep)
    return tuple(map(_writeable, out)) if isinstance(out, tuple) else _writeable(out)


def _read_only_view(arg: Any) -> Any:
    if not isinstance(arg, np.ndarray):
        return arg
    view = arg.view()
    view.setflags(write=False)
    return view


def _writeable(value: Any) -> Any:
    return value.copy() if isinstance(value, np.ndarray) and not value.flags.writeable else value


def _call_wrapped(call: str, fn: Callable[..., Any], args: tuple,
                  keep: tuple[type[BaseException], ...]) -> Any:
    try:
        return fn(*args)
    except keep:
        raise
    except UserCallableError:
        raise
    except Exception as exc:
        raise UserCallableError(f"{call} raised {type(exc).__name__}: {str(exc)[:200]}") from exc


def check_counts_fit(record: Any) -> None:
    """Every int field of the dataclass ``record`` (a stats record's counts) at most 2**63 - 1, numpy's and
    torch's largest count (2**64 or 10**100 iterations were kept as given)."""
    import dataclasses

    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if f.type == "int" and isinstance(value, int) and value > INT64_MAX:
            raise ValueError(f"{f.name} must be <= 2**63 - 1 (a count), got {value!r:.40}")

class CheckedRecord:
    """Mixin for a mutable dataclass record whose ``__post_init__`` checks (and normalizes) its fields: a
    field set after construction is checked the same way. The record is re-checked on a copy that holds
    the new value and updated only when that passes, so a refused assignment leaves it as it was
    (``history.n_initial = 99`` on 3 rows, or ``run.status = "bogus"``, were kept as given); a public name
    that is not a field is refused by name. The record's ``__post_init__`` ends with :meth:`_checked`."""

    def __setattr__(self, name: str, value: Any) -> None:
        import copy
        import dataclasses

        names = {f.name for f in dataclasses.fields(self)}
        if self.__dict__.get("_record_checked") and name not in names:
            # history.n_initiall = 0 (misspelt) was stored beside the field in silence
            refuse_unknown_attribute(self, name, tuple(names))
        if not self.__dict__.get("_record_checked") or name not in names:
            super().__setattr__(name, value)
            return
        trial = copy.copy(self)
        trial.__dict__["_record_checked"] = False
        setattr(trial, name, value)
        trial.__post_init__()
        self.__dict__.update(trial.__dict__)

    def _checked(self) -> None:
        """Called last by ``__post_init__``: from now on every field set is checked."""
        self.__dict__["_record_checked"] = True


def check_module_load(module: Any, state_dict: Any, strict: Any = True, assign: Any = False,
                      where: str = "state_dict") -> tuple[bool, bool]:
    """A module's ``load_state_dict`` arguments checked before torch loads anything: ``strict``/``assign``
    strict bools (``strict="no"`` was truthy), then :func:`check_module_state_fits` (keys, shapes, floating
    dtypes). Returns (strict, assign)."""
    strict, assign = check_bool("strict", strict), check_bool("assign", assign)
    check_module_state_fits(module, state_dict, strict, where)
    return strict, assign


def outside_inference(value: Any) -> Any:
    """``value``, or a clone of it when it is a tensor made under ``torch.inference_mode()`` and used outside
    it: a module whose parameters require grad saves its input for backward, and torch refuses an inference
    tensor there ("Inference tensors cannot be saved for backward"); the clone is a normal tensor of the
    same values (torch's own advice). Free for any other input."""
    import torch

    if isinstance(value, torch.Tensor) and value.is_inference() and not torch.is_inference_mode_enabled():
        return value.clone()
    return value


def checked_fields(post_init: Callable) -> Callable:
    """:func:`remember_validated` as a decorator of a frozen dataclass's ``__post_init__`` (``post_init``):
    the fields are recorded after it ran, whichever way it returns, for :func:`revalidate_if_reassigned`."""

    @functools.wraps(post_init)
    def run(self: Any) -> None:
        post_init(self)
        remember_validated(self)

    return run



def stable_norm(v: Any) -> float:
    """‖v‖₂ of a real vector as a float64, ``math.sqrt(v·v)`` (np.linalg.norm's value, without its overhead on
    tiny vectors) wherever v·v is a normal float64, else scaled by max |vᵢ|: √(Σ vᵢ²) underflowed to 0 for a
    gradient of 4e-210 (a stationary point read at x0 far from x*) and overflowed past 1e154.

    >>> stable_norm([3e-200, 4e-200]), stable_norm([3.0, 4.0])
    (5e-200, 5.0)
    """
    a = np.asarray(v, dtype=np.float64).reshape(-1)   # float32 squares went subnormal from 1e-19 down
    squared = float(np.dot(a, a))
    if np.finfo(np.float64).tiny <= squared <= np.finfo(np.float64).max:
        return math.sqrt(squared)
    top = float(np.max(np.abs(a), initial=0.0))
    if top == 0.0 or not math.isfinite(top):
        return top
    return top * math.sqrt(float(np.dot(a / top, a / top)))


def precision_rank(value: Any) -> int | None:
    """The precision rank of an array's (or tensor's, or numpy scalar's) dtype: 3 for float64, 2 for
    float32, 1 for half precision, 0 for integers (None for a list, a Python number or anything without a
    dtype: read as float64). A user callable's answer ranked below what a method computes in is refused by
    name (its rounding would move the iterates in silence)."""
    dtype = str(getattr(value, "dtype", "")).replace("torch.", "")
    if not dtype:
        return None
    if dtype in ("float64", "double", "longdouble", "float128"):
        return 3
    if dtype in ("float32", "float"):
        return 2
    if dtype in ("float16", "half", "bfloat16"):
        return 1
    if dtype.startswith(("int", "uint")):
        return 0
    return None


def resealed(value: Any) -> Any:
    """``value`` with every numpy array in it (nested in tuples and lists too) made :func:`read_only` again:
    for ``__setstate__``, since numpy gives arrays back writable after pickling or ``copy.deepcopy`` (a
    deep-copied record's arrays were written and used unchecked)."""
    if isinstance(value, np.ndarray):
        return read_only(value)
    if isinstance(value, tuple | list):
        return type(value)(resealed(v) for v in value)
    return value


def reseal_state(instance: Any, state: dict) -> None:
    """``__setstate__`` of a frozen problem whose arrays are read-only: numpy gives them back writable after
    pickling or ``copy.deepcopy`` (a write into the copy's array then went through), so each is sealed again;
    a field still the array validated at construction keeps its stamp (no rebuild at the first solve)."""
    old = dict(state)
    state = {name: read_only(value) if isinstance(value, np.ndarray) else value
             for name, value in old.items()}
    seen = state.get("_validated_fields")
    if isinstance(seen, dict):
        state["_validated_fields"] = {
            name: (state[name] if name in state and entry[0] is old.get(name) else entry[0], entry[1])
            for name, entry in seen.items()}
    instance.__dict__.update(state)


def seal_arrays(obj: Any) -> None:
    """Called last in a frozen problem's ``__post_init__``: every numpy-array field into immutable memory
    (:func:`read_only`), as the README states for problems (a write such as ``problem.x[0] = 5.0`` went
    through and the next solve answered for the edited data). Pair it with ``__setstate__`` =
    :func:`reseal_state`, since numpy gives arrays back writable after pickling or deepcopy."""
    import dataclasses

    for f in dataclasses.fields(obj):
        value = obj.__dict__.get(f.name)
        if isinstance(value, np.ndarray):
            object.__setattr__(obj, f.name, read_only(value))


def read_only(array: np.ndarray) -> np.ndarray:
    """``array``'s data in immutable memory (a ``bytes`` copy): a read-only array that owns its data can be
    made writable again (``a.setflags(write=True)``, or ``a.base.setflags(write=True)`` on a view of it),
    then written, so a problem's checked data changed in silence; an array over ``bytes`` cannot (numpy
    raises "cannot set WRITEABLE flag"). Object arrays (no buffer) get a read-only view of a copy."""
    array = np.asarray(array)
    if array.dtype.hasobject:
        base = np.array(array, copy=True)
        base.setflags(write=False)
        return base.view()
    return np.frombuffer(np.ascontiguousarray(array).tobytes(), dtype=array.dtype).reshape(array.shape)
