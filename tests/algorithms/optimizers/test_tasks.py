import numpy as np
import torch
from torch import nn

from algorithms.optimizers import MLP, MarkovLanguageTask


def test_transition_is_stochastic_and_stationary_law_is_invariant():
    task = MarkovLanguageTask(vocab_size=10, branching=3, seed=1)
    p = task.transition
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(task.stationary @ p, task.stationary, atol=1e-12)
    assert np.all((p > 0.02 / 10 - 1e-15).sum(axis=1) == 10)


def test_entropy_rate_is_the_loss_of_the_true_chain():
    task = MarkovLanguageTask(vocab_size=8, context=32, branching=3, seed=2)
    tokens = task.sample(2000, torch.Generator().manual_seed(0))
    nll = -np.log(task.transition[tokens[:, :-1].numpy(), tokens[:, 1:].numpy()]).mean()
    # 64 000 transitions, per-token NLL standard deviation below 2 nats: standard error < 0.01
    assert abs(nll - task.entropy_rate()) < 0.04
    counts = np.zeros((8, 8))
    np.add.at(counts, (tokens[:, :-1].numpy().ravel(), tokens[:, 1:].numpy().ravel()), 1)
    empirical = counts / counts.sum(axis=1, keepdims=True)
    assert np.abs(empirical - task.transition).max() < 0.03


def test_loss_of_an_oracle_mlp_is_the_entropy_rate():
    task = MarkovLanguageTask(vocab_size=6, context=16, seed=3)
    oracle = MLP(6, 6, width=6, depth=1, dtype=torch.float64)
    with torch.no_grad():
        oracle.embed.weight.copy_(torch.eye(6))
        oracle.blocks[0].weight.zero_()
        oracle.readout.weight.copy_(torch.as_tensor(np.log(task.transition)).T)
    tokens = task.sample(500, torch.Generator().manual_seed(1))
    direct = -np.log(task.transition[tokens[:, :-1].numpy(), tokens[:, 1:].numpy()]).mean()
    assert abs(task.loss(oracle, tokens).item() - direct) < 1e-6


def test_uniform_model_loses_log_vocab():
    task = MarkovLanguageTask(vocab_size=12, seed=0)

    class Zero(nn.Module):
        def forward(self, x):
            return torch.zeros(x.shape[0], 12)

    zero = Zero()
    zero.register_parameter("w", nn.Parameter(torch.zeros(1)))
    loss = task.loss(zero, task.sample(3, torch.Generator().manual_seed(0)))
    assert abs(loss.item() - np.log(12)) < 1e-6
