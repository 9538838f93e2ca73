"""Ada-Minimax: normalized momentum on x with noise-adaptive momentum and steps, AdaGrad-Norm on y.

Algorithm 1 with the parameter choices (3)–(4) of the paper. With two independent samples
ξ_t, ξ'_t at (x_t, y_t), g_x,t = ∇_x F(x_t, y_t; ξ_t), g̃_x,t = ∇_x F(x_t, y_t; ξ'_t) and
g_y,t = ∇_y F(x_t, y_t; ξ_t):

    S_t    = Σ_{k<=t} ‖g_x,k − g̃_x,k‖²                 (≈ 2σ²t: an online noise estimate)
    α_t    = 1/√(1 + S_t/α²),   β_t = 1 − α_t           (momentum parameter)
    α'_t   = 1/√(1 + S_{t−1}/α²)                         (our reading, see below)
    η_x,t  = lr_x·√α'_t/√t,     η_y,t = lr_y/√(γ² + Σ_{k<=t}‖g_y,k‖²)
    m_t    = β_t m_{t−1} + α_t g_x,t   (m_1 = g_x,1)
    x_{t+1} = x_t − η_x,t m_t/‖m_t‖,   y_{t+1} = y_t + η_y,t g_y,t.

Without noise S_t = 0, α_t = 1 and the x-step is normalized gradient descent with
η/√t; with noise σ, α_t ≈ α/(σ√(2t)) and η_x,t ∝ t^(−3/4): the method picks the momentum
of normalized SGD with known variance (Cutkosky & Mehta 2020) without being told σ.

Gap we fill: the displayed formulas (3)–(4) are not in the text we have. α_t's form follows
from the proof of Lemma G.2 (the (1 + c·t)^(−1/2) envelopes with c = σ̲²/α², 4σ̄²/α²), η_x,t
from Section 6.2 (η_x√α'_t/√t), η_y,0 = η/γ from Lemma C.2. The paper says α'_t differs from
α_t to control η_x,t/η_y,t without printing it; we take α'_t to be α_t computed from the
noise estimate up to t − 1 (so η_x,t does not depend on the current samples).

References
----------
X. Gong, J. Hao, M. Liu. Adaptive Algorithms with Sharp Convergence Rates for Stochastic
Hierarchical Optimization. NeurIPS 2025, arXiv:2509.15399 (Algorithm 1, Theorem 4.1).

>>> from algorithms import solve
>>> from algorithms.hierarchical import AdaMinimax, synthetic_minimax
>>> sol = solve(synthetic_minimax(coupling=0.5 ** 0.5), AdaMinimax(), tol=1e-2)
>>> sol.retcode, bool(sol.original["grad_phi_norm"][-1] <= 1e-2)
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import (
    as_float_array,
    check_finite_real,
    check_int_at_least,
    check_positive,
    check_working_range,
    run_values,
    stable_norm,
    to_float,
    user_range,
)
from algorithms.core import Algorithm, Solution, SolveOptions, Stats, _dispatch
from algorithms.hierarchical._loop import checked, finite_sums, run
from algorithms.hierarchical.problems import MinimaxProblem

__all__ = ["AdaMinimax", "ada_parameters", "check_rate", "momentum_update"]


def check_rate(name: str, value: Any) -> float:
    """A step size, rate or exponent: a finite float > 0 in the working range [1.18e-38, 3.4e38]
    (a subnormal 5e-324 or a 1e308 was accepted)."""
    return check_positive(name, value)


def ada_parameters(t: int, noise_sum: float, previous_noise_sum: float, lower_sum: float, *,
                   lr_x: float, lr_y: float, alpha: float, gamma: float) -> tuple[float, float, float]:
    """(α_t, η_x,t, η_y,t) of equations (3)–(4) from the running sums (see the module docstring).

    ``noise_sum`` = S_t, ``previous_noise_sum`` = S_{t−1}, ``lower_sum`` = Σ_{k<=t}‖g_y,k‖² (each >= 0 and at
    most 3.4e38, the working range; the sums are cumulative, so ``noise_sum`` >= ``previous_noise_sum``,
    else refused naming ``noise_sum``); ``lr_x``,
    ``lr_y``, ``alpha`` and ``gamma`` are finite floats > 0 in [1.18e-38, 3.4e38] (:func:`check_rate`).

    >>> ada_parameters(4, 0.0, 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=2.0)
    (1.0, 0.5, 0.5)
    """
    check_int_at_least("t", t, 1)
    for name, value in (("noise_sum", noise_sum), ("previous_noise_sum", previous_noise_sum),
                        ("lower_sum", lower_sum)):
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):  # a Fraction too
            raise TypeError(f"{name} must be a finite number >= 0, got {type(value).__name__} {value!r}")
        if isinstance(value, int | np.integer) and value > 2**1023:  # math.isfinite's OverflowError
            raise ValueError(f"{name} must be a finite number >= 0, got an int past float's range")
        if not (math.isfinite(to_float(value)) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r:.40}")
        value = to_float(value) if not isinstance(value, int | np.integer) else value
        if user_range():  # a caller's sum is in the working range; a run's own (run_values) may be any size
            check_working_range(name, to_float(value), scale=False)
    lr_x, lr_y = check_rate("lr_x", lr_x), check_rate("lr_y", lr_y)  # 0 (no step) refused, as AdaMinimax does
    alpha, gamma = check_rate("alpha", alpha), check_rate("gamma", gamma)
    if noise_sum < previous_noise_sum:  # S_t is a running sum of squared norms: it never decreases
        raise ValueError(f"noise_sum must be >= previous_noise_sum = {previous_noise_sum!r} "
                         f"(S_t is cumulative), got {noise_sum!r}")
    # S/α/α and hypot(γ, √Σ) rather than S/α² and √(γ² + Σ): α² and γ² underflowed to 0 for a denormal
    # α or γ (ZeroDivisionError) and overflowed for α, γ past 1e154 (OverflowError)
    alpha_t = 1.0 / math.sqrt(1.0 + noise_sum / alpha / alpha)
    alpha_prime = 1.0 / math.sqrt(1.0 + previous_noise_sum / alpha / alpha)
    lr_x_t = lr_x * math.sqrt(alpha_prime) / math.sqrt(t)
    lr_y_t = lr_y / math.hypot(gamma, math.sqrt(lower_sum))
    return alpha_t, lr_x_t, lr_y_t


def momentum_update(momentum: np.ndarray | None, gradient: np.ndarray, alpha_t: float) -> np.ndarray:
    """m_t = (1 − α_t) m_{t−1} + α_t g_t, and m_1 = g_1 (``momentum`` None).

    ``gradient`` and ``momentum`` (None, or of the gradient's shape) are finite 1-D real arrays (lists and
    tensors are converted); ``alpha_t`` is a real number in [0, 1] (0 keeps the momentum, 1 takes the
    gradient).

    >>> momentum_update(np.array([1.0]), np.array([3.0]), 0.25).tolist()
    [1.5]
    """
    checked = as_float_array("gradient", gradient, ndim=1, check_range=user_range())
    alpha_t = check_finite_real("alpha_t", alpha_t)
    if not 0.0 <= alpha_t <= 1.0:  # a convex combination: (3) gives α_t in (0, 1]
        raise ValueError(f"alpha_t must be in [0, 1] (the momentum weight), got {alpha_t!r}")
    if momentum is None:  # m_1 = g_1: the gradient itself when it is a float array already
        return gradient if isinstance(gradient, np.ndarray) and gradient.dtype == checked.dtype else checked
    gradient = checked
    momentum = as_float_array("momentum", momentum, ndim=1, check_range=user_range())
    if momentum.shape != gradient.shape:
        raise ValueError(f"momentum must have the shape of gradient {gradient.shape}, got {momentum.shape}")
    if momentum.dtype != gradient.dtype:  # in float64: α·g of a float32 g was a float32 product (NEP 50)
        momentum, gradient = momentum.astype(np.float64), gradient.astype(np.float64)
    return (1.0 - alpha_t) * momentum + alpha_t * gradient


@dataclass(frozen=True)
class AdaMinimax(Algorithm):
    """Ada-Minimax (Algorithm 1): ``lr_x`` = η_x, ``lr_y`` = η_y, ``alpha`` = α, ``gamma`` = γ, each a finite
    float > 0 in [1.18e-38, 3.4e38] (the working range: a subnormal or a 1e308 value is refused by name).

    Defaults: the paper's synthetic setting at σ = 0 (α = 2, η_x = η_y = 3, Appendix I) with
    γ = 1. Stopping test and retcodes: see :mod:`algorithms.hierarchical._loop`.
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    ``solve``'s ``maxiters``: at most 3_333_333 (a solve takes at most 10**7 user calls, budgeted at three
    per iteration: the oracle, ``grad_phi`` and a share for ``phi``, which is called once, at the end; a
    larger maxiters is refused naming it).
    """

    lr_x: float = 3.0
    lr_y: float = 3.0
    alpha: float = 2.0
    gamma: float = 1.0

    def __post_init__(self) -> None:
        for name in ("lr_x", "lr_y", "alpha", "gamma"):
            object.__setattr__(self, name, check_rate(name, getattr(self, name)))


def adaptive_x_step(state: dict, algorithm: Any, t: int, x: np.ndarray, gx: np.ndarray, gx_other: np.ndarray,
                    gy: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """The upper-level step Ada-Minimax and Ada-BiO share: add the two-sample noise estimate
    ‖g_x − g_x'‖² and ‖g_y‖² to the running sums in ``state``, set (α_t, η_x,t, η_y,t) from them
    (:func:`ada_parameters`), update the momentum m_t and take the normalized step
    x − η_x,t m_t/‖m_t‖. Returns ``(x_new, m_t, α_t, η_x,t, η_y,t)``."""
    previous = state["noise_sum"]
    state["noise_sum"] = previous + stable_norm(gx - gx_other) ** 2
    state["lower_sum"] += stable_norm(gy) ** 2
    finite_sums(noise_sum=state["noise_sum"], lower_sum=state["lower_sum"])  # overflow: Diverged
    # the run's own sums and gradients (a noise level hessian_sigma = 3.4e38 gives gradients past 3.4e38):
    # not a caller's values, so not held to the working range (an overflow is Diverged, checked above)
    with run_values():
        alpha_t, lr_x_t, lr_y_t = ada_parameters(
            t, state["noise_sum"], previous, state["lower_sum"], lr_x=algorithm.lr_x,
            lr_y=algorithm.lr_y, alpha=algorithm.alpha, gamma=algorithm.gamma)
        m = momentum_update(state["m"], gx, alpha_t)
    state["m"] = m
    # the unit direction m/‖m‖ formed before the step: (η/‖m‖)·m overflowed where ‖m‖ is subnormal (a gradient
    # of 5e-324 moved x to -inf, Diverged, for a step of η); m over its largest entry first, so a subnormal
    # ‖m‖'s coarse rounding does not lengthen the step
    top = float(np.max(np.abs(m), initial=0.0))
    if top > 0:
        unit = m / top
        x_new = x - lr_x_t * (unit / stable_norm(unit))
    else:
        x_new = x
    return x_new, m, alpha_t, lr_x_t, lr_y_t


@_dispatch
def _solve(problem: MinimaxProblem, algorithm: AdaMinimax, options: SolveOptions) -> Solution:
    stats = Stats()
    state = {"m": None, "noise_sum": 0.0, "lower_sum": 0.0}

    def step(t, x, y, rng):
        gx, gy = problem.oracle(x, y, rng)
        gx_other, gy_other = problem.oracle(x, y, rng)
        stats.grad_calls += 2
        gx, gy = checked("grad(x, y, rng)[0]", gx, x), checked("grad(x, y, rng)[1]", gy, y)
        gx_other = checked("grad(x, y, rng)[0]", gx_other, x)
        checked("grad(x, y, rng)[1]", gy_other, y)  # unused: a NaN or wrong shape there is a broken oracle
        x_new, m, alpha_t, lr_x_t, lr_y_t = adaptive_x_step(state, algorithm, t, x, gx, gx_other, gy)
        y_new = y + lr_y_t * gy
        # x, y, g_x and m of iteration t: what Lemma 5.3's recursion is stated in
        return (x_new.astype(x.dtype), y_new.astype(y.dtype),
                {"alpha_t": alpha_t, "lr_x": lr_x_t, "lr_y": lr_y_t, "noise_sum": state["noise_sum"],
                 "x": x, "y": y, "g_x": gx, "momentum": m})

    return run(problem, options, step, stats, "Ada-Minimax")
