"""Greedy for a submodular f under a p-matchoid (the offline reference; lazy evaluations).

Starting from S = ∅, repeatedly add the element e that keeps S + e independent and has the
largest gain Δ(e | S) = f(S + e) − f(S), until no feasible element has a positive gain.
Gains are evaluated lazily (Minoux): by submodularity a stale gain is an upper bound, so an
element whose refreshed gain still tops the heap is the greedy choice; an element that
cannot be added now never can (the constraint is downward closed) and is dropped.

Retcodes: ``Success`` when no feasible element has a positive gain; ``MaxIters`` when
``maxiters`` (a cap on the number of additions) stopped it first; ``Diverged`` when f
returned a non-finite value; ``Failure`` when it returned a negative one.

References
----------
G. L. Nemhauser, L. A. Wolsey, M. L. Fisher. An analysis of approximations for maximizing
submodular set functions. Math. Programming 14 (1978). M. Minoux. Accelerated greedy
algorithms for maximizing submodular set functions (1978).

>>> from algorithms import solve
>>> from algorithms.submodular import Greedy, Matchoid, MatchoidMaximization, UniformMatroid
>>> sol = solve(MatchoidMaximization(len, Matchoid([UniformMatroid(2)]), range(5)), Greedy())
>>> sol.retcode, sol.value
(<RetCode.Success: 'Success'>, 2.0)
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.submodular.oracle import CountingOracle, NegativeValueError, NonFiniteValueError
from algorithms.submodular.problems import MatchoidMaximization

__all__ = ["Greedy"]


@dataclass(frozen=True)
class Greedy(Algorithm):
    """The (lazy) greedy algorithm; no hyperparameters. ``tol`` has no effect (the method has no tolerance:
    ``solve`` warns); ``maxiters`` caps the additions."""


def lazy_greedy(oracle: CountingOracle, elements: Sequence[Hashable], maxsteps: int,
                monitor: IterationMonitor | None = None) -> tuple[frozenset, float, bool]:
    """(S, f(S), finished): greedy over ``elements`` with at most ``maxsteps`` additions."""
    chosen: frozenset = frozenset()
    value = oracle.exact_value(chosen)
    heap = [(-math.inf, order, -1, 0.0) for order in range(len(elements))]  # unknown gains: +inf bounds
    steps = 0
    while heap:
        neg_gain, order, stamp, with_element = heapq.heappop(heap)
        element = elements[order]
        if stamp == steps:  # its gain is current and tops every upper bound
            if -neg_gain <= 0:
                return chosen, value, True
            if steps >= maxsteps:
                return chosen, value, False
            chosen, value, steps = chosen | {element}, with_element, steps + 1
            if monitor is not None and monitor.record(iteration=steps, value=float(value), element=element,
                                                      queries=oracle.queries):
                return chosen, value, False
            continue
        if not oracle.can_add(chosen, element):
            continue
        with_element = oracle.exact_value(chosen | {element})
        heapq.heappush(heap, (-(with_element - value), order, steps, with_element))
    return chosen, value, True


def static_solve(problem: MatchoidMaximization, elements: Sequence[Hashable],
                 options: SolveOptions) -> Solution:
    """Run :func:`lazy_greedy` on ``elements`` with the family's retcode rules."""
    oracle = CountingOracle(problem.f, problem.matchoid)
    monitor = IterationMonitor(options, total=problem.matchoid.rank, desc="greedy")
    chosen, value, retcode = frozenset(), 0.0, RetCode.Success
    try:
        chosen, value, finished = lazy_greedy(oracle, elements, options.iterations(len(elements)), monitor)
        if not finished:
            # the callback's stop, not the trace (empty unless store_trace), tells Terminated from the cap
            retcode = RetCode.Terminated if monitor.stopped else RetCode.MaxIters
    except NonFiniteValueError:
        retcode = RetCode.Diverged
    except NegativeValueError:
        retcode = RetCode.Failure
    finally:
        monitor.close()
    if options.store_trace and not monitor.trace:
        monitor.trace.append({"iteration": 0, "value": float(value), "element": None,
                              "queries": oracle.queries})
    stats = Stats(iterations=len(chosen), f_calls=oracle.value_queries)
    return Solution(x=problem.indicator(chosen), value=float(value), retcode=retcode, stats=stats,
                    trace=monitor.trace, original={"solution": chosen, "queries": oracle.queries,
                                                   "independence_queries": oracle.independence_queries})


@_dispatch
def _solve(problem: MatchoidMaximization, algorithm: Greedy, options: SolveOptions) -> Solution:
    problem.recheck_matroids()  # a user matroid changed since construction
    return static_solve(problem, problem.universe, options)
