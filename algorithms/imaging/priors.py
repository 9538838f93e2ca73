"""Image priors for plug-and-play: the proximal map of total variation, a trained denoiser,
and the projection onto a subspace (the exact-fixed-point prior the convergence theory needs).

Each prior has ``prox(x, lr)`` (the denoising step D applied to a batch ``(*batch, h, w)``, where
``lr`` is the step of the gradient step before it) and ``value(x)`` (its penalty, 0 when it has
none). Images have h, w >= 1 (an image without pixels is refused by name); an empty batch (a 0 in
``*batch``) gives an empty result, as torch's batched ops do.

>>> import torch
>>> x = torch.zeros(8, 8, dtype=torch.float64); x[:, 4:] = 1.0
>>> noisy = x + 0.1 * torch.randn(8, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
>>> tv = TVPrior(weight=0.1)
>>> bool(tv.value(tv.prox(noisy, lr=1.0)) < tv.value(noisy))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.nn import functional as nn_functional

from algorithms._modules import eval_mode
from algorithms._validation import (
    UserCallableError,
    _plain_number,
    check_count,
    check_entries_in_range,
    check_finite_data,
    check_nonnegative,
    refuse_overrides,
    refuse_sparse,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.imaging.operators import _fingerprint

__all__ = ["DenoiserPrior", "SubspacePrior", "TVPrior", "total_variation"]


def _check_network_state(name: str, network: Any) -> None:
    """A given network's parameters and buffers have data and are finite, of magnitude <= 3.4e38 (the
    working range, as load_state_dict checks it): one with NaN weights answered NaN images (or
    predictions) in silence, one on the meta device failed at its first call, a 1e39 written in place was
    used."""
    for key, value in network.state_dict().items():
        if not isinstance(value, torch.Tensor):
            continue
        if value.device.type == "meta":
            raise ValueError(f"{name} has parameters on the meta device (no data): {name}.{key}; load or "
                             f"initialize its weights first")
        if (value.is_floating_point() or value.is_complex()) and not bool(torch.isfinite(value).all()):
            raise ValueError(f"{name}.{key} contains NaN or inf entries")
        if value.is_floating_point():
            check_entries_in_range(f"{name}.{key}", value)


def _check_image_batch(x: Any, minimum: int = 1) -> None:
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.ndim < 2:
        raise TypeError(f"x must be a floating torch.Tensor of shape (*batch, h, w), got "
                        f"{type(x).__name__} {tuple(getattr(x, 'shape', ()))}")
    refuse_sparse("x", x)  # torch's "Could not run 'aten::as_strided' ... SparseCPU" named nothing
    if x.shape[-2] < minimum or x.shape[-1] < minimum:  # a (0, 0) "image" had TV 0 and a prox of itself
        raise ValueError(f"x must be images of shape (*batch, h, w) with h, w >= {minimum}"
                         f"{' (pixels)' if minimum == 1 else ''}, got shape {tuple(x.shape)}")
    # NaN pixels: the prox answered NaN images and total_variation 0 (NaN > 0 is False); the solvers hand a
    # non-finite step to no prior (they stop with Diverged first)
    # a meta tensor too (total_variation returned a meta tensor); the point a prox is evaluated at may be a
    # diverging run's iterate, past the working range (README): not bounded
    check_finite_data("x", x, check_range=False)


def _gradient(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward differences with a zero last difference (Neumann boundary)."""
    return (torch.diff(x, dim=-2, append=x[..., -1:, :]), torch.diff(x, dim=-1, append=x[..., :, -1:]))


def _divergence(pr: torch.Tensor, pc: torch.Tensor) -> torch.Tensor:
    """−(adjoint of :func:`_gradient`), for fields whose last row (pr) / column (pc) is zero."""
    return (pr - nn_functional.pad(pr[..., :-1, :], (0, 0, 1, 0))
            + pc - nn_functional.pad(pc[..., :, :-1], (1, 0)))


def _check_lr(lr: float) -> float:
    """The prox step of every prior: a float in [0, 3.4e38] (>= 0; 0 is the identity; −1 gave an image)."""
    return check_nonnegative("lr", lr)


def _tv(x: torch.Tensor) -> torch.Tensor:
    dr, dc = _gradient(x)
    squared = dr**2 + dc**2
    # the same value; the gradient takes the subgradient 0 where a pixel's gradient is 0 (√ at 0 gave NaN
    # for a constant image): the inner where keeps √'s derivative finite on the masked-out entries
    nonzero = squared > 0
    norm = torch.where(nonzero, torch.sqrt(torch.where(nonzero, squared, torch.ones_like(squared))), 0.0)
    return norm.sum(dim=(-2, -1))


def _scaled_tv(x: torch.Tensor) -> torch.Tensor:
    """TV per image without overflow of the squares: finite pixels ~1e20 in float32 (~1e200 in float64)
    overflowed their squared differences. TV is positively homogeneous: TV(x) = s·TV(x/s), s = max|x|."""
    value = _tv(x)
    if x.numel() == 0 or not bool(torch.isfinite(x).all()):
        return value
    # per image; also below √tiny·2**12: the squared differences of a float32 image ~1e-30 underflowed to 0
    scale = x.detach().abs().amax(dim=(-2, -1))
    small = scale < math.sqrt(torch.finfo(x.dtype).tiny) * 2.0**12
    if not bool(torch.isfinite(value).all()) or bool((small & (scale > 0)).any()):
        scale = torch.where(scale > 0, scale, torch.ones_like(scale))
        value = scale * _tv(x / scale[..., None, None])
    return value


def total_variation(x: torch.Tensor) -> torch.Tensor:
    """Isotropic TV Σ √(Δ_r x² + Δ_c x²) of each image of the batch.

    ``x`` is a finite floating tensor of shape (*batch, h, w), h, w >= 1 (an empty batch: an empty result).
    It is a point TV is evaluated at (a solver's iterate), so, as every oracle's point, it is not held to the
    working range (README): any finite entries whose TV stays finite in the dtype are answered.

    >>> import torch
    >>> step = torch.zeros(3, 4, dtype=torch.float64); step[:, 2:] = 1.0
    >>> float(total_variation(step))
    3.0
    """
    _check_image_batch(x)
    value = _scaled_tv(x)
    if not bool(torch.isfinite(value).all()):  # the TV itself exceeds the dtype's range
        raise ValueError(f"x has entries too large for {x.dtype}: its total variation overflows to inf "
                         f"(max |x| = {float(x.detach().abs().max()):.3g}; rescale x)")
    return value


#: the most dual iterations a TV prox takes (the default is 20; 10⁵ on a 128×128 image take seconds)
MAX_INNER = 10**5


@dataclass(frozen=True)
class TVPrior:
    """h(x) = weight · TV(x); its prox by Chambolle's dual projection (``inner`` iterations, step 1/8).

    The prox is an approximation that tightens as ``inner`` grows (Chambolle's iteration converges, slowly
    for a strong prox): on an 8×8 image with entries in [0, 2], the default 20 iterations are within 2e-4
    (max abs) of the exact argmin at lr·weight = 0.01, 3e-2 at 0.1 and 0.3 at 1; 2000 iterations within
    5e-7 at 1 (measured against a conic solver at 1e-12). The default is the plug-and-play setting (one
    inexact prox per outer iteration); pass a larger ``inner`` where the prox itself must be accurate.

    ``weight``: a float in [0, 3.4e38] (>= 0: 0 is no prior, the prox is the identity and the value 0; any
    value up to 3.4e38 is taken, a tiny one such as 1e-39 included, which acts nearly as 0);
    ``inner``: an int in [1, 10⁵].

    References: A. Chambolle, An algorithm for total variation minimization and
    applications, J. Math. Imaging Vision 20 (2004).

    A subclass may add methods and attributes but not override prox / value: the package evaluates this
    class's own, so the constructor refuses such a subclass with a TypeError naming the method.
    """

    weight: float
    inner: int = 20

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, TVPrior, ("prox", "_prox", "value", "_value"))
        object.__setattr__(self, "weight", check_nonnegative("weight", self.weight))
        object.__setattr__(self, "inner", check_count("inner", self.inner, 1))  # numpy ints too
        if self.inner > MAX_INNER:  # inner = 2**31 − 1 passed the count check and every prox ran for ever
            raise ValueError(f"inner must be <= {MAX_INNER} dual iterations per prox, got {self.inner}")
        remember_validated(self)

    def prox(self, x: torch.Tensor, lr: float) -> torch.Tensor:
        """argmin_z ½‖z − x‖² + lr·weight·TV(z), approximated by ``inner`` dual iterations (accuracy: see
        the class docstring), for finite images ``x`` (any finite entries: a prox's
        input is a point, not held to the working range) and ``lr`` a float in [0, 3.4e38] (>= 0, 1e-39
        included); ``x`` is returned unchanged when lr·weight = 0 (or is negligible beside x's entries).
        Computed in float64 and returned in x's dtype (a float32 image's dual step x/(lr·weight) overflowed
        float32
        for lr·weight below ~1e-28·max|x|: a NaN image in silence)."""
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        _check_image_batch(x)
        return self._prox(x, _check_lr(lr))

    def _prox(self, x: torch.Tensor, lr: float) -> torch.Tensor:
        """:meth:`prox` on a finite image the caller has checked (the solvers' iterate, which may leave the
        working range on its way to a blow-up: it is theirs to stop, not the user's input to refuse)."""
        strength = lr * self.weight
        if strength == 0.0:
            return x
        # in float64, x/strength <= 3.4e38/1.4e-76 and its squares stay finite for every x and strength of
        # the working range; an iterate past it whose quotient overflows is left as it is
        work = x.double()
        quotient = float(work.detach().abs().max()) / strength if x.numel() else 0.0
        if not math.isfinite(quotient * quotient):  # a float product: inf, where ** 2 raised OverflowError
            return x
        pr = torch.zeros_like(work)
        pc = torch.zeros_like(work)
        tau = 0.125  # Chambolle's step (<= 1/8 converges)
        for _ in range(self.inner):
            gr, gc = _gradient(_divergence(pr, pc) - work / strength)
            norm = 1.0 + tau * torch.sqrt(gr**2 + gc**2)
            pr = (pr + tau * gr) / norm
            pc = (pc + tau * gc) / norm
        return (work - strength * _divergence(pr, pc)).to(x.dtype)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        """``weight``·TV(x) per image. ``x`` is a finite floating image tensor of shape (*batch, h, w)
        (checked as :func:`total_variation` checks it); a product that overflows x's dtype is refused."""
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        value = self.weight * total_variation(x)
        if not bool(torch.isfinite(value).all()):  # weight 3.4e38 times a TV of 5 in float32
            raise ValueError(f"weight · TV(x) overflows {x.dtype} (weight = {self.weight:g}); use a smaller "
                             f"weight or rescale x")
        return value

    def _value(self, x: torch.Tensor) -> float:
        """weight·TV(x) of one unchecked image (a solver's iterate), in float64: inf when it overflows."""
        return self.weight * float(_scaled_tv(x.double()).sum())


@dataclass(frozen=True)
class DenoiserPrior:
    """D(x) = network(x): a trained image denoiser used as the prox (plug-and-play); no penalty value.

    ``network`` maps ``(batch, h, w)`` images to images of the same shape
    (e.g. :class:`algorithms.imaging.ResidualDenoiser`); it runs without gradients and in eval mode (dropout
    off, batch-norm statistics read and not updated; its own modes restored after). Its parameters and
    buffers must be finite with entries of magnitude <= 3.4e38 (the working range): checked at construction
    and again at each prox (a weight written in place afterwards, NaN or 1e39, is refused naming it). An
    exception the network raises is re-raised as a ``UserCallableError`` (a ``ValueError``) naming
    ``network``; NaN/inf output pixels are refused by :meth:`prox` naming ``network``, and in a solve
    (PnPPGD, PnPADMM) they end the run ``Diverged`` (a non-finite iterate).

    A subclass may add methods and attributes but not override prox / value: the package evaluates this
    class's own, so the constructor refuses such a subclass with a TypeError naming the method.
    """

    network: torch.nn.Module

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, DenoiserPrior, ("prox", "_prox", "value", "_value"))
        if not isinstance(self.network, torch.nn.Module):
            raise TypeError(f"network must be a torch.nn.Module, got {type(self.network).__name__}")
        _check_network_state("network", self.network)  # NaN or meta weights: NaN images in silence
        remember_validated(self)

    def prox(self, x: torch.Tensor, lr: float) -> torch.Tensor:
        """The network applied to ``x``. ``x`` is a finite floating image tensor of shape (*batch, h, w)
        with h, w >= 2 (images, as the operators': a (0, 8) tensor or trailing axes of size 1 were read as
        batches of empty or 1×1 images); ``lr`` (a float in [0, 3.4e38]) is accepted for the common prox
        interface and does not change the output.
        """
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        _check_image_batch(x, minimum=2)
        out = self._prox(x, _check_lr(lr))
        if not bool(torch.isfinite(out).all()):  # a solve hands it on: Diverged
            raise ValueError("network returned NaN or inf pixels for these images")
        return out

    def _prox(self, x: torch.Tensor, lr: float) -> torch.Tensor:
        """:meth:`prox` on an image the caller has checked (a solver's iterate); the output's type, shape and
        dtype are checked, a non-finite output is returned as it is (the solve's ``Diverged``)."""
        # its weights written in place after construction (NaN, 1e39) are refused as at construction
        _check_network_state("network", self.network)
        dtype = next(self.network.parameters(), x).dtype  # a network without parameters: x's dtype
        # a copy: a network that works in place (x.mul_(2)) changed the caller's images (the solver's iterate)
        images = x.reshape(-1, *x.shape[-2:]).to(dtype, copy=True)
        with torch.no_grad(), eval_mode(self.network):   # inference: same seed, same answer
            try:
                out = self.network(images)
            except Exception as exc:  # torch's shape message, Python's arity message ("forward() takes 1
                # positional argument but 2 were given") or the network's own error (a ZeroDivisionError)
                # named neither the network nor the images
                raise UserCallableError(f"network must map (batch, h, w) images to images of that shape; on "
                                 f"images of shape {tuple(images.shape)} it raised {type(exc).__name__}: "
                                 f"{str(exc)[:99]}") from exc
        if not isinstance(out, torch.Tensor):  # "got (1, 4, 4) for (1, 4, 4)" for a numpy answer
            raise ValueError(f"network must return a torch.Tensor of shape {tuple(images.shape)}, "
                             f"got {type(out).__name__}")
        if tuple(out.shape) != tuple(images.shape):
            raise ValueError(f"network must map (batch, h, w) images to images of that shape, got "
                             f"{tuple(getattr(out, 'shape', ()))} for {tuple(images.shape)}")
        # a complex output lost its imaginary part in .to(x.dtype), an integer one was a rounded image, and a
        # NaN image went on as the iterate: each named here
        if not out.is_floating_point():
            raise ValueError(f"network must return a real floating image tensor, got dtype {out.dtype}")
        if torch.finfo(out.dtype).bits < torch.finfo(images.dtype).bits:   # float64 images lost to float32
            raise ValueError(f"network must return images of its input's dtype {images.dtype} (or wider), "
                             f"got {out.dtype}: the precision would be lost in silence (red20a)")
        # a NaN/inf image (the user's network failing mid-run) goes back to the solve, which ends Diverged
        return out.to(x.dtype).reshape(x.shape)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        """Zeros of shape *batch (no penalty value). ``x`` is a finite floating image tensor of shape (*batch,
        h, w), dense (checked as :meth:`prox` checks it).
        """
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        _check_image_batch(x)  # a str met AttributeError, a NaN image answered 0
        return torch.zeros(x.shape[:-2], dtype=x.dtype)

    def _value(self, x: torch.Tensor) -> float:
        return 0.0


@dataclass(frozen=True)
class SubspacePrior:
    """D(x) = U Uᵀ x, the orthogonal projection onto the span of the orthonormal columns of ``basis``.

    Its image M_D is a subspace and D is 1-Lipschitz with every point of M_D fixed: the
    setting of the paper's Theorem 1 made exact (Assumption 2 with δ = 1). ``basis`` is a 2-D
    float32 or float64 tensor (n, k >= 1) of finite entries (NaN/inf refused naming basis) with orthonormal
    columns to its precision (1e-8 in float64, 1.2e-5 in float32; copied); ``image_shape`` (h, w), ints >= 1
    with h·w = n, must be given (the default (0, 0) fits no basis).

    A subclass may add methods and attributes but not override prox / value: the package evaluates this
    class's own, so the constructor refuses such a subclass with a TypeError naming the method.
    """

    basis: torch.Tensor
    image_shape: tuple[int, int] = field(default=(0, 0))

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, SubspacePrior, ("prox", "_prox", "value", "_value"))
        b = self.basis
        if not isinstance(b, torch.Tensor) or not b.is_floating_point() or b.ndim != 2:
            raise TypeError("basis must be a 2-D floating torch.Tensor (n, k) with orthonormal columns")
        refuse_sparse("basis", b)  # torch's NotImplementedError for a sparse one named nothing
        if b.device.type == "meta":
            raise ValueError("basis is on the meta device (no data); move it to a real device")
        if b.dtype not in (torch.float32, torch.float64):  # half: its rounding alone fails the check below
            raise TypeError(f"basis must be a float32 or float64 tensor, got {b.dtype}")
        if b.shape[0] == 0 or b.shape[1] == 0:  # no pixels, or the subspace {0}: every prox answered zeros
            raise ValueError(f"basis must have at least one row and one column (n, k >= 1), got shape "
                             f"{tuple(b.shape)}")
        if not bool(torch.isfinite(b).all()):  # NaN passed the orthonormality test (NaN > tol is False)
            raise ValueError("basis must have finite entries (orthonormal columns), got NaN or inf entries")
        b = b.detach().clone()  # a copy: an edit of the caller's basis after construction changed the prior
        object.__setattr__(self, "basis", b)
        # in float64, to the basis' own precision: a float32 QR basis (|BᵀB − I| ~ 5e-7) was refused at 1e-8
        tol = max(1e-8, 100.0 * float(torch.finfo(b.dtype).eps))
        gram = b.double().T @ b.double()
        eye = torch.eye(b.shape[1], dtype=torch.float64)
        error = float((gram - eye).abs().max())
        # NaN-safe (a NaN error failed `error > tol`); allclose's rtol added 1e-5 on the diagonal: a basis
        # 800x off the stated tol passed
        if not error <= tol:
            raise ValueError(f"basis must have orthonormal columns (basisᵀ basis = I to {tol:.2g} for "
                             f"{b.dtype}), got max |basisᵀ basis − I| = {error:.3g}")
        shape = self.image_shape
        if (not isinstance(shape, tuple | list) or len(shape) != 2
                or not all(isinstance(s, int | np.integer) and not isinstance(s, bool) and s >= 1
                           for s in shape)
                or shape[0] * shape[1] != b.shape[0]):
            # the pair basis/image_shape disagrees: both are named (either may be the wrong one)
            raise ValueError(f"image_shape must be (h, w) with h·w = {b.shape[0]} (the rows of basis), got "
                             f"{shape!r}: basis has {b.shape[0]} rows")
        # stored as a tuple of Python ints (a list or numpy ints were kept as given: another repr and eq)
        object.__setattr__(self, "image_shape", (int(_plain_number(shape[0])), int(_plain_number(shape[1]))))
        object.__setattr__(self, "_basis_crc", _fingerprint(b))
        remember_validated(self)

    def _check_written(self) -> None:
        """The basis written in place since construction, through ``.data`` too (which the shared stamp, a
        tensor's version counter, does not see: a non-orthonormal "projection" was used in silence)."""
        if self.__dict__.get("_basis_crc") not in (None, _fingerprint(self.basis)):
            raise ValueError("SubspacePrior.basis was written in place after construction (its columns must "
                             "stay orthonormal); build a new SubspacePrior")

    def __eq__(self, other: object) -> bool:
        # the tensor field compared as a whole (the generated __eq__ raised torch's "Boolean value of Tensor
        # with more than one value is ambiguous", also inside PnPPGD(prior=...) == ...)
        if not isinstance(other, SubspacePrior):
            return NotImplemented
        return tuple(self.image_shape) == tuple(other.image_shape) and self.basis.dtype == other.basis.dtype \
            and self.basis.shape == other.basis.shape and bool(torch.equal(self.basis, other.basis))

    def __hash__(self) -> int:
        return hash((tuple(self.image_shape), tuple(self.basis.shape)))

    def prox(self, x: torch.Tensor, lr: float) -> torch.Tensor:
        """U Uᵀ x per image (``lr`` does not change a projection). ``x`` is a finite floating image tensor of
        shape (*batch, h, w) with (h, w) = ``image_shape``; ``lr`` a float in [0, 3.4e38]. Computed in float64
        and returned in x's dtype; a projection whose entries pass that dtype's range is refused naming x.
        """
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        self._check_written()
        _check_image_batch(x)
        self._check_shape(x)
        _check_lr(lr)
        # in float64, rounded once: a float32 image of 3e38 (projection 2.9e38) overflowed to inf on the way
        out = self._prox(x.to(torch.float64), 1.0).to(x.dtype)
        if not bool(torch.isfinite(out).all()):
            raise ValueError(f"x has entries too large for {x.dtype}: its projection U Uᵀ x overflows it "
                             f"(max |x| = {float(x.detach().abs().max()):.3g}); rescale x or pass a float64 "
                             f"x")
        return out

    def _prox(self, x: torch.Tensor, lr: float) -> torch.Tensor:
        """:meth:`prox` on an image the caller has checked (a solver's iterate)."""
        flat = x.reshape(-1, self.basis.shape[0])
        basis = self.basis.to(x.dtype)
        return ((flat @ basis) @ basis.T).reshape(x.shape)

    def _check_shape(self, x: torch.Tensor) -> None:
        if tuple(x.shape[-2:]) != tuple(self.image_shape):  # (2, 4, 8) was reshaped into one 8×8 image
            raise ValueError(f"x must have shape (*batch, {self.image_shape[0]}, {self.image_shape[1]}) (the "
                             f"prior's image_shape), got {tuple(x.shape)}")

    def value(self, x: torch.Tensor) -> torch.Tensor:
        """Zeros of shape *batch (the indicator of the subspace is not evaluated). ``x`` is a finite floating
        image tensor of shape (*batch, h, w), dense, of the prior's image_shape.
        """
        revalidate_if_reassigned(self)  # a field set through object.__setattr__ or written in place
        _check_image_batch(x)  # a str met AttributeError, a NaN image answered 0
        self._check_shape(x)
        return torch.zeros(x.shape[:-2], dtype=x.dtype)

    def _value(self, x: torch.Tensor) -> float:
        return 0.0
