import numpy as np
import torch

from algorithms import RetCode, solve
from algorithms.unlearning import (
    SparseWidthOG,
    TwoLayerPerceptron,
    active_neurons,
    prune_inactive_neurons,
    two_layer_task,
)


def test_width_at_most_the_feature_rank_and_retain_interpolated():
    prob = two_layer_task(9, 3, 30, 3, activation="sigmoid", seed=4)
    sol = solve(prob, SparseWidthOG())
    X, y = prob.retain
    s = np.linalg.matrix_rank(prob.model.features(X).detach().numpy())
    assert sol.retcode is RetCode.Success and s == 6
    assert active_neurons(prob.model, sol.x) <= s
    assert float((prob.predict(sol.x, X) - y).abs().max()) < 1e-9
    # pruned: rows of A with c_i = 0 are zero, so nonzero rows = active neurons
    A = sol.x[30:].reshape(30, 3)
    assert int((A.abs().sum(dim=1) > 0).sum()) == active_neurons(prob.model, sol.x)


def test_prune_false_keeps_the_first_layer():
    prob = two_layer_task(6, 2, 15, 2, seed=1)
    sol = solve(prob, SparseWidthOG(prune=False))
    assert torch.equal(sol.x[15:], prob.params[15:])


def test_active_neurons_and_pruning_by_hand():
    net = TwoLayerPerceptron(2, 3, seed=0)
    theta = torch.tensor([0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 0.0, 3.0, 4.0], dtype=torch.float64)
    assert active_neurons(net, theta) == 1  # neuron 1 has a_1 = 0, neuron 0 has c_0 = 0
    assert prune_inactive_neurons(net, theta).tolist() == [0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0]
