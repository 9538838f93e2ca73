"""Round 23: docstring promises at their boundaries (submodular)."""

from __future__ import annotations

import pytest

from algorithms._validation import UnknownAttributeError
from algorithms.submodular import CountingOracle, DynamicMatchoidMaximizer, Matchoid, UniformMatroid


def _maximizer():
    return DynamicMatchoidMaximizer(len, Matchoid([UniformMatroid(2)]), eps=0.1, seed=0)


def _oracle():
    return CountingOracle(len, Matchoid([UniformMatroid(2)]))


@pytest.mark.parametrize(("make", "known", "misspelt"), [(_maximizer, "eps", "epsilon"),
                                                         (_oracle, "value_queries", "querys")])
def test_sealed_objects_docstring_states_both_refusals(make, known, misspelt):
    # the docstring said "assigning one, or any other public attribute, raises a TypeError": a misspelt name
    # raises the README's UnknownAttributeError (not a TypeError); the docstring now says which is which
    obj = make()
    doc = type(obj).__doc__
    assert "TypeError" in doc and "UnknownAttributeError" in doc
    assert "or any other public\n    attribute, raises a TypeError" not in doc
    with pytest.raises(TypeError, match=f"{known} cannot be set"):
        setattr(obj, known, 1)
    with pytest.raises(UnknownAttributeError, match=f"takes no attribute '{misspelt}'"):
        setattr(obj, misspelt, 1)
