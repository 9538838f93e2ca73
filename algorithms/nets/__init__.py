"""Small neural networks in torch and the differential tools the theory papers need.

Shared: ``two_layer`` (the two-layer network of the two-layer papers) and
``functional`` (flat parameters; per-sample gradients, Hessians and
Hessian-vector products through ``torch.func``). Per paper:

* ``stability``, ``sam``: linear stability of SGD / random perturbation / SAM,
  the coherence measure, a SAM ``torch.optim.Optimizer`` (sam_stability);
* ``models``, ``gd_map``: MLP / CNN / attention models, the GD map, its
  Jacobian and (stochastic) log-determinant (gd_nonsingular);
* ``sparse_interpolation``, ``lp_training``: V_p, the exact sparsest
  interpolant, ℓp path-norm training (sparse_relu);
* ``neural_collapse``, ``gradient_flow``: orthogonally separable data, NC
  metrics, gradient flow as an ODE and GD (two_layer_nc).
"""

from algorithms.nets.functional import (
    flat_hessian,
    flat_hvp,
    flatten_params,
    per_sample_flat_grads,
    per_sample_flat_hessians,
)
from algorithms.nets.two_layer import TwoLayerReLU

__all__ = [
    "TwoLayerReLU",
    "flat_hessian",
    "flat_hvp",
    "flatten_params",
    "per_sample_flat_grads",
    "per_sample_flat_hessians",
]
