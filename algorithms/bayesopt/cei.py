"""Constrained expected improvement (CEI): Bayesian optimization of f subject to c <= 0.

Algorithm 1 of the paper. With independent GP posteriors for f and for each constraint cⱼ after t
evaluations and f⁺_t the best *feasible* observed value, the next point is

    x_{t+1} = argmax_x  EI_t(x) · Πⱼ Φ(−μ_{cⱼ,t}(x)/σ_{cⱼ,t}(x))          (eqs. (7)-(8))

found by maximizing log CEI: a dense set of candidates (uniform in the box plus Gaussian
perturbations of the best observed points), then L-BFGS-B from the best ``n_restarts`` of
them (gradients by batched central differences). The GPs live on the box mapped to [0, 1]^d
(so lengthscales are fractions of the box side); with fixed hyperparameters (``fit=False``,
the theory's setting: zero prior mean, k(x, x) = 1) the Cholesky factors grow one row per
evaluation, with ``fit=True`` the kernel hyperparameters are refitted by marginal likelihood
on standardized outputs after every evaluation (ARD lengthscales).

Stopping and retcodes (``tol`` defaults to 1e-6):

* ``Success``: ``problem.f_star`` is known and the simple regret f⁺_t − f* <= ``tol``. Without f*
  nothing certifies optimality, so a run never ends in ``Success``.
* ``Stalled``: f* is unknown and the maximal CEI found fell to <= ``tol`` (the model expects no
  point to improve). That is the model's belief, not a certificate: ``tol`` is absolute (in f's
  units) and a misspecified kernel (a lengthscale far too long) makes CEI small everywhere, so a
  run can stall after a few steps with a large regret; check the model before trusting it.
* ``MaxIters``: ``maxiters`` (default 50) CEI evaluations after the initial design ran out first.
* ``Failure``: the initial design holds no feasible point, so f⁺ (and CEI) is undefined
  (Remark 3.15); ``sol.x`` is then the design point of least constraint violation.
* ``Diverged``: f or c returned a non-finite value; ``sol.x`` is the best feasible point so far.

``sol.x`` is the best feasible evaluated point (the dtype of ``problem.bounds``), ``sol.value``
f⁺; ``sol.original`` is the evaluation history (:class:`BOHistory`), and each trace record holds
the iteration, the number of evaluations, f⁺, the regret (when f* is known), log CEI at the
chosen point and there the posterior σ_f and EI of f (what the paper's bounds are built from).

References
----------
H. Wang, J. Wang, Z. Dai, N.-Y. Chiang, S. H. Ng, C. G. Petra. Convergence Rates of Constrained
Expected Improvement. NeurIPS 2025, arXiv:2505.11323 (Algorithm 1). J. R. Gardner, M. J. Kusner,
Z. Xu, K. Q. Weinberger, J. P. Cunningham. Bayesian optimization with inequality constraints. ICML 2014.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize
from scipy.stats import qmc
from threadpoolctl import threadpool_limits

from algorithms._validation import check_bool, check_positive, check_positive_int
from algorithms.bayesopt.acquisition import expected_improvement, log_constrained_ei
from algorithms.bayesopt.gp import GaussianProcess, _check_kernel, fit_kernel
from algorithms.bayesopt.kernels import Kernel
from algorithms.bayesopt.problem import ConstrainedBOProblem
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch

__all__ = ["CEI", "BOHistory"]

_FLOOR = -1e300  # stands for log 0 inside the optimizer
_STEP = 1e-6  # central-difference step in unit coordinates


@dataclass
class BOHistory:
    """Every evaluation of a run, in box coordinates: ``X`` (n, d), ``f`` (n,), ``c`` (n, m)."""

    X: np.ndarray
    f: np.ndarray
    c: np.ndarray
    n_initial: int

    def __post_init__(self) -> None:
        # non-finite values are kept: a Diverged run's history ends with the offending evaluation
        self.X, self.f, self.c = (np.asarray(a, dtype=np.float64) for a in (self.X, self.f, self.c))
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

    @property
    def feasible(self) -> np.ndarray:
        return np.all(self.c <= 0, axis=1)

    def best_feasible(self) -> np.ndarray:
        """f⁺_t for t = 1..n (+inf before the first feasible point)."""
        return np.minimum.accumulate(np.where(self.feasible, self.f, np.inf))


@dataclass(frozen=True)
class CEI(Algorithm):
    """Constrained expected improvement with GP surrogates (see the module docstring).

    >>> from algorithms import solve
    >>> from algorithms.bayesopt import two_disks_problem
    >>> sol = solve(two_disks_problem(initial=8), CEI(kernel=Kernel("se", lengthscale=0.3)),
    ...             maxiters=15, seed=0)
    >>> sol.retcode, bool(sol.value - sol.problem.f_star < 0.05)
    (<RetCode.MaxIters: 'MaxIters'>, True)
    """

    kernel: Kernel = field(default_factory=lambda: Kernel("matern", nu=2.5, lengthscale=0.2))
    constraint_kernel: Kernel | None = None
    fit: bool = False
    n_candidates: int = 1000
    n_restarts: int = 3
    jitter: float = 1e-8

    def __post_init__(self) -> None:
        _check_kernel(self.kernel)
        if self.constraint_kernel is not None:
            _check_kernel(self.constraint_kernel)
        check_bool("fit", self.fit)
        check_positive_int("n_candidates", self.n_candidates)
        check_positive_int("n_restarts", self.n_restarts)
        check_positive("jitter", self.jitter)

    def log_acquisition(self, mu_f, sigma_f, mu_c, sigma_c, best_feasible) -> np.ndarray:
        """The maximized criterion, log CEI (claims' controls override it to sabotage the method)."""
        return log_constrained_ei(mu_f, sigma_f, mu_c, sigma_c, best_feasible)


class _Surrogates:
    """The GPs of f and of each constraint, on unit coordinates."""

    def __init__(self, algorithm: CEI, n_constraints: int) -> None:
        self.algorithm = algorithm
        self.kernels = [algorithm.kernel] + [algorithm.constraint_kernel or algorithm.kernel] * n_constraints
        self.gps = [GaussianProcess(k, jitter=algorithm.jitter) for k in self.kernels]

    def update(self, U: np.ndarray, F: np.ndarray, C: np.ndarray, new: np.ndarray, seed: int) -> None:
        outputs = np.column_stack([F, C])
        if not self.algorithm.fit:
            for j, gp in enumerate(self.gps):
                gp.add(new[0], outputs[new[1], j])
            return
        for j, kernel in enumerate(self.kernels):
            y = outputs[:, j]
            centre, scale = float(y.mean()), float(y.std()) or 1.0
            fitted = fit_kernel(U, (y - centre) / scale, kernel, seed=seed + j)
            self.kernels[j] = fitted
            gp = GaussianProcess(
                fitted.with_params(fitted.lengthscale, fitted.outputscale * scale**2),
                jitter=self.algorithm.jitter,
                mean=centre,
            )
            gp.add(U, y)
            self.gps[j] = gp

    def log_acquisition(self, U: np.ndarray, best: float) -> np.ndarray:
        mu_f, sd_f = self.gps[0].predict(U)
        pairs = [gp.predict(U) for gp in self.gps[1:]]
        mu_c = np.column_stack([p[0] for p in pairs])
        sd_c = np.column_stack([p[1] for p in pairs])
        values = self.algorithm.log_acquisition(mu_f, sd_f, mu_c, sd_c, best)
        return np.where(np.isfinite(values), values, _FLOOR)


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
    algorithm: CEI,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float]:
    d = U.shape[1]
    n_local = algorithm.n_candidates // 5
    order = np.argsort(np.where(feasible, F, np.inf))[: max(1, min(5, int(feasible.sum())))]
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
    return best_u, best_value


@_dispatch
def _solve(problem: ConstrainedBOProblem, algorithm: CEI, options: SolveOptions) -> Solution:
    # The matrices are small (t <= a few hundred): one BLAS thread is faster than many, and on a
    # shared machine oversubscribed BLAS threads slow each small solve down a hundredfold.
    with threadpool_limits(limits=1, user_api="blas"):
        return _run(problem, algorithm, options)


def _run(problem: ConstrainedBOProblem, algorithm: CEI, options: SolveOptions) -> Solution:
    seed = 0 if options.seed is None else options.seed
    rng = np.random.default_rng(seed)
    maxiters = options.iterations(50)
    tol = options.tolerance(1e-6)
    dtype = problem.bounds.dtype
    design = (
        problem.initial
        if isinstance(problem.initial, np.ndarray)
        else problem.from_unit(qmc.LatinHypercube(d=problem.dim, seed=rng).random(problem.initial))
    )
    X, F, C = [], [], []
    stats = Stats()

    def history() -> BOHistory:
        m = problem.n_constraints
        return BOHistory(
            np.array(X).reshape(-1, problem.dim), np.array(F), np.array(C).reshape(-1, m), len(design)
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
        value, cons = problem.evaluate(x)
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
    if not hist.feasible.any():
        return finish(RetCode.Failure, monitor.trace)
    surrogates = _Surrogates(algorithm, problem.n_constraints)
    U = problem.to_unit(hist.X)
    surrogates.update(U, hist.f, hist.c, (U, np.arange(len(U))), seed)

    def regret() -> float | None:
        return None if problem.f_star is None else float(history().best_feasible()[-1] - problem.f_star)

    retcode = RetCode.MaxIters
    for iteration in range(maxiters):
        r = regret()
        if r is not None and r <= tol:
            retcode = RetCode.Success
            break
        hist = history()
        U = problem.to_unit(hist.X)
        best = float(hist.best_feasible()[-1])
        u, log_value = _propose(surrogates, U, hist.f, hist.feasible, best, algorithm, rng)
        if problem.f_star is None and log_value <= np.log(tol):
            retcode = RetCode.Stalled
            break
        x = problem.from_unit(u)
        mu_next, sd_next = surrogates.gps[0].predict(u[None, :])
        ei_next = float(expected_improvement(mu_next, sd_next, best)[0])
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
        if problem.f_star is not None:
            record["regret"] = record["best_feasible"] - problem.f_star
        if not ok:
            monitor.record(**record)
            retcode = RetCode.Diverged
            break
        hist = history()
        U = problem.to_unit(hist.X)
        surrogates.update(U, hist.f, hist.c, (u[None, :], np.array([len(F) - 1])), seed)
        if monitor.record(**record):
            retcode = RetCode.Terminated
            break
    else:
        r = regret()
        if r is not None and r <= tol:
            retcode = RetCode.Success
    monitor.close()
    return finish(retcode, monitor.trace)
