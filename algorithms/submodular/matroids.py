"""Matroids as independence oracles, and the p-matchoid built from them.

A matroid here is an independence oracle on its own ground set: ``is_independent(S)``
answers for a set ``S`` of elements of that ground set (callers intersect first), and
``in_ground(e)`` says whether ``e`` belongs to it. Elements are any hashables, compared as set members
are: ``True`` is the element ``1`` and ``1.0`` too (Python's ``True == 1 == 1.0``, one hash), so a
ground set of ints takes them as that int; use distinct labels (str, tuples) where they must differ. A
torch tensor (hashed by identity: two tensor(1) would be two elements) is refused as an element, naming the
argument (a 1-D tensor as a collection too: pass ``t.tolist()``); numpy scalars and 1-D arrays are taken.
A :class:`Matchoid` joins m matroids: S is independent iff S ∩ Vᵢ is independent in every Mᵢ;
``p`` is the most matroids any element lies in and ``rank`` bounds the size of its largest
independent set.

>>> from algorithms.submodular import Matchoid, PartitionMatroid, UniformMatroid
>>> colours = PartitionMatroid({0: "red", 1: "red", 2: "blue"}, capacity=1)
>>> m = Matchoid([colours, UniformMatroid(2)])
>>> m.p, m.rank, m.is_independent(frozenset({0, 2})), m.is_independent(frozenset({0, 1}))
(2, 2, True, False)
"""

from __future__ import annotations

import functools
import itertools
import random
import sys
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from algorithms._validation import _brief, call_user, check_int_at_least, refuse_unknown_attribute

#: a user callable's ValueError/TypeError passes as it is; any other exception it raises is named
_PASS = (ValueError, TypeError)

__all__ = ["GraphicMatroid", "LaminarMatroid", "Matchoid", "Matroid", "PartitionMatroid", "UniformMatroid"]


def check_hashable(name: str, element: Any) -> Hashable:
    """Raise a TypeError naming ``name`` unless ``element`` can be a set member, and a ValueError for one not
    equal to itself (a float NaN: sets find it by identity, lists by ==, so a delete of it broke the dynamic
    algorithm's levels with an IndexError and left them corrupted)."""
    try:
        hash(element)
    except TypeError as exc:
        raise TypeError(f"{name} must be hashable (elements are set members), got "
                        f"{type(element).__name__} {element!r}") from exc
    _refuse_identity_hashed(name, element)
    try:
        unequal = element != element
        unequal = bool(unequal)
    except Exception:  # an element whose comparison is not a bool: left to the methods
        unequal = False
    if unequal:
        raise ValueError(f"{name} must equal itself (an element is found by ==), got {element!r}")
    return element


def _number_kind(x: Any) -> str | None:
    """bool, int or float for the numbers that compare (and hash) equal across kinds (True == 1 == 1.0)."""
    if isinstance(x, bool | np.bool_):
        return "bool"
    if isinstance(x, int | np.integer):
        return "int"
    if isinstance(x, float | np.floating):
        return "float"
    return None


def check_present(name: str, element: Any, present: Iterable[Hashable]) -> None:
    """``element`` (found in ``present`` by ``==``) must be the present element itself, not a number of
    another kind equal to it: delete(True) deleted element 1 (True == 1) though insert(True) is refused."""
    kind = _number_kind(element)
    if kind is None:
        return
    for stored in present:
        if stored == element and _number_kind(stored) not in (None, kind):
            raise ValueError(f"{name} = {element!r} is a {kind} standing for the present element {stored!r} "
                             f"(kind {_number_kind(stored)}); delete the element as it was inserted")


def _refuse_identity_hashed(name: str, element: Any) -> None:
    """A torch tensor hashes by identity while its == compares entries: two tensor(1) were two elements, and
    UniformMatroid(2, torch.arange(5)) had a ground set without the element 2 (TypeError naming ``name``)."""
    torch = sys.modules.get("torch")  # not imported here: a tensor exists only where torch is loaded
    if torch is not None and isinstance(element, torch.Tensor):
        raise TypeError(f"{name} must be hashable by value (elements are set members), got a torch tensor, "
                        f"which hashes by identity (two tensor(1) would be two elements): pass t.item() or, "
                        f"for a collection, t.tolist()")


def elements_of(name: str, value: Any, *, sequence: bool = False) -> list:
    """The members of a collection argument (a subset, a ground set, a list of elements) as a list: a set,
    frozenset, list, tuple, range, 1-D array or iterator. Refused by name: a str or bytes (its characters
    are not the elements meant), a mapping (its keys would be taken silently), a 0-d array and any
    non-iterable (Python's "'int' object is not iterable" named nothing), and unhashable members or members
    not equal to themselves (a float NaN)."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable) or (
            isinstance(value, np.ndarray) and value.ndim != 1):
        raise TypeError(f"{name} must be a set of elements (a set, frozenset, list, tuple or iterator), got "
                        f"{type(value).__name__} {_brief(value)}")
    if sequence and isinstance(value, Iterator):  # a generator: one-shot, consumed by the first reader
        raise TypeError(f"{name} must be a sequence (a list, tuple, range or 1-D array), got "
                        f"{type(value).__name__}")
    members = list(value)
    for element in members:
        try:
            hash(element)
        except TypeError:
            raise TypeError(f"{name} must hold hashable elements (set members), got {type(element).__name__} "
                            f"{_brief(element)}") from None
        # a NaN member (not equal to itself): UniformMatroid(1, [0, nan]) was built, as every other matroid
        # refused its NaN element by name
        check_hashable(f"{name} element", element)
    return members


def as_subset(name: str, subset: Any) -> frozenset:
    """``subset`` as a frozenset (the same object when it is one, its float members checked to equal
    themselves: a NaN in a ready-made frozenset was taken by a matroid with no finite ground, where a list
    holding it is refused), through :func:`elements_of`."""
    if type(subset) is frozenset:
        tensor = getattr(sys.modules.get("torch"), "Tensor", None)  # None: no torch loaded, no tensor to meet
        for element in subset:
            if isinstance(element, float | np.floating) and element != element:
                check_hashable(f"{name} element", element)
            elif tensor is not None and isinstance(element, tensor):
                _refuse_identity_hashed(f"{name} element", element)
        return subset
    return frozenset(elements_of(name, subset))


class ReadOnlyMap(Mapping):
    """A read-only mapping that pickles and copies (a mappingproxy does neither: a problem holding a
    PartitionMatroid could no longer be deep-copied): ``m[k] = v`` is a TypeError."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping) -> None:
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self) -> tuple:
        return ReadOnlyMap, (self._data,)

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError("a read-only mapping cannot be changed")


class _Sealed:
    """Built-in constraint objects are immutable once built: their arguments were checked in ``__init__``,
    so ``UniformMatroid(2).k = "x"`` (or a ``Matchoid``'s ``rank = 0``) stored an unchecked value that the
    solvers then met in Python's operators. A user's subclass is not sealed (its ``__init__`` may set
    more). An object with working state of its own (``_OWN_STATE``) keeps its private names (``_x``)
    writable once sealed."""

    __slots__ = ()

    #: whether private names stay writable once sealed (a maximizer's or an oracle's working state)
    _OWN_STATE = False

    def _seal(self, cls: type | None = None) -> None:
        """Seal the object when its type is ``cls`` (a user's subclass stays open), or always (no ``cls``)."""
        if cls is None or type(self) is cls:
            object.__setattr__(self, "_sealed", True)

    def _is_sealed_for(self, name: str) -> bool:
        return getattr(self, "_sealed", False) and not (self._OWN_STATE and name.startswith("_"))

    def __setattr__(self, name: str, value: Any) -> None:
        if self._is_sealed_for(name):
            refuse_unknown_attribute(self, name, ())  # a misspelt name: the README's UnknownAttributeError
            kind = type(self).__name__
            raise TypeError(f"{name} cannot be set after construction: {kind} is immutable (its arguments "
                            f"are checked when it is built); build a new {kind}, got {name} = {value!r:.40}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._is_sealed_for(name):
            raise TypeError(f"{name} cannot be deleted: {type(self).__name__} is immutable")
        object.__delattr__(self, name)

    def _init_args(self) -> tuple | None:
        """The constructor's arguments that build this object again (None: pickled as its ``__dict__``)."""
        return None

    @classmethod
    def _from_args(cls, args: tuple) -> _Sealed:
        return cls(*args)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # pickled and copied as a constructor call, so a loaded object runs every check again: its __dict__
        # restored as given took capacity = -1, p = 0, NaN weights or _sealed = False unchecked (red23b)
        args = self._init_args() if getattr(self, "_sealed", False) else None
        if args is None:
            return super().__reduce_ex__(protocol)
        return _rebuilt, (type(self), args)


def _rebuilt(cls: type, args: tuple) -> _Sealed:
    """A sealed object unpickled or copied: built again by its constructor (its checks run again)."""
    return cls._from_args(args)


class Matroid(_Sealed):
    """Base class: subclasses define ``in_ground``, ``is_independent`` and ``rank``.

    ``is_independent`` is only asked about subsets of the ground set and must return a bool;
    ``rank`` is an int property, the size of the largest independent set.

    What is checked of a user's subclass (the four matroids of this module are correct by
    construction and not re-checked), by :func:`check_matroid`:

    * (a user subclass must not change after the :class:`Matchoid` is built: a changed rank is refused
      at the next solve, naming it, and the axiom checks below run again there)
    * a finite ``ground`` (a frozenset or set; another type is refused by name when a :class:`Matchoid`
      is built, and ``rank`` must be an int in [0, 2**63 - 1]) of at most ``EXHAUSTIVE_GROUND`` (10)
      elements: when a :class:`Matchoid` is built, on every subset: the empty set is independent, every
      subset of an independent set is (hereditary), any two maximal independent subsets of any set have
      the same size (exchange; checked as the submodularity of the rank), and ``rank`` is the size of
      the largest independent set;
    * a larger finite ``ground``: when a :class:`Matchoid` is built, sampled (seeded, so the same
      each time): the empty set, 12 random subsets of up to 24 elements whose greedy maximal
      independent subsets in two random orders must have the same size and be hereditary, one
      repeated query (the same answer twice), and (ground <= 4096 elements) two greedy bases of
      the whole ground whose sizes must be equal and be ``rank``;
    * ``ground = None`` (every element): when a :class:`MatchoidMaximization` or
      :class:`UpdateStream` is built, as above on the problem's elements (its universe), with a
      largest independent set no larger than ``rank``. A bare :class:`Matchoid` or a
      :class:`DynamicMatchoidMaximizer` driven by hand cannot know the elements: there the
      dynamic algorithm reports an inconsistent oracle where it notices one
      (``InconsistentOracleError``).

    A violation is a ``ValueError`` naming ``matroids[j]``, its class and a witness; an answer
    that is not a bool a ``TypeError``. A sampled check can miss a non-matroid; a passing
    exhaustive one cannot.
    """

    #: ``None``: every element; otherwise the frozenset of the ground set
    ground: frozenset | None = None

    def __init__(self) -> None:
        # a bare Matroid() is sealed as the built-in matroids are (m.seeed = 0.5 was stored: heldout22); a
        # user's subclass stays open, whether or not its __init__ calls this one
        self._seal(Matroid)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every subclass's ``is_independent`` takes its ``subset`` through :func:`as_subset` (a frozenset
        is passed as it is): None, a number or a str met ``len()``'s or iteration's own TypeError; and, with
        a finite ``ground``, refuses elements outside it by name (a KeyError inside the lookup before)."""
        super().__init_subclass__(**kwargs)
        method = cls.__dict__.get("is_independent")
        if method is None or getattr(method, "_subset_checked", False):
            return

        @functools.wraps(method)
        def is_independent(self: Matroid, subset: Any) -> bool:
            subset = as_subset("subset", subset)
            if self.ground is not None and not subset <= self.ground:  # was a KeyError inside the lookup
                outside = subset - self.ground
                raise ValueError(f"subset must be a subset of the matroid's ground set ({len(self.ground)} "
                                 f"elements); {len(outside)} element(s) are not in it: {_shown(outside)}")
            return method(self, subset)

        is_independent._subset_checked = True  # type: ignore[attr-defined]
        cls.is_independent = is_independent  # type: ignore[method-assign]

    def in_ground(self, element: Hashable) -> bool:
        """Whether ``element`` (a hashable) is in the ground set."""
        check_hashable("element", element)  # a list met Python's "unhashable type" (or True: no ground)
        return self.ground is None or element in self.ground

    def is_independent(self, subset: frozenset) -> bool:  # pragma: no cover - abstract
        """Whether ``subset`` is independent. ``subset`` is a set (or frozenset) of ground-set elements.
        Abstract: a subclass defines it (the base class's raises a TypeError naming it)."""
        raise TypeError(f"{type(self).__name__}.is_independent is abstract: subclass Matroid and define "
                        f"is_independent(subset) and the rank property (Matroid() itself is no matroid)")

    @property
    def rank(self) -> int:  # pragma: no cover - abstract
        """The size of the largest independent set (an int property); abstract, as ``is_independent``."""
        raise TypeError(f"{type(self).__name__}.rank is abstract: subclass Matroid and define the rank "
                        f"property (and is_independent)")


class UniformMatroid(Matroid):
    """Sets of at most ``k`` elements of ``ground`` (``None``: of every element); ``k`` is an int >= 1
    (a rank-0 matroid would make every run return the empty set, so it is refused as a likely slip).
    ``ground`` holds hashable elements, each equal to itself (a float NaN is refused naming ground, as by
    every matroid: elements are found by ==).

    >>> UniformMatroid(2).is_independent(frozenset({"a", "b", "c"}))
    False
    """

    def __init__(self, k: int, ground: Iterable[Hashable] | None = None) -> None:
        self.k = check_int_at_least("k", k, 1)
        if ground is not None:
            ground = frozenset(elements_of("ground", ground))  # a dict, a 0-d array, a str: by name
        self.ground = ground
        self._seal(UniformMatroid)

    def _init_args(self) -> tuple:
        return self.k, self.ground

    def is_independent(self, subset: frozenset) -> bool:
        """Whether ``subset`` is independent. ``subset`` is a set (or frozenset) of ground-set elements."""
        return len(subset) <= self.k

    @property
    def rank(self) -> int:
        return self.k if self.ground is None else min(self.k, len(self.ground))

    def __repr__(self) -> str:
        return f"UniformMatroid(k={self.k}, ground={'all' if self.ground is None else len(self.ground)})"


class PartitionMatroid(Matroid):
    """At most ``capacity[part]`` elements from each part; ``part_of`` maps element -> part.

    Elements not in ``part_of`` are outside its ground set. ``capacity`` is one int for
    every part or a mapping part -> int (>= 0), with an entry for every part and none for a part no
    element has (a misspelt part is refused by name). Capacities that are all 0 are valid (a rank-0
    matroid: every run returns the empty set, unlike ``UniformMatroid``, whose k >= 1), and so is an empty
    ``part_of`` (a rank-0 matroid on an empty ground set).

    >>> PartitionMatroid({1: "x", 2: "x", 3: "y"}, {"x": 1, "y": 1}).is_independent(frozenset({1, 3}))
    True
    """

    def __init__(self, part_of: Mapping[Hashable, Hashable], capacity: int | Mapping[Hashable, int]) -> None:
        if not isinstance(part_of, Mapping):
            raise TypeError(f"part_of must be a mapping element -> part, got {type(part_of).__name__}")
        for element, part in part_of.items():
            check_hashable("part_of key", element)
            check_hashable("part_of value", part)
        parts = set(part_of.values())
        if isinstance(capacity, Mapping):
            missing = parts - set(capacity)
            if missing:
                raise ValueError(f"capacity has no entry for part(s) {sorted(map(repr, missing))}")
            unknown = set(capacity) - parts
            if unknown:  # {'x': 1, 'zz': 2}: a capacity for a part no element has (a typo) was dropped
                raise ValueError(f"capacity has entries for part(s) no element of part_of belongs to: "
                                 f"{sorted(map(repr, unknown))}; the parts are {sorted(map(repr, parts))}")
            caps = {part: check_int_at_least(f"capacity[{part!r}]", capacity[part], 0) for part in parts}
        else:
            cap = check_int_at_least("capacity", capacity, 0)
            caps = dict.fromkeys(parts, cap)
        # read-only views: capacity["a"] = -3 written after construction was used by is_independent in silence
        self.part_of = ReadOnlyMap(part_of)
        self.capacity = ReadOnlyMap(caps)
        self.ground = frozenset(part_of)
        self._seal(PartitionMatroid)

    def _init_args(self) -> tuple:
        return dict(self.part_of), dict(self.capacity)

    def is_independent(self, subset: frozenset) -> bool:
        """Whether ``subset`` is independent. ``subset`` is a set (or frozenset) of ground-set elements."""
        counts: dict[Hashable, int] = {}
        for element in subset:
            part = self.part_of[element]
            counts[part] = counts.get(part, 0) + 1
            if counts[part] > self.capacity[part]:
                return False
        return True

    @property
    def rank(self) -> int:
        sizes: dict[Hashable, int] = {}
        for part in self.part_of.values():
            sizes[part] = sizes.get(part, 0) + 1
        return sum(min(size, self.capacity[part]) for part, size in sizes.items())

    def __repr__(self) -> str:
        return f"PartitionMatroid(ground={len(self.ground)}, parts={len(self.capacity)})"


def _equals_itself(value: Any) -> bool:
    """``value == value`` as a plain True (False for NaN, or for an object whose == fails or is no bool)."""
    try:
        return (value == value) is True or bool(np.bool_(value == value))
    except Exception:  # an == that raises or answers an array: no usable vertex
        return False


class GraphicMatroid(Matroid):
    """Edge sets without a cycle; ``endpoints`` maps element (edge) -> (u, v), hashable vertices that equal
    themselves (a NaN vertex is refused by name).

    A self-loop ``(u, u)`` is dependent on its own; parallel edges form a cycle. The
    cycle test is networkx's union-find.

    >>> g = GraphicMatroid({"ab": ("a", "b"), "bc": ("b", "c"), "ca": ("c", "a")})
    >>> g.is_independent(frozenset({"ab", "bc"})), g.is_independent(frozenset({"ab", "bc", "ca"})), g.rank
    (True, False, 2)
    """

    def __init__(self, endpoints: Mapping[Hashable, tuple[Hashable, Hashable]]) -> None:
        if not isinstance(endpoints, Mapping):
            raise TypeError(f"endpoints must be a mapping element -> (u, v), got {type(endpoints).__name__}")
        for element, edge in endpoints.items():
            check_hashable("endpoints key", element)
            if not isinstance(edge, tuple) or len(edge) != 2:
                raise ValueError(f"endpoints[{element!r}] must be a pair (u, v), got {edge!r}")
            for vertex in edge:
                check_hashable(f"endpoints[{element!r}] vertex", vertex)
                if not _equals_itself(vertex):  # NaN: networkx's union-find looped until memory ran out
                    raise ValueError(f"endpoints[{element!r}] vertex must equal itself (a NaN never does), "
                                     f"got {vertex!r}")
        self.endpoints = ReadOnlyMap(endpoints)  # read-only: the rank was computed from it
        self.ground = frozenset(endpoints)
        graph = nx.MultiGraph()
        graph.add_edges_from(self.endpoints.values())
        self._rank = graph.number_of_nodes() - nx.number_connected_components(graph)
        self._seal(GraphicMatroid)

    def _init_args(self) -> tuple:
        return (dict(self.endpoints),)

    def is_independent(self, subset: frozenset) -> bool:
        """Whether ``subset`` is independent. ``subset`` is a set (or frozenset) of ground-set elements."""
        forest = nx.utils.UnionFind()
        for element in subset:
            u, v = self.endpoints[element]
            if forest[u] == forest[v]:
                return False
            forest.union(u, v)
        return True

    @property
    def rank(self) -> int:
        return self._rank

    def __repr__(self) -> str:
        return f"GraphicMatroid(edges={len(self.ground)}, rank={self._rank})"


class LaminarMatroid(Matroid):
    """At most ``capacities[j]`` elements from ``sets[j]``; any two sets are disjoint or nested.

    The ground set is the union of ``sets`` (a sequence of collections of hashable elements);
    ``capacities`` holds one int per set, each in [0, 2**63) (0: no element of that set).

    >>> lam = LaminarMatroid([{1, 2, 3, 4}, {1, 2}], [2, 1])
    >>> lam.is_independent(frozenset({1, 3})), lam.is_independent(frozenset({1, 2})), lam.rank
    (True, False, 2)
    """

    def __init__(self, sets: Sequence[Iterable[Hashable]], capacities: Sequence[int]) -> None:
        if isinstance(sets, str | bytes) or not isinstance(sets, Sequence):
            raise TypeError(f"sets must be a sequence of element sets, got {type(sets).__name__}")
        if isinstance(capacities, str | bytes) or not isinstance(capacities, Sequence):
            raise TypeError(f"capacities must be a sequence of ints, got {type(capacities).__name__}")
        if len(sets) != len(capacities):
            raise ValueError(f"sets and capacities must have the same length, got {len(sets)} and "
                             f"{len(capacities)}")
        family = []
        for j, members in enumerate(sets):
            if isinstance(members, str | bytes) or not isinstance(members, Iterable):
                raise TypeError(f"sets[{j}] must be an iterable of elements, got {type(members).__name__}")
            family.append(frozenset(check_hashable(f"sets[{j}] element", e) for e in members))
        caps = [check_int_at_least(f"capacities[{j}]", c, 0) for j, c in enumerate(capacities)]
        for a in range(len(family)):
            for b in range(a + 1, len(family)):
                common = family[a] & family[b]
                if common and not (family[a] <= family[b] or family[b] <= family[a]):
                    raise ValueError(f"sets must be laminar (disjoint or nested); sets[{a}] and sets[{b}] "
                                     "overlap without nesting")
        self.sets = tuple(family)
        self.capacities = tuple(caps)
        self.ground = frozenset().union(*family) if family else frozenset()
        self._containing = {e: [j for j, s in enumerate(family) if e in s] for e in self.ground}
        basis: frozenset = frozenset()
        for element in sorted(self.ground, key=repr):  # greedy builds a basis of any matroid
            if self.is_independent(basis | {element}):
                basis = basis | {element}
        self._rank = len(basis)
        self._seal(LaminarMatroid)

    def _init_args(self) -> tuple:
        return self.sets, self.capacities

    def is_independent(self, subset: frozenset) -> bool:
        """Whether ``subset`` is independent. ``subset`` is a set (or frozenset) of ground-set elements."""
        counts = [0] * len(self.sets)
        for element in subset:
            for j in self._containing[element]:
                counts[j] += 1
                if counts[j] > self.capacities[j]:
                    return False
        return True

    @property
    def rank(self) -> int:
        return self._rank

    def __repr__(self) -> str:
        return f"LaminarMatroid(sets={len(self.sets)}, ground={len(self.ground)})"


_BUILTIN_MATROIDS = (UniformMatroid, PartitionMatroid, GraphicMatroid, LaminarMatroid)


#: a user matroid whose ground set has at most this many elements is checked on every subset
EXHAUSTIVE_GROUND = 10
#: a larger one: this many random subsets of at most ``_SAMPLE_SIZE`` elements
_SAMPLE_TRIALS = 12
_SAMPLE_SIZE = 24
#: a greedy basis of the whole ground (its size against ``rank``) up to this many elements
_BASIS_GROUND = 4096


def _shown(elements: Iterable) -> str:
    """A set of elements for a message: sorted by repr, at most 8 shown."""
    items = sorted(elements, key=repr)
    return "{" + ", ".join(map(repr, items[:8])) + (", ..." if len(items) > 8 else "") + "}"


def check_matroid(name: str, matroid: Matroid, elements: Iterable[Hashable] | None = None) -> None:
    """Check a user's matroid against the matroid axioms on ``elements`` (default: its finite ground set),
    as documented on :class:`Matroid`; the package's own four matroids pass without a query. ``elements``
    given (a ``ground = None`` matroid on a problem's universe): ``rank`` is only an upper bound there.

    >>> class Pairs(Matroid):  # only the empty set, singletons and {0, 1}: no exchange
    ...     ground = frozenset({0, 1, 2})
    ...     def is_independent(self, subset):
    ...         return len(subset) <= 1 or subset == {0, 1}
    ...     rank = 2
    >>> check_matroid("matroids[0]", Pairs())
    Traceback (most recent call last):
    ...
    ValueError: matroids[0] (Pairs) is not a matroid (exchange axiom): {2} and {0, 1} are independent, \
but no element of {0, 1} can be added to {2} (both are maximal independent subsets of {0, 1, 2})
    """
    if type(matroid) in _BUILTIN_MATROIDS:
        return
    label = f"{name} ({type(matroid).__name__})"
    exact = elements is None
    if exact:
        if matroid.ground is None:
            return
        members = list(matroid.ground)
    else:
        members = list(dict.fromkeys(elements))
    try:
        members.sort(key=repr)
    except Exception:  # a repr that raises: keep the set's order
        pass
    answers: dict[frozenset, bool] = {}

    def independent(subset: frozenset) -> bool:
        if subset not in answers:
            answer = call_user(f"{name}.is_independent(S)", matroid.is_independent, subset, keep=_PASS)
            if not isinstance(answer, bool | np.bool_):
                raise TypeError(f"{name}.is_independent must return a bool, got {type(answer).__name__} "
                                f"{answer!r:.40} for {_shown(subset)}")
            answers[subset] = bool(answer)
        return answers[subset]

    if not independent(frozenset()):
        raise ValueError(f"{label} is not a matroid: the empty set must be independent")
    rank = matroid.rank
    if len(members) <= EXHAUSTIVE_GROUND:
        _check_exhaustive(label, name, matroid, members, independent, rank, exact)
    else:
        _check_sampled(label, name, matroid, members, independent, rank, exact)


def _hereditary_error(label: str, subset: frozenset, missing: Hashable) -> ValueError:
    return ValueError(f"{label} is not a matroid (hereditary axiom): {_shown(subset)} is independent but its "
                      f"subset {_shown(subset - {missing})} is not")


def _exchange_error(label: str, small: frozenset, large: frozenset, within: frozenset) -> ValueError:
    return ValueError(f"{label} is not a matroid (exchange axiom): {_shown(small)} and {_shown(large)} are "
                      f"independent, but no element of {_shown(large - small)} can be added to "
                      f"{_shown(small)} (both are maximal independent subsets of {_shown(within)})")


def _rank_error(name: str, rank: Any, basis: frozenset, exact: bool) -> ValueError:
    want = ("the size of every maximal independent set" if exact
            else "at least the size of any independent set")
    return ValueError(f"{name}.rank must be {want}, got rank = {rank!r}, but the maximal independent set "
                      f"{_shown(basis)} has {len(basis)} element(s)")


def _check_exhaustive(label, name, matroid, members, independent, rank, exact) -> None:
    n = len(members)
    sets = [frozenset(members[i] for i in range(n) if mask >> i & 1) for mask in range(1 << n)]
    indep = [independent(s) for s in sets]
    best = [0] * (1 << n)  # a largest independent subset of each mask, as a mask
    for mask in range(1 << n):
        if indep[mask]:
            for i in range(n):
                if mask >> i & 1 and not indep[mask ^ (1 << i)]:
                    raise _hereditary_error(label, sets[mask], members[i])
            best[mask] = mask
        else:
            for i in range(n):
                if mask >> i & 1:
                    sub = best[mask ^ (1 << i)]
                    if sub.bit_count() > best[mask].bit_count():
                        best[mask] = sub
    size = [b.bit_count() for b in best]
    for mask in range(1 << n):
        outside = [i for i in range(n) if not mask >> i & 1]
        for a, i in enumerate(outside):
            for j in outside[a + 1:]:
                both = mask | (1 << i) | (1 << j)
                if size[mask | (1 << i)] + size[mask | (1 << j)] < size[both] + size[mask]:
                    # r(X+i) = r(X+j) = r(X) = k < r(X+i+j): a basis of X is maximal in X+i+j, of size k
                    raise _exchange_error(label, sets[best[mask]], sets[best[both]], sets[both])
    largest = sets[best[(1 << n) - 1]]
    _check_repeat(label, matroid, largest)
    if rank != len(largest) if exact else rank < len(largest):
        raise _rank_error(name, rank, largest, exact)


def _check_repeat(label: str, matroid: Matroid, subset: frozenset) -> None:
    """Ask again about an independent set (the answers above are cached): a random oracle changes its mind."""
    answer = call_user(f"{label}.is_independent(S)", matroid.is_independent, subset, keep=_PASS)
    if not (isinstance(answer, bool | np.bool_) and answer):
        raise ValueError(f"{label} is not a deterministic oracle: is_independent({_shown(subset)}) answered "
                         f"True, then False")


def _check_sampled(label, name, matroid, members, independent, rank, exact) -> None:
    rng = random.Random(0)

    def greedy(order: list) -> frozenset:
        chosen: frozenset = frozenset()
        for element in order:
            if independent(chosen | {element}):
                chosen = chosen | {element}
        return chosen

    for _ in range(_SAMPLE_TRIALS):
        within = rng.sample(members, min(len(members), _SAMPLE_SIZE))
        first = greedy(within)
        second = greedy(rng.sample(within, len(within)))
        for element in first:
            if not independent(first - {element}):
                raise _hereditary_error(label, first, element)
        if len(first) != len(second):
            small, large = sorted((first, second), key=len)
            raise _exchange_error(label, small, large, frozenset(within))
    _check_repeat(label, matroid, first)
    if len(members) <= _BASIS_GROUND:
        basis = greedy(rng.sample(members, len(members)))
        other = greedy(rng.sample(members, len(members)))
        if len(basis) != len(other):
            small, large = sorted((basis, other), key=len)
            raise _exchange_error(label, small, large, frozenset(members))
        if rank != len(basis) if exact else rank < len(basis):
            raise _rank_error(name, rank, basis, exact)


#: a given Matchoid rank is checked exactly (every subset enumerated) on ground sets up to this many elements
EXACT_RANK_ELEMENTS = 12


class Matchoid(_Sealed):
    """A p-matchoid: S is independent iff S ∩ Vᵢ is independent in every matroid Mᵢ.

    ``p`` is the largest number of matroids an element lies in (a matroid whose ground
    is every element counts for all). ``rank`` is k, the size of the largest independent
    set, when given (checked: at most the upper bound below, at least a greedy independent set's
    size, and exactly, by enumeration, when the matroids' ground sets hold at most 12 elements in all; a
    problem checks it again against its own elements; a value outside is refused by name); otherwise an
    upper bound: the smallest rank of a
    matroid whose ``ground`` is None (it covers every element), else the sum of the ranks (every element must
    lie in some matroid, or the rank would be unbounded; a finite ground, even one holding every element of
    the others, is not read as "every element": pass ``rank`` for a tighter value). The dynamic
    algorithm's threshold uses it (a larger
    bound only lowers the threshold; see the note).

    >>> from algorithms.submodular import GraphicMatroid, UniformMatroid
    >>> m = Matchoid([GraphicMatroid({0: (0, 1), 1: (1, 2)}), UniformMatroid(1)])
    >>> m.p, m.rank, m.matroids_of(1)
    (2, 1, (0, 1))
    """

    def __init__(self, matroids: Sequence[Matroid], rank: int | None = None) -> None:
        if isinstance(matroids, Matroid) or not isinstance(matroids, Sequence) or not matroids:
            raise TypeError(f"matroids must be a non-empty sequence of Matroid, got {matroids!r}")
        for j, matroid in enumerate(matroids):
            if not isinstance(matroid, Matroid):
                raise TypeError(f"matroids[{j}] must be a Matroid, got {type(matroid).__name__}")
            rank_of = matroid.rank
            if isinstance(rank_of, bool) or not isinstance(rank_of, int | np.integer) or rank_of < 0:
                # a subclass defining rank as a method met int()'s "argument must be ... not 'method'"
                raise TypeError(f"matroids[{j}].rank must be an int >= 0 (a property), got "
                                f"{type(rank_of).__name__} {rank_of!r:.40}")
            if rank_of > 2**63 - 1:  # a count: 2**64 was taken as the matchoid's rank
                raise ValueError(f"matroids[{j}].rank must be <= 2**63 - 1, got {rank_of!r:.40}")
            if matroid.ground is not None and not isinstance(matroid.ground, frozenset | set):
                # a list met "'<=' not supported between frozenset and list"; a generator is used up once
                raise TypeError(f"matroids[{j}].ground must be None or a frozenset of elements, got "
                                f"{type(matroid.ground).__name__}")
            check_matroid(f"matroids[{j}]", matroid)  # a user's subclass against the axioms (see Matroid)
        self.matroids = tuple(matroids)
        #: each matroid's rank when this matchoid was built: a user's matroid changed afterwards is refused
        #: at the next solve (see the problems' ``recheck_matroids``)
        self.built_ranks = tuple(int(m.rank) for m in self.matroids)
        self._everywhere = tuple(j for j, m in enumerate(self.matroids) if m.ground is None)
        membership: dict[Hashable, list[int]] = {}
        for j, matroid in enumerate(self.matroids):
            if matroid.ground is not None:
                for element in matroid.ground:
                    membership.setdefault(element, []).append(j)
        self._membership = {e: tuple(sorted(js + list(self._everywhere))) for e, js in membership.items()}
        self.p = max([len(self._everywhere)] + [len(js) for js in self._membership.values()])
        if self.p == 0:
            raise ValueError("matroids: no element lies in any matroid (every ground set is empty)")
        if self._everywhere:
            bound = min(self.matroids[j].rank for j in self._everywhere)
        else:
            bound = sum(m.rank for m in self.matroids)
        bound = max(int(bound), 1)
        if rank is None:
            rank = bound
        else:
            rank = check_int_at_least("rank", rank, 1)
            if rank > bound:  # rank = 7 on a matchoid whose largest independent set is smaller was stored
                raise ValueError(f"rank must be the size of the largest independent set, at most {bound} "
                                 f"(the matroids' ranks bound it), got {rank}")
            exact = self._exact_rank()
            if exact is not None and rank != exact:  # a small finite ground: the largest set, by enumeration
                count = len(self._finite_ground())
                side = "at least" if rank < exact else "at most"
                raise ValueError(f"rank must be the size of the largest independent set, {side} {exact}: "
                                 f"exactly {exact} (every subset of the {count} ground elements enumerated), "
                                 f"got {rank}")
            found = self._greedy_independent()
            if rank < len(found):
                raise ValueError(f"rank must be the size of the largest independent set, at least "
                                 f"{len(found)} (a greedy independent set has that many), got {rank}")
        self.rank = rank
        self._seal(Matchoid)

    def _init_args(self) -> tuple:
        return self.matroids, self.rank

    @classmethod
    def _from_args(cls, args: tuple) -> Matchoid:
        matroids, rank = args
        built = cls(matroids)  # the rank it derives; a rank given at construction is checked as given
        return built if built.rank == rank else cls(matroids, rank)

    def _finite_ground(self) -> list:
        return sorted(frozenset().union(*(m.ground for m in self.matroids if m.ground is not None)), key=repr)

    def _exact_rank(self) -> int | None:
        """The size of the largest independent set when every matroid has a ground set of at most
        :data:`EXACT_RANK_ELEMENTS` elements in all (their subsets enumerated, largest first), else None (a
        free matroid or a larger ground: only the bounds are checked)."""
        if self._everywhere:
            return None
        ground = self._finite_ground()
        if len(ground) > EXACT_RANK_ELEMENTS:
            return None
        for size in range(len(ground), 0, -1):
            if any(self.is_independent(frozenset(c)) for c in itertools.combinations(ground, size)):
                return size
        return 0

    def _greedy_independent(self) -> frozenset:
        """A maximal independent set of the finite ground sets' union (at most 10000 elements looked at):
        a lower bound on the largest independent set, to check a given ``rank``."""
        ground = sorted(frozenset().union(*(m.ground for m in self.matroids if m.ground is not None)),
                        key=repr)[:10_000]
        chosen: frozenset = frozenset()
        for element in ground:
            if self.is_independent(chosen | {element}):
                chosen = chosen | {element}
        return chosen

    def covers(self, element: Hashable) -> bool:
        """Whether ``element`` (hashable) lies in at least one matroid's ground set."""
        check_hashable("element", element)  # a list answered False (or True with a free matroid)
        return bool(self._everywhere) or element in self._membership

    def matroids_of(self, element: Hashable) -> tuple[int, ...]:
        """Indices of the matroids whose ground set holds ``element`` (hashable)."""
        check_hashable("element", element)
        return self._membership.get(element, self._everywhere)

    def is_independent(self, subset: Iterable[Hashable]) -> bool:
        """S ∩ Vᵢ independent in every Mᵢ (elements in no matroid are unconstrained); ``subset`` a collection
        of hashable elements (see :func:`elements_of`)."""
        subset = as_subset("subset", subset)
        for matroid in self.matroids:
            part = subset if matroid.ground is None else subset & matroid.ground
            # a user matroid's own KeyError reached the caller bare: named
            if part and not call_user(f"{type(matroid).__name__}.is_independent(S)", matroid.is_independent,
                                      part, keep=_PASS):
                return False
        return True

    def __repr__(self) -> str:
        return f"Matchoid({len(self.matroids)} matroids, p={self.p}, rank={self.rank})"
