"""Round 25 (#43) precision sweep of the curvature family's closed forms, against mpmath at 60 digits from the
float inputs."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from algorithms.curvature import lcd3_stepsize

mpmath.mp.dps = 60


def _lcd3_reference(delta: float, G: float) -> mpmath.mpf:
    r = 2 * mpmath.mpf(delta) / mpmath.mpf(G)
    return mpmath.mpf(1) if r >= 1 else r / (1 + mpmath.sqrt(1 - r))


def test_lcd3_stepsize_keeps_its_digits_where_2delta_nearly_equals_G():
    # 1 − 2Δ/G kept the rounding of 2Δ/G: Δ = 1.4999999999999998, G = 3 gave 0.99999998946 (1.6e-9 off)
    got = lcd3_stepsize(1.4999999999999998, 3.0)
    assert got == pytest.approx(float(_lcd3_reference(1.4999999999999998, 3.0)), rel=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_lcd3_stepsize_full_relative_precision_over_the_working_range(seed):
    rng = np.random.default_rng(seed)
    for _ in range(300):
        G = float(10.0 ** rng.uniform(-37, 38))
        near = G / 2 * (1 - 10.0 ** rng.uniform(-17, 0))
        delta = near if rng.random() < 0.5 else float(10.0 ** rng.uniform(-39, 38))
        want = _lcd3_reference(delta, G)
        assert lcd3_stepsize(delta, G) == pytest.approx(float(want), rel=1e-15), (delta, G)


def test_lp_norm_power_rank_one_curvature_at_tiny_and_huge_points():
    # C₂(y) = p wwᵀ/‖y‖_p^p formed wwᵀ first: y = 1e-120 gave C = 0 (S underflowed) for 3e-120, y = (1e100,
    # 1e99) NaN (wwᵀ overflowed) for a representable C
    from algorithms.curvature import lp_norm_power

    def reference(y, p):
        y = [mpmath.mpf(float(t)) for t in y]
        S = sum(abs(t) ** p for t in y)
        w = [t * abs(t) ** (p - 2) for t in y]
        return np.array([[float(p * a * b / S) for b in w] for a in w])

    for p in (2.0, 2.5, 3.0, 4.0):
        prob = lp_norm_power(p, x0=np.array([1.0, 0.5]), curvature="rank_one")
        for y in ([1e-120, 1e-121], [1e100, -1e99], [1.0, -0.5], [3.0, 1e-5], [1e-300, -2e-300]):
            got, want = prob.curvature_at(np.array(y)), reference(y, p)
            assert np.allclose(got, want, rtol=1e-14, atol=0), (p, y, got, want)


def test_squared_norm_residual_curvature_does_not_depend_on_the_residual_scale():
    # (2/‖r‖²)(Aᵀr)(Aᵀr)ᵀ: 0 where ‖r‖² underflowed (r ~ 1e-170), NaN where it overflowed (r ~ 1e170)
    from algorithms.curvature import squared_norm_residual

    A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    prob = squared_norm_residual(A, np.zeros(3), x0=np.ones(2))
    want = prob.curvature_at(np.array([1.0, 0.0]))
    assert np.allclose(want, [[70.0, 88.0], [88.0, 88.0**2 / 70.0]], rtol=1e-14)
    for scale in (1e-170, 1e-300, 1e170):
        assert np.allclose(prob.curvature_at(np.array([scale, 0.0])), want, rtol=1e-14, atol=0), scale


@pytest.mark.parametrize(("C", "words"), [
    (np.array([[1e20, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1000.0, 1.0]]), "must be symmetric"),
    (np.array([[1e20, 0.0, 0.0], [0.0, 1.0, 1000.0], [0.0, 1000.0, 1.0]]), "must be positive semidefinite"),
])
def test_curvature_checks_are_not_scaled_away_by_a_huge_entry(C, words):
    # relative to max |C| = 1e20, an asymmetry of 1000 or an eigenvalue of −999 passed as rounding
    from algorithms.curvature import CurvatureProblem

    with pytest.raises(ValueError, match=f"curvature\\(x\\) {words}"):
        CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=lambda x: C, L_C=0.0,
                         x0=np.ones(3))


def _multiplier_reference(delta, ghat, D, guess):
    g = [mpmath.mpf(float(v)) for v in ghat]
    d = [mpmath.mpf(float(v)) for v in D]

    def h(lam):
        return mpmath.mpf(delta) - sum(a**2 * lam * (2 + lam * b) / (2 * (1 + lam * b) ** 2)
                                       for a, b in zip(g, d, strict=True))

    return mpmath.findroot(h, mpmath.mpf(guess))


def test_lcd2_multiplier_near_the_newton_limit_keeps_its_rtol():
    # Δ − Σĝ²/(2D) in floats kept the sum's rounding (eps·S, most of Δ − S here): λ 1.5e-8 off for rtol 1e-13
    from algorithms.curvature import lcd2_multiplier

    delta, g, D = 526089149.57422096, -11179964.864252875, 118793.18777160316
    r = 1 - 2 * mpmath.mpf(delta) * mpmath.mpf(D) / mpmath.mpf(g) ** 2
    want = (1 / mpmath.sqrt(r) - 1) / mpmath.mpf(D)  # the 1-D closed form
    assert lcd2_multiplier(delta, np.array([g]), np.array([D])) == pytest.approx(float(want), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_lcd2_multiplier_matches_mpmath_on_graded_inputs(seed):
    from algorithms.curvature import lcd2_multiplier

    rng = np.random.default_rng(seed)
    for _ in range(25):
        n = int(rng.integers(1, 4))
        g = rng.standard_normal(n) * 10.0 ** rng.uniform(-8, 8, n)
        D = 10.0 ** rng.uniform(-8, 8, n)
        S = float(np.sum(g**2 / (2 * D)))
        delta = S * (1 - 10.0 ** rng.uniform(-12, -1))  # near the Newton limit, where Δ − S cancels
        if not 1.2e-38 <= delta <= 3.4e38:
            continue
        lam = lcd2_multiplier(delta, g, D)
        assert lam == pytest.approx(float(_multiplier_reference(delta, g, D, lam)), rel=1e-12), (delta, g, D)


@pytest.mark.parametrize("seed", range(3))
def test_lcd3_step_factor_near_the_limit_with_a_diagonal_curvature(seed):
    # 1 − 2Δ/G took G's rounding where 2Δ ≈ G: the factor was up to 1.5e-9 off for a diagonal C
    from algorithms.curvature import lcd3_step

    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(1, 4))
        g, D, x = rng.standard_normal(n), 10.0 ** rng.uniform(-3, 3, n), rng.standard_normal(n)
        G = sum(mpmath.mpf(a) ** 2 / mpmath.mpf(b) for a, b in zip(g, D, strict=True))
        delta = float(G / 2 * (1 - mpmath.mpf(10) ** rng.uniform(-15, -3)))
        _, info = lcd3_step(x, g, D, delta)
        r = 2 * mpmath.mpf(delta) / G
        assert info["stepsize"] == pytest.approx(float(r / (1 + mpmath.sqrt(1 - r))), rel=2e-15)


def test_a_negative_diagonal_entry_beside_a_huge_one_is_not_psd():
    # sweep3 (class B): diag(1e20, −1) passed the global test (−1 >= −1e-8·1e20) and the graded one (positive
    # diagonal only), and was kept as a PSD curvature
    import numpy as np
    import pytest

    from algorithms.curvature.problem import check_curvature_matrix

    with pytest.raises(ValueError, match=r"C\[1, 1\] = -1 bounds its smallest eigenvalue"):
        check_curvature_matrix("C", np.diag([1e20, -1.0]))
