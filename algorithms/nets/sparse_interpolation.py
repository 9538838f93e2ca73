"""Sparsest univariate ReLU interpolation: the ℓp path norm, its function-space form V_p, exact solvers.

A univariate single-hidden-layer ReLU network with a linear skip term,

    f_θ(x) = Σ_k v_k (w_k x + b_k)₊ + a x + c,

is a continuous piecewise-linear (CPWL) function. Neuron k with ``w_k ≠ 0``
puts a knot at ``t_k = -b_k / w_k`` where the slope of ``f`` jumps by
``v_k |w_k|``. Its ℓp *path norm* is ``Σ_k |v_k w_k|^p``. The function-space
counterpart is

    V_p(f) = Σ_j |c_j|^p   (0 < p ≤ 1),     V_0(f) = number of knots,

over the *distinct* knots of ``f`` with slope changes ``c_j`` (neurons sharing a
knot are merged first). For ``0 < p < 1`` merging same-knot neurons can only
lower the sum (``|a + b|^p ≤ |a|^p + |b|^p``), so ``path_norm ≥ V_p(f_θ)`` with
equality when the knots are distinct; minimizing the path norm over networks
that interpolate data is the same as minimizing ``V_p`` over CPWL interpolants
(Nakhleh & Nowak, Prop. 3.1).

The exact solvers rest on one identity. For data ``x_1 < … < x_N`` and a knot
``t`` in the gap ``[x_j, x_{j+1}]``, the feature ``(x_i - t)₊`` restricted to the
data is the convex combination ``λ (x_i - x_j)₊ + (1 - λ)(x_i - x_{j+1})₊`` with
``λ = (x_{j+1} - t)/(x_{j+1} - x_j)``. So an interpolant is determined, on the data,
by how its slope changes are *distributed* onto the interior data points, and
that distribution must reproduce the discrete curvatures
``Δ_i = s_i - s_{i-1}`` (``s_i`` the chord slopes) of the linear-spline
interpolant. For ``0 < p < 1`` a concavity argument (see
``paper_notes/sparse_relu.md``) shows every V_p minimizer uses each ``Δ_i``
whole, either as a knot at ``x_i`` or merged with a same-sign neighbour
``Δ_{i+1}`` into one knot inside ``(x_i, x_{i+1})``, where the extended chords
``s_{i-1}`` and ``s_{i+1}`` cross. Minimizing is then a weighted matching on a
path, solved by dynamic programming in ``O(N)``
(:class:`SparsestInterpolantDP`); :class:`BruteForceVp` enumerates knot subsets
instead; :func:`min_knots_slope_dp` counts the fewest knots by a second,
independent dynamic program over slope states.

References
----------
J. Nakhleh, R. D. Nowak. *Global minimizers of ℓ^p-regularized objectives yield
the sparsest ReLU neural networks.* NeurIPS 2025, arXiv:2505.21791, Section 3.

>>> prob = InterpolationProblem(x=[0, 1, 2, 3], y=[0, 0, 1, 3], p=0.5)
>>> from algorithms import solve
>>> sol = solve(prob, SparsestInterpolantDP())
>>> f = CPWL.from_vector(sol.x)
>>> f.num_knots, [round(float(t), 6) for t in f.knots]     # one knot where the chords cross
(1, [1.5])
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from algorithms._validation import (
    WORKING_MAX,
    as_float_array,
    check_choice,
    check_finite_real,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_working_range,
    checked_fields,
    in_working_range,
    reseal_state,
    revalidate_if_reassigned,
    seal_arrays,
    store_plain_scalars,
)
from algorithms.core import Algorithm, IterationMonitor, Problem, RetCode, Solution, SolveOptions, _dispatch

__all__ = [
    "CPWL",
    "BruteForceVp",
    "InterpolationProblem",
    "SparsestInterpolantDP",
    "candidate_knots",
    "cpwl_to_network",
    "discrete_curvature",
    "linear_spline",
    "min_knots_slope_dp",
    "network_to_cpwl",
    "path_norm",
    "vp_of_jumps",
]


# ----------------------------------------------------------------------------- objectives


def _check_p(p, *, allow_zero: bool = True, upper: float = 1.0) -> float:
    """``p`` as a float in ``[0, upper]`` (``(0, upper]`` without ``allow_zero``, a positive scale: a
    subnormal p such as 1e-39 acts as the refused 0), else an error naming p."""
    p = check_nonnegative("p", p)
    if (p == 0 and not allow_zero) or p > upper:
        lo = "0 <=" if allow_zero else "0 <"
        raise ValueError(f"p must satisfy {lo} p <= {upper:g}, got {p!r}")
    return p if allow_zero else check_working_range("p", p)


def _check_data(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Raw data ``(x, y)`` for the helpers: 1-D, finite, equal length >= 2, x strictly increasing, slope
    scale max|y| / min gap in :data:`SLOPE_SCALE` (or y all zero)."""
    x = as_float_array("x", x, ndim=1, dtype=np.float64)
    y = as_float_array("y", y, ndim=1, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    if x.size < 2:
        raise ValueError(f"x must hold at least 2 points, got {x.size}")
    if np.any(np.diff(x) <= 0):
        raise ValueError("x must be strictly increasing (sorted, distinct); InterpolationProblem sorts and "
                         "merges data")
    _check_slope_scale(x, y)    # max|y| / min gap in SLOPE_SCALE, as InterpolationProblem's
    return x, y


def _check_neurons(W, b, v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One finite input weight, bias and output weight per neuron (1-D arrays of equal length)."""
    W = as_float_array("W", W, ndim=1, dtype=np.float64)
    b = as_float_array("b", b, ndim=1, dtype=np.float64)
    v = as_float_array("v", v, ndim=1, dtype=np.float64)
    if not (W.shape == b.shape == v.shape):
        raise ValueError(f"W, b and v must have one entry per neuron, got {W.shape}, {b.shape}, {v.shape}")
    return W, b, v


def vp_of_jumps(jumps, p: float, *, zero_tol: float = 0.0) -> float:
    """``Σ |c|^p`` over the entries with ``|c| > zero_tol``; ``p = 0`` counts them.

    ``p`` in [0, 1] (any value from 0 up to 1; larger ones are refused naming p), ``zero_tol`` >= 0 (any
    value in [0, 3.4e38]), ``jumps`` finite entries in the working range.

    >>> vp_of_jumps([1.0, -4.0, 0.0], 0.5)
    3.0
    >>> vp_of_jumps([1.0, -4.0, 0.0], 0)
    2.0
    """
    p = _check_p(p)
    zero_tol = check_nonnegative("zero_tol", zero_tol)
    c = np.abs(as_float_array("jumps", jumps, dtype=np.float64).ravel())
    c = c[c > zero_tol]
    if p == 0:
        return float(c.size)
    return float(np.sum(c**p))


def path_norm(v, w, p: float) -> float:
    """The ℓp path norm ``Σ_k |v_k w_k|^p`` of a univariate network (``p = 0`` counts active neurons).

    ``0 <= p <= 1``: the paper's range (for ``p > 1`` splitting a neuron lowers the sum).

    >>> path_norm([1.0, 2.0], [3.0, -0.5], 1.0)
    4.0
    """
    p = _check_p(p)
    v = as_float_array("v", v, ndim=1, dtype=np.float64)
    w = as_float_array("w", w, ndim=1, dtype=np.float64)
    if v.shape != w.shape:
        raise ValueError(f"v and w must have the same number of neurons, got {v.shape} and {w.shape}")
    # |v w|^p as |v|^p |w|^p and the count from the factors: v·w overflowed to inf (v = 1e308: a message
    # about "jumps") or underflowed to 0 (v = w = 1e-200: an active neuron not counted)
    if p == 0:
        return float(np.count_nonzero((v != 0) & (w != 0)))
    return float(np.sum(np.abs(v) ** p * np.abs(w) ** p))


# ----------------------------------------------------------------------------- CPWL functions


@dataclass(frozen=True)
class CPWL:
    """``f(x) = slope·x + intercept + Σ_j jumps_j (x - knots_j)₊`` with sorted, distinct knots.

    The normal form: ``knots`` strictly increasing, one nonzero ``jumps`` entry per
    knot, everything finite, so ``num_knots`` and ``vp`` describe the function
    itself. The constructor checks this (``ValueError`` naming the argument);
    :meth:`from_terms` builds a valid one from arbitrary terms (sorts, merges
    equal knots, drops zero jumps). ``to_vector``/``from_vector`` give the flat
    form ``[slope, intercept, knots…, jumps…]`` that the solvers return as
    ``Solution.x``.

    >>> f = CPWL.from_terms([1.0, 1.0, 2.0], [0.5, 0.5, -1.0], slope=0.0, intercept=0.0)
    >>> f.knots.tolist(), f.jumps.tolist(), f.vp(0.5)
    ([1.0, 2.0], [1.0, -1.0], 2.0)
    >>> f(np.array([0.0, 1.5, 3.0])).tolist()
    [0.0, 0.5, 1.0]
    >>> CPWL(knots=[0.0, 0.0], jumps=[1.0, 1.0], slope=0.0, intercept=0.0)
    Traceback (most recent call last):
    ...
    ValueError: knots must be strictly increasing (distinct, sorted); use CPWL.from_terms to merge equal knots
    """

    knots: np.ndarray
    jumps: np.ndarray
    slope: float
    intercept: float

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        knots = as_float_array("knots", self.knots, ndim=1, dtype=np.float64)  # also rejects NaN/inf
        jumps = as_float_array("jumps", self.jumps, ndim=1, dtype=np.float64)
        if knots.shape != jumps.shape:
            raise ValueError(f"knots and jumps must have the same length, got {knots.size} and {jumps.size}")
        if np.any(np.diff(knots) <= 0):
            raise ValueError("knots must be strictly increasing (distinct, sorted); "
                             "use CPWL.from_terms to merge equal knots")
        if np.any(jumps == 0):
            raise ValueError("jumps must be nonzero (a zero jump is no knot); "
                             "use CPWL.from_terms to drop them")
        for name in ("slope", "intercept"):
            object.__setattr__(self, name, check_finite_real(name, getattr(self, name)))
        # read-only: a frozen record whose arrays took f.knots[0] = 3 (unsorted) or f.jumps[1] = 0 answered
        # for another function in silence; the methods re-check a field replaced or written anyway
        knots.setflags(write=False)
        jumps.setflags(write=False)
        object.__setattr__(self, "knots", knots)
        object.__setattr__(self, "jumps", jumps)

    @staticmethod
    def from_terms(knots, jumps, slope: float, intercept: float, *, merge_tol: float = 0.0,
                   zero_tol: float = 0.0) -> CPWL:
        """Sort the knots, merge those within ``merge_tol`` of each other, drop jumps ``<= zero_tol``."""
        t = as_float_array("knots", knots, dtype=np.float64).ravel()  # also rejects NaN/inf
        c = as_float_array("jumps", jumps, dtype=np.float64).ravel()
        if t.shape != c.shape:
            raise ValueError(f"knots and jumps must have the same length, got {t.shape} and {c.shape}")
        merge_tol = check_nonnegative("merge_tol", merge_tol)
        zero_tol = check_nonnegative("zero_tol", zero_tol)
        slope, intercept = check_finite_real("slope", slope), check_finite_real("intercept", intercept)
        return CPWL._merged(t, c, slope, intercept, merge_tol, zero_tol)

    @staticmethod
    def _merged(t: np.ndarray, c: np.ndarray, slope: float, intercept: float, merge_tol: float,
                zero_tol: float) -> CPWL:
        """:meth:`from_terms` on checked terms, for the solvers' own computed tolerances: a data-scaled
        tolerance (1e-9·max|y|/gap, merge_tol·ptp(x)) may fall below the working range's floor for a
        positive scale, which binds what a user passes, not what the package derives from valid data."""
        order = np.argsort(t, kind="stable")
        t, c = t[order], c[order]
        merged_t: list[float] = []
        merged_c: list[float] = []
        group_start = None
        for tk, ck in zip(t, c):
            if merged_t and tk - group_start <= merge_tol:
                merged_c[-1] += ck
            else:
                merged_t.append(float(tk))
                merged_c.append(float(ck))
                group_start = tk
        mt, mc = np.array(merged_t), np.array(merged_c)
        keep = np.abs(mc) > zero_tol
        return CPWL(mt[keep], mc[keep], float(slope), float(intercept))

    def __call__(self, x) -> np.ndarray:
        revalidate_if_reassigned(self)
        x = as_float_array("x", x, dtype=np.float64)
        relu = np.maximum(x[..., None] - self.knots, 0.0)
        return self.slope * x + self.intercept + relu @ self.jumps

    @property
    def num_knots(self) -> int:
        revalidate_if_reassigned(self)
        return int(self.knots.size)

    def vp(self, p: float) -> float:
        """``V_p(f) = Σ_j |c_j|^p`` over the distinct knots (``V_0`` counts them), ``0 <= p <= 1``."""
        revalidate_if_reassigned(self)
        return vp_of_jumps(self.jumps, p)

    def to_vector(self, dtype=np.float64) -> np.ndarray:
        """``[slope, intercept, knots…, jumps…]`` in ``dtype`` (float32 or float64)."""
        if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise TypeError(f"dtype must be float32 or float64, got {dtype!r}")
        revalidate_if_reassigned(self)
        return np.concatenate([[self.slope, self.intercept], self.knots, self.jumps]).astype(dtype)

    @staticmethod
    def from_vector(vector) -> CPWL:
        """Inverse of :meth:`to_vector`; knots that coincide (e.g. after a float32 cast) are merged."""
        vec = np.asarray(vector)
        if vec.dtype == object or not np.issubdtype(vec.dtype, np.number) or np.iscomplexobj(vec):
            raise TypeError(f"vector must be a real numeric array, got dtype {vec.dtype}")
        vec = vec.astype(np.float64).ravel()
        if vec.size < 2 or vec.size % 2:
            raise ValueError(f"vector must have even length >= 2, got {vec.size}")
        if not np.all(np.isfinite(vec)):
            raise ValueError("vector must be finite")
        k = (vec.size - 2) // 2
        return CPWL.from_terms(vec[2:2 + k], vec[2 + k:], float(vec[0]), float(vec[1]))


def _neuron_terms(W, b, v, a: float, c: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """One (knot, slope jump) per active neuron, unsorted and unmerged, plus the affine part.

    Neuron ``k`` with ``w_k > 0`` adds ``v_k w_k (x - t_k)₊``; with ``w_k < 0`` it adds
    ``v_k |w_k| (x - t_k)₊ - v_k |w_k| (x - t_k)`` (slope jump ``v_k |w_k|`` plus a
    linear term); with ``w_k = 0`` the constant ``v_k (b_k)₊``. These terms are not a
    CPWL normal form (knots may repeat); :func:`network_to_cpwl` merges them.
    """
    W, b, v = _check_neurons(W, b, v)
    slope, intercept = check_finite_real("a", a), check_finite_real("c", c)
    active = W != 0
    intercept += float(np.sum(v[~active] * np.maximum(b[~active], 0.0)))
    with np.errstate(over="ignore", invalid="ignore"):
        t = -b[active] / W[active]
        jumps = v[active] * np.abs(W[active])
        neg = W[active] < 0
        slope -= float(np.sum(jumps[neg]))
        intercept += float(np.sum(jumps[neg] * t[neg]))
    # each a finite number's product or quotient: past float's range the CPWL's own check named "jumps",
    # no argument of this call
    if not np.all(np.isfinite(t)):
        raise ValueError("the knots -b/W overflow float64 (b huge against a tiny nonzero W); rescale W and b")
    if not np.all(np.isfinite(jumps)) or not (math.isfinite(slope) and math.isfinite(intercept)):
        raise ValueError("the slope changes v·|W| (or with a, c the affine part) overflow float64; rescale "
                         "v, W and b")
    return t, jumps, slope, intercept


def network_to_cpwl(W, b, v, *, a: float = 0.0, c: float = 0.0, merge_tol: float | None = None,
                    zero_tol: float = 0.0) -> CPWL:
    """The CPWL function computed by ``Σ_k v_k (w_k x + b_k)₊ + a x + c`` (knot extraction).

    Neuron ``k`` with ``w_k > 0`` adds ``v_k w_k (x - t_k)₊``; with ``w_k < 0`` it adds
    ``v_k |w_k| (x - t_k)₊ - v_k |w_k| (x - t_k)`` (slope jump ``v_k |w_k|`` plus a
    linear term); with ``w_k = 0`` the constant ``v_k (b_k)₊``. Neurons sharing a
    knot are merged (their slope jumps add). ``a`` and ``c`` are real numbers (|·| <= 3.4e38); jumps at most
    ``zero_tol`` (>= 0, any value in [0, 3.4e38]) in magnitude are dropped. Knots within ``merge_tol`` (>= 0,
    any value in [0, 3.4e38]) merge; the default ``1e-9 · max|t_k|`` absorbs the rounding of
    ``-b_k / w_k`` (two neurons built for the same knot can differ by an ulp), relative at every scale
    (``max(1, ·)`` merged distinct knots at 1e-12 and 3e-12 into one: another function).

    >>> f = network_to_cpwl(W=[1.0, -2.0], b=[0.0, 2.0], v=[1.0, 1.0])
    >>> f.knots.tolist(), f.jumps.tolist(), f.slope, f.intercept
    ([0.0, 1.0], [1.0, 2.0], -2.0, 2.0)
    """
    t, jumps, slope, intercept = _neuron_terms(W, b, v, a, c)
    # past the working range (|·| <= 3.4e38) the CPWL's own check named "knots"/"jumps", no argument here
    if not in_working_range(t):
        raise ValueError(f"the knots -b/W leave the working range (|knot| <= {WORKING_MAX:.4g}: b huge "
                         f"against a tiny nonzero W); rescale W and b")
    if not (in_working_range(jumps) and in_working_range(np.array([slope, intercept]))):
        raise ValueError(f"the slope changes v·|W| (or with a, c the affine part) leave the working range "
                         f"(|·| <= {WORKING_MAX:.4g}); rescale v, W and b")
    if merge_tol is None:
        merge_tol = 1e-9 * float(np.max(np.abs(t), initial=0.0))     # relative: no floor of 1
    return CPWL.from_terms(t, jumps, slope, intercept, merge_tol=merge_tol, zero_tol=zero_tol)


def cpwl_to_network(f: CPWL) -> dict[str, np.ndarray | float]:
    """One ReLU neuron per knot of ``f``: ``W = 1``, ``b = -t_j``, ``v = c_j``, skip ``a x + c``.

    The network ``Σ_j v_j (W_j x + b_j)₊ + a x + c`` computes ``f`` with path norm
    ``V_p(f)`` (Remark 1 of the paper: distinct knots). Inverse of :func:`network_to_cpwl`.

    >>> net = cpwl_to_network(CPWL(knots=[1.5], jumps=[2.0], slope=0.0, intercept=0.0))
    >>> net["W"].tolist(), net["b"].tolist(), net["v"].tolist(), net["a"], net["c"]
    ([1.0], [-1.5], [2.0], 0.0, 0.0)
    """
    if not isinstance(f, CPWL):
        raise TypeError(f"f must be a CPWL, got {type(f).__name__}")
    revalidate_if_reassigned(f)
    return {"W": np.ones_like(f.knots), "b": -f.knots.copy(), "v": f.jumps.copy(), "a": f.slope,
            "c": f.intercept}


# ----------------------------------------------------------------------------- the problem


@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class InterpolationProblem(Problem):
    """Interpolate univariate data ``(x_i, y_i)`` by a CPWL function minimizing ``V_p``.

    ``p = 0`` asks for the fewest knots, ``0 < p < 1`` for the V_p minimizer (a
    sparsest interpolant once ``p`` is small enough for the data), ``p = 1`` for a
    V_1 (total variation of f') minimizer, which is not unique in general.
    ``p > 1`` is rejected: V_p then has no minimizer (spreading a slope change
    over ``n`` knots costs ``n^{1-p}`` times less). Data are sorted by ``x``;
    repeated ``x`` with equal ``y`` are merged, with different ``y`` rejected. ``x`` and ``y`` are finite
    real 1-D arrays of one length (at least 2 distinct ``x``) whose slope scale max|y| / (smallest gap of
    ``x``) lies in [1e-300, 8.5e37] (:data:`SLOPE_SCALE`; y all zero is valid) and whose first chord meets
    0 at ``|y[0] − slope·x[0]| <= 3.4e38``: outside them the chord slopes or the intercept leave the
    working range and the data are refused naming y and x.

    >>> InterpolationProblem(x=[2.0, 0.0, 1.0], y=[1.0, 0.0, 0.0], p=0.5).x.tolist()
    [0.0, 1.0, 2.0]
    >>> InterpolationProblem(x=[0.0, 0.0], y=[1.0, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: y must be a function of x: x = 0 repeats with different y values
    """

    x: np.ndarray
    y: np.ndarray
    p: float = 0.5

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (numpy gives them back writable)."""
        reseal_state(self, state)

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        x = as_float_array("x", self.x, ndim=1)
        y = as_float_array("y", self.y, ndim=1)
        if x.shape != y.shape:
            raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
        dtype = np.float32 if (x.dtype == np.float32 and y.dtype == np.float32) else np.float64
        order = np.argsort(x, kind="stable")
        x, y = x[order].astype(dtype), y[order].astype(dtype)
        if x.size:
            same = np.diff(x) == 0
            if np.any(same & (np.diff(y) != 0)):
                bad = x[1:][same & (np.diff(y) != 0)][0]
                raise ValueError(f"y must be a function of x: x = {bad:g} repeats with different y values")
            keep = np.concatenate([[True], ~same])
            x, y = x[keep], y[keep]
        if x.size < 2:
            raise ValueError(f"x must hold at least 2 distinct points, got {x.size}")
        _check_slope_scale(x.astype(np.float64), y.astype(np.float64))
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "p", _check_p(self.p))
        seal_arrays(self)  # README: a problem's arrays are read-only, in immutable memory

    @property
    def n(self) -> int:
        return int(self.x.size)

    @property
    def dtype(self):
        return self.x.dtype


#: the range of max|y| / (smallest gap of x) the solvers take: their slopes and slope changes (up to 4 times
#: it, two merged changes) stay inside the working range below it (#43 round 12: 1e290 let a solve fail on
#: "jumps has an entry of magnitude 6e+68", a term no argument named), and their curvature threshold
#: 1e-9·max|y|/min gap (floored at 1e-300) stays relative above it
SLOPE_SCALE = (1e-300, WORKING_MAX / 4)


def _check_slope_scale(x: np.ndarray, y: np.ndarray) -> None:
    """The data's slope scale max|y| / min gap inside :data:`SLOPE_SCALE` (or y all zero): y = [0, 1e-310, 0]
    was solved to Success with no knot (its curvature fell under the threshold's floor), and y = 1e300 on gaps
    of 1e-300 met "slope must be finite" naming no argument."""
    top = float(np.max(np.abs(y)))
    if top == 0.0:
        return
    with np.errstate(over="ignore", under="ignore"):
        scale = top / float(np.min(np.diff(x)))
    low, high = SLOPE_SCALE
    if not low <= scale <= high:
        way = "overflow" if scale > high else "underflow"
        raise ValueError(f"y and x have a slope scale max|y| / (smallest gap of x) = {scale:.3g} outside "
                         f"[{low:g}, {high:.4g}]: the chord slopes {way} the working range; rescale y "
                         f"(or x)")
    # every interpolant's affine part meets the first chord's line at 0: y₀ − s₀·x₀ (1e45 for x near 1e30)
    slope = (y[1] - y[0]) / (x[1] - x[0])
    intercept = y[0] - slope * x[0]
    if not abs(intercept) <= WORKING_MAX:
        raise ValueError(f"x and y give the interpolant an intercept y[0] - slope·x[0] = {intercept:.3g} "
                         f"outside the working range (|·| <= {WORKING_MAX:.4g}); shift x towards 0")


def _data64(problem: InterpolationProblem) -> tuple[np.ndarray, np.ndarray]:
    return problem.x.astype(np.float64), problem.y.astype(np.float64)


def _slope_tol(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per interior point x_i, slope changes ``Δ_i`` at most this are zero: ``1e-9 · max(σ_{i-1}, σ_i,
    max|y| / (x_N − x_1))``, with ``σ_j = max(|y_j|, |y_{j+1}|) / (x_{j+1} − x_j)`` the scale of chord slope
    ``s_j``'s rounding.

    A chord slope is correctly rounded up to a few units of 1e-16 of σ_j (a difference of two floats is
    exact to 1e-16 of itself; data given in decimal carry 1e-16 of |y|), so Δ_i's rounding is
    ~1e-16·max(σ_{i-1}, σ_i): the factor 1e-9 leaves seven orders of magnitude of headroom. The floor
    max|y|/(x_N − x_1) zeroes a slope change that moves the interpolant by less than 1e-9·max|y| over
    the whole data range (y = [0, 1e-300, 0, 2] has no knot for 1e-300). Never above the former global
    1e-9·max|y|/min gap, which zeroed a real curvature of 5e-7 where gaps differ by 1e9 (x = [0, 1e-3,
    2e6, 3e6], y = [0, 0, 1, 0]: the "interpolant" missed the data by 1). All solvers share it, so they
    agree on which curvatures vanish. Shape (N - 2,).
    """
    sigma = np.maximum(np.abs(y[:-1]), np.abs(y[1:])) / np.diff(x)
    floor = max(float(np.max(np.abs(y))) / float(x[-1] - x[0]), 1e-300)
    return 1e-9 * np.maximum(np.maximum(sigma[:-1], sigma[1:]), floor)


def _curvature_tols(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`_slope_tol` looked up in this module at each call (a claim's control patches it): (N - 2,)."""
    return np.broadcast_to(np.asarray(_slope_tol(x, y), dtype=np.float64), (max(x.size - 2, 0),))


def discrete_curvature(x, y) -> np.ndarray:
    """``Δ_i = s_i - s_{i-1}`` at the interior points (slope changes of the linear spline).

    Entries with ``|Δ_i| <= 1e-9 · max(σ_{i-1}, σ_i, max|y| / (x_N - x_1))``, ``σ_j = max(|y_j|,
    |y_{j+1}|) / (x_{j+1} - x_j)`` (the scale of chord slope s_j's rounding, ~1e-16·σ_j; the last term
    a slope change that moves the interpolant by under 1e-9·max|y| over the data range), are set to 0:
    the zero threshold all the solvers share, local to each point (gaps of very different sizes keep
    their real curvatures).

    >>> discrete_curvature([0, 1, 2, 3], [0, 0, 1, 3]).tolist()
    [1.0, 1.0]
    """
    x, y = _check_data(x, y)
    s = np.diff(y) / np.diff(x)
    d = np.diff(s)
    d[np.abs(d) <= _curvature_tols(x, y)] = 0.0
    return d


def linear_spline(x, y) -> CPWL:
    """The interpolant with knots only at data points: ``N - 2`` knots at most.

    >>> linear_spline([0, 1, 2], [0, 1, 0]).knots.tolist()
    [1.0]
    """
    x, y = _check_data(x, y)
    s = np.diff(y) / np.diff(x)
    return CPWL.from_terms(x[1:-1], discrete_curvature(x, y), slope=s[0], intercept=y[0] - s[0] * x[0])


def _cpwl_from_matching(x: np.ndarray, y: np.ndarray, pairs: list[int]) -> CPWL:
    """Interpolant that merges ``Δ_j, Δ_{j+1}`` (interior indices ``j`` in ``pairs``) into one knot."""
    d = discrete_curvature(x, y)
    s = np.diff(y) / np.diff(x)
    knots, jumps = [], []
    paired = set()
    for j in pairs:  # interior index j ↔ data index j+1; pair knot in gap (x[j+1], x[j+2])
        lam = d[j] / (d[j] + d[j + 1])  # weight on the left point; in (0, 1) for same signs
        knots.append(x[j + 2] - lam * (x[j + 2] - x[j + 1]))
        jumps.append(d[j] + d[j + 1])
        paired.update((j, j + 1))
    for i in range(d.size):
        if i not in paired and d[i] != 0:
            knots.append(x[i + 1])
            jumps.append(d[i])
    return CPWL.from_terms(knots, jumps, slope=s[0], intercept=y[0] - s[0] * x[0])


# ----------------------------------------------------------------------------- the exact DP


def _matching_dp(d: np.ndarray, p: float, objective: str, monitor: IterationMonitor | None,
                 maxiters: int) -> tuple[list[int], tuple[float, float], int, RetCode]:
    """Best set of merged pairs over interior curvatures ``d``; cost tuples compared lexicographically.

    Returns (pairs, (knots, V_p), stages done, retcode).
    """
    def single(i):
        return (0.0, 0.0) if d[i] == 0 else (1.0, abs(d[i]) ** p if p > 0 else 1.0)

    def pair(i):
        total = d[i] + d[i + 1]
        return (1.0, abs(total) ** p if p > 0 else 1.0)

    def key(cost):
        return cost if objective == "knots" else (cost[1], cost[0])

    m = d.size
    best: list[tuple[float, float]] = [(0.0, 0.0)] + [(math.inf, math.inf)] * m
    choice = [0] * (m + 1)  # 1: last point single, 2: last two points merged
    for i in range(1, m + 1):
        if i > maxiters:
            return [], best[i - 1], i - 1, RetCode.MaxIters
        a = single(i - 1)
        cand = (best[i - 1][0] + a[0], best[i - 1][1] + a[1])
        best[i], choice[i] = cand, 1
        # same strict sign by the signs, not the product: two curvatures of size 1e-200 multiply to 0
        if i >= 2 and np.sign(d[i - 2]) * np.sign(d[i - 1]) > 0:
            b = pair(i - 2)
            cand2 = (best[i - 2][0] + b[0], best[i - 2][1] + b[1])
            if key(cand2) < key(best[i]):
                best[i], choice[i] = cand2, 2
        if monitor is not None and monitor.record(stage=i, knots=best[i][0], vp=best[i][1]):
            return [], best[i], i, RetCode.Terminated
    pairs, i = [], m
    while i > 0:
        if choice[i] == 2:
            pairs.append(i - 2)
            i -= 2
        else:
            i -= 1
    return sorted(pairs), best[m], m, RetCode.Success


@dataclass(frozen=True)
class SparsestInterpolantDP(Algorithm):
    """Exact sparsest (or exact V_p-minimizing) CPWL interpolant of univariate data, in O(N).

    Let ``Δ_i = s_i - s_{i-1}`` be the discrete curvatures at the interior
    points. A *plan* keeps each nonzero ``Δ_i`` as a knot at ``x_i`` or merges a
    same-sign adjacent pair ``(Δ_i, Δ_{i+1})`` into one knot of slope change
    ``Δ_i + Δ_{i+1}`` at ``t = x_{i+1} - λ (x_{i+1} - x_i)``, ``λ = Δ_i / (Δ_i + Δ_{i+1})``
    (where the extended chords ``s_{i-1}`` and ``s_{i+1}`` cross). The DP over
    interior points,

        D[i] = min( D[i-1] + cost(Δ_i),  D[i-2] + cost(Δ_{i-1} + Δ_i)  if Δ_{i-1} Δ_i > 0 ),

    with ``cost(c) = (1, |c|^p)``, minimizes lexicographically (fewest knots,
    then V_p; ``objective="knots"``) or (V_p, then knots; ``objective="vp"``,
    the exact V_p minimizer for ``0 < p < 1``). Why plans suffice is argued in
    ``paper_notes/sparse_relu.md`` and checked against :class:`BruteForceVp` and
    :func:`min_knots_slope_dp` in the tests. ``maxiters`` caps the DP stages
    (``maxiters=0`` returns the linear spline with ``MaxIters`` when there is a stage
    to cut, N >= 3). ``Solution.x``
    is ``CPWL.to_vector()``; ``value`` is ``V_p`` of the result with the problem's ``p``.

    References: Nakhleh & Nowak, NeurIPS 2025 (arXiv:2505.21791), Section 3.

    >>> from algorithms import solve
    >>> prob = InterpolationProblem(x=[0, 1, 2, 3, 4], y=[0, 0, 1, 3, 6], p=0.5)
    >>> sol = solve(prob, SparsestInterpolantDP())
    >>> sol.retcode, CPWL.from_vector(sol.x).num_knots
    (<RetCode.Success: 'Success'>, 2)
    """

    objective: str = "knots"

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        check_choice("objective", self.objective, {"knots", "vp"})


@_dispatch
def _solve(problem: InterpolationProblem, algorithm: SparsestInterpolantDP, options: SolveOptions
           ) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    x, y = _data64(problem)
    d = discrete_curvature(x, y)
    monitor = IterationMonitor(options, total=d.size, desc="sparsest DP")
    maxiters = options.iterations(default=d.size)
    if maxiters == 0 < d.size:  # cut before the first stage (N = 2 has no stage: nothing is cut)
        f = linear_spline(x, y)
        monitor.record(stage=0, knots=f.num_knots, vp=f.vp(problem.p))
        monitor.close()
        return Solution(f.to_vector(problem.dtype), f.vp(problem.p), RetCode.MaxIters,
                        trace=monitor.trace, original=f)
    pairs, _, stages, retcode = _matching_dp(d, problem.p, algorithm.objective, monitor, maxiters)
    if stages == 0:  # N = 2: nothing to decide; still leave one trace record
        monitor.record(stage=0, knots=0.0, vp=0.0)
    monitor.close()
    # an interrupted DP has no complete plan: return the linear spline (always an interpolant)
    f = _cpwl_from_matching(x, y, pairs) if retcode is RetCode.Success else linear_spline(x, y)
    sol = Solution(f.to_vector(problem.dtype), f.vp(problem.p), retcode, trace=monitor.trace, original=f)
    sol.stats.iterations = stages
    return sol


# ----------------------------------------------------------------------------- independent knot count


def min_knots_slope_dp(x, y) -> int:
    """Fewest knots of any CPWL interpolant, by a DP over slope *states* (no knot candidates).

    At each data point the interpolant has a left slope ``α_i`` and a right slope
    ``β_i`` (a knot at ``x_i`` iff they differ). Only their order relative to the
    neighbouring chord slopes matters: inside a gap with chord slope ``s`` the
    fewest knots joining start slope ``β`` to end slope ``α`` is 0 if
    ``β = α = s``, 1 if ``s`` lies strictly between them (the two lines cross
    inside the gap), and 2 otherwise. The DP runs over the 3 relations
    (<, =, >) of ``β_i`` to ``s_i``. It shares no code with
    :class:`SparsestInterpolantDP`, which makes it a check on that solver.

    >>> min_knots_slope_dp([0, 1, 2, 3], [0, 0, 1, 3]), min_knots_slope_dp([0, 1, 2], [0, 1, 0])
    (1, 1)
    """
    x, y = _check_data(x, y)
    s = np.diff(y) / np.diff(x)
    tols = _curvature_tols(x, y)
    rels = (-1, 0, 1)

    def gap_cost(r_start, r_end):
        if r_start == 0 and r_end == 0:
            return 0
        if r_start * r_end == -1:
            return 1
        return 2

    def no_knot_feasible(ra, rb, s_left, s_right, tol):
        """Is there one slope σ with sign(σ - s_left) = ra and sign(σ - s_right) = rb?"""
        if abs(s_left - s_right) <= tol:
            return ra == rb
        lo_first = s_left < s_right
        # order the two chord slopes and test the three open intervals and two points
        for sigma_rel in ("below", "at_left", "between", "at_right", "above"):
            if sigma_rel == "below":
                got = (-1, -1)
            elif sigma_rel == "above":
                got = (1, 1)
            elif sigma_rel == "between":
                got = (1, -1) if lo_first else (-1, 1)
            elif sigma_rel == "at_left":
                got = (0, -1) if lo_first else (0, 1)
            else:
                got = (1, 0) if lo_first else (-1, 0)
            if got == (ra, rb):
                return True
        return False

    def arrivals(best):
        return {ra: min(best[rb] + gap_cost(rb, ra) for rb in rels) for ra in rels}

    n = x.size
    best = dict.fromkeys(rels, 0)  # relation of β_1 to s_1: free, no cost
    for j in range(n - 2):  # gap j between points j and j+1 (0-based), then the state at point j+1
        arrive = arrivals(best)
        new = {}
        for rb in rels:  # relation of β_{j+1} to s_{j+1}
            with_knot = 1 + min(arrive.values())
            without = min((arrive[ra] for ra in rels if no_knot_feasible(ra, rb, s[j], s[j + 1], tols[j])),
                          default=math.inf)
            new[rb] = min(with_knot, without)
        best = new
    return int(min(arrivals(best).values()))  # the last gap: any end slope will do


# ----------------------------------------------------------------------------- brute force


def candidate_knots(x, y) -> np.ndarray:
    """Interior data points, plus, in each gap with interior ends, the crossing of the extended chords.

    The crossing of the lines of chords ``s_{j-1}`` and ``s_{j+1}`` is kept when it
    lies strictly inside ``(x_j, x_{j+1})``.

    >>> candidate_knots([0, 1, 2, 3], [0, 0, 1, 3]).tolist()
    [1.0, 1.5, 2.0]
    """
    x, y = _check_data(x, y)
    s = np.diff(y) / np.diff(x)
    cands = list(x[1:-1])
    tols = _curvature_tols(x, y)
    for j in range(1, x.size - 2):  # gap (x[j], x[j+1]); chords s[j-1] (through x[j]) and s[j+1]
        if abs(s[j + 1] - s[j - 1]) <= max(tols[j - 1], tols[j]):      # the zero thresholds at x[j], x[j+1]
            continue
        t = (y[j + 1] - y[j] + s[j - 1] * x[j] - s[j + 1] * x[j + 1]) / (s[j - 1] - s[j + 1])
        if x[j] < t < x[j + 1]:
            cands.append(float(t))
    return np.array(sorted(cands))


EPS64 = float(np.finfo(np.float64).eps)

#: the most knot subsets one BruteForceVp run tries without a ``maxiters`` below it (each a rank test and a
#: least-squares solve, 50-150 µs: up to about a minute). 20 points (2^19 subsets) or a long
#: ``extra_knots`` ran for minutes to hours
MAX_SUBSETS = 500_000


@dataclass(frozen=True)
class BruteForceVp(Algorithm):
    """Global V_p minimizer over knots in a finite candidate set, by enumerating knot subsets.

    For a fixed knot set ``S`` the interpolation constraints are linear in the
    slope changes and ``V_p`` is concave on each orthant (``0 < p ≤ 1``), so a
    minimum sits at a vertex: a subset with linearly independent features
    ``[1, x, (x - t)₊, t ∈ S]`` and ``|S| ≤ N - 2``. The solver tries every such
    subset of the candidates (:func:`candidate_knots`, plus ``extra_knots``),
    solves the interpolation system exactly, and keeps the smallest ``V_p``
    (``p = 0``: fewest knots). Exponential in ``N``; ``max_points`` (an int >= 1) guards it.
    ``Solution.original`` holds every minimizer (within relative ``rtol`` > 0) as a
    list of CPWL functions, the ground truth for uniqueness and sparsity checks.
    ``maxiters`` caps the subsets tried (``MaxIters`` when it bites). A run that would try more
    than :data:`MAX_SUBSETS` (500000, up to a minute) subsets, with ``maxiters`` unset or above it, is
    refused before it starts (``ValueError`` naming the points, ``extra_knots`` and ``maxiters``).

    References: Nakhleh & Nowak, NeurIPS 2025 (arXiv:2505.21791), Section 3.

    >>> from algorithms import solve
    >>> prob = InterpolationProblem(x=[0, 1, 2, 3], y=[0, 0, 1, 3], p=0.5)
    >>> sol = solve(prob, BruteForceVp())
    >>> round(sol.value, 6), len(sol.original)      # the single knot of V_p = 2^0.5
    (1.414214, 1)
    """

    extra_knots: tuple = field(default=())
    max_points: int = 12
    rtol: float = 1e-9

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        if not isinstance(self.extra_knots, tuple | list | np.ndarray):
            raise TypeError(f"extra_knots must be a tuple of knot positions, got "
                            f"{type(self.extra_knots).__name__}")
        extra = as_float_array("extra_knots", list(self.extra_knots), ndim=1) if len(self.extra_knots) \
            else np.zeros(0)
        object.__setattr__(self, "extra_knots", tuple(float(t) for t in extra))
        check_positive_int("max_points", self.max_points)
        # > 0: minimizers are kept within rtol·best; at 0 only bit-equal values would tie, and two
        # interpolants of equal V_p computed by different solves differ in the last bits
        check_positive("rtol", self.rtol)


@_dispatch
def _solve(problem: InterpolationProblem, algorithm: BruteForceVp, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    x, y = _data64(problem)
    n = x.size
    if n > algorithm.max_points:
        raise ValueError(f"BruteForceVp enumerates subsets: {n} points exceed max_points="
                         f"{algorithm.max_points}; use SparsestInterpolantDP")
    p = problem.p
    cands = np.unique(np.concatenate([candidate_knots(x, y), np.asarray(algorithm.extra_knots)]))
    cands = cands[(cands > x[0]) & (cands < x[-1])]
    # the rank and residual tests run on data scaled to unit range (x onto [-1, 1], y by max|y|): on raw
    # data, y ~ 1e-300 passed the empty knot set under an absolute 1e-300 floor (a wrong Success, V_p 0)
    # and x ~ 1e15 made every [1, x, (x - t)+] matrix numerically rank-deficient (Failure); exact solves
    # of small systems leave residuals ~1e-16·cond, so 1e-9 (relative to max|y|) is loose
    x_mid, x_half = 0.5 * (x[0] + x[-1]), 0.5 * (x[-1] - x[0])
    y_scale = float(np.max(np.abs(y))) or 1.0
    xs, ys = (x - x_mid) / x_half, y / y_scale
    res_tol = 1e-9
    jump_tol = float(np.max(_curvature_tols(x, y), initial=1e-309))    # the largest point's (module doc)
    budget = options.iterations(default=10**9)
    subsets = sum(math.comb(cands.size, k) for k in range(0, n - 1))
    if min(subsets, budget) > MAX_SUBSETS:
        raise ValueError(f"BruteForceVp would try {subsets:.3g} knot subsets ({cands.size} candidate knots "
                         f"with extra_knots, up to {n - 2} knots for {n} points), past MAX_SUBSETS = "
                         f"{MAX_SUBSETS} (up to a minute); pass maxiters <= {MAX_SUBSETS} to cap them, "
                         f"fewer extra_knots or points, or use SparsestInterpolantDP")
    monitor = IterationMonitor(options, total=min(n - 1, budget), desc="brute force V_p")
    start = linear_spline(x, y)
    results: list[tuple[float, int, CPWL]] = []
    tried = 0
    finished = True
    stopped = RetCode.MaxIters
    for k in range(0, n - 1):
        for subset in itertools.combinations(range(cands.size), k):
            if tried >= budget:
                finished = False
                break
            tried += 1
            t = cands[list(subset)]
            ts = (t - x_mid) / x_half
            A = np.column_stack([np.ones(n), xs, np.maximum(xs[:, None] - ts[None, :], 0.0)])
            if np.linalg.matrix_rank(A) < A.shape[1]:
                continue
            coef, *_ = np.linalg.lstsq(A, ys, rcond=None)
            # an exact solve's residual is a backward error, ~n·1e-16·(max|A|·Σ|coef| + 1) (large only where
            # knots crowd two close points); under the bare 1e-9 a fit missing the data by 2e-10 of max|y|
            # passed (x = [0, 1e-3, 2e6, 3e6], y = [0, 0, 1, 0]: one knot where two are needed)
            backward = 1e3 * n * EPS64 * (float(np.abs(A).max()) * float(np.sum(np.abs(coef))) + 1.0)
            if np.max(np.abs(A @ coef - ys)) > min(res_tol, backward):
                continue
            # back to the data's units: (x - t)+ = x_half · (xs - ts)+
            slope = y_scale * float(coef[1]) / x_half
            f = CPWL._merged(t, y_scale * coef[2:] / x_half, slope, y_scale * float(coef[0]) - slope * x_mid,
                             0.0, jump_tol)
            results.append((f.vp(p), f.num_knots, f))
        if not finished:
            break
        best_so_far = min((r[0] for r in results), default=math.inf)
        if monitor.record(subset_size=k, subsets_tried=tried, best_vp=best_so_far):
            finished, stopped = False, RetCode.Terminated
            break
    monitor.close()
    if not results:
        retcode = stopped if not finished else RetCode.Failure
        sol = Solution(start.to_vector(problem.dtype), start.vp(p), retcode, trace=monitor.trace,
                       original=[start])
        sol.stats.iterations = sol.stats.linear_solves = tried
        return sol
    best = min(r[0] for r in results)
    tol = algorithm.rtol * best  # relative: V_p scales like |y|^p, tiny data keep their ties apart
    minimizers: list[CPWL] = []
    for value, _, f in sorted(results, key=lambda r: (r[0], r[1])):
        if value <= best + tol and not any(
                g.num_knots == f.num_knots and np.allclose(g.knots, f.knots, rtol=0, atol=1e-9 * np.ptp(x))
                for g in minimizers):
            minimizers.append(f)
    f = minimizers[0]
    sol = Solution(f.to_vector(problem.dtype), f.vp(p), RetCode.Success if finished else stopped,
                   trace=monitor.trace, original=minimizers)
    sol.stats.iterations = tried
    sol.stats.linear_solves = tried
    return sol
