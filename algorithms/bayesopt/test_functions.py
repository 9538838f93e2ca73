"""Test problems for CEI: RKHS functions and GP sample paths for the theory, classic constrained problems.

* :func:`rkhs_function`: g(x) = Σᵢ αᵢ k(x, zᵢ) with random centres zᵢ and N(0, 1) weights rescaled
  to a prescribed RKHS norm ‖g‖_k = √(αᵀKα) (the paper's Section 4.1 construction, after
  Chowdhury and Gopalan 2017); :func:`gp_sample_path`: a GP(0, k) draw on random points,
  extended by its kernel interpolant (an RKHS function through the sampled values).
* :func:`rkhs_problem`: f and c of that kind on [0, 1]^d, redrawn until the constraint is active
  (the unconstrained minimizer of f is infeasible) and the seeded initial design has a feasible
  point, with f* from :func:`constrained_minimum`.
* :func:`gardner_problem` (Gardner et al. 2014, Section 5.1), :func:`constrained_branin` (Branin
  with a disc constraint, Gelbart et al. 2014) and :func:`two_disks_problem` (a feasible region of
  two disjoint discs), each with its known optimum.

References
----------
S. R. Chowdhury, A. Gopalan. On kernelized multi-armed bandits. ICML 2017. J. R. Gardner et al.
Bayesian optimization with inequality constraints. ICML 2014. M. A. Gelbart, J. Snoek, R. P. Adams.
Bayesian optimization with unknown constraints. UAI 2014. H. Wang et al. arXiv:2505.11323, Sec. 4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.stats import qmc

from algorithms._validation import (
    allocates,
    as_float_array,
    as_real_array,
    call_user,
    check_bool,
    check_count,
    check_fits_memory,
    check_positive_int,
    check_seed,
    check_takes,
    precision_rank,
    read_only,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.bayesopt.gp import JITTER_MAX, _check_kernel
from algorithms.bayesopt.kernels import Kernel, check_scale
from algorithms.bayesopt.problem import ConstrainedBOProblem

__all__ = [
    "RKHSFunction",
    "constrained_branin",
    "constrained_minimum",
    "gardner_problem",
    "gp_sample_path",
    "rkhs_function",
    "rkhs_problem",
    "two_disks_problem",
]


@dataclass(frozen=True, eq=False)   # identity equality and hash (the arrays cannot be hashed)
class RKHSFunction:
    """g(x) = Σᵢ ``weights[i]`` · k(x, ``centers[i]``): a finite kernel expansion.

    Called on x of shape (d,) it returns a float, on X of shape (n, d) an (n,) float64 array (x of any real
    dtype is computed in float64; finite entries of magnitude at most 3.4e38). ``centers`` (k, d) and
    ``weights`` (k,) finite, entries of magnitude at most 3.4e38.

    >>> g = RKHSFunction(Kernel("se", lengthscale=0.5), np.array([[0.0], [1.0]]), np.array([1.0, -1.0]))
    >>> round(g(np.array([0.0])), 6), round(g.norm, 6)
    (0.864665, 1.31504)
    """

    kernel: Kernel
    centers: np.ndarray
    weights: np.ndarray

    def __post_init__(self) -> None:
        _check_kernel(self.kernel)
        centers = as_float_array("centers", self.centers, ndim=2, dtype=np.float64)
        weights = as_float_array("weights", self.weights, ndim=1, dtype=np.float64)
        if centers.shape[1] == 0:   # a (k, 0) centres array: the error came at call time, naming x
            raise ValueError(f"centers must have at least one column (the input dimension d), got shape "
                             f"{centers.shape}")
        if centers.shape[0] != weights.shape[0] or centers.shape[0] == 0:
            raise ValueError(
                f"centers and weights must have the same number (>= 1) of rows, got "
                f"{centers.shape[0]} and {weights.shape[0]}"
            )
        ell = np.asarray(self.kernel.lengthscale)
        if ell.ndim == 1 and ell.size != centers.shape[1]:
            raise ValueError(f"kernel has {ell.size} ARD lengthscales but centers have {centers.shape[1]} "
                             f"columns")
        centers, weights = read_only(centers), read_only(weights)   # immutable: no flag to set back (red18a)
        object.__setattr__(self, "centers", centers)
        object.__setattr__(self, "weights", weights)
        try:   # centres of 1e300: their scaled distances overflowed, k read as 0 between them in silence
            self.kernel(centers, centers)
        except ValueError as exc:
            largest = float(np.abs(centers).max())
            raise ValueError(f"centers (entries up to {largest:.3g}) are too large for the kernel: "
                             f"{exc}") from None
        # weights or centres so large that g or its norm overflow (weights 1e308: the norm was inf, with
        # numpy's RuntimeWarning only); the kernel itself names a lengthscale too small for the centres
        with np.errstate(over="ignore", invalid="ignore"):
            # |k| <= outputscale, so wᵀKw <= outputscale·(Σ|w|)²: the n × n matrix only if the bound overflows
            total = float(np.abs(weights).sum())
            bound = float(self.kernel.outputscale) * total * total
            squared = bound if math.isfinite(bound) else float(weights @ self.kernel(centers, centers)
                                                                @ weights)
        if not math.isfinite(squared):
            raise ValueError(f"weights (largest |weight| {np.abs(weights).max():.3g}) are too large: the "
                             f"RKHS norm sqrt(wᵀKw) overflows float64; rescale the weights")
        remember_validated(self)   # object.__setattr__(g, "weights", ...) is refused at the next call

    @property
    def norm(self) -> float:
        """The RKHS norm √(αᵀKα)."""
        revalidate_if_reassigned(self)
        return float(np.sqrt(max(self.weights @ self.kernel(self.centers, self.centers) @ self.weights, 0.0)))

    def __call__(self, x):
        revalidate_if_reassigned(self)
        x = as_real_array("x", x)
        rows = np.atleast_2d(x)
        # a 0-d x (np.array(0.0)) is no point of shape (d,): np.atleast_2d made it one in silence
        # (the kernel's message said "X and Y")
        if x.ndim == 0 or rows.ndim != 2 or rows.shape[1] != self.centers.shape[1]:
            raise ValueError(f"x must have shape ({self.centers.shape[1]},) or (n, {self.centers.shape[1]}) "
                             f"(the centres' dimension), got {x.shape}")
        if not np.all(np.isfinite(rows)):   # the kernel's message named its own argument, X
            raise ValueError("x contains NaN or inf entries")
        if rows.shape[0] == 0:   # no point: the caller's reduction of the empty answer failed inside numpy
            raise ValueError(f"x must hold at least one point of {self.centers.shape[1]} coordinates, got "
                             f"shape {x.shape}")
        values = np.concatenate(
            [
                self.kernel(rows[i : i + 2048], self.centers) @ self.weights
                for i in range(0, rows.shape[0], 2048)
            ]
        )
        return float(values[0]) if x.ndim == 1 else values


@allocates("dim", "n_centers")
def rkhs_function(
    kernel: Kernel, dim: int, norm: float, *, n_centers: int = 100, seed: int = 0
) -> RKHSFunction:
    """A random element of the RKHS of ``kernel`` on [0, 1]^dim with RKHS norm ``norm``, to float64 rounding
    (``g.norm`` within a relative 1e-15 of it: 3.0000000000000004 for norm = 3).

    ``dim`` and ``n_centers`` positive ints (refused when the n_centers × n_centers kernel matrix exceeds
    this machine's memory); ``norm`` a float in [1.18e-38, 3.4e38] (the working range for a positive scale)
    for which the values stay finite (else refused by name);
    ``seed`` an int in [0, 2**64).

    >>> g = rkhs_function(Kernel("matern", nu=2.5, lengthscale=0.2), 2, norm=3.0, seed=1)
    >>> round(g.norm, 10)
    3.0
    """
    _check_kernel(kernel)
    dim = check_positive_int("dim", dim)
    norm = check_scale("norm", norm, upper=1e300)
    n_centers = check_count("n_centers", n_centers, 1)
    # its kernel matrix, before anything is drawn: 10**9 centres ran on for minutes (a hang)
    _check_size("rkhs_function", n_centers, dim, "n_centers")
    rng = np.random.default_rng(check_seed(seed))
    centers = rng.uniform(size=(n_centers, dim))
    weights = rng.standard_normal(n_centers)
    raw = RKHSFunction(kernel, centers, weights).norm
    with np.errstate(over="ignore"):
        scaled = weights * (norm / raw)
        g = RKHSFunction(kernel, centers, scaled) if np.all(np.isfinite(scaled)) else None
        bound = float(np.abs(scaled).sum() * kernel.outputscale) if g is not None else np.inf
    if g is None or not np.isfinite(bound) or not np.isfinite(g.norm):   # norm = 1e308: inf values
        raise ValueError(f"norm = {norm!r} is too large: the function's values overflow float64 (use a "
                         f"norm below about 1e300)")
    return g


@allocates("dim", "n_points")
def gp_sample_path(
    kernel: Kernel, dim: int, *, n_points: int = 400, seed: int = 0, jitter: float = 1e-8
) -> RKHSFunction:
    """A draw of GP(0, ``kernel``) at ``n_points`` uniform points of [0, 1]^dim, extended by interpolation.

    The values at the points are exact GP samples (Cholesky of K + ``jitter``·I); between them the
    path is the kernel interpolant, so it is itself a finite kernel expansion. ``dim`` and ``n_points``
    positive ints (refused when the n_points × n_points covariance exceeds this machine's memory); ``seed``
    an int in [0, 2**64) (a seed, not a count: 2**63 is valid);
    ``jitter`` a float in [1.18e-38, 1e8] (0 and subnormals refused: the Cholesky factor needs it;
    larger values, noise 1e8 times the signal's, are refused as the GP's are), and large enough that
    K + jitter·I is numerically positive definite at the drawn points: a smaller one (1.2e-38 beside an
    SE kernel's near-singular K) is refused naming jitter, with the default 1e-8 as the fix.

    >>> g = gp_sample_path(Kernel("se", lengthscale=0.2), 1, n_points=50, seed=0)
    >>> g.centers.shape, bool(np.isfinite(g(np.array([0.3]))))
    ((50, 1), True)
    """
    _check_kernel(kernel)
    dim = check_positive_int("dim", dim)
    # ARD lengthscales of another dimension: the kernel's message named its own X, not kernel or dim
    if np.ndim(kernel.lengthscale) == 1 and np.size(kernel.lengthscale) != dim:
        raise ValueError(f"kernel has {np.size(kernel.lengthscale)} ARD lengthscales but dim = {dim}")
    n_points = check_count("n_points", n_points, 1)
    _check_size("gp_sample_path", n_points, dim, "n_points", 2)
    jitter = check_scale("jitter", jitter, upper=JITTER_MAX)
    rng = np.random.default_rng(check_seed(seed))
    points = rng.uniform(size=(n_points, dim))
    K = kernel(points, points) + jitter * np.eye(n_points)
    try:
        factor = cho_factor(K, lower=True)
    except np.linalg.LinAlgError:   # scipy's "leading minor ... not positive definite" named nothing
        raise ValueError(f"jitter = {jitter!r} is too small: K + jitter·I of the {n_points} points is not "
                         f"numerically positive definite for this kernel; use a larger jitter (1e-8 is "
                         f"the default) or fewer n_points") from None
    values = np.tril(factor[0]) @ rng.standard_normal(n_points)
    return RKHSFunction(kernel, points, cho_solve(factor, values))


def _check_size(owner: str, n: int, dim: int, name: str, squares: int = 1) -> None:
    """Refuse an n × n kernel matrix (``squares`` of them) plus n points of ``dim`` coordinates that exceed
    this machine's memory, naming the larger of ``name`` (n) and ``dim`` (dim = 2**31 was blamed on n)."""
    n_bytes = 8.0 * n * (squares * n + dim)
    culprit, value = (name, n) if n >= dim else ("dim", dim)
    check_fits_memory(owner, culprit, value, n_bytes)


def _grid(bounds: np.ndarray, n_grid: int) -> np.ndarray:
    axes = [np.linspace(lo, hi, n_grid) for lo, hi in bounds]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(axes))


def _float64_answer(call: str, raw: Any) -> Any:
    """``raw``, a user's f or c answer, refused when it is a float16/bfloat16/float32 value: the SLSQP polish
    differentiates f and c numerically, and float32's rounding (6e-8 relative) stalled it at a worse point
    (x = [0.5, 0.053], 0.2528 for [0.5, 0], 0.25) in silence."""
    if precision_rank(raw) in (1, 2):   # integer answers are exact values, read as float64
        raise TypeError(f"{call} must return float64 values (a Python float or a float64 array), got "
                        f"{raw.dtype}: its rounding stalls the polish's finite differences at a worse point")
    return raw


def _batch(name: str, g: Callable, X: np.ndarray) -> np.ndarray:
    """g at the rows of X as an (n, k) array, vectorized when g takes X; errors name ``name`` (f or c).
    g gets copies: one that writes into its argument changes nothing here."""
    try:
        raw = g(X.copy())
        values = as_real_array(f"{name}(X)", raw, check_range=False)
        # one value (or one row of values) per point: an (n, 2, 2) answer was flattened into (n, 4)
        vectorized = values.ndim in (1, 2) and values.shape[0] == X.shape[0]
    except Exception:   # g takes one point (or fails): per point, where its own errors are named
        vectorized = False
    if vectorized:
        _float64_answer(f"{name}(X)", raw)
        return values.reshape(X.shape[0], -1)
    rows = [_float64_answer(f"{name}(x)", call_user(f"{name}(x)", g, x.copy())) for x in X]
    rows = [np.atleast_1d(as_real_array(f"{name}(x)", row, check_range=False)) for row in rows]
    shapes = {row.shape for row in rows}
    if len(shapes) != 1 or next(iter(shapes)) != (rows[0].size,):   # a matrix, or lengths that vary
        raise ValueError(f"{name}(x) must return a float or a 1-D array of one length at every point, got "
                         f"shapes {sorted(shapes)[:3]}")
    return np.array(rows)


#: the most grid nodes constrained_minimum evaluates f and c at (minutes at the cap; 3^20 nodes took hours)
GRID_MAX_NODES = 10**7
#: the largest dimension rkhs_problem takes: 3^14 grid nodes fit under GRID_MAX_NODES, 3^15 do not
RKHS_PROBLEM_MAX_DIM = 14


@allocates("n_grid",)
def _capped_range(values: np.ndarray) -> np.ndarray:
    """Per column: the range (max − min), at most 1000 times the median absolute deviation from the median
    where that is > 0, so one outlying node does not set the column's scale."""
    half = 0.5 * values   # halves: the deviations of values near ±3.4e38 stay finite
    spread = 2.0 * (half.max(axis=0) - half.min(axis=0))
    deviation = 2.0 * np.median(np.abs(half - np.median(half, axis=0)), axis=0)
    return np.where(deviation > 0, np.minimum(spread, 1e3 * deviation), spread)


def constrained_minimum(
    f: Callable, c: Callable, bounds, *, n_grid: int | None = None, n_polish: int = 3
) -> tuple[np.ndarray, float]:
    """(x*, f*) of min f s.t. c <= 0 on the box: a dense grid, then SLSQP from the best feasible nodes.

    ``bounds`` is the (d, 2) box of [lower, upper] rows (lower < upper, entries of magnitude at most 3.4e38);
    ``n_polish`` (int >= 1) the number of best
    feasible grid nodes SLSQP starts from.

    The grid has ``n_grid`` nodes per axis (default: about 10⁴ nodes in all); the best of the
    polished points that stay feasible (c <= 1e-10 of c's range on the grid) is returned. The
    polish runs in unit coordinates with f shifted by the best node's value and f and c divided by their
    ranges on the grid, so the answer scales with the box and with f, and ignores a constant added to f (a
    box of side 1e-7 or 1e7, f + 1e8, are solved alike). Each range is capped at 1000 times the values' median
    absolute deviation from their median (where that is > 0), so one node of 1e30 sets neither f's scale nor
    c's feasibility slack. f must
    return one finite float and c finite floats at every grid node, in float64 (a float32 answer is refused
    naming f or c: its rounding stalls the polish); both get copies of the points (one
    that writes into its argument changes nothing). ``n_grid`` an int >= 1 (refused when
    the n_grid^d nodes exceed this machine's memory or GRID_MAX_NODES = 10**7: with the default n_grid
    of 3 per axis from d = 9 on, a box of more than 14 dimensions is refused); ``n_polish`` an int >= 1
    (at most the feasible nodes are polished).

    >>> x, value = constrained_minimum(lambda x: float(x @ x), lambda x: 0.5 - x[0], [[0, 1], [0, 1]])
    >>> np.round(x, 6), round(value, 8)
    (array([0.5, 0. ]), 0.25)
    """
    check_takes("f", f, "f(x)", 1)
    check_takes("c", c, "c(x)", 1)
    bounds = as_float_array("bounds", bounds, ndim=2, dtype=np.float64)
    if bounds.shape[0] == 0 or bounds.shape[1] != 2 or np.any(bounds[:, 0] >= bounds[:, 1]):
        raise ValueError(f"bounds must be a (d, 2) array of d >= 1 rows lower < upper, got {bounds.tolist()}")
    with np.errstate(over="ignore"):
        wide = not np.all(np.isfinite(bounds[:, 1] - bounds[:, 0]))
    if wide:   # (-1e308, 1e308): upper - lower overflowed and the answer was x = inf
        raise ValueError(f"bounds must have a finite width upper - lower in every row, got "
                         f"{bounds.tolist()!r:.80}")
    dim = bounds.shape[0]
    n_grid = check_count("n_grid", n_grid, 1) if n_grid is not None else max(3, int(1e4 ** (1 / dim)))
    # the grid's nodes and f, c there, before any is built: n_grid = 10**9 in 2-D hung
    # in logs: float(n_grid) ** dim overflowed (OverflowError) for n_grid = 10**9 in 40-D
    log_nodes = dim * math.log10(n_grid)
    if log_nodes > math.log10(GRID_MAX_NODES):   # f and c at every node: 3^20 nodes in 20-D ran for hours
        raise ValueError(f"n_grid = {n_grid} is too large for d = {dim}: n_grid^d = 10^{log_nodes:.3g} nodes "
                         f"exceed GRID_MAX_NODES = {GRID_MAX_NODES:.0e} (f and c are evaluated at every "
                         f"node); use a smaller n_grid or fewer dimensions (d is the rows of bounds; the "
                         f"default n_grid is 3 from d = 9 on)")
    check_fits_memory("constrained_minimum", "n_grid", n_grid, 8.0 * float(n_grid) ** dim * (dim + 2))
    n_polish = check_positive_int("n_polish", n_polish)
    nodes = _grid(bounds, n_grid)
    f_grid = _batch("f", f, nodes)
    if f_grid.shape[1] != 1:
        raise ValueError(f"f must return one float per point, got {f_grid.shape[1]} values")
    c_nodes = _batch("c", c, nodes)
    for name, values in (("f", f_grid), ("c", c_nodes)):
        if not np.all(np.isfinite(values)):
            i = int(np.flatnonzero(~np.all(np.isfinite(values), axis=1))[0])
            raise ValueError(f"{name} must be finite on the box, got {values[i].tolist()} at "
                             f"x = {nodes[i].tolist()}")
    f_values = f_grid[:, 0]
    feasible = np.all(c_nodes <= 0, axis=1)
    if not feasible.any():
        raise ValueError("c is positive at every grid node: the feasible region {c <= 0} is empty or thinner "
                         "than the grid (raise n_grid)")
    lo, width = bounds[:, 0], bounds[:, 1] - bounds[:, 0]
    # shifted by the best node's value as well as scaled: f + 1e8 left SLSQP on values ~1e8 / range, whose
    # changes fell under its ftol, and the answer stayed at the grid node (red14a)
    # ranges capped at 1000 median absolute deviations: one node's f or c of 1e30 made the range 1e30, the
    # scaled objective flat (the polish stopped at the grid node, 3e-5 above f* = 0) and c's feasibility
    # slack 1e20
    f_scale = _capped_range(f_values[:, None])[0] or 1.0
    c_range = _capped_range(c_nodes)
    c_scale = np.where(c_range > 0, c_range, 1.0)

    def point(u):   # unit coordinates -> the box (exactly u on the unit box)
        return np.clip(lo + u * width, bounds[:, 0], bounds[:, 1])

    def f_value(x) -> float:
        # a copy: an f that wrote into its x moved the returned answer out of the box (red13a)
        values = np.atleast_1d(as_real_array("f(x)", _float64_answer("f(x)", call_user("f(x)", f, x.copy())),
                                             check_range=False))
        if values.size != 1:
            raise ValueError(f"f must return one float per point, got shape {values.shape}")
        return float(values[0])

    def c_value(x) -> np.ndarray:
        return np.atleast_1d(as_real_array("c(x)", _float64_answer("c(x)", call_user("c(x)", c, x.copy())),
                                           check_range=False))

    order = np.flatnonzero(feasible)[np.argsort(f_values[feasible])]
    best_x, best_f = nodes[order[0]], float(f_values[order[0]])
    shift = best_f
    # SLSQP's finite-difference step, widened past the rounding of f's size (f + 1e8 rounds to 1.5e-8, its
    # default step's whole change): sqrt of the scaled objective's rounding, the default for ordinary f
    # (f's size near the answer, the best node's, not the largest anywhere: a node of 1e30 made the step 1e7)
    noise = float(np.finfo(np.float64).eps) * max(abs(best_f), f_scale) / f_scale
    step = max(float(np.sqrt(np.finfo(np.float64).eps)), math.sqrt(noise))
    for start in nodes[order[:n_polish]]:
        res = minimize(
            lambda u: (f_value(point(u)) - shift) / f_scale,
            (start - lo) / width,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * dim,
            constraints=[{"type": "ineq", "fun": lambda u: -c_value(point(u)) / c_scale}],
            options={"ftol": 1e-14, "maxiter": 500, "eps": step},
        )
        x = point(np.clip(res.x, 0.0, 1.0))
        value = f_value(x)
        if np.all(c_value(x) <= 1e-10 * c_scale) and value < best_f:
            best_x, best_f = x, value
    return best_x, best_f


#: the most draws :func:`rkhs_problem` tries before it gives up (each a grid search and an SLSQP polish)
RKHS_DRAWS = 50


def rkhs_problem(
    kernel: Kernel,
    dim: int,
    *,
    norm_f: float = 3.0,
    norm_c: float = 3.0,
    n_initial: int = 10,
    seed: int = 0,
    gp_objective: bool = False,
    n_centers: int = 100,
) -> ConstrainedBOProblem:
    """f, c random RKHS functions (or f a GP sample path, ``gp_objective=True``) on [0, 1]^dim.

    ``kernel`` is the :class:`Kernel` of both RKHSs, ``norm_f`` and ``norm_c`` (finite floats > 0) the
    RKHS norms of f and c, ``n_centers`` (int >= 1) the kernel centres of each function.

    ``seed`` is an int in [0, 2**64) (a seed, not a count: 2**63 and 2**64 − 1 are valid; the redraws
    below wrap modulo 2**64). Draws are repeated (seed, seed + 1000, ..., at most ``RKHS_DRAWS`` = 50
    draws) until the unconstrained minimizer of f is infeasible, with a minimum at least 5 % of f's range
    below f*, and the ``n_initial``-point Latin hypercube design (seeded) holds a feasible point; when none
    of the 50 draws qualifies the call raises ``ValueError`` saying so (a kernel nearly constant on the unit
    box, or few centres: with ``n_centers = 1`` one bump rarely makes the constraint active, and the SE kernel
    of lengthscale 0.2 in dim 1 finds no draw); the problem's ``initial``
    is that design and ``f_star``/``x_star`` its constrained optimum as :func:`constrained_minimum` finds
    it (a grid of about 10⁴ nodes, 3 SLSQP polishes): exact to rounding for dim <= 2 (checked against
    40-start SLSQP), but from dim = 4 on the coarse grid can miss the best basin (dim 4, seed 1 with an SE
    kernel of lengthscale 0.2: a feasible point 0.036 lower), and a run that finds a lower feasible value
    is then refused naming f_star. ``norm_f``, ``norm_c`` floats in [1.18e-38, 1e8] (the optimum's
    feasibility is checked to an absolute 1e-6); ``n_initial`` and ``n_centers`` positive ints (refused
    when the design's GP factor or the centres' kernel matrix exceeds this machine's memory); ``dim`` an
    int in [1, RKHS_PROBLEM_MAX_DIM = 14] (f* is found on a grid of at least 3^dim nodes).

    >>> prob = rkhs_problem(Kernel("se", lengthscale=0.2), 1, seed=0)
    >>> feasible = prob.initial[prob.c(prob.initial) <= 0]
    >>> prob.initial.shape, bool(prob.f_star <= prob.f(feasible).min())
    ((10, 1), True)
    """
    gp_objective = check_bool("gp_objective", gp_objective)
    _check_kernel(kernel)
    dim = check_positive_int("dim", dim)
    # by name here (rkhs_function's message says "norm"); at most 1e8: the optimum's polish is exact to
    # about 1e-16 of c's scale, and the problem's feasibility check of x_star is absolute (1e-6), so a norm_c
    # of 2**63 failed there with a message naming x_star
    norm_f = check_scale("norm_f", norm_f, upper=1e8)
    norm_c = check_scale("norm_c", norm_c, upper=1e8)
    n_initial = check_count("n_initial", n_initial, 1)
    check_fits_memory("rkhs_problem", "n_initial", n_initial, 16.0 * n_initial * n_initial)
    n_centers = check_count("n_centers", n_centers, 1)
    _check_size("rkhs_problem", n_centers, dim, "n_centers")
    if dim > RKHS_PROBLEM_MAX_DIM:   # f* is found on a grid of 3^dim nodes: dim = 20 raised a MemoryError
        raise ValueError(f"dim must be <= {RKHS_PROBLEM_MAX_DIM} (f* is found on a grid of 3^dim nodes, at "
                         f"most GRID_MAX_NODES = {GRID_MAX_NODES:.0e}), got {dim}")
    bounds = np.array([[0.0, 1.0]] * dim)
    base = check_seed(seed)
    for attempt in range(RKHS_DRAWS):
        s = (base + 1000 * attempt) % 2**64   # wrapped: seed 2**64 - 1 gave c the invalid seed 2**64
        f = (
            gp_sample_path(kernel, dim, seed=s)
            if gp_objective
            else rkhs_function(kernel, dim, norm_f, n_centers=n_centers, seed=s)
        )
        c = rkhs_function(kernel, dim, norm_c, n_centers=n_centers, seed=(s + 1) % 2**64)
        nodes = _grid(bounds, max(3, int(1e4 ** (1 / dim))))
        f_nodes = f(nodes)
        if c(nodes[[np.argmin(f_nodes)]])[0] <= 0:
            continue  # the constraint would not matter
        design = qmc.LatinHypercube(d=dim, seed=s).random(n_initial)
        if not np.any(c(design) <= 0):
            continue
        try:
            x_star, f_star = constrained_minimum(f, c, bounds)
        except ValueError:
            continue
        if f_star - f_nodes.min() < 0.05 * np.ptp(f_nodes):
            continue  # an infeasible minimizer barely below f*: the constraint hardly matters
        kind = "GP sample" if gp_objective else "RKHS"
        return ConstrainedBOProblem(
            f=f,
            c=c,
            bounds=bounds,
            initial=design,
            f_star=f_star,
            x_star=x_star,
            name=f"{kind} {kernel.name} d={dim} seed={seed}",
        )
    raise ValueError(f"no admissible draw in {RKHS_DRAWS} attempts for seed {seed} with kernel "
                     f"{kernel!r:.120}: no draw made the constraint active with a feasible initial design "
                     f"(a kernel nearly constant on the unit box, or one too rough for n_centers = "
                     f"{n_centers}, rarely does); "
                     f"try another seed, lengthscale, norm_c or n_initial")


class _PointFunction:
    """One of the benchmark's f or c, called on a checked point: a finite real vector of the box's d entries,
    inside the box (``box``, the problem's (d, 2) bounds; a
    point of the wrong length met IndexError or a numpy broadcast error, None or a str a TypeError from
    inside the formula). Module-level and stateless, so the problems still pickle."""

    def __init__(self, fn: Callable[[np.ndarray], Any], box: np.ndarray) -> None:
        self.fn, self.box = fn, np.asarray(box, dtype=np.float64)
        self.dim = self.box.shape[0]
        self.__name__ = self.__qualname__ = fn.__name__.lstrip("_")

    def __call__(self, x: Any) -> Any:
        x = as_float_array("x", x, ndim=1, dtype=np.float64)
        if x.shape != (self.dim,):
            raise ValueError(f"x must be a point of the problem's {self.dim} dimensions, got shape {x.shape}")
        # the benchmark is defined on its box: x = 1e300 answered a huge value (or inf) in silence
        slack = 1e-9 * (self.box[:, 1] - self.box[:, 0])
        if np.any(x < self.box[:, 0] - slack) or np.any(x > self.box[:, 1] + slack):
            raise ValueError(f"x must lie in the problem's box {self.box.tolist()}, got {x.tolist()!r:.80}")
        return self.fn(x)

    def __repr__(self) -> str:
        return f"{self.__name__} (checked, d = {self.dim})"


_GARDNER_BOX = np.array([[0.0, 6.0], [0.0, 6.0]])
_BRANIN_BOX = np.array([[-5.0, 10.0], [0.0, 15.0]])
_UNIT2, _UNIT6 = np.array([[0.0, 1.0]] * 2), np.array([[0.0, 1.0]] * 6)
for _box in (_GARDNER_BOX, _BRANIN_BOX, _UNIT2, _UNIT6):
    _box.flags.writeable = False

# module-level functions, not lambdas: the problems pickle (and so deepcopy across processes)
def _gardner_f(x: np.ndarray) -> float:
    return float(np.cos(2 * x[0]) * np.cos(x[1]) + np.sin(x[0]))


def _gardner_c(x: np.ndarray) -> float:
    return float(np.cos(x[0]) * np.cos(x[1]) - np.sin(x[0]) * np.sin(x[1]) - 0.5)


def _branin_c(x: np.ndarray) -> float:
    return float((x[0] - 2.5) ** 2 + (x[1] - 7.5) ** 2 - 50.0)


def _sum(x: np.ndarray) -> float:
    return float(x[0] + x[1])


def _two_disks_c(x: np.ndarray) -> float:
    return float((np.sum((x - _DISK_A) ** 2) - _DISK_R**2) * (np.sum((x - _DISK_B) ** 2) - _DISK_R**2))


def _gramacy_c(x: np.ndarray) -> np.ndarray:
    return np.array([1.5 - x[0] - 2.0 * x[1] - 0.5 * np.sin(2.0 * np.pi * (x[0] ** 2 - 2.0 * x[1])),
                     x[0] ** 2 + x[1] ** 2 - 1.5])


def _hartmann6(x: np.ndarray) -> float:
    return float(-np.sum(_H6_ALPHA * np.exp(-np.sum(_H6_A * (np.asarray(x) - _H6_P) ** 2, axis=1))))


def _l1_c(x: np.ndarray) -> float:
    return float(np.sum(x) - 1.0)


def gardner_problem(initial: int | np.ndarray = 10) -> ConstrainedBOProblem:
    """min cos(2x₁)cos(x₂) + sin(x₁) s.t. cos(x₁)cos(x₂) − sin(x₁)sin(x₂) <= 1/2, x in [0, 6]².

    ``initial`` is the initial design: an int n₀ >= 1 (a Latin hypercube drawn with the solve's seed) or
    an (n₀, d) array of points inside the box.

    The optimum f* = −2 at (3π/2, 0) (where both terms reach −1); a second basin near (3π/2, 2π)
    is cut off by the box, and the constraint removes the bands where cos(x₁ + x₂) > 1/2.

    >>> prob = gardner_problem()
    >>> round(prob.f(prob.x_star), 6) == round(prob.f_star, 6), prob.c(prob.x_star) <= 1e-9
    (True, True)
    """
    return ConstrainedBOProblem(
        f=_PointFunction(_gardner_f, _GARDNER_BOX),
        c=_PointFunction(_gardner_c, _GARDNER_BOX),
        bounds=_GARDNER_BOX,
        initial=initial,
        f_star=-2.0,
        x_star=np.array([1.5 * np.pi, 0.0]),
        name="Gardner",
    )


def _branin(x: np.ndarray) -> float:
    a, b, c, r, s, t = 1.0, 5.1 / (4 * np.pi**2), 5 / np.pi, 6.0, 10.0, 1 / (8 * np.pi)
    return float(a * (x[1] - b * x[0] ** 2 + c * x[0] - r) ** 2 + s * (1 - t) * np.cos(x[0]) + s)


def constrained_branin(initial: int | np.ndarray = 10) -> ConstrainedBOProblem:
    """Branin on [−5, 10] × [0, 15] s.t. (x₁ − 2.5)² + (x₂ − 7.5)² <= 50; optimum 5/(4π) at (π, 2.275).

    ``initial`` is the initial design: an int n₀ >= 1 (a Latin hypercube drawn with the solve's seed) or
    an (n₀, d) array of points inside the box.

    >>> prob = constrained_branin()
    >>> round(prob.f_star, 6), prob.c(prob.x_star) <= 0
    (0.397887, True)
    """
    return ConstrainedBOProblem(
        f=_PointFunction(_branin, _BRANIN_BOX),
        c=_PointFunction(_branin_c, _BRANIN_BOX),
        bounds=_BRANIN_BOX,
        initial=initial,
        f_star=5.0 / (4.0 * np.pi),
        x_star=np.array([np.pi, 2.275]),
        name="constrained Branin",
    )


_DISK_A, _DISK_B, _DISK_R = np.array([0.2, 0.7]), np.array([0.75, 0.25]), 0.15


def two_disks_problem(initial: int | np.ndarray = 10) -> ConstrainedBOProblem:
    """min x₁ + x₂ on [0, 1]² over two disjoint discs (radius 0.15 at (0.2, 0.7) and (0.75, 0.25)).

    ``initial`` is the initial design: an int n₀ >= 1 (a Latin hypercube drawn with the solve's seed) or
    an (n₀, d) array of points inside the box.

    The constraint (‖x − a‖² − r²)(‖x − b‖² − r²) <= 0 holds exactly on the union of the discs
    (they are disjoint); the optimum a − r(1, 1)/√2 lies on the first disc, f* = 0.9 − 0.15√2, and
    the second disc holds a local optimum 0.1 worse.

    >>> prob = two_disks_problem()
    >>> round(prob.f_star, 6), abs(prob.c(prob.x_star)) < 1e-12
    (0.687868, True)
    """
    x_star = _DISK_A - _DISK_R / np.sqrt(2.0)
    return ConstrainedBOProblem(
        f=_PointFunction(_sum, _UNIT2),
        c=_PointFunction(_two_disks_c, _UNIT2),
        bounds=_UNIT2,
        initial=initial,
        f_star=float(x_star.sum()),
        x_star=x_star,
        name="two disks (disconnected feasible region)",
    )


def gramacy_problem(initial: int | np.ndarray = 10) -> ConstrainedBOProblem:
    """Gramacy et al. (2016)'s toy problem: min x₁ + x₂ on [0, 1]² s.t. two constraints (both <= 0):
    1.5 − x₁ − 2x₂ − ½ sin(2π(x₁² − 2x₂)) and x₁² + x₂² − 1.5.

    ``initial`` is the initial design: an int n₀ >= 1 (a Latin hypercube drawn with the solve's seed) or
    an (n₀, d) array of points inside the box.

    The sine makes the feasible region non-convex with several local optima on its boundary; the
    optimum f* ≈ 0.59979 at (0.1951, 0.4047) (multi-start SLSQP, the value stored here).

    >>> prob = gramacy_problem()
    >>> prob.n_constraints, bool(np.all(prob.c(prob.x_star) <= 1e-9))
    (2, True)
    >>> abs(prob.f(prob.x_star) - prob.f_star) < 1e-12
    True
    """
    x_star = np.array([0.19512268856868956, 0.4046653634413711])
    return ConstrainedBOProblem(
        f=_PointFunction(_sum, _UNIT2),
        c=_PointFunction(_gramacy_c, _UNIT2),
        bounds=_UNIT2,
        initial=initial,
        f_star=float(x_star.sum()),
        x_star=x_star,
        name="Gramacy (two constraints)",
        n_constraints=2,
    )


_H6_A = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
                  [17, 8, 0.05, 10, 0.1, 14]])
_H6_P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
                         [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]])
_H6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


def hartmann6_l1_problem(initial: int | np.ndarray = 60) -> ConstrainedBOProblem:
    """Hartmann-6 on [0, 1]⁶ subject to ‖x‖₁ − 1 <= 0.

    ``initial`` is the initial design: an int n₀ >= 1 (a Latin hypercube drawn with the solve's seed) or
    an (n₀, d) array of points inside the box.

    The unconstrained minimum (−3.32237, ‖x‖₁ ≈ 2.07) is infeasible; the constrained optimum
    f* ≈ −1.51503 lies on the constraint, at about (0, 0, 0, 0.1973, 0.2513, 0.5514) (multi-start
    SLSQP, the value stored here).

    >>> prob = hartmann6_l1_problem()
    >>> prob.dim, bool(prob.c(prob.x_star) <= 1e-9), abs(prob.f(prob.x_star) - prob.f_star) < 1e-6
    (6, True, True)
    """
    x_star = np.array([0.0, 0.0, 0.0, 0.197301, 0.251296, 0.551403])
    x_star = x_star / max(1.0, float(x_star.sum()))       # on the constraint, not past it by rounding
    return ConstrainedBOProblem(
        f=_PointFunction(_hartmann6, _UNIT6),
        c=_PointFunction(_l1_c, _UNIT6),
        bounds=_UNIT6,
        initial=initial,
        f_star=_hartmann6(x_star),
        x_star=x_star,
        name="Hartmann-6, l1 constraint",
        n_constraints=1,
    )
