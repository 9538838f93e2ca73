"""Contract cases for the sparse_relu solvers (tests/test_contract.py)."""

import numpy as np

from algorithms.nets.lp_training import LpPathNormTraining
from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem, PatternEnumeration
from algorithms.nets.sparse_interpolation import BruteForceVp, InterpolationProblem, SparsestInterpolantDP


def _problem(dtype):
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0], dtype=dtype)
    y = np.array([0.0, 0.0, 1.0, 3.0, 2.0], dtype=dtype)
    return InterpolationProblem(x=x, y=y, p=0.5)


def make_dp(dtype):
    return _problem(dtype), SparsestInterpolantDP()


def make_brute_force(dtype):
    return _problem(dtype), BruteForceVp()


def make_training(dtype):
    return _problem(dtype), LpPathNormTraining(width=8)


def make_enumeration(dtype):
    X = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=dtype)
    y = np.array([1.0, -2.0], dtype=dtype)
    return MultivariateInterpolationProblem(X=X, y=y, p=0.5), PatternEnumeration()


CASES = [make_dp, make_brute_force, make_training, make_enumeration]
