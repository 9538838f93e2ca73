"""DeepLinearOG: the exact relaxed unlearning solve for an L-layer linear network (Theorems 3-4).

For f(θ, x) = cᵀA_{L-1}⋯A_1 x with effective predictor w(θ) = A_1ᵀ⋯A_{L-1}ᵀc, relaxed problem
(7) with R̃(θ* + Δ) = ‖w(θ* + Δ)‖² + δ{Δ moves anything but A_1} (Theorem 3) reads

    min_Δ ‖(A_1* + Δ_{A_1})ᵀ u + ...‖² = ‖w(θ*) + Δ_{A_1}ᵀ u‖²  s.t.  ⟨Δ_{A_1}, ∇_{A_1} f(θ*, x)⟩ = 0 on D_r,

with u = A_2ᵀ⋯A_{L-1}ᵀ c*: a least-squares problem over the null space of the stacked
first-layer model gradients (computed with ``torch.func``), solved by an SVD and a minimum-norm
least-squares solve. Theorem 3: its solution's predictor is the minimum-norm interpolator of
D_r. ``complexity="parameter"`` then re-factors that predictor as the balanced rank-one network
of Theorem 4 (:func:`balanced_factorization`), the minimum-‖θ‖² interpolator of D_r.
:func:`lemma1_perturbation` is Lemma 1's explicit feasible perturbation.

Direct solver: ``Success`` when the result interpolates every retained row to its own scale,
|f(θ, x_i) − y_i| <= tol·(1 + |y_i| + ‖x_i‖·‖w(θ)‖) (default tol 1e-8 in float64, 1e-4 in float32; a
row with a small label is not excused by another's large one), ``Failure`` otherwise; ``maxiters=0``
returns θ* (MaxIters).

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Section 4.2: Lemma 1, Theorems 3 and 4).

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import DeepLinearOG, deep_linear_task, effective_predictor
>>> prob = deep_linear_task(n=4, d=7, widths=(3, 3), n_forget=1, seed=0)
>>> sol = solve(prob, DeepLinearOG())
>>> sol.retcode, sol.stats.distance_to_retrain < 1e-10
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from algorithms._validation import check_finite_data, check_float_tensor
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, _dispatch
from algorithms.unlearning.models import (
    DeepLinear,
    check_class_function,
    check_model_dtype,
    effective_predictor,
)
from algorithms.unlearning.problem import (
    UnlearningProblem,
    UnlearningStats,
    checked_problem,
    finish,
    norm,
    rows_within,
)

__all__ = ["DeepLinearOG", "balanced_factorization", "lemma1_perturbation"]

#: singular values at or below this fraction of the largest are zero (null spaces, ranks)
_RANK_RTOL = 1e-10


def _require_deep_linear(problem: UnlearningProblem) -> DeepLinear:
    checked_problem(problem)    # data edited in place since construction (NaN gave a NaN Δ) refused by name
    check_class_function("problem.model", problem.model, DeepLinear)  # a subclass's f: Theorem 3 is not its
    return problem.model


def _first_layer_slice(model: DeepLinear) -> slice:
    start = model.widths[-1]  # θ = [c; vec(A_1); ...]
    return slice(start, start + model.widths[0] * model.in_features)


def _downstream(params: dict[str, torch.Tensor], depth: int) -> torch.Tensor:
    """u = A_2ᵀ⋯A_{L-1}ᵀ c, so that w(θ) = A_1ᵀ u."""
    u = params["c"]
    for layer in range(depth - 1, 1, -1):
        u = params[f"A{layer}"].T @ u
    return u


def lemma1_perturbation(problem: UnlearningProblem) -> torch.Tensor:
    """Lemma 1's Δ (flat): Δ_{A_1} = −u (P_{S_r⊥} w(θ*))ᵀ / ‖u‖², every other block zero.

    ``problem`` is an :class:`UnlearningProblem` whose model is a :class:`DeepLinear`, checked as a solve
    checks it (retain/forget data changed in place since construction, NaN or inf included, raise ValueError
    naming it).

    Raises when u = A_2ᵀ⋯c* vanishes (then no first-layer perturbation changes w).
    """
    model = _require_deep_linear(problem)
    params = problem.unflatten(problem.params)
    u = _downstream(params, model.depth)
    size = norm(u)  # in float64: float32 u·u was 0 for u ~ 1e-25 (a nonzero u refused), inf past 1e19
    if size == 0.0:
        raise ValueError("problem.params must have u = A_2ᵀ⋯A_{L-1}ᵀc ≠ 0 for Lemma 1's perturbation")
    X = problem.retain[0]
    w = effective_predictor(model, params)
    orthogonal = w - torch.linalg.pinv(X) @ (X @ w)  # P_{S_r⊥} w with S_r = row(X_r)
    delta = torch.zeros_like(problem.params)
    # −(u/‖u‖)(P⊥w/‖u‖)ᵀ: each factor at its own scale, no ‖u‖² formed
    delta[_first_layer_slice(model)] = (-torch.outer(u / size, orthogonal / size)).reshape(-1)
    return delta


def balanced_factorization(model: DeepLinear, predictor: torch.Tensor) -> torch.Tensor:
    """Theorem 4's network (flat θ) with effective predictor ``predictor`` and least ‖θ‖².

    ``model`` is the :class:`DeepLinear` whose layout θ follows; ``predictor`` a finite vector of length
    ``model.in_features``, float32 or float64 (half precision refused): θ has ``predictor``'s dtype.

    With ρ = ‖w‖ and s = ρ^{1/L}: c = s e_1, A_ℓ = s e_1 e_1ᵀ (ℓ >= 2), A_1 = s e_1 (w/ρ)ᵀ; then
    w(θ) = w and ‖θ‖² = L ρ^{2/L} (the unit vectors v_ℓ of the theorem are taken as e_1).

    >>> import torch
    >>> net = DeepLinear(in_features=3, widths=(2, 2), seed=0)
    >>> w = torch.tensor([3.0, 0.0, 4.0], dtype=torch.float64)
    >>> theta = balanced_factorization(net, w)
    >>> round(float(theta @ theta), 6), round(3 * 5.0 ** (2 / 3), 6)
    (8.772053, 8.772053)
    """
    check_class_function("model", model, DeepLinear)
    check_model_dtype(model)  # a float16 model: half-precision layout, silently
    for key, param in model.named_parameters():  # a NaN-weight model was factorized as if it were valid
        check_finite_data(f"model.{key}", param)
    if not isinstance(predictor, torch.Tensor) or predictor.shape != (model.in_features,):
        shape = tuple(predictor.shape) if isinstance(predictor, torch.Tensor) else type(predictor).__name__
        raise ValueError(f"predictor must be a torch tensor of shape ({model.in_features},), got {shape}")
    check_float_tensor("predictor", predictor, allow_half=False)  # NaN would give a NaN network silently
    # ‖w/max|w|‖ times max|w|: ‖w‖ squared 1e-200 to 0, and a nonzero predictor was factorized as θ = 0
    # in float64, cast at the end: a float32 w near float32's top had ρ = ‖w‖ = inf, θ = inf (s = ρ^(1/L) fit)
    w64 = predictor.to(torch.float64)
    largest = w64.abs().max()
    unit = w64 / largest if float(largest) > 0 else torch.zeros_like(w64)
    rho = largest * torch.linalg.vector_norm(unit)
    scale = float(rho ** (1.0 / model.depth))
    direction = (unit / torch.linalg.vector_norm(unit) if float(largest) > 0 else unit).to(predictor.dtype)
    blocks = []
    c = torch.zeros(model.widths[-1], dtype=predictor.dtype)
    c[0] = scale
    blocks.append(c)
    sizes = (model.in_features, *model.widths)
    for layer in range(1, model.depth):
        A = torch.zeros(sizes[layer], sizes[layer - 1], dtype=predictor.dtype)
        if layer == 1:
            A[0] = (scale * direction.to(torch.float64)).to(predictor.dtype)
        else:
            A[0, 0] = scale
        blocks.append(A.reshape(-1))
    return torch.cat(blocks)


def relaxed_first_layer_solve(problem: UnlearningProblem) -> torch.Tensor:
    """θ* + Δ with Δ solving Theorem 3's relaxed problem (only A_1 moves), by least squares."""
    model = _require_deep_linear(problem)
    params = problem.unflatten(problem.params)
    block = _first_layer_slice(model)
    gradients = problem.jacobian(problem.params, problem.retain[0])[:, block]
    u = _downstream(params, model.depth)
    # w(θ* + Δ) = w* + Δ_{A_1}ᵀ u = w* + M vec(Δ_{A_1}), vec row-major as torch flattens A_1
    M = torch.kron(u[None, :], torch.eye(model.in_features, dtype=u.dtype))
    _, singular, vh = torch.linalg.svd(gradients, full_matrices=True)
    rank = int((singular > _RANK_RTOL * singular.max()).sum()) if singular.numel() else 0
    null = vh[rank:].T
    w = effective_predictor(model, params)
    z = torch.linalg.lstsq(M @ null, -w[:, None], driver="gelsd").solution[:, 0]
    theta = problem.params.clone()
    theta[block] += null @ z
    return theta


@dataclass(frozen=True)
class DeepLinearOG(Algorithm):
    """Theorem 3's relaxed solve (``complexity="predictor"``), or with Theorem 4's re-factoring
    (``complexity="parameter"``), for a :class:`~algorithms.unlearning.DeepLinear` model.

    The retained gradients' span has a numerical-rank cut: singular values at or below 1e-10 of the largest
    count as zero (gradients whose scales differ by more than 1e10 span the larger directions only).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    complexity: str = "predictor"

    def __post_init__(self) -> None:
        if self.complexity not in ("predictor", "parameter"):
            raise ValueError(f"complexity must be one of ['parameter', 'predictor'], got {self.complexity!r}")


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: DeepLinearOG, options: SolveOptions) -> Solution:
    model = _require_deep_linear(problem)
    begin = time.perf_counter()
    stats = UnlearningStats()
    monitor = IterationMonitor(options, total=1, desc="DeepLinearOG")
    if options.iterations(1) == 0:
        monitor.close()
        return finish(problem, algorithm, problem.params, RetCode.MaxIters, stats, begin, monitor.trace)
    theta = relaxed_first_layer_solve(problem)
    if algorithm.complexity == "parameter":
        theta = balanced_factorization(model, effective_predictor(model, problem.unflatten(theta)))
    X, y = problem.retain
    finite = bool(torch.isfinite(theta).all())  # a failed solve: NaN residual (predict refuses NaN theta)
    residuals = problem.predict(theta, X) - y if finite else torch.full_like(y, math.nan)
    residual = float(residuals.abs().max())
    tol = options.tolerance(1e-8 if problem.dtype == torch.float64 else 1e-4)
    stats.iterations, stats.grad_calls, stats.linear_solves, stats.projections = 1, 1, 1, 1
    monitor.record(iteration=1, interpolation_residual=residual)
    monitor.close()
    # per row, on the row's own scale (‖x_i‖·‖w‖ bounds the terms of x_i·w): see rows_within
    magnitude = torch.zeros_like(y) if not finite else (
        torch.linalg.vector_norm(X.to(torch.float64), dim=1, keepdim=True)
        * norm(effective_predictor(model, problem.unflatten(theta))))
    retcode = RetCode.Success if rows_within(residuals, y, magnitude, tol) else RetCode.Failure
    # one pass: a callback's True for the record after the work changes nothing (core's contract)
    return finish(problem, algorithm, theta, retcode, stats, begin, monitor.trace)
