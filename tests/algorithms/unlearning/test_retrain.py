import numpy as np
import torch

from algorithms import RetCode, solve
from algorithms.unlearning import Retrain, linear_task, two_layer_task


def test_linear_retrain_is_the_least_norm_solution_and_checked():
    prob = linear_task(n=6, d=11, n_forget=2, seed=3)
    sol = solve(prob, Retrain())
    expected = np.linalg.lstsq(prob.retain[0].numpy(), prob.retain[1][:, 0].numpy(), rcond=None)[0]
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x.numpy(), expected, atol=1e-12)
    assert solve(prob, Retrain(), maxiters=0).retcode is RetCode.MaxIters


def test_network_retrain_starts_from_the_fresh_initialization():
    prob = two_layer_task(6, 2, 12, 2, seed=0)
    first = solve(prob, Retrain(lr=0.0), maxiters=1)
    assert torch.equal(first.x, prob.init_params) and not torch.equal(first.x, prob.params)
    trained = solve(prob, Retrain(lr=1e-2), maxiters=300)
    fresh_loss = float(prob.loss(prob.init_params, prob.retain))
    assert trained.stats.retain_loss < 0.1 * fresh_loss
