"""The split-relabelling decoder (Section 4.2): the forest's trees re-expressed in embedding space.

For every internal node of every tree, draw ``n_synthetic`` points uniformly from the node's
box, label each by the side of the node's split it falls on (``x_j <= threshold``: left),
embed them (Nyström) and fit the best single axis-aligned split ``z_k <= c`` of the embeddings
predicting that label (a depth-1 CART, Gini). The relabelled tree has the original structure
with these splits; a latent vector z₀ is routed down each relabelled tree to a leaf, and x̂₀ is
drawn uniformly from where the B chosen leaf boxes agree.

Gaps the paper leaves, filled here: (i) when all synthetic points of a node fall on one side
the node sends everything there; (ii) the relabelled leaves of different trees need not overlap,
so per feature the decoder draws from the segment covered by the most chosen leaf intervals
(the intersection, when it is non-empty).

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441 (Section 4.2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from algorithms._validation import (
    WORKING_MAX as _FLOAT32_MAX,
)
from algorithms._validation import (
    as_array,
    as_real_array,
    call_user,
    check_count,
    check_generator,
    check_takes,
    read_only,
    resealed,
)
from algorithms.forests.partition import ForestPartition, node_boxes, sample_in_boxes

__all__ = ["RelabeledForest", "majority_box", "relabel_forest"]

#: the most synthetic points per split (each is drawn and embedded: 2**31 - 1 asked numpy for 768 GiB)
MAX_SYNTHETIC = 100_000


@dataclass(frozen=True, eq=False)  # identity, as TSPInstance: the generated == compared arrays
class RelabeledForest:
    """Per tree: for every node, the latent feature (−1: constant route), threshold and whether
    ``z_k <= c`` leads to the left child (``below_goes_left``); plus the children arrays and the
    ``partition`` (:class:`ForestPartition`, whose node -> leaf map gives the leaves). Built by hand, a
    wrong partition or a per-tree tuple of the wrong length is refused by name."""

    partition: ForestPartition
    feature: tuple[np.ndarray, ...]
    threshold: tuple[np.ndarray, ...]
    below_goes_left: tuple[np.ndarray, ...]
    children: tuple[tuple[np.ndarray, np.ndarray], ...]

    def __post_init__(self) -> None:
        """Built by hand (not by :func:`relabel_forest`), checked by name: a :class:`ForestPartition` and,
        per tree, one entry of ``feature``, ``threshold``, ``below_goes_left`` and ``children``."""
        if not isinstance(self.partition, ForestPartition):
            raise TypeError(f"partition must be a ForestPartition, got {type(self.partition).__name__}")
        n_trees = self.partition.n_trees
        for name in ("feature", "threshold", "below_goes_left", "children"):
            value = getattr(self, name)
            if not isinstance(value, tuple | list) or len(value) != n_trees:
                size = len(value) if hasattr(value, "__len__") else "?"
                raise ValueError(f"{name} must hold one entry per tree ({n_trees}), got "
                                 f"{type(value).__name__} of length {size}")
            object.__setattr__(self, name, tuple(value))
        for b, pair in enumerate(self.children):
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise ValueError(f"children[{b}] must be a pair (left, right) of node arrays")
        trees = [self._checked_tree(b) for b in range(n_trees)]
        for i, name in enumerate(("feature", "threshold", "below_goes_left", "children")):
            object.__setattr__(self, name, tuple(tree[i] for tree in trees))

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable), and the
        record checked again as at construction (a loaded state with NaN entries was used as loaded)."""
        self.__dict__.update({name: resealed(value) for name, value in state.items()})
        self.__post_init__()

    def _checked_tree(self, b: int) -> tuple:
        """Tree ``b``'s arrays, checked against its node count (the partition's node -> leaf map) and kept
        read-only: a cyclic child hung leaves(), a child past the nodes or a str feature met numpy's errors,
        NaN thresholds were routed in silence."""
        n_nodes = len(self.partition.node_to_leaf[b])
        arrays = {}
        for name, value in (("feature", self.feature[b]), ("left", self.children[b][0]),
                            ("right", self.children[b][1])):
            array = as_array(f"{name}[{b}]", value)
            if array.dtype.kind not in "iu" or array.shape != (n_nodes,) or (n_nodes and array.min() < -1):
                raise ValueError(f"{name}[{b}] must be an int array of shape ({n_nodes},) (one entry per "
                                 f"node of tree {b}) with entries >= -1, got dtype {array.dtype}, shape "
                                 f"{array.shape}")
            arrays[name] = array.astype(np.int64)
        nodes = np.arange(n_nodes)
        for name in ("left", "right"):  # a child after its parent (scikit-learn's order): no cycle, in range
            child = arrays[name]
            if np.any((child != -1) & ((child <= nodes) | (child >= n_nodes))):
                raise ValueError(f"children[{b}] must give each internal node children after it and below "
                                 f"{n_nodes} (-1 at a leaf), got {name} = {child.tolist()!r:.80}")
        left, right = arrays["left"], arrays["right"]
        if np.any((left == -1) != (right == -1)) or np.any((left != -1) & (left == right)):
            # a node with one child routed to leaf id -1 in silence; two equal children made a DAG
            raise ValueError(f"children[{b}] must give each node two distinct children or none (-1 and -1 at "
                             f"a leaf), got left = {left.tolist()!r:.60}, right = {right.tolist()!r:.60}")
        threshold = as_real_array(f"threshold[{b}]", self.threshold[b])
        if threshold.shape != (n_nodes,) or not np.all(np.isfinite(threshold)):
            raise ValueError(f"threshold[{b}] must be a finite array of shape ({n_nodes},), got shape "
                             f"{threshold.shape}")
        flags = as_array(f"below_goes_left[{b}]", self.below_goes_left[b])
        if flags.dtype != bool or flags.shape != (n_nodes,):
            raise ValueError(f"below_goes_left[{b}] must be a bool array of shape ({n_nodes},), got dtype "
                             f"{flags.dtype}, shape {flags.shape}")
        return (read_only(arrays["feature"]), read_only(threshold), read_only(flags),
                (read_only(arrays["left"]), read_only(arrays["right"])))

    def leaves(self, Z0: np.ndarray) -> np.ndarray:
        """Global leaf ids (m, B) that the relabelled trees route ``Z0`` to; ``Z0`` is a finite (m, d) array
        of latent rows, d covering every latent feature the trees split on."""
        Z0 = as_real_array("Z0", Z0)
        used = max((int(f.max()) for f in self.feature if np.size(f)), default=-1)
        if Z0.ndim != 2 or Z0.shape[1] <= used:  # a short row indexed past its end (numpy's IndexError)
            raise ValueError(f"Z0 must be 2-D latent rows (m, d) with d > {used} (the trees split on latent "
                             f"feature {used}), got shape {Z0.shape}")
        if not np.all(np.isfinite(Z0)):  # NaN compared False everywhere and was routed right, silently
            raise ValueError("Z0 contains NaN or inf entries")
        m = Z0.shape[0]
        out = np.empty((m, len(self.feature)), dtype=np.int64)
        for b, (left, right) in enumerate(self.children):
            node = np.zeros(m, dtype=np.int64)
            while True:
                internal = left[node] != -1
                if not internal.any():
                    break
                k = self.feature[b][node]
                below = Z0[np.arange(m), np.maximum(k, 0)] <= self.threshold[b][node]
                go_left = np.where(k >= 0, below == self.below_goes_left[b][node],
                                   self.below_goes_left[b][node])
                node = np.where(internal, np.where(go_left, left[node], right[node]), node)
            out[:, b] = self.partition.node_to_leaf[b][node]
        return out


def relabel_forest(partition: ForestPartition, embed: Callable[[np.ndarray], np.ndarray],
                   low: np.ndarray, high: np.ndarray, categorical: np.ndarray,
                   rng: np.random.Generator, *, n_synthetic: int = 50) -> RelabeledForest:
    """Relabel every split of ``partition``'s forest in the embedding space ``embed`` maps to.

    ``embed`` maps rows (m, p) to embeddings (m, k), finite reals with k >= 1 (a copy of the rows is passed);
    ``low`` and ``high`` (p,) are the finite data range per column (low <= high); ``categorical`` one bool
    flag per column; ``rng`` a ``numpy.random.Generator``; ``n_synthetic`` (int in [2, 100000]) the
    synthetic points drawn per split.
    """
    check_generator("rng", rng)
    if not isinstance(partition, ForestPartition):
        raise TypeError(f"partition must be a ForestPartition, got {type(partition).__name__}")
    partition.checked_forest()  # a field replaced after construction: checked again, by name
    if not callable(embed):
        raise TypeError(f"embed must be callable (rows -> embeddings), got {type(embed).__name__}")
    check_takes("embed", embed, "embed(X)", 1)  # a 0-argument embed met Python's own arity error
    n_synthetic = check_count("n_synthetic", n_synthetic, 2, MAX_SYNTHETIC, "each is drawn and embedded")
    low, high = as_real_array("low", low), as_real_array("high", high)
    if low.shape != (partition.n_features,) or high.shape != low.shape:
        raise ValueError(f"low and high must have shape ({partition.n_features},) (the data range per "
                         f"feature), got {low.shape} and {high.shape}")
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high)) and np.all(low <= high)):
        raise ValueError("low and high must be finite with low <= high (an inverted range was clipped away)")
    trees = [est.tree_ for est in partition.checked_forest().estimators_]
    samples, owners = [], []
    for tree in trees:
        lo, hi = node_boxes(tree, partition.n_features)
        internal = np.flatnonzero(tree.children_left != -1)
        boxes_lo = np.repeat(np.clip(lo[internal], low, high), n_synthetic, axis=0)
        boxes_hi = np.repeat(np.clip(hi[internal], low, high), n_synthetic, axis=0)
        samples.append(sample_in_boxes(boxes_lo, boxes_hi, categorical, rng))
        owners.append(np.repeat(internal, n_synthetic))
    rows = np.vstack(samples)
    raw = call_user("embed(X)", embed, rows)  # a KeyError of the user's embed reached the caller bare
    try:
        Z = as_real_array("embed(X)", raw, check_range=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"embed must return a real array of embeddings, got {type(raw).__name__}") from exc
    if Z.ndim == 2 and np.all(np.isfinite(Z)) and not np.all(np.abs(Z) <= _FLOAT32_MAX):
        # the trees are refit on Z in float32: 1e300 met scikit-learn's "too large for dtype('float32')"
        raise ValueError(f"embed(X) must return embeddings of magnitude at most {_FLOAT32_MAX:.4g} (the "
                         f"working range), got max |Z| = {float(np.abs(Z).max()):.3g}")
    # k = 0 columns met scikit-learn's "Found array with 0 feature(s)" naming DecisionTreeClassifier
    if Z.ndim != 2 or Z.shape[0] != rows.shape[0] or Z.shape[1] == 0 or not np.all(np.isfinite(Z)):
        bad = "" if np.all(np.isfinite(Z)) else " with NaN/inf"
        raise ValueError(f"embed(X) must return finite embeddings of shape ({rows.shape[0]}, k), k >= 1, one "
                         f"row per row of X, got shape {Z.shape}{bad}")
    features, thresholds, below_left, children = [], [], [], []
    start = 0
    for b, tree in enumerate(trees):
        X_b, nodes = samples[b], owners[b]
        Z_b = Z[start:start + X_b.shape[0]]
        start += X_b.shape[0]
        feat = np.full(tree.node_count, -1, dtype=np.int64)
        thr = np.zeros(tree.node_count)
        left_side = np.ones(tree.node_count, dtype=bool)
        for node in np.unique(nodes):
            rows = nodes == node
            label = X_b[rows, tree.feature[node]] <= tree.threshold[node]
            if label.all() or not label.any():
                left_side[node] = bool(label.all())
                continue
            # a fixed random_state: sklearn permutes the features at random, so two embedding coordinates with
            # the same impurity gain would otherwise split on either, run to run (same seed, another answer)
            stump = DecisionTreeClassifier(max_depth=1, random_state=0).fit(Z_b[rows], label)
            if stump.tree_.node_count < 3:  # no split improves on the majority
                left_side[node] = bool(label.mean() >= 0.5)
                continue
            feat[node], thr[node] = stump.tree_.feature[0], stump.tree_.threshold[0]
            # the stump's left child (z_k <= c) predicts "goes left" when its majority is True
            left_value = stump.tree_.value[stump.tree_.children_left[0], 0]
            left_side[node] = bool(stump.classes_[int(np.argmax(left_value))])
        features.append(feat)
        thresholds.append(thr)
        below_left.append(left_side)
        children.append((tree.children_left.copy(), tree.children_right.copy()))
    return RelabeledForest(partition, tuple(features), tuple(thresholds), tuple(below_left),
                           tuple(children))


def majority_box(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per point and feature, the segment covered by the most of the B intervals ``(lower, upper]``.

    ``lower``/``upper`` have shape (m, B, d) (finite, lower <= upper; any real dtypes, read as float64);
    returns (m, d) float64 bounds, equal to the intersection when the intervals overlap.

    >>> import numpy as np
    >>> lo, hi = np.array([[[0.0], [1.0], [1.5]]]), np.array([[[2.0], [3.0], [1.8]]])
    >>> majority_box(lo, hi)
    (array([[1.5]]), array([[1.8]]))
    """
    lower, upper = as_real_array("lower", lower), as_real_array("upper", upper)
    if lower.ndim != 3 or upper.shape != lower.shape:
        raise ValueError(f"lower and upper must have one shape (m, B, d), got {lower.shape} and "
                         f"{upper.shape}")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))) or np.any(upper < lower):
        raise ValueError("lower and upper must be finite with lower <= upper")
    # coverage of each candidate point c = upper[b]: #{b': lower[b'] < c <= upper[b']} (half-open, as the
    # leaves are: a closed count took (0, 1] as covering 1 beside (1, 2], and chose the empty (1, 1]), and
    # a box clipped flat to the data range covers its own point
    c = upper[:, :, None, :]  # (m, B, 1, d)
    lo, hi = lower[:, None, :, :], upper[:, None, :, :]
    covers = ((lo < c) & (c <= hi)) | ((lo == hi) & (c == hi))  # (m, B, B, d)
    best = covers.sum(axis=2).argmax(axis=1)  # (m, d): the best candidate b
    chosen = np.take_along_axis(covers, best[:, None, None, :], axis=1)[:, 0]  # (m, B, d)
    box_lo = np.where(chosen, lower, -np.inf).max(axis=1)
    box_hi = np.where(chosen, upper, np.inf).min(axis=1)
    return box_lo, box_hi
