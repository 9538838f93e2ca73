"""The CVaR convex approximation of a chance constraint (Nemirovski & Shapiro 2007), on samples.

Prob[g(x, h) >= 0 for all rows] >= 1 − ρ holds when CVaR_ρ of the worst row's shortfall
max_j(−g_j(x, h)) is <= 0, i.e. (Rockafellar–Uryasev) when some t has
t + E[(max_j(−g_j) − t)₊]/ρ <= 0. On the L samples, with g linear in x, this is the LP

    min costᵀx  s.t.  s_ℓ >= −(A_ℓ x + b_ℓ)_j − t (every ℓ, j),  s >= 0,  t + Σ_ℓ s_ℓ/(ρL) <= 0,  box,

a convex inner approximation of the SAA feasible set (at most ρL samples violated). Solved by
HiGHS (``scipy.optimize.linprog``). ``Success``: HiGHS optimal and the answer violates at most
⌊ρL⌋ samples; ``MaxIters`` when the solve option ``maxiters`` (HiGHS's iteration limit) stops it;
``Failure`` when HiGHS proves the LP infeasible (a conservative approximation: the chance-constrained
problem itself may be feasible, so never ``Infeasible``, which means no feasible point; SAA-MILP decides
that) and otherwise; ``Diverged`` when the user's f or g answers NaN/inf at the answer (as SAA-MILP).

References
----------
A. Nemirovski, A. Shapiro. Convex approximations of chance constrained programs. SIAM J. Optim.
17(4) (2006), 969-996.

>>> from algorithms import solve
>>> from algorithms.chance import CVaRApproximation, linear_gaussian_problem
>>> sol = solve(linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0), CVaRApproximation())
>>> sol.retcode, bool(sol.stats.empirical_violation <= 0.1)
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from algorithms.chance.problem import ChanceConstrainedProblem, require_linear, scaled_lp
from algorithms.chance.saa_milp import finish_linear, midpoint_solution
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch

__all__ = ["CVaRApproximation"]


@dataclass(frozen=True)
class CVaRApproximation(Algorithm):
    """The sample CVaR approximation (no hyperparameters). Solve options: ``maxiters`` is HiGHS's
    iteration limit (0 returns the box midpoint with ``MaxIters``); ``tol`` is accepted (checked by
    ``solve``) and not used (HiGHS's own tolerances hold); ``seed`` (None is 0) draws the out-of-sample
    check.

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """


def linprog_retcode(result, options: SolveOptions) -> RetCode:
    """HiGHS's LP status as a retcode (0 optimal, 1 iteration limit, 3 unbounded). An infeasible LP (2) is
    ``Failure``: the LP is an approximation (CVaR's inner one, the scenario program), so its infeasibility
    is no proof that the chance-constrained problem has no feasible point (it was ``Infeasible``, with an
    empirically feasible x; red13a)."""
    return {0: RetCode.Success, 1: RetCode.MaxIters, 3: RetCode.Unbounded}.get(result.status, RetCode.Failure)


def highs_options(options: SolveOptions) -> dict:
    return {} if options.maxiters is None else {"maxiter": options.backend_iterations()}


@_dispatch
def _solve(
    problem: ChanceConstrainedProblem, algorithm: CVaRApproximation, options: SolveOptions
) -> Solution:
    linear = require_linear(problem, "CVaRApproximation")
    if options.maxiters == 0:
        return midpoint_solution(problem, options)
    L, m, n = linear.A.shape
    # data of extreme units brought to about 1 by powers of two (exact; HiGHS's tolerances are absolute):
    # g scaled by 1e-7 returned another x with Success; a box past 1e20 (HiGHS's infinity) was unbounded
    # one unit for all of g (not per row): t and s are in g's units, shared by every row
    x_unit, A_data, b_data, cost_data, lower, upper = scaled_lp(problem, linear, per_row=False)
    # variables (x, t, s): rows −A_ℓj x − t − s_ℓ <= b_ℓj, then t + Σ s/(ρL) <= 0
    s_part = sp.csr_matrix(
        (-np.ones(L * m), (np.arange(L * m), np.repeat(np.arange(L), m))), shape=(L * m, L)
    )
    shortfall = sp.hstack(
        [sp.csr_matrix(-A_data.reshape(L * m, n)), sp.csr_matrix(-np.ones((L * m, 1))), s_part]
    )
    cvar_row = sp.csr_matrix(np.concatenate([np.zeros(n), [1.0], np.full(L, 1.0 / (problem.rho * L))])[None])
    A_ub = sp.vstack([shortfall, cvar_row]).tocsr()
    b_ub = np.concatenate([b_data.reshape(-1), [0.0]])
    bounds = (
        [(float(lo), float(hi)) for lo, hi in zip(lower, upper)]
        + [(None, None)]
        + [(0.0, None)] * L
    )
    cost = np.concatenate([cost_data, np.zeros(1 + L)])
    result = scipy.optimize.linprog(
        cost, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs", options=highs_options(options)
    )
    retcode = linprog_retcode(result, options)
    x = result.x[:n] * x_unit if result.x is not None else 0.5 * (problem.lower + problem.upper)
    return finish_linear(
        problem, x, retcode, options, result, max_violation=math.floor(problem.rho * L + 1e-9) / L
    )
