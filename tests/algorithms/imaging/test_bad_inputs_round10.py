"""#43 round 10 (pre-audit sweep) of algorithms.imaging: ``train``'s ``steps`` was uncapped (2**31 − 1 steps
would run for years), a non-str ``name`` was a ValueError, and resuming a checkpoint with another ``seed``
mixed two runs in silence."""

import pytest

from algorithms.imaging.train import MAX_STEPS, train


def test_train_steps_capped_and_checkpoint_seed_checked():
    with pytest.raises(ValueError, match=r"\bsteps must be <= MAX_STEPS"):
        train("denoiser", steps=MAX_STEPS + 1, progress=False)
    with pytest.raises(TypeError, match=r"\bsteps\b"):
        train("denoiser", steps=True, progress=False)
    with pytest.raises(TypeError, match=r"\bname must be a str"):
        train(["denoiser"], progress=False)
    # the shipped denoiser checkpoint was trained with seed 0
    with pytest.raises(ValueError, match=r"\bseed must be the seed the checkpoint"):
        train("denoiser", steps=1, seed=1, progress=False)


def test_huge_iterates_and_data_have_a_value():
    """lr = 1e308 (a Diverged run with finite entries ~1e308) and data y ~1e300 (a valid run) raised the
    TV's 'x has entries too large', naming the solver's internal iterate x: the TV is taken as s·TV(x/s)
    and a Diverged run that cannot be evaluated reports value inf."""
    import math

    import torch

    from algorithms import RetCode, solve
    from algorithms.imaging import InverseProblem, PnPPGD, TVPrior, gaussian_cs, total_variation

    H = gaussian_cs((8, 8), 0.5, seed=0)
    x = torch.zeros(8, 8, dtype=torch.float64)
    x[2:6, 3:7] = 1.0
    # round 12: entries and steps past the working range are refused; at its top they have a value, and
    # a Diverged run's iterate past the range is not refused as if it were the user's x
    assert float(total_variation(x * 1e38)) == pytest.approx(float(total_variation(x)) * 1e38)
    assert float(total_variation(x.float() * 1e30)) == pytest.approx(float(total_variation(x)) * 1e30)
    # the point a TV is evaluated at may be a diverging run's iterate (README: not bounded)
    assert float(total_variation(x * 1e300)) == pytest.approx(float(total_variation(x)) * 1e300)
    tv = TVPrior(weight=1e-3)
    for dtype in (torch.float64, torch.float32):
        problem = InverseProblem(H, H(x).to(dtype))
        sol = solve(problem, PnPPGD(prior=tv, lr=3.4e38), maxiters=3)
        # the float64 iterate is finite past the range (its value is computed); float32's overflowed (NaN)
        assert sol.retcode is RetCode.Diverged and math.isnan(sol.value) == (dtype == torch.float32)
    sol = solve(InverseProblem(H, H(x) * 1e38), PnPPGD(prior=tv), maxiters=3)
    assert sol.retcode is RetCode.MaxIters and math.isfinite(sol.value)
    with pytest.raises(ValueError, match=r"\by has an entry of magnitude .*e\+300, outside"):
        InverseProblem(H, H(x) * 1e300)


def test_tensor_conversions_named():
    """bfloat16 tensors (numpy has no such dtype: 'Got unsupported ScalarType BFloat16'), meta and sparse
    angles (torch's errors), a sparse y for NPN.predict (torch's NotImplementedError) and float64 X past the
    network's float32 range (the operator named its own 'y')."""
    import torch

    from algorithms.imaging import NullSpaceNet, Radon, gaussian_cs, psnr, qr_null_rows, ssim

    x = torch.rand(8, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with pytest.raises(TypeError, match=r"\bestimate is a torch.bfloat16"):
        psnr(x.bfloat16(), x)
    with pytest.raises(TypeError, match=r"\breference is a torch.bfloat16"):
        ssim(x, x.bfloat16())
    with pytest.raises(TypeError, match=r"\bangles is a torch.bfloat16"):
        Radon((8, 8), torch.tensor([0.0, 45.0]).bfloat16())
    with pytest.raises(ValueError, match=r"\bangles is on the meta device"):
        Radon((8, 8), torch.tensor([0.0, 45.0], device="meta"))
    with pytest.raises(TypeError, match=r"\bangles must be a dense"):
        Radon((8, 8), torch.tensor([0.0, 45.0]).to_sparse())
    H = gaussian_cs((8, 8), 0.5, seed=0)
    net = NullSpaceNet(H, qr_null_rows(H, 16, seed=0), 4, 2, seed=0).float()
    with pytest.raises(ValueError, match=r"\bX has an entry of magnitude .*e\+300, outside"):
        net(H(x)[None] * 1e300)
    from tests.algorithms.imaging._instances import cs_problem, oracle_npn

    problem, truth = cs_problem()
    with pytest.raises(TypeError, match=r"\by must be a dense"):
        oracle_npn(problem, truth).predict(problem.y.to_sparse())


def test_networks_check_weights_and_attributes_set_later():
    """NaN weights gave NaN predictions/images in silence; NullSpaceNet.scale = NaN too, and another
    operator/projection set later met an AttributeError or torch's reshape error."""
    import torch

    from algorithms.imaging import NullSpaceNet, ResidualDenoiser, gaussian_cs, qr_null_rows

    H = gaussian_cs((8, 8), 0.5, seed=0)
    S = qr_null_rows(H, 16, seed=0)
    net = NullSpaceNet(H, S, 4, 2, seed=0)
    with pytest.raises(ValueError, match=r"\bscale\b"):
        net.scale = float("nan")
    with pytest.raises(ValueError, match=r"\bprojection is fixed"):
        net.projection = H
    with torch.no_grad():
        net.body[0].weight.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"NullSpaceNet\.body\.0\.weight contains NaN"):
        net(torch.zeros(1, H.out_features))
    den = ResidualDenoiser(4, 2)
    with torch.no_grad():
        den.body[0].weight.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"ResidualDenoiser\.body\.0\.weight contains NaN"):
        den(torch.rand(1, 8, 8))


def test_pca_rows_need_more_images_than_rows():
    """2 images for p = 4: three rows were the SVD's arbitrary completion, not principal directions."""
    import torch

    from algorithms.imaging import gaussian_cs, pca_null_rows, training_patches

    H = gaussian_cs((8, 8), 0.5, seed=0)
    with pytest.raises(ValueError, match=r"\bimages must hold at least p \+ 1 = 5"):
        pca_null_rows(H, 4, training_patches(8, 2, seed=0))
    assert pca_null_rows(H, 4, training_patches(8, 5, seed=0).to(torch.float64)).out_features == 4


def test_networks_working_in_place_leave_the_inputs_unchanged():
    """A denoiser doing x.mul_(2) changed the caller's images; an NPN network doing X.mul_(0) changed the
    frozen problem's measurements y."""
    import torch

    from algorithms.imaging import NPN, DenoiserPrior, qr_null_rows
    from tests.algorithms.imaging._instances import cs_problem

    class InPlace(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones((), dtype=torch.float64))

        def forward(self, x):
            x.mul_(2)
            return x

    problem, truth = cs_problem()
    images = truth.clone()
    DenoiserPrior(InPlace()).prox(images, 1.0)
    assert torch.equal(images, truth)

    class InPlaceNet(torch.nn.Module):
        in_features, out_features = problem.operator.out_features, 16

        def forward(self, X):
            X.mul_(0)
            return torch.zeros(X.shape[0], 16, dtype=torch.float64)

    y = problem.y.clone()
    NPN(qr_null_rows(problem.operator, 16, seed=0), InPlaceNet(), 1.0).predict(problem.y)
    assert torch.equal(problem.y, y)


def test_operators_compute_in_the_inputs_dtype_as_documented():
    """Held-out round 10 (first run): a float32 image into a float64 operator returned float32, read as silent
    against 'forward checks the dtype': the docstrings now say the map runs in the input's dtype."""
    import torch

    from algorithms.imaging import LinearOperator, gaussian_cs

    H = gaussian_cs((4, 4), 0.5, seed=0)
    x = torch.randn(4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = H(x.float())
    assert out.dtype == torch.float32 and torch.allclose(out.double(), H(x), atol=1e-5)
    assert H.adjoint(H(x).float()).dtype == torch.float32 and H.normal(x.float()).dtype == torch.float32
    assert "compute in the input's dtype" in " ".join(LinearOperator.__doc__.split())


def test_images_without_pixels_refused():
    """A (0, 0) image had TV 0 and a prox of itself; an empty pair of images had PSNR inf."""
    import numpy as np
    import torch

    from algorithms.imaging import TVPrior, psnr, ssim, total_variation

    with pytest.raises(ValueError, match=r"\bx must be images .* h, w >= 1"):
        TVPrior(1e-3).prox(torch.zeros(0, 0, dtype=torch.float64), 1.0)
    with pytest.raises(ValueError, match=r"\bx must be images .* h, w >= 1"):
        total_variation(torch.zeros(4, 0, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"\bestimate must be a non-empty 2-D image"):
        psnr(np.zeros((0, 0)), np.zeros((0, 0)))
    with pytest.raises(ValueError, match=r"\bestimate must be a non-empty 2-D image"):
        ssim(np.zeros((0, 8)), np.zeros((0, 8)))
    empty_batch = torch.zeros(0, 8, 8, dtype=torch.float64)
    assert TVPrior(1e-3).prox(empty_batch, 1.0).shape == (0, 8, 8)


def test_repeated_radon_angles_are_documented_repeated_measurements():
    from algorithms.imaging import Radon, null_space_basis

    R = Radon((8, 8), [0.0, 0.0, 45.0])
    assert null_space_basis(R).shape == (64, 48)  # the repeated row adds no rank
    assert "repeated angle is a repeated measurement" in " ".join(Radon.__doc__.split())
