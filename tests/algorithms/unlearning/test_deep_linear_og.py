import numpy as np
import torch

from algorithms import RetCode, solve
from algorithms.unlearning import (
    DeepLinear,
    DeepLinearOG,
    balanced_factorization,
    deep_linear_task,
    effective_predictor,
    lemma1_perturbation,
)


def _target(prob):
    return np.linalg.lstsq(prob.retain[0].numpy(), prob.retain[1][:, 0].numpy(), rcond=None)[0]


def test_relaxed_solve_recovers_the_min_norm_predictor_moving_only_a1():
    prob = deep_linear_task(5, 9, (4, 3), 2, seed=3)
    sol = solve(prob, DeepLinearOG())
    assert sol.retcode is RetCode.Success
    w = effective_predictor(prob.model, prob.unflatten(sol.x)).numpy()
    np.testing.assert_allclose(w, _target(prob), atol=1e-10)
    moved = (sol.x - prob.params).abs()
    assert float(moved[:3].max()) == 0.0 and float(moved[3 + 36:].max()) == 0.0  # c and A2 untouched


def test_lemma1_perturbation_is_feasible_and_exact():
    prob = deep_linear_task(4, 8, (3,), 1, seed=0)
    delta = lemma1_perturbation(prob)
    gradients = prob.jacobian(prob.params, prob.retain[0])
    assert float((gradients @ delta).abs().max()) < 1e-12
    w = effective_predictor(prob.model, prob.unflatten(prob.params + delta)).numpy()
    np.testing.assert_allclose(w, _target(prob), atol=1e-10)


def test_balanced_factorization_reaches_L_rho_to_the_2_over_L():
    net = DeepLinear(4, (3, 2, 2), seed=0)
    w = torch.tensor([1.0, -2.0, 0.5, 2.0], dtype=torch.float64)
    theta = balanced_factorization(net, w)
    rho = float(w.norm())
    params = dict(zip(["c", "A1", "A2", "A3"], torch.split(theta, [2, 12, 6, 4])))
    params = {"c": params["c"], "A1": params["A1"].reshape(3, 4), "A2": params["A2"].reshape(2, 3),
              "A3": params["A3"].reshape(2, 2)}
    assert torch.allclose(effective_predictor(net, params), w)
    assert abs(float(theta @ theta) - 4 * rho ** 0.5) < 1e-12


def test_parameter_complexity_keeps_the_predictor():
    prob = deep_linear_task(4, 7, (3, 3), 1, seed=2)
    sol = solve(prob, DeepLinearOG(complexity="parameter"))
    w = effective_predictor(prob.model, prob.unflatten(sol.x)).numpy()
    np.testing.assert_allclose(w, _target(prob), atol=1e-10)
    assert abs(float(sol.x @ sol.x) - 3 * np.linalg.norm(_target(prob)) ** (2 / 3)) < 1e-10
