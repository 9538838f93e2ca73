"""Unit tests of the purity estimators and the SWAP test."""

import numpy as np
import pytest

from algorithms.quantum import (
    collision_statistic,
    cross_correlation_kernel,
    cross_correlation_purity,
    haar_unitaries,
    local_unitaries,
    measurement_probabilities,
    purity,
    purity_from_collisions,
    random_state,
    sample_counts,
    sample_swap_tests,
    swap_test_acceptance,
)


def test_collision_statistic_counts_ordered_pairs():
    assert collision_statistic(np.array([3, 1])).tolist() == [6 / 16]
    assert purity_from_collisions((1 + 0.7) / 3 * 0.5, 2, 2) == pytest.approx(0.7)


def test_collision_mean_over_haar_bases_matches_the_formula():
    rho = random_state(2, purity=0.8, seed=1)
    p = measurement_probabilities(rho, haar_unitaries(4, 4000, seed=3))
    # E_U Σ p² = (1 + Tr ρ²)/(d + 1); 4000 bases, sd of Σp² ≤ 0.1, so the mean is within ~0.005
    assert np.mean(np.sum(p**2, axis=1)) == pytest.approx((1 + 0.8) / 5, abs=0.01)


def test_cross_correlation_kernel_is_hamming_based():
    kernel = cross_correlation_kernel(2)
    assert kernel[0, 0] == 4 and kernel[0, 1] == -2 and kernel[0, 3] == 1


def test_cross_correlation_is_exact_on_the_pauli_bases():
    # the X, Y, Z eigenbases form a 2-design per qubit: averaging Σ X P P over the 3ⁿ
    # settings gives Tr ρ² exactly
    h = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    s_dag = np.diag([1, -1j])
    bases = [h, h @ s_dag, np.eye(2)]
    rho = random_state(2, rank=3, seed=8)
    kernel = cross_correlation_kernel(2)
    values = [p @ kernel @ p for p in (measurement_probabilities(rho, np.kron(a, b))
                                       for a in bases for b in bases)]
    assert np.mean(values) == pytest.approx(purity(rho), abs=1e-12)


def test_cross_correlation_u_statistic_has_no_diagonal_bias():
    # a pure computational state measured in Z: every shot agrees; the U-statistic gives
    # X(0,0) = 2ⁿ exactly, whatever m (the plug-in estimate would too; its bias shows on mixed states)
    counts = np.array([[5, 0, 0, 0]])
    assert cross_correlation_purity(counts, 2) == pytest.approx(4.0)
    rho = np.eye(2) / 2
    counts = sample_counts(measurement_probabilities(rho, local_unitaries(1, 20000, seed=1)), 2, seed=2)
    # maximally mixed qubit: purity 1/2; each term has sd ~ 1.5, 20000 terms: sd ~ 0.011
    assert cross_correlation_purity(counts, 1) == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize("n_qubits", [1, 2, 3])
def test_swap_test_circuit_equals_the_overlap_formula(n_qubits):
    rho = random_state(n_qubits, rank=2, seed=n_qubits)
    sigma = random_state(n_qubits, purity=0.5, seed=10 + n_qubits)
    assert swap_test_acceptance(rho, sigma) == pytest.approx(
        (1 + np.trace(rho @ sigma).real) / 2, abs=1e-12)
    assert swap_test_acceptance(rho, rho) == pytest.approx((1 + purity(rho)) / 2, abs=1e-12)


def test_swap_test_agrees_with_qiskit_circuit():
    qiskit = pytest.importorskip("qiskit")
    qi = pytest.importorskip("qiskit.quantum_info")
    rho, sigma = random_state(1, rank=2, seed=1), random_state(1, purity=0.7, seed=2)
    circuit = qiskit.QuantumCircuit(3)
    circuit.h(2)
    circuit.cswap(2, 1, 0)
    circuit.h(2)
    # qiskit's tensor puts the right factor on the low qubits: ancilla is qubit 2
    state = qi.DensityMatrix(np.diag([1.0, 0.0])).tensor(qi.DensityMatrix(rho)).tensor(
        qi.DensityMatrix(sigma))
    p0 = state.evolve(circuit).probabilities([2])[0]
    assert swap_test_acceptance(rho, sigma) == pytest.approx(p0, abs=1e-12)


def test_sampled_swap_tests_are_binomial():
    rho = random_state(2, purity=0.6, seed=3)
    accepted = sample_swap_tests(rho, 100000, seed=0)
    # binomial(10⁵, 0.8): sd 0.0013 of the frequency
    assert accepted / 100000 == pytest.approx(0.8, abs=0.006)
    assert sample_swap_tests(rho, 10, seed=4) == sample_swap_tests(rho, 10, seed=4)
