"""Orthogonally separable data and neural-collapse (NC) metrics of hidden-layer features.

Data
----
A labelled set ``{(x_i, y_i)}`` is *orthogonally separable* (Phuong & Lampert,
ICLR 2021; Assumption 1 of Min, Zhu & Vidal, NeurIPS 2025) when

    y_i = y_j  =>  <x_i, x_j> > 0,        y_i != y_j  =>  <x_i, x_j> <= 0.

:func:`orthogonally_separable_data` draws such sets for any number of classes
``K`` (binary is ``K = 2``), with a guarantee by construction: class ``k`` is a
cloud around a unit centre ``c_k``, the centres have pairwise correlation
``rho <= 0``, and each class gets its noise in its own block of directions,
orthogonal to every centre and to the other classes' blocks, so that

    <x, x'> = a a' (1 + s s' <z, z'>)  >= a a' (1 - spread²) > 0   (same class),
    <x, x'> = a a' rho  <= 0                                       (different classes),

with ``a`` the point's scale, ``s <= spread < 1`` its noise level and ``z`` unit noise.
:func:`interleaved_sector_data` draws data that break the assumption
(classes alternate in angular sectors of one quarter plane, so points of
different classes are positively correlated); the negative controls use it.
:func:`orthogonal_separability` measures both margins.

Metrics (rows of ``H`` are the features of the samples, ``y`` the classes)
-------------------------------------------------------------------------
With class means ``μ_k``, global mean ``μ_G``,
``Σ_W = (1/n) Σ_i (h_i - μ_{y_i})(h_i - μ_{y_i})ᵀ`` and
``Σ_B = (1/K) Σ_k (μ_k - μ_G)(μ_k - μ_G)ᵀ``:

* ``nc1(H, y) = tr(Σ_W Σ_B⁺) / K`` (Papyan, Han & Donoho 2020);
  ``nc1(H, y, normalize=True)`` applies it to the directions ``h_i / ||h_i||``
  (the paper's collapse is *directional*: features of a class become
  collinear, their norms may differ).
* ``within_class_ratio(H, y) = tr(Σ_W) / tr(Σ_B)``: the same idea without the
  pseudo-inverse, which for ``K = 2`` only sees one direction.
* ``mean_cosines(means)``: the matrix of cosines between (uncentred) class
  means; the paper predicts orthogonal means (cosines 0).
* ``etf_distance(means)``: Frobenius distance between the normalised Gram
  matrix of the *centred* means and that of a simplex ETF, ``I - 11ᵀ/K``
  (informative for K >= 3 only: two centred means are always antipodal).
* ``classifier_alignment(V, means)``: for each class, the cosine between the
  class mean and the part of that class's classifier row that lies on the
  support of the mean.
* ``self_duality_residual(V, means)``: the paper's projected self-duality (Theorem
  1(3)) says ``V = Ẽ diag(s) Φ̄ᵀ``, with ``Φ̄`` the unit class-mean directions as
  columns, ``Ẽ = sqrt(K/(K-1)) (I - 11ᵀ/K)`` the pseudo-labels
  (:func:`pseudo_labels`; binary: ``(+1, -1)``) and unknown scales ``s_k > 0``; the
  residual is ``||V - Σ_k ŝ_k ẽ_k φ̄_kᵀ||_F / ||V||_F`` with least-squares ``ŝ_k``.

References
----------
H. Min, Z. Zhu, R. Vidal. Neural collapse under gradient flow on shallow ReLU
networks for orthogonally separable data. NeurIPS 2025, arXiv:2510.21078.
M. Phuong, C. H. Lampert. The inductive bias of ReLU networks on orthogonally
separable data. ICLR 2021.

>>> X, y = orthogonally_separable_data(5, 8, n_classes=2, seed=0)
>>> X.shape, orthogonal_separability(X, y).separable
((10, 8), True)
>>> H = np.vstack([np.tile([1.0, 0.0], (3, 1)), np.tile([0.0, 2.0], (3, 1))])
>>> float(nc1(H, np.array([0, 0, 0, 1, 1, 1]))), float(mean_cosines(class_means(H, [0] * 3 + [1] * 3))[0, 1])
(0.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from algorithms._validation import (
    WORKING_MAX,
    allocates,
    as_float_array,
    check_bool,
    check_finite_real,
    check_float_dtype,
    check_nonnegative,
    check_positive_int,
    check_seed,
    checked_fields,
)

__all__ = [
    "Separability",
    "as_class_labels",
    "class_means",
    "classifier_alignment",
    "etf_distance",
    "interleaved_sector_data",
    "mean_cosines",
    "nc1",
    "nc_metrics",
    "orthogonal_separability",
    "orthogonally_separable_data",
    "pseudo_labels",
    "self_duality_residual",
    "within_class_ratio",
]


#: the largest ``dim`` of :func:`orthogonally_separable_data`: it draws a random dim × dim orthonormal basis
#: (a QR factorization, ~10 s at 2048 and ~75 s at 4000 on one core)
MAX_DATA_DIM = 2048
#: the most classes :func:`interleaved_sector_data` cuts the quarter plane into (one loop pass per
#: sector: 10**6 classes ran for minutes)
MAX_SECTOR_CLASSES = 10**4
#: the largest ``noise`` of :func:`interleaved_sector_data` (relative to the unit vector in the plane;
#: 1e308 overflowed the points' norms into NaN rows)
MAX_SECTOR_NOISE = 1e100


def as_class_labels(name: str, y, n_classes: int | None = None) -> tuple[np.ndarray, int]:
    """``y`` as an int array of classes ``0..K-1`` in which every class occurs; returns (y, K).

    ``name`` (a str) labels the messages; ``n_classes`` (an int >= 1, at most the number of samples; None:
    the largest label + 1) fixes K.

    >>> as_class_labels("y", [0, 1, 1])[1]
    2
    >>> as_class_labels("y", [0, 2, 2])
    Traceback (most recent call last):
    ...
    ValueError: y must contain every class 0..2; class 1 has no sample
    """
    if hasattr(y, "detach"):    # a torch tensor: numpy refuses one that requires grad or has no data
        if getattr(y.device, "type", None) == "meta":
            raise ValueError(f"{name} is on the meta device (no data); pass labels with values")
        y = y.detach().cpu().numpy()
    labels = np.asarray(y)
    if labels.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {labels.shape}")
    if labels.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.issubdtype(labels.dtype, np.integer):
        # complex labels are refused here: np.mod has no complex loop and would answer with its own message
        if (not np.issubdtype(labels.dtype, np.number) or np.iscomplexobj(labels)
                or not np.all(np.mod(labels, 1) == 0)):
            raise TypeError(f"{name} must hold integer class indices 0..K-1, got dtype {labels.dtype}")
    labels = labels.astype(np.int64)
    if labels.min() < 0:
        raise ValueError(f"{name} must hold class indices 0..K-1, got {labels.min()}")
    k = int(labels.max()) + 1 if n_classes is None else check_positive_int("n_classes", n_classes)
    if labels.max() >= k:
        raise ValueError(f"{name} has class {labels.max()} but n_classes is {k}")
    if k > labels.size:  # every class needs a sample; also keeps the set below as small as y
        raise ValueError(f"n_classes must be at most the {labels.size} samples of {name} (every class needs "
                         f"a sample), got {k}")
    missing = sorted(set(range(k)) - set(labels.tolist()))
    if missing:
        given = "" if n_classes is None else f" (n_classes={k})"
        raise ValueError(f"{name} must contain every class 0..{k - 1}{given}; class "
                         f"{', '.join(map(str, missing))} has no sample")
    if k < 2:
        raise ValueError(f"{name} must contain at least two classes, got {k}")
    return labels, k


@dataclass(frozen=True)
class Separability:
    """Margins of orthogonal separability: ``separable`` iff ``min_same > 0 >= max_cross``.

    ``min_same`` (the smallest same-class inner product) and ``max_cross`` (the largest cross-class
    one) are finite real numbers, stored as floats; a record built by hand with a str, a bool, NaN
    or inf is refused naming the field (``Separability("0.5", -1.0).separable`` compared a str).
    """

    min_same: float
    max_cross: float

    @checked_fields
    def __post_init__(self) -> None:
        for name in ("min_same", "max_cross"):
            object.__setattr__(self, name, check_finite_real(name, getattr(self, name)))

    @property
    def separable(self) -> bool:
        return bool(self.min_same > 0.0 and self.max_cross <= 0.0)

    def as_dict(self) -> dict[str, float | bool]:
        return {"min_same_class_inner": float(f"{self.min_same:.6g}"),
                "max_cross_class_inner": float(f"{self.max_cross:.6g}"),
                "orthogonally_separable": self.separable}


def orthogonal_separability(X, y) -> Separability:
    """Smallest same-class and largest cross-class inner product of the rows of ``X``.

    ``X``: a finite 2-D array whose inner products stay inside the working range (|x_i·x_j| <= 3.4e38)
    and whose nonzero rows each have an entry of at least 1e-150 (their inner products stay inside
    float64; others are refused naming X); ``y``: one class label per row.

    >>> X = np.array([[1.0, 0.0], [1.0, 0.1], [-1.0, 0.0]])
    >>> s = orthogonal_separability(X, [0, 0, 1])
    >>> s.separable, s.max_cross
    (True, -1.0)
    """
    X = as_float_array("X", X, ndim=2, dtype=np.float64)
    labels, _ = as_class_labels("y", y)
    if labels.shape[0] != X.shape[0]:
        raise ValueError(f"y must have length {X.shape[0]} (rows of X), got {labels.shape[0]}")
    row_top = np.max(np.abs(X), axis=1, initial=0.0)
    tiny = np.flatnonzero((row_top > 0.0) & (row_top < 1e-150))
    if tiny.size:   # x·x underflowed to 0: min_same = 0 called separable data not separable, in silence
        raise ValueError(f"X row {int(tiny[0])} has entries only up to {float(row_top[tiny[0]]):.3g}: its "
                         f"inner products underflow float64 (each nonzero row needs an entry >= 1e-150 in "
                         f"magnitude); rescale X (separability does not depend on the scale)")
    gram = X @ X.T      # finite: entries <= 3.4e38 (the working range) square to < 1e78·d
    reach = float(np.max(np.abs(gram), initial=0.0))
    if reach > WORKING_MAX:     # the margins are the record's fields: refused there naming the record
        raise ValueError(f"X's inner products reach {reach:.3g}, past the package's working range "
                         f"({WORKING_MAX:.4g}): rescale X (separability does not depend on the scale)")
    same = labels[:, None] == labels[None, :]
    return Separability(float(gram[same].min()), float(gram[~same].max()))


@allocates("n_per_class", "dim", "n_classes")
def orthogonally_separable_data(n_per_class: int, dim: int, n_classes: int = 2, *,
                                spread: float = 0.6, center_correlation: float | None = None,
                                norm_range: tuple[float, float] = (0.5, 1.5), seed: int = 0,
                                dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Seeded orthogonally separable data ``(X, y)``, ``y`` in ``0..K-1`` (see the module docstring).

    ``n_per_class`` (an int >= 1) points per class, ``n_classes`` an int >= 2, ``seed`` an int in
    [0, 2**64), ``dtype`` X's float dtype. ``norm_range`` a pair (low, high) with 0 < low <= high <= 3.4e38.
    ``spread`` in [0, 1) is the largest noise-to-centre ratio; ``center_correlation``
    (``rho``, default ``-1/(2(K-1))``) must lie in ``[-1/(K-1), 0]``; every point is
    rescaled to a norm drawn uniformly from ``norm_range``. Needs
    ``dim >= n_classes + n_classes`` (one noise direction per class at least) and
    ``dim <= MAX_DATA_DIM`` (2048: the draw factors a dim × dim Gaussian matrix).

    >>> X, y = orthogonally_separable_data(4, 9, n_classes=3, seed=1)
    >>> s = orthogonal_separability(X, y)
    >>> s.separable, s.min_same > 0, bool(np.all(np.bincount(y) == 4))
    (True, True, True)
    """
    n_per_class = check_positive_int("n_per_class", n_per_class)
    dim = check_positive_int("dim", dim)
    k = check_positive_int("n_classes", n_classes)
    if k < 2:
        raise ValueError(f"n_classes must be >= 2, got {k}")
    if dim > MAX_DATA_DIM:
        raise ValueError(f"dim must be <= {MAX_DATA_DIM} (MAX_DATA_DIM: the data draw a dim × dim "
                         f"orthonormal basis, minutes past it), got {dim}")
    block = (dim - k) // k
    if block < 1:
        raise ValueError(f"dim must be >= 2 * n_classes = {2 * k} (a noise direction per class), got {dim}")
    spread = check_nonnegative("spread", spread)
    if spread >= 1.0:
        raise ValueError(f"spread must be < 1 (else same-class points may be orthogonal), got {spread}")
    rho = -1.0 / (2.0 * (k - 1)) if center_correlation is None else \
        float(as_float_array("center_correlation", center_correlation, ndim=0))
    if not (-1.0 / (k - 1) - 1e-12 <= rho <= 0.0):
        raise ValueError(f"center_correlation must lie in [-1/(n_classes-1), 0] = [{-1.0 / (k - 1):.4g}, 0], "
                         f"got {rho}")
    if not isinstance(norm_range, tuple | list) or len(norm_range) != 2:
        raise TypeError(f"norm_range must be a pair (low, high), got {norm_range!r}")
    low, high = (float(v) for v in as_float_array("norm_range", list(norm_range), ndim=1))
    if not (0.0 < low <= high and np.isfinite(high)):
        raise ValueError(f"norm_range must be (low, high) with 0 < low <= high, got {norm_range!r}")
    rng = np.random.default_rng(check_seed(seed))
    dtype = check_float_dtype(dtype)
    basis, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    gram = (1.0 - rho) * np.eye(k) + rho * np.ones((k, k))
    # the centre Gram matrix is PSD for rho >= -1/(K-1); eigh copes with its singular end point
    evals, evecs = np.linalg.eigh(gram)
    factor = evecs * np.sqrt(np.clip(evals, 0.0, None))
    centers = basis[:, :k] @ factor.T  # column k is c_k, <c_k, c_l> = gram[k, l]
    X = np.empty((k * n_per_class, dim))
    y = np.repeat(np.arange(k), n_per_class)
    for c in range(k):
        noise_basis = basis[:, k + c * block: k + (c + 1) * block]
        z = rng.standard_normal((n_per_class, block))
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        level = spread * rng.uniform(0.0, 1.0, size=(n_per_class, 1))
        points = centers[:, c][None, :] + level * (z @ noise_basis.T)
        scale = rng.uniform(low, high, size=(n_per_class, 1))
        X[c * n_per_class:(c + 1) * n_per_class] = scale * points / np.linalg.norm(points, axis=1,
                                                                                   keepdims=True)
    return X.astype(dtype), y


@allocates("n_per_class", "dim", "n_classes")
def interleaved_sector_data(n_per_class: int, dim: int, n_classes: int = 2, *, noise: float = 0.05,
                            norm_range: tuple[float, float] = (0.5, 1.5), seed: int = 0,
                            dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Seeded data that are NOT orthogonally separable (for negative controls).

    The quarter plane spanned by the first two coordinates is cut into
    ``n_classes + 1`` (``n_classes`` an int in [2, :data:`MAX_SECTOR_CLASSES` = 10**4]) equal angular
    sectors whose classes cycle ``0, 1, .., K-1, 0``
    (class 0's points split between its two sectors, the first one taking the odd one);
    angles are uniform on the middle 80 % of each sector (away from its edges), the
    other coordinates get Gaussian ``noise`` (relative to the unit vector in the
    plane), and each point a norm drawn uniformly from ``norm_range``. All
    inner products are positive, so points of different classes are positively
    correlated and class ``1`` lies inside the cone of class ``0``. ``n_per_class`` an int >= 1, ``dim`` an
    int >= 2, ``norm_range`` a pair (low, high) with 0 < low <= high <= 3.4e38, ``seed`` an int in
    [0, 2**64), ``dtype`` X's float dtype. At most
    :data:`MAX_SECTOR_CLASSES` classes and ``noise`` >= 0, any value in [0, 3.4e38] (the working range;
    ``MAX_SECTOR_NOISE`` = 1e100 lies past it).

    >>> X, y = interleaved_sector_data(4, 6, seed=0)
    >>> orthogonal_separability(X, y).separable, np.bincount(y).tolist()
    (False, [4, 4])
    """
    n_per_class = check_positive_int("n_per_class", n_per_class)
    dim = check_positive_int("dim", dim)
    k = check_positive_int("n_classes", n_classes)
    if k < 2:
        raise ValueError(f"n_classes must be >= 2, got {k}")
    if dim < 2:
        raise ValueError(f"dim must be >= 2, got {dim}")
    if k > MAX_SECTOR_CLASSES:
        raise ValueError(f"n_classes must be <= {MAX_SECTOR_CLASSES} (MAX_SECTOR_CLASSES, one pass per "
                         f"sector), got {k}")
    noise = check_nonnegative("noise", noise)
    if noise > MAX_SECTOR_NOISE:
        raise ValueError(f"noise must be <= {MAX_SECTOR_NOISE:g} (MAX_SECTOR_NOISE: larger noise overflows "
                         f"the points' norms), got {noise!r}")
    if not isinstance(norm_range, tuple | list) or len(norm_range) != 2:
        raise TypeError(f"norm_range must be a pair (low, high), got {norm_range!r}")
    low, high = (float(v) for v in as_float_array("norm_range", list(norm_range), ndim=1))
    if not (0.0 < low <= high and np.isfinite(high)):
        raise ValueError(f"norm_range must be (low, high) with 0 < low <= high, got {norm_range!r}")
    rng = np.random.default_rng(check_seed(seed))
    dtype = check_float_dtype(dtype)
    n_sectors = k + 1
    edges = np.linspace(0.0, np.pi / 2, n_sectors + 1)
    width = edges[1] - edges[0]
    # class 0 owns the first and the last sector: split its points between them
    counts = {s: n_per_class for s in range(1, k)}
    counts[0] = (n_per_class + 1) // 2
    counts[k] = n_per_class // 2
    rows, labels = [], []
    for sector in range(n_sectors):
        m = counts[sector]
        angles = rng.uniform(edges[sector] + 0.1 * width, edges[sector + 1] - 0.1 * width, m)
        pts = np.zeros((m, dim))
        pts[:, 0], pts[:, 1] = np.cos(angles), np.sin(angles)
        pts[:, 2:] = noise * rng.standard_normal((m, dim - 2))
        pts *= rng.uniform(low, high, size=(m, 1)) / np.linalg.norm(pts, axis=1, keepdims=True)
        rows.append(pts)
        labels += [sector % k] * m
    return np.vstack(rows).astype(dtype), np.asarray(labels, dtype=np.int64)


def _features_and_labels(H, y) -> tuple[np.ndarray, np.ndarray, int]:
    H = as_float_array("H", H, ndim=2, dtype=np.float64)
    labels, k = as_class_labels("y", y)
    if labels.shape[0] != H.shape[0]:
        raise ValueError(f"y must have length {H.shape[0]} (rows of H), got {labels.shape[0]}")
    return H, labels, k


#: entries whose squares (and sums of them) float64 holds without overflow or underflow to 0
_SAFE = (1e-150, 1e150)


def _unit_scale(A: np.ndarray) -> np.ndarray:
    """``A / max|A|`` when its largest entry is outside :data:`_SAFE` (else ``A`` itself, bit for bit): the
    scale-free metrics below are computed on it, so finite entries up to 1e308 never overflow their
    squares and sums into inf/NaN (a NaN nc1 and cosines of 0 were returned in silence)."""
    top = float(np.max(np.abs(A), initial=0.0))
    return A / top if top > 0 and not _SAFE[0] <= top <= _SAFE[1] else A


def _normalize_rows(H: np.ndarray) -> np.ndarray:
    # each row scaled to largest entry 1 first: the norm of a row holding 1e308 overflowed to inf
    top = np.max(np.abs(H), axis=1, keepdims=True, initial=0.0)
    H = np.divide(H, top, out=H.copy(), where=(top > 0) & ((top < _SAFE[0]) | (top > _SAFE[1])))
    norms = np.linalg.norm(H, axis=1, keepdims=True)
    return np.divide(H, norms, out=np.zeros_like(H), where=norms > 0)


def _class_mean_rows(H: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """Class means, summed at unit scale (two entries of 1e308 summed to inf before the division)."""
    top = float(np.max(np.abs(H), initial=0.0))
    if not top > _SAFE[1]:
        return np.vstack([H[labels == c].mean(axis=0) for c in range(k)])
    return np.vstack([(H[labels == c] / top).mean(axis=0) for c in range(k)]) * top


def class_means(H, y, *, normalize: bool = False) -> np.ndarray:
    """Rows ``μ_k``: the mean feature of class ``k`` (of unit-normalised features if asked)."""
    normalize = check_bool("normalize", normalize)
    H, labels, k = _features_and_labels(H, y)
    if normalize:
        H = _normalize_rows(H)
    return _class_mean_rows(H, labels, k)


def _scatter(H: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    means = _class_mean_rows(H, labels, k)
    centred = H - means[labels]
    sigma_w = centred.T @ centred / H.shape[0]
    between = means - H.mean(axis=0)
    sigma_b = between.T @ between / k
    return sigma_w, sigma_b


def nc1(H, y, *, normalize: bool = False) -> float:
    """``tr(Σ_W Σ_B⁺) / K`` of the rows of ``H`` (of ``h_i/||h_i||`` when ``normalize``).

    Returns ``inf`` when the class means coincide (``Σ_B = 0``) and some spread remains.

    >>> rng = np.random.default_rng(0)
    >>> H = rng.standard_normal((40, 3)); y = np.repeat([0, 1], 20)
    >>> bool(nc1(H + 5.0 * y[:, None], y) < nc1(H + 1.0 * y[:, None], y))
    True
    """
    normalize = check_bool("normalize", normalize)
    H, labels, k = _features_and_labels(H, y)
    H = _normalize_rows(H) if normalize else _unit_scale(H)     # the ratio is scale-free
    sigma_w, sigma_b = _scatter(H, labels, k)
    if not np.any(sigma_b):
        return 0.0 if not np.any(sigma_w) else float("inf")
    scale = max(np.abs(sigma_b).max(), np.finfo(float).tiny)
    pinv = np.linalg.pinv(sigma_b / scale, rcond=1e-12, hermitian=True) / scale
    return float(max(np.trace(sigma_w @ pinv), 0.0) / k)


def within_class_ratio(H, y, *, normalize: bool = False) -> float:
    """``tr(Σ_W) / tr(Σ_B)``: within-class spread in *every* direction, relative to the class means.

    >>> float(within_class_ratio(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), [0, 0, 1]))
    0.0
    """
    normalize = check_bool("normalize", normalize)
    H, labels, k = _features_and_labels(H, y)
    H = _normalize_rows(H) if normalize else _unit_scale(H)     # the ratio is scale-free
    sigma_w, sigma_b = _scatter(H, labels, k)
    tw, tb = float(np.trace(sigma_w)), float(np.trace(sigma_b))
    if tb == 0.0:
        return 0.0 if tw == 0.0 else float("inf")
    return tw / tb


def mean_cosines(means) -> np.ndarray:
    """Cosines between the rows of ``means`` (0 for a zero row).

    >>> mean_cosines(np.array([[1.0, 1.0], [0.0, 2.0]])).round(4).tolist()
    [[1.0, 0.7071], [0.7071, 1.0]]
    """
    M = _normalize_rows(as_float_array("means", means, ndim=2, dtype=np.float64))
    return M @ M.T


def etf_distance(means) -> float:
    """``|| G/||G||_F - E/||E||_F ||_F`` with ``G`` the Gram of the centred means, ``E = I - 11ᵀ/K``.

    Orthogonal means of equal norm give 0 (their centred versions form a simplex ETF); ``inf``
    when all the means coincide (no centred Gram to normalise).

    >>> float(round(etf_distance(np.eye(3)), 12))
    0.0
    """
    M = as_float_array("means", means, ndim=2, dtype=np.float64)
    k = M.shape[0]
    if k < 2 or M.shape[1] < 1:  # a simplex ETF needs two classes (K = 1: E = 0, K = 0: nothing)
        raise ValueError(f"means must have shape (K >= 2, width >= 1), got {M.shape}")
    M = _unit_scale(M)      # the distance is scale-free
    centred = M - M.mean(axis=0)
    gram = centred @ centred.T
    norm = np.linalg.norm(gram)
    if norm == 0.0:
        return float("inf")
    etf = np.eye(k) - np.ones((k, k)) / k
    return float(np.linalg.norm(gram / norm - etf / np.linalg.norm(etf)))


def classifier_alignment(V, means) -> np.ndarray:
    """Per class, cos(μ_k, P_k w_k) with ``P_k`` the projection on the support of ``μ_k`` (its nonzero
    entries; post-ReLU means have nonnegative ones, any sign is taken).

    ``V`` is ``(K, width)`` (one classifier row per class; rows are centred first)
    or, for a binary scalar-output network, ``(width,)`` or ``(1, width)``: then
    class 0 uses ``+v`` and class 1 uses ``-v`` (labels ``+1, -1``).

    >>> classifier_alignment(np.array([1.0, 1.0, -2.0]), np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 3.0]]))
    array([1., 1.])
    """
    M = as_float_array("means", means, ndim=2, dtype=np.float64)
    V = as_float_array("V", V, dtype=np.float64)
    if V.ndim not in (1, 2):    # a 0-d V reached V.shape[0] (IndexError)
        raise ValueError(f"V must be a (K, width) matrix or a (width,) vector, got shape {V.shape}")
    k, width = M.shape
    M, V = _unit_scale(M), _unit_scale(V)    # cosines are scale-free
    if V.ndim == 1 or V.shape[0] == 1:
        v = V.reshape(-1)
        if k != 2 or v.shape[0] != width:
            raise ValueError(f"a scalar-output V needs 2 classes and width {width} (means has shape "
                             f"{M.shape}), got V of shape {V.shape}")
        rows = np.vstack([v, -v])
    else:
        if V.shape != (k, width):
            raise ValueError(f"V must have shape ({k}, {width}) to match means of shape {M.shape}, got "
                             f"{V.shape}")
        rows = V - V.mean(axis=0)
    out = np.empty(k)
    for c in range(k):
        support = M[c] != 0     # the support: nonzero entries (> 0 answered 0 for mirrored, negative means)
        w = np.where(support, rows[c], 0.0)
        # each vector at its own unit scale: ‖w‖·‖μ_c‖ underflowed to 0 for a mean of 1e-200 beside one of 1
        # (cosine 0 for 0.707)
        unit = _normalize_rows(np.vstack([w, M[c]]))
        out[c] = float(np.clip(unit[0] @ unit[1], -1.0, 1.0))
    return out


@allocates("n_classes")
def pseudo_labels(n_classes: int, *, binary: bool = False) -> np.ndarray:
    """Column ``k`` is class ``k``'s pseudo-label ``ẽ_k``: ``Ẽ = sqrt(K/(K-1)) (I - 11ᵀ/K)`` (unit columns).

    ``n_classes`` is K, an int >= 2. ``binary=True`` (a scalar-output network, two classes) gives the labels
    ``[[+1, -1]]``.

    >>> E = pseudo_labels(3)
    >>> bool(np.allclose(E.sum(axis=0), 0.0)), bool(np.allclose(np.linalg.norm(E, axis=0), 1.0))
    (True, True)
    >>> pseudo_labels(2, binary=True).tolist()
    [[1.0, -1.0]]
    """
    binary = check_bool("binary", binary)
    k = check_positive_int("n_classes", n_classes)
    if k < 2:
        raise ValueError(f"n_classes must be >= 2, got {k}")
    if binary:
        if k != 2:
            raise ValueError(f"binary pseudo-labels need n_classes = 2, got {k}")
        return np.array([[1.0, -1.0]])
    return np.sqrt(k / (k - 1)) * (np.eye(k) - np.ones((k, k)) / k)


def self_duality_residual(V, means) -> float:
    """``||V - Σ_k ŝ_k ẽ_k φ̄_kᵀ||_F / ||V||_F``: distance of the classifier from projected self-duality.

    ``V`` is (K, width), or (1, width) / (width,) for a binary scalar-output network;
    ``means`` (K, width) the class-mean features, whose unit directions are ``φ̄_k``;
    ``ŝ_k = ẽ_kᵀ V φ̄_k`` is the least-squares scale (exact when the ``φ̄_k`` are
    orthogonal, as the theorem's class means are). 0 when ``V`` is exactly self-dual.

    >>> means = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    >>> float(self_duality_residual(np.array([2.0, 4.0, -1.0]), means))
    0.0
    >>> bool(self_duality_residual(np.array([4.0, 2.0, -1.0]), means) > 0.1)
    True
    """
    M = as_float_array("means", means, ndim=2, dtype=np.float64)
    V = as_float_array("V", V, dtype=np.float64)
    if V.ndim not in (1, 2):    # a 0-d V reached V.shape[0] (IndexError)
        raise ValueError(f"V must be a (K, width) matrix or a (width,) vector, got shape {V.shape}")
    k, width = M.shape
    binary = V.ndim == 1 or V.shape[0] == 1
    V = V.reshape(1, -1) if binary else V
    if V.shape[1] != width or (not binary and V.shape[0] != k):
        raise ValueError(f"V must have shape ({k}, {width}) (or (1, {width}) for a binary network) to match "
                         f"means of shape {M.shape}, got {V.shape}")
    # pseudo_labels' own messages ("n_classes must be >= 2") named neither argument
    if k < 2:
        raise ValueError(f"means must hold at least 2 class means (rows), got shape {M.shape}")
    if binary and k != 2:
        raise ValueError(f"a binary (one-row) V needs means of 2 classes, got means of shape {M.shape} and V "
                         f"of shape {V.shape}")
    V = _unit_scale(V)      # the residual is relative: scale-free
    norm = np.linalg.norm(V)
    if norm == 0.0:
        return float("inf")
    E = pseudo_labels(k, binary=binary)
    directions = _normalize_rows(M)
    fit = np.zeros_like(V)
    for c in range(k):
        scale = E[:, c] @ V @ directions[c]
        fit += scale * np.outer(E[:, c], directions[c])
    return float(np.linalg.norm(V - fit) / norm)


def nc_metrics(H, y, V=None) -> dict[str, float]:
    """All the metrics above for features ``H`` (and classifier ``V`` if given), as plain floats.

    >>> X, y = orthogonally_separable_data(3, 6, seed=0)
    >>> sorted(nc_metrics(np.maximum(X, 0), y))[:3]
    ['etf_distance', 'max_mean_cosine', 'nc1']
    """
    H, labels, k = _features_and_labels(H, y)
    means = class_means(H, labels)
    cos = mean_cosines(means)
    off = cos[~np.eye(k, dtype=bool)]
    out = {
        "nc1": nc1(H, labels),
        "nc1_directional": nc1(H, labels, normalize=True),
        "within_ratio": within_class_ratio(H, labels),
        "within_ratio_directional": within_class_ratio(H, labels, normalize=True),
        "max_mean_cosine": float(np.max(np.abs(off))),
        "etf_distance": etf_distance(means),
    }
    if V is not None:
        V = as_float_array("V", V, dtype=np.float64)    # np.shape of a ragged V raised numpy's message
        width = np.shape(V)[-1] if np.ndim(V) else None
        if width != H.shape[1]:  # else the shape message would name the class means, computed here
            raise ValueError(f"V must have H's width {H.shape[1]} on its last axis (H has shape {H.shape}), "
                             f"got V of shape {np.shape(V)}")
        out["min_classifier_alignment"] = float(np.min(classifier_alignment(V, means)))
        out["self_duality_residual"] = self_duality_residual(V, means)
    return out
