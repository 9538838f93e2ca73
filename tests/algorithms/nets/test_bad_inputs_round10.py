"""#43 round 10 (pre-audit sweep) for the nets family: each class found, with the words of its message."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.nets import multivariate_interpolation as MI
from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem, PatternEnumeration

XOR = MultivariateInterpolationProblem(X=[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                                       y=[0.0, 1.0, 1.0, 0.0])


# ------------------------------------------------- class 1: exponential enumeration refused before it runs
@pytest.mark.parametrize("call", [
    lambda: solve(XOR, PatternEnumeration(max_pieces=3)),         # minutes: ~2e9 units of work
    lambda: solve(XOR, PatternEnumeration()),                     # hours
    lambda: MI.basic_points(XOR, 3),
    lambda: solve(MultivariateInterpolationProblem(X=np.eye(3), y=[0.0, 1.0, 1.0]), PatternEnumeration()),
])
def test_an_enumeration_past_its_work_bound_is_refused_naming_max_pieces(call):
    with pytest.raises(ValueError, match=r"X of shape \(\d, \d\) with max_pieces=\d.*maxiters"):
        call()


def test_a_budget_keeps_a_large_enumeration_runnable_and_a_huge_d_is_refused():
    assert solve(XOR, PatternEnumeration(max_pieces=3), maxiters=5).retcode.name == "MaxIters"
    with pytest.raises(ValueError, match=r"X has shape \(1, 100\): one piece"):
        MI.basic_points(MultivariateInterpolationProblem(X=np.eye(1, 100), y=[1.0]))
    with pytest.raises(ValueError, match="X has 1001 columns"):
        MultivariateInterpolationProblem(X=np.eye(2, 1001), y=[1.0, 2.0])
    with pytest.raises(TypeError, match="budget must be an int"):
        MI.basic_points(XOR, 1, budget=2.5)
