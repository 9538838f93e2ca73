"""Contract cases for every (problem, algorithm) pair of the hierarchical family: noiseless instances on
which each method reaches the default tolerance well inside the default cap. The minimax start x0 = 20 has
‖∇Φ(x_1)‖ = 9.1 >= 1, so the default is the absolute ‖∇Φ(x_t)‖ <= 1e-2 (from x0 = 2, ‖∇Φ(x_1)‖ = 0.09 makes it
the relative 9e-4, which Ada-Minimax's decaying steps reach only past 10^5 iterations)."""

import math

from algorithms.hierarchical import (
    SGDA,
    AdaBiO,
    AdaMinimax,
    StocBiO,
    TiAda,
    quadratic_bilevel,
    synthetic_minimax,
)


def _make(build_problem, algorithm):
    def make(dtype):
        return build_problem(dtype), algorithm

    make.__name__ = f"make_{type(algorithm).__name__}"
    return make


def _minimax(dtype):
    return synthetic_minimax(coupling=math.sqrt(0.5), x0=20.0, dtype=dtype)


def _bilevel(dtype):
    return quadratic_bilevel(mu_g=1.0, l_g1=2.0, dtype=dtype)


CASES = [
    *(_make(_minimax, a) for a in (AdaMinimax(), SGDA(), TiAda())),
    *(_make(_bilevel, a) for a in (AdaBiO(), StocBiO())),
]
