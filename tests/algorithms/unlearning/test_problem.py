import numpy as np
import torch

from algorithms.unlearning import (
    DeepLinear,
    LinearModel,
    TwoLayerPerceptron,
    UnlearningProblem,
    forget_split,
    retrained_min_norm,
)

F64 = torch.float64


def test_forget_split_partitions_rows():
    X = torch.arange(12, dtype=F64).reshape(6, 2)
    y = torch.arange(6, dtype=F64)
    (_, yr), (Xf, yf) = forget_split(X, y, forget=[4, 1])
    assert yr[:, 0].tolist() == [0, 2, 3, 5] and yf[:, 0].tolist() == [1, 4]
    assert torch.equal(Xf, X[[1, 4]])


def test_dict_params_flatten_in_registration_order():
    model = DeepLinear(3, (2,), seed=0)
    params = {"A1": torch.full((2, 3), 2.0), "c": torch.tensor([1.0, -1.0])}
    one = (torch.ones(1, 3), torch.ones(1))
    prob = UnlearningProblem(model, params, one, one)
    assert prob.params.tolist() == [1.0, -1.0] + [2.0] * 6
    assert prob.dtype == torch.float32  # float32 data kept


def test_loss_and_jacobian_match_hand_computations():
    model = TwoLayerPerceptron(2, 3, activation="tanh", seed=0)
    rng = np.random.default_rng(0)
    X, y = torch.from_numpy(rng.standard_normal((4, 2))), torch.from_numpy(rng.standard_normal(4))
    theta = torch.from_numpy(rng.standard_normal(9))
    prob = UnlearningProblem(model, theta, (X, y), (X[:1], y[:1]))
    c, A = theta[:3], theta[3:].reshape(3, 2)
    pred = torch.tanh(X @ A.T) @ c
    assert torch.allclose(prob.loss(theta, prob.retain), ((pred - y) ** 2).mean())
    jac = prob.jacobian(theta, X)
    # ∂f/∂c = φ(Ax), ∂f/∂A_ij = c_i φ'(a_i·x) x_j
    assert torch.allclose(jac[:, :3], torch.tanh(X @ A.T))
    dA = (c * (1 - torch.tanh(X @ A.T) ** 2))[:, :, None] * X[:, None, :]
    assert torch.allclose(jac[:, 3:], dA.reshape(4, 6))


def test_retrained_min_norm_is_numpys_least_norm_solution():
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((3, 7)), rng.standard_normal(3)
    prob = UnlearningProblem(LinearModel(7), np.ones(7), (X, y), (X[:1], y[:1]))
    expected = np.linalg.lstsq(X, y, rcond=None)[0]
    np.testing.assert_allclose(retrained_min_norm(prob).numpy(), expected, atol=1e-12)
    network = UnlearningProblem(TwoLayerPerceptron(7, 2), np.ones(16), (X, y), (X, y))
    assert retrained_min_norm(network) is None
