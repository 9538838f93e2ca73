"""Stochastic minimax and bilevel problems whose gradient-noise level is a parameter.

A :class:`MinimaxProblem` is ``min_x max_y f(x, y)`` with f nonconvex in x and strongly
concave in y, seen through a stochastic gradient oracle; a :class:`BilevelProblem` is
``min_x f(x, y*(x))`` with ``y*(x) = argmin_y g(x, y)``, g strongly convex in y, seen through
stochastic oracles of ∇f, ∇_y g and the second-derivative products ∇²_xy g·v, ∇²_yy g·v.
Both carry the objective Φ(x) = f(x, y*(x)) and its exact gradient ∇Φ, which the solvers
record at every iterate (the stationarity measure of Theorems 4.1 and 4.2 of the paper).

Noise is additive, on every oracle output, of level ``sigma``; ``noise`` picks its law:

``"sphere"``  uniform on the sphere of radius σ: ‖noise‖ = σ exactly, so the two-sided bound
              of Assumption 3.2(ii) / 3.4 holds with σ̲ = σ̄ = σ (the setting of the theorems);
``"gaussian"`` N(0, σ²) per coordinate (the paper's synthetic experiment, Section 6.1);
              unbounded, so outside Assumption 3.2(ii);
``"student"``  Student-t with 3 degrees of freedom per coordinate scaled to variance σ²:
              heavy-tailed, outside the assumptions (for stress tests).

Ready-made instances: :func:`synthetic_minimax` (the paper's f = cos x + xy − y²/2 and a
coupling knob), :func:`quadratic_bilevel` (closed-form hypergradient) and
:func:`auc_minimax` (a deep-AUC minimax task on generated imbalanced data, torch).

>>> import numpy as np
>>> prob = synthetic_minimax(sigma=0.0)
>>> bool(prob.grad_phi(np.array([1.0]))[0] == 1.0 - np.sin(1.0))
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass
from typing import Any

import numpy as np

from algorithms._validation import (
    WORKING_MAX,
    allocates,
    as_float_array,
    as_real_array,
    call_user,
    check_choice,
    check_finite_real,
    check_fits_memory,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_seed,
    check_takes,
    check_working_range,
    precision_rank,
    read_only,
    reseal_state,
    returned_pair,
)
from algorithms.core import Problem, rebuilt_by_factory

#: a user oracle's ValueError/TypeError passes as it is (the start's length checks read it); any other
#: exception it raises (a KeyError) is named by call_user
_PASS = (ValueError, TypeError)

__all__ = [
    "NOISE_KINDS",
    "BilevelProblem",
    "MinimaxProblem",
    "additive_noise",
    "quadratic_bilevel",
    "synthetic_minimax",
]

NOISE_KINDS = ("gaussian", "sphere", "student")


@allocates("shape")
def additive_noise(kind: str, sigma: float, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """One draw of the oracle noise of law ``kind`` and level ``sigma`` (see the module docstring).

    ``shape`` is the draw's shape, a tuple (or list) of ints >= 0, or one int n read as ``(n,)`` as numpy
    does (``()`` is one scalar draw; a shape with no entries, such as ``(0,)``, is refused for ``"sphere"``
    with ``sigma`` > 0); ``rng`` a ``numpy.random.Generator``; ``kind``
    one of ``NOISE_KINDS``, ``sigma`` a finite float >= 0.

    >>> rng = np.random.default_rng(0)
    >>> round(float(np.linalg.norm(additive_noise("sphere", 2.0, (3,), rng))), 12)
    2.0
    """
    check_choice("kind", kind, NOISE_KINDS)
    sigma = check_nonnegative("sigma", sigma)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    dims = (shape,) if isinstance(shape, int | np.integer) and not isinstance(shape, bool) else shape
    if not isinstance(dims, tuple | list) or not all(
            isinstance(n, int | np.integer) and not isinstance(n, bool) and n >= 0 for n in dims):
        raise ValueError(f"shape must be a tuple of ints >= 0, got {shape!r}")
    # each size numpy can hold (10**400 met an OverflowError inside numpy), and the draw must fit in memory
    shape = tuple(check_int_at_least("shape", n, 0) for n in dims)
    check_fits_memory("additive_noise", "shape", shape, 8.0 * math.prod(shape))
    if sigma == 0.0:
        return np.zeros(shape)
    if kind == "sphere" and math.prod(shape) == 0:  # no point of norm sigma > 0 (it divided 0 by 0)
        raise ValueError(f"shape must have at least one entry for the 'sphere' law with sigma = "
                         f"{sigma!r} > 0 (a draw of norm sigma), got {shape!r}")
    return _draw(kind, sigma, shape, rng)


def _draw(kind: str, sigma: float, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """:func:`additive_noise` without the argument checks (the oracles' inner loop)."""
    if kind == "gaussian":
        return sigma * rng.standard_normal(shape)
    if kind == "student":
        return sigma * rng.standard_t(3.0, shape) / math.sqrt(3.0)  # Var t_3 = 3
    direction = rng.standard_normal(shape)
    return (sigma / math.sqrt(float(np.dot(direction.ravel(), direction.ravel())))) * direction


def _vector(name: str, value: Any) -> np.ndarray:
    array = as_float_array(name, value)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {array.shape}")
    return array


def _check_noise(sigma: Any, noise: Any) -> None:
    check_nonnegative("sigma", sigma)
    check_choice("noise", noise, NOISE_KINDS)


class NonFinitePoint(ValueError):
    """An oracle was asked about a NaN/inf point (a solve reports ``Diverged``; a direct call gets this
    ValueError, naming the argument)."""


def _point(name: str, value: Any, like: np.ndarray, whose: str = "the problem's") -> np.ndarray:
    """An oracle's ``x``/``y``/``v`` of ``like``'s shape, finite: a point of the wrong length reached the
    user's gradient (numpy broadcast it, or raised its own matmul error) and a NaN point answered NaN."""
    if not (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        value = as_real_array(name, value, check_range=False).astype(like.dtype)  # an iterate: not bounded
    else:  # a copy: a user's oracle writing into its argument (x *= 100) moved the solver's iterate; in the
        # problem's dtype (a float32 point on a float64 problem reached the user's gradient as float32)
        value = value.astype(like.dtype)
    if value.shape != like.shape:
        raise ValueError(f"{name} must have shape {like.shape} ({whose}), got {value.shape}")
    if not np.isfinite(value).all():
        raise NonFinitePoint(f"{name} must be finite, got {value.tolist()!r:.80}")
    return value


#: precision rank of a returned array's dtype (higher: more precise); integers rank below every float
def check_precision(name: str, value: Any, like: np.ndarray) -> None:
    """A user oracle's array output at least as precise as the iterates (``like``'s dtype): a float32,
    float16 or integer gradient beside float64 iterates was upcast in silence (every step then moved by
    a rounded or truncated gradient, and a solve still ended Success). Lists and Python numbers pass (read
    as float64); a more precise array passes (cast to the iterates' dtype)."""
    rank = precision_rank(value)   # numpy and torch dtypes alike (a torch float16/int64 answer was upcast)
    if rank is not None and rank < precision_rank(like):
        raise TypeError(f"{name} must return floats at least as precise as the iterates ({like.dtype}, x0's "
                        f"dtype), got dtype {str(value.dtype).replace('torch.', '')}")


class _OnCheckedPoints:
    """A built-in problem's own callable (``phi``, ``grad_phi``, the oracles' gradients) called on checked
    arguments: points of the problem's shapes, finite, and a Generator for ``rng`` (or None where the
    gradient is ``exact``: it draws nothing). A float, a str or a point of the wrong length met IndexError
    or a numpy ufunc error inside the formula, and a NaN point answered NaN."""

    def __init__(self, fn: Callable[..., Any], signature: str, *likes: np.ndarray | None,
                 exact: bool = True) -> None:
        setattr_ = object.__setattr__  # sealed below: the problem built on it checked this formula
        setattr_(self, "fn", fn)
        setattr_(self, "signature", signature)
        setattr_(self, "likes", likes)
        setattr_(self, "exact", exact)
        setattr_(self, "names", tuple(signature[signature.index("(") + 1:-1].split(", ")))
        setattr_(self, "__name__", signature[:signature.index("(")])
        setattr_(self, "__qualname__", self.__name__)

    def __setattr__(self, name: str, value: Any) -> None:
        # p.grad_phi.fn = (lambda x: 0 * x) was taken: the frozen problem kept the same object and solved the
        # edited formula (Success at x0) without a word (red20b); as a frozen dataclass's field
        raise FrozenInstanceError(f"cannot assign to field {name!r}: the built-in {self.signature} is "
                                  f"immutable (its problem was checked with it); build a new problem")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: the built-in {self.signature} is immutable")

    def __call__(self, *args: Any) -> Any:
        if len(args) != len(self.names):
            raise TypeError(f"{self.signature} takes {len(self.names)} argument(s), got {len(args)}")
        whose = f"the built-in {self.signature}'s dimension: x0 and y0 must keep theirs"
        out = self.fn(*((arg if arg is None and self.exact else _generator(arg)) if like is None
                        else _point(name, arg, like, whose)
                        for name, arg, like in zip(self.names, args, self.likes, strict=True)))
        parts = out if isinstance(out, tuple) else (out,)
        with np.errstate(all="ignore"):
            finite = all(np.all(np.isfinite(np.asarray(part, dtype=float))) for part in parts)
        if not finite:  # a point of 1e300 answered inf in silence (a solve reports it as Diverged)
            raise NonFinitePoint(f"{self.signature} overflows at this point: {self.names[0]} is too large in "
                                 f"magnitude for the built-in formula (its value is not finite)")
        return out

    def __repr__(self) -> str:
        return f"{self.signature} (built in, checked)"


def call_oracle(call: str, fn: Callable[..., Any], *args: Any) -> Any:
    """The user's ``fn(*args)`` on read-only points (:func:`call_user`): a grad that wrote x[0] = 99
    into a writeable point and then answered for it ran SGDA on wrong gradients in silence (heldout16)."""
    return _detached(call_user(call, fn, *args, keep=_PASS))


def _detached(value: Any) -> Any:
    """A user oracle's torch tensors (alone or in a returned pair) detached from autograd: a float64 tensor
    that requires grad met torch's "Can't call numpy() on Tensor that requires grad" (a plain one worked)."""
    if isinstance(value, tuple | list):
        return type(value)(_detached(part) for part in value)
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        return value.detach()
    return value


def _generator(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):  # an int seed reached the user's oracle as its rng
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class MinimaxProblem(Problem):
    """``min_x max_y f(x, y)``, f nonconvex in x and strongly concave in y.

    Scale: a solve reports ``Diverged`` once an iterate leaves the ball of radius 1e12·max(1, ‖x0‖, ‖y0‖)
    (``_loop.DIVERGENCE_RADIUS``), so a problem whose y*(x) or minimizer lies farther out than that needs
    a start of its scale (e.g. synthetic_minimax with |coupling·x0| > 1e12·max(1, |x0|, |y0|)).

    ``grad(x, y, rng) -> (∇_x F, ∇_y F)``: the (possibly already stochastic, e.g. minibatch)
    gradient of f, arrays at least as precise as ``x0`` (a float32, float16 or integer part beside float64
    iterates is refused by name; ``grad_phi`` too); the oracle adds noise of level ``sigma`` and law
    ``noise`` to both parts.
    ``phi(x)`` (a callable x -> a finite real: a Python float or int, a Fraction, or a numpy/torch scalar or
    0-d array at least as precise as ``x0``, an np.float32/float16 or integer-dtype Φ beside float64 iterates
    being refused by name) is Φ(x) = max_y f(x, y) and ``grad_phi(x)`` (a callable x ->
    an array of x's shape) its exact gradient, used for the
    recorded stationarity measure ‖∇Φ(x_t)‖ and the stopping test. ``phi`` is called once per solve, at the
    last iterate, for the reported value (not here, not every iteration); a bad value there (NaN/inf:
    ``Diverged``; a wrong type: refused naming phi(x)) decides the run, one it would give elsewhere is never
    seen. ``x0`` and ``y0`` are the finite 1-D starting points; the dtype of ``x0`` (float32 or float64;
    an integer or float16 array is promoted to float64) is the dtype of the iterates, and ``y0``
    is converted to it.
    ``sigma`` is a finite float >= 0: any value from 0 to 3.4e38, the working range (0: the oracle is
    ``grad`` itself; a tiny one such as 1e-39 acts as 0) and ``noise`` one of ``NOISE_KINDS``.
    Every callable receives read-only copies of the points; one that writes into its argument anyway is
    called once more on writeable copies: a write never changes the run.
    """

    grad: Callable[[np.ndarray, np.ndarray, np.random.Generator], tuple[Any, Any]]
    phi: Callable[[np.ndarray], float]
    grad_phi: Callable[[np.ndarray], Any]
    x0: np.ndarray
    y0: np.ndarray
    sigma: float = 0.0
    noise: str = "gaussian"

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (a deep copy's could be made
        writeable again, against the README's rule for problems)."""
        reseal_state(self, state)

    def __post_init__(self) -> None:
        for name, call in (("grad", "grad(x, y, rng)"), ("phi", "phi(x)"), ("grad_phi", "grad_phi(x)")):
            check_takes(name, getattr(self, name), call, call.count(",") + 1)
        x0 = _vector("x0", self.x0)
        y0 = _vector("y0", self.y0).astype(x0.dtype)
        for name, value in (("x0", x0), ("y0", y0)):  # read-only: a NaN written after the checks was run
            object.__setattr__(self, name, read_only(value))
        _check_noise(self.sigma, self.noise)
        object.__setattr__(self, "sigma", float(self.sigma))  # np.float32 stored as a Python float

    def oracle(self, x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[Any, Any]:
        """One stochastic gradient (g_x, g_y) at (x, y): ``grad`` plus the additive noise.

        ``x`` and ``y`` are finite points of ``x0``'s and ``y0``'s shapes, converted to ``x0``'s dtype
        (the iterates'; a point of another real dtype is cast, not passed on) and ``rng`` a
        ``numpy.random.Generator``.
        """
        x, y, rng = _point("x", x, self.x0), _point("y", y, self.y0), _generator(rng)
        gx, gy = returned_pair("grad(x, y, rng)",
                               call_oracle("grad(x, y, rng)", self.grad, x, y, rng))
        check_precision("grad(x, y, rng)[0]", gx, self.x0)
        check_precision("grad(x, y, rng)[1]", gy, self.x0)
        if self.sigma > 0:
            gx, gy = _numeric("grad(x, y, rng)[0]", gx), _numeric("grad(x, y, rng)[1]", gy)
            gx = gx + _draw(self.noise, self.sigma, np.shape(gx), rng)
            gy = gy + _draw(self.noise, self.sigma, np.shape(gy), rng)
        return gx, gy


@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class BilevelProblem(Problem):
    """``min_x Φ(x) = f(x, y*(x))`` with ``y*(x) = argmin_y g(x, y)``, g strongly convex in y.

    Scale: as for :class:`MinimaxProblem`, a solve is ``Diverged`` once an iterate leaves the ball of radius
    1e12·max(1, ‖x0‖, ‖y0‖): a y*(x) farther out than that needs a start of its scale.

    Oracles (each takes an ``rng`` for its own sampling; additive noise of level ``sigma`` is
    added to the gradients and of level ``hessian_sigma`` to the second-derivative products):
    ``upper_grad(x, y, rng) -> (∇_x F, ∇_y F)``, ``lower_grad(x, y, rng) -> ∇_y G`` and
    ``lower_hvp(x, y, v, rng) -> (∇²_xy G·v, ∇²_yy G·v)`` (shapes of x and y: ``upper_grad`` and
    ``lower_hvp`` return a PAIR, a tuple or list of two arrays of different lengths, not one array); every
    oracle and ``grad_phi``
    returns arrays at least as precise as ``x0`` (a float32, float16 or integer output beside float64
    iterates is refused by name).
    ``mu_g`` and ``l_g1`` are the strong-convexity and smoothness constants of g(x, ·); the Neumann-series
    hypergradient scales by 1/l_g1 and Theorem 4.2 picks its length from both (finite floats, 0 < mu_g <=
    l_g1, in the working range [1.18e-38, 3.4e38]; a solve with Theorem 4.2's series length, the
    algorithms' ``neumann_terms=None``, also needs that length at most 10**6 terms: mu_g / l_g1 at least
    about 1.5 log(T) / 10**6, 1.4e-5 at the default T = 10**4 iterations, else it is refused naming mu_g).
    ``phi(x)`` is Φ(x) (a finite real, with ``MinimaxProblem``'s precision rule; called once per solve, at
    the last iterate, as there) and ``grad_phi(x)`` its exact gradient (the recorded
    stationarity measure and the stopping test); ``x0`` and ``y0`` are the finite 1-D starting points
    (``x0``'s dtype, float32 or float64, is the iterates', and ``y0`` is converted to it; an integer or
    float16 array is promoted to float64); ``sigma`` and ``hessian_sigma`` are finite floats >= 0, any value
    from 0 to 3.4e38 (the working range; a tiny one such as 1e-39 acts as 0; a huge one makes a run
    ``Diverged`` or wander) and ``noise`` one of ``NOISE_KINDS``.
    Every callable receives read-only copies of the points (x, y, v); one that writes into its argument
    anyway is called once more on writeable copies: a write never changes the run.
    """

    upper_grad: Callable[[np.ndarray, np.ndarray, np.random.Generator], tuple[Any, Any]]
    lower_grad: Callable[[np.ndarray, np.ndarray, np.random.Generator], Any]
    lower_hvp: Callable[[np.ndarray, np.ndarray, np.ndarray, np.random.Generator], tuple[Any, Any]]
    phi: Callable[[np.ndarray], float]
    grad_phi: Callable[[np.ndarray], Any]
    x0: np.ndarray
    y0: np.ndarray
    mu_g: float
    l_g1: float
    sigma: float = 0.0
    hessian_sigma: float = 0.0
    noise: str = "gaussian"

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (a deep copy's could be made
        writeable again, against the README's rule for problems)."""
        reseal_state(self, state)

    def __post_init__(self) -> None:
        calls = (("upper_grad", "upper_grad(x, y, rng)"), ("lower_grad", "lower_grad(x, y, rng)"),
                 ("lower_hvp", "lower_hvp(x, y, v, rng)"), ("phi", "phi(x)"), ("grad_phi", "grad_phi(x)"))
        for name, call in calls:
            check_takes(name, getattr(self, name), call, call.count(",") + 1)
        x0 = _vector("x0", self.x0)
        y0 = _vector("y0", self.y0).astype(x0.dtype)
        for name, value in (("x0", x0), ("y0", y0)):  # read-only: a NaN written after the checks was run
            object.__setattr__(self, name, read_only(value))
        for name in ("mu_g", "l_g1"):
            # the shared check (a numpy float32 was refused as "must be a finite number > 0, got 1.0")
            object.__setattr__(self, name, check_positive(name, getattr(self, name)))
        if self.mu_g > self.l_g1:
            raise ValueError(f"mu_g must be <= l_g1 (strong convexity below smoothness), got "
                             f"mu_g = {self.mu_g!r} > l_g1 = {self.l_g1!r}")
        _check_noise(self.sigma, self.noise)
        check_nonnegative("hessian_sigma", self.hessian_sigma)
        for name in ("sigma", "hessian_sigma"):  # np.float32 stored as a Python float
            object.__setattr__(self, name, float(getattr(self, name)))

    def _noisy(self, value: Any, sigma: float, rng: np.random.Generator, name: str = "oracle") -> Any:
        if sigma == 0:
            return value
        return _numeric(name, value) + _draw(self.noise, sigma, np.shape(value), rng)

    def upper_oracle(self, x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[Any, Any]:
        """(∇_x F, ∇_y F) at (x, y), noise of level ``sigma`` added. ``x`` and ``y`` are finite points of
        ``x0``'s and ``y0``'s shapes (converted to ``x0``'s dtype, as every oracle's points) and ``rng`` a
        ``numpy.random.Generator`` (the oracle's sampling and noise).
        """
        x, y, rng = _point("x", x, self.x0), _point("y", y, self.y0), _generator(rng)
        fx, fy = returned_pair("upper_grad(x, y, rng)",
                               call_oracle("upper_grad(x, y, rng)", self.upper_grad, x, y, rng))
        check_precision("upper_grad(x, y, rng)[0]", fx, self.x0)
        check_precision("upper_grad(x, y, rng)[1]", fy, self.x0)
        return (self._noisy(fx, self.sigma, rng, "upper_grad(x, y, rng)[0]"),
                self._noisy(fy, self.sigma, rng, "upper_grad(x, y, rng)[1]"))

    def lower_oracle(self, x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> Any:
        """∇_y G at (x, y), noise of level ``sigma`` added. ``x`` and ``y`` are finite points of ``x0``'s and
        ``y0``'s shapes (converted to ``x0``'s dtype) and ``rng`` a ``numpy.random.Generator`` (the oracle's
        sampling and noise).
        """
        x, y, rng = _point("x", x, self.x0), _point("y", y, self.y0), _generator(rng)
        gy = call_oracle("lower_grad(x, y, rng)", self.lower_grad, x, y, rng)
        check_precision("lower_grad(x, y, rng)", gy, self.x0)
        return self._noisy(gy, self.sigma, rng, "lower_grad(x, y, rng)")

    def hvp_oracle(self, x: np.ndarray, y: np.ndarray, v: np.ndarray,
                   rng: np.random.Generator) -> tuple[Any, Any]:
        """(∇²_xy G·v, ∇²_yy G·v) at (x, y), noise of level ``hessian_sigma`` added. ``x`` and ``y`` are
        finite points of ``x0``'s and ``y0``'s shapes and ``rng`` a ``numpy.random.Generator`` (the
        oracle's sampling and noise); ``v`` a finite vector of ``y0``'s shape. ``x``, ``y`` and ``v`` are
        converted to ``x0``'s dtype.
        """
        x, y, v = _point("x", x, self.x0), _point("y", y, self.y0), _point("v", v, self.y0)
        rng = _generator(rng)
        answer = call_oracle("lower_hvp(x, y, v, rng)", self.lower_hvp, x, y, v, rng)
        cross, hess = returned_pair("lower_hvp(x, y, v, rng)", answer)
        check_precision("lower_hvp(x, y, v, rng)[0]", cross, self.x0)
        check_precision("lower_hvp(x, y, v, rng)[1]", hess, self.x0)
        return (self._noisy(cross, self.hessian_sigma, rng, "lower_hvp(x, y, v, rng)[0]"),
                self._noisy(hess, self.hessian_sigma, rng, "lower_hvp(x, y, v, rng)[1]"))


def _numeric(name: str, value: Any) -> Any:
    """``value`` unchanged when it is numeric (noise is added to it next), else a TypeError naming the
    oracle (rather than numpy's message about adding noise to a string or None)."""
    if value is None:
        raise TypeError(f"{name} must return a real array, got None")
    kind = value.dtype if isinstance(value, np.ndarray | np.generic) else np.asarray(value).dtype
    if kind.kind not in "fiu":
        raise TypeError(f"{name} must return a real array, got {type(value).__name__}")
    return value


@rebuilt_by_factory
def synthetic_minimax(sigma: float = 0.0, noise: str = "gaussian", *, coupling: float = 1.0,
                      x0: float = 2.0, y0: float = 0.0, dtype=np.float64) -> MinimaxProblem:
    """f(x, y) = cos x + c·x·y − y²/2 in one dimension (c = ``coupling``; c = 1 is Section 6.1).

    ``sigma`` (finite float >= 0) and ``noise`` (one of ``NOISE_KINDS``) are the oracle noise;
    ``coupling`` a finite nonzero float of either sign (a negative c such as -1 is valid) with |c| in the
    working range [1.18e-38, 3.4e38]; ``x0`` and
    ``y0`` the starting coordinates, any reals in [-3.4e38, 3.4e38] (the working range); ``dtype`` numpy
    float32 or float64 (float32: Φ(x0) = c²x0²/2 and ∇Φ(x0) must fit float32, |c|·|x0| up to about 2.6e19,
    else refused naming coupling).

    y*(x) = c·x, Φ(x) = cos x + c²x²/2 and ∇Φ(x) = c²x − sin x. For c = 1 the minimizer x = 0
    is degenerate (Φ''(0) = 0, ∇Φ ≈ x³/6); for c² < 1 it is a nonconvex Φ with a local
    maximum at 0 and two non-degenerate minimizers.

    >>> prob = synthetic_minimax(coupling=0.5 ** 0.5)
    >>> round(float(prob.phi(np.array([0.0]))), 6)
    1.0
    """
    # the shared check: numpy scalars (np.float32(2.0)) accepted, as floats
    coupling, x0, y0 = (check_finite_real(name, value) for name, value in
                        (("coupling", coupling), ("x0", x0), ("y0", y0)))
    if coupling == 0:
        raise ValueError("coupling must be nonzero (with c = 0, x and y decouple), got 0")
    # nonzero, so |c| is a positive scale of the working range: 5e-324 decoupled x and y in all but name
    # (0 is refused), and 1e308 overflowed c**2
    check_working_range("coupling", coupling)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {dtype!r}")
    c = float(coupling)
    if dtype == np.float32 and max(0.5 * c * c * x0 * x0, c * c * abs(x0), abs(c * x0)) > WORKING_MAX:
        # Φ(x0), ∇Φ(x0) or y*(x0) past float32: the first phi(x0) raised "x is too large", naming x
        raise ValueError(f"coupling = {coupling!r} with x0 = {x0!r} puts Φ(x0) = c²x0²/2 or ∇Φ(x0) = c²x0 "
                         f"past float32's range (3.4e38) with dtype=float32: use float64 or |c|·|x0| below "
                         f"about 2.6e19")

    def grad(x, y, rng):
        return -np.sin(x) + c * y, c * x - y

    x0, y0 = np.array([x0], dtype=dtype), np.array([y0], dtype=dtype)
    return MinimaxProblem(
        grad=_OnCheckedPoints(grad, "grad(x, y, rng)", x0, y0, None),
        # x² in float64: a float32 x of 2.6e19 (documented valid: Φ = 3.4e38 fits) squared to inf in float32
        phi=_OnCheckedPoints(lambda x: _synthetic_phi(c, x), "phi(x)", x0),
        grad_phi=_OnCheckedPoints(lambda x: _synthetic_grad_phi(c, x), "grad_phi(x)", x0),
        x0=x0, y0=y0, sigma=sigma, noise=noise)


def _synthetic_phi(c: float, x: np.ndarray) -> float:
    """Φ(x) = cos x + c²x²/2 with x² in float64 (a float32 x of 2.6e19, documented valid, squared to inf in
    float32); past float64 it is inf, refused by the checked wrapper as "phi(x) overflows" (Python's
    float ** 2 raised a bare OverflowError at x = 1e300)."""
    with np.errstate(over="ignore"):
        return float(np.cos(x[0])) + float(0.5 * c * c * np.square(np.float64(x[0])))


#: x − sin x = Σ_k (−1)^(k+1) x^(2k+1)/(2k+1)!, k = 1..12: to rounding for |x| < 1 (the next term: 1/27!)
_X_MINUS_SIN = tuple((-1.0) ** (k + 1) / math.factorial(2 * k + 1) for k in range(1, 13))


def _synthetic_grad_phi(c: float, x: np.ndarray) -> np.ndarray:
    """∇Φ(x) = c²x − sin x without cancellation: for |x| < 1 as (c − 1)(c + 1)x + (x − sin x), the latter by
    its series (c²x − sin x lost every digit near 0 at c = 1: 0.0 at x = 1e-8, true 1.7e-25, a Success on a
    zero gradient; red23b); elsewhere as before."""
    x64 = np.asarray(x, dtype=np.float64)
    small = np.abs(x64) < 1.0
    z = np.where(small, x64, 0.0)
    series = np.zeros_like(z)
    for coefficient in reversed(_X_MINUS_SIN):  # Horner in x²: x³(a1 + x²(a2 + ...))
        series = series * z * z + coefficient
    near = (c - 1.0) * (c + 1.0) * z + series * z * z * z
    return np.where(small, near, c * c * x64 - np.sin(x64)).astype(np.asarray(x).dtype)


#: the drawn A's smallest eigenvalue may differ from mu_g by this fraction (A's float64 rounding)
_SPECTRUM_RTOL = 1e-6


@rebuilt_by_factory
@allocates("dim_x", "dim_y")
def quadratic_bilevel(dim_x: int = 3, dim_y: int = 4, *, sigma: float = 0.0, noise: str = "gaussian",
                      hessian_sigma: float = 0.0, mu_g: float = 0.5, l_g1: float = 2.0, reg: float = 0.1,
                      seed: int = 0, dtype=np.float64) -> BilevelProblem:
    """g(x, y) = ½ yᵀAy − yᵀBx, f(x, y) = ½‖y − b‖² + (reg/2)‖x‖², with spec(A) ⊂ [mu_g, l_g1].

    ``dim_x`` and ``dim_y`` are ints >= 1; ``sigma`` and ``hessian_sigma`` (finite floats >= 0) the oracle
    noise levels, ``noise`` one of ``NOISE_KINDS``; ``mu_g`` <= ``l_g1`` finite floats > 0 with a ratio
    ``l_g1 / mu_g`` of at most about 1e9 (A is held in float64: the drawn A's smallest eigenvalue must be mu_g
    to within 1e-6·mu_g, else the pair is refused naming both; a ratio of 1e12 is off by 6e-4, 1e16 gave an
    indefinite A), ``reg`` >= 0;
    ``seed`` an int in [0, 2**64); ``dtype`` numpy float32 or float64.

    A (with both ends of the spectrum attained when ``dim_y`` >= 2; A = [mu_g] when ``dim_y`` = 1), B and b
    are drawn from ``seed``. Then
    y*(x) = A⁻¹Bx, Φ(x) = ½‖A⁻¹Bx − b‖² + (reg/2)‖x‖² and
    ∇Φ(x) = reg·x + (A⁻¹B)ᵀ(A⁻¹Bx − b), the closed form the Neumann series approximates.

    >>> prob = quadratic_bilevel(seed=1)
    >>> prob.x0.shape, prob.y0.shape, prob.mu_g, prob.l_g1
    ((3,), (4,), 0.5, 2.0)
    """
    dim_x, dim_y = check_positive_int("dim_x", dim_x), check_positive_int("dim_y", dim_y)
    seed = check_seed(seed)
    check_nonnegative("reg", reg)
    mu_g, l_g1 = check_positive("mu_g", mu_g), check_positive("l_g1", l_g1)  # numpy scalars accepted
    check_working_range("l_g1", l_g1)
    if not mu_g <= l_g1:  # the docstring rule, before A is drawn (the spectrum check blamed rounding; red23b)
        raise ValueError(f"mu_g must be <= l_g1 (strong convexity below smoothness), got mu_g = {mu_g!r} > "
                         f"l_g1 = {l_g1!r}")
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {dtype!r}")
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((dim_y, dim_y)))
    eigenvalues = np.linspace(mu_g, l_g1, dim_y) if dim_y > 1 else np.array([mu_g])
    A = (q * eigenvalues) @ q.T
    A = 0.5 * (A + A.T)
    low = float(np.linalg.eigvalsh(A)[0])
    if not abs(low - mu_g) <= _SPECTRUM_RTOL * mu_g:
        # A's rounding (about eps·l_g1) moved the low end: l_g1/mu_g = 1e16 drew an indefinite A (λ_min −0.25)
        # reported as mu_g = 1, and y*(x), Φ and ∇Φ were those of another problem
        raise ValueError(f"mu_g = {mu_g!r} and l_g1 = {l_g1!r}: the float64 lower-level Hessian A drawn has "
                         f"smallest eigenvalue {low:.6g}, not mu_g (its rounding, about 1e-16·l_g1, is past "
                         f"{_SPECTRUM_RTOL:g}·mu_g); use a ratio l_g1 / mu_g of at most about 1e9")
    B = rng.standard_normal((dim_y, dim_x))
    b = rng.standard_normal(dim_y)
    try:
        solve_map = np.linalg.solve(A, B)  # A⁻¹B: y*(x) = A⁻¹B x
    except np.linalg.LinAlgError:  # mu_g = 5e-324, or l_g1 = 2**63 beside mu_g = 0.5: A rounds to singular
        raise ValueError(f"mu_g = {mu_g!r} and l_g1 = {l_g1!r} give a lower-level Hessian A (spectrum "
                         f"[mu_g, l_g1]) that is singular in floating point; use a ratio l_g1 / mu_g "
                         f"of at most about 1e9") from None
    if not np.all(np.isfinite(solve_map)):
        raise ValueError(f"mu_g = {mu_g!r} and l_g1 = {l_g1!r} give a lower-level solution map A⁻¹B "
                         f"with non-finite entries; use a ratio l_g1 / mu_g of at most about 1e9")
    reg = float(reg)
    # the data the oracles close over, in immutable memory: a write into b (through phi.fn's closure) changed
    # Φ, ∇Φ and upper_grad behind mu_g and l_g1, and a solve answered Success for another problem (red20b)
    A, B, b, solve_map = (read_only(array) for array in (A, B, b, solve_map))

    def grad_phi(x):
        return reg * x + solve_map.T @ (solve_map @ x - b)

    x0, y0 = np.ones(dim_x, dtype=dtype), np.zeros(dim_y, dtype=dtype)
    return BilevelProblem(
        upper_grad=_OnCheckedPoints(lambda x, y, rng: (reg * x, y - b), "upper_grad(x, y, rng)",
                                    x0, y0, None),
        lower_grad=_OnCheckedPoints(lambda x, y, rng: A @ y - B @ x, "lower_grad(x, y, rng)",
                                    x0, y0, None),
        lower_hvp=_OnCheckedPoints(lambda x, y, v, rng: (-(B.T @ v), A @ v),
                                   "lower_hvp(x, y, v, rng)", x0, y0, y0, None),
        phi=_OnCheckedPoints(lambda x: float(0.5 * np.sum((solve_map @ x - b) ** 2)
                                             + 0.5 * reg * np.sum(x**2)), "phi(x)", x0),
        grad_phi=_OnCheckedPoints(grad_phi, "grad_phi(x)", x0),
        x0=x0, y0=y0, mu_g=float(mu_g),
        l_g1=float(l_g1), sigma=sigma, hessian_sigma=hessian_sigma, noise=noise)
