"""Round 18: a base problem changed after a derived problem was built from it (class A)."""

import numpy as np
import pytest

import algorithms.curvature as C
from algorithms import solve


@pytest.mark.parametrize("derive", [lambda b: C.shifted(b, 3.0), lambda b: C.scaled(b, 2.0),
                                    lambda b: C.summed(b, b)], ids=["shifted", "scaled", "summed"])
@pytest.mark.parametrize("field, value", [("f", lambda x: 100.0), ("grad", lambda x: np.ones(2))])
def test_derived_problem_keeps_the_base_it_was_built_from(derive, field, value):
    # shifted's f read the base's f at call time while its grad and f* were taken at derivation: a base f
    # replaced later (object.__setattr__) ran f* = 3 above f everywhere in silence (red18b)
    base = C.squared_lp_norm(2, x0=np.array([1.0, 2.0]))
    derived = derive(base)
    reference = solve(derived, C.LCD1(), maxiters=500)
    object.__setattr__(base, field, value)
    again = solve(derived, C.LCD1(), maxiters=500)
    assert again.retcode == reference.retcode and again.value == reference.value
    assert np.array_equal(again.x, reference.x)
