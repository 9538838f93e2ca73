"""Unit tests of CoherentSR (the paper's Algorithm 2)."""

import pytest

from algorithms import RetCode, solve
from algorithms.quantum import CoherentSR, PurestStateProblem, random_state, successive_rejects_schedule


def _problem(n_qubits, purities, copies):
    return PurestStateProblem([random_state(n_qubits, purity=p, seed=i) for i, p in enumerate(purities)],
                              copies=copies)


def test_spends_two_copies_per_test_within_budget():
    problem = _problem(2, (0.4, 0.9, 0.5, 0.6), 101)
    sol = solve(problem, CoherentSR(), seed=0, store_trace=True)
    schedule = successive_rejects_schedule(50, 4)
    assert sol.stats.settings == schedule.sum() + schedule[-1]
    assert sol.stats.copies == 2 * sol.stats.settings <= 101
    assert len(sol.trace) == 3


def test_paper_schedule_would_overspend():
    # Algorithm 2 as printed: ⌈(N − K)/(2 loḡ(K)(K + 1 − k))⌉ tests; at N = 100, K = 4 it needs 102 copies
    import math

    from algorithms.quantum import log_bar
    tests = [math.ceil((100 - 4) / (2 * log_bar(4) * (5 - k))) for k in (1, 2, 3)]
    assert 2 * (sum(tests) + tests[-1]) == 102


def test_dimension_free_behaviour_and_accuracy():
    for n_qubits in (1, 3):
        problem = _problem(n_qubits, (0.6, 0.95, 0.7), 3000)
        wins = sum(solve(problem, CoherentSR(), seed=s).x == 1 for s in range(20))
        assert wins >= 19


def test_budget_below_two_copies_per_state_is_rejected():
    with pytest.raises(ValueError, match="copies must be >= 2K = 6"):
        solve(_problem(1, (0.6, 0.9, 0.7), 5), CoherentSR())


def test_no_test_in_a_phase_is_a_failure():
    sol = solve(_problem(1, (0.6, 0.9), 4), CoherentSR())  # T = 2 = K: N₁ = 0 tests
    assert sol.retcode is RetCode.Failure


def test_maxiters_cuts_phases():
    sol = solve(_problem(1, (0.6, 0.9, 0.7), 300), CoherentSR(), maxiters=1)
    assert sol.retcode is RetCode.MaxIters and sol.stats.iterations == 1
