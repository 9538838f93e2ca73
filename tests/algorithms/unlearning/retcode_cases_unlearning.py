"""Retcode contract cases of the unlearning family (``tests/test_contract.py`` runs them).

Diverging runs: gradient ascent on a forget set θ* does not fit (the forget loss is unbounded
above, NegGrad/NegGradPlus blow up), loss descent with a step far past 2/L (GradientDescent,
Ridge, MinNorm-OG's descent step). Runs cut by the cap: a positive λ only removes a fraction of
the orthogonal component per iteration (MinNorm-OG), a tiny step (GradientDescent, Ridge,
Retrain from scratch). Direct solvers with an unmeetable check: SparseWidthOG on retained data
that no output layer over the frozen features interpolates (Failure).
"""

import torch

from algorithms import RetCode
from algorithms.unlearning import (
    GradientDescent,
    MinNormOG,
    NegGrad,
    NegGradPlus,
    Retrain,
    Ridge,
    SparseWidthOG,
    TwoLayerPerceptron,
    UnlearningProblem,
    linear_task,
    two_layer_task,
)
from tests.retcodes import RetcodeCase


def _shifted_labels() -> UnlearningProblem:
    """θ* no longer fits D: every label moved by 1 (non-zero gradients everywhere)."""
    prob = linear_task(n=5, d=8, n_forget=2, seed=0)
    (Xr, yr), (Xf, yf) = prob.retain, prob.forget
    return UnlearningProblem(prob.model, prob.params, (Xr, yr + 1.0), (Xf, yf + 1.0))


def _unfittable_two_layer() -> UnlearningProblem:
    """Two neurons, five retained points: rank-2 features cannot interpolate random labels."""
    prob = two_layer_task(6, 2, 8, 1, seed=0)
    model = TwoLayerPerceptron(2, 2, seed=0)
    X, y = prob.retain
    theta = torch.cat([model.c.detach(), model.A.detach().reshape(-1)])
    return UnlearningProblem(model, theta, (X, y + 3.0), prob.forget)


def _case(name, build, algorithm, options, expected):
    return RetcodeCase(name, lambda: (build(), algorithm, options), expected)


CASES = [
    _case("neggrad-ascent-diverges", _shifted_labels, NegGrad(lr=0.5), {"maxiters": 5000}, RetCode.Diverged),
    _case("neggradplus-ascent-diverges", _shifted_labels, NegGradPlus(lr=0.5, alpha=5.0), {"maxiters": 5000},
          RetCode.Diverged),
    _case("gd-step-too-long", _shifted_labels, GradientDescent(lr=50.0), {"maxiters": 5000},
          RetCode.Diverged),
    _case("ridge-step-too-long", _shifted_labels, Ridge(lr=50.0, lam=0.1), {"maxiters": 5000},
          RetCode.Diverged),
    _case("minnorm-og-descent-too-long", _shifted_labels, MinNormOG(lambda_schedule=1.0, lr=50.0),
          {"maxiters": 5000}, RetCode.Diverged),
    _case("minnorm-og-partial-projection", lambda: linear_task(5, 8, 2, seed=0),
          MinNormOG(lambda_schedule=9.0), {"maxiters": 3}, RetCode.MaxIters),
    _case("gd-tiny-step", _shifted_labels, GradientDescent(lr=1e-6), {"maxiters": 5}, RetCode.MaxIters),
    _case("ridge-tiny-step", _shifted_labels, Ridge(lr=1e-6), {"maxiters": 5}, RetCode.MaxIters),
    _case("retrain-mlp-cut", lambda: two_layer_task(6, 2, 8, 1, seed=0), Retrain(lr=1e-4), {"maxiters": 3},
          RetCode.MaxIters),
    _case("sparse-width-unfittable", _unfittable_two_layer, SparseWidthOG(), {}, RetCode.Failure),
]
