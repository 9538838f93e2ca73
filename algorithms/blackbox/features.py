"""Problem features for Agent 1: 4 basic properties and 9 landscape (ELA-style) features.

From a Latin-hypercube sample ``(X, y)`` of the box (its evaluations are charged to the budget),
with ``x`` scaled to [0, 1]^d and ``y`` standardized:

1. ``lin_r2``: R² of a least-squares linear model of y
2. ``quad_r2``: R² of a quadratic model without interactions
3. ``quad_cond``: log10(max|a_j| / min|a_j|) of the quadratic coefficients, / 10 (conditioning)
4. ``skewness`` of y, clipped to [-5, 5], / 5
5. ``kurtosis`` (excess) of y, clipped to [-5, 20], / 20
6. ``dispersion``: mean pairwise distance of the best 10 % over that of all points, minus 1
7. ``fdc``: correlation of y with the distance to the best sample point
8. ``nbc``: mean nearest-better distance over mean nearest-neighbour distance, / 10
9. ``local_minima``: fraction of sample points better than their k = 5 nearest neighbours

The basic properties are d/20, log10(budget)/6 and the mean upper and lower bounds / 10.
The paper uses 9 ELA features selected by sensitivity analysis (its Appendix B.1); ours are
cheap analogues of the same families (meta-model fit, y-distribution, dispersion, fitness-
distance correlation, nearest-better clustering), see the note.

References
----------
O. Mersmann et al. Exploratory landscape analysis. GECCO 2011. H. Guo et al. DesignX, NeurIPS
2025, arXiv:2505.17866 (Section 3.2.1).

>>> import numpy as np
>>> from algorithms.blackbox import BlackBoxProblem, Evaluator
>>> p = BlackBoxProblem(lambda x: float(x @ x), (-np.ones(2), np.ones(2)), 1000)
>>> F, X, y = problem_features(Evaluator(p), np.random.default_rng(0))
>>> F.shape, X.shape
((13,), (40, 2))
"""

from __future__ import annotations

import math

import numpy as np

from algorithms._validation import (
    as_real_array,
    check_count,
    check_generator,
    check_int_at_least,
    check_positive_int,
    run_values,
    user_range,
)
from algorithms.blackbox.components import initialize
from algorithms.blackbox.problem import Evaluator

__all__ = ["FEATURE_NAMES", "N_FEATURES", "ela_features", "problem_features", "sample_size"]

FEATURE_NAMES = ("dim", "log_budget", "upper", "lower", "lin_r2", "quad_r2", "quad_cond", "skewness",
                 "kurtosis", "dispersion", "fdc", "nbc", "local_minima")
N_FEATURES = len(FEATURE_NAMES)


def sample_size(dim: int, budget: int) -> int:
    """20·d points, at most 5 % of the budget, at least 2d + 3 (and never more than the budget).

    >>> sample_size(5, 10_000), sample_size(5, 200)
    (100, 13)
    """
    check_positive_int("dim", dim)
    check_positive_int("budget", budget)
    return int(min(budget, max(2 * dim + 3, min(20 * dim, budget // 20))))


def _r2(A: np.ndarray, z: np.ndarray) -> tuple[float, np.ndarray]:
    coef, *_ = np.linalg.lstsq(A, z, rcond=None)
    resid = z - A @ coef
    return float(1.0 - resid @ resid / max(z @ z, 1e-300)), coef


def ela_features(X: np.ndarray, y: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """The 9 landscape features of a sample (±inf values replaced by the worst finite one; NaN refused, as
    the other components refuse it: +inf stands for the worst value).

    A sample with no landscape to describe (every value equal or non-finite, or fewer than 2d + 2
    points) gives the zero vector.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.random((60, 2))
    >>> f = ela_features(X, X @ [1.0, 2.0], np.zeros(2), np.ones(2))
    >>> round(float(f[0]), 6)                       # a linear function: linear R² = 1
    1.0
    """
    X = as_real_array("X", X, check_range=user_range())
    lower, upper = as_real_array("lower", lower), as_real_array("upper", upper)
    if X.ndim != 2 or lower.shape != (X.shape[1],) or upper.shape != lower.shape:
        raise ValueError(f"X must be (n, d) with lower and upper of shape (d,), got {X.shape}, "
                         f"{lower.shape}, {upper.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("X, lower and upper must be finite (NaN points failed inside an SVD)")
    if not np.all(lower < upper):
        raise ValueError(f"lower must be < upper entrywise, got {lower.tolist()!r:.60} and "
                         f"{upper.tolist()!r:.60}")
    slack = 1e-9 * (upper - lower)   # a boundary handler's rounding
    outside = ~np.all((X >= lower - slack) & (X <= upper + slack), axis=1)
    if outside.any():   # X = 1e308 in a unit box: the scaled sample failed inside numpy's SVD (LinAlgError)
        row = int(np.flatnonzero(outside)[0])
        raise ValueError(f"X must hold points of the box [lower, upper]; row {row} is "
                         f"{X[row].tolist()!r:.80}")
    y = as_real_array("y", y, check_range=user_range()).copy()   # f's values in a run: any finite size
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    if np.isnan(y).any():   # replaced by the worst value in silence (the Evaluator turns NaN into +inf)
        raise ValueError("y contains NaN entries (+inf stands for the worst value)")
    X = (X - lower) / (upper - lower)
    finite = np.isfinite(y)
    if not np.any(finite):
        return np.zeros(9)
    y[~finite] = y[finite].max()
    n, d = X.shape
    # the features are scale-free: y in units of its largest magnitude first (f ~ 1e200 overflowed y.std()
    # and every feature was NaN; f ~ 1e-310 had its spread read as none)
    top = float(np.max(np.abs(y)))
    if top > 0 and not 1e-150 <= top <= 1e150:   # data of ordinary size stay exactly as they are
        y = y / top
    sd = y.std()
    if sd <= 1e-300 or n < 2 * d + 2:
        return np.zeros(9)
    z = (y - y.mean()) / sd
    ones = np.ones((n, 1))
    lin, _ = _r2(np.hstack([ones, X]), z)
    quad, coef = _r2(np.hstack([ones, X, X**2]), z)
    a = np.abs(coef[1 + d:])
    cond = math.log10(max(a.max(), 1e-12) / max(a.min(), 1e-12)) / 10.0
    skew = float(np.mean(z**3))
    kurt = float(np.mean(z**4) - 3.0)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    iu = np.triu_indices(n, 1)
    top = np.argsort(z, kind="stable")[: max(2, n // 10)]
    Dt = D[np.ix_(top, top)][np.triu_indices(len(top), 1)]
    dispersion = float(Dt.mean() / max(D[iu].mean(), 1e-300) - 1.0)
    dist_best = D[int(np.argmin(z))]
    # a spread rounding to 0 inside corrcoef (one finite value among failed evaluations) gave numpy's
    # RuntimeWarning; its NaN is read as 0 below
    with np.errstate(divide="ignore", invalid="ignore"):
        fdc = float(np.corrcoef(z, dist_best)[0, 1]) if dist_best.std() > 0 else 0.0
    Dn = D + np.diag(np.full(n, np.inf))
    nn = Dn.min(1).mean()
    better = z[None, :] < z[:, None]
    nb = np.where(better, Dn, np.inf).min(1)
    nbc = float(nb[np.isfinite(nb)].mean() / max(nn, 1e-300)) / 10.0 if np.any(np.isfinite(nb)) else 0.0
    k = min(5, n - 1)
    knn = np.argsort(Dn, axis=1)[:, :k]
    local = float(np.mean(np.all(z[:, None] <= z[knn], axis=1)))
    return np.array([lin, quad, cond, np.clip(skew, -5, 5) / 5, np.clip(kurt, -5, 20) / 20, dispersion,
                     fdc if math.isfinite(fdc) else 0.0, nbc, local])


def problem_features(ev: Evaluator, rng: np.random.Generator, n: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 13 features of ``ev.problem`` from an LHS sample of size ``n`` (default
    :func:`sample_size`), evaluated through ``ev`` (charged to the budget); returns (F, X, y).
    ``n`` above the evaluations left (``ev.remaining``) is cut to them (at least one point is sampled; on
    an exhausted evaluator its values are ``+inf``, as every evaluation past the budget).

    ``ev`` is the problem's :class:`Evaluator`, ``rng`` a ``numpy.random.Generator`` (draws the sample)
    and ``n`` an int in [1, 2**63 - 1] or None; after the cut to the evaluations left, a sample of more than
    2**31 - 1 points is refused naming n (the features' cost grows with it: hours).

    F is dimension / 20, log10(budget) / 6, mean upper bound / 10, mean lower bound / 10 (the scales
    the shipped agents were trained with), then :func:`ela_features` of the sample."""
    check_generator("rng", rng)
    if not isinstance(ev, Evaluator):
        raise TypeError(f"ev must be an Evaluator, got {type(ev).__name__}")
    prob = ev.problem
    # n is cut to the evaluations left before the sample-size cap (the docstring's cut: 2**31 was refused
    # on an evaluator with 100 evaluations left)
    n = sample_size(prob.dim, prob.budget) if n is None else check_int_at_least("n", n, 1)
    n = check_count("n", max(1, min(n, max(ev.remaining, 1))), 1, why="a sample's size, after the cut")
    lo, hi = prob.lower.astype(float), prob.upper.astype(float)
    X = initialize("lhs", n, lo, hi, rng)
    y = ev(X)
    basic = np.array([prob.dim / 20.0, math.log10(prob.budget) / 6.0, float(hi.mean()) / 10.0,
                      float(lo.mean()) / 10.0])
    with run_values():   # the sample's values are f's answers, not a user's input
        return np.concatenate([basic, ela_features(X, y, lo, hi)]), X, y
