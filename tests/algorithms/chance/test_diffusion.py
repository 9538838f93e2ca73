"""VP schedule, exact Gaussian score, Tweedie's mean, score matching."""

import math

import numpy as np
import scipy.integrate
import torch

from algorithms.chance import GaussianScore, ScoreMLP, VPSchedule, train_score, tweedie_mean


def test_alpha_bar_is_exp_of_integrated_beta():
    schedule = VPSchedule(beta_min=0.2, beta_max=10.0)
    for t in (0.1, 0.5, 1.0):
        integral, _ = scipy.integrate.quad(schedule.beta, 0.0, t)
        assert abs(schedule.alpha_bar(t) - np.exp(-integral)) < 1e-12


def test_gaussian_score_is_gradient_of_log_density():
    schedule = VPSchedule()
    model = GaussianScore([1.0, -2.0], [0.5, 2.0], schedule)
    t = 0.3
    ab = schedule.alpha_bar(t)
    mean, var = np.sqrt(ab) * np.array([1.0, -2.0]), ab * np.array([0.25, 4.0]) + 1 - ab
    x = np.array([0.3, 0.7])

    def log_p(z):
        return -0.5 * np.sum((z - mean) ** 2 / var)

    fd = np.array([(log_p(x + 1e-5 * e) - log_p(x - 1e-5 * e)) / 2e-5 for e in np.eye(2)])
    score = model.score(torch.as_tensor(x[None]), t)[0].numpy()
    np.testing.assert_allclose(score, fd, rtol=1e-7)


def test_tweedie_mean_is_gaussian_posterior_mean():
    schedule = VPSchedule()
    m0, s0 = 1.5, 0.7
    model = GaussianScore([m0], [s0], schedule)
    t, xt = 0.4, 0.2
    ab = schedule.alpha_bar(t)
    # posterior of x0 given xt = √ᾱ x0 + √(1 − ᾱ) ε: precision 1/s0² + ᾱ/(1 − ᾱ)
    posterior = (m0 / s0**2 + np.sqrt(ab) * xt / (1 - ab)) / (1 / s0**2 + ab / (1 - ab))
    assert abs(float(tweedie_mean(model, torch.tensor([[xt]], dtype=torch.float64), t)) - posterior) < 1e-12


def test_score_matching_learns_a_gaussian_score():
    torch.manual_seed(0)
    data = 2.0 + 0.5 * torch.randn(1000, 1, dtype=torch.float64)
    model = ScoreMLP(1, hidden=32, seed=0)
    losses = train_score(model, data, steps=300, lr=5e-3, batch_size=128, seed=0)
    assert np.mean(losses[-100:]) < np.mean(losses[:100])
    exact = GaussianScore([2.0], [0.5], model.schedule)
    x = torch.linspace(-1.0, 3.0, 9, dtype=torch.float64)[:, None]
    with torch.no_grad():
        learned, truth = model.score(x, 0.5), exact.score(x, 0.5)
    # at t = 0.5 the diffused density is N(√ᾱ·2, ≈1): a smooth target the small MLP fits to ~10 %
    assert float((learned - truth).abs().max()) < 0.15 * float(truth.abs().max())


def test_score_mlp_seeded_init_is_reproducible():
    a, b = ScoreMLP(3, hidden=8, seed=4), ScoreMLP(3, hidden=8, seed=4)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert (a.in_features, a.out_features) == (4, 3)


def test_a_hooked_gaussian_score_takes_the_general_tweedie_mean():
    """A forward hook that changes a GaussianScore's output changes its score; the closed form, which reads
    only the mean and variance buffers, answered for the unhooked model in silence (red25b)."""
    schedule = VPSchedule()
    model = GaussianScore([1.0, -2.0], [0.5, 2.0], schedule)
    x, t = torch.tensor([[0.3, 0.7]], dtype=torch.float64), 0.4
    plain = tweedie_mean(model, x, t)
    handle = model.register_forward_hook(lambda module, inputs, output: 2.0 * output)
    try:
        score = model.score(x, t)
        ab = schedule.alpha_bar(t)
        expected = (x + (1.0 - ab) * score) / math.sqrt(ab)   # Tweedie's formula on the hooked score
        hooked = tweedie_mean(model, x, t)
    finally:
        handle.remove()
    assert not torch.allclose(hooked, plain)
    assert torch.allclose(hooked, expected, rtol=1e-12, atol=0.0)   # the general path, two roundings
    assert torch.equal(tweedie_mean(model, x, t), plain)            # hook removed: the closed form again
