"""The test problems: their SOC references against independent searches, and their LP data."""

import numpy as np
import scipy.stats

from algorithms.chance import linear_gaussian_problem, portfolio_var_problem, power_control_problem


def test_linear_gaussian_optimum_is_below_random_feasible_points_and_attained():
    problem = linear_gaussian_problem(n=3, n_samples=100, rho=0.1, seed=2)
    c_bar = problem.h_sampler(np.random.default_rng(0), 400000).mean(axis=0)
    q = scipy.stats.norm.ppf(0.9)
    x = np.random.default_rng(1).uniform(0, 1, size=(200000, 3))
    soc = problem.upper.size / 4.0 - x @ c_bar - q * np.linalg.norm(x, axis=1)
    feasible_values = problem.objective(x[soc >= 0.01])
    # random search over the box: never better than the optimum, and close to it (dense in 3-D)
    assert feasible_values.min() >= problem.known_optimum - 1e-3
    assert feasible_values.min() <= problem.known_optimum + 0.05


def test_portfolio_optimum_below_cash_and_random_portfolios():
    problem = portfolio_var_problem(n_assets=3, n_samples=100, rho=0.05, seed=0)
    assert problem.known_optimum < 0.0  # cash (x = 0) has value 0 and is feasible
    values = problem.objective(np.full((1, 3), 0.0))
    assert values[0] == 0.0


def test_linear_data_reproduce_g_on_every_problem():
    for problem in (
        linear_gaussian_problem(n=3, n_samples=40, rho=0.1),
        portfolio_var_problem(n_assets=3, n_samples=40, rho=0.1),
        power_control_problem(n_users=3, n_samples=40, rho=0.1),
    ):
        x = problem.lower + (problem.upper - problem.lower) * np.random.default_rng(0).uniform(
            size=(5, problem.n)
        )
        lin = problem.linear
        np.testing.assert_allclose(
            problem.constraints(x, problem.h_samples),
            np.einsum("lmn,bn->blm", lin.A, x) + lin.b[None],
            rtol=1e-12,
            atol=1e-12,
        )
        np.testing.assert_allclose(problem.objective(x), x @ lin.cost, rtol=1e-12)


def test_power_control_sinr_row():
    problem = power_control_problem(n_users=2, n_samples=20, rho=0.1, sinr_target=2.0, noise=0.5)
    p = np.array([[1.0, 3.0]])
    G = problem.h_samples[0].reshape(2, 2)
    expected = [
        G[0, 0] * 1.0 - 2.0 * (G[0, 1] * 3.0) - 2.0 * 0.5,
        G[1, 1] * 3.0 - 2.0 * (G[1, 0] * 1.0) - 1.0,
    ]
    np.testing.assert_allclose(problem.constraints(p, problem.h_samples[:1])[0, 0], expected)
