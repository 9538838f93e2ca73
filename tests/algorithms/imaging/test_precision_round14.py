"""Round 14: valid inputs answered right (references: scikit-image's SSIM after an exact common shift)."""

from fractions import Fraction

import numpy as np
import pytest
import torch
from skimage.metrics import structural_similarity

from algorithms.imaging import ssim, total_variation


def _exact_ssim(x: np.ndarray, y: np.ndarray, data_range: float) -> float:
    """skimage's definition in Fractions: the cropped windows lie inside the image (radius 3 = the crop)."""
    c1, c2 = Fraction(0.01 * data_range) ** 2, Fraction(0.03 * data_range) ** 2
    fx = [[Fraction(v) for v in row] for row in x.tolist()]
    fy = [[Fraction(v) for v in row] for row in y.tolist()]
    total, count = Fraction(0), 0
    for i in range(3, x.shape[0] - 3):
        for j in range(3, x.shape[1] - 3):
            wx = [fx[a][b] for a in range(i - 3, i + 4) for b in range(j - 3, j + 4)]
            wy = [fy[a][b] for a in range(i - 3, i + 4) for b in range(j - 3, j + 4)]
            mx, my = sum(wx) / 49, sum(wy) / 49
            vx = sum((v - mx) ** 2 for v in wx) / 48
            vy = sum((v - my) ** 2 for v in wy) / 48
            vxy = sum((u - mx) * (v - my) for u, v in zip(wx, wy, strict=True)) / 48
            total += (2 * mx * my + c1) * (2 * vxy + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2))
            count += 1
    return float(total / count)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e8, 1e9, -1e12])
def test_ssim_against_exact_windows(offset):
    # the window variances E[x²] − E[x]² cancelled: SSIM −362 at offset 1e8, 2.3e4 at 1e9 (red14a)
    rng = np.random.default_rng(0)
    a = rng.random((12, 12))
    x, y = a + offset, a + 0.05 * rng.standard_normal((12, 12)) + offset
    assert ssim(x, y) == pytest.approx(_exact_ssim(x, y, 1.0), rel=1e-9)


def test_ssim_matches_skimage_on_ordinary_images():
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = rng.random((int(rng.integers(7, 30)), int(rng.integers(7, 30)))) * rng.uniform(0.1, 10)
        b = a + rng.standard_normal(a.shape) * rng.uniform(0, 1)
        data_range = float(rng.uniform(0.5, 5))
        assert ssim(a, b, data_range) == pytest.approx(structural_similarity(a, b, data_range=data_range),
                                                       abs=1e-13)


def _exact_tv(x: np.ndarray) -> float:
    import mpmath

    with mpmath.workdps(40):
        h, w = x.shape
        total = mpmath.mpf(0)
        for i in range(h):
            for j in range(w):
                dr = mpmath.mpf(float(x[i + 1, j])) - mpmath.mpf(float(x[i, j])) if i + 1 < h else 0
                dc = mpmath.mpf(float(x[i, j + 1])) - mpmath.mpf(float(x[i, j])) if j + 1 < w else 0
                total += mpmath.sqrt(dr * dr + dc * dc)
        return float(total)


@pytest.mark.parametrize("scale", [1.0, 1e-20, 1e-30, 1.2e-38, 1e30])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_total_variation_at_the_scales_ends(scale, dtype):
    # a float32 image ~1e-30 had its squared differences underflow: TV 0.0
    x = (torch.rand(6, 7, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * scale).to(dtype)
    reference = _exact_tv(x.double().numpy())
    tol = 1e-6 if dtype == torch.float32 else 1e-14
    assert float(total_variation(x)) == pytest.approx(reference, rel=tol, abs=0.0)
    batch = torch.stack([x, x * 0 + 1])  # per image: a unit image beside it does not rescue nor spoil it
    assert float(total_variation(batch)[0]) == pytest.approx(reference, rel=tol, abs=0.0)
