"""The Neumann-series hypergradient of a bilevel problem (Appendix E.1 of the paper).

∇Φ(x) = ∇_x f − ∇²_xy g [∇²_yy g]⁻¹ ∇_y f at y = y*(x). With H = ∇²_yy g, μ_g I ⪯ H ⪯ l_g1 I,
the inverse is the series H⁻¹ = (1/l_g1) Σ_{n>=0} (I − H/l_g1)ⁿ; keeping N terms,

    p_N = (1/l_g1) Σ_{n<N} (I − H/l_g1)ⁿ ∇_y F,     ḡ_N = ∇_x F − ∇²_xy G · p_N,

each power of (I − H/l_g1) applied through one fresh Hessian-vector sample. On exact oracles
at y*(x) the error is ∇²_xy g H⁻¹ (I − H/l_g1)^N ∇_y f: it shrinks like (1 − μ_g/l_g1)^N.
Theorem 4.2 takes N >= 3 log T / (2 log(1/(1 − μ_g/l_g1))), so the bias is O(T^(−3/2)).

References
----------
X. Gong, J. Hao, M. Liu. Adaptive Algorithms with Sharp Convergence Rates for Stochastic
Hierarchical Optimization. NeurIPS 2025, arXiv:2509.15399 (Appendix E.1, Theorem 4.2);
K. Ji, J. Yang, Y. Liang. Bilevel optimization: convergence analysis and enhanced design. ICML 2021.

>>> import numpy as np
>>> from algorithms.hierarchical import neumann_hypergradient, quadratic_bilevel
>>> prob = quadratic_bilevel(seed=0)
>>> est, calls = neumann_hypergradient(prob, prob.x0, prob.y0, 0, np.random.default_rng(0))
>>> calls, bool(np.allclose(est, prob.upper_grad(prob.x0, prob.y0, None)[0]))   # N = 0: ∇_x f only
(0, True)
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from algorithms._validation import (
    as_float_array,
    check_count,
    check_int_at_least,
    check_positive,
    revalidate_if_reassigned,
)
from algorithms.hierarchical._loop import checked
from algorithms.hierarchical.problems import BilevelProblem

__all__ = ["neumann_hypergradient", "neumann_terms"]


def neumann_terms(horizon: int, mu_g: float, l_g1: float) -> int:
    """Theorem 4.2's series length: the least N >= 3 log T / (2 log(1/(1 − μ_g/l_g1))), at least 1.

    ``horizon`` T is an int >= 1; ``mu_g`` <= ``l_g1`` are finite floats > 0 in [1.18e-38, 3.4e38] whose
    ratio keeps the length at most 2**63 - 1: mu_g / l_g1 at least about 1.5 log(T) / 9.2e18 (2.3e-18 at
    T = 10**6), else refused naming mu_g / l_g1. (A solve further caps the length at 10**6 terms.)

    >>> neumann_terms(1000, 0.5, 2.0)
    37
    """
    horizon = int(check_int_at_least("horizon", horizon, 1))  # a numpy int cubed in int64 wrapped (red23b)
    # the shared check: a numpy float32 is a number, and 10**400 no longer reached math.isfinite's
    # OverflowError
    mu_g, l_g1 = check_positive("mu_g", mu_g), check_positive("l_g1", l_g1)
    if mu_g > l_g1:
        raise ValueError(f"mu_g must be <= l_g1, got mu_g = {mu_g!r} > l_g1 = {l_g1!r}")
    if mu_g == l_g1:  # H = l_g1·I: one term is exact
        return 1
    # log(1/(1 − μ/l)) as −log1p(−μ/l): for μ/l below 1e-16, 1 − μ/l rounded to 1 and log(1) = 0 divided
    rate = -math.log1p(-mu_g / l_g1)
    length = 3.0 * math.log(horizon) / (2.0 * rate) if rate > 0 else math.inf
    if not length <= 2**63 - 1:  # a count the package holds (an int64): 1e-30 gave 3e30 terms, inf overflowed
        raise ValueError(f"mu_g / l_g1 = {mu_g!r} / {l_g1!r} is too small: Theorem 4.2's series length "
                         f"({length:.3g}) exceeds 2**63 - 1")
    nearest = round(length)
    if length > 2**50 or abs(length - nearest) <= 1e-9 * max(1.0, length):
        # past 2**50 the float bound has no fractional digits left (2**-60 gave N 104 below the bound)
        # a bound at (or rounding-close to) an integer N: the float ceil gave N + 1 at T = 2**42, μ/l = 1/2
        # (exactly 63), so decide N >= bound exactly: (1 − μ/l)^(2N) · T³ <= 1
        return max(1, _least_length(horizon, mu_g, l_g1, nearest))
    return max(1, math.ceil(length))


def _least_length(horizon: int, mu_g: float, l_g1: float, near: int) -> int:
    """The least N with (1 − μ/l)^(2N) · T³ <= 1 where the bound lies within rounding of ``near``: exactly in
    integers when 1 − μ/l = 1/b (the only case the bound can be an integer: a^(2N) T³ = b^(2N), a, b coprime,
    needs a = 1), else by the sign of the bound − near at 60 digits (it is then not an integer)."""
    rest = 1 - Fraction(mu_g) / Fraction(l_g1)
    if rest.numerator == 1 and near <= 2**50:
        cube = horizon**3
        return min(n for n in (near - 1, near, near + 1) if n >= 0 and rest.denominator ** (2 * n) >= cube)
    with mpmath.workdps(60):
        bound = 3 * mpmath.log(horizon) / (-2 * mpmath.log1p(-mpmath.mpf(mu_g) / mpmath.mpf(l_g1)))
        return int(mpmath.ceil(bound))


#: the most Neumann terms (and inner steps) a run may take per iteration: each is an oracle call, so
#: Theorem 4.2's length for mu_g/l_g1 = 1e-12 (about 1e13 terms) was a run that never ends
MAX_TERMS = 10**6


def theorem_terms(horizon: int, mu_g: float, l_g1: float) -> int:
    """``neumann_terms(horizon, mu_g, l_g1)``, refused (naming ``mu_g``) past :data:`MAX_TERMS`."""
    terms = neumann_terms(horizon, mu_g, l_g1)
    if terms > MAX_TERMS:
        raise ValueError(f"mu_g = {mu_g!r} (with l_g1 = {l_g1!r}) needs {terms} Neumann terms per "
                         f"hypergradient (Theorem 4.2), more than {MAX_TERMS}: give the algorithm "
                         f"neumann_terms=... or a problem with a larger mu_g / l_g1")
    return terms


def neumann_hypergradient(problem: BilevelProblem, x: np.ndarray, y: np.ndarray, terms: int,
                          rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """ḡ_N at (x, y) with N = ``terms`` (see the module docstring) and the Hessian-vector calls used.

    ``problem`` is a :class:`BilevelProblem`, ``x`` and ``y`` points of its shapes (converted to its
    ``x0``'s dtype: the estimate has that dtype), ``terms`` an int in
    [0, 10**6] (0: no Hessian-vector product, the first term alone) and ``rng`` a ``numpy.random.Generator``.

    Oracle outputs of the wrong type or shape raise TypeError/ValueError naming the oracle;
    non-finite entries raise ``OracleFailure`` (a solver turns it into ``Diverged``).
    """
    if not isinstance(problem, BilevelProblem):
        raise TypeError(f"problem must be a BilevelProblem, got {type(problem).__name__}")
    revalidate_if_reassigned(problem)  # a field replaced since construction (l_g1 = -1 was used), as solve
    check_count("terms", terms, 0, MAX_TERMS, "each is a Hessian-vector product")  # 2**31 - 1: a hang
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got "
                        f"{type(rng).__name__} {rng!r}")
    # a user's NaN point is named, not an oracle's; in the problem's dtype (a float32 x on a float64
    # problem gave a float32 estimate, a float32 y a float64 one)
    x = as_float_array("x", x, dtype=problem.x0.dtype)
    y = as_float_array("y", y, dtype=problem.x0.dtype)
    return _hypergradient(problem, x, y, terms, rng)


def _hypergradient(problem: BilevelProblem, x: np.ndarray, y: np.ndarray, terms: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The estimate for checked arguments; a solver's iterate that turned non-finite reaches the oracles
    (``OracleFailure``, which the solver reports as ``Diverged``)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != problem.x0.shape or y.shape != problem.y0.shape:
        raise ValueError(f"x and y must have shapes {problem.x0.shape} and {problem.y0.shape}, got "
                         f"{x.shape} and {y.shape}")
    fx, fy = problem.upper_oracle(x, y, rng)
    fx, fy = checked("upper_grad x-part", fx, x), checked("upper_grad y-part", fy, y)
    if terms == 0:
        return fx, 0
    power = fy
    total = fy.copy()
    # both parts of every answer checked, the part a call does not use too: the last call's yy-part went
    # unchecked, and a NaN or wrong-shape ∇²_yy G·v ended Success (red20c)
    for _ in range(terms - 1):
        cross, hess = problem.hvp_oracle(x, y, power, rng)
        checked("lower_hvp xy-part", cross, x)
        power = power - checked("lower_hvp yy-part", hess, y) / problem.l_g1
        total = total + power
    cross, hess = problem.hvp_oracle(x, y, total / problem.l_g1, rng)
    checked("lower_hvp yy-part", hess, y)
    return fx - checked("lower_hvp xy-part", cross, x), terms
