"""#43 round 12: the forests family's working range, records and user callables, one test per class."""

from fractions import Fraction

import numpy as np
import pytest

from algorithms.forests import (
    DiffusionMap,
    ExactDecoding,
    RelabeledForest,
    RFAutoencoder,
    exact_decode,
    kernel_estimate,
    nystrom,
    relabel_forest,
)

X = np.random.default_rng(0).standard_normal((30, 3))


@pytest.fixture(scope="module")
def fitted():
    return RFAutoencoder(n_components=2, n_estimators=3, random_state=0, k=3).fit(X[:20, :2])


def _decode_args(ae):
    K = kernel_estimate(ae.transform(X[:1, :2]), ae.dmap_)
    return K, (ae.partition_, ae.train_leaves_, ae.low_, ae.high_, ae.categorical_, np.random.default_rng(0))


def test_supervised_targets_past_the_range_are_refused():
    with pytest.raises(ValueError, match=r"^y has an entry of magnitude 1e\+39"):
        RFAutoencoder(n_components=2, n_estimators=3, supervised=True).fit(X, np.r_[1e39, np.zeros(29)])


@pytest.mark.parametrize("limit", [5e-324, 1e-39, 1e308, 1e39])
def test_exact_decode_time_limit_is_a_scale_of_the_range(fitted, limit):
    K, rest = _decode_args(fitted)
    with pytest.raises(ValueError, match=r"^time_limit = .* is outside the package's working range"):
        exact_decode(K, *rest, time_limit=limit)


@pytest.mark.parametrize("limit", [np.float32(5.0), Fraction(5, 1)])
def test_exact_decode_time_limit_takes_coercible_numbers(fitted, limit):
    K, rest = _decode_args(fitted)
    assert exact_decode(K, *rest, time_limit=limit).solved.all()  # refused "must be a positive number" before


def test_exact_decode_names_swapped_bounds_and_foreign_leaf_ids(fitted):
    K, (part, leaves, low, high, cat, rng) = _decode_args(fitted)
    with pytest.raises(ValueError, match=r"^low must be <= high"):
        exact_decode(K, part, leaves, high, low, cat, rng)  # decoded nothing, in silence
    for shift in (10**6, -(10**6)):
        with pytest.raises(ValueError, match=r"^train_leaves must hold int leaf ids in \[0, "):
            exact_decode(K, part, leaves + shift, low, high, cat, rng)  # scipy's index errors before


def test_kernel_estimate_names_an_overflowing_diffusion_time():
    V = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 2)))[0]
    dm = DiffusionMap(embedding=V * 0.5, eigenvalues=np.array([0.5, 0.1]), eigenvectors=V, t=1000,
                      residual=0.0, converged=True, n_samples=4)
    with pytest.raises(ValueError, match=r"^dmap's λ\^-t overflows \(t = 1000"):
        kernel_estimate(np.ones((1, 2)), dm)  # an inf/NaN kernel before


@pytest.mark.parametrize("field, bad, error", [("t", 2**64, ValueError), ("residual", 1e39, ValueError),
                                               ("residual", -1.0, ValueError)])
def test_diffusion_map_records_refuse_out_of_range_fields(field, bad, error):
    V = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 2)))[0]
    fields = dict(embedding=V, eigenvalues=np.array([0.5, 0.1]), eigenvectors=V, t=1, residual=0.0,
                  converged=True, n_samples=4)
    with pytest.raises(error, match=rf"^{field}"):
        DiffusionMap(**{**fields, field: bad})
    assert DiffusionMap(**{**fields, "residual": Fraction(1, 2)}).residual == 0.5  # a TypeError before


def test_exact_decoding_records_refuse_foreign_leaf_ids():
    with pytest.raises(ValueError, match=r"^leaves must hold leaf ids >= 0"):
        ExactDecoding(x=np.zeros((1, 2)), leaves=np.array([[-5, -7]]), solved=np.array([True]),
                      objective=np.zeros(1))


def test_nystrom_checks_a_sparse_k0_as_a_dense_one(fitted):
    import scipy.sparse as sp

    n = fitted.dmap_.n_samples
    with pytest.raises(ValueError, match=r"^K0 has an entry of magnitude 1e\+39"):
        nystrom(sp.csr_matrix(np.full((1, n), 1e39)), fitted.dmap_)
    with pytest.raises(TypeError, match=r"^K0 must be real"):
        nystrom(sp.csr_matrix(np.full((1, n), 1 + 1j)), fitted.dmap_)


@pytest.fixture(scope="module")
def relabeled():
    ae = RFAutoencoder(n_components=2, n_estimators=3, random_state=0, k=5, decoder="relabel").fit(X)
    return ae.relabeled_, ae.transform(X[:2])


@pytest.mark.parametrize("edit, words", [
    ("cycle", r"children\[0\] must give each internal node children after it"),
    ("past", r"children\[0\] must give each internal node children after it"),
    ("str_feature", r"^feature\[0\] must be an int array"),
    ("nan_threshold", r"^threshold\[0\] must be a finite array"),
    ("float_flags", r"^below_goes_left\[0\] must be a bool array"),
])
def test_relabeled_forest_checks_each_trees_arrays(relabeled, edit, words):
    rf, _ = relabeled
    feature, threshold, flags, children = list(rf.feature), list(rf.threshold), list(rf.below_goes_left), \
        list(rf.children)
    left, right = (np.array(a) for a in children[0])
    if edit == "cycle":
        left = left.copy()
        left[0] = 0  # leaves() looped for ever
    elif edit == "past":
        left = left.copy()
        left[0] = 10**6
    elif edit == "str_feature":
        feature[0] = np.array(["a"] * len(feature[0]))
    elif edit == "nan_threshold":
        threshold[0] = np.full(len(threshold[0]), np.nan)
    else:
        flags[0] = np.full(len(flags[0]), 0.5)
    children[0] = (left, right)
    with pytest.raises((ValueError, TypeError), match=words):
        RelabeledForest(rf.partition, tuple(feature), tuple(threshold), tuple(flags), tuple(children))


def test_relabel_forest_names_a_misbehaving_embed(fitted):
    from algorithms._validation import UserCallableError

    args = (fitted.partition_, None, fitted.low_, fitted.high_, fitted.categorical_, np.random.default_rng(0))

    def call(embed):
        return relabel_forest(args[0], embed, *args[2:], n_synthetic=5)

    with pytest.raises(UserCallableError, match=r"^embed\(X\) raised KeyError"):
        call(lambda Z: {}["x"])
    with pytest.raises(ValueError, match=r"^embed\(X\) must return embeddings of magnitude at most"):
        call(lambda Z: np.full((len(Z), 2), 1e300))
    with pytest.raises(TypeError, match=r"embed"):
        call(lambda: 0)


def test_synthetic_training_set_names_non_numeric_boxes():
    from algorithms.forests import synthetic_training_set

    with pytest.raises(TypeError, match=r"^lower must be a real array of box bounds"):
        synthetic_training_set(np.zeros((2, 1), int), np.array([["a"]]), np.array([["b"]]), np.zeros(1, bool),
                               np.random.default_rng(0))  # numpy's "ufunc 'maximum'" error before


def test_a_frame_with_repeated_column_names_is_named():
    import pandas as pd

    with pytest.raises(ValueError, match=r"^X must have distinct column names, got repeated \['a'\]"):
        RFAutoencoder(n_components=2, n_estimators=5).fit(pd.DataFrame(X[:, :2], columns=["a", "a"]))


@pytest.mark.parametrize("edit", ["empty", "other"])
def test_a_fitted_forest_edited_afterwards_is_named(edit):
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    from algorithms.forests import forest_kernel

    forest = RandomForestRegressor(n_estimators=3, random_state=0).fit(X[:, :2], X[:, 2])
    if edit == "empty":
        forest.estimators_ = []
    else:
        forest.estimators_[0] = DecisionTreeRegressor().fit(X[:, :1], X[:, 2])
    with pytest.raises(ValueError, match=r"^forest.estimators_ must be the fitted trees"):
        forest_kernel(forest, X[:, :2])


def test_relabeled_forest_refuses_a_node_with_one_child(relabeled):
    rf, _ = relabeled
    left, right = (np.array(a) for a in rf.children[0])
    left = left.copy()
    left[0] = -1  # the root routed to leaf id -1 in silence
    with pytest.raises(ValueError, match=r"children\[0\] must give each node two distinct children or none"):
        RelabeledForest(rf.partition, rf.feature, rf.threshold, rf.below_goes_left,
                        ((left, right), *rf.children[1:]))


def test_exact_decode_refuses_columns_of_other_trees_and_short_flags(fitted):
    K, (part, leaves, low, high, cat, rng) = _decode_args(fitted)
    with pytest.raises(ValueError, match=r"^train_leaves must hold tree b's leaf ids in column b"):
        exact_decode(K, part, leaves[:, ::-1].copy(), low, high, cat, rng)  # decoded in silence before
    with pytest.raises(ValueError, match=r"^categorical, low and high must have one entry per feature"):
        exact_decode(K, part, leaves, low, high, np.zeros(5, bool), rng)  # numpy's broadcast error before


def test_arrays_cannot_be_made_writable_through_their_base():
    from algorithms.forests import AutoencodingProblem

    problem = AutoencodingProblem(X)
    with pytest.raises(ValueError, match="WRITEABLE"):
        problem.X.base.setflags(write=True)  # the owning copy could be made writable, then written
