"""Purest quantum state identification (Yu, Chen, Wu, Xie, Li; arXiv:2502.14334) and its tools.

Problem type: :class:`PurestStateProblem` (K density matrices and a budget of N copies).
Algorithms: :class:`IncoherentSR` (the paper's adaptive single-copy algorithm, Algorithm 1),
:class:`CoherentSR` (its SWAP-test protocol, Algorithm 2) and the baseline
:class:`UniformAllocation`. ``solve(problem, algorithm, seed=s).x`` is the index of the state
named purest; ``sol.stats.copies`` the copies spent (never more than N).

The simulation (numpy, complex128): validated density matrices, purity, random states with a
prescribed purity or rank, partial traces, exact outcome probabilities in Haar or local bases
with multinomial counts drawn in bulk, the collision and cross-correlation purity estimators and
the SWAP test simulated gate by gate.

>>> from algorithms import solve
>>> from algorithms.quantum import CoherentSR, PurestStateProblem, random_state
>>> states = [random_state(2, purity=p, seed=i) for i, p in enumerate((0.4, 0.7, 0.95, 0.5))]
>>> solve(PurestStateProblem(states, copies=2000), CoherentSR(), seed=1).x
2
"""

from algorithms.quantum.coherent_sr import CoherentSR
from algorithms.quantum.estimators import (
    collision_statistic,
    cross_correlation_kernel,
    cross_correlation_purity,
    purity_from_collisions,
    sample_swap_tests,
    swap_test_acceptance,
)
from algorithms.quantum.evaluation import identification_errors
from algorithms.quantum.incoherent_sr import IncoherentSR, copies_per_basis_for
from algorithms.quantum.problem import (
    PurestStateProblem,
    QuantumStats,
    hardness_h1,
    hardness_h2,
    log_bar,
    successive_rejects_schedule,
)
from algorithms.quantum.states import (
    as_density_matrix,
    haar_unitaries,
    local_unitaries,
    measurement_probabilities,
    partial_trace,
    purity,
    random_state,
    sample_counts,
    state_tolerance,
)
from algorithms.quantum.uniform import UniformAllocation

__all__ = [
    "CoherentSR",
    "IncoherentSR",
    "PurestStateProblem",
    "QuantumStats",
    "UniformAllocation",
    "as_density_matrix",
    "collision_statistic",
    "copies_per_basis_for",
    "cross_correlation_kernel",
    "cross_correlation_purity",
    "haar_unitaries",
    "hardness_h1",
    "hardness_h2",
    "identification_errors",
    "local_unitaries",
    "log_bar",
    "measurement_probabilities",
    "partial_trace",
    "purity",
    "purity_from_collisions",
    "random_state",
    "sample_counts",
    "sample_swap_tests",
    "state_tolerance",
    "successive_rejects_schedule",
    "swap_test_acceptance",
]
