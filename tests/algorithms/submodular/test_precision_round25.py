"""Round 25 (#43), class A: the ready-made sums are correctly rounded (a Python sum lost the 1s of
1e16 + 1 + 1, 1e16 for 1e16 + 2: a gain of 2 gone, and the value could depend on the set's order)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from algorithms.submodular import Coverage, DirectedCut, FacilityLocation, GraphCut


def _exact(*terms: float) -> float:
    return float(sum(Fraction(t) for t in terms))


def test_cut_coverage_and_facility_location_sums_are_correctly_rounded():
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 0] = 1e16
    W[0, 2] = W[2, 0] = W[0, 3] = W[3, 0] = 1.0
    want = _exact(1e16, 1.0, 1.0)
    assert want == 1.0000000000000002e16
    assert DirectedCut(W)(frozenset({0})) == want
    assert GraphCut(W)(frozenset({0})) == want
    assert Coverage([{0}, {8}, {16}], item_weights={0: 1e16, 8: 1.0, 16: 1.0})(frozenset({0, 1, 2})) == want
    assert FacilityLocation(np.array([[1e16], [1.0], [1.0]]))(frozenset({0})) == want
