import torch

from algorithms import RetCode, solve
from algorithms.unlearning import Ridge, linear_task


def test_constant_lambda_converges_to_the_closed_form_ridge_solution():
    prob = linear_task(n=5, d=8, n_forget=1, seed=0)
    X, y = prob.retain
    n, lam = X.shape[0], 0.5
    closed = torch.linalg.solve(X.T @ X / n + lam * torch.eye(8, dtype=X.dtype), X.T @ y[:, 0] / n)
    sol = solve(prob, Ridge(lr=0.2, lam=lam), maxiters=2000, tol=1e-11)
    assert sol.retcode is RetCode.Success
    assert torch.allclose(sol.x, closed, atol=1e-9)


def test_decaying_lambda_approaches_the_min_norm_interpolator():
    prob = linear_task(n=5, d=8, n_forget=1, seed=0)
    fixed = solve(prob, Ridge(lr=0.2, lam=0.1), maxiters=600, tol=1e-9)
    decayed = solve(prob, Ridge(lr=0.2, lam=0.1, gamma=0.99), maxiters=600, tol=1e-9)
    assert decayed.stats.distance_to_retrain < 0.5 * fixed.stats.distance_to_retrain
