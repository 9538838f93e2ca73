import numpy as np
import pytest
import sympy
from hypothesis import strategies as st

from theorems.core import Claim, Context, Kind, Outcome
from theorems.core.evidence import (
    numeric_outcome,
    property_outcome,
    prove_nonnegative,
    prove_zero,
    symbolic_truth,
)
from theorems.core.rates import fit_loglog, rate_outcome
from theorems.strategies import feasible_qps, make_qp_instance


def test_symbolic_three_valued():
    x = sympy.Symbol("x", positive=True)
    y = sympy.Symbol("y")
    assert prove_zero(sympy.sin(y) ** 2 + sympy.cos(y) ** 2 - 1, what="pythagoras").status == "pass"
    assert prove_zero(x, what="x").status == "fail"
    assert prove_nonnegative(x**2 + 1, what="sq").status == "pass"
    assert prove_nonnegative(-x - 1, what="neg").status == "fail"
    assert prove_nonnegative(y, what="y").status == "undecided"
    assert symbolic_truth(None, what="?").status == "undecided"


def test_property_outcome_is_deterministic_and_shrinks():
    def test(n):
        assert n < 50

    first = property_outcome(st.integers(0, 1000), test, ctx=Context(seed=3), max_examples=100, what="n")
    second = property_outcome(st.integers(0, 1000), test, ctx=Context(seed=3), max_examples=100, what="n")
    assert first.status == "fail" and first.evidence["counterexample"] == 50
    assert first.evidence == second.evidence


def test_property_outcome_propagates_non_assertion_errors():
    def test(n):
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        property_outcome(st.integers(), test, ctx=Context(), max_examples=3, what="err")


def test_numeric_outcome_tolerance_and_shapes():
    assert numeric_outcome([1.0, 2.0], [1.0, 2.0 + 1e-9], rtol=1e-8, atol=0, what="v").status == "pass"
    assert numeric_outcome([1.0], [1.0, 2.0], rtol=1, atol=1, what="v").status == "fail"
    assert numeric_outcome([np.nan], [1.0], rtol=1, atol=1, what="v").status == "fail"


def test_rate_fit_recovers_slope_and_rejects_wrong_claim(tmp_path):
    rng = np.random.default_rng(0)
    sizes = np.array([10, 20, 40, 80, 160])
    values = np.vstack([sizes**-1.0 * np.exp(rng.normal(0, 0.05, sizes.size)) for _ in range(8)])
    fit = fit_loglog(sizes, values)
    assert fit.low < -1.0 < fit.high
    ctx = Context(out_dir=tmp_path)
    good = rate_outcome(sizes, values, claimed=-1.0, relation="==", ctx=ctx, what="1/t",
                        margin=0.05, max_width=0.5, plot_name="r.png")
    bad = rate_outcome(sizes, values, claimed=-2.0, relation="==", ctx=ctx, what="1/t^2",
                       margin=0.05, max_width=0.5, plot_name="r2.png")
    upper = rate_outcome(sizes, values, claimed=-0.5, relation="<=", ctx=ctx, what="at least",
                         margin=0.0, max_width=0.5, plot_name="r3.png")
    assert (good.status, bad.status, upper.status) == ("pass", "fail", "pass")
    assert (tmp_path / good.artifacts[0]).exists()
    with pytest.raises(ValueError, match="positive"):
        fit_loglog(sizes, -values)


def test_wide_interval_is_undecided():
    rng = np.random.default_rng(1)
    sizes = np.array([10, 20, 40])
    values = np.exp(rng.normal(0, 2.0, (4, 3)))
    out = rate_outcome(sizes, values, claimed=-1.0, relation="==", ctx=Context(), what="noise",
                       margin=0.0, max_width=0.2, plot_name="n.png")
    assert out.status == "undecided"


def test_qp_instances_satisfy_kkt_by_construction():
    inst = make_qp_instance(4, n=6, n_eq=2, n_ineq=5, n_active=2, n_weak=1)
    residual = inst.P @ inst.x + inst.q + inst.A.T @ inst.y + inst.G.T @ inst.z
    assert np.allclose(residual, 0)
    assert np.allclose(inst.A @ inst.x, inst.b)
    slack = inst.h - inst.G @ inst.x
    assert np.all(slack >= -1e-12) and np.allclose(slack[inst.active], 0)
    assert inst.weakly_active.sum() == 1 and np.all(inst.z[inst.weakly_active] == 0)
    with pytest.raises(ValueError, match="n_eq"):
        make_qp_instance(0, n=2, n_eq=2, n_ineq=2, n_active=1)
    assert feasible_qps() is not None


def test_claim_validation():
    ok = {"source": "s", "statement": "s", "kind": Kind.NUMERIC, "control_description": "c",
          "check": lambda ctx: Outcome("pass", ""), "control": lambda ctx: Outcome("fail", "")}
    with pytest.raises(ValueError, match="unknown paper key"):
        Claim(id="x.y", paper="x", **ok)
    with pytest.raises(ValueError, match="must start with its paper key"):
        Claim(id="lcd.y", paper="dqp", **ok)
    with pytest.raises(ValueError, match="expected_verdict"):
        Claim(id="dqp.y", paper="dqp", expected_verdict="vacuous", **ok)


def test_property_draws_do_not_depend_on_the_modules_imported(tmp_path, monkeypatch):
    """A claim's draws are a function of its seed alone: hypothesis would otherwise add the literals of
    every local module imported since (here 987654321) to its draws, so a verdict depended on which
    claims had run before it in the same worker (lcd.scale_invariance, 2026-12-06)."""
    import importlib


    def draws() -> list[int]:
        seen: list[int] = []
        property_outcome(st.integers(), lambda x: seen.append(x), ctx=Context(seed=3), max_examples=60,
                         what="draws")
        return seen

    before = draws()
    (tmp_path / "module_with_a_literal.py").write_text("MAGIC = 987654321\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("module_with_a_literal")
    after = draws()
    assert after == before
    assert 987654321 not in after
