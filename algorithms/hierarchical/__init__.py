"""Noise-adaptive stochastic minimax and bilevel optimization (Gong, Hao, Liu; arXiv:2509.15399).

Problem types: :class:`MinimaxProblem` (min_x max_y f, f strongly concave in y) and
:class:`BilevelProblem` (min_x f(x, y*(x)), y*(x) = argmin_y g), with additive oracle noise
whose level ``sigma`` is a parameter; instances :func:`synthetic_minimax`,
:func:`quadratic_bilevel` and :func:`auc_minimax` (torch). Algorithms: :class:`AdaMinimax`
and :class:`AdaBiO` (the paper's), and the baselines :class:`SGDA`, :class:`TiAda`,
:class:`StocBiO`. Every solution keeps ‖∇Φ(x_t)‖ per iteration in
``sol.original["grad_phi_norm"]`` and the last lower-level iterate in ``sol.original["y"]``.

>>> from algorithms import solve
>>> from algorithms.hierarchical import AdaMinimax, synthetic_minimax
>>> sol = solve(synthetic_minimax(sigma=1.0, noise="sphere", coupling=0.5 ** 0.5), AdaMinimax(),
...             maxiters=2000, tol=1e-12)
>>> sol.retcode, sol.original["grad_phi_norm"].shape
(<RetCode.MaxIters: 'MaxIters'>, (2000,))
"""

from algorithms.hierarchical.ada_bio import AdaBiO
from algorithms.hierarchical.ada_minimax import AdaMinimax, ada_parameters
from algorithms.hierarchical.auc import ScoreNet, auc_minimax
from algorithms.hierarchical.neumann import neumann_hypergradient, neumann_terms
from algorithms.hierarchical.problems import (
    NOISE_KINDS,
    BilevelProblem,
    MinimaxProblem,
    additive_noise,
    quadratic_bilevel,
    synthetic_minimax,
)
from algorithms.hierarchical.sgda import SGDA
from algorithms.hierarchical.stocbio import StocBiO
from algorithms.hierarchical.tiada import TiAda

__all__ = [
    "NOISE_KINDS",
    "SGDA",
    "AdaBiO",
    "AdaMinimax",
    "BilevelProblem",
    "MinimaxProblem",
    "ScoreNet",
    "StocBiO",
    "TiAda",
    "ada_parameters",
    "additive_noise",
    "auc_minimax",
    "neumann_hypergradient",
    "neumann_terms",
    "quadratic_bilevel",
    "synthetic_minimax",
]
