"""Round 14: forests' checks relative to the data's own scale (red14b findings)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms.forests import dense_diffusion_map


@pytest.mark.parametrize("scale", [1e-10, 1e-30, 1.0, 1e30])
def test_an_asymmetric_kernel_is_refused_at_every_scale(scale):
    # max(1, max|K|) as the scale took a kernel of 1e-10 with K − Kᵀ = 0.8e-10
    K = scale * np.array([[1.0, 1.0, 0.0], [0.2, 1.0, 0.5], [0.0, 0.5, 1.0]])
    with pytest.raises(ValueError, match=r"^K must be symmetric"):
        dense_diffusion_map(K, 1)
