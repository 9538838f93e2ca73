import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.unlearning import (
    MinNormOG,
    UnlearningProblem,
    linear_task,
    orthogonal_gradient_step,
    retrained_min_norm,
    strength_schedule,
    two_layer_task,
)

F64 = torch.float64


def test_step_keeps_the_gradient_span_and_shrinks_the_rest():
    rng = np.random.default_rng(0)
    G = torch.from_numpy(rng.standard_normal((2, 5)))
    theta = torch.from_numpy(rng.standard_normal(5))
    Q, _ = np.linalg.qr(G.numpy().T)
    inside = Q @ (Q.T @ theta.numpy())
    for lam in (0.0, 1.0, 4.0):
        step = orthogonal_gradient_step(theta, G, lam).numpy()
        np.testing.assert_allclose(step, inside + lam / (1 + lam) * (theta.numpy() - inside), atol=1e-12)
    assert torch.equal(orthogonal_gradient_step(theta, G, math.inf), theta)


def test_linear_lambda_zero_is_the_retained_min_norm_in_one_projection():
    prob = linear_task(n=7, d=15, n_forget=3, seed=4)
    sol = solve(prob, MinNormOG(), store_trace=True)
    expected = np.linalg.lstsq(prob.retain[0].numpy(), prob.retain[1][:, 0].numpy(), rcond=None)[0]
    assert sol.retcode is RetCode.Success and sol.stats.iterations == 2 and sol.stats.projections == 2
    np.testing.assert_allclose(sol.x.numpy(), expected, atol=1e-12)
    assert sol.stats.distance_to_retrain < 1e-12 and sol.stats.retain_loss < 1e-20
    assert sol.stats.forget_loss > 1e-3  # the forget points are no longer fitted


def test_positive_lambda_contracts_the_orthogonal_part_geometrically():
    prob = linear_task(n=4, d=9, n_forget=1, seed=0)
    target = retrained_min_norm(prob)
    sol = solve(prob, MinNormOG(lambda_schedule=3.0), maxiters=5)
    assert sol.retcode is RetCode.MaxIters
    expected = target + (3.0 / 4.0) ** 5 * (prob.params - target)
    assert torch.allclose(sol.x, expected, atol=1e-12)


def test_infinite_lambda_is_plain_descent_and_schedule_is_followed():
    prob = linear_task(n=4, d=9, n_forget=1, seed=0)
    moved = UnlearningProblem(prob.model, prob.params + 0.3, prob.retain, prob.forget)
    sol = solve(moved, MinNormOG(lambda_schedule=(math.inf,), lr=0.1), maxiters=1)
    theta = moved.params.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(moved.loss(theta, moved.retain), theta)
    assert torch.allclose(sol.x, moved.params - 0.1 * grad) and sol.stats.projections == 0
    algo = MinNormOG(lambda_schedule=(0.0, math.inf, 2.0))
    assert [algo.lam(t) for t in range(5)] == [0.0, math.inf, 2.0, 2.0, 2.0]


def test_strength_schedule_matches_the_appendix_recursion():
    schedule = strength_schedule(0.2, 0.5, 6, period=2, final_descent=2)
    # λ0 = 1/0.2 − 1 = 4 (removes 0.2 of P⊥θ), next removes 0.1: λ1 = 9, each the float nearest the exact
    # value for the float 0.2 (round 14: correctly rounded, 3.9999999999999996 = 1/fl(0.2) − 1 rounded once)
    lam0 = Fraction(1) / Fraction(0.2) - 1
    lam1 = (lam0 + 1) / Fraction(0.5) - 1
    assert schedule == (float(lam0), math.inf, float(lam1), math.inf, math.inf, math.inf)
    assert [1 / (1 + lam) for lam in schedule[:3:2]] == pytest.approx([0.2, 0.1], rel=1e-15)


def test_n_pert_subsamples_under_the_seed():
    prob = two_layer_task(8, 2, 20, 2, seed=1)
    algo = MinNormOG(lambda_schedule=1.0, n_pert=2)
    first, again = solve(prob, algo, maxiters=2, seed=5), solve(prob, algo, maxiters=2, seed=5)
    other = solve(prob, algo, maxiters=2, seed=6)
    assert torch.equal(first.x, again.x) and not torch.equal(first.x, other.x)


def test_a_still_descent_epoch_does_not_stop_before_a_scheduled_projection():
    # at an interpolator a pure descent epoch does not move θ; Success must wait for the projection
    prob = linear_task(n=6, d=10, n_forget=2, seed=0)
    sol = solve(prob, MinNormOG(lambda_schedule=(math.inf, 0.0)))
    assert sol.retcode is RetCode.Success and sol.stats.projections >= 1
    assert torch.allclose(sol.x, retrained_min_norm(prob), atol=1e-10)
    schedule = strength_schedule(0.5, 0.5, 6, period=2, final_descent=1)
    sol = solve(prob, MinNormOG(lambda_schedule=schedule, lr=0.01))
    assert sol.retcode is RetCode.Success and sol.stats.projections == 3
    assert not MinNormOG(lambda_schedule=(1.0, math.inf)).projects_after(0)
    assert MinNormOG(lambda_schedule=(math.inf, 1.0)).projects_after(5)
