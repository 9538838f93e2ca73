"""The private helpers the ``lcd`` claims use to run and sabotage the solver (theorems/lcd.py)."""

from dataclasses import replace

import numpy as np
import pytest

import algorithms.curvature.lcd1 as lcd1_module
from algorithms import solve
from algorithms.curvature import LCD1, GradientDescent, squared_norm_residual
from theorems.core import Context
from theorems.lcd import (
    _check_monotone,
    _iterates,
    _per_family,
    _point_pairs,
    _required_decrease,
    _scaled_step,
    make_instance,
)


def _problem():
    A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return squared_norm_residual(A, np.ones(3), x0=np.array([1.0, -1.0]))


def test_iterates_are_the_solver_iterates():
    prob = _problem()
    xs, trace = _iterates(prob, LCD1(), maxiters=5, tol=1.2e-38)
    assert xs.shape == (6, 2) and len(trace) == 6
    np.testing.assert_array_equal(xs[0], prob.x0)
    np.testing.assert_array_equal(xs[-1], solve(prob, LCD1(), maxiters=5, tol=1.2e-38).x)
    assert [r["value"] for r in trace] == [prob.value(x) for x in xs]


def test_scaled_step_scales_the_solver_step_and_restores_it():
    prob = _problem()
    original = lcd1_module.lcd1_step
    plain = solve(prob, LCD1(), maxiters=1).x
    with _scaled_step("lcd1", "lcd1_step", 0.3):
        short = solve(prob, LCD1(), maxiters=1).x
    np.testing.assert_allclose(short - prob.x0, 0.3 * (plain - prob.x0), rtol=1e-14, atol=1e-15)
    assert lcd1_module.lcd1_step is original
    with pytest.raises(RuntimeError, match="boom"), _scaled_step("lcd1", "lcd1_step", 2.0):
        raise RuntimeError("boom")
    assert lcd1_module.lcd1_step is original


def test_required_decrease_matches_the_closed_form_on_least_squares():
    # Σ(aᵢᵀx − bᵢ)²: C = 2AᵀA = ∇²f, L_C = 0, so ½gᵀ(2AᵀA)⁻¹g = f(x) − f* exactly
    prob = make_instance("abs_linear", 3, 1.0)
    assert prob.L_C == 0.0
    np.testing.assert_allclose(_required_decrease(prob, prob.x0), prob.f0 - prob.f_star, rtol=1e-9)


@pytest.mark.parametrize("factor", [0.3, 2.0])
def test_monotone_check_rejects_a_mis_scaled_step(factor):
    out = _check_monotone(Context(seed=0), step_factor=factor)
    assert out.status == "fail", out.summary


def test_gd_comparison_sees_a_doubled_step():
    prob = make_instance("norm_residual", 1, 1.0)
    d = prob.dimension
    p0 = replace(prob, curvature=lambda x: np.zeros((d, d)))
    want, _ = _iterates(p0, GradientDescent(lr=1 / p0.L_C), maxiters=10)
    got, _ = _iterates(p0, LCD1(), maxiters=10)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    with _scaled_step("lcd1", "lcd1_step", 2.0):
        bad, _ = _iterates(p0, LCD1(), maxiters=10)
    assert bad.shape != want.shape or np.max(np.abs(bad - want)) > 1e-3


def test_point_pairs_cover_the_four_kinds():
    prob = make_instance("lp_norm_diagonal", 2, 1.0)
    pairs = _point_pairs(prob, np.random.default_rng(0), 1.0, count=8)
    assert len(pairs) == 8
    x, y = pairs[2]  # the axis kind: y has one coordinate at x* = 0, x differs from y only there
    axis = np.flatnonzero(x != y)
    assert axis.size <= 1 and (axis.size == 0 or y[axis[0]] == 0.0)
    x, y = pairs[3]  # the far-side kind: x = −t y around x* = 0
    assert float(x @ y) < 0 and np.linalg.matrix_rank(np.stack([x, y])) == 1


def test_per_family_gives_every_family_its_instances():
    seen = []
    out = _per_family(Context(seed=0), ("huber", "hinge"), lambda example: seen.append(example[0]),
                      instances=(5, 9), what="anything")
    assert out.status == "pass" and seen.count("huber") == 5 and seen.count("hinge") == 5

