"""Ready-made non-negative submodular set functions over the elements 0, ..., n - 1.

Each is a callable ``f(S) -> float`` on a frozenset of ints (the package accepts any such
callable; these are the usual test beds). ``dtype`` is the float type of the data they were
built from. Non-monotone: :class:`GraphCut`, :class:`DirectedCut`, :class:`LogDet` with
``monotone=False`` (the Gaussian mutual information between S and its complement).
Monotone: :class:`FacilityLocation`, :class:`Coverage`, :class:`LogDet` with ``monotone=True``.

>>> import numpy as np
>>> from algorithms.submodular import GraphCut
>>> cut = GraphCut(np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]))
>>> cut(frozenset()), cut(frozenset({0})), cut(frozenset({0, 1, 2}))
(0.0, 3.0, 0.0)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from algorithms._validation import (
    INT64_MAX,
    WORKING_MAX,
    _brief,
    as_float_array,
    check_bool,
    check_entries_in_range,
    check_psd,
    check_square_symmetric,
    read_only,
)
from algorithms.submodular.matroids import ReadOnlyMap, _Sealed, as_subset, elements_of

__all__ = ["Coverage", "DirectedCut", "FacilityLocation", "GraphCut", "LogDet"]


def _is_networkx_graph(value) -> bool:
    return type(value).__module__.split(".")[0] == "networkx" and hasattr(value, "nodes") \
        and hasattr(value, "is_directed")


def _from_graph(name: str, graph, weight: str | None) -> tuple[sp.csr_matrix, list]:
    """A networkx graph's weighted adjacency (nodes in ``graph.nodes`` order) and that node list."""
    import networkx as nx

    nodes = list(graph.nodes)
    if not nodes:
        raise ValueError(f"{name} must be a graph with at least one node, got an empty graph")
    if weight is not None and not isinstance(weight, str):
        raise TypeError(f"weight must be an edge attribute name (str) or None, got {type(weight).__name__}")
    if weight is not None:  # networkx parsed a str attribute "2" as 2.0 and a bool as 0/1
        values = []
        for u, v, w in graph.edges(data=weight, default=1):
            if isinstance(w, bool | np.bool_) or not isinstance(w, numbers.Real):
                raise TypeError(f"{name}: the edge attribute {weight!r} must be numeric (a real number), got "
                                f"{type(w).__name__} {w!r:.40} on edge ({u!r}, {v!r})")
            values.append(w)
        if weight != "weight" and graph.number_of_edges() and not any(
                weight in data for *_, data in graph.edges(data=True)):  # red23b: "wieght" cut unweighted
            raise ValueError(f"weight = {weight!r} is an attribute no edge of the graph carries (a misspelt "
                             f"name made every edge weight 1): pass a name the edges carry, or None for "
                             f"every edge 1")
        # networkx converts to float64 in silence: Fraction(1, 3) or 2**60 + 1 lost the digits of f's order
        _refuse_inexact_ints(name, np.array(values, dtype=object))
    try:
        matrix = nx.to_scipy_sparse_array(graph, nodelist=nodes, weight=weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:    # a non-numeric edge attribute
        raise TypeError(f"{name}: the edge attribute {weight!r} must be numeric: {exc}") from None
    return sp.csr_matrix(matrix), tuple(nodes)  # a tuple: a list kept inside the sealed cut could be edited


def _refuse_inexact_ints(name: str, raw: Any) -> None:
    """Integer entries past 2**53 are refused, naming ``name``: the functions compute in float64, which
    rounded 2**53 + 1 to 2**53, so gains of 1 beside them were 0 and BruteForce chose a wrong set with
    Success."""
    values = raw.data if sp.issparse(raw) else list(raw.values()) if isinstance(raw, Mapping) else raw
    try:
        array = np.asarray(values)
    except Exception:  # ragged or odd: the converter names it
        return
    _refuse_inexact_reals(name, array)
    if array.dtype.kind in "iuO":
        flat = array.ravel()
        if not all(isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) for v in flat[:1]):
            return  # floats, or objects the converter names
        total = sum(abs(int(v)) for v in flat) if array.dtype.kind == "O" or \
            float(np.abs(flat.astype(np.float64)).sum()) >= 2.0**52 else 0
    else:
        return
    if total > 2**53:  # f's values are sums of these entries (exactly: 2**53 + 3 summed in floats was 2**53)
        raise ValueError(f"{name} has integer entries summing to {total}, past 2**53: float64 (the "
                         f"function's arithmetic) does not hold such sums exactly (gains of 1 were lost); "
                         f"pass them as floats or rescale them")


def _refuse_inexact_reals(name: str, array: np.ndarray) -> None:
    """Non-integer entries that float64 does not hold (a Fraction 1 + 1e-20, an np.longdouble 1 + 2**-60) are
    refused, naming ``name``: rounded to float64 they tied with their neighbours, and BruteForce chose a wrong
    set with Success. Those float64 holds exactly (Fraction(1, 2), a longdouble 0.5) are taken."""
    if array.dtype.kind == "f" and array.dtype.itemsize > 8:
        wide = array.ravel()
        inexact = wide[np.isfinite(wide) & (wide.astype(np.float64).astype(array.dtype) != wide)]
    elif array.dtype.kind == "O":
        exotic = [v for v in array.ravel() if isinstance(v, Fraction | Decimal | np.floating)]
        huge = [v for v in exotic if _finite(v) and abs(v) > WORKING_MAX]
        if huge:  # Fraction(10**400) met float()'s bare OverflowError
            raise ValueError(f"{name} has an entry of magnitude {huge[0]!r:.40}, outside the package's "
                             f"working range (at most {WORKING_MAX:.4g})")
        inexact = [v for v in exotic if _not_a_float64(v)]
    else:
        return
    if len(inexact):
        raise ValueError(f"{name} has entries float64 (the function's arithmetic) does not hold exactly, "
                         f"e.g. {inexact[0]!r}: rounded, they tied with their neighbours: pass floats")


def _finite(value: Fraction | Decimal | np.floating) -> bool:
    return bool(np.isfinite(value)) if isinstance(value, np.floating) else \
        not (isinstance(value, Decimal) and not value.is_finite())


def _not_a_float64(value: Fraction | Decimal | np.floating) -> bool:
    try:
        exact = Fraction(*value.as_integer_ratio()) if isinstance(value, np.floating) else Fraction(value)
        with np.errstate(over="ignore"):
            return Fraction(float(value)) != exact
    except (OverflowError, ValueError):
        return False  # NaN/inf, or past float64's range: the converter and the range check name it


def _weights(name: str, weights) -> tuple[np.ndarray | sp.csr_matrix, type]:
    if isinstance(weights, np.ndarray) and weights.dtype.kind == "O" and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in weights.ravel()):
        weights = weights.tolist()   # an object array of Fractions, as the list of them (heldout24: refused)
    if isinstance(weights, str | bytes) or (isinstance(weights, np.ndarray) and weights.dtype.kind in "USO"):
        raise TypeError(f"{name} must be a numeric (n, n) weight matrix or a networkx graph, got "
                        f"{type(weights).__name__}" + (f" of dtype {weights.dtype}"
                                                       if isinstance(weights, np.ndarray) else ""))
    _refuse_inexact_ints(name, weights)
    if sp.issparse(weights):
        if weights.dtype.kind not in "fiu":  # complex: the imaginary part was dropped; bool read as 0/1
            raise TypeError(f"{name} must be a real numeric (n, n) weight matrix, got a sparse matrix of "
                            f"dtype {weights.dtype}")
        matrix = sp.csr_matrix(weights)
        if matrix.dtype not in (np.float32, np.float64):
            matrix = matrix.astype(np.float64)
        if not np.all(np.isfinite(matrix.data)):
            raise ValueError(f"{name} contains NaN or inf entries")
        check_entries_in_range(name, matrix.data)  # a graph weight of 1e308 was taken (dense: refused)
        data = matrix.data
    else:
        matrix = as_float_array(name, weights, ndim=2)
        data = matrix
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be square, got shape {matrix.shape}")
    if np.any(data < 0):
        raise ValueError(f"{name} must have non-negative entries (a cut function is then >= 0)")
    return matrix, matrix.dtype.type


def _refuse_sparse(name: str, value: Any) -> None:
    """A dense matrix is documented: a scipy.sparse one was refused "must be numeric, got dtype object"."""
    if sp.issparse(value):
        raise TypeError(f"{name} must be a dense (n, n) array (.toarray() a scipy.sparse matrix), got "
                        f"{type(value).__name__}")


def _adjacency(matrix) -> list[list[tuple[int, float]]]:
    """Row lists of (column, weight) for the non-zero off-diagonal entries."""
    csr = sp.csr_matrix(matrix)
    rows = []
    for u in range(csr.shape[0]):
        cols = csr.indices[csr.indptr[u]:csr.indptr[u + 1]]
        vals = csr.data[csr.indptr[u]:csr.indptr[u + 1]]
        rows.append([(int(v), float(w)) for v, w in zip(cols, vals) if v != u and w != 0])
    return rows


class _IndexFunction(_Sealed):
    """The ready-made set functions take their arrays in any real dtype: float32 is kept, float16, integers
    and bools are promoted to float64 (the values returned are Python floats either way; the cuts', facility
    location's and coverage's sums are correctly rounded, ``math.fsum``, whatever the order of their terms).

    Shared element check: every element of S is an int in [0, n). The ready-made functions are immutable
    once built (``f.n = 99`` or ``f.kernel[0, 0] = nan`` reached the queries unchecked): setting an
    attribute they have is a TypeError naming it (one they do not have: ``UnknownAttributeError``), and
    their arrays are read-only; a user's subclass is not sealed."""

    n: int
    dtype: type

    def _seal_builtin(self) -> None:
        if type(self).__module__ == __name__:  # ours, not a user's subclass
            for name, value in list(vars(self).items()):
                if isinstance(value, np.ndarray):  # a view of a read-only base: setflags(write=True) refused
                    object.__setattr__(self, name, read_only(value))
            object.__setattr__(self, "_sealed", True)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: numpy gives the arrays back writable, so they are sealed again (a
        copy's similarity[0, 0] = nan reached the queries)."""
        self.__dict__.update(state)
        if self.__dict__.get("_sealed"):
            for name, value in list(state.items()):
                if isinstance(value, np.ndarray):
                    self.__dict__[name] = read_only(value)

    def _check(self, subset: Any) -> frozenset:
        """``subset`` as a frozenset of indices (None, a number, a str, a dict refused by name)."""
        subset = as_subset("subset", subset)
        for element in subset:  # True is not element 1 (a bool passed as an index counted as 0/1)
            if isinstance(element, bool | np.bool_) or not isinstance(element, int | np.integer) \
                    or not 0 <= element < self.n:
                raise ValueError(f"{type(self).__name__}: subset elements must be ints in [0, {self.n}), "
                                 f"got {element!r}")
        return subset


def check_in_domain(name: str, f: Any, element: Any) -> None:
    """``element`` in the ground set of a ready-made function ``f`` (ints in [0, f.n)); a user's callable is
    not checked. An element outside was refused by the function at its first query, naming ``subset``
    rather than the argument that brought it in (an ``UpdateStream`` update, an inserted ``e``)."""
    if isinstance(f, _IndexFunction) and type(f).__module__ == __name__ and (
            isinstance(element, bool | np.bool_) or not isinstance(element, int | np.integer)
            or not 0 <= element < f.n):
        raise ValueError(f"{name} = {element!r} is outside f's ground set: {type(f).__name__} takes the ints "
                         f"in [0, {f.n})")


class DirectedCut(_IndexFunction):
    """f(S) = Σ_{u∈S, v∉S} W[u, v] for a non-negative (n, n) weight matrix (dense or sparse),
    or a networkx (di)graph with edge weights in the attribute ``weight`` (default ``"weight"``,
    missing: 1; ``None``: every edge 1; another name that no edge carries is refused by name: a misspelt
    ``"wieght"`` made every edge 1). Integer weights must sum to at most 2**53 (f is computed in
    float64, exact for such sums; more is refused by name: pass floats). A Fraction, Decimal or
    np.longdouble weight that float64 does not hold exactly (Fraction(1, 3), 1 + 2**-60) is refused by name
    (rounded, it tied with its neighbours); one it holds (Fraction(1, 2)) is taken.

    With a graph, element i is ``nodes[i]`` (``graph.nodes`` order): ``to_nodes(S)`` maps a set
    of indices back to node labels, ``from_nodes(labels)`` the other way.
    """

    def __init__(self, weights, weight: str | None = "weight") -> None:
        if weight is not None and not isinstance(weight, str):  # checked for a matrix too
            raise TypeError(f"weight must be an edge attribute name (str) or None, got "
                            f"{type(weight).__name__}")
        self.nodes: tuple | None = None
        if _is_networkx_graph(weights):
            if isinstance(self, GraphCut) and weights.is_directed():
                raise ValueError("weights: GraphCut needs an undirected graph, got a directed one; "
                                 "use DirectedCut for a DiGraph")
            weights, self.nodes = _from_graph("weights", weights, weight)
        matrix, self.dtype = _weights("weights", weights)
        if matrix.shape[0] == 0:  # no element: an empty ground set (as LogDet's empty kernel)
            raise ValueError(f"weights must be a non-empty (n, n) matrix or a graph with nodes, got shape "
                             f"{matrix.shape}")
        self.n = matrix.shape[0]
        self._out = _adjacency(matrix)
        self._seal_builtin()

    def _init_args(self) -> tuple:
        rows = [u for u, row in enumerate(self._out) for _ in row]
        cols = [v for row in self._out for v, _ in row]
        vals = [w for row in self._out for _, w in row]
        matrix = sp.csr_matrix((np.asarray(vals, dtype=self.dtype), (rows, cols)), shape=(self.n, self.n))
        return matrix, self.nodes

    @classmethod
    def _from_args(cls, args: tuple) -> DirectedCut:
        matrix, nodes = args
        built = cls(matrix)
        if nodes is not None:  # a graph's labels: one per element, as the graph gave them
            if not isinstance(nodes, tuple) or len(nodes) != built.n:
                raise ValueError(f"nodes must be a tuple of {built.n} node labels (a loaded state's), got "
                                 f"{_brief(nodes)}")
            object.__setattr__(built, "nodes", nodes)
        return built

    def to_nodes(self, subset) -> frozenset:
        """The graph's node labels of the element indices in ``subset`` (a set of ints in [0, n); the indices
        themselves without a graph)."""
        subset = self._check(subset)  # 42 met "'int' object is not iterable"
        if self.nodes is None:
            return frozenset(subset)
        return frozenset(self.nodes[i] for i in subset)

    def from_nodes(self, labels) -> frozenset:
        """The element indices of the graph's node ``labels`` (a collection of node labels)."""
        labels = elements_of("labels", labels)
        if self.nodes is None:
            return frozenset(labels)
        index = {node: i for i, node in enumerate(self.nodes)}
        missing = [v for v in labels if v not in index]
        if missing:
            raise ValueError(f"labels must be nodes of the graph, got {missing[:3]} not in it")
        return frozenset(index[v] for v in labels)

    def __call__(self, subset: frozenset) -> float:
        subset = self._check(subset)
        # fsum: the correctly rounded sum in any order (a Python sum lost the 1s of 1e16 + 1 + 1: 1e16 for
        # 1e16 + 2, a gain of 2 gone)
        return math.fsum(w for u in subset for v, w in self._out[u] if v not in subset)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n})"


class GraphCut(DirectedCut):
    """The undirected cut Σ_{u∈S, v∉S} W[u, v] of a symmetric non-negative weight matrix, or of
    an undirected networkx graph (see :class:`DirectedCut` for ``weight`` and node labels):
    ``weights`` is that (n, n) matrix (dense or scipy.sparse, symmetric, finite, >= 0) or graph; symmetric
    to rounding level, pair by pair: |W[i, j] − W[j, i]| <= max(1e-8, 8 eps of W's dtype)·max(W[i, j],
    W[j, i], √(W[i, i]·W[j, j])), a larger asymmetry refused (relative to the pair, not to max |W|: one
    weight of 1e20 does not make an asymmetry of 999 elsewhere rounding).
    As for :class:`DirectedCut`, integer weights must sum to at most 2**53 (more is refused by name: pass
    floats) and a Fraction, Decimal or np.longdouble weight float64 does not hold exactly is refused by name.

    >>> import networkx as nx
    >>> cut = GraphCut(nx.Graph([("a", "b", {"weight": 2.0}), ("b", "c", {"weight": 1.0})]))
    >>> cut(cut.from_nodes({"b"})), cut.to_nodes({0})
    (3.0, frozenset({'a'}))
    """

    def __init__(self, weights, weight: str | None = "weight") -> None:
        if not _is_networkx_graph(weights):
            matrix, _ = _weights("weights", weights)
            # at the weights' own rounding: a float32 A·Aᵀ is asymmetric by ~eps32 relative and was refused
            check_square_symmetric("weights", matrix, rtol=max(1e-8, 8 * float(np.finfo(matrix.dtype).eps)))
        super().__init__(weights, weight)


class FacilityLocation(_IndexFunction):
    """f(S) = Σ_c max_{j∈S} similarity[c, j] (0 for S = ∅); ``similarity`` is (customers, n), >= 0.

    n >= 1 elements (columns) are needed (zero columns is an empty ground set, refused by name); zero
    customers (rows) is allowed and gives f ≡ 0. Integer similarities must sum to at most 2**53 (f is
    computed in float64, exact for such sums; more is refused by name: pass floats). A Fraction or
    np.longdouble similarity that float64 does not hold exactly (Fraction(1, 3), 1 + 2**-60) is refused by
    name (rounded, it tied with its neighbours); one it holds (Fraction(1, 2)) is taken.

    >>> FacilityLocation(np.array([[1.0, 0.5], [0.0, 2.0]]))(frozenset({0, 1}))
    3.0
    """

    def __init__(self, similarity) -> None:
        _refuse_sparse("similarity", similarity)
        _refuse_inexact_ints("similarity", similarity)
        self.similarity = as_float_array("similarity", similarity, ndim=2)
        if np.any(self.similarity < 0):
            raise ValueError("similarity must have non-negative entries")
        if self.similarity.shape[1] == 0:  # no element: an empty ground set
            raise ValueError(f"similarity must have at least one column (an element), got shape "
                             f"{self.similarity.shape}")
        self.dtype = self.similarity.dtype.type
        self.n = self.similarity.shape[1]
        self._seal_builtin()

    def _init_args(self) -> tuple:
        return (self.similarity,)

    def __call__(self, subset: frozenset) -> float:
        subset = self._check(subset)
        if not subset:
            return 0.0
        columns = self.similarity[:, sorted(subset)]
        # in float64, correctly rounded (fsum): a float32 similarity summed in float32 lost digits (3.4e38 per
        # customer was inf), and a float sum the small terms beside a large one
        return math.fsum(columns.max(axis=1).astype(np.float64).tolist())

    def __repr__(self) -> str:
        return f"FacilityLocation(customers={self.similarity.shape[0]}, n={self.n})"


class Coverage(_IndexFunction):
    """f(S) = total weight of the items covered by ∪_{j∈S} sets[j] (``item_weights`` default 1).

    ``sets`` is a non-empty sequence of collections of int items in [0, 2**63) (not bools; the cost grows
    with the items present, not with the largest id); ``item_weights`` None (every item weighs 1), a 1-D
    array-like of finite weights >= 0 (each at most 3.4e38) indexed by item (at least one entry per item),
    or a mapping item -> weight with an entry for every item of ``sets`` (entries for other items are
    unused). Integer weights must sum to at most 2**53 (f is computed in float64, exact for such sums; more
    is refused by name: pass floats). A Fraction or np.longdouble weight that float64 does not hold exactly
    (Fraction(1, 3), 1 + 2**-60) is refused by name (rounded, it tied with its neighbours); one it holds
    (Fraction(1, 2)) is taken.

    >>> Coverage([{0, 1}, {1, 2}, {2}])(frozenset({0, 1}))
    3.0
    """

    def __init__(self, sets: Sequence[Iterable[int]], item_weights=None) -> None:
        if isinstance(sets, str | bytes) or not isinstance(sets, Sequence) or len(sets) == 0:
            raise TypeError(f"sets must be a non-empty sequence of item sets, got {type(sets).__name__}")
        family = []
        for j, items in enumerate(sets):
            if isinstance(items, str | bytes) or not isinstance(items, Iterable):
                raise TypeError(f"sets[{j}] must be an iterable of item ints, got {type(items).__name__}")
            try:
                items = frozenset(items)
            except TypeError:  # a nested list: its items are not hashable
                raise TypeError(f"sets[{j}] must be an iterable of item ints, got items "
                                f"{[type(i).__name__ for i in items][:3]}") from None
            if not all(isinstance(i, int | np.integer) and not isinstance(i, bool | np.bool_) and i >= 0
                       for i in items):  # True was item 1
                raise ValueError(f"sets[{j}] must hold non-negative int items, got {sorted(items, key=repr)}")
            family.append(items)
        used = sorted(frozenset().union(*family))
        if used and used[-1] > INT64_MAX:  # an id numpy cannot index item_weights with
            raise ValueError(f"sets must hold items in [0, 2**63), got item {int(used[-1])}")
        n_items = 1 + (int(used[-1]) if used else -1)
        # one weight per item present (a dict): two sets {0}, {10**9} built a list of 10**9 weights (70 s)
        if item_weights is not None:
            _refuse_inexact_ints("item_weights", item_weights)
        if item_weights is None:
            values = np.ones(len(used))
        elif isinstance(item_weights, Mapping):  # {item: weight}: was "must be numeric, got dtype object"
            missing = [i for i in used if i not in item_weights]
            if missing:
                raise ValueError(f"item_weights has no weight for item(s) {missing[:10]} of sets")
            values = as_float_array("item_weights", [item_weights[i] for i in used], ndim=1)
        else:
            weights = as_float_array("item_weights", item_weights, ndim=1)
            if weights.size < n_items:
                raise ValueError(f"item_weights must have one entry per item (>= {n_items}), "
                                 f"got {weights.size}")
            if np.any(weights < 0):
                raise ValueError("item_weights must be non-negative")
            values = weights[np.asarray(used, dtype=np.int64)] if used else weights[:0]
        if np.any(values < 0):
            raise ValueError("item_weights must be non-negative")
        self.sets = tuple(family)  # ReadOnlyMap below: a mappingproxy could not be deep-copied
        self._weight_of = ReadOnlyMap(dict(zip(used, values.tolist(), strict=True)))
        #: the weights as given: an array indexed by item (read-only), a mapping of the items used, or None
        self.item_weights = (None if item_weights is None else self._weight_of
                             if isinstance(item_weights, Mapping) else weights)
        self.n_items = n_items
        self.dtype = values.dtype.type
        self.n = len(family)
        self._seal_builtin()

    def _init_args(self) -> tuple:
        return self.sets, self.item_weights

    def __call__(self, subset: frozenset) -> float:
        subset = self._check(subset)
        covered = set().union(*(self.sets[j] for j in subset)) if subset else set()
        # fsum: correctly rounded whatever the set's iteration order (a Python sum's result depended on it)
        return math.fsum(self._weight_of[i] for i in covered)

    def __repr__(self) -> str:
        return f"Coverage(n={self.n}, items={self.n_items})"


def _log_det_identity_plus(block: np.ndarray) -> float | None:
    """log det(I + K) as Σ log1p(eᵢ) over the LDLᵀ pivots dᵢ = 1 + eᵢ of I + K, each eᵢ = Kᵢᵢ − Σⱼ Lᵢⱼ²dⱼ
    formed without the 1 (None where a pivot is not > 0: not numerically PD). Cholesky of I + K rounded
    1 + Kᵢᵢ first: K = [[2, 1], [1, 2]]·1e-30 gave 0.0 for 4e-30, and 8e-8 relative error at 1e-10."""
    n = len(block)
    low = np.zeros((n, n))
    pivots = np.zeros(n)
    excess = np.zeros(n)
    for i in range(n):
        row = low[i, :i]
        excess[i] = block[i, i] - float(np.dot(row * row, pivots[:i]))
        pivots[i] = 1.0 + excess[i]
        if not pivots[i] > 0.0:
            return None
        low[i + 1:, i] = (block[i + 1:, i] - low[i + 1:, :i] @ (row * pivots[:i])) / pivots[i]
    return float(np.log1p(excess).sum())


def _graded_full_rank(block: np.ndarray, diagonal: np.ndarray) -> bool:
    """Whether a PSD block is numerically full rank once its rows are scaled to unit diagonal (D K D, D =
    diag(K)^(-1/2)): then every eigenvalue, however small beside λ_max (K = [[1e20, 1], [1, 1]]), is resolved,
    and Cholesky gives log det(I + K_S) to rounding; the λ_max cut-off dropped it (off by log 2; red16b). A
    kernel of lower rank built in floats (A Aᵀ × 1e20) has a scaled eigenvalue at rounding level: not here."""
    if np.any(diagonal <= 0):
        return False
    scale = 1.0 / np.sqrt(diagonal)
    scaled = block * scale[:, None] * scale[None, :]
    return bool(np.linalg.eigvalsh(scaled)[0] > 16 * len(diagonal) * np.finfo(np.float64).eps)


class LogDet(_IndexFunction):
    """Log-determinant functions of a positive semidefinite (n, n) kernel K.

    Symmetric and PSD to rounding level: |K[i, j] − K[j, i]| <= max(1e-8, 4 eps)·max(|K[i, j]|, |K[j, i]|,
    √|K[i, i]·K[j, j]|) for every pair, and λ_min(K) >= −r·max |K| with r = max(1e-10, 4 n eps) (eps of K's
    dtype), also for K's rows of positive diagonal scaled to a unit diagonal (D K D, D = diag(K)^(-1/2): its
    λ_min >= −r·m over those m rows; one entry of 1e20 does not make an eigenvalue of −999 elsewhere rounding)
    pass; larger asymmetries or negative eigenvalues are refused by name (naming ``kernel``).

    ``monotone=True``: f(S) = log det(I + K_S) (monotone, f(∅) = 0). ``monotone=False``:
    f(S) = log det(I + K_S) + log det(I + K_{V∖S}) − log det(I + K), the mutual information
    between the Gaussian variables of S and of the rest for covariance I + K: non-negative,
    submodular, not monotone (f(∅) = f(V) = 0).

    log det(I + K_S) is Σ log(1 + λᵢ) over K_S's eigenvalues. Where K_S scaled to a unit diagonal is
    numerically full rank (its smallest eigenvalue above 16·|S|·eps) every eigenvalue counts, however small
    beside λ_max (Cholesky of I + K_S: [[1e20, 1], [1, 1]] gives log(2·(1 + 1e20) − 1)); otherwise K_S is
    taken at its numerical rank: an eigenvalue below |S|·eps·λ_max(K_S) is rounding (the kernel's own for a
    rank-deficient K built in floats, such as A Aᵀ) and counts as 0, except where K_S is diagonal, whose
    eigenvalues are its exact entries (diag(1e30, 1) gives log(1 + 1e30) + log 2).

    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> round(LogDet(K)(frozenset({0})), 6), round(LogDet(K, monotone=False)(frozenset({0})), 6)
    (1.098612, 0.117783)
    """

    def __init__(self, kernel, monotone: bool = True) -> None:
        _refuse_sparse("kernel", kernel)
        kernel = as_float_array("kernel", kernel, ndim=2)
        if kernel.size == 0:  # no element: the ground set would be empty (indexing failed)
            raise ValueError(f"kernel must be a non-empty (n, n) matrix, got shape {kernel.shape}")
        # tolerances at the kernel's own rounding: a float32 Gram A·Aᵀ (exactly PSD) has eigenvalues down to
        # about -n eps32 ‖K‖ and entries asymmetric by eps32 ‖K‖, and was refused with float64's
        eps = float(np.finfo(kernel.dtype).eps)
        check_square_symmetric("kernel", kernel, rtol=max(1e-8, 4 * eps))
        check_psd("kernel", kernel, rtol=max(1e-10, 4 * kernel.shape[0] * eps))
        monotone = check_bool("monotone", monotone)  # an np.bool_ was refused as "a bool, got bool"
        self.kernel = kernel
        self.monotone = monotone
        self.dtype = kernel.dtype.type
        self.n = kernel.shape[0]
        self._kernel64 = kernel.astype(np.float64)
        self._total = self._logdet(list(range(self.n)))
        self._seal_builtin()

    def _init_args(self) -> tuple:
        return self.kernel, self.monotone

    def _logdet(self, index: list[int]) -> float:
        if not index:
            return 0.0
        # Σ log(1 + λᵢ(K_S)) with K_S's numerical rank (eigenvalues below |S| eps λ_max are rounding, 0):
        # slogdet of I + K_S dropped its sign, and at K ×1e20 a dependent element's rounding-level eigenvalue
        # gained ~9 (a rank-2 kernel scored 267 > its bound; Diverged at ×1e17)
        block = self._kernel64[np.ix_(index, index)]
        diagonal = np.diagonal(block)
        if not np.any(block - np.diag(diagonal)):  # exact eigenvalues: the cut-off dropped diag(1e30, 1)'s 1
            return float(np.log1p(np.maximum(diagonal, 0.0)).sum())
        if _graded_full_rank(block, diagonal):  # Cholesky / LDLᵀ of I + K_S keep a small eigenvalue's digits
            try:
                low = np.linalg.cholesky(np.eye(len(index)) + block)
                value = float(2.0 * np.log(np.diagonal(low)).sum())
            except np.linalg.LinAlgError:
                value = None
            # I + K_S's pivots are >= 1: Cholesky's error is a few eps per pivot, absolute; where the value is
            # below 0.05 per element that is past 1e-13 relative, so the (slower) LDLᵀ without the 1 is taken
            if value is None or value < 0.05 * len(index):
                value = _log_det_identity_plus(block)
            if value is not None:
                return value
        lam = np.linalg.eigvalsh(block)
        lam = np.where(lam > len(index) * np.finfo(np.float64).eps * max(float(lam[-1]), 0.0), lam, 0.0)
        return float(np.log1p(lam).sum())

    def __call__(self, subset: frozenset) -> float:
        subset = self._check(subset)
        inside = sorted(subset)
        value = self._logdet(inside)
        if not self.monotone:
            outside = [j for j in range(self.n) if j not in subset]
            value = self._mutual_information(inside, outside, value)
        return value

    def _mutual_information(self, inside: list[int], outside: list[int], inside_logdet: float) -> float:
        """log det(I + K_S) + log det(I + K_T) − log det(I + K) (T = V ∖ S) as −Σ log(1 − ρᵢ²) over the
        canonical correlations ρᵢ of S and T under I + K where they are small: the difference of log-dets
        cancelled (K × 1e-10: 2e-5 relative error; K × 1e-30: 0 for a value of 1e-60)."""
        if not inside or not outside:
            return 0.0
        K = self._kernel64
        try:
            low_s = np.linalg.cholesky(np.eye(len(inside)) + K[np.ix_(inside, inside)])
            low_t = np.linalg.cholesky(np.eye(len(outside)) + K[np.ix_(outside, outside)])
        except np.linalg.LinAlgError:  # I + K not numerically PD (a huge K with rounding-level negative λ)
            low_s = None
        if low_s is not None:
            cross = scipy.linalg.solve_triangular(low_s, K[np.ix_(inside, outside)], lower=True)
            cross = scipy.linalg.solve_triangular(low_t, cross.T, lower=True)
            rho2 = np.linalg.svd(cross, compute_uv=False) ** 2
            if rho2.max(initial=0.0) <= 0.5:  # 1 − ρ² well conditioned: every digit of each term kept
                return float(-np.log1p(-rho2).sum()) + 0.0  # + 0.0: not -0.0 where every ρ is 0
        # large correlations: the value is >= log 2, and the log-dets' rounding is small beside it
        return max(inside_logdet + self._logdet(outside) - self._total, 0.0)  # >= 0 up to round-off

    def __repr__(self) -> str:
        return f"LogDet(n={self.n}, monotone={self.monotone})"
