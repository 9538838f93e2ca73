import pytest
import torch

from algorithms.unlearning import DeepLinear, LinearModel, TwoLayerPerceptron, effective_predictor

F64 = torch.float64


def test_linear_model_is_theta_transpose_x():
    model = LinearModel(4, seed=3)
    X = torch.randn(6, 4, dtype=F64)
    expected = X @ model.weight.detach()[0]
    assert torch.allclose(model(X)[:, 0], expected)
    assert torch.equal(effective_predictor(model), model.weight.detach()[0])


def test_deep_linear_forward_is_the_matrix_product_and_order_is_the_papers():
    model = DeepLinear(5, (4, 3, 2), seed=1)
    assert [n for n, _ in model.named_parameters()] == ["c", "A1", "A2", "A3"]
    assert model.depth == 4 and model.A1.shape == (4, 5) and model.A3.shape == (2, 3)
    assert model.c.shape == (2,)
    X = torch.randn(7, 5, dtype=F64)
    manual = X @ model.A1.T @ model.A2.T @ model.A3.T @ model.c
    assert torch.allclose(model(X)[:, 0], manual.detach())
    w = (model.A1.T @ model.A2.T @ model.A3.T @ model.c).detach()
    assert torch.allclose(effective_predictor(model), w)


def test_two_layer_perceptron_sums_neurons():
    model = TwoLayerPerceptron(2, 5, activation="silu", seed=0)
    X = torch.randn(3, 2, dtype=F64)
    manual = sum(model.c[i] * torch.nn.functional.silu(X @ model.A[i]) for i in range(5))
    assert torch.allclose(model(X)[:, 0], manual.detach())


def test_seeded_initialization_and_dtype():
    a, b = DeepLinear(3, (2,), seed=7), DeepLinear(3, (2,), seed=7)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(DeepLinear(3, (2,), seed=8).A1, a.A1)
    assert LinearModel(3, dtype=torch.float32).weight.dtype == torch.float32


def test_forward_checks_dtype():
    with pytest.raises(TypeError, match="dtype"):
        LinearModel(2)(torch.ones(1, 2, dtype=torch.float32))
