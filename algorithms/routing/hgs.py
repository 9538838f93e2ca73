"""Hybrid genetic search through PyVRP: the near-optimal CVRP reference.

PyVRP works on integer distances: we pass ``round(scale · d_ij)`` (the rounding error per
edge is <= 0.5/scale), run for ``runtime`` seconds (fixed per instance; default 1 s) with the
solve's ``seed``, and recompute the cost of the returned routes with our float distances.
``scale=None`` (the default) is chosen from the data: the power of ten nearest
``10⁴ / max d_ij`` (10⁴ on unit-square data), so small coordinates do not round to 0 and large
ones do not overflow; a given ``scale`` mapping a distance past 10¹² raises ``ValueError``.
``Success`` = PyVRP reports a feasible solution, every returned route maps back to a customer
list, our own feasibility check passes, PyVRP's reported distance equals the routes' integer
length on our matrix, that length agrees with our float length, and the worst-case rounding loss
``(edges) / scale`` is at most 1 % of it; a solution PyVRP marks infeasible, a backend error or a
failed check gives ``Failure`` (README: a heuristic that finds no feasible point proves nothing, so never
``Infeasible``; ``Solution.original`` then says which check failed). PyVRP's capacity penalty is capped in
proportion to the integer distances (its fixed cap of 1e5 made an over-capacity route the cheaper answer once
``scale · max d`` passed about 1e6). HGS is a heuristic: ``Success`` does not claim optimality.

References
----------
T. Vidal. Hybrid genetic search for the CVRP: open-source implementation and SWAP*
neighborhood. Computers & OR 140 (2022). N. Wouda, L. Lan, W. Kool. PyVRP: a high-performance
VRP solver package. INFORMS J. Computing (2024).

>>> from algorithms import solve
>>> from algorithms.routing import random_cvrp
>>> from algorithms.routing.hgs import HGS
>>> solve(random_cvrp(8, seed=0), HGS(runtime=0.2)).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from algorithms._validation import check_positive
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.routing._common import finish, integer_distances, not_started, rounding_check
from algorithms.routing.problem import CVRPInstance, cvrp_cost, is_valid_cvrp

__all__ = ["HGS"]


@dataclass(frozen=True)
class HGS(Algorithm):
    """PyVRP's hybrid genetic search (``tol`` has no effect: ``runtime`` and ``maxiters`` fix
    the run; ``solve`` warns).

    Parameters
    ----------
    runtime : float > 0
        seconds of search (default 1.0), at most a week (604 800 s: PyVRP has no other stop, so a
        runtime of 2**40 s was a run that never ends). ``solve``'s ``maxiters`` caps its iterations too:
        a run given ``maxiters`` ends with ``MaxIters`` (a checked answer), whichever budget stops it first
        (which one does depends on the machine's load: the retcode does not); without it, ``Success``.
    scale : float > 0 or None
        distances are passed as ``round(scale · d)``; ``None`` (default) picks the power of
        ten nearest ``10⁴ / max d`` from the data (see the module docstring). A given scale is a float > 0
        in [1.18e-38, 3.4e38] that the instance narrows, each side refused by name at solve: ``scale ·
        max d`` at most 1e12 (PyVRP's int64 distances) and above 0.5 (else every integer distance rounds to
        0: 0.5 itself rounds to the even 0).
    ``solve``'s ``seed``: an int in [0, 2**64); None is read as 0 (the same run every time).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    runtime: float = 1.0
    scale: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "runtime", check_positive("runtime", self.runtime))
        if self.runtime > MAX_RUNTIME:
            raise ValueError(f"runtime must be at most {MAX_RUNTIME:g} seconds (a week), got "
                             f"{self.runtime!r}")
        if self.scale is not None:
            object.__setattr__(self, "scale", check_positive("scale", self.scale))


#: the longest search HGS takes (a week, in seconds)
MAX_RUNTIME = 604_800.0
_TARGET = 1e4   # the largest distance maps to about this integer (the historical fixed scale)
_LIMIT = 1e12   # PyVRP's distances are int64: n · 1e12 stays far below 2**63


def _pyvrp_model(problem: CVRPInstance, dist: np.ndarray):
    from pyvrp import Model

    m = Model()
    xy = np.asarray(problem.coords)
    locs = [m.add_location(float(x), float(y)) for x, y in xy]
    depot = m.add_depot(locs[0])
    n = problem.n_customers
    m.add_vehicle_type(num_available=n, capacity=int(problem.capacity), start_depot=depot, end_depot=depot)
    for i in range(1, n + 1):
        m.add_client(locs[i], delivery=int(problem.demands[i]))
    for i, a in enumerate(locs):
        for j, b in enumerate(locs):
            m.add_edge(a, b, int(dist[i, j]))
    return m


def _solve_params(problem: CVRPInstance, dist: np.ndarray):
    """PyVRP's parameters with the load penalty's cap scaled with the integer distances: its default cap
    (1e5 per unit of excess load) made an over-capacity route the cheaper answer from ``scale · max d`` of
    about 3e6 on (a feasible CVRP ended Infeasible at scale 1e7; red23b). The cap stays below 1e17 per the
    total demand, so a penalised cost keeps inside PyVRP's int64."""
    from pyvrp import PenaltyParams, SolveParams

    default = PenaltyParams().max_penalty
    # 3 · max d: the smallest ratio of cap to distance the default scale reaches (1e5 over max d <= 10**4.5),
    # so a default-scale run keeps PyVRP's own cap
    wanted = 3.0 * float(np.max(dist))
    total = max(1.0, float(np.sum(np.asarray(problem.demands, dtype=np.float64))))
    return SolveParams(penalty=PenaltyParams(max_penalty=max(default, min(wanted, 1e17 / total))))


@_dispatch
def _solve(problem: CVRPInstance, algorithm: HGS, options: SolveOptions) -> Solution:
    from pyvrp.stop import MaxIterations, MaxRuntime, MultipleCriteria

    if options.maxiters == 0:
        return not_started(problem, options, "HGS")
    dist, scale = integer_distances(problem.distances, algorithm.scale, _TARGET, _LIMIT, "PyVRP")
    try:
        model = _pyvrp_model(problem, dist)
        stop = MaxRuntime(algorithm.runtime)
        if options.maxiters is not None:  # solve's cap (it was ignored: a full runtime, then Success)
            stop = MultipleCriteria([stop, MaxIterations(options.backend_iterations())])
        result = model.solve(stop, seed=int(options.seed or 0) % 2**32,  # PyVRP's generator: 32 bits
                             display=False, params=_solve_params(problem, dist))
        routes = [
            [int(a.idx) + 1 for a in route.schedule() if a.is_client()] for route in result.best.routes()
        ]
        feasible = bool(result.is_feasible())
        backend_length = int(result.best.distance())
    except Exception as exc:  # backend error
        return finish(problem, None, math.nan, RetCode.Failure, options, 0, original=exc)
    routes = [r for r in routes if r]
    ran = int(result.num_iterations)  # the search ran: its iterations count, whatever its answer
    if not feasible:
        # a heuristic's infeasible answer proves nothing (README's retcode table): Failure, not Infeasible
        return finish(problem, routes, math.nan, RetCode.Failure, options, ran, original=result)
    if not is_valid_cvrp(problem, routes):
        return finish(problem, routes, math.nan, RetCode.Failure, options, ran, original=result)
    value = cvrp_cost(problem, routes)
    stops = [[0, *r, 0] for r in routes]
    int_length = int(sum(dist[s[:-1], s[1:]].sum() for s in map(np.asarray, stops)))
    why = rounding_check(value, int_length, backend_length, sum(len(r) + 1 for r in routes), scale)
    ok = math.isfinite(value) and why is None
    failed = {"result": result, "check": why or "non-finite length", "scale": scale}
    # with a cap, MaxIters whichever budget ended the search: the runtime or the cap coming first depended
    # on the machine's load, so one seed gave MaxIters in one run and Success in the next
    capped = options.maxiters is not None
    retcode = (RetCode.MaxIters if capped else RetCode.Success) if ok else RetCode.Failure
    return finish(problem, routes, value, retcode, options, ran, original=result if ok else failed)
