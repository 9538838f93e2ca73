"""Pieces shared by the plug-and-play solvers: validation of the prior, the NPN set-up, the objective."""

from __future__ import annotations

import math
from typing import Any

import torch

from algorithms._validation import check_finite_data
from algorithms.core import SolveOptions
from algorithms.imaging.priors import DenoiserPrior, SubspacePrior, TVPrior
from algorithms.imaging.problems import NPN, InverseProblem

PRIORS = (TVPrior, DenoiserPrior, SubspacePrior)

#: an iterate with ‖x‖ > DIVERGENCE · max(1, ‖Hᵀy‖) counts as a blow-up (``Diverged``)
DIVERGENCE = 1e8
#: the floor of the solvers' relative residuals: float64's smallest normal number (a float32 image's norm is
#: a float64 here), so the residual stays relative at any image scale
_TINY = float(torch.finfo(torch.float64).tiny)


def norm(t: torch.Tensor) -> float:
    """‖t‖₂ without underflow or overflow of the squares: max|t|·‖t/max|t|‖ (torch's vector_norm sums the
    squares as they are: 0.0 for entries ~1e-200, which made the solvers' relative residuals 0/0 and a
    tiny-scale run stop at once with Success; inf for entries ~1e200). NaN/inf entries give NaN/inf."""
    top = float(t.detach().abs().max()) if t.numel() else 0.0
    if top == 0.0 or not math.isfinite(top):
        return top
    return top * float(torch.linalg.vector_norm(t.detach() / top))


def check_prior(prior: Any) -> None:
    if not isinstance(prior, PRIORS):
        raise TypeError(f"prior must be one of {[p.__name__ for p in PRIORS]}, got {type(prior).__name__}")


def check_npn(npn: Any) -> None:
    if npn is not None and not isinstance(npn, NPN):
        raise TypeError(f"npn must be an algorithms.imaging.NPN or None, got {type(npn).__name__}")


def check_problem(problem: Any) -> None:
    if not isinstance(problem, InverseProblem):  # a str met AttributeError('operator')
        raise TypeError(f"problem must be an algorithms.imaging.InverseProblem, got {type(problem).__name__}")
    problem._check_unchanged()  # a field or the operator's data changed after construction, as a solve does


def check_image(problem: InverseProblem, name: str, x: Any) -> None:
    """One image of the problem's ``image_shape``: a dense float32/float64 tensor with finite entries (the
    public single-step methods; the solves pass their own iterates to the unchecked steps)."""
    shape = problem.operator.image_shape
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.float32, torch.float64) \
            or x.layout != torch.strided:
        raise TypeError(f"{name} must be a dense float32 or float64 torch.Tensor of shape {shape} (one "
                        f"image), got {type(x).__name__} {getattr(x, 'dtype', '')}")
    if tuple(x.shape) != shape:
        raise ValueError(f"{name} must be one image of shape {shape} (the operator's image_shape), got "
                         f"{tuple(x.shape)}")
    check_finite_data(name, x, check_range=False)  # an iterate: a diverging one may pass 3.4e38


def prepare(problem: InverseProblem, npn: NPN | None, prior: Any = None) -> torch.Tensor | None:
    """G(y) for the NPN term (after checking S against H), or None without one; a subspace prior's basis
    written in place since construction refused first."""
    if isinstance(prior, SubspacePrior):
        prior._check_written()
    if npn is None:
        return None
    npn.projection._check_data("npn.projection")  # written in place after construction
    npn.check_against(problem.operator)
    return npn.predict(problem.y)


def objective(problem: InverseProblem, prior: Any, npn: NPN | None, prediction: torch.Tensor | None,
              x: torch.Tensor) -> float:
    """½‖Hx − y‖² + γ/2‖G(y) − Sx‖² + h(x) (h = the prior's penalty; 0 for a denoiser)."""
    # in float64 and through the unchecked maps: x is the solver's own iterate (a float32 run's residual
    # squared past 3.4e38 gave inf; an iterate past the working range met the user-input check naming "x")
    value = 0.5 * float(((problem.operator.apply(x) - problem.y).double() ** 2).sum()) + prior._value(x)
    if npn is not None:
        value += npn._value(x, prediction)
    return value


def final_value(problem: InverseProblem, prior: Any, npn: NPN | None, prediction: torch.Tensor | None,
                x: torch.Tensor) -> float:
    """The solve's reported objective at ``x``: NaN for a non-finite ``x``, inf where it overflows float64
    (a ``Diverged`` run's blown-up iterate)."""
    if not bool(torch.isfinite(x).all()):
        return float("nan")
    return objective(problem, prior, npn, prediction, x)


#: the most TV dual iterations (inner × iterations) a solve runs on its default iteration cap: 10**6 take a
#: minute or two; TVPrior(inner=10**5) at PnP-PGD's default 500 iterations ran for an hour
DEFAULT_PROX_BUDGET = 10**6


def check_prox_budget(prior: Any, options: SolveOptions, default_maxiters: int, owner: str) -> None:
    """A TV prior's ``inner`` times the default iteration cap past DEFAULT_PROX_BUDGET, with ``maxiters`` not
    given, is a hang: refused naming inner (an explicit ``maxiters`` is the caller's choice of cost)."""
    if options.maxiters is None and isinstance(prior, TVPrior) and \
            prior.inner * default_maxiters > DEFAULT_PROX_BUDGET:
        raise ValueError(f"prior.inner = {prior.inner} is too large for {owner}'s default {default_maxiters} "
                         f"iterations: {prior.inner * default_maxiters} TV dual iterations in all (at most "
                         f"{DEFAULT_PROX_BUDGET} without maxiters; inner = 10**5 ran for an hour); pass "
                         f"maxiters or a smaller inner")


def blow_up_threshold(problem: InverseProblem, prior: Any = None, npn: NPN | None = None,
                      prediction: torch.Tensor | None = None) -> float:
    """DIVERGENCE times the data's scale s = ‖Hᵀy‖ (+ γ‖SᵀG(y)‖ with an NPN term), the norm of the first
    gradient step's direction. Relative for the TV and subspace priors, whose iterates scale with the data:
    the floor max(1, s) let a run on data of size 1e-30 grow by 1e38 and end MaxIters, where the same run in
    unit scale was Diverged. A denoiser's outputs have the units it was trained in, so it keeps the floor 1;
    s = 0 (y = 0, no NPN term) keeps it too (no scale to be relative to)."""
    scale = norm(problem.operator.adjoint(problem.y))
    if npn is not None and prediction is not None:
        scale += npn.gamma * norm(npn.projection.adjoint(prediction))
    if isinstance(prior, DenoiserPrior) or scale == 0.0:
        return DIVERGENCE * max(1.0, scale)
    return DIVERGENCE * scale
