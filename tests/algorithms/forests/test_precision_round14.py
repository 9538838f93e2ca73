"""Round 14: valid inputs answered right (exact Fractions as the reference)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algorithms.forests import column_distortion


def _reference(X: np.ndarray, X_hat: np.ndarray) -> list[Fraction]:
    out = []
    for j in range(X.shape[1]):
        x, h = [Fraction(float(v)) for v in X[:, j]], [Fraction(float(v)) for v in X_hat[:, j]]
        mean = sum(x) / len(x)
        sst = sum((a - mean) ** 2 for a in x)
        sse = sum((a - b) ** 2 for a, b in zip(x, h))
        out.append(sse / sst if sst > 0 else Fraction(int(sse > 0)))
    return out


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1e-20, 1.0, 1e20, 1e27])
@pytest.mark.parametrize("offset", [0.0, 1e3, 1e10])
def test_column_distortion_at_every_scale_and_offset(scale, offset):
    # columns of 1e-170 squared to 0 and scored 0 whatever X_hat was; an offset of 1e10 cost 1e-11
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((50, 3)) + offset) * scale
    X_hat = X + rng.standard_normal((50, 3)) * scale * 0.1
    for got, ref in zip(column_distortion(X, X_hat), _reference(X, X_hat)):
        assert abs(Fraction(float(got)) - ref) <= Fraction(1, 10**13) * ref
