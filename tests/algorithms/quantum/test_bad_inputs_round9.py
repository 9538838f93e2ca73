"""#43 round 9 (pre-audit sweep) of algorithms.quantum, by class: objects whose ``__array__`` raises, 0-d
arrays where a sequence is expected, overflowing unitaries (NaN passed the unitarity test), a gap whose
m = ⌈1/√gap⌉ is no count, budgets past the simulation's size (a hang), an ignored ``tol``, QuantumStats'
inherited counters stored as given."""

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.quantum import (
    CoherentSR,
    IncoherentSR,
    PurestStateProblem,
    QuantumStats,
    UniformAllocation,
    collision_statistic,
    copies_per_basis_for,
    cross_correlation_purity,
    haar_unitaries,
    hardness_h1,
    measurement_probabilities,
    partial_trace,
    purity_from_collisions,
    random_state,
    sample_counts,
)

RHO = random_state(2, purity=0.7, seed=0)
STATES = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))]


class RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("boom")


@pytest.mark.parametrize("call, name", [
    (lambda: measurement_probabilities(RHO, RaisingArray()), "unitaries"),
    (lambda: sample_counts(RaisingArray(), 5), "probabilities"),
    (lambda: collision_statistic(RaisingArray()), "counts"),
    (lambda: cross_correlation_purity(RaisingArray(), 1), "counts"),
    (lambda: purity_from_collisions(RaisingArray(), 2, 2), "mean_statistic"),
    (lambda: hardness_h1(RaisingArray()), "purities"),
])
def test_raising_array_objects_named(call, name):
    with pytest.raises(TypeError, match=rf"\b{name}\b must be array-like"):
        call()


def test_zero_dimensional_keep_named():
    for keep in (np.array(1), torch.tensor(1)):
        with pytest.raises(TypeError, match="keep must be a sequence of int qubit indices"):
            partial_trace(RHO, keep)
    assert partial_trace(RHO, np.array([1])).shape == (2, 2)


def test_overflowing_unitaries_refused():
    """U·1e300: U U† overflowed to NaN, and NaN > tol is False: NaN probabilities came back."""
    with pytest.raises(ValueError, match="unitaries must be unitary"):
        measurement_probabilities(RHO, haar_unitaries(4, 2, seed=0) * 1e300)


def test_gap_whose_m_is_no_count_refused():
    for gap in (1e-320, 1e-300):
        with pytest.raises(ValueError, match=r"gap must be >= .*2\*\*31 − 1"):
            IncoherentSR(gap=gap)
        with pytest.raises(ValueError, match="gap must be >="):
            copies_per_basis_for(4, gap=gap)
    assert copies_per_basis_for(4, gap=1e-18) == 10**9


def test_budget_past_the_simulation_refused_naming_copies():
    """copies = 2**31 − 1 drew 2**30 Haar bases: minutes, then out of memory (a hang)."""
    problem = PurestStateProblem(STATES, copies=2**31 - 1)
    for algorithm in (IncoherentSR(), UniformAllocation(), UniformAllocation("local")):
        with pytest.raises(ValueError, match=r"copies = 2147483647 is too large"):
            solve(problem, algorithm)
    assert solve(problem, CoherentSR()).successful  # binomial draws: any budget is cheap


def test_tol_does_not_apply():
    problem = PurestStateProblem(STATES, copies=40)
    for algorithm in (CoherentSR(), IncoherentSR(), UniformAllocation()):
        with pytest.raises(ValueError, match=r"tol does not apply to \w+"):
            solve(problem, algorithm, tol=1e-3)


@pytest.mark.parametrize("field, value, error", [
    ("iterations", "x", TypeError), ("f_calls", -1, ValueError), ("grad_calls", 1.5, TypeError),
    ("wall_time", -1.0, ValueError), ("wall_time", "1", TypeError), ("linear_solves", True, TypeError),
])
def test_quantum_stats_inherited_counters(field, value, error):
    with pytest.raises(error, match=field):
        QuantumStats(**{field: value})
    assert QuantumStats(iterations=np.int64(3)).iterations == 3


def test_unitaries_of_another_size_name_rho():
    with pytest.raises(ValueError, match=r"unitaries must have shape .*\(rho is 4 × 4\)"):
        measurement_probabilities(RHO, haar_unitaries(2, 3, seed=0))


def test_draws_past_the_work_budget_refused():
    """100 unitaries of 2048 × 2048 fit in memory and took minutes (a hang)."""
    from algorithms.quantum import local_unitaries

    with pytest.raises(ValueError, match=r"haar_unitaries: size = 100 unitaries of 2048 × 2048 are too many"):
        haar_unitaries(2048, 100)
    with pytest.raises(ValueError, match=r"local_unitaries: size = 1000 .* too many"):
        local_unitaries(10, 1000)


def test_heldout9_generator_states_refused():
    with pytest.raises(TypeError, match=r"states must be a sequence .* got generator"):
        PurestStateProblem((s for s in STATES), 40)
    assert PurestStateProblem(tuple(STATES), 40).K == 2
