"""MinNorm-OG: alternate a minimum-norm orthogonal-gradient update with a descent step on D_r.

Iteration t (Algorithm 1 of the paper), from θ = θ*:

1. if λ_t < ∞: take the model gradients g_i = ∇_θ f(θ, x_i) on ``n_pert`` retained points (all
   of D_r when ``n_pert`` is None; a seeded subsample otherwise) and solve

       Δ = argmin ‖θ + Δ‖² + λ_t ‖Δ‖²  subject to  Δ ⊥ g_i for every i,

   whose solution is Δ = −(1/(1+λ_t)) P_{G⊥} θ with G = span{g_i} (Appendix E), so
   θ ← θ − (1/(1+λ_t)) P_{G⊥} θ;
2. one descent step θ ← θ − lr ∇_θ J(θ; D_r) (``optimizer="sgd"``; ``"adam"`` as the paper's
   experiments, which use AdamW).

For a linear model and λ = 0 the first update is already the minimum-norm interpolator of D_r
(Theorem 2): the constraint is then exact and θ* − P_{S_r⊥} θ* = P_{S_r} θ* = pinv(X_r) y_r.

``lambda_schedule`` is a float (every iteration) or a tuple (λ_0, λ_1, ...; the last repeats),
entries >= 0 or ``math.inf`` (skip the projection, a pure descent epoch);
:func:`strength_schedule` builds the paper's decaying schedule. Convergence criterion: the
iteration moved θ by at most ``tol``·(1 + ‖θ‖) (default 1e-10), counted only at an iteration
that projected or after which no projection is scheduled (a pure descent epoch that does not
move, e.g. at an interpolator, says nothing about the projections still to come); an iteration
without a projection whose step moves θ by nothing in its dtype at a gradient above ``tol``·(1 + ‖θ‖)
(``lr = 0``, or one so small that the step rounds away) ends ``Stalled``, not ``Success``; ``maxiters``
default 1000.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Algorithm 1, Theorem 2, Appendices E and F.1.10).

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import MinNormOG, linear_task, retrained_min_norm
>>> prob = linear_task(n=6, d=10, n_forget=2, seed=0)
>>> sol = solve(prob, MinNormOG())
>>> sol.retcode, bool(torch.allclose(sol.x, retrained_min_norm(prob), atol=1e-10))
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    WORKING_MAX,
    _brief,
    check_count,
    check_entries_in_range,
    check_int_at_least,
    check_positive,
    check_working_range,
    refuse_sparse,
)
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.unlearning.problem import (
    UnlearningProblem,
    UnlearningStats,
    check_descent_hyperparameters,
    run_descent,
)

__all__ = ["MinNormOG", "orthogonal_gradient_step", "strength_schedule"]

#: the longest schedule :func:`strength_schedule` builds (one float per epoch)
MAX_EPOCHS = 10**6

#: singular values of the gradient matrix at or below this fraction of the largest span nothing
_RANK_RTOL = 1e-10


def _check_lambda(name: str, value: Any) -> float:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):  # a Fraction too
        raise TypeError(f"{name} must be a real number >= 0 or math.inf, got {type(value).__name__}")
    if value < 0:  # on the value given: -Fraction(1, 10**400) as a float is -0.0, which passed ">= 0"
        raise ValueError(f"{name} must be >= 0 (or math.inf to skip the projection), got {_brief(value)}")
    if isinstance(value, np.float16 | np.float32 | np.float64):  # exact as a float; compared as np.float32,
        value = float(value)    # sys.float_info.max was cast to float32: a RuntimeWarning (an error with -W)
    if value > sys.float_info.max and value != math.inf:  # a finite Fraction / longdouble / int past
        # float's range: float() raised OverflowError or gave the inf that means "no projection"
        raise ValueError(f"{name} must be a float >= 0 or math.inf (a finite λ is at most {WORKING_MAX:.4g}, "
                         f"the package's working range; pass math.inf to skip the projection), got "
                         f"{_brief(value)}")
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be >= 0 (or math.inf to skip the projection), got {value!r}")
    if math.isfinite(value):  # 1e308 refused: pass math.inf for the limit
        check_working_range(name, float(value), scale=False)  # 0 is valid: a tiny value acts as 0
    return float(value)


def orthogonal_gradient_step(theta: torch.Tensor, gradients: torch.Tensor, lam: float = 0.0) -> torch.Tensor:
    """θ − (1/(1+λ)) P_{G⊥} θ: the minimizer over Δ ⊥ rows of ``gradients`` of ‖θ+Δ‖² + λ‖Δ‖², plus θ.

    ``gradients`` has one gradient per row (k, d), in ``theta``'s dtype (float32 or float64; another
    dtype is refused by name, not mixed in); its span is found by an SVD (rank-revealing,
    so repeated or dependent gradients are fine): a direction whose singular value is at or below
    max(1e-10, max(k, d)·eps)·σ_max counts as zero (a numerical-rank cut: gradients whose scales differ by
    more than 1e10, e.g. rows of 1e6 and 1e-6, are taken as spanning the larger directions only);
    k = 0 rows (no gradients: Δ is free) gives
    θ − θ/(1+λ). ``lam`` = ∞ returns θ unchanged; a finite ``lam`` is at most 3.4e38 (the working range:
    1e308 is refused; 0 and ∞ are the limits).

    >>> import torch
    >>> theta = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    >>> orthogonal_gradient_step(theta, torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)).tolist()
    [1.0, 0.0, 0.0]
    """
    lam = _check_lambda("lam", lam)
    if not isinstance(theta, torch.Tensor) or theta.ndim != 1 or not theta.is_floating_point():
        raise TypeError("theta must be a 1-D floating torch tensor (a flat parameter vector)")
    if theta.dtype not in (torch.float32, torch.float64):  # float16: torch's "linalg_svd_cpu" not implemented
        raise TypeError(f"theta must be float32 or float64, got {theta.dtype}")
    if theta.numel() == 0:  # an empty theta was reported as a gradients shape error
        raise ValueError("theta must have at least one entry, got shape (0,)")
    if not isinstance(gradients, torch.Tensor) or gradients.ndim != 2 or gradients.shape[1] != theta.numel():
        shape = tuple(gradients.shape) if isinstance(gradients, torch.Tensor) else type(gradients).__name__
        raise ValueError(f"gradients must be a torch tensor of shape (k, {theta.numel()}) (k gradients of "
                         f"theta's length), got {shape}")
    if gradients.dtype == torch.bool:  # True/False were read as 1/0 gradients
        raise TypeError("gradients must be a real tensor of numbers, got dtype torch.bool")
    for name, tensor in (("theta", theta), ("gradients", gradients)):  # meta: torch's .item() error
        if tensor.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        refuse_sparse(name, tensor)  # a sparse tensor met torch's NotImplementedError (isfinite)
    if gradients.device != theta.device:
        raise ValueError(f"gradients must be on theta's device {theta.device}, got {gradients.device}")
    if not bool(torch.isfinite(theta).all()):
        raise ValueError("theta must have finite entries, got NaN or inf")
    if gradients.is_complex() or not bool(torch.isfinite(gradients).all()):
        raise ValueError("gradients must be real with finite entries, got complex, NaN or inf values")
    if gradients.dtype != theta.dtype:  # float32/float16/int64 beside float64 θ were silently mixed in
        raise TypeError(f"gradients must have theta's dtype {theta.dtype}, got {gradients.dtype}")
    check_entries_in_range("theta", theta)  # a caller's entries of 1e39 were projected in silence
    check_entries_in_range("gradients", gradients)
    return _project(theta, gradients, lam)


def _project(theta: torch.Tensor, gradients: torch.Tensor, lam: float) -> torch.Tensor:
    """The update for checked arguments (a run's own θ and gradients may be of any finite size)."""
    if math.isinf(lam):
        return theta.clone()
    # θ∥ + θ⊥·λ/(1+λ), no subtraction: θ − θ⊥/(1+λ) lost the kept part θ⊥·λ/(1+λ) to cancellation for a
    # small λ (1e-17 gave 0, exact 1e-17·θ⊥; red23b)
    shrink = lam / (1.0 + lam)
    if gradients.shape[0] == 0:
        return theta * shrink
    # at unit scale (powers of two: exact; the span and the map's linearity in θ keep the answer): float32
    # gradients of 3e38 had an inf singular value (no direction kept, θ shrunk to 0) and a θ of 3e38 an inf
    # basis @ θ (NaN)
    gradients = _times_power_of_two(gradients, -_exponent(gradients))
    exponent = _exponent(theta)
    if exponent != 0:
        unit = _project(_times_power_of_two(theta, -exponent), gradients, lam)
        return _times_power_of_two(unit, exponent)
    _, singular, basis = torch.linalg.svd(gradients, full_matrices=False)
    # the cut-off at the gradients' own rounding (numpy's matrix_rank rule): float32's dependent rows have
    # singular values ~1e-7 σ_max, above 1e-10, and were projected out as directions (an O(1) change)
    rtol = max(_RANK_RTOL, max(gradients.shape) * float(torch.finfo(gradients.dtype).eps))
    keep = singular > rtol * singular.max() if singular.max() > 0 else singular > 0
    basis = basis[keep]
    parallel = basis.T @ (basis @ theta)
    return parallel + (theta - parallel) * shrink


def _exponent(tensor: torch.Tensor) -> int:
    """e with max |entry| in [2**(e-1), 2**e) (0 for a zero tensor)."""
    top = float(tensor.abs().max()) if tensor.numel() else 0.0
    return math.frexp(top)[1] if top != 0.0 and math.isfinite(top) else 0


def _times_power_of_two(tensor: torch.Tensor, exponent: int) -> torch.Tensor:
    """``tensor`` · 2**exponent, exact where the result is normal; in two factors, since 2**149 (float32's
    subnormals up to unit scale) is itself past float32's range."""
    half = exponent // 2
    return tensor * math.ldexp(1.0, half) * math.ldexp(1.0, exponent - half)


def strength_schedule(lambda_reg: float, gamma_reg: float, epochs: int, *, period: int = 1,
                      final_descent: int = 0) -> tuple[float, ...]:
    """The paper's λ_t (Appendix F.1.10): projections of strength λ_reg, decaying by γ_reg each time.

    ``lambda_reg`` and ``gamma_reg`` are floats in (0, 1], each at least 1.18e-38 (positive scales);
    ``epochs`` an int in [1, 10**6] (``MAX_EPOCHS``: the schedule holds one λ per epoch), ``period`` an int
    in [1, 10**6] and ``final_descent`` an int in [0, epochs].

    λ starts at 1/λ_reg − 1 (so the first update removes λ_reg·P_{G⊥}θ) and, after each
    projection, becomes (λ + 1)/γ_reg − 1 (the next one removes γ_reg times as much). A
    projection happens every ``period`` epochs except in the last ``final_descent`` ones (λ = ∞).
    λ grows like γ_reg^-j: one past the working range's top (after ~128 projections at γ_reg = 0.5) is
    kept at exactly 3.4028234663852886e38 (float32's largest number, the top itself), whose projection
    removes under 3e-39 of P_{G⊥}θ (the same nothing, still counted as a projection); it never becomes
    an overflowed ∞ (which would mean "no projection").

    >>> strength_schedule(0.5, 0.5, 4, final_descent=1)
    (1.0, 3.0, 7.0, inf)
    """
    # np.float32 and Fraction (real numbers) were refused "must be in (0, 1]" by an int | float check
    if isinstance(lambda_reg, bool | np.bool_) or not isinstance(lambda_reg, numbers.Real) or \
            not 0 < lambda_reg <= 1:
        raise ValueError(f"lambda_reg must be in (0, 1], got {lambda_reg!r}")
    if isinstance(gamma_reg, bool | np.bool_) or not isinstance(gamma_reg, numbers.Real) or \
            not 0 < gamma_reg <= 1:
        raise ValueError(f"gamma_reg must be in (0, 1], got {gamma_reg!r}")
    # > 0: 1e-39 acted as the 0 each excludes; on the value given (Fraction(1, 10**400) became 0.0, then a
    # ZeroDivisionError)
    lambda_reg, gamma_reg = check_positive("lambda_reg", lambda_reg), check_positive("gamma_reg", gamma_reg)
    checks = (("epochs", epochs, 1), ("period", period, 1), ("final_descent", final_descent, 0))
    for name, value, low in checks:  # the schedule is a tuple of `epochs` entries: 10**9 was a build of hours
        check_count(name, value, low, MAX_EPOCHS, "the schedule holds one λ per epoch")
    if final_descent > epochs:  # more descent-only epochs than epochs: no projection would be left
        raise ValueError(f"final_descent must be <= epochs = {epochs}, got {final_descent}")
    strengths = _strengths(lambda_reg, gamma_reg)
    schedule = []
    for t in range(epochs):
        if t < epochs - final_descent and t % period == 0:
            schedule.append(next(strengths))
        else:
            schedule.append(math.inf)
    return tuple(schedule)


#: bits kept of P_j = λ_reg·γ^j (the rounding of 10**6 projections stays far below a float's last bit)
_STRENGTH_BITS = 192


def _strengths(lambda_reg: float, gamma_reg: float) -> Iterator[float]:
    """λ_j = 1/(λ_reg γ^j) − 1, j = 0, 1, ..., each the float nearest the exact value, capped at 3.4e38.

    P_j = λ_reg γ^j is kept as an integer over a power of two (truncated to ``_STRENGTH_BITS`` bits), and
    λ_j = (1 − P_j)/P_j is one correctly rounded integer division: the float recurrence (λ + 1)/γ − 1
    cancelled (γ = 1 − 1.1e-16 gave 2.2e-16 for 1.1e-16) and drifted by one rounding per projection."""
    num, den = lambda_reg.as_integer_ratio()
    g_num, g_den = gamma_reg.as_integer_ratio()
    shift, g_shift = den.bit_length() - 1, g_den.bit_length() - 1  # both denominators are powers of two
    while True:
        lam = ((1 << shift) - num) / num
        if lam >= WORKING_MAX:  # past the range: the same nothing (see strength_schedule), for good
            while True:
                yield WORKING_MAX
        yield lam
        num, shift = num * g_num, shift + g_shift
        extra = num.bit_length() - _STRENGTH_BITS
        if extra > 0:  # truncating P only raises λ, by under 2**-190 relative per projection
            num, shift = num >> extra, shift - extra


@dataclass(frozen=True)
class MinNormOG(Algorithm):
    """MinNorm-OG with schedule ``lambda_schedule``, ``n_pert`` gradients per projection, step ``lr``.

    ``lambda_schedule``: one λ >= 0 (or ``math.inf``: no projection; a finite λ at most
    3.4e38) for every iteration, or a non-empty
    tuple (a list is kept as a tuple) of them, λ_t for iteration t, the last repeating;
    ``n_pert``: a positive int (at most the retain size is used) or None (all of D_r);
    ``lr`` 0 or at least 1.18e-38, at most 3.4e38 (a step size; 0: projections only); ``optimizer`` "sgd" or
    "adam". Each projection is :func:`orthogonal_gradient_step`'s, with its numerical-rank cut (gradient
    directions at or below max(1e-10, max(k, d)·eps) of the largest singular value count as zero, k the
    gradients, d the parameters, eps the dtype's machine epsilon: 2.2e-16 in float64, 1.2e-7 in float32).
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    """

    lambda_schedule: float | tuple[float, ...] = 0.0
    n_pert: int | None = None
    lr: float = 0.0
    optimizer: str = "sgd"

    def __post_init__(self) -> None:
        schedule = self.lambda_schedule
        if isinstance(schedule, tuple | list):
            if len(schedule) == 0:
                raise ValueError("lambda_schedule must be a float or a non-empty tuple of floats")
            checked = tuple(_check_lambda(f"lambda_schedule[{t}]", v) for t, v in enumerate(schedule))
            object.__setattr__(self, "lambda_schedule", checked)
        else:
            object.__setattr__(self, "lambda_schedule", _check_lambda("lambda_schedule", schedule))
        if self.n_pert is not None:  # the shared count check: np.int64(2) was refused as "not an int"
            object.__setattr__(self, "n_pert", check_count("n_pert", self.n_pert, 1))
        object.__setattr__(self, "lr", check_descent_hyperparameters(self.lr, self.optimizer))

    def projects_after(self, t: int) -> bool:
        """Whether some iteration after ``t`` projects (λ < ∞; the last entry of a tuple repeats)."""
        t = check_int_at_least("t", t, 0, size=False)  # an iteration index: -1 read the schedule's end
        if isinstance(self.lambda_schedule, tuple):
            return any(not math.isinf(v) for v in self.lambda_schedule[t + 1:] or self.lambda_schedule[-1:])
        return not math.isinf(self.lambda_schedule)

    def lam(self, t: int) -> float:
        """λ_t (the last entry of a tuple schedule repeats); t an iteration index >= 0."""
        t = check_int_at_least("t", t, 0, size=False)
        if isinstance(self.lambda_schedule, tuple):
            return self.lambda_schedule[min(t, len(self.lambda_schedule) - 1)]
        return self.lambda_schedule


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: MinNormOG, options: SolveOptions) -> Solution:
    rng = np.random.default_rng(options.seed)
    X_retain = problem.retain[0]

    def project(theta: torch.Tensor, t: int, stats: UnlearningStats) -> torch.Tensor:
        lam = algorithm.lam(t)
        if math.isinf(lam):
            return theta
        X = X_retain
        if algorithm.n_pert is not None and algorithm.n_pert < problem.n_retain:
            X = X_retain[torch.as_tensor(rng.choice(problem.n_retain, algorithm.n_pert, replace=False))]
        stats.projections += 1
        gradients = problem.jacobian(theta, X)
        if not bool(torch.isfinite(gradients).all()):  # overflowing model gradients: reported as Diverged
            return torch.full_like(theta, math.nan)
        return _project(theta, gradients, lam)

    return run_descent(problem, algorithm, options, start_theta=problem.params,
                       objective=lambda theta, _t: problem.loss(theta, problem.retain),
                       default_maxiters=1000, default_tol=1e-10, before_step=project, criterion="step",
                       may_stop=lambda t: not math.isinf(algorithm.lam(t)) or not algorithm.projects_after(t))
