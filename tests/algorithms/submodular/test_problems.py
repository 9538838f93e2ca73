import numpy as np
import pytest

from algorithms.submodular import MatchoidMaximization, UpdateStream
from tests.algorithms.submodular._instances import cardinality, cut


def test_universe_indicator_and_decode():
    stream = UpdateStream(cut(dtype=np.float32), cardinality(), [("insert", 3), ("insert", 1), ("delete", 3)])
    assert stream.universe == (3, 1) and stream.dtype is np.float32
    x = stream.indicator({1})
    assert x.dtype == np.float32 and x.tolist() == [0.0, 1.0]
    assert stream.decode(x) == frozenset({1})
    with pytest.raises(ValueError, match="shape"):
        stream.decode([1.0])


def test_inconsistent_streams_name_the_update():
    with pytest.raises(ValueError, match=r"updates\[2\] deletes 5"):
        UpdateStream(len, cardinality(), [("insert", 1), ("delete", 1), ("delete", 5)])
    with pytest.raises(ValueError, match="kind"):
        UpdateStream(len, cardinality(), [("add", 1)])


def test_static_problem():
    problem = MatchoidMaximization(len, cardinality(), [2, 0, 1])
    assert problem.universe == (2, 0, 1) and problem.dtype is np.float64
    with pytest.raises(ValueError, match="repeat"):
        MatchoidMaximization(len, cardinality(), [1, 1])
