"""LCD2: project onto the localization set of the lower model (a Polyak step with curvature).

With Δ = f(x_k) − f* and g = ∇f(x_k), the localization set (Section 3.2)

    𝓛(x_k) = {x : f(x_k) + ⟨g, x − x_k⟩ + ½‖x − x_k‖²_{C(x_k)} <= f*}

contains every minimizer (by the lower bound of Assumption 2.1). LCD2 moves to the
Euclidean projection of x_k onto it. The KKT conditions give (Appendix C.1)

    x_{k+1} = x_k − λ (I + λ C)⁻¹ g = x_k − (C + β I)⁻¹ g,    β = 1/λ,

where the multiplier λ > 0 is the root of the scalar equation that makes the constraint
tight. In an eigenbasis C = Q diag(D) Qᵀ, ĝ = Qᵀg, it reads

    h(λ) = Δ − Σᵢ ĝᵢ² λ(2 + λDᵢ) / (2(1 + λDᵢ)²) = 0,

h is decreasing and convex on [0, ∞) with h(0) = Δ > 0, and the root is >= Δ/‖g‖² (the
Polyak multiplier, exact when C = 0). When h stays >= 0 up to λ = ∞ (the equality case of
Lemma E.5, e.g. a quadratic with C = ∇²f) the step is the Newton step C⁺g. We bracket the
root by doubling from Δ/‖g‖² and refine with Brent's method.
Theorem 4.2: the iterates satisfy min_{1<=t<=k} f(x_t) − f* <= L_C‖x_0 − x*‖²/(2k) (the proof
bounds the average of f(x_1), ..., f(x_k) − f* by the same quantity).

References
----------
P. Richtárik, S. M. Giancola, D. Lubczyk, R. Yadav. Local Curvature Descent: Squeezing More
Curvature out of Standard and Polyak GD. NeurIPS 2025, arXiv:2405.16574.

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.curvature import LCD2, squared_huber
>>> A = np.array([[1.0, 0.5], [0.0, 1.0], [1.0, -1.0]])
>>> prob = squared_huber(A, A @ np.array([1.0, -2.0]), delta=0.5)
>>> sol = solve(prob, LCD2(), maxiters=200, tol=1e-12)
>>> sol.retcode, np.round(sol.x, 3).tolist()
(<RetCode.Success: 'Success'>, [1.0, -2.0])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.optimize

from algorithms._validation import (
    WORKING_MAX,
    as_float_array,
    check_positive,
    refuse_text_entries,
    run_values,
    user_range,
)
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.curvature.problem import (
    CurvatureProblem,
    check_caller_range,
    check_finite_real,
    check_scalar_or_symbolic,
    check_step_inputs,
    eig_curvature,
    from_eigenbasis,
    is_number,
    is_symbolic,
    run_descent,
    step_scalar,
)

__all__ = ["LCD2", "lcd2_coefficients", "lcd2_gap", "lcd2_multiplier", "lcd2_step"]

#: eigenvalues of C below this fraction of the largest are treated as zero
_RANK_RTOL = 1e-12
#: gradient components along zero eigenvalues below this fraction of ‖g‖ are rounding noise
_NULL_RTOL = 1e-10
#: h(∞) >= −_INF_RTOL·Δ counts as the equality case (root at infinity, Newton step)
_INF_RTOL = 1e-12


def _step_array(name: str, value: Any) -> np.ndarray:
    """``value`` as an ndarray: a numpy object array (of sympy symbols) or a sympy object as it is, anything
    else through ``as_float_array`` (a tensor with grad, a meta tensor, an object whose ``__array__`` raises
    are refused by name there, not inside numpy or torch)."""
    if is_symbolic(value):
        return np.asarray(value, dtype=object)
    if isinstance(value, np.ndarray) and value.dtype == object:
        if any(is_symbolic(v) for v in value.flat):
            return value
        refuse_text_entries(name, value)   # "0.5" was parsed as a number by astype
        try:  # numbers held as objects (np.array([0.0, 10**100])): checked as numbers, 1e100 was taken
            value = value.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            return value  # a str or None entry: refused by name by the helper's own entry check
    return as_float_array(name, value, dtype=np.float64, check_range=user_range())


def _eigen_data(ghat: Any, D: Any) -> tuple[np.ndarray, np.ndarray]:
    """``ĝ`` and ``D`` as 1-D arrays of one shape (numeric: finite, D >= 0; object: sympy)."""
    ghat, D = _step_array("ghat", ghat), _step_array("D", D)
    numeric = [a.dtype != object for a in (ghat, D)]
    if all(numeric):  # a run's own (scaled) ĝ and D may pass the working range (run_values)
        ghat = as_float_array("ghat", ghat, ndim=1, dtype=np.float64, check_range=user_range())
        D = as_float_array("D", D, ndim=1, dtype=np.float64, check_range=user_range())
        if np.any(D < 0):
            raise ValueError(f"D (the eigenvalues of C) must be >= 0, got min(D) = {D.min()!r}")
    elif ghat.ndim != 1:
        raise ValueError(f"ghat must be 1-dimensional, got shape {ghat.shape}")
    if D.shape != ghat.shape:
        raise ValueError(f"D must have the shape of ghat {ghat.shape}, got {D.shape}")
    return ghat, D


def _check_multiplier(lam: Any) -> Any:
    check_scalar_or_symbolic("lam", lam)  # a str, a bool, None, a Decimal: by name, not inside numpy
    lam = step_scalar("lam", lam, ">= 0")  # 10**400 (float's OverflowError)
    if is_number(lam) and not lam >= 0:  # also rejects NaN; λ = ∞ is the Newton limit
        raise ValueError(f"lam must be >= 0, got {lam!r}")
    return lam


def _stable_gap(delta: float, ghat: np.ndarray, D: np.ndarray):
    """h(λ) = Δ − Σ terms (:func:`_gap_terms`) for the root finder, without the cancellation near the Newton
    limit: where the terms pass half of S = Σ_{Dᵢ>0} ĝᵢ²/(2Dᵢ) it is evaluated as
    (Δ − S) + Σ ĝᵢ²/(2Dᵢ(1 + λDᵢ)²) − λ Σ_{Dᵢ=0} ĝᵢ² (each term's remainder to its limit): Δ − Σ terms
    lost the root's digits there (Δ = ½ − 1e-10, ĝ = D = 1: a root of 70709.67862 for 70709.67519; red18b)."""
    pos = D > 0
    with np.errstate(over="ignore", divide="ignore"):
        halves = ghat[pos] ** 2 / (2.0 * D[pos])
    S = float(halves.sum())
    base = _newton_gap(delta, ghat, D, S)
    g0 = float(np.sum(ghat[~pos] ** 2))

    def h(lam: float) -> float:
        total = float(_gap_terms(lam, ghat, D).sum())
        if not (math.isfinite(S) and math.isfinite(lam)) or total <= 0.5 * S:
            return delta - total  # far from the limit: the direct sum has no cancellation
        with np.errstate(over="ignore", under="ignore"):
            rest = float(np.sum(halves / (1.0 + lam * D[pos]) ** 2))
        return base + rest - lam * g0

    return h


def _newton_gap(delta: float, ghat: np.ndarray, D: np.ndarray, S: float) -> float:
    """h(∞) = Δ − S, S = Σ_{Dᵢ>0} ĝᵢ²/(2Dᵢ) (``S`` its float sum), rounded once from the float inputs where
    the two cancel: Δ − S in floats kept S's rounding, eps·S, which near the Newton limit is most of Δ − S,
    and the root moved with it (Δ = 526089149.57422096, ĝ = −11179964.864252875, D = 118793.18777160316: λ
    1.5e-8 off, rtol 1e-13)."""
    base = delta - S
    if not (math.isfinite(S) and abs(base) < 0.25 * S):
        return base
    exact = Fraction(delta)
    for g, d in zip(ghat.tolist(), D.tolist(), strict=True):
        if d > 0 and g:
            exact -= Fraction(g) ** 2 / (2 * Fraction(d))
    return float(exact)


def _gap_terms(lam: float, ghat: np.ndarray, D: np.ndarray) -> np.ndarray:
    """ĝᵢ² λ(2 + λDᵢ) / (2(1 + λDᵢ)²) in floats without overflow: ½ ĝᵢ² u (1 + r) with u = λ/(1 + λDᵢ) and
    r = 1/(1 + λDᵢ); at λ = ∞ (the Newton limit) ĝᵢ²/(2Dᵢ), and ∞ where Dᵢ = 0 and ĝᵢ ≠ 0 (the direct
    formula gave NaN at λ = ∞ and from λ ≈ 1e154 on)."""
    pos = D > 0
    with np.errstate(invalid="ignore"):  # 0·∞ at λ = ∞ where ĝᵢ = 0: the np.where below drops it
        terms = np.where(ghat != 0, ghat * ghat * lam, 0.0)  # Dᵢ = 0: ĝᵢ²λ (0 where ĝᵢ = 0, also at λ = ∞)
    with np.errstate(over="ignore", divide="ignore"):
        r = 1.0 / (1.0 + lam * D[pos])
        if math.isinf(lam):
            u = 1.0 / D[pos]
        elif lam > 0 and math.isfinite(1.0 / lam):
            u = 1.0 / (1.0 / lam + D[pos])
        else:  # λ subnormal (1/λ overflowed to ∞ and u to 0, dropping the whole sum) or 0: λD is finite here
            u = lam / (1.0 + lam * D[pos])
    terms[pos] = 0.5 * ghat[pos] ** 2 * u * (1.0 + r)
    return terms


def lcd2_gap(lam: Any, delta: Any, ghat: Any, D: Any) -> Any:
    """The model value minus f* at the candidate point, as a function of the multiplier λ.

    ``lam`` is the multiplier λ >= 0 (any, subnormal and ``math.inf`` included: ∞ is the Newton limit
    ĝᵢ²/(2Dᵢ)), ``delta`` = f(x) − f*, ``ghat`` the gradient's coefficients in C's
    eigenbasis and ``D`` C's eigenvalues (>= 0), two 1-D arrays of one shape (a number is refused: ndim 0;
    numeric arrays are computed in float64: float32, float16 and integer entries are promoted; empty arrays
    are an empty sum, h = Δ).

    ``h(λ) = Δ − Σᵢ ĝᵢ² λ(2 + λDᵢ) / (2(1 + λDᵢ)²)``; elementwise arithmetic only, so it
    accepts numpy arrays and numpy object arrays of sympy symbols. Numeric inputs give h correct to float64
    rounding, also where the sum cancels Δ (h is then taken exactly from the float inputs and rounded once).

    >>> import numpy as np
    >>> float(lcd2_gap(0.5, 1.0, np.array([1.0, 1.0]), np.zeros(2)))   # Δ − λ‖g‖²
    0.0
    """
    ghat, D = _eigen_data(ghat, D)
    lam = _check_multiplier(lam)
    check_scalar_or_symbolic("delta", delta)
    delta = step_scalar("delta", delta, ">= 0")
    if is_number(delta) and check_finite_real("delta", delta) < 0:  # f(x) − f* < 0 answered a value
        raise ValueError(f"delta (= f(x) − f*) must be >= 0, got {delta!r}")
    if is_number(lam) and ghat.dtype != object and D.dtype != object:
        return _numeric_gap(float(lam), float(delta), ghat, D)
    terms = ghat**2 * lam * (2 + lam * D) / (2 * (1 + lam * D) ** 2)
    return delta - terms.sum()


def _numeric_gap(lam: float, delta: float, ghat: np.ndarray, D: np.ndarray) -> np.float64:
    """Δ − Σ terms correct to rounding: where the sum cancels Δ (|h| < 1/4 of it) the float terms' own
    rounding (each a few ulps of the sum) is past 1e-12 of h, so h is taken exactly from the float inputs
    (as fractions) and rounded once: Δ = 1e-30, λ = 1e-10, ĝ = 1e-10, D = 0 gave 0.0 for −2.6e-47."""
    terms = _gap_terms(lam, ghat, D)
    total = math.fsum(terms.tolist())
    value = delta - total
    if not math.isfinite(total) or abs(value) >= 0.25 * total:
        return np.float64(value)
    exact = Fraction(delta)
    for g, d in zip(ghat.tolist(), D.tolist(), strict=True):
        if not g:
            continue
        if math.isinf(lam):  # the Newton limit ĝᵢ²/(2Dᵢ) (total is finite: Dᵢ > 0 here)
            exact -= Fraction(g) ** 2 / (2 * Fraction(d))
        else:
            denom = 1 + Fraction(lam) * Fraction(d)
            exact -= Fraction(g) ** 2 * Fraction(lam) * (1 + denom) / (2 * denom * denom)
    return np.float64(float(exact))


def lcd2_coefficients(lam: Any, D: Any) -> Any:
    """Eigenbasis coefficients of the step: x⁺ = x − Q (λ/(1 + λDᵢ) · ĝᵢ)ᵢ.

    ``lam`` is the multiplier λ >= 0, a real number or a sympy expression (``math.inf``: the Newton
    limit 1/Dᵢ, ∞ where Dᵢ = 0) and ``D`` C's eigenvalues (>= 0), a number, an array (computed in float64:
    float32, float16 and integer entries are promoted; elementwise, so the result has ``D``'s shape, empty
    for an empty ``D``) or an object array of sympy expressions.

    >>> lcd2_coefficients(1.0, np.array([0.0, 1.0])).tolist()
    [1.0, 0.5]
    """
    lam = _check_multiplier(lam)
    D = D if is_symbolic(D) else _step_array("D", D)
    if isinstance(D, np.ndarray) and D.dtype == object:  # sympy entries pass; None or str are refused
        for entry in D.flat:
            check_scalar_or_symbolic("D", entry)
    if not is_symbolic(D) and D.dtype != object:
        D = as_float_array("D", D, dtype=np.float64)
        if np.any(D < 0):
            raise ValueError(f"D (the eigenvalues of C) must be >= 0, got min(D) = {D.min()!r}")
        if is_number(lam):
            return _coefficients(float(lam), D)
    return lam / (1 + lam * D)


def _coefficients(lam: float, D: np.ndarray) -> np.ndarray:
    """λ/(1 + λDᵢ) for a checked float64 ``D`` >= 0 and a float λ >= 0 of any size (the solver's own λ,
    which the public helper's working-range check must not refuse)."""
    if math.isinf(lam):  # the Newton limit λ → ∞: 1/Dᵢ (∞/∞ gave NaN)
        with np.errstate(divide="ignore"):
            return np.where(D > 0, 1.0 / np.where(D > 0, D, 1.0), math.inf)
    return lam / (1 + lam * D)


def lcd2_multiplier(delta: float, ghat: np.ndarray, D: np.ndarray, *, rtol: float = 1e-13) -> float:
    """The root λ of :func:`lcd2_gap` (``math.inf`` when h stays >= 0: the Newton step).

    ``D`` holds C's eigenvalues (finite, >= 0, the length of ``ghat``; both computed in float64, float32,
    float16 and integer entries promoted); ``rtol`` in (0, 1), at least 1.18e-38 (a positive scale), is the
    root's relative tolerance: the answer is the exact root of h for the float inputs to within about
    max(rtol, 1e-14) relative, also near the Newton limit (Δ just below ½ Σ ĝᵢ²/Dᵢ, where that difference is
    taken exactly from the inputs and rounded once).

    ``delta`` = f(x) − f* must be > 0 and ``ghat`` nonzero: at Δ > 0 and ĝ = 0 the localization
    set is empty and no multiplier exists (for convex f, ∇f = 0 means Δ = 0). A ``ghat`` whose ‖ĝ‖² underflows
    to 0 in float64 (every |ĝᵢ| below about 1e-162, e.g. ĝ = 5e-324) is refused naming ghat: the multiplier
    Δ/‖ĝ‖² overflows (:func:`lcd2_step` rescales such a gradient itself).

    The equality case is taken up to the rounding of Δ (an f(x) − f* computed in floats): where every ĝᵢ
    with Dᵢ = 0 is 0 and h(∞) = Δ − ½ Σ ĝᵢ²/Dᵢ >= −1e-12·Δ, ``math.inf`` is returned (the Newton step) even
    if a huge finite root exists (Δ = ½ − 1e-13 with ĝ = D = 1 has its root at 2.2e6).

    >>> import numpy as np
    >>> lcd2_multiplier(2.0, np.array([1.0, 1.0]), np.zeros(2))   # Polyak: Δ/‖g‖²
    1.0
    """
    # numbers only (a root is found numerically): an object array ('x', 0.1) met "can't multiply sequence"
    ghat = as_float_array("ghat", ghat, ndim=1, dtype=np.float64, check_range=user_range())
    D = as_float_array("D", D, ndim=1, dtype=np.float64, check_range=user_range())
    ghat, D = _eigen_data(ghat, D)
    if check_finite_real("delta", delta) <= 0:
        raise ValueError(f"delta (= f(x) − f*) must be > 0, got {delta!r}")
    check_caller_range("delta", delta)  # > 0: 1e-39 acted as the 0 it excludes
    if not np.any(ghat):
        raise ValueError("ghat must have a nonzero entry: with a zero gradient and delta > 0 the "
                         "localization set is empty and no multiplier exists")
    # a positive scale (>= 1.18e-38: 1e-39 acted as the 0 it excludes) below 1; a Fraction as its float
    if check_positive("rtol", rtol) >= 1:
        raise ValueError(f"rtol must be in (0, 1), got {rtol!r}")
    rtol = float(rtol)
    g2 = float(ghat @ ghat)
    if g2 == 0.0:  # ‖ĝ‖² underflowed (ĝ = 5e-324): Δ/‖ĝ‖² was a ZeroDivisionError
        raise ValueError(f"ghat is too small: ‖ghat‖² underflows to 0 (max |ghat_i| = "
                         f"{float(np.max(np.abs(ghat))):.3g}), so the multiplier Δ/‖ghat‖² overflows; "
                         f"rescale f (or the gradient)")
    lo = delta / g2
    if not np.any(D > 0):
        return lo
    pos = D > 0
    h = _stable_gap(delta, ghat, D)
    if not np.any(ghat[~pos]):
        # h decreases to h(∞) = Δ − ½ Σ ĝᵢ²/Dᵢ; when that is >= 0 up to rounding the root is at
        # infinity (equality case of Lemma E.5) and the step is the Newton step C⁺g.
        with np.errstate(over="ignore"):
            h_inf = _newton_gap(delta, ghat, D, float(np.sum(ghat[pos] ** 2 / (2.0 * D[pos]))))
        if h_inf >= -_INF_RTOL * delta:
            return math.inf
    if h(lo) <= 0:  # h(Δ/‖ĝ‖²) >= 0 exactly; below 0 only by rounding: the root is lo (brentq's sign error)
        return lo
    hi = 2.0 * lo
    for _ in range(200):
        if h(hi) < 0:
            break
        lo, hi = hi, 2.0 * hi
    else:
        return math.inf
    return float(scipy.optimize.brentq(h, lo, hi, rtol=rtol, xtol=1e-300, maxiter=500))


def lcd2_step(x: np.ndarray, g: np.ndarray, C: np.ndarray, delta: float) -> tuple[np.ndarray, dict]:
    """One LCD2 step from ``x`` with gradient ``g``, curvature ``C`` and ``Δ = f(x) − f*``.

    ``x`` and ``g`` are finite (d,) vectors (d >= 1) and ``C`` a symmetric PSD (d, d) matrix or a (d,)
    vector >= 0, all computed in float64 (float32, float16 and integer entries are promoted: the new point
    is float64).

    A (d, d) ``C`` with nonzero off-diagonal entries is diagonalized by ``eigh``: its eigenvalues below 1e-12
    of the largest count as zero (rounding level), as do gradient components along them below 1e-10‖g‖; a
    diagonal C (a vector, or a matrix with zeros off the diagonal) keeps every eigenvalue > 0 exactly.

    A ``g`` whose ‖g‖² underflows to 0 in float64 (every |gᵢ| below about 1e-162) is taken by rescaling f by
    a power of two, except where the rescaled Δ would pass 3.4e38 (Δ/‖g‖² past float64: g = 1e-200 with
    Δ = 1, a step of 1e200): then it is refused naming g, as is any g whose Δ/‖g‖² overflows float64 along
    a direction C does not curve (a subnormal ‖g‖²: g = 1e-155 with C = 0 and Δ = 1).

    Returns the new point and ``{"multiplier": λ, "shift": β = 1/λ}``. ``delta`` must be >= 0; at
    ``delta = 0`` (x attains f* as far as f* tells) or ``g = 0`` the step is zero and ``x`` is returned
    unchanged, whatever ``g``: for convex f, Δ = 0 with g ≠ 0 only arises from rounding, which the LCD2
    solver clamps to Δ = 0 (a multiplier 0, not an error).

    Precision: a floating-point computation (an eigen-decomposition for a full C, a multiplier found by
    root-finding), so the new point x − s carries the step's own rounding, a few ulps of |s| (and of the
    multiplier's tolerance): where x and s nearly cancel, that error is large relative to the small result
    (unlike ``gd_step``/``polyak_step``/``lcd1_step``, which recompute such entries exactly).

    >>> import numpy as np
    >>> x, info = lcd2_step(np.array([1.0]), np.array([2.0]), np.zeros(1), 1.0)   # Polyak
    >>> x.tolist(), info["multiplier"]
    ([0.5], 0.25)
    """
    x, g, C = check_step_inputs(x, g, C)
    delta = check_finite_real("delta", delta)
    if delta < 0:  # f(x) < f*: the f* given is wrong (the solver clamps its own rounding at 0)
        raise ValueError(f"delta (= f(x) − f*) must be >= 0, got {delta!r}")
    if delta == 0 or not np.any(g):
        return x.copy(), {"multiplier": 0.0, "shift": math.inf}
    Q, D, ghat = eig_curvature(C, g)
    # eigenvalues at rounding level are zero, and so are gradient components along them that are
    # at rounding level (else a huge multiplier would amplify them into a huge step)
    top = float(D.max(initial=0.0))
    # eigh's eigenvalues carry rounding of about eps·top; a diagonal C's (Q None) are exact: only 0 is zero
    D = np.where(D > (_RANK_RTOL * top if Q is not None else 0.0), D, 0.0)
    ghat = np.where((D == 0) & (np.abs(ghat) <= _NULL_RTOL * float(np.linalg.norm(ghat))), 0.0, ghat)
    # the step of s·f (a power of two s): the same point, λ/s; ‖g‖² of a gradient of 4e-210 underflowed
    ghat, D, delta, scale = _scaled(ghat, D, delta)
    if np.any(ghat) and float(ghat @ ghat) == 0.0:  # ‖g‖² underflows (g = 5e-324): Δ/‖g‖²·g overflows
        raise ValueError(f"g is too small: ‖g‖² underflows to 0 (max |g_i| = "
                         f"{float(np.max(np.abs(g))):.3g}), so the step overflows; rescale f")
    with run_values():  # Δ >= 0 here: any size (the multiplier's own check is for a caller's Δ > 0)
        lam = lcd2_multiplier(delta, ghat, D)
    if math.isinf(lam) and np.any(ghat[D == 0]):
        # not the Newton step: Δ/‖g‖² overflowed along a direction C does not curve (a subnormal ‖g‖², |g|
        # about 1e-155, left x unchanged with multiplier inf; red23b): the step is past float64, as documented
        raise ValueError(f"g is too small: Δ/‖g‖² overflows float64 (max |g_i| = "
                         f"{float(np.max(np.abs(g))):.3g}), so the step overflows; rescale f")
    if math.isinf(lam):  # Newton step C⁺g (equality case of Lemma E.5)
        coef = np.zeros_like(D)
        pos = D > 0
        coef[pos] = 1.0 / D[pos]
    else:
        coef = _coefficients(lam, D)
    direction = from_eigenbasis(Q, coef * ghat)
    # λ = 0 when Δ/‖g‖² underflows (Δ = 5e-324): the shift 1/λ is then ∞, not a ZeroDivisionError
    with np.errstate(over="ignore"):
        lam = lam * scale  # the multiplier of f itself
    shift = 0.0 if math.isinf(lam) else (math.inf if lam == 0 else 1.0 / lam)
    return x - direction, {"multiplier": lam, "shift": shift}


def _unit_scale(ghat: np.ndarray) -> float:
    """1, or the power of two that brings max |ĝᵢ| to [1/2, 1) when ‖ĝ‖² is below float64's normal range."""
    top = float(np.max(np.abs(ghat), initial=0.0))
    if top == 0.0 or float(ghat @ ghat) >= np.finfo(np.float64).tiny:
        return 1.0
    return math.ldexp(1.0, min(-math.frexp(top)[1], 1023))  # 2**1074 (g = 5e-324) is past float64


def _scaled(ghat: np.ndarray, D: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(ĝ, D, Δ, s) of s·f with s from :func:`_unit_scale`, or s = 1 where s·Δ or s·D would overflow (the step
    itself then overflows: refused, as before)."""
    scale = _unit_scale(ghat)
    with np.errstate(over="ignore"):
        scaled = (ghat * scale, D * scale, delta * scale)
    if not (scaled[2] <= WORKING_MAX and np.all(np.isfinite(scaled[1]))):  # a step past the range anyway
        return ghat, D, delta, 1.0
    return (*scaled, scale)


@dataclass(frozen=True)
class LCD2(Algorithm):
    """Local Curvature Descent 2: Euclidean projection onto the localization set (needs ``f*``).

    ``x⁺ = x − (C(x) + β I)⁻¹∇f(x)`` with β from a scalar root-find (see the module
    docstring). The trace records the multiplier ``λ = 1/β`` of every step. ``tol``
    (in (0, 1): relative, a tol >= 1 would accept x0 itself and is refused naming tol; None, the default, is
    valid and means 1e-10)
    stops at ``f − f* <= tol·S`` or ``‖∇f‖ <= tol·G`` (relative: ``run_descent``). A step whose Δ/‖∇f‖²
    overflows float64 along a direction C does not curve (:func:`lcd2_step` refuses it naming g) ends the
    solve ``RetCode.Degenerate``: the step is undefined in floating point (as LCD3's).
    """


def _require_f_star(problem: CurvatureProblem, method: str) -> float:
    if problem.f_star is None:
        raise ValueError(f"{method} needs the optimal value: construct the CurvatureProblem "
                         "with f_star=...")
    return problem.f_star


@_dispatch
def _solve(problem: CurvatureProblem, algorithm: LCD2, options: SolveOptions) -> Solution:
    f_star = _require_f_star(problem, "LCD2")

    def step(x, fx, g, stats):
        C = problem.curvature_at(x)
        stats.hess_calls += 1
        stats.linear_solves += 1
        try:
            return lcd2_step(x, g, C, max(fx - f_star, 0.0))
        except ValueError as exc:  # Δ/‖g‖² past float64 (lcd2_step's refusal): undefined here, as LCD3's
            if not str(exc).startswith("g is too small"):
                raise
            return None, {"retcode": RetCode.Degenerate,
                          "reason": f"LCD2's step is undefined in floating point: {exc}"}

    return run_descent(problem, options, step, name="LCD2")

