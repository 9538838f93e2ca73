"""Round 25: acceptance checks scaled per value, not by one global norm (class B of #43's sweep)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.chance import (
    SAAMILP,
    ChanceConstrainedProblem,
    CVaRApproximation,
    LinearStructure,
    ScenarioApproach,
    empirical_violation,
)
from algorithms.core import RetCode

L = 20


def _huge_sample_problem() -> ChanceConstrainedProblem:
    """max x s.t. x <= 0.5 (every sample) and a second component 1e30 in one sample (always satisfied)."""
    h = np.column_stack([np.full(L, 0.5), np.ones(L)])
    h[0, 1] = 1e30
    A = np.zeros((L, 2, 1))
    A[:, 0, 0] = -1.0

    def g(x, h):
        return torch.stack([h[None, :, 0] - x[:, :1], h[None, :, 1] + 0 * x[:, :1]], dim=2)

    return ChanceConstrainedProblem(f=lambda x: -x[:, 0], g=g, h_samples=h, rho=0.05, lower=[0.0],
                                    upper=[1.0],
                                    linear=LinearStructure(cost=np.array([-1.0]), A=A, b=h.copy()))


def _huge_box_problem() -> ChanceConstrainedProblem:
    """max x1 s.t. x1 <= 0.5, with a second coordinate boxed in [0, 1e30] (unused)."""
    h = np.full((L, 1), 0.5)
    A = np.zeros((L, 1, 2))
    A[:, 0, 0] = -1.0
    return ChanceConstrainedProblem(f=lambda x: -x[:, 0], g=lambda x, h: h[None, :, 0] - x[:, :1],
                                    h_samples=h, rho=0.05, lower=[0.0, 0.0], upper=[1.0, 1e30],
                                    linear=LinearStructure(cost=np.array([-1.0, 0.0]), A=A, b=h.copy()))


def test_one_huge_sample_leaves_the_other_values_tolerance():
    # the unit of every value was 2**74 (from the 1e30): x = 1, violating x <= 0.5 in every sample, counted 0
    problem = _huge_sample_problem()
    assert empirical_violation(problem, np.array([[1.0]]))[0] == 1.0
    assert empirical_violation(problem, np.array([[0.5]]))[0] == 0.0


@pytest.mark.parametrize("algorithm", [SAAMILP(), ScenarioApproach()], ids=["saa", "scenario"])
@pytest.mark.parametrize("build", [_huge_sample_problem, _huge_box_problem], ids=["sample", "box"])
def test_row_and_coordinate_scaling_solve_the_lp(algorithm, build):
    # scaled by one unit for all rows (all coordinates) the x <= 0.5 rows fell inside HiGHS's tolerances:
    # Success at x = 1 (violated everywhere) or at x = 0 (not optimal)
    sol = solve(build(), algorithm)
    assert sol.retcode is RetCode.Success
    assert sol.x[0] == pytest.approx(0.5, abs=1e-9)
    assert sol.stats.empirical_violation == 0.0


def test_cvar_never_succeeds_at_a_violating_point():
    # CVaR's LP shares t and s across rows, so g has one unit there: the 1e30 sample hides x <= 0.5 from
    # HiGHS, and the answer check (now per value) reports it instead of Success at x = 1
    sol = solve(_huge_sample_problem(), CVaRApproximation())
    assert sol.retcode is not RetCode.Success or sol.stats.empirical_violation <= 0.05
    assert solve(_huge_box_problem(), CVaRApproximation()).x[0] == pytest.approx(0.5, abs=1e-9)


def test_a_small_value_keeps_the_components_tolerance():
    # g = −1e-7 at one sample beside values of 1: satisfied (the documented −1e-7·u, u = 1), not held to a
    # tolerance of its own tiny size; g of tiny units everywhere keeps its tiny unit
    h = np.array([[-1e-7], [np.nextafter(-1e-7, -1.0)], [0.0], [1.0]])
    problem = ChanceConstrainedProblem(f=lambda x: x[:, 0], g=lambda x, h: 0.0 * x[:, :1] + h[None, :, 0],
                                       h_samples=h, rho=0.25, lower=[0.0], upper=[1.0])
    assert empirical_violation(problem, np.array([[0.5]]))[0] == 0.25
    tiny = ChanceConstrainedProblem(f=lambda x: x[:, 0], g=lambda x, h: 0.0 * x[:, :1] + 1e-9 * h[None, :, 0],
                                    h_samples=h * 1e3, rho=0.25, lower=[0.0], upper=[1.0])
    assert empirical_violation(tiny, np.array([[0.5]]))[0] == 0.5   # −1e-13 is below −1e-7·2**-20


def _scaled_linear_gaussian(c: float) -> ChanceConstrainedProblem:
    from algorithms.chance import linear_gaussian_problem

    base = linear_gaussian_problem(n=3, n_samples=40, rho=0.1, seed=1)
    lin = base.linear
    return ChanceConstrainedProblem(f=base.f, g=lambda x, h: c * base.g(x, h), h_samples=base.h_samples,
                                    rho=base.rho, lower=base.lower, upper=base.upper,
                                    linear=LinearStructure(cost=lin.cost, A=c * lin.A, b=c * lin.b))


@pytest.mark.parametrize("c", [1e-8, 1.0, 1e6, 1e8, 1e20])
def test_g_times_c_answers_alike(c):
    # red25a: g scaled by 1e8 gave SAA-MILP the same x as g's, whose active sample sat 3.7e-14 of g's size
    # below 0: counted violated at a relative 1.5e-15 (5 of 40 > ⌊ρL⌋ = 4), Failure for g's Success
    reference = solve(_scaled_linear_gaussian(1.0), SAAMILP())
    sol = solve(_scaled_linear_gaussian(c), SAAMILP())
    assert reference.retcode is RetCode.Success and sol.retcode is RetCode.Success
    assert sol.stats.empirical_violation == reference.stats.empirical_violation == 0.1
    np.testing.assert_allclose(sol.x, reference.x, rtol=1e-9, atol=1e-12)


def test_restricted_solution_scales_each_coordinate():
    # one unit for all coordinates (2**100, from the box of 1e30) left x1's box 1e-30 wide in SLSQP's units:
    # the moment restriction had no solution (None)
    from algorithms.chance import restricted_solution

    problem = _huge_box_problem()
    x = restricted_solution(problem, problem.h_samples[:5], 0.3)
    assert x is not None
    assert x[0] == pytest.approx(0.5 - 0.3e-6, abs=1e-9)
    x = restricted_solution(problem, problem.h_samples[:5], 0.0, restriction="scenario")
    assert x[0] == pytest.approx(0.5, abs=1e-9)


def test_second_order_guidance_checks_each_hessian_on_its_own_scale():
    # the symmetry test's scale was the batch's largest entry: a row's Hessian of 1e30 let another row's
    # asymmetry of 5 through
    from algorithms.chance import second_order_guidance

    hess = torch.zeros(2, 2, 2, dtype=torch.float64)
    hess[0] = 1e30 * torch.eye(2, dtype=torch.float64)
    hess[1] = torch.tensor([[1.0, 5.0], [0.0, 1.0]], dtype=torch.float64)
    grad = torch.ones(2, 2, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"hess_f must hold symmetric matrices .* at row 1"):
        second_order_guidance(grad, hess, beta=1.0, sigma2=0.1)
    hess[1] = torch.eye(2, dtype=torch.float64)
    assert torch.allclose(second_order_guidance(grad, hess, beta=1.0, sigma2=0.1)[1],
                          torch.full((2,), -1.0 / 1.1, dtype=torch.float64))


def test_known_optimum_checked_relative_to_the_cost():
    # an absolute floor of 1 in the slack 1e-9·(1 + |floor|): a cost in units of 1e-20 took a known_optimum
    # 1e-12 below the box's minimum 0, 1e8 times f's whole range
    h = np.full((L, 1), 0.5)
    A = np.zeros((L, 1, 1))
    A[:, 0, 0] = -1.0

    def build(known_optimum: float) -> ChanceConstrainedProblem:
        return ChanceConstrainedProblem(f=lambda x: 1e-20 * x[:, 0], g=lambda x, h: h[None, :, 0] - x[:, :1],
                                        h_samples=h, rho=0.05, lower=[0.0], upper=[1.0],
                                        known_optimum=known_optimum,
                                        linear=LinearStructure(cost=np.array([1e-20]), A=A, b=h.copy()))

    with pytest.raises(ValueError, match="known_optimum"):
        build(-1e-12)
    assert build(0.0).known_optimum == 0.0
