"""Plug-and-play ADMM, with or without the NPN term.

Scaled ADMM on ½‖Hx − y‖² + γ/2‖G(y) − Sx‖² + h(z) subject to x = z, penalty β = ``penalty``:

    x_{k+1} = argmin_x ½‖Hx − y‖² + γ/2‖Sx − G(y)‖² + β/2‖x − z_k + u_k‖²
            (the normal equations (HᵀH + γSᵀS + βI) x = Hᵀy + γSᵀG(y) + β(z_k − u_k), by
             conjugate gradients, ``cg_iters`` steps warm-started at x_k),
    z_{k+1} = D(x_{k+1} + u_k)      (the prior's prox with step 1/β),
    u_{k+1} = u_k + x_{k+1} − z_{k+1},          z_0 = u_0 = 0,

the γ-terms present only when ``npn`` is given (the released code's stacked [H; S] with
weights [1, γ]). Convergence criterion: primal residual ‖x − z‖ and change ‖z_{k+1} − z_k‖,
each relative to ‖z‖ (floored at the smallest normal float), both ≤ ``tol`` (default 1e-5) ->
``Success``; cap ``maxiters`` (default 300) -> ``MaxIters``; a non-finite iterate or
‖z‖ > 1e8·s -> ``Diverged`` (s the data's scale, as in PnPPGD). ``sol.x`` = z (numpy, y's dtype).
Records (``callback``, ``store_trace``): one per iteration (``iteration`` = 1, ..., n, ``primal_residual``,
``residual``); a callback's True stops after that iteration with ``Terminated``, also on the iteration that
met ``tol``.

References
----------
Jacome et al., NPN, NeurIPS 2025, arXiv:2510.01608 (eq. (2); PnP-ADMM in Appendix A.11).
Boyd et al., Distributed optimization and statistical learning via ADMM (2011).

>>> import torch
>>> from algorithms import solve
>>> from algorithms.imaging import Blur, InverseProblem, PnPADMM, TVPrior
>>> H = Blur((8, 8), 1.0)
>>> x = torch.zeros(8, 8, dtype=torch.float64); x[2:6, 2:6] = 1.0
>>> solve(InverseProblem(H, H(x)), PnPADMM(prior=TVPrior(weight=1e-2), penalty=0.5)).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from algorithms._validation import (
    check_positive,
    check_positive_int,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch
from algorithms.imaging._common import (
    _TINY,
    blow_up_threshold,
    check_image,
    check_npn,
    check_prior,
    check_problem,
    check_prox_budget,
    final_value,
    norm,
    prepare,
)
from algorithms.imaging.problems import NPN, InverseProblem

__all__ = ["PnPADMM"]


#: the conjugate-gradient steps of one x-step at most (as TVPrior's inner iterations)
MAX_CG_ITERS = 10**5


@dataclass(frozen=True)
class PnPADMM(Algorithm):
    """PnP-ADMM: a quadratic x-step (data fit and NPN term), the prior's prox as the z-step.

    ``prior`` is the plug-and-play prior (its prox is the z-step), ``penalty`` (a float in the working range
    [1.18e-38, 3.4e38]: the prox step is 1/penalty, and a denormal such as 1e-320 made it inf) the ADMM
    penalty ρ, ``npn`` an :class:`NPN` term (None: plain PnP) and ``cg_iters`` (an int in [1, 10**5]) the
    conjugate-gradient steps of each x-step.
    """

    prior: Any
    penalty: float = 1.0
    npn: NPN | None = None
    cg_iters: int = 20

    def __post_init__(self) -> None:
        check_prior(self.prior)
        # the working range keeps the prox step 1/penalty <= 8.5e37 (a denormal 1e-320 made it inf)
        object.__setattr__(self, "penalty", check_positive("penalty", self.penalty))
        check_npn(self.npn)
        object.__setattr__(self, "cg_iters", check_positive_int("cg_iters", self.cg_iters))  # np ints too
        if self.cg_iters > MAX_CG_ITERS:  # 2**63 − 1 was taken: every x-step ran for ever
            raise ValueError(f"cg_iters must be <= {MAX_CG_ITERS} conjugate-gradient steps per x-step, got "
                             f"{self.cg_iters}")
        remember_validated(self)

    def _normal(self, problem: InverseProblem, x: torch.Tensor) -> torch.Tensor:
        # the unchecked maps: a CG iterate that overflowed must reach the solve's Diverged, not an error
        H = problem.operator
        out = H.apply_adjoint(H.apply(x)) + self.penalty * x
        if self.npn is not None:
            S = self.npn.projection
            out = out + self.npn.gamma * S.apply_adjoint(S.apply(x))
        return out

    def x_step(self, problem: InverseProblem, x: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
        """``cg_iters`` conjugate-gradient steps on the x-step's normal equations, from ``x``; an early
        exit only at an exactly zero residual (the start solves them), no absolute threshold, so the step
        is scale-free: ``x_step(c·x, c·rhs) = c·x_step(x, rhs)`` (a threshold ‖r‖² <= 1e-30 returned the
        start untouched for every right-hand side below ~1e-15).

        ``problem`` is the :class:`InverseProblem`; ``x`` and ``rhs`` are finite images of the problem's
        ``image_shape`` (dense float32/float64 tensors; a float32 one with a float64 other, or a float64
        ``problem.y``, gives a float64 result by torch's type promotion); entries so large that the solution
        overflows are refused by name.
        """
        revalidate_if_reassigned(self)  # lr/penalty = -1 set through object.__setattr__ ran as given
        check_problem(problem)
        check_image(problem, "x", x)
        check_image(problem, "rhs", rhs)
        out = self._x_step(problem, x, rhs)
        if not bool(torch.isfinite(out).all()):  # x, rhs ~1e300: the solution itself overflows the dtype
            raise ValueError(f"x and rhs have entries too large (max |x| = {float(x.abs().max()):.3g}, max "
                             f"|rhs| = {float(rhs.abs().max()):.3g}), or the operator's map answered "
                             f"NaN/inf: the x-step's solution is not finite in {out.dtype}; rescale them")
        return out

    def _x_step(self, problem: InverseProblem, x: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
        # run on (x, rhs)·2⁻ᵏ, 2ᵏ ~ max(|x|, |rhs|): a power of two, so the iterates are the same bits scaled,
        # but ‖r‖² neither underflows to 0 (rhs ~1e-200 returned the start as "solved") nor overflows to
        # inf (rhs ~1e200 stopped at the first step, returning the start): the step is scale-free
        scale = max(float(x.detach().abs().max()), float(rhs.detach().abs().max())) if x.numel() else 0.0
        if not 0.0 < scale < math.inf:
            return self._cg(problem, x, rhs)
        limit = math.frexp(min(torch.finfo(x.dtype).max, torch.finfo(rhs.dtype).max))[1] - 2
        exponent = max(-limit, min(limit, math.frexp(scale)[1]))
        factor = math.ldexp(1.0, -exponent)
        return self._cg(problem, x * factor, rhs * factor) / factor

    def _cg(self, problem: InverseProblem, x: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
        r = rhs - self._normal(problem, x)
        d = r.clone()
        rr = float((r * r).sum())
        for _ in range(self.cg_iters):
            if rr == 0.0:
                break
            q = self._normal(problem, d)
            curvature = float((d * q).sum())
            if not math.isfinite(curvature) or not math.isfinite(rr):
                # a map that answered NaN/inf (a user's operator failing mid-run) or overflowed: breaking
                # here kept the last finite x, and the run went on to a "Success" that ignored the failure
                return torch.full_like(x, math.nan)
            if curvature <= 0.0:  # dᵀ(HᵀH + βI)d underflowed
                break
            step = rr / curvature
            x = x + step * d
            r = r - step * q
            rr_new = float((r * r).sum())
            d = r + (rr_new / rr) * d
            rr = rr_new
        return x


@_dispatch
def _solve(problem: InverseProblem, algorithm: PnPADMM, options: SolveOptions) -> Solution:
    check_prox_budget(algorithm.prior, options, 300, "PnPADMM")
    prediction = prepare(problem, algorithm.npn, algorithm.prior)
    H, beta = problem.operator, algorithm.penalty
    data_rhs = H.adjoint(problem.y)
    if algorithm.npn is not None:
        data_rhs = data_rhs + algorithm.npn.gamma * algorithm.npn.projection.adjoint(prediction)
    x = torch.zeros(H.image_shape, dtype=problem.y.dtype)
    z, u = x.clone(), x.clone()
    maxiters, tol = options.iterations(300), options.tolerance(1e-5)
    limit = blow_up_threshold(problem, algorithm.prior, algorithm.npn, prediction)
    monitor = IterationMonitor(options, total=maxiters, desc="PnP-ADMM")
    retcode, iterations = RetCode.MaxIters, 0
    try:
        for iterations in range(1, maxiters + 1):
            x = algorithm._x_step(problem, x, data_rhs + beta * (z - u))
            point = x + u  # a blown-up x-step skips the prox (it refuses non-finite images): Diverged below
            z_new = algorithm.prior._prox(point, 1.0 / beta) if bool(torch.isfinite(point).all()) else point
            u = u + x - z_new
            size = norm(z_new)
            if not (bool(torch.isfinite(z_new).all()) and bool(torch.isfinite(u).all())) or size > limit:
                retcode, z = RetCode.Diverged, z_new
                break
            # relative to ‖z‖, floored at the tiniest normal float only: a floor of 1e-12 made the test
            # absolute for images of that size (y scaled by 1e-12 stopped at once)
            scale = max(size, _TINY)
            primal = norm(x - z_new) / scale
            change = norm(z_new - z) / scale
            z = z_new
            # the callback's True first: on a record that also converged it ended Success, against core's
            # "True stops the run with Terminated" (SphericalGD, OverlapFlow, the quantum runs and DQP say so)
            if monitor.record(iteration=iterations, primal_residual=primal, residual=change):
                retcode = RetCode.Terminated
                break
            if max(primal, change) <= tol:
                retcode = RetCode.Success
                break
    finally:
        monitor.close()
    value = final_value(problem, algorithm.prior, algorithm.npn, prediction, z)
    if retcode is RetCode.Success and not math.isfinite(value):  # converged iterates whose objective is not
        retcode = RetCode.Diverged  # finite (an operator's NaN map): no Success carries it, as in PnPPGD
    return Solution(x=z.numpy(), value=value, retcode=retcode, trace=monitor.trace,
                    stats=Stats(iterations=iterations, linear_solves=iterations))
