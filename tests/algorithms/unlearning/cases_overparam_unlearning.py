"""Contract cases for every (UnlearningProblem, algorithm) pair of the unlearning family."""

import numpy as np
import torch

from algorithms.unlearning import (
    DeepLinearOG,
    GradientDescent,
    MinNormOG,
    NegGrad,
    NegGradPlus,
    Retrain,
    Ridge,
    SparseWidthOG,
    UnlearningProblem,
    deep_linear_task,
    linear_task,
    two_layer_task,
)


def _torch_dtype(dtype) -> torch.dtype:
    return torch.float32 if np.dtype(dtype) == np.float32 else torch.float64


def _off_interpolation(dtype) -> UnlearningProblem:
    """A linear task whose θ* is moved off the interpolating set, so loss descent has work to do."""
    prob = linear_task(n=4, d=6, n_forget=1, seed=2, dtype=_torch_dtype(dtype))
    return UnlearningProblem(prob.model, prob.params + 0.1, prob.retain, prob.forget)


def _make(build, algorithm):
    def make(dtype):
        return build(dtype), algorithm

    make.__name__ = f"make_{type(algorithm).__name__}"
    return make


def _linear(dtype):
    return linear_task(n=5, d=9, n_forget=2, seed=1, dtype=_torch_dtype(dtype))


CASES = [
    _make(_linear, MinNormOG()),
    _make(_linear, Retrain()),
    _make(_linear, NegGrad(lr=0.1)),  # θ* interpolates D: the forget gradient vanishes at once
    _make(_linear, NegGradPlus(lr=0.1, alpha=0.5)),
    _make(_off_interpolation, GradientDescent(lr=0.2)),
    _make(_off_interpolation, Ridge(lr=0.2, lam=0.05)),
    _make(lambda dtype: deep_linear_task(4, 7, (3, 2), 1, seed=0, dtype=_torch_dtype(dtype)), DeepLinearOG()),
    _make(lambda dtype: two_layer_task(6, 3, 15, 2, seed=0, dtype=_torch_dtype(dtype)), SparseWidthOG()),
]
