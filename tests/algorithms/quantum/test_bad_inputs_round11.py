"""#43 round 11 (pre-audit sweep) of algorithms.quantum: a frozen PurestStateProblem or algorithm changed
after construction through ``object.__setattr__`` was solved as it was (copies below K, a non-density
matrix, states swapped while the cached purities named the old purest state)."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.quantum import IncoherentSR, PurestStateProblem, UniformAllocation, random_state


def _problem():
    return PurestStateProblem([random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.95))],
                              copies=400)


def test_problem_fields_changed_after_construction_are_validated_again():
    problem = _problem()
    object.__setattr__(problem, "copies", 1)
    with pytest.raises(ValueError, match=r"PurestStateProblem\.copies was changed.*copies"):
        solve(problem, UniformAllocation())
    problem = _problem()
    object.__setattr__(problem, "states", np.stack([np.eye(2), np.eye(2)]))  # trace 2
    with pytest.raises(ValueError, match=r"PurestStateProblem\.states was changed.*states\[0\]"):
        solve(problem, UniformAllocation())


def test_valid_states_swapped_in_rebuild_the_purities():
    problem = _problem()
    assert problem.purest == 1
    states = np.stack([random_state(1, purity=p, seed=i) for i, p in enumerate((0.99, 0.55))])
    object.__setattr__(problem, "states", states)
    solve(problem, UniformAllocation(), seed=0)
    assert problem.purest == 0


def test_algorithm_fields_changed_after_construction_are_validated_again():
    algorithm = UniformAllocation()
    object.__setattr__(algorithm, "copies_per_basis", 1)
    with pytest.raises(ValueError, match=r"UniformAllocation\.copies_per_basis was changed.*per_basis"):
        solve(_problem(), algorithm)
    algorithm = IncoherentSR()
    object.__setattr__(algorithm, "gap", 2.0)
    with pytest.raises(ValueError, match=r"IncoherentSR\.gap was changed.*\bgap\b"):
        solve(_problem(), algorithm)


def test_stats_counters_documented_zero_stay_zero():
    """red11a: QuantumStats(grad_calls=3) was accepted while the docstring says they stay 0."""
    from algorithms.quantum import QuantumStats

    with pytest.raises(ValueError, match=r"\bgrad_calls must stay 0"):
        QuantumStats(grad_calls=3)
    stats = QuantumStats(copies=5)
    with pytest.raises(ValueError, match=r"\blinear_solves must stay 0"):
        stats.linear_solves = 2


def test_sequences_whose_len_raises_are_named():
    """A list subclass whose __len__ raises let its RuntimeError out of list(states) / list(keep)."""
    from algorithms.quantum import partial_trace

    class Loud(list):
        def __len__(self):
            raise RuntimeError("boom")

    with pytest.raises(TypeError, match=r"\bstates must be a sequence of density matrices"):
        PurestStateProblem(Loud([random_state(1, seed=0), random_state(1, seed=1)]), 10)
    with pytest.raises(TypeError, match=r"\bkeep must be a sequence of int qubit indices"):
        partial_trace(random_state(2, seed=0), Loud([0]))


def test_stats_counts_past_int64_and_empty_counts_refused():
    """Held-out first run: QuantumStats(copies=2**64) and 10**100 counts were stored; collision_statistic of
    an empty (0, d) batch answered an empty array."""
    from algorithms.quantum import QuantumStats, collision_statistic

    with pytest.raises(ValueError, match=r"\bcopies must be <= 2\*\*63 - 1"):
        QuantumStats(copies=2**64)
    with pytest.raises(ValueError, match=r"\biterations must be <= 2\*\*63 - 1"):
        QuantumStats(iterations=10**100)
    with pytest.raises(ValueError, match=r"\bcounts must hold at least one row"):
        collision_statistic(np.zeros((0, 2), dtype=int))
