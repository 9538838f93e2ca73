"""Round 14: normalized_regret computed exactly (ints past 2**53 and Fractions are not rounded first)."""

from fractions import Fraction

import numpy as np
import pytest

from algorithms.blackbox import BlackBoxProblem, normalized_regret


def _problem(optimum: float, f_ref: float) -> BlackBoxProblem:
    return BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=optimum, f_ref=f_ref)


@pytest.mark.parametrize("optimum, f_ref, value", [
    (float(2**64), float(np.nextafter(2.0**64, np.inf)), 2**64 + 2048),   # was 0.0 (2**64 + 2048 rounded)
    (0.3333333333333333, 0.33333333333333337, Fraction(1, 3)),         # was 0.0
    (1.0, 3.0, 2.0), (0.0, 1.2e-38, np.int64(3)), (-3.4e38, 3.4e38, 0.0),
])
def test_normalized_regret_is_exact(optimum, f_ref, value):
    value_exact = Fraction(int(value) if isinstance(value, np.integer) else value)
    exact = (value_exact - Fraction(optimum)) / (Fraction(f_ref) - Fraction(optimum))
    assert normalized_regret(value, _problem(optimum, f_ref)) == max(0.0, float(exact))


def test_normalized_regret_past_float64_is_inf():
    assert normalized_regret(1e300, _problem(0.0, 1.2e-38)) == float("inf")
