"""#43 round 13 of algorithms.imaging: every parameter's domain stated in its docstring, and kept."""

import inspect
from fractions import Fraction

import pytest
import torch

from algorithms.imaging import (
    NPN,
    Blur,
    HighPass,
    InverseProblem,
    LinearOperator,
    MatrixOperator,
    NullSpaceNet,
    PnPADMM,
    Radon,
    ResidualDenoiser,
    SubsampledHadamard,
    SuperResolution,
    TVPrior,
    complement_angles,
    gaussian_cs,
    gaussian_kernel_spectrum,
    highpass,
)
from tests.algorithms.imaging._instances import Planted


@pytest.mark.parametrize("angles", [[0.0, 2**64], [2**64], [Fraction(1, 2), 3]])
def test_radon_angles_take_every_real_of_the_working_range(angles):
    """red13a class: a list holding 2**64 (a real inside the range) or a Fraction was refused as
    "not a sequence of degrees" (numpy read it as an object array)."""
    assert Radon((8, 8), angles).angles.tolist() == [float(a) for a in angles]
    assert complement_angles(Radon((8, 8), [90.0]), angles).measurement_shape == (len(angles), 8)


@pytest.mark.parametrize("build", [
    lambda s: Blur((8, 8), s), lambda s: HighPass((8, 8), s), lambda s: SuperResolution((8, 8), 2, s),
    lambda s: gaussian_kernel_spectrum((8, 8), s),
])
@pytest.mark.parametrize("sigma, works", [(1e-39, False), (1e-320, False), (1.2e-38, True), (3.4e38, True),
                                          (2**64, True), (3.5e38, False), (1e308, False)])
def test_sigma_is_a_positive_scale_of_the_working_range(build, sigma, works):
    """red13a: Blur's docstring promised 1e-320 and 1e308 as valid limits, the code refused both."""
    if works:
        build(sigma)
    else:
        with pytest.raises(ValueError, match=r"\bsigma\b"):
            build(sigma)


@pytest.mark.parametrize("owner", [Blur, HighPass, SuperResolution, gaussian_kernel_spectrum])
def test_sigma_docstrings_state_the_working_range(owner):
    doc = inspect.getdoc(owner)
    assert "[1.18e-38, 3.4e38]" in doc and "1e-320" not in doc and "1e308" not in doc


@pytest.mark.parametrize("build", [lambda r: SubsampledHadamard((8, 8), r, 0),
                                   lambda r: gaussian_cs((4, 4), r, 0)])
def test_ratio_is_a_positive_scale(build):
    """SubsampledHadamard's docstring promised 1e-320 keeps one row; a positive scale refuses it."""
    with pytest.raises(ValueError, match=r"\bratio\b"):
        build(1e-39)
    assert build(1.2e-38).out_features == 1
    assert "1e-320" not in inspect.getdoc(SubsampledHadamard)
    assert "1.18e-38" in inspect.getdoc(gaussian_cs)


def _y():
    return Blur((8, 8), 1.0).forward(torch.rand(8, 8, dtype=torch.float64, generator=torch.manual_seed(0)))


@pytest.mark.parametrize("tiny", [1e-39, 5e-324, 0.0])
@pytest.mark.parametrize("build", [
    lambda v: InverseProblem(Blur((8, 8), 1.0), _y(), noise_std=v),
    lambda v: TVPrior(v),
    lambda v: TVPrior(0.5).prox(torch.rand(8, 8, dtype=torch.float64), v),
    lambda v: NPN(highpass(Blur((8, 8), 1.0)), Planted(torch.zeros(64), 64), gamma=v),
])
def test_parameters_documented_nonnegative_take_tiny_values(build, tiny):
    """The >= 0 rule (README): 0 and any value above it, 1e-39 included, now stated in each docstring."""
    build(tiny)


@pytest.mark.parametrize("owner, words", [
    (InverseProblem, "noise_std``: ω's standard deviation, a float in [0, 3.4e38]"),
    (TVPrior, "``weight``: a float in [0, 3.4e38]"), (TVPrior.prox, "a float in [0, 3.4e38]"),
    (TVPrior.prox, "any finite entries"), (NPN, "floats in [0, 3.4e38]"),
    (PnPADMM, "``cg_iters`` (an int in [1, 10**5])"), (LinearOperator.norm, "an int in [1, 10**5]"),
])
def test_docstrings_state_the_domains(owner, words):
    assert words in " ".join(inspect.getdoc(owner).split())


@pytest.mark.parametrize("cg_iters", [10**5 + 1, 2**31 - 1, 2**63 - 1])
def test_admm_cg_iters_is_capped(cg_iters):
    """cg_iters = 2**63 − 1 was taken: every x-step of a solve ran for ever (a hang)."""
    with pytest.raises(ValueError, match=r"\bcg_iters must be <= 100000"):
        PnPADMM(TVPrior(0.1), cg_iters=cg_iters)
    assert PnPADMM(TVPrior(0.1), cg_iters=10**5).cg_iters == 10**5


@pytest.mark.parametrize("make", [
    lambda: Blur((8, 8), 1.0), lambda: Blur((8, 8), 3.0), lambda: SuperResolution((8, 8), 2, 1.0),
    lambda: gaussian_cs((8, 8), 0.5, 0, dtype=torch.float32),
])
def test_float32_images_of_the_working_range_have_their_image(make):
    """A float32 image with pixels at 3e38 was refused "H x overflows" when only the FFT's partial sums did:
    the map is taken again in float64 and rounded back when the result fits float32."""
    H = make()
    x = torch.zeros(8, 8)
    x[0, 0] = x[3, 5] = 3e38
    x[6, 2] = -3e38
    expected = H.forward(x.double())
    if float(expected.abs().max()) > 3.4e38:
        with pytest.raises(ValueError, match=r"\bx has entries too large"):
            H.forward(x)
        return
    got = H.forward(x)
    assert got.dtype == torch.float32
    assert torch.allclose(got.double(), expected, rtol=1e-5, atol=1e-6 * 3e38)
    back = H.adjoint(got)
    assert back.dtype == torch.float32 and bool(torch.isfinite(back).all())


def test_matrix_operator_entries_in_the_working_range():
    with pytest.raises(ValueError, match=r"\bmatrix\b"):
        MatrixOperator(torch.tensor([[1.0, 3.5e38, 0.0, 0.0]], dtype=torch.float64), (2, 2))
    MatrixOperator(torch.tensor([[1.0, 3.4e38, 0.0, 0.0]], dtype=torch.float64), (2, 2))


class _UserOp(LinearOperator):
    """A user's operator: a seeded 8 × 16 matrix, with its _forward/_adjoint replaceable."""

    def __init__(self, forward=None, adjoint=None):
        self.M = torch.randn(8, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        self._f, self._a = forward, adjoint
        self.image_shape, self.measurement_shape = (4, 4), (8,)

    def _forward(self, x):
        out = x.reshape(x.shape[0], -1) @ self.M.T.to(x.dtype)
        return out if self._f is None else self._f(out)

    def _adjoint(self, y):
        out = (y @ self.M.to(y.dtype)).reshape(y.shape[0], 4, 4)
        return out if self._a is None else self._a(out)


def _nan(t):
    return t * float("nan")


def _raises(t):
    return 1 / 0


@pytest.mark.parametrize("op, match", [
    (lambda: _UserOp(forward=_nan), r"operator's _forward returned NaN/inf entries"),
    (lambda: _UserOp(adjoint=_nan), r"operator's _adjoint returned NaN/inf entries"),
    (lambda: _UserOp(forward=lambda t: t.float()),
     r"_UserOp._forward\(x\) must return a tensor of its input's dtype"),
    (lambda: _UserOp(adjoint=_raises), r"_UserOp._adjoint\(y\) raised ZeroDivisionError"),
])
def test_a_user_operator_at_fault_is_named_at_construction(op, match):
    """red13a: a user operator returning NaN was accepted (ADMM then ran to a "Success" with a NaN objective,
    refused by Solution's own guard naming value; a NaN adjoint was blamed on y's size), float32 answers to
    float64 images were used as they were, and a ZeroDivisionError reached the caller bare."""
    with pytest.raises(ValueError, match=match):
        InverseProblem(op(), torch.ones(8, dtype=torch.float64))


def test_a_nan_map_is_blamed_on_the_operator_not_on_x():
    op = _UserOp()
    op._f = _nan  # after construction
    with pytest.raises(ValueError, match=r"_UserOp._forward returned NaN/inf entries for a finite x"):
        op.forward(torch.ones(4, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"\bx has entries too large"):  # a genuine overflow names x
        Blur((8, 8), 1.0).forward(torch.full((8, 8), 1e308, dtype=torch.float64))


def test_admm_reports_diverged_not_success_when_its_objective_is_not_finite():
    from algorithms import solve

    op = _UserOp()
    problem = InverseProblem(op, torch.ones(8, dtype=torch.float64))
    op._f = _nan  # the map turns NaN after the problem's check
    sol = solve(problem, PnPADMM(TVPrior(0.01)), maxiters=5)
    assert sol.retcode.name != "Success"


def test_denoiser_returning_an_array_is_named_as_such():
    from algorithms.imaging import DenoiserPrior

    class Net(torch.nn.Module):
        def forward(self, x):
            return x.numpy()

    with pytest.raises(ValueError, match=r"network must return a torch.Tensor of shape \(1, 8, 8\), got nd"):
        DenoiserPrior(Net()).prox(torch.zeros(8, 8, dtype=torch.float64), 1.0)


@pytest.mark.parametrize("build", [
    lambda c, d: ResidualDenoiser(c, d),
    lambda c, d: NullSpaceNet(Blur((8, 8), 1.0), highpass(Blur((8, 8), 1.0)), c, d),
])
@pytest.mark.parametrize("channels, depth, refused", [(4097, 2, "channels"), (1, 1001, "depth"),
                                                      (1, 10**6, "depth"), (2**31 - 1, 3, "channels")])
def test_cnn_sizes_are_capped(build, channels, depth, refused):
    """depth = 10**6 ran the layer loop for minutes (a hang); channels = 16384 with a hidden layer allocated
    and initialised 2.4e9 weights: both are capped, stated in the docstrings and refused by name."""
    with pytest.raises(ValueError, match=rf"\b{refused} must be <= "):
        build(channels, depth)
    build(4, 3)


@pytest.mark.parametrize("size", [50, 57, 64])
def test_training_patches_of_every_documented_size(size):
    """size in [4, 64] is documented; a crop of 50..64 px drawn from "text" (49 px high once resized) failed
    with numpy's "high <= 0", naming no argument."""
    from algorithms.imaging import training_patches

    patches = training_patches(size, 400, seed=1)
    assert tuple(patches.shape) == (400, size, size) and bool(torch.isfinite(patches).all())

