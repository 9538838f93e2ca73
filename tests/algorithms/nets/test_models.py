"""Unit and bad-input tests for algorithms.nets.models (MLP, CNN, SoftmaxAttention)."""

import math

import pytest
import torch

from algorithms.nets.models import ACTIVATIONS, CNN, MLP, SoftmaxAttention, activation, num_params

torch.set_num_threads(1)
DT = torch.float64


def test_activation_values():
    t = torch.tensor([-2.0, 0.0, 3.0], dtype=DT)
    assert activation("relu")(t).tolist() == [0.0, 0.0, 3.0]
    assert activation("leaky_relu")(t).tolist() == pytest.approx([-0.2, 0.0, 3.0])
    expected = [1 / (1 + math.exp(2)), 0.5, 1 / (1 + math.exp(-3))]
    assert activation("sigmoid")(t).tolist() == pytest.approx(expected)
    assert activation("tanh")(t).tolist() == pytest.approx([math.tanh(-2), 0.0, math.tanh(3)])
    assert sorted(ACTIVATIONS) == ["leaky_relu", "relu", "sigmoid", "tanh"]


@pytest.mark.parametrize("bad", ["gelu", "ReLU", 3, None])
def test_unsupported_activation_names_the_supported(bad):
    names = r"\['leaky_relu', 'relu', 'sigmoid', 'tanh'\]"
    with pytest.raises(ValueError, match="activation must be one of " + names):
        activation(bad)
    with pytest.raises(ValueError, match="activation"):
        MLP(sizes=(2, 3, 1), activation=bad)
    with pytest.raises(ValueError, match="activation"):
        CNN(1, 5, 2, 3, 2, activation=bad)
    with pytest.raises(ValueError, match="activation"):
        SoftmaxAttention(3, 2, 2, activation=bad)


def test_mlp_matches_manual_forward():
    net = MLP(sizes=(3, 5, 4, 2), activation="tanh")
    p = net.init(seed=3)
    X = torch.randn(7, 3, dtype=DT)
    h = torch.tanh(X @ p["W0"].T + p["b0"])
    h = torch.tanh(h @ p["W1"].T + p["b1"])
    out = h @ p["W2"].T + p["b2"]
    torch.testing.assert_close(net.apply(p, X), out)
    assert num_params(p) == 3 * 5 + 5 + 5 * 4 + 4 + 4 * 2 + 2


def test_mlp_init_is_seeded_and_typed():
    net = MLP(sizes=(2, 3, 1))
    a, b = net.init(seed=1), net.init(seed=1)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert net.init(seed=1, dtype=torch.float32)["W0"].dtype == torch.float32
    assert not torch.equal(a["W0"], net.init(seed=2)["W0"])


def test_cnn_matches_torch_module():
    cnn = CNN(in_channels=2, length=7, channels=3, kernel_size=3, num_outputs=2, activation="relu")
    p = cnn.init(seed=0)
    conv = torch.nn.Conv1d(2, 3, 3).to(DT)
    with torch.no_grad():
        conv.weight.copy_(p["K"])
        conv.bias.copy_(p["c"])
    X = torch.randn(4, 2, 7, dtype=DT)
    ref = torch.relu(conv(X)).reshape(4, -1) @ p["W"].T + p["b"]
    torch.testing.assert_close(cnn.apply(p, X), ref)
    assert cnn.out_length == 5
    assert num_params(p) == 3 * 2 * 3 + 3 + 2 * 15 + 2


def test_attention_matches_loop_implementation():
    att = SoftmaxAttention(seq_len=4, dim=3, num_outputs=2, activation="sigmoid")
    p = att.init(seed=5)
    X = torch.randn(2, 4, 3, dtype=DT)
    out = att.apply(p, X)
    for i in range(2):
        Q, K, V = X[i] @ p["Wq"], X[i] @ p["Wk"], X[i] @ p["Wv"]
        rows = []
        for t in range(4):
            w = torch.exp(Q[t] @ K.T / math.sqrt(3))
            rows.append((w / w.sum()) @ V)
        pooled = torch.sigmoid(torch.stack(rows)).mean(0)
        torch.testing.assert_close(out[i], pooled @ p["Wo"].T + p["bo"])


def test_attention_is_permutation_invariant_over_tokens():
    att = SoftmaxAttention(seq_len=5, dim=2, num_outputs=3)
    p = att.init(seed=0)
    X = torch.randn(3, 5, 2, dtype=DT)
    perm = torch.tensor([4, 2, 0, 1, 3])
    torch.testing.assert_close(att.apply(p, X), att.apply(p, X[:, perm]))


@pytest.mark.parametrize("kwargs, match", [
    (dict(sizes=(2, 1)), "sizes"),
    (dict(sizes=(2, 0, 1)), r"sizes\[1\]"),
    (dict(sizes=(2, 3, -1)), r"sizes\[2\]"),
    (dict(sizes="abc"), "sizes"),
])
def test_mlp_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MLP(**kwargs)


def test_cnn_bad_inputs():
    with pytest.raises(ValueError, match="kernel_size"):
        CNN(in_channels=1, length=3, channels=2, kernel_size=4, num_outputs=2)
    with pytest.raises(ValueError, match="channels"):
        CNN(in_channels=1, length=5, channels=0, kernel_size=3, num_outputs=2)
    with pytest.raises(ValueError, match="num_outputs"):
        CNN(in_channels=1, length=5, channels=2, kernel_size=3, num_outputs=1.5)


def test_attention_bad_inputs():
    with pytest.raises(ValueError, match="seq_len"):
        SoftmaxAttention(seq_len=0, dim=2, num_outputs=2)
    with pytest.raises(ValueError, match="dim"):
        SoftmaxAttention(seq_len=2, dim=-1, num_outputs=2)


def test_init_bad_inputs():
    net = MLP(sizes=(2, 3, 1))
    with pytest.raises(ValueError, match="scale"):
        net.init(seed=0, scale=0.0)
    with pytest.raises(TypeError, match="dtype"):
        net.init(seed=0, dtype=torch.int64)
