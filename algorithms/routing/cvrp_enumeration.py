"""Exact CVRP by enumeration (<= 8 customers).

Every feasible solution is a set partition of the customers into routes of demand <= Q,
each route ordered optimally; so the optimum is the best set partition under the cost
``Σ_routes TSP(depot ∪ route)``. We compute the best closed route through the depot for
every feasible customer subset (brute force over its orders, one direction of each) and then
the best partition by a DP over subsets: ``V(S) = min_{T ⊆ S, min(S) ∈ T, T feasible} r(T) + V(S∖T)``.

>>> from algorithms import solve
>>> from algorithms.routing import random_cvrp
>>> from algorithms.routing.cvrp_enumeration import CVRPEnumeration
>>> sol = solve(random_cvrp(5, seed=0), CVRPEnumeration())
>>> sol.retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.routing._common import finish, not_started
from algorithms.routing.problem import CVRPInstance, _check_instance, cvrp_cost

__all__ = ["MAX_ENUMERATION", "CVRPEnumeration", "cvrp_enumerate"]

#: largest number of customers the enumeration accepts
MAX_ENUMERATION = 8


def _best_route(dist: np.ndarray, members: list[int]) -> tuple[float, list[int]]:
    if len(members) == 1:
        c = members[0]
        return float(dist[0, c] + dist[c, 0]), [c]
    best, arg = np.inf, None
    for perm in itertools.permutations(members):
        if perm[0] > perm[-1]:
            continue  # the reversed route has the same length
        v = (
            dist[0, perm[0]]
            + dist[perm[-1], 0]
            + sum(dist[perm[k], perm[k + 1]] for k in range(len(perm) - 1))
        )
        if v < best:
            best, arg = float(v), list(perm)
    return best, arg


def cvrp_enumerate(instance: CVRPInstance) -> tuple[list[list[int]], float]:
    """(optimal routes, cost) by enumeration; at most 8 customers.

    Among route sets of equal cost the first found is kept: for each set of customers, its route through
    the lowest customer is tried from the largest such route down (submasks in decreasing order), and a
    later candidate replaces it only when strictly cheaper.
    """
    _check_instance(instance, CVRPInstance)  # None, a TSPInstance: by name (an AttributeError before)
    n = instance.n_customers
    if n > MAX_ENUMERATION:
        raise ValueError(f"CVRP enumeration handles <= {MAX_ENUMERATION} customers, got {n}")
    dist, dem, cap = instance.distances, instance.demands, instance.capacity
    full = (1 << n) - 1
    route_cost: dict[int, tuple[float, list[int]]] = {}
    for T in range(1, full + 1):
        members = [i + 1 for i in range(n) if (T >> i) & 1]
        if dem[members].sum() <= cap:
            route_cost[T] = _best_route(dist, members)
    V = np.full(full + 1, np.inf)
    choice = np.zeros(full + 1, dtype=np.int64)
    V[0] = 0.0
    for S in range(1, full + 1):
        low = S & -S
        rest = S ^ low
        sub = rest
        # every submask of rest once, from rest down to 0: a bounded loop (2^|rest| passes), so a
        # slip in the step cannot hang the enumeration, it can only miss route sets
        for _ in range(1 << rest.bit_count()):
            T = sub | low
            if T in route_cost:
                v = route_cost[T][0] + V[S ^ T]
                if v < V[S]:
                    V[S], choice[S] = v, T
            sub = (sub - 1) & rest
    routes, S = [], full
    while S:
        T = int(choice[S])
        routes.append(route_cost[T][1])
        S ^= T
    return routes, float(V[full])


@dataclass(frozen=True)
class CVRPEnumeration(Algorithm):
    """Exact CVRP by subset DP over brute-force routes (<= 8 customers); ``maxiters=0`` returns the
    starting routes, any other ``maxiters`` runs the DP's one pass (``stats.iterations = 1``); ``tol`` has
    no effect (the DP is exact: ``solve`` warns).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """


@_dispatch
def _solve(problem: CVRPInstance, algorithm: CVRPEnumeration, options: SolveOptions) -> Solution:
    if problem.n_customers > MAX_ENUMERATION:
        raise ValueError(
            f"CVRPEnumeration handles <= {MAX_ENUMERATION} customers, got a CVRPInstance with "
            f"{problem.n_customers}"
        )
    if options.maxiters == 0:
        return not_started(problem, options, "CVRPEnumeration")
    routes, value = cvrp_enumerate(problem)
    check = cvrp_cost(problem, routes)
    ok = abs(check - value) <= 1e-9 * check  # relative (a floor of 1 passed anything at small scales)
    # one pass of the subset DP is one iteration (maxiters = 1 suffices), not its 2**n subsets
    return finish(problem, routes, check, RetCode.Success if ok else RetCode.Failure, options, 1)
