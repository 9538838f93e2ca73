"""Unit tests of algorithms.imaging.priors: the TV prox against its optimality, the projection prior."""

import pytest
import torch

from algorithms.imaging import priors as pr

torch.set_num_threads(1)
DT = torch.float64


def _objective(z, x, strength):
    return 0.5 * ((z - x) ** 2).sum() + strength * pr.total_variation(z)


def test_tv_prox_beats_perturbations():
    g = torch.Generator().manual_seed(0)
    x = torch.zeros(8, 8, dtype=DT)
    x[:, 4:] = 1.0
    x = x + 0.2 * torch.randn(8, 8, generator=g, dtype=DT)
    prior = pr.TVPrior(weight=0.2, inner=300)
    z = prior.prox(x, lr=1.0)
    best = float(_objective(z, x, 0.2))
    for _ in range(20):
        other = z + 1e-2 * torch.randn(8, 8, generator=g, dtype=DT)
        assert float(_objective(other, x, 0.2)) >= best - 1e-6
    assert best < float(_objective(x, x, 0.2))


def test_tv_prox_of_constant_and_zero_weight():
    c = torch.full((6, 6), 0.3, dtype=DT)
    torch.testing.assert_close(pr.TVPrior(weight=1.0).prox(c, 1.0), c)
    x = torch.randn(6, 6, dtype=DT)
    assert pr.TVPrior(weight=0.0).prox(x, 1.0) is x


def test_total_variation_of_a_step():
    step = torch.zeros(5, 5, dtype=DT)
    step[:, 3:] = 2.0
    assert float(pr.total_variation(step)) == pytest.approx(10.0)


def test_subspace_prior_projects():
    basis, _ = torch.linalg.qr(torch.randn(16, 3, dtype=DT))
    prior = pr.SubspacePrior(basis, (4, 4))
    x = torch.randn(4, 4, dtype=DT)
    z = prior.prox(x, 0.5)
    torch.testing.assert_close(prior.prox(z, 0.5), z)
    torch.testing.assert_close((z.reshape(-1) @ (x - z).reshape(-1)), torch.tensor(0.0, dtype=DT),
                               atol=1e-12, rtol=0)


def test_denoiser_prior_runs_network():
    net = torch.nn.Identity()
    net.weight = torch.nn.Parameter(torch.zeros(1))
    prior = pr.DenoiserPrior(net)
    x = torch.randn(2, 4, 4, dtype=DT)
    torch.testing.assert_close(prior.prox(x, 1.0), x.float().double())
    assert prior.value(x).shape == (2,)


def test_denoiser_prior_with_a_parameter_free_network():
    # next(network.parameters()) raised StopIteration for a network without parameters (#46 round 6)
    x = torch.rand(2, 3, 4, 4, dtype=torch.float64)
    out = pr.DenoiserPrior(torch.nn.Identity()).prox(x, 1.0)
    assert out.dtype == x.dtype and torch.equal(out, x)
