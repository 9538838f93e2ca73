"""Stage 1 of GGDOpt (Section 3.1): a collection of points that meet the chance constraint.

Each point solves a deterministic restricted problem (RP, eq. (13)): minimise f subject to the
constraint holding at the mean uncertainty with a margin z >= 0; its empirical violation
(eq. (14)) is the fraction of ``h_samples`` at which g(x, h) >= 0 fails. A larger z buys a smaller
violation at a higher objective. The paper's displayed RP is not in our copy of the text; we use
the margin in units of the sample spread of g (the mean-variance restriction the paper's appendix
bound is built on, Cantelli's: violation <= 1/(1 + z²) when the moments are exact),

    min f(x)  s.t.  mean_S g_j(x, h) − z · std_S g_j(x, h) >= 0 for every row j,  lower <= x <= upper,

over a random subset S of ``bootstrap_size`` samples, with z ~ U[0, 3.5] (3 already gives <= 0.1
by Cantelli), solved by SLSQP (torch gradients of f and g) from the box midpoint. The random
(S, z) make the points a cloud around the efficient frontier rather than a curve.

That ``"moment"`` restriction cannot reach a small violation when the spread of g grows as fast
as its mean: under Rayleigh fading (exponential channel gains, std = mean) mean − z·std of a
user's received power is negative for every power once z >= 1, so on the power-control problem
no point with violation <= 0.1 came out. ``restriction="scenario"`` is the distribution-free
alternative: a point solves

    min f(x)  s.t.  g_j(x, h) >= 0 for every row j and every h ∈ S,  lower <= x <= upper,

with S a random subset of k samples, k ~ U{⌈1/ρ⌉, ..., min(L, ``bootstrap_size``)}; a larger k
buys a smaller violation (about (support size)/(k + 1) for convex g, Calafiore & Campi). Either
way the point's label is its empirical violation (14) on all L samples, and only that label
decides membership in D_ρ.

>>> from algorithms.chance import linear_gaussian_problem
>>> p = linear_gaussian_problem(n=3, n_samples=200, rho=0.1, seed=0)
>>> points, violation = collect_feasible_points(p, n_points=40, seed=0)
>>> points.shape, bool((violation <= p.rho).sum() > 5)
((40, 3), True)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.optimize
import torch

from algorithms._validation import (
    as_real_array,
    call_user,
    check_choice,
    check_count,
    check_seed,
    check_working_range,
)
from algorithms.chance.diffusion import PROGRESS_TICK
from algorithms.chance.problem import (
    ChanceConstrainedProblem,
    empirical_violation,
    min_samples,
    unit_of,
    units_of,
)

__all__ = ["RESTRICTIONS", "collect_feasible_points", "restricted_solution"]

#: the largest margin drawn, in standard deviations of g
Z_MAX = 3.5
#: the restricted problems of stage 1 (see the module docstring)
RESTRICTIONS = ("moment", "scenario")


class _NonFiniteAnswer(Exception):
    """The user's f or g (or their gradients) answered NaN/inf during a restricted solve: SLSQP (scipy) never
    gets such a value; the restricted problem has no solution (None)."""


class _ForwardError(Exception):
    """Carries an error of g's forward call (its answer refused, or g raising) out of torch's Jacobian
    pass unwrapped: it is g's, not its backward's."""


def _checked_answer(name: str, value: Any, shape: tuple[int, ...]) -> torch.Tensor:
    """A user's f or g answer inside stage 1: a real floating tensor whose leading axes are ``shape`` (a numpy
    answer met AttributeError "no attribute 'requires_grad'", None "not subscriptable", a (0,) tensor a bare
    IndexError), finite (NaN reached SLSQP)."""
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        raise TypeError(f"{name} must return a real floating torch tensor, got {type(value).__name__} "
                        f"{getattr(value, 'dtype', '')}")
    components = name == "g"   # g may answer m >= 1 components per sample: (1, k, m)
    if tuple(value.shape[:len(shape)]) != shape or value.ndim > len(shape) + components or 0 in value.shape:
        also = f" or {(*shape, 'm')} with m >= 1" if components else ""
        raise ValueError(f"{name} must return a tensor of shape {shape}{also} here, got {tuple(value.shape)}")
    if not bool(torch.isfinite(value.detach()).all()):
        raise _NonFiniteAnswer(name)
    return value


def restricted_solution(
    problem: ChanceConstrainedProblem, h_subset: np.ndarray, z: float, *, restriction: str = "moment"
) -> np.ndarray | None:
    """A solution of the restricted problem over the samples ``h_subset`` (k, d) at margin ``z``
    (None when SLSQP finds none). ``restriction="scenario"`` enforces g >= 0 at every sample of
    ``h_subset`` instead (z unused).

    The moment restriction's Jacobian is taken one row at a time, so g's backward need not support
    torch's vmap (the scenario restriction's k·m rows use the batched, vmapped Jacobian).
    The moment restriction's spread is √(var + 1e-12) (population variance over the subset), so a
    row without spread gets the margin z·1e-6. SLSQP (ftol 1e-9) gets a budget of 100 iterations
    from the box midpoint; its answer is
    accepted only when it reports success and the restriction, evaluated once more at its point,
    is >= −1e-6 in every row (a margin of exactly −1e-6 accepted), each row in its own unit: 1 for values of
    ordinary size at the box midpoint (2**-10 to 2**10), else the power of two nearest that value (and g's
    values per component, per sample for the scenario restriction, in theirs before the moments), so one
    sample's g of 1e30 leaves the others' test absolute; otherwise the result is None. SLSQP runs in
    coordinates u = x / (each coordinate's power of two, 1 for an ordinary box).
    ``z`` a real in [0, 3.4e38] (the working range; a margin no point of the box meets, e.g. 1e30, gives
    None). f and g must answer real floating tensors of their shapes (refused naming them); a NaN/inf f, g
    or gradient during the solve gives None (SLSQP never sees it)."""
    if not isinstance(problem, ChanceConstrainedProblem):
        raise TypeError(f"problem must be a ChanceConstrainedProblem, got {type(problem).__name__}")
    h_subset = as_real_array("h_subset", h_subset)
    if not np.all(np.isfinite(h_subset)):  # a NaN sample made the restricted LP "infeasible" (None)
        raise ValueError("h_subset contains NaN or inf entries")
    if h_subset.ndim != 2 or h_subset.shape[1] != problem.h_samples.shape[1] or h_subset.shape[0] < 2:
        raise ValueError(
            f"h_subset must have shape (k >= 2, {problem.h_samples.shape[1]}), got {h_subset.shape}"
        )
    if isinstance(z, bool) or not isinstance(z, numbers.Real):
        raise TypeError(f"z (the restriction margin) must be a real number, got {type(z).__name__} {z!r}")
    try:   # a Python int past int64 (2**64) met np.isfinite's "ufunc 'isfinite' not supported"
        z = float(z)
    except OverflowError:
        z = float("inf")
    if not np.isfinite(z) or z < 0:
        raise ValueError(f"z (the restriction margin) must be finite and >= 0, got {z!r}")
    check_working_range("z", z, scale=False)   # 1e308 was kept (and answered None)
    check_choice("restriction", restriction, RESTRICTIONS)
    torch_dtype = torch.float32 if problem.dtype == np.float32 else torch.float64
    h_t = torch.as_tensor(h_subset, dtype=torch_dtype)

    def margin(x: torch.Tensor) -> torch.Tensor:
        # g gets a copy of the samples: one that wrote into them (hh.sub_(1)) shifted every later call of the
        # solve (Diverged, x = 1e9 outside the box)
        answer = call_user("g(x, h)", problem.g, x[None], h_t.clone())
        values = _checked_answer("g", answer, (1, h_t.shape[0]))[0]
        values = (values[:, None] if values.ndim == 1 else values) / g_scale[0]
        if restriction == "scenario":
            return values.reshape(-1)
        return values.mean(dim=0) - z * (values.var(dim=0, unbiased=False) + 1e-12).sqrt()

    def as_tensor(x: np.ndarray) -> torch.Tensor:
        return torch.tensor(x, dtype=torch_dtype)   # a copy: a g writing into x changed SLSQP's own iterate

    # x, f and g of extreme units (a box of 1e30, f = 1e30·x) brought to about 1 by powers of two (exact;
    # ordinary data stay exactly as they are): SLSQP's tolerances are absolute, and it failed every
    # restricted problem there. SLSQP runs in u = x / x_unit.
    # per coordinate: one coordinate's box of 1e30 made the others' steps 1e-30 (SLSQP stood still there)
    x_unit = units_of(np.stack([problem.lower, problem.upper]).astype(np.float64), axis=0)[0]
    f_unit: list[float] = []

    def objective(u: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = raw_objective(u * x_unit)
        gradient = gradient * x_unit
        if not f_unit:   # SLSQP's first call: at the start point
            f_unit.append(unit_of(np.append(gradient, value)))
        return value / f_unit[0], gradient / f_unit[0]

    def raw_objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        xt = as_tensor(x).requires_grad_(True)
        value = _checked_answer("f", call_user("f(x)", problem.f, xt[None]), (1,))[0]
        if not value.requires_grad:   # torch's "element 0 of tensors does not require grad" named nothing
            raise ValueError("f must be computed from x with torch operations (GGDOpt's stage 1 and guidance "
                             "differentiate it); it returned a tensor without a gradient (numpy inside f, "
                             "or .detach())")
        # the backward runs f's graph: one that wrote into a tensor it needs fails there, named as f's
        (gradient,) = call_user("f(x)'s backward (autograd)", lambda: torch.autograd.grad(value, xt))
        # a fresh contiguous copy: the gradient of a sum is an expanded (stride-0) view of one
        # number, which SLSQP's Fortran core misreads (it stalled at the start on f = Σx)
        gradient = np.array(gradient.detach().double().numpy(), order="C")
        if not np.all(np.isfinite(gradient)):
            raise _NonFiniteAnswer("f's gradient")
        return float(value.detach()), gradient

    def raw_constraint(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return margin(as_tensor(x)).double().numpy()

    def constraint_jacobian(x: np.ndarray) -> np.ndarray:
        graph: list[bool] = []

        def traced_margin(xt: torch.Tensor) -> torch.Tensor:   # the same one call of g, its graph noted
            try:
                out = margin(xt)
            except (ValueError, TypeError, _NonFiniteAnswer) as exc:   # g's answer refused, or g raised: not
                raise _ForwardError(exc) from exc   # its backward's error (red20c: "_NonFiniteAnswer" leaked)
            graph.append(out.requires_grad)
            return out

        # the scenario restriction has k·m rows: one batched backward pass (vectorised) beats k·m
        # passes there, while for the m rows of the moment restriction it doubled the CPU time
        # the backward runs g's graph: a g that wrote into its h after using it failed there with torch's
        # "modified by an inplace operation", naming nothing (red13a)
        try:
            jacobian = call_user("g(x, h)'s backward (autograd)", lambda: torch.autograd.functional.jacobian(
                traced_margin, as_tensor(x), vectorize=restriction == "scenario"
            ), keep=(_ForwardError,))
        except _ForwardError as err:
            raise err.args[0] from None
        if not all(graph):   # torch's jacobian of a tensor without a graph is zeros: SLSQP ran on them
            raise ValueError("g must be computed from x with torch operations (GGDOpt's stage 1 "
                             "differentiates it); it returned a tensor without a gradient (numpy inside g, "
                             "or .detach())")
        jacobian = jacobian.double().numpy()
        if not np.all(np.isfinite(jacobian)):
            raise _NonFiniteAnswer("g's gradient")
        return jacobian

    lower, upper = problem.lower.astype(np.float64) / x_unit, problem.upper.astype(np.float64) / x_unit
    bounds = list(zip(lower, upper))
    start = 0.5 * (problem.lower + problem.upper).astype(np.float64) / x_unit   # as before for float32 boxes
    # g's values brought to about 1 (a power of two, 1 for ordinary g) before their moments: the spread's
    # floor 1e-12 is absolute (g ~ 1e-30 got a margin z·1e-6, which no point met: no restricted solution at
    # all), and a float32 var of g ~ 1e30 overflowed
    try:
        with torch.no_grad():
            g_start = _checked_answer("g", call_user("g(x, h)", problem.g, as_tensor(start * x_unit)[None],
                                                     h_t.clone()), (1, h_t.shape[0]))
        # per component (moment) or per sample and component (scenario), and each row of the restriction
        # in its own unit: one sample's g of 1e30 made the unit 2**100 for all, and the acceptance test
        # "every row >= -1e-6" then let a small row's violation of 1e24 through
        g0 = g_start.detach().double().numpy()[0]
        g0 = g0[:, None] if g0.ndim == 1 else g0
        g_scale = [torch.as_tensor(units_of(g0, axis=0) if restriction == "moment"
                                   else units_of(g0[:, :, None], axis=2)[:, :, 0], dtype=torch.float64)]
        g_unit = units_of(raw_constraint(start * x_unit)[:, None], axis=1)[:, 0]
    except _NonFiniteAnswer:
        return None

    def constraint(u: np.ndarray) -> np.ndarray:
        return raw_constraint(u * x_unit) / g_unit

    def jacobian(u: np.ndarray) -> np.ndarray:
        return constraint_jacobian(u * x_unit) * x_unit[None, :] / g_unit[:, None]

    try:
        result = scipy.optimize.minimize(
            objective,
            start,
            jac=True,
            method="SLSQP",
            bounds=bounds,
            constraints=[{"type": "ineq", "fun": constraint, "jac": jacobian}],
            options={"maxiter": 100, "ftol": 1e-9},
        )
        if not result.success:
            return None
        final = constraint(result.x)
    except _NonFiniteAnswer:
        return None
    if not result.success or np.min(final) < -1e-6:
        return None
    return np.clip(result.x * x_unit, problem.lower, problem.upper)


class NoRestrictedSolutionError(ValueError):
    """:func:`collect_feasible_points` found no solution of any restricted problem (GGDOpt: ``Failure``)."""


#: the most restricted-problem solves collect_feasible_points makes (hours at the cap; GGDOpt's default 400)
MAX_POINTS = 10**5


def collect_feasible_points(
    problem: ChanceConstrainedProblem,
    *,
    n_points: int = 500,
    bootstrap_size: int = 50,
    seed: int = 0,
    restriction: str = "moment",
) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``n_points`` RP solutions (of at most 2 n_points draws of (S, z); a level z beyond what
    the box allows has none) and their empirical violations (see the module docstring); none at all is a
    ``NoRestrictedSolutionError`` (a ``ValueError``).

    ``problem`` is a :class:`ChanceConstrainedProblem`, ``n_points`` an int in [1, MAX_POINTS] (10**5:
    each draw is one SLSQP solve, so the run time grows linearly with n_points, hours at the cap),
    ``bootstrap_size`` (the scenarios each restricted problem draws) an int in [1, 2**31 - 1] (a
    bootstrap_size above L uses all L samples; 1 draws 2, the fewest a spread of g is measured on),
    ``seed`` an int in [0, 2**64), ``restriction`` one of ``RESTRICTIONS`` (``"moment"``, ``"scenario"``).
    """
    if not isinstance(problem, ChanceConstrainedProblem):
        raise TypeError(f"problem must be a ChanceConstrainedProblem, got {type(problem).__name__}")
    n_points = check_count("n_points", n_points, 1, MAX_POINTS, "MAX_POINTS: each point is one SLSQP solve; "
                           "2**40 ran on, a hang")
    bootstrap_size = check_count("bootstrap_size", bootstrap_size, 1)
    check_choice("restriction", restriction, RESTRICTIONS)
    rng = np.random.default_rng(check_seed(seed))
    h = problem.h_samples.astype(np.float64)
    points = []
    size = min(max(bootstrap_size, 2), h.shape[0])
    smallest = min(max(min_samples(problem.rho), 2), size)
    tick = PROGRESS_TICK.get()
    for _ in range(2 * n_points):
        if restriction == "scenario":
            subset = rng.choice(h.shape[0], size=int(rng.integers(smallest, size + 1)), replace=False)
            x = restricted_solution(problem, h[subset], 0.0, restriction="scenario")
        else:
            subset = rng.choice(h.shape[0], size=size, replace=False)
            x = restricted_solution(problem, h[subset], float(rng.uniform(0.0, Z_MAX)))
        if x is not None:
            points.append(x)
            if tick is not None:
                tick()
        if len(points) == n_points:
            break
    if not points:
        raise NoRestrictedSolutionError(
            f"none of the {2 * n_points} restricted problems (13) drawn for n_points = {n_points} had a "
            f"solution (SLSQP found no point of the box meeting the {restriction!r} restriction: the box may "
            f"hold no point with g >= 0 at the samples, or f and g are not smooth there)")
    points = np.asarray(points)
    return points, empirical_violation(problem, points)
