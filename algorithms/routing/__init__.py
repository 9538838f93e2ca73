"""Routing: TSP and CVRP instances, exact and classical solvers, and the Hybrid-Balance GFlowNet.

A solve's ``Solution.x`` is a list of int node indices: for a :class:`TSPInstance` the tour, each node once
from node 0 (the return to it implied), for a :class:`CVRPInstance` the depot-delimited node sequence
``[0, c, c, 0, c, 0]`` (read by :func:`cvrp_cost`); ``value`` is its length on the unrounded distances.
"""

from algorithms.routing.problem import (
    CVRPInstance,
    TSPInstance,
    cvrp_cost,
    random_cvrp,
    random_tsp,
    read_cvrplib,
    read_tsplib,
    tsp_cost,
    write_cvrplib,
    write_tsplib,
)

__all__ = [
    "CVRPInstance",
    "TSPInstance",
    "cvrp_cost",
    "random_cvrp",
    "random_tsp",
    "read_cvrplib",
    "read_tsplib",
    "tsp_cost",
    "write_cvrplib",
    "write_tsplib",
]
