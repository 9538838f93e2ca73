"""Rounds 25-26 of #43 in the forests family: ratios formed on their own scales (class A)."""

import numpy as np

from algorithms.forests.metrics import column_distortion


def test_one_minus_r2_beside_a_far_larger_reconstruction_is_not_clipped_to_one():
    # one power-of-two scale from max(|x|, |x̂|) squared the column of 1e-200 to 0 (sst = 0) and scored 1
    X = np.array([[1e-200], [2e-200], [3e-200]])
    assert column_distortion(X, np.array([[1e30], [2e-200], [3e-200]]))[0] == np.inf   # 1e460: past float64
    assert column_distortion(X, np.array([[1e-150], [2e-200], [3e-200]]))[0] == 5e99  # mpmath: 5.0…02e99
    assert column_distortion(X, X)[0] == 0.0
