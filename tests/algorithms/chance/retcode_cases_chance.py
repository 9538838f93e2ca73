"""Retcode cases of the chance family: runs cut by their horizon, a diverging run, a failed search."""

from dataclasses import replace

from algorithms import RetCode
from algorithms.chance import SAAMILP, CVaRApproximation, linear_gaussian_problem
from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT
from tests.retcodes import RetcodeCase


def _problem():
    return linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)


CASES = [
    # the reverse process cut after 3 of its 10 steps
    RetcodeCase("ggdopt-maxiters", lambda: (_problem(), TINY_GGDOPT, {"maxiters": 3}), RetCode.MaxIters),
    # an astronomically strong guidance throws the samples past the divergence bound
    RetcodeCase(
        "ggdopt-diverged", lambda: (_problem(), replace(TINY_GGDOPT, beta=1e30), {}), RetCode.Diverged
    ),
    RetcodeCase(
        "cvar-maxiters", lambda: (_problem(), CVaRApproximation(), {"maxiters": 1}), RetCode.MaxIters
    ),
    RetcodeCase("saa-maxiters", lambda: (_problem(), SAAMILP(), {"maxiters": 0}), RetCode.MaxIters),
]
