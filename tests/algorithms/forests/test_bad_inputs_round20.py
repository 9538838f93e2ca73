"""Round 20 of #43 in the forests family: a NaN passing a comparison (class G)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from algorithms.forests import ForestPartition, exact_decode, forest_kernel


@pytest.fixture(scope="module")
def decoding_inputs():
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    forest = RandomForestRegressor(n_estimators=2, max_depth=2, random_state=0).fit(X, X.sum(1))
    part = ForestPartition.from_forest(forest)
    return forest_kernel(part, X[:2], X).toarray(), part, part.leaves(X)


@pytest.mark.parametrize("name, low, high", [
    ("low", [np.nan, 0.0], [1.0, 1.0]),     # NaN passed `low > high`; the sampler named lower/upper
    ("high", [0.0, 0.0], [1.0, np.nan]),
    ("low", [-np.inf, 0.0], [1.0, 1.0]),   # NaN solver bounds (lo − low)/span, rows reported solved
    ("high", [0.0, 0.0], [np.inf, 1.0]),
])
def test_exact_decode_refuses_a_non_finite_data_range_by_name(decoding_inputs, name, low, high):
    K, part, leaves = decoding_inputs
    with pytest.raises(ValueError, match=f"{name} must be finite"):
        exact_decode(K, part, leaves, np.array(low), np.array(high), np.zeros(2, bool),
                     np.random.default_rng(0))
