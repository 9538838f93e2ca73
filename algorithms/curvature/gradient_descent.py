"""Gradient descent with the constant step 1/L (the baseline LCD1 generalizes).

Update rule: x_{k+1} = x_k − (1/L) ∇f(x_k), with L the algorithm's ``L`` if given, else the
problem's smoothness constant ``problem.L``, else ``problem.L_C`` when the problem's curvature
is identically zero at x0 (then L_C is a smoothness constant).

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

from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import check_positive
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.curvature.problem import CurvatureProblem, run_descent

__all__ = ["GradientDescent", "gd_step"]


def gd_step(x: Any, g: Any, step: Any) -> Any:
    """``x − step · g`` (numpy or sympy).

    >>> gd_step(1.0, 2.0, 0.25)
    0.5
    """
    return x - step * g


@dataclass(frozen=True)
class GradientDescent(Algorithm):
    """Gradient descent with step ``1/L``.

    ``L`` (> 0 or None): the smoothness constant; None takes ``problem.L`` (see the module
    docstring). ``tol`` (default 1e-10) stops at ``f − f* <= tol`` or ``‖∇f‖ <= tol``.
    """

    L: float | None = None

    def __post_init__(self) -> None:
        if self.L is not None:
            object.__setattr__(self, "L", check_positive("L", self.L))


def smoothness_constant(problem: CurvatureProblem, L: float | None) -> float:
    if L is not None:
        return L
    if problem.L is not None:
        return problem.L
    C0 = problem.curvature_at(problem.x0)
    if not np.any(C0) and problem.L_C > 0:
        return problem.L_C
    raise ValueError("GradientDescent needs a smoothness constant: pass GradientDescent(L=...) or "
                     "build the CurvatureProblem with L=...")


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: GradientDescent, options: SolveOptions) -> Solution:
    L = smoothness_constant(problem, algorithm.L)

    def step(x, fx, g, stats):
        return gd_step(x, g, 1.0 / L), {}

    return run_descent(problem, options, step, name="GD", default_maxiters=10_000)
