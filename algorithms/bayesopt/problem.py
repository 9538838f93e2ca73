"""The constrained black-box problem: minimize f(x) subject to c(x) <= 0 on a box.

References
----------
H. Wang et al. Convergence Rates of Constrained Expected Improvement, arXiv:2505.11323, problem (1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from algorithms._validation import (
    as_float_array,
    as_real_array,
    check_callable,
    check_count,
    check_positive_int,
    check_str,
    returned_scalar,
)
from algorithms.core import Problem

__all__ = ["ConstrainedBOProblem"]


@dataclass(frozen=True)
class ConstrainedBOProblem(Problem):
    """minimize ``f(x)`` subject to ``c(x) <= 0`` (every entry), x in the box ``bounds``.

    ``f(x)`` returns a float and ``c(x)`` a float or an array of m floats, for x of shape (d,).
    ``bounds`` is a (d, 2) array of [lower, upper] rows; its dtype (float32 or float64) is the
    dtype of the returned ``sol.x``. ``initial`` is an (n₀, d) array of design points inside the
    box, or an int n₀ for a Latin hypercube design drawn with the solve's ``seed``. ``f_star``
    (optional) is the constrained optimum value; when given, the solve reports the simple regret
    r_t = f⁺_t − f* (f⁺_t the best feasible value after t evaluations) and stops at r_t <= tol.
    ``n_constraints`` is m; left ``None``, it is read off one call of ``c`` at the centre of the
    box (pass it when c is expensive).

    >>> prob = ConstrainedBOProblem(f=lambda x: float(x @ x), c=lambda x: 0.5 - x[0],
    ...                             bounds=[[0.0, 1.0], [0.0, 1.0]], initial=5, f_star=0.25)
    >>> prob.dim, prob.n_constraints, prob.bounds.dtype
    (2, 1, dtype('float64'))
    """

    f: Callable[[np.ndarray], float]
    c: Callable[[np.ndarray], float | np.ndarray]
    bounds: np.ndarray
    initial: int | np.ndarray = 10
    f_star: float | None = None
    x_star: np.ndarray | None = None
    name: str = "constrained problem"
    n_constraints: int | None = None

    def __post_init__(self) -> None:
        check_str("name", self.name)
        check_callable("f", self.f)
        check_callable("c", self.c)
        bounds = as_float_array("bounds", self.bounds, ndim=2)
        if bounds.shape[1] != 2 or bounds.shape[0] == 0:
            raise ValueError(
                f"bounds must have shape (d, 2) with d >= 1 rows [lower, upper], got {bounds.shape}"
            )
        bad = np.flatnonzero(bounds[:, 0] >= bounds[:, 1])
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"bounds row {i} must have lower < upper, got lower {bounds[i, 0]} >= upper {bounds[i, 1]}"
            )
        object.__setattr__(self, "bounds", bounds)
        if isinstance(self.initial, int | np.integer) and not isinstance(self.initial, bool):
            object.__setattr__(self, "initial", check_count("initial", self.initial, 1))
        else:
            design = as_float_array("initial", self.initial, ndim=2, dtype=np.float64)
            if design.shape[1] != self.dim or design.shape[0] == 0:
                raise ValueError(
                    f"initial must be an int or an (n0, {self.dim}) array with n0 >= 1, "
                    f"got shape {design.shape}"
                )
            if np.any(design < bounds[:, 0].astype(np.float64)) or np.any(design > bounds[:, 1]):
                raise ValueError("initial points must lie inside bounds (lower <= x <= upper)")
            object.__setattr__(self, "initial", design)
        if self.f_star is not None:
            object.__setattr__(self, "f_star", float(as_float_array("f_star", self.f_star, ndim=0)))
        if self.x_star is not None:
            x_star = as_float_array("x_star", self.x_star, ndim=1, dtype=np.float64)
            if x_star.shape != (self.dim,):
                raise ValueError(f"x_star must have shape ({self.dim},), got {x_star.shape}")
            slack = 1e-9 * (bounds[:, 1] - bounds[:, 0])   # an optimizer's polish may land on a face
            if np.any(x_star < bounds[:, 0] - slack) or np.any(x_star > bounds[:, 1] + slack):
                raise ValueError(f"x_star must lie inside bounds (lower <= x <= upper), "
                                 f"got {x_star.tolist()}")
            object.__setattr__(self, "x_star", x_star)
        if self.n_constraints is None:
            object.__setattr__(self, "n_constraints", self._count_constraints())
        else:
            object.__setattr__(self, "n_constraints", check_positive_int("n_constraints", self.n_constraints))
        if self.f_star is not None and self.x_star is not None:
            self._check_optimum()

    #: how far f(x_star) may be from f_star (relative to max(1, |f_star|)) and c(x_star) above 0: an
    #: optimizer's polished minimizer, not a rounded one (the package's test problems meet 1e-9)
    OPTIMUM_RTOL = 1e-6

    def _check_optimum(self) -> None:
        """x_star must be a feasible point attaining f_star: one evaluation of f and c. A wrong pair made
        the regret negative and a run ``Success`` at its first point (f_star = 5 where f(x_star) = 0.25)."""
        fx = returned_scalar("f(x_star)", self.f(self.x_star.astype(self.bounds.dtype)))
        cx = as_real_array("c(x_star)", self.c(self.x_star.astype(self.bounds.dtype)))
        tol = self.OPTIMUM_RTOL * max(1.0, abs(self.f_star))
        if not abs(fx - self.f_star) <= tol:
            raise ValueError(f"f_star = {self.f_star!r} is not f at x_star (f(x_star) = {fx!r}): f_star "
                             f"must be the constrained optimum value and x_star its minimizer")
        if not np.all(cx <= self.OPTIMUM_RTOL):
            raise ValueError(f"x_star is infeasible (c(x_star) = {cx.tolist()!r} > 0): x_star must be the "
                             f"constrained minimizer, attaining f_star")

    @property
    def dim(self) -> int:
        return int(self.bounds.shape[0])

    def _count_constraints(self) -> int:
        centre = self.bounds.astype(np.float64).mean(axis=1)
        try:
            value = self.c(centre)
        except Exception as exc:  # the user's function failed on a point of the box
            raise ValueError(f"c(x) failed at the centre of the box: {exc}") from exc
        value = as_real_array("c(x)", value)  # complex values refused, not cut to their real part
        if value.ndim > 1 or value.size == 0:
            raise ValueError(
                f"c(x) must return a float or a 1-D array of m >= 1 values, got shape {value.shape}"
            )
        return int(value.size)

    def to_unit(self, X: np.ndarray) -> np.ndarray:
        """Box coordinates -> [0, 1]^d (where the GPs live)."""
        lo, hi = self.bounds[:, 0].astype(np.float64), self.bounds[:, 1].astype(np.float64)
        return (as_real_array("X", X) - lo) / (hi - lo)

    def from_unit(self, U: np.ndarray) -> np.ndarray:
        lo, hi = self.bounds[:, 0].astype(np.float64), self.bounds[:, 1].astype(np.float64)
        return lo + as_real_array("U", U) * (hi - lo)

    def evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """(f(x), c(x) as an (m,) array), both as float64; non-finite values are returned as they are."""
        raw = self.f(x)
        if raw is None or isinstance(raw, str | bytes):   # None would become NaN (a false Diverged)
            raise TypeError(f"f(x) must return one float, got {type(raw).__name__}")
        cons_raw = self.c(x)
        if cons_raw is None or isinstance(cons_raw, str | bytes):
            raise TypeError(f"c(x) must return a float or an array of {self.n_constraints}, "
                            f"got {type(cons_raw).__name__}")
        value = as_real_array("f(x)", raw)
        if value.size != 1:
            raise ValueError(f"f(x) must return one float, got shape {value.shape}")
        cons = np.atleast_1d(as_real_array("c(x)", cons_raw))
        if cons.shape != (self.n_constraints,):
            raise ValueError(f"c(x) must return {self.n_constraints} values, got shape {cons.shape}")
        return float(value.reshape(())), cons
