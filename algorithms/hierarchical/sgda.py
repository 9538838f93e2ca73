"""SGDA: stochastic gradient descent–ascent with constant steps (the non-adaptive baseline).

    x_{t+1} = x_t − lr_x·g_x,t,    y_{t+1} = y_t + lr_y·g_y,t

with (g_x,t, g_y,t) one stochastic gradient at (x_t, y_t). Its steps must be tuned to the
noise: a step tuned at σ = 0 stalls at a noise floor ∝ lr·σ (or diverges) when σ grows, the
behaviour the adaptive methods remove.

References
----------
T. Lin, C. Jin, M. Jordan. On gradient descent ascent for nonconvex-concave minimax problems.
ICML 2020.

>>> from algorithms import solve
>>> from algorithms.hierarchical import SGDA, synthetic_minimax
>>> solve(synthetic_minimax(coupling=0.5 ** 0.5), SGDA(lr_x=0.2, lr_y=0.5)).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms.core import Algorithm, Solution, SolveOptions, Stats, _dispatch
from algorithms.hierarchical._loop import checked, run
from algorithms.hierarchical.ada_minimax import check_rate
from algorithms.hierarchical.problems import MinimaxProblem

__all__ = ["SGDA"]


@dataclass(frozen=True)
class SGDA(Algorithm):
    """Constant-step SGDA: ``lr_x`` (descent on x), ``lr_y`` (ascent on y), finite floats > 0 in
    [1.18e-38, 3.4e38] (the working range: a subnormal or a 1e308 step is refused by name).
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    ``solve``'s ``maxiters``: at most 3_333_333 (a solve takes at most 10**7 user calls, budgeted at three
    per iteration: the oracle, ``grad_phi`` and a share for ``phi``, which is called once, at the end; a
    larger maxiters is refused naming it).
    """

    lr_x: float = 0.1
    lr_y: float = 0.5

    def __post_init__(self) -> None:
        for name in ("lr_x", "lr_y"):
            object.__setattr__(self, name, check_rate(name, getattr(self, name)))


@_dispatch
def _solve(problem: MinimaxProblem, algorithm: SGDA, options: SolveOptions) -> Solution:
    stats = Stats()

    def step(t, x, y, rng):
        gx, gy = problem.oracle(x, y, rng)
        stats.grad_calls += 1
        gx, gy = checked("grad(x, y, rng)[0]", gx, x), checked("grad(x, y, rng)[1]", gy, y)
        return (x - algorithm.lr_x * gx).astype(x.dtype), (y + algorithm.lr_y * gy).astype(y.dtype), {}

    return run(problem, options, step, stats, "SGDA")
