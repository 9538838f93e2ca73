"""Round 20 of #43 in the quantum family: derived limits stated in the docstrings (class J).

The solves simulate their measurements and refuse, by name, budgets or states the simulation cannot hold;
the auditor reads only the docstrings, so each refusal must be stated there (heldout19: cryptic)."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.quantum import (
    CoherentSR,
    IncoherentSR,
    PurestStateProblem,
    UniformAllocation,
    sample_swap_tests,
    swap_test_acceptance,
)

_SIX_QUBITS = np.eye(64) / 64
_BIG_BUDGET = PurestStateProblem([np.eye(2) / 2] * 2, 2**31 - 1)


@pytest.mark.parametrize("documented, phrase, call, named", [
    (IncoherentSR, "2**24", lambda: solve(_BIG_BUDGET, IncoherentSR()), "copies"),
    (UniformAllocation, "2**24", lambda: solve(_BIG_BUDGET, UniformAllocation()), "copies"),
    (UniformAllocation, "5 qubits",
     lambda: solve(PurestStateProblem([_SIX_QUBITS] * 2, 200), UniformAllocation(estimator="swap")),
     "problem.states"),
    (CoherentSR, "5 qubits", lambda: solve(PurestStateProblem([_SIX_QUBITS] * 2, 200), CoherentSR()),
     "problem.states"),
    (swap_test_acceptance, "n <= 5", lambda: swap_test_acceptance(_SIX_QUBITS, _SIX_QUBITS), "rho"),
    (sample_swap_tests, "n <= 5", lambda: sample_swap_tests(_SIX_QUBITS, 3), "rho"),
])
def test_a_simulation_limit_is_refused_by_name_and_stated_in_the_docstring(documented, phrase, call, named):
    assert phrase in " ".join(documented.__doc__.split())
    with pytest.raises(ValueError, match=named):
        call()


@pytest.mark.parametrize("algorithm", [CoherentSR(), IncoherentSR(), UniformAllocation(),
                                       UniformAllocation(estimator="swap")])
def test_tol_refused_by_name_as_each_docstring_states(algorithm):
    # red20a: UniformAllocation's and CoherentSR's docstrings did not state the refusal
    assert "``tol`` does not apply" in " ".join(type(algorithm).__doc__.split())
    with pytest.raises(ValueError, match="tol does not apply"):
        solve(PurestStateProblem([np.eye(2) / 2, np.diag([1.0, 0.0])], 40), algorithm, tol=1e-3)
