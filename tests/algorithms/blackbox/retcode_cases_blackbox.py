"""Retcode cases of the blackbox family: a run that spends its budget without a target (MaxIters: the
budget is the horizon) and an objective that is never finite (Diverged)."""

import math

import numpy as np

from algorithms import RetCode
from algorithms.blackbox import CMAES, BlackBoxProblem, DesignX, ModularOptimizer, ScipyDE
from tests.retcodes import RetcodeCase

WORKFLOW = ("init.sobol", "pop.cma", "es.sep_cmaes", "bc.reflect", "sel.mu_plus_lambda")


def _budget():
    prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 300)
    return prob, ModularOptimizer(WORKFLOW), {}


def _budget_designx():
    prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 300, target=-1.0)
    return prob, DesignX(), {}


def _nan():
    return BlackBoxProblem(lambda x: math.nan, (-np.ones(2), np.ones(2)), 200), ModularOptimizer(WORKFLOW), {}


def _nan_de():
    return BlackBoxProblem(lambda x: math.inf, (-np.ones(2), np.ones(2)), 200), ScipyDE(), {}


def _nan_cma():
    return BlackBoxProblem(lambda x: math.nan, (-np.ones(2), np.ones(2)), 100), CMAES(), {}


CASES = [RetcodeCase("budget_spent", _budget, RetCode.MaxIters),
         RetcodeCase("designx_unreachable_target", _budget_designx, RetCode.MaxIters),
         RetcodeCase("never_finite", _nan, RetCode.Diverged),
         RetcodeCase("never_finite_scipy_de", _nan_de, RetCode.Diverged),
         RetcodeCase("never_finite_cmaes", _nan_cma, RetCode.Diverged)]
