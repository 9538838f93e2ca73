"""#43 round 10 (pre-audit sweep) of algorithms.qp: the dual residual's floor max(1, ‖z‖∞), documented on
``kkt_residuals`` (below unit scale the residuals are absolute)."""

import numpy as np
import pytest

from algorithms.qp import QP, kkt_residuals


def test_dual_residual_floor_is_the_documented_one():
    qp = QP(P=np.eye(2), q=np.zeros(2), G=np.eye(2), h=np.ones(2))
    x = np.zeros(2)
    # below unit scale: absolute (the docstring's example)
    assert kkt_residuals(qp, x, None, np.array([1e-12, -1e-9]))["dual"] == pytest.approx(1e-9)
    # above: relative to the largest multiplier
    assert kkt_residuals(qp, x, None, np.array([1e9, -1.0]))["dual"] == pytest.approx(1e-9)
    assert "floor 1" in kkt_residuals.__doc__


def test_layer_failure_is_a_value_error_naming_the_arguments():
    """An unsolvable QP in the layer raised a bare RuntimeError naming no argument (tol = 1e-300, an
    infeasible pair of rows): QPLayerError is a RuntimeError (as documented) and a ValueError."""
    import torch

    from algorithms.qp import DQP, QPLayer, qp_layer
    from algorithms.qp.layer import QPLayerError

    P, q = torch.eye(2, dtype=torch.float64), -torch.ones(2, dtype=torch.float64)
    G = torch.tensor([[1.0, 0.0], [-1.0, 0.0]], dtype=torch.float64)
    h = torch.tensor([-1.0, -1.0], dtype=torch.float64)  # x1 <= -1 and x1 >= 1
    with pytest.raises(ValueError, match=r"Infeasible: the constraints G, h"):
        qp_layer(P, q, G, h, algorithm=DQP(backend="clarabel"))
    with pytest.raises(QPLayerError, match=r"\btol\b"):
        QPLayer(DQP(backend="clarabel"), tol=1.2e-38)(P, q, G[:1], h[:1] * -1)
    assert issubclass(QPLayerError, RuntimeError)


def test_kkt_factor_takes_matrix_and_refuses_masked_entries():
    """np.matrix / masked P reached numpy's 'max() got an unexpected keyword argument initial'."""
    from algorithms.qp import KKTFactor

    K, C = np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([[1.0, 1.0]])
    expected = KKTFactor(K, C).solve(np.ones(3))
    assert np.allclose(KKTFactor(np.asmatrix(K), np.asmatrix(C)).solve(np.ones(3)), expected)
    assert np.allclose(KKTFactor(np.ma.masked_array(K), C).solve(np.ones(3)), expected)
    with pytest.raises(ValueError, match=r"\bP has 1 masked"):
        KKTFactor(np.ma.masked_array(K, mask=[[True, False], [False, False]]), C)


def test_hand_built_qp_solution_checked():
    """A QPSolution built by hand stored y = 'abc', a non-boolean active mask, degenerate = 'no' and a
    Success with a NaN x as given."""
    from algorithms.core import RetCode
    from algorithms.qp import QPSolution

    base = {"x": np.zeros(2), "value": 0.0, "retcode": RetCode.Success}
    with pytest.raises(ValueError, match=r"\bx must be finite with retcode Success"):
        QPSolution(**{**base, "x": np.array([np.nan, 0.0])})
    with pytest.raises(TypeError, match=r"\by must be None or a real 1-D"):
        QPSolution(**base, y="abc")
    with pytest.raises(TypeError, match=r"\bactive must be None or a 1-D boolean"):
        QPSolution(**base, active=np.array([0.5]))
    with pytest.raises(TypeError, match=r"\bdegenerate must be a bool"):
        QPSolution(**base, degenerate="no")
    with pytest.raises(TypeError, match=r"\bwarnings must be a list of str"):
        QPSolution(**base, warnings="abc")
    failed = QPSolution(**{**base, "x": np.array([np.nan, 0.0]), "retcode": "Failure"})
    assert failed.retcode is RetCode.Failure


def test_length_mismatches_name_both_sides():
    """x of the wrong length for kkt_residuals said 'x must have shape (2,)' without naming the QP's n."""
    from algorithms.qp import QP, kkt_residuals

    qp = QP(P=np.eye(2), q=np.zeros(2), G=np.eye(2), h=np.ones(2))
    with pytest.raises(ValueError, match=r"\bx must have shape \(2,\) \(one entry per variable: qp\.n = 2\)"):
        kkt_residuals(qp, np.zeros(3), None, np.zeros(2))
    with pytest.raises(ValueError, match=r"\bz must have shape \(2,\) \(.*qp\.n_ineq = 2\)"):
        kkt_residuals(qp, np.zeros(2), None, np.zeros(3))


def test_hand_built_qp_stats_checked():
    from algorithms.qp.dqp import QPStats

    with pytest.raises(ValueError, match=r"\bstationarity must be a residual >= 0"):
        QPStats(stationarity=-1.0)
    with pytest.raises(TypeError, match=r"\babsolute must be None or the dict"):
        QPStats(absolute="x")
    stats = QPStats(absolute={"primal": 0.0, "dual": 1e-9, "gap": float("inf")})
    assert stats.absolute["gap"] == float("inf")


def test_data_written_after_construction_rechecked_at_solve():
    """Held-out round 10 (first run, core): q set to NaN through object.__setattr__ on a frozen QP reached
    scipy.linprog's error naming nothing."""
    from algorithms import solve
    from algorithms.qp import DQP, QP

    qp = QP(P=np.eye(2), q=np.ones(2))
    object.__setattr__(qp, "q", np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match=r"QP\.q was changed.*\bq contains NaN"):
        solve(qp, DQP())
    assert solve(QP(P=np.eye(2), q=np.ones(2), lb=np.array([-np.inf, 0.0])), DQP()).retcode.value == "Success"


def test_kkt_factor_without_variables_named():
    from algorithms.qp import KKTFactor

    with pytest.raises(ValueError, match=r"\bP must be at least 1×1"):
        KKTFactor(np.zeros((0, 0)))
