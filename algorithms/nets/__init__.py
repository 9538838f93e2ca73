"""Small neural networks in torch and the differential tools the theory papers need.

Shared: ``two_layer`` (:class:`TwoLayerReLU`, the two-layer network of the
two-layer papers, a ``torch.nn.Module`` with a functional view) and
``functional`` (flat parameters of a parameter dict or of a module; per-sample
gradients, Hessians and Hessian-vector products through ``torch.func``). Per paper:

* ``stability``, ``sam``: linear stability of SGD / random perturbation / SAM,
  the coherence measure, a SAM ``torch.optim.Optimizer`` (sam_stability);
* ``models``, ``gd_map``: MLP / CNN / attention models, the GD map, its
  Jacobian and (stochastic) log-determinant (gd_nonsingular);
* ``sparse_interpolation``, ``lp_training``, ``multivariate_interpolation``: V_p,
  the exact sparsest interpolant, ℓp path-norm training, the sparsest
  multivariate interpolant by activation patterns (sparse_relu);
* ``neural_collapse``, ``gradient_flow``: orthogonally separable data, NC
  metrics, gradient flow as an ODE and GD (two_layer_nc).
"""

from algorithms.nets.functional import (
    flat_forward,
    flat_hessian,
    flat_hvp,
    flatten_params,
    module_params,
    per_sample_flat_grads,
    per_sample_flat_hessians,
)
from algorithms.nets.sam import SAM
from algorithms.nets.two_layer import TwoLayerReLU

__all__ = [
    "SAM",
    "TwoLayerReLU",
    "flat_forward",
    "flat_hessian",
    "flat_hvp",
    "flatten_params",
    "module_params",
    "per_sample_flat_grads",
    "per_sample_flat_hessians",
]
