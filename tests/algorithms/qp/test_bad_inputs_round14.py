"""Round 14: dQP's refine_active on a singular K_J with no active row, and the sign of a solved record's z."""

import warnings

import numpy as np
import pytest

from algorithms import solve
from algorithms.core import RetCode
from algorithms.qp import DQP, QP


@pytest.mark.parametrize("kw", [
    # P singular to K_J's tolerance, no row active: numpy's "attempt to get argmin of an empty sequence"
    dict(P=np.diag([1e-20, 1.0]), q=np.array([-1e-20, 1.0]), G=np.array([[1.0, 0.0]]), h=np.array([0.5])),
    dict(P=np.zeros((2, 2)), q=np.array([0.0, 1.0]), G=-np.eye(2), h=np.zeros(2)),
])
def test_refine_active_on_a_singular_reduced_system(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(QP(**kw), DQP(backend="clarabel", refine_active=True))
    assert sol.retcode is RetCode.Success
    assert np.all(kw["G"] @ sol.x <= kw["h"] + 1e-7)


@pytest.mark.parametrize("z", [np.array([-1.0]), np.array([-1e-3])])
def test_solved_record_refuses_a_dual_of_the_wrong_sign(z):
    qp = QP(P=2 * np.eye(2), q=np.zeros(2), G=np.array([[-1.0, -1.0]]), h=np.array([-1.0]))
    sol = solve(qp, DQP())
    with pytest.raises(ValueError, match=r"^z must be >= 0 with retcode Success"):
        sol.z = z
    sol.z = np.array([1e-9])  # a multiplier within the dual tolerance is kept
    assert sol.z[0] == 1e-9


@pytest.mark.parametrize("scale", [1e15, 2.0**64, 1e30, 1e36])
def test_objective_far_above_unit_scale_solved_exactly(scale):
    # P, q ×1e30 beside unit-scale rows: K_J's rows read as singular next to P, the polish dropped them and
    # clarabel's point 1.3e-5 off x* = (0, 0) came back Success
    P, q = np.array([[5.0, -2.0], [-2.0, 6.0]]), np.array([-4.0, -4.0])
    qp = QP(P=P * scale, q=q * scale, G=np.array([[-3.0, -3.0], [2.0, 2.0]]), h=np.array([1.0, 0.0]),
            lb=np.array([0.0, -1.0]), ub=np.array([1.5, 1.5]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(qp, DQP())
    assert sol.retcode is RetCode.Success
    assert np.max(np.abs(sol.x)) <= 1e-9


@pytest.mark.parametrize("scale", [1e-8, 1e-20])
def test_tiny_objective_fallback_judged_in_unit_scale(scale):
    # the equilibrated copy failed (highs), the QP solved as given passed its floor-1 (absolute) stationarity
    # with any x: Success at a point 5.7 (relative) off x* (red14a)
    rng = np.random.default_rng(2)
    for _ in range(5):
        M = rng.standard_normal((3, 3))
        P, q = M @ M.T + 0.1 * np.eye(3), rng.standard_normal(3)
        G, h = rng.standard_normal((4, 3)), rng.standard_normal(4) + 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = solve(QP(P=P, q=q, G=G, h=h), DQP(backend="clarabel")).x
        sol = solve(QP(P=P * scale, q=q * scale, G=G, h=h), DQP(backend="highs"))
    assert sol.retcode is not RetCode.Success or np.max(np.abs(sol.x - exact)) <= 1e-6 * np.max(np.abs(exact))



@pytest.mark.parametrize("kw, expected", [
    # bounds of 2**64 set d; they must not trigger the huge-objective equilibration (x* was lost: (-1, -1))
    (dict(P=np.eye(2), q=np.array([1.0, -1.0]), lb=[-2**64, -1.0], ub=[2**64, 2**64]), [-1.0, 1.0]),
    # a stiff P beside a unit q: solved as given after its copy fails
    (dict(P=np.diag([3.4e38, 1.0]), q=np.array([1.0, 1.0])), [-1.0 / 3.4e38, -1.0]),
])
def test_equilibration_keeps_the_unit_scale_answers(kw, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(QP(**kw), DQP())
    assert sol.retcode is RetCode.Success
    assert np.allclose(sol.x, expected, rtol=1e-9, atol=0.0)


def test_a_huge_objective_whose_minimizer_leaves_the_range_is_a_failure():
    sol = solve(QP(P=np.array([[1e-30]]), q=np.array([-1e30])), DQP(backend="daqp"))
    assert sol.retcode is RetCode.Failure
    assert "leaves the package's working range" in sol.warnings[0]
