"""#43 round 12 of algorithms.imaging: the working range (README "Working range"), float32 images, and the
solvers' own iterates kept apart from the checks of user inputs."""

import math

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.imaging import (
    NPN,
    InverseProblem,
    MatrixOperator,
    NullSpaceNet,
    PnPADMM,
    PnPPGD,
    Radon,
    SubsampledHadamard,
    TVPrior,
    gaussian_cs,
    psnr,
    qr_null_rows,
    ssim,
)

DT = torch.float64
H = gaussian_cs((8, 8), 0.5, seed=0)
X = torch.rand(8, 8, dtype=DT, generator=torch.Generator().manual_seed(0))
S = qr_null_rows(H, 4, 0)
NET = NullSpaceNet(H, S, 2, 2).double()
OUTSIDE = [1e39, 1e308, 10**100, 5e-324, 1e-39]
#: parameters that may be 0: a tiny value acts as their valid 0 (README "Working range")
MAY_BE_ZERO = {"noise_std", "gamma", "max_leakage"}


def _scale_calls():
    image = X.numpy()
    return {
        "noise_std": lambda v: InverseProblem(H, H(X), v),
        "gamma": lambda v: NPN(S, NET, v),
        "max_leakage": lambda v: NPN(S, NET, 1.0, max_leakage=v),
        "ratio": lambda v: gaussian_cs((8, 8), v, 0),
        "ratio ": lambda v: SubsampledHadamard((8, 8), v, 0),
        "data_range": lambda v: psnr(image, image * 0.5, data_range=v),
        "data_range ": lambda v: ssim(image, image * 0.5, data_range=v),
    }


@pytest.mark.parametrize("value", OUTSIDE)
@pytest.mark.parametrize("name", list(_scale_calls()))
def test_scales_outside_the_working_range_are_refused(name, value):
    """Hand-written checks took 1e308 (noise_std, gamma, max_leakage, data_range: PSNRs of ±6000 dB) and
    5e-324 (ratio: one row, gamma) in silence."""
    if name.strip() == "ratio" and value > 1:
        pytest.skip("ratio is at most 1: refused by its own range")
    if name in MAY_BE_ZERO and value < 1:
        assert _scale_calls()[name](value) is not None
        return
    with pytest.raises(ValueError, match=rf"\b{name.strip()} = .* is outside the package's working range"):
        _scale_calls()[name](value)


@pytest.mark.parametrize("name", list(_scale_calls()))
def test_scales_at_the_working_range_are_valid(name):
    low = 1.2e-38
    result = _scale_calls()[name](low)
    assert result is not None


@pytest.mark.parametrize("make, name", [
    (lambda v: MatrixOperator(torch.full((2, 64), v, dtype=DT), (8, 8)), "matrix"),
    (lambda v: Radon((8, 8), [0.0, v]), "angles"),
    (lambda v: NPN(S, NET, 1.0).predict(H(X) * 0 + v), "y"),
])
@pytest.mark.parametrize("value", [1e300, -1e39])
def test_data_entries_outside_the_working_range_are_refused(make, name, value):
    with pytest.raises(ValueError, match=rf"\b{name} has an entry of magnitude .* outside"):
        make(value)


def test_a_network_output_past_the_working_range_is_not_bounded():
    """README: what a user's callable (here the network G) returns is not bounded; finite, it is taken."""
    class Huge(torch.nn.Module):
        out_features = S.out_features

        def forward(self, y):
            return torch.full((y.shape[0], S.out_features), 1e300, dtype=y.dtype)

    assert float(NPN(S, Huge(), 1.0).predict(H(X)).max()) == 1e300


@pytest.mark.parametrize("strength", [1.2e-38, 1e-30, 1e-10])
@pytest.mark.parametrize("scale", [1e10, 1e30, 1e38])
def test_float32_tv_prox_of_a_small_strength_is_finite(scale, strength):
    """The dual step x/(lr·weight) overflowed float32 (a NaN image in silence): computed in float64."""
    image = (X * scale).float()
    out = TVPrior(strength).prox(image, 1.0)
    assert out.dtype == torch.float32 and bool(torch.isfinite(out).all())
    assert torch.allclose(out.double(), TVPrior(strength).prox(X * scale, 1.0), rtol=1e-5, atol=1e-6 * scale)


@pytest.mark.parametrize("algorithm", [PnPPGD(prior=TVPrior(1e-3), lr=3.4e38),
                                       PnPADMM(prior=TVPrior(1e-3), penalty=1.2e-38)])
def test_an_iterate_leaving_the_working_range_is_the_solves_not_a_refused_input(algorithm):
    """lr = 3.4e38: the iterate passed 3.4e38 and the prior's prox refused it as the user's "x" (a
    ValueError); it is the solve's to stop (Diverged) or to finish."""
    sol = solve(InverseProblem(H, H(X)), algorithm, maxiters=5)
    assert sol.retcode in (RetCode.Diverged, RetCode.MaxIters, RetCode.Success)
    assert not math.isnan(sol.value)


def test_data_at_the_top_of_the_working_range_is_solved():
    sol = solve(InverseProblem(H, H(X) * 1e38), PnPPGD(prior=TVPrior(1e35)), maxiters=5)
    assert sol.retcode is RetCode.MaxIters and math.isfinite(sol.value)
    assert bool(np.all(np.isfinite(sol.x)))


def test_an_operator_written_past_the_range_is_refused_by_name_at_solve():
    """red12a: H.weight[0, 0] = 1e300 written in place met Python's bare OverflowError inside the prox."""
    H2 = gaussian_cs((8, 8), 0.5, seed=0)
    problem = InverseProblem(H2, H2(X))
    H2.weight[0, 0] = 1e300
    with pytest.raises(ValueError, match=r"problem\.operator\.weight has an entry of magnitude 1e\+300"):
        solve(problem, PnPPGD(prior=TVPrior(0.1)), maxiters=2)


def test_a_masked_fourier_mask_edited_in_place_changes_nothing():
    """red12a: mf.mask[0, 0] flipped met "_forward(x) must return a tensor of shape (1, 2, 40)"."""
    from algorithms.imaging import MaskedFourier, cartesian_mask

    op = MaskedFourier(cartesian_mask((8, 8), 4.0, seed=0))
    before = op(X)
    op.mask[0, 0] = ~op.mask[0, 0]
    assert torch.equal(op(X), before)


def test_radon_angles_cannot_be_edited_in_place():
    op = Radon((8, 8), [0.0, 45.0])
    with pytest.raises(ValueError, match="read-only"):
        op.angles[0] = 30.0


def test_single_steps_validate_a_changed_algorithm_and_problem_again():
    """object.__setattr__(pgd, "lr", -1) ran in PnPPGD.step (a solve re-validated it, the step did not)."""
    problem = InverseProblem(H, H(X))
    pgd = PnPPGD(prior=TVPrior(0.1))
    object.__setattr__(pgd, "lr", -1.0)
    with pytest.raises(ValueError, match=r"PnPPGD\.lr was changed after construction"):
        pgd.step(problem, X, None)
    object.__setattr__(problem, "noise_std", -1.0)
    with pytest.raises(ValueError, match=r"InverseProblem\.noise_std was changed after construction"):
        PnPADMM(prior=TVPrior(0.1)).x_step(problem, X, X)


def test_an_operator_whose_adjoint_is_not_its_adjoint_is_refused():
    """red12a: a LinearOperator subclass with _adjoint ≠ _forward's adjoint was solved to a wrong image by
    PnP-PGD (error 2.5 against 0.14) and diverged under ADMM, in silence."""
    from algorithms.imaging.operators import LinearOperator

    g = torch.Generator().manual_seed(0)
    M = torch.randn(16, 16, dtype=DT, generator=g) + 4 * torch.eye(16, dtype=DT)
    W = M + 0.5 * torch.randn(16, 16, dtype=DT, generator=g)

    class Op(LinearOperator):
        def __init__(self, forward, backward):
            self.image_shape, self.measurement_shape = (4, 4), (16,)
            self._F, self._B = forward, backward

        def _forward(self, x):
            return x.reshape(x.shape[0], -1) @ self._F.to(x.dtype).T

        def _adjoint(self, y):
            return y @ self._B.to(y.dtype)

    image = torch.zeros(4, 4, dtype=DT)
    with pytest.raises(ValueError, match=r"operator's _adjoint must be the adjoint of its _forward"):
        InverseProblem(Op(M, W), Op(M, W)(image))
    assert InverseProblem(Op(M, M), Op(M, M)(image)).y.shape == (16,)


@pytest.mark.parametrize("write", ["index", "data"])
def test_operator_data_written_in_place_is_refused_at_the_solve(write):
    """red12a: H.weight[0, 0] = 2.0 (finite, in range) after the problem was built: the solve answered for
    another H; writes through .data are not seen by a tensor's version counter."""
    H2 = gaussian_cs((8, 8), 0.5, seed=0)
    problem = InverseProblem(H2, H2(X))
    if write == "index":
        H2.weight[0, 0] = 2.0
    else:
        H2.weight.data.mul_(2.0)
    with pytest.raises(ValueError, match=r"problem\.operator\.weight was written in place"):
        solve(problem, PnPPGD(prior=TVPrior(0.01)), maxiters=2)


def test_a_subspace_basis_written_through_data_is_refused():
    """red12a: pr.basis.data.mul_(3) (no version bump): a non-orthonormal "projection" used in silence."""
    from algorithms.imaging import SubspacePrior

    basis, _ = torch.linalg.qr(torch.randn(64, 6, dtype=DT, generator=torch.Generator().manual_seed(0)))
    prior = SubspacePrior(basis, (8, 8))
    prior.basis.data.mul_(3.0)
    with pytest.raises(ValueError, match=r"SubspacePrior\.basis was written in place"):
        solve(InverseProblem(H, H(X)), PnPPGD(prior=prior), maxiters=2)
    with pytest.raises(ValueError, match=r"SubspacePrior\.basis was written in place"):
        prior.prox(X, 1.0)


def test_a_dense_null_space_basis_of_a_large_operator_is_refused_before_it_runs():
    """A 64 × 64 blur's dense n × n QR ran 8 minutes on the loaded machine (128 × 128: hours), a hang."""
    from algorithms.imaging import Blur, NullSpaceProjector, null_space_basis

    large = Blur((64, 64), 1.0)
    for call in (lambda: null_space_basis(large), lambda: NullSpaceProjector(large)):
        with pytest.raises(ValueError, match=r"operator must act on at most 1024 pixels"):
            call()
    assert null_space_basis(gaussian_cs((32, 32), 0.9, seed=0)).shape[0] == 1024


def test_a_direct_call_of_an_operator_written_in_place_is_refused():
    """red12a: H.weight[0, 0] = 1e30 (in range) then H(x) answered for another H."""
    H2 = gaussian_cs((8, 8), 0.5, seed=0)
    H2.weight[0, 0] = 1e30
    for call in (lambda: H2(X), lambda: H2.adjoint(torch.zeros(32, dtype=DT))):
        with pytest.raises(ValueError, match=r"MatrixOperator\.weight was written in place"):
            call()


def test_a_null_space_projector_matrix_cannot_be_edited():
    """red12a: NullSpaceProjector.matrix written in place (×3) was answered as the projector."""
    from algorithms.imaging import NullSpaceProjector

    P = NullSpaceProjector(H)
    before = P(X)
    P.matrix.mul_(3.0)
    assert torch.equal(P(X), before)
    with pytest.raises(ValueError, match=r"\bmatrix is fixed"):
        P.matrix = torch.eye(64, dtype=DT)


def test_the_cached_networks_are_handed_out_as_copies():
    """red12a: load_network / load_denoiser returned one shared module: a caller's edit changed every later
    call (and every NPN built from it)."""
    from algorithms.imaging import setups

    a = setups.load_denoiser()
    with torch.no_grad():
        next(a.parameters()).mul_(0.0)
    assert float(next(setups.load_denoiser().parameters()).detach().abs().sum()) > 0.0


def test_measurements_written_through_data_are_refused_at_the_solve():
    """y.data.mul_(2) bumps no version counter: the solve ran on other measurements than validated."""
    problem = InverseProblem(H, H(X))
    problem.y.data.mul_(2.0)
    with pytest.raises(ValueError, match=r"InverseProblem\.y was written in place"):
        solve(problem, PnPPGD(prior=TVPrior(0.01)), maxiters=2)


@pytest.mark.parametrize("make", [PnPPGD, PnPADMM])
def test_a_tv_prior_too_costly_for_the_default_iteration_cap_is_refused(make):
    """red12a: TVPrior(inner=10**5) at PnP-PGD's default 500 iterations ran for an hour (a hang); with an
    explicit maxiters the cost is the caller's choice."""
    problem = InverseProblem(H, H(X))
    algorithm = make(prior=TVPrior(0.01, inner=10**5))
    with pytest.raises(ValueError, match=r"prior\.inner = 100000 is too large"):
        solve(problem, algorithm)
    assert solve(problem, algorithm, maxiters=1).stats.iterations == 1
