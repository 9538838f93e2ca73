"""Round 14: valid inputs at the domain's extremes answered right (mpmath / fractions references)."""

import math
from fractions import Fraction

import mpmath
import pytest

from algorithms.quantum import copies_per_basis_for, log_bar, purity_from_collisions


@pytest.mark.parametrize("K", [1000, 10**6])
def test_log_bar_matches_the_harmonic_number(K):
    # a plain float sum drifted 5e-14 (relative) by K = 10**6
    with mpmath.workdps(50):
        reference = mpmath.harmonic(K) - mpmath.mpf(1) / 2
        assert abs(mpmath.mpf(log_bar(K)) - reference) / reference < 4e-16


@pytest.mark.parametrize("gap, expected", [
    (1 / (3 + 1e-10) ** 2, 4),  # 1/√gap = 3.0000000001: rounding to 9 decimals gave 3
    (1 / (7 + 3e-9) ** 2, 8),
    (1 / 9, 3),  # the documented round-off of a decimal: 1/√gap within 1e-15 of 3
    (0.01, 10),
    (1.0, 2),
    (1 / (2**31 - 1) ** 2, 2**31 - 1),
])
def test_copies_per_basis_is_the_ceiling(gap, expected):
    assert copies_per_basis_for(4, gap=gap) == expected


def test_copies_per_basis_past_the_count_refused_by_name():
    with pytest.raises(ValueError, match="gap"):
        copies_per_basis_for(4, gap=math.nextafter(1 / (2**31 - 1) ** 2, 0.0))


@pytest.mark.parametrize("m, dim, purity", [(2, 2**62, "1e-18"), (2**40, 2**62, "3e-19"), (2, 2, "0.3")])
def test_purity_from_collisions_exact_for_small_purities(m, dim, purity):
    # E[g̃] for this purity, as a float; the inversion must be that float's exact image, rounded once (the
    # float form cancelled in its "− 1" and rounded to 15 decimals: 1e-18 came back as 0.0)
    with mpmath.workdps(50):
        statistic = float((m - 1) * (1 + mpmath.mpf(purity)) / (m * (dim + 1)))
    expected = float(Fraction(statistic) * m * (dim + 1) / (m - 1) - 1)
    assert purity_from_collisions(statistic, m, dim) == expected
    assert expected != 0.0
