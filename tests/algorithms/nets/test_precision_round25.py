"""Round 25: float32 Lanczos at the working range's ends (float64 on the same probes as the reference);
cosines of vectors at very different scales."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.nets.gd_map import stochastic_logabsdet
from algorithms.nets.lp_training import LpPathNormTraining
from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem, PatternEnumeration
from algorithms.nets.neural_collapse import classifier_alignment
from algorithms.nets.sparse_interpolation import CPWL, InterpolationProblem


def _spd(dim: int = 6) -> torch.Tensor:
    B = torch.randn(dim, dim, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    return B @ B.T + dim * torch.eye(dim, dtype=torch.float64)


@pytest.mark.parametrize("scale", [1e-30, 1e-20, 1.0, 1e20, 1e30])
def test_float32_estimate_matches_float64_at_every_scale(scale):
    # float32's vector_norm summed float32 squares: A = 1e20·S had β = inf (0.45 off at a stderr of 0.25),
    # A = 1e-30·S a symmetry scale of 0 (a symmetric A refused as non-symmetric)
    runs = []
    for dtype in (torch.float32, torch.float64):
        A = (_spd() * scale).to(dtype)
        runs.append(stochastic_logabsdet(lambda V, A=A: A @ V, 6, num_probes=16, lanczos_steps=6, seed=0,
                                         dtype=dtype).estimate)
    assert math.isclose(runs[0], runs[1], rel_tol=1e-5, abs_tol=1e-4), runs


def test_float32_symmetry_check_is_not_vacuous_at_1e20():
    N = (torch.triu(torch.ones(4, 4)) * 1e20).to(torch.float32)
    with pytest.raises(ValueError, match="symmetric"):
        stochastic_logabsdet(lambda V: N @ V, 4, num_probes=8, lanczos_steps=4, seed=0, dtype=torch.float32)


@pytest.mark.parametrize("tiny", [1e-200, 1e-160, 1e-30])
def test_classifier_alignment_of_a_tiny_class_mean(tiny):
    # ‖w‖·‖μ_c‖ underflowed to 0 for a mean of 1e-200 beside one of 1: cosine 0 for 1/√2
    means = np.array([[1.0, 0.0], [tiny, tiny]])
    got = classifier_alignment(np.array([[1.0, 0.0], [1.0, 2.0]]), means)
    assert got[0] == 0.0 and math.isclose(got[1], 1 / math.sqrt(2), rel_tol=1e-15)


@pytest.mark.parametrize("big", [1e10, 1e11])
def test_pattern_enumeration_fits_every_label_on_its_own_scale(big):
    # the enumeration's tolerance 1e-9·max|y| (10 beside a label of 1e10) dropped the piece fitting y = −2:
    # Success with a network answering 0 there
    X = np.array([[2.0], [1.0], [0.0]])
    y = np.array([big, 3.0, -2.0])
    sol = solve(MultivariateInterpolationProblem(X=X, y=y, p=0), PatternEnumeration())
    W, v = sol.original["W"], sol.original["v"]
    out = np.maximum(np.hstack([X, np.ones((3, 1))]) @ W.T, 0.0) @ v if v.size else np.zeros(3)
    if sol.retcode is RetCode.Success:
        assert np.allclose(out, y, rtol=1e-6, atol=0.0), out
    else:
        assert sol.retcode is RetCode.Failure


@pytest.mark.parametrize("y", [[1e6, 0.0, 1.0, 0.0], [1e8, 0.0, 1.0, 0.0, 2.0]])
def test_lp_training_success_fits_every_label_on_its_own_scale(y):
    # tol·max|y| = 1 (or 100) excused residuals of 0.67 (1.0) on labels of 1 (0): Success
    x = np.arange(len(y), dtype=float)
    sol = solve(InterpolationProblem(x=x, y=y, p=0.5), LpPathNormTraining(width=8), seed=0)
    residual = np.abs(CPWL.from_vector(sol.x)(x) - np.array(y))
    if sol.retcode is RetCode.Success:
        assert np.all(residual <= 1e-6 * (np.abs(y) + 1e-3 * max(np.abs(y))))
    else:
        assert sol.retcode is RetCode.MaxIters and residual.max() > 0.1
