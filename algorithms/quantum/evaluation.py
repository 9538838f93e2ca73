"""Monte Carlo error probability of an identification algorithm on one problem.

>>> from algorithms.quantum import CoherentSR, PurestStateProblem, random_state
>>> states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))]
>>> identification_errors(PurestStateProblem(states, copies=400), CoherentSR(), repetitions=50)
0
"""

from __future__ import annotations

from algorithms._validation import check_count, check_seed
from algorithms.core import Algorithm, solve
from algorithms.quantum.problem import PurestStateProblem

__all__ = ["identification_errors"]

#: the most runs identification_errors makes: 10**3 (an error probability down to ~1e-3): a solve of the
#: smallest problem takes 0.6-6.5 ms here, so 10**3 runs take seconds, the earlier cap 10**5 several minutes
MAX_REPETITIONS = 10**3


def identification_errors(problem: PurestStateProblem, algorithm: Algorithm, repetitions: int,
                          seed: int = 0) -> int:
    """How many of ``repetitions`` runs (seeds ``seed``, ``seed`` + 1, ... modulo 2**64) miss a purest state.

    ``problem`` is a :class:`PurestStateProblem`, ``algorithm`` one of the family's algorithms,
    ``repetitions`` an int in [1, MAX_REPETITIONS = 1000] (each is a whole solve) and ``seed`` an int in
    [0, 2**64) (run r uses ``(seed + r) mod 2**64``, a valid seed, as every seed of the package).

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
    if repetitions > MAX_REPETITIONS:  # 2**31 − 1 runs looped for months
        raise ValueError(f"repetitions must be <= MAX_REPETITIONS = {MAX_REPETITIONS} (each is a solve; "
                         f"10**5 took minutes), got {repetitions}")
    seed = check_seed(seed)  # [0, 2**64) as documented (the count check capped it at 2**63 − 1)
    # the runs' seeds wrap: seed = 2**64 − 1, valid everywhere else, was refused for repetitions >= 2
    return sum(not problem.is_correct(solve(problem, algorithm, seed=(seed + r) % 2**64).x)
               for r in range(repetitions))
