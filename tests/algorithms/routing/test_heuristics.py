"""NN + 2-opt, LKH (elkai) and HGS (PyVRP)."""

import itertools

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.routing import random_cvrp, random_tsp, tsp_cost
from algorithms.routing.cvrp_enumeration import CVRPEnumeration
from algorithms.routing.held_karp import HeldKarp
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from algorithms.routing.nn2opt import NearestNeighbor2Opt, nearest_neighbor_tour, two_opt
from algorithms.routing.problem import is_valid_cvrp, routes_from_sequence


def test_two_opt_reaches_a_local_optimum():
    inst = random_tsp(25, seed=4)
    d = inst.distances
    nn = nearest_neighbor_tour(d)
    tour, ok, _ = two_opt(d, nn)
    assert ok and tsp_cost(inst, tour) <= tsp_cost(inst, nn) + 1e-12
    n = len(tour)
    for i, j in itertools.combinations(range(n), 2):  # no improving reversal is left
        cand = tour[: i + 1] + tour[i + 1 : j + 1][::-1] + tour[j + 1 :]
        assert tsp_cost(inst, cand) >= tsp_cost(inst, tour) - 1e-9


def test_nn2opt_cvrp_valid_and_capped():
    inst = random_cvrp(40, seed=0)
    sol = solve(inst, NearestNeighbor2Opt())
    assert sol.retcode is RetCode.Success and is_valid_cvrp(inst, routes_from_sequence(sol.x))
    assert solve(inst, NearestNeighbor2Opt(), maxiters=1).retcode is RetCode.MaxIters


def test_lkh_matches_held_karp():
    for seed in range(3):
        inst = random_tsp(9, seed=seed)
        assert solve(inst, LKH(runs=2)).value == pytest.approx(solve(inst, HeldKarp()).value, rel=1e-9)


def test_lkh_unscaled_distances_are_the_documented_bug():
    inst = random_tsp(30, seed=0)
    good = solve(inst, LKH(runs=1)).value
    bad = solve(inst, LKH(runs=1, scale=1.0))
    assert bad.value > good * 1.2
    assert bad.retcode is RetCode.Failure and "rounding" in bad.original["check"]   # never Success


@pytest.mark.parametrize("factor", [1e-6, 1e-3, 1e3, 1e6])
def test_lkh_and_hgs_scale_from_the_data(factor):
    """Small or large coordinates: the default scale neither rounds every distance to 0 nor overflows."""
    from algorithms.routing import CVRPInstance, TSPInstance

    tsp = random_tsp(9, seed=1)
    small = TSPInstance(coords=tsp.coords * factor)
    sol = solve(small, LKH(runs=2))
    assert sol.retcode is RetCode.Success
    assert sol.value == pytest.approx(solve(small, HeldKarp()).value, rel=1e-9)
    cvrp = random_cvrp(6, seed=1, capacity=15)
    scaled = CVRPInstance(coords=cvrp.coords * factor, demands=cvrp.demands, capacity=cvrp.capacity)
    sol = solve(scaled, HGS(runtime=0.2))
    assert sol.retcode is RetCode.Success
    assert sol.value == pytest.approx(solve(scaled, CVRPEnumeration()).value, rel=1e-9)


def test_hgs_too_coarse_scale_is_failure():
    sol = solve(random_cvrp(8, seed=0), HGS(runtime=0.1, scale=1.0))
    assert sol.retcode is RetCode.Failure and "rounding" in sol.original["check"]


def test_hgs_matches_enumeration():
    for seed in range(2):
        inst = random_cvrp(6, seed=seed, capacity=15)
        sol = solve(inst, HGS(runtime=0.2))
        assert sol.retcode is RetCode.Success
        assert sol.value == pytest.approx(solve(inst, CVRPEnumeration()).value, rel=1e-9)
        assert np.isfinite(sol.value)
