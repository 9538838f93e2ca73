"""Issue #43 round 12 (lead): the package-wide working range and the records' answers."""

import math

import numpy as np
import pytest
import torch

from algorithms._validation import (
    as_float_array,
    as_real_array,
    check_finite_data,
    check_finite_real,
    check_nonnegative,
    check_positive,
)
from algorithms.core import WORKING_MAX, WORKING_MIN, IterationMonitor, RetCode, Solution, SolveOptions


@pytest.mark.parametrize("check, value", [
    (check_positive, 5e-324), (check_positive, math.nextafter(WORKING_MIN, 0.0)), (check_positive, 1e39),
    (check_positive, 2**128), (check_nonnegative, 1e308), (check_finite_real, -1e39),
    (check_finite_real, 10**100),
])
def test_scalars_outside_the_working_range_are_refused_by_name(check, value):
    with pytest.raises(ValueError, match=r"^lr = .* is outside the package's working range"):
        check("lr", value)


@pytest.mark.parametrize("check, value", [
    (check_positive, WORKING_MIN), (check_positive, WORKING_MAX), (check_nonnegative, 0.0),
    (check_nonnegative, 5e-324), (check_finite_real, -WORKING_MAX), (check_finite_real, 5e-324),
])
def test_scalars_at_the_working_range_edges_are_taken(check, value):
    assert check("lr", value) == float(value)


@pytest.mark.parametrize("convert", [
    lambda v: as_float_array("X", v), lambda v: as_real_array("X", v),
    lambda v: check_finite_data("X", torch.tensor(v, dtype=torch.float64)),
])
def test_entries_past_the_working_range_are_refused_unless_computed_by_a_run(convert):
    with pytest.raises(ValueError, match=r"^X has an entry of magnitude 1e\+39, outside the package's"):
        convert([1.0, -1e39])
    convert([1.0, -WORKING_MAX])   # the edge is inside
    # what a run computes (a diverging iterate, a user's gradient) is not bounded: the run says Diverged
    assert as_real_array("grad(x)", [1e300], check_range=False)[0] == 1e300


def test_solve_tol_follows_the_working_range():
    with pytest.raises(ValueError, match=r"^tol = 5e-324 is outside the package's working range"):
        SolveOptions(tol=5e-324)
    assert SolveOptions(tol=WORKING_MIN).tol == WORKING_MIN


@pytest.mark.parametrize("retcode", ["MaxIters", "MaxTime", "Stalled", "Terminated", "Degenerate"])
def test_a_non_finite_answer_is_refused_beside_a_retcode_that_returns_an_answer(retcode):
    # a NaN x beside MaxIters was taken: a blow-up is Diverged
    with pytest.raises(ValueError, match=rf"^x must be finite with retcode {retcode}"):
        Solution(x=np.array([1.0, np.nan]), value=1.0, retcode=retcode)
    with pytest.raises(ValueError, match=rf"^x must be finite with retcode {retcode}"):
        Solution(x=torch.tensor([math.inf]), value=1.0, retcode=retcode)
    sol = Solution(x=np.array([1.0]), value=1.0, retcode=retcode)
    with pytest.raises(ValueError, match=r"^x must be finite"):
        sol.x = np.array([np.inf])


def test_no_answer_only_at_a_horizon_and_blow_ups_as_diverged():
    # a backend capped before its first iterate has no answer: all-NaN x at MaxIters/MaxTime only
    assert Solution(x=np.full(2, np.nan), value=math.nan, retcode="MaxIters").x.size == 2
    with pytest.raises(ValueError, match=r"^x must be finite with retcode Stalled"):
        Solution(x=np.full(2, np.nan), value=math.nan, retcode="Stalled")
    for retcode in ("Diverged", "Failure", "Infeasible", "Unbounded"):
        sol = Solution(x=np.array([np.nan, np.inf]), value=math.nan, retcode=retcode)
        assert sol.retcode is RetCode(retcode)


def test_monitor_total_past_int64_is_a_bar_without_a_length():
    monitor = IterationMonitor(SolveOptions(progress=True), total=2**64)
    assert monitor._bar.total is None
    monitor.close()
    with pytest.raises(ValueError, match=r"^total must be an int >= 0"):
        IterationMonitor(SolveOptions(), total=-1)


@pytest.mark.parametrize("x", [[math.nan, 1.0], (math.inf,), np.array([math.nan, 1.0], dtype=object),
                               {"a": math.nan}, [[np.array([np.inf])]], {math.nan}, frozenset({math.inf}),
                               [[[[[[math.nan]]]]]], {math.nan: 1}, __import__("decimal").Decimal("NaN")])
def test_a_success_refuses_a_non_finite_answer_held_in_a_container(x):
    with pytest.raises(ValueError, match=r"^x must be finite with retcode Success"):
        Solution(x=x, value=0.0, retcode="Success")


def test_a_str_array_or_a_deeply_nested_complex_is_not_an_answer():
    with pytest.raises(TypeError, match=r"^x must be the answer a family returns"):
        Solution(x=np.array(["a"]), value=0.0, retcode="Success")
    with pytest.raises(TypeError, match=r"^x must be real"):
        Solution(x=[[[[[1j]]]]], value=0.0, retcode="Success")


@pytest.mark.parametrize("maxiters", [2**64, 10**100, np.uint64(2**64 - 1)])
def test_maxiters_is_a_count_at_most_int64(maxiters):
    with pytest.raises(ValueError, match=r"^maxiters must be <= 2\*\*63 - 1"):
        SolveOptions(maxiters=maxiters)


def test_lists_of_fractions_and_big_ints_are_numbers():
    from fractions import Fraction

    assert as_float_array("x0", [Fraction(1, 2), 2**64]).tolist() == [0.5, 2.0**64]
    with pytest.raises(TypeError, match=r"^x0 must hold real numbers"):
        as_float_array("x0", [10**400, 1])    # past float's range: named, not an OverflowError
    with pytest.raises(TypeError, match=r"^x0 must be numeric, got dtype object"):
        as_float_array("x0", [Fraction(1, 2), "a"])


def test_stats_wall_time_is_held_to_the_working_range():
    from algorithms.core import Stats

    with pytest.raises(ValueError, match=r"^wall_time must be a float in \[0, 3.403e\+38\] seconds"):
        Stats(wall_time=1e300)
    assert math.isnan(Stats().wall_time) and Stats(wall_time=WORKING_MAX).wall_time == WORKING_MAX


def test_a_fraction_field_is_stored_as_a_float():
    # LpPathNormTraining(lr=Fraction(1, 100)) kept the Fraction: numpy's ufuncs refused the object operand
    from fractions import Fraction

    from algorithms.nets.lp_training import LpPathNormTraining

    algorithm = LpPathNormTraining(lr=Fraction(1, 100), penalty=Fraction(100))
    assert type(algorithm.lr) is float and algorithm.lr == 0.01 and type(algorithm.penalty) is float


def test_a_float32_two_layer_model_starts_from_the_float64_weights_rounded():
    # float32 data gave another trajectory: torch's float32 draws are another sequence than its float64 ones
    from algorithms.nets.two_layer import TwoLayerReLU

    wide, narrow = (TwoLayerReLU(3, 4, seed=5, dtype=d) for d in (torch.float64, torch.float32))
    assert torch.equal(wide.W.detach().to(torch.float32), narrow.W.detach())


@pytest.mark.parametrize("k", [2**63, 10**100, np.uint64(2**64 - 1)])
def test_rfae_counts_past_int64_are_refused(k):
    from algorithms.forests import RFAutoencoder

    with pytest.raises(ValueError, match=r"^k must be <= 2\*\*63 - 1"):
        RFAutoencoder(k=k).fit(np.random.default_rng(0).normal(size=(12, 3)))


@pytest.mark.parametrize("entry", [3.5e38, 1e300])
def test_a_kernel_past_the_working_range_is_refused(entry):
    from algorithms.forests.diffusion import dense_diffusion_map

    K = np.ones((3, 3))
    K[0, 1] = K[1, 0] = entry
    with pytest.raises(ValueError, match=r"^K has an entry of magnitude"):
        dense_diffusion_map(K, 1)


@pytest.mark.parametrize("build, name", [
    (lambda: __import__("algorithms.optimizers.models", fromlist=["MLP"]).MLP(2**62, 3, 8, 1), "in_features"),
    (lambda: __import__("algorithms.nets.two_layer", fromlist=["T"]).TwoLayerReLU(3, 2**62), "width"),
])
def test_a_size_past_torch_storage_is_named(build, name):
    # torch's RuntimeError "Storage size calculation overflowed" reached the user
    with pytest.raises(ValueError, match=rf": {name}=4611686018427387904 is too large"):
        build()


def test_gd_step_with_a_fraction_lr_answers_an_array():
    from fractions import Fraction

    from algorithms.curvature.gradient_descent import gd_step

    got = gd_step(np.array([1.0, 2.0]), np.array([1.0, 1.0]), Fraction(1, 4))
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.tolist() == [0.75, 1.75]


def test_a_linear_model_too_large_names_the_larger_size():
    from algorithms.unlearning.models import LinearModel

    with pytest.raises(ValueError, match=r"^LinearModel: in_features=1099511627776 is too large"):
        LinearModel(in_features=2**40)


def test_forget_split_names_an_empty_x_and_takes_longdouble_as_float64():
    from algorithms.unlearning import forget_split

    with pytest.raises(ValueError, match=r"^training X must not be empty"):
        forget_split(np.ones((0, 2)), np.ones(0), [0])
    retain, _ = forget_split(np.ones((4, 2), dtype=np.longdouble), np.ones(4, dtype=np.longdouble), [0])
    assert retain[0].dtype == torch.float64   # torch has no longdouble: its TypeError named nothing


@pytest.mark.parametrize("key, value", [("maximize", "no"), ("amsgrad", "yes"), ("capturable", 1),
                                        ("foreach", "off")])
def test_torch_flags_passed_through_are_bools(key, value):
    # maximize="no" is truthy: OptimizerTraining("adamw") maximized the loss and ended Diverged, in silence
    from algorithms.nets import SAM
    from algorithms.optimizers.training import OptimizerTraining

    with pytest.raises(TypeError, match=rf"^hyperparameters: {key} must be a bool"):
        OptimizerTraining("adamw", hyperparameters={key: value})
    with pytest.raises(TypeError, match=rf"^{key} must be a bool"):
        SAM([torch.nn.Parameter(torch.ones(2))], torch.optim.SGD, lr=0.1, **{key: value})
    assert OptimizerTraining("adamw", hyperparameters={key: False}).hyperparameters[key] is False


def test_chance_guidance_refuses_half_precision():
    from algorithms.chance.guidance import first_order_guidance

    with pytest.raises(TypeError, match=r"^grad_f must be a real floating tensor \(float32 or float64\)"):
        first_order_guidance(torch.ones(2, 2, dtype=torch.float16), beta=1.0)
