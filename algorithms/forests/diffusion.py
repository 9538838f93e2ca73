"""The diffusion-map embedding of a forest kernel and its Nyström out-of-sample extension.

With K V = V Λ (eigenvalues 1 = λ₀ >= λ₁ >= ...; V₀ is constant because K is doubly stochastic),
the diffusion map keeps the d leading non-trivial eigenpairs and scales them (Section 3):

    Z = √n V Λᵗ  (columns 1..d),         Z₀ = K₀ Z Λ⁻¹  (Nyström, rows of a test kernel K₀),

so Euclidean distances in Z are diffusion distances after t steps, and Z₀ = Z on the training
set. The eigenpairs come from Lanczos (ARPACK ``eigsh``) started from a seeded vector; its
convergence criterion is ARPACK's: every Ritz pair has a relative residual below ``tol``
(0 = machine precision), reached within ``maxiters`` restarts. Eigenvector signs are fixed
(largest-magnitude entry positive) so that, for a given ``seed``, the embedding is a deterministic function
of K; where a kept eigenvalue is repeated (0.1 + 0.6 I has 0.6 n − 1 times) its eigenvectors are any basis
of the eigenspace, so the embedding then depends on the seed (ARPACK's start vector) and may differ from
:func:`dense_diffusion_map`'s by a rotation within that eigenspace (diffusion distances are the same).
Components whose eigenvalue is below :data:`EIGEN_FLOOR` carry no information; Nyström sends
them to 0.

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441 (Section 3). R. R. Coifman, S. Lafon. Diffusion maps. ACHA 21 (2006).

>>> import numpy as np
>>> K = np.full((4, 4), 0.1) + 0.6 * np.eye(4)
>>> dm = diffusion_map(K, 2)
>>> dm.converged, np.round(dm.eigenvalues, 6).tolist()
(True, [0.6, 0.6])
>>> bool(np.allclose(nystrom(K, dm), dm.embedding))
True
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from algorithms._validation import (
    as_array,
    as_real_array,
    backend_cap,
    check_bool,
    check_entries_in_range,
    check_int_at_least,
    check_nonnegative,
    check_positive_int,
    check_seed,
    check_working_range,
    in_working_range,
    read_only,
    resealed,
    to_float,
)

__all__ = ["EIGEN_FLOOR", "DiffusionMap", "dense_diffusion_map", "diffusion_map", "nystrom"]

#: eigenvalues below this are treated as zero (their components are dropped by Nyström)
EIGEN_FLOOR = 1e-10


@dataclass(frozen=True, eq=False)  # identity, as TSPInstance: the generated == compared arrays
class DiffusionMap:
    """A fitted diffusion map: ``embedding`` Z (n, d), ``eigenvalues`` λ₁..λ_d, ``eigenvectors``
    V (n, d), the diffusion time ``t``, the largest eigen-residual ‖K v − λ v‖ and whether
    ARPACK ``converged``; ``n_samples`` is n, the number of points it was fitted on.

    Built by hand, it is checked (a record consumed by :func:`nystrom`): real arrays of agreeing shapes
    (``embedding`` and ``eigenvectors`` (n, d), ``eigenvalues`` (d,), n = ``n_samples``), ``t`` an int
    >= 0, ``residual`` a real number >= 0 (NaN: not measured), ``converged`` a bool; each refused by
    name, the arrays kept as read-only copies (a write in place raises numpy's "assignment destination is
    read-only"). ``eigenvalues`` are finite and >= 0 (the fits clip negative ones to 0; a forest kernel's
    lie in [0, 1], any finite symmetric kernel's are taken); ``embedding`` is taken as given
    (:func:`nystrom` and :func:`~algorithms.forests.kernel_estimate` use it as it is, not rebuilt as
    √n V Λᵗ). A field replaced after construction (``object.__setattr__``) is checked again by the
    functions that read it."""

    embedding: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    t: int
    residual: float
    converged: bool
    n_samples: int

    def __post_init__(self) -> None:
        embedding = as_real_array("embedding", self.embedding)
        eigenvalues = as_real_array("eigenvalues", self.eigenvalues)
        eigenvectors = as_real_array("eigenvectors", self.eigenvectors)
        if embedding.ndim != 2:
            raise ValueError(f"embedding must be 2-D (n, d), got shape {embedding.shape}")
        n_given = self.n_samples
        if (isinstance(n_given, int | np.integer) and not isinstance(n_given, bool)
                and eigenvectors.ndim == 2 and eigenvectors.shape[0] == n_given != embedding.shape[0]):
            # eigenvectors and n_samples agree: the embedding is the odd one (eigenvectors were blamed)
            raise ValueError(f"embedding must have n_samples = {n_given} rows (as eigenvectors do), got "
                             f"shape {embedding.shape}")
        if eigenvectors.shape != embedding.shape:
            raise ValueError(f"eigenvectors must have the embedding's shape {embedding.shape}, got "
                             f"{eigenvectors.shape}")
        if eigenvalues.shape != (embedding.shape[1],):
            raise ValueError(f"eigenvalues must have shape ({embedding.shape[1]},) (one per embedding "
                             f"column), got {eigenvalues.shape}")
        for name, array in (("embedding", embedding), ("eigenvalues", eigenvalues),
                            ("eigenvectors", eigenvectors)):
            if not np.all(np.isfinite(array)):
                raise ValueError(f"{name} contains NaN or inf entries")
        if eigenvalues.size and not eigenvalues.min() >= 0.0:  # the fits clip them at 0
            raise ValueError(f"eigenvalues must be >= 0 (the fits clip negative ones to 0), got min "
                             f"{eigenvalues.min()!r}")
        t = check_int_at_least("t", self.t, 0)  # a count: 2**64 was stored (diffusion_map refuses it)
        residual = self.residual
        if isinstance(residual, bool | np.bool_) or not isinstance(residual, numbers.Real | np.number) \
                or np.iscomplexobj(residual):
            raise TypeError(f"residual must be a real number >= 0, got {type(residual).__name__}")
        residual = to_float(residual)
        if residual < 0:
            raise ValueError(f"residual must be >= 0 (a norm; NaN: not measured), got {residual!r}")
        if not math.isnan(residual):
            check_working_range("residual", residual, scale=False)  # 1e39 was stored
        n_samples = check_int_at_least("n_samples", self.n_samples, 1)
        if n_samples != embedding.shape[0]:
            raise ValueError(f"n_samples must be the embedding's number of rows {embedding.shape[0]}, got "
                             f"{n_samples}")
        # read-only copies: RFAutoencoder.dmap_.eigenvalues written with -1 (or NaN) in place was accepted and
        # ignored by transform while the exact decoder used it; now the write itself is refused by numpy
        for name, value in (("embedding", read_only(embedding)), ("eigenvalues", read_only(eigenvalues)),
                            ("eigenvectors", read_only(eigenvectors)), ("t", t), ("residual", residual),
                            ("converged", check_bool("converged", self.converged)),
                            ("n_samples", n_samples)):
            object.__setattr__(self, name, value)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable), and the
        record checked again as at construction (a loaded state with NaN entries was used as loaded)."""
        self.__dict__.update({name: resealed(value) for name, value in state.items()})
        self.__post_init__()


def checked_dmap(dmap: Any, name: str = "dmap") -> DiffusionMap:
    """``dmap`` a :class:`DiffusionMap`, checked again: a field replaced after construction through
    ``object.__setattr__`` (NaN eigenvalues embedded every test row at 0) is refused by name."""
    if not isinstance(dmap, DiffusionMap):
        raise TypeError(f"{name} must be a DiffusionMap, got {type(dmap).__name__}")
    try:
        return DiffusionMap(dmap.embedding, dmap.eigenvalues, dmap.eigenvectors, dmap.t, dmap.residual,
                            dmap.converged, dmap.n_samples)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name} is no longer a valid DiffusionMap (a field was replaced after "
                        f"construction): {exc}") from None


def _check_kernel(K: Any) -> Any:
    if not sp.issparse(K):
        K = as_array("K", K)  # a tensor with grad, an __array__ that raises: by name
        if K.dtype == object or not np.issubdtype(K.dtype, np.number):
            raise TypeError(f"K must be a numeric matrix, got dtype {K.dtype}")
    if np.iscomplexobj(K):  # complex entries: real eigenvalues of a matrix that is no kernel
        raise TypeError(f"K must be real, got dtype {K.dtype}")
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    data = K.data if sp.issparse(K) else K
    if not np.all(np.isfinite(data)):
        raise ValueError("K contains NaN or inf entries")
    check_entries_in_range("K", data)   # 1e300 entries were taken (the working range, README)
    if data.size and float(data.min()) < 0:  # a negative transition probability: not a diffusion
        raise ValueError(f"K must have entries >= 0 (a Markov kernel), got min entry {float(data.min()):.3g}")
    # symmetry is documented (eigsh reads one triangle only): a non-symmetric K would be misread
    # silently. 1e-8 relative is far above the round-off of a kernel built as a matrix product.
    asym = abs(K - K.T).max() if sp.issparse(K) else float(np.abs(K - K.T).max(initial=0.0))
    # relative to K's own entries: max(1, ·) took a kernel of 1e-10 with K − Kᵀ = 0.8e-10 (refused at scale 1)
    scale = float(np.abs(data).max(initial=0.0))
    # at the kernel's own rounding: a float32 A·Aᵀ is asymmetric by ~eps32 relative and was refused
    kind = K.dtype if K.dtype.kind == "f" else np.dtype(np.float64)
    if asym > max(1e-8, 8 * float(np.finfo(kind).eps)) * scale:
        raise ValueError(f"K must be symmetric, got max |K - K^T| = {float(asym):.3g}")
    degrees = np.asarray(K.sum(axis=1)).ravel()
    if degrees.size and not np.all(degrees > 0):  # the Markov matrix D⁻¹K divides by each row's sum
        row = int(np.flatnonzero(~(degrees > 0))[0])
        raise ValueError(f"K must have no zero row (a point with degree 0 has no transition "
                         f"probabilities), got row {row} summing to 0")
    return sp.csr_matrix(K, dtype=np.float64) if sp.issparse(K) else K.astype(np.float64)


def _check_components(n_components: Any, t: Any, n: int, *, dense: bool = False) -> None:
    """``n_components`` in [1, n - 2] (ARPACK needs k = n_components + 1 < n; the dense solver takes
    n - 1) and ``t`` an int >= 0 (shared by both solvers)."""
    n_components = check_positive_int("n_components", n_components)
    most, what = (n - 1, "n_samples - 1") if dense else (n - 2, "n_samples - 2")
    if n_components > most:
        raise ValueError(f"n_components must be at most {what} = {most}, got {n_components}")
    if isinstance(t, bool) or not isinstance(t, int | np.integer) or t < 0:
        raise ValueError(f"t (the diffusion time) must be a non-negative int, got {t!r}")
    if t > 2**63 - 1:  # λ**t met numpy's OverflowError for t = 10**400 (λ^(2**63) underflows anyway)
        raise ValueError(f"t (the diffusion time) must be <= 2**63 - 1, got {t!r}")


def _components(K: Any) -> tuple[int, np.ndarray]:
    """The connected components of K's graph (labels numbered in order of their first sample)."""
    from scipy.sparse.csgraph import connected_components

    return connected_components(K if sp.issparse(K) else sp.csr_matrix(K), directed=False)


def _split_spectrum(K: Any, k: int, count: int, labels: np.ndarray, *, dense: bool, v0_seed: int = 0,
                    maxiters: int | None = None, tol: float = 0.0) -> tuple[np.ndarray, np.ndarray, bool]:
    """The k leading eigenpairs of a K whose graph has ``count`` > 1 components, from each component's
    block (K is block diagonal in them), and whether every ARPACK run converged: eigenvalue 1 then has
    multiplicity ``count``, which a Lanczos run on the whole K misses (it found [1, 0.94] for [1, 1] with 7
    components, and said it converged). ``dense``: LAPACK on every block (``dense_diffusion_map``); else
    ARPACK with the caller's ``maxiters``/``tol`` wherever it applies (k < the block's size − 1), so a cap
    still reports no convergence. Ties are ordered by component, then by rank within it, so both maps
    give the same basis (a component's leading eigenvector is unique)."""
    n = K.shape[0]
    pairs, converged = [], True
    for c in range(count):
        idx = np.flatnonzero(labels == c)
        block = K[idx][:, idx]
        m, kc = idx.size, min(k, idx.size)
        if dense or kc >= m - 1:
            block = block.toarray() if sp.issparse(block) else block
            values, vectors = scipy.linalg.eigh(block, subset_by_index=(m - kc, m - 1))
        else:
            v0 = np.random.default_rng([v0_seed, c]).uniform(0.5, 1.5, m)
            try:
                values, vectors = spla.eigsh(block, k=kc, which="LA", v0=v0, maxiter=maxiters, tol=tol)
            except spla.ArpackNoConvergence as exc:  # the pairs ARPACK settled (no dense substitute)
                converged = False
                values, vectors = exc.eigenvalues, exc.eigenvectors
        for rank, j in enumerate(np.argsort(values)[::-1]):
            full = np.zeros(n)
            full[idx] = vectors[:, j]
            pairs.append((float(values[j]), c, rank, full))
    pairs.sort(key=lambda pair: (-round(pair[0], 12), pair[1], pair[2]))
    top = pairs[:k]
    values = np.array([pair[0] for pair in top] + [0.0] * (k - len(top)))
    vectors = np.column_stack([pair[3] for pair in top] + [np.zeros(n)] * (k - len(top)))
    return values, vectors, converged


def diffusion_map(K: Any, n_components: int, t: int = 1, *, maxiters: int | None = None,
                  tol: float = 0.0, seed: int = 0) -> DiffusionMap:
    """The diffusion map of the symmetric kernel matrix ``K`` (n × n) with ``n_components`` columns.

    ``K`` is a finite, symmetric, nonnegative (n, n) kernel without zero rows (dense or sparse, entries
    at most 3.4e38; symmetric means max |K − Kᵀ| <= max(1e-8, 8 eps of K's dtype)·max |K|, an asymmetry at
    that rounding level is read as symmetric, a larger one refused by name; its top eigenpair is dropped
    as the trivial constant one, which it is for equal row sums,
    as a forest kernel's: for another K, a Gram matrix BBᵀ say, the map starts at its second pair);
    ``n_components`` an int in [1, n − 1]. ``t`` (int in [0, 2**63)) is the diffusion time,
    ``tol`` (finite float >= 0, any value up to 3.4e38; 0: machine precision) ARPACK's relative tolerance
    and ``seed`` (int in [0, 2**64)) draws its start vector. Two derived limits, each refused by name: a
    ``t`` so long that every informative λᵗ underflows to 0 (t = 2**40 for λ₁ < 1: every point would embed
    at the origin), and a ``K``/``t`` whose embedding √n V Λᵗ has an entry past 3.4e38 (a kernel scaled so
    that √n λ₁ᵗ exceeds it; a forest kernel's λ lie in [0, 1]).

    ``maxiters`` (None or an int >= 1; above 2**31 - 1 it acts as 2**31 - 1, ARPACK's C int) caps ARPACK's
    restarts (``None``: ARPACK's default 10 n); when it is reached first, ``converged`` is False and the
    Ritz pairs of a dense solve are *not* substituted.
    """
    K = _check_kernel(K)
    n = K.shape[0]
    _check_components(n_components, t, n)
    seed = check_seed(seed)
    if maxiters is not None:  # a count: at most 2**63 - 1 (10**40 was taken), numpy ints too
        maxiters = check_positive_int("maxiters", maxiters)
    maxiters = backend_cap(maxiters)  # ARPACK's cap is a C int
    # np.float32 and Fraction were refused "must be a float >= 0" (a hand-written isinstance check)
    tol = check_nonnegative("tol", tol)  # finite: inf and 10**400 crashed ARPACK (a SystemError in scipy)
    k = n_components + 1
    v0 = np.random.default_rng(seed).uniform(0.5, 1.5, n)
    converged = True
    count, labels = _components(K)
    try:
        if count > 1:  # a disconnected kernel: each component's spectrum (eigenvalue 1 repeats)
            values, vectors, converged = _split_spectrum(K, k, count, labels, dense=False, v0_seed=seed,
                                                         maxiters=maxiters, tol=tol)
        else:
            values, vectors = spla.eigsh(K, k=k, which="LA", v0=v0, maxiter=maxiters, tol=tol)
    except spla.ArpackNoConvergence as exc:
        converged = False
        values, vectors = exc.eigenvalues, exc.eigenvectors
        if values.size < k:  # too few Ritz pairs settled: report the residual of what exists
            values = np.concatenate([values, np.zeros(k - values.size)])
            vectors = np.hstack([vectors, np.zeros((n, k - vectors.shape[1]))])
    # descending (the split spectrum is already ordered, its ties by component: kept as they are)
    order = np.arange(values.size) if count > 1 else np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    big = np.abs(vectors).argmax(axis=0)
    vectors = vectors * np.where(vectors[big, np.arange(k)] < 0, -1.0, 1.0)
    residual = float(np.abs(K @ vectors - vectors * values).max())
    values, vectors = np.clip(values[1:], 0.0, None), vectors[:, 1:]  # drop the trivial pair
    _check_underflow(values, t)
    return DiffusionMap(_embedding(n, vectors, values, t), values, vectors, int(t), residual, converged, n)


def _embedding(n: int, vectors: np.ndarray, values: np.ndarray, t: int) -> np.ndarray:
    """√n V Λᵗ, refused naming K and t when an entry leaves the working range (a valid kernel of entries
    3e38 embedded at 9.4e38 and was blamed on ``embedding``, no argument of the call)."""
    with np.errstate(over="ignore", invalid="ignore"):
        embedding = np.sqrt(n) * vectors * values**t
    if not in_working_range(embedding):
        biggest = float(np.max(np.abs(np.nan_to_num(embedding, nan=np.inf))))
        raise ValueError(f"K (with t = {t}) gives an embedding √n V Λᵗ with an entry of magnitude "
                         f"{biggest:.3g}, past the working range's 3.4e38 (λ₁ = {float(values.max()):.4g}, "
                         f"n = {n}): rescale K (a forest kernel's eigenvalues lie in [0, 1]) or use a "
                         f"smaller t")
    return embedding


def _check_underflow(values: np.ndarray, t: int) -> None:
    """A diffusion time so long that every informative λᵗ underflows to 0 gave an all-zero embedding (every
    point at the origin) without a word."""
    informative = values[values > EIGEN_FLOOR]
    if t > 0 and informative.size and not np.any(informative.astype(np.float64) ** t):
        raise ValueError(f"t = {t} is too long a diffusion time: every informative λᵗ underflows to 0 "
                         f"(λ₁ = {float(informative.max()):.6g}), so every point would embed at the origin; "
                         f"use a smaller t")


def dense_diffusion_map(K: Any, n_components: int, t: int = 1) -> DiffusionMap:
    """The same map from a dense LAPACK eigendecomposition (the reference for ``diffusion_map``).

    ``K`` is a finite, symmetric, nonnegative (n, n) kernel without zero rows (entries at most 3.4e38;
    symmetric to :func:`diffusion_map`'s tolerance; its top eigenpair is dropped as the trivial one, as in
    :func:`diffusion_map`);
    ``n_components`` an int in [1, n − 1]; ``t`` (int in [0, 2**63)) the diffusion time, with the derived
    limits of :func:`diffusion_map` (every informative λᵗ underflowing to 0, or an embedding entry past
    3.4e38: each refused by name).
    """
    K = _check_kernel(K)
    K = K.toarray() if sp.issparse(K) else K
    n = K.shape[0]
    _check_components(n_components, t, n, dense=True)
    count, labels = _components(K)
    if count > 1:  # the same split as diffusion_map's: one basis for the repeated eigenvalues
        values, vectors, _ = _split_spectrum(K, n_components + 1, count, labels, dense=True)
    else:
        values, vectors = scipy.linalg.eigh(K, subset_by_index=(n - n_components - 1, n - 1))
        values, vectors = values[::-1], vectors[:, ::-1]
    big = np.abs(vectors).argmax(axis=0)
    vectors = vectors * np.where(vectors[big, np.arange(vectors.shape[1])] < 0, -1.0, 1.0)
    residual = float(np.abs(K @ vectors - vectors * values).max())
    values, vectors = np.clip(values[1:], 0.0, None), vectors[:, 1:]
    _check_underflow(values, t)
    return DiffusionMap(_embedding(n, vectors, values, t), values, vectors, int(t), residual, True, n)


def nystrom(K0: Any, dmap: DiffusionMap) -> np.ndarray:
    """Embed test points from their test-to-train kernel rows ``K0`` (m × n): Z₀ = K₀ Z Λ⁻¹.

    ``dmap`` is the training points' :class:`DiffusionMap`; a component whose eigenvalue is at most
    ``EIGEN_FLOOR`` = 1e-10 (an absolute floor: a forest kernel's eigenvalues lie in [0, 1]) embeds as 0, so a
    kernel scaled below about 1e-10 embeds every test point at 0. ``K0`` holds finite entries >= 0 and no zero
    row (dense of any real dtype, read as float64, or sparse); it is extended linearly as given (rows of a
    forest kernel sum to 1, other rows are not rescaled); m = 0 rows give an empty (0, d) result.
    """
    dmap = checked_dmap(dmap)
    if not sp.issparse(K0):
        K0 = as_real_array("K0", K0)
    elif K0.dtype.kind not in "fiu":  # a complex sparse K0 was embedded as complex (dense: refused)
        raise TypeError(f"K0 must be real, got a sparse matrix of dtype {K0.dtype}")
    if K0.ndim != 2 or K0.shape[1] != dmap.n_samples:
        raise ValueError(f"K0 must have shape (m, {dmap.n_samples}), got {K0.shape}")
    entries = K0.data if sp.issparse(K0) else K0
    if not np.all(np.isfinite(entries)) or np.any(entries < 0):  # NaN rows embedded as NaN, silently
        raise ValueError("K0 must hold finite kernel values >= 0 (no NaN, inf or negative entries)")
    check_entries_in_range("K0", entries)  # a sparse K0 of 1e39 was embedded (dense: refused)
    sums = np.asarray(K0.sum(axis=1)).ravel()
    if sums.size and not np.all(sums > 0):  # a test row sharing no leaf with training: embedded at 0
        raise ValueError(f"K0 must have no zero row (each test point shares a leaf with training points), "
                         f"got row {int(np.flatnonzero(~(sums > 0))[0])} summing to 0")
    inverse = np.divide(1.0, dmap.eigenvalues, out=np.zeros_like(dmap.eigenvalues),
                        where=dmap.eigenvalues > EIGEN_FLOOR)
    return np.asarray(K0 @ dmap.embedding) * inverse
