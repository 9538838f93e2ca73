"""The query counter every method of the family evaluates ``f`` and the matroids through.

The paper measures an algorithm by its oracle queries: value queries f(S) and
independence queries "is S ∩ Vⱼ independent in Mⱼ?". :class:`CountingOracle` counts both
and checks every value: the theorems need f >= 0, so a negative value raises
:class:`NegativeValueError` and a NaN/inf one :class:`NonFiniteValueError` (both are
``ValueError`` naming ``f``). Methods turn them into retcodes (``Failure`` / ``Diverged``).

>>> from algorithms.submodular import Matchoid, UniformMatroid
>>> oracle = CountingOracle(len, Matchoid([UniformMatroid(2)]))
>>> oracle.value(frozenset({1, 2})), oracle.independent(0, frozenset({1, 2, 3}))
(2.0, False)
>>> oracle.value_queries, oracle.independence_queries, oracle.queries
(1, 1, 2)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from algorithms._validation import (
    UserCallableError,
    _brief,
    call_user,
    check_int_at_least,
    check_takes,
    returned_scalar,
)
from algorithms.submodular.matroids import Matchoid, _Sealed, as_subset, check_hashable, elements_of
from algorithms.submodular.matroids import _shown as _show

#: a user callable's ValueError/TypeError passes as it is; any other exception it raises is named
_PASS = (ValueError, TypeError)

__all__ = ["CountingOracle", "InconsistentOracleError", "NegativeValueError", "NonFiniteValueError"]


class NonFiniteValueError(ValueError):
    """f returned NaN or inf."""


class NegativeValueError(ValueError):
    """f returned a negative value (the approximation theorems need f >= 0)."""


class _ProbeRaised(UserCallableError, TypeError):
    """f raised at its probe f(frozenset()): a UserCallableError as at every later call (f(S) raised ...),
    and a TypeError as this refusal has always been."""


class InconsistentOracleError(ValueError):
    """A matroid's independence oracle contradicted the matroid axioms (detected where cheap)."""


def check_set_function(f) -> Callable[[frozenset], float]:
    """Raise a TypeError naming ``f`` unless it is callable."""
    if not callable(f) or isinstance(f, type):  # a class (GraphCut itself) is callable but builds, not values
        raise TypeError(f"f must be a callable f(frozenset) -> float (an instance, not a class), got "
                        f"{type(f).__name__} {f!r:.60}")
    check_takes("f", f, "f(frozenset)", 1)  # lambda: 1.0 met Python's own TypeError at the first call
    # one probe at the empty set, so a problem with an f that answers None, a str, NaN or -1, or that
    # cannot take a frozenset at all (an nn.Module: torch's "linear(): argument 'input' must be Tensor")
    # is refused where it is built, not accepted and failing inside a solve
    try:
        raw = f(frozenset())
    except Exception as exc:
        raise _ProbeRaised(f"f must be a set function f(frozenset) -> float; f(frozenset()) raised "
                           f"{type(exc).__name__}: {exc}") from exc
    checked_value(raw, frozenset())
    return f


def _exact(raw: Any) -> int | Fraction | None:
    """``raw`` as an exact Python number when it holds more than a float64 keeps: an int (a numpy int, a
    0-d int array or tensor), a Fraction or other rational, a finite Decimal or a finite float wider than
    float64 (np.longdouble) as the Fraction it equals; None for a float64 or narrower float (exact as it
    is). Rounded to float64, Decimal 1 + 4e-30 tied with 1 and BruteForce returned the wrong set."""
    if type(raw).__module__.startswith("torch") and hasattr(raw, "detach"):
        raw = raw.detach()
        return None if raw.is_floating_point() else int(raw.item())  # a bool tensor was refused
    if isinstance(raw, np.ndarray):  # 0-d (returned_scalar refused any other shape)
        raw = raw[()]
    if isinstance(raw, bool | np.bool_):
        return None
    if isinstance(raw, numbers.Integral):
        return int(raw)
    if isinstance(raw, Fraction):
        return raw
    if isinstance(raw, numbers.Rational):
        return Fraction(int(raw.numerator), int(raw.denominator))
    if isinstance(raw, Decimal):
        return Fraction(raw) if raw.is_finite() else None
    if isinstance(raw, np.floating) and np.finfo(raw.dtype).nmant > np.finfo(np.float64).nmant:
        return Fraction(*raw.as_integer_ratio()) if np.isfinite(raw) else None
    return None


def checked_value(raw: Any, subset: frozenset, *, exact: bool = False) -> float | int | Fraction:
    """``raw`` = f(subset) as a float, finite and >= 0, else an error naming f and the set. With ``exact``, an
    answer holding more than a float64 (an int, a Fraction, a Decimal, an np.longdouble) is returned exactly,
    as an int or Fraction (the methods compare gains in it: 10**17 + |S| rounded to float64 made every gain
    0, and an exact method returned the empty set with Success)."""
    try:  # a str "1" was parsed by float(), a bool counted as 0/1, a 1-element list unpacked
        value = returned_scalar("f", raw)
    except TypeError as exc:
        raise TypeError(f"f must return a real number, got {type(raw).__name__} for S = "
                        f"{_show(subset)}") from exc
    if not math.isfinite(value):
        raise NonFiniteValueError(f"f returned a non-finite value {value!r} for S = {_show(subset)}")
    exact_value = _exact(raw)
    if value < 0 or (exact_value is not None and exact_value < 0):  # Decimal -1e-400 rounds to -0.0
        shown = repr(value) if value < 0 else _brief(raw)
        raise NegativeValueError(f"f must be non-negative (the theorem needs f >= 0), got "
                                 f"f(S) = {shown} for S = {_show(subset)}")
    return exact_value if exact and exact_value is not None else value


def check_matchoid(matchoid) -> Matchoid:
    if not isinstance(matchoid, Matchoid):
        raise TypeError(f"matchoid must be an algorithms.submodular.Matchoid, got {type(matchoid).__name__}")
    return matchoid


class SealedAfterInit(_Sealed):
    """An object whose public attributes are fixed once ``__init__`` calls :meth:`_seal`: assigning or
    deleting one raises a TypeError naming it (a name it does not have:
    ``UnknownAttributeError``; its settings were checked when it was built; a later write was
    used unchecked or ignored in silence). Private names (``_x``) stay the object's own working state."""

    _OWN_STATE = True


class CountingOracle(SealedAfterInit):
    """``f`` and the matchoid's independence oracles behind one counter. ``f``, ``matchoid`` and the counts
    cannot be set after construction (a TypeError naming the attribute; a name it does not have, such as a
    misspelt ``querys``, raises the README's ``UnknownAttributeError`` naming it). A user's subclass is not
    sealed (its ``__init__`` may set attributes of its own)."""

    def __init__(self, f: Callable[[frozenset], float], matchoid: Matchoid) -> None:
        self._f = check_set_function(f)
        self._matchoid = check_matchoid(matchoid)
        self._value_queries = 0
        self._independence_queries = 0
        self._seal(CountingOracle)  # a user's subclass is not sealed (its __init__ may set more; red23b)

    def _init_args(self) -> tuple:
        return self._f, self._matchoid, self._value_queries, self._independence_queries

    @classmethod
    def _from_args(cls, args: tuple) -> CountingOracle:
        f, matchoid, value_queries, independence_queries = args
        built = cls(f, matchoid)
        for name, count in (("value_queries", value_queries), ("independence_queries", independence_queries)):
            # a loaded state's counts: value_queries = -5 was restored and reported
            object.__setattr__(built, f"_{name}", check_int_at_least(name, count, 0))
        return built

    @property
    def f(self) -> Callable[[frozenset], float]:
        return self._f

    @property
    def matchoid(self) -> Matchoid:
        return self._matchoid

    @property
    def value_queries(self) -> int:
        return self._value_queries

    @property
    def independence_queries(self) -> int:
        return self._independence_queries

    @property
    def queries(self) -> int:
        return self.value_queries + self.independence_queries

    def value(self, subset: frozenset) -> float:
        """f(subset), counted and checked (finite, >= 0). ``subset`` is a set of elements: a frozenset, or any
        collection :func:`~algorithms.submodular.matroids.elements_of` takes (a list, tuple, set or range of
        hashables), converted to the frozenset ``f`` receives. Every element must lie in some matroid of the
        matchoid (its ground set), as the problems require; one outside is refused by name."""
        # a list reached f as is; unhashable members met f's own error (as_subset in exact_value)
        return float(self.exact_value(subset))

    def exact_value(self, subset: frozenset) -> float | int | Fraction:
        """:meth:`value` of ``subset`` (a set of elements of the matchoid's ground set, as for :meth:`value`),
        with an int or Fraction answer of ``f`` kept exact (the methods compare its gains in exact arithmetic;
        a float answer is returned as a float)."""
        subset = as_subset("subset", subset)
        outside = [e for e in subset if not self.matchoid.covers(e)]
        if outside:  # MatchoidMaximization and UpdateStream refuse such an element; the oracle answered
            raise ValueError(f"subset holds {len(outside)} element(s) in no matroid of the matchoid (outside "
                             f"its ground set): {_show(frozenset(outside))}")
        self._value_queries += 1
        # the user's own KeyError reached the caller bare: named (ValueError/TypeError pass)
        return checked_value(call_user("f(S)", self.f, subset, keep=_PASS), subset, exact=True)

    def _matroid(self, j: Any):
        """Matroid j of the matchoid, j an int in [0, number of matroids) (5 gave an IndexError)."""
        count = len(self.matchoid.matroids)
        if isinstance(j, bool | np.bool_) or not isinstance(j, int | np.integer) or not 0 <= j < count:
            raise ValueError(f"j must be a matroid index in [0, {count}), got {j!r}")
        return self.matchoid.matroids[j]

    def independent(self, j: int, subset: frozenset) -> bool:
        """Whether ``subset`` (a subset of matroid j's ground set) is independent in matroid ``j`` (an int in
        [0, number of matroids))."""
        matroid = self._matroid(j)
        subset = as_subset("subset", subset)
        self._independence_queries += 1
        answer = call_user(f"matroids[{j}].is_independent(S)", matroid.is_independent, subset, keep=_PASS)
        if not isinstance(answer, bool | np.bool_):  # a truthy "yes" (or None) counted as an answer
            raise TypeError(f"matroids[{j}].is_independent must return a bool, got {type(answer).__name__} "
                            f"{answer!r:.40}")
        return bool(answer)

    def restrict(self, j: int, elements: Iterable[Hashable]) -> frozenset:
        """The elements of ``elements`` in matroid ``j``'s ground set (``j`` an int in [0, number of
        matroids))."""
        matroid = self._matroid(j)
        members = elements_of("elements", elements)  # None, a number, a dict: by name
        if matroid.ground is None:
            return frozenset(members)
        return frozenset(e for e in members if e in matroid.ground)

    def can_add(self, solution: frozenset, element: Hashable) -> bool:
        """Whether solution + element stays independent (solution is independent)."""
        solution = as_subset("solution", solution)
        check_hashable("element", element)
        for j in self.matchoid.matroids_of(element):
            if not self.independent(j, self.restrict(j, solution) | {element}):
                return False
        return True


