"""Hypothesis strategies shared by several papers' claims.

Instances are built from a drawn integer seed with numpy, so that shrinking acts
on sizes and seeds (cheap) while the numerical structure (conditioning, active
set, strict complementarity) is controlled by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

__all__ = ["QPInstance", "feasible_qps", "make_qp_instance", "psd_matrices", "seeds"]

#: a seed for numpy inside a strategy
seeds = st.integers(min_value=0, max_value=2**31 - 1)


def random_psd(rng: np.random.Generator, n: int, min_eig: float = 0.0) -> np.ndarray:
    """``MᵀM / n + min_eig I`` for a standard Gaussian M (so eigenvalues are O(1))."""
    m = rng.standard_normal((n, n))
    return m.T @ m / n + min_eig * np.eye(n)


@st.composite
def psd_matrices(draw, n: int | st.SearchStrategy[int] = st.integers(1, 8), min_eig: float = 0.0):
    """Symmetric PSD matrices with smallest eigenvalue at least ``min_eig``."""
    size = draw(n) if isinstance(n, st.SearchStrategy) else n
    return random_psd(np.random.default_rng(draw(seeds)), size, min_eig)


@dataclass(frozen=True)
class QPInstance:
    """A QP ``min ½xᵀPx + qᵀx s.t. Ax = b, Gx <= h`` with a known primal-dual solution.

    ``active`` marks the inequalities active at ``x``; ``weakly_active`` marks
    those active with a zero multiplier (the degenerate case).
    """

    P: np.ndarray
    q: np.ndarray
    A: np.ndarray | None
    b: np.ndarray | None
    G: np.ndarray | None
    h: np.ndarray | None
    x: np.ndarray
    y: np.ndarray  # equality multipliers
    z: np.ndarray  # inequality multipliers (>= 0)
    active: np.ndarray
    weakly_active: np.ndarray

    @property
    def n(self) -> int:
        return self.P.shape[0]


def make_qp_instance(
    seed: int,
    n: int,
    n_eq: int,
    n_ineq: int,
    n_active: int,
    *,
    n_weak: int = 0,
    min_eig: float = 0.5,
    min_multiplier: float = 0.5,
    min_slack: float = 0.5,
) -> QPInstance:
    """Build a strictly convex QP whose solution and multipliers are known.

    ``n_active`` inequalities are active with multipliers in
    ``[min_multiplier, 2]`` (strict complementarity), ``n_weak`` more are active
    with zero multiplier (weakly active), the rest have slack in
    ``[min_slack, 2]``. Requires ``n_eq + n_active + n_weak <= n`` so the active
    constraints can be linearly independent.

    >>> inst = make_qp_instance(0, n=5, n_eq=1, n_ineq=4, n_active=2)
    >>> bool(np.allclose(inst.P @ inst.x + inst.q + inst.A.T @ inst.y + inst.G.T @ inst.z, 0))
    True
    """
    if n_eq + n_active + n_weak > n:
        raise ValueError("n_eq + n_active + n_weak must be <= n for independent active rows")
    if n_active + n_weak > n_ineq:
        raise ValueError("n_active + n_weak must be <= n_ineq")
    rng = np.random.default_rng(seed)
    P = random_psd(rng, n, min_eig)
    x = rng.standard_normal(n)
    A = rng.standard_normal((n_eq, n)) if n_eq else None
    b = A @ x if n_eq else None
    y = rng.standard_normal(n_eq)
    G = rng.standard_normal((n_ineq, n)) if n_ineq else None
    z = np.zeros(n_ineq)
    active = np.zeros(n_ineq, dtype=bool)
    weak = np.zeros(n_ineq, dtype=bool)
    order = rng.permutation(n_ineq)
    active[order[: n_active + n_weak]] = True
    weak[order[n_active: n_active + n_weak]] = True
    strict = active & ~weak
    z[strict] = rng.uniform(min_multiplier, 2.0, strict.sum())
    h = None
    if n_ineq:
        slack = np.where(active, 0.0, rng.uniform(min_slack, 2.0, n_ineq))
        h = G @ x + slack
    q = -(P @ x)
    if n_eq:
        q -= A.T @ y
    if n_ineq:
        q -= G.T @ z
    return QPInstance(P, q, A, b, G, h, x, y, z, active, weak)


@st.composite
def feasible_qps(
    draw,
    n: st.SearchStrategy[int] = st.integers(2, 8),
    *,
    with_equalities: bool = True,
    n_weak: int = 0,
) -> QPInstance:
    """Strictly convex feasible QPs with a controlled active set.

    ``n_weak = 0`` gives non-degenerate instances (strict complementarity and
    linearly independent active constraints); ``n_weak >= 1`` plants weakly
    active constraints on purpose.
    """
    size = draw(n)
    n_eq = draw(st.integers(0, max(0, size // 3))) if with_equalities else 0
    room = size - n_eq - n_weak
    n_active = draw(st.integers(0, max(0, room)))
    n_ineq = draw(st.integers(n_active + n_weak, n_active + n_weak + size))
    return make_qp_instance(draw(seeds), size, n_eq, n_ineq, n_active, n_weak=n_weak)
