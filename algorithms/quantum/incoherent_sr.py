"""IncoherentSR: the paper's adaptive incoherent algorithm (IM-PQSI, Algorithm 1).

Successive rejects over the K states with single-copy measurements in shared Haar-random
bases. Haar unitaries U₁, U₂, ... are drawn once and shared by all states; basis j is measured
on m copies of a state, giving counts c and the collision statistic g̃ = Σᵢ cᵢ(cᵢ − 1)/m².
With the schedule N_k = ⌈(N − K)/(loḡ(K)(K + 1 − k))⌉ copies per surviving state, phase k
measures each survivor in bases ⌊N_{k−1}/m⌋ + 1, ..., ⌊N_k/m⌋, sets w(ρ, k) to the mean of g̃
over all its bases so far, and drops the state of smallest w. Since
E[w] = (m − 1)(1 + Tr ρ²)/(m(d + 1)) (d = 2ⁿ), the purest state has the largest w.

The number of copies per basis m:

* ``copies_per_basis`` given: that m (>= 2);
* else ``gap`` = c given (a known lower bound on every purity gap, c > 1/d²): m = ⌈1/√c⌉
  (Theorem 4.1), raised to 2 when 1/√c <= 1 (the collision statistic needs two copies);
* else m = d, the setting of Lemma 4.2, which needs no knowledge of the gaps.

Theorem 4.1: with Δ₍ᵢ₎ >= c > 1/d² and m = ⌈1/√c⌉ the error probability is at most
K(K − 1)/2 · exp(−Ω(√c N H₁/(loḡ(K) d))), H₁ = min_i Δ₍ᵢ₎/i.

``Success``: all K − 1 phases ran and every elimination rested on at least one basis per
survivor; ``Failure``: the budget left a phase without a single basis (N_k < m), so that
elimination was a coin toss; ``MaxIters``: ``maxiters`` (phases) stopped it early, with the
best current estimate returned. ``sol.x`` is the index of the state named purest,
``sol.value`` its estimated purity, ``sol.stats.copies`` the copies spent (<= N). The estimate is
unbiased and not clipped, so from few copies it may fall outside the physical range [1/d, 1] (a value
of 1.36 is an estimate, not a purity; clipping would bias it, as :func:`purity_from_collisions` says).

Options: one record per phase (``callback``'s True stops after that phase with ``Terminated``); ``seed``
(default 0) seeds the bases and the counts, so the same seed gives the same answer; ``seed=None``
draws fresh entropy from the OS (numpy's ``default_rng(None)``): runs then differ. ``tol`` does not
apply (refused by name: the budget of copies fixes the run).

References
----------
Y. Yu, H. Chen, J. Wu, W. Xie, X.-Y. Li. Purest Quantum State Identification. NeurIPS 2025,
arXiv:2502.14334 (Algorithm 1, Theorem 4.1, Lemma 4.2).

>>> from algorithms import solve
>>> from algorithms.quantum import PurestStateProblem, random_state
>>> states = [random_state(2, purity=p, seed=i) for i, p in enumerate((0.5, 1.0, 0.4, 0.45))]
>>> sol = solve(PurestStateProblem(states, copies=4000), IncoherentSR(), seed=0)
>>> sol.x, sol.retcode, sol.stats.copies <= 4000
(1, <RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from algorithms._validation import (
    C_INT_MAX,
    _plain_number,
    check_int_at_least,
    remember_validated,
    to_float,
)
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.quantum.estimators import collision_statistic, purity_from_collisions
from algorithms.quantum.problem import (
    PurestStateProblem,
    QuantumStats,
    check_copies_per_basis,
    check_simulated_bases,
    run_successive_rejects,
    successive_rejects_schedule,
)
from algorithms.quantum.states import haar_unitaries, outcome_probabilities

__all__ = ["IncoherentSR", "copies_per_basis_for"]


def copies_per_basis_for(dim: int, copies_per_basis: int | None = None, gap: float | None = None) -> int:
    """The m of :class:`IncoherentSR`: the given m, else max(2, ⌈1/√gap⌉), else ``dim`` (both given: m wins,
    and ``gap`` is still checked).

    ``dim`` (int >= 2) is d, ``copies_per_basis`` an int in [2, 2**31 − 1] or None, ``gap`` a float in
    [1/(2**31 − 1)², 1] or None (so that m = ⌈1/√gap⌉ is a count of copies). The ceiling is exact, except
    that a 1/√gap within 1e-15 (relative) of an integer k counts as k, the round-off of gap's decimal
    (gap = 1/9 gives m = 3, 0.01 gives 10).

    >>> copies_per_basis_for(8), copies_per_basis_for(8, gap=0.1), copies_per_basis_for(8, 3)
    (8, 4, 3)
    """
    dim = check_int_at_least("dim", dim, 2)
    m = check_copies_per_basis(copies_per_basis)
    gap = None if gap is None else _check_gap(gap)  # checked when m wins too: gap="x" was ignored in silence
    if m is not None:
        return m
    if gap is not None:
        return max(2, _ceil_inverse_sqrt(gap))
    if dim > C_INT_MAX:  # m = d copies per basis, a count: 2**62 was returned while m itself is capped
        raise ValueError(f"dim must be <= 2**31 - 1 when neither copies_per_basis nor gap is given (m = d "
                         f"copies per basis, a count of copies), got {dim}")
    return int(_plain_number(dim))


def _ceil_inverse_sqrt(gap: float) -> int:
    """⌈1/√gap⌉: an integer k when 1/√gap is within 1e-15 (relative) of k, the round-off of gap's decimal
    (1/9 gives 3, 0.01 gives 10), else the exact least int m with m²·gap >= 1 (1/√gap rounded to 9 decimals
    first gave 3 for gap = 1/(3 + 1e-10)², whose ⌈1/√gap⌉ is 4)."""
    root = 1.0 / math.sqrt(gap)
    nearest = round(root)
    if abs(root - nearest) <= 1e-15 * root:
        return nearest
    exact = Fraction(gap)
    m = math.ceil(root)
    while m > 1 and (m - 1) ** 2 * exact >= 1:
        m -= 1
    while m * m * exact < 1:
        m += 1
    return m


def _check_gap(gap: object) -> float:
    if isinstance(gap, bool | np.bool_) or not isinstance(gap, numbers.Real):  # a Fraction too
        raise TypeError(f"gap must be a float in [2.17e-19, 1] or None, got {type(gap).__name__} {gap!r}")
    if not 0 < gap <= 1:
        raise ValueError(f"gap must be a float in [2.17e-19, 1] or None, got {gap!r}")
    if gap < _MIN_GAP or _ceil_inverse_sqrt(to_float(gap)) > C_INT_MAX:  # (1e-320 gave m ~ 1e160)
        raise ValueError(f"gap must be >= {_MIN_GAP:.3g} (m = ⌈1/√gap⌉ copies per basis must be <= "
                         f"2**31 − 1, a count of copies), got {gap!r}")
    return to_float(gap)


#: the smallest ``gap`` whose m = ⌈1/√gap⌉ is a count of copies (<= 2**31 − 1)
_MIN_GAP = 1.0 / (2**31 - 1) ** 2


@dataclass(frozen=True)
class IncoherentSR(Algorithm):
    """Successive rejects with the Haar-basis collision estimator (see the module docstring).

    ``copies_per_basis`` (an int in [2, 2**31 − 1], or None) is m, the copies measured in each random basis;
    ``gap`` (a float in [1/(2**31 − 1)², 1] ≈ [2.17e-19, 1], or None; a smaller positive gap is refused naming
    ``gap``: its m = ⌈1/√gap⌉ would pass 2**31 − 1 copies) is a known lower bound on every purity gap,
    giving m = max(2, ⌈1/√gap⌉) when ``copies_per_basis`` is None; both None: m = d. ``tol`` does not apply
    to its solve (refused by name: the budget of copies fixes the run).

    The solve simulates every basis it draws: at most ⌊N/m⌋ bases of d × d entries, and ⌊N/m⌋·d² must be
    <= 2**24 (``MAX_SIMULATED_ENTRIES``, 256 MiB per array), else it refuses naming ``copies`` before
    drawing (N = ``problem.copies``: use fewer copies or a larger m).
    """

    copies_per_basis: int | None = None
    gap: float | None = None

    def __post_init__(self) -> None:
        # stored as Python numbers: np.int64(3) / np.float32(0.5) were kept as numpy scalars
        object.__setattr__(self, "copies_per_basis", check_copies_per_basis(self.copies_per_basis))
        if self.gap is not None:
            object.__setattr__(self, "gap", _check_gap(self.gap))
        remember_validated(self)


@_dispatch
def _solve(problem: PurestStateProblem, algorithm: IncoherentSR, options: SolveOptions) -> Solution:
    rng = np.random.default_rng(options.seed)
    dim = problem.dim
    m = copies_per_basis_for(dim, algorithm.copies_per_basis, algorithm.gap)
    check_simulated_bases(problem, problem.copies // m, "IncoherentSR")  # at most N/m bases are drawn
    schedule = successive_rejects_schedule(problem.copies, problem.K)
    stats = QuantumStats()
    bases = np.empty((0, dim, dim), dtype=np.complex128)
    sums = np.zeros(problem.K)
    counts = np.zeros(problem.K, dtype=np.int64)

    def measure(arm: int, previous: int, target: int) -> None:
        nonlocal bases
        first, last = previous // m, target // m
        if last > bases.shape[0]:  # draw the new shared bases in order: same seed, same bases
            bases = np.concatenate([bases, haar_unitaries(dim, last - bases.shape[0], rng)])
        if last == first:
            return
        probabilities = outcome_probabilities(problem.states[arm], bases[first:last])
        outcomes = rng.multinomial(m, probabilities)
        sums[arm] += float(np.sum(collision_statistic(outcomes)))
        counts[arm] += last - first

    def tally() -> tuple[int, int]:  # (copies, settings) so far: m copies per basis
        settings = int(counts.sum())
        return m * settings, settings

    def score(arm: int) -> float:
        return sums[arm] / counts[arm] if counts[arm] else math.nan

    def to_purity(w: float) -> float:
        return purity_from_collisions(w, m, dim) if math.isfinite(w) else math.nan

    return run_successive_rejects(problem, schedule, measure, score, options, rng, stats, to_purity,
                                  "IncoherentSR", tally)
