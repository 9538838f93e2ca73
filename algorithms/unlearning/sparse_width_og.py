"""SparseWidthOG: the relaxed unlearning solve for a two-layer perceptron's width (Theorem 5).

For f(θ, x) = cᵀφ(A x) and R(θ) = number of active neurons, Theorem 5 freezes A (R̃ adds
δ{Δ_A ≠ 0}), so the relaxed constraints read Δ_c ⊥ ∇_c f(θ*, x) = φ(A* x) on D_r; f is linear in
c, so they keep D_r interpolated exactly. We return a basic feasible point: with Φ_r the
(n_r × h) matrix of retained features (from the model gradients, ``torch.func``) and s its rank,
pick s independent neurons by a column-pivoted QR, solve for their output weights and zero the
rest (Lemma 6's kind of construction): the network interpolates D_r with at most s <= n_r
active neurons, the conclusion of Theorem 5. ``prune=True`` (default) also zeroes the rows of A
whose output weight is zero (Proposition 1, Corollary 1, :func:`prune_inactive_neurons`).

Exact ℓ0 minimization is combinatorial; the point returned need not have the fewest neurons,
only at most s (what the theorem guarantees for the relaxed problem's solution).

Direct solver: ``Success`` when every retained row is interpolated to its own scale,
|f(θ, x_i) − y_i| <= tol·(1 + |y_i| + Σ_k |c_k φ(a_k·x_i)|) (default tol 1e-8, float32 1e-4), with at most s
active neurons, ``Failure`` otherwise; ``maxiters=0`` returns θ*.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Section 4.3: Lemma 2, Theorem 5, Proposition 1, Corollary 1).

>>> from algorithms import solve
>>> from algorithms.unlearning import SparseWidthOG, active_neurons, two_layer_task
>>> prob = two_layer_task(n=6, d=3, width=20, n_forget=2, seed=0)
>>> sol = solve(prob, SparseWidthOG())
>>> sol.retcode, active_neurons(prob.model, sol.x) <= 4
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import torch

from algorithms._validation import check_bool, check_float_tensor
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, _dispatch
from algorithms.unlearning.models import TwoLayerPerceptron, check_class_function, check_model_dtype
from algorithms.unlearning.problem import UnlearningProblem, UnlearningStats, finish, rows_within

__all__ = ["SparseWidthOG", "active_neurons", "prune_inactive_neurons"]

#: singular values / pivots at or below this fraction of the largest count as zero (the rank s)
_RANK_RTOL = 1e-10


def _split(model: TwoLayerPerceptron, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(model, TwoLayerPerceptron):
        raise TypeError(f"model must be a TwoLayerPerceptron, got {type(model).__name__}")
    check_model_dtype(model)  # a float16 model counted its neurons in half precision, silently
    if not isinstance(theta, torch.Tensor) or theta.shape != (model.width * (1 + model.in_features),):
        shape = tuple(theta.shape) if isinstance(theta, torch.Tensor) else type(theta).__name__
        raise ValueError(f"theta must be a flat tensor of shape ({model.width * (1 + model.in_features)},) "
                         f"= [c; vec(A)], got {shape}")
    check_float_tensor("theta", theta, allow_half=False)  # a NaN theta counted 0 active neurons, silently
    return theta[:model.width], theta[model.width:].reshape(model.width, model.in_features)


def active_neurons(model: TwoLayerPerceptron, theta: torch.Tensor) -> int:
    """R(θ) = #{i : |c_i|·‖a_i‖ > 0}, the width measure of Section 4.3.

    ``model`` is a :class:`TwoLayerPerceptron` and ``theta`` a finite flat parameter vector of it, float32 or
    float64 (half precision refused; the model's own parameters only fix the layout).

    >>> import torch
    >>> net = TwoLayerPerceptron(in_features=2, width=3, seed=0)
    >>> active_neurons(net, torch.tensor([1.0, 0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]))
    1
    """
    c, A = _split(model, theta)
    # nonzero factors, not their product: |c_i|·‖a_i‖ underflowed to 0 for 1e-200 entries (and ‖a_i‖ squares)
    return int(((c != 0) & (A != 0).any(dim=1)).sum())


def prune_inactive_neurons(model: TwoLayerPerceptron, theta: torch.Tensor) -> torch.Tensor:
    """Proposition 1: zero the rows a_i of A with c_i = 0 (same function, same R, <= R nonzero rows).

    ``model`` is a :class:`TwoLayerPerceptron` and ``theta`` a finite flat parameter vector of it, float32 or
    float64 (half precision refused); the result has ``theta``'s dtype (the model's own parameters only
    fix the layout).

    >>> import torch
    >>> net = TwoLayerPerceptron(in_features=1, width=2, seed=0)
    >>> prune_inactive_neurons(net, torch.tensor([0.0, 1.0, 5.0, 6.0])).tolist()
    [0.0, 1.0, 0.0, 6.0]
    """
    c, A = _split(model, theta)
    return torch.cat([c, (A * (c != 0)[:, None].to(A.dtype)).reshape(-1)])


def sparse_output_weights(features: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, int]:
    """A basic solution c of features·c = y (at most rank(features) nonzeros) and that rank s."""
    Phi = features.detach().cpu().numpy().astype(np.float64)
    _, R, pivots = scipy.linalg.qr(Phi, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    s = int((diag > _RANK_RTOL * diag.max()).sum()) if diag.size and diag.max() > 0 else 0
    c = np.zeros(Phi.shape[1])
    if s:
        chosen = pivots[:s]
        c[chosen] = np.linalg.lstsq(Phi[:, chosen], y.detach().cpu().numpy().astype(np.float64),
                                    rcond=None)[0]
    return torch.from_numpy(c).to(features.dtype), s


@dataclass(frozen=True)
class SparseWidthOG(Algorithm):
    """Theorem 5's relaxed solve (output layer only, ≤ s active neurons); ``prune`` applies Corollary 1.

    The rank s of the retained features has a numerical-rank cut: pivots at or below 1e-10 of the largest
    count as zero (features whose scales differ by more than 1e10 count as dependent).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    prune: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "prune", check_bool("prune", self.prune))


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: SparseWidthOG, options: SolveOptions) -> Solution:
    model = problem.model
    check_class_function("problem.model", model, TwoLayerPerceptron)  # ∇_c f = φ(A x) is its f's structure
    begin = time.perf_counter()
    stats = UnlearningStats()
    monitor = IterationMonitor(options, total=1, desc="SparseWidthOG")
    if options.iterations(1) == 0:
        monitor.close()
        return finish(problem, algorithm, problem.params, RetCode.MaxIters, stats, begin, monitor.trace)
    X, y = problem.retain
    features = problem.jacobian(problem.params, X)[:, :model.width]  # ∇_c f(θ*, x) = φ(A* x)
    c, s = sparse_output_weights(features, y[:, 0])
    theta = problem.params.clone()
    theta[:model.width] = c
    if algorithm.prune:
        theta = prune_inactive_neurons(model, theta)
    finite = bool(torch.isfinite(theta).all())  # a failed solve: NaN residual (predict refuses NaN theta)
    residuals = problem.predict(theta, X) - y if finite else torch.full_like(y, math.nan)
    residual = float(residuals.abs().max())
    # per row, on the row's own scale Σ_k |c_k φ(a_k·x_i)| (the terms its prediction sums): see rows_within
    magnitude = (features.detach().abs() @ c.abs().to(features.dtype))[:, None]
    width = active_neurons(model, theta)
    tol = options.tolerance(1e-8 if problem.dtype == torch.float64 else 1e-4)
    stats.iterations, stats.grad_calls, stats.linear_solves, stats.projections = 1, 1, 1, 1
    monitor.record(iteration=1, interpolation_residual=residual, active_neurons=width, rank=s)
    monitor.close()
    ok = rows_within(residuals, y, magnitude, tol) and width <= s
    retcode = RetCode.Success if ok else RetCode.Failure
    # one pass: a callback's True for the record after the work changes nothing (core's contract)
    return finish(problem, algorithm, theta, retcode, stats, begin,
                  monitor.trace, original={"rank": s, "active_neurons": width})
