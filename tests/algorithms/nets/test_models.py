"""Unit tests for algorithms.nets.models (MLP, CNN, SoftmaxAttention as torch.nn.Modules)."""

import math

import pytest
import torch
from torch.func import functional_call

from algorithms.nets.models import ACTIVATIONS, CNN, MLP, Activation, SoftmaxAttention, activation

torch.set_num_threads(1)
DT = torch.float64


def _count(module):
    return sum(p.numel() for p in module.parameters())


def test_activation_values():
    t = torch.tensor([-2.0, 0.0, 3.0], dtype=DT)
    assert activation("relu")(t).tolist() == [0.0, 0.0, 3.0]
    assert activation("leaky_relu")(t).tolist() == pytest.approx([-0.2, 0.0, 3.0])
    expected = [1 / (1 + math.exp(2)), 0.5, 1 / (1 + math.exp(-3))]
    assert activation("sigmoid")(t).tolist() == pytest.approx(expected)
    assert activation("tanh")(t).tolist() == pytest.approx([math.tanh(-2), 0.0, math.tanh(3)])
    assert sorted(ACTIVATIONS) == ["leaky_relu", "relu", "sigmoid", "tanh"]
    assert torch.equal(Activation("tanh")(t), torch.tanh(t))


def test_mlp_matches_manual_forward():
    net = MLP(3, (5, 4), 2, activation="tanh", seed=3)
    X = torch.randn(7, 3, dtype=DT)
    h = torch.tanh(X @ net.W0.T + net.b0)
    h = torch.tanh(h @ net.W1.T + net.b1)
    out = h @ net.W2.T + net.b2
    torch.testing.assert_close(net(X), out)
    assert _count(net) == 3 * 5 + 5 + 5 * 4 + 4 + 4 * 2 + 2
    assert (net.in_features, net.out_features, net.sizes) == (3, 2, (3, 5, 4, 2))


def test_mlp_without_bias_is_the_papers_network():
    net = MLP(2, (3,), 1, activation="relu", bias=False, seed=0)
    assert [n for n, _ in net.named_parameters()] == ["W0", "W1"]
    X = torch.randn(4, 2, dtype=DT)
    torch.testing.assert_close(net(X), torch.relu(X @ net.W0.T) @ net.W1.T)


def test_init_is_seeded_scaled_and_typed():
    a, b = MLP(2, (3,), 1, seed=1), MLP(2, (3,), 1, seed=1)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.W0, MLP(2, (3,), 1, seed=2).W0)
    assert MLP(2, (3,), 1, seed=1, dtype=torch.float32).W0.dtype == torch.float32
    torch.testing.assert_close(MLP(2, (3,), 1, seed=1, init_scale=2.0).W0, 2.0 * a.W0)
    # the draw is N(0, scale²/fan_in): the sample standard deviation of a big layer
    big = MLP(400, (300,), 1, seed=0)
    assert float(big.W0.std()) == pytest.approx(1 / math.sqrt(400), rel=0.02)


def test_a_torch_optimizer_trains_the_module():
    net = MLP(2, (4,), 1, activation="tanh", seed=0)
    X = torch.randn(16, 2, dtype=DT)
    y = X[:, :1] - X[:, 1:]
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    first = None
    for _ in range(50):
        opt.zero_grad()
        loss = ((net(X) - y) ** 2).mean()
        first = float(loss) if first is None else first
        loss.backward()
        opt.step()
    assert float(((net(X) - y) ** 2).mean()) < 0.5 * first


def test_functional_call_evaluates_at_other_parameters():
    net = MLP(3, (4,), 2, seed=0)
    other = {name: torch.zeros_like(p) for name, p in net.named_parameters()}
    X = torch.randn(5, 3, dtype=DT)
    assert torch.equal(functional_call(net, other, (X,)), torch.zeros(5, 2, dtype=DT))
    assert not torch.equal(net(X), torch.zeros(5, 2, dtype=DT))  # the module itself is unchanged


def test_cnn_matches_torch_module():
    cnn = CNN(in_channels=2, length=7, channels=3, kernel_size=3, out_features=2, activation="relu", seed=0)
    conv = torch.nn.Conv1d(2, 3, 3).to(DT)
    with torch.no_grad():
        conv.weight.copy_(cnn.K)
        conv.bias.copy_(cnn.c)
    X = torch.randn(4, 2, 7, dtype=DT)
    ref = torch.relu(conv(X)).reshape(4, -1) @ cnn.W.T + cnn.b
    torch.testing.assert_close(cnn(X), ref)
    assert cnn.out_length == 5 and cnn.in_features == 14 and cnn.input_shape == (2, 7)
    assert _count(cnn) == 3 * 2 * 3 + 3 + 2 * 15 + 2


def test_attention_matches_loop_implementation():
    att = SoftmaxAttention(seq_len=4, dim=3, out_features=2, activation="sigmoid", seed=5)
    X = torch.randn(2, 4, 3, dtype=DT)
    out = att(X)
    for i in range(2):
        Q, K, V = X[i] @ att.Wq, X[i] @ att.Wk, X[i] @ att.Wv
        rows = []
        for t in range(4):
            w = torch.exp(Q[t] @ K.T / math.sqrt(3))
            rows.append((w / w.sum()) @ V)
        pooled = torch.sigmoid(torch.stack(rows)).mean(0)
        torch.testing.assert_close(out[i], pooled @ att.Wo.T + att.bo)


def test_attention_is_permutation_invariant_over_tokens():
    att = SoftmaxAttention(seq_len=5, dim=2, out_features=3, seed=0)
    X = torch.randn(3, 5, 2, dtype=DT)
    perm = torch.tensor([4, 2, 0, 1, 3])
    torch.testing.assert_close(att(X), att(X[:, perm]))


def test_activation_hook_sees_the_preactivations():
    net = MLP(2, (3,), 1, activation="relu", seed=0)
    seen = []
    net.act.register_forward_hook(lambda module, args, out: seen.append(args[0]))
    X = torch.randn(4, 2, dtype=DT)
    net(X)
    torch.testing.assert_close(seen[0], X @ net.W0.T + net.b0)
