"""TSP and CVRP instances: data, the paper's generators, TSPLIB/CVRPLIB text, validation and cost.

A TSP tour is a permutation of ``0..n-1`` (a closed cycle); its cost is
``Σ_k d(x_k, x_{k+1 mod n})`` with Euclidean ``d``. A CVRP instance has the depot at node 0
and customers ``1..n`` with integer demands ``1 <= d_i <= Q``; a solution is a list of routes
(each a list of customers, the depot implicit at both ends) visiting every customer once,
each route's demand ``<= Q``; its cost is the total Euclidean length of the closed routes.

Generators follow the paper's data (Section 4 "Dataset", after AGFN/GFACS): coordinates
uniform on ``[0, 1]²``, demands uniform on ``{1, ..., 9}``, capacity by size
``{20: 30, 50: 40, 100: 50}`` and 50 for 200 customers and more (other sizes: the entry of
the next size up).

References
----------
N. Zhang, Z. Cao. Hybrid-Balance GFlowNet for Solving Vehicle Routing Problems. NeurIPS 2025,
arXiv:2510.04792 (Section 3.1, Section 4 "Dataset").

>>> inst = random_tsp(5, seed=0)
>>> tour = [0, 1, 2, 3, 4]
>>> bool(abs(tsp_cost(inst, tour) - tsp_cost(inst, [0, 4, 3, 2, 1])) < 1e-12)
True
>>> cv = random_cvrp(10, seed=0)
>>> cv.capacity, cv.n_customers
(30, 10)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import (
    INT64_MAX,
    WORKING_MAX,
    _brief,
    allocates,
    as_float_array,
    check_fits_memory,
    check_int_at_least,
    check_seed,
    read_only,
    revalidate_if_reassigned,
)
from algorithms.core import Problem

__all__ = [
    "CVRPInstance",
    "TSPInstance",
    "check_cvrp_routes",
    "check_tsp_tour",
    "cvrp_capacity",
    "cvrp_cost",
    "is_valid_cvrp",
    "is_valid_tsp",
    "random_cvrp",
    "random_tsp",
    "read_cvrplib",
    "read_tsplib",
    "routes_from_sequence",
    "sequence_from_routes",
    "tsp_cost",
    "write_cvrplib",
    "write_tsplib",
]

#: capacity by number of customers (AGFN / GFACS / HBG data); 200 and more: 50
_CAPACITY = {20: 30, 50: 40, 100: 50}
#: two coordinates closer than this are duplicates (the distance matrix would have a zero off the diagonal)
#: two nodes closer than this fraction of the largest pairwise distance are duplicates
_DUP_TOL = 1e-12


def cvrp_capacity(n: int) -> int:
    """Vehicle capacity for ``n`` customers: 20→30, 50→40, 100→50, ≥200→50 (else the next size up).

    ``n`` is an int >= 1 (a float such as 10.0 is refused by name).

    >>> [cvrp_capacity(n) for n in (10, 20, 50, 100, 500)]
    [30, 30, 40, 50, 50]
    """
    n = check_int_at_least("n", n, 1)
    for size in sorted(_CAPACITY):
        if n <= size:
            return _CAPACITY[size]
    return 50


#: the largest pairwise distance: the package's working range (a larger one is refused by the distance
#: checks of the solvers that take the instance's matrix)
_MAX_DISTANCE = WORKING_MAX


def _check_coords(coords: Any, minimum: int) -> np.ndarray:
    coords = as_float_array("coords", coords, ndim=2, dtype=np.float64)
    # the pairwise distances are an (n, n) matrix (and its (n, n, 2) differences): n = 10**9 nodes thrashed
    check_fits_memory("coords", "coords", f"{coords.shape[0]} nodes", 32.0 * coords.shape[0] ** 2)
    if coords.shape[1] != 2:
        raise ValueError(f"coords must have shape (n, 2), got {coords.shape}")
    if coords.shape[0] < minimum:
        raise ValueError(f"coords must have at least {minimum} nodes (n >= {minimum}), got {coords.shape[0]}")
    with np.errstate(over="ignore", invalid="ignore"):
        diff = coords[:, None, :] - coords[None, :, :]
        dist = np.sqrt((diff**2).sum(-1))
    if not np.all(dist <= _MAX_DISTANCE):  # NaN/inf too: squared differences past the float range
        raise ValueError(f"coords must have pairwise distances at most {_MAX_DISTANCE:.4g} (the package's "
                         f"working range: the solvers' distance matrices are checked in it), got max "
                         f"|coords| = {np.abs(coords).max():.3g}")
    with np.errstate(under="ignore"):
        squared = (diff**2).sum(-1)
    # a squared distance below float64's smallest normal has lost digits (points 1e-160 apart: the tour
    # length was 6e-4 off, in silence): refused as documented, exact zeros being the duplicates below
    lossy = (squared < np.finfo(np.float64).tiny) & np.any(diff != 0, axis=-1)
    if np.any(lossy):
        i, j = (int(k) for k in np.argwhere(lossy)[0])
        exact = float(np.hypot(*(coords[i] - coords[j])))  # without squaring: no underflow
        raise ValueError(f"coords are too small in scale: nodes {min(i, j)} and {max(i, j)} are "
                         f"{exact:.3g} apart, but their squared distance underflows float64's normal range "
                         f"(the distances the solvers use would lose digits); rescale coords (e.g. by "
                         f"1/max |coords| = {1.0 / float(np.abs(coords).max()):.3g})")
    # relative to the extent: the same geometry at any coordinate scale is accepted or refused alike
    # (an absolute 1e-12 called points 5e-14 apart in a 1e-12 box duplicates; 0 still is one)
    extent = float(dist.max())
    np.fill_diagonal(dist, np.inf)
    if dist.min() <= _DUP_TOL * extent:
        i, j = np.unravel_index(np.argmin(dist), dist.shape)
        exact = float(np.hypot(*(coords[i] - coords[j])))  # without squaring: no underflow
        if exact > _DUP_TOL * float(np.hypot(*np.ptp(coords, axis=0))):
            # distinct points whose squared differences underflow (coords ~1e-200 were called duplicates)
            raise ValueError(f"coords are too small in scale: nodes {min(i, j)} and {max(i, j)} are "
                             f"{exact:.3g} apart, but their squared distance underflows float64 (the "
                             f"distances the solvers use would be 0); rescale coords (e.g. by 1/max |coords| "
                             f"= {1.0 / float(np.abs(coords).max()):.3g})")
        if np.array_equal(coords[i], coords[j]):
            raise ValueError(
                f"coords must be distinct, got duplicate nodes {min(i, j)} and {max(i, j)} at "
                f"{coords[i].tolist()}"
            )
        # distinct, but closer than the resolution the solvers' distances carry at this extent
        a, b = min(i, j), max(i, j)
        raise ValueError(f"coords must be distinct at the instance's scale: nodes {a} and {b} ("
                         f"{coords[a].tolist()} and {coords[b].tolist()}) are {float(dist[i, j]):.3g} apart, "
                         f"below {_DUP_TOL:g} times the largest pairwise distance {extent:.3g} (the "
                         f"solvers treat them as one point); move them apart or rescale the far nodes")
    return coords


def _check_int_demands(demands: Any) -> None:
    """Int demands past 2**53 refused before the float64 cast (it rounded 2**53 + 1 to 2**53, then taken)."""
    if isinstance(demands, list | tuple) and all(isinstance(v, int | np.integer) and not isinstance(v, bool)
                                                 for v in demands):
        values = [int(v) for v in demands]
    elif isinstance(demands, np.ndarray) and demands.dtype.kind in "iu":
        values = [int(v) for v in demands.reshape(-1)]
    else:
        return
    for i, value in enumerate(values):
        if abs(value) > 2**53:
            raise ValueError(f"demands must be <= 2**53 (exact in float64), got demands[{i}] = {value}")


def _distances(coords: np.ndarray) -> np.ndarray:
    diff = coords[:, None, :] - coords[None, :, :]
    return np.sqrt((diff**2).sum(-1))


def _reseal(instance: Any, state: dict) -> None:
    """An unpickled or deep-copied instance: numpy gives its arrays back writable (the distances, not a
    field, escaped solve's re-validation), so they are made read-only again."""
    instance.__dict__.update({k: read_only(v) if isinstance(v, np.ndarray) else v for k, v in state.items()})


@dataclass(frozen=True, eq=False)
class TSPInstance(Problem):
    """A Euclidean TSP on ``n >= 3`` distinct finite points ``coords`` (shape (n, 2); any real dtype, kept
    as a read-only float64 copy: float32, float16 and integer coordinates are promoted). Every pairwise
    distance must be at most 3.4e38 (the working range), so coordinates of magnitude above about 1.2e38
    may be refused by name (|coords| <= 1.2e38 always passes, as far as this range rule goes); and points so
    close that their squared distance underflows float64 (about 1e-154 apart or less) are refused by name
    (rescale the coords). Distinct means distinct at the instance's scale: every two points more than 1e-12
    times the largest pairwise distance apart (closer ones, e.g. points 1 apart beside one at 1e38, are
    refused by name: the solvers' distances cannot tell them apart)."""

    coords: np.ndarray

    def __post_init__(self) -> None:
        coords = _check_coords(self.coords, 3)
        object.__setattr__(self, "coords", read_only(coords))
        object.__setattr__(self, "_distances", read_only(_distances(coords)))

    def __setstate__(self, state: dict) -> None:
        _reseal(self, state)

    @property
    def distances(self) -> np.ndarray:
        """The (n, n) Euclidean distances of ``coords``, read-only (a property: replacing it after
        construction is refused, where a replaced matrix was solved in silence; ``coords`` replaced since
        construction is validated again first)."""
        revalidate_if_reassigned(self)  # the distances of replaced coords, not the stale ones
        return self._distances

    @property
    def n(self) -> int:
        return int(self.coords.shape[0])


@dataclass(frozen=True, eq=False)
class CVRPInstance(Problem):
    """A Euclidean CVRP: ``coords`` (n+1, 2) with the depot at row 0 (any real dtype, kept as float64),
    integer ``demands`` (n+1,)
    with ``demands[0] == 0`` and ``1 <= demands[i] <= min(capacity, 2**53)`` (2**53: exact in float64), and
    an integer ``capacity`` in [1, 2**63 - 1] (an integral float such as 5.0 is taken as the int 5).

    ``demands`` may also be given for the customers only (length n); a leading 0 is added.
    At least 2 customers (3 nodes with the depot). As for :class:`TSPInstance`, every pairwise distance
    must be at most 3.4e38 (|coords| <= 1.2e38 always passes that rule; larger ones may be refused by name),
    and every two nodes must be more than 1e-12 times the largest pairwise distance apart (refused by name
    otherwise: the solvers cannot tell them apart).
    """

    coords: np.ndarray
    demands: np.ndarray
    capacity: int

    def __post_init__(self) -> None:
        coords = _check_coords(self.coords, 3)
        cap = self.capacity
        if isinstance(cap, bool) or not isinstance(cap, int | np.integer | float | np.floating):
            raise TypeError(f"capacity must be a positive int, got {type(cap).__name__} {cap!r}")
        # np.isfinite cannot take a Python int past int64 (either sign: -10**400 met its TypeError)
        if isinstance(cap, int | np.integer) and cap > INT64_MAX:
            raise ValueError(f"capacity must be <= 2**63 - 1 (the demands' int64), got {cap!r}")
        if isinstance(cap, int | np.integer) and cap <= 0:
            raise ValueError(f"capacity must be a positive int, got {cap!r}")
        if not np.isfinite(cap) or cap <= 0 or int(cap) != cap:
            raise ValueError(f"capacity must be a positive int, got {cap!r}")
        cap = int(cap)
        if cap > INT64_MAX:  # an integral float such as 1e308 passed the check above
            raise ValueError(f"capacity must be <= 2**63 - 1 (the demands' int64), got {self.capacity!r}")
        _check_int_demands(self.demands)
        dem = as_float_array("demands", self.demands, ndim=1, dtype=np.float64)
        if dem.shape[0] == coords.shape[0] - 1:
            dem = np.concatenate([[0.0], dem])
        if dem.shape[0] != coords.shape[0]:
            raise ValueError(
                f"demands must have length n+1 = {coords.shape[0]} (depot first) or n = "
                f"{coords.shape[0] - 1}, got {dem.shape[0]}"
            )
        if np.any(np.abs(dem) > 2**53):  # past 2**53 a float64 demand is rounded: a wrong load, in silence
            i = int(np.argmax(np.abs(dem)))
            raise ValueError(f"demands must be <= 2**53 (exact in float64), got demands[{i}] = {dem[i]:g}")
        if np.any(dem != np.round(dem)):
            raise ValueError(f"demands must be integers, got {dem[dem != np.round(dem)][:3].tolist()}")
        if dem[0] != 0:
            raise ValueError(f"demands[0] (the depot) must be 0, got {dem[0]!r}")
        if np.any(dem[1:] < 1):
            i = int(np.argmin(dem[1:])) + 1
            raise ValueError(f"demands of customers must be >= 1, got demands[{i}] = {dem[i]:g}")
        if np.any(dem > cap):
            i = int(np.argmax(dem))
            raise ValueError(f"demands must be <= capacity = {cap}, got demands[{i}] = {dem[i]:g}")
        object.__setattr__(self, "coords", read_only(coords))
        object.__setattr__(self, "demands", read_only(dem.astype(np.int64)))
        object.__setattr__(self, "capacity", cap)
        object.__setattr__(self, "_distances", read_only(_distances(coords)))

    def __setstate__(self, state: dict) -> None:
        _reseal(self, state)

    @property
    def distances(self) -> np.ndarray:
        """The (n+1, n+1) Euclidean distances of ``coords`` (depot first), read-only (see TSPInstance)."""
        revalidate_if_reassigned(self)  # the distances of replaced coords, not the stale ones
        return self._distances

    @property
    def n_customers(self) -> int:
        return int(self.coords.shape[0] - 1)


@allocates("n")
def random_tsp(n: int, seed: int = 0) -> TSPInstance:
    """``n`` points uniform on ``[0, 1]²`` (seeded): ``n`` an int >= 3 whose (n, n) distances fit this
    machine's memory (refused by name otherwise), ``seed`` an int in [0, 2**64).

    >>> random_tsp(4, seed=1).coords.shape
    (4, 2)
    """
    n = check_int_at_least("n", n, 3)
    check_fits_memory("random_tsp", "n", n, 32.0 * n * n)  # the instance's (n, n) distances, before drawing
    rng = np.random.default_rng(check_seed(seed))
    return TSPInstance(rng.random((n, 2)))


@allocates("n")
def random_cvrp(n: int, seed: int = 0, capacity: int | None = None) -> CVRPInstance:
    """A depot and ``n`` customers uniform on ``[0, 1]²``, demands uniform on {1..9}, the
    paper's capacity for ``n`` unless ``capacity`` is given: ``n`` an int >= 2 (customers) whose distances
    fit in memory, ``seed`` an int in [0, 2**64), ``capacity`` None (:func:`cvrp_capacity`) or an int in
    [1, 2**63 - 1] that is at least every drawn demand (demands are drawn from 1..9, so a capacity below 9
    may be refused, naming the demand that exceeds it).

    >>> inst = random_cvrp(5, seed=2)
    >>> int(inst.demands[0]), bool(inst.demands[1:].min() >= 1), bool(inst.demands.max() <= 9)
    (0, True, True)
    """
    n = check_int_at_least("n", n, 2)
    check_fits_memory("random_cvrp", "n", n, 32.0 * (n + 1) ** 2)  # the (n+1, n+1) distances, before drawing
    rng = np.random.default_rng(check_seed(seed))
    coords = rng.random((n + 1, 2))
    demands = np.concatenate([[0], rng.integers(1, 10, size=n)])
    return CVRPInstance(coords, demands, cvrp_capacity(n) if capacity is None else capacity)


# ----------------------------------------------------------------------------- validation, cost


def _check_instance(instance: Any, kind: type) -> None:
    if not isinstance(instance, kind):
        raise TypeError(f"instance must be a {kind.__name__}, got {type(instance).__name__}")
    # a field replaced since construction (object.__setattr__): tsp_cost priced the old distances and
    # write_tsplib wrote NaN coords in silence, where solve validated it again
    revalidate_if_reassigned(instance)


def check_tsp_tour(instance: TSPInstance, tour: Any) -> np.ndarray:
    """``tour`` as an int array, or ValueError when it is not a permutation of ``0..n-1``."""
    _check_instance(instance, TSPInstance)
    _check_no_bools("tour", tour)
    try:
        arr = np.asarray(tour.detach().cpu() if hasattr(tour, "detach") else tour)
    except Exception as exc:  # a ragged list, an __array__ that raises
        raise TypeError(f"tour must be a 1-D sequence of node indices: {type(exc).__name__}: {exc}") from None
    if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
        raise ValueError(f"tour must be a 1-D sequence of node indices, got {tour!r:.80}")
    if arr.size != instance.n or sorted(arr.tolist()) != list(range(instance.n)):
        raise ValueError(
            f"tour must visit each of the {instance.n} nodes exactly once, got {arr.tolist()!r:.120}"
        )
    return arr.astype(np.int64)


def _check_no_bools(name: str, seq: Any) -> None:
    """Node indices are ints: a bool (True == 1) inside ``seq`` is refused, not read as a node."""
    if isinstance(seq, np.ndarray):
        if seq.dtype == np.bool_:
            raise ValueError(f"{name} must hold int node indices, got bool entries")
        return
    if isinstance(seq, list | tuple) and any(isinstance(v, bool | np.bool_) for v in seq):
        raise ValueError(f"{name} must hold int node indices, got a bool in {list(seq)!r:.80}")


def _node_index(name: str, value: Any) -> int:
    """An int node index (numpy ints too); floats, bools and strings refused (int() would truncate)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must hold int node indices, got {type(value).__name__} {value!r}")
    return int(value)


def check_distance_matrix(dist: Any, name: str = "dist") -> np.ndarray:
    """A square float64 matrix of finite distances >= 0 (strings, complex, NaN and negatives named)."""
    try:
        dist = as_float_array(name, dist, dtype=np.float64)
    except ValueError as exc:  # NaN/inf: say what is expected too
        raise ValueError(f"{name} must have finite entries >= 0 ({exc})") from None
    if dist.ndim != 2 or dist.shape[0] != dist.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {dist.shape}")
    if (dist < 0).any():
        raise ValueError(f"{name} must have entries >= 0 (distances), got {float(dist[dist < 0].flat[0])!r}")
    return dist


def _check_lib_name(name: Any) -> str:
    """The NAME field: a str of one line, or an int written as its digits (a newline would start a new field
    of the written file; None, bytes or a list were written as their repr)."""
    if isinstance(name, bool | np.bool_) or not isinstance(name, str | int | np.integer):
        raise TypeError(f"name must be a str (or an int, written as its digits) for the file's NAME field, "
                        f"got {type(name).__name__} {name!r:.60}")
    text = str(name)
    if len(text.splitlines()) > 1 or "\n" in text or "\r" in text:  # \x0b, \u2028 break the readers' lines
        raise ValueError(f"name must be a single line (no newline or other line break), got {text!r}")
    if not text.strip():  # "NAME : " with nothing after it
        raise ValueError(f"name must not be empty or blank (the file's NAME field), got {text!r}")
    return text


def is_valid_tsp(instance: TSPInstance, tour: Any) -> bool:
    """True when ``tour`` is a permutation of ``0..n-1``."""
    _check_instance(instance, TSPInstance)
    try:
        check_tsp_tour(instance, tour)
    except (ValueError, TypeError):
        return False
    return True


def tsp_cost(instance: TSPInstance, tour: Any) -> float:
    """Length of the closed tour.

    ``instance`` is a :class:`TSPInstance` and ``tour`` a permutation of its nodes: each node once, as int
    indices (a list, tuple, range or 1-D int array or tensor; floats such as 1.0, bools and sets are refused
    by name). The return to the first node is implied: a closed tour [0, 1, 2, 0] repeats 0 and is refused.
    """
    t = check_tsp_tour(instance, tour)
    return float(instance.distances[t, np.roll(t, -1)].sum())


def route_lists(name: str, routes: Any) -> list[list[int]]:
    """``routes`` as a list of lists of int node indices: a list (or tuple) of routes, each a list, tuple or
    1-D int array. Refused by name: None, a number, a str or bytes (its characters or bytes are not routes),
    a set or dict (no order), and entries that are not ints."""
    def ordered(value: Any) -> bool:
        return isinstance(value, list | tuple | range) or (isinstance(value, np.ndarray) and value.ndim == 1)
    if not ordered(routes):
        raise TypeError(f"{name} must be a list of routes (lists of customer indices), got "
                        f"{type(routes).__name__} {_brief(routes)}")
    out = []
    for k, route in enumerate(routes):
        if not ordered(route):
            raise TypeError(f"{name}[{k}] must be a route (a list of customer indices), got "
                            f"{type(route).__name__} {_brief(route)}")
        out.append([_node_index(f"{name}[{k}]", c) for c in route])
    return out


def _ordered_route(k: int, route: Any) -> Any:
    """routes[k] as an ordered sequence of nodes: a set (or a mapping, a generator) has no visiting order and
    was priced in hash order, in silence; a 1-D int tensor or array is read as its list."""
    if hasattr(route, "tolist") and getattr(route, "ndim", None) == 1:
        return route.tolist()
    if isinstance(route, str | bytes) or not isinstance(route, Sequence):
        raise ValueError(f"routes[{k}] must be an ordered sequence of customer indices (a list, tuple or "
                         f"1-D int array: its order is the visiting order), got {type(route).__name__} "
                         f"{route!r:.60}")
    return route


def check_cvrp_routes(instance: CVRPInstance, routes: Any) -> list[list[int]]:
    """``routes`` as a list of int lists, or ValueError when it is not a feasible solution."""
    _check_instance(instance, CVRPInstance)
    try:
        out = [[_node_index("routes", c) for c in _ordered_route(k, r)] for k, r in enumerate(routes)]
    except TypeError as exc:
        raise ValueError(f"routes must be a list of lists of customer indices: {exc}") from exc
    seen: list[int] = [c for r in out for c in r]
    if any(len(r) == 0 for r in out):
        raise ValueError("routes must not contain an empty route")
    if sorted(seen) != list(range(1, instance.n_customers + 1)):
        raise ValueError(
            f"routes must visit each customer 1..{instance.n_customers} exactly once (depot 0 "
            f"implicit), got {out!r:.120}"
        )
    for k, r in enumerate(out):
        load = sum(int(d) for d in instance.demands[r])  # Python ints: an int64 sum wrapped past 2**63 - 1
        if load > instance.capacity:
            raise ValueError(f"routes[{k}] carries {load} > capacity {instance.capacity}")
    return out


def is_valid_cvrp(instance: CVRPInstance, routes: Any) -> bool:
    """True when ``routes`` is a feasible CVRP solution."""
    _check_instance(instance, CVRPInstance)
    try:
        check_cvrp_routes(instance, routes)
    except (ValueError, TypeError):
        return False
    return True


def cvrp_cost(instance: CVRPInstance, routes: Any) -> float:
    """Total length of the routes, each closed at the depot.

    ``instance`` is a :class:`CVRPInstance` and ``routes`` its customers split into routes (each customer
    once, each route within the capacity; each route an ordered sequence, a list, tuple or 1-D int array or
    tensor, in visiting order: a set has no order and is refused by name), or the depot-delimited node
    sequence a CVRP solve returns as ``Solution.x`` (``[0, c, c, 0, c, 0]``: it starts at the depot 0; read
    by :func:`routes_from_sequence`).
    """
    if _is_depot_sequence(routes):  # a solve's own x was refused ("'int' object is not iterable")
        routes = routes_from_sequence(routes)
    out = check_cvrp_routes(instance, routes)
    d = instance.distances
    return float(sum(d[0, r[0]] + d[r[-1], 0] + d[r[:-1], r[1:]].sum() for r in (np.array(x) for x in out)))


def _is_depot_sequence(value: Any) -> bool:
    """A flat sequence of ints that starts at the depot 0 (a CVRP solve's ``x``), not a list of routes."""
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple | np.ndarray):
        return False
    items = list(value)
    return bool(items) and all(isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)
                               for v in items) and items[0] == 0


def routes_from_sequence(sequence: Any) -> list[list[int]]:
    """Split a depot-delimited node sequence (``0, c, c, 0, c, 0``) into routes.

    ``sequence`` holds int node indices >= 0 (a float such as 1.5, a bool or a str is refused by name:
    ``int()`` truncated 1.5 to customer 1).

    >>> routes_from_sequence([0, 3, 1, 0, 2, 0])
    [[3, 1], [2]]
    """
    if isinstance(sequence, str | bytes) or not hasattr(sequence, "__iter__"):
        raise TypeError(f"sequence must be a sequence of int node indices, got {type(sequence).__name__}")
    values = list(sequence)
    bad = [v for v in values
           if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer) or v < 0]
    if bad:
        raise ValueError(f"sequence must hold int node indices >= 0, got {bad[0]!r}")
    values = [int(v) for v in values]
    routes, cur = [], []
    for v in values:
        if v == 0:
            if cur:
                routes.append(cur)
            cur = []
        else:
            cur.append(v)
    if cur:
        routes.append(cur)
    return routes


def sequence_from_routes(routes: Any) -> list[int]:
    """The depot-delimited sequence of ``routes``: a list of routes, each a list of customer ints >= 1 (no
    depot 0 inside a route), every customer at most once; a float, bool or str entry is refused by name,
    as :func:`routes_from_sequence` refuses it (1.5 was truncated to 1, "3" read as 3).

    >>> sequence_from_routes([[3, 1], [2]])
    [0, 3, 1, 0, 2, 0]
    """
    out = route_lists("routes", routes)
    customers = [c for r in out for c in r]
    if any(c < 1 for c in customers) or len(set(customers)) != len(customers):
        raise ValueError(f"routes must visit customers >= 1 (no depot 0 inside a route), each once, got "
                         f"{out!r:.80}")
    seq = [0]
    for r in out:
        seq.extend(r)
        seq.append(0)
    return seq


# ----------------------------------------------------------------------------- TSPLIB / CVRPLIB text


def write_tsplib(instance: TSPInstance, name: str = "instance") -> str:
    """TSPLIB text (``EUC_2D`` with float coordinates; our cost is the unrounded distance).

    ``instance`` is a :class:`TSPInstance` and ``name`` the NAME field: a non-blank one-line
    str, or an int (written as its digits).

    >>> inst = random_tsp(4, seed=0)
    >>> np.allclose(read_tsplib(write_tsplib(inst)).coords, inst.coords)
    True
    """
    _check_instance(instance, TSPInstance)
    name = _check_lib_name(name)
    lines = [
        f"NAME : {name}",
        "TYPE : TSP",
        f"DIMENSION : {instance.n}",
        "EDGE_WEIGHT_TYPE : EUC_2D",
        "NODE_COORD_SECTION",
    ]
    lines += [f"{i + 1} {x!r} {y!r}" for i, (x, y) in enumerate(instance.coords.tolist())]
    lines.append("EOF")
    return "\n".join(lines) + "\n"


def write_cvrplib(instance: CVRPInstance, name: str = "instance") -> str:
    """CVRPLIB text (depot is node 1, ``DEPOT_SECTION`` 1).

    ``instance`` is a :class:`CVRPInstance` and ``name`` the NAME field: a non-blank one-line
    str, or an int (written as its digits).

    >>> inst = random_cvrp(4, seed=0)
    >>> back = read_cvrplib(write_cvrplib(inst))
    >>> back.capacity == inst.capacity and back.demands.tolist() == inst.demands.tolist()
    True
    """
    _check_instance(instance, CVRPInstance)
    name = _check_lib_name(name)
    lines = [
        f"NAME : {name}",
        "TYPE : CVRP",
        f"DIMENSION : {instance.n_customers + 1}",
        "EDGE_WEIGHT_TYPE : EUC_2D",
        f"CAPACITY : {instance.capacity}",
        "NODE_COORD_SECTION",
    ]
    lines += [f"{i + 1} {x!r} {y!r}" for i, (x, y) in enumerate(instance.coords.tolist())]
    lines.append("DEMAND_SECTION")
    lines += [f"{i + 1} {int(d)}" for i, d in enumerate(instance.demands.tolist())]
    lines += ["DEPOT_SECTION", "1", "-1", "EOF"]
    return "\n".join(lines) + "\n"


#: the TSPLIB/CVRPLIB keywords the readers understand (the rest change the problem: a DISTANCE or VEHICLES
#: limit, an explicit weight matrix; a file using one was solved without it, or a misspelt keyword ignored)
LIB_KEYWORDS = ("NAME", "COMMENT", "TYPE", "DIMENSION", "CAPACITY", "EDGE_WEIGHT_TYPE", "NODE_COORD_TYPE",
                "DISPLAY_DATA_TYPE")
LIB_SECTIONS = ("NODE_COORD_SECTION", "DEMAND_SECTION", "DEPOT_SECTION", "DISPLAY_DATA_SECTION")


def _parse_lib(text: str) -> tuple[dict[str, str], dict[str, list[list[str]]]]:
    """The header keywords and the sections of TSPLIB/CVRPLIB ``text``; an unknown or repeated keyword or
    section is refused by name (a repeated DIMENSION or section silently replaced the first)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (the file's contents), got {type(text).__name__}")
    header: dict[str, str] = {}
    sections: dict[str, list[list[str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.upper() == "EOF":
            break
        if ":" in line:  # data rows of the sections never contain a colon
            key, _, value = line.partition(":")
            key = key.strip().upper()
            if key not in LIB_KEYWORDS:
                raise ValueError(f"text: keyword {key!r} is not one this reader understands {LIB_KEYWORDS}; "
                                 f"a file that needs it would be solved without it")
            if key in header:
                raise ValueError(f"text: keyword {key!r} is given twice")
            header[key] = value.strip()
            current = None
            continue
        if line.upper().endswith("_SECTION"):
            current = line.upper()
            if current not in LIB_SECTIONS:
                raise ValueError(f"text: {current} is not a section this reader understands {LIB_SECTIONS}")
            if current in sections:
                raise ValueError(f"text: {current} is given twice")
            sections[current] = []
            continue
        if current is None:
            raise ValueError(f"text: unexpected line outside any section: {line!r}")
        sections[current].append(line.split())
    return header, sections


def _rows_by_id(sections: dict[str, list[list[str]]], section: str, dim: int, width: int) -> list[list[str]]:
    """``section``'s rows ordered by node id; the ids must be 1..dim, each once, and every row ``width``
    fields (an id past DIMENSION, a repeated id or a third coordinate were read without a word)."""
    rows = sections.get(section)
    if rows is None:
        raise ValueError(f"text has no {section}")
    if len(rows) != dim:
        raise ValueError(f"text: {section} must have DIMENSION = {dim} rows, got {len(rows)}")
    try:
        ids = [int(r[0]) for r in rows]
    except ValueError as exc:
        raise ValueError(f"text: {section}: malformed row: {exc}") from exc
    if sorted(ids) != list(range(1, dim + 1)):
        raise ValueError(f"text: {section} must number its rows 1..{dim} (DIMENSION), each once, got ids "
                         f"{sorted(ids)[:10]}")
    bad = [r for r in rows if len(r) != width]
    if bad:
        raise ValueError(f"text: {section} rows must have {width} fields (id and {width - 1} value(s)), "
                         f"got {' '.join(bad[0])!r}")
    return sorted(rows, key=lambda r: int(r[0]))


def _coords_from(sections: dict[str, list[list[str]]], dim: int) -> np.ndarray:
    rows = _rows_by_id(sections, "NODE_COORD_SECTION", dim, 3)
    try:
        return np.array([[float(r[1]), float(r[2])] for r in rows])
    except (ValueError, IndexError) as exc:
        raise ValueError(f"text: NODE_COORD_SECTION: malformed row: {exc}") from exc


def _check_metric(header: dict[str, str]) -> None:
    """Only EUC_2D is what our instances compute; GEO, ATT, CEIL_2D or EXPLICIT files were read as
    Euclidean coordinates and solved for the wrong distances."""
    kind = header.get("EDGE_WEIGHT_TYPE", "EUC_2D").strip().upper()
    if kind != "EUC_2D":
        raise ValueError(f"text must have EDGE_WEIGHT_TYPE : EUC_2D (Euclidean distances, the only metric "
                         f"of TSPInstance/CVRPInstance), got {header.get('EDGE_WEIGHT_TYPE')!r}")


def _dimension(header: dict[str, str]) -> int:
    try:
        return int(header["DIMENSION"])
    except (KeyError, ValueError) as exc:
        raise ValueError(f"text must have an integer DIMENSION, got {header.get('DIMENSION')!r}") from exc


def read_tsplib(text: str) -> TSPInstance:
    """A :class:`TSPInstance` from TSPLIB text (``NODE_COORD_SECTION``): the keywords ``LIB_KEYWORDS`` and
    sections ``LIB_SECTIONS``, each at most once (another one, or a repeat, is refused naming ``text``)."""
    header, sections = _parse_lib(text)
    if (header.get("TYPE", "TSP").split() or [""])[0].upper() != "TSP":  # "TYPE : " met an IndexError
        raise ValueError(f"text must be TYPE : TSP, got {header.get('TYPE')!r}")
    _check_metric(header)
    coords = _coords_from(sections, _dimension(header))
    try:
        return TSPInstance(coords)
    except (ValueError, TypeError) as exc:  # named as the file's contents, the argument the caller passed
        raise type(exc)(f"text: {exc}") from exc


def _lib_number(token: str) -> int | float:
    """A CVRPLIB number: an int when the token is an integer literal (exact at any size), else a float (an
    integral float such as 5.0 is taken as the int 5)."""
    try:
        return int(token)
    except ValueError:
        value = float(token)
        return int(value) if math.isfinite(value) and value == int(value) else value


def read_cvrplib(text: str) -> CVRPInstance:
    """A :class:`CVRPInstance` from CVRPLIB text (the depot, ``DEPOT_SECTION``, moved to node 0): the
    keywords ``LIB_KEYWORDS`` and sections ``LIB_SECTIONS``, each at most once (another one, a DISTANCE or
    VEHICLES limit say, or a repeat, is refused naming ``text``)."""
    header, sections = _parse_lib(text)
    if (header.get("TYPE", "CVRP").split() or [""])[0].upper() != "CVRP":
        raise ValueError(f"text must be TYPE : CVRP, got {header.get('TYPE')!r}")
    _check_metric(header)
    dim = _dimension(header)
    coords = _coords_from(sections, dim)
    rows = _rows_by_id(sections, "DEMAND_SECTION", dim, 2)
    try:
        # integers read as ints: float() rounded a DEMAND or CAPACITY of 2**53 + 1 (and 2**63 - 1 to 2**63)
        demand_values = [_lib_number(r[1]) for r in rows]
        cap = _lib_number(header["CAPACITY"])
    except (KeyError, ValueError, IndexError) as exc:
        raise ValueError(f"text: malformed DEMAND_SECTION or CAPACITY: {exc}") from exc
    try:
        _check_int_demands(demand_values)  # by the rows' order, before the depot moves to 0
    except ValueError as exc:
        raise ValueError(f"text: {exc}") from exc
    demands = np.array([float(v) for v in demand_values])
    if not math.isfinite(cap):
        raise ValueError(f"text: CAPACITY must be a finite positive int, got {header['CAPACITY']!r}")
    depot = 0
    if sections.get("DEPOT_SECTION"):
        # one depot, then the -1 terminator (a second depot was ignored without a word)
        entries = [f for r in sections["DEPOT_SECTION"] for f in r]
        if entries and entries[-1] == "-1":
            entries = entries[:-1]
        if len(entries) != 1:
            raise ValueError(f"text: DEPOT_SECTION must name exactly one depot (then -1), got {entries}")
        try:
            depot = int(entries[0]) - 1
        except ValueError as exc:
            raise ValueError(f"text: DEPOT_SECTION: malformed depot {entries[0]!r}") from exc
    if not 0 <= depot < dim:
        raise ValueError(f"text: DEPOT_SECTION names node {depot + 1}, outside 1..{dim}")
    order = [depot] + [i for i in range(dim) if i != depot]
    try:
        return CVRPInstance(coords[order], demands[order], cap)
    except (ValueError, TypeError) as exc:  # named as the file's contents, the argument the caller passed
        raise type(exc)(f"text: {exc}") from exc
