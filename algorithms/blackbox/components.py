"""The component library of the modular space: small pure functions, vectorized over a population.

Populations are arrays ``X`` of shape ``(N, d)`` with values ``y`` of shape ``(N,)`` (minimized);
the box is ``lower, upper`` of shape ``(d,)``. Randomness comes from an explicit
``numpy.random.Generator``. ``groups`` (an int array of shape ``(N,)``) names each individual's
sub-population (niching); mutation partners and "best" individuals are drawn inside a group.

Initialization (``X ∈ [lower, upper]^N``): ``uniform``, ``sobol`` (scrambled), ``lhs`` (one point in
each of N strata per coordinate), ``halton`` (scrambled), ``gaussian`` (N(centre, ((u − l)/6)²), clipped).

DE mutation (Storn & Price 1997; JADE for pbest), donor ``v_i``:

* rand/1: ``x_r1 + F1 (x_r2 − x_r3)``;  rand/2: ``x_r1 + F1 (x_r2 − x_r3) + F2 (x_r4 − x_r5)``
* best/1: ``x_best + F1 (x_r1 − x_r2)``;  best/2: ``x_best + F1 (x_r1 − x_r2) + F2 (x_r3 − x_r4)``
* current-to-best/1: ``x_i + F1 (x_best − x_i) + F2 (x_r1 − x_r2)``
* current-to-rand/1: ``x_i + F1 (x_r1 − x_i) + F2 (x_r2 − x_r3)``
* rand-to-best/1: ``x_r1 + F1 (x_best − x_r2)``
* current-to-pbest/1: ``x_i + F1 (x_pbest − x_i) + F2 (x_r1 − x_r2)``, x_pbest among the top ⌈pN⌉

with ``r1, r2, ...`` distinct and different from ``i`` (inside i's group).

DE crossover: binomial ``u_ij = v_ij if (rand_ij < Cr or j = j_rand) else x_ij`` (at least one
donor gene); exponential: a cyclic run of donor genes starting at a random ``j`` whose length L
satisfies P(L >= k) = Cr^(k−1).

GA mutation: Gaussian ``v = x + σ (u − l) N(0, I)``; polynomial (Deb) with index ``η_m``.

PSO (inertia weight, Shi & Eberhart 1998): ``V ← w V + c1 r1 (P − X) + c2 r2 (g − X)``,
``|V| <= 0.2 (u − l)``, ``X ← X + V``, with ``P`` the personal bests and ``g`` the group best.

Sep-CMA-ES (Ros & Hansen 2008): CMA-ES with a diagonal covariance, learning rate of the
covariance multiplied by (d + 2)/3; see :class:`SepCMAState`.

Boundary control (out-of-box coordinates only; the identity inside the box): ``clip``,
``reflect`` (mirror at the violated bound, period 2(u − l)), ``periodic``
(``l + (x − l) mod (u − l)``), ``halving`` (midpoint between the parent and the violated bound),
``random`` (uniform resample of that coordinate).

Selection of the next parents from parents ``(X, y)`` and offspring ``(U, yu)``: ``greedy``
(pairwise, offspring kept if ``yu_i <= y_i``), ``crowding`` (each offspring against its nearest
parent), ``mu_plus_lambda`` (best N of the union), ``tournament`` (binary tournaments over the
union, the best of the union always kept).

Niching (``k`` groups): ``random``, ``ranking`` (contiguous blocks of the fitness ranking),
``distance`` (the best unassigned individual and its nearest unassigned neighbours form a group).

Population reduction: linear (L-SHADE) ``N = round(N0 + (Nmin − N0) t)`` and nonlinear
(NL-SHADE-RSP) ``N = round(N0 + (Nmin − N0) t^(1 − t))``, ``t`` the used fraction of the budget.

References
----------
H. Guo et al. DesignX. NeurIPS 2025, arXiv:2505.17866 (Appendix A, Table 3: the Modular-EC list).
R. Storn, K. Price. Differential evolution. J. Global Optim. 1997. R. Ros, N. Hansen. A simple
modification in CMA-ES achieving linear time and space complexity. PPSN 2008. R. Tanabe,
A. Fukunaga. L-SHADE. CEC 2014. J. Kennedy, R. Eberhart. Particle swarm optimization. ICNN 1995.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = initialize("lhs", 4, np.zeros(2), np.ones(2), rng)
>>> sorted(np.floor(X[:, 0] * 4).astype(int).tolist())   # one point in each stratum
[0, 1, 2, 3]
>>> boundary("clip", np.array([[1.5, 0.5]]), np.array([[0.9, 0.5]]), np.zeros(2), np.ones(2), rng)
array([[1. , 0.5]])
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy.stats import qmc

from algorithms._validation import (
    WORKING_MIN,
    _refuse_masked,
    allocates,
    as_real_array,
    check_choice,
    check_count,
    check_finite_real,
    check_positive,
    check_positive_int,
    to_float,
    user_range,
)

__all__ = [
    "BOUNDARY", "CROSSOVERS", "INITIALIZATIONS", "MUTATIONS", "NICHING", "SELECTIONS",
    "SepCMAState", "boundary", "crossover", "de_mutation", "ga_mutation", "initialize", "niche",
    "partners", "pso_update", "reduced_size", "select",
]

INITIALIZATIONS = ("uniform", "sobol", "lhs", "halton", "gaussian")
MUTATIONS = ("rand1", "rand2", "best1", "best2", "current_to_best1", "current_to_rand1",
             "rand_to_best1", "current_to_pbest1")
#: number of distinct random partners each DE mutation draws
N_PARTNERS = {"rand1": 3, "rand2": 5, "best1": 2, "best2": 4, "current_to_best1": 2,
              "current_to_rand1": 3, "rand_to_best1": 2, "current_to_pbest1": 2}
CROSSOVERS = ("binomial", "exponential")
BOUNDARY = ("clip", "reflect", "periodic", "halving", "random")
SELECTIONS = ("greedy", "crowding", "mu_plus_lambda", "tournament")
NICHING = ("random", "ranking", "distance")


def _rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _population(name: str, X, *, like: np.ndarray | None = None) -> np.ndarray:
    """``X`` as a 2-D finite float array (of the shape of ``like`` when given)."""
    X = as_real_array(name, X, check_range=user_range())
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (N, d) with N, d >= 1, got shape {X.shape}")
    # a NaN row moved through every operator into the evaluator; an inf one made inf - inf = NaN donors
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf entries (points are finite)")
    if like is not None and X.shape != like.shape:
        raise ValueError(f"{name} must have the shape of the population {like.shape}, got {X.shape}")
    return X


def _values(name: str, y, n: int) -> np.ndarray:
    y = as_real_array(name, y, check_range=user_range())
    if y.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {y.shape}")
    if np.isnan(y).any():   # +inf is the worst value (the evaluator's); NaN ranks as neither
        raise ValueError(f"{name} contains NaN entries (+inf stands for the worst value)")
    return y


def _labels(groups) -> np.ndarray:
    """``groups`` as a numpy array, its conversion's own error (a meta tensor, an object whose __array__
    raises) refused by name."""
    if hasattr(groups, "detach") and type(groups).__module__.startswith("torch"):
        if groups.device.type == "meta":
            raise ValueError("groups is on the meta device (no data); pass integer labels")
        groups = groups.detach().cpu().numpy()
    _refuse_masked("groups", groups)   # np.asarray drops the mask: masked labels were used as labels
    try:
        return np.asarray(groups)
    except Exception as exc:
        raise TypeError(f"groups must be an array of integer labels, got {type(groups).__name__} "
                        f"({type(exc).__name__}: {str(exc)[:80]})") from None


def _finite_result(result: np.ndarray, names: str) -> np.ndarray:
    """An operator's output, refused by the names of the scales that made it overflow (F1 = 1e308 gave
    donors of 1e308 and inf - inf = NaN one operator later)."""
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{names} too large: the result overflows float64 (non-finite entries)")
    return result


def _box(lower, upper, d: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The box: finite (d,) arrays with lower < upper (NaN bounds gave NaN points, swapped ones points
    outside)."""
    lower, upper = as_real_array("lower", lower), as_real_array("upper", upper)
    if lower.ndim != 1 or lower.shape != upper.shape or (d is not None and lower.shape != (d,)):
        raise ValueError(f"lower and upper must have shape ({d if d is not None else 'd'},), got "
                         f"{lower.shape} and {upper.shape}")
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)) and np.all(lower < upper)):
        raise ValueError(f"lower and upper must be finite with lower < upper, got {lower.tolist()!r:.60} and "
                         f"{upper.tolist()!r:.60}")
    return lower, upper


@allocates("n")
def initialize(method: str, n: int, lower: np.ndarray, upper: np.ndarray, rng: np.random.Generator
               ) -> np.ndarray:
    """``n`` points in the box by ``method`` (one of :data:`INITIALIZATIONS`).

    >>> import numpy as np
    >>> X = initialize("sobol", 8, -np.ones(3), np.ones(3), np.random.default_rng(1))
    >>> X.shape, bool(np.all(np.abs(X) <= 1))
    ((8, 3), True)
    """
    check_choice("method", method, INITIALIZATIONS)
    n = check_count("n", n, 1)
    rng = _rng(rng)
    lower, upper = _box(lower, upper)
    d = lower.size
    seed = int(rng.integers(2**31))
    if method == "uniform":
        U = rng.random((n, d))
    elif method == "sobol":
        m = max(0, math.ceil(math.log2(n)))
        U = qmc.Sobol(d, scramble=True, seed=seed).random_base2(m)[:n]
    elif method == "lhs":
        U = qmc.LatinHypercube(d, seed=seed).random(n)
    elif method == "halton":
        U = qmc.Halton(d, scramble=True, seed=seed).random(n)
    else:  # gaussian around the centre, sd = width/6, clipped into the box
        U = np.clip(0.5 + rng.standard_normal((n, d)) / 6.0, 0.0, 1.0)
    return lower + U * (upper - lower)


def partners(n_partners: int, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each i, ``n_partners`` distinct indices from i's group, all different from i.

    Shape ``(N, n_partners)``; ``groups`` holds N non-negative integer labels, and each group must hold
    more than ``n_partners`` members.

    >>> import numpy as np
    >>> R = partners(3, np.zeros(6, dtype=int), np.random.default_rng(0))
    >>> bool(all(len(set(r.tolist()) | {i}) == 4 for i, r in enumerate(R)))
    True
    """
    rng = _rng(rng)
    check_positive_int("n_partners", n_partners)
    groups = _labels(groups)
    if groups.ndim != 1 or not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(f"groups must be a 1-D integer array, got dtype {groups.dtype} shape {groups.shape}")
    N = groups.size
    if N and groups.min() < 0:   # negative labels were skipped: their rows kept np.empty's garbage indices
        raise ValueError(f"groups must hold non-negative labels, got {int(groups.min())}")
    if n_partners >= max(N, 1):   # before the (N, n_partners) array: 10**9 partners raised MemoryError
        raise ValueError(f"groups: a group of at most {N} members (of the population X) cannot supply "
                         f"n_partners = {n_partners} distinct partners besides each member")
    out = np.empty((N, n_partners), dtype=int)
    for members in _members(groups):
        m = members.size
        if m <= n_partners:
            raise ValueError(f"groups: a group of {m} members (of the population X) cannot supply "
                             f"n_partners = {n_partners} distinct partners besides each member")
        # random keys, self excluded by +inf: the n_partners smallest keys, in random order
        keys = rng.random((m, m))
        keys[np.arange(m), np.arange(m)] = np.inf
        picks = np.argsort(keys, axis=1)[:, :n_partners]
        out[members] = members[picks]
    return out


def _groups(groups, n: int) -> np.ndarray:
    """``groups`` as n non-negative integer labels (``None``: one group of all n)."""
    if groups is None:
        return np.zeros(n, dtype=int)
    labels = _labels(groups)
    if labels.shape != (n,) or not np.issubdtype(labels.dtype, np.integer) or (n and labels.min() < 0):
        raise ValueError(f"groups must be {n} non-negative integer labels (one per individual), got "
                         f"shape {labels.shape}, dtype {labels.dtype}")
    return labels


def _members(groups: np.ndarray) -> list[np.ndarray]:
    """The index sets of the groups (labels 0..k-1; one group when all labels are equal)."""
    if groups.size == 0 or groups.min() == groups.max():
        return [np.arange(groups.size)]
    return [m for m in (np.flatnonzero(groups == g) for g in range(int(groups.max()) + 1)) if m.size]


def _group_best(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Index of the best individual of each individual's group, shape ``(N,)``."""
    best = np.empty(y.size, dtype=int)
    for members in _members(groups):
        best[members] = members[np.argmin(y[members])]
    return best


def _group_pbest(y: np.ndarray, groups: np.ndarray, p: float, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(y.size, dtype=int)
    for members in _members(groups):
        k = max(1, math.ceil(p * members.size))
        top = members[np.argsort(y[members], kind="stable")[:k]]
        out[members] = top[rng.integers(k, size=members.size)]
    return out


def de_mutation(method: str, X: np.ndarray, y: np.ndarray, rng: np.random.Generator, *, F1: float = 0.5,
                F2: float = 0.5, p: float = 0.05, groups: np.ndarray | None = None) -> np.ndarray:
    """DE donors ``V`` (shape of ``X``) by ``method`` (one of :data:`MUTATIONS`), see the module doc.

    ``X`` (N, d) finite points, ``y`` (N,) their values (+inf the worst, never NaN); ``F1``, ``F2`` scale
    factors in [0, 2] (scipy's DE takes [0, 2) too; 0 drops the difference term; the modular space uses
    [0, 1]); ``p`` in (0, 1] the p-best fraction; ``groups`` None or N non-negative integer labels.

    >>> import numpy as np
    >>> X = np.eye(4); y = np.arange(4.0)
    >>> V = de_mutation("best1", X, y, np.random.default_rng(0), F1=0.0)
    >>> bool(np.all(V == X[0]))      # F1 = 0: every donor is the best
    True
    """
    check_choice("method", method, MUTATIONS)
    rng = _rng(rng)
    X = _population("X", X)
    y = _values("y", y, len(X))
    F1, F2, p = (check_finite_real(name, v) for name, v in (("F1", F1), ("F2", F2), ("p", p)))
    # NaN gave NaN donors, a negative F mirrored the difference vectors, F = 1e308 gave donors of 1e308
    if not (0 <= F1 <= 2 and 0 <= F2 <= 2):
        raise ValueError(f"F1 and F2 must lie in [0, 2] (DE scale factors), got F1 = {F1!r}, F2 = {F2!r}")
    if not 0.0 < p <= 1.0:   # p = 2 indexed past the group (IndexError)
        raise ValueError(f"p must lie in (0, 1] (the fraction of best members), got {p!r}")
    groups = _groups(groups, len(X))
    R = partners(N_PARTNERS[method], groups, rng)
    xr = [X[R[:, k]] for k in range(R.shape[1])]
    if method == "rand1":
        return xr[0] + F1 * (xr[1] - xr[2])
    if method == "rand2":
        return xr[0] + F1 * (xr[1] - xr[2]) + F2 * (xr[3] - xr[4])
    if method == "current_to_rand1":
        return X + F1 * (xr[0] - X) + F2 * (xr[1] - xr[2])
    if method == "current_to_pbest1":
        xp = X[_group_pbest(y, groups, p, rng)]
        return X + F1 * (xp - X) + F2 * (xr[0] - xr[1])
    xb = X[_group_best(y, groups)]
    if method == "best1":
        return xb + F1 * (xr[0] - xr[1])
    if method == "best2":
        return xb + F1 * (xr[0] - xr[1]) + F2 * (xr[2] - xr[3])
    if method == "current_to_best1":
        return X + F1 * (xb - X) + F2 * (xr[0] - xr[1])
    return xr[0] + F1 * (xb - xr[1])  # rand_to_best1


def crossover(method: str, X: np.ndarray, V: np.ndarray, Cr: float, rng: np.random.Generator) -> np.ndarray:
    """Trial vectors from parents ``X`` and donors ``V`` (``binomial`` or ``exponential``).

    >>> import numpy as np
    >>> U = crossover("binomial", np.zeros((5, 3)), np.ones((5, 3)), 0.0, np.random.default_rng(0))
    >>> U.sum(axis=1).tolist()        # Cr = 0 still takes exactly one donor gene (j_rand)
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    check_choice("method", method, CROSSOVERS)
    rng = _rng(rng)
    X = _population("X", X)
    V = _population("V", V, like=X)
    # any real number (a Fraction was refused as invalid); a bool or a str stays a ValueError (the
    # designx.input_domains claim pins it)
    if isinstance(Cr, bool | np.bool_) or not isinstance(Cr, numbers.Real) or not 0 <= to_float(Cr) <= 1:
        raise ValueError(f"Cr must be a number in [0, 1], got {Cr!r}")
    Cr = to_float(Cr)
    N, d = X.shape
    jrand = rng.integers(d, size=N)
    if method == "binomial":
        take = rng.random((N, d)) < Cr
        take[np.arange(N), jrand] = True
    else:
        # run length L = 1 + (number of consecutive successes u < Cr), so P(L >= k) = Cr^(k-1), L <= d;
        # donor genes jrand, jrand+1, ... (mod d)
        run = np.cumprod(rng.random((N, d - 1)) < Cr, axis=1)
        L = 1 + run.sum(axis=1)
        offset = (np.arange(d)[None, :] - jrand[:, None]) % d
        take = offset < L[:, None]
    return np.where(take, V, X)


def ga_mutation(method: str, X: np.ndarray, lower: np.ndarray, upper: np.ndarray, rng: np.random.Generator,
                *, sigma: float = 0.1, eta: float = 20.0) -> np.ndarray:
    """GA mutation: ``gaussian`` (scale ``sigma``·(u − l)) or ``polynomial`` (index ``eta``).

    ``sigma`` a finite float >= 0 (a fraction of the box width; 0 leaves X unchanged; the modular space
    uses [0.001, 0.5]; one that overflows the offspring is refused); ``eta`` a finite float >= 0 (the
    space uses [5, 100]; larger values mutate less). Each is used by its method only, and checked always.

    >>> import numpy as np
    >>> V = ga_mutation("gaussian", np.zeros((2, 2)), -np.ones(2), np.ones(2), np.random.default_rng(0),
    ...                 sigma=0.0)
    >>> V.tolist()
    [[0.0, 0.0], [0.0, 0.0]]
    """
    check_choice("method", method, ("gaussian", "polynomial"))
    rng = _rng(rng)
    X = _population("X", X)
    lower, upper = _box(lower, upper, X.shape[1])
    width = upper - lower
    sigma, eta = check_finite_real("sigma", sigma), check_finite_real("eta", eta)
    if sigma < 0 or eta < 0:
        raise ValueError(f"sigma and eta must be >= 0, got sigma = {sigma!r}, eta = {eta!r}")
    if method == "gaussian":
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite_result(X + sigma * width * rng.standard_normal(X.shape), "sigma is")
    u = rng.random(X.shape)
    dl = (X - lower) / width
    du = (upper - X) / width
    e = 1.0 / (eta + 1.0)
    left = (2 * u + (1 - 2 * u) * (1 - dl) ** (eta + 1)) ** e - 1
    right = 1 - (2 * (1 - u) + 2 * (u - 0.5) * (1 - du) ** (eta + 1)) ** e
    delta = np.where(u <= 0.5, left, right)
    return X + delta * width


def pso_update(X: np.ndarray, V: np.ndarray, P: np.ndarray, yP: np.ndarray, lower: np.ndarray,
               upper: np.ndarray, rng: np.random.Generator, *, w: float = 0.7, c1: float = 1.5,
               c2: float = 1.5, groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One inertia-weight PSO move: new positions and velocities (velocity clamped to 0.2·width).

    ``w``, ``c1``, ``c2`` finite floats >= 0 (0 drops the inertia, the cognitive or the social term; any
    size is valid: the clamp bounds the move; PSO's defaults are 0.7298 and 1.49618).

    >>> import numpy as np
    >>> X = np.zeros((3, 2)); P = np.zeros((3, 2))
    >>> Xn, Vn = pso_update(X, np.ones((3, 2)), P, np.zeros(3), -np.ones(2), np.ones(2),
    ...                     np.random.default_rng(0), w=0.5)
    >>> Vn.tolist()[0], Xn.tolist()[0]
    ([0.4, 0.4], [0.4, 0.4])
    """
    rng = _rng(rng)
    X = _population("X", X)
    V, P = _population("V", V, like=X), _population("P", P, like=X)
    groups = _groups(groups, len(X))
    g = P[_group_best(_values("yP", yP, len(X)), groups)]
    lower, upper = _box(lower, upper, X.shape[1])
    w, c1, c2 = (check_finite_real(name, v) for name, v in (("w", w), ("c1", c1), ("c2", c2)))
    if min(w, c1, c2) < 0:   # a negative coefficient pushed the particles away from their bests, in silence
        raise ValueError(f"w, c1 and c2 must be >= 0, got w = {w!r}, c1 = {c1!r}, c2 = {c2!r}")
    r1, r2 = rng.random(X.shape), rng.random(X.shape)
    vmax = 0.2 * (upper - lower)
    Vn = np.clip(w * V + c1 * r1 * (P - X) + c2 * r2 * (g - X), -vmax, vmax)
    return X + Vn, Vn


def boundary(method: str, U: np.ndarray, X: np.ndarray, lower: np.ndarray, upper: np.ndarray,
             rng: np.random.Generator) -> np.ndarray:
    """Repair the out-of-box coordinates of ``U`` (parents ``X`` for ``halving``); identity inside.

    >>> import numpy as np
    >>> boundary("reflect", np.array([[1.25, -0.5]]), np.zeros((1, 2)), np.zeros(2), np.ones(2),
    ...          np.random.default_rng(0)).tolist()
    [[0.75, 0.5]]
    """
    check_choice("method", method, BOUNDARY)
    rng = _rng(rng)
    U = _population("U", U)
    X = _population("X", X, like=U)
    lower, upper = _box(lower, upper, U.shape[1])
    width = upper - lower
    out = (U < lower) | (U > upper)
    if not np.any(out):
        return U.copy()
    if method == "clip":
        R = np.clip(U, lower, upper)
    elif method == "reflect":
        t = np.mod(U - lower, 2 * width)
        R = lower + np.where(t > width, 2 * width - t, t)
    elif method == "periodic":
        R = lower + np.mod(U - lower, width)
    elif method == "halving":
        Xc = np.clip(as_real_array("X", X), lower, upper)
        R = np.where(U < lower, (Xc + lower) / 2, np.where(U > upper, (Xc + upper) / 2, U))
    else:
        R = lower + rng.random(U.shape) * width
    return np.where(out, R, U)


def select(method: str, X: np.ndarray, y: np.ndarray, U: np.ndarray, yu: np.ndarray,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The next ``N`` parents from parents ``(X, y)`` and offspring ``(U, yu)``, see the module doc.

    >>> import numpy as np
    >>> X, y = np.zeros((2, 1)), np.array([1.0, 1.0])
    >>> U, yu = np.ones((2, 1)), np.array([0.5, 2.0])
    >>> select("greedy", X, y, U, yu, np.random.default_rng(0))[1].tolist()
    [0.5, 1.0]
    """
    check_choice("method", method, SELECTIONS)
    rng = _rng(rng)
    X = _population("X", X)
    U = _population("U", U, like=X)
    N = len(X)
    y, yu = _values("y", y, N), _values("yu", yu, N)
    if method == "greedy":
        keep = yu <= y
        return np.where(keep[:, None], U, X), np.where(keep, yu, y)
    if method == "crowding":
        Xn, yn = X.copy(), y.copy()
        d2 = ((U[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        nearest = np.argmin(d2, axis=1)
        for i in np.argsort(yu, kind="stable"):
            j = nearest[i]
            if yu[i] <= yn[j]:
                Xn[j], yn[j] = U[i], yu[i]
        return Xn, yn
    Z, yz = np.vstack([X, U]), np.concatenate([y, yu])
    if method == "mu_plus_lambda":
        idx = np.argsort(yz, kind="stable")[:N]
        return Z[idx], yz[idx]
    # tournament: the best of the union kept, the other N − 1 by binary tournaments
    a, b = rng.integers(len(Z), size=(2, N - 1))
    win = np.where(yz[a] <= yz[b], a, b)
    idx = np.concatenate([[int(np.argmin(yz))], win])
    return Z[idx], yz[idx]


def niche(method: str, X: np.ndarray, y: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Group labels in ``0..k-1`` of nearly equal sizes (``random``, ``ranking``, ``distance``).

    >>> import numpy as np
    >>> niche("ranking", np.zeros((6, 1)), np.arange(6.0), 3, np.random.default_rng(0)).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    check_choice("method", method, NICHING)
    rng = _rng(rng)
    k = check_positive_int("k", k)
    X = _population("X", X)
    N = len(X)
    y = _values("y", y, N)
    if k > N:
        raise ValueError(f"k must be <= the population size {N}, got {k}")
    sizes = np.full(k, N // k)
    sizes[: N % k] += 1
    labels = np.repeat(np.arange(k), sizes)
    if method == "random":
        return labels[rng.permutation(N)]
    if method == "ranking":
        out = np.empty(N, dtype=int)
        out[np.argsort(y, kind="stable")] = labels
        return out
    out = np.full(N, -1)
    free = np.ones(N, dtype=bool)
    for g in range(k):
        cand = np.flatnonzero(free)
        seed = cand[np.argmin(y[cand])]
        dist = ((X[cand] - X[seed]) ** 2).sum(1)
        take = cand[np.argsort(dist, kind="stable")[: sizes[g]]]
        out[take] = g
        free[take] = False
    return out


def reduced_size(method: str, n0: int, n_min: int, used_fraction: float) -> int:
    """Population size after reduction at budget fraction ``t`` (``linear`` or ``nonlinear``).

    ``n0`` >= ``n_min`` >= 1 ints; ``used_fraction`` a finite real, clipped to [0, 1] (a count past the
    budget gives the final size n_min, a negative one n0).

    >>> reduced_size("linear", 100, 4, 0.5), reduced_size("linear", 100, 4, 1.0)
    (52, 4)
    """
    check_choice("method", method, ("linear", "nonlinear"))
    n0, n_min = check_positive_int("n0", n0), check_positive_int("n_min", n_min)
    if n_min > n0:
        raise ValueError(f"n_min must be <= n0 = {n0}, got {n_min}")
    # NaN failed inside int(); a fraction outside [0, 1] is clipped (a run's count past its budget included)
    t = min(max(check_finite_real("used_fraction", used_fraction), 0.0), 1.0)
    frac = t if method == "linear" else t ** (1.0 - t)
    return int(max(n_min, min(n0, round(n0 + (n_min - n0) * frac))))


def _check_sigma(sigma) -> float:
    """A step size given by a user: a positive scale of the working range (1e-39 and 1e39 were kept: the
    old bounds were float64's [2.2e-308, 1e150]); a run's own (a quarter of a box of side 1e-200) is only
    finite and > 0."""
    if isinstance(sigma, bool | np.bool_) or not isinstance(sigma, numbers.Real):   # a ValueError, as before
        raise ValueError(f"sigma must be a finite number > 0, got {type(sigma).__name__} {sigma!r:.40}")
    if user_range():
        return check_positive("sigma", sigma)
    sigma = to_float(sigma)
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be finite and > 0, got {sigma!r}")
    return sigma


@dataclass
class SepCMAState:
    """Sep-CMA-ES state: mean ``m``, step size ``sigma``, diagonal covariance ``c``, paths.

    ``sample(lam, rng)`` draws λ points ``m + σ √c ⊙ z``; ``update(X, y, mu_ratio)`` moves the
    state with the μ = ⌈mu_ratio·λ⌉ best of the (repaired) points, log-weights, cumulative
    step-size adaptation and a rank-one + rank-μ diagonal covariance update whose learning
    rates are multiplied by (d + 2)/3 (Ros & Hansen 2008).

    >>> import numpy as np
    >>> s = SepCMAState.start(np.zeros(3), 0.5)
    >>> X = s.sample(8, np.random.default_rng(0))
    >>> s.update(X, (X**2).sum(1), 0.5); bool(s.sigma > 0) and s.c.shape == (3,)
    True
    """

    m: np.ndarray
    sigma: float
    c: np.ndarray
    ps: np.ndarray
    pc: np.ndarray
    t: int = 0

    def __post_init__(self) -> None:
        # built directly (a public dataclass): m = "abc", sigma = -1 or NaN, c of another length were kept
        m = as_real_array("m", self.m, check_range=user_range())
        if m.ndim != 1 or m.size == 0 or not np.all(np.isfinite(m)):
            raise ValueError(f"m must be a finite 1-D mean of d >= 1 entries, got shape {m.shape}")
        self.m = m
        self.sigma = _check_sigma(self.sigma)
        for name in ("c", "ps", "pc"):
            value = as_real_array(name, getattr(self, name), check_range=user_range())
            if value.shape != m.shape or not np.all(np.isfinite(value)):
                raise ValueError(f"{name} must be a finite array of the mean's shape {m.shape}, got shape "
                                 f"{value.shape}")
            setattr(self, name, value)
        if np.any(self.c <= 0):
            raise ValueError("c (the diagonal covariance) must be > 0 in every coordinate")
        if user_range() and np.any(self.c < WORKING_MIN):   # variances: positive scales (1e-300 was kept)
            raise ValueError(f"c (the diagonal covariance) must have entries >= {WORKING_MIN:.4g} (the "
                             f"working range for a positive scale), got min {float(self.c.min())!r}")
        if isinstance(self.t, bool | np.bool_) or not isinstance(self.t, int | np.integer) or self.t < 0:
            raise ValueError(f"t (the generation count) must be an int >= 0, got {self.t!r}")
        self.t = int(self.t)

    @classmethod
    def start(cls, m: np.ndarray, sigma: float) -> SepCMAState:
        """The initial state at mean ``m`` (a finite 1-D array of d >= 1 entries, or a number for d = 1) with
        step size ``sigma`` (a positive scale of the working range, [1.18e-38, 3.4e38]), unit covariance and
        zero paths."""
        m = _population("m", np.atleast_2d(as_real_array("m", m)))[0]
        sigma = _check_sigma(sigma)
        d = len(m)
        return cls(np.array(m, dtype=float), sigma, np.ones(d), np.zeros(d), np.zeros(d))

    @allocates("lam")
    def sample(self, lam: int, rng: np.random.Generator) -> np.ndarray:
        """λ = ``lam`` points m + σ √c ⊙ z, z standard normal (refused when they overflow float64)."""
        lam = check_count("lam", lam, 1)
        self.__post_init__()   # fields set after construction (sigma = -1, m = "x") are checked again
        z = _rng(rng).standard_normal((lam, self.m.size))
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite_result(self.m + self.sigma * np.sqrt(self.c) * z, "sigma (with c) is")

    @staticmethod
    def _path_gain(cs: float, mueff: float) -> float:
        """sqrt(c_σ(2 − c_σ)μ_eff): keeps ‖p_σ‖ on the χ_d scale under random selection."""
        return math.sqrt(cs * (2 - cs) * mueff)

    def update(self, X: np.ndarray, y: np.ndarray, mu_ratio: float = 0.5) -> None:
        self.__post_init__()   # fields set after construction (t = -1, c = NaN) are checked again
        X = _population("X", X)
        if X.shape[1] != self.m.size:
            raise ValueError(f"X must have {self.m.size} columns (the mean's dimension), got {X.shape}")
        y = _values("y", y, X.shape[0])
        mu_ratio = check_finite_real("mu_ratio", mu_ratio)
        if not 0.0 < mu_ratio <= 1.0:
            raise ValueError(f"mu_ratio must lie in (0, 1], got {mu_ratio!r}")
        lam, d = X.shape
        mu = max(1, math.ceil(mu_ratio * lam))
        w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
        w /= w.sum()
        mueff = 1.0 / np.sum(w**2)
        cs = (mueff + 2) / (d + mueff + 5)
        ds = 1 + 2 * max(0.0, math.sqrt((mueff - 1) / (d + 1)) - 1) + cs
        cc = (4 + mueff / d) / (d + 4 + 2 * mueff / d)
        c1 = 2 / ((d + 1.3) ** 2 + mueff) * (d + 2) / 3
        cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((d + 2) ** 2 + mueff) * (d + 2) / 3)
        chi = math.sqrt(d) * (1 - 1 / (4 * d) + 1 / (21 * d * d))
        idx = np.argsort(y, kind="stable")[:mu]
        Y = (X[idx] - self.m) / self.sigma
        yw = w @ Y
        self.m = self.m + self.sigma * yw
        self.t += 1
        self.ps = (1 - cs) * self.ps + self._path_gain(cs, mueff) * yw / np.sqrt(self.c)
        hs = np.linalg.norm(self.ps) / math.sqrt(1 - (1 - cs) ** (2 * self.t)) < (1.4 + 2 / (d + 1)) * chi
        self.pc = (1 - cc) * self.pc + hs * math.sqrt(cc * (2 - cc) * mueff) * yw
        self.c = ((1 - c1 - cmu) * self.c + c1 * (self.pc**2 + (1 - hs) * cc * (2 - cc) * self.c)
                  + cmu * (w @ (Y**2)))
        self.c = np.clip(self.c, 1e-20, 1e20)
        self.sigma = float(self.sigma * math.exp(min(1.0, (cs / ds) * (np.linalg.norm(self.ps) / chi - 1))))
