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
