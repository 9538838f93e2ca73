"""Chance-constrained programs known through samples of the uncertainty.

The problem (eq. (1)-(2) of the paper) is

    min_x f(x)   s.t.   x ∈ X_ρ = {x : Prob_h[g(x, h) >= 0] >= 1 − ρ},   lower <= x <= upper,

with the sign convention of the paper: ``g(x, h) >= 0`` (every component, a *joint* chance
constraint) is the event that the constraint holds, and ρ ∈ (0, 1) the allowed violation
probability. The distribution of h is known only through ``h_samples`` (and, to measure
feasibility out of sample, through an optional ``h_sampler`` that draws fresh ones).

``f`` maps a torch tensor of shape (batch, n) to shape (batch,); ``g`` maps (x of shape
(batch, n), h of shape (L, d)) to shape (batch, L) or (batch, L, m). Both are torch callables so
that the guidance of GGDOpt can differentiate f (first and second order).

>>> import numpy as np, torch
>>> problem = ChanceConstrainedProblem(
...     f=lambda x: x.sum(dim=1), g=lambda x, h: h[None, :, 0] + x[:, :1] - 1.0,
...     h_samples=np.linspace(0.0, 1.0, 20)[:, None], rho=0.25, lower=[0.0, 0.0], upper=[1.0, 1.0])
>>> float(empirical_violation(problem, np.array([[0.5, 0.0]]))[0])  # h < 0.5 violates: 10 of 20
0.5
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    as_float_array,
    call_user,
    check_count,
    check_fits_memory,
    check_seed,
    check_takes,
    check_working_range,
    power_of_two_units,
    precision_rank,
    read_only,
    refuse_overrides,
    remember_validated,
    reseal_state,
    to_float,
)
from algorithms.core import Problem

__all__ = [
    "ChanceConstrainedProblem",
    "LinearStructure",
    "empirical_violation",
    "min_samples",
    "out_of_sample_feasibility",
]

#: a constraint value >= -FEAS_TOL counts as satisfied (LP/MILP answers sit on the boundary); times
#: ``g_tolerance_unit`` of the constraint values at the construction's probe points (1 unless g is tiny or
#: huge)
FEAS_TOL = 1e-7


def min_samples(rho: float) -> int:
    """The fewest samples that can resolve a violation level ``rho``: ⌈1/ρ⌉.

    ``rho`` a real in (0, 1), a positive scale of the working range (at least 1.18e-38; 1e-39 refused).

    With fewer, ⌊ρL⌋ = 0 and the empirical constraint allows no violated sample at all, so the
    requested level is not represented by the data. Computed exactly from the float ρ (an int, also past
    2**53: ρ = 1e-20 gives 100000000000000005485), except that a 1/ρ at most 1e-12 above an integer k counts
    as k (ρ = 1/3 as a float is a hair below 1/3: 3 samples, not 4).

    >>> min_samples(0.05), min_samples(0.3)
    (20, 4)
    """
    # exact: float 1/rho rounded counts past 2**53 (and lost the 1e-12 slack past 1e4)
    return math.ceil(1 / Fraction(check_rho(rho)) - Fraction(1, 10**12))


def check_rho(rho: Any) -> float:
    # any numbers.Real (a Fraction was refused as "not a real number"); never a bool
    if isinstance(rho, bool | np.bool_) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho must be a real number in (0, 1), got {type(rho).__name__}")
    if not (0.0 < to_float(rho) < 1.0):
        raise ValueError(f"rho (the allowed violation probability) must lie in (0, 1), got {rho!r:.40}")
    # a positive scale: 1e-39 was kept by min_samples/scenario_count (counts of 1e39 samples)
    return check_working_range("rho", to_float(rho))


@dataclass(frozen=True, eq=False)   # identity equality and hash (arrays inside)
class LinearStructure:
    """A linear program's data behind f and g: f(x) = costᵀx, g(x, h_ℓ) = A[ℓ] x + b[ℓ].

    ``cost`` has shape (n,), ``A`` shape (L, m, n) and ``b`` shape (L, m): one (A, b) per sample
    of ``h_samples``. The baselines (SAA as a MILP, CVaR, scenario) need it.
    """

    cost: np.ndarray
    A: np.ndarray
    b: np.ndarray

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable; a write
        into the copy then went through, against the README's rule for problems)."""
        reseal_state(self, state)

    def __post_init__(self) -> None:
        cost = as_float_array("linear.cost", self.cost, ndim=1, dtype=np.float64)
        A = as_float_array("linear.A", self.A, ndim=3, dtype=np.float64)
        b = as_float_array("linear.b", self.b, ndim=2, dtype=np.float64)
        if 0 in A.shape:   # no sample, no constraint row or no variable: nothing to build an LP from
            raise ValueError(f"linear.A must have shape (L, m, n) with L, m, n >= 1, got {A.shape}")
        if A.shape[2] != cost.shape[0] or A.shape[:2] != b.shape:
            # all three named: a short cost or b was blamed on A
            raise ValueError(f"linear: cost (n,), A (L, m, n) and b (L, m) must agree in shape, got cost "
                             f"{cost.shape}, A {A.shape} and b {b.shape}")
        cost, A, b = read_only(cost), read_only(A), read_only(b)   # immutable: no flag to set back (red18a)
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "b", b)
        remember_validated(self)   # object.__setattr__(linear, "A", ...) is refused by the next solve


@dataclass(frozen=True, eq=False)   # identity equality and hash (arrays inside)
class ChanceConstrainedProblem(Problem):
    """min f(x) s.t. Prob_h[g(x, h) >= 0] >= 1 − rho, lower <= x <= upper (see the module docstring).

    ``rho`` a real in (0, 1), the allowed violation probability (a positive scale: at least 1.18e-38,
    1e-39 refused; L >= ⌈1/rho⌉ bounds it below in practice).
    ``h_samples`` (L, d) are the samples the methods see; L must be >= ⌈1/rho⌉. Their dtype is the
    problem's (``dtype``): float32 when ``h_samples`` is float32, float64 otherwise (ints and float16
    too); ``lower`` and ``upper`` (1-D, n entries, lower < upper) are converted to it (a float64 box with
    float32 samples becomes float32), and f and g get tensors of it and must return values of it or wider
    (a float16 or bfloat16 output, or a float32 one for a float64 problem, is refused naming f or g).
    ``h_sampler(rng, k)`` draws k fresh samples (shape (k, d)) for out-of-sample feasibility;
    ``n_fresh`` is how many it draws. ``linear`` (a :class:`LinearStructure`) is the LP data
    behind f and g when they are linear (checked against f and g at construction, at three points
    of the box: they must agree to within 1e-8·(max|f| + max|g|), the LP data's largest values there,
    1e-4·(…) for float32 data: relative at every scale; LP data all 0 need f and g to be exactly 0).
    The construction probes f and g at three fixed interior points, lower + (upper − lower)·u with
    u the first 3·n draws of ``numpy.random.default_rng(0).uniform(0.1, 0.9)`` (row by row), so a
    problem is accepted or refused alike every time; f and g must be finite there (and only there).
    ``h_sampler`` is probed once, for 2 samples from ``numpy.random.default_rng(0)``. ``n_fresh`` an int
    >= 1 (refused when its fresh samples and their constraint values exceed this machine's memory).
    ``known_optimum`` (None or a real of magnitude at most 3.4e38) is the value of the true-distribution
    problem when known in closed form (with ``linear``, it must be at least f's minimum over the box
    Σᵢ min(costᵢ·lowerᵢ, costᵢ·upperᵢ), to within 1e-9 of the sum of those terms' magnitudes: relative at
    every scale of cost).
    Entries of ``h_samples``, ``lower`` and ``upper`` are reals of magnitude at most 3.4e38.

    A subclass may add methods and attributes but not override objective / constraints: the package
    evaluates this class's own, so the constructor refuses such a subclass with a TypeError naming
    the method.
    """

    f: Callable[[torch.Tensor], torch.Tensor]
    g: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    h_samples: np.ndarray
    rho: float
    lower: np.ndarray
    upper: np.ndarray
    h_sampler: Callable[[np.random.Generator, int], np.ndarray] | None = None
    n_fresh: int = 20000
    linear: LinearStructure | None = None
    known_optimum: float | None = None
    _g_unit: float = field(default=1.0, init=False, repr=False)
    #: FEAS_TOL's unit per (sample, component) of h_samples: :func:`g_tolerance_units` of g there
    _g_units: np.ndarray | None = field(default=None, init=False, repr=False)

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable; a write
        into the copy then went through, against the README's rule for problems)."""
        reseal_state(self, state)

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, ChanceConstrainedProblem, ("objective", "constraints"))
        check_takes("f", self.f, "f(x)", 1)   # a wrong arity failed at the probe with Python's message
        check_takes("g", self.g, "g(x, h)", 2)
        rho = check_rho(self.rho)
        object.__setattr__(self, "rho", rho)
        h = as_float_array("h_samples", self.h_samples)
        # a 1-D array is ambiguous (L samples of d = 1, or one sample of d = L): g would fail inside
        # torch later, so the (L, d) layout is required here, where the argument can be named
        if h.ndim != 2 or h.shape[1] == 0:   # (L, 0): no uncertainty at all, not a chance constraint
            raise ValueError(f"h_samples must be a 2-D array of shape (L, d) with d >= 1 (use h[:, None] for "
                             f"d = 1), got shape {h.shape}")
        need = min_samples(rho)
        if h.shape[0] < need:
            raise ValueError(
                f"h_samples has {h.shape[0]} samples; rho={rho:g} needs at least {need} "
                f"(⌈1/rho⌉) to resolve the violation level"
            )
        h = read_only(h)   # immutable: no flag to set back (red18a)
        object.__setattr__(self, "h_samples", h)
        lower = as_float_array("lower", self.lower, ndim=1, dtype=h.dtype)
        upper = as_float_array("upper", self.upper, ndim=1, dtype=h.dtype)
        if lower.shape != upper.shape:
            raise ValueError(f"lower and upper must have one shape, got {lower.shape} and {upper.shape}")
        if lower.size == 0:   # n = 0: f and g were probed on (3, 0) tensors, a problem with nothing to choose
            raise ValueError("lower and upper must have n >= 1 entries, got shape (0,)")
        if np.any(lower >= upper):
            raise ValueError("lower must be < upper entrywise (a box with interior)")
        with np.errstate(over="ignore"):
            wide = not np.all(np.isfinite(upper.astype(np.float64) - lower))
        if wide:   # -1e308, 1e308: the probe points were inf
            raise ValueError("lower and upper must be a box of finite width upper - lower in every "
                             "coordinate")
        lower, upper = read_only(lower), read_only(upper)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)
        if self.h_sampler is not None:
            check_takes("h_sampler", self.h_sampler, "h_sampler(rng, k)", 2)
        object.__setattr__(self, "n_fresh", check_count("n_fresh", self.n_fresh, 1))   # np.int64 as an int
        if self.linear is not None and not isinstance(self.linear, LinearStructure):
            raise TypeError(f"linear must be a LinearStructure or None, got {type(self.linear).__name__}")
        if self.known_optimum is not None:
            object.__setattr__(self, "known_optimum",
                               float(as_float_array("known_optimum", self.known_optimum, ndim=0)))
        self._check_callables()
        remember_validated(self)

    @property
    def n(self) -> int:
        return self.lower.shape[0]

    @property
    def dtype(self) -> np.dtype:
        return self.h_samples.dtype

    def _check_callables(self) -> None:
        """Probe f and g at the three documented box points: shapes, finiteness, agreement with ``linear``."""
        probe = probe_points(self)
        # the user's own call first: what f or g raise on the inputs every method passes (a float32 module
        # given float64 points: torch's "mat1 and mat2 must have the same dtype", naming neither) is named
        # the problem's dtype, as objective() and constraints() pass them; a copy of the read-only h_samples
        x, h = torch.as_tensor(probe.astype(self.dtype)), torch.as_tensor(self.h_samples.copy())
        inputs = f"x a (3, {self.n}) torch.{self.dtype} tensor"
        for name, call, given in (("f", lambda: self.f(x), inputs),
                                  ("g", lambda: self.g(x, h), inputs + ", h the (L, d) h_samples")):
            try:
                with torch.no_grad():
                    call()
            except Exception as exc:
                raise ValueError(f"{name} raised {type(exc).__name__} on the probe points of the box "
                                 f"({given}): {exc}") from exc
        values = self.objective(probe)
        if values.shape != (3,):
            raise ValueError(f"f must map a (batch, n) tensor to shape (batch,), got {values.shape}")
        single = self.objective(probe[:1])  # a second batch size: an output of a fixed shape is caught
        if single.shape != (1,):
            raise ValueError(f"f must map (batch, n) to shape (batch,), got {single.shape} for one row")
        if not np.all(np.isfinite(values)):
            raise ValueError("f returned non-finite values at points of the box")
        cons = self.constraints(probe, self.h_samples)
        # a second batch size, as for f: a g answering (L, batch) passed the shape check when L was 3
        self.constraints(probe[:1], self.h_samples)
        if not np.all(np.isfinite(cons)):
            raise ValueError("g returned non-finite values at points of the box")
        object.__setattr__(self, "_g_unit", g_tolerance_unit(cons))
        object.__setattr__(self, "_g_units", read_only(g_tolerance_units(cons)))
        # the fresh samples and g on them (one row of x): n_fresh = 10**9 raised numpy's MemoryError later
        check_fits_memory("ChanceConstrainedProblem", "n_fresh", self.n_fresh,
                          8.0 * self.n_fresh * (self.h_samples.shape[1] + 2 * cons.shape[2]))
        if self.h_sampler is not None:  # two fresh samples: shape and finiteness, before any run uses it
            try:
                drawn = self.h_sampler(np.random.default_rng(0), 2)
            except Exception as exc:
                raise ValueError(f"h_sampler raised {type(exc).__name__} when asked for 2 samples "
                                 f"(h_sampler(np.random.default_rng(0), 2)): {exc}") from exc
            fresh = as_float_array("h_sampler output", drawn)
            if fresh.shape != (2, self.h_samples.shape[1]):
                raise ValueError(f"h_sampler must return shape (k, {self.h_samples.shape[1]}) for k samples, "
                                 f"got {fresh.shape} for k = 2")
        if self.linear is not None:
            lin = self.linear
            if lin.A.shape[0] != self.h_samples.shape[0] or lin.A.shape[2] != self.n:
                raise ValueError(
                    f"linear.A must have shape (L, m, n) with L = {self.h_samples.shape[0]} (the rows of "
                    f"h_samples) and n = {self.n} (the entries of lower), got {lin.A.shape}"
                )
            f_lin = probe.astype(np.float64) @ lin.cost
            g_lin = np.einsum("lmn,bn->blm", lin.A, probe.astype(np.float64)) + lin.b[None]
            if g_lin.shape != cons.shape:
                raise ValueError(f"linear has {lin.A.shape[1]} constraint rows but g returns {cons.shape[2]}")
            # relative, no floor of 1: 1 + ... let the LP data of another problem scaled by 1e-10 through, and
            # the baselines answered Success at that problem's x (red14a); LP data all 0 need f = g = 0
            scale = np.abs(f_lin).max() + np.abs(g_lin).max()
            tol = 1e-4 * scale if self.dtype == np.float32 else 1e-8 * scale
            if np.abs(f_lin - values).max() > tol or np.abs(g_lin - cons).max() > tol:
                raise ValueError("linear (cost, A, b) does not reproduce f and g at probe points")
            if self.known_optimum is not None:
                # f = costᵀx is at least its minimum over the box: a known optimum below it is no optimum
                terms = np.minimum(lin.cost * self.lower, lin.cost * self.upper)
                floor = float(terms.sum())
                # 1e-9 of the sum's own terms, no floor of 1: a cost in units of 1e-20 took a known_optimum
                # 1e-12 below the box's minimum 0 (1e8 times f's whole range)
                if self.known_optimum < floor - 1e-9 * float(np.abs(terms).sum()):
                    raise ValueError(f"known_optimum = {self.known_optimum!r} is below the minimum of f over "
                                     f"the box ({floor!r}): no feasible point reaches it")

    def _rows(self, x: Any) -> np.ndarray:
        """``x`` as finite rows (batch, n) of the problem's dtype: a NaN x gave NaN values, a (1, 3) x for
        n = 2 reached f as it was (complex refused, not cut)."""
        raw = as_float_array("x", x, dtype=self.dtype)
        x = np.atleast_2d(raw)
        if raw.ndim == 0 or x.ndim != 2 or x.shape[1] != self.n:   # a 0-d x was made a point in silence
            raise ValueError(f"x must have shape (batch, {self.n}) (or ({self.n},) for one point), got "
                             f"{raw.shape}")
        return x

    def objective(self, x: np.ndarray) -> np.ndarray:
        """f at the rows of ``x`` (shape (batch, n)), as a float64 array of shape (batch,)."""
        rows = self._rows(x)
        with torch.no_grad():
            value = call_user("f(x)", self.f, torch.as_tensor(rows))
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"f must return a torch tensor, got {type(value).__name__}")
        if not value.is_floating_point():   # a bool/int tensor was read as numbers, a complex one cut to real
            raise TypeError(f"f must return a real floating tensor (GGDOpt differentiates it), got dtype "
                            f"{value.dtype}")
        self._check_precision("f", value)
        if tuple(value.shape) != (rows.shape[0],):   # shape (0,) mid-run met a bare IndexError
            raise ValueError(f"f must map a (batch, n) tensor to shape (batch,), got {tuple(value.shape)} "
                             f"for batch = {rows.shape[0]}")
        return value.detach().cpu().numpy().astype(np.float64)

    def _check_precision(self, name: str, value: torch.Tensor) -> None:
        """f's and g's values at least as precise as the problem's dtype: a half f of float64 data answered
        2/3 as 0.66650390625, in silence (bfloat16 met torch's "unsupported ScalarType")."""
        if precision_rank(value) < precision_rank(self.h_samples):   # the tensor is floating (checked before)
            raise TypeError(f"{name} must return values of the problem's dtype torch.{self.dtype} (that of "
                            f"h_samples) or wider, got {value.dtype}")

    def constraints(self, x: np.ndarray, h: np.ndarray) -> np.ndarray:
        """g at every (row of x, row of h), shape (batch, L, m), float64."""
        x = self._rows(x)
        h = as_float_array("h", h, dtype=self.dtype)   # finite reals (complex refused, not cut)
        if h.ndim != 2 or h.shape[1] != self.h_samples.shape[1]:
            raise ValueError(f"h must have shape (L, {self.h_samples.shape[1]}) (rows of samples like "
                             f"h_samples), got {h.shape}")
        with torch.no_grad():
            value = call_user("g(x, h)", self.g, torch.as_tensor(x), torch.as_tensor(h))
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"g must return a torch tensor, got {type(value).__name__}")
        if not value.is_floating_point():   # g >= 0 as a bool tensor read as 0/1: every sample "satisfied"
            raise TypeError(f"g must return a real floating tensor (the constraint values, >= 0 where they "
                            f"hold), got dtype {value.dtype}")
        self._check_precision("g", value)
        value = value.detach().cpu().numpy().astype(np.float64)
        if value.ndim == 2:
            value = value[:, :, None]
        # m = 0 constraint components made every sample "satisfied" (np.all over an empty axis)
        if value.ndim != 3 or value.shape[:2] != (x.shape[0], h.shape[0]) or value.shape[2] == 0:
            raise ValueError(
                f"g must map x (batch, n) and h (L, d) to shape (batch, L) or (batch, L, m) with m >= 1, "
                f"got {value.shape} for batch={x.shape[0]}, L={h.shape[0]}"
            )
        return value


def _check_points(problem: ChanceConstrainedProblem, x: Any) -> np.ndarray:
    if not isinstance(problem, ChanceConstrainedProblem):
        raise TypeError(f"problem must be a ChanceConstrainedProblem, got {type(problem).__name__}")
    raw = as_float_array("x", x, dtype=np.float64)
    x = np.atleast_2d(raw)
    if raw.ndim == 0 or x.ndim != 2 or x.shape[1] != problem.n:   # a 0-d x was made a point in silence
        raise ValueError(f"x must have shape (batch, n) with n = {problem.n}, got {raw.shape}")
    return x


def probe_points(problem: ChanceConstrainedProblem) -> np.ndarray:
    """The construction's three probe points lower + (upper − lower)·u, u from ``default_rng(0)``."""
    u = np.random.default_rng(0).uniform(0.1, 0.9, size=(3, problem.n))
    return problem.lower + (problem.upper - problem.lower) * u


def _satisfied(problem: ChanceConstrainedProblem, x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Per (row of x, row of h): every component of g(x, h) >= 0 (to FEAS_TOL in each value's own units)."""
    # FEAS_TOL in g's units: g scaled by 1e-9 had every sample "satisfied" within an absolute 1e-7; and in
    # each (sample, component)'s own units: one sample's g of 1e30 made the unit 2**74 for every value, and
    # x = 1 violating x <= 0.5 in every sample counted feasible (the three LP baselines said Success)
    units = problem._g_units if h is problem.h_samples else g_tolerance_units(
        problem.constraints(probe_points(problem), h))
    return np.all(problem.constraints(x, h) >= -FEAS_TOL * units[None], axis=2)


def violation_fraction(problem: ChanceConstrainedProblem, x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Fraction of the rows of ``h`` at which some component of g(x, h) is < 0, per row of x: the count
    over L, correctly rounded (1 − satisfied/L was an ulp above the ρ = 1/3 of one violation in 3)."""
    return (~_satisfied(problem, x, h)).mean(axis=1)


def empirical_violation(problem: ChanceConstrainedProblem, x: Any) -> np.ndarray:
    """Fraction of ``problem.h_samples`` violated at each row of ``x`` (shape (batch,)).

    ``x`` finite points of shape (batch, n) (batch 0 gives an empty result), or one point of shape (n,), taken
    as a batch of one (shape (1,)).

    A point is empirically feasible when this is <= rho (at most ⌊ρL⌋ violated samples). A sample counts
    as satisfied when every g(x, h) >= −1e-7·u (LP answers sit on the boundary), u from g's values at the
    construction's three probe points, per component of g: u = 1 for g of ordinary size (up to about 1.3e5
    in magnitude), the power of two nearest max|g| for tiny g (below 2**-10), and that over 2**17 for large g
    (a relative 7.6e-13: g and g·1e8 count the same samples satisfied at an LP answer); where a component is
    large, each sample's value has its own u by the same rule (at least 1), so one sample of 1e30 leaves the
    others' tolerance at 1e-7.
    """
    return violation_fraction(problem, _check_points(problem, x), problem.h_samples)


def out_of_sample_feasibility(
    problem: ChanceConstrainedProblem, x: Any, *, seed: int = 0, n_fresh: int | None = None
) -> np.ndarray:
    """Prob_h[g(x, h) >= 0] estimated on fresh samples from ``problem.h_sampler`` (never the
    training ones), per row of ``x`` ((batch, n), or one point (n,) as a batch of one); compare with
    1 − rho. ``seed`` an int in [0, 2**64); ``n_fresh``
    None (``problem.n_fresh``) or an int >= 1 (refused when the samples exceed this machine's memory).

    ``n_fresh`` (int >= 1, or None: ``problem.n_fresh``) is the number of fresh samples.

    >>> from algorithms.chance import linear_gaussian_problem
    >>> p = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    >>> float(out_of_sample_feasibility(p, np.zeros((1, 2)), seed=1)[0])  # x = 0: cᵀx = 0 <= d
    1.0
    """
    x = _check_points(problem, x)
    check_seed(seed)
    if problem.h_sampler is None:
        raise ValueError("problem.h_sampler is None: out-of-sample feasibility needs a sampler of fresh h")
    count = problem.n_fresh if n_fresh is None else check_count("n_fresh", n_fresh, 1)
    # + 3 rows: g at the three probe points on the fresh samples, for each value's tolerance unit
    check_fits_memory("out_of_sample_feasibility", "n_fresh", count,
                      8.0 * count * (problem.h_samples.shape[1] + 2 * (x.shape[0] + 3) + 2))
    fresh = as_float_array("h_sampler output", call_user("h_sampler(rng, k)", problem.h_sampler,
                                                         np.random.default_rng(seed), count))
    fresh = fresh[:, None] if fresh.ndim == 1 else fresh
    if fresh.shape != (count, problem.h_samples.shape[1]):
        raise ValueError(
            f"h_sampler must return shape ({count}, {problem.h_samples.shape[1]}), got {fresh.shape}"
        )
    return _satisfied(problem, x, fresh).mean(axis=1)


def require_linear(problem: ChanceConstrainedProblem, method: str) -> LinearStructure:
    """``problem.linear``, or a clear error naming the method that needs it."""
    if problem.linear is None:
        raise ValueError(
            f"{method} needs problem.linear (f and g linear in x: cost, A, b); this problem has linear=None"
        )
    return problem.linear


def g_tolerance_unit(cons: np.ndarray) -> float:
    """The unit of FEAS_TOL for g of these values: 1 for g of ordinary and large size (an absolute 1e-7: the
    claims' own-feasibility probe detects a 1e-4 offset of g ~ 5e3); :func:`unit_of` for tiny g; for g past
    about 1e5 its unit over 2**17, a relative 7.6e-13, some thousands of roundings of g's terms (with an
    absolute 1e-7, g ~ 1e30, whose rounding alone is 1e14, had an exact LP answer's active samples counted
    violated: SAA-MILP's right x reported Failure; and over 2**26, a relative 1.5e-15, g scaled by 1e8 had
    the same x as g's, an active sample off by 3.7e-14 of g's size, reported Failure: red25a)."""
    unit = unit_of(cons)
    return unit if unit < 1.0 else max(1.0, unit / _LARGE_G_SPAN)


#: g of size past this (2**17 ≈ 1.3e5) is judged relatively: FEAS_TOL over it, a relative 7.6e-13
_LARGE_G_SPAN = 2.0**17


def g_tolerance_units(cons: np.ndarray) -> np.ndarray:
    """:func:`g_tolerance_unit` per (sample, component), from g's values ``cons`` (probe, L, m) at the probe
    points: each component's unit (tiny g keeps its tiny unit), and where that is huge, the value's own
    (at least 1): a sample whose g is 1e30 no longer sets the unit of the others. A value's own tiny size
    never shrinks it (g = −1e-7 at a sample is ordinary data near its boundary, not g of tiny units)."""
    column = np.array([g_tolerance_unit(cons[..., j]) for j in range(cons.shape[-1])])
    largest = np.abs(cons).max(axis=0)
    with np.errstate(divide="ignore"):
        k = np.round(np.log2(np.where(largest > 0, largest, 1.0)))
    own = np.maximum(1.0, np.where(k > 10, np.exp2(k), 1.0) / _LARGE_G_SPAN)
    return np.minimum(column[None, :], own)


def units_of(values: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    """:func:`unit_of` along ``axis`` (kept, as size 1): each slice's own power of two."""
    return power_of_two_units(np.abs(values).max(axis=axis, keepdims=True))


def unit_of(values: np.ndarray) -> float:
    """1.0, or the power of two nearest the largest |value| when that lies outside [2**-10, 2**10]: the
    factor that brings data of extreme units (g or a cost scaled by 1e-9 or 1e9) to about 1 before an LP/MILP
    backend with absolute tolerances (HiGHS: 1e-7) sees it, and that scales the feasibility tolerance. A power
    of two scales exactly; data of ordinary size are left exactly as they are."""
    largest = float(np.max(np.abs(values))) if np.size(values) else 0.0
    if not (largest > 0 and math.isfinite(largest)):
        return 1.0
    k = round(math.log2(largest))
    return 1.0 if -10 <= k <= 10 else 2.0 ** k


def scaled_lp(problem: ChanceConstrainedProblem, linear: LinearStructure, *, per_row: bool = True
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The LP data in units an LP/MILP backend with absolute tolerances handles: ``(x_unit, A, b, cost,
    lower, upper)`` for the variable u = x / x_unit (x_unit per coordinate), each coordinate, each constraint
    row (ℓ, j) (``per_row``; else the whole of A and b, for an LP whose rows share variables in g's units, as
    CVaR's) and the cost divided by its own :func:`unit_of` (powers of two, exact; data of ordinary size
    unchanged). A box past HiGHS's infinity (|bound| >= 1e20) read as no bound at all: a box of 1e30 was
    "Unbounded", one of 1e10 failed. Per coordinate and per row: one coordinate's box of 1e30 (or one row of
    1e30) made the others' data 1e-30, inside HiGHS's tolerances, and x <= 0.5 went unenforced."""
    lower, upper = problem.lower.astype(np.float64), problem.upper.astype(np.float64)
    x_unit = units_of(np.stack([lower, upper]), axis=0)[0]
    A, cost = linear.A * x_unit, linear.cost * x_unit
    rows = np.concatenate([A, linear.b[:, :, None]], axis=2)
    g_unit = units_of(rows, axis=2)[:, :, 0] if per_row else unit_of(rows)
    f_unit = unit_of(cost)
    b = linear.b / g_unit
    A = A / np.broadcast_to(g_unit, b.shape)[:, :, None]
    return x_unit, A, b, cost / f_unit, lower / x_unit, upper / x_unit


def box_minimum(A: np.ndarray, b: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """min over the box of A[ℓ, j] x + b[ℓ, j], entrywise (shape (L, m)): the big-M of the SAA MILP."""
    return b + np.minimum(A * lower, A * upper).sum(axis=2)
