"""Population risk of softmax single-location attention: Monte Carlo and the mean-field closed form.

Mean field (Dohmatob, Section 4). The L − 1 noise tokens form a random energy model with
energies E_ℓ = √d x_ℓᵀu ~ N(0, d) and e^{αd} = L − 1 configurations. Its free energy gives

    β_c = √(2α),   ψ = α/β + β/2 and r = β   (β < β_c, liquid),
                   ψ = √(2α)     and r = β_c (β >= β_c, frozen / condensed),

(ψ: the normalised log partition function, r = ∂_β(βψ): the Gibbs mean of x_ℓᵀu/√d), and
the probability that the softmax puts its mass on the secret token is

    p(μ) = 1 / (1 + exp(−(s μ − ψ) β d)),   s the signal scale (c = √(1 − γ²) for Dohmatob).

For the linear link the risk is (Corollary 1)

    R̄(μ, ν, ζ, ρ) = d (p s ζ + (1 − p) ρ r)² + γ² (p² − 2 p ν + 1).

Monte Carlo. The model's output and the label depend on each token only through its
projections on (u, v, u*, v*), whose joint law is Gaussian with the Gram matrix of these
vectors; :func:`monte_carlo_risk` samples those projections exactly (no mean-field step), so
L can be e^{αd} with d in the tens. The label noise ε² is subtracted exactly: the estimate
is E[(f − σ(x_ℓ*ᵀv*))²].

References
----------
E. Dohmatob. Understanding softmax attention layers: exact mean-field analysis on a toy problem.
NeurIPS 2025: eqs. (14), (17), (20), Proposition 1, Corollary 1. B. Derrida. Random-energy
model. Phys. Rev. B 24 (1981).
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction

import mpmath
import numpy as np
import torch

from algorithms._validation import (
    CANCELLATION_SHARE,
    check_bool,
    check_count,
    check_fits_memory,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_seed,
    refuse_sparse,
    to_float,
)
from algorithms.attention.models import tempered_softmax
from algorithms.attention.problem import (
    SingleLocationProblem,
    check_problem,
    check_unit_vector,
    link_function,
)

__all__ = ["locate_probability", "mean_field_risk", "monte_carlo_risk", "thermodynamics",
           "top_score_probability"]

#: the most tokens (n·L) ``monte_carlo_risk`` samples: 2**26, about a minute on a loaded machine (the claims'
#: largest run, 4000 sequences of L = 2982, is 1.2e7)
MAX_MC_TOKENS = 2**26
_CHUNK_ENTRIES = 1 << 22  # tokens per Monte Carlo chunk (memory ~ 100 MB in float64)


def _check_problem(problem) -> SingleLocationProblem:
    return check_problem(problem)  # validated again if changed after construction


def thermodynamics(alpha: float, beta: float) -> dict[str, float]:
    """The REM quantities β_c = √(2α), ψ and r at length exponent ``alpha`` and inverse temperature ``beta``.

    ``alpha`` >= 0 (α = log(L − 1)/d; α = 0 is L = 2, one noise token, which every problem with L = 2 passes
    here: β_c = ψ = r = 0, the frozen phase for every β > 0; any value up to 3.4e38, 1e-39 included);
    ``beta`` > 0, a positive scale in [1.18e-38, 3.4e38]. A pair whose ψ = α/β + β/2 exceeds float64 is
    refused by name (ψ was inf).

    Returns ``beta_crit`` = β_c = √(2α); ``psi`` = ψ, the normalised log partition function (α/β + β/2 when
    β < β_c, β_c otherwise); ``r`` = ∂_β(βψ), the Gibbs mean of x_ℓᵀu/√d, which is r = min(β, β_c): β in the
    liquid phase (β < β_c), β_c in the frozen one, so a real in [0, β] (0 only when α = 0); ``frozen``
    = (β >= β_c).

    >>> thermodynamics(0.5, 2.0)
    {'beta_crit': 1.0, 'psi': 1.0, 'r': 1.0, 'frozen': True}
    >>> thermodynamics(0.5, 0.5)
    {'beta_crit': 1.0, 'psi': 1.25, 'r': 0.5, 'frozen': False}
    """
    alpha = check_nonnegative("alpha", alpha)  # α = 0: L = 2, a single noise token
    beta = check_positive("beta", beta)
    out = _thermodynamics(alpha, beta)
    if not math.isfinite(out["psi"]):  # α/β past float64 (α = 1e308, β = 0.5; β denormal): ψ is not inf
        raise ValueError(f"alpha and beta give psi = alpha/beta + beta/2 beyond float64 (alpha = {alpha!r}, "
                         f"beta = {beta!r}); psi·beta = alpha + beta²/2 is what the risk formulas use")
    return out


def _thermodynamics(alpha: float, beta: float) -> dict[str, float]:
    """:func:`thermodynamics` on checked α, β, ψ allowed to overflow to inf (the formulas that use it take
    ψβ = α + β²/2 then: a denormal β is the uniform-attention limit)."""
    # √(2α), and √2·√α only where 2α overflows (α near float's max gave β_c = inf); √(2α) is kept
    # elsewhere: the claims compare ψ = √(2α) with c bit for bit
    double = 2.0 * alpha
    beta_crit = math.sqrt(double) if math.isfinite(double) else math.sqrt(2.0) * math.sqrt(alpha)
    if _liquid(alpha, beta, beta_crit):
        return {"beta_crit": beta_crit, "psi": alpha / beta + beta / 2.0, "r": beta, "frozen": False}
    return {"beta_crit": beta_crit, "psi": beta_crit, "r": beta_crit, "frozen": True}


def _liquid(alpha: float, beta: float, beta_crit: float) -> bool:
    """β < √(2α) decided exactly on the float inputs: against the rounded β_c, β = fl(√(2α)) or its neighbours
    got the wrong phase (``frozen``) in about one case in six; within a few ulps, β² < 2α in Fractions."""
    if abs(beta - beta_crit) > 1e-15 * beta_crit:
        return beta < beta_crit
    return Fraction(beta) ** 2 < 2 * Fraction(alpha)


def _overlap(value, name: str):
    """An overlap: a float in [-1, 1] (returned as float) or a tensor with entries there."""
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta":  # no data: torch's .item() error named nothing
            raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        refuse_sparse(name, value)  # torch's comparisons raise NotImplementedError on sparse layouts
        if value.dtype.is_complex or value.dtype == torch.bool:  # complex: torch's "gt_cpu not implemented"
            raise TypeError(f"{name} must be a real (floating or integer) tensor, got dtype {value.dtype}")
        ok = bool(torch.isfinite(value).all()) and not bool((value.abs() > 1.0 + 1e-9).any())
    elif isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):  # Fractions too
        raise TypeError(f"{name} must be a real number or a torch tensor, got {type(value).__name__}")
    else:
        value = to_float(value)
        ok = math.isfinite(value) and abs(value) <= 1.0 + 1e-9
    if not ok:
        raise ValueError(f"{name} is an overlap of unit vectors: it must lie in [-1, 1], got {value!r}")
    return value


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def locate_probability(problem: SingleLocationProblem, mu):
    """p(μ) = 1/(1 + e^{−(sμ − ψ)βd}): the mean-field mass of the softmax on the secret token.

    ``problem`` is a :class:`SingleLocationProblem`; ``mu`` = uᵀu* is an overlap of unit vectors, a real
    number or a real tensor in [-1, 1] (a tensor gives a tensor of its own dtype, float32 or half included);
    an overlap up to 1e-9 outside [-1, 1], a computed overlap's rounding, is taken as given (one further:
    refused).

    Accepts a float (returns a float) or a tensor (differentiable).

    >>> p = SingleLocationProblem(d=50, L=21, gamma=0.6)
    >>> locate_probability(p, 1.0) > 0.999, locate_probability(p, 0.0) < 1e-6
    (True, True)
    """
    problem = _check_problem(problem)
    mu = _overlap(mu, "mu")
    gap = _locate_gap(problem, _thermodynamics(problem.alpha, problem.beta)["psi"], mu)
    return torch.sigmoid(gap) if isinstance(mu, torch.Tensor) else _sigmoid(gap)


def _locate_gap(problem: SingleLocationProblem, psi: float, mu):
    """(sμ − ψ)βd, the logit of p(μ). For a denormal β, ψ = α/β + β/2 overflowed to inf and p was 0, not
    the uniform limit; there ψβ = α + β²/2 is used, which is finite.

    sμ − ψ cancels where sμ ≈ ψ (the liquid/learnable boundary) and βd then magnifies the rounding of s and
    ψ: p at μ = ψ/s, β = 1e10 came out 0.5 against 0.4999993. So s and ψ are taken to twice float64's
    digits (s_hi + s_lo, ψ_hi + ψ_lo) and sμ formed exactly (Dekker's product), for floats and float64
    tensors; a float32 or half tensor's logit is formed so in float64, then cast to its dtype."""
    if math.isfinite(psi):
        if isinstance(mu, torch.Tensor) and mu.dtype.is_floating_point and mu.dtype != torch.float64:
            # float32/half: the logit in float64, then the tensor's dtype (in float32 the rounding of sμ − ψ,
            # ~1e-7, times βd = 4e10 turned p = 0.4999993 into 0 or 1)
            return _locate_gap(problem, psi, mu.to(torch.float64)).to(mu.dtype)
        exact = isinstance(mu, float) or (isinstance(mu, torch.Tensor) and mu.dtype == torch.float64)
        if not exact:
            return (problem.signal_scale * mu - psi) * problem.beta * problem.d
        s_hi, s_lo, psi_hi, psi_lo = _gap_constants(problem.variant, problem.gamma, problem.L, problem.d,
                                                    problem.beta)
        if math.isfinite(psi_hi):
            product, error = _two_product(s_hi, mu)
            return ((product - psi_hi) + (error + s_lo * mu - psi_lo)) * problem.beta * problem.d
        return (problem.signal_scale * mu - psi) * problem.beta * problem.d
    beta = problem.beta
    return (problem.signal_scale * mu * beta - problem.alpha - beta * beta / 2.0) * problem.d


@functools.lru_cache(maxsize=256)
def _gap_constants(variant: str, gamma: float, L: int, d: int,
                   beta: float) -> tuple[float, float, float, float]:
    """(s_hi, s_lo, ψ_hi, ψ_lo): s = √(1 − γ²) (or √(1/2)) and ψ(α, β) of the float inputs, α = log(L − 1)/d,
    each the sum of two floats (60 digits, then split)."""
    with mpmath.workdps(60):
        g, b = mpmath.mpf(gamma), mpmath.mpf(beta)
        s = mpmath.sqrt((1 - g) * (1 + g)) if variant == "dohmatob" else mpmath.sqrt(mpmath.mpf(1) / 2)
        alpha = mpmath.log(L - 1) / d
        beta_crit = mpmath.sqrt(2 * alpha)
        psi = alpha / b + b / 2 if b < beta_crit else beta_crit
        s_hi, psi_hi = float(s), float(psi)
        s_lo = float(s - s_hi)
        psi_lo = float(psi - psi_hi) if math.isfinite(psi_hi) else 0.0
    return s_hi, s_lo, psi_hi, psi_lo


def _split(a):
    """Veltkamp's split of a float64 into two 26-bit halves (hi + lo = a exactly; |a| here <= 1)."""
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a: float, b):
    """(p, e) with p = fl(a·b) and p + e = a·b exactly (Dekker), for floats and float64 tensors."""
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    return product, ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def mean_field_risk(problem: SingleLocationProblem, mu, nu, zeta=0.0, rho=None, *,
                    frozen_limit: bool = False):
    """R̄(μ, ν, ζ, ρ) = d (p s ζ + (1 − p) ρ r)² + γ² (p² − 2pν + 1), linear link (Corollary 1).

    ``problem`` is a :class:`SingleLocationProblem` with the linear link; ``mu`` = uᵀu*, ``nu`` = vᵀv*,
    ``zeta`` = vᵀu* and ``rho`` = uᵀv are overlaps of unit vectors, real numbers or real tensors in [-1,
    1], with ν² + ζ² <= 1 (no unit v has others; refused) and (ρ − μζ)² <= (1 − μ²)(1 − ζ²) (the Gram
    matrix of (u, v, u*) positive semidefinite; refused otherwise, naming ``rho``). Together these are exactly
    the overlaps some unit u, v and orthonormal u*, v* have (η = uᵀv* free); each of these three bounds, and
    [-1, 1], takes a value past it by up to 1e-9 (a computed overlap's rounding) as given and refuses one
    further. Tensors broadcast; each entry is
    checked; the risk has the tensors' dtype: all-float32 tensors give a float32 risk (whatever the problem),
    tensors of several dtypes are promoted by torch's rules (a float32 ``mu`` with a float64 ``nu`` gives a
    float64 risk), and floats count as float64.
    ``rho=None`` (the default) is ρ = 0 without ``frozen_limit`` (checked like a given ρ = 0: it needs
    μ² + ζ² <= 1) and no ρ at all with ``frozen_limit=True``, where ρ drops out; a given ρ is always checked.

    ``frozen_limit=True`` sets r = 0 (Condition 3: log L = o(d)), the regime of the paper's
    Section 5, where ρ drops out. Floats in, float out; tensors in, a differentiable tensor out.
    Precision: the value of the formula at the given inputs to a few ulps (times |logit of p| ≈ |(sμ − ψ)βd|,
    which the rounding of μ is magnified by); where p s ζ + q ρ r cancels (ζ ≈ −qρr/(ps), which matters once
    γ is tiny) that sum is recomputed at 60 digits, for floats and each tensor entry (the gradient kept).

    >>> p = SingleLocationProblem(d=50, L=21, gamma=0.6)
    >>> round(mean_field_risk(p, 1.0, 1.0), 8), round(mean_field_risk(p, 1.0, 0.0), 6)
    (0.0, 0.72)
    """
    frozen_limit = check_bool("frozen_limit", frozen_limit)
    problem = _check_problem(problem)
    if problem.link != "linear":
        raise ValueError(f"problem.link must be 'linear' for the closed-form risk (Corollary 1), "
                         f"got {problem.link!r}")
    mu, nu, zeta = (_overlap(x, name) for x, name in ((mu, "mu"), (nu, "nu"), (zeta, "zeta")))
    given = rho is not None
    rho = _overlap(rho, "rho") if given else 0.0
    shapes = {name: tuple(x.shape) for name, x in (("mu", mu), ("nu", nu), ("zeta", zeta), ("rho", rho))
              if isinstance(x, torch.Tensor)}
    try:  # tensors of shapes (2,) and (3,) met torch's "The size of tensor a (2) must match ..."
        torch.broadcast_shapes(*shapes.values())
    except RuntimeError:
        shown = ", ".join(f"{name}: {shape}" for name, shape in shapes.items())
        raise ValueError(f"mu, nu, zeta, rho must be tensors of broadcastable shapes, got {shown}") from None
    excess = nu * nu + zeta * zeta  # tensors too: a tensor (nu, zeta) off the unit disc was accepted
    largest = (float(excess.detach().max()) if excess.numel() else 0.0) if isinstance(excess, torch.Tensor) \
        else excess  # an empty tensor: an empty risk (torch's max() of nothing raised RuntimeError)
    if largest > 1.0 + 1e-9:
        # ν and ζ are v's overlaps with the orthonormal pair (v*, u*): a unit v has ν² + ζ² <= 1
        raise ValueError(f"no unit vectors have these overlaps: nu**2 + zeta**2 = {largest:.6g} > 1 (nu = "
                         f"<v, v*> and zeta = <v, u*> with u* orthogonal to v*)")
    if given or not frozen_limit:  # rho=None in the frozen limit: ρ is not an input at all
        _check_gram(mu, zeta, rho, given)
    return _risk(problem, mu, nu, zeta, rho, frozen_limit)


def _check_gram(mu, zeta, rho, given: bool = True) -> None:
    """Refuse (μ, ζ, ρ) that no unit u, v have: the Gram matrix of (u, v, u*), [[1, ρ, μ], [ρ, 1, ζ],
    [μ, ζ, 1]], must be PSD, i.e. (ρ − μζ)² <= (1 − μ²)(1 − ζ²).

    With ν² + ζ² <= 1 this is also sufficient for the whole Gram matrix of (u, v, u*, v*) (u* ⊥ v*) to be
    PSD for some η = uᵀv*: its Schur complement on the identity block (u*, v*) is PSD for the best η iff
    (ρ − μζ)²(1 − ζ² − ν²) <= (1 − μ²)(1 − ζ²)(1 − ζ² − ν²), and at ν² + ζ² = 1 the choice
    η = (ρ − μζ)/ν needs the same inequality. Round-off slack 1e-9, as for the single overlaps.
    """
    excess = (rho - mu * zeta) ** 2 - (1 - mu * mu) * (1 - zeta * zeta)
    worst = (float(excess.detach().max()) if excess.numel() else 0.0) if isinstance(excess, torch.Tensor) \
        else excess
    if worst > 1e-9:
        raise ValueError(f"no unit vectors have these overlaps: rho = <u, v> must satisfy (rho - mu*zeta)**2 "
                         f"<= (1 - mu**2)(1 - zeta**2) (the Gram matrix of (u, v, u*) is positive "
                         f"semidefinite), "
                         f"got (rho - mu*zeta)**2 - (1 - mu**2)(1 - zeta**2) = {worst:.6g} > 0 "
                         f"(mu = {_shown(mu)}, zeta = {_shown(zeta)}, rho = {_shown(rho)}"
                         f"{'' if given else ', the default for rho=None without frozen_limit'})")


def _shown(x) -> str:
    return f"{x:.6g}" if not isinstance(x, torch.Tensor) else f"tensor of shape {tuple(x.shape)}"


def _risk(problem: SingleLocationProblem, mu, nu, zeta, rho, frozen_limit: bool):
    """Corollary 1's formula on checked overlaps (the Euler states of OverlapFlow come here directly)."""
    thermo = _thermodynamics(problem.alpha, problem.beta)
    r = 0.0 if frozen_limit else thermo["r"]
    gap = _locate_gap(problem, thermo["psi"], mu)
    # p and q = 1 − p each as a sigmoid: 1 − p lost q below 1e-16 (the risk at μ = ν = 1, γ²q², was 0.0)
    p, q = (torch.sigmoid(gap), torch.sigmoid(-gap)) if isinstance(gap, torch.Tensor) \
        else (_sigmoid(gap), _sigmoid(-gap))
    s, g2 = problem.signal_scale, problem.gamma**2
    # p² − 2pν + 1 = (w − q)² + w(1 + ν) with w = 1 − ν (exact for ν >= 1/2): the plain form cancelled to
    # nothing near p = ν = 1 (relative error 1e-4 at ν = 1 − 1e-16)
    w = 1 - nu
    first, second = p * s * zeta, q * rho * r
    bracket = first + second
    if r != 0.0:  # p s ζ + q ρ r cancels where ζ ≈ −qρr/(ps): its rounding, squared, was the whole risk
        bracket = _exact_where_cancelled(problem, mu, zeta, rho, bracket, abs(first) + abs(second))
    return problem.d * bracket ** 2 + g2 * ((w - q) ** 2 + w * (1 + nu))


def _exact_where_cancelled(problem: SingleLocationProblem, mu, zeta, rho, bracket, scale):
    """``bracket`` = p s ζ + q ρ r with its entries at most CANCELLATION_SHARE·(|p s ζ| + |q ρ r|) recomputed
    at 60 digits from the float inputs (s, ψ, r, p, q each to 60 digits): at γ = 3e-22 the risk d·bracket²
    + γ²(…) was 2e5 times its value. A tensor keeps its gradient (the correction is a constant)."""
    def exact(m, z, rh) -> float:
        with mpmath.workdps(60):
            g, b, d = mpmath.mpf(problem.gamma), mpmath.mpf(problem.beta), problem.d
            s = mpmath.sqrt((1 - g) * (1 + g)) if problem.variant == "dohmatob" else mpmath.sqrt(0.5)
            alpha = mpmath.log(problem.L - 1) / d
            beta_crit = mpmath.sqrt(2 * alpha)
            psi, r = (alpha / b + b / 2, b) if b < beta_crit else (beta_crit, beta_crit)
            gap = (s * mpmath.mpf(m) - psi) * b * d
            p, q = 1 / (1 + mpmath.exp(-gap)), 1 / (1 + mpmath.exp(gap))
            return float(p * s * mpmath.mpf(z) + q * mpmath.mpf(rh) * r)

    if not isinstance(bracket, torch.Tensor):
        return exact(mu, zeta, rho) if 0 < scale and abs(bracket) <= CANCELLATION_SHARE * scale else bracket
    try:
        scale = scale.detach()
        cancelled = ((bracket.detach().abs() <= CANCELLATION_SHARE * scale) & (scale > 0)).nonzero().tolist()
    except RuntimeError:  # under torch.func.vmap: no data-dependent branch
        return bracket
    if not cancelled:
        return bracket
    inputs = [x.detach().expand(bracket.shape) if isinstance(x, torch.Tensor) else x for x in (mu, zeta, rho)]
    correction = torch.zeros_like(bracket.detach())
    for index in map(tuple, cancelled):
        values = [float(x[index]) if isinstance(x, torch.Tensor) else x for x in inputs]
        correction[index] = exact(*values) - float(bracket.detach()[index])
    return bracket + correction


#: the largest ``nodes`` top_score_probability accepts (kept from its Gauss-Hermite days: numpy's hermegauss
#: weights overflow to NaN from 372 nodes on); the integral no longer depends on it
MAX_NODES = 360


def top_score_probability(problem: SingleLocationProblem, mu: float = 1.0, *, nodes: int = 160) -> float:
    """P(the secret token has the largest key score) for a key u with overlap ``mu``: exact.

    ``problem`` is a :class:`SingleLocationProblem`; ``mu`` an overlap in [-1, 1] (up to 1e-9 outside,
    rounding, taken as given); ``nodes`` an int in
    [2, MAX_NODES = 360], checked and kept for compatibility (it was the Gauss-Hermite node count; the answer
    no longer depends on it).

    The secret key is s√d μ + γ g and the L − 1 noise keys are i.i.d. N(0, 1), so the
    probability is E_g[Φ(s√d μ + γ g)^{L−1}]. The integrand φ(g)Φ(s√d μ + γg)^{L−1} is log-concave: it is
    integrated adaptively (scipy's ``quad``, relative accuracy ~1e-13) around its peak, found from the
    logarithm, with log Φ and (L − 1)·log Φ in logarithms, so L may be astronomically large (L − 1 = e^{αd}
    with d in the thousands) and answers far below 1e-100 keep their digits (fixed Gauss-Hermite nodes missed
    the narrow peak of Φ^{L−1}: 170 % off at L = 10**40). Answers below float64's range are 0.0. This is
    where the softmax puts its mass in the frozen phase (β >= β_c) as β grows.

    >>> p = SingleLocationProblem(d=400, L=1 + round(math.exp(0.2 * 400)), gamma=0.6)
    >>> top_score_probability(p) > 0.999
    True
    """
    problem = _check_problem(problem)
    mu = float(_overlap(mu, "mu"))
    nodes = check_int_at_least("nodes", nodes, 2)
    if nodes > MAX_NODES:  # the old hermegauss's limit, kept as the documented range (2**40 gave MemoryError)
        raise ValueError(f"nodes must be <= {MAX_NODES} (Gauss-Hermite nodes: numpy's weights overflow to "
                         f"NaN from 372 on), got {nodes}")
    shift = problem.signal_scale * math.sqrt(problem.d) * mu
    return _top_score_integral(shift, problem.gamma, problem.L - 1)


#: the largest int a float holds to within its range (2**1023): L − 1 beyond it is handled in logarithms
_FLOAT_INT_MAX = 2**1023
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _top_score_integral(shift: float, gamma: float, others: int) -> float:
    """∫ φ(g) Φ(shift + γg)^others dg for ``others`` >= 1 noise tokens, by adaptive quadrature of the
    log-concave integrand around its peak g* (h = log of the integrand without 1/√(2π))."""
    from scipy.integrate import quad
    from scipy.optimize import brentq
    from scipy.special import log_ndtr, ndtr

    log_others = math.log(others)
    count = float(others) if others < _FLOAT_INT_MAX else None

    def power(x: float) -> float:
        """(L − 1)·log Φ(x). scipy's log_ndtr loses the right tail (relative error 2e-4 at x = 13, and 0.0
        for −2.8e-89 at x = 20): there −log Φ(x) = −log1p(−Φ̄(x)), Φ̄(x) = ndtr(−x), or in logarithms."""
        if x < 0.0:
            neg_log_cdf = -float(log_ndtr(x))
            if count is not None:
                return -count * neg_log_cdf
            return -math.exp(log_others + math.log(neg_log_cdf))
        tail = float(ndtr(-x))
        if count is not None and tail > 1e-300:
            return count * math.log1p(-tail)
        log_tail = float(log_ndtr(-x))  # accurate in the left tail, never 0
        if tail > 0.0:  # −log1p(−Φ̄) = Φ̄(1 + Φ̄/2 + ...): its ratio to Φ̄, in logarithms
            log_tail += math.log(-math.log1p(-tail) / tail)
        return -math.exp(log_others + log_tail)

    def h(g: float) -> float:
        return -0.5 * g * g + power(shift + gamma * g)

    def slope(g: float) -> float:  # h'(g) = −g + (L − 1)γ φ(x)/Φ(x), x = shift + γg, in logarithms
        x = shift + gamma * g
        log_ratio = log_others - 0.5 * x * x - _LOG_SQRT_2PI - float(log_ndtr(x))
        return -g + gamma * math.exp(min(log_ratio, 700.0))

    lo, hi = -1.0, 1.0
    while slope(lo) <= 0.0:
        lo *= 2.0
    while slope(hi) >= 0.0:
        hi *= 2.0
    peak = brentq(slope, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=500)
    top = h(peak)
    if not math.isfinite(top) or top < -800.0:  # the integrand's peak is below float64's range
        return 0.0

    def reach(drop: float, side: float) -> float:
        """The distance from the peak, on ``side``, where h has fallen by ``drop`` (<= √(2·drop): h + g²/2
        is concave)."""
        far = math.sqrt(2.0 * drop) + 1e-12
        if top - h(peak + side * far) < drop:
            return far
        return brentq(lambda t: top - h(peak + side * t) - drop, 0.0, far, xtol=1e-300)

    points = sorted({peak - reach(drop, -1.0) for drop in (0.5, 4.0)} | {peak}
                    | {peak + reach(drop, 1.0) for drop in (0.5, 4.0)})
    lower, upper = peak - reach(60.0, -1.0), peak + reach(60.0, 1.0)
    integral, _ = quad(lambda g: math.exp(h(g) - top), lower, upper, points=points, epsabs=0.0, epsrel=1e-13,
                       limit=500)
    return min(1.0, math.exp(top + math.log(integral) - _LOG_SQRT_2PI))


def _psd_factor(gram: np.ndarray) -> torch.Tensor:
    """The symmetric square root F = V √Λ Vᵀ (F Fᵀ = gram): continuous in the Gram matrix, so nearby unit
    vectors draw nearby samples. V √Λ alone jumped where eigenvalues cross or coincide (ρ = 0 vs ρ = 1e-9:
    the eigenvectors of [[1, ρ], [ρ, 1]] turn by 45°), and a float32 copy of u gave another sample."""
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    root = (eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))) @ eigenvectors.T
    return torch.as_tensor(root, dtype=torch.float64)


def monte_carlo_risk(problem: SingleLocationProblem, u, v, *, n: int = 2000, seed: int = 0,
                     level: float = 0.95) -> dict[str, float]:
    """Monte Carlo estimate of R(u, v) = E[(f(X; u, v) − y)²] − ε² with a normal ``level`` interval.

    ``problem`` is a :class:`SingleLocationProblem`; ``u`` and ``v`` unit vectors of length d (any real
    dtype: computed in float64, so a float32 copy of a vector gives nearly the same estimate); ``n`` (int
    >= 2, with n·L <= 2**26 tokens) samples, ``seed`` an int in [0, 2**64), ``level`` in (0, 1) (a positive
    scale: at least 1.18e-38).

    Exact in law for every link (the projections of the tokens on u, v, u*, v* are sampled
    jointly Gaussian); returns ``risk``, ``half_width`` (the interval is risk ± half_width),
    ``std`` and ``n``.

    >>> p = SingleLocationProblem(d=40, L=5, gamma=0.6)
    >>> out = monte_carlo_risk(p, *p.oracle(), n=500, seed=0)
    >>> out["risk"] < 0.01
    True
    """
    problem = _check_problem(problem)
    n = check_count("n", n, 2)  # samples
    seed = check_seed(seed)  # numpy ints as ints: torch's manual_seed refuses them
    if isinstance(level, bool | np.bool_) or not isinstance(level, numbers.Real):
        # a 0-d array or tensor of 0.9 was told "must be in (0, 1)": the type is what is wrong
        raise TypeError(f"level must be a real number in (0, 1), got {type(level).__name__} {level!r:.40}")
    if not 0.0 < level < 1.0:  # numpy floats too (np.float32(0.9) was refused)
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    level = check_positive("level", level)  # the working range: 5e-324 gave a zero-width interval
    u = check_unit_vector("u", u, problem.d)
    v = check_unit_vector("v", v, problem.d)
    u_star, v_star = (t.double() for t in problem.oracle())
    mu, nu, eta, zeta, rho = (float(a @ b) for a, b in ((u, u_star), (v, v_star), (u, v_star), (v, u_star),
                                                         (u, v)))
    noise_factor = _psd_factor(np.array([[1.0, rho], [rho, 1.0]]))
    secret_factor = _psd_factor(np.array([[1.0, rho, eta], [rho, 1.0, nu], [eta, nu, 1.0]]))
    sigma = link_function(problem.link)
    lam, gamma = problem.inverse_temperature, problem.gamma
    shift = problem.signal_scale * math.sqrt(problem.d)
    gen = torch.Generator().manual_seed(seed)
    # one sequence's L − 1 noise pairs, keys and values (float64) at least: L = 2**40 reached torch's
    # allocator error naming nothing
    check_fits_memory("monte_carlo_risk", "L", problem.L, to_float(48 * problem.L))  # L = 2**3000: inf bytes
    if n * problem.L > MAX_MC_TOKENS:  # n = 2**31 − 1 sampled for hours (10⁶ sequences of L = 4 take ~4 s)
        raise ValueError(f"n must keep n·L <= 2**26 tokens sampled (about a minute), got n = {n} with L = "
                         f"{problem.L} (n·L = {n * problem.L})")
    chunk = max(1, _CHUNK_ENTRIES // problem.L)
    squared = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        noise = torch.randn(m, problem.L - 1, 2, generator=gen, dtype=torch.float64) @ noise_factor.T
        z = torch.randn(m, 3, generator=gen, dtype=torch.float64) @ secret_factor.T
        keys = torch.cat([(shift * mu + gamma * z[:, 0])[:, None], noise[..., 0]], 1)
        values = torch.cat([(shift * zeta + gamma * z[:, 1])[:, None], noise[..., 1]], 1)
        f = (tempered_softmax(lam, keys, dim=1) * sigma(values)).sum(1)
        squared.append((f - sigma(gamma * z[:, 2])) ** 2)
    errors = torch.cat(squared)
    std = float(errors.std())
    from scipy.special import erfinv

    # z = Φ⁻¹(1/2 + level/2) = √2 erfinv(level): 1/2 + level/2 rounded to 1/2 for level <= 1e-17, a zero width
    half = math.sqrt(2.0) * float(erfinv(level)) * std / math.sqrt(n)
    return {"risk": float(errors.mean()), "half_width": half, "std": std, "n": int(n)}
