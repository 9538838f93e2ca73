"""dQP: solve a QP with any qpsolvers backend, then differentiate through its active set.

Forward. A backend (``qpsolvers.solve_problem``) returns ``x₀``. The active set
is read off the primal slack,

    J = { i : (h_i − G_i x₀) / max(1, ‖G_i‖) ≤ eps_active },

and the solution is *polished* by the reduced KKT system of the equality QP
with constraints ``C x = d``, ``C = [A; G_J]``, ``d = [b; h_J]``:

    K_J ζ = [−q; b; h_J],      K_J = [[P, Cᵀ], [C, 0]],      ζ = (x, λ, μ_J).

``K_J`` is factorized once (:class:`KKTFactor`: sparse LU, or Cholesky of P and of
the Schur complement, or an LDLᵀ of K_J) and kept on the solution.

Backward (Theorem 3.1 of the paper). With the *same* factorization of K_J and
an upstream gradient ``g = ∂ℓ/∂x``,

    (dz, dλ, dμ) = −K_J⁻¹ [g; 0; 0],
    ∇P = ½(dz xᵀ + x dzᵀ),  ∇q = dz,  ∇A = dλ xᵀ + λ dzᵀ,  ∇b = −dλ,
    ∇G_J = dμ xᵀ + μ dzᵀ,  ∇h_J = −dμ,  rows of G, h outside J get 0.

Degenerate points (a weakly active constraint, i.e. ``i ∈ J`` with ``μ_i ≈ 0``;
``n_eq + |J| > n``; a singular K_J) are reported in ``QPSolution.degenerate``
and ``QPSolution.warnings``; a singular K_J is solved by least squares
(minimum norm), never silently returning NaN.

References
----------
C. W. Magoon, F. Yang, N. Aigerman, S. Z. Kovalsky. *Differentiation Through
Black-Box Quadratic Programming Solvers*. NeurIPS 2025 (arXiv:2410.06324).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import qpsolvers
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from algorithms._validation import check_positive
from algorithms.core import (
    Algorithm,
    IterationMonitor,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    _dispatch,
)
from algorithms.qp.problem import QP

__all__ = ["DQP", "KKTFactor", "QPSolution"]

#: backend keyword names for (absolute tolerance, relative tolerance, iteration cap)
_TOL_KEYS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "osqp": (("eps_abs", "eps_rel"), "max_iter"),
    "scs": (("eps_abs", "eps_rel"), "max_iters"),
    "proxqp": (("eps_abs", "eps_rel"), "max_iter"),
    "piqp": (("eps_abs", "eps_rel"), "max_iter"),
    "clarabel": (("tol_gap_abs", "tol_gap_rel", "tol_feas"), "max_iter"),
}
#: default backend tolerances: tight enough that the slack test identifies J
#: (the polish then recovers x to machine precision); first-order methods get
#: a looser default since they converge linearly.
#: tolerance on primal violation (per unit row norm) and on negative multipliers of a polished point
POLISH_TOL = 1e-7
#: relative residual of K_J ζ = rhs above which the reduced system counts as inconsistent
KKT_RESIDUAL_TOL = 1e-8
#: inactive rows with slack below this multiple of eps_active are flagged as possibly weakly active
NEAR_ACTIVE_FACTOR = 100.0
_DEFAULT_TOL = {"osqp": 1e-6, "scs": 1e-7, "proxqp": 1e-9, "piqp": 1e-9, "clarabel": 1e-9}


def installed_backends() -> list[str]:
    """The qpsolvers backends importable here (``qpsolvers.available_solvers``)."""
    return sorted(qpsolvers.available_solvers)


@dataclass(frozen=True)
class DQP(Algorithm):
    """dQP: any qpsolvers backend forward, active-set polish, reduced-KKT derivative.

    Parameters
    ----------
    backend : a name in ``qpsolvers.available_solvers`` (clarabel, osqp, daqp, ...).
    eps_active : slack threshold (per unit row norm of ``G``) deciding the active set.
    refine_active : greedily fix the active set after the polish (drop the most
        negative multiplier / add the most violated constraint, re-solve), as in
        the paper's heuristic refinement.
    polish : re-solve the reduced KKT system for ``x`` and the duals (default);
        ``False`` keeps the backend's own ``x`` (the derivative still uses K_J).
    backend_options : extra keywords passed to the backend (they override the
        tolerance defaults).

    ``solve(qp, DQP(...), tol=..., maxiters=...)``: ``tol`` sets the backend's
    tolerances where qpsolvers exposes them (osqp, scs, proxqp, piqp, clarabel),
    ``maxiters`` its iteration cap; ``maxiters=0`` returns ``x = 0`` with
    ``MaxIters``. Formulas: see the module docstring.

    References: Magoon, Yang, Aigerman, Kovalsky, NeurIPS 2025, Theorem 3.1.

    >>> import numpy as np
    >>> from algorithms import solve
    >>> from algorithms.qp import QP, DQP
    >>> qp = QP(P=2 * np.eye(2), q=np.zeros(2), G=np.array([[-1.0, -1.0]]), h=np.array([-1.0]))
    >>> sol = solve(qp, DQP(backend="clarabel"))
    >>> np.round(sol.x, 8), np.round(sol.z, 8), sol.active
    (array([0.5, 0.5]), array([1.]), array([ True]))
    >>> grads = sol.vjp(np.array([1.0, 0.0]))      # d x_1 / d h
    >>> np.round(grads["h"], 8)
    array([-0.5])
    """

    backend: str = "clarabel"
    eps_active: float = 1e-5
    refine_active: bool = False
    polish: bool = True
    backend_options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.backend, str):
            raise TypeError(f"backend must be a string, got {type(self.backend).__name__}")
        installed = installed_backends()
        if self.backend not in installed:
            raise ValueError(
                f"backend must be one of the installed qpsolvers backends {installed}, got {self.backend!r}"
            )
        check_positive("eps_active", self.eps_active)
        for name in ("refine_active", "polish"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.backend_options, Mapping) or not all(
            isinstance(k, str) for k in self.backend_options
        ):
            raise TypeError("backend_options must be a mapping with string keys")

    # -- hooks (private; the claims' sabotaged variants override them) ----------
    def _uses_equalities(self) -> bool:
        """Whether the reduced system keeps the equality rows (always, for the real method)."""
        return True

    def _accept_polish(self, primal_violation: float, negative_multiplier: float, tol: float) -> bool:
        """Whether the polished point is optimal: primal feasible and μ ≥ 0 (to ``tol``)."""
        return primal_violation <= tol and negative_multiplier <= tol

    def backend_kwargs(self, options: SolveOptions) -> dict[str, Any]:
        """Keywords for ``qpsolvers.solve_problem``: tolerances, iteration cap, user options."""
        kwargs: dict[str, Any] = {}
        keys = _TOL_KEYS.get(self.backend)
        if keys is not None:
            tol = options.tolerance(_DEFAULT_TOL[self.backend])
            for key in keys[0]:
                kwargs[key] = tol
            if options.maxiters is not None and keys[1] is not None:
                kwargs[keys[1]] = int(options.maxiters)
        if self.backend == "osqp":
            kwargs["polish"] = True
        if self.backend == "proxqp":
            # proxqp stops on primal/dual residuals only unless told to check the duality gap;
            # without it, it returned an active row at slack 2e-5 (gap 3e-5) with eps_abs = 1e-9
            tol = options.tolerance(_DEFAULT_TOL["proxqp"])
            kwargs.update(check_duality_gap=True, eps_duality_gap_abs=tol, eps_duality_gap_rel=tol)
        kwargs.update(self.backend_options)
        return kwargs


# ----------------------------------------------------------------------------
# the reduced KKT matrix and its factorization
# ----------------------------------------------------------------------------


class KKTFactor:
    """A factorization of ``K = [[P, Cᵀ], [C, 0]]`` reused by the forward polish and the VJP.

    * sparse ``P`` or ``C``: ``scipy.sparse.linalg.splu`` of K (never densified);
    * dense, ``P`` well-conditioned positive definite: Cholesky ``P = LLᵀ`` and of the
      Schur complement ``S = C P⁻¹ Cᵀ`` (block elimination, about half the flops of an
      LU of K);
    * dense otherwise: Bunch-Kaufman ``LDLᵀ`` of K (LAPACK ``sytrf``), with its
      reciprocal condition estimate (``sycon``).

    A (numerically) singular K switches to a least-squares (minimum-norm) solve and
    sets ``singular``; ``method`` says which path was taken.

    >>> f = KKTFactor(np.eye(2), np.array([[1.0, 1.0]]))
    >>> f.method, np.round(f.solve(np.array([0.0, 0.0, 1.0])), 6)
    ('cholesky-schur', array([ 0.5,  0.5, -0.5]))
    """

    #: reciprocal condition number below which K is treated as singular (a float64
    #: solve has at most ~3 correct digits left)
    SINGULAR_RATIO = 1e-13
    #: the Cholesky/Schur path is used only when cond(P) ≲ 1e8 (diag-ratio of L ≥ 1e-4),
    #: so that block elimination loses no more accuracy than an LDLᵀ of K would
    CHOLESKY_DIAG_RATIO = 1e-4

    def __init__(self, P, C) -> None:
        n = P.shape[0]
        self.n = n
        self.k = 0 if C is None else C.shape[0]
        self.sparse = sp.issparse(P) or (C is not None and sp.issparse(C))
        self.singular = False
        self._lstsq = None
        self._K = None
        if self.sparse:
            self.P = sp.csc_matrix(P)
            self.C = None if C is None else sp.csr_matrix(C)
            self.method = "splu"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", spla.MatrixRankWarning)
                    self._lu = spla.splu(self.K)
                diag = np.abs(self._lu.U.diagonal())
                if diag.size and (diag.min() <= self.SINGULAR_RATIO * max(1.0, diag.max())):
                    self.singular = True
            except (RuntimeError, spla.MatrixRankWarning):
                self.singular = True
            return
        self.P = np.asarray(P, dtype=np.float64)
        self.C = None if C is None else np.asarray(C, dtype=np.float64)
        if self._try_cholesky():
            return
        self.method = "ldl"
        K = self.K
        lwork = int(sla.lapack.dsytrf_lwork(K.shape[0])[0])
        ldu, ipiv, info = sla.lapack.dsytrf(K, lower=1, lwork=max(1, lwork))
        self._ldl = (ldu, ipiv)
        if info > 0:
            self.singular = True
        else:
            anorm = float(np.abs(K).sum(axis=0).max())
            rcond, _ = sla.lapack.dsycon(ldu, ipiv, anorm, lower=1)
            self.singular = not (rcond > self.SINGULAR_RATIO)

    def _try_cholesky(self) -> bool:
        try:
            L, _ = sla.cho_factor(self.P, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return False
        d = np.abs(np.diag(L))
        if not (np.all(np.isfinite(d)) and d.min() >= self.CHOLESKY_DIAG_RATIO * d.max()):
            return False
        self._L = L
        if self.k:
            W = sla.solve_triangular(L, self.C.T, lower=True, check_finite=False)
            S = W.T @ W
            try:
                Ls, _ = sla.cho_factor(S, lower=True, check_finite=False)
            except np.linalg.LinAlgError:
                return False  # dependent rows of C: let LDLᵀ decide singularity
            ds = np.abs(np.diag(Ls))
            if not (ds.min() ** 2 > self.SINGULAR_RATIO * max(1.0, ds.max() ** 2)):
                return False
            self._Ls = Ls
        self.method = "cholesky-schur"
        return True

    @property
    def K(self):
        """The assembled matrix (built on first use; the Cholesky path never needs it)."""
        if self._K is None:
            if self.sparse:
                self._K = sp.bmat([[self.P, self.C.T], [self.C, None]], format="csc") if self.k \
                    else sp.csc_matrix(self.P)
            elif self.k:
                self._K = np.block([[self.P, self.C.T], [self.C, np.zeros((self.k, self.k))]])
            else:
                self._K = self.P
        return self._K

    @property
    def size(self) -> int:
        return self.n + self.k

    def matvec(self, zeta: np.ndarray) -> np.ndarray:
        """``K ζ`` from the blocks."""
        x, y = zeta[: self.n], zeta[self.n:]
        top = self.P @ x
        if not self.k:
            return np.asarray(top)
        return np.concatenate([top + self.C.T @ y, self.C @ x])

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K⁻¹ rhs`` (least squares, minimum norm, when K is singular)."""
        if self.singular:
            return self._solve_lstsq(rhs)
        if self.method == "splu":
            return self._lu.solve(rhs)
        if self.method == "ldl":
            return sla.lapack.dsytrs(self._ldl[0], self._ldl[1], rhs, lower=1)[0]
        # block elimination: y = S⁻¹(C P⁻¹ r₁ − r₂),  x = P⁻¹(r₁ − Cᵀ y)
        r1, r2 = rhs[: self.n], rhs[self.n:]
        u = sla.cho_solve((self._L, True), r1, check_finite=False)
        if not self.k:
            return u
        y = sla.cho_solve((self._Ls, True), self.C @ u - r2, check_finite=False)
        x = u - sla.cho_solve((self._L, True), self.C.T @ y, check_finite=False)
        return np.concatenate([x, y])

    def _solve_lstsq(self, rhs: np.ndarray) -> np.ndarray:
        if self.sparse and self.size > 4000:
            return spla.lsmr(self.K, rhs, atol=1e-14, btol=1e-14, maxiter=20 * self.size)[0]
        if self._lstsq is None:
            K = self.K.toarray() if sp.issparse(self.K) else self.K
            self._lstsq = np.linalg.pinv(K, rcond=1e-12, hermitian=True)
        return self._lstsq @ rhs


# ----------------------------------------------------------------------------
# the solution type
# ----------------------------------------------------------------------------


@dataclass
class QPSolution(Solution):
    """A :class:`~algorithms.core.Solution` of a QP with duals, active set and a VJP.

    ``y`` (equalities) and ``z`` (inequalities, ``z ≥ 0``) follow qpsolvers' sign
    convention: ``Px + q + Aᵀy + Gᵀz = 0``. ``active`` is a boolean mask over the
    inequalities. ``degenerate`` is True at a point where the derivative is not
    unique (weakly active constraint, ``n_eq + |J| > n`` or a singular K_J); the
    reasons are in ``warnings``.
    """

    y: np.ndarray | None = None
    z: np.ndarray | None = None
    active: np.ndarray | None = None
    degenerate: bool = False
    warnings: list[str] = field(default_factory=list)
    backend: str = ""
    kkt: KKTFactor | None = field(default=None, repr=False)
    _qp: tuple | None = field(default=None, repr=False)
    _zeta: tuple | None = field(default=None, repr=False)

    @property
    def kkt_solution(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(x, λ, μ_J)`` in float64: the point at which the derivative is taken (copies).

        After an accepted polish this is the solution ζ of ``K_J ζ = (−q, b, h_J)``;
        otherwise the backend's ``x`` and multipliers. ``μ_J`` is ordered like
        ``np.flatnonzero(active)``. None when no derivative is available (no solution).

        >>> from algorithms import solve
        >>> sol = solve(QP(P=np.eye(2), q=np.array([-2.0, 0.0]), G=np.array([[1.0, 0.0]]),
        ...                h=np.array([1.0])), DQP(backend="daqp"))
        >>> x, lam, mu = sol.kkt_solution
        >>> x.round(12).tolist(), lam.size, mu.round(12).tolist()
        ([1.0, 0.0], 0, [1.0])
        """
        if self._zeta is None:
            return None
        return tuple(np.array(v, dtype=np.float64, copy=True) for v in self._zeta)

    def adjoint(self, grad_x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dz, dλ, dμ) = −K_J⁻¹ [grad_x; 0; 0]`` with the forward factorization."""
        if self.kkt is None:
            raise ValueError(f"no derivative available: the solve ended with {self.retcode.value}")
        g = np.asarray(grad_x, dtype=np.float64).reshape(-1)
        n = self.kkt.n
        if g.shape != (n,):
            raise ValueError(f"grad_x must have shape ({n},), got {np.shape(grad_x)}")
        rhs = np.zeros(self.kkt.size)
        rhs[:n] = g
        d = -self.kkt.solve(rhs)
        n_eq = self._zeta[1].size
        return d[:n], d[n: n + n_eq], d[n + n_eq:]

    def vjp(self, grad_x: np.ndarray) -> dict[str, Any]:
        """Gradients of ``⟨grad_x, x*⟩`` w.r.t. ``P, q, G, h, A, b`` (None where absent).

        Dense inputs get dense gradients; a sparse matrix gets a sparse gradient on
        its own sparsity pattern (its zeros are structural, as in dQP).
        """
        if self.kkt is None or self._zeta is None:
            raise ValueError(f"no derivative available: the solve ended with {self.retcode.value}")
        P, _, G, _, A, _ = self._qp
        x, lam, mu = self._zeta
        J = np.flatnonzero(self.active) if self.active is not None else np.zeros(0, dtype=int)
        dz, dlam, dmu = self.adjoint(grad_x)
        dtype = getattr(self.problem, "dtype", np.float64) if self.problem is not None else np.float64
        out: dict[str, Any] = {"q": dz.astype(dtype, copy=False)}
        out["P"] = _outer_on(P, [(0.5 * dz, x), (0.5 * x, dz)], None, dtype)
        if A is not None:
            out["A"] = (_outer_on(A, [(dlam, x), (lam, dz)], None, dtype) if dlam.size
                        else _zeros_like(A, dtype))
            out["b"] = (-dlam if dlam.size else np.zeros(A.shape[0])).astype(dtype)
        else:
            out["A"] = out["b"] = None
        if G is not None:
            out["G"] = _outer_on(G, [(dmu, x), (mu, dz)], J, dtype)
            gh = np.zeros(G.shape[0])
            gh[J] = -dmu
            out["h"] = gh.astype(dtype)
        else:
            out["G"] = out["h"] = None
        return out


def _zeros_like(M, dtype):
    if sp.issparse(M):
        out = M.copy().astype(dtype)
        out.data[:] = 0
        return out
    return np.zeros(M.shape, dtype=dtype)


def _outer_on(M, terms, rows, dtype):
    """Σ u vᵀ over ``terms`` placed at ``rows`` of a matrix shaped like ``M`` (on M's pattern if sparse)."""
    if sp.issparse(M):
        coo = M.tocoo()
        r, c = coo.row, coo.col
        if rows is None:
            local = r
            keep = np.ones(r.size, dtype=bool)
        else:
            pos = np.full(M.shape[0], -1)
            pos[rows] = np.arange(len(rows))
            local = pos[r]
            keep = local >= 0
        vals = np.zeros(r.size)
        for u, v in terms:
            vals[keep] += u[local[keep]] * v[c[keep]]
        return sp.csc_matrix((vals.astype(dtype), (r, c)), shape=M.shape)
    # Σ u vᵀ as one matrix product [u₁ u₂][v₁ v₂]ᵀ
    U = np.stack([u for u, _ in terms], axis=1)
    V = np.stack([v for _, v in terms], axis=1)
    block = U @ V.T
    if rows is None:
        return block.astype(dtype, copy=False)
    out = np.zeros(M.shape, dtype=dtype)
    out[rows] = block
    return out


# ----------------------------------------------------------------------------
# forward
# ----------------------------------------------------------------------------


def _diagnose(P, q, G, h, A, b) -> RetCode | None:
    """Infeasible / Unbounded by two LPs (HiGHS via scipy), or None when neither is shown."""
    from scipy.optimize import linprog

    n = q.size
    feas = linprog(np.zeros(n), A_ub=G, b_ub=h, A_eq=A, b_eq=b, bounds=(None, None), method="highs")
    if feas.status == 2:
        return RetCode.Infeasible
    # a recession direction d: P d = 0, A d = 0, G d ≤ 0 with qᵀd < 0 (|d|∞ ≤ 1)
    rows = [P] if A is None else [P, A]
    if any(sp.issparse(M) for M in rows):
        A_eq = sp.vstack([sp.csr_matrix(M) for M in rows])
    else:
        A_eq = np.vstack(rows)
    ray = linprog(
        q, A_ub=G, b_ub=None if G is None else np.zeros(G.shape[0]), A_eq=A_eq,
        b_eq=np.zeros(A_eq.shape[0]), bounds=(-1, 1), method="highs",
    )
    if ray.status == 0 and ray.fun < -1e-9 * max(1.0, float(np.abs(q).max(initial=0.0))):
        return RetCode.Unbounded
    return None


def _hit_iteration_cap(result) -> bool:
    """Whether the backend's own status (kept by qpsolvers in ``extras``) says it ran out of iterations."""
    if result is None:
        return False
    texts = []
    for value in (result.extras or {}).values():
        for item in (value, getattr(value, "status", None), getattr(value, "status_val", None)):
            if isinstance(item, str):
                texts.append(item.lower())
    return any("iter" in t and ("max" in t or "limit" in t) for t in texts)


def _call_backend(qp_data, algorithm: DQP, options: SolveOptions):
    P, q, G, h, A, b = qp_data
    problem = qpsolvers.Problem(P, q, G, h, A, b)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kwargs = algorithm.backend_kwargs(options)
            result = qpsolvers.solve_problem(problem, solver=algorithm.backend, **kwargs)
    except Exception as exc:  # a backend that raises on infeasible/unbounded input (quadprog, ...)
        return None, f"{type(exc).__name__}: {exc}"
    return result, None


def _reduced(P, q, G, h, A, b, J, use_eq: bool):
    """Factor K_J and solve it for (x, λ, μ)."""
    blocks, rhs = [], [-q]
    if use_eq and A is not None:
        blocks.append(A)
        rhs.append(b)
    if G is not None and J.size:
        blocks.append(G[J])
        rhs.append(h[J])
    if blocks:
        C = sp.vstack([sp.csr_matrix(B) for B in blocks]).tocsr() if any(sp.issparse(B) for B in blocks) \
            else np.vstack(blocks)
    else:
        C = None
    factor = KKTFactor(P, C)
    rhs = np.concatenate(rhs)
    zeta = factor.solve(rhs)
    n = q.size
    n_eq = A.shape[0] if (use_eq and A is not None) else 0
    # relative residual of K_J ζ = rhs: ~1e-15 unless K_J is singular *and* the system is
    # inconsistent (e.g. an unbounded QP that a backend reported as solved)
    residual = float(np.abs(factor.matvec(zeta) - rhs).max() / (1.0 + np.abs(rhs).max()))
    return factor, zeta[:n], zeta[n: n + n_eq], zeta[n + n_eq:], residual


def _kkt_violation(G, h, x, mu, J, scale):
    """Largest primal violation of the inactive rows and most negative active multiplier (scaled)."""
    viol = 0.0
    if G is not None:
        r = (G @ x - h) / scale
        viol = float(r.max(initial=0.0))
    neg = float(-mu.min(initial=0.0)) if mu.size else 0.0
    return viol, neg


def forward(qp_data, algorithm: DQP, options: SolveOptions, dtype=np.float64, monitor=None) -> QPSolution:
    """The dQP forward on validated float64 data ``(P, q, G, h, A, b)``."""
    P, q, G, h, A, b = qp_data
    n = q.size
    m = 0 if G is None else G.shape[0]
    p = 0 if A is None else A.shape[0]
    stats = Stats()
    if options.maxiters == 0:
        x0 = np.zeros(n)
        return QPSolution(
            x=x0.astype(dtype), value=0.0, retcode=RetCode.MaxIters, stats=stats,
            y=np.zeros(p, dtype=dtype), z=np.zeros(m, dtype=dtype), active=np.zeros(m, dtype=bool),
            backend=algorithm.backend, _qp=qp_data,
        )
    result, error = _call_backend(qp_data, algorithm, options)
    stats.iterations = 1
    x_raw = None if result is None else result.x
    ok = result is not None and result.found and x_raw is not None and np.all(np.isfinite(x_raw))
    if monitor is not None:
        monitor.record(stage="backend", backend=algorithm.backend, found=bool(ok))
    if not ok:
        code = _diagnose(P, q, G, h, A, b)
        if code is None:
            code = RetCode.MaxIters if (options.maxiters is not None or _hit_iteration_cap(result)) \
                else RetCode.Failure
        msg = error or f"{algorithm.backend} returned no solution"
        value = {RetCode.Infeasible: math.inf, RetCode.Unbounded: -math.inf}.get(code, math.nan)
        return QPSolution(
            x=np.full(n, np.nan, dtype=dtype), value=value, retcode=code, stats=stats,
            y=None, z=None, active=None, warnings=[msg], backend=algorithm.backend, original=result,
            _qp=qp_data,
        )
    x_raw = np.asarray(x_raw, dtype=np.float64)
    notes: list[str] = []
    row_norm = np.ones(m)
    if G is not None:
        row_norm = np.sqrt(np.asarray(G.multiply(G).sum(axis=1)).ravel()) if sp.issparse(G) \
            else np.linalg.norm(G, axis=1)
        row_norm = np.maximum(row_norm, 1.0)
        raw_slack = (h - G @ x_raw) / row_norm
        active = raw_slack <= algorithm.eps_active
    else:
        active = np.zeros(0, dtype=bool)
    use_eq = algorithm._uses_equalities()
    J = np.flatnonzero(active)
    factor, x, lam, mu, resid = _reduced(P, q, G, h, A, b, J, use_eq)
    stats.linear_solves += 1
    # the polished point must be primal feasible with μ ≥ 0; otherwise J was misread
    # rounding in the polish is ~cond(K_J)·1e-16; 1e-7 flags a misread J (a violated inactive row
    # or a negative multiplier is O(slack or multiplier) then) without tripping on rounding
    tol_check = POLISH_TOL
    viol, neg = _kkt_violation(G, h, x, mu, J, row_norm)
    if algorithm.refine_active and G is not None:
        for _ in range(2 * m + 2):
            viol, neg = _kkt_violation(G, h, x, mu, J, row_norm)
            inconsistent = factor.singular or resid > KKT_RESIDUAL_TOL
            if viol <= tol_check and neg <= tol_check and not inconsistent:
                break
            mask = np.zeros(m, dtype=bool)
            mask[J] = True
            if inconsistent and J.size:
                # dependent or contradictory active rows: drop the one the backend's x satisfies
                # with the largest slack (the least convincingly active)
                mask[J[int(np.argmax(raw_slack[J]))]] = False
            elif neg >= viol:
                mask[J[int(np.argmin(mu))]] = False
            else:
                r = np.where(mask, -np.inf, (G @ x - h) / row_norm)
                mask[int(np.argmax(r))] = True
            J = np.flatnonzero(mask)
            factor, x, lam, mu, resid = _reduced(P, q, G, h, A, b, J, use_eq)
            stats.linear_solves += 1
            stats.iterations += 1
        viol, neg = _kkt_violation(G, h, x, mu, J, row_norm)
        active = np.zeros(m, dtype=bool)
        active[J] = True
    polished_ok = algorithm._accept_polish(viol, neg, tol_check) and bool(np.all(np.isfinite(x)))
    if not polished_ok and algorithm.polish and G is not None and result.z is not None:
        # repair once: a row with a clearly positive backend multiplier is active (complementarity),
        # even when an inaccurate backend left it at a slack above eps_active
        z_raw = np.asarray(result.z, dtype=np.float64)
        mask = np.zeros(m, dtype=bool)
        mask[J] = True
        mask |= z_raw > algorithm.eps_active * max(1.0, float(np.abs(z_raw).max()))
        if not np.array_equal(np.flatnonzero(mask), J):
            J2 = np.flatnonzero(mask)
            f2, x2, lam2, mu2, resid2 = _reduced(P, q, G, h, A, b, J2, use_eq)
            stats.linear_solves += 1
            viol2, neg2 = _kkt_violation(G, h, x2, mu2, J2, row_norm)
            if algorithm._accept_polish(viol2, neg2, tol_check) and resid2 <= KKT_RESIDUAL_TOL:
                notes.append(f"active set repaired from the backend's multipliers (rows {J2.tolist()})")
                factor, x, lam, mu, resid, J, viol, neg = f2, x2, lam2, mu2, resid2, J2, viol2, neg2
                active = mask
                polished_ok = bool(np.all(np.isfinite(x)))
    if resid > KKT_RESIDUAL_TOL:
        # the reduced KKT system has no solution: the backend's point is not a KKT point of any
        # face, which happens when a backend reports an unbounded/infeasible QP as solved
        polished_ok = False
        code = _diagnose(P, q, G, h, A, b)
        if code is not None:
            value = {RetCode.Infeasible: math.inf, RetCode.Unbounded: -math.inf}[code]
            return QPSolution(
                x=np.full(n, np.nan, dtype=dtype), value=value, retcode=code, stats=stats,
                warnings=[f"{algorithm.backend} reported a solution, but the QP is {code.value.lower()}"],
                backend=algorithm.backend, original=result, _qp=qp_data,
            )
        notes.append(f"the reduced KKT system is inconsistent (relative residual {resid:.2g})")
    if not algorithm.polish or not polished_ok:
        if algorithm.polish:
            notes.append(
                f"polish rejected (primal violation {viol:.2g}, negative multiplier {neg:.2g}): "
                "the active set read from the backend's x is not optimal; x is the backend's and "
                "the derivative (from this J) is unreliable"
            )
        x = x_raw
        if result.z is not None and G is not None:
            mu = np.asarray(result.z, dtype=np.float64)[J]
        if result.y is not None and A is not None and use_eq:
            lam = np.asarray(result.y, dtype=np.float64)
    # degeneracy: the derivative of x is not unique / K_J not invertible / J not trustworthy
    degenerate = algorithm.polish and not polished_ok
    if p + J.size > n:
        degenerate = True
        notes.append(f"n_eq + |J| = {p + J.size} > n = {n}: active constraints are linearly dependent")
    if factor.singular:
        degenerate = True
        notes.append("the reduced KKT matrix K_J is singular: least-squares (minimum-norm) solves used")
    if mu.size:
        weak = np.flatnonzero(mu <= algorithm.eps_active * max(1.0, float(np.abs(mu).max())))
        if weak.size:
            degenerate = True
            notes.append(f"weakly active constraints (active with multiplier ≈ 0): rows {J[weak].tolist()}")
    if G is not None:
        # interior-point backends leave a weakly active constraint at a small positive slack
        # (the analytic centre), which the slack test then misses: flag the near-active rows
        slack = (h - G @ x) / row_norm
        near = np.flatnonzero(~active & (slack <= NEAR_ACTIVE_FACTOR * algorithm.eps_active))
        if near.size:
            degenerate = True
            notes.append(
                f"nearly active constraints (slack within {NEAR_ACTIVE_FACTOR:g}·eps_active but outside J), "
                f"possibly weakly active: rows {near.tolist()}"
            )
    if monitor is not None:
        monitor.record(stage="polish", active=int(J.size), degenerate=degenerate,
                       primal_violation=viol, negative_multiplier=neg)
    z_full = np.zeros(m)
    z_full[J] = mu
    y_full = lam if lam.size == p else np.zeros(p)
    value = float(0.5 * x @ (P @ x) + q @ x)
    if not np.all(np.isfinite(x)):
        return QPSolution(x=np.full(n, np.nan, dtype=dtype), value=math.nan, retcode=RetCode.Diverged,
                          stats=stats, warnings=[*notes, "non-finite solution"], backend=algorithm.backend,
                          original=result, _qp=qp_data)
    return QPSolution(
        x=x.astype(dtype), value=value, retcode=RetCode.Success, stats=stats, original=result,
        y=y_full.astype(dtype), z=z_full.astype(dtype), active=active, degenerate=degenerate,
        warnings=notes, backend=algorithm.backend, kkt=factor, _qp=qp_data, _zeta=(x, lam, mu),
    )


@_dispatch
def _solve(problem: QP, algorithm: DQP, options: SolveOptions) -> Solution:
    monitor = IterationMonitor(options, total=2, desc=f"dqp[{algorithm.backend}]")
    try:
        data = (problem.P, problem.q, problem.G, problem.h, problem.A, problem.b)
        sol = forward(data, algorithm, options, dtype=problem.dtype, monitor=monitor)
    finally:
        monitor.close()
    if options.maxiters == 0 and options.store_trace:
        sol.trace = [{"stage": "start", "x": sol.x.copy()}]
    else:
        sol.trace = monitor.trace
    return sol
