"""Round 23 of #43 in the forests family: a loaded RFAutoencoder state consistent as fit leaves it."""

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from algorithms.forests import RFAutoencoder

X = np.random.default_rng(0).normal(size=(40, 4))


@pytest.fixture(scope="module")
def fits():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (RFAutoencoder(n_components=2, n_estimators=10, random_state=0).fit(X),
                RFAutoencoder(n_components=2, n_estimators=10, random_state=1).fit(X))


def _first_to(value, leaves):
    out = np.array(leaves)
    out.flat[0] = value
    return out


EDITS = {
    "_fitted_params_": lambda s, o: (s.pop("_fitted_params_"), s.update(n_components=3, t=5)),
    "eigenvalues_": lambda s, o: s.update(eigenvalues_=-s["eigenvalues_"]),
    "low_/high_": lambda s, o: s.update(low_=s["high_"] + 1),
    "data_lower_/data_upper_": lambda s, o: s.update(data_lower_=s["data_upper_"] + 1),
    "lower_/upper_": lambda s, o: s.update(lower_=s["upper_"] + 1),
    "train_leaves_": lambda s, o: s.update(train_leaves_=_first_to(10**6, s["train_leaves_"])),
    "leaf_weights_": lambda s, o: s.update(leaf_weights_=s["leaf_weights_"] * 2),
    "embedding_": lambda s, o: s.update(embedding_=s["embedding_"] * 5),
    "leaf_counts_": lambda s, o: s.update(leaf_counts_=np.zeros_like(s["leaf_counts_"])),
    "partition_": lambda s, o: s.update(partition_=o.partition_),
    "forest_": lambda s, o: s.update(forest_=o.forest_),
    "dmap_": lambda s, o: s.update(dmap_=None),
    "categorical_": lambda s, o: s.update(categorical_=~s["categorical_"]),
    "foo_": lambda s, o: s.update(foo_=1),
    "n_features_in_": lambda s, o: s.update(n_features_in_=float("nan")),
}
WORDS = {"partition_": "forest_ must be partition_.forest", "dmap_": "dmap_ must be a DiffusionMap"}


@pytest.mark.parametrize("name", list(EDITS))
def test_an_inconsistent_loaded_state_is_refused_naming_the_attribute(fits, name):
    # each was used in silence (another n_components than the embedding's, negated eigenvalues, scaled
    # weights, another fit's partition...): the docstring's "checked when loaded" covered finiteness only
    fitted, other = fits
    state = dict(fitted.__getstate__())
    EDITS[name](state, other)
    new = RFAutoencoder.__new__(RFAutoencoder)
    with pytest.raises(ValueError, match=rf"loaded state: .*({WORDS.get(name, name)})"):
        new.__setstate__(state)


@pytest.mark.parametrize("decoder", ["knn", "relabel"])
def test_round_trips_of_valid_fits_still_load(decoder):
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": pd.Categorical(list("xyz") * 13 + ["x"])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data, kwargs in ((X, {"random_state": np.random.RandomState(3), "t": 2}), (frame, {})):
            fitted = RFAutoencoder(n_components=2, n_estimators=7, decoder=decoder, **kwargs).fit(data)
            for loaded in (pickle.loads(pickle.dumps(fitted)), copy.deepcopy(fitted)):
                np.testing.assert_array_equal(loaded.transform(data), fitted.transform(data))


MIXED = [np.array(["a", 1] * 20, dtype=object), np.array(["a", None] * 20, dtype=object),
         np.array([1.0, None] * 20, dtype=object)]


@pytest.mark.parametrize("y", MIXED)
def test_an_object_y_mixing_kinds_is_refused_naming_y(y):
    # numpy's sort raised "'<' not supported between instances of 'int' and 'str'" (naming nothing), and None
    # labels were taken (red23b)
    from algorithms.forests import AutoencodingProblem

    with pytest.raises(TypeError, match="y must hold targets of one kind"):
        RFAutoencoder(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="y must hold targets of one kind"):
        AutoencodingProblem(X, y=y)


@pytest.mark.parametrize("y", [np.array(["a", "b"] * 20, dtype=object), np.array([1, 2.5] * 20, dtype=object),
                               np.array([True, False] * 20, dtype=object)])
def test_an_object_y_of_one_kind_is_read_as_that_kind(y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = RFAutoencoder(n_components=2, n_estimators=5, random_state=0).fit(X, y)
    assert fitted.transform(X).shape == (40, 2)


def test_rfae_with_seed_none_leaves_numpy_global_generator_alone():
    # scikit-learn's random_state=None drew from numpy's global RandomState: the caller's stream moved and the
    # run was a function of np.random.seed, not of OS entropy (README: solve leaves the global generators)
    from algorithms import solve
    from algorithms.forests import RFAE, AutoencodingProblem

    data = np.random.default_rng(0).normal(size=(30, 3))
    np.random.seed(5)  # noqa: NPY002 (the global generator is what the test watches)
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        solve(AutoencodingProblem(data), RFAE(n_estimators=3), seed=None)
    assert np.array_equal(before, np.random.get_state()[1])  # noqa: NPY002


def test_x_test_past_the_working_range_beside_a_float32_x_is_named_as_such():
    # X_test was cast to X's float32 first and its inf reported as "NaN or inf" (red23b)
    from algorithms.forests import AutoencodingProblem

    data = X.astype(np.float32)
    held = np.zeros((2, 4))
    held[0, 0] = 1e39
    with pytest.raises(ValueError, match=r"X_test has an entry of magnitude 1e\+39, outside the package's"):
        AutoencodingProblem(data, X_test=held)
    held[0, 0] = 3.4e38
    assert AutoencodingProblem(data, X_test=held).X_test.dtype == np.float32


def test_a_complex_dataframe_column_is_refused_naming_it():
    # pandas counts complex as numeric: the column was cast to float, its imaginary part dropped, and score
    # reported a perfect reconstruction (red23b)
    frame = pd.DataFrame({"a": X[:, 0], "cx": X[:, 1] + 1j * X[:, 2]})
    with pytest.raises(ValueError, match="X must be real: Complex data not supported \\(column 'cx'"):
        RFAutoencoder(n_estimators=5, random_state=0).fit(frame)


def test_integer_columns_near_their_dtype_limits_decode_without_wrapping():
    # a uint64 value near 2**64 rounds to the float 2**64, whose cast wrapped to 0 (red23b)
    n = X.shape[0]
    frame = pd.DataFrame({"a": X[:, 0], "u": np.array([2**64 - 1, 2**63 + 5] * (n // 2), dtype=np.uint64),
                          "i": np.array([2**63 - 1, -2**63] * (n // 2))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = RFAutoencoder(n_components=2, n_estimators=10, random_state=0).fit(frame)
        decoded = fitted.inverse_transform(fitted.transform(frame))
    assert decoded["u"].min() >= 2**63 and decoded["u"].max() == 2**64 - 1  # none wrapped to 0
    assert ((decoded["i"] > 0) == (frame["i"] > 0)).all()  # 2**63 - 1 wrapped to -2**63


@pytest.mark.parametrize("field", ["node_to_leaf", "lower", "upper", "tree_of"])
@pytest.mark.parametrize("use", ["leaves", "exact_decode", "relabel_forest"])
def test_a_forest_partition_field_replaced_after_construction_is_refused_naming_it(field, use):
    # object.__setattr__ past the frozen dataclass: leaf ids past n_leaves, NaN or inverted boxes, a tree
    # index past the forest were used by leaves()/relabel_forest, and exact_decode met an IndexError (red23b)
    from sklearn.ensemble import RandomForestRegressor

    from algorithms.forests import ForestPartition
    from algorithms.forests.exact_decoder import exact_decode
    from algorithms.forests.relabel_decoder import relabel_forest

    points = np.arange(16.0).reshape(-1, 2)
    forest = RandomForestRegressor(n_estimators=2, max_depth=2, random_state=0).fit(points, points[:, 0])
    part = ForestPartition.from_forest(forest)
    edits = {"node_to_leaf": tuple(m * 0 + 99 for m in part.node_to_leaf),
             "lower": np.full_like(part.lower, np.nan), "upper": part.lower - 1,
             "tree_of": part.tree_of * 0 + 5}
    bad = copy.copy(part)
    object.__setattr__(bad, field, edits[field])
    low, high, coded = points.min(0), points.max(0), np.zeros(2, bool)
    calls = {"leaves": lambda: bad.leaves(points[:3]),
             "exact_decode": lambda: exact_decode(np.ones((1, 8)) / 8, bad, part.leaves(points), low, high,
                                                  coded, np.random.default_rng(0)),
             "relabel_forest": lambda: relabel_forest(bad, lambda r: r[:, :1] * 1.0, low, high, coded,
                                                      np.random.default_rng(0))}
    with pytest.raises(ValueError, match=rf"ForestPartition\.{field} was changed after construction"):
        calls[use]()
    assert part.leaves(points[:3]).tolist() == pickle.loads(pickle.dumps(part)).leaves(points[:3]).tolist()


@pytest.mark.parametrize("leaves, solved, x, objective", [
    ([[-1, -1]], [True], [[0.5, 1.0]], [1.0]),           # a solved row with the unsolved mark
    ([[0, 1]], [False], [[0.5, 1.0]], [1.0]),            # an unsolved row with a finite answer
    ([[-1, -1]], [False], [[np.nan, 1.0]], [np.nan]),   # partly NaN
])
def test_a_hand_built_exact_decoding_contradicting_its_rules_is_refused(leaves, solved, x, objective):
    # the docstring: leaf ids >= 0 "or -1 in an unsolved row", an unsolved row "is NaN" (red23b)
    from algorithms.forests import ExactDecoding

    with pytest.raises(ValueError, match=r"solved row|unsolved row"):
        ExactDecoding(x=np.array(x), leaves=np.array(leaves), solved=np.array(solved),
                      objective=np.array(objective))
    ExactDecoding(x=np.full((1, 2), np.nan), leaves=np.array([[-1, -1]]), solved=np.array([False]),
                  objective=np.array([np.nan]))


@pytest.mark.parametrize("lower, upper, expected", [
    ([0.0, 1.0, 1.0], [1.0, 2.0, 2.0], (1.0, 2.0)),   # (1, 2] covered twice; the closed count chose (1, 1]
    ([0.0, 0.5, 1.0], [1.0, 1.0, 2.0], (0.5, 1.0)),
    ([0.0, 1.0, 1.5], [2.0, 3.0, 1.8], (1.5, 1.8)),   # the docstring's example, unchanged
])
def test_majority_box_counts_half_open_intervals(lower, upper, expected):
    from algorithms.forests import majority_box

    lo, hi = majority_box(np.array(lower)[None, :, None], np.array(upper)[None, :, None])
    assert (float(lo[0, 0]), float(hi[0, 0])) == expected


@pytest.mark.parametrize("as_input", [lambda a: a, lambda a: a.tolist(),
                                      lambda a: __import__("torch").from_numpy(a)])
def test_autoencoding_problem_reads_a_bool_table_as_rfautoencoder_does(as_input):
    # RFAutoencoder promotes bools (its docstring) but AutoencodingProblem refused them: "X must be numeric,
    # got dtype bool" for the solve form of the same estimator (red23b)
    from algorithms.forests import AutoencodingProblem
    X = np.random.default_rng(0).random((30, 4)) > 0.5
    problem = AutoencodingProblem(as_input(X), X_test=as_input(X[:3]))
    assert problem.X.dtype == problem.X_test.dtype == np.float64
    assert np.array_equal(problem.X, X.astype(np.float64))


@pytest.mark.parametrize("low", [1e-30, 1.0, -3.4e38, 0.0, -1e-300, 2.0**64])
def test_sample_in_boxes_keeps_its_half_open_promise_in_a_box_one_ulp_wide(low):
    # lower + u·(upper − lower) rounded to lower for about half the draws of a one-ulp box: outside the
    # documented (lower, upper]
    from algorithms.forests import sample_in_boxes
    lower = np.full((500, 2), low)
    upper = np.nextafter(lower, np.inf)
    x = sample_in_boxes(lower, upper, np.array([False, False]), np.random.default_rng(0))
    assert np.all(x > lower) and np.all(x <= upper)


@pytest.mark.parametrize("value", [5e-324, 2.37e-322, 3 * 2.0**-1070, 1e-310])
def test_column_distortion_scores_a_subnormal_column_without_overflow(value):
    # the column's scale factor 2**1064 overflowed to inf: the column became NaN and scored 0.0 (a perfect
    # reconstruction) though X_hat differed from X
    from algorithms.forests import column_distortion, distortion
    X = np.full((5, 2), value)
    X[:, 1] = value * np.arange(1, 6)
    X_hat = X.copy()
    X_hat[0, 0] = np.nextafter(value, np.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings leaked too
        assert column_distortion(X, X).tolist() == [0.0, 0.0]
        assert column_distortion(X, X_hat)[0] == 1.0
        assert column_distortion(X, X[::-1])[1] == pytest.approx(4.0, rel=1e-2)
        assert distortion(X, X_hat) > 0
