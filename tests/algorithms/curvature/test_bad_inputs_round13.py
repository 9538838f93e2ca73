"""#43 round 13: curvature's derived constraints and coercible scalars (one test per class)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import algorithms.curvature as C
from algorithms import solve
from algorithms.core import RetCode


def _square(**kw):
    return C.CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                              curvature=lambda x: 2 * np.ones_like(x), x0=np.array([1.0, 2.0]), **kw)


@pytest.mark.parametrize("kw", [dict(L_C=0.0, L=1e15), dict(L_C=0.0, L=2.0**64), dict(L_C=0.0, L=3.4e38),
                                dict(L_C=2.0**64), dict(L_C=3.4e38)],
                         ids=["L=1e15", "L=2**64", "L=3.4e38", "L_C=2**64", "L_C=3.4e38"])
@pytest.mark.parametrize("algorithm", [C.LCD2(), C.LCD3(), C.Polyak(), C.LBFGS(), C.GradientDescent(lr=0.1)],
                         ids=lambda a: type(a).__name__)
def test_loose_valid_bounds_solve(kw, algorithm):
    # a loose but valid L or L_C (an upper bound) lifted the stopping tests' rounding floor past ‖∇f(x0)‖:
    # every solve stopped at x0 and blamed the correct f_star (or L_C was refused as "too large")
    sol = solve(_square(f_star=0.0, **kw), algorithm)
    assert sol.retcode == RetCode.Success and sol.value < 1e-8


def test_default_step_of_a_huge_L_is_the_runs_own_value():
    # 1/L = 2.9e-39 was refused as a caller's "lr outside the working range"
    sol = solve(_square(f_star=0.0, L_C=0.0, L=3.4e38), C.GradientDescent(), maxiters=3)
    # round 14: a step of 2.9e-39 leaves x unchanged, which ends Stalled at once (was MaxIters after 3)
    assert sol.retcode == RetCode.Stalled


@pytest.mark.parametrize("p", [2.0**40, 1e30])
@pytest.mark.parametrize("algorithm", [C.LCD2(), C.Polyak(), C.LBFGS(), C.GradientDescent(lr=0.1)],
                         ids=lambda a: type(a).__name__)
def test_large_p_never_blames_the_factorys_f_star(p, algorithm):
    # ‖x‖_p² with p = 2**40: L = L_C = 2(p − 1) is loose near x0; a stop under its rounding floor blamed
    # the factory's own f* = 0. Now Success or an honest Stalled/MaxIters
    sol = solve(C.squared_lp_norm(p, np.array([1.0, 2.0])), algorithm)
    assert sol.retcode in (RetCode.Success, RetCode.Stalled, RetCode.MaxIters)


@pytest.mark.parametrize("name", ["L", "L_C"])
def test_a_bound_alone_past_the_gradient_is_refused_by_name(name):
    kw = {"L_C": float("inf"), "L": 1e38} if name == "L" else {"L_C": 1e38}
    with pytest.raises(ValueError, match=rf"^{name} = 1e\+38 is too large for this problem: C\(x0\) = 0"):
        C.CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                           curvature=lambda x: np.zeros_like(x),
                           x0=np.array([1.0, 2.0]), **kw)


@pytest.mark.parametrize("call", [
    lambda: C.squared_lp_norm(Fraction(3), np.array([1.0, 2.0])),
    lambda: C.lp_norm_power(Fraction(3), np.array([1.0, 2.0])),
    lambda: C.lcd2_multiplier(2.0, np.ones(2), np.zeros(2), rtol=Fraction(1, 1000)),
    lambda: C.polyak_step(np.ones(2), np.ones(2), Fraction(1), Fraction(2)),
    lambda: C.lcd2_coefficients(Fraction(1), np.zeros(2)),
    lambda: C.lcd2_gap(Fraction(1, 2), 1.0, np.ones(2), np.zeros(2)),
    lambda: C.lcd3_stepsize(Fraction(1, 2), Fraction(1)),
], ids=["squared_lp_norm", "lp_norm_power", "lcd2_multiplier", "polyak_step", "lcd2_coefficients", "lcd2_gap",
        "lcd3_stepsize"])
def test_fraction_scalars_are_their_floats(call):
    out = call()
    assert not (isinstance(out, np.ndarray) and out.dtype == object)


def test_fraction_answers_as_float():
    assert C.polyak_step(1.0, 2.0, Fraction(1), 4.0) == 0.5
    assert C.lcd2_multiplier(2.0, np.ones(2), np.zeros(2), rtol=Fraction(1, 1000)) == 1.0


@pytest.mark.parametrize("rtol", [1e-39, 0.0, 1.0])
def test_lcd2_multiplier_rtol_is_a_positive_scale_below_one(rtol):
    with pytest.raises(ValueError, match="rtol"):
        C.lcd2_multiplier(2.0, np.ones(2), np.zeros(2), rtol=rtol)


@pytest.mark.parametrize("algorithm", [C.LCD1(), C.LCD2(), C.LCD3(), C.Polyak(), C.GradientDescent(lr=0.1),
                                       C.LBFGS()], ids=lambda a: type(a).__name__)
def test_tol_at_least_one_refused_by_name_as_documented(algorithm):
    # each docstring now states tol in (0, 1)
    assert "in (0, 1)" in type(algorithm).__doc__
    with pytest.raises(ValueError, match=r"^tol must be < 1"):
        solve(_square(f_star=0.0, L_C=0.0), algorithm, tol=3.4e38)


@pytest.mark.parametrize("seed", range(6))
def test_float32_rank_one_curvature_is_psd_at_float32_rounding(seed):
    # the exact 2aaᵀ rounded to float32 was refused as indefinite (eigenvalue -5.9e-8): float64's tolerance
    a = np.random.default_rng(seed).normal(size=5).astype(np.float32)
    C.CurvatureProblem(f=lambda x: float((a @ x) ** 2), grad=lambda x: (2 * (a @ x) * a).astype(np.float32),
                       curvature=lambda x: (2 * np.outer(a, a)).astype(np.float32), L_C=0.0,
                       x0=np.ones(5, np.float32), f_star=0.0)
    with pytest.raises(ValueError, match="positive semidefinite"):
        C.lcd1_step(np.ones(2, np.float32), np.ones(2, np.float32),
                    np.diag([1.0, -1e-3]).astype(np.float32), 1.0)


@pytest.mark.parametrize("algorithm", [C.LCD1(), C.LCD2(), C.LCD3(), C.Polyak(), C.LBFGS(),
                                       C.GradientDescent(lr=0.1)], ids=lambda a: type(a).__name__)
def test_an_offset_below_rounding_never_gives_success_at_the_start(algorithm):
    # f = ‖x‖² + 1e20: f(x0) − f* = 2 is below f's rounding (2e4): the gap test held at x0, Success at [1, 1]
    sol = solve(C.shifted(C.squared_lp_norm(2, x0=np.ones(2)), 1e20), algorithm)
    assert sol.retcode is not RetCode.Success or float(np.max(np.abs(sol.x))) < 1e-6


# ------------------------------------------------ held-out round 13, first run (lead): lcd3's own G
def test_lcd3_step_keeps_its_digits_where_one_minus_sqrt_cancels():
    # C = 1e-39 (a valid entry >= 0): G = 1.6e40 was refused naming G, an internal quantity; with the range
    # check skipped, 1 − √(1 − 2Δ/G) cancelled to 0 (no step) where the step is Δ/G·C⁻¹g = 1
    x, info = C.lcd3_step(np.array([2.0]), np.array([4.0]), np.array([1e-39]), 4.0)
    assert x.tolist() == [1.0] and info["stepsize"] == pytest.approx(2.5e-40, rel=1e-12)
    assert C.lcd3_stepsize(0.1, 1.0) == pytest.approx(1 - np.sqrt(0.8), rel=1e-15)
    assert C.lcd3_stepsize(3.0, 1.0) == 1.0 and C.lcd3_stepsize(0.0, 1.0) == 0.0


def test_lcd3_step_whose_newton_direction_overflows_is_degenerate():
    x, info = C.lcd3_step(np.array([2.0]), np.array([4.0]), np.array([1e-320]), 4.0)
    assert x is None and info["retcode"] is RetCode.Degenerate and "overflows" in info["reason"]


def test_lcd3_stepsize_states_and_keeps_g_as_a_positive_scale():
    import inspect

    assert "positive scale" in inspect.getdoc(C.lcd3_stepsize)
    with pytest.raises(ValueError, match=r"^G = 5e-324 is outside the package's working range"):
        C.lcd3_stepsize(0.5, 5e-324)
