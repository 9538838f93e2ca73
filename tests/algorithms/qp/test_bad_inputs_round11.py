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


def test_data_written_in_place_after_construction_is_validated_again():
    """red11a: qp.P.data[0] = -5 on a stored sparse P made P indefinite and the solve answered Success at a
    saddle point; a dense in-place edit met a message naming the cached 'cholesky'. The arrays are read-only
    since round 18; one replaced by hand (object.__setattr__) is still validated again by the solve."""
    import scipy.sparse as sp

    qp = QP(P=sp.csc_matrix(np.eye(2)), q=-np.ones(2))
    with pytest.raises(ValueError, match="read-only"):
        qp.P.data[0] = -5.0
    qp = QP(P=np.eye(2), q=-np.ones(2), G=np.eye(2), h=np.ones(2))
    with pytest.raises(ValueError, match="read-only"):
        qp.h[0] = np.nan
    object.__setattr__(qp, "h", np.array([np.nan, 1.0]))  # past the read-only copy: checked at the solve
    with pytest.raises(ValueError, match=r"QP\.h was changed.*\bh contains NaN"):
        solve(qp, DQP())
    algorithm = DQP(backend="clarabel")
    algorithm.backend_options["max_iter"] = -5
    with pytest.raises(ValueError, match=r"DQP\.backend_options was changed.*backend_options\['max_iter'\]"):
        solve(_qp(), algorithm)


def test_backend_option_values_are_checked():
    """red11a: DQP(backend="clarabel", backend_options={"max_iter": -5}) or {"tol_gap_abs": "1e-8"} solved to
    Success (the names were checked, not the values)."""
    with pytest.raises(ValueError, match=r"backend_options\['max_iter'\] must be a finite number >= 0"):
        DQP(backend="clarabel", backend_options={"max_iter": -5})
    with pytest.raises(TypeError, match=r"backend_options\['tol_gap_abs'\] must be a number"):
        DQP(backend="clarabel", backend_options={"tol_gap_abs": "1e-8"})
    with pytest.raises(TypeError, match=r"backend_options\['verbose'\] = 'yes' is not a valid clarabel"):
        DQP(backend="clarabel", backend_options={"verbose": "yes"})
    with pytest.raises(ValueError, match=r"backend_options\['eps_abs'\] must be a finite number >= 0"):
        DQP(backend="osqp", backend_options={"eps_abs": -1.0})


def test_multipliers_and_options_of_the_public_helpers_are_checked():
    from algorithms.core import SolveOptions
    from algorithms.qp import kkt_residuals

    qp = QP(P=2 * np.eye(2), q=np.zeros(2), G=np.array([[-1.0, -1.0]]), h=np.array([-1.0]))
    with pytest.raises(ValueError, match=r"z_box must be None \(or empty\): the QP has no variable bounds"):
        kkt_residuals(qp, np.array([0.5, 0.5]), None, np.ones(1), np.ones(2))
    with pytest.raises(ValueError, match=r"\bbackend must be None or one of the installed"):
        DQP().backend_kwargs(SolveOptions(), backend="nope")
    with pytest.raises(TypeError, match=r"\boptions must be an algorithms\.core\.SolveOptions"):
        DQP().backend_kwargs(None)


def test_callback_is_called_once_after_the_one_pass_run():
    """red11a found a True ignored mid-run; round 16: dQP runs in one pass (backend, fallbacks, polish), so,
    as every one-pass method, it calls the callback once with the final record and a True changes nothing
    (a True after the backend stage had let the polish run on and called the callback again)."""
    seen = []
    sol = solve(_qp(), DQP(), callback=lambda record: seen.append(record) or True)
    assert sol.retcode.value == "Success" and len(seen) == 1 and seen[0]["stage"] == "done"
    assert seen[0]["retcode"] == "Success"
    assert solve(_qp(), DQP(), callback=lambda record: None).retcode.value == "Success"


def test_unpickled_qp_is_not_rebuilt_at_its_first_solve():
    """The array stamps of the revalidation hashed the dtype's str (salted per process): an unpickled QP
    looked changed in another process. The stamps are deterministic CRCs of the data, shape and dtype text."""
    import pickle
    import subprocess
    import sys

    from algorithms._validation import _crc

    code = "import numpy as np; from algorithms._validation import _crc; print(_crc(np.arange(3.0)))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == _crc(np.arange(3.0))
    qp = pickle.loads(pickle.dumps(_qp()))
    cholesky = qp.cholesky
    solve(qp, DQP())
    assert qp.cholesky is cholesky  # not rebuilt


def test_qp_function_apply_checks_its_arguments():
    """QPFunction (public) applied directly skipped qp_layer's checks: algorithm=None met AttributeError
    ('NoneType' object has no attribute 'abs_tol'), a list q another AttributeError."""
    import torch

    from algorithms.core import SolveOptions
    from algorithms.qp.layer import QPFunction

    P, q = torch.eye(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"\balgorithm must be an algorithms\.qp\.DQP"):
        QPFunction.apply(None, SolveOptions(), P, q, None, None, None, None)
    with pytest.raises(TypeError, match=r"\boptions must be an algorithms\.core\.SolveOptions"):
        QPFunction.apply(DQP(), None, P, q, None, None, None, None)
    with pytest.raises(TypeError, match=r"\bq must be a torch tensor"):
        QPFunction.apply(DQP(), SolveOptions(), P, [1.0, 1.0], None, None, None, None)


def test_objects_set_after_construction_are_checked():
    """Held-out first run: QPSolution.x/y set to NaN beside Success or to a str were kept; KKTFactor.n = "3",
    singular = "no", method = 3 and QPLayer.symmetrize = "no" were stored."""
    from algorithms.qp import KKTFactor, QPLayer

    sol = solve(_qp(), DQP())
    with pytest.raises(ValueError, match=r"\bx must be finite with retcode Success"):
        sol.x = np.array([np.nan, 1.0])
    with pytest.raises(TypeError, match=r"\by must be None or a real 1-D numpy array"):
        sol.y = "abc"
    factor = KKTFactor(np.eye(2), np.ones((1, 2)))
    with pytest.raises(ValueError, match=r"\bsingular is fixed by the KKTFactor's factorization"):
        factor.singular = "no"
    layer = QPLayer()
    with pytest.raises(TypeError, match=r"\bsymmetrize must be a bool"):
        layer.symmetrize = "no"
