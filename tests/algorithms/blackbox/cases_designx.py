"""Contract cases for the blackbox family's (problem, algorithm) pairs: a shifted sphere with a
reachable target, so a run that reaches it says Success (the family's only certified criterion)."""

import numpy as np

from algorithms.blackbox import CMAES, PSO, BlackBoxProblem, DesignX, ModularOptimizer, RandomSearch, ScipyDE


def _sphere(dtype, target=1e-2, budget=4000):
    lower = np.full(3, -2.0, dtype=dtype)
    return BlackBoxProblem(lambda x: float(np.sum((np.asarray(x, dtype=float) - 0.3) ** 2)),
                           (lower, -lower), budget, target=target)


def make_modular(dtype):
    return _sphere(dtype), ModularOptimizer(("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip",
                                             "sel.greedy"))


def make_designx(dtype):
    return _sphere(dtype), DesignX()


def make_scipy_de(dtype):
    return _sphere(dtype), ScipyDE()


def make_cmaes(dtype):
    return _sphere(dtype), CMAES()


def make_pso(dtype):
    return _sphere(dtype), PSO()


def make_random(dtype):
    return _sphere(dtype, target=0.02, budget=50000), RandomSearch()


CASES = [make_modular, make_designx, make_scipy_de, make_cmaes, make_pso, make_random]
