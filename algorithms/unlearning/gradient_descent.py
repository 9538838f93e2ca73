"""GradientDescent: descend the retain loss from θ*, θ ← θ − lr ∇_θ J(θ; D_r).

The loss-gradient baseline "GD" of the paper's experiments. At an interpolator of D the
gradient vanishes, so the method does not move (Theorem 1): the convergence criterion
‖∇J(θ; D_r)‖ <= tol (default 1e-10) holds at θ* itself. ``maxiters`` default 1000;
``optimizer`` "sgd" (default) or "adam".

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Definition 1, Theorem 1, Appendix F.1.1); S. Neel, A. Roth,
S. Sharifi-Malvajerdi. Descent-to-delete. ALT 2021.

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import GradientDescent, linear_task
>>> prob = linear_task(n=5, d=8, n_forget=1, seed=0)
>>> sol = solve(prob, GradientDescent(lr=0.1))
>>> sol.retcode, bool(torch.equal(sol.x, prob.params))
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.unlearning.problem import UnlearningProblem, check_descent_hyperparameters, run_descent

__all__ = ["GradientDescent"]


@dataclass(frozen=True)
class GradientDescent(Algorithm):
    """Loss descent on D_r from θ* with step ``lr`` (0 or at least 1.18e-38, at most 3.4e38: a step size in
    the working range, 0 being no step).

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
def _solve(problem: UnlearningProblem, algorithm: GradientDescent, options: SolveOptions) -> Solution:
    return run_descent(problem, algorithm, options, start_theta=problem.params,
                       objective=lambda theta, _t: problem.loss(theta, problem.retain),
                       default_maxiters=1000, default_tol=1e-10)
