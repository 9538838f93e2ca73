"""Round 18: an f answering values that hold more than a float64 (a Decimal, an np.longdouble, a 0-d int
array, an int tensor) is compared exactly, as ints and Fractions are (they were rounded to float64 and
BruteForce/Greedy returned a wrong set with Success; red18b). A negative answer that rounds to -0.0 is
refused.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.submodular import (
    BruteForce,
    Coverage,
    DirectedCut,
    FacilityLocation,
    GraphCut,
    Greedy,
    Matchoid,
    MatchoidMaximization,
    UniformMatroid,
)

_WEIGHTS = {
    "Decimal": lambda k: decimal.Decimal(1) + decimal.Decimal(k) / decimal.Decimal(10**20),
    "longdouble": lambda k: np.longdouble(1) + np.longdouble(k) * np.longdouble(2.0**-60),
    "0-d longdouble array": lambda k: np.array(np.longdouble(1) + np.longdouble(k) * np.longdouble(2.0**-60)),
    "0-d int64 array": lambda k: np.array(10**17 + k, dtype=np.int64),
    "int64 tensor": lambda k: torch.tensor(10**17 + k),
}


@pytest.mark.parametrize("kind", list(_WEIGHTS))
@pytest.mark.parametrize("algorithm", [BruteForce(), Greedy()], ids=lambda a: type(a).__name__)
def test_answers_wider_than_float64_are_compared_exactly(kind, algorithm):
    if kind.endswith("longdouble") and np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("np.longdouble is float64 on this platform")
    weight = _WEIGHTS[kind]

    def f(S):  # one element at most (rank 1): the heaviest, element 4, is the optimum
        return weight(max(S)) if S else weight(0) * 0

    problem = MatchoidMaximization(f, Matchoid([UniformMatroid(1)]), range(5))
    sol = solve(problem, algorithm)
    assert sol.retcode == RetCode.Success
    assert problem.decode(sol.x) == frozenset({4})


@pytest.mark.parametrize("tiny", [decimal.Decimal("-1e-400"), np.longdouble("-1e-400")], ids=repr)
def test_a_negative_answer_rounding_to_minus_zero_is_refused(tiny):
    if isinstance(tiny, np.longdouble) and tiny == 0:
        pytest.skip("np.longdouble cannot hold 1e-400 on this platform")

    def f(S):
        return tiny if S else decimal.Decimal(0) * 0

    problem = MatchoidMaximization(f, Matchoid([UniformMatroid(1)]), range(3))
    sol = solve(problem, BruteForce())
    assert sol.retcode == RetCode.Failure
    assert problem.decode(sol.x) == frozenset()


_ONE = np.longdouble(1)
_INEXACT = [Fraction(1, 3), Fraction(1) + Fraction(1, 10**20), _ONE + np.longdouble(2) ** -60]


def _pair(value):
    return np.array([_ONE, value]) if isinstance(value, np.longdouble) else [1, value]


@pytest.mark.parametrize("value", _INEXACT, ids=repr)
@pytest.mark.parametrize("build", ["Coverage", "FacilityLocation", "GraphCut", "DirectedCut", "graph"])
def test_weights_float64_does_not_hold_are_refused_by_name(value, build):
    # rounded to float64, 1 + 1e-20 tied with 1 and BruteForce returned a wrong set with Success
    if isinstance(value, np.longdouble) and np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("np.longdouble is float64 on this platform")
    import networkx as nx

    a, b = _pair(value)
    calls = {"Coverage": lambda: Coverage([[0], [1]], item_weights=_pair(value)),
             "FacilityLocation": lambda: FacilityLocation(np.array([[a, b]]) if isinstance(b, np.longdouble)
                                                          else [[a, b]]),
             "GraphCut": lambda: GraphCut(np.array([[0 * a, b], [b, 0 * a]]) if isinstance(b, np.longdouble)
                                          else [[0, b], [b, 0]]),
             "DirectedCut": lambda: DirectedCut(np.array([[0 * a, b], [a, 0 * a]])
                                                if isinstance(b, np.longdouble) else [[0, b], [a, 0]]),
             "graph": lambda: GraphCut(nx.Graph([(0, 1, {"weight": b})]))}
    name = {"Coverage": "item_weights", "FacilityLocation": "similarity"}.get(build, "weights")
    with pytest.raises(ValueError, match=rf"^{name} has entries float64 .* does not hold exactly"):
        calls[build]()


def test_weights_float64_holds_are_taken_and_compared():
    f = Coverage([[0], [1]], item_weights=[Fraction(1, 2), np.longdouble(0.75)])
    problem = MatchoidMaximization(f, Matchoid([UniformMatroid(1)]), range(2))
    assert problem.decode(solve(problem, BruteForce()).x) == frozenset({1})
