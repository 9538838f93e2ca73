"""Retrain: the gold standard, training on the retain set alone.

For a :class:`~algorithms.unlearning.LinearModel` the answer is closed form: the minimum-norm
least-squares solution pinv(X_r) y_r, the limit of gradient descent from 0 (Proposition 2 of the
paper's Appendix C) and the exact unlearning target of problem (4) with R(θ) = ‖θ‖². It is
checked by the normal equations, each on its own scale, |X_rᵀ(X_r θ − y_r)|_j <= tol·(1 + (|X_r|ᵀ(|y_r| +
|X_r||θ|))_j) for every j (default tol 1e-10; a huge row does not excuse another's misfit), before it is
called ``Success`` (``Failure`` otherwise). The closed form is LinearModel's own f: a
subclass overriding ``forward`` (or a forward hook that changes the outputs) is another f and is retrained
by descent, as below.

For any other model, training restarts from the model's own registered parameters (the fresh
initialization, not θ*) and descends J(θ; D_r) with ``optimizer`` ("adam" by default, as the
paper's experiments) at rate ``lr``: ``Success`` once ‖∇J‖ <= tol (default 1e-6), ``maxiters``
default 1000.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Section 5.1, Appendix F.1.1).

>>> import torch
>>> from algorithms import solve
>>> from algorithms.unlearning import Retrain, linear_task
>>> prob = linear_task(n=5, d=8, n_forget=1, seed=0)
>>> sol = solve(prob, Retrain())
>>> sol.retcode, sol.stats.distance_to_retrain == 0.0
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, _dispatch
from algorithms.unlearning.models import LinearModel, computes_class_function
from algorithms.unlearning.problem import (
    UnlearningProblem,
    UnlearningStats,
    check_descent_hyperparameters,
    finish,
    norm,
    retrained_min_norm,
    run_descent,
)

__all__ = ["Retrain"]


@dataclass(frozen=True)
class Retrain(Algorithm):
    """Retrain on D_r: closed-form minimum norm for linear models, else from the fresh init at rate ``lr``
    (0 or at least 1.18e-38, at most 3.4e38: ``lr = 0`` returns the fresh initialization itself, a
    diagnostic the tests use; the closed form ignores ``lr``) with ``optimizer`` "adam" or "sgd".

    One pass for ``callback`` on a :class:`~algorithms.unlearning.LinearModel` computing its own f only (the
    closed form; not a subclass overriding ``forward``): it
    is called once, with the final record, after the work is done, so a ``True`` it returns changes
    nothing (the retcode stays the run's own: core's callback rule). On any other model Retrain iterates:
    ``callback`` is called at every record and a ``True`` ends the run ``Terminated`` right after it, as
    in every iterative method.
    """

    lr: float = 1e-2
    optimizer: str = "adam"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", check_descent_hyperparameters(self.lr, self.optimizer))

    def runs_in_one_pass(self, problem: object) -> bool:
        """Whether ``problem`` is solved in one pass: True on a LinearModel (the closed form), False on
        any other model (iterative descent)."""
        return computes_class_function(getattr(problem, "model", None), LinearModel)


@_dispatch
def _solve(problem: UnlearningProblem, algorithm: Retrain, options: SolveOptions) -> Solution:
    if not computes_class_function(problem.model, LinearModel):  # a subclass's own forward: descent
        return run_descent(problem, algorithm, options, start_theta=problem.init_params,
                           objective=lambda theta, _t: problem.loss(theta, problem.retain),
                           default_maxiters=1000, default_tol=1e-6)
    begin = time.perf_counter()
    stats = UnlearningStats()
    monitor = IterationMonitor(options, total=1, desc="Retrain")
    if options.iterations(1) == 0:
        monitor.close()
        return finish(problem, algorithm, problem.params, RetCode.MaxIters, stats, begin, monitor.trace)
    X, y = problem.retain
    theta = retrained_min_norm(problem)
    W = theta.reshape(y.shape[1], -1)
    residuals = X.T @ (X @ W.T - y)
    normal = norm(residuals)
    # each normal equation on its own scale, |X|ᵀ(|y| + |X||W|ᵀ) (the terms it sums): one global
    # ‖X‖²‖θ‖ let a row of 1e17 excuse a dropped row of 1 (Success at a θ that does not fit it)
    X64, W64, y64 = X.to(torch.float64), W.to(torch.float64), y.to(torch.float64)
    scale = X64.abs().T @ (y64.abs() + X64.abs() @ W64.abs().T)
    tol = options.tolerance(1e-10 if problem.dtype == torch.float64 else 1e-5)
    stats.iterations, stats.linear_solves = 1, 1
    monitor.record(iteration=1, normal_residual=normal)
    monitor.close()
    fits = bool(torch.isfinite(residuals).all()) and bool((residuals.abs() <= tol * (1.0 + scale)).all())
    retcode = RetCode.Success if fits else RetCode.Failure
    # one pass: a callback's True for the record after the work changes nothing (core's contract)
    return finish(problem, algorithm, theta, retcode, stats, begin, monitor.trace)
