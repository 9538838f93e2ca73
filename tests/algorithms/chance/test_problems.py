"""The test problems: their SOC references against independent searches, and their LP data."""

import numpy as np
import scipy.stats

from algorithms.chance import (
    beamforming_problem,
    linear_gaussian_problem,
    portfolio_var_problem,
    power_control_problem,
)


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
        beamforming_problem(n_antennas=3, n_users=2, n_samples=40, rho=0.1),
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


def test_beamforming_rows_are_the_sinr_of_the_beam_covariances():
    # with a negligible CSI error every sample is the nominal channel h̄: user i's own maximum-ratio
    # beam delivers ‖h̄_i‖² per unit power, and its zero-forcing beam leaks nothing to the other user
    problem = beamforming_problem(n_antennas=3, n_users=2, n_samples=20, rho=0.1, csi_error=1e-9, noise=0.5)
    h = problem.h_samples[:1]
    channels = h.reshape(2, 3)
    gamma, noise = 1.0, 0.5  # rate target 1 bit: γ = 2¹ − 1
    base = problem.constraints(np.zeros((1, 4)), h)[0, 0]
    np.testing.assert_allclose(base, [-gamma * noise] * 2)
    own_mrt = problem.constraints(np.array([[1.0, 0.0, 0.0, 0.0]]), h)[0, 0] - base
    np.testing.assert_allclose(own_mrt[0], channels[0] @ channels[0], rtol=1e-6)
    assert own_mrt[1] < 0.0  # user 0's beam is interference to user 1, weighted by −γ
    zf_other = problem.constraints(np.array([[0.0, 0.0, 0.0, 1.0]]), h)[0, 0] - base
    assert abs(zf_other[0]) < 1e-12 and zf_other[1] > 0.0
    # the objective is the total transmit power Σ tr S_i = Σ x
    assert problem.objective(np.array([[0.1, 0.2, 0.3, 0.4]]))[0] == 1.0


def test_beamforming_rate_target_sets_the_sinr_threshold_and_channels_are_gaussian():
    problem = beamforming_problem(n_samples=20, rho=0.1, rate_target=np.log2(3.0), noise=0.25)
    at_zero = problem.constraints(np.zeros((1, 4)), problem.h_samples[:1])[0, 0]
    np.testing.assert_allclose(at_zero, [-0.5, -0.5])  # γ = 2^{log₂3} − 1 = 2, σ² = 0.25
    fresh = problem.h_sampler(np.random.default_rng(0), 20000)
    centred = fresh - fresh.mean(axis=0)
    np.testing.assert_allclose(centred.std(axis=0), 0.3, rtol=0.03)  # csi_error 0.3, 20000 draws: sd 0.5 %


def test_beamforming_saa_optimum_is_below_the_convex_approximations():
    # SAA's exact MILP optimum is a lower bound for every empirically feasible point, among them
    # the CVaR and scenario answers (both convex inner approximations of the SAA set)
    from algorithms import RetCode, solve
    from algorithms.chance import SAAMILP, CVaRApproximation, ScenarioApproach

    problem = beamforming_problem(n_samples=40, rho=0.1, seed=0)
    saa = solve(problem, SAAMILP(time_limit=60.0))
    assert saa.retcode is RetCode.Success and saa.stats.empirical_violation <= 0.1
    for method in (CVaRApproximation(), ScenarioApproach()):
        other = solve(problem, method)
        assert other.retcode is RetCode.Success
        assert other.stats.empirical_violation <= 0.1
        assert saa.value <= other.value + 1e-6
