"""The problem types and instances: noise laws, Φ and ∇Φ against independent computations."""

import math

import numpy as np
import pytest

from algorithms.hierarchical import additive_noise, quadratic_bilevel, synthetic_minimax


def test_sphere_noise_has_exact_norm_and_zero_mean():
    rng = np.random.default_rng(0)
    draws = np.array([additive_noise("sphere", 3.0, (4,), rng) for _ in range(4000)])
    np.testing.assert_allclose(np.linalg.norm(draws, axis=1), 3.0, rtol=1e-12)
    # mean of 4000 draws of norm 3 in 4-D: standard error 3/√(4·4000) ≈ 0.024 per coordinate
    assert np.all(np.abs(draws.mean(axis=0)) < 0.1)


@pytest.mark.parametrize("kind", ["gaussian", "student"])
def test_coordinate_noise_has_variance_sigma_squared(kind):
    rng = np.random.default_rng(1)
    draws = additive_noise(kind, 2.0, (200_000,), rng)
    # variance 4; Student-t(3) has infinite fourth moment, so its sample variance is loose: 10 %
    assert abs(draws.var() - 4.0) < 0.4
    assert abs(draws.mean()) < 0.05


def test_zero_noise_is_zero():
    assert not np.any(additive_noise("gaussian", 0.0, (3,), np.random.default_rng(0)))


def test_synthetic_minimax_phi_is_the_inner_max():
    prob = synthetic_minimax(coupling=0.7)
    for x in (-2.0, 0.3, 1.5):
        ys = np.linspace(-5, 5, 200_001)
        f = np.cos(x) + 0.7 * x * ys - 0.5 * ys**2
        assert prob.phi(np.array([x])) == pytest.approx(f.max(), abs=1e-8)
        # central finite difference of Φ
        h = 1e-6
        fd = (prob.phi(np.array([x + h])) - prob.phi(np.array([x - h]))) / (2 * h)
        assert prob.grad_phi(np.array([x]))[0] == pytest.approx(fd, abs=1e-7)


def test_paper_instance_gradient():
    prob = synthetic_minimax()
    x = np.array([0.8])
    assert prob.grad_phi(x)[0] == pytest.approx(0.8 - math.sin(0.8))
    gx, gy = prob.grad(x, np.array([0.8]), None)  # at y* = x: ∇_x f = ∇Φ, ∇_y f = 0
    assert gx[0] == pytest.approx(0.8 - math.sin(0.8)) and gy[0] == pytest.approx(0.0)


def test_oracle_adds_noise_of_the_stated_norm():
    prob = synthetic_minimax(sigma=2.0, noise="sphere")
    x, y = np.array([1.0]), np.array([0.5])
    exact = prob.grad(x, y, None)
    gx, gy = prob.oracle(x, y, np.random.default_rng(0))
    assert abs(gx[0] - exact[0][0]) == pytest.approx(2.0) and abs(gy[0] - exact[1][0]) == pytest.approx(2.0)


def test_quadratic_bilevel_hypergradient_matches_finite_differences():
    prob = quadratic_bilevel(dim_x=3, dim_y=4, seed=2)
    x = np.array([0.3, -1.0, 2.0])
    h = 1e-6
    fd = np.array([(prob.phi(x + h * e) - prob.phi(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(prob.grad_phi(x), fd, atol=1e-6)


def test_quadratic_bilevel_spectrum_and_implicit_formula():
    prob = quadratic_bilevel(dim_x=2, dim_y=5, mu_g=0.5, l_g1=2.0, seed=3)
    x = np.array([1.0, -0.5])
    H = np.column_stack([prob.lower_hvp(x, np.zeros(len(e)), e, None)[1] for e in np.eye(5)])
    cross = np.column_stack([prob.lower_hvp(x, np.zeros(len(e)), e, None)[0] for e in np.eye(5)])
    eig = np.linalg.eigvalsh(H)
    assert eig.min() == pytest.approx(0.5) and eig.max() == pytest.approx(2.0)
    y_star = np.linalg.solve(H, -prob.lower_grad(x, np.zeros(5), None))
    np.testing.assert_allclose(prob.lower_grad(x, y_star, None), 0.0, atol=1e-12)
    fx, fy = prob.upper_grad(x, y_star, None)
    np.testing.assert_allclose(prob.grad_phi(x), fx - cross @ np.linalg.solve(H, fy), atol=1e-12)


def test_dtype_follows_x0():
    prob = synthetic_minimax(dtype=np.float32)
    assert prob.x0.dtype == np.float32 and prob.y0.dtype == np.float32
