"""The iteration loop every method of the family shares: oracle checks, trace, retcodes.

Each method supplies ``step(t, x, y, rng) -> (x, y, record)`` for iteration t = 1, 2, ...;
the loop records ‖∇Φ(x_t)‖ before each step, stops with ``Success`` when it is <= tol (the
stationarity test of Theorems 4.1 and 4.2, measured with the problem's exact ∇Φ; without ``tol`` the
default is 1e-2·min(1, ‖∇Φ(x_1)‖), relative to the start's gradient when that is below 1, so a small unit
of f cannot pass the start: an absolute default stopped every method at x0 on f ×1e-7), with
``Diverged`` when an oracle returns a non-finite value, an iterate leaves the ball of radius
:data:`DIVERGENCE_RADIUS` · max(1, ‖x0‖, ‖y0‖) (the start's unit: x0 ~ 1e13 was Diverged before a step) or
Φ at the last iterate is not finite or past 3.4e38 in magnitude (the working range: a Φ of 1e39, even at a
stationary point, is reported Diverged; give Φ without such an offset), and with ``MaxIters`` otherwise. An
oracle that returns the wrong shape or a non-real array (complex, str, bool) raises, naming it.

``Solution.original`` holds ``{"y": the last lower-level iterate, "grad_phi_norm": the array
of ‖∇Φ(x_t)‖ for every iteration run}``, kept in every solve (store_trace or not).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from algorithms._validation import WORKING_MAX, returned_scalar, stable_norm
from algorithms.core import IterationMonitor, RetCode, Solution, SolveOptions, Stats
from algorithms.hierarchical.problems import NonFinitePoint, call_oracle, check_precision

#: an iterate with a norm past this counts as diverged
DIVERGENCE_RADIUS = 1e12
#: default stopping tolerance on ‖∇Φ(x_t)‖ (times min(1, ‖∇Φ(x_1)‖)) and default iteration cap
DEFAULT_TOL = 1e-2
DEFAULT_MAXITERS = 10_000


class OracleFailure(ValueError):
    """An oracle returned a non-finite value (the run diverged): a ``ValueError`` (a solver turns it into
    ``Diverged``; a public helper such as ``neumann_hypergradient`` raises it, naming the oracle)."""


#: the most oracle calls one solve may make (each a call of the user's Python oracles, ~50 µs): inner_steps or
#: neumann_terms of 10**6 at the default 10**4 iterations ran for hours
MAX_ORACLE_CALLS = 10**7


def check_oracle_budget(options_maxiters: int, per_iteration: int, names: str) -> None:
    """Refuse a solve whose iterations × oracle calls per iteration pass :data:`MAX_ORACLE_CALLS`, naming the
    arguments that set them."""
    total = options_maxiters * per_iteration
    if total > MAX_ORACLE_CALLS:
        raise ValueError(f"{names} make {per_iteration} oracle calls per iteration, {total:.3g} over "
                         f"maxiters = {options_maxiters}: past the {MAX_ORACLE_CALLS:.0e} calls a solve "
                         f"takes (a run of hours); pass a smaller maxiters or fewer inner steps or terms")


def finite_sums(**sums: float) -> None:
    """The running sums of squared gradient norms an adaptive step keeps (AdaGrad-Norm's, the noise
    estimate S_t): one past float's range (gradients of norm ~1e154 and more, from a start such as
    x0 = 1e200 or a noise level sigma = 1e308) is a blow-up, ``OracleFailure`` (``Diverged``), not the
    ValueError ``ada_parameters`` raises for an infinite sum it is given."""
    for name, value in sums.items():
        if not math.isfinite(value):
            raise OracleFailure(f"the running sum {name} of squared gradient norms overflowed to {value!r}")


def checked(name: str, value: Any, like: np.ndarray) -> np.ndarray:
    """``value`` as an array of the shape and dtype of ``like``.

    A user oracle that returns the wrong type (``None``, a string) or shape is a programming error:
    TypeError/ValueError naming it. Non-finite entries are a blow-up: OracleFailure (``Diverged``).
    """
    if value is None:
        raise TypeError(f"{name} must return an array of shape {like.shape}, got None")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged
        raise TypeError(f"{name} must return a numeric array of shape {like.shape}, got "
                        f"{type(value).__name__}") from exc
    if raw.dtype.kind not in "fiu":  # complex (its imaginary part would be dropped), str, bool, object
        raise TypeError(f"{name} must return a real array of shape {like.shape}, got dtype {raw.dtype}")
    # a float32 grad_phi beside float64 iterates, upcast in silence; a list of np.float32 scalars too (its
    # own dtype reads None: Python floats are float64, np.float32 entries are not)
    listed = isinstance(value, list | tuple) and raw.dtype.kind == "f"
    check_precision(name, raw if listed else value, like)
    try:
        array = raw.astype(like.dtype, copy=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must return a numeric array of shape {like.shape}, got "
                        f"{type(value).__name__}") from exc
    if array.shape != like.shape:
        raise ValueError(f"{name} must return an array of shape {like.shape}, got shape {array.shape}")
    if not np.isfinite(array).all():
        raise OracleFailure(f"{name} has non-finite entries")
    return array


#: a user callable's ValueError/TypeError passes as it is; any other exception it raises is named
_PASS = (ValueError, TypeError)


def _grad_phi(problem: Any, x: np.ndarray) -> Any:
    """The user's ``grad_phi(x)``: its own KeyError or ZeroDivisionError is named (it reached the caller
    bare); a ValueError/TypeError passes (the start's length check reads it)."""
    return call_oracle("grad_phi(x)", problem.grad_phi, x)


def _raised_in_library(exc: BaseException) -> bool:
    """True when ``exc`` was raised inside numpy, scipy or torch (a shape mismatch in the user's formula),
    False when the user's code raised it itself."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = tb.tb_frame.f_code.co_filename if tb is not None else ""
    return any(f"{os.sep}{lib}{os.sep}" in where for lib in ("numpy", "scipy", "torch"))


def _first_step(step: Callable[..., Any], x: np.ndarray, y: np.ndarray, *args: Any) -> Any:
    """The first call of ``step`` (a step, or ``grad_phi``), where the oracles first see (x0, y0): a plain
    ValueError/TypeError raised there (numpy's "matmul: ... mismatch" for an x0 or y0 of the wrong length)
    is re-raised naming x0 and y0."""
    try:
        return step(*args)
    except (ValueError, TypeError) as exc:
        if type(exc) is ValueError and "must return an array of shape" in str(exc):
            # an oracle answering for another length at the start: y0 (or x0) is the likely culprit
            raise ValueError(f"{exc} at the starting point (x0 of shape {x.shape}, y0 of shape {y.shape}; "
                             f"check their lengths)") from exc
        if type(exc) not in (ValueError, TypeError) or "must" in str(exc) or not _raised_in_library(exc):
            raise  # ours, the user's own class, or the user's own ValueError("...") (not a length problem)
        raise type(exc)(f"the oracles failed at the starting point (x0 of shape {x.shape}, y0 of shape "
                        f"{y.shape}; check their lengths): {exc}") from exc


def _check_oracles(problem: Any, x: np.ndarray, y: np.ndarray) -> None:
    """A run that stops at its start never called the oracles: check their shapes once (a throwaway
    generator, so no draw of the run's own is used), so a ``grad`` returning (g_y, g_x) swapped is refused
    there too, not accepted with a Success."""
    rng = np.random.default_rng(0)
    if hasattr(problem, "oracle"):
        gx, gy = problem.oracle(x, y, rng)
        checked("grad(x, y, rng)[0]", gx, x), checked("grad(x, y, rng)[1]", gy, y)
    else:
        fx, fy = problem.upper_oracle(x, y, rng)
        checked("upper_grad x-part", fx, x), checked("upper_grad y-part", fy, y)
        checked("lower_grad", problem.lower_oracle(x, y, rng), y)
        cross, hess = problem.hvp_oracle(x, y, y, rng)
        checked("lower_hvp xy-part", cross, x), checked("lower_hvp yy-part", hess, y)


def run(problem: Any, options: SolveOptions, step: Callable[..., tuple[np.ndarray, np.ndarray, dict]],
        stats: Stats, desc: str, *, budget_checked: bool = False) -> Solution:
    x, y = problem.x0.copy(), problem.y0.copy()
    rng = np.random.default_rng(options.seed)
    maxiters = options.iterations(DEFAULT_MAXITERS)
    # the oracle, ∇Φ and Φ at every iteration: maxiters = 10**9 with a tol never met ran for hours (SGDA)
    if not budget_checked:  # the bilevel methods check their own count (inner steps and Neumann terms)
        check_oracle_budget(maxiters, 3, f"{desc}'s oracle, grad_phi and phi calls")
    tol = options.tol  # None: the default, fixed from the first gradient below
    monitor = IterationMonitor(options, maxiters, desc)
    norms: list[float] = []
    radius = DIVERGENCE_RADIUS * max(1.0, stable_norm(x), stable_norm(y))
    retcode = RetCode.MaxIters
    reason = ""
    try:
        for t in range(1, maxiters + 1):
            # a copy: a user's grad_phi writing into its argument (x[:] = 0) moved the iterate (Success at 0)
            gphi = _first_step(_grad_phi, x, y, problem, x.copy()) if t == 1 else _grad_phi(problem, x.copy())
            grad_norm = stable_norm(checked("grad_phi(x)", gphi, x))
            norms.append(grad_norm)
            if tol is None:
                tol = DEFAULT_TOL * min(1.0, grad_norm)
            if grad_norm <= tol:
                if t == 1:
                    _check_oracles(problem, x, y)
                # a True for this record stops the run too (core's rule): it ended Success in silence
                stopped = monitor.record(iteration=t, grad_phi_norm=grad_norm)
                retcode = RetCode.Terminated if stopped else RetCode.Success
                break
            if t == 1:
                x, y, record = _first_step(step, x, y, 1, x, y, rng)
            else:
                x, y, record = step(t, x, y, rng)
            stats.iterations = t
            if monitor.record(iteration=t, grad_phi_norm=grad_norm, **record):
                retcode = RetCode.Terminated
                break
            size = max(stable_norm(x), stable_norm(y))
            if not size <= radius:  # also catches NaN
                retcode, reason = RetCode.Diverged, f"iterate left the ball of radius {radius:g}"
                break
    except (OracleFailure, NonFinitePoint) as exc:  # a NaN/inf iterate reached an oracle
        retcode, reason = RetCode.Diverged, str(exc)
    finally:
        monitor.close()
    try:
        phi = call_oracle("phi(x)", problem.phi, x.copy()) if np.all(np.isfinite(x)) else math.nan
        # an np.float16 / np.float32 Φ beside float64 iterates; a 0-d array or tensor of them too
        check_precision("phi(x)", phi, x)
        value = returned_scalar("phi(x)", phi)
    except NonFinitePoint:  # a built-in phi overflowing at the last iterate: reported below as Diverged
        value = float("inf")
    # non-finite, or past the working range (phi = 1e308 was a Success), means Diverged
    if not abs(value) <= WORKING_MAX and retcode is not RetCode.Diverged:
        retcode, reason = RetCode.Diverged, f"phi(x) = {value!r} at the last iterate"
    original = {"y": y, "grad_phi_norm": np.asarray(norms), "reason": reason}
    return Solution(x=x, value=value, retcode=retcode, stats=stats, trace=monitor.trace, original=original)
