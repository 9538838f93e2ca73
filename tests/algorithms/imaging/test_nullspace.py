"""Unit tests of algorithms.imaging.nullspace: S builders and the projector against dense algebra."""

import numpy as np
import pytest
import scipy.linalg
import torch

from algorithms.imaging import nullspace as ns
from algorithms.imaging import operators as ops

torch.set_num_threads(1)
DT = torch.float64


def test_null_space_basis_matches_scipy():
    H = ops.gaussian_cs((6, 6), 0.4, seed=2)
    N = ns.null_space_basis(H)
    reference = scipy.linalg.null_space(H.matrix().numpy())
    assert N.shape == reference.shape
    # same subspace: the projectors agree
    np.testing.assert_allclose((N @ N.T).numpy(), reference @ reference.T, atol=1e-10)


def test_null_space_basis_rank_deficient():
    H = ops.MatrixOperator(torch.tensor([[1.0, 0, 0, 0], [2.0, 0, 0, 0]], dtype=DT), (2, 2))
    assert ns.null_space_basis(H).shape == (4, 3)


def test_qr_null_rows_algorithm_1():
    H = ops.gaussian_cs((6, 6), 0.5, seed=0)
    S = ns.qr_null_rows(H, 7, seed=4)
    W = S.weight
    torch.testing.assert_close(W @ W.T, torch.eye(7, dtype=DT))
    assert float((H.weight @ W.T).abs().max()) < 1e-12
    assert not torch.allclose(W, ns.qr_null_rows(H, 7, seed=5).weight)  # the seed draws U


def test_pca_null_rows_pick_the_largest_null_variance():
    H = ops.gaussian_cs((4, 4), 0.25, seed=0)
    N = ns.null_space_basis(H)
    g = torch.Generator().manual_seed(0)
    direction = N[:, 0]
    images = (torch.randn(200, 1, generator=g, dtype=DT) * 5 * direction
              + 0.01 * torch.randn(200, 16, generator=g, dtype=DT)).reshape(200, 4, 4)
    S = ns.pca_null_rows(H, 1, images)
    assert abs(float(S.weight[0] @ direction)) > 0.999


def test_complements_are_null():
    had = ops.SubsampledHadamard((8, 8), 0.3, seed=0)
    mri = ops.MaskedFourier(ops.cartesian_mask((8, 8), 3, seed=0))
    for H, S in ((had, ns.complement_rows(had)), (mri, ns.complement_frequencies(mri))):
        assert float((H.matrix() @ S.matrix().T).abs().max()) < 1e-12
        stacked = torch.cat([H.matrix(), S.matrix()])
        assert int(torch.linalg.matrix_rank(stacked)) == 64  # together they see everything
    assert ns.complement_rows(had, p=5, seed=1).measurement_shape == (5,)


def test_asymmetric_mask_complement_refused_and_leaks():
    mask = torch.zeros(8, 8, dtype=torch.bool)
    mask[1] = True  # row 1 without its mirror row 7
    H = ops.MaskedFourier(mask)
    with pytest.raises(ValueError, match="conjugate-symmetric"):
        ns.complement_frequencies(H)
    assert ns.null_space_leakage(H, ops.MaskedFourier(~mask)) > 0.1


def test_paper_designs_for_blur_and_ct_leak():
    blur = ops.Blur((16, 16), 1.0)
    ct = ops.Radon((16, 16), np.arange(0.0, 60.0, 5.0))
    assert 0.1 < ns.null_space_leakage(blur, ns.highpass(blur)) < 1.0
    assert ns.null_space_leakage(ct, ns.complement_angles(ct, [90.0, 120.0])) > 0.1


def test_leakage_against_dense_value():
    H = ops.gaussian_cs((4, 4), 0.5, seed=0)
    S = ops.gaussian_cs((4, 4), 0.25, seed=1)
    A, B = H.matrix(), S.matrix()
    expected = torch.linalg.matrix_norm(A @ B.T, ord=2) / (torch.linalg.matrix_norm(A, ord=2)
                                                            * torch.linalg.matrix_norm(B, ord=2))
    assert ns.null_space_leakage(H, S, iterations=200) == pytest.approx(float(expected), rel=1e-6)


def test_projector_is_orthogonal_projection():
    H = ops.gaussian_cs((4, 4), 0.5, seed=0)
    P = ns.NullSpaceProjector(H)
    pinv = torch.linalg.pinv(H.matrix())
    torch.testing.assert_close(P.matrix, torch.eye(16, dtype=DT) - pinv @ H.matrix())
    x = torch.randn(3, 4, 4, dtype=DT)
    torch.testing.assert_close(P(P(x)), P(x))


# round 12: huge scales at the working range's top (3.4e38; a matrix of 1e160 is refused), tiny ones as before
@pytest.mark.parametrize("c, d", [(1e-170, 1e37), (1e-170, 1.0), (1e37, 1e37), (1e37, 1e-250)])
def test_leakage_is_scale_free(c, d):
    # the iteration on S Hᵀ H Sᵀ (and ‖H‖ from HᵀH) underflowed for ‖H‖ below ~1e-77 and answered 0.0
    H = ops.gaussian_cs((4, 4), 0.5, seed=0)
    S = ops.MatrixOperator(torch.randn(3, 16, generator=torch.Generator().manual_seed(1), dtype=DT), (4, 4))
    scaled = ns.null_space_leakage(ops.MatrixOperator(c * H.matrix(), (4, 4)),
                                   ops.MatrixOperator(d * S.matrix(), (4, 4)))
    assert scaled == pytest.approx(ns.null_space_leakage(H, S), abs=1e-12)
    assert scaled == pytest.approx(0.54007889, rel=1e-6)  # the dense ‖HSᵀ‖/(‖H‖‖S‖)


def test_leakage_of_zero_operators_and_exact_complements():
    H = ops.gaussian_cs((4, 4), 0.5, seed=0)
    zero = ops.MatrixOperator(torch.zeros(3, 16, dtype=DT), (4, 4))
    assert ns.null_space_leakage(zero, H) == 0.0 and ns.null_space_leakage(H, zero) == 0.0
    for seed in (0, 1):  # H Sᵀ exactly 0 on an iterate: the exact-zero exit
        had = ops.SubsampledHadamard((4, 4), 0.5, seed=seed)
        assert ns.null_space_leakage(had, ns.complement_rows(had)) <= 1e-12
