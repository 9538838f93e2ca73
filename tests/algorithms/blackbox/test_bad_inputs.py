"""Bad inputs to every public callable of ``algorithms.blackbox``: each is rejected early, by our own
validation, with a message naming the argument and what was expected."""

import math

import numpy as np
import pytest
import torch

import algorithms.blackbox.agents as agents
import algorithms.blackbox.baselines as baselines
import algorithms.blackbox.components as components
import algorithms.blackbox.designx as designx
import algorithms.blackbox.features as features
import algorithms.blackbox.grammar as grammar
import algorithms.blackbox.modular as modular
import algorithms.blackbox.problem as problem
import algorithms.blackbox.train as train
from algorithms import RetCode, solve
from algorithms.blackbox import (
    CMAES,
    PSO,
    BlackBoxProblem,
    DesignX,
    Evaluator,
    HyperparameterController,
    InvalidWorkflowError,
    ModularOptimizer,
    RandomSearch,
    ScipyDE,
    WorkflowGenerator,
    WorkflowPlan,
    allowed_next,
    bbob_problem,
    load_agents,
    normalized_regret,
    problem_features,
    run_episode,
    run_workflow,
    validate,
)
from algorithms.blackbox.agents import cosine_positions
from algorithms.blackbox.components import (
    SepCMAState,
    boundary,
    crossover,
    de_mutation,
    ga_mutation,
    initialize,
    niche,
    partners,
    pso_update,
    reduced_size,
    select,
)
from algorithms.blackbox.designx import Episode, log_regret_rewards, save_agents
from algorithms.blackbox.features import ela_features, sample_size
from algorithms.blackbox.grammar import decode_action, default_hyperparameters, family_of
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

R = np.random.default_rng(0)
BOX = (-np.ones(2), np.ones(2))
PROB = BlackBoxProblem(lambda x: float(x @ x), BOX, 50)
DE = ("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")
X = np.zeros((4, 2))

CASES = [
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, (np.ones(2), np.ones(2)), 10),
             ValueError,
             ("bounds", "lower", "upper"), "lower-equals-upper"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, (np.ones(2), np.zeros(2)), 10),
             ValueError,
             ("lower <", "upper"), "lower-above-upper"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, BOX, 0),
             ValueError, ("budget", "positive"),
             "budget-zero"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, BOX, -5), ValueError, ("budget",),
             "budget-negative"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(3, BOX, 5), TypeError, ("f", "callable"), "f"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, np.ones(2), 5), ValueError,
             ("bounds", "pair"), "bounds-not-pair"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, ([0.0, math.nan], [1.0, 1.0]), 5),
             ValueError, ("bounds lower", "NaN"), "bounds-nan"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, BOX, 5, optimum=1.0, f_ref=0.0),
             ValueError,
             ("f_ref", "optimum"), "f_ref"),
    BadInput(Evaluator, lambda: Evaluator("p"), TypeError, ("problem", "BlackBoxProblem"), ""),
    BadInput(bbob_problem, lambda: bbob_problem(25, 1, 2, 10), ValueError, ("fid", "1..24"), "fid"),
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 1, 10), ValueError, ("dim", ">= 2"), "dim"),
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 2, 0), ValueError, ("budget",), "budget"),
    BadInput(normalized_regret, lambda: normalized_regret(1.0, PROB), ValueError, ("optimum", "f_ref"), ""),
    # components
    BadInput(initialize, lambda: initialize("latin", 4, *BOX, R), ValueError, ("method", "lhs"), ""),
    BadInput(partners, lambda: partners(3, np.zeros(3, dtype=int), R), ValueError, ("group", "partners"), ""),
    BadInput(de_mutation, lambda: de_mutation("rand1", X, np.zeros(3), R), ValueError, ("y", "shape"), ""),
    BadInput(crossover, lambda: crossover("binomial", X, X, 1.5, R), ValueError, ("Cr", "[0, 1]"), ""),
    BadInput(ga_mutation, lambda: ga_mutation("uniform", X, *BOX, R), ValueError, ("method", "gaussian"), ""),
    BadInput(pso_update, lambda: pso_update(X, X[:2], X, np.zeros(4), *BOX, R),
             ValueError, ("V", "shape"), ""),
    BadInput(boundary, lambda: boundary("bounce", X, X, *BOX, R), ValueError, ("method", "reflect"), ""),
    BadInput(select, lambda: select("greedy", X, np.zeros(4), X, np.zeros(4), "rng"), TypeError,
             ("rng", "Generator"), ""),
    BadInput(niche, lambda: niche("ranking", X, np.zeros(4), 5, R), ValueError, ("k", "population"), ""),
    BadInput(reduced_size, lambda: reduced_size("linear", 4, 10, 0.5), ValueError, ("n_min", "n0"), ""),
    BadInput(SepCMAState, lambda: SepCMAState.start(np.zeros(2), -1.0), ValueError, ("sigma", "> 0"), ""),
    # grammar
    BadInput(validate, lambda: validate(("init.lhs", "de.rand1")),
             InvalidWorkflowError, ("rule R2",), "rule"),
    BadInput(validate, lambda: validate("init.lhs"), TypeError, ("workflow", "sequence"), "str"),
    BadInput(allowed_next, lambda: allowed_next(("pop.20",)), InvalidWorkflowError, ("rule R1",), ""),
    BadInput(decode_action, lambda: decode_action("bc.clip", [0.5]),
             ValueError, ("module", "CONTROLLABLE"), ""),
    BadInput(default_hyperparameters, lambda: default_hyperparameters(("init.lhs",)), InvalidWorkflowError,
             ("rule R11",), ""),
    BadInput(family_of, lambda: family_of(3), TypeError, ("workflow", "sequence"), ""),
    # modular
    BadInput(ModularOptimizer, lambda: ModularOptimizer(("init.uniform", "pop.20", "de.rand1", "bc.clip",
                                                         "sel.greedy")), InvalidWorkflowError,
             ("rule R5", "cx.binomial"), "invalid-workflow"),
    BadInput(ModularOptimizer, lambda: ModularOptimizer(DE, {"cx.binomial": {"Cr": -1}}), ValueError,
             ("Cr", "[0.0, 1.0]"), "hyperparameter-range"),
    BadInput(ModularOptimizer, lambda: ModularOptimizer(DE, [1]), TypeError, ("hyperparameters", "mapping"),
             "hyperparameters-type"),
    BadInput(WorkflowPlan, lambda: WorkflowPlan.parse(("init.lhs", "pop.20", "end", "de.rand1")),
             InvalidWorkflowError, ("rule R11", "end"), ""),
    BadInput(run_workflow, lambda: run_workflow(WorkflowPlan.parse(DE), PROB, R, {}), TypeError,
             ("ev", "Evaluator"), ""),
    # features
    BadInput(sample_size, lambda: sample_size(0, 10), ValueError, ("dim", "positive"), ""),
    BadInput(ela_features, lambda: ela_features(np.zeros((5, 2)), np.zeros(4), *BOX), ValueError,
             ("y", "shape"), ""),
    BadInput(problem_features, lambda: problem_features(PROB, R), TypeError, ("ev", "Evaluator"), ""),
    # agents
    BadInput(WorkflowGenerator, lambda: WorkflowGenerator(hidden=30, heads=4), ValueError,
             ("hidden", "divisible"), ""),
    BadInput(HyperparameterController, lambda: HyperparameterController(layers=0), ValueError,
             ("layers", "positive"), ""),
    BadInput(cosine_positions, lambda: cosine_positions(3, 5), ValueError, ("hidden", "even"), ""),
    # designx
    BadInput(DesignX, lambda: DesignX(checkpoint="/nonexistent.pt"),
             ValueError, ("checkpoint", "existing"), ""),
    BadInput(DesignX, lambda: DesignX(stochastic=1), TypeError, ("stochastic", "bool"), "stochastic"),
    BadInput(load_agents, lambda: load_agents("/nonexistent.pt"),
             FileNotFoundError, ("checkpoint", "train"), ""),
    BadInput(run_episode, lambda: run_episode(PROB, None, None, R), TypeError,
             ("agent1", "WorkflowGenerator"), ""),
    BadInput(save_agents, lambda: save_agents("/tmp/never.pt", WorkflowGenerator(), None), TypeError,
             ("agent2", "HyperparameterController"), ""),
    BadInput(log_regret_rewards, lambda: log_regret_rewards(None, 0.0),
             TypeError, ("episode", "Episode"), ""),
    # baselines
    BadInput(ScipyDE, lambda: ScipyDE(strategy="best3bin"), ValueError, ("strategy", "rand1bin"), ""),
    BadInput(ScipyDE, lambda: ScipyDE(mutation=(1.0, 0.5)), ValueError, ("mutation", "lo <= hi"), "mutation"),
    # scipy's range is [0, 2): 2 is refused here, naming the argument, not inside scipy's solver
    BadInput(ScipyDE, lambda: ScipyDE(mutation=2.0), ValueError, ("mutation", "[0, 2)"), "mutation_two"),
    BadInput(CMAES, lambda: CMAES(sigma0=0.0), ValueError, ("sigma0", "> 0"), ""),
    BadInput(PSO, lambda: PSO(w=1.5), ValueError, ("w", "[0.2, 1.0]"), ""),
    BadInput(RandomSearch, lambda: RandomSearch(batch=0), ValueError, ("batch", "positive"), ""),
    BadInput(train.train, lambda: train.train(0, 0, "/tmp/never"), ValueError, ("minutes", "> 0"), ""),
]

EXEMPT = {
    "InvalidWorkflowError": "the exception class the validators raise (its message is tested above)",
    "BlackBoxStats": "a plain record of counters filled by the family's solves",
    "RunResult": "a plain record returned by run_workflow",
    "Episode": "a plain record returned by run_episode",
    "main": "the training CLI: argparse rejects bad options (parser.error names the option)",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input(case):
    check_bad_input(case)


def test_every_callable_covered():
    modules = [problem, components, grammar, modular, features, agents, designx, baselines, train]
    assert_every_callable_covered(modules, CASES, EXEMPT)


def test_nonfinite_objective_is_handled_as_worst_and_counted():
    def f(x):
        return math.nan if x[0] < 0 else float(x @ x)
    prob = BlackBoxProblem(f, BOX, 300)
    from algorithms import solve

    sol = solve(prob, ModularOptimizer(DE), seed=0)
    assert sol.stats.nonfinite > 0 and math.isfinite(sol.value) and sol.x[0] >= 0


def test_cli_rejects_nonpositive_minutes():
    with pytest.raises(SystemExit):
        train.main(["--minutes", "0"])


_ = torch


def test_cmaes_popsize_below_pycmas_minimum():
    # held-out audit (issue #43): pycma's recombination needs >= 2 weights; popsize 1 is named here
    check_bad_input(BadInput(CMAES, lambda: CMAES(popsize=1), ValueError, ("popsize", ">= 2", "1"), "p1"))
    assert CMAES(popsize=2).popsize == 2


def test_round2_scipy_de_and_grammar_name_the_culprit():
    # issue #43 round 2: scipy rewrapped the evaluator's TypeError as its "map-like callable" RuntimeError;
    # allowed_next named "workflow" for its argument prefix; CMA-ES could not run a 1-D problem
    from algorithms import solve
    from algorithms.blackbox import BlackBoxProblem

    def de(f):
        problem = BlackBoxProblem(f, ([-1.0, -1.0], [1.0, 1.0]), budget=20)
        return solve(problem, baselines.ScipyDE(popsize=3), seed=0)

    for case in (
        BadInput(baselines.ScipyDE, lambda: de(lambda x: "f"), TypeError, ("f",), "str"),
        BadInput(baselines.ScipyDE, lambda: de(lambda x: x), TypeError, ("f",), "vector"),
        BadInput(grammar.allowed_next, lambda: grammar.allowed_next("abc"), TypeError, ("prefix",), "str"),
        BadInput(grammar.allowed_next, lambda: grammar.allowed_next([1, 2]), TypeError, ("prefix",), "ints"),
    ):
        check_bad_input(case)
    one_d = BlackBoxProblem(lambda x: float((x[0] - 0.25) ** 2), ([0.0], [1.0]), budget=200)
    assert abs(float(np.squeeze(solve(one_d, baselines.CMAES(), seed=0).x)) - 0.25) < 1e-2


ES_WORKFLOW = ("init.sobol", "pop.cma", "es.sep_cmaes", "bc.reflect", "sel.mu_plus_lambda")
ALL_SOLVERS = (ScipyDE(), CMAES(), PSO(), RandomSearch(batch=100), DesignX(), ModularOptimizer(ES_WORKFLOW))


@pytest.mark.parametrize("algorithm", ALL_SOLVERS, ids=lambda a: type(a).__name__)
@pytest.mark.parametrize("budget, target", [(1, None), (5, None), (30, None), (400, 10.0)],
                         ids=["budget1", "below_one_population", "cut_generation", "target_in_first_batch"])
def test_every_solver_calls_the_callback_on_a_short_run(algorithm, budget, target):
    # #43 rounds 3-4: a budget below one population (or a target the first batch reaches) ended the run
    # before the callback ever ran (RandomSearch in round 3; ScipyDE, CMAES, PSO, DesignX and
    # ModularOptimizer in round 4). Each evaluated batch is now a record the callback sees, numbered
    # like the trace (1..stats.iterations) and covering every evaluation.
    from algorithms import solve

    calls = []
    problem_ = BlackBoxProblem(lambda x: float(x @ x), (-np.ones(3), np.ones(3)), budget, target=target)
    sol = solve(problem_, algorithm, seed=0, store_trace=True,
                callback=lambda *args, **kwargs: calls.append((args, kwargs)))
    assert calls, "the callback was never called"
    assert all(len(args) == 1 and not kwargs and isinstance(args[0], dict) for args, kwargs in calls)
    records = [args[0] for args, _ in calls]
    assert records == sol.trace
    assert [r["iteration"] for r in records] == list(range(1, sol.stats.iterations + 1))
    assert records[-1]["evaluations"] == sol.stats.f_calls
    assert sol.retcode is (RetCode.Success if target is not None else RetCode.MaxIters)

    def boom(record):
        raise RuntimeError("callback ran")

    # the callback's own exception is named (#43 round 13) and kept as the cause
    with pytest.raises(ValueError, match=r"^callback\(record\) raised RuntimeError: callback ran") as info:
        solve(problem_, algorithm, seed=0, callback=boom)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_a_callback_stop_keeps_its_record_in_the_trace():
    # the record the callback stopped on is the trace's last, so trace and stats.iterations agree
    from algorithms import solve

    problem_ = BlackBoxProblem(lambda x: float(x @ x), (-np.ones(3), np.ones(3)), 3000)
    for algorithm in (PSO(), ALL_SOLVERS[-1]):
        sol = solve(problem_, algorithm, seed=0, store_trace=True, callback=lambda r: r["iteration"] >= 2)
        assert sol.retcode is RetCode.Terminated
        assert [r["iteration"] for r in sol.trace] == [1, 2] and sol.stats.iterations == 2


def test_allowed_next_names_prefix_for_an_unknown_module():
    # #43 round 3 (C6): the rule's message now says which argument holds the unknown name
    with pytest.raises(InvalidWorkflowError, match=r"^prefix: .*'nonexistent_module'") as info:
        allowed_next(("nonexistent_module",))
    assert info.value.rule == "R11"


def test_complex_values_refused_by_name():
    # #43 round 4: np.asarray(x, dtype=float) dropped the imaginary part with only a ComplexWarning
    from algorithms import solve
    from algorithms.blackbox.grammar import decode_action

    box = (-np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match=r"^f\(X\) must be real, got complex"):
        solve(BlackBoxProblem(lambda X: X.sum(1) + 1j, box, 50, vectorized=True), RandomSearch())
    for value in (np.complex128(1 + 1j), np.array([1 + 1j])):
        with pytest.raises(TypeError, match=r"^f\(x\) must return a real number, got .*1\.?\+1\.?j"):
            solve(BlackBoxProblem(lambda x, v=value: v, box, 50), ScipyDE())
    with pytest.raises(TypeError, match=r"^action must be real"):
        decode_action("cx.binomial", np.array([0.25 + 1j, 0, 0]))


def test_agents_refuse_complex_inputs_by_name():
    # #43 round 4: torch.as_tensor(complex tensor, dtype=float32) drops the imaginary part silently
    agent1, agent2 = WorkflowGenerator(), HyperparameterController()
    with pytest.raises(TypeError, match=r"^features must be real, got complex"):
        agent1.sample(torch.zeros(20, dtype=torch.complex64))
    with pytest.raises(TypeError, match=r"^obs must be real, got complex"):
        agent2(("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"),
               torch.zeros(1, 9, dtype=torch.complex64))


# Round 7 (pre-audit sweep, #43): an optimum above a value the evaluator sees is not the minimum. Before, the
# normalized regret clipped to 0 and a target set from it was reached at once (a false Success).
@pytest.mark.parametrize("algorithm", [RandomSearch(), PSO(), CMAES(), ScipyDE(), ModularOptimizer(DE)],
                         ids=lambda a: type(a).__name__)
def test_round7_optimum_above_an_evaluated_value_is_refused(algorithm):
    wrong = BlackBoxProblem(lambda x: float(x @ x), BOX, 200, optimum=1.0, target=1.0)
    with pytest.raises(ValueError, match=r"^optimum = 1\.0 is above f\(x\) = .* optimum must be the minimum"):
        solve(wrong, algorithm, seed=0)
    right = BlackBoxProblem(lambda x: float(x @ x), BOX, 200, optimum=0.0, target=0.5)
    assert solve(right, algorithm, seed=0).retcode.name == "Success"


# Round 7 (pre-audit sweep, #43): public functions' other arguments, user callables (controller), state
# dicts, pickling, the global RNG.
_PLAN = WorkflowPlan.parse(("init.sobol", "pop.20", "pso.inertia", "bc.reflect", "sel.greedy"))


def _run(**kw):
    return run_workflow(_PLAN, Evaluator(PROB), np.random.default_rng(0), kw.pop("hp", {}), **kw)


def _nan_state():
    gen = WorkflowGenerator()
    state = gen.state_dict()
    key = next(iter(state))
    state[key] = torch.full_like(state[key], math.nan)
    WorkflowGenerator().load_state_dict(state)


ROUND7 = [
    BadInput(run_workflow, lambda: _run(hp={"pso.inertia": {"w": math.nan}}), ValueError,
             ("hyperparameters", "w"), "hp-nan"),
    BadInput(run_workflow, lambda: _run(hp=[1]), TypeError, ("hyperparameters",), "hp-list"),
    BadInput(run_workflow, lambda: _run(maxiters=-1), ValueError, ("maxiters",), "maxiters-neg"),
    BadInput(run_workflow, lambda: _run(maxiters="5"), TypeError, ("maxiters",), "maxiters-str"),
    BadInput(run_workflow, lambda: _run(controller=3), TypeError, ("controller", "callable"),
             "controller-int"),
    BadInput(run_workflow, lambda: _run(controller=lambda obs: "x"), TypeError, ("controller(obs)",),
             "controller-str"),
    BadInput(run_workflow, lambda: _run(controller=lambda obs: {"pso.inertia": {"w": 5.0}}), ValueError,
             ("controller(obs)", "w"), "controller-range"),
    BadInput(run_workflow, lambda: _run(controller=lambda obs: {"foo": {"w": 0.5}}), ValueError,
             ("controller(obs)", "foo"), "controller-module"),
    BadInput(run_workflow, lambda: _run(monitor="m"), TypeError, ("monitor",), "monitor-str"),
    BadInput(run_episode, lambda: run_episode(PROB, *load_agents(), np.random.default_rng(0), maxiters=-1),
             ValueError, ("maxiters",), "maxiters-neg"),
    BadInput(WorkflowPlan, lambda: WorkflowPlan(("a",), "x", "y", "z", None, None, None, None, "b", "s", None,
                                                None), ValueError, ("workflow",), "direct-garbage"),
    BadInput(WorkflowPlan.size, lambda: _PLAN.size(0, 10), ValueError, ("dim",), "size-dim"),
    BadInput(WorkflowPlan.size, lambda: _PLAN.size(2, 0), ValueError, ("budget",), "size-budget"),
    BadInput(WorkflowGenerator.logits, lambda: WorkflowGenerator().logits(torch.zeros(5), ()), ValueError,
             ("features",), "logits-len"),
    BadInput(WorkflowGenerator.logits, lambda: WorkflowGenerator().logits(torch.zeros(13), ("foo",)),
             ValueError, ("prefix", "foo"), "logits-prefix"),
    BadInput(WorkflowGenerator.load_state_dict, _nan_state, ValueError, ("state_dict", "NaN"), "nan"),
    BadInput(InvalidWorkflowError, lambda: InvalidWorkflowError(3, "m"), ValueError, ("rule",), "rule"),
    BadInput(load_agents, lambda: load_agents(3), TypeError, ("checkpoint",), "int"),
    BadInput(load_agents, lambda: load_agents(__file__), ValueError, ("checkpoint", "not a DesignX"),
             "not-a-checkpoint"),
    BadInput(DesignX, lambda: DesignX(checkpoint=__file__), ValueError, ("checkpoint",), "not-a-checkpoint"),
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 2, 10, target_precision=True), TypeError,
             ("target_precision",), "bool"),
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 2, 10, target_precision=math.inf), ValueError,
             ("target_precision",), "inf"),
    BadInput(ScipyDE, lambda: ScipyDE(init=np.zeros((5, 2))), ValueError, ("init",), "array"),
    BadInput(PSO, lambda: PSO(swarm=2**40), ValueError, ("swarm",), "huge"),
    BadInput(RandomSearch, lambda: RandomSearch(batch=2**40), ValueError, ("batch",), "huge"),
    BadInput(problem_features, lambda: problem_features(Evaluator(PROB), np.random.default_rng(0), 2**63),
             ValueError, ("n",), "n-huge"),
    BadInput(Evaluator.__call__, lambda: Evaluator(BlackBoxProblem(lambda x: torch.tensor(True), BOX, 5))(X),
             TypeError, ("f(x)",), "f-torch-bool"),
]


@pytest.mark.parametrize("case", ROUND7, ids=lambda c: c.id)
def test_round7_bad_input(case):
    check_bad_input(case)


def test_round7_valid_edges_pickle_and_global_rng():
    import pickle

    # hyperparameters None (the documented defaults), numpy ints, a hashable optimizer, a picklable BBOB
    assert _run(hp=None).stop == "budget"
    assert _run(control_interval=np.int64(2)).stop == "budget"
    assert hash(ModularOptimizer(DE, {"de.rand1": {"F1": 0.5}})) == hash(ModularOptimizer(DE))
    bbob = bbob_problem(1, 1, 2, 40)
    back = pickle.loads(pickle.dumps(bbob))
    np.testing.assert_array_equal(back.f(np.zeros((1, 2))), bbob.f(np.zeros((1, 2))))
    sol = pickle.loads(pickle.dumps(solve(bbob, RandomSearch(), seed=0)))
    assert np.isfinite(sol.value)
    # pycma seeds numpy's global generator and building the agents draws torch's: both left as they were
    state, torch_state = np.random.get_state()[1].copy(), torch.random.get_rng_state().clone()  # noqa: NPY002
    solve(PROB, CMAES(), seed=1)
    import algorithms.blackbox.designx as dx
    dx._load.cache_clear()
    solve(PROB, DesignX(), seed=1)
    assert np.array_equal(state, np.random.get_state()[1])  # noqa: NPY002
    assert torch.equal(torch_state, torch.random.get_rng_state())


def test_round7_cmaes_is_thread_safe():
    import threading

    out = {}

    def run(i):
        out[i] = solve(PROB, CMAES(), seed=1).x

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(out[0], out[1])   # pycma's global-generator draws no longer interleave


# Round 7 (pre-audit sweep, #43): the modular space's operators and helpers (module __all__s): NaN and
# out-of-range parameters, boxes, and the designer's save/reward helpers.
_RNG = np.random.default_rng
_LO, _HI = -np.ones(2), np.ones(2)
_X6 = np.random.default_rng(1).uniform(-1, 1, (6, 2))
_Y6 = np.arange(6.0)
ROUND7_OPERATORS = [
    BadInput(initialize, lambda: initialize("uniform", 3, np.array([math.nan, 0.0]), _HI, _RNG(0)),
             ValueError, ("lower", "finite"), "lower-nan"),
    BadInput(initialize, lambda: initialize("lhs", 3, _HI, _LO, _RNG(0)), ValueError, ("lower", "upper"),
             "swapped"),
    BadInput(initialize, lambda: initialize("sobol", 2**40, _LO, _HI, _RNG(0)), ValueError, ("n",), "huge"),
    BadInput(de_mutation, lambda: de_mutation("rand1", _X6, _Y6, _RNG(0), F1=math.nan), ValueError, ("F1",),
             "F1-nan"),
    BadInput(de_mutation, lambda: de_mutation("current_to_pbest1", _X6, _Y6, _RNG(0), p=2.0), ValueError,
             ("p",), "p-2"),
    BadInput(de_mutation, lambda: de_mutation("rand1", _X6, np.full(6, math.nan), _RNG(0)), ValueError,
             ("y", "NaN"), "y-nan"),
    BadInput(pso_update, lambda: pso_update(_X6, 0 * _X6, _X6, np.full(6, math.nan), _LO, _HI, _RNG(0)),
             ValueError, ("yP", "NaN"), "yP-nan"),
    BadInput(pso_update, lambda: pso_update(_X6, 0 * _X6, _X6, _Y6, _LO, _HI, _RNG(0), w=math.nan),
             ValueError, ("w",), "w-nan"),
    BadInput(boundary, lambda: boundary("clip", np.full((6, 2), math.nan), _X6, _LO, _HI, _RNG(0)),
             ValueError, ("U", "NaN"), "U-nan"),
    BadInput(ga_mutation, lambda: ga_mutation("gaussian", _X6, _LO, _HI, _RNG(0), sigma=-1.0),
             ValueError, ("sigma",), "sigma-neg"),
    BadInput(reduced_size, lambda: reduced_size("linear", 20, 4, math.nan), ValueError, ("used_fraction",),
             "nan"),
    BadInput(SepCMAState.update, lambda: SepCMAState.start(np.zeros(2), 1.0).update(np.zeros((6, 3)), _Y6),
             ValueError, ("X", "columns"), "cols"),
    BadInput(SepCMAState.start, lambda: SepCMAState.start(np.array([math.nan, 0.0]), 1.0), ValueError,
             ("m", "NaN"), "m-nan"),
    BadInput(decode_action, lambda: decode_action("cx.binomial", [math.nan, 0, 0]), ValueError,
             ("action", "NaN"), "nan"),
    BadInput(family_of, lambda: family_of(("foo",)), ValueError, ("prefix", "foo"), "unknown"),
    BadInput(ela_features, lambda: ela_features(np.full((6, 2), math.nan), _Y6, _LO, _HI), ValueError,
             ("X", "finite"), "X-nan"),
    BadInput(save_agents, lambda: save_agents(3, *load_agents()), TypeError, ("path",), "int"),
    BadInput(save_agents, lambda: save_agents("/nonexistent-dir-never/x.pt", *load_agents(),
                                              meta={"a": {1}}), ValueError, ("meta", "JSON"), "meta-set"),
    BadInput(log_regret_rewards, lambda: log_regret_rewards(
        run_episode(PROB, *load_agents(), np.random.default_rng(0)), math.nan), ValueError, ("optimum",),
             "nan"),
    BadInput(log_regret_rewards, lambda: log_regret_rewards(
        Episode((), torch.zeros(()), torch.zeros(()), best_after=[0.5], start_best=1.0), 10.0), ValueError,
             ("optimum", "above"), "above-best"),
]


@pytest.mark.parametrize("case", ROUND7_OPERATORS, ids=lambda c: c.id)
def test_round7_operator_bad_input(case):
    check_bad_input(case)


def test_round7_run_result_checks_its_fields():
    from algorithms.blackbox.modular import RunResult

    with pytest.raises(ValueError, match=r"^stop must be one of"):
        RunResult("done", 1, 0, [], np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"^generations must be an int >= 0"):
        RunResult("budget", -1, 0, [], np.zeros((1, 2)))


def test_phase2_numpy_bool_arity_and_a_2_by_d_bounds_array():
    # heldout7 A, B, G: vectorized=np.False_ was refused ("must be a bool, got bool_"), f of the wrong arity
    # reached Python's message at the first evaluation, a (2, d) array of the rows lower, upper was refused
    assert BlackBoxProblem(lambda x: 0.0, BOX, 5, vectorized=np.False_).vectorized is False
    with pytest.raises(TypeError, match=r"^f must take 1 positional argument\(s\)"):
        BlackBoxProblem(lambda: 0.0, BOX, 5)
    with pytest.raises(TypeError, match=r"^controller must take 1 positional argument\(s\)"):
        _run(controller=lambda: None)
    p = BlackBoxProblem(lambda x: float(x @ x), np.array([[-1.0, -2.0], [1.0, 2.0]]), 5)
    assert p.lower.tolist() == [-1.0, -2.0] and p.upper.tolist() == [1.0, 2.0]


# --- issue #43 round 8 (pre-audit sweep) -------------------------------------------------------------------
_W = ("init.sobol", "pop.20", "pso.inertia", "bc.reflect", "sel.greedy")
_WG, _HC = WorkflowGenerator, HyperparameterController
_META = {"device": "meta"}
ROUND8 = [
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, ([-1e308, 0.0], [1e308, 1.0]), 5),
             ValueError, ("bounds", "working range"), "width-overflows"),
    BadInput(CMAES, lambda: CMAES(sigma0=1e300), ValueError, ("sigma0",), "sigma0-huge"),
    # a bool among numbers in a list: numpy made it a float array, True a 1 (shared as_real_array)
    BadInput(decode_action, lambda: decode_action("pso.inertia", [True, 0.5, 0.5]), TypeError, ("action",),
             "bool-in-list"),
    # heldout8 phase 2 (G): -inf lies below every optimum; it was clipped to a regret of 0
    BadInput(normalized_regret, lambda: normalized_regret(-math.inf, BlackBoxProblem(
        lambda x: 0.0, BOX, 5, optimum=0.0, f_ref=2.0)), ValueError, ("value",), "minus-inf"),
    BadInput(WorkflowGenerator, lambda: WorkflowGenerator(seed=-1), ValueError, ("seed",), "seed-negative"),
    BadInput(HyperparameterController, lambda: HyperparameterController(seed="0"), TypeError, ("seed",),
             "seed-str"),
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, BOX, 5, optimum=np.complex128(1.0)),
             ValueError, ("optimum",), "numpy-complex"),
    BadInput(normalized_regret, lambda: normalized_regret(np.complex128(1.0), BlackBoxProblem(
        lambda x: 0.0, BOX, 5, optimum=0.0, f_ref=2.0)), TypeError, ("value",), "numpy-complex"),
    BadInput(ModularOptimizer, lambda: ModularOptimizer(DE, {"de.rand1": {"F1": np.complex128(0.5)}}),
             ValueError, ("hyperparameters",), "numpy-complex"),
    BadInput(_WG.sample, lambda: _WG().sample(torch.zeros(13, **_META)), ValueError, ("features", "meta"),
             "meta"),
    BadInput(_HC.forward, lambda: _HC()(_W, torch.zeros(1, 9, **_META)), ValueError, ("obs", "meta"), "meta"),
    BadInput(_WG.load_state_dict, lambda: _WG().load_state_dict(_WG().state_dict(), strict="no"), TypeError,
             ("strict",), "strict-str"),
    BadInput(_HC.load_state_dict, lambda: _HC().load_state_dict(_HC().state_dict(), assign="no"), TypeError,
             ("assign",), "assign-str"),
    BadInput(_WG.load_state_dict,
             lambda: _WG().load_state_dict({**_WG().state_dict(), "bogus": torch.ones(1)}),
             ValueError, ("state_dict", "bogus"), "unexpected-key"),
    BadInput(_WG.load_state_dict,
             lambda: _WG().load_state_dict({**_WG().state_dict(), "feature.weight": torch.zeros(1)}),
             ValueError, ("state_dict", "feature.weight"), "shape"),
    BadInput(_HC.load_state_dict,
             lambda: _HC().load_state_dict({k: v.long() for k, v in _HC().state_dict().items()}),
             ValueError, ("state_dict", "floating"), "int-weights"),
]


@pytest.mark.parametrize("case", ROUND8, ids=lambda c: c.id)
def test_round8_bad_input(case):
    check_bad_input(case)


def test_round8_python_types_units_copies_and_torch_contexts():
    assert (type(PSO(w=np.float32(0.5)).w), type(PSO(swarm=np.int64(10)).swarm)) == (float, int)
    assert type(CMAES(sigma0=np.float32(0.5)).sigma0) is float
    assert type(RandomSearch(np.int64(5)).batch) is int
    de = ScipyDE(popsize=np.int64(5), mutation=[np.float32(0.5), 1.0], recombination=np.float64(0.5))
    assert de.mutation == (0.5, 1.0) and type(de.popsize) is int
    assert hash(de) == hash(ScipyDE(popsize=5, mutation=(0.5, 1), recombination=0.5))
    assert DesignX(stochastic=np.True_).stochastic is True
    p = BlackBoxProblem(lambda x: 0.0, BOX, 5, optimum=np.float32(0.5), f_ref=np.int64(2),
                        target=np.float64(1))
    assert (type(p.optimum), type(p.f_ref), type(p.target)) == (float, float, float)
    run = modular.RunResult("budget", 1, 0, [], np.zeros((2, 2)))   # identity ==: the generated one raised
    assert run == run and run != modular.RunResult("budget", 1, 0, [], np.zeros((2, 2)))

    # CMA-ES on the same problem in other units: the same answer, scaled (pycma's bound handling has absolute
    # constants; it now runs on the box mapped onto [-5, 5]^d, the identity for BBOB's box)
    def scaled(scale):
        box = ([-scale] * 2, [scale] * 2)
        p = BlackBoxProblem(lambda x, s=scale: float((x / s - 0.3) @ (x / s - 0.3)), box, 60)
        return solve(p, CMAES(), seed=0).x / scale

    np.testing.assert_allclose(scaled(1e-3), scaled(1.0), rtol=1e-6)
    np.testing.assert_allclose(scaled(1e7), scaled(1.0), rtol=1e-6)

    # an f that writes into its argument: every solver reports a point with the value it reports
    def f_writes(x):
        value = float((x - 0.3) @ (x - 0.3))
        x[0] = 0.123
        return value

    for alg in (RandomSearch(batch=7), CMAES(), PSO(), ScipyDE(popsize=3), ModularOptimizer(DE)):
        sol = solve(BlackBoxProblem(f_writes, (np.zeros(2), np.ones(2)), 30), alg, seed=0)
        assert sol.value == float((sol.x - 0.3) @ (sol.x - 0.3)), type(alg).__name__

    # seed: a private generator, torch's global one untouched; None: the global one, as torch's modules
    state = torch.get_rng_state()
    one, two = _WG(seed=np.int64(3)), _HC(seed=3)
    assert torch.equal(state, torch.get_rng_state())
    assert torch.equal(next(one.parameters()), next(_WG(seed=3).parameters()))
    assert torch.equal(next(two.parameters()), next(_HC(seed=3).parameters()))
    # float64 default dtype: the agents run in their parameters' dtype (torch's "mat1 and mat2" before)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        _WG().sample(torch.zeros(13))
        _HC()(_W, torch.zeros(2, 9))
    finally:
        torch.set_default_dtype(old)


def test_round8_load_agents_hands_out_copies_and_rereads_a_rewritten_checkpoint(tmp_path):
    # the cached agents served every DesignX solve: a caller editing the pair it got changed DesignX() for all
    prob = bbob_problem(1, 1, 2, 40)
    before = solve(prob, DesignX(), seed=0).x
    a1, a2 = load_agents()
    with torch.no_grad():
        for p in list(a1.parameters()) + list(a2.parameters()):
            p.add_(1.0)
    np.testing.assert_array_equal(solve(prob, DesignX(), seed=0).x, before)
    assert not torch.equal(next(load_agents()[0].parameters()), next(a1.parameters()))
    # a checkpoint rewritten at one path (training does) is read again, not served from the cache
    path = tmp_path / "agents.pt"
    save_agents(path, *load_agents())
    first = next(load_agents(path)[0].parameters()).clone()
    save_agents(path, a1, a2)
    assert not torch.equal(next(load_agents(path)[0].parameters()), first)


def test_round8_training_entry_points_and_episode_records(tmp_path):
    from algorithms.blackbox.train import main, train

    for kw, name in (({"minutes": math.inf}, "minutes"), ({"every": 0}, "every"),
                     ({"ppo_epochs": 0}, "ppo_epochs"), ({"lr": -1.0}, "lr"), ({"out": 3}, "out")):
        args = {"minutes": 0.001, "seed": 0, "out": tmp_path, **kw}
        with pytest.raises((ValueError, TypeError), match=rf"^{name} must"):
            train(args.pop("minutes"), args.pop("seed"), args.pop("out"), **args)
    with pytest.raises(TypeError, match=r"^argv must be a list of str"):
        main("--minutes 1")
    with pytest.raises(ValueError, match=r"^best_after must hold real numbers"):
        Episode((), torch.zeros(()), torch.zeros(()), best_after=[math.nan])


def test_round8_torch_tensors_from_users():
    # a tensor with requires_grad: numpy's "Can't call numpy() on Tensor that requires grad" named nothing
    assert Evaluator(PROB)(torch.zeros(1, 2, requires_grad=True)).tolist() == [0.0]
    with pytest.raises(ValueError, match=r"^X is on the meta device"):
        Evaluator(PROB)(torch.zeros(1, 2, device="meta"))
    loss = BlackBoxProblem(lambda x: torch.tensor(float(x @ x), requires_grad=True), BOX, 10)
    assert isinstance(solve(loss, RandomSearch(batch=5)).value, float)
    assert BlackBoxProblem(lambda x: 0.0, (torch.zeros(2, requires_grad=True), torch.ones(2)), 5).dim == 2
    # heldout8's class D: torch's "Inference tensors cannot be saved for backward"
    with torch.inference_mode():
        features = torch.zeros(13)
    assert WorkflowGenerator().logits(features, ()).shape == (len(grammar.TOKENS),)


def test_round8_frozen_problems_hold_read_only_arrays():
    lower = np.zeros(2)
    prob = BlackBoxProblem(lambda x: 0.0, (lower, np.ones(2)), 5)
    lower[0] = -9.0   # the caller's array: bounds showed the edit (lower/upper were copies)
    assert prob.bounds[0][0] == 0.0 and prob.lower[0] == 0.0
    for array in (prob.lower, prob.upper):
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0.0


# --- issue #43 round 9 (pre-audit sweep) -------------------------------------------------------------------
class _RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no data")


def _sphere_problem(budget=50):
    return BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), budget)


ROUND9 = [
    # class 1: subnormal scales, and huge sizes refused by name before anything is built
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 2, 100, target_precision=5e-324), ValueError,
             ("target_precision", "working range"), "precision-subnormal"),
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 10**9, 100), ValueError, ("dim", "too large"),
             "dim-past-memory"),
    BadInput(CMAES, lambda: CMAES(sigma0=5e-324), ValueError, ("sigma0", "working range"),
             "sigma0-subnormal"),
    BadInput(baselines._run_cmaes, lambda: solve(_sphere_problem(), CMAES(popsize=10**9), maxiters=1),
             ValueError, ("popsize", "too large"), "popsize-past-memory"),
    BadInput(ScipyDE, lambda: solve(_sphere_problem(), ScipyDE(popsize=10**9), maxiters=1), ValueError,
             ("popsize", "too large"), "popsize-past-memory"),
    BadInput(WorkflowGenerator, lambda: WorkflowGenerator(layers=10**9), ValueError, ("layers", "too large"),
             "layers-hang"),
    BadInput(HyperparameterController, lambda: HyperparameterController(layers=2**31 - 1), ValueError,
             ("layers", "too large"), "layers-hang"),
    BadInput(cosine_positions, lambda: cosine_positions(2**31, 4), ValueError, ("n", "too large"), "n-hang"),
    BadInput(SepCMAState.start, lambda: SepCMAState.start(np.zeros(2), 5e-324), ValueError,
             ("sigma", "working range"), "sigma-subnormal"),
    BadInput(SepCMAState.start, lambda: SepCMAState.start(np.zeros(2), 1e308), ValueError, ("sigma",),
             "sigma-huge"),
    BadInput(SepCMAState.start, lambda: SepCMAState.start([], 1.0), ValueError, ("m",), "empty-mean"),
    BadInput(partners, lambda: partners(10**9, np.zeros(6, dtype=int), _RNG(0)), ValueError,
             ("n_partners", "groups"), "partners-past-population"),
    # class 2/3: inf points, scales whose products overflow, negative labels and coefficients
    BadInput(de_mutation, lambda: de_mutation("rand1", np.vstack([_X6[:5], [np.inf, 0.0]]), _Y6, _RNG(0)),
             ValueError, ("X", "inf"), "inf-point"),
    BadInput(de_mutation, lambda: de_mutation("rand1", _X6, _Y6, _RNG(0), F1=3e38), ValueError,
             ("F1", "[0, 2]"), "f1-huge"),
    BadInput(ga_mutation, lambda: ga_mutation("gaussian", _X6, _LO, _HI, _RNG(0), sigma=1e308), ValueError,
             ("sigma", "overflows"), "sigma-overflows"),
    BadInput(pso_update, lambda: pso_update(_X6, np.zeros((6, 2)), _X6, _Y6, _LO, _HI, _RNG(0), c1=-1.0),
             ValueError, ("c1", ">= 0"), "c1-negative"),
    BadInput(partners, lambda: partners(2, np.array([-1, -1, -1, 0, 0, 0]), _RNG(0)), ValueError,
             ("groups", "non-negative"), "negative-labels"),
    # class 4: containers that reach internals
    BadInput(decode_action, lambda: decode_action(["cx.binomial"], [0.5]), ValueError, ("module",),
             "module-list"),
    BadInput(Evaluator.__call__, lambda: Evaluator(_sphere_problem())(_RaisingArray()), TypeError, ("X",),
             "raising-array"),
    BadInput(partners, lambda: partners(1, _RaisingArray(), _RNG(0)), TypeError, ("groups",),
             "raising-array"),
    BadInput(de_mutation, lambda: de_mutation("rand1", _X6, _Y6, _RNG(0), groups=torch.zeros(6, **_META)),
             ValueError, ("groups", "meta"), "meta-groups"),
    BadInput(WorkflowGenerator.sample, lambda: WorkflowGenerator().sample(torch.zeros(13), generator=_RNG(0)),
             TypeError, ("generator", "torch.Generator"), "numpy-generator"),
    BadInput(agents.initial_log_std_bias, lambda: agents.initial_log_std_bias(HyperparameterController(),
                                                                              math.nan),
             ValueError, ("value", "finite"), "nan"),
    # class 6: a state built by hand
    BadInput(SepCMAState, lambda: SepCMAState(np.zeros(2), -1.0, np.ones(2), np.zeros(2), np.zeros(2)),
             ValueError, ("sigma",), "negative-sigma"),
    BadInput(SepCMAState, lambda: SepCMAState(np.zeros(2), 0.5, np.ones(3), np.zeros(2), np.zeros(2)),
             ValueError, ("c", "shape"), "c-shape"),
    BadInput(SepCMAState, lambda: SepCMAState("abc", 0.5, np.ones(2), np.zeros(2), np.zeros(2)), TypeError,
             ("m",), "m-str"),
    BadInput(SepCMAState, lambda: SepCMAState(np.zeros(2), 0.5, np.ones(2), np.zeros(2), np.zeros(2), t=-1),
             ValueError, ("t",), "t-negative"),
    BadInput(Episode, lambda: Episode("init.lhs", torch.zeros(()), torch.zeros(())), TypeError, ("workflow",),
             "workflow-str"),
    BadInput(bbob_problem, lambda: bbob_problem(1, 1, 2, 10).f(np.zeros((1, 3))), ValueError,
             ("X", "dimension 2"), "f-short-point"),
    BadInput(Episode, lambda: Episode((), 0.0, torch.zeros(())), TypeError, ("logp1", "Tensor"),
             "logp1-float"),
    BadInput(Episode, lambda: Episode((), torch.zeros(()), torch.zeros(()), obs=()), TypeError,
             ("obs", "list"), "obs-tuple"),
]


@pytest.mark.parametrize("case", ROUND9, ids=lambda c: c.id)
def test_round9_bad_input(case):
    check_bad_input(case)


def test_round9_documented_edges_stay_valid():
    # boundary values the docstrings state as valid
    assert SepCMAState.start(np.zeros(2), 1e38).sigma == 1e38
    state = SepCMAState(np.zeros(2), 0.5, np.ones(2), np.zeros(2), np.zeros(2), np.int64(3))
    assert state.t == 3 and type(state.t) is int
    assert decode_action("cx.binomial", [math.inf]) == {"Cr": 1.0}   # clipped, as documented
    assert reduced_size("linear", 100, 4, 3.5) == 4 and reduced_size("linear", 100, 4, -1.0) == 100
    V = de_mutation("rand1", _X6, _Y6, _RNG(0), F1=2.0, F2=2.0)
    assert np.all(np.isfinite(V))
    _, Vn = pso_update(_X6, np.zeros((6, 2)), _X6, _Y6, _LO, _HI, _RNG(0), w=3e38, c1=0.0, c2=3e38)
    assert np.all(np.abs(Vn) <= 0.2 * 2 + 1e-12)   # any size: the velocity clamp bounds the move
    # a swarm or batch larger than the budget is cut to it; tol is accepted and not used
    assert solve(_sphere_problem(30), PSO(swarm=10**9), maxiters=1).stats.f_calls <= 30
    assert solve(_sphere_problem(30), RandomSearch(batch=10**9), tol=1e-3).stats.f_calls == 30


# --- issue #43 round 9, phase 2 (heldout9's first run: blackbox's case, swept by class) ---------------------
def _nan_agent():
    agent = WorkflowGenerator(hidden=8, seed=0)
    torch.nn.init.constant_(agent.head.weight, float("nan"))
    return agent


def _hc():
    return HyperparameterController()


ROUND9_PHASE2 = [
    # ints past float's range (10**400) met math's bare OverflowError
    BadInput(BlackBoxProblem, lambda: BlackBoxProblem(lambda x: 0.0, (_LO, _HI), 10, target=10**400),
             ValueError, ("target",), "target-int-past-float"),
    BadInput(agents.initial_log_std_bias, lambda: agents.initial_log_std_bias(_hc(), 10**400),
             ValueError, ("value",), "value-int-past-float"),
    # sparse tensors: torch's "can't convert Sparse layout tensor to numpy"
    BadInput(Evaluator.__call__, lambda: Evaluator(_sphere_problem())(torch.zeros(1, 2).to_sparse()),
             TypeError, ("X", "dense"), "sparse-X"),
    BadInput(WorkflowGenerator.sample, lambda: WorkflowGenerator().sample(torch.zeros(13).to_sparse()),
             TypeError, ("features", "dense"), "sparse-features"),
    # agents whose weights hold no data (torch.distributions' message; a float16 agent ran)
    BadInput(run_episode, lambda: run_episode(_sphere_problem(), _nan_agent(), _hc(), _RNG(0), maxiters=1),
             ValueError, ("agent1", "NaN"), "nan-agent"),
    BadInput(run_episode, lambda: run_episode(_sphere_problem(), WorkflowGenerator().half(), _hc(), _RNG(0),
                                              maxiters=1),
             TypeError, ("agent1", "float16"), "half-agent"),
    BadInput(save_agents, lambda: save_agents("/nonexistent/agents.pt", _nan_agent(), _hc()),
             ValueError, ("agent1", "NaN"), "nan-agent"),
]


@pytest.mark.parametrize("case", ROUND9_PHASE2, ids=lambda c: c.id)
def test_round9_phase2_bad_input(case):
    check_bad_input(case)


def test_round9_phase2_episode_stores_floats():
    episode = Episode((), torch.zeros(()), torch.zeros(()), start_best=10**400, best_after=[3])
    assert episode.start_best == math.inf and type(episode.best_after[0]) is float
    rewards = log_regret_rewards(episode, 0.0)   # math.isfinite(10**400) raised OverflowError here
    assert rewards.shape == (1,) and np.all(np.isfinite(rewards))


def _sphere(x):
    return float(x @ x)


ROUND10 = [
    # a masked array with masked entries: np.asarray dropped the mask and the masked rows were evaluated
    BadInput(Evaluator, lambda: Evaluator(BlackBoxProblem(_sphere, ([0.0], [1.0]), 5))(
        np.ma.masked_array(np.zeros((3, 1)), mask=[[True], [False], [False]])), ValueError,
             ("X", "masked"), "x-masked"),
    # logits' fast path ran torch.isfinite on a meta/sparse tensor; a bfloat16 one met numpy's conversion
    BadInput(WorkflowGenerator.logits, lambda: WorkflowGenerator(hidden=8, seed=0).logits(
        torch.zeros(13, device="meta"), ()), ValueError, ("features", "meta"), "features-meta"),
    BadInput(WorkflowGenerator.logits, lambda: WorkflowGenerator(hidden=8, seed=0).logits(
        torch.zeros(13).to_sparse(), ()), TypeError, ("features", "dense"), "features-sparse"),
    BadInput(WorkflowGenerator.sample, lambda: WorkflowGenerator(hidden=8, seed=0).sample(
        torch.zeros(13, dtype=torch.bfloat16)), TypeError, ("features", "bfloat16"), "features-bf16"),
]


@pytest.mark.parametrize("case", ROUND10, ids=lambda c: c.id)
def test_round10_bad_input(case):
    check_bad_input(case)


def _evaluator_with(name, value):
    ev = Evaluator(BlackBoxProblem(_sphere, ([0.0], [1.0]), 5))
    setattr(ev, name, value)
    return ev


ROUND10_STATE = [
    # the Evaluator's counters set by hand: a float budget count, a None best value, a foreign problem
    BadInput(Evaluator, lambda: _evaluator_with("evaluations", 1.5), TypeError, ("evaluations", "int"),
             "evaluations-float"),
    BadInput(Evaluator, lambda: _evaluator_with("best_value", None), TypeError, ("best_value",),
             "best-value-none"),
    BadInput(Evaluator, lambda: _evaluator_with("problem", 3), TypeError, ("problem", "BlackBoxProblem"),
             "problem-int"),
    BadInput(Evaluator, lambda: _evaluator_with("history", None), TypeError, ("history", "list"),
             "history-none"),
]


@pytest.mark.parametrize("case", ROUND10_STATE, ids=lambda c: c.id)
def test_round10_state_bad_input(case):
    check_bad_input(case)


ROUND10_RECORDS = [
    # masked labels (np.asarray dropped the mask), a sample outside its box (numpy's LinAlgError in the
    # SVD), a directory as the checkpoint path (torch's "Is a directory"), a hand-built result's population
    BadInput(partners, lambda: partners(3, np.ma.masked_array(np.zeros(6, dtype=int), mask=[1] + [0] * 5),
                                        np.random.default_rng(0)), ValueError, ("groups", "masked"),
             "groups-masked"),
    BadInput(ela_features, lambda: ela_features(np.full((60, 2), 3e38), np.zeros(60), np.zeros(2),
                                                np.ones(2)), ValueError, ("X", "box"), "x-outside-box"),
    BadInput(save_agents, lambda: save_agents("/tmp", *load_agents()), ValueError, ("path", "directory"),
             "path-directory"),
    BadInput(modular.RunResult, lambda: modular.RunResult("budget", 1, 0, [], np.full((2, 2), np.nan)),
             ValueError, ("last_X", "finite"), "last-x-nan"),
]


@pytest.mark.parametrize("case", ROUND10_RECORDS, ids=lambda c: c.id)
def test_round10_records_bad_input(case):
    check_bad_input(case)


def test_round10_f_returning_an_int_past_float_range_diverges():
    # 10**400 raised a bare OverflowError in returned_scalar; it is +inf now, a non-finite value: Diverged
    problem = BlackBoxProblem(lambda x: 10**400, (-np.ones(2), np.ones(2)), 40)
    sol = solve(problem, RandomSearch(batch=10), seed=0)
    assert sol.retcode is RetCode.Diverged


def test_round10_training_minutes_capped():
    # 1e300 minutes is finite and trained for ever (a hang); a week is the documented cap (1e300 is past
    # the working range now, 1e30 inside it)
    with pytest.raises(ValueError, match=r"^minutes must be <= MAX_MINUTES = 10080"):
        train.train(1e30, 0, "/tmp/never-written")
    with pytest.raises(ValueError, match=r"^minutes = 1e\+300 is outside the package's working range"):
        train.train(1e300, 0, "/tmp/never-written")


def test_round10_keep_grad_inside_inference_mode():
    # keep_grad=True under torch.inference_mode(): the log-probability came back without a graph, in silence
    a1, a2 = load_agents()
    with torch.inference_mode():
        episode = run_episode(bbob_problem(1, 1, 2, 100), a1, a2, np.random.default_rng(0), keep_grad=True)
    assert episode.logp1.requires_grad


def _replaced(obj, name, value):
    """``obj`` with the field ``name`` replaced behind the frozen dataclass's back."""
    object.__setattr__(obj, name, value)
    return obj


def _bb(**override):
    kwargs = {"f": lambda x: float(x @ x), "bounds": (-np.ones(2), np.ones(2)), "budget": 50}
    kwargs.update(override)
    return BlackBoxProblem(**kwargs)


def _set(obj, name, value):
    setattr(obj, name, value)
    return obj


PSO_FLOW = ("init.sobol", "pop.20", "pso.inertia", "bc.reflect", "sel.greedy")

ROUND11 = [
    # a field replaced with object.__setattr__ after construction: a budget of -5 ran to Diverged, a lower
    # bound above upper met numpy's "high - low < 0", ScipyDE/CMAES ran on popsize 0 / sigma0 -1
    BadInput(solve, lambda: solve(_replaced(_bb(), "budget", -5), RandomSearch(), seed=0), ValueError,
             ("budget", "after construction"), "frozen-problem-budget"),
    BadInput(Evaluator, lambda: Evaluator(_replaced(_bb(), "lower", np.full(2, 5.0))), ValueError,
             ("lower", "after construction"), "frozen-problem-evaluator"),
    BadInput(Evaluator, lambda: Evaluator(_replaced(_bb(), "bounds", (np.ones(2), -np.ones(2)))), ValueError,
             ("bounds", "after construction", "lower < upper"), "frozen-problem-bounds"),
    BadInput(solve, lambda: solve(_bb(), _replaced(ScipyDE(), "popsize", 0), seed=0), ValueError,
             ("popsize", "after construction"), "frozen-scipyde"),
    BadInput(solve, lambda: solve(_bb(), _replaced(CMAES(), "sigma0", -1.0), seed=0), ValueError,
             ("sigma0", "after construction"), "frozen-cmaes"),
    BadInput(run_workflow, lambda: run_workflow(_replaced(WorkflowPlan.parse(PSO_FLOW), "family", "de"),
                                                Evaluator(_bb()), np.random.default_rng(0), {}), ValueError,
             ("family", "after construction"), "frozen-plan"),
    # the Evaluator's counts stay consistent when set
    BadInput(Evaluator, lambda: _set(Evaluator(_bb()), "evaluations", 1000), ValueError,
             ("evaluations", "budget"), "evaluations-past-budget"),
    BadInput(Evaluator, lambda: _set(Evaluator(_bb()), "history", [("a",)]), TypeError, ("history",),
             "history-entries"),
    BadInput(Evaluator, lambda: _set(Evaluator(_bb()), "best_value", -5.0), ValueError,
             ("best_value", "best_x"), "best-value-without-point"),
    # a vectorized f's (1, n) row was flattened into n values
    BadInput(Evaluator, lambda: Evaluator(_bb(f=lambda X: X.sum(1)[None], vectorized=True))(np.zeros((2, 2))),
             ValueError, ("vectorized f", "shape"), "vectorized-row"),
    # a prefix that holds 'end' met a bare KeyError; an object with a family attribute passed as a plan
    BadInput(allowed_next, lambda: allowed_next((*PSO_FLOW, "end")), InvalidWorkflowError, ("prefix", "end"),
             "prefix-with-end"),
    BadInput(run_workflow, lambda: run_workflow(type("Fake", (), {"family": "de"})(), Evaluator(_bb()),
                                                np.random.default_rng(0), {}), TypeError, ("plan",),
             "fake-plan"),
    BadInput(decode_action, lambda: decode_action("cx.binomial", [[0.3]]), ValueError, ("action", "shape"),
             "action-2d"),
    # a record's field set after construction is checked as at construction
    BadInput(modular.RunResult, lambda: _set(modular.RunResult("budget", 1, 0, [], np.zeros((2, 2))), "stop",
                                             "done"), ValueError, ("stop",), "run-result-setattr"),
]


@pytest.mark.parametrize("case", ROUND11, ids=lambda c: c.id)
def test_round11_bad_input(case):
    check_bad_input(case)


def test_round11_dtypes_follow_the_problem():
    # float32 only when both bounds are (the lower bound's dtype won: asymmetric)
    assert _bb(bounds=(-np.ones(2, np.float32), np.ones(2))).dtype == np.float64
    assert _bb(bounds=(-np.ones(2), np.ones(2, np.float32))).dtype == np.float64
    assert _bb(bounds=(-np.ones(2, np.float32), np.ones(2, np.float32))).dtype == np.float32
    # f gets the problem's dtype whatever X's (float32 rows reached a float64 f, an int X came as ints)
    seen = []
    ev = Evaluator(_bb(f=lambda x: seen.append(x.dtype) or float(x @ x)))
    ev(np.zeros((1, 2), np.float32))
    ev(np.zeros((1, 2), np.int64))
    assert seen == [np.float64, np.float64] and ev.best_x.dtype == np.float64
    # a (k, 1) column is one value per row; an empty batch of a BBOB function is empty, not a scalar NaN
    assert Evaluator(_bb(f=lambda X: X.sum(1)[:, None], vectorized=True))(np.zeros((2, 2))).shape == (2,)
    assert bbob_problem(1, 1, 2, 10).f(np.zeros((0, 2))).shape == (0,)


def _raises_key_error(*args):
    raise KeyError("boom")


def _evaluated():
    ev = Evaluator(_bb())
    ev(np.full((1, 2), 0.5))
    return ev


RED11 = [
    # red team 11: the Evaluator's best point and values kept inconsistent states
    BadInput(Evaluator, lambda: _set(Evaluator(_bb()), "best_x", np.array([9.0, 9.0])), ValueError,
             ("best_x", "box"), "best-x-outside"),
    BadInput(Evaluator, lambda: _set(_evaluated(), "best_value", -math.inf), ValueError,
             ("best_value", "-inf"), "best-value-minus-inf"),
    BadInput(Evaluator, lambda: _set(_evaluated(), "best_value", 5.0), ValueError,
             ("best_value", "first_value"), "best-worse-than-first"),
    # a user's f or controller that raises: its KeyError reached the caller bare, naming nothing
    BadInput(solve, lambda: solve(_bb(f=_raises_key_error), RandomSearch(), seed=0), ValueError,
             ("f(x)", "KeyError"), "f-raises"),
    BadInput(run_workflow, lambda: run_workflow(WorkflowPlan.parse(PSO_FLOW), Evaluator(_bb()),
                                                np.random.default_rng(0), {}, controller=_raises_key_error),
             ValueError, ("controller(obs)", "KeyError"), "controller-raises"),
]


@pytest.mark.parametrize("case", RED11, ids=lambda c: c.id)
def test_red11_bad_input(case):
    check_bad_input(case)


def test_round11_scales_of_the_box_and_of_f():
    # a box of side 1e-200: the progress features' diagonal underflowed to 0 (a ZeroDivisionError)
    tiny = BlackBoxProblem(lambda x: float(x @ x), (-1e-200 * np.ones(2), 1e-200 * np.ones(2)), 200)
    assert solve(tiny, DesignX(), seed=0).retcode is RetCode.MaxIters
    # f of size 1e38 (1e200 overflowed y.std(): every landscape feature was NaN); they are scale-free
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = (X**2).sum(1)
    assert np.allclose(ela_features(X, 1e38 * y, np.zeros(2), np.ones(2)),
                       ela_features(X, y, np.zeros(2), np.ones(2)))
    # a box past float32 (the agents read their features in float32): outside the working range, refused
    with pytest.raises(ValueError, match=r"^bounds .*1e\+200, outside the package's working range"):
        BlackBoxProblem(lambda x: float(x @ x), (1e200 * np.ones(2), 2e200 * np.ones(2)), 200)


def test_round11_save_agents_unwritable_path(tmp_path):
    # a parent that is a file: the OS's FileExistsError/NotADirectoryError named no argument
    blocker = tmp_path / "file"
    blocker.write_text("x")
    first, second = load_agents()
    with pytest.raises(ValueError, match=r"^path .* cannot be written"):
        save_agents(blocker / "agents.pt", first, second)


def _nan_head():
    agent = WorkflowGenerator(seed=0)
    with torch.no_grad():
        agent.head.weight.fill_(float("nan"))
    return agent


ROUND11_AGENTS = [
    # an agent's width reassigned: kept, and a checkpoint saved then recorded the wrong size
    BadInput(WorkflowGenerator, lambda: setattr(WorkflowGenerator(seed=0), "hidden", 64), ValueError,
             ("hidden",), "hidden-fixed"),
    # NaN weights written in place answered NaN logits (sample refused them)
    BadInput(WorkflowGenerator.logits, lambda: _nan_head().logits(torch.zeros(13), ()), ValueError,
             ("head.weight", "NaN"), "logits-nan-weights"),
    # a (13, 1) column of features was flattened in silence
    BadInput(WorkflowGenerator.logits, lambda: WorkflowGenerator(seed=0).logits(torch.zeros(13, 1), ()),
             ValueError, ("features", "shape"), "features-column"),
    # a hand-built Episode: a workflow outside the grammar, a matrix as Agent 1's log-probability
    BadInput(Episode, lambda: Episode(("init.sobol", "bogus"), torch.zeros(()), torch.zeros(())),
             InvalidWorkflowError, ("workflow", "bogus"), "episode-workflow"),
    BadInput(Episode, lambda: Episode(PSO_FLOW, torch.zeros(2, 2), torch.zeros(())), ValueError,
             ("logp1", "one real number"), "episode-logp1"),
]


@pytest.mark.parametrize("case", ROUND11_AGENTS, ids=lambda c: c.id)
def test_round11_agents_bad_input(case):
    check_bad_input(case)


def test_red11_derived_field_replaced_in_solve():
    # lower replaced alone was silently restored from bounds by solve's re-validation
    problem = _replaced(_bb(), "lower", np.array([5.0, 5.0]))
    with pytest.raises(ValueError, match=r"^BlackBoxProblem.lower was changed after construction"):
        solve(problem, RandomSearch(), seed=0)


def test_firstrun11_stats_counts_fit_int64():
    # the class heldout11 found in ChanceStats, for BlackBoxStats too (set later as well)
    with pytest.raises(ValueError, match=r"^restarts must be <= 2\*\*63 - 1"):
        modular.BlackBoxStats(restarts=2**64)
    stats = modular.BlackBoxStats()
    with pytest.raises(ValueError, match=r"^nonfinite must be <= 2\*\*63 - 1"):
        stats.nonfinite = 10**100
