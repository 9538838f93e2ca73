"""Issue #43 round 13: docstrings that state each parameter's domain, and code that keeps it (blackbox)."""

import inspect
from fractions import Fraction

import numpy as np
import pytest

from algorithms.blackbox import (
    PSO,
    BlackBoxProblem,
    Evaluator,
    ModularOptimizer,
    ScipyDE,
    bbob_problem,
    normalized_regret,
    problem_features,
)


def _evaluator(budget: int = 50) -> Evaluator:
    return Evaluator(BlackBoxProblem(lambda x: float(np.sum(x**2)), ([-1.0, -1.0], [1.0, 1.0]), budget))


@pytest.mark.parametrize("n", [2**31, 2**40, 2**63 - 1])
def test_problem_features_cuts_a_large_n_to_the_evaluations_left_as_documented(n):
    # "n above the evaluations left is cut to them": 2**31 was refused "n must be <= 2**31 - 1"
    ev = _evaluator()
    features, X, _ = problem_features(ev, np.random.default_rng(0), n=n)
    assert features.shape == (13,) and X.shape[0] == 50 and ev.remaining == 0


@pytest.mark.parametrize("n, words", [(2**63, r"^n must be <= 2\*\*63 - 1"), (0, r"^n must be"),
                                      (1.5, r"^n must be an int")])
def test_problem_features_n_outside_its_documented_domain_is_refused_by_name(n, words):
    with pytest.raises((ValueError, TypeError), match=words):
        problem_features(_evaluator(), np.random.default_rng(0), n=n)


def test_problem_features_caps_the_sample_after_the_cut():
    assert "2**31 - 1 points is refused naming n" in " ".join(inspect.getdoc(problem_features).split())


@pytest.mark.parametrize("kwargs, words", [
    ({"instance": 2**31}, r"^instance must be <= 2\*\*31 - 1"),
    ({"dim": 2**31}, r"^dim must be <= 2\*\*31 - 1"),
    ({"budget": 2**63}, r"^budget must be <= 2\*\*63 - 1"),
    ({"target_precision": 1e308}, r"^target_precision = 1e\+308 is outside"),
])
def test_bbob_problem_refuses_what_its_docstring_now_excludes(kwargs, words):
    doc = " ".join(inspect.getdoc(bbob_problem).split())
    assert "1e308: the first evaluation" not in doc and "[1, 2**31 - 1]" in doc and "[1, 2**63 - 1]" in doc
    call = {"fid": 1, "instance": 1, "dim": 2, "budget": 10, **kwargs}
    with pytest.raises(ValueError, match=words):
        bbob_problem(**call)


def test_bbob_problem_target_precision_at_the_range_edge_is_valid():
    assert bbob_problem(1, 1, 2, 10, target_precision=3.4e38).target == pytest.approx(3.4e38)


@pytest.mark.parametrize("value, regret", [(1e39, 1e39), (float("inf"), float("inf")), (-1.0, 0.0)])
def test_normalized_regret_takes_a_runs_value_as_documented(value, regret):
    # a run's value is not bounded by the working range (its docstring now says so)
    p = BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=0.0, f_ref=1.0)
    assert normalized_regret(value, p) == regret
    assert "not bounded by the working range" in " ".join(inspect.getdoc(normalized_regret).split())


@pytest.mark.parametrize("make, check", [
    (lambda: ScipyDE(mutation=Fraction(1, 2), recombination=Fraction(7, 10)),
     lambda a: a.mutation == 0.5 and a.recombination == 0.7),
    (lambda: ScipyDE(mutation=(Fraction(1, 2), Fraction(1))), lambda a: a.mutation == (0.5, 1.0)),
    (lambda: PSO(w=Fraction(7, 10), c1=Fraction(3, 2)), lambda a: a.w == 0.7 and a.c1 == 1.5),
    (lambda: BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=Fraction(1, 2), f_ref=Fraction(3)),
     lambda p: (p.optimum, p.f_ref) == (0.5, 3.0) and normalized_regret(Fraction(5, 4), p) == 0.3),
    (lambda: ModularOptimizer(("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"),
                              {"de.rand1": {"F1": Fraction(1, 2)}}),
     lambda a: a.hyperparameters["de.rand1"]["F1"] == 0.5),
])
def test_a_fraction_is_a_real_number_everywhere(make, check):
    # a Fraction (a numbers.Real, README's coercible list) was "must be a number" at these sites
    assert check(make())


@pytest.mark.parametrize("edit", [
    lambda s: s.__setitem__("sizes", "x"),
    lambda s: s["sizes"].__setitem__("hidden", 33),
    lambda s: s["agent1"].__setitem__("feature.weight", s["agent1"]["feature.weight"].double() * 0 + 1e39),
])
def test_a_hand_edited_checkpoint_is_refused_naming_the_checkpoint(edit, tmp_path):
    # sizes = "x" met "argument after ** must be a mapping"; hidden = 33 and a 1e39 weight named no checkpoint
    import torch

    from algorithms import solve
    from algorithms.blackbox import DesignX, load_agents
    from algorithms.blackbox.designx import save_agents

    good = tmp_path / "ok.pt"
    save_agents(str(good), *load_agents())
    state = torch.load(good, weights_only=False)
    edit(state)
    bad = tmp_path / "edited.pt"
    torch.save(state, bad)
    problem = BlackBoxProblem(lambda x: float(x @ x), ([-1.0, -1.0], [1.0, 1.0]), 100)
    # round 18: load_agents names the entry (sizes) of the checkpoint it refuses
    refusal = r"^checkpoint '.*edited.pt'( does not hold valid agents|'s sizes must be)"
    with pytest.raises(ValueError, match=refusal):
        solve(problem, DesignX(checkpoint=str(bad)), maxiters=2, seed=0)


def test_log_regret_rewards_floor_as_documented():
    # the docstring's own example floor = 1e308 was refused (outside the working range)
    from algorithms.blackbox import load_agents, run_episode
    from algorithms.blackbox.designx import log_regret_rewards

    doc = " ".join(inspect.getdoc(log_regret_rewards).split())
    assert "1e308" not in doc and "[1.18e-38, 3.4e38]" in doc
    p = BlackBoxProblem(lambda x: float(x @ x), ([-1.0, -1.0], [1.0, 1.0]), 200)
    episode = run_episode(p, *load_agents(), np.random.default_rng(0))
    assert np.all(log_regret_rewards(episode, 0.0, floor=3.4e38) == 0.0)
    with pytest.raises(ValueError, match=r"^floor = 1e\+308 is outside"):
        log_regret_rewards(episode, 0.0, floor=1e308)
