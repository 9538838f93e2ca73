"""Problem types of the family: a static instance and a stream of insertions and deletions.

``sol.x`` of every method is the indicator vector of the chosen set over the problem's
``universe`` (a tuple of elements, in a fixed order), in the float type of ``f``
(``f.dtype`` when it has one, else float64); ``problem.decode(sol.x)`` gives the frozenset.

>>> from algorithms.submodular import Matchoid, UniformMatroid, UpdateStream
>>> stream = UpdateStream(len, Matchoid([UniformMatroid(1)]), [("insert", "a"), ("insert", "b"),
...                                                           ("delete", "a")])
>>> stream.universe, stream.decode([0.0, 1.0])
(('a', 'b'), frozenset({'b'}))
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms._validation import revalidate_if_reassigned
from algorithms.core import Problem
from algorithms.submodular.functions import check_in_domain
from algorithms.submodular.matroids import (
    EXACT_RANK_ELEMENTS,
    Matchoid,
    check_hashable,
    check_matroid,
    check_present,
    elements_of,
)
from algorithms.submodular.oracle import _show, as_subset, check_matchoid, check_set_function

__all__ = ["MatchoidMaximization", "UpdateStream"]

UPDATE_KINDS = ("insert", "delete")


def _float_type(f) -> type:
    dtype = getattr(f, "dtype", None)
    return np.float32 if dtype is np.float32 or dtype == np.dtype(np.float32) else np.float64


class _SetProblem(Problem):
    universe: tuple

    def _check_submodular_sample(self) -> None:
        """The sampled diminishing-returns tests documented on :class:`MatchoidMaximization`; an f that
        raises, or answers a non-number, NaN or a negative value on a sampled set, is left to the solve's
        own reports (no test then)."""
        elements = list(self.universe)
        if len(elements) < 2:
            return
        rng = random.Random(0)
        for _ in range(8):
            size = rng.randint(1, min(len(elements) - 1, 6))
            drawn = rng.sample(elements, size + 1)
            e, B = drawn[0], frozenset(drawn[1:])
            A = frozenset(rng.sample(sorted(B, key=repr), rng.randint(0, size - 1)))
            if not refuse_increasing_returns(self.f, A, B, e):
                return

    def _check_rank(self) -> None:
        """The matchoid's ``rank`` k against this problem's elements: a greedy independent set among them
        larger than k refutes it (a rank given for a matroid without a ground set, such as
        ``Matchoid([UniformMatroid(2)], rank=1)``, could not be checked before the elements were known)."""
        found: set = set()
        for e in self.universe:
            if self.matchoid.is_independent(frozenset(found | {e})):
                found.add(e)
                if len(found) > self.matchoid.rank:
                    raise ValueError(f"matchoid rank = {self.matchoid.rank} must be the size of the largest "
                                     f"independent set, but {len(found)} of these elements are independent: "
                                     f"{_show(frozenset(found))}")
        rank = self.matchoid.rank
        if len(self.universe) <= EXACT_RANK_ELEMENTS and len(self.universe) > rank:  # enumerated: exact
            for S in itertools.combinations(self.universe, rank + 1):
                if self.matchoid.is_independent(frozenset(S)):
                    raise ValueError(f"matchoid rank = {rank} must be the size of the largest independent "
                                     f"set, but {rank + 1} of these elements are independent: "
                                     f"{_show(frozenset(S))}")

    def recheck_matroids(self) -> None:
        """Called by every solve: a user's matroid changed after construction (its rank, or answers that
        break the axioms) is refused by name; the stale rank bound or a non-matroid ran before, in silence.
        The package's own matroids are immutable and pass without a query."""
        pairs = zip(self.matchoid.matroids, self.matchoid.built_ranks, strict=True)
        for j, (matroid, rank) in enumerate(pairs):
            if matroid.rank != rank:
                raise ValueError(f"matroids[{j}].rank changed after the Matchoid was built ({rank} -> "
                                 f"{matroid.rank!r}); build a new Matchoid and problem for it")
            check_matroid(f"matroids[{j}]", matroid, self.universe if matroid.ground is None else None)
        self._check_p()
        self._check_rank()

    def _check_p(self) -> None:
        """The matchoid's p as its matroids give it: one set past the seal (object.__setattr__(m, "p", 5))
        sampled SampleGreedy/DynamicMatchoid with it, a Success in silence (red23b)."""
        matroids = self.matchoid.matroids
        everywhere = sum(1 for m in matroids if m.ground is None)
        counts: dict[Hashable, int] = {}
        for m in matroids:
            for element in m.ground or ():
                counts[element] = counts.get(element, 0) + 1
        p = max([everywhere] + [everywhere + c for c in counts.values()])
        if self.matchoid.p != p:
            raise ValueError(f"Matchoid.p = {self.matchoid.p!r} is not its matroids' p = {p} (changed after "
                             f"the Matchoid was built); build a new Matchoid and problem")

    def _check_free_matroids(self) -> None:
        """A user's matroid with ``ground = None`` checked on this problem's elements (see Matroid)."""
        for j, matroid in enumerate(self.matchoid.matroids):
            if matroid.ground is None:
                check_matroid(f"matroids[{j}]", matroid, self.universe)

    def indicator(self, chosen: Iterable[Hashable]) -> np.ndarray:
        """The 0/1 vector of ``chosen`` (a subset of ``universe``) over ``universe``."""
        revalidate_if_reassigned(self)  # universe replaced since construction (object.__setattr__), as solve
        chosen = as_subset("chosen", chosen)
        unknown = chosen.difference(self.universe)
        if unknown:  # an element outside the universe was dropped from the vector in silence
            raise ValueError(f"chosen must be a subset of universe, got elements outside it: "
                             f"{sorted(map(repr, unknown))[:5]}")
        return np.array([e in chosen for e in self.universe], dtype=self.dtype)

    def decode(self, x) -> frozenset:
        """The set whose 0/1 indicator over ``universe`` is ``x``."""
        revalidate_if_reassigned(self)  # universe replaced since construction: decoded against it in silence
        x = np.asarray(x)
        if x.shape != (len(self.universe),):
            raise ValueError(f"x must have shape ({len(self.universe)},), got {x.shape}")
        if x.dtype.kind not in "biuf":  # the str "0" is truthy: every element was chosen
            raise TypeError(f"x must be a numeric 0/1 indicator, got dtype {x.dtype}")
        if not np.all((x == 0) | (x == 1)):  # NaN, 0.5 or -1 counted as chosen
            raise ValueError(f"x must be a 0/1 indicator over universe, got entries "
                             f"{np.unique(x[(x != 0) & (x != 1)])[:5].tolist()}")
        return frozenset(e for e, xi in zip(self.universe, x) if xi)


@dataclass(frozen=True)
class MatchoidMaximization(_SetProblem):
    """max f(S) over S ⊆ ``elements`` independent in ``matchoid``; f >= 0 submodular, not monotone.

    What is checked of ``f``: that it is callable with one argument, and at every query that it returns a
    finite real >= 0 (else the solve ends ``Failure``/``Diverged``, or raises naming ``f``): f's values are
    not held to the working range, any finite float64 >= 0 is used as it is (f = 1e39·|S| is solved; a
    sum of in-range weights may pass 3.4e38). Greedy, SampleGreedy, BruteForce and RecomputeFromScratch
    compare an answer that holds more than a float64 exactly, as the Fraction it equals: an int (also a
    numpy int, a 0-d int array or tensor), a Fraction, a finite decimal.Decimal, an np.longdouble
    (10**17 + |S| keeps its gains of 1, Decimal 1 + k·1e-20 its order); a float64 or narrower float in
    float64. DynamicMatchoid works in float64 (each answer rounded). Its
    submodularity is sampled when the problem is built (an exhaustive check costs 2^n evaluations): 8
    seeded diminishing-returns tests f(A ∪ {e}) − f(A) >= f(B ∪ {e}) − f(B) − 1e-9·max|f| (the four values;
    a violation at rounding level passes) for A ⊂ B ⊆ ``elements``,
    e ∉ B (32 evaluations of f); a failed one is refused naming ``f`` and the sets (f(S) = |S|² ran
    with Success). Passing them is no proof: a non-submodular f that passes runs without the paper's
    guarantee.

    Every element must lie in some matroid of ``matchoid`` (its ground set is their union); one in
    none is refused, naming ``elements`` (so is an ``UpdateStream`` insert of one). ``elements`` is any
    collection of distinct hashable elements: a list, tuple, range, set or a generator (read once; the
    problem keeps the checked tuple, in iteration order); a str, a mapping or a non-iterable is refused.
    An empty collection is valid: its only independent set is the empty set, the answer (``Success``).
    """

    f: Callable[[frozenset], float]
    matchoid: Matchoid
    elements: Sequence[Hashable]
    universe: tuple = field(init=False, repr=False)
    dtype: type = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_set_function(self.f)
        check_matchoid(self.matchoid)
        # a dict, a 0-d array, a str: by name (a generator is read once and kept as the checked tuple)
        universe = tuple(elements_of("elements", self.elements))
        if len(set(universe)) != len(universe):
            raise ValueError("elements must not repeat an element")
        # an element in no matroid is outside the matchoid's ground set (the union of the Vᵢ): nothing
        # constrains it and the rank bound k would not hold (the dynamic algorithm refuses it too)
        for i, e in enumerate(universe):  # an element outside a ready-made f's ground set, by its position
            check_in_domain(f"elements[{i}]", self.f, e)
        uncovered = [(i, e) for i, e in enumerate(universe) if not self.matchoid.covers(e)]
        if uncovered:
            i, e = uncovered[0]
            raise ValueError(f"elements[{i}] = {e!r} lies in no matroid of the matchoid ({len(uncovered)} "
                             f"such element(s)); the ground set is the union of the matroids' ground sets: "
                             f"add a matroid that holds it or drop it")
        object.__setattr__(self, "universe", universe)
        # kept as the checked tuple: the caller's list could grow after construction (unchecked elements)
        # and a generator would be left exhausted in the field
        object.__setattr__(self, "elements", universe)
        object.__setattr__(self, "dtype", _float_type(self.f))
        self._check_free_matroids()
        self._check_rank()
        self._check_submodular_sample()


@dataclass(frozen=True)
class UpdateStream(_SetProblem):
    """A fully dynamic instance: ``updates`` is a sequence of ("insert", e) / ("delete", e).

    The stream must be consistent: an element is inserted only when absent and deleted
    only when present (checked here, with the position of the first offending update).
    ``universe`` lists the distinct elements in order of first appearance. ``f`` is the set function
    (a callable on frozensets, e.g. :class:`GraphCut`; checked as :class:`MatchoidMaximization`'s, its
    submodularity sampled on the stream's elements) and ``matchoid`` the :class:`Matchoid` constraint.
    """

    f: Callable[[frozenset], float]
    matchoid: Matchoid
    updates: Sequence[tuple[str, Hashable]]
    universe: tuple = field(init=False, repr=False)
    dtype: type = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_set_function(self.f)
        check_matchoid(self.matchoid)
        if isinstance(self.updates, str | bytes) or not isinstance(self.updates, Sequence):
            raise TypeError(f"updates must be a sequence of (kind, element) pairs, got "
                            f"{type(self.updates).__name__}")
        present: set = set()
        order: dict[Hashable, None] = {}
        checked = []
        for t, update in enumerate(self.updates):
            kind, element = _check_update(f"updates[{t}]", update)
            checked.append((kind, element))
            if kind == "insert":
                if element in present:
                    raise ValueError(f"updates[{t}] inserts {element!r}, which is already present")
                check_in_domain(f"updates[{t}] element", self.f, element)
                if not self.matchoid.covers(element):  # as MatchoidMaximization's elements
                    raise ValueError(f"updates[{t}] inserts {element!r}, which lies in no matroid of the "
                                     f"matchoid; add a matroid that holds it or drop it")
                present.add(element)
            else:
                if element not in present:
                    raise ValueError(f"updates[{t}] deletes {element!r}, which is absent")
                check_present(f"updates[{t}] element", element, present)
                present.discard(element)
            order.setdefault(element, None)
        object.__setattr__(self, "universe", tuple(order))
        # the checked stream, as a tuple: the caller's list could be extended after the checks (an update
        # deleting an absent element then reached the solver)
        object.__setattr__(self, "updates", tuple(checked))
        object.__setattr__(self, "dtype", _float_type(self.f))
        self._check_free_matroids()
        self._check_rank()
        self._check_submodular_sample()


def refuse_increasing_returns(f: Callable[[frozenset], Any], A: frozenset, B: frozenset, e: Hashable, *,
                              monotone: bool = False) -> bool:
    """One diminishing-returns test f(A ∪ {e}) − f(A) >= f(B ∪ {e}) − f(B) for A ⊆ B, e ∉ B (and, with
    ``monotone``, f(A ∪ {e}) >= f(A), f(B ∪ {e}) >= f(B)): a ValueError naming ``f`` when it fails; False (no
    test) when f raises or answers a non-number, NaN or a negative value (left to the queries' own reports),
    True when it passed."""
    try:
        fa, fae, fb, fbe = (float(f(S)) for S in (A, A | {e}, B, B | {e}))
    except Exception:
        return False
    values = (fa, fae, fb, fbe)
    if not all(math.isfinite(v) and v >= 0 for v in values):
        return False
    # relative to f's own values: max(1, ·) passed f(S) = 1e-12·|S|² (refused at scale 1) as submodular
    tol = 1e-9 * max(map(abs, values))
    if fae - fa < fbe - fb - tol:
        raise ValueError(
            f"f must be submodular (diminishing returns): f(A ∪ {{e}}) − f(A) = {fae - fa:.6g} < "
            f"f(B ∪ {{e}}) − f(B) = {fbe - fb:.6g} for A = {_show(A)} ⊂ B = {_show(B)}, e = {e!r}")
    if monotone and min(fae - fa, fbe - fb) < -tol:
        S, value, more = (A, fa, fae) if fae - fa < fbe - fb else (B, fb, fbe)
        raise ValueError(f"f must be monotone (monotone=True was given): f(S ∪ {{e}}) = {more:.6g} < f(S) = "
                         f"{value:.6g} for S = {_show(S)}, e = {e!r}; pass monotone=False")
    return True


def _check_update(name: str, update: Any) -> tuple[str, Hashable]:
    if not isinstance(update, tuple | list) or len(update) != 2:
        raise ValueError(f"{name} must be a pair (kind, element) with kind in {UPDATE_KINDS}, got {update!r}")
    kind, element = update
    if kind not in UPDATE_KINDS:
        raise ValueError(f"{name} kind must be one of {UPDATE_KINDS}, got {kind!r}")
    return kind, check_hashable(f"{name} element", element)
