"""Round 14: valid inputs answered right (references in closed form), and fit_kernel's spread refused."""

import numpy as np
import pytest

from algorithms.bayesopt import Kernel, constrained_minimum, fit_kernel


@pytest.mark.parametrize("offset", [0.0, 1e8, 1e12])
def test_constrained_minimum_ignores_a_constant_offset(offset):
    # f + 1e8 stayed at the grid node (0.2525, 0.2525): SLSQP's steps changed nothing it resolved (red14a)
    x, value = constrained_minimum(lambda x: float((x - 0.1) @ (x - 0.1)) + offset,
                                   lambda x: 0.5 - x[0] - x[1], [[0, 1], [0, 1]])
    assert np.allclose(x, [0.25, 0.25], atol=1e-5 if offset < 1e10 else 1e-2)
    assert value - offset == pytest.approx(0.045, abs=1e-6 if offset < 1e10 else 1e-3)


@pytest.mark.parametrize("spread", [1e-3, 1e-6, 0.05])
def test_fit_kernel_refuses_y_of_small_spread(spread):
    # y·1e-6 came back at both edges of the search box (lengthscale 10, outputscale 0.05) as the fit
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 1))
    y = np.sin(6 * X[:, 0])
    y = (y - y.mean()) / y.std()
    with pytest.raises(ValueError, match=r"y must be standardized .*standard deviation"):
        fit_kernel(X, y * spread, Kernel("se", lengthscale=1.0), ard=False)


def test_fit_kernel_takes_constant_y():
    X = np.random.default_rng(0).uniform(size=(5, 1))
    fitted = fit_kernel(X, np.zeros(5), Kernel("se", lengthscale=0.3), ard=False)   # spread 0: not refused
    assert isinstance(fitted, Kernel)
