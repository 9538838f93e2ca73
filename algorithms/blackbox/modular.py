"""ModularOptimizer: run any valid workflow of the modular space on a BlackBoxProblem.

A workflow (see :mod:`algorithms.blackbox.grammar`) fixes an initialization, a population size,
optional niching, one reproduction family (DE mutation + crossover, GA mutation, PSO update or
Sep-CMA-ES sampling), a boundary control, a selection, and optional population reduction and
restart. One generation of the DE family reads

    groups = niche(X, y)                    (all zero without NICHING)
    V = mutation(X, y; F1, F2, p, groups)
    U = crossover(X, V; Cr)
    U = boundary(U, X)
    yu = f(U)                               (through the budget-capped Evaluator)
    X, y = selection(X, y, U, yu)
    N = reduction(N0, N_min, evaluations / budget);  restart if stagnated

the other families replace the two reproduction lines by ``U = ga_mutation(X)``, a PSO move
of the current positions (selection then updates the personal bests) or ``U ~ Sep-CMA-ES``
(the ES state is updated with the ranked offspring; the population keeps the best N seen).
``hyperparameters`` maps each CONTROLLABLE module to its configuration (defaults in
:data:`~algorithms.blackbox.grammar.CONFIG_SPACE`); a ``controller`` (Agent 2) may replace it
each generation from the 9 progress features of :func:`progress_features`.

Stopping and retcodes: the run stops when the evaluation budget is spent (``MaxIters``: the
budget is the horizon of a budget-bounded black-box search), when ``maxiters`` generations
after the initial population are done (``MaxIters``; ``maxiters=0`` returns the best point of the initial
population), when the problem's ``target`` is reached (``Success``: the only
criterion the method can certify), or when the callback asks (``Terminated``). The callback sees
every evaluated batch, the last one too, one record per generation (iteration 1 also covers the initial
population's evaluations): a run whose initial population already spends the budget
or reaches the target records it as iteration 1 (see :func:`record_last_batch`); a callback returning
True at any record, the last one included, ends the run ``Terminated``. A run that never
saw a finite objective value is ``Diverged``; a NaN or inf value of ``f`` (part-way through a run too) is a
failed evaluation, treated as +inf, and the run goes on (the family's rule, stated in
:class:`~algorithms.blackbox.problem.BlackBoxProblem`). ``stats.f_calls`` is the exact number of objective
evaluations, ``stats.nonfinite`` the number of non-finite values (each treated as +inf).

References
----------
H. Guo et al. DesignX: Human-Competitive Algorithm Designer for Black-Box Optimization.
NeurIPS 2025, arXiv:2505.17866 (Section 3.1, Modular-EC).

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.blackbox import BlackBoxProblem, ModularOptimizer
>>> prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-5 * np.ones(3), 5 * np.ones(3)), 3000)
>>> de = ModularOptimizer(("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"))
>>> sol = solve(prob, de, seed=0)
>>> sol.retcode, sol.stats.f_calls, bool(sol.value < 1e-3)
(<RetCode.MaxIters: 'MaxIters'>, 3000, True)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms._validation import (
    CheckedRecord,
    as_real_array,
    call_user,
    check_bool,
    check_choice,
    check_counts_fit,
    check_finite_real,
    check_int_at_least,
    check_positive_int,
    check_takes,
    read_only,
    remember_validated,
    revalidate_if_reassigned,
    run_values,
    user_range,
)
from algorithms.blackbox.components import (
    N_PARTNERS,
    SepCMAState,
    _box,
    _population,
    _values,
    boundary,
    crossover,
    de_mutation,
    ga_mutation,
    initialize,
    niche,
    pso_update,
    reduced_size,
    select,
)
from algorithms.blackbox.grammar import CONFIG_SPACE, MODULE_TYPE, family_of, validate
from algorithms.blackbox.problem import BlackBoxProblem, Evaluator
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch

__all__ = ["BlackBoxStats", "ModularOptimizer", "RunResult", "WorkflowPlan", "run_workflow"]

#: number of niches when NICHING is in the workflow, fewer if the population is too small: each niche
#: must hold a target and its partners, so min(N_NICHES, N // (partners + 1)) for DE and
#: min(N_NICHES, N // 2) otherwise; no split when that is below 2
N_NICHES = 3
#: generations without improvement of the best-so-far before a stagnation restart: max(30, 300/N)
STALL_MIN = 30
#: relative population spread (std / box width, max over coordinates) below which to restart
DIVERSITY_TOL = 1e-8


@dataclass
class BlackBoxStats(CheckedRecord, Stats):
    """Stats plus the count of non-finite objective values (each treated as the worst value) and of
    restarts; every count an int in [0, 2**63 - 1] (2**64 was kept), checked when set too."""

    nonfinite: int = 0
    restarts: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        check_counts_fit(self)
        if self.nonfinite > self.f_calls:   # they are among the evaluations (5 of 1 was kept)
            raise ValueError(f"nonfinite must be <= f_calls = {self.f_calls} (the non-finite values are "
                             f"among the evaluations), got {self.nonfinite}")
        self._checked()


@dataclass(frozen=True)
class WorkflowPlan:
    """A validated workflow parsed into its slots (``None`` where a slot is empty).

    Build it with :meth:`parse`; the slots must be the workflow's (checked): ``workflow`` (the module
    names), ``init`` (the initialization's tail), ``pop`` (the population-size module), ``family``
    (``"de"``, ``"ga"``, ``"pso"`` or ``"es"``, read off the modules), ``niching``, ``mutation`` (DE
    mutation),
    ``crossover`` (DE crossover), ``ga`` (GA mutation), ``bc`` (boundary control), ``selection``,
    ``reduction`` (population reduction) and ``restart``: each the module's name after its type prefix.
    """

    workflow: tuple[str, ...]
    init: str
    pop: str
    family: str
    niching: str | None
    mutation: str | None
    crossover: str | None
    ga: str | None
    bc: str
    selection: str
    reduction: str | None
    restart: str | None

    def __post_init__(self) -> None:
        # built directly (not by parse), the slots must be the workflow's: WorkflowPlan(("a",), "x", ...) ran
        names = validate(self.workflow)
        object.__setattr__(self, "workflow", names)
        if (names, *_slots(names)) != tuple(getattr(self, f) for f in self.__dataclass_fields__):
            raise ValueError(f"workflow and the slots disagree: build a plan with "
                             f"WorkflowPlan.parse(workflow) (workflow {names!r})")
        remember_validated(self)

    @classmethod
    def parse(cls, workflow: Sequence[str]) -> WorkflowPlan:
        names = validate(workflow)
        return cls(names, *_slots(names))

    def controllable(self) -> tuple[str, ...]:
        return tuple(n for n in self.workflow if n in CONFIG_SPACE)

    def min_size(self) -> int:
        """The smallest population this workflow runs with (DE needs distinct partners)."""
        return N_PARTNERS[self.mutation] + 1 if self.family == "de" else 2

    def size(self, dim: int, budget: int) -> int:
        """The population size for a problem of dimension ``dim`` and evaluation ``budget`` (both ints in
        [1, 2**63 - 1]): the module's size, cut to the budget, at least the family's fewest."""
        dim, budget = check_positive_int("dim", dim), check_positive_int("budget", budget)
        base = {"pop.cma": 4 + int(3 * math.log(dim)), "pop.20": 20, "pop.50": 50, "pop.100": 100,
                "pop.5d": 5 * dim, "pop.10d": 10 * dim, "pop.15d": 15 * dim}[self.pop]
        return int(max(self.min_size(), min(base, budget)))


def _slots(names: tuple[str, ...]) -> tuple:
    """A valid workflow's slots, in WorkflowPlan's field order after ``workflow``."""
    slot = {MODULE_TYPE[n]: n for n in names}
    tail = lambda key: None if key not in slot else slot[key].split(".", 1)[1]  # noqa: E731
    return (tail("INITIALIZATION"), slot["POPULATION_SIZE"], family_of(names), tail("NICHING"),
            tail("DE_MUTATION"), tail("DE_CROSSOVER"), tail("GA_MUTATION"), tail("BOUNDARY_CONTROL"),
            tail("SELECTION"), tail("POPULATION_REDUCTION"), tail("RESTART"))


def _check_hyperparameters(plan: WorkflowPlan, hyperparameters: Any, name: str = "hyperparameters", *,
                           defaults: bool = True, slack: float = 0.0) -> dict[str, dict[str, float]]:
    """Checked ``{module: {name: value}}`` over the defaults (``defaults=False``: the given entries only).
    ``slack`` (a fraction of a range) lets a decoded action's rounding past a bound through, clipped."""
    if hyperparameters is None:
        hyperparameters = {}
    if not isinstance(hyperparameters, Mapping):
        raise TypeError(f"{name} must be a mapping module -> {{name: value}}, got "
                        f"{type(hyperparameters).__name__} {hyperparameters!r:.60}")
    controllable = plan.controllable()
    out = {n: {p[0]: p[3] for p in CONFIG_SPACE[n]} for n in controllable} if defaults else {}
    for module, config in hyperparameters.items():
        if module not in controllable:
            raise ValueError(f"{name} names module {module!r}, which is not a CONTROLLABLE module "
                             f"of the workflow (controllable here: {sorted(controllable)})")
        if not isinstance(config, Mapping):
            raise TypeError(f"{name}[{module!r}] must be a mapping name -> value, got "
                            f"{type(config).__name__}")
        space = {p[0]: p for p in CONFIG_SPACE[module]}
        for key, value in config.items():
            if key not in space:
                raise ValueError(f"{name}[{module!r}] has no parameter {key!r} "
                                 f"(expected one of {sorted(space)})")
            _, lo, hi, _, _ = space[key]
            pad = slack * (hi - lo)
            # numpy numbers too (not complex ones: np.number let np.complex128 through, cut to its real part)
            if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
                # a 0-d array or a tensor of 0.5 was told it lay outside [lo, hi] (red23a)
                raise ValueError(f"{name}[{module!r}][{key!r}] must be a real number (not "
                                 f"{type(value).__name__}) in [{lo}, {hi}], got {value!r}")
            if not lo - pad <= value <= hi + pad:
                raise ValueError(f"{name}[{module!r}][{key!r}] must be a number in [{lo}, {hi}], "
                                 f"got {value!r}")
            out.setdefault(module, {})[key] = min(max(float(value), lo), hi)
    return out


#: the largest budget a looping method spends without a generation cap: 10**6 evaluations of a cheap f take
#: seconds (RandomSearch) to minutes (CMAES: 36 s for 10**5 on a busy machine); 10**8 and 2**40 ran for hours
LOOP_BUDGET_MAX = 10**6


def check_loop_budget(problem: BlackBoxProblem, options: SolveOptions, owner: str) -> None:
    """A method that loops until the budget is spent: without ``maxiters`` a budget past 10**6 is a hang
    (2**40 ran on for ever in RandomSearch, CMAES, PSO and the workflows; ScipyDE has its own horizon)."""
    if options.maxiters is None and problem.budget > LOOP_BUDGET_MAX:
        raise ValueError(f"problem.budget = {problem.budget} is too large for {owner} without maxiters: it "
                         f"evaluates until the budget is spent, at most 10**6 evaluations (LOOP_BUDGET_MAX: "
                         f"10**8 ran for hours); pass maxiters (generations) or a smaller budget")


def check_maxiters(maxiters: Any) -> int | None:
    """A generation cap: None or an int >= 0 (-1 stopped at once, "5" failed inside a comparison)."""
    return None if maxiters is None else check_int_at_least("maxiters", maxiters, 0)


@dataclass(frozen=True)
class ModularOptimizer(Algorithm):
    """An optimizer of the modular space: a valid ``workflow`` and its ``hyperparameters``.

    ``hyperparameters`` (optional) maps CONTROLLABLE modules of the workflow to
    ``{name: value}``; missing entries take the defaults of ``CONFIG_SPACE``; each value a real number in
    its module's range there (e.g. DE's F1 in [0, 1], Cr in [0, 1], PSO's w in [0.2, 1]).

    Solve options: ``maxiters`` caps the generations after the initial population (``maxiters=0``: the best
    point of the initial population, ``MaxIters``); ``tol`` is accepted (checked by ``solve``) and not
    used: the budget, ``maxiters`` or the problem's ``target`` end a run; ``seed=None`` draws fresh OS
    entropy (another run each time).
    A NaN or inf value of the problem's ``f`` (part-way through a run too) is a failed evaluation (+inf,
    counted in ``stats.nonfinite``), not a ``Diverged`` run: the family's rule, stated in
    :class:`~algorithms.blackbox.problem.BlackBoxProblem`.
    """

    workflow: tuple[str, ...]
    hyperparameters: Any = field(default=None, hash=False)   # a dict: hashed by the workflow alone
    plan: WorkflowPlan = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        plan = WorkflowPlan.parse(self.workflow)
        object.__setattr__(self, "workflow", plan.workflow)
        object.__setattr__(self, "hyperparameters", _check_hyperparameters(plan, self.hyperparameters))
        object.__setattr__(self, "plan", plan)
        remember_validated(self)


@dataclass(eq=False)   # identity ==: the generated one compared arrays ("truth value ... ambiguous")
class RunResult(CheckedRecord):
    """What :func:`run_workflow` returns (the evaluator holds the counts and the best point).

    ``stop`` one of ``STOPS``, ``generations`` and ``restarts`` ints >= 0, ``trace`` a list of records
    (dicts), ``last_X`` the last population, a finite (n, d) array, stored read-only (in immutable memory:
    ``result.last_X[0, 0] = nan`` fails in the caller's own statement); checked when set too. ``trace``
    is the caller's own, as :class:`~algorithms.core.Solution`'s: a record appended in place is not
    checked again."""

    stop: str
    generations: int
    restarts: int
    trace: list[dict[str, Any]]
    last_X: np.ndarray

    #: why a run stops (finish maps them to retcodes)
    STOPS = ("target", "budget", "maxiters", "callback")

    def __post_init__(self) -> None:   # a public record: "done" reached finish's retcode table as a KeyError
        check_choice("stop", self.stop, self.STOPS)
        self.generations = check_int_at_least("generations", self.generations, 0)
        self.restarts = check_int_at_least("restarts", self.restarts, 0)
        if not isinstance(self.trace, list) or not all(isinstance(r, dict) for r in self.trace):
            # ["x", None] was kept
            raise TypeError(f"trace must be a list of records (dicts), got {self.trace!r:.60}")
        # the last population: a str, None, NaN rows or a 3-D array were kept as given
        last_X = as_real_array("last_X", self.last_X)
        if last_X.ndim != 2 or 0 in last_X.shape or not np.all(np.isfinite(last_X)):   # (0, 2) was kept
            raise ValueError(f"last_X must be the last population, a finite (n, d) array, got shape "
                             f"{last_X.shape}{'' if np.all(np.isfinite(last_X)) else ' with NaN or inf'}")
        self.last_X = read_only(last_X)   # last_X[0, 0] = nan in place went unchecked
        self._checked()   # a field set later is checked alike


def _diversity_lost(X: np.ndarray, width: np.ndarray, es: SepCMAState | None = None) -> bool:
    """The DIVERSITY restart's test: every coordinate's spread is below ``DIVERSITY_TOL`` of the box
    width, strictly. For a population ``X``, its standard deviation over the individuals relative to the
    coordinate's width (the largest of them below the tolerance); for the ES family (``es`` given), the
    search distribution's largest standard deviation σ·√max(c) below the tolerance times the largest width."""
    if es is not None:
        return es.sigma * math.sqrt(float(es.c.max())) < DIVERSITY_TOL * float(width.max())
    return float(np.max(X.std(0) / width)) < DIVERSITY_TOL


def _init_best(value: Any) -> float:
    """The initial best value: a real number, +inf before any finite one (never NaN or -inf); a user's
    finite one inside the working range (a run's own is f's, of any size)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"init_best must be a real number, got {type(value).__name__} {value!r:.40}")
    value = float(value)
    if math.isnan(value) or value == -math.inf:
        raise ValueError(f"init_best must be a real number or +inf, got {value!r}")
    if math.isfinite(value) and user_range():
        check_finite_real("init_best", value)
    return value


def progress_features(ev: Evaluator, X: np.ndarray, y: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                      stall: int, success: float, improved: bool, init_best: float) -> np.ndarray:
    """Agent 2's 9 observations of the run (each scale-free, roughly in [0, 1]).

    budget used; stagnation (generations without improvement / 50, capped at 1); population
    value spread ((mean − min of its finite values) over |initial best − best so far| +
    1e-12·(1 + |best so far|), capped at 1); population diversity (mean distance to the centroid /
    box diagonal); progress (initial best − best) / (|initial best| + |best| + 1e-12), capped to
    [0, 2]; last generation's success rate; whether the best improved; population size / 100;
    log10(dimension) / 2.

    Degenerate cases (as when the shipped Agent 2 was trained, da35190): the spread is 0 when no value of
    the population is finite, and the progress is 0 while the initial best is not finite.

    ``ev`` is the run's :class:`Evaluator`, ``X`` (N, d) its population inside the box ``lower``/``upper``
    and ``y`` (N,) their values (+inf the worst, never NaN), ``stall`` an int >= 0, ``success`` in [0, 1],
    ``improved`` a bool and ``init_best`` a real number (+inf before any finite value).
    """
    # a public function: 1e300 entries, NaN values or a str were answered in silence (nothing was checked)
    if not isinstance(ev, Evaluator):
        raise TypeError(f"ev must be an Evaluator, got {type(ev).__name__}")
    X = _population("X", X)
    y = _values("y", y, X.shape[0])
    lower, upper = _box(lower, upper, X.shape[1])
    stall = check_int_at_least("stall", stall, 0)
    success = check_finite_real("success", success)
    if not 0.0 <= success <= 1.0:
        raise ValueError(f"success (a success rate) must lie in [0, 1], got {success!r}")
    improved = check_bool("improved", improved)
    init_best = _init_best(init_best)
    # in units of the widest side: the norms' squares underflowed on a box of side 1e-200 (the diagonal was
    # 0 and the diversity a ZeroDivisionError) and overflow on one of side 1e200
    side = float(np.max(upper - lower))
    side = side if not 1e-150 <= side <= 1e150 else 1.0   # boxes of ordinary size stay exactly as they are
    diag = float(np.linalg.norm((upper - lower) / side))
    finite = y[np.isfinite(y)]
    best = ev.best_value
    scale = abs(init_best - best) + 1e-12 * (1 + abs(best))
    spread = 0.0 if finite.size == 0 else min(1.0, float(finite.mean() - finite.min()) / scale)
    diversity = float(np.linalg.norm((X - X.mean(0)) / side, axis=1).mean()) / diag
    progress = (init_best - best) / (abs(init_best) + abs(best) + 1e-12) if math.isfinite(init_best) else 0.0
    return np.array([ev.evaluations / ev.problem.budget, min(1.0, stall / 50.0), spread, diversity,
                     min(max(progress, 0.0), 2.0), success, float(improved), len(X) / 100.0,
                     math.log10(len(lower)) / 2.0])


Controller = Callable[[np.ndarray], Mapping[str, Mapping[str, float]] | None]


def run_workflow(plan: WorkflowPlan, ev: Evaluator, rng: np.random.Generator,
                 hyperparameters: Mapping[str, Mapping[str, float]], *, controller: Controller | None = None,
                 maxiters: int | None = None, monitor: IterationMonitor | None = None,
                 control_interval: int = 1) -> RunResult:
    """Run ``plan`` against ``ev`` until its budget, ``maxiters`` generations, the target, or a stop.

    ``rng`` (a ``numpy.random.Generator``) draws every random choice of the run; ``monitor`` (an
    :class:`~algorithms.core.IterationMonitor` or None) records each generation.

    ``hyperparameters`` ({module: {name: value}}, each value a real number in its range of
    ``grammar.CONFIG_SPACE``) may leave values out: those run at their documented defaults. ``maxiters``
    None or an int in [0, 2**63 - 1].

    ``controller(obs)`` (optional, Agent 2) returns hyperparameters (a mapping, ``{}`` for no change; None is
    refused naming it), asked before every
    ``control_interval``-th generation (an int >= 1; the values then hold until the next call).
    """
    with run_values():   # the operators get the run's own populations and f's values (any finite size)
        return _run_workflow(plan, ev, rng, hyperparameters, controller=controller, maxiters=maxiters,
                             monitor=monitor, control_interval=control_interval)


def _run_workflow(plan: WorkflowPlan, ev: Evaluator, rng: np.random.Generator,
                  hyperparameters: Mapping[str, Mapping[str, float]], *, controller: Controller | None = None,
                  maxiters: int | None = None, monitor: IterationMonitor | None = None,
                  control_interval: int = 1) -> RunResult:
    """:func:`run_workflow` itself (its arrays the run's own: see the shared ``run_values``)."""
    # a WorkflowPlan (or the PSO baseline's wrapper of one): an object with a family attribute alone met an
    # AttributeError ('controllable') inside
    if not isinstance(getattr(plan, "_plan", plan), WorkflowPlan):
        raise TypeError(f"plan must be a WorkflowPlan (WorkflowPlan.parse(workflow)), got "
                        f"{type(plan).__name__}")
    revalidate_if_reassigned(getattr(plan, "_plan", plan))
    if not isinstance(ev, Evaluator):
        raise TypeError(f"ev must be an Evaluator, got {type(ev).__name__}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    control_interval = check_positive_int("control_interval", control_interval)
    maxiters = check_maxiters(maxiters)
    if controller is not None:
        check_takes("controller", controller, "controller(obs)", 1)
    if monitor is not None and not callable(getattr(monitor, "record", None)):
        raise TypeError(f"monitor must be an IterationMonitor (an object with record(**fields)), got "
                        f"{type(monitor).__name__}")
    hyperparameters = _check_hyperparameters(plan, hyperparameters)  # None or a partial mapping: defaults
    prob = ev.problem
    lo, hi = prob.lower.astype(float), prob.upper.astype(float)
    width = hi - lo
    d, budget = prob.dim, prob.budget
    N0 = plan.size(d, budget)
    n_min = max(plan.min_size(), 4)
    # the values given, over the documented defaults of every controllable module (grammar.CONFIG_SPACE)
    hp = {m: {p[0]: p[3] for p in CONFIG_SPACE[m]} for m in plan.controllable()}
    for k, v in hyperparameters.items():
        hp.setdefault(k, {}).update(v)
    restarts, gen, stall, trace = 0, 0, 0, []
    patience = max(STALL_MIN, int(300 / N0))

    def start(n: int):
        X0 = initialize(plan.init, n, lo, hi, rng)
        return X0, ev(X0)

    X, y = start(N0)
    init_best = float(np.min(y)) if np.any(np.isfinite(y)) else math.inf
    Xc, V = X.copy(), np.zeros_like(X)                      # PSO: current positions, velocities
    es = _es_start(X, y, lo, hi) if plan.family == "es" else None
    success, improved = 0.0, False
    stop = "budget"
    while True:
        if maxiters == 0:   # core: the start with MaxIters, also when it meets the target (it ended Success)
            stop = "maxiters"
            break
        if ev.target_reached():
            stop = "target"
            break
        if ev.exhausted:
            stop = "budget"
            break
        if maxiters is not None and gen >= maxiters:
            stop = "maxiters"
            break
        if controller is not None and gen % control_interval == 0:
            obs = progress_features(ev, X, y, lo, hi, stall, success, improved, init_best)
            # the user's controller: what it returns is checked like hyperparameters, naming it (a str gave
            # "'str' object has no attribute 'items'", w = NaN a NaN population); 1e-9 of a range lets
            # a decoded action's rounding past a bound through
            answer = call_user("controller(obs)", controller, obs)
            if answer is None:   # a controller that forgot its return ran on as "no change" (red23a)
                raise TypeError("controller(obs) must return a mapping module -> {name: value} ({} for no "
                                "change), got None")
            update = _check_hyperparameters(plan, answer, "controller(obs)", defaults=False, slack=1e-9)
            if update:
                for module, config in update.items():
                    hp[module].update(config)
        best_before = ev.best_value
        N = len(X)
        groups = None
        if plan.niching is not None:
            need = N_PARTNERS[plan.mutation] + 1 if plan.family == "de" else 2
            k = min(N_NICHES, N // need)
            if k >= 2:
                groups = niche(plan.niching, X, y, k, rng)
        if plan.family == "de":
            m = hp[f"de.{plan.mutation}"]
            Vd = de_mutation(plan.mutation, X, y, rng, F1=m["F1"], F2=m["F2"], p=m["p"], groups=groups)
            U = crossover(plan.crossover, X, Vd, hp[f"cx.{plan.crossover}"]["Cr"], rng)
            U = boundary(plan.bc, U, X, lo, hi, rng)
            yu = ev(U)
            success = float(np.mean(yu < y))
            X, y = select(plan.selection, X, y, U, yu, rng)
        elif plan.family == "ga":
            cfg = hp[f"ga.{plan.ga}"]
            U = ga_mutation(plan.ga, X, lo, hi, rng, **cfg)
            U = boundary(plan.bc, U, X, lo, hi, rng)
            yu = ev(U)
            success = float(np.mean(yu < y))
            X, y = select(plan.selection, X, y, U, yu, rng)
        elif plan.family == "pso":
            cfg = hp["pso.inertia"]
            U, V = pso_update(Xc, V, X, y, lo, hi, rng, w=cfg["w"], c1=cfg["c1"], c2=cfg["c2"], groups=groups)
            U = boundary(plan.bc, U, Xc, lo, hi, rng)
            yu = ev(U)
            success = float(np.mean(yu < y))
            X, y = select("greedy", X, y, U, yu, rng)        # personal bests
            Xc = U
        else:
            U = es.sample(N, rng)
            U = boundary(plan.bc, U, np.broadcast_to(np.clip(es.m, lo, hi), U.shape), lo, hi, rng)
            yu = ev(U)
            success = float(np.mean(yu < np.median(y)))
            es.update(U, yu, hp["es.sep_cmaes"]["mu_ratio"])
            X, y = select("mu_plus_lambda", X, y, U, yu, rng)
        gen += 1
        improved = ev.best_value < best_before
        stall = 0 if improved else stall + 1
        if plan.reduction is not None:
            n_new = reduced_size(plan.reduction, N0, n_min, ev.evaluations / budget)
            if n_new < len(X):
                keep = np.argsort(y, kind="stable")[:n_new]
                X, y, Xc, V = X[keep], y[keep], Xc[keep], V[keep]
        if plan.restart is not None and not ev.exhausted:
            if plan.restart == "stagnation":
                trigger = stall >= patience
            else:
                trigger = _diversity_lost(X, width, es)
            if trigger:
                X, y = start(len(X))
                Xc, V = X.copy(), np.zeros_like(X)
                es = _es_start(X, y, lo, hi) if plan.family == "es" else None
                restarts += 1
                stall = 0
        record = {"iteration": gen, "evaluations": ev.evaluations, "best_value": ev.best_value, "pop": len(X)}
        trace.append(record)  # before the callback, so a run it stops keeps the record it saw
        if monitor is not None and monitor.record(**record):
            stop = "callback"
            break
    if record_last_batch(monitor, trace, ev, stop, pop=len(X)):
        stop = "callback"
    return RunResult(stop, len(trace), restarts, trace, X)


def record_last_batch(monitor: IterationMonitor | None, trace: list[dict[str, Any]], ev: Evaluator, stop: str,
                      **fields: Any) -> bool:
    """Record the evaluations no iteration record covers yet, as one more iteration; True when the
    callback asked to stop there.

    A run that ends on its budget or its target inside a batch it never recorded (an initial
    population larger than the budget, pycma's first point, a generation cut by the budget) would
    otherwise end without the callback ever seeing it. It is a record like any other: a callback that
    returns True for it ends the run ``Terminated`` (it ended ``Success`` or ``MaxIters``, in silence).
    """
    covered = trace[-1]["evaluations"] if trace else 0
    if stop in ("budget", "target") and ev.evaluations > covered:
        record = {"iteration": len(trace) + 1, "evaluations": ev.evaluations, "best_value": ev.best_value,
                  **fields}
        trace.append(record)
        if monitor is not None:
            return bool(monitor.record(**record))
    return False


def _es_start(X: np.ndarray, y: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> SepCMAState:
    """The ES family's Sep-CMA state: mean at the best individual, per-coordinate sd σ√c = width / 4."""
    width = hi - lo
    i = int(np.argmin(y)) if np.any(np.isfinite(y)) else 0
    scale = float(width.mean())
    state = SepCMAState.start(X[i], 0.25 * scale)
    state.c = (width / scale) ** 2
    return state


def finish(problem: BlackBoxProblem, ev: Evaluator, result: RunResult, options: SolveOptions,
           extra: dict[str, Any] | None = None) -> Solution:
    """The Solution of a run: best point, retcode by why it stopped, exact counts."""
    stats = BlackBoxStats(iterations=result.generations, f_calls=ev.evaluations, nonfinite=ev.nonfinite,
                          restarts=result.restarts)
    if ev.best_x is None:
        x = np.array(result.last_X[0], dtype=problem.dtype)   # a copy: sol.x is the caller's own
        return Solution(x, math.nan, RetCode.Diverged, stats, result.trace if options.store_trace else [],
                        original=extra)
    code = {"target": RetCode.Success, "budget": RetCode.MaxIters, "maxiters": RetCode.MaxIters,
            "callback": RetCode.Terminated}[result.stop]
    if code is RetCode.Success and not ev.target_reached():  # a Success must carry the target value
        code = RetCode.Failure
    x = np.asarray(ev.best_x, dtype=problem.dtype)
    return Solution(x, float(ev.best_value), code, stats, result.trace if options.store_trace else [],
                    original=extra)


@_dispatch
def _solve(problem: BlackBoxProblem, algorithm: ModularOptimizer, options: SolveOptions) -> Solution:
    check_loop_budget(problem, options, "ModularOptimizer")
    rng = np.random.default_rng(options.seed)
    ev = Evaluator(problem)
    monitor = IterationMonitor(options, total=options.maxiters or 0, desc="ModularOptimizer")
    try:
        result = run_workflow(algorithm.plan, ev, rng, algorithm.hyperparameters, maxiters=options.maxiters,
                              monitor=monitor)
    finally:
        monitor.close()
    return finish(problem, ev, result, options, {"workflow": algorithm.workflow})
