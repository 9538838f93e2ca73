"""Box-constrained black-box problems with an evaluation budget, counted exactly.

A :class:`BlackBoxProblem` holds an objective ``f`` (``f(x) -> float`` for ``x`` of shape
``(d,)``, or ``f(X) -> (n,)`` for ``X`` of shape ``(n, d)`` when ``vectorized=True``), the
box ``bounds = (lower, upper)`` and the evaluation ``budget``. Every optimizer of the family
reaches ``f`` only through an :class:`Evaluator`, which

* never evaluates more than ``budget`` points (a batch larger than what is left is cut: the
  points beyond the budget get the worst value ``+inf`` and are never selected);
* counts every point it evaluates (``evaluations``) and every non-finite objective value
  (``nonfinite``), which it replaces by the worst value ``+inf``;
* tracks the best finite point seen so far (``best_x``, ``best_value``) and the best-so-far
  curve (``history``: one ``(evaluations, best_value)`` pair per batch).

:func:`bbob_problem` builds one of the 24 noiseless BBOB functions from ``ioh`` with its known
optimum ``f*`` and a reference value ``f_ref`` (the median of 1000 seeded uniform points, not
charged to the budget) so that the normalized regret ``(f_best − f*) / (f_ref − f*)`` is
comparable across functions.

References
----------
H. Guo, Z. Ma, Y. Ma, X. Zhang, W.-N. Chen, Y.-J. Gong. DesignX: Human-Competitive Algorithm
Designer for Black-Box Optimization. NeurIPS 2025, arXiv:2505.17866.
N. Hansen, A. Auger, R. Ros, O. Mersmann, T. Tušar, D. Brockhoff. COCO: a platform for comparing
continuous optimizers in a black-box setting. Optim. Methods Softw. 2021.

>>> import numpy as np
>>> prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), budget=10)
>>> ev = Evaluator(prob)
>>> ev(np.zeros((3, 2))).tolist(), ev.evaluations, ev.remaining
([0.0, 0.0, 0.0], 3, 7)
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from algorithms._validation import (
    C_INT_MAX,
    _refuse_masked,
    allocates,
    as_float_array,
    as_real_array,
    call_user,
    check_bool,
    check_fits_memory,
    check_int_at_least,
    check_positive,
    check_positive_int,
    check_str,
    check_takes,
    check_working_range,
    read_only,
    refuse_unknown_attribute,
    remember_validated,
    returned_scalar,
    revalidate_if_reassigned,
    to_float,
)
from algorithms.core import Problem

__all__ = ["BBOB_FUNCTIONS", "BlackBoxProblem", "Evaluator", "bbob_problem", "normalized_regret"]

#: names of the 24 noiseless BBOB functions (fid 1..24)
BBOB_FUNCTIONS = (
    "Sphere", "Ellipsoid", "Rastrigin", "BuecheRastrigin", "LinearSlope", "AttractiveSector",
    "StepEllipsoid", "Rosenbrock", "RosenbrockRotated", "EllipsoidRotated", "Discus", "BentCigar",
    "SharpRidge", "DifferentPowers", "RastriginRotated", "Weierstrass", "Schaffers10",
    "Schaffers1000", "GriewankRosenBrock", "Schwefel", "Gallagher101", "Gallagher21", "Katsuura",
    "LunacekBiRastrigin",
)


@dataclass(frozen=True, eq=False)
class BlackBoxProblem(Problem):
    """Minimize ``f`` over the box ``bounds = (lower, upper)`` with at most ``budget`` evaluations.

    ``bounds`` is a pair (lower, upper) of 1-D arrays of d reals of magnitude at most 3.4e38 (or a (2, d)
    array), lower < upper; the problem's ``dtype`` (that of ``sol.x`` and of the points ``f`` gets) is float32
    when both are float32, float64 otherwise (a float32 lower with a float64 upper is promoted to float64;
    ints and float16 too). ``budget`` is an int in [1, 2**63 - 1] with no cap of its own: it is the run's
    length by definition (a solve's time grows linearly with it; ``maxiters`` or ``target`` end a run
    earlier), and the claims probe scipy's generation horizon with 10**13.

    ``optimum`` (the known minimum value f*, optional) and ``f_ref`` (a reference value above it,
    f_ref > optimum, optional; any positive gap f_ref − optimum, 5e-324 included) define the normalized
    regret; ``target`` (optional) is the value whose reaching stops a run with ``RetCode.Success``; each of
    the three None or a real of magnitude at most 3.4e38 (the working range). ``name`` labels reports.
    ``vectorized`` (bool): ``f`` takes
    a whole population ``X`` (n, d) and returns n values, instead of one point ``x`` (d,) and a float. An
    evaluation below ``optimum`` by more than 1e-6·max(|optimum|, M), M the median of |value − optimum|
    over the first 4096 finite values the run has evaluated (1e-6 of f's scale, unit-free: float32 rounding
    of a vectorized f at its minimizer passes; f in units of 1e-10 with optimum = 1e-10 beside a value 5e-11
    does not; a median, so one evaluation of 1e30 does not widen it), shows it is not the minimum: the
    :class:`Evaluator` (so every solve) raises ``ValueError`` naming ``optimum`` there.

    Non-finite values of ``f`` (the family's rule, which replaces the README's general "a non-finite value
    ends the run ``Diverged``", as the README's retcode table states): a NaN, +inf or -inf that ``f``
    returns, at its first call or part-way through a run, is a FAILED EVALUATION, counted as +inf (the
    worst value) and in ``stats.nonfinite``; the run goes on from its other points and ends ``MaxIters``
    (budget or ``maxiters`` spent) or ``Success`` (``target`` reached) at the best finite point it saw, and
    ``Diverged`` (value NaN; x a point of the run's last population, whose value was not finite either:
    no usable point) only when no value of the run was finite. An exception that ``f``
    raises is not a failed evaluation: it ends the solve, raised naming ``f``.

    A problem copies and pickles whole (its arrays read-only again after unpickling) when ``f`` does: a
    lambda or a local function does not pickle, and ``pickle`` then raises its own error naming the function.

    >>> import numpy as np
    >>> p = BlackBoxProblem(lambda x: float(x @ x), ([-1, -1], [1, 1]), budget=100)
    >>> p.dim, p.budget
    (2, 100)
    """

    f: Any
    bounds: Any
    budget: int
    vectorized: bool = False
    optimum: float | None = None
    f_ref: float | None = None
    target: float | None = None
    name: str = "blackbox"
    lower: np.ndarray = field(init=False, repr=False)
    upper: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_str("name", self.name)
        check_takes("f", self.f, "f(X)" if self.vectorized is True else "f(x)", 1)
        if isinstance(self.bounds, np.ndarray) and self.bounds.ndim == 2 and self.bounds.shape[0] == 2:
            object.__setattr__(self, "bounds", (self.bounds[0], self.bounds[1]))   # a (2, d) array: two rows
        if not isinstance(self.bounds, tuple | list) or len(self.bounds) != 2:
            raise ValueError(f"bounds must be a pair (lower, upper), got {type(self.bounds).__name__} "
                             f"{self.bounds!r}")
        lower = as_float_array("bounds lower", self.bounds[0], ndim=1)
        upper = as_float_array("bounds upper", self.bounds[1], ndim=1)
        if lower.dtype != upper.dtype:   # float32 only when both are (the lower's dtype won: asymmetric)
            lower, upper = lower.astype(np.float64), upper.astype(np.float64)
        if lower.shape != upper.shape or lower.size == 0:
            raise ValueError(f"bounds lower and upper must be non-empty and of one shape, got "
                             f"{lower.shape} and {upper.shape}")
        if np.any(lower >= upper):
            i = int(np.argmax(lower >= upper))
            raise ValueError(f"bounds must have lower < upper in every coordinate, got lower[{i}] = "
                             f"{lower[i]!r} >= upper[{i}] = {upper[i]!r}")
        with np.errstate(over="ignore"):
            wide = ~np.isfinite(upper.astype(np.float64) - lower)
        if np.any(wide):   # upper - lower overflowed (-1e308, 1e308): uniform sampling raised OverflowError
            i = int(np.argmax(wide))
            raise ValueError(f"bounds must have a finite width upper - lower in every coordinate, got "
                             f"lower[{i}] = {lower[i]!r} and upper[{i}] = {upper[i]!r}")
        # not capped at a C int: a budget of 10**13 is the claims' probe of scipy's generation horizon
        check_positive_int("budget", self.budget)
        object.__setattr__(self, "vectorized", check_bool("vectorized", self.vectorized))   # np.False_ too
        for key in ("optimum", "f_ref", "target"):
            value = getattr(self, key)
            # numpy numbers too, never a bool; a complex one reached math.isfinite's bare TypeError
            if value is not None and (isinstance(value, bool | np.bool_)
                                      or not isinstance(value, numbers.Real)
                                      or not math.isfinite(to_float(value))):
                raise ValueError(f"{key} must be a finite number or None, got {value!r:.40}")
            if value is not None:   # a Python float (np.float32 / np.int64 were kept as given)
                # inside the working range: 1e308 (and 10**100) were kept as the optimum or the target
                object.__setattr__(self, key, check_working_range(key, to_float(value), scale=False))
        if self.optimum is not None and self.f_ref is not None and not self.f_ref > self.optimum:
            raise ValueError(f"f_ref must be > optimum, got f_ref = {self.f_ref!r} <= optimum = "
                             f"{self.optimum!r}")
        # any gap f_ref - optimum > 0 is taken (1e-38, 5e-324 too): normalized_regret divides exactly
        # (Fractions), a regret past float64 is inf; the earlier rule (gap >= 1.18e-38) was undocumented
        if self.optimum is not None and self.target is not None and self.target < self.optimum:
            raise ValueError(f"target must be >= optimum (no point reaches a value below the optimum), got "
                             f"target = {self.target!r} < optimum = {self.optimum!r}")
        object.__setattr__(self, "budget", int(self.budget))
        # read-only copies, and bounds the validated pair: the caller's arrays edited after construction
        # showed in bounds (lower/upper were copies), and problem.lower[0] = 5 changed a frozen problem
        lower, upper = read_only(lower), read_only(upper)   # immutable: no flag to set back (red18a)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "bounds", (lower, upper))
        remember_validated(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # copy.deepcopy and pickle hand the copy writable arrays (numpy drops the read-only flag), and the
        # copy's lower/upper are bounds' own: problem.lower[0] = 9 on a copy met numpy's "high - low < 0"
        state = dict(state)
        lower, upper = state.get("lower"), state.get("upper")
        if isinstance(lower, np.ndarray) and isinstance(upper, np.ndarray):
            kept = (isinstance(state.get("bounds"), tuple) and state["bounds"][0] is lower
                    and state["bounds"][1] is upper)
            lower, upper = read_only(lower), read_only(upper)   # sealed again, immutable
            state["lower"], state["upper"] = lower, upper
            if kept:
                state["bounds"] = (lower, upper)
                seen = state.get("_validated_fields")
                if isinstance(seen, dict):   # the sealed copies are the validated arrays: no rebuild
                    seen = dict(seen)
                    for name, value in (("lower", lower), ("upper", upper), ("bounds", state["bounds"])):
                        if name in seen:
                            seen[name] = (value, seen[name][1])
                    state["_validated_fields"] = seen
        self.__dict__.update(state)

    def _check_unchanged(self) -> None:
        """Before each solve (and each Evaluator built on it): no field was replaced after construction with
        ``object.__setattr__`` (a budget of -5 ran to Diverged, a lower bound above upper met numpy's
        "high - low < 0")."""
        seen = self.__dict__.get("_validated_fields", {})
        for i, name in enumerate(("lower", "upper")):
            # derived from bounds: replaced alone, a rebuild from the unchanged bounds restored it in silence
            kept = "bounds" in seen and self.bounds is seen["bounds"][0]
            if kept and getattr(self, name) is not self.bounds[i]:
                raise ValueError(f"problem.{name} was changed after construction (object.__setattr__); it is "
                                 f"bounds[{i}], derived: build a new BlackBoxProblem with other bounds")
        revalidate_if_reassigned(self)

    @property
    def dim(self) -> int:
        return int(self.lower.size)

    @property
    def dtype(self) -> np.dtype:
        return self.lower.dtype


class _History(list):
    """:attr:`Evaluator.history`: a list that is read-only in place (``ev.history.append((0, nan))`` went past
    the checks that assigning a new list gets); the evaluator appends through ``list.append``."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise ValueError("history is read-only in place (a record of the evaluations made); assign a new "
                         "list of (evaluations, best value) pairs (ev.history = [...]) to reset it")

    def __reduce__(self) -> tuple:   # copy and pickle rebuild it whole (their default appends item by item)
        return (_History, (list(self),))

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse


class Evaluator:
    """The only door to ``problem.f``: budget-capped, exactly counted, non-finite → ``+inf``.

    ``__call__(X)`` evaluates the rows of ``X`` (shape ``(n, d)``, points of the box: finite,
    lower <= x <= upper up to 1e-9 of the box's width per coordinate, a boundary handler's rounding; a row
    further out is refused naming ``X``) while budget remains and
    returns ``n`` values (``+inf`` for rows beyond the budget and for non-finite objective values).

    Its state, public and checked when set (to reset a counter, say): ``problem`` a
    :class:`BlackBoxProblem`, ``evaluations`` and ``nonfinite`` ints >= 0, ``best_value`` and
    ``first_value`` real numbers (``+inf`` before any finite value; NaN refused), ``best_x`` None or a
    finite point of ``problem.dim`` coordinates in the box (with the same 1e-9 slack; kept as a read-only
    copy), ``history`` a list of
    (evaluations, best value) pairs (read-only in place: assign a new list to change it), each count an
    int in [0, ``evaluations``] (set ``evaluations`` first), each best value a real number or +inf (NaN
    and -inf refused), counts non-decreasing and best values non-increasing along the list.
    The counts stay consistent: ``evaluations`` <= ``problem.budget``, ``nonfinite`` <= ``evaluations``, a
    finite ``best_value`` needs a ``best_x`` (set ``best_x`` first; reset with ``best_value = inf`` first),
    and a new ``problem`` must fit the evaluations made and ``best_x``. A ``best_value`` set by hand is
    taken as the value at ``best_x`` (f is not evaluated again to check it: each call spends budget), as
    a counter set by hand is taken as the evaluations made.

    ``__call__(X)`` converts the rows of ``X`` (any real dtype, a list too) to the problem's ``dtype``
    before ``f`` sees them (float32 rows of a float64 problem are promoted; an int X converted).
    """

    def __setattr__(self, name: str, value: Any) -> None:
        # the counters were plain attributes: evaluations = "0" or 1.5, best_value = None, problem = 3 were
        # kept, and the next call failed inside (a bare TypeError/AttributeError) or counted a budget of 1.5
        # ev.evaluation = 5 was stored and ignored (the count kept): a name the Evaluator does not take
        refuse_unknown_attribute(self, name, ("problem", "nonfinite", "evaluations", "best_x", "best_value",
                                              "first_value", "history"))
        if name == "problem" and not isinstance(value, BlackBoxProblem):
            raise TypeError(f"problem must be a BlackBoxProblem, got {type(value).__name__}")
        if name == "problem":
            value._check_unchanged()
            self._check_fits(value)
        if name in ("evaluations", "nonfinite"):
            value = check_int_at_least(name, value, 0)
            # evaluations = 1000 on a budget of 50 left remaining at -950; nonfinite above the evaluations
            limit, what = ((self.problem.budget, "problem.budget") if name == "evaluations" else
                           (self.__dict__.get("evaluations", 0), "evaluations"))
            if value > limit:
                raise ValueError(f"{name} must be <= {what} = {limit}, got {value}")
            if name == "evaluations" and value < self.__dict__.get("nonfinite", 0):
                raise ValueError(f"evaluations must be >= nonfinite = {self.nonfinite} (the non-finite "
                                 f"values are among the evaluations), got {value}")
        elif name in ("best_value", "first_value"):
            if isinstance(value, bool | np.bool_) or \
                    not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a real number (+inf before any finite value), got "
                                f"{type(value).__name__} {value!r:.40}")
            value = to_float(value)
            if math.isnan(value):
                raise ValueError(f"{name} must be a real number (+inf before any finite value), got nan")
            if value == -math.inf:   # no evaluation is worth -inf (a non-finite value counts as +inf)
                raise ValueError(f"{name} must be a finite value or +inf, got -inf")
            if name == "best_value" and math.isfinite(value) and self.__dict__.get("best_x") is None:
                raise ValueError(f"best_value must stay +inf while best_x is None (a best value is the value "
                                 f"of a point: set best_x first), got {value!r}")
            best, first = ((value, self.__dict__.get("first_value", math.inf)) if name == "best_value" else
                           (self.__dict__.get("best_value", math.inf), value))
            if math.isfinite(best) and best > first:   # the best can be no worse than the first value
                raise ValueError(f"{name} breaks best_value <= first_value: best_value {best!r}, first_value "
                                 f"{first!r}")
        elif name == "best_x" and value is not None:
            value = as_float_array("best_x", value, ndim=1)
            if value.shape != (self.problem.dim,):
                raise ValueError(f"best_x must be None or a point of {self.problem.dim} coordinates, got "
                                 f"shape {value.shape}")
            slack = 1e-9 * (self.problem.upper - self.problem.lower)
            if np.any(value < self.problem.lower - slack) or np.any(value > self.problem.upper + slack):
                raise ValueError(f"best_x must be a point of the box bounds, got {value.tolist()!r:.80}")
            # a read-only copy: ev.best_x[0] = 99 moved the best point out of the box past this check
            value = read_only(value)
        elif name == "best_x" and math.isfinite(self.__dict__.get("best_value", math.inf)):
            raise ValueError(f"best_x must be a point while best_value is finite ({self.best_value!r}): set "
                             f"best_value = inf first to reset the best point")
        elif name == "history":
            if not isinstance(value, list):
                raise TypeError(f"history must be a list of (evaluations, best value) pairs, got "
                                f"{type(value).__name__}")
            for entry in value:   # [("a",)] was kept
                if not (isinstance(entry, tuple | list) and len(entry) == 2
                        and isinstance(entry[0], int | np.integer)
                        and not isinstance(entry[0], bool | np.bool_)
                        and isinstance(entry[1], numbers.Real)
                        and not isinstance(entry[1], bool | np.bool_)):
                    raise TypeError(f"history must hold (evaluations, best value) pairs (an int and a real "
                                    f"number), got {entry!r:.60}")
                if math.isnan(to_float(entry[1])) or to_float(entry[1]) == -math.inf:
                    # a best value is never NaN ([(1, nan)] was kept) nor -inf (as best_value)
                    raise ValueError(f"history must hold (evaluations, best value) pairs with a best value "
                                     f"that is not NaN or -inf, got {entry!r:.60}")
                made = self.__dict__.get("evaluations", 0)
                if not 0 <= entry[0] <= made:   # [(-5, 1.0)] and [(10**9, 1.0)] on a budget of 10 were kept
                    raise ValueError(f"history must hold (evaluations, best value) pairs with evaluations in "
                                     f"[0, evaluations = {made}] (the evaluations made so far), got "
                                     f"{entry!r:.60}")
            # a run's record: evaluations grow, the best value never rises ([(1, 0.5), (0, 0.1)] was kept)
            for before, after in itertools.pairwise(value):
                if after[0] < before[0] or to_float(after[1]) > to_float(before[1]):
                    raise ValueError(f"history must have non-decreasing evaluations and non-increasing best "
                                     f"values, got {before!r:.40} then {after!r:.40}")
            value = _History(value)
        object.__setattr__(self, name, value)

    def _check_fits(self, problem: BlackBoxProblem) -> None:
        """A problem set after construction must fit what was evaluated (a 3-D problem kept a 2-D best_x)."""
        made, best = self.__dict__.get("evaluations", 0), self.__dict__.get("best_x")
        if made > problem.budget:
            raise ValueError(f"problem must have a budget >= the evaluations made ({made}), got budget "
                             f"{problem.budget}")
        if best is not None and best.shape != (problem.dim,):
            raise ValueError(f"problem must have the dimension of best_x ({best.size}), got dim "
                             f"{problem.dim}")

    def __init__(self, problem: BlackBoxProblem) -> None:
        if not isinstance(problem, BlackBoxProblem):
            raise TypeError(f"problem must be a BlackBoxProblem, got {type(problem).__name__}")
        self.problem = problem
        self.nonfinite = 0
        self.evaluations = 0
        self.best_x: np.ndarray | None = None
        self.best_value = math.inf
        self.first_value = math.inf
        self.history: list[tuple[int, float]] = []

    @property
    def remaining(self) -> int:
        return self.problem.budget - self.evaluations

    @property
    def exhausted(self) -> bool:
        return self.evaluations >= self.problem.budget

    def target_reached(self) -> bool:
        t = self.problem.target
        return t is not None and self.best_value <= t

    def __call__(self, X: np.ndarray) -> np.ndarray:
        if not isinstance(self.problem, BlackBoxProblem):   # set with object.__setattr__ (its check bypassed)
            raise TypeError(f"problem must be a BlackBoxProblem, got {type(self.problem).__name__}")
        if hasattr(X, "detach") and type(X).__module__.startswith("torch"):   # numpy's messages named no X
            if X.device.type == "meta":
                raise ValueError("X is on the meta device (no data); move it to a real device")
            if str(X.layout) != "torch.strided":   # torch's "can't convert Sparse layout tensor to numpy"
                raise TypeError(f"X must be a dense tensor, got layout {X.layout}; use .to_dense()")
            X = X.detach().cpu().numpy()
        _refuse_masked("X", X)   # np.asarray drops the mask: masked rows were evaluated as data
        try:
            X = np.asarray(X)
        except Exception as exc:   # an object whose __array__ raises, a ragged list: its own error named no X
            raise TypeError(f"X must be an array of shape (n, {self.problem.dim}), got "
                            f"{type(X).__name__} ({type(exc).__name__}: {str(exc)[:80]})") from None
        if X.dtype.kind not in "iuf":
            raise TypeError(f"X must hold real numbers, got dtype {X.dtype}")
        # the problem's dtype, as documented: float32 rows reached a float64 f (and best_x came back float32),
        # an int X reached f as ints
        X = X.astype(self.problem.dtype, copy=False)
        if X.ndim != 2 or X.shape[1] != self.problem.dim:
            raise ValueError(f"X must have shape (n, {self.problem.dim}), got {X.shape}")
        # every row a point of the box: a NaN row was evaluated (and charged to the budget), a row outside
        # the box too; 1e-9 of the width lets a boundary handler's rounding through
        slack = 1e-9 * (self.problem.upper - self.problem.lower)
        lower, upper = self.problem.lower - slack, self.problem.upper + slack
        outside = ~np.all(np.isfinite(X) & (X >= lower) & (X <= upper), axis=1)
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise ValueError(f"X must hold points of the box bounds (finite, lower <= x <= upper); row {row} "
                             f"is {X[row].tolist()!r:.80}")
        n = X.shape[0]
        out = np.full(n, np.inf)
        k = min(n, max(self.remaining, 0))
        if k == 0:
            return out
        rows = X[:k]
        # f gets copies: an f that wrote into its argument (x[0] = 0) changed the optimizer's population and
        # the reported best point, so sol.x no longer had the value sol.value
        if self.problem.vectorized:
            # complex values refused, not cut
            values = as_real_array("f(X)", call_user("f(X)", self.problem.f, rows.copy()), check_range=False)
            # (k,), or (k, 1) one value per row: a (1, k) row (or (k, 2)) was flattened into k values
            if values.shape == (k, 1):
                values = values[:, 0]
            if values.shape != (k,):
                raise ValueError(f"a vectorized f must return shape ({k},) (one value per row of X), got "
                                 f"{values.shape}")
        else:
            # the user's exceptions (a KeyError) named by the call, chained: they reached the caller bare
            values = np.array([_scalar(call_user("f(x)", self.problem.f, row.copy())) for row in rows],
                              dtype=np.float64)
        self.evaluations += k
        bad = ~np.isfinite(values)
        self._check_optimum(values, bad, rows)
        self.nonfinite += int(bad.sum())
        values = np.where(bad, np.inf, values)
        out[:k] = values
        if not math.isfinite(self.first_value) and np.any(~bad):
            self.first_value = float(values[~bad][0])
        i = int(np.argmin(values))
        if values[i] < self.best_value:
            self.best_x = rows[i].copy()   # first: a finite best_value needs its point
            self.best_value = float(values[i])
        list.append(self.history, (self.evaluations, self.best_value))
        return out

    def _check_optimum(self, values: np.ndarray, bad: np.ndarray, rows: np.ndarray) -> None:
        # a value below the stated optimum shows the optimum is wrong: its regret would be negative and
        # clipped to 0, and a target set from it reached at once (a false Success); 1e-6 (float32 rounding
        # of a vectorized f) of f's scale max(|optimum|, M): an absolute floor of 1 let f in units of 1e-10
        # with an optimum 4e-10 above its minimum pass (target reached at once). M is the median of
        # |value − optimum| over the first OPTIMUM_SAMPLE finite values: the largest value seen (before)
        # let one evaluation of 1e30 widen the slack to 1e24, and a wrong optimum 0.05 above f's minimum
        # passed with every value below it
        optimum = self.problem.optimum
        if optimum is None or bad.all():
            return
        seen = self.__dict__.get("_seen", np.empty(0))
        if seen.size < OPTIMUM_SAMPLE:
            seen = np.concatenate([seen, values[~bad][:OPTIMUM_SAMPLE - seen.size]])
            object.__setattr__(self, "_seen", seen)
        i = int(np.argmin(np.where(bad, np.inf, values)))
        if not values[i] < optimum:
            return
        with np.errstate(over="ignore"):
            spread = float(np.median(np.abs(seen - optimum)))
        if values[i] < optimum - 1e-6 * max(abs(optimum), spread):
            raise ValueError(f"optimum = {optimum!r} is above f(x) = {float(values[i])!r} at the evaluated "
                             f"x = {rows[i].tolist()!r:.80}: optimum must be the minimum value of f on the "
                             f"box")


#: how many of a run's first finite values set f's scale in the optimum's check (their median distance)
OPTIMUM_SAMPLE = 4096


def _scalar(value: Any) -> float:
    # a str ("1") or a one-element list ([1.0]) was parsed/reshaped by numpy: refused by name, as None,
    # complex values and arrays are
    return returned_scalar("f(x)", value)


def normalized_regret(value: float, problem: BlackBoxProblem) -> float:
    """``(value − f*) / (f_ref − f*)``, clipped below at 0; needs ``optimum`` and ``f_ref``.

    ``value`` is a float (−inf/NaN refused): any real or +inf, a run's own value (f's answers are not
    bounded by the working range: 1e39 gives its regret), ``problem`` a :class:`BlackBoxProblem` with
    ``optimum`` and ``f_ref`` given. A regret past float64's largest number (value − f* = 1e300 over
    f_ref − f* = 1e-38) is returned as inf, as for value = inf.

    >>> import numpy as np
    >>> p = BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=1.0, f_ref=3.0)
    >>> normalized_regret(2.0, p)
    0.5
    """
    if not isinstance(problem, BlackBoxProblem):
        raise TypeError(f"problem must be a BlackBoxProblem, got {type(problem).__name__}")
    if problem.optimum is None or problem.f_ref is None:
        raise ValueError("problem must carry optimum and f_ref for a normalized regret, got "
                         f"optimum = {problem.optimum!r}, f_ref = {problem.f_ref!r}")
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"value must be a real number, got {type(value).__name__}")
    number = to_float(value)  # 10**400: inf (a bare OverflowError before); -10**400: -inf, refused below
    if math.isnan(number) or number == -math.inf:   # -inf lies below every optimum (it was clipped to 0)
        raise ValueError(f"value must be a real number above -inf, not NaN, got {number!r}")
    if number == math.inf:
        return math.inf
    # exact: an int past 2**53 or a Fraction was rounded before the subtraction, the whole difference near
    # the optimum (2**64 + 2048 against f* = 2**64 gave 0, not 0.5; red14a)
    if isinstance(value, numbers.Integral):   # np.int64 too, as a Python int (numpy's own overflowed)
        exact = Fraction(int(value))
    else:
        exact = value if isinstance(value, Fraction) else Fraction(number)
    optimum = Fraction(float(problem.optimum))
    regret = (exact - optimum) / (Fraction(float(problem.f_ref)) - optimum)
    return max(0.0, to_float(regret))


class _BBOB:
    """A BBOB function as a picklable callable: ``f(X)`` for X (n, d); the ioh object (which does not pickle)
    is rebuilt from (fid, instance, dim) after unpickling."""

    def __init__(self, fid: int, instance: int, dim: int) -> None:
        self.fid, self.instance, self.dim = fid, instance, dim
        self._fn = None

    @property
    def ioh(self):
        if self._fn is None:
            import ioh

            self._fn = ioh.get_problem(self.fid, instance=self.instance, dimension=self.dim,
                                       problem_class=ioh.ProblemClass.REAL)
        return self._fn

    def __getstate__(self) -> dict:
        return {"fid": self.fid, "instance": self.instance, "dim": self.dim, "_fn": None}

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """f at the rows of ``X`` (n, d) (or at one point (d,)): finite reals; a short point gave NaN."""
        X = as_real_array("X", X)
        if X.shape[-1:] != (self.dim,) or X.ndim > 2 or not np.all(np.isfinite(X)):
            raise ValueError(f"X must hold finite points of dimension {self.dim} (shape (n, {self.dim}) or "
                             f"({self.dim},)), got shape {X.shape}")
        if X.ndim == 2 and X.shape[0] == 0:   # ioh answered an empty batch with a scalar nan
            return np.zeros(0)
        return np.asarray(self.ioh(X), dtype=float)


@allocates("dim")
def bbob_problem(fid: int, instance: int, dim: int, budget: int, *, target_precision: float | None = None
                 ) -> BlackBoxProblem:
    """BBOB function ``fid`` (1..24), ``instance`` (>= 1), dimension ``dim`` (>= 2) from ``ioh``.

    Domains: ``fid`` an int in [1, 24]; ``instance`` and ``dim`` ints in [1, 2**31 - 1] and [2, 2**31 - 1]
    (ioh takes C ints); ``budget`` an int in [1, 2**63 - 1] (as :class:`BlackBoxProblem`'s).

    The box is [-5, 5]^d, ``optimum`` the instance's known f*, ``f_ref`` the median of 1000 uniform points
    drawn with seed ``1000·fid + instance`` (not charged to ``budget``). ``target_precision`` (optional) sets
    ``target = f* + target_precision``: a finite float >= 1.18e-38 (0 and subnormals refused) and at most
    3.4e38, the working range (3.4e38: the first evaluation reaches the target; 1e39 refused by name). The
    sum is a float64: a precision below half f*'s float spacing (about 1e-14 for f* = 79.48; any 1e-20)
    rounds away, and the target is f* itself, which only f* reaches. ``dim`` is refused when ioh's d × d
    rotation matrices exceed this machine's memory (10**9 was killed by the OOM killer).

    >>> p = bbob_problem(1, 1, 2, 100)
    >>> p.name, p.dim, p.budget
    ('bbob_f1_Sphere_i1_d2', 2, 100)
    """

    if isinstance(fid, bool) or not isinstance(fid, int | np.integer) or not 1 <= fid <= 24:
        raise ValueError(f"fid must be an int in 1..24, got {fid!r}")
    check_positive_int("instance", instance)
    check_int_at_least("dim", dim, 2)
    for name, value in (("instance", instance), ("dim", dim)):
        if value > C_INT_MAX:  # ioh's create() takes C ints and says only "incompatible function arguments"
            raise ValueError(f"{name} must be <= 2**31 - 1 (ioh takes a C int), got {value}")
    # ioh builds d × d rotation matrices (and we a 1000 × d reference sample): checked before ioh runs out
    check_fits_memory("bbob_problem", "dim", dim, 8.0 * float(dim) * (3 * float(dim) + 2000))
    check_positive_int("budget", budget)
    if target_precision is not None:   # True passed as 1, inf as a target no run reaches
        target_precision = check_positive("target_precision", target_precision)
        if target_precision < np.finfo(np.float64).tiny:
            raise ValueError(f"target_precision must be >= 2.2e-308 (not subnormal), got "
                             f"{target_precision!r}")
    f = _BBOB(int(fid), int(instance), int(dim))
    fn = f.ioh
    fstar = float(fn.optimum.y)
    lower, upper = np.asarray(fn.bounds.lb, dtype=float), np.asarray(fn.bounds.ub, dtype=float)
    sample = np.random.default_rng(1000 * int(fid) + int(instance)).uniform(lower, upper, (1000, int(dim)))
    f_ref = float(np.median(np.asarray(fn(sample), dtype=float)))
    if not f_ref > fstar:
        f_ref = fstar + 1.0
    target = None if target_precision is None else fstar + float(target_precision)
    return BlackBoxProblem(f, (lower, upper), int(budget), vectorized=True, optimum=fstar, f_ref=f_ref,
                           target=target, name=f"bbob_f{fid}_{BBOB_FUNCTIONS[fid - 1]}_i{instance}_d{dim}")
