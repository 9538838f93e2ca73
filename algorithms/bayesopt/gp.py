"""Noise-free Gaussian-process regression with an incremental Cholesky factor.

Given observations y_i = g(x_i) and a kernel k, the posterior at x is

    μ_t(x) = m + k_t(x)ᵀ (K_t + εI)⁻¹ (y − m),     σ_t²(x) = k(x, x) − k_t(x)ᵀ (K_t + εI)⁻¹ k_t(x)

(eq. (2) of the paper, with a prior mean m). The jitter ε = ``jitter`` · k(x, x) (default
1e-8 relative) only keeps the factor positive definite: the observations are exact. A new point
appends one row to the lower factor L (L Lᵀ = K_t + εI) in O(t²): l = L⁻¹k_t(x),
pivot² = k(x, x) + ε − ‖l‖². When x (nearly) repeats an observed point round-off can drive
pivot² to or below zero; it is floored at ε, which is the pivot of the exact factor for a point
at distance 0, so the factor stays valid over hundreds of points. The whitened targets
w = L⁻¹(y − m) are updated alongside, so μ_t(x) = m + (L⁻¹k_t(x))ᵀw needs one triangular solve.

References
----------
C. E. Rasmussen, C. K. I. Williams. Gaussian Processes for Machine Learning, Algorithm 2.1 (2006).
H. Wang et al. Convergence Rates of Constrained Expected Improvement, arXiv:2505.11323 (eq. (2)).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.optimize import minimize

from algorithms._validation import (
    as_float_array,
    as_real_array,
    check_bool,
    check_count,
    check_seed,
    read_only,
    refuse_unknown_attribute,
    stable_norm,
)
from algorithms.bayesopt.kernels import TINY, Kernel, check_scale

#: the largest jitter (relative noise variance) a GP or a fit takes: 1e8 times the prior variance leaves the
#: observations no weight at all; above it ε = jitter · outputscale overflowed (1e308 gave an infinite
#: diagonal, a factor of inf and posteriors equal to the prior, in silence)
JITTER_MAX = 1e8
#: the most L-BFGS-B searches fit_kernel runs (n_restarts): 10**9 searches ran on for days (a hang)
RESTARTS_MAX = 1000

#: a new point whose conditional variance is below this fraction of the prior's is a repeat of observed
#: points (only reachable with jitter < 1e-12): another value there contradicts them
CONTRADICTION_VARIANCE = 1e-12
#: a repeated point (its conditional variance at most 3ε) whose value lies more than this many standard
#: deviations √(variance) from the posterior there contradicts the earlier observations: with the default
#: jitter 1e-8 a difference above about 0.15 prior standard deviations; a jitter used as a noise ratio
#: (1e-2 and up) leaves repeats to be averaged, as noisy evaluations are
DUPLICATE_SIGMAS = 1000.0
#: the largest jitter whose observations count as exact for that test (above it, a noise ratio)
REPEAT_JITTER_MAX = 1e-4

__all__ = ["GaussianProcess", "fit_kernel"]


def spread_of(y: np.ndarray) -> float:
    """The (population) standard deviation of the finite values ``y``, without underflow: ``np.std`` squares
    the deviations, 0 for values of spread below about 1e-154 (f ~ 1e-300 was then modelled as a constant
    and searched blind, in silence)."""
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if not y.size:
        return 0.0
    spread = float(y.std())
    if spread * spread >= np.finfo(np.float64).tiny or np.ptp(y) == 0:   # numpy's own value, bit for bit
        return spread
    return stable_norm(y - y.mean()) / float(np.sqrt(y.size))


def robust_spread(y: np.ndarray, reference: np.ndarray | None = None) -> float:
    """f's scale for unit-free tolerances: :func:`spread_of` of ``y``, capped at 1000 times 1.4826 median
    absolute deviations of the ``reference`` values (``y`` itself when None; a run passes its initial design,
    a sample of the box whose spread does not shrink as the run converges), which one outlier does not move;
    uncapped where the reference has fewer than 3 finite values or a MAD of 0. One evaluation of 1e30 beside
    values of order 0.1 made the standard deviation 4.7e29, and a default tol of 1e-6 times it ended a solve
    ``Success`` at its first point, 0.09 above f*; for values without such an outlier the cap never binds."""
    spread = spread_of(y)
    ref = np.asarray(y if reference is None else reference, dtype=np.float64).reshape(-1)
    ref = ref[np.isfinite(ref)]
    if ref.size < 3:
        return spread
    # halves first: the deviations of values near ±3.4e38 stay finite
    deviation = np.median(np.abs(0.5 * ref - 0.5 * np.median(ref))) * 2.0
    robust = 1.4826e3 * float(deviation)
    return min(spread, robust) if robust > 0 else spread


class ReadOnlyError(AttributeError, ValueError):
    """Setting a read-only attribute: Python's ``AttributeError`` and the package's ``ValueError``."""


def _check_kernel(kernel, name: str = "kernel") -> Kernel:
    if not isinstance(kernel, Kernel):
        raise TypeError(f"{name} must be an algorithms.bayesopt.Kernel, got {type(kernel).__name__}")
    return kernel


def _read_only(view: np.ndarray) -> np.ndarray:
    # a copy in immutable memory: a read-only view's flag could be set back (gp.y[1] = 100 was used; red18a)
    return read_only(view)


def _check_diagonal(jitter: float, kernel: Kernel) -> None:
    if not TINY <= jitter * kernel.outputscale < np.inf:
        raise ValueError(f"jitter · kernel.outputscale (the diagonal ε) must be a positive normal float, "
                         f"got {jitter!r} · {kernel.outputscale!r} = {jitter * kernel.outputscale!r}")


def _check_mean(mean) -> float:
    return float(as_float_array("mean", mean, ndim=0))


class GaussianProcess:
    """A zero-noise GP posterior over one output, updated one observation at a time.

    ``kernel`` a :class:`Kernel`; ``jitter`` ε/k(x, x), a finite float in [1.18e-38, 1e8] (0 and
    subnormals are refused: the factor needs ε > 0; 1e-8 keeps the observations exact to 8 digits; larger
    values act as a noise-to-signal variance ratio); ``mean`` the prior mean, a real of magnitude at most
    3.4e38, the working range (each checked again when set after construction, and the posterior then
    rebuilt from the observations). The observations ``y`` of :meth:`add` are finite reals of magnitude at
    most 3.4e38 whose posterior arithmetic stays inside float64 (one that overflows is refused, naming
    ``y``); the points ``X`` finite, entries at most 3.4e38 in magnitude. The observations are exact: a point
    observed again (or a point numerically the same) with a value more than 1000 jitter standard deviations
    from the earlier ones (with the default jitter, about 0.15 prior standard deviations) contradicts them
    and is refused, naming ``y``; the same value again is valid. A jitter above 1e-4 (a noise ratio)
    lets such repeats through, averaged as noisy evaluations. Distinct points become "numerically the same"
    when the kernel's ``lengthscale`` far exceeds their spread (1e3 on the unit box): a contradiction there is
    refused naming the lengthscale (lower it, fit it, or raise ``jitter``).

    >>> gp = GaussianProcess(Kernel("se", lengthscale=0.3))
    >>> gp.add(np.array([[0.0], [0.5], [1.0]]), np.array([0.0, 1.0, 0.0]))
    >>> mu, sigma = gp.predict(np.array([[0.5], [0.25]]))
    >>> np.round(mu, 6), np.round(sigma, 3)
    (array([1.      , 0.593761]), array([0.   , 0.436]))
    """

    #: the hyperparameters: checked when set, after construction too, and the posterior rebuilt from the data
    #: (gp.kernel = "x" raised an AttributeError at the next add; a new valid kernel predicted with the old
    #: factor, a wrong posterior in silence)
    _HYPERPARAMETERS = ("kernel", "jitter", "mean")

    def __init__(self, kernel: Kernel, *, jitter: float = 1e-8, mean: float = 0.0) -> None:
        kernel = _check_kernel(kernel)
        jitter = check_scale("jitter", jitter, upper=JITTER_MAX)
        _check_diagonal(jitter, kernel)
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "jitter", jitter)
        object.__setattr__(self, "mean", _check_mean(mean))
        self._reset()

    def _reset(self) -> None:
        self._dim: int | None = None
        self._X = np.empty((0, 0))
        self._y = np.empty(0)
        self._L = np.empty((0, 0))
        self._w = np.empty(0)
        self._n = 0

    def __setattr__(self, name: str, value) -> None:
        if name in ("X", "y", "n", "cholesky_factor"):   # read-only properties: Python's "has no setter"
            raise ReadOnlyError(f"{name} is read-only (the observations and their factor): add(X, y) appends "
                                f"observations; a new GaussianProcess starts over")
        if name not in self._HYPERPARAMETERS:
            # gp.jiter = 1e-2 was stored and ignored (the jitter kept): a name the GP does not take is refused
            refuse_unknown_attribute(self, name, self._HYPERPARAMETERS)
            object.__setattr__(self, name, value)
            return
        if name == "kernel":
            value = _check_kernel(value)
            _check_diagonal(self.jitter, value)
        elif name == "jitter":
            value = check_scale("jitter", value, upper=JITTER_MAX)
            _check_diagonal(value, self.kernel)
        else:
            value = _check_mean(value)
        old, X, y = getattr(self, name), self.X.copy(), self.y.copy()
        object.__setattr__(self, name, value)
        if X.shape[0]:   # the factor and weights belong to the old hyperparameters: rebuilt from the data
            self._reset()
            try:
                self.add(X, y)
            except ValueError:   # the data overflow under the new value: the old posterior is restored
                object.__setattr__(self, name, old)
                self._reset()
                self.add(X, y)
                raise

    @property
    def n(self) -> int:
        """The number of observations."""
        return self._n

    @property
    def X(self) -> np.ndarray:
        """The observed inputs (n, d), a read-only view (writing to it would desynchronize the factor)."""
        return _read_only(self._X[: self._n])

    @property
    def y(self) -> np.ndarray:
        """The observed values (n,), a read-only view."""
        return _read_only(self._y[: self._n])

    @property
    def cholesky_factor(self) -> np.ndarray:
        """L with L Lᵀ = K_t + εI (lower triangular, t × t), a read-only view."""
        return _read_only(self._L[: self._n, : self._n])

    def _grow(self, needed: int) -> None:
        capacity = self._X.shape[0]
        if needed <= capacity:
            return
        new = max(needed, 2 * capacity, 16)
        X, y, L, w = (np.zeros((new, self._dim)), np.zeros(new), np.zeros((new, new)), np.zeros(new))
        n = self._n
        X[:n], y[:n], L[:n, :n], w[:n] = self._X[:n], self._y[:n], self._L[:n, :n], self._w[:n]
        self._X, self._y, self._L, self._w = X, y, L, w

    def add(self, X, y) -> None:
        """Condition on the exact observations ``y`` (shape (n,)) at the rows of ``X`` (shape (n, d)); all or
        nothing (a refused batch leaves the posterior as it was). ``X`` and ``y`` of any real dtype are
        converted to float64; an empty batch (0 rows) adds nothing and leaves the dimension d unset."""
        X = as_float_array("X", X, ndim=2, dtype=np.float64)
        y = as_float_array("y", y, ndim=1, dtype=np.float64)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X and y must have as many rows, got {X.shape[0]} and {y.shape[0]}")
        if X.shape[1] == 0:   # a 0-column X put every observation at one point (k = 1 between all)
            raise ValueError(f"X must have at least one column, got shape {X.shape}")
        if X.shape[0] == 0 and self._dim is None:   # an empty batch fixed d (a later (n, d') was refused)
            return
        if self._dim is None:
            self._dim = X.shape[1]
            self._X = np.empty((0, self._dim))
        elif X.shape[1] != self._dim:
            raise ValueError(f"X must have {self._dim} columns, got {X.shape[1]}")
        n_before = self._n
        try:
            self._condition(X, y)
        except BaseException:   # all or nothing: y = [0, 1, 1e308] had added two rows before failing
            self._n = n_before
            if n_before == 0:
                self._reset()
            raise

    def _condition(self, X: np.ndarray, y: np.ndarray) -> None:
        self._grow(self._n + X.shape[0])
        prior_var = self.kernel.outputscale
        eps = self.jitter * prior_var
        for x, value in zip(X, y):
            n = self._n
            k_vec = self.kernel(self._X[:n], x[None, :])[:, 0]
            row = solve_triangular(self._L[:n, :n], k_vec, lower=True, check_finite=False) if n else k_vec
            pivot = np.sqrt(max(prior_var + eps - float(row @ row), eps))
            self._L[n, :n] = row
            self._L[n, n] = pivot
            residual = value - self.mean - float(row @ self._w[:n])
            # x repeats an observed point (its conditional variance is the jitter alone, below 1e-12 of the
            # prior's) with another value: no zero-noise GP fits both, and the posterior came back as mean 0,
            # sd 0 in silence (jitter 1e-300); the default jitter 1e-8 keeps the variance above this test
            # the default jitter leaves a repeat a variance of about 2ε (up to 3ε with several copies): a
            # repeat whose value lies more than DUPLICATE_SIGMAS of those standard deviations off the earlier
            # ones contradicts them as well (y = 0 and 1 at one x came back as the average 0.5, sd 7e-5)
            repeat = self.jitter <= REPEAT_JITTER_MAX and \
                pivot * pivot <= 3.0 * eps + CONTRADICTION_VARIANCE * prior_var
            if n and (pivot * pivot <= CONTRADICTION_VARIANCE * prior_var or
                      (repeat and abs(residual) > DUPLICATE_SIGMAS * pivot)) and \
                    abs(residual) > 1e-6 * (np.sqrt(prior_var) + abs(value - self.mean)):
                raise ValueError(self._contradiction(x, value, n))
            with np.errstate(over="ignore", invalid="ignore"):
                w = residual / pivot
            if not np.isfinite(w):   # y of magnitude 1e308: w overflowed, and the posterior mean was NaN
                raise ValueError(f"y = {value!r} (with mean {self.mean!r}) overflows the GP's float64 "
                                 f"arithmetic; rescale y (standardize it, as CEI's fit does)")
            self._w[n] = w
            self._X[n], self._y[n] = x, value
            self._n = n + 1

    def _contradiction(self, x: np.ndarray, value: float, n: int) -> str:
        """Why y at x cannot be fitted: a repeated point, or distinct points the kernel's lengthscale makes
        one (a lengthscale far above their spread blamed a "duplicate" that did not exist, red20a)."""
        nearest = float(np.min(np.linalg.norm(self._X[:n] - x[None, :], axis=1)))
        head = f"y = {float(value)!r} at X row {x.tolist()!r:.60} contradicts the earlier observations"
        if nearest > 0.0:
            return (f"{head}: the nearest earlier point is {nearest:.3g} away, which the kernel's "
                    f"lengthscale = {self.kernel.lengthscale!r:.40} makes numerically the same point (with "
                    f"jitter = {self.jitter!r} a GP cannot fit both); use a lengthscale of about the points' "
                    f"spread "
                    f"(or fit it) or raise jitter (a noise ratio)")
        return (f"{head} at the same point: with jitter = {self.jitter!r} a GP cannot fit both; raise jitter "
                f"(a noise ratio) or drop the duplicate")

    def predict(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and standard deviation at the rows of ``X`` (each of shape (m,)); ``X`` of shape
        (m, d) (or (d,) for one point) of any real dtype, computed in float64 (float64 results). Before any
        observation, the prior: ``mean`` and √outputscale at every row (any d then); m = 0 rows give empty
        arrays."""
        raw = as_real_array("X", X)
        X = np.atleast_2d(raw)
        # a 0-d X (np.array(0.5)) is no point of shape (d,): np.atleast_2d made it one in silence
        if raw.ndim == 0 or X.ndim != 2 or (self._dim is not None and X.shape[1] != self._dim):
            raise ValueError(f"X must have shape (m, {self._dim or 'd'}) (or (d,) for one point), "
                             f"got {raw.shape}")
        if not np.all(np.isfinite(X)):   # the kernel's message named its own second argument, Y
            raise ValueError("X contains NaN or inf entries")
        prior_sd = np.sqrt(self.kernel.outputscale)
        if self._n == 0:
            return np.full(X.shape[0], self.mean), np.full(X.shape[0], prior_sd)
        K_cross = self.kernel(self.X, X)
        V = solve_triangular(self.cholesky_factor, K_cross, lower=True, check_finite=False)
        mu = self.mean + V.T @ self._w[: self._n]
        var = self.kernel.outputscale - np.einsum("ij,ij->j", V, V)
        return mu, np.sqrt(np.maximum(var, 0.0))

    def log_marginal_likelihood(self) -> float:
        """log p(y | X) under the prior (with the jitter as noise variance)."""
        w = self._w[: self._n]
        with np.errstate(over="ignore"):
            value = float(-0.5 * w @ w - np.log(np.diag(self.cholesky_factor)).sum()
                          - 0.5 * self._n * np.log(2.0 * np.pi))
        if not np.isfinite(value):   # y near 1e308: ‖w‖² overflowed and -inf came back
            raise ValueError(f"the log marginal likelihood of y (largest |y| "
                             f"{float(np.abs(self.y).max()):.3g}) overflows float64; rescale y")
        return value


def _check_repeats(X: np.ndarray, y: np.ndarray) -> None:
    """Rows of ``X`` repeated with another ``y`` (beyond 1e-9 relative): the search ran to its box's corner
    (lengthscale 10, outputscale 20) and returned that as the likelihood's maximum, in silence."""
    _, first, inverse = np.unique(X, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    reference = y[first[inverse]]
    off = np.flatnonzero(~np.isclose(y, reference, rtol=1e-9, atol=1e-12))
    if off.size:
        i = int(off[0])
        j = int(first[inverse[i]])
        raise ValueError(f"y = {float(y[i])!r} at X row {i} contradicts y = {float(y[j])!r} at the same "
                         f"point (X row {j}): observations are exact at jitter = 1e-4 and below; drop the "
                         f"repeat or raise jitter (a noise ratio)")


def _negative_lml(theta: np.ndarray, kernel: Kernel, X: np.ndarray, y: np.ndarray, jitter: float) -> float:
    trial = kernel.with_params(
        np.exp(theta[:-1]) if theta.size > 2 else float(np.exp(theta[0])), float(np.exp(theta[-1]))
    )
    K = trial(X, X)
    K[np.diag_indices_from(K)] += jitter * trial.outputscale
    try:
        L = cholesky(K, lower=True, check_finite=False)
    except LinAlgError:
        return 1e300
    w = solve_triangular(L, y, lower=True, check_finite=False)
    return float(0.5 * w @ w + np.log(np.diag(L)).sum())


def fit_kernel(
    X, y, kernel: Kernel, *, ard: bool = True, jitter: float = 1e-6, n_restarts: int = 2, seed: int = 0
) -> Kernel:
    """Maximum-marginal-likelihood lengthscale(s) and outputscale for a zero-mean GP on ``(X, y)``.

    ``seed`` (int in [0, 2**64)) draws the random restarts.

    Inputs are assumed scaled to [0, 1]^d and ``y`` standardized (mean 0, variance 1), so the
    search box is lengthscale ∈ [0.01, 10], outputscale ∈ [0.05, 20]. ``ard=True`` fits one
    lengthscale per coordinate. L-BFGS-B from ``kernel``'s own values and ``n_restarts − 1``
    random starts, a tie between starts keeping the earlier (so data that leave a lengthscale undetermined
    return the kernel's own); the fitting jitter (1e-6) is larger than the posterior's, for a stable search.

    ``X`` (n, d) with n >= 2 rows and d >= 1 columns in [0, 1] (spanning much less of the unit box, the
    fitted lengthscale can sit at the search box's edge 0.01); ``y`` (n,) finite, |mean| <= 10 and standard
    deviation in [0.1, 10] (a y of smaller spread is refused; within the range a spread far from 1 can still
    put the outputscale at its box's edge, 0.05 or 20: the box's maximum, not the likelihood's; constant
    y, of spread 0, is valid: its lengthscale is undetermined); a row of X repeated with
    another y is refused while ``jitter`` <= 1e-4 (exact observations); ``ard`` a bool; ``jitter`` a
    finite float in [1.18e-38, 1e8] (relative noise variance of the search); ``n_restarts`` an int in
    [1, 1000] (each is one L-BFGS-B search); ``seed`` an int in [0, 2**64).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(30, 1)); y = np.sin(6 * X[:, 0])
    >>> fitted = fit_kernel(X, (y - y.mean()) / y.std(), Kernel("se", lengthscale=1.0), ard=False)
    >>> 0.05 < fitted.lengthscale < 0.5
    True
    """
    kernel = _check_kernel(kernel)
    X = as_float_array("X", X, ndim=2, dtype=np.float64)
    y = as_float_array("y", y, ndim=1, dtype=np.float64)
    if X.shape[0] != y.shape[0] or X.shape[0] < 2:
        raise ValueError(f"X and y need the same number (>= 2) of rows, got {X.shape[0]} and {y.shape[0]}")
    if X.shape[1] == 0:   # the message blamed the kernel's lengthscale ("got []")
        raise ValueError(f"X must have at least one column, got shape {X.shape}")
    n_restarts = check_count("n_restarts", n_restarts, 1)   # 2**40 L-BFGS-B runs hung, unrefused
    if n_restarts > RESTARTS_MAX:   # 10**9 searches: a hang
        raise ValueError(f"n_restarts must be <= {RESTARTS_MAX} (each is one L-BFGS-B search), got "
                         f"{n_restarts}")
    jitter = check_scale("jitter", jitter, upper=JITTER_MAX)
    ard = check_bool("ard", ard)
    seed = check_seed(seed)
    # the search box below is for unit inputs and standardized outputs: X in metres (1e6) or y in
    # millions gave a fit clipped at the box's edge, returned as if it were the likelihood's maximum
    if X.size and (X.min() < -1e-9 or X.max() > 1 + 1e-9):
        raise ValueError(f"X must lie in [0, 1]^d (scale the inputs to the unit box), got entries in "
                         f"[{X.min():.3g}, {X.max():.3g}]")
    # 10: far outside standardized data (whose mean is 0 and standard deviation 1)
    # and 0.1 below: y of spread 1e-3 put the outputscale at the box's lower edge (0.05) and moved the
    # lengthscale, returned as the likelihood's maximum (red14a); constant y (spread 0) stays valid
    spread = spread_of(y)   # y.std() was 0 below ~1e-154: y of spread 1e-200 passed as "constant"
    if y.size and (abs(float(y.mean())) > 10.0 or spread > 10.0 or 0.0 < spread < 0.1):
        raise ValueError(f"y must be standardized (mean 0, variance 1: |mean| <= 10 and standard deviation "
                         f"in [0.1, 10], or 0 for constant y), got mean {float(y.mean()):.3g} and "
                         f"standard deviation {spread:.3g}")
    if np.ndim(kernel.lengthscale) == 1 and np.size(kernel.lengthscale) != X.shape[1]:
        raise ValueError(f"kernel has {np.size(kernel.lengthscale)} ARD lengthscales but X has {X.shape[1]} "
                         f"columns")
    if jitter <= REPEAT_JITTER_MAX:   # exact observations: a repeated row with another y fits no kernel
        _check_repeats(X, y)
    d = X.shape[1] if ard else 1
    lo = np.r_[np.full(d, np.log(0.01)), np.log(0.05)]
    hi = np.r_[np.full(d, np.log(10.0)), np.log(20.0)]
    start_scale = (
        np.broadcast_to(np.asarray(kernel.lengthscale, dtype=np.float64), (d,))
        if ard
        else np.atleast_1d(np.mean(kernel.lengthscale))
    )
    starts = [np.clip(np.r_[np.log(start_scale), np.log(kernel.outputscale)], lo, hi)]
    rng = np.random.default_rng(seed)
    starts += [rng.uniform(lo, hi) for _ in range(n_restarts - 1)]
    best_theta, best_value = starts[0], np.inf
    for theta0 in starts:
        res = minimize(
            _negative_lml,
            theta0,
            args=(kernel, X, y, jitter),
            method="L-BFGS-B",
            bounds=list(zip(lo, hi)),
            options={"maxiter": 200},
        )
        if res.fun < best_value:
            best_theta, best_value = res.x, res.fun
    scale = np.exp(best_theta[:-1]) if ard else float(np.exp(best_theta[0]))
    return kernel.with_params(scale, float(np.exp(best_theta[-1])))
