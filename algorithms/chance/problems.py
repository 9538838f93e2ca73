"""Test problems: the paper's linear CCP, a VaR portfolio, power control, a waveform design.

All four are linear in x given h (so the MILP/CVaR/scenario baselines apply) and come with a
sampler of fresh h for out-of-sample feasibility.

* :func:`linear_gaussian_problem`: the linear CCP of Section 5.1 (eq. (26)), min bᵀx s.t.
  Prob_c[cᵀx <= d] >= 1 − ρ with c ~ N(c̄, I), here on the box [0, 1]^n. Because c is Gaussian
  the true problem is the second-order cone program c̄ᵀx + Φ⁻¹(1 − ρ)‖x‖ <= d (the paper's
  SOC_CVX reference), whose value is stored as ``known_optimum``.
* :func:`portfolio_var_problem`: maximise the expected return μᵀx of a long-only portfolio with a
  budget Σx <= 1 (the rest in cash) under a value-at-risk limit Prob[rᵀx >= −v] >= 1 − ρ,
  r ~ N(μ, Σ); again an SOC program in closed form (``known_optimum``).
* :func:`power_control_problem`: a small downlink power-allocation (waveform-design) instance:
  minimise the total power Σp subject to every user's SINR
  G_ii p_i / (σ² + Σ_{j≠i} G_ij p_j) >= γ jointly with probability >= 1 − ρ under Rayleigh
  fading (G_ij exponential), linear in p for each channel draw.
* :func:`beamforming_problem`: a small outage-constrained multiuser transmit design in the
  spirit of the paper's robust waveform design (27): total transmit power subject to every
  user's SINR target under Gaussian channel errors, with each user's signal covariance restricted
  to the cone of two fixed beams (real-valued; see its docstring for what differs from (27)).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.optimize
import scipy.stats
import torch

from algorithms._validation import (
    WORKING_MAX,
    WORKING_MIN,
    allocates,
    check_fits_memory,
    check_float_dtype,
    check_generator,
    check_int_at_least,
    check_positive,
    check_positive_int,
    check_seed,
)
from algorithms.chance.problem import ChanceConstrainedProblem, LinearStructure, check_rho, min_samples

__all__ = ["beamforming_problem", "linear_gaussian_problem", "portfolio_var_problem", "power_control_problem"]


#: the largest physical scale of the factories (noise, gains, targets, p_max, var_limit): the working range;
#: the data built from their products (γσ², γ·G) must lie in it too (:func:`_check_products`)
SCALE_MAX = WORKING_MAX


def _scale(name: str, value, upper: float = SCALE_MAX) -> float:
    """A positive physical scale: a finite real in [1.18e-38, ``upper``] (the working range), by name."""
    value = check_positive(name, value)
    if not WORKING_MIN <= value <= upper:
        raise ValueError(f"{name} must lie in [{WORKING_MIN:.4g}, {upper:.4g}], got {value!r}")
    return value


def _check_products(scales: dict[str, float], *arrays: np.ndarray) -> None:
    """The data a factory builds from its scales (samples in their dtype, constraint data) inside the working
    range, else a ValueError naming the scales: cross_gain = 1e38 (inside the range) failed as "linear.A has
    an entry of magnitude 5.4e+38", a name the caller never gave."""
    largest = max(float(np.max(np.abs(a))) if np.size(a) else 0.0 for a in arrays)
    if not largest <= WORKING_MAX:   # inf too (a float32 sample that overflowed)
        shown = ", ".join(f"{k} = {v!r}" for k, v in scales.items())
        raise ValueError(f"{shown}: the problem's data built from them reach {largest:.4g}, outside the "
                         f"package's working range (at most {WORKING_MAX:.4g}); use smaller scales")


def _fits(owner: str, sizes: dict, n_bytes: float) -> None:
    """Refuse a size whose arrays (and SLSQP's dense n × n matrices) exceed this machine's memory, naming the
    largest of ``sizes`` (n = 10**9 drew 8 GB of random numbers before failing: a hang)."""
    name = max(sizes, key=lambda k: sizes[k])
    check_fits_memory(owner, name, sizes[name], n_bytes)


def _sample_count(n_samples: int, rho: float) -> int:
    n_samples = check_positive_int("n_samples", n_samples)
    need = min_samples(rho)
    if n_samples < need:
        raise ValueError(f"n_samples={n_samples} is too few: rho={rho:g} needs at least {need} (⌈1/rho⌉)")
    return n_samples


def _training_rng(seed: int) -> np.random.Generator:
    """The stream of the training samples: never the stream ``default_rng(k)`` of fresh samples."""
    return np.random.default_rng([check_seed(seed), 7919])


def _soc_optimum(cost: np.ndarray, constraint, bounds, x0: np.ndarray, scale: float = 1.0) -> float:
    """min costᵀx s.t. constraint(x) >= 0 (every entry) on a box, by SLSQP from a feasible start (a convex
    SOC), solved for u = x / ``scale`` with the constraint divided by ``scale`` (a constraint homogeneous in
    its limit: the portfolio's x and values shrink with var_limit, and SLSQP's absolute tolerances then
    stopped 4e-5 off, infeasible by 10 % of var_limit = 1e-6).

    SLSQP can stop on a line-search failure within 1e-10 of the optimum (status 8); we restart
    once from where it stopped and accept a feasible answer of either status."""
    def scaled(u):
        return np.atleast_1d(constraint(u * scale)) / scale

    u = x0 / scale
    unit_bounds = [(lo / scale, hi / scale) for lo, hi in bounds]
    for _ in range(2):
        result = scipy.optimize.minimize(
            lambda u: cost @ u,
            u,
            jac=lambda u: cost,
            method="SLSQP",
            bounds=unit_bounds,
            constraints=[{"type": "ineq", "fun": scaled}],
            options={"ftol": 1e-12, "maxiter": 500},
        )
        u = result.x
        if result.success:
            break
    if result.status not in (0, 8) or np.min(scaled(result.x)) < -1e-7:   # a ValueError: the arguments did
        raise ValueError(f"the SOC reference (known_optimum) did not converge for these arguments: "
                         f"{result.message}")
    return float(result.fun) * scale


# f, g and the samplers of the test problems: module-level functions bound with functools.partial (not
# closures), so the problems and the solutions that hold them pickle
def _tensor(name: str, value, width: int | None, rows: str) -> torch.Tensor:
    """A problem callable's argument: a real floating torch tensor of shape (k, width) (a numpy array met
    torch's "to() received an invalid combination", a short x a "size mismatch" naming neither)."""
    width_text = "n" if width is None else width
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        raise TypeError(f"{name} must be a real floating torch tensor of shape ({rows}, {width_text}), got "
                        f"{type(value).__name__} {getattr(value, 'dtype', '')}")
    if value.ndim != 2 or (width is not None and value.shape[1] != width):
        raise ValueError(f"{name} must have shape ({rows}, {width_text}), got {tuple(value.shape)}")
    return value


def _frozen(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Read-only float64 copies of the data a problem's f, g or sampler is bound to: the partials' ``args``
    are reachable (``problem.f.args[0][0] = 100`` changed f while ``problem.linear`` kept the old cost, and a
    linear solve answered the old LP as Success); a tensor cannot be made read-only, so f/g build theirs from
    these per call."""
    out = []
    for array in arrays:
        array = np.array(array, dtype=np.float64)
        array.flags.writeable = False
        out.append(array)
    return tuple(out)


def _draw_args(generator, count) -> int:
    """A sampler's arguments: a numpy Generator and a count >= 0 (a str met "'str' object has no attribute
    'standard_normal'", -1 numpy's "negative dimensions")."""
    check_generator("rng", generator)
    return check_int_at_least("k", count, 0)


def _linear_cost(cost: np.ndarray, x: torch.Tensor) -> torch.Tensor:
    return _tensor("x", x, cost.shape[0], "batch") @ torch.tensor(cost, dtype=x.dtype)


def _lg_constraint(d: float, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    x = _tensor("x", x, None, "batch")
    return d - x @ _tensor("h", c, x.shape[1], "L").T


def _shifted_normal(mean: np.ndarray, generator: np.random.Generator, count: int) -> np.ndarray:
    count = _draw_args(generator, count)
    return mean + generator.standard_normal((count, mean.shape[0]))


def _negative_return(mu: np.ndarray, x: torch.Tensor) -> torch.Tensor:
    return -(_tensor("x", x, mu.shape[0], "batch") @ torch.tensor(mu, dtype=x.dtype))


def _portfolio_constraint(var_limit: float, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    x = _tensor("x", x, None, "batch")
    loss_row = x @ _tensor("h", r, x.shape[1], "L").T + var_limit
    budget_row = (1.0 - x.sum(dim=1, keepdim=True)).expand_as(loss_row)
    return torch.stack([loss_row, budget_row], dim=2)


def _correlated_normal(mu: np.ndarray, chol: np.ndarray, generator: np.random.Generator, count: int
                       ) -> np.ndarray:
    count = _draw_args(generator, count)
    return mu + generator.standard_normal((count, mu.shape[0])) @ chol.T


def _row_sum(x: torch.Tensor) -> torch.Tensor:
    return _tensor("x", x, None, "batch").sum(dim=1)


def _power_constraint(K: int, sign: np.ndarray, gamma: float, noise: float, p: torch.Tensor,
                      h: torch.Tensor) -> torch.Tensor:
    p, h = _tensor("x", p, K, "batch"), _tensor("h", h, K * K, "L")
    gains = h.reshape(-1, K, K) * torch.tensor(sign, dtype=h.dtype)
    return torch.einsum("lij,bj->bli", gains, p) - gamma * noise


def _fading_gains(K: int, mean_gain: np.ndarray, generator: np.random.Generator, count: int) -> np.ndarray:
    count = _draw_args(generator, count)
    return (generator.exponential(1.0, size=(count, K, K)) * mean_gain).reshape(count, K * K)


def _beam_gains(K: int, Nt: int, beams: np.ndarray, sign: np.ndarray, h: torch.Tensor) -> torch.Tensor:
    """(L, K, 2K): sign · (hᵢᵀ beam_k)², the coefficient of x_k in user i's SINR row."""
    channels = h.reshape(-1, K, Nt)
    return (channels @ torch.tensor(beams, dtype=h.dtype).T) ** 2 * torch.tensor(sign, dtype=h.dtype)


def _beam_constraint(K: int, Nt: int, beams: np.ndarray, sign: np.ndarray, gamma: float, noise: float,
                     x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    x, h = _tensor("x", x, 2 * K, "batch"), _tensor("h", h, K * Nt, "L")
    return torch.einsum("lik,bk->bli", _beam_gains(K, Nt, beams, sign, h), x) - gamma * noise


def _perturbed_channels(h_bar: np.ndarray, csi_error: float, K: int, Nt: int, generator: np.random.Generator,
                        count: int) -> np.ndarray:
    count = _draw_args(generator, count)
    return (h_bar[None] + csi_error * generator.standard_normal((count, K, Nt))).reshape(count, K * Nt)


@allocates("n", "n_samples")
def linear_gaussian_problem(
    n: int = 8, *, rho: float = 0.1, n_samples: int = 1000, seed: int = 0, dtype=np.float64
) -> ChanceConstrainedProblem:
    """min bᵀx s.t. Prob[cᵀx <= d] >= 1 − rho, c ~ N(c̄, I), x ∈ [0, 1]^n (eq. (26)).

    ``dtype`` is numpy float32 or float64 (the problem's arrays). ``rho`` a real in (0, 1), the allowed
    violation probability (at least 1.18e-38; n_samples >= ⌈1/rho⌉ bounds it below in practice, a smaller
    rho refused naming both). ``n`` and ``n_samples`` positive ints
    (n_samples >= ⌈1/rho⌉; sizes whose samples or the reference SLSQP's n × n matrices exceed this
    machine's memory are refused by name).

    b ~ −U(0.5, 1.5), c̄ ~ U(0.5, 1.5), d = n/4 (drawn from ``seed``, an int in [0, 2**64):
    a seed, not a count, so 2**63 is valid); g(x, c) = d − cᵀx.

    >>> p = linear_gaussian_problem(n=4, n_samples=200, rho=0.1, seed=0)
    >>> p.h_samples.shape, round(p.known_optimum, 4) < 0
    ((200, 4), True)
    """
    dtype = check_float_dtype(dtype)
    n = check_positive_int("n", n)
    rho = check_rho(rho)
    n_samples = _sample_count(n_samples, rho)
    _fits("linear_gaussian_problem", {"n": n, "n_samples": n_samples},
          8.0 * n * (3 * n_samples + 4 * n + 10))
    rng = _training_rng(seed)
    b = -rng.uniform(0.5, 1.5, size=n)
    c_bar = rng.uniform(0.5, 1.5, size=n)
    d = n / 4.0
    samples = (c_bar + rng.standard_normal((n_samples, n))).astype(dtype)
    quantile = scipy.stats.norm.isf(rho)   # not ppf(1 - rho): 1 - rho rounds (rho = 1e-9: 1e-7 of the tail)
    optimum = _soc_optimum(
        b, lambda x: d - c_bar @ x - quantile * np.sqrt(x @ x + 1e-18), [(0.0, 1.0)] * n, np.full(n, 1e-3)
    )
    f = partial(_linear_cost, *_frozen(b))
    g = partial(_lg_constraint, float(d))
    sampler = partial(_shifted_normal, *_frozen(c_bar))

    linear = LinearStructure(cost=b, A=-samples.astype(np.float64)[:, None, :], b=np.full((n_samples, 1), d))
    return ChanceConstrainedProblem(
        f=f,
        g=g,
        h_samples=samples,
        rho=rho,
        lower=np.zeros(n, dtype),
        upper=np.ones(n, dtype),
        h_sampler=sampler,
        linear=linear,
        known_optimum=optimum,
    )


@allocates("n_assets", "n_samples")
def portfolio_var_problem(
    n_assets: int = 5,
    *,
    rho: float = 0.05,
    n_samples: int = 1000,
    var_limit: float = 0.1,
    seed: int = 0,
    dtype=np.float64,
) -> ChanceConstrainedProblem:
    """max μᵀx s.t. Prob[rᵀx >= −var_limit] >= 1 − rho, Σx <= 1, 0 <= x <= 1, r ~ N(μ, Σ).

    ``seed`` (int in [0, 2**64)) draws the scenarios; ``dtype`` is numpy float32 or float64; ``rho`` in
    (0, 1) (at least 1.18e-38), ``n_assets`` and ``n_samples`` ints >= 1 (n_samples >= ⌈1/rho⌉).

    Asset i (of k) has mean return 0.02 + 0.08 i/k and volatility 0.05 + 0.35 i/k, correlation 0.3:
    the riskier assets pay more. f(x) = −μᵀx; g = (rᵀx + var_limit, 1 − Σx). ``var_limit`` a float in
    [1e-6, 3.4e38] (a loss limit below 1e-6 of the budget leaves the SOC reference no room to converge:
    refused by name); sizes as :func:`linear_gaussian_problem`'s.

    >>> p = portfolio_var_problem(n_assets=3, n_samples=100, rho=0.1)
    >>> p.constraints(np.full((1, 3), 0.2), p.h_samples[:2]).shape
    (1, 2, 2)
    """
    dtype = check_float_dtype(dtype)
    k = check_positive_int("n_assets", n_assets)
    rho = check_rho(rho)
    n_samples = _sample_count(n_samples, rho)
    _fits("portfolio_var_problem", {"n_assets": k, "n_samples": n_samples},
          8.0 * k * (5 * n_samples + 6 * k + 10))
    var_limit = check_positive("var_limit", var_limit)
    if not 1e-6 <= var_limit <= SCALE_MAX:   # 5e-324: the SOC reference's RuntimeError named nothing
        raise ValueError(f"var_limit must lie in [1e-06, {SCALE_MAX:g}], got {var_limit!r}")
    rng = _training_rng(seed)
    ranks = np.arange(1, k + 1) / k
    mu = 0.02 + 0.08 * ranks
    vol = 0.05 + 0.35 * ranks
    cov = 0.3 * np.outer(vol, vol) + 0.7 * np.diag(vol**2)
    chol = np.linalg.cholesky(cov)
    samples = (mu + rng.standard_normal((n_samples, k)) @ chol.T).astype(dtype)
    quantile = scipy.stats.norm.isf(rho)   # not ppf(1 - rho): 1 - rho rounds (rho = 1e-9: 1e-7 of the tail)

    scale = min(1.0, var_limit)

    def soc(x: np.ndarray) -> np.ndarray:
        # two smooth constraints (their min, one nonsmooth constraint, stopped SLSQP 4.7e-4 off; red14a); the
        # square root's guard at x = 0 in the scale's units (an absolute 1e-18 was 1e-7 of x·Σx at 1e-6)
        risk = np.sqrt(x @ cov @ x + 1e-18 * scale * scale)
        return np.array([mu @ x - quantile * risk + var_limit, 1.0 - x.sum()])

    optimum = _soc_optimum(-mu, soc, [(0.0, 1.0)] * k, np.full(k, 1e-3) * scale, scale)
    f = partial(_negative_return, *_frozen(mu))
    g = partial(_portfolio_constraint, var_limit)
    sampler = partial(_correlated_normal, *_frozen(mu, chol))

    A = np.stack([samples.astype(np.float64), np.broadcast_to(-np.ones(k), (n_samples, k))], axis=1)
    b = np.tile([var_limit, 1.0], (n_samples, 1))
    return ChanceConstrainedProblem(
        f=f,
        g=g,
        h_samples=samples,
        rho=rho,
        lower=np.zeros(k, dtype),
        upper=np.ones(k, dtype),
        h_sampler=sampler,
        linear=LinearStructure(cost=-mu, A=A, b=b),
        known_optimum=optimum,
    )


@allocates("n_users", "n_samples")
def power_control_problem(
    n_users: int = 3,
    *,
    rho: float = 0.1,
    n_samples: int = 1000,
    sinr_target: float = 1.0,
    noise: float = 0.1,
    cross_gain: float = 0.01,
    p_max: float = 50.0,
    seed: int = 0,
    dtype=np.float64,
) -> ChanceConstrainedProblem:
    """min Σp s.t. Prob[G_ii p_i − γ Σ_{j≠i} G_ij p_j − γσ² >= 0 for all i] >= 1 − rho, 0 <= p <= p_max.

    ``sinr_target`` γ, ``noise`` σ², ``cross_gain`` and ``p_max`` are finite floats > 0, ``rho`` in (0,
    1), ``n_users`` and ``n_samples`` ints >= 1 (n_samples >= ⌈1/rho⌉, else refused naming both);
    ``seed`` (int in [0, 2**64)) draws the scenarios; ``dtype`` is numpy float32 or float64.

    Rayleigh fading: G_ij ~ Exp(1) on the diagonal, Exp(cross_gain) off it; h is G flattened
    row-major (d = K²). ``sinr_target``, ``noise``, ``cross_gain``, ``p_max`` floats in [1.18e-38, 3.4e38]
    (the working range), the data built from their products (γσ², γ·G) inside it too, else refused naming
    them; sizes refused by name past this machine's memory.

    >>> p = power_control_problem(n_users=2, n_samples=50, rho=0.1)
    >>> p.h_samples.shape
    (50, 4)
    """
    dtype = check_float_dtype(dtype)
    K = check_positive_int("n_users", n_users)
    rho = check_rho(rho)
    n_samples = _sample_count(n_samples, rho)
    _fits("power_control_problem", {"n_users": K, "n_samples": n_samples},
          8.0 * K * K * (4 * n_samples + 10))
    gamma = _scale("sinr_target", sinr_target)
    noise = _scale("noise", noise)
    cross_gain = _scale("cross_gain", cross_gain)
    p_max = _scale("p_max", p_max)
    mean_gain = np.full((K, K), cross_gain)
    np.fill_diagonal(mean_gain, 1.0)
    rng = _training_rng(seed)
    samples = (rng.exponential(1.0, size=(n_samples, K, K)) * mean_gain).reshape(n_samples, K * K)
    samples = samples.astype(dtype)
    sign = np.where(np.eye(K, dtype=bool), 1.0, -gamma)  # +G_ii p_i, −γ G_ij p_j
    f = _row_sum
    g = partial(_power_constraint, K, *_frozen(sign), gamma, noise)
    sampler = partial(_fading_gains, K, *_frozen(mean_gain))

    A = samples.astype(np.float64).reshape(n_samples, K, K) * sign
    b = np.full((n_samples, K), -gamma * noise)
    _check_products({"sinr_target": gamma, "noise": noise, "cross_gain": cross_gain}, samples, A, b)
    return ChanceConstrainedProblem(
        f=f,
        g=g,
        h_samples=samples,
        rho=rho,
        lower=np.zeros(K, dtype),
        upper=np.full(K, p_max, dtype),
        h_sampler=sampler,
        linear=LinearStructure(cost=np.ones(K), A=A, b=b),
    )


@allocates("n_antennas", "n_users", "n_samples")
def beamforming_problem(
    n_antennas: int = 3,
    n_users: int = 2,
    *,
    rho: float = 0.1,
    n_samples: int = 1000,
    rate_target: float = 1.0,
    noise: float = 1.0,
    csi_error: float = 0.3,
    p_max: float = 3.0,
    seed: int = 0,
    dtype=np.float64,
) -> ChanceConstrainedProblem:
    """Outage-constrained multiuser downlink transmit design, a real-valued restriction of eq. (27).

    ``rate_target``, ``noise``, ``csi_error`` (the CSI error's standard deviation) and ``p_max`` are
    finite floats > 0, ``rho`` in (0, 1), ``n_users`` <= ``n_antennas`` ints >= 1, ``n_samples`` an int
    >= ⌈1/rho⌉ (fewer refused naming both); ``seed`` (int in [0, 2**64)) draws the channels; ``dtype`` is
    numpy float32 or float64.

    The paper's problem (27) (after Wang et al. 2014) designs signal covariances S_i ⪰ 0 of K
    users at an N_t-antenna base station, minimising the total power Σ tr S_i subject to each
    user's rate log₂(1 + SINR_i) >= r_i with probability >= 1 − ρ, where the channel
    h_i = h̄_i + e_i has a Gaussian CSI error e_i. Here, so that the problem is linear in x for each
    channel draw (SAA-MILP, CVaR and scenario apply):

    * real channels: h̄_i ~ N(0, I_Nt) (drawn from ``seed``), e_i ~ N(0, csi_error² I_Nt);
    * S_i restricted to the cone spanned by two fixed rank-one beams of user i, its nominal
      maximum-ratio direction u_i = h̄_i/‖h̄_i‖ and zero-forcing direction v_i (column i of
      H̄ᵀ(H̄H̄ᵀ)⁻¹, normalised): S_i = p_i u_iu_iᵀ + q_i v_iv_iᵀ, x = (p, q) ∈ [0, p_max]^{2K}, so
      S_i ⪰ 0 holds by construction and tr S_i = p_i + q_i;
    * the SINR_i >= γ = 2^{rate_target} − 1 constraints of all users held *jointly*
      (Wang et al. and Table 2 hold one chance constraint per user):
      hᵢᵀS_ihᵢ − γ Σ_{j≠i} hᵢᵀS_jhᵢ − γσ² >= 0 for every i, σ² = ``noise``.

    h is the K×N_t channel matrix flattened row-major (d = K·N_t). ``noise``, ``csi_error``, ``p_max``
    floats in [1.18e-38, 3.4e38] and ``rate_target`` in [1.18e-38, 120] bits, each with the data built
    from them (γσ², the gains times γ) inside the working range too, else refused naming them; sizes
    refused by name past this machine's memory.

    >>> p = beamforming_problem(n_antennas=3, n_users=2, n_samples=50, rho=0.1)
    >>> p.h_samples.shape, p.n
    ((50, 6), 4)
    """
    dtype = check_float_dtype(dtype)
    Nt = check_positive_int("n_antennas", n_antennas)
    K = check_positive_int("n_users", n_users)
    if K > Nt:
        raise ValueError(f"n_users must be <= n_antennas (zero-forcing needs K <= Nt), got {K} > {Nt}")
    rho = check_rho(rho)
    n_samples = _sample_count(n_samples, rho)
    _fits("beamforming_problem", {"n_antennas": Nt, "n_users": K, "n_samples": n_samples},
          8.0 * K * (Nt + 2 * K) * (4 * n_samples + 10))
    # γ = 2^rate − 1 times the gains passes 3.4e38 near 126 bits, whatever the other scales (300 was stated)
    rate = _scale("rate_target", rate_target, 120.0)
    noise = _scale("noise", noise)
    csi_error = _scale("csi_error", csi_error)
    p_max = _scale("p_max", p_max)
    gamma = 2.0**rate - 1.0
    rng = _training_rng(seed)
    h_bar = rng.standard_normal((K, Nt))
    mrt = h_bar / np.linalg.norm(h_bar, axis=1, keepdims=True)
    zf = np.linalg.pinv(h_bar).T  # row i: h̄_jᵀ zf_i = δ_ij
    zf = zf / np.linalg.norm(zf, axis=1, keepdims=True)
    beams = np.concatenate([mrt, zf], axis=0)  # (2K, Nt): x_k drives beams[k] for user k mod K
    owner = np.tile(np.arange(K), 2)
    sign = np.where(owner[None, :] == np.arange(K)[:, None], 1.0, -gamma)  # (K users, 2K beams)
    samples = (h_bar[None] + csi_error * rng.standard_normal((n_samples, K, Nt))).reshape(n_samples, K * Nt)
    samples = samples.astype(dtype)
    beams, sign = _frozen(beams, sign)
    f = _row_sum
    g = partial(_beam_constraint, K, Nt, beams, sign, gamma, noise)
    sampler = partial(_perturbed_channels, *_frozen(h_bar), csi_error, K, Nt)
    _check_products({"rate_target": rate, "noise": noise, "csi_error": csi_error}, samples)
    A = _beam_gains(K, Nt, beams, sign, torch.as_tensor(samples, dtype=torch.float64)).numpy()
    b = np.full((n_samples, K), -gamma * noise)
    _check_products({"rate_target": rate, "noise": noise, "csi_error": csi_error}, A, b)
    return ChanceConstrainedProblem(
        f=f,
        g=g,
        h_samples=samples,
        rho=rho,
        lower=np.zeros(2 * K, dtype),
        upper=np.full(2 * K, p_max, dtype),
        h_sampler=sampler,
        linear=LinearStructure(cost=np.ones(2 * K), A=A, b=b),
    )
