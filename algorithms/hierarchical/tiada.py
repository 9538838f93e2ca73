"""TiAda-style adaptive GDA: AdaGrad-Norm steps, the x-step damped by the larger accumulator.

    v^x_{t} = v^x_{t−1} + ‖g_x,t‖²,   v^y_{t} = v^y_{t−1} + ‖g_y,t‖²   (v^x_0 = v^y_0 = 1)
    x_{t+1} = x_t − lr_x / max(v^x_t, v^y_t)^alpha · g_x,t
    y_{t+1} = y_t + lr_y / (v^y_t)^beta · g_y,t

with 0 < beta < alpha < 1 (defaults 0.6, 0.4, TiAda's choice): the max in the x-step keeps
the time-scale separation η_x/η_y small without knowing the condition number. Its rate
does not improve with small noise (Table 1 of the Ada-Minimax paper).

References
----------
X. Li, J. Yang, N. He. TiAda: A time-scale adaptive algorithm for nonconvex minimax
optimization. ICLR 2023, arXiv:2210.17478.

>>> from algorithms import solve
>>> from algorithms.hierarchical import TiAda, synthetic_minimax
>>> solve(synthetic_minimax(coupling=0.5 ** 0.5), TiAda(lr_x=1.0, lr_y=1.0)).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms._validation import stable_norm
from algorithms.core import Algorithm, Solution, SolveOptions, Stats, _dispatch
from algorithms.hierarchical._loop import checked, finite_sums, run
from algorithms.hierarchical.ada_minimax import check_rate
from algorithms.hierarchical.problems import MinimaxProblem

__all__ = ["TiAda"]


@dataclass(frozen=True)
class TiAda(Algorithm):
    """TiAda: ``lr_x``, ``lr_y`` (finite floats > 0 in [1.18e-38, 3.4e38]) and the exponents ``alpha`` (x) >
    ``beta`` (y), both in (0, 1) and at least 1.18e-38 (the working range).
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    ``solve``'s ``maxiters``: at most 3_333_333 (a solve takes at most 10**7 user calls, budgeted at three
    per iteration: the oracle, ``grad_phi`` and a share for ``phi``, which is called once, at the end; a
    larger maxiters is refused naming it).
    """

    lr_x: float = 1.0
    lr_y: float = 1.0
    alpha: float = 0.6
    beta: float = 0.4

    def __post_init__(self) -> None:
        for name in ("lr_x", "lr_y", "alpha", "beta"):
            object.__setattr__(self, name, check_rate(name, getattr(self, name)))
        if not 0 < self.beta < self.alpha < 1:
            raise ValueError(f"alpha and beta must satisfy 0 < beta < alpha < 1, got alpha = "
                             f"{self.alpha!r}, beta = {self.beta!r}")


@_dispatch
def _solve(problem: MinimaxProblem, algorithm: TiAda, options: SolveOptions) -> Solution:
    stats = Stats()
    state = {"vx": 1.0, "vy": 1.0}

    def step(t, x, y, rng):
        gx, gy = problem.oracle(x, y, rng)
        stats.grad_calls += 1
        gx, gy = checked("grad(x, y, rng)[0]", gx, x), checked("grad(x, y, rng)[1]", gy, y)
        state["vx"] += stable_norm(gx) ** 2
        state["vy"] += stable_norm(gy) ** 2
        finite_sums(vx=state["vx"], vy=state["vy"])  # overflow: Diverged (lr 0 would freeze the iterates)
        lr_x_t = algorithm.lr_x / max(state["vx"], state["vy"]) ** algorithm.alpha
        lr_y_t = algorithm.lr_y / state["vy"] ** algorithm.beta
        return ((x - lr_x_t * gx).astype(x.dtype), (y + lr_y_t * gy).astype(y.dtype),
                {"lr_x": lr_x_t, "lr_y": lr_y_t})

    return run(problem, options, step, stats, "TiAda")
