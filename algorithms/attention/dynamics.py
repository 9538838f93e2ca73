"""The overlap dynamics of projected gradient flow on the mean-field risk (linear link, r = 0).

Projected gradient flow on the sphere, du/dt = −P⊥_u ∇_u R̄, dv/dt = −P⊥_v ∇_v R̄ with
P⊥_w = I − wwᵀ, moves the overlaps μ = uᵀu*, ν = vᵀv*, η = uᵀv*, ζ = vᵀu* by

    dμ/dt = −(1 − μ²) ∂_μR̄,            dη/dt = μ η ∂_μR̄,
    dν/dt = −(1 − ν²) ∂_νR̄ + ν ζ ∂_ζR̄,  dζ/dt = ν ζ ∂_νR̄ − (1 − ζ²) ∂_ζR̄,

(our derivation of the paper's Corollary 2, whose displayed equations the available text does
not carry). In the frozen regime r = 0 (Condition 3) R̄ = d (p s ζ)² + γ²(p² − 2pν + 1), so with
A(μ) = p(1 − p) s β d:

    ∂_μR̄ = 2 A (d s² p ζ² + γ² (p − ν)),   ∂_νR̄ = −2 γ² p,   ∂_ζR̄ = 2 d s² p² ζ.

On M = {η = ζ = 0} the last two equations vanish (M is invariant, Proposition 5) and the first
two are the 2-d flow of Proposition 6. :class:`OverlapFlow` integrates the 4-d system by
explicit Euler steps of size ``lr``.

References
----------
E. Dohmatob. Understanding softmax attention layers: exact mean-field analysis on a toy problem.
NeurIPS 2025, Section 5: eq. (30), Corollary 2, Propositions 4-7.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import mpmath
import numpy as np
import torch

from algorithms._validation import (
    CANCELLATION_SHARE,
    as_real_array,
    check_positive,
    check_seed,
    remember_validated,
)
from algorithms.attention.problem import SingleLocationProblem, check_problem, check_unit_vector, overlaps
from algorithms.attention.risk import _locate_gap, _risk, _thermodynamics
from algorithms.core import (
    Algorithm,
    IterationMonitor,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    _dispatch,
)

__all__ = ["OverlapFlow", "overlap_velocity"]

#: an iterate with an overlap beyond this is no longer a cosine: the Euler map blew up
_DIVERGENCE_BOUND = 1.5


def _check_state(state) -> np.ndarray:
    arr = as_real_array("state", state)  # complex overlaps refused, not cut to their real part
    if arr.shape != (4,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"state must be 4 finite overlaps (mu, nu, eta, zeta), got {state!r}")
    mu, nu, eta, zeta = arr
    # u and v are unit vectors and (u*, v*) orthonormal: each has squared overlaps with the pair summing to
    # at most 1 (mean_field_risk checks ν² + ζ² the same way; 1e-9 for rounding of a state built from vectors)
    for (a, b), names in (((mu, eta), "mu**2 + eta**2"), ((nu, zeta), "nu**2 + zeta**2")):
        if a * a + b * b > 1.0 + 1e-9:
            raise ValueError(f"state: no unit vectors have these overlaps: {names} = {a * a + b * b:.6g} > 1 "
                             f"(u and v are unit vectors, u* and v* orthonormal)")
    return arr


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def overlap_velocity(problem: SingleLocationProblem, state) -> np.ndarray:
    """d/dt (μ, ν, η, ζ) under projected gradient flow on R̄ (linear link, r = 0).

    ``problem`` is a :class:`SingleLocationProblem` with the linear link; ``state`` is the four finite
    overlaps (μ, ν, η, ζ) of unit vectors, with μ² + η² <= 1 and ν² + ζ² <= 1 (a sum up to 1 + 1e-9, a
    computed state's rounding, is taken; one above is refused; μ is clipped to [-1, 1] in p(μ)) (any real
    dtype, read as float64: the velocity is a float64 array whatever the state's precision). Precision: the
    formula's value at the given state to a few ulps times |logit p(μ)| (the rounding of μ it magnifies);
    where d s² p ζ² + γ²(p − ν) cancels (p ≈ ν, at either end of (0, 1)) it is recomputed at 80 digits.

    >>> p = SingleLocationProblem(d=20, L=4, gamma=0.6)
    >>> bool(np.abs(overlap_velocity(p, [1.0, 1.0, 0.0, 0.0])).max() < 1e-12)
    True
    """
    check_problem(problem)  # validated again if changed after construction
    if problem.link != "linear":
        raise ValueError(f"problem.link must be 'linear' for the overlap dynamics, got {problem.link!r}")
    mu, nu, eta, zeta = _check_state(state)
    if np.abs([mu, nu, eta, zeta]).max() > _DIVERGENCE_BOUND:
        raise ValueError(f"state must hold overlaps (|entries| <= {_DIVERGENCE_BOUND}), got {state!r}")
    return _velocity(problem, _thermodynamics(problem.alpha, problem.beta)["psi"], mu, nu, eta, zeta)


def _locate(problem: SingleLocationProblem, psi: float, mu: float) -> float:
    """p(μ) of the mean-field risk (μ clipped to [−1, 1])."""
    return _sigmoid(_locate_gap(problem, psi, min(1.0, max(-1.0, mu))))


def _velocity(problem: SingleLocationProblem, psi: float, mu: float, nu: float, eta: float,
              zeta: float, *, per_locate: bool = False) -> np.ndarray:
    """The velocity, or (``per_locate``) the velocity over p(μ), the factor every component carries,
    computed without it (so it does not underflow with p)."""
    d, s, g2 = problem.d, problem.signal_scale, problem.gamma**2
    gap = _locate_gap(problem, psi, min(1.0, max(-1.0, mu)))
    # q = 1 − p as its own sigmoid: p(1 − p) was 0.0 once p rounded to 1 (a stalled μ velocity)
    p, q = _sigmoid(gap), _sigmoid(-gap)
    factor = 1.0 if per_locate else p
    a = factor * q * s * problem.beta * d
    # p − ν as (1 − ν) − q near p = 1 (1 − ν exact for ν >= 1/2), as itself below 1/2 (there 1 − ν and q
    # both round to ~1 and p's digits were lost: the μ velocity 1e10 times its value at ν = p = 2e-12)
    pair = (p, nu) if p < 0.5 else (1.0 - nu, q)
    first = d * s * s * p * zeta * zeta
    bracket = first + g2 * (pair[0] - pair[1])
    if 0.0 < first + g2 * max(abs(pair[0]), abs(pair[1])) and \
            abs(bracket) <= CANCELLATION_SHARE * (first + g2 * max(abs(pair[0]), abs(pair[1]))):
        bracket = _exact_bracket(problem, mu, nu, zeta)  # p ≈ ν, or g2(p − ν) ≈ −d s² p ζ²
    d_mu = 2.0 * a * bracket
    d_nu = -2.0 * g2 * factor
    d_zeta = 2.0 * d * s * s * factor * p * zeta
    return np.array([  # 1 − x² as (1 − x)(1 + x): no cancellation near |x| = 1
        -_one_minus_square(mu) * d_mu,
        -_one_minus_square(nu) * d_nu + nu * zeta * d_zeta,
        mu * eta * d_mu,
        nu * zeta * d_nu - _one_minus_square(zeta) * d_zeta,
    ])


def _exact_bracket(problem: SingleLocationProblem, mu: float, nu: float, zeta: float) -> float:
    """d s² p ζ² + γ²(p − ν) at 80 digits from the float inputs (s, ψ, p to 80 digits; μ clipped to [−1, 1]):
    where it cancels, the rounding of p (~|logit p|·1e-16 relative) was its whole value."""
    with mpmath.workdps(80):
        g, b, d = mpmath.mpf(problem.gamma), mpmath.mpf(problem.beta), problem.d
        s = mpmath.sqrt((1 - g) * (1 + g)) if problem.variant == "dohmatob" else mpmath.sqrt(0.5)
        alpha = mpmath.log(problem.L - 1) / d
        beta_crit = mpmath.sqrt(2 * alpha)
        psi = alpha / b + b / 2 if b < beta_crit else beta_crit
        gap = (s * mpmath.mpf(min(1.0, max(-1.0, mu))) - psi) * b * d
        p, q = 1 / (1 + mpmath.exp(-gap)), 1 / (1 + mpmath.exp(gap))
        p_minus_nu = (1 - mpmath.mpf(nu)) - q if p > 0.5 else p - mpmath.mpf(nu)  # q ~ e^-300 kept
        return float(d * s * s * p * mpmath.mpf(zeta) ** 2 + g * g * p_minus_nu)


def _converged(problem: SingleLocationProblem, psi: float, state: np.ndarray, speed: float,
               tol: float) -> bool:
    """max |velocity| <= tol·p(μ), the test in the time p·t. Where p(μ) is below float64's normal range
    (αd past ~700: L = 2**1100 at d = 2) the velocity underflowed with it and 0 <= tol·0 passed at a
    non-stationary start: there the velocity over p, computed without the factor, is tested against tol."""
    locate = _locate(problem, psi, state[0])
    if locate >= sys.float_info.min:
        return speed <= tol * locate
    return float(np.abs(_velocity(problem, psi, *state.tolist(), per_locate=True)).max()) <= tol


def _one_minus_square(x: float) -> float:
    return (1.0 - x) * (1.0 + x)


@dataclass(frozen=True)
class OverlapFlow(Algorithm):
    """Explicit Euler on the 4-d overlap flow (μ, ν, η, ζ) ← (μ, ν, η, ζ) + lr · velocity.

    Starts from the overlaps of the problem's (u0, v0), or of unit vectors drawn from the
    solve seed (``seed=None`` is seed 0). Converged (``Success``) when the velocity's max-norm is at
    most ``tol · p(μ)``
    (default tol 1e-8): every component carries the factor p(μ), which is exponentially small
    where the softmax misses the secret token, so a bare speed test would stop on that plateau
    at a non-stationary point; dividing by p is a change of time with the same orbits and
    stationary points (where p(μ) underflows, L = 2**1100 at d = 2 say, the velocity over p is computed
    without the factor and tested against ``tol``: a non-stationary start there is ``Stalled``, not
    ``Success``). After each step (μ, η) and (ν, ζ) are rescaled onto the unit disc if they
    left it (no unit vectors have such overlaps). An overlap beyond 1.5 in absolute value or a
    non-finite one after a step is ``Diverged``
    (a step too large for the Euler map); the iteration cap (default 20000) is ``MaxIters``.
    Records (``callback``, ``store_trace``): one per state, the start included (``iteration`` k = 0, 1, ...:
    n Euler steps give n + 1 records; a ``Diverged`` run's trace ends with the blown-up state); a callback's
    True at record k stops there with ``Terminated``.
    ``lr``: a float in [1.18e-38, 3.4e38] (float32's smallest normal; a subnormal one moves nothing and is
    refused naming lr; a tiny normal one barely moves: ``MaxIters``, or ``Stalled`` as soon as a step leaves
    the overlaps unchanged in float64, lr·velocity below their rounding; a huge one ``Diverged``, unless the
    start is already stationary).

    >>> from algorithms import solve
    >>> p = SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5)
    >>> sol = solve(p, OverlapFlow(lr=0.05), seed=0)
    >>> sol.retcode, np.round(sol.x, 4).tolist()
    (<RetCode.Success: 'Success'>, [1.0, 1.0, 0.0, 0.0])

    References
    ----------
    E. Dohmatob. NeurIPS 2025, Corollary 2 and Proposition 4.
    """

    lr: float = 0.05

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", check_positive("lr", self.lr))  # a Python float (np.float32 was kept)
        remember_validated(self)


def _onto_unit_vectors(state: np.ndarray) -> np.ndarray:
    """The nearest overlaps that unit vectors can have: u·u* = μ and u·v* = η against the orthonormal
    (u*, v*) need μ² + η² <= 1, and likewise ν² + ζ² <= 1 for v.

    The overlap ODE alone does not keep these discs: at μ = -1 its η-direction is unstable, so a
    round-off η grows while μ stays -1 (measured: η reached 1.5 from a start (-1, 0.3, 0, 0) on M,
    where projected GD on the vectors cannot leave the sphere). Rescaling onto the disc is what the
    vector scheme's normalisation does.
    """
    out = state.copy()
    for a, b in ((0, 2), (1, 3)):
        norm = math.hypot(out[a], out[b])
        if norm > 1.0:
            out[a], out[b] = out[a] / norm, out[b] / norm
    return out


def initial_vectors(problem: SingleLocationProblem, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(u0, v0) of the problem, or unit vectors drawn uniformly from ``seed`` where not given."""
    gen = torch.Generator().manual_seed(check_seed(seed))
    draws = []
    for given in (problem.u0, problem.v0):
        vec = torch.randn(problem.d, generator=gen, dtype=torch.float64)
        vec = vec / torch.linalg.vector_norm(vec)
        draws.append(vec if given is None else check_unit_vector("u0/v0", given, problem.d))
    return draws[0].to(problem.torch_dtype), draws[1].to(problem.torch_dtype)


def _state_risk(problem: SingleLocationProblem, state: np.ndarray) -> float:
    mu, nu, _, zeta = (float(x) for x in np.clip(state, -1.0, 1.0))
    return _risk(problem, mu, nu, zeta, 0.0, True)


@_dispatch
def _solve(problem: SingleLocationProblem, algorithm: OverlapFlow, options: SolveOptions) -> Solution:
    if problem.link != "linear":
        raise ValueError(f"problem.link must be 'linear' for OverlapFlow, got {problem.link!r}")
    u, v = initial_vectors(problem, options.seed or 0)
    start = overlaps(u, v, *problem.oracle())
    state = np.array([start["mu"], start["nu"], start["eta"], start["zeta"]])
    maxiters, tol = options.iterations(20000), options.tolerance(1e-8)
    psi = _thermodynamics(problem.alpha, problem.beta)["psi"]
    monitor = IterationMonitor(options, total=maxiters, desc="OverlapFlow")
    recording = options.store_trace or options.callback is not None

    def record(iteration: int, speed: float) -> bool:
        mu, nu, eta, zeta = state.tolist()
        return recording and monitor.record(iteration=iteration, mu=mu, nu=nu, eta=eta, zeta=zeta,
                                            risk=_state_risk(problem, state), speed=speed)

    retcode, k = RetCode.MaxIters, 0
    for k in range(maxiters + 1):
        velocity = _velocity(problem, psi, *state.tolist())
        speed = float(np.abs(velocity).max())
        # maxiters = 0 returns the start with MaxIters (core): its record is the run's last, so a stop
        # request there changes nothing (it ended Terminated)
        if record(k, speed) and maxiters > 0:
            retcode = RetCode.Terminated
            break
        # every component carries the factor p(μ): where p ≈ 0 the speed is exponentially small without
        # a stationary point, so convergence is judged in the time p·t (same orbits, same zeros)
        if maxiters > 0 and _converged(problem, psi, state, speed, tol):
            retcode = RetCode.Success
            break
        if k == maxiters:
            break
        moved = state + algorithm.lr * velocity
        if np.array_equal(moved, state):  # lr·velocity below the overlaps' rounding: no step moves them
            retcode = RetCode.Stalled  # (lr = 1.2e-38 with maxiters = 10**9 ran for hours)
            break
        state = moved
        if not np.all(np.isfinite(state)) or np.abs(state).max() > _DIVERGENCE_BOUND:
            retcode, k = RetCode.Diverged, k + 1
            break
        state = _onto_unit_vectors(state)
    monitor.close()
    value = math.inf if retcode is RetCode.Diverged else _state_risk(problem, state)
    if retcode is RetCode.Diverged and recording:
        monitor.trace.append({"iteration": k, **dict(zip(("mu", "nu", "eta", "zeta"), state.tolist())),
                              "risk": value, "speed": math.inf})
    return Solution(x=state.astype(problem.dtype), value=value, retcode=retcode,
                    stats=Stats(iterations=k, grad_calls=k), trace=monitor.trace)
