"""Implementations of the methods of 19 NeurIPS 2025 papers behind one ``solve`` interface.

Families are subpackages (``algorithms.qp``, ``algorithms.curvature``, ...); import
them for their problem and algorithm types. ``solve`` dispatches on both.
"""

from algorithms.core import (
    Algorithm,
    IncompatibleAlgorithmError,
    Problem,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    applicable_algorithms,
    registered_pairs,
    solve,
)

__all__ = [
    "Algorithm",
    "IncompatibleAlgorithmError",
    "Problem",
    "RetCode",
    "Solution",
    "SolveOptions",
    "Stats",
    "applicable_algorithms",
    "registered_pairs",
    "solve",
]
