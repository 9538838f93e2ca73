"""LKH (Lin–Kernighan–Helsgaun) through ``elkai``: the near-optimal TSP reference.

elkai wraps LKH, which works on 32-bit integer distances (a float matrix is truncated:
unit-square distances below 1 would all become 0), so we pass ``round(scale · d_ij)`` and
``runs`` (default 10) restarts, and recompute the cost with our float distances. ``scale=None``
(the default) is chosen from the data: the power of ten nearest ``10⁶ / max d_ij`` (10⁶ on
unit-square data), so neither small coordinates round to 0 nor large ones overflow; a given
``scale`` that maps a distance past 10⁷ (LKH multiplies by its precision, 100, in 32-bit
arithmetic) raises ``ValueError``. ``Success`` = elkai returned a permutation of all nodes, our
validity check passed, the tour's length on our distances agrees with its integer length, and
the worst-case rounding loss ``n / scale`` is at most 1 % of that length; otherwise ``Failure``
(``Solution.original`` then says which check failed). LKH is a heuristic: ``Success`` does not
claim optimality. ``solve``'s ``maxiters`` caps the runs (``MaxIters`` when it cuts them).

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

from algorithms._validation import check_count, check_positive
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.routing._common import finish, integer_distances, not_started, rounding_check
from algorithms.routing.problem import TSPInstance, is_valid_tsp, tsp_cost

__all__ = ["LKH"]

_TARGET = 1e6   # the largest distance maps to about this integer (the historical fixed scale)
#: the most LKH restarts a solve takes (2**31 - 1 was accepted: a solve that never ends)
MAX_RUNS = 10_000
_LIMIT = 1e7    # LKH scales by its PRECISION (100) in C ints: 1e7 · 100 < 2**31


@dataclass(frozen=True)
class LKH(Algorithm):
    """LKH-3 via elkai (``tol`` has no effect: ``runs`` and ``maxiters`` fix the run; ``solve`` warns).

    Parameters
    ----------
    runs : int in [1, 10000]
        LKH restarts (default 10; each a full LKH run: past ``MAX_RUNS`` = 10000 a solve would take
        hours, refused by name).
    scale : float > 0 or None
        distances are passed as ``round(scale · d)``; ``None`` (default) picks the power of
        ten nearest ``10⁶ / max d`` from the data (see the module docstring). A given scale is a float > 0
        in [1.18e-38, 3.4e38] that the instance narrows, each side refused by name at solve: ``scale · max d``
        at most 1e7 (LKH's C ints) and above 0.5 (else every integer distance rounds to 0: 0.5 itself
        rounds to the even 0). For distances of order 1, scale in (0.5, 1e7]. A coarse scale is accepted
        but can end ``Failure``: a ``Success`` needs the worst-case rounding loss ``n / scale`` to be at
        most 1 % of the tour's length (scale = 1 on a 4-node tour of length 14 gives 4 > 0.14: ``Failure``,
        with the tour found as ``x``).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    runs: int = 10
    scale: float | None = None

    def __post_init__(self) -> None:
        # elkai's C int, stored as a Python int: elkai refused a numpy int64 (the solve ended Failure)
        runs = check_count("runs", self.runs, 1, MAX_RUNS, "each is a full LKH run")
        object.__setattr__(self, "runs", runs)
        if self.scale is not None:
            object.__setattr__(self, "scale", check_positive("scale", self.scale))


@_dispatch
def _solve(problem: TSPInstance, algorithm: LKH, options: SolveOptions) -> Solution:
    import elkai

    if options.maxiters == 0:
        return not_started(problem, options, "LKH")
    dist, scale = integer_distances(problem.distances, algorithm.scale, _TARGET, _LIMIT, "LKH")
    # solve's maxiters caps the runs (it was ignored: every run made, then Success); MaxIters when it cut them
    runs = algorithm.runs if options.maxiters is None else min(algorithm.runs, options.maxiters)
    try:
        raw = elkai.DistanceMatrix(dist.tolist()).solve_tsp(runs=runs)
    except Exception as exc:  # backend error
        return finish(problem, None, math.nan, RetCode.Failure, options, 0, original=exc)
    tour = [int(v) for v in raw]
    if len(tour) == problem.n + 1 and tour[0] == tour[-1]:
        tour = tour[:-1]  # elkai closes the tour
    if not is_valid_tsp(problem, tour):
        return finish(problem, tour, math.nan, RetCode.Failure, options, runs, original=raw)
    value = tsp_cost(problem, tour)
    t = np.asarray(tour)
    why = rounding_check(value, int(dist[t, np.roll(t, -1)].sum()), None, problem.n, scale)
    ok = math.isfinite(value) and why is None
    retcode = (RetCode.MaxIters if runs < algorithm.runs else RetCode.Success) if ok else RetCode.Failure
    return finish(problem, tour, value, retcode, options, runs,
                  original=raw if ok else {"tour": raw, "check": why or "non-finite length", "scale": scale})
