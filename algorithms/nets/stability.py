"""Linear (mean-square) stability of SGD, randomly perturbed SGD and SAM near a minimum.

Near a minimum w* with per-sample Hessians H_1, …, H_n (PSD, symmetric) and mean
Hessian H = (1/n) Σ_i H_i, the deviation w = θ − w* of the three methods evolves as

* SGD:                 w ← (I − η H_B) w,                 H_B = (1/B) Σ_{i∈B} H_i;
* random perturbation: w ← (I − η H_B)(w + ξ),            ξ zero-mean noise, cov s² I;
* SAM (linearized):    w ← (I − η H_B (I + (ρ/α) H)) w,   α a fixed stand-in for ‖∇L‖.

The second moment X_k = E[w_k w_kᵀ] of SGD obeys X_{k+1} = T(X_k) with

    T(X) = E[(I − ηH_B) X (I − ηH_B)] = X − η(HX + XH) + η² (a·HXH + b·Q(X)),
    Q(X) = (1/n) Σ_i H_i X H_i,

where the batch law fixes (a, b) (:func:`batch_moment_coefficients`):
with replacement (1 − 1/B, 1/B); without replacement (n(B−1)/(B(n−1)), (n−B)/(B(n−1)));
Bernoulli inclusion with probability B/n (Dexter et al.'s model) (1, 1/B − 1/n).
The iterates are bounded in mean square iff the spectral radius ρ(T) ≤ 1 (and
decay iff ρ(T) < 1); T is self-adjoint in the Frobenius inner product and
completely positive, so ρ(T) is its largest eigenvalue, with a PSD eigenvector.
This is the exact criterion of Mulayoff & Michaeli (2023). :func:`mean_square_radius`
computes it densely (the d²×d² Kronecker matrix) or matrix-free (power iteration or
Lanczos on X ↦ T(X), O(n d³) per application).

SAM reduces to SGD exactly: with M = I + (ρ/α)H (which commutes with H) and
v = M^{1/2} w, the SAM step is v ← (I − η H̃_B) v with the symmetric PSD per-sample
matrices H̃_i = M^{1/2} H_i M^{1/2} (:func:`sam_effective_hessians`), whose mean is
H_SAM = H (I + (ρ/α) H) and whose Gram matrix gives the paper's SAM coherence
entries Tr(M H_i M H_j). The random perturbation leaves T unchanged: it is bounded
in mean square iff ρ(T) < 1, with stationary second moment (I − T)⁻¹ T(s² I).

Coherence (Dexter et al. 2024, Definition 1 of Chang & Khanna): S_ij = √Tr(H_i H_j)
and σ = λ_max(S) / max_i λ_max(H_i). Dexter et al.'s Theorem 1 (quoted as the SGD
and random-perturbation divergence condition in Chang & Khanna, Thm 3.1 and C.14):
under Bernoulli batches, λ_max(H) ≥ (σ/η)(n/B − 1)^{-1/2} implies divergence.

References
----------
W.-K. Chang, R. Khanna. A unified stability analysis of SAM vs SGD: role of data
coherence and emergence of simplicity bias. NeurIPS 2025, arXiv:2511.17378.
G. Dexter et al. A precise characterization of SGD stability using loss surface
geometry. ICLR 2024. R. Mulayoff, T. Michaeli. Exact mean square linear stability
analysis for SGD. COLT 2024, arXiv:2306.07850. L. Wu, C. Ma, W. E. How SGD selects
the global minima in over-parameterized learning. NeurIPS 2018.

>>> import numpy as np
>>> H = np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0])])   # two orthogonal samples
>>> round(mean_square_radius(H, lr=0.5, batch_size=2), 6)       # full batch: GD on diag(1, 1)
0.25
>>> round(mean_square_radius(H, lr=1.5, batch_size=1), 6)   # SGD diverges though 1.5·λ_max(H) < 2
2.5
>>> round(coherence_measure(H), 6)
1.0
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla

from algorithms._validation import (
    allocates,
    as_float_array,
    backend_cap,
    check_bool,
    check_choice,
    check_count,
    check_fits_memory,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_seed,
    run_values,
    user_range,
)

__all__ = [
    "SAMPLINGS",
    "batch_moment_coefficients",
    "check_hessians",
    "coherence_lower_bound_hessians",
    "coherence_matrix",
    "coherence_measure",
    "critical_step_size",
    "dexter_divergence_condition",
    "enumerate_batches",
    "gd_stable",
    "mean_square_radius",
    "perturbed_mean_square",
    "perturbed_stationary_moment",
    "radius_curve",
    "restrict_to_range",
    "sam_coherence_matrix",
    "sam_divergence_condition",
    "sam_effective_hessians",
    "second_moment_apply",
    "second_moment_matrix",
    "simulate_linearized",
]

#: batch laws: uniform B-subsets, B i.i.d. uniform indices, independent inclusion with prob. B/n
SAMPLINGS = ("without_replacement", "with_replacement", "bernoulli")
METHODS = ("auto", "dense", "power", "lanczos")
#: largest d for which ``method="auto"`` forms the d²×d² matrix
DENSE_MAX_DIM = 30

#: the longest run :func:`simulate_linearized` and :func:`perturbed_mean_square` start, in seconds
#: estimated from their per-step cost on one (shared) core: ~40 µs a step plus ~3 ns per entry of
#: replicates·(n + d)·d² for the simulation, ~30 µs plus ~2 ns per n·d³ for the exact recursion.
#: Past it the call is refused naming ``steps`` (and ``replicates``): ``steps = 2**31 − 1``, which the
#: count check allows, ran for hours
MAX_RUN_SECONDS = 30.0


def _check_run_length(owner: str, steps: int, per_step: float, what: str) -> None:
    estimate = steps * per_step
    if estimate > MAX_RUN_SECONDS:
        raise ValueError(f"{owner}: steps={steps}{what} would run for about {estimate:.3g} s, past the limit "
                         f"of {MAX_RUN_SECONDS:g} s (MAX_RUN_SECONDS, ~{per_step * 1e6:.3g} µs a step here); "
                         f"pass fewer steps")
EPS64 = float(np.finfo(np.float64).eps)

#: most batches :func:`enumerate_batches` lists (brute force is for small n)
MAX_ENUMERATED_BATCHES = 1_000_000


# ----------------------------------------------------------------------------- validation
def check_hessians(name: str, hessians: Any, *, rtol: float = 1e-8, psd: bool = False) -> np.ndarray:
    """``hessians`` as a float64 (n, d, d) stack of symmetric matrices (raises naming ``name``).

    Entries are finite, inside the working range (|entry| <= 3.4e38) and at most 1e150 / d in absolute
    value (``SCALE_MAX``: the operators here multiply two Hessians, and 1e300 entries overflowed float64).
    Symmetric means max |H_i − H_iᵀ| ≤ ``rtol``·max |entry| (the stack's largest entry: relative at every
    scale, a floor of 1 took an asymmetric stack of 1e-12 as symmetric). ``psd=True`` also requires every
    matrix to be positive semidefinite (smallest eigenvalue ≥ −``rtol``·max |entry|, relative as well), the
    assumption of the divergence conditions and of the SAM reduction (M = I + (ρ/α)H must have a square
    root). ``rtol`` > 0 in [1.18e-38, 3.4e38] (default 1e-8).

    >>> check_hessians("hessians", [[[1.0, 2.0], [0.0, 1.0]]])
    Traceback (most recent call last):
    ...
    ValueError: hessians[0] must be symmetric (max |H - Hᵀ| = 2)
    >>> check_hessians("hessians", [[[1.0, 0.0], [0.0, -1.0]]], psd=True)
    Traceback (most recent call last):
    ...
    ValueError: hessians[0] must be positive semidefinite (smallest eigenvalue -1)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    rtol = check_positive("rtol", rtol)
    psd = check_bool("psd", psd)
    # a run's own stack (SAM's effective Hessians, run_values()) may pass 3.4e38: computed, not input
    arr = as_float_array(name, hessians, ndim=3, dtype=np.float64, check_range=user_range())
    n, d1, d2 = arr.shape
    if n == 0 or d1 == 0:
        raise ValueError(f"{name} must hold at least one non-empty matrix, got shape {arr.shape}")
    if d1 != d2:
        raise ValueError(f"{name} must have shape (n, d, d), got {arr.shape}")
    _check_scale(name, float(np.abs(arr).max()), d1)
    asym = np.abs(arr - np.swapaxes(arr, 1, 2)).max(axis=(1, 2))
    # relative to the stack's largest entry (a floor of 1 took 1e-12·[[1, 1], [0, 1]]); the stack's, not each
    # matrix's: a per-sample Hessian at rounding level inside a large stack carries rounding of its own size
    scale = np.full(n, float(np.abs(arr).max()))
    bad = np.flatnonzero(asym > rtol * scale)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{i}] must be symmetric (max |H - Hᵀ| = {asym[i]:.3g})")
    arr = 0.5 * (arr + np.swapaxes(arr, 1, 2))
    if psd:
        lowest = np.linalg.eigvalsh(arr)[:, 0]
        bad = np.flatnonzero(lowest < -rtol * scale)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name}[{i}] must be positive semidefinite (smallest eigenvalue "
                             f"{lowest[i]:.3g})")
    return arr


#: the largest d·max|entry| of a Hessian stack (and d·η·max|entry|, d·noise_std): products of two such
#: quantities (Tr(H_i H_j), η²H X H) then stay below 1e300, inside float64 (1e300 entries gave inf
#: coherences, scipy's unnamed "array must not contain infs or NaNs" and OverflowErrors)
SCALE_MAX = 1e150


def _check_scale(name: str, largest: float, d: int, what: str = "") -> None:
    if not largest * d <= SCALE_MAX:
        raise ValueError(f"{name}{what} is too large: d · max|entry| = {largest * d:.3g} exceeds "
                         f"{SCALE_MAX:g} (the operators multiply two such factors, which would overflow "
                         f"float64); rescale the Hessians (and the step)")


def _check_step_scale(H: np.ndarray, lr: float, ratio: float = 0.0) -> None:
    """η · d · max|H̃_i| <= SCALE_MAX, with H̃ the SAM-effective stack when ``ratio`` = ρ/α > 0 (its entries
    grow like (1 + ratio·max|H|)·max|H|): η²H X H terms then stay finite."""
    d = H.shape[1]
    largest = float(np.abs(H).max())
    if ratio > 0:
        largest *= 1.0 + ratio * largest * d
        if not largest * d <= SCALE_MAX:
            raise ValueError(f"hessians with rho/alpha = {ratio:.3g} are too large: the SAM-effective "
                             f"Hessians (I + (rho/alpha)H)^(1/2) H_i (I + (rho/alpha)H)^(1/2) reach "
                             f"d · max|entry| = {largest * d:.3g} > {SCALE_MAX:g}; use a smaller rho (or "
                             f"larger alpha)")
    if not lr * largest * d <= SCALE_MAX:
        raise ValueError(f"lr = {lr!r} is too large for these hessians: lr · d · max|entry| = "
                         f"{lr * largest * d:.3g} exceeds {SCALE_MAX:g} (the second-moment operator's η²H²"
                         f" terms would overflow float64)")


def _check_batch(batch_size: Any, n: int) -> int:
    batch_size = check_positive_int("batch_size", batch_size)
    if batch_size > n:
        raise ValueError(f"batch_size must be <= n = {n} (the number of samples), got {batch_size}")
    return batch_size


def _check_common(hessians, lr, batch_size, sampling, rho, alpha, *, psd=False):
    """Validated (H, lr, B, ρ, α); ρ > 0 (or ``psd``) also requires PSD Hessians (M^{1/2} must exist)."""
    rho = check_nonnegative("rho", rho)
    alpha = check_positive("alpha", alpha)
    H = check_hessians("hessians", hessians, psd=psd or rho > 0)
    lr = check_positive("lr", lr)
    batch_size = _check_batch(batch_size, H.shape[0])
    check_choice("sampling", sampling, SAMPLINGS)
    _check_step_scale(H, lr, rho / alpha)
    return H, lr, batch_size, rho, alpha


# ----------------------------------------------------------------------------- batch moments
def batch_moment_coefficients(n: int, batch_size: int, sampling: str = "without_replacement"
                              ) -> tuple[float, float]:
    """(a, b) with E[H_B X H_B] = a·HXH + b·(1/n)Σ_i H_i X H_i for the batch law ``sampling``.

    Domains: ``n`` an int >= 1, ``batch_size`` an int in [1, n], ``sampling`` one of ``SAMPLINGS``.

    >>> batch_moment_coefficients(10, 10)          # full batch: no noise
    (1.0, 0.0)
    >>> batch_moment_coefficients(10, 1, "with_replacement")
    (0.0, 1.0)
    """
    n = check_positive_int("n", n)
    B = _check_batch(batch_size, n)
    check_choice("sampling", sampling, SAMPLINGS)
    # int / int is correctly rounded in Python: 1/B − 1/n cancelled to 0 for B = n − 1 near 2**60
    if sampling == "with_replacement":
        return (B - 1) / B, 1.0 / B
    if sampling == "bernoulli":
        return 1.0, (n - B) / (B * n)
    if n == 1:
        return 1.0, 0.0
    return n * (B - 1) / (B * (n - 1)), (n - B) / (B * (n - 1))


def enumerate_batches(n: int, batch_size: int, sampling: str = "without_replacement"
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Every batch of the law with its probability: weights W (m, n), H_B = Σ_i W[b, i] H_i, and p (m,).

    Domains: ``n`` an int >= 1, ``batch_size`` an int in [1, n], ``sampling`` one of ``SAMPLINGS``; a law
    with more than ``MAX_ENUMERATED_BATCHES`` batches is refused naming n and batch_size.

    Without replacement: the C(n, B) subsets; with replacement: the multisets of size B
    with multinomial probabilities; Bernoulli: the 2ⁿ inclusion patterns (H_B = (1/B)Σ_{i∈S} H_i).
    For brute-force checks of the closed forms on small n.

    >>> W, p = enumerate_batches(3, 2, "with_replacement")
    >>> W.shape, round(float(p.sum()), 12)
    ((6, 3), 1.0)
    """
    import itertools

    n = check_positive_int("n", n)
    B = _check_batch(batch_size, n)
    check_choice("sampling", sampling, SAMPLINGS)
    # computed for the law asked only: 2**n of an n = 2**31 (a two-billion-bit int) hung for every law
    # the count bounded without computing it: math.comb(2**24, 2**23) (a five-million-digit int) hung, and
    # printing a smaller such count met Python's 4300-digit limit
    if sampling == "bernoulli":
        top, choose = n, None                   # 2**n batches
    elif sampling == "without_replacement":
        top, choose = n, min(B, n - B)
    else:
        top, choose = n + B - 1, min(B, n - 1)
    count: int | None = 2**n if choose is None and n <= 64 else None
    if choose is not None:
        count = 1
        for i in range(choose):                  # C(top, i+1) grows with i: exact up to 2**64, then stop
            count = count * (top - i) // (i + 1)
            if count > 2**64:
                count = None
                break
    if count is None or count > MAX_ENUMERATED_BATCHES:
        shown = "more than 2**64" if count is None else str(count)
        raise ValueError(f"n = {n}, batch_size = {B} ({sampling}) has {shown} batches, more than "
                         f"{MAX_ENUMERATED_BATCHES} to enumerate; use smaller n or batch_size")
    rows, probs = [], []
    if sampling == "without_replacement":
        combos = list(itertools.combinations(range(n), B))
        for c in combos:
            w = np.zeros(n)
            w[list(c)] = 1.0 / B
            rows.append(w)
            probs.append(1.0 / len(combos))
    elif sampling == "with_replacement":
        for c in itertools.combinations_with_replacement(range(n), B):
            counts = np.bincount(c, minlength=n)
            ways = math.factorial(B) / math.prod(math.factorial(int(k)) for k in counts)
            rows.append(counts / B)
            probs.append(ways / n**B)
    else:
        q = B / n
        for mask in itertools.product((0.0, 1.0), repeat=n):
            m = np.array(mask)
            rows.append(m / B)
            probs.append(q ** m.sum() * (1 - q) ** (n - m.sum()))
    return np.array(rows), np.array(probs)


# ----------------------------------------------------------------------------- SAM reduction
def _sym_sqrt(matrix: np.ndarray) -> np.ndarray:
    vals, vecs = np.linalg.eigh(matrix)
    return (vecs * np.sqrt(np.clip(vals, 0.0, None))) @ vecs.T


def sam_effective_hessians(hessians: Any, rho: float, alpha: float = 1.0) -> np.ndarray:
    """H̃_i = M^{1/2} H_i M^{1/2} with M = I + (ρ/α)H: SAM on {H_i} is SGD on {H̃_i}.

    ``hessians`` a stack of symmetric PSD matrices (n, d, d); ``rho`` >= 0, any value in [0, 3.4e38] (0:
    H̃_i = H_i); ``alpha`` > 0 in [1.18e-38, 3.4e38]; ρ/α so large that H̃'s entries pass 1e150 is refused
    naming rho/alpha.

    The linearized SAM step I − ηH_B M is similar (by M^{1/2}) to I − η M^{1/2} H_B M^{1/2},
    so every mean-square statement about SGD transfers; mean(H̃_i) = H(I + (ρ/α)H).

    >>> Ht = sam_effective_hessians(np.stack([np.eye(2), 3 * np.eye(2)]), rho=0.5, alpha=1.0)
    >>> np.allclose(Ht.mean(axis=0), 2 * np.eye(2) * (1 + 0.5 * 2))
    True
    """
    H = check_hessians("hessians", hessians, psd=True)
    rho = check_nonnegative("rho", rho)
    alpha = check_positive("alpha", alpha)
    _check_step_scale(H, 0.0, rho / alpha)
    return _effective(H, rho / alpha)


def restrict_to_range(hessians: Any, rtol: float = 1e-10) -> np.ndarray:
    """UᵀH_iU with U an orthonormal basis of range(H): the common null space ∩ ker H_i never moves.

    An eigenvalue λ of the mean H counts as null when λ ≤ ``rtol``·max |λ| (``rtol`` > 0 in [1.18e-38,
    3.4e38]; relative at every scale, Hessians of 1e-305 included; the zero stack's range is empty: shape
    (n, 0, 0)).

    >>> restrict_to_range(np.stack([np.diag([1.0, 0.0]), np.diag([3.0, 0.0])])).shape
    (2, 1, 1)
    """
    H = check_hessians("hessians", hessians)
    return _restrict_to_range(H, check_positive("rtol", rtol))


def _restrict_to_range(H: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    unit = _unit_scale(H)[0]        # eigh at unit scale (a power of two: exact)
    if float(np.linalg.eigvalsh(unit)[:, 0].min()) < -1e-8:
        # an indefinite stack (ρ = 0 takes one): H̄'s null space is not the common one (diag(1, −1) and
        # diag(−1, 1) average to 0, and H̄'s negative eigenvalues were dropped as null: radius 1 or
        # (1 − ηλ)² for a growing (1 + ηλ)²); the common null space is that of mean(H_i²), compared by √
        vals, vecs = np.linalg.eigh(np.mean(unit @ unit, axis=0))
        vals = np.sqrt(np.clip(vals, 0.0, None))
    else:
        vals, vecs = np.linalg.eigh(unit.mean(axis=0))
    top = float(np.abs(vals).max(initial=0.0))
    # relative at every scale (a floor of 1e-300 emptied the range of Hessians of 1e-305); 0 keeps nothing
    keep = vals > rtol * top if top > 0 else np.zeros(vals.shape, dtype=bool)
    if keep.all():
        return H
    U = vecs[:, keep]
    return U.T @ H @ U


# ----------------------------------------------------------------------------- the operator
def second_moment_apply(hessians: Any, X: Any, lr: float, a: float, b: float) -> np.ndarray:
    """T(X) = X − η(HX + XH) + η²(a·HXH + b·(1/n)Σ H_i X H_i), without forming T (O(n d³)).

    ``a``, ``b`` are the batch law's coefficients (:func:`batch_moment_coefficients`), floats in
    [0, 1e6] (a batch law's lie in [0, 1]). ``hessians`` as :func:`check_hessians` takes them, ``X`` a
    finite (d, d) array, ``lr`` > 0; d·max|H|, d·max|X| and lr·d·max|H| are at most 1e150 (so that the
    products T forms stay inside float64; larger ones are refused naming them).

    >>> second_moment_apply(np.eye(1)[None], np.eye(1), lr=0.5, a=1.0, b=0.0)
    array([[0.25]])
    """
    H = check_hessians("hessians", hessians)
    d = H.shape[1]
    X = as_float_array("X", X, ndim=2, dtype=np.float64)
    if X.shape != (d, d):
        raise ValueError(f"X must have shape ({d}, {d}) to match hessians, got {X.shape}")
    lr = check_positive("lr", lr)
    a = check_nonnegative("a", a)
    b = check_nonnegative("b", b)
    for name, coefficient in (("a", a), ("b", b)):   # a batch law's are in [0, 1]; 1e308 overflowed T(X)
        if coefficient > 1e6:
            raise ValueError(f"{name} must be <= 1e6 (a batch law's coefficient lies in [0, 1]), got "
                             f"{coefficient!r}")
    _check_scale("X", float(np.abs(X).max(initial=0.0)), d)
    _check_step_scale(H, lr)
    return _apply(H, X, lr, a, b)


def _apply(hessians: np.ndarray, X: np.ndarray, lr: float, a: float, b: float) -> np.ndarray:
    """The body of :func:`second_moment_apply` on validated inputs (the solvers' inner loop)."""
    mean = hessians.mean(axis=0)
    HX = mean @ X
    out = X - lr * (HX + X @ mean)
    quad = a * (HX @ mean)
    if b != 0.0:
        quad = quad + b * np.einsum("iab,ibc->ac", hessians @ X, hessians) / hessians.shape[0]
    return out + (lr * lr) * quad


def _apply_deficit(hessians: np.ndarray, X: np.ndarray, lr: float, a: float, b: float) -> np.ndarray:
    """(X − T(X))/η = HX + XH − η(a·HXH + b·(1/n)Σ H_i X H_i), formed directly: X − T(X) lost everything
    below 1e-16·|X| to the cancellation (steps of 1e-12 kept 5 digits, 1e-20 none)."""
    mean = hessians.mean(axis=0)
    HX = mean @ X
    quad = a * (HX @ mean)
    if b != 0.0:
        quad = quad + b * np.einsum("iab,ibc->ac", hessians @ X, hessians) / hessians.shape[0]
    return HX + X @ mean - lr * quad


def second_moment_matrix(hessians: Any, lr: float, batch_size: int, *,
                         sampling: str = "without_replacement", rho: float = 0.0,
                         alpha: float = 1.0) -> np.ndarray:
    """The d²×d² matrix of T on row-major vec(X): E[J_B ⊗ J_B] for J_B the linearized step.

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n] (n the number of Hessians),
    ``sampling`` one of ``SAMPLINGS``, ``rho`` >= 0 (any value in [0, 3.4e38]) and ``alpha`` > 0 in
    [1.18e-38, 3.4e38]; lr · d · max|H̃| at most 1e150 (else refused naming lr, or rho/alpha).

    >>> K = second_moment_matrix(np.eye(2)[None], lr=0.5, batch_size=1)
    >>> np.allclose(K, 0.25 * np.eye(4))
    True
    """
    H, lr, B, rho, alpha = _check_common(hessians, lr, batch_size, sampling, rho, alpha)
    if rho > 0:
        H = sam_effective_hessians(H, rho, alpha)
    return _dense_matrix(H, lr, *batch_moment_coefficients(H.shape[0], B, sampling))


def _dense_pieces(H: np.ndarray, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """(L, Q) with T(η) = I − ηL + η²Q on row-major vec(X): L = H⊗I + I⊗H (H the mean),
    Q = a·H⊗H + (b/n)Σ_i H_i⊗H_i. Formed directly, not by differencing T at two steps (which
    loses Q to rounding against I when λ_max(H) ≪ 1)."""
    n, d, _ = H.shape
    mean = H.mean(axis=0)
    eye = np.eye(d)
    L = np.kron(mean, eye) + np.kron(eye, mean)
    Q = a * np.kron(mean, mean)
    if b != 0.0:
        Q = Q + (b / n) * np.einsum("iac,ibd->abcd", H, H).reshape(d * d, d * d)
    return L, Q


def _dense_matrix(H: np.ndarray, lr: float, a: float, b: float) -> np.ndarray:
    L, Q = _dense_pieces(H, a, b)
    return np.eye(L.shape[0]) - lr * L + (lr * lr) * Q


def mean_square_radius(hessians: Any, lr: float, batch_size: int, *,
                       sampling: str = "without_replacement", rho: float = 0.0, alpha: float = 1.0,
                       method: str = "auto", restrict_to_range: bool = True, tol: float = 1e-10,
                       maxiters: int = 100_000) -> float:
    """Spectral radius of the second-moment operator of linearized SGD (ρ = 0) or SAM (ρ > 0).

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n] (n the number of Hessians),
    ``sampling`` one of ``SAMPLINGS``, ``rho`` >= 0 (any value in [0, 3.4e38]) and ``alpha`` > 0 in
    [1.18e-38, 3.4e38]; ``tol`` > 0 in [1.18e-38, 3.4e38]; ``maxiters`` an int >= 1; lr · d · max|H̃| at
    most 1e150 (else refused naming lr, or rho/alpha).

    ``> 1``: E‖w_k‖² grows geometrically; ``< 1``: it decays; the random-perturbation
    variant has the same radius. ``restrict_to_range`` drops the common null space of
    the H_i (where w never moves and the radius is exactly 1), as in Mulayoff & Michaeli.
    ``method``: ``dense`` (eigenvalues of the d²×d² matrix), ``power`` (power iteration on
    X ↦ T(X) from X = I), ``lanczos`` (ARPACK on the same matrix-free operator), ``auto``
    (dense up to d = 30, else lanczos). ``tol`` is relative, at every scale of the radius: power
    iteration stops when successive Rayleigh quotients differ by ≤ tol·|estimate| (its error is
    about tol over the relative gap between T's two top eigenvalues), Lanczos passes it to
    ARPACK (relative accuracy of the eigenvalue); ``dense`` ignores it. Raises ``RuntimeError`` (the
    documented class, like scipy's ``ArpackNoConvergence``) when ``power`` or ``lanczos`` does not reach
    ``tol`` within ``maxiters``: a numerical non-convergence, not a bad argument (raise ``maxiters`` or
    use ``method="dense"``).

    >>> H = np.stack([np.diag([1.0, 0.0]), np.diag([0.0, 1.0]), np.eye(2)])
    >>> r_dense = mean_square_radius(H, lr=1.2, batch_size=1, method="dense")
    >>> r_power = mean_square_radius(H, lr=1.2, batch_size=1, method="power")
    >>> abs(r_dense - r_power) < 1e-8
    True
    """
    H, lr, B, rho, alpha = _check_common(hessians, lr, batch_size, sampling, rho, alpha)
    check_choice("method", method, METHODS)
    restrict_to_range = check_bool("restrict_to_range", restrict_to_range)
    tol = check_positive("tol", tol)
    maxiters = check_positive_int("maxiters", maxiters)
    return _radius(H, lr, B, sampling, rho / alpha, method=method, restrict=restrict_to_range,
                   tol=tol, maxiters=maxiters)


def _effective(H: np.ndarray, ratio: float) -> np.ndarray:
    """M^{1/2} H_i M^{1/2} with M = I + ratio·mean(H), no input checks (ratio = ρ/α)."""
    if ratio == 0.0:
        return H
    root = _sym_sqrt(np.eye(H.shape[1]) + ratio * H.mean(axis=0))
    return root @ H @ root


def _radius(H: np.ndarray, lr: float, B: int, sampling: str, ratio: float, *, method: str = "auto",
            restrict: bool = True, tol: float = 1e-10, maxiters: int = 100_000) -> float:
    """The body of :func:`mean_square_radius` on validated inputs, ``ratio`` = ρ/α.

    Private: no checks, so ``ratio`` may be any real with I + ratio·H ⪰ 0.
    """
    a, b = batch_moment_coefficients(H.shape[0], B, sampling)
    H = _effective(H, ratio)
    if restrict:
        H = _restrict_to_range(H)
        if H.shape[1] == 0:
            return 1.0
    d = H.shape[1]
    if method == "auto":
        method = "dense" if d <= DENSE_MAX_DIM else "lanczos"
    if method == "dense":
        return float(np.abs(scipy.linalg.eigvalsh(_dense_matrix(H, lr, a, b))[[0, -1]]).max())
    if method == "power":
        return _power_radius(H, lr, a, b, tol=tol, maxiters=maxiters)
    return _lanczos_radius(H, lr, a, b, tol=tol, maxiters=maxiters)


def _power_radius(H, lr, a, b, *, tol, maxiters) -> float:
    d = H.shape[1]
    X = np.eye(d) / math.sqrt(d)
    previous = math.inf
    estimate = 0.0
    for _ in range(maxiters):
        Y = _apply(H, X, lr, a, b)
        Y = 0.5 * (Y + Y.T)
        estimate = float(np.vdot(X, Y))     # Rayleigh quotient: T is self-adjoint, ‖X‖_F = 1
        norm = float(np.linalg.norm(Y))
        if norm == 0.0:
            return 0.0
        X = Y / norm
        if abs(estimate - previous) <= tol * max(abs(estimate), 1e-300):
            return abs(estimate)
        previous = estimate
    raise RuntimeError(f"power iteration did not reach tol = {tol:g} within maxiters = {maxiters} "
                       f"(last radius estimate {abs(estimate):.10g}); raise maxiters or use method='lanczos'")


def _lanczos_radius(H, lr, a, b, *, tol, maxiters) -> float:
    d = H.shape[1]

    def matvec(v: np.ndarray) -> np.ndarray:
        return _apply(H, v.reshape(d, d), lr, a, b).reshape(-1)

    op = spla.LinearOperator((d * d, d * d), matvec=matvec, dtype=np.float64)
    v0 = (np.eye(d) / math.sqrt(d)).reshape(-1)   # PSD start overlaps the PSD Perron vector
    if not np.any(matvec(v0)):
        # T(I) = 0: T is a positive map, so ‖T‖ = ‖T(I)‖ = 0 (every batch step is exactly 0,
        # e.g. equal H_i = cI and η = 1/c); ARPACK would stop on a zero residual instead
        return 0.0
    # T is completely positive and self-adjoint: its spectral radius is its largest eigenvalue
    # (Perron–Frobenius for positive maps), so one ARPACK run for the top one suffices.
    try:
        top = spla.eigsh(op, k=1, which="LA", v0=v0, tol=tol, maxiter=backend_cap(maxiters),
                         return_eigenvectors=False)[0]
    except spla.ArpackNoConvergence as exc:
        raise RuntimeError(f"Lanczos (ARPACK) did not reach tol = {tol:g} within maxiters = {maxiters}; "
                           "raise maxiters or use method='dense'") from exc
    return float(abs(top))


def radius_curve(hessians: Any, batch_size: int, *, sampling: str = "without_replacement",
                 rho: float = 0.0, alpha: float = 1.0, restrict_to_range: bool = True):
    """η ↦ ρ(T(η)) for one family, with the d²×d² pieces formed once (d ≤ 30 after restriction).

    T(η) = I − η L + η² Q on vec(X), so each evaluation is one small symmetric eigensolve.
    ρ(T(η)) is convex in η (top eigenvalue of I − ηL + η²Q with Q ⪰ 0) and ρ(T(0)) = 1.
    ``batch_size`` an int in [1, n], ``sampling`` as :func:`mean_square_radius`'s, ``rho`` >= 0 (any value
    in [0, 3.4e38]) and ``alpha`` > 0 in [1.18e-38, 3.4e38] (SAM's effective Hessians when rho > 0). The
    returned function takes the step ``lr``: 0 or at least 1.18e-38, at most 3.4e38 (a subnormal step is
    refused naming lr, as every step size of the package).

    >>> f = radius_curve(np.eye(2)[None], batch_size=1)
    >>> round(f(0.5), 6), round(f(2.0), 6)
    (0.25, 1.0)
    """
    H, _, B, rho, alpha = _check_common(hessians, 1.0, batch_size, sampling, rho, alpha, psd=True)
    restrict_to_range = check_bool("restrict_to_range", restrict_to_range)
    a, b = batch_moment_coefficients(H.shape[0], B, sampling)
    if rho > 0:
        H = sam_effective_hessians(H, rho, alpha)
    if restrict_to_range:
        H = _restrict_to_range(H)
    d = H.shape[1]
    if d == 0:                              # nothing moves: T = identity on the null space
        def still(lr: float) -> float:
            check_nonnegative("lr", lr, scale=True)
            return 1.0

        return still
    if d > DENSE_MAX_DIM:
        raise ValueError(f"radius_curve forms d²×d² matrices; d = {d} > {DENSE_MAX_DIM}, "
                         "use mean_square_radius(method='lanczos')")
    unchecked = _radius_function(H, a, b)

    def radius(lr: float) -> float:
        return unchecked(check_nonnegative("lr", lr, scale=True))   # a step: 1e-39 rounds away in float32

    return radius


def _radius_function(H: np.ndarray, a: float, b: float):
    """η ↦ ρ(T(η)) for a validated, restricted stack with d ≤ DENSE_MAX_DIM; η any float >= 0 (no checks)."""
    d = H.shape[1]
    L, Q = _dense_pieces(H, a, b)
    eye = np.eye(d * d)

    def radius(lr: float) -> float:
        with np.errstate(over="ignore", invalid="ignore"):
            T = eye - lr * L + (lr * lr) * Q
        if not np.all(np.isfinite(T)):
            # η² overflowed (η = 1e308: numpy's eigensolver then failed on inf entries): the spectrum of
            # T/η² = I/η² − L/η + Q, scaled back (ρ ≈ η²·λ_max(Q), inf when past float's range)
            vals = np.linalg.eigvalsh(eye / lr / lr - L / lr + Q)
            with np.errstate(over="ignore"):
                return float(max(abs(vals[0]), abs(vals[-1])) * lr * lr)
        vals = np.linalg.eigvalsh(T)     # numpy: less overhead on small d²
        return float(max(abs(vals[0]), abs(vals[-1])))

    return radius


def critical_step_size(hessians: Any, batch_size: int, *, level: float = 1.0,
                       sampling: str = "without_replacement", rho: float = 0.0, alpha: float = 1.0,
                       restrict_to_range: bool = True, rtol: float = 1e-12) -> float | None:
    """The largest η with ρ(T(η)) ≤ ``level``: for level = 1, the mean-square stable steps are [0, η*].

    Domains: ``batch_size`` an int in [1, n] (n the number of Hessians), ``sampling`` one of
    ``SAMPLINGS``, ``rho`` >= 0 (any value in [0, 3.4e38]) and ``alpha`` > 0 in [1.18e-38, 3.4e38];
    ``level`` > 0 and ``rtol`` > 0, each in [1.18e-38, 3.4e38].

    ρ(T(η)) is convex with ρ(T(0)) = 1, so {η : ρ ≤ level} is an interval; this returns its
    right end (golden-section search for the minimum, then bisection on the increasing
    branch). None when ``level`` is below the minimum over η. With ``restrict_to_range=False``
    and a singular mean Hessian, the common null space never moves, so ρ(T(η)) = max(1, ρ of
    the restricted family) on every step that matters: a level below 1 gives None and a level
    ≥ 1 the restricted family's answer (computed there: on the full space the flat ρ = 1
    carries rounding of either sign, which no search can resolve). The bracket starts at
    η = 4/λ_max of the mean (SAM-effective when rho > 0) Hessian and doubles while ρ(T) ≤ ``level``
    there; ``math.inf`` once it passes
    1e12/λ_max (a level that large is only crossed at steps beyond 10¹²/λ_max).
    The search runs on the Hessians rescaled by a power of two to λ_max(H̄) ~ 1 (η* scales as
    1/scale, exactly), so the answer for Hessians of any magnitude is that of the unit-scale ones
    divided by the scale: tiny Hessians (1e-100) give η* ~ 1e100, past the working range of inputs (an
    answer, not an input), and subnormal ones may give ``math.inf``.

    >>> round(critical_step_size(np.eye(2)[None], batch_size=1), 9)   # GD: η* = 2/λ_max
    2.0
    """
    restrict_to_range = check_bool("restrict_to_range", restrict_to_range)
    level = check_positive("level", level)
    rtol = check_positive("rtol", rtol)
    H = check_hessians("hessians", hessians, psd=True)
    radius_curve(H, batch_size, sampling=sampling, rho=rho, alpha=alpha,     # checks the rest (d <= 30)
                 restrict_to_range=restrict_to_range)
    if not restrict_to_range and _restrict_to_range(H).size < H.size:
        # ρ = max(1, ρ on the range): exactly 1 on [0, η*] in exact arithmetic, 1 ± rounding in floats
        if level < 1.0:
            return None
        return critical_step_size(H, batch_size, level=level, sampling=sampling, rho=rho, alpha=alpha,
                                  rtol=rtol)
    # searched at unit scale: T(η) of the stack H is T(η·c) of H / c (SAM's ρ/α times c), so
    # η* = η*(H / c) / c with c a power of two (exact: the same bits at ordinary scales). Hessians of 1e-100
    # (η* ~ 1e100) were refused naming lr, a step the caller never passed; subnormal ones lost their range
    # to the restriction's 1e-300 floor; and a large ρ/α bracketed from 4/λ_max(H̄), not from the effective
    # stack's λ_max, answered None
    scale = _unit_scale(H)[1]
    unit_h = H / scale
    effective = _effective(unit_h, rho / alpha * scale) if rho > 0 else unit_h   # rho, alpha: radius_curve's
    if restrict_to_range:
        effective = _restrict_to_range(effective)
    lam = float(np.linalg.eigvalsh(effective.mean(axis=0))[-1]) if effective.shape[1] else 0.0
    if lam <= 0:
        return None
    unit = math.ldexp(1.0, math.frexp(lam)[1])
    radius = _radius_function(effective / unit, *batch_moment_coefficients(H.shape[0], batch_size, sampling))
    step = _critical_unit_step(radius, lam / unit, level, rtol)
    return None if step is None else step / unit / scale


def _critical_unit_step(radius, lam: float, level: float, rtol: float) -> float | None:
    """The search of :func:`critical_step_size` on a stack scaled so that λ_max(H̄) = ``lam`` in [0.5, 1)."""
    hi = 4.0 / lam
    while radius(hi) <= level:
        hi *= 2.0
        if hi > 1e12 / lam:
            return math.inf
    lo, top = 0.0, hi                       # golden section for the minimizer on [0, hi]
    g = (math.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = top - g * (top - lo), lo + g * (top - lo)
    f1, f2 = radius(x1), radius(x2)
    for _ in range(80):
        if f1 <= f2:
            top, x2, f2 = x2, x1, f1
            x1 = top - g * (top - lo)
            f1 = radius(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (top - lo)
            f2 = radius(x2)
        if top - lo <= rtol * hi:
            break
    left = x1 if f1 <= f2 else x2
    if min(f1, f2) > level:
        return None
    right = hi
    for _ in range(200):
        mid = 0.5 * (left + right)
        if radius(mid) <= level:
            left = mid
        else:
            right = mid
        if right - left <= rtol * right:
            break
    return left


# ----------------------------------------------------------------------------- conditions
def gd_stable(hessian: Any, lr: float) -> bool:
    """Full-batch GD linearization w ← (I − ηH)w is bounded iff η λ_max(H) ≤ 2 (H PSD), decided exactly on
    the float η and the computed λ_max (0.4 · 5 > 2: 0.4 is 0.40000000000000002).

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38]; ``hessian`` a finite symmetric PSD (d, d) array.

    >>> gd_stable(np.diag([1.0, 2.0]), 1.0), gd_stable(np.diag([1.0, 2.0]), 1.01)
    (True, False)
    """
    H = check_hessians("hessian", as_float_array("hessian", hessian, ndim=2)[None], psd=True)[0]
    lr = check_positive("lr", lr)
    # exactly, on the floats: 0.4·5 rounded to 2.0 passed where 0.4 (0.40000000000000002) · 5 > 2 (red23a)
    return bool(Fraction(lr) * Fraction(float(np.linalg.eigvalsh(H)[-1])) <= 2)


def coherence_matrix(hessians: Any) -> np.ndarray:
    """S_ij = √Tr(H_i H_j) (Dexter et al. 2024, Definition 1); tiny negatives from rounding -> 0.

    >>> coherence_matrix(np.stack([np.eye(2), np.eye(2)]))
    array([[1.41421356, 1.41421356],
           [1.41421356, 1.41421356]])
    """
    H = check_hessians("hessians", hessians)
    # each matrix at its own unit scale c_i (a power of two): S_ij = √(c_i c_j)·√Tr(Ĥ_i Ĥ_j). One common
    # scale underflowed the products of the small matrices of a stack spanning 1e-200 and 1e100 (S_11 = 0
    # for √2·1e-200), and √c_i·√c_j never overflows where c_i·c_j would
    top = np.abs(H).max(axis=(1, 2))
    scales = np.array([math.ldexp(1.0, math.frexp(float(t))[1]) if t > 0 else 1.0 for t in top])
    flat = (H / scales[:, None, None]).reshape(H.shape[0], -1)
    roots = np.sqrt(scales)
    return np.sqrt(np.clip(flat @ flat.T, 0.0, None)) * roots[:, None] * roots[None, :]


def _unit_scale(H: np.ndarray) -> tuple[np.ndarray, float]:
    """(H / c, c) with c the power of two nearest max|H| (exact): the products H_i H_j of Hessians near
    1e-300 underflowed to 0 (the coherence measure came out 0 and the divergence conditions True at any
    step size) and those near 1e200 overflowed. c = 1 for an all-zero stack."""
    top = float(np.max(np.abs(H))) if H.size else 0.0
    if top == 0.0 or not math.isfinite(top):
        return H, 1.0
    scale = math.ldexp(1.0, math.frexp(top)[1])
    return H / scale, scale


def coherence_measure(hessians: Any) -> float:
    """σ = λ_max(S) / max_i λ_max(H_i); σ ∈ [1, n] for PSD H_i (n when all are equal rank-1)."""
    H = check_hessians("hessians", hessians)
    H = _unit_scale(H)[0]       # σ is scale-free: computed at unit scale (1e-300 Hessians gave σ = 0)
    top = float(np.linalg.eigvalsh(H)[:, -1].max())
    if top <= 0.0:
        raise ValueError("hessians must have a positive eigenvalue for the coherence measure")
    return float(scipy.linalg.eigvalsh(coherence_matrix(H))[-1]) / top


@allocates("n", "sigma")
def coherence_lower_bound_hessians(lam_max: float, n: int, sigma: int) -> np.ndarray:
    """The matching lower-bound family of Chang & Khanna, Theorem 3.3 (after Dexter et al., Thm 2).

    Domains: ``lam_max`` > 0 in [1.18e-38, 3.4e38], ``n`` an int >= 1, ``sigma`` an int in [1, n].

    n matrices of size n×n: H_i = m e₁e₁ᵀ for the first ``sigma`` samples and 0 for the rest,
    m = λ₁ n/σ, so that λ_max(H) = λ₁ (= ``lam_max``), λ_max(S) = mσ, max_i λ_max(H_i) = m and
    the coherence measure is exactly σ. Only e₁ moves, so every matrix commutes and the
    Bernoulli-batch SAM step there is the scalar 1 − η(1 + (ρ/α)λ₁)h_B, with h_B = (m/B)·K,
    K ~ Binomial(σ, B/n).

    >>> H = coherence_lower_bound_hessians(2.0, n=4, sigma=2)
    >>> float(H.mean(axis=0)[0, 0]), round(coherence_measure(H), 12)
    (2.0, 2.0)
    """
    lam_max = check_positive("lam_max", lam_max)
    n = check_positive_int("n", n)
    sigma = check_positive_int("sigma", sigma)
    if sigma > n:
        raise ValueError(f"sigma must be an integer in [1, n = {n}], got {sigma}")
    check_fits_memory("coherence_lower_bound_hessians", "n", n, 8.0 * n**3)    # the (n, n, n) stack
    _check_scale("lam_max · n / sigma", lam_max * n / sigma, n)        # the entry m, checked as Hessians are
    H = np.zeros((n, n, n))
    H[:sigma, 0, 0] = lam_max * n / sigma
    return H


def sam_coherence_matrix(hessians: Any, rho: float, alpha: float = 1.0) -> np.ndarray:
    """S^SAM_ij = √Tr((I + (ρ/α)H) H_i (I + (ρ/α)H) H_j): the coherence of the effective H̃_i.

    ``rho`` >= 0 (any value in [0, 3.4e38]) and ``alpha`` > 0 in [1.18e-38, 3.4e38], as
    :func:`sam_effective_hessians`'s (whose stack may pass 3.4e38: computed values, not inputs).
    """
    effective = sam_effective_hessians(hessians, rho, alpha)
    with run_values():      # a large rho's effective stack was refused as input, naming hessians
        return coherence_matrix(effective)


def dexter_divergence_condition(hessians: Any, lr: float, batch_size: int) -> bool:
    """True when λ_max(H) ≥ (σ/η)(n/B − 1)^{-1/2} (sufficient for mean-square divergence), decided exactly on
    the float η and the computed λ_max(mean H) and σ (no rounding of the quotient at the boundary).

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n] (n the number of Hessians);
    lr · d · max|H̃| at most 1e150 (else refused naming lr, or rho/alpha).

    Dexter et al. (2024) Theorem 1, for Bernoulli batches of mean size B; restated in
    Chang & Khanna (Thm 3.1(1), C.14) as the divergence condition of SGD and of the
    randomly perturbed SGD. Full batch (B = n) never satisfies it.

    >>> H = np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0])])
    >>> dexter_divergence_condition(H, lr=2.0, batch_size=1)
    True
    """
    H = check_hessians("hessians", hessians, psd=True)
    lr = check_positive("lr", lr)
    n = H.shape[0]
    B = _check_batch(batch_size, n)
    if B == n:
        return False
    sigma = coherence_measure(H)
    lam = float(np.linalg.eigvalsh(H.mean(axis=0))[-1])
    if lam <= 0 or not math.isfinite(sigma):   # the rounded form: a 0 (or NaN) side decides it alike
        return bool(lam >= sigma / (lr * math.sqrt((n - B) / B)))
    # exactly, on the floats λ_max, σ and η, squared: (λη)²(n − B) >= σ²B (the rounded quotient decided the
    # boundary either way, as gd_stable's product did; red23a's class)
    return bool((Fraction(lam) * Fraction(lr)) ** 2 * (n - B) >= Fraction(sigma) ** 2 * B)


def sam_divergence_condition(hessians: Any, lr: float, batch_size: int, rho: float,
                             alpha: float = 1.0) -> bool:
    """Dexter's condition on the SAM surface: λ_max(H_SAM) ≥ (σ_SAM/η)(n/B − 1)^{-1/2}.

    H_SAM = H(I + (ρ/α)H) and σ_SAM from S^SAM (Chang & Khanna, Thm 3.2 and Appendix
    C.9 define these effective quantities); exact as a sufficient condition because SAM
    is SGD on the H̃_i of :func:`sam_effective_hessians`. ``lr`` > 0 and ``batch_size`` as
    :func:`dexter_divergence_condition`'s; ``rho`` >= 0 (any value in [0, 3.4e38]) and ``alpha`` > 0 in
    [1.18e-38, 3.4e38], as :func:`sam_effective_hessians`'s.
    """
    effective = sam_effective_hessians(hessians, rho, alpha)
    with run_values():      # a large rho's effective stack was refused as input, naming hessians
        return dexter_divergence_condition(effective, lr, batch_size)


# ----------------------------------------------------------------------------- perturbation
def perturbed_stationary_moment(hessians: Any, lr: float, batch_size: int, noise_std: float, *,
                                sampling: str = "without_replacement") -> np.ndarray | None:
    """lim E[w_k w_kᵀ] of w ← (I − ηH_B)(w + ξ), Cov ξ = s²I: (I − T)⁻¹ T(s² I); None if ρ(T) ≥ 1.

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n] (n the number of Hessians),
    ``sampling`` one of ``SAMPLINGS``; ``noise_std`` >= 0 (any value in [0, 3.4e38]); lr · d · max|H̃| at
    most 1e150 (else refused naming lr, or rho/alpha).

    The d²×d² system is solved directly for d ≤ DENSE_MAX_DIM (to rounding) and by conjugate
    gradients above (I − T is symmetric positive definite when ρ(T) < 1; relative residual 1e-12); a
    conjugate-gradient run that does not converge raises ``RuntimeError`` (numerical, not an argument).
    Both solve (I − T)/η = L − ηQ formed directly, so tiny steps keep their digits (the moment grows like
    s²/(2ηλ): lr = 1e-20 gives ~1e20, not None); for d ≤ DENSE_MAX_DIM ρ(T) < 1 is decided on that
    matrix too (its eigenvalues in (0, 2/η)), a smallest eigenvalue below 1e3·d·2.2e-16 of the largest
    counting as 0 (a singular mean Hessian: ρ(T) = 1 on its null space, None). A moment past float64's
    range (s²/η beyond ~1e308) is refused naming noise_std and lr.

    >>> X = perturbed_stationary_moment(np.eye(1)[None], lr=0.5, batch_size=1, noise_std=1.0)
    >>> round(float(X[0, 0]), 6)   # x = 0.25 (x + 1)
    0.333333
    """
    H, lr, B, _, _ = _check_common(hessians, lr, batch_size, sampling, 0.0, 1.0)
    s = check_nonnegative("noise_std", noise_std)
    d = H.shape[1]
    _check_scale("noise_std", s, d)
    a, b = batch_moment_coefficients(H.shape[0], B, sampling)
    rhs = _apply(H, (s * s) * np.eye(d), lr, a, b).reshape(-1)       # T(s²I)
    if d <= DENSE_MAX_DIM:
        L, Q = _dense_pieces(H, a, b)
        scaled = L - lr * Q                     # (I − T)/η without I − (I − ηL + η²Q)'s cancellation
        vals = np.linalg.eigvalsh(scaled)
        top = float(np.abs(vals).max(initial=0.0))
        # ρ(T) < 1 ⇔ the eigenvalues of I − T lie in (0, 2) (the radius itself rounded to 1 at lr = 1e-20)
        if not (vals[0] > 1e3 * d * EPS64 * top and vals[-1] < 2.0 / lr):
            return None
        sol = np.linalg.solve(scaled, rhs)
    else:
        if mean_square_radius(H, lr, B, sampling=sampling, restrict_to_range=False) >= 1.0:
            return None
        op = spla.LinearOperator(
            (d * d, d * d), dtype=np.float64,
            matvec=lambda v: _apply_deficit(H, v.reshape(d, d), lr, a, b).reshape(-1))
        sol, info = spla.cg(op, rhs, rtol=1e-12, maxiter=10_000)
        if info != 0:
            raise RuntimeError(f"conjugate gradients did not converge (info={info})")
    with np.errstate(over="ignore"):
        sol = sol / lr
    if not np.all(np.isfinite(sol)):
        raise ValueError(f"the stationary moment overflows float64 (~noise_std²/(2·lr·λ) with noise_std = "
                         f"{s!r}, lr = {lr!r}); a smaller noise_std or larger lr keeps it finite")
    X = sol.reshape(d, d)
    return 0.5 * (X + X.T)


def perturbed_mean_square(hessians: Any, lr: float, batch_size: int, noise_std: float, steps: int, *,
                          sampling: str = "without_replacement") -> np.ndarray:
    """E‖w_k‖², k = 0, …, steps, of w ← (I − ηH_B)(w + ξ), Cov ξ = s²I, w_0 ~ N(0, I), exactly.

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n] (n the number of Hessians),
    ``sampling`` one of ``SAMPLINGS``; ``noise_std`` >= 0 (any value in [0, 3.4e38]); ``steps`` an int in
    [0, 2**31 - 1]; lr · d · max|H̃| at most 1e150 (else refused naming lr, or rho/alpha).

    The second moment obeys X_{k+1} = T(X_k + s²I) from X_0 = I (T the SGD operator), so
    X_k = T^k(I) + s²Σ_{j=1}^{k} T^j(I); ``noise_std = 0`` is plain SGD, tr T^k(I). Entries
    grow like ρ(T)^k: beyond float range they are inf. A run estimated past
    :data:`MAX_RUN_SECONDS` (~30 µs a step plus ~2 ns per n·d³) is refused naming ``steps``.

    >>> perturbed_mean_square(np.eye(1)[None], lr=0.5, batch_size=1, noise_std=1.0, steps=2).tolist()
    [1.0, 0.5, 0.375]
    """
    H, lr, B, _, _ = _check_common(hessians, lr, batch_size, sampling, 0.0, 1.0)
    s = check_nonnegative("noise_std", noise_std)
    steps = check_count("steps", steps, 0)     # <= 2**31 - 1: 2**31 steps hung
    _check_scale("noise_std", s, H.shape[1])
    _check_run_length("perturbed_mean_square", steps, 30e-6 + 2e-9 * H.shape[0] * H.shape[1] ** 3,
                      f" (n = {H.shape[0]}, d = {H.shape[1]})")
    a, b = batch_moment_coefficients(H.shape[0], B, sampling)
    d = H.shape[1]
    X, noise = np.eye(d), (s * s) * np.eye(d)
    out = np.empty(steps + 1)
    out[0] = d
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(1, steps + 1):
            X = _apply(H, X + noise, lr, a, b)
            out[k] = np.trace(X)
    return out


# ----------------------------------------------------------------------------- simulation
def _sample_batches(rng: np.random.Generator, replicates: int, n: int, B: int, sampling: str
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per-replicate weights c (replicates, n) with H_B = Σ_i c_i H_i."""
    if sampling == "with_replacement":
        idx = rng.integers(0, n, size=(replicates, B))
        weights = np.zeros((replicates, n))
        np.add.at(weights, (np.arange(replicates)[:, None], idx), 1.0 / B)
        return weights, idx
    if sampling == "bernoulli":
        return (rng.random((replicates, n)) < B / n) / B, None
    idx = np.argsort(rng.random((replicates, n)), axis=1)[:, :B]
    weights = np.zeros((replicates, n))
    np.put_along_axis(weights, idx, 1.0 / B, axis=1)
    return weights, idx


def simulate_linearized(hessians: Any, lr: float, batch_size: int, steps: int, *,
                        replicates: int = 1, sampling: str = "without_replacement",
                        rho: float = 0.0, alpha: float = 1.0, noise_std: float = 0.0,
                        track: str = "auto", seed: int = 0) -> dict[str, np.ndarray]:
    """Run the linearized dynamics ``replicates`` times, each with its own batch sequence.

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n] (n the number of Hessians),
    ``sampling`` one of ``SAMPLINGS``, ``rho`` >= 0 (any value in [0, 3.4e38]) and ``alpha`` > 0 in
    [1.18e-38, 3.4e38]; ``steps`` an int in [0, 2**31 - 1]; ``replicates`` an int in [1, 2**31 - 1];
    ``noise_std`` >= 0 (any value in [0, 3.4e38]); ``seed`` an int in [0, 2**64); lr · d · max|H̃| at most
    1e150 (else refused naming lr, or rho/alpha).

    ``track="vector"`` follows one iterate per replicate from w_0 ~ N(0, I);
    ``track="product"`` follows the product P_k = J_k ⋯ J_1 and records ‖P_k‖²_F / d,
    which is E[‖w_k‖²] / E[‖w_0‖²] averaged exactly over w_0 ~ N(0, I) given the batches
    (less Monte Carlo variance; no noise allowed). ``auto``: product when ``noise_std == 0``
    and d ≤ 30. Iterates are renormalized each step, so nothing overflows. A run estimated past
    :data:`MAX_RUN_SECONDS` (~40 µs a step plus ~3 ns per replicates·(n + d)·d²) is refused naming
    ``steps`` and ``replicates``.

    Returns ``log_sq_norms`` (replicates, steps + 1), the per-replicate log squared norms
    (log ‖P_k‖²_F / d for products), and ``log_mean_sq`` (steps + 1,), the log of their
    Monte Carlo mean relative to step 0: an unbiased-in-the-mean estimate of k·log ρ(T)
    for SGD and SAM (heavy-tailed when ρ(T) > 1, see the paper note).

    >>> out = simulate_linearized(np.eye(2)[None], lr=0.5, batch_size=1, steps=3, replicates=4)
    >>> np.allclose(out["log_mean_sq"][-1], 3 * np.log(0.25))
    True
    """
    H, lr, B, rho, alpha = _check_common(hessians, lr, batch_size, sampling, rho, alpha)
    steps = check_count("steps", steps, 0)     # <= 2**31 - 1
    seed = check_seed(seed)
    replicates = check_count("replicates", replicates, 1)
    s = check_nonnegative("noise_std", noise_std)
    _check_scale("noise_std", s, H.shape[1])
    # the (replicates, steps + 1) log records and the (replicates, d, d) products, before anything is built
    check_fits_memory("simulate_linearized", "replicates" if replicates >= steps else "steps",
                      max(replicates, steps), 8.0 * replicates * (steps + 1 + H.shape[1] ** 2))
    check_choice("track", track, ("auto", "vector", "product"))
    n, d, _ = H.shape
    _check_run_length("simulate_linearized", steps, 40e-6 + 3e-9 * replicates * (n + d) * d * d,
                      f" with replicates={replicates} (n = {n}, d = {d})")
    if track == "auto":
        track = "product" if s == 0 and d <= DENSE_MAX_DIM else "vector"
    if track == "product" and s > 0:
        raise ValueError("track='product' needs noise_std == 0 (the noise is not multiplicative)")
    rng = np.random.default_rng(seed)
    M = np.eye(d) + (rho / alpha) * H.mean(axis=0)
    if track == "product":
        w = np.broadcast_to(np.eye(d), (replicates, d, d)).copy()
    else:
        w = rng.standard_normal((replicates, d))[:, :, None]
    log_scale = np.zeros(replicates)
    logs = np.empty((replicates, steps + 1))
    sq = np.einsum("rab,rab->r", w, w)
    logs[:, 0] = np.log(sq) - math.log(d)
    for k in range(1, steps + 1):
        weights, _ = _sample_batches(rng, replicates, n, B, sampling)
        HB = np.einsum("ri,iab->rab", weights, H)
        if s > 0:
            w = w + s * np.exp(-0.5 * log_scale)[:, None, None] * rng.standard_normal(w.shape)
        u = M @ w if rho > 0 else w
        w = w - lr * (HB @ u)
        sq = np.einsum("rab,rab->r", w, w)
        with np.errstate(divide="ignore"):
            logs[:, k] = log_scale + np.log(sq) - math.log(d)
        norm2 = np.where(sq > 0, sq, 1.0)
        w = w / np.sqrt(norm2)[:, None, None]
        log_scale = log_scale + np.log(norm2)
    top = logs.max(axis=0)
    safe_top = np.where(np.isfinite(top), top, 0.0)         # all replicates at w = 0: log 0 = −inf
    with np.errstate(divide="ignore"):
        log_mean = np.where(np.isfinite(top),
                            safe_top + np.log(np.mean(np.exp(logs - safe_top), axis=0)), -np.inf)
    return {"log_sq_norms": logs, "log_mean_sq": log_mean - log_mean[0] if track == "vector"
            else log_mean}
