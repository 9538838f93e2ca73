import math

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.blackbox import (
    BlackBoxProblem,
    Evaluator,
    ModularOptimizer,
    WorkflowPlan,
    bbob_problem,
    run_workflow,
)

SPHERE = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-5 * np.ones(4), 5 * np.ones(4)), 4000)


@pytest.mark.parametrize("workflow", [
    ("init.uniform", "pop.20", "de.best1", "cx.exponential", "bc.reflect", "sel.mu_plus_lambda"),
    ("init.halton", "pop.cma", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda", "restart.diversity"),
    ("init.lhs", "pop.50", "niche.ranking", "pso.inertia", "bc.periodic", "sel.greedy", "red.linear"),
    ("init.sobol", "pop.20", "ga.gaussian", "bc.halving", "sel.tournament", "restart.stagnation"),
    ("init.gaussian", "pop.5d", "niche.random", "de.rand2", "cx.binomial", "bc.random", "sel.crowding",
     "red.nonlinear"),
])
def test_families_make_progress_within_budget(workflow):
    sol = solve(SPHERE, ModularOptimizer(workflow), seed=1)
    assert sol.retcode is RetCode.MaxIters and sol.stats.f_calls == 4000
    assert sol.value < 1.0 and sol.value == pytest.approx(float(np.sum(sol.x**2)))


def test_target_gives_success_and_stops_early():
    prob = BlackBoxProblem(SPHERE.f, SPHERE.bounds, 20000, target=1e-6)
    es = ModularOptimizer(("init.lhs", "pop.cma", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda"))
    sol = solve(prob, es, seed=0)
    assert sol.retcode is RetCode.Success and sol.value <= 1e-6 and sol.stats.f_calls < 20000


def test_hyperparameters_matter_and_are_validated():
    wf = ("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")
    good = solve(SPHERE, ModularOptimizer(wf, {"de.rand1": {"F1": 0.5}}), seed=0).value
    frozen = solve(SPHERE, ModularOptimizer(wf, {"de.rand1": {"F1": 0.0}, "cx.binomial": {"Cr": 0.0}}),
                   seed=0).value
    assert good < frozen
    with pytest.raises(ValueError, match="F1"):
        ModularOptimizer(wf, {"de.rand1": {"F1": 3.0}})
    with pytest.raises(ValueError, match="not a CONTROLLABLE"):
        ModularOptimizer(wf, {"pso.inertia": {"w": 0.5}})


def test_nonfinite_values_counted_and_avoided():
    def f(x):
        return math.nan if x[0] > 0 else float(np.sum(x**2))
    prob = BlackBoxProblem(f, (-np.ones(2), np.ones(2)), 500)
    sol = solve(prob, ModularOptimizer(("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip",
                                        "sel.greedy")), seed=0)
    assert sol.stats.nonfinite > 0 and sol.x[0] <= 0 and math.isfinite(sol.value)


def test_controller_is_called_and_applied():
    calls = []

    def controller(obs):
        calls.append(obs)
        assert obs.shape == (9,) and 0 <= obs[0] <= 1
        return {"cx.binomial": {"Cr": 0.0}}

    plan = WorkflowPlan.parse(("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"))
    ev = Evaluator(SPHERE)
    run_workflow(plan, ev, np.random.default_rng(0), {"de.rand1": {"F1": 0.5, "F2": 0.5, "p": 0.1},
                                                      "cx.binomial": {"Cr": 0.9}},
                 controller=controller, control_interval=10)
    assert len(calls) == math.ceil(((4000 - 20) / 20) / 10)


def test_maxiters_and_callback():
    wf = ModularOptimizer(("init.uniform", "pop.20", "ga.polynomial", "bc.clip", "sel.mu_plus_lambda"))
    assert solve(SPHERE, wf, maxiters=3).stats.f_calls == 80
    sol = solve(SPHERE, wf, callback=lambda r: r["iteration"] >= 2)
    assert sol.retcode is RetCode.Terminated and sol.stats.iterations == 2


def test_bbob_runs():
    p = bbob_problem(15, 6, 3, 600)
    sol = solve(p, ModularOptimizer(("init.lhs", "pop.10d", "de.current_to_pbest1", "cx.binomial", "bc.clip",
                                     "sel.greedy", "red.linear")), seed=0)
    assert sol.stats.f_calls == 600 and sol.value >= p.optimum


def test_non_default_de_hyperparameters_reach_the_operators(monkeypatch):
    """Plumbing: ModularOptimizer's non-default F1/F2/p/Cr are what de_mutation and crossover get
    (the claim space_contains_de runs at the defaults and could not see them ignored)."""
    import algorithms.blackbox.modular as modular

    seen = {"de": [], "cx": []}
    real_de, real_cx = modular.de_mutation, modular.crossover

    def de(method, X, y, rng, **kw):
        seen["de"].append((kw["F1"], kw["F2"], kw["p"]))
        return real_de(method, X, y, rng, **kw)

    def cx(method, X, V, Cr, rng):
        seen["cx"].append(Cr)
        return real_cx(method, X, V, Cr, rng)

    monkeypatch.setattr(modular, "de_mutation", de)
    monkeypatch.setattr(modular, "crossover", cx)
    wf = ("init.uniform", "pop.20", "de.current_to_pbest1", "cx.exponential", "bc.clip", "sel.greedy")
    hp = {"de.current_to_pbest1": {"F1": 0.73, "F2": 0.21, "p": 0.37}, "cx.exponential": {"Cr": 0.31}}
    solve(SPHERE, ModularOptimizer(wf, hp), maxiters=4, seed=0)
    assert seen["de"] == [(0.73, 0.21, 0.37)] * 4 and seen["cx"] == [0.31] * 4
