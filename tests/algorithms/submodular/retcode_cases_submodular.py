"""Retcode contract cases of the submodular family (``tests/test_contract.py`` runs them).

Horizon: ``maxiters`` caps the updates processed (stream methods), the additions (greedy) or the
sets enumerated (brute force) before the method's own criterion held. Failures: f turns NaN
mid-stream (``Diverged``) or negative (``Failure``: the theorems need f >= 0).
"""

import math

from algorithms import RetCode
from algorithms.submodular import (
    BruteForce,
    DynamicMatchoid,
    Greedy,
    MatchoidMaximization,
    RecomputeFromScratch,
    UpdateStream,
)
from tests.algorithms.submodular._instances import cut, mixed_stream, two_partitions
from tests.retcodes import RetcodeCase

_BASE = cut()


def _poisoned(value):
    return lambda s: value if 5 in s else _BASE(s)


def _stream(f=_BASE):
    return UpdateStream(f, two_partitions(), [("insert", e) for e in range(8)])


CASES = [
    RetcodeCase("dynamic-capped", lambda: (UpdateStream(_BASE, two_partitions(), mixed_stream(length=20)),
                                           DynamicMatchoid(), {"maxiters": 5}), RetCode.MaxIters),
    RetcodeCase("dynamic-nan", lambda: (_stream(_poisoned(math.nan)), DynamicMatchoid(), {}),
                RetCode.Diverged),
    RetcodeCase("dynamic-negative", lambda: (_stream(_poisoned(-1.0)), DynamicMatchoid(), {}),
                RetCode.Failure),
    RetcodeCase("recompute-capped", lambda: (_stream(), RecomputeFromScratch(), {"maxiters": 3}),
                RetCode.MaxIters),
    RetcodeCase("recompute-nan", lambda: (_stream(_poisoned(math.nan)), RecomputeFromScratch(static=Greedy()),
                                          {}),
                RetCode.Diverged),
    RetcodeCase("greedy-capped", lambda: (MatchoidMaximization(_BASE, two_partitions(), range(8)), Greedy(),
                                          {"maxiters": 1}), RetCode.MaxIters),
    RetcodeCase("greedy-nan", lambda: (MatchoidMaximization(_poisoned(math.nan), two_partitions(), range(8)),
                                       Greedy(), {}), RetCode.Diverged),
    RetcodeCase("brute-force-capped", lambda: (MatchoidMaximization(_BASE, two_partitions(), range(8)),
                                               BruteForce(), {"maxiters": 4}), RetCode.MaxIters),
    RetcodeCase("brute-force-negative", lambda: (MatchoidMaximization(_poisoned(-1.0), two_partitions(),
                                                                      range(8)), BruteForce(), {}),
                RetCode.Failure),
]
