"""#43 round 9, the lead's cross-family probe: each public callable's own doctest call with one argument
replaced by a bad value (NaN, inf, 0, a wrong type, a meta/int/complex tensor, ...). One test per class
fixed, asserting the exception type and that the message names the argument(s)."""

import math

import numpy as np
import pytest
import sympy
import torch
from sklearn.ensemble import RandomForestRegressor

from algorithms._validation import to_float
from algorithms.attention import SingleLocationProblem, fit_linear_predictor, locate_probability
from algorithms.bayesopt import (
    constrained_branin,
    expected_improvement,
    gardner_problem,
    gramacy_problem,
    hartmann6_l1_problem,
    two_disks_problem,
)
from algorithms.blackbox import BlackBoxProblem, normalized_regret
from algorithms.chance.diffusion import VPSchedule
from algorithms.chance.problem import check_rho
from algorithms.core import RetCode, Solution, SolveOptions, Stats
from algorithms.curvature import (
    lcd1_step,
    lcd2_coefficients,
    lcd2_gap,
    lcd2_step,
    lcd3_stepsize,
    lp_norm_power,
    polyak_step,
    scaled,
    squared_huber,
    squared_lp_norm,
)
from algorithms.forests import cooccurrence_kernel
from algorithms.hierarchical import ada_parameters, neumann_terms
from algorithms.imaging import gaussian_cs, held_out_images, ssim
from algorithms.nets import flatten_params
from algorithms.qp import QP
from algorithms.quantum import QuantumStats
from algorithms.unlearning import (
    DeepLinear,
    LinearModel,
    TwoLayerPerceptron,
    UnlearningStats,
    orthogonal_gradient_step,
)


def test_fit_linear_predictor_names_both_x_and_y_on_a_row_mismatch():
    X, y = torch.zeros(0, 2, 3, dtype=torch.float64), torch.zeros(50, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"X and y must have one row per sample: X has 0 rows .* y has 50"):
        fit_linear_predictor(X, y)
    with pytest.raises(ValueError, match="y must be a 1-D torch tensor"):
        fit_linear_predictor(torch.zeros(50, 2, 3, dtype=torch.float64),
                             torch.zeros(50, 1, dtype=torch.float64))


# -- curvature: the scalar step helpers take numbers or sympy expressions, nothing else -------------------
@pytest.mark.parametrize("bad", [None, "0.5", 1j, [1.0], True])
@pytest.mark.parametrize("call", [
    lambda v: lcd2_coefficients(v, np.ones(1)), lambda v: lcd2_gap(v, 1.0, np.ones(1), np.ones(1)),
    lambda v: lcd2_gap(0.5, v, np.ones(1), np.ones(1)), lambda v: lcd3_stepsize(v, 1.0),
    lambda v: lcd3_stepsize(0.5, v), lambda v: polyak_step(1.0, 2.0, v, 4.0),
], ids=["lcd2_coefficients.lam", "lcd2_gap.lam", "lcd2_gap.delta", "lcd3_stepsize.delta",
        "lcd3_stepsize.G", "polyak_step.delta"])
def test_scalar_step_helpers_refuse_non_numbers_by_name(call, bad):
    with pytest.raises(TypeError, match=r"(lam|delta|G) must be a real number \(or a sympy expression\)"):
        call(bad)


def test_lcd2_limits_are_numbers_not_errors():
    """λ = ∞ is the Newton limit 1/Dᵢ (∞/∞ gave NaN); a Δ whose multiplier underflows to 0 has shift ∞
    (1/0 was a ZeroDivisionError); sympy still passes."""
    assert lcd2_coefficients(math.inf, np.array([0.0, 2.0])).tolist() == [math.inf, 0.5]
    x, info = lcd2_step(np.array([1.0]), np.array([2.0]), np.zeros(1), 5e-324)
    assert info["multiplier"] == 0.0 and info["shift"] == math.inf and x.tolist() == [1.0]
    lam = sympy.Symbol("lam")
    assert str(lcd2_coefficients(lam, np.array([1.0]))[0]) == "lam/(1.0*lam + 1)"


def test_curvature_factories_name_the_scale_that_overflows():
    with pytest.raises(ValueError, match=r"p = .* is too large for x0"):
        lp_norm_power(2**64, np.array([1.0, -2.0]))
    # since round 10 ‖x‖_p is computed relative to max |xᵢ|: p = 2**64 no longer overflows (f = ‖x‖_∞² = 4)
    problem = squared_lp_norm(2**64, np.array([1.0, 2.0]))
    assert problem.value(problem.x0) == 4.0
    for delta in (5e-324, 1e308):  # δ² underflowed to 0 / raised Python's OverflowError
        with pytest.raises(ValueError, match=r"^delta = .* is outside the package's working range"):
            squared_huber(np.eye(1), np.array([0.0]), delta=delta, x0=np.array([0.5]))
    for delta in (1e-30, 1e30):  # round 12: inside the range, but δ² is not (named L before)
        with pytest.raises(ValueError, match=r"^delta = .* puts L_C"):
            squared_huber(np.eye(1), np.array([0.0]), delta=delta, x0=np.array([0.5]))
    with pytest.raises(ValueError, match=r"^beta = 1e\+308 is outside the package's working range"):
        scaled(squared_lp_norm(3, x0=np.array([1.0, 2.0])), 1e308)
    with pytest.raises(ValueError, match=r"beta = .* makes the scaled constants overflow"):
        scaled(squared_lp_norm(3, x0=np.array([1.0, 2.0])), 1e38)
    with pytest.raises(ValueError, match=r"x and g must have one length d: x has shape \(2,\), g has"):
        lcd1_step(np.zeros(2), np.ones(1), np.eye(2), 1.0)


# -- hierarchical: denormal/huge rates and a Neumann length past int ----------------------------------------
def test_ada_parameters_and_neumann_terms_at_extreme_scales():
    rates = {"lr_x": 1.0, "lr_y": 1.0}
    # round 11 (heldout11): a subnormal or a 1e308 rate is refused by name (it was computed at its limit)
    for extreme in (5e-324, 1e308):
        with pytest.raises(ValueError, match=r"^alpha = .* is outside the package's working range"):
            ada_parameters(4, 1.0, 0.5, 0.0, **rates, alpha=extreme, gamma=1.0)
    # round 12: the working range's edges (1e-300 and 1e300 are outside it) give finite parameters
    assert all(np.isfinite(ada_parameters(4, 1.0, 0.5, 0.0, **rates, alpha=1.2e-38, gamma=3.4e38)))
    with pytest.raises(TypeError, match="noise_sum must be a finite number >= 0, got bool"):
        ada_parameters(4, True, 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=2.0)
    for mu_g, l_g1 in ((5e-324, 1.0), (1.0, 1e308)):  # ZeroDivisionError / OverflowError before
        with pytest.raises(ValueError, match=r"^(mu_g|l_g1) = .* is outside the package's working range"):
            neumann_terms(1000, mu_g, l_g1)


# -- forests, qp, unlearning: complex/empty points, both sides of a mismatch, bool/half tensors --------------
def test_forest_points_refuse_complex_and_empty():
    X = np.arange(6.0).reshape(-1, 1)
    forest = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, X[:, 0])
    with pytest.raises(TypeError, match="X must be real, got complex entries"):
        cooccurrence_kernel(forest, X + 1j)
    with pytest.raises(ValueError, match="X must hold at least one point"):
        cooccurrence_kernel(forest, X[:0])


def test_qp_rows_mismatch_names_the_matrix_and_the_vector():
    with pytest.raises(ValueError, match=r"G and h must have one row per constraint: G has 0 rows"):
        QP(P=np.eye(2), q=np.zeros(2), G=np.zeros((0, 2)), h=np.zeros(2))


def test_orthogonal_gradient_step_refuses_half_empty_and_bool():
    theta = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    grads = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)
    with pytest.raises(TypeError, match="theta must be float32 or float64"):
        orthogonal_gradient_step(theta.half(), grads)
    with pytest.raises(ValueError, match="theta must have at least one entry"):
        orthogonal_gradient_step(theta[:0], grads)
    with pytest.raises(TypeError, match=r"gradients must be a real tensor of numbers, got dtype torch\.bool"):
        orthogonal_gradient_step(theta, grads > 0)


def test_fit_linear_predictors_predict_takes_x_as_documented():
    X = torch.randn(40, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    predict = fit_linear_predictor(X, X[:, 0, 0])
    assert predict(X=X[:2]).shape == (2,)  # the keyword was X_new, so predict(X=...) was a TypeError
    with pytest.raises(ValueError, match=r"^X contains NaN"):
        predict(X=torch.full((1, 2, 3), float("nan"), dtype=torch.float64))


def test_lcd2_gap_has_the_newton_limit_and_no_overflow():
    ghat, D = np.array([1.0, 1.0]), np.array([1.0, 2.0])
    assert lcd2_gap(math.inf, 1.0, ghat, D) == pytest.approx(1.0 - 0.5 - 0.25)  # NaN before
    assert lcd2_gap(3e38, 1.0, ghat, D) == pytest.approx(0.25)  # NaN from λ ≈ 1e154 on
    with pytest.raises(ValueError, match=r"^lam = 1e\+300 is outside the package's working range"):
        lcd2_gap(1e300, 1.0, ghat, D)  # round 12
    assert lcd2_gap(math.inf, 1.0, np.array([1.0]), np.array([0.0])) == -math.inf
    assert lcd2_gap(0.5, 1.0, ghat, D) == pytest.approx(1.0 - 0.5 * 0.5 * 2.5 / 1.5**2 - 0.5 * 0.5 * 3 / 4)


def test_unlearning_models_take_inference_mode_inputs():
    with torch.inference_mode():
        X = torch.zeros(2, 3, dtype=torch.float64)
    for model in (LinearModel(in_features=3, seed=1), DeepLinear(in_features=3, widths=(2,), seed=0),
                  TwoLayerPerceptron(in_features=3, width=2, seed=0)):
        model(X).sum().backward()  # "Inference tensors cannot be saved for backward" before


@pytest.mark.parametrize("make", [gardner_problem, constrained_branin, two_disks_problem, gramacy_problem,
                                  hartmann6_l1_problem])
def test_benchmark_f_and_c_check_their_point(make):
    problem = make()
    for fn in (problem.f, problem.c):
        fn(problem.x_star)
        with pytest.raises(ValueError, match=r"^x must be a point of the problem's \d dimensions"):
            fn(problem.x_star[:1])  # IndexError or a broadcast error before
        with pytest.raises(TypeError, match=r"^x is required"):
            fn(None)
        with pytest.raises(ValueError, match=r"^x contains NaN"):
            fn(np.full_like(problem.x_star, np.nan))


def test_flatten_params_unflatten_takes_theta_as_its_messages_say():
    theta, unflatten = flatten_params({"a": torch.ones(2), "B": torch.zeros(1, 2)})
    assert unflatten(theta=theta)["B"].shape == (1, 2)  # the keyword was `vector`
    with pytest.raises(ValueError, match=r"^theta contains NaN"):
        unflatten(theta=torch.full((4,), float("nan")))


# -- core: the result records check their fields (heldout9 first run: 29 silent) ---------------------------
@pytest.mark.parametrize("field, value, error", [
    ("f_calls", math.inf, TypeError), ("iterations", 0.5, TypeError), ("iterations", 0.0, TypeError),
    ("grad_calls", True, TypeError), ("linear_solves", b"0", TypeError), ("grad_calls", "0", TypeError),
    ("f_calls", np.array([0, 0]), TypeError), ("iterations", [0], TypeError),
    ("hess_calls", math.nan, TypeError),
    ("hess_calls", -1, ValueError), ("wall_time", np.datetime64("2025-01-01"), TypeError),
    ("wall_time", None, TypeError), ("wall_time", np.array(np.nan), TypeError),
    ("wall_time", -1.0, ValueError),
])
def test_stats_checks_every_counter(field, value, error):
    with pytest.raises(error, match=field):
        Stats(**{field: value})
    assert Stats(iterations=np.int64(3), wall_time=np.float32(0.5)).iterations == 3


def test_stats_subclasses_check_their_own_fields_too():
    with pytest.raises(TypeError, match="copies"):
        QuantumStats(copies=1.5)
    with pytest.raises(TypeError, match="retain_loss"):
        UnlearningStats(retain_loss="0")
    assert math.isnan(UnlearningStats().retain_loss)
    assert UnlearningStats(retain_loss=math.inf).retain_loss == math.inf  # a diverged loss (computed)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"value": math.inf}, ValueError, "value must be finite with retcode Success"),
    ({"value": torch.tensor(float("nan"))}, ValueError, "value must be finite with retcode Success"),
    ({"value": np.datetime64("2025-01-01")}, TypeError, "value must be a real number"),
    ({"value": "0.5"}, TypeError, "value must be a real number"),
    ({"x": np.array([1j, 0j])}, TypeError, "x must be real"),
])
def test_solution_checks_value_and_x(kwargs, error, words):
    fields = {"x": np.zeros(2), "value": 0.0, "retcode": RetCode.Success, **kwargs}
    with pytest.raises(error, match=words):
        Solution(**fields)
    assert Solution(np.zeros(2), torch.tensor(1.5), "Success").value == 1.5  # documented: 0-d real, a name
    assert math.isnan(Solution(np.zeros(2), math.nan, RetCode.Failure).value)


# -- ints past float's range (10**400): float() raised a bare OverflowError before the local checks -------
def test_ints_past_floats_range_are_named():
    big = 10**400
    problem = SingleLocationProblem(d=50, L=21, gamma=0.6)
    bb = BlackBoxProblem(lambda x: float(x @ x), ([-1, -1], [1, 1]), budget=100, optimum=0.0, f_ref=4.0)
    for call, name in [(lambda: locate_probability(problem, big), "mu"), (lambda: check_rho(big), "rho"),
                       (lambda: VPSchedule().alpha_bar(big), "t"),
                       (lambda: gaussian_cs((4, 4), big, seed=0), "ratio"),
                       (lambda: ssim(np.zeros((8, 8)), np.zeros((8, 8)), data_range=big), "data_range"),
                       (lambda: BlackBoxProblem(lambda x: 0.0, ([-1], [1]), budget=10, target=big), "target"),
                       (lambda: normalized_regret(-big, bb), "value"),
                       (lambda: ada_parameters(4, -big, 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=2.0),
                        "noise_sum"),
                       (lambda: held_out_images(8, big), "count")]:
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            call()
    assert normalized_regret(big, bb) == math.inf and to_float(-big) == -math.inf


def test_sparse_tensors_are_named_by_the_shared_array_helpers():
    sparse = torch.zeros(2).to_sparse()
    with pytest.raises(TypeError, match=r"^mu must be a dense \(strided\) tensor"):
        expected_improvement(sparse, np.ones(2), 0.0)  # torch's "can't convert Sparse layout" before
    with pytest.raises(TypeError, match=r"^q must be a dense \(strided\) tensor"):
        QP(P=np.eye(2), q=sparse)


def test_solve_options_tol_past_floats_range_is_named():
    with pytest.raises(ValueError, match=r"^tol must be a finite float > 0 or None"):
        SolveOptions(tol=10**400)  # OverflowError before
