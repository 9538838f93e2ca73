"""RFAE through solve: Success, held-out rows, MaxIters, Failure on a kernel without splits."""

import numpy as np

from algorithms import RetCode, solve
from algorithms.forests import RFAE, AutoencodingProblem


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
