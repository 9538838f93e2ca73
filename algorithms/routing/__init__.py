"""Routing: TSP and CVRP instances, exact and classical solvers, and the Hybrid-Balance GFlowNet."""

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
