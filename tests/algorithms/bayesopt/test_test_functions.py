import numpy as np
import pytest

from algorithms.bayesopt import (
    Kernel,
    RKHSFunction,
    constrained_branin,
    constrained_minimum,
    gardner_problem,
    gp_sample_path,
    rkhs_function,
    rkhs_problem,
    two_disks_problem,
)


def test_rkhs_function_has_the_prescribed_norm_and_the_reproducing_bound():
    kernel = Kernel("matern", nu=1.5, lengthscale=0.2)
    g = rkhs_function(kernel, 2, norm=2.5, seed=4)
    assert g.norm == pytest.approx(2.5, rel=1e-12)
    X = np.random.default_rng(0).uniform(size=(500, 2))
    assert np.max(np.abs(g(X))) <= 2.5  # |g(x)| <= ‖g‖ √k(x, x) (Lemma B.1)
    assert g(X[0]) == pytest.approx(g(X[:1])[0])


def test_gp_sample_path_reproduces_its_sampled_values():
    g = gp_sample_path(Kernel("se", lengthscale=0.3), 2, n_points=60, seed=1)
    assert isinstance(g, RKHSFunction)
    draws = [
        gp_sample_path(Kernel("se", lengthscale=0.3), 1, n_points=40, seed=s)(np.array([0.5]))
        for s in range(200)
    ]
    assert abs(np.mean(draws)) < 0.25 and 0.6 < np.var(draws) < 1.5  # N(0, 1) marginals


@pytest.mark.parametrize("make", [gardner_problem, constrained_branin, two_disks_problem])
def test_known_optima_agree_with_a_dense_search(make):
    prob = make()
    assert np.all(np.atleast_1d(prob.c(prob.x_star)) <= 1e-9)
    assert prob.f(prob.x_star) == pytest.approx(prob.f_star, abs=1e-9)
    _, value = constrained_minimum(prob.f, prob.c, prob.bounds, n_grid=200)
    assert value == pytest.approx(prob.f_star, abs=1e-6)


def test_two_disks_region_is_disconnected():
    prob = two_disks_problem()
    middle = np.array([0.5, 0.5])
    assert prob.c(np.array([0.2, 0.7])) < 0 and prob.c(np.array([0.75, 0.25])) < 0 and prob.c(middle) > 0


def test_rkhs_problem_has_an_active_constraint_and_a_feasible_design():
    prob = rkhs_problem(Kernel("se", lengthscale=0.2), 2, seed=3)
    grid = np.random.default_rng(0).uniform(size=(20000, 2))
    feasible = prob.c(grid) <= 0
    assert prob.f(grid[feasible]).min() >= prob.f_star - 1e-9
    assert prob.f(grid).min() < prob.f_star  # the unconstrained minimum is lower: the constraint matters
    assert np.any(prob.c(prob.initial) <= 0)
