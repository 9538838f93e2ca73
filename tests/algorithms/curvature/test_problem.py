"""CurvatureProblem validation and the ready-made families (closed forms, finite differences)."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from algorithms import RetCode, solve
from algorithms.curvature import (
    LCD1,
    CurvatureProblem,
    lp_regression,
    squared_hinge,
    squared_huber,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
    sum_of_squared_absolutely_convex,
)

RNG = np.random.default_rng(0)
A = RNG.standard_normal((12, 4))
X_TRUE = RNG.standard_normal(4)
B = A @ X_TRUE + 0.3 * RNG.standard_normal(12)


def _quadratic(**overrides):
    kwargs = dict(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=lambda x: 2 * np.eye(2),
                  L_C=0.0, x0=np.array([1.0, -1.0]), f_star=0.0)
    kwargs.update(overrides)
    return CurvatureProblem(**kwargs)


def families():
    return {
        "abs_linear": sum_of_squared_abs_linear(A, B, x0=np.ones(4)),
        "norm_residual": squared_norm_residual(A, B, x0=np.ones(4)),
        "huber": squared_huber(A, A @ X_TRUE, delta=0.7, x0=np.ones(4)),
        "lp_diag": squared_lp_norm(3.0, x0=np.array([1.0, -2.0, 0.5])),
        "lp_rank_one": squared_lp_norm(4.0, x0=np.array([1.0, -2.0, 0.5]), curvature="rank_one"),
        "lp_regression": lp_regression(A, A @ X_TRUE, 3.0, x0=np.ones(4)),
        "lp_regression_r1": lp_regression(A, A @ X_TRUE, 3.0, x0=np.ones(4), curvature="rank_one"),
        "hinge": squared_hinge(A, np.sign(B), x0=np.ones(4)),
    }


# --------------------------------------------------------------------------- validation


def test_valid_problem_fields():
    prob = _quadratic()
    assert prob.dimension == 2 and prob.f0 == 2.0 and prob.dtype == np.float64


@pytest.mark.parametrize("name, value, exc, match", [
    ("f", 3.0, TypeError, "f must be callable"),
    ("grad", None, TypeError, "grad must be callable"),
    ("curvature", "C", TypeError, "curvature must be callable"),
    ("L_C", -1.0, ValueError, "L_C"),
    ("L_C", float("nan"), ValueError, "L_C"),
    ("x0", np.ones((2, 2)), ValueError, "x0"),
    ("x0", [1.0, np.nan], ValueError, "x0"),
    ("f_star", 5.0, ValueError, "f_star"),
    ("f_star", float("inf"), ValueError, "f_star"),
    ("f_star", "0", TypeError, "f_star"),
    ("x_star", np.zeros(3), ValueError, "x_star"),
    ("L", 0.0, ValueError, "L"),
])
def test_bad_inputs(name, value, exc, match):
    with pytest.raises(exc, match=match):
        _quadratic(**{name: value})


def test_bad_curvature_shape_symmetry_psd():
    with pytest.raises(ValueError, match=r"curvature\(x\) must have shape"):
        _quadratic(curvature=lambda x: np.eye(3))
    with pytest.raises(ValueError, match="symmetric"):
        _quadratic(curvature=lambda x: np.array([[2.0, 1.0], [0.0, 2.0]]))
    with pytest.raises(ValueError, match="positive semidefinite"):
        _quadratic(curvature=lambda x: np.array([[1.0, 0.0], [0.0, -1.0]]))
    with pytest.raises(ValueError, match="positive semidefinite"):
        _quadratic(curvature=lambda x: np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="NaN"):
        _quadratic(curvature=lambda x: np.array([1.0, np.nan]))


def test_curvature_checks_are_relative_to_the_size_of_C():
    # rounding-level asymmetry / negativity of a large C passes (1e-8 · max|C| allowed), more fails
    big = 1e3 * np.array([[2.0, 1.0], [1.0, 2.0]])
    near = big + np.array([[0.0, 1e-6], [0.0, 0.0]])  # asymmetry 1e-6 <= 1e-8 · 2e3
    np.testing.assert_allclose(_quadratic(curvature=lambda x: near).curvature_at(np.zeros(2)),
                               0.5 * (near + near.T))
    assert _quadratic(curvature=lambda x: np.array([2e3, -1e-6])).curvature_at(np.zeros(2))[1] == 0.0
    with pytest.raises(ValueError, match="symmetric"):
        _quadratic(curvature=lambda x: big + np.array([[0.0, 1e-4], [0.0, 0.0]]))
    singular = 1e3 * np.array([[1.0, 1.0], [1.0, 1.0]]) - 1e-7 * np.eye(2)  # λ_min = −1e-7 >= −2e-5
    assert _quadratic(curvature=lambda x: singular).curvature_at(np.zeros(2)).shape == (2, 2)


def test_curvature_checked_at_runtime():
    # PSD at x0 = (1, -1) but indefinite once x1 < 0.5: the solve must stop with a clear error
    def curvature(x):
        return np.diag([2.0, 2.0 if x[0] > 0.5 else -1.0])

    prob = _quadratic(curvature=curvature, L_C=2.0)
    with pytest.raises(ValueError, match=r"curvature\(x\) must be positive semidefinite"):
        solve(prob, LCD1(), maxiters=5)


def test_f_star_equal_to_f_x0_is_fine():
    assert _quadratic(x0=np.zeros(2)).f_star == 0.0


def test_f_star_slack_is_ten_ulps_of_f_x0():
    # f(x0) = 2 here; f* may exceed it by rounding, up to 10 eps max(|f|, √(|f| T)) with T = |∇f(x0)ᵀ||x0| +
    # ‖C‖‖x0‖² = 4 + 4 the size of f's terms at x0 (#43 round 7: no absolute floor), i.e. 10 eps 4, not beyond
    # (round 8: an f_star within that slack passes this rule, and is then refuted as above the minimum 0 by
    # the descent check; the two messages tell the rules apart)
    eps = np.finfo(np.float64).eps
    with pytest.raises(ValueError, match=r"f_star = .* is above f's minimum: gradient steps"):
        _quadratic(f_star=2.0 + 10 * eps * 4.0)
    with pytest.raises(ValueError, match=r"f_star = .* exceeds f\(x0\)"):
        _quadratic(f_star=2.0 + 11 * eps * 4.0)


def test_a_solve_from_a_minimizer():
    # maxiters = 0 takes no step and reports the horizon; with a budget it stops at once with Success
    prob = _quadratic(x0=np.zeros(2))
    assert solve(prob, LCD1(), maxiters=0).retcode is RetCode.MaxIters
    sol = solve(prob, LCD1(), maxiters=5)
    assert sol.retcode is RetCode.Success and sol.stats.iterations == 0


def test_float32_x0_kept():
    prob = squared_norm_residual(A, B, x0=np.ones(4, dtype=np.float32))
    assert prob.dtype == np.float32


@pytest.mark.parametrize("builder, match", [
    (lambda: squared_norm_residual(np.ones(3), np.ones(3)), "A must be 2-dimensional"),
    (lambda: squared_norm_residual(A, np.ones(5)), "b must have shape"),
    (lambda: squared_norm_residual(A, B, x0=np.ones(3)), "x0 must have shape"),
    (lambda: squared_huber(A, B, delta=0.0), "delta"),
    (lambda: squared_lp_norm(1.5, x0=np.ones(2)), "p must be"),
    (lambda: squared_lp_norm(3, x0=np.ones(2), curvature="full"), "curvature must be one of"),
    (lambda: lp_regression(A, B, p=np.inf), "p must be"),
    (lambda: squared_hinge(A, B), "labels"),
    (lambda: sum_of_squared_absolutely_convex(None, lambda x: x, 1.0, np.ones(2)), "residuals"),
])
def test_family_bad_inputs(builder, match):
    with pytest.raises((ValueError, TypeError), match=match):
        builder()


# --------------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("name", list(families()))
def test_gradients_match_finite_differences(name):
    prob = families()[name]
    x = prob.x0 + 0.37
    fd = approx_fprime(x, prob.value, 1e-7)
    np.testing.assert_allclose(prob.gradient(x), fd, rtol=1e-5, atol=1e-5 * max(1.0, prob.value(x)))


def _fd_hessian(prob, x, h=1e-5):
    d = prob.dimension
    H = np.empty((d, d))
    for i in range(d):
        e = np.zeros(d)
        e[i] = h
        H[:, i] = (prob.gradient(x + e) - prob.gradient(x - e)) / (2 * h)
    return 0.5 * (H + H.T)


@pytest.mark.parametrize("name", [n for n in families() if n != "hinge"])
def test_hessian_sandwich(name):
    # twice differentiable members satisfy C(x) ⪯ ∇²f(x) ⪯ C(x) + L_C I (Lemmas E.6 and E.10)
    prob = families()[name]
    for shift in (0.37, -1.3, 2.1):
        x = prob.x0 + shift
        H = _fd_hessian(prob, x)
        C = prob.curvature_at(x)
        C = np.diag(C) if C.ndim == 1 else C
        scale = 1e-4 * max(1.0, np.abs(H).max())
        assert np.linalg.eigvalsh(H - C)[0] >= -scale
        assert np.linalg.eigvalsh(C + prob.L_C * np.eye(prob.dimension) - H)[0] >= -scale


def test_abs_linear_curvature_is_hessian_and_f_star_least_squares():
    prob = families()["abs_linear"]
    np.testing.assert_allclose(prob.curvature_at(prob.x0), 2 * A.T @ A)
    x_ls = np.linalg.lstsq(A, B, rcond=None)[0]
    np.testing.assert_allclose(prob.x_star, x_ls)
    assert prob.f_star == pytest.approx(float(np.sum((A @ x_ls - B) ** 2)))


def test_norm_residual_rank_one_curvature():
    prob = families()["norm_residual"]
    x = np.array([0.3, -0.2, 1.0, 0.5])
    r = A @ x - B
    u = A.T @ r / np.linalg.norm(r)
    np.testing.assert_allclose(prob.curvature_at(x), 2 * np.outer(u, u), rtol=1e-12)
    assert prob.L_C == pytest.approx(2 * np.linalg.norm(A, 2) ** 2)
    assert np.linalg.matrix_rank(prob.curvature_at(x)) == 1


def test_huber_one_dimensional_constants():
    # Example 6.1: f = h_δ², C(t) = min(t², δ²), L_C = 2δ², best smoothness 3δ²
    delta = 0.8
    prob = squared_huber(np.eye(1), np.zeros(1), delta=delta, x0=np.array([2.0]))
    for t, c in ((0.5, 0.25), (-0.3, 0.09), (3.0, delta**2), (-2.0, delta**2)):
        assert prob.curvature_at(np.array([t]))[0, 0] == pytest.approx(c)
    assert prob.L_C == pytest.approx(2 * delta**2) and prob.L == pytest.approx(3 * delta**2)
    assert prob.value(np.array([2.0])) == pytest.approx((delta * (2.0 - delta / 2)) ** 2)


@pytest.mark.parametrize("builder", [lambda b: squared_huber(A, b, delta=0.5),
                                     lambda b: lp_regression(A, b, 3.0)])
def test_planted_model_detected_at_any_scale(builder):
    # b = A x exactly (up to rounding): f* = 0 and x* = the least-squares solution, whatever |b|;
    # the exact-fit test is relative to ‖b‖² (an absolute cut-off misses it at ‖b‖ ~ 1e8)
    for scale in (1e-8, 1.0, 1e8):
        prob = builder(scale * (A @ X_TRUE))
        assert prob.f_star == 0.0
        np.testing.assert_allclose(prob.x_star, scale * X_TRUE, rtol=1e-9)
    assert builder(B).f_star is None  # noisy b: f* unknown


def test_lp_constants_and_diagonal_curvature():
    x = np.array([1.0, -2.0, 0.5])
    prob = squared_lp_norm(3.0, x0=x)
    N = np.sum(np.abs(x) ** 3) ** (1 / 3)
    np.testing.assert_allclose(prob.curvature_at(x), 2 * N ** (-1) * np.abs(x))
    assert prob.L_C == 4.0 and prob.f_star == 0.0
    assert prob.value(x) == pytest.approx(N**2)


def test_p_equal_two_is_the_euclidean_square():
    prob = squared_lp_norm(2, x0=np.array([3.0, 4.0]))
    assert prob.value(prob.x0) == pytest.approx(25.0)
    np.testing.assert_allclose(prob.curvature_at(prob.x0), [2.0, 2.0])


def test_hinge_active_set_curvature_would_violate_the_lower_bound():
    # why squared_hinge ships C ≡ 0: the active-set Gauss-Newton C fails Assumption 2.1
    a, label = np.array([1.0]), 1.0
    prob = squared_hinge(a[None, :], np.array([label]), x0=np.array([0.0]))
    y, x = np.array([0.0]), np.array([3.0])  # y active (margin 0 < 1), x inactive: f(x) = 0
    naive_C = 2 * np.outer(a, a)
    model = prob.value(y) + prob.gradient(y) @ (x - y) + 0.5 * (x - y) @ naive_C @ (x - y)
    assert prob.value(x) < model - 1.0
    assert not np.any(prob.curvature_at(y))


def test_generic_sum_of_squares_curvature():
    blocks = [A[:5], A[5:]]
    bs = [B[:5], B[5:]]

    def residuals(x):
        return np.array([np.linalg.norm(Aj @ x - bj) for Aj, bj in zip(blocks, bs)])

    def jacobian(x):
        return np.array([Aj.T @ (Aj @ x - bj) / np.linalg.norm(Aj @ x - bj) for Aj, bj in zip(blocks, bs)])

    prob = sum_of_squared_absolutely_convex(residuals, jacobian, L_C=2 * np.linalg.norm(A, 2) ** 2,
                                            x0=np.ones(4))
    assert prob.value(prob.x0) == pytest.approx(float(np.sum((A @ prob.x0 - B) ** 2)))
    np.testing.assert_allclose(prob.gradient(prob.x0), 2 * A.T @ (A @ prob.x0 - B))
    J = jacobian(prob.x0)
    np.testing.assert_allclose(prob.curvature_at(prob.x0), 2 * J.T @ J)


@pytest.mark.parametrize("builder", [lambda b, **kw: squared_huber(A, b, delta=0.5, **kw),
                                     lambda b, **kw: lp_regression(A, b, 3.0, **kw)])
def test_a_given_f_star_or_x_star_is_kept(builder):
    # the planted-model detection runs only when neither is given: a caller's x* is not overwritten
    # (with f* left unknown), and a caller's f* does not bring in a least-squares x*. The given x* is a
    # minimizer to solver accuracy (1e-9 off the planted one): #43 round 7 refuses an x* that is none
    given = X_TRUE + 1e-9
    prob = builder(A @ X_TRUE, x_star=given)
    assert prob.f_star is None
    np.testing.assert_array_equal(prob.x_star, given)
    prob = builder(A @ X_TRUE, f_star=0.0)
    assert prob.f_star == 0.0 and prob.x_star is None
