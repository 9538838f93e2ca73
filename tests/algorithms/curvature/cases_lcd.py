"""Contract cases for every (CurvatureProblem, algorithm) pair of the LCD family."""

import numpy as np

from algorithms.curvature import LBFGS, LCD1, LCD2, LCD3, GradientDescent, Polyak, squared_norm_residual

# a well-conditioned least-squares instance (cond(A) ~ 2): every method reaches tol = 1e-10 fast
_A = np.array([[2.0, 0.3, 0.0], [0.1, 1.5, 0.2], [0.0, 0.4, 1.8], [0.5, 0.0, 0.3],
               [0.2, 0.6, 0.1], [0.3, 0.1, 0.9]])
_B = np.array([1.0, -1.0, 0.5, 2.0, 0.0, -0.5])


def _problem(dtype):
    return squared_norm_residual(_A, _B, x0=np.zeros(3, dtype=dtype))


def _make(algorithm):
    def make(dtype):
        return _problem(dtype), algorithm

    make.__name__ = f"make_{type(algorithm).__name__}"
    return make


CASES = [_make(a) for a in (LCD1(), LCD2(), LCD3(), GradientDescent(), Polyak(), LBFGS())]
