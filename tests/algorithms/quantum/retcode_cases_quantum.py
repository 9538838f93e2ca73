"""Retcode contract cases for algorithms.quantum; ``tests/test_contract.py`` runs them.

A fixed-budget identification has no convergence criterion of its own: ``Success`` means the
algorithm spent its budget as prescribed (every phase on data) and named a state.

* ``MaxIters``: ``maxiters`` (elimination phases) below K − 1 stops successive rejects early.
* ``Failure``: a budget too small for one measurement setting per state in the first phase
  (N₁ < m copies), so the elimination was a coin toss, not an identification.

No ``Diverged`` case: the estimates are averages of bounded statistics and cannot blow up.
"""

from algorithms import RetCode
from algorithms.quantum import CoherentSR, IncoherentSR, PurestStateProblem, UniformAllocation, random_state
from tests.retcodes import RetcodeCase


def _problem(n_qubits, copies, K=3):
    return PurestStateProblem([random_state(n_qubits, purity=0.5 + 0.1 * i, seed=i) for i in range(K)],
                              copies=copies)


CASES = [
    RetcodeCase("incoherent-one-phase", lambda: (_problem(2, 300), IncoherentSR(), {"maxiters": 1}),
                RetCode.MaxIters),
    RetcodeCase("coherent-one-phase", lambda: (_problem(2, 300), CoherentSR(), {"maxiters": 1}),
                RetCode.MaxIters),
    RetcodeCase("uniform-zero-rounds", lambda: (_problem(1, 30), UniformAllocation(), {"maxiters": 0}),
                RetCode.MaxIters),
    RetcodeCase("incoherent-budget-below-one-basis", lambda: (_problem(3, 12), IncoherentSR(), {}),
                RetCode.Failure),
    RetcodeCase("coherent-no-test-in-phase-one", lambda: (_problem(1, 6), CoherentSR(), {}),
                RetCode.Failure),
    RetcodeCase("uniform-share-below-one-basis", lambda: (_problem(3, 12), UniformAllocation(), {}),
                RetCode.Failure),
]
