"""Gradient descent with the Polyak step size (the baseline LCD2 generalizes).

Update rule: x_{k+1} = x_k − (f(x_k) − f*) / ‖∇f(x_k)‖² · ∇f(x_k); needs the optimal value f*.

References
----------
B. T. Polyak. Introduction to Optimization, 1987. Used as the peer of LCD2 in Richtárik,
Giancola, Lubczyk, Yadav, arXiv:2405.16574 (equation (4)).

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import Polyak, squared_lp_norm
>>> sol = solve(squared_lp_norm(2, x0=np.array([3.0, -1.0])), Polyak(), maxiters=50)
>>> sol.retcode, sol.stats.iterations    # on ‖x‖² the Polyak step halves x (f* = 0)
(<RetCode.Success: 'Success'>, 17)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import rounded_where_cancelled, stable_norm
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.curvature.lcd2 import _require_f_star
from algorithms.curvature.problem import (
    CurvatureProblem,
    check_numeric_point,
    check_scalar_or_symbolic,
    exact,
    finite_step,
    is_number,
    is_symbolic,
    run_descent,
    step_scalar,
)

__all__ = ["Polyak", "polyak_step"]


def polyak_step(x: Any, g: Any, delta: Any, g_norm_sq: Any) -> Any:
    """``x − Δ/‖g‖² · g`` (numpy or sympy); ``g_norm_sq`` = ‖g‖² must be > 0 when it is a number, a positive
    scale of the working range (>= 1.18e-38, so ‖g‖ >= about 1.1e-19: a smaller g is refused naming
    g_norm_sq; the Polyak solver itself takes any g). With a numeric ``g`` it must be ‖g‖² to within 1e-6
    relative (a norm squared in float32 or summed in another order passes; another vector's is refused).

    ``delta`` = f(x) − f* (>= 0 when a number). ``x``, ``g``: numbers, non-empty array-likes of one
    shape or sympy expressions (any finite entries of the working range, subnormal or up to 3.4e38 in
    magnitude included, within the bound on ‖g‖² above; 1e300 is refused naming x or g, and a step that
    overflows is refused naming ``delta``); the result is float32 when ``x``
    and ``g`` both are, else float64 (float16, integer and mixed-precision arrays are promoted). Numeric
    results are the formula's value correctly rounded even where x and Δ/‖g‖²·g cancel (the entries where
    |x − Δ/‖g‖²·g| <= 2**-10·|x| are recomputed exactly from the float inputs), elsewhere to within 1e-12
    relative (float64) or float32's rounding.

    >>> polyak_step(1.0, 2.0, 1.0, 4.0)
    0.5
    """
    x, g = check_numeric_point(x, g)  # lists and tensors as float arrays
    check_scalar_or_symbolic("delta", delta)
    check_scalar_or_symbolic("g_norm_sq", g_norm_sq)
    delta = step_scalar("delta", delta, ">= 0")
    g_norm_sq = step_scalar("g_norm_sq", g_norm_sq, "> 0")
    if is_number(delta) and not (math.isfinite(delta) and delta >= 0):
        raise ValueError(f"delta (= f(x) − f*) must be finite and >= 0, got {delta!r}")
    if is_number(g_norm_sq) and not (math.isfinite(g_norm_sq) and g_norm_sq > 0):
        raise ValueError(f"g_norm_sq (= ‖g‖²) must be finite and > 0: the Polyak step is undefined "
                         f"at a zero gradient, got {g_norm_sq!r}")
    if is_number(g_norm_sq) and not is_symbolic(g):
        # ‖g‖² of another vector gave a step of the wrong length in silence; 1e-6 relative leaves room for
        # a norm squared in float32 or summed in another order
        actual = float(np.sum(np.square(np.asarray(g, dtype=np.float64))))
        if abs(float(g_norm_sq) - actual) > 1e-6 * max(actual, float(g_norm_sq)):
            raise ValueError(f"g_norm_sq must be ‖g‖² = {actual:.6g}, got {g_norm_sq!r}")
    if is_number(delta) and is_number(g_norm_sq):
        return rounded_where_cancelled(
            _numeric_step(x, g, delta, g_norm_sq), x,
            lambda i: exact(x, i) - exact(delta) / exact(g_norm_sq) * exact(g, i))
    return finite_step(x - (delta / g_norm_sq) * g, "delta", delta)


def _numeric_step(x: Any, g: Any, delta: float, g_norm_sq: float) -> Any:
    """``x − Δ/‖g‖² · g`` in floating point for checked numeric inputs (float32 ones through float64)."""
    single = all(getattr(v, "dtype", None) == np.float32 for v in (x, g))
    if single:
        # in float64, then cast: Δ/‖g‖² = 2.5e39 overflowed float32 before multiplying g = 2e-19 (a step of
        # 5e20, representable, was refused naming delta)
        with np.errstate(over="ignore"):
            step = finite_step(np.asarray(x, np.float64) - (float(delta) / float(g_norm_sq))
                               * np.asarray(g, np.float64), "delta", delta)
            result = np.asarray(step).astype(np.float32)
        finite_step(result, "delta", delta)  # past float32's range: refused as before
        return result if isinstance(x, np.ndarray) else np.float32(result)
    return finite_step(x - (delta / g_norm_sq) * g, "delta", delta)


@dataclass(frozen=True)
class Polyak(Algorithm):
    """Gradient descent with the Polyak step ``(f(x) − f*)/‖∇f(x)‖²`` (needs ``problem.f_star``).

    ``tol`` (in (0, 1): relative, a tol >= 1 would accept x0 itself and is refused naming tol; None,
    the default, is valid and means 1e-10) stops at ``f − f* <= tol·S`` or ``‖∇f‖ <= tol·G`` (relative:
    ``run_descent``).
    """


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: Polyak, options: SolveOptions) -> Solution:
    f_star = _require_f_star(problem, "Polyak")

    def step(x, fx, g, stats):
        delta = max(fx - f_star, 0.0)
        g_norm_sq = float(g @ g)  # > 0 unless it underflows: the loop stops at ‖g‖ <= tol before a step
        # the formula itself: polyak_step's working-range checks are for a caller's Δ and ‖g‖², not the
        # run's (an overflowing step is Diverged in run_descent)
        with np.errstate(over="ignore", invalid="ignore"):
            if g_norm_sq < np.finfo(np.float64).tiny:  # g@g underflowed (g = 4e-210): (Δ/‖g‖)·g/‖g‖
                g_norm = stable_norm(g)
                return x - (delta / g_norm) * (g / g_norm), {"stepsize": delta / g_norm / g_norm}
            return x - (delta / g_norm_sq) * g, {"stepsize": delta / g_norm_sq}

    return run_descent(problem, options, step, name="Polyak", default_maxiters=10_000)
