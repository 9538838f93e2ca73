"""Round 25 of issue #43 (forests, red25b): an RFAutoencoder whose refit raised was left half-refitted."""

import numpy as np
import pandas as pd
import pytest

from algorithms.forests import RFAutoencoder


def _frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    cat = pd.Categorical(rng.choice(["x", "y", "z"], size=n), categories=["x", "y", "z"])
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "cat": cat})


def _fitted() -> RFAutoencoder:
    return RFAutoencoder(n_components=2, n_estimators=10, random_state=0).fit(_frame())


def test_a_refused_refit_keeps_the_previous_fit_and_its_encoding():
    # red25b: the refit (3 rows, too few) had replaced the categories' codes before it was refused; the old
    # forest then embedded x, y, z under z, y, x's codes: another embedding, in silence
    ae = _fitted()
    before = ae.transform(_frame())
    bad = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": [1.0, 0.0, 2.0],
                        "cat": pd.Categorical(["z", "y", "x"], categories=["z", "y", "x"])})
    with pytest.raises(ValueError, match="too few rows"):
        ae.fit(bad)
    np.testing.assert_array_equal(ae.transform(_frame()), before)


def test_a_refused_refit_on_an_array_keeps_the_frame_fit():
    ae = _fitted()
    before = ae.transform(_frame())
    with pytest.raises(ValueError, match="two distinct rows"):
        ae.fit(np.zeros((3, 5)))
    np.testing.assert_array_equal(ae.transform(_frame()), before)
    decoded = ae.inverse_transform(before[:3])
    assert isinstance(decoded, pd.DataFrame) and list(decoded.columns) == ["a", "b", "cat"]


def test_a_refused_first_fit_leaves_the_estimator_unfitted():
    ae = RFAutoencoder(n_components=2, n_estimators=10, random_state=0)
    with pytest.raises(ValueError, match="too few rows"):
        ae.fit(_frame(3))
    assert not hasattr(ae, "feature_names_in_") and not hasattr(ae, "n_features_in_")
    np.testing.assert_array_equal(ae.fit(_frame()).transform(_frame()), _fitted().transform(_frame()))


def test_knn_decode_stays_within_its_neighbours_range():
    # red25b: the weighted mean of rows all >= 2**63 came out below 2**63 (weights summing to 1 - 1e-16): a
    # uint64 column decoded to 2**63 - 4096, under every training value
    from algorithms.forests.knn_decoder import knn_decode

    rng = np.random.default_rng(0)
    for _ in range(20):
        Z_train = rng.normal(size=(10, 2))
        synthetic = np.full((10, 1), 2.0**63)
        synthetic[::2] = 2.0**64
        decoded = knn_decode(rng.normal(size=(5, 2)), Z_train, synthetic, k=3, categorical=[False],
                             rng=np.random.default_rng(1))
        assert decoded.min() >= 2.0**63 and decoded.max() <= 2.0**64


@pytest.mark.parametrize("supervised", [True, None])
def test_a_supervised_fit_with_an_unsupervised_forest_is_refused(supervised):
    # red25b: RandomTreesEmbedding ignores y at fit: supervised=True fitted the unsupervised forest in silence
    from sklearn.ensemble import RandomTreesEmbedding

    X = np.random.default_rng(0).normal(size=(60, 3))
    ae = RFAutoencoder(forest=RandomTreesEmbedding(n_estimators=5, random_state=0), supervised=supervised,
                       random_state=0)
    with pytest.raises(ValueError, match="forest is a RandomTreesEmbedding"):
        ae.fit(X, (X[:, 0] > 0).astype(int))
    assert not hasattr(ae, "dmap_")
    fitted = RFAutoencoder(forest=RandomTreesEmbedding(n_estimators=5, random_state=0), supervised=False,
                           random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    assert fitted.transform(X).shape == (60, 2)
