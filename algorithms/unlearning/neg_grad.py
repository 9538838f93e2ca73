"""NegGrad: ascend the forget loss from θ*, θ ← θ + lr ∇_θ J(θ; D_f).

The gradient-ascent baseline ("GA") of the paper's experiments. It has no minimum to reach:
its criterion is a stationary forget loss, ‖∇J(θ; D_f)‖ <= tol (default 1e-10), which holds at
once at an interpolator of D (Theorem 1); elsewhere it typically blows up, which is reported
as ``Diverged`` (non-finite iterate, or ‖θ‖ past 1e6·(1 + ‖θ*‖)). ``maxiters`` default 1000.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Theorem 1, Appendix F.1.2); L. Graves, V. Nagisetty,
V. Ganesh. Amnesiac machine learning. AAAI 2021.

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import NegGrad, linear_task
>>> prob = linear_task(n=5, d=8, n_forget=1, seed=0)
>>> bool(torch.equal(solve(prob, NegGrad(lr=0.1)).x, prob.params))
True
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.unlearning.problem import UnlearningProblem, check_descent_hyperparameters, run_descent

__all__ = ["NegGrad"]


@dataclass(frozen=True)
class NegGrad(Algorithm):
    """Gradient ascent on D_f from θ* with step ``lr`` (0 or at least 1.18e-38, at most 3.4e38: a step size
    in the working range, 0 being no step; a step that blows the parameters up ends ``Diverged``, and a
    run whose start already meets the stopping test ends ``Success`` whatever ``lr``).

    ``optimizer`` is ``"sgd"`` or ``"adam"`` (the update applied to that gradient).
    ``solve``'s ``tol`` (default 1e-10; 1e-5 for a float32 problem) is absolute, in the loss's
    own units: Success once ‖∇ of the objective‖ <= tol before a step (labels scaled by 1e-20 meet it at
    θ* itself; rescale the data or pass a smaller tol).
    """

    lr: float = 1e-2
    optimizer: str = "sgd"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", check_descent_hyperparameters(self.lr, self.optimizer))


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: NegGrad, options: SolveOptions) -> Solution:
    return run_descent(problem, algorithm, options, start_theta=problem.params,
                       objective=lambda theta, _t: -problem.loss(theta, problem.forget),
                       default_maxiters=1000, default_tol=1e-10)
