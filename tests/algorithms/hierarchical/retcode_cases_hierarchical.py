"""Retcode contract cases of the hierarchical family: per method a run that must end ``Diverged`` and one
cut by its iteration cap (``MaxIters``).

Diverging runs: an oracle that returns NaN after a few calls (every method must stop with
``Diverged``, never hand back a NaN iterate) and SGDA with an ascent step past the stability limit
of the y-update (lr_y = 3 > 2/μ = 2), where y grows geometrically. An oracle of the wrong shape or
type is a user error, not a blow-up: it raises an error naming the oracle
(``test_bad_inputs.test_oracle_of_the_wrong_shape_or_type_is_named``).
Capped runs: three iterations cannot reach ‖∇Φ‖ <= 1e-12 from these starts.
"""

import math
from dataclasses import replace

import numpy as np

from algorithms import RetCode
from algorithms.hierarchical import (
    SGDA,
    AdaBiO,
    AdaMinimax,
    StocBiO,
    TiAda,
    quadratic_bilevel,
    synthetic_minimax,
)
from tests.retcodes import RetcodeCase

MINIMAX = (AdaMinimax(), SGDA(), TiAda())
BILEVEL = (AdaBiO(), StocBiO())


def _nan_after(grad, calls: int):
    count = {"n": 0}

    def broken(*args):
        count["n"] += 1
        gx, gy = grad(*args)
        return (gx * np.nan, gy) if count["n"] > calls else (gx, gy)

    return broken


def _minimax_nan():
    prob = synthetic_minimax(coupling=math.sqrt(0.5))
    return replace(prob, grad=_nan_after(prob.grad, 5))


def _bilevel_nan():
    prob = quadratic_bilevel(mu_g=1.0, l_g1=2.0)
    return replace(prob, upper_grad=_nan_after(prob.upper_grad, 5))


CASES = [
    *(RetcodeCase(name=f"{type(a).__name__} with a NaN oracle diverges",
                  build=lambda a=a: (_minimax_nan(), a, {"maxiters": 100, "tol": 1e-12}),
                  expected=RetCode.Diverged)
      for a in MINIMAX),
    *(RetcodeCase(name=f"{type(a).__name__} with a NaN upper oracle diverges",
                  build=lambda a=a: (_bilevel_nan(), a, {"maxiters": 100, "tol": 1e-12}),
                  expected=RetCode.Diverged)
      for a in BILEVEL),
    RetcodeCase(name="SGDA with lr_y = 3 > 2/mu diverges",
                build=lambda: (synthetic_minimax(coupling=math.sqrt(0.5)), SGDA(lr_x=0.1, lr_y=3.0),
                               {"maxiters": 10_000, "tol": 1e-12}), expected=RetCode.Diverged),
    *(RetcodeCase(name=f"{type(a).__name__} capped at 3 iterations",
                  build=lambda a=a: (synthetic_minimax(coupling=math.sqrt(0.5)), a,
                                     {"maxiters": 3, "tol": 1e-12}),
                  expected=RetCode.MaxIters) for a in MINIMAX),
    *(RetcodeCase(name=f"{type(a).__name__} capped at 3 iterations",
                  build=lambda a=a: (quadratic_bilevel(mu_g=1.0, l_g1=2.0), a,
                                     {"maxiters": 3, "tol": 1e-12}),
                  expected=RetCode.MaxIters) for a in BILEVEL),
]
