"""LCD3: project onto the localization set in the metric of C(x_k) — a closed-form step.

With Δ = f(x_k) − f*, g = ∇f(x_k), C = C(x_k) and G = ‖g‖²_{C⁻¹} = gᵀC⁻¹g, the projection
of x_k onto 𝓛(x_k) (see :mod:`algorithms.curvature.lcd2`) in the norm ‖·‖_C is
(Section 3.3, Appendix D.1)

    x_{k+1} = x_k − (1 − √(1 − 2Δ/G)) C⁻¹ g.

The radicand is >= 0 by Lemma E.5 (f* >= f(x_k) − ½G). The paper assumes C invertible
"for simplicity"; we use the pseudo-inverse when g lies in the range of C (then the
projection is still defined, e.g. for the rank-one C of ‖Ax − b‖₂², where LCD3 coincides
with LCD2), and stop with ``RetCode.Degenerate`` when g has a component in the null space
of C (the C-seminorm projection is then not unique: moving along that component is free).
The paper proves no convergence theorem for LCD3.

References
----------
P. Richtárik, S. M. Giancola, D. Lubczyk, R. Yadav. Local Curvature Descent: Squeezing More
Curvature out of Standard and Polyak GD. NeurIPS 2025, arXiv:2405.16574.

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import LCD3, squared_lp_norm
>>> sol = solve(squared_lp_norm(3, x0=np.array([1.0, -2.0, 0.5])), LCD3(), maxiters=500)
>>> sol.retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from algorithms._validation import check_callable, run_values
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.curvature.lcd2 import _require_f_star, _scaled
from algorithms.curvature.problem import (
    CurvatureProblem,
    check_finite_real,
    check_scalar_or_symbolic,
    check_step_inputs,
    eig_curvature,
    from_eigenbasis,
    is_number,
    run_descent,
    step_scalar,
)

__all__ = ["LCD3", "lcd3_step", "lcd3_stepsize"]

#: eigenvalues below this fraction of the largest count as zero (pseudo-inverse cut-off)
_RANK_RTOL = 1e-12
#: a gradient whose null-space part exceeds this fraction of ‖g‖ makes the step undefined
_NULL_RTOL = 1e-8


def lcd3_stepsize(delta: Any, G: Any, sqrt=math.sqrt) -> Any:
    """The scalar factor ``1 − √(1 − 2Δ/G)`` of the step along C⁻¹g (clipped at 1).

    ``sqrt`` is the square root applied (``math.sqrt``; ``sympy.sqrt`` for symbols).

    ``delta`` = f(x) − f* and ``G`` = ‖∇f‖²_{C⁻¹} when they are numbers (sympy expressions pass through):
    ``delta`` a float in [0, 3.4e38] (any value from 0 up, subnormals included) and ``G`` a positive scale
    in [1.18e-38, 3.4e38] (the working range: a subnormal G is refused naming G); inside these ranges the
    formula's value is returned (2Δ/G >= 1 clips the factor at 1: the Newton step), to full relative
    precision even where 2Δ/G is tiny (then the factor is Δ/G, e.g. 2.94e-78 at Δ = 1e-39, G = 3.4e38,
    not the 0 a direct evaluation of 1 − √(1 − 2Δ/G) gives) and where 2Δ/G is just below 1 (the radicand is
    taken as (G − 2Δ)/G, exact where G and 2Δ cancel).

    >>> lcd3_stepsize(0.5, 1.0)     # quadratic with C = Hessian: Δ = G/2 gives the Newton step
    1.0
    """
    check_scalar_or_symbolic("delta", delta)  # bools, arrays, None, str, complex refused by name
    check_scalar_or_symbolic("G", G)
    delta, G = step_scalar("delta", delta, ">= 0"), step_scalar("G", G, "> 0")  # 10**400, NaN: by name
    if is_number(delta) and not (math.isfinite(delta) and delta >= 0):
        raise ValueError(f"delta (= f(x) − f*) must be finite and >= 0, got {delta!r}")
    if is_number(G) and not (math.isfinite(G) and G > 0):
        raise ValueError(f"G (= ∇fᵀC⁻¹∇f) must be finite and > 0, got {G!r}")
    check_callable("sqrt", sqrt)
    radicand = 1 - 2 * delta / G
    if isinstance(radicand, float | np.floating):
        # numbers: the same value as r / (1 + √(1 − r)), r = 2Δ/G, which keeps its digits where 1 − √(1 − r)
        # cancels (r = 5e-40 gave 0: no step, where the step is Δ/G); r >= 1 (the localization set
        # empty, f* inconsistent with C) clips at the Newton step 1. The radicand is (G − 2Δ)/G, not 1 − r:
        # G − 2Δ is exact where they cancel (Sterbenz), while 1 − r kept r's rounding, up to 50 % of a small
        # radicand (Δ = 1.4999999999999998, G = 3 gave 0.99999998946 for 0.99999998783)
        delta, G = float(delta), float(G)
        ratio = min(2 * delta / G, 1.0)
        return ratio / (1.0 + sqrt(max((G - 2 * delta) / G, 0.0)))
    return 1 - sqrt(radicand)


def lcd3_step(x: np.ndarray, g: np.ndarray, C: np.ndarray, delta: float) -> tuple[np.ndarray | None, dict]:
    """One LCD3 step; returns ``(None, {"retcode": Degenerate, ...})`` when it is undefined.

    ``x`` and ``g`` (the gradient at x) are finite vectors of one length d, ``C`` the curvature at x (a
    symmetric PSD (d, d) matrix or a (d,) vector >= 0; a matrix with nonzero off-diagonal entries has its
    eigenvalues below 1e-12 of the largest counted as zero, so a ∇f with more than 1e-8 of its norm along
    them is Degenerate; a diagonal C keeps every eigenvalue > 0 exactly), all computed in float64 (float32,
    float16 and integer entries are promoted: the new point is float64), and ``delta`` = f(x) − f* a finite
    float >= 0. Precision: a floating-point computation (an eigen-decomposition for a full C), so the new
    point x − s carries the step's own rounding, a few ulps of |s| (near the limit 2Δ = G the factor's
    radicand G − 2Δ is taken exactly from ĝ and C's eigenvalues, so for a diagonal C the factor keeps full
    relative precision there too): where x and s nearly cancel, that error is large relative to the small
    result (``lcd3_stepsize`` itself keeps full relative precision).

    >>> import numpy as np
    >>> x, info = lcd3_step(np.array([2.0]), np.array([4.0]), np.array([2.0]), 4.0)  # f = x²
    >>> x.tolist(), info["stepsize"]
    ([0.0], 1.0)
    """
    x, g, C = check_step_inputs(x, g, C)
    delta = check_finite_real("delta", delta)
    if delta < 0:  # f(x) < f*: the f* given is wrong (the solver clamps its own rounding at 0)
        raise ValueError(f"delta (= f(x) − f*) must be >= 0, got {delta!r}")
    if delta == 0 or not np.any(g):
        return x.copy(), {"stepsize": 0.0}
    Q, D, ghat = eig_curvature(C, g)
    ghat, D, delta, _ = _scaled(ghat, D, delta)  # s·f has the same step: G underflowed for a g of 4e-210
    top = float(D.max(initial=0.0))
    # eigh's eigenvalues carry rounding of about eps·top; a diagonal C's (Q None) are exact: only 0 is zero
    pos = D > (_RANK_RTOL * top if Q is not None else 0.0) if top > 0 else np.zeros(D.shape, bool)
    null_part = float(np.linalg.norm(ghat[~pos]))
    if null_part > _NULL_RTOL * float(np.linalg.norm(ghat)):
        return None, {"retcode": RetCode.Degenerate,
                      "reason": "∇f has a component in the null space of C(x): LCD3 is undefined"}
    newton = np.zeros_like(ghat)
    with np.errstate(over="ignore"):    # an overflow is Degenerate below
        newton[pos] = ghat[pos] / D[pos]
    G = float(ghat[pos] @ newton[pos])
    if not (math.isfinite(G) and np.all(np.isfinite(newton))):   # C's eigenvalues so small C⁻¹g overflowed
        return None, {"retcode": RetCode.Degenerate,
                      "reason": "C(x)⁻¹∇f(x) overflows float64 (C's eigenvalues are too small for this ∇f): "
                                "LCD3's step is undefined in floating point"}
    # G is this step's own value (computed from C and g): a C entry of 1e-39 gave G = 1.6e40, refused
    # naming G, which the caller never passed
    with run_values():
        t = lcd3_stepsize(delta, G)
    if 4 * delta > G:
        # near the limit 2Δ = G the radicand 1 − 2Δ/G took G's rounding (eps·G, most of G − 2Δ there): the
        # factor was 1.5e-9 off for a diagonal C; G − 2Δ exactly from the float ĝ and D, rounded once
        exact_G = sum((Fraction(a) ** 2 / Fraction(d) for a, d in zip(ghat[pos].tolist(), D[pos].tolist(),
                                                                        strict=True)), Fraction(0))
        radicand = float(max(exact_G - 2 * Fraction(delta), Fraction(0)) / exact_G)
        t = min(2 * delta / G, 1.0) / (1.0 + math.sqrt(radicand))
    return x - t * from_eigenbasis(Q, newton), {"stepsize": t, "empty_localization": 2 * delta > G}


@dataclass(frozen=True)
class LCD3(Algorithm):
    """Local Curvature Descent 3: ``x⁺ = x − (1 − √(1 − 2Δ/‖∇f‖²_{C⁻¹})) C(x)⁻¹∇f(x)`` (needs ``f*``).

    The trace records the scalar ``stepsize`` of every step. A step at a point where
    ∇f(x) leaves the range of C(x) ends the solve with ``RetCode.Degenerate``.
    ``tol`` (in (0, 1): relative, a tol >= 1 would accept x0 itself and is refused naming tol; None,
    the default, is valid and means 1e-10) stops at ``f − f* <= tol·S`` or ``‖∇f‖ <= tol·G``
    (relative to x0's gap S and gradient G: ``run_descent``).
    """


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: LCD3, options: SolveOptions) -> Solution:
    f_star = _require_f_star(problem, "LCD3")

    def step(x, fx, g, stats):
        C = problem.curvature_at(x)
        stats.hess_calls += 1
        stats.linear_solves += 1
        return lcd3_step(x, g, C, max(fx - f_star, 0.0))

    return run_descent(problem, options, step, name="LCD3")
