"""The imaging inverse problem y = Hx + ω and the NPN regularizer γ‖G(y) − Sx‖² (paper eq. (2)).

>>> import torch
>>> from algorithms.imaging.operators import Blur
>>> H = Blur((8, 8), 1.0)
>>> problem = InverseProblem(H, H(torch.ones(8, 8, dtype=torch.float64)), noise_std=0.0)
>>> problem.y.shape
torch.Size([8, 8])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from algorithms._modules import eval_mode
from algorithms._validation import (
    UserCallableError,
    as_real_tensor,
    check_entries_in_range,
    check_finite_data,
    check_nonnegative,
    refuse_sparse,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.core import Problem
from algorithms.imaging.nullspace import null_space_leakage
from algorithms.imaging.operators import LinearOperator, _fingerprint
from algorithms.imaging.priors import _check_network_state

__all__ = ["NPN", "InverseProblem"]


#: the relative error a dot-product test allows between ⟨Hx, y⟩ and ⟨x, Hᵀy⟩ (float64 round-off of the
#: operators here is ~1e-15; a float32 operator's ~1e-7)
ADJOINT_RTOL = 1e-5


def _check_adjoint(operator: LinearOperator) -> None:
    """One dot-product test on a seeded random pair: a subclass whose ``_adjoint`` is not the adjoint of its
    ``_forward`` was solved to a wrong image (PnP-PGD) or diverged (ADMM) in silence (the class promises
    exact adjoints)."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn((1, *operator.image_shape), generator=generator, dtype=torch.float64)
    y = torch.randn((1, *operator.measurement_shape), generator=generator, dtype=torch.float64)
    Hx, Hty = operator.apply(x), operator.apply_adjoint(y)
    for method, image in (("_forward", Hx), ("_adjoint", Hty)):
        if not bool(torch.isfinite(image).all()):  # a solve then ran to a NaN objective, blamed on y or value
            raise ValueError(f"operator's {method} returned NaN/inf entries for a finite standard-normal "
                             f"input ({type(operator).__name__}): the operator's map is at fault")
    left, right = float((Hx * y).sum()), float((x * Hty).sum())
    # norms without underflow of the squares: an H of entries 1e-170 (valid) had ‖Hx‖ = 0, a scale of 0, and
    # was refused as "not the adjoint" for a rounding difference of 1e-186
    scale = _norm(Hx) * _norm(y) + _norm(x) * _norm(Hty)
    if math.isfinite(scale) and abs(left - right) > ADJOINT_RTOL * scale:
        raise ValueError(f"operator's _adjoint must be the adjoint of its _forward (⟨Hx, y⟩ = ⟨x, Hᵀy⟩): a "
                         f"dot-product test gave {left:.6g} and {right:.6g} ({type(operator).__name__})")


def _norm(t: torch.Tensor) -> float:
    """‖t‖₂ as max|t|·‖t/max|t|‖ (no underflow or overflow of the squares)."""
    top = float(t.abs().max()) if t.numel() else 0.0
    return top * float(torch.linalg.vector_norm(t / top)) if 0.0 < top < math.inf else top


@dataclass(frozen=True, eq=False)
class InverseProblem(Problem):
    """Recover an image x (shape ``operator.image_shape``) from y = Hx + ω, ω ~ N(0, noise_std² I).

    ``operator`` is H, a :class:`LinearOperator` whose ``_adjoint`` is the adjoint of its ``_forward``: one
    dot-product test on a seeded random pair, ⟨Hx, y⟩ against ⟨x, Hᵀy⟩, must agree to 1e-5 relative
    (ADJOINT_RTOL, of ‖Hx‖‖y‖ + ‖x‖‖Hᵀy‖), else the operator is refused by name, as is one whose maps
    return NaN/inf for finite inputs.

    ``y`` (shape ``operator.measurement_shape``) may be a numpy array or a torch tensor; it is
    stored as a float tensor (float32 stays float32, float64 and ints become float64), a copy; bool, complex
    and half-precision (float16, bfloat16) y are refused naming y (a TypeError); its entries
    are finite with magnitude <= 3.4e38 (the working range; a larger one is refused naming y). A float32 y
    solves in float32: entries near float32's largest (~1e38) can overflow the iterations' residuals H x − y,
    and the run then ends ``Diverged`` (pass a float64 y to solve in float64).
    ``noise_std``: ω's standard deviation, a float in [0, 3.4e38] (>= 0: 0 is noiseless data, and any value
    up to 3.4e38 is taken, a tiny one such as 1e-39 included); it is recorded with the problem, not used by
    the solvers (no solver here adds noise or weights by it).
    Problems compare and hash by identity, as ``QP`` does (comparing the tensor ``y`` field by field
    raised torch's "Boolean value of Tensor ... is ambiguous").
    """

    operator: LinearOperator
    y: Any
    noise_std: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.operator, LinearOperator):
            raise TypeError(f"operator must be a LinearOperator (e.g. algorithms.imaging.Blur), got "
                            f"{type(self.operator).__name__}")
        if not isinstance(self.y, torch.Tensor | np.ndarray):
            raise TypeError(f"y must be a torch.Tensor or numpy array, got {type(self.y).__name__}")
        self.operator._check_data("operator")   # written in place before: every solve refused it (red23a)
        _check_adjoint(self.operator)
        # the shared tensor check: bool, complex, half precision (float16 y was upcast in silence while
        # the operators refuse it) and meta tensors (a .item() error) refused by name; ints become float64
        y = as_real_tensor("y", self.y)
        if tuple(y.shape) != self.operator.measurement_shape:
            raise ValueError(f"y must have shape {self.operator.measurement_shape} (the measurement shape "
                             f"of the operator), got {tuple(y.shape)}")
        # a copy: as_real_tensor keeps a float64 tensor (and a contiguous float64 array's memory) as it is,
        # so an edit of the caller's y after construction changed the solve (a later NaN bypassed the check)
        object.__setattr__(self, "y", y.clone())
        object.__setattr__(self, "_y_crc", _fingerprint(self.y))  # .data writes bump no version counter
        # the shared check: its working range refused 1e308 and 5e-324 (a noise level is a positive scale)
        object.__setattr__(self, "noise_std", check_nonnegative("noise_std", self.noise_std))
        remember_validated(self)

    def _check_unchanged(self) -> None:
        """A field replaced since construction (``object.__setattr__`` on the frozen problem) or a tensor
        field written in place: validated again before the solve runs it (the error names the field), and
        the operator's own data re-checked."""
        revalidate_if_reassigned(self)
        if self.__dict__.get("_y_crc") not in (None, _fingerprint(self.y)):
            raise ValueError("InverseProblem.y was written in place after construction (through .data, which "
                             "the shared stamp does not see); build a new InverseProblem")
        self.operator._check_data("problem.operator")


@dataclass(frozen=True)
class NPN:
    """The NPN term γ/2 ‖G(y) − Sx‖² of eq. (2): S (rows in Null(H)), its predictor G, the weight γ.

    ``network`` maps flattened measurements ``(batch, m)`` to ``(batch, p)`` with p =
    ``projection.out_features`` (e.g. :class:`algorithms.imaging.NullSpaceNet`); it runs without gradients
    and in eval mode (dropout off, batch-norm statistics read and not updated; its own modes restored after).
    A solve refuses an S whose rows leave Null(H) by more than ``max_leakage`` = ‖HSᵀ‖/(‖H‖‖S‖) (the paper's
    high-pass S for blur leaks: pass a larger ``max_leakage`` to accept it knowingly). ``gamma`` and
    ``max_leakage`` are floats in [0, 3.4e38] (>= 0, 1e-39 included; ``gamma = 0``: the term vanishes and the
    solve is plain PnP; ``max_leakage = 0`` demands S exactly in Null(H) to the power iteration's rounding,
    and since the
    leakage lies in [0, 1] any ``max_leakage`` >= 1 accepts every S).
    """

    projection: LinearOperator
    network: torch.nn.Module
    gamma: float
    max_leakage: float = 1e-6

    def __post_init__(self) -> None:
        if not isinstance(self.projection, LinearOperator):
            raise TypeError(f"projection must be a LinearOperator, got {type(self.projection).__name__}")
        if not isinstance(self.network, torch.nn.Module):
            raise TypeError(f"network must be a torch.nn.Module, got {type(self.network).__name__}")
        _check_network_state("network", self.network)  # NaN or meta weights: NaN predictions in silence
        out = getattr(self.network, "out_features", self.projection.out_features)
        if out != self.projection.out_features:
            raise ValueError(f"network must output {self.projection.out_features} values (the rows of "
                             f"projection), got out_features = {out}")
        for name in ("gamma", "max_leakage"):  # a weight and a tolerance: 0 or in the working range
            object.__setattr__(self, name, check_nonnegative(name, getattr(self, name)))
        remember_validated(self)

    def check_against(self, operator: LinearOperator) -> float:
        """Raise unless S acts on H's images and its rows lie in Null(H) within ``max_leakage``.

        ``operator`` is H, a :class:`LinearOperator`; returns the measured leakage.
        """
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        if not isinstance(operator, LinearOperator):
            raise TypeError(f"operator must be a LinearOperator, got {type(operator).__name__}")
        if self.projection.image_shape != operator.image_shape:
            raise ValueError(f"projection must act on images of shape {operator.image_shape} (the "
                             f"operator's), got {self.projection.image_shape}")
        inputs = getattr(self.network, "in_features", operator.out_features)
        if inputs != operator.out_features:
            raise ValueError(f"network must take {operator.out_features} measurements (the operator's), "
                             f"got in_features = {inputs}")
        leakage = null_space_leakage(operator, self.projection)
        if not leakage <= self.max_leakage:  # NaN-safe: a NaN leakage passed `leakage > max_leakage`
            raise ValueError(f"projection has a range component: ‖HSᵀ‖/(‖H‖‖S‖) = {leakage:.3g} > "
                             f"max_leakage = {self.max_leakage:.3g} (its rows are not in Null(H))")
        return leakage

    def predict(self, y: torch.Tensor) -> torch.Tensor:
        """G(y) shaped as S's output, in y's dtype, without gradients."""
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        self.projection._check_data("projection")  # S written in place since built (red23a)
        if not isinstance(y, torch.Tensor) or not y.is_floating_point():
            raise TypeError(f"y must be a floating torch.Tensor (the measurements), got {type(y).__name__} "
                            f"{getattr(y, 'dtype', '')}")
        inputs = getattr(self.network, "in_features", y.numel())
        if y.device.type == "meta":  # no data (torch's .item() error below)
            raise ValueError("y is on the meta device (no data); move it to a real device")
        refuse_sparse("y", y)  # torch's NotImplementedError ('aten::ne.Scalar' ... SparseCPU)
        if y.numel() != inputs or not bool(torch.isfinite(y).all()):
            raise ValueError(f"y must hold {inputs} finite measurements (the network's in_features), got "
                             f"shape {tuple(y.shape)}" + ("" if y.numel() != inputs else " with NaN or inf"))
        check_entries_in_range("y", y)
        _check_network_state("network", self.network)  # weights written in place (NaN, 1e39) since built
        dtype = next(iter(self.network.parameters()), torch.empty(0, dtype=y.dtype)).dtype
        with torch.no_grad(), eval_mode(self.network):   # inference: same seed, same answer
            try:
                # a copy: a network that works in place changed the problem's (frozen) measurements y
                out = self.network(y.reshape(1, -1).to(dtype, copy=True))
            except Exception as exc:  # torch's shape, Python's arity or the network's own error: no name
                raise UserCallableError(f"network must map (1, {y.numel()}) measurements to (1, "
                                 f"{self.projection.out_features}) values; it raised {type(exc).__name__}: "
                                 f"{str(exc)[:160]}") from exc
        p = self.projection.out_features
        if not isinstance(out, torch.Tensor) or out.is_complex() or out.numel() != p:
            # a tuple, an array or a complex tensor reached .to/reshape ("'tuple' object has no attribute")
            raise ValueError(f"network must return a real tensor of {p} values (batch 1, projection's "
                             f"rows) for the measurements, got {type(out).__name__} "
                             f"{tuple(getattr(out, 'shape', ()))} {getattr(out, 'dtype', '')}")
        if out.is_floating_point() and dtype.is_floating_point and torch.finfo(out.dtype).bits < \
                torch.finfo(dtype).bits:   # a float64 network's float32 answer
            raise ValueError(f"network must return values of its input's dtype {dtype} (or wider), got "
                             f"{out.dtype}: the precision would be lost in silence (red20a)")
        out = out.to(y.dtype).reshape(self.projection.measurement_shape)
        if not bool(torch.isfinite(out).all()):
            raise ValueError("network returned NaN or inf for these measurements")
        return out

    def _check_pair(self, x: torch.Tensor, prediction: torch.Tensor) -> None:
        # x: one image (the solvers' iterate); prediction: what predict returns. A (1, p) prediction was
        # broadcast against Sx into a batch of gradients, a NaN one gave a NaN value, both in silence
        if not isinstance(x, torch.Tensor) or tuple(x.shape) != self.projection.image_shape:
            raise ValueError(f"x must be one image of shape {self.projection.image_shape} (projection's "
                             f"image_shape), got {tuple(getattr(x, 'shape', ()))}")
        # a NaN image gave a NaN gradient/value in silence; dtype and layout are projection.apply's checks
        if x.is_floating_point() and x.layout == torch.strided:
            check_finite_data("x", x, check_range=False)  # an iterate: a diverging one may pass 3.4e38
        shape = self.projection.measurement_shape
        if not isinstance(prediction, torch.Tensor) or tuple(prediction.shape) != shape:
            raise ValueError(f"prediction must be a tensor of shape {shape} (what predict(y) returns), got "
                             f"{type(prediction).__name__} {tuple(getattr(prediction, 'shape', ()))}")
        if prediction.dtype not in (torch.float32, torch.float64) or prediction.layout != torch.strided:
            # a bool one met torch's "Subtraction ... with a bool tensor", an int one was a rounded prediction
            raise TypeError(f"prediction must be a dense float32 or float64 tensor (what predict(y) "
                            f"returns), got {prediction.dtype} ({prediction.layout})")
        if prediction.device.type == "meta" or not bool(torch.isfinite(prediction).all()):
            raise ValueError("prediction must be real and finite (what predict(y) returns)")

    def gradient(self, x: torch.Tensor, prediction: torch.Tensor) -> torch.Tensor:
        """∇ of γ/2 ‖G(y) − Sx‖²: γ Sᵀ(Sx − G(y)), for one image ``x`` and ``prediction = predict(y)``
        (float32 or float64 each; mixed, the gradient is float64, by torch's type promotion)."""
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        self.projection._check_data("projection")  # S written in place since built (red23a)
        self._check_pair(x, prediction)
        grad = self._gradient(x, prediction)
        if not bool(torch.isfinite(grad).all()):
            raise ValueError(f"γ Sᵀ(Sx − G(y)) overflows to inf for this x and prediction (entries too large "
                             f"for {grad.dtype}; rescale x, or use a smaller gamma = {self.gamma:g})")
        return grad

    def value(self, x: torch.Tensor, prediction: torch.Tensor) -> float:
        """γ/2 ‖G(y) − Sx‖² for one image ``x`` and ``prediction = predict(y)`` (float32 or float64 each,
        mixed ones promoted to float64), as a Python float."""
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        self.projection._check_data("projection")  # S written in place since built (red23a)
        self._check_pair(x, prediction)
        value = self._value(x, prediction)
        if not math.isfinite(value):  # finite but huge x or prediction (~1e200): the squares overflowed
            raise ValueError(f"γ/2‖G(y) − Sx‖² overflows to inf for this x and prediction (entries too large "
                             f"for float64; rescale x, or use a smaller gamma = {self.gamma:g})")
        return value

    def _gradient(self, x: torch.Tensor, prediction: torch.Tensor) -> torch.Tensor:
        """:meth:`gradient` unchecked: the solvers' iterate (theirs to stop when it blows up)."""
        return self.gamma * self.projection.apply_adjoint(self.projection.apply(x) - prediction)

    def _value(self, x: torch.Tensor, prediction: torch.Tensor) -> float:
        """:meth:`value` unchecked, its squares summed in float64 (inf when they overflow)."""
        return 0.5 * self.gamma * float(((self.projection.apply(x) - prediction).double() ** 2).sum())
