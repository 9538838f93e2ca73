"""Local Curvature Descent (Richtárik, Giancola, Lubczyk, Yadav; arXiv:2405.16574) and its peers.

Problem type: :class:`CurvatureProblem` (f, ∇f, a local curvature map C, the constant L_C,
optionally f*), with ready-made families and the calculus of Section 5 (:func:`shifted`,
:func:`scaled`, :func:`summed`). Algorithms: :class:`LCD1`, :class:`LCD2`,
:class:`LCD3` and the baselines :class:`GradientDescent`, :class:`Polyak`, :class:`LBFGS`.

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import LCD2, squared_norm_residual
>>> prob = squared_norm_residual(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.ones(3))
>>> solve(prob, LCD2(), maxiters=2000).retcode
<RetCode.Success: 'Success'>
"""

from algorithms.curvature.calculus import scaled, shifted, summed
from algorithms.curvature.gradient_descent import GradientDescent, gd_step
from algorithms.curvature.lbfgs import LBFGS
from algorithms.curvature.lcd1 import LCD1, lcd1_step
from algorithms.curvature.lcd2 import LCD2, lcd2_coefficients, lcd2_gap, lcd2_multiplier, lcd2_step
from algorithms.curvature.lcd3 import LCD3, lcd3_step, lcd3_stepsize
from algorithms.curvature.polyak import Polyak, polyak_step
from algorithms.curvature.problem import (
    CurvatureProblem,
    lp_norm_power,
    lp_regression,
    squared_hinge,
    squared_huber,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
    sum_of_squared_absolutely_convex,
)

__all__ = [
    "LBFGS",
    "LCD1",
    "LCD2",
    "LCD3",
    "CurvatureProblem",
    "GradientDescent",
    "Polyak",
    "gd_step",
    "lcd1_step",
    "lcd2_coefficients",
    "lcd2_gap",
    "lcd2_multiplier",
    "lcd2_step",
    "lcd3_step",
    "lcd3_stepsize",
    "lp_norm_power",
    "lp_regression",
    "polyak_step",
    "scaled",
    "shifted",
    "squared_hinge",
    "squared_huber",
    "squared_lp_norm",
    "squared_norm_residual",
    "sum_of_squared_abs_linear",
    "sum_of_squared_absolutely_convex",
    "summed",
]
