"""Unit tests of algorithms.optimizers.expansion (LowRankExpansion) and .finetune (the finetune task)."""

import math

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.optimizers.expansion import LowRankExpansion
from algorithms.optimizers.finetune import FinetuneTask, FullFinetune, markov_finetune_task
from algorithms.optimizers.tasks import MarkovLanguageTask


def test_low_rank_expansion_computes_x_times_w_plus_uv_transposed_plus_b():
    torch.manual_seed(0)
    linear = torch.nn.Linear(4, 3).double()
    layer = LowRankExpansion(linear, rank=2, seed=1)
    with torch.no_grad():
        layer.U.copy_(torch.randn(3, 2, dtype=torch.float64))
    x = torch.randn(5, 4, dtype=torch.float64)
    W = linear.weight.detach().numpy() + layer.U.detach().numpy() @ layer.V.detach().numpy()
    expected = x.numpy() @ W.T + linear.bias.detach().numpy()
    np.testing.assert_allclose(layer(x).detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layer.merged_weight().detach().numpy(), W, rtol=1e-12)
    assert np.linalg.matrix_rank(W - linear.weight.detach().numpy()) == 2


def test_low_rank_expansion_freezes_the_wrapped_layer_and_trains_only_u_v():
    linear = torch.nn.Linear(4, 3)
    layer = LowRankExpansion(linear, rank=1)
    assert not linear.weight.requires_grad and not linear.bias.requires_grad
    layer(torch.ones(2, 4)).sum().backward()
    assert layer.U.grad is not None and layer.V.grad is not None and linear.weight.grad is None
    # V is Kaiming uniform with bound sqrt(6 / in_features)
    assert float(layer.V.detach().abs().max()) <= math.sqrt(6 / 4)
    kept = LowRankExpansion(torch.nn.Linear(4, 3), rank=1, freeze=False)
    assert kept.linear.weight.requires_grad


def test_markov_finetune_task_pretrains_on_one_chain_and_samples_the_next():
    task = markov_finetune_task(vocab_size=8, context=6, n=20, width=16, depth=1, pretrain_steps=3, seed=4)
    target = MarkovLanguageTask(vocab_size=8, context=6, seed=5)
    assert task.task == target and tuple(task.tokens.shape) == (20, 7)
    assert task.reference_loss == pytest.approx(target.entropy_rate(), rel=1e-12)
    # the sample follows chain B: every observed transition has the chain's probability > 0.02/V floor
    P = target.transition
    pairs = task.tokens[:, :-1].reshape(-1), task.tokens[:, 1:].reshape(-1)
    assert np.mean(P[pairs[0].numpy(), pairs[1].numpy()] > 0.02 / 8 + 1e-12) > 0.9


def test_finetune_task_loss_is_the_tasks_cross_entropy_and_solve_does_not_touch_the_model():
    task = markov_finetune_task(vocab_size=8, context=4, n=16, width=8, depth=1, pretrain_steps=2,
                                architecture="mlp")
    before = [p.detach().clone() for p in task.model.parameters()]
    with torch.no_grad():
        assert float(task.loss(task.model)) == pytest.approx(float(task.task.loss(task.model, task.tokens)))
    sol = solve(task, FullFinetune(lr=1e-2), maxiters=4, store_trace=True)
    assert sol.retcode is RetCode.MaxIters and len(sol.trace) == 4
    assert all(torch.equal(a, b) for a, b in zip(before, task.model.parameters(), strict=True))
    assert sol.original["peak_state_bytes"] > 0


def test_full_finetune_reaches_the_reference_loss_on_the_mlp_task():
    task = markov_finetune_task(vocab_size=8, context=8, n=64, width=32, depth=1, pretrain_steps=20,
                                architecture="mlp", seed=2)
    sol = solve(task, FullFinetune(lr=2e-2), maxiters=400, tol=0.1, seed=0)
    assert sol.retcode is RetCode.Success and sol.value <= task.reference_loss + 0.1


def test_finetune_task_rejects_tokens_outside_the_vocabulary():
    task = MarkovLanguageTask(vocab_size=4, context=3)
    with pytest.raises(ValueError, match="tokens"):
        FinetuneTask(model=torch.nn.Linear(4, 4), task=task, tokens=np.full((2, 4), 7), batch_size=1)
