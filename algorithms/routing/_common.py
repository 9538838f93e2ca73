"""Shared plumbing of the routing solvers: the starting answer and the Solution with its trace."""

from __future__ import annotations

import math
from typing import Any

from algorithms.core import IterationMonitor, RetCode, Solution, SolveOptions, Stats
from algorithms.routing.problem import CVRPInstance, TSPInstance, cvrp_cost, sequence_from_routes, tsp_cost


def starting_answer(problem: TSPInstance | CVRPInstance) -> tuple[Any, float]:
    """The answer before any work: the identity tour, or one route per customer."""
    if isinstance(problem, TSPInstance):
        tour = list(range(problem.n))
        return tour, tsp_cost(problem, tour)
    routes = [[c] for c in range(1, problem.n_customers + 1)]
    return routes, cvrp_cost(problem, routes)


def finish(
    problem,
    x: Any,
    value: float,
    retcode: RetCode,
    options: SolveOptions,
    iterations: int,
    original: Any = None,
    name: str = "solve",
) -> Solution:
    """A Solution with one trace record (the final answer) when ``store_trace`` is set.

    A CVRP answer (a list of routes) is stored as its depot-delimited sequence
    ``[0, r1..., 0, r2..., 0]`` (an int list; ``routes_from_sequence`` splits it back).
    """
    if isinstance(problem, CVRPInstance) and x is not None:
        x = sequence_from_routes(x)
    monitor = IterationMonitor(options, total=1, desc=name)
    stop = monitor.record(iteration=int(iterations), value=float(value) if value is not None else math.nan)
    monitor.close()
    if stop and retcode is RetCode.Success:
        retcode = RetCode.Terminated
    return Solution(
        x=x,
        value=value,
        retcode=retcode,
        stats=Stats(iterations=int(iterations)),
        trace=monitor.trace,
        original=original,
    )


def not_started(problem, options: SolveOptions, name: str) -> Solution:
    """``maxiters=0``: the starting answer with ``MaxIters``."""
    x, value = starting_answer(problem)
    return finish(problem, x, value, RetCode.MaxIters, options, 0, name=name)
