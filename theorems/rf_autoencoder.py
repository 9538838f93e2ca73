"""Claims of RFAE (Vu, Kapar, Wright, Watson, *Autoencoding Random Forests*, NeurIPS 2025,
arXiv:2505.21441): the forest kernel, its diffusion-map embedding and the decoders.

Instances are generated here from a seed: points on a smooth 2-D sheet in R³ (the consistency
sweeps), uniform boxes (the kernel and ILP checks), and scikit-learn forests grown on them.
The main text has four numbered results: Theorem 3.4 (kernel properties, three parts, mapped
separately), Theorem 4.2 (oracle consistency), Theorem 4.3 (ILP uniqueness), Theorem 4.4
(k-NN consistency).
"""

from __future__ import annotations

import copy
import itertools
import math
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats
import torch
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine
from sklearn.decomposition import PCA
from sklearn.ensemble import ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

from algorithms import RetCode, solve
from algorithms.core import WORKING_MAX
from algorithms.forests import (
    RFAE,
    AutoencodingProblem,
    DiffusionMap,
    ForestPartition,
    RFAutoencoder,
    cooccurrence_kernel,
    dense_diffusion_map,
    diffusion_map,
    distortion,
    exact_decode,
    forest_kernel,
    kernel_estimate,
    knn_decode,
    majority_box,
    nystrom,
    relabel_forest,
    sample_in_boxes,
)
from algorithms.forests.exact_decoder import K0_MAX
from algorithms.forests.knn_decoder import synthetic_training_set
from algorithms.forests.metrics import column_distortion
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import Boundary, boundary_outcome
from theorems.core.certificates import Certificate, Method, Rejected
from theorems.core.evidence import fact, figure, property_outcome
from theorems.core.rates import rate_outcome

PAPER = "rf_autoencoder"
KERNEL_A, KERNEL_B, KERNEL_C = "Theorem 3.4 (a)", "Theorem 3.4 (b)", "Theorem 3.4 (c)"
ORACLE, UNIQUE, KNN = "Theorem 4.2", "Theorem 4.3", "Theorem 4.4"

register_results(PAPER, [
    Result(KERNEL_A, "Under the RF regularity conditions the RF kernel is PSD for every n and its "
                     "training kernel matrix is doubly stochastic", checkable=True),
    Result(KERNEL_B, "The RKHS sequence of the RF kernels is asymptotically universal: every continuous "
                     "function is approximated uniformly as n grows", checkable=True),
    Result(KERNEL_C, "The RKHS sequence is asymptotically characteristic: the kernel mean embedding "
                     "separates Borel measures in the limit", checkable=False,
           why="a statement about all pairs of Borel measures in the limit, proved in one line from (b) "
               "(universal implies characteristic); a finite computation adds nothing to (b)'s check"),
    Result(ORACLE, "A decoder given the true leaves of x (a leaf-assignment oracle) that samples "
                   "uniformly from their intersection is universally consistent", checkable=True),
    Result(UNIQUE, "With a lossless encoder (the true test-to-train kernel row), the ILP of Eq. 3 is "
                   "uniquely solved by the true leaf assignments with probability tending to 1",
           checkable=True),
    Result(KNN, "With k → ∞ and k/n → 0 the k-NN decoder is universally consistent", checkable=True),
    Result("Table 1", "RFAE has the best mean distortion on 12 of 20 tabular datasets against TVAE, "
                      "TTVAE, AE and VAE (average rank 1.80)", checkable=True),
    Result("Figure 1", "Visual summary of the encoding pipeline (data, forest, kernel, eigendecomposition, "
                       "embedding)", checkable=False,
           why="a schematic with no quantity; each stage is what the kernel and Nyström claims run"),
    Result("Figure 2", "Diffusion maps of an MNIST (3, 4, 8, 9) classifier forest separate the digits more "
                       "as tree depth grows", checkable=False,
           why="a qualitative picture on MNIST (not bundled; a 200-tree forest on tens of thousands of "
               "images); a separation index against depth on scikit-learn's 8×8 digits would make it "
               "checkable, not written this round"),
    Result("Figure 3", "MNIST digits autoencoded at d_Z ∈ {2, ..., 32}: recognizable, best at 32",
           checkable=False,
           why="a visual judgment on MNIST with a 1000-tree completely random forest; the reconstruction "
               "quality itself is Table 1's quantity (rf_autoencoder.table1_vs_ae)"),
    Result("Figure 4", "RFAE denoising aligns two scRNA-seq studies (batch effects)", checkable=False,
           why="needs the Zeisel and Tasic transcriptome data (5000 genes, thousands of cells), not "
               "available here, and the alignment is judged from PCA/tSNE pictures"),
])


def _sheet(rng: np.random.Generator, n: int) -> np.ndarray:
    """n points of the smooth sheet (u, v, sin(πu) cos(πv)), u, v ~ U(0, 1), with small noise."""
    u, v = rng.random(n), rng.random(n)
    X = np.column_stack([u, v, np.sin(np.pi * u) * np.cos(np.pi * v)])
    return X + 0.01 * rng.normal(size=X.shape)


# ---------------------------------------------------------------- rf_autoencoder.kernel_properties


@st.composite
def _kernel_instances(draw):
    return (draw(st.integers(0, 2**31 - 1)), draw(st.integers(12, 60)), draw(st.integers(1, 4)),
            draw(st.sampled_from(["regressor", "classifier", "extra_trees", "no_bootstrap"])))


def _forest_for(kind: str, seed: int):
    # min_samples_leaf = 2: every leaf holds >= 2 training points (regularity condition (A5)-like)
    if kind == "classifier":
        return RandomForestClassifier(n_estimators=8, min_samples_leaf=2, random_state=seed)
    if kind == "extra_trees":
        return ExtraTreesRegressor(n_estimators=8, min_samples_leaf=2, random_state=seed)
    return RandomForestRegressor(n_estimators=8, min_samples_leaf=2, bootstrap=kind != "no_bootstrap",
                                 random_state=seed)


def _kernel_check(ctx: Context, kernel) -> Outcome:
    # 1e-10: each entry is a sum of <= B = 8 terms 1/|leaf| and each row sum adds <= n·B = 480
    # such terms, so the float64 rounding error is below 1e-13; eigvalsh's error is ~n·eps·‖K‖.
    tol = 1e-10
    worst = {"row_sum_error": 0.0, "min_eigenvalue": 1.0}

    def test(inst):
        seed, n, d, kind = inst
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, d))
        y = (X[:, 0] > 0).astype(int) if kind == "classifier" else X[:, 0] + rng.normal(size=n)
        forest = _forest_for(kind, seed).fit(X, y)
        K = kernel(forest, X).toarray()
        K_test = kernel(forest, rng.normal(size=(7, d)), X).toarray()
        asym = float(np.abs(K - K.T).max())
        assert asym <= tol, f"K is not symmetric: max |K − Kᵀ| = {asym:.3g}"
        assert K.min() >= 0 and K.max() <= 1 + tol, f"entries outside [0, 1]: [{K.min()}, {K.max()}]"
        lam = float(np.linalg.eigvalsh(K).min())
        assert lam >= -tol, f"K is not PSD: smallest eigenvalue {lam:.3g}"
        err = float(max(np.abs(K.sum(axis=1) - 1).max(), np.abs(K.sum(axis=0) - 1).max(),
                        np.abs(K_test.sum(axis=1) - 1).max()))
        assert err <= tol, f"rows/columns do not sum to 1: max error {err:.3g}"
        worst["row_sum_error"] = max(worst["row_sum_error"], err)
        worst["min_eigenvalue"] = min(worst["min_eigenvalue"], lam)
        return {k: figure(v, floor=1e-12) for k, v in worst.items()}

    return property_outcome(_kernel_instances(), test, ctx=ctx, max_examples=ctx.pick(15, 100),
                            what="the training kernel matrix is symmetric, PSD, in [0, 1] and doubly "
                                 "stochastic, and test-to-train rows sum to 1")


# The mathematics of Theorem 3.4 (a): on the training set K = (1/B) Σ_b P_b, with (P_b)_ij = [i and j share
# a leaf of tree b] / (that leaf's training count). Each P_b is symmetric, idempotent (so PSD) and has unit
# row sums; averages keep all three. The certificate enumerates every leaf partition of n <= 7 points.

#: the enumeration's size bound, and lcm(1, ..., 7), which makes 420·P_b an integer matrix
KERNEL_CERT_N, KERNEL_CERT_SCALE = 7, 420


def _set_partitions(n: int):
    """Every partition of {0..n−1} as a restricted growth string (label of each point, first use in order)."""
    def grow(prefix: list[int], top: int):
        if len(prefix) == n:
            yield tuple(prefix)
            return
        for label in range(top + 2):
            yield from grow([*prefix, label], max(top, label))
    yield from grow([], -1) if n else iter([()])


def _kernel_cert_prove() -> dict:
    counts = [sum(1 for _ in _set_partitions(n)) for n in range(1, KERNEL_CERT_N + 1)]
    return {"n_max": KERNEL_CERT_N, "scale": KERNEL_CERT_SCALE, "partitions_per_n": counts,
            "checked": sum(counts)}


def _kernel_cert_recheck(proof: dict) -> str:
    n_max, scale = int(proof["n_max"]), proof["scale"]
    counts = [int(c) for c in proof["partitions_per_n"]]
    if n_max != KERNEL_CERT_N or len(counts) != n_max or not isinstance(scale, int):
        raise Rejected(f"the artifact's bound {n_max} or counts {counts} are not the certified ones")
    seen = []
    for n in range(1, n_max + 1):
        count = 0
        for labels in _set_partitions(n):
            labels_arr = np.asarray(labels)
            same = labels_arr[:, None] == labels_arr[None, :]
            sizes = np.bincount(labels_arr)[labels_arr]
            if np.any(scale % sizes):
                raise Rejected(f"scale {scale} is not a multiple of the leaf size {sizes.max()}")
            A = np.where(same, scale // sizes[:, None], 0).astype(np.int64)  # 420·P_b, exactly
            if not (np.array_equal(A, A.T) and np.array_equal(A @ A, scale * A)
                    and np.all(A.sum(axis=1) == scale)):
                raise Rejected(f"partition {labels}: P is not symmetric, idempotent and stochastic")
            count += 1
        seen.append(count)
    if seen != counts or sum(seen) != int(proof["checked"]):
        raise Rejected(f"enumerated {seen} partitions, the artifact says {counts} ({proof['checked']})")
    return (f"all {sum(seen)} leaf partitions of n <= {n_max} training points give P_b symmetric, idempotent "
            f"(PSD) with unit row sums, in exact integer arithmetic ({scale}·P_b)")


def _kernel_cert_refute() -> dict:
    return {"labels": [0, 0, 1]}  # one leaf holding points 0 and 1, one holding point 2


def _kernel_cert_recheck_witness(witness: dict) -> str:
    labels = np.asarray([int(v) for v in witness["labels"]])
    cooccurrence = (labels[:, None] == labels[None, :]).astype(np.int64)
    sums = cooccurrence.sum(axis=1)
    if np.all(sums == 1):
        raise Rejected("the co-occurrence matrix of this partition is stochastic: no counterexample")
    return f"co-occurrence matrix of leaves {labels.tolist()} has row sums {sums.tolist()}, not all 1"


KERNEL_CERTIFICATE = Certificate(
    statement="On the training points, one tree's kernel matrix P, P_ij = [i, j in the same leaf]/(leaf "
              "count), is symmetric, idempotent (hence PSD: its eigenvalues are 0 and 1) and has every row "
              "and column summing to 1, for every leaf partition; the forest kernel (1/B)Σ_b P_b is then "
              "PSD and doubly stochastic for every B (both properties are kept by averages): Theorem 3.4 (a) "
              "with leaf sizes counted over the training points",
    scope="every partition of n <= 7 training points into leaves (all 1155), hence every forest of any "
          "number of trees on n <= 7 points; for general n it is the identity (1/m²)·1_ℓ1_ℓᵀ1_ℓ1_ℓᵀ = "
          "(1/m)·1_ℓ1_ℓᵀ, not enumerated",
    method=Method.ENUMERATION,
    trusts="numpy int64 matrix arithmetic (entries <= 420, no overflow); convexity of the PSD cone and "
           "of the doubly stochastic matrices",
    prove=_kernel_cert_prove,
    recheck=_kernel_cert_recheck,
    control_statement="the unnormalized co-occurrence (Scornet) kernel, [i, j share a leaf], is also "
                      "doubly stochastic",
    refute=_kernel_cert_refute,
    recheck_witness=_kernel_cert_recheck_witness,
)


register(Claim(
    id="rf_autoencoder.kernel_properties", paper=PAPER, origin=Origin.PAPER, covers=(KERNEL_A,),
    source="Theorem 3.4 (a) (proof in Appendix A.1)",
    statement="For random forests (bootstrap or not, regression, classification or extra trees, "
              "n in [12, 60], 1-4 features), the forest kernel matrix on the training set is "
              "symmetric, PSD, with entries in [0, 1] and every row and column summing to 1; "
              "test-to-train rows also sum to 1",
    deviation="Checked on drawn finite forests rather than under the paper's regularity conditions "
              "(A1)-(A5); test-to-train row sums are an addition (the stochasticity of k(x, ·)).",
    kind=Kind.PROPERTY,
    check=lambda ctx: _kernel_check(ctx, forest_kernel),
    control=lambda ctx: _kernel_check(ctx, cooccurrence_kernel),
    control_description="the unnormalized co-occurrence (Scornet) kernel in place of the RF kernel: "
                        "its rows sum to the mean leaf size, not 1",
    certificate=KERNEL_CERTIFICATE,
    expected_verdict="certified",
))


# ---------------------------------------------------------------- rf_autoencoder.exact_decoder_feasible


@st.composite
def _decoder_instances(draw):
    return draw(st.integers(0, 2**31 - 1)), draw(st.integers(30, 60)), draw(st.booleans())


def _ignore_first_tree(part: ForestPartition) -> ForestPartition:
    """Sabotage: the decoder sees tree 0's leaves as unbounded, so its boxes constrain nothing. Written past
    the constructor (which refuses boxes that are not the forest's since round 20): a shallow copy whose box
    fields are replaced, as a corrupted partition would reach the decoder."""
    first = part.tree_of == 0
    lower, upper = part.lower.copy(), part.upper.copy()
    lower[first], upper[first] = -np.inf, np.inf
    return _with_boxes(part, lower, upper)


def _with_boxes(part: ForestPartition, lower: np.ndarray, upper: np.ndarray) -> ForestPartition:
    """A copy of ``part`` with other boxes, written past the constructor's check (a sabotage's input), and
    past the check of a replaced field at use (since round 23): its validation record is taken anew."""
    from algorithms._validation import remember_validated

    sabotaged = copy.copy(part)
    object.__setattr__(sabotaged, "lower", lower)
    object.__setattr__(sabotaged, "upper", upper)
    remember_validated(sabotaged)
    return sabotaged


def _decoder_check(ctx: Context, *, sabotage: bool) -> Outcome:
    def test(inst):
        seed, n, with_categorical = inst
        rng = np.random.default_rng(seed)
        # numeric columns on ranges that are neither [0, 1] nor of unit length, so that a dropped
        # offset or scale in the solver's coordinates shows
        X = rng.random((n, 3)) * [2.0, 0.5, 1.0] + [3.0, -1.0, 0.0]
        categorical = np.array([False, False, with_categorical])
        if with_categorical:
            X[:, 2] = rng.integers(0, 4, n)
        forest = RandomForestRegressor(n_estimators=4, max_depth=3, random_state=seed).fit(
            X, X[:, 0] + X[:, 1] + X[:, 2])
        part = ForestPartition.from_forest(forest)
        ae_leaves = part.leaves(X)
        K0 = forest_kernel(part, X[:4], X).toarray() + 0.02 * rng.random((4, n))  # a noisy kernel row
        used = _ignore_first_tree(part) if sabotage else part
        dec = exact_decode(K0, used, ae_leaves, X.min(0), X.max(0), categorical, rng, time_limit=5.0)
        assert dec.solved.all(), f"the ILP found no checked solution for {int((~dec.solved).sum())} rows"
        routed = part.leaves(dec.x)
        outside = int((routed != dec.leaves).sum())
        assert outside == 0, f"{outside} (point, tree) pairs fall outside the chosen leaf box"
        return {"rows_decoded": int(dec.solved.sum())}

    edge = [] if sabotage else _decoder_edge_faults() + _narrow_box_faults()
    if edge:
        return fact(False, f"exact decoder at the edges of its boxes: {'; '.join(edge)}")
    return property_outcome(_decoder_instances(), test, ctx=ctx, max_examples=ctx.pick(8, 60),
                            what="every point the exact decoder returns lies in each chosen leaf box")


class _EdgeGenerator(np.random.Generator):
    """A Generator whose uniform draws all equal ``value`` (0 or the largest double below 1): the
    extreme draws inside a box, where a margin of the wrong sign leaves it."""

    def __init__(self, value: float) -> None:
        super().__init__(np.random.PCG64(0))
        self.value = value

    def random(self, size=None, dtype=np.float64, out=None):
        return np.full(size, self.value)


def _decoder_edge_faults() -> list[str]:
    """The exact decoder on a table built to reach the edges of its boxes: a categorical column split
    only between codes 1 and 2 (its lower leaf unbounded below holds codes {0, 1}, boxes are open
    below, so code 0 must stay drawable), a numeric column split in the middle, and a constant column.
    (a) the constant column decodes to its value exactly; (b) decoding a row of the lower categorical
    leaf 16 times draws code 0 at least once (uniform over {0, 1}: missing it has probability 2^-16);
    (c) with every uniform draw at 0 or at 1 − 2^-53, each decoded point still routes to the chosen
    leaves (the float32 safety margin keeps it off the faces), on one training row per (categorical leaf,
    side of the numeric split)."""
    rng = np.random.default_rng(7)
    n = 48
    # the numeric column on [0, 1000] (#46 round 6, seed-11 survivor: a margin of 1e-6 absolute instead of
    # 1e-6 of the range is below float32's spacing there, so a draw at the lower face crosses the threshold)
    X = np.column_stack([1000.0 * rng.random(n), np.tile([0.0, 1.0, 2.0, 3.0], n // 4), np.full(n, 5.0)])
    categorical = np.array([False, True, False])
    forest = RandomForestRegressor(n_estimators=2, max_depth=2, random_state=0).fit(
        X, 4.0 * (X[:, 1] >= 2) + (X[:, 0] > 500.0))
    part = ForestPartition.from_forest(forest)
    train_leaves = part.leaves(X)
    low_row = int(np.flatnonzero((X[:, 1] == 0) & (X[:, 0] < 500.0))[0])
    rows = np.repeat(forest_kernel(part, X[[low_row]], X).toarray(), 16, axis=0)
    faults = []
    dec = exact_decode(rows, part, train_leaves, X.min(0), X.max(0), categorical, rng, time_limit=5.0)
    if not dec.solved.all():
        return [f"{int((~dec.solved).sum())} of 16 rows unsolved"]
    if not np.all(dec.x[:, 2] == 5.0):
        faults.append(f"the constant column 5.0 decoded as {np.unique(dec.x[:, 2]).tolist()[:3]}")
    if not np.any(dec.x[:, 1] == 0.0):
        faults.append(f"code 0 never drawn from the lower leaf (codes {np.unique(dec.x[:, 1]).tolist()})")
    corners = [int(np.flatnonzero(((X[:, 1] >= 2) == hi_code) & ((X[:, 0] > 500.0) == hi_x))[0])
               for hi_code in (False, True) for hi_x in (False, True)]
    every = forest_kernel(part, X[corners], X).toarray()
    for value in (0.0, 1.0 - 2.0**-53):
        edge = exact_decode(every, part, train_leaves, X.min(0), X.max(0), categorical,
                            _EdgeGenerator(value), time_limit=5.0)
        off = int((part.leaves(edge.x[edge.solved]) != edge.leaves[edge.solved]).sum())
        if off or not edge.solved.all():
            faults.append(f"uniform draws at {value:.17g}: {off} (point, tree) pairs off the chosen leaves, "
                          f"{int((~edge.solved).sum())} rows unsolved")
    return faults


def _narrow_box_faults() -> list[str]:
    """(#46 round 6: the known narrow-leaf bug) Two depth-1 trees split column 0 at t₀ ≈ 0.5000007 and
    t₁ ≈ 0.5000022 (adjacent training values 1.5e-6 apart), so the leaf choice (t₀, t₁] of the training row
    between them is 1.49 BOX_MARGIN of the range wide: narrower than the two margins the final draw keeps
    from the faces. With every uniform draw at 0 or at 1 − 2^-53 its decoded point must still route to the
    chosen leaves (float32 rounds t₀ down and t₁ up here, so a draw on either face leaves them); and a row of
    the wide box (0, t₀] must still be drawn over the whole box: the draw at 0 in its lower half, the draw at
    1 − 2^-53 in its upper half."""
    rng = np.random.default_rng(5)
    n = 40
    spread = rng.random(n - 3) * 0.9
    spread = np.where(spread > 0.45, spread + 0.1, spread)  # no training value in [0.45, 0.55) but three
    X = np.column_stack([np.concatenate([[0.5, 0.5 + 1.5e-6, 0.5 + 3e-6], spread]), rng.random(n)])
    forest = RandomForestRegressor(n_estimators=2, max_depth=1, random_state=0).fit(X, X[:, 0])
    forest.estimators_ = [DecisionTreeRegressor(max_depth=1, random_state=0).fit(X, target.astype(float))
                          for target in (X[:, 0] > X[0, 0], X[:, 0] > X[1, 0])]
    part = ForestPartition.from_forest(forest)
    wide_row = int(np.flatnonzero(X[:, 0] < 0.45)[0])
    rows = forest_kernel(part, X[[1, wide_row]], X).toarray()
    middle = (X[:, 0].min() + forest.estimators_[0].tree_.threshold[0]) / 2  # of the wide box (0, t₀]
    faults = []
    for value, half in ((0.0, "lower"), (1.0 - 2.0**-53, "upper")):
        dec = exact_decode(rows, part, part.leaves(X), X.min(0), X.max(0), np.zeros(2, dtype=bool),
                           _EdgeGenerator(value), time_limit=5.0)
        if not (dec.solved.all() and np.array_equal(part.leaves(dec.x), dec.leaves)):
            faults.append(f"uniform draws at {value:.17g}: decoded {dec.x[:, 0].tolist()} (a box 1.49 "
                          f"margins wide, a wide box), routed to leaves {part.leaves(dec.x).tolist()}, not "
                          f"the chosen {dec.leaves.tolist()}")
        elif (dec.x[1, 0] < middle) != (half == "lower"):
            faults.append(f"uniform draws at {value:.17g}: the wide box (0, t0] decoded to {dec.x[1, 0]!r}, "
                          f"not in its {half} half (midpoint {middle!r})")
    return faults


register(Claim(
    id="rf_autoencoder.exact_decoder_feasible", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="Section 4.1, Eq. 3 (the one-hot and overlap constraints of the ILP)",
    statement="On forests of 4 trees of depth 3 over 3 features (numeric ones on [3, 5] and [−1, −0.5], the "
              "third optionally categorical), the exact decoder's ILP is solved for every noisy kernel row "
              "and the decoded point is routed by every tree to the leaf the ILP chose; and on a table built"
              " to reach the boxes' edges (2 trees of depth 2, a categorical column split between codes 1 "
              "and 2, a numeric one on [0, 1000], a constant one) a constant column decodes exactly, the "
              "smallest code of a leaf unbounded below is drawn (at least once in 16 draws from {0, 1}), and"
              " with every uniform draw at 0 or at 1 − 2^-53 four decoded training rows still route to their"
              " chosen leaves; (#46 round 6) on 2 depth-1 trees whose thresholds are 1.49 BOX_MARGIN of the "
              "range apart, the training row between them decodes into its chosen leaves at both extreme "
              "draws (a box narrower than two margins decodes to its midpoint), and a row of a wide box is "
              "drawn into its lower half at draw 0 and its upper half at draw 1 − 2^-53",
    kind=Kind.PROPERTY,
    check=lambda ctx: _decoder_check(ctx, sabotage=False),
    control=lambda ctx: _decoder_check(ctx, sabotage=True),
    control_description="a decoder that ignores tree 0's boxes (its leaves unbounded) in the overlap "
                        "constraint and in the final draw",
))


# ---------------------------------------------------------------- rf_autoencoder.ilp_uniqueness


def _uniqueness_check(ctx: Context, *, lossy: bool) -> Outcome:
    rng = ctx.rng("uniqueness")
    n, m = ctx.pick(200, 1000), ctx.pick(15, 60)
    X = rng.random((n, 2))
    forest = RandomForestRegressor(n_estimators=5, max_depth=4, random_state=int(rng.integers(2**31))).fit(
        X, np.sin(4 * X[:, 0]) + X[:, 1])
    part = ForestPartition.from_forest(forest)
    X_test = rng.random((m, 2))
    truth = part.leaves(X_test)
    if lossy:  # assumption broken: the kernel row comes back from a 2-dimensional embedding
        ae = RFAutoencoder(n_components=2, forest=forest, random_state=0, supervised=True)
        ae.fit(X, np.sin(4 * X[:, 0]) + X[:, 1])
        part, truth = ae.partition_, ae.partition_.leaves(X_test)
        K0 = kernel_estimate(ae.transform(X_test), ae.dmap_)
    else:
        K0 = forest_kernel(part, X_test, X).toarray()
    dec = exact_decode(K0, part, part.leaves(X), np.zeros(2), np.ones(2), np.zeros(2, bool), rng,
                       time_limit=5.0)
    recovered = float(np.mean(np.all(dec.leaves == truth, axis=1)))
    # 0.9: "with high probability" at n = 200 training points; the paper gives no rate
    return fact(recovered >= 0.9, "the ILP recovers the true leaves of >= 90 % of the test points",
                recovered=recovered, n_train=n, n_test=m)


register(Claim(
    id="rf_autoencoder.ilp_uniqueness", paper=PAPER, origin=Origin.PAPER, covers=(UNIQUE,),
    source="Theorem 4.3 (proof in Appendix A.3)",
    statement="Given the exact test-to-train kernel rows (a lossless encoder), the ILP of Eq. 3 returns "
              "the true leaf assignments (forest.apply) of at least 90 % of uniform test points, for a "
              "5-tree depth-4 forest on n = 200 uniform points in [0, 1]²",
    deviation="A finite n with a 90 % recovery threshold we chose, for 'uniquely solved with probability "
              "tending to 1 as n → ∞'; the ILP offers each tree its 4 leaves of largest kernel mass.",
    kind=Kind.NUMERIC,
    check=lambda ctx: _uniqueness_check(ctx, lossy=False),
    control=lambda ctx: _uniqueness_check(ctx, lossy=True),
    control_description="a lossy encoder: the kernel rows estimated from a 2-dimensional diffusion map "
                        "(the theorem's lossless-encoder assumption broken)",
))


# ---------------------------------------------------------------- consistency sweeps (Thms 4.2, 4.4)

_SIZES = (100, 200, 400, 800)
_FULL_SIZES = (100, 200, 400, 800, 1600, 3200)


@lru_cache(maxsize=32)
def _fitted(seed: int, n: int) -> tuple[RFAutoencoder, np.ndarray, np.ndarray]:
    """An unsupervised RFAE on n sheet points, and 100 held-out points (cached: both sweeps use it)."""
    rng = np.random.default_rng([seed, n])
    X, X_test = _sheet(rng, n), _sheet(rng, 100)
    k = max(2, round(np.sqrt(n)))  # k → ∞, k/n → 0
    ae = RFAutoencoder(n_components=4, n_estimators=30, k=k, random_state=seed).fit(X)
    return ae, X, X_test


def _sweep(ctx: Context, decode, *, name: str) -> Outcome:
    sizes = ctx.pick(_SIZES, _FULL_SIZES)
    seeds = range(ctx.seed, ctx.seed + ctx.pick(3, 8))
    values = np.array([[decode(*_fitted(s, n), np.random.default_rng([s, n, 7])) for n in sizes]
                       for s in seeds])
    # "consistent" as a finite-range statement: the held-out distortion decays at least like n^-0.1
    return rate_outcome(sizes, values, claimed=-0.1, relation="<=", ctx=ctx, margin=0.0, max_width=1.0,
                        what=f"{name}: held-out distortion decays at least like n^-0.1",
                        plot_name=f"{name}_{ctx.role}.png", xlabel="n (training points)",
                        ylabel="held-out distortion")


def _knn_distortion(ae, X, X_test, rng, *, shuffle: bool) -> float:
    Z = ae.transform(X_test)
    if shuffle:  # control: embeddings of other (independent) test points
        Z = Z[rng.permutation(len(Z))]
    return distortion(X_test, ae.inverse_transform(Z))


def _oracle_distortion(ae, X, X_test, rng, *, shuffle: bool) -> float:
    leaves = ae.partition_.leaves(X_test)
    if shuffle:  # control: the leaves of other (independent) test points
        leaves = leaves[rng.permutation(len(leaves))]
    box_lo, box_hi = ae.lower_[leaves].max(axis=1), ae.upper_[leaves].min(axis=1)
    return distortion(X_test, sample_in_boxes(box_lo, np.maximum(box_lo, box_hi), ae.categorical_, rng))


register(Claim(
    id="rf_autoencoder.knn_consistency", paper=PAPER, origin=Origin.PAPER, covers=(KNN,),
    source="Theorem 4.4 (proof in Appendix A.4)",
    statement="For an unsupervised (synthetic-contrast) forest of 30 trees on n points of a smooth 2-D "
              "sheet in R³, the k-NN decoder with k = round(√n) reconstructs held-out points from their "
              "4-D Nyström embeddings with a distortion (mean 1 − R²) whose log-log slope in n over "
              "n = 100..800 has a 95 % bootstrap interval below −0.1",
    deviation="Consistency is tested as a decay at least like n^-0.1 over a finite range of n on one "
              "distribution, not convergence in probability for all distributions.",
    kind=Kind.RATE,
    check=lambda ctx: _sweep(ctx, lambda *a: _knn_distortion(*a, shuffle=False), name="knn_consistency"),
    control=lambda ctx: _sweep(ctx, lambda *a: _knn_distortion(*a, shuffle=True), name="knn_consistency"),
    control_description="decoding the embeddings of shuffled (independent) test points: the error "
                        "cannot fall with n",
))

register(Claim(
    id="rf_autoencoder.oracle_consistency", paper=PAPER, origin=Origin.PAPER, covers=(ORACLE,),
    source="Theorem 4.2 (proof in Appendix A.2)",
    statement="For the same forests and data, the oracle decoder (the true leaves of each held-out point, "
              "then a uniform draw from their intersection clipped to the data range) has a held-out "
              "distortion whose log-log slope in n over n = 100..800 has a 95 % interval below −0.1",
    deviation="Consistency is tested as a decay at least like n^-0.1 over a finite range of n on one "
              "distribution, not convergence in probability for all distributions.",
    kind=Kind.RATE,
    check=lambda ctx: _sweep(ctx, lambda *a: _oracle_distortion(*a, shuffle=False), name="oracle"),
    control=lambda ctx: _sweep(ctx, lambda *a: _oracle_distortion(*a, shuffle=True), name="oracle"),
    control_description="an oracle that hands over the leaves of another (independent) test point",
))


# ---------------------------------------------------------------- rf_autoencoder.universality


def _universality(ctx: Context, *, max_depth: int | None) -> Outcome:
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 30), np.linspace(0, 1, 30)), -1).reshape(-1, 2)
    target = np.sin(2 * np.pi * grid[:, 0]) + grid[:, 1] ** 2

    def sup_error(seed: int, n: int) -> float:
        rng = np.random.default_rng([seed, n, 3])
        X = rng.random((n, 2))
        y = np.sin(2 * np.pi * X[:, 0]) + X[:, 1] ** 2
        forest = RandomForestRegressor(n_estimators=10, max_depth=max_depth, min_samples_leaf=2,
                                       random_state=seed).fit(X, y)
        sections = forest_kernel(forest, grid, X).toarray()  # k(·, x_i) on the grid
        coef = np.linalg.lstsq(sections, target, rcond=None)[0]
        return float(np.abs(sections @ coef - target).max())

    sizes = ctx.pick((50, 100, 200, 400), (50, 100, 200, 400, 800, 1600))
    seeds = range(ctx.seed, ctx.seed + ctx.pick(3, 8))
    values = np.array([[sup_error(s, n) for n in sizes] for s in seeds])
    return rate_outcome(sizes, values, claimed=-0.1, relation="<=", ctx=ctx, margin=0.0, max_width=1.0,
                        what="sup error of the best RKHS fit decays at least like n^-0.1",
                        plot_name=f"universality_{ctx.role}.png", xlabel="n (training points)",
                        ylabel="sup error of the best RKHS fit")


register(Claim(
    id="rf_autoencoder.universality", paper=PAPER, origin=Origin.PAPER, covers=(KERNEL_B,),
    source="Theorem 3.4 (b) (proof in Appendix A.1, Lemma A.1)",
    statement="For f*(x) = sin(2πx₁) + x₂² on [0, 1]² and forests of 10 trees grown on n uniform points, "
              "the sup-norm (on a 30 × 30 grid) error of the least-squares fit of f* by the kernel "
              "sections k(·, xᵢ) decays with n: log-log slope over n = 50..400 with 95 % interval "
              "below −0.1",
    deviation="One continuous target, a grid sup-norm, and a polynomial decay over a finite range of n "
              "for 'approximated to any ε for n large enough'.",
    kind=Kind.RATE,
    check=lambda ctx: _universality(ctx, max_depth=None),
    control=lambda ctx: _universality(ctx, max_depth=1),
    control_description="stumps (max_depth = 1): the leaf count does not grow with n, violating "
                        "condition (A5), so the RKHS stays two-dimensional per tree",
))


# ---------------------------------------------------------------- rf_autoencoder.beats_pca

_DATASETS = {"wine": load_wine, "breast_cancer": load_breast_cancer, "diabetes": load_diabetes,
             "digits": load_digits}


def _beats_pca(ctx: Context, *, sabotage: bool) -> Outcome:
    rows, n_components = {}, 2
    for name, loader in _DATASETS.items():
        X = StandardScaler().fit_transform(loader().data)
        X_train, X_test = train_test_split(X, test_size=0.25, random_state=ctx.seed)
        if name == "digits":
            X_train, X_test = X_train[:ctx.pick(600, 1347)], X_test[:150]
        # near-constant columns (digits' border pixels) make a held-out R² meaningless: drop them
        keep = (X_train.std(axis=0) > 0.1) & (X_test.std(axis=0) > 0.1)
        X_train, X_test = X_train[:, keep], X_test[:, keep]
        ae = RFAutoencoder(n_components=n_components, n_estimators=ctx.pick(30, 200),
                           random_state=ctx.seed).fit(X_train)
        Z = ae.transform(X_test)
        if sabotage:  # control: the decoder sees unrelated embeddings
            Z = Z[np.random.default_rng(ctx.seed).permutation(len(Z))]
        rfae = 1 - distortion(X_test, ae.inverse_transform(Z))
        pca = PCA(n_components).fit(X_train)
        rows[name] = (figure(rfae, 4), figure(1 - distortion(X_test, pca.inverse_transform(
            pca.transform(X_test))), 4))
    wins = {k: v[0] >= v[1] for k, v in rows.items()}
    return Outcome("pass" if all(wins.values()) else "fail",
                   f"RFAE R² >= PCA R² at d_Z = 2 on {sum(wins.values())} of {len(wins)} datasets",
                   {"statement": "RFAE R² >= PCA R² per dataset", "r2_rfae_vs_pca": rows})


register(Claim(
    id="rf_autoencoder.beats_pca", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="Section 5 (Reconstruction); the brief's PCA peer (Table 1 compares with neural autoencoders)",
    statement="At latent dimension 2, on standardized wine, breast cancer, diabetes and digits (held-out "
              "25 %), the mean per-column R² of the RFAE (k-NN decoder) reconstruction is at least PCA's",
    kind=Kind.NUMERIC,
    check=lambda ctx: _beats_pca(ctx, sabotage=False),
    control=lambda ctx: _beats_pca(ctx, sabotage=True),
    control_description="the decoder given shuffled (unrelated) embeddings",
    # measured: PCA wins on all four datasets at d_Z = 2 (see paper_notes/rf_autoencoder.md)
    expected_verdict="falsified",
))


# ---------------------------------------------------------------- rf_autoencoder.table1_vs_ae


class _AE(torch.nn.Module):
    """Table 1's plain AE column at CPU scale: d_X → 32 → d_Z → 32 → d_X, tanh (the benchmark's peer)."""

    def __init__(self, d_in: int, d_z: int) -> None:
        super().__init__()
        linear, tanh = torch.nn.Linear, torch.nn.Tanh
        self.encoder = torch.nn.Sequential(linear(d_in, 32), tanh(), linear(32, d_z))
        self.decoder = torch.nn.Sequential(linear(d_z, 32), tanh(), linear(32, d_in))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(X))


def _ae_reconstruction(train: np.ndarray, test: np.ndarray, d_z: int, seed: int, epochs: int) -> np.ndarray:
    """Adam lr 1e-2, full-batch MSE, ``epochs`` epochs, seeded; on one thread (a net this small runs ten
    times slower on two contended threads than on one, measured)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _ae_fit(train, test, d_z, seed, epochs)
    finally:
        torch.set_num_threads(threads)


def _ae_fit(train: np.ndarray, test: np.ndarray, d_z: int, seed: int, epochs: int) -> np.ndarray:
    torch.manual_seed(seed)
    model = _AE(train.shape[1], d_z)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    X = torch.tensor(train, dtype=torch.float32)
    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.mean((model(X) - X) ** 2)
        loss.backward()
        opt.step()
    with torch.no_grad():
        return model(torch.tensor(test, dtype=torch.float32)).numpy().astype(float)


def _split(name: str, seed: int, profile: str) -> tuple[np.ndarray, np.ndarray]:
    """Standardized table ``name``, 25 % held out (split ``seed``), near-constant columns dropped."""
    X = StandardScaler().fit_transform(_DATASETS[name]().data)
    X_train, X_test = train_test_split(X, test_size=0.25, random_state=seed)
    if name == "digits":
        X_train, X_test = X_train[:Context(profile=profile).pick(600, 1347)], X_test[:150]
    keep = (X_train.std(axis=0) > 0.1) & (X_test.std(axis=0) > 0.1)
    return X_train[:, keep], X_test[:, keep]


def _table1_pair(name: str, seed: int, profile: str, d_z: int, *, sabotage: bool) -> tuple[float, float]:
    """(distortion of RFAE, distortion of the AE) on held-out rows: 1 − R² averaged over columns."""
    ctx = Context(seed=seed, profile=profile)
    X_train, X_test = _split(name, seed, profile)
    rfae = RFAutoencoder(n_components=d_z, n_estimators=ctx.pick(30, 200), random_state=seed).fit(X_train)
    reconstruction = rfae.inverse_transform(rfae.transform(X_test))
    if sabotage:  # control: RFAE's reconstructions handed back in the wrong order (a row-index bug)
        reconstruction = reconstruction[np.random.default_rng(seed).permutation(len(X_test))]
    rf = distortion(X_test, reconstruction)
    ae = distortion(X_test, _ae_reconstruction(X_train, X_test, d_z, seed, ctx.pick(300, 500)))
    return rf, ae


def _table1(ctx: Context, *, sabotage: bool) -> Outcome:
    # quick: 2 splits × 4 tables = 8 pairs, past the ≈ 5 that the first measurement said would decide
    splits = [ctx.seed + k for k in range(ctx.pick(2, 5))]
    dims = ctx.pick((2,), (2, 4))
    rows, diffs = {}, []
    for name in _DATASETS:
        for d_z in dims:
            for seed in splits:
                rf, ae = _table1_pair(name, seed, ctx.profile, d_z, sabotage=sabotage)
                diffs.append(ae - rf)
                rows.setdefault(f"{name}_dz{d_z}", []).append((figure(rf, 4), figure(ae, 4)))
    diffs_arr = np.array(diffs)
    n = diffs_arr.size
    mean, sd = float(diffs_arr.mean()), float(diffs_arr.std(ddof=1))
    # paired t interval at level 0.95 over the (table, d_Z, split) pairs: the AE's distortion minus RFAE's
    half = float(scipy.stats.t.ppf(0.975, n - 1)) * sd / np.sqrt(n)
    low, high = mean - half, mean + half
    wins = sum(float(np.mean([r for r, _ in v])) < float(np.mean([a for _, a in v])) for v in rows.values())
    needed = int(np.ceil((1.959964 * sd / abs(mean)) ** 2)) if mean != 0 else None
    status = "pass" if low > 0 else "fail" if high < 0 else "undecided"
    tail = f"; about {needed} pairs would decide" if status == "undecided" else ""
    return Outcome(status, f"distortion AE − RFAE: mean {mean:+.4f}, 95 % interval [{low:+.4f}, {high:+.4f}] "
                           f"over {n} pairs; RFAE lower on {wins} of {len(rows)} rows{tail}",
                   {"rows_rfae_vs_ae": rows, "mean": figure(mean, 4),
                    "interval": [figure(low, 4), figure(high, 4)], "rfae_wins": wins, "rows": len(rows),
                    "pairs_that_would_decide": needed})


register(Claim(
    id="rf_autoencoder.table1_vs_ae", paper=PAPER, origin=Origin.PAPER, covers=("Table 1",),
    source="Section 5 (Reconstruction), Table 1 (the AE column)",
    statement="On standardized wine, breast cancer, diabetes and digits (25 % held out), the RFAE (k-NN "
              "decoder) reconstructs held-out rows with lower distortion (mean over columns of 1 − R²) "
              "than a plain autoencoder of the same latent dimension: the 95 % paired t interval of the "
              "distortion difference AE − RFAE over (table, d_Z, split) pairs lies above 0 (pass), below "
              "it (fail), or straddles it (undecided, with the pairs that would decide); d_Z = 2 and two "
              "splits quick (8 pairs), d_Z ∈ {2, 4} and 5 splits full (40)",
    deviation="Table 1's competitors TVAE, TTVAE and VAE are not run, only its plain AE column (a small "
              "MLP d_X → 32 → d_Z → 32 → d_X, 300 epochs quick, 500 full); four bundled scikit-learn "
              "tables instead of its 20 (two of them, breast cancer and diabetes, share names with its "
              "rows but the diabetes table differs); a 75/25 split instead of bootstrap out-of-bag rows; "
              "30 trees quick, 200 full (the paper: 500); numeric columns only",
    kind=Kind.NUMERIC,
    check=lambda ctx: _table1(ctx, sabotage=False),
    control=lambda ctx: _table1(ctx, sabotage=True),
    control_description="RFAE's reconstructions returned in a shuffled row order (a row-index bug; its "
                        "distortion near 2), so the AE must win and the check must fail",
    # quick, runner seed: AE − RFAE −0.062, interval [−0.110, −0.014] over 8 pairs (the AE lower on 3 of
    # the 4 tables); 4 pairs (the first measurement) gave [−0.21, +0.02]
    expected_verdict="falsified",
))


# ---------------------------------------------------------------- rf_autoencoder.exact_decoder_optimal


def _brute_force_optimum(row, part, train_leaves, low, high, categorical) -> float:
    """min over every one-leaf-per-tree choice whose boxes overlap of ‖k̂ − (1/B) Π S ψ‖₁."""
    B = part.n_trees
    n = train_leaves.shape[0]
    counts = np.bincount(train_leaves.ravel(), minlength=part.n_leaves)
    # an unbounded lower face admits the smallest code (boxes are open below)
    lo = np.where(np.isinf(part.lower) & categorical, low - 0.5, np.clip(part.lower, low, high))
    hi = np.clip(part.upper, low, high)
    best = np.inf
    per_tree = [np.flatnonzero(part.tree_of == b) for b in range(B)]
    for choice in itertools.product(*per_tree):
        box_lo, box_hi = lo[list(choice)].max(axis=0), hi[list(choice)].min(axis=0)
        # the box (box_lo, box_hi] must hold a point: a real one for numeric features, an integer
        # code for categorical ones
        ok = np.where(categorical, np.floor(box_hi) > box_lo, box_hi > box_lo)
        if not ok.all():
            continue
        predicted = np.zeros(n)
        for leaf in choice:
            predicted += (train_leaves == leaf).any(axis=1) / counts[leaf] / B
        best = min(best, float(np.abs(row - predicted).sum()))
    return best


def _infeasible_favourites() -> list[str]:
    """(#46 round 5, seed-5 survivor: the ILP's lower-face rows filtered by ``a > 1``) Each kernel row here is
    exactly what one leaf choice whose boxes share no point predicts (objective 0 there), so the decoder must
    still return the best choice that is feasible. Four depth-1 trees, fitted one by one: two split the
    numeric column 0 at ≈ 0.18 and ≈ 0.79 (lower leaf of the first with upper leaf of the second: empty in
    column 0; the second's lower face sits at 0.79 of the range), two split the categorical column 2 between
    codes 2 and 3 (lower leaf {2} of one with upper leaf {3, .., 6} of the other: no common code; that lower
    face is the first code, a = 1 in the solver's coordinates). (#46 round 6, seed-8 survivor: the codes start
    at 2, not 0, so that an upper face offset by the smallest code instead of less it shows.)"""
    rng = np.random.default_rng(3)
    n = 40
    X = np.column_stack([rng.random(n), rng.random(n), np.tile([2.0, 3.0, 4.0, 5.0, 6.0], n // 5)])
    categorical = np.array([False, False, True])
    forest = RandomForestRegressor(n_estimators=4, max_depth=1, random_state=0).fit(X, X[:, 0])
    forest.estimators_ = [DecisionTreeRegressor(max_depth=1, random_state=0).fit(X, target.astype(float))
                          for target in (X[:, 0] > 0.2, X[:, 0] > 0.8, X[:, 2] >= 3, X[:, 2] >= 3)]
    part = ForestPartition.from_forest(forest)
    train_leaves = part.leaves(X)
    counts = np.bincount(train_leaves.ravel(), minlength=part.n_leaves)
    per_tree = [np.flatnonzero(part.tree_of == b) for b in range(part.n_trees)]
    low_leaf = [int(ids[np.isinf(part.lower[ids]).all(axis=1)][0]) for ids in per_tree]  # unbounded below
    high_leaf = [int(ids[~np.isinf(part.lower[ids]).all(axis=1)][0]) for ids in per_tree]

    def predicted(choice):
        share = [(train_leaves[:, b] == leaf) / counts[leaf] for b, leaf in enumerate(choice)]
        return sum(share) / part.n_trees

    rows = np.array([predicted([low_leaf[0], high_leaf[1], low_leaf[2], low_leaf[3]]),
                     predicted([low_leaf[0], low_leaf[1], low_leaf[2], high_leaf[3]])])
    dec = exact_decode(rows, part, train_leaves, X.min(0), X.max(0), categorical, rng, n_candidates=2,
                       time_limit=5.0)
    faults = []
    for i, (row, column) in enumerate(zip(rows, ("numeric", "categorical"), strict=True)):
        reference = _brute_force_optimum(row, part, train_leaves, X.min(0), X.max(0), categorical)
        found = dec.objective[i] if dec.solved[i] else np.inf
        # 1e-7: HiGHS' default MIP and feasibility tolerances on an objective of size ~1 (as below)
        if not (reference > 0.1 and abs(found - reference) <= 1e-7):
            faults.append(f"a row favouring leaves disjoint in the {column} column: ILP objective "
                          f"{found:.6g} vs the feasible optimum {reference:.6g}")
    return faults


def _touching_faces() -> list[str]:
    """(#46 round 6, seed-9 survivor: the numeric lower faces without their margin) Two depth-1 trees
    split column 0 at the same threshold t, so the upper leaf (t, ∞) of one and the lower leaf (−∞, t] of
    the other share no point; they only touch at t, which a lower face without the open-below margin would
    admit. For the kernel row that this choice predicts exactly, the decoder must return the feasible
    optimum (> 0.1)."""
    rng = np.random.default_rng(4)
    n = 30
    X = rng.random((n, 2))
    forest = RandomForestRegressor(n_estimators=2, max_depth=1, random_state=0).fit(X, X[:, 0])
    forest.estimators_ = [DecisionTreeRegressor(max_depth=1, random_state=0).fit(X, (X[:, 0] > 0.5) * 1.0)
                          for _ in range(2)]
    part = ForestPartition.from_forest(forest)
    train_leaves = part.leaves(X)
    counts = np.bincount(train_leaves.ravel(), minlength=part.n_leaves)
    upper0 = int(np.flatnonzero((part.tree_of == 0) & ~np.isinf(part.lower[:, 0]))[0])
    lower1 = int(np.flatnonzero((part.tree_of == 1) & np.isinf(part.lower[:, 0]))[0])
    row = ((train_leaves[:, 0] == upper0) / counts[upper0]
           + (train_leaves[:, 1] == lower1) / counts[lower1]) / 2
    low, high, flags = X.min(0), X.max(0), np.zeros(2, dtype=bool)
    dec = exact_decode(row[None], part, train_leaves, low, high, flags, rng, time_limit=5.0)
    reference = _brute_force_optimum(row, part, train_leaves, low, high, flags)
    found = dec.objective[0] if dec.solved[0] else np.inf
    # 1e-7: HiGHS' default MIP and feasibility tolerances on an objective of size ~1 (as below)
    if not (reference > 0.1 and abs(found - reference) <= 1e-7):
        return [f"a row favouring leaves that touch at one threshold: ILP objective {found:.6g} vs the "
                f"feasible optimum {reference:.6g}"]
    return []


def _reported_objective() -> list[str]:
    """(#46 round 6, seed-8 survivor: the reported objective with the dropped rows' terms subtracted) With
    n_candidates = 2 below the leaves of a depth-3 tree, the program runs over the training rows of the
    candidate leaves only and the others' terms (constant in ψ) are added back: the reported objective must
    equal ‖k̂ − (1/B) Π S ψ‖₁ over all n rows for the returned leaves ψ, evaluated here directly."""
    rng = np.random.default_rng(11)
    X = rng.random((16, 2))
    # depth 3 on 16 rows: leaves of one training row too (seed-9 survivor: such leaves given no mass)
    forest = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, X[:, 0] - X[:, 1])
    part = ForestPartition.from_forest(forest)
    train_leaves = part.leaves(X)
    counts = np.bincount(train_leaves.ravel(), minlength=part.n_leaves)
    # noise on every entry, so that the rows outside the candidate leaves carry terms > 0
    rows = forest_kernel(part, X[:2], X).toarray() + 0.02 * rng.random((2, 16))
    dec = exact_decode(rows, part, train_leaves, X.min(0), X.max(0), np.zeros(2, dtype=bool), rng,
                       n_candidates=2, time_limit=5.0)
    faults = []
    for i, row in enumerate(rows):
        if not dec.solved[i]:
            faults.append(f"row {i} (a training row's kernel row plus noise) unsolved with n_candidates = 2")
            continue
        predicted = sum((train_leaves[:, b] == leaf) / counts[leaf]
                        for b, leaf in enumerate(dec.leaves[i])) / part.n_trees
        direct = float(np.abs(row - predicted).sum())
        # 1e-7: HiGHS' default MIP and feasibility tolerances on an objective of size ~1 (as below)
        if abs(dec.objective[i] - direct) > 1e-7:
            faults.append(f"row {i}: reported objective {dec.objective[i]:.9g}, but ‖k̂ − (1/B) Π S ψ‖₁ of "
                          f"the returned leaves is {direct:.9g} (n_candidates = 2 below the leaves per tree)")
    return faults


def _optimality_check(ctx: Context, *, sabotage: bool) -> Outcome:
    worst = {"max_gap": 0.0}
    disjoint = [] if sabotage else _infeasible_favourites() + _reported_objective() + _touching_faces()
    if disjoint:
        return fact(False, f"exact decoder on rows favouring disjoint leaves: {'; '.join(disjoint)}")

    def test(seed):
        rng = np.random.default_rng(seed)
        X = rng.random((40, 3))
        X[:, 2] = rng.integers(2, 7, 40)  # codes from 2: an offset by the smallest code shows (#46 round 6)
        categorical = np.array([False, False, True])
        forest = RandomForestRegressor(n_estimators=3, max_depth=2, random_state=seed).fit(
            X, X[:, 0] - X[:, 1] + X[:, 2])
        part = ForestPartition.from_forest(forest)
        train_leaves = part.leaves(X)
        # each row mixes the kernel rows of two random points: the trees' favourite leaves then
        # need not overlap, so the overlap constraint binds
        pair = forest_kernel(part, rng.random((4, 3)) * [1, 1, 4] + [0, 0, 2], X).toarray()
        weight = rng.uniform(0.3, 0.7, (2, 1))
        rows = weight * pair[:2] + (1 - weight) * pair[2:] + 0.02 * rng.random((2, 40))
        used = _with_boxes(part, np.full_like(part.lower, -np.inf), np.full_like(part.upper, np.inf)) \
            if sabotage else part
        # n_candidates = 4 >= every tree's leaf count (depth 2): the ILP sees the whole feasible set
        dec = exact_decode(rows, used, train_leaves, X.min(0), X.max(0), categorical, rng,
                           n_candidates=4, time_limit=5.0)
        for i, row in enumerate(rows):
            reference = _brute_force_optimum(row, part, train_leaves, X.min(0), X.max(0), categorical)
            found = dec.objective[i] if dec.solved[i] else np.inf
            # 1e-7: HiGHS' default MIP and feasibility tolerances on an objective of size ~1
            gap = abs(found - reference)
            assert gap <= 1e-7, f"ILP objective {found:.6g} vs brute-force optimum {reference:.6g}"
            worst["max_gap"] = max(worst["max_gap"], gap)
        return {"max_gap": figure(worst["max_gap"], floor=1e-9)}

    return property_outcome(st.integers(0, 2**31 - 1), test, ctx=ctx, max_examples=ctx.pick(6, 40),
                            what="the exact decoder's ILP optimum equals the brute-force optimum of Eq. 3")


register(Claim(
    id="rf_autoencoder.exact_decoder_optimal", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="Section 4.1, Eq. 3 (the ILP: L1 objective, one-hot and overlap constraints)",
    statement="On forests of 3 depth-2 trees over 3 features (one categorical with 5 codes), for noisy "
              "kernel rows (mixtures of two points' rows) the exact decoder's objective equals the minimum "
              "of ‖k̂ − (1/B) Π S ψ‖₁ over all one-leaf-per-tree choices whose boxes share a point, found by"
              " enumeration; and on 4 depth-1 trees whose leaves can be disjoint in a numeric and in a "
              "categorical column, for the two rows that a disjoint choice predicts exactly, the decoder "
              "returns the feasible optimum (> 0.1) rather than failing; (#46 round 6) the categorical codes"
              " start at 2, and with n_candidates = 2 below the leaf count (depth 3, leaves of one training "
              "row among them) the reported objective equals ‖k̂ − (1/B) Π S ψ‖₁ over all rows for the "
              "returned leaves; for a row favouring two leaves that touch at one threshold (no common point)"
              " the decoder returns the feasible optimum",
    kind=Kind.NUMERIC,
    check=lambda ctx: _optimality_check(ctx, sabotage=False),
    control=lambda ctx: _optimality_check(ctx, sabotage=True),
    control_description="the decoder without the overlap constraint (every box unbounded): its ILP "
                        "reaches leaf choices that share no point, below the true optimum",
))


# ---------------------------------------------------------------- rf_autoencoder.nystrom_roundtrip


def _roundtrip_check(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("roundtrip")
    X, X_test = _sheet(rng, 120), _sheet(rng, 20)
    t = 2  # a diffusion time != 1, so that a dropped or misplaced Λᵗ shows
    ae = RFAutoencoder(n_components=6, n_estimators=10, t=t, random_state=int(rng.integers(2**31))).fit(X)
    K = forest_kernel(ae.partition_, X).toarray()
    K0 = forest_kernel(ae.partition_, X_test, X).toarray()
    # the reference: LAPACK's eigenpairs of the dense K (signs fixed by the largest-magnitude entry,
    # the convention of diffusion_map), and Z = √n V Λᵗ written out here from them
    values, vectors = np.linalg.eigh(K)
    values, vectors = values[::-1][1:7], vectors[:, ::-1][:, 1:7]
    vectors = vectors * np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(6)])
    Z = np.sqrt(len(X)) * vectors * values**t
    Z0 = ae.transform(X_test)  # through the leaf weights W = S Πᵀ Z Λ⁻¹
    truncated = (vectors * values) @ vectors.T + 1.0 / len(X)
    estimate = kernel_estimate(ae.embedding_, ae.dmap_)
    if sabotage:  # the trivial component dropped from the kernel estimate
        estimate = estimate - 1.0 / len(X)
    # 1e-8: eigenpairs to ARPACK's machine-precision tolerance; the eigenvectors' error is
    # ~eps·‖K‖ / (eigengap), and the smallest gap among the kept pairs (reported) is 0.02 at seed 0;
    # K entries <= 1, so every side carries errors far below 1e-8
    gaps = np.abs(np.diff(np.concatenate([[1.0], values, [np.linalg.eigvalsh(K)[-8]]])))
    dense = dense_diffusion_map(K, 6, t)
    errors = {"embedding": float(np.abs(ae.embedding_ - Z).max()),
              "nystrom": float(np.abs(Z0 - K0 @ Z / values).max()),
              "nystrom_function": float(np.abs(nystrom(K0, ae.dmap_) - K0 @ Z / values).max()),
              "dense_diffusion_map": float(np.abs(dense.embedding - Z).max()),
              "dense_reported_residual": dense.residual,
              "training_rows": float(np.abs(ae.transform(X) - Z).max()),
              "eigenvalues": float(np.abs(ae.eigenvalues_ - values).max()),
              "kernel_estimate": float(np.abs(estimate - truncated).max()),
              "reported_residual": ae.dmap_.residual}
    capped = _capped_arpack()
    ok = max(errors.values()) <= 1e-8 and not capped
    return fact(ok, "Z = √n V Λᵗ as LAPACK's; Nyström through leaf weights = K₀ Z Λ⁻¹ and = Z on the "
                "training rows; k̂(Z) = the rank-(d+1) truncation of K; the reported residuals (ARPACK's "
                "and LAPACK's) are small; ARPACK capped before convergence reports it and keeps the shapes"
                + (f" (capped runs: {'; '.join(capped)})" if capped else ""),
                **{k: figure(v, floor=1e-12) for k, v in errors.items()},
                smallest_eigengap=figure(float(gaps.min()), 3))


def _capped_arpack() -> list[str]:
    """diffusion_map's documented cap: with maxiters reached first, converged is False and only the
    Ritz pairs ARPACK settled are reported (the rest zero, no dense substitute), in the requested shapes.
    On this 60 × 60 kernel (v0 from seed 0) one restart settles 1 of the 6 pairs, 3 settle 2."""
    A = np.random.default_rng(0).random((60, 60))
    K = (A + A.T) / 2
    K = K / K.sum(axis=1).max()
    faults = []
    for maxiters in (1, 3):
        dmap = diffusion_map(K, 5, maxiters=maxiters)
        shapes = (dmap.embedding.shape, dmap.eigenvalues.shape)
        if dmap.converged or shapes != ((60, 5), (5,)) or not np.all(np.isfinite(dmap.embedding)):
            faults.append(f"maxiters={maxiters}: converged={dmap.converged}, shapes {shapes}")
    # (#46 round 6, seed-8 survivor) the same cap through solve: fit keeps ARPACK's capped pairs (its dense
    # fallback is for an uncapped ARPACK that gives up) and the retcode says MaxIters; 1 restart settles no
    # pair of this 60-row kernel
    X = np.random.default_rng(0).normal(size=(60, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the kNN decoder's memorization warning
        sol = solve(AutoencodingProblem(X), RFAE(n_components=5, n_estimators=5, k=5), maxiters=1, seed=0)
    if sol.retcode != RetCode.MaxIters or sol.original.dmap_.converged:
        faults.append(f"solve(RFAE) with maxiters=1: retcode {sol.retcode.name}, eigenpairs converged="
                      f"{sol.original.dmap_.converged} (documented: MaxIters, ARPACK's capped pairs kept)")
    return faults


register(Claim(
    id="rf_autoencoder.nystrom_roundtrip", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="Section 3 (the diffusion map Z = √n V Λᵗ and Nyström Z₀ = K₀ Z Λ⁻¹) and Section 4.1 "
           "(k̂₀ = Z₀ Λ Z†)",
    statement="For a 10-tree RFAE with d_Z = 6 and diffusion time t = 2 on 120 sheet points, its "
              "training embedding equals √n V Λᵗ from LAPACK's eigenpairs of the dense kernel, its "
              "Nyström embedding of 20 new points equals K₀ Z Λ⁻¹ and that of the training rows equals "
              "Z, its eigenvalues equal LAPACK's, its reported eigen-residual max |K V − V Λ| is below "
              "1e-8 (and so is dense_diffusion_map's), and the kernel estimate of the training embedding "
              "equals V Λ Vᵀ + 1/n over the kept pairs; diffusion_map capped at 1 or 3 ARPACK restarts on "
              "a 60 × 60 kernel (1 or 2 of 6 pairs settled) reports converged = False with the requested "
              "shapes, and solve(RFAE) with maxiters = 1 returns MaxIters with ARPACK's capped pairs (no "
              "dense fallback)",
    kind=Kind.NUMERIC,
    check=lambda ctx: _roundtrip_check(ctx, sabotage=False),
    control=lambda ctx: _roundtrip_check(ctx, sabotage=True),
    control_description="a kernel estimate without the trivial component 1/n",
))


def _knn_reference(Z0: np.ndarray, Z_train: np.ndarray, synthetic: np.ndarray, k: int,
                   categorical: np.ndarray) -> np.ndarray:
    """The k-NN decoder written out: the k nearest training embeddings by Euclidean distance,
    weights ∝ 1/distance, a weighted mean per numeric column and a weighted vote per categorical
    one (continuous queries: no distance 0 and no tied vote, almost surely). Training points that
    share all their leaves have equal embeddings; scikit-learn's search picks the neighbours so
    that such ties at the k-th distance are broken as in the decoder."""
    dist, index = NearestNeighbors(n_neighbors=k).fit(Z_train).kneighbors(Z0)
    w = 1.0 / dist
    w /= w.sum(axis=1, keepdims=True)
    neighbours = synthetic[index]  # (m, k, d)
    decoded = np.einsum("mk,mkd->md", w, neighbours)
    for j in np.flatnonzero(categorical):
        labels = np.unique(neighbours[:, :, j])
        votes = np.stack([(w * (neighbours[:, :, j] == c)).sum(axis=1) for c in labels], axis=1)
        decoded[:, j] = labels[votes.argmax(axis=1)]
    return decoded


# ---------------------------------------------------------------- rf_autoencoder.mixed_roundtrip

_GRADES = ["low", "mid", "high"]  # a declared category order that is not alphabetical


def _mixed_frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    u = rng.random(n)
    return pd.DataFrame({
        "size": u + 0.05 * rng.normal(size=n),
        "grade": pd.Categorical(np.array(_GRADES)[np.minimum((3 * u).astype(int), 2)], categories=_GRADES),
        "city": np.where(rng.random(n) < u, "Rome", "Oslo"),
        "member": rng.random(n) > u,
        "count": rng.integers(0, 5, n),
    })


def _codes(frame: pd.DataFrame) -> np.ndarray:
    """Our own encoding: declared category order, sorted labels for strings, False < True."""
    return np.column_stack([frame["size"].to_numpy(), frame["grade"].cat.codes.to_numpy(),
                            (frame["city"] == "Rome").to_numpy(), frame["member"].to_numpy(),
                            frame["count"].to_numpy()]).astype(np.float64)


def _mixed_check(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("mixed")
    frame, test = _mixed_frame(rng, 150), _mixed_frame(rng, 40)
    seed = int(rng.integers(2**31))
    k = 5  # k > 1 and below n: a decoder that ignores or caps k shows
    ae = RFAutoencoder(n_components=3, n_estimators=10, k=k, random_state=seed).fit(frame)
    if sabotage:  # a code-to-label mix-up: the fitted category table of "grade" reversed (written past the
        # read-only guard of categories_, as a bug inside fit would)
        dict.__setitem__(ae.categories_, "grade", ae.categories_["grade"][::-1])
    # the same estimator fitted on our integer codes: the same forest, hence the same embedding
    plain = RFAutoencoder(n_components=3, n_estimators=10, k=k, random_state=seed).fit(_codes(frame))
    Z = ae.transform(test)
    decoded = ae.inverse_transform(Z)
    expected = _knn_reference(Z, ae.embedding_, ae.synthetic_, k, ae.categorical_)
    expected[:, 4] = np.round(expected[:, 4])  # an integer column comes back rounded
    figures = {"embedding_vs_codes": float(np.abs(ae.embedding_ - plain.embedding_).max()),
               "transform_vs_codes": float(np.abs(Z - plain.transform(_codes(test))).max()),
               "decoded_vs_knn_reference": float(np.abs(_codes(decoded) - expected).max())}
    same_frame = list(decoded.columns) == list(frame.columns) and decoded.dtypes.equals(frame.dtypes)
    # 1e-9: both fits see identical float64 inputs and seeds, so they differ by BLAS order at most;
    # the decoded numbers are convex combinations of 5 synthetic values in [−0.2, 4.2]
    ok = same_frame and max(figures.values()) <= 1e-9
    return fact(ok, "a mixed DataFrame is encoded as its category codes and decoded back to the "
                "k-NN decoder's labels with its columns and dtypes",
                same_columns_and_dtypes=float(same_frame),
                **{k: figure(v, floor=1e-12) for k, v in figures.items()})


register(Claim(
    id="rf_autoencoder.mixed_roundtrip", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="Section 5 (mixed tabular data: continuous and categorical features) and Section 4.3 (the "
           "k-NN decoder's categorical vote)",
    statement="For an RFAE (10 trees, d_Z = 3, k = 5) fitted on a 150-row DataFrame with a float, an "
              "ordered categorical (declared order low < mid < high), a string, a bool and an int "
              "column, the embedding and the Nyström embedding of 40 new rows equal those of the same "
              "estimator fitted on the integer codes we compute ourselves, and the decoded DataFrame "
              "has the input's columns and dtypes and re-encodes to the inverse-distance-weighted mean "
              "(numeric) and weighted vote (categorical) of the 5 nearest training points' synthetic rows",
    kind=Kind.NUMERIC,
    check=lambda ctx: _mixed_check(ctx, sabotage=False),
    control=lambda ctx: _mixed_check(ctx, sabotage=True),
    control_description="a fitted model whose category table for the 'grade' column is reversed (codes "
                        "mapped to the wrong labels, in encoding and decoding)",
))


# ---------------------------------------------------------------- rf_autoencoder.knn_decoder_weights


def _knn_weights_check(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("knn_weights")
    worst = 0.0
    for _ in range(ctx.pick(5, 40)):
        n, m, k = 60, 25, 7
        Z_train, Z0 = rng.normal(size=(n, 2)), rng.normal(size=(m, 2))
        synthetic = rng.normal(size=(n, 3))
        synthetic[:, 2] = rng.integers(0, 3, n)
        categorical = np.array([False, False, True])
        used = Z_train[rng.permutation(n)] if sabotage else Z_train
        decoded = knn_decode(Z0, used, synthetic, k=k, categorical=categorical, rng=rng)
        reference = _knn_reference(Z0, Z_train, synthetic, k, categorical)
        worst = max(worst, float(np.abs(decoded - reference).max()))
    # a tie up to round-off is a tie: neighbours at distances 3 and 6 (label 0) against 2 (label 1)
    # weigh 1/3 + 1/6 = 1/2 each mathematically, 0.5 and 0.5000000000000001 in floats; the documented
    # random tie-break must then give both labels over 40 rows (missing one has probability 2^-39)
    near, labels = np.array([[3.0], [6.0], [2.0]]), np.array([[0.0], [0.0], [1.0]])
    # one call, 40 identical queries: each row's tie-break is its own uniform draw
    tie = set(knn_decode(np.zeros((40, 1)), near, labels, k=3, categorical=np.array([True]),
                         rng=np.random.default_rng(0))[:, 0].tolist())
    # a neighbour at distance 0 up to round-off (documented gap: the distance-0 neighbours share the weight;
    # "0" is <= 1e-12·max(1, largest distance), relative to the embedding's scale once that exceeds 1) is an
    # exact match: the decode is its synthetic row exactly. Checked with every distance below 1 (the
    # neighbour at 1e-13, the others at 1e-3) and with the embedding scaled by 1e9 (at 1e-7 against 1e6);
    # the other rows' values are 1e6-3e6, so any weight left on them shows (1e-10 relative weight: 3e-4)
    square = np.array([[0.0, 0.0], [1e-3, 0.0], [0.0, 1e-3], [-1e-3, 0.0]])
    far_values = np.array([[0.0], [1e6], [2e6], [3e6]])
    exact = [float(knn_decode(np.array([[offset, 0.0]]), scale * square, far_values, k=3,
                              categorical=np.array([False]), rng=np.random.default_rng(0))[0, 0])
             for scale, offset in ((1.0, 1e-13), (1e9, 1e-7))]
    # 1e-10: each entry is a convex combination of 7 standard normals, so round-off is ~1e-15
    return fact(worst <= 1e-10 and tie == {0.0, 1.0} and exact == [0.0, 0.0],
                "the k-NN decoder is the inverse-distance-weighted mean (numeric) and the "
                "weighted vote (categorical) of the k nearest rows, a vote tied up to round-off broken at "
                f"random (labels drawn: {sorted(tie)}), a neighbour at distance 0 up to round-off taking all "
                f"the weight (decoded {exact}, its row 0.0)", max_error=figure(worst, floor=1e-12))


register(Claim(
    id="rf_autoencoder.knn_decoder_weights", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="Section 4.3 (the k-NN decoder: inverse-diffusion-distance weights, weighted mean for "
           "continuous features, weighted majority vote for categorical ones)",
    statement="For 60 training embeddings in R², 25 query embeddings and k = 7 (Gaussian draws), the "
              "k-NN decoder's numeric columns equal the mean of the 7 nearest synthetic rows weighted by "
              "inverse Euclidean distance, and its categorical column equals their weighted majority vote; "
              "a vote tied up to round-off (weights 1/3 + 1/6 against 1/2) is broken at random (both labels "
              "over 40 identical queries); (#46 round 4) a neighbour at distance <= 1e-12·max(1, largest "
              "distance) is an exact match and the decode is its synthetic row exactly, both with every "
              "distance below 1 (1e-13 against 1e-3) and with the embedding scaled by 1e9 (1e-7 against 1e6)",
    kind=Kind.NUMERIC,
    check=lambda ctx: _knn_weights_check(ctx, sabotage=False),
    control=lambda ctx: _knn_weights_check(ctx, sabotage=True),
    control_description="training embeddings permuted against their synthetic rows (the pairing of a "
                        "neighbour with its row broken)",
))


# --------------------------------------------------------------------------- assumptions

def _assumption_cases() -> list[Boundary]:
    """The documented input conditions of the autoencoder, the diffusion map, the kNN decoder and the
    distortion, each probed just inside and just outside its boundary."""
    tiny = 1e-12  # a step past each real-valued boundary
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 2))
    y = (X[:, 0] > 0).astype(int)
    n = X.shape[0]

    def fit(X=X, y=None, **params):
        return RFAutoencoder(**{"n_estimators": 3, "random_state": 0, **params}).fit(X, y)

    fitted = fit()
    with_nan = X.copy()
    with_nan[0, 0] = np.nan
    K = np.ones((6, 6)) + np.eye(6)
    asymmetric = K.copy()
    asymmetric[0, 1] += 1e-6  # 1e-6 relative: far above the documented 1e-8 symmetry tolerance
    zero_row = K.copy()
    zero_row[0], zero_row[:, 0] = 0.0, 0.0  # a point with degree 0: no transition probabilities
    one = np.zeros((6, 6))
    one[0, 0] = 1.0  # inside: that point's only mass a self-loop of 1e-300 (degree > 0)
    Z_train, X_syn = rng.normal(size=(5, 2)), rng.normal(size=(5, 3))
    flags = np.zeros(3, dtype=bool)

    def knn(k=2, Z0=Z_train[:2], X_synthetic=X_syn, categorical=flags):
        return knn_decode(Z0, Z_train, X_synthetic, k=k, categorical=categorical,
                          rng=np.random.default_rng(0))

    dmap = dense_diffusion_map(K, 2)
    return [
        Boundary("n_components >= 1", "n_components", lambda: fit(n_components=1),
                 lambda: fit(n_components=0)),
        Boundary("n_components <= n - 2", "n_components", lambda: fit(n_components=n - 2),
                 lambda: fit(n_components=n - 1)),
        Boundary("diffusion time t >= 0", "t", lambda: fit(t=0), lambda: fit(t=-1)),
        Boundary("a known decoder", "decoder", lambda: fit(decoder="exact"), lambda: fit(decoder="nearest")),
        Boundary("k >= 1 neighbours", "k", lambda: fit(k=1), lambda: fit(k=0)),
        Boundary("n_estimators >= 1", "n_estimators", lambda: fit(n_estimators=1),
                 lambda: fit(n_estimators=0)),
        Boundary("random_state < 2**32", "random_state", lambda: fit(random_state=2**32 - 1),
                 lambda: fit(random_state=2**32)),
        Boundary("random_state >= 0", "random_state", lambda: fit(random_state=0),
                 lambda: fit(random_state=-1)),
        Boundary("supervised=True needs y", "y", lambda: fit(y=y, supervised=True),
                 lambda: fit(supervised=True)),
        Boundary("supervised None, True or False", "supervised", lambda: fit(supervised=False),
                 lambda: fit(supervised="yes")),
        Boundary("finite X", "X", lambda: fit(X=X * 1e3), lambda: fit(X=with_nan)),
        Boundary("X of the fitted width", "X", lambda: fitted.transform(X),
                 lambda: fitted.transform(X[:, :1])),
        Boundary("the kernel square", "K", lambda: dense_diffusion_map(K, 2),
                 lambda: dense_diffusion_map(K[:5], 2)),
        Boundary("the kernel symmetric", "K", lambda: dense_diffusion_map(K + 1e-9 * np.eye(6), 2),
                 lambda: dense_diffusion_map(asymmetric, 2)),
        Boundary("the kernel without a zero row", "K",
                 lambda: dense_diffusion_map(zero_row + 1e-300 * one, 2),
                 lambda: dense_diffusion_map(zero_row, 2)),
        Boundary("the kernel finite", "K", lambda: dense_diffusion_map(K * 1e30, 2),
                 lambda: dense_diffusion_map(np.where(K > 1.5, np.inf, K), 2)),
        Boundary("kernel n_components <= n - 2", "n_components", lambda: diffusion_map(K, 4),
                 lambda: diffusion_map(K, 5)),
        Boundary("kernel n_components >= 1", "n_components", lambda: diffusion_map(K, 1),
                 lambda: diffusion_map(K, 0)),
        Boundary("kernel t >= 0", "t", lambda: diffusion_map(K, 2, t=0),
                 lambda: diffusion_map(K, 2, t=-1)),
        Boundary("Nyström rows of the training width", "K0", lambda: nystrom(K[:2], dmap),
                 lambda: nystrom(K[:2, :5], dmap)),
        Boundary("Nyström rows a matrix", "K0", lambda: nystrom(K[:1], dmap), lambda: nystrom(K[0], dmap)),
        Boundary("kNN k <= n_train", "k", lambda: knn(k=5), lambda: knn(k=6)),
        Boundary("kNN k >= 1", "k", lambda: knn(k=1), lambda: knn(k=0)),
        Boundary("kNN k an int", "k", lambda: knn(k=np.int64(2)), lambda: knn(k=2.0)),
        Boundary("kNN queries of the embedding width", "Z0", lambda: knn(Z0=Z_train[:1]),
                 lambda: knn(Z0=Z_train[:1, :1])),
        Boundary("kNN finite queries", "Z0", lambda: knn(Z0=Z_train[:1] * 1e30),
                 lambda: knn(Z0=Z_train[:1] * np.nan)),
        Boundary("kNN one synthetic row per training row", "X_synthetic", lambda: knn(X_synthetic=X_syn),
                 lambda: knn(X_synthetic=X_syn[:4])),
        Boundary("kNN one categorical flag per column", "categorical", lambda: knn(categorical=flags),
                 lambda: knn(categorical=flags[:2])),
        Boundary("distortion of same-shape arrays", "X_hat", lambda: distortion(X, X + tiny),
                 lambda: distortion(X, X[:-1])),
        Boundary("distortion of matrices", "X_hat", lambda: distortion(X[:, :1], X[:, :1]),
                 lambda: distortion(X[:, 0], X[:, 0])),
        Boundary("distortion of finite arrays", "finite", lambda: distortion(X, X * 1e30),
                 lambda: distortion(X, X * np.nan)),
        Boundary("distortion flags one per column", "categorical", lambda: distortion(X, X, [False, True]),
                 lambda: distortion(X, X, [False])),
        *_more_assumption_cases(X, y, fitted),
        *_round6_assumption_cases(X, y, fitted),
    ]


def _random_state_drawing(seed: int) -> np.random.RandomState:
    """A RandomState whose next draw is 0: MT19937 outputs the tempered key word at its position,
    and tempering maps the word 0 to 0 (so ``seed`` must be 0 here)."""
    if seed != 0:
        raise ValueError(f"seed must be 0 (the only word set without inverting the tempering), got {seed}")
    rs = np.random.RandomState(0)
    state = rs.get_state()
    key = state[1].copy()
    key[623] = seed  # the next output is temper(key[623]); temper(0) = 0
    rs.set_state((state[0], key, 623, 0, 0.0))
    return rs


def _more_assumption_cases(X: np.ndarray, y: np.ndarray, fitted: RFAutoencoder) -> list[Boundary]:
    """The guards the first list left out (#46 round 3): each probed at its boundary, multi-condition
    guards with one condition violated at a time."""
    K = np.ones((6, 6)) + np.eye(6)
    part, leaves = fitted.partition_, fitted.train_leaves_
    K0 = forest_kernel(part, X[:1], X).toarray()
    one_flag = np.zeros(1, dtype=bool)

    def fit_decode(random_state):
        # the decoder's streams are derived from the fitted seed (seed_ + 1, + 2): a seed drawn at the
        # bottom of its range [0, 2**31 − 1) must decode like any other
        ae = RFAutoencoder(n_estimators=3, random_state=random_state).fit(X)
        return ae.inverse_transform(ae.embedding_[:2].mean(axis=0, keepdims=True))  # not a training row

    def exact(n_candidates):
        return exact_decode(K0, part, leaves, X.min(0), X.max(0), np.zeros(X.shape[1], bool),
                            np.random.default_rng(0), n_candidates=n_candidates, time_limit=5.0)

    def asymmetric(gap):
        big = 1e6 * K
        big[0, 1] += gap
        return big

    def synthetic(top):
        return synthetic_training_set(np.array([[0, top]]), np.zeros((2, 1)), np.ones((2, 1)), one_flag,
                                      np.random.default_rng(0))

    return [
        Boundary("diffusion tol >= 0", "tol", lambda: diffusion_map(K, 2, tol=0.0),
                 lambda: diffusion_map(K, 2, tol=-1e-12)),
        Boundary("supervised=True with a continuous target (a regression forest)", "y",
                 lambda: RFAutoencoder(n_estimators=3, random_state=0, supervised=True).fit(X, X[:, 0]),
                 lambda: RFAutoencoder(n_estimators=3, random_state=0, supervised=True).fit(
                     X, np.where(y > 0, np.nan, X[:, 0]))),
        Boundary("random_state a RandomState (its seed draw 0, the bottom of the range)", "random_state",
                 lambda: fit_decode(_random_state_drawing(0)), lambda: fit_decode("0")),
        Boundary("exact decoder n_candidates >= 1", "n_candidates", lambda: exact(1), lambda: exact(0)),
        Boundary("leaf ids below the number of leaf boxes", "lower", lambda: synthetic(1),
                 lambda: synthetic(2)),
        Boundary("leaf lookups take a boolean X (numeric or bool dtype)", "X",
                 lambda: part.leaves(X > 0), lambda: part.leaves(X.astype(str))),
        Boundary("leaf lookups take a 2-D X (a 1-D row refused)", "X", lambda: part.leaves(X[:1]),
                 lambda: part.leaves(X[0])),
        Boundary("fit takes an object-dtype X of numbers (converted like sklearn does)", "X",
                 lambda: RFAutoencoder(n_estimators=3, random_state=0).fit(X.astype(object)),
                 lambda: RFAutoencoder(n_estimators=3, random_state=0).fit(
                     np.where(y[:, None] > 0, X.astype(object), "a"))),
        # #46 round 4: a bool is not an int (scikit-learn's forest would take True as 1 tree), and the
        # dense solver's own bound n_components <= n − 1 (ARPACK's is n − 2)
        Boundary("n_estimators an int, not a bool", "n_estimators",
                 lambda: RFAutoencoder(n_estimators=np.int64(1), random_state=0).fit(X),
                 lambda: RFAutoencoder(n_estimators=True, random_state=0).fit(X)),
        Boundary("dense kernel n_components <= n − 1", "n_components", lambda: dense_diffusion_map(K, 5),
                 lambda: dense_diffusion_map(K, 6)),
        # #46 round 5 (seed 7): transform of a 1-D row (the width test must not index its second axis);
        # the symmetry test relative to the kernel's scale (K × 1e6 with |K − Kᵀ| = 1e-3 is 1e-9 relative:
        # accepted; 0.1 is 1e-7: refused); train_leaves with one column too many (2-D, so `and` let it by)
        Boundary("transform takes a 2-D X (a 1-D row refused)", "X", lambda: fitted.transform(X[:1]),
                 lambda: fitted.transform(X[0])),
        Boundary("K symmetric to 1e-8 of its largest entry", "K must be symmetric",
                 lambda: dense_diffusion_map(asymmetric(1e-3), 2),
                 lambda: dense_diffusion_map(asymmetric(0.1), 2)),
        Boundary("exact decoder: train_leaves of shape (n, B)", "train_leaves", lambda: exact(1),
                 lambda: exact_decode(K0, part, np.hstack([leaves, leaves[:, :1]]), X.min(0), X.max(0),
                                      np.zeros(X.shape[1], bool), np.random.default_rng(0), time_limit=5.0)),
    ]


def _round6_assumption_cases(X: np.ndarray, y: np.ndarray, fitted: RFAutoencoder) -> list[Boundary]:
    """(#46 round 6) The public guards no boundary probed yet, found by reading every ``raise`` of the
    forests package: the RFAE problem and hyperparameters, diffusion_map's maxiters, the kernel's sign and
    dtype, kernel_estimate/nystrom/exact_decode/relabel_forest/majority_box/sample_in_boxes arguments,
    forest and point lookups, inverse_transform's latent rows, y, and a fitted frame's columns. Multi-
    condition guards are probed one condition at a time."""
    K = np.ones((6, 6)) + np.eye(6)
    dmap = dense_diffusion_map(K, 2)
    part, leaves = fitted.partition_, fitted.train_leaves_
    K0 = forest_kernel(part, X[:1], X).toarray()
    flags = np.zeros(X.shape[1], dtype=bool)
    with_nan = X.copy()
    with_nan[0, 0] = np.nan

    def kernel(entry):  # K with the symmetric pair (0, 1) set to entry (degrees stay > 0)
        out = K.copy()
        out[0, 1] = out[1, 0] = entry
        return out

    def exact(K0_hat=K0, partition=part, time_limit=5.0, progress=False):
        return exact_decode(K0_hat, partition, leaves, X.min(0), X.max(0), flags, np.random.default_rng(0),
                            n_candidates=1, time_limit=time_limit, progress=progress)

    def boxes(lower, upper, categorical=flags[:1]):
        return sample_in_boxes(lower, upper, categorical, np.random.default_rng(0))

    one, box = np.zeros((1, 1)), np.ones((1, 1))
    stump = RandomForestRegressor(n_estimators=1, max_depth=1, random_state=0).fit(X, X[:, 0])
    stump_part = ForestPartition.from_forest(stump)

    def relabel(partition=stump_part, embed=fitted._embed_encoded):
        return relabel_forest(partition, embed, X.min(0), X.max(0), flags, np.random.default_rng(0),
                              n_synthetic=2)

    cube = np.zeros((1, 2, 1))
    frame = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(np.where(y > 0, "u", "v"))})
    on_frame = RFAutoencoder(n_estimators=2, random_state=0).fit(frame)

    def frame_with(**columns):
        return frame.assign(**columns)

    def fit(X=X, y=None, **params):
        return RFAutoencoder(**{"n_estimators": 2, "random_state": 0, "supervised": y is not None,
                                **params}).fit(X, y)

    Z = fitted.embedding_[:1]
    accepted: dict[str, Any] = {}

    def once(key: str, call: Callable[[], Any]) -> Callable[[], Any]:
        """An inside value shared by several boundaries: called (and so accepted) once."""
        def run() -> Any:
            if key not in accepted:
                accepted[key] = call()
            return accepted[key]
        return run

    exact_inside, fit_inside = once("exact", exact), once("fit", fit)
    fit_y_inside = once("fit y", lambda: fit(y=y.astype(float)))
    decode_inside = once("decode", lambda: fitted.inverse_transform(Z * 1e30))
    return [
        Boundary("RFAE problem: X of at least 4 rows", "X", lambda: AutoencodingProblem(X[:4]),
                 lambda: AutoencodingProblem(X[:3])),
        Boundary("RFAE problem: one y per row", "y", lambda: AutoencodingProblem(X, y=y),
                 lambda: AutoencodingProblem(X, y=y[:-1])),
        Boundary("RFAE problem: X_test of X's width", "X_test", lambda: AutoencodingProblem(X, X_test=X[:1]),
                 lambda: AutoencodingProblem(X, X_test=X[:1, :1])),
        Boundary("RFAE problem: X_test of at least 1 row", "X_test",
                 lambda: AutoencodingProblem(X, X_test=X[:1]), lambda: AutoencodingProblem(X, X_test=X[:0])),
        Boundary("RFAE n_components >= 1", "n_components", lambda: RFAE(n_components=1),
                 lambda: RFAE(n_components=0)),
        Boundary("RFAE n_estimators an int, not a bool", "n_estimators", lambda: RFAE(n_estimators=1),
                 lambda: RFAE(n_estimators=True)),
        Boundary("RFAE k an int", "k", lambda: RFAE(k=1), lambda: RFAE(k=1.5)),
        Boundary("RFAE t >= 0", "t", lambda: RFAE(t=0), lambda: RFAE(t=-1)),
        Boundary("RFAE t not a bool", "t", lambda: RFAE(t=0), lambda: RFAE(t=True)),
        Boundary("RFAE a known decoder", "decoder", lambda: RFAE(decoder="relabel"),
                 lambda: RFAE(decoder="nearest")),
        Boundary("diffusion maxiters >= 1", "maxiters", lambda: diffusion_map(K, 2, maxiters=1),
                 lambda: diffusion_map(K, 2, maxiters=0)),
        Boundary("diffusion maxiters not a bool", "maxiters", lambda: diffusion_map(K, 2, maxiters=1),
                 lambda: diffusion_map(K, 2, maxiters=True)),
        Boundary("diffusion maxiters an int", "maxiters", lambda: diffusion_map(K, 2, maxiters=1),
                 lambda: diffusion_map(K, 2, maxiters=1.5)),
        Boundary("the kernel's entries >= 0", "K", lambda: dense_diffusion_map(kernel(0.0), 2),
                 lambda: dense_diffusion_map(kernel(-1e-12), 2)),
        Boundary("the kernel numeric, not bool", "K", lambda: dense_diffusion_map(K.astype(np.int64), 2),
                 lambda: dense_diffusion_map(K > 0, 2)),
        Boundary("kernel_estimate: Z0 of the embedding width", "Z0", lambda: kernel_estimate(Z[:, :2], dmap),
                 lambda: kernel_estimate(Z[:, :1], dmap)),
        Boundary("kernel_estimate: a DiffusionMap", "dmap", lambda: kernel_estimate(Z[:, :2], dmap),
                 lambda: kernel_estimate(Z[:, :2], dmap.embedding)),
        Boundary("nystrom: a DiffusionMap", "dmap", lambda: nystrom(K[:1], dmap),
                 lambda: nystrom(K[:1], dmap.embedding)),
        Boundary("exact decoder: K0_hat rows of the training width", "K0_hat", exact_inside,
                 lambda: exact(K0_hat=K0[:, :-1])),
        # round 13: the documented |K0_hat| <= K0_MAX (HiGHS's coefficients) is the edge; 1e30 is outside now
        Boundary("exact decoder: finite K0_hat", "K0_hat",
                 lambda: exact(K0_hat=K0 / np.abs(K0).max() * K0_MAX), lambda: exact(K0_hat=K0 * np.nan)),
        Boundary("exact decoder: |K0_hat| <= K0_MAX", "K0_hat",
                 lambda: exact(K0_hat=K0 / np.abs(K0).max() * K0_MAX),
                 lambda: exact(K0_hat=K0 / np.abs(K0).max() * 1e16)),
        Boundary("exact decoder: time_limit > 0", "time_limit", exact_inside,
                 lambda: exact(time_limit=0.0)),
        Boundary("exact decoder: progress a bool", "progress", lambda: exact(progress=np.False_),
                 lambda: exact(progress=0)),
        Boundary("exact decoder: a ForestPartition", "partition", exact_inside,
                 lambda: exact(partition=fitted.forest_)),
        Boundary("box draws: upper >= lower", "upper", lambda: boxes(one, one),
                 lambda: boxes(one, one - 1e-12)),
        Boundary("box draws: finite boxes", "finite", lambda: boxes(one, box * WORKING_MAX),
                 lambda: boxes(one, box * np.inf)),
        Boundary("box draws: 2-D boxes of one shape", "upper", lambda: boxes(one, box),
                 lambda: boxes(one, np.ones((1, 2)))),
        Boundary("box draws: one categorical flag per feature", "categorical", lambda: boxes(one, box),
                 lambda: boxes(one, box, categorical=flags)),
        Boundary("relabel_forest: a ForestPartition", "partition", lambda: relabel(),
                 lambda: relabel(partition=stump)),
        Boundary("relabel_forest: embed callable", "embed", lambda: relabel(),
                 lambda: relabel(embed=fitted.embedding_)),
        Boundary("majority_box: (m, B, d) bounds of one shape", "upper", lambda: majority_box(cube, cube),
                 lambda: majority_box(cube, cube[:, :1])),
        Boundary("majority_box: lower <= upper", "lower <= upper", lambda: majority_box(cube, cube),
                 lambda: majority_box(cube, cube - 1e-12)),
        Boundary("majority_box: finite bounds", "finite", lambda: majority_box(cube, cube + WORKING_MAX),
                 lambda: majority_box(cube, cube + np.inf)),
        Boundary("a fitted forest to read leaves from", "forest", lambda: ForestPartition.from_forest(stump),
                 lambda: ForestPartition.from_forest(RandomForestRegressor(n_estimators=1))),
        Boundary("a scikit-learn forest", "forest", lambda: ForestPartition.from_forest(stump),
                 lambda: ForestPartition.from_forest(stump.estimators_[0])),
        Boundary("leaf lookups of finite X", "X", lambda: part.leaves(X * 1e30),
                 lambda: part.leaves(with_nan)),
        Boundary("leaf lookups of the forest's width", "X", lambda: part.leaves(X),
                 lambda: part.leaves(X[:, :1])),
        # "latent rows": our refusal's words; scikit-learn's NearestNeighbors would also refuse a wrong width,
        # naming its own X (seed-10 survivor: the width test joined by `and`)
        Boundary("inverse_transform: latent rows of n_components columns", "latent rows",
                 decode_inside, lambda: fitted.inverse_transform(Z[:, :1])),
        Boundary("inverse_transform: finite latent rows", "latent rows", decode_inside,
                 lambda: fitted.inverse_transform(Z * np.nan)),
        Boundary("progress a bool", "progress", lambda: fit(progress=np.False_), lambda: fit(progress=0)),
        Boundary("X with at least one row", "X", fit_inside,
                 lambda: fit(X=X[:0])),
        Boundary("y one entry per row", "y", fit_y_inside, lambda: fit(y=y[:-1])),
        Boundary("y real", "y", fit_y_inside, lambda: fit(y=y + 0j)),
        Boundary("X real", "X", fit_inside, lambda: fit(X=X + 0j)),
        Boundary("a frame of the fitted columns", "X", lambda: on_frame.transform(frame),
                 lambda: on_frame.transform(frame[["c", "a"]])),
        # seed-9 survivors: synthetic_training_set's shape test one condition at a time (an upper with a
        # row more than lower, which nothing downstream would notice; a 1-D lower), and a string X refused
        # with the way out (a DataFrame)
        Boundary("synthetic rows: upper of lower's shape", "upper",
                 lambda: synthetic_training_set(np.array([[0, 1]]), np.zeros((2, 1)), np.ones((2, 1)),
                                                flags[:1], np.random.default_rng(0)),
                 lambda: synthetic_training_set(np.array([[0, 1]]), np.zeros((2, 1)), np.ones((3, 1)),
                                                flags[:1], np.random.default_rng(0))),
        Boundary("synthetic rows: 2-D leaf boxes", "lower",
                 lambda: synthetic_training_set(np.array([[0, 1]]), np.zeros((2, 1)), np.ones((2, 1)),
                                                flags[:1], np.random.default_rng(0)),
                 lambda: synthetic_training_set(np.array([[0, 1]]), np.zeros(2), np.ones(2), flags[:1],
                                                np.random.default_rng(0))),
        Boundary("n_components an int (a float refused)", "n_components", fit_inside,
                 lambda: fit(n_components=1.5)),
        Boundary("a string X refused with the way out", "pass a DataFrame", fit_inside,
                 lambda: fit(X=np.char.add(X.astype(str), " kg"))),
        Boundary("a frame's categories seen at fit", "X", lambda: on_frame.transform(frame),
                 lambda: on_frame.transform(frame_with(c=pd.Categorical(["w"] * len(frame))))),
        Boundary("a frame without missing values", "X", lambda: on_frame.transform(frame),
                 lambda: on_frame.transform(frame_with(a=with_nan[:, 0]))),
        Boundary("a frame's numeric columns finite", "X",
                 lambda: on_frame.transform(frame_with(a=X[:, 0] * 1e30)),
                 lambda: on_frame.transform(frame_with(a=np.where(y > 0, np.inf, X[:, 0])))),
    ]


def _supervised_warning(X: np.ndarray, y: np.ndarray) -> list[str]:
    """The documented meaning of ``supervised``: None with a y trains on y and warns (a UserWarning that
    names supervised=True/False); True with a y and False with a y (y ignored) are silent."""
    wrong = []
    for supervised, warns in ((None, True), (True, False), (False, False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            RFAutoencoder(n_estimators=1, random_state=0, supervised=supervised).fit(X, y)
        said = [w for w in caught if issubclass(w.category, UserWarning) and "supervised" in str(w.message)]
        if bool(said) != warns:
            wrong.append(f"supervised={supervised} with y: {'a' if said else 'no'} UserWarning naming "
                         f"supervised, documented {'one' if warns else 'none'}")
    return wrong


def _documented_behaviours() -> list[str]:
    """(#46 round 4, seed-5 survivors) Three documented behaviours no claim reached: the Nyström extension
    for rows whose leaves hold training rows in only some trees, the Scornet kernel between new and training
    rows, and the warning that a latent row coincides with a training embedding (relative to the scale)."""
    wrong = []
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    # an unsupervised classifier forest learns real rows against a permuted contrast, so some of its leaves
    # hold contrast rows only (no training mass); new rows on [−3, 3]² land in such leaves in 0-2 of 3 trees
    ae = RFAutoencoder(forest=RandomForestClassifier(n_estimators=3, random_state=0), random_state=0).fit(X)
    X_new = rng.uniform(-3.0, 3.0, size=(400, 2))
    leaves = ae.partition_.leaves(X_new)
    with_mass = (ae.leaf_counts_[leaves] > 0).sum(axis=1)
    # transform = the Nyström formula Z₀ = K₀ Z Λ⁻¹ on the forest kernel (averaged over the trees whose
    # leaf holds training rows); 1e-12: both are sums of a few O(1) terms (measured 4e-16)
    gap = float(np.abs(ae.transform(X_new) - nystrom(forest_kernel(ae.partition_, X_new, X), ae.dmap_)).max())
    if gap > 1e-12 or not np.any(with_mass == 1):
        wrong.append(f"transform vs the Nyström formula on new rows: {gap:.3g} (rows with training mass "
                     f"in one tree only: {int(np.sum(with_mass == 1))})")
    # the Scornet kernel between new and training rows: the share of trees in which the two share a leaf
    share = (leaves[:, None, :] == ae.train_leaves_[None, :, :]).mean(axis=2)
    scornet = cooccurrence_kernel(ae.partition_, X_new[:50], X).toarray()
    if scornet.shape != (50, 40) or float(np.abs(scornet - share[:50]).max()) > 1e-15:
        wrong.append(f"cooccurrence_kernel(X_new, X_train) of shape {scornet.shape} is not the share of "
                     "trees in which the rows share a leaf")
    # inverse_transform warns when a latent row lies within 1e-9·max(1, max|Z|) of a training embedding
    scale = max(1.0, float(np.abs(ae.embedding_).max()))
    for offset, warns in ((0.5e-9 * (1.0 + scale), True), (2e-9 * scale, False)):
        Z0 = ae.embedding_[:1].copy()
        Z0[0, 0] += offset
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ae.inverse_transform(Z0)
        said = any("coincide with training embeddings" in str(w.message) for w in caught)
        if said != warns or scale <= 1.0:
            wrong.append(f"a latent row {offset:.3g} from a training embedding (scale {scale:.3g}): "
                         f"{'a' if said else 'no'} memorization warning, documented "
                         f"{'one' if warns else 'none'}")
    return wrong


class _ChosenLeaves:
    """Stands in for a relabelled forest: routes every latent row to the given leaves (one per tree)."""

    def __init__(self, leaves: np.ndarray) -> None:
        self.chosen = leaves

    def leaves(self, Z0: np.ndarray) -> np.ndarray:
        return np.repeat(self.chosen[None], len(Z0), axis=0)


def _relabel_categorical() -> list[str]:
    """(#46 round 5, seed-5 survivor: the categorical data-box offset ``low − 0.5`` → ``low − 1.0``) The
    relabel decoder draws each column from the segment covered by the most chosen leaves; for a categorical
    column a leaf's data box holds the codes of its training rows, so two leaves holding codes {0, 1} and
    {2, 3} share no code. Three depth-1 trees split the codes between 1 and 2; a latent row routed to the
    lower leaf of tree 0 and the upper leaves of trees 1 and 2 must decode to a code of the majority, {2, 3},
    in every one of 16 draws (a box of {2, 3} whose lower face reaches code 1 makes the three boxes touch at
    1 and gives code 1: a code only one chosen leaf holds)."""
    rng = np.random.default_rng(0)
    codes = np.tile([0, 1, 2, 3], 10)
    frame = pd.DataFrame({"x": rng.normal(size=40), "c": pd.Categorical.from_codes(codes, list("abcd"))})
    ae = RFAutoencoder(forest=RandomForestRegressor(n_estimators=3, max_depth=1, random_state=0),
                       supervised=True, random_state=0).fit(frame, (codes >= 2) + 0.01 * rng.random(40))
    j = list(ae.feature_names_in_).index("c")
    part = ae.partition_
    per_tree = [np.flatnonzero(part.tree_of == b) for b in range(part.n_trees)]
    if any(part.lower[ids, j].max() != 1.5 for ids in per_tree):
        return [f"the three stumps do not all split the codes between 1 and 2 ({part.lower[:, j].tolist()})"]
    chosen = np.array([per_tree[0][np.argmin(part.lower[per_tree[0], j])]]
                      + [ids[np.argmax(part.lower[ids, j])] for ids in per_tree[1:]])
    ae.set_params(decoder="relabel")
    ae.relabeled_ = _ChosenLeaves(chosen)
    decoded = ae.inverse_transform(np.zeros((16, ae.embedding_.shape[1])))["c"]
    if not decoded.isin(["c", "d"]).all():
        return [f"relabel decoding from leaves holding codes {{0, 1}}, {{2, 3}}, {{2, 3}} drew "
                f"{sorted(set(decoded))}, not only the majority's codes c, d"]
    return []


def _seed6_behaviours() -> list[str]:
    """(#46 round 5, seed-6 survivors) Three documented rules no claim read: a given forest keeps its own
    random_state (only None is replaced by the fit's seed); column_distortion refuses a missing X_hat as
    missing (a TypeError naming it), not as a table of NaN; Nyström and the kernel estimate keep a component
    whose eigenvalue is above EIGEN_FLOOR = 1e-10 and drop one below it (eigenvalues 1.25e-10 and 0.8e-10)."""
    wrong = []
    X = np.random.default_rng(1).normal(size=(12, 2))
    for given in (123, None):
        ae = RFAutoencoder(forest=RandomForestClassifier(n_estimators=2, random_state=given),
                           random_state=0).fit(X)
        expected = ae.seed_ if given is None else given
        if ae.forest_.random_state != expected:
            wrong.append(f"a forest given with random_state={given} was fitted with random_state="
                         f"{ae.forest_.random_state}, documented {expected}")
    # the default forests (documented: min_samples_leaf=2), the regression one for a continuous target
    for supervised, target in ((True, X[:, 0]), (False, None)):
        ae = RFAutoencoder(n_estimators=2, random_state=0, supervised=supervised).fit(X, target)
        if ae.forest_.min_samples_leaf != 2:
            wrong.append(f"the default {type(ae.forest_).__name__} has min_samples_leaf="
                         f"{ae.forest_.min_samples_leaf}, documented 2")
    try:
        column_distortion(X, None)
        wrong.append("column_distortion(X, None) returned")
    except (TypeError, ValueError) as exc:
        if not (isinstance(exc, TypeError) and "X_hat" in str(exc)):
            wrong.append(f"column_distortion(X, None) raised {type(exc).__name__}: {exc}, documented a "
                         "TypeError naming X_hat (missing, not NaN)")
    # a diffusion map with eigenvalues just above and just below the floor (factor 1.25 either way)
    values = np.array([0.5, 1.25e-10, 0.8e-10])
    vectors = np.eye(4)[:, :3]
    dmap = DiffusionMap(embedding=vectors * values, eigenvalues=values, eigenvectors=vectors, t=1,
                        residual=0.0, converged=True, n_samples=4)
    row = np.array([[0.1, 0.2, 0.3, 0.4]])
    # Nyström: (K₀ Z)_j / λ_j = K₀[0, j] on a kept component, 0 on a dropped one
    embedded = nystrom(row, dmap)[0]
    if not np.allclose(embedded, [0.1, 0.2, 0.0], rtol=1e-12, atol=0.0):
        wrong.append(f"nystrom at eigenvalues (0.5, 1.25e-10, 0.8e-10) gave {embedded.tolist()}, documented "
                     "[0.1, 0.2, 0] (the component below EIGEN_FLOOR = 1e-10 dropped, the one above kept)")
    # the kernel estimate z Λ Z† + 1/n on the kept components: z = e_1 gives λ_1 · (row 1 of Z†) + 1/4
    estimate = kernel_estimate(np.array([[0.0, 1.0, 1.0]]), dmap)[0]
    expected_row = np.array([0.25, 0.75, 0.25, 0.25])  # 1.25e-10 · (1 / (1.25e-10 · 2)) e_1 + 1/4
    if not np.allclose(estimate, expected_row, rtol=1e-9, atol=0.0):
        wrong.append(f"kernel_estimate at eigenvalues (0.5, 1.25e-10, 0.8e-10) gave {estimate.tolist()}, "
                     f"expected {expected_row.tolist()}")
    return wrong


def _score_behaviour() -> list[str]:
    """(#46 round 6, seed-9 survivor: ``score`` returning its input) The documented score: minus the
    distortion of the rows' reconstruction, i.e. −distortion(X, inverse_transform(transform(X))) for held-out
    rows (the decoder's stream is seeded per call, so both sides decode alike)."""
    rng = np.random.default_rng(2)
    X, X_new = rng.normal(size=(12, 2)), rng.normal(size=(4, 2))
    ae = RFAutoencoder(n_estimators=2, k=3, random_state=0).fit(X)
    expected = -distortion(X_new, ae.inverse_transform(ae.transform(X_new)))
    got = ae.score(X_new)
    wrong = []
    if not (isinstance(got, float) and abs(got - expected) <= 1e-12):
        wrong.append(f"score of 4 held-out rows is {got!r}, documented −distortion of their reconstruction "
                     f"{expected!r}")
    # get_feature_names_out names the n_components latent columns (scikit-learn's prefix convention)
    names = list(ae.get_feature_names_out())
    if names != [f"rfautoencoder{j}" for j in range(ae.n_components)]:
        wrong.append(f"get_feature_names_out() gave {names}, expected rfautoencoder0..{ae.n_components - 1}")
    return wrong


def _synthetic_boxes() -> list[str]:
    """(#46 round 6, seed-11 survivor: the empty-leaf rule applied to leaves of one training row) The
    documented boxes of the synthetic rows: each leaf's box shrunk to the bounding box of its training rows,
    and a leaf without training rows its box clipped to the data range. An unsupervised forest (real rows
    against a permuted contrast) has both kinds, and leaves of one row."""
    X = np.random.default_rng(1).normal(size=(24, 2))  # 3 empty leaves, 9 of one row
    ae = RFAutoencoder(n_estimators=3, random_state=0).fit(X)
    leaves, counts = ae.train_leaves_, ae.leaf_counts_
    lows, highs = ae.lower_.copy(), ae.upper_.copy()
    for leaf in np.flatnonzero(counts > 0):
        rows = X[(leaves == leaf).any(axis=1)]
        lows[leaf], highs[leaf] = rows.min(axis=0), rows.max(axis=0)
    if not ((counts == 0).any() and (counts == 1).any()):
        return [f"the instance lost its empty or one-row leaves (counts {np.bincount(counts).tolist()})"]
    if not (np.array_equal(ae.data_lower_, lows) and np.array_equal(ae.data_upper_, highs)):
        off = int((~((ae.data_lower_ == lows) & (ae.data_upper_ == highs)).all(axis=1)).sum())
        return [f"the synthetic rows' leaf boxes differ from the documented rule on {off} leaves"]
    return []


def _check_assumptions(ctx: Context, *, shifted: bool) -> Outcome:
    outcome = boundary_outcome(_assumption_cases(), shifted=shifted)
    if not outcome.passed:  # (the control always stops here: it is rejected by the boundaries alone)
        return outcome
    X = np.random.default_rng(0).normal(size=(10, 2))
    wrong = (_supervised_warning(X, (X[:, 0] > 0).astype(int)) + _documented_behaviours()
             + _relabel_categorical() + _seed6_behaviours() + _score_behaviour()
             + _synthetic_boxes())
    if wrong:
        return Outcome("fail", f"a documented behaviour does not hold: {wrong[0]}", {"wrong": wrong})
    return outcome


register(Claim(
    id=f"{PAPER}.assumptions", paper=PAPER,
    source="the RF autoencoder's inputs (Section 3: the forest kernel, its diffusion map with n_components "
           "<= n − 2 and time t, the Nyström extension, the kNN decoder, the distortion of Section 4)",
    origin=Origin.IMPLEMENTATION,
    statement="Each documented input condition (n_components in [1, n − 2], t >= 0, a known decoder, k >= 1,"
              " n_estimators >= 1, random_state in [0, 2**32), y with supervised=True, supervised in {None, "
              "True, False}, finite X of the fitted width; a square, symmetric, finite kernel; Nyström rows "
              "of the training width; kNN k in [1, n_train] an int, queries of the embedding width and "
              "finite, one synthetic row per training row, one categorical flag per column; the distortion's"
              " shapes, finiteness and flags; and, since #46 round 3, diffusion tol >= 0, supervised=True "
              "with a continuous target, a RandomState whose seed draw is 0 (fit and decode), the exact "
              "decoder's n_candidates >= 1, leaf ids below the number of leaf boxes, leaf lookups of a "
              "boolean X and of a 2-D X only, an object-dtype X of numbers; since round 4, n_estimators an "
              "int and not a bool, the dense diffusion map's n_components <= n − 1) is enforced at its "
              "boundary: the value just inside is accepted, the value just outside refused with a ValueError"
              " or TypeError naming the argument; and fit with a y warns (a UserWarning naming supervised) "
              "exactly when supervised is None; (seed 5) transform equals the Nyström formula on the forest "
              "kernel for new rows whose leaves hold training rows in only some trees, "
              "cooccurrence_kernel(X_new, X_train) is the share of trees in which two rows share a leaf, and"
              " inverse_transform warns of memorization exactly within 1e-9·max(1, max|Z|) of a training "
              "embedding; (round 5) the relabel decoder draws a categorical column from the codes the most "
              "chosen leaves hold (leaves with codes {0, 1}, {2, 3}, {2, 3}: only codes 2 and 3); (seed 6) a"
              " given forest keeps its own random_state (None replaced by the fit's seed), the default "
              "forests (classifier and regressor) have min_samples_leaf = 2, column_distortion refuses a "
              "missing X_hat with a TypeError naming it, and Nyström and the kernel estimate keep a "
              "component at eigenvalue 1.25e-10 and drop one at 0.8e-10 (EIGEN_FLOOR = 1e-10); (seed 7) "
              "transform refuses a 1-D X naming X, the kernel's symmetry test is relative to its largest "
              "entry (K × 1e6: an asymmetry of 1e-3 accepted, 0.1 refused), the exact decoder refuses "
              "train_leaves of shape (n, B + 1) naming it; (round 6) a kernel with a zero row refused naming"
              " K (a self-loop of 1e-300 accepted), and 47 more boundaries read from every raise of the "
              "package: the RFAE problem (X of >= 4 rows, one y per row, X_test of X's width and >= 1 row) "
              "and hyperparameters, diffusion maxiters a positive int, kernel entries >= 0 and numeric, "
              "kernel_estimate's Z0 width and dmap, nystrom's dmap, the exact decoder's K0_hat shape and "
              "finiteness, time_limit > 0, progress and partition, box draws' order, finiteness, shapes and "
              "flags, relabel_forest's partition and embed, majority_box's shapes, order and finiteness, a "
              "fitted scikit-learn forest, leaf lookups of finite X of the forest's width, "
              "inverse_transform's width and finiteness, progress a bool, X non-empty and real, y of n real "
              "entries, a fitted frame's columns, categories, missing and infinite values; (seed 9) "
              "synthetic_training_set refuses an upper with a row more than lower and a 1-D lower, a string "
              "X is refused with the way out (pass a DataFrame), and score equals −distortion(X, "
              "inverse_transform(transform(X))); (seed 10) n_components a float refused, "
              "get_feature_names_out names the n_components latent columns, and inverse_transform refuses "
              "latent rows of the wrong width or non-finite in its own words (latent rows); (seed 11) the "
              "synthetic rows' leaf boxes follow the documented rule (the bounding box of the leaf's "
              "training rows; a leaf without training rows its box clipped to the data range)",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_assumptions(ctx, shifted=False),
    control=lambda ctx: _check_assumptions(ctx, shifted=True),
    control_description="every boundary claimed one step inward (the value just inside stated as outside): "
                        "those values are accepted, so the same check must fail",
))


# --------------------------------------------------------------------------- box sampling

#: (lower, upper) of one numeric and one categorical coordinate per box; the categorical codes in
#: lower < c <= upper are {1, 2, 3}, {1, 2}, {−1, 0, 1, 2} and none (0.2 < c <= 0.7: the fallback)
_BOXES = (((0.0, 0.0), (1.0, 3.0)), ((-2.0, 0.5), (5.0, 2.5)), ((3.0, -1.5), (3.5, 2.0)),
          ((0.0, 0.2), (1.0, 0.7)))
#: draws per box: at 4000 a code's share is known to ±0.016 (2 sd at 1/4) and the KS distance to ±0.026
_DRAWS = 4000
#: per-test level; 8 tests (two per box) at 1e-4 each keep a family error below 1e-3, while a code
#: missing or a support off by a code gives chi-square p-values below 1e-100 at this size
_ALPHA = 1e-4


def _box_sampling_check(ctx: Context, *, wrong_box: bool) -> Outcome:
    rng = np.random.default_rng(ctx.seed)
    worst_ks, worst_chi = 1.0, 1.0
    for (lo, hi) in _BOXES:
        lower, upper = np.tile(lo, (_DRAWS, 1)), np.tile(hi, (_DRAWS, 1))
        draw = sample_in_boxes(lower, upper, np.array([False, True]), rng)
        # the claimed law: uniform on (lo, hi] and uniform over the integer codes in the box; the control
        # states a box one unit wider on each side (a wrong law the same draws must contradict)
        a, b = (lo[0] - 1.0, hi[0] + 1.0) if wrong_box else (lo[0], hi[0])
        if not np.all((draw[:, 0] > lo[0]) & (draw[:, 0] <= hi[0])):
            return fact(False, f"a numeric draw left its box ({lo[0]}, {hi[0]}]")
        worst_ks = min(worst_ks, float(scipy.stats.kstest(draw[:, 0], "uniform", args=(a, b - a)).pvalue))
        shift = 1 if wrong_box else 0
        first, last = math.floor(lo[1]) + 1 - shift, math.floor(hi[1]) + shift
        if first > last:
            # no code in the box: the documented fallback is the code nearest the box, round(upper)
            if not np.all(draw[:, 1] == round(hi[1])):
                return fact(False, f"box ({lo[1]}, {hi[1]}] holds no code: draws {np.unique(draw[:, 1])} "
                                   f"are not the fallback {round(hi[1])}")
            continue
        codes = np.arange(first, last + 1, dtype=float)
        counts = np.array([np.sum(draw[:, 1] == c) for c in codes])
        if counts.sum() != _DRAWS:
            return fact(False, f"categorical draws outside the codes {codes.tolist()} of ({lo[1]}, {hi[1]}]")
        worst_chi = min(worst_chi, float(scipy.stats.chisquare(counts).pvalue))
    ok = worst_ks > _ALPHA and worst_chi > _ALPHA
    return fact(ok, "sample_in_boxes draws uniformly on each box's numeric interval (KS) and over its "
                    "integer codes (chi-square), with the nearest code when the box holds none",
                smallest_ks_p=worst_ks, smallest_chi_square_p=worst_chi)


register(Claim(
    id=f"{PAPER}.box_sampling", paper=PAPER,
    source="Section 4 (decoding draws a point from the intersection of the leaves' boxes) and "
           "sample_in_boxes's documented law",
    origin=Origin.IMPLEMENTATION,
    statement="For four boxes (numeric and categorical coordinate; 4000 draws each), sample_in_boxes's "
              "numeric draws lie in (lower, upper] and pass a KS test of uniformity there, its categorical "
              "draws are integer codes in (lower, upper] and pass a chi-square test of uniformity over "
              "them (level 1e-4 each), and a box with no code gets round(upper)",
    kind=Kind.PROPERTY,
    check=lambda ctx: _box_sampling_check(ctx, wrong_box=False),
    control=lambda ctx: _box_sampling_check(ctx, wrong_box=True),
    control_description="the same draws tested against the uniform law on a box one unit wider on each side "
                        "(numeric interval and codes)",
))


# --------------------------------------------------------------------------- distortion metric

def _distortion_check(ctx: Context, *, about_zero: bool) -> Outcome:
    """column_distortion against scikit-learn's R² (numeric) and the error rate (categorical) on
    columns whose means are far from zero (a variance taken about 0 instead of the mean shows)."""
    from sklearn.metrics import r2_score

    rng = ctx.rng("distortion")
    n = 60
    X = np.column_stack([5.0 + 2.0 * rng.standard_normal(n), -3.0 + rng.standard_normal(n),
                         rng.integers(0, 3, n).astype(float), np.full(n, 7.0), np.full(n, 7.0)])
    X_hat = X.copy()
    X_hat[:, :2] += 0.5 * rng.standard_normal((n, 2))
    flip = rng.random(n) < 0.3
    X_hat[flip, 2] = (X_hat[flip, 2] + 1) % 3
    X_hat[0, 4] = 7.5  # the second constant column not reproduced: distortion 1 by the convention
    # (#46 round 6, seed-9 survivor: the constant-column rule applied below a total sum of squares of 1) a
    # column of small spread (sum of squares ~0.006), reconstructed with noise of half its spread
    small = 1.0 + 0.01 * rng.standard_normal(n)
    X = np.column_stack([X, small])
    X_hat = np.column_stack([X_hat, small + 0.005 * rng.standard_normal(n)])
    categorical = np.array([False, False, True, False, False, False])
    if about_zero:  # the control's wrong reference: 1 − R² with the total sum of squares about 0
        reference = [float(((X[:, j] - X_hat[:, j]) ** 2).sum() / (X[:, j] ** 2).sum()) for j in range(2)]
    else:
        reference = [1.0 - r2_score(X[:, j], X_hat[:, j]) for j in range(2)]
    # scikit-learn's convention for a constant target: R² = 1 if reproduced exactly, else 0
    reference += [float(np.mean(X[:, 2] != X_hat[:, 2])), 1.0 - r2_score(X[:, 3], X_hat[:, 3]),
                  1.0 - r2_score(X[:, 4], X_hat[:, 4]), 1.0 - r2_score(X[:, 5], X_hat[:, 5])]
    got = column_distortion(X, X_hat, categorical)
    # 1e-12: both sides are the same sums of n = 60 squares of O(10) numbers in float64
    error = float(np.abs(got - np.array(reference)).max())
    mean_error = abs(distortion(X, X_hat, categorical) - float(np.mean(reference)))
    return fact(error <= 1e-12 and mean_error <= 1e-12,
                "column_distortion = 1 − R² (scikit-learn) per numeric column, the error rate per "
                "categorical one, 0/1 for a constant column reproduced or not; distortion = their mean",
                max_error=error, mean_error=mean_error)


register(Claim(
    id=f"{PAPER}.distortion_metric", paper=PAPER,
    source="Section 5 (Reconstruction: the distortion, 1 − R² for numeric and the error rate for categorical "
           "columns, averaged); algorithms.forests.metrics",
    origin=Origin.IMPLEMENTATION,
    statement="On a 60-row table with numeric columns of means 5 and −3, a 3-code categorical column and two "
              "constant columns (one reproduced exactly, one not) and (#46 round 6) a numeric column of "
              "total sum of squares ~0.006, column_distortion equals 1 − R² from "
              "scikit-learn's r2_score for the numeric and constant columns and the misclassification rate "
              "for the categorical one, and distortion is their mean (to 1e-12)",
    kind=Kind.NUMERIC,
    check=lambda ctx: _distortion_check(ctx, about_zero=False),
    control=lambda ctx: _distortion_check(ctx, about_zero=True),
    control_description="the reference 1 − R² with the total sum of squares taken about 0 instead of the "
                        "column mean (the columns' means are 5 and −3, so it differs)",
))
