"""Small networks as pure functions of a parameter dict: MLP, 1-D CNN, single-layer softmax attention.

Every model is a frozen dataclass holding the architecture only; the weights
live in a ``dict[str, torch.Tensor]`` that ``init`` creates and ``apply``
consumes, so ``torch.func`` can differentiate the loss with respect to the
(flattened) parameters (see :mod:`algorithms.nets.functional` and
:mod:`algorithms.nets.gd_map`). ``apply(params, X)`` always returns logits of
shape ``(n, num_outputs)``.

The activations are the piecewise analytic ones of Crăciun & Ghoshdastidar
(NeurIPS 2025, arXiv:2510.24466): ``relu``, ``leaky_relu``, ``sigmoid`` and
``tanh``. Asking for anything else raises an error that names them.

>>> net = MLP(sizes=(3, 4, 2), activation="tanh")
>>> params = net.init(seed=0)
>>> net.apply(params, torch.zeros(5, 3, dtype=torch.float64)).shape
torch.Size([5, 2])
>>> num_params(params)
26
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from algorithms._validation import check_positive, check_positive_int

__all__ = [
    "ACTIVATIONS",
    "CNN",
    "MLP",
    "SoftmaxAttention",
    "activation",
    "num_params",
]

#: slope of ``leaky_relu`` on the negative half-line
LEAKY_SLOPE = 0.1

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": torch.relu,
    "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, LEAKY_SLOPE),
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
}


def activation(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    """The activation called ``name``; an unknown name raises naming the supported ones.

    >>> activation("tanh")(torch.zeros(1)).item()
    0.0
    >>> activation("gelu")
    Traceback (most recent call last):
    ...
    ValueError: activation must be one of ['leaky_relu', 'relu', 'sigmoid', 'tanh'], got 'gelu'
    """
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {name!r}")
    return ACTIVATIONS[name]


def num_params(params: dict[str, torch.Tensor]) -> int:
    """Total number of scalar parameters in a parameter dict."""
    return int(sum(p.numel() for p in params.values()))


def _normal(gen: torch.Generator, dtype: torch.dtype, *shape: int, std: float) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=dtype) * std


def _check_dtype(dtype) -> None:
    if dtype not in (torch.float32, torch.float64):
        raise TypeError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")


@dataclass(frozen=True)
class MLP:
    """Fully connected network ``x -> W_L σ(... σ(W_1 x + b_1) ...) + b_L``.

    ``sizes = (input_dim, hidden_1, ..., num_outputs)`` with at least one hidden
    layer; σ is ``activation`` on every hidden layer, the last layer is linear.
    Parameters: ``W{l}`` of shape (sizes[l+1], sizes[l]) and ``b{l}`` (sizes[l+1],).

    References: Crăciun & Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), the
    fully connected architecture of the non-singularity theorem.

    >>> MLP(sizes=(2, 3, 1), activation="relu").init(seed=1)["W0"].shape
    torch.Size([3, 2])
    """

    sizes: tuple[int, ...]
    activation: str = "tanh"

    def __post_init__(self) -> None:
        if not isinstance(self.sizes, tuple | list) or len(self.sizes) < 3:
            raise ValueError(f"sizes must be a tuple (input_dim, hidden..., num_outputs) of length >= 3, "
                             f"got {self.sizes!r}")
        for k, size in enumerate(self.sizes):
            check_positive_int(f"sizes[{k}]", size)
        object.__setattr__(self, "sizes", tuple(int(s) for s in self.sizes))
        activation(self.activation)

    @property
    def num_outputs(self) -> int:
        return self.sizes[-1]

    def init(self, seed: int, scale: float = 1.0, dtype: torch.dtype = torch.float64
             ) -> dict[str, torch.Tensor]:
        """Gaussian weights with standard deviation ``scale / sqrt(fan_in)``, biases likewise."""
        check_positive("scale", scale)
        _check_dtype(dtype)
        gen = torch.Generator().manual_seed(int(seed))
        params = {}
        for layer, (fan_in, fan_out) in enumerate(zip(self.sizes[:-1], self.sizes[1:])):
            std = scale / math.sqrt(fan_in)
            params[f"W{layer}"] = _normal(gen, dtype, fan_out, fan_in, std=std)
            params[f"b{layer}"] = _normal(gen, dtype, fan_out, std=std)
        return params

    def apply(self, params: dict[str, torch.Tensor], X: torch.Tensor) -> torch.Tensor:
        sigma = ACTIVATIONS[self.activation]
        h = X
        depth = len(self.sizes) - 1
        for layer in range(depth):
            h = h @ params[f"W{layer}"].T + params[f"b{layer}"]
            if layer < depth - 1:
                h = sigma(h)
        return h


@dataclass(frozen=True)
class CNN:
    """One 1-D convolution layer, σ, then a linear read-out.

    Input ``X`` of shape (n, in_channels, length). The convolution has
    ``channels`` filters of width ``kernel_size`` (stride 1, no padding), so the
    feature map has length ``length - kernel_size + 1``; it is flattened and
    mapped linearly to ``num_outputs`` logits. Parameters: ``K`` (channels,
    in_channels, kernel_size), ``c`` (channels,), ``W`` (num_outputs, channels *
    out_length), ``b`` (num_outputs,).

    References: Crăciun & Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), the
    convolutional architecture of the non-singularity theorem.

    >>> cnn = CNN(in_channels=1, length=6, channels=2, kernel_size=3, num_outputs=2)
    >>> cnn.apply(cnn.init(seed=0), torch.zeros(4, 1, 6, dtype=torch.float64)).shape
    torch.Size([4, 2])
    """

    in_channels: int
    length: int
    channels: int
    kernel_size: int
    num_outputs: int
    activation: str = "tanh"

    def __post_init__(self) -> None:
        for name in ("in_channels", "length", "channels", "kernel_size", "num_outputs"):
            check_positive_int(name, getattr(self, name))
        if self.kernel_size > self.length:
            raise ValueError(f"kernel_size must be <= length, got kernel_size={self.kernel_size} "
                             f"> length={self.length}")
        activation(self.activation)

    @property
    def out_length(self) -> int:
        return self.length - self.kernel_size + 1

    def init(self, seed: int, scale: float = 1.0, dtype: torch.dtype = torch.float64
             ) -> dict[str, torch.Tensor]:
        check_positive("scale", scale)
        _check_dtype(dtype)
        gen = torch.Generator().manual_seed(int(seed))
        fan_conv = self.in_channels * self.kernel_size
        fan_lin = self.channels * self.out_length
        return {
            "K": _normal(gen, dtype, self.channels, self.in_channels, self.kernel_size,
                         std=scale / math.sqrt(fan_conv)),
            "c": _normal(gen, dtype, self.channels, std=scale / math.sqrt(fan_conv)),
            "W": _normal(gen, dtype, self.num_outputs, fan_lin, std=scale / math.sqrt(fan_lin)),
            "b": _normal(gen, dtype, self.num_outputs, std=scale / math.sqrt(fan_lin)),
        }

    def apply(self, params: dict[str, torch.Tensor], X: torch.Tensor) -> torch.Tensor:
        feature = torch.nn.functional.conv1d(X, params["K"], params["c"])
        feature = ACTIVATIONS[self.activation](feature)
        return feature.reshape(feature.shape[0], -1) @ params["W"].T + params["b"]


@dataclass(frozen=True)
class SoftmaxAttention:
    """A single softmax self-attention layer, σ, mean pooling over tokens, linear read-out.

    Input ``X`` of shape (n, seq_len, dim). With ``Q = X W_q``, ``K = X W_k``,
    ``V = X W_v`` (each ``W`` is (dim, dim)),

        Z = softmax(Q Kᵀ / sqrt(dim)) V,   logits = mean_t σ(Z_t) W_oᵀ + b_o,

    the softmax taken over the key index. Parameters: ``Wq``, ``Wk``, ``Wv``,
    ``Wo`` (num_outputs, dim), ``bo`` (num_outputs,).

    References: Crăciun & Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), the
    softmax-attention architecture of the non-singularity theorem.

    >>> att = SoftmaxAttention(seq_len=3, dim=2, num_outputs=2)
    >>> att.apply(att.init(seed=0), torch.ones(5, 3, 2, dtype=torch.float64)).shape
    torch.Size([5, 2])
    """

    seq_len: int
    dim: int
    num_outputs: int
    activation: str = "tanh"

    def __post_init__(self) -> None:
        for name in ("seq_len", "dim", "num_outputs"):
            check_positive_int(name, getattr(self, name))
        activation(self.activation)

    def init(self, seed: int, scale: float = 1.0, dtype: torch.dtype = torch.float64
             ) -> dict[str, torch.Tensor]:
        check_positive("scale", scale)
        _check_dtype(dtype)
        gen = torch.Generator().manual_seed(int(seed))
        std = scale / math.sqrt(self.dim)
        return {
            "Wq": _normal(gen, dtype, self.dim, self.dim, std=std),
            "Wk": _normal(gen, dtype, self.dim, self.dim, std=std),
            "Wv": _normal(gen, dtype, self.dim, self.dim, std=std),
            "Wo": _normal(gen, dtype, self.num_outputs, self.dim, std=std),
            "bo": _normal(gen, dtype, self.num_outputs, std=std),
        }

    def apply(self, params: dict[str, torch.Tensor], X: torch.Tensor) -> torch.Tensor:
        Q = X @ params["Wq"]
        K = X @ params["Wk"]
        V = X @ params["Wv"]
        scores = Q @ K.transpose(-1, -2) / math.sqrt(self.dim)
        Z = torch.softmax(scores, dim=-1) @ V
        pooled = ACTIVATIONS[self.activation](Z).mean(dim=-2)
        return pooled @ params["Wo"].T + params["bo"]
