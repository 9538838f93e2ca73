"""Round 20 of issue #43: a user's f or g answering NaN/inf, or the wrong shape, during a run (classes G, H).

The LP baselines (CVaR, SAA-MILP, scenario) evaluate f and g at their answer: a NaN g counted as a violated
sample (``NaN >= -tol`` is False), so the run reported ``Success`` (scenario: even with every g NaN); a NaN or
inf f met Solution's guard naming ``value`` (no argument the user passed); an f answering shape (0,) met a
bare IndexError. README: a non-finite value from a user's callable ends the run ``Diverged``.
"""

import dataclasses
import math

import pytest
import torch

from algorithms import RetCode, solve
from algorithms.chance import SAAMILP, CVaRApproximation, ScenarioApproach, linear_gaussian_problem

ALGORITHMS = {"cvar": CVaRApproximation(), "saa": SAAMILP(), "scenario": ScenarioApproach()}


class _Turning:
    """The problem's own f or g, answering ``bad`` from call ``k`` + 1 on (``k`` counted from ``arm``)."""

    def __init__(self, fn, bad: str):
        self.fn, self.bad, self.calls, self.k = fn, bad, 0, 10**9

    def arm(self, k: int) -> None:
        self.k = self.calls + k

    def __call__(self, *args):
        self.calls += 1
        out = self.fn(*args)
        if self.calls <= self.k:
            return out
        if self.bad == "shape":
            return out[..., :0]
        out = out.clone()
        out.view(-1)[0] = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[self.bad]
        return out


def _problem(which: str, bad: str, k: int = 0):
    base = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    wrapped = _Turning(getattr(base, which), bad)
    problem = dataclasses.replace(base, **{which: wrapped})
    wrapped.arm(k)   # the construction's probes passed: turn during the run
    return problem


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("which, bad", [("f", "nan"), ("f", "inf"), ("f", "-inf"), ("g", "nan"), ("g", "inf"),
                                        ("g", "-inf")])
def test_a_non_finite_f_or_g_at_the_answer_ends_the_run_diverged(name, which, bad):
    sol = solve(_problem(which, bad), ALGORITHMS[name], seed=0)
    assert sol.retcode is RetCode.Diverged


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_a_nan_f_at_the_midpoint_of_maxiters_zero_is_diverged(name):
    sol = solve(_problem("f", "nan"), ALGORITHMS[name], maxiters=0)
    assert sol.retcode is RetCode.Diverged


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_an_f_answering_the_wrong_shape_mid_run_is_refused_naming_f(name):
    with pytest.raises(ValueError, match=r"^f must map a \(batch, n\) tensor to shape \(batch,\)"):
        solve(_problem("f", "shape"), ALGORITHMS[name], seed=0)


def test_objective_refuses_a_wrong_shape_naming_f():
    problem = _problem("f", "shape")
    with pytest.raises(ValueError, match=r"^f must map"):
        problem.objective(torch.zeros(3, 2).numpy())


@pytest.mark.parametrize("bad, error, match", [
    ("numpy", TypeError, r"^f must return a real floating torch tensor, got ndarray"),
    ("None", TypeError, r"^f must return a real floating torch tensor, got NoneType"),
    ("shape", ValueError, r"^f must return a tensor of shape \(1,\) here, got \(0,\)"),
])
def test_ggdopt_stage_one_names_f_answering_the_wrong_type_or_shape(bad, error, match):
    """GGDOpt's restricted solves met AttributeError ("no attribute 'requires_grad'"), "'NoneType' object is
    not subscriptable" and a bare IndexError."""
    from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT

    base = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    state = {"armed": False}

    def f(x):
        out = base.f(x)
        if not state["armed"]:
            return out
        answers = {"numpy": lambda: out.detach().numpy(), "None": lambda: None, "shape": lambda: out[..., :0]}
        return answers[bad]()

    problem = dataclasses.replace(base, f=f)
    state["armed"] = True
    with pytest.raises(error, match=match):
        solve(problem, TINY_GGDOPT, seed=0)


def test_restricted_solution_gives_none_when_g_turns_nan_and_scipy_never_sees_it():
    from algorithms.chance import restricted_solution

    base = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    problem = dataclasses.replace(base, g=_Turning(base.g, "nan"))
    problem.g.arm(0)
    assert restricted_solution(problem, base.h_samples[:10], 0.5) is None


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_ggdopt_f_non_finite_at_the_final_samples_is_diverged(bad):
    """red20a: f NaN at GGDOpt's final evaluation of the samples met GGDOptResult's own refusal naming
    sample_values, and -inf a Success's guard naming value: neither named f nor reported Diverged."""
    from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT

    base = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    calls = {"n": 0, "k": 10**9}

    def f(x):
        calls["n"] += 1
        out = base.f(x)
        return out * bad if calls["n"] > calls["k"] else out

    problem = dataclasses.replace(base, f=f)
    start = calls["n"]
    solve(problem, TINY_GGDOPT, seed=0)
    calls["k"], calls["n"] = calls["n"] - 1, start   # the run's last call of f: the final samples
    assert solve(problem, TINY_GGDOPT, seed=0).retcode is RetCode.Diverged


def test_ggdopt_names_f_not_the_samplers_objective():
    from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT

    base = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    state = {"armed": False}

    def f(x):   # one value for the sampler's batch of 64 (stage 1 asks for one row at a time)
        out = base.f(x)
        return out[:1] if state["armed"] and x.shape[0] > 1 and x.requires_grad else out

    problem = dataclasses.replace(base, f=f)
    state["armed"] = True
    with pytest.raises(ValueError, match=r"^f must return shape \(64,\)"):
        solve(problem, TINY_GGDOPT, seed=0)


@pytest.mark.parametrize("restriction", ["moment", "scenario"])
@pytest.mark.parametrize("bad", ["nan", "shape", "raise"])
@pytest.mark.parametrize("k", range(8))
def test_restricted_solution_names_g_wherever_its_answer_goes_bad(restriction, bad, k):
    """red20c: a g going bad on the call torch's Jacobian pass makes (k = 3, 7 here) escaped as
    "g(x, h)'s backward (autograd) raised _NonFiniteAnswer" (a private class, blaming the backward); a NaN
    is None at every k, a wrong shape refused naming g, a raise named as g's own call."""
    from algorithms._validation import UserCallableError
    from algorithms.chance import restricted_solution

    base = linear_gaussian_problem(n=3, n_samples=100, rho=0.1, seed=0)
    calls = {"n": 0, "on": False}

    def g(x, h):
        calls["n"] += calls["on"]
        out = base.g(x, h)
        if not (calls["on"] and calls["n"] > k):
            return out
        if bad == "raise":
            raise KeyError("boom")
        return out * math.nan if bad == "nan" else out[..., :0]

    problem = dataclasses.replace(base, g=g)
    calls["on"] = True
    if bad == "nan":
        assert restricted_solution(problem, base.h_samples[:10], 1.0, restriction=restriction) is None
        return
    error, match = ((UserCallableError, r"^g\(x, h\) raised KeyError") if bad == "raise"
                    else (ValueError, r"^g must return a tensor of shape"))
    with pytest.raises(error, match=match):
        restricted_solution(problem, base.h_samples[:10], 1.0, restriction=restriction)


@pytest.mark.parametrize("k", [0, 1, 3, 7])
def test_ggdopt_g_turning_nan_in_stage_one_is_diverged(k):
    """red20c: at k = 3 (g's call inside the Jacobian pass) the solve raised instead of ending Diverged."""
    from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT

    base = linear_gaussian_problem(n=3, n_samples=100, rho=0.1, seed=0)
    calls = {"n": 0, "on": False}

    def g(x, h):
        calls["n"] += calls["on"]
        out = base.g(x, h)
        return out * math.nan if calls["on"] and calls["n"] > k else out

    problem = dataclasses.replace(base, g=g)
    calls["on"] = True
    assert solve(problem, TINY_GGDOPT, seed=0).retcode is RetCode.Diverged


@pytest.mark.parametrize("lr", [1e20, 1e30, 3.4e38])
def test_ggdopt_a_large_valid_lr_diverges_instead_of_naming_internal_values(lr):
    """red20c: lr = 1e20 was refused naming sigma2 (second_order_guidance's parameter, never passed) and
    3.4e38 naming "model's parameter 'net.2.weight'": the run's own trained model blown up is Diverged."""
    from algorithms.chance import GGDOpt

    problem = linear_gaussian_problem(n=3, n_samples=100, rho=0.1, seed=0)
    algorithm = GGDOpt(lr=lr, train_steps=20, n_train_points=50, n_samples=16, n_steps=5, bootstrap_size=10)
    assert solve(problem, algorithm, seed=0).retcode is RetCode.Diverged


@pytest.mark.parametrize("call", ["first", "second", "sampler"])
def test_a_score_model_writing_into_its_input_is_named_in_the_guidance_backward(call):
    """red20c: guidance_term / guided_reverse_sample met torch's bare "modified by an inplace operation"."""
    import numpy as np

    from algorithms._validation import UserCallableError
    from algorithms.chance import GaussianScore, ScoreModel, VPSchedule, guidance_term, guided_reverse_sample

    base = GaussianScore(np.zeros(2), np.ones(2), VPSchedule())

    class Writing(ScoreModel):
        def __init__(self):
            super().__init__()
            self.schedule, self.in_features, self.out_features = VPSchedule(), 3, 2
            self.w = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))

        def forward(self, X):
            out = base(X) + 0 * self.w
            X.mul_(0)
            return out

    objective = lambda z: (z**2).sum(-1)   # noqa: E731
    with pytest.raises(UserCallableError, match=r"^model's backward"):
        if call == "sampler":
            guided_reverse_sample(Writing(), objective, n_samples=4, beta=1.0, n_steps=6, seed=0)
        else:
            guidance_term(Writing(), objective, torch.randn(4, 2, dtype=torch.float64), 0.5, beta=1.0,
                          order=call)
