"""#43 round 12: the working range (README) in the unlearning family, one test per class."""

import pytest

from algorithms.unlearning import Ridge


@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_a_scale_whose_zero_is_refused_refuses_a_tiny_one(tiny):
    # gamma in (0, 1]: 1e-39 zeroed the ridge weight after one step, the 0 it excludes, in silence
    with pytest.raises(ValueError, match=r"^gamma = .* is outside the package's working range"):
        Ridge(gamma=tiny)
    assert Ridge(gamma=1.2e-38).gamma == 1.2e-38


@pytest.mark.parametrize("name", ["theta", "gradients"])
@pytest.mark.parametrize("huge", [1e39, -1e39, 1e300])
def test_orthogonal_gradient_step_refuses_entries_past_the_range(name, huge):
    import torch

    from algorithms.unlearning import orthogonal_gradient_step

    args = {"theta": torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64),
            "gradients": torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64)}
    args[name] = args[name].clone()
    args[name].view(-1)[0] = huge
    with pytest.raises(ValueError, match=rf"^{name} has an entry of magnitude .* outside the package's"):
        orthogonal_gradient_step(args["theta"], args["gradients"])


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_strength_schedule_refuses_a_tiny_rate(position, tiny):
    from algorithms.unlearning import strength_schedule

    rates = [0.5, 0.5]
    rates[position] = tiny
    name = ("lambda_reg", "gamma_reg")[position]
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the package's working range"):
        strength_schedule(*rates, 4)


@pytest.mark.parametrize("name", ["retain_loss", "forget_loss", "distance_to_retrain"])
@pytest.mark.parametrize("bad", [-1.0, -1e39, -float("inf")])
def test_stats_figures_below_zero_are_refused_and_computed_ones_unbounded(name, bad):
    import math

    from algorithms.unlearning import UnlearningStats

    with pytest.raises(ValueError, match=rf"^{name} must be >= 0"):
        UnlearningStats(**{name: bad})
    stats = UnlearningStats(**{name: 1.0})
    with pytest.raises(ValueError, match=rf"^{name} must be >= 0"):
        setattr(stats, name, bad)
    assert getattr(stats, name) == 1.0  # a refused value leaves the record as it was
    assert math.isnan(UnlearningStats().retain_loss)  # NaN: not computed
    # a computed figure is not held to the working range (README): a diverged loss is inf
    assert getattr(UnlearningStats(**{name: math.inf}), name) == math.inf


def _ridge():
    from algorithms.unlearning import Ridge
    return Ridge(lr=3e38, lam=3e38)


def _neg_grad_plus():
    from algorithms.unlearning import NegGradPlus
    return NegGradPlus(lr=3e38, alpha=3e38)


@pytest.mark.parametrize("make", [_ridge, _neg_grad_plus])
def test_an_iterate_past_the_range_is_diverged_not_a_theta_error(make):
    # the run's own θ (1e77) reached the model's forward as a caller's parameters: "theta has an entry ..."
    import math

    from algorithms import RetCode, solve
    from algorithms.unlearning import linear_task

    sol = solve(linear_task(5, 8, 2, seed=0), make(), maxiters=3)
    assert sol.retcode is RetCode.Diverged and math.isnan(sol.value)


def test_effective_predictor_refuses_an_unknown_parameter_key():
    import torch

    from algorithms.unlearning import DeepLinear, effective_predictor

    model = DeepLinear(4, (5, 3), seed=0)
    params = {**{k: p.detach() for k, p in model.named_parameters()}, "zz": torch.ones(1)}
    with pytest.raises(ValueError, match=r"^params has keys that are not the model's parameters: \['zz'\]"):
        effective_predictor(model, params)  # the key was dropped in silence


def _two_layer():
    from algorithms.unlearning import two_layer_task
    return two_layer_task(4, 3, 2**31, 1)


def _sine():
    from algorithms.unlearning import sine_poisoning_task
    return sine_poisoning_task(5, 1, hidden=(2**31,), train_steps=2)


def _deep():
    from algorithms.unlearning import DeepLinear
    return DeepLinear(3, (2**20, 2**20))


@pytest.mark.parametrize("build, name", [(_two_layer, "width"), (_sine, "hidden"), (_deep, "widths")])
def test_widths_past_memory_are_refused_before_building(build, name):
    # granted by the kernel's overcommit, then paged into the OOM killer with no error (a hang)
    with pytest.raises(ValueError, match=rf"{name}=.* is too large: the arrays it sizes cannot be allocated"):
        build()


def test_a_user_models_own_exception_mid_run_is_named():
    import torch

    from algorithms import solve
    from algorithms._validation import UserCallableError
    from algorithms.unlearning import GradientDescent, UnlearningProblem

    class Flaky(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 1, dtype=torch.float64)
            self.armed = False

        def forward(self, x):
            if self.armed:
                raise KeyError("boom")
            return self.lin(x)

    X = torch.randn(8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = X.sum(1, keepdim=True)
    model = Flaky()
    params = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    problem = UnlearningProblem(model, params, (X[:6], y[:6]), (X[6:], y[6:]))
    model.armed = True
    with pytest.raises(UserCallableError, match=r"^Flaky.forward\(X\) raised KeyError"):  # a bare KeyError
        solve(problem, GradientDescent(lr=0.1), maxiters=3)


def test_params_written_past_the_range_after_construction_are_named():
    from algorithms import solve
    from algorithms.unlearning import GradientDescent, linear_task

    problem = linear_task(5, 8, 2, seed=0)
    problem.params.data[0] = 1e39  # through .data: no version bump; named "theta" (an internal name) before
    with pytest.raises(ValueError, match=r"^params has entries past the working range"):
        solve(problem, GradientDescent(lr=0.1), maxiters=3)


def test_strength_schedule_takes_numpy_and_fraction_rates():
    from fractions import Fraction

    import numpy as np

    from algorithms.unlearning import strength_schedule

    # refused "must be in (0, 1]" (false) before
    assert strength_schedule(np.float32(0.5), Fraction(1, 2), 3) == strength_schedule(0.5, 0.5, 3)
