"""Hand-crafted baselines under the same budget and counting: scipy DE, CMA-ES, PSO, random search.

Every baseline reaches the objective only through the budget-capped
:class:`~algorithms.blackbox.problem.Evaluator`, so ``stats.f_calls`` counts exactly the same
thing as for DesignX, and no baseline ever evaluates past the budget.

* :class:`ScipyDE`: ``scipy.optimize.differential_evolution`` (``vectorized=True``,
  ``updating="deferred"``, ``polish=False`` so that no L-BFGS-B evaluations are spent outside
  the count, ``tol = 0``, ``atol = -1``: scipy's convergence test never ends a run, so values of tiny spread,
  whose standard deviation underflows to 0, and a flat f run on like any other); the wrapped objective raises
  an internal stop once the budget is spent (or the target reached) and the best point the evaluator saw is
  returned.
* :class:`CMAES`: ``cma`` (pycma) ask/tell with box bounds, x0 uniform in the box, σ0 =
  ``sigma0``·mean width, default population size, restarted from a fresh x0 when pycma's own
  termination criteria fire, until the budget is spent (its value tolerances ``tolfun``/``tolfunhist`` in f's
  units: times the power of two nearest |f(x0)| when that lies outside [2**-10, 2**10]).
* :class:`PSO`: inertia-weight PSO (w = 0.7298, c1 = c2 = 1.49618, Clerc-Kennedy's values),
  swarm of 40, clipping, built from the same components as the modular space.
* :class:`RandomSearch`: uniform samples in batches of ``batch``.

Retcodes as everywhere in the family: ``MaxIters`` when the budget (or ``maxiters``) ends,
``Success`` only if the problem's ``target`` is reached, ``Diverged`` only if no finite value was seen: a
NaN or inf value of ``f``, at any call (part-way through a run too), is a failed evaluation counted as +inf
and in ``stats.nonfinite``, and the run goes on (the family's rule,
:class:`~algorithms.blackbox.problem.BlackBoxProblem`).
Solve options: ``maxiters`` = k caps the generations after the initial population: ScipyDE, CMAES
and PSO evaluate their initial population (CMAES: its x0) and at most k generations after it, RandomSearch
at most k batches; ``maxiters=0`` returns the best point of the initial population (RandomSearch: of its
first batch) with ``MaxIters``; ``tol`` is accepted (checked by ``solve``)
and not used: the budget, ``maxiters`` or the problem's ``target`` end a run; ``seed`` seeds every
draw, and ``seed=None`` draws fresh OS entropy (another run each time).
A ``callback`` sees every evaluated batch, the last one too: one record per generation (iteration 1 also
covers the initial population's evaluations), also when the budget is below one population (that batch is
then iteration 1); True returned at any record, the last one included, ends
the run ``Terminated``.

References
----------
R. Storn, K. Price 1997 (DE); N. Hansen, A. Ostermeier 2001 (CMA-ES), pycma; J. Kennedy,
R. Eberhart 1995, M. Clerc, J. Kennedy 2002 (PSO); H. Guo et al. DesignX, arXiv:2505.17866
(Section 4, the baselines).

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.blackbox import bbob_problem
>>> p = bbob_problem(1, 6, 3, 600)
>>> [solve(p, alg, seed=0).stats.f_calls for alg in (ScipyDE(), CMAES(), PSO(), RandomSearch())]
[600, 600, 600, 600]
"""

from __future__ import annotations

import math
import numbers
import sys
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from algorithms._validation import (
    check_choice,
    check_count,
    check_fits_memory,
    check_positive,
    remember_validated,
)
from algorithms.blackbox.modular import (
    RunResult,
    WorkflowPlan,
    check_loop_budget,
    finish,
    record_last_batch,
    run_workflow,
)
from algorithms.blackbox.problem import BlackBoxProblem, Evaluator
from algorithms.core import Algorithm, IterationMonitor, Solution, SolveOptions, _dispatch

__all__ = ["CMAES", "PSO", "RandomSearch", "ScipyDE"]


class _Stop(Exception):
    """Raised inside a wrapped backend's objective when the budget is spent or the target reached."""


def _range01(name: str, value, lo: float, hi: float) -> float:
    # numpy scalars too (np.float32(0.7) was refused as "not a number"); never a bool
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        # the type named (ValueError as before): a 0-d array 0.5 was told it lay outside [lo, hi] (red23a)
        raise ValueError(f"{name} must be a real number (not {type(value).__name__}) in [{lo}, {hi}], got "
                         f"{value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be a number in [{lo}, {hi}], got {value!r}")
    return float(value)


class _UserError(Exception):
    """Carries the evaluator's TypeError/ValueError (about the user's f) through scipy's DE loop."""


@dataclass(frozen=True)
class ScipyDE(Algorithm):
    """scipy's differential evolution: ``strategy``, ``popsize`` (× d), ``mutation`` (float or
    (lo, hi) dithering), ``recombination``, ``init``.

    ``popsize`` an int >= 1 (a solve refuses, naming it, a population of popsize·d points whose arrays
    exceed this machine's memory); ``mutation`` in [0, 2) or a pair lo <= hi in it; ``recombination``
    in [0, 1]. Solve options as in the module docstring (``tol`` unused, ``seed=None`` OS entropy).
    A NaN or inf value of the problem's ``f`` (part-way through a run too) is a failed
    evaluation (+inf, counted in ``stats.nonfinite``), not a ``Diverged`` run: the family's rule, stated in
    :class:`~algorithms.blackbox.problem.BlackBoxProblem`."""

    strategy: str = "best1bin"
    popsize: int = 15
    mutation: float | tuple[float, float] = (0.5, 1.0)
    recombination: float = 0.7
    init: str = "latinhypercube"

    def __post_init__(self) -> None:
        check_choice("strategy", self.strategy, ("best1bin", "rand1bin", "best1exp", "rand1exp", "rand2bin",
                                                 "best2bin", "currenttobest1bin", "randtobest1bin"))
        # a population of popsize × d points, allocated by scipy; the checked values are stored as Python
        # numbers (np.int64 / np.float32 were kept as given)
        object.__setattr__(self, "popsize", check_count("popsize", self.popsize, 1))
        # scipy refuses a mutation constant of 2 or more (its range is [0, 2)): refuse it here, naming
        # the argument, rather than deep inside the solve; a list pair is stored as a (hashable) tuple
        pair = isinstance(self.mutation, tuple | list)
        entries = tuple(self.mutation) if pair else (self.mutation,)
        odd = [v for v in entries if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real)]
        if odd and not (pair and len(entries) != 2):   # a 0-d array was told it lay outside [0, 2) (red23a)
            raise ValueError(f"mutation must be a real number in [0, 2) or a pair of them (not "
                             f"{type(odd[0]).__name__}), got {self.mutation!r}")
        if ((pair and len(entries) != 2)
                or any(isinstance(v, bool | np.bool_)
                       or not isinstance(v, numbers.Real) for v in entries)
                or not all(0 <= v < 2.0 for v in entries) or entries[0] > entries[-1]):
            raise ValueError(f"mutation must be a float in [0, 2) or a pair 0 <= lo <= hi < 2, "
                             f"got {self.mutation!r}")
        entries = tuple(float(v) for v in entries)
        object.__setattr__(self, "mutation", entries if pair else entries[0])
        object.__setattr__(self, "recombination", _range01("recombination", self.recombination, 0.0, 1.0))
        check_choice("init", self.init, ("latinhypercube", "sobol", "halton", "random"))
        remember_validated(self)   # a field replaced later with object.__setattr__ is refused by solve


@_dispatch
def _solve(problem: BlackBoxProblem, algorithm: ScipyDE, options: SolveOptions) -> Solution:
    from scipy.optimize import differential_evolution

    # scipy allocates its population (popsize·d rows of d) and trials up front: 10**9 raised its MemoryError
    check_fits_memory("ScipyDE", "popsize", algorithm.popsize,
                      32.0 * algorithm.popsize * problem.dim * (problem.dim + 2))
    ev = Evaluator(problem)
    monitor = IterationMonitor(options, total=options.maxiters or 0, desc="ScipyDE")
    trace, stop = [], "budget"

    def fun(xs: np.ndarray) -> np.ndarray:
        if ev.exhausted or ev.target_reached():
            raise _Stop
        try:
            values = ev(np.atleast_2d(xs.T))
        except (TypeError, ValueError) as exc:  # scipy rewraps these as its own "map-like" RuntimeError
            raise _UserError(exc) from exc
        return np.where(np.isfinite(values), values, np.finfo(float).max)

    def callback(intermediate_result) -> bool:
        record = {"iteration": len(trace) + 1, "evaluations": ev.evaluations, "best_value": ev.best_value}
        trace.append(record)
        return bool(monitor.record(**record))

    # no horizon set: the budget alone ends the run, so scipy gets the largest count it can loop to
    # (any finite default, scipy's own 1000 or 10⁹, would stop a large budget early with MaxIters)
    maxiter = options.maxiters if options.maxiters is not None else sys.maxsize
    bounds = list(zip(problem.lower.astype(float), problem.upper.astype(float)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = differential_evolution(fun, bounds, strategy=algorithm.strategy, maxiter=maxiter,
                                         popsize=algorithm.popsize, tol=0.0, atol=-1.0,
                                         mutation=algorithm.mutation, recombination=algorithm.recombination,
                                         rng=options.seed, polish=False,
                                         init=algorithm.init, updating="deferred", vectorized=True,
                                         callback=callback)
        stop = "callback" if "callback" in str(res.message).lower() else "maxiters"
        # maxiters = 0: the start with MaxIters (core), also when it meets the target
        if stop == "maxiters" and ev.target_reached() and options.maxiters != 0:
            stop = "target"
    except _Stop:
        res = None
        stop = "maxiters" if options.maxiters == 0 else "target" if ev.target_reached() else "budget"
        # the initial population or a generation the budget cut: scipy's callback never saw it
        if record_last_batch(monitor, trace, ev, stop):
            stop = "callback"
    except _UserError as wrapped:  # the checked evaluator's own message, naming f
        raise wrapped.args[0] from None
    finally:
        monitor.close()
    return finish(problem, ev, RunResult(stop, len(trace), 0, trace, np.atleast_2d(problem.lower)), options,
                  {"backend": res})


def _unit(value: float) -> float:
    """1.0, or the power of two nearest |value| when that lies outside [2**-10, 2**10] (a non-finite or zero
    value: 1.0): the units of f that absolute tolerances are scaled to."""
    if not (math.isfinite(value) and value != 0.0):
        return 1.0
    k = round(math.log2(abs(value)))
    return 1.0 if -10 <= k <= 10 else 2.0 ** k


#: above this dimension pycma's median-based stagnation stop (option ``tolstagnation``) is switched off
#: with pycma's own off value 0: pycma's source flags that test for early stops on tablet-type functions
#: in high dimension; the budget and pycma's other stops then end each run. Up to it pycma's default holds
CMA_STAGNATION_OFF_ABOVE = 100


@dataclass(frozen=True)
class CMAES(Algorithm):
    """pycma's CMA-ES with restarts: ``sigma0`` (fraction of the mean box width), ``popsize``
    (None: pycma's default 4 + ⌊3 ln d⌋). Above :data:`CMA_STAGNATION_OFF_ABOVE` dimensions pycma's
    stagnation stop is off.

    ``sigma0`` a float in [1.18e-38, 10] (0 and subnormals refused); ``popsize`` None or an int >= 2 (a
    solve refuses, naming it, a population whose arrays exceed this machine's memory: 10**9 hung inside
    pycma). Solve options as in the module docstring (``tol`` unused, ``seed=None`` OS entropy).
    A NaN or inf value of the problem's ``f`` (part-way through a run too) is a failed
    evaluation (+inf, counted in ``stats.nonfinite``), not a ``Diverged`` run: the family's rule, stated in
    :class:`~algorithms.blackbox.problem.BlackBoxProblem`."""

    sigma0: float = 0.25
    popsize: int | None = None

    def __post_init__(self) -> None:
        sigma0 = check_positive("sigma0", self.sigma0)
        if sigma0 < np.finfo(np.float64).tiny:   # a subnormal step (5e-324) that pycma multiplies by widths
            raise ValueError(f"sigma0 must be >= 2.2e-308 (not subnormal), got {sigma0!r}")
        if sigma0 > 10:   # ten box widths: every sample lands far outside, the search runs on the box's faces
            raise ValueError(f"sigma0 must be <= 10 (a fraction of the box width; 0.25 is the default), "
                             f"got {sigma0!r}")
        object.__setattr__(self, "sigma0", sigma0)
        if self.popsize is not None:
            # pycma's recombination needs at least 2 weights (it rejects popsize 1 with its own message)
            object.__setattr__(self, "popsize", check_count("popsize", self.popsize, 2))
        remember_validated(self)


@_dispatch
def _solve(problem: BlackBoxProblem, algorithm: CMAES, options: SolveOptions) -> Solution:
    check_loop_budget(problem, options, "CMAES")
    # pycma draws from numpy's global generator (seeded per run): two runs in two threads interleaved their
    # draws (the same seed gave two answers), so runs are serialized
    with _PYCMA_LOCK:
        return _run_cmaes(problem, algorithm, options)


# reentrant: a CMAES solve inside a CMAES run's callback or f (same thread) deadlocked forever (red20c); the
# nested run restores numpy's global generator state on exit, so the outer run's draws are unchanged
_PYCMA_LOCK = threading.RLock()


def _run_cmaes(problem: BlackBoxProblem, algorithm: CMAES, options: SolveOptions) -> Solution:
    import cma

    if algorithm.popsize is not None:   # pycma builds weights and (popsize, d) arrays: 10**9 hung in setup
        check_fits_memory("CMAES", "popsize", algorithm.popsize,
                          32.0 * algorithm.popsize * (problem.dim + 10))

    ev = Evaluator(problem)
    rng = np.random.default_rng(options.seed)
    box_lo, box_hi = problem.lower.astype(float), problem.upper.astype(float)
    # pycma runs on the box mapped affinely onto [-5, 5]^d (BBOB's box, where the map is the identity, so
    # BBOB runs are unchanged): its bound handling has absolute constants (a margin min(width/2,
    # (1 + |bound|)/20)), so the same problem in other units (the box x 1e-3) got another answer
    mid, half = (box_lo + box_hi) / 2, (box_hi - box_lo) / 10
    lo, hi = (box_lo - mid) / half, (box_hi - mid) / half

    def to_box(V: np.ndarray) -> np.ndarray:
        return np.clip(mid + V * half, box_lo, box_hi)

    sigma = algorithm.sigma0 * float((hi - lo).mean())
    monitor = IterationMonitor(options, total=options.maxiters or 0, desc="CMAES")
    trace, stop, restarts = [], "budget", -1
    x0 = (rng.uniform(box_lo, box_hi) - mid) / half
    ev(to_box(x0[None]))
    # pycma's value tolerances (tolfun 1e-11, tolfunhist 1e-12) are absolute: f in units of 1e-20 ended every
    # restart at once (285 restarts, 0.0061 where the unscaled run reaches 2.7e-16); they go in f's units,
    # the power of two nearest |f(x0)| (1 for f of ordinary size, whose runs are unchanged)
    f_unit = _unit(ev.first_value)
    # pycma needs dimension >= 2: a 1-D problem runs with one dummy coordinate that f never sees
    dummy = problem.dim == 1
    cma_lo, cma_hi = (np.r_[lo, 0.0], np.r_[hi, 1.0]) if dummy else (lo, hi)
    global_state = np.random.get_state()  # noqa: NPY002 (pycma seeds numpy's global generator: restored)
    try:
        while not ev.exhausted and stop == "budget":
            restarts += 1
            opts = {"bounds": [cma_lo.tolist(), cma_hi.tolist()], "seed": int(rng.integers(1, 2**31)),
                    "verbose": -9,
                    "maxfevals": ev.remaining,
                    "tolstagnation": 0 if problem.dim > CMA_STAGNATION_OFF_ABOVE else None,
                    "tolfun": 1e-11 * f_unit if f_unit != 1.0 else None,
                    "tolfunhist": 1e-12 * f_unit if f_unit != 1.0 else None}
            opts = {k: v for k, v in opts.items() if v is not None}
            if algorithm.popsize is not None:
                opts["popsize"] = algorithm.popsize
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                es = cma.CMAEvolutionStrategy(np.r_[x0, 0.5] if dummy else x0, sigma, opts)
                while not es.stop():
                    if ev.target_reached():
                        stop = "target"
                        break
                    if options.maxiters is not None and len(trace) >= options.maxiters:
                        stop = "maxiters"
                        break
                    if ev.exhausted:
                        break
                    X = np.asarray(es.ask())
                    values = ev(to_box(X[:, :problem.dim]))
                    if ev.exhausted and not np.all(np.isfinite(values)):
                        break
                    worst = np.finfo(float).max / 1e6
                    es.tell(list(X), np.where(np.isfinite(values), values, worst).tolist())
                    record = {"iteration": len(trace) + 1, "evaluations": ev.evaluations,
                              "best_value": ev.best_value}
                    trace.append(record)
                    if monitor.record(**record):
                        stop = "callback"
                        break
            if options.maxiters is not None and len(trace) >= options.maxiters and stop == "budget":
                stop = "maxiters"
            x0 = (rng.uniform(box_lo, box_hi) - mid) / half
        if options.maxiters == 0:   # core: the start (x0) with MaxIters, also when it meets the target
            stop = "maxiters"
        elif ev.target_reached() and stop != "callback":   # a callback's True is Terminated, target or not
            stop = "target"
        # the first point alone, or a generation the budget cut before its tell: recorded too
        if record_last_batch(monitor, trace, ev, stop):
            stop = "callback"
    finally:
        np.random.set_state(global_state)  # noqa: NPY002
        monitor.close()
    result = RunResult(stop, len(trace), max(restarts, 0), trace, to_box(x0[None]))
    return finish(problem, ev, result, options)


@dataclass(frozen=True)
class PSO(Algorithm):
    """Inertia-weight PSO: ``w``, ``c1``, ``c2``, swarm size 40 (via the modular space's components).

    ``w`` in [0.2, 1]; ``c1`` and ``c2`` in [0, 2.5] (0 drops the cognitive or the social pull, a valid
    ablation; a subnormal such as 1e-320 acts as 0); ``swarm`` an int in [2, 2**31 - 1] (a swarm larger
    than the budget is cut to the budget). Solve options as in the module docstring (``tol`` unused,
    ``seed=None`` OS entropy).
    A NaN or inf value of the problem's ``f`` (part-way through a run too) is a failed
    evaluation (+inf, counted in ``stats.nonfinite``), not a ``Diverged`` run: the family's rule, stated in
    :class:`~algorithms.blackbox.problem.BlackBoxProblem`.
    """

    w: float = 0.7298
    c1: float = 1.49618
    c2: float = 1.49618
    swarm: int = 40

    def __post_init__(self) -> None:
        for name, lo, hi in (("w", 0.2, 1.0), ("c1", 0.0, 2.5), ("c2", 0.0, 2.5)):
            object.__setattr__(self, name, _range01(name, getattr(self, name), lo, hi))
        if check_count("swarm", self.swarm, 1) < 2:   # a count: 2**40 was accepted
            raise ValueError(f"swarm must be >= 2, got {self.swarm}")
        object.__setattr__(self, "swarm", int(self.swarm))
        remember_validated(self)


@_dispatch
def _solve(problem: BlackBoxProblem, algorithm: PSO, options: SolveOptions) -> Solution:
    check_loop_budget(problem, options, "PSO")
    plan = WorkflowPlan.parse(("init.uniform", "pop.20", "pso.inertia", "bc.clip", "sel.greedy"))
    hp = {"pso.inertia": {"w": algorithm.w, "c1": algorithm.c1, "c2": algorithm.c2}}
    ev = Evaluator(problem)
    monitor = IterationMonitor(options, total=options.maxiters or 0, desc="PSO")
    try:
        result = run_workflow(_Sized(plan, algorithm.swarm), ev, np.random.default_rng(options.seed), hp,
                              maxiters=options.maxiters, monitor=monitor)
    finally:
        monitor.close()
    return finish(problem, ev, result, options)


class _Sized:
    """A plan whose population size is fixed (the PSO swarm), whatever the dimension."""

    def __init__(self, plan: WorkflowPlan, n: int) -> None:
        self._plan, self._n = plan, n

    def __getattr__(self, name):
        return getattr(self._plan, name)

    def size(self, dim: int, budget: int) -> int:
        return int(max(2, min(self._n, budget)))


@dataclass(frozen=True)
class RandomSearch(Algorithm):
    """Uniform random search in batches of ``batch`` points (an int in [1, 2**31 - 1]; a batch is cut to the
    evaluations left). Solve options as in the module docstring (``tol`` unused, ``seed=None`` OS
    entropy). A NaN or inf value of the problem's ``f`` (part-way through a run too) is a failed
    evaluation (+inf, counted in ``stats.nonfinite``), not a ``Diverged`` run: the family's rule, stated in
    :class:`~algorithms.blackbox.problem.BlackBoxProblem`."""

    batch: int = 100

    def __post_init__(self) -> None:
        object.__setattr__(self, "batch", check_count("batch", self.batch, 1))   # np.int64 stored as an int
        remember_validated(self)


@_dispatch
def _solve(problem: BlackBoxProblem, algorithm: RandomSearch, options: SolveOptions) -> Solution:
    check_loop_budget(problem, options, "RandomSearch")
    ev = Evaluator(problem)
    rng = np.random.default_rng(options.seed)
    lo, hi = problem.lower.astype(float), problem.upper.astype(float)
    monitor = IterationMonitor(options, total=options.maxiters or 0, desc="RandomSearch")
    trace, stop, X = [], "budget", None
    try:
        while True:
            X = rng.uniform(lo, hi, (min(algorithm.batch, max(ev.remaining, 1)), problem.dim))
            ev(X)
            if options.maxiters == 0:   # the first batch is the start (core: maxiters = 0 gives MaxIters)
                stop = "maxiters"
                break
            # every batch an iteration, the last one too: the callback sees each (maxiters = k evaluated a
            # (k + 1)-th batch that no record covered)
            record = {"iteration": len(trace) + 1, "evaluations": ev.evaluations, "best_value": ev.best_value}
            trace.append(record)
            if monitor.record(**record):   # first: a True at the batch that spent the budget or met the
                stop = "callback"          # target is Terminated too
                break
            if ev.target_reached():
                stop = "target"
                break
            if ev.exhausted:
                break
            if options.maxiters is not None and len(trace) >= options.maxiters:
                stop = "maxiters"
                break
    finally:
        monitor.close()
    # maxiters = 0: the first batch is the start (as the other solvers' first population), 0 iterations
    return finish(problem, ev, RunResult(stop, len(trace), 0, trace, X), options)

