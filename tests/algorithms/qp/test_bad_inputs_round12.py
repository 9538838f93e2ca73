"""#43 round 12 of algorithms.qp: the working range (README "Working range") and hand-built records."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP, QPLayer, QPSolution, qp_layer
from algorithms.qp.dqp import QPStats

BASE = dict(P=np.eye(2), q=np.array([1.0, -1.0]), G=-np.eye(2), h=np.zeros(2))


@pytest.mark.parametrize("make, name", [
    (lambda v: QP(**{**BASE, "P": sp.csc_matrix(np.eye(2) * v)}), "P"),
    (lambda v: QP(**{**BASE, "P": sp.csr_matrix(np.eye(2) * v)}), "P"),
    (lambda v: QP(**{**BASE, "G": sp.csc_matrix(-np.eye(2) * v)}), "G"),
    (lambda v: QP(**BASE, lb=np.array([-abs(v), -np.inf])), "lb"),
    (lambda v: QP(**BASE, ub=np.array([abs(v), np.inf])), "ub"),
])
@pytest.mark.parametrize("value", [1e300, 1e39])
def test_sparse_and_bound_entries_outside_the_working_range_are_refused(make, name, value):
    """Sparse matrices and finite bounds skipped the dense route's range check: 1e300 was stored."""
    with pytest.raises(ValueError, match=rf"\b{name} has an entry of magnitude .* outside"):
        make(value)


def test_maros_meszaros_infinite_bounds_of_1e20_stay_valid():
    qp = QP(**BASE, lb=np.array([-1e20, -np.inf]), ub=np.array([1e20, 1e30]))
    sol = solve(qp, DQP())
    # round 16 (lead): the equilibrated copy had answered x = (1671, -9444), outside x >= 0, with Success; the
    # caller's-units check sends it to the as-given route, which finds x* = (0, 1)
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, [0.0, 1.0], atol=1e-9)


def test_data_set_to_1e300_after_construction_is_refused_at_solve():
    qp = QP(**BASE)
    object.__setattr__(qp, "q", np.array([1e300, 1.0]))
    with pytest.raises(ValueError, match=r"\bq\b"):
        solve(qp, DQP())


@pytest.mark.parametrize("options, name", [
    ({"eps_abs": 1e308}, "eps_abs"), ({"eps_abs": 5e-324}, "eps_abs"), ({"eps_abs": 1e-39}, "eps_abs"),
    ({"max_iter": 2**64}, "max_iter"), ({"max_iter": 10**100}, "max_iter"),
    ({"time_limit": 1e39}, "time_limit"),
])
def test_backend_options_outside_the_working_range_are_refused(options, name):
    """A tolerance of 5e-324 or 1e308 and an iteration cap of 2**64 reached the backend as given."""
    with pytest.raises(ValueError, match=rf"backend_options\['{name}'\]"):
        DQP(backend_options=options)


@pytest.mark.parametrize("tol", [5e-324, 1e-39, 1e39, 1e308])
def test_layer_tolerances_outside_the_working_range_are_refused(tol):
    P, q = torch.eye(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    for call in (lambda: QPLayer(tol=tol), lambda: qp_layer(P, q, tol=tol)):
        with pytest.raises(ValueError, match=r"\btol = .* is outside the package's working range"):
            call()
    layer = QPLayer()
    with pytest.raises(ValueError, match=r"\btol\b"):
        layer.tol = tol


@pytest.mark.parametrize("name", ["y", "z", "z_box"])
@pytest.mark.parametrize("bad", [math.nan, math.inf])
@pytest.mark.parametrize("retcode", [RetCode.Success, RetCode.MaxIters, RetCode.Failure])
def test_hand_built_multipliers_must_be_finite(name, bad, retcode):
    """y = [nan] beside MaxIters was kept (a solve without multipliers leaves them None). Computed
    multipliers past the working range are kept (README: what a run computes is not bounded)."""
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        QPSolution(x=np.zeros(2), value=0.0, retcode=retcode, **{name: np.array([bad, 0.0])})
    sol = QPSolution(x=np.zeros(2), value=0.0, retcode=retcode)
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        setattr(sol, name, np.array([bad, 0.0]))
    assert getattr(sol, name) is None


@pytest.mark.parametrize("bad", [-1.0, 1e300, 10**100])
def test_qp_stats_residuals_are_checked_when_set(bad):
    """stats.stationarity = -1 after construction was kept (only __post_init__ checked it)."""
    with pytest.raises(ValueError, match=r"\bstationarity\b"):
        QPStats(stationarity=bad)
    stats = QPStats()
    with pytest.raises(ValueError, match=r"\bstationarity\b"):
        stats.stationarity = bad
    assert math.isnan(stats.stationarity)
    stats.stationarity = 1e-3
    assert stats.stationarity == 1e-3


@pytest.mark.parametrize("matrix", [sp.csc_matrix(np.eye(2) * (1 + 1j)), sp.csc_matrix(np.eye(2, dtype=bool)),
                                    sp.csr_matrix(np.eye(2) * (1 + 1j))])
def test_sparse_complex_and_bool_matrices_are_refused(matrix):
    """red12a: a sparse complex P lost its imaginary part (a ComplexWarning only), a bool one read as 0/1;
    KKTFactor answered a complex solution."""
    from algorithms.qp import KKTFactor

    with pytest.raises(TypeError, match=r"\bP must hold real numbers"):
        QP(P=matrix, q=np.zeros(2))
    with pytest.raises(TypeError, match=r"\bP must hold real numbers"):
        KKTFactor(matrix)


@pytest.mark.parametrize("args, name", [((sp.csc_matrix(np.eye(2) * 1e300),), "P"),
                                        ((np.eye(2), np.ones((1, 2)) * 1e39), "C")])
def test_kkt_factor_entries_outside_the_working_range_are_refused(args, name):
    from algorithms.qp import KKTFactor

    with pytest.raises(ValueError, match=rf"\b{name} has an entry of magnitude"):
        KKTFactor(*args)


def test_a_dqp_changed_after_construction_is_validated_again_by_the_layer():
    """The layer called the forward directly: kkt_tol = -1 through object.__setattr__ ended Failure, blaming
    the data."""
    layer = QPLayer()
    object.__setattr__(layer.algorithm, "kkt_tol", -1.0)
    with pytest.raises(ValueError, match=r"DQP\.kkt_tol was changed after construction"):
        layer(torch.eye(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64))


@pytest.mark.parametrize("helper", ["objective", "kkt_residuals", "absolute_residuals"])
def test_a_qp_changed_after_construction_is_validated_again_by_the_helpers(helper):
    from algorithms.qp import absolute_residuals, kkt_residuals

    qp = QP(**BASE)
    object.__setattr__(qp, "q", np.array([np.nan, 1.0]))
    call = {"objective": lambda: qp.objective(np.zeros(2)),
            "kkt_residuals": lambda: kkt_residuals(qp, np.zeros(2), None, np.zeros(2)),
            "absolute_residuals": lambda: absolute_residuals(qp, np.zeros(2), None, np.zeros(2))}[helper]
    with pytest.raises(ValueError, match=r"QP\.q was changed after construction"):
        call()


@pytest.mark.parametrize("name, value", [("x", np.zeros(5)), ("active", np.ones(3, dtype=bool))])
def test_fields_the_derivative_reads_replaced_by_another_size_are_named(name, value):
    """sol.active of another length met numpy's "shape mismatch ... could not be broadcast"; sol.x of another
    length was taken and the derivative answered."""
    sol = solve(QP(**BASE), DQP())
    setattr(sol, name, value)
    with pytest.raises(ValueError, match=rf"\b{name} does not fit the solved QP"):
        sol.vjp(np.array([1.0, 0.0]))


@pytest.mark.parametrize("backend", ["auto", "clarabel", "daqp"])
def test_a_solution_past_the_working_range_is_a_failure_naming_the_scale(backend):
    """red12a: P = 1e-30, q = −1e30 (in range) has x* = 1e60: the internal KKT vector "zeta" met the range
    check (a ValueError naming no argument); auto's fallback reported Unbounded for a strictly convex QP."""
    sol = solve(QP(P=np.array([[1e-30]]), q=np.array([-1e30])), DQP(backend=backend))
    assert sol.retcode is RetCode.Failure
    if backend != "auto":
        assert "leaves the package's working range" in sol.warnings[0]


def test_a_tiny_positive_definite_p_is_not_reported_unbounded():
    """red12a: HiGHS dropped P = 1.2e-38 from the recession LP (coefficients below 1e-9) and osqp's failure
    was diagnosed Unbounded: the rows are scaled first (the same null space)."""
    sol = solve(QP(P=np.array([[1.2e-38]]), q=np.array([-1.0])), DQP(backend="osqp"))
    assert sol.retcode is not RetCode.Unbounded
    assert solve(QP(P=np.zeros((1, 1)), q=np.array([-1.0])), DQP(backend="osqp")).retcode is RetCode.Unbounded


@pytest.mark.parametrize("backend, options, name", [
    ("osqp", {"polish": "no"}, "polish"), ("osqp", {"alpha": 5.0}, "alpha"), ("osqp", {"rho": 1e-39}, "rho"),
    ("scs", {"verbose": "no"}, "verbose"), ("scs", {"alpha": 5.0}, "alpha"),
])
def test_osqp_and_scs_options_of_the_wrong_type_or_range_are_refused_by_key(backend, options, name):
    """red12a: osqp/scs options of the wrong type ended Failure with the backend's TypeError text (no key
    named); rho = 1e-39 (a positive scale) was taken."""
    with pytest.raises((TypeError, ValueError), match=rf"backend_options\['{name}'\]"):
        DQP(backend=backend, backend_options=options)


def test_qp_stats_absolute_residuals_in_range():
    with pytest.raises(TypeError, match=r"\babsolute\b"):
        QPStats(absolute={"primal": 1e300, "dual": 0.0, "gap": 0.0})


def test_a_float32_low_rank_psd_p_is_judged_at_float32s_precision():
    """red12a: the float32 copy of a rank-2 PSD P (smallest eigenvalue −8.5e-8 after rounding) was refused
    while its float64 twin was solved: a coercible input with another outcome."""
    V = np.random.default_rng(1).normal(size=(10, 2))
    P = V @ V.T
    q = V @ np.array([1.0, -1.0])  # in P's range: bounded
    double = solve(QP(P=P, q=q), DQP())
    single = solve(QP(P=P.astype(np.float32), q=q.astype(np.float32)), DQP())
    assert double.retcode is single.retcode is RetCode.Success
    np.testing.assert_allclose(single.value, double.value, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=r"P must be positive semidefinite"):
        QP(P=np.diag([1.0, -1e-3]).astype(np.float32), q=np.zeros(2, dtype=np.float32))


def test_a_solution_written_nan_in_place_has_no_derivative():
    """red12a: sol.x[0] = nan in place: the Success record held a NaN x and vjp answered."""
    sol = solve(QP(**BASE), DQP())
    sol.x[0] = np.nan
    with pytest.raises(ValueError, match=r"\bx holds NaN or inf entries \(written in place"):
        sol.vjp(np.array([1.0, 0.0]))


def test_kkt_factor_keeps_read_only_copies_of_its_matrices():
    """A CSC P was the caller's own matrix (and k.P writable): an edit after the factorization made matvec
    answer for another K than solve's."""
    from algorithms.qp import KKTFactor

    P = sp.csc_matrix(np.array([[2.0, 0.5], [0.5, 1.0]]))
    factor = KKTFactor(P, sp.csr_matrix(np.ones((1, 2))))
    before = factor.matvec(np.ones(3))
    P.data[0] = 100.0
    np.testing.assert_array_equal(factor.matvec(np.ones(3)), before)
    dense = KKTFactor(np.array([[2.0, 0.5], [0.5, 1.0]]))
    with pytest.raises(ValueError, match="read-only"):
        dense.P[0, 0] = np.nan


def test_a_hand_built_success_with_negative_multipliers_is_refused():
    """red12a: QPSolution(..., z=[-5], retcode=Success) was kept: a Success carrying dual-infeasible z."""
    with pytest.raises(ValueError, match=r"\bz must be >= 0 with retcode Success"):
        QPSolution(x=np.array([1.0, 0.0]), value=0.0, z=np.array([-5.0]), retcode=RetCode.Success)
    sol = QPSolution(x=np.array([1.0, 0.0]), value=0.0, z=np.array([-5.0]), retcode=RetCode.MaxIters)
    with pytest.raises(ValueError, match=r"\bz must be >= 0 with retcode Success"):
        sol.retcode = RetCode.Success
    assert QPSolution(x=np.zeros(2), value=0.0, z=np.array([-1e-12]), retcode=RetCode.Success).z[0] == -1e-12
