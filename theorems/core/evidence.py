"""Turning the three non-rate kinds of check into :class:`~theorems.core.Outcome` s.

* :func:`symbolic_truth` / :func:`prove_zero` / :func:`prove_nonnegative`: sympy's
  three-valued logic maps to pass / fail / undecided (never guess on ``None``).
* :func:`property_outcome`: runs a hypothesis property under the context seed;
  a failed assertion is a ``fail`` with the shrunk counterexample; any other
  exception propagates (the runner reports it as ``error``).
* :func:`numeric_outcome`: two independent computations of one quantity.
* :func:`fact`, :func:`agree`, :func:`standard_normal_blocks`: small pass/fail parts that a
  claim with many sub-checks (an implementation check) combines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.internal.conjecture import providers as _hypothesis_providers
from hypothesis.strategies import SearchStrategy

from theorems.core import Context, Outcome

__all__ = [
    "agree",
    "fact",
    "figure",
    "numeric_outcome",
    "property_outcome",
    "prove_nonnegative",
    "prove_zero",
    "standard_normal_blocks",
    "symbolic_truth",
]


def figure(value: float, digits: int = 6, floor: float = 0.0) -> float:
    """A number for the evidence: ``digits`` significant digits, and 0 below ``floor``.

    Values that depend on BLAS summation order (residuals, round-off-level differences)
    must not carry that noise into the report, or the same seed would give different
    evidence on different machines. Non-finite values pass through unchanged.

    >>> figure(3.14159265), figure(3.7e-14, floor=1e-12), figure(2.345e-9, digits=1)
    (3.14159, 0.0, 2e-09)
    """
    value = float(value)
    if not np.isfinite(value):
        return value
    if abs(value) < floor:
        return 0.0
    return float(f"{value:.{digits}g}")


def symbolic_truth(value: Any, *, what: str) -> Outcome:
    """Map a sympy truth value (True / False / None or an undecided relational) to an Outcome.

    >>> x = sympy.Symbol("x", positive=True)
    >>> symbolic_truth((x + 1).is_positive, what="x + 1 > 0").status
    'pass'
    >>> symbolic_truth(sympy.Symbol("y").is_positive, what="y > 0").status
    'undecided'
    """
    if value is True or value is sympy.true:
        return Outcome("pass", f"sympy proves {what}", {"statement": what, "sympy": "True"})
    if value is False or value is sympy.false:
        return Outcome("fail", f"sympy disproves {what}", {"statement": what, "sympy": "False"})
    return Outcome(
        "undecided",
        f"sympy cannot decide {what}",
        {"statement": what, "sympy": "None" if value is None else str(value)},
    )


def prove_zero(expr: sympy.Expr, *, what: str) -> Outcome:
    """Pass when ``expr`` simplifies to 0; fail when it is provably non-zero; else undecided.

    >>> a, b = sympy.symbols("a b", real=True)
    >>> prove_zero((a + b) ** 2 - a**2 - 2 * a * b - b**2, what="binomial").status
    'pass'
    >>> prove_zero(a - b + 1 - (a - b), what="one").status
    'fail'
    """
    reduced = sympy.simplify(expr)
    evidence = {"statement": what, "reduced": str(reduced)}
    if reduced == 0:
        return Outcome("pass", f"sympy reduces {what} to 0", evidence)
    nonzero = reduced.is_zero is False or reduced.equals(0) is False
    if nonzero:
        return Outcome("fail", f"{what} reduces to {reduced}, not 0", evidence)
    return Outcome("undecided", f"sympy cannot decide whether {reduced} is 0", evidence)


def prove_nonnegative(expr: sympy.Expr, *, what: str) -> Outcome:
    """Pass when sympy proves ``expr >= 0`` from its symbols' assumptions; fail on a proof of < 0."""
    reduced = sympy.factor(sympy.simplify(expr))
    evidence = {"statement": what, "reduced": str(reduced)}
    verdict = reduced.is_nonnegative
    if verdict is True:
        return Outcome("pass", f"sympy proves {what}: {reduced} >= 0", evidence)
    if verdict is False or reduced.is_negative is True:
        return Outcome("fail", f"sympy disproves {what}: {reduced} < 0", evidence)
    return Outcome("undecided", f"sympy cannot decide the sign of {reduced}", evidence)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return np.round(value, 6).tolist() if value.size <= 64 else f"array{value.shape}"
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float | int | str | bool) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    return repr(value)


def _draws_from_the_seed_only() -> None:
    """Stop hypothesis mixing literals of the imported modules into its draws.

    hypothesis (>= 6.13x) adds the int/float/str constants of every local module imported so far to
    its draws, so a claim drew other instances in a worker that had run other claims first: a verdict
    depended on the claims that ran before it in the same process (lcd.scale_invariance drew seed 1009,
    a literal of algorithms/optimizers/newton_schulz.py, only after an optimizer claim). The draws must
    be a function of the claim's seed alone; hypothesis has no setting for it, so its private pool is
    emptied (pinned hypothesis, constraints.txt; a version without the pool is left alone).
    """
    hp = _hypothesis_providers
    if all(hasattr(hp, name) for name in ("_get_local_constants", "Constants", "SortedSet", "float_to_int")):
        none = hp.Constants(integers=hp.SortedSet(), floats=hp.SortedSet(key=hp.float_to_int),
                            bytes=hp.SortedSet(), strings=hp.SortedSet())
        hp._get_local_constants = lambda: none


def property_outcome(
    strategy: SearchStrategy,
    test: Callable[[Any], None],
    *,
    ctx: Context,
    max_examples: int,
    what: str,
) -> Outcome:
    """Run ``test`` on ``max_examples`` draws of ``strategy`` (seeded by ``ctx``).

    ``test`` asserts the claimed property of one drawn example; it may return a
    dict of figures (the worst margin seen, say), kept from the last example.
    The evidence counts the examples the test ran to completion
    (``examples_run``; draws rejected by ``hypothesis.assume`` are not counted).

    >>> from hypothesis import strategies as st
    >>> ctx = Context(seed=1)
    >>> property_outcome(st.integers(0, 9), lambda n: None, ctx=ctx, max_examples=5,
    ...                  what="anything").status
    'pass'
    >>> def small(n):
    ...     assert n < 5, f"n = {n}"
    >>> out = property_outcome(st.integers(0, 9), small, ctx=ctx, max_examples=50, what="n < 5")
    >>> out.status, out.evidence["counterexample"]
    ('fail', 5)
    """
    state: dict[str, Any] = {"runs": 0, "completed": 0, "last": None, "figures": {}}
    # A control only has to be rejected: its first counterexample is evidence enough, so it
    # skips shrinking (the verdict is the same; a failing check still gets the shrunk example).
    phases = [p for p in Phase if not (ctx.role == "control" and p is Phase.shrink)]

    _draws_from_the_seed_only()

    @hypothesis_seed(ctx.seed)
    @settings(
        max_examples=max_examples,
        phases=phases,
        deadline=None,
        database=None,
        derandomize=False,
        print_blob=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(example: Any) -> None:
        state["runs"] += 1
        state["last"] = example
        figures = test(example)
        state["completed"] += 1  # not counted: draws rejected by hypothesis.assume
        if isinstance(figures, dict):
            state["figures"] = figures

    try:
        run()
    except (AssertionError, ExceptionGroup) as exc:  # hypothesis replays the shrunk example last
        if isinstance(exc, ExceptionGroup):  # failures at several assert sites: report them all
            failures = exc.subgroup(AssertionError)
            if failures is None:
                raise
            message = "; ".join(str(e).split("\nFalsifying example")[0].strip()
                                for e in failures.exceptions)
        else:
            message = str(exc).split("\nFalsifying example")[0].strip()
        return Outcome(
            "fail",
            f"{what}: counterexample found ({message})",
            {
                "statement": what,
                "examples_run": state["runs"],
                "counterexample": _jsonable(state["last"]),
                "message": message,
            },
        )
    return Outcome(
        "pass",
        f"{what}: held on {state['completed']} drawn instances",
        {"statement": what, "examples_run": state["completed"], "examples_drawn": state["runs"],
         **_jsonable(state["figures"])},
    )


def numeric_outcome(
    first: Any,
    second: Any,
    *,
    rtol: float,
    atol: float,
    what: str,
    names: tuple[str, str] = ("first", "second"),
) -> Outcome:
    """Pass when ``first`` and ``second`` agree to ``|a - b| <= atol + rtol |b|`` entrywise.

    >>> numeric_outcome(1.0, 1.0 + 1e-12, rtol=1e-9, atol=0.0, what="one").status
    'pass'
    >>> numeric_outcome([1.0, 2.0], [1.0, 2.1], rtol=1e-6, atol=0.0, what="vec").status
    'fail'
    """
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    if a.shape != b.shape:
        return Outcome("fail", f"{what}: shapes differ {a.shape} vs {b.shape}",
                       {"statement": what})
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return Outcome("fail", f"{what}: non-finite values", {"statement": what})
    abs_err = float(np.max(np.abs(a - b), initial=0.0))
    scale = float(np.max(np.abs(b), initial=0.0))
    ok = bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)))
    evidence = {
        "statement": what,
        names[0]: _jsonable(a if a.size > 1 else float(a)),
        names[1]: _jsonable(b if b.size > 1 else float(b)),
        "max_abs_error": abs_err,
        "max_rel_error": abs_err / scale if scale > 0 else abs_err,
        "rtol": rtol,
        "atol": atol,
    }
    verb = "agree" if ok else "disagree"
    summary = f"{what}: {names[0]} and {names[1]} {verb} (max abs error {abs_err:.3g})"
    return Outcome("pass" if ok else "fail", summary, evidence)


def fact(ok: bool, what: str, **figures: float) -> Outcome:
    """A pass/fail statement with a few scalar figures (arrays stay out of the evidence).

    >>> fact(True, "2 > 1", gap=1.0).summary
    '2 > 1: holds'
    """
    return Outcome("pass" if ok else "fail", f"{what}: {'holds' if ok else 'violated'}",
                   {"statement": what, **{k: figure(float(v), floor=1e-14) for k, v in figures.items()}})


def agree(measured: Any, reference: Any, *, rtol: float, what: str, atol: float = 1e-13) -> Outcome:
    """``|a - b| <= atol + rtol |b|`` entrywise; same shape, no NaN, infinities only where both have
    the same one. Torch tensors are accepted (detached); only the largest error is kept.

    >>> agree([1.0, float("inf")], [1.0 + 1e-15, float("inf")], rtol=1e-12, what="v").status
    'pass'
    >>> agree([1.0], [1.1], rtol=1e-3, what="v").status
    'fail'
    """
    a, b = (np.asarray(v.detach() if hasattr(v, "detach") else v, dtype=np.float64)
            for v in (measured, reference))
    if a.shape != b.shape:
        return fact(False, f"{what} (shapes {a.shape} vs {b.shape})")
    infinite = np.isinf(a) | np.isinf(b)
    if np.any(np.isnan(a)) or np.any(np.isnan(b)) or not np.array_equal(a[infinite], b[infinite]):
        return fact(False, f"{what} (NaN, or infinities that differ)")
    err = np.abs(a[~infinite] - b[~infinite])
    ok = bool(np.all(err <= atol + rtol * np.abs(b[~infinite])))
    return fact(ok, what, max_abs_error=float(err.max(initial=0.0)))


def standard_normal_blocks(blocks: dict[str, np.ndarray], what: str, level: float) -> Outcome:
    """Entries that should be i.i.d. N(0, 1): each block's Σz² against χ²(size), two-sided (its scale:
    a KS test barely sees one rescaled block of a mixture), and all entries pooled against N(0, 1) by
    Kolmogorov-Smirnov (the shape); passes when the least p-value is at least ``level``.

    >>> z = np.random.default_rng(0).standard_normal((2, 500))
    >>> standard_normal_blocks({"a": z[0], "b": z[1]}, "draws", 1e-4).status
    'pass'
    >>> standard_normal_blocks({"a": z[0], "b": 1.3 * z[1]}, "draws", 1e-4).status
    'fail'
    """
    import scipy.stats

    p_values = {name: float(2 * min(scipy.stats.chi2.cdf(np.sum(np.square(z)), np.size(z)),
                                    scipy.stats.chi2.sf(np.sum(np.square(z)), np.size(z))))
                for name, z in blocks.items()}
    pooled = np.concatenate([np.ravel(z) for z in blocks.values()])
    p_values["shape (KS)"] = float(scipy.stats.kstest(pooled, "norm").pvalue)
    worst = min(p_values, key=p_values.get)
    return fact(p_values[worst] >= level, f"{what} (per-block χ² scale and KS shape, p >= {level:g})",
                least_p_value=p_values[worst])
