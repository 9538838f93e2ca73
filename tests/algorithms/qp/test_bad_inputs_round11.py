"""#43 round 11 (pre-audit sweep) of algorithms.qp: a frozen QP or DQP changed after construction through
``object.__setattr__`` was solved as it was: a non-PSD P met a message naming the internal 'cholesky', a q of
another length one naming 'rhs', lb > ub answered Infeasible, a negative kkt_tol was used."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.qp import DQP, QP


def _qp():
    return QP(P=np.eye(2), q=np.array([-1.0, -1.0]), G=np.eye(2), h=np.full(2, 0.5))


def test_qp_fields_changed_after_construction_are_validated_again():
    qp = _qp()
    object.__setattr__(qp, "P", -np.eye(2))
    with pytest.raises(ValueError, match=r"QP\.P was changed.*positive semidefinite"):
        solve(qp, DQP())
    qp = _qp()
    object.__setattr__(qp, "q", np.ones(3))
    with pytest.raises(ValueError, match=r"QP\.q was changed.*\bq must have shape"):
        solve(qp, DQP())
    qp = QP(P=np.eye(2), q=np.zeros(2), lb=np.zeros(2), ub=np.ones(2))
    object.__setattr__(qp, "lb", np.full(2, 2.0))
    with pytest.raises(ValueError, match=r"QP\.lb was changed.*lb must be <= ub"):
        solve(qp, DQP())


def test_dqp_fields_changed_after_construction_are_validated_again():
    algorithm = DQP()
    object.__setattr__(algorithm, "kkt_tol", -1.0)
    with pytest.raises(ValueError, match=r"DQP\.kkt_tol was changed.*kkt_tol"):
        solve(_qp(), algorithm)


def test_valid_change_is_adopted_with_its_derived_data():
    qp = _qp()
    object.__setattr__(qp, "P", 4.0 * np.eye(2))  # the cached Cholesky factor is rebuilt for the new P
    sol = solve(qp, DQP())
    assert sol.retcode.successful
    np.testing.assert_allclose(sol.x, [0.25, 0.25], atol=1e-6)
