"""SAA-MILP against brute force over violated subsets; CVaR and scenario against their definitions."""

import itertools
import math

import numpy as np
import scipy.optimize

from algorithms import RetCode, solve
from algorithms.chance import (
    SAAMILP,
    CVaRApproximation,
    ScenarioApproach,
    linear_gaussian_problem,
    scenario_count,
)


def _brute_force_saa(problem):
    """min over every set of at most ⌊ρL⌋ dropped samples of the LP on the rest."""
    lin, L = problem.linear, problem.linear.A.shape[0]
    k = math.floor(problem.rho * L + 1e-9)
    best = np.inf
    bounds = list(zip(problem.lower, problem.upper))
    for dropped in itertools.combinations(range(L), k):
        keep = np.setdiff1d(np.arange(L), dropped)
        res = scipy.optimize.linprog(
            lin.cost, A_ub=-lin.A[keep, 0], b_ub=lin.b[keep, 0], bounds=bounds, method="highs"
        )
        if res.status == 0:
            best = min(best, res.fun)
    return best


def test_saa_milp_matches_brute_force():
    problem = linear_gaussian_problem(n=2, n_samples=20, rho=0.1, seed=3)
    sol = solve(problem, SAAMILP())
    assert sol.retcode is RetCode.Success
    assert abs(sol.value - _brute_force_saa(problem)) < 1e-7


def test_cvar_is_inner_to_saa_and_feasible():
    problem = linear_gaussian_problem(n=2, n_samples=60, rho=0.1, seed=0)
    cvar, saa = solve(problem, CVaRApproximation()), solve(problem, SAAMILP())
    assert cvar.retcode is RetCode.Success and saa.retcode is RetCode.Success
    assert cvar.stats.empirical_violation <= 0.1
    assert cvar.value >= saa.value - 1e-9
    # its CVaR certificate: t + mean((−g − t)₊)/ρ <= 0 at some t (the minimising t is a sample quantile)
    g = (problem.linear.A @ cvar.x)[:, 0] + problem.linear.b[:, 0]
    cvar_value = min(t + np.maximum(-g - t, 0).mean() / 0.1 for t in -g)
    assert cvar_value <= 1e-7


def test_scenario_satisfies_its_scenarios_and_count():
    problem = linear_gaussian_problem(n=2, n_samples=300, rho=0.1, seed=0)
    sol = solve(problem, ScenarioApproach(confidence=1e-3))
    count = scenario_count(0.1, 2, 1e-3)
    assert count == math.ceil(20 * (math.log(1000) + 2)) and sol.original.n_scenarios == count
    g = (problem.linear.A[:count] @ sol.x)[:, 0] + problem.linear.b[:count, 0]
    assert g.min() >= -1e-7
    assert sol.retcode is RetCode.Success


def test_saa_time_limit_gives_maxtime_or_success():
    problem = linear_gaussian_problem(n=4, n_samples=300, rho=0.1, seed=0)
    sol = solve(problem, SAAMILP(time_limit=0.05))
    assert sol.retcode in (RetCode.MaxTime, RetCode.Success)
