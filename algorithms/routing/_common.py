"""Shared plumbing of the routing solvers: the starting answer and the Solution with its trace."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

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

    That record comes after the run is over (a one-pass method for the callback; NN+2-opt records its
    moves itself), so, as
    core's ``callback`` contract says, a ``True`` returned for it changes nothing: the retcode stays the
    run's own (HeldKarp's finished DP was reported Terminated).

    A CVRP answer (a list of routes) is stored as its depot-delimited sequence
    ``[0, r1..., 0, r2..., 0]`` (an int list; ``routes_from_sequence`` splits it back).
    """
    if isinstance(problem, CVRPInstance) and x is not None:
        x = sequence_from_routes(x)
    monitor = IterationMonitor(options, total=1, desc=name)
    monitor.record(iteration=int(iterations), value=float(value) if value is not None else math.nan)
    monitor.close()
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


#: the backend's answer may be at most this fraction above the best answer on the exact distances,
#: by the worst-case bound on the integer rounding (n edges, each off by <= 0.5 / scale, on both
#: the returned tour and the best one): past it the integer problem is too coarse to call Success.
ROUNDING_REL_TOL = 1e-2


def integer_distances(distances: np.ndarray, scale: float | None, target: float, limit: float,
                      backend: str) -> tuple[np.ndarray, float]:
    """``rint(scale · d)`` as int64 and the scale used.

    ``scale=None`` picks the power of ten nearest ``target / max d`` (so the largest distance maps
    to about ``target``: neither small coordinates rounding to 0 nor large ones overflowing the
    backend's integers; on unit-square data it is the historical fixed scale). A given ``scale``
    whose largest scaled distance exceeds the backend's ``limit`` is rejected.
    """
    dmax = float(np.max(distances))
    if not math.isfinite(dmax):  # log10 of an infinite distance would fail with a bare "math domain error"
        bound = math.sqrt(np.finfo(np.float64).max)
        raise ValueError(f"coords must give finite distances (below {bound:.3g}) for {backend}'s integer "
                         f"distances, got largest distance {dmax!r}")
    if scale is None:
        scale = 10.0 ** round(math.log10(target / dmax)) if dmax > 0 else 1.0
    if dmax * scale > limit:
        raise ValueError(
            f"scale={scale:g} maps the largest distance {dmax:.6g} to {dmax * scale:.3g}, past {backend}'s "
            f"integer limit {limit:.3g}; pass scale=None (chosen from the data) or a scale <= "
            f"{limit / dmax:.3g}")
    # every distance rounds to 0 (the run ended Failure, unexplained): also at exactly 0.5, which rint rounds
    # to the even 0 (scale = 0.5 / max d was accepted as documented "at least 0.5", then every distance was 0)
    if dmax > 0 and np.rint(dmax * scale) == 0:
        raise ValueError(f"scale={scale:g} maps the largest distance {dmax:.6g} to {dmax * scale:.3g}, so "
                         f"every integer distance of {backend} rounds to 0; pass scale=None (chosen from the "
                         f"data) or a scale > {0.5 / dmax:.3g}")
    return np.rint(np.asarray(distances) * scale).astype(np.int64), float(scale)


def rounding_check(value: float, int_length: int, backend_length: int | None, n_edges: int,
                   scale: float) -> str | None:
    """Why the backend's answer fails our check (``None``: it passes).

    ``value`` is the answer's length on our float distances, ``int_length`` on our integer ones,
    ``backend_length`` the length the backend reports (None: it reports none).
    """
    if backend_length is not None and int(backend_length) != int(int_length):
        return f"backend length {backend_length} != {int_length} recomputed on the integer distances"
    if not abs(value * scale - int_length) <= 0.5 * n_edges + 1e-6 * abs(int_length) + 1e-9:
        return f"length {value:.6g} on our distances != {int_length / scale:.6g} (integer, scaled back)"
    bound = n_edges / scale
    if not bound <= ROUNDING_REL_TOL * value:
        return (f"integer rounding (scale={scale:g}) may cost up to {bound:.3g}, more than "
                f"{ROUNDING_REL_TOL:.0%} of the length {value:.6g}: pass a larger scale or scale=None")
    return None
