"""Held–Karp dynamic programme: the exact optimum of a small TSP (n <= 12).

With start node 0 and C(S, j) the length of the shortest path from 0 through the node set S
ending at j ∈ S,

    C({j}, j) = d(0, j),    C(S, j) = min_{i ∈ S∖{j}} C(S∖{j}, i) + d(i, j),

and the optimal tour length is ``min_j C(V∖{0}, j) + d(j, 0)``; O(2ⁿ n²) time.

References
----------
M. Held, R. M. Karp. A dynamic programming approach to sequencing problems. J. SIAM 10 (1962).

>>> from algorithms import solve
>>> from algorithms.routing import random_tsp
>>> from algorithms.routing.held_karp import HeldKarp
>>> sol = solve(random_tsp(7, seed=0), HeldKarp())
>>> sol.retcode, sorted(sol.x) == list(range(7))
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.routing._common import finish, not_started
from algorithms.routing.problem import TSPInstance, check_distance_matrix, tsp_cost

__all__ = ["MAX_HELD_KARP", "HeldKarp", "held_karp"]

#: largest n Held–Karp accepts (2ⁿ n² table entries)
MAX_HELD_KARP = 12


def held_karp(dist: np.ndarray) -> tuple[list[int], float]:
    """(optimal tour starting at 0, its length) for a distance matrix of size 3..12.

    >>> d = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=float)
    >>> held_karp(d)
    ([0, 2, 1], 4.0)
    """
    dist = check_distance_matrix(dist)  # a NaN would come back as the optimum's length
    n = dist.shape[0]
    if not 3 <= n <= MAX_HELD_KARP:
        raise ValueError(f"dist must have 3 <= n <= {MAX_HELD_KARP} nodes for Held–Karp, got n = {n}")
    # a tour has n edges: with n·max d finite no partial sum overflows (else every candidate is inf, no
    # predecessor is ever recorded and the tour read back would be incomplete)
    if not math.isfinite(n * float(dist.max())):
        raise ValueError(f"dist must have entries <= {np.finfo(np.float64).max / n:.4g} for n = {n} nodes (a "
                         f"tour length must stay finite in float64), got largest entry {float(dist.max())!r}")
    m = n - 1  # nodes 1..n-1 are bits 0..m-1
    full = (1 << m) - 1
    C = np.full((1 << m, m), np.inf)
    P = np.full((1 << m, m), -1, dtype=np.int64)
    for j in range(m):
        C[1 << j, j] = dist[0, j + 1]
    for S in range(1, 1 << m):
        for j in range(m):
            if not (S >> j) & 1 or S == 1 << j:
                continue
            prev = S ^ (1 << j)
            best, arg = np.inf, -1
            for i in range(m):
                if (prev >> i) & 1:
                    v = C[prev, i] + dist[i + 1, j + 1]
                    if v < best:
                        best, arg = v, i
            C[S, j], P[S, j] = best, arg
    ends = C[full] + dist[1:, 0]
    j = int(np.argmin(ends))
    length = float(ends[j])
    tour, S = [], full
    for _ in range(m):  # the m non-depot nodes, last to first: a bounded walk back (it cannot loop)
        tour.append(j + 1)
        S, j = S ^ (1 << j), int(P[S, j])
    return [0, *tour[::-1]], length


@dataclass(frozen=True)
class HeldKarp(Algorithm):
    """Exact TSP by the Held–Karp DP (n <= 12). ``Success`` carries an optimal tour whose
    recomputed length matches the DP's value; ``maxiters=0`` returns the identity tour, any other
    ``maxiters`` runs the DP's one pass (``stats.iterations = 1``); ``tol`` has no effect (the DP is
    exact: ``solve`` warns).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """


@_dispatch
def _solve(problem: TSPInstance, algorithm: HeldKarp, options: SolveOptions) -> Solution:
    if problem.n > MAX_HELD_KARP:
        raise ValueError(
            f"HeldKarp handles n <= {MAX_HELD_KARP} nodes, got a TSPInstance with n = {problem.n}"
        )
    if options.maxiters == 0:
        return not_started(problem, options, "HeldKarp")
    tour, length = held_karp(problem.distances)
    value = tsp_cost(problem, tour)  # our own check of the DP's answer
    # relative to the length itself: a floor of 1 made the check vacuous on small coordinates (a DP answer
    # 1e-6 off passed at coordinates ×1e-20)
    ok = abs(value - length) <= 1e-9 * value
    # one pass of the DP is one iteration (maxiters = 1 suffices); its 2**(n-1) subsets were reported as
    # iterations, past the maxiters the run was given
    return finish(problem, tour, value, RetCode.Success if ok else RetCode.Failure, options, 1)
