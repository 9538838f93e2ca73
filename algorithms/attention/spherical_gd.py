"""Projected (Riemannian) gradient descent of softmax attention on the sphere, in torch.

On a seeded training sample (X_i, y_i), i ≤ n, of the problem, with empirical risk
R̂(u, v) = n⁻¹ Σ_i (f(X_i; u, v) − y_i)², each step is

    u ← normalize(u − lr · P⊥_u ∇_u R̂),   v ← normalize(v − lr · P⊥_v ∇_v R̂),   P⊥_w = I − wwᵀ,

the scheme (29) of the paper with R̂ in place of R (its Figure 2 does the same). The trace
holds the overlaps μ, ν, η, ζ, ρ with the oracle at every step.

References
----------
E. Dohmatob. Understanding softmax attention layers: exact mean-field analysis on a toy problem.
NeurIPS 2025, eq. (29), Proposition 8, Figure 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from algorithms._validation import (
    check_positive,
    remember_validated,
)
from algorithms.attention.dynamics import initial_vectors
from algorithms.attention.models import SoftmaxAttention
from algorithms.attention.problem import (
    LINKS,
    SingleLocationProblem,
    check_batch_memory,
    draw_batch,
    overlaps,
)
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch

__all__ = ["SphericalGD"]


#: the largest training sample SphericalGD takes, in token entries n_samples·L·d: 2**26 (512 MiB in float64;
#: the claims' largest is 1000·20·100 = 2e6); every step passes over it
MAX_SAMPLE_ENTRIES = 2**26


@dataclass(frozen=True)
class SphericalGD(Algorithm):
    """Riemannian gradient descent on (u, v) ∈ S^{d−1} × S^{d−1} for the empirical risk.

    ``lr`` the step, a float in [1.18e-38, 3.4e38] (float32's smallest normal: a subnormal one moves
    nothing and is refused naming lr; a huge one makes the run ``Diverged`` or wander); ``link`` the
    student's value link (None: the problem's, known to the learner as in the paper). The training
    sample has ``problem.n_samples`` draws from the solve seed (``seed=None`` is seed 0;
    n_samples·L·d at most MAX_SAMPLE_ENTRIES = 2**26 token entries, else refused by name, naming L when
    one sequence's L·d alone passes it; every step
    passes over them, ~3e-8 s per entry here, so a sample at that cap takes ~2 s a step: pass a maxiters
    for it); the start is (u0, v0) of the problem or uniform unit vectors from the seed. Converged
    (``Success``) when the Riemannian gradient's norm is at most ``tol`` (default 1e-6); a non-finite
    risk or gradient, or a step lr·gradient that overflows, is ``Diverged``; a step that leaves u and v
    unchanged in their dtype (lr·gradient below their rounding, e.g. lr = 1.2e-38) is ``Stalled``; the cap
    (default 3000 steps) is ``MaxIters``.
    The iterates stay on the sphere, so they cannot blow up otherwise.
    Records (``callback``, ``store_trace``): one per iterate, the start included (``iteration`` k = 0, 1,
    ..., so a run of ``stats.iterations`` = n steps has n + 1 records), each with the empirical risk, the
    Riemannian gradient's norm and the overlaps; a callback's True at record k stops there with
    ``Terminated`` (no further step).

    >>> from algorithms import solve
    >>> p = SingleLocationProblem(d=10, L=3, gamma=0.6, n_samples=200)
    >>> sol = solve(p, SphericalGD(lr=0.1), seed=0, maxiters=3000, tol=1e-4)
    >>> sol.retcode, sol.stats.iterations < 3000
    (<RetCode.Success: 'Success'>, True)
    """

    lr: float = 0.1
    link: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "lr", check_positive("lr", self.lr))  # a Python float (np.float32 was kept)
        if self.link is not None and (not isinstance(self.link, str) or self.link not in LINKS):
            raise ValueError(f"link must be None or one of {sorted(LINKS)}, got {self.link!r}")
        if self.link is not None:
            object.__setattr__(self, "link", str(self.link))  # a numpy str_ stored as a str
        remember_validated(self)


def _tangent(grad: torch.Tensor, point: torch.Tensor) -> torch.Tensor:
    return grad - (point @ grad) * point


@_dispatch
def _solve(problem: SingleLocationProblem, algorithm: SphericalGD, options: SolveOptions) -> Solution:
    seed = options.seed or 0
    # first: it names n_samples, L and d (the memory check blamed the default n_samples for a d of 2**24)
    entries = problem.n_samples * problem.L * problem.d
    if problem.L * problem.d > MAX_SAMPLE_ENTRIES:  # one sequence alone: L is the culprit, not n_samples
        raise ValueError(f"problem.L must keep one sequence's L·d <= 2**26 token entries for SphericalGD (it "
                         f"passes over its training sample every step), got L = {problem.L} with d = "
                         f"{problem.d}")
    if entries > MAX_SAMPLE_ENTRIES:  # n_samples = 10**7 at d = 8, L = 4 spent minutes drawing and one pass
        raise ValueError(f"problem.n_samples must keep the training sample's n_samples·L·d <= 2**26 entries "
                         f"(SphericalGD passes over it every step), got n_samples = {problem.n_samples} with "
                         f"L = {problem.L}, d = {problem.d} ({entries} entries)")
    check_batch_memory("SphericalGD", "n_samples", problem.n_samples, problem)
    X, y, _ = draw_batch(problem, problem.n_samples, seed)  # inf labels (ε ~ 3.4e38, float32): Diverged
    model = SoftmaxAttention(problem.d, beta=problem.beta, link=algorithm.link or problem.link,
                             dtype=problem.torch_dtype)
    u0, v0 = initial_vectors(problem, seed)
    with torch.no_grad():
        model.u.copy_(u0)
        model.v.copy_(v0)
    u_star, v_star = problem.oracle()
    maxiters, tol = options.iterations(3000), options.tolerance(1e-6)
    monitor = IterationMonitor(options, total=maxiters, desc="SphericalGD")
    retcode, k, risk_value = RetCode.MaxIters, 0, math.nan

    def record(iteration: int, risk: float, grad_norm: float) -> bool:
        return monitor.record(iteration=iteration, risk=risk, grad_norm=grad_norm,
                              **overlaps(model.u.detach(), model.v.detach(), u_star, v_star))

    for k in range(maxiters + 1):
        risk = ((model._output(X)[:, 0] - y) ** 2).mean()  # X: our own sample, drawn once
        grad_u, grad_v = torch.autograd.grad(risk, (model.u, model.v))
        risk_value = float(risk.detach())
        with torch.no_grad():
            tangent_u, tangent_v = _tangent(grad_u, model.u), _tangent(grad_v, model.v)
            grad_norm = float(torch.sqrt(tangent_u @ tangent_u + tangent_v @ tangent_v))
            if not (math.isfinite(risk_value) and math.isfinite(grad_norm)):
                retcode = RetCode.Diverged
                break
            # maxiters = 0 returns the start with MaxIters (core): a stop request at its only record changes
            # nothing (it ended Terminated)
            if record(k, risk_value, grad_norm) and maxiters > 0:
                retcode = RetCode.Terminated
                break
            if maxiters > 0 and grad_norm <= tol:
                retcode = RetCode.Success
                break
            if k == maxiters:
                break
            steps = [param - algorithm.lr * tangent for param, tangent in ((model.u, tangent_u),
                                                                            (model.v, tangent_v))]
            # in float64: a float32 norm squares the entries, and a finite step of ~1e19 had an inf norm
            norms = [float(torch.linalg.vector_norm(step.double())) for step in steps]
            # a step that overflows (lr·gradient = inf, e.g. lr = 1e308) has no direction: the normalised
            # point was 0 or NaN, and the overlaps of the next record raised "u must be a unit vector"
            if not all(math.isfinite(n) and n > 0.0 for n in norms):
                retcode, k = RetCode.Diverged, k + 1
                break
            if all(torch.equal(step, param) for step, param in zip(steps, (model.u, model.v), strict=True)):
                retcode = RetCode.Stalled  # lr·gradient below their rounding (lr = 1.2e-38 ran for hours)
                break
            for param, step, norm in zip((model.u, model.v), steps, norms, strict=True):
                param.copy_(step / norm)
    monitor.close()
    x = torch.cat([model.u.detach(), model.v.detach()]).numpy().astype(problem.dtype)
    return Solution(x=x, value=risk_value, retcode=retcode,
                    stats=Stats(iterations=k, f_calls=k + 1, grad_calls=k + 1), trace=monitor.trace)
