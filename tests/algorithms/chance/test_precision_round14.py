"""Round 14: valid inputs at the domains' extremes answered right (mpmath / fractions references)."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.chance import (
    SAAMILP,
    ChanceConstrainedProblem,
    GaussianScore,
    LinearStructure,
    VPSchedule,
    empirical_violation,
    guidance_term,
    linear_gaussian_problem,
    min_samples,
    out_of_sample_feasibility,
    portfolio_var_problem,
    scenario_count,
    tweedie_mean,
)

mpmath.mp.dps = 50


def _noise_variance_reference(schedule: VPSchedule, t: float) -> float:
    t = mpmath.mpf(t)
    exponent = -(schedule.beta_min * t + (mpmath.mpf(schedule.beta_max) - schedule.beta_min) * t * t / 2)
    return float(-mpmath.expm1(exponent))


@pytest.mark.parametrize("t", [1.2e-38, 1e-20, 1e-8, 1e-4, 0.5, 1.0])
def test_noise_variance_does_not_cancel(t):
    # 1 - alpha_bar(t) was 0.0 at t = 1e-20 (the variance is 1e-21)
    schedule = VPSchedule(t_min=1.2e-38)
    assert schedule.noise_variance(t) == pytest.approx(_noise_variance_reference(schedule, t), rel=1e-14)
    small = schedule.noise_variance(torch.tensor([t], dtype=torch.float32))
    if t >= 1e-4:   # float32: within float32 rounding (1 - alpha_bar was 1 % off at t = 1e-4)
        assert float(small) == pytest.approx(_noise_variance_reference(schedule, t), rel=1e-6)


def _gaussian_mean_reference(m: float, v: float, schedule: VPSchedule, t: float, x: float) -> float:
    t = mpmath.mpf(t)
    rate = mpmath.mpf(schedule.beta_max) - schedule.beta_min
    ab = mpmath.exp(-(schedule.beta_min * t + rate * t * t / 2))
    return float((v * mpmath.sqrt(ab) * x + (1 - ab) * m) / (ab * v + 1 - ab))


@pytest.mark.parametrize("schedule, std, t", [
    (VPSchedule(t_min=1e-30), 1e-10, 1e-30),           # 1 - alpha_bar rounded to 0: the score 10 % off
    (VPSchedule(beta_min=1000.0, beta_max=2000.0), 1.0, 0.5),   # alpha_bar = 1e-272: answered 0, not 1
    (VPSchedule(beta_min=1000.0, beta_max=2000.0), 1.0, 1.0),   # alpha_bar = 0: answered NaN
    (VPSchedule(), 1.0, 0.5),
])
def test_tweedie_mean_of_gaussian_scores_is_exact(schedule, std, t):
    model = GaussianScore([1.0], [std], schedule)
    x = torch.tensor([[0.5]], dtype=torch.float64)
    want = _gaussian_mean_reference(1.0, std * std, schedule, t, 0.5)
    assert float(tweedie_mean(model, x, t)) == pytest.approx(want, rel=1e-12)


def test_guidance_at_an_underflowed_alpha_bar_is_finite():
    # NaN posterior means were reported as "objective wrote into its input x"
    model = GaussianScore([1.0], [1.0], VPSchedule(beta_min=1000.0, beta_max=2000.0))
    x = torch.tensor([[0.5]], dtype=torch.float64)
    guidance, score = guidance_term(model, lambda z: z[:, 0] ** 2, x, 1.0, beta=1.0)
    assert torch.isfinite(guidance).all() and float(score) == pytest.approx(-0.5)


@pytest.mark.parametrize("rho", [0.05, 0.3, 0.1, 1e-20, 3e-20, 1.2e-38, 2.0**-60 * 3])
def test_min_samples_is_the_exact_ceiling(rho):
    # a float 1/rho past 2**53 was rounded: 1e20 for rho = 1e-20 (the ceiling is 100000000000000005485)
    assert min_samples(rho) == math.ceil(1 / Fraction(rho))


def test_min_samples_reads_a_float_reciprocal_as_its_integer():
    assert (min_samples(1 / 3), min_samples(1 / 7)) == (3, 7)


@pytest.mark.parametrize("rho, n, confidence", [
    (0.1, 2, 1e-3), (1e-20, 3, 0.5), (1.2e-38, 2**63 - 1, 1.2e-38), (0.3, 1, 1 - 1e-16),
    (2.0**-60, 2**53 + 1, 0.999999),
])
def test_scenario_count_is_the_exact_ceiling(rho, n, confidence):
    with mpmath.workdps(120):
        want = int(mpmath.ceil(2 / mpmath.mpf(rho) * (-mpmath.log(mpmath.mpf(confidence)) + n)))
    assert scenario_count(rho, n, confidence) == want


@pytest.mark.parametrize("t", [0.0, 1e-20 * (1 - 1e-15)])
def test_check_time_refuses_times_below_a_tiny_t_min(t):
    # an absolute slack of 1e-12 let t = 0 through when t_min = 1e-20 (red14a)
    with pytest.raises(ValueError, match="t must lie in"):
        VPSchedule(t_min=1e-20).check_time("t", t)


def test_check_time_takes_float32_rounding_of_t_min():
    VPSchedule(t_min=0.45).check_time("t", torch.tensor([0.45], dtype=torch.float32))   # 0.44999998


@pytest.mark.parametrize("std, t_min, want", [
    (1e-10, 1e-12, -1 / (1e-20 + 1e-13)),   # 3e-4 off with 1 - alpha_bar (red14a)
    (1e-30, 1e-20, -1e21),                  # refused as "NaN or inf scores" before
])
def test_gaussian_score_at_tiny_times(std, t_min, want):
    schedule = VPSchedule(t_min=t_min)
    x = torch.tensor([[1.0]], dtype=torch.float64)
    t = mpmath.mpf(t_min)
    noise_var = -mpmath.expm1(-(mpmath.mpf(0.1) * t + (mpmath.mpf(20.0) - mpmath.mpf(0.1)) * t * t / 2))
    exact = float(-1 / ((1 - noise_var) * mpmath.mpf(std) ** 2 + noise_var))
    assert float(GaussianScore([0.0], [std], schedule).score(x, t_min)) == pytest.approx(exact, rel=1e-13)
    assert exact == pytest.approx(want, rel=1e-3)


@pytest.mark.parametrize("call, want", [
    (lambda: scenario_count(0.1, 1, 1 - 1e-16), 21), (lambda: scenario_count(2 / 3, 1, math.exp(-1)), 7),
    (lambda: scenario_count(0.5, 2**53 + 1, 0.5), 36028797018963975),
    (lambda: min_samples(3e-17), 33333333333333333),
])
def test_red14a_counts(call, want):
    assert call() == want


def test_empirical_violation_is_the_count_over_l_correctly_rounded():
    # 1 - 2/3 was 0.33333333333333337, above rho = 1/3 for one violated sample in three
    problem = ChanceConstrainedProblem(
        f=lambda x: x.sum(dim=1), g=lambda x, h: h[:, 0][None, :].expand(x.shape[0], -1) + 0 * x[:, :1],
        h_samples=np.array([[1.0], [1.0], [-1.0]]), rho=1 / 3, lower=np.zeros(1), upper=np.ones(1),
        h_sampler=lambda rng, k: np.where(np.arange(k)[:, None] % 3 == 2, -1.0, 1.0))
    violation = empirical_violation(problem, np.array([[0.5]]))
    assert float(violation[0]) == 1 / 3 and violation[0] <= problem.rho
    fresh = out_of_sample_feasibility(problem, np.array([[0.5]]), n_fresh=3)
    assert float(fresh[0]) == 2 / 3


def _scaled_linear_problem(g_scale: float) -> ChanceConstrainedProblem:
    base = linear_gaussian_problem(n=2, n_samples=60, rho=0.1, seed=0)
    cost, A, b = base.linear.cost, base.linear.A * g_scale, base.linear.b * g_scale
    A_t, b_t, cost_t = torch.tensor(A), torch.tensor(b), torch.tensor(cost)
    return ChanceConstrainedProblem(
        f=lambda x: x.to(torch.float64) @ cost_t,
        g=lambda x, h: torch.einsum("lmn,bn->blm", A_t, x.to(torch.float64)) + b_t[None],
        h_samples=base.h_samples, rho=0.1, lower=base.lower, upper=base.upper,
        linear=LinearStructure(cost, A, b))


@pytest.mark.parametrize("g_scale", [1e30, 1e20, 1e-30])
def test_saa_milp_on_scaled_constraints(g_scale):
    # g ~ 1e30: its rounding (1e14) beat the absolute feasibility tolerance 1e-7, and the exact answer's
    # active samples counted violated: the right x reported Failure
    want = solve(_scaled_linear_problem(1.0), SAAMILP(), seed=0)
    got = solve(_scaled_linear_problem(g_scale), SAAMILP(), seed=0)
    assert want.retcode is RetCode.Success and got.retcode is RetCode.Success
    assert np.allclose(got.x, want.x, rtol=1e-6, atol=1e-9)
    assert got.stats.empirical_violation == want.stats.empirical_violation


@pytest.mark.parametrize("n_assets, var_limit, want", [
    (3, 0.1, -0.07144104448718812), (3, 1e-6, -7.510711306243347e-07), (5, 0.1, -0.07714714865),
])
def test_portfolio_known_optimum_is_the_soc_optimum(n_assets, var_limit, want):
    # red14a's Clarabel references (rho = 0.2): SLSQP on min(soc, budget) stopped 4.7e-4 off (status 8), at
    # var_limit = 1e-6 infeasible by 10 % of the limit (an absolute 1e-7 slack)
    problem = portfolio_var_problem(n_assets=n_assets, rho=0.2, n_samples=200, var_limit=var_limit)
    assert problem.known_optimum == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize("scale", [1e-10, 1e-30, 1.0])
def test_linear_data_of_another_problem_refused_at_every_scale(scale):
    # below unit scale the tolerance 1e-8·(1 + ...) was absolute: cost = −f's at 1e-10 passed, and the
    # baselines answered Success at the maximizer (red14a)
    p = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    lin = p.linear
    with pytest.raises(ValueError, match=r"linear .*does not reproduce"):
        ChanceConstrainedProblem(
            f=lambda x: scale * p.f(x), g=lambda x, h: scale * p.g(x, h), h_samples=p.h_samples, rho=p.rho,
            lower=p.lower, upper=p.upper,
            linear=LinearStructure(cost=-scale * np.asarray(lin.cost), A=scale * np.asarray(lin.A),
                                   b=scale * np.asarray(lin.b)))
    consistent = LinearStructure(cost=scale * np.asarray(lin.cost), A=scale * np.asarray(lin.A),
                                 b=scale * np.asarray(lin.b))
    ChanceConstrainedProblem(f=lambda x: scale * p.f(x), g=lambda x, h: scale * p.g(x, h),
                             h_samples=p.h_samples, rho=p.rho, lower=p.lower, upper=p.upper,
                             linear=consistent)
