"""The exact decoder (Section 4.1): leaf assignments by integer programming over the leaf boxes.

A latent vector z₀ gives an estimated kernel row k̂₀ = z₀ Λ Z† + 1/n (the 1/n restores the
trivial component λ₀ = 1, V₀ = 1/√n that the embedding drops; a gap the paper leaves). A
candidate leaf assignment ψ ∈ {0,1}^{d_Φ} predicts the kernel row (1/B) Π S ψ; the decoder
solves the integer linear program of Eq. 3,

    min_ψ ‖k̂₀ − (1/B) Π S ψ‖₁
    s.t. Σ_{ℓ ∈ tree b} ψ_ℓ = 1 for every tree b                    (one-hot)
         ∩_{ℓ: ψ_ℓ = 1} box_ℓ ≠ ∅                                  (overlap),

and draws x̂₀ uniformly from the intersection of the chosen boxes. To keep the program small
(a gap the paper leaves: it notes the ILP scales poorly), each tree offers only its
``n_candidates`` leaves holding the most estimated kernel mass Σ_{i ∈ ℓ} k̂₀ᵢ, and the L1
objective runs over the training points of the candidate leaves (for the others the prediction
is 0 whatever ψ is, so their terms are constant). The overlap constraint is
linear once a point v in that intersection is a variable: ψ_ℓ = 1 forces a_ℓ <= v <= b_ℓ
(v ∈ [0, 1] per numeric feature after scaling to the data range, so no big-M is needed;
an integer code per categorical feature). Numeric boxes are open below, so v ≥ lower + δ with
δ = :data:`BOX_MARGIN` of the range; the final draw keeps δ from both faces of the chosen box (float32
routing), and a box narrower than 2δ decodes to its midpoint. Solved by HiGHS (``scipy.optimize.milp``)
with a time limit per point; the returned assignment is checked against both constraints before use.

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441 (Section 4.1, Eq. 3, Theorem 4.3).

>>> import numpy as np
>>> from sklearn.ensemble import RandomForestRegressor
>>> from algorithms.forests.partition import ForestPartition, forest_kernel
>>> X = np.random.default_rng(0).uniform(size=(30, 2))
>>> forest = RandomForestRegressor(n_estimators=3, max_depth=2, random_state=0).fit(X, X.sum(1))
>>> part = ForestPartition.from_forest(forest)
>>> K0 = forest_kernel(part, X[:2], X).toarray()
>>> dec = exact_decode(K0, part, part.leaves(X), X.min(0), X.max(0), np.zeros(2, bool),
...                    np.random.default_rng(0))
>>> bool(np.array_equal(part.leaves(dec.x), dec.leaves)), dec.solved.tolist()
(True, [True, True])
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from algorithms._validation import (
    WORKING_MAX,
    as_array,
    as_real_array,
    check_generator,
    check_positive_int,
    check_working_range,
    read_only,
    resealed,
    to_float,
)
from algorithms.forests.diffusion import EIGEN_FLOOR, DiffusionMap, checked_dmap
from algorithms.forests.partition import ForestPartition, sample_in_boxes

__all__ = ["BOX_MARGIN", "ExactDecoding", "exact_decode", "kernel_estimate"]

#: numeric boxes are open below: a point must clear the lower bound by this share of the range
BOX_MARGIN = 1e-6


def kernel_estimate(Z0: Any, dmap: DiffusionMap) -> np.ndarray:
    """k̂₀ = Z₀ Λ Z† + 1/n: the kernel rows a set of embeddings implies (m, n).

    ``Z0`` (m, d) are the embeddings to decode (m >= 0: zero rows give an empty (0, n) result; any real
    dtype, read as float64) and ``dmap`` the training :class:`DiffusionMap` (d components).
    """
    dmap = checked_dmap(dmap)  # a field replaced after construction (NaN eigenvalues): by name
    Z0 = as_real_array("Z0", Z0)
    if Z0.ndim != 2 or Z0.shape[1] != dmap.embedding.shape[1]:
        raise ValueError(f"Z0 must have shape (m, {dmap.embedding.shape[1]}), got {Z0.shape}")
    if not np.all(np.isfinite(Z0)):
        raise ValueError("Z0 contains NaN or inf entries")
    keep = dmap.eigenvalues > EIGEN_FLOOR
    # Z† = Λ^{-t} Vᵀ / √n on the kept components (V has orthonormal columns)
    with np.errstate(over="ignore", invalid="ignore"):
        pinv = (dmap.eigenvectors[:, keep] * dmap.eigenvalues[keep] ** (-dmap.t)).T / np.sqrt(dmap.n_samples)
        K = (Z0[:, keep] * dmap.eigenvalues[keep]) @ pinv + 1.0 / dmap.n_samples
    if not np.all(np.abs(K) <= WORKING_MAX):  # λ^-t overflowed: an inf/NaN kernel reached the decoders
        smallest = float(dmap.eigenvalues[keep].min()) if keep.any() else math.nan
        raise ValueError(f"dmap's λ^-t overflows (t = {dmap.t}, smallest kept eigenvalue {smallest:.3g}): "
                         f"the kernel estimate leaves the working range; use a diffusion map of a smaller t")
    return K


@dataclass(frozen=True, eq=False)  # identity, as TSPInstance: the generated == compared arrays
class ExactDecoding:
    """Decoded points ``x`` (m, d), the chosen ``leaves`` (m, B) and whether each ILP was ``solved``
    to a checked feasible assignment (False: time limit without one; that row is NaN); ``objective``
    (m,) is each ILP's optimal value (NaN where not solved).

    Built by hand, it is checked: ``x`` a real (m, d) array, ``leaves`` an int (m, B) array, ``solved`` a
    bool (m,) array and ``objective`` a real (m,) array, with one m (a solved row finite with leaf ids >= 0,
    an unsolved one NaN in x and objective and -1 in leaves); each refused by name, kept as read-only
    copies (a write in place raises numpy's "assignment destination is read-only")."""

    x: np.ndarray
    leaves: np.ndarray
    solved: np.ndarray
    objective: np.ndarray

    def __post_init__(self) -> None:
        x, objective = as_real_array("x", self.x), as_real_array("objective", self.objective)
        leaves, solved = as_array("leaves", self.leaves), as_array("solved", self.solved)
        if x.ndim != 2:
            raise ValueError(f"x must be 2-D (m, d), got shape {x.shape}")
        m = x.shape[0]
        if leaves.dtype.kind not in "iu" or leaves.ndim != 2 or leaves.shape[0] != m:
            raise ValueError(f"leaves must be an int array of shape ({m}, B) (one leaf per tree per row of "
                             f"x), got dtype {leaves.dtype} and shape {leaves.shape}")
        if leaves.size and leaves.min() < -1:  # leaf ids are >= 0, -1 marks an unsolved row: -5 was stored
            raise ValueError(f"leaves must hold leaf ids >= 0 (or -1 in an unsolved row), got {leaves.min()}")
        if solved.dtype != bool or solved.shape != (m,):
            raise ValueError(f"solved must be a bool array of shape ({m},), got dtype {solved.dtype} and "
                             f"shape {solved.shape}")
        if objective.shape != (m,):
            raise ValueError(f"objective must have shape ({m},) (one value per row of x), got "
                             f"{objective.shape}")
        if not np.all(np.isfinite(x[solved])) or not np.all(np.isfinite(objective[solved])):
            # a solved row with NaN was stored: the decoders' "solved" promise was broken in silence
            raise ValueError("x and objective must be finite in every solved row (NaN marks an unsolved row)")
        if leaves.size and leaves[solved].size and leaves[solved].min() < 0:  # -1 marks an unsolved row only
            raise ValueError("leaves must hold leaf ids >= 0 in every solved row (-1 marks an unsolved row)")
        unsolved = ~solved
        if not (np.all(np.isnan(x[unsolved])) and np.all(np.isnan(objective[unsolved]))
                and np.all(leaves[unsolved] == -1)):  # an unsolved row with a finite x read as an answer
            raise ValueError("an unsolved row must be NaN in x and objective and -1 in leaves (as the "
                             "decoder leaves it)")
        # read-only copies: x[0] = nan written into a solved row broke the record's own promise in silence
        for name, value in (("x", x), ("leaves", leaves), ("solved", solved), ("objective", objective)):
            object.__setattr__(self, name, read_only(value))

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable), and the
        record checked again as at construction (a loaded state with NaN entries was used as loaded)."""
        self.__dict__.update({name: resealed(value) for name, value in state.items()})
        self.__post_init__()


def _box_bounds(part: ForestPartition, low: np.ndarray, high: np.ndarray, categorical: np.ndarray):
    """Per-leaf bounds a <= v <= b in the solver's coordinates, and each coordinate's range R."""
    span = np.where(high > low, high - low, 1.0)
    lo = np.clip(part.lower, low, high)
    hi = np.clip(part.upper, low, high)
    a = np.where(categorical, np.floor(lo - low) + 1.0, (lo - low) / span + BOX_MARGIN)
    a = np.where(np.isinf(part.lower), 0.0, a)  # unbounded below: no constraint
    b = np.where(categorical, np.floor(hi - low), (hi - low) / span)
    R = np.where(categorical, np.round(high - low), 1.0)
    return a, np.minimum(b, R), R, span


def _program(A: sp.csr_matrix, row: np.ndarray, tree_of: np.ndarray, a: np.ndarray, b: np.ndarray,
             R: np.ndarray, categorical: np.ndarray, n_trees: int, time_limit: float):
    """HiGHS on Eq. 3 restricted to the candidate leaves (columns of A) and their points (rows)."""
    n, L = A.shape
    d = R.size
    nv = L + d + n  # variable order: ψ (L binaries), v (d), e (n residual magnitudes)
    onehot = sp.csr_matrix((np.ones(L), (tree_of, np.arange(L))), shape=(n_trees, nv))
    ell_lo, j_lo = np.nonzero(a > 0)  # v_j − a ψ >= 0 where the box has a lower face
    ell_hi, j_hi = np.nonzero(b < R)  # v_j + (R − b) ψ <= R where it has an upper face

    def block(ell, j, coef):
        idx = np.arange(ell.size)
        return sp.csr_matrix((np.concatenate([coef, np.ones(ell.size)]),
                              (np.concatenate([idx, idx]), np.concatenate([ell, L + j]))),
                             shape=(ell.size, nv))

    zeros, I_n = sp.csr_matrix((n, d)), sp.identity(n)
    constraints = [
        scipy.optimize.LinearConstraint(onehot, 1.0, 1.0),
        scipy.optimize.LinearConstraint(block(ell_lo, j_lo, -a[ell_lo, j_lo]), 0.0, np.inf),
        scipy.optimize.LinearConstraint(block(ell_hi, j_hi, R[j_hi] - b[ell_hi, j_hi]), -np.inf, R[j_hi]),
        scipy.optimize.LinearConstraint(sp.hstack([A, zeros, I_n]), row, np.inf),  # e >= k̂ − Aψ
        scipy.optimize.LinearConstraint(sp.hstack([-A, zeros, I_n]), -row, np.inf),  # e >= Aψ − k̂
    ]
    c = np.concatenate([np.zeros(L + d), np.ones(n)])
    integrality = np.concatenate([np.ones(L), categorical.astype(float), np.zeros(n)])
    bounds = scipy.optimize.Bounds(np.zeros(nv), np.concatenate([np.ones(L), R, np.full(n, np.inf)]))
    # disp=False: HiGHS stays quiet (a decode of many rows would otherwise fill the console)
    return scipy.optimize.milp(c, constraints=constraints, integrality=integrality, bounds=bounds,
                               options={"time_limit": float(time_limit), "disp": False})


def _check_time_limit(time_limit: Any) -> float:
    """Seconds > 0, a positive scale of the working range, or inf (no limit): np.float32 and Fraction were
    refused with a false message, 5e-324 and 1e308 taken."""
    if isinstance(time_limit, bool | np.bool_) or not isinstance(time_limit, numbers.Real):
        raise TypeError(f"time_limit must be a positive number of seconds (or inf), got "
                        f"{type(time_limit).__name__} {time_limit!r:.40}")
    seconds = to_float(time_limit)
    if not seconds > 0:
        raise ValueError(f"time_limit must be a positive number of seconds (or inf), got {time_limit!r:.40}")
    return seconds if math.isinf(seconds) else check_working_range("time_limit", seconds)


#: the largest |K0_hat| entry exact_decode takes (HiGHS's infinity is 1e20)
K0_MAX = 1e15


def exact_decode(K0_hat: Any, partition: ForestPartition, train_leaves: np.ndarray, low: Any, high: Any,
                 categorical: Any, rng: np.random.Generator, *, n_candidates: int = 4,
                 time_limit: float = 10.0, progress: bool = False) -> ExactDecoding:
    """Decode each row of ``K0_hat`` (m, n) by the ILP of Eq. 3 over ``partition``'s leaf boxes.

    ``K0_hat`` holds finite reals of magnitude at most 1e15 (``K0_MAX``: the ILP's coefficients; a kernel
    estimate's lie near [-1, 1]; larger is refused by name); ``partition`` a :class:`ForestPartition`.

    ``rng`` (a ``numpy.random.Generator``) draws the candidate points; ``n_candidates`` (int >= 1) leaves
    are tried per tree.

    ``train_leaves`` (n, B) are the training points' leaves; ``low``/``high`` (d,) the data range, finite
    reals with low <= high (in the forest's coordinates; categorical features hold integer codes). One
    integer program per row, each up to ``time_limit`` seconds (a float > 0; inf: no limit):
    ``progress=True`` shows a tqdm bar over the rows. A row whose program hits the time limit is marked
    ``solved = False`` in the result, and its answer then depends on the machine's speed and load; with
    ``time_limit=inf`` no row stops on the clock.
    """
    check_generator("rng", rng)
    if not isinstance(progress, bool | np.bool_):
        raise TypeError(f"progress must be a bool, got {type(progress).__name__} {progress!r}")
    if not isinstance(partition, ForestPartition):
        raise TypeError(f"partition must be a ForestPartition, got {type(partition).__name__}")
    partition.checked_forest()  # a field replaced after construction: checked again, by name
    K0_hat = as_real_array("K0_hat", K0_hat)
    train_leaves = as_array("train_leaves", train_leaves)
    B, L = partition.n_trees, partition.n_leaves
    if train_leaves.ndim != 2 or train_leaves.shape[1] != B:
        raise ValueError(f"train_leaves must have shape (n, {B}), got {train_leaves.shape}")
    # leaf ids index the partition's leaves: 10**6 met scipy's "index exceeds matrix dimension"
    if train_leaves.dtype.kind not in "iu" or (train_leaves.size and (
            train_leaves.min() < 0 or train_leaves.max() >= L)):
        span = (train_leaves.min(), train_leaves.max()) if train_leaves.size else (0, 0)
        raise ValueError(f"train_leaves must hold int leaf ids in [0, {L}) (the partition's leaves), got "
                         f"dtype {train_leaves.dtype}, range [{span[0]}, {span[1]}]")
    n = train_leaves.shape[0]
    if K0_hat.ndim != 2 or K0_hat.shape[1] != n:
        raise ValueError(f"K0_hat must have shape (m, {n}), got {K0_hat.shape}")
    if not np.all(np.isfinite(K0_hat)):
        raise ValueError("K0_hat contains NaN or inf entries")
    if K0_hat.size and float(np.max(np.abs(K0_hat))) > K0_MAX:
        # HiGHS reads coefficients from 1e20 on as infinite: K·1e30 made every program fail at once, each
        # row NaN with solved = False, as if the time limit had stopped it
        raise ValueError(f"K0_hat must have entries of magnitude at most {K0_MAX:g} (the ILP's coefficients; "
                         f"a kernel estimate's lie near [-1, 1]), got {float(np.max(np.abs(K0_hat))):.3g}")
    n_candidates = check_positive_int("n_candidates", n_candidates)
    time_limit = _check_time_limit(time_limit)
    low, high = as_real_array("low", low), as_real_array("high", high)
    for name, bound in (("low", low), ("high", high)):
        # NaN passed `low > high` (the sampler's message named lower/upper); ±inf gave NaN solver bounds
        # ((lo − low)/span) and rows reported solved
        if not np.all(np.isfinite(bound)):
            raise ValueError(f"{name} must be finite (the data range per feature), got {bound!r:.80}")
    if low.shape == high.shape and np.any(low > high):  # swapped bounds decoded nothing, in silence
        j = int(np.argmax(low > high))
        raise ValueError(f"low must be <= high (the data range), got low[{j}] = {low[j]!r} > high[{j}] = "
                         f"{high[j]!r}")
    categorical = np.asarray(categorical, dtype=bool)
    d = partition.n_features
    if categorical.shape != (d,) or low.shape != (d,) or high.shape != (d,):  # numpy's broadcast error before
        raise ValueError(f"categorical, low and high must have one entry per feature ({d}), got shapes "
                         f"{categorical.shape}, {low.shape}, {high.shape}")
    if train_leaves.size and np.any(partition.tree_of[train_leaves] != np.arange(B)):
        # column b must hold tree b's leaves: the columns of other trees were decoded in silence
        raise ValueError("train_leaves must hold tree b's leaf ids in column b (partition.tree_of), got "
                         "leaves of other trees")
    Pi = sp.csr_matrix((np.ones(n * B), (np.repeat(np.arange(n), B), train_leaves.ravel())), shape=(n, L))
    counts = np.asarray(Pi.sum(axis=0)).ravel()
    A = sp.csc_matrix(Pi @ sp.diags(np.divide(1.0, counts, out=np.zeros(L), where=counts > 0) / B))
    a, b, R, span = _box_bounds(partition, low, high, categorical)
    m = K0_hat.shape[0]
    x = np.full((m, d), np.nan)
    leaves = np.full((m, B), -1, dtype=np.int64)
    solved = np.zeros(m, dtype=bool)
    objective = np.full(m, np.nan)
    rows = K0_hat
    if progress:
        from tqdm.auto import tqdm

        rows = tqdm(K0_hat, desc="exact decoder (one ILP per row)", leave=False)
    for i, row in enumerate(rows):
        mass = Pi.T @ row
        # per tree, the n_candidates leaves with the most mass (stable order: ties by leaf id)
        order = np.lexsort((-mass, partition.tree_of))
        rank = np.empty(L, dtype=np.int64)
        starts = np.searchsorted(partition.tree_of[order], np.arange(B))
        rank[order] = np.arange(L) - np.repeat(starts, np.diff(np.append(starts, L)))
        cand = np.flatnonzero(rank < n_candidates)
        points = np.unique(Pi[:, cand].nonzero()[0])
        res = _program(sp.csr_matrix(A[points][:, cand]), row[points], partition.tree_of[cand], a[cand],
                       b[cand], R, categorical, B, time_limit)
        if res.x is None:
            continue
        chosen = cand[res.x[:cand.size] > 0.5]
        if not np.array_equal(np.sort(partition.tree_of[chosen]), np.arange(B)):
            continue  # not one leaf per tree: reject the answer
        chosen = chosen[np.argsort(partition.tree_of[chosen])]
        # a categorical face unbounded below keeps the smallest code (the boxes are open below)
        chosen_lower = partition.lower[chosen]
        box_lo = np.where(np.isinf(chosen_lower) & categorical, low - 0.5,
                          np.clip(chosen_lower, low, high)).max(axis=0)
        box_hi = np.clip(partition.upper[chosen], low, high).min(axis=0)
        if np.any(box_hi < box_lo):
            continue  # the overlap constraint failed: reject
        # sample the open-below numeric box away from its lower face (and from its upper face,
        # so that float32 routing cannot round the draw across a threshold); a box narrower than two
        # margins (adjacent thresholds of different trees) decodes to its midpoint, the point farthest
        # from both faces (a draw from the raw box could land on its open lower face)
        inner_lo, inner_hi = box_lo + BOX_MARGIN * span, box_hi - BOX_MARGIN * span
        middle = box_lo + 0.5 * (box_hi - box_lo)  # exact for a constant column (box_lo == box_hi)
        box_lo = np.where(categorical, box_lo, np.minimum(inner_lo, middle))
        box_hi = np.where(categorical, box_hi, np.maximum(inner_hi, middle))
        x[i] = sample_in_boxes(box_lo[None], box_hi[None], categorical, rng)[0]
        rest = np.abs(np.delete(row, points)).sum()  # the constant terms of the dropped points
        leaves[i], solved[i], objective[i] = chosen, True, float(res.fun) + float(rest)
    return ExactDecoding(x, leaves, solved, objective)
