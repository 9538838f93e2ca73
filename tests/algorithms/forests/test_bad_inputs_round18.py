"""Round 18: state changed after construction (class A) in the forests family."""

import copy
import pickle

import numpy as np
import pytest

from algorithms.forests import DiffusionMap, RFAutoencoder


def _dmap() -> DiffusionMap:
    return DiffusionMap(np.ones((5, 2)), np.array([1.0, 0.5]), np.ones((5, 2)) / np.sqrt(5), 1, 0.0, True, 5)


@pytest.mark.parametrize("field", ["embedding", "eigenvalues", "eigenvectors"])
@pytest.mark.parametrize("made", ["built", "deepcopy", "pickle"])
def test_diffusion_map_arrays_cannot_be_written(field, made):
    # RFAutoencoder.dmap_.eigenvalues[:] = -1 was accepted: transform ignored it, the exact decoder used it
    dmap = {"built": _dmap, "deepcopy": lambda: copy.deepcopy(_dmap()),
            "pickle": lambda: pickle.loads(pickle.dumps(_dmap()))}[made]()
    with pytest.raises(ValueError, match="read-only"):
        getattr(dmap, field)[...] = -1.0


def test_fitted_autoencoder_dmap_cannot_be_written():
    X = np.random.default_rng(0).normal(size=(30, 3))
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="read-only"):
        ae.dmap_.eigenvalues[:] = np.nan
    assert np.all(ae.dmap_.eigenvalues == ae.eigenvalues_)


@pytest.mark.parametrize("name", ["n_component", "decoderr", "K", "randomstate"])
@pytest.mark.parametrize("fitted", [False, True])
def test_autoencoder_refuses_a_misspelt_attribute(name, fitted):
    # ae.n_component = 3 was stored and ignored: transform kept 2 columns in silence
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0)
    if fitted:
        ae.fit(np.random.default_rng(0).normal(size=(30, 3)))
    with pytest.raises(ValueError, match=f"takes no attribute '{name}'"):
        setattr(ae, name, 3)
    assert name not in vars(ae)


def test_autoencoder_parameters_and_fitted_attributes_still_settable():
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0)
    ae.k = 5
    ae.set_params(decoder="relabel")
    ae.fit(np.random.default_rng(0).normal(size=(30, 3)))
    ae.custom_ = 1  # scikit-learn's fitted-attribute convention
    assert ae.k == 5 and ae.decoder == "relabel"


def _fitted_autoencoder() -> RFAutoencoder:
    return RFAutoencoder(n_components=2, n_estimators=5, random_state=0).fit(
        np.random.default_rng(0).normal(size=(30, 3)))


REPLACED = [("leaf_weights_", np.nan), ("categorical_", np.ones(3, bool)), ("seed_", float("nan")),
            ("embedding_", 0.0), ("synthetic_", 1e30), ("dmap_", None), ("n_features_in_", 5)]


@pytest.mark.parametrize(("name", "value"), REPLACED)
@pytest.mark.parametrize("made", ["fitted", "deepcopy", "pickle"])
def test_autoencoder_fitted_attribute_replaced_is_refused(name, value, made):
    # red18b: m.leaf_weights_ = NaN encoded NaN rows in silence; categorical_ flipped decoded numbers as
    # categories
    ae = _fitted_autoencoder()
    ae = {"fitted": ae, "deepcopy": copy.deepcopy(ae), "pickle": pickle.loads(pickle.dumps(ae))}[made]
    with pytest.raises(ValueError, match=f"{name} is a fitted attribute"):
        setattr(ae, name, value)
    with pytest.raises(ValueError, match=f"{name} is a fitted attribute"):
        delattr(ae, name)


def test_autoencoder_refit_still_sets_fitted_attributes():
    ae = _fitted_autoencoder()
    X = np.random.default_rng(1).normal(size=(30, 3))
    reference = RFAutoencoder(n_components=2, n_estimators=5, random_state=0).fit(X).transform(X)
    assert np.allclose(ae.fit(X).transform(X), reference)


def test_partition_forest_refitted_is_refused():
    # red18b: part.forest.fit(...) gave leaf ids of boxes not holding the points, then numpy's index error
    from sklearn.ensemble import RandomForestRegressor

    from algorithms.forests import ForestPartition, forest_kernel, relabel_forest
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    part = ForestPartition.from_forest(RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0)
                                       .fit(X, X[:, 0]))
    for copied in (copy.deepcopy(part), pickle.loads(pickle.dumps(part))):
        assert np.array_equal(copied.leaves(X), part.leaves(X))
    part.forest.fit(X * 5 + 1, rng.normal(size=30))
    calls = [lambda: part.leaves(X), lambda: forest_kernel(part, X[:5], X),
             lambda: relabel_forest(part, lambda Z: Z[:, :1], X.min(0), X.max(0), np.zeros(2, bool),
                                    np.random.default_rng(0))]
    for call in calls:
        with pytest.raises(ValueError, match=r"ForestPartition\.forest was refitted"):
            call()


@pytest.mark.parametrize("made", ["fitted", "deepcopy", "pickle"])
@pytest.mark.parametrize("edit", ["set", "delete", "update", "clear"])
def test_autoencoder_categories_dict_is_read_only(made, edit):
    # ae.categories_["b"] = pd.Index(["z", "y", "x"]) re-coded column b's rows in silence (next transform)
    import pandas as pd
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=30), "b": pd.Categorical(rng.choice(["x", "y", "z"], 30))})
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0).fit(frame)
    Z = ae.transform(frame)
    ae = {"fitted": ae, "deepcopy": copy.deepcopy(ae), "pickle": pickle.loads(pickle.dumps(ae))}[made]
    edits = {"set": lambda c: c.__setitem__("b", pd.Index(["z", "y", "x"])), "delete": lambda c: c.pop("b"),
             "update": lambda c: c.update(b=pd.Index(["z"])), "clear": lambda c: c.clear()}
    with pytest.raises(ValueError, match="categories_ is a fitted attribute"):
        edits[edit](ae.categories_)
    assert np.allclose(ae.transform(frame), Z)


@pytest.mark.parametrize("field", ["x", "leaves", "solved", "objective"])
@pytest.mark.parametrize("made", ["built", "deepcopy", "pickle"])
def test_exact_decoding_arrays_cannot_be_written(field, made):
    # decoded.x[0] = nan in a solved row was kept: the record's "finite in every solved row" broken in silence
    from algorithms.forests import ExactDecoding
    record = ExactDecoding(np.zeros((2, 3)), np.zeros((2, 4), int), np.ones(2, bool), np.zeros(2))
    record = {"built": record, "deepcopy": copy.deepcopy(record),
              "pickle": pickle.loads(pickle.dumps(record))}[made]
    with pytest.raises(ValueError, match="read-only"):
        getattr(record, field)[0] = 0


def test_exact_decoder_inverse_transform_stays_writable():
    X = np.random.default_rng(0).normal(size=(20, 2))
    ae = RFAutoencoder(n_components=2, n_estimators=3, random_state=0, decoder="exact").fit(X)
    decoded = ae.inverse_transform(ae.transform(X[:2]))
    decoded[0, 0] = 1.0  # the caller's own array


def test_nested_forest_parameter_without_a_forest_is_refused():
    # red18b: set_params(forest__max_depth=3) with forest=None met scikit-learn's AttributeError on None
    from sklearn.ensemble import RandomForestClassifier
    with pytest.raises(ValueError, match="forest is None"):
        RFAutoencoder(n_estimators=5).set_params(forest__max_depth=3)
    ae = RFAutoencoder().set_params(forest=RandomForestClassifier(), forest__max_depth=3)
    assert ae.forest.max_depth == 3


def _frame_fit() -> tuple[RFAutoencoder, object]:
    import pandas as pd

    X = pd.DataFrame({"a": np.random.default_rng(0).normal(size=40), "b": np.arange(40) % 3,
                      "c": list("xyz" * 13 + "x")})
    return RFAutoencoder(n_estimators=5, random_state=0).fit(X), X


@pytest.mark.parametrize("made", ["fitted", "deepcopy", "pickle"])
def test_dtypes_and_feature_names_cannot_be_edited_inside(made):
    # sweep (first wave's report): ae.dtypes_ was the mutable Series kept inside (an edit changed what
    # inverse_transform returned), feature_names_in_ a writeable array naming the decoded columns
    ae, X = _frame_fit()
    ae = {"fitted": ae, "deepcopy": copy.deepcopy(ae), "pickle": pickle.loads(pickle.dumps(ae))}[made]
    before = ae.inverse_transform(ae.transform(X[:3]) + 0.01)
    dtypes = ae.dtypes_
    dtypes.iloc[0] = np.dtype("int64")
    assert ae.dtypes_.iloc[0] == np.float64
    with pytest.raises(ValueError, match="dtypes_ is a fitted attribute"):
        ae.dtypes_ = dtypes
    with pytest.raises(ValueError, match="read-only"):
        ae.feature_names_in_[0] = "zz"
    after = ae.inverse_transform(ae.transform(X[:3]) + 0.01)
    assert list(after.columns) == ["a", "b", "c"] and list(after.dtypes) == list(before.dtypes)


@pytest.mark.parametrize("shape", [(3, 0), (1, 0)])
def test_distortion_of_no_columns_is_refused(shape):
    # an (n, 0) table answered NaN (the mean of nothing) without an error
    from algorithms.forests import distortion

    with pytest.raises(ValueError, match="X must have at least one column"):
        distortion(np.empty(shape), np.empty(shape))


def test_relabel_forest_refuses_an_embedding_without_columns():
    # class D: embed returning (m, 0) met scikit-learn's "Found array with 0 feature(s)" naming
    # DecisionTreeClassifier, not embed
    from sklearn.ensemble import RandomForestRegressor

    from algorithms.forests import ForestPartition, relabel_forest

    X = np.random.default_rng(0).normal(size=(30, 2))
    part = ForestPartition.from_forest(RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0)
                                       .fit(X, X[:, 0]))
    with pytest.raises(ValueError, match=r"embed\(X\) must return finite embeddings .* k >= 1"):
        relabel_forest(part, lambda R: R[:, :0], X.min(0), X.max(0), np.zeros(2, bool),
                       np.random.default_rng(0), n_synthetic=5)


@pytest.mark.parametrize("method", ["transform", "score", "inverse_transform"])
def test_refitted_forest_attribute_is_refused(method):
    # class A: ae.forest_.fit(...) refitted a forest nothing read (the partition held its own copy), so the
    # edit was ignored in silence
    X = np.random.default_rng(0).normal(size=(40, 3))
    ae = RFAutoencoder(n_estimators=5, random_state=0).fit(X)
    Z = ae.transform(X[:2])
    assert ae.forest_ is ae.partition_.forest
    ae.forest_.fit(X * 10, np.arange(40) % 2)
    arg = Z if method == "inverse_transform" else X[:2]
    with pytest.raises(ValueError, match=r"forest_ .* was refitted"):
        getattr(ae, method)(arg)


def test_rfautoencoder_reads_a_tensor_with_requires_grad_as_its_values():
    # class C: X as a float64 tensor with requires_grad (a valid array) met numpy's requires-grad error
    import torch

    X = np.random.default_rng(0).normal(size=(30, 3))
    ae = RFAutoencoder(n_estimators=5, random_state=0).fit(torch.tensor(X, requires_grad=True))
    reference = RFAutoencoder(n_estimators=5, random_state=0).fit(X)
    assert np.allclose(ae.transform(torch.tensor(X[:4], requires_grad=True)), reference.transform(X[:4]))
    assert ae.score(torch.tensor(X[:10], requires_grad=True)) == pytest.approx(reference.score(X[:10]))


@pytest.mark.parametrize("value", [0, 1, 0.0, 1.0, np.int64(0)])
def test_supervised_must_be_a_strict_bool(value):
    # red18c: supervised = 0 compared equal to False, then acted as None (trained on y without the warning)
    X = np.random.default_rng(0).normal(size=(40, 3))
    with pytest.raises(ValueError, match="supervised must be None, True or False"):
        RFAutoencoder(n_estimators=5, supervised=value).fit(X, (X[:, 0] > 0).astype(int))
    ae = RFAutoencoder(n_estimators=5, k=5, random_state=0)
    ae.supervised = value
    with pytest.raises(ValueError, match="supervised must be None, True or False"):
        ae.fit(X)
