"""Small neural networks in torch and the differential tools the theory papers need.

``two_layer`` holds the two-layer ReLU model shared by the two-layer papers
(sam_stability, sparse_relu, two_layer_nc); ``functional`` flattens
parameters and gives losses, per-sample gradients, Hessians and
Hessian-vector products through ``torch.func``. Each paper adds its own
modules beside them.
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
