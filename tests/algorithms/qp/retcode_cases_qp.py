"""Retcode contract cases for (QP, DQP); ``tests/test_contract.py`` runs them.

* ``MaxIters``: osqp capped at one iteration (``maxiters=1``) stops before its tolerance.
* ``Infeasible`` / ``Unbounded``: decided by dQP's own two LPs, whatever the backend says.
* ``Failure``: a backend answer that fails the KKT check (osqp at 1e-3 with both polishes
  off; issue #21's wrong HiGHS answer is pinned in ``test_kkt_check.py``).

No ``Diverged`` case: dQP is not an iteration of its own that could blow up. A backend's
non-finite x counts as "no solution" and goes to the Infeasible/Unbounded LPs (then
``Failure``), and the polish is a direct solve of a finite system (a singular K_J takes the
least-squares path), so the ``Diverged`` branch is only reachable through a broken linear
algebra library.
"""

import numpy as np

from algorithms import RetCode
from algorithms.qp import DQP, QP
from tests.retcodes import RetcodeCase
from theorems.strategies import make_qp_instance


def _capped_osqp():
    inst = make_qp_instance(2, n=8, n_eq=0, n_ineq=8, n_active=3)
    return QP(P=inst.P, q=inst.q, G=inst.G, h=inst.h), DQP(backend="osqp"), {"maxiters": 1}


def _infeasible():
    G = np.array([[1.0, 0.0], [-1.0, 0.0]])
    return QP(P=np.eye(2), q=np.zeros(2), G=G, h=np.array([-1.0, -1.0])), DQP(), {}


def _unbounded():
    qp = QP(P=np.diag([1.0, 0.0]), q=np.array([0.0, -1.0]), G=np.array([[1.0, 0.0]]), h=np.ones(1))
    return qp, DQP(backend="clarabel"), {}


def _loose_unpolished():
    # osqp at 1e-3 without either polish: its x is off by ~1e-4, so the KKT check (1e-6) rejects it
    inst = make_qp_instance(6, n=5, n_eq=0, n_ineq=4, n_active=2)
    loose = {"eps_abs": 1e-3, "eps_rel": 1e-3, "polish": False}
    alg = DQP(backend="osqp", polish=False, backend_options=loose)
    return QP(P=inst.P, q=inst.q, G=inst.G, h=inst.h), alg, {}


CASES = [
    RetcodeCase("dqp-osqp-capped", _capped_osqp, RetCode.MaxIters),
    RetcodeCase("dqp-infeasible", _infeasible, RetCode.Infeasible),
    RetcodeCase("dqp-unbounded", _unbounded, RetCode.Unbounded),
    RetcodeCase("dqp-answer-fails-kkt-check", _loose_unpolished, RetCode.Failure),
]
