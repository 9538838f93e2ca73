"""Claims of GGDOpt (Zhang, Wang, Liu, *A Gradient Guided Diffusion Framework for Chance Constrained
Programming*, NeurIPS 2025, arXiv:2510.12238), against :mod:`algorithms.chance`.

The paper's main text has four numbered results: Theorem 1 (the score of the diffused product
of the data and Boltzmann distributions is the data score plus a guidance term), Corollary 1
(the first- and second-order guidance under a Gaussian posterior), Theorem 2 (as T, β → ∞ the
guided samples keep the data's support and concentrate on argmin f over it) and Theorem 3 (a
practical bound on E f(x) − f(x*) by a time-length term and an inverse-temperature term). Its
experiments are Table 1 (the linear CCP against SAA) and Table 2 (robust waveform design).

* ``ggdopt.guidance_closed_form`` (numeric, Corollary 1): the implemented guidance equals
  ∇_μ log E_{N(μ, σ²I)}[e^{−βf}] computed by Gauss–Hermite quadrature and finite differences,
  first order on linear f, second order on quadratic f.
* ``ggdopt.product_sampling`` (numeric, Theorem 1): the guided reverse SDE with the exact data
  score of a Gaussian toy samples the closed-form product Gaussian (energy two-sample test), with
  and without the Langevin corrector.
* ``ggdopt.temperature`` (rate, Theorems 2-3): E f − min f decays like β⁻¹ on the Gaussian toy
  (and matches its closed form at β = 2).
* ``ggdopt.feasibility`` (numeric, derived): GGDOpt's answer on the linear CCP violates at most ρ
  of its training samples and meets the chance constraint on fresh samples.
* ``ggdopt.vs_saa`` (numeric, Table 1): GGDOpt's objective, averaged over independent repeats, is
  within 1.5 % of the SOC optimum (a t interval of the mean relative gap against the window);
  seconds, and in the full profile SAA-MILP's gap and out-of-sample feasibility, reported.
* ``ggdopt.tilt`` (numeric, derived from Theorem 2): the guided samples' mean objective lies below
  that of D_ρ, the feasible training points (the Boltzmann tilt lowers E f), one-sided test.
* ``ggdopt.saa_baseline`` (numeric, implementation check): the SAA-MILP baseline of Table 1 returns
  the SAA optimum (against enumeration and an independent MILP) and Infeasible when none exists.
* ``ggdopt.stage1_restriction`` (numeric, implementation check): stage 1's restricted problem (13) holds
  and is active at the returned point, a row with zero spread included.
* ``ggdopt.solve_contract`` (property, implementation check): a callback stop gives Terminated after the
  right number of sampler steps, and the reported seconds fit in the solve's wall time.
* ``ggdopt.assumptions`` (property, implementation check): every input assumption is enforced at
  its boundary (the value just inside accepted, just outside refused).
* ``ggdopt.score_models`` (property, implementation check): GaussianScore's input width, Tweedie's mean
  against the Gaussian posterior mean, and train_score's times spanning [t_min, 1].
* ``ggdopt.feasible_set_rule`` (property, implementation check): stage 1's budget of 2·n_points restricted
  problems, and D_ρ (and the answer's feasibility) taking the points of violation exactly ρ.
* ``ggdopt.reverse_step`` (numeric, implementation check): two predictor–corrector steps of the sampler equal
  the documented steps written out on the same normal draws.

>>> from theorems.core import REGISTRY
>>> sorted(k for k in REGISTRY if k.startswith("ggdopt."))  # doctest: +NORMALIZE_WHITESPACE
['ggdopt.assumptions', 'ggdopt.feasibility', 'ggdopt.feasible_set_rule', 'ggdopt.guidance_closed_form',
 'ggdopt.product_sampling', 'ggdopt.reverse_step', 'ggdopt.saa_baseline', 'ggdopt.score_models',
 'ggdopt.solve_contract', 'ggdopt.stage1_restriction', 'ggdopt.temperature', 'ggdopt.tilt', 'ggdopt.vs_saa']
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, replace
from functools import lru_cache

import flint
import numpy as np
import scipy.stats
import sympy
import torch

from algorithms import RetCode, solve
from algorithms._validation import UserCallableError
from algorithms.chance import (
    SAAMILP,
    ChanceConstrainedProblem,
    GaussianScore,
    GGDOpt,
    LinearStructure,
    ScoreMLP,
    ScoreModel,
    VPSchedule,
    collect_feasible_points,
    empirical_violation,
    first_order_guidance,
    guidance_term,
    guided_reverse_sample,
    linear_gaussian_problem,
    out_of_sample_feasibility,
    portfolio_var_problem,
    restricted_solution,
    second_order_guidance,
    train_score,
    tweedie_mean,
)
from algorithms.chance.problem import box_minimum
from algorithms.core import WORKING_MIN
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import Boundary, boundary_outcome
from theorems.core.certificates import Certificate, Method, Rejected
from theorems.core.evidence import fact, figure, numeric_outcome
from theorems.core.rates import rate_outcome

PAPER = "ggdopt"

register_results(
    PAPER,
    [
        Result(
            "Theorem 1",
            "The score of the diffused product p_0·e^{−βf} is the diffused data score plus "
            "G_t = ∇_{x_t} log E[e^{−βf(x_0)} | x_t] (written through a mean-value point x̂_0)",
            checkable=True,
        ),
        Result(
            "Corollary 1",
            "For a Gaussian posterior N(μ, σ²I) the guidance is −β∇f(μ) to first order and "
            "−β(I + βσ²∇²f(μ))⁻¹∇f(μ) to second order",
            checkable=True,
        ),
        Result(
            "Theorem 2",
            "With a score error bounded by δ, as T → ∞ the guided samples have the support of "
            "the product distribution, and as β → ∞ they concentrate at argmin f over D_ρ",
            checkable=True,
        ),
        Result(
            "Theorem 3",
            "Under Assumption 1 (VE forward process, prior fitted to the product's moments, "
            "‖∇f‖ <= C₁‖x‖ + C₂) E f(x) − f(x*) is bounded by a time-length term (via C_T) plus an "
            "inverse-temperature term that vanish as T, β → ∞",
            checkable=True,
        ),
        Result(
            "Table 1",
            "On the linear CCP (26) with n = 8 GGDOpt's objective is within 1.5 % of the SOC optimum, "
            "better than SAA as a MIP, about 80 % faster than the SAA baselines",
            checkable=True,
        ),
        Result(
            "Table 2",
            "Robust waveform design (27), Nt = 16, K = 3: GGDOpt beats the sphere-bounding and "
            "Bernstein approximations at a fraction of their time",
            checkable=False,
            why="a complex SDP instance with the authors' channel model and two convex-approximation "
            "baselines (sphere bounding, Bernstein) that need the exact distribution; "
            "benchmarks/bench_ggdopt.py runs a small real-valued, beam-restricted analogue "
            "(algorithms.chance.beamforming_problem) against SAA-MILP, CVaR and scenario instead",
        ),
        Result(
            "Figure 1",
            "The three stages of GGDOpt: data from restricted problems, score learning, guided sampling",
            checkable=False,
            why="a schematic of the method, with no quantity in it; its stages are what every claim "
            "of this module runs",
        ),
    ],
)

#: a toy where everything is Gaussian: data N(m0, I), f(x) = ½(x − a)ᵀH(x − a)
TOY_MEAN = np.array([1.0, -0.5])
TOY_TARGET = np.array([-1.0, 1.0])
TOY_HESSIAN = np.diag([1.0, 3.0])


def _toy_objective(hessian: np.ndarray = TOY_HESSIAN, target: np.ndarray = TOY_TARGET):
    H = torch.as_tensor(hessian, dtype=torch.float64)
    a = torch.as_tensor(target, dtype=torch.float64)

    def f(x: torch.Tensor) -> torch.Tensor:
        return 0.5 * (((x - a) @ H) * (x - a)).sum(dim=1)

    return f


#: the data spread of the product-sampling toy: not 1, so that a wrong data variance in the exact score
#: (which cancels at unit variance) changes the samples
PRODUCT_STD = np.array([1.3, 0.8])


def toy_product(
    beta: float,
    hessian: np.ndarray = TOY_HESSIAN,
    target: np.ndarray = TOY_TARGET,
    std: np.ndarray | None = None,
):
    """Mean and covariance of N(m0, diag(std²))·e^{−βf} (a Gaussian: precision diag(std⁻²) + βH)."""
    data_precision = np.eye(2) if std is None else np.diag(1.0 / np.asarray(std) ** 2)
    cov = np.linalg.inv(data_precision + beta * hessian)
    return cov @ (data_precision @ TOY_MEAN + beta * hessian @ target), cov


# ---------------------------------------------------------------------- ggdopt.guidance_closed_form


def _quadrature_guidance(f_numpy, mu: np.ndarray, sigma2: float, beta: float) -> np.ndarray:
    """∇_μ log E_{N(μ, σ²I)}[e^{−βf}] by 40×40 Gauss–Hermite quadrature and central differences."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    grid = np.stack(np.meshgrid(nodes, nodes, indexing="ij"), axis=-1).reshape(-1, 2)
    w = np.outer(weights, weights).reshape(-1)

    def log_expectation(m: np.ndarray) -> float:
        values = -beta * f_numpy(m + np.sqrt(sigma2) * grid)
        top = values.max()
        return float(top + np.log(np.sum(w * np.exp(values - top))))

    step = 1e-4
    return np.array(
        [(log_expectation(mu + step * e) - log_expectation(mu - step * e)) / (2 * step) for e in np.eye(2)]
    )


def _check_guidance(ctx: Context, *, drop_curvature: bool) -> Outcome:
    rng = ctx.rng("guidance")
    implemented, reference = [], []
    for _ in range(ctx.pick(6, 30)):
        mu = rng.normal(size=2)
        beta, sigma2 = float(rng.uniform(0.3, 3.0)), float(rng.uniform(0.05, 0.8))
        # linear f: first order is exact
        c = rng.normal(size=2)
        implemented.append(first_order_guidance(torch.as_tensor(c[None]), beta=beta)[0].numpy())
        reference.append(_quadrature_guidance(lambda x, c=c: x @ c, mu, sigma2, beta))
        # quadratic f = ½xᵀHx + qᵀx: second order is exact (the control drops (I + βσ²H)⁻¹)
        M = rng.normal(size=(2, 2))
        H, q = M @ M.T + 0.2 * np.eye(2), rng.normal(size=2)
        grad = torch.as_tensor((H @ mu + q)[None])
        if drop_curvature:
            g = first_order_guidance(grad, beta=beta)
        else:
            g = second_order_guidance(grad, torch.as_tensor(H[None]), beta=beta, sigma2=sigma2)
        implemented.append(g[0].numpy())
        reference.append(
            _quadrature_guidance(
                lambda x, H=H, q=q: 0.5 * np.einsum("bi,ij,bj->b", x, H, x) + x @ q, mu, sigma2, beta
            )
        )
    # 1e-6: the integrands are Gaussians, which 40-node Gauss–Hermite integrates to ~1e-12 at these
    # widths (βσ²‖H‖ <= 20); central differences with step 1e-4 add O(1e-8 · |f'''|) = O(1e-8)
    outcome = numeric_outcome(
        np.array(implemented),
        np.array(reference),
        rtol=1e-6,
        atol=1e-6,
        what="Corollary 1 guidance vs quadrature",
        names=("implemented", "quadrature"),
    )
    # the chain to x_t (Theorem 1's G_t = (∂μ/∂x_t)ᵀ ∇_μ log E[e^{−βf}]) through Tweedie's mean
    # μ = (x + (1 − ᾱ)s(x))/√ᾱ, for a score model that is not a gradient field (an untrained MLP, so ∂μ/∂x
    # is not symmetric): guidance_term's first-order G against the vector-Jacobian product −β(∂μ/∂x)ᵀc
    # of a linear f = cᵀx, by autograd; the same float64 operations up to summation order, hence 1e-10
    model = ScoreMLP(3, hidden=16, seed=ctx.seed)
    x = torch.as_tensor(rng.normal(size=(4, 3)))
    c = torch.as_tensor(rng.normal(size=3))
    beta, t = 1.7, 0.4
    G, _ = guidance_term(model, lambda z: z @ c, x, t, beta=beta, order="first")
    xg = x.clone().requires_grad_(True)
    ab = model.schedule.alpha_bar(t)
    mu = (xg + (1.0 - ab) * model.score(xg, t)) / math.sqrt(ab)
    (vjp,) = torch.autograd.grad((mu * (-beta * c)).sum(), xg)
    chain_gap = float((G - vjp).abs().max() / (1.0 + vjp.abs().max()))
    outcome.evidence["chain_rule_relative_gap"] = figure(chain_gap, 2, 1e-16)
    if chain_gap > 1e-10:
        return Outcome("fail", f"guidance_term's chain to x_t is not (∂μ/∂x)ᵀ∇_μ (gap {chain_gap:.3g}); "
                       + outcome.summary, outcome.evidence)
    return outcome


# ---- certificate: Corollary 1's second-order form is exact for quadratic f, in d = 1 and 2, symbolically.
# For x ~ N(μ, σ²I) and f = ½xᵀHx + qᵀx the integrand's exponent is −½xᵀPx + bᵀx + c with P = I/σ² + βH,
# b = μ/σ² − βq, c = −‖μ‖²/(2σ²); the Gaussian integral (trusted, P ≻ 0) gives log E[e^{−βf}] =
# ½bᵀP⁻¹b + c + (terms free of μ), whose μ-gradient the recheck compares with −β(I + βσ²H)⁻¹(Hμ + q).

_G_BETA, _G_S2 = sympy.symbols("beta s2", positive=True)


def _g_symbols(d: int):
    mu = sympy.Matrix(sympy.symbols(f"mu0:{d}", real=True))
    q = sympy.Matrix(sympy.symbols(f"q0:{d}", real=True))
    x = sympy.Matrix(sympy.symbols(f"x0:{d}", real=True))
    h = {(i, j): sympy.Symbol(f"h{min(i, j)}{max(i, j)}", real=True) for i in range(d) for j in range(d)}
    H = sympy.Matrix(d, d, lambda i, j: h[(i, j)])
    return mu, q, x, H


def _guidance_cert_prove() -> dict:
    out = {}
    for d in (1, 2):
        mu, q, _, H = _g_symbols(d)
        P = sympy.eye(d) / _G_S2 + _G_BETA * H
        b = mu / _G_S2 - _G_BETA * q
        c = -(mu.T * mu)[0] / (2 * _G_S2)
        out[str(d)] = {"P": sympy.srepr(P), "b": sympy.srepr(b), "c": sympy.srepr(c)}
    return out


def _guidance_cert_recheck(proof: dict) -> str:
    for d in (1, 2):
        if str(d) not in proof:
            raise Rejected(f"no artifact for d = {d}")
        mu, q, x, H = _g_symbols(d)
        P, b, c = (sympy.sympify(proof[str(d)][k]) for k in ("P", "b", "c"))
        # (1) the exponent of φ_{μ,σ²}(x)·e^{−βf(x)} (constants aside) is −½xᵀPx + bᵀx + c, exactly
        exponent = -((x - mu).T * (x - mu))[0] / (2 * _G_S2) - _G_BETA * ((x.T * H * x)[0] / 2 + (q.T * x)[0])
        quadratic = -(x.T * P * x)[0] / 2 + (b.T * x)[0] + c
        if sympy.expand(exponent - quadratic) != 0:
            raise Rejected(f"d = {d}: the exponent is not −½xᵀPx + bᵀx + c")
        # (2) ∇_μ (½bᵀP⁻¹b + c) equals −β(I + βσ²H)⁻¹(Hμ + q) (rational functions, cancelled to 0)
        log_e = ((b.T * P.inv() * b)[0]) / 2 + c
        claimed = -_G_BETA * (sympy.eye(d) + _G_BETA * _G_S2 * H).inv() * (H * mu + q)
        for i in range(d):
            if sympy.cancel(sympy.diff(log_e, mu[i]) - claimed[i]) != 0:
                raise Rejected(f"d = {d}: ∂/∂μ_{i} log E differs from the second-order guidance")
    return ("d = 1, 2: the exponent is −½xᵀPx + bᵀx + c with P = I/σ² + βH, and ∇_μ of ½bᵀP⁻¹b + c is "
            "−β(I + βσ²H)⁻¹(Hμ + q) identically in μ, q, H, β, σ²")


def _guidance_cert_refute() -> dict:
    return {"beta": 1, "s2": 1, "h": 1, "q": 1, "mu": 0, "claimed_first_order": -1}


def _guidance_cert_recheck_witness(w: dict) -> str:
    """From the definition: d/dμ log ∫ φ(x − μ)e^{−βf(x)}dx at μ = 0 is E_Q[x]/σ², Q ∝ φ(x)e^{−βf(x)},
    computed by arb integration over [−30, 30] (the tails beyond carry < e^{−400} of the mass)."""
    beta, s2, h, q = (flint.arb(w[k]) for k in ("beta", "s2", "h", "q"))
    if w["mu"] != 0 or w["s2"] != 1 or w["h"] != 1 or w["beta"] != 1 or w["q"] != 1:
        raise Rejected("the witness recheck is written for μ = 0, σ² = β = h = q = 1")
    density = lambda x: (-(x * x) / (2 * s2) - beta * (h * x * x / 2 + q * x)).exp()  # noqa: E731
    num = flint.acb.integral(lambda x, _: x * density(x), -30, 30).real
    den = flint.acb.integral(lambda x, _: density(x), -30, 30).real
    gradient = num / den / s2
    first_order = flint.arb(w["claimed_first_order"])
    if gradient.overlaps(first_order):
        raise Rejected(f"the true gradient {gradient} does not exclude the first-order value {first_order}")
    return f"at μ = 0, β = σ² = h = q = 1 the gradient is {gradient.str(5)}, not the first-order −β∇f = −1"


GUIDANCE_CERTIFICATE = Certificate(
    statement="For x_0 ~ N(μ, σ²I) and quadratic f(x) = ½xᵀHx + qᵀx (H symmetric with I + βσ²H ≻ 0), "
              "∇_μ log E[e^{−βf(x_0)}] = −β(I + βσ²H)⁻¹(Hμ + q): Corollary 1's second-order guidance is "
              "exact for quadratic f, and (H = 0) the first-order one for linear f",
    scope="dimensions d = 1 and 2 (the check's dimension), symbolically in every μ, q, H, β > 0, σ² > 0",
    method=Method.EXACT_ALGEBRA,
    trusts="the Gaussian integral ∫exp(−½xᵀPx + bᵀx)dx = (2π)^{d/2}det(P)^{−1/2}exp(½bᵀP⁻¹b) for P ≻ 0; "
           "sympy's polynomial expansion and rational-function cancellation",
    prove=_guidance_cert_prove,
    recheck=_guidance_cert_recheck,
    control_statement="the first-order guidance −β∇f(μ) is already exact for quadratic f (the curvature "
                      "factor (I + βσ²H)⁻¹ dropped)",
    refute=_guidance_cert_refute,
    recheck_witness=_guidance_cert_recheck_witness,
    covers=(),  # Corollary 1 is for every dimension; d <= 2 is certified
)


register(
    Claim(
        id="ggdopt.guidance_closed_form",
        paper=PAPER,
        source="Corollary 1",
        statement="For a Gaussian posterior N(μ, σ²I), the implemented first-order guidance −β∇f(μ) equals "
        "∇_μ log E[e^{−βf(x_0)}] for linear f, and the second-order guidance −β(I + βσ²∇²f)⁻¹∇f(μ) equals "
        "it for quadratic f (reference: Gauss–Hermite quadrature plus central differences); guidance_term "
        "chains it to x_t as (∂μ/∂x_t)ᵀ∇_μ through Tweedie's mean, also for a score model that is not a "
        "gradient field (against autograd's vector-Jacobian product, 1e-10)",
        kind=Kind.NUMERIC,
        origin=Origin.PAPER,
        covers=("Corollary 1",),
        deviation="checked on the f for which each order is exact (linear, quadratic), in two dimensions",
        check=lambda ctx: _check_guidance(ctx, drop_curvature=False),
        control=lambda ctx: _check_guidance(ctx, drop_curvature=True),
        control_description="the second-order guidance with its curvature factor (I + βσ²H)⁻¹ dropped",
        budget_s=30.0,
        certificate=GUIDANCE_CERTIFICATE,
        expected_verdict="certified",
    )
)


# ---------------------------------------------------------------------- ggdopt.product_sampling


def energy_statistic(distances: np.ndarray, labels: np.ndarray) -> float:
    """The two-sample energy statistic 2E‖X − Y‖ − E‖X − X'‖ − E‖Y − Y'‖ from all pairwise distances
    (two matrix-vector products with the group indicators)."""
    first = (labels == 0).astype(np.float64)
    second = 1.0 - first
    d_first, d_second = distances @ first, distances @ second
    n1, n2 = first.sum(), second.sum()
    return float(2 * (second @ d_first) / (n1 * n2) - (first @ d_first) / n1**2 - (second @ d_second) / n2**2)


def energy_test(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, permutations: int) -> float:
    """Permutation p-value of the energy two-sample test (Székely & Rizzo)."""
    pooled = np.vstack([x, y])
    distances = np.linalg.norm(pooled[:, None] - pooled[None], axis=2)
    labels = np.repeat([0, 1], [len(x), len(y)])
    observed = energy_statistic(distances, labels)
    exceed = sum(
        energy_statistic(distances, rng.permutation(labels)) >= observed for _ in range(permutations)
    )
    return (1 + exceed) / (1 + permutations)


def _check_product(ctx: Context, *, guidance: str) -> Outcome:
    beta, size, permutations, alpha = 1.0, ctx.pick(300, 1000), ctx.pick(200, 500), 0.05
    rng = ctx.rng("product")
    mean, cov = toy_product(beta, std=PRODUCT_STD)
    model = GaussianScore(TOY_MEAN, PRODUCT_STD, VPSchedule())
    # the predictor alone and the predictor–corrector sampler (one Langevin step per step, the
    # default of GGDOpt): both target the same marginals, so both must match the product
    p_values, means, completed = {}, {}, True
    for corrector_steps in (0, 1):
        run = guided_reverse_sample(
            model,
            _toy_objective(),
            n_samples=size,
            beta=beta,
            guidance=guidance,
            n_steps=ctx.pick(100, 400),
            corrector_steps=corrector_steps,
            seed=ctx.seed + corrector_steps,
        )
        samples = run.x.numpy()
        completed = completed and run.status == "completed"
        exact = rng.multivariate_normal(mean, cov, size=size)
        p_values[corrector_steps] = energy_test(samples, exact, rng, permutations) if completed else 0.0
        means[corrector_steps] = samples.mean(axis=0)
    # the test's power, measured: exact draws against draws shifted by 0.4 of the smaller product sd
    shift = 0.4 * np.sqrt(np.linalg.eigvalsh(cov)[0]) * np.array([1.0, 0.0])
    reps = ctx.pick(20, 50)
    power = np.mean(
        [
            energy_test(
                rng.multivariate_normal(mean, cov, size=size),
                rng.multivariate_normal(mean + shift, cov, size=size),
                rng,
                100,
            )
            <= alpha
            for _ in range(reps)
        ]
    )
    ok = completed and min(p_values.values()) > alpha and power >= 0.8
    return fact(
        ok,
        f"guided samples ({guidance}; predictor, and predictor–corrector) vs exact product draws: "
        f"energy test p > {alpha} for both, with power >= 0.8 against a 0.4-sd shift",
        p_value=p_values[0],
        p_value_corrector=p_values[1],
        power=power,
        sample_mean_0=means[0][0],
        sample_mean_1=means[0][1],
        corrector_mean_0=means[1][0],
        corrector_mean_1=means[1][1],
        exact_mean_0=mean[0],
        exact_mean_1=mean[1],
    )


# ---- certificate: the reference the check samples from. N(m0, D)·e^{−β(x − a)ᵀH(x − a)/2} (D diagonal, H
# symmetric) has exponent −½(x − μ)ᵀΣ⁻¹(x − μ) + const with Σ⁻¹ = D⁻¹ + βH and μ = Σ(D⁻¹m0 + βHa): the
# formula of toy_product, exactly, in d = 2 with every parameter symbolic.

_P_SYMBOLS = sympy.symbols("x0 x1 m0 m1 a0 a1 h00 h01 h11", real=True)
_P_POS = sympy.symbols("s0 s1 beta", positive=True)


def _product_parts():
    x0, x1, m0, m1, a0, a1, h00, h01, h11 = _P_SYMBOLS
    s0, s1, beta = _P_POS
    x, m, a = sympy.Matrix([x0, x1]), sympy.Matrix([m0, m1]), sympy.Matrix([a0, a1])
    H = sympy.Matrix([[h00, h01], [h01, h11]])
    D_inv = sympy.diag(1 / s0**2, 1 / s1**2)
    return x, m, a, H, D_inv, beta


def _product_cert_prove() -> dict:
    _, m, a, H, D_inv, beta = _product_parts()
    precision = D_inv + beta * H
    mean = precision.inv() * (D_inv * m + beta * H * a)
    return {"precision": sympy.srepr(precision), "mean": sympy.srepr(sympy.simplify(mean))}


def _product_cert_recheck(proof: dict) -> str:
    x, m, a, H, D_inv, beta = _product_parts()
    precision, mean = sympy.sympify(proof["precision"]), sympy.sympify(proof["mean"])
    if (precision - (D_inv + beta * H)).applyfunc(sympy.cancel) != sympy.zeros(2, 2):
        raise Rejected("the recorded precision is not D⁻¹ + βH")
    exponent = -((x - m).T * D_inv * (x - m))[0] / 2 - beta * ((x - a).T * H * (x - a))[0] / 2
    gaussian = -((x - mean).T * precision * (x - mean))[0] / 2
    # equal up to a constant: the x-gradients agree identically (rational functions, cancelled to 0)
    for xi in x:
        if sympy.cancel(sympy.together(sympy.diff(exponent - gaussian, xi))) != 0:
            raise Rejected(f"∂/∂{xi}: the product's exponent is not −½(x − μ)ᵀΣ⁻¹(x − μ) + const")
    return ("in d = 2, for every m0, a, s > 0, symmetric H and β > 0 the product's exponent is "
            "−½(x − μ)ᵀ(D⁻¹ + βH)(x − μ) + const with μ = (D⁻¹ + βH)⁻¹(D⁻¹m0 + βHa): toy_product's formula")


def _product_cert_refute() -> dict:
    return {"m0": "0", "a": "1", "s2": "4", "h": "1", "beta": "1", "claimed_mean": "1/2"}


def _product_cert_recheck_witness(w: dict) -> str:
    """Control: the unweighted average (m0 + βa)/(1 + β) as the product's mean. In 1-D the mean is the
    stationary point of the exponent −(x − m0)²/(2s²) − βh(x − a)²/2, computed here exactly."""
    x = sympy.Symbol("x", real=True)
    m0, a, s2, h, beta = (sympy.Rational(w[k]) for k in ("m0", "a", "s2", "h", "beta"))
    exponent = -(x - m0) ** 2 / (2 * s2) - beta * h * (x - a) ** 2 / 2
    (mean,) = sympy.solve(sympy.diff(exponent, x), x)
    if mean == sympy.Rational(w["claimed_mean"]):
        raise Rejected("the unweighted average is right here: no counterexample")
    return (f"with s² = {s2} the product's mean is {mean}, not the unweighted (m0 + βa)/(1 + β) = "
            f"{w['claimed_mean']}")


PRODUCT_CERTIFICATE = Certificate(
    statement="The product N(m0, D)·e^{−βf}, f = ½(x − a)ᵀH(x − a), D diagonal, is the Gaussian with "
              "precision D⁻¹ + βH and mean (D⁻¹ + βH)⁻¹(D⁻¹m0 + βHa) (toy_product's formula, the "
              "distribution the check's exact draws come from)",
    scope="d = 2 (the check's toy), every m0, a, spreads s0, s1 > 0, symmetric H, β > 0 with D⁻¹ + βH ≻ 0",
    method=Method.EXACT_ALGEBRA,
    trusts="a density ∝ exp(−½(x − μ)ᵀP(x − μ)) with P ≻ 0 is N(μ, P⁻¹); sympy's rational-function "
           "cancellation",
    prove=_product_cert_prove,
    recheck=_product_cert_recheck,
    control_statement="the product's mean is the unweighted average (m0 + βa)/(1 + β) (the data spread "
                      "ignored, the check's unit-variance pitfall)",
    refute=_product_cert_refute,
    recheck_witness=_product_cert_recheck_witness,
)


register(
    Claim(
        id="ggdopt.product_sampling",
        paper=PAPER,
        source="Theorem 1 (with Corollary 1, second order)",
        statement="With the exact diffused score of Gaussian data N(m0, diag(1.3², 0.8²)) and "
        "f(x) = ½(x − a)ᵀH(x − a), "
                  "the reverse "
        "VP SDE driven by the data score plus the guidance G_t of Theorem 1 (second order, Tweedie's "
        "posterior, chained through ∂μ/∂x_t) samples the product N(m0, diag(s²))·e^{−βf}, with the predictor "
        "alone and with one Langevin corrector step per step: an energy two-sample test against exact "
        "draws does not reject at level 0.05 for either, while its measured power against a "
        "0.4-sd shift is >= 0.8",
        kind=Kind.NUMERIC,
        origin=Origin.PAPER,
        covers=("Theorem 1",),
        deviation="a Gaussian toy, where the posterior is Gaussian and the second-order guidance exact; "
                  "the data "
        "score is exact (no training); sampler discretised in 100 steps",
        check=lambda ctx: _check_product(ctx, guidance="second"),
        control=lambda ctx: _check_product(ctx, guidance="none"),
        control_description="no guidance: the samples follow the data distribution N(m0, I)",
        budget_s=120.0,
        certificate=PRODUCT_CERTIFICATE,
        expected_verdict="certified",
    )
)


# ---------------------------------------------------------------------- ggdopt.temperature


def _toy_gaps(
    ctx: Context, betas: list[float], replicates: int, size: int, *, fixed_beta: float | None = None
) -> np.ndarray:
    """E f(x) − min f over guided samples of the isotropic toy (f = ½‖x − a‖², min 0), per replicate.

    The samples of one run are independent paths (no corrector, so nothing couples them), so one
    run of ``replicates`` × ``size`` samples split into ``replicates`` groups stands for as many seeds.
    ``fixed_beta`` (the control) samples every column at that one β, in a single run.
    """
    model = GaussianScore(TOY_MEAN, np.ones(2), VPSchedule())
    f = _toy_objective(np.eye(2))
    steps = ctx.pick(150, 500)
    if fixed_beta is not None:
        run = guided_reverse_sample(
            model,
            f,
            n_samples=len(betas) * replicates * size,
            beta=fixed_beta,
            guidance="second",
            n_steps=steps,
            corrector_steps=0,
            seed=ctx.seed,
        )
        return f(run.x).reshape(replicates, len(betas), size).mean(dim=2).numpy()
    gaps = np.zeros((replicates, len(betas)))
    for j, beta in enumerate(betas):
        run = guided_reverse_sample(
            model,
            f,
            n_samples=replicates * size,
            beta=beta,
            guidance="second",
            n_steps=steps,
            corrector_steps=0,
            seed=ctx.seed + j,
        )
        gaps[:, j] = f(run.x).reshape(replicates, size).mean(dim=1).numpy()
    return gaps


def _toy_gap_moments(beta: float) -> tuple[float, float]:
    """Exact mean and sd of f = ½‖x − a‖² under the isotropic toy's product N(μ, s²I): s² = 1/(1 + β),
    μ − a = (m0 − a)/(1 + β); E f = ½(‖μ − a‖² + n s²), Var f = ½ n s⁴ + s²‖μ − a‖²."""
    s2, offset2 = 1.0 / (1.0 + beta), float(np.sum((TOY_MEAN - TOY_TARGET) ** 2)) / (1.0 + beta) ** 2
    n = TOY_MEAN.size
    return 0.5 * (offset2 + n * s2), float(np.sqrt(0.5 * n * s2**2 + s2 * offset2))


def _check_temperature(ctx: Context, *, fixed_beta: bool) -> Outcome:
    betas = [2.0, 8.0, 32.0, 128.0]
    replicates, size = ctx.pick(4, 8), ctx.pick(200, 1000)
    gaps = _toy_gaps(ctx, betas, replicates, size, fixed_beta=betas[0] if fixed_beta else None)
    # exact: E f = ½(‖m0 − a‖²/(1 + β)² + 2/(1 + β)); its least-squares log-log slope over these four
    # β is −1.07 (the 1/β² bias term still counts at β = 2), inside the window −1 ± 0.1 widened by the CI
    outcome = rate_outcome(
        betas,
        gaps,
        claimed=-1.0,
        relation="==",
        ctx=ctx,
        margin=0.1,
        max_width=0.3,
        what="E f(x) − min f against β",
        plot_name="ggdopt_temperature.png",
        xlabel="inverse temperature β",
        ylabel="E f − f*",
    )
    # the slope is blind to a constant factor on the guidance; the level at the smallest β (where the
    # 150-step discretisation error is smallest) must match the closed form within 3 sd of the mean
    # of replicates × size independent samples (at β = 2, 800 samples: sd of the mean 0.021, window 0.062)
    exact, sd = _toy_gap_moments(betas[0])
    level, window = float(gaps[:, 0].mean()), 3 * sd / np.sqrt(replicates * size)
    evidence = {**outcome.evidence, "level_at_smallest_beta": figure(level), "exact_level": figure(exact)}
    evidence["level_window"] = figure(window)
    if outcome.status == "pass" and abs(level - exact) > window:
        return Outcome(
            "fail",
            f"{outcome.summary}, but E f at β = {betas[0]:g} is {level:.4f}, not the exact {exact:.4f} "
            f"± {window:.4f}",
            evidence,
            outcome.artifacts,
        )
    return Outcome(outcome.status, outcome.summary, evidence, outcome.artifacts)


# ---- certificate: the toy's exact gap and its β⁻¹ decay. Per coordinate, N(m, 1)·e^{−β(x − a)²/2} is
# N((m + βa)/(1 + β), 1/(1 + β)), and E (x − a)²/2 = ((μ − a)² + v)/2; summed over d coordinates the gap is
# ‖m − a‖²/(2(1 + β)²) + d/(2(1 + β)), so β·gap → d/2: the exponent is exactly −1.

_T_BETA = sympy.Symbol("beta", positive=True)
_T_X, _T_M, _T_A = sympy.symbols("x m a", real=True)


def _temperature_cert_prove() -> dict:
    mean = (_T_M + _T_BETA * _T_A) / (1 + _T_BETA)
    var = 1 / (1 + _T_BETA)
    gap = (_T_M - _T_A) ** 2 / (2 * (1 + _T_BETA) ** 2) + 1 / (2 * (1 + _T_BETA))
    return {"mean": str(mean), "var": str(var), "gap_per_coordinate": str(gap), "limit_beta_gap": "1/2"}


def _parse(text: str) -> sympy.Expr:
    return sympy.sympify(text, locals={"beta": _T_BETA, "x": _T_X, "m": _T_M, "a": _T_A})


def _leading_ratio(expr: sympy.Expr) -> tuple[int, sympy.Expr]:
    """(deg num − deg den, ratio of leading coefficients) of a rational function of β."""
    num, den = sympy.fraction(sympy.cancel(sympy.together(expr)))
    pn, pd = sympy.Poly(num, _T_BETA), sympy.Poly(den, _T_BETA)
    return pn.degree() - pd.degree(), sympy.cancel(pn.LC() / pd.LC())


def _temperature_cert_recheck(proof: dict) -> str:
    mean, var, gap = (_parse(proof[k]) for k in ("mean", "var", "gap_per_coordinate"))
    # (1) the product's exponent −(x − m)²/2 − β(x − a)²/2 equals −(x − mean)²/(2 var) up to terms free of x
    rest = -(_T_X - _T_M) ** 2 / 2 - _T_BETA * (_T_X - _T_A) ** 2 / 2 + (_T_X - mean) ** 2 / (2 * var)
    if sympy.cancel(sympy.diff(rest, _T_X)) != 0:
        raise Rejected("the product's exponent is not −(x − mean)²/(2 var) plus a constant")
    # (2) E_Q (x − a)²/2 = ((mean − a)² + var)/2 (Gaussian second moment) is the artifact's gap
    if sympy.cancel(((mean - _T_A) ** 2 + var) / 2 - gap) != 0:
        raise Rejected("the gap is not E_Q (x − a)²/2")
    # (3) β·gap → the artifact's limit: equal degrees and leading-coefficient ratio, for every m, a
    degree, ratio = _leading_ratio(_T_BETA * gap)
    if degree != 0 or sympy.cancel(ratio - _parse(proof["limit_beta_gap"])) != 0 or ratio == 0:
        raise Rejected(f"β·gap tends to {ratio if degree == 0 else 'not a finite non-zero limit'}")
    return ("per coordinate the product is N((m + βa)/(1 + β), 1/(1 + β)), the gap (m − a)²/(2(1 + β)²) + "
            "1/(2(1 + β)), and β·gap → 1/2: over d coordinates E f − f* ~ d/(2β), exponent exactly −1")


def _temperature_cert_refute() -> dict:
    return {"m": "0", "a": "0", "claimed_exponent": -2}


def _temperature_cert_recheck_witness(w: dict) -> str:
    """From the definition at m = a = 0: the product N(0, 1)e^{−βx²/2} has variance 1/(1 + β) (its
    exponent −(1 + β)x²/2), so the gap is 1/(2(1 + β)); β²·gap is unbounded, refuting a β⁻² decay."""
    m, a = sympy.Rational(w["m"]), sympy.Rational(w["a"])
    exponent = sympy.expand(-(_T_X - m) ** 2 / 2 - _T_BETA * (_T_X - a) ** 2 / 2)
    precision = -2 * sympy.Poly(exponent, _T_X).coeff_monomial(_T_X**2)  # 1 + β
    centre = sympy.Poly(exponent, _T_X).coeff_monomial(_T_X) / precision
    gap = ((centre - a) ** 2 + 1 / precision) / 2
    degree, _ = _leading_ratio(_T_BETA ** (-int(w["claimed_exponent"])) * gap)
    if degree <= 0:
        raise Rejected(f"β^{-int(w['claimed_exponent'])}·gap stays bounded: no refutation")
    return f"at m = a = 0 the gap is {sympy.simplify(gap)}, and β²·gap grows like β^{degree}: not β⁻²"


TEMPERATURE_CERTIFICATE = Certificate(
    statement="For data N(m0, I_d) and f = ½‖x − a‖² (f* = 0), the product N(m0, I)·e^{−βf} is "
              "N((m0 + βa)/(1 + β), I/(1 + β)) and E f − f* = ‖m0 − a‖²/(2(1 + β)²) + d/(2(1 + β)), so "
              "β(E f − f*) → d/2: on the claim's toy the inverse-temperature term decays exactly like β⁻¹ "
              "(the exponent the check fits)",
    scope="every m0, a ∈ R^d, every d and β > 0 (coordinates separate; the check's toy has d = 2)",
    method=Method.EXACT_ALGEBRA,
    trusts="E(x − a)² = (μ − a)² + v for x ~ N(μ, v); a density ∝ e^{−(x − μ)²/(2v)} is N(μ, v); sympy's "
           "rational-function cancellation",
    prove=_temperature_cert_prove,
    recheck=_temperature_cert_recheck,
    control_statement="the gap decays like β⁻² (exponent −2)",
    refute=_temperature_cert_refute,
    recheck_witness=_temperature_cert_recheck_witness,
)


register(
    Claim(
        id="ggdopt.temperature",
        paper=PAPER,
        source="Theorem 2; Theorem 3 (the inverse-temperature term)",
        statement="On the Gaussian toy (data N(m0, I), f = ½‖x − a‖², f* = 0 over the data's support) "
                  "the guided "
        "samples' mean gap E f(x) − f* decays like β⁻¹: the fitted log-log slope over β ∈ {2, 8, 32, "
        "128} (150 reverse steps) "
        "contains −1 (margin 0.1), and at β = 2 the gap matches its closed form within 3 standard errors",
        kind=Kind.RATE,
        origin=Origin.PAPER,
        covers=("Theorem 2", "Theorem 3"),
        deviation="the β → ∞ part only, on a toy with full support and an exact score; the exponent −1 "
                  "is our "
        "computation for this toy (the paper's bound leaves its constants unspecified); the T → ∞ "
        "time-length term is not swept, and the forward process is the VP SDE rather than Assumption 1's VE "
        "one",
        check=lambda ctx: _check_temperature(ctx, fixed_beta=False),
        control=lambda ctx: _check_temperature(ctx, fixed_beta=True),
        control_description="β held at 2 along the sweep (temperature fixed): no decay",
        budget_s=150.0,
        certificate=TEMPERATURE_CERTIFICATE,
        expected_verdict="certified",
    )
)


# ---------------------------------------------------------------------- ggdopt.feasibility, ggdopt.vs_saa


@dataclass(frozen=True)
class _NoDataScore(GGDOpt):
    """Sabotage: the sampler runs on the guidance alone (the data score replaced by zero)."""

    def _data_score(self, model: ScoreModel) -> ScoreModel:
        return _ZeroScore(model)


class _ZeroScore(ScoreModel):
    def __init__(self, model: ScoreModel) -> None:
        super().__init__()
        self.in_features, self.out_features, self.schedule = (
            model.in_features,
            model.out_features,
            model.schedule,
        )

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(X[:, :-1])


#: training samples L of the feasibility claim in both profiles: stage 1 and the sampler cost the same at
#: any L, and at L = 1000 the binomial error of an empirical violation near ρ is 0.0095 (0.0245 at 150)
FEASIBILITY_SAMPLES = 1000


def _ccp(ctx: Context, n_samples: int):
    return linear_gaussian_problem(n=ctx.pick(4, 8), rho=0.1, n_samples=n_samples, seed=ctx.seed)


def _ggdopt(ctx: Context, *, sabotage: bool = False) -> GGDOpt:
    make = _NoDataScore if sabotage else GGDOpt
    return make(
        beta=0.5,
        n_train_points=ctx.pick(150, 600),
        train_steps=ctx.pick(1500, 4000),
        batch_size=128,
        n_samples=256,
        n_steps=ctx.pick(50, 100),
        corrector_steps=0,
    )


def _saa_samples(ctx: Context) -> int:
    """L of the SAA comparison: the big-M MILP has one binary per sample."""
    return ctx.pick(150, 1000)


@contextlib.contextmanager
def _one_thread():
    """torch on one thread for a training run: on the shared 2-core machine two contended threads made
    a quick GGDOpt run 8× slower in CPU time (26 s against 3.1 s, same answer, measured)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@lru_cache(maxsize=16)
def _ggdopt_run(seed: int, profile: str, sabotage: bool, n_samples: int):
    ctx = Context(seed=seed, profile=profile)
    problem = _ccp(ctx, n_samples)
    with _one_thread():
        return problem, solve(problem, _ggdopt(ctx, sabotage=sabotage), seed=seed)


def _linear_violations(problem, x: np.ndarray, h: np.ndarray) -> float:
    """Fraction of the rows c of ``h`` with cᵀx > d: the CCP (26)'s violation, from its LP data d
    (``problem.linear``), computed here and not through the package's violation helpers."""
    d = float(problem.linear.b[0, 0])
    return float(np.mean(h @ x > d))


def _fresh_tolerance(rho: float, L: int, draws: int) -> float:
    """How far below 1 − ρ the out-of-sample feasibility of an SAA-feasible answer may fall by chance.

    The answer is picked at the empirical boundary (violation ≈ ρ on L samples), so its true violation
    sits within the binomial error of that estimate, sd sqrt(ρ(1−ρ)/L) = 0.0095 at L = 1000: 2 sd
    (one-sided 97.7 % for a fixed point at the boundary) plus 3 sd of the ``draws``-draw Monte Carlo
    estimate (3 · 0.0021 at 20000): 0.025 at L = 1000, 0.055 at L = 150. Selection among many
    near-boundary samples adds optimism that this window does not bound exactly."""
    return 2 * math.sqrt(rho * (1 - rho) / L) + 3 * math.sqrt(rho * (1 - rho) / draws)


def _check_feasibility(ctx: Context, *, sabotage: bool) -> Outcome:
    problem, sol = _ggdopt_run(ctx.seed, ctx.profile, sabotage, FEASIBILITY_SAMPLES)
    x = np.asarray(sol.x, dtype=np.float64)
    L, draws = problem.h_samples.shape[0], 20000
    in_sample = _linear_violations(problem, x, np.asarray(problem.h_samples, dtype=np.float64))
    fresh_h = problem.h_sampler(np.random.default_rng([ctx.seed, 104729]), draws)
    fresh = 1.0 - _linear_violations(problem, x, fresh_h)
    # (a) exact: the answer is SAA-feasible, violation <= ρ on the L training samples (recomputed).
    # (b) out of sample, within _fresh_tolerance; (a) is what pins the implementation's feasibility filter.
    rho = problem.rho
    tol = _fresh_tolerance(rho, L, draws)
    ok = sol.retcode is RetCode.Success and in_sample <= rho + 1e-12 and fresh >= 1 - rho - tol
    return fact(
        ok,
        f"GGDOpt's answer violates <= ρ of the {L} training samples and meets Prob[g >= 0] >= "
        f"1 − ρ − {tol:.3f} on {draws} fresh draws",
        in_sample_violation=in_sample,
        fresh_feasibility=fresh,
        tolerance=tol,
        reported_empirical_violation=sol.stats.empirical_violation,
        feasible_samples=sol.stats.n_feasible_samples,
        value=sol.value,
    )


register(
    Claim(
        id="ggdopt.feasibility", cost_s=6,
        paper=PAPER,
        source="Section 5.1 (with Theorem 2's support statement)",
        statement="On the linear CCP (26) (n = 4, L = 1000 samples, ρ = 0.1), GGDOpt returns a point that "
        "violates at most ρ of the training samples (recomputed from the LP data) and meets the chance "
        "constraint on 20000 fresh samples (never the training ones) with probability >= 1 − ρ − tol, "
        "tol = 2 binomial sd at L plus 3 Monte Carlo sd (0.025 at L = 1000)",
        kind=Kind.NUMERIC,
        origin=Origin.DERIVED,
        check=lambda ctx: _check_feasibility(ctx, sabotage=False),
        control=lambda ctx: _check_feasibility(ctx, sabotage=True),
        control_description="the sampler without the data score (guidance alone, through the same solve "
                            "path)",
        budget_s=150.0,
    )
)


#: Table 1's window: GGDOpt's mean objective (100 repeats) is -0.6491 against the SOC optimum -0.6586,
#: a relative gap of 1.44 %; the text reads it as "approximately the global minimizer", within 1.5 %
TABLE1_WINDOW = 0.015
#: two-sided level of the Table 1 test (a t interval for the mean relative gap over seeds)
TABLE1_ALPHA = 0.05
#: out-of-sample feasibility of a Table 1 answer: ρ of (26) and the fresh draws it is measured on
#: (the problem's n_fresh)
TABLE1_RHO, TABLE1_FRESH = 0.1, 20000


def _table1_samples(profile: str) -> int:
    """L of the Table 1 comparison: 150 in the quick profile (a training run there costs seconds, and the
    stage-1 data at L = 1000 tens of seconds on a loaded machine), 1000 in the full one."""
    return Context(profile=profile).pick(150, 1000)


def _table1_seeds(ctx: Context) -> list[int]:
    """Seeds of the Table 1 comparison (each a fresh instance (b, c̄), sample set and training run)."""
    return [ctx.seed + k for k in range(ctx.pick(2, 12))]


@lru_cache(maxsize=16)
def _table1_run(seed: int, profile: str, guidance: str) -> dict[str, float]:
    """One repeat of Table 1: GGDOpt's gap to the SOC optimum, its out-of-sample
    feasibility and seconds; in the full profile also SAA-MILP's (HiGHS, 30 s limit, as the
    paper's time-limited SAA_MIP) on the same samples."""
    ctx = Context(seed=seed, profile=profile)
    if guidance == "second":
        problem, sol = _ggdopt_run(seed, profile, False, _table1_samples(profile))
    else:
        problem = _ccp(ctx, _table1_samples(profile))
        with _one_thread():
            sol = solve(problem, replace(_ggdopt(ctx), guidance=guidance), seed=seed)
    soc = float(problem.known_optimum)
    row = {
        "gap": (sol.value - soc) / abs(soc) if sol.retcode is RetCode.Success else float("nan"),
        "fresh": sol.stats.out_of_sample_feasibility,
        "train_seconds": sol.stats.train_seconds,
        "sample_seconds": sol.stats.sample_seconds,
    }
    if profile == "full" and guidance == "second":
        start = time.perf_counter()
        saa = solve(problem, SAAMILP(time_limit=30.0))
        row["saa_seconds"] = time.perf_counter() - start
        row["saa_gap"] = (saa.value - soc) / abs(soc)
        row["saa_fresh"] = saa.stats.out_of_sample_feasibility
        row["saa_optimal"] = float(saa.retcode is RetCode.Success)
    return row


def _check_vs_saa(ctx: Context, *, guidance: str) -> Outcome:
    rows = [_table1_run(seed, ctx.profile, guidance) for seed in _table1_seeds(ctx)]
    gaps = np.array([r["gap"] for r in rows])
    if not np.all(np.isfinite(gaps)):
        return Outcome("fail", f"GGDOpt returned no feasible answer on {int(np.sum(~np.isfinite(gaps)))} of "
                       f"{gaps.size} seeds", {"gaps": gaps.tolist()})
    # a gap below 0 beats the exact chance-constrained optimum, which only an answer violating the chance
    # constraint can do: a repeat counts only if its answer is feasible out of sample, P(h(x, ξ) <= 0) >=
    # 1 − ρ, up to what its L training samples and the fresh draws explain (_fresh_tolerance)
    L, draws = _table1_samples(ctx.profile), TABLE1_FRESH
    floor = 1 - TABLE1_RHO - _fresh_tolerance(TABLE1_RHO, L, draws)
    fresh = np.array([r["fresh"] for r in rows])
    infeasible = [k for k, f in enumerate(fresh) if not f >= floor]
    if infeasible:
        shown = ", ".join(f"{fresh[k]:.4f} (gap {gaps[k]:+.4f})" for k in infeasible)
        return Outcome("fail", f"GGDOpt's answer violates the chance constraint out of sample on "
                               f"{len(infeasible)} of {fresh.size} repeats: feasibility {shown} < "
                               f"{floor:.4f}, 1 − ρ less the binomial error of L = {L} samples and {draws} "
                               "fresh draws",
                       {"gaps": [figure(g, 4) for g in gaps],
                        "fresh_feasibility": [figure(f, 4) for f in fresh],
                        "feasibility_floor": figure(floor, 4)})
    n = gaps.size
    mean, sd = float(gaps.mean()), float(gaps.std(ddof=1))
    # the repeats are independent (own instance, samples, stage-1 data, training and sampling seeds): a t
    # interval at level 0.95 for the mean relative gap, compared with the window [-1.5 %, 1.5 %]
    half = float(scipy.stats.t.ppf(1 - TABLE1_ALPHA / 2, n - 1) * sd / np.sqrt(n))
    low, high = mean - half, mean + half
    inside = -TABLE1_WINDOW <= low and high <= TABLE1_WINDOW
    outside = low > TABLE1_WINDOW or high < -TABLE1_WINDOW
    # power statement: the number of seeds whose interval (z approximation, at the measured sd) would
    # clear the nearer window edge from the measured mean
    distance = min(abs(mean - TABLE1_WINDOW), abs(mean + TABLE1_WINDOW))
    needed = math.ceil((1.959964 * sd / distance) ** 2) if distance > 0 else math.inf
    # and (a size that does not hinge on where the mean fell) the seeds for a half-width of a third of
    # the window, 0.5 %, at the measured sd
    third = math.ceil((1.959964 * sd / (TABLE1_WINDOW / 3)) ** 2)
    evidence = {
        "seeds": n,
        "gaps": [figure(g, 4) for g in gaps],
        "mean_gap": figure(mean),
        "sd_gap": figure(sd),
        "interval": [figure(low), figure(high)],
        "seeds_that_would_decide": needed,
        "seeds_for_half_width_0.5%": third,
        "mean_fresh_feasibility": figure(np.mean([r["fresh"] for r in rows])),
        "mean_train_seconds": figure(np.mean([r["train_seconds"] for r in rows]), 3),
        "mean_sample_seconds": figure(np.mean([r["sample_seconds"] for r in rows]), 3),
    }
    if "saa_gap" in rows[0]:
        evidence.update(
            saa_gaps=[figure(r["saa_gap"], 4) for r in rows],
            saa_mean_gap=figure(np.mean([r["saa_gap"] for r in rows])),
            saa_mean_fresh_feasibility=figure(np.mean([r["saa_fresh"] for r in rows])),
            saa_proved_optimal=float(np.sum([r["saa_optimal"] for r in rows])),
            saa_mean_seconds=figure(np.mean([r["saa_seconds"] for r in rows]), 3),
        )
    what = (f"mean relative gap of GGDOpt to the SOC optimum over {n} seeds {mean:+.4f}, 95 % interval "
            f"[{low:+.4f}, {high:+.4f}] against the window ±{TABLE1_WINDOW}")
    if inside:
        return Outcome("pass", what + ": inside", evidence)
    if outside:
        return Outcome("fail", what + ": outside", evidence)
    # the size to quote is the half-width one: `needed` hinges on how near an edge the mean happened to fall
    return Outcome("undecided", f"{what}: overlaps its edge; a half-width of 0.5 % needs about {third} seeds "
                                f"at this sd", evidence)


register(
    Claim(
        id="ggdopt.vs_saa", cost_s=6,
        paper=PAPER,
        source="Table 1",
        statement="On the linear CCP (26) (n = 4, L = 150; n = 8, L = 1000 in the full profile; ρ = 0.1), "
        "GGDOpt's objective averaged over independent repeats (each its own instance, samples and "
        "training) lies within 1.5 % of the optimum of the exact SOC reformulation: every repeat's "
        "answer is feasible out of sample (>= 1 − ρ less the binomial error of its L samples and 20000 "
        "fresh draws; else fail, since only an infeasible answer can beat the optimum), and the 95 % t "
        "interval of the mean relative gap (f − f_SOC)/|f_SOC| lies inside [−1.5 %, 1.5 %] (pass), "
        "outside it (fail), or overlaps an edge (undecided, with the number of seeds that would "
        "decide); GGDOpt's seconds, and in the full profile SAA-MILP's gap, out-of-sample feasibility "
        "and seconds, are reported",
        kind=Kind.NUMERIC,
        origin=Origin.PAPER,
        covers=("Table 1",),
        deviation="n = 4 and L = 150 in the quick profile (Table 1: n = 8), a new instance per repeat "
        "(Table 1: one instance, 100 repeats); 2 repeats in the quick profile, 12 in the full one; the "
        "1.5 % window is Table 1's 1.44 % rounded up. Table 1's 'better than SAA as a MIP' is not "
        "asserted: the exact SAA optimum on the same samples is a lower bound for any SAA-feasible "
        "answer, GGDOpt's included, so only a time-limited MIP (the paper's 15 s) can lose to it; its "
        "numbers are reported. The 80 % time saving is reported, never asserted (timings do not enter "
        "verdicts)",
        check=lambda ctx: _check_vs_saa(ctx, guidance="second"),
        control=lambda ctx: _check_vs_saa(ctx, guidance="none"),
        control_description="Table 1's own ablation, GGDOpt without guidance (guidance='none' through the "
        "same solve path): the samples follow D_ρ and the gap should leave the window. Measured at quick "
        "size (L = 150, seeds 0-7) the ablation is NOT separable from GGDOpt (paired gap difference "
        "−0.08 %, sd 1.1 %): quick cannot reject it; the full profile's L = 1000 is where guidance matters",
        budget_s=150.0,
        full_budget_s=3600.0,
        expected_verdict="inconclusive",
        power="Undecided at quick by construction: 2 repeats (t quantile 12.7) against a repeat-to-repeat "
              "sd of 4.7 % at L = 150 (seeds 0-7: gaps +10.0, +3.5, −1.5, −5.3, +3.6, +0.1, +0.2, −3.0 %, "
              "mean +0.9 %, all feasible out of sample within the L-sample error); an interval of ±0.5 % "
              "there needs about 350 repeats (≈ 20 min of CPU). At the paper's L = 1000 the exploratory "
              "sd was 1.9 % (mean 1.2 %, 4 repeats at n = 4): ±0.5 % needs about 55 repeats, ±1 % about "
              "14; the full profile runs 12 at n = 8, L = 1000, which decides only if the mean gap lies "
              "more than ~1.2 % inside or outside the window's edges.",
    )
)


# ---------------------------------------------------------------------- ggdopt.tilt

#: one-sided level of the tilt test; its z quantile
TILT_ALPHA, TILT_Z = 0.01, 2.3263478740408408


@lru_cache(maxsize=2)
def _tilt_run(seed: int, profile: str, guidance: str):
    ctx = Context(seed=seed, profile=profile)
    problem = _ccp(ctx, _saa_samples(ctx))
    with _one_thread():
        return problem, solve(problem, replace(_ggdopt(ctx), guidance=guidance), seed=seed)


def _check_tilt(ctx: Context, *, guidance: str) -> Outcome:
    problem, sol = _tilt_run(ctx.seed, ctx.profile, guidance)
    result = sol.original
    # no feasible sample is Failure (never Infeasible since #43 round 13); without samples stage 3 never ran
    if sol.retcode not in (RetCode.Success, RetCode.Failure) or result.sample_values.size == 0:
        return Outcome("fail", f"GGDOpt returned {sol.retcode} without samples", {})
    # D_ρ: the stage-1 points with empirical violation <= ρ, the distribution the score was fitted to;
    # their f and the guided samples' f are recomputed here from the LP data (f = costᵀx)
    cost = np.asarray(problem.linear.cost, dtype=np.float64).reshape(-1)
    f_data = np.asarray(result.train_points, dtype=np.float64)[result.train_violation <= problem.rho] @ cost
    f_samples = np.asarray(result.samples, dtype=np.float64) @ cost
    # Theorem 2's target Q_β ∝ r·e^{−βf}: d/dβ E_{Q_β} f = −Var_{Q_β} f <= 0, so E_{Q_β} f < E_r f for β > 0
    # (f not constant on D_ρ). One-sided Welch z test of E f(samples) < E f(D_ρ) at level 0.01. The samples
    # are 256 independent paths given the trained model, and D_ρ's points independent stage-1 draws; the
    # model depends on D_ρ, so the two means are not exactly independent, and the Welch SE is approximate
    se = float(np.sqrt(f_data.var(ddof=1) / f_data.size + f_samples.var(ddof=1) / f_samples.size))
    drop = float(f_data.mean() - f_samples.mean())
    z = drop / se
    # power, stated: against the first-order tilt E_r f − β·Var_r f̃·f_scale = E_r f − β·sd(f | D_ρ) (f is
    # standardised by its sd over D_ρ inside GGDOpt), at the measured standard error
    first_order = _ggdopt(ctx).beta * float(f_data.std(ddof=1))
    power = float(0.5 * (1 + math.erf((first_order / se - TILT_Z) / math.sqrt(2))))
    return fact(
        z > TILT_Z,
        f"guided samples' mean f below D_ρ's mean f (one-sided Welch z > {TILT_Z:.3f}, level {TILT_ALPHA})",
        mean_f_data=float(f_data.mean()),
        mean_f_samples=float(f_samples.mean()),
        drop=drop,
        standard_error=se,
        z=z,
        n_data=float(f_data.size),
        n_samples=float(f_samples.size),
        power_first_order_tilt=power,
        first_order_tilt=first_order,
    )


register(
    Claim(
        id="ggdopt.tilt", cost_s=5,
        paper=PAPER,
        source="Theorem 2 (the Boltzmann tilt of D_ρ by e^{−βf})",
        statement="On the linear CCP (26) (n = 4, L = 150, ρ = 0.1, β = 0.5), the mean objective of GGDOpt's "
        "256 guided samples lies below the mean objective of D_ρ, the feasible stage-1 points the score was "
        "trained on: a one-sided Welch z test at level 0.01 (Theorem 2's product r·e^{−βf} has "
        "d/dβ E f = −Var f, so E_{Q_β} f < E_r f for β > 0)",
        kind=Kind.NUMERIC,
        origin=Origin.DERIVED,
        deviation="Theorem 2 is a limit statement (T, β → ∞); we test its finite-β consequence, the sign of "
        "the tilt, on the learned score (whose error we do not bound) at β = 0.5, n = 4; the samples "
        "include infeasible ones (the theorem is about Q_β, not the feasibility-filtered answer)",
        check=lambda ctx: _check_tilt(ctx, guidance="second"),
        control=lambda ctx: _check_tilt(ctx, guidance="none"),
        control_description="the same solve path with the guidance switched off (guidance='none', "
        "i.e. β → 0): the samples follow the learned D_ρ, so no significant drop",
        budget_s=120.0,
    )
)


# --------------------------------------------------------------------------- saa_baseline

def _saa_brute_force(problem, k: int) -> float:
    """The SAA optimum by enumeration: min over every set of k dropped samples of the LP on the others."""
    import itertools

    import scipy.optimize

    lin = problem.linear
    L = lin.A.shape[0]
    best = math.inf
    for dropped in itertools.combinations(range(L), k):
        keep = np.setdiff1d(np.arange(L), dropped)
        # A_l x + b_l >= 0  <=>  −A_l x <= b_l
        res = scipy.optimize.linprog(lin.cost, A_ub=-lin.A[keep].reshape(-1, lin.A.shape[2]),
                                     b_ub=lin.b[keep].reshape(-1),
                                     bounds=list(zip(problem.lower, problem.upper, strict=True)),
                                     method="highs")
        if res.status == 0:
            best = min(best, float(res.fun))
    return best


def _saa_reference_milp(problem, k: int) -> float:
    """The SAA optimum by our own big-M MILP (M_l from the box: the most A_l x + b_l can fall below 0)."""
    import scipy.optimize

    lin = problem.linear
    L, m, n = lin.A.shape
    lowest = lin.b + np.minimum(lin.A * problem.lower, lin.A * problem.upper).sum(axis=2)  # (L, m)
    big_m = np.maximum(0.0, -lowest)
    rows = np.zeros((L * m, n + L))
    rows[:, :n] = lin.A.reshape(L * m, n)
    rows[np.arange(L * m), n + np.repeat(np.arange(L), m)] = big_m.reshape(-1)
    budget = np.concatenate([np.zeros(n), np.ones(L)])[None]
    res = scipy.optimize.milp(np.concatenate([lin.cost, np.zeros(L)]),
                              constraints=[scipy.optimize.LinearConstraint(rows, -lin.b.reshape(-1), np.inf),
                                           scipy.optimize.LinearConstraint(budget, -np.inf, k)],
                              integrality=np.concatenate([np.zeros(n), np.ones(L)]),
                              bounds=scipy.optimize.Bounds(np.concatenate([problem.lower, np.zeros(L)]),
                                                           np.concatenate([problem.upper, np.ones(L)])),
                              options={"mip_rel_gap": 1e-9})
    return float(res.fun)


def _budget(rho: float, L: int) -> int:
    """The violations the package's own feasibility test allows: the largest j with j/L <= ρ (as
    ``empirical_violation`` compares the violated fraction with ρ)."""
    return max(j for j in range(L + 1) if j / L <= rho)


def _check_saa(ctx: Context, *, budget_shift: int = 0) -> Outcome:
    rows = []
    # (n, L, ρ): a small instance solved by enumeration of the dropped samples (C(12, 3) = 220 LPs), and one
    # where ρL rounds below its integer in floats (0.58 · 50 = 28.999...; 29/50 <= 0.58 is feasible)
    for n, L, rho, how in ((2, 12, 0.25, "enumeration"), (2, 50, 0.58, "milp"), (2, 8, 0.25, "joint")):
        problem = linear_gaussian_problem(n=n, n_samples=L, rho=rho, seed=ctx.seed)
        if how == "joint":
            # a joint constraint of m = 2 rows per sample (#46 round 5, seed 7: the indicator block's shape
            # (L·m, L) → (L, L) survived, the same at m = 1): d − cᵀx >= 0 and d − 0.8·(c₂, c₁)ᵀx >= 0;
            # enumeration over C(8, 2) = 28 LPs
            c, d = problem.h_samples.astype(np.float64), float(problem.linear.b[0, 0])
            A = np.stack([-c, -0.8 * c[:, ::-1]], axis=1)
            problem = replace(problem, g=lambda x, h, d=d: torch.stack(
                [d - x @ h.T, d - 0.8 * x @ h.flip(1).T], dim=2),
                linear=LinearStructure(cost=problem.linear.cost, A=A, b=np.full((L, 2), d)))
        k = _budget(rho, L) + budget_shift
        reference = _saa_reference_milp(problem, k) if how == "milp" else _saa_brute_force(problem, k)
        sol = solve(problem, SAAMILP(), seed=None, store_trace=True)  # seed None for the estimate below
        violated = round(float(empirical_violation(problem, sol.x[None])[0]) * L)
        # the reported out-of-sample feasibility is drawn from the solve's seed, 0 when it is None (#46
        # round 6, seed 9: None → 1 survived): the same estimate, bit for bit
        reported = sol.stats.out_of_sample_feasibility
        fresh = float(out_of_sample_feasibility(problem, sol.x[None], seed=0)[0])
        # HiGHS's relative gap 1e-6 (SAAMILP's default) on objectives of order 1; LPs to 1e-9
        # one solve, one iteration: one trace record (iteration 0, the answer's value and violation)
        one_record = sol.stats.iterations == 1 and sol.trace == [
            {"iteration": 0, "value": sol.value, "empirical_violation": sol.stats.empirical_violation}]
        ok = sol.retcode is RetCode.Success and violated <= k and reported == fresh and one_record and \
            abs(sol.value - reference) <= 1e-6 * (1.0 + abs(reference))
        rows.append({"n": n, "L": L, "rho": rho, "budget": k, "reference": how, "value": figure(sol.value),
                     "reference_value": figure(reference), "violated": violated,
                     "retcode": sol.retcode.value, "out_of_sample": figure(reported),
                     "out_of_sample_seed_0": figure(fresh), "ok": ok})
    # every sample violated at every box point: no SAA-feasible point exists, so the answer is Infeasible
    rng = np.random.default_rng(ctx.seed)
    c = np.abs(rng.standard_normal((12, 2))) + 0.1
    cost = np.array([-1.0, -1.0])
    cost_t = torch.as_tensor(cost)
    impossible = ChanceConstrainedProblem(
        f=lambda x: x @ cost_t.to(x.dtype), g=lambda x, h: -1.0 - x @ h.T, h_samples=c, rho=0.25,
        lower=np.zeros(2), upper=np.ones(2),
        linear=LinearStructure(cost=cost, A=-c[:, None, :], b=-np.ones((12, 1))))
    none = solve(impossible, SAAMILP())
    # the direct solvers' maxiters = 0 contract: no work, the box midpoint, MaxIters; on a box with lower != 0
    # (round 6's screen: the midpoint as 0.5·upper or 0.5/(lower + upper) survived on the unit box)
    small = replace(linear_gaussian_problem(n=2, n_samples=12, rho=0.25, seed=ctx.seed),
                    lower=np.array([-1.0, 0.5]), upper=np.array([3.0, 2.0]))
    midpoint = 0.5 * (small.lower + small.upper)
    idle = [solve(small, algorithm, maxiters=0, store_trace=True) for algorithm in (SAAMILP(), GGDOpt())]
    idle_ok = all(s.retcode is RetCode.MaxIters and np.array_equal(s.x, midpoint) for s in idle) and \
        idle[0].trace == [{"iteration": 0, "value": idle[0].value}]
    # HiGHS stopped by its time limit before any incumbent (1 µs; with maxiters = 1 a node limit too, which
    # the time limit beats): the midpoint with MaxTime either way (#43 round 13, red13a: MaxIters was
    # reported whenever maxiters was set, though HiGHS said "Time limit reached"); cut by the node limit
    # alone (maxiters = 1, HiGHS's status 16, scipy's 4 "not recognized"): MaxIters (it was Failure)
    limited = [solve(small, SAAMILP(time_limit=1e-6), **kw) for kw in ({}, {"maxiters": 1})]
    ccp50 = linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0)
    limited.append(solve(ccp50, SAAMILP(), maxiters=1, seed=0))
    limits_ok = [s.retcode for s in limited] == [RetCode.MaxTime, RetCode.MaxTime, RetCode.MaxIters] and \
        all(np.array_equal(s.x, midpoint) for s in limited[:2])
    # the backend's answer is checked with the package's own feasibility test (#46 round 6, seed 10: the
    # allowed violation k/L → k survived, a check that never fires): g = c − x − 1e-4 differs from its LP data
    # c − x by 1e-4, inside the consistency tolerance 1e-8·(max|f| + max|g|) ≈ 1.6e-4 at this size;
    # HiGHS's optimum x = 5000 (dropping the sample 4000 of 4000..7000, ⌊0.25·4⌋ = 1) then violates 2 samples
    # by g
    c4 = np.array([[4000.0], [5000.0], [6000.0], [7000.0]])
    off_lp = ChanceConstrainedProblem(f=lambda x: -x[:, 0], g=lambda x, h: h[None, :, 0] - x[:, :1] - 1e-4,
                                      h_samples=c4, rho=0.25, lower=[0.0], upper=[1e4],
                                      linear=LinearStructure(cost=np.array([-1.0]), A=-np.ones((4, 1, 1)),
                                                             b=c4))
    checked = solve(off_lp, SAAMILP())
    checked_ok = checked.retcode is RetCode.Failure and checked.stats.empirical_violation == 0.5
    # the big-M's box minimum against the box's vertices, on a box with lower != 0 and upper != 1 (seed 10:
    # A·upper → A survived, the same on the unit box)
    A3 = np.array([[[2.0, -3.0, 0.5], [-1.0, 4.0, -2.0]], [[0.0, 1.0, -1.0], [3.0, 3.0, 3.0]]])
    b3 = np.array([[1.0, -2.0], [0.5, 0.0]])
    lo3, hi3 = np.array([-1.0, 0.5, 2.0]), np.array([3.0, 2.0, 5.0])
    vertices = np.array(np.meshgrid(*zip(lo3, hi3), indexing="ij")).reshape(3, -1).T
    by_vertex = (np.einsum("lmn,vn->vlm", A3, vertices) + b3[None]).min(axis=0)
    box_ok = np.allclose(box_minimum(A3, b3, lo3, hi3), by_vertex, rtol=0.0, atol=1e-12)
    ok = all(r["ok"] for r in rows) and none.retcode is RetCode.Infeasible and idle_ok and limits_ok and \
        checked_ok and box_ok
    return Outcome("pass" if ok else "fail",
                   "SAA-MILP returns the SAA optimum (enumeration; our own MILP where ρL rounds down in "
                   f"floats) within ⌊ρL⌋ violations, and Infeasible when no point is SAA-feasible "
                   f"({none.retcode.value}); maxiters = 0 gives the midpoint with MaxIters ({idle_ok}); a "
                   f"time limit without an incumbent gives the midpoint with MaxTime (without / with "
                   f"maxiters), the node limit MaxIters "
                   f"({[s.retcode.value for s in limited]}); an answer the own test finds over budget is "
                   f"{checked.retcode.value}; the big-M's box minimum against the vertices ({box_ok}): "
                   f"{'holds' if ok else 'violated'}",
                   {"instances": rows, "checked_retcode": checked.retcode.value,
                    "checked_violation": checked.stats.empirical_violation, "box_minimum_ok": box_ok})


register(Claim(
    id=f"{PAPER}.saa_baseline",
    paper=PAPER,
    source="Table 1's baseline: SAA solved as a MIP (Section 5.1, the big-M reformulation of the empirical "
           "chance constraint)",
    origin=Origin.IMPLEMENTATION,
    statement="On the linear CCP (26), SAA-MILP returns Success with an answer violating at most the budget "
              "of samples its own feasibility test allows (the largest j with j/L <= ρ) and with the SAA "
              "optimum's value to 1e-6 relative: against the minimum over all 220 sets of 3 dropped samples "
              "of the remaining LP (n = 2, L = 12, ρ = 0.25), and against an independent big-M MILP at "
              "n = 2, L = 50, ρ = 0.58 (where ρL rounds to 28.999... in floats, budget 29), and against the "
              "28 LPs of a joint constraint of two rows per sample (n = 2, L = 8, ρ = 0.25), each in one "
              "iteration with one trace record (iteration 0, its value and violation); on data where "
              "every sample is violated at every box point it returns Infeasible; its reported out-of-sample "
              "feasibility is the estimate from seed 0 when the solve's seed is None; with maxiters = 0 "
              "SAA-MILP and GGDOpt return the box midpoint (1, 1.25) of [−1, 3] × [0.5, 2] with MaxIters; "
              "stopped by HiGHS's time limit (1 µs) "
              "before any incumbent, SAA-MILP returns the midpoint with MaxTime, also when maxiters = 1 "
              "set a node limit too (the time limit came first), and cut by the node limit alone "
              "(maxiters = 1 on the linear CCP n = 2, L = 50, ρ = 0.1, seed 0) it returns MaxIters; "
              "on data whose g is 1e-4 below its LP data (inside the "
              "consistency tolerance) it returns Failure, its answer violating 2 of 4 samples where "
              "⌊ρL⌋ = 1; "
              "and the big-M's box minimum equals the minimum over the box's 8 vertices on [−1, 3] × "
              "[0.5, 2] × [2, 5].",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_saa(ctx),
    control=lambda ctx: _check_saa(ctx, budget_shift=-1),
    control_description="the references computed with one violation fewer than the budget: the SAA optimum "
                        "then differs (it is lower with the full budget), so the same check must fail",
    budget_s=30.0,
))


# --------------------------------------------------------------------------- assumptions

def _assumption_cases() -> list[Boundary]:
    """The inputs the paper's setting assumes, each probed just inside and just outside its boundary."""
    tiny = 1e-12  # a step past each boundary, far below every value the claims use
    schedule = VPSchedule(t_min=0.001)
    # known_optimum dropped: the probes below replace f and the LP data (scaled, zeroed, shifted), which the
    # true optimum does not follow (a known optimum below the box minimum is refused since #43 round 7)
    base = replace(linear_gaussian_problem(n=2, n_samples=20, rho=0.1, seed=0), known_optimum=None)
    grad = torch.ones(3, 2, dtype=torch.float64)

    def samples(count: int):
        return replace(base, h_samples=base.h_samples[:count], linear=None)

    def bad_g(x, h):
        return torch.zeros(x.shape[0], h.shape[0] + 1, dtype=x.dtype)

    def short_sampler(generator, count):
        return base.h_sampler(generator, count)[:-1]

    # float32 data with |f| ~ 2e4: f in float32 is off the float64 LP value by ~1e-3 (round-off), far
    # inside the documented tolerance 1e-4·(max|f| + max|g|); costs off by 0.1 % are far outside it
    base32 = replace(linear_gaussian_problem(n=2, n_samples=20, rho=0.1, seed=0, dtype=np.float32),
                     known_optimum=None)
    big = base32.linear.cost * 1e4
    big_t = torch.as_tensor(big)

    def big_f(x):
        return x @ big_t.to(x.dtype)

    def scaled(factor: float):
        return replace(base32, f=big_f, linear=replace(base32.linear, cost=big * factor))

    # float64 LP data with max|f| + max|g| < 1 (#46 round 5, seed 4: the tolerance's scale 1 + max|f| + max|g|
    # → −1 + … survived, a negative tolerance that refuses every small consistent problem): the relative
    # tolerance (since #43 round 14, 1e-8·(max|f| + max|g|) ≈ 1e-9 here) is far above the ~1e-18 round-off of
    # data of size 0.05 and far below a cost off by 0.1 % (~5e-5)
    def small(factor: float):
        lin = base.linear
        return replace(base, f=lambda x: 0.05 * base.f(x), g=lambda x, h: 0.05 * base.g(x, h),
                       linear=LinearStructure(cost=0.05 * factor * lin.cost, A=0.05 * lin.A, b=0.05 * lin.b))

    # the tolerance itself is inside (#46 round 5, seed 5: `> tol` → `>= tol` survived). Since #43 round 14
    # the tolerance is relative, 1e-8·(max|f_lin| + max|g_lin|) with no floor of 1 (red14a: another problem's
    # LP data scaled by 1e-10 passed), so each probe puts the scale on the other function, exactly: for f, LP
    # data with g ≡ b = 1 (cost, A = 0), so the tolerance is 1e-8·(0 + 1) = 1e-8 and f returning the constant
    # 1e-8 is off by exactly it; for g, cost = (1, 0) with f = x₀ exactly, so the tolerance is 1e-8·p with p
    # the largest x₀ of the documented probe points (default_rng(0).uniform(0.1, 0.9, (3, n)) on the unit
    # box), and g returning that constant against A, b = 0 is off by exactly it. The next float above is
    # outside
    unit_lp = LinearStructure(cost=np.zeros(2), A=np.zeros((20, 1, 2)), b=np.ones((20, 1)))
    x0_lp = LinearStructure(cost=np.array([1.0, 0.0]), A=np.zeros((20, 1, 2)), b=np.zeros((20, 1)))
    g_tolerance = 1e-8 * (float(np.random.default_rng(0).uniform(0.1, 0.9, size=(3, 2))[:, 0].max()) + 0.0)

    def off_by(f_offset: float, g_offset: float):
        if g_offset == 0.0:
            return replace(base, f=lambda x: 0.0 * x[:, 0] + f_offset,
                           g=lambda x, h: 0.0 * (x @ h.T) + 1.0, linear=unit_lp)
        return replace(base, f=lambda x: x[:, 0] + 0.0, g=lambda x, h: 0.0 * (x @ h.T) + g_offset,
                       linear=x0_lp)

    above = float(np.nextafter(1e-8, 1.0))
    g_above = float(np.nextafter(g_tolerance, 1.0))

    def left_to_user(t: torch.Tensor) -> None:
        """check_time on a tensor with no values to check: a range check of it raises inside torch, counted
        here as a refusal (so the probe fails rather than errors)."""
        try:
            schedule.check_time("t", t)
        except RuntimeError as exc:
            raise ValueError(f"t: check_time ran a range check that failed inside torch ({exc})") from exc

    # the construction's probe points are documented: lower + (upper − lower)·u, u the first 3·n draws of
    # default_rng(0).uniform(0.1, 0.9) (#46 round 5, seed 6: the generator's seed 0 → 1 survived); an f finite
    # at exactly those three points (NaN everywhere else) is accepted, one NaN at the first of them refused.
    # On a box with lower != 0 (round 6's screen: lower dropped from the formula, or upper + lower, survived
    # on the unit box)
    shifted = replace(base, lower=np.array([-1.0, 2.0]), upper=np.array([3.0, 2.5]), linear=None)
    probes = shifted.lower + (shifted.upper - shifted.lower) * np.random.default_rng(0).uniform(0.1, 0.9,
                                                                                                 size=(3, 2))

    def finite_only_at(points: np.ndarray):
        rows = torch.as_tensor(points)

        def f(x):
            hit = (x[:, None, :] == rows[None].to(x.dtype)).all(dim=2).any(dim=1)
            return torch.where(hit, x.sum(dim=1), torch.full_like(x[:, 0], float("nan")))
        return replace(shifted, f=f)

    # h_sampler is probed once, for 2 samples from default_rng(0) (documented; round 6's screen: the seed
    # 0 → 1 survived): a sampler of the right shape only for a generator in default_rng(0)'s initial state
    def seeded_sampler(generator, count):
        fresh = generator.bit_generator.state == np.random.default_rng(0).bit_generator.state
        return np.zeros((count, 2 if fresh else 3))

    # LP data tolerances at their size (round 6's screen): max|g| = 1e4 (tolerance 1e-8·(0 + 1e4) = 1e-4:
    # a g off by 5e-5 inside, 2e-4 outside; without the max|g| term, or with 1e-8/scale, 5e-5 is refused);
    # float32 at scale 1 (tolerance 1e-4: 0.9e-4 inside, 1.1e-4 outside)
    big_lp = LinearStructure(cost=np.zeros(2), A=np.zeros((20, 1, 2)), b=np.full((20, 1), 1e4))

    def g_off_by(offset: float):
        return replace(base, f=lambda x: 0.0 * x[:, 0], g=lambda x, h: 0.0 * (x @ h.T) + 1e4 + offset,
                       linear=big_lp)

    def f32_off_by(offset: float):   # the scale 1 from g ≡ b = 1 (round 14: no floor of 1 any more)
        return replace(base32, f=lambda x: 0.0 * x[:, 0] + offset, g=lambda x, h: 0.0 * (x @ h.T) + 1.0,
                       linear=unit_lp)

    # L >= ⌈1/ρ⌉ with the 1e-12 slack forgiving only the rounding of 1/ρ (round 6's screen): ρ = fl(1/49) has
    # 1/ρ = 49 + 7e-15 in floats (49 samples suffice), ρ = 1/(4 + 1.5e-12) is not 1/4 (5 needed)
    def one_d(count: int, rho, **kw):
        return ChanceConstrainedProblem(f=lambda x: x[:, 0], g=lambda x, h: h[None, :, 0] + 0.0 * x[:, :1],
                                        h_samples=np.ones((count, 1)), rho=rho, lower=[0.0], upper=[1.0],
                                        **kw)

    return [
        Boundary("violation level ρ < 1", "rho", lambda: linear_gaussian_problem(n=2, n_samples=20, rho=0.95),
                 lambda: linear_gaussian_problem(n=2, n_samples=20, rho=1.0)),
        Boundary("violation level ρ > 0", "rho", lambda: linear_gaussian_problem(n=2, n_samples=20, rho=0.05),
                 lambda: linear_gaussian_problem(n=2, n_samples=20, rho=0.0)),
        # L >= ⌈1/ρ⌉ samples, so that ⌊ρL⌋ >= 1 violated sample can be allowed at all
        Boundary("L >= ⌈1/ρ⌉ samples", "h_samples", lambda: samples(10), lambda: samples(9)),
        Boundary("g maps to (batch, L) or (batch, L, m)", "g", lambda: replace(base),
                 lambda: replace(base, g=bad_g, linear=None)),
        Boundary("fresh samples of h's shape", "h_sampler",
                 lambda: out_of_sample_feasibility(base, np.zeros((1, 2)), n_fresh=50),
                 lambda: out_of_sample_feasibility(replace(base, h_sampler=short_sampler), np.zeros((1, 2)),
                                                   n_fresh=50)),
        # a box with interior: lower < upper in every coordinate (#46 round 6, seed 8: `lower >= upper` →
        # `lower > upper` survived, and a box flat in one coordinate was accepted)
        Boundary("a box with interior, lower < upper", "lower",
                 lambda: replace(base, upper=np.array([1.0, 1e-300]), linear=None),
                 lambda: replace(base, upper=np.array([1.0, 0.0]), linear=None)),
        Boundary("points of the problem's dimension", "x",
                 lambda: empirical_violation(base, np.zeros((1, 2))),
                 lambda: empirical_violation(base, np.zeros((1, 3)))),
        Boundary("float32 LP data reproduce f and g", "linear",
                 lambda: linear_gaussian_problem(n=2, n_samples=20, rho=0.1, dtype=np.float32),
                 lambda: replace(base, linear=replace(base.linear, cost=base.linear.cost + 1e-3))),
        Boundary("float32 LP data at |f| ~ 2e4 reproduce f", "linear", lambda: scaled(1.0),
                 lambda: scaled(1.001)),
        Boundary("LP data with max|f| + max|g| < 1 reproduce f", "linear", lambda: small(1.0),
                 lambda: small(1.001)),
        Boundary("LP data reproduce f to within 1e-8·(max|f| + max|g|), the tolerance included", "linear",
                 lambda: off_by(1e-8, 0.0), lambda: off_by(above, 0.0)),
        Boundary("LP data reproduce g to within 1e-8·(max|f| + max|g|), the tolerance included", "linear",
                 lambda: off_by(0.0, g_tolerance), lambda: off_by(0.0, g_above)),
        Boundary("inverse temperature β > 0", "beta", lambda: GGDOpt(beta=WORKING_MIN),
                 lambda: GGDOpt(beta=0.0)),
        # the VP schedule: t_min in (0, 0.5) (the reverse SDE stops at t_min), β_max > β_min
        Boundary("VP schedule t_min < 0.5", "t_min", lambda: VPSchedule(t_min=0.5 - tiny),
                 lambda: VPSchedule(t_min=0.5)),
        Boundary("VP schedule t_min > 0", "t_min", lambda: VPSchedule(t_min=WORKING_MIN),
                 lambda: VPSchedule(t_min=0.0)),
        Boundary("VP schedule β_max > β_min", "beta_max",
                 lambda: VPSchedule(beta_min=1.0, beta_max=1.0 + 1e-9),
                 lambda: VPSchedule(beta_min=1.0, beta_max=1.0)),
        Boundary("corrector steps >= 0", "corrector_steps", lambda: GGDOpt(corrector_steps=0),
                 lambda: GGDOpt(corrector_steps=-1)),
        Boundary("posterior variance >= 0", "posterior_variance", lambda: GGDOpt(posterior_variance=0.0),
                 lambda: GGDOpt(posterior_variance=-tiny)),
        # diffusion times lie in [t_min, 1] up to the sampler's rounding slack 1e-12 (#46 round 4, seed 4:
        # the slack dropped and the upper end 1 → 2 survived); an integer tensor is checked too (#43 round 11:
        # it was left to its user's check, and t = 5 reached the sampler)
        # #43 round 14: the slack is relative, t_min·(1 − eps) (an absolute 1e-12 took t = 0 for tiny t_min):
        # the probe moved to that boundary (the float just below t_min), the control kept
        Boundary("diffusion times >= t_min·(1 − eps)", "t",
                 lambda: schedule.check_time("t", float(np.nextafter(0.001, 0.0))),
                 lambda: schedule.check_time("t", 0.001 - 2e-12)),
        Boundary("diffusion times <= 1 + 1e-12", "t", lambda: schedule.check_time("t", 1.0 + 5e-13),
                 lambda: schedule.check_time("t", 1.0 + 2e-12)),
        Boundary("an integer tensor of times is checked like a float one", "t",
                 lambda: schedule.check_time("t", torch.tensor([1])),
                 lambda: schedule.check_time("t", torch.tensor([5]))),
        # the refusal reports the entry out of range (#46 round 6, seed 9: which of lo and hi is reported,
        # decided with t_min − slack → t_min + slack, survived): t_min is inside, 2.0 is the entry reported
        Boundary("a refusal of times reports the entry beyond 1", "got 2.0",
                 lambda: schedule.check_time("t", torch.tensor([0.001, 1.0], dtype=torch.float64)),
                 lambda: schedule.check_time("t", torch.tensor([0.001, 2.0], dtype=torch.float64))),
        # an empty tensor and a meta tensor (no values to check) are left to their user too (#46 round 6, seed
        # 8: `numel() == 0 or meta` → `and` survived; a range check of either raises inside torch)
        Boundary("an empty float tensor of times is left to its user", "t",
                 lambda: left_to_user(torch.empty(0, dtype=torch.float64)),
                 lambda: schedule.check_time("t", torch.tensor([1.0 + 2e-12], dtype=torch.float64))),
        Boundary("a meta tensor of times is left to its user", "t",
                 lambda: left_to_user(torch.empty(3, dtype=torch.float64, device="meta")),
                 lambda: schedule.check_time("t", torch.tensor([0.001 - 2e-12], dtype=torch.float64))),
        # a time given as a number must be a real number, not a bool or a string (#46 round 5, seed 6: the
        # type test's `or` → `and` survived, and then True passed as t = 1, "0.5" as 0.5)
        Boundary("a diffusion time is a real number, not a bool", "t", lambda: schedule.check_time("t", 1),
                 lambda: schedule.check_time("t", True)),
        Boundary("a diffusion time is a real number, not a string", "t",
                 lambda: schedule.check_time("t", 0.5), lambda: schedule.check_time("t", "0.5")),
        # GaussianScore's data law: std > 0 entrywise and of mean's shape (seed 6: `or` → `and` survived)
        Boundary("GaussianScore std > 0", "std",
                 lambda: GaussianScore([0.0, 1.0], [1.0, WORKING_MIN], schedule),
                 lambda: GaussianScore([0.0, 1.0], [1.0, 0.0], schedule)),
        Boundary("GaussianScore std of mean's shape", "std",
                 lambda: GaussianScore([0.0, 1.0], [1.0, 2.0], schedule),
                 lambda: GaussianScore([0.0, 1.0], [1.0, 2.0, 3.0], schedule)),
        # f and g need be finite on the box only: the construction probes interior points of the box (seed
        # 6: probes at lower + width / U(0.1, 0.9), outside the box, survived); f = √(1 − x₁) is finite on
        # [0, 1]² and NaN beyond x₁ = 1; √(x₁ − 0.95) is NaN on most of the box
        Boundary("f finite on the box (only)", "f",
                 lambda: replace(base, f=lambda x: torch.sqrt(1.0 - x[:, 0]), linear=None),
                 lambda: replace(base, f=lambda x: torch.sqrt(x[:, 0] - 0.95), linear=None)),
        Boundary("f finite at the three documented probe points (only)", "f", lambda: finite_only_at(probes),
                 lambda: finite_only_at(probes[1:])),
        Boundary("h_sampler probed with default_rng(0)", "h_sampler",
                 lambda: replace(base, h_sampler=seeded_sampler),
                 lambda: replace(base, h_sampler=lambda generator, count: np.zeros((count, 3)))),
        Boundary("LP data reproduce g to within 1e-8·(max|f| + max|g|) at max|g| = 1e4", "linear",
                 lambda: g_off_by(5e-5), lambda: g_off_by(2e-4)),
        Boundary("float32 LP data reproduce f to within 1e-4·(max|f| + max|g|)", "linear",
                 lambda: f32_off_by(0.9e-4), lambda: f32_off_by(1.1e-4)),
        Boundary("L >= ⌈1/ρ⌉ at ρ = fl(1/49) (1/ρ rounded above 49)", "h_samples",
                 lambda: one_d(49, 1.0 / 49.0), lambda: one_d(48, 1.0 / 49.0)),
        Boundary("L >= ⌈1/ρ⌉ at ρ = 1/(4 + 1.5e-12)", "h_samples", lambda: one_d(5, 1.0 / (4.0 + 1.5e-12)),
                 lambda: one_d(4, 1.0 / (4.0 + 1.5e-12))),
        Boundary("ρ a real number, not a string", "rho", lambda: one_d(20, 0.1), lambda: one_d(20, "0.1")),
        Boundary("n_fresh >= 1", "n_fresh", lambda: one_d(20, 0.1, n_fresh=1),
                 lambda: one_d(20, 0.1, n_fresh=0)),
        Boundary("out-of-sample feasibility on n_fresh >= 1 samples", "n_fresh",
                 lambda: out_of_sample_feasibility(base, np.zeros((1, 2)), n_fresh=1),
                 lambda: out_of_sample_feasibility(base, np.zeros((1, 2)), n_fresh=0)),
        Boundary("LinearStructure: cost of A's width n", "linear",
                 lambda: LinearStructure(cost=np.zeros(2), A=np.zeros((20, 1, 2)), b=np.zeros((20, 1))),
                 lambda: LinearStructure(cost=np.zeros(3), A=np.zeros((20, 1, 2)), b=np.zeros((20, 1)))),
        Boundary("LinearStructure: b of A's (L, m)", "linear",
                 lambda: LinearStructure(cost=np.zeros(2), A=np.zeros((20, 1, 2)), b=np.zeros((20, 1))),
                 lambda: LinearStructure(cost=np.zeros(2), A=np.zeros((20, 1, 2)), b=np.zeros((20, 2)))),
        Boundary("LP data of the problem's dimension n", "linear", lambda: replace(base),
                 lambda: replace(base, linear=LinearStructure(cost=np.zeros(3), A=np.zeros((20, 1, 3)),
                                                              b=np.zeros((20, 1))))),
        # the moment restriction needs a spread: at least 2 samples in the subset (#46 round 4: `< 2` → `< 3`
        # survived the seed-3 sample)
        Boundary("restricted_solution over >= 2 samples", "h_subset",
                 lambda: restricted_solution(base, base.h_samples[:2], 0.5),
                 lambda: restricted_solution(base, base.h_samples[:1], 0.5)),
        # restricted_solution's other inputs (round 6's screen: `or` → `and` in the width and z checks
        # survived)
        Boundary("restricted_solution over samples of h's width", "h_subset",
                 lambda: restricted_solution(base, base.h_samples[:2], 0.5),
                 lambda: restricted_solution(base, np.ones((2, 3)), 0.5)),
        Boundary("restricted_solution's margin z a real number, not a bool", "z",
                 lambda: restricted_solution(base, base.h_samples[:2], 1),
                 lambda: restricted_solution(base, base.h_samples[:2], True)),
        Boundary("restricted_solution's margin z >= 0", "z",
                 lambda: restricted_solution(base, base.h_samples[:2], 0.0),
                 lambda: restricted_solution(base, base.h_samples[:2], -1e-300)),
        Boundary("a Hessian per gradient row", "hess_f",
                 lambda: second_order_guidance(grad, torch.zeros(3, 2, 2, dtype=torch.float64), beta=1.0,
                                               sigma2=0.1),
                 lambda: second_order_guidance(grad, torch.zeros(3, 2, 3, dtype=torch.float64), beta=1.0,
                                               sigma2=0.1)),
    ]


def _check_assumptions(ctx: Context, *, shifted: bool) -> Outcome:
    return boundary_outcome(_assumption_cases(), shifted=shifted)


register(Claim(
    id=f"{PAPER}.assumptions",
    paper=PAPER,
    source="the chance-constrained program (1) and its sample form (Section 2), Corollary 1's guidance, "
           "Algorithm 1's inputs",
    origin=Origin.IMPLEMENTATION,
    statement="Each input assumption of the setting (0 < ρ < 1, ρ a real number; at least ⌈1/ρ⌉ samples, "
              "with 1/ρ's float rounding forgiven (ρ = fl(1/49): 49) and nothing more (ρ = 1/(4 + 1.5e-12): "
              "5); "
              "n_fresh >= 1; g of shape (batch, L) or (batch, L, m); a box with interior (lower < upper "
              "entrywise); fresh samples of h's shape, h_sampler probed with default_rng(0); points of the "
              "problem's dimension; f finite at the construction's three documented probe points (NaN "
              "elsewhere accepted); LP data of consistent shapes and of the problem's width that reproduce f "
              "and g to within 1e-8·(max|f| + max|g|) (1e-4·(…) in float32; a difference of exactly that "
              "accepted), small data (max|f| + max|g| < 1), |g| ~ 1e4 and float32 data included; β > 0; "
              "corrector steps >= 0; a posterior variance >= 0; one Hessian per gradient row; a VP schedule "
              "with 0 < t_min < 0.5 and β_max > β_min; a restricted solution over >= 2 samples of h's width "
              "at a real margin z >= 0; diffusion times in [t_min, 1] up to rounding, t_min·(1 − eps) and "
              "1 + 1e-12 (the refusal reporting the "
              "entry out of range), float and integer tensors of times checked, an empty or a meta one left "
              "to its user) is enforced "
              "at its boundary: the value just inside is accepted, the value just outside is refused with a "
              "ValueError or TypeError naming the argument.",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_assumptions(ctx, shifted=False),
    control=lambda ctx: _check_assumptions(ctx, shifted=True),
    control_description="every boundary claimed one step inward (the value just inside stated as outside): "
                        "those values are accepted, so the same check must fail.",
))


# ------------------------------------------------------------------ ggdopt.score_models

def _exact_posterior_mean(mean: np.ndarray, var: np.ndarray, x: np.ndarray, ab: float) -> np.ndarray:
    """E[x_0 | x_t = x] for x_0 ~ N(mean, diag(var)), x_t = √ᾱ x_0 + √(1 − ᾱ) ε: Gaussian conditioning,
    mean + √ᾱ var (x − √ᾱ mean) / (ᾱ var + 1 − ᾱ) (written without the score)."""
    gain = math.sqrt(ab) * var / (ab * var + 1.0 - ab)
    return mean + gain * (x - math.sqrt(ab) * mean)


class _TimeRecordingMLP(ScoreMLP):
    """ScoreMLP that records the diffusion times train_score feeds its noise network."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.times: list[torch.Tensor] = []

    def noise(self, X: torch.Tensor) -> torch.Tensor:
        self.times.append(X[:, -1].detach().clone())
        return super().noise(X)


def _check_score_models(ctx: Context, *, tweedie=tweedie_mean) -> Outcome:
    """``tweedie`` the function under test (the control passes one without the 1/√ᾱ_t)."""
    schedule = VPSchedule()
    mean, std = np.array([1.5, -0.5, 0.25]), np.array([0.5, 2.0, 1.0])
    model = GaussianScore(mean, std, schedule)
    wrong = []
    if (model.in_features, model.out_features) != (4, 3):
        wrong.append(f"GaussianScore of 3 variables: in_features, out_features = {model.in_features}, "
                     f"{model.out_features} (documented: [x, t] in, n + 1 = 4; n = 3 out)")
    x = torch.as_tensor(np.random.default_rng(7).normal(size=(5, 3)) * 2.0)
    worst = 0.0
    for t in (schedule.t_min, 0.3, 1.0):
        ab = schedule.alpha_bar(t)
        got = tweedie(model, x, t).numpy()
        want = _exact_posterior_mean(mean, std**2, x.numpy(), ab)
        # two float64 evaluations of the same rational expression in ᾱ: ~1e-15 relative; 1e-12 leaves three
        # orders and sits far below any wrong factor (a missing 1/√ᾱ is O(1) at t = 1, ᾱ = 0.0066)
        error = float(np.abs(got - want).max() / (1.0 + np.abs(want).max()))
        worst = max(worst, error)
        if not error <= 1e-12:
            wrong.append(f"tweedie_mean at t = {t:g}: off the exact posterior mean by {error:.2g} (relative)")
    # score takes one time for all rows or one per row (documented; #46 round 6, seed 10: the per-row times
    # reshaped to (1, 1) survived): per-row times give, row by row, the score at that row's time
    times = torch.tensor([schedule.t_min, 0.3, 0.5, 0.8, 1.0], dtype=torch.float64)
    try:
        per_row = model.score(x, times)
        rows = torch.cat([model.score(x[i:i + 1], float(times[i])) for i in range(5)])
        row_error = float((per_row - rows).abs().max())
    except RuntimeError as exc:  # a shape error inside torch
        row_error = float("inf")
        wrong.append(f"GaussianScore.score with one time per row: {exc}")
    if not row_error <= 1e-12:  # the same float64 operations per row: equal up to ~1e-16
        wrong.append(f"GaussianScore.score with one time per row: off the row-by-row scores by "
                     f"{row_error:.2g}")
    # ScoreMLP's score is −ε_θ/√(1 − ᾱ_t) (documented), at t = t_min, 0.3, 1: the same float64 operations
    net = ScoreMLP(3, hidden=8, schedule=schedule, seed=1)
    X = torch.cat([x[:3], torch.tensor([[schedule.t_min], [0.3], [1.0]], dtype=torch.float64)], dim=1)
    with torch.no_grad():
        want_score = -net.noise(X) / (1.0 - schedule.alpha_bar(X[:, -1:])).sqrt()
        score_error = float((net(X) - want_score).abs().max() / (1.0 + want_score.abs().max()))
    if not score_error <= 1e-12:
        wrong.append(f"ScoreMLP's output off −ε_θ/√(1 − ᾱ_t) by {score_error:.2g} (relative)")
    # the network's input is the documented [x, t, sin πt, cos πt, sin 4πt, cos 4πt] (#46 round 5, seed 6: the
    # frequency 4π → 5π survived; no claim reads the features, and a trained score cannot resolve them)
    seen: list[torch.Tensor] = []
    hook = net.net[0].register_forward_pre_hook(lambda module, args: seen.append(args[0].detach().clone()))
    try:
        with torch.no_grad():
            net(X)
    finally:
        hook.remove()
    t_col = X[:, -1:].numpy()
    want_features = np.concatenate(
        [X.numpy()] + [fn(k * math.pi * t_col) for k in (1, 4) for fn in (np.sin, np.cos)], axis=1)
    # the same float64 sin/cos: ~1e-16; 1e-12 is far below a changed frequency (O(1) at t = 0.3)
    feature_error = float(np.abs(seen[0].numpy() - want_features).max()) if seen and \
        seen[0].shape == want_features.shape else float("inf")
    if not feature_error <= 1e-12:
        wrong.append(f"ScoreMLP's network input off [x, t, sin πt, cos πt, sin 4πt, cos 4πt] by "
                     f"{feature_error:.2g}")
    # train_score draws t ~ U[t_min, 1]: with t_min = 0.4, 2 steps of 256 draws, every time in [0.4, 1] and
    # both ends reached within 0.05 (a correct draw misses an end with probability (1 − 0.05/0.6)^512 < 1e-18)
    mlp = _TimeRecordingMLP(2, hidden=8, schedule=VPSchedule(t_min=0.4), seed=0)
    train_score(mlp, torch.zeros(8, 2, dtype=torch.float64), steps=2, batch_size=256, seed=0)
    times = torch.cat(mlp.times)
    low, high = float(times.min()), float(times.max())
    # no rows to train on is refused up front, naming data (#46 round 5, seed 5: the row test on the wrong
    # axis survived; torch then fails later on randint(0, 0) with an error that names nothing)
    try:
        train_score(ScoreMLP(2, hidden=4, seed=0), torch.zeros(0, 2, dtype=torch.float64), steps=1)
        wrong.append("train_score on data of 0 rows returned (documented: refused, naming data)")
    except ValueError as exc:
        if "data" not in str(exc):
            wrong.append(f"train_score on data of 0 rows: ValueError not naming data: {exc}")
    except Exception as exc:  # any other error is the slip: a refusal that does not name the argument
        wrong.append(f"train_score on data of 0 rows: {type(exc).__name__} (documented: ValueError naming "
                     "data)")
    if not (len(times) == 512 and 0.4 <= low <= 0.45 and 0.95 <= high <= 1.0):
        wrong.append(f"train_score with t_min = 0.4: {len(times)} times in [{low:.4g}, {high:.4g}] "
                     "(documented: t ~ U[t_min, 1], 512 draws)")
    evidence = {"worst_tweedie_relative_error": figure(worst, digits=2, floor=1e-16),
                "train_times_range": [figure(low, 4), figure(high, 4)], "wrong": wrong}
    if wrong:
        return Outcome("fail", "; ".join(wrong), evidence)
    return Outcome("pass", "GaussianScore has in_features n + 1 and out_features n; tweedie_mean with the "
                           "exact Gaussian score equals the Gaussian posterior mean at t = t_min, 0.3, 1; "
                           "train_score draws its times over [t_min, 1]", evidence)


def _tweedie_without_root(model, x, t):
    """Tweedie's formula with the 1/√ᾱ_t dropped (the control's slip)."""
    return tweedie_mean(model, x, t) * math.sqrt(model.schedule.alpha_bar(float(t)))


register(Claim(
    id=f"{PAPER}.score_models",
    paper=PAPER,
    source="eq. (19) (Tweedie's formula for E[x_0 | x_t]) and the score model of Section 4 (denoising score "
           "matching over t ~ U[t_min, 1]): tweedie_mean, GaussianScore, train_score",
    origin=Origin.IMPLEMENTATION,
    statement="GaussianScore(mean, std) of n = 3 variables takes [x, t] (in_features = 4) and returns n = 3; "
              "ScoreMLP's output is −ε_θ(x, t)/√(1 − ᾱ_t) at t = t_min, 0.3, 1 (1e-12), its network fed "
              "[x, t, sin πt, cos πt, sin 4πt, cos 4πt] (1e-12); "
              "tweedie_mean with it equals the posterior mean of Gaussian data, mean + √ᾱ var (x − √ᾱ mean)/"
              "(ᾱ var + 1 − ᾱ), at t = t_min, 0.3 and 1 on five points, to 1e-12 relative; train_score with "
              "t_min = 0.4 draws its 512 times (2 steps of 256) in [0.4, 1], the smallest below 0.45 and "
              "the largest above 0.95; it refuses data of 0 rows with a ValueError naming data.",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_score_models(ctx),
    control=lambda ctx: _check_score_models(ctx, tweedie=_tweedie_without_root),
    control_description="Tweedie's formula with the division by √ᾱ_t dropped: off the posterior mean by a "
                        "factor √ᾱ_t (O(1) at t = 0.3 and 1), so the same check must fail.",
))


# ------------------------------------------------------------------ ggdopt.stage1_restriction

#: SLSQP's own feasibility acceptance in restricted_solution (a point whose restriction is below −1e-6
#: is refused), so the independent margin may be that far below 0
_RESTRICTION_SLACK = 1e-6
#: a restriction the objective pulls against ends active: SLSQP stops at ftol 1e-9 on objectives of
#: order 1, so the active margin is within ~1e-8 of 0; 1e-5 is far below a margin off by a factor
_RESTRICTION_ACTIVE = 1e-5


def _stage1_problems(seed: int) -> list[tuple[str, ChanceConstrainedProblem]]:
    """The linear CCP (26) and the portfolio, whose budget row 1 − Σx is the same at every sample (a
    row with zero spread over any subset)."""
    return [("linear CCP (26)", linear_gaussian_problem(n=3, n_samples=60, rho=0.1, seed=seed)),
            ("portfolio, deterministic budget row", portfolio_var_problem(n_assets=3, n_samples=60, rho=0.1,
                                                                         seed=seed))]


class _NumpyBackward(torch.autograd.Function):
    """The identity, whose backward goes through numpy (as a user's g with a hand-written gradient may):
    torch's vmap cannot batch it."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(grad.detach().numpy().copy())


#: restricted_solution's documented SLSQP budget (iterations)
_SLSQP_BUDGET = 100


@lru_cache(maxsize=1)
def _stage1_budget_run() -> tuple[bool, int]:
    """restricted_solution on a problem SLSQP cannot finish within its budget: the 30-variable Rosenbrock
    function from the midpoint of [−2, 2.5]³⁰ (0.25 in every coordinate; SLSQP at ftol 1e-9 needs 146
    iterations to converge there when given 1000), with a restriction that holds everywhere (g = 1, margin
    1 − z·1e-6 at z = 0.5). Returns (a point returned, constraint Jacobians evaluated): scipy's SLSQP (pinned
    in constraints.txt) evaluates the constraint Jacobian once at the start and once per line search it
    accepts, budget + 1 = 101 times when it stops at its iteration limit; each Jacobian calls g once with
    autograd on (the constraint values call it under no_grad). Cached: the control reads the same run."""
    jacobians = [0]

    def g(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        if h.shape[0] == 2 and torch.is_grad_enabled():  # a Jacobian of the 2-sample restriction
            jacobians[0] += 1
        return h[None, :, 0] + 0.0 * x[:, :1]

    def rosenbrock(x: torch.Tensor) -> torch.Tensor:
        return (100.0 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1.0 - x[:, :-1]) ** 2).sum(dim=1)

    problem = ChanceConstrainedProblem(f=rosenbrock, g=g, h_samples=np.ones((4, 1)), rho=0.5,
                                       lower=[-2.0] * 30, upper=[2.5] * 30)
    with _one_thread():
        point = restricted_solution(problem, problem.h_samples[:2], 0.5)
    return point is not None, jacobians[0]


@lru_cache(maxsize=1)
def _stage1_acceptance() -> tuple[bool, bool]:
    """Whether restricted_solution returns a point when the restriction, evaluated once more at SLSQP's
    answer, is exactly −1e-6, and when it is the next float below. g = 1 at both samples of the subset
    (margin 1 at z = 0, so SLSQP succeeds at once on f = (x − 0.7)²), except on the last evaluation without
    autograd, the acceptance check after SLSQP, where it returns the test value at both samples: mean c,
    population variance 0, so the margin is c − 0·√(0 + 1e-12) = c exactly. The number of evaluations before
    the check is read from a first run (SLSQP is deterministic on the same input). Cached: the control reads
    the same run."""
    calls, final = [0], [0, 0.0]  # evaluations without autograd; (the evaluation that returns c, c)

    def g(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        value = h[None, :, 0] + 0.0 * x[:, :1]
        if h.shape[0] == 2 and not torch.is_grad_enabled():
            calls[0] += 1
            if calls[0] == final[0]:
                return torch.full_like(value, final[1])
        return value

    problem = ChanceConstrainedProblem(f=lambda x: (x[:, 0] - 0.7) ** 2, g=g, h_samples=np.ones((4, 1)),
                                       rho=0.5, lower=[0.0], upper=[1.0])
    restricted_solution(problem, problem.h_samples[:2], 0.0)
    last, returned = calls[0], []
    for value in (-1e-6, float(np.nextafter(-1e-6, -1.0))):
        calls[0], final[:] = 0, [last, value]
        returned.append(restricted_solution(problem, problem.h_samples[:2], 0.0) is not None)
    return returned[0], returned[1]


def _check_stage1(ctx: Context, *, margin_scale: float = 1.0) -> Outcome:
    rng = np.random.default_rng(ctx.seed)
    rows, wrong = [], []
    for name, problem in _stage1_problems(ctx.seed):
        h = problem.h_samples.astype(np.float64)
        for z in (0.5, 1.5, 2.5):
            subset = h[rng.choice(h.shape[0], size=20, replace=False)]
            x = restricted_solution(problem, subset, z)
            if x is None:
                wrong.append(f"{name}, z = {z}: no point returned")
                continue
            g = problem.constraints(x[None], subset)[0]  # (k, m)
            # the restriction written out: mean over the subset minus z population standard deviations
            margin = g.mean(axis=0) - margin_scale * z * np.sqrt(((g - g.mean(axis=0)) ** 2).mean(axis=0))
            low, active = float(margin.min()), float(np.abs(margin).min())
            if low < -_RESTRICTION_SLACK or active > _RESTRICTION_ACTIVE or \
                    np.any(x < problem.lower) or np.any(x > problem.upper):
                wrong.append(f"{name}, z = {z}: margins {margin.round(8).tolist()} (need >= −1e-6, one "
                             f"within 1e-5 of 0), x = {x.round(6).tolist()}")
            rows.append({"problem": name, "z": z, "lowest_margin": figure(low),
                         "active_margin": figure(active, floor=1e-15)})
    # SLSQP starts at the box midpoint (documented): with f constant and a restriction that holds everywhere,
    # the start is already optimal and is returned as it is (#46 round 5, seed 7: a start 0.5·(lower − upper),
    # outside the box, survived)
    flat = ChanceConstrainedProblem(f=lambda x: 0.0 * x.sum(dim=1),
                                    g=lambda x, s: s[None, :, 0] + 0.0 * x[:, :1],
                                    h_samples=np.array([[1.0], [2.0]] * 5), rho=0.25, lower=[-1.0, 0.0],
                                    upper=[3.0, 2.0])
    start = restricted_solution(flat, flat.h_samples, 0.5)
    if start is None or not np.allclose(start, [1.0, 1.0], rtol=0.0, atol=1e-12):
        wrong.append(f"constant f on [−1, 3] × [0, 2]: returned {start} (documented start, the midpoint "
                     "(1, 1))")
    # a row without spread gets the documented margin z·√1e-12 = z·1e-6 (round 6's screen: the guard 1e-12 →
    # 2e-12 survived, a margin 1.41 times wider): g = 3 − x at every sample, z = 2, f = −x pulling x up to
    # 3 − 2e-6 (SLSQP's answer on an active linear row: ~1e-12 off; 1e-8 is far below the 8e-7 of the mutant)
    flat_row = ChanceConstrainedProblem(f=lambda x: -x[:, 0],
                                        g=lambda x, s: 3.0 + 0.0 * s[None, :, 0] - x[:, :1],
                                        h_samples=np.ones((4, 1)), rho=0.5, lower=[0.0], upper=[10.0])
    guarded = restricted_solution(flat_row, flat_row.h_samples[:2], 2.0)
    if guarded is None or abs(float(guarded[0]) - (3.0 - 2e-6)) > 1e-8:
        wrong.append(f"g = 3 − x without spread, z = 2: returned {guarded} (documented: 3 − 2·1e-6)")
    # the moment restriction's Jacobian row by row (documented): a g whose backward leaves torch (numpy),
    # which torch's vmap cannot batch, still solves (#46 round 6, seed 10: the vmapped Jacobian for the moment
    # restriction survived); on g = 3 − x through that function, z = 2: the same 3 − 2e-6 as above
    numpy_row = replace(flat_row, g=lambda x, s: _NumpyBackward.apply(3.0 + 0.0 * s[None, :, 0] - x[:, :1]))
    try:
        through = restricted_solution(numpy_row, numpy_row.h_samples[:2], 2.0)
    except RuntimeError as exc:  # vmap's refusal of the numpy backward
        through = f"{type(exc).__name__}: {str(exc)[:80]}"
    if isinstance(through, str) or through is None or abs(float(through[0]) - (3.0 - 2e-6)) > 1e-8:
        wrong.append(f"g = 3 − x through a numpy backward, z = 2: {through} (documented: 3 − 2·1e-6)")
    # SLSQP's documented budget, 100 iterations (#46 round 5, seed 5: maxiter 100 → 101 survived): a problem
    # that needs 146 must come back without a point after exactly 100 (101 constraint Jacobians)
    budget_point, jacobians = _stage1_budget_run()
    if budget_point or jacobians != _SLSQP_BUDGET + 1:
        wrong.append(f"Rosenbrock, 30 variables (SLSQP needs 146 iterations): "
                     f"{'a point' if budget_point else 'None'} after {jacobians} constraint Jacobians "
                     f"(documented: None after {_SLSQP_BUDGET} iterations, {_SLSQP_BUDGET + 1} Jacobians)")
    # the answer check: a restriction of exactly −1e-6 at SLSQP's point accepted, the next float below refused
    # (#46 round 3 and round 5, seed 7: `< −1e-6` → `<= −1e-6` and → `< −2e-6` survived)
    at_tolerance, below = _stage1_acceptance()
    if not at_tolerance or below:
        wrong.append(f"answer check: a margin of exactly −1e-6 {'accepted' if at_tolerance else 'refused'}, "
                     f"the next float below {'accepted' if below else 'refused'} (documented: accepted, "
                     "refused)")
    ok = not wrong
    return Outcome("pass" if ok else "fail",
                   "stage 1's restricted problem (13): the moment restriction mean − z·std over the subset "
                   f"(a zero-spread row included) holds and is active at the returned point: "
                   f"{'holds' if ok else 'violated'}", {"points": rows, "wrong": wrong[:10],
                                                         "margin_scale": margin_scale,
                                                         "budget_jacobians": jacobians,
                                                         "accepted_at_tolerance": at_tolerance,
                                                         "accepted_below": below})


register(Claim(
    id=f"{PAPER}.stage1_restriction",
    paper=PAPER,
    source="Section 3.1, stage 1: the restricted problem (13) whose solutions, labelled by their empirical "
           "violation (14), form D_ρ",
    origin=Origin.IMPLEMENTATION,
    statement="On the linear CCP (26) (n = 3, L = 60) and the portfolio (3 assets, whose budget row 1 − Σx "
              "has zero spread over every subset), restricted_solution at margins z ∈ {0.5, 1.5, 2.5} over a "
              "random subset of 20 samples returns a point of the box at which every row's mean over the "
              "subset minus z population standard deviations is >= −1e-6 and the tightest is within 1e-5 of "
              "0 (the objective pulls against it); with f constant and a restriction that holds on the whole "
              "box [−1, 3] × [0, 2], it returns SLSQP's start, the box midpoint (1, 1), to 1e-12; on the "
              "30-variable Rosenbrock function from the midpoint of [−2, 2.5]³⁰ (146 SLSQP iterations "
              "needed) it returns None after its documented budget of exactly 100 iterations (101 constraint "
              "Jacobians); on g = 3 − x, the same at every sample, with z = 2 and f = −x it returns "
              "3 − 2·1e-6 to 1e-8 (the spread √(var + 1e-12)), also when g's backward goes through numpy "
              "(which torch's vmap cannot batch); and it accepts SLSQP's answer when the "
              "restriction evaluated once more there is "
              "exactly −1e-6 and refuses it at the next float below (a g whose last evaluation returns that "
              "value)",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_stage1(ctx),
    control=lambda ctx: _check_stage1(ctx, margin_scale=1.5),
    control_description="the margins written out with 1.5·z standard deviations: the returned points then "
                        "violate them on the rows with spread, so the same check must fail",
))


# ------------------------------------------------------------------------ ggdopt.solve_contract

@lru_cache(maxsize=2)
def _contract_run(seed: int) -> tuple:
    """A small GGDOpt solve whose callback stops it at sampler step 2 (cached: the control reads the same
    run); its Solution, the steps the callback saw and the solve's wall time."""
    problem = linear_gaussian_problem(n=2, n_samples=40, rho=0.25, seed=seed)
    algorithm = GGDOpt(n_train_points=20, train_steps=10, hidden=8, batch_size=16, n_samples=16, n_steps=6,
                       corrector_steps=0)
    seen: list[int] = []

    def callback(record: dict) -> bool:
        seen.append(int(record["iteration"]))
        return record["iteration"] >= 2

    with _one_thread():
        start = time.perf_counter()
        sol = solve(problem, algorithm, seed=seed, callback=callback)
        wall = time.perf_counter() - start
    return sol, tuple(seen), wall


def _check_solve_contract(ctx: Context, *, stop_after: int = 2) -> Outcome:
    """The run of :func:`_contract_run`, expected to stop after step ``stop_after``."""
    sol, seen, wall = _contract_run(ctx.seed)
    stats = sol.stats
    checks = {
        # the sampler ran steps 0, 1, 2 and the callback stopped it after the third
        "retcode Terminated": sol.retcode is RetCode.Terminated,
        f"iterations = {stop_after + 1}": stats.iterations == stop_after + 1,
        "callback saw steps 0..2": seen == (0, 1, 2),
        # the reported seconds of stage 2 and stage 3 are parts of the solve's wall time
        "0 <= train, sample seconds": stats.train_seconds >= 0.0 and stats.sample_seconds >= 0.0,
        "train + sample seconds <= wall": stats.train_seconds + stats.sample_seconds <= wall,
    }
    wrong = [k for k, v in checks.items() if not v]
    return Outcome("pass" if not wrong else "fail",
                   f"GGDOpt stopped by its callback at step 2: {sol.retcode.value} after {stats.iterations} "
                   f"sampler steps, seconds {stats.train_seconds:.3g} + {stats.sample_seconds:.3g} of "
                   f"{wall:.3g} wall: {'holds' if not wrong else 'violated: ' + '; '.join(wrong)}",
                   {"retcode": sol.retcode.value, "iterations": stats.iterations, "seen": list(seen),
                    "wrong": wrong})


register(Claim(
    id=f"{PAPER}.solve_contract",
    paper=PAPER,
    source="Algorithm 1 (stage 3, the guided reverse sampling) and Table 1's runtime column: the solve's "
           "stopping contract and the seconds it reports",
    origin=Origin.IMPLEMENTATION,
    statement="A GGDOpt solve (n = 2, L = 40, ρ = 0.25, a small network) whose callback asks to stop at "
              "sampler step 2 returns Terminated with stats.iterations = 3 after the callback saw steps "
              "0, 1, 2; its reported training and sampling seconds are >= 0 and sum to at most the solve's "
              "wall time",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_solve_contract(ctx),
    control=lambda ctx: _check_solve_contract(ctx, stop_after=3),
    control_description="the stop expected one step later (4 iterations) than the callback asks: the same "
                        "check must fail",
))


# ------------------------------------------------------------------- ggdopt.feasible_set_rule

#: stage 1's documented budget: at most this many restricted problems per requested point
_ATTEMPTS_PER_POINT = 2


@lru_cache(maxsize=2)
def _stage1_attempts(seed: int) -> tuple[int, int]:
    """Stage 1 asked for 3 points on a constraint x cannot change (g = h's first column: −3 three times, 1
    five times; subsets of 6 of the 8 samples): a restricted problem has a solution only when its subset holds
    a single −3 (3 subsets in 28; mean 1/3, std 1.49) and its margin z is below 0.22 (z ~ U[0, 3.5]: 6.4 %),
    0.7 % of them, so 6 draws give fewer than 3 points except with probability < 1e-5; the failures are cheap
    (SLSQP gives up within a few evaluations on a constraint with zero gradient). Cached: the control reads
    the same run. Returns (restricted problems solved, points
    returned): each restricted problem passes g one subset, recorded by the sample indices in h's second
    column."""
    subsets: set[tuple[int, ...]] = set()

    def g(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        if h.shape[0] == 6:  # a restricted problem's subset (the probes and the labels pass all 8)
            subsets.add(tuple(int(i) for i in h[:, 1].tolist()))
        return h[None, :, 0] + 0.0 * x[:, :1]

    h = np.column_stack([[-3.0] * 3 + [1.0] * 5, np.arange(8.0)])
    problem = ChanceConstrainedProblem(f=lambda x: (x[:, 0] - 0.7) ** 2, g=g, h_samples=h, rho=0.125,
                                       lower=[0.0], upper=[1.0])
    try:
        returned = collect_feasible_points(problem, n_points=3, bootstrap_size=6, seed=seed)[0].shape[0]
    except ValueError as exc:  # none had a solution (the likeliest outcome): documented as this refusal
        if "restricted problems" not in str(exc):
            raise
        returned = 0
    return len(subsets), returned


@lru_cache(maxsize=2)
def _stage1_subset_size(seed: int) -> tuple[int, ...]:
    """The subset sizes (sorted, distinct) the moment restriction passes to g at bootstrap_size 2, on a
    problem every restricted problem solves at once (f constant, g = 1 at every one of 16 samples): one
    point asked, so one problem. (The scenario branch's k ~ U{⌈1/ρ⌉, ..., bootstrap_size} is not probed
    here: its first vectorised Jacobian costs a one-time ~2 s in a worker, above the quick budget.)"""
    sizes: list[int] = []

    def g(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        if h.shape[0] < 16:  # a restricted problem's subset (the probes at construction pass all 16)
            sizes.append(int(h.shape[0]))
        return h[None, :, 0] + 0.0 * x[:, :1]

    problem = ChanceConstrainedProblem(f=lambda x: 0.0 * x[:, 0], g=g, h_samples=np.ones((16, 1)), rho=0.25,
                                       lower=[0.0], upper=[1.0])
    collect_feasible_points(problem, n_points=1, bootstrap_size=2, seed=seed)
    return tuple(sorted(set(sizes)))


class _SubsetDrawn(Exception):
    """Raised by the scenario probe's g once it has recorded a restricted problem's subset (so no SLSQP run,
    and no vectorised Jacobian, follows)."""


#: scenario-subset draws recorded per check (one per seed): a correct draw misses one of the 3 sizes with
#: probability <= 3·(2/3)^24 < 2e-4, and a range one larger shows its extra size with probability 0.999
_SCENARIO_DRAWS = 24


@lru_cache(maxsize=2)
def _scenario_subsets(seed: int) -> tuple[tuple[int, ...], ...]:
    """The first subset stage 1's scenario restriction passes to g, at seeds seed, ..., seed + 23: L = 8
    samples (their indices in h's second column), ρ = 0.25 (⌈1/ρ⌉ = 4), bootstrap_size 6, so the documented
    size k ~ U{4, 5, 6}. g raises once it has recorded the subset: the restricted problem is never solved
    (its first vectorised Jacobian alone costs ~2 s once per process). Cached: the control reads the same
    draws."""
    drawn: list[tuple[int, ...]] = []

    def g(x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        if h.shape[0] < 8:  # a restricted problem's subset (the probes at construction pass all 8)
            drawn.append(tuple(int(i) for i in h[:, 1].tolist()))
            raise _SubsetDrawn
        return h[None, :, 0] + 0.0 * x[:, :1]

    h = np.column_stack([np.ones(8), np.arange(8.0)])
    problem = ChanceConstrainedProblem(f=lambda x: 0.0 * x[:, 0], g=g, h_samples=h, rho=0.25, lower=[0.0],
                                       upper=[1.0])
    for offset in range(_SCENARIO_DRAWS):
        try:
            collect_feasible_points(problem, n_points=1, bootstrap_size=6, seed=seed + offset,
                                    restriction="scenario")
        except UserCallableError as exc:  # the library names the user's g that raised, chaining its error
            if not isinstance(exc.__cause__, _SubsetDrawn):
                raise
            continue
    return tuple(drawn)


@lru_cache(maxsize=2)
def _stage1_margins(seed: int) -> np.ndarray:
    """The margins z of 12 stage-1 points, read back from the points: g = h − x on [0, 10] with h = 8 and 10
    eight times each (mean 9, population std 1 over the subset, which is all 16 samples at the default
    bootstrap size 50) and f = (x − 10)² pulling x onto the restriction 9 − z·1 >= x, so x = 9 − z."""
    h = np.array([[8.0]] * 8 + [[10.0]] * 8)
    problem = ChanceConstrainedProblem(f=lambda x: (x[:, 0] - 10.0) ** 2,
                                       g=lambda x, s: s[None, :, 0] - x[:, :1],
                                       h_samples=h, rho=0.1, lower=[0.0], upper=[10.0])
    points, _ = collect_feasible_points(problem, n_points=12, seed=seed)
    return 9.0 - points[:, 0]


@lru_cache(maxsize=2)
def _tie_run(seed: int):
    """A small GGDOpt solve on a problem where every point of [0, 4) × [0, 1] violates exactly 1 of L = 16
    samples (g = h − x₁, h = −0.1 once and 4 fifteen times) at ρ = 1/16 (1 − 15/16 is exactly 1/16 in floats),
    f = (x₁ − 10)² pulling every restricted solution onto its margin (x₁ = mean − z·std ∈ [0.27, 3.74]); x₂
    enters neither f nor g, so SLSQP never moves it from the box midpoint 0.5 (a zero gradient there) and D_ρ
    has no spread at all in x₂ (the standardisation's floor 1e-3·width must carry it).
    Returns (problem, Solution or the error text)."""
    h = np.array([[-0.1]] + [[4.0]] * 15)
    problem = ChanceConstrainedProblem(f=lambda x: (x[:, 0] - 10.0) ** 2 + 0.0 * x[:, 1],
                                       g=lambda x, s: s[None, :, 0] - x[:, :1],
                                       h_samples=h, rho=1.0 / 16.0, lower=[0.0, 0.0], upper=[10.0, 1.0])
    algorithm = GGDOpt(guidance="none", n_train_points=10, train_steps=2, hidden=4, batch_size=8,
                       n_samples=8, n_steps=2, corrector_steps=0)
    with _one_thread():
        try:
            return problem, solve(problem, algorithm, seed=seed)
        except (ValueError, RuntimeError) as exc:  # e.g. NaN training data from a zero spread
            return problem, f"{type(exc).__name__}: {exc}"


@lru_cache(maxsize=2)
def _trace_run(seed: int):
    """The tie problem's data and solver on the box [−100, 100] × [0, 1], so that no sample of the 2-step
    run is clipped (its stage-1 points are the same margins x₁ ∈ [0.27, 3.74], D_ρ's spread in x₁ is ~1);
    a trace is stored. Returns the Solution (cached: the control reads the same run)."""
    h = np.array([[-0.1]] + [[4.0]] * 15)
    problem = ChanceConstrainedProblem(f=lambda x: (x[:, 0] - 10.0) ** 2 + 0.0 * x[:, 1],
                                       g=lambda x, s: s[None, :, 0] - x[:, :1],
                                       h_samples=h, rho=1.0 / 16.0, lower=[-100.0, 0.0], upper=[100.0, 1.0])
    algorithm = GGDOpt(guidance="none", n_train_points=10, train_steps=2, hidden=4, batch_size=8,
                       n_samples=8, n_steps=2, corrector_steps=0)
    with _one_thread():
        return problem, solve(problem, algorithm, seed=seed, store_trace=True)


def _check_feasible_set_rule(ctx: Context, *, per_point: int = _ATTEMPTS_PER_POINT,
                             strict: bool = False) -> Outcome:
    """``per_point`` the budget stated per requested point, ``strict`` D_ρ stated as violation < ρ (the
    control states both one step off)."""
    wrong = []
    # a constraint value of exactly −FEAS_TOL = −1e-7 counts as satisfied, the next float below as violated
    # (round 6's screen: the tolerance 1e-7 → 2e-7 and `>=` → `>` survived): 1 of these 4 samples is violated
    edge = np.array([[-1e-7], [float(np.nextafter(-1e-7, -1.0))], [0.0], [1.0]])
    # and out-of-sample feasibility is the satisfied fraction of the fresh samples: a sampler that repeats
    # these 4 values gives 6 of 8 satisfied (round 6's screen: 1 − v → 1 + v, 2 − v survived)
    at_edge = ChanceConstrainedProblem(f=lambda x: x[:, 0], g=lambda x, h: h[None, :, 0] + 0.0 * x[:, :1],
                                       h_samples=edge, rho=0.25, lower=[0.0], upper=[1.0],
                                       h_sampler=lambda generator, count: np.resize(edge, (count, 1)))
    edge_violation = float(empirical_violation(at_edge, np.array([[0.5]]))[0])
    edge_fresh = float(out_of_sample_feasibility(at_edge, np.array([[0.5]]), n_fresh=8)[0])
    if edge_violation != 0.25 or edge_fresh != 0.75:
        wrong.append(f"g = −1e-7, the next float below, 0, 1 at 4 samples: empirical violation "
                     f"{edge_violation}, out-of-sample feasibility on 8 fresh samples repeating them "
                     f"{edge_fresh} (documented: 1/4 and 3/4, a value >= −1e-7 satisfied)")
    # the scenario restriction's subset size k ~ U{⌈1/ρ⌉, ..., min(L, bootstrap_size)}, drawn without
    # replacement (#46 round 5, seed 7: the range's end size + 1 → size − 1 and → size + 2 survived)
    subsets = _scenario_subsets(ctx.seed)
    scenario_sizes = sorted({len(s) for s in subsets})
    if len(subsets) != _SCENARIO_DRAWS or scenario_sizes != [4, 5, 6] or \
            any(len(set(s)) != len(s) for s in subsets):
        wrong.append(f"scenario subsets at ρ = 0.25, bootstrap_size 6, L = 8: {len(subsets)} of "
                     f"{_SCENARIO_DRAWS} recorded, sizes {scenario_sizes}, repeated samples in "
                     f"{sum(len(set(s)) != len(s) for s in subsets)} (documented: sizes exactly 4, 5, 6, no "
                     "repeats)")
    attempts, returned = _stage1_attempts(ctx.seed)
    if not (returned < 3 and attempts == per_point * 3):
        wrong.append(f"stage 1 asked for 3 points: {attempts} restricted problems solved, {returned} points "
                     f"returned (stated: {per_point * 3} problems when fewer than 3 come out)")
    moment_sizes = _stage1_subset_size(ctx.seed)
    if moment_sizes != (2,):
        wrong.append(f"stage 1's subsets at bootstrap_size 2: sizes {list(moment_sizes)} (stated: [2])")
    margins = _stage1_margins(ctx.seed)
    # z ~ U[0, 3.5] (the module's Z_MAX): 12 draws, read back to SLSQP's ~1e-8; the largest above 2 and the
    # smallest below 1.5 (a correct draw misses either with probability (2/3.5)^12 < 0.0012)
    z_low, z_high = float(margins.min()), float(margins.max())
    if not (margins.shape == (12,) and -1e-6 <= z_low < 1.5 and 2.0 < z_high <= 3.5 + 1e-6):
        wrong.append(f"stage 1's margins z in [{z_low:.4g}, {z_high:.4g}] over {margins.shape[0]} points "
                     "(documented: z ~ U[0, 3.5])")
    problem, sol = _tie_run(ctx.seed)
    if isinstance(sol, str):
        wrong.append(f"the tie problem (D_ρ without spread in x₂): the solve raised {sol}")
        return Outcome("fail", "; ".join(wrong), {"wrong": wrong})
    run = sol.original
    rho = problem.rho
    member = (run.train_violation < rho) if strict else (run.train_violation <= rho)
    trained = len(run.losses) > 0
    if not (run.train_violation.shape[0] == 10 and np.all(run.train_violation == rho)):
        wrong.append(f"the tie problem's stage-1 violations {run.train_violation.tolist()} (all must be "
                     "1/16)")
    # D_ρ = the stage-1 points of violation <= ρ: all 10 (the minimum GGDOpt trains on), so stage 2 runs
    if trained != (int(member.sum()) >= 10):
        wrong.append(f"D_ρ: {int(member.sum())} of 10 points of violation exactly ρ in it by the stated "
                     f"rule, but stage 2 {'ran' if trained else 'did not run'} ({sol.retcode.value})")
    counted = sol.stats.n_feasible_samples
    # the trace's mean f per reverse step, in f's units at the unclipped samples (#46 round 6, seed 9: f read
    # at scale·u without the centre survived; round 2: the trace divided by f's spread): f = (x₁ − 10)² is
    # not linear, so the centre matters; the last step's mean equals the returned samples' mean f when none
    # was clipped (same float64 values in another order: ~1e-15 relative; 1e-9 leaves room)
    wide, traced = _trace_run(ctx.seed)
    trace_mean = float(traced.trace[-1]["mean_value"]) if traced.trace else float("nan")
    inside = traced.original.samples.shape[0] > 0 and \
        bool(np.all((traced.original.samples > wide.lower) & (traced.original.samples < wide.upper)))
    samples_mean = float(traced.original.sample_values.mean()) if inside else float("nan")
    if not (inside and abs(trace_mean - samples_mean) <= 1e-9 * (1.0 + abs(samples_mean))):
        wrong.append(f"the tie problem on [−100, 100] × [0, 1]: the trace's last mean f {trace_mean:.12g} "
                     f"against the samples' mean f {samples_mean:.12g} (all inside the box: {inside})")
    if trained:
        feasible = (run.sample_violation < rho) if strict else (run.sample_violation <= rho)
        at_rho = int(np.sum(run.sample_violation == rho))
        if at_rho == 0 or counted != int(feasible.sum()) or \
                (sol.retcode is RetCode.Success) != bool(feasible.any()):
            wrong.append(f"samples' violations {run.sample_violation.tolist()}: {counted} counted "
                         f"feasible, {int(feasible.sum())} by the stated rule ({at_rho} exactly at ρ); "
                         f"{sol.retcode.value}")
    evidence = {"stage1_attempts": attempts, "stage1_points": returned, "stated_attempts": per_point * 3,
                "margins_range": [figure(z_low, 4), figure(z_high, 4)],
                "subset_sizes": list(moment_sizes), "scenario_subset_sizes": scenario_sizes,
                "tie_retcode": sol.retcode.value, "tie_trained": trained, "feasible_samples": counted,
                "trace_mean_f": figure(trace_mean), "samples_mean_f": figure(samples_mean),
                "strict": strict, "wrong": wrong}
    if wrong:
        return Outcome("fail", "; ".join(wrong), evidence)
    return Outcome("pass", f"stage 1 stopped after {attempts} = 2·3 restricted problems with {returned} "
                           f"points; the 10 points of violation exactly ρ formed D_ρ and stage 2 ran; "
                           f"{counted} samples of violation <= ρ counted feasible ({sol.retcode.value})",
                   evidence)


register(Claim(
    id=f"{PAPER}.feasible_set_rule",
    paper=PAPER,
    source="Section 3.1, stage 1 and D_ρ: the restricted problems' budget and the empirical feasibility rule "
           "(violation (14) <= ρ, at most ⌊ρL⌋ violated samples) that decides D_ρ and the answer",
    origin=Origin.IMPLEMENTATION,
    statement="collect_feasible_points asked for 3 points solves exactly 2·3 = 6 restricted problems "
              "when fewer than 3 of them have a solution (a constraint x cannot change, 8 samples, subsets "
              "of 6: 6 distinct subsets reach g); its margins z ~ U[0, 3.5], read back from 12 points "
              "x = 9 − z, lie in [0, 3.5] with the largest above 2 and the smallest below 1.5; at "
              "bootstrap_size 2 its subsets have 2 samples; with the scenario restriction (ρ = 0.25, "
              "bootstrap_size 6, L = 8) the first subsets of 24 seeds have distinct samples and sizes "
              "k ~ U{⌈1/ρ⌉, ..., 6}: exactly the sizes 4, 5 and 6 occur; a constraint value of exactly "
              "−1e-7 counts as satisfied and the next float below as violated (empirical violation 1/4 of "
              "−1e-7, its next float below, 0, 1; out-of-sample feasibility 3/4 on 8 fresh samples repeating "
              "them); and a point "
              "whose empirical violation is exactly ρ is feasible: on a problem where every point of "
              "[0, 4) × [0, 1] violates exactly 1 of L = 16 samples at ρ = 1/16 and every stage-1 point has "
              "x₂ = 0.5 (no spread), GGDOpt (guidance none, 10 stage-1 points) trains on all 10, counts "
              "exactly its samples of violation <= ρ as feasible (at least one of them exactly at ρ), "
              "returns Success iff one exists; on the same problem over [−100, 100] × [0, 1] the trace's "
              "last mean f equals the samples' mean f to 1e-9 (none of them clipped)",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_feasible_set_rule(ctx),
    control=lambda ctx: _check_feasible_set_rule(ctx, per_point=3, strict=True),
    control_description="the budget stated as 3·n_points and D_ρ as violation < ρ (a tie excluded): stage 1 "
                        "solves 6 problems and the tie points are trained on, so the same check must fail",
))


# ------------------------------------------------------------------------- ggdopt.reverse_step

def _gaussian_score(x: np.ndarray, t: float, mean: np.ndarray, var: np.ndarray,
                    schedule: VPSchedule) -> np.ndarray:
    """The exact score of N(mean, diag(var)) data diffused to time t, written out."""
    ab = math.exp(-(schedule.beta_min * t + 0.5 * (schedule.beta_max - schedule.beta_min) * t * t))
    return -(x - math.sqrt(ab) * mean) / (ab * var + 1.0 - ab)


def _check_reverse_step(ctx: Context, *, corrector_decay: bool = True) -> Outcome:
    """Two predictor–corrector steps of guided_reverse_sample (guidance none, exact Gaussian data score)
    against the module's documented steps written out in numpy on the same normal draws (the start, then per
    step the predictor's noise and the corrector's). ``corrector_decay=False`` (the control) writes the
    corrector step without its e^{−ηΔ} factor, Song et al.'s plain rule."""
    schedule = VPSchedule()
    mean, var = np.array([1.5, -0.5]), np.array([0.25, 4.0])
    model = GaussianScore(mean, np.sqrt(var), schedule)
    n_steps, snr, count = 20, 0.16, 6
    with _one_thread():
        run = guided_reverse_sample(model, lambda x: x[:, 0], n_samples=count, beta=1.0, guidance="none",
                                    n_steps=n_steps, corrector_steps=1, snr=snr, seed=ctx.seed, max_steps=2)

    def written_out(n_steps: int) -> np.ndarray:
        """The first two documented steps of an n_steps run, from the sampler's draws (seeded alike); the
        run's last step is the predictor's drift alone (no noise, no corrector)."""
        generator = torch.Generator().manual_seed(ctx.seed)

        def draw() -> np.ndarray:
            return torch.randn((count, 2), generator=generator, dtype=torch.float64).numpy()

        x = draw()
        delta = (1.0 - schedule.t_min) / n_steps
        for k in range(2):
            t = 1.0 - k * delta
            eta = schedule.beta_min + t * (schedule.beta_max - schedule.beta_min)
            x = x + (0.5 * eta * x + eta * _gaussian_score(x, t, mean, var, schedule)) * delta
            if k == n_steps - 1:
                break
            x = x + math.sqrt(eta * delta) * draw()
            s = _gaussian_score(x, t - delta, mean, var, schedule)
            z = draw()
            ratio = np.linalg.norm(z, axis=1).mean() / np.linalg.norm(s, axis=1).mean()
            eps = 2.0 * (math.exp(-eta * delta) if corrector_decay else 1.0) * (snr * ratio) ** 2
            x = x + eps * s + math.sqrt(2.0 * eps) * z
        return x

    x = written_out(n_steps)
    if run.status != "stopped" or run.steps != 2:
        return Outcome("fail", f"guided_reverse_sample with max_steps = 2 of 20: {run.status} after "
                               f"{run.steps} steps (documented: stopped after 2)",
                       {"status": run.status, "steps": run.steps})
    # the same float64 operations in another order: ~1e-15 relative; 1e-12 leaves three orders, and a step
    # constant off by e^{±ηΔ} (ηΔ ≈ 1 at t = 1 with 20 steps) moves x by O(0.1)
    # a whole run of 2 steps (#46 round 6, seed 8: the last-step test `k == n_steps − 1` → `n_steps + 1`
    # survived): step 0 as above, then the last predictor step, documented to add no noise and no corrector
    with _one_thread():
        full = guided_reverse_sample(model, lambda x: x[:, 0], n_samples=count, beta=1.0, guidance="none",
                                     n_steps=2, corrector_steps=1, snr=snr, seed=ctx.seed)
    y = written_out(2)
    if full.status != "completed" or full.steps != 2:
        return Outcome("fail", f"guided_reverse_sample with n_steps = 2: {full.status} after {full.steps} "
                               "steps (documented: completed after 2)",
                       {"status": full.status, "steps": full.steps})
    outcome = numeric_outcome(np.concatenate([run.x.numpy(), full.x.numpy()]), np.concatenate([x, y]),
                              rtol=1e-12, atol=1e-12,
                              what="two predictor–corrector steps of 20, and a whole run of 2 steps (the "
                                   "last without noise or corrector), against the documented steps written "
                                   "out", names=("sampler", "written out"))
    outcome.evidence["corrector_decay"] = corrector_decay
    return outcome


register(Claim(
    id=f"{PAPER}.reverse_step",
    paper=PAPER,
    source="Algorithm 2 (the reverse SDE (17) as a predictor–corrector sampler): guided_reverse_sample's "
           "Euler–Maruyama predictor and Langevin corrector steps",
    origin=Origin.IMPLEMENTATION,
    statement="The first two steps of guided_reverse_sample (VP schedule, 20 steps, one corrector step, "
              "snr 0.16, guidance none, the exact score of N((1.5, −0.5), diag(0.25, 4)) data, 6 samples) "
              "equal, to 1e-12, the documented steps written out on the same normal draws: the predictor "
              "x + (½ηx + η s(x, t))Δ + √(ηΔ) z and the corrector x + ε s(x, t − Δ) + √(2ε) z with "
              "ε = 2 e^{−ηΔ} (snr ‖z‖/‖s‖)² (norms averaged over the samples, η = η(t) of the predictor); "
              "and a whole run of n_steps = 2 (completed) equals those steps with the last predictor step "
              "written without noise and without a corrector step",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_reverse_step(ctx),
    control=lambda ctx: _check_reverse_step(ctx, corrector_decay=False),
    control_description="the corrector written without its e^{−ηΔ} factor (Song et al.'s plain step): about "
                        "e^1 times the step at t = 1 with 20 steps, so the same check must fail",
))
