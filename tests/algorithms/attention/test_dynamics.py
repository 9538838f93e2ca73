"""Unit tests of the overlap dynamics: the hand-derived velocity against autograd on vectors."""

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.attention import (
    OverlapFlow,
    SingleLocationProblem,
    mean_field_risk,
    overlap_velocity,
    overlaps,
    vectors_with_overlaps,
)

torch.set_num_threads(1)


def _autograd_velocity(problem, u, v):
    """d/dt of the overlaps under −P⊥∇ of R̄(μ(u), ν(v), ζ(v), ρ = 0) computed by torch.autograd."""
    u_star, v_star = problem.oracle()
    u = u.clone().requires_grad_(True)
    v = v.clone().requires_grad_(True)
    risk = mean_field_risk(problem, u @ u_star, v @ v_star, v @ u_star, None, frozen_limit=True)
    g_u, g_v = torch.autograd.grad(risk, (u, v))
    du = -(g_u - (u @ g_u) * u)
    dv = -(g_v - (v @ g_v) * v)
    du, dv = du.detach(), dv.detach()
    return np.array([float(du @ u_star), float(dv @ v_star), float(du @ v_star), float(dv @ u_star)])


@pytest.mark.parametrize("target", [dict(mu=0.4, nu=0.2, zeta=0.3, eta=-0.2, rho=0.1),
                                    dict(mu=-0.3, nu=0.8, zeta=-0.1, eta=0.4, rho=0.0),
                                    dict(mu=0.6, nu=-0.5, zeta=0.0, eta=0.0, rho=0.2)])
def test_velocity_matches_autograd(target):
    p = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5)
    u, v = vectors_with_overlaps(p, **target)
    state = [target["mu"], target["nu"], target["eta"], target["zeta"]]
    np.testing.assert_allclose(overlap_velocity(p, state), _autograd_velocity(p, u, v), atol=1e-12)


def test_corners_are_stationary_and_manifold_invariant():
    p = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5)
    for mu in (-1.0, 1.0):
        for nu in (-1.0, 1.0):
            assert np.abs(overlap_velocity(p, [mu, nu, 0.0, 0.0])).max() < 1e-14
    velocity = overlap_velocity(p, [0.3, -0.2, 0.0, 0.0])
    assert velocity[2] == 0.0 and velocity[3] == 0.0 and np.abs(velocity[:2]).max() > 0


def test_overlap_flow_reaches_the_oracle_and_traces():
    p = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5)
    sol = solve(p, OverlapFlow(lr=0.05), seed=1, store_trace=True)
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, [1.0, 1.0, 0.0, 0.0], atol=1e-5)
    assert sol.trace[0]["iteration"] == 0 and sol.trace[-1]["risk"] < sol.trace[0]["risk"]
    u0 = vectors_with_overlaps(p, mu=0.1, nu=0.2)[0]
    start = solve(SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5, u0=u0.numpy(), v0=u0.numpy()),
                  OverlapFlow(), maxiters=0)
    assert start.retcode is RetCode.MaxIters
    assert abs(start.x[0] - overlaps(u0, u0, *p.oracle())["mu"]) < 1e-12


def test_overlap_flow_diverges_with_a_huge_step():
    p = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5)
    sol = solve(p, OverlapFlow(lr=100.0), seed=0)
    assert sol.retcode is RetCode.Diverged and sol.value == float("inf")


def test_overlap_flow_is_not_success_on_the_unlocated_plateau():
    # frozen instance, start with p(μ) ≈ 1e-10: the raw speed (~1e-9) is below tol, but no stationary point
    problem = SingleLocationProblem(d=60, L=404, gamma=0.6)
    start = solve(problem, OverlapFlow(lr=0.05), seed=0, maxiters=0).x
    assert float(np.abs(overlap_velocity(problem, list(start))).max()) < 1e-8
    sol = solve(problem, OverlapFlow(lr=0.05), seed=0, maxiters=300)
    assert sol.retcode is RetCode.MaxIters


def test_overlap_flow_keeps_overlaps_of_unit_vectors_from_the_edge_of_m():
    """From μ0 = -1 on M the η-direction of the ODE is unstable; the flow must still keep μ² + η² <= 1
    (before the fix a round-off η grew to 1.5 with μ = -1 and the run ended Diverged)."""
    problem = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5, oracle_seed=6)
    u0, v0 = vectors_with_overlaps(problem, mu=-1.0, nu=0.3, zeta=0.0, eta=0.0, rho=0.0)
    start = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5, oracle_seed=6, u0=u0.numpy(), v0=v0.numpy())
    sol = solve(start, OverlapFlow(lr=0.4), maxiters=20000, tol=1e-10, store_trace=True)
    path = np.array([[r["mu"], r["nu"], r["eta"], r["zeta"]] for r in sol.trace])
    assert (path[:, 0] ** 2 + path[:, 2] ** 2).max() <= 1 + 1e-12
    assert (path[:, 1] ** 2 + path[:, 3] ** 2).max() <= 1 + 1e-12
    assert sol.retcode is RetCode.Success
    assert np.allclose(sol.x, [1.0, 1.0, 0.0, 0.0], atol=1e-6)
