"""Unit tests of the predictors against direct computations."""

import math

import pytest
import torch

from algorithms.attention import (
    ErfAttention,
    SingleLocationProblem,
    SoftmaxAttention,
    best_linear_risk,
    best_linear_weights,
    fit_linear_predictor,
    sample_batch,
)

torch.set_num_threads(1)


@pytest.mark.parametrize("link", ["linear", "quadratic", "relu"])
def test_softmax_attention_matches_loop(link):
    model = SoftmaxAttention(5, beta=0.7, link=link, seed=1)
    X = torch.randn(3, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = model(X).detach()
    sigma = {"linear": lambda t: t, "quadratic": lambda t: t * t, "relu": lambda t: max(t, 0.0)}[link]
    for i in range(3):
        logits = [0.7 * math.sqrt(5) * float(X[i, j] @ model.u.detach()) for j in range(4)]
        top = max(logits)
        weights = [math.exp(a - top) for a in logits]
        values = [sigma(float(X[i, j] @ model.v.detach())) for j in range(4)]
        expected = sum(w * value for w, value in zip(weights, values)) / sum(weights)
        assert abs(float(out[i, 0]) - expected) < 1e-12
    assert model.in_features == 5 and model.out_features == 1


def test_softmax_attention_is_a_hard_argmax_at_large_beta():
    model = SoftmaxAttention(4, beta=1e4, seed=2)
    X = torch.randn(6, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    chosen = (X @ model.u.detach()).argmax(1)
    values = (X @ model.v.detach())[torch.arange(6), chosen]
    torch.testing.assert_close(model(X)[:, 0].detach(), values)


def test_erf_attention_matches_formula():
    model = ErfAttention(3, lam=0.4, seed=0)
    X = torch.randn(2, 4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    for i in range(2):
        k, v = model.k.detach(), model.v.detach()
        expected = sum(math.erf(0.4 * float(X[i, j] @ k)) * float(X[i, j] @ v) for j in range(4))
        assert abs(float(model(X)[i, 0]) - expected) < 1e-12


def test_models_are_seeded_unit_parameters():
    a, b = SoftmaxAttention(6, seed=3), SoftmaxAttention(6, seed=3)
    assert torch.equal(a.u, b.u) and abs(float(a.u.norm()) - 1) < 1e-12 and abs(float(a.v.norm()) - 1) < 1e-12
    assert not torch.equal(a.u, SoftmaxAttention(6, seed=4).u)


def test_best_linear_predictor_against_least_squares():
    p = SingleLocationProblem(d=4, L=3, gamma=0.6)
    X, y, _ = sample_batch(p, 60000, seed=4)
    flat = X.reshape(X.shape[0], -1)
    w_hat = torch.linalg.lstsq(flat, y[:, None]).solution[:, 0]
    # 12 coefficients from 6e4 draws: standard errors ~ γ/√n ≈ 0.003
    torch.testing.assert_close(w_hat, best_linear_weights(p).reshape(-1), atol=0.015, rtol=0)
    X_test, y_test, _ = sample_batch(p, 60000, seed=5)
    risk = float(((X_test.reshape(60000, -1) @ best_linear_weights(p).reshape(-1) - y_test) ** 2).mean())
    # the squared error has sd ~ 0.5 here: standard error 0.002
    assert abs(risk - best_linear_risk(p)) < 0.01
    assert best_linear_risk(p) >= 0.36 / 1.36


def test_fit_linear_predictor_recovers_an_affine_map():
    X = torch.randn(40, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    w = torch.arange(6, dtype=torch.float64)
    predict = fit_linear_predictor(X, X.reshape(40, -1) @ w - 2.0)
    X_new = torch.randn(5, 2, 3, dtype=torch.float64)
    torch.testing.assert_close(predict(X_new), X_new.reshape(5, -1) @ w - 2.0)
