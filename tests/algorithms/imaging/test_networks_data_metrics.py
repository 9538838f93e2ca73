"""Unit tests of the networks, the image data, the metrics and the shipped set-ups."""

import numpy as np
import pytest
import torch
from skimage.metrics import peak_signal_noise_ratio

from algorithms.imaging import (
    HELD_OUT_IMAGES,
    TRAIN_IMAGES,
    Blur,
    HighPass,
    NullSpaceNet,
    ResidualDenoiser,
    held_out_images,
    psnr,
    ssim,
    training_patches,
)
from algorithms.imaging import setups as su

torch.set_num_threads(1)


def test_null_space_net_output_in_range_of_s():
    H, S = Blur((8, 8), 1.0), HighPass((8, 8), 1.0)
    G = NullSpaceNet(H, S, channels=4, depth=3, seed=0)
    with torch.no_grad():
        out = G(torch.randn(2, 64))
    assert out.shape == (2, 64) and G.in_features == 64 and G.out_features == 64
    # the output is S applied to an image: S's spectrum is 0 at frequency 0, so the mean is 0
    assert float(out.reshape(2, 8, 8).mean(dim=(1, 2)).abs().max()) < 1e-5
    same = NullSpaceNet(H, S, channels=4, depth=3, seed=0)
    torch.testing.assert_close(same(torch.ones(1, 64)), G(torch.ones(1, 64)))


def test_denoiser_shapes_and_seed():
    D = ResidualDenoiser(channels=4, depth=3, seed=1)
    x = torch.rand(2, 8, 8)
    assert D(x).shape == (2, 8, 8)
    torch.testing.assert_close(ResidualDenoiser(channels=4, depth=3, seed=1)(x), D(x))


def test_training_and_held_out_images_are_disjoint_and_seeded():
    assert not set(TRAIN_IMAGES) & set(HELD_OUT_IMAGES)
    a, b = training_patches(16, 5, seed=2), training_patches(16, 5, seed=2)
    torch.testing.assert_close(a, b)
    assert held_out_images(16, 4).shape == (4, 16, 16)


def test_psnr_and_ssim_against_skimage():
    rng = np.random.default_rng(0)
    x = rng.random((16, 16))
    z = np.clip(x + 0.05 * rng.standard_normal((16, 16)), 0, 1)
    assert psnr(z, x) == pytest.approx(peak_signal_noise_ratio(x, z, data_range=1.0))
    assert 0 < ssim(z, x) < 1 and ssim(x, x) == pytest.approx(1.0)


@pytest.mark.parametrize("name", su.SETUPS)
def test_shipped_setups_load(name):
    setup = su.make_setup(name)
    G = su.load_network(name)
    x = held_out_images(su.SIZE, 1)
    y, std = su.measure(setup, x, seed=0)
    out = G(y.reshape(1, -1).float())
    assert out.shape == (1, setup.projection.out_features) and bool(torch.isfinite(out).all())
    assert float(std[0]) > 0


def test_measure_reaches_the_snr():
    setup = su.make_setup("deblur")
    x = held_out_images(su.SIZE, 4)
    y, _ = su.measure(setup, x, seed=0)
    clean = setup.operator(x)
    snr = 10 * torch.log10((clean**2).sum((1, 2)) / ((y - clean) ** 2).sum((1, 2)))
    assert float((snr - 30).abs().max()) < 1.0
