"""The two-layer network ``f(x) = Σ_k v_k σ(w_kᵀx + b_k) + c`` as a pure function of its parameters."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from algorithms._validation import check_positive, check_positive_int

ACTIVATIONS = {
    "relu": torch.relu,
    "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, 0.1),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
}


@dataclass(frozen=True)
class TwoLayerReLU:
    """Two-layer network with ``width`` hidden units and ``output_dim`` outputs.

    Parameters are a dict of tensors: ``W`` (width, input_dim), ``b`` (width,)
    when ``hidden_bias``, ``v`` (output_dim, width), ``c`` (output_dim,) when
    ``output_bias``. ``apply`` maps inputs (n, input_dim) to (n, output_dim),
    or to (n,) when ``output_dim == 1``.

    >>> net = TwoLayerReLU(input_dim=3, width=4)
    >>> params = net.init(seed=0)
    >>> net.apply(params, torch.zeros(5, 3, dtype=torch.float64)).shape
    torch.Size([5])
    """

    input_dim: int
    width: int
    output_dim: int = 1
    hidden_bias: bool = True
    output_bias: bool = False
    activation: str = "relu"

    def __post_init__(self) -> None:
        check_positive_int("input_dim", self.input_dim)
        check_positive_int("width", self.width)
        check_positive_int("output_dim", self.output_dim)
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}")

    def init(self, seed: int, scale: float = 1.0, dtype: torch.dtype = torch.float64
             ) -> dict[str, torch.Tensor]:
        """Gaussian initialization with standard deviation ``scale / sqrt(fan_in)``."""
        check_positive("scale", scale)
        gen = torch.Generator().manual_seed(int(seed))

        def normal(*shape: int, fan_in: int) -> torch.Tensor:
            return torch.randn(*shape, generator=gen, dtype=dtype) * (scale / fan_in**0.5)

        params = {"W": normal(self.width, self.input_dim, fan_in=self.input_dim)}
        if self.hidden_bias:
            params["b"] = normal(self.width, fan_in=self.input_dim)
        params["v"] = normal(self.output_dim, self.width, fan_in=self.width)
        if self.output_bias:
            params["c"] = torch.zeros(self.output_dim, dtype=dtype)
        return params

    def hidden(self, params: dict[str, torch.Tensor], X: torch.Tensor) -> torch.Tensor:
        """Hidden-layer features σ(XWᵀ + b), shape (n, width)."""
        pre = X @ params["W"].T
        if "b" in params:
            pre = pre + params["b"]
        return ACTIVATIONS[self.activation](pre)

    def apply(self, params: dict[str, torch.Tensor], X: torch.Tensor) -> torch.Tensor:
        out = self.hidden(params, X) @ params["v"].T
        if "c" in params:
            out = out + params["c"]
        return out[:, 0] if self.output_dim == 1 else out
