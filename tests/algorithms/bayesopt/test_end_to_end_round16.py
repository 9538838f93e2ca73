"""Round 16: CEI used end to end, the way a user runs it, against known answers (issue #43)."""

import numpy as np

from algorithms import solve
from algorithms.bayesopt import CEI, ConstrainedBOProblem


def test_float32_bounds_evaluate_the_returned_point():
    # a float32 problem evaluated float64 points and returned them cast to float32: sol.value was not f at
    # sol.x (-0.29999998730687244 beside f(sol.x) = -0.29999998211860657)
    calls = []

    def f(x):
        calls.append(np.array(x))
        return float(-x[0])

    problem = ConstrainedBOProblem(f, lambda x: float(x[0] - 0.3), np.array([[0, 1]], np.float32), initial=3,
                                   f_star=-0.3)
    sol = solve(problem, CEI(n_candidates=200), maxiters=10, seed=0, tol=1e-9)
    assert sol.x.dtype == np.float32
    assert sol.value == f(sol.x)
    assert np.all(sol.original.X == sol.x.astype(np.float64), axis=1).any()   # the very point evaluated
    assert all(np.array_equal(x.astype(np.float32).astype(np.float64), x) for x in calls)
    assert sol.value <= -0.29 and sol.x[0] <= np.float32(0.3)
