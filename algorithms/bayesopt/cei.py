"""Constrained expected improvement (CEI): Bayesian optimization of f subject to c <= 0.

Algorithm 1 of the paper. With independent GP posteriors for f and for each constraint cⱼ after t
evaluations and f⁺_t the best *feasible* observed value, the next point is

    x_{t+1} = argmax_x  EI_t(x) · Πⱼ Φ(−μ_{cⱼ,t}(x)/σ_{cⱼ,t}(x))          (eqs. (7)-(8))

found by maximizing log CEI: a dense set of candidates (uniform in the box plus Gaussian
perturbations of the best observed points), then L-BFGS-B from the best ``n_restarts`` of
them (gradients by batched central differences). The GPs live on the box mapped to [0, 1]^d
(so lengthscales are fractions of the box side).

Two settings, one switch (``fit``):

* ``fit=True`` (the default, the practical one, as BoTorch does): each output is standardized
  and its kernel's hyperparameters (ARD lengthscales, scale) are refitted by marginal likelihood
  after every evaluation, starting from ``kernel``. Use it on a real problem: nothing about its
  scale or smoothness has to be known in advance.
* ``fit=False`` (:meth:`CEI.paper`, the paper's setting): the kernel is fixed, zero prior mean,
  k(x, x) = outputscale (1 by default), and the Cholesky factors grow one row per evaluation.
  The regret bounds are stated for a known kernel; the claims of ``theorems/cei_rates.py`` run
  this. On a problem whose scale or lengthscale differs from the kernel's it can do much worse
  (a scaled Rosenbrock: f⁺ 0.385 against 0.0454 fitted, issue #43). A fixed lengthscale far above the
  points' spread (1e3 on the unit box) makes distinct points numerically one: two values there are refused
  with a ``ValueError`` naming the kernel's lengthscale (lower it, or fit it).

Without a feasible point yet (none in the initial design), the next point maximizes the
probability of feasibility Πⱼ Φ(−μ_cⱼ/σ_cⱼ) instead (f⁺ is undefined), until one is found; then
CEI takes over. ``noise`` > 0 models noisy evaluations (a noise-to-signal variance ratio added to
every GP's diagonal); the incumbent stays the best *observed* feasible value.

:meth:`CEI.ask_tell` gives the same method as ask/tell (``suggest()`` / ``observe(x, f, c)``),
for evaluations the user runs, or data already evaluated.

Stopping and retcodes (``tol`` defaults to 1e-6):

* ``Success``: ``problem.f_star`` is known and the simple regret f⁺_t − f* <= ``tol`` (a ``tol`` given to
  ``solve`` is absolute, in f's units; the default is 1e-6·S, S f's robust spread: the standard deviation
  of the observed finite f values, capped at 1000 times 1.4826 median absolute deviations of the initial
  design's finite values (when it has three or more and their MAD is > 0; the cap binds only for outliers),
  as for ``Stalled`` below, so f in units of 1e-30 does not succeed at once and one evaluation of 1e30
  among values of order 1 does not make the tolerance 1e23). Without f*
  nothing certifies optimality, so a run never ends in ``Success``. A feasible evaluation below f*
  (by more than 1e-6·max(|f*|, S), S that robust spread: unit-free) shows f*
  is not the minimum: the solve raises ``ValueError`` naming ``f_star`` (as does an ``x_star`` whose f is
  farther than that from f*).
* ``Stalled``: f* is unknown and the maximal CEI found fell to <= ``tol`` (the model expects no
  point to improve). That is the model's belief, not a certificate: a ``tol`` given to ``solve`` is
  absolute (in f's units); the default is 1e-6·S, S the robust spread of the observed f values above
  (so the same problem in other units stalls alike). A misspecified kernel (a lengthscale far too
  long) makes CEI small everywhere, so a run can stall after a few steps with a large regret; check
  the model before trusting it.
* ``MaxIters``: ``maxiters`` (default 50) CEI evaluations after the initial design ran out first.
  If no feasible point was found by then, ``sol.x`` is the point of least constraint violation
  and ``sol.value`` its f (not a feasible value).
* ``Diverged``: f or c returned a non-finite value (a finite one beyond the working range, magnitude
  above 3.4e38, is refused with a ``ValueError`` naming f(x) or c(x)); ``sol.x`` is the best feasible point
  so far (a callback that returns True for that evaluation's record ends the run ``Terminated``, as at any
  record).

``sol.x`` is the best feasible evaluated point (the dtype of ``problem.bounds``), ``sol.value``
f⁺; ``sol.original`` is the evaluation history (:class:`BOHistory`, always kept). With
``store_trace=True`` (only then: ``sol.trace`` is empty otherwise) each iteration after the
initial design adds a record with the iteration, the number of evaluations, the point and its f,
f⁺ (``inf`` before the first feasible point), the regret (when f* is known), the log acquisition
at the chosen point (log CEI; log PoF while no point is feasible, with ``"phase": "feasibility"``)
and there the posterior σ_f and EI of f (what the paper's bounds are built from). A callback gets
the same records whether or not they are stored; a run that ends before its first CEI step (the
design meets the target, ``maxiters=0``, a non-finite value in the design) calls it once: with
``solve``'s final record (iteration 0, the value, the retcode; see :mod:`algorithms.core`), except that a
design meeting the target with ``maxiters`` >= 1 is itself a record (iteration 0, the evaluations, f⁺ and
the regret; stored with ``store_trace=True``), so a callback's True there ends the run ``Terminated``.

References
----------
H. Wang, J. Wang, Z. Dai, N.-Y. Chiang, S. H. Ng, C. G. Petra. Convergence Rates of Constrained
Expected Improvement. NeurIPS 2025, arXiv:2505.11323 (Algorithm 1). J. R. Gardner, M. J. Kusner,
Z. Xu, K. Q. Weinberger, J. P. Cunningham. Bayesian optimization with inequality constraints. ICML 2014.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import threadpoolctl
from scipy.optimize import minimize
from scipy.stats import qmc
from threadpoolctl import threadpool_limits

from algorithms._validation import (
    WORKING_MAX,
    WORKING_MIN,
    CheckedRecord,
    as_float_array,
    as_real_array,
    check_bool,
    check_count,
    check_fits_memory,
    check_generator,
    check_int_at_least,
    check_nonnegative,
    check_seed,
    check_working_range,
    physical_memory,
    read_only,
    refuse_unknown_attribute,
    remember_validated,
    revalidate_if_reassigned,
    run_values,
    to_float,
)
from algorithms.bayesopt.acquisition import (
    expected_improvement,
    log_constrained_ei,
    log_probability_of_feasibility,
)
from algorithms.bayesopt.gp import (
    RESTARTS_MAX,
    GaussianProcess,
    _check_kernel,
    fit_kernel,
    robust_spread,
    spread_of,
)
from algorithms.bayesopt.kernels import SCALE_MAX, Kernel, check_scale
from algorithms.bayesopt.problem import ConstrainedBOProblem
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch

__all__ = ["CEI", "BOHistory", "CEIAskTell"]

_FLOOR = -1e300  # stands for log 0 inside the optimizer
_STEP = 1e-6  # central-difference step in unit coordinates
#: the largest noise ratio and jitter CEI takes: 1e6 times the prior variance leaves the observations no
#: weight (1e308 overflowed the GPs' diagonal and the fit's, and the run went on, on the prior alone)
NOISE_MAX = 1e6
#: bytes of one GaussianProcess object beyond its arrays (its dict, kernel, small arrays)
_GP_OVERHEAD_BYTES = 4096


def _as_blas_controller(call):
    """``call()`` (a threadpoolctl limit or restore) made as the process's BLAS controller, whichever thread
    runs it. threadpoolctl (3.8) lets only one thread at a time set OpenBLAS's process-wide thread count
    (the first to set it, until its ``with threadpool_limits`` ends; another thread's set is skipped in
    silence), so the run that restores the count may not be the one that limited it: control is taken for
    the call and released after it (older threadpoolctl versions have no such control)."""
    release = getattr(getattr(threadpoolctl, "OpenBLASController", None), "clear_controlling_thread", None)
    if release is not None:
        release(force=True)
    try:
        return call()
    finally:
        if release is not None:
            release()


class _OneBlasThread:
    """BLAS limited to one thread while any CEI run or ask/tell step is inside (:meth:`held`), restored when
    the last one leaves. The limit is process state (OpenBLAS's thread count), not a thread's: each run
    entering ``threadpool_limits`` on its own saved and restored it for everyone, so of two concurrent solves
    the first to end restored the old count under the other (whose last steps then ran on two BLAS threads
    and rounded differently: another x than the serial solve's), and the other's exit left one thread set for
    the whole process. Counted under a lock instead: the first to enter limits, the last to leave restores."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._limiter: threadpool_limits | None = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._users == 0:
                self._limiter = _as_blas_controller(lambda: threadpool_limits(limits=1, user_api="blas"))
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0:
                    limiter, self._limiter = self._limiter, None
                    _as_blas_controller(limiter.restore_original_limits)


#: the one counter of every CEI run in this process (the BLAS limit it guards is the process's)
_ONE_BLAS_THREAD = _OneBlasThread()


def _check_run_fits(algorithm: CEI, dim: int, m: int, n_design: int, n_more: int,
                    names: tuple[tuple[str, object], tuple[str, object], tuple[str, object]]) -> None:
    """Refuse, before anything is evaluated, a run whose arrays exceed this machine's memory, naming the
    argument that sizes them: the 1 + m GPs keep an N×N Cholesky factor each (N = n_design + n_more
    evaluations), and the acquisition's candidate set costs 8·n_candidates·(4d + 3N + 2(1 + m)) bytes.
    ``names`` are (name, value) of the design size, the further evaluations and the constraint count."""
    (design_name, design_value), (more_name, more_value), (m_name, m_value) = names
    n = to_float(n_design + n_more)   # maxiters = 10**400: an int product raised a bare OverflowError
    gp_bytes = (1 + m) * (8.0 * 2 * n * n + _GP_OVERHEAD_BYTES)   # the factor's capacity doubles
    if gp_bytes > physical_memory():
        if (1 + m) * _GP_OVERHEAD_BYTES > 16.0 * n * n or m > n:
            name, value = m_name, m_value
        else:
            name, value = (more_name, more_value) if n_more >= n_design else (design_name, design_value)
        check_fits_memory("CEI", name, value, gp_bytes)
    check_fits_memory("CEI", "n_candidates", algorithm.n_candidates,
                      8.0 * algorithm.n_candidates * (4 * dim + 3 * n + 2 * (1 + m)))


@dataclass(eq=False)   # identity ==: the generated one compared arrays ("truth value ... ambiguous")
class BOHistory(CheckedRecord):
    """Every evaluation of a run, in box coordinates: ``X`` (n, d), ``f`` (n,), ``c`` (n, m).

    ``n_initial`` (an int in [0, n]) is how many of the first rows are the initial design (the rest were
    proposed by the acquisition). Non-finite values f and c are kept (a ``Diverged`` run ends with one); the
    points X must be finite, and c has m >= 1 columns (one per constraint). Finite entries of ``X``, ``f``
    and ``c`` are reals of magnitude at most 3.4e38 (the working range: 1e39 is refused naming the field;
    a run's own records skip this check). The same checks run when a field
    is set afterwards (``history.n_initial = 99`` on 3 rows is refused).
    """

    X: np.ndarray
    f: np.ndarray
    c: np.ndarray
    n_initial: int

    def __post_init__(self) -> None:
        # non-finite values are kept: a Diverged run's history ends with the offending evaluation; strings
        # and bools are refused by name (np.asarray(dtype=float) parsed "1" and counted True as 1)
        self.X, self.f, self.c = (as_real_array(name, a) for name, a in (("X", self.X), ("f", self.f),
                                                                          ("c", self.c)))
        if (
            self.X.ndim != 2
            or self.f.shape != (self.X.shape[0],)
            or self.c.ndim != 2
            or self.c.shape[0] != self.X.shape[0]
        ):
            raise ValueError(
                f"BOHistory needs X (n, d), f (n,) and c (n, m) with one n, got {self.X.shape}, "
                f"{self.f.shape} and {self.c.shape}"
            )
        if not np.all(np.isfinite(self.X)):   # the points: always finite (only f and c may diverge)
            raise ValueError("X must hold finite points (only the values f and c may be non-finite), got "
                             "NaN or inf entries")
        # how many of the rows came from the initial design: at most all of them (n_initial = 10 with 3 rows
        # was kept; a run that diverged inside the design, or an ask/tell run, records the rows it has)
        self.n_initial = check_int_at_least("n_initial", self.n_initial, 0)
        if self.n_initial > self.X.shape[0]:
            raise ValueError(f"n_initial must be <= the number of rows of X ({self.X.shape[0]}): it counts "
                             f"the first rows that are the initial design, got {self.n_initial}")
        if self.c.shape[1] == 0:   # no constraint column: every point was "feasible" (np.all of nothing)
            raise ValueError(f"c must have m >= 1 columns (one per constraint), got shape {self.c.shape}")
        for name in ("X", "f", "c"):   # checked copies in immutable memory: history.X[0] = nan went unchecked
            object.__setattr__(self, name, read_only(getattr(self, name)))
        self._checked()

    @property
    def feasible(self) -> np.ndarray:
        return np.all(self.c <= 0, axis=1)

    def best_feasible(self) -> np.ndarray:
        """f⁺_t for t = 1..n (+inf before the first feasible point); a non-finite f (a diverged evaluation)
        is never the best (a NaN f at a feasible row made every later f⁺ NaN)."""
        usable = self.feasible & np.isfinite(self.f)
        return np.minimum.accumulate(np.where(usable, self.f, np.inf))


#: the most acquisition candidates per iteration (10**7 took 17 s per iteration, 14 min at the default 50
#: iterations; 10**5 takes about 0.2 s)
CANDIDATES_MAX = 10**5

#: Matérn-5/2, lengthscale 0.2 of the box side, unit scale: the paper's fixed kernel, and the fit's start
#: (a module constant, not a default_factory, so the signature and the repr show it)
DEFAULT_KERNEL = Kernel("matern", nu=2.5, lengthscale=0.2)


@dataclass(frozen=True)
class CEI(Algorithm):
    """Constrained expected improvement with GP surrogates (see the module docstring).

    Parameters
    ----------
    kernel : Kernel
        the GP kernel of f (default Matérn-5/2, lengthscale 0.2 of the box side, unit scale):
        the starting point of the fit with ``fit=True``, fixed with ``fit=False``.
    constraint_kernel : Kernel or None
        the constraints' kernel (``None``: ``kernel``).
    fit : bool
        ``True`` (default): standardized outputs, hyperparameters refitted by marginal
        likelihood after every evaluation (the practical setting). ``False``: the paper's fixed
        hyperparameters (:meth:`CEI.paper`); why both exist is in the module docstring.
    noise : float in [0, 1e6]
        observation-noise variance as a fraction of each GP's prior variance (0: exact
        evaluations, the paper's setting; a subnormal such as 1e-320 is as good as 0; 1e6 leaves the
        observations no weight, larger ratios are refused).
    n_candidates, n_restarts : int in [1, CANDIDATES_MAX = 10**5], int in [1, RESTARTS_MAX = 1000]
        (<= n_candidates)
        the dense candidate set and the L-BFGS-B restarts of the acquisition maximization (a solve
        refuses, naming n_candidates, a candidate set whose arrays exceed the machine's memory; each
        restart is one search per iteration, hours of searches at the cap).
    jitter : float in [1.18e-38, 1e6]
        the GPs' diagonal jitter, relative to the prior variance (0 and subnormals refused: the
        Cholesky factors need a positive diagonal).

    Solve options: ``maxiters`` caps the evaluations after the initial design, ``tol`` as in the module
    docstring, ``seed`` (an int in [0, 2**64); None is 0) draws the initial design and the restarts: the
    same seed gives the same run.

    >>> from algorithms import solve
    >>> from algorithms.bayesopt import two_disks_problem
    >>> sol = solve(two_disks_problem(initial=8), CEI.paper(kernel=Kernel("se", lengthscale=0.3)),
    ...             maxiters=15, seed=0)
    >>> sol.retcode, bool(sol.value - sol.problem.f_star < 0.05)
    (<RetCode.MaxIters: 'MaxIters'>, True)
    """

    kernel: Kernel = DEFAULT_KERNEL
    constraint_kernel: Kernel | None = None
    fit: bool = True
    noise: float = 0.0
    n_candidates: int = 1000
    n_restarts: int = 3
    jitter: float = 1e-8

    def __post_init__(self) -> None:
        _check_kernel(self.kernel)
        if self.constraint_kernel is not None:
            _check_kernel(self.constraint_kernel, "constraint_kernel")
        # stored as Python types (np.False_ / np.int64 were kept as given: repr, pickles and == showed them)
        object.__setattr__(self, "fit", check_bool("fit", self.fit))
        object.__setattr__(self, "noise", check_nonnegative("noise", self.noise))
        if self.noise > NOISE_MAX:
            raise ValueError(f"noise must be <= {NOISE_MAX:g} (a noise-to-signal variance ratio), got "
                             f"{self.noise!r}")
        # each iteration scores every candidate on every GP: 10**7 took 17 s per iteration (14 min at the
        # default 50), a hang
        object.__setattr__(self, "n_candidates", check_count(
            "n_candidates", self.n_candidates, 1, CANDIDATES_MAX,
            "CANDIDATES_MAX: each iteration scores every candidate, 10**7 took 17 s per iteration"))
        # each restart is one L-BFGS-B search per iteration: 2**31 - 1 of them ran for months (as fit_kernel)
        object.__setattr__(self, "n_restarts", check_count("n_restarts", self.n_restarts, 1, RESTARTS_MAX,
                                                           "RESTARTS_MAX: L-BFGS-B searches per iteration"))
        object.__setattr__(self, "jitter", check_scale("jitter", self.jitter, upper=NOISE_MAX))
        if self.n_restarts > self.n_candidates:   # the restarts start from the best candidates
            raise ValueError(f"n_restarts must be <= n_candidates = {self.n_candidates} (each restart starts "
                             f"from one candidate), got {self.n_restarts}")
        remember_validated(self)

    def _check_unchanged(self) -> None:
        """Before each run or ask/tell step: no field of the algorithm or of its kernels was replaced after
        construction with ``object.__setattr__`` (n_restarts = 0 met an IndexError, noise = -1 a message
        naming the jitter)."""
        revalidate_if_reassigned(self)   # its kernels too (nested)

    @classmethod
    def paper(cls, **overrides) -> CEI:
        """The paper's setting: fixed kernel hyperparameters (``fit=False``), exact evaluations.

        The regret rates of Wang et al. hold for a known kernel, so the claims run this; on a
        new problem the default (``fit=True``) is the better choice (module docstring).
        """
        if "fit" in overrides:
            raise TypeError("CEI.paper() fixes fit=False; use CEI(fit=...) to choose")
        return cls(fit=False, **overrides)

    def _check_dim(self, dim: int) -> None:
        """ARD lengthscales must match the problem's dimension (the kernel's or fit's message named X)."""
        for name, kernel in (("kernel", self.kernel), ("constraint_kernel", self.constraint_kernel)):
            if kernel is not None and np.ndim(kernel.lengthscale) == 1 and np.size(kernel.lengthscale) != dim:
                raise ValueError(f"{name} has {np.size(kernel.lengthscale)} ARD lengthscales but the problem "
                                 f"has dimension {dim}")

    def log_acquisition(self, mu_f, sigma_f, mu_c, sigma_c, best_feasible) -> np.ndarray:
        """The maximized criterion, log CEI (claims' controls override it to sabotage the method).

        ``mu_f``, ``sigma_f``, ``mu_c``, ``sigma_c`` and ``best_feasible`` as in
        :func:`log_constrained_ei` (finite; standard deviations >= 0). An override must return one real log
        value per point, shape (n,) (-inf allowed); another answer (a str, None, a scalar, another length,
        NaN or +inf) is refused with a ``TypeError`` naming ``log_acquisition``.
        """
        return log_constrained_ei(mu_f, sigma_f, mu_c, sigma_c, best_feasible)

    def maximize_acquisition(self, surrogates: _Surrogates, U: np.ndarray, F: np.ndarray, C: np.ndarray,
                             best_feasible: float, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """The acquisition-maximization step: the next point in [0, 1]^d and its log acquisition.

        ``rng`` (a ``numpy.random.Generator``) draws the random restarts.

        ``surrogates.gps`` are the GPs of f and of each constraint on unit coordinates (each with its
        ``kernel``, ``mean``, ``jitter``, ``X``, ``y`` and ``predict``), ``U``, ``F``, ``C`` the
        evaluations so far (unit coordinates) and ``best_feasible`` f⁺ (any real, ``inf`` while none is
        feasible).
        Ours: dense candidates, then L-BFGS-B on log CEI (the module docstring). A subclass may replace
        it with another maximizer of the same criterion (a peer's, e.g. BoTorch's, through
        ``theorems.core.adapters``); the loop around it stays the same. Its answer must be a pair (u,
        log_value): u a float array of shape (d,) in [0, 1]^d and log_value a real number (-inf allowed);
        another answer (a list point, a str, NaN or +inf log value) is refused naming
        ``maximize_acquisition``.
        """
        # a public hook: a str surrogates or None arrays met an AttributeError or a bare '<=' TypeError inside
        gps = getattr(surrogates, "gps", None)
        if not isinstance(surrogates, _Surrogates) or not gps or \
                not all(isinstance(gp, GaussianProcess) for gp in gps):
            raise TypeError(f"surrogates must be the run's surrogates (whose gps are the GaussianProcess "
                            f"models of f and each constraint), got {type(surrogates).__name__}")
        U = as_float_array("U", U, ndim=2, dtype=np.float64)
        F = as_float_array("F", F, ndim=1, dtype=np.float64)
        C = as_float_array("C", C, ndim=2, dtype=np.float64)
        if F.shape[0] != U.shape[0] or C.shape[0] != U.shape[0] or C.shape[1] != len(gps) - 1:
            raise ValueError(f"U (n, d), F (n,) and C (n, m) must share n, with m = {len(gps) - 1} (the "
                             f"constraint GPs), got U {U.shape}, F {F.shape} and C {C.shape}")
        if isinstance(best_feasible, bool | np.bool_) or \
                not isinstance(best_feasible, numbers.Real) or \
                np.isnan(best_feasible):
            raise TypeError(f"best_feasible must be a real number (inf while none is feasible), got "
                            f"{type(best_feasible).__name__} {best_feasible!r:.40}")
        best_feasible = to_float(best_feasible)
        if best_feasible != math.inf:   # -inf and 1e300 were kept (the working range; +inf: none feasible)
            if best_feasible == -math.inf:
                raise ValueError("best_feasible must be a finite f value or +inf (none feasible), got -inf")
            check_working_range("best_feasible", best_feasible, scale=False)
        rng = check_generator("rng", rng)
        feasible = np.all(C <= 0, axis=1)
        return _propose(surrogates, U, F, feasible, best_feasible, C, self, rng)

    def ask_tell(self, bounds, n_constraints: int, initial: int | np.ndarray = 10,
                 seed: int | None = 0) -> CEIAskTell:
        """CEI as ask/tell: ``suggest()`` the next point, ``observe(x, f, c)`` its values.

        ``bounds`` (d, 2) and ``initial`` (a design size or array) as in
        :class:`ConstrainedBOProblem`; ``n_constraints`` the length m of ``c``. The initial
        design is suggested first (skipped once that many points are observed, e.g. data the
        user already has), then CEI's maximizer (the feasibility probability's while no point is
        feasible). ``seed`` an int in [0, 2**64), or None for the default 0 (as ``solve``'s
        ``seed=None`` in CEI): same ``seed``, same suggestions, and the very points ``solve`` evaluates with
        that ``seed`` when each suggestion is observed with its f and c (the surrogates are updated as
        ``solve`` updates its own).

        >>> import numpy as np
        >>> bo = CEI(n_candidates=200).ask_tell([[0.0, 1.0], [0.0, 1.0]], n_constraints=1, initial=4)
        >>> for _ in range(6):
        ...     x = bo.suggest()
        ...     bo.observe(x, float(np.sum((x - 0.7) ** 2)), x[0] - 0.5)
        >>> bo.history.f.shape, bool(bo.best()[0][0] <= 0.5)
        ((6,), True)
        """
        seed = None if seed is None else check_seed(seed)
        # checked here: None went on to the problem, which called c (there is none) to count them
        n_constraints = check_count("n_constraints", n_constraints, 1)
        problem = ConstrainedBOProblem(f=_not_evaluated, c=_not_evaluated, bounds=bounds, initial=initial,
                                       n_constraints=n_constraints, name="ask/tell")
        self._check_dim(problem.dim)
        n_design = problem.initial if isinstance(problem.initial, int) else len(problem.initial)
        _check_run_fits(self, problem.dim, n_constraints, n_design, 0,
                        (("initial", initial), ("maxiters", None), ("n_constraints", n_constraints)))
        return CEIAskTell(self, problem, 0 if seed is None else int(seed))


def _not_evaluated(x):
    raise RuntimeError("an ask/tell problem is never evaluated by CEI: call observe(x, f, c)")


class CEIAskTell:
    """CEI driven by the user: ``suggest()`` proposes, ``observe(x, f, c)`` records (:meth:`CEI.ask_tell`).

    ``algorithm`` is the :class:`CEI` whose settings are used, ``problem`` the
    :class:`ConstrainedBOProblem` (its ``f`` and ``c`` are never called: the user evaluates) and
    ``seed`` an int in [0, 2**64) for the initial design and the acquisition's restarts. After
    construction ``algorithm`` may be replaced by another :class:`CEI` (used from the next ``suggest``);
    ``problem`` and ``seed`` are fixed (they made the initial design): setting them raises ``ValueError``.
    """

    def __setattr__(self, name: str, value) -> None:
        # plain attributes: algorithm = "x" was kept (suggest failed later, or never in the design phase),
        # a new seed or problem changed nothing already drawn, in silence
        if name == "algorithm":
            if not isinstance(value, CEI):
                raise TypeError(f"algorithm must be a CEI, got {type(value).__name__} {value!r:.60}")
            if "problem" in self.__dict__:
                value._check_dim(self.problem.dim)
        elif name in ("problem", "seed") and name in self.__dict__:
            raise ValueError(f"{name} is fixed once the run has started (it made the initial design); start "
                             f"a new run with CEI.ask_tell(...) instead")
        # bo.algoritm = CEI(fit=False) was stored and ignored: a name the run does not take is refused
        refuse_unknown_attribute(self, name, ("algorithm", "problem", "seed"))
        object.__setattr__(self, name, value)

    def __init__(self, algorithm: CEI, problem: ConstrainedBOProblem, seed: int) -> None:
        # public, so checked like CEI.ask_tell's own arguments (a str algorithm failed only at suggest())
        if not isinstance(algorithm, CEI):
            raise TypeError(f"algorithm must be a CEI, got {type(algorithm).__name__} {algorithm!r:.60}")
        if not isinstance(problem, ConstrainedBOProblem):
            raise TypeError(f"problem must be a ConstrainedBOProblem, got {type(problem).__name__}")
        seed = check_seed(seed)
        self.problem, self.seed = problem, seed
        self.algorithm = algorithm
        self._rng = np.random.default_rng(seed)
        self._design = _design(problem, self._rng)
        self._next = 0
        self._X: list[np.ndarray] = []
        self._F: list[float] = []
        self._C: list[np.ndarray] = []

    @property
    def history(self) -> BOHistory:
        m, d = self.problem.n_constraints, self.problem.dim
        return BOHistory(np.array(self._X).reshape(-1, d), np.array(self._F),
                         np.array(self._C).reshape(-1, m), min(len(self._design), len(self._F)))

    def observe(self, x, f, c) -> None:
        """Record f(x) and c(x) (finite; ``x`` inside the bounds); rows of arrays are several points: ``x``
        (n, d), ``f`` (n,), ``c`` (n, m) or flat (n·m,), m values per point (lists work as arrays: ``[c]`` is
        one point's m = 1 value). With ``noise`` = 0 (exact
        evaluations, the default) a point observed again must come with the same f and c (to 1e-9
        relative, or 1e-12 of the values' size for values near 0: their largest |value| observed, capped at
        1000 times their median |value|, so one value of 1e30 does not widen it): another value contradicts
        the first and is refused, naming ``f`` or ``c`` (noisy
        evaluations: ``CEI(noise=...)`` > 0, where repeats are averaged by the GPs). All or nothing: a
        refused batch records none of its rows; an empty batch (0 rows) records nothing."""
        self.problem._check_unchanged()
        self.algorithm._check_unchanged()
        d, m = self.problem.dim, self.problem.n_constraints
        X = as_float_array("x", x, dtype=np.float64)
        X = X.reshape(1, d) if X.shape == (d,) else X
        if X.ndim != 2 or X.shape[1] != d:
            raise ValueError(f"x must have shape ({d},) or (n, {d}), got {np.shape(x)}")
        n = X.shape[0]
        F = as_float_array("f", f, dtype=np.float64).reshape(-1)
        if F.shape != (n,):
            raise ValueError(f"f must hold {n} value(s), one per point of x, got shape {np.shape(f)}")
        C = as_float_array("c", c, dtype=np.float64)
        # a scalar or a flat (n·m,) array (m values per point, point after point) is reshaped; a 2-D array
        # must be (n, m): an (m, n) array was reshaped into (n, m) silently (its size matches), scrambling
        # points and constraints
        if C.ndim <= 1 and C.size == n * m:
            C = C.reshape(n, m)
        if C.shape != (n, m):
            raise ValueError(f"c must hold {m} value(s) per point ({n} point(s)), got shape {np.shape(c)}")
        if not (np.all(np.isfinite(F)) and np.all(np.isfinite(C))):
            raise ValueError("f and c must be finite (a failed evaluation cannot be modelled; leave it out)")
        lo, hi = self.problem.bounds[:, 0].astype(np.float64), self.problem.bounds[:, 1].astype(np.float64)
        if np.any(X < lo) or np.any(X > hi):
            raise ValueError("x must lie inside bounds (lower <= x <= upper)")
        if self.algorithm.noise == 0:
            _check_repeats((self._X, self._F, self._C), X, F, C)
        self._X.extend(X)
        self._F.extend(F.tolist())
        self._C.extend(C)

    def suggest(self) -> np.ndarray:
        """The next point to evaluate (in box coordinates, the dtype of ``bounds``). Past the initial
        design with nothing observed, a ``ValueError`` (observe the design first)."""
        self.problem._check_unchanged()
        self.algorithm._check_unchanged()
        dtype = self.problem.bounds.dtype
        if self._next < len(self._design) and len(self._F) < len(self._design):
            self._next += 1
            return self._design[self._next - 1].astype(dtype)
        if not self._F:   # a ValueError (a misuse of the ask/tell pair), as observe's own errors are
            raise ValueError("observe(x, f, c) the suggested initial design before calling suggest() again")
        hist = self.history
        _check_run_fits(self.algorithm, self.problem.dim, self.problem.n_constraints, len(hist.f), 0,
                        (("the observations", len(hist.f)), ("maxiters", None),
                         ("n_constraints", self.problem.n_constraints)))
        U = self.problem.to_unit(hist.X)
        # the run's surrogates, updated with the rows observed since the last suggest, as solve updates its
        # own (a fit starts from the last fitted kernel): rebuilt each time, the suggestions drifted 1e-6 off
        # solve's with the same seed; a replaced algorithm starts afresh
        surrogates, modelled = self.__dict__.get("_surrogates"), self.__dict__.get("_modelled", 0)
        if surrogates is None or surrogates.algorithm is not self.algorithm:
            surrogates, modelled = _Surrogates(self.algorithm, self.problem.n_constraints), 0
        self._surrogates = None   # until the update succeeds: a failed one leaves a half-updated model
        new = np.arange(modelled, len(U))
        with _ONE_BLAS_THREAD.held():
            if new.size:
                surrogates.update(U, hist.f, hist.c, (U[new], new), self.seed)
            self._surrogates, self._modelled = surrogates, len(U)
            u, _ = _checked_proposal(self.algorithm.maximize_acquisition(
                surrogates, U, hist.f, hist.c, float(hist.best_feasible()[-1]), self._rng), self.problem.dim)
        return self.problem.from_unit(u).astype(dtype)

    def best(self) -> tuple[np.ndarray, float] | None:
        """(x, f) of the best feasible observation, or None while none is feasible (before any observation
        too: nothing observed is feasible)."""
        hist = self.history
        if not hist.feasible.any():
            return None
        i = int(np.flatnonzero(hist.feasible)[np.argmin(hist.f[hist.feasible])])
        return hist.X[i].astype(self.problem.bounds.dtype), float(hist.f[i])


def _largest(values) -> float:
    """max |value| over the finite ``values`` (scalars or arrays), capped at 1000 times their median |value|
    where that is > 0 (one value of 1e30 made the repeat check's floor 1e18, and f = 0 and f = 1 at one
    point passed as the same value); 1.0 when there is none or it is 0."""
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in values]) if len(values) else \
        np.empty(0)
    flat = np.abs(flat[np.isfinite(flat)])
    if not (flat.size and flat.max() > 0):
        return 1.0
    median = float(np.median(flat))
    return min(float(flat.max()), 1e3 * median) if median > 0 else float(flat.max())


def _check_repeats(earlier: tuple, X: np.ndarray, F, C) -> None:
    """Exact evaluations (noise = 0): a point seen before (in ``earlier`` = (X, F, C) rows, or twice in the
    batch) with another f or c contradicts it; the zero-noise GPs then fit neither value (their posterior
    there came back as the average, in silence)."""
    # + 0.0: -0.0 and 0.0 are one coordinate (their bytes differ)
    seen = {(np.asarray(x, dtype=np.float64) + 0.0).tobytes():
            (float(fv), np.asarray(cv, dtype=np.float64)) for x, fv, cv in zip(*earlier)}
    # the absolute floor in the values' own units: a fixed 1e-12 let any contradiction of f in units of 1e-13
    # through, and the GP refused it later naming its own y and jitter
    units = {"f": _largest([*earlier[1], *np.asarray(F, dtype=np.float64).ravel()]),
             "c": _largest([*(np.ravel(c) for c in earlier[2]), *np.asarray(C, dtype=np.float64).ravel()])}
    for i, (x, fv, cv) in enumerate(zip(X, F, C)):
        key = (np.asarray(x, dtype=np.float64) + 0.0).tobytes()
        if key in seen:
            f_old, c_old = seen[key]
            for name, old, new in (("f", np.array([f_old]), np.array([fv])), ("c", c_old, np.asarray(cv))):
                if not np.allclose(old, new, rtol=1e-9, atol=1e-12 * units[name]):
                    point = np.asarray(x).tolist()
                    raise ValueError(f"{name} = {new.tolist()!r:.60} at x = {point!r:.60} (row {i}) "
                                     f"contradicts the earlier observation {name} = {old.tolist()!r:.60} at "
                                     f"the same x: with noise = 0 (exact evaluations) a point has one value; "
                                     f"use CEI(noise=...) > 0 for noisy evaluations, or drop the repeat")
        else:
            seen[key] = (float(fv), np.asarray(cv, dtype=np.float64))


def _check_modelable(x: np.ndarray, value: float, cons: np.ndarray) -> None:
    """f and c values a GP can model: finite ones inside the working range (NaN/inf end the run Diverged).
    f ~ 1e60 failed inside the run with "f has an entry of magnitude 1.5e+60", naming the history's field."""
    for name, values in (("f(x)", np.array([value], np.float64)), ("c(x)", np.asarray(cons, np.float64))):
        finite = np.abs(values[np.isfinite(values)])
        if finite.size and finite.max() > WORKING_MAX:
            shown = values.tolist() if name == "c(x)" else float(values[0])
            raise ValueError(f"{name} = {shown!r:.60} at x = {np.asarray(x).tolist()!r:.60} is outside "
                             f"the package's working range (magnitude at most {WORKING_MAX:.4g}): a GP "
                             f"surrogate cannot model it; rescale {name[0]}")


def _design(problem: ConstrainedBOProblem, rng: np.random.Generator) -> np.ndarray:
    if isinstance(problem.initial, np.ndarray):
        return problem.initial
    return problem.from_unit(qmc.LatinHypercube(d=problem.dim, seed=rng).random(problem.initial))


class _StandardizedGP(GaussianProcess):
    """The GP of (y − ``centre``)/``scale`` (its ``kernel``, ``y`` and ``mean`` are the standardized ones),
    predicting in y's units: for f or c values whose spread puts the prior variance outputscale·spread²
    outside the working range (values ~ 1e30 or 1e-30, spread 2.5e29: 1.3e60), which a GP in y's units
    cannot hold."""

    def __init__(self, kernel: Kernel, *, jitter: float, centre: float, scale: float) -> None:
        super().__init__(kernel, jitter=jitter)
        object.__setattr__(self, "_centre", centre)
        object.__setattr__(self, "_scale", scale)

    def add(self, X, y) -> None:
        super().add(X, (as_float_array("y", y, ndim=1, dtype=np.float64) - self._centre) / self._scale)

    def predict(self, X) -> tuple[np.ndarray, np.ndarray]:
        mu, sd = super().predict(X)
        return self._centre + self._scale * mu, self._scale * sd


class _Surrogates:
    """The GPs of f and of each constraint, on unit coordinates."""

    def __init__(self, algorithm: CEI, n_constraints: int) -> None:
        self.algorithm = algorithm
        self.kernels = [algorithm.kernel] + [algorithm.constraint_kernel or algorithm.kernel] * n_constraints
        # noise is a variance ratio to the prior variance, as the jitter is: both go on the diagonal
        self.diagonal = algorithm.jitter + algorithm.noise
        self.gps = [GaussianProcess(k, jitter=self.diagonal) for k in self.kernels]
        # f's standardization (fit=True): the acquisition is maximized on (f − centre)/scale, so a problem
        # in other units (f × 2**-20) takes bit for bit the same steps (its log CEI differs by log scale,
        # and the polish's finite differences of the shifted logs rounded otherwise: x moved by 1e-6)
        self.f_centre, self.f_scale = 0.0, 1.0

    def update(self, U: np.ndarray, F: np.ndarray, C: np.ndarray, new: np.ndarray, seed: int) -> None:
        outputs = np.column_stack([F, C])
        if not self.algorithm.fit:
            for j, gp in enumerate(self.gps):
                gp.add(new[0], outputs[new[1], j])
            return
        for j, kernel in enumerate(self.kernels):
            y = outputs[:, j]
            centre, scale = float(y.mean()), spread_of(y) or 1.0   # y.std() was 0 for f ~ 1e-300
            if np.ptp(y) == 0:   # equal values: their std is rounding (5e-17), the prior variance then ~0
                centre, scale = float(y[0]), 1.0
            # the fitted outputscale (<= 20, the fit box) times the spread²: past the kernels' SCALE_MAX (the
            # working range) a GP in y's units cannot hold its prior variance (f ~ 1e30): one standardized
            huge = not scale * scale * max(kernel.outputscale, 20.0) <= SCALE_MAX
            if y.size < 2 or np.ptp(y) == 0:
                # nothing to fit (one observation, or one value: fit_kernel needs two rows, and constant
                # data pushed the lengthscale to its bound, so CEI "stalled" at once): the given kernel
                fitted = kernel
            elif self.algorithm.noise > 0:
                fitted = fit_kernel(U, (y - centre) / scale, kernel, seed=(seed + j) % 2**64,
                                    jitter=1e-6 + self.algorithm.noise)
            else:   # the historical call, so fitted runs without noise reproduce
                fitted = fit_kernel(U, (y - centre) / scale, kernel, seed=(seed + j) % 2**64)
            self.kernels[j] = fitted
            if j == 0:
                self.f_centre, self.f_scale = centre, scale
            prior = fitted.outputscale * scale**2
            if huge or prior < WORKING_MIN:
                # f ~ 1e30 or 1e-30 (an outputscale of 1e-41 or 1e60 in f's units, outside the kernels'):
                # the GP of the standardized values, predicting in f's units (both were refused, naming f(x))
                gp = _StandardizedGP(fitted, jitter=self.diagonal, centre=centre, scale=scale)
            else:   # the historical GP in y's units, so runs of ordinary scale reproduce bit for bit
                gp = GaussianProcess(
                    fitted.with_params(fitted.lengthscale, prior),
                    jitter=self.diagonal,
                    mean=centre,
                )
            gp.add(U, y)
            self.gps[j] = gp

    def log_acquisition(self, U: np.ndarray, best: float) -> np.ndarray:
        """log CEI at the rows of ``U``; log PoF while no point is feasible (``best`` = inf). The posterior
        is the run's own value (any finite size: run_values)."""
        with run_values():
            return self._log_acquisition(U, best)

    def _log_acquisition(self, U: np.ndarray, best: float) -> np.ndarray:
        pairs = [gp.predict(U) for gp in self.gps[1:]]
        mu_c = np.column_stack([p[0] for p in pairs])
        sd_c = np.column_stack([p[1] for p in pairs])
        if not np.isfinite(best):
            values = log_probability_of_feasibility(mu_c, sd_c)
            return np.where(np.isfinite(values), values, _FLOOR)
        mu_f, sd_f = self.gps[0].predict(U)
        c, s = self.f_centre, self.f_scale   # log CEI − log s: the same maximizer, unit-free
        values = self.algorithm.log_acquisition((mu_f - c) / s, sd_f / s, mu_c, sd_c, (best - c) / s)
        if type(self.algorithm).log_acquisition is not CEI.log_acquisition:   # a subclass's hook: numpy's
            values = _checked_log_values(values, len(U))                      # errors named no one
        return np.where(np.isfinite(values), values, _FLOOR)

    def log_unit(self, best: float) -> float:
        """What :meth:`log_acquisition` leaves out: log of f's scale (0 for the feasibility search)."""
        return math.log(self.f_scale) if np.isfinite(best) else 0.0


def _checked_log_values(values: Any, n: int) -> np.ndarray:
    """A subclass's ``log_acquisition`` answer: n real values (-inf allowed), none NaN, checked by name."""
    array = np.asarray(values) if isinstance(values, np.ndarray | list | tuple) else None
    if array is None or array.dtype.kind not in "iuf" or array.shape != (n,) or np.isnan(array).any() or \
            (array == np.inf).any():
        raise TypeError(f"log_acquisition must return a real array of shape ({n},) (one log value per point, "
                        f"-inf allowed, not NaN or +inf), got {type(values).__name__} {values!r:.60}")
    return array.astype(np.float64)


def _checked_proposal(answer: Any, dim: int) -> tuple[np.ndarray, float]:
    """A (subclass's) ``maximize_acquisition`` answer checked by name: a str log value was logged, a NaN
    one never reached the ``Stalled`` test, a list or a point outside [0, 1]^d met errors naming U or X."""
    what = (f"maximize_acquisition must return (u, log_value): u a float array of shape ({dim},) in "
            f"[0, 1]^{dim}")
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        raise TypeError(f"{what} and log_value a real number, got {type(answer).__name__} {answer!r:.60}")
    u, log_value = answer
    if not isinstance(u, np.ndarray) or u.dtype.kind != "f" or u.shape != (dim,) or \
            not np.all((u >= 0.0) & (u <= 1.0)):
        raise ValueError(f"{what}, got u = {u!r:.80}")
    if isinstance(log_value, bool | np.bool_) or not isinstance(log_value, numbers.Real) or \
            math.isnan(log_value) or log_value == math.inf:   # +inf never reached the Stalled test either
        raise TypeError(f"{what} and log_value a real number (-inf allowed, not NaN or +inf), got "
                        f"{type(log_value).__name__} {log_value!r:.40}")
    return u.astype(np.float64), float(log_value)


def _polish(surrogates: _Surrogates, start: np.ndarray, best: float) -> tuple[np.ndarray, float]:
    """L-BFGS-B on −log CEI from ``start`` in [0, 1]^d, central differences in one batch."""
    d = start.size
    eye = np.eye(d) * _STEP

    def objective(u):
        lo, hi = np.clip(u - eye, 0.0, 1.0), np.clip(u + eye, 0.0, 1.0)
        values = -surrogates.log_acquisition(np.vstack([u[None, :], hi, lo]), best)
        widths = np.diag(hi - lo)
        grad = np.where(
            widths > 0, (values[1 : d + 1] - values[d + 1 :]) / np.where(widths > 0, widths, 1.0), 0.0
        )
        return values[0], grad

    res = minimize(
        objective, start, jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * d, options={"maxiter": 50}
    )
    return np.clip(res.x, 0.0, 1.0), -float(res.fun)


def _propose(
    surrogates: _Surrogates,
    U: np.ndarray,
    F: np.ndarray,
    feasible: np.ndarray,
    best: float,
    C: np.ndarray,
    algorithm: CEI,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float]:
    d = U.shape[1]
    n_local = algorithm.n_candidates // 5
    if feasible.any():
        order = np.argsort(np.where(feasible, F, np.inf))[: max(1, min(5, int(feasible.sum())))]
    else:   # the search for a feasible point: perturb the least violating points
        order = np.argsort(np.max(C, axis=1))[:5]
    anchors = U[order[rng.integers(0, order.size, n_local)]]
    local = np.clip(anchors + 0.05 * rng.standard_normal((n_local, d)), 0.0, 1.0)
    candidates = np.vstack([rng.uniform(size=(algorithm.n_candidates - n_local, d)), local])
    values = surrogates.log_acquisition(candidates, best)
    top = np.argsort(values)[::-1][: algorithm.n_restarts]
    best_u, best_value = candidates[top[0]], float(values[top[0]])
    for i in top:
        u, value = _polish(surrogates, candidates[i], best)
        if value > best_value:
            best_u, best_value = u, value
    return best_u, best_value + surrogates.log_unit(best)   # in f's units (the stall rule's tolerance)


@_dispatch
def _solve(problem: ConstrainedBOProblem, algorithm: CEI, options: SolveOptions) -> Solution:
    # The matrices are small (t <= a few hundred): one BLAS thread is faster than many, and on a
    # shared machine oversubscribed BLAS threads slow each small solve down a hundredfold.
    with _ONE_BLAS_THREAD.held():
        return _run(problem, algorithm, options)


def _run(problem: ConstrainedBOProblem, algorithm: CEI, options: SolveOptions) -> Solution:
    algorithm._check_unchanged()
    algorithm._check_dim(problem.dim)
    seed = 0 if options.seed is None else options.seed
    rng = np.random.default_rng(seed)
    maxiters = options.iterations(50)
    # float64 arrays over the candidate set, before the design is evaluated: the candidates and the kernel's
    # scaled copies (n_candidates, d), and per GP the cross-covariances and their solves (n_evaluations,
    # n_candidates); a box of 2e6 dimensions asked for tens of GiB after the initial design had run
    n_design = problem.initial if isinstance(problem.initial, int) else len(problem.initial)
    # named by what sizes them: maxiters = 2**31 was blamed on n_candidates
    _check_run_fits(algorithm, problem.dim, problem.n_constraints, n_design, maxiters,
                    (("problem.initial", problem.initial if isinstance(problem.initial, int) else n_design),
                     ("maxiters", maxiters), ("problem.n_constraints", problem.n_constraints)))
    tol = options.tolerance(1e-6)
    dtype = problem.bounds.dtype
    design = _design(problem, rng)
    X, F, C = [], [], []
    stats = Stats()

    def history() -> BOHistory:
        m = problem.n_constraints
        return BOHistory(
            np.array(X).reshape(-1, problem.dim), np.array(F), np.array(C).reshape(-1, m),
            min(len(design), len(F)),   # a run that diverged inside the design has fewer rows
        )

    def finish(retcode: RetCode, trace) -> Solution:
        hist = history()
        finite = np.isfinite(hist.f) & np.all(np.isfinite(hist.c), axis=1)
        feasible = hist.feasible & finite
        if feasible.any():
            i = int(np.flatnonzero(feasible)[np.argmin(hist.f[feasible])])
        else:  # least violation among the finite evaluations (the last point if none is finite)
            violation = np.where(
                finite, np.max(np.where(np.isfinite(hist.c), hist.c, np.inf), axis=1), np.inf
            )
            i = int(np.argmin(violation)) if finite.any() else len(hist.f) - 1
        return Solution(
            x=hist.X[i].astype(dtype),
            value=float(hist.f[i]),
            retcode=retcode,
            stats=stats,
            trace=trace,
            original=hist,
        )

    def observe(x: np.ndarray) -> bool:
        # x is evaluated as it is returned, in the dtype of bounds: a float64 point evaluated and then cast
        # to float32 gave a sol.x whose f and c were not sol.value and the recorded constraint values
        x = np.asarray(x, dtype=np.float64).astype(dtype).astype(np.float64)
        value, cons = problem.evaluate(x)
        _check_modelable(x, value, cons)
        if algorithm.noise == 0 and np.isfinite(value) and np.all(np.isfinite(cons)):
            # a repeated point (a design with repeated rows) of a non-deterministic f: named f or c here, not
            # the GP's y and jitter
            _check_repeats((X, F, C), np.asarray(x, dtype=np.float64)[None], [value], [cons])
        X.append(np.asarray(x, dtype=np.float64))
        F.append(value)
        C.append(cons)
        stats.f_calls += 1
        return bool(np.isfinite(value) and np.all(np.isfinite(cons)))

    monitor = IterationMonitor(options, total=maxiters, desc="CEI")
    for x in design:
        if not observe(x):
            return finish(RetCode.Diverged, monitor.trace)
    hist = history()
    surrogates = _Surrogates(algorithm, problem.n_constraints)
    U = problem.to_unit(hist.X)
    surrogates.update(U, hist.f, hist.c, (U, np.arange(len(U))), seed)

    def f_tolerance() -> float:
        # the default tol is relative to the spread of the observed f (unit-free: f x 2**-20 stalled at
        # iteration 0 with an absolute 1e-6, and f x 1e-30 ended Success at its first point, its regret
        # 1.1e-32 "<= 1e-6" at three times the optimum); a tol the caller gives stays absolute, in f's units
        if options.tol is not None:
            return tol
        finite = np.asarray(F)[np.isfinite(F)]
        # capped by the design's MADs: one outlier of 1e30 set the tolerance to 4.7e23 (Success at once)
        spread = robust_spread(finite, np.asarray(F[:len(design)]))
        return tol * (spread if spread > 0 else 1.0)

    def regret() -> float | None:
        if problem.f_star is None:
            return None
        hist = history()
        best = hist.best_feasible()
        if np.isfinite(best[-1]):   # a feasible value below f_star: f_star is wrong, not a negative regret
            finite = np.asarray(F)[np.isfinite(F)]   # f's scale: the check is unit-free, as the default tol
            problem.check_below_f_star(float(best[-1]), hist.X[int(np.argmin(best))],
                                       scale=robust_spread(finite, np.asarray(F[:len(design)])))
        return float(best[-1] - problem.f_star)

    retcode = RetCode.MaxIters
    for iteration in range(maxiters):
        r = regret()
        if r is not None and r <= f_tolerance():
            retcode = RetCode.Success
            # a design that meets the target is a record of this iterative run (iteration 0): a callback's
            # True there ends it Terminated, as at every record (core's final record ignored it: red23a)
            best_now = float(history().best_feasible()[-1])
            if iteration == 0 and monitor.record(iteration=0, value=best_now, n_evals=len(F),
                                                 best_feasible=best_now, regret=r):
                retcode = RetCode.Terminated
            break
        hist = history()
        U = problem.to_unit(hist.X)
        best = float(hist.best_feasible()[-1])
        answer = algorithm.maximize_acquisition(surrogates, U, hist.f, hist.c, best, rng)
        u, log_value = _checked_proposal(answer, problem.dim)
        if problem.f_star is None and np.isfinite(best) and log_value <= np.log(f_tolerance()):
            retcode = RetCode.Stalled
            break
        x = problem.from_unit(u).astype(dtype).astype(np.float64)   # the point evaluated (observe)
        mu_next, sd_next = surrogates.gps[0].predict(u[None, :])
        ei_next = float(expected_improvement(mu_next, sd_next, best)[0]) if np.isfinite(best) else math.nan
        ok = observe(x)
        stats.iterations = iteration + 1
        record = {
            "iteration": iteration + 1,
            "n_evals": len(F),
            "x": x.tolist(),
            "f": F[-1],
            "best_feasible": float(min(best, F[-1]) if np.all(C[-1] <= 0) else best),
            "log_acquisition": log_value,
            "sigma_f": float(sd_next[0]),
            "ei_f": ei_next,
        }
        if not np.isfinite(best):
            record["phase"] = "feasibility"
        if problem.f_star is not None:
            record["regret"] = record["best_feasible"] - problem.f_star
        if not ok:   # a True from the callback at this record is Terminated, as at every record
            retcode = RetCode.Terminated if monitor.record(**record) else RetCode.Diverged
            break
        hist = history()
        U = problem.to_unit(hist.X)
        surrogates.update(U, hist.f, hist.c, (u[None, :], np.array([len(F) - 1])), seed)
        if monitor.record(**record):
            retcode = RetCode.Terminated
            break
    else:   # maxiters = 0 is MaxIters (core's rule), also for a design that meets the target
        r = regret()
        if r is not None and r <= f_tolerance() and maxiters > 0:
            retcode = RetCode.Success
    monitor.close()
    return finish(retcode, monitor.trace)
