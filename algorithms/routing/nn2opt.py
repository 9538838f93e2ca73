"""Nearest neighbour + 2-opt: the classical construction-and-improvement baseline.

Construction: from node 0 repeatedly go to the nearest unvisited node (CVRP: the nearest
unvisited customer whose demand fits the remaining load, else back to the depot). Improvement
(TSP: the tour; CVRP: each route with the depot, separately): apply the best 2-opt move
(reverse the segment t[i+1..j], gain ``d(a,b) + d(c,e) − d(a,c) − d(b,e)`` for edges (a,b),
(c,e)) while one improves by more than ``tol`` (default 1e-10) times the length d(a,b) + d(c,e) of the two
edges it removes (relative to the move's own edges, so the tour does not depend on the coordinates' unit, and
one far node does not hide the moves among near ones), at most ``maxiters`` moves
per tour (default 10 000). ``Success`` = no improving 2-opt move is left (a 2-opt local
optimum) and the answer passed our validity check; ``MaxIters`` = the move cap was reached, and always with
``maxiters=0`` (the nearest-neighbour construction, unimproved: ``solve``'s rule for a zero cap).

References
----------
G. A. Croes. A method for solving traveling-salesman problems. Operations Research 6 (1958).

>>> from algorithms import solve
>>> from algorithms.routing import random_tsp
>>> from algorithms.routing.nn2opt import NearestNeighbor2Opt
>>> sol = solve(random_tsp(30, seed=0), NearestNeighbor2Opt())
>>> sol.retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import INT64_MAX, check_int_at_least, check_nonnegative, check_square_symmetric
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.routing._common import sequence_from_routes
from algorithms.routing.problem import CVRPInstance, TSPInstance, check_distance_matrix, cvrp_cost, tsp_cost

__all__ = ["NearestNeighbor2Opt", "nearest_neighbor_routes", "nearest_neighbor_tour", "two_opt"]

#: default cap on 2-opt moves per tour
MAX_MOVES = 10_000


def _check_dist(dist: np.ndarray) -> np.ndarray:
    dist = check_distance_matrix(dist)
    if dist.shape[0] < 1:
        raise ValueError("dist must have at least one node, got shape (0, 0)")
    return dist


def nearest_neighbor_tour(dist: np.ndarray, start: int = 0) -> list[int]:
    """Greedy nearest-neighbour tour from ``start``: ``dist`` a square (n, n) matrix of finite distances
    >= 0 (at most 3.4e38), ``start`` an int in [0, n − 1].

    >>> d = np.array([[0, 1, 3], [1, 0, 1], [3, 1, 0]], dtype=float)
    >>> nearest_neighbor_tour(d)
    [0, 1, 2]
    """
    dist = _check_dist(dist)
    n = dist.shape[0]
    if isinstance(start, bool | np.bool_) or not isinstance(start, int | np.integer) or not 0 <= start < n:
        raise ValueError(f"start must be an int node index in [0, {n - 1}], got {start!r}")
    start = int(start)
    seen = np.zeros(n, dtype=bool)
    tour = [start]
    seen[start] = True
    for _ in range(n - 1):
        row = np.where(seen, np.inf, dist[tour[-1]])
        nxt = int(np.argmin(row))
        tour.append(nxt)
        seen[nxt] = True
    return tour


def nearest_neighbor_routes(instance: CVRPInstance) -> list[list[int]]:
    """Greedy nearest feasible customer, back to the depot when none fits."""
    if not isinstance(instance, CVRPInstance):
        raise TypeError(f"instance must be a CVRPInstance, got {type(instance).__name__}")
    d, dem, cap = instance.distances, instance.demands, instance.capacity
    n = instance.n_customers
    seen = np.zeros(n + 1, dtype=bool)
    seen[0] = True
    routes, cur, load, route = [], 0, cap, []
    while not seen.all():
        ok = (~seen) & (dem <= load)
        if not ok.any():
            routes.append(route)
            cur, load, route = 0, cap, []
            continue
        row = np.where(ok, d[cur], np.inf)
        nxt = int(np.argmin(row))
        route.append(nxt)
        seen[nxt] = True
        load -= int(dem[nxt])
        cur = nxt
    if route:
        routes.append(route)
    return routes


def two_opt(
    dist: np.ndarray, tour: list[int], max_moves: int = MAX_MOVES, tol: float | None = None
) -> tuple[list[int], bool, int]:
    """Best-improvement 2-opt on a closed tour through every node of ``dist`` (a symmetric matrix of
    finite distances >= 0: 2-opt's gain assumes d[i, j] = d[j, i]; one with |d[i, j] − d[j, i]| above
    1e-9·max(d[i, j], d[j, i]) for some pair is refused by name, an asymmetry at or below that level is
    rounding and runs as given);
    returns (tour, local optimum reached, moves).
    At most ``max_moves`` (int >= 0) moves, each improving by more than
    ``tol`` (finite, >= 0, absolute, in the distances' unit; None, the default, is valid and means 1e-10
    times the length d(a,b) + d(c,e) of the two edges the move removes: an absolute 1e-10 stopped short on
    coordinates ×1e-9, 2.4 % above the tour found at ×1, and is below the gains' rounding at ×1e12, and
    1e-10 times the largest distance left moves gaining 0.3 % of their edges undone beside one node 1e7
    away).

    >>> d = np.array([[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]], dtype=float)
    >>> two_opt(d, [0, 2, 1, 3])[0]
    [0, 1, 2, 3]
    """
    dist = _check_dist(dist)
    # a reversed segment's inner edges keep their cost only when d is symmetric: on an asymmetric d the
    # "improving" moves lengthened 14 of 300 tours, reported as a local optimum
    check_square_symmetric("dist", dist, rtol=1e-9)
    t = _check_tour(tour, dist.shape[0])
    if t.size != dist.shape[0]:
        raise ValueError(f"tour must visit each of the {dist.shape[0]} nodes of dist exactly once, got "
                         f"{t.size} nodes {t.tolist()!r:.80}")
    max_moves = check_int_at_least("max_moves", max_moves, 0)
    if tol is None:
        return _two_opt(dist, t, int(max_moves), DEFAULT_REL_TOL)
    return _two_opt(dist, t, int(max_moves), 0.0, absolute=check_nonnegative("tol", tol))


#: a 2-opt move improves when it gains more than this fraction of the two edges it removes
DEFAULT_REL_TOL = 1e-10


def _check_tour(tour: Any, n_nodes: int) -> np.ndarray:
    if isinstance(tour, str | bytes):
        raise ValueError(f"tour must be a sequence of int node indices, got str {tour!r:.80}")
    if (isinstance(tour, np.ndarray) and tour.ndim == 1) or isinstance(tour, list | tuple):
        items = tour.tolist() if isinstance(tour, np.ndarray) else list(tour)
    else:
        raise ValueError(f"tour must be a sequence of int node indices, got {type(tour).__name__}")
    if any(isinstance(v, bool) or not isinstance(v, int | np.integer) for v in items):
        raise ValueError(f"tour must hold int node indices, got {items!r:.80}")
    t = np.asarray(items, dtype=np.int64).reshape(-1)
    if len(set(t.tolist())) != t.size or (t.size and (t.min() < 0 or t.max() >= n_nodes)):
        raise ValueError(f"tour must be a permutation of distinct node indices in [0, {n_nodes - 1}], got "
                         f"{items!r:.80}")
    return t


def _two_opt(dist: np.ndarray, t: np.ndarray, max_moves: int, rel_tol: float,
             on_move: Callable[[int, np.ndarray], bool] | None = None, *,
             absolute: float = 0.0) -> tuple[list[int], bool, int]:
    """2-opt on the closed tour ``t`` (distinct nodes of ``dist``; a CVRP route with its depot is a
    subset of them): a move improves when its gain exceeds ``absolute + rel_tol·(d(a,b) + d(c,e))``, the
    edges it removes (a threshold of rel_tol times the largest distance hid the near nodes' moves beside a
    far one). ``on_move(moves, t)``, when given, is called after each move; True stops there (not a local
    optimum)."""
    n = t.size
    if n < 4:
        return t.tolist(), True, 0
    moves = 0
    while moves < max_moves:
        a = t
        b = np.roll(t, -1)
        # gain[i, j] for edges (a_i, b_i) and (a_j, b_j), i < j
        removed = dist[a, b][:, None] + dist[a, b][None, :]
        gain = removed - dist[a[:, None], a[None, :]] - dist[b[:, None], b[None, :]]
        # the best of the moves that pass their own threshold (a gain computed to about 4 eps·removed: an
        # improving one gains more than the default 1e-10 of it)
        gain = np.where(gain > absolute + rel_tol * removed, gain, 0.0)
        gain = np.triu(gain, 2)
        gain[0, n - 1] = 0.0  # those two edges are adjacent through the wrap-around
        i, j = np.unravel_index(np.argmax(gain), gain.shape)
        if gain[i, j] <= 0.0:
            return t.tolist(), True, moves
        t = np.concatenate([t[: i + 1], t[i + 1 : j + 1][::-1], t[j + 1 :]])
        moves += 1
        if on_move is not None and on_move(moves, t):
            return t.tolist(), False, moves
    return t.tolist(), False, moves


def _route_two_opt(
    dist: np.ndarray, route: list[int], max_moves: int, rel_tol: float,
    on_move: Callable[[int, np.ndarray], bool] | None = None
) -> tuple[list[int], bool, int]:
    tour, ok, moves = _two_opt(dist, np.asarray([0, *list(route)], dtype=np.int64), max_moves, rel_tol,
                               on_move)
    k = tour.index(0)
    tour = tour[k:] + tour[:k]
    return tour[1:], ok, moves


@dataclass(frozen=True)
class NearestNeighbor2Opt(Algorithm):
    """Nearest neighbour construction, then best-improvement 2-opt (see the module docstring).

    ``callback`` gets one record per 2-opt move (``iteration`` = moves so far, ``value`` = the tour's
    length then); a ``True`` stops the run there with ``Terminated`` (the tour as it is). A run with no
    move to make (the construction is already 2-opt optimal) gives one final record, after the run: a
    ``True`` for it changes nothing (core's callback rule for one-pass runs).
    """


def _cycle_length(dist: np.ndarray, t: np.ndarray) -> float:
    return float(dist[t, np.roll(t, -1)].sum())


def _finish_moves(problem, x, value: float, ok: bool, options: SolveOptions, moves: int,
                  monitor: IterationMonitor) -> Solution:
    """The Solution of a 2-opt run whose moves ``monitor`` recorded: Terminated when the callback stopped
    a move; a run without moves makes no record: ``solve`` gives the callback its one final record after
    the run (core's rule for a run over before its first record: a True then changes nothing)."""
    stopped = monitor.stopped
    monitor.close()
    ok = ok and options.maxiters != 0  # maxiters=0: the construction, unimproved (solve's rule: MaxIters)
    retcode = RetCode.Terminated if stopped else RetCode.Success if ok else RetCode.MaxIters
    if isinstance(problem, CVRPInstance):
        x = sequence_from_routes(x)
    return Solution(x=x, value=value, retcode=retcode, stats=Stats(iterations=int(moves)),
                    trace=monitor.trace)


@_dispatch
def _solve(problem: TSPInstance, algorithm: NearestNeighbor2Opt, options: SolveOptions) -> Solution:
    tour = nearest_neighbor_tour(problem.distances)
    cap = min(options.iterations(MAX_MOVES), INT64_MAX)  # 2**70 was named max_moves
    monitor = IterationMonitor(options, total=cap, desc="NN+2-opt")
    dist = problem.distances
    # the unchecked 2-opt: the tour is ours and the gain threshold relative to each move's edges
    tour, ok, moves = _two_opt(
        dist, np.asarray(tour, dtype=np.int64), cap, options.tolerance(DEFAULT_REL_TOL),
        on_move=lambda k, t: monitor.record(iteration=k, value=_cycle_length(dist, t)),
    )
    return _finish_moves(problem, tour, tsp_cost(problem, tour), ok, options, moves, monitor)


@_dispatch
def _solve(problem: CVRPInstance, algorithm: NearestNeighbor2Opt, options: SolveOptions) -> Solution:
    routes = nearest_neighbor_routes(problem)
    out, all_ok, total = [], True, 0
    cap = min(options.iterations(MAX_MOVES), INT64_MAX)
    monitor = IterationMonitor(options, total=cap, desc="NN+2-opt")
    dist = problem.distances
    lengths = [_cycle_length(dist, np.asarray([0, *r], dtype=np.int64)) for r in routes]
    for index, r in enumerate(routes):
        def on_move(k: int, t: np.ndarray, index: int = index, done: int = total) -> bool:
            lengths[index] = _cycle_length(dist, t)   # the solve's total cost after this move
            return monitor.record(iteration=done + k, value=float(sum(lengths)))
        # one budget of moves for the solve: each route had its own, so stats.iterations passed maxiters
        r2, ok, moves = _route_two_opt(dist, r, cap - total, options.tolerance(DEFAULT_REL_TOL), on_move)
        out.append(r2)
        all_ok &= ok
        total += moves
        if monitor.stopped:      # the callback stopped a move: the other routes as constructed
            out.extend(routes[index + 1:])
            break
    # routes of <= 2 customers were Success at maxiters=0 (_finish_moves's rule)
    return _finish_moves(problem, out, cvrp_cost(problem, out), all_ok, options, total, monitor)
