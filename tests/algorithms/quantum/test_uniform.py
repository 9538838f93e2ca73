"""Unit tests of UniformAllocation with each estimator, and of identification_errors."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.quantum import PurestStateProblem, UniformAllocation, identification_errors, random_state


def _problem(n_qubits, purities, copies):
    return PurestStateProblem([random_state(n_qubits, purity=p, seed=i) for i, p in enumerate(purities)],
                              copies=copies)


@pytest.mark.parametrize("estimator", ["collision", "local", "swap"])
def test_each_estimator_finds_a_clear_winner(estimator):
    problem = _problem(2, (0.3, 0.95, 0.4), 6000)
    sol = solve(problem, UniformAllocation(estimator=estimator), seed=1, store_trace=True)
    assert sol.retcode is RetCode.Success and sol.x == 1
    assert sol.stats.copies <= 6000 and len(sol.trace) == 1
    assert abs(sol.value - 0.95) < 0.3


def test_share_below_one_setting_is_a_failure():
    sol = solve(_problem(3, (0.3, 0.9), 10), UniformAllocation())  # 5 copies per state < m = 8
    assert sol.retcode is RetCode.Failure


def test_maxiters_zero():
    sol = solve(_problem(1, (0.6, 0.9), 100), UniformAllocation(), maxiters=0)
    assert sol.retcode is RetCode.MaxIters and sol.stats.copies == 0 and np.isnan(sol.value)


def test_identification_errors_counts_misses():
    easy = _problem(1, (0.5, 1.0), 400)
    assert identification_errors(easy, UniformAllocation(estimator="swap"), 30) == 0
    coin = _problem(1, (0.7, 0.7), 4)  # tied states: any answer is correct
    assert identification_errors(coin, UniformAllocation(estimator="swap"), 10) == 0
