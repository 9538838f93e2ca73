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
