"""The forest partition and kernels against brute-force loops over trees and pairs."""

import numpy as np
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from algorithms.forests import ForestPartition, cooccurrence_kernel, forest_kernel, sample_in_boxes


def _forest(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    forest = RandomForestRegressor(n_estimators=6, min_samples_leaf=2, random_state=seed)
    return forest.fit(X, X[:, 0]), X, rng


def _brute_kernel(forest, X0, X, normalized):
    nodes0, nodes = forest.apply(X0.astype(np.float32)), forest.apply(X.astype(np.float32))
    K = np.zeros((len(X0), len(X)))
    for b in range(nodes.shape[1]):
        same = nodes0[:, b][:, None] == nodes[:, b][None, :]
        K += same / same.sum(axis=1, keepdims=True) if normalized else same
    return K / nodes.shape[1]


def test_forest_kernel_matches_the_pairwise_definition():
    forest, X, rng = _forest()
    X0 = rng.normal(size=(9, 3))
    np.testing.assert_allclose(forest_kernel(forest, X).toarray(), _brute_kernel(forest, X, X, True),
                               atol=1e-14)
    np.testing.assert_allclose(forest_kernel(forest, X0, X).toarray(), _brute_kernel(forest, X0, X, True),
                               atol=1e-14)
    np.testing.assert_allclose(cooccurrence_kernel(forest, X0, X).toarray(),
                               _brute_kernel(forest, X0, X, False), atol=1e-14)


def test_every_point_lies_in_the_boxes_of_its_leaves():
    forest, X, _ = _forest(1)
    part = ForestPartition.from_forest(forest)
    leaves = part.leaves(X)
    assert leaves.shape == (40, 6) and part.n_leaves == sum(e.get_n_leaves() for e in forest.estimators_)
    assert np.all(part.lower[leaves] < X[:, None, :]) and np.all(X[:, None, :] <= part.upper[leaves])
    assert np.array_equal(part.tree_of[leaves], np.tile(np.arange(6), (40, 1)))


def test_contrast_forest_leaves_without_training_points_get_no_mass():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    synthetic = rng.normal(5.0, 1.0, size=(30, 2))  # far away: leaves holding synthetic rows only
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(np.vstack([X, synthetic]),
                                                                        np.repeat([0, 1], 30))
    K0 = forest_kernel(forest, synthetic, X).toarray()
    rows = K0.sum(axis=1)
    assert np.all((np.abs(rows - 1) < 1e-12) | (rows == 0))


def test_sample_in_boxes_stays_inside_and_hits_integer_codes():
    rng = np.random.default_rng(0)
    lower = np.array([[0.0, -0.5], [2.0, 1.2]])
    upper = np.array([[1.0, 2.0], [3.0, 1.9]])  # the second box holds no integer code
    draws = np.vstack([sample_in_boxes(lower, upper, np.array([False, True]), rng) for _ in range(50)])
    assert np.all((draws[::2, 0] >= 0) & (draws[::2, 0] <= 1))
    assert set(draws[::2, 1]) <= {0.0, 1.0, 2.0} and set(draws[1::2, 1]) == {2.0}
