"""RFAutoencoder: scikit-learn's estimator checks, mixed DataFrames, pipelines, the three decoders.

Every check of ``sklearn.utils.estimator_checks`` runs (none is skipped), with 5 trees to keep
them fast.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from algorithms.forests import RFAutoencoder, distortion, forest_kernel


@parametrize_with_checks([RFAutoencoder(n_estimators=5, k=5)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def _mixed(n=90, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "height": rng.normal(170, 10, n),
        "count": rng.integers(0, 6, n),
        "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
        "city": rng.choice(["Berlin", "London"], n),
        "member": rng.random(n) > 0.5,
        "ratio": rng.random(n).astype(np.float32),
    })


def test_dataframe_round_trip_keeps_columns_and_dtypes():
    df = _mixed()
    ae = RFAutoencoder(n_components=3, n_estimators=20, random_state=0).fit(df)
    out = ae.inverse_transform(ae.transform(df))
    assert list(out.columns) == list(df.columns)
    assert out.dtypes.equals(df.dtypes)
    assert set(out["colour"].cat.categories) == set(df["colour"].cat.categories)
    assert set(out["city"]) <= {"Berlin", "London"}
    # a 3-D code of a 6-column table still recovers most categorical labels
    assert (out["city"] == df["city"]).mean() > 0.7


def test_embedding_is_the_scaled_eigenvectors_of_the_forest_kernel():
    X = load_wine().data
    ae = RFAutoencoder(n_components=3, n_estimators=15, random_state=1).fit(X)
    K = forest_kernel(ae.partition_, X).toarray()  # an independent dense computation
    values = np.linalg.eigvalsh(K)
    np.testing.assert_allclose(ae.eigenvalues_, values[::-1][1:4], atol=1e-9)
    # Nyström on the training rows reproduces the training embedding, and Z = √n V Λ
    np.testing.assert_allclose(ae.transform(X), ae.embedding_, atol=1e-9)
    np.testing.assert_allclose(K @ ae.embedding_, ae.embedding_ * ae.eigenvalues_, atol=1e-8)


@pytest.mark.parametrize("decoder", ["knn", "relabel", "exact"])
def test_every_decoder_returns_finite_rows_of_the_input_shape(decoder):
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    ae = RFAutoencoder(n_components=2, n_estimators=4, decoder=decoder, random_state=0).fit(X)
    out = ae.inverse_transform(ae.transform(X[:5]))
    assert out.shape == (5, 3) and np.all(np.isfinite(out))
    assert np.all(out >= X.min(axis=0) - 1e-12) and np.all(out <= X.max(axis=0) + 1e-12)


def test_knn_reconstruction_beats_the_column_means():
    X = StandardScaler().fit_transform(load_wine().data)
    ae = RFAutoencoder(n_components=4, n_estimators=30, random_state=0).fit(X)
    assert distortion(X, ae.inverse_transform(ae.transform(X))) < 0.6


def test_supervised_forest_and_pipeline_and_clone():
    X = load_wine().data
    y = load_wine().target
    pipe = make_pipeline(StandardScaler(), RFAutoencoder(n_components=2, n_estimators=10, random_state=0))
    Z = pipe.fit(X, y).transform(X)
    assert Z.shape == (len(X), 2)
    twin = clone(pipe).fit(X, y)
    np.testing.assert_array_equal(twin.transform(X), Z)


def _data(n=60, seed=0):
    return np.random.default_rng(seed).normal(size=(n, 4))


def test_feature_names_out_and_pandas_output():
    ae = RFAutoencoder(n_components=3, n_estimators=10, random_state=0).fit(_data())
    assert list(ae.get_feature_names_out()) == ["rfautoencoder0", "rfautoencoder1", "rfautoencoder2"]
    frame = ae.set_output(transform="pandas").transform(_data(5, seed=1))
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(ae.get_feature_names_out())


def test_score_is_minus_the_distortion_and_ranks_held_out_below_training():
    X, X_new = _data(), _data(40, seed=1)
    ae = RFAutoencoder(n_components=2, n_estimators=10, random_state=0).fit(X)
    with pytest.warns(UserWarning, match="coincide with training embeddings"):
        train = ae.inverse_transform(ae.transform(X))
    assert ae.score(X) == pytest.approx(-distortion(X, train))
    assert ae.score(X_new) < ae.score(X) <= 0.0


def test_y_is_warned_about_or_chosen_explicitly():
    X, y = _data(), (_data()[:, 0] > 0).astype(int)
    with pytest.warns(UserWarning, match="supervised"):
        warned = RFAutoencoder(n_estimators=5, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chosen = RFAutoencoder(n_estimators=5, random_state=0, supervised=True).fit(X, y)
        ignored = RFAutoencoder(n_estimators=5, random_state=0, supervised=False).fit(X, y)
        unsupervised = RFAutoencoder(n_estimators=5, random_state=0).fit(X)
    np.testing.assert_array_equal(warned.embedding_, chosen.embedding_)
    np.testing.assert_array_equal(ignored.embedding_, unsupervised.embedding_)


def test_exact_decoder_is_quiet_and_shows_progress(capfd):
    X = _data(30)
    ae = RFAutoencoder(n_components=2, n_estimators=3, random_state=0, decoder="exact", progress=True).fit(X)
    ae.inverse_transform(ae.transform(X[:2]))
    out, err = capfd.readouterr()
    assert "HiGHS" not in out and "exact decoder" in err      # tqdm writes its bar to stderr
