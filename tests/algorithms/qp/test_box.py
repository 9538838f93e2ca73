"""Variable bounds lb ≤ x ≤ ub: values, duals' layout and gradients against finite differences."""

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP, kkt_residuals


def _box_qp(seed: int, sparse: bool = False):
    """P ≻ 0, one inequality row and bounds with some sides infinite; q pushes some bounds active."""
    rng = np.random.default_rng(seed)
    n = 6
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    data = {"P": P, "q": 3 * rng.standard_normal(n), "G": rng.standard_normal((1, n)), "h": np.array([2.0]),
            "lb": np.where(rng.random(n) < 0.8, -0.3 - rng.random(n), -np.inf),
            "ub": np.where(rng.random(n) < 0.8, 0.3 + rng.random(n), np.inf)}
    if sparse:
        data.update(P=sp.csc_matrix(P), G=sp.csc_matrix(data["G"]))
    return data


def _rows_qp(data):
    """The same QP with the finite bounds written as rows of G (the reference)."""
    n = data["q"].size
    G = [np.asarray(sp.csc_matrix(data["G"]).toarray())]
    h = [data["h"]]
    for sign, bound in ((-1.0, data["lb"]), (1.0, data["ub"])):
        idx = np.flatnonzero(np.isfinite(bound))
        G.append(sign * np.eye(n)[idx])
        h.append(sign * bound[idx])
    P = data["P"].toarray() if sp.issparse(data["P"]) else data["P"]
    return QP(P=P, q=data["q"], G=np.vstack(G), h=np.concatenate(h))


@pytest.mark.parametrize("backend", ["daqp", "clarabel", "piqp", "osqp", "quadprog", "proxqp", "scs"])
@pytest.mark.parametrize("sparse", [False, True])
def test_box_values_and_duals_match_the_rows_form(backend, sparse):
    for seed in range(3):
        data = _box_qp(seed, sparse)
        qp = QP(**data)
        sol = solve(qp, DQP(backend=backend))
        ref = solve(_rows_qp(data), DQP(backend="daqp"))
        assert sol.retcode is RetCode.Success and ref.retcode is RetCode.Success
        np.testing.assert_allclose(sol.x, ref.x, atol=1e-7)
        n = qp.n
        assert sol.z.shape == (1,) and sol.z_box.shape == (n,) and sol.active_box.shape == (n,)
        # the residual of Px + q + Gᵀz + z_box (qpsolvers' convention) and the signs of z_box
        P = data["P"].toarray() if sparse else data["P"]
        G = data["G"].toarray() if sparse else data["G"]
        assert np.abs(P @ sol.x + data["q"] + G.T @ sol.z + sol.z_box).max() < 1e-7
        assert np.all(sol.z_box[sol.x > data["lb"] + 1e-6] >= -1e-9)
        assert np.all(sol.z_box[sol.x < data["ub"] - 1e-6] <= 1e-9)
        assert max(kkt_residuals(qp, sol.x, sol.y, sol.z, sol.z_box).values()) < 1e-6


@pytest.mark.parametrize("sparse", [False, True])
def test_box_gradients_match_central_differences(sparse):
    # central differences on the non-degenerate planted QPs; x* is piecewise affine in (q, h, lb, ub), so
    # the difference is exact up to round-off away from a change of active set: 1e-6 absolute
    eps = 1e-6
    for seed in range(3):
        data = _box_qp(seed, sparse)
        alg = DQP(backend="daqp")
        sol = solve(QP(**data), alg)
        assert sol.retcode is RetCode.Success and not sol.degenerate, sol.warnings
        assert sol.active_box.any()
        rng = np.random.default_rng(100 + seed)
        g = rng.standard_normal(sol.x.size)
        grads = sol.vjp(g)
        for name in ("q", "h", "lb", "ub", "P", "G"):
            base = data[name]
            dense = base.toarray() if sp.issparse(base) else np.asarray(base)
            V = rng.standard_normal(dense.shape)
            if name == "P":
                V = V + V.T
            V = np.where(np.isfinite(dense), V, 0.0)
            loss = []
            for s in (1.0, -1.0):
                moved = np.where(np.isfinite(dense), dense + s * eps * V, dense)
                value = sp.csc_matrix(moved) if sp.issparse(base) else moved
                loss.append(g @ solve(QP(**{**data, name: value}), alg).x)
            fd = (loss[0] - loss[1]) / (2 * eps)
            grad = grads[name]
            grad = grad.toarray() if sp.issparse(grad) else grad
            if sp.issparse(base):  # sparse inputs get gradients on their pattern only
                V = np.where(dense != 0, V, 0.0)
                loss = []
                for s in (1.0, -1.0):
                    loss.append(g @ solve(QP(**{**data, name: sp.csc_matrix(dense + s * eps * V)}), alg).x)
                fd = (loss[0] - loss[1]) / (2 * eps)
            an = float(np.sum(grad * V))
            assert abs(an - fd) <= 1e-6 + 1e-5 * abs(fd), (seed, name, an, fd)


def test_bounds_validation_names_the_argument():
    with pytest.raises(ValueError, match="lb must have shape"):
        QP(P=np.eye(2), q=np.zeros(2), lb=np.zeros(3))
    with pytest.raises(ValueError, match="lb must be <= ub"):
        QP(P=np.eye(2), q=np.zeros(2), lb=np.ones(2), ub=np.zeros(2))
    with pytest.raises(ValueError, match="ub contains NaN"):
        QP(P=np.eye(2), q=np.zeros(2), ub=np.array([np.nan, 1.0]))
    assert not QP(P=np.eye(2), q=np.zeros(2), lb=np.full(2, -np.inf)).has_box


def test_fixed_variables_are_equality_rows_with_gradients():
    # lb_i = ub_i: an equality row, not two opposite bound rows (whose K_J is singular and whose
    # least-squares multipliers are split into a negative one, rejecting the polish)
    data = _box_qp(1)
    data["lb"][2] = data["ub"][2] = 0.1
    qp = QP(**data)
    assert qp.fixed_indices().tolist() == [2]
    for backend in ("daqp", "piqp", "scs"):
        sol = solve(qp, DQP(backend=backend))
        assert sol.retcode is RetCode.Success and not any("polish rejected" in w for w in sol.warnings)
        assert sol.x[2] == pytest.approx(0.1, abs=1e-12) and sol.active_box[2]
        assert max(kkt_residuals(qp, sol.x, sol.y, sol.z, sol.z_box).values()) < 1e-9
    sol = solve(qp, DQP(backend="daqp"))
    g = np.random.default_rng(0).standard_normal(qp.n)
    grads = sol.vjp(g)
    eps = 1e-6  # x* moves with the common value of lb_2 = ub_2: central differences of both together
    moved = [g @ solve(QP(**{**data, "lb": data["lb"] + s * eps * np.eye(6)[2],
                               "ub": data["ub"] + s * eps * np.eye(6)[2]}), DQP(backend="daqp")).x
             for s in (1.0, -1.0)]
    assert grads["lb"][2] == pytest.approx((moved[0] - moved[1]) / (2 * eps), abs=1e-6)
    assert grads["lb"][2] == grads["ub"][2]


@pytest.mark.parametrize("side", ["lb", "ub"])
def test_one_sided_bounds_with_equalities(side):
    # upper bounds only (lb None) with equality rows raised TypeError in QP.with_box_rows (it read lb[F]
    # for the empty set of fixed variables); found by dqp.variable_bounds, mutation round 9
    bound = np.array([np.inf, 0.3]) if side == "ub" else np.array([-np.inf, 0.8])
    qp = QP(P=np.eye(2), q=-np.ones(2), A=np.array([[1.0, 0.0]]), b=np.array([0.5]), **{side: bound})
    sol = solve(qp, DQP(backend="daqp"))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, [0.5, 0.3 if side == "ub" else 1.0], atol=1e-12)
    assert sol.active_box.tolist() == [False, side == "ub"]
