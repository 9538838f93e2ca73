"""Claims of Machine Unlearning under Overparameterization (Block, Mokhtari, Shakkottai; arXiv:2505.22601).

Twelve claims against :mod:`algorithms.unlearning` and the paper's results map (its nine main-text
numbered results, Tables 1-3 and Figures 1-2):

* ``overparam_unlearning.gradients_vanish`` (property, Theorem 1): at an interpolator of D the
  retain and forget loss gradients vanish, so GradientDescent, NegGrad, NegGradPlus and any
  P_r∇J_r + P_f∇J_f update return θ* unchanged (linear, deep-linear and two-layer models).
* ``overparam_unlearning.linear_exact`` (property, Theorem 2): for d > n, MinNorm-OG with λ = 0
  from the full-data minimum-norm interpolator returns the retained-data minimum-norm interpolator.
* ``overparam_unlearning.closed_form_step`` (numeric, Appendix E): the orthogonal-gradient update
  equals the KKT solution of the constrained problem it claims to solve.
* ``overparam_unlearning.deep_linear_predictor`` (property, Lemma 1 and Theorem 3).
* ``overparam_unlearning.deep_linear_parameter_norm`` (numeric, Theorem 4).
* ``overparam_unlearning.two_layer_width`` (property, Lemma 2 and Theorem 5).
* ``overparam_unlearning.prune_rows`` (property, Proposition 1 and Corollary 1).
* ``overparam_unlearning.mlp_interpolates`` (numeric, derived from (5)-(7) and Algorithm 1): on
  nonlinear networks one update moves the retained outputs by O(κ²), the forget outputs by Θ(κ).
* ``overparam_unlearning.ridge_limit`` (numeric, prior result [22]): the Ridge baseline reaches the
  ridge minimizer and approaches the minimum-norm interpolator as λ decreases.
* ``overparam_unlearning.descent_updates`` (numeric, implementation check): away from
  interpolation, every iterative method follows its update rule (recomputed in numpy), and a
  blown-up ascent stops Diverged at the documented bound.
* ``overparam_unlearning.table1_poisoning`` (numeric, Table 1): the data-poisoning experiment.
* ``overparam_unlearning.assumptions`` (property, implementation check): every input assumption
  is enforced at its boundary (the value just inside accepted, just outside refused).
* ``overparam_unlearning.stopping_criteria`` (property, implementation check): the solvers' stopping
  rules, tolerances and work counts as documented.

Controls: a sabotaged implementation reached through the same ``solve`` call (a problem whose
model gradients are hidden, a swapped retain/forget split, an inverted pruning mask, an
unbalanced factorization, the unregularized relaxed problem) or inputs that break the
assumption (a θ* that does not interpolate).

>>> from theorems.core import REGISTRY, coverage
>>> len([k for k in REGISTRY if k.startswith("overparam_unlearning.")])
13
>>> coverage("overparam_unlearning")["uncovered"]
[]
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache, partial

import numpy as np
import scipy.optimize
import torch
from hypothesis import assume
from hypothesis import strategies as st

from algorithms import RetCode, solve
from algorithms.core import WORKING_MAX, WORKING_MIN
from algorithms.nets.models import MLP
from algorithms.unlearning import (
    DeepLinearOG,
    GradientDescent,
    MinNormOG,
    NegGrad,
    NegGradPlus,
    Retrain,
    Ridge,
    SparseWidthOG,
    UnlearningProblem,
    active_neurons,
    balanced_factorization,
    deep_linear_task,
    effective_predictor,
    forget_split,
    lemma1_perturbation,
    linear_task,
    orthogonal_gradient_step,
    prune_inactive_neurons,
    sine_poisoning_task,
    strength_schedule,
    sup_error,
    two_layer_task,
)
from algorithms.unlearning.models import ACTIVATIONS, DeepLinear, LinearModel, TwoLayerPerceptron
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import Boundary, boundary_outcome
from theorems.core.certificates import Certificate, Method, Rejected
from theorems.core.evidence import fact, figure, property_outcome
from theorems.strategies import seeds

PAPER = "overparam_unlearning"
SOURCE = "arXiv:2505.22601v2"

#: float64 round-off allowance: backward-stable solves err by ~ eps·cond; 1e3·eps leaves room
#: for the O(n) accumulations of the products and projections
ROUNDOFF = 1e3 * np.finfo(np.float64).eps


def _min_norm(X: torch.Tensor, y: torch.Tensor) -> np.ndarray:
    """pinv(X) y by numpy's SVD least squares (independent of the torch path under test)."""
    return np.linalg.lstsq(X.numpy(), y.numpy(), rcond=None)[0]


def _cond(X: torch.Tensor) -> float:
    singular = np.linalg.svd(X.numpy(), compute_uv=False)
    return float(singular[0] / singular[-1])


def _swapped(problem: UnlearningProblem) -> UnlearningProblem:
    return UnlearningProblem(problem.model, problem.params, problem.forget, problem.retain)


class _HiddenGradients(UnlearningProblem):
    """Sabotage: reports no model gradients, so MinNorm-OG's update becomes the unprojected
    shrink θ ← θ − θ/(1+λ) (same solve path; plum dispatches on the parent class)."""

    def jacobian(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        return torch.zeros(0, theta.numel(), dtype=theta.dtype)


# ----------------------------------------------------------------------- strategies

@st.composite
def overparameterized_sizes(draw, max_n: int = 10):
    """(n, d, n_forget) with d > n >= 2 and 1 <= n_forget < n (Theorem 2's setting)."""
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(n + 1, 3 * n + 4))
    return n, d, draw(st.integers(1, n - 1))


@st.composite
def deep_linear_instances(draw):
    """L in {2, 3, 4}, hidden widths 1-4, n < m = d (the assumption of Section 4.2), θ* interpolating D."""
    n, d, n_forget = draw(overparameterized_sizes(max_n=6))
    widths = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    return deep_linear_task(n, d, widths, n_forget, seed=draw(seeds))


@st.composite
def two_layer_instances(draw):
    """Width h >= n (so some θ* interpolates D), any activation, θ* = min-norm output layer."""
    n = draw(st.integers(3, 10))
    width = draw(st.integers(n + 2, 3 * n + 6))
    d = draw(st.integers(1, 4))
    activation = draw(st.sampled_from(sorted(ACTIVATIONS)))
    n_forget, seed = draw(st.integers(1, n - 1)), draw(seeds)
    try:
        problem = two_layer_task(n, d, width, n_forget, activation=activation, seed=seed)
    except ValueError:  # rank-deficient features: θ* cannot interpolate D, outside the theorem
        assume(False)
    # near-dependent features interpolate only to round-off/cond: keep the theorem's exact setting
    assume(max(_residual(problem, problem.params, s) for s in (problem.retain, problem.forget)) <= 1e-10)
    return problem


def _residual(problem: UnlearningProblem, theta: torch.Tensor, samples) -> float:
    X, y = samples
    return float((problem.predict(theta, X) - y).abs().max())


@st.composite
def interpolating_instances(draw):
    kind = draw(st.sampled_from(["linear", "deep_linear", "two_layer"]))
    if kind == "linear":
        n, d, n_forget = draw(overparameterized_sizes())
        return linear_task(n, d, n_forget, seed=draw(seeds))
    if kind == "deep_linear":
        return draw(deep_linear_instances())
    n = draw(st.integers(3, 8))
    return two_layer_task(n, 2, 3 * n, draw(st.integers(1, n - 1)), activation="tanh", seed=draw(seeds))


# --------------------------------------------------------------------- gradients_vanish

def _check_gradients_vanish(ctx: Context, *, label_shift: float) -> Outcome:
    def test(case):
        problem, lr, alpha, seed = case
        if label_shift:  # control: θ* no longer interpolates D (the theorem's assumption broken)
            (Xr, yr), (Xf, yf) = problem.retain, problem.forget
            problem = UnlearningProblem(problem.model, problem.params, (Xr, yr + label_shift),
                                        (Xf, yf + label_shift))
        theta = problem.params.clone().requires_grad_(True)
        grads = [torch.autograd.grad(problem.loss(theta, samples), theta)[0]
                 for samples in (problem.retain, problem.forget)]
        scale = 1.0 + float(problem.params.norm())
        rng = np.random.default_rng(seed)
        P_r, P_f = (torch.from_numpy(m @ m.T) for m in rng.standard_normal((2, problem.dim, problem.dim)))
        generic = problem.params - P_r @ grads[0] - P_f @ grads[1]  # Definition 1 with ξ = 0
        moves = {"generic": float((generic - problem.params).norm())}
        for algorithm in (GradientDescent(lr=lr), NegGrad(lr=lr), NegGradPlus(lr=lr, alpha=alpha)):
            sol = solve(problem, algorithm, maxiters=20)
            moves[type(algorithm).__name__] = float((sol.x - problem.params).norm())
        # an exact interpolator has zero gradients; float64 leaves the interpolation residual's round-off
        tol = 1e-8 * scale
        moved = {k: figure(v, 3) for k, v in moves.items() if v > tol}
        assert not moved, f"θ* moved by {moved} (allowed {tol:.2g})"
        return {"largest_move": figure(max(moves.values()), 3, floor=1e-16)}

    strategy = st.tuples(interpolating_instances(), st.floats(1e-3, 0.5), st.floats(0.0, 2.0), seeds)
    return property_outcome(strategy, test, ctx=ctx, max_examples=ctx.pick(12, 100),
                            what="loss-gradient unlearning leaves an interpolating θ* unchanged")


register(Claim(
    id=f"{PAPER}.gradients_vanish", paper=PAPER, origin=Origin.PAPER, covers=("Theorem 1",),
    deviation="Checked with ξ = 0 (our loss-gradient methods add no noise, so 'θ* plus zero-mean noise' "
              "becomes 'θ* exactly'), for the squared loss, on three model classes.",
    source=f"Theorem 1 and Definition 1 ({SOURCE})",
    statement="If f(θ*, ·) interpolates D and the sample loss is minimized at interpolation, every "
              "loss-gradient update θ* − P_r∇J(θ*; D_r) − P_f∇J(θ*; D_f) (P_r, P_f PSD) equals θ*: "
              "GradientDescent, NegGrad and NegGradPlus run 20 iterations without moving θ* (to 1e-8 "
              "relative), for linear, deep-linear and two-layer interpolators.",
    kind=Kind.PROPERTY,
    check=partial(_check_gradients_vanish, label_shift=0.0),
    control=partial(_check_gradients_vanish, label_shift=1.0),
    control_description="every label shifted by 1, so θ* does not interpolate D: the gradients are "
                        "non-zero and the methods move θ*; the same check must fail.",
))


# ------------------------------------------------------------------------- linear_exact

OG_CAP = 20  # iterations allowed to linear_exact's MinNorm-OG runs (each needs at most 2)


def _check_linear_exact(ctx: Context, *, swap: bool) -> Outcome:
    def test(case):
        (n, d, n_forget), seed = case
        problem = linear_task(n, d, n_forget, seed=seed)
        X, y = problem.retain
        target = _min_norm(X, y[:, 0])
        solved = _swapped(problem) if swap else problem  # control: project onto the forget span
        # each run below ends within 2 iterations (a projection onto the interpolator, then a step of 0):
        # a cap of 20 is ample, and a stop rule that never fires fails fast instead of running 1000
        sol = solve(solved, MinNormOG(lambda_schedule=0.0), maxiters=OG_CAP)
        # Algorithm 1 with a pure descent epoch first: at θ* it does not move (Theorem 1), which
        # must not end the run before the projection scheduled next
        delayed = solve(solved, MinNormOG(lambda_schedule=(math.inf, 0.0), lr=0.1), maxiters=OG_CAP)
        # the schedule's other end (Appendix F.1.10's final descent epochs): one projection, then λ = ∞
        # repeated; at the retained interpolator descent does not move, so the run must end Success
        # once no projection is left, well before the 1000-iteration cap
        final = solve(solved, MinNormOG(lambda_schedule=(0.0, math.inf), lr=0.1), maxiters=OG_CAP)
        retrain = solve(solved, Retrain())
        tol = ROUNDOFF * _cond(X) * (1.0 + float(np.linalg.norm(target)))

        def predictor(theta: torch.Tensor) -> np.ndarray:  # the linear model's w(θ), its weight row
            return effective_predictor(solved.model, solved.unflatten(theta)).numpy()

        errors = {"MinNormOG": float(np.abs(predictor(sol.x) - target).max()),
                  "MinNormOG(∞, 0)": float(np.abs(predictor(delayed.x) - target).max()),
                  "MinNormOG(0, ∞)": float(np.abs(predictor(final.x) - target).max()),
                  "Retrain": float(np.abs(retrain.x.numpy() - target).max())}
        # the solution's own figure, stats.distance_to_retrain (‖w(θ) − pinv(X_r) y_r‖), must say the same
        errors["stats.distance_to_retrain"] = float(sol.stats.distance_to_retrain)
        retcodes = (sol.retcode, delayed.retcode, final.retcode, retrain.retcode)
        assert all(r is RetCode.Success for r in retcodes), f"retcodes {retcodes}"
        assert max(errors.values()) <= tol, f"distance to pinv(X_r) y_r {errors} > {tol:.3g}"
        return {"worst_error_over_tol": figure(max(errors.values()) / tol, 3, floor=1e-12)}

    # one fixed instance first, outside hypothesis: a stop rule that never fires then fails at once instead
    # of after the shrink phase (#46 round 5, seed 6: MinNorm-OG's step rule reading ‖θ‖ for the step failed
    # this claim only after 113 s of shrinking, past the mutation budget)
    try:
        test(((3, 5, 1), 0))
    except AssertionError as exc:
        return fact(False, f"on the fixed instance (n, d, n_forget) = (3, 5, 1), seed 0: {exc}")
    return property_outcome(st.tuples(overparameterized_sizes(), seeds), test, ctx=ctx,
                            max_examples=ctx.pick(20, 200),
                            what="MinNorm-OG (λ = 0) and Retrain return the retained minimum-norm "
                                 "interpolator")


register(Claim(
    id=f"{PAPER}.linear_exact", paper=PAPER, origin=Origin.PAPER, covers=("Theorem 2",),
    source=f"Theorem 2 (proof in Appendix D.2, with Lemma 5) ({SOURCE})",
    statement="For f(θ, x) = θᵀx with d > n and θ* the minimum-norm interpolator of D, the relaxed "
              "problem (7) with R̃ = ‖·‖² (MinNorm-OG with λ = 0, every retained gradient) returns the "
              "minimum-norm interpolator pinv(X_r) y_r of D_r, for every forget subset, to round-off "
              "(1e3·eps·cond(X_r)·(1 + ‖θ_r‖)), also when a pure descent epoch (λ_0 = ∞, lr 0.1) comes "
              "first or when pure descent (λ = ∞) follows the projection (each within 20 iterations); the "
              "effective predictor w(θ) of "
              "each is that vector (the distance the solution reports, stats.distance_to_retrain, is 0 to "
              "the same round-off), Retrain's closed form returns it too, and all four return Success.",
    kind=Kind.PROPERTY,
    check=partial(_check_linear_exact, swap=False), control=partial(_check_linear_exact, swap=True),
    control_description="the projection onto the forget-set span instead (retain and forget swapped in "
                        "the problem handed to solve): it returns pinv(X_f) y_f, not pinv(X_r) y_r.",
))


# ----------------------------------------------------------------- certificates (exact algebra)

_KKT_SHAPES = ((1, 2), (1, 3), (2, 3))


def _kkt_ring(k: int, d: int):
    """python-flint's exact polynomials over Q in the entries of G (k × d), θ and λ."""
    import flint

    names = tuple([f"g{i}_{j}" for i in range(k) for j in range(d)] + [f"t{i}" for i in range(d)] + ["lam"])
    ctx = flint.fmpq_mpoly_ctx.get(names, "lex")
    gens = dict(zip(names, ctx.gens(), strict=True))
    G = [[gens[f"g{i}_{j}"] for j in range(d)] for i in range(k)]
    theta = [gens[f"t{i}"] for i in range(d)]
    zero = ctx.from_dict({})
    gram = [[sum((G[a][j] * G[b][j] for j in range(d)), zero) for b in range(k)] for a in range(k)]
    if k == 1:
        adj, det = [[ctx.from_dict({}) + 1]], gram[0][0]
    else:  # k == 2
        adj = [[gram[1][1], -gram[0][1]], [-gram[1][0], gram[0][0]]]
        det = gram[0][0] * gram[1][1] - gram[0][1] * gram[1][0]
    g_theta = [sum((G[a][j] * theta[j] for j in range(d)), ctx.from_dict({})) for a in range(k)]
    adj_g_theta = [sum((adj[a][b] * g_theta[b] for b in range(k)), ctx.from_dict({})) for a in range(k)]
    return ctx, gens, G, theta, det, adj_g_theta


def _prove_closed_form() -> dict:
    """Per shape: ν·det(GGᵀ) = 2·adj(GGᵀ)Gθ for the step Δ = −P⊥θ/(1 + λ), as {monomial: coefficient}."""
    out = {}
    for k, d in _KKT_SHAPES:
        ctx, _, _, _, _, adj_g_theta = _kkt_ring(k, d)
        names = ctx.names()
        entries = []
        for value in adj_g_theta:
            terms = {}
            for exponents, coefficient in (2 * value).to_dict().items():
                monomial = "*".join(n + ("" if e == 1 else f"^{e}") for n, e in zip(names, exponents) if e)
                terms[monomial or "1"] = str(coefficient)
            entries.append(terms)
        out[f"{k}x{d}"] = entries
    return out


def _recheck_closed_form(proof: dict) -> str:
    """For each shape, with D = det(GGᵀ) and P⊥ = I − Gᵀ adj(GGᵀ) G/D (G of full row rank, D ≠ 0), the
    step Δ = −P⊥θ/(1 + λ) satisfies, multiplied out by D(1 + λ): GΔ = 0 (feasible) and
    2(θ + Δ) + 2λΔ = Gᵀν (stationary) with the stored ν·D, as polynomials over Q in every entry of G, θ
    and λ (python-flint); the objective's Hessian 2(1 + λ)I is positive definite for λ >= 0, so Δ is
    the unique minimizer."""
    import flint

    if sorted(proof) != sorted(f"{k}x{d}" for k, d in _KKT_SHAPES):
        raise Rejected(f"shapes {sorted(proof)} are not {_KKT_SHAPES}")
    for k, d in _KKT_SHAPES:
        ctx, gens, G, theta, det, adj_g_theta = _kkt_ring(k, d)
        zero = ctx.from_dict({})
        entries = proof[f"{k}x{d}"]
        if len(entries) != k:
            raise Rejected(f"{k}x{d}: ν has {len(entries)} entries, not {k}")
        nu_det = []
        for terms in entries:
            value = zero
            for monomial, coefficient in terms.items():
                term = zero + 1
                for factor in ([] if monomial == "1" else monomial.split("*")):
                    name, _, power = factor.partition("^")
                    if name not in gens:
                        raise Rejected(f"{k}x{d}: unknown variable {name!r}")
                    term = term * gens[name] ** (int(power) if power else 1)
                numerator, _, denominator = coefficient.partition("/")
                value = value + term * flint.fmpq(int(numerator), int(denominator or 1))
            nu_det.append(value)
        lam = gens["lam"]
        # D(1 + λ)Δ = −(D θ − Gᵀ adj(GGᵀ) G θ)
        delta = [-(det * theta[j] - sum((G[a][j] * adj_g_theta[a] for a in range(k)), zero))
                 for j in range(d)]
        for a in range(k):
            if sum((G[a][j] * delta[j] for j in range(d)), zero) != 0:
                raise Rejected(f"{k}x{d}: GΔ is not 0")
        for j in range(d):
            lhs = 2 * det * (1 + lam) * theta[j] + 2 * (1 + lam) * delta[j]
            if lhs != (1 + lam) * sum((G[a][j] * nu_det[a] for a in range(k)), zero):
                raise Rejected(f"{k}x{d}: stationarity fails in coordinate {j}")
    return ("Δ = −P⊥θ/(1 + λ) satisfies GΔ = 0 and 2(θ + Δ) + 2λΔ = Gᵀν exactly for G of shapes "
            f"{', '.join(f'{k}x{d}' for k, d in _KKT_SHAPES)} (full row rank), every θ, λ")


def _recheck_closed_form_witness(witness: dict) -> str:
    """d = 2, G = [1, 0], θ = (0, 1), λ = 1: the objective ‖θ + Δ‖² + λ‖Δ‖² at −P⊥θ (no 1/(1 + λ)) is 1,
    at −P⊥θ/(1 + λ) it is 1/2: the former is not the minimizer (exact rationals)."""
    if witness != {"G": [[1, 0]], "theta": [0, 1], "lambda": 1}:
        raise Rejected("the witness is G = [1, 0], θ = (0, 1), λ = 1")
    lam = Fraction(1)
    theta = [Fraction(0), Fraction(1)]
    perp = [Fraction(0), theta[1]]  # P⊥θ: the component orthogonal to span(G) = e_1

    def objective(delta: list) -> Fraction:
        return sum((t + x) ** 2 for t, x in zip(theta, delta)) + lam * sum(x * x for x in delta)

    wrong = objective([-x for x in perp])
    right = objective([-x / (1 + lam) for x in perp])
    if not wrong > right:
        raise Rejected("the unscaled step is not worse")
    return f"objective {wrong} at −P⊥θ > {right} at −P⊥θ/(1 + λ): the unscaled step is not the minimizer"


#: Σ u_i^L − L Π u_i as Σ (coefficient >= 0)·(factors with nonnegative coefficients)·(square)
_AM_GM = {
    2: [{"coefficient": "1", "positive": [], "square": "u1 - u2"}],
    3: [{"coefficient": "1/2", "positive": ["u1 + u2 + u3"], "square": "u1 - u2"},
        {"coefficient": "1/2", "positive": ["u1 + u2 + u3"], "square": "u2 - u3"},
        {"coefficient": "1/2", "positive": ["u1 + u2 + u3"], "square": "u3 - u1"}],
    4: [{"coefficient": "1", "positive": [], "square": "u1**2 - u2**2"},
        {"coefficient": "1", "positive": [], "square": "u3**2 - u4**2"},
        {"coefficient": "2", "positive": [], "square": "u1*u2 - u3*u4"}],
}


def _prove_am_gm() -> dict:
    return {f"L={L}": terms for L, terms in _AM_GM.items()}


def _recheck_am_gm(proof: dict) -> str:
    """Σ_{i<=L} u_i^L − L·Π u_i equals the stored sum of nonnegative terms (coefficients >= 0, linear
    factors with nonnegative coefficients, squares), as polynomials: so it is >= 0 for u >= 0, with
    equality when all u_i are equal. With u_ℓ = ‖A_ℓ‖_F^{2/L}: Σ‖A_ℓ‖² >= L(Π‖A_ℓ‖_F)^{2/L} >= Lρ^{2/L}."""
    import sympy

    if sorted(proof) != ["L=2", "L=3", "L=4"]:
        raise Rejected("L = 2, 3, 4 must be listed")
    for L in (2, 3, 4):
        u = sympy.symbols(f"u1:{L + 1}", nonnegative=True)
        names = {str(s): s for s in u}
        total = sympy.Integer(0)
        for term in proof[f"L={L}"]:
            coefficient = sympy.Rational(term["coefficient"])
            if coefficient < 0:
                raise Rejected(f"L = {L}: a negative coefficient")
            product = coefficient * sympy.sympify(term["square"], locals=names) ** 2
            for factor in term["positive"]:
                poly = sympy.Poly(sympy.sympify(factor, locals=names), *u)
                if any(c < 0 for c in poly.coeffs()):
                    raise Rejected(f"L = {L}: the factor {factor} is not nonnegative on u >= 0")
                product *= poly.as_expr()
            total += product
        if sympy.expand(total - (sum(x**L for x in u) - L * sympy.Mul(*u))) != 0:
            raise Rejected(f"L = {L}: the terms do not add up to Σu^L − LΠu")
        balanced = {x: 1 for x in u}
        if any(sympy.sympify(t["square"], locals=names).subs(balanced) != 0 for t in proof[f"L={L}"]):
            raise Rejected(f"L = {L}: the balanced point is not a zero")
    return "Σ u_i^L − LΠu_i is a sum of nonnegative terms for L = 2, 3, 4 (AM-GM), zero at balance"


def _recheck_am_gm_witness(witness: dict) -> str:
    """The balanced two-layer network A_1 = [1, 0], A_2 = [1]: w = (1, 0), ρ = 1, ‖θ‖² = 2 < 1.01·2ρ."""
    A1, A2 = witness["A1"], witness["A2"]
    if A1 != [[1, 0]] or A2 != [[1]]:
        raise Rejected("the witness is A_1 = [1, 0], A_2 = [1]")
    w = [A2[0][0] * A1[0][j] for j in range(2)]
    rho2 = Fraction(sum(x * x for x in w))
    norm = Fraction(sum(x * x for row in A1 + A2 for x in row))
    if rho2 != 1 or not norm < Fraction(101, 100) * 2:  # L ρ^{2/L} = 2 at ρ = 1, L = 2
        raise Rejected("the balanced network does not beat 1.01·Lρ^{2/L}")
    return f"balanced L = 2 network with ρ = 1: ‖θ‖² = {norm} < 1.01·Lρ^(2/L) = 2.02"


# --------------------------------------------------------------------- closed_form_step

def _kkt_step(theta: np.ndarray, G: np.ndarray, lam: float) -> np.ndarray:
    """θ + Δ for Δ = argmin ‖θ+Δ‖² + λ‖Δ‖² s.t. GΔ = 0, from the KKT system (least squares)."""
    d, k = theta.size, G.shape[0]
    K = np.block([[2 * (1 + lam) * np.eye(d), G.T], [G, np.zeros((k, k))]])
    rhs = np.concatenate([-2 * theta, np.zeros(k)])
    return theta + np.linalg.lstsq(K, rhs, rcond=None)[0][:d]


def _check_closed_form(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("closed_form")
    worst = 0.0
    for _ in range(ctx.pick(30, 300)):
        d = int(rng.integers(2, 15))
        k = int(rng.integers(1, d + 3))
        G = rng.standard_normal((k, d))
        if rng.random() < 0.3:  # dependent gradients: the span has lower dimension than k
            G[-1] = G[0] * 2.0
        # gradient scales on both sides of 1, so a rank cut tied to |G| = 1 (not relative) shows
        G *= 10.0 ** rng.uniform(-1.5, 0.5)
        theta, lam = rng.standard_normal(d), float(rng.choice([0.0, 0.5, 3.0, 100.0]))
        G_t = torch.from_numpy(G)
        step = orthogonal_gradient_step(torch.from_numpy(theta), G_t, lam).numpy()
        if sabotage:  # the update along the gradients instead of orthogonal to them
            step = orthogonal_gradient_step(torch.from_numpy(theta), _complement(G_t), lam).numpy()
        worst = max(worst, float(np.abs(step - _kkt_step(theta, G, lam)).max()))
        # P_{span(G)⊥} depends on the span only: gradients 1e-12 times smaller (a nearly converged
        # model's) span the same space, so the update is the same (the KKT reference, whose matrix mixes
        # 2(1 + λ) with G, would lose these digits, hence the comparison with the unscaled update)
        tiny = orthogonal_gradient_step(torch.from_numpy(theta), G_t * 1e-12, lam).numpy()
        worst = max(worst, float(np.abs(tiny - step).max()))
        # no retained gradient (an empty G): no constraint, Δ = −θ/(1 + λ), so θ + Δ = λθ/(1 + λ)
        free = orthogonal_gradient_step(torch.from_numpy(theta), torch.zeros(0, d, dtype=torch.float64), lam)
        worst = max(worst, float(np.abs(free.numpy() - lam * theta / (1.0 + lam)).max()))
    # KKT matrix condition number is O(10²) for these sizes; 1e-9 is far above its round-off
    return fact(worst <= 1e-9, "orthogonal_gradient_step equals the KKT solution to 1e-9", worst_error=worst)


def _complement(G: torch.Tensor) -> torch.Tensor:
    _, singular, vh = torch.linalg.svd(G, full_matrices=True)
    rank = int((singular > 1e-10 * singular.max()).sum())
    return vh[rank:]


register(Claim(
    id=f"{PAPER}.closed_form_step", paper=PAPER, origin=Origin.PROOF_STEP,
    source=f"Appendix E (closed form of the MinNorm-OG update used by Algorithm 1, line 7) ({SOURCE})",
    statement="For every λ >= 0 and gradient set G, θ − (1/(1+λ)) P_{span(G)⊥} θ (our "
              "orthogonal_gradient_step) equals θ + argmin{‖θ+Δ‖² + λ‖Δ‖² : Δ ⊥ G} computed from the KKT "
              "system by numpy least squares, to 1e-9, including dependent gradients, and the gradients "
              "scaled by 1e-12 (the same span) give the same update to 1e-9; with no gradient at all "
              "(G empty) the update is the unconstrained λθ/(1 + λ).",
    kind=Kind.NUMERIC,
    check=partial(_check_closed_form, sabotage=False), control=partial(_check_closed_form, sabotage=True),
    control_description="the update computed with the orthogonal complement of the gradients in place of "
                        "the gradients (a projection along span(G)): it disagrees with the KKT solution.",
    certificate=Certificate(
        statement="For G of full row rank, every θ and λ >= 0, Δ = −P⊥θ/(1 + λ) with P⊥ = I − Gᵀ(GGᵀ)⁻¹G "
                  "satisfies the KKT conditions of min ‖θ + Δ‖² + λ‖Δ‖² s.t. GΔ = 0 (feasibility and "
                  "stationarity with ν = 2(GGᵀ)⁻¹Gθ, multiplied out by det(GGᵀ)(1 + λ)), and the objective "
                  "is strictly convex, so Δ is its unique minimizer: the update orthogonal_gradient_step "
                  "computes",
        scope="G of shapes 1×2, 1×3, 2×3 with symbolic entries (generic: full row rank), every θ, λ >= 0; "
              "dependent gradients (which the check also draws) are not covered",
        method=Method.EXACT_ALGEBRA,
        trusts="python-flint's exact polynomials over Q (the inverse written as adj/det); strict convexity "
               "of (1 + λ)‖Δ‖² + linear terms for λ > −1",
        prove=_prove_closed_form, recheck=_recheck_closed_form,
        control_statement="The update without the 1/(1 + λ), θ − P⊥θ, minimizes the objective.",
        refute=lambda: {"G": [[1, 0]], "theta": [0, 1], "lambda": 1},
        recheck_witness=_recheck_closed_form_witness),
    expected_verdict="certified",
))


# ---------------------------------------------------------------- deep_linear_predictor

def _unregularized_relaxed(problem: UnlearningProblem, steps: int = 300, lr: float = 0.05) -> torch.Tensor:
    """Sabotage (Appendix D.4.1): min ‖w(θ* + Δ)‖² over Δ ⊥ all model gradients, every block free,
    by projected gradient descent from Δ = 0 (no drift regularizer R̂)."""
    gradients = problem.jacobian(problem.params, problem.retain[0])
    _, singular, vh = torch.linalg.svd(gradients, full_matrices=False)
    basis = vh[singular > 1e-10 * singular.max()]
    delta = torch.zeros_like(problem.params, requires_grad=True)
    for _ in range(steps):
        w = effective_predictor(problem.model, problem.unflatten(problem.params + delta))
        (grad,) = torch.autograd.grad(w @ w, delta)
        with torch.no_grad():
            delta -= lr * (grad - basis.T @ (basis @ grad))
    return (problem.params + delta).detach()


def _scaled_deep_linear(seed: int) -> str | None:
    """Theorem 3 at a scale where σ_max of the retained gradients is ~1e-12 (inputs × 1e-12, A_1 × 1e12:
    the same network function on the scaled inputs): the predictor must be pinv(X_r') y_r = 1e12 × the
    unscaled one. A rank cut read as absolute (1e-10) or as 1e-10/σ_max drops every retained gradient
    there and loses D_r; the relative cut 1e-10·σ_max keeps them (Theorem 3 is invariant to this scale)."""
    task = deep_linear_task(4, 7, (3, 2), 1, seed=seed)
    (X, y), (Xf, yf) = task.retain, task.forget
    factor = 1e-12
    start = task.model.widths[-1]  # θ = [c; vec(A_1); ...]
    first = slice(start, start + task.model.widths[0] * X.shape[1])
    theta = task.params.clone()
    theta[first] /= factor
    scaled = solve(UnlearningProblem(task.model, theta, (factor * X, y), (factor * Xf, yf)), DeepLinearOG())
    target = _min_norm(factor * X, y[:, 0])
    w = effective_predictor(task.model, task.unflatten(scaled.x)).numpy()
    # float64 least squares on a 3 x 7 system with cond(X_r) ~ 10: round-off ~1e-14 relative (measured 3e-15)
    error = float(np.abs(w - target).max() / np.abs(target).max()) if np.all(np.isfinite(w)) else math.inf
    if scaled.retcode is not RetCode.Success or error > 1e-10:
        return f"DeepLinearOG on inputs x 1e-12: {scaled.retcode.value}, predictor {error:.3g} from " \
               "pinv(X_r) y_r (relative)"
    return None


def _check_deep_linear(ctx: Context, *, sabotage: bool) -> Outcome:
    if not sabotage:
        wrong = _scaled_deep_linear(int(ctx.rng("deep_linear_scaled").integers(2**31)))
        if wrong is not None:
            return Outcome("fail", f"Theorem 3's relaxed solve is not scale-free: {wrong}", {"scaled": wrong})

    def test(problem):
        X, y = problem.retain
        target = _min_norm(X, y[:, 0])
        gradients = problem.jacobian(problem.params, X).numpy()
        scale = 1.0 + float(np.linalg.norm(target)) + float(problem.params.norm()) ** problem.model.depth
        tol = 1e-8 * scale  # products of L factors: round-off grows with ‖θ*‖^L
        delta = lemma1_perturbation(problem)
        w_lemma = effective_predictor(problem.model, problem.unflatten(problem.params + delta)).numpy()
        feasibility = float(np.abs(gradients @ delta.numpy()).max())
        assert feasibility <= tol, f"Lemma 1: Δ not orthogonal to the retained gradients ({feasibility:.3g})"
        assert np.abs(w_lemma - target).max() <= tol, "Lemma 1: w(θ* + Δ) is not the min-norm predictor"
        if sabotage:
            theta = _unregularized_relaxed(problem)
        else:
            sol = solve(problem, DeepLinearOG())
            assert sol.retcode is RetCode.Success, f"DeepLinearOG: {sol.retcode}"
            # a direct solver: one iteration of one Jacobian at θ*, one least-squares solve, one projection
            work = (sol.stats.iterations, sol.stats.grad_calls, sol.stats.linear_solves,
                    sol.stats.projections)
            assert work == (1, 1, 1, 1), f"DeepLinearOG: (iterations, grad_calls, linear_solves, " \
                                         f"projections) = {work}"
            theta = sol.x
        moved = (theta - problem.params).numpy()
        start = problem.model.widths[-1]  # θ = [c; vec(A_1); ...]
        first = slice(start, start + problem.model.widths[0] * X.shape[1])
        outside = np.delete(moved, np.arange(problem.dim)[first])
        w = effective_predictor(problem.model, problem.unflatten(theta)).numpy()
        error = float(np.abs(w - target).max()) if np.all(np.isfinite(w)) else float("inf")
        assert error <= tol, f"Theorem 3: w(θ̃) is {error:.3g} from pinv(X_r) y_r (tol {tol:.3g})"
        if not sabotage:
            assert np.abs(outside).max(initial=0.0) == 0.0, "Theorem 3: blocks other than A_1 moved"
            assert np.abs(gradients @ moved).max() <= tol, "Theorem 3: Δ violates the relaxed constraints"
        return {"error_over_tol": figure(error / tol, 3, floor=1e-12)}

    return property_outcome(deep_linear_instances(), test, ctx=ctx, max_examples=ctx.pick(15, 150),
                            what="Lemma 1's Δ and Theorem 3's relaxed solve give the min-norm predictor")


register(Claim(
    id=f"{PAPER}.deep_linear_predictor", paper=PAPER, origin=Origin.PAPER, covers=("Lemma 1", "Theorem 3"),
    source=f"Lemma 1 (perturbation (8)) and Theorem 3 (regularizer (9)), Section 4.2.1 ({SOURCE})",
    statement="For an L-layer linear network (L in 2..4, widths 1-4) interpolating D with n < m inputs: "
              "Lemma 1's Δ (first layer only) is orthogonal to every retained model gradient (torch.func) "
              "and w(θ* + Δ) = pinv(X_r) y_r; the solution of the relaxed problem (7) with R̃ = ‖w(·)‖² + "
              "δ{Δ outside A_1 ≠ 0} (DeepLinearOG) moves only A_1, satisfies the relaxed constraints and "
              "has effective predictor pinv(X_r) y_r, to 1e-8·(1 + ‖w_r‖ + ‖θ*‖^L); it reports the work of "
              "a direct solve (one iteration, one Jacobian, one linear solve, one projection). (Round 4:) "
              "the same holds at scale: with inputs × 1e-12 and A_1 × 1e12 (retained gradients of norm "
              "~1e-12) DeepLinearOG ends Success with predictor pinv(X_r') y_r to 1e-10 relative.",
    kind=Kind.PROPERTY,
    check=partial(_check_deep_linear, sabotage=False), control=partial(_check_deep_linear, sabotage=True),
    control_description="the relaxed problem without the drift regularizer R̂ (every block free, "
                        "Appendix D.4.1), solved by projected gradient descent: its minimizer shrinks "
                        "w below the interpolating norm and loses D_r.",
))


# ----------------------------------------------------------- deep_linear_parameter_norm

def _min_parameter_norm(problem: UnlearningProblem, rng: np.random.Generator, starts: int) -> float:
    """min ‖θ‖² s.t. X_r w(θ) = y_r by SLSQP from ``starts`` random points (independent of Theorem 4)."""
    X, y = (t.numpy() for t in problem.retain)

    def predictor(theta: np.ndarray) -> np.ndarray:
        return effective_predictor(problem.model, problem.unflatten(torch.from_numpy(theta))).numpy()

    best = np.inf
    for _ in range(starts):
        start = rng.standard_normal(problem.dim)
        res = scipy.optimize.minimize(lambda t: t @ t, start, jac=lambda t: 2 * t, method="SLSQP",
                                      constraints={"type": "eq", "fun": lambda t: X @ predictor(t) - y[:, 0]},
                                      options={"ftol": 1e-14, "maxiter": 500})
        if res.success and np.abs(X @ predictor(res.x) - y[:, 0]).max() <= 1e-8:
            best = min(best, float(res.x @ res.x))
    return best


def _unbalanced(model, predictor: torch.Tensor) -> torch.Tensor:
    """Sabotage: all of ‖w‖ in A_1 and unit scales elsewhere (same predictor, larger norm)."""
    theta = balanced_factorization(model, predictor)
    params = {k: v.clone() for k, v in model.named_parameters()}
    rho = float(torch.linalg.vector_norm(predictor))
    offset = 0
    for name, value in params.items():
        size = value.numel()
        block = theta[offset:offset + size]
        nonzero = block != 0
        block[nonzero] = block[nonzero] / rho ** (1 / model.depth) * (rho if name == "A1" else 1.0)
        offset += size
    return theta


def _check_parameter_norm(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("parameter_norm")
    worst = 0.0
    figures = []
    for index in range(ctx.pick(3, 15)):
        widths = ((3,), (3, 2), (2, 2, 2))[index % 3]
        problem = deep_linear_task(3, 5, widths, 1, seed=int(rng.integers(2**31)))
        X, y = problem.retain
        rho = float(np.linalg.norm(_min_norm(X, y[:, 0])))
        sol = solve(problem, DeepLinearOG(complexity="parameter"))
        theta = sol.x
        if sabotage:
            theta = _unbalanced(problem.model, effective_predictor(problem.model, problem.unflatten(sol.x)))
        norm = float(theta @ theta)
        residual = float((problem.predict(theta, X) - y).abs().max())
        reference = _min_parameter_norm(problem, rng, starts=ctx.pick(3, 10))
        closed = problem.model.depth * rho ** (2 / problem.model.depth)
        # SLSQP stops at ftol 1e-14 on O(1) objectives: 1e-6 relative leaves margin for its constraint error
        error = max(abs(norm - reference) / reference, abs(norm - closed) / closed, residual)
        worst = max(worst, error)
        figures.append({"L": problem.model.depth, "norm": figure(norm), "slsqp": figure(reference),
                        "L_rho_2_over_L": figure(closed)})
        if sol.retcode is not RetCode.Success:
            return Outcome("fail", f"DeepLinearOG(parameter) returned {sol.retcode}", {"instances": figures})
    ok = worst <= 1e-6
    return Outcome("pass" if ok else "fail",
                   f"Theorem 4's network vs SLSQP minimum of ‖θ‖²: worst relative error {worst:.3g} "
                   f"({'within' if ok else 'above'} 1e-6)",
                   {"worst_relative_error": figure(worst, 3, floor=1e-14), "instances": figures})


register(Claim(
    id=f"{PAPER}.deep_linear_parameter_norm", paper=PAPER, origin=Origin.PAPER, covers=("Theorem 4",),
    deviation="Checked on small networks (5 inputs, 2 retained points, L = 2-4) where SLSQP from several "
              "starts can find the minimum-parameter-norm interpolator independently; unit vectors "
              "v_ℓ = e_1.",
    source=f"Theorem 4, Section 4.2.2 (proof in Appendix D.5) ({SOURCE})",
    statement="The balanced rank-one network built from the minimum-norm predictor w_r (scales ρ^{1/L}, "
              "ρ = ‖w_r‖) interpolates D_r and has ‖θ‖² = L ρ^{2/L}, equal (to 1e-6 relative) to the "
              "minimum of ‖θ‖² over all interpolating networks found by SLSQP from random starts.",
    kind=Kind.NUMERIC,
    check=partial(_check_parameter_norm, sabotage=False),
    control=partial(_check_parameter_norm, sabotage=True),
    control_description="an unbalanced factorization of the same predictor (all of ρ in A_1, unit scales "
                        "elsewhere): it interpolates but its ‖θ‖² = ρ² + L − 1 exceeds the minimum.",
    certificate=Certificate(
        statement="For L = 2, 3, 4: Σ_ℓ u_ℓ^L − L·Π_ℓ u_ℓ is a sum of nonnegative terms on u >= 0 (AM-GM), "
                  "zero at u_1 = ... = u_L; with u_ℓ = ‖A_ℓ‖_F^{2/L} and ρ = ‖w‖ <= Π‖A_ℓ‖_F, every network "
                  "with effective predictor w has ‖θ‖² = Σ‖A_ℓ‖_F² >= Lρ^{2/L}, with equality for the "
                  "balanced "
                  "rank-one network (every ‖A_ℓ‖_F = ρ^{1/L})",
        scope="L = 2, 3, 4 (the check's depths), every factorization",
        method=Method.EXACT_ALGEBRA,
        trusts="‖A_L···A_1‖ <= Π‖A_ℓ‖_F (submultiplicativity); sympy's polynomial expansion over Q",
        prove=_prove_am_gm, recheck=_recheck_am_gm,
        control_statement="‖θ‖² >= 1.01·Lρ^{2/L} for every interpolating network (1 % past the tight "
                          "constant).",
        refute=lambda: {"A1": [[1, 0]], "A2": [[1]]}, recheck_witness=_recheck_am_gm_witness),
    expected_verdict="certified",
))


# ------------------------------------------------------------------------ two_layer_width

def _check_two_layer(ctx: Context, *, forget_nothing: bool) -> Outcome:
    def test(problem):
        X, y = problem.retain
        model = problem.model
        features = model.features(X).detach().numpy()  # φ(A* x): computed apart from the solver's jacobian
        s = int(np.linalg.matrix_rank(features))
        solved = problem
        if forget_nothing:  # control: constraints from all of D, as if nothing were forgotten
            full = (torch.cat([X, problem.forget[0]]), torch.cat([y, problem.forget[1]]))
            solved = UnlearningProblem(model, problem.params, full, problem.forget)
        sol = solve(solved, SparseWidthOG(prune=False))
        assert sol.retcode is RetCode.Success, f"SparseWidthOG: {sol.retcode}"
        width = active_neurons(model, sol.x)
        delta_c = (sol.x - problem.params)[:model.width].numpy()
        scale = 1.0 + float(np.abs(delta_c).max()) * float(np.abs(features).max())
        residual = float((problem.predict(sol.x, X) - y).abs().max())
        # the features can be ill-conditioned (near-dependent neurons): allow cond-scaled round-off
        tol = 1e-8 * scale
        assert torch.equal(sol.x[model.width:], problem.params[model.width:]), "A moved (Δ_A ≠ 0)"
        assert np.abs(features @ delta_c).max() <= tol, "Δ_c not orthogonal to the retained ∇_c f"
        assert residual <= tol, f"D_r not interpolated (residual {residual:.3g})"
        assert width <= s <= problem.n_retain, f"{width} active neurons > s = {s}"
        # a direct solver: one iteration of one Jacobian at θ*, one least-squares solve, one projection
        work = (sol.stats.iterations, sol.stats.grad_calls, sol.stats.linear_solves, sol.stats.projections)
        assert work == (1, 1, 1, 1), f"(iterations, grad_calls, linear_solves, projections) = {work}"
        return {"active_neurons": width, "s": s, "n_retain": problem.n_retain, "width": model.width}

    return property_outcome(two_layer_instances(), test, ctx=ctx, max_examples=ctx.pick(20, 200),
                            what="the relaxed solve interpolates D_r with at most s active neurons, A fixed")


register(Claim(
    id=f"{PAPER}.two_layer_width", paper=PAPER, origin=Origin.PAPER, covers=("Lemma 2", "Theorem 5"),
    deviation="Checked on the basic feasible point our solver returns (a pivoted-QR choice of s neurons, "
              "Lemma 6's kind of construction), not on a global ℓ0 minimizer of (7), which is combinatorial; "
              "the conclusions checked are the theorem's (interpolation, width <= s, A unchanged).",
    source=f"Lemma 2 and Theorem 5 (surrogate (12)), Section 4.3 ({SOURCE})",
    statement="For f(θ, x) = cᵀφ(Ax) (relu, tanh, sigmoid or silu; width h >= n) interpolating D, the "
              "relaxed solve with A frozen (SparseWidthOG) returns Δ = [Δ_c; 0] with Δ_c ⊥ φ(A*x) on D_r, "
              "interpolates D_r, and has at most s = rank{φ(A*x)}_{D_r} <= n_r active neurons; its work "
              "counters report one iteration, one Jacobian, one linear solve and one projection.",
    kind=Kind.PROPERTY,
    check=partial(_check_two_layer, forget_nothing=False),
    control=partial(_check_two_layer, forget_nothing=True),
    control_description="the constraints taken from all of D (nothing forgotten): the solution keeps up to "
                        "rank{φ(A*x)}_D = n > s neurons, so the width bound with the retained s fails.",
))


# ----------------------------------------------------------------------------- prune_rows

def _inverted_prune(model, theta: torch.Tensor) -> torch.Tensor:
    """Sabotage: zero the rows whose output weight is NOT zero."""
    c = theta[:model.width]
    A = theta[model.width:].reshape(model.width, model.in_features)
    return torch.cat([c, (A * (c == 0)[:, None].to(A.dtype)).reshape(-1)])


def _check_prune(ctx: Context, *, sabotage: bool) -> Outcome:
    prune = _inverted_prune if sabotage else prune_inactive_neurons

    def test(case):
        problem, zero_fraction, seed = case
        model = problem.model
        rng = np.random.default_rng(seed)
        theta = problem.params.clone()
        theta[:model.width][torch.from_numpy(rng.random(model.width) < zero_fraction)] = 0.0
        sol = solve(problem, SparseWidthOG(prune=False))
        X = torch.from_numpy(rng.standard_normal((16, model.in_features)))
        for name, point in (("Proposition 1", theta), ("Corollary 1", sol.x)):
            pruned = prune(model, point)
            rows = int((pruned[model.width:].reshape(model.width, -1).abs().sum(dim=1) > 0).sum())
            same = torch.allclose(problem.predict(pruned, X), problem.predict(point, X),
                                  rtol=1e-12, atol=1e-12)
            assert same, f"{name}: pruning changed the function"
            assert active_neurons(model, pruned) == active_neurons(model, point), f"{name}: R changed"
            assert rows <= active_neurons(model, pruned), f"{name}: {rows} nonzero rows > R"
        retained = problem.predict(prune(model, sol.x), problem.retain[0]) - problem.retain[1]
        assert float(retained.abs().max()) <= 1e-8 * (1 + float(sol.x.abs().max())), "Corollary 1: D_r lost"
        return {"active_neurons": active_neurons(model, sol.x)}

    strategy = st.tuples(two_layer_instances(), st.floats(0.0, 0.9), seeds)
    return property_outcome(strategy, test, ctx=ctx, max_examples=ctx.pick(15, 150),
                            what="zeroing the rows of A with c_i = 0 keeps f and R and leaves <= R "
                                 "nonzero rows")


register(Claim(
    id=f"{PAPER}.prune_rows", paper=PAPER, origin=Origin.PAPER, covers=("Proposition 1", "Corollary 1"),
    source=f"Proposition 1 and Corollary 1, Section 4.3 (proof in Appendix D.7) ({SOURCE})",
    statement="For any θ = [c; vec(A)] of a two-layer perceptron, Â = (1_{c≠0} 1ᵀ) ⊙ A gives the same "
              "function on random inputs (to 1e-12), the same number of active neurons R and at most R "
              "nonzero rows; applied to Theorem 5's relaxed solution it still interpolates D_r.",
    kind=Kind.PROPERTY,
    check=partial(_check_prune, sabotage=False), control=partial(_check_prune, sabotage=True),
    control_description="the inverted mask (rows with c_i ≠ 0 zeroed): the function changes.",
))


# ------------------------------------------------------------------------ mlp_interpolates

#: update strengths κ = 1/(1+λ) of the slope fit: small enough for the Taylor expansion, large
#: enough that the O(κ²) change (~1e-6 at κ = 1e-3) stays far above float64 round-off
STRENGTHS = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3)


def _mlp_problems(ctx: Context) -> list[UnlearningProblem]:
    """Two-layer perceptrons interpolating D, and 3-layer tanh MLPs with biases at a random θ*."""
    rng = ctx.rng("mlp")
    problems = []
    for index in range(ctx.pick(2, 8)):
        seed = int(rng.integers(2**31))
        problems.append(two_layer_task(8, 3, 30, 3, activation="silu", seed=seed))
        net = MLP(2, (16, 16), 1, activation="tanh", seed=seed + index)
        X = torch.from_numpy(rng.standard_normal((10, 2)))
        y = torch.from_numpy(rng.standard_normal(10))
        theta = torch.cat([p.detach().reshape(-1) for p in net.parameters()])
        problems.append(UnlearningProblem(net, theta, (X[:7], y[:7]), (X[7:], y[7:])))
    return problems


def _slope(strengths: np.ndarray, changes: np.ndarray) -> float:
    return float(np.polyfit(np.log(strengths), np.log(changes), 1)[0])


def _check_mlp(ctx: Context, *, hide_gradients: bool) -> Outcome:
    rows = []
    for problem in _mlp_problems(ctx):
        if hide_gradients:
            problem = _HiddenGradients(problem.model, problem.params, problem.retain, problem.forget)
        changes = {"retain": [], "forget": []}
        for kappa in STRENGTHS:
            sol = solve(problem, MinNormOG(lambda_schedule=1.0 / kappa - 1.0), maxiters=1)
            for name, (X, _) in (("retain", problem.retain), ("forget", problem.forget)):
                moved = problem.predict(sol.x, X) - problem.predict(problem.params, X)
                changes[name].append(float(moved.abs().max()))
        kappas = np.asarray(STRENGTHS)
        rows.append({"model": type(problem.model).__name__,
                     "retain_slope": figure(_slope(kappas, np.asarray(changes["retain"])), 3),
                     "forget_slope": figure(_slope(kappas, np.asarray(changes["forget"])), 3),
                     "retain_change_at_1e-3": figure(changes["retain"][-1], 3),
                     "forget_change_at_1e-3": figure(changes["forget"][-1], 3)})
    # exact Taylor orders are 2 and 1; the κ³ and κ² corrections over κ in [1e-3, 0.1] move a
    # least-squares slope by well under 0.2
    ok = all(abs(r["retain_slope"] - 2) <= 0.2 and abs(r["forget_slope"] - 1) <= 0.2 for r in rows)
    return Outcome("pass" if ok else "fail",
                   f"MinNorm-OG update of strength κ: retained outputs move as κ², forget outputs as κ "
                   f"({'holds' if ok else 'violated'} on {len(rows)} networks)", {"runs": rows})


register(Claim(
    id=f"{PAPER}.mlp_interpolates", paper=PAPER, origin=Origin.DERIVED,
    source=f"the first-order relaxation (5)-(7) and Algorithm 1 (MinNorm-OG), Sections 3 and 5 ({SOURCE})",
    statement="On nonlinear networks (two-layer silu perceptrons interpolating D; 3-layer tanh MLPs with "
              "biases), one MinNorm-OG update of strength κ = 1/(1+λ) changes the retained outputs by "
              "O(κ²) and the forget outputs by Θ(κ): over κ in [1e-3, 0.1] the log-log slopes are 2 ± 0.2 "
              "and 1 ± 0.2, so the retained data stay interpolated to first order while the forget fit "
              "moves.",
    kind=Kind.NUMERIC,
    check=partial(_check_mlp, hide_gradients=False), control=partial(_check_mlp, hide_gradients=True),
    control_description="the unprojected step (the problem hides its model gradients, so the update is "
                        "θ ← θ − κθ): the retained outputs then move as κ (slope 1).",
))


# ---------------------------------------------------------------------------- ridge_limit

RIDGE_LAMBDAS = (1.0, 0.5, 0.25)


def _check_ridge(ctx: Context, *, weight_factor: float) -> Outcome:
    rng = ctx.rng("ridge")
    worst, gaps = 0.0, []
    for _ in range(ctx.pick(2, 10)):
        problem = linear_task(4, 7, 1, seed=int(rng.integers(2**31)))
        X, y = (t.numpy() for t in problem.retain)
        n, target = X.shape[0], _min_norm(problem.retain[0], problem.retain[1][:, 0])
        distances = []
        for lam in RIDGE_LAMBDAS:
            smoothness = 2 * float(np.linalg.eigvalsh(X.T @ X / n).max()) + 2 * lam
            sol = solve(problem, Ridge(lr=1.0 / smoothness, lam=lam), maxiters=20000, tol=1e-11)
            # J_r + λ‖θ‖² is minimized by (XᵀX/n + λI)⁻¹Xᵀy/n; the control uses a wrong weight
            gram = X.T @ X / n + weight_factor * lam * np.eye(X.shape[1])
            closed = np.linalg.solve(gram, X.T @ y[:, 0] / n)
            if sol.retcode is not RetCode.Success:
                return fact(False, f"Ridge(lam={lam}) returned {sol.retcode}")
            worst = max(worst, float(np.abs(sol.x.numpy() - closed).max()))
            distances.append(float(np.linalg.norm(sol.x.numpy() - target)))
        gaps.append(distances)
    # the documented default criterion: Success once ‖∇(J_r + λ‖θ‖²)‖ <= 1e-10 (float64) at the returned θ,
    # recomputed here in numpy; terms are O(1), so round-off adds ~1e-15 at most
    lam = RIDGE_LAMBDAS[0]
    smoothness = 2 * float(np.linalg.eigvalsh(X.T @ X / n).max()) + 2 * lam
    sol = solve(problem, Ridge(lr=1.0 / smoothness, lam=lam), maxiters=20000)
    theta = sol.x.numpy()
    grad = float(np.linalg.norm(2.0 * X.T @ (X @ theta - y[:, 0]) / n + 2.0 * lam * theta))
    if sol.retcode is not RetCode.Success or grad > 1e-10 + 1e-14:
        return fact(False, f"Ridge(lam={lam}) at the default tolerance: {sol.retcode.value} with gradient "
                           f"norm {grad:.3g} (documented: Success at <= 1e-10)")
    shrinking = all(a > b > c for a, b, c in gaps)
    # gradient tol 1e-11 on an objective with curvature >= 2λ >= 0.5: the iterate is within
    # 1e-11/0.5 = 2e-11 of the minimizer; 1e-9 leaves room for the float64 solve
    return fact(worst <= 1e-9 and shrinking, "Ridge reaches the ridge minimizer and tends to pinv(X_r) y_r "
                "as λ decreases", worst_error=worst, distance_at_smallest_lambda=gaps[0][-1])


register(Claim(
    id=f"{PAPER}.ridge_limit", paper=PAPER, origin=Origin.PRIOR,
    source=f"the Ridge baseline of Section 5.1 and Appendix F.1.5, with the ridgeless limit of Hastie, "
           f"Montanari, Rosset, Tibshirani (Ann. Statist. 2022), reference [22] ({SOURCE})",
    statement="On overparameterized linear tasks, solve(Ridge(lam=λ)) reaches the minimizer "
              "(X_rᵀX_r/n + λI)⁻¹X_rᵀy_r/n of J_r + λ‖θ‖² to 1e-9 for λ in {1, 0.5, 0.25}, and its "
              "distance to the minimum-norm interpolator pinv(X_r) y_r decreases as λ does; at the default "
              "tolerance it returns Success with ‖∇(J_r + λ‖θ‖²)‖ <= 1e-10 at the returned θ.",
    kind=Kind.NUMERIC,
    check=partial(_check_ridge, weight_factor=1.0), control=partial(_check_ridge, weight_factor=2.0),
    control_description="the closed form with the weight 2λ (the ½-convention slip): the iterates no "
                        "longer agree with it.",
))


# ------------------------------------------------------------------------ descent_updates

def _np_two_layer(theta: np.ndarray, X: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """f(θ, X) and the model gradients (n, d) of cᵀtanh(Ax), θ = [c; vec(A)], written out by hand."""
    c, A = theta[:width], theta[width:].reshape(width, X.shape[1])
    hidden = np.tanh(X @ A.T)
    d_A = (c * (1.0 - hidden**2))[:, :, None] * X[:, None, :]  # ∂f/∂A_jk = c_j φ'(a_j·x) x_k
    return hidden @ c, np.concatenate([hidden, d_A.reshape(X.shape[0], -1)], axis=1)


def _np_loss_gradient(theta: np.ndarray, samples, width: int) -> np.ndarray:
    """∇ of (1/n) Σ (f(θ, x) − y)² from the hand-written gradients."""
    X, y = (t.numpy() for t in samples)
    f, jac = _np_two_layer(theta, X, width)
    return 2.0 * jac.T @ (f - y[:, 0]) / X.shape[0]


#: hyperparameters of the descent-update claim (one step size; α, λ, γ away from the trivial values)
DESCENT_LR, NGP_ALPHA, RIDGE_LAM, RIDGE_GAMMA = 0.05, 0.7, 0.3, 0.5
DESCENT_STEPS = 6
OG_SCHEDULE = (0.0, 1.0, math.inf, 3.0)  # the last entry repeats


def _reference_trajectory(name: str, problem: UnlearningProblem, width: int) -> np.ndarray:
    """θ after DESCENT_STEPS iterations of the method's update rule, by numpy."""
    theta = problem.params.numpy().copy()
    for k in range(DESCENT_STEPS):
        g_r = _np_loss_gradient(theta, problem.retain, width)
        g_f = _np_loss_gradient(theta, problem.forget, width)
        if name == "GradientDescent":
            theta = theta - DESCENT_LR * g_r
        elif name == "NegGrad":
            theta = theta + DESCENT_LR * g_f
        elif name == "NegGradPlus":
            theta = theta - DESCENT_LR * (g_r - NGP_ALPHA * g_f)
        elif name == "Ridge":
            theta = theta - DESCENT_LR * (g_r + 2.0 * RIDGE_LAM * RIDGE_GAMMA**k * theta)
        else:  # MinNormOG: θ ← θ − (1/(1+λ_k)) P_{G⊥} θ at the current θ, then a descent step
            lam = OG_SCHEDULE[min(k, len(OG_SCHEDULE) - 1)]
            if not math.isinf(lam):
                _, G = _np_two_layer(theta, problem.retain[0].numpy(), width)
                theta = theta - (theta - np.linalg.pinv(G) @ (G @ theta)) / (1.0 + lam)
            theta = theta - DESCENT_LR * _np_loss_gradient(theta, problem.retain, width)
    return theta


def _check_descent_updates(ctx: Context, *, swap: bool) -> Outcome:
    rng = ctx.rng("descent_updates")
    algorithms = {"GradientDescent": GradientDescent(lr=DESCENT_LR), "NegGrad": NegGrad(lr=DESCENT_LR),
                  "NegGradPlus": NegGradPlus(lr=DESCENT_LR, alpha=NGP_ALPHA),
                  "Ridge": Ridge(lr=DESCENT_LR, lam=RIDGE_LAM, gamma=RIDGE_GAMMA),
                  "MinNormOG": MinNormOG(lambda_schedule=OG_SCHEDULE, lr=DESCENT_LR)}
    worst, retcodes = 0.0, set()
    for _ in range(ctx.pick(3, 20)):
        task = two_layer_task(8, 3, 12, 3, activation="tanh", seed=int(rng.integers(2**31)))
        # away from interpolation (θ* + noise), where the loss gradients do not vanish
        start = task.params + 0.3 * torch.from_numpy(rng.standard_normal(task.dim))
        problem = UnlearningProblem(task.model, start, task.retain, task.forget)
        solved = _swapped(problem) if swap else problem  # control: the two sets exchanged
        for name, algorithm in algorithms.items():
            sol = solve(solved, algorithm, maxiters=DESCENT_STEPS)
            retcodes.add(sol.retcode)
            reference = _reference_trajectory(name, problem, task.model.width)
            # float64, six steps of O(1) updates on 48 parameters: round-off ~1e-14, far below 1e-10
            error = float(np.abs(sol.x.numpy() - reference).max()) / (1.0 + float(np.abs(reference).max()))
            worst = max(worst, error)
    # six steps without the criterion holding is the horizon: MaxIters, never Success
    ok = worst <= 1e-10 and retcodes == {RetCode.MaxIters}
    blow_up = _check_blow_up(rng, swap)
    return fact(ok and blow_up["ok"], "GD, NegGrad, NegGrad+, Ridge (decaying) and MinNorm-OG follow their "
                f"update rules away from interpolation (retcodes {sorted(r.value for r in retcodes)}); "
                f"gradient ascent stops Diverged at the first iterate past the blow-up bound: "
                f"{blow_up['text']}",
                worst_relative_error=figure(worst, 2, floor=1e-13))


def _check_blow_up(rng: np.random.Generator, swap: bool) -> dict:
    """NegGrad with a step that makes ascent grow by 1.5 per iteration on a linear task: the run must stop
    Diverged at the first iterate whose norm passes DIVERGENCE_FACTOR·(1 + ‖θ*‖) (the documented rule,
    1e6), recomputed in numpy: at a growth of 1.5 per step a bound 2x off moves the stop by 1-2 steps."""
    task = linear_task(6, 10, 3, seed=int(rng.integers(2**31)))
    # a start away from interpolation (at θ* the forget gradient vanishes and ascent stops at once,
    # Theorem 1); ‖θ_0‖ ≈ 3 (10 standard normals) makes the bound's factor 1 + ‖θ*‖ about 4, which moves
    # the stop by about 3 steps at a growth of 1.5 (#46 round 4: at ‖θ_0‖ ≈ 0.3, 0.1 × the draw, the factor
    # was 1.3 < 1.5 and a bound without it stopped at the same step)
    task = UnlearningProblem(task.model, torch.from_numpy(rng.standard_normal(task.dim)),
                             task.retain, task.forget)
    X, y = (t.numpy() for t in task.forget)
    curvature = float(np.linalg.eigvalsh(X.T @ X / X.shape[0]).max())
    lr = 0.25 / curvature  # θ ← θ + lr·2X_fᵀ(X_fθ − y_f)/n_f grows by 1 + 2·lr·curvature = 1.5
    theta = task.params.numpy().copy()
    limit = 1e6 * (1.0 + float(np.linalg.norm(theta)))
    step = 0
    while np.linalg.norm(theta) <= limit and step < 200:
        theta = theta + lr * 2.0 * X.T @ (X @ theta - y[:, 0]) / X.shape[0]
        step += 1
    sol = solve(_swapped(task) if swap else task, NegGrad(lr=lr), maxiters=200)
    error = float(np.abs(sol.x.numpy() - theta).max() / np.abs(theta).max())
    ok = sol.retcode is RetCode.Diverged and sol.stats.iterations == step and error <= 1e-10
    return {"ok": ok, "text": f"{sol.retcode.value} after {sol.stats.iterations} steps (numpy: {step}, "
                             f"relative distance {error:.2g})"}


register(Claim(
    id=f"{PAPER}.descent_updates", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source=f"Algorithm 1 (MinNorm-OG, gradients at the current θ) and the baselines of Section 5.1 and "
           f"Appendix F.1 (GD, GA, NegGrad+, Ridge) ({SOURCE})",
    statement="Started away from interpolation on a two-layer tanh perceptron, six iterations of "
              "GradientDescent, NegGrad, NegGradPlus (α = 0.7), Ridge (λ = 0.3, γ = 0.5) and MinNorm-OG "
              "(schedule 0, 1, ∞, 3, ...; lr > 0) equal the update rules θ − η∇J_r, θ + η∇J_f, "
              "θ − η(∇J_r − α∇J_f), θ − η(∇J_r + 2λγᵏθ) and θ − (1/(1+λ_k))P_{G(θ)⊥}θ then a descent "
              "step, recomputed in numpy with hand-written model gradients, to 1e-10 relative; each "
              "returns MaxIters at the horizon; NegGrad with a step that grows a linear model's iterate "
              "1.5-fold per step returns Diverged at the first iterate whose norm passes 1e6·(1 + ‖θ*‖), "
              "with that iterate.",
    kind=Kind.NUMERIC,
    check=partial(_check_descent_updates, swap=False), control=partial(_check_descent_updates, swap=True),
    control_description="retain and forget exchanged in the problem handed to solve (the methods run on "
                        "the wrong sets): the trajectories leave the reference.",
))


# ------------------------------------------------------------------------ stopping_criteria


def _contracting_task(seed: int) -> UnlearningProblem:
    """A linear task whose retained rows are orthonormal (X_r X_rᵀ = I): pure descent with lr = 0.4 then
    contracts the retained component by exactly 1 − 2·lr/n = 0.8 per step (n = 4), so its steps shrink
    geometrically by 0.8 and the step that first meets a tolerance lies within a factor 0.8 of it."""
    rng = np.random.default_rng(seed)
    d, n = 8, 4
    Q, _ = np.linalg.qr(rng.standard_normal((d, n)))
    model = LinearModel(d, seed=seed)
    return UnlearningProblem(model, torch.from_numpy(rng.standard_normal(d)),
                             (torch.from_numpy(Q.T.copy()), torch.from_numpy(rng.standard_normal(n))),
                             (torch.from_numpy(rng.standard_normal((1, d))),
                              torch.from_numpy(rng.standard_normal(1))))


def _tensor(*rows, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.tensor(rows, dtype=dtype)


def _rule_boundaries() -> list[str]:
    """Each documented stopping rule at its boundary, on one-dimensional inputs whose arithmetic is exact
    (dyadic numbers), so that a quantity can equal its tolerance bit for bit: the rules say <=, so a tie
    stops (Success); and the direct solvers' default tolerances, with a residual put on either side."""
    wrong = []
    tol = 2.0**-10

    def line(y: float) -> UnlearningProblem:  # f = θx on x = 1 from θ* = 0; J = (θ − y)², ∇J = 2(θ − y)
        return UnlearningProblem(LinearModel(1), _tensor(0.0), (_tensor([1.0]), _tensor(y)),
                                 (_tensor([2.0]), _tensor(0.0)))

    # step rule: lr 0.25 moves θ by 0.5·|y| = 2^-10 = tol·(1 + ‖θ_0‖) in the first iteration
    step = solve(line(2.0**-9), MinNormOG(lambda_schedule=math.inf, lr=0.25), tol=tol)
    if (step.retcode, step.stats.iterations) != (RetCode.Success, 1):
        wrong.append(f"MinNorm-OG, first step equal to tol·(1 + ‖θ‖): {step.retcode.value} after "
                     f"{step.stats.iterations} iterations, expected Success after 1")
    # gradient rule: ‖∇J(θ*)‖ = 2·2^-11 = tol before any step
    grad = solve(line(-(2.0**-11)), GradientDescent(lr=0.25), tol=tol)
    if (grad.retcode, grad.stats.iterations) != (RetCode.Success, 0):
        wrong.append(f"GradientDescent, ‖∇J(θ*)‖ equal to tol: {grad.retcode.value} after "
                     f"{grad.stats.iterations} iterations, expected Success after 0")
    # the direct solvers: Success iff each retained residual <= tol·(1 + |y_i| + its row's terms), here
    # tol·(1 + max|y_r|): the terms are 0 and |y_i| = max|y_r|. Instances whose retained
    # labels cannot be fit and whose answer predicts exactly 0 there, so the residual is the label r itself:
    # SparseWidthOG with a dead relu neuron on the retained x (feature 0, s = 0); DeepLinearOG with the
    # retained x = e_1 twice, labels ∓r, and w* = e_2 (its answer keeps w·e_1 = w*·e_1 = 0)
    def sparse(r: float, dtype: torch.dtype) -> UnlearningProblem:
        return UnlearningProblem(TwoLayerPerceptron(1, 1, activation="relu", dtype=dtype),
                                 _tensor(0.5, 1.0, dtype=dtype),
                                 (_tensor([-1.0], dtype=dtype), _tensor(r, dtype=dtype)),
                                 (_tensor([2.0], dtype=dtype), _tensor(1.0, dtype=dtype)))

    def deep(r: float, dtype: torch.dtype) -> UnlearningProblem:
        return UnlearningProblem(DeepLinear(2, (1,), dtype=dtype), _tensor(1.0, 0.0, 1.0, dtype=dtype),
                                 (_tensor([1.0, 0.0], [1.0, 0.0], dtype=dtype), _tensor(-r, r, dtype=dtype)),
                                 (_tensor([0.0, 1.0], dtype=dtype), _tensor(1.0, dtype=dtype)))

    # MinNorm-OG's schedule (0, ∞): the step rule may count at iteration 1 (λ_1 = ∞, no projection after
    # it). Here the projection (λ = 0, one retained gradient spanning R¹) leaves θ as it is, so the run is
    # the descent above: steps 2^-10, 2^-11; at tol 2^-11 the first is above tol·(1 + 0), the second equals
    # 2^-11 <= tol·(1 + 2^-10): Success after exactly 2 iterations
    mixed = solve(line(2.0**-9), MinNormOG(lambda_schedule=(0.0, math.inf), lr=0.25), tol=2.0**-11)
    if (mixed.retcode, mixed.stats.iterations) != (RetCode.Success, 2):
        wrong.append(f"MinNorm-OG (0, ∞), second step under tol·(1 + ‖θ‖): {mixed.retcode.value} after "
                     f"{mixed.stats.iterations} iterations, expected Success after 2")
    wrong += _rank_cut_boundaries()
    # projects_after(t), documented "whether some iteration after t projects" (the last entry repeats)
    for schedule, t, want in (((1.0, math.inf), 0, False), ((math.inf, 1.0), 0, True),
                              ((math.inf, 1.0), 5, True), ((1.0, 2.0, math.inf), 1, False)):
        if MinNormOG(lambda_schedule=schedule).projects_after(t) is not want:
            wrong.append(f"MinNormOG(lambda_schedule={schedule}).projects_after({t}) is not {want}")
    # (r, dtype, tol given, expected): a tie at tol = 0.5 (0.5·(1 + 1) = 1 = r); the defaults 1e-8
    # (float64) and 1e-4 (float32) with r at half and at 1.5 times them
    cases = ((1.0, torch.float64, 0.5, RetCode.Success), (0.5e-8, torch.float64, None, RetCode.Success),
             (1.5e-8, torch.float64, None, RetCode.Failure), (0.5e-4, torch.float32, None, RetCode.Success),
             (1.5e-4, torch.float32, None, RetCode.Failure))
    for name, build, method in (("SparseWidthOG", sparse, SparseWidthOG()),
                                ("DeepLinearOG", deep, DeepLinearOG())):
        for r, dtype, given, expected in cases:
            sol = solve(build(r, dtype), method, tol=given)
            if sol.retcode is not expected:
                wrong.append(f"{name}, residual {r:g} in {dtype} (tol {given or 'default'}): "
                             f"{sol.retcode.value}, expected {expected.value}")
    return wrong


def _rank_cut_boundaries() -> list[str]:
    """The documented rank cut (directions at or below 1e-10 of the largest count as zero), on diagonal data
    whose singular values / pivots are exact: a direction at 1.25e-10 of the largest is kept, one at
    0.8e-10 is dropped, in SparseWidthOG, DeepLinearOG and MinNorm-OG's projection (so a cut moved by a
    factor 1.25 either way shows); and (#46 round 5, seed 7) one at exactly 1e-10 is dropped too (the cut
    is strict: `>`, not `>=`; 1e-10·1.0 and the pivot/singular value 1e-10 are the same double)."""
    wrong = []
    for ratio, kept in ((1.25e-10, True), (1e-10, False), (0.8e-10, False)):
        # SparseWidthOG: relu with A = I on x_1 = e_1, x_2 = ratio·e_2: features diag(1, ratio), labels 1
        net = TwoLayerPerceptron(2, 2, activation="relu")
        X = _tensor([1.0, 0.0], [0.0, ratio])
        sparse = UnlearningProblem(net, _tensor(1.0, 1.0, 1.0, 0.0, 0.0, 1.0), (X, _tensor(1.0, 1.0)),
                                   (_tensor([1.0, 1.0]), _tensor(0.0)))
        sol = solve(sparse, SparseWidthOG(prune=False))
        # kept: both neurons fit their point (c_2 = 1/ratio); dropped: s = 1 and x_2's label is lost
        if (sol.retcode is RetCode.Success) != kept:
            wrong.append(f"SparseWidthOG, a feature pivot at {ratio:g} of the largest: {sol.retcode.value}, "
                         f"expected the direction {'kept' if kept else 'cut'}")
        # DeepLinearOG: w* = (1, 1/ratio, 1) interpolates x_1 = e_1, x_2 = ratio·e_2 (labels 1); its
        # retained gradients have singular values 1 and ratio. Kept: the answer still fits x_2 (Success);
        # cut: A_1 may move along e_2 and the minimum-norm answer drops x_2's label (Failure)
        deep = UnlearningProblem(DeepLinear(3, (1,)), _tensor(1.0, 1.0, 1.0 / ratio, 1.0),
                                 (_tensor([1.0, 0.0, 0.0], [0.0, ratio, 0.0]), _tensor(1.0, 1.0)),
                                 (_tensor([0.0, 0.0, 1.0]), _tensor(0.0)))
        sol = solve(deep, DeepLinearOG())
        if (sol.retcode is RetCode.Success) != kept:
            wrong.append(f"DeepLinearOG, a retained gradient at {ratio:g} of the largest: "
                         f"{sol.retcode.value}, expected the direction {'kept' if kept else 'cut'}")
        # the projection of Algorithm 1 with λ = 0: θ − P_{G⊥}θ keeps exactly θ's part in span(G)
        G = _tensor([1.0, 0.0, 0.0], [0.0, ratio, 0.0])
        step = orthogonal_gradient_step(_tensor(1.0, 1.0, 1.0), G, 0.0)
        want = _tensor(1.0, 1.0 if kept else 0.0, 0.0)
        if float((step - want).abs().max()) > 1e-12:  # exact up to the SVD's round-off on diagonal data
            wrong.append(f"orthogonal_gradient_step, a gradient at {ratio:g} of the largest: "
                         f"{step.tolist()}, expected {want.tolist()}")
    return wrong


def _check_stopping(ctx: Context, *, tighten: float) -> Outcome:
    rng = ctx.rng("stopping_criteria")
    wrong, rows = [], []
    for _ in range(2):
        problem = _contracting_task(int(rng.integers(2**31)))
        sol = solve(problem, MinNormOG(lambda_schedule=math.inf, lr=0.4), store_trace=True)
        steps = [r["step"] for r in sol.trace]
        # the documented rule: Success at the first step <= tol·(1 + ‖θ before it‖), tol = 1e-10 by
        # default; ‖θ before‖ <= ‖θ_T‖ + step, so the last step must be <= 1e-10·(1 + ‖θ_T‖ + step)
        bound = 1e-10 * tighten * (1.0 + float(sol.x.norm()) + steps[-1])
        counts = (sol.stats.iterations, sol.stats.f_calls, sol.stats.grad_calls)
        if sol.retcode is not RetCode.Success or steps[-1] > bound:
            wrong.append(f"MinNorm-OG (pure descent): {sol.retcode.value}, last step {steps[-1]:.3g} against "
                         f"{bound:.3g}")
        # and at the FIRST such step: the one before it was above tol·(1 + ‖θ two steps back‖), and that
        # norm is at least ‖θ_T‖ − s_{T−1} − s_T (‖θ_T‖ >= 1 here, so a rule relative to 1 alone, or
        # divided by 1 + ‖θ‖, stops steps later and fails this)
        early = 1e-10 * (1.0 + float(sol.x.norm()) - steps[-1] - steps[-2])
        if steps[-2] <= early or float(sol.x.norm()) < 1.0:
            wrong.append(f"MinNorm-OG (pure descent): the step before the last, {steps[-2]:.3g}, already met "
                         f"{early:.3g} (or ‖θ‖ = {float(sol.x.norm()):.3g} < 1)")
        if counts != (len(steps),) * 3:  # one loss and one gradient per iteration
            wrong.append(f"MinNorm-OG: (iterations, f_calls, grad_calls) = {counts}, {len(steps)} steps "
                         "taken")
        rows.append({"iterations": len(steps),
                     "last_step_over_tol": figure(steps[-1] / (bound / tighten), 3),
                     "last_ratio": figure(steps[-1] / steps[-2], 3)})
    # one projection counted per iteration whose λ is finite (schedule 0, ∞, 0: two in three iterations)
    problem = _contracting_task(int(rng.integers(2**31)))
    mixed = solve(problem, MinNormOG(lambda_schedule=(0.0, math.inf, 0.0), lr=0.4), maxiters=3)
    if (mixed.stats.iterations, mixed.stats.projections) != (3, 2):
        wrong.append(f"MinNorm-OG (0, ∞, 0): (iterations, projections) = "
                     f"{(mixed.stats.iterations, mixed.stats.projections)}, expected (3, 2)")
    # strength_schedule against its documented meaning: the j-th projection removes λ_reg·γ_reg^j of
    # P_{G⊥}θ, so λ_j = 1/(λ_reg γ_reg^j) − 1; projections every `period` epochs, none in the last
    # `final_descent` (λ = ∞)
    for lam_reg, gam, epochs, period, final in ((0.5, 0.5, 4, 1, 1), (0.3, 0.7, 7, 2, 2),
                                                (1.0, 0.9, 3, 1, 0)):
        got = strength_schedule(lam_reg, gam, epochs, period=period, final_descent=final)
        want, j = [], 0
        for e in range(epochs):
            if e >= epochs - final or e % period:
                want.append(math.inf)
            else:
                want.append(1.0 / (lam_reg * gam**j) - 1.0)
                j += 1
        if len(got) != epochs or any(abs(a - b) > 1e-12 * (1.0 + abs(b)) if math.isfinite(b) else a != b
                                     for a, b in zip(got, want, strict=False)):
            wrong.append(f"strength_schedule({lam_reg}, {gam}, {epochs}, period={period}, "
                         f"final_descent={final}) = {got}, documented {tuple(want)}")
    # Retrain's normal-equation test is relative to ‖X_r‖²·‖θ‖ and its tol is the dtype's (1e-10 float64,
    # 1e-5 float32): labels scaled by 1e6 and a float32 copy must both pass; the answer scales with y
    task = linear_task(4, 10, 1, seed=int(rng.integers(2**31)))
    X, y = task.retain
    base = solve(task, Retrain())
    scaled = solve(UnlearningProblem(task.model, task.params, (X, 1e6 * y), task.forget), Retrain())
    single = solve(UnlearningProblem(LinearModel(10, dtype=torch.float32), task.params.float(),
                                     (X.float(), y.float()), tuple(t.float() for t in task.forget)),
                   Retrain())
    # float64 least squares on 4 x 10 data: round-off ~1e-15 relative
    drift = float((scaled.x - 1e6 * base.x).abs().max() / (1e6 * base.x.abs().max()))
    for name, sol in (("Retrain", base), ("Retrain (labels x 1e6)", scaled), ("Retrain (float32)", single)):
        if sol.retcode is not RetCode.Success or (sol.stats.iterations, sol.stats.linear_solves) != (1, 1):
            wrong.append(f"{name}: {sol.retcode.value}, (iterations, linear_solves) = "
                         f"{(sol.stats.iterations, sol.stats.linear_solves)}")
    if drift > 1e-12:
        wrong.append(f"Retrain's answer does not scale with the labels (relative drift {drift:.3g})")
    # SparseWidthOG's interpolation test is relative (per row, 1 + |y_i| + the row's terms): labels × 1e6 must
    # still pass
    wide = two_layer_task(8, 3, 12, 3, seed=int(rng.integers(2**31)))
    (Xw, yw), (Xf, yf) = wide.retain, wide.forget
    for factor in (1e6,):  # (labels × 1: two_layer_width)
        sol = solve(UnlearningProblem(wide.model, wide.params, (Xw, factor * yw), (Xf, factor * yf)),
                    SparseWidthOG(prune=False))
        if sol.retcode is not RetCode.Success:
            wrong.append(f"SparseWidthOG (labels x {factor:g}): {sol.retcode.value}")
    # SparseWidthOG's rank cut is relative to the largest pivot: relu is positively homogeneous, so A × 1e-12
    # with c × 1e12 is the same network with features ~1e-12, and it must still interpolate (a cut read
    # as absolute, or as 1e-10 divided by the largest pivot, drops every neuron there)
    for attempt in range(5):  # relu on 4-D inputs: redraw in the rare case the features lose rank
        try:
            relu = two_layer_task(8, 4, 24, 3, activation="relu", seed=int(rng.integers(2**31)))
            break
        except ValueError:
            if attempt == 4:
                raise
    width = relu.model.width
    theta = relu.params.clone()
    theta[:width] *= 1e12
    theta[width:] *= 1e-12
    sol = solve(UnlearningProblem(relu.model, theta, relu.retain, relu.forget), SparseWidthOG(prune=False))
    if sol.retcode is not RetCode.Success:
        wrong.append(f"SparseWidthOG (relu features x 1e-12): {sol.retcode.value}")
    wrong += _rule_boundaries()
    return Outcome("fail" if wrong else "pass",
                   "the documented stopping rules and work counts hold (MinNorm-OG's step rule at tol 1e-10, "
                   "Retrain's relative normal-equation test in float64 and float32, each rule at its tie, "
                   "the direct solvers' default tolerances and relative rank cuts)"
                   + (f"; {len(wrong)} wrong, first: {wrong[0]}" if wrong else ""),
                   {"descent_runs": rows, "retrain_scale_drift": figure(drift, 2, floor=1e-17),
                    "wrong": wrong})


register(Claim(
    id=f"{PAPER}.stopping_criteria", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source=f"Algorithm 1's loop run to a stopping rule and the Retrain baseline (Section 5.1) ({SOURCE}); "
           "the documented rules of algorithms.unlearning (run_descent, Retrain)",
    statement="MinNorm-OG in pure descent (λ = ∞, lr 0.4) on a linear task whose steps shrink by "
              "exactly 0.8 ends Success at a step <= 1e-10·(1 + ‖θ‖), the documented default tolerance, "
              "having counted one loss and one gradient per iteration (2 tasks); Retrain (one iteration, one "
              "linear solve) ends Success on a linear task, on the same task with labels scaled by 1e6 (its "
              "answer scaled by 1e6 to 1e-12 relative) and on a float32 copy (the float32 tolerance 1e-5). "
              "(Round 3, seed 3:) MinNorm-OG stops at the first step that meets the rule, not later; it "
              "counts one projection per iteration with a finite λ; strength_schedule equals its documented "
              "meaning λ_j = 1/(λ_reg γ_reg^j) − 1 on its projection epochs, ∞ elsewhere; SparseWidthOG "
              "ends Success with labels × 1e6 (its test per row, 1+|y_i|+terms). (Round 4:) each rule at its "
              "boundary on exact dyadic inputs: a step or gradient norm equal to its tolerance stops with "
              "Success (the rules say <=); SparseWidthOG and DeepLinearOG end Success at a retained residual "
              "equal to tol·(1 + max|y|) and, at their default tolerances (1e-8 float64, 1e-4 float32), "
              "Success at half of it and Failure at 1.5 times it; SparseWidthOG ends Success on a relu "
              "network rescaled to features ~1e-12 (A × 1e-12, c × 1e12: its rank cut is relative); "
              "MinNorm-OG with schedule (0, ∞) stops at the second iteration when its step first meets the "
              "rule there, and projects_after(t) says whether an iteration after t projects; the rank cut "
              "1e-10 of SparseWidthOG, DeepLinearOG and orthogonal_gradient_step "
              "keeps a direction at 1.25e-10 of the largest and drops one at 0.8e-10 (diagonal data); "
              "(round 5) one at exactly 1e-10 is dropped too (the cut is strict).",
    kind=Kind.PROPERTY,
    check=partial(_check_stopping, tighten=1.0), control=partial(_check_stopping, tighten=0.1),
    control_description="the step rule claimed at a tolerance ten times tighter (1e-11): the run stops at a "
                        "step near 1e-10, so the check must fail.",
))


# ------------------------------------------------------------------------ assumptions

def _assumption_cases() -> list[Boundary]:
    """The inputs the paper's results and Algorithm 1 assume, each probed just inside and just outside."""
    task = linear_task(4, 6, 1, seed=0)
    model, theta = task.model, task.params
    (X, y), forget = task.retain, task.forget

    def problem(retain=(X, y), params=theta):
        return UnlearningProblem(model, params, retain, forget)

    labels = y[:, 0].numpy()
    G = torch.ones(1, theta.numel(), dtype=theta.dtype)
    plain = torch.nn.Sequential(torch.nn.Linear(X.shape[1], 1, bias=False, dtype=X.dtype))
    plain_theta = theta.clone()
    tiny = 1e-12  # a step past each boundary, far below every value the claims use
    return [
        Boundary("D_r is a pair (X, y)", "retain", lambda: problem((X, y)), lambda: problem((X, y, y))),
        Boundary("labels are real; bool labels are promoted", "retain y",
                 lambda: problem((X, labels > 0)), lambda: problem((X, labels.astype(str)))),
        Boundary("y has the model's one output", "retain y", lambda: problem((X, y)),
                 lambda: problem((X, torch.cat([y, y], dim=1)))),
        Boundary("θ* has the model's d parameters", "params", lambda: problem(params=theta),
                 lambda: problem(params=torch.cat([theta, theta[:1]]))),
        Boundary("step η >= 0", "lr", lambda: GradientDescent(lr=0.0), lambda: GradientDescent(lr=-tiny)),
        Boundary("step η finite", "lr", lambda: NegGrad(lr=WORKING_MAX), lambda: NegGrad(lr=math.inf)),
        Boundary("λ >= 0 (∞: no projection)", "lam", lambda: orthogonal_gradient_step(theta, G, 0.0),
                 lambda: orthogonal_gradient_step(theta, G, -tiny)),
        Boundary("at least one perturbation gradient", "n_pert", lambda: MinNormOG(n_pert=1),
                 lambda: MinNormOG(n_pert=0)),
        Boundary("ridge decay γ <= 1", "gamma", lambda: Ridge(gamma=1.0), lambda: Ridge(gamma=1.0 + 1e-9)),
        Boundary("ridge decay γ > 0", "gamma", lambda: Ridge(gamma=WORKING_MIN), lambda: Ridge(gamma=0.0)),
        Boundary("NegGrad+ weight α >= 0", "alpha", lambda: NegGradPlus(alpha=0.0),
                 lambda: NegGradPlus(alpha=-tiny)),
        Boundary("λ_reg in (0, 1]", "lambda_reg", lambda: strength_schedule(1.0, 0.5, 3),
                 lambda: strength_schedule(1.0 + 1e-9, 0.5, 3)),
        Boundary("λ_reg > 0", "lambda_reg", lambda: strength_schedule(WORKING_MIN, 0.5, 3),
                 lambda: strength_schedule(0.0, 0.5, 3)),
        Boundary("at least one epoch", "epochs", lambda: strength_schedule(0.5, 0.5, 1),
                 lambda: strength_schedule(0.5, 0.5, 0)),
        # any torch.nn.Module, one without an in_features attribute included; X must still fit it
        Boundary("model any nn.Module whose forward takes X", "retain X",
                 lambda: UnlearningProblem(plain, plain_theta, (X, y), forget),
                 lambda: UnlearningProblem(plain, plain_theta, (torch.cat([X, X[:, :1]], dim=1), y), forget)),
        Boundary("forget rows are rows of D", "forget", lambda: forget_split(X, y, [X.shape[0] - 1]),
                 lambda: forget_split(X, y, [X.shape[0]])),
        # #46 round 4: a bool is not a number of the schedule (λ = True would read as 1), nor an epoch count
        # or a period (2.0 epochs would run range(2.0)); the forget set's dtype test reads its X, whose
        # labels may come in another float dtype (converted to X's), while X itself may not
        Boundary("λ a real number, not a bool", "lambda_schedule", lambda: MinNormOG(lambda_schedule=1),
                 lambda: MinNormOG(lambda_schedule=True)),
        Boundary("epochs an int, not a bool", "epochs", lambda: strength_schedule(0.5, 0.5, 1),
                 lambda: strength_schedule(0.5, 0.5, True)),
        Boundary("period an int, not a float", "period", lambda: strength_schedule(0.5, 0.5, 3, period=2),
                 lambda: strength_schedule(0.5, 0.5, 3, period=2.0)),
        Boundary("D_r holds at least one sample (the refusal names the empty retain set)", "retain set",
                 lambda: problem((X[:1], y[:1])),
                 lambda: problem((X[:0], y[:0]))),
        # θ* as a dict whose values are nested lists (converted like tensors; the shape test reads np.shape)
        Boundary("θ* as a dict of the model's shapes, values array-like", "params",
                 lambda: problem(params={"weight": theta[None, :].tolist()}),
                 lambda: problem(params={"weight": theta[:, None].tolist()})),
        Boundary("forget X of the retain X's dtype (its labels converted)", "forget X",
                 lambda: UnlearningProblem(model, theta, (X, y), (forget[0], forget[1].float())),
                 lambda: UnlearningProblem(model, theta, (X, y), (forget[0].float(), forget[1]))),
        # #46 round 5 (seed 6): y's shape test joined by `and` let a y of the wrong row count (2-D) or of
        # three dimensions (the right rows) through; an int step read a bool as 1
        Boundary("y one row per row of X", "retain y", lambda: problem((X, labels)),
                 lambda: problem((X, y[:-1]))),
        Boundary("y of shape (n,) or (n, out_features), not 3-D", "retain y", lambda: problem((X, y)),
                 lambda: problem((X, y[:, :, None]))),
        Boundary("step η a real number, not a bool", "lr", lambda: GradientDescent(lr=1),
                 lambda: GradientDescent(lr=True)),
    ]


def _check_assumptions(ctx: Context, *, shifted: bool) -> Outcome:
    outcome = boundary_outcome(_assumption_cases(), shifted=shifted)
    # θ* as a dict of the model's tensors (the documented alternative form) is the same flat θ*
    task = linear_task(4, 6, 1, seed=0)
    as_dict = UnlearningProblem(task.model, {"weight": task.params[None, :]}, task.retain, task.forget)
    same = bool(torch.equal(as_dict.params, task.params))
    outcome.evidence["dict_params_equal_flat"] = same
    if not same:
        return Outcome("fail", "θ* given as a dict is not the flat θ*; " + outcome.summary, outcome.evidence)
    # the sizes the problem reports are the rows it was given
    sizes = (as_dict.n_retain, as_dict.n_forget, as_dict.dim)
    expected = (task.retain[0].shape[0], task.forget[0].shape[0], task.params.numel())
    outcome.evidence["sizes"] = {"reported": sizes, "given": expected}
    if sizes != expected:
        return Outcome("fail", f"(n_retain, n_forget, dim) = {sizes}, given {expected}; " + outcome.summary,
                       outcome.evidence)
    return outcome


register(Claim(
    id=f"{PAPER}.assumptions", paper=PAPER, origin=Origin.IMPLEMENTATION,
    source=f"the inputs Theorems 1-5 and Algorithm 1 take (Sections 2-4; the baselines of Section 5.1) "
           f"({SOURCE})",
    statement="Each input assumption of the paper's setting (D_r a pair (X, y) of real arrays, bool labels "
              "promoted; y with the model's one output; θ* with the model's d parameters, also given as a "
              "dict of its tensors; a finite step η >= 0; λ >= 0; at least one perturbation gradient; a "
              "ridge decay γ in (0, 1]; NegGrad+'s α >= 0; λ_reg in (0, 1] at both ends; at least one epoch; "
              "forget rows inside D; any nn.Module, one without in_features included, with X that fits it; "
              "since #46 round 4: λ not a bool, epochs and period ints (not a bool, not a float), the "
              "forget X of the retain X's dtype while its labels may be another float dtype, a non-empty "
              "D_r, "
              "θ* as a dict of nested lists of the model's shapes; since round 5: y with one row per row "
              "of X and at most 2-D, the step η not a bool) "
              "is enforced at its boundary: the value just inside is accepted, the value just outside (1e-12 "
              "or one unit past it) is refused with a ValueError or TypeError naming the argument; the "
              "problem reports n_retain, n_forget and d as given.",
    kind=Kind.PROPERTY,
    check=partial(_check_assumptions, shifted=False), control=partial(_check_assumptions, shifted=True),
    control_description="every boundary claimed one step inward (the value just inside stated as outside): "
                        "those values are accepted, so the same check must fail.",
))


# ------------------------------------------------------------------------- results map

# ------------------------------------------------------------------- table1_poisoning

def _poisoning_methods(epochs: int) -> dict:
    """The benchmark's settings (benchmarks/bench_unlearning.py): Adam for every method; MinNorm-OG projects
    every 5th epoch on 16 retained gradients, strength 0.1 decaying by 0.9, the last fifth pure descent."""
    schedule = strength_schedule(0.1, 0.9, epochs, period=5, final_descent=epochs // 5)
    return {"MinNorm-OG": MinNormOG(lambda_schedule=schedule, n_pert=16, lr=3e-3, optimizer="adam"),
            "Retrain": Retrain(lr=1e-2, optimizer="adam"),
            "GD": GradientDescent(lr=3e-3, optimizer="adam"),
            "GA (NegGrad)": NegGrad(lr=1e-3, optimizer="adam"),
            "NGP (NegGrad+)": NegGradPlus(lr=3e-3, alpha=0.1, optimizer="adam"),
            "Ridge": Ridge(lr=3e-3, lam=1e-3, gamma=0.99, optimizer="adam")}


@lru_cache(maxsize=2)
def _poisoning_errors(seed: int, profile: str) -> tuple[dict, float]:
    ctx = Context(seed=seed, profile=profile)
    seeds_, train_steps, epochs = ctx.pick(3, 10), ctx.pick(1000, 3000), ctx.pick(30, 100)
    errors: dict = {}
    poisoned = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small MLPs: one thread each avoids oversubscribing the shared cores
    try:
        _poisoning_runs(seed, seeds_, train_steps, epochs, errors, poisoned)
    finally:
        torch.set_num_threads(threads)
    return {k: np.array(v) for k, v in errors.items()}, float(np.median(poisoned))


def _poisoning_runs(seed: int, seeds_: int, train_steps: int, epochs: int, errors: dict,
                    poisoned: list) -> None:
    for s in range(seeds_):
        problem = sine_poisoning_task(50, 5, hidden=(64, 64), train_steps=train_steps, seed=1000 * seed + s)
        poisoned.append(sup_error(problem, problem.params))
        for name, algorithm in _poisoning_methods(epochs).items():
            unlearned = solve(problem, algorithm, maxiters=epochs).x
            errors.setdefault(name, []).append(sup_error(problem, unlearned))


def _check_poisoning(ctx: Context, *, method: str) -> Outcome:
    """Per baseline a paired two-sided t-test over seeds of log(sup error of ``method`` / baseline's) at
    0.05: 'pass' when ``method`` is significantly better than every other method, 'fail' when some other
    method is significantly better, 'undecided' otherwise."""
    from scipy import stats as scipy_stats

    errors, poisoned = _poisoning_errors(ctx.seed, ctx.profile)
    rows, verdicts = [], []
    for other, values in errors.items():
        if other == method:
            continue
        log_ratio = np.log(errors[method]) - np.log(values)
        p_value = float(scipy_stats.ttest_1samp(log_ratio, 0.0).pvalue) if np.ptp(log_ratio) > 0 else 0.0
        verdict = ("better" if log_ratio.mean() < 0 else "worse") if p_value < 0.05 else "tied"
        verdicts.append(verdict)
        sd = float(np.std(log_ratio, ddof=1))
        rows.append({"baseline": other, "median_sup_error": figure(float(np.median(values)), 3),
                     "geometric_mean_ratio": figure(float(np.exp(log_ratio.mean())), 3),
                     "p_value": figure(p_value, 3), "outcome": verdict,
                     "ratio_resolvable_at_80pct_power": figure(
                         float(np.exp(2.8 * sd / math.sqrt(log_ratio.size))), 3)})
    evidence = {"method": method, "median_sup_error": figure(float(np.median(errors[method])), 3),
                "poisoned_model_median": figure(poisoned, 3), "per_baseline": rows,
                "seeds": int(errors[method].size), "epochs": ctx.pick(30, 100)}
    status = "fail" if "worse" in verdicts else "undecided" if "tied" in verdicts else "pass"
    summary = f"{method} (median sup error {evidence['median_sup_error']}) against: " + ", ".join(
        f"{r['baseline']} {r['outcome']} (ratio {r['geometric_mean_ratio']}, p = "
         f"{r['p_value']})" for r in rows)
    return Outcome(status, summary, evidence)


register(Claim(
    id=f"{PAPER}.table1_poisoning", paper=PAPER, origin=Origin.PAPER, covers=("Table 1", "Figure 1"),
    source=f"Table 1 and Figure 1 (Section 5.1, Data Poisoning; Appendix F) ({SOURCE})",
    deviation="3 (full: 10, the paper's trial count) seeds, the poisoned model trained 1000 (full: 3000) "
              "Adam "
              "steps, 30 (full: 100) unlearning epochs, a tanh MLP 1-64-64-1 with our hyperparameters (the "
              "benchmark's); NGD, ℓ1-Sparse, SCRUB, NPO and SalUn are not implemented; medians become a "
              "paired test over seeds.",
    statement="On the sine data-poisoning task (50 retained points (x, sin x), 5 poisoned (x, 1.5), "
              "x ∈ [−5π, 5π]), at equal epochs MinNorm-OG's sup_x |f(θ, x) − sin x| is smaller than that of "
              "Retrain, GD, GA (NegGrad), NGP (NegGrad+) and Ridge: for each, a paired two-sided t-test over "
              "seeds of the log ratio at level 0.05 must find MinNorm-OG better; the claim fails if a "
              "baseline "
              "is significantly better and is undecided when a test cannot separate them (the evidence gives "
              "the ratio each test resolves at 80 % power).",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_poisoning(ctx, method="MinNorm-OG"),
    control=lambda ctx: _check_poisoning(ctx, method="GA (NegGrad)"),
    control_description="the same tests with gradient ascent (NegGrad) in MinNorm-OG's place: it blows the "
                        "function up away from the data and must lose to the others",
    # quick (3 seeds): MinNorm-OG resolves as better than GD, GA and Ridge; Retrain (p = 0.11) and NGP
    # (p = 0.13) stay tied; the full profile's 10 seeds resolve ~1.25x (see `power`)
    expected_verdict="inconclusive",
    power="Two baselines tie at 3 seeds (Retrain p = 0.11, NGP p = 0.13); at their measured ratios "
          "(0.73, 0.37) and the spread the evidence reports (ratios resolvable at 80 % power: 1.38, "
          "3.08), a paired t-test reaches 80 % power at about 4 seeds; the full profile runs 10 (the "
          "paper's trial count).",
    budget_s=120.0,
))


register_results(PAPER, [
    Result(id="Theorem 1", statement="at an interpolator of D, any loss-gradient unlearning method only adds "
                                     "zero-mean noise to θ*", checkable=True),
    Result(id="Theorem 2", statement="for linear models, the relaxed problem with R̃ = ‖θ‖² returns the "
                                     "minimum-norm interpolator of D_r", checkable=True),
    Result(id="Lemma 1", statement="for deep linear networks, a first-layer perturbation is feasible for the "
                                   "relaxed constraints and makes the predictor the min-norm one of D_r",
           checkable=True),
    Result(id="Theorem 3", statement="with R̃ = ‖w‖² + δ{only A_1 moves}, the relaxed solution gives the "
                                     "min-norm predictor of D_r", checkable=True),
    Result(id="Theorem 4", statement="the balanced rank-one network of the min-norm predictor minimizes the "
                                     "parameter norm among interpolators of D_r", checkable=True),
    Result(id="Lemma 2", statement="for a two-layer perceptron, a last-layer perturbation feasible for the "
                                   "relaxed constraints interpolates D_r with at most s neurons",
           checkable=True),
    Result(id="Theorem 5", statement="with A frozen, the relaxed solution interpolates D_r with at most "
                                     "s = rank φ(A*X_r) <= n_r active neurons", checkable=True),
    Result(id="Proposition 1", statement="zeroing the rows of A where c = 0 keeps the function and the width "
                                         "and leaves at most R nonzero rows", checkable=True),
    Result(id="Corollary 1", statement="Proposition 1 applied to Theorem 5's solution keeps its guarantees",
           checkable=True),
    Result(id="Table 1", statement="data poisoning (an MLP fit to sin x plus 5 poisoned points): at equal "
                                   "unlearning epochs MinNorm-OG has the smallest median sup|f − sin| of all "
                                   "methods", checkable=True),
    Result(id="Figure 1", statement="the unlearned fits of Table 1's experiment at 100 epochs: MinNorm-OG "
                                    "follows sin x closest", checkable=True),
    Result(id="Figure 2", statement="Pareto frontiers of retain accuracy vs forget error for colored "
                                    "CIFAR-10 "
                                    "(ResNet-18) and Tiny ImageNet (ResNet-50) label "
                                    "erasure", checkable=False,
           why="ResNet-18/50 trained on colored CIFAR-10 and Tiny ImageNet over hyperparameter grids and 5 "
               "trials: GPU-days and dataset downloads; checkable with a GPU and the datasets"),
    Result(id="Table 2", statement="representation collapse on colored CIFAR-10: MinNorm-OG has the highest "
                                   "color-label accuracy of the unlearning methods", checkable=False,
           why="ResNet training on CIFAR-10 over 5 trials and 5 constraint settings: GPU-scale"),
    Result(id="Table 3", statement="seconds per unlearning epoch with ResNet-50 on Tiny ImageNet",
           checkable=False,
           why="wall-clock of GPU runs on Tiny ImageNet; our own per-epoch time ratios are in the benchmark"),
])
