"""Round 23 (issue #43): docstring promises at their boundaries (blackbox)."""
import numpy as np
import pytest

from algorithms import solve
from algorithms.blackbox import PSO, BlackBoxProblem, Evaluator, ModularOptimizer, RandomSearch, ScipyDE


def _problem(budget: int = 1000) -> BlackBoxProblem:
    return BlackBoxProblem(lambda x: float(x @ x), (-np.ones(2), np.ones(2)), budget)


@pytest.mark.parametrize("batch", [1, 10])
@pytest.mark.parametrize("maxiters", [1, 2, 3])
def test_random_search_maxiters_caps_the_batches_and_each_is_recorded(batch, maxiters):
    # maxiters = k evaluated a (k + 1)-th batch that no record covered: the docstring promises k batches,
    # each one seen by the callback
    records = []
    sol = solve(_problem(), RandomSearch(batch=batch), seed=0, maxiters=maxiters,
                callback=lambda r: records.append(r["evaluations"]))
    assert sol.stats.f_calls == batch * maxiters
    assert records == [batch * (i + 1) for i in range(maxiters)]


@pytest.mark.parametrize("maxiters", [0, 1])
def test_random_search_maxiters_edges(maxiters):
    sol = solve(_problem(), RandomSearch(batch=10), seed=0, maxiters=maxiters, callback=lambda r: True)
    assert sol.stats.f_calls == 10
    assert sol.retcode.name == ("MaxIters" if maxiters == 0 else "Terminated")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("side", [-1, 1])
def test_evaluator_box_slack_is_as_documented(dtype, side):
    # lower <= x <= upper up to 1e-9 of the width: inside passes, 1e-6 out is refused naming X
    lo, hi = np.zeros(2, dtype=dtype), np.full(2, 1e6, dtype=dtype)
    ev = Evaluator(BlackBoxProblem(lambda x: float(x.sum()), (lo, hi), 10))
    edge = 0.0 if side < 0 else 1e6
    assert ev(np.array([[edge + side * 1e-4, 1.0]])).shape == (1,)
    with pytest.raises(ValueError, match="X must hold points of the box"):
        ev(np.array([[edge + side * 1.0, 1.0]]))


def test_controller_returning_none_is_refused():
    # red23a: a controller that forgot its return ran on as "no change"
    from algorithms.blackbox import WorkflowPlan, run_workflow

    plan = WorkflowPlan.parse(("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"))
    ev = Evaluator(BlackBoxProblem(lambda x: float(x @ x), (-np.ones(2), np.ones(2)), budget=200))
    with pytest.raises(TypeError, match=r"controller\(obs\) must return"):
        run_workflow(plan, ev, np.random.default_rng(0), {}, controller=lambda obs: None)
    ev = Evaluator(BlackBoxProblem(lambda x: float(x @ x), (-np.ones(2), np.ones(2)), budget=200))
    assert run_workflow(plan, ev, np.random.default_rng(0), {}, controller=lambda obs: {}).stop == "budget"


@pytest.mark.parametrize("registry, key, value", [
    ("MODULE_TYPE", "de.rand1", "SELECTION"), ("RULES", "R1", "edited"),
    ("MODULE_TYPE", "new.module", "SELECTION"), ("_SELECTION_OF", "de", ())])
def test_grammar_registries_are_read_only(registry, key, value):
    # red23a: an edit of MODULE_TYPE refused a valid workflow process-wide (CONFIG_SPACE was read-only)
    from algorithms.blackbox import grammar, validate

    with pytest.raises(TypeError):
        getattr(grammar, registry)[key] = value
    validate(("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"))


WRAPPED_HALF = {"0-d array": np.array(0.5), "float64 tensor": "tensor"}
WORKFLOW = ("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")
WRAPPED_MAKERS = {
    "PSO w": (lambda v: PSO(w=v), "w"),
    "ScipyDE recombination": (lambda v: ScipyDE(recombination=v), "recombination"),
    "ScipyDE mutation": (lambda v: ScipyDE(mutation=v), "mutation"),
    "ModularOptimizer F1": (lambda v: ModularOptimizer(WORKFLOW, hyperparameters={"de.rand1": {"F1": v}}),
                            "F1"),
}


@pytest.mark.parametrize("value", WRAPPED_HALF.values(), ids=list(WRAPPED_HALF))
@pytest.mark.parametrize("make, word", WRAPPED_MAKERS.values(), ids=list(WRAPPED_MAKERS))
def test_wrapped_in_range_number_is_named_by_type_not_range(value, make, word):
    # red23a: 0.5 in a 0-d array or a tensor was told it lay outside [0.2, 1] / [0, 1] / [0, 2)
    import torch

    value = torch.tensor(0.5, dtype=torch.float64) if isinstance(value, str) else value
    with pytest.raises(ValueError, match=rf"{word}.*\(not (ndarray|Tensor)\)"):
        make(value)
