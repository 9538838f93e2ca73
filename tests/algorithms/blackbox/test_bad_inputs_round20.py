"""Round 20 of issue #43: state written after construction, checked at use (red20a).

The agents' cosine position buffers (``pos``) written NaN in place gave NaN outputs in silence, while every
parameter written NaN was refused at forward.
"""

import pytest
import torch

from algorithms.blackbox import HyperparameterController, WorkflowGenerator

WORKFLOW = ("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e39])
@pytest.mark.parametrize("agent", ["controller", "generator"])
def test_an_agents_position_buffer_written_non_finite_is_refused_at_use(agent, value):
    model = HyperparameterController() if agent == "controller" else WorkflowGenerator()
    model = model.double() if value == 1e39 else model   # 1e39 is a float64 entry past the working range
    with torch.no_grad():
        model.pos.view(-1)[0] = value
    with pytest.raises(ValueError, match=r"buffer 'pos'"):
        if agent == "controller":
            model(WORKFLOW, torch.rand(2, 9, dtype=model.pos.dtype))
        else:
            model.sample(torch.rand(9, dtype=model.pos.dtype))


@pytest.mark.parametrize("history", [[(-5, 1.0)], [(10**9, 1.0)], [(11, 1.0)], [(0, float("-inf"))],
                                     [(0, float("inf")), (1, float("-inf"))]])
def test_evaluator_history_set_by_hand_refuses_pairs_the_counts_rule_out(history):
    """red20c: negative counts, counts past the evaluations made (and the budget), and a -inf best value
    were kept; the docstring promises consistent counts."""
    import numpy as np

    from algorithms.blackbox import BlackBoxProblem, Evaluator

    ev = Evaluator(BlackBoxProblem(lambda x: float(x @ x), (-np.ones(2), np.ones(2)), budget=10))
    ev(np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"^history must hold \(evaluations, best value\) pairs"):
        ev.history = history
    ev.history = [(0, float("inf")), (1, 0.0)]   # the control: a run's own record


def _resume_state(edit):
    import numpy as np

    from algorithms.blackbox.train import _check_resume_state

    agents = [WorkflowGenerator(hidden=8), HyperparameterController(hidden=8)]
    optimizers = [torch.optim.Adam(a.parameters(), lr=1e-3) for a in agents]
    for agent, optimizer in zip(agents, optimizers, strict=True):   # a real Adam state: one step
        for p in agent.parameters():
            p.grad = torch.ones_like(p)
        optimizer.step()
    st = {"agent1": agents[0].state_dict(), "agent2": agents[1].state_dict(),
          "opt1": optimizers[0].state_dict(), "opt2": optimizers[1].state_dict(),
          "baselines": {"1-5-100": 0.5}, "iteration": 3, "episodes": 3,
          "minutes": 0.1, "history": [], "rng": np.random.default_rng(0).bit_generator.state,
          "torch_gen": torch.Generator().get_state()}
    edit(st)
    fresh = {name: torch.optim.Adam(agent.parameters(), lr=1e-3) for name, agent in
             (("opt1", WorkflowGenerator(hidden=8)), ("opt2", HyperparameterController(hidden=8)))}
    _check_resume_state("state.pt", st, fresh)


def _set_steps(value):
    def edit(st):
        for entry in st["opt1"]["state"].values():
            entry["step"] = torch.tensor(value)
    return edit


@pytest.mark.parametrize("edit", [
    _set_steps(-1.0), _set_steps(-3.0), _set_steps(2.5),
    lambda st: st["baselines"].__setitem__("not-a-key", 1.0),
    lambda st: st.__setitem__("rng", {"bit_generator": "PCG64", "state": {"state": -5, "inc": "x"}}),
], ids=["step-1", "step-3", "step2.5", "baseline-key", "rng"])
def test_designx_train_resume_refuses_state_train_never_writes(edit):
    """red20c: a step of -1 met torch's ZeroDivisionError, -3 a ComplexFloat cast error, 2.5 resumed with its
    bias correction; unknown baseline keys were ignored; a bad rng dict reached numpy's setter."""
    _resume_state(lambda st: None)   # the control: as train writes it
    with pytest.raises(ValueError, match=r"^resume: checkpoint 'state.pt' has an invalid"):
        _resume_state(edit)


@pytest.mark.parametrize("where", ["callback", "f"])
def test_a_cmaes_solve_nested_in_a_cmaes_run_finishes_and_keeps_the_outer_run(where):
    """red20c: the nested solve deadlocked forever on the non-reentrant pycma lock (callback or f)."""
    import threading

    import numpy as np

    from algorithms import solve
    from algorithms.blackbox import CMAES, BlackBoxProblem

    inner = BlackBoxProblem(lambda y: float(y @ y), (-np.ones(2), np.ones(2)), budget=20)
    nested = lambda: solve(inner, CMAES(), maxiters=1, seed=1).value   # noqa: E731
    outer_f = (lambda x: float(x @ x) + 0 * nested()) if where == "f" else (lambda x: float(x @ x))
    problem = BlackBoxProblem(outer_f, (-np.ones(2), np.ones(2)), budget=40)
    plain = BlackBoxProblem(lambda x: float(x @ x), (-np.ones(2), np.ones(2)), budget=40)
    callback = (lambda record: nested() and None) if where == "callback" else None
    out = {}
    run = threading.Thread(target=lambda: out.update(sol=solve(problem, CMAES(), seed=3, callback=callback)),
                           daemon=True)
    run.start()
    run.join(timeout=60)
    assert not run.is_alive(), "the nested CMAES solve deadlocked"
    reference = solve(plain, CMAES(), seed=3)
    assert np.array_equal(out["sol"].x, reference.x)   # the nested run restored the global generator
