"""LKH (Lin–Kernighan–Helsgaun) through ``elkai``: the near-optimal TSP reference.

elkai wraps LKH, which works on integer distances (a float matrix is truncated: unit-square
distances below 1 would all become 0), so we pass ``round(scale · d_ij)`` (``scale`` default
10⁶) and ``runs`` (default 10) restarts, and recompute the cost with our float distances.
``Success`` = elkai returned a permutation of all nodes, our own validity check passed and
the cost is finite; otherwise ``Failure``. LKH is a heuristic: ``Success`` does not claim
optimality.

References
----------
K. Helsgaun. An effective implementation of the Lin–Kernighan traveling salesman heuristic.
EJOR 126 (2000). elkai: https://github.com/fikisipi/elkai.

>>> from algorithms import solve
>>> from algorithms.routing import random_tsp
>>> from algorithms.routing.lkh import LKH
>>> solve(random_tsp(10, seed=0), LKH(runs=2)).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from algorithms._validation import check_positive, check_positive_int
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.routing._common import finish, not_started
from algorithms.routing.problem import TSPInstance, is_valid_tsp, tsp_cost

__all__ = ["LKH"]


@dataclass(frozen=True)
class LKH(Algorithm):
    """LKH-3 via elkai with ``runs`` restarts (positive int) on distances scaled by ``scale``."""

    runs: int = 10
    scale: float = 1e6

    def __post_init__(self) -> None:
        check_positive_int("runs", self.runs)
        check_positive("scale", self.scale)


@_dispatch
def _solve(problem: TSPInstance, algorithm: LKH, options: SolveOptions) -> Solution:
    import elkai

    if options.maxiters == 0:
        return not_started(problem, options, "LKH")
    try:
        dist = np.rint(np.asarray(problem.distances) * algorithm.scale).astype(np.int64)
        raw = elkai.DistanceMatrix(dist.tolist()).solve_tsp(runs=algorithm.runs)
    except Exception as exc:  # backend error
        return finish(problem, None, math.nan, RetCode.Failure, options, 0, original=exc)
    tour = [int(v) for v in raw]
    if len(tour) == problem.n + 1 and tour[0] == tour[-1]:
        tour = tour[:-1]  # elkai closes the tour
    if not is_valid_tsp(problem, tour):
        return finish(problem, tour, math.nan, RetCode.Failure, options, algorithm.runs, original=raw)
    value = tsp_cost(problem, tour)
    return finish(
        problem,
        tour,
        value,
        RetCode.Success if math.isfinite(value) else RetCode.Failure,
        options,
        algorithm.runs,
        original=raw,
    )
