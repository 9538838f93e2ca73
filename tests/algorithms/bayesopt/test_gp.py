import numpy as np
from scipy.linalg import cho_factor, cho_solve

from algorithms.bayesopt import GaussianProcess, Kernel, fit_kernel


def _dense_posterior(kernel, X, y, Xq, jitter):
    K = kernel(X, X) + jitter * np.eye(len(X))
    factor = cho_factor(K, lower=True)
    Kq = kernel(X, Xq)
    mu = Kq.T @ cho_solve(factor, y)
    var = 1.0 - np.einsum("ij,ij->j", Kq, cho_solve(factor, Kq))
    return mu, np.sqrt(np.maximum(var, 0))


def test_incremental_posterior_matches_the_dense_formula():
    rng = np.random.default_rng(1)
    kernel = Kernel("matern", nu=2.5, lengthscale=0.3)
    X, Xq = rng.uniform(size=(40, 2)), rng.uniform(size=(25, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1]
    gp = GaussianProcess(kernel, jitter=1e-8)
    for i in range(0, 40, 7):  # batches of several sizes
        gp.add(X[i : i + 7], y[i : i + 7])
    mu, sd = gp.predict(Xq)
    mu_ref, sd_ref = _dense_posterior(kernel, X, y, Xq, 1e-8)
    np.testing.assert_allclose(mu, mu_ref, atol=1e-7)
    np.testing.assert_allclose(sd, sd_ref, atol=1e-6)
    gp_again = GaussianProcess(kernel, jitter=1e-8)
    gp_again.add(X, y)
    np.testing.assert_allclose(gp_again.log_marginal_likelihood(), gp.log_marginal_likelihood(), rtol=1e-10)


def test_noise_free_interpolation_and_stability_over_hundreds_of_points():
    rng = np.random.default_rng(2)
    kernel = Kernel("se", lengthscale=0.3)  # the worst-conditioned kernel
    X = rng.uniform(size=(300, 2))
    X[150:160] = X[:10] + 1e-12  # near-repeats drive the pivot to round-off
    y = np.cos(4 * X[:, 0]) * X[:, 1]
    gp = GaussianProcess(kernel)
    gp.add(X, y)
    L = gp.cholesky_factor
    assert np.all(np.isfinite(L)) and np.all(np.diag(L) > 0)
    mu, sd = gp.predict(X[:50])
    np.testing.assert_allclose(mu, y[:50], atol=1e-4)
    assert np.all(sd < 1e-3)
    mu_far, sd_far = gp.predict(np.array([[5.0, 5.0]]))
    assert abs(mu_far[0]) < 1e-6 and abs(sd_far[0] - 1.0) < 1e-6


def test_prior_before_any_data_and_prior_mean():
    gp = GaussianProcess(Kernel("se").with_params(0.2, 4.0), mean=1.5)
    mu, sd = gp.predict(np.zeros((3, 2)))
    np.testing.assert_allclose(mu, 1.5)
    np.testing.assert_allclose(sd, 2.0)


def test_fit_kernel_recovers_a_lengthscale_of_the_right_size():
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(40, 2))
    y = np.sin(8 * X[:, 0])  # varies along x0 only
    fitted = fit_kernel(X, (y - y.mean()) / y.std(), Kernel("se", lengthscale=0.5), ard=True)
    assert fitted.lengthscale[0] < 0.5 < fitted.lengthscale[1]
