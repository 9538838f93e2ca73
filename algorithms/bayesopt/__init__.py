"""Bayesian optimization with constraints: GP regression, (constrained) expected improvement, CEI.

``solve(ConstrainedBOProblem(f, c, bounds, initial=...), CEI(), maxiters=50, seed=0)`` (or ask/tell:
``CEI().ask_tell(bounds, n_constraints)``)
minimizes f subject to c <= 0 with the constrained expected improvement of Gardner et al. (2014),
whose regret rates Wang et al. (NeurIPS 2025, arXiv:2505.11323) establish; the test functions
(RKHS functions, GP sample paths, classic constrained problems) come with their optima.
"""

from algorithms.bayesopt.acquisition import (
    constrained_ei,
    expected_improvement,
    log_constrained_ei,
    log_expected_improvement,
    log_probability_of_feasibility,
    probability_of_feasibility,
)
from algorithms.bayesopt.cei import CEI, BOHistory, CEIAskTell
from algorithms.bayesopt.gp import GaussianProcess, fit_kernel
from algorithms.bayesopt.kernels import KERNEL_NAMES, MATERN_NUS, Kernel
from algorithms.bayesopt.problem import ConstrainedBOProblem
from algorithms.bayesopt.test_functions import (
    RKHSFunction,
    constrained_branin,
    constrained_minimum,
    gardner_problem,
    gp_sample_path,
    gramacy_problem,
    hartmann6_l1_problem,
    rkhs_function,
    rkhs_problem,
    two_disks_problem,
)

__all__ = [
    "CEI",
    "KERNEL_NAMES",
    "MATERN_NUS",
    "BOHistory",
    "CEIAskTell",
    "ConstrainedBOProblem",
    "GaussianProcess",
    "Kernel",
    "RKHSFunction",
    "constrained_branin",
    "constrained_ei",
    "constrained_minimum",
    "expected_improvement",
    "fit_kernel",
    "gardner_problem",
    "gp_sample_path",
    "gramacy_problem",
    "hartmann6_l1_problem",
    "log_constrained_ei",
    "log_expected_improvement",
    "log_probability_of_feasibility",
    "probability_of_feasibility",
    "rkhs_function",
    "rkhs_problem",
    "two_disks_problem",
]
