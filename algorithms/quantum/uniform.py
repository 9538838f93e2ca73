"""UniformAllocation: the non-adaptive baseline, ⌊N/K⌋ copies per state and one estimate each.

Every state gets the same share of the budget and the state of largest estimated purity is
named purest. The ``estimator``:

* ``"collision"``: Haar-random bases shared by all states, m copies per basis, the collision
  statistic of Algorithm 1 (m = ``copies_per_basis``, default d = 2ⁿ);
* ``"local"``: random local unitaries (one Haar unitary per qubit), m shots each, the
  cross-correlation estimator Tr ρ² = 2ⁿ Σ (−2)^(−D(s,s')) P(s)P(s') (m default d);
* ``"swap"``: ⌊N/(2K)⌋ SWAP tests per state, the purity estimate 2 x̄ − 1.

One elimination round: ``maxiters=0`` stops before measuring (``MaxIters``, index 0 and a NaN
value); ``Success`` once every state has at least one measurement setting; ``Failure`` when the
share ⌊N/K⌋ is below m (or below 2 copies for the SWAP test), so the choice was a coin toss.
``sol.value`` is the named state's purity estimate, unbiased and not clipped: from few copies it may fall
outside the physical range [1/d, 1]. One pass, one record (after the measurements): a ``callback``'s True
then changes nothing and the retcode stays the run's own (core's contract for one-pass methods).
``seed`` (default 0) seeds the bases, the counts and a tie's choice; ``seed=None`` draws fresh entropy
from the OS (numpy's ``default_rng(None)``): runs then differ. ``tol`` does not apply (refused by name, a
ValueError: the budget of copies fixes the run).

References
----------
Y. Yu, H. Chen, J. Wu, W. Xie, X.-Y. Li. Purest Quantum State Identification. NeurIPS 2025,
arXiv:2502.14334 (the uniform baseline of best-arm identification). A. Elben, B. Vermersch,
C. F. Roos, P. Zoller, Phys. Rev. A 99, 052323 (2019) (randomized local measurements).

>>> from algorithms import solve
>>> from algorithms.quantum import PurestStateProblem, random_state
>>> states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.55, 0.95))]
>>> sol = solve(PurestStateProblem(states, copies=2000), UniformAllocation(estimator="swap"))
>>> sol.x, sol.retcode
(1, <RetCode.Success: 'Success'>)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from algorithms._validation import remember_validated
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, _dispatch
from algorithms.quantum.estimators import (
    _swap_acceptance,
    check_swap_qubits,
    collision_statistic,
    cross_correlation_purity,
    purity_from_collisions,
)
from algorithms.quantum.problem import (
    PurestStateProblem,
    QuantumStats,
    check_copies_per_basis,
    check_no_tol,
    check_simulated_bases,
)
from algorithms.quantum.states import haar_unitaries, local_unitaries, outcome_probabilities

__all__ = ["ESTIMATORS", "UniformAllocation"]

ESTIMATORS = ("collision", "local", "swap")


@dataclass(frozen=True)
class UniformAllocation(Algorithm):
    """⌊N/K⌋ copies per state, one purity estimate each, the largest wins (module docstring).

    ``estimator`` is one of ``"collision"`` (Haar bases), ``"local"`` (random local bases) or
    ``"swap"`` (SWAP tests); ``copies_per_basis`` (an int in [2, 2**31 − 1], or None: the estimator's default)
    applies to the first two only.

    The solve simulates its measurements: ``"collision"``/``"local"`` draw ⌊⌊N/K⌋/m⌋ bases of d × d entries,
    and that count times d² must be <= 2**24 (``MAX_SIMULATED_ENTRIES``), else it refuses naming ``copies``;
    ``"swap"`` simulates the SWAP circuit gate by gate, on states of at most 5 qubits (more refused naming
    ``problem.states``).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule). ``tol`` does
    not apply to its solve (refused by name: the budget of copies fixes the run).
    """

    estimator: str = "collision"
    copies_per_basis: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.estimator, str) or self.estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {list(ESTIMATORS)}, got {self.estimator!r}")
        object.__setattr__(self, "estimator", str(self.estimator))  # a numpy str_ stored as a str
        # stored as a Python int: np.int64(3) was kept as a numpy scalar
        object.__setattr__(self, "copies_per_basis", check_copies_per_basis(self.copies_per_basis))
        if self.estimator == "swap" and self.copies_per_basis is not None:
            raise ValueError("copies_per_basis applies to the 'collision' and 'local' estimators, "
                             "not to estimator='swap'")
        remember_validated(self)


def _estimates(problem: PurestStateProblem, algorithm: UniformAllocation, share: int,
               rng: np.random.Generator, stats: QuantumStats) -> np.ndarray:
    dim, n_qubits = problem.dim, problem.n_qubits
    if algorithm.estimator == "swap":
        tests = share // 2
        if tests == 0:
            return np.full(problem.K, math.nan)
        acceptance = np.array([_swap_acceptance(rho, rho) for rho in problem.states])
        accepted = rng.binomial(tests, np.clip(acceptance, 0.0, 1.0))
        stats.copies += 2 * tests * problem.K
        stats.settings += tests * problem.K
        return 2.0 * accepted / tests - 1.0
    m = algorithm.copies_per_basis or dim
    settings = share // m
    if settings == 0:
        return np.full(problem.K, math.nan)
    check_simulated_bases(problem, settings, "UniformAllocation")
    unitaries = (haar_unitaries(dim, settings, rng) if algorithm.estimator == "collision"
                 else local_unitaries(n_qubits, settings, rng))
    estimates = np.empty(problem.K)
    for arm, rho in enumerate(problem.states):
        counts = rng.multinomial(m, outcome_probabilities(rho, unitaries))
        if algorithm.estimator == "collision":
            estimates[arm] = purity_from_collisions(np.mean(collision_statistic(counts)), m, dim)
        else:
            estimates[arm] = cross_correlation_purity(counts, n_qubits)
    stats.copies += m * settings * problem.K
    stats.settings += settings * problem.K
    return estimates


@_dispatch
def _solve(problem: PurestStateProblem, algorithm: UniformAllocation, options: SolveOptions) -> Solution:
    check_no_tol(options, "UniformAllocation")
    if algorithm.estimator == "swap":
        check_swap_qubits(problem.n_qubits, 'UniformAllocation(estimator="swap")')
    rng = np.random.default_rng(options.seed)
    stats = QuantumStats()
    monitor = IterationMonitor(options, total=1, desc="UniformAllocation")
    if options.iterations(1) == 0:
        monitor.record(phase=0, copies=0, estimates=[])
        monitor.close()
        return Solution(x=0, value=math.nan, retcode=RetCode.MaxIters, stats=stats, trace=monitor.trace)
    estimates = _estimates(problem, algorithm, problem.copies // problem.K, rng, stats)
    stats.iterations = 1
    stats.f_calls = stats.copies
    # one pass: a callback's True for the record after the work changes nothing (core's contract)
    monitor.record(phase=1, copies=stats.copies, estimates=estimates.tolist())
    monitor.close()
    if np.all(np.isnan(estimates)):
        best, retcode = int(rng.integers(problem.K)), RetCode.Failure
    else:
        top = np.flatnonzero(estimates == np.max(estimates))
        best, retcode = int(top[rng.integers(top.size)]), RetCode.Success
    return Solution(x=best, value=float(estimates[best]), retcode=retcode, stats=stats,
                    trace=monitor.trace)
