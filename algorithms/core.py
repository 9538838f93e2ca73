"""The common interface: problems are data, algorithms are hyperparameters, ``solve`` joins them.

Every method in the package is reached through one generic function,

    solve(problem, algorithm, **options) -> Solution

which dispatches on the concrete types of *both* arguments (plum multiple
dispatch, one private :data:`_dispatch`). A family adds a method by defining

    @_dispatch
    def _solve(problem: MyProblem, algorithm: MyAlgorithm, options: SolveOptions) -> Solution:
        ...

in the algorithm's own file. Common keywords (documented once, here):

Each is checked once, in :class:`SolveOptions`, with the argument's name in the message.

``maxiters`` (int in [0, 2**63 - 1] or None)
    iteration cap (an algorithm whose loop or backend counts in C ints says so and takes at most
    2**31 - 1); ``None`` lets the algorithm use its default. ``maxiters=0``
    returns the starting point with ``RetCode.MaxIters``.
``tol`` (float in [1.18e-38, 3.4e38] or None: a positive scale of the working range)
    the algorithm's stopping tolerance (what it measures is in its docstring); an
    algorithm with a narrower range (e.g. a relative tolerance in (0, 1)) states it in its own
    docstring and refuses a tol outside it, naming ``tol``.
    A run that has no use for ``maxiters`` or ``tol`` (an exact or combinatorial method that runs to
    completion, or a problem the method solves directly) ignores it and says so with a ``UserWarning``
    naming the option, never in silence (an algorithm whose docstring says so refuses it instead, naming it:
    the quantum identification algorithms' ``tol``).
``seed`` (int in [0, 2**64), a ``numpy.random.Generator``, or None)
    seeds every random choice; same seed, same result. A ``Generator`` is drawn from
    once (it advances) and that integer is the seed. The default is 0; ``None`` is
    passed on to the family (its docstring says what it does with it).
``callback`` (callable or None)
    called as ``callback(record)`` with the per-iteration record (a dict);
    returning ``True`` stops the run with ``RetCode.Terminated``, also on the record where the method's
    own criterion held or its horizon was reached (``solve`` enforces it for every iterative method:
    a ``True`` never ends ``Success``, ``MaxIters`` or ``MaxTime``; ``None`` or ``False``
    continue; any other return value raises a ``TypeError`` naming ``callback``; an exception it raises
    is re-raised as ``UserCallableError``, a ``ValueError`` naming ``callback(record)``, with the
    callback's own exception as its ``__cause__``). It is called at
    least once per run: a run that ends before its first record (``maxiters=0``)
    passes its stored records, or else one final record (``iteration``, ``value``,
    ``retcode``); that run is over (a one-pass method such as ``DQP``, or ``maxiters=0``), so a ``True``
    returned then changes nothing and the retcode stays the run's own. Record arrays and tensors
    are copies: a callback that edits them changes nothing.
``progress`` (bool, not a truthy string)
    show a tqdm progress bar over iterations.
``store_trace`` (bool, not a truthy string)
    keep the per-iteration records in ``Solution.trace`` (rate claims need them); a run that ends
    before its first record (``maxiters=0``) stores that one final record, with or without a callback.

A solve runs with torch's autograd on, also when called inside ``torch.no_grad()`` or
``torch.inference_mode()``: the methods that train or differentiate do so internally, and a
caller's evaluation context must not break them.
"""

from __future__ import annotations

import array
import contextlib
import contextvars
import copy
import decimal
import enum
import functools
import math
import numbers
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, ClassVar

import numpy as np
from plum import Dispatcher

from algorithms._validation import (
    INT64_MAX,
    WORKING_MAX,
    WORKING_MIN,
    _plain_number,
    backend_cap,
    call_user,
    check_bool,
    check_int_at_least,
    check_seed,
    check_takes,
    check_working_range,
    forget_validation,
    refuse_unknown_attribute,
    remember_validated,
    revalidate_if_reassigned,
    to_float,
)

__all__ = [
    "WORKING_MAX",
    "WORKING_MIN",
    "Algorithm",
    "IncompatibleAlgorithmError",
    "IterationMonitor",
    "Problem",
    "RetCode",
    "Solution",
    "SolveOptions",
    "Stats",
    "applicable_algorithms",
    "registered_pairs",
    "solve",
]

_dispatch = Dispatcher()


class RetCode(enum.StrEnum):
    """Why a solve stopped (SciML's ``ReturnCode``); one meaning each, across the package.

    ``Success``
        the method's own convergence criterion held (stated in its docstring); for a
        wrapped backend, the backend said so *and* its answer passed our check
        (e.g. the KKT residuals of a QP). Never just "the loop ended".
    ``MaxIters`` / ``MaxTime``
        the iteration cap or the time horizon was reached before the criterion held.
    ``Diverged``
        the iterates blew up: a non-finite iterate or value, or growth past the
        method's divergence threshold (stated in its docstring).
    ``Infeasible`` / ``Unbounded``
        the problem has no feasible point / an objective unbounded below.
    ``Stalled``
        no progress is possible (e.g. a zero step) and the criterion does not hold.
    ``Degenerate``
        the method's next step is not defined at the point reached (LCD2/LCD3: ∇f has a
        component outside the range of the curvature C(x), or the step overflows float64);
        ``x`` is that point, returned as it is, not a certified optimum.
    ``Terminated``
        the user's callback asked to stop.
    ``Failure``
        anything else: a backend error, or an answer that failed our check.
    """

    @classmethod
    def _missing_(cls, value: object) -> RetCode:
        # enum's own "'bogus' is not a valid RetCode" listed no valid name
        raise ValueError(f"retcode must be one of {[str(r) for r in cls]}, got {value!r:.60}")

    Success = "Success"
    MaxIters = "MaxIters"
    MaxTime = "MaxTime"
    Infeasible = "Infeasible"
    Unbounded = "Unbounded"
    Diverged = "Diverged"
    Stalled = "Stalled"
    Degenerate = "Degenerate"
    Terminated = "Terminated"
    Failure = "Failure"

    @property
    def successful(self) -> bool:
        return self is RetCode.Success


def _refuse_on_bare_base(obj: Any, base: type, name: str) -> None:
    """A bare ``Problem()`` or ``Algorithm()`` (the abstract base itself) has no field: any name set on it is
    a misspelt one (``Algorithm().seeed = 0.5`` was stored: heldout22). Subclasses are untouched (their
    frozen dataclasses refuse assignment themselves; a user's plain subclass stays open)."""
    if type(obj) is base:
        refuse_unknown_attribute(obj, name, ())


class _KeepsBuiltFields(type):
    """Metaclass of :class:`Problem` and :class:`Algorithm`: when construction (the dataclass ``__init__`` and
    its checks) has finished, each field's object is recorded (:func:`remember_validated`), so :func:`solve`
    validates again one replaced afterwards with ``object.__setattr__`` or a tensor field written in place
    (both are frozen dataclasses; the bypass skipped every check, and a NaN step size or a string matrix
    reached the method in the families that did not record their own)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        built = super().__call__(*args, **kwargs)
        _remember_frozen(built)
        return built

    @property
    def __signature__(cls) -> Any:
        """The constructor's own signature (``__init__``'s without ``self``): this metaclass's ``__call__``
        made ``inspect.signature``/``help`` show every problem and algorithm as ``(*args, **kwargs)``."""
        import inspect

        signature = inspect.signature(cls.__init__)
        return signature.replace(parameters=list(signature.parameters.values())[1:])


def _remember_frozen(obj: Any) -> None:
    """:func:`remember_validated` for ``obj`` and, first, for each frozen dataclass it holds that has no
    record of its own (a kernel in CEI, a prior in PnP-ADMM, a schedule): solve's check reaches them too."""
    if not is_dataclass(obj) or isinstance(obj, type):
        return
    for f in fields(obj):
        value = getattr(obj, f.name, None)
        if (is_dataclass(value) and not isinstance(value, type) and value.__dataclass_params__.frozen
                and "_validated_fields" not in getattr(value, "__dict__", {})):
            _remember_frozen(value)
    remember_validated(obj)


class Problem(metaclass=_KeepsBuiltFields):
    """Base class of every problem type: a frozen dataclass holding data only.

    A problem built by a factory marked :func:`rebuilt_by_factory` (its callables are closures over the
    factory's data, which pickle cannot store) pickles and copies as that factory call. A problem or
    algorithm restored without its record of validation (a pickled state stripped of ``_validated_fields``)
    is validated anew by :func:`solve` before use, its constructor's refusal naming the field.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse_on_bare_base(self, Problem, name)
        object.__setattr__(self, name, value)

    def _check_unchanged(self) -> None:
        """Called by :func:`solve` before each run: a family whose checked data cannot be made read-only
        (torch tensors) re-checks it here, so a NaN written into it after construction is named, not run."""

    def __reduce_ex__(self, protocol: Any) -> Any:
        call = self.__dict__.get("_factory_call")
        if call is not None:
            return _rebuild, call
        return super().__reduce_ex__(protocol)


def _rebuild(factory: Callable[..., Problem], args: tuple, kwargs: dict[str, Any]) -> Problem:
    return factory(*args, **kwargs)


def rebuilt_by_factory(factory: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a module-level problem factory: its problems pickle (and deep-copy) as the call that built them,
    with a copy of its arguments taken at the call (the caller's arrays may change later). A problem changed
    by ``dataclasses.replace`` is a new problem and pickles field by field again."""

    @functools.wraps(factory)
    def build(*args: Any, **kwargs: Any) -> Any:
        problem = factory(*args, **kwargs)
        try:
            call = (build, copy.deepcopy(args), copy.deepcopy(kwargs))
        except Exception:  # an argument that cannot be copied: the problem pickles field by field
            return problem
        object.__setattr__(problem, "_factory_call", call)
        return problem

    return build


#: the words of a one-pass method's docstring (core's callback rule: called once, after the run)
ONE_PASS_WORDS = "One pass for ``callback``"


class Algorithm(metaclass=_KeepsBuiltFields):
    """Base class of every algorithm type: a frozen dataclass holding hyperparameters only.

    ``one_pass`` (a class attribute, read from the docstring: True when it carries
    :data:`ONE_PASS_WORDS`) marks a method that runs in one pass and calls ``callback`` once, after the
    run, so that a ``True`` it returns keeps the run's retcode; every other method stopped by a ``True``
    ends ``Terminated``. A subclass inherits the flag whatever its own docstring says (a user's documented
    subclass of ``HeldKarp`` runs the same one pass); one that runs otherwise sets ``one_pass = False`` in
    its class body. A method that runs in one pass on some problems only (a closed form for one model
    class, an iterative run for the others) says so in its docstring and overrides
    :meth:`runs_in_one_pass`.
    """

    one_pass: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        doc = cls.__dict__.get("__doc__")
        # the docstring is the contract users read: its words set the flag; without them the flag is
        # inherited (a user's docstring on a subclass of HeldKarp turned its one pass into "Terminated"
        # on a True; red23b), and a class body's own one_pass wins
        if "one_pass" not in cls.__dict__ and doc and ONE_PASS_WORDS in doc:
            cls.one_pass = True

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse_on_bare_base(self, Algorithm, name)
        object.__setattr__(self, name, value)

    def runs_in_one_pass(self, problem: Any) -> bool:
        """Whether this method solves ``problem`` in one pass (core's callback rule); ``one_pass`` unless
        a subclass's docstring limits it to some problems."""
        return type(self).one_pass


@dataclass
class Stats:
    """Counters of a solve; families fill what applies, the rest stay zero.

    Fields (an output container, filled by ``solve``): ``iterations`` (iterations taken, int >= 0),
    ``f_calls``, ``grad_calls``, ``hess_calls`` (objective, gradient and Hessian evaluations, ints >= 0),
    ``linear_solves`` (linear systems solved, int >= 0; every count at most 2**63 - 1) and ``wall_time``
    (seconds of the run, a float in [0, 3.4e38] (the working range); NaN until measured). Checked at
    construction and whenever a field is set afterwards, in subclasses too: every field annotated
    ``int`` is an int >= 0 (numpy ints stored as ints; a bool, a float, a str or an array is refused),
    every other ``float`` field a real number stored as a float (NaN and ±inf allowed: a loss may diverge)
    unless the subclass states a range for it, every ``str`` field a str. A name that is not a field
    (``stats.iteratons = 5``) is refused by name (``UnknownAttributeError``, a ValueError). An unpickled or
    copied record is checked again the same way.
    """

    iterations: int = 0
    f_calls: int = 0
    grad_calls: int = 0
    hess_calls: int = 0
    linear_solves: int = 0
    wall_time: float = math.nan

    def __setattr__(self, name: str, value: Any) -> None:
        # an output record, but public: Stats(f_calls=inf), iterations=0.5 or "0" were stored as given, and
        # so was stats.iterations = -1 after construction: every field is checked whenever it is set
        kind = _field_types(type(self)).get(name)
        if kind is None:  # stats.iteratons = 5 (misspelt) was stored beside the real field, in silence
            refuse_unknown_attribute(self, name, tuple(_field_types(type(self))))
        if kind == "int":
            value = check_int_at_least(name, value, 0)  # a count: at most 2**63 - 1 (2**64 was stored)
        elif kind == "float":
            if isinstance(value, bool | np.bool_) or \
                    not isinstance(value, numbers.Real | np.integer | np.floating):
                raise TypeError(f"{name} must be a real number (a float), got {type(value).__name__} "
                                f"{value!r:.60}")
            value = to_float(value)  # 10**400 as inf (float() raised OverflowError)
        elif kind == "str" and not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r:.60}")
        if name == "wall_time" and not (math.isnan(value) or 0.0 <= value <= WORKING_MAX):
            raise ValueError(f"wall_time must be a float in [0, {WORKING_MAX:.4g}] seconds (the working "
                             f"range; NaN: not timed), got {value!r}")
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        """Nothing left to check (``__setattr__`` checked each field); subclasses call it."""

    def __setstate__(self, state: Any) -> None:
        _restore_checked(self, state)   # an unpickled or copied record is checked as a built one

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@functools.cache
def _field_types(cls: type) -> dict[str, str]:
    """A dataclass's field name -> annotation as a str (``"int"``): a str under ``from __future__ import
    annotations``, else the type itself (a subclass defined without that import annotated ``int``, whose
    fields were then stored unchecked)."""
    return {f.name: f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
            for f in fields(cls)}


def _restore_checked(record: Any, state: Any) -> None:
    """``__setstate__`` of a checked record (:class:`Stats`, :class:`Solution` and their subclasses): pickle
    and ``copy`` restore ``__dict__`` directly, past ``__setattr__``, so a field edited through ``__dict__``
    (``iterations = -1``, a NaN ``x`` beside Success) came back unchecked. The fields are set again one by
    one in construction order and ``__post_init__`` runs, as at construction; a public name that is not a
    field is refused by name. Private entries (caches, a solve's tolerance the checks read) come first, but
    the ``_built`` flag, which ``__post_init__`` sets once every field is in place."""
    if not isinstance(state, dict):
        kind = type(record).__name__
        raise TypeError(f"a {kind}'s pickled state must be a dict, got {type(state).__name__}")
    names = [f.name for f in fields(record)]
    for name in state:
        if name not in names and not name.startswith("_"):
            refuse_unknown_attribute(record, name, tuple(names))
    record.__dict__.update({name: value for name, value in state.items()
                            if name not in names and name != "_built"})
    for name in names:
        if name in state:
            setattr(record, name, state[name])
    record.__post_init__()


def _real_value(value: Any) -> float:
    """A Solution's ``value`` as a float: a real Python/numpy scalar, or a 0-d real array or tensor (a str, a
    datetime, a complex number or a vector was stored as given)."""
    dtype = str(getattr(value, "dtype", "")).replace("torch.", "")
    if getattr(value, "ndim", None) == 0 and dtype.startswith(("float", "int", "uint", "bfloat")):
        value = value.item()
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real | np.integer | np.floating):
        raise TypeError(f"value must be a real number (the objective at x: an int, a float, a numpy number "
                        f"or a numbers.Real such as Fraction), got {type(value).__name__} {value!r:.60}")
    return to_float(value)  # an int past float's range as ±inf (float() raised OverflowError)


def _is_tensor(x: Any) -> bool:
    """A torch tensor (torch is imported lazily: an x can only be one once torch is loaded)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _dense_values(x: Any) -> Any:
    """A torch tensor's stored entries as a strided float tensor torch can test: a sparse tensor's values
    (isfinite is not implemented for sparse layouts) and float8 entries widened to float32 (nor for them)."""
    torch = sys.modules["torch"]
    if x.layout is not torch.strided:
        x = x.coalesce().values() if x.layout is torch.sparse_coo else x.values()
    return x.float() if x.dtype.itemsize == 1 else x


def _finite_answer(x: Any, depth: int = 0) -> bool:
    """False for a float (or float array/tensor, or Decimal) answer with a NaN or infinite entry, also held
    in a list, tuple, set, object array or dict (keys and values), nested up to 16 levels; True for anything
    else (a tour, an int array, None): only a real-valued answer can be non-finite."""
    if isinstance(x, float | np.floating):
        return math.isfinite(x)
    if isinstance(x, decimal.Decimal):
        return x.is_finite()
    if depth < 16 and isinstance(x, list | tuple | set | frozenset | dict):
        items = [*x.keys(), *x.values()] if isinstance(x, dict) else x
        return all(_finite_answer(item, depth + 1) for item in items)
    if isinstance(x, np.ndarray) and x.dtype == object:
        return all(_finite_answer(item, depth + 1) for item in x.ravel())
    dtype = str(getattr(x, "dtype", ""))
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return bool(np.isfinite(x).all())
    if _is_tensor(x) and (x.is_floating_point() or dtype.startswith("torch.float")):
        if x.device.type == "meta":
            return True
        return bool(_dense_values(x).isfinite().all())
    if _is_tensor(x) or isinstance(x, int | str | bytes | np.ndarray):
        return True
    return _finite_held(x, depth)


def _finite_held(x: Any, depth: int) -> bool:
    """The reals another container holds (a scipy sparse matrix's stored entries, a pandas frame, an
    ``array.array`` or ``memoryview``, anything with ``__array__``) or another real number type (mpmath,
    sympy: ``__float__``): a NaN in any of them passed as a finite Success answer."""
    stored = getattr(x, "data", None)
    if hasattr(x, "tocoo") and isinstance(stored, np.ndarray):    # scipy.sparse: np.asarray gives an object
        return _finite_answer(stored, depth + 1)
    if hasattr(x, "__array__") or isinstance(x, memoryview | array.array):
        try:
            values = np.asarray(x)
        except Exception:   # an object numpy cannot read holds no reals we can test
            return True
        return _finite_answer(values, depth + 1) if values.dtype.kind in "fO" else True
    if hasattr(x, "__float__"):
        try:
            return math.isfinite(float(x))
        except (TypeError, ValueError, OverflowError):   # a huge exact number is finite
            return True
    return True


def _all_nan(x: Any) -> bool:
    """True for a float answer every entry of which is NaN: "no answer" (a backend capped before its first
    iterate), as a horizon's retcode may carry; a partly NaN or an infinite one is a blow-up."""
    if isinstance(x, float | np.floating):
        return math.isnan(x)
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x.size > 0 and bool(np.isnan(x).all())
    if _is_tensor(x) and x.is_floating_point() and x.device.type != "meta":
        values = _dense_values(x)
        return values.numel() > 0 and bool(values.isnan().all())
    if not _is_tensor(x) and not hasattr(x, "tocoo") and (hasattr(x, "__array__")
                                                           or isinstance(x, memoryview | array.array)):
        with contextlib.suppress(Exception):   # a pandas frame or a buffer of NaNs: "no answer" too
            return _all_nan(np.asarray(x, dtype=float))
    return False


def _holds_complex(value: Any, depth: int = 0) -> bool:
    """A complex Python/numpy scalar, array or tensor, or a list, tuple, set, dict (keys and values) or
    object array holding one (nested up to 16 levels): ``x = 1j``, ``[1j, 2]`` or ``{"a": 1j}`` were stored
    though ``x`` is never complex."""
    if isinstance(value, complex | np.complexfloating):
        return True
    if str(getattr(value, "dtype", "")).startswith(("complex", "torch.complex")):
        return True
    if depth >= 16:
        return False
    if isinstance(value, list | tuple | set | frozenset | dict):
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
        return any(_holds_complex(v, depth + 1) for v in items)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return any(_holds_complex(v, depth + 1) for v in value.ravel())
    return False


#: the retcodes whose ``x`` is an answer (the method's result, or its last iterate at a horizon or a stop):
#: a non-finite float ``x`` is refused with them (a blow-up is ``Diverged``)
_ANSWER_RETCODES = frozenset({RetCode.Success, RetCode.MaxIters, RetCode.MaxTime, RetCode.Stalled,
                              RetCode.Degenerate, RetCode.Terminated})


@dataclass(eq=False)  # identity, as the problems: the generated == compared x arrays (ambiguous truth)
class Solution:
    """What every ``solve`` returns.

    ``x`` is the final iterate, ``value`` the objective there, ``retcode`` why it
    stopped, ``stats`` the counters, ``trace`` the per-iteration records (empty
    unless ``store_trace=True``), and ``original`` the raw result of a wrapped
    backend, when there is one; ``problem`` and ``algorithm`` are the pair that was solved.

    Checked at construction (a public record): ``retcode`` a :class:`RetCode` or its name (``"Success"``
    is converted to ``RetCode.Success``); ``value`` a real number (any
    real: a run's own value is not range-bounded), stored as a float (a 0-d real array or
    tensor too), finite when ``retcode`` is ``Success`` (a Success never carries a NaN or infinite
    objective); ``x`` anything a family returns, but never a str (str labels inside a set or list are
    elements, allowed) nor complex (a complex scalar, array or tensor, also inside a container), and with
    finite entries (a float array or tensor) unless ``retcode`` is ``Diverged``, ``Failure``,
    ``Infeasible`` or ``Unbounded`` (lists, tuples, object arrays and dicts of answers too; a horizon's or a
    stop's last iterate is an answer; what a run computed is not bounded by the working range; an all-NaN
    ``x``, no answer at all, only with ``MaxIters``/``MaxTime``: a backend capped before its first
    iterate); ``stats`` a :class:`Stats`; ``trace`` a list; ``problem``/``algorithm`` a Problem/Algorithm
    or None. The same checks run whenever a field is set afterwards (``sol.retcode = "bogus"`` is refused),
    and a name that is not a field (``sol.retcod = ...``) is refused by name (``UnknownAttributeError``, a
    ValueError). ``x`` and ``trace`` are the caller's own: a write into ``x`` in place or a record appended
    to ``trace`` is not checked again until the record is pickled or copied (``pickle``, ``copy.copy``,
    ``copy.deepcopy`` run every check again, so a NaN written into a Success's ``x`` is refused there).
    """

    x: Any
    value: float
    retcode: RetCode
    stats: Stats = field(default_factory=Stats)
    trace: list[dict[str, Any]] = field(default_factory=list)
    original: Any = None
    problem: Problem | None = None
    algorithm: Algorithm | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        # a str retcode ("Success") failed later at .successful, a bogus one was kept, a dict of stats
        # failed at wall_time; sol.retcode = "bogus" or sol.value = nan after construction were kept too:
        # every field is checked whenever it is set (the dataclass __init__ sets them one by one)
        if name not in _field_types(type(self)):  # sol.retcod = "bogus" (misspelt) was stored in silence
            refuse_unknown_attribute(self, name, tuple(_field_types(type(self))))
        if name == "retcode":
            try:
                value = RetCode(value)
            except ValueError:
                raise ValueError(f"retcode must be a RetCode (one of {[str(r) for r in RetCode]}), got "
                                 f"{value!r:.60}") from None
        elif name == "value":
            value = _real_value(value)
        elif name == "x" and _holds_complex(value):
            raise TypeError(f"x must be real, got a complex {type(value).__name__} "
                            f"{getattr(value, 'dtype', value)!r:.60}")
        elif name == "x" and (isinstance(value, str | bytes)    # no family's answer is a str
                              or (isinstance(value, np.ndarray) and value.dtype.kind in "SUa")):
            raise TypeError(f"x must be the answer a family returns (an array, a tensor, a set, ...), got "
                            f"{type(value).__name__} {value!r:.60}")
        elif name == "stats" and not isinstance(value, Stats):
            raise TypeError(f"stats must be a Stats, got {type(value).__name__}")
        elif name == "trace" and not (isinstance(value, list) and all(isinstance(r, dict) for r in value)):
            got = type(value).__name__ if not isinstance(value, list) else \
                f"a list holding {type(next(r for r in value if not isinstance(r, dict))).__name__}"
            raise TypeError(f"trace must be a list of records (dicts), got {got}")
        elif name == "problem" and not (value is None or isinstance(value, Problem)):
            raise TypeError(f"problem must be a Problem or None, got {type(value).__name__}")
        elif name == "algorithm" and not (value is None or isinstance(value, Algorithm)):
            raise TypeError(f"algorithm must be an Algorithm or None, got {type(value).__name__}")
        if name in ("retcode", "value", "x"):
            retcode = value if name == "retcode" else getattr(self, "retcode", None)
            objective = value if name == "value" else getattr(self, "value", 0.0)
            if retcode is RetCode.Success and not math.isfinite(objective):
                raise ValueError(f"value must be finite with retcode Success (a Success never carries a NaN "
                                 f"or infinite objective), got {objective!r}")
            answer = value if name == "x" else getattr(self, "x", None)
            if retcode in _ANSWER_RETCODES and not _finite_answer(answer) \
                    and not (retcode in (RetCode.MaxIters, RetCode.MaxTime) and _all_nan(answer)):
                # a run that stopped on its horizon or its callback returns its last iterate: a non-finite one
                # is a blow-up, Diverged (a NaN x beside MaxIters was taken)
                raise ValueError(f"x must be finite with retcode {retcode.value} (a non-finite answer is "
                                 f"Diverged, Failure, Infeasible or Unbounded; an all-NaN x, no answer, only "
                                 f"MaxIters/MaxTime), got {type(answer).__name__} with non-finite entries")
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        """Nothing left to check (``__setattr__`` checked each field); subclasses call it."""

    def __setstate__(self, state: Any) -> None:
        _restore_checked(self, state)   # an unpickled or copied record is checked as a built one

    @property
    def successful(self) -> bool:
        return self.retcode.successful

    def __deepcopy__(self, memo: dict[int, Any]) -> Solution:
        """Every field deep-copied, but ``original`` (a wrapped backend's raw result) is shared when it
        cannot be copied: clarabel's result holds a ``SolverStatus`` that neither pickles nor copies,
        which made ``copy.deepcopy`` of a whole solution fail."""
        new = copy.copy(self)
        memo[id(self)] = new
        for name, value in vars(self).items():
            try:
                copied = copy.deepcopy(value, memo)
            except TypeError:
                if name != "original":
                    raise
                copied = value
            object.__setattr__(new, name, copied)
        return new


@dataclass(frozen=True)
class SolveOptions:
    """The common keywords of :func:`solve` (see the module docstring).

    Parameters
    ----------
    maxiters : int in [0, 2**63 - 1] or None
        Iteration cap (``maxiters=0`` returns the start with ``RetCode.MaxIters``); None: the
        algorithm's default.
    tol : float in [1.18e-38, 3.4e38] or None
        The algorithm's stopping tolerance (its docstring says what it measures, and any narrower range,
        which it then enforces naming ``tol``).
    seed : int in [0, 2**64), numpy.random.Generator or None
        Seeds every random choice (a Generator is drawn from once); None is passed on to the family.
    callback : callable(record) or None
        Called with each per-iteration record (a dict); ``True`` stops the run with ``Terminated``,
        ``None``/``False`` continue, anything else is a ``TypeError``.
    progress : bool
        Show a tqdm progress bar.
    store_trace : bool
        Keep every record in ``Solution.trace``.
    """

    maxiters: int | None = None
    tol: float | None = None
    seed: int | np.random.Generator | None = 0
    callback: Callable[[dict[str, Any]], Any] | None = None
    progress: bool = False
    store_trace: bool = False

    def __post_init__(self) -> None:
        # Checked once here, so no family sees a truthy string, an infinite tolerance or a seed
        # that numpy/torch reject deep inside a run.
        if self.maxiters is not None:
            if isinstance(self.maxiters, bool) or not isinstance(self.maxiters, numbers.Integral):
                raise TypeError(f"maxiters must be a non-negative int or None, got "
                                f"{type(self.maxiters).__name__} {self.maxiters!r}")
            if self.maxiters < 0:
                raise ValueError(f"maxiters must be a non-negative int or None, got {self.maxiters!r}")
            if self.maxiters > INT64_MAX:   # a count (README, working range): 2**64 and 10**100 were taken
                raise ValueError(f"maxiters must be <= 2**63 - 1 (the largest count), got "
                                 f"{self.maxiters!r:.40}")
            object.__setattr__(self, "maxiters", int(_plain_number(self.maxiters)))
        if self.tol is not None:
            if isinstance(self.tol, bool) or not isinstance(self.tol, numbers.Real):
                raise TypeError(f"tol must be a finite float > 0 or None, got {type(self.tol).__name__} "
                                f"{self.tol!r}")
            if not (math.isfinite(to_float(self.tol)) and self.tol > 0):  # 10**400: OverflowError before
                raise ValueError(f"tol must be a finite float > 0 or None, got {self.tol!r:.40}")
            # np.float32 / Fraction stored as a float, inside the working range (5e-324 or 1e300 refused)
            value = to_float(self.tol)
            if value == 0.0:  # Fraction(1, 10**400) or longdouble 1e-4000: > 0, but 0.0 as a float was stored
                raise ValueError(f"tol = {self.tol!r:.40} is outside the package's working range: a positive "
                                 f"scale must be >= {WORKING_MIN:.4g} (float32's smallest normal number)")
            object.__setattr__(self, "tol", check_working_range("tol", value))
        object.__setattr__(self, "seed", _checked_seed(self.seed))
        if self.callback is not None and not callable(self.callback):
            raise TypeError(f"callback must be callable or None, got {type(self.callback).__name__}")
        if self.callback is not None:  # lambda: None met Python's TypeError at the first record
            check_takes("callback", self.callback, "callback(record)", 1)
        for name in ("progress", "store_trace"):
            value = getattr(self, name)
            if not isinstance(value, bool | np.bool_):
                raise TypeError(f"{name} must be a bool (True or False), got {type(value).__name__} "
                                f"{value!r}")
            object.__setattr__(self, name, bool(value))

    @classmethod
    def from_kwargs(cls, options: dict[str, Any]) -> SolveOptions:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(
                f"solve() got unknown option(s) {unknown}; the common options are {sorted(known)}"
            )
        return cls(**options)

    def iterations(self, default: int) -> int:
        """The iteration cap: ``maxiters`` if given, else the algorithm's ``default`` (an int >= 0)."""
        default = check_int_at_least("default", default, 0)
        return default if self.maxiters is None else self.maxiters

    def backend_iterations(self) -> int | None:
        """``maxiters`` as a compiled backend's C int (clamped to 2**31 - 1), or None when not given."""
        return backend_cap(self.maxiters)

    def tolerance(self, default: float) -> float:
        """``tol`` if given, else ``default`` (the algorithm's own, a finite float > 0)."""
        return default if self.tol is None else float(self.tol)


def _checked_seed(seed: Any) -> int | None:
    """``seed`` as an int in [0, 2**64) or None; a numpy ``Generator`` gives one draw from it.

    [0, 2**64) is what both ``numpy.random.default_rng`` and ``torch.manual_seed`` accept; a family
    whose backend needs 32 bits (scikit-learn's ``random_state``) reduces it itself. The checks are
    ``_validation.check_seed``'s (the package's one seed check).
    """
    seed = check_seed(seed, "seed", allow_none=True, allow_generator=True)
    if isinstance(seed, np.random.Generator):
        # one draw, so the caller's generator advances and two solves with it differ
        return int(seed.integers(2**32))
    return seed


def _stop_request(returned: Any) -> bool:
    """A callback's answer: None or False continue, True stops. Anything else is refused, naming
    ``callback``: a truthy string ("no") stopped the solve, an array reached numpy's ambiguous-truth error."""
    if returned is None:
        return False
    if isinstance(returned, bool | np.bool_):
        return bool(returned)
    if str(getattr(returned, "dtype", "")) in ("bool", "torch.bool") and \
            tuple(getattr(returned, "shape", (1,))) == ():
        return bool(returned)  # a 0-d bool array or tensor (a tensor field of the record compared)
    raise TypeError(f"callback must return None or a bool (True stops the solve), got "
                    f"{type(returned).__name__} {returned!r:.60}")


def _snapshot(record: dict[str, Any]) -> dict[str, Any]:
    """A record whose arrays and tensors are copies: a family passing its live iterate let a callback that
    edited the record change the run (and every stored record showed the last iterate)."""
    out = {}
    for key, value in record.items():
        if isinstance(value, np.ndarray):
            value = value.copy()
        elif type(value).__module__.startswith("torch") and hasattr(value, "detach"):
            value = value.detach().clone()
        out[key] = value
    return out


class IterationMonitor:
    """Trace, callback and progress bar for an iterative method, in one place.

    ``options`` is the run's :class:`SolveOptions`, ``total`` the expected number of records (any int >= 0,
    with no upper limit: the progress bar's length; a total past 2**63 - 1, as a ``maxiters`` times a batch
    size a run stops well before, gives a bar without a length) and ``desc`` the progress bar's label (a
    str). The public attributes ``options`` (a
    :class:`SolveOptions`), ``trace`` (a list of dicts) and ``stopped`` (a bool: the callback asked to stop)
    are checked whenever set; any other public name is refused by name (``UnknownAttributeError``).

    >>> monitor = IterationMonitor(SolveOptions(store_trace=True), total=3)
    >>> for k in range(3):
    ...     stop = monitor.record(iteration=k, value=1.0 / (k + 1))
    >>> monitor.close()
    >>> [r["iteration"] for r in monitor.trace]
    [0, 1, 2]
    """

    def __init__(self, options: SolveOptions, total: int, desc: str = "solve") -> None:
        if not isinstance(options, SolveOptions):  # a dict met AttributeError('progress')
            raise TypeError(f"options must be a SolveOptions, got {type(options).__name__}")
        if isinstance(total, bool) or not isinstance(total, numbers.Integral):
            raise TypeError(f"total must be an int >= 0 (the expected number of records), got "
                            f"{type(total).__name__} {total!r:.40}")
        if total < 0:
            raise ValueError(f"total must be an int >= 0 (the expected number of records), got {total!r}")
        if not isinstance(desc, str):
            raise TypeError(f"desc must be a str (the progress bar's label), got {type(desc).__name__}")
        # checked again: a frozen SolveOptions edited with object.__setattr__ (callback="x", progress="yes")
        # reached the first record or was taken as truthy. A plain copy is checked (its seed is already an
        # int: idempotent), read past a solve's watch, so the check itself does not count as the method
        # reading maxiters/tol; the options kept are the caller's
        self.options = options
        self.trace: list[dict[str, Any]] = []
        #: True once the callback asked to stop (a family's retcode is Terminated then, not MaxIters)
        self.stopped = False
        self._bar = None
        if options.progress:
            from tqdm.auto import tqdm

            # a total past 2**63 - 1 (maxiters = 2**70 on a run that stops on its own): a bar without a length
            self._bar = tqdm(total=total if total <= INT64_MAX else None, desc=desc, leave=False)

    def __setattr__(self, name: str, value: Any) -> None:
        # public, so set by users too: trace = "x" met AttributeError('append') at the next record,
        # options = {} AttributeError('store_trace'), stopped = "yes" was kept, a misspelt name ignored
        if name == "options":
            if not isinstance(value, SolveOptions):  # a dict met AttributeError('progress')
                raise TypeError(f"options must be a SolveOptions, got {type(value).__name__}")
            # checked again: a frozen SolveOptions edited with object.__setattr__ (callback="x",
            # progress="yes") reached the first record or was taken as truthy. A plain copy is checked
            # (its seed is already an int: idempotent), read past a solve's watch, so the check itself
            # does not count as the method reading maxiters/tol; the options kept are the caller's
            SolveOptions(**{f.name: object.__getattribute__(value, f.name) for f in fields(SolveOptions)})
        elif name == "trace" and not (isinstance(value, list) and all(isinstance(r, dict) for r in value)):
            raise TypeError(f"trace must be a list of records (dicts), got {type(value).__name__}")
        elif name == "stopped":
            value = check_bool("stopped", value)
        elif not name.startswith("_") and name not in self.__dict__:
            refuse_unknown_attribute(self, name, ("options", "trace", "stopped"))
        object.__setattr__(self, name, value)

    def record(self, **fields_: Any) -> bool:
        """Store one iteration's record; return True when the callback asks to stop.

        The fields are the method's own (any names and values: a diverging run records NaN or inf values);
        an ``iteration`` field, when given, is the iteration count, an int >= 0 (-1, NaN, "0" or True were
        stored as given).
        """
        if "iteration" in fields_:
            check_int_at_least("iteration", fields_["iteration"], 0)
        if self.options.store_trace:
            self.trace.append(_snapshot(fields_))
        if self._bar is not None:
            self._bar.update(1)
        if self.options.callback is not None:
            # the user's exception, named (a KeyError of the callback reached the caller bare); solve's
            # counted wrapper already names it, so a UserCallableError passes through unchanged
            if _stop_request(call_user("callback(record)", self.options.callback, _snapshot(fields_))):
                self.stopped = True
                return True
        return False

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class IncompatibleAlgorithmError(TypeError):
    """No ``solve`` method joins this problem type and this algorithm type."""


@_dispatch
def _solve(problem: Problem, algorithm: Algorithm, options: SolveOptions) -> Solution:
    applicable = applicable_algorithms(type(problem))
    names = ", ".join(a.__name__ for a in applicable) or "none"
    raise IncompatibleAlgorithmError(  # both arguments named: the message named only their types
        f"{type(algorithm).__name__} cannot solve a {type(problem).__name__}: the algorithm does not apply "
        f"to this problem; algorithms that apply to {type(problem).__name__}: {names}"
    )


def registered_pairs() -> list[tuple[type[Problem], type[Algorithm]]]:
    """Every concrete (problem type, algorithm type) pair that has a ``solve`` method."""
    _import_families()
    pairs = []
    for method in _solve.methods:
        problem_type, algorithm_type = method.signature.types[:2]
        if (problem_type, algorithm_type) != (Problem, Algorithm):
            pairs.append((problem_type, algorithm_type))
    return sorted(pairs, key=lambda p: (p[0].__module__, p[0].__name__, p[1].__name__))


def applicable_algorithms(problem_type: type[Problem] | Problem) -> list[type[Algorithm]]:
    """Algorithm types with a ``solve`` method for ``problem_type`` (a Problem subclass, or a problem, whose
    type is taken)."""
    if isinstance(problem_type, Problem):
        problem_type = type(problem_type)
    if not (isinstance(problem_type, type) and issubclass(problem_type, Problem)):
        raise TypeError(f"problem_type must be a Problem subclass (or a problem), got "
                        f"{type(problem_type).__name__} {problem_type!r:.60}")
    return [a for p, a in registered_pairs() if issubclass(problem_type, p)]


#: the family subpackages; ``registered_pairs`` imports them all so the list is complete.
FAMILIES = ("qp", "curvature", "nets", "submodular", "quantum", "bayesopt", "optimizers", "attention",
            "hierarchical", "unlearning", "forests", "chance", "imaging", "routing", "blackbox")


def _import_families() -> None:
    """Import every module of every family, so each ``_solve`` method is registered."""
    import importlib
    import importlib.util
    import pkgutil

    for family in FAMILIES:
        name = f"algorithms.{family}"
        if importlib.util.find_spec(name) is None:
            continue
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, prefix=name + "."):
            importlib.import_module(module.name)


#: the retcodes a callback's True replaces with Terminated (a divergence or a failure it does not hide)
_STOPPABLE = frozenset({RetCode.Success, RetCode.MaxIters, RetCode.MaxTime})


class _CountedCallback:
    """The user's callback, counting its calls (so ``solve`` knows whether a run made any)."""

    def __init__(self, callback: Callable[[dict[str, Any]], Any]) -> None:
        self.callback = callback
        self.calls = 0
        #: True once the callback asked to stop during the run
        self.stopped = False

    def __call__(self, record: dict[str, Any]) -> Any:
        self.calls += 1
        answer = call_user("callback(record)", self.callback, record)
        try:
            self.stopped = _stop_request(answer) or self.stopped
        except TypeError:  # the family's own check refuses it, naming callback (not re-wrapped as the user's)
            pass
        return answer


def _final_record(solution: Solution) -> dict[str, Any]:
    return {"iteration": solution.stats.iterations, "value": solution.value, "retcode": str(solution.retcode)}


def _final_records(solution: Solution, callback: _CountedCallback, store_trace: bool) -> None:
    """A run that made no record (``maxiters=0``, a start that already met its criterion) still calls
    the callback: with the records it stored, or one final record (kept in the trace when stored)."""
    records = list(solution.trace or [])
    if not records:
        records = [_final_record(solution)]
        if store_trace and isinstance(solution.trace, list):
            solution.trace.append(dict(records[0]))
    for record in records:
        _stop_request(callback(dict(record)))  # the run is over: a stop request changes nothing


def _autograd_on() -> contextlib.AbstractContextManager:
    """Autograd on for the solve (a caller's ``torch.no_grad()`` gave torch's "does not require grad")."""
    torch = sys.modules.get("torch")  # not imported: no grad mode can have been set
    if torch is None:
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(torch.inference_mode(False))
    stack.enter_context(torch.enable_grad())
    return stack


def with_autograd(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` run with autograd on, as ``solve`` runs: for a public helper that trains a model (a task
    built by pretraining), which under a caller's ``torch.no_grad()`` or ``torch.inference_mode()`` met
    torch's "element 0 of tensors does not require grad"."""
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        with _autograd_on():
            return func(*args, **kwargs)
    return run


#: the names among ``maxiters``/``tol`` that the running solve's method has read (None outside a solve)
_OPTIONS_READ: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("_options_read", default=None)


class _WatchedOptions(SolveOptions):
    """The options a method's ``_solve`` gets: they record whether it reads ``maxiters`` and ``tol``, so one
    the method has no use for is named (a warning) instead of being dropped in silence."""

    def __getattribute__(self, name: str) -> Any:
        if name in ("maxiters", "tol"):
            reads = _OPTIONS_READ.get()
            if reads is not None:
                reads.add(name)
        return object.__getattribute__(self, name)


def _warn_unused(options: SolveOptions, reads: set[str] | None, algorithm: Algorithm) -> None:
    for name, what in (("maxiters", "iteration cap"), ("tol", "stopping tolerance")):
        value = getattr(options, name)
        if value is not None and reads is not None and name not in reads:
            kind = type(algorithm).__name__
            warnings.warn(f"{name}={value!r} had no effect: this {kind} run used no {what} (an exact or "
                          f"one-pass method, or a problem it solves directly; see its docstring)",
                          UserWarning, stacklevel=3)


def solve(problem: Problem, algorithm: Algorithm, *positional: Any, **options: Any) -> Solution:
    """Solve ``problem`` with ``algorithm``; see the module docstring for the common options.

    ``options`` are keywords only (``maxiters=...``, ``tol=...``; a ``SolveOptions`` is unpacked with
    ``**vars(opts)``); ``positional``, anything passed after the algorithm, is refused by name (Python's
    "takes 2 positional arguments but 3 were given" named no option).

    >>> import numpy as np
    >>> from algorithms.qp import QP, DQP
    >>> sol = solve(QP(P=np.eye(2), q=np.array([-1.0, -1.0])), DQP(backend="clarabel"))
    >>> sol.retcode, np.round(sol.x, 6)
    (<RetCode.Success: 'Success'>, array([1., 1.]))
    """
    for name, value, base, example in (("problem", problem, Problem, "algorithms.qp.QP(...)"),
                                       ("algorithm", algorithm, Algorithm, "algorithms.qp.DQP()")):
        if isinstance(value, type) and issubclass(value, base):   # the class itself: its metaclass was named
            raise TypeError(f"{name} must be an instance, got the class {value.__name__}: pass "
                            f"{value.__name__}(...) (e.g. {example})")
        if not isinstance(value, base):
            raise TypeError(f"{name} must be a{'n' if base is Algorithm else ''} {base.__name__} "
                            f"(e.g. {example}), got {type(value).__name__}")
    if positional:
        raise TypeError(f"solve() takes the options as keywords (maxiters=..., tol=..., seed=...), got "
                        f"{len(positional)} positional argument(s) after the algorithm: "
                        f"{', '.join(type(v).__name__ for v in positional)}")
    opts = SolveOptions.from_kwargs(options)
    for value in (problem, algorithm):
        if type(value) not in (Problem, Algorithm):  # a bare base has no fields to validate
            forget_validation(value)  # restored without its record (a stripped pickle): validated anew
        revalidate_if_reassigned(value)
    problem._check_unchanged()
    counted = None
    if opts.callback is not None:
        counted = _CountedCallback(opts.callback)
        opts = replace(opts, callback=counted)
    start = time.perf_counter()
    watched = _WatchedOptions(**{f.name: getattr(opts, f.name) for f in fields(opts)})
    reads = _OPTIONS_READ.set(set())
    try:
        with _autograd_on():
            solution = _solve(problem, algorithm, watched)
        _warn_unused(opts, _OPTIONS_READ.get(), algorithm)
    finally:
        _OPTIONS_READ.reset(reads)
    if counted is not None and counted.stopped and not algorithm.runs_in_one_pass(problem) \
            and opts.maxiters != 0 \
            and solution.retcode in _STOPPABLE:
        # a True on the record where the method's own test held (or its horizon came) ended Success in the
        # families that test convergence before the callback's answer: the callback stopped it (maxiters=0:
        # the run was over before its first iteration, the rule above)
        solution.retcode = RetCode.Terminated
    if counted is not None and counted.calls == 0:
        _final_records(solution, counted, opts.store_trace)
    elif opts.store_trace and isinstance(solution.trace, list) and not solution.trace:
        # the final record a callback would get, kept without one too (a maxiters=0 trace was empty)
        solution.trace.append(_final_record(solution))
    solution.stats.wall_time = time.perf_counter() - start
    solution.problem = problem
    solution.algorithm = algorithm
    return solution
