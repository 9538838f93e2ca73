"""Unit tests of PurestStateProblem, H₁/H₂, loḡ and the successive-rejects schedule."""

import numpy as np
import pytest

from algorithms.quantum import (
    PurestStateProblem,
    hardness_h1,
    hardness_h2,
    log_bar,
    random_state,
    successive_rejects_schedule,
)


def test_hardness_by_hand():
    purities = [0.6, 1.0, 0.9, 0.7]  # sorted gaps 0.1, 0.3, 0.4 at ranks 2, 3, 4
    assert hardness_h1(purities) == pytest.approx(min(0.1 / 2, 0.3 / 3, 0.4 / 4))
    assert hardness_h2(purities) == pytest.approx(min(0.01 / 2, 0.09 / 3, 0.16 / 4))
    assert hardness_h1([0.8, 0.8]) == 0.0  # no unique purest state


def test_log_bar_is_half_plus_harmonic_tail():
    assert log_bar(2) == 1.0
    assert log_bar(16) == pytest.approx(0.5 + sum(1 / i for i in range(2, 17)))


@pytest.mark.parametrize("K", [2, 3, 4, 8, 16])
@pytest.mark.parametrize("budget", [16, 17, 100, 1001, 99999])
def test_schedule_spends_at_most_the_budget(K, budget):
    if budget < K:
        pytest.skip("budget below K")
    schedule = successive_rejects_schedule(budget, K)
    assert np.all(np.diff(schedule) >= 0) and schedule.size == K - 1
    assert int(schedule.sum() + schedule[-1]) <= budget


def test_problem_stores_validated_states():
    states = [random_state(2, purity=p, seed=i) for i, p in enumerate((0.5, 0.8, 0.3))]
    problem = PurestStateProblem(states, copies=30)
    assert (problem.K, problem.dim, problem.n_qubits, problem.purest) == (3, 4, 2, 1)
    np.testing.assert_allclose(problem.purities, [0.5, 0.8, 0.3], atol=1e-12)
    assert problem.is_correct(1) and not problem.is_correct(0)
    assert problem.hardness() == pytest.approx((min(0.3 / 2, 0.5 / 3), min(0.09 / 2, 0.25 / 3)))
    assert not problem.states.flags.writeable
    assert problem.dtype is np.float64


def test_problem_dtype_follows_single_precision_input():
    states = [(np.eye(2) / 2).astype(np.float32), np.diag([1.0, 0.0]).astype(np.float32)]
    assert PurestStateProblem(states, copies=4).dtype is np.float32
