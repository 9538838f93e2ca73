"""Round 16: dQP end to end against references (known answers by brute force)."""

import itertools

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP


def _brute_force(P, q, G, h):
    """The exact answer of a strictly convex QP by enumerating active sets (KKT: feasible, mu >= 0)."""
    n, m = len(q), len(h)
    for r in range(m + 1):
        for J in itertools.combinations(range(m), r):
            C = G[list(J)]
            K = np.block([[P, C.T], [C, np.zeros((r, r))]])
            sol = np.linalg.solve(K, np.concatenate([-q, h[list(J)]]))
            x, mu = sol[:n], sol[n:]
            if np.all(G @ x <= h + 1e-9) and np.all(mu >= -1e-9):
                return x
    raise AssertionError("no active set")


@pytest.mark.parametrize("scale", [1.0, 1e-30, 1e30])
@pytest.mark.parametrize("trial", range(6))
def test_success_matches_brute_force(trial, scale):
    rng = np.random.default_rng(trial)
    n, m = 3, 4
    M = rng.standard_normal((n, n))
    P, q = M @ M.T + 0.1 * np.eye(n), rng.standard_normal(n)
    G = rng.standard_normal((m, n))
    h = G @ rng.standard_normal(n) + rng.random(m)
    ref = _brute_force(P, q, G, h)
    sol = solve(QP(P=P * scale, q=q * scale, G=G, h=h), DQP())
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())


def test_lb_above_ub_by_rounding_shows_the_values():
    """":g" printed "lb[0] = 0.2 > ub[0] = 0.2" for a bound 1e-7 above the other (gradcheck's step)."""
    with pytest.raises(ValueError, match=r"lb must be <= ub, got lb\[0\] = 0\.2000001 > ub\[0\] = 0\.2"):
        QP(P=np.eye(2), q=np.zeros(2), lb=[0.2000001, 0.0], ub=[0.2, 1.0])


@pytest.mark.parametrize("backend", ["auto", "clarabel", "proxqp", "piqp"])
def test_tiny_bounds_are_met_exactly(backend):
    """Bounds ±1e-30 beside q ~ 1 (P = 1.2e-38 I: x* = clip(−q/p) = ±1e-30) came back Success at x = ±5e-11,
    outside the box by 5e19 times its width: the check's residuals are absolute below unit scale. The answer
    is now clipped into [lb, ub]."""
    qp = QP(P=np.diag([1.2e-38, 1.2e-38]), q=np.array([-1.0, 1.0]), lb=np.full(2, -1e-30),
            ub=np.full(2, 1e-30))
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode is RetCode.Success
    assert sol.x.tolist() == [1e-30, -1e-30]


@pytest.mark.parametrize("scale_q", [1.0, 1e10, 3.4e38])
def test_a_box_far_below_the_objective_scale_gives_its_corner_or_no_success(scale_q):
    """sweep3 (round 16): P = 1.2e-38·I, q = ±3.4e38 and the box [-1, 1]² ended Success at x = 0: the
    equilibrated copy (x-scale 1e76) shrank the box below its resolution. A copy's Success is now also checked
    in the caller's units; failing it, the QP is solved as given, which finds the corner x* = (-1, 1)."""
    qp = QP(P=1.2e-38 * np.eye(2), q=np.array([scale_q, -scale_q]), lb=-np.ones(2), ub=np.ones(2))
    sol = solve(qp, DQP())
    assert sol.retcode is RetCode.Success, sol.retcode
    np.testing.assert_allclose(sol.x, [-1.0, 1.0], atol=1e-9)
