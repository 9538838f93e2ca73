"""Round 16: CEI used end to end, the way a user runs it, against known answers (issue #43)."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.bayesopt import CEI, ConstrainedBOProblem


def test_float32_bounds_evaluate_the_returned_point():
    # a float32 problem evaluated float64 points and returned them cast to float32: sol.value was not f at
    # sol.x (-0.29999998730687244 beside f(sol.x) = -0.29999998211860657)
    calls = []

    def f(x):
        calls.append(np.array(x))
        return float(-x[0])

    problem = ConstrainedBOProblem(f, lambda x: float(x[0] - 0.3), np.array([[0, 1]], np.float32), initial=3,
                                   f_star=-0.3)
    sol = solve(problem, CEI(n_candidates=200), maxiters=10, seed=0, tol=1e-9)
    assert sol.x.dtype == np.float32
    assert sol.value == f(sol.x)
    assert np.all(sol.original.X == sol.x.astype(np.float64), axis=1).any()   # the very point evaluated
    assert all(np.array_equal(x.astype(np.float32).astype(np.float64), x) for x in calls)
    assert sol.value <= -0.29 and sol.x[0] <= np.float32(0.3)


def _scaled(x_unit: float, f_unit: float) -> ConstrainedBOProblem:
    # min |x - 0.3|² s.t. x0 + x1 <= 0.5, units x_unit (box), f_unit (f, c): f* = 0.005 at (0.25, 0.25)
    def f(x):
        return f_unit * float((x[0] / x_unit - 0.3) ** 2 + (x[1] / x_unit - 0.3) ** 2)

    def c(x):
        return f_unit * float(x[0] / x_unit + x[1] / x_unit - 0.5)

    return ConstrainedBOProblem(f, c, [[0, x_unit], [0, x_unit]], initial=5, f_star=0.005 * f_unit,
                                x_star=[0.25 * x_unit, 0.25 * x_unit])


@pytest.mark.parametrize("x_unit, f_unit", [(1.0, 1e-30), (1.0, 1e30), (1e-30, 1e-30), (1e30, 1e30)])
def test_scaled_problems_are_solved_alike(x_unit, f_unit):
    # f in units of 1e-30 ended Success at its first evaluation (its regret 1.1e-32 "<= tol = 1e-6", at three
    # times f*); f ~ 1e30 or 1e-30 was refused ("values spread over ...: too large/small for a GP")
    reference = solve(_scaled(1.0, 1.0), CEI(n_candidates=200), maxiters=10, seed=0)
    sol = solve(_scaled(x_unit, f_unit), CEI(n_candidates=200), maxiters=10, seed=0)
    assert sol.retcode is reference.retcode
    assert abs(sol.value / f_unit - reference.value) <= 1e-6
    if sol.retcode.successful:
        assert sol.value / f_unit - 0.005 <= 1e-6


@pytest.mark.parametrize("f_unit, c_unit", [(1e-300, 1.0), (1.0, 1e-300), (1e-160, 1e30)])
def test_values_of_tiny_spread_are_modelled_not_flattened(f_unit, c_unit):
    # red16a: np.std of values ~1e-300 underflowed to 0, so f (or c) was modelled as a constant and searched
    # blind: [0.1614, 0.8338] at 4 times the unscaled run's f (0.005016 at [0.2495, 0.7503])
    def run(fs: float, cs: float):
        problem = ConstrainedBOProblem(lambda x: fs * float((x[0] - 0.3) ** 2 + (x[1] - 0.8) ** 2),
                                       lambda x: cs * float(x[0] + x[1] - 1.0), [[0.0, 1.0], [0.0, 1.0]],
                                       initial=5)
        return solve(problem, CEI(n_candidates=200), maxiters=6, seed=0)

    reference, sol = run(1.0, 1.0), run(f_unit, c_unit)   # the runs differ by rounding only: as good
    assert sol.value / f_unit <= 1.1 * reference.value and float(sol.x.sum()) <= 1.0


def test_a_callback_true_at_a_diverged_record_is_terminated():
    # the callback's True at the record of a non-finite evaluation was ignored (Diverged), unlike at any other
    calls = []

    def f(x):
        calls.append(1)
        return float("nan") if len(calls) > 4 else float(x @ x)

    problem = ConstrainedBOProblem(f, lambda x: -1.0, [[0.0, 1.0], [0.0, 1.0]], initial=4)
    assert solve(problem, CEI(n_candidates=50), maxiters=3, seed=0).retcode.name == "Diverged"
    calls.clear()
    sol = solve(problem, CEI(n_candidates=50), maxiters=3, seed=0, callback=lambda record: True,
                store_trace=True)
    assert sol.retcode.name == "Terminated" and len(sol.trace) == 1


def test_maxiters_zero_is_max_iters_also_when_the_design_meets_the_target():
    # core: maxiters = 0 returns the start with MaxIters; a design holding the optimum ended Success
    problem = ConstrainedBOProblem(lambda x: float(x[0]), lambda x: -1.0, [[0.0, 1.0]],
                                   initial=np.array([[0.0], [0.5]]), f_star=0.0)
    assert solve(problem, CEI(n_candidates=50), maxiters=0, seed=0).retcode.name == "MaxIters"
    assert solve(problem, CEI(n_candidates=50), maxiters=1, seed=0).retcode.name == "Success"


@pytest.mark.parametrize("x_star", [None, [0.3, 0.6]], ids=["f_star alone", "with x_star"])
def test_a_wrong_f_star_of_f_in_tiny_units_is_refused(x_star):
    # the f_star checks had an absolute floor of 1: f in units of 1e-9 with f_star 3e-10 above its minimum
    # passed, and the solve ended Success at its first point (a regret of -3e-10 "<= tol")
    u = 1e-9
    problem = ConstrainedBOProblem(lambda x: u * float((x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2), lambda x: -1.0,
                                   [[0.0, 1.0], [0.0, 1.0]], initial=8, f_star=0.3 * u, x_star=x_star)
    with pytest.raises(ValueError, match="f_star"):
        solve(problem, CEI(n_candidates=200), maxiters=5, seed=0)
    right = ConstrainedBOProblem(problem.f, problem.c, problem.bounds, initial=8, f_star=0.0, x_star=x_star)
    assert solve(right, CEI(n_candidates=200), maxiters=5, seed=0).retcode.name == "MaxIters"


@pytest.mark.parametrize("algorithm", [CEI(n_candidates=100), CEI(n_candidates=100, fit=False),
                                       CEI(n_candidates=100, noise=1e-3)], ids=["fit", "no fit", "noise"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ask_tell_suggests_the_points_solve_evaluates(algorithm, dtype):
    # ask/tell rebuilt its surrogates at every suggest, the fit restarting from the given kernel, while solve
    # starts each fit from the last fitted one: the same seed suggested points 2.6e-6 off solve's
    f = lambda x: float((x[0] - 0.3) ** 2 + (x[1] - 0.2) ** 2)  # noqa: E731
    c = lambda x: float(x[0] + x[1] - 0.9)  # noqa: E731
    bounds = np.array([[0.0, 1.0], [0.0, 1.0]], dtype=dtype)
    sol = solve(ConstrainedBOProblem(f, c, bounds, initial=5), algorithm, seed=4, maxiters=5)
    bo = algorithm.ask_tell(bounds, 1, initial=5, seed=4)
    for _ in range(10):
        x = bo.suggest().astype(np.float64)
        bo.observe(x, f(x), c(x))
    np.testing.assert_array_equal(bo.history.X, sol.original.X)
