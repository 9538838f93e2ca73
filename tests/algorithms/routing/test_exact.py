"""Held–Karp and CVRP enumeration against brute force."""

import itertools

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.routing import CVRPInstance, random_tsp, tsp_cost
from algorithms.routing.cvrp_enumeration import CVRPEnumeration, cvrp_enumerate
from algorithms.routing.held_karp import HeldKarp, held_karp
from algorithms.routing.problem import cvrp_cost


@pytest.mark.parametrize("n", [3, 4, 6, 8])
def test_held_karp_matches_brute_force(n):
    for seed in range(3):
        inst = random_tsp(n, seed=seed)
        best = min(tsp_cost(inst, [0, *p]) for p in itertools.permutations(range(1, n)))
        sol = solve(inst, HeldKarp())
        assert sol.retcode is RetCode.Success
        assert sol.value == pytest.approx(best, abs=1e-12)
        tour, length = held_karp(inst.distances)
        assert length == pytest.approx(tsp_cost(inst, tour), abs=1e-12)


def _partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for p in _partitions(rest):
        for k in range(len(p)):
            yield [*p[:k], [first, *p[k]], *p[k + 1:]]
        yield [[first], *p]


def _route_length(inst, order):
    path = [0, *order, 0]
    return sum(inst.distances[a, b] for a, b in itertools.pairwise(path))


def _brute_cvrp(inst):
    best = np.inf
    for part in _partitions(list(range(1, inst.n_customers + 1))):
        if any(inst.demands[b].sum() > inst.capacity for b in part):
            continue
        cost = sum(min(_route_length(inst, o) for o in itertools.permutations(b)) for b in part)
        best = min(best, cost)
    return best


def test_cvrp_enumeration_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(6):
        n = int(rng.integers(2, 6))
        dem = rng.integers(1, 6, size=n)
        inst = CVRPInstance(rng.random((n + 1, 2)), dem, int(rng.integers(dem.max(), dem.sum() + 1)))
        routes, value = cvrp_enumerate(inst)
        assert value == pytest.approx(_brute_cvrp(inst), abs=1e-12)
        assert cvrp_cost(inst, routes) == pytest.approx(value, abs=1e-12)
        assert solve(inst, CVRPEnumeration()).retcode is RetCode.Success


def test_size_limits():
    with pytest.raises(ValueError, match="n <= 12"):
        solve(random_tsp(13, seed=0), HeldKarp())
