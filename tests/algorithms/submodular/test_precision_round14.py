"""Round 14: the ready-made set functions answered right (mpmath at 200 digits, float64 sums)."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

from algorithms.submodular import FacilityLocation, LogDet


def _mutual_information(K: np.ndarray, S: set[int]) -> mpmath.mpf:
    def logdet(index: list[int]) -> mpmath.mpf:
        if not index:
            return mpmath.mpf(0)
        return mpmath.log(mpmath.det(mpmath.matrix(
            [[(1 if i == j else 0) + mpmath.mpf(float(K[i, j])) for j in index] for i in index])))
    n = K.shape[0]
    return logdet(sorted(S)) + logdet([j for j in range(n) if j not in S]) - logdet(list(range(n)))


@pytest.mark.parametrize("scale", [1e-30, 1e-10, 1e-4, 1.0, 1e10])
def test_non_monotone_logdet_keeps_its_digits_for_small_kernels(scale):
    # the difference of three log-dets cancelled: 2e-5 relative error at K × 1e-10, 0 for 1e-60 at × 1e-30
    A = np.random.default_rng(0).standard_normal((4, 4))
    K = A @ A.T * scale
    f = LogDet(K, monotone=False)
    with mpmath.workdps(200):
        for r in range(1, 4):
            for S in itertools.combinations(range(4), r):
                ref = _mutual_information(K, set(S))
                assert abs(f(frozenset(S)) - ref) <= 1e-13 * ref


def test_facility_location_sums_float32_similarities_in_float64():
    sim = np.random.default_rng(0).random((100_000, 3)).astype(np.float32)
    assert FacilityLocation(sim)(frozenset({0, 1})) == float(sim.astype(np.float64)[:, :2].max(axis=1).sum())
    huge = np.full((3, 2), 3.4e38, dtype=np.float32)  # 3 customers at float32's top: inf in float32
    assert FacilityLocation(huge)(frozenset({0})) == 3 * float(np.float32(3.4e38))


@pytest.mark.parametrize("diagonal, subset, expected", [
    ([1e30, 1.0], {0, 1}, mpmath.log(1 + mpmath.mpf(1e30)) + mpmath.log(2)),
    ([1e20, 1e-3, 5.0], {0, 1, 2},
     mpmath.log(1 + mpmath.mpf(1e20)) + mpmath.log1p(mpmath.mpf(1e-3)) + mpmath.log(6))])
def test_logdet_of_a_diagonal_kernel_keeps_its_small_exact_eigenvalues(diagonal, subset, expected):
    # the numerical-rank cut-off (|S| eps λ_max) dropped the exact eigenvalue 1 beside 1e30
    assert abs(LogDet(np.diag(diagonal))(frozenset(subset)) - expected) <= 1e-15 * expected
    assert LogDet(np.diag(diagonal), monotone=False)(frozenset({1})) == 0.0   # independent: no information
