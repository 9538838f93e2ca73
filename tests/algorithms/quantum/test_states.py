"""Unit tests of algorithms.quantum.states: validation, purity, random states, partial trace, sampling."""

import numpy as np
import pytest

from algorithms.quantum import (
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


@pytest.mark.parametrize("n_qubits", [1, 2, 3])
@pytest.mark.parametrize("target", [None, 0.9, "min"])
def test_random_state_prescribed_purity_is_a_density_matrix(n_qubits, target):
    dim = 2**n_qubits
    wanted = 1.0 / dim if target == "min" else target
    rho = random_state(n_qubits, purity=wanted, seed=4)
    as_density_matrix(rho)
    assert purity(rho) == pytest.approx(1.0 if wanted is None else wanted, abs=1e-12)


def test_random_state_rank_and_seed():
    rho = random_state(3, rank=3, seed=2)
    eigenvalues = np.linalg.eigvalsh(rho)
    assert np.sum(eigenvalues > 1e-10) == 3
    np.testing.assert_array_equal(rho, random_state(3, rank=3, seed=2))
    assert not np.allclose(rho, random_state(3, rank=3, seed=5))


def test_validation_reports_the_violation():
    with pytest.raises(ValueError, match=r"Hermitian: max \|ρ − ρ†\| = 0.2"):
        as_density_matrix(np.array([[0.5, 0.2], [0.0, 0.5]]))
    with pytest.raises(ValueError, match=r"smallest eigenvalue -0\.5"):
        as_density_matrix(np.diag([1.5, -0.5]))
    with pytest.raises(ValueError, match="trace 1"):
        as_density_matrix(np.eye(2))
    with pytest.raises(ValueError, match="2ⁿ × 2ⁿ"):
        as_density_matrix(np.eye(3) / 3)


def test_float32_states_get_a_looser_tolerance():
    rho = (np.eye(2) / 2).astype(np.float32)
    rho[0, 0] += 3e-6  # a float32 rounding-level trace error
    as_density_matrix(rho)
    with pytest.raises(ValueError, match="trace 1"):
        as_density_matrix(rho.astype(np.float64))
    assert state_tolerance(np.complex64) > state_tolerance(np.complex128)


def test_purity_closed_forms():
    assert purity(np.eye(8) / 8) == pytest.approx(1 / 8)
    psi = np.array([1.0, 1.0j]) / np.sqrt(2)
    assert purity(np.outer(psi, psi.conj())) == pytest.approx(1.0)


def test_partial_trace_of_product_and_bell_states():
    a, b = random_state(1, rank=2, seed=1), random_state(2, rank=2, seed=2)
    joint = np.kron(a, b)
    np.testing.assert_allclose(partial_trace(joint, keep=(0,)), a, atol=1e-12)
    np.testing.assert_allclose(partial_trace(joint, keep=(1, 2)), b, atol=1e-12)
    bell = np.zeros((4, 4))
    bell[np.ix_([0, 3], [0, 3])] = 0.5
    np.testing.assert_allclose(partial_trace(bell, keep=(0,)), np.eye(2) / 2, atol=1e-12)


def test_partial_trace_agrees_with_qiskit():
    qi = pytest.importorskip("qiskit.quantum_info")
    rho = random_state(3, rank=4, seed=3)
    # qiskit numbers qubits from the least significant bit: its qubit 0 is our qubit 2
    ours = partial_trace(rho, keep=(0, 2))
    theirs = qi.partial_trace(qi.DensityMatrix(rho), [1]).data
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    assert purity(rho) == pytest.approx(float(np.real(qi.purity(qi.DensityMatrix(rho)))), abs=1e-12)


def test_haar_unitaries_are_unitary_and_haar_first_moment():
    U = haar_unitaries(4, 2000, seed=0)
    eye = np.eye(4)
    assert np.allclose(U[7] @ U[7].conj().T, eye)
    # E|U_ij|² = 1/d for Haar; 2000 draws, sd of the mean ~ 0.19/√2000 per entry
    assert np.allclose(np.mean(np.abs(U) ** 2, axis=0), 0.25, atol=0.03)
    L = local_unitaries(2, 3, seed=1)
    assert np.allclose(L[0] @ L[0].conj().T, eye)


def test_measurement_probabilities_and_bulk_counts():
    rho = random_state(2, rank=2, seed=5)
    U = haar_unitaries(4, 3, seed=2)
    p = measurement_probabilities(rho, U)
    explicit = np.array([[np.real(U[b, i] @ rho @ U[b, i].conj()) for i in range(4)] for b in range(3)])
    np.testing.assert_allclose(p, explicit, atol=1e-12)
    counts = sample_counts(p, 200000, seed=0)
    assert counts.shape == (3, 4) and np.all(counts.sum(axis=1) == 200000)
    # multinomial: sd of a frequency <= 0.5/√(2·10⁵) ≈ 0.0011
    np.testing.assert_allclose(counts / 200000, p, atol=0.006)
