"""Round 25 (#43), class B: symmetry and PSD checks scaled pair by pair and at unit diagonal, not by max |W|
(one weight of 1e20 let an asymmetry of 999, or an eigenvalue of −999, pass elsewhere)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms.submodular import GraphCut, LogDet


def _hidden_asymmetry() -> np.ndarray:
    W = np.zeros((4, 4))
    W[0, 1], W[1, 0] = 1.0, 1000.0  # cut({0}) = 1, cut({1}) = 1000 for the same edge
    W[2, 3] = W[3, 2] = 1e20
    return W


@pytest.mark.parametrize("wrap", [np.asarray, sp.csr_matrix])
def test_graphcut_refuses_an_asymmetry_beside_a_huge_weight(wrap):
    with pytest.raises(ValueError, match=r"weights must be symmetric \(max \|weights - weightsᵀ\| = 999\)"):
        GraphCut(wrap(_hidden_asymmetry()))


def test_logdet_refuses_an_indefinite_block_beside_a_huge_diagonal():
    K = np.array([[1e20, 0.0, 0.0], [0.0, 1.0, 1000.0], [0.0, 1000.0, 1.0]])  # λ = −999 in the 2×2 block
    with pytest.raises(ValueError, match="kernel must be positive semidefinite"):
        LogDet(K)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_graded_gram_kernels_are_still_accepted(dtype):
    # rows at scales 1e10 .. 1e-5: K = B Bᵀ is PSD, its rounding within each pair's Cauchy–Schwarz bound
    rng = np.random.default_rng(0)
    B = (rng.standard_normal((5, 3)) * np.array([1e10, 1.0, 1e-5, 3.0, 1e3])[:, None]).astype(dtype)
    f = LogDet(B @ B.T)
    assert f(frozenset({1, 2})) >= 0.0
    W = np.abs(B @ B.T)
    np.fill_diagonal(W, 0.0)
    assert GraphCut(W)(frozenset({0})) > 0.0
