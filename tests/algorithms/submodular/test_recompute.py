import pytest

from algorithms import RetCode, solve
from algorithms.submodular import DynamicMatchoid, Greedy, RecomputeFromScratch, UpdateStream
from tests.algorithms.submodular._instances import cut, mixed_stream, two_partitions


def test_recompute_follows_the_stream_and_costs_more_queries():
    f, matchoid = cut(), two_partitions()
    stream = UpdateStream(f, matchoid, mixed_stream(length=28))
    for static in (Greedy(), None):
        algorithm = RecomputeFromScratch() if static is None else RecomputeFromScratch(static=static)
        sol = solve(stream, algorithm, seed=0, store_trace=True)
        assert sol.retcode is RetCode.Success and len(sol.trace) == 28
        assert all(matchoid.is_independent(stream.decode(sol.x)) for _ in [0])
        assert sol.value == pytest.approx(f(stream.decode(sol.x)))
    assert solve(stream, RecomputeFromScratch(), maxiters=2).retcode is RetCode.MaxIters
    # a MAX in the paper's [max f(v), 2 max f(v)] (round 13: a looser one is refused)
    top = max(f(frozenset([e])) for e in stream.universe)
    dynamic = solve(stream, DynamicMatchoid(max_value=2 * top), seed=0)
    recompute = solve(stream, RecomputeFromScratch(static=Greedy()), seed=0)
    assert dynamic.original.queries < recompute.original["queries"]
