"""SGDA and TiAda against hand-written iterations."""

import math

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.hierarchical import SGDA, TiAda, synthetic_minimax


def test_sgda_iterates():
    prob = synthetic_minimax(0.5, "gaussian", coupling=0.7)
    sol = solve(prob, SGDA(lr_x=0.1, lr_y=0.4), maxiters=20, tol=1.2e-38, seed=1)
    rng = np.random.default_rng(1)
    x, y = prob.x0.copy(), prob.y0.copy()
    for _ in range(20):
        gx, gy = prob.oracle(x, y, rng)
        x, y = x - 0.1 * gx, y + 0.4 * gy
    np.testing.assert_allclose(sol.x, x, rtol=1e-12)
    np.testing.assert_allclose(sol.original["y"], y, rtol=1e-12)


def test_tiada_iterates():
    prob = synthetic_minimax(0.5, "gaussian", coupling=0.7)
    algo = TiAda(lr_x=0.8, lr_y=0.6, alpha=0.7, beta=0.3)
    sol = solve(prob, algo, maxiters=20, tol=1.2e-38, seed=2)
    rng = np.random.default_rng(2)
    x, y, vx, vy = prob.x0.copy(), prob.y0.copy(), 1.0, 1.0
    for _ in range(20):
        gx, gy = prob.oracle(x, y, rng)
        vx, vy = vx + float(gx @ gx), vy + float(gy @ gy)
        x, y = x - 0.8 / max(vx, vy) ** 0.7 * gx, y + 0.6 / vy**0.3 * gy
    np.testing.assert_allclose(sol.x, x, rtol=1e-12)


@pytest.mark.parametrize("algo", [SGDA(lr_x=0.2, lr_y=0.5), TiAda()])
def test_noiseless_convergence_to_a_stationary_point(algo):
    sol = solve(synthetic_minimax(coupling=math.sqrt(0.5)), algo, tol=1e-6, maxiters=100_000)
    assert sol.retcode is RetCode.Success
    assert abs(0.5 * sol.x[0] - math.sin(sol.x[0])) <= 1e-6


def test_sgda_tuned_without_noise_stalls_with_noise():
    prob0 = synthetic_minimax(coupling=math.sqrt(0.5))
    prob = synthetic_minimax(100.0, "sphere", coupling=math.sqrt(0.5))
    algo = SGDA(lr_x=0.2, lr_y=0.5)
    quiet = solve(prob0, algo, maxiters=2000, tol=1.2e-38).original["grad_phi_norm"]
    loud = solve(prob, algo, maxiters=2000, tol=1.2e-38).original["grad_phi_norm"]
    assert quiet[-100:].mean() < 1e-6 and loud[-1000:].mean() > 1.0
