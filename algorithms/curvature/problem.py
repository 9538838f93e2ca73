"""Problems with a known *local curvature*: the setting of Local Curvature Descent.

A convex differentiable ``f`` satisfies Assumption 2.1 of Richtárik, Giancola,
Lubczyk and Yadav (arXiv:2405.16574) with a curvature map ``C(y) ⪰ 0`` and a
constant ``L_C >= 0`` when, for all ``x, y``,

    f(y) + ⟨∇f(y), x − y⟩ + ½‖x − y‖²_{C(y)}  <=  f(x)
                                               <=  f(y) + ⟨∇f(y), x − y⟩ + ½‖x − y‖²_{C(y) + L_C I}.

:class:`CurvatureProblem` carries ``f``, ``∇f``, ``C``, ``L_C`` and optionally
``f*`` (needed by the Polyak-type methods). ``curvature(x)`` returns either a
symmetric PSD ``(d, d)`` matrix or a ``(d,)`` vector meaning a diagonal matrix.

Ready-made families (each with f, ∇f, C, L_C, a global smoothness constant ``L``
and, where it is known in closed form, ``f*`` and a minimizer ``x*``):

* :func:`sum_of_squared_abs_linear` — Σ (aᵢᵀx − bᵢ)², each |aᵢᵀx − bᵢ| absolutely
  convex, so C = 2AᵀA (= the Hessian) and L_C = 0 (Section 7).
* :func:`squared_norm_residual` — ‖Ax − b‖₂² seen as φ² with φ = ‖Ax − b‖₂
  absolutely convex: rank-one C(y) = 2Aᵀuuᵀ A, u = r/‖r‖, L_C = 2‖A‖₂² (Section 7).
* :func:`sum_of_squared_absolutely_convex` — generic Σ φᵢ(x)² from a residual map
  and its (sub)gradient Jacobian J: C = 2JᵀJ (Section 7); L_C is the caller's.
* :func:`squared_huber` — Σ h_δ(aᵢᵀx − bᵢ)², Example 6.1 / Lemma E.19:
  C = Aᵀ diag(min(rᵢ², δ²)) A and L_C = 2δ²‖A‖₂² (the 1-D constant 2δ² carried
  through the linear map, Lemma E.2).
* :func:`squared_lp_norm` / :func:`lp_regression` — ‖x‖_p², ‖Ax − b‖_p² for p >= 2,
  Example 6.2/6.3: a diagonal C (Lemma E.14) or the rank-one absolute-convexity C
  (Lemma E.15), L_C = 2(p − 1) (times ‖A‖₂² through A).
* :func:`lp_norm_power` — ‖x‖_p^p, p >= 2, Example 6.4: the lower bound only, with a diagonal
  or a rank-one C (Lemmas E.11, E.12); L_C = ∞ for p > 2.
* :func:`squared_hinge` — Σ max(0, 1 − bᵢaᵢᵀx)². The hinge is *not* absolutely
  convex, and no nonzero curvature satisfies the lower bound for it in general,
  so this family ships C ≡ 0 and L_C = 2‖A‖₂² (LCD1 is then gradient descent).

>>> import numpy as np
>>> prob = squared_lp_norm(4, x0=np.array([1.0, -2.0]))
>>> prob.L_C, prob.f_star
(6.0, 0.0)
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.linalg

from algorithms._validation import (
    WORKING_MAX,
    WORKING_MIN,
    _brief,
    as_float_array,
    as_float_matrix,
    as_real_array,
    call_user,
    check_callable,
    check_choice,
    check_entries_in_range,
    check_finite_real,
    check_positive,
    check_shape,
    check_square_symmetric,
    check_str,
    check_takes,
    check_working_range,
    graded_psd_violation,
    in_working_range,
    negative_diagonal,
    precision_rank,
    read_only,
    reseal_state,
    returned_scalar,
    revalidate_if_reassigned,
    run_values,
    stable_norm,
    to_float,
    user_range,
)
from algorithms.core import (
    IterationMonitor,
    Problem,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    rebuilt_by_factory,
)

__all__ = [
    "CurvatureProblem",
    "lp_norm_power",
    "lp_regression",
    "squared_hinge",
    "squared_huber",
    "squared_lp_norm",
    "squared_norm_residual",
    "sum_of_squared_abs_linear",
    "sum_of_squared_absolutely_convex",
]

#: relative tolerance of the runtime symmetry / PSD checks of ``C(x)``
_CURVATURE_RTOL = 1e-8
#: a solve is ``Diverged`` once f exceeds f(x0) by this many times max(1, |f(x0)|): the methods
#: of the family never increase f past f(x0) by more than rounding when their assumptions hold
#: (LCD1 and GD decrease f; Polyak, LCD2 do not increase ‖x − x*‖, so f stays within
#: L‖x0 − x*‖²/2 of f*), so growth by fifteen orders of magnitude means a broken assumption
BLOWUP_FACTOR = 1e15


@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class CurvatureProblem(Problem):
    """Minimize a convex ``f`` that satisfies Assumption 2.1 with ``curvature`` and ``L_C``.

    Checked: the types, shapes and finiteness of ``f``, ``grad`` and ``curvature`` at ``x0`` (and of every
    value a solve uses), ``C`` symmetric PSD, ``f_star`` against ``f(x0)`` and ``x_star``, and a solve's
    Success against ``f_star``. Not checked (each would need f on a neighbourhood, not at points):
    the convexity of ``f``, that ``grad`` is its gradient, and inequality (5)/(6) for ``C`` and ``L_C``;
    a wrong one runs, without the paper's guarantees, and usually ends ``Diverged`` or ``MaxIters``.
    Every callable receives a read-only copy of the point; one that writes into its argument anyway is
    called once more on a writeable copy: a write never changes the run.

    Parameters
    ----------
    f, grad : callables ``x -> float`` and ``x -> (d,) array``, both at least as precise as ``x0``: ``f``
        returns a real number (a Python float, a Fraction, or a numpy/torch scalar or 0-d array; an int, or
        an np.float32/float16 or integer-dtype value beside a float64 ``x0``, is refused by name, naming
        ``f(x)``: Polyak and LCD2 stop on the rounded f − f*), ``grad`` floats (a float32, float16 or integer
        gradient beside a float64 ``x0`` is refused by name, naming ``grad(x)``; a list or a more precise
        array is read as float64).
    curvature : callable ``x -> C(x)``, a symmetric PSD ``(d, d)`` matrix or a ``(d,)``
        non-negative vector (a diagonal matrix), read as float64 (any real dtype is promoted: a float32 C
        is valid, a rounded model, and a run with it may take other iterates than with the float64 C, both
        ending within tol). Checked at
        ``x0`` here and at every evaluation during a solve (a non-symmetric or indefinite ``C``
        raises ``ValueError``; a NaN/inf ``C`` is refused at ``x0`` and ends a solve ``Diverged``, as a
        NaN f or grad does; both to rounding level, with r = max(1e-8, 4 d eps of C's dtype): an asymmetry
        |C[i, j] − C[j, i]| within r·max(|C[i, j]|, |C[j, i]|, √|C[i, i]·C[j, j]|) and a negative eigenvalue
        within r·max |C| (and, for C's rows of positive diagonal scaled to a unit diagonal, D C D with D =
        diag(C)^(-1/2), within r times their count) are read as rounding and C symmetrized, a larger one
        refused: one entry of 1e20 does not make an asymmetry or an eigenvalue of −999 elsewhere rounding).
    L_C : the constant of the upper bound, a real ``>= 0`` (any value from 0 to 3.4e38, the working range's
        top), or ``math.inf`` when only the lower bound (inequality (5)) is known, as for ‖x‖_p^p
        (Example 6.4): LCD2, LCD3 and Polyak need only that bound, LCD1 and the rate of Theorem 4.2 need a
        finite ``L_C`` (the problem accepts ``math.inf``; solving it with LCD1 raises ``ValueError`` naming
        L_C). Narrower only where ``curvature(x0)`` = 0 (then a bound alone sets ∇f's rounding
        level at x0): there ``min(L, L_C)`` must be at most ‖∇f(x0)‖ / (16 eps ‖x0‖) (eps: x0's dtype's),
        else the larger is refused by name (no stopping test could tell x0 from a minimizer).
    x0 : the starting point; its dtype (float32 or float64) is kept by every solver. ``f(x0)`` must be a
        finite real at most 3.4e38 in magnitude (the working range), else refused naming f(x0).
    f_star : the optimal value, if known (LCD2, LCD3 and Polyak need it): f's minimum itself, not any lower
        bound. Must not exceed ``f(x0)``; a value below f's minimum (f_star = -1 for f = ‖x‖², whose minimum
        is 0) is not valid. What a solve then does: a minimizer reached with f − f* still above tol·S raises
        ``ValueError`` naming f_star (GradientDescent, LCD1, LCD2, LCD3, LBFGS); Polyak, whose step
        (f − f*)/‖∇f‖² then overshoots, may never reach one and ends ``MaxIters`` (or ``Diverged``); where
        the offset is within tol·S (f_star = -1e-12 beside S = 5) a ``Success`` can still come, and is right:
        f − f* <= tol·S bounds f's true gap too. The gap test f − f* <= tol·S runs only where f's rounding,
        16 eps max(|f|, |f*|), is below tol·S; beyond (an offset f = g + 1e10: f(x0) − f* ≪ |f*|) the
        gradient test decides, and the methods
        that step on f − f* (Polyak, LCD2, LCD3) or search along f's values (L-BFGS-B) end ``Stalled`` once
        f's rounding hides the gap, short of the tolerance (GradientDescent and LCD1 reach it through ∇f).
    x_star : a minimizer, if known (used by the rate claims); a finite vector of ``x0``'s shape, read in
        float64 whatever its dtype (a float32 ``x_star`` beside a float64 ``x0`` is promoted).
    L : a global smoothness constant of ``f`` (an upper bound on ‖∇²f‖), if known: None or a real ``> 0``
        in [1.18e-38, 3.4e38] (the working range; gradient descent's default step 1/L). A loose bound is
        valid: the stopping tests' rounding floor uses min(L, ‖C(x0)‖ + L_C), and a stop under only a loose
        bound's floor with f − f* still large is ``Stalled``, not ``Success``. Narrower only where
        ``curvature(x0)`` = 0, as for ``L_C``.
    name : a str labelling the problem in reports.

    >>> import numpy as np
    >>> prob = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
    ...                         curvature=lambda x: 2 * np.ones_like(x), L_C=0.0,
    ...                         x0=np.array([1.0, 2.0]), f_star=0.0)
    >>> prob.dimension
    2
    """

    f: Callable[[np.ndarray], float]
    grad: Callable[[np.ndarray], np.ndarray]
    curvature: Callable[[np.ndarray], np.ndarray]
    L_C: float
    x0: Any
    f_star: float | None = None
    x_star: Any = None
    L: float | None = None
    name: str = "curvature problem"
    f0: float = field(init=False, repr=False, compare=False, default=math.nan)
    #: the scales of f and of ‖∇f‖ at x0 the stopping tests are relative to (see :meth:`stopping_scales`)
    scale_f: float = field(init=False, repr=False, compare=False, default=math.nan)
    scale_grad: float = field(init=False, repr=False, compare=False, default=math.nan)
    #: ∇f's rounding level at x0, 16 eps ‖H‖‖x0‖ (the gradient test's floor; computed here, so a solve makes
    #: no curvature evaluation of its own)
    grad_floor: float = field(init=False, repr=False, compare=False, default=0.0)
    #: the same level from ‖C(x0)‖ alone (below ``grad_floor`` where a bound L or L_C exceeds ‖C(x0)‖): a
    #: gradient under it is stationary up to rounding, one only under ``grad_floor`` may not be
    curvature_floor: float = field(init=False, repr=False, compare=False, default=0.0)
    #: whether f's values resolve the start's gap S at all: an offset (f = ‖x‖² + 1e20) puts f(x0) − f* below
    #: f's rounding, and the gap test then held at x0 with ∇f(x0) far from 0 (Success at x0); False: a solve
    #: stops by the gradient test only
    gap_informative: bool = field(init=False, repr=False, compare=False, default=True)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (a deep copy's could be made
        writeable again, against the README's rule for problems)."""
        reseal_state(self, state)

    def __post_init__(self) -> None:
        check_str("name", self.name)
        for name in ("f", "grad", "curvature"):
            check_takes(name, getattr(self, name), f"{name}(x)", 1)
        object.__setattr__(self, "L_C", _check_curvature_constant(self.L_C))
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {type(self.name).__name__}")
        kind = getattr(self.x0, "dtype", None)
        if isinstance(kind, np.dtype) and kind.kind == "f" and kind not in (np.float32, np.float64):
            # the solvers keep x0's dtype (float32 or float64): float16 or longdouble cannot be kept
            raise TypeError(f"x0 must be float32 or float64 (or integer, promoted to float64), got {kind}")
        x0 = as_float_array("x0", self.x0, ndim=1)
        if x0.size == 0:
            raise ValueError("x0 must have at least one entry, got shape (0,)")
        x0 = read_only(x0)  # read-only for good: a NaN written into x0 after the checks reached the solvers
        object.__setattr__(self, "x0", x0)
        if self.L is not None:
            object.__setattr__(self, "L", check_positive("L", self.L))
        if self.x_star is not None:
            x_star = as_float_array("x_star", self.x_star, ndim=1, dtype=np.float64)  # as documented
            if x_star.shape != x0.shape:  # both named: a wrong x0 was reported as a wrong x_star
                raise ValueError(f"x_star must have shape {x0.shape} (that of x0), got {x_star.shape}")
            x_star = read_only(x_star)
            object.__setattr__(self, "x_star", x_star)
        with _at_start(x0):
            f0 = self.value(x0)
        if not math.isfinite(f0):
            raise ValueError(f"f(x0) must be finite, got {f0!r}")
        check_working_range("f(x0)", f0, scale=False)  # a start past it makes every solve Diverged
        object.__setattr__(self, "f0", f0)
        with _at_start(x0):
            g0 = self.gradient(x0)
        if not np.all(np.isfinite(g0)):
            raise ValueError("grad(x0) contains NaN or inf entries")
        check_entries_in_range("grad(x0)", g0)
        with _at_start(x0):
            check_entries_in_range("curvature(x0)", self.curvature_at(x0))
        if self.x_star is not None:
            f_at_star = self.value(self.x_star)
            if not math.isfinite(f_at_star):
                raise ValueError(f"f(x_star) must be finite, got {f_at_star!r}")
            g_star = self.gradient(self.x_star)
            if not np.all(np.isfinite(g_star)):
                raise ValueError("grad(x_star) contains NaN or inf entries")
        if self.f_star is not None:
            f_star = check_finite_real("f_star", self.f_star)
            # f* is a lower bound on f; allow rounding of f(x0) at the level of its dtype: eps |f| plus, where
            # f's terms cancel (a least-squares residual r = Ax - b), eps ‖r‖ ‖A‖‖x‖ ~ eps √(|f| T) with T
            # the terms' size at x0. No absolute floor: the verdict must not depend on f's or x's units
            f_big = max(abs(f0), abs(f_star))
            slack = 10 * np.finfo(x0.dtype).eps * max(f_big, math.sqrt(f_big * self._term_scale(x0, g0)))
            if f_star > f0 + slack:
                raise ValueError(
                    f"f_star = {f_star!r} exceeds f(x0) = {f0!r}: f_star must be the optimal value "
                    "(a lower bound on f)")
            if self.x_star is not None:
                # both given: they must describe the same optimum. x_star may come from a numerical solve,
                # accurate to ~1e-6 relative in x: f(x_star) - f* ~ ½ δᵀHδ <= ½ (1e-6 ‖x_star‖)² ‖H‖ and
                # rounding of f there is eps times its terms' size (~‖H‖ ‖x_star‖²). The tolerance is
                # relative to f's values and terms at x_star only: it scales with f's and x's units and
                # does not depend on x0 (it was relative to f(x0), so it refused a valid x_star from
                # lstsq when x0 lay near the optimum on data ×2^40, and passed anything below 1e-6 in f)
                x_norm = stable_norm(self.x_star)
                tol = (1e-6 * (max(abs(f_at_star), abs(f_star)) + stable_norm(g_star) * x_norm)
                       + 1e-12 * self._term_scale(self.x_star, g_star))
                if not abs(f_at_star - f_star) <= tol:
                    raise ValueError(f"x_star and f_star disagree: f(x_star) = {f_at_star!r} but f_star = "
                                     f"{f_star!r}; give the optimum's point and value, or only one of them")
            object.__setattr__(self, "f_star", f_star)
            if self.x_star is None:
                self._check_f_star_reachable(x0, f0, g0)
        if self.x_star is not None:
            self._check_minimizer(f_at_star, g_star)
        scale_f, scale_grad = self._stopping_scales(g0)
        object.__setattr__(self, "scale_f", scale_f)
        object.__setattr__(self, "scale_grad", scale_grad)
        c0 = self._curvature_norm(x0)  # the one curvature evaluation of the start, as before
        # the floor's curvature: a bound on ‖∇²f(x0)‖, min(L, ‖C(x0)‖ + L_C) (both are: L's definition and the
        # upper bound of Assumption 2.1), else ‖C(x0)‖. max(C, L, L_C) let a valid loose L = 1e15 on ‖x‖²
        # (L_C = 0) lift the floor past ‖∇f(x0)‖, so every solve stopped at x0 and then blamed f_star
        bounds = {"L": self.L if self.L else math.inf, "L_C": c0 + self.L_C}
        which = min(bounds, key=bounds.get)
        h_bound = bounds[which] if math.isfinite(bounds[which]) else c0
        unit = 16 * float(np.finfo(self.dtype).eps) * stable_norm(x0)
        floor, c_floor = unit * h_bound, unit * (c0 if c0 > 0 else h_bound)
        g0_norm = stable_norm(g0)
        if 0 < g0_norm <= floor:
            if c0 == 0:
                # C(x0) = 0: the bound alone sets ∇f's rounding level, and one that high cannot tell x0 from a
                # minimizer (every solve stopped at x0 with a Success that then blamed f_star)
                raise ValueError(
                    f"{which} = {getattr(self, which)!r} is too large for this problem: C(x0) = 0, so the "
                    f"rounding level of ∇f at x0 it implies (16 eps {which} ‖x0‖ = {floor:.3g}) exceeds "
                    f"‖∇f(x0)‖ = {g0_norm:.3g}, and no stopping test could tell x0 from a minimizer; give "
                    f"a bound of at most ‖∇f(x0)‖ / (16 eps ‖x0‖) = {g0_norm / unit:.3g}")
            floor = c_floor  # a loose bound (L_C = 3.4e38 beside C(x0) = 2): C(x0)'s own level
        object.__setattr__(self, "grad_floor", floor)
        object.__setattr__(self, "curvature_floor", c_floor)
        if self.f_star is not None:
            rounding = 16 * float(np.finfo(self.dtype).eps) * max(abs(f0), abs(self.f_star))
            object.__setattr__(self, "gap_informative", bool(scale_f > rounding))

    def gap_resolved(self, fx: float, gap_tol: float) -> bool:
        """Whether the gap test f − f* <= ``gap_tol`` can be decided at f's value ``fx``: ``gap_tol`` above
        f's rounding there, 16 eps max(|f|, |f*|) (f = ‖x‖² + 1e12 with f* = 1e12: the computed gap hit 0 by
        cancellation 1e5 times above tol·S, and every method reported Success far from x*; red16b). When it
        cannot, the gradient test decides."""
        if self.f_star is None or not self.gap_informative:
            return False
        # the rounding of f's own values: a float32 x0 with an f evaluated in float64 (the ready-made
        # families) has float64's (float32's ended Stalled with the criterion met; red16b)
        eps = self.__dict__.get("_f_eps", float(np.finfo(self.dtype).eps))
        return gap_tol > 16 * eps * max(abs(fx), abs(self.f_star))

    def _check_minimizer(self, f_at: float, g: np.ndarray) -> None:
        """Refuse an ``x_star`` that a gradient step from it improves: f convex and differentiable, so a
        minimizer has ∇f = 0 and no step lowers f. Steps 1/‖H‖·2^-k (k < 8) along −∇f(x_star); a decrease
        beyond 1e-6 ‖∇f‖‖x_star‖ (x_star from a solver accurate to ~1e-6 relative) plus f's rounding there
        refutes it. Before, an x_star alone was never checked (x_star = (5, 5) for an optimum near 0)."""
        f_trial = self._descent_below(self.x_star, f_at, g, f_at)
        if f_trial is not None:
            raise ValueError(
                f"x_star is not a minimizer of f: a gradient step from it (‖∇f(x_star)‖ = "
                f"{stable_norm(g):.3g}) lowers f from {f_at!r} to {f_trial!r}; give a minimizer "
                f"(or leave x_star out)")

    def _check_f_star_reachable(self, x0: np.ndarray, f0: float, g0: np.ndarray) -> None:
        """An ``f_star`` alone above f's minimum made the methods that step to the f* level set (LCD2/3,
        Polyak) stop there with Success (f_star = 4.9 on ‖x‖²: LCD2 returned x ≈ x0). Up to 20 gradient steps
        1/‖H(x0)‖ from x0 look for a value below it, beyond the rounding ``_check_minimizer`` allows; one
        refutes it, naming ``f_star`` (a valid lower bound is never refuted; steps that overshoot stop)."""
        g_norm = stable_norm(g0)
        if g_norm == 0.0:
            return
        x = x0.astype(np.float64)
        h = self._curvature_scale(x)
        if not h > 0:
            return
        eps = float(np.finfo(self.dtype).eps)
        allowed = (1e-6 * g_norm * stable_norm(x) + 1e-12 * self._term_scale(x, g0)
                   + 16 * eps * max(abs(f0), abs(self.f_star)))
        fx, g = f0, g0
        for _ in range(20):
            with np.errstate(over="ignore", invalid="ignore"):
                trial = (x - g / h).astype(self.dtype)
            if not np.all(np.isfinite(trial)):
                return
            f_trial = self.value(trial)
            if not (math.isfinite(f_trial) and f_trial < fx):  # no descent at this step size: give up
                return
            if self.f_star - f_trial > allowed:
                raise ValueError(f"f_star = {self.f_star!r} is above f's minimum: gradient steps from x0 "
                                 f"reach f = {f_trial!r}; f_star must be the optimal value (a lower bound)")
            x, fx = trial.astype(np.float64), f_trial
            g = self.gradient(x)
            if not np.all(np.isfinite(g)) or not np.any(g):
                return

    def _descent_below(self, x: np.ndarray, f_at: float, g: np.ndarray, level: float) -> float | None:
        """A value of f below ``level`` (beyond rounding, as ``_check_minimizer`` allows) found by gradient
        steps 1/‖H‖·2^-k (k < 8) from ``x``, or None."""
        g_norm = stable_norm(g)
        if g_norm == 0.0:
            return None
        x = x.astype(np.float64)
        h = self._curvature_scale(x)
        first = 1.0 / h if h > 0 else max(stable_norm(x), 1.0) / g_norm
        eps = float(np.finfo(self.dtype).eps)
        allowed = (1e-6 * g_norm * stable_norm(x) + 1e-12 * self._term_scale(x, g)
                   + 16 * eps * abs(f_at))
        for k in range(8):
            with np.errstate(over="ignore", invalid="ignore"):
                trial = (x - (first * 0.5**k) * g).astype(self.dtype)
            if not np.all(np.isfinite(trial)):  # a step past the float range: value() refuses it
                continue
            f_trial = self.value(trial)
            if math.isfinite(f_trial) and level - f_trial > allowed:
                return f_trial
        return None

    def _curvature_norm(self, x: np.ndarray) -> float:
        """‖C(x)‖₂ (one curvature evaluation)."""
        C = self.curvature_at(x)
        return float(np.max(C, initial=0.0)) if C.ndim == 1 else float(np.linalg.norm(C, 2))

    def _curvature_scale(self, x: np.ndarray) -> float:
        """‖H‖'s stand-in at ``x``: the largest of ‖C(x)‖₂, L, a finite L_C (f's units per x's squared)."""
        h = self._curvature_norm(x)
        return max(h, self.L or 0.0, self.L_C if math.isfinite(self.L_C) else 0.0)

    def _stopping_scales(self, g0: np.ndarray) -> tuple[float, float]:
        """(S, G): how far x0 is from optimal, in f's units and in ∇f's, the same at every unit of f and x
        and under a constant shift of f. S is the larger of the gap f(x0) − f* (f* known) and a gradient
        step's decrease ‖∇f(x0)‖²/‖H‖; G the larger of ‖∇f(x0)‖ and √(2‖H‖S). The absolute tests of
        before (f − f* <= tol, ‖∇f‖ <= tol) stopped every method at x0 with Success on data ×1e-7."""
        h = self._curvature_scale(self.x0)
        # G's curvature: ‖C(x0)‖ where positive, else L, else a finite L_C. L and L_C are upper bounds (any
        # larger one is valid too): squared_huber(delta=2**64)'s L = 3δ²‖A‖² or L_C = 1e308 made G ~ 1e154,
        # so every solve stopped at x0 at once and then blamed f_star. S keeps the largest (a smaller S is
        # the stricter gap test).
        c0 = self._curvature_norm(self.x0)
        h_grad = c0 if c0 > 0 else self.L if self.L else self.L_C if math.isfinite(self.L_C) else 0.0
        g_norm = stable_norm(g0)
        S = self.f0 - self.f_star if self.f_star is not None else 0.0
        if h > 0:
            S = max(S, g_norm**2 / h)
        return S, max(math.sqrt(2.0 * h_grad * S), g_norm)

    def stopping_tolerances(self, tol: float) -> tuple[float, float]:
        """(gap_tol, grad_tol) of a solve with ``tol``: ``tol·S`` and ``tol·G`` (see ``scale_f``,
        ``scale_grad``), the gradient's floored at its rounding level at x0 (16 eps ‖H‖‖x0‖, so a start near
        the optimum can still meet it). ``tol`` is relative, in (0, 1): 1 or more accepted x0 itself (S and
        G are x0's own gap and gradient), so tol = 1e308 reported Success at the start, refused by name."""
        # a negative or NaN tol gave negative/NaN tolerances silently. No working-range floor here: solve()
        # checks tol for every family (SolveOptions), and a tiny tol only runs the full horizon
        if isinstance(tol, bool) or not is_number(tol) or not (math.isfinite(tol) and tol > 0):
            raise ValueError(f"tol must be > 0 and finite, got {tol!r:.40}")
        tol = float(tol)
        if tol >= 1.0:
            raise ValueError(f"tol must be < 1 (relative to the start's gap and gradient, S and G: tol >= 1 "
                             f"accepts x0 itself), got {tol!r}")
        return tol * self.scale_f, max(tol * self.scale_grad, self.grad_floor)

    def rounding_floor(self, x: np.ndarray) -> float:
        """∇f's rounding level at the iterate ``x`` from C(x) alone, 16 eps ‖C(x)‖₂ ‖x‖ (eps: x0's dtype's):
        a gradient under it is stationary up to the rounding of x itself. 0 where C(x) = 0 (a bound L or L_C
        alone may be loose, and a loose bound's level would call a point far from x* stationary). The floor at
        x0 (``grad_floor``) is 0 at x0 = 0, so a float32 solve from 0 without f* ended Stalled at the
        float32 minimizer."""
        c = self._curvature_norm(np.asarray(x, dtype=np.float64))
        return 16 * float(np.finfo(self.dtype).eps) * stable_norm(x) * c if math.isfinite(c) else 0.0

    def _term_scale(self, x: np.ndarray, g: np.ndarray) -> float:
        """The size of f's first- and second-order terms at ``x`` (``|gᵀx| + ‖H‖ ‖x‖²`` with ‖H‖ from
        C(x), L and a finite L_C): the level at which rounding of f(x) shows, in f's units."""
        h = self._curvature_scale(x)
        xx = float(x @ x)
        return stable_norm(g) * math.sqrt(xx) + h * xx

    @property
    def dimension(self) -> int:
        return int(self.x0.size)

    @property
    def dtype(self) -> np.dtype:
        return self.x0.dtype

    def _check_point(self, x: Any) -> np.ndarray:
        """``x`` as a finite copy in the problem's dtype: f(NaN) answered NaN, and a user ``f`` that wrote
        into its argument changed the solver's iterate. A field replaced since construction
        (object.__setattr__) is validated again first, as solve does (value() ran a replaced NaN f)."""
        revalidate_if_reassigned(self)
        try:
            shape = np.shape(x)
        except ValueError as exc:  # a ragged list: numpy's "inhomogeneous shape", x not named
            raise TypeError(f"x must be a vector of {self.dimension} numbers: {exc}") from None
        if shape != (self.dimension,):  # value(np.ones(3)) on a 2-d problem answered f's broadcast
            raise ValueError(f"x must have shape ({self.dimension},) (the problem's dimension), got "
                             f"{np.shape(x)}")
        point = as_real_array("x", x, check_range=False)  # an iterate: a diverging run's may pass 3.4e38
        if not np.all(np.isfinite(point)):
            raise ValueError(f"x must be finite, got {np.asarray(x).tolist()!r:.80}")
        return point.astype(self.dtype)

    def value(self, x: np.ndarray) -> float:
        """f(x) as a float, for ``x`` a finite vector of length d (checked, as the scalar f returns); inf or
        NaN where f overflows at x is returned as it is (the solvers then report ``Diverged``)."""
        x = self._check_point(x)
        # the user's own KeyError/ZeroDivisionError reached the caller bare: named (ValueError/TypeError pass)
        fx = call_user("f(x)", self.f, x, keep=(ValueError, TypeError))
        if np.ndim(fx) != 0:
            raise ValueError(f"f(x) must return a scalar, got an array of shape {np.shape(fx)}")
        given = 0 if isinstance(fx, int) and not isinstance(fx, bool) else precision_rank(fx)
        if given is not None and given < precision_rank(self.x0):
            # as grad(x): an int or half-precision f beside a float64 x0 truncated the value, and Polyak/LCD2
            # stopped on the truncated f − f* with a Success away from the optimum
            raise TypeError(f"f(x) must return a float at least as precise as x0's {self.x0.dtype}, got "
                            f"{type(fx).__name__}")
        if "_f_eps" not in self.__dict__:  # f's own precision, from its answer at x0 (gap_resolved reads it)
            object.__setattr__(self, "_f_eps", float(np.finfo(np.float32 if given == 2 else np.float64).eps))
        return returned_scalar("f(x)", fx)  # a str "1" was parsed by float(), a bool counted as 0/1

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """∇f(x), checked real and of shape (d,), for ``x`` a finite vector of length d; inf or NaN entries
        where ∇f overflows at x are returned as they are (the solvers then report ``Diverged``)."""
        x = self._check_point(x)
        raw = call_user("grad(x)", self.grad, x, keep=(ValueError, TypeError))
        try:
            g = as_real_array("grad(x)", raw, check_range=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"grad(x) must return a real array of shape ({self.dimension},), got "
                            f"{type(raw).__name__}") from exc
        if g.shape != (self.dimension,):
            raise ValueError(f"grad(x) must have shape ({self.dimension},), got {g.shape}")
        given = precision_rank(raw)
        if given is not None and given < precision_rank(self.x0):
            # a float32, float16 or integer gradient beside a float64 x0 was upcast in silence: every step
            # then moved by a rounded (or truncated) gradient, and a solve still ended Success
            raise TypeError(f"grad(x) must return floats at least as precise as x0's {self.x0.dtype}, got "
                            f"dtype {str(getattr(raw, 'dtype', type(raw).__name__)).replace('torch.', '')}")
        return g

    def curvature_at(self, x: np.ndarray) -> np.ndarray:
        """``C(x)`` as a float64 ``(d, d)`` matrix or ``(d,)`` diagonal, checked symmetric PSD.

        >>> import numpy as np
        >>> bad = lambda x: np.array([[1.0, 2.0], [0.0, 1.0]])
        >>> CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=bad,
        ...                  L_C=2.0, x0=np.zeros(2))
        Traceback (most recent call last):
        ...
        ValueError: curvature(x) must be symmetric (max |C - Cᵀ| = 2)
        """
        d = self.dimension
        x = self._check_point(x)
        raw = call_user("curvature(x)", self.curvature, x, keep=(ValueError, TypeError))
        try:
            C = as_real_array("curvature(x)", raw, check_range=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"curvature(x) must return an array: {exc}") from exc
        if C.shape not in ((d,), (d, d)):
            raise ValueError(f"curvature(x) must have shape ({d},) or ({d}, {d}), got {C.shape}")
        if not np.all(np.isfinite(C)):
            raise NonFiniteCurvature("curvature(x) contains NaN or inf entries")
        return check_curvature_matrix("curvature(x)", C, raw)


class NonFiniteCurvature(ValueError):
    """``curvature(x)`` answered NaN or inf: refused at x0 and on a direct call (this ValueError, naming
    curvature(x)); inside a run it is what the user's callable returned there, so the run ends ``Diverged``
    (a ValueError ended a run whose f and grad had gone NaN the same way with Diverged)."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _raised_outside(exc: BaseException) -> bool:
    """True when ``exc`` was raised outside this package (numpy inside a user's callable)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and not os.path.abspath(frames[-1].filename).startswith(_PACKAGE)


@contextlib.contextmanager
def _at_start(x0: np.ndarray):
    """The first calls of the user's f, grad and curvature, at ``x0``: a plain ValueError/TypeError raised
    inside numpy there (the "matmul: ... mismatch" of an x0 whose length the callables do not take) is
    re-raised naming x0 and its shape. The user's own exception classes pass unchanged."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        if type(exc) not in (ValueError, TypeError) or not _raised_outside(exc):
            raise
        raise type(exc)(f"the callables failed at x0 (shape {x0.shape}; check that f, grad and curvature "
                        f"take a point of that length): {exc}") from exc


#: the messages of CurvatureProblem's checks of quantities a factory derives from its scalar arguments
_DERIVED = ("L must", "L_C must", "L = ", "L_C = ", "f(x0) ", "grad(x0) ", "curvature(x) ", "curvature(x0) ",
            "f(x) ", "grad(x) ")


#: the messages of the start's values (f, ∇f, C at x0): past the working range they are x0's doing
_AT_START = ("f(x0) ", "grad(x0) ", "curvature(x0) ")


@contextlib.contextmanager
def blamed_on(**arguments: Any):
    """A factory's problem built from derived quantities (L_C = 2δ²‖A‖², f(x0) = ‖A x0 − b‖_p^p, βL):
    one that overflows (Python's OverflowError for δ = 1e308) or that CurvatureProblem refuses under its
    own name ("L must be > 0 and finite, got inf" for β = 1e308) is re-raised as a ValueError naming
    the factory's ``arguments`` and their values."""
    given = ", ".join(f"{name} = {_brief(value)}" for name, value in arguments.items())
    try:
        yield
    except (OverflowError, ZeroDivisionError) as exc:
        raise ValueError(f"{given} is out of range: a derived constant overflows ({exc})") from None
    except ValueError as exc:
        if type(exc) is not ValueError or not str(exc).startswith(_DERIVED):  # x_star's, f_star's own: as is
            raise
        if str(exc).startswith(_AT_START) and "working range" in str(exc):
            # f(x0) past the range: x0 (inside it) is what overflows, not p = 4 or delta = 1
            raise ValueError(f"x0 (with {given}) gives an invalid problem: {exc}") from exc
        raise ValueError(f"{given} gives an invalid problem: {exc}") from exc


def check_curvature_matrix(name: str, C: np.ndarray, source: Any = None) -> np.ndarray:
    """A finite real curvature ``C`` ((d, d) or a (d,) diagonal) checked symmetric positive semidefinite to
    relative rounding level of its own dtype, pair by pair and at unit diagonal (``check_square_symmetric``,
    ``graded_psd_violation``; a (d, d) C with a diagonal entry below −rtol times its row's largest is refused,
    ``negative_diagonal``); returns it in float64, symmetrized (a (d,) diagonal clipped at 0: its negative
    entries above −rtol·max|C| are taken as rounding).
    The level is 1e-8, or 4 d eps of a less precise dtype: a float32 Gram matrix 2BᵀB (exactly PSD) has
    eigenvalues down to about -d eps32 ‖C‖ and was refused as indefinite."""
    kind = _dtype_of(source if source is not None else C)
    eps = float(np.finfo(kind).eps) if kind is not None else 0.0
    C = C.astype(np.float64)
    d = C.shape[0]
    rtol = max(_CURVATURE_RTOL, 4 * d * eps)
    # relative to C's own size: max(1, ·) took an indefinite or asymmetric C of 1e-9 (refused at scale 1)
    scale = float(np.max(np.abs(C), initial=0.0))
    if scale == 0.0:  # C = 0: PSD (the Cholesky test below needs a positive shift)
        return np.zeros_like(C)
    if C.ndim == 1:
        if C.min(initial=0.0) < -rtol * scale:
            raise ValueError(f"{name} must be positive semidefinite (a diagonal entry is "
                             f"{C.min():.3g} < 0)")
        return np.maximum(C, 0.0)
    # pair by pair (check_square_symmetric): against max |C| alone, C[0, 0] = 1e20 let C[2, 1] = 1000 beside
    # C[1, 2] = 0 pass, symmetrized into an indefinite block
    check_square_symmetric(name, C, rtol=rtol, symbol="C")
    C = 0.5 * (C + C.T)
    try:  # PSD test: a Cholesky factor of C + ε I exists iff λ_min(C) > −ε
        np.linalg.cholesky(C + (rtol * scale) * np.eye(d))
    except np.linalg.LinAlgError:
        lam = float(np.linalg.eigvalsh(C)[0])
        raise ValueError(f"{name} must be positive semidefinite (smallest eigenvalue {lam:.3g})") from None
    negative = negative_diagonal(C, rtol)  # diag(1e20, −1) passed both tests (graded: positive diagonal only)
    if negative is not None:
        i, value, line = negative
        raise ValueError(f"{name} must be positive semidefinite (its diagonal entry C[{i}, {i}] = "
                         f"{value:.3g} bounds its smallest eigenvalue, below −{rtol:g}·{line:.3g}, the "
                         f"largest entry of its row)")
    graded = graded_psd_violation(C, rtol)  # at unit diagonal: diag(1e20, [[1, 1000], [1000, 1]]) passed
    if graded is not None:
        raise ValueError(f"{name} must be positive semidefinite (smallest eigenvalue {graded:.3g} once "
                         f"scaled to a unit diagonal, D·C·D with D = diag(C)^(-1/2))")
    return C


def _dtype_of(value: Any) -> np.dtype | None:
    """The floating numpy dtype ``value`` (an array or a tensor) was computed in, or None."""
    kind = getattr(value, "dtype", None)
    if kind is not None and not isinstance(kind, np.dtype):  # a torch dtype: torch.float32 -> float32
        kind = np.dtype(str(kind).replace("torch.", "")) if str(kind).replace("torch.", "") in (
            "float16", "float32", "float64") else None
    return kind if isinstance(kind, np.dtype) and kind.kind == "f" else None


def _check_curvature_constant(value: Any) -> float:
    """``L_C``: a real number in [0, ∞] (∞: no upper bound is known)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real | np.floating | np.integer):
        raise TypeError(f"L_C must be a real number >= 0 (or math.inf), got {type(value).__name__}")
    # only a float inf is the documented limit: Fraction(10**400) or longdouble 1e4000 became it (red23b)
    given_inf = isinstance(value, float | np.floating) and bool(np.isinf(value))
    if not isinstance(value, int | float | np.floating | np.integer):
        value = to_float(value)  # a Fraction was refused by TypeError
    if isinstance(value, int | np.integer) and abs(value) > 2**1023:  # float() raised OverflowError
        raise ValueError(f"L_C must be a float in [0, inf] (an int past float's range is not), got {value!r}")
    if math.isnan(value) or value < 0:
        raise ValueError(f"L_C must be >= 0 (or math.inf when only the lower bound is known), "
                         f"got {value!r}")
    value = float(value)
    if math.isinf(value) and not given_inf:
        raise ValueError("L_C must be math.inf or a finite real at most 3.4e38 (the working range), got a "
                         "finite value past float64's range")
    # inf is the documented "no upper bound"; a finite L_C (>= 0: any value from 0 up) is at most the
    # working range's maximum (1e308 was taken, overflowing every step's shifted solve)
    return value if math.isinf(value) else check_working_range("L_C", value, scale=False)


def check_finite_curvature_constant(value: Any) -> float:
    """``L_C`` where the upper bound is used (LCD1): finite and >= 0."""
    value = _check_curvature_constant(value)
    if math.isinf(value):
        raise ValueError("L_C must be finite here (LCD1 minimizes the upper model of inequality (6)), "
                         "got inf: only the lower bound is known for this problem")
    return value


def is_number(value: Any) -> bool:
    """True for a real Python/numpy scalar (the step helpers also accept sympy expressions)."""
    return not isinstance(value, bool | np.bool_) and isinstance(value, numbers.Real)  # a Fraction too


def check_step_inputs(x: Any, g: Any, C: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arguments of a step helper: ``x`` and ``g`` of shape (d,), ``C`` of shape (d, d) or (d,)."""
    x = as_float_array("x", x, ndim=1)
    if x.size == 0:  # an empty x was reported as "g must have shape (0,)"
        raise ValueError("x must have at least one entry, got shape (0,)")
    g = as_float_array("g", g, ndim=1)
    if g.shape != x.shape:  # both named: a wrong x was reported as a wrong g
        raise ValueError(f"x and g must have one length d: x has shape {x.shape}, g has shape {g.shape}")
    source, C = C, as_float_array("C", C)
    d = x.size
    if C.shape not in ((d,), (d, d)):
        raise ValueError(f"C must have shape ({d},) or ({d}, {d}) to match x, got {C.shape}")
    C = check_curvature_matrix("C", C, source)  # an indefinite C has no step (Assumption 1); float64 now
    return x.astype(np.float64), g.astype(np.float64), C


def is_symbolic(value: Any) -> bool:
    """True for a sympy object (the scalar step helpers pass those through unchecked)."""
    return type(value).__module__.split(".")[0] == "sympy"


def check_scalar_or_symbolic(name: str, value: Any) -> Any:
    """A scalar step helper's number: a real Python/numpy scalar or a sympy expression, nothing else
    (None, str, a list or a complex number reached numpy's or Python's operator errors, a bool was read as
    0 or 1)."""
    if not (is_number(value) or is_symbolic(value)):
        raise TypeError(f"{name} must be a real number (or a sympy expression), got "
                        f"{type(value).__name__} {value!r:.60}")
    return value


def check_numeric_point(x: Any, g: Any) -> tuple[Any, Any]:
    """``x`` and ``g`` of a scalar step helper, unless symbolic: real, finite, of one shape. Returned as
    given when numbers (or sympy), else as float arrays (a list, a tensor: ``x − lr·g`` on a numpy array and
    a tensor raised torch's and numpy's own errors)."""
    if is_symbolic(x) or is_symbolic(g):
        return x, g
    xs = as_float_array("x", x)
    gs = as_float_array("g", g)
    if xs.size == 0:  # an empty x was answered an empty step, or blamed on g_norm_sq (Polyak)
        raise ValueError("x must have at least one entry, got shape (0,)")
    if gs.shape != xs.shape:
        raise ValueError(f"g must have the shape of x {xs.shape}, got {gs.shape}")
    x, g = (x if is_number(x) else xs), (g if is_number(g) else gs)
    if not (xs.dtype == np.float32 and gs.dtype == np.float32):
        # float32 only when both are: a float32 g beside a float64 x made lr·g a float32 product (NEP 50), so
        # the float64 step carried g's rounding (7e-10 relative)
        x, g = _as_float64(x), _as_float64(g)
    return x, g


def _as_float64(value: Any) -> Any:
    """A Python number as it is, a numpy scalar or array in float64."""
    if isinstance(value, int | float):
        return value
    return np.float64(value) if is_number(value) else np.asarray(value).astype(np.float64, copy=False)


def check_caller_range(name: str, value: float, *, scale: bool = True) -> None:
    """``check_working_range`` for a step helper's number, unless the package itself made the call (inside
    the shared ``run_values()``: a run's own Δ, G, ‖g‖² may be subnormal near the optimum, or past the
    range as a run blows up)."""
    if user_range():
        check_working_range(name, value, scale=scale)


def step_scalar(name: str, value: Any, expected: str) -> Any:
    """A scalar argument of a step helper (a step size, Δ, λ, ‖g‖²): a sympy expression as it is, else a
    real number (never a bool, a str, an array, a Decimal), returned as given; NaN refused, and an int past
    float's range (10**400) is refused as not finite. ``expected`` words the domain for the message."""
    if is_symbolic(value):
        return value
    if not is_number(value):
        raise TypeError(f"{name} must be a real number {expected} (or a sympy expression), got "
                        f"{type(value).__name__} {_brief(value)}")
    # to_float: a nonzero Fraction/longdouble below float64's range stays nonzero with its sign (as 0.0 it
    # was the valid 0 of a ">= 0" Δ, as -0.0 a negative passed the sign check; red23b)
    number = to_float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must be a number {expected}, got nan")
    if math.isinf(number) and not (isinstance(value, float | np.floating) and np.isinf(value)):
        # 10**400, Fraction(10**400), longdouble 1e4000: finite, past float64's range (never the ∞ limit)
        raise ValueError(f"{name} must be a finite number {expected}, got {_brief(value)} (past float64's "
                         f"range)")
    if math.isfinite(number):  # inf is left to each helper (λ = ∞: Newton's limit)
        # a positive scale ("> 0") has the range's minimum, a ">= 0" one any value from 0 up; a negative
        # number is left to the helper's sign check ("lam must be >= 0")
        check_caller_range(name, number, scale=expected.startswith("> ") and number > 0)
    if not isinstance(value, int | float | np.floating | np.integer) or isinstance(value, np.longdouble):
        return number  # a Fraction/longdouble as its float (x − Fraction·g made an object array; a longdouble
        # made a float128 point where float64 is documented)
    return value  # as given: an int stays exact beside sympy (4, not 4.0)


def finite_step(result: Any, culprit: str, value: Any) -> Any:
    """The numeric result of a step helper, refused when it is not finite from finite inputs (a step size
    of 1e308 times a gradient overflows): a ValueError naming the argument that made it so."""
    if is_symbolic(result) or (isinstance(result, np.ndarray) and result.dtype == object):
        return result
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{culprit} = {_brief(value)} is too large: the step "
                         "overflows to a non-finite point")
    return result


def exact(value: Any, index: tuple = ()) -> Fraction:
    """The exact rational value of a float (an array's entry at ``index``)."""
    return Fraction(float(np.asarray(value, dtype=np.float64)[index] if np.ndim(value) else value))


# --------------------------------------------------------------------------- linear algebra


def eig_curvature(C: np.ndarray, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """``(Q, D, ĝ)`` with ``C = Q diag(D) Qᵀ`` and ``ĝ = Qᵀg`` (``Q`` is None for a diagonal C, given as a
    vector or as a matrix with zeros off the diagonal: its eigenvalues are then exact, not eigh's)."""
    C = as_diagonal(C)
    if C.ndim == 1:
        return None, np.maximum(C, 0.0), g
    D, Q = np.linalg.eigh(C)
    return Q, np.maximum(D, 0.0), Q.T @ g


def as_diagonal(C: np.ndarray) -> np.ndarray:
    """A (d, d) ``C`` with zeros off its diagonal as its (d,) diagonal (anything else unchanged): the exact
    entries, where eigh and lstsq's rank cut-offs dropped a small exact eigenvalue (diag(1, 1e-17) as a
    matrix gave another step than as a vector)."""
    if C.ndim == 2 and not np.any(C - np.diag(np.diagonal(C))):
        return np.diagonal(C).copy()
    return C


def from_eigenbasis(Q: np.ndarray | None, v: np.ndarray) -> np.ndarray:
    return v if Q is None else Q @ v


def shifted_solve(C: np.ndarray, shift: float, g: np.ndarray) -> np.ndarray:
    """``(C + shift I)⁻¹ g`` (pseudo-inverse when the matrix is singular, e.g. shift = 0)."""
    C = as_diagonal(C)
    if C.ndim == 1:
        diag = C + shift
        out = np.zeros_like(g)
        nz = diag > 0
        out[nz] = g[nz] / diag[nz]
        return out
    M = C + shift * np.eye(C.shape[0])
    if shift > 0:
        try:
            return scipy.linalg.cho_solve(scipy.linalg.cho_factor(M, check_finite=False), g,
                                          check_finite=False)
        except np.linalg.LinAlgError:
            pass
    return scipy.linalg.lstsq(M, g, check_finite=False, lapack_driver="gelsd")[0]


# --------------------------------------------------------------------------- the common loop


def check_f_star_not_above(problem: CurvatureProblem, fx: float, gap_tol: float) -> None:
    """At a Success: an f below ``f_star`` beyond tol and 1e-6·S shows an ``f_star`` above f's minimum (the
    solve found a better point than the "optimum"; LCD1 and L-BFGS-B reported Success there). Refused,
    naming ``f_star``; no oracle call (the counters stay the work of the method)."""
    if problem.f_star is not None and fx - problem.f_star < -(gap_tol + 1e-6 * problem.scale_f):
        raise ValueError(f"f_star = {problem.f_star!r} is above f's minimum: the solve reached f = {fx!r}; "
                         f"f_star must be the optimal value (a lower bound of f)")


def check_stationary_gap(problem: CurvatureProblem, gap: float | None, gnorm: float, gap_tol: float,
                         tol_grad: float) -> bool:
    """At a stop by the tolerances (``tol_grad`` = tol·G, before the floor): True for a Success, False for
    ``Stalled``. A solve that reached a stationary point (a minimizer: f is convex) with f − f* well above
    zero shows an ``f_star`` below f's minimum (a Success was reported with the gap never closing): refused
    there, naming ``f_star``; 1e-6·S leaves room for the slow gap of flat functions (‖x‖⁴ near 0).
    Stationary means ‖∇f‖ under C(x0)'s rounding level (``curvature_floor``); a stop under only a loose
    bound's level (``grad_floor``: L or L_C above ‖C(x0)‖) may be short of it, ``Stalled`` (a valid f_star
    was blamed on ‖x‖_p² with p = 2**40, whose L = L_C = 2(p − 1) ≫ ‖∇²f‖ near x0)."""
    if gap is not None and gap <= gap_tol + 1e-6 * problem.scale_f:
        return True
    if gnorm <= max(problem.curvature_floor, 1e-12 * problem.scale_grad):
        if gap is None:
            return True
        raise ValueError(f"f_star = {problem.f_star!r} is below f's minimum, or grad is not f's gradient: "
                         f"the solve reached a point where grad(x) vanishes (‖∇f‖ = {gnorm:.3g}, a minimizer "
                         f"of the convex f if grad is its gradient) with f − f_star = {gap:.6g}; f_star must "
                         "be the optimal value and grad(x) the gradient of f")
    # ∇f small relative to tol (a loose tol, an ill-conditioned f): f − f* may still be large at a correct
    # f_star, and a Success by the gradient test is the documented answer
    return gnorm <= tol_grad


def _stationary_here(problem: CurvatureProblem, x: np.ndarray, tested_gap: float | None,
                     gnorm: float) -> bool:
    """At a stall or at ``maxiters``: whether ∇f(x) is under x's own rounding level (``rounding_floor``),
    with no gap test to decide (f* unknown or hidden by f's rounding). Then x is a minimizer up to the
    rounding of its dtype: a Success (a float32 solve from x0 = 0 ended Stalled there)."""
    return tested_gap is None and gnorm <= problem.rounding_floor(x)


def run_descent(
    problem: CurvatureProblem,
    options: SolveOptions,
    step: Callable[[np.ndarray, float, np.ndarray, Stats], tuple[np.ndarray | None, dict[str, Any]]],
    *,
    name: str,
    default_maxiters: int = 1000,
    default_tol: float = 1e-10,
) -> Solution:
    """The iteration shared by every method of the family.

    ``step(x, f(x), ∇f(x), stats)`` returns ``(x_next, info)``; ``x_next = None``
    means the step is undefined (``info["retcode"]`` says why). Stops with
    ``Success`` when ``f − f* <= tol·S`` (``f*`` known) or ``‖∇f‖ <= tol·G`` (``tol`` in (0, 1)), relative
    to the problem's scales at x0 (``scale_f``, ``scale_grad``, :meth:`CurvatureProblem.stopping_tolerances`:
    the verdict does not depend on the units),
    ``MaxIters`` after ``maxiters`` steps without it, ``Diverged`` on a non-finite
    iterate, value, gradient or curvature ``C(x)``, or once ``f − f(x0) > BLOWUP_FACTOR · max(1, |f(x0)|)``,
    ``Stalled`` at a step that leaves x unchanged in its dtype (every later step would too). At such a stall
    and at ``maxiters``, with no gap test to decide (f* unknown), ``‖∇f(x)‖ <= 16 eps ‖C(x)‖ ‖x‖`` (x's own
    rounding level, :meth:`CurvatureProblem.rounding_floor`) is a ``Success``.
    Records per iterate: ``iteration, value, gap (f − f*, or None), grad_norm``
    and the step's ``info``.
    """
    maxiters = options.iterations(default_maxiters)
    tol = options.tolerance(default_tol)
    gap_tol, grad_tol = problem.stopping_tolerances(tol)
    dtype = problem.dtype
    stats = Stats()
    monitor = IterationMonitor(options, total=maxiters, desc=name)
    x = problem.x0.copy()
    retcode = RetCode.MaxIters
    info: dict[str, Any] = {}
    fx = problem.f0
    try:
        for k in range(maxiters + 1):
            if not in_working_range(x):  # value() refuses a non-finite point: the run diverged
                fx, gnorm = math.nan, math.nan
                monitor.record(iteration=k, value=fx, gap=None, grad_norm=gnorm, **info)
                stats.iterations = k
                retcode = RetCode.Diverged
                break
            fx = problem.value(x)
            g = problem.gradient(x)
            stats.f_calls += 1
            stats.grad_calls += 1
            stats.iterations = k
            gap = None if problem.f_star is None else fx - problem.f_star
            tested_gap = gap if problem.gap_resolved(fx, gap_tol) else None  # else ∇f decides
            gnorm = stable_norm(g)
            blown_up = fx - problem.f0 > BLOWUP_FACTOR * max(1.0, abs(problem.f0))
            if blown_up or not (in_working_range(fx) and in_working_range(g)):
                monitor.record(iteration=k, value=fx, gap=gap, grad_norm=gnorm, **info)
                retcode = RetCode.Diverged
                break
            stop = monitor.record(iteration=k, value=fx, gap=gap, grad_norm=gnorm, **info)
            # a True for the record where the test also holds stops it too (core's rule; it ended Success)
            if stop and maxiters > 0:
                retcode = RetCode.Terminated
                break
            if k > 0 or maxiters > 0:
                if (tested_gap is not None and tested_gap <= gap_tol) or gnorm <= grad_tol:
                    tol_grad = tol * problem.scale_grad
                    if not check_stationary_gap(problem, tested_gap, gnorm, gap_tol, tol_grad):
                        retcode = RetCode.Stalled
                        break
                    check_f_star_not_above(problem, fx, gap_tol)
                    retcode = RetCode.Success
                    break
            if k == maxiters:  # maxiters = 0 returns x0 with MaxIters, whatever the callback says
                retcode = RetCode.MaxIters
                if maxiters > 0 and _stationary_here(problem, x, tested_gap, gnorm):
                    retcode = RetCode.Success
                break
            with run_values():
                x_next, info = step(x.astype(np.float64), fx, g, stats)
            if x_next is None:
                retcode = info.pop("retcode", RetCode.Failure)
                break
            x_next = np.asarray(x_next, dtype=np.float64).astype(dtype)
            if np.array_equal(x_next, x):
                # the step moved nothing in x's dtype (GradientDescent(lr=1.2e-38)): every later step of these
                # deterministic methods is the same, so maxiters = 10**9 ran for hours to MaxIters
                stationary = _stationary_here(problem, x, tested_gap, gnorm)
                retcode = RetCode.Success if stationary else RetCode.Stalled
                break
            x = x_next
    except NonFiniteCurvature:  # the user's C(x) went NaN/inf part-way (a step, a rounding floor): as f, grad
        retcode = RetCode.Diverged
    finally:
        monitor.close()
    return Solution(x=x, value=fx, retcode=retcode, stats=stats, trace=monitor.trace)


# --------------------------------------------------------------------------- families


def _data(A: Any, b: Any, x0: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    A = as_float_matrix("A", A, allow_sparse=False)
    single = A.dtype == np.float32
    n, d = A.shape
    if n == 0 or d == 0:
        raise ValueError(f"A must have at least one row and one column, got shape {A.shape}")
    if not np.any(A):
        raise ValueError(f"A must have a nonzero entry (with A = 0 the objective is constant), "
                         f"got an all-zero matrix of shape {A.shape}")
    b = as_float_array("b", b, ndim=1)  # both inside the working range (1e300 squared blamed delta or L)
    if b.shape != (n,):  # the mismatch names both: A's rows or b's length may be the one that is off
        raise ValueError(f"A and b must agree: b must have shape ({n},) (one entry per row of A, shape "
                         f"{A.shape}), got {b.shape}")
    if x0 is None:  # float32 only when both data are (a float32 A decided alone, b's float64 ignored)
        x0 = np.zeros(d, dtype=np.float32 if single and b.dtype == np.float32 else np.float64)
    x0 = as_float_array("x0", x0, ndim=1)
    check_shape("x0", x0, (d,))
    # read-only for good: f, grad and curvature close over them (problem.f.__closure__[0] written in place
    # changed the problem behind its f_star and L_C, as the chance factories' data did)
    return read_only(A.astype(np.float64)), read_only(b.astype(np.float64)), x0


def _spectral_norm_sq(A: np.ndarray) -> float:
    return float(np.linalg.norm(A, 2) ** 2)


def _least_squares(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    x_star = np.linalg.lstsq(A, b, rcond=None)[0]
    r = A @ x_star - b
    return x_star, float(r @ r)


def _planted_solution(A: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The least-squares x when b is in A's range (‖Ax − b‖ <= 1e-10‖b‖, relative: the absolute floor of
    1e-20 took any inconsistent b of size 1e-12 as planted and then refused the f* = 0 it had set), else None.
    Norms of b/max|b|: squares of a b of 1e-200 underflowed."""
    x_star = np.linalg.lstsq(A, b, rcond=None)[0]
    top = float(np.max(np.abs(b)))
    if top == 0.0:
        return x_star
    return x_star if np.linalg.norm((A @ x_star - b) / top) <= 1e-10 * np.linalg.norm(b / top) else None


@rebuilt_by_factory
def sum_of_squared_abs_linear(A: Any, b: Any, x0: Any = None) -> CurvatureProblem:
    """f(x) = Σᵢ (aᵢᵀx − bᵢ)² as a sum of squares of the absolutely convex |aᵢᵀx − bᵢ|.

    ``A`` is a finite (n, d) matrix with a nonzero entry whose derived smoothness constant L = 2‖A‖₂²
    lies in the working range [1.18e-38, 3.4e38] (‖A‖₂ in about [7.7e-20, 1.3e19]: a smaller A, such as
    1e-30 times a unit one, is refused naming A and b), and ``b`` a finite vector of length n. ``x0`` is
    the start (a finite vector of length d; None: zeros, float32 when ``A`` and ``b`` both are, else
    float64; the problem keeps ``x0``'s dtype).

    C(y) = 2 Σᵢ ∇φᵢ∇φᵢᵀ = 2AᵀA (the Hessian: f is quadratic) and L_C = 0, so LCD1 is
    Newton's method and lands on a minimizer in one step (Section 4, Appendix D.2).
    f* and x* come from least squares.

    f(x0) must be at most 3.4e38 (the working range) and, at a start away from x*, at least 2.2e-308
    (float64's normal range): else the start is refused naming x0.

    Precision: the oracles (f, ∇f, C) evaluate the residual Ax − b in floating point (x's dtype), so where
    it cancels they are correct to the terms' rounding (an absolute error of about eps·Σⱼ|aᵢⱼxⱼ| in the
    residual), not to full relative precision.

    >>> import numpy as np
    >>> prob = sum_of_squared_abs_linear(np.eye(2), np.array([1.0, 2.0]))
    >>> prob.L_C, prob.f_star, prob.x_star.tolist()
    (0.0, 0.0, [1.0, 2.0])
    """
    A, b, x0 = _data(A, b, x0)
    H = read_only(2.0 * A.T @ A)  # curvature closes over it
    x_star, f_star = _least_squares(A, b)

    def f(x):
        r = A @ x - b
        return float(r @ r)

    _check_residual_start(f, A, b, x0)
    with blamed_on(A=A, b=b):  # L = 2‖A‖² past the range was named L, which the caller never gave
        return CurvatureProblem(
            f=f, grad=lambda x: 2.0 * (A.T @ (A @ x - b)), curvature=lambda x: H, L_C=0.0, x0=x0,
            f_star=f_star, x_star=x_star, L=float(np.linalg.eigvalsh(H)[-1]),
            name="sum of squared |aᵢᵀx − bᵢ|")


@rebuilt_by_factory
def squared_norm_residual(A: Any, b: Any, x0: Any = None) -> CurvatureProblem:
    """f(x) = ‖Ax − b‖₂² as φ(x)² with the absolutely convex φ(x) = ‖Ax − b‖₂.

    ``A`` is a finite (n, d) matrix with L = L_C = 2‖A‖₂² in the working range [1.18e-38, 3.4e38] (‖A‖₂
    in about [7.7e-20, 1.3e19]; else refused naming A and b), ``b`` a finite vector of length n. ``x0`` is
    the start (a finite vector of length d; None: zeros, float32 when ``A`` and ``b`` both are, else
    float64; the problem keeps ``x0``'s dtype).

    ∇φ = Aᵀr/‖r‖ (r = Ax − b), so C(y) = 2Aᵀrrᵀ A/‖r‖² (rank one; 0 where r = 0) and,
    since the Hessian is 2AᵀA ⪯ C(y) + 2‖A‖₂² I, L_C = 2‖A‖₂² (the sup over y of
    λ_max(2AᵀA − C(y)) reaches this value when n > d, so it cannot be lowered in general).

    f(x0) must be at most 3.4e38 (the working range) and, at a start away from x*, at least 2.2e-308
    (float64's normal range): else the start is refused naming x0.

    Precision: the oracles (f, ∇f, C) evaluate the residual Ax − b in floating point (x's dtype), so where
    it cancels they are correct to the terms' rounding (an absolute error of about eps·Σⱼ|aᵢⱼxⱼ| in the
    residual), not to full relative precision.

    >>> import numpy as np
    >>> prob = squared_norm_residual(np.eye(2), np.array([3.0, 4.0]))
    >>> prob.curvature_at(np.zeros(2)).round(3).tolist()
    [[0.72, 0.96], [0.96, 1.28]]
    """
    A, b, x0 = _data(A, b, x0)
    L = 2.0 * _spectral_norm_sq(A)
    x_star, f_star = _least_squares(A, b)

    def f(x):
        r = A @ x - b
        return float(r @ r)

    def curvature(x):
        # 2 Aᵀr̂ r̂ᵀA with r̂ = r/‖r‖: C does not depend on ‖r‖, but (2/‖r‖²)·(Aᵀr)(Aᵀr)ᵀ gave 0 where ‖r‖²
        # underflowed (r = 1e-170: C = 0 for 2 e₁e₁ᵀ) and NaN where it overflowed
        r = A @ x - b
        with np.errstate(over="ignore"):  # ‖r‖² past float64: stable_norm rescales
            norm = stable_norm(r)
        if norm == 0.0:
            return np.zeros((A.shape[1], A.shape[1]))
        v = A.T @ (r / norm)
        return 2.0 * np.outer(v, v)

    _check_residual_start(f, A, b, x0)
    with blamed_on(A=A, b=b):
        return CurvatureProblem(
            f=f, grad=lambda x: 2.0 * (A.T @ (A @ x - b)), curvature=curvature, L_C=L, x0=x0,
            f_star=f_star, x_star=x_star, L=L, name="‖Ax − b‖₂²")


@rebuilt_by_factory
def sum_of_squared_absolutely_convex(
    residuals: Callable[[np.ndarray], np.ndarray],
    jacobian: Callable[[np.ndarray], np.ndarray],
    L_C: float,
    x0: Any,
    f_star: float | None = None,
    x_star: Any = None,
    L: float | None = None,
) -> CurvatureProblem:
    """f(x) = Σᵢ φᵢ(x)² for absolutely convex φᵢ (φᵢ(x) >= |φᵢ(y) + ⟨∇φᵢ(y), x − y⟩|).

    ``x_star`` (optional) is a minimizer and ``L`` (optional, finite float > 0) a global smoothness
    constant of f.

    ``residuals(x)`` returns the vector (φᵢ(x))ᵢ and ``jacobian(x)`` the matrix J with rows
    ∇φᵢ(x) (subgradients), each in floats at least as precise as ``x0`` (a float32 answer beside a float64
    x0 is refused by name, as CurvatureProblem refuses such an f or grad). Squaring the absolute-convexity
    inequality gives the lower bound of Assumption 2.1 with C(y) = 2JᵀJ (Section 7); ``L_C`` (the upper
    bound) must be supplied by the caller. ∇f = 2Jᵀφ.

    >>> import numpy as np
    >>> prob = sum_of_squared_absolutely_convex(lambda x: np.abs(x), lambda x: np.diag(np.sign(x)),
    ...                                         L_C=0.0, x0=np.array([1.0, -1.0]), f_star=0.0)
    >>> prob.curvature_at(prob.x0).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    check_callable("residuals", residuals)
    check_callable("jacobian", jacobian)
    check_takes("residuals", residuals, "residuals(x)", 1)
    check_takes("jacobian", jacobian, "jacobian(x)", 1)
    start = read_only(as_float_array("x0", x0, ndim=1))  # the closures below hold it
    d = start.size

    def precise(name: str, raw: Any) -> Any:
        """``raw`` refused by name when less precise than x0 (a float32 residual beside a float64 x0 moved
        every step by a rounded value: Success 2.6e-8 off; CurvatureProblem refuses such an f or grad)."""
        dtyped = np.asarray(raw) if isinstance(raw, list | tuple) else raw
        given = precision_rank(dtyped)
        if given is not None and given < precision_rank(start):
            raise TypeError(f"{name} must return floats at least as precise as x0's {start.dtype}, got dtype "
                            f"{str(dtyped.dtype).replace('torch.', '')}")
        return raw

    # shapes are checked at every call (a non-finite value is left to the solver: Diverged)
    def phi(x):
        # the user's KeyError named as residuals(x), not as the composed f(x)/grad(x) the user never wrote
        # (the outer call_user passes this UserCallableError, a ValueError, as it is; numpy's own ValueError
        # at an x0 of the wrong length stays bare, for "the callables failed at x0")
        raw = call_user("residuals(x)", residuals, x, keep=(ValueError, TypeError))
        r = as_real_array("residuals(x)", precise("residuals(x)", raw), check_range=False)
        if r.ndim != 1 or r.size == 0:
            raise ValueError(f"residuals(x) must return a non-empty vector (m,), got shape {r.shape}")
        return r

    def jac(x, m):
        raw = call_user("jacobian(x)", jacobian, x, keep=(ValueError, TypeError))
        J = as_real_array("jacobian(x)", precise("jacobian(x)", raw), check_range=False)
        if J.shape != (m, d):  # either callable may be the one that is off: both named
            raise ValueError(f"jacobian(x) must have shape ({m}, {d}) (m = len(residuals(x)) rows, d "
                             f"columns), got {J.shape}")
        return J

    def f(x):
        r = phi(x)
        return float(r @ r)

    def grad(x):
        r = phi(x)
        return 2.0 * jac(x, r.size).T @ r

    def curvature(x):
        J = jac(x, phi(x).size)
        return 2.0 * J.T @ J

    with blamed_on(residuals=residuals, jacobian=jacobian):  # grad(x0) NaN from a NaN jacobian: named
        return CurvatureProblem(f=f, grad=grad, curvature=curvature, L_C=L_C, x0=x0, f_star=f_star,
                                x_star=x_star, L=L, name="sum of squared absolutely convex functions")


def _huber(r: np.ndarray, delta: float) -> np.ndarray:
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


def _huber_prime(r: np.ndarray, delta: float) -> np.ndarray:
    return np.clip(r, -delta, delta)


@rebuilt_by_factory
def squared_huber(A: Any, b: Any, delta: float = 1.0, x0: Any = None,
                  f_star: float | None = None, x_star: Any = None) -> CurvatureProblem:
    """f(x) = Σᵢ h_δ(aᵢᵀx − bᵢ)² with the Huber loss h_δ(t) = t²/2 (|t| <= δ), δ(|t| − δ/2) else.

    Example 6.1 / Lemma E.19 (1-D): h_δ² satisfies Assumption 2.1 with c(t) = min(t², δ²) and
    L_C = 2δ² (its best smoothness constant is 3δ²). Summing over i and composing with
    t = aᵢᵀx − bᵢ (Lemmas 5.1, E.2) gives C(y) = Aᵀ diag(min(rᵢ², δ²)) A, and the upper bound
    Σᵢ δ²(aᵢᵀ(x − y))² <= δ²‖A‖₂²‖x − y‖² gives L_C = 2δ²‖A‖₂²; L = 3δ²‖A‖₂².

    ``delta`` (default 1.0): the Huber threshold δ, a real > 0 such that L_C = 2δ²‖A‖₂² and L = 3δ²‖A‖₂²
    lie in the working range [1.18e-38, 3.4e38]: δ in about [1e-19, 1e19] / ‖A‖₂ (for ‖A‖₂ = 1, δ from
    7.7e-20 to 1.06e19); a δ outside it is refused by name (δ = 2**64 or 3.4e38 on ‖A‖₂ = 1 is).
    ``f_star``/``x_star`` default to 0 and the least-squares solution when ``b`` is in the range
    of ``A`` (a planted model); otherwise pass them if known.

    f(x0) must be at most 3.4e38 (the working range) and, at a start away from x*, at least 2.2e-308
    (float64's normal range): else the start is refused naming x0.

    Precision: the oracles (f, ∇f, C) evaluate the residual Ax − b in floating point (x's dtype), so where
    it cancels they are correct to the terms' rounding (an absolute error of about eps·Σⱼ|aᵢⱼxⱼ| in the
    residual), not to full relative precision.

    >>> import numpy as np
    >>> prob = squared_huber(np.eye(1), np.array([0.0]), delta=1.0, x0=np.array([0.5]))
    >>> prob.curvature_at(np.array([0.5])).tolist(), prob.L_C, prob.f_star
    ([[0.25]], 2.0, 0.0)
    """
    A, b, x0 = _data(A, b, x0)
    delta = check_positive("delta", delta)
    norm2 = _spectral_norm_sq(A)
    # δ·δ, not δ**2 (Python's OverflowError at δ = 1e308); L_C = 2δ²‖A‖₂² and L = 3δ²‖A‖₂² are scales of
    # the working range (they were named as L, which the caller never passed)
    if not (WORKING_MIN <= 2.0 * delta * delta * norm2 and 3.0 * delta * delta * norm2 <= WORKING_MAX):
        raise ValueError(f"delta = {delta!r} puts L_C = 2δ²‖A‖₂² or L = 3δ²‖A‖₂² outside the package's "
                         f"working range [{WORKING_MIN:.4g}, {WORKING_MAX:.4g}] (‖A‖₂² = {norm2:.3g}): "
                         f"pass a delta of about 1/‖A‖₂ times [1e-19, 1e19]")
    if f_star is None and x_star is None:
        ls = _planted_solution(A, b)
        if ls is not None:
            f_star, x_star = 0.0, ls

    def f(x):
        h = _huber(A @ x - b, delta)
        return float(h @ h)

    def grad(x):
        r = A @ x - b
        return A.T @ (2.0 * _huber(r, delta) * _huber_prime(r, delta))

    def curvature(x):
        r = A @ x - b
        c = np.minimum(r * r, delta * delta)
        return A.T @ (c[:, None] * A)

    _check_residual_start(f, A, b, x0)
    with blamed_on(delta=delta):
        return CurvatureProblem(f=f, grad=grad, curvature=curvature, L_C=2.0 * delta * delta * norm2, x0=x0,
                                f_star=f_star, x_star=x_star, L=3.0 * delta * delta * norm2,
                                name=f"squared Huber (δ = {delta:g})")


def _lp_parts(r: np.ndarray, p: float):
    """N = ‖r‖_p, w = (|r|/N)^{p−2} and g = r·w = N^{2−p} r|r|^{p−2} (so ∇‖r‖_p² = 2g), computed relative to
    max |rᵢ| and in logs: the plain Σ|rᵢ|^p underflowed to 0 for a large p or small residuals (p = 2**63, or
    p = 100 with residuals 1e-4), and (|r|/N)^{p−2} of a rounded |r|/N gained a factor e^{1e-16·p} (2 where
    p = 1e17: ∇‖(1, 1, ½)‖² was [2, 2, 0] for [1, 1, 0]). log(|rᵢ|/top) is log1p((|rᵢ| − top)/top), whose
    difference is exact near the top, and log(|rᵢ|/top) below half of it (each correct to rounding)."""
    a = np.abs(r)
    top = float(np.max(a, initial=0.0))
    if top == 0.0:
        return 0.0, np.zeros_like(a), np.zeros_like(a)
    with np.errstate(divide="ignore", under="ignore"):
        # log(aᵢ/top) <= 0 (−inf at aᵢ = 0): log1p of the exact difference near the top, log of the ratio
        # below half of it (log1p of a difference near −1 lost its digits: 1e-17 beside 1 gave w = 0; red23b)
        ratio = a / top
        log_ratio = np.where(ratio >= 0.5, np.log1p((a - top) / top), np.log(ratio))
        log_sum = float(np.log(np.sum(np.exp(p * log_ratio))))  # Σ(aᵢ/top)^p in [1, n]
        N = np.float64(top) * math.exp(log_sum / p)  # numpy's float: N² past 1e308 is inf
        # (|r|/N)⁰ = 1 at p = 2, also at rᵢ = 0 (where 0·(−inf) is NaN)
        w = np.ones_like(a) if p == 2.0 else np.exp((p - 2.0) * (log_ratio - log_sum / p))
    return N, w, r * w


def _lp_squared(r: np.ndarray, p: float) -> float:
    """‖r‖_p² as max|rᵢ|² · (Σ (|rᵢ|/max|rᵢ|)^p)^(2/p): one rounding fewer than N·N (‖(1, 1)‖₂² was
    2.0000000000000004)."""
    a = np.abs(r)
    top = float(np.max(a, initial=0.0))
    if top == 0.0:
        return 0.0
    return float(np.float64(top) ** 2 * np.sum((a / top) ** p) ** (2.0 / p))


def _lp_curvature(r: np.ndarray, p: float, kind: str) -> np.ndarray:
    N, w, g = _lp_parts(r, p)
    if N == 0.0:
        return np.zeros(r.size) if kind == "diagonal" else np.zeros((r.size, r.size))
    if kind == "diagonal":  # Lemma E.14: C(y) = 2‖y‖_p^{2−p} diag(|yᵢ|^{p−2}) = 2 diag((|yᵢ|/N)^{p−2})
        return 2.0 * w
    # Lemma E.15: f = φ², φ = ‖·‖_p absolutely convex, C = 2∇φ∇φᵀ, ∇φ = y|y|^{p−2} / N^{p−1} = g / N
    v = g / N
    return 2.0 * np.outer(v, v)


@rebuilt_by_factory
def squared_lp_norm(p: float, x0: Any, curvature: str = "diagonal") -> CurvatureProblem:
    """f(x) = ‖x‖_p² for p >= 2 (Example 6.2): f* = 0 at x* = 0, L_C = L = 2(p − 1).

    ``curvature="diagonal"``: C(y) = 2‖y‖_p^{2−p} diag(|yᵢ|^{p−2}) (Lemma E.14; the lower
    bound reduces to Hölder's inequality Σ|yᵢ|^{p−2}xᵢ² <= ‖y‖_p^{p−2}‖x‖_p²).
    ``curvature="rank_one"``: C(y) = 2∇φ∇φᵀ with φ = ‖·‖_p absolutely convex (Lemma E.15).
    L_C = 2(p − 1) is the smoothness constant of ‖·‖_p² (Lemma E.17).
    ``p``: a real >= 2 with 2(p − 1) in the working range, so p <= 1.7e38 (3.4e38 is refused by name:
    L_C = 6.8e38); ``x0`` a non-empty finite vector with f(x0) finite.

    f(x0) must be at most 3.4e38 (the working range) and, at a start away from x*, at least 2.2e-308
    (float64's normal range): else the start is refused naming x0.

    >>> import numpy as np
    >>> prob = squared_lp_norm(2, x0=np.array([3.0, 4.0]))
    >>> prob.value(prob.x0), prob.curvature_at(prob.x0).tolist()
    (25.0, [2.0, 2.0])
    """
    p = _check_p(p)
    check_choice("curvature", curvature, {"diagonal", "rank_one"})
    x0 = _nonempty_start(x0)
    d = x0.size

    def f(x):
        return _lp_squared(np.asarray(x, np.float64), p)

    def grad(x):
        return 2.0 * _lp_parts(np.asarray(x, np.float64), p)[2]

    _check_start_value(f, x0, p)
    with blamed_on(p=p):
        return CurvatureProblem(f=f, grad=grad, curvature=lambda x: _lp_curvature(np.asarray(x, np.float64),
                                                                                  p, curvature),
                                L_C=2.0 * (p - 1.0), x0=x0, f_star=0.0, x_star=np.zeros(d),
                                L=2.0 * (p - 1.0), name=f"‖x‖_{p:g}² ({curvature} C)")


@rebuilt_by_factory
def lp_norm_power(p: float, x0: Any, curvature: str = "diagonal") -> CurvatureProblem:
    """f(x) = ‖x‖_p^p = Σᵢ |xᵢ|^p for p >= 2 (Example 6.4): the lower bound (5) only.

    ``curvature="diagonal"``: C₁(y) = p diag(|yᵢ|^{p−2}) (Lemma E.11: per coordinate, Young's
    inequality (p/2)|yᵢ|^{p−2}xᵢ² <= |xᵢ|^p + (p/2 − 1)|yᵢ|^p is the lower bound).
    ``curvature="rank_one"``: C₂(y) = p wwᵀ/‖y‖_p^p with w = (yᵢ|yᵢ|^{p−2})ᵢ = ∇f(y)/p (Lemma
    E.12: Hölder's inequality (wᵀx)² <= ‖x‖_p²‖y‖_p^{2p−2} followed by the same Young step).
    The constant p is the largest possible in both: the bounds are tight at x = −y.
    For p > 2 the Hessian is unbounded, so no finite L_C exists: ``L_C = math.inf`` (LCD2,
    LCD3 and Polyak run, LCD1 does not). For p = 2 f = ‖x‖² and L_C = 0 (diagonal: C = 2I, the
    Hessian) or 2 (rank one). f* = 0 at x* = 0. ``p``: a real >= 2 for which f(x0) = Σ|x0ᵢ|^p stays
    finite and at most 3.4e38, and ∇f(x0) too (refused naming p or x0 otherwise: max |x0ᵢ| = 2 allows p
    up to about 120, max |x0ᵢ| <= 1 any p up to 3.4e38).

    f(x0) must be at most 3.4e38 (the working range) and, at a start away from x*, at least 2.2e-308
    (float64's normal range): else the start is refused naming x0.

    >>> import numpy as np
    >>> prob = lp_norm_power(3, x0=np.array([1.0, -2.0]))
    >>> prob.value(prob.x0), prob.curvature_at(prob.x0).tolist(), prob.L_C
    (9.0, [3.0, 6.0], inf)
    """
    p = _check_p(p)
    check_choice("curvature", curvature, {"diagonal", "rank_one"})
    x0 = _nonempty_start(x0)
    d = x0.size

    def f(x):
        return float(np.sum(np.abs(np.asarray(x, np.float64)) ** p))

    def w(x):
        x = np.asarray(x, np.float64)
        return x * np.abs(x) ** (p - 2.0)

    def curv(x):
        a = np.abs(np.asarray(x, np.float64))
        if curvature == "diagonal":
            return p * a ** (p - 2.0)
        return p * _rank_one_factor(np.asarray(x, np.float64), p)

    _check_start_value(f, x0, p)
    if p == 2.0:
        L_C, L = (0.0 if curvature == "diagonal" else 2.0), 2.0
    else:
        L_C, L = math.inf, None
    with blamed_on(p=p):
        return CurvatureProblem(f=f, grad=lambda x: p * w(x), curvature=curv, L_C=L_C, x0=x0,
                                f_star=0.0, x_star=np.zeros(d), L=L, name=f"‖x‖_{p:g}^{p:g} ({curvature} C)")


def _rank_one_factor(y: np.ndarray, p: float) -> np.ndarray:
    """vvᵀ with v = w/‖y‖_p^{p/2}, w = y|y|^{p−2}, so that C₂(y) = p·wwᵀ/‖y‖_p^p = p·vvᵀ: 1/S times wwᵀ formed
    wwᵀ first, which overflowed (y = (1e100, 1e99), p = 3: NaN where C = 3e100) or underflowed (y = 1e-120: 0
    where C = 3e-120) with C representable. Where S = Σ|yᵢ|^p leaves float64's normal range, y is scaled by
    its largest entry: v = sign(y)·u^{p−1}·top^{p/2−1}/√(Σu^p), u = |y|/top."""
    a = np.abs(y)
    top = float(np.max(a, initial=0.0))
    if top == 0.0:
        return np.zeros((y.size, y.size))
    with np.errstate(over="ignore", under="ignore"):
        S = float(np.sum(a**p))
        if np.finfo(np.float64).tiny <= S < math.inf:
            v = y * a ** (p - 2.0) / math.sqrt(S)
        else:
            u = a / top
            v = np.sign(y) * u ** (p - 1.0) * (top ** (p / 2.0 - 1.0) / math.sqrt(float(np.sum(u**p))))
        return np.outer(v, v)


def _nonempty_start(x0: Any) -> np.ndarray:
    """``x0`` as a non-empty finite float vector (an empty one met numpy's "zero-size array to reduction
    operation maximum" in f(x0), naming nothing)."""
    x0 = as_float_array("x0", x0, ndim=1)
    if x0.size == 0:
        raise ValueError(f"x0 must be a non-empty vector (at least one entry), got shape {x0.shape}")
    return x0


def _check_start_value(f: Callable[[np.ndarray], float], x0: np.ndarray, p: float) -> None:
    """Refuse, naming ``p`` and ``x0``, a p for which f(x0) overflows (p = 2**64 reached CurvatureProblem's
    "f(x0) must be finite", which named neither)."""
    with np.errstate(over="ignore", invalid="ignore"):
        value = f(x0)
    if not math.isfinite(value):
        raise ValueError(f"p = {p!r} is too large for x0 (max |x0_i| = {float(np.max(np.abs(x0))):.3g}): "
                         f"f(x0) overflows to {value!r}")
    _check_resolved_start(value, bool(np.any(x0)), f"x0 (max |x0_i| = {float(np.max(np.abs(x0))):.3g}, "
                                                   f"p = {p:g})")


def _check_resolved_start(value: float, away: bool, where: str) -> None:
    """Refuse, naming ``x0``, a start away from the minimizer (``away``: x0 ≠ 0, or Ax0 − b ≠ 0) whose f(x0)
    underflows float64's normal range: f(x0) = 0 read as f* and the solves reported Success at x0 with 0
    iterations (lp_norm_power(200, x0=[1e-3]): f = 1e-600; ‖x‖² at x0 = 1e-170)."""
    if away and value < np.finfo(np.float64).tiny:
        raise ValueError(f"x0 is too close to the minimizer for float64: {where} is nonzero but f(x0) = "
                         f"{float(value)!r} underflows (below 2.2e-308), f cannot tell x0 from x*; rescale "
                         f"the problem (x0, or A and b) or start farther out")


def _check_residual_start(f: Callable[[np.ndarray], float], A: np.ndarray, b: np.ndarray,
                          x0: np.ndarray) -> None:
    """``_check_resolved_start`` for the (A, b) families: away from x* where A x0 − b ≠ 0."""
    r0 = A @ np.asarray(x0, np.float64) - b
    with np.errstate(under="ignore"):
        value = f(x0)
    _check_resolved_start(value, bool(np.any(r0)), f"the residual A x0 − b (max |r| = "
                                                   f"{float(np.max(np.abs(r0))):.3g})")


def _check_p(p: Any) -> float:
    if isinstance(p, bool | np.bool_) or not isinstance(p, numbers.Real):  # a Fraction too
        raise TypeError(f"p must be a real number >= 2, got {type(p).__name__}")
    p = check_finite_real("p", p)  # 10**400 raised float's OverflowError in math.isfinite
    if not (math.isfinite(p) and p >= 2):
        raise ValueError(f"p must be finite and >= 2, got {p!r}")
    return float(p)


@rebuilt_by_factory
def lp_regression(A: Any, b: Any, p: float, x0: Any = None, curvature: str = "diagonal",
                  f_star: float | None = None, x_star: Any = None) -> CurvatureProblem:
    """f(x) = ‖Ax − b‖_p² for p >= 2 (Example 6.3): Example 6.2 composed with x ↦ Ax − b.

    ``x0`` is the start (a finite vector of length d; None: zeros, float32 when ``A`` and ``b`` both
    are, else float64; the problem keeps ``x0``'s dtype).

    C(y) = Aᵀ C_p(Ay − b) A (Lemma E.2) with C_p either curvature of
    :func:`squared_lp_norm`, and L_C = L = 2(p − 1)‖A‖₂². ``p``: a real >= 2 with 2(p − 1)‖A‖₂² in the working
    range [1.18e-38, 3.4e38] (so ‖A‖₂ >= about 7.7e-20 at p = 2: a smaller A, or a larger 2(p − 1)‖A‖₂², is
    refused naming p). ``f_star``/``x_star`` default to 0
    and the least-squares solution when ``b`` is in the range of ``A``.

    f(x0) must be at most 3.4e38 (the working range) and, at a start away from x*, at least 2.2e-308
    (float64's normal range): else the start is refused naming x0.

    Precision: the oracles (f, ∇f, C) evaluate the residual Ax − b in floating point (x's dtype), so where
    it cancels they are correct to the terms' rounding (an absolute error of about eps·Σⱼ|aᵢⱼxⱼ| in the
    residual), not to full relative precision.

    >>> import numpy as np
    >>> prob = lp_regression(np.eye(2), np.array([1.0, 1.0]), p=3)
    >>> prob.L_C, prob.f_star
    (4.0, 0.0)
    """
    A, b, x0 = _data(A, b, x0)
    p = _check_p(p)
    check_choice("curvature", curvature, {"diagonal", "rank_one"})
    if f_star is None and x_star is None:
        ls = _planted_solution(A, b)
        if ls is not None:
            f_star, x_star = 0.0, ls
    L = 2.0 * (p - 1.0) * _spectral_norm_sq(A)

    def f(x):
        return _lp_squared(A @ x - b, p)

    def grad(x):
        return A.T @ (2.0 * _lp_parts(A @ x - b, p)[2])

    def curv(x):
        r = A @ x - b
        if curvature == "diagonal":
            c = _lp_curvature(r, p, "diagonal")
            return A.T @ (c[:, None] * A)
        N, _, g = _lp_parts(r, p)
        if N == 0.0:
            return np.zeros((A.shape[1], A.shape[1]))
        u = A.T @ (g / N)
        return 2.0 * np.outer(u, u)

    _check_residual_start(f, A, b, x0)
    with blamed_on(p=p):
        return CurvatureProblem(f=f, grad=grad, curvature=curv, L_C=L, x0=x0, f_star=f_star,
                                x_star=x_star, L=L, name=f"‖Ax − b‖_{p:g}² ({curvature} C)")


@rebuilt_by_factory
def squared_hinge(A: Any, b: Any, x0: Any = None, f_star: float | None = None) -> CurvatureProblem:
    """f(x) = Σᵢ max(0, 1 − bᵢaᵢᵀx)² (labels bᵢ ∈ {−1, +1}) with C ≡ 0 and L_C = 2‖A‖₂².

    ``A`` is a finite (n, d) matrix with L = L_C = 2‖A‖₂² in the working range [1.18e-38, 3.4e38] (‖A‖₂
    in about [7.7e-20, 1.3e19]; else refused naming A and b). ``b`` holds the labels, each −1 or +1, one
    per row of ``A``. ``x0`` is the start (a finite vector of
    length d; None: zeros, float32 when ``A`` and ``b`` both are, else float64; the problem keeps
    ``x0``'s dtype).

    The hinge t ↦ max(0, 1 − t) is not absolutely convex, and the "active-set Gauss–Newton"
    curvature 2Σ_{active} aᵢaᵢᵀ violates the lower bound of Assumption 2.1 (a point that
    leaves the active region makes f drop to 0 faster than the quadratic model allows), so
    the only curvature we can certify is 0: on this family LCD1 is gradient descent with
    step 1/L_C and LCD2 is the Polyak step. ``f_star`` (e.g. 0 for separable data) is the
    caller's. With C ≡ 0 no curvature certifies x's rounding level, so without ``f_star`` a solve whose
    ``tol`` asks for a gradient below the rounding of ∇f at the minimizer (a float32 x0 with the default
    tol = 1e-10) ends ``Stalled`` (or ``MaxIters``) at the minimizer, not ``Success``.

    Precision: the oracles (f, ∇f, C) evaluate the margins 1 − bᵢaᵢᵀx in floating point (x's dtype), so where
    it cancels they are correct to the terms' rounding (an absolute error of about eps·(1 + Σⱼ|aᵢⱼxⱼ|) in a
    margin), not to full relative precision.

    >>> import numpy as np
    >>> prob = squared_hinge(np.array([[1.0], [-1.0]]), np.array([1.0, -1.0]), f_star=0.0)
    >>> prob.value(prob.x0), prob.L_C
    (2.0, 4.0)
    """
    A, b, x0 = _data(A, b, x0)
    if not np.all(np.isin(b, (-1.0, 1.0))):
        raise ValueError("b must hold labels in {-1, +1}")
    L = 2.0 * _spectral_norm_sq(A)
    Ab = read_only(A * b[:, None])  # f and grad close over it

    def f(x):
        s = np.maximum(0.0, 1.0 - Ab @ x)
        return float(s @ s)

    def grad(x):
        s = np.maximum(0.0, 1.0 - Ab @ x)
        return -2.0 * (Ab.T @ s)

    d = A.shape[1]
    with blamed_on(A=A, b=b):
        return CurvatureProblem(f=f, grad=grad, curvature=lambda x: np.zeros(d), L_C=L, x0=x0,
                                f_star=f_star, L=L, name="squared hinge (C ≡ 0)")
