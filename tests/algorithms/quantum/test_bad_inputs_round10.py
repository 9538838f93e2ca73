"""#43 round 10 (pre-audit sweep) of algorithms.quantum: an np.matrix of counts (its rows stayed 2-d and
``int`` raised numpy's 'only 0-dimensional arrays' TypeError), a density-matrix check failed by a given
``atol`` named only 'tolerance', ``QuantumStats(wall_time=10**400)`` raised a bare OverflowError."""

import numpy as np
import pytest

from algorithms.quantum import QuantumStats, as_density_matrix, collision_statistic, cross_correlation_purity


def test_matrix_counts_are_plain_counts():
    assert collision_statistic(np.matrix([[2, 0], [1, 1]])).tolist() == [0.5, 0.0]
    counts = np.array([[2, 0], [1, 1]])
    assert cross_correlation_purity(np.matrix(counts), 1) == cross_correlation_purity(counts, 1)


def test_failed_check_names_atol():
    rho = np.array([[0.5, 1e-12], [0.0, 0.5]])
    with pytest.raises(ValueError, match=r"Hermitian.*\(atol\)"):
        as_density_matrix(rho, atol=1.2e-38)


def test_stats_float_past_float_range_named():
    with pytest.raises(ValueError, match=r"\bwall_time\b"):
        QuantumStats(wall_time=10**400)


def test_identification_errors_repetitions_capped_and_seeds_checked_first():
    """2**31 − 1 repetitions looped for months; seed = 2**64 − 1 with 2 repetitions ran one solve and then
    met solve's seed check (refused up front in round 10; since round 25 the runs' seeds wrap modulo 2**64,
    as every seed of the package: tests/test_autograd_helpers_round25.py checks the runs' seeds)."""
    from algorithms.quantum import CoherentSR, PurestStateProblem, identification_errors, random_state
    from algorithms.quantum.evaluation import MAX_REPETITIONS

    problem = PurestStateProblem([random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))], 40)
    with pytest.raises(ValueError, match=r"\brepetitions must be <= MAX_REPETITIONS"):
        identification_errors(problem, CoherentSR(), MAX_REPETITIONS + 1)
    assert identification_errors(problem, CoherentSR(), 2, seed=2**64 - 1) in (0, 1, 2)
    assert identification_errors(problem, CoherentSR(), 1, seed=2**64 - 1) in (0, 1)


def test_copies_per_basis_for_checks_gap_when_m_wins():
    from algorithms.quantum import copies_per_basis_for

    with pytest.raises(TypeError, match=r"\bgap must be a float"):
        copies_per_basis_for(2, 4, gap="x")
    with pytest.raises(ValueError, match=r"\bgap must be a float"):
        copies_per_basis_for(2, 4, gap=-1.0)
    assert copies_per_basis_for(2, 4, gap=0.1) == 4


def test_purity_estimates_outside_the_physical_range_are_documented():
    """sol.value of 1.36 (> 1) from 300 copies: an unbiased estimate, not clipped, as the docstrings say."""
    from algorithms import solve
    from algorithms.quantum import (
        CoherentSR,
        IncoherentSR,
        PurestStateProblem,
        UniformAllocation,
        random_state,
    )

    states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9, 0.7))]
    sol = solve(PurestStateProblem(states, copies=300), IncoherentSR(), seed=2**63)
    assert sol.value > 1.0  # measured 1.357
    for algorithm in (CoherentSR, IncoherentSR, UniformAllocation):
        import sys

        assert "not clipped" in " ".join(sys.modules[algorithm.__module__].__doc__.split())


def test_schedule_budget_below_k_names_both():
    """Held-out round 10 (first run): K = 2**40 with budget 100 named budget alone."""
    from algorithms.quantum import successive_rejects_schedule

    with pytest.raises(ValueError, match=r"\bbudget must be >= 1099511627776 \(K,.*with K = 1099511627776"):
        successive_rejects_schedule(100, 2**40)
