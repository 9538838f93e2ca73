"""Retcode contract cases of the LCD family: per method one run that must diverge, one that must stop at
the iteration cap without meeting its criterion (``tests/test_contract.py`` runs them).

The diverging runs break an assumption the method relies on: a step past 2/L (GD), an L_C ten times
too small so the upper model is wrong (LCD1), a gradient oracle of the wrong sign, so that ∇f points
uphill and the localization set lies behind the iterate (Polyak, LCD2, LCD3), an objective unbounded
below (L-BFGS-B). Each blows up within ~50 iterations (f grows by 10¹⁵, or to inf/nan).
"""

from dataclasses import replace

import numpy as np

from algorithms import RetCode
from algorithms.curvature import (
    LBFGS,
    LCD1,
    LCD2,
    LCD3,
    CurvatureProblem,
    GradientDescent,
    Polyak,
    squared_norm_residual,
)
from tests.algorithms.curvature.cases_lcd import _A, _B
from tests.retcodes import RetcodeCase


def _least_squares() -> CurvatureProblem:
    return squared_norm_residual(_A, _B, x0=np.zeros(3))


def _uphill_gradient() -> CurvatureProblem:
    """‖Ax − b‖² with the oracle returning −∇f: every step moves away from the minimizer."""
    return replace(_least_squares(), grad=lambda x: -2.0 * (_A.T @ (_A @ x - _B)))


def _gd_step_too_long():
    prob = _least_squares()
    return prob, GradientDescent(lr=3.0 / prob.L), {"maxiters": 10_000}


def _lcd1_wrong_constant():
    """C ≡ 0 with L_C = L/10: the upper bound (6) fails and LCD1 steps 10/L."""
    prob = _least_squares()
    return replace(prob, curvature=lambda x: np.zeros(3), L_C=prob.L / 10), LCD1(), {"maxiters": 10_000}


def _minus_cube(x):
    with np.errstate(over="ignore", invalid="ignore"):  # the run is meant to overflow
        return -float(np.sum(x**3))


def _minus_cube_gradient(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return -3.0 * x**2


def _unbounded_below():
    return (CurvatureProblem(f=_minus_cube, grad=_minus_cube_gradient, curvature=lambda x: np.zeros(3),
                             L_C=1.0, x0=np.ones(3)),
            LBFGS(), {"maxiters": 1000})


def _capped(algorithm):
    # three steps cannot reach tol = 1e-14 on this instance (LCD2 needs ~16, GD ~30)
    return lambda: (_least_squares(), algorithm, {"maxiters": 3, "tol": 1e-14})


CASES = [
    RetcodeCase(name="GD lr = 3/L diverges", build=_gd_step_too_long, expected=RetCode.Diverged),
    RetcodeCase(name="LCD1 with L_C = L/10 diverges", build=_lcd1_wrong_constant, expected=RetCode.Diverged),
    *(RetcodeCase(name=f"{type(a).__name__} with an uphill gradient diverges",
                  build=lambda a=a: (_uphill_gradient(), a, {"maxiters": 10_000}), expected=RetCode.Diverged)
      for a in (Polyak(), LCD2(), LCD3())),
    RetcodeCase(name="L-BFGS-B on an objective unbounded below diverges", build=_unbounded_below,
                expected=RetCode.Diverged),
    *(RetcodeCase(name=f"{type(a).__name__} capped at 3 iterations", build=_capped(a),
                  expected=RetCode.MaxIters)
      for a in (GradientDescent(), Polyak(), LCD1(), LCD2(), LCD3(), LBFGS())),
]
