"""Issue #43 round 12: the working range (README "Working range") in the chance family, by class."""

import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms.chance import (
    GaussianScore,
    ScoreMLP,
    VPSchedule,
    beamforming_problem,
    guided_reverse_sample,
    linear_gaussian_problem,
    min_samples,
    power_control_problem,
    restricted_solution,
    scenario_count,
)


@pytest.mark.parametrize("std, dtype, words", [
    ([1.0, 1e-300], torch.float64, r"^std must have entries >= 1.175e-38 \(the package's working range"),
    ([1.0, 1e-39], torch.float64, r"^std must have entries >= 1.175e-38"),
    ([1e20], torch.float32, r"^std must have std² inside torch.float32's range"),   # var = inf: score 0
    ([1e-30], torch.float32, r"^std must have std² inside torch.float32's range"),  # var = 0: score / 0
    ([1e200], torch.float64, r"^std has an entry of magnitude 1e\+200, outside .* working range"),
])
def test_gaussian_score_std_entries_are_positive_scales_of_the_buffers_dtype(std, dtype, words):
    with pytest.raises(ValueError, match=words):
        GaussianScore([0.0] * len(std), std, VPSchedule(), dtype=dtype)


def test_gaussian_score_std_at_the_working_range_edges_is_valid():
    model = GaussianScore([0.0, 0.0], [1.2e-38, 3e38], VPSchedule())
    assert bool(torch.isfinite(model.var).all()) and bool((model.var > 0).all())


@pytest.mark.parametrize("call", [lambda rho: min_samples(rho), lambda rho: scenario_count(rho, 2, 0.01),
                                  lambda rho: linear_gaussian_problem(n=2, n_samples=50, rho=rho)])
def test_rho_is_a_positive_scale_of_the_working_range(call):
    # rho = 1e-39 was kept by min_samples and scenario_count (counts of 1e39 samples)
    with pytest.raises(ValueError, match=r"^rho = 1e-39 is outside the package's working range"):
        call(1e-39)


def test_min_samples_at_the_smallest_rho():
    # exact since round 14 (the float 1/rho, rounded, was this test's old reference)
    assert min_samples(1.2e-38) == math.ceil(1 / Fraction(1.2e-38))


@pytest.mark.parametrize("z", [1e39, 1e308, 10**100])
def test_restriction_margin_outside_the_working_range_is_refused(z):
    # 1e308 was kept (and answered None)
    p = linear_gaussian_problem(n=2, n_samples=50, rho=0.1, seed=0)
    with pytest.raises(ValueError, match=r"^z = .* outside the package's working range"):
        restricted_solution(p, p.h_samples[:10], z)
    assert restricted_solution(p, p.h_samples[:10], 1e38) is None   # a margin no point meets


@pytest.mark.parametrize("make, names", [
    (lambda: power_control_problem(n_samples=50, cross_gain=1e38), r"cross_gain = 1e\+38"),
    (lambda: power_control_problem(n_samples=50, sinr_target=1e38, cross_gain=1.0), r"sinr_target = 1e\+38"),
    (lambda: beamforming_problem(n_samples=50, csi_error=1e38), r"csi_error = 1e\+38"),
    (lambda: beamforming_problem(n_samples=50, rate_target=120.0, csi_error=10.0), r"rate_target = 120.0"),
    (lambda: beamforming_problem(n_samples=50, csi_error=1e20, dtype=np.float32), r"csi_error = 1e\+20"),
])
def test_factory_data_built_from_in_range_scales_past_the_range_name_the_scales(make, names):
    # cross_gain = 1e38 failed as "linear.A has an entry of magnitude 5.4e+38", a name the caller never gave
    with pytest.raises(ValueError, match=rf"{names}.*data built from them reach .* working range"):
        make()


@pytest.mark.parametrize("corrector_steps", [1, 3])
@pytest.mark.parametrize("beta", [1e10, 1e30, 3e38])
def test_a_run_past_its_divergence_bound_inside_the_correctors_is_diverged(beta, corrector_steps):
    # the predictor's x (3e41 with the bound at 3e38) reached the guidance's check of a user's x: a
    # ValueError "x has an entry of magnitude ... outside the working range" instead of "diverged"
    run = guided_reverse_sample(GaussianScore([0.0], [1.0], VPSchedule()), lambda z: z[:, 0] ** 2,
                                n_samples=4, n_steps=20, beta=beta, divergence_bound=3e38,
                                corrector_steps=corrector_steps, guidance="first")
    assert run.status == "diverged"


@pytest.mark.parametrize("make", [lambda: GaussianScore([0.0], [1.0], VPSchedule()),
                                  lambda: ScoreMLP(1, hidden=4)])
@pytest.mark.parametrize("value", [1e300, -1e39])
def test_forward_refuses_a_float64_x_outside_the_working_range(make, value):
    # a float64 tensor X = [x, t] with x = 1e300 was scored in silence (a numpy one was refused)
    with pytest.raises(ValueError, match=r"^X has an entry of magnitude .* working range"):
        make()(torch.tensor([[value, 0.5]], dtype=torch.float64))


_Z22 = np.zeros((2, 2))


def _result(**override):
    from algorithms.chance import GGDOptResult

    kwargs = dict(train_points=np.zeros((2, 2)), train_violation=np.zeros(2), losses=[1.0])
    kwargs.update(override)
    return GGDOptResult(**kwargs)


@pytest.mark.parametrize("override, error, words", [
    ({"losses": ["a"]}, TypeError, r"^losses must hold real numbers"),
    ({"losses": [True]}, TypeError, r"^losses must hold real numbers"),
    ({"samples": "abc"}, TypeError, r"^samples must be numeric"),
    ({"samples": np.full((2, 2), np.nan)}, ValueError, r"^samples must be a finite \(S, n\) array"),
    ({"samples": np.zeros((2, 2, 2))}, ValueError, r"^samples must be a finite \(S, n\) array"),
    ({"samples": np.zeros((2, 3))}, ValueError, r"^samples must have n = 2 columns"),
    ({"samples": np.full((2, 2), 1e300)}, ValueError, r"^samples has an entry of magnitude 1e\+300"),
    ({"samples": _Z22, "sample_values": np.zeros(5)}, ValueError, r"^sample_values must be empty or"),
    ({"samples": _Z22, "sample_values": np.array([np.nan, 0.0])}, ValueError, r"^sample_values .*NaN"),
    ({"train_points": np.full((2, 2), np.nan)}, ValueError, r"^train_points must be finite"),
])
def test_ggdopt_result_fields_are_checked(override, error, words):
    # every one of these was kept by a hand-built GGDOptResult
    with pytest.raises(error, match=words):
        _result(**override)


def test_ggdopt_result_fields_set_later_are_checked_and_keep_their_dtype():
    result = _result()
    with pytest.raises(TypeError, match=r"^samples must be numeric"):
        result.samples = "x"
    result.samples = np.zeros((3, 2), dtype=np.float32)   # a float32 run's samples stay float32 (sol.x)
    result.sample_values = np.array([1e300, 0.0, 1.0])   # objective values: any size (f's answers)
    assert result.samples.dtype == np.float32 and result.sample_values.shape == (3,)


def test_a_reverse_run_that_did_not_diverge_holds_samples_inside_the_range():
    from algorithms.chance import ReverseRun

    with pytest.raises(ValueError, match=r"^x has an entry of magnitude 1e\+300"):
        ReverseRun(torch.full((2, 1), 1e300, dtype=torch.float64), 1, "completed")
    assert ReverseRun(torch.full((2, 1), 1e300, dtype=torch.float64), 1, "diverged").status == "diverged"


def test_score_mlp_weights_written_in_place_are_refused_at_forward():
    model = ScoreMLP(2, hidden=4)
    with torch.no_grad():
        model.net[0].weight.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"^ScoreMLP's parameter 'net.0.weight' contains NaN"):
        model(torch.tensor([[0.0, 0.0, 0.5]], dtype=torch.float64))


def test_train_score_names_an_lr_whose_first_adam_step_overflows_the_models_dtype():
    from algorithms.chance import train_score

    # lr = 1e38 (inside the working range) on a float32 model: torch's "cannot be converted ... overflow"
    with pytest.raises(ValueError, match=r"^lr = 1e\+38 is too large for a torch.float32 model"):
        train_score(ScoreMLP(2, hidden=4, dtype=torch.float32), torch.zeros(4, 2), steps=1, lr=1e38)
    data = torch.zeros(4, 2, dtype=torch.float64)
    assert len(train_score(ScoreMLP(2, hidden=4), data, steps=1, lr=1e38)) == 1


@pytest.mark.parametrize("f_scale, g_scale", [(1e30, 1.0), (1.0, 1e30), (1e-30, 1.0)])
def test_stage_one_solves_restricted_problems_of_extreme_units(f_scale, g_scale):
    # red12a: f = -1e30·Σx made SLSQP fail every restricted problem ("none of 20 restricted problems ... had a
    # solution", a ValueError naming no argument); the same problem at unit scale runs
    from algorithms import solve
    from algorithms.chance import ChanceConstrainedProblem, GGDOpt

    h = np.random.default_rng(0).normal(size=(50, 1))

    def make(fs, gs):
        return ChanceConstrainedProblem(f=lambda x: -fs * x.sum(1),
                                        g=lambda x, hh: gs * (x.sum(1)[:, None] - hh[None, :, 0]),
                                        h_samples=h, rho=0.1, lower=np.zeros(2), upper=np.ones(2))

    algorithm = GGDOpt(n_train_points=10, train_steps=5, n_samples=8, n_steps=3)
    unit, scaled = solve(make(1.0, 1.0), algorithm, seed=0), solve(make(f_scale, g_scale), algorithm, seed=0)
    assert scaled.retcode is unit.retcode
    np.testing.assert_allclose(scaled.x, unit.x)


def test_train_score_names_numpy_data_as_a_type():
    from algorithms.chance import train_score

    # red12a: "data must be a tensor of shape (N, 2), got (5, 2)" for a numpy array of the right shape
    with pytest.raises(TypeError, match=r"^data must be a torch.Tensor of shape \(N, 2\).* got ndarray"):
        train_score(ScoreMLP(2, hidden=4), np.zeros((5, 2)), steps=1)


def test_scenario_result_counts_are_checked():
    from algorithms.chance.scenario import ScenarioResult

    with pytest.raises(TypeError, match=r"^n_scenarios must be an int >= 0"):
        ScenarioResult("x", None)
    result = ScenarioResult(3, None)
    with pytest.raises(ValueError, match=r"^n_scenarios must be an int >= 0"):
        result.n_scenarios = -1


def test_score_mlp_layers_replaced_or_converted_after_construction_are_named():
    # red12a: net[0].weight replaced by a (9, 9) one met torch's "mat1 and mat2 shapes cannot be multiplied"
    X = torch.tensor([[0.1, 0.2, 0.5]], dtype=torch.float64)
    model = ScoreMLP(2, hidden=4)
    model.net[0].weight = torch.nn.Parameter(torch.zeros(9, 9, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"^ScoreMLP's submodules or parameters were replaced"):
        model(X)
    with pytest.raises(ValueError, match=r"^ScoreMLP's submodules or parameters were replaced"):
        model.noise(X)
    model = ScoreMLP(2, hidden=4)
    model.net[2] = model.net[2].float()   # one layer converted: torch's dtype mismatch
    with pytest.raises(ValueError, match=r"^ScoreMLP's parameters must share one dtype"):
        model(X)
    assert ScoreMLP(2, hidden=4).float()(X.float()).dtype == torch.float32   # the whole model: valid


def test_rho_takes_any_real_number():
    from fractions import Fraction

    # a Fraction was refused as "rho must be a real number in (0, 1), got Fraction"
    assert min_samples(Fraction(1, 8)) == min_samples(0.125) == 8


@pytest.mark.parametrize("box", [1e30, 1.5e38])
def test_lp_baselines_on_a_box_past_highs_infinity_are_solved(box):
    # red12a: HiGHS reads |bound| >= 1e20 as infinite: a box of 1e30 was "Unbounded" (x = 0)
    from algorithms import solve
    from algorithms.chance import (
        SAAMILP,
        ChanceConstrainedProblem,
        CVaRApproximation,
        LinearStructure,
        ScenarioApproach,
    )

    L, h = 50, np.random.default_rng(0).normal(size=(50, 1))
    cost, A = np.array([-1.0, -1.0]), np.tile(np.array([[[-1.0, -1.0]]]), (L, 1, 1))
    problem = ChanceConstrainedProblem(
        f=lambda x: x @ torch.tensor(cost, dtype=x.dtype),
        g=lambda x, hh: (box + hh[None, :, 0]) - x.sum(1)[:, None], h_samples=h, rho=0.1,
        lower=np.full(2, -box), upper=np.full(2, box), linear=LinearStructure(cost, A, box + h))
    for algorithm in (CVaRApproximation(), ScenarioApproach(), SAAMILP()):
        sol = solve(problem, algorithm)
        assert sol.retcode.name == "Success", type(algorithm).__name__
        assert sol.x.sum() == pytest.approx(box, rel=1e-9)


@pytest.mark.parametrize("kwargs, name", [({"n": 2, "hidden": 2**63 - 1}, "hidden"),
                                          ({"n": 2**40, "hidden": 2}, "n")])
def test_score_mlp_sizes_past_memory_are_named(kwargs, name):
    # hidden = 2**63 - 1 met torch's "Storage size calculation overflowed" naming nothing
    with pytest.raises(ValueError, match=rf"^ScoreMLP: {name}="):
        ScoreMLP(**kwargs)


@pytest.mark.parametrize("side", [1e30, 1e-30])
def test_stage_one_solves_a_box_of_extreme_side_as_the_unit_box(side):
    # a box of side 1e30 (f and g of order 1 in x / 1e30): SLSQP saw gradients of 1e-30 and stopped at the
    # start, every restricted problem infeasible: "Infeasible" at the midpoint where the unit box gives (1, 1)
    from algorithms import solve
    from algorithms.chance import ChanceConstrainedProblem, GGDOpt

    h = np.random.default_rng(0).normal(size=(50, 1))

    def make(s):
        return ChanceConstrainedProblem(f=lambda x: -x.sum(1) / s,
                                        g=lambda x, hh: x.sum(1)[:, None] / s - hh[None, :, 0],
                                        h_samples=h, rho=0.1, lower=np.zeros(2), upper=np.full(2, s))

    algorithm = GGDOpt(n_train_points=10, train_steps=5, n_samples=8, n_steps=3)
    unit, scaled = solve(make(1.0), algorithm, seed=0), solve(make(side), algorithm, seed=0)
    assert scaled.retcode is unit.retcode
    np.testing.assert_allclose(scaled.x / side, unit.x, rtol=1e-6)


@pytest.mark.parametrize("edit", ["h", "x"])
def test_a_g_writing_into_its_arguments_does_not_change_stage_one(edit):
    # red12a: a g that did hh.sub_(1) shifted every later call of the solve: Diverged, x = 1e9 outside the box
    from algorithms import solve
    from algorithms.chance import ChanceConstrainedProblem, GGDOpt

    h = np.random.default_rng(0).normal(size=(50, 1))

    def g(x, hh):
        value = x.sum(1)[:, None] - hh[None, :, 0] + 0.5
        target = hh if edit == "h" else x
        if not target.requires_grad:
            target.sub_(1.0)
        return value

    def clean(x, hh):
        return x.sum(1)[:, None] - hh[None, :, 0] + 0.5

    def run(gg):
        p = ChanceConstrainedProblem(f=lambda x: -x.sum(1), g=gg, h_samples=h, rho=0.1, lower=np.zeros(2),
                                     upper=np.ones(2))
        return solve(p, GGDOpt(n_train_points=10, train_steps=20, n_samples=16, n_steps=5), seed=0)

    edited, reference = run(g), run(clean)
    assert edited.retcode is reference.retcode
    np.testing.assert_allclose(edited.x, reference.x)


def test_a_diverged_ggdopt_reports_a_point_of_the_box():
    from algorithms import solve
    from tests.algorithms.chance.retcode_cases_chance import CASES

    case = next(c for c in CASES if c.name == "ggdopt-diverged")
    problem, algorithm, options = case.build()
    sol = solve(problem, algorithm, seed=0, **options)
    # nan_to_num alone left 1.8e308 for an inf entry (outside the working range and the box)
    assert sol.retcode.name == "Diverged"
    assert np.all(sol.x >= problem.lower) and np.all(sol.x <= problem.upper)
