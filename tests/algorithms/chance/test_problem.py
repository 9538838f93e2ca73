"""ChanceConstrainedProblem: violation counts, fresh-sample feasibility against closed forms."""

import numpy as np
import pytest
import scipy.stats
import torch

from algorithms.chance import (
    ChanceConstrainedProblem,
    LinearStructure,
    empirical_violation,
    linear_gaussian_problem,
    min_samples,
    out_of_sample_feasibility,
)
from algorithms.chance.problem import box_minimum


def _toy(rho=0.25):
    h = np.linspace(0.0, 1.0, 21)[:, None]
    return ChanceConstrainedProblem(
        f=lambda x: x.sum(dim=1),
        g=lambda x, h: h[None, :, 0] + x[:, :1] - 1.0,
        h_samples=h,
        rho=rho,
        lower=[0.0, 0.0],
        upper=[1.0, 1.0],
    )


def test_empirical_violation_counts_violated_samples():
    problem = _toy()
    x = np.array([[0.5, 0.0], [1.0, 0.0], [0.0, 0.3]])
    h = problem.h_samples[:, 0]
    expected = [np.mean(h + xi[0] - 1.0 < -1e-7) for xi in x]
    np.testing.assert_allclose(empirical_violation(problem, x), expected)


def test_out_of_sample_feasibility_matches_gaussian_closed_form():
    problem = linear_gaussian_problem(n=3, n_samples=200, rho=0.1, seed=1)
    x = np.array([[0.2, 0.3, 0.1], [0.5, 0.5, 0.5]])
    c_bar = problem.h_sampler(np.random.default_rng(0), 200000).mean(axis=0)  # only to read c̄ back
    d = 3 / 4.0
    exact = scipy.stats.norm.cdf((d - x @ c_bar) / np.linalg.norm(x, axis=1))
    measured = out_of_sample_feasibility(problem, x, seed=3, n_fresh=100000)
    # 100000 fresh draws: sd <= 0.0016; c̄ read back from 2e5 draws adds <= 0.003 / ‖x‖ in the argument
    np.testing.assert_allclose(measured, exact, atol=0.01)


def test_fresh_samples_are_not_the_training_samples():
    problem = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    fresh = problem.h_sampler(np.random.default_rng(0), 100)
    assert not np.allclose(fresh, problem.h_samples)


def test_min_samples_is_ceil_inverse_rho():
    assert [min_samples(r) for r in (0.5, 0.1, 0.05, 0.3)] == [2, 10, 20, 4]


def test_linear_structure_must_reproduce_f_and_g():
    problem = linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0)
    wrong = LinearStructure(cost=2 * problem.linear.cost, A=problem.linear.A, b=problem.linear.b)
    with pytest.raises(ValueError, match="does not reproduce"):
        ChanceConstrainedProblem(
            f=problem.f,
            g=problem.g,
            h_samples=problem.h_samples,
            rho=0.1,
            lower=problem.lower,
            upper=problem.upper,
            linear=wrong,
        )


def test_box_minimum_against_vertex_enumeration():
    rng = np.random.default_rng(0)
    A, b = rng.normal(size=(4, 2, 3)), rng.normal(size=(4, 2))
    lower, upper = -np.ones(3), np.array([1.0, 2.0, 0.5])
    corners = np.array(np.meshgrid(*zip(lower, upper), indexing="ij")).reshape(3, -1).T
    brute = (np.einsum("lmn,kn->lmk", A, corners) + b[..., None]).min(axis=2)
    np.testing.assert_allclose(box_minimum(A, b, lower, upper), brute)


def test_constraints_accept_three_dimensional_g():
    problem = _toy()
    values = problem.constraints(np.zeros((2, 2)), problem.h_samples)
    assert values.shape == (2, 21, 1)
    assert isinstance(problem.f(torch.zeros(1, 2, dtype=torch.float64)), torch.Tensor)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_consistent_lp_data_of_large_magnitude_is_accepted(dtype):
    # the f/g-vs-LP-data probe compares two float routes to the same numbers: its tolerance must grow
    # with their magnitude (|f| ~ 1e4 here; float32 rounds at ~1e-3), or a correct problem is rejected
    L, n = 20, 3
    A = np.random.default_rng(0).uniform(100.0, 200.0, size=(L, 1, n))
    cost = np.full(n, 1e4)
    h = A[:, 0, :].astype(dtype)

    def f(x):
        return x @ torch.as_tensor(cost, dtype=x.dtype)

    def g(x, h):
        return x @ h.T - 50.0

    problem = ChanceConstrainedProblem(
        f=f,
        g=g,
        h_samples=h,
        rho=0.1,
        lower=np.zeros(n, dtype),
        upper=np.ones(n, dtype),
        linear=LinearStructure(cost=cost, A=A, b=np.full((L, 1), -50.0)),
    )
    assert problem.dtype == dtype
