"""dQP: solve a QP with any qpsolvers backend, then differentiate through its active set.

Forward. A backend (``qpsolvers.solve_problem``) returns ``x₀``. The active set
is read off the primal slack,

    J = { i : (h_i − G_i x₀) / ‖G_i‖ ≤ eps_active }      (‖G_i‖ := 1 for a zero row),

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

The polish is accepted iff the polished point violates no row by more than
``POLISH_TOL`` = 1e-7 (per unit row norm) and no multiplier has ``−μ_i > POLISH_TOL``
(both inclusive), and ``K_J`` is consistent: ``‖K_J ζ − rhs‖∞ / (1 + ‖rhs‖∞) ≤
KKT_RESIDUAL_TOL`` = 1e-8 (relative, so scaling P and q leaves it unchanged). A
rejected polish keeps the backend's ``x`` (``refine_active`` first drops the most
negative multiplier or adds the most violated row and re-polishes). Inactive rows with
slack ``≤ NEAR_ACTIVE_FACTOR · eps_active`` (100·eps_active, inclusive) are flagged as
nearly active.

Check. Whatever the backend and the polish did, the returned ``(x, y, z)`` must
satisfy the KKT conditions of the original QP (:func:`kkt_residuals` ≤
``DQP.kkt_tol``, inclusive) to be called ``Success``. Two candidates are checked in
turn: the polished point (when the polish was accepted), then the backend's own point
with *all* its multipliers (its active set then also holds the rows with a positive
multiplier); the first that passes is returned (the second flagged degenerate), and
when neither does the retcode is ``Failure``. A backend that returns no point, or one whose
``K_J`` is inconsistent, is diagnosed by two LPs (HiGHS):
``Infeasible`` when ``{G x ≤ h, A x = b}`` is empty, ``Unbounded`` when
``min qᵀd`` over ``P d = 0, A d = 0, G d ≤ 0, ‖d‖∞ ≤ 1`` is ``< −1e-9·max(1, ‖q‖∞)``
(strict).

Backend. ``DQP()`` picks the backend from the problem's size and sparsity
(:func:`choose_backend`, table :data:`AUTO_TABLE`).

References
----------
C. W. Magoon, F. Yang, N. Aigerman, S. Z. Kovalsky. *Differentiation Through
Black-Box Quadratic Programming Solvers*. NeurIPS 2025 (arXiv:2410.06324).
"""

from __future__ import annotations

import copy
import decimal
import math
import numbers
import pickle
import re
import sys
import warnings
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import qpsolvers
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from algorithms._validation import (
    C_INT_MAX,
    WORKING_MAX,
    _refuse_masked,
    as_float_array,
    as_real_array,
    check_bool,
    check_entries_in_range,
    check_positive,
    check_square_symmetric,
    check_working_range,
    power_of_two_units,
    read_only,
    refuse_unknown_attribute,
    remember_validated,
    revalidate_if_reassigned,
    to_float,
)
from algorithms.core import (
    Algorithm,
    IterationMonitor,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    _dispatch,
)
from algorithms.qp._threads import single_blas_thread
from algorithms.qp.problem import QP

__all__ = ["AUTO_TABLE", "DQP", "KKTFactor", "QPSolution", "QPStats", "absolute_residuals", "choose_backend",
           "kkt_residuals"]

#: backend keyword names for (tolerances, iteration cap)
_TOL_KEYS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "osqp": (("eps_abs", "eps_rel"), "max_iter"),
    "scs": (("eps_abs", "eps_rel"), "max_iters"),
    "proxqp": (("eps_abs", "eps_rel"), "max_iter"),
    "piqp": (("eps_abs", "eps_rel"), "max_iter"),
    "clarabel": (("tol_gap_abs", "tol_gap_rel", "tol_feas"), "max_iter"),
    "daqp": ((), "iter_limit"),
}
#: default backend tolerances: tight enough that the slack test identifies J
#: (the polish then recovers x to machine precision); first-order methods get
#: a looser default since they converge linearly.
_DEFAULT_TOL = {"osqp": 1e-6, "scs": 1e-7, "proxqp": 1e-9, "piqp": 1e-9, "clarabel": 1e-9}
#: ``DQP(abs_tol=...)``: each backend's keywords for an absolute accuracy ("abs": the tolerance) with the
#: relative ones off, as qpbenchmark's high-accuracy settings (absolute ``eps_abs``, ``eps_rel = 0``,
#: the duality gap checked absolutely where the backend can)
_ABS_KEYS: dict[str, dict[str, Any]] = {
    "osqp": {"eps_abs": "abs", "eps_rel": 0.0},
    "scs": {"eps_abs": "abs", "eps_rel": 0.0},
    "proxqp": {"eps_abs": "abs", "eps_rel": 0.0, "check_duality_gap": True, "eps_duality_gap_abs": "abs",
               "eps_duality_gap_rel": 0.0},
    "piqp": {"eps_abs": "abs", "eps_rel": 0.0, "check_duality_gap": True, "eps_duality_gap_abs": "abs",
             "eps_duality_gap_rel": 0.0},
    "clarabel": {"tol_feas": "abs", "tol_gap_abs": "abs", "tol_gap_rel": 0.0},
    "daqp": {"primal_tol": "abs"},  # its dual_tol (1e-12 by default) is tighter already
}
_DAQP_PRIMAL_TOL = 1e-6  # daqp's default primal tolerance
#: tolerance on primal violation (per unit row norm) and on negative multipliers of a polished point
POLISH_TOL = 1e-7
#: relative residual of K_J ζ = rhs above which the reduced system counts as inconsistent
KKT_RESIDUAL_TOL = 1e-8
#: inactive rows with slack below this multiple of eps_active are flagged as possibly weakly active
NEAR_ACTIVE_FACTOR = 100.0

#: the QP's data, in the order of ``QP``'s fields (and of ``QPSolution.vjp``'s result)
INPUTS = ("P", "q", "G", "h", "A", "b")

#: ``backend="auto"``: (layout, largest n, backend), first match wins. Measured by
#: ``benchmarks/bench_dqp.py --table`` (torch layer forward + backward, best of k, on dense
#: P = MᵀM + I, G an n×n Gaussian, h = |N(0, 1)|, and on sparse simplex projections up to
#: n = 1e5): the dual active-set daqp is fastest on dense problems up to about 500 variables
#: (its cost grows with the number of active-set changes: 3.9 s at n = 1000 against proxqp's
#: 2.5 s), proxqp's dense augmented Lagrangian beyond (340 ms at n = 600, daqp 438, piqp 539;
#: at n = 1000 quadprog, piqp and proxqp stayed within 1.3x of each other in three runs on the
#: loaded machine, in changing order, and proxqp was first once and second twice);
#: on sparse data piqp's sparse interior-point method won at every size measured (n = 1e3 to
#: 1e5: 17, 127, 2236 ms against clarabel's 33, 321, 3787; osqp hit its iteration cap).
#: Dense-format data with at most ``SPARSE_DENSITY`` nonzeros and n ≥ ``SPARSE_MIN_N`` count as sparse.
AUTO_TABLE: tuple[tuple[str, float, str], ...] = (
    ("dense", 500, "daqp"),
    ("dense", math.inf, "proxqp"),
    ("sparse", math.inf, "piqp"),
)
SPARSE_DENSITY, SPARSE_MIN_N = 0.05, 1000


def installed_backends() -> list[str]:
    """The qpsolvers backends importable here (``qpsolvers.available_solvers``)."""
    return sorted(qpsolvers.available_solvers)


def _layout(qp: QP) -> str:
    """``"sparse"`` for scipy.sparse data, and for dense-format data with n ≥ ``SPARSE_MIN_N`` and at most
    ``SPARSE_DENSITY`` nonzeros; ``"dense"`` otherwise."""
    if qp.sparse:
        return "sparse"
    cached = getattr(qp, "_layout_cache", None)
    if cached is not None:
        return cached
    layout = "dense"
    if qp.n >= SPARSE_MIN_N:
        matrices = [M for M in (qp.P, qp.G, qp.A) if M is not None]
        nnz = sum(int(np.count_nonzero(M)) for M in matrices)
        if nnz <= SPARSE_DENSITY * sum(M.size for M in matrices):
            layout = "sparse"
    object.__setattr__(qp, "_layout_cache", layout)  # the data of a QP never change
    return layout


def choose_backend(qp: QP) -> str:
    """The backend ``DQP(backend="auto")`` uses for ``qp`` (see :data:`AUTO_TABLE`).

    >>> choose_backend(QP(P=np.eye(3), q=np.ones(3)))
    'daqp'
    >>> import scipy.sparse as sp
    >>> choose_backend(QP(P=sp.identity(5000, format="csc"), q=np.ones(5000)))
    'piqp'
    """
    if not isinstance(qp, QP):
        raise TypeError(f"qp must be an algorithms.qp.QP, got {type(qp).__name__}")
    revalidate_if_reassigned(qp)  # a field changed after construction (object.__setattr__), as a solve does
    layout = _layout(qp)
    installed = set(qpsolvers.available_solvers)
    for kind, max_n, backend in AUTO_TABLE:
        if kind == layout and qp.n <= max_n and backend in installed:
            return backend
    return "clarabel" if "clarabel" in installed else installed_backends()[0]


@dataclass(frozen=True)
class DQP(Algorithm):
    """dQP: any qpsolvers backend forward, active-set polish, reduced-KKT derivative.

    Parameters
    ----------
    backend : ``"auto"`` (default: chosen by size and sparsity from :data:`AUTO_TABLE`,
        recorded in ``sol.backend`` and ``sol.stats.backend``; when that backend's answer is not
        ``Success``, ``Infeasible`` or ``Unbounded`` and no ``maxiters`` was given, the backends of
        :data:`AUTO_FALLBACK` are tried in turn, daqp only up to 3000 variables) or a name in
        ``qpsolvers.available_solvers`` (clarabel, osqp, daqp, ...).
    eps_active : slack threshold (per unit row norm of ``G``) deciding the active set: row i is
        active iff its slack is ``<= eps_active``; an active row is weakly active iff
        ``mu_i ‖G_i‖ <= eps_active · max(1, max_j mu_j ‖G_j‖)`` (the multipliers per unit row norm too).
        A float > 0 in [1.18e-38, 3.4e38]; a large one (>= 1) marks
        slack rows active too, whose wrong polish the KKT check then rejects (the backend's point is kept).
    refine_active : greedily fix the active set after the polish (drop the most
        negative multiplier / add the most violated constraint, re-solve), as in
        the paper's heuristic refinement.
    polish : re-solve the reduced KKT system for ``x`` and the duals (default);
        ``False`` keeps the backend's own ``x`` (the derivative still uses K_J).
    kkt_tol : a float in (0, 1], at least 1.18e-38 (above 1 a relative residual accepts any point);
        the returned point is
        checked, whatever the backend and the polish did:
        ``Success`` needs every relative KKT residual (:func:`kkt_residuals`) ≤ ``kkt_tol``;
        otherwise the retcode is ``Failure`` (``MaxIters`` when the backend's status says it
        hit its iteration cap, ``MaxTime`` its time limit; the same when it returned no
        point and dQP's own LPs show neither infeasibility nor unboundedness) with the
        residuals in ``stats`` and ``warnings``. The default 1e-6 is far above the round-off
        of a polished point (~1e-13 at cond(K_J) ≲ 1e3) and far below the residual of a wrong
        active set (the size of a multiplier or a slack). The returned ``x`` is clipped into [lb, ub] (bounds
        met exactly); each row of ``A`` and ``G`` is judged at its own size (a row and its right-hand side
        times any c > 0 get the same verdict), while variables and objective far below unit scale are judged
        absolutely (the residuals' floor 1, :func:`kkt_residuals`): rescale such data to order 1 where their
        accuracy matters.
        A QP is solved on a copy rescaled by powers of two when its scales are far from 1 (the copy's
        ``Success`` must also pass the check in the caller's units: to 1e-2, and to ``kkt_tol`` when the
        copy's x lies far below its unit scale, where the copy's floors judged it absolutely; else the QP is
        solved as given); data of subnormal size (a nonzero P or q, or finite bounds, whose largest entry
        is below 2.2e-308, e.g. P, q of 1e-320) or scales whose factor passes float64 (2**1023: 1e300
        apart) are refused at the solve with a ValueError naming the data: rescale them.
    abs_tol : ``None`` (default) or a float > 0 in [1.18e-38, 3.4e38], an absolute accuracy demanded
        *as well*, in qpbenchmark's terms
        (:func:`absolute_residuals`: primal residual, dual residual and duality gap, unscaled):
        the backend then gets absolute tolerances ``abs_tol`` and relative ones 0
        (:data:`_ABS_KEYS`, qpbenchmark's high-accuracy settings), and ``Success`` also needs each
        absolute residual ``<= abs_tol`` (a candidate that passes the relative check only is not
        returned; the next candidate, then the next backend of ``"auto"``, is tried). The
        relative check is scale-invariant and stays the default; this is for callers whose
        criterion is absolute (e.g. ``abs_tol=1e-9`` for qpbenchmark's high-accuracy column).
    backend_options : extra keywords passed to the backend (they override the
        tolerance defaults); a mapping with str keys. Checked at construction (and for ``"auto"`` once the
        backend is chosen), each refusal naming the key: NaN anywhere; for an option whose name holds
        ``tol``, ``eps``, ``iter``, ``time`` or ``limit`` (a tolerance, iteration cap or time limit) a number
        (a Python or numpy number, a Fraction or Decimal, or a 0-d array or tensor: read as its number, a
        whole Fraction or Decimal as an int) that is finite and >= 0,
        an int at most 2**31 − 1 (a compiled backend's C int) and a float in the working range (0, or
        [1.18e-38, 3.4e38]); a key clarabel, piqp, highs or cvxopt does not know (their settings are
        listed), or a value osqp's, scs's or clarabel's typed settings refuse. A key another backend refuses
        at the solve is named then (a ValueError naming ``backend_options``).

    ``solve(qp, DQP(...), tol=..., maxiters=...)``: ``tol`` sets the backend's
    tolerances where qpsolvers exposes them (osqp, scs, proxqp, piqp, clarabel),
    ``maxiters`` its iteration cap (those and daqp); ``maxiters=0`` returns ``x = 0`` with
    ``MaxIters``. One pass for ``callback`` (backend calls, fallbacks, polish and check): it is called
    once, with the final record, after the run is over, so a ``True`` it returns changes nothing (the
    retcode stays the run's own: core's callback rule); the record has ``stage="done"``, the ``retcode``,
    the ``backend`` and the ``stages`` the run went through.
    Without ``tol`` the backend gets ``eps_abs = eps_rel`` = 1e-6 (osqp),
    1e-7 (scs), 1e-9 (proxqp, piqp), and clarabel ``tol_gap_abs = tol_gap_rel = tol_feas`` =
    1e-9; osqp always runs its own polish, and proxqp also stops on its duality gap
    (``check_duality_gap``, absolute and relative at the same tolerance). Formulas: see the module docstring.

    References: Magoon, Yang, Aigerman, Kovalsky, NeurIPS 2025, Theorem 3.1.

    >>> import numpy as np
    >>> from algorithms import solve
    >>> from algorithms.qp import QP, DQP
    >>> qp = QP(P=2 * np.eye(2), q=np.zeros(2), G=np.array([[-1.0, -1.0]]), h=np.array([-1.0]))
    >>> sol = solve(qp, DQP())
    >>> np.round(sol.x, 8), np.round(sol.z, 8), sol.active, sol.backend
    (array([0.5, 0.5]), array([1.]), array([ True]), 'daqp')
    >>> grads = sol.vjp(np.array([1.0, 0.0]))      # d x_1 / d h
    >>> np.round(grads["h"], 8)
    array([-0.5])
    """

    backend: str = "auto"
    eps_active: float = 1e-5
    refine_active: bool = False
    polish: bool = True
    kkt_tol: float = 1e-6
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    abs_tol: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.backend, str):
            raise TypeError(f"backend must be a string, got {type(self.backend).__name__}")
        installed = installed_backends()
        if self.backend != "auto" and self.backend not in installed:
            raise ValueError(
                f"backend must be 'auto' or one of the installed qpsolvers backends {installed}, "
                f"got {self.backend!r}"
            )
        object.__setattr__(self, "backend", str(self.backend))  # a numpy str_ stored as a str
        # stored as Python floats: np.float32(1e-5) was kept as numpy (its repr and hash differ from 1e-5's)
        object.__setattr__(self, "eps_active", check_positive("eps_active", self.eps_active))
        object.__setattr__(self, "kkt_tol", check_positive("kkt_tol", self.kkt_tol))
        if self.kkt_tol > 1.0:  # a relative residual above 1 accepts any point: every run was a Success
            raise ValueError(f"kkt_tol must be in (0, 1] (a relative KKT residual), got {self.kkt_tol!r}")
        if self.abs_tol is not None:
            object.__setattr__(self, "abs_tol", check_positive("abs_tol", self.abs_tol))
        for name in ("refine_active", "polish"):  # numpy bools too (np.True_ was refused as "not a bool")
            object.__setattr__(self, name, check_bool(name, getattr(self, name)))
        if not isinstance(self.backend_options, Mapping) or not all(
            isinstance(k, str) for k in self.backend_options
        ):
            raise TypeError("backend_options must be a mapping with string keys")
        # a copy: the caller's dict edited after construction changed later solves ({"max_iter": 1}); numpy
        # scalars as Python values (cvxopt refused {"maxiters": np.int64(100)}: "must be a positive integer",
        # a Failure retcode)
        object.__setattr__(self, "backend_options",
                           {k: _plain_option(v) for k, v in self.backend_options.items()})
        for key, value in self.backend_options.items():  # NaN reached the backend (a NaN tolerance)
            if isinstance(value, float | np.floating) and math.isnan(value):
                raise ValueError(f"backend_options[{key!r}] is NaN")
            _check_option_value(key, value)
        if self.backend != "auto":
            _check_backend_options(self.backend, self.backend_options)
        remember_validated(self)

    def __hash__(self) -> int:
        # the generated hash failed on the backend_options dict ("unhashable type: 'dict'"); equal DQPs
        # (the generated __eq__ compares the dicts) hash alike
        return hash((type(self), self.backend, self.eps_active, self.refine_active, self.polish, self.kkt_tol,
                     self.abs_tol, tuple(sorted((k, repr(v)) for k, v in self.backend_options.items()))))

    # -- hooks (private; the claims' sabotaged variants override them) ----------
    def _uses_equalities(self) -> bool:
        """Whether the reduced system keeps the equality rows (always, for the real method)."""
        return True

    def _accept_polish(self, primal_violation: float, negative_multiplier: float, tol: float) -> bool:
        """Whether the polished point is optimal: primal feasible and μ ≥ 0 (to ``tol``)."""
        return primal_violation <= tol and negative_multiplier <= tol

    def backend_kwargs(self, options: SolveOptions, backend: str | None = None) -> dict[str, Any]:
        """Keywords for ``qpsolvers.solve_problem``: tolerances, iteration cap, user options.

        ``options`` is a :class:`~algorithms.core.SolveOptions`; ``backend`` names an installed backend
        (None: this DQP's own, whose ``"auto"`` gets no backend-specific keywords).
        """
        if not isinstance(options, SolveOptions):  # None and a dict answered {} as if options were valid
            raise TypeError(f"options must be an algorithms.core.SolveOptions, got {type(options).__name__}")
        if backend is not None and (not isinstance(backend, str) or backend not in installed_backends()):
            raise ValueError(f"backend must be None or one of the installed qpsolvers backends "
                             f"{installed_backends()}, got {backend!r:.40}")
        backend = self.backend if backend is None else backend
        if self.abs_tol is not None:
            return self._absolute_kwargs(options, backend)
        kwargs: dict[str, Any] = {}
        keys = _TOL_KEYS.get(backend)
        if keys is not None:
            if keys[0]:
                tol = options.tolerance(_DEFAULT_TOL[backend])
                for key in keys[0]:
                    kwargs[key] = tol
            if options.maxiters is not None and keys[1] is not None:
                kwargs[keys[1]] = options.backend_iterations()
        if backend == "osqp":
            kwargs["polish"] = True
        if backend == "proxqp":
            # proxqp stops on primal/dual residuals only unless told to check the duality gap;
            # without it, it returned an active row at slack 2e-5 (gap 3e-5) with eps_abs = 1e-9
            tol = options.tolerance(_DEFAULT_TOL["proxqp"])
            kwargs.update(check_duality_gap=True, eps_duality_gap_abs=tol, eps_duality_gap_rel=tol)
        _check_backend_options(backend, self.backend_options)  # "auto"'s choice: checked once it is known
        kwargs.update(self.backend_options)
        return kwargs

    def _absolute_kwargs(self, options: SolveOptions, backend: str) -> dict[str, Any]:
        """``abs_tol`` given: absolute tolerances, relative ones 0. The tolerance is ``tol`` if given, else
        ``min(abs_tol, the backend's default)`` (a loose ``abs_tol`` such as qpbenchmark's default 1 must not
        loosen the backend: the active set is read from its point)."""
        tol = options.tolerance(min(self.abs_tol, _DEFAULT_TOL.get(backend, _DAQP_PRIMAL_TOL)))
        kwargs: dict[str, Any] = {}
        for key, value in _ABS_KEYS.get(backend, {}).items():
            kwargs[key] = tol if value == "abs" else value
        cap = _TOL_KEYS.get(backend, ((), None))[1]
        if options.maxiters is not None and cap is not None:
            kwargs[cap] = options.backend_iterations()
        if backend == "osqp":
            kwargs["polish"] = True
        kwargs.update(self.backend_options)
        return kwargs


#: cvxopt's solver options (``cvxopt.solvers.options``' documented keys): it ignores any other key
_CVXOPT_OPTIONS = frozenset({"show_progress", "maxiters", "abstol", "reltol", "feastol", "refinement",
                             "kktreg", "kktsolver"})


def _check_backend_options(backend: str, options: Mapping[str, Any]) -> None:
    """Refuse, by name, a ``backend_options`` key that ``backend`` does not know. clarabel, piqp, highs and
    cvxopt (through qpsolvers) ignore such a key in silence (a misspelled ``eps_abz`` ran with the default
    tolerance and returned ``Success``); the others raise inside the solve, which :func:`_backend_once`
    turns into an error naming ``backend_options`` (it was a ``Failure`` retcode with the backend's text)."""
    if not options:
        return
    if backend in _TYPED_OPTIONS:
        _check_typed_options(backend, options)
    if backend == "clarabel":
        _check_clarabel_options(options)
        return
    if backend == "piqp":
        import piqp

        settings = piqp.DenseSolver().settings
        known = {name for name in dir(settings) if not name.startswith("_")}
        unknown = sorted(key for key in options if key not in known)
        if not unknown:
            _try_settings("piqp", settings, options)
    elif backend == "highs":
        import highspy

        known = {name for name in dir(highspy.HighsOptions()) if not name.startswith("_")}
    elif backend == "cvxopt":
        known = set(_CVXOPT_OPTIONS)
    else:
        return
    unknown = sorted(key for key in options if key not in known)
    if unknown:
        raise ValueError(f"backend_options {unknown} are not {backend} settings; a misspelled option "
                         f"would be ignored")


#: osqp's and scs's typed settings: flags, positive scales, the relaxation alpha in (0, 2). A wrong type or
#: value reached the backend, whose error became a Failure retcode naming no key ({"polish": "no"},
#: {"alpha": 5.0}), or was taken ({"rho": 1e-39})
_TYPED_OPTIONS = {
    "osqp": {"flags": ("verbose", "polish", "adaptive_rho", "warm_start", "warm_starting",
                       "scaled_termination"),
             "scales": ("rho", "sigma", "delta", "adaptive_rho_tolerance", "adaptive_rho_fraction")},
    "scs": {"flags": ("verbose", "normalize", "warm_start", "adaptive_scale"),
            "scales": ("scale", "rho_x")},
}


def _check_typed_options(backend: str, options: Mapping[str, Any]) -> None:
    kinds = _TYPED_OPTIONS[backend]
    for key, value in options.items():
        name = f"backend_options[{key!r}]"
        if key in kinds["flags"]:
            check_bool(name, value)
        elif key in kinds["scales"]:
            check_positive(name, value)
        elif key == "alpha":
            alpha = check_positive(name, value)
            if not alpha < 2.0:
                raise ValueError(f"{name} must be in (0, 2) ({backend}'s relaxation parameter), got "
                                 f"{value!r}")


def _check_clarabel_options(options: Mapping[str, Any]) -> None:
    """clarabel (through qpsolvers) accepts a key that is none of its settings and ignores it."""
    import clarabel

    settings = clarabel.DefaultSettings()
    unknown = sorted(key for key in options if not hasattr(settings, key))
    if unknown:
        raise ValueError(f"backend_options {unknown} are not clarabel settings (e.g. max_iter, tol_gap_abs, "
                         f"tol_feas); a misspelled option would be ignored")
    _try_settings("clarabel", settings, options)


def _try_settings(backend: str, settings: Any, options: Mapping[str, Any]) -> None:
    """Each option set on a throwaway settings object of ``backend``, whose typed setters refuse a value of
    the wrong type or range (clarabel's max_iter = -5 or tol_gap_abs = "1e-8"): named here, before the
    solve (qpsolvers passed them on and the backend's own error, or a silent default, followed)."""
    for key, value in options.items():
        try:
            setattr(settings, key, value)
        except Exception as exc:  # OverflowError, TypeError from the backend's bindings
            raise TypeError(f"backend_options[{key!r}] = {value!r:.40} is not a valid {backend} value for "
                            f"{key}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}") from None


#: option names holding tolerances, iteration caps or time limits: non-negative numbers in every backend
_NONNEGATIVE_OPTION = re.compile(r"tol|eps|iter|time|limit", re.IGNORECASE)


def _plain_option(value: Any) -> Any:
    """A numpy scalar, 0-d array or 0-d tensor as its Python number (a 0-d NaN tolerance reached the backend
    past the NaN check: osqp ended MaxIters, clarabel Success), a Fraction or Decimal as its int (a whole
    Fraction or Decimal) or float; anything else as given."""
    if isinstance(value, np.generic):
        return value.item()
    # a Fraction or Decimal skipped the number checks (an int/float isinstance) and reached the backend:
    # tol_gap_abs = Fraction(-1) or Decimal("NaN") ran to Success (red23a); read as the int or float it is
    if isinstance(value, numbers.Rational) and not isinstance(value, int) and value.denominator == 1:
        return int(value)
    if isinstance(value, decimal.Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, numbers.Rational | decimal.Decimal) and not isinstance(value, int):
        try:
            return to_float(value)
        except ValueError:  # a signalling NaN refuses float()
            return math.nan
    if (isinstance(value, np.ndarray) or type(value).__module__.startswith("torch")) and \
            getattr(value, "shape", None) == () and hasattr(value, "item"):
        return value.item()
    return value


def _check_option_value(key: str, value: Any) -> None:
    """A backend option that is a tolerance, an iteration cap or a time limit (by its name) must be a finite
    number >= 0: a negative one (max_iter = -5, eps_abs = -1) or a string ("1e-8") reached the backend,
    which wrapped it around, ignored it or failed naming nothing."""
    if not _NONNEGATIVE_OPTION.search(key) or isinstance(value, bool | np.bool_):
        return
    if isinstance(value, str | bytes | np.ndarray) or type(value).__module__.startswith("torch"):
        raise TypeError(f"backend_options[{key!r}] must be a number (a tolerance, iteration cap or time "
                        f"limit), got {type(value).__name__} {value!r:.40}")
    if isinstance(value, int | float | np.integer | np.floating) and not (
            math.isfinite(to_float(value)) and value >= 0):
        raise ValueError(f"backend_options[{key!r}] must be a finite number >= 0 (a tolerance, iteration "
                         f"cap or time limit), got {value!r}")
    name = f"backend_options[{key!r}]"
    if isinstance(value, int | np.integer) and value > C_INT_MAX:  # a C backend's int: 2**64 wrapped around
        raise ValueError(f"{name} must be <= 2**31 - 1 (an iteration cap or limit of a compiled backend), "
                         f"got {value!r:.40}")
    if isinstance(value, float | np.floating):  # the working range: 1e308 or 5e-324 as a tolerance
        check_working_range(name, float(value))


# ----------------------------------------------------------------------------
# the reduced KKT matrix and its factorization
# ----------------------------------------------------------------------------


def _frozen(matrix):
    """``matrix`` (a dense array or a scipy.sparse matrix of our own) with its buffers in immutable memory
    (:func:`read_only`: a flag set back to writable let ``kkt.P`` be edited behind the factorization)."""
    if isinstance(matrix, np.ndarray):
        return read_only(matrix)
    for name in ("data", "indices", "indptr"):
        if hasattr(matrix, name):
            setattr(matrix, name, read_only(getattr(matrix, name)))
    return matrix


def _check_cholesky_of(P, L: np.ndarray) -> None:
    """Refuse a ``cholesky`` that is not P's lower factor: another matrix's factor (2·I for P = I) was
    used as given, and every solve answered for another K in silence. O(n²) (a full L Lᵀ product would cost
    as much as the factorization it saves): diag(L Lᵀ) against diag(P), and L(Lᵀv) − Pv against ‖P‖‖v‖ for
    three probes v: a fixed one and two drawn from a seed that hashes L itself (a fixed probe alone passed
    any factor of P + Σ c uuᵀ with u ⟂ v; a probe that depends on L cannot be built around). A factor of P
    agrees to round-off (n·eps relative), another matrix's by its own size."""
    n = L.shape[0]
    lower = np.ascontiguousarray(np.tril(L), dtype=np.float64)
    seed = zlib.crc32(lower.tobytes())
    V = np.column_stack([np.cos(np.arange(1, n + 1, dtype=np.float64)),  # no zero entries in general
                         np.random.default_rng(seed).standard_normal((n, 2))])
    PV = np.asarray(P @ V)
    tiny = np.finfo(float).tiny
    # each row against its own scale, (|L||Lᵀ| + |P|)|V|, what bounds a true factor's round-off in that row:
    # one global scale ‖P‖ let a large entry hide another block's factor (diag(1e5, 2) for P = diag(1e10, 1))
    abs_V = np.abs(V)
    abs_P = abs(P) if sp.issparse(P) else np.abs(P)
    scale = np.maximum(np.abs(lower) @ (np.abs(lower.T) @ abs_V) + np.asarray(abs_P @ abs_V), tiny)
    error = float((np.abs(lower @ (lower.T @ V) - PV) / scale).max(initial=0.0))
    diagonal = np.asarray(P.diagonal(), dtype=np.float64).ravel()
    squares = np.einsum("ij,ij->i", lower, lower)  # diag(L Lᵀ): sums of squares, exact to n·eps relative
    diag_error = float((np.abs(squares - diagonal) / np.maximum(np.abs(diagonal), tiny)).max(initial=0.0))
    # 1e-8 relative: far above the round-off of a float64 factorization (n·eps ~ 1e-13 at n = 1000), far below
    # the mismatch of another matrix's factor
    if not error <= 1e-8 or not diag_error <= 1e-8:
        raise ValueError(f"cholesky must be P's lower Cholesky factor (L Lᵀ = P): L Lᵀ differs from P on "
                         f"probe vectors or the diagonal by {max(error, diag_error):.3g} relative to each "
                         f"row's scale")


#: rows of C whose largest entry lies within 2**±ROW_EXPONENT_MAX of 1 are factored as given; past it the
#: floors 1 of the singularity tests misjudge K: a row of size c gives pivots ~c², so c = 1e-9 read as
#: singular (a regularized solve, a VJP 14 orders off) and c = 1e7 made every pivot of size 1 look singular
ROW_EXPONENT_MAX = 10


def _row_units(C) -> np.ndarray | None:
    """Each row's unit, the power of two nearest its largest |entry| (:func:`power_of_two_units`, span
    ``ROW_EXPONENT_MAX``), or None when every row lies within ``2**±ROW_EXPONENT_MAX`` of unit size."""
    if C is None or C.shape[0] == 0:
        return None
    size = np.asarray(abs(C).max(axis=1).todense()).ravel() if sp.issparse(C) else np.abs(C).max(axis=1)
    units = power_of_two_units(size, ROW_EXPONENT_MAX)
    return None if np.all(units == 1.0) else units


class KKTFactor:
    """A factorization of ``K = [[P, Cᵀ], [C, 0]]`` reused by the forward polish and the VJP.

    Parameters
    ----------
    P : (n, n) numpy array or scipy.sparse matrix, finite and symmetric, of any inertia (entries <= 3.4e38)
        Symmetry is checked (the dense routes read P's lower triangle only, so a non-symmetric P
        would be solved as another matrix). Definiteness is *not* required, and an indefinite P is
        solved exactly: this class is the linear solve of dQP's explicit solution (Theorem 3.1 of
        the paper: ζ* = K_J⁻¹ v_J given the active set J; the paper assumes P ≻ 0 for the QP, §3.1),
        and that solve needs only K non-singular, e.g. P positive definite on the null space of a
        full-row-rank C (P = diag(1, −1), C = [0, 1]); K itself is indefinite whenever C has rows. An
        indefinite P takes the ``LDLᵀ`` (dense) or ``splu`` (sparse) route; a singular K the
        minimum-norm solve below. The QP *solver* paths do need P positive semidefinite (a
        non-convex QP has no KKT point to differentiate): :class:`QP` checks it, naming ``P``, and
        so ``solve(QP, DQP)``, ``qp_layer`` and ``QPLayer`` refuse an indefinite P. A second
        eigenvalue check here would repeat QP's on every polish and VJP.
    C : (k, n) numpy array or scipy.sparse matrix, finite (entries <= 3.4e38), or None (no constraint rows)
        The equality rows and the active inequality rows, stacked.
    cholesky : (n, n) numpy array or None
        A lower Cholesky factor of a positive definite P already computed (:class:`QP` keeps the
        one its PSD check found), reused instead of factoring P again. Checked in O(n²) (the diagonal of
        L Lᵀ entry by entry, L Lᵀ v − P v on three probes row by row, each to 1e-8 of that row's own scale);
        another matrix's factor is refused by name.

    * sparse, ``P`` diagonal and well-conditioned positive (projections): ``splu`` of the
      sparse Schur complement ``S = C P⁻¹ Cᵀ`` (k×k; the simplex projection's K_J at
      n = 1e5 factors 2-3× faster this way than as a whole);
    * sparse otherwise: ``scipy.sparse.linalg.splu`` of K (never densified);
    * dense, ``P`` well-conditioned positive definite: Cholesky ``P = LLᵀ`` and of the
      Schur complement ``S = C P⁻¹ Cᵀ`` (block elimination, about half the flops of an
      LU of K);
    * dense otherwise: Bunch-Kaufman ``LDLᵀ`` of K (LAPACK ``sytrf``), with its
      reciprocal condition estimate (``sycon``).

    A (numerically) singular K switches to a least-squares (minimum-norm) solve and
    sets ``singular``; ``method`` says which path was taken. The decisions, with
    ``SINGULAR_RATIO = 1e-13`` and ``CHOLESKY_DIAG_RATIO = 1e-4``:

    * diagonal Schur iff ``k > 0`` and ``0 < min d`` with ``min d >= 1e-8 · max d``, and
      the ``splu`` of ``S`` passes the pivot test (else ``splu`` of K decides);
    * ``splu`` pivot test: singular iff ``min|U_ii| <= 1e-13 · max(1, max|U_ii|)``;
    * Cholesky-Schur iff ``P = LLᵀ`` exists with ``min L_ii >= 1e-4 · max L_ii`` and, for
      ``k > 0``, ``S = LₛLₛᵀ`` exists with ``min Lₛ,ii² > 1e-13 · max(1, max Lₛ,ii²)``;
    * ``LDLᵀ`` otherwise: singular iff ``sytrf`` finds a zero pivot or ``sycon``'s
      reciprocal condition estimate is ``<= 1e-13``.

    The floor 1 in the ``splu`` and Cholesky-Schur tests (and in δ) makes them absolute below unit scale: a
    well-conditioned K whose entries are all ~1e-14 or smaller reads as singular there and is solved
    regularized, which is not its solution; scale such a K to entries of order 1 first (:class:`DQP`
    equilibrates its QPs before factoring, so its answers and VJPs are not affected).

    A singular K is solved by ``pinv`` (dense K up to size 1000; above, the ``sytrf`` of the same
    regularized matrix, refined in the same way) or, sparse, by the ``splu`` of the regularized
    ``K + diag(δI, −δI)`` (``δ = 1e-8·max(1, max|K|)``) with iterative refinement against K (at most 30
    steps; never densified); ``lstsq_method`` names it.

    The two Schur routes refine their solve once when its residual exceeds ``REFINE_GATE`` = 1e-13
    relative (block elimination alone loses up to ``cond(P) · eps`` even where K is well conditioned).

    Rows of C far from unit size (a largest entry outside ``2**±10``) are scaled by powers of two (exact) to
    unit size before any of the above, ``K̃ = D K D`` with ``D = diag(I, S)``, and ``K⁻¹ r = D K̃⁻¹ D r``: a
    row and its right-hand side times c > 0 is the same constraint, and a row of 1e-9 (pivots ~1e-18) was
    read as singular against the floor 1 (a VJP 14 orders off at a correct x), a row of 1e7 made the unit
    pivots look singular. The attributes ``C``, ``K``, ``matvec`` stay those of the given C; a singular K's
    least-squares solution is then the minimum-norm one of the scaled system, mapped back.

    >>> f = KKTFactor(np.eye(2), np.array([[1.0, 1.0]]))
    >>> f.method, np.round(f.solve(np.array([0.0, 0.0, 1.0])), 6)
    ('cholesky-schur', array([ 0.5,  0.5, -0.5]))
    >>> import scipy.sparse as sp
    >>> KKTFactor(sp.identity(2, format="csc"), sp.csr_matrix([[1.0, 1.0]])).method
    'diagonal-schur'
    >>> KKTFactor(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: P contains NaN or inf entries
    """

    #: reciprocal condition number below which K is treated as singular (a float64
    #: solve has at most ~3 correct digits left)
    SINGULAR_RATIO = 1e-13
    #: the Cholesky/Schur path is used only when cond(P) ≲ 1e8 (diag-ratio of L ≥ 1e-4): block
    #: elimination loses up to cond(P)·eps, which the one refinement step of ``solve`` then recovers
    CHOLESKY_DIAG_RATIO = 1e-4
    #: the Schur routes refine a solve whose residual ‖K ζ − rhs‖∞ exceeds this times max(1, ‖rhs‖∞, ‖ζ‖∞):
    #: a backward error of ~n·eps (measured unrefined: 1e-15 to 8e-15 on the dense benchmark family at
    #: n = 30-300, 4e-10 on the ill-conditioned P of ``dqp.documented_thresholds``, which demands 1e-12)
    REFINE_GATE = 1e-13
    #: relative shift δ of the regularized LU of a singular sparse K (about √eps: the shifted matrix is
    #: then well enough conditioned to factor, and refinement removes the O(δ) bias)
    REGULARIZATION = 1e-8
    #: iterative-refinement steps of the regularized solve (each contracts the error by δ/(|λ| + δ) along
    #: an eigenvector of K with eigenvalue λ; it stops earlier once the residual stops falling or is at
    #: round-off relative to the right-hand side, 1e-15·(1 + ‖rhs‖∞): its work does not depend on the scale)
    REFINEMENT_STEPS = 30
    #: a singular dense K up to this size is solved by ``pinv`` (minimum norm); above, by the refined
    #: regularized LDLᵀ (an SVD of a few thousand rows is what made dense Maros-Meszaros runs slow)
    DENSE_PINV_MAX = 1000

    def __init__(self, P, C=None, *, cholesky: np.ndarray | None = None) -> None:
        self._build(P, C, cholesky)
        self.__dict__["_built"] = True  # from now on the public attributes are fixed

    def __setattr__(self, name: str, value: Any) -> None:
        # set after construction: n = "3" met "can only concatenate str", singular = "no" or method = 3 were
        # kept and steered the solves (the factorization is what they describe)
        if self.__dict__.get("_built") and not name.startswith("_"):
            # a misspelt name is the README's UnknownAttributeError (also a ValueError), not "fixed"
            refuse_unknown_attribute(self, name, ())
            raise ValueError(f"{name} is fixed by the KKTFactor's factorization; build a new KKTFactor(P, C) "
                             f"instead, got {type(value).__name__} {value!r:.40}")
        super().__setattr__(name, value)

    def _build(self, P, C, cholesky: np.ndarray | None) -> None:
        if P is None:
            raise TypeError("P is required: a 2-D numpy array or scipy.sparse matrix, got None")
        # np.matrix and masked arrays as plain arrays (their max(initial=...) raised numpy's TypeError); a
        # masked array with masked entries is refused (the mask would be dropped)
        for name in ("P", "C"):
            M = P if name == "P" else C
            if isinstance(M, np.ndarray) and type(M) is not np.ndarray:
                _refuse_masked(name, M)
                M = np.asarray(M)
                P, C = (M, C) if name == "P" else (P, M)
        for name, M in (("P", P), ("C", C)):
            if M is None:
                continue
            if not (sp.issparse(M) or isinstance(M, np.ndarray)) or M.ndim != 2:
                raise TypeError(f"{name} must be a 2-D numpy array or scipy.sparse matrix, "
                                f"got {type(M).__name__} of shape {getattr(M, 'shape', None)}")
            data = M.data if sp.issparse(M) else M
            if data.dtype.kind not in "iuf":  # complex gave a complex answer, bool was read as 0/1
                raise TypeError(f"{name} must hold real numbers, got dtype {data.dtype}")
            if not np.all(np.isfinite(data)):
                raise ValueError(f"{name} contains NaN or inf entries")
            check_entries_in_range(name, data)
        if P.shape[0] != P.shape[1]:
            raise ValueError(f"P must be square, got shape {P.shape}")
        if P.shape[0] == 0:  # numpy's "zero-size array to reduction operation" named nothing
            raise ValueError(f"P must be at least 1×1 (one variable), got shape {P.shape}")
        # the dense routes read P's lower triangle only: a non-symmetric P would be solved as another
        # matrix. Definiteness is not needed (K is factored for any symmetric P; QP checks P is PSD;
        # see the class docstring)
        check_square_symmetric("P", P)
        n = P.shape[0]
        if C is not None and C.shape[1] != n:
            raise ValueError(f"C must have shape (*, {n}), got {C.shape}")
        if cholesky is not None:
            if not isinstance(cholesky, np.ndarray) or cholesky.shape != (n, n):
                raise TypeError(f"cholesky must be a numpy array of shape ({n}, {n}) (P's lower factor), "
                                f"got {type(cholesky).__name__} of shape {getattr(cholesky, 'shape', None)}")
            if not np.issubdtype(cholesky.dtype, np.number) or not np.all(np.isfinite(cholesky)):
                raise ValueError("cholesky contains NaN or inf entries (or is not numeric)")
            _check_cholesky_of(P, cholesky)
        self.n = n
        self.k = 0 if C is None else C.shape[0]
        self.sparse = sp.issparse(P) or (C is not None and sp.issparse(C))
        self.singular = False
        self._lstsq = None
        self._K = None
        self._inner = None
        units = _row_units(C)
        if units is not None:   # factor the unit-row K̃ = D K D (see the class docstring)
            scale = 1.0 / units   # powers of two: exact
            scaled = sp.csr_matrix(sp.diags(scale) @ C) if sp.issparse(C) else \
                as_real_array("C", C) * scale[:, None]
            self._inner = KKTFactor(P, scaled, cholesky=cholesky)
            self._row_scale = np.concatenate([np.ones(n), scale])
            self.P, self.C = self._inner.P, _frozen(sp.csr_matrix(C, copy=True)) if self.sparse else \
                _frozen(as_real_array("C", C))
            self.method, self.singular = self._inner.method, self._inner.singular
            return
        if self.sparse:
            # copies, read-only (as the dense ones below): a CSC P was the caller's own matrix, and an edit of
            # it (or of k.P) after the factorization made matvec answer for another K than solve's
            self.P = _frozen(sp.csc_matrix(P, copy=True))
            self.C = None if C is None else _frozen(sp.csr_matrix(C, copy=True))
            if self._try_diagonal_schur():
                return
            self.method = "splu"
            # more constraint rows than variables: K is singular for sure, and SuperLU (scipy 1.16) on
            # a singular K failed in dpanel_bmod.c and corrupted memory (a later splu segfaulted on
            # QSHARE2B, 79 variables and 83 rows; issue #42): straight to the regularized factorization.
            # So is a K with an empty row (a variable in no term of P and no row of C, as in LPs; or an
            # empty row of C): the LU would only be thrown away (a full factorization's cost)
            self._lu = None if self.k > self.n or self._structurally_singular() else self._splu(self.K)
            self.singular = self._lu is None
            if self.singular:
                self._regularize()
            return
        self.P = _frozen(as_real_array("P", P))
        self.C = None if C is None else _frozen(as_real_array("C", C))
        if self._try_cholesky(cholesky):
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
        if self.singular and self.size > self.DENSE_PINV_MAX:
            self._regularize_dense()

    def __reduce__(self):
        # SciPy's SuperLU factor does not pickle: a pickled factor is rebuilt from P and C on load
        return (type(self), (self.P, self.C))

    def __repr__(self) -> str:  # the route taken, not "<KKTFactor object at 0x...>"
        return (f"KKTFactor(n={self.n}, k={self.k}, method={getattr(self, 'method', None)!r}, "
                f"sparse={self.sparse}, singular={self.singular})")

    def _regularize_dense(self) -> None:
        """The dense counterpart of :meth:`_regularize`: ``sytrf`` of ``K + diag(δI, −δI)`` (a ``pinv``
        of a K of ~3000 rows is an SVD, seconds to minutes; issue #42)."""
        K = self.K
        delta = self.REGULARIZATION * max(1.0, float(np.abs(K).max(initial=0.0)))
        shifted = K + np.diag(np.concatenate([np.full(self.n, delta), np.full(self.k, -delta)]))
        lwork = int(sla.lapack.dsytrf_lwork(shifted.shape[0])[0])
        ldu, ipiv, info = sla.lapack.dsytrf(shifted, lower=1, lwork=max(1, lwork))
        if info == 0:
            self._reg_ldl = (ldu, ipiv)

    def _regularize(self) -> None:
        """``splu`` of the quasi-definite ``K + diag(δ I_n, −δ I_k)``, ``δ = REGULARIZATION·max(1, max|K|)``:
        it exists for every δ > 0 and P ⪰ 0 (a symmetric quasi-definite matrix is strongly factorizable),
        and iterative refinement against the exact K turns it into a solve of a consistent singular K
        (never a dense ``pinv``: on Maros-Meszaros problems it took 41 of 48 s, issue #42)."""
        K = self.K
        delta = self.REGULARIZATION * max(1.0, float(abs(K).max()) if K.nnz else 1.0)
        shift = np.concatenate([np.full(self.n, delta), np.full(self.k, -delta)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", spla.MatrixRankWarning)
            try:
                # quasi-definite, hence factorizable in any symmetric order with diagonal pivots: a
                # symmetric fill-reducing order (minimum degree on K + Kᵀ) and no row interchanges. On
                # Maros-Meszaros K_J this factored 1.5-5x faster than SuperLU's default (COLAMD with
                # partial pivoting: CVXQP1_M 300 -> 57 ms, QGROW22 105 -> 26 ms, refinement included)
                # and the refinement reached the same residuals in as many steps
                self._reg_lu = spla.splu((K + sp.diags(shift)).tocsc(), permc_spec="MMD_AT_PLUS_A",
                                         diag_pivot_thresh=0.0, options={"SymmetricMode": True})
            except RuntimeError:  # exactly singular even so (cannot happen for P ⪰ 0): lsmr then
                self._reg_lu = None

    def _structurally_singular(self) -> bool:
        """Whether K is singular by its structure alone: an empty row of C, or more empty columns of P
        (the set Z) than rows of C with an entry in Z (then C restricted to Z has a null vector x_Z, and
        K (x, 0) = 0 for x = x_Z on Z and 0 elsewhere; a variable in no term of P and no row of C is the
        case of one). LP-like K_J are such, and SuperLU's plain LU of one printed illegal-argument errors
        from BLAS on QSCAGR7 and left the process's later solves wrong. Sparse routes; an explicitly
        stored zero counts as an entry."""
        empty = np.diff(self.P.indptr) == 0  # CSC: entries per column of P
        z = int(np.count_nonzero(empty))
        if not self.k:
            return z > 0
        C = self.C  # CSR
        if np.any(np.diff(C.indptr) == 0):
            return True
        if not z:
            return False
        rows = np.repeat(np.arange(self.k), np.diff(C.indptr))
        touching = np.unique(rows[empty[C.indices]]).size  # rows of C with an entry in Z
        return z > touching

    @classmethod
    def _splu(cls, M):
        """``splu(M)``, or None when M is (numerically) singular."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", spla.MatrixRankWarning)
                lu = spla.splu(M)
        except (RuntimeError, spla.MatrixRankWarning):
            return None
        diag = np.abs(lu.U.diagonal())
        if diag.size and diag.min() <= cls.SINGULAR_RATIO * max(1.0, diag.max()):
            return None
        return lu

    def _try_diagonal_schur(self) -> bool:
        """Block elimination for a diagonal ``P = D ≻ 0``: ``S = C D⁻¹ Cᵀ`` factored by ``splu``."""
        if not self.k or self.k > self.n:  # k > n: S is singular for sure (see __init__)
            return False
        P = self.P  # CSC: diagonal when column j holds row j only
        if not (P.nnz == self.n and np.array_equal(P.indices, np.arange(self.n))
                and np.array_equal(P.indptr, np.arange(self.n + 1))):
            return False
        d = P.data
        if not (d.min() > 0 and d.min() >= self.CHOLESKY_DIAG_RATIO ** 2 * d.max()):
            return False
        self._dinv = 1.0 / d
        scaled = self.C.copy()  # C D⁻¹: CSR, so each entry's column is in ``indices``
        scaled.data = scaled.data * self._dinv[scaled.indices]
        lu = self._splu((scaled @ self.C.T).tocsc())
        if lu is None:
            return False  # dependent rows of C: the LU of K decides singularity
        self._lu, self.method = lu, "diagonal-schur"
        return True

    def _try_cholesky(self, L: np.ndarray | None) -> bool:
        """Block elimination with ``P = LLᵀ`` (``L`` given, e.g. ``QP.cholesky``, or computed here)."""
        if L is None:
            try:
                L, _ = sla.cho_factor(self.P, lower=True, check_finite=False)
            except np.linalg.LinAlgError:
                return False
        d = np.abs(np.diag(L))
        if not (np.all(np.isfinite(d)) and d.min() >= self.CHOLESKY_DIAG_RATIO * d.max()):
            return False
        self._L = L
        if self.k:
            # W = L⁻¹Cᵀ is kept: the solves then need two triangular solves with L, not four
            W = sla.lapack.dtrtrs(L, self.C.T, lower=1)[0]  # LAPACK directly: no wrapper checks
            S = sla.blas.dsyrk(1.0, W.T, lower=1)  # WᵀW, lower triangle only (half the flops)
            Ls, info = sla.lapack.dpotrf(S, lower=1, clean=0)
            if info != 0:
                return False  # dependent rows of C: let LDLᵀ decide singularity
            ds = np.abs(np.diag(Ls))
            if not (ds.min() ** 2 > self.SINGULAR_RATIO * max(1.0, ds.max() ** 2)):
                return False
            self._W, self._Ls = W, Ls
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

    def _vector(self, name: str, value: Any) -> np.ndarray:
        """A right-hand side or a ζ of K's size n + k (a matrix of such columns too), finite: LAPACK's and
        numpy's messages named no argument, and a NaN came back as a NaN solution."""
        array = as_real_array(name, value)
        if array.ndim not in (1, 2) or array.shape[0] != self.size:
            raise ValueError(f"{name} must have length n + k = {self.n} + {self.k} = {self.size} (a vector, "
                             f"or a matrix of such columns), got shape {array.shape}")
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} contains NaN or inf entries")
        return array

    def matvec(self, zeta: np.ndarray) -> np.ndarray:
        """``K ζ``: by the assembled sparse K when it was built (one product; a sparse ``C.T`` is a new
        matrix on every use, 30 % of a refined regularized solve), else from the blocks.

        ``zeta`` is a finite vector of length n + k (entries of magnitude <= 3.4e38).
        """
        return self._matvec(self._vector("zeta", zeta))

    def _matvec(self, zeta: np.ndarray) -> np.ndarray:
        if self.sparse and self._K is not None:
            return self._K @ zeta
        x, y = zeta[: self.n], zeta[self.n:]
        top = self.P @ x
        if not self.k:
            return np.asarray(top)
        return np.concatenate([top + self.C.T @ y, self.C @ x])

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K⁻¹ rhs`` (least squares, minimum norm, when K is singular); ``rhs`` a finite vector of length
        n + k, entries of magnitude <= 3.4e38."""
        return self._solve(self._vector("rhs", rhs))

    def _solve(self, rhs: np.ndarray) -> np.ndarray:
        if self._inner is not None:   # K⁻¹ r = D K̃⁻¹ D r (rows of C rescaled to unit size)
            d = self._row_scale if rhs.ndim == 1 else self._row_scale[:, None]
            return d * self._inner._solve(d * rhs)
        if self.singular:
            return self._solve_lstsq(rhs)
        if self.method == "splu":
            return self._lu.solve(rhs)
        if self.method == "ldl":
            return sla.lapack.dsytrs(self._ldl[0], self._ldl[1], rhs, lower=1)[0]
        if self.method == "cholesky-schur" and not self.k:
            return sla.lapack.dpotrs(self._L, rhs, lower=1)[0]
        # block elimination loses up to ~cond(P)·eps relative accuracy even where K itself is well
        # conditioned (measured: residual 4e-10 for P = diag(1, 1.5e-8), C = [1, 1], cond(K) = 4); one
        # step of iterative refinement with the exact K ζ brings it back to round-off. It is taken only
        # when the residual shows the loss: a residual at REFINE_GATE is round-off already, and the
        # skipped second block solve is ~40 % of a solve (dense n = 100: the forward's and backward's)
        zeta = self._block_solve(rhs)
        r = rhs - self._matvec(zeta)
        if _inf_norm(r) <= self.REFINE_GATE * max(1.0, _inf_norm(rhs), _inf_norm(zeta)):
            return zeta
        return zeta + self._block_solve(r)

    def _block_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K⁻¹ rhs`` by block elimination (the two Schur routes, ``k > 0``)."""
        r1, r2 = rhs[: self.n], rhs[self.n:]
        if self.method == "diagonal-schur":  # y = S⁻¹(C D⁻¹ r₁ − r₂),  x = D⁻¹(r₁ − Cᵀ y)
            u = self._dinv * r1
            y = self._lu.solve(self.C @ u - r2)
            return np.concatenate([u - self._dinv * (self.C.T @ y), y])
        # with P = LLᵀ, W = L⁻¹Cᵀ, S = WᵀW, t = L⁻¹r₁:  y = S⁻¹(Wᵀt − r₂),  x = L⁻ᵀ(t − W y)
        t = sla.lapack.dtrtrs(self._L, r1, lower=1)[0]
        y = sla.lapack.dpotrs(self._Ls, self._W.T @ t - r2, lower=1)[0]
        x = sla.lapack.dtrtrs(self._L, t - self._W @ y, lower=1, trans=1)[0]
        return np.concatenate([x, y])

    @property
    def lstsq_method(self) -> str:
        """The route a singular K takes: ``"regularized"`` (sparse: refined regularized LU), ``"pinv"``
        (dense) or ``"lsmr"`` (sparse, should the regularized LU fail)."""
        if self._inner is not None:
            return self._inner.lstsq_method
        if self.sparse:
            return "regularized" if getattr(self, "_reg_lu", None) is not None else "lsmr"
        return "regularized" if getattr(self, "_reg_ldl", None) is not None else "pinv"

    def _solve_regularized(self, rhs: np.ndarray) -> np.ndarray:
        zeta = np.zeros_like(rhs)
        r = rhs.copy()
        best, best_norm, stalled = zeta, _inf_norm(r), 0
        floor = 1e-15 * (1.0 + _inf_norm(rhs))
        for _ in range(self.REFINEMENT_STEPS):
            zeta = zeta + (self._reg_lu.solve(r) if self.sparse else
                           sla.lapack.dsytrs(self._reg_ldl[0], self._reg_ldl[1], r, lower=1)[0])
            r = rhs - self._matvec(zeta)
            norm = _inf_norm(r)
            if not np.isfinite(norm):
                break
            if norm < best_norm:
                stalled = 0 if norm < 0.5 * best_norm else stalled + 1
                best, best_norm = zeta, norm
            else:
                stalled += 1
            if best_norm <= floor or stalled >= 3:
                break
        return best

    def _solve_lstsq(self, rhs: np.ndarray) -> np.ndarray:
        if self.lstsq_method == "regularized":
            return self._solve_regularized(rhs)
        if self.lstsq_method == "lsmr":
            return spla.lsmr(self.K, rhs, atol=1e-14, btol=1e-14, maxiter=20 * self.size)[0]
        if self._lstsq is None:
            K = self.K.toarray() if sp.issparse(self.K) else self.K
            self._lstsq = np.linalg.pinv(K, rcond=1e-12, hermitian=True)
        return self._lstsq @ rhs


# ----------------------------------------------------------------------------
# the solution type
# ----------------------------------------------------------------------------


_RESIDUALS = ("stationarity", "primal_residual", "dual_residual", "complementarity")
#: kkt_residuals' keys
_RESIDUALS_KEYS = ("stationarity", "primal", "dual", "complementarity")


@dataclass
class QPStats(Stats):
    """:class:`~algorithms.core.Stats` plus the backend used and the relative KKT residuals of ``x``.

    The residuals are those of :func:`kkt_residuals` at the returned point (NaN when the
    backend returned none); ``Success`` means each is at most ``DQP.kkt_tol``. Checked at construction:
    each residual >= 0 or NaN, ``absolute`` None or the dict of :func:`absolute_residuals`.
    """

    backend: str = ""
    stationarity: float = math.nan
    primal_residual: float = math.nan
    dual_residual: float = math.nan
    complementarity: float = math.nan
    #: ``DQP(abs_tol=...)`` only: :func:`absolute_residuals` of the last point checked
    absolute: dict[str, float] | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        # checked whenever set, as Stats' own fields: stats.stationarity = -1 after construction was kept
        # any real (a Fraction too: Fraction(-1) skipped an int/float isinstance and was stored as -1.0)
        if name in _RESIDUALS and isinstance(value, numbers.Real | np.integer | np.floating) \
                and not isinstance(value, bool | np.bool_):
            residual = to_float(value)
            if not (residual >= 0 or math.isnan(residual)):  # NaN (not computed) and inf pass
                raise ValueError(f"{name} must be a residual >= 0 (or NaN: not computed), got {value!r}")
            if math.isfinite(residual):
                check_working_range(name, residual, scale=False)  # 1e308 as a residual was stored
        if name == "absolute" and value is not None and (
                not isinstance(value, dict) or set(value) != {"primal", "dual", "gap"}
                or not all(isinstance(v, int | float | np.floating) and not isinstance(v, bool) and not v < 0
                           and not WORKING_MAX < v < math.inf for v in value.values())):  # 1e300 was kept
            raise TypeError(f"absolute must be None or the dict of absolute_residuals (primal, dual, gap: "
                            f"floats >= 0, at most 3.4e38 or inf), got {value!r:.80}")
        super().__setattr__(name, value)


def _picklable(original: Any) -> Any:
    """A shallow copy of a qpsolvers result whose ``extras`` entries that do not pickle are their repr."""
    extras = getattr(original, "extras", None)
    if not isinstance(extras, dict):
        return repr(original)
    clean = {}
    for key, value in extras.items():
        try:
            pickle.dumps(value)
            clean[key] = value
        except Exception:  # whatever the backend object raises when pickled
            clean[key] = repr(value)
    result = copy.copy(original)
    result.extras = clean
    return result


#: the QPSolution fields stored read-only (the multipliers and masks the record's checks and the VJP read)
_READ_ONLY_FIELDS = ("y", "z", "z_box", "active", "active_box")
#: the QPSolution fields checked at construction and whenever set afterwards
_RECORD_FIELDS = ("x", "y", "z", "z_box", "active", "active_box", "degenerate", "warnings", "backend", "kkt")


@dataclass(eq=False)  # identity, as Solution: the generated == compared x arrays (numpy's ambiguous truth)
class QPSolution(Solution):
    """A :class:`~algorithms.core.Solution` of a QP with duals, active set and a VJP.

    ``y`` (equalities) and ``z`` (inequalities, ``z ≥ 0``) follow qpsolvers' sign
    convention: ``Px + q + Aᵀy + Gᵀz = 0``. ``active`` is a boolean mask over the
    inequalities. ``degenerate`` is True at a point where the derivative is not
    unique (weakly active constraint, ``n_eq + |J| > n`` or a singular K_J); the
    reasons are in ``warnings``.

    With variable bounds, ``z_box`` (length n) holds their multipliers in qpsolvers' convention
    (``Px + q + Aᵀy + Gᵀz + z_box = 0``: negative at an active lower bound, positive at an active
    upper bound) and ``active_box`` marks the variables at a bound; the duals' layout is (``y``:
    equalities, ``z``: inequalities, ``z_box``: bounds). Row numbers in ``warnings`` then count the
    rows ``[G; −I_L; I_U]`` of :meth:`QP.with_box_rows` (fixed variables are equality rows there).

    The :class:`~algorithms.core.Solution` fields (``x``, ``value``: any real, the objective at x,
    ``retcode``, ``stats``, ``trace``, ``original``: the backend's raw result,
    ``problem``, ``algorithm``) come first; ``backend`` names
    the backend that answered and ``kkt`` is the :class:`KKTFactor` of the active set's KKT system
    (the factorization the VJP reuses).

    Checked at construction and when a field is set (a public record, as :class:`~algorithms.core.Solution`):
    ``x`` a real 1-D array, finite with ``Success``; ``y``, ``z``, ``z_box`` None or finite real 1-D arrays
    (a solve's answer and multipliers are what the run computed, so, as a :class:`Solution`'s ``x``, they
    are not held to the working range: a q of 3.4e38 has a z past it; README, "Working range");
    ``z`` of a ``Success`` record is >= 0 up to the dual tolerance (min z >= −tol·max(1, max|z|), tol the
    solve's ``kkt_tol``, or 1e-6 for a record built by hand): a z of the wrong sign given or set later (on a
    solved record too) is refused naming ``z``;
    ``active``/``active_box`` None or boolean masks; ``degenerate`` a bool; ``warnings`` a list of str;
    ``backend`` a str; ``kkt`` None or a :class:`KKTFactor`. ``y``, ``z``, ``z_box``, ``active`` and
    ``active_box`` are stored read-only (immutable memory, also after pickling): a write in place fails in
    the caller's statement (numpy's "assignment destination is read-only"); assign a new array instead,
    checked as above. ``x`` is the caller's own, as a :class:`~algorithms.core.Solution`'s.
    """

    y: np.ndarray | None = None
    z: np.ndarray | None = None
    active: np.ndarray | None = None
    z_box: np.ndarray | None = None
    active_box: np.ndarray | None = None
    degenerate: bool = False
    warnings: list[str] = field(default_factory=list)
    backend: str = ""
    kkt: KKTFactor | None = field(default=None, repr=False)
    _qp: QP | None = field(default=None, repr=False)
    _zeta: tuple | None = field(default=None, repr=False)
    _box: tuple | None = field(default=None, repr=False)
    _active_all: np.ndarray | None = field(default=None, repr=False)
    #: (d, σ, ρ_G, ρ_A) when the QP was solved as its equilibrated copy (``_qp``, ``kkt``, ``_zeta`` are the
    #: copy's; ``x``, the multipliers, ``kkt_solution``, ``adjoint`` and ``vjp`` are in the caller's units)
    _scaling: tuple | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # a public record: built by hand, y = "abc", active = [0.5], degenerate = "no", warnings = "abc" and a
        # Success with a NaN x were stored as given (the Solution fields are checked by Solution)
        super().__post_init__()
        for name in _RECORD_FIELDS:
            object.__setattr__(self, name, self._checked_field(name, getattr(self, name)))
        self.__dict__["_built"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        # set after construction: sol.x = NaN beside Success, sol.y = "abc" were kept as given
        if self.__dict__.get("_built") and name in _RECORD_FIELDS:
            value = self._checked_field(name, value)
        elif self.__dict__.get("_built") and name == "retcode" and value in (RetCode.Success, "Success"):
            for field_name in ("x", "y", "z", "z_box"):  # a Success needs finite x and multipliers
                self._checked_field(field_name, getattr(self, field_name), success=True)
        super().__setattr__(name, value)

    def _checked_field(self, name: str, value: Any, success: bool | None = None) -> Any:
        """One field of the record checked (with this record's retcode), returned as stored."""
        success = self.retcode is RetCode.Success if success is None else success
        if name == "x":
            x = np.asarray(value) if isinstance(value, np.ndarray | list | tuple) else None
            if x is None or x.ndim != 1 or x.dtype.kind not in "iuf":
                raise TypeError(f"x must be a real 1-D numpy array (the QP's solution), got "
                                f"{type(value).__name__} {getattr(x, 'shape', '')}")
            if success and not np.all(np.isfinite(x)):
                raise ValueError("x must be finite with retcode Success (a failed solve's x is NaN), got NaN "
                                 "or inf entries")
            # a solve's answer is not held to the working range (README: what a run computes is not bounded)
        elif name in ("y", "z", "z_box") and value is not None:
            array = np.asarray(value) if isinstance(value, np.ndarray | list | tuple) else None
            if array is None or array.ndim != 1 or array.dtype.kind not in "iuf":
                raise TypeError(f"{name} must be None or a real 1-D numpy array of multipliers, got "
                                f"{type(value).__name__} {value!r:.40}")
            # whatever the retcode: a solve without multipliers leaves them None, never NaN (y = [nan]
            # beside MaxIters was kept, and read as multipliers)
            if not np.all(np.isfinite(array)):
                raise ValueError(f"{name} must be finite (None where the solve has no multipliers), got NaN "
                                 f"or inf entries")
            # computed multipliers are not held to the working range: a q of 3.4e38 gave a z of 4.2e38,
            # refused as if the user had given it
            # a hand-built Success (no solved QP behind it) with dual-infeasible z: qpsolvers' z >= 0, to
            # DQP's default relative tolerance (a solve's own record is judged by its kkt_tol instead)
            # a solve's record handed to the caller: a z set by hand is judged by that solve's kkt_tol (z = −1
            # written on a solved Success was kept; the solve's own multipliers passed its dual check)
            tol = 1e-6 if self._qp is None else self.__dict__.get("_kkt_tol")
            if name == "z" and success and tol is not None and array.size and \
                    float(array.min()) < -tol * max(1.0, float(np.abs(array).max())):
                raise ValueError(f"z must be >= 0 with retcode Success (inequality multipliers, qpsolvers' "
                                 f"convention; a negative entry is allowed down to −{tol:g}·max(1, max|z|), "
                                 f"the KKT check's dual tolerance), got min z = {float(array.min()):.3g}")
        elif name in ("active", "active_box"):
            if value is not None and not (isinstance(value, np.ndarray) and value.ndim == 1
                                          and value.dtype == bool):
                raise TypeError(f"{name} must be None or a 1-D boolean numpy array (a mask), got "
                                f"{type(value).__name__} {value!r:.40}")
        elif name == "degenerate":
            if not isinstance(value, bool | np.bool_):
                raise TypeError(f"degenerate must be a bool, got {type(value).__name__} {value!r:.40}")
            value = bool(value)
        elif name == "warnings":
            if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
                raise TypeError(f"warnings must be a list of str, got {type(value).__name__} {value!r:.40}")
        elif name == "backend":
            if not isinstance(value, str):
                raise TypeError(f"backend must be a str (a qpsolvers backend's name), got "
                                f"{type(value).__name__} {value!r:.40}")
        elif name == "kkt" and value is not None and not isinstance(value, KKTFactor):
            raise TypeError(f"kkt must be None or a KKTFactor, got {type(value).__name__}")
        if name in _READ_ONLY_FIELDS and value is not None:
            # sol.active[0] = False in place changed the active set vjp differentiates over, and z[0] = -5
            # broke a Success's z >= 0, past the checks above: stored read-only (set a new array instead)
            value = read_only(np.asarray(value))
        return value

    def _row_factors(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-row factors ρ/σ from the copy's multipliers to the caller's: equality rows (A, then fixed
        variables), inequality rows (G, then bound rows); a bound row's ρ is 1/d."""
        d, sigma, rho_G, rho_A = self._scaling
        rows = self._qp  # with bounds: the copy's rows [G; −I_L; I_U] and [A; I_F] (with_box_rows)
        own = rows if self._box is None else self._box[0]  # its own G and A rows come first
        eq = np.concatenate([np.full(own.n_eq, rho_A), np.full(rows.n_eq - own.n_eq, 1.0 / d)]) / sigma
        ineq = np.concatenate([np.full(own.n_ineq, rho_G),
                               np.full(rows.n_ineq - own.n_ineq, 1.0 / d)]) / sigma
        return eq, ineq

    def __getstate__(self) -> dict[str, Any]:
        """Picklable state: the entries of a backend's raw result (``original``) that do not pickle become
        their repr (clarabel's holds a ``SolverStatus``: pickling a solution raised). ``x``, the duals, the
        stats and ``vjp`` survive the round trip (``kkt`` refactorizes on load)."""
        state = dict(vars(self))
        try:
            pickle.dumps(state["original"])
        except Exception:  # whatever the backend object raises when pickled
            state["original"] = _picklable(state["original"])
        return state

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
        x, lam, mu = (np.array(v, dtype=np.float64, copy=True) for v in self._zeta)
        if self._scaling is not None:
            eq, ineq = self._row_factors()
            J = np.flatnonzero(self.active if self._active_all is None else self._active_all)
            x, lam, mu = self._scaling[0] * x, lam * eq[:lam.size], mu * ineq[J]
        return x, lam, mu

    def adjoint(self, grad_x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(dz, dλ, dμ) = −K_J⁻¹ [grad_x; 0; 0]`` with the forward factorization."""
        if self.kkt is None:
            raise ValueError(f"no derivative available: the solve ended with {self.retcode.value}")
        self._check_consistent()
        n = self.kkt.n
        g = as_float_array("grad_x", grad_x, dtype=np.float64)
        _check_length("grad_x", g, n, "the length of the solution's x: n")
        if self._scaling is not None:  # K_J = D2 K̃_J D1 (the copy's), D1 = diag(σd, ρ), D2 = diag(d, ρ/σ)
            d, sigma = self._scaling[0], self._scaling[1]
            dz, dlam, dmu = self._adjoint(sigma * d * g)
            eq, ineq = self._row_factors()
            J = np.flatnonzero(self.active if self._active_all is None else self._active_all)
            return d * dz, dlam * eq[:dlam.size], dmu * ineq[J]
        return self._adjoint(g)

    def _check_consistent(self) -> None:
        """The fields the derivative reads still fit the solved QP: ``kkt``, ``x``, ``active`` or
        ``active_box`` replaced by hand after the solve (of another size) met numpy's "shape mismatch" or a
        message blaming grad_x."""
        if self._qp is None:
            return
        own = self._qp if self._box is None else self._box[0]
        expected = {"kkt": (self.kkt.n, self._qp.n), "x": (np.shape(self.x), (own.n,))}
        if self.active is not None:
            expected["active"] = (self.active.shape, (own.n_ineq,))
        if self.active_box is not None:
            expected["active_box"] = (self.active_box.shape, (own.n,))
        for name, (got, want) in expected.items():
            if got != want:
                raise ValueError(f"{name} does not fit the solved QP (expected {want}, got {got}): it was "
                                 f"replaced after the solve; solve again for a derivative")
        for name in ("x", "y", "z", "z_box"):  # written in place (sol.x[0] = nan): the record no longer holds
            value = getattr(self, name)
            if value is not None and not np.all(np.isfinite(value)):
                raise ValueError(f"{name} holds NaN or inf entries (written in place after the solve); solve "
                                 f"again for a derivative")

    def _adjoint(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = self.kkt.n
        rhs = np.zeros(self.kkt.size)
        rhs[:n] = g
        d = -self.kkt.solve(rhs)
        n_eq = self._zeta[1].size
        return d[:n], d[n: n + n_eq], d[n + n_eq:]

    def vjp(self, grad_x: np.ndarray, wrt: tuple[str, ...] | None = None) -> dict[str, Any]:
        """Gradients of ``⟨grad_x, x*⟩`` w.r.t. ``P, q, G, h, A, b`` (None where absent), and ``lb``,
        ``ub`` when the QP has bounds (zero at infinite bounds; at a fixed variable, lb_i = ub_i, x*
        moves with the common value, whose derivative is given in both lb_i and ub_i).

        Dense inputs get dense gradients; a sparse matrix gets a sparse gradient on
        its own sparsity pattern (its zeros are structural, as in dQP). ``wrt`` names
        the inputs wanted (all by default); the others are None and cost nothing
        (constant data, as the torch layer's sparse matrices).
        """
        if self.kkt is None or self._zeta is None:
            raise ValueError(f"no derivative available: the solve ended with {self.retcode.value}")
        self._check_consistent()
        names = INPUTS + (("lb", "ub") if self._box is not None else ())
        wrt = names if wrt is None else wrt
        if isinstance(wrt, str):  # one name, not a tuple of names ("P" would read as "P")
            raise ValueError(f"wrt must be a tuple of names in {names}, got the str {wrt!r}")
        if not isinstance(wrt, tuple | list | set | frozenset) \
                or not all(isinstance(w, str) for w in wrt):  # 3 met "'int' object is not iterable"
            raise TypeError(f"wrt must be a tuple of names in {names} (or None: all), got "
                            f"{type(wrt).__name__} {wrt!r:.60}")
        wrt = tuple(wrt)
        unknown = sorted(set(wrt) - set(names))
        if unknown:
            raise ValueError(f"wrt must be a tuple of names in {names}, got {wrt!r}")
        if self._scaling is not None:  # the chain rule through the copy's data (x = d·x̃; d, σ, ρ constants)
            d, sigma, rho_G, rho_A = self._scaling
            g = as_float_array("grad_x", grad_x, dtype=np.float64)
            _check_length("grad_x", g, self._qp.n, "the length of the solution's x: n")
            factors = {"P": sigma * d * d, "q": sigma * d, "G": rho_G * d, "h": rho_G, "A": rho_A * d,
                       "b": rho_A, "lb": 1.0 / d, "ub": 1.0 / d}
            out = self._vjp_of_copy(d * g, wrt)  # (no state changed: two threads may share a solution)
            return {k: (None if v is None else v * factors[k]) for k, v in out.items()}
        return self._vjp_of_copy(grad_x, wrt)

    def _vjp_of_copy(self, grad_x: np.ndarray, wrt: tuple[str, ...]) -> dict[str, Any]:
        """:meth:`vjp` in the units of the QP the factor belongs to (the equilibrated copy, if any)."""
        if self._box is None:
            return self._vjp(grad_x, wrt)
        qp, L, U = self._box
        m, p = qp.n_ineq, qp.n_eq
        F = qp.fixed_indices()
        bounds = tuple(w for w in wrt if w in ("lb", "ub"))
        inner = tuple(w for w in wrt if w in INPUTS) + (("h", "b") if bounds else ())
        out = self._vjp(grad_x, inner)
        G_aug, h_aug, A_aug, b_aug = out["G"], out["h"], out["A"], out["b"]
        out["G"] = None if G_aug is None or not m or "G" not in wrt else G_aug[:m]
        out["h"] = None if not m or "h" not in wrt else h_aug[:m]
        out["A"] = None if A_aug is None or not p or "A" not in wrt else A_aug[:p]
        out["b"] = None if not p or "b" not in wrt else b_aug[:p]
        dtype = self._qp.dtype
        for name, rows, sign, offset in (("lb", L, -1.0, m), ("ub", U, 1.0, m + L.size)):
            if getattr(qp, name) is None or name not in wrt:
                out[name] = None
                continue
            grad = np.zeros(qp.n, dtype=dtype)
            if rows.size:  # the row −x_i ≤ −lb_i: ∂/∂lb_i = −∂/∂h_i; x_i ≤ ub_i: ∂/∂ub_i = ∂/∂h_i
                grad[rows] = sign * h_aug[offset: offset + rows.size]
            if F.size:  # a fixed variable: x* moves with the common value lb_i = ub_i (given in both)
                grad[F] = b_aug[p:]
            out[name] = grad
        return out

    def _vjp(self, grad_x: np.ndarray, wrt: tuple[str, ...]) -> dict[str, Any]:
        P, G, A = self._qp.P, self._qp.G, self._qp.A
        x, lam, mu = self._zeta
        # a solution with a factor always has its active mask (over the rows of G and the bounds)
        J = np.flatnonzero(self.active if self._active_all is None else self._active_all)
        g = as_float_array("grad_x", grad_x, dtype=np.float64)
        _check_length("grad_x", g, self.kkt.n, "the length of the solution's x: n")
        dz, dlam, dmu = self._adjoint(g)
        dtype = self._qp.dtype
        out: dict[str, Any] = dict.fromkeys(INPUTS)
        out["q"] = dz.astype(dtype, copy=False)
        if "P" in wrt:
            out["P"] = _outer_on(P, [(0.5 * dz, x), (0.5 * x, dz)], None, dtype)
        if A is not None:
            if "A" in wrt:
                out["A"] = (_outer_on(A, [(dlam, x), (lam, dz)], None, dtype) if dlam.size
                            else _zeros_like(A, dtype))
            out["b"] = (-dlam if dlam.size else np.zeros(A.shape[0])).astype(dtype)
        if G is not None:
            if "G" in wrt:
                out["G"] = _outer_on(G, [(dmu, x), (mu, dz)], J, dtype)
            gh = np.zeros(G.shape[0])
            gh[J] = -dmu
            out["h"] = gh.astype(dtype)
        return {name: (value if name in wrt else None) for name, value in out.items()}


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


def _unit_rows(M):
    """``M`` with each nonzero row divided by its largest magnitude (dense or sparse)."""
    top = np.asarray(abs(M).max(axis=1).todense()).ravel() if sp.issparse(M) else np.abs(M).max(axis=1)
    scale = np.where(top > 0, 1.0 / np.where(top > 0, top, 1.0), 1.0)
    return sp.diags(scale) @ M if sp.issparse(M) else M * scale[:, None]


def _unit_rows_with(M, rhs):
    """The rows of M and their right-hand sides divided by each row's largest |entry| (zero rows kept)."""
    if M is None:
        return None, None
    top = np.asarray(abs(M).max(axis=1).todense()).ravel() if sp.issparse(M) else np.abs(M).max(axis=1)
    top = np.where(top > 0, top, 1.0)
    return (sp.diags(1.0 / top) @ M if sp.issparse(M) else M / top[:, None]), rhs / top


def _diagnose(P, q, G, h, A, b) -> RetCode | None:
    """Infeasible / Unbounded by two LPs (HiGHS via scipy), or None when neither is shown."""
    from scipy.optimize import linprog

    n = q.size
    # each row and its right-hand side scaled to unit max-norm (the same set): HiGHS drops coefficients below
    # 1e-9, so x2 = 1e20 written as 1e-20·x2 = 1 read as 0 = 1 and a feasible QP came back Infeasible
    G_s, h_s = _unit_rows_with(G, h)
    A_s, b_s = _unit_rows_with(A, b)
    feas = linprog(np.zeros(n), A_ub=G_s, b_ub=h_s, A_eq=A_s, b_eq=b_s, bounds=(None, None), method="highs")
    # scipy's status 2 is also HiGHS's "Model error" (a right-hand side of magnitude >= 1e20, which HiGHS
    # reads as infinite: x2 <= -1e20 was "infeasible"); only HiGHS's own infeasible status shows it
    if feas.status == 2 and "infeasible" in str(feas.message).lower():
        return RetCode.Infeasible
    # a recession direction d: P d = 0, A d = 0, G d ≤ 0 with qᵀd < 0 (|d|∞ ≤ 1); the rows of P and A are
    # scaled to unit max-norm (the same null space): HiGHS drops coefficients below 1e-9, so P = 1e-30 (a
    # strictly convex QP) read as P = 0 and was reported Unbounded
    rows = [_unit_rows(P)] if A is None else [_unit_rows(P), _unit_rows(A)]
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


def _status_texts(result) -> list[str]:
    """The backend's own status words (kept by qpsolvers in ``extras``), lower-cased.

    A status is a string (osqp: ``"maximum iterations reached"``, ``"run time limit reached"``; scs:
    ``"solved (inaccurate - reached max_iters)"``), an enum whose ``name`` says it (piqp's
    ``PIQP_MAX_ITER_REACHED``, proxqp's ``PROXQP_MAX_ITER_REACHED``), or clarabel's ``SolverStatus``,
    which has no ``name`` but prints as ``MaxIterations`` / ``MaxTime``.
    """
    if result is None:
        return []
    texts = []
    for value in (result.extras or {}).values():
        for item in (value, getattr(value, "status", None), getattr(value, "status_val", None)):
            if isinstance(item, str):
                texts.append(item.lower())
            elif isinstance(getattr(item, "name", None), str):
                texts.append(item.name.lower())
            elif type(item).__name__.endswith("Status"):
                texts.append(str(item).lower())
    return texts


def _hit_iteration_cap(result) -> bool:
    """Whether the backend's own status says it ran out of iterations (``max`` and ``iter`` in it)."""
    return any("iter" in t and "max" in t for t in _status_texts(result))


def _hit_time_limit(result) -> bool:
    """Whether the backend's own status says it ran out of time (osqp's ``run time limit reached``, scs's
    ``reached time_limit_secs``, clarabel's ``MaxTime``; no other status of theirs names time)."""
    return any("time" in t for t in _status_texts(result))


def _backend_horizon(result) -> RetCode:
    """MaxIters or MaxTime when the backend's own status says a horizon ended its run, else Failure."""
    if _hit_iteration_cap(result):
        return RetCode.MaxIters
    return RetCode.MaxTime if _hit_time_limit(result) else RetCode.Failure


#: backends that take infinite entries in lb/ub (checked with qpsolvers 4.11); the others get the finite
#: bounds as rows of G
_NATIVE_BOUNDS = frozenset({"clarabel", "cvxopt", "daqp", "gurobi", "highs", "osqp", "piqp", "proxqp",
                            "qpalm", "quadprog", "scs"})


def _call_backend(qp: QP, backend: str, algorithm: DQP, options: SolveOptions):
    if qp.has_box and backend not in _NATIVE_BOUNDS:
        qp = qp.with_box_rows()
    P, G, A = qp.P, qp.G, qp.A
    if not qp.sparse and backend in qpsolvers.sparse_solvers and _layout(qp) == "sparse":
        # large sparse data given as dense arrays: a sparse backend's sparse solver (piqp's dense
        # one took 1.1-1.8 s where its sparse one took 0.02 s on Maros-Meszaros problems, issue #42)
        P, G, A = (None if M is None else sp.csc_matrix(M) for M in (P, G, A))
    elif qp.sparse and backend not in qpsolvers.sparse_solvers:  # a dense-only backend (quadprog, daqp)
        P, G, A = (M.toarray() if sp.issparse(M) else M for M in (P, G, A))
    if backend == "highs" and P is not None:
        # HiGHS reads its Hessian as the lower triangle (kTriangular) and qpsolvers 4.11 hands it the full
        # matrix: every P with an off-diagonal entry came back as a wrong point (our check: Failure) or
        # "not found" (unconstrained); the lower triangle is the same P to HiGHS, and the answer is right
        P = sp.tril(sp.csc_matrix(P), format="csc")
    kwargs = algorithm.backend_kwargs(options, backend)  # outside the try: an error here is ours
    # writeable copies: the QP's arrays are read-only, and daqp's (Cython) buffers refuse read-only memory
    P, q, G, h, A, b, lb, ub = (_writeable(M) for M in (P, qp.q, G, qp.h, A, qp.b, qp.lb, qp.ub))
    result, error = _backend_once(qpsolvers.Problem(P, q, G, h, A, b, lb, ub), backend, kwargs)
    if error is not None and algorithm.backend_options and _KEYWORD_REFUSAL.search(error):
        # the backend refused one of the user's keywords (a misspelling, a wrong type): an input error, named,
        # not a Failure retcode carrying the backend's text
        named = sorted(key for key in algorithm.backend_options if key in error)
        if named:
            raise ValueError(f"backend_options {named} were refused by {backend}: {error[:300]}")
    scale = max(_inf_norm(P.data if sp.issparse(P) else P), _inf_norm(q))
    if not _found_finite(result) and scale > _OBJECTIVE_RESCALE_ABOVE:
        # a backend's absolute tolerances can fail on a badly scaled objective (clarabel: Failure and x =
        # NaN on P = 1e8 I, q = -1e8 (1, 1), whose answer is (1, 1)); (P, q)/s has the same minimiser and
        # multipliers divided by s. Only after a failure, so every solved run is the backend's own answer.
        problem = qpsolvers.Problem(P / scale, q / scale, G, h, A, b, lb, ub)
        rescaled, _ = _backend_once(problem, backend, kwargs)
        if _found_finite(rescaled):
            for name in ("y", "z", "z_box"):
                if getattr(rescaled, name, None) is not None:
                    setattr(rescaled, name, np.asarray(getattr(rescaled, name), dtype=np.float64) * scale)
            if getattr(rescaled, "obj", None) is not None:
                rescaled.obj = rescaled.obj * scale
            return rescaled, None
    size = _minimiser_scale(P, q, h, b, lb, ub)
    if not _found_finite(result) and size > _OBJECTIVE_RESCALE_ABOVE and _diagnose_with_box(qp) is None:
        # a far minimiser: clarabel answered Failure on P = 2I, G = −(1, 1), h = −1e8 (x* = (5e7, 5e7)), whose
        # answer daqp and osqp give, highs on P = I, q = −(3e8, 4e8). x = s·u turns it into (P, q/s, G, h/s,
        # A, b/s, lb/s, ub/s) (the objective over s²), whose multipliers are those over s. Only after a
        # failure, as above; the answer is then polished and checked on the caller's data like any other
        problem = qpsolvers.Problem(P, q / size, G, _divided(h, size), A, _divided(b, size),
                                    _divided(lb, size), _divided(ub, size))
        rescaled, _ = _backend_once(problem, backend, kwargs)
        if _found_finite(rescaled):
            rescaled.x = np.asarray(rescaled.x, dtype=np.float64) * size
            for name in ("y", "z", "z_box"):
                if getattr(rescaled, name, None) is not None:
                    setattr(rescaled, name, np.asarray(getattr(rescaled, name), dtype=np.float64) * size)
            if getattr(rescaled, "obj", None) is not None:
                rescaled.obj = rescaled.obj * size * size
            return rescaled, None
    return result, error


def _diagnose_with_box(qp: QP) -> RetCode | None:
    """:func:`_diagnose` of ``qp`` (its bounds as rows of G): an infeasible or unbounded QP is not retried
    rescaled (daqp and highs then "found" a point of the unbounded problem x₁ >= 1e8, min −x₁, whose check
    failed: ``Failure`` where the diagnosis says ``Unbounded``)."""
    rows = qp.with_box_rows() if qp.has_box else qp
    return _diagnose(rows.P, rows.q, rows.G, rows.h, rows.A, rows.b)


def _minimiser_scale(P, q, h, b, lb, ub) -> float:
    """A scale of the minimiser: the constraints' largest finite right-hand side, or |q|/|P| (−P⁻¹q's order)
    without constraints (not with them: P = 1.2e-38·I, q ~ 1 inside the box ±1e-30 has x* = ±1e-30)."""
    sides = [_finite_norm(v) for v in (h, b, lb, ub) if v is not None]
    if sides:
        return max(sides)
    curvature = _inf_norm(P.data if sp.issparse(P) else P)
    return _inf_norm(q) / curvature if curvature > 0 else 0.0


def _finite_norm(v) -> float:
    """The largest finite |entry| of ``v`` (None or an array; infinite bounds are no scale), 0 if none."""
    if v is None:
        return 0.0
    finite = np.abs(np.asarray(v, dtype=np.float64))
    return float(finite[np.isfinite(finite)].max(initial=0.0))


def _divided(v, scale: float):
    return None if v is None else v / scale


def _writeable(value):
    """``value`` (None, a dense array or a sparse matrix) with writeable buffers: copied if read-only."""
    if value is None:
        return None
    if sp.issparse(value):
        return value if value.data.flags.writeable and value.indices.flags.writeable else value.copy()
    return value if value.flags.writeable else np.array(value)


#: an objective scale max(|P|, |q|) above which a backend's failure is retried on (P, q) / scale
_OBJECTIVE_RESCALE_ABOVE = 1e4


#: how the backends refuse a keyword they do not take (daqp/quadprog, scs/ecos, osqp, proxqp's binding)
_KEYWORD_REFUSAL = re.compile(r"unexpected keyword|invalid keyword|Unrecognized setting|"
                              r"incompatible function arguments")


def _backend_once(problem, backend: str, kwargs: dict):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return qpsolvers.solve_problem(problem, solver=backend, **kwargs), None
    except Exception as exc:  # a backend that raises on infeasible/unbounded input (quadprog, ...)
        return None, f"{type(exc).__name__}: {exc}"


def _found_finite(result) -> bool:
    return result is not None and bool(result.found) and result.x is not None and \
        bool(np.all(np.isfinite(result.x)))


def _reduced(qp: QP, J, use_eq: bool):
    """Factor K_J and solve it for (x, λ, μ)."""
    P, q, G, h, A, b = qp.P, qp.q, qp.G, qp.h, qp.A, qp.b
    blocks, rhs = [], [-q]
    if use_eq and A is not None:
        blocks.append(A)
        rhs.append(b)
    if G is not None and J.size:
        blocks.append((G.tocsr() if sp.issparse(G) else G)[J])  # rows of CSR slice cheaply
        rhs.append(h[J])
    if blocks:
        C = sp.vstack([sp.csr_matrix(B) for B in blocks]).tocsr() if any(sp.issparse(B) for B in blocks) \
            else np.vstack(blocks)
    else:
        C = None
    if not sp.issparse(P) and qp.n >= SPARSE_MIN_N and _layout(qp) == "sparse":
        # large sparse data given as dense arrays: the sparse routes (never a dense pinv of K_J)
        P, C = sp.csc_matrix(P), None if C is None else sp.csr_matrix(C)
        factor = KKTFactor(P, C)
    else:
        factor = KKTFactor(P, C, cholesky=qp.cholesky)
    rhs = np.concatenate(rhs)
    zeta = factor._solve(rhs)  # internal: a ζ past the working range is the caller's to report, not an input
    n = q.size
    n_eq = A.shape[0] if (use_eq and A is not None) else 0
    # relative residual of K_J ζ = rhs: ~1e-15 unless K_J is singular *and* the system is
    # inconsistent (e.g. an unbounded QP that a backend reported as solved)
    residual = float(np.abs(factor._matvec(zeta) - rhs).max() / (1.0 + np.abs(rhs).max()))
    return factor, zeta[:n], zeta[n: n + n_eq], zeta[n + n_eq:], residual


def _row_norms(G) -> np.ndarray:
    """‖G_i‖ of each row (1 for a zero row), so that slacks and violations are distances to the row's
    hyperplane: scaling a row and its h_i by c > 0 is the same QP and must not change the active set."""
    # QP keeps sparse G as CSC, whose ``indices`` are row indices: one pass over the nonzeros
    norms = np.sqrt(np.bincount(G.indices, weights=G.data ** 2, minlength=G.shape[0])) \
        if sp.issparse(G) else np.linalg.norm(G, axis=1)
    return np.where(norms > 0, norms, 1.0)


def _kkt_violation(G, h, x, mu, J, scale):
    """Largest primal violation of the inactive rows and most negative active multiplier (scaled)."""
    viol = 0.0
    if G is not None:
        r = (G @ x - h) / scale
        viol = float(r.max(initial=0.0))
    neg = float(-mu.min(initial=0.0)) if mu.size else 0.0
    return viol, neg


def _inf_norm(v) -> float:
    return float(np.abs(v).max(initial=0.0))


def _check_no_multipliers(name: str, value, size: int) -> None:
    """Multipliers given for rows the QP does not have are a mix-up (e.g. y and z swapped): refused."""
    rows = {"y": "equalities", "z": "inequalities"}.get(name, "variable bounds")
    if not size and value is not None and np.size(value) != 0:
        raise ValueError(f"{name} must be None (or empty): the QP has no {rows}, got "
                         f"{np.size(value)} entries")


def _check_length(name: str, array: np.ndarray, size: int, what: str) -> None:
    """``array`` of shape (size,), else a ValueError naming both ``name`` and what fixes the size (the QP's
    n, n_eq or n_ineq: a mismatch names both sides)."""
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},) ({what} = {size}), got {tuple(array.shape)}")


def kkt_residuals(qp: QP, x: np.ndarray, y: np.ndarray | None, z: np.ndarray | None,
                  z_box: np.ndarray | None = None) -> dict[str, float]:
    """Relative KKT residuals of ``(x, y, z)`` for ``qp`` (qpsolvers' signs: Px + q + Aᵀy + Gᵀz = 0).

    ``x`` (length n), ``y`` (length p, or None without equalities), ``z`` (length m, or None without
    inequalities) and ``z_box`` are finite real 1-D arrays with entries of magnitude <= 3.4e38 (the working
    range; beyond, refused by name).

    With bounds (``z_box`` required, qpsolvers' convention ``+ z_box`` in stationarity), the residuals
    are those of the rows ``[G; −I_L; I_U]`` (:meth:`QP.with_box_rows`) with multipliers
    ``(z, max(−z_box_L, 0), max(z_box_U, 0))``; a ``z_box`` entry of the wrong sign for its bound (or
    at a free side) is a stationarity and dual violation.

    Each residual is divided by the scale of the terms it compares, so that it is invariant under scaling
    the data; the primal and complementarity residuals row by row, so that one huge row cannot hide another
    (``(|G||x|)ᵢ = Σⱼ |Gᵢⱼ xⱼ|``, what bounds the round-off of ``(Gx)ᵢ``):

    * stationarity ``‖Px + q + Aᵀy + Gᵀz‖∞ / max(1, ‖q‖∞, ‖Px‖∞, ‖Aᵀy‖∞, ‖Gᵀz‖∞)`` (one scale for the
      gradient: a coordinate whose terms cancel, as at x* = (1e12, 1e12) of P = [[1, −1], [−1, 2]], has a
      right answer's rounding far above its own terms; so one entry of q of 1e15 also hides a gradient
      error 0.5 of another coordinate);
    * primal ``maxᵢ`` of ``|(Ax − b)ᵢ| / max(‖Aᵢ‖∞, |bᵢ|, (|A||x|)ᵢ)`` and ``(Gx − h)ᵢ₊ / sᵢ``,
      ``sᵢ = max(‖Gᵢ‖∞, |hᵢ|, (|G||x|)ᵢ)`` (``‖Mᵢ‖∞`` the row's largest |entry|, 1 for a zero row);
    * dual ``‖z̃₋‖∞ / max(1, ‖z̃‖∞)`` with ``z̃ᵢ = zᵢ ‖Gᵢ‖∞``, the multipliers of the unit rows (judged as one
      vector);
    * complementarity ``maxᵢ |z̃ᵢ (h − Gx)ᵢ| / (max(1, ‖z̃‖∞) · sᵢ)``;
    * with bounds, stationarity is also at least ``‖f‖∞ / max(1, ‖q‖∞, ‖z_box‖∞)``, f the part of ``z_box``
      no bound absorbs (a wrong sign, or a free side; a fixed variable's entry absorbs either sign); and the
      primal residual is the larger of that of the rows of A and G and of the bounds, each variable's
      violation over ``max(1, |its bound|, |xᵢ|)``.

    One scale for all rows let a row of ``h = 1e20`` ("no bound", Maros-Meszaros) or a coordinate of x of
    −1e20 hide a violation 0.5 of another row (``Success`` at x = (1, 1) or (1, −1e20) for x1 <= 0.5). So
    a row is judged on its own scale: a row on a coordinate far smaller than the others sees that
    coordinate's own error. A row and its right-hand side multiplied by any c > 0 are the same constraint,
    and every residual is the same for both (the floor of a row's scale is the row's own size ``‖Gᵢ‖∞``, its
    multiplier taken as ``zᵢ ‖Gᵢ‖∞``): with the floor 1, a row of entries ~1e-6 was judged absolutely, and an
    answer violating it by 0.2 of its own size passed as ``Success``, 34 % below the optimum (red25a).

    The floor 1 of the other scales (in the units of x and of q, with rows taken at unit size) is deliberate,
    and it is what the residuals do NOT see: below unit scale they are absolute. A QP whose data (and so
    whose multipliers) are all far below 1 is judged to the absolute tolerance, e.g. z = (1e-12, −1e-9)
    has dual residual 1e-9, under ``DQP``'s default ``kkt_tol`` 1e-6,
    although its second multiplier has the wrong sign; and above unit scale a negative multiplier is judged
    against the largest one (z = (1e9, −1) has dual residual 1e-9). Without the floor every multiplier of a
    QP whose constraints are all slack (z = 0 up to round-off, e.g. −1e-15) would be judged against its own
    round-off and a correct answer called ``Failure``. Rescale data of very small magnitude (to entries of
    order 1) before solving when the signs of multipliers below ``kkt_tol`` matter.

    >>> qp = QP(P=np.eye(2), q=-np.ones(2), G=np.array([[1.0, 0.0]]), h=np.array([0.5]))
    >>> kkt_residuals(qp, np.array([0.5, 1.0]), None, np.array([0.5]))
    {'stationarity': 0.0, 'primal': 0.0, 'dual': 0.0, 'complementarity': 0.0}
    >>> round(kkt_residuals(qp, np.array([1.0, 1.0]), None, np.zeros(1))["primal"], 6)
    0.5
    """
    return _kkt_residuals(qp, x, y, z, z_box, 0.0)


def _kkt_residuals(qp: QP, x, y, z, z_box, x_floor: float) -> dict[str, float]:
    """:func:`kkt_residuals`; rows of A and G scaled by ``|M| max(|x|, x_floor)`` (X_FLOOR_CALLER_UNITS)."""
    if not isinstance(qp, QP):
        raise TypeError(f"qp must be an algorithms.qp.QP, got {type(qp).__name__}")
    revalidate_if_reassigned(qp)  # a field changed after construction (object.__setattr__), as a solve does
    if qp.has_box:
        if z_box is None:
            raise ValueError("z_box is required: the QP has variable bounds")
        _check_no_multipliers("y", y, qp.n_eq)
        _check_no_multipliers("z", z, qp.n_ineq)
        z_box = as_float_array("z_box", z_box, dtype=np.float64)
        _check_length("z_box", z_box, qp.n, "one multiplier per variable: qp.n")
        L, U = qp.box_indices()
        F = qp.fixed_indices()
        z_parts = [] if qp.G is None else [as_float_array("z", z, ndim=1, dtype=np.float64)]
        if z_parts and z_parts[0].shape != (qp.n_ineq,):  # numpy's concatenate message named no argument
            raise ValueError(f"z must have shape ({qp.n_ineq},) (one multiplier per row of G), got "
                             f"{z_parts[0].shape}")
        lower, upper = np.zeros(qp.n), np.zeros(qp.n)
        lower[L], upper[U] = np.maximum(-z_box[L], 0.0), np.maximum(z_box[U], 0.0)
        free_part = z_box + lower - upper  # what no bound can absorb (wrong sign or a free side)
        free_part[F] = 0.0  # a fixed variable's multiplier has either sign
        aug = qp.with_box_rows()
        y_parts = [] if qp.A is None else [as_float_array("y", y, ndim=1, dtype=np.float64)]
        if y_parts and y_parts[0].shape != (qp.n_eq,):
            raise ValueError(f"y must have shape ({qp.n_eq},) (one multiplier per row of A), got "
                             f"{y_parts[0].shape}")
        y_aug = np.concatenate([*y_parts, z_box[F]]) if aug.A is not None else None
        z_aug = np.concatenate([*z_parts, lower[L], upper[U]]) if aug.G is not None else None
        res = _kkt_residuals(aug, x, y_aug, z_aug, None, x_floor)
        res["primal"] = max(_rows_primal(qp, np.asarray(x, dtype=np.float64), x_floor),
                            _box_violation(qp, x))
        scale = max(1.0, _inf_norm(qp.q), _inf_norm(z_box))
        res["stationarity"] = max(res["stationarity"], _inf_norm(free_part) / scale)
        return res
    x = as_float_array("x", x, dtype=np.float64)
    _check_length("x", x, qp.n, "one entry per variable: qp.n")
    _check_no_multipliers("z_box", z_box, 0)  # bound multipliers for a QP without bounds were ignored
    for name, value, size, rows in (("y", y, qp.n_eq, "equalities"), ("z", z, qp.n_ineq, "inequalities")):
        if size and value is None:
            raise ValueError(f"{name} is required: the QP has {size} {rows}")
        _check_no_multipliers(name, value, size)
    if qp.A is not None:
        y = as_float_array("y", y, dtype=np.float64)
        _check_length("y", y, qp.n_eq, "one multiplier per equality row: qp.n_eq")
    if qp.G is not None:
        z = as_float_array("z", z, dtype=np.float64)
        _check_length("z", z, qp.n_ineq, "one multiplier per inequality row: qp.n_ineq")
    # every residual is scaled per row (per coordinate for stationarity) by the terms that row compares:
    # one global scale let a row of h = 1e20 ("no bound") or one q entry of 1e15 hide a violation 0.5 of
    # another row (clarabel's x = (1, 1) for x1 <= 0.5 passed as Success); |M| @ |v| bounds the round-off
    # of M @ v, so cancellation inside a row is not judged against its own rounding
    floored_x = np.maximum(np.abs(x), x_floor)
    # a row's scale is floored at the row's own size, and its multiplier taken at the unit row's size: a row
    # and its right-hand side times c > 0 are the same constraint (a floor 1 judged a row of ~1e-6 entries
    # absolutely, and an answer 34 % below the optimum, violating it by 0.2 of its size, passed; red25a)
    Px = qp.P @ x
    grad = Px + qp.q
    scale_grad = [1.0, _inf_norm(qp.q), _inf_norm(Px)]
    primal = 0.0
    dual = compl = 0.0
    if qp.A is not None:
        Ax = qp.A @ x
        Aty = qp.A.T @ y
        grad = grad + Aty
        scale_grad.append(_inf_norm(Aty))
        scale_b = np.maximum(np.maximum(_row_sizes(qp.A), np.abs(qp.b)), _abs_product(qp.A, floored_x))
        primal = _inf_norm((Ax - qp.b) / scale_b)
    if qp.G is not None:
        Gx = qp.G @ x
        Gtz = qp.G.T @ z
        grad = grad + Gtz
        scale_grad.append(_inf_norm(Gtz))
        slack = qp.h - Gx
        sizes = _row_sizes(qp.G)
        scale_h = np.maximum(np.maximum(sizes, np.abs(qp.h)), _abs_product(qp.G, floored_x))
        primal = max(primal, float(np.maximum(-slack / scale_h, 0.0).max(initial=0.0)))
        unit_z = z * sizes   # the multipliers of the unit rows
        scale_z = max(1.0, _inf_norm(unit_z))
        dual = float(np.maximum(-unit_z, 0.0).max(initial=0.0)) / scale_z
        compl = _inf_norm(unit_z * (slack / scale_h)) / scale_z
    return {"stationarity": _inf_norm(grad) / max(scale_grad), "primal": primal, "dual": dual,
            "complementarity": compl}


#: the floor of |xⱼ| in the rows' scales of the check in the caller's units of an equilibrated copy's answer
#: (_passes_caller_units): x below unit scale judged absolutely, as the copy's own check did. A coordinate 0
#: returned as −2e-16 by the copy, in a row of G = −1e30 on that coordinate alone, is a violation 2e14, the
#: row's whole |G||x|: without the floor a right answer failed there
X_FLOOR_CALLER_UNITS = 1.0


def _row_sizes(M) -> np.ndarray:
    """Each row's largest |entry| (dense or sparse M), 1 for a zero row: the floor of the row's scale."""
    top = np.asarray(abs(M).max(axis=1).todense(), dtype=np.float64).ravel() if sp.issparse(M) else \
        np.abs(M).max(axis=1, initial=0.0)
    return np.where(top > 0, top, 1.0)


def _abs_product(M, v: np.ndarray) -> np.ndarray:
    """|M| @ v for v >= 0 (dense or sparse M): each row's scale of M @ v, what bounds its round-off."""
    return np.asarray(abs(M) @ v, dtype=np.float64).ravel() if sp.issparse(M) else np.abs(M) @ v


def absolute_residuals(qp: QP, x: np.ndarray, y: np.ndarray | None, z: np.ndarray | None,
                       z_box: np.ndarray | None = None) -> dict[str, float]:
    """qpbenchmark's absolute residuals of ``(x, y, z, z_box)`` (qpsolvers' signs and definitions).

    The arrays are as :func:`kkt_residuals` takes them: finite, entries of magnitude <= 3.4e38.

    * primal ``max(0, ‖Ax − b‖∞, max(Gx − h), max(lb − x), max(x − ub))``;
    * dual ``‖Px + q + Aᵀy + Gᵀz + z_box‖∞``;
    * gap ``|xᵀPx + qᵀx + bᵀy + hᵀz + lbᵀ min(z_box, 0) + ubᵀ max(z_box, 0)|`` (a bound multiplier on an
      infinite bound makes it infinite).

    Unlike :func:`kkt_residuals` these are not scaled: ``DQP(abs_tol=...)`` tests them.

    >>> qp = QP(P=np.eye(2), q=-np.ones(2), G=np.array([[1.0, 0.0]]), h=np.array([0.5]))
    >>> absolute_residuals(qp, np.array([0.5, 1.0]), None, np.array([0.5]))
    {'primal': 0.0, 'dual': 0.0, 'gap': 0.0}
    """
    if not isinstance(qp, QP):
        raise TypeError(f"qp must be an algorithms.qp.QP, got {type(qp).__name__}")
    revalidate_if_reassigned(qp)  # a field changed after construction (object.__setattr__), as a solve does
    x = as_float_array("x", x, dtype=np.float64)
    _check_length("x", x, qp.n, "one entry per variable: qp.n")
    for name, value, size in (("y", y, qp.n_eq), ("z", z, qp.n_ineq), ("z_box", z_box, qp.n * qp.has_box)):
        if size and value is None:
            raise ValueError(f"{name} is required: the QP has {size} rows of that kind")
        _check_no_multipliers(name, value, size)
    # the gap's terms are summed in qpsolvers' order (xᵀPx, qᵀx, hᵀz, bᵀy, lb, ub): at the optimum they
    # cancel, and the round-off of another order (~1e-9 on data of size 1e7) would disagree with its verdict
    Px = qp.P @ x
    grad = Px + qp.q
    primal = 0.0
    terms = [float(x @ Px), float(qp.q @ x), 0.0, 0.0, 0.0, 0.0]
    if qp.G is not None:
        z = as_float_array("z", z, dtype=np.float64)
        _check_length("z", z, qp.n_ineq, "one multiplier per inequality row: qp.n_ineq")
        grad = grad + qp.G.T @ z
        primal = max(primal, float((qp.G @ x - qp.h).max(initial=0.0)))
        terms[2] = float(qp.h @ z)
    if qp.A is not None:
        y = as_float_array("y", y, dtype=np.float64)
        _check_length("y", y, qp.n_eq, "one multiplier per equality row: qp.n_eq")
        grad = grad + qp.A.T @ y
        primal = max(primal, _inf_norm(qp.A @ x - qp.b))
        terms[3] = float(qp.b @ y)
    if qp.has_box:
        z_box = as_float_array("z_box", z_box, dtype=np.float64)
        _check_length("z_box", z_box, qp.n, "one multiplier per variable: qp.n")
        grad = grad + z_box
        for k, (bound, part, sign) in enumerate(((qp.lb, np.minimum(z_box, 0.0), -1.0),
                                                 (qp.ub, np.maximum(z_box, 0.0), 1.0))):
            if bound is not None:
                primal = max(primal, float((sign * (x - bound)).max(initial=0.0)))
                finite = np.isfinite(bound)  # qpsolvers leaves infinite bounds out of the gap
                terms[4 + k] = float(bound[finite] @ part[finite])
    gap = terms[0] + terms[1] + terms[2] + terms[3] + terms[4] + terms[5]
    return {"primal": primal, "dual": _inf_norm(grad), "gap": abs(gap)}


def _source_duals(source: QP, y_aug: np.ndarray, z_aug: np.ndarray):
    """``(y, z, z_box)`` of ``source`` from multipliers over the rows of ``source.with_box_rows()``."""
    m, p = source.n_ineq, source.n_eq
    L, U = source.box_indices()
    F = source.fixed_indices()
    z_box = np.zeros(source.n)
    np.subtract.at(z_box, L, z_aug[m: m + L.size])
    np.add.at(z_box, U, z_aug[m + L.size:])
    z_box[F] = y_aug[p:]  # a fixed variable's equality row: its multiplier is z_box_i itself
    return y_aug[:p], z_aug[:m], z_box


def _no_solution(qp: QP, code: RetCode, stats: QPStats, notes: list[str], result, dtype) -> QPSolution:
    value = {RetCode.Infeasible: math.inf, RetCode.Unbounded: -math.inf}.get(code, math.nan)
    return QPSolution(x=np.full(qp.n, np.nan, dtype=dtype), value=value, retcode=code, stats=stats,
                      warnings=notes, backend=stats.backend, original=result, _qp=qp)


def _check_data_intact(qp: QP) -> None:
    """The QP's data are checked at construction; one written afterwards through ``object.__setattr__``
    with NaN reached scipy's linprog or a backend's message naming nothing: re-checked here, O(data)."""
    for name in ("P", "q", "G", "h", "A", "b", "lb", "ub"):
        value = getattr(qp, name)
        if value is None:
            continue
        data = value.data if sp.issparse(value) else np.asarray(value)
        if data.dtype.kind not in "iuf":
            raise TypeError(f"qp.{name} must hold real numbers, got dtype {data.dtype} (the QP was changed "
                            f"after construction; build a new QP)")
        bad = np.isnan(data) if name in ("lb", "ub") else ~np.isfinite(data)  # bounds may be ±inf
        if bad.any():
            what = "NaN" if name in ("lb", "ub") else "NaN or inf"
            raise ValueError(f"qp.{name} contains {what} entries (the QP was changed after construction; "
                             f"build a new QP)")
        check_entries_in_range(f"qp.{name}", data)  # 1e300 set after construction


def forward(qp: QP, algorithm: DQP, options: SolveOptions, monitor=None) -> QPSolution:
    """The dQP forward on a validated :class:`QP` (:func:`_forward_unclipped`), x clipped into [lb, ub].

    The check's residuals are relative to the QP's scale (absolute below unit scale), so a bound far below
    it (lb, ub = ±1e-30 beside q ~ 1) was met only to the backend's tolerance: x = 5e-11 came back
    ``Success`` for 0 <= ... <= 1e-30. Clipping moves x by at most that accepted violation and meets the
    bounds exactly.
    """
    sol = _forward_unclipped(qp, algorithm, options, monitor)
    if qp.has_box and sol.x is not None:
        x = np.asarray(sol.x)
        if x.size == qp.n and np.all(np.isfinite(x)):
            lower = -np.inf if qp.lb is None else qp.lb
            upper = np.inf if qp.ub is None else qp.ub
            sol.x = np.clip(x.astype(np.float64), lower, upper).astype(x.dtype)
    return sol


def _forward_unclipped(qp: QP, algorithm: DQP, options: SolveOptions, monitor=None) -> QPSolution:
    """The dQP forward on a validated :class:`QP`: backend, polish, KKT check (``x`` in ``qp.dtype``).

    Variable bounds go to the backend as bounds; the polish, the check and the derivative treat them as
    the rows of :meth:`QP.with_box_rows`, and the solution splits their multipliers off into ``z_box``.
    A QP on a small scale (:func:`_equilibration`) is solved as its equilibrated copy and mapped back.
    """
    _check_data_intact(qp)
    # dense data: one BLAS thread for the factorizations (tiny problems are left alone: the switch costs
    # ~0.3 ms; the layer sets it once per batch for them)
    with single_blas_thread(qp.n if _layout(qp) == "dense" else 0, min_n=SMALL_THREAD_N):
        # abs_tol is a test on the caller's own units: such a QP is solved as given
        scaling = None if algorithm.abs_tol is not None else _equilibration(qp)
        if scaling is None:
            return _forward_auto(qp, algorithm, options, monitor)
        sol = _unscaled(_forward_auto(_scaled(qp, scaling), algorithm, options, monitor), qp, scaling)
        largest = float(np.abs(np.asarray(sol.x, dtype=np.float64)).max(initial=0.0))
        if sol.retcode is RetCode.Success and largest > WORKING_MAX:
            # the copy's x̃ is in range, the caller's x = d·x̃ not (P = 1e-30, q = −1e30: x* = 1e60), as the
            # unscaled route says for its own x
            stats = sol.stats
            return _no_solution(qp, RetCode.Failure, stats, [
                f"the solution leaves the package's working range (max |x| = {largest:.3g} > "
                f"{WORKING_MAX:.4g}): rescale P, q, G, h, A, b"], sol.original, qp.dtype)
        if sol.retcode is RetCode.Success and not _passes_caller_units(sol, qp):
            # the copy's KKT check passed a point grossly wrong in the caller's units (a box of width 2
            # beside P = 1.2e-38·I, q = ±3.4e38 shrank below the copy's resolution: x = 0 where x* is a
            # corner; bounds of 1e20 beside rows x ≥ 0: x = (1671, −9444) where x* = (0, 1)): a Failure,
            # then the as-given route below
            sol = _no_solution(qp, RetCode.Failure, sol.stats, [
                "the equilibrated copy's answer fails the KKT check in the caller's units (a relative "
                f"residual above {CALLER_UNITS_TOL:g})"], sol.original, qp.dtype)
        if sol.retcode is RetCode.Success and largest < scaling[0] * 2.0**-EQUILIBRATE_EXP and \
                not _passes_caller_units(sol, qp, algorithm.kkt_tol):
            # the copy's x̃ = x/d far below unit scale: the scalar d (‖q‖/‖P‖ = 2e12) missed the constraints'
            # scale, the copy's floors judged x̃ ~ 1e-14 absolutely, and daqp's x = (0.040, 0.0097) for x* =
            # (0.013, 0.0026), a row violated by 10.7 with h = 8.3, passed the gross test above: held to
            # kkt_tol in the caller's units, else the as-given route below
            sol = _no_solution(qp, RetCode.Failure, sol.stats, [
                "the equilibrated copy's x is far below its unit scale and its answer fails the KKT check in "
                f"the caller's units (kkt_tol {algorithm.kkt_tol:g})"], sol.original, qp.dtype)
        if sol.retcode in _FINAL or options.maxiters is not None:
            return sol
        # the scalar x-scale ‖q‖/‖P‖ is the stiffest variable's: with P = diag(1e12, 1) the soft variable's
        # curvature fell to 1e-24 in the copy and every backend failed. Solved as given instead, its answer
        # is kept when it passed the KKT check at unit scale (|x*| >= 2**-EQUILIBRATE_EXP: the relative
        # residuals' floors are not what judged it)
        given = _forward_auto(qp, algorithm, options, monitor)
        unit_scale = float(np.abs(given.x).max(initial=0.0)) >= 2.0**-EQUILIBRATE_EXP
        # and judged in the copy's units too: with P, q ×1e-20 every x passed the as-given check (its
        # stationarity floor 1 made it absolute), and highs's wrong point (rel. error 5.7) came back Success
        # (only for an objective below unit scale, the one whose floors hide an error: a stiff
        # P = diag(3.4e38, 1) is right as given, and its copy's units are not the soft variable's)
        tiny_objective = max(_max_abs(qp.P), _inf_norm(qp.q)) < 2.0**-EQUILIBRATE_EXP
        if given.retcode is RetCode.Success and unit_scale and \
                (not tiny_objective or _passes_scaled(given, qp, scaling, algorithm)):
            given.warnings.append(f"solved as given: its equilibrated copy ended {sol.retcode.value}")
            return given
        return sol


#: a Success of the equilibrated copy must also have every relative KKT residual below this in the caller's
#: units: far above the rounding of a right point (~1e-12 at ordinary conditioning), far below a wrong one's
#: (a missed active bound gives a complementarity residual of 1)
CALLER_UNITS_TOL = 1e-2


def _passes_caller_units(sol: QPSolution, qp: QP, tol: float = CALLER_UNITS_TOL) -> bool:
    """Whether ``sol`` (the equilibrated copy's answer, mapped back) is not grossly wrong in qp's units (every
    residual <= ``tol``)."""
    try:
        residuals = _kkt_residuals(qp, np.asarray(sol.x, dtype=np.float64), sol.y, sol.z,
                                   sol.z_box if qp.has_box else None, X_FLOOR_CALLER_UNITS)
    except ValueError:  # multipliers past the working range in the caller's units: not judged there
        return True
    return _all_within(residuals, tol)


def _rows_primal(qp: QP, x: np.ndarray, x_floor: float) -> float:
    """The primal residual of the rows of A and G alone (kkt_residuals' per-row scaling, no bound rows)."""
    abs_x, violation = np.maximum(np.abs(x), x_floor), 0.0
    if qp.A is not None:
        scale_b = np.maximum(np.maximum(_row_sizes(qp.A), np.abs(qp.b)), _abs_product(qp.A, abs_x))
        violation = _inf_norm((qp.A @ x - qp.b) / scale_b)
    if qp.G is not None:
        scale_h = np.maximum(np.maximum(_row_sizes(qp.G), np.abs(qp.h)), _abs_product(qp.G, abs_x))
        violation = max(violation, float(np.maximum((qp.G @ x - qp.h) / scale_h, 0.0).max(initial=0.0)))
    return violation


def _box_violation(qp: QP, x: np.ndarray) -> float:
    """Each variable's bound violation over max(1, |its bound|, |xᵢ|), the largest (0 without bounds)."""
    x = np.asarray(x, dtype=np.float64)
    worst = 0.0
    for bound, sign in ((qp.lb, 1.0), (qp.ub, -1.0)):
        if bound is None:
            continue
        bound = np.asarray(bound, dtype=np.float64)
        finite = np.isfinite(bound)
        if finite.any():
            over = np.maximum(sign * (bound[finite] - x[finite]), 0.0)
            scale = np.maximum(1.0, np.maximum(np.abs(bound[finite]), np.abs(x[finite])))
            worst = max(worst, float(np.max(over / scale)))
    return worst


def _all_within(residuals: dict[str, float], tol: float) -> bool:
    """Every residual <= tol, a NaN failing: max() of [1e-9, nan] is 1e-9 (NaN compares False), so a NaN
    residual after a finite one passed the check."""
    return all(value <= tol for value in residuals.values())


def _passes_scaled(sol: QPSolution, qp: QP, scaling: tuple[float, float, float, float],
                   algorithm: DQP) -> bool:
    """Whether ``sol`` (a solve of ``qp`` as given) passes the KKT check in the equilibrated copy's units
    (x̃ = x/d, multipliers σ/ρ of the caller's: the inverse of :func:`_unscaled`)."""
    d, sigma, rho_G, rho_A = scaling

    def times(v, c):
        return None if v is None else np.asarray(v, dtype=np.float64) * c

    copy_qp = _scaled(qp, scaling)
    try:
        residuals = kkt_residuals(copy_qp, np.asarray(sol.x, dtype=np.float64) / d,
                                  times(sol.y, sigma / rho_A), times(sol.z, sigma / rho_G),
                                  times(sol.z_box, sigma * d) if copy_qp.has_box else None)
    except ValueError:  # multipliers past the working range in the copy's units: not judged there
        return False
    return _all_within(residuals, algorithm.kkt_tol)


#: a QP is equilibrated when its variables', objective's or constraints' scale is below 2**-EQUILIBRATE_EXP
EQUILIBRATE_EXP = 10
#: constraint rows whose scale exceeds 2**ROW_EQUILIBRATE_ABOVE_EXP (~1e18) are equilibrated too (up to 1e30
#: every backend answered as given; at 1e40 they did not)
ROW_EQUILIBRATE_ABOVE_EXP = 60


def _max_abs(M) -> float:
    if M is None:
        return 0.0
    return float(abs(M).max()) if sp.issparse(M) and M.nnz else (0.0 if sp.issparse(M) else _inf_norm(M))


def _pow2(value: float) -> float:
    # powers of two: the scaled data are exact, so every threshold compares the same numbers
    if not 0.0 < value < math.inf:  # a scale past float64 (q ~ 1e300 with P = I: ‖P‖·d² = inf) met log2's
        # "math domain error", naming nothing
        raise ValueError(f"the QP's data P, q, G, h, A, b (and lb, ub) span scales beyond float64 (a scale "
                         f"factor of {value:g}, past its powers of two 2**1023: data of subnormal size, "
                         f"below 2.2e-308, or scales 1e300 apart; DQP's docstring); rescale them")
    return 2.0 ** round(math.log2(value))


def _equilibration(qp: QP) -> tuple[float, float, float, float] | None:
    """Scalar factors (d, σ, ρ_G, ρ_A) that bring a small-scale QP to unit scale, or None.

    The backends' tolerances and the KKT check's floors (``max(1, ·)`` in :func:`kkt_residuals`) are
    absolute below unit scale: a QP given in small units (P, q ×1e-7, or x* ~ 1e-7) came back ``Success``
    at a point 4e-5 from its x* (clarabel, osqp, highs, proxqp at 1e-7; daqp for x* ~ 1e-7). The copy
    solved instead has x = d·x̃ (d from the scales ‖h‖/‖G‖, ‖b‖/‖A‖, the finite bounds and ‖q‖/‖P‖),
    objective ×σ and constraint rows ×ρ, all powers of two (exact). None (solved as given) unless d, the
    gradient's scale max(‖P‖·d, ‖q‖) or a constraint row's scale 1/ρ is below 2**-EQUILIBRATE_EXP: problems
    near unit scale take the same path as before.
    """
    n_P, n_q = _max_abs(qp.P), _inf_norm(qp.q)
    n_G, n_h = _max_abs(qp.G), (_inf_norm(qp.h) if qp.G is not None else 0.0)
    n_A, n_b = _max_abs(qp.A), (_inf_norm(qp.b) if qp.A is not None else 0.0)
    scales = [n_h / n_G if n_G > 0 and n_h > 0 else 0.0, n_b / n_A if n_A > 0 and n_b > 0 else 0.0,
              n_q / n_P if n_P > 0 and n_q > 0 else 0.0]
    for bound in (qp.lb, qp.ub):
        if bound is not None:
            scales.append(float(np.abs(bound[np.isfinite(bound)]).max(initial=0.0)))
    # subnormal data (P, q ×5e-324): their products with the scale factors rounded to 0, the QP was solved
    # as given at absolute tolerances and x = 0 came back Success (x* = (0.5, −1)); refused as documented
    # (constraint data of that size take the path they took: an inactive row with h = 1e-320 was right)
    for norm in (n_P, n_q, *scales[3:]):
        if 0.0 < norm < sys.float_info.min:
            _pow2(math.inf)
    d = _pow2(max(scales)) if max(scales) > 0 else 1.0
    objective = max(n_P * d * d, n_q * d)
    sigma = _pow2(1.0 / objective) if objective > 0 else 1.0
    # rows without a variable (G = 0 or A = 0) keep their scale: their slack h is what the rules measure
    rho_G = _pow2(1.0 / max(d * n_G, n_h)) if n_G > 0 else 1.0
    rho_A = _pow2(1.0 / max(d * n_A, n_b)) if n_A > 0 else 1.0
    small = 2.0 ** -EQUILIBRATE_EXP
    gradient = max(n_P * d, n_q)  # the scale of Px + q at the solution's scale
    # constraint rows far above unit scale too (G, h ×1e40 came back Success at a wrong x from daqp, its
    # multipliers ±1e-40 below the dual check's floor, and Infeasible from the interior-point backends)
    # and an objective far above unit scale beside unit-scale rows (P, q ×1e30: K_J's rows read as singular
    # next to P, the polish dropped them, and clarabel's point 1.3e-5 off x* passed the relative check)
    # (both parts of the gradient: a stiff P by a unit q, or bounds of 2**64 setting d, are solved as given)
    huge = max(1 / rho_G, 1 / rho_A, min(n_P * d, n_q)) > 2.0 ** ROW_EQUILIBRATE_ABOVE_EXP
    if d >= small and (gradient == 0 or gradient >= small) and min(1 / rho_G, 1 / rho_A) >= small \
            and not huge:
        return None
    return d, sigma, rho_G, rho_A


def _scaled(qp: QP, scaling: tuple[float, float, float, float]) -> QP:
    d, sigma, rho_G, rho_A = scaling

    def times(M, c):
        return None if M is None else M * c

    return QP(P=qp.P * (sigma * d * d), q=qp.q * (sigma * d), G=times(qp.G, rho_G * d), h=times(qp.h, rho_G),
              A=times(qp.A, rho_A * d), b=times(qp.b, rho_A), lb=times(qp.lb, 1.0 / d),
              ub=times(qp.ub, 1.0 / d))


def _unscaled(sol: QPSolution, qp: QP, scaling: tuple[float, float, float, float]) -> QPSolution:
    """The equilibrated copy's solution in the caller's units (x = d·x̃, multipliers ρ/σ of theirs)."""
    d, sigma, rho_G, rho_A = scaling
    out = copy.copy(sol)
    out.x = (d * np.asarray(sol.x, dtype=np.float64)).astype(qp.dtype)
    out.value = sol.value / sigma
    out.y = None if sol.y is None else sol.y * (rho_A / sigma)
    out.z = None if sol.z is None else sol.z * (rho_G / sigma)
    out.z_box = None if sol.z_box is None else sol.z_box / (sigma * d)
    out.warnings = list(sol.warnings)
    out._scaling = scaling
    return out


#: dense problems above this many variables are solved with one BLAS thread (``_threads``); below it
#: the ~0.3 ms switch costs more than it saves. 200 was tried: dense Maros-Meszaros problems of 64-200
#: variables then ran up to 140× slower on the loaded machine (QPCBOEI2 0.023 → 3.2 s)
SMALL_THREAD_N = 64


def _forward_auto(qp: QP, algorithm: DQP, options: SolveOptions, monitor) -> QPSolution:
    if algorithm.backend != "auto":
        return _forward_with(qp, algorithm, options, monitor, algorithm.backend)
    first = choose_backend(qp)
    sol = _forward_with(qp, algorithm, options, monitor, first)
    if sol.retcode in _FINAL or options.maxiters is not None:
        return sol
    # the automatic choice failed (no point, or a point that fails the check): the next backends in
    # AUTO_FALLBACK get their turn; piqp alone stopped at its iteration cap on QISRAEL, where daqp succeeds
    tried = [f"{first}: {sol.retcode.value}"]
    installed = set(qpsolvers.available_solvers)
    for backend in AUTO_FALLBACK:
        if backend == first or backend not in installed or \
                (backend in _DENSE_ONLY and qp.n > DENSE_FALLBACK_MAX_N):
            continue
        sol = _forward_with(qp, algorithm, options, monitor, backend)
        if sol.retcode in _FINAL:
            break
        tried.append(f"{backend}: {sol.retcode.value}")
    sol.warnings.insert(0, f"backend='auto' fell back after {'; '.join(tried)}")
    return sol


#: retcodes that end the automatic choice's fallback (Infeasible/Unbounded are dQP's own LP verdicts)
_FINAL = (RetCode.Success, RetCode.Infeasible, RetCode.Unbounded)
#: backend='auto': the backends tried, in turn, after the chosen one fails (an interior-point, an exact
#: active-set and a second interior-point method: their failures on Maros-Meszaros rarely coincide)
AUTO_FALLBACK = ("clarabel", "daqp", "piqp", "proxqp")
#: the dense-only daqp is tried as a fallback up to this many variables (it densifies)
DENSE_FALLBACK_MAX_N = 3000
_DENSE_ONLY = frozenset({"daqp", "quadprog"})


def _forward_with(qp: QP, algorithm: DQP, options: SolveOptions, monitor, backend: str) -> QPSolution:
    if not qp.has_box:
        return _forward(qp, algorithm, options, monitor, backend)
    sol = _forward(qp.with_box_rows(), algorithm, options, monitor, backend, source=qp)
    return _split_box(sol, qp)


def _backend_duals(result, source: QP | None):
    """The backend's (y, z) over the rows dQP works with: with bounds, z over ``[G; −I_L; I_U]`` from
    qpsolvers' ``z_box`` (negative at an active lower bound, positive at an active upper bound)."""
    if result is None:
        return None, None
    if source is None:
        return result.y, result.z
    if result.z_box is None or (source.n_ineq and result.z is None) or (source.n_eq and result.y is None):
        return None, None  # bounds given natively but not all multipliers returned: the polish's are used
    L, U = source.box_indices()
    F = source.fixed_indices()
    zb = np.asarray(result.z_box, dtype=np.float64)
    parts = ([np.asarray(result.z, dtype=np.float64)] if source.n_ineq else []) + \
        [np.maximum(-zb[L], 0.0), np.maximum(zb[U], 0.0)]
    y = ([np.asarray(result.y, dtype=np.float64)] if source.n_eq else []) + [zb[F]]
    return np.concatenate(y), np.concatenate(parts)


def _split_box(sol: QPSolution, qp: QP) -> QPSolution:
    """Map a solution over the rows ``[G; −I_L; I_U]`` back to ``qp``: z over G, ``z_box`` over x
    (qpsolvers' convention: Px + q + Aᵀy + Gᵀz + z_box = 0), ``active`` / ``active_box`` masks."""
    m, n, p = qp.n_ineq, qp.n, qp.n_eq
    L, U = qp.box_indices()
    F = qp.fixed_indices()
    sol._box = (qp, L, U)
    if sol.z is None or sol.y is None:
        return sol
    z_aug = np.asarray(sol.z)
    y_aug = np.asarray(sol.y)
    active_aug = np.asarray(sol.active, dtype=bool)
    sol._active_all = active_aug
    _, _, z_box = _source_duals(qp, y_aug, z_aug)
    z_box = z_box.astype(z_aug.dtype, copy=False)
    active_box = np.zeros(n, dtype=bool)
    active_box[L] |= active_aug[m: m + L.size]
    active_box[U] |= active_aug[m + L.size:]
    active_box[F] = True
    sol.z, sol.y, sol.z_box = z_aug[:m], y_aug[:p], z_box
    sol.active, sol.active_box = active_aug[:m], active_box
    return sol


def _forward(qp: QP, algorithm: DQP, options: SolveOptions, monitor, backend: str,
             source: QP | None = None) -> QPSolution:
    """The forward on ``qp`` (bounds already rows of G when ``source``, the QP with bounds, is given)."""
    P, q, G, h, A, b = qp.P, qp.q, qp.G, qp.h, qp.A, qp.b
    dtype = qp.dtype
    n, m, p = qp.n, qp.n_ineq, qp.n_eq
    stats = QPStats(backend=backend)
    if options.maxiters == 0:
        return QPSolution(
            x=np.zeros(n, dtype=dtype), value=0.0, retcode=RetCode.MaxIters, stats=stats,
            y=np.zeros(p, dtype=dtype), z=np.zeros(m, dtype=dtype), active=np.zeros(m, dtype=bool),
            backend=backend, _qp=qp,
        )
    result, error = _call_backend(qp if source is None else source, backend, algorithm, options)
    # bounds went natively to the backend (else as rows of G, and its z is over those rows already)
    y_back, z_back = _backend_duals(result, source if backend in _NATIVE_BOUNDS else None)
    stats.iterations = 1
    ok = _found_finite(result)
    if monitor is not None:
        monitor.record(stage="backend", backend=backend, found=ok)
    if not ok:
        code = _diagnose(P, q, G, h, A, b)
        if code is None:
            code = RetCode.MaxIters if options.maxiters is not None else _backend_horizon(result)
        return _no_solution(qp, code, stats, [error or f"{backend} returned no solution"], result, dtype)
    x_raw = np.asarray(result.x, dtype=np.float64)
    if float(np.abs(x_raw).max(initial=0.0)) > WORKING_MAX:
        # in-range data whose minimizer leaves the range (P = 1e-30, q = −1e30: x* = 1e60) met the range check
        # on the internal KKT vector "zeta": a documented Failure naming the scale instead
        return _no_solution(qp, RetCode.Failure, stats, [
            f"the solution leaves the package's working range (max |x| = {np.abs(x_raw).max():.3g} > "
            f"{WORKING_MAX:.4g}): rescale P, q, G, h, A, b"], result, dtype)
    notes: list[str] = []
    row_norm = np.ones(m)
    if G is not None:
        row_norm = _row_norms(G)
        raw_slack = (h - G @ x_raw) / row_norm
        active = raw_slack <= algorithm.eps_active
    else:
        active = np.zeros(0, dtype=bool)
    use_eq = algorithm._uses_equalities()
    J = np.flatnonzero(active)
    factor, x, lam, mu, resid = _reduced(qp, J, use_eq)
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
            elif neg >= viol and J.size:
                mask[J[int(np.argmin(mu))]] = False
            elif viol > tol_check:
                r = np.where(mask, -np.inf, (G @ x - h) / row_norm)
                mask[int(np.argmax(r))] = True
            else:  # a singular P with no active row to drop or add (numpy's "argmin of an empty sequence")
                break
            J = np.flatnonzero(mask)
            factor, x, lam, mu, resid = _reduced(qp, J, use_eq)
            stats.linear_solves += 1
            stats.iterations += 1
        viol, neg = _kkt_violation(G, h, x, mu, J, row_norm)
        active = np.zeros(m, dtype=bool)
        active[J] = True
    polished_ok = algorithm._accept_polish(viol, neg, tol_check) and bool(np.all(np.isfinite(x)))
    if not polished_ok and algorithm.polish and G is not None and z_back is not None:
        # repair once: a row with a clearly positive backend multiplier is active (complementarity),
        # even when an inaccurate backend left it at a slack above eps_active
        z_raw = np.asarray(z_back, dtype=np.float64)
        mask = np.zeros(m, dtype=bool)
        mask[J] = True
        mask |= z_raw > algorithm.eps_active * max(1.0, float(np.abs(z_raw).max()))
        if not np.array_equal(np.flatnonzero(mask), J):
            J2 = np.flatnonzero(mask)
            f2, x2, lam2, mu2, resid2 = _reduced(qp, J2, use_eq)
            stats.linear_solves += 1
            viol2, neg2 = _kkt_violation(G, h, x2, mu2, J2, row_norm)
            if algorithm._accept_polish(viol2, neg2, tol_check) and resid2 <= KKT_RESIDUAL_TOL:
                notes.append(f"active set repaired from the backend's multipliers (rows {J2.tolist()})")
                factor, x, lam, mu, resid, J, viol, neg = f2, x2, lam2, mu2, resid2, J2, viol2, neg2
                active = mask
                polished_ok = bool(np.all(np.isfinite(x)))
    inconsistent = resid > KKT_RESIDUAL_TOL
    if inconsistent:
        # the reduced KKT system has no solution: J is misread (dependent rows of a degenerate vertex), or
        # the backend's point is no KKT point of any face, as when a backend reports an unbounded or
        # infeasible QP as solved; the second is diagnosed below, only if the backend's point fails too
        polished_ok = False
        notes.append(f"the reduced KKT system is inconsistent (relative residual {resid:.2g})")
    if algorithm.polish and not polished_ok:
        notes.append(
            f"polish rejected (primal violation {viol:.2g}, negative multiplier {neg:.2g}): "
            "the active set read from the backend's x is not optimal; the backend's x is checked instead"
        )
    # the candidates, in order: the polished point (when accepted), then the backend's own point with
    # *all* its multipliers. A polish that fails (or whose point fails the check) must never discard a
    # backend answer that passes the check: keeping only the multipliers of the rows read as active
    # broke stationarity on Maros-Meszaros problems whose backend answer was right (issue #42)
    candidates = []
    if algorithm.polish and polished_ok:
        z_pol = np.zeros(m)
        z_pol[J] = mu
        candidates.append(("polish", x, lam, z_pol, J, factor, active, mu))
    raw_lam = np.asarray(y_back, dtype=np.float64) if (y_back is not None and A is not None and use_eq) \
        else lam
    if z_back is not None and G is not None and np.size(z_back) == m:
        z_raw = np.asarray(z_back, dtype=np.float64)
        raw_active = active | (z_raw > algorithm.eps_active * max(1.0, _inf_norm(z_raw)))
        J_raw = np.flatnonzero(raw_active)
        candidates.append(("backend", x_raw, raw_lam, z_raw, J_raw, None, raw_active, z_raw[J_raw]))
    else:  # a primal-only backend: the multipliers of the reduced solve on J complete its x
        z_pol = np.zeros(m)
        z_pol[J] = mu
        candidates.append(("backend", x_raw, raw_lam, z_pol, J, factor, active, mu))
    chosen = residuals = first = None
    for label, *cand in candidates:
        x_c, lam_c, z_c = cand[0], cand[1], cand[2]
        y_c = lam_c if lam_c.size == p else np.zeros(p)
        # the one acceptance test, for every backend and whatever the polish did: x with its
        # multipliers must satisfy the KKT conditions of *this* QP (the original data, not K_J)
        try:
            residuals = kkt_residuals(qp, x_c, y_c, z_c)
        except ValueError as exc:  # multipliers past the working range (cvxopt: y = 1e40): failed, not judged
            residuals = dict.fromkeys(_RESIDUALS_KEYS, math.nan)
            notes.append(f"the {label} candidate's multipliers leave the working range ({exc})")
        first = residuals if first is None else first
        absolute = None
        if algorithm.abs_tol is not None:  # judged on the caller's QP (bounds as bounds), as qpbenchmark
            absolute = absolute_residuals(qp, x_c, y_c, z_c) if source is None else \
                absolute_residuals(source, x_c, *_source_duals(source, y_c, z_c))
        if absolute is not None:
            stats.absolute = absolute
        if _all_within(residuals, algorithm.kkt_tol) and (
                absolute is None or _all_within(absolute, algorithm.abs_tol)):
            chosen = (label, x_c, lam_c, y_c, *cand[2:])
            break
        if label == "polish":
            figures = ", ".join(f"{k} {v:.2g}" for k, v in residuals.items())
            if absolute is not None:
                figures += "; absolute " + ", ".join(f"{k} {v:.2g}" for k, v in absolute.items())
            notes.append(f"the polished point fails the KKT check ({figures}); the backend's point is "
                         "checked instead")
    if chosen is None:  # the figures of the first candidate tried (the polished point, when accepted)
        residuals = first
    stats.stationarity, stats.primal_residual = residuals["stationarity"], residuals["primal"]
    stats.dual_residual, stats.complementarity = residuals["dual"], residuals["complementarity"]
    if chosen is None and inconsistent:
        code = _diagnose(P, q, G, h, A, b)
        if code is not None:
            return _no_solution(qp, code, stats, [f"{backend} reported a solution, but the QP is "
                                                  f"{code.value.lower()}"], result, dtype)
    if chosen is None:
        code = _backend_horizon(result)
        figures = ", ".join(f"{k} {v:.2g}" for k, v in residuals.items())
        if stats.absolute is not None:
            figures += "; absolute " + ", ".join(f"{k} {v:.2g}" for k, v in stats.absolute.items())
        return _no_solution(qp, code, stats, [*notes, f"{backend}'s answer fails the KKT check "
                                                      f"(relative residuals {figures}; kkt_tol "
                                                      f"{algorithm.kkt_tol:g}, abs_tol "
                                                      f"{algorithm.abs_tol})"], result, dtype)
    label, x, lam, y_full, z_full, J_c, factor_c, active, mu = chosen
    if factor_c is None:  # the backend's multipliers name another active set: K_J of that set
        factor_c = factor if np.array_equal(J_c, J) else _reduced(qp, J_c, use_eq)[0]
        stats.linear_solves += int(factor_c is not factor)
    factor, J = factor_c, J_c
    # degeneracy: the derivative of x is not unique / K_J not invertible / J not trustworthy
    degenerate = algorithm.polish and label != "polish"
    if p + J.size > n:
        degenerate = True
        notes.append(f"n_eq + |J| = {p + J.size} > n = {n}: active constraints are linearly dependent")
    if factor.singular:
        degenerate = True
        notes.append("the reduced KKT matrix K_J is singular: regularized (least-squares) solves used")
    if mu.size:
        # the multipliers of the unit rows (μᵢ‖Gᵢ‖, as the slack is per unit row norm): a row times 1e6 has
        # the multiplier 1e-6 of the same constraint and was flagged weakly active (red25a)
        unit_mu = mu * row_norm[J]
        weak = np.flatnonzero(unit_mu <= algorithm.eps_active * max(1.0, float(np.abs(unit_mu).max())))
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
    value = qp.objective(x)
    return QPSolution(
        x=x.astype(dtype), value=value, retcode=RetCode.Success, stats=stats, original=result,
        y=y_full.astype(dtype), z=z_full.astype(dtype), active=active, degenerate=degenerate,
        warnings=notes, backend=backend, kkt=factor, _qp=qp, _zeta=(x, lam, mu),
    )


class _StageLog:
    """The stages of one forward (backend calls, fallbacks, polishes), in order, for the final record."""

    def __init__(self) -> None:
        self.stages: list[str] = []

    def record(self, **fields_: Any) -> bool:
        self.stages.append(fields_["stage"])
        return False


@_dispatch
def _solve(problem: QP, algorithm: DQP, options: SolveOptions) -> Solution:
    # one pass (a backend call, its fallbacks, the polish): the callback gets the one final record, as every
    # one-pass method's does; a True answered after the backend stage, while the fallbacks and the polish
    # still ran, was a stop request the run could not honour
    monitor = IterationMonitor(options, total=1, desc=f"dqp[{algorithm.backend}]")
    stages = _StageLog()
    try:
        sol = forward(problem, algorithm, options, monitor=stages)
        if options.maxiters == 0:
            record = {"stage": "start", "x": sol.x}
        else:
            record = {"stage": "done", "retcode": sol.retcode.value, "backend": sol.backend,
                      "stages": list(stages.stages), "x": sol.x}
        monitor.record(**record)
    finally:
        monitor.close()
    sol.trace = monitor.trace
    sol.__dict__["_kkt_tol"] = algorithm.kkt_tol  # from here on the caller's: a z set by hand is checked
    return sol
