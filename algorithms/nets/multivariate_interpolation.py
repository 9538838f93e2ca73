"""Minimum ℓp / ℓ0 path-norm interpolation with a multivariate ReLU layer, exactly, on tiny instances.

A single-hidden-layer network ``f(x) = Σ_k v_k (w_kᵀ x̃)₊`` with ``x̃ = [x, 1]`` (the bias
is the last entry of ``w_k ∈ R^{d+1}``) interpolates data ``X ∈ R^{N×d}``, ``y ∈ R^N``.
Its ℓp path norm is ``Σ_k ‖v_k w_k‖_p^p = Σ_k Σ_i |v_k w_{k,i}|^p`` (``0 < p < 1``) and its
ℓ0 path norm counts the nonzero input weight/bias parameters of the active neurons.

On the data only the *activation pattern* ``D = diag(1[X̃ u ≥ 0])`` of a neuron matters.
Merging neurons with one pattern and one output sign (which never raises either path
norm), the problem becomes the finite-dimensional program

    min Σ_j ‖ν_j‖_p^p + ‖ω_j‖_p^p   s.t.  Σ_j D_j X̃ (ν_j − ω_j) = y,  (2D_j − I) X̃ ν_j ≥ 0,
                                          (2D_j − I) X̃ ω_j ≥ 0,

over the patterns ``D_1 … D_J`` (Nakhleh & Nowak, Lemma 4.1; ``ν_j`` is the neuron
``v = 1, w = ν_j``, ``ω_j`` the neuron ``v = −1, w = ω_j``). Call one (pattern, sign)
pair a *piece* and ``z`` the stacked piece vectors. ``‖z‖_p^p`` is strictly concave on
each orthant, so (proof of Theorem 4.1) every minimizer is a *basic* point: with
``S = supp(z)`` and ``I`` the active cone rows, ``[A; G_I]`` restricted to ``S`` has full
column rank. Basic points do not depend on ``p``; :func:`basic_points` enumerates all of
them that use at most ``max_pieces`` pieces (a vertex of the feasible set in each orthant:
the equality rows plus ``n − rank A`` active cone or zero-coordinate rows determine it),
and :class:`PatternEnumeration` minimizes ``‖z‖_p^p`` (or ``‖z‖_0`` for ``p = 0``) over them.
Exponential in everything: meant for ``N ≤ 3`` points in ``d ≤ 2`` dimensions.

References
----------
J. Nakhleh, R. D. Nowak. *Global minimizers of ℓ^p-regularized objectives yield the
sparsest ReLU neural networks.* NeurIPS 2025, arXiv:2505.21791, Section 4 (Lemma 4.1,
Proposition 4.1, Theorem 4.1). The pattern program follows Pilanci & Ergen (ICML 2020).

>>> from algorithms import solve
>>> prob = MultivariateInterpolationProblem(X=[[0.0, 1.0], [1.0, 0.0]], y=[1.0, 2.0], p=0.5)
>>> sol = solve(prob, PatternEnumeration())
>>> sol.retcode, network_l0(sol.original["W"])       # one neuron w = (2, 1, 0)·: x̃ ↦ 2x₁ + x₂
(<RetCode.Success: 'Success'>, 2)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from algorithms._validation import (
    WORKING_MAX,
    as_float_array,
    check_int_at_least,
    check_nonnegative,
    check_positive_int,
    checked_fields,
    reseal_state,
    revalidate_if_reassigned,
    seal_arrays,
    store_plain_scalars,
)
from algorithms.core import Algorithm, IterationMonitor, Problem, RetCode, Solution, SolveOptions, _dispatch

__all__ = [
    "MultivariateInterpolationProblem",
    "PatternEnumeration",
    "activation_patterns",
    "basic_points",
    "network_from_pieces",
    "network_l0",
    "network_lp",
    "pattern_program",
]

#: exponential enumeration: refuse instances beyond this many points
MAX_POINTS = 6
#: and beyond this many input dimensions (the pattern program holds 2^N·N·(d+1) entries twice and its
#: LPs have d + 1 unknowns; the enumeration itself refuses d past ~90 by its work bound below)
MAX_DIM = 1000

#: the most work one :func:`basic_points` run may take, in units of one linear-system entry (a selection
#: of ``k`` pieces solves up to ``C`` systems of ``n = k(d+1)`` unknowns: ``C·n²`` units, plus
#: :data:`SELECTION_OVERHEAD` per selection). About 2·10^7 units run per second on one laptop core, so
#: the cap is ~25 s; three points in 2-D (the default ``max_pieces``) take ~10^8, the four-point XOR in
#: 2-D with ``max_pieces=3`` ~2·10^9 (minutes), which is refused unless ``maxiters``/``budget`` bounds it
MAX_WORK = 5 * 10**8
#: the work units one piece selection costs beside its systems (rank tests, the row-count loop)
SELECTION_OVERHEAD = 2000
#: the most matrix entries one selection's batch of systems may hold (2**25 float64: 256 MiB per copy)
MAX_BATCH_ENTRIES = 2**25


#: the largest |entry| of X the enumeration's LPs (HiGHS, feasibility tolerance ~1e-7) resolve: points
#: scaled by 1e50 gave Infeasible for data a network interpolates
MAX_ABS_X = 1e12
#: the smallest distance (max-norm) between two rows of X: ``MIN_SEPARATION`` · max|X| and at least
#: ``MIN_GAP``. Rows 1e-12 apart, or 1e-3 apart at 1e4 (relative 1e-7), were merged by the LP tolerances and
#: an interpolable problem reported Infeasible; relative 1e-6 and 1e-9 apart near 0 were solved
MIN_SEPARATION = 1e-6
MIN_GAP = 1e-9
#: the largest max|y| / (smallest row distance) taken: past it the interpolating slopes leave the working
#: range (y = 1e300 on rows 1e-9 apart came out Infeasible; #43 round 12: y = 3e38 there failed naming the
#: computed slopes "U")
MAX_SLOPE_SCALE = WORKING_MAX / 4


def _check_X(X, dtype=np.float64) -> np.ndarray:
    X = as_float_array("X", X, ndim=2, dtype=dtype)
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must have shape (N, d) with N, d >= 1, got {X.shape}")
    if X.shape[0] > MAX_POINTS:
        raise ValueError(f"X has {X.shape[0]} points; the exact enumeration allows at most {MAX_POINTS}")
    top = float(np.max(np.abs(X)))
    if top > MAX_ABS_X:
        raise ValueError(f"X must have entries of magnitude <= {MAX_ABS_X:g} (the enumeration's LPs lose the "
                         f"activation patterns beyond it), got max |X| = {top:.3g}; rescale X")
    if X.shape[0] > 1:
        gaps = np.max(np.abs(X[:, None, :] - X[None, :, :]), axis=2)[np.triu_indices(X.shape[0], 1)]
        gaps = gaps[gaps > 0]       # exact repeats are the problem's to name
        floor = max(MIN_GAP, MIN_SEPARATION * top)
        if gaps.size and float(gaps.min()) < floor:
            raise ValueError(f"X has two distinct rows {float(gaps.min()):.3g} apart (max-norm), below "
                             f"{floor:.3g} = max({MIN_GAP:g}, {MIN_SEPARATION:g}·max|X|): the enumeration's "
                             f"tolerances cannot tell them apart (an interpolable problem came out "
                             f"Infeasible); rescale or center X, or merge the rows")
    if X.shape[1] > MAX_DIM:
        raise ValueError(f"X has {X.shape[1]} columns (dimensions); the exact enumeration allows at most "
                         f"{MAX_DIM}")
    return X


def _augment(X: np.ndarray) -> np.ndarray:
    return np.hstack([X, np.ones((X.shape[0], 1))])


def activation_patterns(X) -> np.ndarray:
    """Every pattern ``1[X̃ u ≥ 0]`` (u ∈ R^{d+1}) that is active on some point, as rows of a bool array.

    Pattern ``S`` is realizable iff some ``u`` has ``x̃_iᵀu ≥ 0`` on ``S`` and ``x̃_iᵀu ≤ -1``
    off it (scale any strict solution); one feasibility LP (HiGHS) per subset. The
    empty pattern is left out: a neuron with it is zero on the data.

    >>> activation_patterns([[0.0], [1.0]]).astype(int).tolist()
    [[0, 1], [1, 0], [1, 1]]
    """
    Xa = _augment(_check_X(X))
    n, m = Xa.shape
    found = []
    for bits in itertools.product([0, 1], repeat=n):
        if not any(bits):
            continue
        on = np.array(bits, dtype=bool)
        # x̃ᵀu >= 0 on the pattern  <=>  -x̃ᵀu <= 0;  x̃ᵀu <= -1 off it
        A_ub = np.where(on[:, None], -Xa, Xa)
        b_ub = np.where(on, 0.0, -1.0)
        res = linprog(np.zeros(m), A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * m, method="highs")
        if res.status == 0:
            found.append(on)
    return np.array(found, dtype=bool).reshape(-1, n)


@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class MultivariateInterpolationProblem(Problem):
    """Interpolate ``y`` at the rows of ``X`` (N × d) with a ReLU layer of least ℓp path norm.

    ``p = 0`` asks for the fewest nonzero input weight/bias parameters (problem (9) of the
    paper), ``0 < p < 1`` for the least ``Σ_k ‖v_k w_k‖_p^p`` (problem (8)); ``p >= 1`` is
    outside the paper's range. At most :data:`MAX_POINTS` points and :data:`MAX_DIM` dimensions (the
    enumeration's own work bound refuses d past ~90, see :func:`basic_points`); rows of ``X`` distinct and
    resolvable by the enumeration's LPs: entries of magnitude at most :data:`MAX_ABS_X` (1e12), rows at
    least max(1e-9, 1e-6·max|X|) apart (max-norm; :data:`MIN_GAP`, :data:`MIN_SEPARATION`), and
    max|y| / (smallest row distance) · max(1, max|X|) at most 8.5e37 (:data:`MAX_SLOPE_SCALE`: the pieces'
    slopes and intercepts stay inside the working range); others are refused naming X or y.

    >>> MultivariateInterpolationProblem(X=[[0.0, 1.0]], y=[1.0, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: y must have one entry per row of X: X has 1 rows, y has 2 entries
    """

    X: np.ndarray
    y: np.ndarray
    p: float = 0.5

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (numpy gives them back writable)."""
        reseal_state(self, state)

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        X = _check_X(self.X, dtype=None)
        y = as_float_array("y", self.y, ndim=1)
        if y.size != X.shape[0]:
            raise ValueError(f"y must have one entry per row of X: X has {X.shape[0]} rows, y has {y.size} "
                             "entries")
        if np.unique(X, axis=0).shape[0] != X.shape[0]:
            raise ValueError("X must have distinct rows (a repeated input cannot take two labels)")
        if X.shape[0] > 1:
            gap = float(np.min(np.max(np.abs(X[:, None, :] - X[None, :, :]), axis=2)[
                np.triu_indices(X.shape[0], 1)]))
            # the pieces' slopes reach max|y| / gap and their intercepts that times max|X|
            reach = max(1.0, float(np.max(np.abs(X))))
            with np.errstate(over="ignore"):
                scale = float(np.max(np.abs(y))) / gap * reach
            if scale > MAX_SLOPE_SCALE:
                raise ValueError(f"y is too large for X's spacing: max|y| / (smallest row distance "
                                 f"{gap:.3g}) · max(1, max|X|) = {scale:.3g} > {MAX_SLOPE_SCALE:.4g} (the "
                                 f"interpolating slopes or intercepts leave the working range); rescale y")
        p = check_nonnegative("p", self.p)
        if p >= 1:
            raise ValueError(f"p must satisfy 0 <= p < 1, got {p!r}")
        dtype = np.float32 if (X.dtype == np.float32 and y.dtype == np.float32) else np.float64
        object.__setattr__(self, "X", X.astype(dtype))
        object.__setattr__(self, "y", y.astype(dtype))
        object.__setattr__(self, "p", p)
        seal_arrays(self)  # README: a problem's arrays are read-only, in immutable memory

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def dtype(self):
        return self.X.dtype


def _check_problem(problem) -> MultivariateInterpolationProblem:
    if not isinstance(problem, MultivariateInterpolationProblem):
        raise TypeError(f"problem must be a MultivariateInterpolationProblem, got {type(problem).__name__}")
    return problem


def pattern_program(problem: MultivariateInterpolationProblem) -> dict[str, np.ndarray]:
    """The pieces of the pattern program: ``patterns`` (P, N) bool, ``signs`` (P,), ``out`` (P, N, d+1)
    with ``out[q] = σ_q D_q X̃`` (the piece's output map), ``cone`` (P, N, d+1) with
    ``cone[q] = (2D_q − I) X̃`` (``cone[q] @ u >= 0``: u has pattern q).

    >>> prog = pattern_program(MultivariateInterpolationProblem(X=[[0.0], [1.0]], y=[1.0, 1.0]))
    >>> prog["signs"].tolist(), prog["out"].shape
    ([1.0, -1.0, 1.0, -1.0, 1.0, -1.0], (6, 2, 2))
    """
    problem = _check_problem(problem)
    # one LP per subset of the points (2^N): computed once per problem (the enumeration and every
    # network_from_pieces call ask for it) and kept on it with the X it was computed from
    cached = problem.__dict__.get("_pattern_program")
    if cached is None or not np.array_equal(cached[0], problem.X):
        X = problem.X.astype(np.float64)
        Xa = _augment(X)
        patterns = activation_patterns(X)
        pats = np.repeat(patterns, 2, axis=0)
        signs = np.tile([1.0, -1.0], patterns.shape[0])
        D = pats.astype(np.float64)
        out = signs[:, None, None] * D[:, :, None] * Xa[None]
        cone = (2 * D - 1)[:, :, None] * Xa[None]
        cached = (problem.X.copy(), {"patterns": pats, "signs": signs, "out": out, "cone": cone})
        object.__setattr__(problem, "_pattern_program", cached)
    return {name: array.copy() for name, array in cached[1].items()}  # the caller's to change


def _column_scales(A: np.ndarray, G: np.ndarray) -> np.ndarray:
    """Largest magnitude of each column of the equality and cone rows (1 for an all-zero column)."""
    col = np.max(np.abs(np.vstack([A, G])), axis=0)
    col[col == 0] = 1.0
    return col


def _vertices_of_selection(out: np.ndarray, cone: np.ndarray, y: np.ndarray, tol: float) -> np.ndarray:
    """Basic points using exactly the selected pieces (all of them nonzero): (count, k, d+1)."""
    k, N, m = out.shape
    n = k * m
    A = np.concatenate(list(out), axis=1)  # (N, n): Σ_q out[q] u_q
    r = np.linalg.matrix_rank(A)
    G = np.zeros((k * N, n))
    for q in range(k):
        G[q * N:(q + 1) * N, q * m:(q + 1) * m] = cone[q]
    rows = np.vstack([G, np.eye(n)])  # cone rows (>= 0 when inactive) and coordinate rows
    need = n - r
    # Each active row touches one piece. A piece given m of its rows is pinned to 0 (they are homogeneous
    # and, if independent, span R^m), so a point with every piece nonzero takes at most m - 1 rows per
    # piece; hence k <= r <= N pieces (the counting behind Proposition 4.1) and far fewer subsets to try.
    block_rows = [np.concatenate([np.arange(q * N, (q + 1) * N), k * N + np.arange(q * m, (q + 1) * m)])
                  for q in range(k)]
    subsets = []
    for counts in itertools.product(range(m), repeat=k):
        if sum(counts) != need:
            continue
        per_block = [list(itertools.combinations(block_rows[q], c)) for q, c in enumerate(counts)]
        subsets.extend(sum(choice, ()) for choice in itertools.product(*per_block))
    if not subsets:
        return np.zeros((0, k, m))
    subsets = np.array(subsets, dtype=int).reshape(len(subsets), need)
    M = np.concatenate([np.broadcast_to(A, (subsets.shape[0], N, n)), rows[subsets]], axis=1)
    rhs = np.concatenate([y, np.zeros(need)])
    # Units: X -> sX multiplies the weight columns of A and G by s and maps basic points to basic points
    # (u_w -> u_w / s), so the singularity and rank tests run on equilibrated columns (each scaled to
    # largest entry 1) and, for the determinant, unit rows (|det| <= 1 by Hadamard's inequality): an
    # absolute determinant threshold dropped basic points of inputs of size 1e-3.
    col = _column_scales(A, G)
    Ms = M / col
    if M.shape[1] == n:  # A has full row rank: square systems, solved where the determinant is not ~0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            det = np.abs(np.linalg.det(Ms / np.linalg.norm(Ms, axis=2, keepdims=True)))
        M, Ms, subsets = M[det > 1e-12], Ms[det > 1e-12], subsets[det > 1e-12]
        z = np.linalg.solve(Ms, np.broadcast_to(rhs, (M.shape[0], n))[..., None])[..., 0] / col
    else:
        z = (np.linalg.pinv(Ms) @ rhs[:, None])[..., 0] / col
    ok = np.max(np.abs((M @ z[..., None])[..., 0] - rhs), axis=1) <= tol
    ok &= np.min(z @ G.T, axis=1) >= -tol
    if np.any(ok):  # the survivors must be determined by their rows (full column rank)
        ok[ok] = np.linalg.matrix_rank(Ms[ok]) == n
    z = z[ok]
    z[np.abs(z) * col <= tol] = 0.0  # an entry whose largest contribution to the outputs is below tol
    z = z.reshape(-1, k, m)
    z = z[np.all(np.any(z != 0, axis=2), axis=1)]  # a zero piece: the point belongs to a smaller selection
    # one copy of each point (found from several row sets), in the order of its rounded key (entries in
    # output units, relative to the largest |y| = 1e9·tol); the point itself is returned unrounded
    keys = np.round(z.reshape(len(z), n) * col / (1e9 * tol), 12)
    _, first = np.unique(keys, axis=0, return_index=True)
    return z[first]


def _selection_cost(N: int, m: int, k: int) -> tuple[int, int]:
    """(work units, batch entries) of the costliest ``k``-piece selection in :func:`_vertices_of_selection`
    on ``N`` points with ``m = d + 1``: ``need = k·m − r`` rows are chosen, at most ``m − 1`` from each
    piece's ``N + m`` rows, for the rank ``r`` (1..min(N, k·m)) of the equality rows that gives the most
    row sets; each is a system of ``N + need`` rows and ``n = k·m`` unknowns (exact counts, Python ints)."""
    n, rows = k * m, N + m
    top = max(n - 1, 0)
    block = [math.comb(rows, c) for c in range(min(m, top + 1))]
    poly = [1]   # coefficient c of (Σ_c C(rows, c) x^c)^k: the row sets taking c rows in all
    for _ in range(k):
        new = [0] * min(len(poly) + len(block) - 1, top + 1)
        for i, a in enumerate(poly):
            for j, b in enumerate(block[:len(new) - i]):
                new[i + j] += a * b
        poly = new
    work, entries = 0, 0
    for r in range(1, min(N, n) + 1):
        need = n - r
        count = poly[need] if need < len(poly) else 0
        work, entries = max(work, count * n * n), max(entries, count * (N + need) * n)
    return work, entries


def _check_enumeration_size(N: int, d: int, max_pieces: int, n_pieces: int | None,
                            budget: int | None) -> None:
    """Refuse an enumeration past :data:`MAX_WORK` (or one selection past :data:`MAX_BATCH_ENTRIES`) before
    it starts, naming ``X``'s shape, ``max_pieces`` and the budget. ``n_pieces`` None: level 1 only (its
    cost grows like d^(2N+4), so a huge d is refused before any LP runs)."""
    m = d + 1
    top = 1 if n_pieces is None else min(max_pieces, n_pieces, N + 1)
    if n_pieces is None and m > 512:       # level 1 alone: C(N + m, m − 1)·m² > 2^35 entries
        raise ValueError(f"X has shape ({N}, {d}): the exact enumeration solves C(N + d + 1, d) systems of "
                         f"d + 1 unknowns per piece, past its limit of {MAX_BATCH_ENTRIES} entries; it is "
                         f"meant for d <= 2 (PatternEnumeration cannot take d = {d})")
    total, left = 0, budget
    for k in range(1, top + 1):
        if left is not None and left <= 0:
            break       # the budget is spent before this level: its selections are never tried
        work, entries = _selection_cost(N, m, k)
        if entries > MAX_BATCH_ENTRIES:
            raise ValueError(f"X has shape ({N}, {d}): one selection of {k} pieces solves systems of "
                             f"{entries:.3g} entries in all, past the limit of {MAX_BATCH_ENTRIES} (memory); "
                             f"pass max_pieces <= {k - 1} (or a budget, solve's maxiters, spent before "
                             f"this level)" if k > 1 else
                             f"X has shape ({N}, {d}): one piece solves systems of {entries:.3g} entries in "
                             f"all, past the limit of {MAX_BATCH_ENTRIES} (memory); the exact enumeration is "
                             f"meant for d <= 2")
        if n_pieces is None:
            return
        selections = math.comb(n_pieces, k) if left is None else min(left, math.comb(n_pieces, k))
        total += selections * (work + SELECTION_OVERHEAD)
        if left is not None:
            left -= selections
    if total > MAX_WORK:
        raise ValueError(f"X of shape ({N}, {d}) with max_pieces={max_pieces} and budget={budget} (solve's "
                         f"maxiters) asks for about {total:.2g} units of work ({n_pieces} pieces, selections "
                         f"of up to {top}), past the exact enumeration's limit of {MAX_WORK:.2g} (~25 s on "
                         f"a laptop core; the XOR in 2-D with max_pieces=3 is ~2e9): pass a smaller "
                         f"max_pieces, or a budget (maxiters) of piece selections, to bound the run")


def basic_points(problem: MultivariateInterpolationProblem, max_pieces: int | None = None,
                 *, budget: int | None = None) -> tuple[list[tuple[tuple[int, ...], np.ndarray]], bool]:
    """All basic points of the pattern program with at most ``max_pieces`` nonzero pieces (default N).

    Returns ``(points, complete)``: ``points`` is a list of ``(pieces, U)`` with ``pieces``
    the indices into :func:`pattern_program` and ``U`` (k, d+1) their vectors, ``complete``
    whether every selection was tried within ``budget`` selections (default unlimited).
    A basic point has at most ``rank A <= N`` nonzero pieces (see ``_vertices_of_selection``),
    so ``max_pieces > N`` finds nothing more; a check can run it to see that (level N + 1 is tried,
    the levels above it are skipped).

    Size limit: the work of the run (the linear systems of every selection it will try under
    ``max_pieces`` and ``budget``) is counted before it starts; past :data:`MAX_WORK` (~25 s on a
    laptop core), or with one selection's systems past :data:`MAX_BATCH_ENTRIES` entries (memory),
    a ``ValueError`` names ``X``'s shape, ``max_pieces`` and ``budget``. Three points in 2-D run in
    full; the four-point XOR in 2-D from ``max_pieces=3``, three points in 3-D at the default, six
    points in 1-D at the default, or one point with d >= 100 are refused (pass a smaller
    ``max_pieces`` or a ``budget``).

    >>> prob = MultivariateInterpolationProblem(X=[[0.0], [1.0]], y=[1.0, 1.0])
    >>> points, complete = basic_points(prob)
    >>> complete, min(int(np.count_nonzero(U)) for _, U in points)   # the constant 1 = (0·x + 1)₊
    (True, 1)
    """
    problem = _check_problem(problem)
    max_pieces = problem.n if max_pieces is None else check_positive_int("max_pieces", max_pieces)
    budget = None if budget is None else check_int_at_least("budget", budget, 0, size=False)
    N, d = problem.X.shape
    _check_enumeration_size(N, d, max_pieces, None, budget)   # a huge d, before the 2^N LPs
    prog = pattern_program(problem)
    _check_enumeration_size(N, d, max_pieces, int(prog["signs"].size), budget)
    y = problem.y.astype(np.float64)
    # in output units, relative to the largest |y| (no absolute floor: the enumeration must not depend
    # on the units of X or y): exact small solves leave ~1e-15·cond; infeasible points miss by O(|y|)
    tol = 1e-9 * max(float(np.max(np.abs(y))), np.finfo(np.float64).tiny)
    points = []
    tried = 0
    # a basic point has k <= rank A <= N pieces (the counting in _vertices_of_selection), so every level
    # above N is empty: the N + 1 level is still tried (it shows that emptiness, and a cap of N + 1 asks
    # for it), the levels above it are not, so a huge cap (10**30) neither hangs nor changes the answer
    for k in range(1, min(max_pieces, prog["signs"].size, problem.n + 1) + 1):
        for sel in itertools.combinations(range(prog["signs"].size), k):
            if budget is not None and tried >= budget:
                return points, False
            tried += 1
            idx = list(sel)
            for U in _vertices_of_selection(prog["out"][idx], prog["cone"][idx], y, tol):
                points.append((sel, U))
    return points, True


def network_from_pieces(problem: MultivariateInterpolationProblem, pieces, U) -> dict[str, np.ndarray]:
    """The network of Lemma 4.1's reconstruction: neuron ``w = U[i]``, ``v = σ`` of piece ``pieces[i]``.

    >>> prob = MultivariateInterpolationProblem(X=[[0.0], [1.0]], y=[1.0, 1.0])
    >>> network_from_pieces(prob, (4,), np.array([[0.0, 1.0]]))["v"].tolist()
    [1.0]
    """
    problem = _check_problem(problem)
    prog = pattern_program(problem)
    U = as_float_array("U", U, ndim=2, dtype=np.float64)
    if isinstance(pieces, str | bytes) or not isinstance(pieces, list | tuple | np.ndarray) \
            or np.ndim(pieces) != 1:     # a 0-d array failed in iteration, naming nothing
        raise TypeError(f"pieces must be a sequence of piece indices (ints), got {type(pieces).__name__}")
    if not all(isinstance(q, int | np.integer) and not isinstance(q, bool | np.bool_) for q in pieces):
        raise TypeError(f"pieces must be a sequence of piece indices (ints), got {list(pieces)!r:.80}")
    pieces = [int(q) for q in pieces]
    if len(pieces) != U.shape[0] or U.shape[1] != problem.X.shape[1] + 1:
        raise ValueError(f"U must have shape ({len(pieces)}, {problem.X.shape[1] + 1}) for the given pieces, "
                         f"got {U.shape}")
    if any(q < 0 or q >= prog["signs"].size for q in pieces):
        raise ValueError(f"pieces must index the {prog['signs'].size} pieces of the pattern program, "
                         f"got {pieces}")
    return {"W": U.copy(), "v": prog["signs"][pieces].copy()}


def network_lp(W, v, p: float) -> float:
    """ℓp path norm ``Σ_k Σ_i |v_k W_{k,i}|^p`` (``p = 0``: nonzero count), ``0 <= p < 1``.

    >>> network_lp([[1.0, 4.0]], [1.0], 0.5)
    3.0
    """
    W = as_float_array("W", W, ndim=2, dtype=np.float64)
    v = as_float_array("v", v, ndim=1, dtype=np.float64)
    if v.size != W.shape[0]:
        raise ValueError(f"v must have one entry per row of W, got {v.size} and {W.shape[0]} rows")
    p = check_nonnegative("p", p)
    if p >= 1:
        raise ValueError(f"p must satisfy 0 <= p < 1, got {p!r}")
    # |v W|^p as |v|^p |W|^p and the ℓ0 count from the factors: the product v·W overflowed to inf
    # (v = 1e308) or underflowed to 0 (v = W = 1e-200, a nonzero parameter not counted)
    if p == 0:
        return float(np.count_nonzero((v[:, None] != 0) & (W != 0)))
    return float(np.sum(np.abs(v[:, None]) ** p * np.abs(W) ** p))  # 0 ** p = 0 for p > 0


def network_l0(W, v=None) -> int:
    """ℓ0 path norm: nonzero input weight/bias parameters of the active neurons (``v`` default all ones).

    >>> network_l0([[1.0, 0.0], [0.0, 2.0]], [1.0, 0.0])
    1
    """
    W = as_float_array("W", W, ndim=2, dtype=np.float64)
    v = np.ones(W.shape[0]) if v is None else as_float_array("v", v, ndim=1, dtype=np.float64)
    if v.size != W.shape[0]:
        raise ValueError(f"v must have one entry per row of W, got {v.size} and {W.shape[0]} rows")
    return int(np.count_nonzero((v[:, None] != 0) & (W != 0)))   # not v·W: 1e-200·1e-200 underflows to 0


def _piece_cost(U: np.ndarray, p: float) -> float:
    u = np.abs(U[U != 0])
    return float(u.size) if p == 0 else float(np.sum(u**p))


#: a network interpolates a point when |f(x_i) − y_i| <= _FIT_RTOL·|y_i| + _FIT_ROUNDING·(the terms of f(x_i))
_FIT_RTOL = 1e-9
_FIT_ROUNDING = 1e4 * float(np.finfo(np.float64).eps)


def _interpolates(problem: MultivariateInterpolationProblem, pieces: tuple[int, ...], U: np.ndarray) -> bool:
    """Whether the network of ``pieces``/``U`` fits every point on that point's own scale: |f(x_i) − y_i| <=
    1e-9·|y_i| + 1e4·eps·Σ_k |v_k|·(|w_k|·|x̃_i|), the sum over the neurons active or at their kink there (the
    rounding that terms of that size leave in f(x_i))."""
    Xa = _augment(problem.X.astype(np.float64))
    v = pattern_program(problem)["signs"][list(pieces)]
    pre = U @ Xa.T                                  # (k, N) preactivations
    size = np.abs(U) @ np.abs(Xa).T                 # their terms' magnitudes
    near = pre >= -_FIT_ROUNDING * size             # active, or at the kink up to rounding
    out = v @ np.maximum(pre, 0.0)
    terms = np.abs(v) @ (size * near)
    y = problem.y.astype(np.float64)
    return bool(np.all(np.abs(out - y) <= _FIT_RTOL * np.abs(y) + _FIT_ROUNDING * terms))


@dataclass(frozen=True)
class PatternEnumeration(Algorithm):
    """Exact minimum ℓp (or ℓ0) path-norm interpolant over the basic points of the pattern program.

    Enumerates :func:`basic_points` with at most ``max_pieces`` pieces (an int >= 1, or None: N, the
    bound of Proposition 4.1) and returns the one of least ``‖z‖_p^p`` (``p = 0``: fewest
    nonzeros, ties broken by ``‖z‖_{1/2}^{1/2}`` then enumeration order). ``maxiters``
    caps the piece selections tried (``MaxIters`` when it bites, with the best point so
    far, or an empty network if none). Each basic point is accepted only when its network interpolates
    every point on that point's own scale, |f(x_i) − y_i| <= 1e-9·|y_i| + 1e4·eps·Σ_k |v_k|·|w_k|·|x̃_i|: the
    enumeration's own tolerance is relative to max|y|, so with labels spanning more than ~1e9 (2 beside
    1e10) its points may drop the small ones; a run whose points all fail this check ends ``Failure`` with
    an empty network (``Infeasible`` only when no basic point exists at all). ``Solution.x`` is the
    flattened input weights ``W`` (K × (d+1)); ``original`` holds ``W``, ``v`` (the output signs), ``pieces``,
    the number of accepted basic points and each of them (``points``).

    Cost: exponential in N and d (every selection of up to ``max_pieces`` of the pattern program's
    pieces, each with its own linear systems). Three points in 2-D take a few seconds. A run whose
    counted work is past :data:`MAX_WORK` (~25 s on a laptop core) is refused before it starts with
    a ``ValueError`` naming ``X``'s shape, ``max_pieces`` and ``maxiters`` (see :func:`basic_points`):
    the four-point XOR in 2-D (26 pieces) from ``max_pieces=3``, three points in 3-D or six in 1-D at
    the default ``max_pieces``. Pass ``maxiters`` (selections) to bound such a run, which then ends
    ``MaxIters`` with the best network found so far, or a smaller ``max_pieces``.

    References: Nakhleh & Nowak, NeurIPS 2025 (arXiv:2505.21791), Lemma 4.1, Theorem 4.1.

    >>> from algorithms import solve
    >>> X = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    >>> prob = MultivariateInterpolationProblem(X=X, y=[0.0, 1.0, 1.0], p=0)
    >>> sol = solve(prob, PatternEnumeration())
    >>> sol.value                     # x₁ + x₂ is one neuron with two nonzero weights
    2.0

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    max_pieces: int | None = None

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        if self.max_pieces is not None:
            check_positive_int("max_pieces", self.max_pieces)


@_dispatch
def _solve(problem: MultivariateInterpolationProblem, algorithm: PatternEnumeration, options: SolveOptions
           ) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    budget = options.maxiters
    monitor = IterationMonitor(options, total=1, desc="pattern enumeration")
    points, complete = basic_points(problem, algorithm.max_pieces, budget=budget)
    found = len(points)
    # each point on its own scale: the enumeration's tolerance is relative to max|y|, so beside a label of
    # 1e10 a label of 2 fell below it and a network fitting only the large one was Success
    points = [(pieces, U) for pieces, U in points if _interpolates(problem, pieces, U)]
    p = problem.p
    m = problem.X.shape[1] + 1
    best = None
    for pieces, U in points:
        key = (_piece_cost(U, p), _piece_cost(U, 0.5))
        if best is None or key < best[0]:
            best = (key, pieces, U)
    # one record for the whole enumeration, after it: a True returned for it changes nothing (core's
    # callback contract; the enumeration is bounded by maxiters instead)
    monitor.record(basic_points=len(points), complete=complete,
                          best=float("nan") if best is None else best[0][0])
    monitor.close()
    if best is None:
        W, v, pieces, value = np.zeros((0, m)), np.zeros(0), (), float("inf")
        # no basic point at all is proven (Infeasible); points that fail the per-point check prove nothing
        retcode = RetCode.MaxIters if not complete else RetCode.Infeasible if found == 0 else RetCode.Failure
    else:
        net = network_from_pieces(problem, best[1], best[2])
        W, v, pieces, value = net["W"], net["v"], best[1], best[0][0]
        retcode = RetCode.Success if complete else RetCode.MaxIters
    sol = Solution(W.ravel().astype(problem.dtype), value, retcode, trace=monitor.trace,
                   original={"W": W, "v": v, "pieces": pieces, "num_points": len(points), "points": points})
    sol.stats.iterations = len(points)
    return sol
