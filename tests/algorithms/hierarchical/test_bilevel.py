"""The Neumann hypergradient, Ada-BiO and stocBiO-style SGD against independent computations."""

import math

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.hierarchical import AdaBiO, StocBiO, neumann_hypergradient, neumann_terms, quadratic_bilevel


def _dense(prob, x):
    d = prob.y0.size
    H = np.column_stack([prob.lower_hvp(x, np.zeros(len(e)), e, None)[1] for e in np.eye(d)])
    cross = np.column_stack([prob.lower_hvp(x, np.zeros(len(e)), e, None)[0] for e in np.eye(d)])
    return H, cross


def test_neumann_terms_formula():
    assert neumann_terms(1000, 0.5, 2.0) == math.ceil(3 * math.log(1000) / (2 * math.log(1 / 0.75)))
    assert neumann_terms(10, 2.0, 2.0) == 1


@pytest.mark.parametrize("N", [0, 1, 2, 7, 40])
def test_neumann_estimate_equals_the_truncated_series(N):
    prob = quadratic_bilevel(dim_x=2, dim_y=3, mu_g=0.5, l_g1=2.0, seed=5)
    x, y = np.array([0.5, -1.0]), np.array([0.2, 0.1, -0.3])
    H, cross = _dense(prob, x)
    fx, fy = prob.upper_grad(x, y, None)
    series = sum((np.linalg.matrix_power(np.eye(3) - H / 2.0, n) for n in range(N)), np.zeros((3, 3))) / 2.0
    est, calls = neumann_hypergradient(prob, x, y, N, np.random.default_rng(0))
    np.testing.assert_allclose(est, fx - cross @ series @ fy, atol=1e-12)
    assert calls == N


def test_neumann_converges_to_the_exact_hypergradient_at_y_star():
    prob = quadratic_bilevel(mu_g=1.0, l_g1=2.0, seed=6)
    x = np.array([1.0, 2.0, -1.0])
    H, _ = _dense(prob, x)
    y_star = np.linalg.solve(H, -prob.lower_grad(x, np.zeros(4), None))
    est, _ = neumann_hypergradient(prob, x, y_star, 60, np.random.default_rng(0))
    np.testing.assert_allclose(est, prob.grad_phi(x), atol=1e-12)


def test_adabio_first_step_is_a_normalized_hypergradient_step():
    prob = quadratic_bilevel(mu_g=1.0, l_g1=2.0, seed=1)
    algo = AdaBiO(lr_x=0.5, lr_y=2.0, neumann_terms=5)
    sol = solve(prob, algo, maxiters=1, tol=1.2e-38)
    g, _ = neumann_hypergradient(prob, prob.x0, prob.y0, 5, np.random.default_rng(0))
    np.testing.assert_allclose(sol.x, prob.x0 - 0.5 * g / np.linalg.norm(g), rtol=1e-12)
    gy = prob.lower_grad(prob.x0, prob.y0, None)
    np.testing.assert_allclose(sol.original["y"], prob.y0 - 2.0 / math.sqrt(1 + gy @ gy) * gy, rtol=1e-12)


@pytest.mark.parametrize("algo", [AdaBiO(), StocBiO(lr_x=0.1, lr_y=0.5, inner_steps=2)])
def test_bilevel_methods_reach_a_stationary_point(algo):
    prob = quadratic_bilevel(mu_g=1.0, l_g1=2.0, seed=0)
    sol = solve(prob, algo, tol=1e-2, maxiters=3000)
    assert sol.retcode is RetCode.Success
    # Φ is a strongly convex quadratic here: compare with its minimizer by a dense solve
    x = np.zeros(3)
    hessian = np.column_stack([prob.grad_phi(e) - prob.grad_phi(x) for e in np.eye(3)])
    x_star = np.linalg.solve(hessian, -prob.grad_phi(x))
    assert np.linalg.norm(sol.x - x_star) <= 1e-2 / np.linalg.eigvalsh(hessian).min() + 1e-9


def test_stocbio_iterates():
    prob = quadratic_bilevel(sigma=0.3, mu_g=1.0, l_g1=2.0, seed=3)
    algo = StocBiO(lr_x=0.1, lr_y=0.4, inner_steps=2, neumann_terms=4)
    sol = solve(prob, algo, maxiters=5, tol=1.2e-38, seed=9)
    rng = np.random.default_rng(9)
    x, y = prob.x0.copy(), prob.y0.copy()
    for _ in range(5):
        for _ in range(2):
            y = y - 0.4 * prob.lower_oracle(x, y, rng)
        g, _ = neumann_hypergradient(prob, x, y, 4, rng)
        x = x - 0.1 * g
    np.testing.assert_allclose(sol.x, x, rtol=1e-12)
    assert sol.stats.hess_calls == 5 * 4
