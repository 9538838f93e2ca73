"""CoherentSR: the paper's coherent protocol (CM-PQSI, Algorithm 2), SWAP tests on copy pairs.

Successive rejects where one measurement unit is a SWAP test on two copies of a state: it
accepts (ancilla 0) with probability (1 + Tr ρ²)/2, so the acceptance frequency x̄(ρ) estimates
the purity by 2x̄ − 1. With T = ⌊N/2⌋ tests available and the schedule
N_k = ⌈(T − K)/(loḡ(K)(K + 1 − k))⌉ tests per surviving state, phase k runs each survivor's
tests N_{k−1} + 1, ..., N_k and drops the state of lowest acceptance frequency.

Theorem 6.1: the error probability is at most K(K − 1)/2 · exp(−Ω(N H₂/loḡ(K))),
H₂ = min_i Δ₍ᵢ₎²/i, with no dependence on the dimension 2ⁿ.

Where we depart from the text: Algorithm 2 writes N_k = ⌈(N − K)/(2 loḡ(K)(K + 1 − k))⌉ tests,
whose ceilings can spend up to K copies more than N (N = 100, K = 4 spends 102); we apply
the successive-rejects schedule to the ⌊N/2⌋ available tests, which never exceeds N copies.
Hence ``copies`` must be at least 2K.

Retcodes as in :class:`~algorithms.quantum.incoherent_sr.IncoherentSR`: ``Success`` when all
K − 1 phases ran on data, ``Failure`` when a phase had no test (T = K), ``MaxIters`` when
``maxiters`` phases stopped it. ``sol.value`` is the named state's estimate 2x̄ − 1, unbiased and not
clipped: from few tests it may fall outside [1/d, 1] (2x̄ − 1 = 1 when every test accepted).
Options (``callback``, ``seed``, ``seed=None``: fresh OS entropy, runs differ) as in ``IncoherentSR``;
``tol`` does not apply (refused by name, a ValueError: the budget of copies fixes the run).

References
----------
Y. Yu, H. Chen, J. Wu, W. Xie, X.-Y. Li. Purest Quantum State Identification. NeurIPS 2025,
arXiv:2502.14334 (Figure 1, Algorithm 2, Theorem 6.1).

>>> from algorithms import solve
>>> from algorithms.quantum import PurestStateProblem, random_state
>>> states = [random_state(3, purity=p, seed=i) for i, p in enumerate((0.5, 0.9, 0.6))]
>>> sol = solve(PurestStateProblem(states, copies=600), CoherentSR(), seed=0)
>>> sol.x, sol.retcode, sol.stats.copies <= 600
(1, <RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.quantum.estimators import _swap_acceptance, check_swap_qubits
from algorithms.quantum.problem import (
    PurestStateProblem,
    QuantumStats,
    run_successive_rejects,
    successive_rejects_schedule,
)

__all__ = ["CoherentSR"]


@dataclass(frozen=True)
class CoherentSR(Algorithm):
    """Successive rejects with SWAP tests (see the module docstring); no hyperparameters.

    ``tol`` does not apply to its solve (refused by name: the budget of copies fixes the run). The solve needs
    ``copies`` >= 2K and states of at most 5 qubits: each SWAP test is simulated gate by gate
    on a state of 2·4ⁿ rows (more qubits are refused naming ``problem.states``)."""


def check_swap_budget(problem: PurestStateProblem, name: str) -> int:
    """The number of SWAP tests ⌊N/2⌋, checked to be at least K (and the states' qubits simulable)."""
    check_swap_qubits(problem.n_qubits, name)
    tests = problem.copies // 2
    if tests < problem.K:
        raise ValueError(f"copies must be >= 2K = {2 * problem.K} for {name} (a SWAP test uses two "
                         f"copies), got {problem.copies}")
    return tests


@_dispatch
def _solve(problem: PurestStateProblem, algorithm: CoherentSR, options: SolveOptions) -> Solution:
    rng = np.random.default_rng(options.seed)
    schedule = successive_rejects_schedule(check_swap_budget(problem, "CoherentSR"), problem.K)
    acceptance = np.array([_swap_acceptance(rho, rho) for rho in problem.states])
    accepted = np.zeros(problem.K, dtype=np.int64)
    tests = np.zeros(problem.K, dtype=np.int64)
    stats = QuantumStats()

    def measure(arms: np.ndarray, previous: int, target: int) -> None:
        # one binomial draw per arm, in arm order: the stream of one call per arm
        runs = target - previous
        accepted[arms] += rng.binomial(runs, np.clip(acceptance[arms], 0.0, 1.0))
        tests[arms] += runs

    def tally() -> tuple[int, int]:  # (copies, settings) so far: a SWAP test takes two copies
        runs = int(tests.sum())
        return 2 * runs, runs

    def score(arms):
        arms_array = np.asarray(arms)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(tests[arms_array] > 0, accepted[arms_array] / tests[arms_array], math.nan)
        return out if arms_array.ndim else float(out)

    return run_successive_rejects(problem, schedule, measure, score, options, rng, stats,
                                  lambda frequency: 2.0 * frequency - 1.0, "CoherentSR", tally, True)
