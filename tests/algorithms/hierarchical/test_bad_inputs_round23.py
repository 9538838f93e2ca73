"""Round 23: docstring promises at their boundaries (hierarchical)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from algorithms import solve
from algorithms.hierarchical import (
    SGDA,
    AdaMinimax,
    TiAda,
    additive_noise,
    quadratic_bilevel,
    synthetic_minimax,
)


@pytest.mark.parametrize("algorithm", [SGDA(), AdaMinimax(), TiAda()], ids=lambda a: type(a).__name__)
@pytest.mark.parametrize("x0", [2.6e19, -2.6e19])
def test_float32_start_at_the_documented_edge_is_not_reported_diverged(algorithm, x0):
    # synthetic_minimax: float32 takes |c|·|x0| up to about 2.6e19 (Φ(x0) = c²x0²/2 = 3.38e38 fits float32);
    # the built-in phi squared x in float32 (inf), so a run whose x stayed near x0 (AdaMinimax, TiAda)
    # ended Diverged with value inf on a problem the docstring accepts
    prob = synthetic_minimax(x0=x0, y0=0.0, dtype=np.float32)
    sol = solve(prob, algorithm, maxiters=50, seed=0)
    assert sol.retcode.name != "Diverged"
    assert np.isfinite(sol.value)
    x = float(sol.x[0])
    assert sol.value == pytest.approx(np.cos(x) + 0.5 * x * x, rel=1e-6)


def test_float32_start_past_the_edge_is_refused_naming_coupling():
    with pytest.raises(ValueError, match="coupling"):
        synthetic_minimax(x0=2.61e19, y0=0.0, dtype=np.float32)


@pytest.mark.parametrize(("horizon", "expected"), [(2**22, 33), (2**42, 63), (2**62, 93)])
@pytest.mark.parametrize("kind", [int, np.int64, np.uint64])
def test_neumann_terms_numpy_int_horizon_is_not_cubed_in_int64(horizon, expected, kind):
    # red23b: np.int64(2**22) gave 32 (T³ wrapped in int64), one short of Theorem 4.2's least N (2^(2N) >= T³)
    from algorithms.hierarchical import neumann_terms

    assert neumann_terms(kind(horizon), 0.5, 1.0) == expected


@pytest.mark.parametrize("x", [1e-8, 1e-6, 1e-4, 0.3, -0.9])
@pytest.mark.parametrize("coupling", [1.0, 1.0 + 1e-9])
def test_synthetic_grad_phi_has_no_cancellation_near_zero(x, coupling):
    # red23b: c²x − sin x gave 0.0 at x = 1e-8 (c = 1; true 1.67e-25), and a solve ended Success at x0 with
    # tol = 1e-30 on that zero gradient
    from fractions import Fraction

    prob = synthetic_minimax(coupling=coupling, x0=x, y0=x)
    got = float(prob.grad_phi(np.array([x]))[0])
    # x − sin x by its exact alternating series, in Fractions
    fx = Fraction(x)
    series = sum(Fraction((-1) ** (k + 1), __import__("math").factorial(2 * k + 1)) * fx ** (2 * k + 1)
                 for k in range(1, 30))
    exact = float((Fraction(coupling) ** 2 - 1) * fx + series)
    assert got == pytest.approx(exact, rel=1e-12)


def test_synthetic_minimax_no_success_on_a_cancelled_gradient():
    prob = synthetic_minimax(coupling=1.0, x0=1e-8, y0=1e-8)
    sol = solve(prob, SGDA(), tol=1e-30, maxiters=20)
    assert sol.retcode.name != "Success"


@pytest.mark.parametrize("dim_y", [1, 4])
def test_quadratic_bilevel_mu_above_l_refused_by_the_documented_rule(dim_y):
    # red23b: dim_y >= 2 blamed A's rounding and asked for a ratio <= 1e9 (the ratio was 0.67)
    from algorithms.hierarchical import quadratic_bilevel

    with pytest.raises(ValueError, match=r"mu_g must be <= l_g1"):
        quadratic_bilevel(mu_g=3.0, l_g1=2.0, dim_y=dim_y)


@pytest.mark.parametrize("make, name", [
    # red23b: -Fraction(1, 10**400) became -0.0 before the ">= 0" test and was stored
    (lambda v: synthetic_minimax(sigma=v), "sigma"),
    (lambda v: quadratic_bilevel(reg=v), "reg"),
    (lambda v: additive_noise("gaussian", v, (2,), np.random.default_rng(0)), "sigma"),
])
@pytest.mark.parametrize("value", [-Fraction(1, 10**400), np.longdouble("-1e-4000")],
                         ids=["fraction", "longdouble"])
def test_negative_real_below_float64_is_refused_by_a_nonnegative_parameter(make, name, value):
    with pytest.raises(ValueError, match=rf"^{name} must be finite and >= 0"):
        make(value)
