"""Round 16 bad/extreme inputs of algorithms.imaging (one test per class)."""

import pytest
import torch

from algorithms.imaging import train as train_module


@pytest.mark.parametrize("seed", [2**60, 2**64 - 1])
def test_train_takes_every_documented_seed(seed, tmp_path, monkeypatch):
    """seed is documented in [0, 2**64): one past 2**64/1000 met torch's bare "Overflow when unpacking long
    long" (the batch generator was seeded with seed·1000 + step)."""
    monkeypatch.setattr(train_module, "checkpoint_path", lambda name: tmp_path / f"{name}.pt")
    saved = train_module.train("denoiser", steps=1, seed=seed, progress=False)
    assert saved["seed"] == seed and saved["step"] == 1
    assert all(bool(torch.isfinite(v).all()) for v in saved["model"].values())


@pytest.fixture(scope="module")
def cs25():
    from algorithms.imaging import gaussian_cs
    from algorithms.imaging.setups import Setup

    H = gaussian_cs((8, 8), 0.25, seed=0)  # a small set-up (make_setup's 32×32 ones build for seconds)
    return Setup("cs25", H, H, 30.0, 1.0)


@pytest.mark.parametrize("scale, dtype", [(1e-30, torch.float32), (1e20, torch.float32),
                                          (1e-200, torch.float64)])
def test_measure_keeps_its_snr_at_every_scale(scale, dtype, cs25):
    """The rms of Hx squared its entries: 0 for a float32 x ~1e-30 (std 0, a noiseless y at SNR 30 dB), inf
    for x ~1e20 (a NaN y)."""
    from algorithms.imaging.setups import measure

    setup = cs25
    x = torch.rand(2, *setup.operator.image_shape, generator=torch.Generator().manual_seed(0),
                   dtype=torch.float64)
    _, unit = measure(setup, x.to(dtype), seed=0)
    y, std = measure(setup, (x * scale).to(dtype), seed=0)
    assert bool(torch.isfinite(y).all())
    torch.testing.assert_close((std / scale).double(), unit.double(), rtol=1e-5, atol=0.0)


@pytest.mark.parametrize("scale", [1e-170, 1e-200, 1e-300])
def test_inverse_problem_takes_an_operator_of_tiny_entries(scale):
    """The dot-product test's scale ‖Hx‖‖y‖ + ‖x‖‖Hᵀy‖ underflowed to 0 for entries below ~1e-160, so a valid
    MatrixOperator was refused as "_adjoint must be the adjoint of its _forward"."""
    from algorithms.imaging import InverseProblem, MatrixOperator

    M = torch.randn(6, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * scale
    H = MatrixOperator(M, (4, 4))
    problem = InverseProblem(H, H(torch.ones(4, 4, dtype=torch.float64)))
    assert problem.y.shape == (6,)


def test_subspace_prior_holds_its_stated_orthonormality_tolerance():
    """allclose's default rtol 1e-5 on the diagonal passed a float64 basis 800x outside the stated 1e-8."""
    from algorithms.imaging import SubspacePrior

    gen = torch.Generator().manual_seed(0)
    Q, _ = torch.linalg.qr(torch.randn(16, 3, generator=gen, dtype=torch.float64))
    Q[:, 0] *= 1 + 4e-6
    with pytest.raises(ValueError, match=r"basis must have orthonormal columns.*1e-08"):
        SubspacePrior(Q, (4, 4))


def _null_space_net_on_big_measurements():
    from algorithms.imaging import HighPass, NullSpaceNet, gaussian_cs

    H = gaussian_cs((8, 8), 0.5, seed=0)
    return NullSpaceNet(H, HighPass((8, 8), 1.0), channels=4, depth=2)(torch.full((1, H.out_features), 3e38))


def _denoiser_on_big_images():
    from algorithms.imaging import ResidualDenoiser

    x = torch.full((1, 8, 8), 3e38)
    x[0, 0, 0] = -3e38
    return ResidualDenoiser()(x)


@pytest.mark.parametrize("call, name", [(_null_space_net_on_big_measurements, "X"),
                                        (_denoiser_on_big_images, "x")])
def test_float32_networks_refuse_an_overflowed_output_naming_their_input(call, name):
    """Entries of 3e38 are inside the working range: a float32 ResidualDenoiser answered a NaN image in
    silence, NullSpaceNet an error naming the operator's internal "y"."""
    with pytest.raises(ValueError, match=rf"^{name} has entries too large for the network's torch.float32"):
        call()


def test_null_space_projector_refuses_an_overflowed_image_naming_x():
    """A constant float32 image of 3e38 (inside the working range) has P x entries of 4.1e38: P(x) answered
    inf in silence. A float32 image is now projected in float64 and rounded once."""
    from algorithms.imaging import NullSpaceProjector, gaussian_cs

    P = NullSpaceProjector(gaussian_cs((8, 8), 0.5, seed=0))
    with pytest.raises(ValueError, match=r"^x has entries too large for torch.float32: P x overflows"):
        P(torch.full((8, 8), 3e38))
    x = torch.rand(2, 8, 8, generator=torch.Generator().manual_seed(0)) * 1e37
    assert torch.equal(P(x), P(x.double()).float())


def test_subspace_prior_projects_a_float32_image_near_its_range():
    """A float32 image of 3e38 (inside the working range) has a projection of entries ~2.9e38, which fit
    float32: SubspacePrior.prox answered inf on the way, in silence."""
    from algorithms.imaging import SubspacePrior

    generator = torch.Generator().manual_seed(0)
    basis, _ = torch.linalg.qr(torch.randn(64, 5, dtype=torch.float64, generator=generator))
    prior = SubspacePrior(basis, (8, 8))
    x = torch.full((8, 8), 3e38)
    out = prior.prox(x, 1.0)
    assert out.dtype == torch.float32 and torch.equal(out, prior.prox(x.double(), 1.0).float())
    assert bool(torch.isfinite(out).all())
