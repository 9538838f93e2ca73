"""Brute force: the exact optimum of a small instance, by enumerating its independent sets.

Depth-first over the elements in order, extending a set only while it stays independent
(the constraint is downward closed, so every independent set is reached once), keeping the
best f. At most 30 elements, and at most ``MAX_SETS`` = 2**18 candidate sets evaluated (the subsets of
at most ``matchoid.rank`` elements: 30 elements of rank 15 are 6e8 sets, hours of f calls; 2**20 sets of
a 20-element ``LogDet`` took about a minute, so 18 free elements are the most without ``maxiters``); a larger
instance is refused naming ``elements`` unless ``maxiters`` (then at most ``MAX_SETS``) caps the enumeration
(then ``MaxIters``); a ``maxiters`` above ``MAX_SETS`` on such an instance is refused naming ``maxiters``.

Retcodes: ``Success`` when every independent set was evaluated (the value is OPT);
``MaxIters`` when ``maxiters`` (a cap on the number of sets evaluated) stopped it first;
``Diverged`` / ``Failure`` when f returned a non-finite / negative value.

References
----------
The exhaustive reference of the paper's OPT_t (Section 3, dynamic model).

>>> from algorithms import solve
>>> from algorithms.submodular import BruteForce, Matchoid, MatchoidMaximization, UniformMatroid
>>> sol = solve(MatchoidMaximization(lambda s: len(s) * (3 - len(s)), Matchoid([UniformMatroid(3)]),
...                                  range(4)), BruteForce())
>>> sol.retcode, sol.value, int(sol.x.sum())
(<RetCode.Success: 'Success'>, 2.0, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.submodular.oracle import CountingOracle, NegativeValueError, NonFiniteValueError
from algorithms.submodular.problems import MatchoidMaximization

__all__ = ["BruteForce"]

MAX_ELEMENTS = 30
#: the most candidate sets (subsets of at most ``rank`` elements) enumerated without an explicit maxiters
MAX_SETS = 2**18  # 2**20 sets of LogDet on 20 elements: ~61 s (red23b)


@dataclass(frozen=True)
class BruteForce(Algorithm):
    """Exhaustive enumeration of the independent sets; no hyperparameters. ``tol`` has no effect (the
    method has no tolerance: ``solve`` warns); ``maxiters`` caps the sets evaluated. At most 30 elements and
    ``MAX_SETS`` = 2**18 candidate sets: an instance with more is refused naming ``elements`` unless a
    ``maxiters`` <= 2**18 caps it (then ``MaxIters``); a larger ``maxiters`` there is refused naming it."""


class _Stop(Exception):
    pass


class _Terminated(Exception):
    """The callback asked to stop."""


@_dispatch
def _solve(problem: MatchoidMaximization, algorithm: BruteForce, options: SolveOptions) -> Solution:
    problem.recheck_matroids()  # a user matroid changed since construction
    elements = problem.universe
    if len(elements) > MAX_ELEMENTS:
        raise ValueError(f"elements: brute force enumerates the independent sets of at most {MAX_ELEMENTS} "
                         f"elements, got {len(elements)}")
    rank = min(len(elements), problem.matchoid.rank)
    candidates = sum(math.comb(len(elements), size) for size in range(rank + 1))
    if options.maxiters is None and candidates > MAX_SETS:  # 2**30 sets were accepted: a run of hours
        raise ValueError(f"elements: {len(elements)} elements of rank <= {rank} give up to {candidates} "
                         f"independent sets, more than brute force enumerates by default (MAX_SETS = "
                         f"{MAX_SETS}); pass maxiters to cap the enumeration (it then ends MaxIters) or use "
                         f"fewer elements")
    if options.maxiters is not None and min(options.maxiters, candidates) > MAX_SETS:
        # a cap that does not cap: maxiters = 2**63 - 1 on 30 elements of rank 15 (6e8 sets) ran for hours
        raise ValueError(f"maxiters = {options.maxiters} lets brute force evaluate up to "
                         f"{min(options.maxiters, candidates)} of the {candidates} independent sets, more "
                         f"than MAX_SETS = {MAX_SETS} (hours of f calls); pass maxiters <= {MAX_SETS} or use "
                         f"fewer elements")
    oracle = CountingOracle(problem.f, problem.matchoid)
    cap = options.iterations(2 ** len(elements))
    monitor = IterationMonitor(options, total=min(cap, 2 ** len(elements)), desc="brute force")
    best = {"set": frozenset(), "value": 0.0, "count": 0}

    def visit(current: frozenset, start: int) -> None:
        if best["count"] >= cap:
            raise _Stop
        value = oracle.exact_value(current)
        best["count"] += 1
        if best["count"] == 1 or value > best["value"]:
            best["set"], best["value"] = current, value
        if monitor.record(iteration=best["count"], value=float(value), size=len(current)):
            raise _Terminated
        for index in range(start, len(elements)):
            if oracle.can_add(current, elements[index]):
                visit(current | {elements[index]}, index + 1)

    retcode = RetCode.Success
    try:
        visit(frozenset(), 0)
    except _Stop:
        retcode = RetCode.MaxIters
    except _Terminated:
        retcode = RetCode.Terminated
    except NonFiniteValueError:
        retcode = RetCode.Diverged
    except NegativeValueError:
        retcode = RetCode.Failure
    finally:
        monitor.close()
    if options.store_trace and not monitor.trace:
        monitor.trace.append({"iteration": 0, "value": float(best["value"]), "size": 0})
    stats = Stats(iterations=best["count"], f_calls=oracle.value_queries)
    return Solution(x=problem.indicator(best["set"]), value=float(best["value"]), retcode=retcode,
                    stats=stats, trace=monitor.trace,
                    original={"solution": best["set"], "queries": oracle.queries})
