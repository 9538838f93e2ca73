"""L-BFGS-B from scipy as a quasi-Newton peer of the LCD methods (no curvature map used).

``scipy.optimize.minimize(f, x0, jac=∇f, method="L-BFGS-B")`` with memory ``m``; a callback
stops it as soon as ``f − f* <= tol·S`` (when f* is known), so iteration counts compare with
the other methods of the family. ``Solution.original`` is scipy's ``OptimizeResult``.

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

import numpy as np
import scipy.optimize

from algorithms._validation import check_count
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.curvature.problem import CurvatureProblem, check_f_star_not_above, check_stationary_gap

__all__ = ["LBFGS"]


#: the most correction pairs LBFGS keeps (each is two vectors of the problem's length)
MAX_MEMORY = 10**6


@dataclass(frozen=True)
class LBFGS(Algorithm):
    """scipy's L-BFGS-B with ``memory`` correction pairs (scipy's ``maxcor``): an int in [1, 10**6]
    (default 10; more is refused by name: scipy keeps two vectors of the problem's length per pair).

    ``tol`` (in (0, 1), default 1e-10): success when ``f − f* <= tol·S`` (f* known) or ``‖∇f‖ <= tol·G``
    (S, G: the problem's ``scale_f``/``scale_grad`` at x0, so the verdict does not depend on the units);
    scipy's own stopping rules are set to their tightest (``ftol=0``, ``gtol=tol·G``), and a
    stop of scipy's before the tolerance is met is reported as ``RetCode.Stalled``. scipy's line search
    works in x's own units (its first step has length 1): a minimizer ~1e12 or more unit lengths from x0
    (x* = 1e13 from x0 = 0), or a problem whose steps are ~1e-14 long, can end ``Stalled`` near x0 where the
    LCD methods succeed; rescale x for LBFGS. Likewise a start whose gradient is below about 1e-154 (its
    squared norm underflows inside scipy: lp_norm_power(4, x0=[1e-70])) ends ``Diverged`` at x0; rescale f.
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
    monitor = IterationMonitor(options, total=maxiters, desc="L-BFGS-B")
    x0 = problem.x0.astype(np.float64)

    def record(k, fx, x):
        gap = None if f_star is None else fx - f_star
        return monitor.record(iteration=k, value=fx, gap=gap)

    stats = Stats()
    stop_at_start = record(0, problem.f0, x0)
    if maxiters == 0 or stop_at_start:  # a stop request at x0 was ignored (a step, then Terminated)
        monitor.close()
        return Solution(x=problem.x0.copy(), value=problem.f0,
                        retcode=RetCode.MaxIters if maxiters == 0 else RetCode.Terminated, stats=stats,
                        trace=monitor.trace)
    state = {"k": 0, "terminated": False}

    def callback(intermediate_result):
        state["k"] += 1
        fx = float(intermediate_result.fun)
        if record(state["k"], fx, intermediate_result.x):
            state["terminated"] = True
            raise StopIteration
        if gap_met(fx):
            raise StopIteration

    def fun(x):  # value()/gradient() refuse a non-finite point; scipy's line search may try one: NaN
        return problem.value(x) if np.all(np.isfinite(x)) else math.nan

    def jac(x):
        return problem.gradient(x) if np.all(np.isfinite(x)) else np.full(x.shape, math.nan)

    try:
        result = scipy.optimize.minimize(
            fun, x0, jac=jac, method="L-BFGS-B", callback=callback,
            options={"maxiter": maxiters, "maxcor": algorithm.memory, "ftol": 0.0, "gtol": grad_tol,
                     "maxfun": max(15000, 20 * maxiters)})
    finally:
        monitor.close()
    x = np.asarray(result.x, dtype=np.float64)
    fx = float(result.fun)
    g_end = problem.gradient(x) if np.all(np.isfinite(x)) else None
    gnorm = float(np.linalg.norm(g_end)) if g_end is not None else math.nan
    stats.iterations = int(result.nit)
    stats.f_calls = int(result.nfev)
    stats.grad_calls = int(result.njev)
    if not (math.isfinite(fx) and np.all(np.isfinite(x))):
        retcode = RetCode.Diverged
    elif state["terminated"]:  # before the test: a True for the record where it holds ended Success
        retcode = RetCode.Terminated
    elif gap_met(fx) or gnorm <= grad_tol:
        resolved = f_star is not None and problem.gap_resolved(fx, gap_tol)
        if check_stationary_gap(problem, fx - f_star if resolved else None, gnorm, gap_tol,
                                tol * problem.scale_grad):
            check_f_star_not_above(problem, fx, gap_tol)
            retcode = RetCode.Success
        else:  # stopped by a loose bound's rounding floor with the gap open
            retcode = RetCode.Stalled
    elif result.nit >= maxiters:
        retcode = RetCode.MaxIters
    else:
        retcode = RetCode.Stalled
    return Solution(x=x.astype(problem.dtype), value=fx, retcode=retcode, stats=stats,
                    trace=monitor.trace, original=result)
