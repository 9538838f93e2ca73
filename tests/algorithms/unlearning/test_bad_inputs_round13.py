"""#43 round 13: unlearning step sizes, strength schedules, Fraction scalars, stated domains."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import torch

import algorithms.unlearning as U
from algorithms._validation import WORKING_MAX, WORKING_MIN

STEPPERS = [U.GradientDescent, U.NegGrad, U.NegGradPlus, U.Ridge, U.MinNormOG, U.Retrain]


@pytest.mark.parametrize("cls", STEPPERS, ids=lambda c: c.__name__)
def test_step_size_is_zero_or_a_positive_scale(cls):
    # the README's rule for a step size that may be 0, stated in each docstring
    assert "0 or at least 1.18e-38" in cls.__doc__
    assert cls(lr=0.0).lr == 0.0 and cls(lr=WORKING_MIN).lr == WORKING_MIN and cls(lr=2**64).lr == 2.0**64
    with pytest.raises(ValueError, match=r"^lr = 1e-39 is outside the package's working range"):
        cls(lr=1e-39)


@pytest.mark.parametrize("cls", STEPPERS, ids=lambda c: c.__name__)
def test_fraction_step_size_is_its_float(cls):
    assert cls(lr=Fraction(1, 2)).lr == 0.5


def test_fraction_strengths_are_their_floats():
    assert U.MinNormOG(lambda_schedule=Fraction(1, 2)).lambda_schedule == 0.5
    theta = torch.tensor([1.0, 2.0], dtype=torch.float64)
    G = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    assert torch.equal(U.orthogonal_gradient_step(theta, G, Fraction(1)),
                       U.orthogonal_gradient_step(theta, G, 1.0))


@pytest.mark.parametrize("args", [(0.5, 0.5, 2000), (0.5, 0.01, 40), (0.5, 1.2e-38, 3),
                                  (WORKING_MIN, 0.5, 3)])
def test_strength_schedule_never_overflows_and_minnormog_takes_it(args):
    # λ grew past 3.4e38 (MinNormOG refused its own schedule) and then to inf ("no projection", silently)
    schedule = U.strength_schedule(*args)
    assert all(math.isfinite(v) and v <= WORKING_MAX for v in schedule)
    U.MinNormOG(lambda_schedule=schedule)


def test_ridge_gamma_message_states_its_domain():
    with pytest.raises(ValueError, match=r"^gamma must be in \(0, 1\], got -1"):
        U.Ridge(gamma=-1)


def test_orthogonal_step_rank_cutoff_follows_the_dtype():
    # float32 dependent rows kept singular values ~1e-7 σ_max above the 1e-10 cut: an O(1) different answer
    g = torch.Generator().manual_seed(0)
    G1 = torch.randn(2, 6, dtype=torch.float64, generator=g)
    G = torch.cat([G1, (G1[0] + G1[1])[None], (G1[0] - 3 * G1[1])[None]])
    theta = torch.randn(6, dtype=torch.float64, generator=g)
    r64 = U.orthogonal_gradient_step(theta, G, 0.0)
    r32 = U.orthogonal_gradient_step(theta.float(), G.float(), 0.0)
    assert float((r64 - r32.double()).abs().max()) < 1e-5


@pytest.mark.parametrize("w", [torch.tensor([1e-200, 0.0, 0.0], dtype=torch.float64),
                               torch.tensor([1e-30, 0.0, 0.0])], ids=["float64", "float32"])
def test_balanced_factorization_of_a_tiny_predictor_is_not_zero(w):
    # ‖w‖ squared the entries to 0: θ = 0, whose predictor is 0 ≠ w
    theta = U.balanced_factorization(U.DeepLinear(in_features=3, widths=(2, 2), seed=0), w)
    assert float(theta.abs().max()) > 0


def test_active_neurons_counts_tiny_nonzero_neurons():
    # |c_i|·‖a_i‖ underflowed to 0 for entries of 1e-200
    net = U.TwoLayerPerceptron(in_features=2, width=3, seed=0)
    theta = torch.tensor([1e-200, 1e-200, 2.0, 1e-200, 0.0, 1e-170, 0.0, 1.0, 1.0], dtype=torch.float64)
    assert U.active_neurons(net, theta) == 3


def test_lists_of_fractions_are_data():
    # "training X must be numeric, got dtype object" while the other families take lists of Fractions
    retain, _ = U.forget_split([[Fraction(1), Fraction(2)], [Fraction(3), Fraction(4)], [Fraction(5), 6]],
                               [Fraction(1), Fraction(2), Fraction(3)], [0])
    plain, _ = U.forget_split([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [1.0, 2.0, 3.0], [0])
    assert torch.equal(retain[0], plain[0]) and torch.equal(retain[1], plain[1])


@pytest.mark.parametrize(("hidden", "steps"), [((2,) * 1000, 3000), ((2,) * 10000, 100000)])
def test_sine_task_bounds_the_training_cost(hidden, steps):
    # each cap valid alone (10000 layers, 100000 steps), their product a training of weeks
    with pytest.raises(ValueError, match=r"^hidden = .* is too long a training"):
        U.sine_poisoning_task(n_retain=5, n_forget=1, hidden=hidden, train_steps=steps)


def test_deep_linear_task_too_deep_is_blamed_on_widths():
    # "params has an entry of magnitude 1.6e152": params is no argument of deep_linear_task
    with pytest.raises(ValueError, match=r"^widths = .* is too deep for this task"):
        U.deep_linear_task(n=4, d=6, widths=(3,) * 2000, n_forget=1)
