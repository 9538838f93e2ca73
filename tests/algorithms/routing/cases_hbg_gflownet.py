"""Contract cases for every routing (problem, algorithm) pair. Answers are tours / route lists
(node indices), so every maker is ``index_valued`` (no floating dtype to keep)."""

from algorithms.routing import random_cvrp, random_tsp
from algorithms.routing.cvrp_enumeration import CVRPEnumeration
from algorithms.routing.hbg import HBG
from algorithms.routing.held_karp import HeldKarp
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from algorithms.routing.nn2opt import NearestNeighbor2Opt


def _index(make):
    make.index_valued = True
    return make


@_index
def tsp_held_karp(dtype):
    return random_tsp(7, seed=0), HeldKarp()


@_index
def tsp_lkh(dtype):
    return random_tsp(12, seed=0), LKH(runs=2)


@_index
def tsp_nn2opt(dtype):
    return random_tsp(15, seed=0), NearestNeighbor2Opt()


@_index
def tsp_hbg(dtype):
    return random_tsp(20, seed=0), HBG(checkpoint="tsp20", samples=4)


@_index
def cvrp_enumeration(dtype):
    return random_cvrp(5, seed=0), CVRPEnumeration()


@_index
def cvrp_hgs(dtype):
    return random_cvrp(8, seed=0), HGS(runtime=0.1)


@_index
def cvrp_nn2opt(dtype):
    return random_cvrp(15, seed=0), NearestNeighbor2Opt()


@_index
def cvrp_hbg(dtype):
    return random_cvrp(20, seed=0), HBG(checkpoint="cvrp20", samples=4)


CASES = [tsp_held_karp, tsp_lkh, tsp_nn2opt, tsp_hbg, cvrp_enumeration, cvrp_hgs, cvrp_nn2opt, cvrp_hbg]
