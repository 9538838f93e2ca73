"""The diffusion map against a dense eigendecomposition, and the Nyström extension."""

import numpy as np

from algorithms.forests import dense_diffusion_map, diffusion_map, forest_kernel, nystrom
from tests.algorithms.forests.test_partition import _forest


def test_lanczos_matches_lapack_and_nystrom_reproduces_the_training_embedding():
    forest, X, _ = _forest(3, n=60)
    K = forest_kernel(forest, X)
    for t in (0, 1, 3):
        sparse, dense = diffusion_map(K, 4, t, seed=1), dense_diffusion_map(K, 4, t)
        assert sparse.converged and sparse.residual < 1e-10
        np.testing.assert_allclose(sparse.eigenvalues, dense.eigenvalues, atol=1e-10)
        # eigenvalues may repeat (a forest graph can be disconnected): compare eigen-equations and Grams
        Z, lam = sparse.embedding, sparse.eigenvalues
        np.testing.assert_allclose(K @ Z, Z * lam, atol=1e-9)
        np.testing.assert_allclose(Z.T @ Z, np.diag(60 * lam ** (2 * t)), atol=1e-8)
        np.testing.assert_allclose(nystrom(K, sparse), sparse.embedding, atol=1e-8)
    Kd = K.toarray()
    values = np.linalg.eigvalsh(Kd)[::-1]
    np.testing.assert_allclose(diffusion_map(K, 4).eigenvalues, values[1:5], atol=1e-10)
    assert abs(values[0] - 1) < 1e-12  # doubly stochastic: the trivial eigenvalue is 1


def test_capped_restarts_report_no_convergence():
    forest, X, _ = _forest(4, n=200)
    assert not diffusion_map(forest_kernel(forest, X), 10, maxiters=1).converged
