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


def test_relabel_decoder_is_a_function_of_random_state():
    # the split stumps had no random_state: sklearn's random feature order broke ties between embedding
    # coordinates differently run to run, so one random_state decoded to other rows
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.normal(size=40)  # this data has such ties (drawn in this order)
    levels = ["a", "b", "c", "zz"]
    df = pd.DataFrame({"x": x, "c": pd.Categorical(rng.choice(levels[:3], 40), categories=levels)})
    Z = rng.normal(scale=50, size=(5, 2))
    decoded = []
    for _ in range(3):
        ae = RFAutoencoder(n_components=2, decoder="relabel", n_estimators=5, random_state=0, k=5).fit(df)
        decoded.append(ae.inverse_transform(np.vstack([ae.transform(df)[:5], Z])).to_csv())
    assert decoded[0] == decoded[1] == decoded[2]
