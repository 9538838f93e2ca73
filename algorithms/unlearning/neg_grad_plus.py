"""NegGradPlus: descend J(θ; D_r) − alpha·J(θ; D_f) from θ* (descent on D_r, ascent on D_f).

The "NGP" baseline of the paper's experiments (NegGrad+ of Kurmanji et al.). Criterion:
‖∇(J_r − alpha J_f)‖ <= tol (default 1e-10), which holds at θ* when θ* interpolates D
(Theorem 1); ``Diverged`` as for :class:`~algorithms.unlearning.NegGrad`. ``alpha`` >= 0.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Theorem 1, Appendix F.1.4); M. Kurmanji, P. Triantafillou,
J. Hayes, E. Triantafillou. Towards unbounded machine unlearning. NeurIPS 2023.

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import NegGradPlus, linear_task
>>> prob = linear_task(n=5, d=8, n_forget=1, seed=0)
>>> bool(torch.equal(solve(prob, NegGradPlus(lr=0.1, alpha=0.5)).x, prob.params))
True
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms._validation import check_nonnegative
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.unlearning.problem import UnlearningProblem, check_descent_hyperparameters, run_descent

__all__ = ["NegGradPlus"]


@dataclass(frozen=True)
class NegGradPlus(Algorithm):
    """Descent on J_r − ``alpha``·J_f from θ* with step ``lr``.

    ``lr`` 0 or at least 1.18e-38 (a step size) and ``alpha`` >= 0 (any value from 0), each at most
    3.4e38 (the working range): ``alpha = 0`` is plain descent on D_r and ``lr = 0`` a run that stays at
    θ*, both valid limits rather than errors. A step that blows the parameters up ends ``Diverged``.
    ``optimizer`` is ``"sgd"`` or ``"adam"`` (the
    update applied to that gradient).
    ``solve``'s ``tol`` (default 1e-10; 1e-5 for a float32 problem) is absolute, in the loss's
    own units: Success once ‖∇ of the objective‖ <= tol before a step (labels scaled by 1e-20 meet it at
    θ* itself; rescale the data or pass a smaller tol).
    """

    lr: float = 1e-2
    alpha: float = 0.1
    optimizer: str = "sgd"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", check_descent_hyperparameters(self.lr, self.optimizer))
        object.__setattr__(self, "alpha", check_nonnegative("alpha", self.alpha))


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: NegGradPlus, options: SolveOptions) -> Solution:
    return run_descent(
        problem, algorithm, options, start_theta=problem.params,
        objective=lambda theta, _t: (problem.loss(theta, problem.retain)
                                     - algorithm.alpha * problem.loss(theta, problem.forget)),
        default_maxiters=1000, default_tol=1e-10)
