import math

import numpy as np
import pytest

from algorithms.blackbox import BlackBoxProblem, Evaluator, bbob_problem, normalized_regret
from algorithms.blackbox.problem import BBOB_FUNCTIONS


def test_evaluator_caps_counts_and_replaces_nonfinite():
    values = iter([1.0, math.nan, -math.inf, 0.5, 2.0])
    prob = BlackBoxProblem(lambda x: next(values), ([0.0], [1.0]), budget=4)
    ev = Evaluator(prob)
    out = ev(np.zeros((3, 1)))
    assert out.tolist() == [1.0, math.inf, math.inf] and ev.nonfinite == 2 and ev.evaluations == 3
    out = ev(np.zeros((2, 1)))                    # only one evaluation left: the second row is cut
    assert out.tolist() == [0.5, math.inf] and ev.evaluations == 4 and ev.exhausted
    assert ev.best_value == 0.5 and ev.history[-1] == (4, 0.5)
    assert ev(np.zeros((1, 1))).tolist() == [math.inf] and ev.evaluations == 4


def test_vectorized_objective_and_shape_check():
    prob = BlackBoxProblem(lambda X: X.sum(1), (np.zeros(2), np.ones(2)), 10, vectorized=True)
    ev = Evaluator(prob)
    assert ev(np.ones((3, 2))).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="shape"):
        ev(np.ones((3, 3)))


def test_bbob_problem_has_known_optimum_and_reference():
    assert len(BBOB_FUNCTIONS) == 24
    for fid in (1, 8, 24):
        p = bbob_problem(fid, 3, 4, 50)
        assert p.dim == 4 and p.f_ref > p.optimum and p.name.startswith(f"bbob_f{fid}_")
        assert np.all(p.lower == -5) and np.all(p.upper == 5)
        assert np.all(p.f(np.zeros((2, 4))) >= p.optimum)
    p = bbob_problem(1, 1, 2, 10, target_precision=1e-8)
    assert p.target == pytest.approx(p.optimum + 1e-8)


def test_normalized_regret():
    p = BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=1.0, f_ref=3.0)
    assert normalized_regret(1.0, p) == 0.0 and normalized_regret(0.0, p) == 0.0
    assert normalized_regret(5.0, p) == 2.0


def test_float32_bounds_keep_dtype():
    p = BlackBoxProblem(lambda x: 0.0, (np.zeros(2, np.float32), np.ones(2, np.float32)), 5)
    assert p.dtype == np.float32
