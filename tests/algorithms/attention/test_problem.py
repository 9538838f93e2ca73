"""Unit tests of the single-location data model: the generator against its definition."""

import math

import numpy as np
import pytest
import torch

from algorithms.attention import (
    SingleLocationProblem,
    link_function,
    overlaps,
    sample_batch,
    vectors_with_overlaps,
)

torch.set_num_threads(1)


def test_oracle_is_orthonormal_and_seeded():
    p = SingleLocationProblem(d=7, L=3, gamma=0.5, oracle_seed=4)
    u_star, v_star = p.oracle()
    gram = torch.stack([u_star, v_star]) @ torch.stack([u_star, v_star]).T
    torch.testing.assert_close(gram, torch.eye(2, dtype=torch.float64), atol=1e-12, rtol=0)
    again = SingleLocationProblem(d=7, L=3, gamma=0.5, oracle_seed=4)
    torch.testing.assert_close(p.oracle()[0], again.oracle()[0])
    assert not torch.allclose(u_star, SingleLocationProblem(d=7, L=3, gamma=0.5, oracle_seed=5).oracle()[0])


@pytest.mark.parametrize("variant, scale", [("dohmatob", math.sqrt(1 - 0.6**2)), ("marion", math.sqrt(0.5))])
def test_secret_token_law(variant, scale):
    p = SingleLocationProblem(d=6, L=4, gamma=0.6, variant=variant)
    X, y, secret = sample_batch(p, 20000, seed=1)
    u_star, v_star = p.oracle()
    rows = torch.arange(X.shape[0])
    sec = X[rows, secret]
    # mean s √d u*: standard error of each coordinate is γ/√n ≈ 0.004; 0.02 is 5 standard errors
    torch.testing.assert_close(sec.mean(0), scale * math.sqrt(6) * u_star, atol=0.02, rtol=0)
    centred = sec - scale * math.sqrt(6) * u_star
    torch.testing.assert_close(centred.T @ centred / X.shape[0], 0.36 * torch.eye(6, dtype=torch.float64),
                               atol=0.02, rtol=0)
    mask = torch.ones(X.shape[:2], dtype=torch.bool)
    mask[rows, secret] = False
    noise = X[mask]
    torch.testing.assert_close(noise.T @ noise / noise.shape[0], torch.eye(6, dtype=torch.float64),
                               atol=0.02, rtol=0)
    # the secret index is uniform: each of the 4 positions about n/4 (sd ≈ 61)
    counts = torch.bincount(secret, minlength=4).double()
    assert torch.all((counts - 5000).abs() < 300)
    torch.testing.assert_close(y, sec @ v_star)


def test_labels_use_link_and_noise():
    p = SingleLocationProblem(d=5, L=3, gamma=0.5, link="quadratic", epsilon=0.3)
    X, y, secret = sample_batch(p, 20000, seed=2)
    clean = (X[torch.arange(X.shape[0]), secret] @ p.oracle()[1]) ** 2
    residual = y - clean
    assert abs(float(residual.std()) - 0.3) < 0.01
    assert abs(float(residual.mean())) < 0.01


def test_sampling_is_deterministic_and_dtype_kept():
    p = SingleLocationProblem(d=4, L=3, gamma=0.5, dtype=np.float32)
    X1, y1, _ = sample_batch(p, 5, seed=3)
    X2, y2, _ = sample_batch(p, 5, seed=3)
    assert X1.dtype == torch.float32 and torch.equal(X1, X2) and torch.equal(y1, y2)


def test_links():
    t = torch.tensor([-2.0, 0.5])
    assert torch.equal(link_function("linear")(t), t)
    assert torch.equal(link_function("quadratic")(t), torch.tensor([4.0, 0.25]))
    assert torch.equal(link_function("relu")(t), torch.tensor([0.0, 0.5]))


@pytest.mark.parametrize("target", [dict(mu=0.3, nu=-0.4, zeta=0.2, eta=0.1, rho=0.5),
                                    dict(mu=1.0, nu=0.2, zeta=0.0, eta=0.0, rho=0.0),
                                    dict(mu=0.0, nu=1.0)])
def test_vectors_with_overlaps(target):
    p = SingleLocationProblem(d=9, L=3, gamma=0.5)
    u, v = vectors_with_overlaps(p, **target)
    assert abs(float(u.norm()) - 1) < 1e-12 and abs(float(v.norm()) - 1) < 1e-12
    got = overlaps(u, v, *p.oracle())
    for key, value in target.items():
        assert abs(got[key] - value) < 1e-10, (key, got[key], value)


def test_infeasible_overlaps_rejected():
    p = SingleLocationProblem(d=9, L=3, gamma=0.5)
    with pytest.raises(ValueError, match="Gram matrix"):
        vectors_with_overlaps(p, mu=1.0, nu=0.3, zeta=0.0, rho=0.2)  # u = u* forces rho = zeta
