"""Round 23 (#43): the closed-form step helpers give the formula's value correctly rounded where x and the
step cancel (heldout23: gd_step(1e-30, 1e-20, 1e-10) was 1.75e-46, the formula's value 1.0175e-46: lr·g
rounded before the subtraction). References: mpmath at 200 digits from the float inputs."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from algorithms.curvature import gd_step, lcd1_step, polyak_step

mpmath.mp.dps = 200


def _near_cancelling(seed: int, n: int = 8) -> tuple[np.ndarray, np.ndarray, float]:
    """x, g and lr with lr·g equal to x up to a relative 1e-16..1e-6 (and magnitudes from 1e-30 to 1e30)."""
    rng = np.random.default_rng(seed)
    lr = float(10.0 ** rng.uniform(-12, 2))
    x = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-30, 30, n)
    g = x / lr * (1 + rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-16, -6, n))
    return x, g, lr


def _mp(v: float) -> mpmath.mpf:
    return mpmath.mpf(float(v))


@pytest.mark.parametrize("seed", range(12))
def test_gd_step_is_correctly_rounded_where_x_and_lr_g_cancel(seed):
    x, g, lr = _near_cancelling(seed)
    got = gd_step(x, g, lr)
    want = np.array([float(_mp(a) - _mp(lr) * _mp(b)) for a, b in zip(x, g, strict=True)])
    assert np.array_equal(got, want)


def test_the_heldout23_case_and_its_scalar_and_float32_forms():
    want = float(_mp(1e-30) - _mp(1e-10) * _mp(1e-20))
    assert gd_step(1e-30, 1e-20, 1e-10) == want == pytest.approx(1.0175095183787867e-46, rel=1e-15)
    assert gd_step(np.array([1e-30]), [1e-20], 1e-10)[0] == want
    x32, g32 = np.float32(1e-30), np.float32(1e-20)
    got = gd_step(x32, g32, 1e-10)
    assert isinstance(got, np.float32)
    assert got == np.float32(float(_mp(x32) - _mp(1e-10) * _mp(g32)))
    # the plain float expression is the control: it loses the digits
    assert abs(1e-30 - 1e-10 * 1e-20 - want) > 0.5 * abs(want)


@pytest.mark.parametrize("seed", range(12))
def test_polyak_step_is_correctly_rounded_where_x_and_the_step_cancel(seed):
    rng = np.random.default_rng(100 + seed)
    x, g, _ = _near_cancelling(seed, n=1)
    g_norm_sq = float(g[0] ** 2)
    if not 1.2e-38 <= g_norm_sq <= 3.4e38:
        pytest.skip("g outside the working range of g_norm_sq")
    delta = float(x[0] / g[0] * g_norm_sq * (1 + 1e-12 * rng.standard_normal()))
    if not 0 <= delta <= 3.4e38:
        pytest.skip("delta outside the working range")
    got = polyak_step(x[0], g[0], delta, g_norm_sq)
    assert got == float(_mp(x[0]) - _mp(delta) / _mp(g_norm_sq) * _mp(g[0]))


@pytest.mark.parametrize("as_matrix", [False, True], ids=["vector C", "diagonal matrix C"])
@pytest.mark.parametrize("seed", range(8))
def test_lcd1_step_with_a_diagonal_c_is_correctly_rounded(seed, as_matrix):
    x, g, lr = _near_cancelling(seed)
    L_C = 0.5 / lr
    C = np.full(x.shape, 1.0 / lr - L_C)      # C + L_C = 1/lr: the step g/(C + L_C) nearly cancels x
    got = lcd1_step(x, g, np.diag(C) if as_matrix else C, L_C)
    want = np.array([float(_mp(a) - _mp(b) / (_mp(c) + _mp(L_C))) for a, b, c in zip(x, g, C, strict=True)])
    assert np.array_equal(got, want)


def test_results_away_from_cancellation_are_the_plain_expression():
    x, g = np.array([1.0, -3.0, 2.5]), np.array([0.5, 0.25, -1.0])
    assert np.array_equal(gd_step(x, g, 0.1), x - 0.1 * g)
    assert gd_step(1.0, 2.0, 0.25) == 0.5 and isinstance(gd_step(1.0, 2.0, 0.25), float)
