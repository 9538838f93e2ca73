"""Linear sensing operators of imaging inverse problems, in torch, with exact adjoints.

Each operator maps images of shape ``(*batch, h, w)`` to measurements of shape
``(*batch, *measurement_shape)`` and back with its adjoint, so that
⟨Hx, y⟩ = ⟨x, Hᵀy⟩ holds to rounding for real tensors (the tests check it).
Complex Fourier data are stored as real pairs (real, imaginary) so that every
inner product is the real Euclidean one.

Operators: :class:`MatrixOperator` (dense H, e.g. :func:`gaussian_cs`),
:class:`SubsampledHadamard` (a fast structured compressive-sensing operator),
:class:`Blur` (circular convolution by FFT), :class:`SuperResolution` (blur and
decimation), :class:`Radon` (parallel-beam CT as a sparse matrix, so its adjoint
is its transpose) and :class:`MaskedFourier` (single-coil MRI).

>>> import torch
>>> H = gaussian_cs((8, 8), ratio=0.25, seed=0)
>>> x, y = torch.randn(2, 8, 8, dtype=torch.float64), torch.randn(2, 16, dtype=torch.float64)
>>> bool(torch.isclose((H(x) * y).sum(), (x * H.adjoint(y)).sum()))
True

References
----------
Jacome, Gualdrón-Hurtado, Suarez, Arguello. NPN: Non-Linear Projections of the
Null-Space for Imaging Inverse Problems. NeurIPS 2025, arXiv:2510.01608, Section 3.1.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    C_INT_MAX,
    UnknownAttributeError,
    _plain_number,
    _refuse_masked,
    abstract_method,
    as_array,
    as_float_array,
    call_user,
    check_entries_in_range,
    check_finite_data,
    check_fits_memory,
    check_positive,
    check_positive_int,
    check_seed,
    check_torch_dtype,
    check_working_range,
    read_only,
    refuse_bools_in_sequence,
    refuse_sparse,
    to_float,
)

__all__ = [
    "Blur",
    "HighPass",
    "LinearOperator",
    "MaskedFourier",
    "MatrixOperator",
    "Radon",
    "SubsampledHadamard",
    "SuperResolution",
    "cartesian_mask",
    "gaussian_cs",
    "gaussian_kernel_spectrum",
]


_FLOAT32_MAX = float(torch.finfo(torch.float32).max)
#: what a subclass's _forward/_adjoint may raise as it is (they name their argument); others are wrapped
_OWN_ERRORS = (ValueError, TypeError)

def _check_image_shape(image_shape: Any) -> tuple[int, int]:
    if (not isinstance(image_shape, tuple | list) or len(image_shape) != 2
            or not all(isinstance(s, int | np.integer) and not isinstance(s, bool) and s >= 2
                       for s in image_shape)):
        raise ValueError(f"image_shape must be a pair of ints >= 2 (h, w), got {image_shape!r}")
    h, w = int(_plain_number(image_shape[0])), int(_plain_number(image_shape[1]))
    if h * w > C_INT_MAX:  # the operators build dense/sparse arrays of h·w pixels (and FFTs of that size)
        raise ValueError(f"image_shape must have h·w <= 2**31 - 1 pixels, got {image_shape!r}")
    return h, w


def _check_ratio(ratio: Any) -> float:
    """A fraction of measurements in (0, 1]: a positive scale, so >= 1.18e-38 (the working range; 5e-324
    was taken, one row); numpy ints and Fractions too, as every real argument."""
    if isinstance(ratio, bool | np.bool_) or not isinstance(ratio, numbers.Real):
        raise TypeError(f"ratio must be a real number in (0, 1], got {type(ratio).__name__}")
    ratio = to_float(ratio)
    if not 0.0 < ratio <= 1.0:
        raise ValueError(f"ratio must be in (0, 1], got {ratio!r:.40}")
    return check_working_range("ratio", ratio)


def _spectral_norm(forward: Any, adjoint: Any, x: torch.Tensor, iterations: int,
                   maps: str = "the operator's") -> float:
    """‖A‖₂ by ``iterations`` power steps on AᵀA from x/‖x‖, run on B = A/s with s = max |(A x/‖x‖)_i| (no
    square formed): ‖B‖ lies in [1, √m·‖A‖/s], the iterate is kept at x̂/s (x̂ a unit vector) so that
    A(x̂/s) = Bx̂ and Aᵀ(Bx̂)/s = BᵀBx̂ are both of order 1, and the estimate s·√‖BᵀBx̂‖ = √‖AᵀAx̂‖ is the
    unscaled step's for any ‖A‖ in ~[1e-290, 1e290] (the unscaled step squared ‖A‖ twice inside torch's
    norm, which sums squares, and returned 0.0 below ~1e-77). 0.0 when A x = 0 exactly (A = 0). A NaN/inf
    step (a user's map failing part-way) is refused naming ``maps``: it returned norm() = nan, and
    null_space_leakage's min(1.0, nan) a plausible 1.0 (red20a)."""
    value = 0.0  # assigned by the first step (iterations >= 1, validated by the callers)
    x = x / torch.linalg.vector_norm(x)
    scale = float(torch.linalg.vector_norm(forward(x), math.inf))
    if scale == 0.0:
        return 0.0
    _check_power_step(scale, maps)
    x = x / scale
    for _ in range(iterations):
        x = adjoint(forward(x)) / scale
        value = float(torch.linalg.vector_norm(x))
        _check_power_step(value, maps)
        if value == 0.0:  # BᵀBx̂ = 0 to rounding (an S exactly in Null(H))
            return 0.0
        x = x / (value * scale)
    return scale * math.sqrt(value)


def _check_power_step(value: float, maps: str) -> None:
    if not math.isfinite(value):   # NaN passed `value == 0.0` and every later step
        raise ValueError(f"{maps} _forward/_adjoint returned NaN/inf entries during the power iteration "
                         f"(finite inputs): the operator's map is at fault")


#: the most power iterations ``norm`` and ``null_space_leakage`` take: 2**40 ran for ever (a hang, not an
#: error); the defaults are 50 and 60, and 10⁵ steps of the largest operators here take minutes
MAX_POWER_ITERATIONS = 10**5


def check_power_iterations(iterations: Any) -> int:
    """``iterations`` of a power iteration: an int in [1, MAX_POWER_ITERATIONS] (numpy ints too)."""
    iterations = check_positive_int("iterations", iterations)
    if iterations > MAX_POWER_ITERATIONS:
        raise ValueError(f"iterations must be <= {MAX_POWER_ITERATIONS} power-iteration steps, got "
                         f"{iterations}")
    return iterations


def _fingerprint(tensor: torch.Tensor) -> int:
    """A CRC of a tensor's values (and a sparse one's indices): in-place writes, ``.data`` ones included."""
    import zlib

    if tensor.layout == torch.sparse_csr:
        parts = [tensor.crow_indices(), tensor.col_indices(), tensor.values()]
    elif tensor.layout != torch.strided:
        parts = [tensor.coalesce().indices(), tensor.coalesce().values()]
    else:
        parts = [tensor]
    crc = 0
    for part in parts:
        data = part.detach().cpu().contiguous().reshape(-1)
        crc = zlib.crc32(data.view(torch.uint8).numpy().tobytes() if data.numel() else b"", crc)
    return crc


def _finite_output(name: str, what: str, out: torch.Tensor) -> torch.Tensor:
    """``out`` of a checked map whose input was finite: an overflow (entries ~1e308 summed into inf, then
    inf − inf = NaN in an FFT) is refused naming the input, not returned as inf/NaN measurements."""
    if not bool(torch.isfinite(out).all()):
        raise ValueError(f"{name} has entries too large for {out.dtype}: {what} overflows to inf/NaN "
                         f"(rescale {name})")
    return out


class LinearOperator:
    """A linear map H from images ``(*batch, h, w)`` to measurements ``(*batch, *measurement_shape)``.

    Subclasses set ``image_shape`` and ``measurement_shape`` and implement ``_forward`` and ``_adjoint`` on
    tensors with one batch dimension (one left out raises an ``AbstractMethodError``, a TypeError and a
    NotImplementedError naming it, when used, never a stand-in map); a subclass's methods get a copy of their
    input, so one that writes into its argument changes neither the caller's tensor nor a solver's iterate;
    ``forward``/``adjoint`` check the type, dtype (float32 or float64), shape and finiteness of their input
    (NaN/inf named) and compute in the input's dtype: a float32 image gives float32 measurements whatever the
    dtype of the operator's own data (a matrix, a spectrum), which is cast to the input's (so one operator
    serves both precisions; a float64 operator on float32 data runs in float32);
    ``apply``/``apply_adjoint`` skip the finiteness check (the solvers' maps: their divergence tests must
    see a blown-up iterate's image rather than an error);
    ``in_features`` (= h·w) and ``out_features`` (= the measurement count) are the matrix sizes.
    An operator's public attributes (its matrix, spectrum, shapes, sigma, ...) are fixed once its ``__init__``
    returns: assigning one raises a ValueError naming it (a subclass keeps caches in ``_private`` names).
    An empty batch (a 0 in ``*batch``) maps to an empty batch, as torch's batched ops do.
    """

    image_shape: tuple[int, int]
    measurement_shape: tuple[int, ...]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # each subclass's __init__ marks the operator built when the outermost one returns: from then on its
        # public attributes are fixed (MatrixOperator.weight = "abc" met AttributeError 'to' at the next
        # forward, SubsampledHadamard.ratio = inf was kept, Radon.sparse_t replaced in silence)
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        @functools.wraps(init)
        def built(self: Any, *args: Any, **kw: Any) -> None:
            init(self, *args, **kw)
            if type(self).__init__ is built:
                self.__dict__["_built"] = True
                self.__dict__["_fingerprints"] = {key: (value, _fingerprint(value)) for key, value in
                                                  vars(self).items() if isinstance(value, torch.Tensor)}

        cls.__init__ = built

    def __init__(self) -> None:
        # a subclass with no __init__ of its own (shapes as class attributes) was never marked built: its
        # attributes stayed settable and a misspelt one (op.scal = 3) was stored and ignored
        if type(self).__init__ is LinearOperator.__init__:
            self.__dict__["_built"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_built") and not name.startswith("_"):
            kind = type(self).__name__
            if name not in self.__dict__ and not hasattr(type(self), name):   # the README's rule for a
                raise UnknownAttributeError(                                     # name it does not take
                    f"{kind} takes no attribute {name!r} (a misspelt name would be stored and ignored); "
                    f"its attributes are fixed by its construction")
            raise ValueError(f"{name} is fixed by {kind}'s construction (its data and shapes were checked "
                             f"and built together); build a new {kind} instead, got {type(value).__name__} "
                             f"{value!r:.40}")
        super().__setattr__(name, value)

    def __new__(cls, *args: Any, **kwargs: Any):
        if cls is LinearOperator:  # the abstract base: an instance had no shapes and no maps
            raise TypeError("LinearOperator is an abstract base: subclass it (set image_shape and "
                            "measurement_shape, implement _forward(x) and _adjoint(y)), or use one of its "
                            "operators (MatrixOperator, Blur, ...)")
        return super().__new__(cls)

    def __getattr__(self, name: str) -> Any:
        # only reached when the attribute is missing: a subclass whose __init__ set no shapes met Python's
        # AttributeError deep inside forward, naming neither the class nor what to set
        if name in ("image_shape", "measurement_shape"):
            raise abstract_method(self, name, "a tuple of ints set by its __init__ (the shapes of images and "
                                              "measurements)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def in_features(self) -> int:
        return self.image_shape[0] * self.image_shape[1]

    def __repr__(self) -> str:
        # the defining scalars, not "<... object at 0x...>": the shapes and sigma/factor/ratio/seed
        parts = [f"image_shape={self.image_shape!r}", f"measurement_shape={self.measurement_shape!r}"]
        parts += [f"{k}={getattr(self, k)!r}" for k in ("sigma", "factor", "ratio", "seed")
                  if isinstance(getattr(self, k, None), int | float)]
        return f"{type(self).__name__}({', '.join(parts)})"

    @property
    def out_features(self) -> int:
        return math.prod(self.measurement_shape)

    def _check(self, name: str, value: Any, trailing: tuple[int, ...]) -> tuple[torch.Tensor, tuple]:
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
        # one input check for every operator: half precision has no FFT/sparse kernels on the CPU (or
        # ran silently in low precision), and a meta tensor has no data
        if value.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be a floating tensor (float32 or float64), got {value.dtype}")
        refuse_sparse(name, value)  # torch's "reshape is not implemented for sparse tensors": no name
        if value.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        k = len(trailing)
        if value.ndim < k or tuple(value.shape[value.ndim - k:]) != trailing:
            raise ValueError(f"{name} must have shape (*batch, {', '.join(map(str, trailing))}) for "
                             f"this {type(self).__name__}, got {tuple(value.shape)}")
        batch = tuple(value.shape[:value.ndim - k])
        return value.reshape(-1, *trailing), batch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """H x for finite images ``x`` of shape ``(*batch, h, w)`` (float32 or float64, dense), computed and
        returned in x's dtype (the operator's data is cast to it, see the class docstring; a float32 image
        whose map overflows float32 on the way is mapped in float64 and rounded back); NaN/inf entries, and
        finite entries so large that H x itself overflows the dtype (~1e308 in float64, ~3.4e38 in float32),
        are refused by name (ValueError). The point a map is evaluated at is not bounded by the working range
        (README: a diverging run's iterate may pass it; what overflows is refused)."""
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.layout == torch.strided:
            check_finite_data("x", x, check_range=False)  # a NaN image gave all-NaN measurements in silence
        self._check_data(type(self).__name__)  # H.weight[0, 0] = 1e30 in place: another H in silence
        return self._finite_output("x", "H x", self._widened(self.apply, x), x, self.apply)

    def adjoint(self, y: torch.Tensor) -> torch.Tensor:
        """Hᵀ y for finite measurements ``y`` of shape ``(*batch, *measurement_shape)``, in y's dtype
        (float32 or float64, as :meth:`forward`); refused as :meth:`forward` refuses ``x`` (NaN/inf, or
        entries so large that Hᵀ y overflows)."""
        if isinstance(y, torch.Tensor) and y.is_floating_point() and y.layout == torch.strided:
            check_finite_data("y", y, check_range=False)  # a point, as forward's x
        self._check_data(type(self).__name__)
        return self._finite_output("y", "Hᵀ y", self._widened(self.apply_adjoint, y), y, self.apply_adjoint)

    @staticmethod
    def _widened(apply: Any, value: torch.Tensor) -> torch.Tensor:
        """``apply(value)``; a float32 input whose map overflowed float32 on the way (an FFT's or a product's
        partial sums: a blur of two 3e38 pixels) is mapped again in float64, and the result kept when it fits
        float32 (what then overflows is the image itself, refused by name)."""
        out = apply(value)
        if value.dtype != torch.float32 or bool(torch.isfinite(out).all()):
            return out
        wide = apply(value.double())
        if bool(torch.isfinite(wide).all()) and float(wide.abs().max()) <= _FLOAT32_MAX:
            return wide.float()
        return out

    def _finite_output(self, name: str, what: str, out: torch.Tensor, value: torch.Tensor,
                       apply: Any) -> torch.Tensor:
        """:func:`_finite_output`, after the operator's own data (a matrix written NaN in place after
        construction made H x NaN, and the message blamed x's size) and the map itself: H is linear, so when
        ``value`` scaled to unit size still maps to NaN/inf the operator is at fault, not ``value``'s size (a
        subclass whose _forward returned NaN was reported as "x has entries too large")."""
        if not bool(torch.isfinite(out).all()):
            self._check_data(type(self).__name__)
            top = float(value.detach().abs().max()) if value.numel() else 0.0
            if top > 0.0 and not bool(torch.isfinite(apply(value / top)).all()):
                method = "_forward" if name == "x" else "_adjoint"
                raise ValueError(f"{type(self).__name__}.{method} returned NaN/inf entries for a finite "
                                 f"{name} (also scaled to max |{name}| = 1): the operator's map is at fault, "
                                 f"not {name}")
        return _finite_output(name, what, out)

    __call__ = forward

    def normal(self, x: torch.Tensor) -> torch.Tensor:
        """HᵀH x for images ``x`` as :meth:`forward` takes them, in x's dtype."""
        return self.adjoint(self.forward(x))

    def apply(self, x: torch.Tensor) -> torch.Tensor:
        """H x with the type, dtype and shape checks of :meth:`forward` but not its finiteness check: the
        solvers' map, whose divergence tests must see a blown-up iterate's image, not an error. Nor does it
        re-check the operator's own data (O(data) per call, the solvers' inner loop): an operator written in
        place after construction is used here as it stands; :meth:`forward`, :meth:`adjoint`, :meth:`norm`
        and every solve refuse it by name."""
        flat, batch = self._check("x", x, self.image_shape)
        if flat.shape[0] == 0:  # an empty batch: the FFT and reshape kernels fail on 0 rows
            return flat.new_zeros((*batch, *self.measurement_shape))
        # a subclass's own code: its ZeroDivisionError or KeyError named no operator (ours raise none)
        out = call_user(f"{type(self).__name__}._forward(x)", self._forward, self._own(flat),
                        keep=_OWN_ERRORS)
        return self._returned("_forward(x)", out, flat, self.measurement_shape, batch)

    def _own(self, value: torch.Tensor) -> torch.Tensor:
        """The input a user's subclass gets: a copy (its ``_forward``/``_adjoint`` writing into its
        argument, ``x.mul_(2)``, changed the caller's image or the solver's iterate, and the dot-product test
        then blamed ``_adjoint``); the package's own operators never write into it and get the tensor."""
        return value if type(self).__module__.startswith("algorithms.") else value.clone()

    def _returned(self, call: str, out: Any, flat: torch.Tensor, shape: tuple[int, ...],
                  batch: tuple) -> torch.Tensor:
        """A subclass's ``_forward``/``_adjoint`` result checked before it is reshaped: a tensor of another
        size met torch's "shape '[4]' is invalid for input of size 3", naming neither the method nor the
        class; one of another dtype (float32 measurements of float64 images) was used as it was, although
        the class computes in its input's dtype."""
        rows = flat.shape[0]
        if not isinstance(out, torch.Tensor) or out.numel() != rows * math.prod(shape):
            raise ValueError(f"{type(self).__name__}.{call} must return a tensor of shape ({rows}, "
                             f"{', '.join(map(str, shape))}) for a batch of {rows}, got {type(out).__name__} "
                             f"{tuple(getattr(out, 'shape', ()))}")
        if out.dtype != flat.dtype:
            raise ValueError(f"{type(self).__name__}.{call} must return a tensor of its input's dtype "
                             f"({flat.dtype}), got {out.dtype}")
        return out.reshape(*batch, *shape)

    def apply_adjoint(self, y: torch.Tensor) -> torch.Tensor:
        """Hᵀ y as :meth:`apply` (no finiteness check of y, no re-check of the operator's own data)."""
        flat, batch = self._check("y", y, self.measurement_shape)
        if flat.shape[0] == 0:
            return flat.new_zeros((*batch, *self.image_shape))
        out = call_user(f"{type(self).__name__}._adjoint(y)", self._adjoint, self._own(flat),
                        keep=_OWN_ERRORS)
        return self._returned("_adjoint(y)", out, flat, self.image_shape, batch)

    def matrix(self, dtype: torch.dtype = torch.float64) -> torch.Tensor:
        """The dense matrix (out_features, in_features), built column by column (small operators).

        ``dtype`` is torch.float32 or torch.float64 (half precision is refused).
        """
        dtype = check_torch_dtype(dtype)
        eye = torch.eye(self.in_features, dtype=dtype).reshape(-1, *self.image_shape)
        return self.forward(eye).reshape(self.in_features, -1).T.contiguous()

    def norm(self, iterations: int = 50, seed: int = 0, dtype: torch.dtype = torch.float64) -> float:
        """Spectral norm ‖H‖₂ by power iteration on HᵀH (``iterations`` an int in [1, 10**5] products,
        start drawn from ``seed``, an int in [0, 2**64)), rescaled at each half-step so that ``(c·H).norm() =
        c·H.norm()`` for every operator whose data are in the working range (a :class:`MatrixOperator`'s
        entries at most 3.4e38), and for a subclass whose map scales further while ‖H‖ is in ~[1e-290, 1e290]
        (the iteration on HᵀH itself returned 0.0 below ~1e-77).

        ``dtype`` is torch.float32 or torch.float64 (the iteration's).

        An estimate, from below: the power iteration converges at the rate (σ₂/σ₁)^(2·iterations), so it is
        exact to rounding when the top singular value is well separated, and slow when the top two are close
        (50 steps were up to 1.6 % low on 8×8 Gaussian matrices); raise ``iterations`` for accuracy there.
        A subclass's ``_forward``/``_adjoint`` answering NaN/inf during the iteration is refused with a
        ``ValueError`` naming the operator.
        """
        self._check_data(type(self).__name__)   # written in place since built: the edited H's norm (red23a)
        iterations = check_power_iterations(iterations)
        dtype = check_torch_dtype(dtype)
        generator = torch.Generator().manual_seed(check_seed(seed))
        x = torch.randn(self.image_shape, generator=generator, dtype=dtype)[None]  # a batch of one
        return _spectral_norm(self._forward_one, self._adjoint_one, x, iterations, f"{type(self).__name__}'s")

    def _forward_one(self, x: torch.Tensor) -> torch.Tensor:
        """H x for a batch of one image ``(1, h, w)``, unchecked (the power iterations' inner map: the
        shapes are fixed once, and the checks of ``forward`` cost more than a small H)."""
        return self._returned("_forward(x)", self._forward(self._own(x)), x, self.measurement_shape, (1,))

    def _adjoint_one(self, y: torch.Tensor) -> torch.Tensor:
        """Hᵀ y for a batch of one measurement ``(1, *measurement_shape)``, unchecked."""
        return self._returned("_adjoint(y)", self._adjoint(self._own(y)), y, self.image_shape, (1,))

    def _check_written(self, name: str) -> None:
        """A tensor of the operator written in place since construction (``H.weight[0, 0] = 2.0``, finite and
        in range: the solve answered for another H than the problem was built with), refused naming it.
        Only the objects recorded at construction are compared (a private cache replaced later is not)."""
        for key, value in vars(self).items():
            if isinstance(value, LinearOperator):
                value._check_written(f"{name}.{key}")
        for key, (tensor, stamp) in self.__dict__.get("_fingerprints", {}).items():
            if self.__dict__.get(key) is tensor and _fingerprint(tensor) != stamp:
                raise ValueError(f"{name}.{key} was written in place after the {type(self).__name__} was "
                                 f"built; build a new operator")

    def _check_data(self, name: str = "operator") -> None:
        """The operator's own tensors (matrix, spectrum, signs, ...) still finite: checked at construction,
        they can be written in place afterwards (``H.weight[0, 0] = nan`` then met "y has entries too
        large", naming y); a solve re-checks them here, naming ``name`` and the attribute (O(data))."""
        for key, value in vars(self).items():
            if isinstance(value, LinearOperator):
                value._check_data(f"{name}.{key}")
            elif isinstance(value, torch.Tensor) and value.is_floating_point():
                data = value.values() if value.layout in (torch.sparse_csr, torch.sparse_coo) else value
                if data.device.type == "meta" or not bool(torch.isfinite(data).all()):
                    raise ValueError(f"{name}.{key} contains NaN or inf entries (written after the "
                                     f"{type(self).__name__} was built); build a new operator")
                check_entries_in_range(f"{name}.{key}", data)  # 1e300 written in place: an overflow
        self._check_written(name)

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        raise abstract_method(self, "_forward(x)", "H x for a batch x of shape (b, h, w), returning (b, "
                                                  "*measurement_shape)")

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        raise abstract_method(self, "_adjoint(y)", "Hᵀ y for a batch y of shape (b, *measurement_shape), "
                                                  "returning (b, h, w)")


class MatrixOperator(LinearOperator):
    """H given as a dense (m, n) matrix acting on flattened images (n = h·w).

    ``matrix`` is a 2-D floating tensor (m, n) of finite entries of magnitude <= 3.4e38; ``image_shape`` (h,
    w) is a pair of ints >= 2 with h·w <= 2**31 − 1.

    >>> import torch
    >>> H = MatrixOperator(torch.eye(4, dtype=torch.float64)[:2], (2, 2))
    >>> H(torch.arange(4.0, dtype=torch.float64).reshape(2, 2)).tolist()
    [0.0, 1.0]
    """

    def __init__(self, matrix: torch.Tensor, image_shape: tuple[int, int]) -> None:
        self.image_shape = _check_image_shape(image_shape)
        if not isinstance(matrix, torch.Tensor) or not matrix.is_floating_point() or matrix.ndim != 2:
            raise TypeError(f"matrix must be a 2-D floating torch.Tensor, got "
                            f"{getattr(matrix, 'dtype', type(matrix).__name__)} with shape "
                            f"{tuple(getattr(matrix, 'shape', ()))}")
        refuse_sparse("matrix", matrix)  # a sparse tensor reached torch's NotImplementedError (isfinite)
        if matrix.dtype not in (torch.float32, torch.float64) or matrix.device.type == "meta":
            # half precision was kept and upcast at every forward (the data already rounded to half); a meta
            # tensor has no data (its finiteness check raised torch's .item() error)
            raise TypeError(f"matrix must be a float32 or float64 tensor with data, got {matrix.dtype} on "
                            f"{matrix.device}")
        if matrix.shape[1] != self.in_features or matrix.shape[0] < 1:
            raise ValueError(f"matrix must have shape (m >= 1, {self.in_features}) for image_shape "
                             f"{self.image_shape}, got {tuple(matrix.shape)}")
        if not bool(torch.isfinite(matrix).all()):
            raise ValueError("matrix contains NaN or inf entries")
        check_entries_in_range("matrix", matrix)  # 1e300 entries: H x overflowed at the first use
        # a copy (detached): the caller's tensor edited after construction changed H, and a NaN written later
        # bypassed the check above
        self.weight = matrix.detach().clone()
        self.measurement_shape = (int(matrix.shape[0]),)

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(x.shape[0], -1) @ self.weight.to(x.dtype).T

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        return y @ self.weight.to(y.dtype)


def gaussian_cs(image_shape: tuple[int, int], ratio: float, seed: int,
                dtype: torch.dtype = torch.float64) -> MatrixOperator:
    """Compressive sensing with i.i.d. N(0, 1/n) entries and m = max(1, round(ratio·n)) rows.

    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``ratio`` in (0, 1] (a positive
    scale, so at least 1.18e-38: a tiny ratio keeps one row) is the fraction of rows; ``seed`` an int in
    [0, 2**64) draws the matrix; ``dtype`` is torch.float32 or torch.float64 (the matrix's).

    >>> gaussian_cs((4, 4), 0.5, seed=1).measurement_shape
    (8,)
    """
    h, w = _check_image_shape(image_shape)
    ratio, seed = _check_ratio(ratio), check_seed(seed)
    check_torch_dtype(dtype)  # torch.randn has no integer kernel: name dtype before it fails
    n = h * w
    m = max(1, round(ratio * n))
    # the (m, n) float64 matrix, its scaled copy and MatrixOperator's clone: refused before torch.randn
    check_fits_memory("gaussian_cs", "image_shape", image_shape, 24.0 * m * n)
    generator = torch.Generator().manual_seed(seed)
    return MatrixOperator(torch.randn(m, n, generator=generator, dtype=dtype) / math.sqrt(n), (h, w))


def _fwht(x: torch.Tensor) -> torch.Tensor:
    """Orthonormal fast Walsh-Hadamard transform along the last axis (length a power of two)."""
    n = x.shape[-1]
    out = x.clone()
    step = 1
    while step < n:
        out = out.reshape(*x.shape[:-1], n // (2 * step), 2, step)
        a, b = out[..., 0, :], out[..., 1, :]
        out = torch.stack((a + b, a - b), dim=-2).reshape(*x.shape[:-1], n)
        step *= 2
    return out / math.sqrt(n)


class SubsampledHadamard(LinearOperator):
    """Fast structured CS: H x = (W D x)[rows], W the orthonormal Walsh-Hadamard matrix, D random signs.

    The rows of W D are orthonormal, so the unselected rows span Null(H) exactly
    (:func:`algorithms.imaging.complement_rows`). ``h·w`` must be a power of two.
    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``ratio`` in (0, 1] is the fraction
    of rows kept, a positive scale, so at least 1.18e-38 (m = max(1, round(ratio·h·w)): a tiny ratio keeps one
    row; a subnormal one such as 1e-39 is refused naming ratio), ``seed`` (int in
    [0, 2**64)) draws D and the rows, and ``rows`` (optional: distinct int64 indices in [0, h·w)) gives the
    kept rows' indices instead.

    >>> import torch
    >>> H = SubsampledHadamard((4, 4), ratio=0.5, seed=0)
    >>> x = torch.randn(4, 4, dtype=torch.float64)
    >>> bool(torch.allclose(H.adjoint(H(x)).flatten() @ x.flatten(), (H(x) ** 2).sum()))
    True
    """

    def __init__(self, image_shape: tuple[int, int], ratio: float, seed: int,
                 rows: torch.Tensor | None = None) -> None:
        self.image_shape = _check_image_shape(image_shape)
        self.ratio, self.seed = _check_ratio(ratio), check_seed(seed)
        n = self.in_features
        if n & (n - 1):
            raise ValueError(f"image_shape must have h·w a power of two for SubsampledHadamard, "
                             f"got {self.image_shape} (h·w = {n})")
        # the signs (float64), a permutation (int64) and the FWHT's copies of an image: refused before
        check_fits_memory("SubsampledHadamard", "image_shape", image_shape, 48.0 * n)
        generator = torch.Generator().manual_seed(self.seed)
        self.signs = torch.randint(0, 2, (n,), generator=generator, dtype=torch.float64) * 2 - 1
        order = torch.randperm(n, generator=generator)
        if rows is None:
            rows = torch.sort(order[:max(1, round(self.ratio * n))]).values
        elif (not isinstance(rows, torch.Tensor) or rows.dtype != torch.int64 or rows.ndim != 1
              or rows.numel() < 1 or int(rows.min()) < 0 or int(rows.max()) >= n
              or rows.unique().numel() != rows.numel()):
            raise ValueError(f"rows must be distinct int64 indices in [0, {n}), got {rows!r}")
        self.rows = rows.clone()  # a copy: an edit of the caller's rows changed H
        self.measurement_shape = (int(rows.numel()),)

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        full = _fwht(x.reshape(x.shape[0], -1) * self.signs.to(x.dtype))
        return full[:, self.rows]

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        full = torch.zeros(y.shape[0], self.in_features, dtype=y.dtype)
        full[:, self.rows] = y
        return _fwht(full) * self.signs.to(y.dtype)


def gaussian_kernel_spectrum(image_shape: tuple[int, int], sigma: float) -> torch.Tensor:
    """The 2-D DFT (real, even) of a circular Gaussian kernel of std ``sigma`` pixels, centred at 0.

    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``sigma`` a float > 0 in
    [1.18e-38, 3.4e38] (a tiny one gives the delta kernel, spectrum 1; a huge one the flat kernel).

    >>> spectrum = gaussian_kernel_spectrum((8, 8), 1.0)
    >>> round(float(spectrum[0, 0]), 6)  # the kernel sums to one
    1.0
    """
    h, w = _check_image_shape(image_shape)
    sigma = check_positive("sigma", sigma)
    # the kernel (float64), its FFT (complex128) and the real spectrum: 2**30 pixels (40 GiB) ran into the
    # allocator (swap, then torch's RuntimeError naming nothing); refused before
    check_fits_memory("gaussian_kernel_spectrum", "image_shape", image_shape, 40.0 * h * w)
    rows = torch.minimum(torch.arange(h), h - torch.arange(h)).to(torch.float64)
    cols = torch.minimum(torch.arange(w), w - torch.arange(w)).to(torch.float64)
    # (r/σ)², not r²/(2σ²): σ² underflowed to 0 for σ = 1e-200 (0/0 = NaN spectrum, a NaN operator) and
    # overflowed Python's float for σ = 1e200 (OverflowError); the ratio is a delta / a flat kernel there
    kernel = torch.exp(-0.5 * ((rows / sigma)[:, None] ** 2 + (cols / sigma)[None, :] ** 2))
    kernel = kernel / kernel.sum()
    return torch.fft.fft2(kernel).real  # the kernel is even, so its spectrum is real


class _Filter(LinearOperator):
    """Circular convolution by a real even spectrum (self-adjoint)."""

    spectrum: torch.Tensor

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.ifft2(torch.fft.fft2(x) * self.spectrum.to(x.dtype)).real

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        return self._forward(y)


class Blur(_Filter):
    """Circular Gaussian blur of std ``sigma`` pixels: H x = b ⊛ x, by FFT (H is symmetric).

    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``sigma`` is a float > 0 in
    the working range [1.18e-38, 3.4e38] (0, a subnormal such as 1e-39, NaN, inf and anything above 3.4e38
    refused by name). Both ends are valid limits: a ``sigma`` far below one pixel (down to 1.18e-38) gives
    the delta kernel, H = I; one far above the image size (up to 3.4e38) the flat kernel, H x = the mean of
    x in every pixel.

    >>> import torch
    >>> H = Blur((8, 8), sigma=1.0)
    >>> round(float(H(torch.ones(8, 8, dtype=torch.float64)).mean()), 6)
    1.0
    """

    def __init__(self, image_shape: tuple[int, int], sigma: float) -> None:
        self.image_shape = _check_image_shape(image_shape)
        self.sigma = check_positive("sigma", sigma)
        self.spectrum = gaussian_kernel_spectrum(self.image_shape, self.sigma)
        self.measurement_shape = self.image_shape


class HighPass(_Filter):
    """The paper's S for blur and super-resolution: S = I − B, the filter δ − b (Section 3.1).

    Not exactly in Null(B) for a Gaussian b (its spectrum never vanishes); the
    leakage is measured by :func:`algorithms.imaging.null_space_leakage`.
    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``sigma`` (a float > 0 in
    [1.18e-38, 3.4e38]) is b's std in pixels (a tiny ``sigma`` gives S = 0, a huge one S = I − mean: valid
    limits).
    """

    def __init__(self, image_shape: tuple[int, int], sigma: float) -> None:
        self.image_shape = _check_image_shape(image_shape)
        self.sigma = check_positive("sigma", sigma)
        self.spectrum = 1.0 - gaussian_kernel_spectrum(self.image_shape, self.sigma)
        self.measurement_shape = self.image_shape


class SuperResolution(LinearOperator):
    """H = D B: Gaussian blur of std ``sigma`` then keeping every ``factor``-th pixel in each axis.

    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1, each divisible by ``factor`` (an int
    >= 2); ``sigma`` is a float > 0 in [1.18e-38, 3.4e38] (its limits as :class:`Blur`'s).

    >>> SuperResolution((8, 8), factor=2, sigma=1.0).measurement_shape
    (4, 4)
    """

    def __init__(self, image_shape: tuple[int, int], factor: int, sigma: float) -> None:
        self.image_shape = _check_image_shape(image_shape)
        if isinstance(factor, bool) or not isinstance(factor, int | np.integer) or factor < 2:
            raise ValueError(f"factor must be an int >= 2, got {factor!r}")
        if self.image_shape[0] % factor or self.image_shape[1] % factor:
            raise ValueError(f"image_shape {self.image_shape} must be divisible by factor {factor}")
        self.factor = int(_plain_number(factor))
        self.blur = Blur(self.image_shape, sigma)
        self.sigma = self.blur.sigma
        self.measurement_shape = (self.image_shape[0] // factor, self.image_shape[1] // factor)

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blur._forward(x)[:, ::self.factor, ::self.factor]

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        up = torch.zeros(y.shape[0], *self.image_shape, dtype=y.dtype)
        up[:, ::self.factor, ::self.factor] = y
        return self.blur._adjoint(up)


class Radon(LinearOperator):
    """Parallel-beam CT: line integrals at ``angles`` (degrees), ``h`` detector bins per angle.

    Each ray through the image centre's rotated frame is sampled at unit spacing and
    each sample's value is bilinearly interpolated; the whole map is one sparse matrix,
    so the adjoint (back-projection) is its exact transpose. Pixels outside the
    inscribed circle are not seen (as in ``skimage.transform.radon(circle=True)``).
    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``angles`` is a non-empty 1-D
    sequence of finite angles in degrees, each of magnitude <= 3.4e38 (the working range), taken modulo 360°
    exactly (1e20° is the angle 280°; a repeated angle is a repeated measurement, valid: H then has
    equal rows, which the null-space tools handle as rank deficiency).

    >>> op = Radon((16, 16), angles=[0.0, 90.0])
    >>> op.measurement_shape
    (2, 16)
    """

    def __init__(self, image_shape: tuple[int, int], angles: Any) -> None:
        self.image_shape = _check_image_shape(image_shape)
        if self.image_shape[0] != self.image_shape[1]:
            raise ValueError(f"image_shape must be square for Radon, got {self.image_shape}")
        if hasattr(angles, "detach"):  # meta, sparse and bfloat16 (numpy has none) refused by name
            angles = as_array("angles", angles)
        _refuse_masked("angles", angles)  # np.asarray drops the mask: a masked angle would be measured
        refuse_bools_in_sequence("angles", angles)  # [True, 45] was read as [1.0, 45.0]
        # numeric only: a str such as '0' would otherwise be parsed as a number, complex truncated
        try:
            array = np.asarray(angles) if not isinstance(angles, str | bytes) else np.asarray([angles])
        except Exception as exc:  # ragged lists, an __array__ that raises: named here
            raise TypeError(f"angles must be a sequence of degrees (real numbers): {exc}") from None
        if array.dtype == object and not isinstance(angles, str | bytes):
            # ints past int64 (2**64, a real inside the working range) and Fractions: numbers, as elsewhere
            array = as_float_array("angles", angles, check_range=False)
        if array.dtype == object or not (np.issubdtype(array.dtype, np.integer)
                                         or np.issubdtype(array.dtype, np.floating)):
            raise TypeError(f"angles must be a sequence of degrees (real numbers), got "
                            f"{type(angles).__name__} {angles!r}")
        if array.ndim != 1:  # a 2-D array was flattened into angles, a scalar taken as one, in silence
            raise ValueError(f"angles must be a 1-D sequence of degrees, got shape {array.shape}")
        angles = array.astype(np.float64).reshape(-1)
        if angles.size < 1 or not np.all(np.isfinite(angles)):
            raise ValueError(f"angles must be a non-empty sequence of finite degrees, got {angles!r}")
        check_entries_in_range("angles", angles)
        angles = read_only(angles)  # what the sparse map was built from: an edit in place would belie it
        self.angles = angles
        size = self.image_shape[0]
        # up to 4 bilinear weights per sample, size² samples per angle, each an (int64, int64, float64) triple
        # built in numpy then torch (a few copies): refused before the loop over angles
        check_fits_memory("Radon", "image_shape", image_shape, 200.0 * angles.size * size * size)
        self.measurement_shape = (angles.size, size)
        self.sparse = self._build(size, angles)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self.sparse_t = self.sparse.to_sparse_coo().t().coalesce().to_sparse_csr()

    def __reduce__(self):
        # rebuilt from its arguments: copy.deepcopy of the sparse CSR matrices raised NotImplementedError
        return (type(self), (self.image_shape, self.angles.copy()))

    @staticmethod
    def _build(size: int, angles: np.ndarray) -> torch.Tensor:
        centre = size // 2  # the rotation centre of skimage.transform.radon
        offsets = np.arange(size) - centre  # detector positions and sample positions along a ray
        rows, cols, vals = [], [], []
        t, s = np.meshgrid(offsets, offsets, indexing="ij")  # (detector, sample)
        # reduced modulo 360° before the conversion (np.fmod is exact for every float): 1e20·π/180 kept no
        # digits below 2π, the geometry of another angle (1e20° is 280° exactly; red23a)
        for a, theta in enumerate(np.deg2rad(np.fmod(angles, 360.0))):
            # image coordinates (row, col) of sample s on ray t
            col = centre + t * np.cos(theta) - s * np.sin(theta)
            row = centre - t * np.sin(theta) - s * np.cos(theta)
            inside = (t**2 + s**2) <= centre**2 + 1e-9
            r0, c0 = np.floor(row).astype(int), np.floor(col).astype(int)
            fr, fc = row - r0, col - c0
            for dr, dc, weight in ((0, 0, (1 - fr) * (1 - fc)), (0, 1, (1 - fr) * fc),
                                   (1, 0, fr * (1 - fc)), (1, 1, fr * fc)):
                rr, cc = r0 + dr, c0 + dc
                ok = inside & (rr >= 0) & (rr < size) & (cc >= 0) & (cc < size) & (weight > 0)
                det = np.broadcast_to(np.arange(size)[:, None], t.shape)[ok]
                rows.append(a * size + det)
                cols.append(rr[ok] * size + cc[ok])
                vals.append(weight[ok])
        indices = torch.from_numpy(np.stack([np.concatenate(rows), np.concatenate(cols)]))
        with warnings.catch_warnings():  # torch flags sparse CSR as beta; the matrix is built valid
            warnings.simplefilter("ignore", UserWarning)
            matrix = torch.sparse_coo_tensor(indices, torch.from_numpy(np.concatenate(vals)),
                                             (angles.size * size, size * size), check_invariants=True)
            return matrix.coalesce().to_sparse_csr()

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        out = (self.sparse.to(x.dtype) @ x.reshape(x.shape[0], -1).T).T
        return out.reshape(x.shape[0], *self.measurement_shape)

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        return (self.sparse_t.to(y.dtype) @ y.reshape(y.shape[0], -1).T).T


def cartesian_mask(image_shape: tuple[int, int], acceleration: float, seed: int,
                   centre_lines: int | None = None) -> torch.Tensor:
    """A boolean k-space mask of whole rows (phase-encoding lines), conjugate-symmetric.

    ``image_shape`` (h, w) is a pair of ints >= 2 with h·w <= 2**31 − 1; ``seed`` an int in [0, 2**64).

    About ``h / acceleration`` rows are kept (``acceleration``: a float in [1, 3.4e38]; a huge one keeps the
    centre lines only, at least the DC row): the ``centre_lines`` lowest frequencies (an int in
    [0, h]; None: min(4, h)) and
    random others, each with its mirror row −k (mod h), so that the mask equals its
    point reflection and the complement's rows are exactly orthogonal to H's on real images.

    >>> mask = cartesian_mask((16, 16), acceleration=4, seed=0)
    >>> int(mask[:, 0].sum()), MaskedFourier(mask).conjugate_symmetric
    (5, True)
    """
    h, w = _check_image_shape(image_shape)
    acceleration = check_positive("acceleration", acceleration)
    if acceleration < 1:
        raise ValueError(f"acceleration must be >= 1, got {acceleration!r}")
    seed = check_seed(seed)
    centre_lines = min(4, h) if centre_lines is None else centre_lines
    if isinstance(centre_lines, bool) or not isinstance(centre_lines, int | np.integer) \
            or not 0 <= centre_lines <= h:
        raise ValueError(f"centre_lines must be an int in [0, h = {h}], got {centre_lines!r}")
    rng = np.random.default_rng(seed)
    keep = {0}
    for k in range(1, centre_lines // 2 + 1):
        keep |= {k % h, (-k) % h}
    target = max(1, round(h / acceleration))
    candidates = rng.permutation(np.arange(1, h // 2 + 1))
    for k in candidates:
        if len(keep) >= target:
            break
        keep |= {int(k) % h, int(-k) % h}
    mask = torch.zeros(h, w, dtype=torch.bool)
    mask[sorted(keep), :] = True
    return mask


class MaskedFourier(LinearOperator):
    """Single-coil MRI: the orthonormal 2-D DFT of a real image at the k-space points of ``mask``.

    Measurements are real pairs, shape ``(2, m)``: real and imaginary parts of the m
    sampled coefficients. The adjoint zero-fills and takes the real part of the
    inverse DFT, which is exact for the real inner product.

    >>> import torch
    >>> op = MaskedFourier(cartesian_mask((8, 8), 2, seed=0))
    >>> op.measurement_shape[0]
    2
    """

    def __init__(self, mask: torch.Tensor) -> None:
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.ndim != 2:
            raise TypeError(f"mask must be a 2-D boolean torch.Tensor, got "
                            f"{getattr(mask, 'dtype', type(mask).__name__)}")
        refuse_sparse("mask", mask)  # a sparse mask failed later, inside the FFT indexing
        if mask.device.type == "meta":  # torch's .item() error named nothing
            raise ValueError("mask is on the meta device (no data); move it to a real device")
        try:
            self.image_shape = _check_image_shape(tuple(mask.shape))
        except ValueError:
            raise ValueError(f"mask must be an (h, w) k-space mask with h, w >= 2, got shape "
                             f"{tuple(mask.shape)}") from None
        if not bool(mask.any()):
            raise ValueError("mask must select at least one k-space point, got an empty mask")
        # a private copy: an edit of the caller's mask changed H (and its measurement shape), and one of
        # op.mask in place met "_forward(x) must return a tensor of shape (1, 2, 40)", naming no mask
        self._mask = mask.clone()
        self.measurement_shape = (2, int(mask.sum()))

    @property
    def mask(self) -> torch.Tensor:
        """The k-space mask (a copy: the operator's own is fixed at construction)."""
        return self._mask.clone()

    @property
    def conjugate_symmetric(self) -> bool:
        """Whether the mask equals its point reflection k -> -k (mod the image size)."""
        reflected = torch.roll(self._mask.flip(0).flip(1), shifts=(1, 1), dims=(0, 1))
        return bool((reflected == self._mask).all())

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        coefficients = torch.fft.fft2(x, norm="ortho")[:, self._mask]
        return torch.stack((coefficients.real, coefficients.imag), dim=1)

    def _adjoint(self, y: torch.Tensor) -> torch.Tensor:
        complex_dtype = torch.complex128 if y.dtype == torch.float64 else torch.complex64
        full = torch.zeros(y.shape[0], *self.image_shape, dtype=complex_dtype)
        full[:, self._mask] = torch.complex(y[:, 0], y[:, 1])
        return torch.fft.ifft2(full, norm="ortho").real
