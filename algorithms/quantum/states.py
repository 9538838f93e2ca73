"""Density matrices of n qubits: validation, purity, random states, partial traces, measurements.

A density matrix of n qubits is a d×d complex matrix (d = 2ⁿ) that is Hermitian, positive
semidefinite and of trace one; its purity is Tr ρ² ∈ [1/d, 1]. Every function here checks its
matrix on entry (within the tolerance :func:`state_tolerance` of its dtype) and says which
condition failed and by how much. Simulation is in complex128 whatever the input dtype.

Measuring ρ in the orthonormal basis {U†|i⟩}ᵢ (the rows of U) gives outcome i with probability
pᵢ = ⟨i|UρU†|i⟩ (:func:`measurement_probabilities`); m copies measured in one basis give
multinomial counts (:func:`sample_counts`, drawn in bulk from the exact distribution, not copy
by copy).

>>> rho = random_state(2, purity=0.6, seed=1)
>>> round(purity(rho), 12), round(float(np.trace(rho).real), 12)
(0.6, 1.0)
>>> partial_trace(rho, keep=(0,)).shape
(2, 2)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from algorithms._validation import (
    _plain_number,
    _refuse_masked,
    _tensor_to_numpy,
    allocates,
    check_fits_memory,
    check_int_at_least,
    check_seed,
    check_str,
    check_working_range,
    refuse_bools_in_sequence,
    refuse_sparse,
    to_float,
)

__all__ = [
    "as_density_matrix",
    "haar_unitaries",
    "local_unitaries",
    "measurement_probabilities",
    "partial_trace",
    "purity",
    "random_state",
    "sample_counts",
    "state_tolerance",
]

#: the largest number of qubits the dense simulation accepts (a 2¹⁰ × 2¹⁰ matrix)
MAX_QUBITS = 10
#: the largest ``atol`` of :func:`as_density_matrix`: a tolerance for round-off (float16 data needs ~1e-3);
#: beyond, a matrix with a negative eigenvalue or a trace of 1.5 would pass as a state
MAX_ATOL = 1e-2


def _tensor_data(name: str, value: Any) -> Any:
    """A torch tensor's values as numpy (detached: one with requires_grad met numpy's "Can't call numpy() on
    Tensor that requires grad", a valid array refused); anything else as given."""
    if hasattr(value, "detach") and type(value).__module__.startswith("torch"):
        refuse_sparse(name, value)
        return _tensor_to_numpy(name, value)
    return value


def as_array(name: str, value: Any) -> np.ndarray:
    """``np.asarray(value)``, with what numpy raises for it (a ragged list, an object whose ``__array__``
    raises) turned into a TypeError naming ``name``; a masked array with masked entries is refused."""
    _refuse_masked(name, value)  # np.asarray drops the mask: masked entries would count as data
    if getattr(getattr(value, "device", None), "type", None) == "meta":  # numpy's error named nothing
        raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
    value = _tensor_data(name, value)
    refuse_bools_in_sequence(name, value)   # [True, 0.5] was read as [1.0, 0.5] (a bool array is refused)
    try:
        return plain_numbers(np.asarray(value))
    except Exception as exc:
        raise TypeError(f"{name} must be array-like: {type(exc).__name__}: {exc}") from None


def plain_numbers(array: np.ndarray) -> np.ndarray:
    """An object array of numbers (Fractions, Python ints, a mix with complex) as int64, float64 or
    complex128, the narrowest kind that holds every entry: numpy keeps Fractions as objects, which the
    numeric checks refused as "dtype object". Bools, non-numbers and entries that do not convert stay an
    object array (the callers refuse it by name)."""
    if array.dtype != object or array.size == 0:
        return array
    items = array.ravel().tolist()
    if any(isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Number) for v in items):
        return array
    kinds = ((np.int64, numbers.Integral), (np.float64, numbers.Real), (np.complex128, numbers.Complex))
    for kind, test in kinds:
        if all(isinstance(v, test) for v in items):
            try:
                return array.astype(kind)
            except (OverflowError, TypeError, ValueError):  # an int past int64, a Fraction past float64
                return array
    return array


def state_tolerance(dtype: Any) -> float:
    """The tolerance of the density-matrix checks for entries of ``dtype``.

    About 10⁴ machine epsilons of the real type (1e-5 for float32/complex64, 1e-8 below that
    for float64/complex128), enough for matrices built in that precision; 1e-2 for float16 (ten
    of its epsilons: a state rounded to half precision is off by ~1e-3).

    >>> state_tolerance(np.float64), state_tolerance(np.complex64)
    (1e-08, 1e-05)
    """
    if dtype is None:  # np.dtype(None) is float64: a missing dtype would read as double precision
        raise TypeError("dtype must be a numpy data type, got None")
    try:
        kind = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be a numpy data type, got {dtype!r}") from exc
    if not np.issubdtype(kind, np.inexact):  # an integer dtype has no machine epsilon to scale
        raise TypeError(f"dtype must be a floating or complex numpy data type, got {kind}")
    if kind == np.dtype(np.float16):  # half precision (eps 1e-3): a state rounded to it is off by ~1e-3
        return 1e-2
    single = kind in (np.dtype(np.float32), np.dtype(np.complex64))
    return 1e-5 if single else 1e-8


def _n_qubits_of(name: str, dim: int) -> int:
    n_qubits = int(dim).bit_length() - 1
    if dim < 2 or 2**n_qubits != dim:
        raise ValueError(f"{name} must be 2ⁿ × 2ⁿ for n >= 1 qubits, got {dim} × {dim}")
    if n_qubits > MAX_QUBITS:
        raise ValueError(f"{name} has {n_qubits} qubits; the dense simulation takes at most {MAX_QUBITS}")
    return n_qubits


def as_density_matrix(rho: Any, name: str = "rho", *, atol: float | None = None) -> np.ndarray:
    """``rho`` as a complex128 density matrix, after checking it is one.

    Checks, in order: a numeric square 2ⁿ × 2ⁿ array (entries real or complex numbers: numpy's, Python's,
    Fractions) without NaN/inf, Hermitian
    (max |ρ − ρ†| <= atol), positive semidefinite (smallest eigenvalue >= −atol), trace one
    (|Tr ρ − 1| <= atol). ``atol`` defaults to :func:`state_tolerance` of the input dtype; a given
    ``atol`` must lie in (0, 1e-2] (a round-off tolerance: a larger one would pass non-states).
    The error names ``name``, the failed condition and the measured violation.

    >>> as_density_matrix(np.eye(2) / 2).dtype
    dtype('complex128')
    >>> as_density_matrix(np.diag([0.7, 0.7]), name="states[1]")
    Traceback (most recent call last):
    ...
    ValueError: states[1] must have trace 1: |Tr ρ − 1| = 0.4 > tolerance 1e-08 (atol)
    """
    check_str("name", name)  # the label of every message below (an int was taken as one)
    if rho is None:
        raise TypeError(f"{name} is required, got None")
    _refuse_masked(name, rho)  # np.asarray drops the mask: masked entries would count as data
    if getattr(getattr(rho, "device", None), "type", None) == "meta":  # numpy's error named nothing
        raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
    rho = _tensor_data(name, rho)
    refuse_bools_in_sequence(name, rho)   # a bool among a list's entries was read as 1.0
    try:
        array = plain_numbers(np.asarray(rho))  # Fractions as float64 (numpy keeps them as objects)
    except Exception as exc:  # ragged nested lists
        raise TypeError(f"{name} must be array-like: {exc}") from exc
    if array.dtype == object or not np.issubdtype(array.dtype, np.number) or array.dtype == bool:
        raise TypeError(f"{name} must be a numeric matrix, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be a square 2ⁿ × 2ⁿ matrix, got shape {array.shape}")
    _n_qubits_of(name, array.shape[0])
    if atol is None:
        atol = state_tolerance(array.dtype if np.issubdtype(array.dtype, np.inexact) else np.float64)
    elif not isinstance(atol, numbers.Real | np.bool_):  # a bool is a number out of range (ValueError below)
        # a 0-d array or tensor of 1e-8 was told "must be a positive float <= 0.01": the type is what is wrong
        raise TypeError(f"atol must be a positive float <= {MAX_ATOL:g} (a round-off tolerance; a Python or "
                        f"numpy number), got {type(atol).__name__} {atol!r:.40}")
    elif isinstance(atol, bool | np.bool_) or not 0 < atol <= MAX_ATOL:  # numpy scalars, Fractions too
        # bounded: atol = inf (or 10) accepted diag(3, −2) as a density matrix, so every check was void
        raise ValueError(f"atol must be a positive float <= {MAX_ATOL:g} (a round-off tolerance), got "
                         f"{atol!r}")
    else:  # a tolerance: a positive scale of the working range (1e-39, 5e-324 were taken)
        atol = check_working_range("atol", to_float(atol))
    matrix = array.astype(np.complex128)
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"{name} contains NaN or inf entries")
    asymmetry = float(np.max(np.abs(matrix - matrix.conj().T)))
    if asymmetry > atol:
        raise ValueError(f"{name} must be Hermitian: max |ρ − ρ†| = {asymmetry:.3g} > tolerance {atol:g} "
                         f"(atol)")
    matrix = (matrix + matrix.conj().T) / 2
    lowest = float(np.linalg.eigvalsh(matrix)[0])
    if lowest < -atol:
        raise ValueError(f"{name} must be positive semidefinite: smallest eigenvalue {lowest:.3g} "
                         f"< −{atol:g} (atol)")
    trace_error = abs(float(np.trace(matrix).real) - 1.0)
    if trace_error > atol:
        raise ValueError(f"{name} must have trace 1: |Tr ρ − 1| = {trace_error:.3g} > tolerance {atol:g} "
                         f"(atol)")
    return matrix


def purity(rho: Any) -> float:
    """Tr ρ² of a density matrix (checked first): 1 for a pure state, 1/d for I/d.

    ``rho`` is a density matrix: a square complex or real array, Hermitian, PSD, trace 1.

    >>> purity(np.eye(4) / 4), purity(np.diag([1.0, 0.0]))
    (0.25, 1.0)
    """
    matrix = as_density_matrix(rho)
    # Tr ρ² = Σ |ρ_ij|² for Hermitian ρ: no matrix product needed
    return float(np.sum(np.abs(matrix) ** 2))


def _check_n_qubits(n_qubits: Any) -> int:
    if isinstance(n_qubits, bool) or not isinstance(n_qubits, int | np.integer):
        raise TypeError(f"n_qubits must be an int, got {type(n_qubits).__name__} {n_qubits!r}")
    if not 1 <= n_qubits <= MAX_QUBITS:
        raise ValueError(f"n_qubits must be in [1, {MAX_QUBITS}], got {n_qubits}")
    return int(_plain_number(n_qubits))


def _rng(seed: Any) -> np.random.Generator:
    seed = check_seed(seed, allow_generator=True)
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _count(name: str, value: Any, minimum: int) -> int:
    return check_int_at_least(name, value, minimum)  # a non-int: IntArgumentError (a TypeError too)


def random_state(n_qubits: int, purity: float | None = None, rank: int | None = None,
                 seed: int | np.random.Generator = 0) -> np.ndarray:
    """A random density matrix of ``n_qubits`` qubits (an int in [1, 10]; ``seed`` an int in [0, 2**64) or a
    ``numpy.random.Generator``).

    * ``purity`` given: the depolarized Haar-random pure state ρ = α|ψ⟩⟨ψ| + (1 − α) I/d with
      α = √((dP − 1)/(d − 1)), whose purity is exactly P (P ∈ [1/d, 1], each end extended by 1e-12
      for float round-off; further out is a ValueError); this is the family of the paper's
      lower-bound construction (Problem 5.4).
    * ``rank`` given (an int in [1, d], d = 2ⁿ): a Hilbert–Schmidt random state GG†/Tr(GG†), G a d × rank
      complex Ginibre matrix.
    * neither: a Haar-random pure state. Both at once is an error.

    >>> rho = random_state(3, rank=2, seed=0)
    >>> int(np.linalg.matrix_rank(rho)), rho.shape
    (2, (8, 8))
    """
    n_qubits = _check_n_qubits(n_qubits)
    dim = 2**n_qubits
    if purity is not None and rank is not None:
        raise ValueError(f"give purity or rank, not both (got purity={purity!r}, rank={rank!r})")
    rng = _rng(seed)
    if rank is not None:
        rank = _count("rank", rank, 1)
        if rank > dim:
            raise ValueError(f"rank must be in [1, 2ⁿ = {dim}], got {rank}")
        ginibre = rng.standard_normal((dim, rank)) + 1j * rng.standard_normal((dim, rank))
        rho = ginibre @ ginibre.conj().T
        return rho / np.trace(rho).real
    vector = rng.standard_normal(dim) + 1j * rng.standard_normal(dim)
    vector /= np.linalg.norm(vector)
    pure = np.outer(vector, vector.conj())
    if purity is None:
        return pure
    if isinstance(purity, bool | np.bool_) or not isinstance(purity, numbers.Real):  # a Fraction too
        raise TypeError(f"purity must be a real number, got {type(purity).__name__}")
    if not 1.0 / dim - 1e-12 <= purity <= 1.0 + 1e-12:
        raise ValueError(f"purity must be in [1/2ⁿ, 1] = [{1.0 / dim:g}, 1] for {n_qubits} qubit(s), "
                         f"got {purity!r}")
    alpha = np.sqrt(max(dim * to_float(purity) - 1.0, 0.0) / (dim - 1))
    return alpha * pure + (1.0 - alpha) * np.eye(dim) / dim


def partial_trace(rho: Any, keep: Any) -> np.ndarray:
    """Trace out every qubit of ``rho`` not in ``keep`` (qubit 0 is the most significant bit).

    ``rho`` is a 2ⁿ × 2ⁿ density matrix and ``keep`` a non-empty sequence of distinct qubit indices, ints in
    [0, n − 1]. The result is the reduced density matrix of the kept qubits, in their original
    order.

    >>> bell = np.zeros((4, 4)); bell[0, 0] = bell[0, 3] = bell[3, 0] = bell[3, 3] = 0.5
    >>> partial_trace(bell, keep=(1,)).real.round(3).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """
    matrix = as_density_matrix(rho)
    n_qubits = _n_qubits_of("rho", matrix.shape[0])
    # a 0-d array or tensor has __iter__ but iterating it raised "'float' object is not iterable"
    if isinstance(keep, str | bytes) or not hasattr(keep, "__iter__") \
            or (hasattr(keep, "shape") and len(keep.shape) == 0):
        raise TypeError(f"keep must be a sequence of int qubit indices, got {type(keep).__name__} {keep!r}")
    refuse_sparse("keep", keep)  # .tolist() of a sparse tensor: "Cannot access data pointer"
    if getattr(getattr(keep, "device", None), "type", None) == "meta":  # "Cannot copy out of meta tensor"
        raise ValueError("keep is on the meta device (no data); pass the qubit indices as ints")
    try:
        items = list(keep.tolist() if hasattr(keep, "tolist") and hasattr(keep, "shape") else keep)
    except Exception as exc:  # a __len__ or __iter__ that raises: its own error named nothing
        raise TypeError(f"keep must be a sequence of int qubit indices; iterating it raised "
                        f"{type(exc).__name__}: {exc}") from None
    if any(isinstance(q, bool | np.bool_) or not isinstance(q, int | np.integer) for q in items):
        raise TypeError(f"keep must hold int qubit indices (int() would truncate), got {keep!r}")
    kept = sorted({int(_plain_number(q)) for q in items})
    if len(kept) != len(items):
        raise ValueError(f"keep must name each qubit once, got {keep!r}")
    if not kept or any(not 0 <= q < n_qubits for q in kept):
        raise ValueError(f"keep must name qubits in [0, {n_qubits - 1}] (at least one), got {keep!r}")
    traced = [q for q in range(n_qubits) if q not in kept]
    tensor = matrix.reshape([2] * (2 * n_qubits))
    # contract each traced qubit's row index with its column index
    for offset, qubit in enumerate(traced):
        remaining = n_qubits - offset
        tensor = np.trace(tensor, axis1=qubit - offset, axis2=qubit - offset + remaining)
    dim = 2 ** len(kept)
    return tensor.reshape(dim, dim)


#: the most complex entries (size·dim²) and QR work (size·dim³) one draw of unitaries may take: 2**27 entries
#: (2 GiB) and 2**33 (seconds to a minute); 100 unitaries of 2048 × 2048 fit in memory and took minutes (a
#: hang). The claims' largest draw, 10⁵ Haar bases of 5 qubits, is 1.0e8 entries and 3.3e9 work.
MAX_DRAWN_ENTRIES, MAX_QR_WORK = 2**27, 2**33


def _check_draw(owner: str, size: int, dim: int, dim_name: str = "dim") -> None:
    if size * dim * dim > MAX_DRAWN_ENTRIES or size * dim**3 > MAX_QR_WORK:
        # one unitary past the caps is the dimension's fault, not size's (the message named size at dim 2**50)
        culprit = dim_name if dim * dim > MAX_DRAWN_ENTRIES or dim**3 > MAX_QR_WORK else "size"
        raise ValueError(f"{owner}: size = {size} unitaries of {dim} × {dim} are too many to draw (size·dim² "
                         f"must be <= 2**27 entries and size·dim³ <= 2**33); use a smaller {culprit}")


@allocates("dim", "size")
def haar_unitaries(dim: int, size: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """``size`` independent Haar-random ``dim`` × ``dim`` unitaries, shape (size, dim, dim).

    ``size`` is an int >= 0 (0: an empty (0, dim, dim) array).

    QR of complex Ginibre matrices with the phases of R's diagonal moved into Q (Mezzadri's
    recipe), which makes Q exactly Haar distributed. ``dim`` is an int >= 1, ``size`` an int >= 0 with
    size·dim² <= 2**27 and size·dim³ <= 2**33 (the draw's memory and time), ``seed`` an int in [0, 2**64) or
    a ``numpy.random.Generator``.

    >>> U = haar_unitaries(4, 3, seed=0)
    >>> bool(np.allclose(U[1] @ U[1].conj().T, np.eye(4)))
    True
    """
    dim = _count("dim", dim, 1)
    size = _count("size", size, 0)
    _check_draw("haar_unitaries", size, dim)
    rng = _rng(seed)
    ginibre = rng.standard_normal((size, dim, dim)) + 1j * rng.standard_normal((size, dim, dim))
    if size == 0:
        return ginibre
    q, r = np.linalg.qr(ginibre)
    phases = np.diagonal(r, axis1=1, axis2=2)
    return q * (phases / np.abs(phases))[:, None, :]


def local_unitaries(n_qubits: int, size: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """``size`` random local unitaries U₁ ⊗ ... ⊗ Uₙ (each Uⱼ Haar on one qubit), (size, 2ⁿ, 2ⁿ).

    ``n_qubits`` is an int >= 1, ``size`` an int >= 0 (size·4ⁿ <= 2**27, size·8ⁿ <= 2**33) and ``seed`` an
    int in [0, 2**64) or a ``numpy.random.Generator``.

    >>> local_unitaries(2, 5, seed=0).shape
    (5, 4, 4)
    """
    n_qubits = _check_n_qubits(n_qubits)
    size = _count("size", size, 0)
    # the result holds size · 4ⁿ complex128 entries: refused before the loop that builds it (10⁶ unitaries
    # of 10 qubits, 16 TiB, ran on for minutes instead of failing)
    check_fits_memory("local_unitaries", "size", size, 16.0 * size * 4**n_qubits)
    # within memory, but minutes of work (a hang)
    _check_draw("local_unitaries", size, 2**n_qubits, "n_qubits")
    rng = _rng(seed)
    factors = haar_unitaries(2, size * n_qubits, rng).reshape(size, n_qubits, 2, 2)
    result = factors[:, 0]
    for j in range(1, n_qubits):
        result = np.einsum("bij,bkl->bikjl", result, factors[:, j]).reshape(size, 2 ** (j + 1),
                                                                               2 ** (j + 1))
    return result


def measurement_probabilities(rho: Any, unitaries: Any) -> np.ndarray:
    """Exact outcome probabilities pᵢ = ⟨i|UρU†|i⟩ of measuring ``rho`` in each basis.

    ``unitaries`` has shape (d, d) or (size, d, d), each unitary (U U† = I to 10x
    :func:`state_tolerance` of its dtype: anything else is not a measurement basis, and its
    "probabilities" would be renormalized into a distribution in silence); the result has shape
    (d,) or (size, d), clipped at 0 and renormalized against round-off.

    >>> measurement_probabilities(np.diag([0.75, 0.25]), np.eye(2)).tolist()
    [0.75, 0.25]
    """
    matrix = as_density_matrix(rho)
    array = as_array("unitaries", unitaries)
    if array.dtype == bool or array.dtype == object or not np.issubdtype(array.dtype, np.number):
        raise TypeError(f"unitaries must be a numeric (real or complex) array, got dtype {array.dtype}")
    if (array.ndim not in (2, 3)
            or array.shape[-2:] != matrix.shape):
        raise ValueError(f"unitaries must have shape ({matrix.shape[0]}, {matrix.shape[0]}) or "
                         f"(size, {matrix.shape[0]}, {matrix.shape[0]}) (rho is {matrix.shape[0]} × "
                         f"{matrix.shape[0]}), got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("unitaries contains NaN or inf entries")
    stack = array.reshape(-1, *array.shape[-2:])
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow (NaN gram) is refused below, by name
        gram = stack @ np.conj(np.swapaxes(stack, -1, -2))
    error = np.abs(gram - np.eye(array.shape[-1])).max(axis=(-2, -1))
    tol = 10 * state_tolerance(array.dtype if np.issubdtype(array.dtype, np.inexact) else np.float64)
    if not np.all(error <= tol):  # NaN too: entries ~1e300 overflowed the product U U† (NaN > tol is False)
        bad = int(np.argmax(~(error <= tol)))
        raise ValueError(f"unitaries must be unitary (rows an orthonormal measurement basis): basis {bad} "
                         f"has max |U U^dagger - I| = {float(error[bad]):.3g} > {tol:g}")
    return outcome_probabilities(matrix, array)


def outcome_probabilities(matrix: np.ndarray, unitaries: np.ndarray) -> np.ndarray:
    """:func:`measurement_probabilities` without the checks (for inputs already validated)."""
    # diag(UρU†)_i = Σ_jk U_ij ρ_jk conj(U_ik)
    probabilities = np.sum((unitaries @ matrix) * unitaries.conj(), axis=-1).real
    probabilities = np.clip(probabilities, 0.0, None)
    return probabilities / probabilities.sum(axis=-1, keepdims=True)


def sample_counts(probabilities: Any, shots: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """Outcome counts of ``shots`` measurements per row of ``probabilities`` (multinomial, in bulk).

    ``probabilities`` is a (d,) or (size, d) real array whose rows are finite, >= 0 and sum to 1 (up to
    round-off: |Σ − 1| <= max(1e-9, 4·d·eps of their dtype)); ``shots`` an int in [0, 2**63 − 1] (0: rows
    of zero counts); ``seed`` an int in [0, 2**64) or a ``numpy.random.Generator``.

    >>> sample_counts(np.array([[1.0, 0.0], [0.0, 1.0]]), 5, seed=0).tolist()
    [[5, 0], [0, 5]]
    """
    shots = _count("shots", shots, 0)
    raw = as_array("probabilities", probabilities)
    if raw.dtype == object or raw.dtype.kind not in "iuf":  # strings parsed, complex truncated otherwise
        raise TypeError(f"probabilities must be real numbers, got dtype {raw.dtype}")
    array = raw.astype(np.float64)
    if array.ndim not in (1, 2) or array.shape[-1] < 1:
        raise ValueError(f"probabilities must have shape (d,) or (size, d), got {array.shape}")
    # round-off of the caller's precision only: allclose's default rtol 1e-5 let rows summing to 1 ± 1e-5
    # pass, and numpy's multinomial then gave the last outcome the remainder in silence
    eps = np.finfo(raw.dtype if raw.dtype.kind == "f" else np.float64).eps
    tol = max(1e-9, 4.0 * array.shape[-1] * float(eps))
    if not np.all(np.isfinite(array)) or np.any(array < 0) or \
            np.any(np.abs(array.sum(-1) - 1.0) > tol):
        raise ValueError(f"probabilities must be finite, >= 0 and sum to 1 along the last axis (to "
                         f"{tol:.2g}: round-off)")
    return _rng(seed).multinomial(shots, array)
