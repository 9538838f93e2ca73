"""The distortion against scikit-learn's R² and accuracy."""

import numpy as np
from sklearn.metrics import accuracy_score, r2_score

from algorithms.forests import column_distortion, distortion


def test_numeric_columns_are_one_minus_r2_and_categorical_the_error_rate():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=30), rng.integers(0, 3, 30)])
    X_hat = np.column_stack([X[:, 0] + 0.3 * rng.normal(size=30), rng.integers(0, 3, 30)])
    cols = column_distortion(X, X_hat, np.array([False, True]))
    assert np.isclose(cols[0], 1 - r2_score(X[:, 0], X_hat[:, 0]))
    assert np.isclose(cols[1], 1 - accuracy_score(X[:, 1], X_hat[:, 1]))
    assert np.isclose(distortion(X, X_hat, np.array([False, True])), cols.mean())
