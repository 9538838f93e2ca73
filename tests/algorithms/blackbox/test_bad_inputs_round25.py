"""Round 25: the optimum's check scaled by a median of f's values, which one outlier cannot widen (B)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import solve
from algorithms.blackbox import BlackBoxProblem, Evaluator, RandomSearch


def _f(x: np.ndarray) -> float:
    """(x − 0.3)² on [0, 0.95), 1e30 above: minimum 0."""
    return float((x[0] - 0.3) ** 2) if x[0] < 0.95 else 1e30


def test_an_outlier_does_not_hide_a_wrong_optimum():
    # the largest value seen (1e30) made the slack 1e24: optimum = 0.05 passed beside f = 0 and a target set
    # from it was reached (Success)
    problem = BlackBoxProblem(_f, ([0.0], [1.0]), budget=50, optimum=0.05, target=0.05 + 1e-9)
    ev = Evaluator(problem)
    ev(np.array([[1.0], [0.0], [0.9]]))
    with pytest.raises(ValueError, match="optimum"):
        ev(np.array([[0.3]]))
    with pytest.raises(ValueError, match="optimum"):
        solve(problem, RandomSearch(), seed=0)


def test_rounding_at_the_optimum_still_passes():
    # f's scale from the median: a value 1e-7 below optimum = 0 with values of order 1 is rounding, as before
    problem = BlackBoxProblem(lambda x: float(x @ x) - 1e-7 * float(np.all(x == 0)), ([-1, -1], [1, 1]),
                              budget=10, optimum=0.0)
    ev = Evaluator(problem)
    ev(np.array([[1.0, 1.0], [0.5, -0.5], [-1.0, 0.2], [0.0, 0.0]]))
    assert ev.best_value == pytest.approx(-1e-7)
