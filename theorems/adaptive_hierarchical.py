"""Claims of the noise-adaptive hierarchical-optimization paper (Gong, Hao, Liu; arXiv:2509.15399).

Claims against :mod:`algorithms.hierarchical`, and the paper's results map (its main-text
numbered results):

* ``adaptive_hierarchical.rate_low_noise`` (rate): Theorem 4.1 at σ = 0: the average ‖∇Φ(x_t)‖
  of Ada-Minimax decays like T^(−1/2).
* ``adaptive_hierarchical.rate_high_noise`` (rate): Theorem 4.1 at σ = 1 (noise-dominated for
  every T > σ⁻² = 1), same hyperparameters: it decays like T^(−1/4).
* ``adaptive_hierarchical.rate_bilevel`` (rate): Theorem 4.2 at σ = 0: Ada-BiO's average
  ‖∇Φ(x_t)‖ on the quadratic bilevel instance decays like T^(−1/2).
* ``adaptive_hierarchical.rate_single_level`` (rate): Theorem 5.6 at σ = 0: Algorithm 3 (Ada-Minimax
  on an f that ignores y) has average ‖∇f(x_t)‖ decaying like T^(−1/2).
* ``adaptive_hierarchical.instances``, ``adaptive_hierarchical.transcription`` (numeric,
  implementation checks): Φ, ∇Φ and the oracles of the shipped instances agree, the noise laws have
  the stated variance; solve() reproduces an independent transcription of Algorithms 1–2.
* ``adaptive_hierarchical.noise_adaptive`` (numeric): one Ada-Minimax setting tracks the envelope
  1/√T + √σ/T^(1/4) within one constant factor for σ ∈ {0, 1, 10, 100}; SGDA tuned at σ = 0
  does not (its control).
* ``adaptive_hierarchical.rate_expression`` (symbolic): the terms of the bound: √σ/T^(1/4)
  dominates 1/√T iff T > σ⁻², and σ^(1/4)/T^(3/8) is their geometric mean, so never dominant.
* ``adaptive_hierarchical.hypergradient`` (numeric): the Neumann-series hypergradient's error
  equals its closed form and shrinks like (1 − μ_g/l_g1)^N.
* ``adaptive_hierarchical.momentum_recursion`` (numeric): Lemma 5.3's unrolled recursion of the
  momentum deviation on Ada-Minimax's trace.
* ``adaptive_hierarchical.momentum_parameter_bounds`` (numeric): Lemma 5.5's envelopes of α_t
  under noise of exact norm σ.
* ``adaptive_hierarchical.assumptions`` (property, implementation check): every input assumption
  is enforced at its boundary (the value just inside accepted, just outside refused).

Sabotage controls run the same ``solve`` path with one function of the implementation patched
(:func:`_patched`).

>>> from theorems.core import REGISTRY
>>> sorted(k for k in REGISTRY if k.startswith("adaptive_hierarchical."))  # doctest: +NORMALIZE_WHITESPACE
['adaptive_hierarchical.assumptions', 'adaptive_hierarchical.figure1_vs_tiada',
 'adaptive_hierarchical.hypergradient',
 'adaptive_hierarchical.instances',
 'adaptive_hierarchical.momentum_parameter_bounds',
 'adaptive_hierarchical.momentum_recursion', 'adaptive_hierarchical.noise_adaptive',
 'adaptive_hierarchical.rate_bilevel', 'adaptive_hierarchical.rate_expression',
 'adaptive_hierarchical.rate_high_noise', 'adaptive_hierarchical.rate_low_noise',
 'adaptive_hierarchical.rate_single_level', 'adaptive_hierarchical.transcription']
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy

from algorithms import RetCode, solve
from algorithms.core import WORKING_MAX, WORKING_MIN
from algorithms.hierarchical import (
    SGDA,
    AdaBiO,
    AdaMinimax,
    MinimaxProblem,
    TiAda,
    quadratic_bilevel,
    synthetic_minimax,
)
from algorithms.hierarchical import ada_minimax as ada_minimax_module
from algorithms.hierarchical import neumann as neumann_module
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import Boundary, boundary_outcome
from theorems.core.certificates import Certificate, Method, Rejected
from theorems.core.evidence import fact, figure, prove_zero
from theorems.core.rates import rate_outcome
from theorems.core.sabotage import patched

PAPER = "adaptive_hierarchical"

register_results(PAPER, [
    Result(id="Theorem 4.1", statement="Ada-Minimax: average ‖∇Φ(x_t)‖ is Õ(1/√T + σ̄^(1/4)/T^(3/8) "
           "+ √σ̄/T^(1/4)) w.p. >= 1 − 7δ, without knowing σ̄ (noise norm bounded above and below)",
           checkable=True),
    Result(id="Theorem 4.2", statement="Ada-BiO with N >= 3 log T / (2 log(1/(1 − μ_g/l_g1))) Neumann "
           "terms: the same adaptive rate for the hyper-objective", checkable=True),
    Result(id="Lemma 5.3", statement="the momentum deviation m_t − ∇f(x_t) obeys a linear recursion "
           "in the gradient drift and the noise, which unrolls in closed form", checkable=True),
    Result(id="Lemma 5.4", statement="high-probability bound on the momentum deviation under "
           "sandwiched α_t, β_t", checkable=False,
           why="its right-hand side is a displayed formula missing from our copy of the text; "
               "without it there is no bound to test"),
    Result(id="Lemma 5.5", statement="after t0 iterations α_t lies between two envelopes "
           "(1 + c·t)^(−1/2) whose constants are set by the noise bounds", checkable=True),
    Result(id="Theorem 5.6", statement="adaptive normalized SGD with momentum (single level, "
           "Algorithm 3) reaches Õ(1/√T + √σ̄/T^(1/4))", checkable=True),
    Result(id="Lemma 5.7", statement="the lower-level error max_k ‖y_k − y*(x_k)‖ stays below D "
           "and its weighted sums are bounded w.h.p.", checkable=False,
           why="D (equation (24)) and the bounds are displayed formulas missing from our copy; the "
               "statement has no concrete constant to test"),
    Result(id="Table 1", statement="comparison of adaptive minimax methods: TiAda's published bounds (its "
           "Theorems 3.1-3.2) against Ada-Minimax's Theorem 4.1", checkable=False,
           why="a table of published rate bounds; its Ada-Minimax row is Theorem 4.1 (covered by the rate "
               "claims), the other rows are other papers' theorems, and Figure 1's claim compares the "
               "methods"),
    Result(id="Table 2", statement="comparison of adaptive bilevel methods: S-TFBO's deterministic bound "
           "against Ada-BiO's Theorem 4.2", checkable=False,
           why="a table of published rate bounds; its Ada-BiO row is Theorem 4.2 (covered by rate_bilevel), "
               "the other row is another paper's theorem"),
    Result(id="Figure 1", statement="on f = cos x + xy − y²/2 with gradient noise σ, Ada-Minimax outperforms "
           "TiAda at every noise level, and TiAda fails at σ = 100", checkable=True),
    Result(id="Figure 2", statement="deep AUC maximization of a 2-layer Transformer (hidden 4096) on "
           "imbalanced Sentiment140: Ada-Minimax 20 % higher training AUC than PDSM", checkable=False,
           why="a 4096-wide Transformer trained 50 epochs on Sentiment140 (1.6M tweets, a download) is "
               "GPU-scale; checkable with the dataset and about a GPU-day"),
    Result(id="Figure 3", statement="robustness of the deep-AUC runs to α, η_x, η_y, γ", checkable=False,
           why="the same deep-AUC training as Figure 2, swept over four hyperparameters"),
])

#: one hyperparameter setting for every noise level of the rate claims (tuned once, at σ = 0
#: and σ = 1 by hand on seeds outside those the claims use; the paper's own σ = 0 choice is
#: α = 2, η_x = η_y = 3, Appendix I, with which x oscillates longer before settling)
SETTING = AdaMinimax(lr_x=1.0, lr_y=3.0, alpha=2.0, gamma=1.0)
#: c² = 1/2: Φ = cos x + x²/4 is nonconvex with non-degenerate minimizers (the paper's c = 1
#: has a degenerate minimizer, where ‖∇Φ‖ ≈ |x|³/6 decays faster than the rate; see the note)
COUPLING = math.sqrt(0.5)
#: the rate claims fit the slope of T -> average of ‖∇Φ(x_t)‖, t <= T; margin 0.05 allows for
#: the finite-T bias of the lower-order terms (the 1/T transient; the 1/√T term at high noise)
MARGIN, MAX_WIDTH = 0.05, 0.15
TINY_TOL = WORKING_MIN  # the smallest tolerance taken (README, working range): runs go the full horizon


def _prefix_means(norms: np.ndarray, sizes: list[int]) -> list[float]:
    """(1/T) Σ_{t<=T} ‖∇Φ(x_t)‖ for each T in ``sizes`` (the schedule does not depend on T)."""
    cumulative = np.cumsum(norms)
    return [float(cumulative[T - 1] / T) for T in sizes]


def _minimax_runs(seed: int, sigma: float, n_seeds: int, sizes: tuple[int, ...]) -> np.ndarray:
    """Average-gradient-norm curves of SETTING; without noise the start x0 ∈ [2.5, 4] varies by seed,
    with noise x0 = 2 (near the minimizer x* ≈ 1.895, so the curve is not dominated by the travel
    towards it, which at high noise takes steps ∝ t^(−3/4)) and the noise varies."""
    values = []
    for s in range(n_seeds):
        rng = np.random.default_rng([seed, s, 17])
        start = float(rng.uniform(2.5, 4.0)) if sigma == 0 else 2.0
        problem = synthetic_minimax(sigma, "sphere", coupling=COUPLING, x0=start)
        sol = solve(problem, SETTING, maxiters=sizes[-1], tol=TINY_TOL, seed=int(rng.integers(2**31)))
        if sol.retcode is not RetCode.MaxIters:
            raise RuntimeError(f"rate run stopped early: {sol.retcode} ({sol.original['reason']})")
        values.append(_prefix_means(sol.original["grad_phi_norm"], list(sizes)))
    return np.asarray(values)


def _sizes(ctx: Context) -> tuple[int, ...]:
    return tuple(2**k for k in range(9, ctx.pick(14, 18)))


@lru_cache(maxsize=4)
def _low_noise(seed: int, profile: str) -> np.ndarray:
    ctx = Context(seed=seed, profile=profile)
    return _minimax_runs(seed, 0.0, ctx.pick(4, 16), _sizes(ctx))


@lru_cache(maxsize=4)
def _high_noise(seed: int, profile: str) -> np.ndarray:
    ctx = Context(seed=seed, profile=profile)
    return _minimax_runs(seed, HIGH_SIGMA, ctx.pick(6, 24), _sizes(ctx))


HIGH_SIGMA = 1.0


def _rate(ctx: Context, values: np.ndarray, claimed: float, what: str, name: str) -> Outcome:
    return rate_outcome(list(_sizes(ctx)), values, claimed=claimed, relation="==", ctx=ctx, what=what,
                        margin=MARGIN, max_width=MAX_WIDTH, plot_name=name, xlabel="T",
                        ylabel="(1/T) Σ ‖∇Φ(x_t)‖")


register(Claim(
    id=f"{PAPER}.rate_low_noise", paper=PAPER, source="Theorem 4.1 (deterministic case, σ̄ = 0)",
    origin=Origin.PAPER, covers=("Theorem 4.1",),
    deviation="one instance (f = cos x + xy/√2 − y²/2), exact gradients, and the exponent of the bound "
              "tested as the measured exponent (the normalized step ∝ t^(−1/2) cannot do better on a "
              "non-degenerate minimizer).",
    statement="With σ = 0, Ada-Minimax (one fixed setting) has average ‖∇Φ(x_t)‖ over t <= T decaying "
              "like T^(−1/2): the fitted log-log slope over T = 2⁹..2¹³ (start points drawn per seed) "
              "has −1/2 in its bootstrap interval widened by 0.05.",
    kind=Kind.RATE,
    check=lambda ctx: _rate(ctx, _low_noise(ctx.seed, ctx.profile), -0.5, "slope at σ = 0",
                            "rate_low_noise.png"),
    control=lambda ctx: _rate(ctx, _low_noise(ctx.seed, ctx.profile), -1.0,
                              "slope at σ = 0 against the exponent −1", "rate_low_noise_control.png"),
    control_description="the same fit must reject the exponent −1 (the rate of plain GD's average "
                        "on a non-degenerate minimizer)",
    budget_s=60.0,
))

register(Claim(
    id=f"{PAPER}.rate_high_noise", cost_s=5, paper=PAPER, source="Theorem 4.1 (stochastic case)",
    origin=Origin.PAPER, covers=("Theorem 4.1",),
    deviation="one instance, noise uniform on the sphere of radius σ = 1 (so σ̲ = σ̄), and the exponent "
              "of the dominant term tested as the measured exponent.",
    statement="With σ = 1 and the hyperparameters of rate_low_noise, Ada-Minimax's average ‖∇Φ(x_t)‖ "
              "decays like T^(−1/4) (√σ̄/T^(1/4) dominates for T > σ⁻²): −1/4 lies in the bootstrap "
              "interval of the fitted slope over T = 2⁹..2¹³, widened by 0.05.",
    kind=Kind.RATE,
    check=lambda ctx: _rate(ctx, _high_noise(ctx.seed, ctx.profile), -0.25, f"slope at σ = {HIGH_SIGMA:g}",
                            "rate_high_noise.png"),
    control=lambda ctx: _rate(ctx, _high_noise(ctx.seed, ctx.profile), -0.5,
                              "slope at high noise against the noiseless −1/2",
                              "rate_high_noise_control.png"),
    control_description="the same fit must reject the noiseless exponent −1/2 at σ = 1",
    budget_s=60.0,
))


# --- noise adaptivity: one setting for every σ, against SGDA tuned once at σ = 0 -----------------

NOISE_LEVELS = (0.0, 1.0, 10.0, 100.0)
SGDA_GRID = (0.05, 0.1, 0.2, 0.5, 1.0)
#: the theorem's constant does not depend on σ̄ when σ̲ = σ̄ (κ_σ = 1); it carries log factors and
#: the lower-order σ^(1/4)/T^(3/8) term, so "the constant measured at σ = 0 serves every σ" is
#: tested up to a factor 4
SPREAD = 4.0


def _envelope(sigma: float, T: int) -> float:
    return 1.0 / math.sqrt(T) + math.sqrt(sigma) / T**0.25


def _average_norm(algorithm, sigma: float, T: int, seed: int) -> float:
    sol = solve(synthetic_minimax(sigma, "sphere", coupling=COUPLING, x0=3.0), algorithm, maxiters=T,
                tol=TINY_TOL, seed=seed)
    if sol.retcode is RetCode.Diverged:
        return math.inf
    return float(np.mean(sol.original["grad_phi_norm"]))


@lru_cache(maxsize=4)
def _tuned_sgda(seed: int, profile: str) -> tuple[SGDA, float]:
    T = Context(profile=profile).pick(4096, 65536)
    scores = {lr: _average_norm(SGDA(lr_x=lr, lr_y=lr), 0.0, T, seed) for lr in SGDA_GRID}
    best = min(scores, key=scores.get)
    return SGDA(lr_x=best, lr_y=best), scores[best]


def _adaptivity(ctx: Context, algorithm) -> Outcome:
    T = ctx.pick(4096, 65536)
    ratios = {}
    for sigma in NOISE_LEVELS:
        ratios[sigma] = _average_norm(algorithm, sigma, T, ctx.seed) / _envelope(sigma, T)
    # the bound is an upper bound: the worst ratio against the one at σ = 0 (inf if a run diverged)
    spread = max(ratios.values()) / ratios[0.0]
    name = type(algorithm).__name__
    evidence = {"T": T, "spread_bound": SPREAD, "algorithm": repr(algorithm),
                "ratio_to_envelope": {f"{s:g}": figure(r, 4) for s, r in ratios.items()},
                "spread": figure(spread, 4)}
    ok = spread <= SPREAD
    return Outcome("pass" if ok else "fail",
                   f"{name}: max over σ ∈ {{0, 1, 10, 100}} of average ‖∇Φ‖ / (1/√T + √σ/T^(1/4)) is "
                   f"{spread:.3g} × its value at σ = 0 ({'<=' if ok else '>'} {SPREAD:g})", evidence)


register(Claim(
    id=f"{PAPER}.noise_adaptive", paper=PAPER, source="Theorem 4.1 and its remark (adaptivity); Section 6.1",
    origin=Origin.DERIVED,
    statement="One Ada-Minimax setting, not retuned, has average ‖∇Φ(x_t)‖ over T = 4096 iterations "
              "at most 4·C₀·(1/√T + √σ/T^(1/4)) at every σ ∈ {0, 1, 10, 100}, where C₀ is the ratio "
              "measured at σ = 0 (one constant serves every noise level).",
    kind=Kind.NUMERIC,
    check=lambda ctx: _adaptivity(ctx, SETTING),
    control=lambda ctx: _adaptivity(ctx, _tuned_sgda(ctx.seed, ctx.profile)[0]),
    control_description="SGDA with the step tuned once at σ = 0 (grid 0.05..1, best average at σ = 0) "
                        "through the same protocol must fail: fast at σ = 0, stalled or diverged at "
                        "σ = 100",
    budget_s=60.0,
))



# --- assumptions at their boundary ------------------------------------------------------------------

def _assumption_cases() -> list[Boundary]:
    """The inputs Theorems 4.1-4.2 and Algorithms 1-2 assume, each probed just inside and just outside."""
    tiny = 1e-12  # a step past each boundary, far below every value the claims use
    sums = {"noise_sum": 0.0, "previous_noise_sum": 0.0, "lower_sum": 0.0}
    rates = {"lr_x": 1.0, "lr_y": 1.0, "alpha": 1.0, "gamma": 1.0}

    def params(t, **overrides):
        return ada_minimax_module.ada_parameters(t, **{**sums, **overrides}, **rates)

    def hypergradient(problem):
        return neumann_module.neumann_hypergradient(problem, np.zeros(3), np.zeros(4), 2,
                                                    np.random.default_rng(0))

    return [
        Boundary("step sizes η_x > 0", "lr_x", lambda: AdaMinimax(lr_x=WORKING_MIN),
                 lambda: AdaMinimax(lr_x=0.0)),
        Boundary("step sizes η_y finite", "lr_y", lambda: AdaMinimax(lr_y=WORKING_MAX),
                 lambda: AdaMinimax(lr_y=math.inf)),
        Boundary("iteration counter t >= 1", "t", lambda: params(1), lambda: params(0)),
        Boundary("iteration counter an int", "t", lambda: params(2), lambda: params(2.0)),
        Boundary("iteration counter not a bool", "t", lambda: params(1), lambda: params(True)),
        Boundary("noise sums S_t >= 0", "noise_sum", lambda: params(1, noise_sum=0.0),
                 lambda: params(1, noise_sum=-tiny)),
        Boundary("Neumann terms N: None (Theorem 4.2's choice)", "neumann_terms",
                 lambda: AdaBiO(neumann_terms=None), lambda: AdaBiO(neumann_terms=-1)),
        Boundary("Neumann terms N >= 0", "neumann_terms", lambda: AdaBiO(neumann_terms=0),
                 lambda: AdaBiO(neumann_terms=-1)),
        Boundary("Neumann terms N an int", "neumann_terms", lambda: AdaBiO(neumann_terms=3),
                 lambda: AdaBiO(neumann_terms=True)),
        Boundary("μ_g <= l_g1 (series length)", "mu_g", lambda: neumann_module.neumann_terms(100, 2.0, 2.0),
                 lambda: neumann_module.neumann_terms(100, 2.0 * (1 + tiny), 2.0)),
        Boundary("μ_g > 0 (series length)", "mu_g", lambda: neumann_module.neumann_terms(100, 1e-3, 2.0),
                 lambda: neumann_module.neumann_terms(100, 0.0, 2.0)),
        # inside at 1e6, not near the float limit: for μ_g/l_g1 below 1.1e-16 the contraction 1 − μ_g/l_g1
        # rounds to 1 and neumann_terms divides by log 1 = 0 (a finding, recorded in the note)
        Boundary("l_g1 finite (series length)", "l_g1", lambda: neumann_module.neumann_terms(100, 1.0, 1e6),
                 lambda: neumann_module.neumann_terms(100, 1.0, math.inf)),
        Boundary("horizon T >= 1", "horizon", lambda: neumann_module.neumann_terms(1, 1.0, 2.0),
                 lambda: neumann_module.neumann_terms(0, 1.0, 2.0)),
        Boundary("μ_g <= l_g1 (the instance)", "mu_g", lambda: quadratic_bilevel(mu_g=2.0, l_g1=2.0),
                 lambda: quadratic_bilevel(mu_g=2.0 * (1 + tiny), l_g1=2.0)),
        Boundary("μ_g > 0 (the instance)", "mu_g", lambda: quadratic_bilevel(mu_g=1e-3),
                 lambda: quadratic_bilevel(mu_g=0.0)),
        Boundary("μ_g a real number (the instance)", "mu_g", lambda: quadratic_bilevel(mu_g=0.5),
                 lambda: quadratic_bilevel(mu_g="0.5")),
        Boundary("l_g1 finite (the instance)", "l_g1", lambda: quadratic_bilevel(l_g1=1e6),
                 lambda: quadratic_bilevel(l_g1=math.inf)),
        Boundary("dim_x >= 1", "dim_x", lambda: quadratic_bilevel(dim_x=1),
                 lambda: quadratic_bilevel(dim_x=0)),
        Boundary("dim_y >= 1", "dim_y", lambda: quadratic_bilevel(dim_y=1),
                 lambda: quadratic_bilevel(dim_y=0)),
        Boundary("noise level σ >= 0", "sigma", lambda: synthetic_minimax(sigma=0.0),
                 lambda: synthetic_minimax(sigma=-tiny)),
        Boundary("hypergradient of a bilevel problem", "problem", lambda: hypergradient(quadratic_bilevel()),
                 lambda: hypergradient(synthetic_minimax())),
    ]


def _check_assumptions(ctx: Context, *, shifted: bool) -> Outcome:
    return boundary_outcome(_assumption_cases(), shifted=shifted)


register(Claim(
    id=f"{PAPER}.assumptions", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source="the assumptions of Theorems 4.1-4.2 and the inputs of Algorithms 1-2 (Sections 3-4)",
    statement="Each input assumption of the paper's setting (step sizes and α, γ finite and > 0; the "
              "iteration counter an int t >= 1; the noise sums >= 0; Ada-BiO's N None or an int >= 0; "
              "0 < μ_g <= l_g1 < ∞ for the series length and the instance; dimensions >= 1; σ >= 0; the "
              "hypergradient asked of a bilevel problem; μ_g a real number) is enforced at its boundary: "
              "the value just inside is accepted, the value just outside (1e-12 relative or one unit past "
              "it) is refused with a ValueError or TypeError naming the argument.",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_assumptions(ctx, shifted=False),
    control=lambda ctx: _check_assumptions(ctx, shifted=True),
    control_description="every boundary claimed one step inward (the value just inside stated as outside): "
                        "those values are accepted, so the same check must fail.",
))


# --- certificates (exact algebra) -------------------------------------------------------------------

def _prove_rate_expression() -> dict:
    """With T = u⁸, σ = v⁴ the three terms are monomials: 1/√T = u⁻⁴, σ^(1/4)/T^(3/8) = v/u³,
    √σ/T^(1/4) = v²/u²."""
    return {"low": "u**(-4)", "mid": "v/u**3", "high": "v**2/u**2"}


def _recheck_rate_expression(proof: dict) -> str:
    """The stored monomials are the terms at T = u⁸, σ = v⁴ (u, v > 0: an exact change of variables);
    (high/low)⁴ − σ²T and mid² − low·high cancel to 0; (high − low)·(high + low)·... decide the sign:
    high > low ⇔ u²v² > 1 ⇔ σ²T > 1; mid = √(low·high) <= max(low, high) by AM-GM."""
    u, v = sympy.symbols("u v", positive=True)
    T, s = u**8, v**4
    terms = {"low": 1 / sympy.sqrt(T), "mid": s ** sympy.Rational(1, 4) / T ** sympy.Rational(3, 8),
             "high": sympy.sqrt(s) / T ** sympy.Rational(1, 4)}
    if set(proof) != set(terms):
        raise Rejected(f"terms {sorted(proof)} are not low, mid, high")
    stored = {}
    for name, expected in terms.items():
        try:
            stored[name] = sympy.sympify(proof[name], locals={"u": u, "v": v})
        except Exception as exc:
            raise Rejected(f"{name}: does not parse: {exc}") from exc
        if sympy.cancel(sympy.powsimp(expected - stored[name], force=True)) != 0:
            raise Rejected(f"{name}: {proof[name]} is not the term at T = u⁸, σ = v⁴")
    low, mid, high = stored["low"], stored["mid"], stored["high"]
    if sympy.cancel((high / low) ** 4 - s**2 * T) != 0 or sympy.cancel(mid**2 - low * high) != 0:
        raise Rejected("(high/low)⁴ is not σ²T or mid² is not low·high")
    if sympy.cancel(high / low - u**2 * v**2) != 0:
        raise Rejected("high/low is not u²v²")
    return ("(√σ/T^(1/4) ÷ 1/√T)⁴ = σ²T and (σ^(1/4)/T^(3/8))² = (1/√T)(√σ/T^(1/4)) for all T, σ > 0 "
            "(T = u⁸, σ = v⁴)")


def _recheck_rate_expression_witness(witness: dict) -> str:
    """At T = 1, σ = 4, from the three terms' definitions in exact arithmetic (sympy Rational powers):
    1/√T = 1 and √σ/T^(1/4) = 2, so their ratio's 4th power is 16, not the control's σT = 4."""
    T, s = Fraction(witness["T"]), Fraction(witness["sigma"])
    if T != 1 or s != 4:
        raise Rejected("the witness is T = 1, σ = 4")
    T_, s_ = sympy.Rational(T.numerator, T.denominator), sympy.Rational(s.numerator, s.denominator)
    low = 1 / sympy.sqrt(T_)
    high = sympy.sqrt(s_) / T_ ** sympy.Rational(1, 4)
    ratio4 = (high / low) ** 4
    if not (ratio4.is_Rational and low.is_Rational and high.is_Rational):
        raise Rejected(f"the terms are not exact rationals here: low = {low}, high = {high}")
    if ratio4 == s_ * T_:
        raise Rejected(f"(√σ/T^(1/4) ÷ 1/√T)⁴ = {ratio4} equals σT here")
    return f"T = 1, σ = 4: 1/√T = {low}, √σ/T^(1/4) = {high}, ratio⁴ = {ratio4}, not σT = {s_ * T_}"


_NEUMANN_TERMS = 30


def _prove_neumann() -> dict:
    """For each N: l·S_N = Σ_{k<N}(1 − x)^k, x = a/l, as rational coefficients (the truncation times l)."""
    import flint

    one_minus = flint.fmpq_poly([1, -1])
    out = {}
    for N in range(_NEUMANN_TERMS + 1):
        total = flint.fmpq_poly([0])
        for k in range(N):
            total += one_minus**k
        out[f"N={N}"] = [str(c) for c in total.coeffs()]
    return out


def _recheck_neumann(proof: dict) -> str:
    """For N = 0..30 (python-flint's exact polynomials over Q, x = a/l): the stored P_N is Σ_{k<N}(1 − x)^k
    and x·P_N + (1 − x)^N = 1, i.e. a·S_N(a) + (1 − a/l)^N = 1; as S_N is a polynomial in H the identity
    holds for the symmetric H, so H⁻¹ − S_N(H) = H⁻¹(I − H/l)^N; for a ∈ [μ, l], (1 − a/l)^N/a <= (1 −
    μ/l)^N/μ (the numerator falls and the denominator grows with a), hence the bound; and
    N = 3 log T/(2 log(1/(1 − μ/l))) makes (1 − μ/l)^N = T^(−3/2)."""
    import flint

    if sorted(proof) != sorted(f"N={N}" for N in range(_NEUMANN_TERMS + 1)):
        raise Rejected("the truncations must be listed for N = 0..30")
    x, one_minus = flint.fmpq_poly([0, 1]), flint.fmpq_poly([1, -1])
    expected = flint.fmpq_poly([0])
    for N in range(_NEUMANN_TERMS + 1):
        try:
            stored = flint.fmpq_poly([flint.fmpq(*map(int, c.split("/"))) if "/" in c else int(c)
                                      for c in proof[f"N={N}"]])
        except (ValueError, TypeError) as exc:
            raise Rejected(f"N = {N}: a coefficient does not parse: {exc}") from exc
        if stored != expected:
            raise Rejected(f"N = {N}: the stored sum is not the Neumann truncation")
        if x * stored + one_minus**N != 1:
            raise Rejected(f"N = {N}: x·P_N + (1 − x)^N is not 1")
        expected += one_minus**N
    T = sympy.Symbol("T", positive=True)
    kappa = sympy.Symbol("kappa", positive=True)  # 1 − μ/l in (0, 1)
    threshold = 3 * sympy.log(T) / (2 * sympy.log(1 / kappa))
    if sympy.expand_log(threshold * sympy.log(kappa) + sympy.Rational(3, 2) * sympy.log(T), force=True) != 0:
        raise Rejected("N log(1 − μ/l) is not −(3/2) log T at the threshold")
    return (f"a·S_N(a) + (1 − a/l)^N = 1 for N = 0..{_NEUMANN_TERMS} (the truncation error H⁻¹(I − H/l)^N); "
            "the threshold N gives (1 − μ/l)^N = T^(−3/2)")


def _recheck_neumann_witness(witness: dict) -> str:
    """N = 0, a = 1, l = 2: the error of the empty series is 1/a = 1, not (1 − a/l)^{N+1}/a = 1/2."""
    N, a, lip = int(witness["N"]), Fraction(witness["a"]), Fraction(witness["l"])
    partial_sum = sum(((1 - a / lip) ** k for k in range(N)), Fraction(0)) / lip
    error = 1 / a - partial_sum
    wrong = (1 - a / lip) ** (N + 1) / a
    if error == wrong:
        raise Rejected("the off-by-one form agrees here")
    return f"N = {N}, a = {a}, l = {lip}: 1/a − S_N = {error}, not (1 − a/l)^(N+1)/a = {wrong}"


_RECURSION_STEPS = 8


def _recursion_ring():
    """python-flint's exact multivariate polynomials over Q in α_2..α_8, G_1..G_8, ε_2..ε_8, m_1."""
    import flint

    names = ([f"alpha{k}" for k in range(2, _RECURSION_STEPS + 1)]
             + [f"G{k}" for k in range(1, _RECURSION_STEPS + 1)]
             + [f"e{k}" for k in range(2, _RECURSION_STEPS + 1)] + ["m1"])
    ctx = flint.fmpq_mpoly_ctx.get(tuple(names), "lex")
    return ctx, dict(zip(names, ctx.gens(), strict=True))


def _recursion_polynomials() -> tuple:
    """(ring, generators, {t: m_t − G_t by the momentum update}, {t: the unrolled form})."""
    ctx, g = _recursion_ring()
    alpha = {k: g[f"alpha{k}"] for k in range(2, _RECURSION_STEPS + 1)}
    grad = {k: g[f"G{k}"] for k in range(1, _RECURSION_STEPS + 1)}
    noise = {k: g[f"e{k}"] for k in range(2, _RECURSION_STEPS + 1)}
    momentum, by_update, unrolled = g["m1"], {}, {}
    for t in range(2, _RECURSION_STEPS + 1):
        momentum = (1 - alpha[t]) * momentum + alpha[t] * (grad[t] + noise[t])
        by_update[t] = momentum - grad[t]

        def beta(i: int, t: int = t):
            out = ctx.from_dict({}) + 1
            for j in range(i, t + 1):
                out = out * (1 - alpha[j])
            return out

        form = beta(2) * (g["m1"] - grad[1])
        for k in range(2, t + 1):
            form = form + beta(k) * (grad[k - 1] - grad[k]) + beta(k + 1) * alpha[k] * noise[k]
        unrolled[t] = form
    return ctx, g, by_update, unrolled


def _prove_recursion() -> dict:
    """m_t − G_t along the momentum update, t = 2..8, as {monomial: coefficient} (names joined by '*')."""
    ctx, _, by_update, _ = _recursion_polynomials()
    names = ctx.names()
    out = {}
    for t, poly in by_update.items():
        terms = {}
        for exponents, coefficient in poly.to_dict().items():
            monomial = "*".join(name + ("" if e == 1 else f"^{e}") for name, e in zip(names, exponents) if e)
            terms[monomial or "1"] = str(coefficient)
        out[f"t={t}"] = terms
    return out


def _recheck_recursion(proof: dict) -> str:
    """For t = 2..8 the stored m_t − G_t equals the momentum update's (recomputed in python-flint's exact
    multivariate polynomials over Q) and the unrolled form with S_k = G_{k−1} − G_k, ε̂_1 = m_1 − G_1."""
    import flint

    ctx, g, by_update, unrolled = _recursion_polynomials()
    if sorted(proof) != sorted(f"t={t}" for t in range(2, _RECURSION_STEPS + 1)):
        raise Rejected("t = 2..8 must be listed")
    for t in range(2, _RECURSION_STEPS + 1):
        stored = ctx.from_dict({})
        for monomial, coefficient in proof[f"t={t}"].items():
            term = ctx.from_dict({}) + 1
            for factor in ([] if monomial == "1" else monomial.split("*")):
                name, _, power = factor.partition("^")
                if name not in g:
                    raise Rejected(f"t = {t}: unknown variable {name!r}")
                term = term * g[name] ** (int(power) if power else 1)
            numerator, _, denominator = coefficient.partition("/")
            stored = stored + term * flint.fmpq(int(numerator), int(denominator or 1))
        if stored != by_update[t]:
            raise Rejected(f"t = {t}: the stored deviation is not the update's")
        if stored != unrolled[t]:
            raise Rejected(f"t = {t}: the deviation is not the unrolled form")
    return (f"m_t − G_t = β_(2:t)ε̂_1 + Σ β_(k:t)S_k + Σ β_(k+1:t)α_kε_k exactly for "
            f"t = 2..{_RECURSION_STEPS} (polynomials in every α_k, G_k, ε_k, m_1)")


def _recheck_recursion_witness(witness: dict) -> str:
    """With α and β exchanged in the update (m_t = α_t m_{t−1} + (1 − α_t)g_t) the unrolled form fails at
    t = 2 for the witness's numbers (exact rationals)."""
    a2, g1, g2, e2, m1 = (Fraction(witness[k]) for k in ("alpha2", "G1", "G2", "e2", "m1"))
    swapped = a2 * m1 + (1 - a2) * (g2 + e2) - g2
    unrolled = (1 - a2) * (m1 - g1) + (1 - a2) * (g1 - g2) + a2 * e2
    if swapped == unrolled:
        raise Rejected("the swapped update agrees with the unrolled form here")
    return (f"α₂ = {a2}, m₁ = {m1}, G = ({g1}, {g2}), ε₂ = {e2}: swapped update {swapped} ≠ unrolled "
            f"{unrolled}")


# --- Figure 1: Ada-Minimax against TiAda over noise levels -----------------------------------------

FIGURE1_SIGMAS = (0.0, 1.0, 10.0, 100.0)
#: TiAda's step, tuned once at σ = 0 on the grid 0.05..2 by benchmarks/bench_hierarchical.py (2.0 won)
FIGURE1_TIADA = TiAda(lr_x=2.0, lr_y=2.0)


def _figure1_average(algorithm, sigma: float, T: int, seed: int) -> float:
    sol = solve(synthetic_minimax(sigma, "sphere", coupling=COUPLING, x0=3.0), algorithm, maxiters=T,
                tol=TINY_TOL, seed=seed)
    norms = sol.original["grad_phi_norm"]
    # as the benchmark: a diverged run counts inf from there on; a run that stopped on ‖∇Φ‖ = 0 exactly
    # (Success) keeps its last value
    fill = np.inf if sol.retcode is RetCode.Diverged else norms[-1]
    return float(np.mean(np.concatenate([norms, np.full(T - norms.size, fill)])))


@lru_cache(maxsize=4)
def _figure1_runs(seed: int, profile: str) -> dict:
    ctx = Context(seed=seed, profile=profile)
    T, seeds = ctx.pick(1024, 4096), ctx.pick(4, 16)
    return {sigma: np.array([[_figure1_average(algorithm, sigma, T, 1000 * seed + s)
                              for algorithm in (SETTING, FIGURE1_TIADA)] for s in range(seeds)])
            for sigma in FIGURE1_SIGMAS}


def _check_figure1(ctx: Context, *, adaptive_first: bool) -> Outcome:
    """Per σ a paired t-test over seeds of log(average ‖∇Φ‖ of Ada-Minimax / TiAda's), two-sided 0.05:
    'pass' when Ada-Minimax is significantly better at every σ, 'fail' when the other method is
    significantly better at some σ, 'undecided' otherwise."""
    from scipy import stats as scipy_stats

    runs = _figure1_runs(ctx.seed, ctx.profile)
    rows, verdicts = [], []
    for sigma, values in runs.items():
        ours, theirs = (values[:, 0], values[:, 1]) if adaptive_first else (values[:, 1], values[:, 0])
        log_ratio = np.log(ours) - np.log(theirs)
        if np.all(log_ratio == log_ratio[0]):
            p_value = 0.0 if log_ratio[0] != 0 else 1.0
        else:
            p_value = float(scipy_stats.ttest_1samp(log_ratio, 0.0).pvalue)
        mean = float(np.mean(log_ratio))
        verdict = ("better" if mean < 0 else "worse") if p_value < 0.05 else "tied"
        verdicts.append(verdict)
        # the ratio the test would resolve with 80 % power at this seed count (two-sided 0.05):
        # (z_0.975 + z_0.8)·sd/√n of the log ratio
        sd = float(np.std(log_ratio, ddof=1))
        resolvable = float(np.exp(2.8 * sd / math.sqrt(log_ratio.size)))
        ada_over_tiada = float(np.exp(np.mean(np.log(values[:, 0] / values[:, 1]))))
        rows.append({"sigma": sigma, "ada_minimax": figure(float(np.mean(values[:, 0])), 4),
                     "tiada": figure(float(np.mean(values[:, 1])), 4),
                     "geometric_mean_ratio": figure(ada_over_tiada, 3),
                     "p_value": figure(p_value, 3), "outcome": verdict,
                     "ratio_resolvable_at_80pct_power": figure(resolvable, 3)})
    first = "Ada-Minimax" if adaptive_first else "TiAda"
    evidence = {"per_sigma": rows, "seeds": int(next(iter(runs.values())).shape[0]),
                "horizon": ctx.pick(1024, 4096)}
    summary = f"{first} against the other per σ: " + ", ".join(
        f"σ = {r['sigma']:g}: {r['outcome']} (Ada/TiAda {r['geometric_mean_ratio']}, p = {r['p_value']})"
        for r in rows)
    status = "fail" if "worse" in verdicts else "undecided" if "tied" in verdicts else "pass"
    return Outcome(status, summary, evidence)


register(Claim(
    id=f"{PAPER}.figure1_vs_tiada", paper=PAPER,
    source="Figure 1 and Section 6.1 (Ada-Minimax against TiAda across noise magnitudes)",
    origin=Origin.PAPER, covers=("Figure 1",),
    deviation="our synthetic instance (c² = 1/2, a non-degenerate Φ; noise of norm exactly σ, x₀ = 3) and "
              "our Ada-Minimax setting, TiAda tuned once at σ = 0 (lr 2.0, the benchmark's grid), T = 1024 "
              "(full: 4096), 4 (full: 16) seeds; the paper plots one run per σ with Gaussian noise on c = 1. "
              "The figure's other half, TiAda failing at σ = 100, is not asserted (only the ordering).",
    statement="At every σ ∈ {0, 1, 10, 100} Ada-Minimax (one setting, not retuned) reaches a smaller average "
              "‖∇Φ(x_t)‖ over the run than TiAda: per σ a paired two-sided t-test over seeds of the log "
              "ratio at level 0.05 must find Ada-Minimax better; the claim fails if TiAda is significantly "
              "better at some σ (measured, quick: TiAda far ahead at σ = 0, a tie at σ = 1, σ = 10 and 100 "
              "not separated at 4 seeds; the evidence gives the ratio each test resolves at 80 % power, and "
              "the full profile's 16 seeds and T = 4096 are the benchmark's setting, where Ada-Minimax leads "
              "at σ = 10 and 100).",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_figure1(ctx, adaptive_first=True),
    control=lambda ctx: _check_figure1(ctx, adaptive_first=False),
    control_description="the same tests with the roles exchanged (TiAda claimed better at every σ): where "
                        "Ada-Minimax is better (σ = 100 in the full profile's 16 seeds) it must fail; at "
                        "quick's 4 seeds that test does not separate (p ≈ 0.07, round-3 audit), so the "
                        "control is decided only in the full profile",
    expected_verdict="falsified",
    budget_s=60.0,
))


# --- the rate expression ----------------------------------------------------------------------------

def _rate_expression(noise_power: sympy.Rational) -> Outcome:
    """The bound's terms with the noise level entering the dominant noise term as σ^noise_power (1/2 in
    Theorem 4.1; the control's 1 is the slip of a variance read as a standard deviation, √σ → σ)."""
    T, s = sympy.symbols("T sigma", positive=True)
    low, mid, high = 1 / sympy.sqrt(T), s ** sympy.Rational(1, 4) / T ** sympy.Rational(3, 8), \
        s**noise_power / T ** sympy.Rational(1, 4)
    # high/low = √σ·T^(1/4) > 1 ⇔ σ²T > 1: compare the ratio's 4th power with the stated threshold σ²T
    ratio4 = sympy.simplify((high / low) ** 4)
    crossover = sympy.simplify(ratio4 - T * s**2)
    geometric = sympy.simplify(mid**2 - low * high)
    # mid = √(low·high) <= max(low, high): the geometric mean never exceeds the larger term
    outcome = prove_zero(crossover**2 + geometric**2,
                         what="(√σ/T^(1/4) ÷ 1/√T)⁴ = σ²·T and (σ^(1/4)/T^(3/8))² = (1/√T)(√σ/T^(1/4)), "
                              f"with the noise term σ^{noise_power}/T^(1/4)")
    if outcome.status == "undecided":
        # an identity over all T, σ > 0 is refuted by one point: the residuals, exactly, at T = 1, σ = 4
        point = {T: sympy.Integer(1), s: sympy.Integer(4)}
        residuals = [sympy.nsimplify(sympy.simplify(r.subs(point))) for r in (crossover, geometric)]
        if any(r.is_Rational and r != 0 for r in residuals) or any(r.is_zero is False for r in residuals):
            outcome = Outcome("fail", f"at T = 1, σ = 4 the residuals (crossover, geometric mean) are "
                                      f"{residuals[0]}, {residuals[1]}, not both 0", dict(outcome.evidence))
    outcome.evidence.update({"ratio_to_the_4th": str(ratio4), "crossover_residual": str(crossover),
                             "geometric_mean_residual": str(geometric)})
    return outcome


register(Claim(
    id=f"{PAPER}.rate_expression", paper=PAPER, source="Theorem 4.1 (the three terms of its bound)",
    origin=Origin.DERIVED,
    statement="For T, σ > 0: √σ/T^(1/4) > 1/√T iff T > σ⁻² (the 4th power of their ratio is σ²T), and "
              "σ^(1/4)/T^(3/8) is the geometric mean of the other two terms, so it never exceeds both.",
    kind=Kind.SYMBOLIC,
    check=lambda ctx: _rate_expression(sympy.Rational(1, 2)),
    control=lambda ctx: _rate_expression(sympy.Integer(1)),
    control_description="a transcription slip in the dominant noise term, σ/T^(1/4) for √σ/T^(1/4) (a "
                        "variance read as a standard deviation): both the crossover σ²T and the geometric "
                        "mean identity must then be disproved",
    budget_s=30.0,
    certificate=Certificate(
        statement="For all T, σ > 0: (√σ/T^(1/4) ÷ 1/√T)⁴ = σ²T, so √σ/T^(1/4) > 1/√T exactly when T > σ⁻², "
                  "and (σ^(1/4)/T^(3/8))² = (1/√T)·(√σ/T^(1/4)): the middle term is the geometric mean of "
                  "the other two, never above both",
        scope="every T > 0, σ > 0 (the change of variables T = u⁸, σ = v⁴, u, v > 0, makes the terms "
              "monomials)",
        method=Method.EXACT_ALGEBRA, trusts="sympy's exact rational-function arithmetic (cancel, powsimp)",
        prove=_prove_rate_expression, recheck=_recheck_rate_expression,
        control_statement="The crossover at T = σ⁻¹ (the ratio's 4th power σT).",
        refute=lambda: {"T": 1, "sigma": 4}, recheck_witness=_recheck_rate_expression_witness),
    expected_verdict="certified",
))


# --- the Neumann-series hypergradient --------------------------------------------------------------

def _hypergradient(ctx: Context) -> Outcome:
    problem = quadratic_bilevel(dim_x=3, dim_y=5, mu_g=0.5, l_g1=2.0, seed=ctx.seed)
    rng = ctx.rng("hypergradient")
    x = rng.standard_normal(3)
    A = np.column_stack([problem.lower_hvp(x, np.zeros(len(e)), e, None)[1] for e in np.eye(5)])
    cross = np.column_stack([problem.lower_hvp(x, np.zeros(5), e, None)[0]  # ∇²_xy g (3×5)
                             for e in np.eye(5)])
    y_star = np.linalg.solve(A, -problem.lower_grad(x, np.zeros(5), None))  # ∇_y g(x, 0) = −Bx
    exact = problem.grad_phi(x)
    fy = problem.upper_grad(x, y_star, None)[1]
    contraction = 1.0 - problem.mu_g / problem.l_g1
    rows, worst_gap, worst_ratio = [], 0.0, 0.0
    errors = []
    for N in range(0, 31):
        estimate, _ = neumann_module.neumann_hypergradient(problem, x, y_star, N, rng)
        # the truncation error in closed form: ∇²_xy g A⁻¹ (I − A/l)^N ∇_y f (independent dense algebra)
        predicted = cross @ np.linalg.solve(A, np.linalg.matrix_power(np.eye(5) - A / problem.l_g1, N) @ fy)
        error = estimate - exact
        errors.append(float(np.linalg.norm(error)))
        gap = float(np.linalg.norm(error - predicted)) / max(1.0, float(np.linalg.norm(exact)))
        bound = np.linalg.norm(cross, 2) / problem.mu_g * contraction**N * np.linalg.norm(fy)
        worst_gap = max(worst_gap, gap)
        worst_ratio = max(worst_ratio, errors[-1] / bound)
        if N % 10 == 0:
            rows.append({"N": N, "error": figure(errors[-1], 4, 1e-13), "bound": figure(bound, 4)})
    # 1e-9: 30 dense products of a 5×5 matrix of norm <= 1 lose at most ~30·5·eps relative
    ok = worst_gap <= 1e-9 and worst_ratio <= 1.0 + 1e-9 and errors[-1] <= 1e-3 * errors[0]
    evidence = {"rows": rows, "max_gap_to_closed_form": figure(worst_gap, 2, 1e-12),
                "max_error_over_bound": figure(worst_ratio, 4), "contraction": contraction}
    return Outcome("pass" if ok else "fail",
                   f"Neumann hypergradient: error matches its closed form to {worst_gap:.1e}, error/bound "
                   f"<= {worst_ratio:.3g}, error(N=30)/error(0) = {errors[-1] / errors[0]:.2e}", evidence)


def _hypergradient_without_series(ctx: Context) -> Outcome:
    original = neumann_module.neumann_hypergradient

    def truncated(problem, x, y, terms, rng):
        return original(problem, x, y, 0, rng)

    with patched(neumann_module, "neumann_hypergradient", truncated):
        return _hypergradient(ctx)


register(Claim(
    id=f"{PAPER}.hypergradient", paper=PAPER, source="Appendix E.1 (Neumann series) and the choice of N "
    "in Theorem 4.2", origin=Origin.PROOF_STEP,
    statement="On the quadratic bilevel instance (spec ∇²_yy g ⊂ [1/2, 2]) at y = y*(x), the N-term "
              "Neumann hypergradient's error equals ∇²_xy g H⁻¹(I − H/l_g1)^N ∇_y f (to 1e-9), is at "
              "most ‖∇²_xy g‖/μ_g·(1 − μ_g/l_g1)^N‖∇_y f‖ for N = 0..30, and falls by 10³ from N = 0 to 30.",
    kind=Kind.NUMERIC,
    check=_hypergradient,
    control=_hypergradient_without_series,
    control_description="the series truncated to N = 0 whatever N is asked (∇_x f alone)",
    budget_s=30.0,
    certificate=Certificate(
        statement="For N = 0..30 the N-term Neumann truncation S_N(a) = (1/l)Σ_{k<N}(1 − a/l)^k satisfies "
                  "a·S_N(a) + (1 − a/l)^N = 1 as polynomials, so for symmetric H the hypergradient's error "
                  "is "
                  "∇²_xy g·H⁻¹(I − H/l)^N∇_y f, at most ‖∇²_xy g‖/μ·(1 − μ/l)^N‖∇_y f‖ when spec H ⊂ [μ, l] "
                  "((1 − a/l)^N/a is decreasing in a there); and Theorem 4.2's "
                  "N = 3 log T/(2 log(1/(1 − μ/l))) "
                  "gives (1 − μ/l)^N = T^(−3/2)",
        scope="N = 0..30 (the check's range), every a, l > 0; the threshold for every T > 0, 0 < μ < l",
        method=Method.EXACT_ALGEBRA,
        trusts="python-flint's exact polynomials over Q (in x = a/l); a polynomial identity in a holds for a "
               "symmetric matrix H in place of a (functional calculus); the monotonicity of (1 − a/l)^N/a "
               "on [μ, l]",
        prove=_prove_neumann, recheck=_recheck_neumann,
        control_statement="The truncation error is H⁻¹(I − H/l)^(N+1) (one power too many).",
        refute=lambda: {"N": 0, "a": 1, "l": 2}, recheck_witness=_recheck_neumann_witness),
    expected_verdict="certified",
))


# --- Theorem 4.2: Ada-BiO on the quadratic bilevel instance ----------------------------------------

#: Ada-BiO's setting: Ada-Minimax's with a larger lower-level step (the lower level must track
#: y*(x_t) as x moves; with lr_y = 3 the lag adds a √log T factor that biases the slope to −0.45)
BILEVEL_SETTING = AdaBiO(lr_x=1.0, lr_y=10.0, alpha=2.0, gamma=1.0)


@lru_cache(maxsize=4)
def _bilevel(seed: int, profile: str) -> np.ndarray:
    ctx = Context(seed=seed, profile=profile)
    sizes = _bilevel_sizes(ctx)
    values = []
    for s in range(ctx.pick(3, 12)):
        problem = quadratic_bilevel(mu_g=1.0, l_g1=2.0, seed=1000 * seed + s)
        sol = solve(problem, BILEVEL_SETTING, maxiters=sizes[-1], tol=TINY_TOL, seed=s)
        if sol.retcode is not RetCode.MaxIters:
            raise RuntimeError(f"rate run stopped early: {sol.retcode} ({sol.original['reason']})")
        values.append(_prefix_means(sol.original["grad_phi_norm"], list(sizes)))
    return np.asarray(values)


def _bilevel_sizes(ctx: Context) -> tuple[int, ...]:
    return tuple(2**k for k in range(7, ctx.pick(11, 15)))


def _bilevel_rate(ctx: Context, claimed: float, name: str) -> Outcome:
    return rate_outcome(list(_bilevel_sizes(ctx)), _bilevel(ctx.seed, ctx.profile), claimed=claimed,
                        relation="==", ctx=ctx, what=f"Ada-BiO slope at σ = 0 against {claimed:g}",
                        margin=MARGIN, max_width=MAX_WIDTH, plot_name=name, xlabel="T",
                        ylabel="(1/T) Σ ‖∇Φ(x_t)‖")


register(Claim(
    id=f"{PAPER}.rate_bilevel", paper=PAPER, source="Theorem 4.2 (noiseless case)",
    origin=Origin.PAPER, covers=("Theorem 4.2",),
    deviation="quadratic instances with exact oracles only (the noiseless case of the bound), and its "
              "exponent tested as the measured one.",
    statement="With exact oracles and N from Theorem 4.2 for the horizon, Ada-BiO's average ‖∇Φ(x_t)‖ "
              "on quadratic bilevel instances (spec ∇²_yy g ⊂ [1, 2], drawn per seed) decays like "
              "T^(−1/2): −1/2 lies in the bootstrap interval of the slope over T = 2⁷..2¹⁰, widened by 0.05.",
    kind=Kind.RATE,
    check=lambda ctx: _bilevel_rate(ctx, -0.5, "rate_bilevel.png"),
    control=lambda ctx: _bilevel_rate(ctx, -1.0, "rate_bilevel_control.png"),
    control_description="the same fit must reject the exponent −1",
    budget_s=60.0,
))


# --- Lemma 5.3: the momentum-deviation recursion ---------------------------------------------------

def _momentum_recursion(ctx: Context) -> Outcome:
    problem = synthetic_minimax(1.0, "sphere", coupling=COUPLING, x0=2.5)
    T = ctx.pick(400, 4000)
    sol = solve(problem, SETTING, maxiters=T, tol=TINY_TOL, seed=ctx.seed, store_trace=True)
    trace = sol.trace
    # G_t = ∇_x f(x_t, y_t), the exact gradient the stochastic g_x,t estimates
    exact = [np.asarray(problem.grad(r["x"], r["y"], None)[0]) for r in trace]
    alphas = np.array([r["alpha_t"] for r in trace])
    momentum_dev = [r["momentum"] - G for r, G in zip(trace, exact)]
    noise = [r["g_x"] - G for r, G in zip(trace, exact)]
    drift = [None] + [exact[k - 1] - exact[k] for k in range(1, len(trace))]
    # the unrolled form: ε̂_t = β_{2:t} ε̂_1 + Σ_{k=2}^t β_{k:t} S_k + Σ_{k=2}^t β_{k+1:t} α_k ε_k
    worst = 0.0
    for t in range(len(trace)):
        unrolled = np.prod(1 - alphas[1:t + 1]) * momentum_dev[0]
        for k in range(1, t + 1):
            unrolled = unrolled + np.prod(1 - alphas[k:t + 1]) * drift[k]
            unrolled = unrolled + np.prod(1 - alphas[k + 1:t + 1]) * alphas[k] * noise[k]
        scale = 1.0 + max(float(np.abs(n).max()) for n in noise[: t + 1])
        worst = max(worst, float(np.abs(momentum_dev[t] - unrolled).max()) / scale)
        if t >= 60:  # the products β_{k:t} underflow the comparison beyond this; 60 terms suffice
            break
    # tolerance 1e-10: ~60 products and sums of O(1) numbers at double precision
    return fact(worst <= 1e-10, "Lemma 5.3: the traced m_t − ∇_x f(x_t, y_t) equals its unrolled "
                "recursion", max_relative_gap=figure(worst, 2, 1e-14), iterations=61)


def _momentum_recursion_sabotaged(ctx: Context) -> Outcome:
    def swapped(momentum, gradient, alpha_t):  # β_t and α_t exchanged
        return gradient if momentum is None else alpha_t * momentum + (1.0 - alpha_t) * gradient

    with patched(ada_minimax_module, "momentum_update", swapped):
        return _momentum_recursion(ctx)


register(Claim(
    id=f"{PAPER}.momentum_recursion", paper=PAPER, source="Lemma 5.3", origin=Origin.PAPER,
    covers=("Lemma 5.3",),
    deviation="stated for Ada-Minimax's x-momentum, with ∇_x f(x_t, y_t) in the role of ∇f(x_t) "
              "(the lemma is stated for the single-level Algorithm 3; the algebra is the same).",
    statement="Along an Ada-Minimax run (σ = 1, sphere noise) the deviation ε̂_t = m_t − ∇_x f(x_t, y_t) "
              "equals β_{2:t}ε̂_1 + Σ_k β_{k:t}S_k + Σ_k β_{k+1:t}α_k ε_k with S_k the drift of the exact "
              "gradient and ε_k the noise, for the first 61 iterations, to 1e-10.",
    kind=Kind.NUMERIC,
    check=_momentum_recursion,
    control=_momentum_recursion_sabotaged,
    control_description="the solver's momentum update with α_t and β_t exchanged",
    budget_s=30.0,
    certificate=Certificate(
        statement="For the momentum update m_t = (1 − α_t)m_{t−1} + α_t(G_t + ε_t), the deviation "
                  "ε̂_t = m_t − G_t equals β_{2:t}ε̂_1 + Σ_{k=2}^t β_{k:t}S_k + Σ_{k=2}^t β_{k+1:t}α_kε_k "
                  "with "
                  "β_{i:t} = Π_{j=i}^t(1 − α_j) and S_k = G_{k−1} − G_k, as polynomials in every α_k, G_k, "
                  "ε_k "
                  "and m_1 (coordinatewise for vectors)",
        scope="t = 2..8 (every sequence of α's, gradients and noise); the claim's check runs 61 steps",
        method=Method.EXACT_ALGEBRA, trusts="python-flint's exact multivariate polynomials over Q",
        prove=_prove_recursion, recheck=_recheck_recursion,
        control_statement="The same unrolled form for the update with α_t and β_t = 1 − α_t exchanged.",
        refute=lambda: {"alpha2": "1/4", "G1": 1, "G2": 2, "e2": 0, "m1": 3},
        recheck_witness=_recheck_recursion_witness),
    expected_verdict="certified",
))


# --- Lemma 5.5: the envelopes of α_t ---------------------------------------------------------------

def _t0(delta: float, T: int, c0: float) -> float:
    """t0 of equation (6): the root of A_T(δ)·t + B_T(δ) = c0²t² (A, B of Lemma A.1)."""
    log_term = math.log(60.0 * math.log(6.0 * T) / delta)
    A, B = 16.0 * log_term, 16.0 * log_term**2
    return (A + math.sqrt(A * A + 4.0 * c0 * c0 * B)) / (2.0 * c0 * c0)


ENVELOPE_SIGMA = 2.0


@lru_cache(maxsize=4)
def _alpha_traces(seed: int, profile: str) -> tuple[np.ndarray, ...]:
    ctx = Context(seed=seed, profile=profile)
    traces = []
    for s in range(ctx.pick(3, 20)):
        sol = solve(synthetic_minimax(ENVELOPE_SIGMA, "sphere", coupling=COUPLING, x0=2.5), SETTING,
                    maxiters=ctx.pick(4000, 40000), tol=TINY_TOL, seed=1000 * seed + s, store_trace=True)
        traces.append(np.array([r["alpha_t"] for r in sol.trace]))
    return tuple(traces)


def _alpha_envelopes(ctx: Context, lower_factor: float) -> Outcome:
    traces = _alpha_traces(ctx.seed, ctx.profile)
    sigma, T, delta = ENVELOPE_SIGMA, traces[0].size, 0.05
    alpha = SETTING.alpha
    t0 = _t0(delta, T, c0=0.25)  # c0 = σ̲²/(4σ̄²) with σ̲ = σ̄ (our reading of equation (6))
    times = np.arange(1, T + 1)
    below = 1.0 / np.sqrt(1.0 + 4.0 * sigma**2 * times / alpha**2)
    above = 1.0 / np.sqrt(1.0 + lower_factor * sigma**2 * times / alpha**2)
    worst_low, worst_high = math.inf, math.inf
    runs = len(traces)
    for alphas in traces:
        worst_low = min(worst_low, float(np.min(alphas / below)))
        late = times >= t0
        worst_high = min(worst_high, float(np.min(above[late] / alphas[late])))
    ok = worst_low >= 1.0 - 1e-12 and worst_high >= 1.0 - 1e-12
    return fact(ok, f"Lemma 5.5: (1 + 4σ̄²t/α²)^(−1/2) <= α_t for all t and "
                f"α_t <= (1 + {lower_factor:g}σ̲²t/α²)^(−1/2) for t >= t0 = {t0:.0f}",
                min_ratio_lower=figure(worst_low, 6), min_ratio_upper=figure(worst_high, 6), runs=runs,
                horizon=T)


register(Claim(
    id=f"{PAPER}.momentum_parameter_bounds", paper=PAPER, source="Lemma 5.5 (with the envelopes of "
    "the proof of Lemma G.2)", origin=Origin.PAPER, covers=("Lemma 5.5",),
    deviation="the lemma's displayed envelopes are missing from our copy; we test the ones its proof "
              "uses (c = σ̲²/α² and 4σ̄²/α², Lemma G.2), with our reading c0 = σ̲²/(4σ̄²) for t0 and "
              "δ = 0.05, on noise of exact norm σ = 2 in Ada-Minimax's x-gradient.",
    statement="Under noise of norm exactly σ (σ̲ = σ̄ = σ), Ada-Minimax's α_t satisfies "
              "(1 + 4σ²t/α²)^(−1/2) <= α_t at every t and α_t <= (1 + σ²t/α²)^(−1/2) for t >= t0, in "
              "every one of the runs.",
    kind=Kind.NUMERIC,
    check=lambda ctx: _alpha_envelopes(ctx, 1.0),
    control=lambda ctx: _alpha_envelopes(ctx, 3.0),
    control_description="the upper envelope tightened to (1 + 3σ²t/α²)^(−1/2): past the truth, since "
                        "Σ‖g − g̃‖² ≈ 2σ²t",
    budget_s=30.0,
))


# --- Theorem 5.6: the single-level Ada-NSGDM, noiseless case ---------------------------------------

def _single_level_problem(start: float) -> MinimaxProblem:
    """f(x, y) = cos x + x²/4 − y²/2: y plays no role, Φ(x) = cos x + x²/4 (nonconvex)."""
    return MinimaxProblem(grad=lambda x, y, rng: (0.5 * x - np.sin(x), -y),
                          phi=lambda x: float(np.cos(x[0]) + 0.25 * x[0] ** 2),
                          grad_phi=lambda x: 0.5 * x - np.sin(x), x0=np.array([start]), y0=np.zeros(1))


def _single_sizes(ctx: Context) -> tuple[int, ...]:
    return tuple(2**k for k in range(9, ctx.pick(13, 18)))


@lru_cache(maxsize=4)
def _single_level(seed: int, profile: str) -> np.ndarray:
    ctx = Context(seed=seed, profile=profile)
    sizes, values = _single_sizes(ctx), []
    for s in range(ctx.pick(4, 16)):
        start = float(np.random.default_rng([seed, s, 56]).uniform(2.5, 4.0))
        sol = solve(_single_level_problem(start), SETTING, maxiters=sizes[-1], tol=TINY_TOL, seed=s)
        norms = sol.original["grad_phi_norm"]
        if sol.retcode is RetCode.Success:
            # the run landed on a point where the computed ∇f is exactly 0: then m_t = 0 and the
            # method stays there, so the rest of the horizon contributes 0 (this happens: the
            # normalized step's error sequence e − sign(e)η_t can hit the float root exactly)
            norms = np.concatenate([norms, np.zeros(sizes[-1] - norms.size)])
        elif sol.retcode is not RetCode.MaxIters:
            raise RuntimeError(f"rate run stopped: {sol.retcode} ({sol.original['reason']})")
        values.append(_prefix_means(norms, list(sizes)))
    return np.asarray(values)


def _single_rate(ctx: Context, claimed: float, name: str) -> Outcome:
    return rate_outcome(list(_single_sizes(ctx)), _single_level(ctx.seed, ctx.profile), claimed=claimed,
                        relation="<=", ctx=ctx, what=f"Ada-NSGDM slope at σ = 0 against {claimed:g}",
                        margin=MARGIN, max_width=MAX_WIDTH, plot_name=name, xlabel="T",
                        ylabel="(1/T) Σ ‖∇f(x_t)‖")


register(Claim(
    id=f"{PAPER}.rate_single_level", paper=PAPER, source="Theorem 5.6 (deterministic case)",
    origin=Origin.PAPER, covers=("Theorem 5.6",),
    deviation="noiseless case only, where Ada-Minimax's x-update on an f that ignores y is Algorithm 3 "
              "exactly (α_t = α'_t = 1); with noise our α'_t (from S_{t−1}) differs from Algorithm 3's α_t.",
    statement="With exact gradients, adaptive normalized SGD with momentum on the nonconvex "
              "f(x) = cos x + x²/4 (4 starts in [2.5, 4]) has average ‖∇f(x_t)‖ decaying at least like "
              "T^(−1/2): the upper end of the bootstrap interval of the slope over T = 2⁹..2¹² is "
              "<= −1/2 + 0.05.",
    kind=Kind.RATE,
    check=lambda ctx: _single_rate(ctx, -0.5, "rate_single_level.png"),
    control=lambda ctx: _single_rate(ctx, -2.0, "rate_single_level_control.png"),
    control_description="the bound tightened past the truth, to T^(−2) (faster than any first-order "
                        "method's average on a smooth nonconvex f), must be rejected",
    budget_s=30.0,
))


# --- implementation checks: the instances and the transcription of Algorithms 1–2 ------------------

def _dual_root(problem: MinimaxProblem, x: np.ndarray) -> np.ndarray:
    """y*(x) from the oracle alone: ∂_y f(x, ·) is affine on the synthetic instance."""
    at0, at1 = problem.grad(x, np.zeros(1), None)[1], problem.grad(x, np.ones(1), None)[1]
    return at0 / (at0 - at1)


def _instances(ctx: Context, sabotage: bool) -> Outcome:
    rng = ctx.rng("instances")
    worst = 0.0
    minimax = [synthetic_minimax(coupling=c) for c in (1.0, COUPLING)]
    bilevel = [quadratic_bilevel(mu_g=m, l_g1=2.0, seed=ctx.seed) for m in (0.5, 2.0)]
    if sabotage:  # a Φ that is not the max over y (an x³/10 term too many)
        minimax[1] = replace(minimax[1],
                             phi=lambda x: float(np.cos(x[0]) + 0.25 * x[0] ** 2 + 0.1 * x[0] ** 3))
    h = 1e-5
    for problem in minimax:
        for x in rng.uniform(-3, 3, (5, 1)):
            fd = (problem.phi(x + h) - problem.phi(x - h)) / (2 * h)
            danskin = problem.grad(x, _dual_root(problem, x), None)[0]
            worst = max(worst, abs(fd - problem.grad_phi(x)[0]), abs(danskin[0] - problem.grad_phi(x)[0]))
    for problem in bilevel:
        d = problem.y0.size
        for x in rng.standard_normal((3, problem.x0.size)):
            H = np.column_stack([problem.lower_hvp(x, np.zeros(d), e, None)[1] for e in np.eye(d)])
            cross = np.column_stack([problem.lower_hvp(x, np.zeros(d), e, None)[0] for e in np.eye(d)])
            y_star = np.linalg.solve(H, -problem.lower_grad(x, np.zeros(d), None))
            fx, fy = problem.upper_grad(x, y_star, None)
            implicit = fx - cross @ np.linalg.solve(H, fy)
            fd = np.array([(problem.phi(x + h * e) - problem.phi(x - h * e)) / (2 * h)
                           for e in np.eye(x.size)])
            worst = max(worst, float(np.abs(fd - problem.grad_phi(x)).max()),
                        float(np.abs(implicit - problem.grad_phi(x)).max()))
    # central differences with h = 1e-5 on O(1)-smooth functions: error ~h²·f''' + eps/h ≈ 1e-9
    noise = {}
    draws = 10_000
    for kind in ("gaussian", "student", "sphere"):
        problem = synthetic_minimax(2.0, kind)  # ∇_x f(0, 0) = 0: the oracle's output is the noise
        sample = np.array([problem.oracle(np.zeros(1), np.zeros(1), rng)[0][0] for _ in range(draws)])
        noise[kind] = float(np.mean(sample**2) / 4.0)
    # E ε² / σ² from 10⁴ draws: standard error √2/100 = 0.014 (Gaussian), 0 (sphere: ε² = σ² always);
    # Student-t₃ has no 4th moment, so its ratio converges slowly and is checked to 30 % only
    noise_ok = (abs(noise["gaussian"] - 1) < 0.07 and abs(noise["sphere"] - 1) < 1e-12
                and abs(noise["student"] - 1) < 0.3)
    # the bilevel oracles are the exact value plus the noise (Assumption 3.2): with sphere noise of radius
    # σ = 0.5 (gradients) and 0.25 (Hessian-vector products) each oracle lies at distance exactly σ from
    # the noiseless value (round-off ~1e-16 on O(1) vectors, so 1e-12)
    noisy = quadratic_bilevel(sigma=0.5, hessian_sigma=0.25, noise="sphere", seed=ctx.seed)
    exact = replace(noisy, sigma=0.0, hessian_sigma=0.0)
    x, y, v = rng.standard_normal(noisy.x0.size), rng.standard_normal(noisy.y0.size), \
        rng.standard_normal(noisy.y0.size)
    pairs = [(noisy.upper_oracle(x, y, rng), exact.upper_oracle(x, y, rng), 0.5),
             ((noisy.lower_oracle(x, y, rng),), (exact.lower_oracle(x, y, rng),), 0.5),
             (noisy.hvp_oracle(x, y, v, rng), exact.hvp_oracle(x, y, v, rng), 0.25)]
    bilevel_gap = max(abs(float(np.linalg.norm(a - b)) - radius)
                      for got, want, radius in pairs for a, b in zip(got, want, strict=True))
    noise_ok = noise_ok and bilevel_gap <= 1e-12
    return fact(worst <= 1e-6 and noise_ok, "instances: Φ, ∇Φ and the oracles agree (finite differences, "
                "Danskin / implicit function), noise variances as stated, bilevel oracles = value + noise",
                bilevel_noise_radius_gap=figure(bilevel_gap, 2, 1e-16),
                max_gradient_gap=figure(worst, 2, 1e-9),
                **{f"variance_ratio_{k}": figure(v, 3) for k, v in noise.items()})


register(Claim(
    id=f"{PAPER}.instances", paper=PAPER, source="Section 6.1 (synthetic instance), Appendix E.1 "
    "(hypergradient formula), Assumption 3.2 (noise)", origin=Origin.IMPLEMENTATION,
    statement="For the shipped instances, Φ's central difference, the closed-form ∇Φ and ∇_x f at "
              "y*(x) found from the oracle (Danskin; implicit-function formula for the bilevel ones, "
              "also with μ_g = l_g1) agree to 1e-6, and the oracle noise has variance σ² per coordinate "
              "(Gaussian, Student-t₃) or norm exactly σ (sphere); the bilevel oracles (upper, lower, "
              "Hessian-vector) with sphere noise lie at distance exactly σ from the noiseless value.",
    kind=Kind.NUMERIC,
    check=lambda ctx: _instances(ctx, sabotage=False),
    control=lambda ctx: _instances(ctx, sabotage=True),
    control_description="a Φ with an x³/10 term too many on the c² = 1/2 instance",
    budget_s=30.0,
))


def _reference_run(problem, algorithm, T: int, seed: int, bilevel: bool) -> np.ndarray:
    """Algorithms 1–2 with rules (3)–(4), transcribed independently, drawing the same samples."""
    rng = np.random.default_rng(seed)
    x, y = problem.x0.copy(), problem.y0.copy()
    m, noise_sum, lower_sum = None, 0.0, 0.0
    for t in range(1, T + 1):
        if bilevel:
            gx = neumann_module.neumann_hypergradient(problem, x, y, algorithm.neumann_terms, rng)[0]
            gx2 = neumann_module.neumann_hypergradient(problem, x, y, algorithm.neumann_terms, rng)[0]
            gy = problem.lower_oracle(x, y, rng)
        else:
            gx, gy = problem.oracle(x, y, rng)
            gx2 = problem.oracle(x, y, rng)[0]
        previous, noise_sum = noise_sum, noise_sum + float(np.sum((gx - gx2) ** 2))
        lower_sum += float(np.sum(gy**2))
        a = (1 + noise_sum / algorithm.alpha**2) ** -0.5
        a_prime = (1 + previous / algorithm.alpha**2) ** -0.5
        m = gx if m is None else (1 - a) * m + a * gx
        if np.linalg.norm(m) > 0:  # m/‖m‖ is undefined at m = 0: no x-step there (x stays)
            x = x - algorithm.lr_x * a_prime**0.5 / t**0.5 * m / np.linalg.norm(m)
        step_y = algorithm.lr_y / (algorithm.gamma**2 + lower_sum) ** 0.5 * gy
        y = y - step_y if bilevel else y + step_y
    return np.concatenate([x, y])


def _transcription(ctx: Context) -> Outcome:
    cases = [
        (synthetic_minimax(3.0, "sphere", coupling=COUPLING), AdaMinimax(lr_x=0.7, lr_y=2.0, alpha=1.5,
                                                                          gamma=0.5), False, 200),
        (quadratic_bilevel(sigma=0.5, noise="sphere", mu_g=1.0, l_g1=2.0, seed=ctx.seed),
         AdaBiO(lr_x=0.7, lr_y=2.0, alpha=1.5, gamma=0.5, neumann_terms=4), True, 60),
    ]
    # a start where ∇_x f(x_0, y_0) = −sin 2 + 1·sin 2 = 0 exactly but ∇Φ(2) ≠ 0: the first momentum is 0
    cases.append((synthetic_minimax(0.0, coupling=1.0, x0=2.0, y0=math.sin(2.0)),
                  AdaMinimax(lr_x=0.7, lr_y=2.0, alpha=1.5, gamma=0.5), False, 40))
    worst, counts = 0.0, []
    for problem, algorithm, bilevel, T in cases:
        sol = solve(problem, algorithm, maxiters=T, tol=TINY_TOL, seed=ctx.seed)
        ours = np.concatenate([sol.x, sol.original["y"]])
        reference = _reference_run(problem, algorithm, T, ctx.seed, bilevel)
        worst = max(worst, float(np.abs(ours - reference).max() / (1 + np.abs(reference).max())))
        # oracle work per iteration: Ada-Minimax two stochastic gradients; Ada-BiO two hypergradients of
        # N Hessian-vector products each (N − 1 in the series, one cross term) and three gradients
        expected = (3 * T, 2 * algorithm.neumann_terms * T) if bilevel else (2 * T, 0)
        counts.append(((sol.stats.grad_calls, sol.stats.hess_calls), expected))
    counts_ok = all(got == want for got, want in counts)
    # 1e-10: the two transcriptions round differently (x**0.5 vs math.sqrt), ~T·eps after T steps
    return fact(worst <= 1e-10 and counts_ok, "solve(AdaMinimax), solve(AdaBiO) reproduce Algorithms 1–2 "
                f"with rules (3)–(4), also from a zero first momentum; (gradient, HVP) calls {counts}",
                max_relative_gap=figure(worst, 2, 1e-13))


def _transcription_sabotaged(ctx: Context) -> Outcome:
    original = ada_minimax_module.ada_parameters

    def without_gamma(t, noise_sum, previous_noise_sum, lower_sum, **kw):
        return original(t, noise_sum, previous_noise_sum, lower_sum, **{**kw, "gamma": 1e-3})

    with patched(ada_minimax_module, "ada_parameters", without_gamma):
        return _transcription(ctx)


register(Claim(
    id=f"{PAPER}.transcription", paper=PAPER, source="Algorithms 1–2 with the parameter choices (3)–(4) "
    "(our reconstruction, see the note)", origin=Origin.IMPLEMENTATION,
    statement="solve(AdaMinimax) (200 iterations, σ = 3; and 40 noiseless iterations from a start whose "
              "first momentum is exactly 0, where m/‖m‖ is taken as 0) and solve(AdaBiO) (60 iterations, "
              "σ = 0.5, N = 4) end at the x and y of an independent transcription of Algorithms 1–2, to "
              "1e-10 relative, and report their oracle work: 2 gradients per Ada-Minimax iteration, 3 "
              "gradients and 2N Hessian-vector products per Ada-BiO iteration.",
    kind=Kind.NUMERIC,
    check=_transcription,
    control=_transcription_sabotaged,
    control_description="the solvers' parameter rule with γ replaced by 1e-3 (a larger first y-step)",
    budget_s=30.0,
))
