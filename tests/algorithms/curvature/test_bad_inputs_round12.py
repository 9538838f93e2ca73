"""#43 round 12: the working range (README) in the curvature family, one test per class."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.curvature import LCD2, Polyak, lcd2_multiplier, lcd2_step, squared_lp_norm


@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_lcd2_multiplier_refuses_a_tiny_delta_like_its_zero(tiny):
    with pytest.raises(ValueError, match=r"^delta = .* is outside the package's working range"):
        lcd2_multiplier(tiny, np.array([1.0, 1.0]), np.zeros(2))
    # lcd2_step takes any delta >= 0 (a tiny one is a valid near-0): its own multiplier call is not refused
    x, info = lcd2_step(np.array([1.0]), np.array([2.0]), np.zeros(1), tiny)
    assert np.isfinite(x).all() and info["multiplier"] >= 0


def test_an_underflowing_gradient_norm_is_named_not_a_zero_division():
    with pytest.raises(ValueError, match=r"^g is too small: ‖g‖² underflows"):
        lcd2_step(np.array([1.0]), np.array([5e-324]), np.zeros(1), 1.0)
    with pytest.raises(ValueError, match=r"^ghat is too small"):
        lcd2_multiplier(1.0, np.array([5e-324]), np.zeros(1))


@pytest.mark.parametrize("algorithm", [LCD2(), Polyak()])
def test_runs_at_the_ranges_edge_end_with_a_retcode(algorithm):
    # a start of 1e19 (f ~ 1e38 on ‖x‖²): the steps' own numbers are not refused as a caller's would be
    sol = solve(squared_lp_norm(2, x0=np.array([1e19, -1e19])), algorithm, maxiters=50)
    assert sol.retcode in (RetCode.Success, RetCode.MaxIters, RetCode.Diverged)


def test_x0_and_x_star_cannot_be_made_writable():
    problem = squared_lp_norm(2, x0=np.array([1.0, 2.0]))
    for array in (problem.x0, problem.x_star):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.setflags(write=True)


def test_factories_name_the_data_whose_derived_values_leave_the_range():
    from algorithms.curvature import lp_norm_power, squared_hinge, squared_huber, sum_of_squared_abs_linear

    with pytest.raises(ValueError, match=r"^x0 \(with p = 4.0\) gives an invalid problem: f\(x0\) = 1e\+40"):
        lp_norm_power(4, x0=np.array([1e10, 2.0]))  # blamed p = 4 before
    with pytest.raises(ValueError, match=r"^x0 \(with delta = 1.0\) gives an invalid problem"):
        squared_huber(np.eye(2), np.ones(2), x0=np.array([1e20, 0.0]))
    with pytest.raises(ValueError, match=r"^A = .* gives an invalid problem: L = "):
        sum_of_squared_abs_linear(np.full((2, 2), 1e38), np.ones(2))  # named L, which no caller gave
    with pytest.raises(ValueError, match=r"^A = .* gives an invalid problem: L_C = "):
        squared_hinge(np.full((2, 2), 1e20), np.ones(2))


@pytest.mark.parametrize("algorithm", [LCD2(), Polyak()])
def test_maxiters_zero_is_maxiters_whatever_the_callback_says(algorithm):
    sol = solve(squared_lp_norm(4, x0=np.array([1.0, 2.0])), algorithm, maxiters=0, callback=lambda r: True)
    assert sol.retcode is RetCode.MaxIters  # Terminated before (README: maxiters=0 gives MaxIters)


@pytest.mark.parametrize("which", ["f", "grad", "curvature"])
def test_a_user_callables_own_exception_is_named(which):
    from algorithms._validation import UserCallableError
    from algorithms.curvature import CurvatureProblem

    armed = [False]

    def flaky(fn):
        def wrapped(x):
            if armed[0]:
                raise KeyError("k")
            return fn(x)
        return wrapped

    parts = {"f": lambda x: float(x @ x), "grad": lambda x: 2 * x, "curvature": lambda x: 2 * np.ones_like(x)}
    parts[which] = flaky(parts[which])
    problem = CurvatureProblem(**parts, L_C=0.0, x0=np.array([1.0, 2.0]), f_star=0.0)
    armed[0] = True
    with pytest.raises(UserCallableError, match=rf"^{which}\(x\) raised KeyError"):  # a bare KeyError before
        solve(problem, LCD2(), maxiters=50, tol=1.2e-38)


@pytest.mark.parametrize("answer", [lambda v: int(v), lambda v: np.int64(v), lambda v: np.float16(v),
                                    lambda v: np.float32(v)])
def test_an_objective_less_precise_than_x0_is_refused_like_a_gradient(answer):
    from algorithms.curvature import CurvatureProblem

    # int(x @ x) truncated f: Polyak stopped on the truncated f − f* with a Success away from the optimum
    with pytest.raises(TypeError, match=r"^f\(x\) must return a float at least as precise as x0's float64"):
        CurvatureProblem(f=lambda x: answer(float(x @ x)), grad=lambda x: 2 * x,
                         curvature=lambda x: 2 * np.ones_like(x), L_C=0.0, x0=np.array([3.0, -2.0, 1.0]),
                         f_star=0.0)


def test_lbfgs_memory_is_capped_by_name():
    from algorithms.curvature import LBFGS

    with pytest.raises(ValueError, match=r"^memory must be <= 1000000"):
        LBFGS(memory=2**31 - 1)  # scipy's "Maximum allowed dimension exceeded" at the solve before


def test_a_loose_tol_does_not_accuse_a_correct_f_star():
    from algorithms.curvature import LBFGS, GradientDescent, sum_of_squared_abs_linear

    # f_star from the factory's own least squares; the gradient test at tol = 0.1 blamed f_star/grad before
    A, b = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([1.0, 0.0, 1.0])
    problem = sum_of_squared_abs_linear(A, b)
    for algorithm in (GradientDescent(), LBFGS(), Polyak()):
        assert solve(problem, algorithm, tol=0.1).retcode is RetCode.Success


def test_lcd2_on_an_ill_conditioned_least_squares_has_no_bracket_error():
    from algorithms.curvature import sum_of_squared_abs_linear

    A = np.array([[-0.0005255139863256378, 63199.6833514217, -0.05805189671651954],
                  [-0.0015048597560505636, -36512.13881961824, 0.026335576488871672],
                  [-0.00023190581538814022, 41045.248629469956, -0.030784199055039846],
                  [-0.0015012366623536233, -4512.2447610909485, -0.03044077718049209],
                  [-0.0007745665338614665, -46268.199523413554, 0.005713507971385636],
                  [0.000598125303301375, -91663.81162664837, -0.06568538010539261]])
    b = np.array([3.597912481988418, 39.25697868852463, -4.319911958742951, 12.298676567067833,
                  35.75982304350221, 13.89047688398539])
    x0 = np.array([-0.001515353072811269, 0.0024520205494460907, -0.00018436997305433997])
    sol = solve(sum_of_squared_abs_linear(A, b, x0=x0), LCD2(), maxiters=20000)  # brentq's sign error before
    assert sol.retcode in (RetCode.Success, RetCode.MaxIters, RetCode.Stalled)


def test_numbers_held_in_object_arrays_are_checked_as_numbers():
    from algorithms.curvature import lcd2_coefficients, lcd2_gap

    with pytest.raises(ValueError, match=r"^D has an entry of magnitude 1e\+100"):
        lcd2_coefficients(1.0, np.array([0.0, 10**100]))  # an object array of ints: 1e100 was taken
    with pytest.raises(ValueError, match=r"^ghat has an entry of magnitude 1e\+100"):
        lcd2_gap(0.5, 1.0, np.array([1.0, 10**100]), np.zeros(2))
    assert lcd2_coefficients(1.0, np.array([0.0, 1], dtype=object)).tolist() == [1.0, 0.5]


def test_l_c_takes_a_fraction():
    from fractions import Fraction

    from algorithms.curvature import CurvatureProblem

    problem = CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                               curvature=lambda x: 2 * np.ones_like(x), L_C=Fraction(1, 2),
                               x0=np.ones(2))  # a TypeError before
    assert problem.L_C == 0.5
