"""Unit tests of IncoherentSR (the paper's Algorithm 1)."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.quantum import (
    IncoherentSR,
    PurestStateProblem,
    copies_per_basis_for,
    random_state,
    successive_rejects_schedule,
)


def _problem(n_qubits, purities, copies):
    return PurestStateProblem([random_state(n_qubits, purity=p, seed=i) for i, p in enumerate(purities)],
                              copies=copies)


def test_copies_per_basis_rules():
    assert copies_per_basis_for(16) == 16  # Lemma 4.2: m = d
    assert copies_per_basis_for(16, gap=0.04) == 5  # Theorem 4.1: ⌈1/√c⌉
    assert copies_per_basis_for(16, gap=0.5) == 2  # ⌈1.41⌉
    assert copies_per_basis_for(16, gap=1.0) == 2  # raised to two copies
    assert copies_per_basis_for(16, copies_per_basis=3, gap=0.01) == 3


def test_budget_and_phases():
    problem = _problem(2, (0.4, 0.9, 0.5, 0.6), 1000)
    sol = solve(problem, IncoherentSR(copies_per_basis=3), seed=1, store_trace=True)
    assert sol.retcode is RetCode.Success and sol.x == 1
    schedule = successive_rejects_schedule(1000, 4)
    # each state gets 3·⌊N_k/3⌋ copies by the end of its last phase
    expected = sum(3 * (n // 3) for n in schedule) + 3 * (schedule[-1] // 3)
    assert sol.stats.copies == expected <= 1000
    assert sol.stats.f_calls == sol.stats.copies and sol.stats.iterations == 3
    assert [r["phase"] for r in sol.trace] == [1, 2, 3]
    dropped = [r["dropped"] for r in sol.trace]
    assert sorted([*dropped, sol.x]) == [0, 1, 2, 3]
    assert 0.5 < sol.value < 1.3  # the estimated purity of the winner (noisy, true 0.9)


def test_identifies_a_clear_winner_with_high_probability():
    problem = _problem(3, (0.3, 0.95, 0.4, 0.35), 6000)
    wins = sum(solve(problem, IncoherentSR(), seed=s).x == 1 for s in range(20))
    assert wins >= 18


def test_seed_determinism_and_maxiters():
    problem = _problem(1, (0.6, 0.9, 0.7), 200)
    a, b = (solve(problem, IncoherentSR(gap=0.3), seed=5) for _ in range(2))
    assert a.x == b.x and a.value == b.value
    cut = solve(problem, IncoherentSR(gap=0.3), maxiters=1)
    assert cut.retcode is RetCode.MaxIters and cut.stats.iterations == 1


def test_too_small_a_budget_is_a_failure_not_a_success():
    problem = _problem(3, (0.3, 0.9), 8)  # N₁ = 3 copies < m = 8: no basis measured
    sol = solve(problem, IncoherentSR(), seed=0)
    assert sol.retcode is RetCode.Failure and sol.stats.copies == 0
    assert np.isnan(sol.value)


def test_callback_can_stop():
    problem = _problem(1, (0.6, 0.9, 0.7), 200)
    sol = solve(problem, IncoherentSR(), callback=lambda record: True)
    assert sol.retcode is RetCode.Terminated


@pytest.mark.parametrize("bad", [dict(copies_per_basis=1), dict(gap=0.0), dict(gap=2.0)])
def test_bad_hyperparameters(bad):
    with pytest.raises(ValueError):
        IncoherentSR(**bad)
