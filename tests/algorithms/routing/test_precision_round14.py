"""Round 14: valid instances answered right (tour lengths against mpmath at 50 digits by enumeration)."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest

from algorithms import solve
from algorithms.routing import CVRPInstance, TSPInstance, read_cvrplib, tsp_cost, write_cvrplib
from algorithms.routing.held_karp import HeldKarp


def _reference_length(coords: np.ndarray, tour: list[int]) -> mpmath.mpf:
    with mpmath.workdps(50):
        pts = [[mpmath.mpf(float(v)) for v in row] for row in coords]
        return mpmath.fsum(mpmath.sqrt((pts[a][0] - pts[b][0]) ** 2 + (pts[a][1] - pts[b][1]) ** 2)
                           for a, b in zip(tour, tour[1:] + tour[:1]))


@pytest.mark.parametrize("scale", [1e-150, 1e-30, 1.0, 1e30, 1e38])
def test_tour_lengths_and_the_exact_optimum_at_every_scale(scale):
    coords = np.random.default_rng(3).random((6, 2)) * scale
    inst = TSPInstance(coords)
    tours = [[0, *p] for p in itertools.permutations(range(1, 6))]
    refs = [_reference_length(coords, t) for t in tours]
    for tour, ref in zip(tours, refs):
        assert abs(tsp_cost(inst, tour) - ref) <= 1e-14 * ref
    sol = solve(inst, HeldKarp())
    assert sol.retcode.name == "Success" and abs(sol.value - min(refs)) <= 1e-14 * min(refs)


@pytest.mark.parametrize("scale", [1e-155, 1e-160, 1e-200])
def test_coords_whose_squared_distances_leave_the_normal_range_are_refused(scale):
    # points 1e-160 apart: the squared distances were subnormal and the tour length 6e-4 off, in silence
    coords = np.random.default_rng(3).random((6, 2)) * scale
    with pytest.raises(ValueError, match=r"^coords are too small in scale"):
        TSPInstance(coords)


@pytest.mark.parametrize("demands, capacity", [([2**53 + 1, 1], 2**62),
                                               (np.array([2**53 + 1, 1], dtype=np.int64), 2**53)])
def test_int_demands_past_2_53_are_refused_before_the_float_cast(demands, capacity):
    # 2**53 + 1 became 2**53 in the float64 cast and was taken (documented <= 2**53)
    coords = np.random.default_rng(0).random((3, 2))
    with pytest.raises(ValueError, match=r"^demands must be <= 2\*\*53"):
        CVRPInstance(coords, demands, capacity)


@pytest.mark.parametrize("capacity, demands", [(2**53 + 1, [0, 1, 2]), (2**63 - 1, [0, 1, 2**53])])
def test_cvrplib_round_trips_integers_exactly(capacity, demands):
    # read_cvrplib parsed CAPACITY and DEMAND with float(): 2**53 + 1 read back as 2**53, 2**63 - 1 refused
    inst = CVRPInstance(np.random.default_rng(0).random((3, 2)), demands, capacity)
    back = read_cvrplib(write_cvrplib(inst))
    assert back.capacity == capacity and back.demands.tolist() == demands


@pytest.mark.parametrize("scale", [1e-3, 1e-30])
def test_hbg_answers_do_not_depend_on_the_unit_inside_the_unit_square(scale):
    # only coords outside [0, 1]² were rescaled: a TSP in a 1e-3 box got tours 2.3 times as long (Success)
    from algorithms.routing.hbg import HBG

    coords = np.random.default_rng(0).random((20, 2))
    base = solve(TSPInstance(coords), HBG(local_search=False, samples=10), seed=0).value
    small = solve(TSPInstance(coords * scale), HBG(local_search=False, samples=10), seed=0).value / scale
    assert small == pytest.approx(base, rel=1e-9)


def test_beta_at_ends_exactly_at_beta_max():
    # beta_min·(beta_max/beta_min)**1 rounded twice: 813.0859696336581 for 813.0859696336582
    from algorithms.routing.train import beta_at

    rng = np.random.default_rng(0)
    for _ in range(500):
        lo, hi = sorted(10.0 ** rng.uniform(-30, 30, 2))
        assert beta_at(4, 5, lo, hi) == hi and beta_at(0, 5, lo, hi) == lo and beta_at(9, 5, lo, hi) == hi
