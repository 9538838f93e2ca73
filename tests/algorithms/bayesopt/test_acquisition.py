import mpmath
import numpy as np
import pytest
from scipy.stats import norm

from algorithms.bayesopt import (
    constrained_ei,
    expected_improvement,
    log_constrained_ei,
    log_expected_improvement,
    log_probability_of_feasibility,
    probability_of_feasibility,
)


def test_ei_matches_the_textbook_formula_where_it_is_representable():
    rng = np.random.default_rng(0)
    mu, sigma, best = rng.normal(size=50), rng.uniform(0.1, 2.0, 50), 0.3
    z = (best - mu) / sigma
    np.testing.assert_allclose(
        expected_improvement(mu, sigma, best), (best - mu) * norm.cdf(z) + sigma * norm.pdf(z), rtol=1e-12
    )


@pytest.mark.parametrize("z", [-1.0, -3.0, -12.0, -40.0, -400.0, -5e4, 0.5, 6.0])
def test_log_ei_is_accurate_far_in_the_tail(z):
    mpmath.mp.dps = 60
    exact = float(mpmath.log(z * mpmath.ncdf(z) + mpmath.npdf(z)))
    got = log_expected_improvement(np.array([-z]), np.array([1.0]), 0.0)[0]
    assert got == pytest.approx(exact, rel=1e-10)


def test_log_ei_is_monotone_and_finite_across_the_branches():
    z = np.linspace(-2e4, 10, 20001)
    values = log_expected_improvement(-z, np.ones_like(z), 0.0)
    assert np.all(np.isfinite(values)) and np.all(np.diff(values) > 0)


def test_zero_variance_points_are_point_masses():
    ei = expected_improvement(np.array([0.0, 2.0]), np.array([0.0, 0.0]), 1.0)
    np.testing.assert_allclose(ei, [1.0, 0.0])
    pof = probability_of_feasibility(np.array([-1.0, 1.0]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(pof, [1.0, 0.0])


def test_cei_is_ei_times_the_product_of_feasibility_probabilities():
    rng = np.random.default_rng(1)
    mu_f, sd_f = rng.normal(size=20), rng.uniform(0.1, 1, 20)
    mu_c, sd_c = rng.normal(size=(20, 3)), rng.uniform(0.1, 1, (20, 3))
    expected = expected_improvement(mu_f, sd_f, 0.0) * np.prod(norm.cdf(-mu_c / sd_c), axis=1)
    np.testing.assert_allclose(constrained_ei(mu_f, sd_f, mu_c, sd_c, 0.0), expected, rtol=1e-12)
    np.testing.assert_allclose(log_constrained_ei(mu_f, sd_f, mu_c, sd_c, 0.0), np.log(expected), rtol=1e-12)
    np.testing.assert_allclose(
        log_probability_of_feasibility(mu_c[:, 0], sd_c[:, 0]),
        norm.logcdf(-mu_c[:, 0] / sd_c[:, 0]),
        rtol=1e-12,
    )


def test_log_cei_stays_finite_where_cei_underflows():
    value = log_constrained_ei(np.array([50.0]), np.array([1.0]), np.array([40.0]), np.array([1.0]), 0.0)
    assert np.isfinite(value[0]) and value[0] < -2000
    assert constrained_ei(np.array([50.0]), np.array([1.0]), np.array([40.0]), np.array([1.0]), 0.0)[0] == 0.0
