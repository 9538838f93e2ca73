"""The recompute-from-scratch baseline: rerun a static algorithm after every update.

After update t, the static algorithm (:class:`SampleGreedy` by default, or :class:`Greedy`)
is run on the present elements V_t, in the stream's order of first appearance, with the
seed (seed, t) for its coins. Its queries per update grow with |V_t|: this is the cost the
dynamic algorithm avoids.

Retcodes: those of :class:`algorithms.submodular.DynamicMatchoid` (``Success`` when the
whole stream was processed and every solution passed the independence check; ``MaxIters``
when ``maxiters`` capped the number of updates; ``Diverged`` / ``Failure`` for a
non-finite / negative value of f). The trace has the same records as the dynamic one.

References
----------
The baseline of the paper's Section 1.1.2 (rebuilding after every deletion costs Ω(n) queries).

>>> from algorithms import solve
>>> from algorithms.submodular import Matchoid, RecomputeFromScratch, UniformMatroid, UpdateStream
>>> stream = UpdateStream(len, Matchoid([UniformMatroid(2)]), [("insert", e) for e in range(6)])
>>> solve(stream, RecomputeFromScratch(), seed=0).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from algorithms.core import Algorithm, Solution, SolveOptions, Stats, _dispatch
from algorithms.submodular.dynamic_matchoid import run_stream
from algorithms.submodular.greedy import Greedy, lazy_greedy
from algorithms.submodular.oracle import CountingOracle
from algorithms.submodular.problems import UpdateStream
from algorithms.submodular.sample_greedy import SampleGreedy, sample

__all__ = ["RecomputeFromScratch"]


@dataclass(frozen=True)
class RecomputeFromScratch(Algorithm):
    """Rerun ``static`` (a :class:`SampleGreedy` or :class:`Greedy`) after every update. ``tol`` has no
    effect (the method has no tolerance: ``solve`` warns); ``maxiters`` caps the updates processed.
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    """

    static: Algorithm = field(default_factory=SampleGreedy)

    def __post_init__(self) -> None:
        if not isinstance(self.static, SampleGreedy | Greedy):
            raise TypeError(f"static must be SampleGreedy() or Greedy(), got {type(self.static).__name__}")


@_dispatch
def _solve(problem: UpdateStream, algorithm: RecomputeFromScratch, options: SolveOptions) -> Solution:
    problem.recheck_matroids()  # a user matroid changed since construction
    oracle = CountingOracle(problem.f, problem.matchoid)
    rank = {e: i for i, e in enumerate(problem.universe)}
    present: set = set()
    state = {"set": frozenset(), "value": oracle.exact_value(frozenset()), "time": 0}
    entropy = np.random.SeedSequence(options.seed).entropy

    def step(kind: str, element) -> None:
        after = present | {element} if kind == "insert" else present - {element}
        elements = sorted(after, key=rank.__getitem__)
        state["time"] += 1
        if isinstance(algorithm.static, SampleGreedy):
            rng = np.random.default_rng(np.random.SeedSequence([entropy, state["time"]]))
            elements = sample(elements, problem.matchoid.p, rng)
        chosen, value, _ = lazy_greedy(oracle, elements, len(elements))
        present.clear()
        present.update(after)
        state["set"], state["value"] = chosen, value

    retcode, processed, trace, message = run_stream(
        problem, options, step, lambda: (state["set"], float(state["value"])), lambda: oracle.queries, dict)
    stats = Stats(iterations=processed, f_calls=oracle.value_queries)
    return Solution(x=problem.indicator(state["set"]), value=float(state["value"]), retcode=retcode,
                    stats=stats, trace=trace,
                    original={"queries": oracle.queries, "stop_reason": message})
