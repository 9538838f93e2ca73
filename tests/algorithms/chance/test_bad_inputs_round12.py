"""Issue #43 round 12: the working range (README "Working range") in the chance family, by class."""

import pytest
import torch

from algorithms.chance import GaussianScore, VPSchedule


@pytest.mark.parametrize("std, dtype, words", [
    ([1.0, 1e-300], torch.float64, r"^std must have entries >= 1.175e-38 \(the package's working range"),
    ([1.0, 1e-39], torch.float64, r"^std must have entries >= 1.175e-38"),
    ([1e20], torch.float32, r"^std must have std² inside torch.float32's range"),   # var = inf: score 0
    ([1e-30], torch.float32, r"^std must have std² inside torch.float32's range"),  # var = 0: score / 0
    ([1e200], torch.float64, r"^std has an entry of magnitude 1e\+200, outside .* working range"),
])
def test_gaussian_score_std_entries_are_positive_scales_of_the_buffers_dtype(std, dtype, words):
    with pytest.raises(ValueError, match=words):
        GaussianScore([0.0] * len(std), std, VPSchedule(), dtype=dtype)


def test_gaussian_score_std_at_the_working_range_edges_is_valid():
    model = GaussianScore([0.0, 0.0], [1.2e-38, 3e38], VPSchedule())
    assert bool(torch.isfinite(model.var).all()) and bool((model.var > 0).all())
