"""The deep-AUC minimax task: the closed-form inner maximizer and Danskin's gradient."""

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.hierarchical import AdaMinimax, ScoreNet, auc_minimax


def test_score_net_shapes_and_seeded_init():
    a, b = ScoreNet(3, 4, seed=1), ScoreNet(3, 4, seed=1)
    X = torch.ones(2, 3, dtype=torch.float64)
    assert torch.equal(a(X), b(X)) and a(X).shape == (2, a.out_features)


def test_grad_phi_is_danskin_at_the_root_of_the_dual_gradient():
    prob = auc_minimax(n_samples=60, in_features=3, hidden=4, seed=2)
    x = prob.x0 + 0.1
    everything = _AllRows(60)
    # ∂_α f(x, α) on the full data is affine in α: its root from two evaluations is α*(x)
    g0 = prob.grad(x, np.array([0.0]), everything)[1][0]
    g1 = prob.grad(x, np.array([1.0]), everything)[1][0]
    alpha_star = g0 / (g0 - g1)
    assert g1 < g0  # strongly concave in α
    danskin = prob.grad(x, np.array([alpha_star]), everything)[0]
    np.testing.assert_allclose(prob.grad_phi(x), danskin, atol=1e-12)


def test_grad_phi_matches_finite_differences():
    prob = auc_minimax(n_samples=50, in_features=2, hidden=3, seed=3)
    x = prob.x0 + 0.05
    h = 1e-6
    for i in (0, 5, x.size - 1):
        e = np.zeros(x.size)
        e[i] = h
        fd = (prob.phi(x + e) - prob.phi(x - e)) / (2 * h)
        assert prob.grad_phi(x)[i] == pytest.approx(fd, abs=1e-6)


def test_minibatch_gradient_is_unbiased_for_the_full_gradient():
    prob = auc_minimax(n_samples=40, in_features=2, hidden=3, batch_size=8, seed=4)
    x, y = prob.x0, np.array([0.3])
    rng = np.random.default_rng(0)
    draws = np.array([prob.grad(x, y, rng)[0] for _ in range(400)])
    full = prob.grad(x, y, _AllRows(40))[0]
    # each entry of the mean of 400 minibatch gradients is within 5 standard errors of the full one
    standard_error = draws.std(axis=0) / np.sqrt(400)
    assert np.all(np.abs(draws.mean(axis=0) - full) <= 5 * standard_error + 1e-12)


class _AllRows(np.random.Generator):
    """A generator whose ``integers`` returns every row once (the full batch); a Generator subclass, as
    the built-in oracle checks its ``rng``."""

    def __init__(self, n):
        super().__init__(np.random.PCG64(0))
        self.n = n

    def integers(self, low, high, size):
        return np.arange(self.n)


def test_adaminimax_decreases_the_auc_stationarity():
    prob = auc_minimax(n_samples=80, seed=0)
    # the dual step must be large enough for α to track α*(x) (modulus 2p(1 − p) = 0.18 only)
    sol = solve(prob, AdaMinimax(lr_x=0.05, lr_y=1.0), maxiters=60, tol=1e-12)
    norms = sol.original["grad_phi_norm"]
    assert norms[-10:].mean() < 0.5 * norms[0]
    assert sol.value < prob.phi(prob.x0)
