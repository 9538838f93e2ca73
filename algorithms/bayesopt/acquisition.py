"""Expected improvement, probability of feasibility and their product, CEI, with stable logs.

For minimization with incumbent f⁺ (the best *feasible* observation), z = (f⁺ − μ)/σ and
τ(z) = zΦ(z) + φ(z):

    EI(x)  = σ τ(z) = (f⁺ − μ)Φ(z) + σφ(z)            (eq. (4))
    PoF(x) = Πⱼ Φ(−μ_cⱼ/σ_cⱼ)                          (feasibility c ≤ 0, independent GPs)
    CEI(x) = EI(x) · PoF(x)                              (eq. (7); Remark 3.13 for m constraints)

The log forms are what the acquisition optimizer climbs: log τ(z) is computed as log τ(z)
directly for z > −1, as log φ(z) + log(1 + z·Φ(z)/φ(z)) with the scaled complementary error
function for −10⁴ < z ≤ −1 (the ratio Φ/φ = √(π/2)·erfcx(−z/√2) never underflows), and by its
asymptote log φ(z) − 2 log|z| below; log Φ is ``scipy.special.log_ndtr``. Where σ = 0 the
posterior is a point mass: EI = (f⁺ − μ)₊ and PoF = 1{μ_c ≤ 0}.

References
----------
D. R. Jones, M. Schonlau, W. J. Welch. Efficient global optimization of expensive black-box
functions. J. Global Optim. 13 (1998). J. R. Gardner et al. Bayesian optimization with inequality
constraints. ICML 2014. H. Wang et al. arXiv:2505.11323, eqs. (4), (7), Remark 3.13.
"""

from __future__ import annotations

import numpy as np
from scipy.special import erfcx, log_ndtr, ndtr

from algorithms._validation import as_float_array, user_range

__all__ = [
    "constrained_ei",
    "expected_improvement",
    "log_constrained_ei",
    "log_expected_improvement",
    "log_probability_of_feasibility",
    "probability_of_feasibility",
]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
#: the largest standard deviation taken: its square (the variance) stays a float64
SIGMA_MAX = 1e154


def _pair(name_mu: str, mu, name_sigma: str, sigma) -> tuple[np.ndarray, np.ndarray]:
    # a caller's arrays are held to the working range; a run's own posterior (CEI's GPs on f near 3.4e38,
    # whose mean overshoots to 3.6e38) is not: it was refused naming mu_f, an argument no user passed
    mu = as_float_array(name_mu, mu, dtype=np.float64, check_range=user_range())
    sigma = as_float_array(name_sigma, sigma, dtype=np.float64, check_range=user_range())
    if mu.shape != sigma.shape:
        raise ValueError(
            f"{name_mu} and {name_sigma} must have the same shape, got {mu.shape} and {sigma.shape}"
        )
    if np.any(sigma < 0):
        raise ValueError(f"{name_sigma} must be >= 0 (a standard deviation), got min {sigma.min():.3g}")
    if np.any(sigma > SIGMA_MAX):   # 1e300: a standard deviation whose variance is no float64
        raise ValueError(f"{name_sigma} must be <= {SIGMA_MAX:g} (a standard deviation whose square, the "
                         f"variance, is a float64), got max {sigma.max():.3g}")
    return mu, sigma


def _check_standardized(z: np.ndarray, names: str) -> None:
    """A negative z = (best − μ)/σ (or −μ_c/σ_c) whose square overflows: the log forms' −z²/2 became −inf,
    a log acquisition of −inf (EI = 0) answered in silence for values 1e300 off the incumbent. An infinite z
    (a subnormal σ) is the point mass the callers handle."""
    with np.errstate(over="ignore", invalid="ignore"):
        bad = np.isfinite(z) & (z < 0) & ~np.isfinite(z * z)   # a large positive z is log z, harmless
    if np.any(bad):
        raise ValueError(f"{names} is too large in magnitude ({float(np.abs(z[bad]).max()):.3g} standard "
                         f"deviations): its square overflows the log form; rescale the values")


def _log_tau(z: np.ndarray) -> np.ndarray:
    """log(zΦ(z) + φ(z)), accurate for every real z."""
    out = np.empty_like(z)
    upper = z > -1.0
    out[upper] = np.log(z[upper] * ndtr(z[upper]) + np.exp(-0.5 * z[upper] ** 2 - _LOG_SQRT_2PI))
    mid = (z <= -1.0) & (z > -1e4)
    zm = z[mid]
    log_phi = -0.5 * zm**2 - _LOG_SQRT_2PI
    out[mid] = log_phi + np.log1p(zm * np.sqrt(np.pi / 2.0) * erfcx(-zm / np.sqrt(2.0)))
    low = z <= -1e4
    zl = z[low]
    out[low] = -0.5 * zl**2 - _LOG_SQRT_2PI - 2.0 * np.log(-zl)
    return out


def log_expected_improvement(mu, sigma, best) -> np.ndarray:
    """log EI for minimization below ``best``, elementwise (−inf where EI is exactly 0).

    ``mu`` and ``sigma`` are the posterior means and standard deviations, finite arrays of one shape with
    ``sigma`` in [0, 3.4e38] (0: a point mass, EI = max(best − μ, 0)), every entry inside the working range;
    ``best`` a finite float; (best − μ)/σ must have a finite square (about 1.3e154 standard
    deviations at most: the log form's −z²/2 would be −inf).

    >>> float(np.round(log_expected_improvement(np.array([60.0]), np.array([1.0]), 0.0)[0], 2))
    -1809.11
    """
    return _log_ei(mu, sigma, best, ("mu", "sigma", "best"))


def _log_ei(mu, sigma, best, names: tuple[str, str, str]) -> np.ndarray:
    """log EI with errors naming the caller's arguments (``constrained_ei`` passes ``mu_f``, ...)."""
    mu, sigma = _pair(names[0], mu, names[1], sigma)
    best = float(as_float_array(names[2], best, ndim=0, check_range=user_range()))
    with np.errstate(over="ignore"):
        gap = best - mu
    if not np.all(np.isfinite(gap)):   # best = 1e308, mu = -1e308: EI came back inf from finite inputs
        raise ValueError(f"{names[2]} - {names[0]} overflows float64 ({names[2]} = {best!r}, {names[0]} from "
                         f"{float(mu.min()):.3g} to {float(mu.max()):.3g}); rescale f")
    out = np.empty_like(mu)
    with np.errstate(divide="ignore", over="ignore"):
        # a subnormal sigma (5e-324) made gap / sigma inf and EI inf: the posterior is a point mass there too
        certain = (sigma <= 0) | ~np.isfinite(gap / np.where(sigma > 0, sigma, 1.0))
    with np.errstate(divide="ignore"):
        out[certain] = np.log(np.maximum(gap[certain], 0.0))
    pos = ~certain
    z = gap[pos] / sigma[pos]
    _check_standardized(z, f"({names[2]} - {names[0]}) / {names[1]}")
    out[pos] = np.log(sigma[pos]) + _log_tau(z)
    return out


def expected_improvement(mu, sigma, best) -> np.ndarray:
    """EI = (best − μ)Φ(z) + σφ(z), z = (best − μ)/σ, elementwise.

    ``mu`` and ``sigma`` (>= 0) arrays of one shape, ``best`` a finite real number; all finite, and
    best − mu and EI itself within float64 (an overflow is refused by name; the log form goes further).

    >>> float(np.round(expected_improvement(np.array([0.0]), np.array([1.0]), 0.0)[0], 6))
    0.398942
    """
    return _exp("EI", log_expected_improvement(mu, sigma, best))


def _exp(what: str, log_values: np.ndarray) -> np.ndarray:
    """exp of a log acquisition, refused by name where it overflows float64 (its log, finite, does not)."""
    with np.errstate(over="ignore"):
        values = np.exp(log_values)
    if np.any(np.isinf(values)):   # best and sigma near 1e308: EI = σ τ(z) overflowed to inf in silence
        raise ValueError(f"{what} overflows float64 (log {what} up to {float(np.max(log_values)):.6g}); use "
                         f"the log form or rescale f")
    return values


def log_probability_of_feasibility(mu_c, sigma_c) -> np.ndarray:
    """Σⱼ log Φ(−μ_cⱼ/σ_cⱼ): ``mu_c``, ``sigma_c`` of shape (n,) (one constraint) or (n, m).

    Both finite arrays with entries of magnitude at most 3.4e38 (the working range), ``sigma_c`` >= 0 (0: a
    point mass, log 1 = 0 where μ_c <= 0 and −inf where μ_c > 0; 1e-39 is a valid tiny deviation).

    >>> float(np.round(log_probability_of_feasibility(np.array([0.0]), np.array([2.0]))[0], 6))
    -0.693147
    """
    mu_c, sigma_c = _pair("mu_c", mu_c, "sigma_c", sigma_c)
    if mu_c.ndim not in (1, 2):  # a 3-d array summed over its last axis only gave an (n, k) answer
        raise ValueError(f"mu_c must have shape (n,) or (n, m), got {mu_c.shape}")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        u = np.where(sigma_c > 0, -mu_c / np.where(sigma_c > 0, sigma_c, 1.0), 0.0)
    _check_standardized(u, "mu_c / sigma_c")
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.where(sigma_c > 0, log_ndtr(u), np.where(mu_c <= 0, 0.0, -np.inf))
    return per if per.ndim == 1 else per.sum(axis=-1)


def probability_of_feasibility(mu_c, sigma_c) -> np.ndarray:
    """Πⱼ Φ(−μ_cⱼ/σ_cⱼ), the posterior probability that every constraint is <= 0.

    ``mu_c`` and ``sigma_c``: the constraints' posterior means and standard deviations, finite arrays of
    one shape (n,) or (n, m), ``sigma_c`` >= 0 (0: feasible iff μ_c <= 0); m = 0 columns give 1 (the
    empty product: no constraint). Every acquisition here computes in float64 (float32, int or tensor
    inputs are converted; the result is a float64 array).

    >>> probability_of_feasibility(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]))
    array([0.25])
    """
    return np.exp(log_probability_of_feasibility(mu_c, sigma_c))


def _rows(mu_f: np.ndarray, mu_c: np.ndarray) -> None:
    if mu_f.ndim != 1:
        raise ValueError(f"mu_f must have shape (n,), got {mu_f.shape}")
    if mu_c.shape[0] != mu_f.shape[0]:
        raise ValueError(f"mu_c must have {mu_f.shape[0]} rows like mu_f, got shape {mu_c.shape}")


def log_constrained_ei(mu_f, sigma_f, mu_c, sigma_c, best_feasible) -> np.ndarray:
    """log CEI = log EI + log PoF, vectorized over the n points (−inf where CEI is 0).

    ``mu_f``, ``sigma_f`` (n,): the objective's posterior means and standard deviations; ``mu_c``,
    ``sigma_c`` (n,) or (n, m): the constraints'; all finite, standard deviations >= 0; ``best_feasible``
    (a finite float) is the best feasible value observed.

    >>> v = log_constrained_ei(np.array([0.0]), np.array([1.0]), np.array([0.0]), np.array([1.0]), 0.0)
    >>> bool(np.isclose(v[0], np.log(0.398942 * 0.5), atol=1e-6))
    True
    """
    log_ei = _log_ei(mu_f, sigma_f, best_feasible, ("mu_f", "sigma_f", "best_feasible"))
    log_pof = log_probability_of_feasibility(mu_c, sigma_c)
    _rows(log_ei, log_pof)
    return log_ei + log_pof


def constrained_ei(mu_f, sigma_f, mu_c, sigma_c, best_feasible) -> np.ndarray:
    """CEI = EI_f · PoF for minimizing f subject to c <= 0 (one or m constraints), elementwise.

    ``mu_f``, ``sigma_f`` (n,): the objective's posterior means and standard deviations; ``mu_c``,
    ``sigma_c`` (n,) or (n, m): the constraints'; all finite, standard deviations >= 0; ``best_feasible``
    (a finite float) is the best feasible value observed.

    >>> constrained_ei(np.array([0.0, 5.0]), np.array([1.0, 1e-3]), np.array([-3.0, 0.0]),
    ...                np.array([1.0, 1.0]), 0.0).round(4)
    array([0.3984, 0.    ])
    """
    return _exp("CEI", log_constrained_ei(mu_f, sigma_f, mu_c, sigma_c, best_feasible))
