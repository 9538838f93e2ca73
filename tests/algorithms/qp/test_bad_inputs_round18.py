"""#43 round 18 of algorithms.qp: a QP's arrays are read-only, as every problem's (README "The interface")."""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP


def _qps():
    box = dict(lb=np.array([-1.0, -np.inf]), ub=np.array([1.0, 0.5]))
    dense = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-np.eye(2), h=np.zeros(2), A=np.ones((1, 2)),
               b=np.ones(1), **box)
    sparse = QP(P=sp.csc_matrix(np.eye(2)), q=np.array([1.0, -1.0]), G=sp.csc_matrix(-np.eye(2)),
                h=np.zeros(2), A=sp.csc_matrix(np.ones((1, 2))), b=np.ones(1), **box)
    return [dense, sparse, pickle.loads(pickle.dumps(dense)), copy.deepcopy(sparse), dense.with_box_rows()]


def _buffers(value):
    if sp.issparse(value):
        return [value.data, value.indices, value.indptr]
    return [value]


@pytest.mark.parametrize("index", range(5))
@pytest.mark.parametrize("name", ["P", "q", "G", "h", "A", "b", "lb", "ub", "cholesky"])
def test_every_array_of_a_qp_is_read_only(index, name):
    """heldout17: writes into qp.P and qp.q after construction were taken (the README documented them as the
    one writeable exception, validated again at the next solve); now they fail in the caller's statement, also
    on a pickled or deep-copied QP (numpy gives arrays back writeable) and on with_box_rows()."""
    value = getattr(_qps()[index], name)
    if value is None:
        return
    for buffer in _buffers(value):
        with pytest.raises(ValueError, match="read-only"):
            buffer[0] = 7
        with pytest.raises(ValueError, match="WRITEABLE"):
            buffer.setflags(write=True)


@pytest.mark.parametrize("backend", ["clarabel", "daqp", "osqp", "piqp"])
@pytest.mark.parametrize("index", range(4))
def test_read_only_qps_still_solve_with_every_backend(index, backend):
    """daqp's buffers refuse read-only memory: the backends get writeable copies. x* = (-1, 0.5) clipped to
    the box is not feasible for x1 + x2 = 1 with -x <= 0: x* = (0.5, 0.5) minimizes over the feasible set."""
    qp = _qps()[index]
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, [0.5, 0.5], atol=1e-6)


@pytest.mark.parametrize("name", ["symetrize", "algorithmm", "tolerance"])
def test_qp_layer_refuses_a_misspelt_attribute(name):
    # red18a: L.symetrize = True was stored beside symmetrize and ignored
    from algorithms.qp import QPLayer

    layer = QPLayer()
    with pytest.raises(ValueError, match=f"takes no attribute '{name}'"):
        setattr(layer, name, True)
    layer.symmetrize = True
    layer.tol = 1e-6
    assert layer.symmetrize is True and name not in vars(layer)


def test_pickled_qp_solution_is_checked_again():
    # a QPSolution edited through __dict__ (z of the wrong sign beside Success) came back unchecked from
    # pickle
    sol = solve(QP(P=np.eye(2), q=np.array([-2.0, 0.0]), G=np.array([[1.0, 0.0]]), h=np.array([1.0])),
                DQP(backend="daqp"))
    assert pickle.loads(pickle.dumps(sol)).retcode is RetCode.Success
    sol.__dict__["z"] = np.array([-5.0])
    with pytest.raises(ValueError, match="z must be >= 0"):
        pickle.loads(pickle.dumps(sol))


@pytest.mark.parametrize("name", ["y", "z", "active"])
@pytest.mark.parametrize("made", ["solved", "pickled"])
def test_qp_solution_multipliers_and_masks_are_read_only(name, made):
    # sol.active[0] = False in place changed the G/h derivatives vjp returned; z[0] = -5 broke Success's
    # z >= 0
    qp = QP(P=np.eye(2), q=np.array([-2.0, 0.0]), G=np.array([[1.0, 0.0], [0.0, -1.0]]),
            h=np.array([1.0, 1.0]), A=np.array([[0.0, 1.0]]), b=np.array([0.0]))
    sol = solve(qp, DQP(backend="daqp"))
    reference = sol.vjp(np.ones(2))
    if made == "pickled":
        sol = pickle.loads(pickle.dumps(sol))
    array = getattr(sol, name)
    with pytest.raises(ValueError, match="read-only"):
        array[0] = False if array.dtype == bool else -5.0
    with pytest.raises(ValueError, match="WRITEABLE"):
        array.flags.writeable = True
    again = sol.vjp(np.ones(2))
    assert all(np.array_equal(again[k], reference[k]) for k in reference if reference[k] is not None)


@pytest.mark.parametrize("sparse", [False, True])
def test_kkt_factor_matrices_are_immutable(sparse):
    # kkt.P.flags.writeable = True let the matrix be edited behind the factorization
    P = sp.csc_matrix(np.eye(2)) if sparse else np.eye(2)
    sol = solve(QP(P=P, q=np.array([-2.0, 0.0]), G=np.array([[1.0, 0.0]]), h=np.array([1.0])),
                DQP(backend="clarabel"))
    for buffer in _buffers(sol.kkt.P):
        with pytest.raises(ValueError, match="WRITEABLE"):
            buffer.flags.writeable = True


@pytest.mark.parametrize("name", ["lb", "ub"])
def test_a_bool_among_bound_entries_is_refused(name):
    # red18c's class: lb = [True, 0.0] was read as [1.0, 0.0] (q, P and a bool array were refused by name)
    with pytest.raises(TypeError, match=f"{name} must hold numbers, got the bool"):
        QP(P=np.eye(2), q=np.zeros(2), **{name: [True, 0.0] if name == "lb" else [2.0, np.True_]})
