"""SAA as a big-M mixed-integer LP (Ahmed & Shapiro 2008; Pagnoncelli, Ahmed, Shapiro 2009).

Replace the distribution by the L samples and allow at most k = ⌊ρL⌋ of them to be violated:

    min costᵀx  s.t.  A_ℓ x + b_ℓ + M_ℓ z_ℓ >= 0 (ℓ = 1..L),  Σ_ℓ z_ℓ <= k,  z ∈ {0, 1}^L,  box,

with M_ℓ = max(0, −min_box(A_ℓ x + b_ℓ)) per row (the tightest big-M the box allows), solved by
HiGHS through ``scipy.optimize.milp``. ``Success``: HiGHS reports optimality and our check
passes (the box holds and at most k samples are violated at the answer); ``MaxTime`` when
``time_limit`` stops the search (the incumbent is returned), ``MaxIters`` when the solve option
``maxiters`` (HiGHS's node limit; 0 returns the box midpoint) does, ``Infeasible`` when HiGHS
proves there is no point, ``Failure`` when the answer fails the check, ``Diverged`` when the user's f
or g answers NaN/inf at the answer (f there, g there at any row of ``h_samples``). One solve is one
iteration: ``stats.iterations`` is 1 and the trace holds one record (iteration 0, the answer's
value and empirical violation; with ``maxiters=0``, the midpoint's value).

References
----------
B. K. Pagnoncelli, S. Ahmed, A. Shapiro. Sample average approximation method for chance
constrained programming: theory and applications. JOTA 142 (2009), 399-416.

>>> from algorithms import solve
>>> from algorithms.chance import SAAMILP, linear_gaussian_problem
>>> sol = solve(linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0), SAAMILP())
>>> sol.retcode, bool(sol.stats.empirical_violation <= 0.1)
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from algorithms._validation import check_positive, remember_validated
from algorithms.chance.ggdopt import ChanceStats, answer_feasibility, finite_answer
from algorithms.chance.problem import ChanceConstrainedProblem, box_minimum, require_linear, scaled_lp
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, _dispatch

__all__ = ["SAAMILP"]


@dataclass(frozen=True)
class SAAMILP(Algorithm):
    """The SAA big-M MILP; ``time_limit`` in seconds, ``mip_rel_gap`` HiGHS's optimality gap.

    ``time_limit`` is wall-clock time: a run it cuts (``MaxTime``) depends on the machine's load, so the same
    seed can end ``Success`` on an idle machine and ``MaxTime`` on a busy one; for reproducible retcodes cap
    the search with ``maxiters`` (HiGHS's node limit, ``MaxIters``) and a generous ``time_limit``.
    ``time_limit`` (seconds) a float in [1.18e-38, 3.4e38], a positive scale of the working range (0 and
    subnormals such as 1e-39 refused; a tiny time_limit ends the search at once with ``MaxTime``);
    ``mip_rel_gap`` a float in [1.18e-38, 1] (0 and subnormals refused; 1 accepts HiGHS's first feasible
    incumbent).
    ``tol`` (a solve option) is accepted and not used (``mip_rel_gap`` is the MILP's tolerance); ``seed``
    (None is 0, the same as seed=0) draws the out-of-sample check.

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    time_limit: float = 600.0
    mip_rel_gap: float = 1e-6

    def __post_init__(self) -> None:
        # stored as Python floats (np.float32(600.0) was kept as given)
        object.__setattr__(self, "time_limit", check_positive("time_limit", self.time_limit))
        object.__setattr__(self, "mip_rel_gap", check_positive("mip_rel_gap", self.mip_rel_gap))
        if self.mip_rel_gap > 1.0:   # a relative gap: 1 already accepts the first incumbent (1e308 was kept)
            raise ValueError(f"mip_rel_gap must lie in (0, 1] (a relative optimality gap), got "
                             f"{self.mip_rel_gap!r}")
        remember_validated(self)   # a field replaced later with object.__setattr__ is refused by solve


def midpoint_solution(problem: ChanceConstrainedProblem, options: SolveOptions) -> Solution:
    """The box midpoint with ``MaxIters``: what a direct solver returns for ``maxiters=0``."""
    x = (0.5 * (problem.lower + problem.upper)).astype(problem.dtype)
    value = float(problem.objective(x[None])[0])
    monitor = IterationMonitor(options, total=1)
    monitor.record(iteration=0, value=value)
    retcode = RetCode.MaxIters if math.isfinite(value) else RetCode.Diverged   # a user's f NaN there
    return Solution(x=x, value=value, retcode=retcode, stats=ChanceStats(), trace=monitor.trace)


def finish_linear(
    problem: ChanceConstrainedProblem,
    x: np.ndarray,
    retcode: RetCode,
    options: SolveOptions,
    original,
    *,
    max_violation: float,
) -> Solution:
    """Check the answer (box, empirical violation <= ``max_violation``), fill stats and trace; the
    out-of-sample feasibility is drawn from the solve's seed (0 when none is given)."""
    stats = ChanceStats()
    x = np.clip(x, problem.lower, problem.upper).astype(problem.dtype)
    answer_feasibility(problem, x, stats, 0 if options.seed is None else options.seed)
    if retcode is RetCode.Success and stats.empirical_violation > max_violation + 1e-12:
        retcode = RetCode.Failure
    value = float(problem.objective(x[None])[0])
    if not finite_answer(problem, x, value):   # f or g NaN/inf at the answer: never a Success
        retcode = RetCode.Diverged
    monitor = IterationMonitor(options, total=1)
    monitor.record(iteration=0, value=value, empirical_violation=stats.empirical_violation)
    stats.iterations = 1
    # one pass: a callback's True for the record after the work changes nothing (core's contract)
    return Solution(x=x, value=value, retcode=retcode, stats=stats, trace=monitor.trace, original=original)


@_dispatch
def _solve(problem: ChanceConstrainedProblem, algorithm: SAAMILP, options: SolveOptions) -> Solution:
    linear = require_linear(problem, "SAAMILP")
    if options.maxiters == 0:
        return midpoint_solution(problem, options)
    L, m, n = linear.A.shape
    # extreme units brought to about 1 by powers of two (exact): HiGHS's feasibility and gap tolerances are
    # absolute (g scaled by 1e-9 gave x = (1, 1, 1) with Success, a cost scaled by 1e-7 x = 0), its bounds
    # past 1e20 infinite (a box of 1e30 was unbounded)
    x_unit, A_data, b_data, cost_data, lower, upper = scaled_lp(problem, linear)
    big_m = np.maximum(0.0, -box_minimum(A_data, b_data, lower, upper))
    k = math.floor(problem.rho * L + 1e-9)
    indicator = sp.csr_matrix(
        (big_m.reshape(-1), (np.arange(L * m), np.repeat(np.arange(L), m))), shape=(L * m, L)
    )
    rows = sp.hstack([sp.csr_matrix(A_data.reshape(L * m, n)), indicator]).tocsr()
    budget = sp.hstack([sp.csr_matrix((1, n)), sp.csr_matrix(np.ones((1, L)))])
    constraints = [
        scipy.optimize.LinearConstraint(rows, -b_data.reshape(-1), np.inf),
        scipy.optimize.LinearConstraint(budget, -np.inf, k),
    ]
    cost = np.concatenate([cost_data, np.zeros(L)])
    integrality = np.concatenate([np.zeros(n), np.ones(L)])
    bounds = scipy.optimize.Bounds(np.concatenate([lower, np.zeros(L)]), np.concatenate([upper, np.ones(L)]))
    highs_options = {"time_limit": algorithm.time_limit, "mip_rel_gap": algorithm.mip_rel_gap}
    if options.maxiters is not None:
        highs_options["node_limit"] = options.backend_iterations()
    result = scipy.optimize.milp(
        cost, constraints=constraints, integrality=integrality, bounds=bounds, options=highs_options
    )
    retcode = milp_retcode(result, options)
    if result.x is None:
        return finish_linear(
            problem, 0.5 * (lower + upper) * x_unit, retcode, options, result, max_violation=problem.rho
        )
    return finish_linear(problem, result.x[:n] * x_unit, retcode, options, result, max_violation=k / L)


def milp_retcode(result, options: SolveOptions) -> RetCode:
    """scipy's milp status as a retcode. HiGHS's node limit stops with its status 16 ("Solution limit
    reached"), which scipy passes on as its status 4 ("not recognized"): that run was cut by ``maxiters``
    (it reported Failure). scipy's status 1 is HiGHS's time limit (its status 13: ``MaxTime``, even with a
    ``maxiters`` far away) or an iteration limit (``MaxIters``)."""
    message = str(getattr(result, "message", ""))
    node_limited = result.status == 4 and "HiGHS Status 16" in message
    if result.status == 0:
        return RetCode.Success if result.x is not None else RetCode.Failure
    if result.status == 2:
        return RetCode.Infeasible
    if result.status == 1 and "HiGHS Status 13" in message:   # HiGHS's time limit, whatever maxiters
        return RetCode.MaxTime
    if result.status == 1 or (node_limited and options.maxiters is not None):
        return RetCode.MaxIters if options.maxiters is not None else RetCode.MaxTime
    return RetCode.Failure
