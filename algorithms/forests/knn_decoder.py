"""The k-nearest-neighbour decoder (Section 4.3): decode a latent vector by local averaging.

Each training point i is replaced by a synthetic point x̃ᵢ drawn uniformly from the intersection
of its B leaf boxes (its "maximum compatible rule"; the intersection contains xᵢ, so it is never
empty). A latent vector z₀ is decoded from its k nearest training embeddings Zᵢ (Euclidean
distance in Z is the diffusion distance), weighted by inverse distance w ∝ 1/‖z₀ − Zᵢ‖:

    x̂₀ⱼ = Σ_{i ∈ kNN(z₀)} wᵢ x̃ᵢⱼ         (numeric j),
    x̂₀ⱼ = argmax_c Σ_{i: x̃ᵢⱼ = c} wᵢ       (categorical j, ties broken at random).

Gap the paper leaves: a neighbour at distance 0 would get infinite weight; the neighbours at
distance 0 then share the weight equally. "Distance 0" is up to round-off: at most 1e-12·max(1, the largest
neighbour distance of the batch), an absolute 1e-12 for an embedding of scale below 1 (so every neighbour of
an embedding of scale 1e-13 counts as distance 0 and they share the weight; rescale Z to decode it by
inverse distance). Theorem 4.4: with k → ∞ and k/n → 0 the decoder is
universally consistent.

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441 (Section 4.3, Theorem 4.4).

>>> import numpy as np
>>> Z = np.array([[0.0], [1.0], [2.0]])
>>> Xs = np.array([[0.0, 1.0], [10.0, 0.0], [20.0, 0.0]])
>>> knn_decode(np.array([[0.5]]), Z, Xs, k=2, categorical=np.array([False, True]),
...            rng=np.random.default_rng(0)).tolist()
[[5.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.neighbors import NearestNeighbors

from algorithms._validation import as_array, as_real_array, check_generator
from algorithms.forests.partition import bool_flags, sample_in_boxes

__all__ = ["knn_decode", "synthetic_training_set"]


def synthetic_training_set(leaves: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                           categorical: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform draw per training point from the intersection of its leaf boxes.

    ``categorical`` holds one bool flag per column; ``rng`` is a ``numpy.random.Generator``.

    ``leaves`` (n, B) are global leaf ids whose boxes intersect for each point (disjoint ones are refused
    by name); ``lower``/``upper`` (n_leaves, d) the leaf boxes, already clipped to the data range.
    """
    check_generator("rng", rng)
    leaves, lower, upper = as_array("leaves", leaves), as_array("lower", lower), as_array("upper", upper)
    for name, box in (("lower", lower), ("upper", upper)):  # str boxes met numpy's "ufunc 'maximum'" error
        if box.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a real array of box bounds, got dtype {box.dtype}")
    if leaves.ndim != 2 or not np.issubdtype(leaves.dtype, np.integer):
        raise TypeError(f"leaves must be a 2-D integer array of leaf ids, got {leaves.dtype} of shape "
                        f"{leaves.shape}")
    top = int(leaves.max(initial=-1))
    if lower.ndim != 2 or upper.shape != lower.shape:
        raise ValueError(f"lower and upper must be (n_leaves, d) boxes of one shape, got shapes "
                         f"{lower.shape} and {upper.shape}")
    if top >= lower.shape[0]:  # the boxes agree with each other: the out-of-range id is the odd one
        raise ValueError(f"leaves must be leaf ids below the number of boxes (lower and upper have "
                         f"{lower.shape[0]} rows), got leaf id {top}")
    if leaves.size and int(leaves.min()) < 0:  # a negative id indexed from the end, silently
        raise ValueError(f"leaves must be leaf ids >= 0, got {int(leaves.min())}")
    if not np.all(lower <= upper):  # an inverted (or NaN) box was hidden by the clamp below
        raise ValueError("lower and upper must be boxes with lower <= upper (no NaN) in every leaf")
    box_lower = lower[leaves].max(axis=1)
    box_upper = upper[leaves].min(axis=1)
    empty = box_upper < box_lower
    if np.any(empty):  # a point lies in every one of its leaves: disjoint boxes drew a point outside some
        i, j = (int(v) for v in np.argwhere(empty)[0])
        raise ValueError(f"leaves[{i}] must name leaves whose boxes intersect (a training point lies in "
                         f"each), but feature {j} has lower {float(box_lower[i, j])!r} > upper "
                         f"{float(box_upper[i, j])!r}")
    return sample_in_boxes(box_lower, box_upper, categorical, rng)


def _weights(distances: np.ndarray) -> np.ndarray:
    zero = distances <= 1e-12 * max(1.0, float(distances.max(initial=0.0)))
    inverse = np.divide(1.0, distances, out=np.zeros_like(distances), where=~zero)
    weights = np.where(zero.any(axis=1, keepdims=True), zero.astype(float), inverse)
    return weights / weights.sum(axis=1, keepdims=True)


def knn_decode(Z0: Any, Z_train: Any, X_synthetic: Any, *, k: int, categorical: Any,
               rng: np.random.Generator) -> np.ndarray:
    """Decode the rows of ``Z0`` (m, d) from the ``k`` nearest rows of ``Z_train`` (n, d).

    ``X_synthetic`` (n, p) are the points decoded to (one per row of ``Z_train``); ``categorical`` one
    bool flag per column; ``rng`` a ``numpy.random.Generator`` (ties); ``k`` an int in [1, n], n >= 1. The
    arrays may have any real dtypes, mixed: all are read as float64 (float32, float16 and integers
    promoted), so the result is float64; m = 0 rows give an empty (0, p) result. Each decoded entry is a
    weighted mean of its k neighbours' entries and lies within their range (the weights' rounding is
    clipped away).
    """
    check_generator("rng", rng)
    Z0, Z_train = as_real_array("Z0", Z0), as_real_array("Z_train", Z_train)
    X_synthetic = as_real_array("X_synthetic", X_synthetic)
    for name, value in (("Z_train", Z_train), ("X_synthetic", X_synthetic)):
        if value.ndim != 2:  # a scalar or a list met "tuple index out of range"
            raise ValueError(f"{name} must be a 2-D array (rows, columns), got shape {value.shape}")
    if Z_train.shape[0] == 0:   # the k check named k for an empty training set
        raise ValueError(f"Z_train must hold at least one row (the neighbours decoded from), got shape "
                         f"{Z_train.shape}")
    categorical = bool_flags("categorical", categorical, X_synthetic.shape[1])
    if Z0.ndim != 2 or Z0.shape[1] != Z_train.shape[1]:
        raise ValueError(f"Z0 must have shape (m, {Z_train.shape[1]}), got {Z0.shape}")
    for name, value in (("Z0", Z0), ("Z_train", Z_train), ("X_synthetic", X_synthetic)):
        if not np.all(np.isfinite(value)):  # a NaN training row was a neighbour with NaN distance, silently
            raise ValueError(f"{name} contains NaN or inf entries")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= Z_train.shape[0]:
        raise ValueError(f"k must be an int in [1, n_train = {Z_train.shape[0]}], got {k!r}")
    if X_synthetic.shape[0] != Z_train.shape[0] or categorical.shape != (X_synthetic.shape[1],):
        raise ValueError(f"X_synthetic must have {Z_train.shape[0]} rows and categorical one flag per "
                         f"column, got shapes {X_synthetic.shape} and {categorical.shape}")
    if Z0.shape[0] == 0:  # nothing to decode (NearestNeighbors refused "0 sample(s)", not naming Z0)
        return np.zeros((0, X_synthetic.shape[1]))
    distances, index = NearestNeighbors(n_neighbors=int(k)).fit(Z_train).kneighbors(Z0)
    weights = _weights(distances)
    neighbours = X_synthetic[index]  # (m, k, p)
    # a convex combination lies in its neighbours' range; the weights' rounding (a sum of 1 - 1e-16) put it
    # below: a uint64 column whose rows were all >= 2**63 decoded to 2**63 - 4096 (red25b)
    decoded = np.clip(np.einsum("mk,mkd->md", weights, neighbours), neighbours.min(axis=1),
                      neighbours.max(axis=1))
    for j in np.flatnonzero(categorical):
        labels = X_synthetic[index, j]  # (m, k)
        values = np.unique(labels)
        votes = np.stack([(weights * (labels == v)).sum(axis=1) for v in values], axis=1)
        best = votes >= votes.max(axis=1, keepdims=True) - 1e-12
        tie_break = rng.random(best.shape) * best
        decoded[:, j] = values[tie_break.argmax(axis=1)]
    return decoded
