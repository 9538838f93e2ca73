"""Plug-and-play proximal gradient descent, with or without the NPN term (paper eq. (4)).

Update rule, with data fit g(x) = ½‖Hx − y‖², step ``lr`` = α and denoiser D (the prior's prox):

    x_{ℓ+1} = D( x_ℓ − α [ Hᵀ(Hx_ℓ − y) + γ Sᵀ(Sx_ℓ − G(y)) ] ),      x_0 = 0,

the γ-term present only when ``npn`` is given (NPN-PnP, Algorithm 3 of the appendix
without the FISTA momentum). Convergence criterion: the relative fixed-point residual
‖x_{ℓ+1} − x_ℓ‖ / ‖x_{ℓ+1}‖ (floored at the smallest normal float) ≤ ``tol`` (default 1e-5)
-> ``Success``; the cap ``maxiters`` (default 500) reached first -> ``MaxIters``; a non-finite
iterate or ‖x‖ > 1e8·s -> ``Diverged``, s = ‖Hᵀy‖ (+ γ‖SᵀG(y)‖ with ``npn``), the data's scale (max(1, s)
for a DenoiserPrior, whose outputs have its training units, and for s = 0).
``sol.x`` is the image (numpy, y's dtype);
``sol.value`` the objective ½‖Hx − y‖² + γ/2‖G(y) − Sx‖² + h(x). Records (``callback``, ``store_trace``): one
per iteration (``iteration`` = 1, ..., n and its ``residual``); a callback's True stops after that iteration
with ``Terminated``, also on the iteration that met ``tol``.

References
----------
Jacome, Gualdrón-Hurtado, Suarez, Arguello. NPN: Non-Linear Projections of the Null-Space for
Imaging Inverse Problems. NeurIPS 2025, arXiv:2510.01608 (eq. (4), Theorem 1, Algorithm 3).

>>> import torch
>>> from algorithms import solve
>>> from algorithms.imaging import Blur, InverseProblem, PnPPGD, TVPrior
>>> H = Blur((8, 8), 1.0)
>>> x = torch.zeros(8, 8, dtype=torch.float64); x[2:6, 2:6] = 1.0
>>> sol = solve(InverseProblem(H, H(x)), PnPPGD(prior=TVPrior(weight=1e-2), lr=1.0))
>>> sol.retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from algorithms._validation import (
    check_positive,
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

__all__ = ["PnPPGD"]


@dataclass(frozen=True)
class PnPPGD(Algorithm):
    """PnP-PGD: a gradient step on the data fit (and the NPN term), then the prior's prox.

    ``prior`` is the plug-and-play prior, ``lr`` (a float in [1.18e-38, 3.4e38], 1.18e-38 float32's smallest
    normal: a subnormal step moves nothing and is refused) the gradient step (one far above
    2/‖H‖² makes the iterates blow up: ``Diverged``, not an error) and ``npn`` an :class:`NPN` term (None:
    plain PnP).
    """

    prior: Any
    lr: float = 1.0
    npn: NPN | None = None

    def __post_init__(self) -> None:
        check_prior(self.prior)
        object.__setattr__(self, "lr", check_positive("lr", self.lr))
        check_npn(self.npn)
        remember_validated(self)

    def step(self, problem: InverseProblem, x: torch.Tensor, prediction: torch.Tensor | None) -> torch.Tensor:
        """One iteration of the update rule from the image ``x`` (finite, shape ``image_shape``, float32 or
        float64; with a float64 ``problem.y`` or ``prediction`` a float32 ``x`` gives a float64 step, by
        torch's type promotion, as the solve's iterate has y's dtype).

        ``problem`` is the :class:`InverseProblem`; ``prediction`` the NPN network's G(y)
        (``npn.predict(problem.y)``; None without an NPN term, and refused with one given then). A step that
        blows up (a non-finite gradient step) is returned as it is, before the prior (the solve then stops
        with ``Diverged``).
        """
        revalidate_if_reassigned(self)  # lr/penalty = -1 set through object.__setattr__ ran as given
        check_problem(problem)
        check_image(problem, "x", x)
        if self.npn is None and prediction is not None:  # it would be ignored in silence
            raise ValueError(f"prediction must be None for a PnPPGD without npn, got "
                             f"{type(prediction).__name__}")
        if self.npn is not None:
            self.npn._check_pair(x, prediction)  # the solve's own steps skip it (their iterate, G(y))
        return self._step(problem, x, prediction)

    def _step(self, problem: InverseProblem, x: torch.Tensor,
              prediction: torch.Tensor | None) -> torch.Tensor:
        H = problem.operator
        grad = H.apply_adjoint(H.apply(x) - problem.y)  # unchecked maps: a blow-up is the solve's Diverged
        if self.npn is not None:
            grad = grad + self.npn._gradient(x, prediction)
        point = x - self.lr * grad
        if not bool(torch.isfinite(point).all()):  # a blown-up step: returned as it is, the solve says
            return point                            # Diverged (the priors' prox refuses non-finite images)
        return self.prior._prox(point, self.lr)     # unchecked: the iterate may leave the working range


@_dispatch
def _solve(problem: InverseProblem, algorithm: PnPPGD, options: SolveOptions) -> Solution:
    check_prox_budget(algorithm.prior, options, 500, "PnPPGD")
    prediction = prepare(problem, algorithm.npn, algorithm.prior)
    x = torch.zeros(problem.operator.image_shape, dtype=problem.y.dtype)
    maxiters, tol = options.iterations(500), options.tolerance(1e-5)
    limit = blow_up_threshold(problem, algorithm.prior, algorithm.npn, prediction)
    monitor = IterationMonitor(options, total=maxiters, desc="PnP-PGD")
    retcode, iterations = RetCode.MaxIters, 0
    try:
        for iterations in range(1, maxiters + 1):
            new = algorithm._step(problem, x, prediction)
            size = norm(new)
            if not bool(torch.isfinite(new).all()) or size > limit:
                retcode, x = RetCode.Diverged, new
                break
            # relative to the iterate's size with only the dtype's tiniest normal as the floor: a floor of
            # 1e-12 made the test absolute for images of that size (y scaled by 1e-12 stopped at once)
            residual = norm(new - x) / max(size, _TINY)
            x = new
            # the callback's True first: on a record that also converged it ended Success (core: Terminated)
            if monitor.record(iteration=iterations, residual=residual):
                retcode = RetCode.Terminated
                break
            if residual <= tol:
                retcode = RetCode.Success
                break
    finally:
        monitor.close()
    value = final_value(problem, algorithm.prior, algorithm.npn, prediction, x)
    return Solution(x=x.numpy(), value=value, retcode=retcode, trace=monitor.trace,
                    stats=Stats(iterations=iterations, grad_calls=iterations))
