"""Round 14: valid inputs at the domain's extremes answered right (mpmath references at 150 digits: the
risk's p² − 2pν + 1 cancels to ~1e-50 at μ = ν = 1)."""

import math

import mpmath
import numpy as np
import pytest
import torch

from algorithms.attention import (
    SingleLocationProblem,
    fit_linear_predictor,
    learnable,
    mean_field_risk,
    monte_carlo_risk,
    overlap_velocity,
    phase_map,
    top_score_probability,
)

PROBLEMS = [dict(d=50, L=21, gamma=0.6), dict(d=10, L=3, gamma=0.3, beta=10.0),
            dict(d=50, L=21, gamma=0.9999999)]


def _reference(problem, mu):
    d, b, g = problem.d, mpmath.mpf(problem.beta), mpmath.mpf(problem.gamma)
    alpha = mpmath.log(problem.L - 1) / d
    s = mpmath.sqrt(1 - g**2)
    beta_c = mpmath.sqrt(2 * alpha)
    psi, r = (alpha / b + b / 2, b) if b < beta_c else (beta_c, beta_c)
    p = 1 / (1 + mpmath.exp(-(s * mpmath.mpf(mu) - psi) * b * d))
    return p, s, r, g**2


def _close(value, reference, rtol=1e-12):
    return abs(mpmath.mpf(value) - reference) <= rtol * abs(reference)


@pytest.mark.parametrize("kw", PROBLEMS)
def test_signal_scale_near_gamma_one(kw):
    problem = SingleLocationProblem(**kw)
    with mpmath.workdps(50):
        assert _close(problem.signal_scale, _reference(problem, 0.0)[1], 1e-15)


@pytest.mark.parametrize("kw", PROBLEMS)
@pytest.mark.parametrize("overlaps", [(1.0, 1.0, 0.0, 0.0), (1 - 1e-16, 1 - 1e-16, 0.0, 0.0),
                                      (0.9, 0.99, 0.1, 0.0), (0.5, 0.3, 0.1, 0.2)])
def test_mean_field_risk_against_mpmath(kw, overlaps):
    problem = SingleLocationProblem(**kw)
    mu, nu, zeta, rho = overlaps
    with mpmath.workdps(150):
        p, s, r, g2 = _reference(problem, mu)
        reference = problem.d * (p * s * zeta + (1 - p) * rho * r) ** 2 + g2 * (p * p - 2 * p * nu + 1)
        assert _close(mean_field_risk(problem, mu, nu, zeta, rho), reference)


@pytest.mark.parametrize("kw", PROBLEMS)
@pytest.mark.parametrize("state", [(0.9, 0.99, 0.1, 0.05), (1 - 1e-16, 1 - 1e-16, 0.0, 1e-8),
                                   (0.99999999, 0.3, 1e-4, 0.2)])
def test_overlap_velocity_against_mpmath(kw, state):
    problem = SingleLocationProblem(**kw)
    with mpmath.workdps(150):
        mu, nu, eta, zeta = (mpmath.mpf(x) for x in state)
        p, s, _, g2 = _reference(problem, state[0])
        a = p * (1 - p) * s * problem.beta * problem.d
        d_mu = 2 * a * (problem.d * s * s * p * zeta**2 + g2 * (p - nu))
        d_nu, d_zeta = -2 * g2 * p, 2 * problem.d * s * s * p * p * zeta
        reference = [-(1 - mu**2) * d_mu, -(1 - nu**2) * d_nu + nu * zeta * d_zeta, mu * eta * d_mu,
                     nu * zeta * d_nu - (1 - zeta**2) * d_zeta]
        velocity = overlap_velocity(problem, list(state))
        for value, expected in zip(velocity, reference, strict=True):
            assert (value == 0 and expected == 0) or _close(value, expected, 1e-9)


@pytest.mark.parametrize("level", [1.2e-38, 1e-20, 0.95, 1 - 1e-16])
def test_monte_carlo_interval_width_at_the_levels_ends(level):
    # z = Φ⁻¹(1/2 + level/2): 1/2 + level/2 rounded to 1/2 (a zero width) for a tiny level, and to 1
    # (statistics' "p must be in the range 0.0 < p < 1.0") for level = 1 − 1e-16
    problem = SingleLocationProblem(d=4, L=3, gamma=0.6)
    u, v = problem.oracle()
    out = monte_carlo_risk(problem, u, v, n=50, seed=0, level=level)
    with mpmath.workdps(50):
        z = mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(level))
        assert _close(out["half_width"], z * out["std"] / mpmath.sqrt(50), 1e-12)
    assert out["half_width"] > 0 and math.isfinite(out["half_width"])
    assert np.isfinite(out["risk"])


@pytest.mark.parametrize("kw, mu, expected", [
    # references: mpmath quad (40 digits) of φ(g)Φ(s√d μ + γg)^(L−1), panels of 0.01 across the peak
    (dict(d=10, L=1000, gamma=0.9), 0.5, "0.0037579443998713679"),
    (dict(d=50, L=10**6, gamma=0.3), 0.2, "5.6824866010377812e-26"),
    (dict(d=2, L=10**9, gamma=0.99), 1.0, "2.345201813965123e-9"),
    (dict(d=4, L=10**40, gamma=0.5), 1.0, "6.7237166319704648476e-118"),  # Gauss-Hermite: 170 % off
    (dict(d=2, L=2, gamma=0.5), -1.0, "0.13666083914614907"),
])
@pytest.mark.parametrize("nodes", [2, 160])
def test_top_score_probability_against_mpmath(kw, mu, expected, nodes):
    value = SingleLocationProblem(**kw)
    assert _close(top_score_probability(value, mu, nodes=nodes), mpmath.mpf(expected), 1e-12)


@pytest.mark.parametrize("scale", [1e-20, 1.0, 1e20])
def test_fit_linear_predictor_exact_on_scaled_tokens(scale):
    # gelsd's rank cutoff against the ones column dropped tokens scaled 1e-20 / 1e20 (residual 3.2)
    X = torch.randn(50, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * scale
    y = X[:, 0, 0] / scale + 1.0
    assert float((fit_linear_predictor(X, y)(X) - y).abs().max()) < 1e-12


@pytest.mark.parametrize("gamma, alpha, beta", [(0.2599676452246332, 0.4662084117181796, 2.0),
                                               (0.9999999924007069, 7.599293038016002e-09, 1.0)])
def test_learnable_decided_exactly_at_the_boundary(gamma, alpha, beta):
    with mpmath.workdps(60):
        g, a, b = (mpmath.mpf(x) for x in (gamma, alpha, beta))
        psi = mpmath.sqrt(2 * a) if b >= mpmath.sqrt(2 * a) else a / b + b / 2
        expected = bool(mpmath.sqrt(1 - g * g) > psi)
    assert learnable(gamma, alpha, beta) is expected
    assert bool(phase_map([gamma], [alpha], beta)[0, 0]) is expected


def test_phase_map_decides_each_distinct_boundary_pair_once():
    # every cell on the boundary: decided cell by cell, the documented 8192 × 8192 grid ran ~27 min (red14b)
    import time

    gamma = 0.6
    alpha = (1 - gamma) * (1 + gamma) / 2
    start = time.perf_counter()
    grid = phase_map([gamma] * 4096, [alpha] * 4096)
    assert time.perf_counter() - start < 10.0
    assert grid.shape == (4096, 4096) and not grid.any() and learnable(gamma, alpha) is False
