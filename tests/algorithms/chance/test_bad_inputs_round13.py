"""Issue #43 round 13: docstrings that state each parameter's domain, and code that keeps it (chance)."""

import dataclasses
import inspect
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms._validation import UserCallableError
from algorithms.chance import (
    SAAMILP,
    ChanceStats,
    GaussianScore,
    GGDOpt,
    ScenarioApproach,
    ScoreMLP,
    ScoreModel,
    VPSchedule,
    beamforming_problem,
    guidance_term,
    guided_reverse_sample,
    linear_gaussian_problem,
    restricted_solution,
    scenario_count,
    train_score,
    tweedie_mean,
)
from algorithms.chance.saa_milp import milp_retcode
from algorithms.core import RetCode, SolveOptions


@pytest.mark.parametrize("call, name", [
    (lambda v: ScenarioApproach(confidence=v), "confidence"),
    (lambda v: scenario_count(0.1, 2, v), "confidence"),
    (lambda v: SAAMILP(time_limit=v), "time_limit"),
    (lambda v: SAAMILP(mip_rel_gap=v), "mip_rel_gap"),
])
@pytest.mark.parametrize("value", [1e-39, 5e-324])
def test_positive_scales_refuse_subnormals_as_their_docstrings_now_say(call, name, value):
    # the docstrings promised "a subnormal such as 5e-324 is valid" while the code refused it
    with pytest.raises(ValueError, match=name):
        call(value)


@pytest.mark.parametrize("obj", [ScenarioApproach, scenario_count, SAAMILP])
def test_no_docstring_promises_a_subnormal_any_more(obj):
    doc = inspect.getdoc(obj)
    assert "subnormal such as 5e-324 is valid" not in doc and "even a subnormal" not in doc
    assert "1.18e-38" in doc


def test_positive_scales_take_their_just_inside_values():
    assert ScenarioApproach(confidence=1.2e-38).confidence == 1.2e-38
    assert SAAMILP(time_limit=1.2e-38, mip_rel_gap=1.2e-38).time_limit == 1.2e-38


@pytest.mark.parametrize("maxiters", [1, 3])
def test_saa_milp_cut_by_its_node_limit_reports_maxiters(maxiters):
    # HiGHS's node limit ends with its status 16, scipy's status 4 ("not recognized"): it was Failure
    problem = linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0)
    sol = solve(problem, SAAMILP(), maxiters=maxiters, seed=0)
    assert sol.retcode is RetCode.MaxIters


@pytest.mark.parametrize("status, message, maxiters, retcode", [
    (4, "(HiGHS Status 16: Solution limit reached)", 5, RetCode.MaxIters),
    (4, "(HiGHS Status 16: Solution limit reached)", None, RetCode.Failure),   # no node limit was set
    (4, "(HiGHS Status 4: Solve error)", 5, RetCode.Failure),
    (1, "Time limit reached", None, RetCode.MaxTime),
    (1, "Time limit reached. (HiGHS Status 13: model_status is Time limit reached)", 1000, RetCode.MaxTime),
    (1, "Iteration limit reached", 5, RetCode.MaxIters),
    (2, "infeasible", None, RetCode.Infeasible),
    (0, "Optimal", None, RetCode.Success),
])
def test_milp_retcode_maps_each_status(status, message, maxiters, retcode):
    result = SimpleNamespace(status=status, message=message, x=[0.0])
    assert milp_retcode(result, SolveOptions(maxiters=maxiters)) is retcode


@pytest.mark.parametrize("max_steps", [2**63, 2**64, 2**200])
def test_guided_reverse_sample_max_steps_is_a_count_of_at_most_int64(max_steps):
    model = ScoreMLP(2, hidden=4, seed=0)
    with pytest.raises(ValueError, match=r"^max_steps must be <= 2\*\*63 - 1"):
        guided_reverse_sample(model, lambda x: (x**2).sum(1), n_samples=4, beta=1.0, n_steps=3,
                              max_steps=max_steps)
    run = guided_reverse_sample(model, lambda x: (x**2).sum(1), n_samples=4, beta=1.0, n_steps=3,
                                max_steps=2**63 - 1)
    assert run.status == "completed"


def test_train_score_refuses_the_lr_and_data_its_docstring_called_valid():
    # the docstring called lr = 1e308 and entries near 1e308 valid, outside the working range it enforces
    assert "1e308" not in inspect.getdoc(train_score)
    model = ScoreMLP(2, hidden=4, seed=0)
    data = torch.randn(20, 2, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"^lr = 1e\+308 is outside"):
        train_score(model, data, steps=2, lr=1e308)
    with pytest.raises(ValueError, match=r"^data has an entry of magnitude 1e\+308"):
        train_score(model, torch.full((20, 2), 1e308, dtype=torch.float64), steps=2)
    assert len(train_score(model, data, steps=2, lr=1e30)) >= 1


@pytest.mark.parametrize("rate", [121.0, 300.0])
def test_beamforming_rate_target_is_capped_where_documented(rate):
    # 2^rate_target past ~126 bits overflows the data whatever the other scales: 300 was documented
    with pytest.raises(ValueError, match=r"^rate_target must lie in \[1.175e-38, 120\]"):
        beamforming_problem(n_samples=50, rate_target=rate)
    assert beamforming_problem(n_samples=50, rate_target=120.0).rho == 0.1


@pytest.mark.parametrize("field, value, words", [
    ("train_seconds", 1e13, r"^train_seconds must be a float >= 0 and <= 1e\+12"),
    ("sample_seconds", -1.0, r"^sample_seconds must be"),
    ("n_feasible_samples", 2**63, r"^n_feasible_samples must be <= 2\*\*63 - 1"),
])
def test_chance_stats_domains_as_documented(field, value, words):
    assert field in inspect.getdoc(ChanceStats) and "1e12" in inspect.getdoc(ChanceStats)
    with pytest.raises(ValueError, match=words):
        ChanceStats(**{field: value})


_TINY = dict(beta=0.2, n_train_points=30, train_steps=20, batch_size=64, n_samples=16, n_steps=5,
             corrector_steps=0)


def test_a_g_writing_into_its_h_is_named_as_gs_backward():
    # torch's "modified by an inplace operation" reached the user from stage 1's Jacobian, naming nothing
    p0 = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)

    def g(x, h):
        out = p0.g(x, h)
        h.mul_(0.5)
        return out

    with pytest.raises(UserCallableError, match=r"^g\(x, h\)'s backward \(autograd\) raised RuntimeError"):
        solve(dataclasses.replace(p0, g=g), GGDOpt(**_TINY), seed=0)


@pytest.mark.parametrize("t", [Fraction(1, 2), np.float32(0.5), np.int64(1)])
def test_diffusion_times_take_any_real_number(t):
    # a Fraction was "t must be a real number in [t_min, 1]" (tweedie_mean, alpha_bar, guidance_term)
    model = GaussianScore(np.zeros(2), np.ones(2), VPSchedule())
    x = torch.zeros(1, 2, dtype=torch.float64)
    assert torch.equal(tweedie_mean(model, x, t), tweedie_mean(model, x, float(t)))
    assert VPSchedule().alpha_bar(t) == pytest.approx(VPSchedule().alpha_bar(float(t)))
    guidance, _ = guidance_term(model, lambda z: (z**2).sum(1), x, t, beta=1.0)
    assert torch.equal(guidance, guidance_term(model, lambda z: (z**2).sum(1), x, float(t), beta=1.0)[0])


def test_restricted_solution_takes_a_fraction_margin():
    p = linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0)
    assert np.array_equal(restricted_solution(p, p.h_samples[:10], Fraction(1, 2)),
                          restricted_solution(p, p.h_samples[:10], 0.5))


def test_a_float32_time_computes_as_the_float_it_equals():
    # np.float32(0.5) == 0.5 exactly, but NEP 50 arithmetic computed alpha_bar in float32: another answer
    schedule = VPSchedule()
    assert schedule.alpha_bar(np.float32(0.5)) == schedule.alpha_bar(0.5)
    assert schedule.beta(np.float32(0.5)) == schedule.beta(0.5)
    model = GaussianScore(np.zeros(2), np.ones(2), schedule)
    x = torch.full((2, 2), 0.3, dtype=torch.float64)
    one = guidance_term(model, lambda z: (z**2).sum(1), x, np.float32(0.5), beta=1.0)
    two = guidance_term(model, lambda z: (z**2).sum(1), x, 0.5, beta=1.0)
    assert torch.equal(one[0], two[0]) and torch.equal(one[1], two[1])


def test_ggdopt_states_what_a_float32_problem_changes():
    doc = " ".join(inspect.getdoc(GGDOpt).split())
    assert "float32 problem (float32 ``h_samples``) runs stages 2 and 3 in float32" in doc


@pytest.mark.parametrize("maxiters", [None, 1000])
def test_saa_milp_cut_by_its_time_limit_reports_maxtime_whatever_maxiters(maxiters):
    # MaxIters was reported whenever maxiters was given, though HiGHS said "Time limit reached" (red13a)
    problem = linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0)
    assert solve(problem, SAAMILP(time_limit=1.2e-38), maxiters=maxiters, seed=0).retcode is RetCode.MaxTime


class _UserScore(ScoreModel):
    def __init__(self, forward):
        super().__init__()
        self.f, self.in_features, self.out_features = forward, 3, 2
        self.schedule = VPSchedule()
        self.p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))

    def forward(self, X):
        return self.f(X)


@pytest.mark.parametrize("forward, error, words", [
    (lambda X: X[:, :-1] * float("nan"), ValueError, r"^model's forward \(_UserScore.forward\) returned NaN"),
    (lambda X: 1 / 0, UserCallableError, r"^model's forward \(_UserScore.forward\) raised ZeroDivisionError"),
    (lambda X: X[:, :-1].float(), TypeError, r"^model's forward \(_UserScore.forward\) must return .* dtype"),
])
@pytest.mark.parametrize("call", ["tweedie_mean", "guidance_term", "guided_reverse_sample"])
def test_a_user_score_model_that_misbehaves_is_named(forward, error, words, call):
    # a NaN score was answered as a NaN Tweedie mean in silence or blamed on the objective; an exception
    # escaped bare; a float32 score in a float64 run was taken (red13a)
    model, x = _UserScore(forward), torch.zeros(2, 2, dtype=torch.float64)
    obj = lambda z: (z**2).sum(-1)   # noqa: E731
    calls = {"tweedie_mean": lambda: tweedie_mean(model, x, 0.5),
             "guidance_term": lambda: guidance_term(model, obj, x, 0.5, beta=1.0),
             "guided_reverse_sample": lambda: guided_reverse_sample(model, obj, n_samples=3, beta=1.0,
                                                                    n_steps=3)}
    with pytest.raises(error, match=words):
        calls[call]()


def test_ggdopt_names_f_when_f_is_nan_where_stage_3_differentiates_it():
    # "objective returned a non-finite value" named guided_reverse_sample's parameter, not the user's f
    p0 = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)

    def f(x):
        out = p0.f(x)
        return torch.where(x[..., 0] > 0.95, torch.full_like(out, float("nan")), out)

    with pytest.raises(ValueError, match=r"^f returned a non-finite value or gradient .* GGDOpt's stage 3"):
        solve(dataclasses.replace(p0, f=f, linear=None), GGDOpt(**_TINY), seed=0)


def _writes_into_its_input(x):
    value = (x**2).sum(1)
    with torch.no_grad():
        x.data.mul_(0)
    return value


@pytest.mark.parametrize("call", [
    lambda m: guided_reverse_sample(m, _writes_into_its_input, n_samples=3, beta=1.0, n_steps=3, seed=0),
    lambda m: guidance_term(m, _writes_into_its_input, torch.full((2, 2), 0.3, dtype=torch.float64), 0.5,
                            beta=1.0),
])
def test_an_objective_writing_into_its_input_is_refused_by_name(call):
    # the sampler completed with other samples than the same objective without the write, in silence (red13a)
    model = GaussianScore([0.0, 0.0], [1.0, 1.0], VPSchedule())
    with pytest.raises(ValueError, match=r"^objective wrote into its input x"):
        call(model)


def test_a_score_model_past_the_range_is_named_not_grad_f():
    # scores of 1e39 put the posterior means far out; the guidance's check named grad_f (red13a)
    model = _UserScore(lambda X: X[:, :-1] * 0 + 1e39)
    with pytest.raises(ValueError, match=r"^objective's gradient at the posterior means reaches .* model's"):
        guided_reverse_sample(model, lambda z: (z**2).sum(-1), n_samples=3, beta=1.0, n_steps=3, seed=0)


def test_an_infeasible_approximation_lp_is_failure_not_infeasible():
    # Infeasible means "no feasible point" (README); the scenario LP proved infeasible with an empirically
    # feasible x (violation 0.01 <= rho), and SAA-MILP solved the same problem (red13a)
    from algorithms.chance import ScenarioApproach, power_control_problem
    from algorithms.chance.cvar import linprog_retcode

    assert linprog_retcode(SimpleNamespace(status=2), SolveOptions()) is RetCode.Failure
    p = power_control_problem(n_users=2, n_samples=100, rho=0.1, p_max=50.0, seed=0)
    assert solve(p, ScenarioApproach(), seed=0).retcode is RetCode.Failure
    assert solve(p, SAAMILP(), seed=0).retcode is RetCode.Success
