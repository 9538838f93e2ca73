"""Round 16: quantum end to end (a problem's own states pass the package's checks)."""

from fractions import Fraction

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.quantum import (
    CoherentSR,
    IncoherentSR,
    PurestStateProblem,
    UniformAllocation,
    as_density_matrix,
    measurement_probabilities,
    purity,
    random_state,
    sample_counts,
    swap_test_acceptance,
)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_problem_states_pass_the_state_checks(dtype):
    """complex64 states were stored upcast to complex128 and then judged at float64's tolerance 1e-8:
    purity(problem.states[0]) refused the problem's own state (|Tr ρ − 1| = 1.49e-8)."""
    given = [random_state(2, purity=p, seed=i).astype(dtype) for i, p in enumerate((0.4, 0.9, 0.6))]
    problem = PurestStateProblem(given, copies=3000)
    tol = 1e-6 if dtype is np.complex64 else 1e-12
    np.testing.assert_allclose([purity(rho) for rho in problem.states], [0.4, 0.9, 0.6], atol=tol)
    assert swap_test_acceptance(problem.states[0], problem.states[1]) > 0.5
    for algorithm in (IncoherentSR(), CoherentSR(), UniformAllocation()):
        sol = solve(problem, algorithm, seed=0)
        assert sol.retcode is RetCode.Success and sol.x == 1


def test_sample_counts_refuses_rows_off_one_beyond_round_off():
    """allclose's default rtol 1e-5 let a row summing to 1 − 9e-6 pass; numpy gave the remainder to the last
    outcome in silence. float32 rows (round-off ~1e-7) still pass."""
    from algorithms.quantum import sample_counts

    with pytest.raises(ValueError, match="probabilities must be finite, >= 0 and sum to 1"):
        sample_counts(np.array([0.3 - 9e-6, 0.7]), 10)
    assert sample_counts(np.array([0.3, 0.7], dtype=np.float32), 10).sum() == 10


_HALF = Fraction(1, 2)


@pytest.mark.parametrize("call, expected", [
    (lambda: purity([[_HALF, Fraction(1, 4)], [Fraction(1, 4), _HALF]]), 0.625),
    (lambda: as_density_matrix([[_HALF, 0], [0, _HALF]]).tolist(), [[0.5, 0.0], [0.0, 0.5]]),
    (lambda: swap_test_acceptance([[Fraction(1), 0], [0, 0]], np.eye(2) / 2), 0.75),
    (lambda: measurement_probabilities(np.diag([0.75, 0.25]), [[Fraction(0), 1], [1, 0]]).tolist(),
     [0.25, 0.75]),
    (lambda: sample_counts([Fraction(1), Fraction(0)], 7).tolist(), [7, 0]),
    (lambda: PurestStateProblem([[[_HALF, 0], [0, _HALF]], [[1, 0], [0, 0]]], copies=10).purities.tolist(),
     [0.5, 1.0]),
])
def test_fractions_are_numbers(call, expected):
    """A matrix or distribution of Fractions (numpy keeps them as objects) was refused as "dtype object"."""
    assert call() == expected
