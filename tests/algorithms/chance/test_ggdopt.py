"""GGDOpt end to end on a small instance, its retcodes and its stats."""

from dataclasses import replace

import numpy as np

from algorithms import RetCode, solve
from algorithms.chance import GGDOpt, empirical_violation, linear_gaussian_problem, power_control_problem
from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT


def _problem():
    return linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)


def test_answer_is_the_best_empirically_feasible_sample():
    problem = _problem()
    sol = solve(problem, TINY_GGDOPT, seed=0)
    result = sol.original
    feasible = result.sample_violation <= problem.rho
    assert sol.retcode is RetCode.Success
    assert sol.value == result.sample_values[feasible].min()
    np.testing.assert_allclose(result.sample_violation, empirical_violation(problem, result.samples))
    assert sol.stats.empirical_violation <= problem.rho
    assert 0.0 <= sol.stats.out_of_sample_feasibility <= 1.0
    assert sol.stats.n_feasible_samples == feasible.sum()
    assert np.all(result.samples >= problem.lower) and np.all(result.samples <= problem.upper)


def test_trace_records_reverse_steps():
    sol = solve(_problem(), TINY_GGDOPT, seed=0, store_trace=True)
    assert [r["iteration"] for r in sol.trace] == list(range(TINY_GGDOPT.n_steps))
    assert sol.stats.iterations == TINY_GGDOPT.n_steps


def test_callback_terminates():
    sol = solve(_problem(), TINY_GGDOPT, seed=0, callback=lambda record: record["iteration"] == 1)
    assert sol.retcode is RetCode.Terminated


def test_failure_when_no_training_point_is_feasible():
    # d = n/4 with ρ tiny: 1/ρ = 100 samples, none of the restricted points violates at most 0 of them.
    # No feasible point found is Failure (never Infeasible: no proof that none exists; #43 round 13)
    problem = linear_gaussian_problem(n=2, n_samples=100, rho=0.01, seed=0)
    sol = solve(problem, replace(TINY_GGDOPT, n_train_points=10), seed=0)
    assert sol.retcode in (RetCode.Failure, RetCode.Success)
    if sol.retcode is RetCode.Failure and sol.original.train_violation.min() > 0.01:   # none feasible
        assert sol.stats.empirical_violation > 0.01
    else:   # Success, or Failure with 1-9 feasible training points: the answer is the best feasible one
        assert sol.stats.empirical_violation <= 0.01


def test_hyperparameters_are_validated_names():
    assert GGDOpt().guidance == "second"


def test_scenario_restriction_trains_on_power_control():
    # Rayleigh fading, where the moment restriction finds no point of violation <= ρ (test_data):
    # with the scenario restriction GGDOpt trains and returns an empirically feasible answer
    problem = power_control_problem(n_users=2, n_samples=100, rho=0.1, seed=0)
    sol = solve(problem, replace(TINY_GGDOPT, n_train_points=20, restriction="scenario"), seed=0)
    assert sol.retcode is RetCode.Success
    assert empirical_violation(problem, sol.x[None])[0] <= problem.rho
    assert sol.value == sol.original.sample_values[sol.original.sample_violation <= problem.rho].min()


def test_the_seed_reaches_every_random_choice():
    problem = _problem()
    first, other = solve(problem, TINY_GGDOPT, seed=0), solve(problem, TINY_GGDOPT, seed=1)
    assert first.retcode is RetCode.Success and other.retcode is RetCode.Success
    assert not np.array_equal(first.original.train_points, other.original.train_points)
    assert not np.array_equal(first.original.samples, other.original.samples)
