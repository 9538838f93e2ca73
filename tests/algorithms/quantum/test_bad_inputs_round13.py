"""#43 round 13 of algorithms.quantum: every parameter's domain stated in its docstring, and kept."""

import inspect

import numpy as np
import pytest

from algorithms.quantum import (
    IncoherentSR,
    PurestStateProblem,
    UniformAllocation,
    copies_per_basis_for,
    random_state,
    successive_rejects_schedule,
)


def _exact_schedule(budget: int, K: int) -> list[int]:
    from fractions import Fraction

    log_bar = sum((Fraction(1, i) for i in range(2, K + 1)), Fraction(1, 2))
    num, den = log_bar.numerator, log_bar.denominator
    return [-((-(budget - K) * den) // (num * (K + 1 - k))) for k in range(1, K)]


@pytest.mark.parametrize("budget, K", [(2**63 - 1, 3), (10**17 + 1, 4), (2**53 + 1, 7), (2**63 - 1, 20),
                                       (9 * 10**18, 2)])
def test_successive_rejects_schedule_is_exact_for_budgets_past_2_53(budget, K):
    """red13a: the float quotient was off by up to thousands of units and overspent the budget [silent]."""
    schedule = successive_rejects_schedule(budget, K)
    assert schedule.tolist() == _exact_schedule(budget, K)
    assert sum(schedule.tolist()) + int(schedule[-1]) <= budget


@pytest.mark.parametrize("build, name, words", [
    (lambda: IncoherentSR(gap=1e-30), "gap", "2.17e-19"),
    (lambda: IncoherentSR(gap=1.2e-38), "gap", "2.17e-19"),
    (lambda: copies_per_basis_for(4, gap=1e-20), "gap", "2.17e-19"),
    (lambda: IncoherentSR(copies_per_basis=2**31), "copies_per_basis", "2**31"),
    (lambda: UniformAllocation(copies_per_basis=2**40), "copies_per_basis", "2**31"),
    (lambda: PurestStateProblem([random_state(1, seed=0), random_state(1, seed=1)], copies=2**40),
     "copies", "2**31"),
    (lambda: random_state(11), "n_qubits", "10"),
    (lambda: random_state(2, rank=5), "rank", "4"),
])
def test_narrower_ranges_are_refused_by_name(build, name, words):
    """red13a: gap documented (0, 1] refused 1.2e-38 .. 2.17e-19; the 2**31 − 1 caps on counts of copies were
    unstated. Each refusal names its argument, and the owner's docstring states the bound."""
    with pytest.raises(ValueError, match=rf"\b{name}\b") as info:
        build()
    assert words in str(info.value)


@pytest.mark.parametrize("owner, words", [
    (IncoherentSR, "2.17e-19"), (IncoherentSR, "[2, 2**31 − 1]"), (UniformAllocation, "[2, 2**31 − 1]"),
    (PurestStateProblem, "[K, 2**31 − 1]"), (random_state, "[1, 10]"), (random_state, "[1, d]"),
    (successive_rejects_schedule, "[K, 2**63 − 1]"),
])
def test_docstrings_state_the_narrower_ranges(owner, words):
    assert words in inspect.getdoc(owner)


@pytest.mark.parametrize("gap", [2.2e-19, 1e-6, 1.0])
def test_gap_inside_its_stated_range_works(gap):
    assert IncoherentSR(gap=gap).gap == gap
    assert copies_per_basis_for(4, gap=gap) >= 2


def test_schedule_of_a_small_budget_is_unchanged():
    assert successive_rejects_schedule(100, 4).tolist() == [16, 21, 31]
    assert np.asarray(successive_rejects_schedule(10, 10)).tolist() == [0] * 9


@pytest.mark.parametrize("repetitions", [1001, 10**5])
def test_identification_errors_repetitions_capped_at_what_runs_in_seconds(repetitions):
    """red13a: the documented cap 10**5 ran for minutes on the smallest problem (each repetition a solve)."""
    from algorithms.quantum import identification_errors

    states = [random_state(1, purity=0.9, seed=1), random_state(1, purity=0.6, seed=2)]
    problem = PurestStateProblem(states, 20)
    with pytest.raises(ValueError, match=r"\brepetitions must be <= MAX_REPETITIONS = 1000"):
        identification_errors(problem, UniformAllocation(), repetitions)
    assert "MAX_REPETITIONS = 1000" in inspect.getdoc(identification_errors)


@pytest.mark.parametrize("algorithm", ["CoherentSR", "IncoherentSR"])
def test_successive_rejects_counts_copies_once_per_phase(algorithm):
    """The checked QuantumStats record was set per arm and phase (O(K²) validations, K = 2000 took 17 s):
    the totals are now written per phase, and they are the copies spent."""
    import time

    import algorithms.quantum as Q
    from algorithms import solve

    K = 600
    states = np.stack([random_state(1, purity=0.5 + 0.5 * i / K, seed=i) for i in range(K)])
    problem = PurestStateProblem(states, 20 * K)
    start = time.process_time()
    sol = solve(problem, getattr(Q, algorithm)(), seed=0)
    assert time.process_time() - start < 20.0
    per_setting = 2  # a SWAP test takes 2 copies; a Haar basis m = d = 2
    assert sol.stats.copies == per_setting * sol.stats.settings <= problem.copies


@pytest.mark.parametrize("K, copies, seed", [(3, 100, 0), (8, 400, 1), (40, 900, 2)])
def test_coherent_sr_batched_phases_match_one_draw_per_arm(K, copies, seed):
    """CoherentSR draws each phase's SWAP tests in one binomial call over the survivors (K = 2000 took 17 s
    with one call and one checked record update per arm); the answer, trace and counters are those of one
    draw per arm."""
    from unittest import mock

    import algorithms.quantum.coherent_sr as C
    from algorithms import solve

    states = np.stack([random_state(1, purity=0.5 + 0.4 * ((i * 7) % K) / K, seed=i) for i in range(K)])
    problem = PurestStateProblem(states, copies)
    original = C.run_successive_rejects

    def per_arm(problem, schedule, measure, score, options, rng, stats, to_purity, label, tally, batched):
        def one(arm, previous, target):
            measure(np.array([arm]), previous, target)
        return original(problem, schedule, one, score, options, rng, stats, to_purity, label, tally, False)

    batched = solve(problem, C.CoherentSR(), seed=seed, store_trace=True)
    with mock.patch.object(C, "run_successive_rejects", per_arm):
        single = solve(problem, C.CoherentSR(), seed=seed, store_trace=True)
    assert (batched.x, batched.value, batched.stats.copies) == (single.x, single.value, single.stats.copies)
    assert repr(batched.trace) == repr(single.trace)
