"""Round 14: valid inputs answered right (references in exact integers / mpmath at 50 digits)."""

from __future__ import annotations

import mpmath
import pytest

from algorithms.hierarchical import neumann_terms


def _reference_terms(horizon: int, mu_g: float, l_g1: float) -> int:
    """The least N >= 1 with N >= 3 log T / (2 log(1/(1 − μ/l))), decided exactly where the bound is an
    integer (1 − μ/l = 1/b: b^(2N) >= T³) and at 50 digits otherwise."""
    with mpmath.workdps(50):
        bound = 3 * mpmath.log(horizon) / (-2 * mpmath.log1p(-mpmath.mpf(mu_g) / mpmath.mpf(l_g1)))
        near = int(mpmath.nint(bound))
        if abs(bound - near) < mpmath.mpf(10) ** -40:
            return max(1, near)
        return max(1, int(mpmath.ceil(bound)))


# the bound is an integer here (T = 2**42, μ/l = 1/2: exactly 63); the float ceil answered 64
@pytest.mark.parametrize("horizon, mu_g, l_g1", [
    (2**42, 0.5, 1.0), (2**42, 1.0, 2.0), (2**58, 0.5, 1.0), (2**14, 7.0, 8.0), (2**18, 7.0, 8.0),
    (2**36, 7.0, 8.0), (9, 2.0, 3.0), (3**12, 2.0, 3.0), (4, 0.5, 1.0), (1, 0.5, 1.0),
    (10**6, 0.5, 2.0), (2**63 - 1, 1e-12, 1.0), (1000, 1e-15, 1.0), (7, 1.0 - 1e-16, 1.0),
    # past 2**53 the float bound is its rounding: 2**-60 gave N 104 below the bound (red14b)
    (2, 2.0**-60, 1.0), (27, 2.0**-60, 1.0), (3, 1e-17, 1.0)])
def test_neumann_terms_is_the_least_length(horizon, mu_g, l_g1):
    assert neumann_terms(horizon, mu_g, l_g1) == _reference_terms(horizon, mu_g, l_g1)


def test_momentum_update_of_mixed_dtypes_is_computed_in_float64():
    # α·g of a float32 g stayed float32: [0.7300000011920929, ...] for the exact [0.7300000004470348, ...]
    import numpy as np

    from algorithms.hierarchical.ada_minimax import momentum_update

    g32 = np.array([0.1, 0.7], np.float32)
    got = momentum_update(np.array([1.0, 2.0]), g32, 0.3)
    assert got.tolist() == momentum_update(np.array([1.0, 2.0]), g32.astype(np.float64), 0.3).tolist()
