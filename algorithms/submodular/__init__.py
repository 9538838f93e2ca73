"""Submodular maximization under p-matchoid constraints, static and fully dynamic.

The paper: Banihashem, Goudarzi, Hajiaghayi, Jabbarzade, Monemizadeh, "Non-monotone Submodular
Optimization: p-Matchoid Constraints and Fully Dynamic Setting" (NeurIPS 2025).

Constraints: :class:`UniformMatroid`, :class:`PartitionMatroid`, :class:`GraphicMatroid`,
:class:`LaminarMatroid` joined in a :class:`Matchoid`. Functions: any callable
f(frozenset) -> float, or the ready-made :class:`GraphCut`, :class:`DirectedCut`,
:class:`FacilityLocation`, :class:`Coverage`, :class:`LogDet`. The dynamic algorithm:
:class:`DynamicMatchoidMaximizer` (driven by ``insert``/``delete``) and its ``solve`` form
:class:`DynamicMatchoid` over an :class:`UpdateStream`; the baseline
:class:`RecomputeFromScratch`. Offline references over a :class:`MatchoidMaximization`:
:class:`BruteForce` (OPT), :class:`Greedy`, :class:`SampleGreedy`.

>>> from algorithms import solve
>>> from algorithms.submodular import DynamicMatchoid, Matchoid, UniformMatroid, UpdateStream
>>> updates = [("insert", e) for e in range(5)] + [("delete", 0)]
>>> sol = solve(UpdateStream(len, Matchoid([UniformMatroid(3)]), updates), DynamicMatchoid(eps=0.1), seed=1)
>>> sol.retcode, sol.stats.iterations
(<RetCode.Success: 'Success'>, 6)
"""

from algorithms.submodular.brute_force import BruteForce
from algorithms.submodular.dynamic_matchoid import (
    DynamicMatchoid,
    DynamicMatchoidMaximizer,
    sampling_parameters,
)
from algorithms.submodular.functions import Coverage, DirectedCut, FacilityLocation, GraphCut, LogDet
from algorithms.submodular.greedy import Greedy
from algorithms.submodular.matroids import (
    GraphicMatroid,
    LaminarMatroid,
    Matchoid,
    Matroid,
    PartitionMatroid,
    UniformMatroid,
)
from algorithms.submodular.oracle import (
    CountingOracle,
    InconsistentOracleError,
    NegativeValueError,
    NonFiniteValueError,
)
from algorithms.submodular.problems import MatchoidMaximization, UpdateStream
from algorithms.submodular.recompute import RecomputeFromScratch
from algorithms.submodular.sample_greedy import SampleGreedy

__all__ = [
    "BruteForce",
    "CountingOracle",
    "Coverage",
    "DirectedCut",
    "DynamicMatchoid",
    "DynamicMatchoidMaximizer",
    "FacilityLocation",
    "GraphCut",
    "GraphicMatroid",
    "Greedy",
    "InconsistentOracleError",
    "LaminarMatroid",
    "LogDet",
    "Matchoid",
    "MatchoidMaximization",
    "Matroid",
    "NegativeValueError",
    "NonFiniteValueError",
    "PartitionMatroid",
    "RecomputeFromScratch",
    "SampleGreedy",
    "UniformMatroid",
    "UpdateStream",
    "sampling_parameters",
]
