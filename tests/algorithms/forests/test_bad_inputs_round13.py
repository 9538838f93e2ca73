"""#43 round 13: forests' derived limits named by argument, late refusals, arrays written in place."""

from __future__ import annotations

import numpy as np
import pytest

import algorithms.forests as F


@pytest.fixture(scope="module")
def fitted():
    X = np.random.default_rng(0).normal(size=(30, 3))
    return X, F.RFAutoencoder(n_estimators=5, random_state=0).fit(X)


@pytest.mark.parametrize("fit", [F.diffusion_map, F.dense_diffusion_map], ids=["arpack", "dense"])
def test_an_embedding_past_the_range_is_blamed_on_K(fitted, fit):
    # a valid kernel of entries 3e38 embedded at 9.4e38 and was refused naming "embedding", an output
    X, ae = fitted
    K = F.forest_kernel(ae.forest_, X).toarray()
    with pytest.raises(ValueError, match=r"^K \(with t = 1\) gives an embedding"):
        fit(K / K.max() * 3e38, 2)
    assert np.all(np.isfinite(fit(K / K.max() * 1e37, 2).embedding))


@pytest.mark.parametrize("t", [2**63, 2**64])
def test_rfae_refuses_t_past_int64_at_construction(t):
    # RFAE(t=2**64) was built and refused only at solve; RFAutoencoder and diffusion_map refuse at once
    with pytest.raises(ValueError, match=r"^t must be <= 2\*\*63 - 1"):
        F.RFAE(t=t)


@pytest.mark.parametrize("field", ["lower", "upper", "tree_of", "node_to_leaf"])
def test_partition_arrays_are_read_only(fitted, field):
    # node_to_leaf[0][:] = -7 made leaves() return leaf -7 in silence
    part = F.ForestPartition.from_forest(fitted[1].forest_)
    array = getattr(part, field)
    with pytest.raises(ValueError, match="read-only"):
        (array[0] if field == "node_to_leaf" else array)[:] = 0


@pytest.mark.parametrize("name", ["synthetic_", "embedding_", "eigenvalues_", "leaf_weights_",
                                  "train_leaves_"])
def test_fitted_arrays_are_read_only(fitted, name):
    # synthetic_[:] = 1e30 was decoded in silence; embedding_[:] = NaN met sklearn's "Input X contains NaN"
    with pytest.raises(ValueError, match="read-only"):
        getattr(fitted[1], name)[:] = 0


@pytest.mark.parametrize("scale", [1e16, 1e30, 3e38])
def test_exact_decode_refuses_kernel_rows_the_ilp_cannot_take(fitted, scale):
    # K·1e30 made every program fail at once: rows NaN, solved False, as if the time limit stopped them
    X, ae = fitted
    K = F.kernel_estimate(ae.transform(X[:2]), ae.dmap_)
    with pytest.raises(ValueError, match=r"^K0_hat must have entries of magnitude at most 1e\+15"):
        F.exact_decode(K / np.abs(K).max() * scale, ae.partition_, ae.train_leaves_, ae.low_, ae.high_,
                       ae.categorical_, np.random.default_rng(0))


@pytest.mark.parametrize("n_features", [4, 10])
def test_node_boxes_refuses_another_input_width(fitted, n_features):
    # 4 gave boxes in 4-D for a 3-feature tree
    tree = fitted[1].forest_.estimators_[0].tree_
    with pytest.raises(ValueError, match=r"^n_features must be the tree's input width 3"):
        F.node_boxes(tree, n_features)


@pytest.mark.parametrize("copier", [__import__("copy").deepcopy,
                                    lambda a: __import__("pickle").loads(__import__("pickle").dumps(a))],
                         ids=["deepcopy", "pickle"])
def test_copies_keep_the_arrays_read_only(fitted, copier):
    # numpy gives arrays back writable: a copy's synthetic_ set to 1e30 was decoded in silence
    copy = copier(fitted[1])
    for array in (copy.synthetic_, copy.embedding_, copy.partition_.lower, copy.partition_.node_to_leaf[0]):
        with pytest.raises(ValueError, match="read-only"):
            array[:] = 0


def test_partition_keeps_its_own_forest():
    # refitting the caller's forest afterwards gave an IndexError (or stale leaves) in partition.leaves
    from sklearn.ensemble import RandomForestRegressor

    X = np.random.default_rng(0).normal(size=(40, 3))
    forest = RandomForestRegressor(n_estimators=3, random_state=0, max_depth=3).fit(X, X[:, 0])
    part = F.ForestPartition.from_forest(forest)
    before = part.leaves(X[:3])
    forest.set_params(max_depth=6).fit(X, X[:, 1] ** 2)
    assert np.array_equal(part.leaves(X[:3]), before)


@pytest.mark.parametrize("fit", [F.diffusion_map, F.dense_diffusion_map], ids=["arpack", "dense"])
def test_float32_kernel_symmetric_at_its_rounding(fit):
    # A·Aᵀ in float32 is asymmetric by ~eps32 relative and was refused with float64's 1e-8
    A = np.random.default_rng(0).normal(size=(200, 10)).astype(np.float32)
    fit(np.abs(A @ A.T), 2)


def test_synthetic_training_set_refuses_disjoint_leaf_boxes():
    # boxes [0, 1] and [2, 3] drew 2.0, in box 1 only, though the draw is from their intersection
    with pytest.raises(ValueError, match=r"^leaves\[0\] must name leaves whose boxes intersect"):
        F.synthetic_training_set(np.array([[0, 1]]), np.array([[0.0], [2.0]]), np.array([[1.0], [3.0]]),
                                 np.array([False]), np.random.default_rng(0))
