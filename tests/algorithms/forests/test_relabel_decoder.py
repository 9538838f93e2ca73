"""Split relabelling: the relabelled trees route to leaves of the right tree; majority boxes."""

import numpy as np

from algorithms.forests import RFAutoencoder, majority_box


def test_relabelled_routes_land_in_each_trees_own_leaves():
    X = np.random.default_rng(0).random((60, 2))
    ae = RFAutoencoder(n_components=2, n_estimators=3, decoder="relabel", random_state=0).fit(X)
    leaves = ae.relabeled_.leaves(ae.embedding_)
    assert np.array_equal(ae.partition_.tree_of[leaves], np.tile(np.arange(3), (60, 1)))


def test_majority_box_is_the_intersection_when_it_exists():
    lower = np.array([[[0.0, 0.0], [0.5, 2.0], [0.2, 2.5]]])
    upper = np.array([[[1.0, 1.0], [2.0, 3.0], [0.8, 3.0]]])
    lo, hi = majority_box(lower, upper)
    assert lo[0, 0] == 0.5 and hi[0, 0] == 0.8  # all three overlap on [0.5, 0.8]
    assert lo[0, 1] == 2.5 and hi[0, 1] == 3.0  # two of three overlap on [2.5, 3]
