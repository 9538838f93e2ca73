"""The partition a fitted scikit-learn forest induces, and the random-forest kernel built from it.

Each tree b routes a point x to one leaf; a leaf is an axis-aligned box ``(lower, upper]``
(scikit-learn sends ``x_j <= threshold`` left). Stacking the one-hot leaf indicators of all
B trees gives the leaf matrix Π ∈ {0,1}^{n×d_Φ}. With s the inverse leaf sizes counted over
the *training* points and S = diag(s), the random-forest kernel (Eq. 1 of the paper) is

    k(x, x_i) = (1/B) Σ_b 1[x, x_i share a leaf of tree b] / |leaf_b(x)|,   K₀ = (1/B) Π₀ S Πᵀ,

symmetric, PSD and doubly stochastic on the training set (Theorem 3.4(a)). The Scornet kernel
(Section 2) drops the 1/|leaf| weights: (1/B) Π₀ Πᵀ, the share of trees in which two points
co-locate.

Gap the paper leaves: a tree grown on a bootstrap sample or on synthetic-contrast data can have
leaves holding no training point. A point falling in such a leaf gets no mass from that tree, and
its kernel row is averaged over the trees that do hold training points in its leaf (so every row
still sums to one). Training points are never affected (each lies in its own leaves).

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441 (Eq. 1, Theorem 3.4).

>>> import numpy as np
>>> from sklearn.ensemble import RandomForestRegressor
>>> X = np.random.default_rng(0).normal(size=(40, 2))
>>> forest = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, X[:, 0])
>>> K = forest_kernel(forest, X)
>>> bool(np.allclose(K.sum(axis=1), 1.0)), bool(abs(K - K.T).max() < 1e-12)
(True, True)
"""

from __future__ import annotations

import copy
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble._forest import BaseForest

from algorithms._validation import (
    allocates,
    as_array,
    as_real_array,
    check_bool,
    check_generator,
    check_int_at_least,
    read_only,
    remember_validated,
    resealed,
    revalidate_if_reassigned,
)

__all__ = ["ForestPartition", "check_forest", "cooccurrence_kernel", "forest_kernel", "node_boxes",
           "sample_in_boxes"]


def check_forest(name: str, forest: Any, *, fitted: bool) -> BaseForest:
    """``forest`` as a scikit-learn forest (``sklearn.ensemble`` RandomForest*, ExtraTrees*,
    RandomTreesEmbedding); ``fitted`` asks that it has been fitted, with each tree's arrays as its fit left
    them (split features in range, finite thresholds, children forming a tree; an edited tree is refused).

    ``name`` (a str) is the argument's name, used in the error message.
    """
    if not isinstance(name, str):   # 3 or b"x" was accepted and printed in the messages as it was
        raise TypeError(f"name must be a str (the argument's name for messages), got {type(name).__name__}")
    if not isinstance(forest, BaseForest):
        raise TypeError(f"{name} must be a scikit-learn forest (e.g. sklearn.ensemble."
                        f"RandomForestRegressor), got {type(forest).__name__}")
    if check_bool("fitted", fitted) and not hasattr(forest, "estimators_"):
        raise ValueError(f"{name} must be a fitted forest; call its fit first")
    if fitted:
        trees = getattr(forest, "estimators_", None)
        width = getattr(forest, "n_features_in_", None)
        # estimators_ emptied or replaced after the fit met numpy's concatenate or scikit-learn's errors
        if not isinstance(trees, list) or not trees or any(
                getattr(t, "n_features_in_", width) != width or not hasattr(t, "tree_") for t in trees):
            size = len(trees) if hasattr(trees, "__len__") else "?"
            raise ValueError(f"{name}.estimators_ must be the fitted trees of its fit (a non-empty list of "
                             f"trees on {width} features), got {type(trees).__name__} of length {size}")
        for b, tree in enumerate(trees):
            _check_tree_structure(f"{name}.estimators_[{b}]", tree.tree_, int(width))
    return forest


def _check_tree_structure(name: str, tree: Any, n_features: int) -> None:
    """A fitted tree's arrays as scikit-learn builds them (they are writeable: edited in place, a feature
    index 7 of 3 met numpy's IndexError, a child pointing back at its node made scikit-learn's apply loop
    for ever, a NaN threshold routed in silence; red20b): at each internal node a feature in [0, n_features)
    and a finite threshold, children numbered after their node (depth-first), each non-root node reached
    once."""
    try:
        left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
        feature, threshold = np.asarray(tree.feature), np.asarray(tree.threshold)
        nodes = int(tree.node_count)
    except (AttributeError, TypeError, ValueError):
        raise ValueError(f"{name}.tree_ must be a fitted scikit-learn tree") from None
    index = np.arange(nodes)
    internal = left != -1
    shapes_ok = left.shape == right.shape == feature.shape == threshold.shape == (nodes,)
    if not shapes_ok or np.any((right == -1) != ~internal):
        raise ValueError(f"{name}.tree_ has inconsistent node arrays (edited after its fit): refit the "
                         f"forest")
    children = np.concatenate([left[internal], right[internal]])
    if np.any(left[internal] <= index[internal]) or np.any(right[internal] <= index[internal]) or \
            np.any(children >= nodes) or np.unique(children).size != children.size or \
            children.size != nodes - 1:
        raise ValueError(f"{name}.tree_'s children do not form a tree (edited after its fit): refit the "
                         f"forest")
    if np.any((feature[internal] < 0) | (feature[internal] >= n_features)) or \
            not np.all(np.isfinite(threshold[internal])):
        raise ValueError(f"{name}.tree_ has a split feature outside [0, {n_features}) or a non-finite "
                         f"threshold (edited after its fit): refit the forest")


def _as_points(name: str, X: Any, n_features: int) -> np.ndarray:
    array = as_array(name, X)  # a tensor (with grad), a meta tensor, an __array__ that raises: by name
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise TypeError(f"{name} must be a numeric array, got dtype {array.dtype}")
    if np.iscomplexobj(array):  # astype(float64) dropped the imaginary part (a ComplexWarning at most)
        raise TypeError(f"{name} must be real, got complex entries")
    array = array.astype(np.float64)
    if array.ndim != 2 or array.shape[1] != n_features:
        raise ValueError(f"{name} must have shape (m, {n_features}), got {array.shape}")
    if array.shape[0] == 0:  # scikit-learn's "Found array with 0 sample(s)" named no argument
        raise ValueError(f"{name} must hold at least one point, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or inf entries")
    if array.size and float(np.max(np.abs(array))) > _FLOAT32_MAX:  # sklearn's "too large for float32"
        raise ValueError(f"{name} has entries beyond float32's range (±3.4e38): the scikit-learn trees "
                         f"compare their inputs in float32")
    return array


def bool_flags(name: str, value: Any, count: int) -> np.ndarray:
    """``count`` bool flags (one per column), as a bool array: bools, or ints 0/1. Refused by name: the
    strings "no" and the float 0.5 (``np.asarray(..., dtype=bool)`` cast them to True), an object whose
    ``__array__`` raises, and the wrong length."""
    flags = as_array(name, value)
    if not (flags.dtype.kind == "b" or (flags.dtype.kind in "iu" and np.isin(flags, (0, 1)).all())):
        raise TypeError(f"{name} must hold bool flags (one per column), got {flags.dtype} "
                        f"{flags.tolist()!r:.60}")
    flags = flags.astype(bool)
    if flags.shape != (count,):
        raise ValueError(f"{name} must have one flag per column ({count}), got shape {flags.shape}")
    return flags


#: the largest input the scikit-learn trees take (they route points in float32)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


@allocates("n_features")  # n_features = 2**31 asked numpy for 176 GiB (its MemoryError named nothing)
def node_boxes(tree: Any, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """The box ``lower < x <= upper`` of every node of a fitted ``sklearn.tree`` ``tree_``.

    ``tree`` is a fitted tree's ``tree_`` and ``n_features`` its input width: an int equal to the tree's
    ``n_features`` (another width is refused by name; for a structure without it, at least the largest split
    feature + 1).
    """
    if isinstance(tree, type) or not all(  # the class Tree itself has the attributes (as descriptors)
            hasattr(tree, a) for a in ("node_count", "children_left", "feature", "threshold")):
        raise TypeError(f"tree must be a fitted sklearn tree structure (estimator.tree_), got "
                        f"{type(tree).__name__}")
    # the tree splits on features 0 .. n_features_in - 1 (sklearn's tree_.n_features): fewer gave an
    # IndexError at the first split on a feature past n_features
    needed = int(getattr(tree, "n_features", int(np.max(tree.feature, initial=-1)) + 1))
    n_features = check_int_at_least("n_features", n_features, max(needed, 1))
    if hasattr(tree, "n_features") and n_features != needed:  # 4 gave boxes in 4-D for a 3-feature tree
        raise ValueError(f"n_features must be the tree's input width {needed}, got {n_features}")
    lo = np.full((tree.node_count, n_features), -np.inf)
    hi = np.full((tree.node_count, n_features), np.inf)
    # nodes are numbered in depth-first order, so a parent precedes its children
    for node in range(tree.node_count):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == -1:
            continue
        j, thr = tree.feature[node], tree.threshold[node]
        lo[left], hi[left] = lo[node], hi[node]
        lo[right], hi[right] = lo[node], hi[node]
        hi[left, j] = min(hi[node, j], thr)
        lo[right, j] = max(lo[node, j], thr)
    return lo, hi


def _check_node_maps(forest: Any, maps: tuple[np.ndarray, ...], tree_of: np.ndarray) -> None:
    """Tree b's map sends its leaf nodes to distinct leaf ids of tree b (``tree_of[id] == b``) and its
    internal nodes to −1: a map onto 999, onto another tree's leaves or onto −1 at a leaf was taken
    (scipy's index errors later, or every point of tree 0 counted in tree 1's leaf, in silence)."""
    n_leaves = tree_of.size
    for b, (m, estimator) in enumerate(zip(maps, forest.estimators_)):
        is_leaf = estimator.tree_.children_left == -1
        if m.shape != is_leaf.shape:
            raise ValueError(f"node_to_leaf[{b}] must have one entry per node of tree {b} ({is_leaf.size}), "
                             f"got {m.size}")
        leaves = m[is_leaf]
        inside = np.all((leaves >= 0) & (leaves < n_leaves))
        if np.any(m[~is_leaf] != -1) or not inside or np.unique(leaves).size != leaves.size or \
                np.any(tree_of[leaves] != b):
            raise ValueError(f"node_to_leaf[{b}] must send tree {b}'s leaf nodes to distinct leaf ids of "
                             f"tree {b} (in [0, {n_leaves}) with tree_of[id] == {b}) and its internal nodes "
                             f"to -1, got {m.tolist()!r:.80}")


def _trees_fingerprint(forest: Any) -> int:
    """A CRC of every tree's splits (children, features, thresholds): the forest as the partition saw it."""
    crc = zlib.crc32(str(len(forest.estimators_)).encode())
    for estimator in forest.estimators_:
        tree = estimator.tree_
        for array in (tree.children_left, tree.children_right, tree.feature, tree.threshold):
            crc = zlib.crc32(np.ascontiguousarray(array).tobytes(), crc)
    return crc


def _check_leaf_boxes(forest: Any, maps: tuple[np.ndarray, ...], lower: np.ndarray,
                      upper: np.ndarray) -> None:
    """``lower``/``upper`` must be the forest's own leaf boxes (:func:`node_boxes`): boxes moved by hand were
    decoded into, while ``leaves()`` routed by the trees (red20b)."""
    n_features = lower.shape[1]
    for b, estimator in enumerate(forest.estimators_):
        lo, hi = node_boxes(estimator.tree_, n_features)
        leaf_nodes = np.flatnonzero(maps[b] >= 0)
        ids = maps[b][leaf_nodes]
        if not (np.array_equal(lower[ids], lo[leaf_nodes]) and np.array_equal(upper[ids], hi[leaf_nodes])):
            raise ValueError(f"lower and upper must be the forest's leaf boxes (as node_boxes gives them); "
                             f"tree {b}'s leaves differ")


@dataclass(frozen=True, eq=False)  # identity, as TSPInstance: the generated == compared arrays
class ForestPartition:
    """The leaves of a fitted forest as boxes, with global leaf ids ``0 .. n_leaves-1``.

    ``lower``/``upper`` have shape (n_leaves, n_features) (±inf where a leaf is unbounded) and are the
    forest's own leaf boxes (as :func:`node_boxes` gives them; other boxes are refused naming lower/upper);
    leaf ℓ is the box ``lower[ℓ] < x <= upper[ℓ]``. ``tree_of[ℓ]`` is the tree holding ℓ, and
    ``node_to_leaf[b]`` maps tree b's node ids to global leaf ids (−1 for internal nodes). ``forest``
    is the fitted scikit-learn forest (kept as a private copy: refitting the caller's forest later changes
    nothing here; refitting ``part.forest`` itself is refused by name at the next use) and ``n_features`` its
    input width (an int >= 1, the forest's ``n_features_in_``; another is refused by name). Build it with
    :meth:`from_forest`. The arrays are stored as read-only copies (writing into them raises numpy's
    "assignment destination is read-only").

    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> forest = RandomForestRegressor(n_estimators=2, max_depth=1, random_state=0).fit(X, X[:, 0])
    >>> part = ForestPartition.from_forest(forest)
    >>> part.n_trees, part.n_leaves, part.leaves(X).shape
    (2, 4, (8, 2))
    """

    forest: Any
    n_features: int
    lower: np.ndarray
    upper: np.ndarray
    tree_of: np.ndarray
    node_to_leaf: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        """Built by hand (not by :meth:`from_forest`), each field is checked by name: a fitted forest, its
        ``n_features``, real (n_leaves, n_features) ``lower``/``upper`` with lower <= upper, int ``tree_of``
        (n_leaves,) in [0, n_trees) and one int node map per tree."""
        # a private copy: the caller refitting its own forest afterwards gave an IndexError or stale leaves
        forest = copy.deepcopy(check_forest("forest", self.forest, fitted=True))
        n_features = check_int_at_least("n_features", self.n_features, 1)
        if n_features != int(forest.n_features_in_):
            raise ValueError(f"n_features must be the forest's n_features_in_ = {forest.n_features_in_}, got "
                             f"{n_features}")
        lower, upper = as_real_array("lower", self.lower), as_real_array("upper", self.upper)
        if lower.ndim != 2 or lower.shape[1] != n_features or upper.shape != lower.shape:
            raise ValueError(f"lower and upper must have shape (n_leaves, {n_features}), got {lower.shape} "
                             f"and {upper.shape}")
        if not np.all(lower <= upper):  # an inverted (or NaN) box was stored: its leaf holds no point
            raise ValueError("lower and upper must be boxes with lower <= upper (no NaN) in every leaf")
        tree_of = as_array("tree_of", self.tree_of)
        n_trees = len(forest.estimators_)
        if tree_of.dtype.kind not in "iu" or tree_of.shape != (lower.shape[0],) or (
                tree_of.size and not 0 <= tree_of.min() <= tree_of.max() < n_trees):
            raise ValueError(f"tree_of must be ints in [0, {n_trees}) of shape ({lower.shape[0]},), got "
                             f"dtype {tree_of.dtype} and shape {tree_of.shape}")
        maps = self.node_to_leaf
        if not isinstance(maps, tuple | list) or len(maps) != n_trees:
            size = len(maps) if hasattr(maps, "__len__") else "?"
            raise ValueError(f"node_to_leaf must hold one node -> leaf map per tree ({n_trees}), got "
                             f"{type(maps).__name__} of length {size}")
        maps = tuple(as_array(f"node_to_leaf[{b}]", m) for b, m in enumerate(maps))
        for b, m in enumerate(maps):
            if m.dtype.kind not in "iu" or m.ndim != 1:
                raise ValueError(f"node_to_leaf[{b}] must be a 1-D int array, got dtype {m.dtype} and shape "
                                 f"{m.shape}")
        _check_node_maps(forest, maps, tree_of)
        _check_leaf_boxes(forest, maps, lower, upper)
        # read-only for good (bytes-backed): a node map written in place (leaf id -7, or every node -> 0) was
        # used by leaves()/transform without a check
        for name, value in (("forest", forest), ("n_features", n_features), ("lower", read_only(lower)),
                            ("upper", read_only(upper)), ("tree_of", read_only(tree_of)),
                            ("node_to_leaf", tuple(read_only(m) for m in maps))):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_trees_crc", _trees_fingerprint(forest))
        remember_validated(self)  # a field replaced later (object.__setattr__) is checked again at its use

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable), and the
        record checked again as at construction (a loaded state with NaN entries was used as loaded)."""
        self.__dict__.update({name: resealed(value) for name, value in state.items()})
        self.__post_init__()

    def checked_forest(self) -> Any:
        """``forest``, refused by name when refitted (or its trees replaced) after construction: the boxes and
        node maps belong to the trees as built (``part.forest.fit(...)`` gave leaf ids of boxes that did not
        hold the points, or numpy's index error naming nothing). A field replaced past the frozen dataclass
        (``object.__setattr__``: node maps past n_leaves, NaN boxes) is checked again here, by name."""
        revalidate_if_reassigned(self)
        try:
            same = _trees_fingerprint(self.forest) == self.__dict__.get("_trees_crc")
        except (AttributeError, TypeError, ValueError):  # estimators_ or a tree_ replaced by something else
            same = False
        if not same:
            raise ValueError("ForestPartition.forest was refitted or its trees changed after construction; "
                             "build a new ForestPartition.from_forest(forest)")
        return self.forest

    @classmethod
    def from_forest(cls, forest: Any) -> ForestPartition:
        check_forest("forest", forest, fitted=True)
        n_features = int(forest.n_features_in_)
        lowers, uppers, trees, maps = [], [], [], []
        offset = 0
        for b, estimator in enumerate(forest.estimators_):
            tree = estimator.tree_
            lo, hi = node_boxes(tree, n_features)
            leaf_nodes = np.flatnonzero(tree.children_left == -1)
            mapping = np.full(tree.node_count, -1, dtype=np.int64)
            mapping[leaf_nodes] = offset + np.arange(leaf_nodes.size)
            lowers.append(lo[leaf_nodes])
            uppers.append(hi[leaf_nodes])
            trees.append(np.full(leaf_nodes.size, b, dtype=np.int64))
            maps.append(mapping)
            offset += leaf_nodes.size
        return cls(forest, n_features, np.vstack(lowers), np.vstack(uppers), np.concatenate(trees),
                   tuple(maps))

    @property
    def n_trees(self) -> int:
        return len(self.node_to_leaf)

    @property
    def n_leaves(self) -> int:
        return int(self.tree_of.size)

    def leaves(self, X: Any, name: str = "X") -> np.ndarray:
        """Global leaf ids, shape (m, n_trees): column b is the leaf of tree b (``name``: the argument's
        name in errors).

        ``X`` is a finite real (m, n_features) array, m >= 1; a bool array is read as 0/1 features, as
        scikit-learn's trees read it (any real dtype is read as float64).
        """
        X = _as_points(name, X, self.n_features)
        nodes = self.checked_forest().apply(X.astype(np.float32))  # the dtype sklearn's trees route in
        return np.column_stack([self.node_to_leaf[b][nodes[:, b]] for b in range(self.n_trees)])

    def indicator(self, X: Any, name: str = "X") -> sp.csr_matrix:
        """The one-hot leaf matrix Π, shape (m, n_leaves), B ones per row.

        ``X`` is a finite real (m, n_features) array, m >= 1; ``name`` the argument's name in errors.
        """
        leaves = self.leaves(X, name)
        m = leaves.shape[0]
        rows = np.repeat(np.arange(m), self.n_trees)
        return sp.csr_matrix((np.ones(leaves.size), (rows, leaves.ravel())), shape=(m, self.n_leaves))


def forest_kernel(forest: Any, X: Any, X_train: Any = None) -> sp.csr_matrix:
    """The random-forest kernel K₀[i, j] = k(X[i], X_train[j]) (Eq. 1), sparse (m, n).

    ``X_train`` (default ``X``) are the points whose leaf counts define the leaf sizes.
    """
    part = forest if isinstance(forest, ForestPartition) else ForestPartition.from_forest(forest)
    train = part.indicator(X) if X_train is None else part.indicator(X_train, "X_train")
    points = train if X_train is None else part.indicator(X)
    counts = np.asarray(train.sum(axis=0)).ravel()
    inverse = np.divide(1.0, counts, out=np.zeros_like(counts), where=counts > 0)
    weighted = points @ sp.diags(inverse) @ train.T
    trees_with_mass = np.asarray((points @ sp.diags((counts > 0).astype(float))).sum(axis=1)).ravel()
    scale = np.divide(1.0, trees_with_mass, out=np.zeros_like(trees_with_mass), where=trees_with_mass > 0)
    return sp.csr_matrix(sp.diags(scale) @ weighted)


def cooccurrence_kernel(forest: Any, X: Any, X_train: Any = None) -> sp.csr_matrix:
    """The Scornet kernel (1/B) Π₀ Πᵀ: the share of trees in which two points share a leaf.

    ``forest`` is a fitted scikit-learn forest and ``X`` (m, p) the points; ``X_train`` (n, p) the
    columns' points (None: ``X`` itself, a symmetric kernel).

    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X = np.arange(6.0).reshape(-1, 1)
    >>> forest = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, X[:, 0])
    >>> float(cooccurrence_kernel(forest, X)[0, 0])
    1.0
    """
    part = forest if isinstance(forest, ForestPartition) else ForestPartition.from_forest(forest)
    train = part.indicator(X) if X_train is None else part.indicator(X_train, "X_train")
    points = train if X_train is None else part.indicator(X)
    return sp.csr_matrix(points @ train.T / part.n_trees)


def sample_in_boxes(lower: np.ndarray, upper: np.ndarray, categorical: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """One uniform draw from each box ``lower < x <= upper`` (finite bounds; rows are boxes; any real
    dtypes, read as float64: the draw is float64). A flat box (lower = upper, empty) gives its bound.

    ``categorical`` holds one bool flag per column; ``rng`` is a ``numpy.random.Generator``.

    Categorical coordinates hold integer codes: the draw is uniform over the codes in the box
    (an empty set of codes falls back to the code nearest the box).

    >>> import numpy as np
    >>> x = sample_in_boxes(np.array([[0.0, 0.5]]), np.array([[1.0, 2.5]]), np.array([False, True]),
    ...                     np.random.default_rng(0))
    >>> bool(0.0 <= x[0, 0] <= 1.0), float(x[0, 1]) in (1.0, 2.0)
    (True, True)
    """
    check_generator("rng", rng)
    lower, upper = as_real_array("lower", lower), as_real_array("upper", upper)
    if lower.ndim != 2 or upper.shape != lower.shape:
        raise ValueError(f"lower and upper must be 2-D arrays of one shape (boxes, features), got "
                         f"{lower.shape} and {upper.shape}")
    if np.any(upper < lower):
        raise ValueError("upper must be >= lower in every box")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("lower and upper must be finite (clip the boxes to the data range first)")
    categorical = bool_flags("categorical", categorical, lower.shape[1])
    draw = lower + rng.random(lower.shape) * (upper - lower)
    # half-open (lower, upper]: a draw rounding to lower (a box a few ulps wide, or a uniform 0) lies outside
    # its box (half the draws of a one-ulp box did): moved to the box's least float above lower
    on_lower = (draw <= lower) & (upper > lower)
    draw[on_lower] = np.minimum(np.nextafter(lower[on_lower], np.inf), upper[on_lower])
    if categorical.any():
        first = np.floor(lower[:, categorical]) + 1.0  # smallest integer > lower
        last = np.floor(upper[:, categorical])  # largest integer <= upper
        span = np.maximum(last - first + 1.0, 1.0)
        codes = first + np.floor(rng.random(first.shape) * span)
        fallback = np.round(upper[:, categorical])
        draw[:, categorical] = np.where(last >= first, np.minimum(codes, last), fallback)
    return draw
