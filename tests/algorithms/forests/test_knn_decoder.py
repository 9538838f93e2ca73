"""The k-NN decoder against a hand computation."""

import numpy as np

from algorithms.forests import knn_decode, synthetic_training_set


def test_inverse_distance_weights_and_weighted_vote():
    Z = np.array([[0.0], [1.0], [3.0], [10.0]])
    Xs = np.array([[0.0, 0.0], [4.0, 1.0], [8.0, 1.0], [100.0, 0.0]])
    out = knn_decode(np.array([[0.5], [1.0]]), Z, Xs, k=3, categorical=np.array([False, True]),
                     rng=np.random.default_rng(0))
    w = np.array([1 / 0.5, 1 / 0.5, 1 / 2.5])
    assert np.isclose(out[0, 0], (w @ Xs[:3, 0]) / w.sum())
    assert out[0, 1] == 1.0  # weight 2 + 0.4 for label 1 against 2 for label 0
    assert out[1].tolist() == [4.0, 1.0]  # a neighbour at distance 0 takes all the weight


def test_synthetic_rows_lie_in_the_leaf_intersections():
    leaves = np.array([[0, 2], [1, 2]])
    lower = np.array([[0.0], [1.0], [0.5]])
    upper = np.array([[1.0], [2.0], [1.5]])
    draws = synthetic_training_set(leaves, lower, upper, np.array([False]), np.random.default_rng(0))
    assert 0.5 <= draws[0, 0] <= 1.0 and 1.0 <= draws[1, 0] <= 1.5
