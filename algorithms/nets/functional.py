"""Flat-parameter views of a model and its derivatives via ``torch.func``.

A scalar loss ``loss(params_dict)`` becomes a function of one flat vector θ, so
that Hessians are plain matrices and Hessian-vector products are plain vectors.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.func import grad, hessian, jvp, vmap

Params = dict[str, torch.Tensor]


def flatten_params(params: Params) -> tuple[torch.Tensor, Callable[[torch.Tensor], Params]]:
    """Return θ (concatenated, in key order) and the map θ -> params dict.

    >>> theta, unflatten = flatten_params({"a": torch.ones(2), "B": torch.zeros(1, 2)})
    >>> theta.tolist(), unflatten(theta)["B"].shape
    ([1.0, 1.0, 0.0, 0.0], torch.Size([1, 2]))
    """
    keys = list(params)
    shapes = [params[k].shape for k in keys]
    sizes = [params[k].numel() for k in keys]
    theta = torch.cat([params[k].reshape(-1) for k in keys])

    def unflatten(vector: torch.Tensor) -> Params:
        chunks = torch.split(vector, sizes)
        return {k: c.reshape(s) for k, c, s in zip(keys, chunks, shapes)}

    return theta, unflatten


def flat_hessian(loss: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor) -> torch.Tensor:
    """∇²loss(θ) as a dense (d, d) matrix."""
    return hessian(loss)(theta)


def flat_hvp(loss: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor,
             vector: torch.Tensor) -> torch.Tensor:
    """∇²loss(θ) v without forming the Hessian (forward-over-reverse)."""
    return jvp(grad(loss), (theta,), (vector,))[1]


def per_sample_flat_grads(sample_loss: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
                          theta: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Rows ∇_θ ℓ(θ; x_i, y_i), shape (n, d); ``sample_loss(θ, x, y)`` takes one sample."""
    return vmap(grad(sample_loss), in_dims=(None, 0, 0))(theta, X, y)


def per_sample_flat_hessians(
    sample_loss: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
    theta: torch.Tensor, X: torch.Tensor, y: torch.Tensor,
) -> torch.Tensor:
    """Stack of ∇²_θ ℓ(θ; x_i, y_i), shape (n, d, d)."""
    return vmap(hessian(sample_loss), in_dims=(None, 0, 0))(theta, X, y)
