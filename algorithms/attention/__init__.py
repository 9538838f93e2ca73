"""Softmax attention on single-location regression (Dohmatob, NeurIPS 2025; Marion et al. 2025).

The problem and its data (:mod:`.problem`), the softmax / erf single-location predictors and the
best linear predictor (:mod:`.models`), the population risk by Monte Carlo and in closed form in
the overlaps (:mod:`.risk`), the overlap dynamics (:mod:`.dynamics`), projected spherical gradient
descent in torch (:mod:`.spherical_gd`) and the learnability phase map (:mod:`.phase`).
"""

from algorithms.attention.dynamics import OverlapFlow, overlap_velocity
from algorithms.attention.models import (
    ErfAttention,
    SoftmaxAttention,
    best_linear_risk,
    best_linear_weights,
    fit_linear_predictor,
)
from algorithms.attention.phase import learnable, phase_map, plot_phase_map
from algorithms.attention.problem import (
    SingleLocationProblem,
    link_function,
    overlaps,
    sample_batch,
    vectors_with_overlaps,
)
from algorithms.attention.risk import (
    locate_probability,
    mean_field_risk,
    monte_carlo_risk,
    thermodynamics,
    top_score_probability,
)
from algorithms.attention.spherical_gd import SphericalGD

__all__ = [
    "ErfAttention",
    "OverlapFlow",
    "SingleLocationProblem",
    "SoftmaxAttention",
    "SphericalGD",
    "best_linear_risk",
    "best_linear_weights",
    "fit_linear_predictor",
    "learnable",
    "link_function",
    "locate_probability",
    "mean_field_risk",
    "monte_carlo_risk",
    "overlap_velocity",
    "overlaps",
    "phase_map",
    "plot_phase_map",
    "sample_batch",
    "thermodynamics",
    "top_score_probability",
    "vectors_with_overlaps",
]
