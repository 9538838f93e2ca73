import itertools

import numpy as np
import pytest

from algorithms.routing.problem import (
    CVRPInstance,
    TSPInstance,
    check_cvrp_routes,
    cvrp_capacity,
    cvrp_cost,
    is_valid_cvrp,
    is_valid_tsp,
    random_cvrp,
    random_tsp,
    read_cvrplib,
    read_tsplib,
    routes_from_sequence,
    sequence_from_routes,
    tsp_cost,
    write_cvrplib,
    write_tsplib,
)


def test_capacity_table_of_the_paper():
    assert [cvrp_capacity(n) for n in (20, 50, 100, 200, 500, 1000)] == [30, 40, 50, 50, 50, 50]


def test_generators_follow_the_distribution_and_seed():
    inst = random_cvrp(200, seed=3)
    assert inst.capacity == 50
    assert inst.demands[0] == 0 and set(inst.demands[1:].tolist()) <= set(range(1, 10))
    assert np.all((inst.coords >= 0) & (inst.coords <= 1))
    np.testing.assert_array_equal(random_tsp(9, seed=5).coords, random_tsp(9, seed=5).coords)
    assert not np.array_equal(random_tsp(9, seed=5).coords, random_tsp(9, seed=6).coords)


def test_tsp_cost_is_rotation_and_reflection_invariant():
    inst = random_tsp(6, seed=1)
    tour = [0, 3, 1, 5, 2, 4]
    ref = tsp_cost(inst, tour)
    for k in range(6):
        assert tsp_cost(inst, tour[k:] + tour[:k]) == pytest.approx(ref, abs=1e-12)
    assert tsp_cost(inst, tour[::-1]) == pytest.approx(ref, abs=1e-12)
    d = inst.distances
    assert ref == pytest.approx(sum(d[tour[i], tour[(i + 1) % 6]] for i in range(6)))


def test_cvrp_cost_and_validation():
    inst = CVRPInstance(np.array([[0, 0], [1, 0], [0, 1], [1, 1.0]]), [0, 2, 2, 3], 4)
    routes = [[1, 2], [3]]
    assert cvrp_cost(inst, routes) == pytest.approx(1 + np.sqrt(2) + 1 + 2 * np.sqrt(2))
    assert is_valid_cvrp(inst, routes)
    assert not is_valid_cvrp(inst, [[1, 2, 3]])  # overloaded
    assert not is_valid_cvrp(inst, [[1], [2]])  # missing 3
    assert not is_valid_cvrp(inst, [[1, 1], [2], [3]])  # repeated
    with pytest.raises(ValueError, match="capacity"):
        check_cvrp_routes(inst, [[1, 2, 3]])


def test_tsp_validation():
    inst = random_tsp(5, seed=0)
    assert is_valid_tsp(inst, [4, 3, 2, 1, 0])
    assert not is_valid_tsp(inst, [0, 1, 2, 3])
    assert not is_valid_tsp(inst, [0, 1, 2, 3, 3])


def test_sequence_round_trip():
    routes = [[3, 1], [2], [5, 4]]
    assert routes_from_sequence(sequence_from_routes(routes)) == routes


def test_lib_round_trip():
    tsp = random_tsp(7, seed=2)
    back = read_tsplib(write_tsplib(tsp, name="x"))
    np.testing.assert_array_equal(back.coords, tsp.coords)
    cv = random_cvrp(6, seed=2)
    back = read_cvrplib(write_cvrplib(cv))
    np.testing.assert_array_equal(back.coords, cv.coords)
    np.testing.assert_array_equal(back.demands, cv.demands)
    assert back.capacity == cv.capacity


def test_cvrplib_depot_not_first_is_moved_to_zero():
    text = """NAME : t
TYPE : CVRP
DIMENSION : 3
CAPACITY : 5
NODE_COORD_SECTION
1 1 1
2 0 0
3 2 2
DEMAND_SECTION
1 2
2 0
3 3
DEPOT_SECTION
2
-1
EOF
"""
    inst = read_cvrplib(text)
    assert inst.coords[0].tolist() == [0.0, 0.0] and inst.demands.tolist() == [0, 2, 3]


def test_instances_are_immutable():
    inst = random_tsp(4, seed=0)
    with pytest.raises(ValueError):
        inst.coords[0, 0] = 3.0
    assert isinstance(inst, TSPInstance)


def test_all_permutations_valid():
    inst = random_tsp(4, seed=0)
    assert all(is_valid_tsp(inst, p) for p in itertools.permutations(range(4)))


def test_tour_must_hold_integer_indices():
    """A float tour is refused even when its values are integral (the tour is a list of node indices)."""
    inst = random_tsp(4, seed=0)
    assert is_valid_tsp(inst, [0, 1, 2, 3])
    assert not is_valid_tsp(inst, [0.0, 1.0, 2.0, 3.0])
    assert not is_valid_tsp(inst, [])
