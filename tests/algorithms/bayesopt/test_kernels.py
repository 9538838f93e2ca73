import numpy as np
import pytest
from scipy.special import gamma, kv

from algorithms.bayesopt import Kernel


def _matern_bessel(r, nu):
    """The general Matérn formula with the modified Bessel function (paper, Section 2.1)."""
    s = np.sqrt(2 * nu) * r
    return 2 ** (1 - nu) / gamma(nu) * s**nu * kv(nu, s)


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_closed_forms_match_the_bessel_formula(nu):
    r = np.linspace(0.05, 4.0, 40)
    np.testing.assert_allclose(
        Kernel("matern", nu=nu, lengthscale=1.0).profile(r), _matern_bessel(r, nu), rtol=1e-10
    )


def test_se_is_the_large_nu_limit_shape_and_unit_diagonal():
    X = np.random.default_rng(0).uniform(size=(6, 3))
    for kernel in (Kernel("se", lengthscale=0.3), Kernel("matern", nu=1.5, lengthscale=0.3)):
        K = kernel(X, X)
        np.testing.assert_allclose(np.diag(K), 1.0)
        assert np.all(np.linalg.eigvalsh(K) > 0)
        np.testing.assert_allclose(K, K.T)


def test_ard_lengthscales_scale_each_coordinate():
    kernel = Kernel("se", lengthscale=np.array([1.0, 0.1]))
    x = np.zeros((1, 2))
    assert kernel(x, np.array([[0.1, 0.0]]))[0, 0] > kernel(x, np.array([[0.0, 0.1]]))[0, 0]
    assert kernel.with_params(0.5, 2.0)(x, x)[0, 0] == 2.0
    assert Kernel("se").smoothness == np.inf and Kernel("matern", nu=1.5).smoothness == 1.5
