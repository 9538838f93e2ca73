import math

import pytest

from algorithms.submodular import CountingOracle, NegativeValueError, NonFiniteValueError
from tests.algorithms.submodular._instances import cardinality, two_partitions


def test_counts_both_kinds_of_query():
    oracle = CountingOracle(len, two_partitions())
    oracle.value(frozenset({1}))
    assert oracle.can_add(frozenset({0}), 1) is True  # parts 1 and 0: two independence calls
    assert oracle.can_add(frozenset({0}), 3) is False  # 0 and 3 share part 0 of the first matroid
    assert oracle.value_queries == 1 and oracle.independence_queries == 3 and oracle.queries == 4


@pytest.mark.parametrize("value, error", [(-1.0, NegativeValueError), (math.nan, NonFiniteValueError),
                                          (math.inf, NonFiniteValueError)])
def test_bad_values_raise_named_errors(value, error):
    with pytest.raises(error, match="f"):  # at construction (f probed at the empty set, round 10)
        CountingOracle(lambda s: value, cardinality())
    oracle = CountingOracle(lambda s: value if s else 0.0, cardinality())
    with pytest.raises(error, match="f"):
        oracle.value(frozenset({0}))


def test_non_numbers_are_rejected():
    with pytest.raises(TypeError, match="real number"):
        CountingOracle(lambda s: "x", cardinality()).value(frozenset())
