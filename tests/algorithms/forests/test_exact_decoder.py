"""The exact (ILP) decoder: true kernel rows recover the true leaves; kernel_estimate inverts Nyström."""

import numpy as np
from sklearn.ensemble import RandomForestRegressor

from algorithms.forests import ForestPartition, RFAutoencoder, exact_decode, forest_kernel, kernel_estimate


def test_true_kernel_rows_give_the_true_leaves_with_zero_objective():
    rng = np.random.default_rng(0)
    X = rng.random((80, 2))
    forest = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, X.sum(1))
    part = ForestPartition.from_forest(forest)
    X0 = rng.random((5, 2))
    dec = exact_decode(forest_kernel(part, X0, X).toarray(), part, part.leaves(X), np.zeros(2), np.ones(2),
                       np.zeros(2, bool), rng)
    assert dec.solved.all()
    np.testing.assert_allclose(dec.objective, 0.0, atol=1e-9)
    np.testing.assert_array_equal(part.leaves(dec.x), dec.leaves)
    assert np.mean(np.all(dec.leaves == part.leaves(X0), axis=1)) >= 0.8


def test_kernel_estimate_of_training_embeddings_is_the_rank_d_kernel():
    X = np.random.default_rng(1).random((50, 3))
    ae = RFAutoencoder(n_components=48, n_estimators=5, random_state=0).fit(X)
    K = forest_kernel(ae.partition_, X).toarray()
    # 1 + 48 of the 50 eigenpairs are kept: the estimate is K without its smallest component
    values, vectors = np.linalg.eigh(K)
    assert values[-2] < 1 - 1e-9  # a connected kernel graph: the trivial eigenvalue 1 is simple
    expected = K - values[0] * np.outer(vectors[:, 0], vectors[:, 0])
    np.testing.assert_allclose(kernel_estimate(ae.embedding_, ae.dmap_), expected, atol=1e-8)


def test_a_box_narrower_than_two_margins_decodes_to_its_midpoint():
    # two depth-1 trees split column 0 at thresholds 1.5e-6 of the range apart: the leaf choice between
    # them is narrower than the BOX_MARGIN kept from each face, so the decoder returns its midpoint (a draw
    # from the raw box could land on its open lower face, outside the leaf)
    from sklearn.tree import DecisionTreeRegressor

    X = np.column_stack([np.r_[0.0, 0.5, 0.5 + 1.5e-6, 0.5 + 3e-6, 1.0], [0.3, 0.9, 0.1, 0.7, 0.5]])
    forest = RandomForestRegressor(n_estimators=2, max_depth=1, random_state=0).fit(X, X[:, 0])
    forest.estimators_ = [DecisionTreeRegressor(max_depth=1).fit(X, (X[:, 0] > X[i, 0]).astype(float))
                          for i in (1, 2)]
    part = ForestPartition.from_forest(forest)
    t0, t1 = (tree.tree_.threshold[0] for tree in forest.estimators_)
    dec = exact_decode(forest_kernel(part, X[[2]], X).toarray(), part, part.leaves(X), X.min(0), X.max(0),
                       np.zeros(2, bool), np.random.default_rng(0))
    assert dec.solved.all()
    np.testing.assert_array_equal(dec.leaves, part.leaves(X[[2]]))
    assert dec.x[0, 0] == t0 + 0.5 * (t1 - t0)
    np.testing.assert_array_equal(part.leaves(dec.x), dec.leaves)
