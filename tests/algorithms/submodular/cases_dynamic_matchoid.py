"""Contract cases for every (problem, algorithm) pair of the submodular family.

``sol.x`` is the 0/1 indicator of the chosen set over ``problem.universe``, in the float type of
the set function's data (a float32 weight matrix gives float32).
"""


from algorithms.submodular import (
    BruteForce,
    DynamicMatchoid,
    Greedy,
    MatchoidMaximization,
    RecomputeFromScratch,
    SampleGreedy,
    UpdateStream,
)
from tests.algorithms.submodular._instances import cut, mixed_stream, two_partitions


def _stream(algorithm):
    def make(dtype):
        return UpdateStream(cut(dtype=dtype), two_partitions(), mixed_stream(length=20)), algorithm

    make.__name__ = f"make_stream_{type(algorithm).__name__}"
    return make


def _static(algorithm):
    def make(dtype):
        return MatchoidMaximization(cut(dtype=dtype), two_partitions(), list(range(8))), algorithm

    make.__name__ = f"make_static_{type(algorithm).__name__}"
    return make


CASES = [_stream(DynamicMatchoid(eps=0.1)), _stream(RecomputeFromScratch()),
         _static(BruteForce()), _static(Greedy()), _static(SampleGreedy())]
