"""Local curvature calculus: new :class:`CurvatureProblem`s from old ones (Section 5).

Lemma 5.1 of Richtárik, Giancola, Lubczyk, Yadav (arXiv:2405.16574): if f and g satisfy the
lower bound (5) with curvature maps C₁ and C₂, then f + α satisfies it with C₁, βf (β >= 0)
with βC₁, and f + g with C₁ + C₂. Corollary 5.1 is the case of a convex g (C₂ ≡ 0). The upper
bound (6) passes through the same operations with L_C, βL_C and L_C¹ + L_C² (sum the two
upper bounds), which these functions carry along so the results are ready for every method.
Each result keeps its base problems as they were when it was built (a base changed later does not reach it).

* :func:`shifted` — f + α, C and L_C unchanged, f* + α.
* :func:`scaled` — βf, curvature βC, L_C times β, f* times β.
* :func:`summed` — f + g on one domain, C₁ + C₂, L_C¹ + L_C²; f* and x* unknown (None).

>>> import numpy as np
>>> from algorithms.curvature import squared_lp_norm, squared_hinge
>>> lp = squared_lp_norm(3, x0=np.array([1.0, -2.0]))
>>> hinge = squared_hinge(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0]), x0=lp.x0)
>>> total = summed(lp, hinge)            # Corollary 5.1: hinge is convex, C ≡ 0
>>> total.curvature_at(total.x0).tolist() == lp.curvature_at(lp.x0).tolist(), total.L_C
(True, 6.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from algorithms._validation import WORKING_MAX, WORKING_MIN, check_working_range
from algorithms.core import rebuilt_by_factory
from algorithms.curvature.problem import CurvatureProblem, blamed_on, check_finite_real

__all__ = ["scaled", "shifted", "summed"]


def _check_problem(name: str, problem: Any) -> CurvatureProblem:
    """``problem`` as it is now: a shallow snapshot (its arrays are read-only), so a field of the base
    replaced later (object.__setattr__) does not reach the derived problem's closures: ``shifted``'s f read
    the base's f at call time while its grad and f* were taken at derivation (f* above f, run in silence)."""
    if not isinstance(problem, CurvatureProblem):
        raise TypeError(f"{name} must be a CurvatureProblem, got {type(problem).__name__}")
    snapshot = object.__new__(type(problem))
    snapshot.__dict__.update(problem.__dict__)
    return snapshot


@rebuilt_by_factory
def shifted(problem: CurvatureProblem, alpha: float) -> CurvatureProblem:
    """f + α with the same curvature map and L_C (Lemma 5.1, first rule).

    ``problem`` is a :class:`CurvatureProblem` and ``alpha`` any real in the working range
    (|alpha| <= 3.4e38). A large ``alpha`` puts the gap
    f − f* below f's rounding near x* (|α| ≫ f(x0) − f*): Polyak, LCD2, LCD3 and L-BFGS-B then end ``Stalled``
    short of the tolerance, GradientDescent and LCD1 still reach it (see ``CurvatureProblem``'s f_star).

    >>> import numpy as np
    >>> from algorithms.curvature import squared_lp_norm
    >>> shifted(squared_lp_norm(2, x0=np.ones(2)), 3.0).f_star
    3.0
    """
    problem = _check_problem("problem", problem)
    alpha = check_finite_real("alpha", alpha)
    f_star = None if problem.f_star is None else problem.f_star + alpha
    with blamed_on(alpha=alpha):
        return CurvatureProblem(f=lambda x: problem.f(x) + alpha, grad=problem.grad,
                                curvature=problem.curvature, L_C=problem.L_C, x0=problem.x0,
                                f_star=f_star, x_star=problem.x_star, L=problem.L,
                                name=f"({problem.name}) + {alpha:g}")


@rebuilt_by_factory
def scaled(problem: CurvatureProblem, beta: float) -> CurvatureProblem:
    """βf for β > 0, with curvature βC and constant βL_C (Lemma 5.1, second rule).

    ``problem`` is a :class:`CurvatureProblem` and ``beta`` a finite float > 0 such that β·L_C and β·L
    (and βf(x0), β∇f(x0), βC(x0)) stay in the working range [1.18e-38, 3.4e38] (so β <= 3.4e38 / max(L_C,
    L, ...): beta = 3.4e38 on L_C = 12.5 is refused by name; an L_C of 0 is kept as 0).

    β = 0 is excluded (it leaves a constant function, which no method needs).

    >>> import numpy as np
    >>> from algorithms.curvature import squared_lp_norm
    >>> prob = scaled(squared_lp_norm(3, x0=np.array([1.0, 2.0])), 0.5)
    >>> prob.L_C, prob.curvature_at(prob.x0).round(3).tolist()
    (2.0, [0.481, 0.961])
    """
    problem = _check_problem("problem", problem)
    beta = check_finite_real("beta", beta)
    if beta <= 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    check_working_range("beta", beta)  # a positive scale: 5e-324 is refused
    scaled_constants = [beta * c for c in (problem.L_C, problem.L) if c is not None and math.isfinite(c)]
    if not all(c == 0 or WORKING_MIN <= c <= WORKING_MAX for c in scaled_constants):
        # βL_C past the working range was refused naming L_C (or L), not beta
        raise ValueError(f"beta = {beta!r} makes the scaled constants overflow the package's working range "
                         f"(L_C = {problem.L_C!r}, L = {problem.L!r})")
    f_star = None if problem.f_star is None else beta * problem.f_star
    with blamed_on(beta=beta):
        return CurvatureProblem(f=lambda x: beta * problem.f(x),
                                grad=lambda x: beta * np.asarray(problem.grad(x), dtype=np.float64),
                                curvature=lambda x: beta * problem.curvature_at(x),
                                L_C=beta * problem.L_C, x0=problem.x0, f_star=f_star,
                                x_star=problem.x_star, L=None if problem.L is None else beta * problem.L,
                                name=f"{beta:g} · ({problem.name})")


def _as_matrix(C: np.ndarray) -> np.ndarray:
    return np.diag(C) if C.ndim == 1 else C


@rebuilt_by_factory
def summed(first: CurvatureProblem, second: CurvatureProblem) -> CurvatureProblem:
    """f + g with curvature C₁ + C₂ and constant L_C¹ + L_C² (Lemma 5.1, third rule).

    ``first`` and ``second`` are :class:`CurvatureProblem` of one dimension and one dtype (a float32 and a
    float64 problem are refused by name, not combined in the first one's dtype) whose L_C's (and L's) sum
    stays at most 3.4e38 (the working range; refused naming first and second).

    Both problems must live in one dimension; the start is ``first.x0``. The optimal value of
    the sum is not known in general, so ``f_star`` and ``x_star`` are None (pass a problem with
    them through :class:`CurvatureProblem` if known). A diagonal plus a matrix curvature is a
    matrix.

    >>> import numpy as np
    >>> from algorithms.curvature import squared_lp_norm
    >>> both = summed(squared_lp_norm(2, x0=np.ones(2)), squared_lp_norm(4, x0=np.ones(2)))
    >>> both.value(both.x0), both.L_C
    (3.414213562373095, 8.0)
    """
    first = _check_problem("first", first)
    second = _check_problem("second", second)
    if second.dimension != first.dimension:
        raise ValueError(f"second must have the dimension of first ({first.dimension}), "
                         f"got {second.dimension}")
    if second.dtype != first.dtype:  # the sum took first's dtype: the order of the arguments decided
        raise TypeError(f"first ({first.dtype}) and second ({second.dtype}) must share a dtype (their x0's); "
                        f"build both in float32 or both in float64")

    def curvature(x):
        C1, C2 = first.curvature_at(x), second.curvature_at(x)
        if C1.ndim == C2.ndim:
            return C1 + C2
        return _as_matrix(C1) + _as_matrix(C2)

    L = None if first.L is None or second.L is None else first.L + second.L
    with blamed_on(first=first.name, second=second.name):  # L_C¹ + L_C² past 3.4e38 was blamed on L_C
        return _summed(first, second, curvature, L)


def _summed(first: CurvatureProblem, second: CurvatureProblem, curvature: Any,
            L: float | None) -> CurvatureProblem:
    return CurvatureProblem(f=lambda x: first.f(x) + second.f(x),
                            grad=lambda x: first.gradient(x) + second.gradient(x),
                            curvature=curvature, L_C=first.L_C + second.L_C, x0=first.x0, L=L,
                            name=f"({first.name}) + ({second.name})")
