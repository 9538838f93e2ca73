"""Retcode cases for the sparse_relu solvers (tests/test_contract.py): blow-ups and horizons."""

import numpy as np

from algorithms import RetCode
from algorithms.nets.lp_training import LpPathNormTraining
from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem, PatternEnumeration
from algorithms.nets.sparse_interpolation import BruteForceVp, InterpolationProblem, SparsestInterpolantDP
from tests.retcodes import RetcodeCase


def _six_points():
    x = np.linspace(-1.0, 1.0, 6)
    y = np.array([0.3, -1.2, 0.8, 0.1, -0.7, 1.5])
    return InterpolationProblem(x=x, y=y, p=0.5)


def _training_blows_up():
    # Adam moves each parameter by about lr per step: lr = 1e30 (inside the working range) overflows the
    # float32 loss at the first step
    return _six_points(), LpPathNormTraining(width=8, lr=1e30), {}


def _training_horizon():
    # one neuron and a skip term cannot interpolate six generic points: the criterion never holds
    return _six_points(), LpPathNormTraining(width=1), {"maxiters": 200}


def _dp_horizon():
    return _six_points(), SparsestInterpolantDP(), {"maxiters": 1}


def _brute_force_horizon():
    return _six_points(), BruteForceVp(), {"maxiters": 1}


def _enumeration_horizon():
    # labels of both signs need two pieces; one selection tried cannot find the minimizer
    prob = MultivariateInterpolationProblem(X=[[0.0, 1.0], [1.0, 0.0]], y=[1.0, -2.0], p=0.5)
    return prob, PatternEnumeration(), {"maxiters": 1}


CASES = [
    RetcodeCase("lp-training-diverges", _training_blows_up, RetCode.Diverged),
    RetcodeCase("lp-training-horizon", _training_horizon, RetCode.MaxIters),
    RetcodeCase("sparsest-dp-horizon", _dp_horizon, RetCode.MaxIters),
    RetcodeCase("brute-force-vp-horizon", _brute_force_horizon, RetCode.MaxIters),
    RetcodeCase("pattern-enumeration-horizon", _enumeration_horizon, RetCode.MaxIters),
]
