"""Round 23: docstring promises at their boundaries (curvature)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algorithms import solve
from algorithms.curvature import (
    LBFGS,
    CurvatureProblem,
    GradientDescent,
    gd_step,
    lcd3_stepsize,
    polyak_step,
    scaled,
    squared_norm_residual,
)

A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("maxiters", [None, 1, 10_000])
def test_lbfgs_memory_at_its_documented_maximum_runs(dtype, maxiters):
    # "memory: an int in [1, 10**6]": 10**6 met numpy's MemoryError (scipy's 11·m² work array, 80 TiB); a run
    # keeps min(memory, maxiters) pairs, so the documented maximum runs as a smaller one does
    prob = squared_norm_residual(A.astype(dtype), np.ones(3, dtype))
    big = solve(prob, LBFGS(memory=10**6), maxiters=maxiters)
    small = solve(prob, LBFGS(memory=min(10**3 if maxiters is None else maxiters, 10**3)), maxiters=maxiters)
    assert big.retcode == small.retcode
    assert np.array_equal(big.x, small.x)


@pytest.mark.parametrize("maxiters", [10**5, 10**6, 2**63 - 1])
def test_lbfgs_memory_too_large_for_the_machine_is_refused_naming_memory(maxiters):
    prob = squared_norm_residual(A, np.ones(3))
    with pytest.raises(ValueError, match=r"memory=1000000 is too large"):
        solve(prob, LBFGS(memory=10**6), maxiters=maxiters)


def test_lbfgs_memory_past_its_maximum_is_refused():
    with pytest.raises(ValueError, match=r"memory must be <= 1000000"):
        LBFGS(memory=10**6 + 1)


def _nan_after(k: int):
    calls = [0]

    def f(x):
        calls[0] += 1
        return float("nan") if calls[0] > k else float(x @ x)
    return f


@pytest.mark.parametrize("case", ["maxiters0", "stop_at_x0", "nan_f_midrun", "ordinary"])
def test_lbfgs_original_is_an_optimize_result_on_every_path(case):
    # the module docstring: "Solution.original is scipy's OptimizeResult"; it was None at maxiters = 0, a
    # callback's stop at x0 and a Diverged run
    import scipy.optimize

    from algorithms.curvature import CurvatureProblem

    prob = squared_norm_residual(A, np.ones(3))
    kw: dict = {"maxiters": 50}
    if case == "maxiters0":
        kw = {"maxiters": 0}
    elif case == "stop_at_x0":
        kw["callback"] = lambda record: True
    elif case == "nan_f_midrun":
        prob = CurvatureProblem(_nan_after(3), lambda x: 2 * x, lambda x: 2 * np.eye(2), 0.0, np.ones(2))
    sol = solve(prob, LBFGS(), **kw)
    assert isinstance(sol.original, scipy.optimize.OptimizeResult)
    assert np.array_equal(np.asarray(sol.original.x, dtype=sol.x.dtype), sol.x) or case == "ordinary"
    expected = {"maxiters0": "MaxIters", "stop_at_x0": "Terminated", "nan_f_midrun": "Diverged",
                "ordinary": "Success"}[case]
    assert sol.retcode.name == expected


@pytest.mark.parametrize("p", [3, 4, 2.5])
@pytest.mark.parametrize("small", [1e-8, 1e-12, 1e-15, 1e-17])
def test_squared_lp_norm_gradient_and_curvature_correct_far_below_the_top(p, small):
    # red23b: log(|rᵢ|/top) as log1p((|rᵢ| − top)/top) lost its digits far below the top (1e-17 beside 1 gave
    # a gradient and curvature entry of 0.0; 1e-12 was off by 2e-5)
    from algorithms.curvature import squared_lp_norm

    prob = squared_lp_norm(p, x0=np.array([1.0, small]))
    N = (1.0 + small ** p) ** (1.0 / p)
    exact_w = (small / N) ** (p - 2)
    assert prob.gradient(prob.x0)[1] == pytest.approx(2.0 * small * exact_w, rel=1e-13)
    C = prob.curvature_at(prob.x0)
    entry = C[1] if C.ndim == 1 else C[1, 1]
    assert entry > 0


@pytest.mark.parametrize("g", [1e-155, 1e-158, 1e-160])
def test_lcd2_step_with_a_subnormal_gradient_norm_is_refused_naming_g(g):
    # red23b: ‖g‖² subnormal (not 0) skipped both the rescaling and the underflow refusal; Δ/‖g‖² = inf was
    # read as the Newton step with C = 0 and x came back unchanged (multiplier inf)
    from algorithms.curvature import lcd2_step

    with pytest.raises(ValueError, match=r"^g is too small"):
        lcd2_step(np.array([1.0]), np.array([g]), np.zeros((1, 1)), 1.0)


def test_lcd2_step_newton_case_still_taken():
    from algorithms.curvature import lcd2_step

    x, info = lcd2_step(np.array([1.0]), np.array([2.0]), np.array([2.0]), 1.0)
    assert x.tolist() == [0.0] and info["multiplier"] == float("inf")


@pytest.mark.parametrize("L_C", [__import__("fractions").Fraction(10**400), np.longdouble("1e4000")])
def test_curvature_problem_L_C_past_float64_is_not_read_as_the_inf_limit(L_C):
    # red23b: a finite L_C past float64 became math.inf (the documented "lower bound only" limit) in silence
    from algorithms.curvature import CurvatureProblem

    with pytest.raises(ValueError, match=r"L_C must be math\.inf or a finite real"):
        CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                         curvature=lambda x: 2 * np.ones_like(x), L_C=L_C, x0=np.array([1.0, 2.0]))


@pytest.mark.parametrize("G", [np.longdouble("1e-4000"), __import__("fractions").Fraction(1, 10**400)])
def test_lcd3_stepsize_G_below_float64_refused_naming_G(G):
    # red23b: a longdouble G below float64's range met Python's ZeroDivisionError
    from algorithms.curvature import lcd3_stepsize

    with pytest.raises(ValueError, match=r"^G\b.*positive scale"):
        lcd3_stepsize(0.1, G)


@pytest.mark.parametrize("lam, delta, ghat, D, exact", [
    # exact values of the float inputs (mpmath, 400 digits)
    (1e-10, 1e-30, [1e-10], [0.0], -2.5960171338907243e-47),  # λĝ² rounded before Δ − λĝ² (gave 0.0)
    (0.1, 1.0, [3.1622776601683795], [0.0], -1.7617618460913476e-16),
    (1e-10, 1e-30, [1e-10], [1e5], 1.4999800002474013e-35),
    (float("inf"), 0.5, [1.0], [1.0 + 2**-52], 1.1102230246251563e-16),  # Newton limit Δ − ĝ²/(2D)
    # red23b: at lcd2_multiplier's own root (λ = 0.9245228152938272) the sign was wrong (−1.1e-16)
    (0.9245228152938272, 0.7, [1.0, -0.5], [0.3, 2.0], 2.3645664119952007e-17),
])
def test_lcd2_gap_correct_to_rounding_where_the_sum_cancels_delta(lam, delta, ghat, D, exact):
    from algorithms.curvature import lcd2_gap
    got = float(lcd2_gap(lam, delta, np.array(ghat), np.array(D)))
    assert abs(got - exact) <= 1e-14 * abs(exact)


_TINY, _HUGE = Fraction(1, 10**400), Fraction(10**400)


@pytest.mark.parametrize("call, name", [
    # red23b: a real past float64's range given as a Fraction/longdouble became 0.0, -0.0 or inf first
    (lambda: lcd3_stepsize(-_TINY, 1.0), "delta"),  # -0.0
    (lambda: lcd3_stepsize(np.longdouble("1e4000"), 1.0), "delta"),
    (lambda: GradientDescent(lr=_TINY), "lr"),  # 0: no step
    (lambda: GradientDescent(lr=np.longdouble("1e-4000")), "lr"),
    (lambda: scaled(squared_norm_residual(A, np.ones(3)), _HUGE), "beta"),
    (lambda: CurvatureProblem(
        f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=lambda x: 2 * np.ones_like(x), L_C=2.0,
        f_star=np.longdouble("-1e4000"), x0=np.array([1.0, 2.0])), "f_star"),
])
def test_reals_past_float64_as_fraction_or_longdouble_refused_by_name(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()


def test_step_helpers_return_float64_for_a_longdouble_scalar():
    x, g = np.array([1.0, 2.0]), np.array([0.5, 0.5])
    assert polyak_step(x, g, np.longdouble("0.5"), 0.5).dtype == np.float64  # float128 before (red23b)
    assert gd_step(x, g, np.longdouble("0.5")).dtype == np.float64
