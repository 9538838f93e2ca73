"""Purity estimators from measurement counts, and the SWAP test on two copies.

* **Collision estimator** (the paper's Algorithm 1): m copies measured in one Haar-random
  basis give counts c; g̃ = Σᵢ cᵢ(cᵢ − 1)/m², and averaging over Haar bases
  E[g̃] = (m − 1)(1 + Tr ρ²)/(m(d + 1)), so Tr ρ² = m(d + 1) E[g̃]/(m − 1) − 1
  (:func:`collision_statistic`, :func:`purity_from_collisions`).
* **Randomized local measurements** (Elben et al., Brydges et al.): random single-qubit
  unitaries, m shots each; with X(s, s') = 2ⁿ (−2)^(−D(s, s')), D the Hamming distance,
  Tr ρ² = E_U Σ_{s,s'} X(s, s') P_U(s) P_U(s'). The U-statistic over distinct shot pairs,
  (cᵀXc − 2ⁿ m)/(m(m − 1)), is unbiased for it (:func:`cross_correlation_purity`).
* **SWAP test**: an ancilla in |+⟩ controls a SWAP of ρ ⊗ σ; the ancilla reads 0 with
  probability (1 + Tr ρσ)/2, so two copies of ρ give (1 + Tr ρ²)/2
  (:func:`swap_test_acceptance` simulates the circuit gate by gate;
  :func:`sample_swap_tests` draws accepted counts in bulk).

References
----------
Y. Yu, H. Chen, J. Wu, W. Xie, X.-Y. Li. Purest Quantum State Identification. NeurIPS 2025,
arXiv:2502.14334 (Algorithm 1, Figure 1, Algorithm 2).
A. Elben, B. Vermersch, C. F. Roos, P. Zoller. Statistical correlations between locally
randomized measurements. Phys. Rev. A 99, 052323 (2019).

>>> rho = np.diag([0.75, 0.25])
>>> swap_test_acceptance(rho, rho)  # (1 + 0.625) / 2
0.8125
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any

import numpy as np

from algorithms._validation import INT64_MAX, check_bool, to_float
from algorithms.quantum.states import _count, _n_qubits_of, _rng, as_array, as_density_matrix

__all__ = [
    "collision_statistic",
    "cross_correlation_kernel",
    "cross_correlation_purity",
    "purity_from_collisions",
    "sample_swap_tests",
    "swap_test_acceptance",
]


#: counts up to this size sum exactly in int64 over any row numpy can hold (2**62 / 2**31 entries)
_EXACT_COUNT = 2**31


def _counts_array(counts: Any) -> tuple[np.ndarray, int]:
    # the same checks as np.any / np.atleast_2d / np.issubdtype spelled as array methods: the
    # successive-rejects loops call this thousands of times on small arrays
    if type(counts) is np.ndarray:  # exactly: np.matrix kept its 2-d rows (int(shots[0]) raised)
        array = counts  # the hot path (thousands of small arrays per solve)
    else:  # a masked array, a list, an object whose __array__ raises: named by as_array
        array = as_array("counts", counts)
    if array.ndim not in (1, 2) or array.dtype.kind not in "iu" or (array < 0).any():
        raise ValueError(f"counts must be non-negative integer counts of shape (d,) or (size, d), got "
                         f"dtype {array.dtype} and shape {array.shape}")
    array = array if array.ndim == 2 else array[None, :]
    if array.shape[0] == 0:  # no settings: an empty batch (shots[0] raised an IndexError)
        return array.astype(np.float64), 0
    # the shots per row, exactly (Python ints): an int64 sum (and uint64 counts >= 2**63 cast to int64)
    # wrapped around into negative "shot numbers"
    totals = [int(t) for t in array.sum(axis=1, dtype=object)] if array.max() > _EXACT_COUNT \
        else array.sum(axis=1).tolist()
    if any(t != totals[0] for t in totals) or totals[0] < 2:
        raise ValueError(f"counts must hold the same number m >= 2 of shots per row, got "
                         f"{sorted(set(totals))[:4]}")
    if totals[0] > INT64_MAX:  # counts: ints <= 2**63 − 1 (a uint64 2**63 was read as −2**63)
        raise ValueError(f"counts must hold at most 2**63 - 1 shots per row (a count), got {totals[0]}")
    # in float64: c(c − 1) and cᵀXc of int64 counts wrapped around for counts past ~3e9 (a negative statistic)
    return array.astype(np.float64), totals[0]


def collision_statistic(counts: Any) -> np.ndarray:
    """g̃ = Σᵢ cᵢ(cᵢ − 1)/m² per row of ``counts`` (m shots in one basis each).

    ``counts`` is a (size, d) array of non-negative integer counts, size >= 1 settings with the same m >= 2
    shots each; a 1-D (d,) array is one setting (the result then has one entry). An empty (0, d) batch is
    refused (no setting, no statistic).

    >>> collision_statistic(np.array([[2, 0], [1, 1]])).tolist()
    [0.5, 0.0]
    """
    array, shots = _counts_array(counts)
    if array.shape[0] == 0:  # an empty batch answered an empty array, read as a statistic of nothing
        raise ValueError(f"counts must hold at least one row (setting), got shape {array.shape}")
    return np.sum(array * (array - 1), axis=1) / shots**2


def purity_from_collisions(mean_statistic: Any, copies_per_basis: int, dim: int) -> float:
    """Invert E[g̃] = (m − 1)(1 + Tr ρ²)/(m(d + 1)): the purity a mean collision statistic implies.

    The inversion is an unbiased estimate, so from a finite sample it may fall outside the physical range
    [1/d, 1] (it is not clipped: clipping would bias it); ``mean_statistic`` itself must lie in
    [0, (m − 1)/m], the range of one statistic (up to 1e-12 relative above (m − 1)/m, a mean's rounding, is
    taken as given; beyond, refused). ``copies_per_basis`` (m) is an int in [2, 2**63 − 1] and
    ``dim`` (d) an int in [2, 2**63 − 1].

    >>> purity_from_collisions(0.25, copies_per_basis=2, dim=2)  # 0.25 · 2 · 3 / 1 − 1: maximally mixed
    0.5
    """
    m = _count("copies_per_basis", copies_per_basis, 2)
    dim = _count("dim", dim, 2)
    if isinstance(mean_statistic, numbers.Real) and not isinstance(mean_statistic, bool | np.generic):
        mean_statistic = to_float(mean_statistic)  # a Fraction was an object array, refused
    statistic = None if isinstance(mean_statistic, bool | np.bool_) else as_array("mean_statistic",
                                                                                  mean_statistic)
    if statistic is None or statistic.ndim != 0 or statistic.dtype.kind not in "iuf":
        raise TypeError(f"mean_statistic must be a real number, got {type(mean_statistic).__name__} "
                        f"{mean_statistic!r}")  # float('0.3') would parse a string
    value = to_float(statistic)
    # a mean of collision statistics Σ cᵢ(cᵢ − 1)/m² lies in [0, (m − 1)/m] (all m shots on one outcome):
    # beyond, the "purity" returned exceeded 1 (29 for 5.0) in silence
    # (1e-12 relative: a mean of per-row statistics, each rounded, may pass the bound by an ulp or two)
    if not np.isfinite(value) or not 0.0 <= value <= (m - 1) / m * (1 + 1e-12):
        raise ValueError(f"mean_statistic must be a finite mean collision statistic, >= 0 and <= (m − 1)/m = "
                         f"{(m - 1) / m:g} for copies_per_basis m = {m}, got {mean_statistic!r}")
    # exactly, then rounded once: the float form cancelled in its "− 1" (a purity near 1/d for a large d), and
    # rounding to 15 decimals zeroed any purity below 5e-16
    return float(Fraction(value) * m * (dim + 1) / (m - 1) - 1)


# 4**13 float64 entries = 0.5 GiB: the largest dense kernel we build (the counts it multiplies have 2ⁿ
# columns per row, so larger n is out of reach of this estimator anyway).
_KERNEL_MAX_QUBITS = 13


def cross_correlation_kernel(n_qubits: int) -> np.ndarray:
    """X(s, s') = 2ⁿ (−2)^(−D(s, s')), D the Hamming distance of the n-bit outcomes s, s'.

    ``n_qubits`` is an int in [1, 13] (the dense kernel has 4ⁿ entries).

    >>> cross_correlation_kernel(1).tolist()
    [[2.0, -1.0], [-1.0, 2.0]]
    """
    n_qubits = _count("n_qubits", n_qubits, 1)
    if n_qubits > _KERNEL_MAX_QUBITS:  # the dense kernel has 4ⁿ float64 entries: refuse before allocating
        # the size as a power of two: 4**n itself is a bigint that takes for ever for n = 2**40
        raise ValueError(f"n_qubits = {n_qubits} is too large for the dense cross-correlation kernel: it has "
                         f"4ⁿ entries (2**{2 * n_qubits + 3} bytes as float64); n_qubits must be "
                         f"<= {_KERNEL_MAX_QUBITS} (at most {8 * 4**_KERNEL_MAX_QUBITS / 2**30:.3g} GiB)")
    single = np.array([[2.0, -1.0], [-1.0, 2.0]])  # 2 (−2)^(−D) for one qubit
    kernel = single
    for _ in range(n_qubits - 1):
        kernel = np.kron(kernel, single)
    return kernel


def cross_correlation_purity(counts: Any, n_qubits: int, per_setting: bool = False) -> Any:
    """The randomized-measurement purity estimate from counts under random local unitaries.

    ``counts`` is an (r, 2ⁿ) array of counts (ints >= 0) with r >= 1 settings (a 1-D (2ⁿ,) array is one),
    ``n_qubits`` an int >= 1 and ``per_setting`` a bool.

    Each row of ``counts`` holds the m outcome counts of one local unitary; the estimate is the
    mean over rows of the distinct-pair U-statistic (cᵀXc − 2ⁿ m)/(m(m − 1)) (with
    ``per_setting=True``: the array of the per-row values).

    >>> cross_correlation_purity(np.array([[3, 0], [0, 3]]), 1)
    2.0
    """
    n_qubits = _count("n_qubits", n_qubits, 1)
    array, shots = _counts_array(counts)
    # compared by bit length first: 2**n for n = 2**40 is a bigint that takes for ever
    if n_qubits >= array.shape[1].bit_length() or array.shape[1] != 2**n_qubits:
        shown = f"2ⁿ = {2**n_qubits}" if n_qubits <= 64 else "2ⁿ"
        raise ValueError(f"counts must have {shown} columns for n_qubits={n_qubits}, got {array.shape[1]}")
    per_setting = check_bool("per_setting", per_setting)  # numpy bools too (np.True_ was refused)
    if array.shape[0] == 0:  # no settings: no per-setting values (an empty array read as a result), no mean
        raise ValueError("counts must hold at least one row (setting) to estimate the purity, got shape "
                         f"{array.shape}")
    kernel = cross_correlation_kernel(n_qubits)
    quadratic = np.einsum("bi,ij,bj->b", array, kernel, array)
    values = (quadratic - 2**n_qubits * shots) / (shots * (shots - 1))
    return values if per_setting else float(np.mean(values))


#: the gate-by-gate circuit holds four 4ⁿ × 4ⁿ blocks: 5 qubits is 4 · 1024², 64 MiB
MAX_SWAP_QUBITS = 5

_HADAMARD = np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2.0)


def swap_test_acceptance(rho: Any, sigma: Any) -> float:
    """P(ancilla reads 0) in the SWAP-test circuit on ρ ⊗ σ, simulated gate by gate.

    ``rho`` and ``sigma`` are density matrices (Hermitian, PSD, trace 1) of one dimension 2ⁿ, n <= 5 qubits
    (the simulated state has 2·4ⁿ rows; more qubits are refused naming ``rho``).

    The circuit: ancilla |0⟩, Hadamard, controlled-SWAP of the two registers, Hadamard,
    measure the ancilla. The density matrix of ancilla ⊗ ρ ⊗ σ is evolved through each gate
    (the controlled-SWAP as an index permutation of the ancilla-1 blocks, evaluated only where the
    partial trace over the registers reads it) and the ancilla's reduced state is read off; no
    closed form for the acceptance is used. The result, (1 + Tr ρσ)/2 in [1/2, 1], is rounded to 15 decimals
    (so that orthogonal states give 1/2 exactly): within 5e-16 of the exact value plus the simulation's own
    rounding, about 1.5e-15 relative at worst.

    >>> swap_test_acceptance(np.diag([1.0, 0.0]), np.diag([0.0, 1.0]))  # orthogonal: 1/2
    0.5
    """
    first = as_density_matrix(rho, "rho")
    second = as_density_matrix(sigma, "sigma")
    if first.shape != second.shape:
        raise ValueError(f"rho and sigma must act on the same number of qubits, got shapes "
                         f"{first.shape} and {second.shape}")
    return _swap_acceptance(first, second)


def check_swap_qubits(n_qubits: int, label: str) -> None:
    """A solve that simulates SWAP tests refuses, naming the problem, states past MAX_SWAP_QUBITS qubits (the
    refusal came from the simulation, naming its own "rho")."""
    if n_qubits > MAX_SWAP_QUBITS:
        raise ValueError(f"problem.states have {n_qubits} qubits; {label} simulates SWAP tests gate by gate "
                         f"on at most {MAX_SWAP_QUBITS} qubits (its state has 2·4ⁿ rows)")


def _swap_acceptance(first: np.ndarray, second: np.ndarray) -> float:
    """:func:`swap_test_acceptance` of density matrices already validated (a problem's states, checked at
    their own precision: re-checking a complex64 state at float64's tolerance refused it, naming "rho")."""
    dim = first.shape[0]
    if _n_qubits_of("rho", dim) > MAX_SWAP_QUBITS:
        raise ValueError(f"rho has {_n_qubits_of('rho', dim)} qubits; the gate-by-gate SWAP-test "
                         f"simulation takes at most {MAX_SWAP_QUBITS} (its state has 2·4ⁿ rows)")
    size = dim * dim
    # the joint density matrix in ancilla blocks: blocks[a][c] = ⟨a|ρ_total|c⟩ (size × size)
    # ancilla prepared in |0⟩, then the Hadamard: H|0⟩⟨0|H = |+⟩⟨+| = ½[[1, 1], [1, 1]], so every
    # ancilla block of the joint density matrix is ½ ρ ⊗ σ (blocks[a][c] = ⟨a|ρ_total|c⟩)
    half = np.kron(first, second) / 2
    blocks = [[half, half], [half, half]]
    # controlled-SWAP: on ancilla 1, |a⟩|b⟩ -> |b⟩|a⟩, a permutation P of the register index:
    # blocks[0][1] -> B P, blocks[1][0] -> P B, blocks[1][1] -> P B P. Tracing out the registers
    # next only needs the traces of these blocks: Tr(B P) = Σ_i B[i, P(i)], Tr(P B) = Σ_i B[P(i), i],
    # Tr(P B P) = Tr(B); so the permuted blocks are never formed
    swap = np.arange(size).reshape(dim, dim).T.reshape(-1)
    rows = np.arange(size)
    reduced = np.array([[np.trace(blocks[0][0]), blocks[0][1][rows, swap].sum()],
                        [blocks[1][0][swap, rows].sum(), np.trace(blocks[1][1])]])
    # the final Hadamard acts on the ancilla alone, so it commutes with the partial trace
    ancilla_state = _HADAMARD @ reduced @ _HADAMARD
    return round(float(ancilla_state[0, 0].real), 15)


def sample_swap_tests(rho: Any, tests: int, seed: int | np.random.Generator = 0,
                      sigma: Any = None) -> int:
    """Accepted outcomes (ancilla 0) among ``tests`` SWAP tests on ρ ⊗ σ (σ = ρ by default).

    ``rho`` (and ``sigma``, None: ρ) are density matrices of one dimension 2ⁿ, n <= 5 qubits (as
    :func:`swap_test_acceptance`, which computes the acceptance); ``tests`` an int >= 0;
    ``seed`` an int in [0, 2**64) or a ``numpy.random.Generator``.

    Each test consumes one copy of each register; the count is binomial(tests, acceptance).

    >>> sample_swap_tests(np.diag([1.0, 0.0]), 50, seed=0)  # a pure state always passes
    50
    """
    tests = _count("tests", tests, 0)
    acceptance = swap_test_acceptance(rho, rho if sigma is None else sigma)
    return int(_rng(seed).binomial(tests, min(max(acceptance, 0.0), 1.0)))
