"""Issue #43 round 12: the working range (README "Working range") in the chance family, by class."""

import math

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
    assert min_samples(1.2e-38) == math.ceil(1 / 1.2e-38 - 1e-12)


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
    (lambda: beamforming_problem(n_samples=50, rate_target=200.0), r"rate_target = 200.0"),
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
