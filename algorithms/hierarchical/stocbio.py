"""stocBiO-style SGD for bilevel problems: constant steps on the Neumann hypergradient.

Per outer iteration, ``inner_steps`` SGD steps on the lower level, then one on the upper:

    y ← y − lr_y·∇_y G(x_t, y; ζ)   (inner_steps times),    x_{t+1} = x_t − lr_x·ḡ_N(x_t, y)

with ḡ_N the N-term Neumann hypergradient (:func:`neumann_hypergradient`). The steps are
fixed, so they must be tuned to the noise level.

References
----------
K. Ji, J. Yang, Y. Liang. Bilevel optimization: convergence analysis and enhanced design.
ICML 2021 (stocBiO).

>>> from algorithms import solve
>>> from algorithms.hierarchical import StocBiO, quadratic_bilevel
>>> solve(quadratic_bilevel(), StocBiO(lr_x=0.1, lr_y=0.5)).retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms._validation import check_count
from algorithms.core import Algorithm, Solution, SolveOptions, Stats, _dispatch
from algorithms.hierarchical._loop import DEFAULT_MAXITERS, check_oracle_budget, checked, run
from algorithms.hierarchical.ada_bio import check_terms
from algorithms.hierarchical.ada_minimax import check_rate
from algorithms.hierarchical.neumann import MAX_TERMS, _hypergradient, theorem_terms
from algorithms.hierarchical.problems import BilevelProblem

__all__ = ["StocBiO"]


@dataclass(frozen=True)
class StocBiO(Algorithm):
    """stocBiO-style SGD: ``lr_x``, ``lr_y`` (finite floats > 0 in [1.18e-38, 3.4e38]), ``inner_steps`` in [1,
    10**6], ``neumann_terms`` in [0, 10**6] (0 keeps the series' first term only, the direct gradient;
    None: Theorem 4.2's choice for the iteration cap, refused naming mu_g when it passes 10**6 terms:
    mu_g / l_g1 below about 1.5 log(maxiters) / 10**6). A solve's worst case, maxiters × (oracle calls per
    iteration: inner_steps + neumann_terms + 1), must stay within 10**7 oracle calls
    (``MAX_ORACLE_CALLS``), else it is refused before running, naming those settings: so maxiters
    = 2**63 - 1 is refused here even with a tol that would stop early; pass a maxiters that fits.
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    """

    lr_x: float = 0.1
    lr_y: float = 0.5
    inner_steps: int = 1
    neumann_terms: int | None = None

    def __post_init__(self) -> None:
        for name in ("lr_x", "lr_y"):
            object.__setattr__(self, name, check_rate(name, getattr(self, name)))
        object.__setattr__(self, "inner_steps", check_count("inner_steps", self.inner_steps, 1))
        if self.inner_steps > MAX_TERMS:  # each is an oracle call per iteration: 2**31 - 1 never ended
            raise ValueError(f"inner_steps must be <= {MAX_TERMS} (each is an oracle call per iteration), "
                             f"got {self.inner_steps}")
        object.__setattr__(self, "neumann_terms", check_terms(self.neumann_terms))  # np.int64 kept as int


@_dispatch
def _solve(problem: BilevelProblem, algorithm: StocBiO, options: SolveOptions) -> Solution:
    stats = Stats()
    terms = algorithm.neumann_terms
    if terms is None:
        terms = theorem_terms(min(max(2, options.iterations(DEFAULT_MAXITERS)), 2**63 - 1),  # (horizon)
                              problem.mu_g, problem.l_g1)
    check_oracle_budget(options.iterations(DEFAULT_MAXITERS), algorithm.inner_steps + terms + 1,
                        f"inner_steps = {algorithm.inner_steps} and neumann_terms = {terms}")

    def step(t, x, y, rng):
        for _ in range(algorithm.inner_steps):
            gy = checked("lower_grad", problem.lower_oracle(x, y, rng), y)
            y = (y - algorithm.lr_y * gy).astype(y.dtype)
        gx, calls = _hypergradient(problem, x, y, terms, rng)
        stats.grad_calls += algorithm.inner_steps + 1
        stats.hess_calls += calls
        return (x - algorithm.lr_x * gx).astype(x.dtype), y, {"neumann_terms": terms}

    return run(problem, options, step, stats, "stocBiO", budget_checked=True)
