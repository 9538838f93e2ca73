"""``DQP(abs_tol=...)``: qpbenchmark's absolute criterion as an extra condition of ``Success`` (issue #42).

The relative check (``kkt_tol``) stays the default; ``abs_tol`` asks the backend for absolute tolerances
with the relative ones off and returns ``Success`` only when :func:`absolute_residuals` (qpsolvers'
definitions, on the caller's QP with its bounds) are all within ``abs_tol``.
"""

import numpy as np
import pytest
import qpsolvers

from algorithms import RetCode, solve
from algorithms.core import SolveOptions
from algorithms.qp import DQP, QP, absolute_residuals
from algorithms.qp import dqp as dqp_module


def _box_qp(scale: float = 1.0) -> QP:
    """A small QP with an inequality, an equality and bounds (an active upper bound), data times ``scale``."""
    return QP(P=scale * np.diag([2.0, 1.0, 1.0]), q=scale * np.array([-1.0, 0.5, -3.0]),
              G=scale * np.array([[1.0, 1.0, 0.0]]), h=scale * np.array([1.5]),
              A=scale * np.array([[1.0, 0.0, 1.0]]), b=scale * np.array([1.0]),
              lb=np.array([0.0, -np.inf, -1.0]), ub=np.array([np.inf, 0.8, 0.5]))


def _qpsolvers_residuals(qp: QP, sol) -> tuple[float, float, float]:
    problem = qpsolvers.Problem(qp.P, qp.q, qp.G, qp.h, qp.A, qp.b, qp.lb, qp.ub)
    ref = qpsolvers.Solution(problem)
    ref.found, ref.x, ref.y, ref.z, ref.z_box = True, sol.x, sol.y, sol.z, sol.z_box
    return ref.primal_residual(), ref.dual_residual(), ref.duality_gap()


@pytest.mark.parametrize("backend", ["auto", "clarabel", "piqp", "daqp"])
def test_absolute_residuals_are_qpsolvers_own(backend):
    qp = _box_qp()
    sol = solve(qp, DQP(backend=backend, abs_tol=1e-9))
    assert sol.retcode is RetCode.Success
    ours = absolute_residuals(qp, sol.x, sol.y, sol.z, sol.z_box)
    assert tuple(ours.values()) == pytest.approx(_qpsolvers_residuals(qp, sol), abs=1e-15)
    assert max(ours.values()) <= 1e-9 and max(sol.stats.absolute.values()) <= 1e-9


def test_absolute_residuals_see_a_wrong_point():
    qp = _box_qp()
    x = np.array([0.5, 0.8, 0.6])  # x_3 above its bound 0.5 by 0.1, A x − b = 0.1
    res = absolute_residuals(qp, x, np.zeros(1), np.zeros(1), np.zeros(3))
    assert res["primal"] == pytest.approx(0.1)
    assert res["dual"] == pytest.approx(np.abs(qp.P @ x + qp.q).max())
    with pytest.raises(ValueError, match="z_box is required"):
        absolute_residuals(qp, x, np.zeros(1), np.zeros(1))
    with pytest.raises(TypeError, match="qp must be"):
        absolute_residuals("qp", x, None, None)


def test_a_point_within_the_relative_but_not_the_absolute_tolerance_is_failure(monkeypatch):
    """Data of size 1e7 (as QFORPLAN): a backend point off by 1e-3 passes kkt_tol = 1e-6 (relative) but not
    abs_tol = 1e-9; the polish is disabled so that the backend's point is what is checked."""
    scale = 1e7
    qp = QP(P=scale * np.eye(2), q=-scale * np.ones(2))
    x_exact = np.ones(2)

    def slightly_off(problem, solver, **kwargs):
        sol = qpsolvers.Solution(problem)
        sol.found, sol.x = True, x_exact + 1e-10
        return sol

    monkeypatch.setattr(dqp_module.qpsolvers, "solve_problem", slightly_off)
    relative = solve(qp, DQP(backend="clarabel", polish=False))
    assert relative.retcode is RetCode.Success  # 1e-10 relative
    absolute = solve(qp, DQP(backend="clarabel", polish=False, abs_tol=1e-9))
    assert absolute.retcode is RetCode.Failure and np.all(np.isnan(absolute.x))
    assert absolute.stats.absolute["dual"] == pytest.approx(scale * 1e-10, rel=1e-6)
    assert any("abs_tol 1e-09" in w for w in absolute.warnings)


def test_absolute_backend_keywords():
    options = SolveOptions()
    kw = DQP(abs_tol=1e-9).backend_kwargs(options, "piqp")
    assert kw["eps_abs"] == 1e-9 and kw["eps_rel"] == 0.0 and kw["eps_duality_gap_abs"] == 1e-9
    assert kw["check_duality_gap"] is True
    # a loose abs_tol never loosens the backend: its default (1e-9 for clarabel) is kept
    kw = DQP(abs_tol=1.0).backend_kwargs(options, "clarabel")
    assert kw == {"tol_feas": 1e-9, "tol_gap_abs": 1e-9, "tol_gap_rel": 0.0}
    assert DQP(abs_tol=1e-9).backend_kwargs(SolveOptions(tol=1e-7), "osqp")["eps_abs"] == 1e-7
    assert DQP(abs_tol=1e-9).backend_kwargs(options, "daqp") == {"primal_tol": 1e-9}
    assert DQP(abs_tol=1e-9).backend_kwargs(SolveOptions(maxiters=5), "piqp")["max_iter"] == 5
    user = DQP(abs_tol=1e-9, backend_options={"eps_abs": 1e-8})
    assert user.backend_kwargs(options, "piqp")["eps_abs"] == 1e-8


@pytest.mark.parametrize("bad", [0.0, -1e-9, float("nan"), float("inf")])
def test_abs_tol_is_validated(bad):
    with pytest.raises(ValueError, match="abs_tol"):
        DQP(abs_tol=bad)
