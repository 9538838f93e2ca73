"""Guidance: Corollary 1's formulas, and Theorem 1's identity on a Gaussian toy in closed form."""

import numpy as np
import torch

from algorithms.chance import (
    GaussianScore,
    VPSchedule,
    first_order_guidance,
    guidance_term,
    second_order_guidance,
)


def test_second_order_reduces_to_first_without_curvature():
    g = torch.tensor([[0.3, -1.0], [2.0, 0.5]], dtype=torch.float64)
    zero = torch.zeros(2, 2, 2, dtype=torch.float64)
    torch.testing.assert_close(
        second_order_guidance(g, zero, beta=1.7, sigma2=0.4), first_order_guidance(g, beta=1.7)
    )


def test_second_order_matches_dense_solve():
    H = torch.tensor([[[2.0, 0.5], [0.5, 1.0]]], dtype=torch.float64)
    g = torch.tensor([[1.0, -1.0]], dtype=torch.float64)
    expected = -3.0 * np.linalg.solve(np.eye(2) + 3.0 * 0.2 * H[0].numpy(), g[0].numpy())
    np.testing.assert_allclose(second_order_guidance(g, H, beta=3.0, sigma2=0.2)[0].numpy(), expected)


def test_guided_score_is_score_of_diffused_product():
    """Theorem 1 in closed form: data N(m0, I), f = ½(x − a)ᵀH(x − a); the product is Gaussian, so is
    its diffusion, whose score must equal data score + G_t (second order, Tweedie's variance)."""
    schedule = VPSchedule()
    m0, a, H, beta = np.array([1.0, -0.5]), np.array([-1.0, 1.0]), np.diag([1.0, 3.0]), 0.7
    model = GaussianScore(m0, np.ones(2), schedule)
    Ht, at = torch.as_tensor(H), torch.as_tensor(a)

    def f(x):
        return 0.5 * (((x - at) @ Ht) * (x - at)).sum(dim=1)

    cov = np.linalg.inv(np.eye(2) + beta * H)
    mean = cov @ (m0 + beta * H @ a)
    x = np.random.default_rng(0).normal(size=(5, 2))
    for t in (0.05, 0.3, 0.8):
        ab = schedule.alpha_bar(t)
        diffused_cov = ab * cov + (1 - ab) * np.eye(2)
        exact = -(x - np.sqrt(ab) * mean) @ np.linalg.inv(diffused_cov)
        G, score = guidance_term(model, f, torch.as_tensor(x), t, beta=beta, order="second")
        np.testing.assert_allclose((G + score).numpy(), exact, rtol=1e-9, atol=1e-10)


def test_guidance_none_is_zero_and_first_differs_on_quadratic():
    model = GaussianScore([0.0, 0.0], [1.0, 1.0], VPSchedule())
    x = torch.ones(3, 2, dtype=torch.float64)

    def f(z):
        return (z**2).sum(dim=1)

    G0, _ = guidance_term(model, f, x, 0.5, beta=1.0, order="none")
    G1, _ = guidance_term(model, f, x, 0.5, beta=1.0, order="first")
    G2, _ = guidance_term(model, f, x, 0.5, beta=1.0, order="second")
    assert float(G0.abs().max()) == 0.0
    assert float((G1 - G2).abs().max()) > 1e-3
