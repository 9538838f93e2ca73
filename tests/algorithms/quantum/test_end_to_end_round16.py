"""Round 16: quantum end to end (a problem's own states pass the package's checks)."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.quantum import (
    CoherentSR,
    IncoherentSR,
    PurestStateProblem,
    UniformAllocation,
    purity,
    random_state,
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
