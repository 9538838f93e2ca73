"""Chance-constrained programs and GGDOpt (Zhang, Wang, Liu; arXiv:2510.12238), with its baselines.

Problem type: :class:`ChanceConstrainedProblem` (f, g, samples of h, ρ, a box; optionally a sampler
of fresh h and the LP data behind linear f and g), with the test problems
:func:`linear_gaussian_problem` (the paper's eq. (26)), :func:`portfolio_var_problem`,
:func:`power_control_problem` and :func:`beamforming_problem` (a real-valued restriction of the
waveform design (27)). Algorithms: :class:`GGDOpt` (gradient-guided diffusion) and the
baselines :class:`SAAMILP` (sample average approximation as a big-M MILP), :class:`CVaRApproximation`
and :class:`ScenarioApproach`. The diffusion parts are public: :class:`VPSchedule`, the score models
:class:`ScoreMLP` and :class:`GaussianScore`, :func:`train_score`, the guidance of Corollary 1
(:func:`first_order_guidance`, :func:`second_order_guidance`, :func:`guidance_term`) and the
sampler :func:`guided_reverse_sample`.

>>> from algorithms import solve
>>> from algorithms.chance import CVaRApproximation, linear_gaussian_problem
>>> solve(linear_gaussian_problem(n=3, n_samples=100, rho=0.1), CVaRApproximation()).retcode
<RetCode.Success: 'Success'>
"""

from algorithms.chance.cvar import CVaRApproximation
from algorithms.chance.data import collect_feasible_points, restricted_solution
from algorithms.chance.diffusion import (
    GaussianScore,
    ScoreMLP,
    ScoreModel,
    VPSchedule,
    train_score,
    tweedie_mean,
)
from algorithms.chance.ggdopt import ChanceStats, GGDOpt, GGDOptResult
from algorithms.chance.guidance import first_order_guidance, guidance_term, second_order_guidance
from algorithms.chance.problem import (
    ChanceConstrainedProblem,
    LinearStructure,
    empirical_violation,
    min_samples,
    out_of_sample_feasibility,
)
from algorithms.chance.problems import (
    beamforming_problem,
    linear_gaussian_problem,
    portfolio_var_problem,
    power_control_problem,
)
from algorithms.chance.saa_milp import SAAMILP
from algorithms.chance.sampler import ReverseRun, guided_reverse_sample
from algorithms.chance.scenario import ScenarioApproach, scenario_count

__all__ = [
    "SAAMILP",
    "CVaRApproximation",
    "ChanceConstrainedProblem",
    "ChanceStats",
    "GGDOpt",
    "GGDOptResult",
    "GaussianScore",
    "LinearStructure",
    "ReverseRun",
    "ScenarioApproach",
    "ScoreMLP",
    "ScoreModel",
    "VPSchedule",
    "beamforming_problem",
    "collect_feasible_points",
    "empirical_violation",
    "first_order_guidance",
    "guidance_term",
    "guided_reverse_sample",
    "linear_gaussian_problem",
    "min_samples",
    "out_of_sample_feasibility",
    "portfolio_var_problem",
    "power_control_problem",
    "restricted_solution",
    "scenario_count",
    "second_order_guidance",
    "train_score",
    "tweedie_mean",
]
