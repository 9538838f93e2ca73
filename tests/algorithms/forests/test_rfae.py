"""RFAE through solve: Success, held-out rows, MaxIters, Failure on a kernel without splits, and
Success after the dense fallback."""

import dataclasses

import numpy as np
import pytest

import algorithms.forests.autoencoder as autoencoder
from algorithms import RetCode, solve
from algorithms.forests import RFAE, AutoencodingProblem, dense_diffusion_map, forest_kernel


def test_solve_embeds_and_reconstructs_held_out_rows():
    rng = np.random.default_rng(0)
    X, X_test = rng.random((80, 3)), rng.random((10, 3))
    sol = solve(AutoencodingProblem(X, X_test=X_test), RFAE(n_components=3, n_estimators=10), seed=1,
                store_trace=True)
    assert sol.retcode is RetCode.Success and sol.x.shape == (10, 3)
    np.testing.assert_allclose(sol.x, sol.original.transform(X_test))
    assert 0 <= sol.value < 1 and sol.trace[-1]["converged"]


def test_constant_data_is_a_failure_and_a_restart_cap_maxiters():
    assert solve(AutoencodingProblem(np.ones((30, 2))), RFAE(n_estimators=3)).retcode is RetCode.Failure
    X = np.random.default_rng(0).random((200, 3))
    sol = solve(AutoencodingProblem(X), RFAE(n_components=10, n_estimators=10), maxiters=1)
    assert sol.retcode is RetCode.MaxIters


def test_dense_fallback_after_arpack_failure_is_a_success(monkeypatch):
    real = autoencoder.diffusion_map
    monkeypatch.setattr(autoencoder, "diffusion_map",
                        lambda *a, **k: dataclasses.replace(real(*a, **k), converged=False))
    X = np.random.default_rng(0).random((60, 3))
    with pytest.warns(UserWarning, match="dense eigendecomposition"):
        sol = solve(AutoencodingProblem(X), RFAE(n_components=3, n_estimators=10), seed=0)
    # without a restart cap the exact LAPACK map replaces ARPACK's: its own criterion held
    assert sol.retcode is RetCode.Success
    ae = sol.original
    dense = dense_diffusion_map(forest_kernel(ae.partition_, X), 3)
    np.testing.assert_allclose(ae.embedding_, dense.embedding, atol=1e-10)
