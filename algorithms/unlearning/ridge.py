"""Ridge: descend J(θ; D_r) + λ_t‖θ‖² from θ*, with λ_t = lam·gamma^t shrinking toward 0.

The ridge baseline of the paper's experiments: as λ -> 0 the ridge minimizer tends to the
minimum-norm interpolator (the ridgeless limit), the unlearning target for R(θ) = ‖θ‖².
Criterion: ‖∇(J_r + λ_t‖θ‖²)‖ <= tol (default 1e-10); ``maxiters`` default 1000.
``lam`` >= 0, ``gamma`` in (0, 1].

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Section 5.1, Appendix F.1.5).

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import Ridge, linear_task
>>> prob = linear_task(n=5, d=8, n_forget=1, seed=0)
>>> sol = solve(prob, Ridge(lr=0.1, lam=0.1, gamma=0.99), maxiters=5000, tol=1e-8)
>>> sol.retcode, sol.stats.distance_to_retrain < 0.05
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms._validation import check_finite_real, check_nonnegative, check_working_range
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.unlearning.problem import UnlearningProblem, check_descent_hyperparameters, run_descent

__all__ = ["Ridge"]


@dataclass(frozen=True)
class Ridge(Algorithm):
    """Ridge-regularized descent on D_r with weight ``lam``·``gamma``^t and step ``lr``.

    ``lr`` 0 or at least 1.18e-38, at most 3.4e38 (a step size: 0 is no step), ``lam`` >= 0, any value
    from 0 to 3.4e38 (``lam = 0``: no ridge term, plain descent on D_r), ``gamma`` in (0, 1] and at least
    1.18e-38 (a positive scale).
    ``optimizer`` is ``"sgd"`` or ``"adam"`` (the update applied to that gradient).
    ``solve``'s ``tol`` (default 1e-10; 1e-5 for a float32 problem) is absolute, in the loss's
    own units: Success once ‖∇ of the objective‖ <= tol before a step (labels scaled by 1e-20 meet it at
    θ* itself; rescale the data or pass a smaller tol).
    """

    lr: float = 1e-2
    lam: float = 1e-2
    gamma: float = 1.0
    optimizer: str = "sgd"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", check_descent_hyperparameters(self.lr, self.optimizer))
        object.__setattr__(self, "lam", check_nonnegative("lam", self.lam))
        gamma = check_finite_real("gamma", self.gamma)  # -1 was "must be finite and >= 0", not gamma's domain
        if not 0 < gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma!r}")
        check_working_range("gamma", gamma)  # > 0: a positive scale (1e-39 acted as the 0 it excludes)
        object.__setattr__(self, "gamma", gamma)


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: Ridge, options: SolveOptions) -> Solution:
    return run_descent(
        problem, algorithm, options, start_theta=problem.params,
        objective=lambda theta, t: (problem.loss(theta, problem.retain)
                                    + algorithm.lam * algorithm.gamma**t * (theta**2).sum()),
        default_maxiters=1000, default_tol=1e-10)
