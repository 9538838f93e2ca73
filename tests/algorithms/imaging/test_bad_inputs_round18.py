"""Round 18 (issue #43): state changed after construction, then used (imaging)."""
import pytest
import torch

from algorithms.imaging import NullSpaceProjector, gaussian_cs


@pytest.mark.parametrize("shape", [(2, 8), (8, 2), (4, 4, 1), "x"])
def test_null_space_projector_image_shape_is_fixed(shape):
    # P.image_shape = (2, 8) projected 2×8 images with the 4×4 geometry, a wrong P x in silence
    P = NullSpaceProjector(gaussian_cs((4, 4), 0.5, seed=0))
    with pytest.raises(ValueError, match="image_shape is fixed"):
        P.image_shape = shape
    assert P.image_shape == (4, 4)
    with pytest.raises(ValueError, match="x must have shape"):
        P(torch.randn(2, 8, dtype=torch.float64))


def test_null_space_projector_image_shape_same_value_still_projects():
    H = gaussian_cs((4, 4), 0.5, seed=0)
    P = NullSpaceProjector(H)
    x = torch.randn(4, 4, dtype=torch.float64)
    assert float(torch.linalg.vector_norm(H(P(x)))) < 1e-12


# ---- a misspelt attribute set after construction is refused by name (stored and ignored before; red18a)
def _misspelt_cases():

    cases = {}
    from algorithms.imaging import (
        NullSpaceNet,
        NullSpaceProjector,
        ResidualDenoiser,
        gaussian_cs,
        qr_null_rows,
    )
    H = gaussian_cs((4, 4), 0.5, seed=0)
    cases["NullSpaceProjector.image_shapee"] = (lambda: NullSpaceProjector(H), "image_shapee", (2, 8))
    cases["ResidualDenoiser.channelss"] = (lambda: ResidualDenoiser(channels=2), "channelss", 8)
    cases["NullSpaceNet.scal"] = (lambda: NullSpaceNet(H, qr_null_rows(H, 4, 0), channels=2), "scal", 2.0)
    net = lambda: NullSpaceNet(H, qr_null_rows(H, 4, 0), channels=2)  # noqa: E731
    cases["NullSpaceNet.channelss"] = (net, "channelss", 8)
    return cases


@pytest.mark.parametrize("case", list(_misspelt_cases()))
def test_misspelt_attribute_refused(case):
    from tests.bad_inputs import assert_misspelt_attribute_refused

    assert_misspelt_attribute_refused(*_misspelt_cases()[case])


def _networks():
    from algorithms import solve
    from algorithms.imaging import (
        NPN,
        Blur,
        DenoiserPrior,
        InverseProblem,
        MatrixOperator,
        NullSpaceNet,
        PnPADMM,
        ResidualDenoiser,
    )

    def denoiser_forward(net):
        return lambda: net(torch.rand(1, 8, 8, dtype=torch.float64))

    def prior_solve(net):
        op = Blur((8, 8), 1.0)
        problem = InverseProblem(op, op.apply(torch.rand(8, 8, dtype=torch.float64)), 0.01)
        prior = DenoiserPrior(net)
        return prior, lambda: solve(problem, PnPADMM(prior), maxiters=2)

    class Shrink(torch.nn.Module):   # a user's network: images times a learned factor
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.tensor([0.9], dtype=torch.float64))

        def forward(self, x):
            return x * self.weight

    def denoiser_case():
        net = ResidualDenoiser().double()
        return net, denoiser_forward(net)

    yield "ResidualDenoiser.forward", denoiser_case
    yield "DenoiserPrior.prox", lambda: prior_solve(ResidualDenoiser().double())
    yield "DenoiserPrior.prox user network", lambda: prior_solve(Shrink())
    H = MatrixOperator(torch.randn(8, 16, dtype=torch.float64), (4, 4))
    S = MatrixOperator(torch.linalg.svd(H.weight).Vh[8:], (4, 4))

    def npn_case():
        net = NullSpaceNet(H, S).double()
        term = NPN(S, net, 0.1)
        return net, lambda: term.predict(H.apply(torch.rand(4, 4, dtype=torch.float64)))
    yield "NullSpaceNet.forward", lambda: (lambda n: (n, lambda: n(torch.rand(2, 8, dtype=torch.float64))))(
        NullSpaceNet(H, S).double())
    yield "NPN.predict", npn_case


@pytest.mark.parametrize("value", [1e39, float("nan"), -float("inf")])
@pytest.mark.parametrize("case", [name for name, _ in _networks()])
def test_network_weight_written_in_place_refused_at_use(case, value):
    # a float64 weight of 1e39 written in place was used (load_state_dict refuses it); NaN was caught only
    # by ResidualDenoiser's own forward, not for the NPN predictor or a DenoiserPrior's prox of a user net
    build = dict(_networks())[case]
    owner, use = build()
    network = owner.network if hasattr(owner, "network") else owner
    use()   # clean: runs
    with torch.no_grad():
        next(network.parameters()).view(-1)[0] = value
    with pytest.raises(ValueError, match=r"weight (has an entry of magnitude|contains NaN or inf)"):
        use()


@pytest.mark.parametrize("convert", ["half", "bfloat16"])
def test_residual_denoiser_converted_to_half_refused(convert):
    # .half() after construction answered float16 images in silence (built float32, documented float32/64)
    from algorithms.imaging import ResidualDenoiser
    net = getattr(ResidualDenoiser(), convert)()
    with pytest.raises(TypeError, match="ResidualDenoiser's parameters are torch"):
        net(torch.rand(1, 8, 8))


# ---- a non-finite basis passed SubspacePrior's orthonormality check (NaN > tol is False; heldout19)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("bad", ["nan", "inf", "one_nan"])
def test_subspace_prior_refuses_non_finite_basis(bad, dtype):
    from algorithms.imaging import SubspacePrior

    generator = torch.Generator().manual_seed(0)
    Q = torch.linalg.qr(torch.randn(16, 4, dtype=torch.float64, generator=generator))[0].to(dtype)
    if bad == "one_nan":
        Q[3, 1] = float("nan")
    else:
        Q = float(bad) * Q
    with pytest.raises(ValueError, match="basis must have finite entries"):
        SubspacePrior(Q, (4, 4))
