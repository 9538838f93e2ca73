"""Rounds 25-26 of #43 in the qp family: acceptance checks scaled by what they measure (class B)."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP
from algorithms.qp.dqp import installed_backends, kkt_residuals

BACKENDS = [b for b in ("auto", "clarabel", "cvxopt", "ecos", "daqp", "osqp") if b == "auto" or
            b in installed_backends()]


@pytest.mark.parametrize("huge", [1e20, 1e30, 3.4e38])
def test_a_row_of_h_meaning_no_bound_does_not_hide_a_violated_row(huge):
    # one global scale max(1, ‖h‖∞, ‖Gx‖∞): h₂ = 1e20 let x = (1, 1) violate x1 <= 0.5 by 0.5 (primal 5e-21)
    qp = QP(P=np.eye(2), q=-np.ones(2), G=np.eye(2), h=np.array([0.5, huge]))
    assert kkt_residuals(qp, np.array([1.0, 1.0]), None, np.zeros(2))["primal"] == 0.5
    # x = (0, 1) with z = (1, 0): stationary and feasible, its slack 0.5 on the row with multiplier 1
    assert kkt_residuals(qp, np.array([0.0, 1.0]), None, np.array([1.0, 0.0]))["complementarity"] == 0.5
    assert kkt_residuals(qp, np.array([0.5, 1.0]), None, np.array([0.5, 0.0])) == {
        "stationarity": 0.0, "primal": 0.0, "dual": 0.0, "complementarity": 0.0}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("huge", [1e20, 3.4e38])
def test_no_backend_succeeds_beside_a_row_of_h_meaning_no_bound(backend, huge):
    # clarabel (the README's backend), cvxopt and ecos came back Success at x = (1, 1) for x1 <= 0.5
    sol = solve(QP(P=np.eye(2), q=-np.ones(2), G=np.eye(2), h=np.array([0.5, huge])), DQP(backend=backend))
    assert sol.retcode in (RetCode.Success, RetCode.Failure)
    if sol.retcode is RetCode.Success:
        np.testing.assert_allclose(sol.x, [0.5, 1.0], rtol=1e-8)


def test_stationarity_keeps_one_scale_as_its_docstring_states():
    # a coordinate whose gradient terms cancel at a right answer (x* = (1e12, 1e12)) keeps Success; a point
    # along an unbounded ray is not stationary (|P||x| per coordinate passed quadprog's x ~ 1e8·d as Success)
    qp = QP(P=np.array([[1.0, -1.0], [-1.0, 2.0]]), q=np.array([0.0, -1e12]))
    sol = solve(qp, DQP())
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, [1e12, 1e12], rtol=1e-9)
    ray = QP(P=np.array([[1.0, 0.0], [0.0, 0.0]]), q=np.array([0.0, -1.0]))
    assert kkt_residuals(ray, np.array([0.0, 1e8]), None, None)["stationarity"] == 1.0


@pytest.mark.parametrize("huge", [1e9, 1e20])
def test_one_huge_equality_row_does_not_hide_another(huge):
    # row 2 of A·x = b with b₂ = 1e20 (x₂ = 1, A₂ = (0, 1e20)) or x₂ = 1e9 scaled row 1's violation 0.5 away
    A = np.array([[1.0, 0.0], [0.0, 1e20 if huge == 1e20 else 1.0]])
    x = np.array([1.0, 1.0 if huge == 1e20 else huge])
    qp = QP(P=np.eye(2), q=-np.ones(2), A=A, b=np.array([0.5, huge]))
    assert kkt_residuals(qp, x, np.zeros(2), None)["primal"] == 0.5


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("far", [-1e20, -3e38])
def test_a_coordinate_far_out_does_not_hide_a_violated_row(backend, far):
    # clarabel and cvxopt came back Success at x = (1, −1e20) for x1 <= 0.5, x2 <= −1e20 (x* = (0.5, −1e20))
    qp = QP(P=np.eye(2), q=-np.ones(2), G=np.eye(2), h=np.array([0.5, far]))
    assert kkt_residuals(qp, np.array([1.0, far]), None, np.array([0.0, 1.0 - far]))["primal"] == 0.5
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode in (RetCode.Success, RetCode.Failure)
    if sol.retcode is RetCode.Success:
        np.testing.assert_allclose(sol.x, [0.5, far], rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rounding_of_an_equilibrated_copy_beside_a_huge_row_still_passes(backend):
    # the regression guard: the copy's x0 = −2e-16 (x0* = 0) in a row of G = −1e30 is its whole |G||x| in the
    # caller's units; the check there counts the rounding a normwise solve leaves (NORMWISE_SHARE)
    qp = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-1e30 * np.eye(2), h=np.zeros(2))
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, [0.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_feasible_qp_with_a_tiny_row_is_never_called_infeasible(backend):
    # x2 = 1e20 written as 1e-20·x2 = 1: HiGHS's feasibility LP dropped the coefficient (0 = 1), "Infeasible";
    # cvxopt's multiplier y2 = −1e40 reached the check's range validation (a ValueError naming "y")
    qp = QP(P=np.eye(2), q=-np.ones(2), A=np.array([[1.0, 0.0], [0.0, 1e-20]]), b=np.array([0.5, 1.0]))
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode in (RetCode.Success, RetCode.Failure)
    if sol.retcode is RetCode.Success:
        np.testing.assert_allclose(sol.x, [0.5, 1e20], rtol=1e-9)


def test_the_diagnosis_reads_highs_model_error_as_no_diagnosis():
    # scipy's status 2 is also HiGHS's "Model error" (a right-hand side of -1e20 reads as -inf): no diagnosis
    from algorithms.qp.dqp import _diagnose

    assert _diagnose(np.eye(2), -np.ones(2), np.eye(2), np.array([0.5, -1e20]), None, None) is None
    assert _diagnose(np.eye(2), -np.ones(2), np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([0.0, -1.0]),
                     None, None) is RetCode.Infeasible


def test_a_cholesky_factor_is_checked_row_by_row():
    # one global scale ‖P‖ = 1e10 let diag(1e5, 2), the factor of diag(1e10, 4), pass for P = diag(1e10, 1)
    from algorithms.qp import KKTFactor

    P = np.diag([1e10, 1.0])
    with pytest.raises(ValueError, match="cholesky must be P's lower Cholesky factor"):
        KKTFactor(P, None, cholesky=np.diag([1e5, 2.0]))
    rng = np.random.default_rng(0)
    for n in (2, 30):  # true factors of badly scaled P pass, dense and sparse
        A, D = rng.standard_normal((n, n)), np.diag(10.0 ** rng.uniform(-8, 8, n))
        P = D @ (A @ A.T + n * np.eye(n)) @ D
        P = (P + P.T) / 2
        KKTFactor(P, None, cholesky=np.linalg.cholesky(P))
        import scipy.sparse as sp

        KKTFactor(sp.csc_matrix(P), None, cholesky=np.linalg.cholesky(P))


def _tiny_row_qp(c):
    # red25a: row 1 of G, the same constraint at the size c (a floor 1 judged a small row absolutely)
    rng = np.random.default_rng(0)
    M = rng.standard_normal((3, 3))
    P = M @ M.T + 0.1 * np.eye(3)
    G = np.array([[1.0, 0.5, -0.3], [0.4, -1.0, 0.8]])
    h = np.array([0.2, 0.1])
    G[1] *= c
    h[1] *= c
    return QP(P=P, q=np.array([1.0, -2.0, 0.5]), G=G, h=h)


@pytest.mark.parametrize("c", [1e-8, 1e-6, 1e-3, 1.0, 1e3, 1e6])
def test_a_row_times_c_is_judged_as_the_same_row(c):
    # the same constraint written at another size: every residual the same (the floor was 1, not the row)
    x, z = np.array([0.3, -0.2, 0.1]), np.array([0.5, -2e-3])
    base, scaled = _tiny_row_qp(1.0), _tiny_row_qp(c)
    ours = kkt_residuals(scaled, x, None, z / np.array([1.0, c]))   # row 1's multiplier over c
    for key, value in kkt_residuals(base, x, None, z).items():
        assert ours[key] == pytest.approx(value, rel=1e-9, abs=1e-300), key


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("c", [1e-6, 1.0])
def test_no_backend_succeeds_off_a_row_of_small_size(backend, c):
    qp = _tiny_row_qp(c)
    reference = solve(_tiny_row_qp(1.0), DQP(backend="clarabel"))
    sol = solve(qp, DQP(backend=backend))
    assert reference.retcode is RetCode.Success
    assert sol.retcode in (RetCode.Success, RetCode.Failure)
    if sol.retcode is RetCode.Success:
        assert sol.value == pytest.approx(reference.value, rel=1e-7)
        assert max(qp.G @ sol.x - qp.h) <= 1e-7 * c


# red25a: a random QP whose row 1 has entries ~1e-6 (rows 0 and 2 ~1e2 and ~1e5); daqp and osqp stopped at
# x violating row 1 by 6.3e-7, 0.2 of the row's size, and the check (floored at 1) called it Success with the
# value 0.0800, 34 % below the optimum 0.1215887919 (so did "auto", whose first backend is daqp)
_P45 = np.array([[1.2148116895959309, -0.2882671973895131, -0.9514165560176993, 1.5707357310709604],
                 [-0.2882671973895131, 0.9549293274742197, -0.9892369149315676, -0.10447672863555282],
                 [-0.9514165560176993, -0.9892369149315676, 2.5201622543257804, -1.4484820690505422],
                 [1.5707357310709604, -0.10447672863555282, -1.4484820690505422, 2.5784448866682426]])
_Q45 = np.array([-0.03325503136219395, -0.018970278200468003, -0.010323724444001486, -0.01648094993632643])
_G45 = np.array([[158.24664316937577, -51.210845912039325, 82.468039258560054, -92.050959834698816],
                 [8.3757556534617031e-07, -2.0605527548705789e-06, -7.2740661268172329e-08,
                  1.5961159783831164e-06],
                 [4539.7723935067297, -46040.533150881129, -109449.97731052784, 16884.135035091382]])
_H45 = np.array([1.9049891290399231e+02, 4.4122746273032154e-07, 7.5011571321437848e+04])
_A45 = np.array([[2.481730442169732, -0.30246197925549945, 0.3367394447611092, 0.3773929828312455]])
_B45 = np.array([-2.566464863642764])


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_success_off_a_small_row_of_a_random_qp(backend):
    qp = QP(P=_P45, q=_Q45, G=_G45, h=_H45, A=_A45, b=_B45)
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode in (RetCode.Success, RetCode.Failure)
    if backend == "auto":
        assert sol.retcode is RetCode.Success   # a fallback backend answers it
    if sol.retcode is RetCode.Success:
        assert sol.value == pytest.approx(0.12158879192734875, rel=1e-8)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("P", [np.diag([1e12, -1.0]), np.diag([1e20, -1.0]),
                               np.array([[1e12, 0, 0], [0, 1.0, 2.0], [0, 2.0, 1.0]])])
def test_one_large_variable_does_not_hide_anothers_negative_curvature(P, sparse):
    # the PSD test relative to max|P| took diag(1e12, −1) as PSD: with a box, every backend answered the
    # saddle x = (−1e-12, 0) with Success (value −5e-13; the minimum is −0.5 at x₂ = ±1)
    import scipy.sparse as sp

    with pytest.raises(ValueError, match="P must be positive semidefinite"):
        QP(P=sp.csc_matrix(P) if sparse else P, q=np.zeros(P.shape[0]), lb=-np.ones(P.shape[0]),
           ub=np.ones(P.shape[0]))


@pytest.mark.parametrize("sparse", [False, True])
def test_psd_matrices_of_badly_scaled_variables_still_pass(sparse):
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    for n in (3, 40):
        M, D = rng.standard_normal((n, n - 1)), np.diag(10.0 ** rng.uniform(-6, 6, n))
        P = D @ M @ M.T @ D  # PSD of rank n − 1, variables scaled 1e-6..1e6: its rounding stays relative
        P = (P + P.T) / 2
        QP(P=sp.csc_matrix(P) if sparse else P, q=np.zeros(n))
    # a negative diagonal entry bounds the smallest eigenvalue: refused whatever its size
    with pytest.raises(ValueError, match=r"P\[1, 1\] = -1e-17"):
        QP(P=np.diag([1.0, -1e-17]), q=np.zeros(2))


@pytest.mark.parametrize("backend", ["auto", "daqp", "clarabel"])
def test_an_equilibrated_copy_far_below_unit_scale_is_held_to_kkt_tol(backend):
    # d = ‖q‖/‖P‖ = 2e12 missed the constraints' scale: the copy's x̃ ~ 1e-14 was judged absolutely, and daqp's
    # d = ‖q‖/‖P‖ = 2e12 missed the constraints' scale: the copy's x̃ ~ 1e-14 was judged absolutely, and daqp's
    # test at 1e-2: Success (sweep3's random QPs against an exact active-set enumeration)
    P = np.array([[1.39779321645693e-13, 1.4040730058777755e-13],
                  [1.4040730058777755e-13, 3.471492488327158e-12]])
    q = np.array([-7.0783032356827515, 3.558412449444976])
    G = np.array([[-380046.3587234437, -380724.5274302773],
                  [1457.1541614429507, -4058.4772538777343],
                  [-220643.2799059143, 1125309.1573152682]])
    h = np.array([63581076.601315014, 8.338444363563777, 66.38489855015757])
    qp = QP(P=P, q=q, G=G, h=h)
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode in (RetCode.Success, RetCode.Failure)
    if sol.retcode is RetCode.Success:
        assert np.all(G @ sol.x <= h + 1e-9 * np.abs(h).max())
        np.testing.assert_allclose(sol.x, [0.012969363328493216, 0.002601940757885504], rtol=1e-6)


@pytest.mark.parametrize("c", [1e-3, 1.0, 1e6, 1e9])
def test_an_active_row_times_c_is_not_weakly_active(c):
    # red25a: the active row x1 + x2 <= 1 written times 1e6 has the multiplier 1.5e-6 of the same constraint,
    # read against eps_active·max(1, max μ) = 1e-5: flagged weakly active (degenerate) though μ·‖G_1‖ = 2.1
    G = np.array([[c, c], [1.0, -1.0]])
    sol = solve(QP(P=np.eye(2), q=-2.0 * np.ones(2), G=G, h=np.array([c, 5.0])), DQP(backend="clarabel"))
    assert sol.retcode is RetCode.Success and not sol.degenerate, sol.warnings
    np.testing.assert_allclose(sol.x, [0.5, 0.5], atol=1e-9)
    np.testing.assert_allclose(sol.vjp(np.array([1.0, 0.0]))["h"] * np.array([c, 1.0]), [0.5, 0.0], atol=1e-9)
