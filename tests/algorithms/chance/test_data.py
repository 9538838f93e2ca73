"""Stage 1: restricted problems and the collection of feasible points."""

import numpy as np
import scipy.optimize
import torch

from algorithms.chance import (
    ChanceConstrainedProblem,
    beamforming_problem,
    collect_feasible_points,
    empirical_violation,
    linear_gaussian_problem,
    power_control_problem,
    restricted_solution,
)


def test_restricted_solution_meets_its_margin_and_is_optimal_in_one_dimension():
    # min −x s.t. mean(h) − x − z·std(h) >= 0 on [0, 5]: the answer is mean − z·std
    h = np.array([[1.0], [2.0], [3.0], [4.0]])
    problem = ChanceConstrainedProblem(
        f=lambda x: -x[:, 0],
        g=lambda x, h: h[None, :, 0] - x[:, :1],
        h_samples=h,
        rho=0.25,
        lower=[0.0],
        upper=[5.0],
    )
    x = restricted_solution(problem, h, 1.0)
    assert abs(x[0] - (2.5 - np.std(h))) < 1e-6


def test_collected_violations_are_the_empirical_ones():
    problem = linear_gaussian_problem(n=3, n_samples=200, rho=0.1, seed=0)
    points, violation = collect_feasible_points(problem, n_points=30, seed=1)
    np.testing.assert_allclose(violation, empirical_violation(problem, points))
    assert np.all(points >= problem.lower - 1e-12) and np.all(points <= problem.upper + 1e-12)
    # larger margins buy smaller violations: the feasible points have the larger objective values
    values = problem.objective(points)
    feasible = violation <= problem.rho
    assert feasible.any() and (~feasible).any()
    assert values[feasible].mean() > values[~feasible].mean()


def test_nonlinear_constraint_goes_through_slsqp():
    h = np.random.default_rng(0).normal(1.0, 0.1, size=(50, 1))
    problem = ChanceConstrainedProblem(
        f=lambda x: -(x**2).sum(dim=1),
        g=lambda x, h: h[None, :, 0] - (x**2).sum(dim=1, keepdim=True),
        h_samples=h,
        rho=0.1,
        lower=[0.0, 0.0],
        upper=[2.0, 2.0],
    )
    x = restricted_solution(problem, h, 0.0)
    assert abs(float(torch.as_tensor(x).pow(2).sum()) - h.mean()) < 1e-5


def test_restricted_solution_of_a_sum_objective_is_the_lp_optimum():
    # regression: the gradient of f = Σx is a stride-0 view that SLSQP misread, so the restricted
    # problem stalled next to the box midpoint; at z = 0 the restricted problem is the LP over the
    # mean constraint rows, which linprog solves exactly
    problem = beamforming_problem(n_samples=50, rho=0.1, seed=0)
    h = problem.h_samples[:40]
    x = restricted_solution(problem, h, 0.0)
    A, b = problem.linear.A[:40].mean(axis=0), problem.linear.b[:40].mean(axis=0)
    lp = scipy.optimize.linprog(
        np.ones(problem.n), A_ub=-A, b_ub=b, bounds=list(zip(problem.lower, problem.upper)), method="highs"
    )
    assert lp.status == 0
    assert abs(x.sum() - lp.fun) < 1e-6 * max(1.0, abs(lp.fun))


def test_scenario_restriction_meets_every_subset_sample_and_is_the_lp_optimum():
    problem = linear_gaussian_problem(n=3, n_samples=100, rho=0.1, seed=0)
    h = problem.h_samples[:25]
    x = restricted_solution(problem, h, 0.0, restriction="scenario")
    assert problem.constraints(x[None], h).min() >= -1e-6
    lin = problem.linear
    lp = scipy.optimize.linprog(
        lin.cost,
        A_ub=-lin.A[:25, 0, :],
        b_ub=lin.b[:25, 0],
        bounds=list(zip(problem.lower, problem.upper)),
        method="highs",
    )
    assert abs(float(lin.cost @ x) - lp.fun) < 1e-6


def test_scenario_restriction_finds_feasible_points_under_rayleigh_fading():
    # the moment restriction mean − z·std is infeasible for z >= 1 when std = mean (exponential
    # gains), so no collected point met the joint constraint; the scenario one gets some
    problem = power_control_problem(n_users=2, n_samples=100, rho=0.1, seed=0)
    h = problem.h_samples[:50]
    assert restricted_solution(problem, h, 1.2) is None  # mean − 1.2·std < 0 at every power
    x = restricted_solution(problem, h, 0.5)
    assert empirical_violation(problem, x[None])[0] > 0.5  # below z = 1 the margin buys little
    points, violation = collect_feasible_points(problem, n_points=12, seed=0, restriction="scenario")
    np.testing.assert_allclose(violation, empirical_violation(problem, points))
    assert (violation <= problem.rho).sum() >= 3
    assert (violation > problem.rho).sum() >= 1  # small subsets: the violation levels spread around ρ
