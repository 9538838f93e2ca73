"""The guided reverse sampler: unguided moments, step cap, divergence."""

import numpy as np
import torch

from algorithms.chance import GaussianScore, VPSchedule, guided_reverse_sample


def _model():
    return GaussianScore([2.0, -1.0], [0.5, 1.5], VPSchedule())


def test_unguided_samples_follow_the_data():
    run = guided_reverse_sample(
        _model(),
        lambda x: x.sum(dim=1),
        n_samples=4000,
        beta=1.0,
        guidance="none",
        n_steps=200,
        corrector_steps=1,
        seed=0,
    )
    x = run.x.numpy()
    # 4000 draws: the standard error of the mean is <= 1.5/√4000 = 0.024, of the sd about 0.017
    np.testing.assert_allclose(x.mean(axis=0), [2.0, -1.0], atol=0.08)
    np.testing.assert_allclose(x.std(axis=0), [0.5, 1.5], atol=0.08)
    assert run.status == "completed" and run.steps == 200


def test_step_cap_stops_the_run():
    run = guided_reverse_sample(
        _model(), lambda x: x.sum(dim=1), n_samples=8, beta=1.0, n_steps=20, max_steps=5, seed=0
    )
    assert (run.status, run.steps) == ("stopped", 5)


def test_huge_guidance_diverges():
    run = guided_reverse_sample(
        _model(), lambda x: x.sum(dim=1), n_samples=8, beta=3e38, n_steps=20, guidance="first", seed=0
    )
    assert run.status == "diverged"


def test_same_seed_same_samples_and_dtype():
    a = guided_reverse_sample(_model(), lambda x: x.sum(dim=1), n_samples=8, beta=1.0, n_steps=5, seed=2)
    b = guided_reverse_sample(_model(), lambda x: x.sum(dim=1), n_samples=8, beta=1.0, n_steps=5, seed=2)
    assert torch.equal(a.x, b.x)


def test_on_step_can_terminate():
    run = guided_reverse_sample(
        _model(),
        lambda x: x.sum(dim=1),
        n_samples=4,
        beta=1.0,
        n_steps=10,
        seed=0,
        on_step=lambda k, t, x: k == 2,
    )
    assert (run.status, run.steps) == ("terminated", 3)
