"""Monte Carlo error probability of an identification algorithm on one problem.

>>> from algorithms.quantum import CoherentSR, PurestStateProblem, random_state
>>> states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))]
>>> identification_errors(PurestStateProblem(states, copies=400), CoherentSR(), repetitions=50)
0
"""

from __future__ import annotations

from algorithms._validation import check_count
from algorithms.core import Algorithm, solve
from algorithms.quantum.problem import PurestStateProblem
from algorithms.quantum.states import _count

__all__ = ["identification_errors"]


def identification_errors(problem: PurestStateProblem, algorithm: Algorithm, repetitions: int,
                          seed: int = 0) -> int:
    """How many of ``repetitions`` runs (seeds ``seed``, ``seed`` + 1, ...) miss a purest state.

    ``problem`` is a :class:`PurestStateProblem`, ``algorithm`` one of the family's algorithms,
    ``repetitions`` an int >= 1 and ``seed`` an int in [0, 2**64).

    A run that names a state tied with the purest (within 1e-12) counts as correct.
    """
    if not isinstance(problem, PurestStateProblem):
        raise TypeError(f"problem must be a PurestStateProblem, got {type(problem).__name__}")
    if not isinstance(algorithm, Algorithm):
        raise TypeError(f"algorithm must be an Algorithm, got {type(algorithm).__name__}")
    from algorithms.core import applicable_algorithms

    if type(algorithm) not in applicable_algorithms(PurestStateProblem):  # dispatch's error named no argument
        names = ", ".join(sorted(a.__name__ for a in applicable_algorithms(PurestStateProblem)))
        raise TypeError(f"algorithm must be one that solves a PurestStateProblem ({names}), got "
                        f"{type(algorithm).__name__}")
    # a count of solves: at most 2**31 − 1 (2**40 was accepted and looped for ever)
    repetitions = check_count("repetitions", repetitions, 1)
    seed = _count("seed", seed, 0)
    return sum(not problem.is_correct(solve(problem, algorithm, seed=seed + r).x)
               for r in range(repetitions))
