"""Retcode cases of the two_layer_nc training pairs: a blow-up is ``Diverged``, a horizon ``MaxIters``.

Gradient flow has no diverging case: the exact flow never increases the loss and the
adaptive integrator keeps its trajectory (a failing integrator is ``Failure``); its
horizon case is the ``maxiters`` cap on the record intervals.
"""

from algorithms import RetCode
from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow, TwoLayerTraining
from algorithms.nets.neural_collapse import orthogonally_separable_data
from tests.retcodes import RetcodeCase


def _problem(n_per_class=4, dim=8, width=8, init_scale=1e-3, **kw):
    X, y = orthogonally_separable_data(n_per_class, dim, seed=0)
    return TwoLayerTraining(X=X, y=y, width=width, init_scale=init_scale, **kw)


def _gd_blow_up():
    # lr = 1000 throws θ to ||θ|| ~ 2: the loss rises above its start (1.0095 vs 1.0000002)
    return _problem(), GradientDescentTraining(lr=1e3, t_end=3e3, n_records=3), {"seed": 0}


def _gd_blow_up_multiclass():
    # cross-entropy from ε = 0.1 with lr = 100: the loss goes 1.098 -> 0.648 -> 183
    X, y = orthogonally_separable_data(4, 12, 3, seed=0)
    problem = TwoLayerTraining(X=X, y=y, width=9, loss="cross_entropy", init_scale=0.1)
    return problem, GradientDescentTraining(lr=100.0, t_end=300.0, n_records=3), {"seed": 0}


def _gd_horizon():
    # 100 steps of lr = 0.1 from ε = 1e-3 leave the loss near 1, far above tol = 1e-3
    return _problem(), GradientDescentTraining(lr=0.1, t_end=10.0), {"seed": 0, "tol": 1e-3}


def _flow_horizon():
    return _problem(), GradientFlow(t_end=100.0, n_records=5), {"seed": 0, "maxiters": 2}


CASES = [
    RetcodeCase("gd-training-blowup", _gd_blow_up, RetCode.Diverged),
    RetcodeCase("gd-training-blowup-cross-entropy", _gd_blow_up_multiclass, RetCode.Diverged),
    RetcodeCase("gd-training-horizon", _gd_horizon, RetCode.MaxIters),
    RetcodeCase("gradient-flow-horizon", _flow_horizon, RetCode.MaxIters),
]
