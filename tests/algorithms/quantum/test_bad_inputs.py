"""Bad inputs to every public callable of ``algorithms.quantum``: each is named in our own error message.

The module loops over the ``__all__`` callables of the family's modules
(:func:`tests.bad_inputs.assert_every_callable_covered`), so a new public callable without a
case (or a recorded exemption) fails here.
"""

import numpy as np
import pytest

import algorithms.quantum as quantum_family
from algorithms import solve
from algorithms.quantum import (
    CoherentSR,
    IncoherentSR,
    PurestStateProblem,
    UniformAllocation,
    as_density_matrix,
    coherent_sr,
    collision_statistic,
    copies_per_basis_for,
    cross_correlation_kernel,
    cross_correlation_purity,
    estimators,
    evaluation,
    haar_unitaries,
    hardness_h1,
    hardness_h2,
    identification_errors,
    incoherent_sr,
    local_unitaries,
    log_bar,
    measurement_probabilities,
    partial_trace,
    problem,
    purity,
    purity_from_collisions,
    random_state,
    sample_counts,
    sample_swap_tests,
    state_tolerance,
    states,
    successive_rejects_schedule,
    swap_test_acceptance,
    uniform,
)
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

MODULES = (quantum_family, states, estimators, problem, incoherent_sr, coherent_sr, uniform, evaluation)
MIXED = np.eye(2) / 2
PURE = np.diag([1.0, 0.0])
NON_HERMITIAN = np.array([[0.5, 0.3], [0.0, 0.5]])
NON_PSD = np.diag([1.25, -0.25])
BAD_TRACE = np.diag([0.7, 0.6])
GOOD = PurestStateProblem([MIXED, PURE], copies=20)

SHEARS = np.stack([np.eye(2), [[1.0, 1.0], [0.0, 1.0]]])   # the second is no basis

CASES = [
    # density matrices: which condition failed and by how much
    BadInput(as_density_matrix, lambda: as_density_matrix(NON_HERMITIAN), ValueError,
             ("rho", "Hermitian", "0.3"), "non-hermitian"),
    BadInput(as_density_matrix, lambda: as_density_matrix(NON_PSD), ValueError,
             ("rho", "positive semidefinite", "-0.25"), "non-psd"),
    BadInput(as_density_matrix, lambda: as_density_matrix(BAD_TRACE), ValueError,
             ("rho", "trace 1", "0.3"), "trace"),
    BadInput(as_density_matrix, lambda: as_density_matrix(np.eye(3) / 3), ValueError,
             ("rho", "2ⁿ × 2ⁿ"), "not-qubits"),
    BadInput(as_density_matrix, lambda: as_density_matrix(np.ones((2, 3))), ValueError,
             ("rho", "square"), "not-square"),
    BadInput(as_density_matrix, lambda: as_density_matrix([["a", "b"], ["c", "d"]]), TypeError,
             ("rho", "numeric"), "strings"),
    BadInput(as_density_matrix, lambda: as_density_matrix(np.array([[np.nan, 0], [0, 1.0]])), ValueError,
             ("rho", "NaN"), "nan"),
    BadInput(as_density_matrix, lambda: as_density_matrix(MIXED, atol=-1.0), ValueError,
             ("atol", "positive"), "atol"),
    BadInput(as_density_matrix, lambda: as_density_matrix(None), TypeError, ("rho", "required"), "none"),
    BadInput(state_tolerance, lambda: state_tolerance("banana"), TypeError, ("dtype", "numpy data type"),
             "dtype"),
    BadInput(purity, lambda: purity(NON_PSD), ValueError, ("rho", "positive semidefinite"), "non-psd"),
    BadInput(random_state, lambda: random_state(0), ValueError, ("n_qubits", "[1, 10]"), "zero-qubits"),
    BadInput(random_state, lambda: random_state(1.5), TypeError, ("n_qubits", "int"), "float-qubits"),
    BadInput(random_state, lambda: random_state(1, purity=0.3), ValueError, ("purity", "[1/2ⁿ, 1]"),
             "purity-range"),
    BadInput(random_state, lambda: random_state(1, purity="high"), TypeError, ("purity", "real"),
             "purity-type"),
    BadInput(random_state, lambda: random_state(1, rank=3), ValueError, ("rank", "[1, 2ⁿ = 2]"), "rank"),
    BadInput(random_state, lambda: random_state(1, purity=0.8, rank=1), ValueError,
             ("purity or rank", "not both"), "both"),
    BadInput(random_state, lambda: random_state(1, seed=-1), ValueError, ("seed", ">= 0"), "seed"),
    BadInput(random_state, lambda: random_state(1, seed=1.0), TypeError, ("seed", "int"), "seed-type"),
    BadInput(partial_trace, lambda: partial_trace(np.eye(4) / 4, keep=(2,)), ValueError,
             ("keep", "[0, 1]"), "keep-range"),
    BadInput(partial_trace, lambda: partial_trace(np.eye(4) / 4, keep=3), TypeError, ("keep", "sequence"),
             "keep-type"),
    BadInput(partial_trace, lambda: partial_trace(BAD_TRACE, keep=(0,)), ValueError, ("rho", "trace 1"),
             "rho"),
    BadInput(haar_unitaries, lambda: haar_unitaries(0, 3), ValueError, ("dim", ">= 1"), "dim"),
    BadInput(haar_unitaries, lambda: haar_unitaries(2, -1), ValueError, ("size", ">= 0"), "size"),
    BadInput(local_unitaries, lambda: local_unitaries(0, 3), ValueError, ("n_qubits", "[1, 10]"), "qubits"),
    BadInput(measurement_probabilities, lambda: measurement_probabilities(np.eye(2) / 2, 2 * np.eye(2)),
             ValueError, ("unitaries", "unitary"), "non-unitary"),
    BadInput(measurement_probabilities,
             lambda: measurement_probabilities(np.eye(2) / 2, SHEARS),
             ValueError, ("unitaries", "basis 1"), "non-unitary-stack"),
    BadInput(measurement_probabilities, lambda: measurement_probabilities(MIXED, np.eye(4)), ValueError,
             ("unitaries", "shape"), "shape"),
    BadInput(measurement_probabilities, lambda: measurement_probabilities(NON_HERMITIAN, np.eye(2)),
             ValueError, ("rho", "Hermitian"), "rho"),
    BadInput(sample_counts, lambda: sample_counts(np.array([0.7, 0.7]), 3), ValueError,
             ("probabilities", "sum to 1"), "sum"),
    BadInput(sample_counts, lambda: sample_counts(np.array([0.5, 0.5]), -2), ValueError, ("shots", ">= 0"),
             "shots"),
    # estimators
    BadInput(collision_statistic, lambda: collision_statistic(np.array([[1, 0]])), ValueError,
             ("counts", "m >= 2"), "one-shot"),
    BadInput(collision_statistic, lambda: collision_statistic(np.array([0.5, 0.5])), ValueError,
             ("counts", "integer"), "float-counts"),
    BadInput(purity_from_collisions, lambda: purity_from_collisions(0.3, 1, 2), ValueError,
             ("copies_per_basis", ">= 2"), "m"),
    BadInput(purity_from_collisions, lambda: purity_from_collisions(float("nan"), 2, 2), ValueError,
             ("mean_statistic", "finite"), "nan"),
    BadInput(cross_correlation_kernel, lambda: cross_correlation_kernel(0), ValueError, ("n_qubits", ">= 1"),
             "qubits"),
    BadInput(cross_correlation_purity, lambda: cross_correlation_purity(np.array([[2, 1]]), 2), ValueError,
             ("counts", "2ⁿ = 4 columns"), "columns"),
    BadInput(cross_correlation_purity, lambda: cross_correlation_purity(np.array([[2, 1]]), 1, per_setting=1),
             TypeError, ("per_setting", "bool"), "flag"),
    BadInput(swap_test_acceptance, lambda: swap_test_acceptance(MIXED, np.eye(4) / 4), ValueError,
             ("rho and sigma", "same number of qubits"), "dims"),
    BadInput(swap_test_acceptance, lambda: swap_test_acceptance(MIXED, NON_PSD), ValueError,
             ("sigma", "positive semidefinite"), "sigma"),
    BadInput(swap_test_acceptance, lambda: swap_test_acceptance(np.eye(64) / 64, np.eye(64) / 64), ValueError,
             ("rho", "at most 5"), "too-big"),
    BadInput(sample_swap_tests, lambda: sample_swap_tests(MIXED, -1), ValueError, ("tests", ">= 0"), "tests"),
    # problem and hardness
    BadInput(PurestStateProblem, lambda: PurestStateProblem([MIXED, NON_HERMITIAN], copies=10), ValueError,
             ("states[1]", "Hermitian", "0.3"), "non-hermitian"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem([NON_PSD, MIXED], copies=10), ValueError,
             ("states[0]", "positive semidefinite"), "non-psd"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem([MIXED, BAD_TRACE], copies=10), ValueError,
             ("states[1]", "trace 1", "0.3"), "trace"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem([MIXED, np.eye(4) / 4], copies=10), ValueError,
             ("states", "same dimension"), "dimensions"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem([MIXED], copies=10), ValueError,
             ("states", "K >= 2"), "one-state"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem([MIXED, PURE, MIXED], copies=2), ValueError,
             ("copies", ">= K = 3"), "copies-below-K"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem([MIXED, PURE], copies=10.0), TypeError,
             ("copies", "int"), "copies-float"),
    BadInput(PurestStateProblem, lambda: PurestStateProblem(None, copies=10), TypeError,
             ("states", "sequence"), "none"),
    BadInput(hardness_h1, lambda: hardness_h1([0.5]), ValueError, ("purities", "K >= 2"), "short"),
    BadInput(hardness_h2, lambda: hardness_h2([0.5, 1.5]), ValueError, ("purities", "(0, 1]"), "range"),
    BadInput(log_bar, lambda: log_bar(1), ValueError, ("K", ">= 2"), "K"),
    BadInput(successive_rejects_schedule, lambda: successive_rejects_schedule(3, 4), ValueError,
             ("budget", ">= 4"), "budget"),
    # algorithms
    BadInput(IncoherentSR, lambda: IncoherentSR(copies_per_basis=1), ValueError,
             ("copies_per_basis", ">= 2"), "m"),
    BadInput(IncoherentSR, lambda: IncoherentSR(gap=1.5), ValueError, ("gap", "[2.17e-19, 1]"), "gap"),
    BadInput(IncoherentSR, lambda: IncoherentSR(gap="big"), TypeError, ("gap", "float"), "gap-type"),
    BadInput(copies_per_basis_for, lambda: copies_per_basis_for(1), ValueError, ("dim", ">= 2"), "dim"),
    BadInput(CoherentSR, lambda: solve(PurestStateProblem([MIXED, PURE], copies=3), CoherentSR()), ValueError,
             ("copies", ">= 2K = 4"), "budget"),
    BadInput(UniformAllocation, lambda: UniformAllocation(estimator="tomography"), ValueError,
             ("estimator", "collision", "swap"), "estimator"),
    BadInput(UniformAllocation, lambda: UniformAllocation(estimator="swap", copies_per_basis=4), ValueError,
             ("copies_per_basis", "swap"), "swap-m"),
    BadInput(identification_errors, lambda: identification_errors(GOOD, CoherentSR(), 0), ValueError,
             ("repetitions", "positive"), "repetitions"),
    BadInput(identification_errors, lambda: identification_errors("problem", CoherentSR(), 3), TypeError,
             ("problem", "PurestStateProblem"), "problem"),
]

EXEMPT = {
    "QuantumStats": "a counters dataclass the algorithms fill (Stats plus copies and settings), not an "
                    "entry point taking user input",
}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case):
    check_bad_input(case)


def test_every_public_callable_is_covered():
    assert_every_callable_covered(MODULES, CASES, exempt=EXEMPT)


# round 2 of the held-out audit (issue #43): qubit indices are ints named once; the mean collision
# statistic is a real number >= 0 (a string was parsed, -1 gave purity -7); probabilities numeric
_BELL = np.zeros((4, 4))
_BELL[0, 0] = _BELL[0, 3] = _BELL[3, 0] = _BELL[3, 3] = 0.5
ROUND2 = [
    BadInput(states.partial_trace, lambda: states.partial_trace(_BELL, (0, 0)), ValueError, ("keep", "once"),
             "duplicate"),
    BadInput(states.partial_trace, lambda: states.partial_trace(_BELL, (0.0,)), TypeError, ("keep", "int"),
             "float"),
    BadInput(states.partial_trace, lambda: states.partial_trace(_BELL, "1"), TypeError, ("keep", "int"),
             "str"),
    BadInput(estimators.purity_from_collisions, lambda: estimators.purity_from_collisions(-1.0, 2, 2),
             ValueError,
             ("mean_statistic", ">= 0"), "negative"),
    BadInput(estimators.purity_from_collisions, lambda: estimators.purity_from_collisions("0.3", 2, 2),
             TypeError,
             ("mean_statistic", "real number"), "str"),
    BadInput(states.sample_counts, lambda: states.sample_counts("p", 5), TypeError, ("probabilities",),
             "str"),
]


@pytest.mark.parametrize("case", ROUND2, ids=lambda c: c.id)
def test_round2_bad_input(case):
    check_bad_input(case)


# Round 3 of the held-out audit (#43): the hang H1 and the silent S1 case of this family.
ROUND3 = [
    BadInput(estimators.cross_correlation_kernel, lambda: estimators.cross_correlation_kernel(40), ValueError,
             ("n_qubits", "GiB", "<= 13"), "too large"),
    BadInput(states.state_tolerance, lambda: states.state_tolerance(int), TypeError,
             ("dtype", "floating"), "int"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_round7_out_of_domain_values():
    # #43 round 7 (pre-audit sweep): a mean collision statistic above (m − 1)/m gave a "purity" of 29,
    # is_correct took a NaN/negative/str atol, bool unitaries were blamed on their shape
    from algorithms.quantum import measurement_probabilities, purity_from_collisions, random_state

    with pytest.raises(ValueError, match=r"^mean_statistic must be a finite mean collision statistic, >= 0"):
        purity_from_collisions(5.0, 2, 2)
    assert purity_from_collisions(0.5, 2, 2) == 2.0  # the bound itself: all shots on one outcome
    problem = PurestStateProblem([random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))],
                                 copies=50)
    for atol, kind in ((float("nan"), ValueError), (-1.0, ValueError), ("1", TypeError)):
        with pytest.raises(kind, match=r"^atol must be"):
            problem.is_correct(0, atol=atol)
    with pytest.raises(TypeError, match=r"^unitaries must be a numeric .* got dtype bool"):
        measurement_probabilities(np.eye(2) / 2, np.eye(2, dtype=bool))


def test_round7_sizes_and_algorithm():
    # #43 round 7: log_bar(2**40) summed 2**40 terms (a hang), identification_errors passed an algorithm
    # of another family on to dispatch's error (naming no argument)
    import math

    from algorithms.qp import DQP
    from algorithms.quantum import identification_errors, log_bar, successive_rejects_schedule

    K = 2**40
    harmonic = math.log(K) + 0.5772156649015329 + 1 / (2 * K)
    assert abs(log_bar(K) - (harmonic - 0.5)) < 1e-12
    # summed below the switch, correctly rounded since round 14 (math.fsum; a forward sum was 5e-14 off)
    assert log_bar(10**6) == 0.5 + math.fsum(1.0 / i for i in range(2, 10**6 + 1))
    assert abs(log_bar(10**6 + 1) - log_bar(10**6) - 1 / (10**6 + 1)) < 1e-12  # the switch is seamless
    with pytest.raises(ValueError, match=r"successive_rejects_schedule: K=2147483647 is too large"):
        successive_rejects_schedule(2**31 - 1, 2**31 - 1)
    with pytest.raises(TypeError, match=r"^algorithm must be one that solves a PurestStateProblem"):
        identification_errors(GOOD, DQP(), 2)


def test_round7_masked_arrays_refused():
    # np.asarray drops a MaskedArray's mask: the masked entries counted as data in silence
    from algorithms.quantum import as_density_matrix, collision_statistic, hardness_h1, sample_counts

    masked = np.ma.masked_array
    for call, name in ((lambda: as_density_matrix(masked(np.eye(2) / 2, mask=[[1, 0], [0, 0]])), "rho"),
                       (lambda: sample_counts(masked([0.5, 0.5], mask=[1, 0]), 3), "probabilities"),
                       (lambda: collision_statistic(masked([[2, 0]], mask=[[1, 0]])), "counts"),
                       (lambda: hardness_h1(masked([1.0, 0.5], mask=[1, 0])), "purities")):
        with pytest.raises(ValueError, match=rf"^{name} has 1 masked entries"):
            call()


def test_round7_state_tolerance_refuses_none():
    from algorithms.quantum import state_tolerance

    with pytest.raises(TypeError, match=r"^dtype must be a numpy data type, got None"):
        state_tolerance(None)


def test_heldout7_numpy_scalars_accepted():
    from algorithms.quantum import as_density_matrix, cross_correlation_purity

    assert as_density_matrix(np.eye(2) / 2, atol=np.float32(1e-6)).shape == (2, 2)
    assert cross_correlation_purity(np.array([[3, 0]]), 1, per_setting=np.True_).tolist() == [2.0]
    with pytest.raises(TypeError, match=r"^per_setting must be a bool"):
        cross_correlation_purity(np.array([[3, 0]]), 1, per_setting="yes")


def test_round8_python_types_bounded_atol_empty_batches_and_stats():
    """#43 round 8: numpy scalars stored as Python values; atol bounded (inf accepted diag(3, -2) as a state);
    an empty batch of counts answers empty; QuantumStats refuses negative counters."""
    from algorithms.quantum import QuantumStats

    alg = IncoherentSR(copies_per_basis=np.int64(3), gap=np.float32(0.5))
    assert type(alg.copies_per_basis) is int and type(alg.gap) is float
    uni = UniformAllocation(estimator=np.str_("local"), copies_per_basis=np.uint8(4))
    assert type(uni.estimator) is str and type(uni.copies_per_basis) is int
    for atol in (float("inf"), 10.0, 0.5):
        with pytest.raises(ValueError, match="atol"):
            as_density_matrix(np.diag([3.0, -2.0]), atol=atol)
    as_density_matrix(MIXED, atol=1e-3)   # a round-off tolerance still passes
    # round 11 (held-out first run): an empty batch of counts answered an empty array, read as silent
    with pytest.raises(ValueError, match=r"\bcounts must hold at least one row"):
        collision_statistic(np.zeros((0, 2), dtype=int))
    with pytest.raises(ValueError, match=r"\bcounts must hold at least one row"):
        cross_correlation_purity(np.zeros((0, 2), dtype=int), 1, per_setting=True)
    with pytest.raises(ValueError, match="counts"):
        cross_correlation_purity(np.zeros((0, 2), dtype=int), 1)
    for field in ("copies", "settings"):
        with pytest.raises(ValueError, match=field):
            QuantumStats(**{field: -1})
        with pytest.raises(TypeError, match=field):
            QuantumStats(**{field: 1.5})
    assert type(QuantumStats(copies=np.int64(3)).copies) is int


def test_round8_sizes_refused_before_building_and_half_precision_states():
    """#43 round 8: 10⁶ local unitaries of 10 qubits (16 TiB) ran on instead of failing; 2**40 repetitions
    looped for ever; a float16 state was checked at float64's 1e-8 (a rounded state refused)."""
    with pytest.raises(ValueError, match=r"\bsize\b"):
        local_unitaries(10, 10**6)
    with pytest.raises(ValueError, match="repetitions"):
        identification_errors(GOOD, IncoherentSR(), 2**40)
    assert state_tolerance(np.float16) == 1e-2
    rho = np.array([[0.3, 0.1], [0.1, 0.7]], dtype=np.float16)   # trace 0.99976 in half precision
    assert abs(purity(rho) - 0.6) < 1e-2


def test_heldout8_phase2_copies_per_basis_is_a_count():
    """#43 round 8, held-out: copies_per_basis = 2**64 was accepted at construction."""
    for make in (UniformAllocation, IncoherentSR):
        with pytest.raises(ValueError, match="copies_per_basis"):
            make(copies_per_basis=2**64)


def test_heldout8_phase2_meta_unitaries_named():
    import torch

    with pytest.raises(ValueError, match=r"\bunitaries\b.*meta"):
        measurement_probabilities(MIXED, torch.zeros(2, 2, device="meta"))
