"""Gradient descent with a constant step (the baseline LCD1 generalizes).

Update rule: x_{k+1} = x_k − lr ∇f(x_k), with ``lr`` the algorithm's step if given, else 1/L for
the problem's smoothness constant L = ``problem.L``, else 1/``problem.L_C`` when the problem's
curvature is zero at x0 (then a finite L_C is a smoothness constant).

References
----------
Y. Nesterov. Introductory Lectures on Convex Optimization, 2004 (Theorem 2.1.14).
Used as the peer of LCD1 in Richtárik, Giancola, Lubczyk, Yadav, arXiv:2405.16574.

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import GradientDescent, squared_norm_residual
>>> prob = squared_norm_residual(np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 1.0]))
>>> sol = solve(prob, GradientDescent(), maxiters=500)
>>> sol.retcode, np.round(sol.x, 6).tolist()
(<RetCode.Success: 'Success'>, [1.0, 0.5])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import check_positive, rounded_where_cancelled
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.curvature.problem import (
    CurvatureProblem,
    check_numeric_point,
    exact,
    finite_step,
    is_symbolic,
    run_descent,
)

__all__ = ["GradientDescent", "gd_step"]


def gd_step(x: Any, g: Any, lr: Any) -> Any:
    """``x − lr · g`` (numpy or sympy); a numeric ``lr`` must be finite and > 0.

    ``x``, ``g``: numbers, non-empty array-likes of one shape (lists and tensors are converted to float
    arrays) or sympy expressions; numeric entries are a caller's data, so the working range holds:
    finite, of magnitude at most 3.4e38 (x = 1e300 is refused naming x). The result is float32 when ``x``
    and ``g`` both are, else float64 (float16,
    integer and mixed-precision arrays are promoted). A step that overflows (lr = 1e308) is refused, naming
    ``lr``. Numeric results are the formula's value correctly rounded even where x and lr·g cancel
    (x = 1e-30, g = 1e-20, lr = 1e-10 gives 1.0175e-46; the entries where |x − lr·g| <= 2**-10·|x| are
    recomputed exactly from the float inputs), elsewhere to within 1e-12 relative. (A solve's own iterations
    use the plain float expression, as a user's loop would.)

    >>> gd_step(1.0, 2.0, 0.25)
    0.5
    """
    if not is_symbolic(lr):
        # as a float: a Fraction lr made x − lr·g an object array (answered as a list)
        lr = check_positive("lr", lr)
    x, g = check_numeric_point(x, g)   # lists and tensors as the float arrays the exact entries read
    return rounded_where_cancelled(_step(x, g, lr), x, lambda i: exact(x, i) - exact(lr) * exact(g, i))


def _step(x: Any, g: Any, lr: Any) -> Any:
    """``gd_step`` without the check of ``lr``: a solve's default 1/L is the run's own value (L = 3.4e38, a
    valid bound, gives 2.9e-39, a normal float64 step that was refused as a caller's lr)."""
    # lists, tuples and tensors become float arrays ("can't multiply sequence by non-int of type 'float'");
    # numbers and sympy pass as they are
    x, g = check_numeric_point(x, g)
    return finite_step(x - lr * g, "lr", lr)


@dataclass(frozen=True)
class GradientDescent(Algorithm):
    """Gradient descent with the constant step ``lr``.

    ``lr`` (> 0 or None): the step size; None takes 1/L for the problem's smoothness constant ``problem.L``,
    else 1/L_C where C(x0) = 0 and L_C is finite (see the module docstring); otherwise (L None with C(x0)
    nonzero or L_C = inf, as ``lp_norm_power``) a solve with lr = None raises ``ValueError`` asking for lr
    or L. A step above 2/L makes the iterates blow up (``Diverged``); one so small
    that x − lr·∇f rounds to x (lr = 1.2e-38) ends ``Stalled`` at once (as in every method of the family).
    ``tol`` (in (0, 1): relative, a tol >= 1 would accept x0 itself and is refused naming tol; None,
    the default, is valid and means 1e-10) stops at ``f − f* <= tol·S`` or ``‖∇f‖ <= tol·G`` (relative:
    ``run_descent``).
    With f* unknown, a stall or ``maxiters`` at ``‖∇f(x)‖ <= 16 eps ‖C(x)‖ ‖x‖`` (x's own rounding
    level, x0's dtype) is a ``Success``.
    """

    lr: float | None = None

    def __post_init__(self) -> None:
        if self.lr is not None:
            object.__setattr__(self, "lr", check_positive("lr", self.lr))


def default_lr(problem: CurvatureProblem) -> float:
    """1/L for the problem's smoothness constant (``problem.L``, or L_C when C(x0) = 0)."""
    if problem.L is not None:
        return 1.0 / problem.L
    C0 = problem.curvature_at(problem.x0)
    if not np.any(C0) and 0 < problem.L_C < math.inf:
        return 1.0 / problem.L_C
    raise ValueError("GradientDescent needs a step: pass GradientDescent(lr=...) or build the "
                     "CurvatureProblem with its smoothness constant L=...")


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: GradientDescent, options: SolveOptions) -> Solution:
    lr = default_lr(problem) if algorithm.lr is None else algorithm.lr

    def step(x, fx, g, stats):
        return _step(x, g, lr), {}

    return run_descent(problem, options, step, name="GD", default_maxiters=10_000)
