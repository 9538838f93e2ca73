"""Ada-Minimax against a hand-written reimplementation of Algorithm 1 and its parameter rules."""

import math

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.hierarchical import AdaMinimax, ada_parameters, synthetic_minimax
from algorithms.hierarchical.ada_minimax import momentum_update


def test_parameters_match_the_formulas():
    alpha_t, lr_x, lr_y = ada_parameters(9, 8.0, 4.0, 15.0, lr_x=2.0, lr_y=3.0, alpha=2.0, gamma=1.0)
    assert alpha_t == pytest.approx(1 / math.sqrt(1 + 8.0 / 4.0))
    assert lr_x == pytest.approx(2.0 * math.sqrt(1 / math.sqrt(1 + 4.0 / 4.0)) / 3.0)
    assert lr_y == pytest.approx(3.0 / math.sqrt(1 + 15.0))


def test_momentum_update():
    g = np.array([2.0, -1.0])
    assert momentum_update(None, g, 0.3) is g
    np.testing.assert_allclose(momentum_update(np.array([1.0, 1.0]), g, 0.25), [1.25, 0.5])


def _reference(prob, algo, T, seed):
    """Algorithm 1 written out independently, drawing the same noise in the same order."""
    rng = np.random.default_rng(seed)
    x, y = prob.x0.copy(), prob.y0.copy()
    m, S, Sy, xs = None, 0.0, 0.0, []
    for t in range(1, T + 1):
        xs.append(x.copy())
        gx, gy = prob.oracle(x, y, rng)
        gx2, _ = prob.oracle(x, y, rng)
        S_prev, S = S, S + float(np.sum((gx - gx2) ** 2))
        Sy += float(np.sum(gy**2))
        a = 1 / math.sqrt(1 + S / algo.alpha**2)
        a_prev = 1 / math.sqrt(1 + S_prev / algo.alpha**2)
        m = gx if m is None else (1 - a) * m + a * gx
        x = x - algo.lr_x * math.sqrt(a_prev) / math.sqrt(t) * m / np.linalg.norm(m)
        y = y + algo.lr_y / math.sqrt(algo.gamma**2 + Sy) * gy
    return np.array(xs), x


@pytest.mark.parametrize("sigma", [0.0, 2.0])
def test_iterates_match_the_reference(sigma):
    prob = synthetic_minimax(sigma, "sphere", coupling=0.7)
    algo = AdaMinimax(lr_x=1.0, lr_y=2.0, alpha=1.5, gamma=0.5)
    sol = solve(prob, algo, maxiters=50, tol=1.2e-38, seed=4, store_trace=True)
    xs, x_end = _reference(prob, algo, 50, seed=4)
    np.testing.assert_allclose(sol.x, x_end, rtol=1e-12)
    np.testing.assert_allclose([r["x"][0] for r in sol.trace], xs[:, 0], rtol=1e-12)
    np.testing.assert_allclose(sol.original["grad_phi_norm"], np.abs(0.49 * xs[:, 0] - np.sin(xs[:, 0])),
                               rtol=1e-12)


def test_noiseless_run_has_unit_momentum_weight_and_normalized_gd_steps():
    prob = synthetic_minimax(coupling=0.7)
    sol = solve(prob, AdaMinimax(), maxiters=30, tol=1.2e-38, store_trace=True)
    assert all(r["alpha_t"] == 1.0 for r in sol.trace)
    steps = np.abs(np.diff([r["x"][0] for r in sol.trace]))
    np.testing.assert_allclose(steps, 3.0 / np.sqrt(np.arange(1, 30)), rtol=1e-12)


def test_noise_estimate_tracks_two_sigma_squared():
    prob = synthetic_minimax(1.5, "sphere", coupling=0.7)
    sol = solve(prob, AdaMinimax(), maxiters=4000, tol=1.2e-38, store_trace=True)
    # ‖g − g̃‖² ∈ {0, 4σ²} with probability ½ each in 1-D: mean 2σ²t, sd σ²·2√t
    assert sol.trace[-1]["noise_sum"] / (2 * 1.5**2 * 4000) == pytest.approx(1.0, abs=0.05)


def test_converges_and_reports_success_with_finite_iterate():
    sol = solve(synthetic_minimax(coupling=0.7), AdaMinimax(lr_x=1.0), tol=1e-2)
    assert sol.retcode is RetCode.Success
    assert sol.original["grad_phi_norm"][-1] <= 1e-2 and np.all(np.isfinite(sol.x))
    assert abs(0.49 * sol.x[0] - math.sin(sol.x[0])) <= 1e-2
    assert sol.value == pytest.approx(math.cos(sol.x[0]) + 0.245 * sol.x[0] ** 2)
    assert sol.stats.grad_calls == 2 * sol.stats.iterations


def test_minimizer_reached_is_stationary_and_y_tracks_y_star():
    sol = solve(synthetic_minimax(coupling=0.7), AdaMinimax(lr_x=1.0), maxiters=8000, tol=1.2e-38)
    norms = sol.original["grad_phi_norm"]
    # the normalized step of size lr_x/√t keeps x within ~L·lr_x/√T of a stationary point
    assert norms[-500:].max() < 0.03
    assert abs(sol.original["y"][0] - 0.7 * sol.x[0]) < 0.05
