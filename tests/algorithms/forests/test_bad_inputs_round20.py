"""Round 20 of #43 in the forests family: a NaN passing a comparison (class G)."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from algorithms.forests import ForestPartition, RFAutoencoder, exact_decode, forest_kernel


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


def _autoencoder(**kwargs):
    X = np.random.default_rng(0).normal(size=(60, 4))
    return RFAutoencoder(n_components=2, n_estimators=20, random_state=0, k=5, **kwargs).fit(X), X


@pytest.mark.parametrize("name, value", [("n_estimators", 3), ("random_state", 7), ("supervised", False),
                                         ("forest", RandomForestRegressor(n_estimators=3))])
def test_a_parameter_the_fit_was_built_for_set_after_fit_is_refused_by_name(name, value):
    # red20b: n_estimators = 3 after a fit of 20 trees was ignored in silence (transform used the 20 trees)
    ae, X = _autoencoder()
    setattr(ae, name, value)
    with pytest.raises(ValueError, match=f"{name} was changed after fit"):
        ae.transform(X[:2])


def test_a_given_forest_with_a_parameter_set_after_fit_is_refused_by_name():
    ae, X = _autoencoder(forest=RandomForestRegressor(n_estimators=4, random_state=0))
    ae.set_params(forest__max_depth=3)
    with pytest.raises(ValueError, match="forest was changed after fit"):
        ae.inverse_transform(ae.transform(X[:2]))


@pytest.mark.parametrize("name, value", [("n_estimators", 20), ("random_state", 0), ("k", 3),
                                         ("decoder", "relabel")])
def test_the_same_values_or_decoder_settings_set_after_fit_still_work(name, value):
    ae, X = _autoencoder(decoder="relabel") if name == "decoder" else _autoencoder()
    setattr(ae, name, value)
    assert ae.inverse_transform(ae.transform(X[:2])).shape == (2, 4)


def _loaded(ae, **edit):
    out = RFAutoencoder.__new__(RFAutoencoder)
    out.__setstate__({**ae.__getstate__(), **edit})
    return out


@pytest.mark.parametrize("name, bad", [
    ("leaf_weights_", lambda st: np.full_like(st["leaf_weights_"], np.nan)),   # NaN embeddings in silence
    ("leaf_counts_", lambda st: -np.abs(st["leaf_counts_"]) - 1),              # all-zero embeddings
    ("synthetic_", lambda st: np.full_like(st["synthetic_"], np.nan)),         # "X_synthetic contains NaN"
    ("embedding_", lambda st: np.full_like(st["embedding_"], np.inf)),
    ("seed_", lambda st: float("nan")),                                         # numpy's SeedSequence error
    ("bogus", lambda st: 1),                                                    # a public name stored
])
def test_a_loaded_state_is_checked_by_name(name, bad):
    ae, _ = _autoencoder()
    with pytest.raises(ValueError, match=name):
        _loaded(ae, **{name: bad(ae.__getstate__())})


def test_a_pickled_autoencoder_still_loads_and_decodes():
    import pickle

    ae, X = _autoencoder()
    again = pickle.loads(pickle.dumps(ae))
    np.testing.assert_array_equal(again.transform(X[:3]), ae.transform(X[:3]))
    assert pickle.loads(pickle.dumps(RFAutoencoder(k=3))).k == 3


def _records():
    from algorithms.forests import dense_diffusion_map, relabel_forest

    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    part = ForestPartition.from_forest(RandomForestRegressor(n_estimators=2, max_depth=2, random_state=0)
                                       .fit(X, X.sum(1)))
    relabeled = relabel_forest(part, lambda rows: 2 * rows, np.zeros(2), np.ones(2), np.zeros(2, bool), rng)
    decoded = exact_decode(forest_kernel(part, X[:2], X).toarray(), part, part.leaves(X), np.zeros(2),
                           np.ones(2), np.zeros(2, bool), rng)
    return {"partition": (part, "lower"), "relabeled": (relabeled, "threshold"),
            "dmap": (dense_diffusion_map(np.ones((5, 5)) + np.eye(5), 2), "eigenvalues"),
            "decoded": (decoded, "x")}


@pytest.mark.parametrize("kind", ["partition", "relabeled", "dmap", "decoded"])
def test_a_loaded_record_with_nan_is_refused_by_name(kind):
    import copy
    import pickle

    record, field = _records()[kind]
    state = dict(record.__dict__)
    value = state[field]
    state[field] = tuple(np.full_like(v, np.nan) for v in value) if isinstance(value, tuple) else \
        np.full_like(value, np.nan, dtype=float)
    loaded = object.__new__(type(record))
    with pytest.raises(ValueError, match=field):   # a NaN state was used as loaded
        loaded.__setstate__(state)
    for again in (pickle.loads(pickle.dumps(record)), copy.deepcopy(record)):   # valid states still load
        assert type(again) is type(record)


@pytest.mark.parametrize("moved", ["lower", "upper"])
def test_a_hand_built_partition_with_boxes_not_its_forests_is_refused(moved):
    # red20b: every finite lower bound moved by 0.5 was accepted: decoders used boxes the trees lack
    X = np.random.default_rng(0).normal(size=(40, 3))
    forest = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, X[:, 0])
    part = ForestPartition.from_forest(forest)
    boxes = {"lower": part.lower, "upper": part.upper}
    shift = -0.5 if moved == "lower" else 0.5   # widened: still lower <= upper, but not the trees' boxes
    boxes[moved] = np.where(np.isfinite(boxes[moved]), boxes[moved] + shift, boxes[moved])
    with pytest.raises(ValueError, match="lower and upper must be the forest's leaf boxes"):
        ForestPartition(forest, 3, boxes["lower"], boxes["upper"], part.tree_of, part.node_to_leaf)
    assert ForestPartition(forest, 3, part.lower, part.upper, part.tree_of, part.node_to_leaf).n_leaves == \
        part.n_leaves


@pytest.mark.parametrize("edit, words", [
    (lambda tree: tree.feature.__setitem__(0, 7), "split feature outside"),        # numpy's IndexError
    (lambda tree: tree.children_left.__setitem__(0, 0), "do not form a tree"),     # sklearn's apply looped
    (lambda tree: tree.threshold.__setitem__(0, np.nan), "non-finite threshold"),  # routed in silence
])
def test_a_forest_whose_tree_arrays_were_edited_is_refused_by_name(edit, words):
    from sklearn.ensemble import RandomForestClassifier

    X = np.random.default_rng(0).normal(size=(40, 3))
    forest = RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X, X[:, 0] > 0)
    edit(forest.estimators_[0].tree_)
    for call in (lambda: forest_kernel(forest, X), lambda: ForestPartition.from_forest(forest)):
        with pytest.raises(ValueError, match=rf"forest\.estimators_\[0\]\.tree_.*{words}"):
            call()
