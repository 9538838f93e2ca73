"""The networks of the imaging family: G (measurements -> null-space coefficients) and a denoiser.

:class:`NullSpaceNet` is the G of NPN: G(y) = S(CNN(Hᵀy / ‖H‖²)), a small residual CNN on the
back-projected measurements followed by the fixed projection S, so that its output has S's
shape and lies in the range of S by construction. It takes flattened measurements
``(batch, in_features)`` and returns ``(batch, out_features)`` with ``in_features`` = m and
``out_features`` = p, the sizes of H and S. :class:`ResidualDenoiser` is a small DnCNN-style
denoiser x − f(x) for plug-and-play.

>>> import torch
>>> from algorithms.imaging.operators import Blur, HighPass
>>> G = NullSpaceNet(Blur((8, 8), 1.0), HighPass((8, 8), 1.0), channels=4, depth=2, seed=0)
>>> G(torch.zeros(3, 64)).shape
torch.Size([3, 64])
"""

from __future__ import annotations

import math

import torch
from torch import nn

from algorithms._modules import (
    CheckedStateModule,
    fix_attributes,
    refuse_reassignment,
)
from algorithms._validation import (
    LAYER_OVERHEAD_BYTES,
    allocates,
    check_finite_data,
    check_fits_memory,
    check_int_at_least,
    check_positive,
    check_seed,
    refuse_sparse,
)
from algorithms.imaging.operators import LinearOperator
from algorithms.imaging.priors import _check_network_state

__all__ = ["NullSpaceNet", "ResidualDenoiser"]


#: the CNNs' widest layer and most layers (a DnCNN has 64 channels and 17 layers)
MAX_CHANNELS = 4096
MAX_DEPTH = 1000


def _body(channels: int, depth: int, owner: str) -> nn.Sequential:
    # depth − 2 hidden 3×3 convolutions of channels² weights, built one at a time (float32): a depth past
    # memory is refused before the loop
    # counts a CPU builds in seconds: depth = 10**6 took minutes in the layer loop, channels = 16384 with a
    # hidden layer allocated and initialised 2.4e9 weights each
    if channels > MAX_CHANNELS:
        raise ValueError(f"channels must be <= {MAX_CHANNELS} (MAX_CHANNELS, the CNN's width), got "
                         f"{channels}")
    if depth > MAX_DEPTH:
        raise ValueError(f"depth must be <= {MAX_DEPTH} (MAX_DEPTH, the CNN's convolution layers), got "
                         f"{depth}")
    check_fits_memory(owner, "channels", channels, 36.0 * channels * channels)  # one layer past memory
    check_fits_memory(owner, "depth", depth, depth * (36.0 * channels * channels + 2 * LAYER_OVERHEAD_BYTES))
    layers: list[nn.Module] = [nn.Conv2d(1, channels, 3, padding=1), nn.ReLU()]
    for _ in range(depth - 2):
        layers += [nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU()]
    layers.append(nn.Conv2d(channels, 1, 3, padding=1))
    return nn.Sequential(*layers)


def _body_weight(module: nn.Module) -> torch.Tensor:
    """The body's first weight (its dtype and device are the network's): a body replaced by a module that is
    not the built Sequential met "'Identity' object is not subscriptable"."""
    body = getattr(module, "body", None)
    weight = next(iter(body.parameters()), None) if isinstance(body, nn.Module) else None
    if weight is None:
        raise TypeError(f"{type(module).__name__}.body must be a torch module with parameters (the CNN built "
                        f"at construction), got {type(body).__name__}")
    return weight


def _run_body(module: nn.Module, images: torch.Tensor) -> torch.Tensor:
    """The CNN body on (batch, h, w) images: a body edited after construction (a layer of other channels,
    a module returning another shape) met torch's convolution error naming no argument."""
    try:
        out = module.body(images[:, None])
    except RuntimeError as exc:
        raise ValueError(f"{type(module).__name__}.body no longer maps (batch, 1, h, w) images to images "
                         f"(was it changed after construction?): {str(exc)[:120]}") from exc
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != (images.shape[0], 1, *images.shape[1:]):
        raise ValueError(f"{type(module).__name__}.body must return (batch, 1, h, w) = "
                         f"{(images.shape[0], 1, *images.shape[1:])}, got {tuple(getattr(out, 'shape', ()))}")
    return out[:, 0]


def _finite_output(name: str, given: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """The network's output, refused naming its input when it overflowed the network's dtype: float32 images
    near 3e38 (inside the working range) gave NaN images in silence, or an error naming the operator's "y"."""
    if not bool(torch.isfinite(out).all()):
        top = float(given.detach().abs().max()) if given.numel() else 0.0
        raise ValueError(f"{name} has entries too large for the network's {out.dtype}: its output overflows "
                         f"to inf/NaN (max |{name}| = {top:.3g}); rescale {name} or convert the network with "
                         f".double()")
    return out


def _inverse_square_norm(operator: LinearOperator) -> float:
    """1/‖H‖² (1.0 for H = 0, whose Hᵀy is 0): ``max(‖H‖, 1e-12)`` made z = Hᵀy·1e24 for a valid H of norm
    6e-20 (entries ~1e-20), not the documented Hᵀy/‖H‖², and G(y) 30-50 % off in silence."""
    norm = operator.norm()
    if norm == 0.0:
        return 1.0
    scale = (1.0 / norm) ** 2
    if not math.isfinite(scale):
        raise ValueError(f"operator's norm ‖H‖ = {norm:.3g} is below 1.5e-154: 1/‖H‖² overflows float64 "
                         f"(NullSpaceNet scales Hᵀy by it); rescale the operator")
    return scale


class NullSpaceNet(CheckedStateModule):
    """G(y) = S(z + CNN(z)) with z = Hᵀy / ‖H‖²: predicts Sx from y = Hx (+ noise).

    References: the G of NPN (Jacome et al., NeurIPS 2025, Sections 3 and 3.2); the paper uses
    a U-Net or ConvNeXt, we use a small CNN so that CPU training takes minutes.

    ``operator`` is H and ``projection`` S (both :class:`LinearOperator` on the same image shape),
    ``channels`` (an int in [1, 4096]) and ``depth`` (an int in [2, 1000]) the CNN's width and number of conv
    layers, ``seed`` (int in [0, 2**64)) its initial weights (torch's global generator is not touched); these,
    the operator and the projection are fixed after construction. ``forward(X)``
    takes finite real measurements X of shape (batch, m). ``scale`` is 1/‖H‖² (``operator.norm()``; 1 for
    H = 0, whose Hᵀy is 0); an operator of norm below 1.5e-154, where 1/‖H‖² overflows float64, is refused
    naming ``operator``. A weight written in place after construction (NaN, inf, or beyond 3.4e38 in
    magnitude) is refused by ``forward`` naming it, as ``load_state_dict`` refuses it.
    """

    @allocates("channels", "depth")
    def __init__(self, operator: LinearOperator, projection: LinearOperator, channels: int = 16,
                 depth: int = 4, seed: int = 0) -> None:
        super().__init__()
        for name, value in (("operator", operator), ("projection", projection)):
            if not isinstance(value, LinearOperator):
                raise TypeError(f"{name} must be a LinearOperator, got {type(value).__name__}")
        if projection.image_shape != operator.image_shape:
            raise ValueError(f"projection must act on images of shape {operator.image_shape} (operator's), "
                             f"got {projection.image_shape}")
        channels, depth = check_int_at_least("channels", channels, 1), check_int_at_least("depth", depth, 2)
        seed = check_seed(seed)
        self.channels, self.depth, self.seed = channels, depth, seed  # fixed: the body is built from them
        self.operator, self.projection = operator, projection
        self.in_features, self.out_features = operator.out_features, projection.out_features
        self.scale = _inverse_square_norm(operator)
        with torch.random.fork_rng():  # seeded init without touching the global generator
            torch.manual_seed(seed)
            self.body = _body(channels, depth, type(self).__name__)
        if type(self) is NullSpaceNet:   # a user's subclass sets its own attributes after this __init__
            fix_attributes(self)   # a misspelt public name set later is refused (stored and ignored before)

    def __setattr__(self, name: str, value) -> None:
        # set after construction: scale = NaN gave NaN predictions in silence; another operator/projection
        # met an AttributeError or torch's reshape error (the body's sizes are those of the first pair)
        refuse_reassignment(self, name, value, ("operator", "projection", "in_features", "out_features",
                                                "channels", "depth", "seed"))
        if name == "scale" and "scale" in self.__dict__:
            value = check_positive("scale", value)
        super().__setattr__(name, value)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The prediction G(y) of Sx, shape (batch, p), for ``X`` finite real measurements of shape (batch,
        m); an empty batch (batch = 0) gives an empty (0, p) result. Computed and returned in the network's
        dtype (float32 as built, float64 after ``.double()``): X of another dtype is cast to it. Entries of
        magnitude <= 3.4e38 (the working range); an output that overflows the network's dtype (float32
        measurements near 3e38) is refused naming X (ValueError).
        """
        if not isinstance(X, torch.Tensor) or X.ndim != 2 or X.shape[1] != self.in_features:
            raise ValueError(f"X must be a tensor of shape (batch, {self.in_features}) (in_features = "
                             f"{self.in_features}, the operator's measurements), got "
                             f"{tuple(getattr(X, 'shape', ()))}")
        if X.is_complex() or X.dtype == torch.bool:  # .to(float) kept the real part / read bools as 0/1
            raise TypeError(f"X must be a real floating (or integer) tensor of measurements, got dtype "
                            f"{X.dtype}")
        refuse_sparse("X", X)  # torch's "reshape is not implemented for sparse tensors" named nothing
        # fixed after construction: an H or S written in place since was used in silence (red23a)
        self.operator._check_data("operator")
        self.projection._check_data("projection")
        check_finite_data("X", X)  # NaN measurements gave a NaN prediction in silence
        if X.is_inference() and not torch.is_inference_mode_enabled():
            X = X.clone()  # an inference-mode tensor outside inference mode: torch refused it for autograd
        dtype = _body_weight(self).dtype
        if dtype not in (torch.float32, torch.float64):  # .half(): the operator's check named its own "y"
            raise TypeError(f"NullSpaceNet's parameters are {dtype}: its operator and projection run in "
                            f"float32 or float64; convert the network with .float() or .double()")
        _check_network_state(type(self).__name__, self)  # NaN weights answered NaN predictions in silence
        y = X.to(dtype).reshape(X.shape[0], *self.operator.measurement_shape)
        if not bool(torch.isfinite(y).all()):  # float64 X ~1e300 cast to float32: the operator named its "y"
            raise ValueError(f"X has entries too large for the network's {dtype} (max |X| = "
                             f"{float(X.detach().abs().max()):.3g}); rescale X or convert the network")
        root = math.sqrt(self.scale)  # two factors 1/‖H‖: Hᵀy/‖H‖ stays in range where Hᵀy·(1/‖H‖²) would not
        z = self.operator.apply_adjoint(y) * root * root  # its overflow is X's, named below
        image = z + _run_body(self, z)
        out = self.projection.apply(image).reshape(X.shape[0], self.out_features)  # -1: no empty batch
        return _finite_output("X", X, out)


class ResidualDenoiser(CheckedStateModule):
    """D(x) = x − f(x), f a small CNN trained to predict the noise (DnCNN-style, Zhang et al. 2017).

    ``channels`` (an int in [1, 4096]) and ``depth`` (an int in [2, 1000]) are the CNN's width and number of
    conv layers, ``seed`` (int in [0, 2**64)) its initial weights (all three kept as attributes, fixed after
    construction); ``forward(x)`` takes real images of shape (batch, h, w). A weight written in place after
    construction (NaN, inf, or beyond 3.4e38 in magnitude) is refused by ``forward`` naming it, as
    ``load_state_dict`` refuses it.
    """

    @allocates("channels", "depth")
    def __init__(self, channels: int = 16, depth: int = 4, seed: int = 0) -> None:
        super().__init__()
        channels, depth = check_int_at_least("channels", channels, 1), check_int_at_least("depth", depth, 2)
        self.channels, self.depth, self.seed = channels, depth, check_seed(seed)  # fixed: the body's sizes
        with torch.random.fork_rng():
            torch.manual_seed(self.seed)
            self.body = _body(channels, depth, type(self).__name__)
        if type(self) is ResidualDenoiser:   # a user's subclass sets its own attributes after this __init__
            fix_attributes(self)   # a misspelt public name set later is refused (stored and ignored before)

    def __setattr__(self, name: str, value) -> None:
        # d.depth = 9 after construction was stored as a new attribute, the network unchanged
        refuse_reassignment(self, name, value, ("channels", "depth", "seed"))
        super().__setattr__(name, value)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The denoised images D(x), for ``x`` real images of shape (batch, h, w) on the network's device
        (an empty batch gives an empty result), computed and returned in the network's dtype (float32 as
        built, float64 after ``.double()``; a network converted to another dtype, ``.half()``, is refused,
        TypeError): x of another dtype is cast to it. Entries of magnitude <= 3.4e38
        (the working range); an output that overflows the network's dtype (float32 images near 3e38) is
        refused naming x (ValueError)."""
        if not isinstance(x, torch.Tensor) or x.ndim != 3:
            raise ValueError(f"x must be a tensor of shape (batch, h, w), got "
                             f"{tuple(getattr(x, 'shape', ()))}")
        weight = _body_weight(self)
        if weight.dtype not in (torch.float32, torch.float64):  # .half() answered float16 images in silence
            raise TypeError(f"ResidualDenoiser's parameters are {weight.dtype}: it runs in float32 or "
                            f"float64; convert the network with .float() or .double()")
        if x.is_complex() or x.dtype == torch.bool:  # .to(float) would keep the real part / read 0/1 silently
            raise TypeError(f"x must be a real floating (or integer) image tensor, got dtype {x.dtype}")
        refuse_sparse("x", x)  # a sparse image met torch's kernels' errors, naming nothing
        if x.device != weight.device:
            raise ValueError(f"x must be on the network's device {weight.device}, got {x.device}")
        check_finite_data("x", x)  # a NaN image gave a NaN image in silence
        if x.is_inference() and not torch.is_inference_mode_enabled():
            x = x.clone()  # an inference-mode tensor outside inference mode: torch refused it for autograd
        _check_network_state(type(self).__name__, self)  # NaN weights answered NaN images in silence
        x = x.to(weight.dtype)
        return _finite_output("x", x, x - _run_body(self, x))
