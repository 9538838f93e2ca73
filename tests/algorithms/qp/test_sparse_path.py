"""Issue #42: the backend-answer fallback, the sparse PSD check, the regularized sparse KKT solve and
sparse data for sparse backends (no test reads the Maros-Meszaros files)."""

import numpy as np
import pytest
import qpsolvers
import scipy.sparse as sp

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP, KKTFactor
from algorithms.qp import dqp as dqp_module
from theorems.strategies import make_qp_instance


class _RejectingPolish(DQP):
    """Every polish is rejected: the backend's point and multipliers must then be checked as they are."""

    def _accept_polish(self, primal_violation, negative_multiplier, tol) -> bool:
        return False


def test_a_rejected_polish_keeps_all_the_backends_multipliers():
    # eps_active = 1e-12 reads no row as active at clarabel's interior point (slacks ~1e-10): the old
    # fallback kept multipliers on J = ∅ only and failed stationarity on a right answer
    inst = make_qp_instance(5, n=6, n_eq=1, n_ineq=5, n_active=3)
    qp = QP(P=inst.P, q=inst.q, G=inst.G, h=inst.h, A=inst.A, b=inst.b)
    sol = solve(qp, _RejectingPolish(backend="clarabel", eps_active=1e-12))
    assert sol.retcode is RetCode.Success and sol.degenerate
    assert any("polish rejected" in w for w in sol.warnings)
    np.testing.assert_allclose(sol.x, inst.x, atol=1e-6)
    np.testing.assert_allclose(sol.z, inst.z, atol=1e-6)
    # rows with a positive backend multiplier are active (at eps_active = 1e-12 clarabel's ~1e-10 on the
    # inactive rows count too): the planted active rows are among them
    assert set(np.flatnonzero(inst.active)) <= set(np.flatnonzero(sol.active))
    assert np.all(np.isfinite(sol.vjp(np.ones(6))["q"]))


def test_a_polished_point_failing_the_check_falls_back_to_the_backend(monkeypatch):
    # the polished point is sabotaged after the polish (x moved off the optimum): the backend's own
    # (right) answer must be returned, with a note, instead of Failure
    inst = make_qp_instance(6, n=5, n_eq=1, n_ineq=4, n_active=2)
    qp = QP(P=inst.P, q=inst.q, G=inst.G, h=inst.h, A=inst.A, b=inst.b)
    real = dqp_module._reduced

    def shifted(*args, **kwargs):
        factor, x, lam, mu, resid = real(*args, **kwargs)
        return factor, x + 1e-3, lam, mu, resid

    monkeypatch.setattr(dqp_module, "_reduced", shifted)
    sol = solve(qp, DQP(backend="daqp", kkt_tol=1e-6))
    assert sol.retcode is RetCode.Success and sol.degenerate
    assert any("polished point fails the KKT check" in w for w in sol.warnings)
    np.testing.assert_allclose(sol.x, inst.x, atol=1e-9)


def _near_psd_blocks(blocks: int, eps: float) -> sp.csc_matrix:
    """Block-diagonal [[1, 1], [1, 1 − eps]]: eigenvalues ≈ 2 and −eps/2 (exactly singular at eps = 0)."""
    block = np.array([[1.0, 1.0], [1.0, 1.0 - eps]])
    return sp.block_diag([block] * blocks, format="csc")


def test_sparse_psd_check_accepts_a_valid_p_without_arpack(monkeypatch):
    # λ_min = −5e-13 (as CVXQP1_M): valid; ARPACK must not be called (it hung ~7 s, then raised)
    def no_arpack(*args, **kwargs):
        raise AssertionError("eigsh called")

    monkeypatch.setattr("scipy.sparse.linalg.eigsh", no_arpack)
    P = _near_psd_blocks(600, 1e-12)
    qp = QP(P=P, q=np.ones(1200))
    assert qp.n == 1200
    QP(P=_near_psd_blocks(600, 0.0), q=np.ones(1200))  # exactly singular P: PSD


def test_sparse_psd_check_rejects_an_indefinite_p():
    with pytest.raises(ValueError, match="P must be positive semidefinite"):
        QP(P=_near_psd_blocks(600, 1e-3), q=np.ones(1200))  # λ_min ≈ −5e-4, far beyond 1e-10·max|P|


def test_singular_sparse_kkt_is_regularized_never_densified(monkeypatch):
    rng = np.random.default_rng(0)
    n = 30
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    C = rng.standard_normal((4, n))
    C = np.vstack([C, C[1]])  # a duplicated row: K singular, consistent for rhs in its range
    dense = KKTFactor(P, C)
    monkeypatch.setattr(np.linalg, "pinv", lambda *a, **k: (_ for _ in ()).throw(AssertionError("pinv")))
    factor = KKTFactor(sp.csc_matrix(P), sp.csr_matrix(C))
    assert factor.singular and factor.lstsq_method == "regularized"
    zeta_true = rng.standard_normal(n + 5)
    rhs = factor.matvec(zeta_true)
    zeta = factor.solve(rhs)
    assert np.abs(factor.matvec(zeta) - rhs).max() <= 1e-12 * (1 + np.abs(rhs).max())
    np.testing.assert_allclose(zeta[:n], zeta_true[:n], atol=1e-10)  # x is unique, the duals are not
    assert dense.singular  # the dense route keeps the minimum-norm pinv


def test_large_sparse_dense_format_data_reach_the_backend_sparse(monkeypatch):
    seen = []
    real = qpsolvers.solve_problem

    def spy(problem, solver, **kwargs):
        seen.append((solver, sp.issparse(problem.P)))
        return real(problem, solver, **kwargs)

    monkeypatch.setattr(dqp_module.qpsolvers, "solve_problem", spy)
    n = 1200
    sol = solve(QP(P=np.eye(n), q=-np.ones(n), G=np.eye(n), h=0.5 * np.ones(n)), DQP())
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, 0.5, atol=1e-8)
    assert seen == [("piqp", True)]


def test_large_singular_dense_kkt_is_regularized_not_pinv(monkeypatch):
    monkeypatch.setattr(np.linalg, "pinv", lambda *a, **k: (_ for _ in ()).throw(AssertionError("pinv")))
    n = KKTFactor.DENSE_PINV_MAX + 1
    P = np.zeros((n, n))
    P[np.arange(n - 1), np.arange(n - 1)] = 1.0  # P singular: one zero direction
    factor = KKTFactor(P)
    assert factor.singular and factor.lstsq_method == "regularized"
    rhs = np.append(np.ones(n - 1), 0.0)  # consistent: in the range of P
    zeta = factor.solve(rhs)
    np.testing.assert_allclose(P @ zeta, rhs, atol=1e-12)


def test_large_sparse_data_in_dense_arrays_polish_on_the_sparse_route():
    n = 1200
    sol = solve(QP(P=np.eye(n), q=-np.ones(n), G=np.eye(n), h=0.5 * np.ones(n)), DQP())
    assert sol.retcode is RetCode.Success and sol.kkt.sparse
    np.testing.assert_allclose(sol.vjp(np.ones(n))["h"], 1.0, atol=1e-10)  # x = h on the active rows


def test_more_rows_than_variables_skip_the_plain_sparse_lu(monkeypatch):
    # K is singular for sure: SuperLU is not asked to factor it (it corrupted memory on such a K)
    calls = []
    real = KKTFactor._splu.__func__
    monkeypatch.setattr(KKTFactor, "_splu", classmethod(lambda cls, M: calls.append(M.shape) or real(cls, M)))
    C = sp.csr_matrix(np.vstack([np.eye(3), np.ones((1, 3))]))
    factor = KKTFactor(sp.identity(3, format="csc"), C)
    assert factor.singular and factor.lstsq_method == "regularized" and calls == []
    x = np.array([1.0, 2.0, 3.0])
    rhs = np.concatenate([-x - C.T @ np.array([0.0, 0.0, 0.0, 0.0]), C @ x])  # consistent: ζ = (x, 0)
    rhs[:3] = 0.0  # P x + Cᵀ y = 0 with y chosen by the solve
    zeta = factor.solve(rhs)
    np.testing.assert_allclose(factor.matvec(zeta), rhs, atol=1e-10)


@pytest.mark.parametrize("case", ["free-variable", "empty-row", "lp-block"])
def test_structurally_singular_kkt_skips_the_plain_sparse_lu(monkeypatch, case):
    """An LP-like K with a variable in no term of P and no active row (or an empty row of C) is singular
    for sure: straight to the regularized factorization, whose refined solve still answers exactly."""
    calls = []
    real = KKTFactor._splu.__func__
    monkeypatch.setattr(KKTFactor, "_splu", classmethod(lambda cls, M: calls.append(M.shape) or real(cls, M)))
    P = sp.diags([1.0, 2.0, 0.0, 0.0], format="csc")  # variables 2 and 3 are linear
    rows = {"free-variable": [[0.0, 0.0, 1.0, 0.0]],
            "empty-row": [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]],
            # every variable covered, but the two linear ones meet one row only (as QSCAGR7's K_J)
            "lp-block": [[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 0.0]]}[case]
    C = sp.csr_matrix(np.array(rows))
    C.eliminate_zeros()
    factor = KKTFactor(P, C)
    assert factor._structurally_singular() and factor.singular and calls == []
    assert factor.lstsq_method == "regularized"
    zeta_true = np.arange(1.0, factor.size + 1)
    rhs = factor.matvec(zeta_true)
    zeta = factor.solve(rhs)
    assert np.abs(factor.matvec(zeta) - rhs).max() <= 1e-12 * (1 + np.abs(rhs).max())
    # a K whose every variable is covered keeps the plain LU (and its singularity test)
    full = KKTFactor(sp.diags([1.0, 2.0, 0.0], format="csc"), sp.csr_matrix(np.array([[0.0, 0.0, 1.0]])))
    assert not full._structurally_singular() and not full.singular and full.method == "splu"


def test_schur_solves_refine_only_when_the_residual_shows_a_loss(monkeypatch):
    """The block-elimination routes skip the refinement step at a round-off residual and take it on the
    ill-conditioned P where block elimination alone loses cond(P)·eps (residual 4e-10 unrefined)."""
    rng = np.random.default_rng(3)
    n = 40
    M = rng.standard_normal((n, n))
    factor = KKTFactor(M @ M.T + n * np.eye(n), rng.standard_normal((5, n)))
    assert factor.method == "cholesky-schur"
    count = []
    real = KKTFactor._block_solve
    monkeypatch.setattr(KKTFactor, "_block_solve", lambda self, r: count.append(1) or real(self, r))
    rhs = rng.standard_normal(n + 5)
    zeta = factor.solve(rhs)
    assert len(count) == 1  # well conditioned: one block solve
    assert np.abs(factor.matvec(zeta) - rhs).max() <= KKTFactor.REFINE_GATE * max(1, np.abs(zeta).max())
    count.clear()
    bad = KKTFactor(sp.diags([1.0, 1.5e-8], format="csc"), sp.csr_matrix([[1.0, 1.0]]))
    assert bad.method == "diagonal-schur"
    rhs = np.array([1.0, 2.0, 3.0])
    zeta = bad.solve(rhs)
    assert len(count) == 2  # the residual showed the loss: refined once
    assert np.abs(bad.matvec(zeta) - rhs).max() <= 1e-12 * max(1.0, np.abs(zeta).max())
