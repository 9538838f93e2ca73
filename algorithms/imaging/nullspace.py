"""Null spaces of sensing operators and the projection matrices S of NPN (paper Section 3.1).

S is a :class:`~algorithms.imaging.operators.LinearOperator` whose rows should lie in
Null(H), i.e. H Sᵀ = 0. Builders, one per operator structure:

* :func:`qr_null_rows` — Algorithm 1 (Appendix A.2): a full QR of Hᵀ gives a basis N of
  Null(H); p random orthonormal combinations of it give S = Uᵀ Nᵀ (small dense operators);
* :func:`pca_null_rows` — our data-adaptive variant (a gap the paper fills by learning S with
  eq. (3)): the p leading principal directions of the null-space components N Nᵀ x of training
  images, exactly orthogonal to H by construction;
* :func:`complement_rows` — the unselected Hadamard rows (fast CS);
* :func:`complement_frequencies` — the unsampled k-space points (MRI);
* :func:`complement_angles` — the Radon rows of the non-acquired angles (the paper's CT design);
* :func:`highpass` — S = I − B for blur and super-resolution (the paper's design).

The last two are *not* exactly in Null(H) (Radon rows at different angles are not orthogonal;
a Gaussian spectrum never vanishes): :func:`null_space_leakage` measures how far any S is from
it, and :class:`algorithms.imaging.NPN` refuses an S whose leakage exceeds its ``max_leakage``.

>>> from algorithms.imaging.operators import gaussian_cs
>>> H = gaussian_cs((4, 4), 0.5, seed=0)
>>> S = qr_null_rows(H, p=3, seed=0)
>>> null_space_leakage(H, S) < 1e-12
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    _plain_number,
    check_finite_data,
    check_fits_memory,
    check_seed,
    refuse_sparse,
    refuse_unknown_attribute,
)
from algorithms.imaging.operators import (
    Blur,
    HighPass,
    LinearOperator,
    MaskedFourier,
    MatrixOperator,
    Radon,
    SubsampledHadamard,
    SuperResolution,
    _spectral_norm,
    check_power_iterations,
)

__all__ = [
    "NullSpaceProjector",
    "complement_angles",
    "complement_frequencies",
    "complement_rows",
    "highpass",
    "null_space_basis",
    "null_space_leakage",
    "pca_null_rows",
    "qr_null_rows",
]

#: singular values below this fraction of the largest count as zero (rank of a dense H)
_RANK_RTOL = 1e-10


def _check_operator(name: str, value: Any, kind: type | tuple[type, ...] = LinearOperator) -> None:
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise TypeError(f"{name} must be a {names}, got {type(value).__name__}")


def null_space_basis(operator: LinearOperator) -> torch.Tensor:
    """An orthonormal basis N (n, n − rank H) of Null(H), from a full QR of Hᵀ (Algorithm 1, steps 1-2).

    ``operator`` is H, a :class:`LinearOperator` (its dense matrix is formed).

    The rank is read from the SVD so that a rank-deficient H (dependent rows) is handled: the numerical rank,
    the singular values above 1e-10·σ_max (relative, so any scale of H gives the same basis; directions H
    shrinks below that, e.g. a wide blur's highest frequencies, count as null; H = 0 gives the identity),
    after each row of H is brought to about unit size by a power of two (Null(H) unchanged; rows of ordinary
    size, entries up to 2**-10 .. 2**10, are left as they are), so one row of 1e30 (or of 1e-30) beside
    ordinary rows does not make their directions null (or its own).
    At most MAX_DENSE_PIXELS = 1024 pixels (32 × 32; larger operators are refused by name: an n × n QR runs
    minutes).

    >>> from algorithms.imaging.operators import gaussian_cs
    >>> null_space_basis(gaussian_cs((4, 4), 0.25, seed=0)).shape
    torch.Size([16, 12])
    """
    _check_operator("operator", operator)
    n, m = operator.in_features, operator.out_features
    if n > MAX_DENSE_PIXELS:  # a 64×64 blur fit in memory, and its n × n QR ran for 8 minutes (a hang)
        raise ValueError(f"operator must act on at most {MAX_DENSE_PIXELS} pixels for a dense null-space "
                         f"basis (an n × n QR/SVD), got a {type(operator).__name__} on {n} pixels "
                         f"{operator.image_shape}; use the analytic complements (complement_rows, "
                         f"complement_frequencies, highpass) for large images")
    # the dense (m, n) matrix, its identity columns, and a full QR/SVD's n × n factor: a 256×256 blur
    # (n = 65536, 32 GiB per n × n) ran into the allocator; refused before
    check_fits_memory("null_space_basis", "operator", f"{type(operator).__name__} with {n} pixels",
                      8.0 * (2 * n * n + 2 * m * n))
    # each row brought to about unit size by a power of two (exact, and D·H has H's null space; rows of
    # ordinary size, 2**-10 to 2**10, unchanged): one row of 1e30 made the others' singular values fall below
    # 1e-10·σ_max, and a direction H maps to 1 was returned as null
    matrix = operator.matrix(torch.float64)
    top = matrix.abs().amax(dim=1, keepdim=True) if matrix.numel() else matrix[:, :1]
    exponent = torch.round(torch.log2(torch.where(top > 0, top, torch.ones_like(top))))
    ordinary = (exponent >= -10) & (exponent <= 10)
    matrix = matrix / torch.where(ordinary, torch.ones_like(top), torch.exp2(exponent))
    singular = torch.linalg.svdvals(matrix)
    rank = int((singular > _RANK_RTOL * singular.max()).sum()) if singular.numel() else 0
    if rank == matrix.shape[0]:
        q, _ = torch.linalg.qr(matrix.T, mode="complete")
        return q[:, rank:]
    _, _, vh = torch.linalg.svd(matrix, full_matrices=True)  # dependent rows: QR would mislead
    return vh[rank:].T


#: the most pixels a dense null-space basis takes (32 × 32, the claims' largest: seconds; 64 × 64 took 8
#: minutes on a loaded 2-core machine, 128 × 128 would take hours)
MAX_DENSE_PIXELS = 1024


def _check_p(p: Any, available: int) -> int:
    if isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 1:
        raise ValueError(f"p must be a positive int, got {p!r}")
    if p > available:
        raise ValueError(f"p must be <= {available} (the dimension of Null(H)), got {p}")
    return int(_plain_number(p))


def qr_null_rows(operator: LinearOperator, p: int, seed: int) -> MatrixOperator:
    """Algorithm 1: S = Uᵀ Nᵀ, p orthonormal rows spanning a random p-dimensional subspace of Null(H).

    ``operator`` is H, a :class:`LinearOperator`; ``p`` (int >= 1, at most dim Null(H)) rows; ``seed`` an
    int in [0, 2**64).

    >>> from algorithms.imaging.operators import gaussian_cs
    >>> S = qr_null_rows(gaussian_cs((4, 4), 0.5, seed=0), p=2, seed=1)
    >>> bool(torch.allclose(S.weight @ S.weight.T, torch.eye(2, dtype=torch.float64)))
    True
    """
    basis = null_space_basis(operator)
    p, seed = _check_p(p, basis.shape[1]), check_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    u, _ = torch.linalg.qr(torch.randn(basis.shape[1], p, generator=generator, dtype=torch.float64))
    return MatrixOperator((basis @ u).T.contiguous(), operator.image_shape)


def pca_null_rows(operator: LinearOperator, p: int, images: torch.Tensor) -> MatrixOperator:
    """S from the p leading principal directions of the null-space parts N Nᵀ x of ``images``.

    ``operator`` is H, a :class:`LinearOperator`; ``p`` (int >= 1, at most dim Null(H)) rows; ``images`` a
    finite (N, h, w) tensor of N >= p + 1 images (N centred images span at most N − 1 directions) whose
    null-space parts vary in at least p directions (identical or constant images are refused): p singular
    values of the centred null-space coefficients above 1e-10 times the norm of the uncentred ones (a
    variation below that, e.g. images of a common offset 1e12 varying by 1, is refused by name).

    The rows are orthonormal and in Null(H) exactly; they are the null-space directions in
    which the training images vary most (our stand-in for the learned S of eq. (3)).

    >>> from algorithms.imaging.operators import gaussian_cs
    >>> H = gaussian_cs((4, 4), 0.5, seed=0)
    >>> S = pca_null_rows(H, 2, torch.randn(20, 4, 4, dtype=torch.float64))
    >>> null_space_leakage(H, S) < 1e-12
    True
    """
    basis = null_space_basis(operator)
    p = _check_p(p, basis.shape[1])
    if not isinstance(images, torch.Tensor) or not images.is_floating_point():
        raise TypeError(f"images must be a floating torch.Tensor, got {type(images).__name__}")
    if images.ndim != 3 or tuple(images.shape[1:]) != operator.image_shape or images.shape[0] < 2:
        raise ValueError(f"images must have shape (k >= 2, {operator.image_shape[0]}, "
                         f"{operator.image_shape[1]}), got {tuple(images.shape)}")
    check_finite_data("images", images)  # NaN: the SVD's LinAlgError named nothing; meta: torch's .item()
    if images.shape[0] - 1 < p:  # 2 images for p = 4: 3 of the rows were the SVD's arbitrary completion
        raise ValueError(f"images must hold at least p + 1 = {p + 1} images (k centred images span at most "
                         f"k − 1 principal directions; the other rows would be arbitrary), got "
                         f"{images.shape[0]} for p = {p}")
    coefficients = images.reshape(images.shape[0], -1).to(torch.float64) @ basis  # (k, n - rank)
    # the centred images must vary in p null-space directions: identical or constant images (rank 0), or
    # fewer distinct directions than p, left rows p' > rank as the SVD's arbitrary completion, in silence;
    # "vary" is relative to the images' own null-space part (the centring leaves rounding of that size)
    scale = float(torch.linalg.matrix_norm(coefficients, ord=2)) if coefficients.numel() else 0.0
    coefficients = coefficients - coefficients.mean(0)
    singular, vh = torch.linalg.svd(coefficients, full_matrices=True)[1:]
    rank = int((singular > 1e-10 * max(scale, float(torch.finfo(torch.float64).tiny))).sum())
    if rank < p:
        raise ValueError(f"images must vary in at least p = {p} null-space directions (their centred "
                         f"projections onto Null(H) have rank {rank}); the other rows would be arbitrary: "
                         f"use more varied images or a smaller p")
    return MatrixOperator((basis @ vh[:p].T).T.contiguous(), operator.image_shape)


def complement_rows(operator: SubsampledHadamard, p: int | None = None, seed: int = 0) -> SubsampledHadamard:
    """The Hadamard rows H does not select (p of them at random, all when ``p`` is None).

    ``operator`` is the acquired :class:`SubsampledHadamard`; ``p`` an int in [1, number of unselected
    rows] or None; ``seed`` an int in [0, 2**64).

    >>> H = SubsampledHadamard((4, 4), 0.25, seed=0)
    >>> complement_rows(H).measurement_shape
    (12,)
    """
    _check_operator("operator", operator, SubsampledHadamard)
    seed = check_seed(seed)  # checked even when p is None leaves it unused
    unused = torch.tensor(sorted(set(range(operator.in_features)) - set(operator.rows.tolist())),
                          dtype=torch.int64)
    if unused.numel() == 0:
        raise ValueError("operator selects every Hadamard row: Null(H) is {0}, there is no complement")
    if p is not None:
        p = _check_p(p, unused.numel())
        generator = torch.Generator().manual_seed(seed)
        unused = torch.sort(unused[torch.randperm(unused.numel(), generator=generator)[:p]]).values
    return SubsampledHadamard(operator.image_shape, operator.ratio, operator.seed, rows=unused)


def complement_frequencies(operator: MaskedFourier) -> MaskedFourier:
    """S samples the k-space points H does not; exact null rows when the mask is conjugate-symmetric.

    ``operator`` is the acquired :class:`MaskedFourier` (conjugate-symmetric mask).

    On real images the DFT at −k is the conjugate of that at k, so a mask that keeps k but
    not −k would let S see part of what H sees; such a mask is refused.

    >>> from algorithms.imaging.operators import cartesian_mask
    >>> H = MaskedFourier(cartesian_mask((8, 8), 2, seed=0))
    >>> complement_frequencies(H).measurement_shape[1] + H.measurement_shape[1]
    64
    """
    _check_operator("operator", operator, MaskedFourier)
    if not operator.conjugate_symmetric:
        raise ValueError("operator's mask must be conjugate-symmetric (mask[k] == mask[-k]) for its "
                         "complement to lie in Null(H); use algorithms.imaging.cartesian_mask")
    if bool(operator.mask.all()):
        raise ValueError("operator samples every k-space point: Null(H) is {0}, there is no complement")
    return MaskedFourier(~operator.mask)


def complement_angles(operator: Radon, angles: Any) -> Radon:
    """The paper's CT design: S is the Radon transform at the non-acquired ``angles``.

    ``operator`` is the acquired :class:`Radon`; ``angles`` (finite degrees, 1-D, non-empty) the others.

    Not in Null(H) exactly (rays at nearby angles overlap); see :func:`null_space_leakage`. An angle equal
    to an acquired one modulo 180° (compared after rounding to 1e-9°) is refused: its rows would be H's.

    >>> complement_angles(Radon((8, 8), [0.0]), [90.0]).measurement_shape
    (1, 8)
    """
    _check_operator("operator", operator, Radon)
    other = Radon(operator.image_shape, angles)
    shared = np.intersect1d(np.round(other.angles % 180.0, 9), np.round(operator.angles % 180.0, 9))
    if shared.size:
        raise ValueError(f"angles must not repeat the operator's acquired angles, got {shared.tolist()}")
    return other


def highpass(operator: Blur | SuperResolution) -> HighPass:
    """The paper's S for deblurring and super-resolution: the filter δ − b of the operator's blur b.

    >>> highpass(Blur((8, 8), 1.0)).measurement_shape
    (8, 8)
    """
    _check_operator("operator", operator, (Blur, SuperResolution))
    return HighPass(operator.image_shape, operator.sigma)


def null_space_leakage(operator: LinearOperator, projection: LinearOperator, iterations: int = 60,
                       seed: int = 0) -> float:
    """‖H Sᵀ‖₂ / (‖H‖₂ ‖S‖₂): 0 when the rows of S lie in Null(H), up to 1 (power iteration).

    ``operator`` is H, a :class:`LinearOperator` and ``projection`` S another on the same image shape;
    ``iterations`` (an int in [1, 10**5]) power steps; ``seed`` an int in [0, 2**64) for the start vector.

    An estimate (power iteration for ‖H Sᵀ‖₂, ‖H‖₂ and ‖S‖₂ from :meth:`LinearOperator.norm`): exact to
    rounding when each top singular value is well separated, slow when the top two are close (60 steps were
    up to 1.6 % off the dense value on 8×8 Gaussian matrices); raise ``iterations`` for accuracy there.

    Scale-free: the power iteration runs on (H/‖H‖)(S/‖S‖)ᵀ with each half-step rescaled, so
    ``null_space_leakage(c·H, d·S)`` equals ``null_space_leakage(H, S)`` for any c, d > 0 that keep the
    operators' data in the working range (a :class:`MatrixOperator`'s entries are at most 3.4e38; a subclass
    whose map scales further keeps the identity while its norm is in ~[1e-290, 1e290]) (the earlier iteration
    on S Hᵀ H Sᵀ, and ‖H‖ from HᵀH, underflowed for ‖H‖ below ~1e-77 and answered a false 0.0, "S in
    Null(H)"). 0.0 when H = 0 or S = 0.

    >>> from algorithms.imaging.operators import gaussian_cs
    >>> H = gaussian_cs((4, 4), 0.5, seed=0)
    >>> round(null_space_leakage(H, H), 6)
    1.0
    """
    _check_operator("operator", operator)
    _check_operator("projection", projection)
    if projection.image_shape != operator.image_shape:
        raise ValueError(f"projection must act on images of shape {operator.image_shape} (operator's), "
                         f"got image_shape {projection.image_shape}")
    if isinstance(iterations, bool) or not isinstance(iterations, int | np.integer) or iterations < 1:
        # with no iteration the estimate would stay 0, i.e. "S lies in Null(H)" for any S
        raise ValueError(f"iterations must be an int >= 1, got {iterations!r}")
    iterations = check_power_iterations(iterations)  # 2**40 ran for ever
    seed = check_seed(seed)  # an int: torch's manual_seed below refuses numpy integers
    norm_h, norm_s = operator.norm(seed=seed), projection.norm(seed=seed)  # power-iteration estimates
    if norm_h == 0.0 or norm_s == 0.0:
        return 0.0  # H Sᵀ = 0
    generator = torch.Generator().manual_seed(seed)
    z = torch.randn(projection.measurement_shape, generator=generator, dtype=torch.float64)[None]  # batch 1
    # the operators' unchecked maps on a batch of one (shapes fixed above): this runs on every NPN solve
    value = _spectral_norm(lambda v: operator._forward_one(projection._adjoint_one(v) / norm_s) / norm_h,
                           lambda w: projection._forward_one(operator._adjoint_one(w) / norm_h) / norm_s,
                           z, iterations, f"operator ({type(operator).__name__}) or projection "
                           f"({type(projection).__name__}):")
    return min(1.0, value)


class NullSpaceProjector:
    """P = I − H⁺H, the orthogonal projector onto Null(H), for small operators (dense).

    ``operator`` is H, a :class:`LinearOperator` (its dense matrix is formed: h·w pixels squared).
    ``P(x)`` takes finite floating images x of shape (*batch, h, w) and returns P x in x's dtype (computed in
    float64); a P x whose entries pass that dtype's range (float32 images near 3e38) is refused naming x.

    >>> from algorithms.imaging.operators import gaussian_cs
    >>> H = gaussian_cs((4, 4), 0.5, seed=0)
    >>> P = NullSpaceProjector(H)
    >>> x = torch.randn(4, 4, dtype=torch.float64)
    >>> float(torch.linalg.vector_norm(H(P(x)))) < 1e-12
    True
    """

    def __init__(self, operator: LinearOperator) -> None:
        basis = null_space_basis(operator)
        self._image_shape = operator.image_shape
        # private: P written in place (×3) was answered as the projector (red12a); ``matrix`` is a copy
        self._matrix = basis @ basis.T

    def __setattr__(self, name: str, value: Any) -> None:
        # P.image_shapee = ... was stored and ignored: a name the projector does not take is refused
        refuse_unknown_attribute(self, name, ())
        object.__setattr__(self, name, value)

    @property
    def image_shape(self) -> tuple[int, int]:
        """(h, w) of H's images (fixed: P.image_shape = (2, 8) projected 2×8 images with the 4×4 geometry)."""
        return self._image_shape

    @image_shape.setter
    def image_shape(self, value: Any) -> None:
        raise ValueError(f"image_shape is fixed by the NullSpaceProjector's construction "
                         f"({self._image_shape!r}); build a new NullSpaceProjector instead, got "
                         f"{value!r:.40}")

    @property
    def matrix(self) -> torch.Tensor:
        """P = N Nᵀ, (n, n) float64 (a copy: the projector's own is fixed at construction)."""
        return self._matrix.clone()

    @matrix.setter
    def matrix(self, value: Any) -> None:
        raise ValueError("matrix is fixed by the NullSpaceProjector's construction (the projector onto "
                         "Null(H)); build a new NullSpaceProjector instead")

    def __repr__(self) -> str:  # the projector's size and rank, not "<... object at 0x...>"
        rank = round(float(torch.trace(self._matrix)))  # P is an orthogonal projector: trace = rank
        return f"NullSpaceProjector(image_shape={self.image_shape!r}, nullity={rank})"

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            raise TypeError(f"x must be a floating torch.Tensor, got {type(x).__name__}")
        refuse_sparse("x", x)  # torch's "reshape is not implemented for sparse tensors" named nothing
        if tuple(x.shape[-2:]) != self.image_shape:
            raise ValueError(f"x must have shape (*batch, {self.image_shape[0]}, {self.image_shape[1]}), "
                             f"got {tuple(x.shape)}")
        check_finite_data("x", x)  # P x of a NaN image: all NaN; of a meta tensor: a meta tensor
        flat = x.reshape(-1, math.prod(self.image_shape))
        # in float64, rounded once to x's dtype: a float32 sum of n terms overflowed to inf where P x itself
        # fits; a P x past the dtype's range (a constant float32 image of 3e38 has entries 4.1e38) is refused
        out = (flat.to(torch.float64) @ self._matrix).to(x.dtype).reshape(x.shape)
        if not bool(torch.isfinite(out).all()):
            raise ValueError(f"x has entries too large for {x.dtype}: P x overflows it (max |x| = "
                             f"{float(x.detach().abs().max()):.3g}); rescale x or pass a float64 x")
        return out
