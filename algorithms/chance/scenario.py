"""The scenario approach (Calafiore & Campi 2006): enforce the constraint on N sampled scenarios.

    min costᵀx  s.t.  A_ℓ x + b_ℓ >= 0 for ℓ = 1..N,  box,

with N the smallest count for which the answer of a convex program in n variables violates the
true chance constraint with probability at most ``confidence`` (Calafiore & Campi's bound
N >= (2/ρ)(ln(1/confidence) + n)); when fewer samples exist, all L are used. An LP, solved by
HiGHS. ``Success``: HiGHS optimal and every enforced scenario satisfied; ``MaxIters`` (the
solve option ``maxiters``, HiGHS's iteration limit), ``Failure`` as for the CVaR LP (an infeasible
scenario LP included: no proof that the chance-constrained problem has no feasible point); ``Diverged``
when the user's f or g answers NaN/inf at the answer (as SAA-MILP).

References
----------
G. C. Calafiore, M. C. Campi. The scenario approach to robust control design. IEEE Trans. Autom.
Control 51(5) (2006), 742-753.

>>> from algorithms import solve
>>> from algorithms.chance import ScenarioApproach, linear_gaussian_problem
>>> sol = solve(linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0), ScenarioApproach())
>>> sol.retcode, sol.original.n_scenarios
(<RetCode.Success: 'Success'>, 100)
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.optimize

from algorithms._validation import (
    CheckedRecord,
    check_int_at_least,
    check_positive,
    check_positive_int,
    remember_validated,
)
from algorithms.chance.cvar import highs_options, linprog_retcode
from algorithms.chance.problem import FEAS_TOL, ChanceConstrainedProblem, check_rho, require_linear, scaled_lp
from algorithms.chance.saa_milp import finish_linear, midpoint_solution
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch

__all__ = ["ScenarioApproach", "scenario_count"]


def scenario_count(rho: float, n: int, confidence: float) -> int:
    """⌈(2/ρ)(ln(1/confidence) + n)⌉ (Calafiore & Campi).

    ``rho`` in (0, 1) is the allowed violation probability, ``n`` (int >= 1) the decision dimension and
    ``confidence`` in [1.18e-38, 1) (a positive scale of the working range: 0, subnormals such as 1e-39 and
    1 refused). Computed in 120-digit decimal arithmetic from the float arguments: an exact int, also past
    2**53 (ρ = 1.2e-38 with n = 2**63 - 1 is about 1.5e57).

    >>> scenario_count(0.1, 2, 1e-3)
    179
    """
    rho = check_rho(rho)
    confidence_value = check_positive("confidence", confidence)
    if not 0.0 < confidence_value < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    n = check_positive_int("n", n)
    # decimal, not float: a count past 2**53 was a rounded float (thousands off at rho = 1e-20), and n past
    # 2**53 was rounded before the sum; Decimal(float) is exact and ln is correctly rounded at 120 digits
    with decimal.localcontext() as context:
        context.prec = 120
        count = 2 / decimal.Decimal(rho) * (-decimal.Decimal(confidence_value).ln() + n)
        return int(count.to_integral_value(rounding=decimal.ROUND_CEILING))


@dataclass(frozen=True)
class ScenarioApproach(Algorithm):
    """Scenario approach; ``confidence`` in [1.18e-38, 1) the allowed probability of a violating answer (a
    positive scale of the working range: 0, subnormals such as 1e-39 and 1 refused naming it). Solve options:
    ``maxiters`` is HiGHS's iteration limit (0 returns the box midpoint); ``tol`` is accepted and not used;
    ``seed`` (None is 0) draws the out-of-sample check.

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    confidence: float = 1e-3

    def __post_init__(self) -> None:
        if not 0.0 < check_positive("confidence", self.confidence) < 1.0:
            raise ValueError(f"confidence must lie in (0, 1), got {self.confidence!r}")
        object.__setattr__(self, "confidence", float(self.confidence))   # np.float64 stored as a float
        remember_validated(self)   # a field replaced later with object.__setattr__ is refused by solve


@dataclass(eq=False)   # identity ==: the generated one compared arrays ("truth value ... ambiguous")
class ScenarioResult(CheckedRecord):
    """The scenario approach's record: ``n_scenarios`` (an int >= 0) scenarios used, HiGHS's ``highs`` result
    (checked when set too)."""

    n_scenarios: int
    highs: Any

    def __post_init__(self) -> None:   # a public record: n_scenarios = "x" was kept
        self.n_scenarios = check_int_at_least("n_scenarios", self.n_scenarios, 0)
        self._checked()


@_dispatch
def _solve(problem: ChanceConstrainedProblem, algorithm: ScenarioApproach, options: SolveOptions) -> Solution:
    linear = require_linear(problem, "ScenarioApproach")
    if options.maxiters == 0:
        return midpoint_solution(problem, options)
    L, m, n = linear.A.shape
    count = min(L, scenario_count(problem.rho, n, algorithm.confidence))
    # extreme units brought to about 1 by powers of two (exact): HiGHS's tolerances are absolute, its bounds
    # past 1e20 infinite (a box of 1e30 was unbounded)
    x_unit, A_data, b_data, cost_data, lower, upper = scaled_lp(problem, linear)
    A = A_data[:count].reshape(count * m, n)
    b = b_data[:count].reshape(-1)
    bounds = [(float(lo), float(hi)) for lo, hi in zip(lower, upper)]
    result = scipy.optimize.linprog(
        cost_data, A_ub=-A, b_ub=b, bounds=bounds, method="highs", options=highs_options(options)
    )
    retcode = linprog_retcode(result, options)
    u = result.x if result.x is not None else 0.5 * (lower + upper)
    # per row, in the row's own (scaled) units: one row's b of 1e30 scaled a violation elsewhere away
    row_tol = FEAS_TOL * (1.0 + np.abs(A) @ np.abs(u) + np.abs(b))
    if retcode is RetCode.Success and np.any(A @ u + b < -row_tol):
        retcode = RetCode.Failure
    x = u * x_unit
    return finish_linear(problem, x, retcode, options, ScenarioResult(count, result), max_violation=1.0)
