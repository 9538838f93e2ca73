"""Ada-BiO: Ada-Minimax's adaptive normalized momentum on the Neumann hypergradient.

Algorithm 2 with the parameter choices (3)–(4) (the same as
:mod:`algorithms.hierarchical.ada_minimax`): g_x,t and g̃_x,t are two independent Neumann
hypergradient estimates ḡ_N at (x_t, y_t) (:func:`neumann_hypergradient`), g_y,t = ∇_y G(x_t,
y_t; ζ_t), and the lower level descends, y_{t+1} = y_t − η_y,t g_y,t. N defaults to Theorem
4.2's choice for the iteration cap T (:func:`neumann_terms`); the only problem constants
the method uses are μ_g and l_g1, through N and the 1/l_g1 scaling of the series.

References
----------
X. Gong, J. Hao, M. Liu. Adaptive Algorithms with Sharp Convergence Rates for Stochastic
Hierarchical Optimization. NeurIPS 2025, arXiv:2509.15399 (Algorithm 2, Theorem 4.2).

>>> from algorithms import solve
>>> from algorithms.hierarchical import AdaBiO, quadratic_bilevel
>>> sol = solve(quadratic_bilevel(mu_g=1.0, l_g1=2.0), AdaBiO(), maxiters=3000)
>>> sol.retcode, sol.stats.hess_calls > 0
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from algorithms._validation import check_count
from algorithms.core import Algorithm, Solution, SolveOptions, Stats, _dispatch
from algorithms.hierarchical._loop import DEFAULT_MAXITERS, check_oracle_budget, checked, run
from algorithms.hierarchical.ada_minimax import adaptive_x_step, check_rate
from algorithms.hierarchical.neumann import MAX_TERMS, _hypergradient, theorem_terms
from algorithms.hierarchical.problems import BilevelProblem

__all__ = ["AdaBiO", "check_terms"]


def check_terms(value: object) -> int | None:
    """``neumann_terms`` hyperparameter: None (Theorem 4.2's choice) or an int >= 0."""
    if value is None:
        return None
    terms = check_count("neumann_terms", value, 0)
    if terms > MAX_TERMS:  # each term is an oracle call per iteration: 2**31 - 1 was a run that never ends
        raise ValueError(f"neumann_terms must be <= {MAX_TERMS} (each is an oracle call per iteration), got "
                         f"{terms}")
    return terms


@dataclass(frozen=True)
class AdaBiO(Algorithm):
    """Ada-BiO (Algorithm 2): ``lr_x``, ``lr_y``, ``alpha``, ``gamma`` as in Ada-Minimax (finite floats > 0
    in the working range [1.18e-38, 3.4e38]), and
    ``neumann_terms`` in [0, 10**6] (0 keeps the series' first term only, the direct gradient; None: N of
    Theorem 4.2 for the iteration cap, refused naming mu_g when it passes 10**6 terms: mu_g / l_g1 below about
    1.5 log(maxiters) / 10**6). A solve's worst case, maxiters × (2·neumann_terms + 3 oracle calls), must stay
    within 10**7 calls (``MAX_ORACLE_CALLS``), else it is refused before running, naming those
    settings (maxiters = 2**63 - 1 is refused even with a tol that would stop early).
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ).
    """

    lr_x: float = 1.0
    lr_y: float = 1.0
    alpha: float = 2.0
    gamma: float = 1.0
    neumann_terms: int | None = None

    def __post_init__(self) -> None:
        for name in ("lr_x", "lr_y", "alpha", "gamma"):
            object.__setattr__(self, name, check_rate(name, getattr(self, name)))
        object.__setattr__(self, "neumann_terms", check_terms(self.neumann_terms))  # np.int64 kept as int


@_dispatch
def _solve(problem: BilevelProblem, algorithm: AdaBiO, options: SolveOptions) -> Solution:
    stats = Stats()
    terms = algorithm.neumann_terms
    if terms is None:
        terms = theorem_terms(min(max(2, options.iterations(DEFAULT_MAXITERS)), 2**63 - 1),  # (horizon)
                              problem.mu_g, problem.l_g1)
    check_oracle_budget(options.iterations(DEFAULT_MAXITERS), 2 * terms + 3, f"neumann_terms = {terms}")
    state = {"m": None, "noise_sum": 0.0, "lower_sum": 0.0}

    def step(t, x, y, rng):
        gx, calls = _hypergradient(problem, x, y, terms, rng)
        gx_other, more = _hypergradient(problem, x, y, terms, rng)
        gy = checked("lower_grad", problem.lower_oracle(x, y, rng), y)
        stats.grad_calls += 3
        stats.hess_calls += calls + more
        x_new, _, alpha_t, lr_x_t, lr_y_t = adaptive_x_step(state, algorithm, t, x, gx, gx_other, gy)
        return (x_new.astype(x.dtype), (y - lr_y_t * gy).astype(y.dtype),
                {"alpha_t": alpha_t, "lr_x": lr_x_t, "lr_y": lr_y_t, "neumann_terms": terms})

    return run(problem, options, step, stats, "Ada-BiO", budget_checked=True)
