"""LCD1: minimize the upper model of Assumption 2.1 at every step.

Update rule (Section 3.1 and Appendix B.1 of the paper):

    x_{k+1} = x_k − (C(x_k) + L_C I)⁻¹ ∇f(x_k),

the minimizer of f(x_k) + ⟨∇f(x_k), x − x_k⟩ + ½‖x − x_k‖²_{C(x_k) + L_C I}. With C ≡ 0 it
is gradient descent with step 1/L_C; with C = ∇²f and L_C = 0 it is Newton's method.
Theorem 4.1: f(x_k) − f* <= L_C‖x_0 − x*‖² / (2k) for the last iterate, k >= 1.

References
----------
P. Richtárik, S. M. Giancola, D. Lubczyk, R. Yadav. Local Curvature Descent: Squeezing More
Curvature out of Standard and Polyak GD. NeurIPS 2025, arXiv:2405.16574.

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import LCD1, sum_of_squared_abs_linear
>>> prob = sum_of_squared_abs_linear(np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 3.0]]),
...                                  np.array([1.0, 2.0, 3.0]))
>>> sol = solve(prob, LCD1(), maxiters=5)
>>> sol.retcode, sol.stats.iterations      # C = Hessian and L_C = 0: one Newton step
(<RetCode.Success: 'Success'>, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from algorithms._validation import rounded_where_cancelled
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.curvature.problem import (
    CurvatureProblem,
    as_diagonal,
    check_finite_curvature_constant,
    check_step_inputs,
    exact,
    run_descent,
    shifted_solve,
)

__all__ = ["LCD1", "lcd1_step"]


def lcd1_step(x: Any, g: Any, C: Any, L_C: Any) -> Any:
    """One LCD1 step ``x − (C + L_C I)⁻¹ g``.

    ``x`` and ``g`` are finite (d,) vectors (d >= 1), ``C`` is a ``(d, d)`` matrix or a ``(d,)`` diagonal,
    all three computed in float64 (float32, float16 and integer entries are promoted: the step is float64),
    ``L_C`` finite and >= 0; a step that
    overflows (a tiny L_C with a singular C) is refused, naming ``L_C``. A singular C + L_C·I (L_C = 0) is
    solved by its pseudo-inverse, the minimum-norm least-squares solution: C = 0 with L_C = 0 gives a zero
    step (x unchanged), as a zero curvature model has no finite minimizer. With a diagonal C (a vector, or a
    matrix with zeros off the diagonal) the result is the formula's value correctly rounded even where x and
    gᵢ/(Cᵢ + L_C) cancel (those entries, |x − s| <= 2**-10·|x|, are recomputed exactly from the float
    inputs), elsewhere to within 1e-12 relative; a full matrix C is solved in floating point (Cholesky or
    least squares), so there the step's error is its solve's. Works on numpy
    arrays and on sympy matrices (``C`` a sympy Matrix, ``x, g`` column vectors), which is how
    the claim ``lcd.reduces_to_gd_polyak`` evaluates it symbolically.

    >>> import numpy as np
    >>> lcd1_step(np.array([1.0, 1.0]), np.array([2.0, 4.0]), np.zeros(2), 2.0).tolist()
    [0.0, -1.0]
    """
    if hasattr(C, "LUsolve"):  # a sympy matrix
        import sympy

        return x - (C + L_C * sympy.eye(C.shape[0])).LUsolve(g)
    x, g, C = check_step_inputs(x, g, C)
    L_C = check_finite_curvature_constant(L_C)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        step = x - shifted_solve(C, L_C, g)
    if not np.all(np.isfinite(step)):  # L_C = 5e-324 with C = 0 returned [-inf, -inf]
        raise ValueError(f"L_C = {L_C!r} is too small for this g (max |g| = {float(np.max(np.abs(g))):.3g}): "
                         f"the step x − (C + L_C I)⁻¹g overflows to a non-finite point")
    diagonal = as_diagonal(C)
    if diagonal.ndim == 2:
        return step

    def exact_entry(i: tuple) -> Fraction:
        shifted = exact(diagonal, i) + exact(L_C)
        return exact(x, i) - (exact(g, i) / shifted if diagonal[i] + L_C > 0 else 0)   # as shifted_solve

    return rounded_where_cancelled(step, x, exact_entry)


@dataclass(frozen=True)
class LCD1(Algorithm):
    """Local Curvature Descent 1: ``x⁺ = x − (C(x) + L_C I)⁻¹∇f(x)`` (no hyperparameters).

    Uses ``problem.L_C`` and ``problem.curvature``. ``tol`` (in (0, 1): relative, a tol >= 1 would accept x0
    itself and is refused naming tol; None, the default, is valid and means 1e-10) stops at ``f − f* <=
    tol·S`` (when ``f*`` is known) or ``‖∇f‖ <= tol·G`` (relative: ``run_descent``).
    With f* unknown, a stall or ``maxiters`` at ``‖∇f(x)‖ <= 16 eps ‖C(x)‖ ‖x‖`` (x's own rounding
    level, x0's dtype) is a ``Success``.
    ``stats.hess_calls`` counts evaluations of ``C`` and ``stats.linear_solves`` the solves with
    ``C + L_C I``. When ``L_C = 0`` and ``C(x)`` is singular the pseudo-inverse is used. Needs a finite
    ``L_C``: a problem with ``L_C = math.inf`` (valid for LCD2, LCD3 and Polyak) has no upper model to
    minimize, and solving it with LCD1 raises ``ValueError`` naming L_C.
    """


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: LCD1, options: SolveOptions) -> Solution:
    check_finite_curvature_constant(problem.L_C)

    def step(x, fx, g, stats):
        C = problem.curvature_at(x)
        stats.hess_calls += 1
        stats.linear_solves += 1
        return lcd1_step(x, g, C, problem.L_C), {}

    return run_descent(problem, options, step, name="LCD1")
