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
    UserCallableError,
    as_float_array,
    as_real_array,
    call_user,
    check_count,
    check_finite_real,
    check_fits_memory,
    check_nonnegative,
    check_str,
    check_takes,
    read_only,
    refuse_overrides,
    remember_validated,
    reseal_state,
    returned_scalar,
    revalidate_if_reassigned,
)
from algorithms.core import Problem

__all__ = ["ConstrainedBOProblem"]


@dataclass(frozen=True, eq=False)   # identity equality and hash: arrays inside cannot be hashed or compared
class ConstrainedBOProblem(Problem):
    """minimize ``f(x)`` subject to ``c(x) <= 0`` (every entry), x in the box ``bounds``.

    ``f(x)`` returns a float and ``c(x)`` a float or an array of m floats, for x of shape (d,); a finite
    value must have magnitude at most 3.4e38 (the working range: a GP surrogate cannot model f = 1e39, and a
    solve refuses it with a ``ValueError`` naming f(x) or c(x); rescale f or c), NaN or inf ends a solve
    ``Diverged``. ``problem.f`` and ``problem.c`` are your callables stored as given (calling them directly
    runs your code unchecked); their answers are checked where the package calls them (:meth:`evaluate`,
    a solve, the construction's probes). ``bounds``
    is a (d, 2) array of [lower, upper] rows, lower < upper, entries reals of magnitude at most 3.4e38
    (the working range); its dtype (float32 or float64) is the dtype of the returned ``sol.x`` and the
    precision of every point a solve evaluates (f and c get float64 arrays holding values of that dtype; a
    float64 ``initial`` design is rounded to it), so ``sol.value`` is f at ``sol.x`` exactly.
    ``initial`` is an (n₀, d) array of design points inside the box (a repeated row is evaluated again;
    under CEI's noise = 0 another value there is refused, naming f or c), or an int n₀ >= 1 for a Latin
    hypercube design drawn with the solve's ``seed`` (refused when the GPs' n₀×n₀ Cholesky factor, 16·n₀²
    bytes, exceeds this machine's memory: 10**9 hung). ``f_star`` (optional, a real of magnitude at most
    3.4e38) is the constrained optimum value; when given, the solve reports the simple regret r_t = f⁺_t −
    f* (f⁺_t the best feasible value after t evaluations) and stops at r_t <= tol. ``x_star`` (optional)
    is a minimizer. Both given: f(x_star) must equal f_star and c(x_star) <= 0 (one evaluation of f and c
    at construction), to within an optimizer's polish: |f(x_star) − f_star| <= 1e-6·max(1, |f_star|) and
    c(x_star) <= 1e-6 (absolute below |f_star| = 1, as f's scale is not known yet); a solve checks the pair
    again, unit-free, once the initial design is evaluated: |f(x_star) − f_star| <= 1e-6·max(|f_star|, S),
    S the robust spread of the observed f values (``CEI``'s: their standard deviation, capped at 1000 times
    1.4826 median absolute deviations of the initial design's values; f in units of 1e-10 with
    f_star = 5e-10 beside f(x_star) = 1e-10 passes construction, and the solve raises ``ValueError`` naming
    ``f_star``).
    ``x_star`` alone: it must be feasible (one evaluation of c). ``f_star`` alone cannot be checked up
    front; a solve raises ``ValueError`` naming ``f_star`` as soon as a feasible evaluation lies below it
    by more than 1e-6·max(|f_star|, S) (f_star is then not the minimum, and its regret would be negative: a
    false ``Success``).
    An f_star below the true optimum cannot be told from the evaluations: the regret then never reaches
    ``tol`` and a solve ends ``MaxIters`` (never ``Success``). ``n_constraints`` is m, an int >= 1; left
    ``None``, it is read off one call of ``c`` at the centre of the box (pass it when c is expensive).
    ``name`` (a str) labels the problem in reports.


    A subclass may add methods and attributes but not override evaluate: the package evaluates this
    class's own, so the constructor refuses such a subclass with a TypeError naming the method.

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

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable; a write
        into the copy then went through, against the README's rule for problems)."""
        reseal_state(self, state)

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, ConstrainedBOProblem, ("evaluate",))
        check_str("name", self.name)
        check_takes("f", self.f, "f(x)", 1)   # "<lambda>() takes 0 positional arguments" named neither
        check_takes("c", self.c, "c(x)", 1)
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
        with np.errstate(over="ignore"):
            wide = np.flatnonzero(~np.isfinite(bounds[:, 1].astype(np.float64) - bounds[:, 0]))
        if wide.size:   # upper - lower overflowed (-1e308, 1e308): the unit map gave NaN coordinates
            i = int(wide[0])
            raise ValueError(f"bounds row {i} must have a finite width upper - lower, got lower "
                             f"{bounds[i, 0]} and upper {bounds[i, 1]}")
        bounds = read_only(bounds)   # immutable: no flag to set back (red18a)
        object.__setattr__(self, "bounds", bounds)
        if isinstance(self.initial, int | np.integer) and not isinstance(self.initial, bool):
            initial = check_count("initial", self.initial, 1)
            # a design of 10**9 points was accepted, and its Latin hypercube hung a solve or ask_tell
            check_fits_memory("ConstrainedBOProblem", "initial", initial, 16.0 * initial * initial)
            object.__setattr__(self, "initial", initial)
        else:
            design = as_float_array("initial", self.initial, ndim=2, dtype=np.float64)
            if design.shape[1] != self.dim or design.shape[0] == 0:
                raise ValueError(
                    f"initial must be an int or an (n0, {self.dim}) array with n0 >= 1, "
                    f"got shape {design.shape}"
                )
            if np.any(design < bounds[:, 0].astype(np.float64)) or np.any(design > bounds[:, 1]):
                raise ValueError("initial points must lie inside bounds (lower <= x <= upper)")
            design = read_only(design)
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
            x_star = read_only(x_star)
            object.__setattr__(self, "x_star", x_star)
        if self.n_constraints is None:
            object.__setattr__(self, "n_constraints", self._count_constraints())
        else:
            object.__setattr__(self, "n_constraints", check_count("n_constraints", self.n_constraints, 1))
        if self.f_star is not None and self.x_star is not None:
            self._check_optimum()
        elif self.x_star is not None:
            self._check_x_star_feasible()
        remember_validated(self)

    def _check_unchanged(self) -> None:
        """Before each solve (and each ask/tell step): no field was replaced after construction with
        ``object.__setattr__`` (an initial design of -3 met numpy's "negative dimensions", f_star = NaN ran
        on unchecked)."""
        revalidate_if_reassigned(self)

    #: how far f(x_star) may be from f_star (relative to max(1, |f_star|)) and c(x_star) above 0: an
    #: optimizer's polished minimizer, not a rounded one (the package's test problems meet 1e-9)
    OPTIMUM_RTOL = 1e-6

    def _check_optimum(self) -> None:
        """x_star must be a feasible point attaining f_star: one evaluation of f and c. A wrong pair made
        the regret negative and a run ``Success`` at its first point (f_star = 5 where f(x_star) = 0.25)."""
        x_star = self.x_star.astype(self.bounds.dtype)
        fx = returned_scalar("f(x_star)", call_user("f(x_star)", self.f, x_star))
        cx = self._constraint_count_at_x_star()
        tol = self.OPTIMUM_RTOL * max(1.0, abs(self.f_star))
        # kept for the solve, which checks the pair again relative to f's observed spread (the floor of 1 here
        # let f in tiny units pass: f_star = 5e-10 beside f(x_star) = 1e-10)
        object.__setattr__(self, "_f_at_x_star", fx)
        if not abs(fx - self.f_star) <= tol:
            raise ValueError(f"f_star = {self.f_star!r} is not f at x_star (f(x_star) = {fx!r}): f_star "
                             f"must be the constrained optimum value and x_star its minimizer")
        if not np.all(cx <= self.OPTIMUM_RTOL):
            raise ValueError(f"x_star is infeasible (c(x_star) = {cx.tolist()!r} > 0): x_star must be the "
                             f"constrained minimizer, attaining f_star")

    def _check_x_star_feasible(self) -> None:
        """x_star alone: a minimizer of the constrained problem is feasible (one evaluation of c)."""
        cx = self._constraint_count_at_x_star()
        if not np.all(cx <= self.OPTIMUM_RTOL):
            raise ValueError(f"x_star is infeasible (c(x_star) = {cx.tolist()!r} > 0): x_star must be the "
                             f"constrained minimizer")

    def _constraint_count_at_x_star(self) -> np.ndarray:
        """c(x_star), its length checked against ``n_constraints`` (10**9 with a c of one value
        was accepted, and failed only at the first evaluation of a solve)."""
        cx = as_real_array("c(x_star)", call_user("c(x_star)", self.c, self.x_star.astype(self.bounds.dtype)),
                           check_range=False)
        if cx.ndim > 1 or cx.size != self.n_constraints:
            raise ValueError(f"n_constraints = {self.n_constraints} does not match c: c(x_star) returned "
                             f"{cx.size} value(s) of shape {cx.shape}")
        return cx

    def check_below_f_star(self, value: float, x: np.ndarray, scale: float | None = None) -> None:
        """Refuse ``f_star`` once a feasible evaluation ``value`` (any real, f at ``x``) lies below it:
        f_star is then not the constrained minimum, and a regret against it would end a run in a false
        ``Success``. ``scale`` (None, or a real >= 0: f's scale, a solve passes the robust spread of
        its observed f values) sets the slack 1e-6·max(|f_star|, scale); None: 1e-6·max(1, |f_star|). With a
        ``scale`` and an ``x_star`` given at construction, f(x_star) must also lie within that slack of
        f_star (the construction's check, absolute below |f_star| = 1, made unit-free)."""
        value = check_finite_real("value", value)   # "a" raised a bare '<' TypeError and NaN passed
        self._points("x", x)
        if scale is not None:
            scale = check_nonnegative("scale", scale)
        if self.f_star is None:
            return
        # f_star from a polished minimizer: 1e-6 relative to f's scale (f in units of 1e-10 with a wrong
        # f_star 4e-10 above its minimum ended Success at a point 40 % of f's spread above it)
        unit = max(abs(self.f_star), scale) if scale is not None else max(1.0, abs(self.f_star))
        slack = self.OPTIMUM_RTOL * unit
        fx = self.__dict__.get("_f_at_x_star")
        if scale is not None and fx is not None and not abs(fx - self.f_star) <= slack:
            raise ValueError(f"f_star = {self.f_star!r} is not f at x_star (f(x_star) = {fx!r}, beyond 1e-6 "
                             f"of f's scale {unit!r}): f_star must be the constrained optimum value and "
                             f"x_star its minimizer")
        if value < self.f_star - slack:
            raise ValueError(f"f_star = {self.f_star!r} is above a feasible evaluated value f(x) = {value!r} "
                             f"at x = {np.asarray(x).tolist()!r:.80}: f_star must be the constrained "
                             f"minimum value (no feasible x has a lower f)")

    @property
    def dim(self) -> int:
        return int(self.bounds.shape[0])

    def _count_constraints(self) -> int:
        centre = self.bounds.astype(np.float64).mean(axis=1)
        try:
            value = self.c(centre)
        except Exception as exc:  # the user's function failed on a point of the box
            # a UserCallableError (a ValueError) as c's failures during a run are
            raise UserCallableError(f"c(x) failed at the centre of the box: {type(exc).__name__}: "
                                    f"{exc}") from exc
        # complex values refused, not cut to their real part
        value = as_real_array("c(x)", value, check_range=False)
        if value.ndim > 1 or value.size == 0:
            raise ValueError(
                f"c(x) must return a float or a 1-D array of m >= 1 values, got shape {value.shape}"
            )
        return int(value.size)

    def _points(self, name: str, X, *, unit: bool = False) -> np.ndarray:
        """Rows of ``X`` ((d,) or (n, d)), finite and inside the box (the unit box with ``unit``)."""
        X = as_real_array(name, X)
        rows = np.atleast_2d(X)
        if X.ndim == 0 or rows.ndim != 2 or rows.shape[1] != self.dim:   # a 0-d X was made a point in silence
            raise ValueError(f"{name} must have shape ({self.dim},) or (n, {self.dim}), got {X.shape}")
        lo, hi = ((np.zeros(self.dim), np.ones(self.dim)) if unit else
                  (self.bounds[:, 0].astype(np.float64), self.bounds[:, 1].astype(np.float64)))
        slack = 1e-9 * (hi - lo)   # a polished point may land on a face up to rounding
        inside = np.all(np.isfinite(rows) & (rows >= lo - slack) & (rows <= hi + slack), axis=1)
        if not inside.all():
            row = rows[int(np.flatnonzero(~inside)[0])]
            box = "[0, 1]^d" if unit else "bounds"
            raise ValueError(f"{name} must hold finite points inside {box}, got {row.tolist()!r:.80}")
        return X

    def to_unit(self, X: np.ndarray) -> np.ndarray:
        """Box coordinates -> [0, 1]^d (where the GPs live); ``X`` of shape (d,) or (n, d), inside the box."""
        X = self._points("X", X)
        lo, hi = self.bounds[:, 0].astype(np.float64), self.bounds[:, 1].astype(np.float64)
        return (X - lo) / (hi - lo)

    def from_unit(self, U: np.ndarray) -> np.ndarray:
        """[0, 1]^d -> box coordinates; ``U`` of shape (d,) or (n, d), inside the unit box."""
        U = self._points("U", U, unit=True)
        lo, hi = self.bounds[:, 0].astype(np.float64), self.bounds[:, 1].astype(np.float64)
        return lo + U * (hi - lo)

    def evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """(f(x), c(x) as an (m,) array), both as float64, for one point ``x`` (d,) of the box; non-finite
        values of f and c are returned as they are (a solve ends ``Diverged``)."""
        x = self._points("x", x)
        if x.shape != (self.dim,):
            raise ValueError(f"x must be one point of shape ({self.dim},), got {x.shape}")
        # one real number: a str, a list [1.0], a (1, 1) array or a bool is refused by name (np.asarray
        # parsed/reshaped them), None too (it would become NaN, a false Diverged)
        # f and c get copies: one that wrote into x (x[0] = 0) changed the point recorded for the evaluation
        # the user's exceptions (a KeyError) named by the call, chained: they reached the caller bare
        value = returned_scalar("f(x)", call_user("f(x)", self.f, x.copy()))
        cons_raw = call_user("c(x)", self.c, x.copy())
        if cons_raw is None or isinstance(cons_raw, str | bytes):
            raise TypeError(f"c(x) must return a float or an array of {self.n_constraints}, "
                            f"got {type(cons_raw).__name__}")
        cons = np.atleast_1d(as_real_array("c(x)", cons_raw, check_range=False))
        if cons.shape != (self.n_constraints,):
            raise ValueError(f"c(x) must return n_constraints = {self.n_constraints} values, got shape "
                             f"{cons.shape}")
        return value, cons
