"""Contract cases for the gradient-flow / gradient-descent training pairs of two_layer_nc."""

import numpy as np

from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow, TwoLayerTraining
from algorithms.nets.neural_collapse import orthogonally_separable_data


def _problem(dtype):
    X, y = orthogonally_separable_data(4, 8, n_classes=2, seed=0, dtype=dtype)
    return TwoLayerTraining(X=X, y=y, width=8, init_scale=1e-2)


def make_flow(dtype=np.float64):
    return _problem(dtype), GradientFlow(t_end=20.0, n_records=4, rtol=1e-4)


def make_gd(dtype=np.float64):
    # GD's criterion is the loss reaching tol (default 1e-4): about 3200 steps of lr = 0.5 here
    return _problem(dtype), GradientDescentTraining(lr=0.5, t_end=2000.0, n_records=4)


CASES = [make_flow, make_gd]
