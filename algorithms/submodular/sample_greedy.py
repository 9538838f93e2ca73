"""Sample Greedy: the static non-monotone p-matchoid algorithm of Feldman, Harshaw and Karbasi.

Keep each element independently with probability 1/(p + 1), then run greedy (see
:class:`algorithms.submodular.Greedy`) on the kept elements. A p-matchoid is a
p-extendible system (adding e to an independent set needs at most one removal per matroid
holding e), for which this is a (p + 1)²/p-approximation in expectation for non-negative
submodular f, monotone or not: 4 for a matroid, 4.5 for p = 2.

Retcodes: those of :class:`Greedy`.

References
----------
M. Feldman, C. Harshaw, A. Karbasi. Greed is Good: Near-Optimal Submodular Maximization via
Greedy Optimization. COLT 2017 (Sample Greedy, its Theorem for k-extendible systems).

>>> from algorithms import solve
>>> from algorithms.submodular import Matchoid, MatchoidMaximization, SampleGreedy, UniformMatroid
>>> sol = solve(MatchoidMaximization(len, Matchoid([UniformMatroid(2)]), range(20)), SampleGreedy(), seed=0)
>>> sol.retcode, sol.value
(<RetCode.Success: 'Success'>, 2.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from algorithms._validation import check_generator
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.submodular.greedy import static_solve
from algorithms.submodular.problems import MatchoidMaximization

__all__ = ["SampleGreedy"]


@dataclass(frozen=True)
class SampleGreedy(Algorithm):
    """Greedy on a 1/(p + 1) sample; no hyperparameters (the rate is the paper's). ``tol`` has no effect
    (the method has no tolerance: ``solve`` warns); ``maxiters`` caps the additions.
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    """


def sample(elements, p: int, rng: np.random.Generator) -> list:
    """The elements kept by independent coins of probability 1/(p + 1), in their order."""
    check_generator("rng", rng)
    coins = rng.random(len(elements))
    return [e for e, coin in zip(elements, coins) if coin < 1.0 / (p + 1)]


@_dispatch
def _solve(problem: MatchoidMaximization, algorithm: SampleGreedy, options: SolveOptions) -> Solution:
    problem.recheck_matroids()  # a user matroid changed since construction
    kept = sample(problem.universe, problem.matchoid.p, np.random.default_rng(options.seed))
    return static_solve(problem, kept, options)
