"""theorems.core.assumptions: boundary probes of a theorem's input assumptions."""

from __future__ import annotations

import pytest

from theorems.core.assumptions import Boundary, boundary_outcome


def _positive(x: float) -> float:
    if not x > 0:
        raise ValueError(f"x must be positive, got {x}")
    return x


def _silent(x: float) -> float:
    if not x > 0:
        raise ValueError("bad value")
    return x


def test_inside_accepted_outside_refused_passes_and_shifted_fails():
    cases = [Boundary("0 < x", "x", lambda: _positive(1e-300), lambda: _positive(0.0))]
    assert boundary_outcome(cases).status == "pass"
    shifted = boundary_outcome(cases, shifted=True)
    assert shifted.status == "fail" and "just inside was accepted" in shifted.summary


def test_wrong_side_guard_fails():
    # a guard that refuses the boundary value itself (x >= 1e-300 strict past the truth)
    cases = [Boundary("0 < x", "x", lambda: _positive(0.0), lambda: _positive(-1.0))]
    assert "just inside was refused" in boundary_outcome(cases).summary


def test_accepted_outside_and_unnamed_refusal_fail():
    accepted = [Boundary("0 < x", "x", lambda: 1.0, lambda: 0.0)]
    assert "just outside was accepted" in boundary_outcome(accepted).summary
    unnamed = [Boundary("0 < x", "rate", lambda: _silent(1.0), lambda: _silent(0.0))]
    assert "does not name 'rate'" in boundary_outcome(unnamed).summary


def test_bad_inputs():
    with pytest.raises(ValueError, match="label"):
        Boundary("", "x", lambda: 1, lambda: 1)
    with pytest.raises(TypeError, match="inside"):
        Boundary("a", "x", 1, lambda: 1)
    with pytest.raises(TypeError, match="cases"):
        boundary_outcome([])


def test_domain_outcome_accepts_the_domain_and_its_control_rejects_a_closed_end():
    from theorems.core.assumptions import domain_outcome

    def sqrt_of(x: float) -> float:
        if x < 0:
            raise ValueError(f"x must be >= 0, got {x}")
        return x**0.5

    cases = [("x = 0 (closed end)", lambda: sqrt_of(0.0), True, None),
             ("x = 4", lambda: sqrt_of(4.0), False, None),
             ("x = -1", lambda: sqrt_of(-1.0), False, (ValueError, "x must"))]
    assert domain_outcome(cases, open_ends=False).status == "pass"
    control = domain_outcome(cases, open_ends=True)
    assert control.status == "fail" and control.evidence["wrong"] == ["x = 0 (closed end): accepted"]
    unnamed = [("x = -1", lambda: sqrt_of(-1.0), False, (ValueError, "tau"))]
    assert domain_outcome(unnamed, open_ends=False).status == "fail"  # the message must name it
