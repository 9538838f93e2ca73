"""No ``Success`` on a wrong answer: the KKT check after the polish, for every backend.

A backend's answer (polished or not) is called ``Success`` only when it satisfies the KKT
conditions of the original QP (:func:`algorithms.qp.dqp.kkt_residuals` ≤ ``kkt_tol``).
These tests inject wrong answers through the backend call and sabotage the polish, and
they hold every installed backend, in the installed versions, to a reference computed
independently on seeded random strictly convex QPs.
"""

import warnings

import numpy as np
import pytest
import qpsolvers

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP, installed_backends, qp_layer
from algorithms.qp import dqp as dqp_module
from algorithms.qp.dqp import kkt_residuals
from theorems.dqp import CLAIM_BACKENDS
from theorems.strategies import make_qp_instance

BACKENDS = installed_backends()

# the QP of issue #21: highspy 1.16 (qpsolvers 4.11) returned x = [-1.225, -0.417] with model status
# "optimal"; clarabel's (right) x is [-0.453, -0.216]
HIGHS_QP = {
    "P": np.array([[2.67007875, -2.72664472], [-2.72664472, 3.92689304]]),
    "q": np.array([1.81491762, -4.97398362]),
    "G": np.array([[-2.01998613, -0.23193238], [-0.86521308, 3.32299952], [0.22578661, -0.35263079]]),
    "h": np.array([2.57110594, -0.32479118, 0.90012579]),
}
HIGHS_WRONG_X = np.array([-1.22498936, -0.41669221])
RIGHT_X = np.array([-0.45264929, -0.21559716])


def _fake_backend(monkeypatch, x, z=None, y=None, found=True):
    """Make every backend call return ``x`` (and duals) as its answer."""

    def fake(problem, solver, **kwargs):
        sol = qpsolvers.Solution(problem)
        sol.found, sol.x = found, np.asarray(x, dtype=float)
        sol.z = None if z is None else np.asarray(z, dtype=float)
        sol.y = None if y is None else np.asarray(y, dtype=float)
        return sol

    monkeypatch.setattr(dqp_module.qpsolvers, "solve_problem", fake)


def test_reference_solution_of_the_highs_case():
    qp = QP(**HIGHS_QP)
    sol = solve(qp, DQP(backend="clarabel"))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, RIGHT_X, atol=1e-7)
    assert max(kkt_residuals(qp, sol.x, sol.y, sol.z).values()) < 1e-12


def test_real_highs_never_succeeds_with_a_wrong_x():
    sol = solve(QP(**HIGHS_QP), DQP(backend="highs"))
    if sol.retcode is RetCode.Success:  # a fixed HiGHS: then its x must be the right one
        np.testing.assert_allclose(sol.x, RIGHT_X, atol=1e-7)
    else:
        assert sol.retcode is RetCode.Failure and np.all(np.isnan(sol.x))
        assert any("fails the KKT check" in w or "no solution" in w for w in sol.warnings)


@pytest.mark.parametrize("polish", [True, False])
@pytest.mark.parametrize("backend", ["highs", "clarabel", "daqp"])
def test_injected_wrong_answer_is_failure(monkeypatch, backend, polish):
    _fake_backend(monkeypatch, HIGHS_WRONG_X, z=np.zeros(3))
    sol = solve(QP(**HIGHS_QP), DQP(backend=backend, polish=polish))
    assert sol.retcode is RetCode.Failure and not sol.successful
    assert np.all(np.isnan(sol.x)) and sol.kkt is None
    assert sol.stats.backend == backend and sol.stats.stationarity > 0.1
    assert any("fails the KKT check" in w for w in sol.warnings)
    with pytest.raises(ValueError, match="no derivative available"):
        sol.vjp(np.ones(2))


def test_injected_right_answer_without_duals_is_success(monkeypatch):
    # the polish completes the duals of a primal-only backend, and the check then passes
    _fake_backend(monkeypatch, RIGHT_X)
    sol = solve(QP(**HIGHS_QP), DQP(backend="quadprog"))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, RIGHT_X, atol=1e-7)
    assert sol.stats.stationarity < 1e-12 and sol.stats.dual_residual == 0


def test_wrong_answer_at_the_iteration_cap_is_maxiters(monkeypatch):
    def capped(problem, solver, **kwargs):
        sol = qpsolvers.Solution(problem)
        sol.found, sol.x, sol.z = True, HIGHS_WRONG_X.copy(), np.zeros(3)
        sol.extras = {"status": "MAX_ITER_REACHED"}
        return sol

    monkeypatch.setattr(dqp_module.qpsolvers, "solve_problem", capped)
    assert solve(QP(**HIGHS_QP), DQP(backend="osqp")).retcode is RetCode.MaxIters


def test_torch_layer_raises_on_a_wrong_backend_answer(monkeypatch):
    torch = pytest.importorskip("torch")
    _fake_backend(monkeypatch, HIGHS_WRONG_X, z=np.zeros(3))
    data = {k: torch.tensor(v) for k, v in HIGHS_QP.items()}
    with pytest.raises(RuntimeError, match="Failure"):
        qp_layer(data["P"], data["q"], data["G"], data["h"], algorithm=DQP(backend="highs"))


class _BrokenPolish(DQP):
    """Sabotage: the polish drops the equality rows of K_J and accepts its own output."""

    def _uses_equalities(self) -> bool:
        return False

    def _accept_polish(self, primal_violation, negative_multiplier, tol) -> bool:
        return True


class _RejectingPolish(DQP):
    """Every polish is rejected: the backend's x must then be checked, not passed on."""

    def _accept_polish(self, primal_violation, negative_multiplier, tol) -> bool:
        return False


def test_a_broken_polish_is_caught():
    inst = make_qp_instance(3, n=5, n_eq=2, n_ineq=4, n_active=2)
    qp = QP(P=inst.P, q=inst.q, G=inst.G, h=inst.h, A=inst.A, b=inst.b)
    for backend in ("clarabel", "daqp"):
        sol = solve(qp, _BrokenPolish(backend=backend))
        assert sol.retcode is RetCode.Failure and sol.stats.primal_residual > 1e-3


def test_a_rejected_polish_falls_back_to_a_checked_x(monkeypatch):
    inst = make_qp_instance(4, n=5, n_eq=1, n_ineq=4, n_active=2)
    qp = QP(P=inst.P, q=inst.q, G=inst.G, h=inst.h, A=inst.A, b=inst.b)
    good = solve(qp, _RejectingPolish(backend="clarabel"))  # the backend's own x is right
    assert good.retcode is RetCode.Success and good.degenerate
    np.testing.assert_allclose(good.x, inst.x, atol=1e-6)
    _fake_backend(monkeypatch, inst.x + 0.1, z=inst.z, y=inst.y)
    bad = solve(qp, _RejectingPolish(backend="clarabel"))
    assert bad.retcode is RetCode.Failure and np.all(np.isnan(bad.x))


def _random_qp(seed: int, with_equality: bool) -> QP:
    """The issue's family: P = MᵀM + I, G an m×n Gaussian, h = |N(0, 1)|, q ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    m = int(rng.integers(1, 2 * n + 1))
    M = rng.standard_normal((n, n))
    data = {"P": M.T @ M + np.eye(n), "q": rng.standard_normal(n), "G": rng.standard_normal((m, n)),
            "h": np.abs(rng.standard_normal(m))}
    if with_equality:  # b = A x₀ with G x₀ = 0 ≤ h: feasible by construction
        data["A"] = rng.standard_normal((1, n))
        data["b"] = np.zeros(1)
    return QP(**data)


def _reference(qp: QP) -> np.ndarray:
    """clarabel through qpsolvers at 1e-12, accepted only when its own KKT residuals say so."""
    with warnings.catch_warnings():  # qpsolvers' notice that it converts dense matrices to CSC
        warnings.simplefilter("ignore")
        res = qpsolvers.solve_problem(qpsolvers.Problem(qp.P, qp.q, qp.G, qp.h, qp.A, qp.b),
                                      solver="clarabel", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    x, P = res.x, qp.P
    grad = P @ x + qp.q + qp.G.T @ res.z + (qp.A.T @ res.y if qp.A is not None else 0)
    assert res.found and np.abs(grad).max() < 1e-8 and (qp.G @ x - qp.h).max() < 1e-8
    assert res.z.min() > -1e-8 and np.abs(res.z * (qp.h - qp.G @ x)).max() < 1e-8
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_installed_backend_is_right_or_fails_on_seeded_random_qps(backend):
    # 1e-6 relative: x* is unique (P ≻ 0, eigenvalues ≥ 1), so an x off by more than the check's
    # kkt_tol (1e-6) times cond(P)-sized factors is a wrong answer; the reference is exact to ~1e-10
    wrong, failed = [], 0
    for seed in range(24):
        qp = _random_qp(seed, with_equality=seed % 3 == 0)
        ref = _reference(qp)
        sol = solve(qp, DQP(backend=backend))
        if sol.retcode is not RetCode.Success:
            assert sol.retcode in (RetCode.Failure, RetCode.MaxIters), (seed, sol.retcode)
            assert np.all(np.isnan(sol.x))
            failed += 1
            continue
        err = float(np.abs(sol.x - ref).max())
        if err > 1e-6 * (1 + np.abs(ref).max()):
            wrong.append((seed, err))
    assert not wrong, f"{backend} returned a wrong x with Success on seeds/errors {wrong}"
    # a backend may fail honestly, but a check that rejects everything is no check (for the
    # package's own backends; an extra, unlicensed commercial solver may fail every instance)
    assert failed < 24 or backend not in CLAIM_BACKENDS
