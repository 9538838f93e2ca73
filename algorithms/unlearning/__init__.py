"""Machine unlearning under overparameterization: minimum-complexity interpolation of the retain set.

Block, Mokhtari & Shakkottai (NeurIPS 2025, arXiv:2505.22601) define the unlearned model as the
least complex interpolator of the retained data and reach it from the trained θ* with
perturbations orthogonal to the model gradients on D_r.

* ``problem``: :class:`UnlearningProblem` (model, θ*, retain, forget), :func:`forget_split`;
* ``models``: :class:`LinearModel`, :class:`DeepLinear`, :class:`TwoLayerPerceptron`;
* ``min_norm_og``: :class:`MinNormOG` (Algorithm 1) and its closed-form update;
* ``deep_linear_og``, ``sparse_width_og``: the exact relaxed solves of Theorems 3-5;
* baselines: :class:`Retrain`, :class:`GradientDescent`, :class:`NegGrad`, :class:`NegGradPlus`,
  :class:`Ridge`;
* ``tasks``: seeded linear, deep-linear, two-layer and sine-poisoning tasks.
"""

from algorithms.unlearning.deep_linear_og import DeepLinearOG, balanced_factorization, lemma1_perturbation
from algorithms.unlearning.gradient_descent import GradientDescent
from algorithms.unlearning.min_norm_og import MinNormOG, orthogonal_gradient_step, strength_schedule
from algorithms.unlearning.models import DeepLinear, LinearModel, TwoLayerPerceptron, effective_predictor
from algorithms.unlearning.neg_grad import NegGrad
from algorithms.unlearning.neg_grad_plus import NegGradPlus
from algorithms.unlearning.problem import UnlearningProblem, UnlearningStats, forget_split, retrained_min_norm
from algorithms.unlearning.retrain import Retrain
from algorithms.unlearning.ridge import Ridge
from algorithms.unlearning.sparse_width_og import SparseWidthOG, active_neurons, prune_inactive_neurons
from algorithms.unlearning.tasks import (
    deep_linear_task,
    linear_task,
    sine_poisoning_task,
    sup_error,
    two_layer_task,
)

__all__ = [
    "DeepLinear",
    "DeepLinearOG",
    "GradientDescent",
    "LinearModel",
    "MinNormOG",
    "NegGrad",
    "NegGradPlus",
    "Retrain",
    "Ridge",
    "SparseWidthOG",
    "TwoLayerPerceptron",
    "UnlearningProblem",
    "UnlearningStats",
    "active_neurons",
    "balanced_factorization",
    "deep_linear_task",
    "effective_predictor",
    "forget_split",
    "lemma1_perturbation",
    "linear_task",
    "orthogonal_gradient_step",
    "prune_inactive_neurons",
    "retrained_min_norm",
    "sine_poisoning_task",
    "strength_schedule",
    "sup_error",
    "two_layer_task",
]
