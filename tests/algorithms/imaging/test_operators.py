"""Unit tests of algorithms.imaging.operators: adjoints, shapes, and independent references."""

import numpy as np
import pytest
import torch
from skimage.transform import radon

from algorithms.imaging import operators as ops

torch.set_num_threads(1)
DT = torch.float64


def _zoo():
    return [ops.gaussian_cs((8, 8), 0.3, seed=0), ops.SubsampledHadamard((8, 8), 0.4, seed=1),
            ops.Blur((8, 8), 1.2), ops.SuperResolution((8, 8), 2, 1.0),
            ops.Radon((8, 8), [0.0, 33.0, 90.0, 140.0]), ops.MaskedFourier(ops.cartesian_mask((8, 8), 2,
                seed=0)),
            ops.HighPass((8, 8), 1.0)]


@pytest.mark.parametrize("H", _zoo(), ids=lambda H: type(H).__name__)
def test_adjoint_identity_and_matrix(H):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, *H.image_shape, generator=g, dtype=DT)
    y = torch.randn(3, *H.measurement_shape, generator=g, dtype=DT)
    assert torch.isclose((H(x) * y).sum(), (x * H.adjoint(y)).sum(), rtol=1e-12, atol=1e-12)
    A = H.matrix()
    assert A.shape == (H.out_features, H.in_features)
    torch.testing.assert_close(H(x).reshape(3, -1), x.reshape(3, -1) @ A.T)
    torch.testing.assert_close(H.adjoint(y).reshape(3, -1), y.reshape(3, -1) @ A)
    exact = float(torch.linalg.matrix_norm(A, ord=2))
    assert 0.99 * exact <= H.norm() <= exact * (1 + 1e-9)  # power iteration: a lower estimate


def test_batch_shapes_and_float32():
    H = ops.Blur((8, 8), 1.0)
    x = torch.rand(2, 5, 8, 8)
    assert H(x).shape == (2, 5, 8, 8) and H(x).dtype == torch.float32
    assert H(x[0, 0]).shape == (8, 8)


def test_radon_matches_skimage():
    image = np.zeros((32, 32))
    image[6:14, 12:25] = 1.0
    image[20:26, 5:9] = 2.0
    angles = np.arange(0.0, 180.0, 15.0)
    ours = ops.Radon((32, 32), angles)(torch.from_numpy(image)).numpy()
    reference = radon(image, theta=angles, circle=True).T
    np.testing.assert_allclose(ours, reference, atol=1e-9)


def test_blur_is_convolution_with_normalised_gaussian():
    H = ops.Blur((16, 16), 1.5)
    impulse = torch.zeros(16, 16, dtype=DT)
    impulse[0, 0] = 1.0
    kernel = H(impulse)
    assert float(kernel.sum()) == pytest.approx(1.0)
    d = np.minimum(np.arange(16), 16 - np.arange(16))
    expected = np.exp(-(d[:, None] ** 2 + d[None, :] ** 2) / (2 * 1.5**2))
    np.testing.assert_allclose(kernel.numpy(), expected / expected.sum(), atol=1e-12)


def test_superresolution_is_blur_then_decimation():
    H = ops.SuperResolution((8, 8), 2, 1.0)
    x = torch.randn(8, 8, dtype=DT)
    torch.testing.assert_close(H(x), ops.Blur((8, 8), 1.0)(x)[::2, ::2])


def test_hadamard_rows_are_orthonormal():
    H = ops.SubsampledHadamard((4, 8), 1.0, seed=3)
    A = H.matrix()
    torch.testing.assert_close(A @ A.T, torch.eye(32, dtype=DT))
    assert set(np.unique(np.abs(A.numpy()).round(12))) == {round(1 / np.sqrt(32), 12)}


def test_masked_fourier_against_numpy_fft():
    mask = ops.cartesian_mask((8, 8), 2, seed=1)
    H = ops.MaskedFourier(mask)
    x = torch.randn(8, 8, dtype=DT)
    reference = np.fft.fft2(x.numpy(), norm="ortho")[mask.numpy()]
    np.testing.assert_allclose(H(x)[0].numpy(), reference.real, atol=1e-12)
    np.testing.assert_allclose(H(x)[1].numpy(), reference.imag, atol=1e-12)
    assert H.conjugate_symmetric


def test_cartesian_mask_rows_and_acceleration():
    mask = ops.cartesian_mask((32, 32), 4, seed=0)
    rows = mask.all(dim=1)
    assert bool((mask.any(dim=1) == rows).all())  # whole lines
    assert 8 <= int(rows.sum()) <= 9 and bool(rows[0])


def test_gaussian_cs_statistics():
    H = ops.gaussian_cs((16, 16), 0.5, seed=0)
    assert H.measurement_shape == (128,)
    assert float(H.weight.var()) == pytest.approx(1 / 256, rel=0.05)


def test_highpass_plus_blur_is_identity():
    x = torch.randn(8, 8, dtype=DT)
    torch.testing.assert_close(ops.HighPass((8, 8), 1.0)(x) + ops.Blur((8, 8), 1.0)(x), x)


@pytest.mark.parametrize("c", [1.0, 1e-170, 1e37, 1e-290])  # round 12: 1e160 is outside the working range
def test_norm_is_scale_free(c):
    # power iteration on HᵀH squared ‖H‖ twice and returned 0.0 (or nan) far from 1
    H = ops.MatrixOperator(2.5 * c * torch.eye(16, dtype=DT), (4, 4))
    for iterations in (1, 2, 50):
        assert H.norm(iterations=iterations) == pytest.approx(2.5 * c, rel=1e-12)
    A = ops.gaussian_cs((4, 4), 0.5, seed=0).matrix()
    assert ops.MatrixOperator(c * A, (4, 4)).norm() == pytest.approx(c * ops.MatrixOperator(A, (4, 4)).norm(),
                                                                     rel=1e-12)
    assert ops.MatrixOperator(torch.zeros(3, 16, dtype=DT), (4, 4)).norm() == 0.0
