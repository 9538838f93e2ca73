"""The purest-state identification problem, its hardness quantities and the budget schedule.

K unknown n-qubit states ρ₁, ..., ρ_K and a budget of N copies in all: name the state with
the largest purity Tr ρ². With the purities sorted, P₍₁₎ >= P₍₂₎ >= ... >= P₍K₎, and gaps
Δ₍ᵢ₎ = P₍₁₎ − P₍ᵢ₎, the paper's hardness quantities are

    H₁ = min_{2<=i<=K} Δ₍ᵢ₎ / i,        H₂ = min_{2<=i<=K} Δ₍ᵢ₎² / i

(:func:`hardness_h1`, :func:`hardness_h2`; larger means easier). Its algorithms are
successive rejects in K − 1 phases: with loḡ(K) = 1/2 + Σ_{i=2}^{K} 1/i and a budget B of
measurement units, phase k brings each surviving arm to

    N_k = ⌈(B − K) / (loḡ(K) (K + 1 − k))⌉    units,

after which the arm with the lowest estimate is dropped (:func:`successive_rejects_schedule`).
The units spent, N₁ + ... + N_{K−1} + N_{K−1}, never exceed B (each ceiling adds at most one
unit per phase and the fractions sum to (B − K)).

References
----------
Y. Yu, H. Chen, J. Wu, W. Xie, X.-Y. Li. Purest Quantum State Identification. NeurIPS 2025,
arXiv:2502.14334 (Problem 1.1, Section 3, Algorithms 1 and 2). J.-Y. Audibert, S. Bubeck,
R. Munos. Best arm identification in multi-armed bandits. COLT 2010 (successive rejects).

>>> from algorithms.quantum import random_state
>>> states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9, 0.7))]
>>> problem = PurestStateProblem(states, copies=300)
>>> problem.purest, problem.n_qubits, round(problem.hardness()[0], 6)
(1, 1, 0.1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from algorithms._validation import (
    _crc,
    check_count,
    check_fits_memory,
    check_generator,
    check_nonnegative,
    check_working_range,
    read_only,
    remember_validated,
    reseal_state,
    revalidate_if_reassigned,
)
from algorithms.core import IterationMonitor, Problem, RetCode, Solution, SolveOptions, Stats
from algorithms.quantum.states import _count, _n_qubits_of, as_array, as_density_matrix

__all__ = [
    "PurestStateProblem",
    "QuantumStats",
    "hardness_h1",
    "hardness_h2",
    "log_bar",
    "successive_rejects_schedule",
]


def _purity_vector(purities: Any) -> np.ndarray:
    array = as_array("purities", purities)  # a masked array or an __array__ that raises: named
    if array.dtype == object or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
        raise TypeError(f"purities must be a real 1-D array, got {purities!r}")
    array = array.astype(np.float64)
    if array.ndim != 1 or array.size < 2:
        raise ValueError(f"purities must be a 1-D array of K >= 2 values, got shape {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array <= 0) or np.any(array > 1 + 1e-9):
        raise ValueError(f"purities must lie in (0, 1], got {array.tolist()}")
    # positive scales: the working range's minimum (a purity is at least 1/d, and 5e-324 was taken)
    check_working_range("purities", float(array.min()))
    return array


def _sorted_gaps(purities: Any) -> tuple[np.ndarray, np.ndarray]:
    ordered = np.sort(_purity_vector(purities))[::-1]
    return ordered[0] - ordered[1:], np.arange(2, ordered.size + 1)


def hardness_h1(purities: Any) -> float:
    """H₁ = min_{2<=i<=K} Δ₍ᵢ₎/i of the sorted purity gaps (0 when the purest state is not unique).

    ``purities`` is a real 1-D array of K >= 2 purities in (0, 1] (an entry up to 1 + 1e-9, a computed
    purity's rounding, is taken as given; one above is refused).

    >>> hardness_h1([1.0, 0.5, 0.5, 0.5])  # min(0.5/2, 0.5/3, 0.5/4)
    0.125
    """
    gaps, ranks = _sorted_gaps(purities)
    return float(np.min(gaps / ranks))


def hardness_h2(purities: Any) -> float:
    """H₂ = min_{2<=i<=K} Δ₍ᵢ₎²/i of the sorted purity gaps.

    ``purities`` is a real 1-D array of K >= 2 purities in (0, 1] (an entry up to 1 + 1e-9, a computed
    purity's rounding, is taken as given; one above is refused).

    >>> hardness_h2([1.0, 0.5, 0.5, 0.5])  # min(0.25/2, 0.25/3, 0.25/4)
    0.0625
    """
    gaps, ranks = _sorted_gaps(purities)
    return float(np.min(gaps**2 / ranks))


def log_bar(K: int) -> float:
    """loḡ(K) = 1/2 + Σ_{i=2}^{K} 1/i, the normalization of the successive-rejects phases;
    ``K`` an int in [2, 2**63 − 1].

    >>> log_bar(2), round(log_bar(4), 6)
    (1.0, 1.583333)
    """
    K = _count("K", K, 2)
    if K > _LOG_BAR_SUM_MAX:  # the sum of 2**40 terms hung: the harmonic number's expansion, exact in float64
        return math.log(K) + _EULER_GAMMA + 1.0 / (2 * K) - 1.0 / (12.0 * K * K) - 0.5
    # fsum: a plain float sum drifted 5e-14 (relative) from the harmonic number by K = 10**6
    return 0.5 + math.fsum(1.0 / i for i in range(2, K + 1))


#: loḡ(K) is summed term by term up to this K (the schedules' values); beyond, H_K = ln K + γ + 1/(2K) −
#: 1/(12K²) + O(K⁻⁴) is exact to float64 rounding (the next term is below 1e-25)
_LOG_BAR_SUM_MAX = 10**6
_EULER_GAMMA = 0.5772156649015329


def successive_rejects_schedule(budget: int, K: int) -> np.ndarray:
    """N_k = ⌈(budget − K)/(loḡ(K)(K + 1 − k))⌉ for k = 1, ..., K − 1 (units per surviving arm).

    ``K`` is an int >= 2 and ``budget`` an int in [K, 2**63 − 1]; the ceilings are exact integers for every
    such budget (a float quotient was off by thousands of units near 2**63 and overspent the budget), so
    ``sum(N) + N[-1] <= budget`` always holds.

    >>> successive_rejects_schedule(100, 4).tolist()
    [16, 21, 31]
    >>> int(sum(successive_rejects_schedule(100, 4)) + successive_rejects_schedule(100, 4)[-1]) <= 100
    True
    """
    K = _count("K", K, 2)
    budget = _count("budget", budget, 1)
    if budget < K:  # "budget must be an int >= 1099511627776" named budget alone for K = 2**40
        raise ValueError(f"budget must be >= {K} (K, one unit per state at least), got budget = {budget} "
                         f"with K = {K}")
    check_fits_memory("successive_rejects_schedule", "K", K, 24.0 * K)  # three arrays of K − 1 entries
    num, den = _log_bar_fraction(K)
    spare = budget - K
    divisors = np.arange(K, 1, -1, dtype=np.float64)  # K + 1 − k for k = 1, ..., K − 1
    raw = spare / (num / den * divisors)
    schedule = np.ceil(raw)
    # a quotient within float64's error of an integer is settled in integers: ⌈n·den/(num·j)⌉
    unsure = np.abs(raw - np.rint(raw)) <= 1e-12 * raw + 1e-9
    out = np.where(unsure, 0, schedule).astype(np.int64)
    for i in np.flatnonzero(unsure).tolist():  # Python ints: exact past 2**53 too
        out[i] = -((-spare * den) // (num * (K - i)))
    return out


def _log_bar_fraction(K: int) -> tuple[int, int]:
    """loḡ(K) as num/den: exact up to K = 2000, else to 60 significant digits (mpmath's harmonic number)."""
    if K <= 2000:
        exact = sum((Fraction(1, i) for i in range(2, K + 1)), Fraction(1, 2))
        return exact.numerator, exact.denominator
    with mpmath.workdps(60):
        mantissa, exponent = (mpmath.harmonic(K) - mpmath.mpf(1) / 2).man_exp
    return (mantissa << exponent, 1) if exponent >= 0 else (mantissa, 1 << -exponent)


def _dtype_of(state: Any) -> np.dtype:
    """A state's numpy dtype; a torch tensor's read detached (one that requires grad passed
    ``as_density_matrix``, then met torch's bare "Can't call numpy() on Tensor that requires grad")."""
    if type(state).__module__.startswith("torch") and hasattr(state, "detach"):
        state = state.detach().cpu()
    return np.asarray(state).dtype


@dataclass
class QuantumStats(Stats):
    """Counters of an identification run: ``copies`` consumed (never more than the budget),
    ``settings`` measured (Haar or local bases, or SWAP tests); ``f_calls`` = ``copies`` and
    ``iterations`` = elimination phases completed; ``grad_calls``, ``hess_calls`` and ``linear_solves``
    must stay 0 (no method here takes gradients, Hessians or linear solves: another value is refused) and
    ``wall_time`` is the run's seconds. Every counter is an int in [0, 2**63 − 1] (numpy ints stored as ints);
    ``wall_time`` a float >= 0 or NaN (not timed): :class:`~algorithms.core.Stats` checks them all.
    ``f_calls`` counts the copies once the run ends (a record built by hand may hold any count >= 0)."""

    def __setattr__(self, name: str, value: Any) -> None:
        # the types are Stats' checks (a bool or a str is refused there)
        counter = isinstance(value, int | np.integer) and not isinstance(value, bool)
        if name in ("grad_calls", "hess_calls", "linear_solves") and counter and value != 0:
            raise ValueError(f"{name} must stay 0 in a QuantumStats (an identification run takes no "
                             f"gradients, Hessians or linear solves), got {value!r:.40}")
        if counter and value > 2**63 - 1:  # 2**64 or 10**100 copies/phases: no run counts that far
            raise ValueError(f"{name} must be <= 2**63 - 1 (a count of copies, settings or phases), got "
                             f"{value!r:.40}")
        super().__setattr__(name, value)

    copies: int = 0
    settings: int = 0


@dataclass(frozen=True, eq=False)
class PurestStateProblem(Problem):
    """K density matrices of one size and a budget of ``copies`` (N) copies in all.

    ``states`` is a sequence of 2ⁿ × 2ⁿ density matrices (or a (K, 2ⁿ, 2ⁿ) array), each checked
    by :func:`~algorithms.quantum.states.as_density_matrix`; K >= 2 and ``copies`` an int in
    [K, 2**31 − 1] (a budget of measured copies: a larger one is refused naming ``copies``).
    The simulator knows the states; an algorithm only sees measurement outcomes. ``problem.states`` is a
    read-only (K, 2ⁿ, 2ⁿ) array of the Hermitian parts, complex128, or complex64 when every state was given in
    single precision (float32/complex64), so each passes the state checks at its own precision's tolerance.
    """

    states: Any
    copies: int

    def __post_init__(self) -> None:
        if self.states is None or isinstance(self.states, str | bytes):
            raise TypeError(f"states must be a sequence of density matrices, got {self.states!r}")
        if isinstance(self.states, Iterator):  # a generator was consumed once and then pickled/copied empty
            raise TypeError(f"states must be a sequence of density matrices (a list, tuple or (K, 2ⁿ, 2ⁿ) "
                            f"array), got {type(self.states).__name__} (an iterator: pass list(...))")
        try:
            items = list(self.states)
        except Exception as exc:  # not iterable, or a __len__/__iter__ that raises (its error named nothing)
            raise TypeError(f"states must be a sequence of density matrices, got "
                            f"{type(self.states).__name__} ({type(exc).__name__}: {exc})") from None
        if len(items) < 2:
            raise ValueError(f"states must hold K >= 2 density matrices, got K = {len(items)}")
        matrices = [as_density_matrix(item, f"states[{i}]") for i, item in enumerate(items)]
        shapes = sorted({m.shape for m in matrices})
        if len(shapes) > 1:
            raise ValueError(f"states must all have the same dimension (qubit count), got shapes {shapes}")
        dtypes = {_dtype_of(item) for item in items}
        object.__setattr__(self, "_dtype", np.float32 if dtypes <= {np.dtype(np.float32),
                                                                    np.dtype(np.complex64)} else np.float64)
        stacked = np.stack(matrices)
        purities = np.sum(np.abs(stacked) ** 2, axis=(1, 2))
        if self._dtype == np.float32:
            # kept at the caller's precision: upcast to complex128, a complex64 state's trace error 1.5e-8 was
            # judged at float64's tolerance 1e-8, so purity(problem.states[0]) refused the problem's own state
            stacked = stacked.astype(np.complex64)
        stacked = read_only(stacked)  # immutable memory: the flag cannot be turned back on and written
        object.__setattr__(self, "states", stacked)
        if isinstance(self.copies, bool) or not isinstance(self.copies, int | np.integer):
            raise TypeError(f"copies must be an int, got {type(self.copies).__name__} {self.copies!r}")
        if self.copies < len(matrices):
            raise ValueError(f"copies must be >= K = {len(matrices)} (one copy per state at least), "
                             f"got {self.copies}")
        # a budget of copies is a count of measurements: past 2**31 - 1 no run finishes (nor allocates)
        object.__setattr__(self, "copies", check_count("copies", self.copies, len(matrices)))
        object.__setattr__(self, "_purities", purities)
        object.__setattr__(self, "_states_crc", _crc(stacked))
        remember_validated(self)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: ``states`` read-only again (numpy gives it back writable)."""
        reseal_state(self, state)

    def _check_unchanged(self) -> None:
        """The states written in place after their read-only flag was turned off (``p.states.flags.writeable
        = True``): the shared stamp of a read-only array is its identity, and the cached purities went stale
        (the solve answered for other states). Called by solve and by the purity accessors."""
        revalidate_if_reassigned(self)
        if self.__dict__.get("_states_crc") not in (None, _crc(self.states)):
            raise ValueError("PurestStateProblem.states were written in place after construction; build a "
                             "new PurestStateProblem")

    @property
    def K(self) -> int:
        return int(self.states.shape[0])

    @property
    def dim(self) -> int:
        return int(self.states.shape[1])

    @property
    def n_qubits(self) -> int:
        return _n_qubits_of("states", self.dim)

    @property
    def dtype(self) -> type:
        """float32 when every state came in single precision, else float64."""
        return self._dtype

    @property
    def purities(self) -> np.ndarray:
        self._check_unchanged()  # states replaced after construction: the cache is recomputed
        return self._purities.copy()

    @property
    def purest(self) -> int:
        """The index of a purest state (the first, if several tie)."""
        self._check_unchanged()
        return int(np.argmax(self._purities))

    def is_correct(self, index: int, atol: float = 1e-12) -> bool:
        """Whether ``index`` (an int in [0, K − 1]) names a purest state (ties within ``atol`` count as
        purest). ``atol``: a finite float >= 0 (0: exact ties only); purities lie in (0, 1], so any
        ``atol`` >= 1 counts every state as purest (valid, if uninformative)."""
        self._check_unchanged()
        index = _count("index", index, 0)
        if index >= self.K:
            raise ValueError(f"index must be in [0, K − 1 = {self.K - 1}], got {index}")
        atol = check_nonnegative("atol", atol)  # NaN or a negative tolerance answered False in silence
        return bool(self._purities[index] >= self._purities.max() - atol)

    def hardness(self) -> tuple[float, float]:
        """(H₁, H₂) of this problem's purities."""
        self._check_unchanged()
        return hardness_h1(self._purities), hardness_h2(self._purities)


def run_successive_rejects(
    problem: PurestStateProblem,
    schedule: np.ndarray,
    measure: Callable[[int, int, int], None],
    score: Callable[[int], float],
    options: SolveOptions,
    rng: np.random.Generator,
    stats: QuantumStats,
    to_purity: Callable[[float], float],
    label: str,
    tally: Callable[[], tuple[int, int]] | None = None,
    batched: bool = False,
) -> Solution:
    """The elimination loop shared by the successive-rejects algorithms.

    Phase k calls ``measure(arm, N_{k−1}, N_k)`` for each surviving arm (bringing it from
    N_{k−1} to N_k units), then drops the arm of lowest ``score`` (ties broken at random). The
    survivor of K − 1 phases is returned with ``Success`` when every elimination rested on data;
    a phase that left an arm without a single measurement makes it ``Failure`` (a coin toss,
    not an identification); ``maxiters`` below K − 1 phases gives ``MaxIters`` and the best
    current estimate. ``tally()`` (optional) returns the (copies, settings) spent so far, written to ``stats``
    once per phase (a checked record set per arm and phase cost O(K²) validations: K = 2000 states took 17 s).
    ``batched=True``: ``measure`` and ``score`` take an int array of arms (one call per phase, in arm order,
    the same random stream as one call per arm).
    """
    check_generator("rng", rng)
    check_no_tol(options, label)
    K = problem.K
    survivors = list(range(K))
    phases = options.iterations(K - 1)
    monitor = IterationMonitor(options, total=min(phases, K - 1), desc=label)
    blind = False
    retcode = RetCode.Success
    previous = 0
    try:
        for k, target in enumerate(schedule.tolist(), start=1):
            if k > phases:
                retcode = RetCode.MaxIters
                break
            if batched:
                measure(np.array(survivors), previous, target)
            else:
                for arm in survivors:
                    measure(arm, previous, target)
            if tally is not None:
                stats.copies, stats.settings = tally()
            previous = target
            scores = (np.asarray(score(np.array(survivors)), dtype=np.float64) if batched
                      else np.array([score(arm) for arm in survivors]))
            blind = blind or bool(np.any(np.isnan(scores)))
            # every survivor holds the same number of units: all have data or none has
            lowest = (np.arange(scores.size) if np.all(np.isnan(scores))
                      else np.flatnonzero(scores == np.nanmin(scores)))
            dropped = survivors[int(lowest[rng.integers(lowest.size)])]
            survivors.remove(dropped)
            stats.iterations = k
            stop = monitor.record(phase=k, units_per_arm=target, dropped=dropped,
                                  survivors=list(survivors), copies=stats.copies,
                                  scores=[float(s) for s in scores])
            if stop:
                retcode = RetCode.Terminated
                break
    finally:
        monitor.close()
    if blind and retcode is RetCode.Success:
        retcode = RetCode.Failure
    scores = np.array([score(arm) for arm in survivors])
    best = survivors[int(np.argmax(np.nan_to_num(scores, nan=-np.inf)))]
    stats.f_calls = stats.copies
    value = to_purity(score(best))
    return Solution(x=best, value=value, retcode=retcode, stats=stats, trace=monitor.trace)


#: the most basis entries (bases × d²) a solve simulates: 2**24 complex128 numbers, 256 MiB per array and
#: seconds; a budget past it (copies = 2**31 − 1 with d = 2: 2**30 Haar bases) ran for minutes, then ran
#: out of memory (2**27 copies took 150 s on the loaded machine)
MAX_SIMULATED_ENTRIES = 2**24


def check_simulated_bases(problem: PurestStateProblem, bases: int, label: str) -> None:
    """Refuse, naming ``copies``, a budget whose ``bases`` measurement bases of d × d exceed
    :data:`MAX_SIMULATED_ENTRIES` (the simulation's memory and time), before anything is drawn."""
    entries = bases * problem.dim**2
    if entries > MAX_SIMULATED_ENTRIES:
        raise ValueError(f"copies = {problem.copies} is too large for {label}'s simulation: it measures "
                         f"{bases} random bases of {problem.dim}×{problem.dim} ({entries} complex entries > "
                         f"2**24, the most simulated: 256 MiB per array); use fewer copies or a larger "
                         f"copies_per_basis")


def check_no_tol(options: SolveOptions, label: str) -> None:
    """The identification algorithms have no tolerance: the budget N fixes the run. A ``tol`` passed to
    their solve was ignored in silence; it is refused by name."""
    if options.tol is not None:
        raise ValueError(f"tol does not apply to {label}: its run is fixed by the budget of copies (maxiters "
                         f"caps the elimination phases); got tol={options.tol!r}, pass none")


def check_copies_per_basis(value: Any) -> int | None:
    """``None`` or an int in [2, 2**31 − 1] (the collision statistic needs two copies per basis)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"copies_per_basis must be an int >= 2 or None, got {type(value).__name__} {value!r}")
    if value < 2:
        raise ValueError(f"copies_per_basis must be an int >= 2 or None, got {value}")
    # a count of copies, as the budget: at most 2**31 − 1 (2**64 was accepted at construction)
    return check_count("copies_per_basis", value, 2)
