"""L-BFGS-B from scipy as a quasi-Newton peer of the LCD methods (no curvature map used).

``scipy.optimize.minimize(f, x0, jac=∇f, method="L-BFGS-B")`` with memory ``m``; a callback
stops it as soon as ``f − f* <= tol·S`` (when f* is known), so iteration counts compare with
the other methods of the family. ``Solution.original`` is scipy's ``OptimizeResult`` (of the last scipy
run; where scipy did not run to its end, ``maxiters = 0``, a callback's stop at x0 or a NaN/inf f or ∇f
that ends the run ``Diverged``, one built the same way: ``x``, ``fun``, ``nit``, ``success = False`` and a
``message``).

References
----------
R. H. Byrd, P. Lu, J. Nocedal, C. Zhu. A limited memory algorithm for bound constrained
optimization. SIAM J. Sci. Comput. 16(5), 1995. (Peer named by the LCD brief.)

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import LBFGS, squared_norm_residual
>>> prob = squared_norm_residual(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.ones(3))
>>> sol = solve(prob, LBFGS(), maxiters=100)
>>> sol.retcode, type(sol.original).__name__
(<RetCode.Success: 'Success'>, 'OptimizeResult')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.optimize

from algorithms._validation import check_count, check_fits_memory, stable_norm
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.curvature.problem import (
    CurvatureProblem,
    NonFiniteCurvature,
    check_f_star_not_above,
    check_stationary_gap,
)

__all__ = ["LBFGS"]


#: the most correction pairs LBFGS keeps (each is two vectors of the problem's length)
MAX_MEMORY = 10**6


#: further runs of scipy's L-BFGS-B from where one stopped short of the tolerance (each with a fresh memory)
RESTARTS = 3


class _NonFiniteValue(Exception):
    """f or ∇f non-finite at a finite point: the run diverged (scipy, handed NaN, ended Stalled at x0)."""

    def __init__(self, x: np.ndarray) -> None:
        super().__init__()
        self.x = x


@dataclass(frozen=True)
class LBFGS(Algorithm):
    """scipy's L-BFGS-B with ``memory`` correction pairs (scipy's ``maxcor``): an int in [1, 10**6]
    (default 10; more is refused by name: scipy keeps two vectors of the problem's length per pair). A run
    stores at most one pair per iteration, so it keeps m = min(memory, maxiters) pairs (a larger memory
    changes nothing); scipy's work arrays, 8·(11 m² + 2 m d) bytes for a problem of dimension d, must fit in
    this machine's memory, else the solve raises ``ValueError`` naming memory (memory = 10**6 with
    maxiters = 10**6 needs 88 TB).

    ``tol`` (in (0, 1); None, the default, is valid and means 1e-10): success when ``f − f* <= tol·S`` (f*
    known) or ``‖∇f‖ <= tol·G``
    (S, G: the problem's ``scale_f``/``scale_grad`` at x0, so the verdict does not depend on the units);
    scipy's own stopping rules are set to their tightest (``ftol=0``, ``gtol=tol·G/√d``), and a
    stop of scipy's before the tolerance is met is reported as ``RetCode.Stalled``. scipy's line search
    works in x's and f's own units (its first step has length min(1, 1e10·‖∇f‖)), so a run that scipy stops
    short of the tolerance is run once more from where it stopped, in the problem's units (x in units of
    2S/G, the start's distance to the optimum on a quadratic, f in units of 2S): f × 1e-20 or x* = 1e13 from
    x0 = 0 are solved as at unit scale (both ended ``Stalled`` at x0); ``Stalled`` is then the second run's.
    Units far from 1 (2S/G or 2S outside [1e-6, 1e6]: f × 1e-30, x* ~ 1e15 from x0 = 0) run in the problem's
    units from the start (scipy's capped steps crept to ``MaxIters`` at x0), and a run stopped short is
    restarted from where it stopped, up to three times. scipy's gtol is tol·G/√d (it bounds max|∇f|). With
    f* unknown, an end with ``‖∇f(x)‖ <= 16 eps ‖C(x)‖ ‖x‖`` (x's own rounding level in x0's dtype) is a
    ``Success``, as in every method of the family. scipy's line search decides on f's values, so where the
    gradient test asks for a decrease below f's rounding (f* unknown with f's minimum far from 0, e.g.
    ``lp_regression`` on data not fitted exactly, at the default tol = 1e-10) a run can end ``Stalled``
    (scipy's ABNORMAL) short of the tolerance; the gradient-only methods (GradientDescent, LCD1) reach it.
    A NaN or inf ``f`` or ``grad`` at a finite point scipy asks for ends the run ``Diverged`` there, as in
    every method of the family (it is not handed to scipy).
    """

    memory: int = 10

    def __post_init__(self) -> None:
        # scipy keeps 2·memory vectors of the problem's length: 2**31 - 1 met its "Maximum allowed dimension"
        object.__setattr__(self, "memory", check_count("memory", self.memory, 1, MAX_MEMORY,
                                                       "L-BFGS keeps two vectors per stored pair"))


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: LBFGS, options: SolveOptions) -> Solution:
    maxiters = options.iterations(1000)
    tol = options.tolerance(1e-10)
    gap_tol, grad_tol = problem.stopping_tolerances(tol)  # relative: run_descent's rule
    f_star = problem.f_star if problem.gap_informative else None  # f's rounding hides the gap: ∇f decides

    def gap_met(fx: float) -> bool:  # only where f's rounding at fx resolves gap_tol (an offset f = g + 1e12)
        return f_star is not None and problem.gap_resolved(fx, gap_tol) and fx - f_star <= gap_tol
    x0 = problem.x0.astype(np.float64)

    def pairs(iterations: int) -> int:
        """scipy's maxcor: at most one pair per iteration is stored, so more changes nothing but the size of
        scipy's work arrays (11·m² floats: memory = 10**6 met numpy's MemoryError for 80 TiB)."""
        m = max(1, min(algorithm.memory, iterations))
        check_fits_memory("LBFGS", "memory", algorithm.memory, 8.0 * (11.0 * m * m + 2.0 * m * x0.size))
        return m

    pairs(maxiters)  # refused before the run starts (the callback's first record)
    monitor = IterationMonitor(options, total=maxiters, desc="L-BFGS-B")

    def record(k, fx, x):
        gap = None if f_star is None else fx - f_star
        return monitor.record(iteration=k, value=fx, gap=gap)

    stats = Stats()
    stop_at_start = record(0, problem.f0, x0)
    if maxiters == 0 or stop_at_start:  # a stop request at x0 was ignored (a step, then Terminated)
        monitor.close()
        return Solution(x=problem.x0.copy(), value=problem.f0,
                        retcode=RetCode.MaxIters if maxiters == 0 else RetCode.Terminated, stats=stats,
                        trace=monitor.trace,
                        original=_unrun(x0, problem.f0, 0, "scipy not run: maxiters = 0" if maxiters == 0
                                        else "stopped by the callback at x0"))
    state = {"k": 0, "terminated": False, "f_calls": 0, "grad_calls": 0}
    values: dict[bytes, float] = {}  # f at the last points evaluated (scipy reports f in its own units)

    def attempt(start: np.ndarray, length: float, unit: float, iterations: int):
        """scipy's L-BFGS-B from ``start`` in y, x = start + length·y, on f / unit (length = unit = 1: on x
        and f themselves, y = x)."""
        identity = length == 1.0 and unit == 1.0

        def point(y: Any) -> np.ndarray:
            y = np.asarray(y, dtype=np.float64)
            return y if identity else start + length * y

        def value_at(x: np.ndarray) -> float:
            return values[x.tobytes()] if x.tobytes() in values else problem.value(x)

        def callback(intermediate_result):
            state["k"] += 1
            x = point(intermediate_result.x)
            fx = value_at(x)
            if record(state["k"], fx, x):
                state["terminated"] = True
                raise StopIteration
            if gap_met(fx):
                raise StopIteration

        def fun(y):  # value()/gradient() refuse a non-finite point; scipy's line search may try one: NaN
            x = point(y)
            if not np.all(np.isfinite(x)):
                return math.nan
            values[x.tobytes()] = value = problem.value(x)
            state["f_calls"] += 1
            if not math.isfinite(value):  # the user's f went NaN/inf mid-run: scipy was handed it unchecked
                raise _NonFiniteValue(x)
            if len(values) > 8:  # the last few points suffice (scipy reports one it just evaluated)
                values.pop(next(iter(values)))
            return value / unit

        def jac(y):
            x = point(y)
            if not np.all(np.isfinite(x)):
                return np.full(x.shape, math.nan)
            g = problem.gradient(x)
            state["grad_calls"] += 1
            if not np.all(np.isfinite(g)):  # went to scipy unchecked: Stalled at x0 (heldout19)
                raise _NonFiniteValue(x)
            return g if identity else g * (length / unit)

        # scipy's gtol bounds the largest entry of the gradient, ours its 2-norm: gtol/√d implies it (a stop
        # at max|g| <= grad_tol with ‖g‖ above it ended Stalled, and a restart stopped at once)
        result = scipy.optimize.minimize(
            fun, start if identity else np.zeros_like(start), jac=jac, method="L-BFGS-B", callback=callback,
            options={"maxiter": iterations, "maxcor": pairs(iterations), "ftol": 0.0,
                     "gtol": grad_tol * (length / unit) / math.sqrt(x0.size),
                     "maxfun": max(15000, 20 * iterations)})
        x = point(result.x)
        return result, x, value_at(x) if np.all(np.isfinite(x)) else math.nan

    def met(x: np.ndarray, fx: float) -> bool:
        if not (math.isfinite(fx) and np.all(np.isfinite(x))):
            return False
        return gap_met(fx) or stable_norm(problem.gradient(x)) <= grad_tol

    # the problem's units: y = (x − x_stop)/length on f/(G·length), length = 2S/G (the start's distance to the
    # optimum on a quadratic), the same run at every unit of f and of x
    S, G = problem.scale_f, problem.scale_grad
    length = 2.0 * S / G if S > 0 and G > 0 and math.isfinite(2.0 * S / G) else 1.0
    unit = G * length if 0 < G * length < math.inf else 1.0
    far = not (length > 0 and all(1e-6 <= v <= 1e6 for v in (length, unit)))
    try:
        # units far from 1 (f × 1e-30 or x* ~ 1e15 from x0 = 0): scipy's capped steps (1e10·‖∇f‖, BFGS updates
        # skipped below its eps) crept 1e-17 per iteration to MaxIters at x0, so those run in the problem's
        # units from the start; near unit scale scipy's own run first (as before)
        result, x, fx = attempt(x0, length, unit, maxiters) if far else attempt(x0, 1.0, 1.0, maxiters)
        nit, nfev, njev = int(result.nit), int(result.nfev), int(result.njev)
        for _ in range(RESTARTS):
            if (state["terminated"] or nit >= maxiters or not (math.isfinite(fx) and np.all(np.isfinite(x)))
                    or met(x, fx)):
                break
            # scipy stopped short (its line search has absolute floors and caps its first step at 1e10·‖∇f‖ in
            # x's units: f × 1e-20 ended Stalled at x0, ABNORMAL at nit 0; red16b; in the problem's units a
            # line search can still stop on f's rounding before the memory fits): again from there, in the
            # problem's units with a fresh memory, while it moves
            again, x_again, f_again = attempt(x, length, unit, maxiters - nit)
            nit, nfev, njev = nit + int(again.nit), nfev + int(again.nfev), njev + int(again.njev)
            moved = not np.array_equal(x_again, x)
            result, x, fx = again, x_again, f_again
            if not moved:
                break
    except _NonFiniteValue as stop:  # Diverged, as every method of the family on a NaN f or ∇f
        stats.iterations, stats.f_calls, stats.grad_calls = state["k"], state["f_calls"], state["grad_calls"]
        return Solution(x=stop.x.astype(problem.dtype), value=math.nan, retcode=RetCode.Diverged, stats=stats,
                        trace=monitor.trace, original=_unrun(stop.x, math.nan, state["k"],
                                                             "f or grad returned NaN or inf at x: Diverged"))
    finally:
        monitor.close()
    g_end = problem.gradient(x) if np.all(np.isfinite(x)) else None
    gnorm = stable_norm(g_end) if g_end is not None else math.nan  # ‖4e-210‖ squared underflowed to 0
    stats.iterations, stats.f_calls, stats.grad_calls = nit, nfev, njev
    try:
        retcode = _retcode(problem, f_star, state, fx, x, gnorm, nit, maxiters, tol, gap_tol, grad_tol,
                           gap_met)
    except NonFiniteCurvature:  # C(x) went NaN/inf at the last iterate (its rounding floor reads it)
        retcode = RetCode.Diverged
    return Solution(x=x.astype(problem.dtype), value=fx, retcode=retcode, stats=stats,
                    trace=monitor.trace, original=result)


def _unrun(x: np.ndarray, fun: float, nit: int, message: str) -> scipy.optimize.OptimizeResult:
    """``original`` as the module promises, an OptimizeResult, where scipy did not run to its end."""
    return scipy.optimize.OptimizeResult(x=np.array(x, dtype=np.float64), fun=fun, nit=nit, success=False,
                                         status=-1, message=message)


def _retcode(problem: CurvatureProblem, f_star: float | None, state: dict, fx: float, x: np.ndarray,
             gnorm: float, nit: int, maxiters: int, tol: float, gap_tol: float, grad_tol: float,
             gap_met: Any) -> RetCode:
    """The run's retcode where scipy left it (README's table, as run_descent's); ``f_star`` as the run reads
    it (None where f's rounding hides the gap)."""
    if not (math.isfinite(fx) and np.all(np.isfinite(x))):
        return RetCode.Diverged
    if state["terminated"]:  # before the test: a True for the record where it holds ended Success
        return RetCode.Terminated
    if gap_met(fx) or gnorm <= grad_tol:
        resolved = f_star is not None and problem.gap_resolved(fx, gap_tol)
        if not check_stationary_gap(problem, fx - f_star if resolved else None, gnorm, gap_tol,
                                    tol * problem.scale_grad):
            return RetCode.Stalled  # stopped by a loose bound's rounding floor with the gap open
        check_f_star_not_above(problem, fx, gap_tol)
        return RetCode.Success
    if not (f_star is not None and problem.gap_resolved(fx, gap_tol)) and gnorm <= problem.rounding_floor(x):
        return RetCode.Success  # ∇f under x's own rounding level, no gap test to decide (run_descent's)
    return RetCode.MaxIters if nit >= maxiters else RetCode.Stalled
