"""Stage 1: restricted problems and the collection of feasible points."""

import numpy as np
import torch

from algorithms.chance import (
    ChanceConstrainedProblem,
    collect_feasible_points,
    empirical_violation,
    linear_gaussian_problem,
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
