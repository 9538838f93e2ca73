"""Claims of Local Curvature Descent (Richtárik, Giancola, Lubczyk, Yadav; arXiv:2405.16574).

Five claims, each against :mod:`algorithms.curvature`:

* ``lcd.reduces_to_gd_polyak`` (symbolic): with C ≡ 0 the implemented LCD1 step is gradient
  descent with step 1/L_C and the implemented LCD2 step (its multiplier equation and step
  coefficients) is the Polyak step; the eigenbasis formula of the LCD2 constraint equals the
  model of the localization set; and, on the numpy path the solver runs, solve(LCD1) and
  solve(LCD2) with C ≡ 0 reproduce the iterates of solve(GradientDescent) and solve(Polyak).
* ``lcd.curvature_bounds`` (property): Assumption 2.1 holds for every shipped family.
* ``lcd.rate`` (property): Theorems 4.1 (LCD1, last iterate) and 4.2 (LCD2, best/average iterate).
* ``lcd.quadratic_one_step`` (numeric): on a quadratic with C = ∇²f, L_C = 0, LCD1, LCD2 and
  LCD3 land on the minimizer in one step.
* ``lcd.monotone`` (property): solve(LCD1) decreases f by at least ½‖∇f‖²_{(C + L_C I)⁻¹}
  (Lemma B.2), the required decrease computed by an independent dense solve.

Controls sabotage the solver through :func:`_scaled_step` (a temporary patch of the step
function the solver looks up), so check and control run the same ``solve`` path.

>>> from theorems.core import REGISTRY
>>> sorted(k for k in REGISTRY if k.startswith("lcd."))
['lcd.curvature_bounds', 'lcd.monotone', 'lcd.quadratic_one_step', 'lcd.rate', 'lcd.reduces_to_gd_polyak']
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial

import numpy as np
import sympy
from hypothesis import strategies as st

from algorithms import solve
from algorithms.curvature import (
    LCD1,
    LCD2,
    LCD3,
    CurvatureProblem,
    GradientDescent,
    Polyak,
    gd_step,
    lcd1_step,
    lcd2_coefficients,
    lcd2_gap,
    lp_regression,
    polyak_step,
    squared_hinge,
    squared_huber,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
    sum_of_squared_absolutely_convex,
)
from theorems.core import Claim, Context, Kind, Outcome, register
from theorems.core.evidence import figure, numeric_outcome, property_outcome, prove_zero
from theorems.strategies import seeds

PAPER = "lcd"
SOURCE = "arXiv:2405.16574v3"

# --------------------------------------------------------------------------- instances

#: families of the property claims; "hinge" has no closed-form minimizer (bounds/monotone only)
FAMILIES = ("abs_linear", "norm_residual", "group_residuals", "huber", "lp_norm_diagonal",
            "lp_norm_rank_one", "lp_regression_diagonal", "lp_regression_rank_one", "hinge")
RATE_FAMILIES = FAMILIES[:-1]


def make_instance(family: str, seed: int, scale: float) -> CurvatureProblem:
    """A small instance of ``family`` whose starting point sits at distance ~``scale`` from x*.

    >>> prob = make_instance("huber", 0, 1.0)
    >>> prob.f_star, prob.x_star.shape == prob.x0.shape
    (0.0, True)
    """
    rng = np.random.default_rng([seed, FAMILIES.index(family)])
    d = int(rng.integers(1, 7))
    n = d + int(rng.integers(1, 12))
    A = rng.standard_normal((n, d))
    x_true = rng.standard_normal(d)
    x0 = x_true + scale * rng.standard_normal(d)
    noise = rng.standard_normal(n)
    p = float(rng.choice([2.0, 2.5, 3.0, 4.0, 6.0]))
    if family == "abs_linear":
        return sum_of_squared_abs_linear(A, A @ x_true + noise, x0=x0)
    if family == "norm_residual":
        return squared_norm_residual(A, A @ x_true + noise, x0=x0)
    if family == "group_residuals":
        return _group_residuals(rng, A, A @ x_true + noise, x0)
    if family == "huber":
        return squared_huber(A, A @ x_true, delta=float(rng.uniform(0.1, 2.0)), x0=x0)
    if family.startswith("lp_norm"):
        return squared_lp_norm(p, x0=x0, curvature=family.removeprefix("lp_norm_"))
    if family.startswith("lp_regression"):
        return lp_regression(A, A @ x_true, p, x0=x0, curvature=family.removeprefix("lp_regression_"))
    if family == "hinge":
        labels = np.where(rng.standard_normal(n) >= 0, 1.0, -1.0)
        return squared_hinge(A, labels, x0=x0)
    raise ValueError(f"unknown family {family!r}")


def _group_residuals(rng, A, b, x0) -> CurvatureProblem:
    """Σⱼ ‖Aⱼx − bⱼ‖₂² over row blocks: a sum of squares of absolutely convex φⱼ = ‖Aⱼx − bⱼ‖₂."""
    n = A.shape[0]
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(2, n - 1), replace=False)) if n > 1 else []
    blocks = np.split(np.arange(n), cuts)

    def residuals(x):
        return np.array([np.linalg.norm(A[j] @ x - b[j]) for j in blocks])

    def jacobian(x):
        rows = []
        for j in blocks:
            r = A[j] @ x - b[j]
            nr = np.linalg.norm(r)
            rows.append(A[j].T @ r / nr if nr > 0 else np.zeros(A.shape[1]))
        return np.array(rows)

    # Hessian 2AᵀA ⪯ C(y) + 2‖A‖₂² I since C ⪰ 0, so L_C = 2‖A‖₂² is valid
    x_star, *_ = np.linalg.lstsq(A, b, rcond=None)
    r = A @ x_star - b
    L = 2.0 * float(np.linalg.norm(A, 2) ** 2)
    return sum_of_squared_absolutely_convex(residuals, jacobian, L_C=L, x0=x0, f_star=float(r @ r),
                                            x_star=x_star, L=L)


instances = st.tuples(st.sampled_from(FAMILIES), seeds, st.sampled_from([0.1, 1.0, 10.0]))
rate_instances = st.tuples(st.sampled_from(RATE_FAMILIES), seeds, st.sampled_from([0.1, 1.0, 10.0]))


def _quad(C: np.ndarray, v: np.ndarray) -> float:
    return float(v @ (C * v)) if C.ndim == 1 else float(v @ C @ v)



@contextmanager
def _scaled_step(module: str, name: str, factor: float) -> Iterator[None]:
    """Temporarily make ``algorithms.curvature.<module>.<name>`` step ``factor`` times as far.

    The sabotage of the controls: the solver's ``_solve`` looks the step function up in its
    module at every call, so ``solve(...)`` runs the unchanged loop with a mis-scaled step.
    The step function returns the new point (LCD1) or ``(new point, info)`` (LCD2); only
    the displacement from ``x`` is scaled. ``factor == 1`` leaves the implementation alone.
    """
    if factor == 1.0:
        yield
        return
    mod = importlib.import_module(f"algorithms.curvature.{module}")
    original = getattr(mod, name)

    def scaled(x, *args, **kwargs):
        out = original(x, *args, **kwargs)
        if isinstance(out, tuple):
            return (x + factor * (out[0] - x), *out[1:])
        return x + factor * (out - x)

    setattr(mod, name, scaled)
    try:
        yield
    finally:
        setattr(mod, name, original)


def _iterates(prob: CurvatureProblem, algo, **kwargs) -> tuple[np.ndarray, list[dict]]:
    """``solve(prob, algo, store_trace=True, **kwargs)``: the iterates x_0, x_1, ... and the trace.

    The trace records f but not x; the iterates are the points at which the solver evaluates
    ∇f (the shared loop does so exactly once per iterate, which is asserted).
    """
    points: list[np.ndarray] = []
    grad = prob.grad

    def recording_grad(x):
        points.append(np.array(x, dtype=np.float64, copy=True))
        return grad(x)

    wrapped = replace(prob, grad=recording_grad)
    points.clear()  # the constructor's own evaluation at x0
    sol = solve(wrapped, algo, store_trace=True, **kwargs)
    if len(points) != len(sol.trace):
        raise RuntimeError(f"{len(points)} gradient evaluations for {len(sol.trace)} trace records")
    return np.array(points), sol.trace


# --------------------------------------------------------------------------- reduces_to_gd_polyak


def _lcd1_step_doubled(x, g, C, L_C):
    """A mis-derived LCD1 step (factor 2): x − 2(C + L_C I)⁻¹g (symbolic part of the control)."""
    return x + 2 * (lcd1_step(x, g, C, L_C) - x)


#: families run with C replaced by 0 (matrix and diagonal forms) for the numeric comparison;
#: the comparison is an identity of iterates (GD takes L = the family's L_C), so it needs no
#: convergence; the iterates stay bounded on all of them (1/L_C is at most ~1.5/L)
_REDUCE_FAMILIES = ("norm_residual", "group_residuals", "huber", "lp_regression_diagonal",
                    "lp_norm_diagonal", "hinge")
#: agreement of the iterates, relative to max(1, max|x|): LCD1 computes (0 + L_C I)⁻¹g by a
#: Cholesky solve (or a diagonal division), GD multiplies by 1/L_C, a difference of a few ulps
#: per step; a gradient step with step 1/L_C is non-expansive, so after <= 200 steps the
#: iterates differ by at most ~200 · few ulps ≈ 1e-13 (measured: 3.7e-16 in 240 runs of 30
#: steps). LCD2 with D = 0 computes Polyak's multiplier Δ/‖g‖² exactly (measured: 0).
_REDUCE_RTOL = 1e-12


def _numeric_reductions(ctx: Context, factor: float) -> tuple[list[str], dict]:
    """The solver path: iterates of solve(LCD1/LCD2) with C ≡ 0 vs solve(GD(1/L_C)/Polyak)."""
    iters = ctx.pick(30, 200)
    seeds = ctx.rng("lcd.reduces_to_gd_polyak").integers(0, 2**31, size=ctx.pick(3, 20))
    worst = {"LCD1 vs GD(1/L_C)": 0.0, "LCD2 vs Polyak": 0.0}
    failures: list[str] = []
    runs = different_lengths = 0
    for family in _REDUCE_FAMILIES:
        for seed in seeds:
            prob = make_instance(family, int(seed), 1.0)
            d = prob.dimension
            for form, zero in (("matrix", lambda x, d=d: np.zeros((d, d))),
                               ("diagonal", lambda x, d=d: np.zeros(d))):
                p0 = replace(prob, curvature=zero)
                pairs = [("LCD1 vs GD(1/L_C)", "lcd1", "lcd1_step", LCD1(), GradientDescent(L=p0.L_C))]
                if p0.f_star is not None:
                    pairs.append(("LCD2 vs Polyak", "lcd2", "lcd2_step", LCD2(), Polyak()))
                for label, module, name, lcd, peer in pairs:
                    with _scaled_step(module, name, factor):
                        got, _ = _iterates(p0, lcd, maxiters=iters)
                    want, _ = _iterates(p0, peer, maxiters=iters)
                    runs += 1
                    if got.shape != want.shape:
                        err = np.inf
                        different_lengths += 1
                    else:
                        err = float(np.max(np.abs(got - want))) / max(1.0, float(np.max(np.abs(want))))
                        worst[label] = max(worst[label], err)
                    if not err <= _REDUCE_RTOL:
                        failures.append(f"{label} on {family} (seed {int(seed)}, C ≡ 0 as {form}): "
                                        f"iterates differ (relative error {err:.3g}, {got.shape[0]} vs "
                                        f"{want.shape[0]} iterates)")
    figures = {"runs": runs, "rtol": _REDUCE_RTOL, "runs_with_different_iterate_counts": different_lengths,
               "max_relative_error_same_counts": {k: figure(v) for k, v in worst.items()}}
    return failures, figures


def _check_reduces(ctx: Context, *, sabotage: bool) -> Outcome:
    d = 3
    x = sympy.Matrix(sympy.symbols(f"x1:{d + 1}", real=True))
    g = sympy.Matrix(sympy.symbols(f"g1:{d + 1}", real=True))
    L = sympy.Symbol("L_C", positive=True)
    delta, lam = sympy.symbols("Delta lambda", positive=True)
    step1 = _lcd1_step_doubled if sabotage else lcd1_step
    factor = 2 if sabotage else 1
    outcomes = []
    # LCD1 with C ≡ 0 vs gradient descent with step 1/L_C, evaluated on the implementation
    diff1 = step1(x, g, sympy.zeros(d, d), L) - gd_step(x, g, 1 / L)
    outcomes.append(prove_zero(sum(e**2 for e in diff1), what="LCD1(C = 0) − GD(1/L_C) = 0"))
    # LCD2 with C ≡ 0: the implemented multiplier equation and step coefficients
    ghat = np.array(list(g), dtype=object)
    D = np.array([0] * d, dtype=object)
    roots = [r for r in sympy.solve(sympy.Eq(lcd2_gap(lam, delta, ghat, D), 0), lam)]
    if len(roots) != 1:
        return Outcome("undecided", f"sympy found {len(roots)} roots of the LCD2 equation",
                       {"roots": [str(r) for r in roots]})
    coef = factor * lcd2_coefficients(roots[0], D)
    lcd2_x = x - sympy.Matrix(list(coef * ghat))
    diff2 = lcd2_x - polyak_step(x, g, delta, (g.T @ g)[0, 0])
    outcomes.append(prove_zero(sum(e**2 for e in diff2), what="LCD2(C = 0) − Polyak = 0"))
    # the eigenbasis constraint formula equals the model value Δ + ĝ·s + ½ D s² at the step s
    gi, Di = sympy.Symbol("ghat", real=True), sympy.Symbol("D", nonnegative=True)
    s = -factor * lcd2_coefficients(lam, Di) * gi
    model = delta + gi * s + sympy.Rational(1, 2) * Di * s**2
    gap_formula = lcd2_gap(lam, delta, np.array([gi], dtype=object), np.array([Di], dtype=object))
    outcomes.append(prove_zero(model - gap_formula, what="LCD2 gap formula = localization model"))
    evidence = {o.evidence["statement"]: o.evidence["reduced"] for o in outcomes}
    evidence["lcd2_root"] = str(roots[0])
    # the numpy path the solver runs (shifted_solve, lcd2_multiplier), through solve()
    numeric_failures, evidence["solver_path"] = _numeric_reductions(ctx, float(factor))
    failed = [o.summary for o in outcomes if o.status == "fail"] + numeric_failures[:3]
    if numeric_failures:
        evidence["solver_path"]["mismatches"] = len(numeric_failures)
    if failed:
        return Outcome("fail", "; ".join(failed), evidence)
    if all(o.status == "pass" for o in outcomes):
        return Outcome("pass", "sympy: with C = 0, LCD1 is GD(1/L_C) and LCD2 is Polyak; the LCD2 "
                       "constraint formula matches the model; through solve(), LCD1 and LCD2 with "
                       f"C ≡ 0 reproduce the GD(1/L_C) and Polyak iterates in "
                       f"{evidence['solver_path']['runs']} runs", evidence)
    return Outcome("undecided", "sympy could not decide every identity", evidence)


register(Claim(
    id="lcd.reduces_to_gd_polyak", paper=PAPER,
    source=f"Sections 3.1-3.2 and Appendix C.1 ({SOURCE})",
    statement="With C ≡ 0, the implemented LCD1 step x − (C + L_C I)⁻¹∇f equals gradient descent "
              "with step 1/L_C, and the implemented LCD2 step (root of its multiplier equation, "
              "then its step coefficients) equals the Polyak step (f − f*)/‖∇f‖²·∇f, for symbolic "
              "x, ∇f ∈ R³, L_C > 0, f − f* > 0; moreover the eigenbasis formula the LCD2 "
              "root-finder uses equals the localization-set model at the candidate step for any "
              "eigenvalue D >= 0. Numerically, on the solver's own path: solve(LCD1) and "
              "solve(LCD2) on instances of six families with C replaced by 0 (as a zero matrix "
              "and as a zero diagonal) reproduce the iterates of solve(GradientDescent(L=L_C)) "
              "and solve(Polyak) for 30 (full: 200) steps, to 1e-12 relative.",
    kind=Kind.SYMBOLIC,
    check=partial(_check_reduces, sabotage=False), control=partial(_check_reduces, sabotage=True),
    control_description="The same identities with mis-derived steps that are twice too long "
                        "(x − 2(C + L_C I)⁻¹∇f, and twice the LCD2 coefficients); sympy must find "
                        "a non-zero difference, and with the solver's lcd1_step / lcd2_step "
                        "patched to step twice as far the iterates of solve() must differ from "
                        "GD's and Polyak's."))


# --------------------------------------------------------------------------- curvature_bounds

#: rounding allowance of the two inequalities: f is a sum of at most ~20 squared terms computed
#: in float64, so each side carries a relative error of a few hundred ulps at most
_BOUND_RTOL = 1e-10


def _check_bounds(ctx: Context, *, sabotage: bool) -> Outcome:
    worst = {"lower": np.inf, "upper": np.inf}

    def test(example):
        family, seed, scale = example
        prob = make_instance(family, seed, scale)
        rng = np.random.default_rng(seed)
        center = prob.x_star if prob.x_star is not None else prob.x0
        for _ in range(4):
            y = center + scale * rng.standard_normal(prob.dimension)
            x = center + float(rng.choice([0.1, 1.0, 10.0])) * scale * rng.standard_normal(prob.dimension)
            C = prob.curvature_at(y)
            if sabotage:
                C = 2.0 * C
            fy, fx, gy, v = prob.value(y), prob.value(x), prob.gradient(y), x - y
            lin = fy + float(gy @ v)
            q = _quad(C, v)
            tol = _BOUND_RTOL * (abs(fx) + abs(fy) + abs(float(gy @ v)) + q + prob.L_C * float(v @ v))
            lower = fx - (lin + 0.5 * q)
            upper = lin + 0.5 * (q + prob.L_C * float(v @ v)) - fx
            worst["lower"] = min(worst["lower"], lower / max(tol, 1e-300))
            worst["upper"] = min(worst["upper"], upper / max(tol, 1e-300))
            assert lower >= -tol, (f"{family}: lower bound violated by {-lower:.3g} (f(x) = {fx:.6g}, "
                                   f"model {lin + 0.5 * q:.6g})")
            assert upper >= -tol, (f"{family}: upper bound violated by {-upper:.3g} (f(x) = {fx:.6g}, "
                                   f"model {lin + 0.5 * (q + prob.L_C * float(v @ v)):.6g})")
        return {"min_margin_in_tolerances": {k: figure(v) for k, v in worst.items()}}

    return property_outcome(instances, test, ctx=ctx, max_examples=ctx.pick(60, 600),
                            what="f(y) + ⟨∇f(y), x−y⟩ + ½‖x−y‖²_C(y) <= f(x) <= same + (L_C/2)‖x−y‖²")


register(Claim(
    id="lcd.curvature_bounds", paper=PAPER,
    source=f"Assumption 2.1; Examples 6.1-6.3, Lemmas E.14, E.15, E.19 and Section 7 ({SOURCE})",
    statement="For every shipped family (sum of squared |aᵢᵀx − bᵢ|, ‖Ax − b‖₂² with the rank-one "
              "absolute-convexity C, group residuals Σⱼ‖Aⱼx − bⱼ‖₂², squared Huber, ‖x‖_p² and "
              "‖Ax − b‖_p² with diagonal and rank-one C for p ∈ {2, 2.5, 3, 4, 6}, squared hinge "
              "with C ≡ 0) and random points x, y, both inequalities of Assumption 2.1 hold with "
              "the family's C(y) and L_C.",
    kind=Kind.PROPERTY,
    check=partial(_check_bounds, sabotage=False), control=partial(_check_bounds, sabotage=True),
    control_description="C(y) doubled: the lower bound must fail (for the quadratic family C is "
                        "the Hessian, so any larger C overshoots f)."))


# --------------------------------------------------------------------------- rate

#: rounding allowance on f − f*: f* itself is computed (least squares) to ~1e-13 relative
_RATE_ATOL = 1e-11


def _check_rate(ctx: Context, *, sabotage: bool) -> Outcome:
    iters = ctx.pick(60, 400)
    ratios = {"LCD1": 0.0, "LCD2": 0.0}

    def test(example):
        family, seed, scale = example
        prob = make_instance(family, seed, scale)
        if sabotage:  # the method and the bound both use L_C / 4
            prob = replace(prob, L_C=prob.L_C / 4)
        R2 = float(np.sum((prob.x0 - prob.x_star) ** 2))
        atol = _RATE_ATOL * max(1.0, prob.f0)
        for algo, name in ((LCD1(), "LCD1"), (LCD2(), "LCD2")):
            sol = solve(prob, algo, maxiters=iters, tol=1e-300, store_trace=True)
            gaps = np.array([max(r["gap"], 0.0) if np.isfinite(r["value"]) else np.inf
                             for r in sol.trace])[1:]
            if gaps.size == 0:
                continue
            k = np.arange(1, gaps.size + 1)
            bound = prob.L_C * R2 / (2 * k)
            # Theorem 4.1: last iterate; Theorem 4.2's proof bounds the running average
            measured = gaps if name == "LCD1" else np.cumsum(gaps) / k
            worst = int(np.argmax(measured - bound))
            ratios[name] = max(ratios[name], float(np.max(measured / (bound + atol))))
            assert measured[worst] <= bound[worst] + atol, (
                f"{name} on {family}: k = {worst + 1}: f − f* = {measured[worst]:.4g} > "
                f"L_C‖x0 − x*‖²/(2k) = {bound[worst]:.4g}")
        return {"max_ratio_to_bound": {k: float(f"{v:.4g}") for k, v in ratios.items()}}

    return property_outcome(rate_instances, test, ctx=ctx, max_examples=ctx.pick(30, 300),
                            what="f(x_k) − f* <= L_C‖x0 − x*‖²/(2k) (LCD1 last iterate, LCD2 average)")


register(Claim(
    id="lcd.rate", paper=PAPER, source=f"Theorems 4.1 and 4.2; Appendices B.2, C.2 ({SOURCE})",
    statement="Under Assumption 2.1, for every k >= 1 the last LCD1 iterate satisfies "
              "f(x_k) − f* <= L_C‖x_0 − x*‖²/(2k), and the LCD2 iterates satisfy "
              "(1/k)Σ_{t=1..k} f(x_t) − f* <= L_C‖x_0 − x*‖²/(2k) (hence the best iterate does); "
              "checked on the first 60 (full: 400) iterations of random instances of the shipped "
              "families with a known minimizer.",
    kind=Kind.PROPERTY,
    check=partial(_check_rate, sabotage=False), control=partial(_check_rate, sabotage=True),
    control_description="L_C replaced by L_C/4 in the problem (so LCD1 takes steps too long for "
                        "the upper bound) and in the bound; the bound must be violated."))


# --------------------------------------------------------------------------- quadratic_one_step


def _check_one_step(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("lcd.quadratic_one_step")
    d = ctx.pick(8, 40)
    M = rng.standard_normal((d, d))
    H = M.T @ M / d + 0.5 * np.eye(d)
    c = rng.standard_normal(d)
    x_star = np.linalg.solve(H, c)
    f_star = float(-0.5 * c @ x_star)
    C = 2.0 * H if sabotage else H
    prob = CurvatureProblem(f=lambda x: float(0.5 * x @ H @ x - c @ x), grad=lambda x: H @ x - c,
                            curvature=lambda x: C, L_C=0.0, x0=rng.standard_normal(d), f_star=f_star)
    steps = [solve(prob, algo, maxiters=1).x for algo in (LCD1(), LCD2(), LCD3())]
    got = np.concatenate(steps)
    want = np.concatenate([x_star] * len(steps))
    # one Newton step: error ~ eps · cond(H) · ‖x*‖; cond(H) <= ~20 here, so 1e-9 leaves ~4 digits
    # of margin over the rounding error and is far below any non-Newton step's error
    out = numeric_outcome(got, want, rtol=1e-9, atol=1e-9, what="x_1 of LCD1/LCD2/LCD3 = x*",
                          names=("one step", "minimizer"))
    out.evidence["error_per_method"] = {name: figure(float(np.linalg.norm(x1 - x_star)))
                                        for name, x1 in zip(("LCD1", "LCD2", "LCD3"), steps, strict=True)}
    return out


register(Claim(
    id="lcd.quadratic_one_step", paper=PAPER,
    source=f"Section 4 ('Convex quadratics'), Remarks in Appendices B.2 and C.2, D.2 ({SOURCE})",
    statement="For a strongly convex quadratic f(x) = ½xᵀHx − cᵀx with C(x) = H and L_C = 0, one "
              "step of LCD1, of LCD2 and of LCD3 from a random x_0 lands on the minimizer H⁻¹c.",
    kind=Kind.NUMERIC,
    check=partial(_check_one_step, sabotage=False), control=partial(_check_one_step, sabotage=True),
    control_description="C = 2∇²f (the lower bound of Assumption 2.1 fails): the same three "
                        "methods take steps that are not Newton steps (LCD1 goes half-way), so "
                        "none of them lands on x* and each block of the comparison fails."))


# --------------------------------------------------------------------------- monotone

#: rounding allowance per comparison: f is evaluated in float64 as a sum of <= ~20 terms
_MONO_RTOL = 1e-12
#: the decrease ratio (actual / required) is reported only where the required decrease is
#: well above the rounding of f (else it is a ratio of rounding noise)
_MONO_RATIO_FLOOR = 1e-9


def _required_decrease(prob: CurvatureProblem, x: np.ndarray) -> float:
    """½ ∇f(x)ᵀ(C(x) + L_C I)⁻¹∇f(x), by a dense solve independent of the solver's shifted_solve."""
    g = prob.gradient(x)
    C = prob.curvature_at(x)
    M = (np.diag(C) if C.ndim == 1 else C) + prob.L_C * np.eye(prob.dimension)
    try:
        v = np.linalg.solve(M, g)
    except np.linalg.LinAlgError:  # L_C = 0 and C singular: the paper's pseudo-inverse
        v = np.linalg.pinv(M) @ g
    return 0.5 * float(g @ v)


def _check_monotone(ctx: Context, *, step_factor: float) -> Outcome:
    iters = ctx.pick(30, 200)
    worst = {"min_relative_slack": np.inf, "min_decrease_ratio": np.inf}

    def test(example):
        family, seed, scale = example
        prob = make_instance(family, seed, scale)
        with _scaled_step("lcd1", "lcd1_step", step_factor):
            xs, trace = _iterates(prob, LCD1(), maxiters=iters, tol=1e-300)
        for k in range(len(trace) - 1):
            fx, f_next = trace[k]["value"], trace[k + 1]["value"]
            required = _required_decrease(prob, xs[k])
            slack = fx - required - f_next
            scale_f = max(1.0, abs(fx))
            worst["min_relative_slack"] = min(worst["min_relative_slack"], slack / scale_f)
            if required > _MONO_RATIO_FLOOR * scale_f:
                worst["min_decrease_ratio"] = min(worst["min_decrease_ratio"], (fx - f_next) / required)
            assert slack >= -_MONO_RTOL * scale_f, (
                f"{family}, step {k}: f(x⁺) = {f_next:.10g} > f(x) − ½‖∇f‖²_M⁻¹ = {fx - required:.10g} "
                f"(decrease {fx - f_next:.4g}, required {required:.4g})")
        return {k: figure(v) for k, v in worst.items() if np.isfinite(v)}

    return property_outcome(instances, test, ctx=ctx, max_examples=ctx.pick(40, 400),
                            what="f(x_{k+1}) <= f(x_k) − ½‖∇f(x_k)‖²_{(C + L_C I)⁻¹} along solve(LCD1)")


def _control_monotone(ctx: Context) -> Outcome:
    """The check with LCD1's step scaled by 0.3 and by 2; rejected only if both are rejected."""
    outcomes = {factor: _check_monotone(ctx, step_factor=factor) for factor in (0.3, 2.0)}
    evidence = {f"step x{factor:g}": {"status": o.status, **o.evidence} for factor, o in outcomes.items()}
    summary = "; ".join(f"step ×{factor:g}: {o.summary}" for factor, o in outcomes.items())
    if all(o.status == "fail" for o in outcomes.values()):
        return Outcome("fail", summary, evidence)
    if any(o.status == "pass" for o in outcomes.values()):
        return Outcome("pass", summary, evidence)
    return Outcome("undecided", summary, evidence)


register(Claim(
    id="lcd.monotone", paper=PAPER, source=f"Lemma B.2, Appendix B.2 ({SOURCE})",
    statement="Along LCD1 (the iterates of solve(LCD1)), f(x_{k+1}) <= f(x_k) − "
              "½‖∇f(x_k)‖²_{(C(x_k) + L_C I)⁻¹} for every k (so LCD1 never increases f), on random "
              "instances of every shipped family; the required decrease is computed by a dense "
              "solve, independently of the solver's step.",
    kind=Kind.PROPERTY,
    check=partial(_check_monotone, step_factor=1.0), control=_control_monotone,
    control_description="The solver's lcd1_step patched to step t·(C + L_C I)⁻¹∇f, run twice through "
                        "the same check: t = 0.3 (by the lower bound it decreases f by at most "
                        "0.3‖∇f‖²_M⁻¹ < ½‖∇f‖²_M⁻¹) and t = 2 (on a quadratic with C = ∇²f it "
                        "returns to the same f); both must be rejected."))
