"""Round 20 of #43 in core: a positive tol that rounds to 0.0 as a float (red20b)."""

from fractions import Fraction

import numpy as np
import pytest

from algorithms.core import SolveOptions


@pytest.mark.parametrize("tol", [Fraction(1, 10**400), np.longdouble("1e-4000"), Fraction(1, 10**39)])
def test_a_positive_tol_below_the_working_range_is_refused_by_name(tol):
    # tol > 0 was tested on the exact value and its float 0.0 stored (then solve said "got 0.0")
    with pytest.raises(ValueError, match=r"tol = .* outside the package's working range"):
        SolveOptions(tol=tol)


@pytest.mark.parametrize("tol", [Fraction(1, 10**30), np.float32(1e-3), 1.2e-38])
def test_a_tol_inside_the_working_range_is_its_float(tol):
    assert SolveOptions(tol=tol).tol == float(tol)
