"""#43 round 9 (pre-audit sweep) of algorithms.imaging, by class: sparse tensors reaching torch's kernels,
finite inputs whose maps overflow (an inf/NaN output in silence), pure maps without checks
(DenoiserPrior.value, SubspacePrior.value), single-step methods without checks (PnPPGD.step,
PnPADMM.x_step), denormal scales (TV prox step, ADMM penalty), raising ``__array__`` objects."""

import math

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.imaging import (
    NPN,
    Blur,
    DenoiserPrior,
    InverseProblem,
    MaskedFourier,
    MatrixOperator,
    NullSpaceNet,
    NullSpaceProjector,
    PnPADMM,
    PnPPGD,
    Radon,
    ResidualDenoiser,
    SubspacePrior,
    TVPrior,
    cartesian_mask,
    gaussian_cs,
    qr_null_rows,
    ssim,
    total_variation,
)
from tests.algorithms.imaging._instances import Planted, square

DT = torch.float64
H = gaussian_cs((8, 8), 0.5, seed=0)
X = square()
PROBLEM = InverseProblem(H, H(X))
S = qr_null_rows(H, 4, seed=0)
NPN_TERM = NPN(S, Planted(S(X), H.out_features), 1.0)
BASIS, _ = torch.linalg.qr(torch.randn(64, 3, dtype=DT, generator=torch.Generator().manual_seed(0)))


class RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("boom")


SPARSE = X.to_sparse()


@pytest.mark.parametrize("call, name", [
    (lambda: H.forward(SPARSE), "x"),
    (lambda: Blur((8, 8), 1.0).adjoint(SPARSE), "y"),
    (lambda: total_variation(SPARSE), "x"),
    (lambda: TVPrior(0.1).prox(SPARSE, 1.0), "x"),
    (lambda: NullSpaceProjector(H)(SPARSE), "x"),
    (lambda: SubspacePrior(BASIS.to_sparse(), (8, 8)), "basis"),
    (lambda: NullSpaceNet(H, S, 2, 2)(H(X)[None].to_sparse()), "X"),
    (lambda: ResidualDenoiser(2, 2).double()(X[None].to_sparse()), "x"),
    (lambda: MaskedFourier(cartesian_mask((8, 8), 2, seed=0).to_sparse()), "mask"),
    (lambda: NPN_TERM.gradient(SPARSE, NPN_TERM.predict(PROBLEM.y)), "x"),
])
def test_sparse_tensors_named(call, name):
    with pytest.raises(TypeError, match=rf"\b{name}\b must be a dense"):
        call()


def test_meta_mask_and_raising_angles_named():
    with pytest.raises(ValueError, match="mask is on the meta device"):
        MaskedFourier(torch.zeros(8, 8, dtype=torch.bool, device="meta"))
    with pytest.raises(TypeError, match="angles must be a sequence of degrees"):
        Radon((8, 8), RaisingArray())
    with pytest.raises(TypeError, match="angles must hold numbers"):
        Radon((8, 8), [True, 45.0])


def test_overflowing_maps_refused_by_name():
    """Finite inputs whose result overflows: the output was inf/NaN in silence."""
    # round 12: past the working range each input is refused by name; at its top (3.4e38) a float32 map
    # that overflows float32 is refused naming the input, and float64 ones have their value
    # the point a map is evaluated at is not bounded (README): what overflows is refused, naming x
    with pytest.raises(ValueError, match=r"x has entries too large.*H x overflows"):
        Blur((8, 8), 1.0)(torch.full((8, 8), 1e308, dtype=DT))
    huge = torch.full((8, 8), 3.4e38, dtype=torch.float32)
    # round 13: a float32 image of the working range whose blur fits float32 has its value (the FFT's partial
    # sums overflowed float32: mapped again in float64); one whose image overflows is refused naming x
    assert torch.allclose(Blur((8, 8), 1.0)(huge).double(), huge.double(), rtol=1e-6)
    with pytest.raises(ValueError, match=r"x has entries too large.*H x overflows"):
        MatrixOperator(torch.full((1, 64), 1.0), (8, 8))(huge)
    with pytest.raises(ValueError, match=r"x has entries too large.*total variation"):
        total_variation(huge * torch.linspace(-1, 1, 64).reshape(8, 8))
    assert bool(torch.isfinite(Blur((8, 8), 1.0)(huge.double())).all())
    with pytest.raises(ValueError, match="weight"):
        TVPrior(3.4e38).value(X.float() * 1e10)
    with pytest.raises(ValueError, match=r"\bweight = 1e\+308 is outside"):
        TVPrior(1e308)
    with pytest.raises(ValueError, match=r"overflows"):  # x, an iterate, is not bounded: its value overflows
        NPN_TERM.value(torch.full((8, 8), 1e200, dtype=DT), NPN_TERM.predict(PROBLEM.y))
    assert math.isfinite(NPN_TERM.value(X * 1e38, NPN_TERM.predict(PROBLEM.y)))
    big = np.full((8, 8), 1e200)
    big[0] = -1e200
    with pytest.raises(ValueError, match=r"\bestimate has an entry of magnitude 1e\+200, outside"):
        ssim(big, np.zeros((8, 8)))
    with pytest.raises(ValueError, match=r"\bdata_range\b"):
        ssim(np.eye(8), np.zeros((8, 8)), data_range=1e308)
    big = np.full((8, 8), 3.4e38)
    big[0] = -3.4e38
    assert math.isfinite(ssim(big, np.zeros((8, 8))))
    assert ssim(np.eye(8), np.zeros((8, 8)), data_range=3.4e38) == pytest.approx(1.0)


def test_prox_at_denormal_and_overflowing_strength():
    """lr·weight denormal: x/(lr·weight) overflowed into a NaN image; lr·weight = inf: NaN too."""
    noisy = X + 0.1 * torch.randn(8, 8, dtype=DT, generator=torch.Generator().manual_seed(0))
    # round 12: lr (>= 0) past the working range is refused; a tiny one acts as its valid 0 (the identity);
    # at the range's ends the prox has its value, in float32 too
    with pytest.raises(ValueError, match=r"\blr = 1e\+308 is outside"):
        TVPrior(0.1).prox(noisy, 1e308)
    assert torch.equal(TVPrior(0.1).prox(noisy, 1e-320), noisy)
    for image in (noisy, noisy.float() * 1e30, noisy.float()):
        for lr in (1.2e-38, 3.4e38):
            out = TVPrior(0.1).prox(image, lr)
            assert out.dtype == image.dtype and bool(torch.isfinite(out).all())
        assert torch.allclose(TVPrior(0.1).prox(image, 1.2e-38), image)


def test_prior_values_check_x():
    for prior in (DenoiserPrior(ResidualDenoiser(2, 2).double()), SubspacePrior(BASIS, (8, 8))):
        with pytest.raises(TypeError, match=r"\bx\b must be a floating torch.Tensor"):
            prior.value("x")
        with pytest.raises(ValueError, match=r"\bx\b contains NaN"):
            prior.value(torch.full((8, 8), float("nan"), dtype=DT))
    with pytest.raises(ValueError, match=r"\bx\b must have shape"):
        SubspacePrior(BASIS, (8, 8)).value(torch.zeros(4, 4, dtype=DT))


def test_single_steps_check_their_inputs():
    pgd = PnPPGD(prior=TVPrior(0.1), lr=1.0, npn=NPN_TERM)
    admm = PnPADMM(prior=TVPrior(0.1), penalty=1.0, cg_iters=3)
    prediction = NPN_TERM.predict(PROBLEM.y)
    with pytest.raises(TypeError, match=r"problem must be an algorithms\.imaging\.InverseProblem"):
        pgd.step("problem", X, prediction)
    with pytest.raises(TypeError, match="problem must be"):
        admm.x_step(None, X, X)
    with pytest.raises(ValueError, match=r"\bx\b contains NaN"):
        pgd.step(PROBLEM, torch.full((8, 8), float("nan"), dtype=DT), prediction)
    with pytest.raises(ValueError, match=r"\brhs\b must be one image of shape \(8, 8\)"):
        admm.x_step(PROBLEM, X, X.reshape(-1))
    with pytest.raises(TypeError, match=r"\brhs\b must be a dense float32 or float64"):
        admm.x_step(PROBLEM, X, 1.0)
    with pytest.raises(ValueError, match="prediction must be None"):
        PnPPGD(prior=TVPrior(0.1)).step(PROBLEM, X, prediction)
    with pytest.raises(TypeError, match="prediction must be a dense float32 or float64"):
        pgd.step(PROBLEM, X, prediction > 0)
    with pytest.raises(ValueError, match=r"\bx\b contains NaN"):
        NPN_TERM.gradient(torch.full((8, 8), float("nan"), dtype=DT), prediction)
    assert pgd.step(PROBLEM, X, prediction).shape == (8, 8)


def test_admm_penalty_below_smallest_normal_refused():
    for penalty in (1e-320, 1e-300):  # round 12: below the working range
        with pytest.raises(ValueError, match=r"\bpenalty = .* is outside the package's working range"):
            PnPADMM(prior=TVPrior(0.1), penalty=penalty)
    assert solve(PROBLEM, PnPADMM(prior=TVPrior(0.1), penalty=1.2e-38), maxiters=2).retcode is not None


def test_crop_counts_past_the_loop_refused():
    """10**7 crops of 4×4 fit in memory and were cut one by one for many minutes (a hang)."""
    from algorithms.imaging import held_out_images, training_patches

    for make in (held_out_images, training_patches):
        with pytest.raises(ValueError, match=r"count must be <= 100000"):
            make(4, 10**7, 0)


def test_half_precision_null_space_net_named():
    """NullSpaceNet.half(): the operator's check named its own "y", an argument the caller never passed."""
    for dtype in (torch.float16, torch.bfloat16):
        with pytest.raises(TypeError, match=r"NullSpaceNet's parameters are torch\.b?float16"):
            NullSpaceNet(H, S, 2, 2).to(dtype)(torch.zeros(2, 32))


def test_heldout9_imaging_cases():
    """heldout9's first run: sparse images in psnr/ssim, a denoiser's (0, 8) and (8, 8, 1, 1) "images",
    an NPN/DenoiserPrior network with NaN or meta weights."""
    from algorithms.imaging import psnr

    with pytest.raises(TypeError, match=r"estimate must be a dense"):
        psnr(torch.zeros(8, 8, dtype=DT).to_sparse(), np.zeros((8, 8)))
    with pytest.raises(TypeError, match=r"reference must be a dense"):
        ssim(np.zeros((8, 8)), torch.zeros(8, 8, dtype=DT).to_sparse())
    prior = DenoiserPrior(ResidualDenoiser(2, 2).double())
    for shape in ((0, 8), (8, 8, 1, 1)):
        with pytest.raises(ValueError, match=r"x must be images of shape \(\*batch, h, w\) with h, w >= 2"):
            prior.prox(torch.zeros(shape, dtype=DT), 1.0)
    net = NullSpaceNet(H, S, 2, 2)
    with torch.no_grad():
        net.body[0].weight[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"network\.body\.0\.weight contains NaN"):
        NPN(S, net, 1.0)
    with pytest.raises(ValueError, match=r"network\.body\.0\.weight contains NaN"):
        DenoiserPrior(net)
    with pytest.raises(ValueError, match="network has parameters on the meta device"):
        NPN(S, NullSpaceNet(H, S, 2, 2).to("meta"), 1.0)
