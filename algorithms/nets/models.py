"""Small networks as ``torch.nn.Module``s: MLP, 1-D CNN, single-layer softmax attention.

Every model is an ordinary module: its weights are ``torch.nn.Parameter``s drawn
from ``seed`` at construction, ``forward(X)`` returns logits of shape
``(n, out_features)``, and a torch optimizer can train it. The theory of
Crăciun & Ghoshdastidar (NeurIPS 2025, arXiv:2510.24466) differentiates the
loss with respect to the flat parameter vector; that functional view comes from
the module itself through ``torch.func.functional_call`` (see
:class:`algorithms.nets.gd_map.EmpiricalLoss` and
:func:`algorithms.nets.functional.flat_forward`).

The activations are the piecewise analytic ones of the paper: ``relu``,
``leaky_relu`` (slope 0.1), ``sigmoid`` and ``tanh``, each an :class:`Activation`
submodule (so a forward hook sees its inputs, the pre-activations). Asking for
anything else raises an error that names them. ``forward`` checks the input's
shape and dtype and names what it expected.

>>> net = MLP(in_features=3, hidden=(4,), out_features=2, activation="tanh", seed=0)
>>> net(torch.zeros(5, 3, dtype=torch.float64)).shape
torch.Size([5, 2])
>>> sum(p.numel() for p in net.parameters())
26
>>> net(torch.zeros(5, 4, dtype=torch.float64))
Traceback (most recent call last):
...
ValueError: X must have shape (n, 3) with n >= 1 for MLP, got (5, 4)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from algorithms._modules import (
    CheckedStateModule,
    check_structure,
    fix_attributes,
    refuse_reassignment,
    remember_structure,
)
from algorithms._validation import (
    allocates,
    check_finite_data,
    check_fits_memory,
    check_positive_int,
    check_seed,
    check_torch_dtype,
    outside_inference,
    refuse_sparse,
)
from algorithms.nets.two_layer import ACTIVATIONS, check_init_scale

__all__ = [
    "ACTIVATIONS",
    "CNN",
    "MLP",
    "Activation",
    "SoftmaxAttention",
    "activation",
]


def activation(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    """The activation called ``name``; an unknown name raises naming the supported ones.

    >>> activation("tanh")(torch.zeros(1)).item()
    0.0
    >>> activation("gelu")
    Traceback (most recent call last):
    ...
    ValueError: activation name must be one of ['leaky_relu', 'relu', 'sigmoid', 'tanh'], got 'gelu'
    """
    if not isinstance(name, str) or name not in ACTIVATIONS:   # "activation name": the keyword of the
        # constructors (activation=) and this function's own argument (name)
        raise ValueError(f"activation name must be one of {sorted(ACTIVATIONS)}, got {name!r}")
    return ACTIVATIONS[name]


class Activation(torch.nn.Module):
    """The entrywise activation ``name`` as a module (its forward hook sees the pre-activations).

    >>> Activation("relu")(torch.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.function = activation(name)
        self.name = name

    def __setattr__(self, name: str, value: Any) -> None:
        # a new name kept the old function (repr "tanh", computing relu)
        refuse_reassignment(self, name, value, ("name", "function"))
        super().__setattr__(name, value)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        """The activation of every entry of ``t``: a dense real floating tensor (a meta, sparse, integer,
        bool or complex one is refused naming ``t``). Entrywise, as torch's own activations: a NaN entry
        maps to NaN and ±inf to the activation's limit (the models refuse NaN/inf in their input ``X``;
        the pre-activations they pass here are what their weights make of it)."""
        if not isinstance(t, torch.Tensor):  # torch's message names its own 'input'
            raise TypeError(f"t must be a torch.Tensor, got {type(t).__name__}")
        refuse_sparse("t", t)
        if not t.is_floating_point():
            raise TypeError(f"t must be a real floating tensor, got dtype {t.dtype}")
        if t.device.type == "meta":
            raise ValueError("t is on the meta device (no data); move it to a real device")
        return self.function(t)

    def extra_repr(self) -> str:
        return repr(self.name)


class _Network(CheckedStateModule):
    """What the three models share: seeded Gaussian parameters, input checks, the activation."""


    #: per-sample input shape, set by each model
    input_shape: tuple[int, ...]

    #: fixed by construction (refuse_reassignment: another value raises ValueError naming it)
    _FIXED = ("out_features", "seed", "init_scale", "input_shape", "sizes", "bias", "channels", "kernel_size",
              "out_length", "dim")

    def __init__(self, out_features: int, activation_name: str, seed: int, init_scale: float,
                 dtype: torch.dtype) -> None:
        super().__init__()
        self.out_features = check_positive_int("out_features", out_features)
        self.act = Activation(activation_name)
        self.seed = check_seed(seed)
        self.init_scale = check_init_scale(init_scale)    # in [1.18e-38, 3.4e38]
        check_torch_dtype(dtype)

    @property
    def in_features(self) -> int:
        """Number of input scalars per sample (the product of ``input_shape``)."""
        return math.prod(self.input_shape)

    @property
    def activation(self) -> str:
        return self.act.name

    def _sampler(self, dtype: torch.dtype) -> Callable[..., torch.nn.Parameter]:
        """Draws N(0, init_scale² / fan_in) parameters from a generator seeded by ``seed`` (the order of
        the draws fixes the values)."""
        gen = torch.Generator().manual_seed(self.seed)

        def draw(*shape: int, fan_in: int) -> torch.nn.Parameter:
            # drawn in float64 and rounded to the model's dtype, as TwoLayerReLU's: a float32 model starts
            # from the float64 model's weights, rounded (torch's float32 draws are another sequence)
            sample = (torch.randn(*shape, generator=gen, dtype=torch.float64)
                      * (self.init_scale / math.sqrt(fan_in))).to(dtype)
            if not bool(torch.isfinite(sample).all()):    # init_scale = 1e308 gave inf weights in silence
                raise ValueError(f"init_scale={self.init_scale!r} is too large for {dtype}: the drawn "
                                 f"weights overflow it")
            return torch.nn.Parameter(sample)

        return draw

    def _check_input(self, X: Any, dtype: torch.dtype) -> None:
        if dtype not in (torch.float32, torch.float64):     # .half() ran in half precision, in silence
            raise TypeError(f"{type(self).__name__}'s weights must be float32 or float64 (its dtype), got "
                            f"{dtype} (after .half() or .to(...)); convert the module with .double()")
        check_structure(self)       # a weight replaced by one of another shape: torch's shape error before
        for name, p in self.named_parameters():   # NaN set in place answered NaN (skipped under vmap)
            check_finite_data(f"the weight {name}", p, check_range=False)
        if not isinstance(X, torch.Tensor):
            raise TypeError(f"X must be a torch.Tensor, got {type(X).__name__}")
        refuse_sparse("X", X)       # torch's conv1d/reshape failed naming nothing
        expected = ", ".join(["n", *map(str, self.input_shape)])
        if X.ndim != 1 + len(self.input_shape) or tuple(X.shape[1:]) != self.input_shape or X.shape[0] == 0:
            raise ValueError(f"X must have shape ({expected}) with n >= 1 for {type(self).__name__}, "
                             f"got {tuple(X.shape)}")
        if X.dtype != dtype:
            raise TypeError(f"X must have dtype {dtype} (the model's parameters), got {X.dtype}")
        check_finite_data("X", X)


#: the most hidden layers an :class:`MLP` is built with (~0.2 ms each: 10**6 ran for minutes)
MAX_LAYERS = 10_000


class MLP(_Network):
    """Fully connected network ``x -> W_L σ(... σ(W_0 x + b_0) ...) + b_L``.

    ``hidden`` lists the hidden widths (at least one, at most :data:`MAX_LAYERS` = 10000); σ is
    ``activation`` on every
    hidden layer, the last layer is linear. Parameters ``W{l}`` of shape
    (width_{l+1}, width_l) and, when ``bias`` (default True), ``b{l}`` (width_{l+1},),
    registered in the order W0, b0, W1, b1, ...; each drawn from
    N(0, init_scale²/fan_in) (``init_scale`` in [1.18e-38, 3.4e38]; one whose
    drawn weights overflow ``dtype``, e.g. 3.4e38 in float32, is refused naming init_scale) with the
    generator seeded by ``seed`` (an int in [0, 2**64)).
    ``bias=False`` is the paper's convention (its networks have zero biases).

    References: Crăciun & Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), the
    fully connected networks of Theorem 1 and Proposition 6.

    >>> net = MLP(in_features=2, hidden=(3,), out_features=1, activation="relu", seed=1, bias=False)
    >>> [name for name, _ in net.named_parameters()], net.W0.shape
    (['W0', 'W1'], torch.Size([3, 2]))
    """

    @allocates("in_features", "hidden", "out_features")
    def __init__(self, in_features: int, hidden: tuple[int, ...], out_features: int, *,
                 activation: str = "tanh", bias: bool = True, seed: int = 0, init_scale: float = 1.0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__(out_features, activation, seed, init_scale, dtype)
        check_positive_int("in_features", in_features)
        if not isinstance(hidden, tuple | list) or len(hidden) == 0:
            raise ValueError(f"hidden must be a non-empty tuple of hidden widths, got {hidden!r:.80}")
        if len(hidden) > MAX_LAYERS:    # layers are built one at a time: 10**6 of them took minutes
            raise ValueError(f"hidden must list at most {MAX_LAYERS} widths (MAX_LAYERS), got {len(hidden)}")
        for k, width in enumerate(hidden):
            check_positive_int(f"hidden[{k}]", width)
        if not isinstance(bias, bool):
            raise TypeError(f"bias must be a bool, got {type(bias).__name__} {bias!r}")
        self.input_shape = (int(in_features),)
        self.sizes = (int(in_features), *map(int, hidden), self.out_features)
        self.bias = bias
        draw = self._sampler(dtype)
        for layer, (fan_in, fan_out) in enumerate(zip(self.sizes[:-1], self.sizes[1:])):
            setattr(self, f"W{layer}", draw(fan_out, fan_in, fan_in=fan_in))
            if bias:
                setattr(self, f"b{layer}", draw(fan_out, fan_in=fan_in))
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Logits (n, out_features) of ``X``: a dense tensor of shape (n, *input_shape), n >= 1, in the
        model's dtype, with finite entries (NaN/inf, meta, sparse, another dtype or shape are refused
        naming X). Entries are in the working range, at most 3.4e38 in magnitude (larger ones are refused
        naming X); entries so large that a layer overflows the dtype give inf logits, as any torch layer
        does. The weights must be finite (NaN/inf written in place is refused naming the weight); they are
        the model's own state, not an argument, and are not held to the working range: a float64 weight
        past 3.4e38 (written in place, or reached by a diverging run) is used as it is."""
        self._check_input(X, self.W0.dtype)
        X = outside_inference(X)    # an inference-mode input: torch could not save it for backward
        h = X
        depth = len(self.sizes) - 1
        for layer in range(depth):
            h = h @ getattr(self, f"W{layer}").T
            if self.bias:
                h = h + getattr(self, f"b{layer}")
            if layer < depth - 1:
                h = self.act(h)
        return h

    def extra_repr(self) -> str:
        return f"sizes={self.sizes}, bias={self.bias}, seed={self.seed}, init_scale={self.init_scale:g}"


class CNN(_Network):
    """One 1-D convolution layer, σ, then a linear read-out.

    Input ``X`` of shape (n, in_channels, length). The convolution has
    ``channels`` filters of width ``kernel_size`` (stride 1, no padding), so the
    feature map has length ``length - kernel_size + 1``; it is flattened and
    mapped linearly to ``out_features`` logits. Parameters: ``K`` (channels,
    in_channels, kernel_size), ``c`` (channels,), ``W`` (out_features, channels *
    out_length), ``b`` (out_features,),
    drawn from ``seed`` (an int in [0, 2**64); N(0, init_scale²/fan_in), ``init_scale`` in
    [1.18e-38, 3.4e38]; one whose
    drawn weights overflow ``dtype``, e.g. 3.4e38 in float32, is refused naming init_scale).

    References: Crăciun & Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), the
    convolutional layers of Theorem 1 (weight sharing: their Proposition 16).

    >>> cnn = CNN(in_channels=1, length=6, channels=2, kernel_size=3, out_features=2, seed=0)
    >>> cnn(torch.zeros(4, 1, 6, dtype=torch.float64)).shape, cnn.in_features
    (torch.Size([4, 2]), 6)
    """

    @allocates("in_channels", "length", "channels", "kernel_size", "out_features")
    def __init__(self, in_channels: int, length: int, channels: int, kernel_size: int, out_features: int,
                 *, activation: str = "tanh", seed: int = 0, init_scale: float = 1.0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__(out_features, activation, seed, init_scale, dtype)
        for name, value in (("in_channels", in_channels), ("length", length), ("channels", channels),
                            ("kernel_size", kernel_size)):
            check_positive_int(name, value)
        if kernel_size > length:
            raise ValueError(f"kernel_size must be <= length, got kernel_size={kernel_size} "
                             f"> length={length}")
        self.input_shape = (int(in_channels), int(length))
        self.channels, self.kernel_size = int(channels), int(kernel_size)
        self.out_length = self.input_shape[1] - self.kernel_size + 1
        fan_conv = in_channels * kernel_size
        fan_lin = channels * self.out_length
        draw = self._sampler(dtype)
        self.K = draw(channels, in_channels, kernel_size, fan_in=fan_conv)
        self.c = draw(channels, fan_in=fan_conv)
        self.W = draw(self.out_features, fan_lin, fan_in=fan_lin)
        self.b = draw(self.out_features, fan_in=fan_lin)
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Logits (n, out_features) of ``X``: a dense tensor of shape (n, *input_shape), n >= 1, in the
        model's dtype, with finite entries (NaN/inf, meta, sparse, another dtype or shape are refused
        naming X). Entries are in the working range, at most 3.4e38 in magnitude (larger ones are refused
        naming X); entries so large that a layer overflows the dtype give inf logits, as any torch layer
        does. The weights must be finite (NaN/inf written in place is refused naming the weight); they are
        the model's own state, not an argument, and are not held to the working range: a float64 weight
        past 3.4e38 (written in place, or reached by a diverging run) is used as it is."""
        self._check_input(X, self.K.dtype)
        X = outside_inference(X)    # an inference-mode input: torch could not save it for backward
        feature = self.act(torch.nn.functional.conv1d(X, self.K, self.c))
        return feature.reshape(feature.shape[0], -1) @ self.W.T + self.b


class SoftmaxAttention(_Network):
    """A single softmax self-attention layer, σ, mean pooling over tokens, linear read-out.

    Input ``X`` of shape (n, seq_len, dim). With ``Q = X W_q``, ``K = X W_k``,
    ``V = X W_v`` (each ``W`` is (dim, dim)),

        Z = softmax(Q Kᵀ / sqrt(dim)) V,   logits = mean_t σ(Z_t) W_oᵀ + b_o,

    the softmax taken over the key index. Parameters: ``Wq``, ``Wk``, ``Wv``,
    ``Wo`` (out_features, dim), ``bo`` (out_features,),
    drawn from ``seed`` (an int in [0, 2**64); N(0, init_scale²/fan_in), ``init_scale`` in
    [1.18e-38, 3.4e38]; one whose
    drawn weights overflow ``dtype``, e.g. 3.4e38 in float32, is refused naming init_scale).

    References: Crăciun & Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), the
    softmax-attention layers of Theorem 1 (their Proposition 17).

    >>> att = SoftmaxAttention(seq_len=3, dim=2, out_features=2, seed=0)
    >>> att(torch.ones(5, 3, 2, dtype=torch.float64)).shape
    torch.Size([5, 2])
    """

    def __init__(self, seq_len: int, dim: int, out_features: int, *, activation: str = "tanh",
                 seed: int = 0, init_scale: float = 1.0, dtype: torch.dtype = torch.float64) -> None:
        super().__init__(out_features, activation, seed, init_scale, dtype)
        check_positive_int("seq_len", seq_len)
        check_positive_int("dim", dim)
        # (dim, dim) matrices and an (out_features, dim) read-out: 2**31 failed inside torch's allocator
        weights = 3 * dim * dim, (self.out_features + 1) * dim
        check_fits_memory("SoftmaxAttention", "dim" if weights[0] >= weights[1] else "out_features",
                          dim if weights[0] >= weights[1] else self.out_features,
                          torch.finfo(dtype).bits / 8 * sum(weights))
        self.input_shape = (int(seq_len), int(dim))
        self.dim = int(dim)
        draw = self._sampler(dtype)
        self.Wq = draw(dim, dim, fan_in=dim)
        self.Wk = draw(dim, dim, fan_in=dim)
        self.Wv = draw(dim, dim, fan_in=dim)
        self.Wo = draw(self.out_features, dim, fan_in=dim)
        self.bo = draw(self.out_features, fan_in=dim)
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Logits (n, out_features) of ``X``: a dense tensor of shape (n, *input_shape), n >= 1, in the
        model's dtype, with finite entries (NaN/inf, meta, sparse, another dtype or shape are refused
        naming X). Entries are in the working range, at most 3.4e38 in magnitude (larger ones are refused
        naming X); entries so large that a layer overflows the dtype give inf logits, as any torch layer
        does. The weights must be finite (NaN/inf written in place is refused naming the weight); they are
        the model's own state, not an argument, and are not held to the working range: a float64 weight
        past 3.4e38 (written in place, or reached by a diverging run) is used as it is."""
        self._check_input(X, self.Wq.dtype)
        X = outside_inference(X)    # an inference-mode input: torch could not save it for backward
        scores = (X @ self.Wq) @ (X @ self.Wk).transpose(-1, -2) / math.sqrt(self.dim)
        Z = torch.softmax(scores, dim=-1) @ (X @ self.Wv)
        return self.act(Z).mean(dim=-2) @ self.Wo.T + self.bo
