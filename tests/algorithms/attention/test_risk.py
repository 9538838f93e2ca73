"""Unit tests of the risk: REM quantities, p(μ), the closed form, and the projection Monte Carlo
against a Monte Carlo over full token sequences (the generator and the torch model)."""

import math

import pytest
import torch

from algorithms.attention import (
    SingleLocationProblem,
    SoftmaxAttention,
    locate_probability,
    mean_field_risk,
    monte_carlo_risk,
    sample_batch,
    thermodynamics,
    vectors_with_overlaps,
)

torch.set_num_threads(1)


def test_thermodynamics_continuous_and_r_is_the_derivative():
    alpha = 0.3
    beta_c = math.sqrt(2 * alpha)
    below, above = thermodynamics(alpha, beta_c * (1 - 1e-9)), thermodynamics(alpha, beta_c * (1 + 1e-9))
    assert abs(below["psi"] - above["psi"]) < 1e-8 and below["frozen"] is False and above["frozen"] is True
    for beta in (0.3, 0.6, 1.2):
        phi = lambda b: b * thermodynamics(alpha, b)["psi"]  # noqa: E731
        h = 1e-6
        assert abs((phi(beta + h) - phi(beta - h)) / (2 * h) - thermodynamics(alpha, beta)["r"]) < 1e-6
        assert thermodynamics(alpha, beta)["psi"] >= beta_c - 1e-12  # AM-GM: α/β + β/2 >= √(2α)


def test_locate_probability_is_the_logistic_of_the_energy_gap():
    p = SingleLocationProblem(d=30, L=50, gamma=0.6, beta=0.8)
    psi = thermodynamics(p.alpha, p.beta)["psi"]
    for mu in (-0.5, 0.2, 0.9):
        expected = 1 / (1 + math.exp(-(0.8 * mu - psi) * 0.8 * 30))
        assert abs(locate_probability(p, mu) - expected) < 1e-12
    mus = torch.linspace(-1, 1, 11, dtype=torch.float64)
    assert bool((locate_probability(p, mus).diff() > 0).all())


def test_mean_field_risk_linear_formula_and_gradient():
    p = SingleLocationProblem(d=20, L=10, gamma=0.5, beta=1.0)
    r = thermodynamics(p.alpha, p.beta)["r"]
    mu, nu, zeta, rho = 0.6, 0.3, 0.1, -0.2
    q = locate_probability(p, mu)
    c = math.sqrt(0.75)
    expected = 20 * (q * c * zeta + (1 - q) * rho * r) ** 2 + 0.25 * (q * q - 2 * q * nu + 1)
    assert abs(mean_field_risk(p, mu, nu, zeta, rho) - expected) < 1e-12
    args = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (mu, nu, zeta, rho)]
    grad_nu = torch.autograd.grad(mean_field_risk(p, *args), args[1])[0]
    assert abs(float(grad_nu) + 2 * 0.25 * q) < 1e-12
    assert abs(mean_field_risk(p, 1.0, 1.0) - 0.25 * (1 - locate_probability(p, 1.0)) ** 2) < 1e-15


def _full_token_risk(problem, u, v, n, seed):
    X, _, secret = sample_batch(problem, n, seed=seed)
    model = SoftmaxAttention(problem.d, beta=problem.beta, link=problem.link)
    with torch.no_grad():
        model.u.copy_(u)
        model.v.copy_(v)
        target = {"linear": lambda t: t, "quadratic": lambda t: t * t, "relu": torch.relu}[problem.link](
            X[torch.arange(n), secret] @ problem.oracle()[1])
        errors = (model(X)[:, 0] - target) ** 2
    return float(errors.mean()), float(errors.std()) / math.sqrt(n)


@pytest.mark.parametrize("link", ["linear", "quadratic", "relu"])
def test_projection_monte_carlo_matches_full_tokens(link):
    p = SingleLocationProblem(d=8, L=6, gamma=0.6, beta=0.8, link=link)
    u, v = vectors_with_overlaps(p, mu=0.7, nu=0.5, zeta=0.2, eta=-0.1, rho=0.3)
    projected = monte_carlo_risk(p, u, v, n=40000, seed=1)
    full, full_se = _full_token_risk(p, u, v, 40000, seed=2)
    se = math.hypot(projected["half_width"] / 1.959964, full_se)
    assert abs(projected["risk"] - full) < 4 * se, (projected, full, se)


def test_monte_carlo_interval_and_determinism():
    p = SingleLocationProblem(d=10, L=5, gamma=0.6)
    u, v = vectors_with_overlaps(p, mu=0.5, nu=0.5)
    a = monte_carlo_risk(p, u, v, n=1000, seed=3)
    assert a == monte_carlo_risk(p, u, v, n=1000, seed=3)
    assert abs(a["half_width"] - 1.959964 * a["std"] / math.sqrt(1000)) < 1e-5


def test_top_score_probability_against_sampling():
    from algorithms.attention import top_score_probability

    p = SingleLocationProblem(d=9, L=30, gamma=0.7)
    gen = torch.Generator().manual_seed(0)
    n = 40000
    secret = 0.6 * math.sqrt(1 - 0.49) * 3.0 + 0.7 * torch.randn(n, generator=gen, dtype=torch.float64)
    noise = torch.randn(n, 29, generator=gen, dtype=torch.float64).max(1).values
    frequency = float((secret > noise).double().mean())
    # binomial standard error ≤ 0.0025 at n = 4e4: 0.01 is four of them
    assert abs(top_score_probability(p, 0.6) - frequency) < 0.01
