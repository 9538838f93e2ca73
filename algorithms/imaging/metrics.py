"""Image-quality metrics: PSNR and SSIM (the latter from scikit-image, on a fixed data range).

>>> import numpy as np
>>> x = np.zeros((8, 8)); z = x + 0.1
>>> round(psnr(z, x), 6)
20.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from algorithms._validation import as_float_array, check_positive

__all__ = ["psnr", "ssim"]


def _pair(estimate: Any, reference: Any) -> tuple[np.ndarray, np.ndarray]:
    pair = []
    for name, value in (("estimate", estimate), ("reference", reference)):
        # strings, complex and NaN named; a tensor's meta device and sparse layout too, bfloat16 widened
        array = as_float_array(name, value, dtype=np.float64)
        if array.ndim != 2 or array.size == 0:  # an empty image had PSNR inf (a perfect match) in silence
            raise ValueError(f"{name} must be a non-empty 2-D image, got shape {array.shape}")
        pair.append(array)
    if pair[0].shape != pair[1].shape:
        raise ValueError(f"estimate and reference must have the same shape, got {pair[0].shape} "
                         f"and {pair[1].shape}")
    return pair[0], pair[1]


def _check_range(data_range: Any) -> float:
    # the shared check: inf made every PSNR inf and every SSIM 1; 5e-324 and 1e308 (outside the working
    # range) gave PSNRs of ±6000 dB
    return check_positive("data_range", data_range)


def psnr(estimate: Any, reference: Any, data_range: float = 1.0) -> float:
    """10 log₁₀(data_range² / MSE) in dB (inf when the images are equal: a documented value, not an error).

    ``estimate`` and ``reference`` are finite 2-D images of one shape (arrays or tensors, entries of magnitude
    <= 3.4e38); ``data_range`` a float > 0 in [1.18e-38, 3.4e38].
    """
    estimate, reference = _pair(estimate, reference)
    data_range = _check_range(data_range)
    # in logarithms with the error rescaled by its largest entry: data_range**2 raised OverflowError for
    # data_range = 1e200, and the squared errors overflowed to inf for entries ~1e200
    error = estimate - reference
    peak = float(np.max(np.abs(error))) if error.size else 0.0
    if peak == 0.0:
        return float("inf")
    rmse = peak * math.sqrt(float(np.mean((error / peak) ** 2)))
    return float(20.0 * (math.log10(data_range) - math.log10(rmse)))


def ssim(estimate: Any, reference: Any, data_range: float = 1.0) -> float:
    """Structural similarity (Wang et al. 2004; 7×7 windows), scikit-image's definition.

    ``estimate`` and ``reference`` are finite 2-D images of one shape (arrays or tensors, entries of magnitude
    <= 3.4e38), at least 7×7; ``data_range`` a float > 0 in [1.18e-38, 3.4e38]. Inputs so large that the
    statistics overflow float64 raise a ValueError.

    The same formula as ``skimage.metrics.structural_similarity`` (uniform 7×7 windows, sample covariances,
    K1 = 0.01, K2 = 0.03, the 3-pixel border left out of the mean), computed after subtracting from each
    image its own median: the window (co)variances E[x²] − E[x]² are invariant to that and cancelled
    catastrophically on images with a large offset (SSIM −362 for two near-equal images offset by 1e8, 2.7e-9
    instead of 1.1e-8 for x in [0, 1) against x + 1e8).

    >>> import numpy as np
    >>> image = np.random.default_rng(0).random((16, 16))
    >>> ssim(image, image)
    1.0
    """
    estimate, reference = _pair(estimate, reference)
    if min(estimate.shape[-2:]) < 7:  # skimage's 7×7 window would not fit (its message names win_size)
        raise ValueError(f"estimate and reference must be at least 7×7 for ssim's 7×7 window, got shape "
                         f"{estimate.shape}")
    data_range = _check_range(data_range)
    with np.errstate(all="ignore"):  # an overflow is refused below, by name
        value = _ssim(estimate, reference, data_range)
    if not math.isfinite(value):  # entries ~1e200 overflowed the window variances: NaN in silence
        peak = max(float(np.abs(estimate).max()), float(np.abs(reference).max()))
        raise ValueError(f"ssim overflows float64 for these inputs (max |estimate|, |reference| = "
                         f"{peak:.3g}, data_range = {data_range:g}); rescale estimate, reference "
                         f"and data_range together (SSIM is invariant to that)")
    return value


_SSIM_WINDOW = 7


def _ssim(x: np.ndarray, y: np.ndarray, data_range: float) -> float:
    """skimage's mean SSIM (uniform windows, sample covariance) with a common offset removed first."""
    from scipy.ndimage import uniform_filter

    # each image shifted by its own median: the window (co)variances are invariant to shifting either image,
    # and a common offset (y's median) left x far from it when the images differ by a large offset (SSIM
    # 2.7e-9 for x in [0, 1) against x + 1e8, exact 1.1e-8: E[x²] − E[x]² of x − 1e8 cancelled to noise)
    x_offset, y_offset = float(np.median(x)), float(np.median(y))
    x, y = x - x_offset, y - y_offset  # exact for entries near the offset (Sterbenz)
    ux, uy = uniform_filter(x, size=_SSIM_WINDOW), uniform_filter(y, size=_SSIM_WINDOW)
    cov_norm = _SSIM_WINDOW**2 / (_SSIM_WINDOW**2 - 1)
    vx = cov_norm * (uniform_filter(x * x, size=_SSIM_WINDOW) - ux * ux)
    vy = cov_norm * (uniform_filter(y * y, size=_SSIM_WINDOW) - uy * uy)
    vxy = cov_norm * (uniform_filter(x * y, size=_SSIM_WINDOW) - ux * uy)
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    mean_x, mean_y = ux + x_offset, uy + y_offset  # the windows' own means, for the luminance term
    b1 = mean_x * mean_x + mean_y * mean_y + c1
    # 2μₓμᵧ + C₁ as it stands: its rounding is at most b1's (2|μₓμᵧ| <= μₓ² + μᵧ²), where b1 − (μₓ − μᵧ)² lost
    # the digits of a small μₓ beside a large μᵧ
    a1 = 2 * mean_x * mean_y + c1
    s = (a1 * (2 * vxy + c2)) / (b1 * (vx + vy + c2))
    pad = (_SSIM_WINDOW - 1) // 2
    return float(s[pad:-pad, pad:-pad].mean(dtype=np.float64))
