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


def test_a_hand_built_partition_with_wrong_node_maps_is_refused():
    # maps onto 999, onto tree 1's leaf 3, or a leaf onto -1 were taken (scipy index errors later, or silence)
    from sklearn.ensemble import RandomForestRegressor

    from algorithms.forests import ForestPartition

    X = np.arange(8.0).reshape(-1, 1)
    forest = RandomForestRegressor(n_estimators=2, max_depth=1, random_state=0).fit(X, X[:, 0])
    p = ForestPartition.from_forest(forest)
    m0 = p.node_to_leaf[0]
    for wrong in (np.where(m0 >= 0, 999, -1), np.where(m0 >= 0, 3, -1), np.full_like(m0, -1)):
        with pytest.raises(ValueError, match=r"^node_to_leaf\[0\] must send tree 0's leaf nodes"):
            ForestPartition(forest, 1, p.lower, p.upper, p.tree_of, (wrong, p.node_to_leaf[1]))
    ForestPartition(forest, 1, p.lower, p.upper, p.tree_of, p.node_to_leaf)
