"""Black-box optimizer design (DesignX): a modular space of evolutionary components, its grammar,
``ModularOptimizer``, two torch agents that design and configure workflows, and baselines.

>>> from algorithms.blackbox import ModularOptimizer
>>> ModularOptimizer(("init.sobol", "pop.20", "pso.inertia", "bc.reflect", "sel.greedy")).plan.family
'pso'
"""

from algorithms.blackbox.agents import HyperparameterController, WorkflowGenerator
from algorithms.blackbox.baselines import CMAES, PSO, RandomSearch, ScipyDE
from algorithms.blackbox.designx import DesignX, load_agents, run_episode
from algorithms.blackbox.features import problem_features
from algorithms.blackbox.grammar import InvalidWorkflowError, allowed_next, validate
from algorithms.blackbox.modular import ModularOptimizer, WorkflowPlan, run_workflow
from algorithms.blackbox.problem import BlackBoxProblem, Evaluator, bbob_problem, normalized_regret

__all__ = [
    "CMAES", "PSO", "BlackBoxProblem", "DesignX", "Evaluator", "HyperparameterController",
    "InvalidWorkflowError", "ModularOptimizer", "RandomSearch", "ScipyDE", "WorkflowGenerator",
    "WorkflowPlan", "allowed_next", "bbob_problem", "load_agents", "normalized_regret",
    "problem_features", "run_episode", "run_workflow", "validate",
]
