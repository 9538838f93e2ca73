"""Rounds 25-26 of #43 in the attention family: cancelling combinations in the closed forms (class A)."""

import math

import mpmath
import pytest
import torch

from algorithms.attention import SingleLocationProblem, mean_field_risk

# (d, L, gamma, beta, mu, nu, zeta, rho): zeta = −qρr/(ps) in floats, so p s ζ + q ρ r cancels to ~1e-17
CASES = [
    (50, 1000, 3.418349275813591e-22, 0.15595300294104936, 0.963724726691853, 0.9897784985370425,
     -0.02115248552465516, 0.1356337173747841),
    (50, 3, 7.53661909445495e-26, 0.4312008531608055, 0.16651092223153954, 0.9815355949671799,
     -0.13048642568269003, 0.7836508496496335),
    (1000, 1000, 2.8702430737663113e-23, 2.8767635504059528, 0.11753088767339889, 0.9893023973648964,
     -0.037534007544402795, 0.3193544121669926),
]


def _reference(d, L, gamma, beta, mu, nu, zeta, rho):
    with mpmath.workdps(700):  # p = 1 − q with q ~ e^-300 needs the digits
        g, b = mpmath.mpf(gamma), mpmath.mpf(beta)
        s = mpmath.sqrt((1 - g) * (1 + g))
        alpha = mpmath.log(L - 1) / d
        beta_crit = mpmath.sqrt(2 * alpha)
        psi, r = (alpha / b + b / 2, b) if b < beta_crit else (beta_crit, beta_crit)
        gap = (s * mpmath.mpf(mu) - psi) * b * d
        p, q = 1 / (1 + mpmath.exp(-gap)), 1 / (1 + mpmath.exp(gap))
        return d * (p * s * zeta + q * rho * r) ** 2 + g**2 * (p**2 - 2 * p * nu + 1)


@pytest.mark.parametrize("case", CASES)
def test_mean_field_risk_where_its_bracket_cancels_matches_mpmath(case):
    # the bracket's rounding (~1e-17), squared, was the whole risk: 2e5, 69 and 16 times the value
    d, L, gamma, beta, *overlaps = case
    problem = SingleLocationProblem(d=d, L=L, gamma=gamma, beta=beta)
    want = float(_reference(*case))
    assert mean_field_risk(problem, *overlaps) == pytest.approx(want, rel=1e-12, abs=0)
    tensors = [torch.tensor([v, 0.5 * v], dtype=torch.float64, requires_grad=True) for v in overlaps]
    tensors[2] = torch.tensor([overlaps[2], 0.0], dtype=torch.float64, requires_grad=True)
    risk = mean_field_risk(problem, *tensors)
    assert risk.detach()[0].item() == pytest.approx(want, rel=1e-12, abs=0)
    risk.sum().backward()  # the correction is a constant: the gradient still flows
    assert all(t.grad is not None and bool(torch.isfinite(t.grad).all()) for t in tensors)


def test_mean_field_risk_at_zero_overlaps_needs_no_recompute():
    problem = SingleLocationProblem(d=50, L=21, gamma=0.6)
    value = mean_field_risk(problem, 0.5, 0.0, 0.0, 0.0)
    assert math.isfinite(value) and value == pytest.approx(float(_reference(50, 21, 0.6, 1.0, 0.5, 0.0, 0.0,
                                                                            0.0)), rel=1e-12, abs=0)


def _velocity_reference(problem, mu, nu, eta, zeta):
    with mpmath.workdps(700):
        g, b, d = mpmath.mpf(problem.gamma), mpmath.mpf(problem.beta), problem.d
        s = mpmath.sqrt((1 - g) * (1 + g))
        alpha = mpmath.log(problem.L - 1) / d
        beta_crit = mpmath.sqrt(2 * alpha)
        psi = alpha / b + b / 2 if b < beta_crit else beta_crit
        gap = (s * mpmath.mpf(mu) - psi) * b * d
        p = 1 / (1 + mpmath.exp(-gap))
        mu, nu, eta, zeta = map(mpmath.mpf, (mu, nu, eta, zeta))
        d_mu = 2 * p * (1 - p) * s * b * d * (d * s * s * p * zeta**2 + g**2 * (p - nu))
        d_nu, d_zeta = -2 * g**2 * p, 2 * d * s * s * p * p * zeta
        return [float(v) for v in (-(1 - mu**2) * d_mu, -(1 - nu**2) * d_nu + nu * zeta * d_zeta,
                                   mu * eta * d_mu, nu * zeta * d_nu - (1 - zeta**2) * d_zeta)]


@pytest.mark.parametrize(("d", "L", "gamma", "beta", "mu", "zeta"), [
    (2, 1000, 1e-05, 8.199780559660052, 0.992502002398556, 0.0),
    (2, 1000, 0.9, 5.140070662852062, 0.9849005438524217, 1e-09),
    (20, 21, 0.9, 7.693871064209562, 0.9812648957251375, 1e-09),
    (500, 3, 0.9, 0.5, 0.6, 0.0),
])
def test_overlap_velocity_where_p_equals_nu_matches_mpmath(d, L, gamma, beta, mu, zeta):
    # ν = p(μ) (rounded): p − ν, formed as (1 − ν) − q, lost p's digits below 1/2: the μ velocity was 1e10
    # times its value (and of the wrong sign)
    from algorithms.attention import locate_probability, overlap_velocity

    problem = SingleLocationProblem(d=d, L=L, gamma=gamma, beta=beta)
    nu = locate_probability(problem, mu)
    got = overlap_velocity(problem, [mu, nu, 0.0, zeta])
    want = _velocity_reference(problem, mu, nu, 0.0, zeta)
    for g, w in zip(got, want, strict=True):
        assert g == pytest.approx(w, rel=1e-11, abs=0)
