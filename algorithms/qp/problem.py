"""The quadratic program ``min ½xᵀPx + qᵀx  s.t.  Ax = b, Gx ≤ h`` as validated data."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from algorithms._validation import (
    _refuse_masked,
    as_float_array,
    as_float_matrix,
    as_real_array,
    check_entries_in_range,
    check_psd,
    check_shape,
    check_square_symmetric,
    negative_diagonal,
    read_only,
    refuse_bools_in_sequence,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.core import Problem
from algorithms.qp._threads import single_blas_thread

__all__ = ["QP"]


def _input_dtype(*values: Any) -> np.dtype:
    """float32 when every array-like given is float32 (the caller's precision), else float64."""
    dtypes = []
    for value in values:
        if value is None:
            continue
        if sp.issparse(value):
            dtypes.append(value.dtype)
            continue
        try:  # np.asarray, not ``.dtype``: a torch tensor's dtype is torch's, not numpy's
            dtypes.append(np.asarray(value).dtype)
        except Exception:  # not array-like (or a tensor requiring grad): the validation names it
            continue
    return np.dtype(np.float32) if dtypes and all(d == np.float32 for d in dtypes) else np.dtype(np.float64)


def _as_matrix(name: str, value: Any):
    """``as_float_matrix`` in float64; a CSC float64 matrix is copied after its check (O(nnz), far below a
    solve): the problem kept the caller's matrix, so ``P.data[:] = 100`` written after construction changed
    the solve, and a NaN written later would bypass the check."""
    if sp.issparse(value) and (value.dtype.kind not in "iuf"):
        # a complex matrix lost its imaginary part (a ComplexWarning only) and a bool one was read as 0/1,
        # as the dense route refuses both
        raise TypeError(f"{name} must hold real numbers, got a sparse matrix of dtype {value.dtype}")
    if sp.issparse(value) and value.format == "csc" and value.dtype == np.float64:
        if not np.all(np.isfinite(value.data)):
            raise ValueError(f"{name} contains NaN or inf entries")
        matrix = value.copy()
    else:
        matrix = as_float_matrix(name, value, dtype=np.float64)
    if sp.issparse(matrix):  # the dense route checks the working range; a sparse matrix's entries too
        check_entries_in_range(name, matrix.data)
    return matrix


def _is_diagonal(matrix) -> bool:
    coo = matrix.tocoo()
    return bool(np.all((coo.row == coo.col) | (coo.data == 0)))


#: up to this size a sparse P's smallest eigenvalue is computed densely (exact; beyond it a dense
#: eigvalsh cost 1 s at n = 282 on the loaded machine, where the shifted LDLᵀ takes milliseconds)
DENSE_EIG_MAX_N = 50
#: relative PSD threshold: P passes iff λ_min(DPD) ≥ −PSD_RTOL·max|DPD|, P scaled to unit diagonal
PSD_RTOL = 1e-10
#: the same for float32 data (every input float32): float32's rounding of a PSD matrix, 100·eps(float32)
PSD_RTOL_FLOAT32 = 100 * float(np.finfo(np.float32).eps)


def _unit_diagonal(P, rtol: float):
    """``D P D``, ``D = diag(1/√max(Pᵢᵢ, √rtol·max|P|))``: P scaled to unit diagonal, a congruence (the same
    inertia), so that the PSD test measures each block on its own scale. A test relative to max|P| alone took
    diag(1e12, −1) as PSD (−1 >= −1e-10·1e12), and every backend answered its stationary point x₂ = 0 of a
    box where x₂ = ±1 is the minimum (Success, value −5e-13 for −0.5). The floor √rtol·max|P| keeps diagonal
    entries at round-off level beside the largest (a −1e-17 beside 1) judged as before."""
    diagonal = np.asarray(P.diagonal(), dtype=np.float64).ravel()
    largest = float(abs(P).max()) if sp.issparse(P) else float(np.abs(P).max(initial=0.0))
    if largest == 0.0:
        return P
    d = 1.0 / np.sqrt(np.maximum(diagonal, math.sqrt(rtol) * largest))
    if sp.issparse(P):
        D = sp.diags(d)
        return (D @ P @ D).tocsc()
    return P * d[:, None] * d[None, :]


def _check_sparse_psd(P, rtol: float = PSD_RTOL) -> None:
    """Raise unless the sparse symmetric ``P`` is PSD to ``PSD_RTOL`` (relative, P scaled to unit diagonal by
    :func:`_unit_diagonal` first).

    Small P: the exact smallest eigenvalue. Larger P: the inertia of ``P + τI``, ``τ = PSD_RTOL·max|P|``
    (purely relative), from one sparse LU with symmetric ordering and diagonal pivots only (SuperLU's
    symmetric mode, ``diag_pivot_thresh = 0``: an LDLᵀ, with ``D = diag(U)``): by Sylvester's law all pivots
    are positive iff ``λ_min(P) > −τ``. One factorization, no iteration, so it cannot hang: ARPACK's
    ``eigsh(which="SA")`` ran ~7 s and raised ArpackNoConvergence on valid Maros-Meszaros P (CVXQP*_M,
    λ_min = −5e-13; issue #42). An off-diagonal pivot (none seen) falls back to ``check_psd``.
    """
    n = P.shape[0]
    P = _unit_diagonal(P, rtol)
    if n <= DENSE_EIG_MAX_N:
        _check_psd_scaled(P, rtol)
        return
    import scipy.sparse.linalg as spla

    if not P.nnz:   # P = 0: a linear program, PSD
        return
    tau = rtol * float(abs(P).max())
    shifted = (P + tau * sp.identity(n, format="csc")).tocsc()
    try:
        lu = spla.splu(shifted, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                       options={"SymmetricMode": True})
    except RuntimeError as exc:  # an exactly zero pivot: P + τI is singular, so λ_min(P) ≤ −τ
        raise ValueError(f"P must be positive semidefinite (scaled to unit diagonal, P + {tau:.3g}·I is "
                         f"singular: smallest eigenvalue ≤ {-tau:.3g})") from exc
    if not np.array_equal(lu.perm_r, lu.perm_c):  # an off-diagonal pivot: no inertia to read
        _check_psd_scaled(P, rtol)
        return
    pivots = lu.U.diagonal()
    if not (np.all(np.isfinite(pivots)) and pivots.min() > 0):
        raise ValueError(f"P must be positive semidefinite (scaled to unit diagonal, P + {tau:.3g}·I has the "
                         f"pivot {pivots.min():.3g} in its LDLᵀ: smallest eigenvalue below {-tau:.3g})")


def _check_psd_scaled(P, rtol: float) -> None:
    """check_psd of P already scaled to unit diagonal (:func:`_unit_diagonal`), its message saying so."""
    try:
        check_psd("P", P, rtol=rtol)
    except ValueError as exc:
        raise ValueError(str(exc).replace("(smallest eigenvalue", "(scaled to unit diagonal: smallest "
                                                                   "eigenvalue")) from None


#: the QP's arrays, kept read-only (:func:`_sealed`)
_SEALED_FIELDS = ("P", "q", "G", "h", "A", "b", "lb", "ub", "cholesky")


def _sealed(value: Any) -> Any:
    """``value`` (None, a vector, a dense or a CSC matrix of the QP's own) over immutable memory, as every
    other problem's arrays: a write into ``qp.P`` (or q, G, h, A, b, lb, ub) fails in the caller's statement
    with numpy's "assignment destination is read-only" instead of changing a validated QP."""
    if value is None:
        return None
    if sp.issparse(value):
        return sp.csc_matrix((read_only(value.data), read_only(value.indices), read_only(value.indptr)),
                             shape=value.shape)
    return read_only(value)


@dataclass(frozen=True, eq=False)
class QP(Problem):
    """A convex quadratic program ``min ½xᵀPx + qᵀx  s.t.  Ax = b,  Gx ≤ h,  lb ≤ x ≤ ub``.

    ``P`` (n×n, symmetric pair by pair: ``|P[i, j] − P[j, i]| <= 1e-8·max(|P[i, j]|, |P[j, i]|,
    √|P[i, i]·P[j, j]|)``, relative, else refused naming P; positive
    semidefinite: the smallest eigenvalue of ``D P D``, P scaled to unit diagonal by
    ``Dᵢᵢ = 1/√max(Pᵢᵢ, √rtol·max|P|)`` (a congruence: the same inertia), ``>= -rtol·max|DPD|`` with
    rtol = 1e-10, or 1.2e-5 when ``dtype`` is float32 (float32's rounding), and no diagonal entry below −rtol
    times the largest |entry| of its row (a diagonal P: no negative entry); relative, whatever the units of P
    or of each variable: diag(1e20, −1) is refused, as diag(1, −1) is),
    ``G`` (m×n) and ``A`` (p×n)
    may be dense arrays or scipy.sparse matrices; ``q``, ``h``, ``b`` are
    vectors. ``G``/``h`` and ``A``/``b`` come in pairs. ``lb``/``ub`` (optional, length n, ±inf
    for a free side, ``lb ≤ ub``) are variable bounds; every finite entry, dense or sparse, is in the
    working range (magnitude <= 3.4e38; Maros-Meszaros' 1e20 "infinite" bounds are inside); solvers pass
    them to the backend as bounds and differentiate them as the rows ``−x_i ≤ −lb_i`` (finite lb) and
    ``x_i ≤ ub_i`` (finite ub) appended to ``G`` in that order, a fixed variable (``lb_i = ub_i``) as the
    row ``x_i = lb_i`` appended to ``A`` (:meth:`with_box_rows`). The data are stored in
    float64 (sparse matrices as CSC); ``dtype`` records the caller's precision
    (float32 when every one given of P, q, G, h, A, b is float32, dense or sparse, numpy or torch; the
    bounds lb/ub do not count: a float64 ``lb`` keeps a float32 QP float32), and solvers return ``x`` in
    it. The stored arrays are the QP's own copies (a later edit of the caller's array changes nothing) and
    read-only, as every problem's: a write such as ``qp.P[0, 0] = 2.0`` (or into q, G, h, A, b, lb, ub, a
    sparse matrix's ``data``) fails in that statement with numpy's "assignment destination is read-only";
    build a new QP instead.

    >>> import numpy as np
    >>> qp = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-np.eye(2), h=np.zeros(2))
    >>> qp.n, qp.n_ineq, qp.n_eq
    (2, 2, 0)
    >>> QP(P=np.array([[1.0, 2.0], [0.0, 1.0]]), q=np.zeros(2))
    Traceback (most recent call last):
    ...
    ValueError: P must be symmetric (max |P - Pᵀ| = 2)
    """

    P: Any
    q: Any
    G: Any = None
    h: Any = None
    A: Any = None
    b: Any = None
    lb: Any = None
    ub: Any = None
    dtype: np.dtype = field(init=False, repr=False)
    #: lower Cholesky factor of a dense positive definite P (found by the PSD check; the dQP
    #: polish reuses it instead of factorizing P again), None otherwise
    cholesky: np.ndarray | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        dtype = _input_dtype(self.P, self.q, self.G, self.h, self.A, self.b)
        P = _as_matrix("P", self.P)
        if P.ndim != 2:
            raise ValueError(f"P must be 2-dimensional, got shape {P.shape}")
        diagonal = sp.issparse(P) and P.shape[0] == P.shape[1] and _is_diagonal(P)
        if not diagonal:  # a square diagonal matrix is symmetric
            check_square_symmetric("P", P)
        n = P.shape[0]
        if n == 0:
            raise ValueError("P must be at least 1×1, got shape (0, 0)")
        # the PSD tolerance of the caller's precision: a float32 low-rank PSD P (rounded to float32, smallest
        # eigenvalue −8.5e-8) was refused at float64's 1e-10, while its float64 twin passed
        rtol = PSD_RTOL if dtype == np.float64 else PSD_RTOL_FLOAT32
        if diagonal:  # its eigenvalues are its entries: a negative one is one (check_psd's diagonal rule)
            lam_min = float(np.asarray(P.diagonal()).min())
            if lam_min < 0:
                raise ValueError(f"P must be positive semidefinite (a diagonal P with the negative entry "
                                 f"{lam_min:.3g}, its smallest eigenvalue)")
        else:
            negative = negative_diagonal(P, rtol)  # named in P's own units (the scaled test's would not be)
            if negative is not None:
                i, value, scale = negative
                raise ValueError(f"P must be positive semidefinite (its diagonal entry P[{i}, {i}] = "
                                 f"{value:.3g} bounds its smallest eigenvalue, and is below "
                                 f"−{rtol:g}·{scale:.3g}, the largest entry of its row: not rounding)")
            if sp.issparse(P):
                _check_sparse_psd(P, rtol)
            else:
                with single_blas_thread(n, min_n=64):  # as dqp.SMALL_THREAD_N
                    self._check_dense_psd(P, n, rtol)
        q = as_float_array("q", self.q, ndim=1, dtype=np.float64)
        if q.shape != (n,):  # either may be the wrong one: both named
            raise ValueError(f"q must have shape ({n},) (P is {n}×{n}), got {q.shape}")
        G, h = self._pair("G", self.G, "h", self.h, n)
        A, b = self._pair("A", self.A, "b", self.b, n)
        lb, ub = self._bound("lb", self.lb, n, -np.inf), self._bound("ub", self.ub, n, np.inf)
        if lb is not None and ub is not None and np.any(lb > ub):
            i = int(np.argmax(lb > ub))
            # repr, not :g (which showed "lb[0] = 0.2 > ub[0] = 0.2" for a gap of 1e-7)
            raise ValueError(f"lb must be <= ub, got lb[{i}] = {float(lb[i])!r} > ub[{i}] = {float(ub[i])!r}")
        fields = (("P", P), ("q", q), ("G", G), ("h", h), ("A", A), ("b", b), ("lb", lb), ("ub", ub))
        for name, value in (*fields, ("cholesky", self.cholesky)):
            object.__setattr__(self, name, _sealed(value))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "_box_rows", None)
        remember_validated(self)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: numpy gives arrays back writeable, so they are sealed again; a field that
        is still the array validated at construction keeps its stamp (the same data: no rebuild at the first
        solve), one replaced before pickling stays unmatched and is validated again."""
        old = dict(state)
        for name in _SEALED_FIELDS:
            state[name] = _sealed(old.get(name))
        seen = state.get("_validated_fields")
        if seen is not None:
            state["_validated_fields"] = {
                name: (state[name] if name in _SEALED_FIELDS and value is old.get(name) else value, stamp)
                for name, (value, stamp) in seen.items()}
        self.__dict__.update(state)

    def _check_dense_psd(self, P: np.ndarray, n: int, rtol: float = PSD_RTOL) -> None:
        # a successful Cholesky factorization proves P ≻ 0 at a third of eigvalsh's cost (and is kept
        # for the polish); only a failure needs the smallest eigenvalue
        # LAPACK directly (scipy's wrapper costs ~20 µs, a tenth of the whole layer call at n = 100); the
        # strict upper triangle is zeroed (clean=1) as ``cholesky`` returns it
        L, info = sla.lapack.dpotrf(P, lower=1, clean=1)
        if info == 0:
            object.__setattr__(self, "cholesky", L)
        else:
            if n > DENSE_EIG_MAX_N and np.count_nonzero(P) <= 0.05 * P.size:
                _check_sparse_psd(sp.csc_matrix(P), rtol)  # a sparse P given densely: one sparse LDLᵀ
            else:
                _check_psd_scaled(_unit_diagonal(P, rtol), rtol)

    @staticmethod
    def _bound(name: str, value: Any, n: int, free: float):
        """A bound vector (NaN refused, ``free`` = ±inf allowed), or None when absent or all free."""
        if value is None:
            return None
        _refuse_masked(name, value)  # np.asarray drops the mask: a masked bound would count as data
        refuse_bools_in_sequence(name, value)  # [True, 0.0] was read as [1.0, 0.0] (a bool array is refused)
        try:
            raw = np.asarray(value)
            if raw.dtype.kind == "O":  # ints past int64 (2**64) and Fractions: numbers
                raw = as_real_array(name, value, check_range=False)
            # complex would lose its imaginary part, strings would be parsed and bools read as 0/1 (q, P and
            # the other vectors refuse bool dtype too): all refused by name
            if np.iscomplexobj(raw) or raw.dtype.kind in "USVbO":
                raise TypeError(f"dtype {raw.dtype}")
            v = raw.astype(np.float64)
        except Exception as exc:  # also what an object's raising __array__ throws (a RuntimeError)
            raise TypeError(f"{name} must be a real numeric vector, got {type(value).__name__} "
                            f"({exc})") from exc
        if v.ndim != 1 or v.shape[0] != n:
            raise ValueError(f"{name} must have shape ({n},) (P is {n}×{n}), got {v.shape}")
        if np.any(np.isnan(v)) or np.any(v == -free):
            raise ValueError(f"{name} contains NaN or {-free} entries")
        check_entries_in_range(name, v)  # ±inf is a free side; a finite 1e300 is outside the working range
        return None if np.all(v == free) else v.copy()

    @property
    def has_box(self) -> bool:
        """True when some variable bound is finite."""
        return self.lb is not None or self.ub is not None

    def fixed_indices(self) -> np.ndarray:
        """The fixed variables, ``lb_i = ub_i`` (finite)."""
        if self.lb is None or self.ub is None:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(np.isfinite(self.lb) & (self.lb == self.ub))

    def box_indices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(L, U)``: the variables with a finite lower and a finite upper bound, fixed ones excepted."""
        F = np.zeros(0 if self.lb is None else self.n, dtype=bool)
        F[self.fixed_indices()] = True
        L = np.zeros(0, dtype=int) if self.lb is None else np.flatnonzero(np.isfinite(self.lb) & ~F)
        U = np.zeros(0, dtype=int) if self.ub is None else \
            np.flatnonzero(np.isfinite(self.ub) & ~(F if F.size else np.zeros(self.n, dtype=bool)))
        return L, U

    def with_box_rows(self) -> QP:
        """This QP with its finite bounds as rows: ``[G; −I_L; I_U] x ≤ [h; −lb_L; ub_U]`` and, for the
        fixed variables F (``lb_i = ub_i``), ``[A; I_F] x = [b; lb_F]`` (two opposite bound rows would make
        every K_J holding both singular). Cached; ``self`` when there are no bounds; P not re-validated."""
        if not self.has_box:
            return self
        if self._box_rows is not None:
            return self._box_rows
        n = self.n
        L, U = self.box_indices()
        F = self.fixed_indices()
        eye = sp.identity(n, format="csr")
        sparse = self.sparse or n > 1000

        def stack(blocks):
            if not blocks:
                return None
            if sparse:
                return sp.vstack([sp.csr_matrix(B) for B in blocks]).tocsc()
            return np.vstack([B.toarray() if sp.issparse(B) else B for B in blocks])

        G = stack(([] if self.G is None else [self.G]) + [B for B in (-eye[L], eye[U]) if B.shape[0]])
        h = np.concatenate(([] if self.h is None else [self.h]) + [-self.lb[L] if L.size else np.zeros(0),
                                                                    self.ub[U] if U.size else np.zeros(0)])
        A = stack(([] if self.A is None else [self.A]) + ([eye[F]] if F.size else []))
        # lb is None for upper bounds only (then F is empty): the fixed rows' values come from lb only then
        b = np.concatenate(([] if self.b is None else [self.b]) + ([self.lb[F]] if F.size else [])) \
            if A is not None else None
        if G is None:
            h = None
        aug = object.__new__(QP)
        for name, value in (("P", self.P), ("q", self.q), ("G", G), ("h", h), ("A", A), ("b", b),
                            ("lb", None), ("ub", None), ("dtype", self.dtype), ("cholesky", self.cholesky),
                            ("_box_rows", None)):
            object.__setattr__(aug, name, _sealed(value) if name in _SEALED_FIELDS else value)
        object.__setattr__(self, "_box_rows", aug)
        return aug

    @staticmethod
    def _pair(mname: str, matrix: Any, vname: str, vector: Any, n: int):
        if matrix is None and vector is None:
            return None, None
        if matrix is None or vector is None:
            missing, given = (mname, vname) if matrix is None else (vname, mname)
            raise ValueError(f"{missing} is required when {given} is given")
        M = _as_matrix(mname, matrix)
        if M.ndim != 2:
            raise ValueError(f"{mname} must be 2-dimensional, got shape {M.shape}")
        check_shape(mname, M, (None, n))
        v = as_float_array(vname, vector, ndim=1, dtype=np.float64)
        if v.shape != (M.shape[0],):  # either may be the wrong one: both named
            raise ValueError(f"{mname} and {vname} must have one row per constraint: {mname} has "
                             f"{M.shape[0]} rows (shape {M.shape}), {vname} has shape {v.shape}")
        if M.shape[0] == 0:
            return None, None
        return M, v

    @property
    def n(self) -> int:
        """Number of variables."""
        return self.P.shape[0]

    @property
    def n_ineq(self) -> int:
        return 0 if self.G is None else self.G.shape[0]

    @property
    def n_eq(self) -> int:
        return 0 if self.A is None else self.A.shape[0]

    @property
    def sparse(self) -> bool:
        """True when any matrix was given as scipy.sparse."""
        return any(sp.issparse(m) for m in (self.P, self.G, self.A) if m is not None)

    def objective(self, x: np.ndarray) -> float:
        """``½xᵀPx + qᵀx`` at a finite ``x`` of length n, entries of magnitude <= 3.4e38 (the working range;
        beyond, refused naming x)."""
        revalidate_if_reassigned(self)  # P or q changed after construction (object.__setattr__)
        x = as_real_array("x", x)
        check_shape("x", x, (self.n,))  # numpy's matmul message named no argument (an (n, 1) x broadcast)
        if not np.all(np.isfinite(x)):
            raise ValueError("x contains NaN or inf entries")
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below, by name
            value = float(0.5 * x @ (self.P @ x) + self.q @ x)
        if not math.isfinite(value):  # entries ~1e200: xᵀPx overflowed to inf (or inf − inf = NaN)
            raise ValueError(f"x has entries too large: ½xᵀPx + qᵀx overflows float64 (max |x| = "
                             f"{float(np.abs(x).max()):.3g})")
        return value
