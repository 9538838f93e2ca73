"""The fully dynamic p-matchoid algorithm of Banihashem, Goudarzi, Hajiaghayi, Jabbarzade, Monemizadeh.

Non-monotone submodular f >= 0, a p-matchoid of rank k, elements inserted and deleted
over time. The algorithm keeps levels i = 0, 1, ..., i* of pairs (Aᵢ, Bᵢ):

* B₀ is the set of present elements kept by a coin of probability
  q = 1 / (p + √(p² + p) + 1) (``RateSampling``); A₀ = ∅.
* Bᵢ = {e ∈ Bᵢ₋₁ : Δ(e | Aᵢ₋₁) >= τᵢ(e)} (``Filtering``), where Uᵢ(e) holds, for every
  matroid Mⱼ in which Aᵢ₋₁ + e is dependent, the lightest element of Aᵢ₋₁ whose removal
  restores independence (``DependencyDetection``; found by binary search over the
  weight order, O(log k) oracle calls per matroid), and
  τᵢ(e) = max((1 + c) · w(Uᵢ(e)), ε · MAX / (2k)) with c = √(1 + 1/p) (``FindSwaps``).
* eᵢ is drawn uniformly from Bᵢ, Aᵢ = Aᵢ₋₁ − Uᵢ(eᵢ) + eᵢ, w(eᵢ) = Δ(eᵢ | Aᵢ₋₁)
  (``Extension``); the recursion stops at the first empty Bᵢ₊₁, and A_{i*} is the output.

``insert(e)`` keeps e with probability q, then walks up the levels while e survives,
adding it to Bᵢ and, with probability 1/|Bᵢ|, making it eᵢ and rebuilding the levels
above. ``delete(e)`` removes e from the Bᵢ holding it and, when e was some eᵢ, draws a new
eᵢ from Bᵢ and rebuilds the levels above. MAX (max_v f(v) <= MAX <= 2 max_v f(v)) is
either given (``max_value``) or guessed by parallel runs MAX = 2ʲ, each element going to
the runs with f(v) <= 2ʲ <= 2k f(v)/ε (the paper's Appendix B); the output is the best run.
``max_guess="current"`` (our option, not the paper's; the default is ``"parallel"``, Appendix B)
keeps only the one run whose MAX is valid now, 2^⌈log₂ M_t⌉ with M_t = max_{v ∈ V_t} f(v), and
rebuilds it by ``Init`` (rate sampling of the present elements routed to it, then the recursion)
whenever ⌈log₂ M_t⌉ changes: the same guarantee at every time (that run's MAX lies in
[M_t, 2 M_t)), about one run's queries per update instead of ⌊log₂(2k/ε)⌋ + 1 runs', plus an
``Init`` per change of ⌈log₂ M_t⌉ — so Theorem 1.1's amortized bound holds for it only on streams
where that exponent changes rarely (a stream that moves M_t across a power of two at every update
pays an ``Init`` at every update).
With ``monotone=True`` the parameters are those of Proposition 1.3 (q = 1/(2p + 1), c = 1).

Guarantees (the paper's Theorem 1.1): E f(S_t) >= OPT_t / (2p + 2√(p(p+1)) + 1 + ε) at every
time t, with expected amortized O(ε⁻³ p k⁴ log² k) oracle queries per update.

Gaps the paper leaves, filled here (see ``paper_notes/dynamic_matchoid.md``): an insertion
that survives every level i <= i* is also tried at level i* + 1 (the terminator invariant
needs it); Δ(e | Aᵢ₋₁) is computed before Uᵢ(e), and Uᵢ(e) only when the gain passes
ε·MAX/(2k); the search for Uᵢ(e) stops as soon as (1 + c) times a lower bound on w(Uᵢ(e))
(the lightest weight in Aᵢ₋₁ ∩ Vⱼ) exceeds the gain, and tests e alone for a loop only when
the search ends at its last step; f(Aᵢ₋₁ + e) from the filter is reused as f(Aᵢ) when
nothing is swapped out, and f({e}) from the insertion's routing as Δ(e | A₀) (all the same
decisions with fewer queries); an element in no matroid is rejected (the rank bound k would
not hold for it); ties in weight are broken by selection order.

References
----------
K. Banihashem, S. Goudarzi, M. Hajiaghayi, P. Jabbarzade, M. Monemizadeh. Non-monotone
Submodular Optimization: p-Matchoid Constraints and Fully Dynamic Setting. NeurIPS 2025
(Algorithms 1 and 2; Theorems 1.1, 5.4, 5.5; Appendix B).

>>> from algorithms.submodular import DynamicMatchoidMaximizer, Matchoid, UniformMatroid
>>> dm = DynamicMatchoidMaximizer(len, Matchoid([UniformMatroid(2)]), eps=0.1, seed=0)
>>> for e in range(8):
...     dm.insert(e)
>>> len(dm.solution()) <= 2, dm.value == len(dm.solution())
(True, True)
>>> dm.delete(3)
>>> 3 in dm.solution()
False
"""

from __future__ import annotations

import math
import numbers
import random
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import (
    UnknownAttributeError,
    _brief,
    check_bool,
    check_choice,
    check_int_at_least,
    check_positive,
    check_seed,
    check_working_range,
    to_float,
)
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.submodular.functions import check_in_domain
from algorithms.submodular.matroids import Matchoid, check_hashable, check_present
from algorithms.submodular.oracle import (
    CountingOracle,
    InconsistentOracleError,
    NegativeValueError,
    NonFiniteValueError,
    SealedAfterInit,
)
from algorithms.submodular.problems import UpdateStream, refuse_increasing_returns

__all__ = ["DynamicMatchoid", "DynamicMatchoidMaximizer", "sampling_parameters"]

#: how MAX is guessed when it is not given: Appendix B's parallel runs, or our one current run
MAX_GUESSES = ("parallel", "current")

#: how many inserts sample f's submodularity (one diminishing-returns test each, on uncounted raw calls)
SUBMODULARITY_TESTS = 8


def sampling_parameters(p: int, monotone: bool = False) -> tuple[float, float]:
    """(q, c) of the paper: q = 1/(p + √(p² + p) + 1), c = √(1 + 1/p); monotone: (1/(2p + 1), 1).

    ``p`` (the matchoid's p) is an int in [1, 2**53] (an int a float holds exactly: larger is refused by
    name); ``monotone`` a bool.

    >>> q, c = sampling_parameters(1)
    >>> round(q, 6), round(c, 6)
    (0.292893, 1.414214)
    """
    monotone = check_bool("monotone", monotone)
    if isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 1:
        raise ValueError(f"p must be an int >= 1, got {p!r}")
    p = int(p)  # a numpy int: p·p + p wrapped in int64 past 2**31.5 (q off by 2; red23b)
    if p > 2**53:  # p·p + p and 1/p in floats (10**400 raised float's OverflowError); a matchoid's p is small
        raise ValueError(f"p must be <= 2**53 (an int a float holds exactly), got {p!r}")
    if monotone:
        return 1.0 / (2 * p + 1), 1.0
    return 1.0 / (p + math.sqrt(p * p + p) + 1.0), math.sqrt(1.0 + 1.0 / p)


class _Survivors:
    """A level's Bᵢ: O(1) add, remove and uniform draw; ``info[e]`` = (Uᵢ(e), Δ(e | Aᵢ₋₁), f(Aᵢ₋₁ + e))
    at a level i >= 1, f({e}) at level 0 (the value the insertion already queried, or None)."""

    __slots__ = ("info", "items", "pos")

    def __init__(self) -> None:
        self.items: list = []
        self.pos: dict = {}
        self.info: dict = {}

    def add(self, element, info) -> None:
        self.pos[element] = len(self.items)
        self.items.append(element)
        self.info[element] = info

    def remove(self, element):
        index = self.pos.pop(element)
        last = self.items.pop()
        if last != element:
            self.items[index] = last
            self.pos[last] = index
        return self.info.pop(element)

    def __contains__(self, element) -> bool:
        return element in self.pos

    def __len__(self) -> int:
        return len(self.items)


class _Level:
    """Level i: Bᵢ, eᵢ (None at level 0), Aᵢ as {element: weight} in selection order, f(Aᵢ).

    Aᵢ and its weights never change once the level is built (a change of Aᵢ builds a new level), so
    its restriction to each matroid's ground set and the weight order there are computed once, on
    the first filter that needs them, and shared by every element filtered against Aᵢ.
    """

    __slots__ = ("_parts", "chosen", "members", "survivors", "value", "weights")

    def __init__(self, survivors: _Survivors, chosen, weights: dict, value: float) -> None:
        self.survivors = survivors
        self.chosen = chosen
        self.weights = weights
        self.members = frozenset(weights)
        self.value = value
        self._parts: dict = {}

    def part(self, j: int, ground) -> tuple[frozenset, list]:
        """(Aᵢ ∩ Vⱼ, its elements by increasing weight, ties in selection order) for matroid j."""
        found = self._parts.get(j)
        if found is None:
            weights = self.weights
            if ground is None:
                found = (self.members, sorted(weights, key=weights.__getitem__))
            else:
                inside = [x for x in weights if x in ground]  # selection order: sorted() is stable
                found = (frozenset(inside), sorted(inside, key=weights.__getitem__))
            self._parts[j] = found
        return found


class _Run:
    """One run of Algorithms 1-2 for one value of MAX."""

    def __init__(self, oracle: CountingOracle, eps: float, max_value: float, q: float, c: float,
                 empty_value: float, rng: np.random.Generator) -> None:
        self.oracle = oracle
        self.q = q
        self.c = c
        self.threshold = eps * max_value / (2 * oracle.matchoid.rank)
        self.rng = rng
        self.levels = [_Level(_Survivors(), None, {}, empty_value)]
        self._journal: list[tuple] = []
        self._saved: tuple | None = None

    # ---- the paper's procedures ------------------------------------------------------------
    def _dependency_detection(self, level: _Level, element, gain: float = math.inf) -> tuple | None:
        """Uᵢ(e): per matroid where Aᵢ₋₁ + e is dependent, the lightest element of its circuit.

        None when e cannot be added: it is dependent on its own in some matroid, or Uᵢ(e) is
        proved heavy enough that (1 + c)·w(Uᵢ(e)) > ``gain`` (then e fails the filter whatever
        the rest of Uᵢ(e) is, and the search stops: the same decision with fewer queries).
        """
        oracle, weights, factor = self.oracle, level.weights, 1.0 + self.c
        matchoid = oracle.matchoid
        removal: list = []
        for j in matchoid.matroids_of(element):
            part, ordered = level.part(j, matchoid.matroids[j].ground)
            if oracle.independent(j, part | {element}):
                continue
            if not part:
                return None  # {e} itself is dependent: a loop
            # xⱼ lies in Aᵢ₋₁ ∩ Vⱼ, so w(Uᵢ(e)) >= w(lightest there) and >= w(what U holds so far)
            if factor * max(sum(weights[x] for x in removal), weights[ordered[0]]) > gain:
                return None
            # removing the t lightest restores independence iff they meet the unique circuit
            lo, hi = 1, len(ordered)
            while lo < hi:
                mid = (lo + hi) // 2
                if oracle.independent(j, frozenset(ordered[mid:]) | {element}):
                    hi = mid
                else:
                    lo = mid + 1
            if lo == len(ordered) and not oracle.independent(j, frozenset({element})):
                return None  # no removal restores independence: e is a loop
            lightest = ordered[lo - 1]
            if lightest not in removal:
                removal.append(lightest)
        return tuple(removal)

    def _find_swaps(self, level: _Level, element) -> tuple | None:
        """(Uᵢ(e), Δ(e | Aᵢ₋₁), f(Aᵢ₋₁ + e)) when e survives the filter at the level above ``level``,
        else None. At level 1 (Aᵢ₋₁ = A₀ = ∅) f({e}) comes from level 0's cache when it is there."""
        if element in level.members:
            return None  # Δ = 0 < τ
        cached = level.survivors.info.get(element) if level is self.levels[0] else None
        value = self.oracle.value(level.members | {element}) if cached is None else cached
        gain = value - level.value
        if gain < self.threshold:
            return None
        swaps = self._dependency_detection(level, element, gain)
        if swaps is None:
            return None
        if not swaps:  # τ = max(0, ε·MAX/(2k)), which the gain has passed
            return (swaps, gain, value)
        tau = max((1.0 + self.c) * sum(level.weights[x] for x in swaps), self.threshold)
        return (swaps, gain, value) if gain >= tau else None

    def _extension(self, previous: _Level, survivors: _Survivors, chosen) -> _Level:
        swaps, gain, value = survivors.info[chosen]
        weights = {x: w for x, w in previous.weights.items() if x not in swaps}
        weights[chosen] = gain
        members = frozenset(weights)
        for j in self.oracle.matchoid.matroids_of(chosen):  # cheap check of the oracle's consistency
            if not self.oracle.independent(j, self.oracle.restrict(j, members)):
                raise InconsistentOracleError(
                    f"matchoid: matroid {j} ({self.oracle.matchoid.matroids[j]!r}) reports A - U + e "
                    f"dependent after the lightest circuit element was removed; its oracle is not a "
                    f"matroid's (e = {chosen!r})")
        # with nothing swapped out Aᵢ = Aᵢ₋₁ + eᵢ, whose value the filter already queried
        return _Level(survivors, chosen, weights, value if not swaps else self.oracle.value(members))

    def _recursion(self) -> None:
        """Build levels above the top one until the filter leaves no survivor."""
        while True:
            top = self.levels[-1]
            survivors = _Survivors()
            for element in top.survivors.items:
                found = self._find_swaps(top, element)
                if found is not None:
                    survivors.add(element, found)
            if not survivors:
                return
            chosen = survivors.items[int(self.rng.integers(len(survivors)))]
            self.levels.append(self._extension(top, survivors, chosen))

    def _resample(self, i: int) -> None:
        """Level i lost eᵢ: draw a new one from Bᵢ and rebuild above (or end at level i - 1)."""
        level = self.levels[i]
        del self.levels[i:]
        if level.survivors:
            chosen = level.survivors.items[int(self.rng.integers(len(level.survivors)))]
            self.levels.append(self._extension(self.levels[i - 1], level.survivors, chosen))
            self._recursion()

    def _add(self, survivors: _Survivors, element, info) -> None:
        survivors.add(element, info)
        self._journal.append(("add", survivors, element, None))

    def _remove(self, survivors: _Survivors, element) -> None:
        info = survivors.remove(element)
        self._journal.append(("remove", survivors, element, info))

    def build(self) -> None:
        """``Init``: filter and sample from level 0 upwards."""
        del self.levels[1:]
        self._recursion()

    def insert(self, element, singleton: float | None = None) -> None:
        """Algorithm 2's Insert; ``singleton`` is f({e}) when the caller has queried it already."""
        if self.rng.random() >= self.q:
            return  # ignored by the rate sampling
        self._add(self.levels[0].survivors, element, singleton)
        for i in range(1, len(self.levels) + 1):
            previous = self.levels[i - 1]
            found = self._find_swaps(previous, element)
            if found is None:
                return
            if i == len(self.levels):  # it survives past i*: a new level holding only e
                survivors = _Survivors()
                survivors.add(element, found)
                self.levels.append(self._extension(previous, survivors, element))
                self._recursion()
                return
            level = self.levels[i]
            self._add(level.survivors, element, found)
            if self._promotes(level.survivors):
                del self.levels[i:]
                self.levels.append(self._extension(previous, level.survivors, element))
                self._recursion()
                return

    def _promotes(self, survivors: _Survivors) -> bool:
        """Insert's coin: the new survivor becomes eᵢ with probability 1/|Bᵢ| (it is in Bᵢ already)."""
        return self.rng.random() * len(survivors) < 1.0

    def delete(self, element) -> None:
        for i, level in enumerate(self.levels):
            if element not in level.survivors:
                return
            self._remove(level.survivors, element)
            if i >= 1 and level.chosen == element:
                self._resample(i)
                return

    # ---- transactions: a rejected update leaves the run as it was ---------------------------
    def begin(self) -> None:
        self._journal = []
        self._saved = (list(self.levels), self.rng.bit_generator.state)

    def rollback(self) -> None:
        for action, survivors, element, info in reversed(self._journal):
            if action == "add":
                survivors.remove(element)
            else:
                survivors.add(element, info)
        self.levels, self.rng.bit_generator.state = self._saved
        self._journal = []

    @property
    def solution(self) -> frozenset:
        return self.levels[-1].members

    @property
    def value(self) -> float:
        return self.levels[-1].value

    def violations(self, f: Callable[[frozenset], float], present: set, threshold: float) -> list[str]:
        """Invariants 1-5 of the paper, recomputed from their definitions with uncounted calls.

        The reference filter finds Uᵢ(e) by the definition (a scan of every e' whose removal
        restores independence), not by the binary search the run uses, with the caller's
        ``threshold`` ε·MAX/(2k).
        """
        matchoid = self.oracle.matchoid

        def reference(level: _Level, element) -> tuple | None:
            if element in level.members:
                return None
            gain = float(f(level.members | {element})) - level.value
            swaps: list = []
            for j in matchoid.matroids_of(element):
                matroid = matchoid.matroids[j]
                part = frozenset(x for x in level.members if matroid.in_ground(x))
                if matroid.is_independent(part | {element}):
                    continue
                fixes = [x for x in level.weights if x in part
                         and matroid.is_independent((part - {x}) | {element})]
                if not fixes:
                    return None
                lightest = min(fixes, key=level.weights.__getitem__)
                if lightest not in swaps:
                    swaps.append(lightest)
            tau = max((1.0 + self.c) * sum(level.weights[x] for x in swaps), threshold)
            return (tuple(swaps), gain) if gain >= tau else None

        found = []
        base = self.levels[0]
        if base.weights or not set(base.survivors.items) <= present:
            found.append("starter: A_0 must be empty and B_0 a subset of the present elements")
        for i in range(1, len(self.levels) + 1):
            previous = self.levels[i - 1]
            expected = {e for e in previous.survivors.items if reference(previous, e) is not None}
            top = i == len(self.levels)
            actual = set() if top else set(self.levels[i].survivors.items)
            if expected != actual:
                found.append(f"{'terminator' if top else 'survivor'}: B_{i} differs from its definition")
            if top:
                break
            level = self.levels[i]
            if level.chosen not in expected:
                found.append(f"weight: e_{i} is not a survivor of level {i}")
                continue
            swaps, gain = reference(previous, level.chosen)
            if not math.isclose(level.weights[level.chosen], gain, rel_tol=1e-9, abs_tol=1e-12):
                found.append(f"weight: w(e_{i}) != Δ(e_{i} | A_{i - 1})")
            if level.members != (previous.members - set(swaps)) | {level.chosen}:
                found.append(f"independent: A_{i} != A_{i - 1} - U_{i}(e_{i}) + e_{i}")
            if not matchoid.is_independent(level.members):
                found.append(f"independent: A_{i} is dependent in the matchoid")
            if not math.isclose(level.value, float(f(level.members)), rel_tol=1e-9, abs_tol=1e-12):
                found.append(f"value: the stored f(A_{i}) is stale")
        return found


#: the largest guess 2^j of MAX a run is kept for: every finite f(v) is below 2^1024
_MAX_EXPONENT = 1023


def _check_eps(eps: Any) -> float:
    if isinstance(eps, bool | np.bool_) or not isinstance(eps, numbers.Real | np.floating | np.integer):
        raise TypeError(f"eps must be a real number in (0, 1) (an int, a float, a numpy number or a "
                        f"numbers.Real such as Fraction), got {type(eps).__name__}")
    if isinstance(eps, int | np.integer) and abs(eps) > 2**1023:  # float() raised OverflowError
        raise ValueError(f"eps must lie in (0, 1), got {eps!r}")
    if not (0.0 < to_float(eps) < 1.0):  # Fraction(10**400): float()'s bare OverflowError (red23b)
        raise ValueError(f"eps must lie in (0, 1), got {_brief(eps)}")
    # a positive scale of the working range: 5e-324 ran the guesses over float's whole range in silence
    return check_working_range("eps", to_float(eps))  # Fraction(1, 10**400): 5e-324, refused by name


def _check_max_value(max_value: Any) -> float | None:
    return None if max_value is None else check_positive("max_value", max_value)


def _check_optional_seed(seed: Any) -> int | None:
    return None if seed is None else check_seed(seed)


#: the names a maximizer's state holds (its settings and working state): a loaded state with another is
#: refused
_MAXIMIZER_STATE = frozenset({
    "eps", "seed", "max_value", "monotone", "max_guess", "q", "c", "_oracle", "_singletons", "_exponents",
    "_rebuilds", "_entropy", "_empty_value", "_runs", "_present", "_dr_tests", "_stop_reason", "_sealed"})


class DynamicMatchoidMaximizer(SealedAfterInit):
    """The paper's dynamic algorithm as an object: ``insert``, ``delete``, ``solution()``, ``value``.

    ``f`` is any callable f(frozenset) -> float (non-negative, submodular, finite: any float64 value, not
    held to the working range; an int, Fraction, Decimal or np.longdouble answer is rounded to float64 and
    compared in float64, unlike Greedy/BruteForce, which compare it exactly; every call is counted in
    ``queries`` together with the matroid oracle calls); ``matchoid`` a
    :class:`Matchoid`; ``eps`` in (0, 1) and at least 1.18e-38; ``seed`` (None or an int in [0, 2**64))
    seeds every coin; ``max_value``, when given, is the paper's MAX, a float > 0 in [M, 2M] for M the largest
    f({e}) the stream inserts (it must bound every f({e}): a larger f({e}) is refused at its insert, naming
    max_value; above 2M, which an online object cannot see coming, Theorem 1.1's guarantee does not hold and
    the run may select nothing: :class:`DynamicMatchoid` on an :class:`UpdateStream` refuses it up front);
    otherwise MAX is guessed by
    parallel runs (Appendix B, ``max_guess="parallel"``, the default) or, with
    ``max_guess="current"`` (our option, see the module docstring), by the one run whose MAX
    2^⌈log₂ M_t⌉ is valid now, rebuilt by Init when that exponent changes (``rebuilds`` counts
    them). ``monotone=True`` uses Proposition 1.3's parameters.

    A rejected update (an element inserted twice or deleted while absent, an unhashable or NaN (not equal to
    itself) element, one outside a ready-made f's ground set, f returning a negative or non-finite value, an
    inconsistent matroid oracle) raises and leaves the maintained state as it was. ``f``'s
    submodularity is sampled as elements arrive: one seeded diminishing-returns test at each of the first
    8 inserts that find an element present (raw calls of f, not counted in ``queries``), with
    ``monotone=True`` also f's monotonicity on the same sets; a failed test is a ValueError naming ``f``
    (f(S) = |S|² ran without one). Passing them is no proof.

    Its settings (``eps``, ``seed``, ``max_value``, ``monotone``, ``max_guess``, and the derived ``q``, ``c``)
    and counters (``rebuilds``) cannot be set after construction: assigning one raises a TypeError naming
    it (build a new object for other settings); any other public name (a misspelt ``epsilon = 0.1``) raises
    the README's ``UnknownAttributeError`` (an AttributeError and a ValueError) naming it. A user's subclass
    is not sealed (its ``__init__`` may set attributes of its own after this one's).
    """

    def __init__(self, f: Callable[[frozenset], float], matchoid: Matchoid, eps: float = 0.1,
                 seed: int | None = 0, max_value: float | None = None, monotone: bool = False,
                 max_guess: str = "parallel") -> None:
        self._oracle = CountingOracle(f, matchoid)
        self.eps = _check_eps(eps)
        self.seed = _check_optional_seed(seed)
        self.max_value = _check_max_value(max_value)
        self.monotone = check_bool("monotone", monotone)  # np.False_ (a comparison's result) accepted
        self.max_guess = check_choice("max_guess", max_guess, MAX_GUESSES)
        # max_guess="current": f({v}) of the present elements and how many have each ⌈log₂ f({v})⌉
        self._singletons: dict[Hashable, float] = {}
        self._exponents: Counter = Counter()
        self._rebuilds = 0
        self.q, self.c = sampling_parameters(matchoid.p, monotone)
        self._entropy = np.random.SeedSequence(self.seed).entropy
        self._empty_value = self._oracle.value(frozenset())
        self._runs: dict[int | None, _Run] = {}
        self._present: dict[Hashable, tuple] = {}
        self._dr_tests = 0  # diminishing-returns tests made so far (see _sample_submodularity)
        self._stop_reason = ""
        # eps = 5 written later was used by the next run built; seed = 7 ignored. A user's subclass is not
        # sealed (its own __init__ sets more after this one: red23b), as the matroids' are not
        self._seal(DynamicMatchoidMaximizer)

    @property
    def rebuilds(self) -> int:
        """max_guess="current": how many times the run was rebuilt by Init (⌈log₂ M_t⌉ changed)."""
        return self._rebuilds

    @property
    def stop_reason(self) -> str:
        """Why a ``solve`` over a stream stopped early ("" when it did not)."""
        return self._stop_reason

    def __setstate__(self, state: dict) -> None:
        """A pickled or copied maximizer's settings checked again, by name (pickle restored its ``__dict__``
        as it was: eps = nan, q = 2 or seed = -1 written into a state ran the next inserts in silence;
        red20b). A name the object does not have is refused, its counters checked, and it is sealed again
        (a state with ``_sealed = False`` opened it: ``eps = 5.0`` was then taken; red23b)."""
        own = type(self) is DynamicMatchoidMaximizer  # a user's subclass holds names of its own, unsealed
        unknown = sorted(set(state) - _MAXIMIZER_STATE) if own else []
        if unknown:
            raise UnknownAttributeError(f"DynamicMatchoidMaximizer takes no attribute {unknown[0]!r} (a "
                                        f"loaded state's; its state holds {sorted(_MAXIMIZER_STATE)})")
        self.__dict__.update(state)
        object.__setattr__(self, "_sealed", own)
        if not isinstance(self._oracle, CountingOracle):
            raise TypeError(f"_oracle must be a CountingOracle (a loaded state's), got "
                            f"{type(self._oracle).__name__}")
        for name in ("_rebuilds", "_dr_tests"):
            check_int_at_least(name.lstrip("_"), self.__dict__[name], 0)
        if not isinstance(self._stop_reason, str):
            raise TypeError(f"stop_reason must be a str (a loaded state's), got "
                            f"{type(self._stop_reason).__name__}")
        for name in ("_runs", "_present", "_singletons", "_exponents"):
            if not isinstance(self.__dict__[name], dict):
                raise TypeError(f"{name} must be a dict (a loaded state's), got "
                                f"{type(self.__dict__[name]).__name__}")
        _check_eps(self.eps)
        _check_optional_seed(self.seed)
        _check_max_value(self.max_value)
        check_bool("monotone", self.monotone)
        check_choice("max_guess", self.max_guess, MAX_GUESSES)
        if (self.q, self.c) != sampling_parameters(self.matchoid.p, self.monotone):
            raise ValueError(f"q, c = {self.q!r}, {self.c!r} are not the paper's sampling parameters for "
                             f"p = {self.matchoid.p} and monotone = {self.monotone} (a loaded state's)")

    # ---- the user's view ------------------------------------------------------------------
    @property
    def matchoid(self) -> Matchoid:
        return self._oracle.matchoid

    @property
    def queries(self) -> int:
        """Oracle calls so far: value queries plus independence queries."""
        return self._oracle.queries

    @property
    def value_queries(self) -> int:
        return self._oracle.value_queries

    @property
    def independence_queries(self) -> int:
        return self._oracle.independence_queries

    @property
    def elements(self) -> frozenset:
        """The elements present now (V_t)."""
        return frozenset(self._present)

    def _best(self) -> _Run | None:
        best = None
        for key in sorted(self._runs, key=lambda k: -math.inf if k is None else k):
            run = self._runs[key]
            if best is None or run.value > best.value:
                best = run
        return best

    def solution(self) -> frozenset:
        """The maintained independent set S_t."""
        best = self._best()
        return frozenset() if best is None else best.solution

    @property
    def value(self) -> float:
        """f(S_t) (known without a new query)."""
        best = self._best()
        return self._empty_value if best is None else best.value

    @property
    def levels(self) -> int:
        """i* of the run whose solution is output."""
        best = self._best()
        return 0 if best is None else len(best.levels) - 1

    def invariant_violations(self) -> list[str]:
        """Invariants 1-5 of the paper (survivor, starter, weight, independent, terminator),
        recomputed from their definitions in every run with calls that are not counted, and
        Appendix B's routing (each element sits in exactly the runs with f(v) <= MAX <= 2k f(v)/ε);
        an empty list when all hold."""
        f, k = self._oracle.f, self._oracle.matchoid.rank
        found = []
        for element, keys in self._present.items():
            if self.max_value is not None:
                expected: set = {None}
            else:
                singleton = float(f(frozenset({element})))
                expected = set()
                if singleton > 0:
                    centre = math.floor(math.log2(singleton))
                    # log₂(2k/ε) as a difference and 2^j capped at 2^1023 (as _run_keys): ε = 5e-324 gave
                    # inf and int(inf)'s OverflowError
                    span = int(math.log2(2 * k) - math.log2(self.eps))
                    top = 2 * k * singleton / self.eps
                    expected = {j for j in range(centre - 2, min(centre + span + 3, _MAX_EXPONENT + 1))
                                if singleton <= math.ldexp(1.0, j) <= top}
            if self._current_mode():
                expected &= set(self._runs)
                keys = tuple(key for key in keys if key in self._runs)
            if set(keys) != expected:
                found.append(f"routing: {element!r} is in runs {sorted(keys, key=str)}, not "
                             f"{sorted(expected, key=str)}")
        if self._current_mode():
            top = self._top_exponent()
            if set(self._runs) != (set() if top is None else {top}):
                found.append(f"current guess: runs {sorted(self._runs)} kept, not the one of "
                             f"⌈log₂ max f(v)⌉ = {top}")
        for key, run in self._runs.items():
            max_value = self.max_value if key is None else 2.0**key
            mine = {e for e, keys in self._present.items() if key in keys}
            threshold = self.eps * max_value / (2 * k)
            found += [f"run {key}: {v}" for v in run.violations(f, mine, threshold)]
        return found

    # ---- updates ----------------------------------------------------------------------------
    def _run_keys(self, singleton: float) -> tuple:
        if self.max_value is not None:
            if singleton > self.max_value:
                raise ValueError(f"max_value must bound every f({{e}}); got f({{e}}) = {singleton!r} > "
                                 f"max_value = {self.max_value!r}")
            return (None,)
        if singleton <= 0:
            return ()  # Δ(e | A) <= f(e) <= 0: it can never pass a positive threshold
        top = 2 * self._oracle.matchoid.rank * singleton / self.eps
        mantissa, low = math.frexp(singleton)  # singleton = mantissa·2^low, mantissa in [1/2, 1)
        if mantissa == 0.5:
            low -= 1  # an exact power of two: 2^(low - 1) itself is the least power >= it
        if low > _MAX_EXPONENT:  # no guess 2^j >= f({e}) is a float: the element joined no run (Success, 0)
            raise ValueError(f"f({{e}}) = {singleton!r} exceeds 2**1023, so no guessed MAX = 2^j bounds it "
                             f"(f's singletons must be at most 2**1023 ≈ 9e307 for max_value=None); "
                             f"rescale f")
        keys = []
        exponent = low
        while exponent <= _MAX_EXPONENT and math.ldexp(1.0, exponent) <= top:  # top = inf for ε = 5e-324
            keys.append(exponent)
            exponent += 1
        return tuple(keys)

    def _run(self, key: int | None) -> _Run:
        run = self._runs.get(key)
        if run is None:
            salt = 0 if key is None else 2 * abs(key) + (key < 0) + 1
            rng = np.random.default_rng(np.random.SeedSequence([self._entropy, salt]))
            max_value = self.max_value if key is None else math.ldexp(1.0, key)
            run = _Run(self._oracle, self.eps, max_value, self.q, self.c, self._empty_value, rng)
            self._runs[key] = run
        return run

    def _apply(self, keys: tuple, action: str, element, *args) -> None:
        created = [key for key in keys if key not in self._runs]
        touched = [self._run(key) for key in keys]
        for run in touched:
            run.begin()
        try:
            for run in touched:
                getattr(run, action)(element, *args)
        except BaseException:
            for run in touched:
                run.rollback()
            for key in created:
                del self._runs[key]
            raise

    def insert(self, e: Hashable) -> None:
        """Insert element ``e`` (absent now)."""
        check_hashable("e", e)
        if e in self._present:
            raise ValueError(f"e = {e!r} is already present; delete it before inserting it again")
        if not self._oracle.matchoid.covers(e):
            raise ValueError(f"e = {e!r} lies in no matroid of the matchoid (its rank bound k would not "
                             "hold); add a matroid whose ground set holds it")
        check_in_domain("e", self._oracle.f, e)  # was the function's own error, naming subset
        self._sample_submodularity(e)
        singleton = self._oracle.value(frozenset({e}))
        keys = self._run_keys(singleton)
        if self._current_mode():
            self._update_current("insert", e, singleton, keys)
            return
        self._apply(keys, "insert", e, singleton)  # every run reuses f({e}) at its level 1
        self._present[e] = keys

    def _sample_submodularity(self, e: Hashable) -> None:
        """At each of the first :data:`SUBMODULARITY_TESTS` inserts that find an element present, one seeded
        diminishing-returns test of ``f`` with the new element (as :class:`MatchoidMaximization` samples
        its f when built; f(S) = |S|² ran without complaint): four calls of the raw f, not counted as value
        queries. A failed test raises naming ``f`` before the state changes."""
        if self._dr_tests >= SUBMODULARITY_TESTS or not self._present:
            return
        rng = random.Random(self._dr_tests)
        self._dr_tests += 1
        present = list(self._present)
        B = frozenset(rng.sample(present, min(len(present), 6)))
        A = frozenset(rng.sample(sorted(B, key=repr), rng.randint(0, len(B) - 1)))
        refuse_increasing_returns(self._oracle.f, A, B, e, monotone=self.monotone)

    def delete(self, e: Hashable) -> None:
        """Delete element ``e`` (present now)."""
        check_hashable("e", e)
        if e not in self._present:
            raise ValueError(f"e = {e!r} is absent; only a present element can be deleted")
        check_present("e", e, self._present)
        if self._current_mode():
            self._update_current("delete", e, self._singletons[e], self._present[e])
            return
        self._apply(self._present[e], "delete", e)
        del self._present[e]

    # ---- max_guess="current": one run, MAX = 2^⌈log₂ M_t⌉ ----------------------------------------
    def _current_mode(self) -> bool:
        return self.max_value is None and self.max_guess == "current"

    def _top_exponent(self) -> int | None:
        """⌈log₂ M_t⌉ (the least j with 2ʲ >= every present f(v) > 0), None when no f(v) > 0."""
        return max(self._exponents) if self._exponents else None

    def _update_current(self, action: str, e: Hashable, singleton: float, keys: tuple) -> None:
        """Apply an update in ``max_guess="current"`` mode: the kept run takes it when ⌈log₂ M_t⌉ stays
        (and e is routed to it, as in Appendix B); otherwise the run of the new exponent is built by
        Init on the present elements routed to it. A rejected update changes nothing."""
        exponent = keys[0] if keys else None        # ⌈log₂ f(v)⌉: the first run v is routed to
        counts = self._exponents.copy()
        if exponent is not None:
            counts[exponent] += 1 if action == "insert" else -1
            counts += Counter()                     # drops the exponents no present element has
        top = max(counts) if counts else None
        if top is not None and top in self._runs:
            args = (singleton,) if action == "insert" else ()
            self._apply((top,) if top in keys else (), action, e, *args)
        elif top is not None:
            present = {**self._present, e: keys} if action == "insert" else {
                x: k for x, k in self._present.items() if x != e}
            singletons = {**self._singletons, e: singleton}
            run = self._fresh_run(top)
            for x, x_keys in present.items():       # Init: rate sampling of the routed elements, then levels
                if top in x_keys and run.rng.random() < run.q:
                    run.levels[0].survivors.add(x, singletons[x])
            run.build()
            self._rebuilds += 1
            self._runs = {top: run}
        if top is None:
            self._runs = {}
        self._exponents = counts
        if action == "insert":
            self._present[e], self._singletons[e] = keys, singleton
        else:
            del self._present[e], self._singletons[e]

    def _fresh_run(self, key: int) -> _Run:
        """A run for MAX = 2^key with coins of its own (a new stream per build: a rebuild of the same
        key draws fresh coins)."""
        salt = 2 * abs(key) + (key < 0) + 1
        rng = np.random.default_rng(np.random.SeedSequence([self._entropy, salt, self._rebuilds + 1]))
        return _Run(self._oracle, self.eps, math.ldexp(1.0, key), self.q, self.c, self._empty_value, rng)

    def __repr__(self) -> str:
        return (f"DynamicMatchoidMaximizer(eps={self.eps}, p={self.matchoid.p}, k={self.matchoid.rank}, "
                f"present={len(self._present)}, value={self.value:.6g}, queries={self.queries})")


@dataclass(frozen=True)
class DynamicMatchoid(Algorithm):
    """The paper's dynamic algorithm over an :class:`UpdateStream` (see the module docstring).

    ``eps`` in (0, 1) and at least 1.18e-38 (the working range's smallest positive scale: 5e-324 is
    refused by name); ``max_value`` the paper's MAX when known: a float in [M, 2M] for M = max f({e}) over
    the stream's elements (the paper's max f(v) <= MAX <= 2 max f(v); below M is refused at the first
    larger insert, above 2M before the run, each naming max_value; any MAX in range when every f({e}) = 0;
    Theorem 1.1 needs the range at every time t, over the elements present then: a fixed MAX suits streams
    whose largest f({e}) stays within a factor 2, else leave it None and let MAX be guessed)
    (None: guessed, every f({e}) then at most 2**1023 ≈ 9e307, else refused naming f({e}); by Appendix B's
    parallel runs with ``max_guess="parallel"``, the default, or by our
    ``max_guess="current"``: one run for the MAX valid now, rebuilt by Init when ⌈log₂ max f(v)⌉
    changes, see the module docstring); ``monotone`` selects Proposition 1.3's parameters (f's
    monotonicity is then sampled, see :class:`DynamicMatchoidMaximizer`). ``tol`` has no effect (the method
    has no tolerance: ``solve`` warns); ``maxiters`` caps the updates processed.

    Retcodes: ``Success`` when every update of the stream was processed and every
    maintained solution S_t passed the matchoid's independence check; ``MaxIters`` when
    ``maxiters`` (a cap on the number of updates processed) stopped it first;
    ``Diverged`` when f returned a non-finite value mid-stream; ``Failure`` when f returned
    a negative value (the theorem needs f >= 0), a matroid oracle proved inconsistent, or a
    solution failed the independence check; ``Terminated`` when the callback asked to stop.
    On any stop, ``x`` is the last maintained solution (a rejected update changes nothing).

    The trace (``store_trace=True``) has one record per update: ``time``, ``update``,
    ``element``, ``value`` f(S_t), ``queries`` (cumulative), ``update_queries``, ``size`` and
    ``levels``; ``sol.original`` is the :class:`DynamicMatchoidMaximizer` (its
``stop_reason`` says why a run stopped early).

    >>> from algorithms import solve
    >>> from algorithms.submodular import Matchoid, UniformMatroid, UpdateStream
    >>> stream = UpdateStream(len, Matchoid([UniformMatroid(2)]), [("insert", e) for e in range(6)])
    >>> sol = solve(stream, DynamicMatchoid(eps=0.1), seed=0)
    >>> sol.retcode, bool(sol.value == sol.x.sum())
    (<RetCode.Success: 'Success'>, True)

    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    """

    eps: float = 0.1
    max_value: float | None = None
    monotone: bool = False
    max_guess: str = "parallel"

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _check_eps(self.eps))  # a Fraction or np.float32 stored as a float
        object.__setattr__(self, "max_value", _check_max_value(self.max_value))
        object.__setattr__(self, "monotone", check_bool("monotone", self.monotone))  # numpy bools too
        check_choice("max_guess", self.max_guess, MAX_GUESSES)


def run_stream(problem: UpdateStream, options: SolveOptions, step: Callable[[str, Hashable], Any],
               current: Callable[[], tuple[frozenset, float]], queries: Callable[[], int],
               extra: Callable[[], dict]) -> tuple[RetCode, int, list[dict], str]:
    """Drive ``step`` over the stream with the retcode rules of :class:`DynamicMatchoid`."""
    cap = options.iterations(len(problem.updates))
    monitor = IterationMonitor(options, total=min(cap, len(problem.updates)), desc="updates")
    retcode, processed, message = RetCode.Success, 0, ""
    try:
        for t, (kind, element) in enumerate(problem.updates):
            if t >= cap:
                retcode = RetCode.MaxIters
                break
            before = queries()
            try:
                step(kind, element)
            except NonFiniteValueError as exc:
                retcode, message = RetCode.Diverged, str(exc)
                break
            except (NegativeValueError, InconsistentOracleError) as exc:
                retcode, message = RetCode.Failure, str(exc)
                break
            processed += 1
            chosen, value = current()
            if not problem.matchoid.is_independent(chosen):
                retcode, message = RetCode.Failure, f"S_{t + 1} failed the independence check"
                break
            stop = monitor.record(time=t + 1, update=kind, element=element, value=value,
                                  queries=queries(), update_queries=queries() - before, size=len(chosen),
                                  **extra())
            if stop:
                retcode = RetCode.Terminated
                break
    finally:
        monitor.close()
    return retcode, processed, monitor.trace, message


def _check_max_value_bound(problem: UpdateStream, max_value: float | None) -> None:
    """The upper side of the paper's MAX, max f({e}) <= MAX <= 2 max f({e}) over the stream's elements: a
    loose one (100 for f = |S|) put every threshold εMAX/(2k) above every gain, so the run selected nothing
    and reported Success with f = 0, far below Theorem 1.1's bound. Raw calls of f (not counted in the
    queries); a value the run itself refuses (negative, non-finite, an exception) is left to its retcodes."""
    if max_value is None:
        return
    largest = 0.0
    for element in problem.universe:
        try:
            value = float(problem.f(frozenset([element])))
        except Exception:  # the run calls f again and reports it by its rules
            return
        if not (math.isfinite(value) and value >= 0):
            return
        largest = max(largest, value)
    if largest > 0 and max_value > 2 * largest:
        raise ValueError(f"max_value = {max_value!r} exceeds 2·max f({{e}}) = {2 * largest!r} over the "
                         f"stream's elements: the paper's MAX lies in [max f({{e}}), 2·max f({{e}})] (above "
                         f"it every threshold εMAX/(2k) passes every gain and nothing is selected); give a "
                         f"MAX in that range or None (guessed)")


@_dispatch
def _solve(problem: UpdateStream, algorithm: DynamicMatchoid, options: SolveOptions) -> Solution:
    problem.recheck_matroids()  # a user matroid changed since construction
    _check_max_value_bound(problem, algorithm.max_value)
    dm = DynamicMatchoidMaximizer(problem.f, problem.matchoid, eps=algorithm.eps, seed=options.seed,
                                  max_value=algorithm.max_value, monotone=algorithm.monotone,
                                  max_guess=algorithm.max_guess)

    def step(kind: str, element) -> None:
        (dm.insert if kind == "insert" else dm.delete)(element)

    retcode, processed, trace, message = run_stream(
        problem, options, step, lambda: (dm.solution(), dm.value), lambda: dm.queries,
        lambda: {"levels": dm.levels})
    stats = Stats(iterations=processed, f_calls=dm.value_queries)
    dm._stop_reason = message
    return Solution(x=problem.indicator(dm.solution()), value=float(dm.value), retcode=retcode,
                    stats=stats, trace=trace, original=dm)
