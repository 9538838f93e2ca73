"""Bad inputs to every public callable of ``algorithms.curvature``: each is rejected early, by our own
validation, with a message naming the argument and what was expected."""

import math
from decimal import Decimal

import numpy as np
import pytest

import algorithms.curvature as curvature
from algorithms import RetCode, solve
from algorithms.curvature import (
    LBFGS,
    LCD1,
    LCD2,
    LCD3,
    CurvatureProblem,
    GradientDescent,
    Polyak,
    gd_step,
    lcd1_step,
    lcd2_coefficients,
    lcd2_gap,
    lcd2_multiplier,
    lcd2_step,
    lcd3_step,
    lcd3_stepsize,
    lp_norm_power,
    lp_regression,
    polyak_step,
    scaled,
    shifted,
    squared_hinge,
    squared_huber,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
    sum_of_squared_absolutely_convex,
    summed,
)
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

A = np.array([[1.0, 2.0], [0.0, 1.0], [1.0, -1.0]])
B = np.array([1.0, 0.0, 2.0])
X2, G2 = np.ones(2), np.array([1.0, -1.0])


def _quadratic(**overrides):
    kwargs = dict(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=lambda x: 2 * np.ones(2),
                  L_C=0.0, x0=np.ones(2))
    kwargs.update(overrides)
    return CurvatureProblem(**kwargs)


def _lp(d=2):
    return squared_lp_norm(3, x0=np.ones(d))


CASES = [
    # problem
    BadInput(CurvatureProblem, lambda: _quadratic(f=3.0), TypeError, ("f", "callable"), "f"),
    BadInput(CurvatureProblem, lambda: _quadratic(L_C=-1.0), ValueError, ("L_C", ">= 0"), "L_C"),
    BadInput(CurvatureProblem, lambda: _quadratic(L_C=math.nan), ValueError, ("L_C", ">= 0"), "L_C-nan"),
    BadInput(CurvatureProblem, lambda: _quadratic(L_C="1"), TypeError, ("L_C", "real number"), "L_C-str"),
    BadInput(CurvatureProblem, lambda: _quadratic(x0=np.ones((2, 2))), ValueError, ("x0", "1-dimensional"),
             "x0-2d"),
    BadInput(CurvatureProblem, lambda: _quadratic(x0=np.array([])), ValueError, ("x0", "at least one"),
             "x0-empty"),
    BadInput(CurvatureProblem, lambda: _quadratic(f_star=5.0), ValueError, ("f_star", "exceeds"), "f_star"),
    BadInput(CurvatureProblem, lambda: _quadratic(x_star=np.zeros(3)), ValueError, ("x_star", "shape"),
             "x_star"),
    BadInput(CurvatureProblem, lambda: _quadratic(L=0.0), ValueError, ("L", "> 0"), "L"),
    BadInput(CurvatureProblem, lambda: _quadratic(name=3), TypeError, ("name", "str"), "name"),
    BadInput(CurvatureProblem, lambda: _quadratic(f=lambda x: x), ValueError, ("f(x)", "scalar"),
             "f-vector"),
    BadInput(CurvatureProblem, lambda: _quadratic(grad=lambda x: np.ones(3)), ValueError,
             ("grad(x)", "shape"), "grad-shape"),
    BadInput(CurvatureProblem, lambda: _quadratic(curvature=lambda x: np.eye(3)), ValueError,
             ("curvature(x)", "shape"), "curvature-shape"),
    BadInput(CurvatureProblem, lambda: _quadratic(curvature=lambda x: -np.ones(2)), ValueError,
             ("curvature(x)", "positive semidefinite"), "curvature-psd"),
    # families
    BadInput(squared_norm_residual, lambda: squared_norm_residual(np.zeros((3, 2)), B), ValueError,
             ("A", "nonzero"), "zero-A"),
    BadInput(squared_norm_residual, lambda: squared_norm_residual(np.zeros((0, 2)), np.zeros(0)), ValueError,
             ("A", "at least one row"), "empty-A"),
    BadInput(squared_norm_residual, lambda: squared_norm_residual(A, np.ones(4)), ValueError,
             ("b", "shape (3,)"), "b-shape"),
    BadInput(sum_of_squared_abs_linear, lambda: sum_of_squared_abs_linear(A, B, x0=np.ones(3)), ValueError,
             ("x0", "shape (2,)"), "x0-shape"),
    BadInput(sum_of_squared_absolutely_convex,
             lambda: sum_of_squared_absolutely_convex("r", lambda x: np.eye(2), 1.0, X2), TypeError,
             ("residuals", "callable"), "residuals"),
    BadInput(sum_of_squared_absolutely_convex,
             lambda: sum_of_squared_absolutely_convex(np.abs, lambda x: np.eye(3), 1.0, X2), ValueError,
             ("jacobian(x)", "shape (2, 2)"), "jacobian-shape"),
    BadInput(squared_huber, lambda: squared_huber(A, B, delta=0.0), ValueError, ("delta", "> 0"), "delta"),
    BadInput(squared_lp_norm, lambda: squared_lp_norm(1.5, x0=X2), ValueError, ("p", ">= 2"), "p"),
    BadInput(squared_lp_norm, lambda: squared_lp_norm(3, x0=X2, curvature="full"), ValueError,
             ("curvature", "diagonal"), "curvature"),
    BadInput(lp_regression, lambda: lp_regression(A, B, p="3"), TypeError, ("p", "real number"), "p"),
    BadInput(lp_norm_power, lambda: lp_norm_power(1.0, x0=X2), ValueError, ("p", ">= 2"), "p"),
    BadInput(squared_hinge, lambda: squared_hinge(A, np.array([1.0, 0.0, -1.0])), ValueError,
             ("b", "{-1, +1}"), "labels"),
    # calculus
    BadInput(shifted, lambda: shifted(_lp(), math.inf), ValueError, ("alpha", "finite"), "alpha"),
    BadInput(shifted, lambda: shifted("f", 1.0), TypeError, ("problem", "CurvatureProblem"), "problem"),
    BadInput(scaled, lambda: scaled(_lp(), 0.0), ValueError, ("beta", "> 0"), "beta"),
    BadInput(summed, lambda: summed(_lp(2), _lp(3)), ValueError, ("second", "dimension"), "dimension"),
    # algorithms (hyperparameters, or what solve needs from the problem)
    BadInput(GradientDescent, lambda: GradientDescent(lr=0.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(GradientDescent, lambda: GradientDescent(lr="0.1"), TypeError, ("lr", "real number"), "lr-str"),
    BadInput(LBFGS, lambda: LBFGS(memory=0), ValueError, ("memory", "positive int"), "memory"),
    BadInput(LCD1, lambda: solve(lp_norm_power(3, x0=X2), LCD1()), ValueError, ("L_C", "finite"), "inf-L_C"),
    BadInput(LCD2, lambda: solve(_quadratic(), LCD2()), ValueError, ("f_star",), "no-f_star"),
    BadInput(LCD3, lambda: solve(_quadratic(), LCD3()), ValueError, ("f_star",), "no-f_star"),
    BadInput(Polyak, lambda: solve(_quadratic(), Polyak()), ValueError, ("f_star",), "no-f_star"),
    # step helpers
    BadInput(gd_step, lambda: gd_step(X2, G2, -0.1), ValueError, ("lr", "> 0"), "lr"),
    BadInput(polyak_step, lambda: polyak_step(X2, np.zeros(2), 1.0, 0.0), ValueError,
             ("g_norm_sq", "> 0"), "zero-gradient"),
    BadInput(polyak_step, lambda: polyak_step(X2, G2, -1.0, 2.0), ValueError, ("delta", ">= 0"), "delta"),
    BadInput(lcd1_step, lambda: lcd1_step(X2, np.ones(3), np.zeros(2), 1.0), ValueError,
             ("g", "shape (2,)"), "g-shape"),
    BadInput(lcd1_step, lambda: lcd1_step(X2, G2, np.zeros((3, 3)), 1.0), ValueError,
             ("C", "shape"), "C-shape"),
    BadInput(lcd1_step, lambda: lcd1_step(X2, G2, np.zeros(2), -1.0), ValueError, ("L_C", ">= 0"), "L_C"),
    BadInput(lcd2_gap, lambda: lcd2_gap(1.0, 1.0, G2, np.zeros(3)), ValueError, ("D", "shape"), "D-shape"),
    BadInput(lcd2_gap, lambda: lcd2_gap(-1.0, 1.0, G2, np.zeros(2)), ValueError, ("lam", ">= 0"), "lam"),
    BadInput(lcd2_coefficients, lambda: lcd2_coefficients(1.0, -np.ones(2)), ValueError, ("D", ">= 0"),
             "D-negative"),
    BadInput(lcd2_multiplier, lambda: lcd2_multiplier(1.0, np.zeros(2), np.ones(2)), ValueError,
             ("ghat", "nonzero"), "zero-gradient"),
    BadInput(lcd2_multiplier, lambda: lcd2_multiplier(0.0, G2, np.ones(2)), ValueError, ("delta", "> 0"),
             "delta"),
    BadInput(lcd2_step, lambda: lcd2_step(X2, G2, np.eye(3), 1.0), ValueError, ("C", "shape"), "C-shape"),
    BadInput(lcd2_step, lambda: lcd2_step(X2, G2, np.eye(2), math.nan), ValueError, ("delta", "finite"),
             "delta"),
    BadInput(lcd3_stepsize, lambda: lcd3_stepsize(1.0, 0.0), ValueError, ("G", "> 0"), "G"),
    BadInput(lcd3_step, lambda: lcd3_step(np.ones((2, 1)), G2, np.eye(2), 1.0), ValueError,
             ("x", "1-dimensional"), "x-2d"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_rejected(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered([curvature], CASES)


def test_integer_inputs_are_promoted():
    prob = squared_norm_residual(np.array([[1, 0], [0, 2]]), np.array([1, 1]))
    assert prob.x0.dtype == np.float64 and prob.L == 8.0
    assert GradientDescent(lr=1).lr == 1.0 and isinstance(GradientDescent(lr=1).lr, float)


# round 2 of the held-out audit (issue #43): the step helpers check what the solvers check: x and g of
# one shape and finite, a numeric lr, C symmetric positive semidefinite, Δ = f(x) − f* >= 0
_X2, _G2 = np.ones(2), np.array([2.0, 4.0])
ROUND2 = [
    BadInput(curvature.gd_step, lambda: curvature.gd_step(_X2, np.ones(3), 0.1), ValueError, ("g", "shape"),
             "g-shape"),
    BadInput(curvature.gd_step, lambda: curvature.gd_step(_X2, np.array([np.nan, 1.0]), 0.1), ValueError,
             ("g", "NaN"), "g-nan"),
    BadInput(curvature.gd_step, lambda: curvature.gd_step(_X2, _G2, "0.1"), TypeError, ("lr",), "lr-str"),
    BadInput(curvature.polyak_step, lambda: curvature.polyak_step(_X2, np.ones(3), 1.0, 1.0), ValueError,
             ("g", "shape"), "g-shape"),
    BadInput(curvature.lcd1_step, lambda: curvature.lcd1_step(_X2, _G2, -np.ones(2), 1.0), ValueError,
             ("C", "positive semidefinite"), "C-negative"),
    BadInput(curvature.lcd1_step,
             lambda: curvature.lcd1_step(_X2, _G2, np.array([[1.0, 2.0], [0.0, 1.0]]), 1.0),
             ValueError, ("C", "symmetric"), "C-asymmetric"),
    BadInput(curvature.lcd2_step, lambda: curvature.lcd2_step(_X2, _G2, np.zeros(2), -1.0), ValueError,
             ("delta", ">= 0"), "delta"),
    BadInput(curvature.lcd2_step, lambda: curvature.lcd2_step(_X2, _G2, -np.ones(2), 1.0), ValueError,
             ("C", "positive semidefinite"), "C-negative"),
    BadInput(curvature.lcd3_step, lambda: curvature.lcd3_step(_X2, _G2, np.ones(2), -1.0), ValueError,
             ("delta", ">= 0"), "delta"),
]


@pytest.mark.parametrize("case", ROUND2, ids=lambda c: c.id)
def test_round2_bad_input(case):
    check_bad_input(case)


def test_step_helpers_keep_scalars_and_sympy():
    import sympy

    s = sympy.Symbol("s")
    assert curvature.gd_step(1.0, 2.0, 0.25) == 0.5
    assert curvature.gd_step(s, 2 * s, sympy.Rational(1, 4)) == s / 2
    assert curvature.polyak_step(s, 2, s, 4) == s / 2
    assert curvature.lcd2_step(_X2, _G2, np.zeros(2), 0.0)[0].tolist() == [1.0, 1.0]  # Δ = 0: no move


def test_complex_values_refused_by_name():
    # #43 round 4: np.asarray(x, dtype=float) dropped the imaginary part with only a ComplexWarning
    from algorithms import solve
    from algorithms.curvature import LCD1
    from algorithms.curvature.problem import sum_of_squared_absolutely_convex

    def problem(residuals, jacobian):
        return sum_of_squared_absolutely_convex(residuals, jacobian, L_C=0.0, x0=np.array([1.0, -1.0]),
                                                f_star=0.0)

    with pytest.raises(TypeError, match=r"^residuals\(x\) must be real, got complex"):
        solve(problem(lambda x: np.abs(x) + 1j, lambda x: np.diag(np.sign(x))), LCD1(), maxiters=3)
    with pytest.raises(TypeError, match=r"^jacobian\(x\) must be real, got complex"):
        solve(problem(lambda x: np.abs(x), lambda x: np.diag(np.sign(x)) + 1j), LCD1(), maxiters=3)


def test_inconsistent_optimum_refused_by_name():
    # #43 round 4 (audit4 C17): f(x_star) = 1 with f_star = 0 was accepted
    from algorithms.curvature import CurvatureProblem

    def quad(**kw):
        return CurvatureProblem(f=lambda x: float(x @ x) / 2, grad=lambda x: x, curvature=lambda x: np.eye(2),
                                L_C=0.0, x0=np.array([1.0, -2.0]), **kw)

    with pytest.raises(ValueError, match=r"^x_star and f_star disagree: f\(x_star\) = 1\.0 but f_star = 0"):
        quad(x_star=np.array([1.0, 1.0]), f_star=0.0)
    assert quad(x_star=np.zeros(2), f_star=0.0).f_star == 0.0


@pytest.mark.parametrize("s", [1e-7, 1.0, 1e7])
def test_optimum_agreement_is_unit_free_and_ignores_x0(s):
    # #43 round 7: the x_star/f_star check was relative to max(1, |f(x0)|): it refused lstsq's x_star on data
    # x 2^40 with x0 near the optimum (f(x_star) = 6.3e-6 from rounding against terms ~1e25) and accepted any
    # pair within 1e-6 in f on data x 1e-7; the f_star > f(x0) slack had the same absolute floor
    from algorithms.curvature import CurvatureProblem

    def quad(x0, **kw):
        return CurvatureProblem(f=lambda x: float(x @ x) / 2, grad=lambda x: x, curvature=lambda x: np.eye(2),
                                L_C=0.0, x0=s * np.asarray(x0), **kw)

    with pytest.raises(ValueError, match=r"^x_star and f_star disagree"):
        quad([1.0, -2.0], x_star=s * np.array([1.0, 1.0]), f_star=0.0)
    with pytest.raises(ValueError, match=r"^x_star and f_star disagree"):
        quad([1.0, -2.0], x_star=np.zeros(2), f_star=-(s**2))
    with pytest.raises(ValueError, match=r"^f_star = .* exceeds f\(x0\)"):
        quad([1.0, -2.0], f_star=2.6 * s**2)
    assert quad([1.0, -2.0], x_star=np.zeros(2), f_star=0.0).f_star == 0.0
    # a numerically solved optimum of a large-scale least squares, x0 at the optimum itself
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 3))
    b = 2.0**40 * s * (A @ rng.standard_normal(3))
    x_star = np.linalg.lstsq(A, b, rcond=None)[0]
    prob = CurvatureProblem(f=lambda x: float(np.sum((A @ x - b) ** 2)), grad=lambda x: 2 * A.T @ (A @ x - b),
                            curvature=lambda x: 2 * A.T @ A, L_C=0.0, x0=x_star, f_star=0.0, x_star=x_star)
    assert prob.f_star == 0.0


@pytest.mark.parametrize("algorithm", ["LCD1", "LCD2", "LCD3", "Polyak", "GradientDescent", "LBFGS"])
def test_stopping_rule_does_not_depend_on_the_units(algorithm):
    # #43 round 7: f − f* <= tol and ‖∇f‖ <= tol were absolute: on data x1e-7 (f ~ 1e-14) all methods
    # returned Success at x0 = 0, far from the optimum (1, -0.5); the tests are now relative to the scales
    import algorithms.curvature as curvature
    from algorithms.curvature import squared_norm_residual

    A, b = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([1.0, -1.0, 0.5])
    for s in (1e-7, 1.0, 1e7):
        sol = solve(squared_norm_residual(A * s, b * s), getattr(curvature, algorithm)())
        assert sol.retcode is RetCode.Success and sol.stats.iterations > 0, s
        np.testing.assert_allclose(sol.x, [1.0, -0.5], atol=1e-4)


def test_x_star_alone_must_be_a_minimizer():
    # #43 round 7: an x_star given without f_star was never checked (lp_regression(x_star=[5, 5]) accepted)
    from algorithms.curvature import CurvatureProblem, lp_regression

    def quad(**kw):
        return CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                                curvature=lambda x: 2 * np.eye(2), L_C=0.0, **kw)

    A, b = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([1.0, -1.0, 0.5])
    with pytest.raises(ValueError, match=r"^x_star is not a minimizer of f"):
        lp_regression(A, b, 3.0, x_star=np.array([5.0, 5.0]))
    for s in (1e-7, 1.0, 1e7):
        with pytest.raises(ValueError, match=r"^x_star is not a minimizer of f"):
            quad(x0=s * np.ones(2), x_star=s * np.array([1e-3, 0.0]))
        assert quad(x0=s * np.ones(2), x_star=np.zeros(2)).x_star is not None


@pytest.mark.parametrize("algorithm", ["LCD1", "LCD2", "LCD3", "GradientDescent", "LBFGS"])
def test_f_star_below_the_minimum_is_refused_at_the_stationary_point(algorithm):
    # #43 round 7: f = ‖x‖² + 1 with f_star = 0 (the minimum is 1): Success at the minimizer with the gap 1
    import algorithms.curvature as curvature
    from algorithms.curvature import CurvatureProblem

    prob = CurvatureProblem(f=lambda x: float(x @ x) + 1.0, grad=lambda x: 2 * x,
                            curvature=lambda x: 2 * np.eye(2), L_C=0.0, x0=np.ones(2), f_star=0.0, L=2.0)
    with pytest.raises(ValueError, match=r"^f_star = 0\.0 is below f's minimum"):
        solve(prob, getattr(curvature, algorithm)(), maxiters=100)


def test_heldout7_arity_and_point_shape():
    # #43 round 7 (heldout7 B, D): f=lambda: 1.0 met Python's TypeError; value(np.ones(3)) on a 2-d problem
    # answered f's broadcast (3.0)
    from algorithms.curvature import CurvatureProblem

    kw = dict(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=lambda x: 2 * np.eye(2), L_C=0.0,
              x0=np.ones(2))
    for name in ("f", "grad", "curvature"):
        with pytest.raises(TypeError, match=rf"^{name} must take 1 positional argument"):
            CurvatureProblem(**(kw | {name: lambda: 1.0}))
    prob = CurvatureProblem(**kw)
    for method in (prob.value, prob.gradient, prob.curvature_at):
        with pytest.raises(ValueError, match=r"^x must have shape \(2,\)"):
            method(np.ones(3))


def test_round8_points_steps_and_tolerances_checked():
    # #43 round 8 (pre-audit sweep): value/gradient at a NaN point answered NaN; stopping_tolerances(-1)
    # returned negative tolerances; lcd2_gap took delta < 0; polyak_step took a g_norm_sq that is not ‖g‖²;
    # lcd3_stepsize of arrays met math.sqrt's "0-dimensional" error
    from algorithms.curvature import lcd2_gap, lcd3_stepsize, polyak_step, squared_lp_norm

    problem = squared_lp_norm(3, np.array([1.0, -2.0]))
    for method in (problem.value, problem.gradient, problem.curvature_at):
        with pytest.raises(ValueError, match=r"^x must be finite"):
            method(np.array([np.nan, 1.0]))
    for tol in (-1.0, float("nan"), 0.0):
        with pytest.raises(ValueError, match=r"^tol must be > 0"):
            problem.stopping_tolerances(tol)
    with pytest.raises(ValueError, match=r"^delta \(= f\(x\) − f\*\) must be >= 0"):
        lcd2_gap(1.0, -1.0, np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match=r"^g_norm_sq must be ‖g‖² = 2"):
        polyak_step(np.zeros(2), np.ones(2), 1.0, 5.0)
    assert polyak_step(np.zeros(2), np.ones(2), 1.0, 2.0).tolist() == [-0.5, -0.5]
    with pytest.raises(TypeError, match=r"^delta must be a real number"):
        lcd3_stepsize(np.ones(2), 1.0)
    writes = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: x.__imul__(2.0),
                              curvature=lambda x: np.zeros(2), L_C=2.0, x0=np.array([1.0, -2.0]))
    sol = solve(writes, GradientDescent(lr=0.1), maxiters=3)  # grad writing into x: the iterate is a copy
    assert np.allclose(sol.x, np.array([1.0, -2.0]) * 0.8**3)
    assert solve(squared_lp_norm(3, np.array([1.0, -2.0])), GradientDescent(lr=1e30), maxiters=5).retcode \
        is RetCode.Diverged


def test_round8_f_star_above_the_minimum_refused():
    # #43 round 8: an f_star alone above f's minimum (4.9 on ‖x‖², minimum 0, f(x0) = 5) made LCD2/LCD3/Polyak
    # stop at x ≈ x0 with Success (they step to the f* level set); L-BFGS-B reached f = 0 < f_star: Success
    def quadratic(**kwargs):
        return CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                                curvature=lambda x: 2 * np.ones(2), L_C=2.0, x0=np.array([1.0, 2.0]),
                                **kwargs)

    for f_star in (4.9, 0.5):
        with pytest.raises(ValueError, match=r"^f_star = .* is above f's minimum"):
            quadratic(f_star=f_star)
    assert solve(quadratic(f_star=0.0), curvature.LCD2()).retcode is RetCode.Success


def test_heldout8_step_helpers():
    # #43 round 8 (heldout8 phase 2): gd_step of list/tuple g met "can't multiply sequence"; lcd2_step of an
    # empty x blamed g;
    # sum_of_squared_abs_linear blamed b for A's short rows; lcd3_stepsize read G=True as 1
    from algorithms.curvature import gd_step, lcd2_step, lcd3_stepsize, sum_of_squared_abs_linear

    assert gd_step([1.0, 2.0], [1.0, 1.0], 0.5).tolist() == [0.5, 1.5]
    assert gd_step((1.0,), (2.0,), 0.25).tolist() == [0.5]
    with pytest.raises(ValueError, match=r"^x must have at least one entry"):
        lcd2_step(np.zeros(0), np.ones(1), np.ones(1), 1.0)
    with pytest.raises(ValueError, match=r"^A and b must agree"):
        sum_of_squared_abs_linear(np.ones((2, 2)), np.ones(3))
    with pytest.raises(TypeError, match=r"^G must be a real number"):
        lcd3_stepsize(0.5, True)


def test_round8_lbfgs_honours_a_stop_request_at_x0():
    # #43 round 8: L-BFGS-B ignored the callback's stop request at the first record (x0): one step, then
    # Terminated with iterations = 1
    from algorithms.curvature import LBFGS, squared_lp_norm

    problem = squared_lp_norm(3, np.array([1.0, -2.0]))
    sol = solve(problem, LBFGS(), maxiters=5, callback=lambda record: True)
    assert sol.retcode is RetCode.Terminated and sol.stats.iterations == 0
    assert np.array_equal(sol.x, problem.x0)


def test_round9_step_helpers_factories_and_mismatches():
    # #43 round 9 (pre-audit sweep): the scalar step helpers let a str, None, a Decimal or 10**400 reach
    # numpy's or Python's own TypeError/OverflowError; gd_step(lr=1e308) returned -inf; a tensor x met
    # torch's "Can't call numpy() on Tensor that requires grad"; the factories blamed derived constants
    # ("L must be > 0 and finite, got inf" for scaled(beta=1e308), OverflowError for
    # squared_huber(delta=1e308));
    # an x of the wrong length was reported as a wrong g, an x0 as a wrong x_star; x0 of the wrong length
    # met numpy's matmul error inside the user's callables
    import torch

    from algorithms.curvature import (
        CurvatureProblem,
        gd_step,
        lcd1_step,
        lcd2_coefficients,
        lcd2_gap,
        lcd3_stepsize,
        polyak_step,
        scaled,
        squared_huber,
        squared_lp_norm,
        squared_norm_residual,
        sum_of_squared_absolutely_convex,
    )

    with pytest.raises(ValueError, match=r"^lr = 1e\+308 is outside the package's working range"):
        gd_step(np.ones(2), np.full(2, 10.0), 1e308)
    assert gd_step(torch.ones(2, requires_grad=True), np.ones(2), 0.5).tolist() == [0.5, 0.5]
    for bad, error in ((None, TypeError), ("x", TypeError), (Decimal("1"), TypeError), (10**400, ValueError)):
        with pytest.raises(error, match=r"^lam must be"):
            lcd2_coefficients(bad, np.ones(2))
        with pytest.raises(error, match=r"^delta must be"):
            lcd2_gap(0.5, bad, np.ones(2), np.ones(2))
        with pytest.raises(error, match=r"^G must be"):
            lcd3_stepsize(0.5, bad)
        with pytest.raises(error, match=r"^g_norm_sq must be"):
            polyak_step(np.ones(2), np.ones(2), 1.0, bad)
    with pytest.raises(ValueError, match=r"^D is on the meta device"):
        lcd2_coefficients(0.5, torch.ones(2, device="meta"))
    with pytest.raises(ValueError, match=r"^L_C must be a float in \[0, inf\]"):
        lcd1_step(np.ones(2), np.ones(2), np.eye(2), 10**400)
    with pytest.raises(ValueError, match=r"^x and g must have one length d"):
        lcd1_step(np.ones(1), np.ones(2), np.eye(1), 1.0)
    A, b = np.array([[1.0, 2.0], [0.0, 1.0], [1.0, -1.0]]), np.array([1.0, 0.0, 2.0])
    problem = squared_norm_residual(A, b)
    with pytest.raises(ValueError, match=r"^beta = 1e\+308 is outside the package's working range"):
        scaled(problem, 1e308)
    with pytest.raises(ValueError, match=r"^beta = 1e\+38 makes the scaled constants overflow"):
        scaled(problem, 1e38)  # round 12: β inside the range, βL past it
    with pytest.raises(ValueError, match=r"^delta = 1e\+308 is outside the package's working range"):
        squared_huber(A, b, delta=1e308)
    with pytest.raises(ValueError, match=r"^p must be finite"):
        squared_lp_norm(10**400, np.ones(2))
    with pytest.raises(ValueError, match=r"^x_star must have shape \(1,\) \(that of x0\)"):
        CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                         curvature=lambda x: 2 * np.ones_like(x), L_C=0.0, x0=np.ones(1), x_star=np.zeros(3))
    with pytest.raises(ValueError, match=r"^the callables failed at x0 \(shape \(1,\)"):
        sum_of_squared_absolutely_convex(lambda x: A @ x - b, lambda x: A, 1.0, np.ones(1))
    # round 13: only where C(x0) = 0 does a bound alone set ∇f's rounding level (a valid L_C = 1e38 beside a
    # nonzero C(x0) runs: test_bad_inputs_round13)
    with pytest.raises(ValueError, match=r"^L_C = 1e\+38 is too large for this problem: C\(x0\) = 0"):
        squared_norm_residual(A, b, x0=np.ones(2)).__class__(
            f=problem.f, grad=problem.grad, curvature=lambda x: np.zeros_like(x), L_C=1e38, x0=np.ones(2))


def test_heldout9_callables_points_and_object_arrays_named():
    # #43 round 9 (heldout9 interim): a jacobian returning NaN was refused as "grad(x0) contains NaN" and a
    # residuals of the wrong length as a wrong jacobian; a ragged x met numpy's "inhomogeneous shape";
    # lcd2_multiplier of an object array holding a str met Python's operator errors
    from algorithms.curvature import lcd2_multiplier, squared_norm_residual, sum_of_squared_absolutely_convex

    A, b = np.array([[1.0, 2.0], [0.0, 1.0], [1.0, -1.0]]), np.array([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match=r"jacobian = .* gives an invalid problem: grad\(x0\) contains NaN"):
        sum_of_squared_absolutely_convex(lambda x: A @ x - b, lambda x: A * np.nan, 1.0, np.ones(2))
    with pytest.raises(ValueError, match=r"^jacobian\(x\) must have shape \(4, 2\) \(m = len\(residuals"):
        sum_of_squared_absolutely_convex(lambda x: np.ones(4), lambda x: A, 1.0, np.ones(2))
    problem = squared_norm_residual(A, b)
    with pytest.raises(TypeError, match=r"^x must be a vector of 2 numbers"):
        problem.value([[1.0, 2.0], [1.0]])
    with pytest.raises(TypeError, match=r"^ghat must be numeric"):
        lcd2_multiplier(1.0, np.array(["x", 0.1], dtype=object), np.ones(2))


def test_round10_loose_upper_constants_and_underflowing_lp_norms():
    # #43 round 10: a loose (huge) but valid L or L_C (squared_huber(delta=2**64): L = 3δ²‖A‖²; L_C = 1e308)
    # made the gradient stopping scale ~1e154: every solve stopped at x0 and blamed f_star by name. And
    # Σ|rᵢ|^p underflowed to 0 (p = 2**31, or p = 100 with residuals 1e-4): f = 0 away from the optimum,
    # LBFGS/LCD2 reported Success there (a wrong answer, silently)
    import dataclasses

    from algorithms import RetCode, solve
    from algorithms.curvature import LBFGS, LCD2, GradientDescent, lp_regression, squared_huber

    # round 12: the loosest L the working range holds (δ = 2**64 puts L = 3δ² past it, refused naming delta)
    sol = solve(squared_huber(np.eye(3), np.ones(3), delta=2.0**62), LCD2())
    assert sol.retcode is RetCode.Success and np.allclose(sol.x, 1.0, atol=1e-2)
    # round 12: a loose L_C inside the working range
    loose = dataclasses.replace(lp_regression(np.eye(3), np.ones(3), p=3.0), L_C=1e38)
    assert solve(loose, GradientDescent(), maxiters=3).retcode is RetCode.MaxIters
    for p, b in ((2**31, np.ones(3)), (100.0, 1e-4 * np.ones(3))):
        problem = lp_regression(np.eye(3), b, p=p)
        assert problem.value(np.zeros(3)) > 0.0
        sol = solve(problem, LBFGS())
        assert sol.retcode is not RetCode.Success or np.allclose(sol.x, b, rtol=1e-3)


def test_round10_relative_tol_below_one():
    # #43 round 10: the family's tol is relative to x0's gap and gradient; tol = 1e308 (or any tol >= 1)
    # reported Success at x0 itself
    from algorithms.curvature import LBFGS, LCD2, lp_regression

    problem = lp_regression(np.eye(2), np.ones(2), p=3.0)
    for algorithm in (LCD2(), LBFGS()):
        with pytest.raises(ValueError, match=r"^tol must be < 1"):
            solve(problem, algorithm, tol=1e30)  # round 12: solve() refuses 1e308 (working range)
    assert solve(problem, LCD2(), tol=0.5).retcode is RetCode.Success


def test_round10_lcd1_step_refuses_an_overflowing_step():
    # #43 round 10: lcd1_step with L_C = 5e-324 and C = 0 returned [-inf, -inf] (a public helper's silent inf)
    from algorithms.curvature import lcd1_step

    with pytest.raises(ValueError, match=r"^L_C = 5e-324 is too small"):
        lcd1_step(np.array([1.0, 1.0]), np.array([2.0, 4.0]), np.zeros(2), 5e-324)


def test_round10_problem_arrays_read_only():
    # #43 round 10: a NaN written into problem.x0 / x_star after the checks reached the solvers
    from algorithms.curvature import lp_regression

    problem = lp_regression(np.eye(2), np.ones(2), p=3.0)
    for array in (problem.x0, problem.x_star):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = np.nan


def test_round11_step_helpers_refuse_an_empty_point_and_promote_dtypes():
    with pytest.raises(ValueError, match="x must have at least one entry"):
        curvature.gd_step(np.array([]), np.array([]), 0.1)
    with pytest.raises(ValueError, match="x must have at least one entry"):  # was blamed on g_norm_sq
        curvature.polyak_step(np.array([]), np.array([]), 1.0, 0.0)
    x, g = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    # documented: float32 kept only when both are, other precisions promoted to float64
    assert curvature.gd_step(x.astype(np.float32), g.astype(np.float32), 0.1).dtype == np.float32
    assert curvature.gd_step(x.astype(np.float32), g, 0.1).dtype == np.float64
    assert curvature.lcd1_step(x.astype(np.float16), g, np.ones(2), 1.0).dtype == np.float64


def test_round11_gradient_precision_and_mixed_problem_dtypes():
    A = np.diag([2.0, 1.0])
    for cast in (np.float32, np.float16, np.int64):
        with pytest.raises(TypeError, match=r"grad\(x\) must return floats at least as precise"):
            curvature.CurvatureProblem(f=lambda x: float(x @ A @ x),
                                       grad=lambda x, c=cast: (2 * A @ x).astype(c),
                                       curvature=lambda x: 2 * A,
                                       L_C=0.0, x0=np.array([1.0, -1.0]), f_star=0.0)
    # a more precise gradient on a float32 start is fine
    prob = curvature.CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2.0 * x.astype(np.float64),
                                      curvature=lambda x: 2 * np.eye(2), L_C=0.0, x0=np.ones(2, np.float32))
    assert prob.dtype == np.float32
    with pytest.raises(TypeError, match=r"first \(float64\) and second \(float32\) must share a dtype"):
        curvature.summed(curvature.squared_lp_norm(2, x0=np.ones(2)),
                         curvature.squared_lp_norm(2, x0=np.ones(2, dtype=np.float32)))
    # the default start is float32 only when A and b both are (A alone decided before)
    assert curvature.lp_regression(np.eye(2, dtype=np.float32), np.ones(2), p=3).dtype == np.float64
    single = curvature.lp_regression(np.eye(2, dtype=np.float32), np.ones(2, np.float32), p=3)
    assert single.dtype == np.float32


def test_heldout11_factory_data_past_the_squares_range_named():
    # round 12: the working range refuses the entries themselves, by name
    with pytest.raises(ValueError, match=r"^b has an entry of magnitude 1e\+300, outside the package's"):
        curvature.squared_huber(np.eye(2), np.full(2, 1e300))
    with pytest.raises(ValueError, match=r"^A has an entry of magnitude 1e\+300, outside the package's"):
        curvature.squared_norm_residual(np.full((2, 2), 1e300), np.ones(2))
