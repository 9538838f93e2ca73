"""#43 round 11 (pre-audit sweep) of algorithms.imaging: a frozen problem, algorithm or prior changed after
construction (``object.__setattr__``, or an in-place write into a tensor field) was solved as it was: a
negative noise_std stored, a NaN prior weight named only at the overflow, an operator's NaN matrix entry
blamed on y."""

import pytest
import torch

from algorithms import solve
from algorithms.imaging import InverseProblem, PnPADMM, PnPPGD, SubspacePrior, TVPrior, gaussian_cs
from tests.algorithms.imaging._instances import cs_problem


def test_fields_changed_after_construction_are_validated_again():
    problem, _ = cs_problem()
    object.__setattr__(problem, "noise_std", -1.0)
    with pytest.raises(ValueError, match=r"InverseProblem\.noise_std was changed.*noise_std"):
        solve(problem, PnPPGD(prior=TVPrior(weight=1e-3), lr=1.0), maxiters=2)
    problem, _ = cs_problem()
    algorithm = PnPPGD(prior=TVPrior(weight=1e-3), lr=1.0)
    object.__setattr__(algorithm, "lr", -1.0)
    with pytest.raises(ValueError, match=r"PnPPGD\.lr was changed.*\blr\b"):
        solve(problem, algorithm, maxiters=2)
    algorithm = PnPADMM(prior=TVPrior(weight=1e-3))
    object.__setattr__(algorithm.prior, "weight", float("nan"))
    with pytest.raises(ValueError, match=r"TVPrior\.weight was changed.*\bweight\b"):
        solve(problem, algorithm, maxiters=2)


def test_tensor_fields_written_in_place_are_validated_again():
    basis = torch.linalg.qr(torch.randn(64, 4, dtype=torch.float64))[0]
    prior = SubspacePrior(basis, (8, 8))
    prior.basis.mul_(3.0)  # no longer orthonormal
    problem, _ = cs_problem()
    with pytest.raises(ValueError, match=r"SubspacePrior\.basis was changed.*orthonormal"):
        solve(problem, PnPPGD(prior=prior, lr=1.0), maxiters=2)


def test_operator_data_written_in_place_is_named():
    H = gaussian_cs((8, 8), 0.5, seed=0)
    problem = InverseProblem(H, H(torch.ones(8, 8, dtype=torch.float64)))
    H.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"problem\.operator\.weight contains NaN"):
        solve(problem, PnPPGD(prior=TVPrior(weight=1e-3), lr=1.0), maxiters=2)


def test_unchanged_and_validly_changed_objects_solve():
    problem, _ = cs_problem()
    algorithm = PnPPGD(prior=TVPrior(weight=1e-3), lr=1.0)
    first = solve(problem, algorithm, maxiters=3)
    object.__setattr__(algorithm, "lr", 0.5)  # a valid value: adopted
    assert solve(problem, algorithm, maxiters=3).retcode == first.retcode


def test_tiny_and_huge_scales_are_solved_scale_free():
    """y ~1e-200: torch's vector_norm squared the entries to 0, so the relative residuals were 0 and ADMM
    stopped at once with Success at another image; its x-step's CG met ‖r‖² = 0 (or inf for ~1e200) and
    returned the start as the solution."""
    H = gaussian_cs((8, 8), 0.5, seed=0)
    x = torch.zeros(8, 8, dtype=torch.float64)
    x[2:6, 2:6] = 1.0
    runs = []
    for c in (1.0, 1e-30):  # round 12: weight 1e-203 is below the working range
        problem = InverseProblem(H, c * H(x))
        sol = solve(problem, PnPADMM(prior=TVPrior(weight=1e-3 * c)), maxiters=20)
        runs.append((sol.retcode, sol.stats.iterations, torch.as_tensor(sol.x) / c))
    assert runs[0][:2] == runs[1][:2]
    assert torch.allclose(runs[0][2], runs[1][2], rtol=1e-9, atol=0)
    admm = PnPADMM(prior=TVPrior(weight=1e-3))
    problem = InverseProblem(H, H(x))
    step = admm.x_step(problem, 0 * x, x)
    assert torch.allclose(admm.x_step(problem, 0 * x, 1e-200 * x) / 1e-200, step, rtol=1e-12, atol=0)
    assert torch.allclose(admm.x_step(problem, 0 * x, 1e200 * x) / 1e200, step, rtol=1e-12, atol=0)


def test_abstract_operator_base_names_what_to_define():
    """A LinearOperator subclass without _adjoint raised a bare NotImplementedError; one without shapes met
    Python's AttributeError inside forward; LinearOperator() itself built an operator with nothing."""
    from algorithms._validation import AbstractMethodError
    from algorithms.imaging import LinearOperator

    class ForwardOnly(LinearOperator):
        def __init__(self):
            self.image_shape, self.measurement_shape = (2, 2), (4,)

        def _forward(self, x):
            return x.reshape(x.shape[0], -1)

    class NoShapes(LinearOperator):
        def _forward(self, x):
            return x

    with pytest.raises(TypeError, match=r"ForwardOnly must define _adjoint\(y\)"):
        ForwardOnly().adjoint(torch.zeros(4, dtype=torch.float64))
    with pytest.raises(NotImplementedError):  # also what it was, for code that caught that
        ForwardOnly().adjoint(torch.zeros(4, dtype=torch.float64))
    with pytest.raises(AbstractMethodError, match=r"NoShapes must define image_shape"):
        NoShapes().forward(torch.zeros(2, 2, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"LinearOperator is an abstract base"):
        LinearOperator()


def test_priors_and_npn_used_directly_are_validated_again():
    """red11a: sp.basis.mul_(5.0) then prox returned 25·x-like garbage; TVPrior weight = -5 through
    object.__setattr__ ran."""
    prior = SubspacePrior(torch.eye(4, dtype=torch.float64)[:, :2], (2, 2))
    prior.basis.mul_(5.0)
    with pytest.raises(ValueError, match=r"SubspacePrior\.basis was changed.*orthonormal"):
        prior.prox(torch.ones(2, 2, dtype=torch.float64), 1.0)
    tv = TVPrior(weight=0.1)
    object.__setattr__(tv, "weight", -5.0)
    with pytest.raises(ValueError, match=r"TVPrior\.weight was changed.*\bweight\b"):
        tv.prox(torch.ones(4, 4, dtype=torch.float64), 1.0)


def test_pca_rows_need_images_varying_in_p_directions():
    """red11a: 20 identical images gave p 'principal' rows that were the SVD's arbitrary completion."""
    from algorithms.imaging import pca_null_rows

    H = gaussian_cs((4, 4), 0.5, seed=0)
    with pytest.raises(ValueError, match=r"\bimages must vary in at least p = 2 null-space directions"):
        pca_null_rows(H, 2, torch.ones(20, 4, 4, dtype=torch.float64))
    assert pca_null_rows(H, 2, torch.randn(20, 4, 4, dtype=torch.float64)).measurement_shape == (2,)


def test_network_sizes_cannot_be_reassigned():
    """red11a: d.depth = 9 was accepted, the network unchanged."""
    from algorithms.imaging import ResidualDenoiser

    denoiser = ResidualDenoiser(channels=4, depth=2)
    with pytest.raises(ValueError, match=r"\bdepth is fixed by ResidualDenoiser's construction"):
        denoiser.depth = 9


def test_operator_subclass_output_and_data_named():
    """red11a: a subclass whose _forward returned (b, 3) for m = 4 met torch's reshape error; a matrix
    filled with NaN in place was blamed on x."""
    from algorithms.imaging import LinearOperator

    class Short(LinearOperator):
        def __init__(self):
            self.image_shape, self.measurement_shape = (2, 2), (4,)

        def _forward(self, x):
            return x.reshape(x.shape[0], -1)[:, :3]

        def _adjoint(self, y):
            return y.reshape(y.shape[0], 2, 2)

    with pytest.raises(ValueError, match=r"Short\._forward\(x\) must return a tensor of shape \(1, 4\)"):
        Short()(torch.ones(2, 2, dtype=torch.float64))
    H = gaussian_cs((4, 4), 0.5, seed=0)
    H.weight.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"MatrixOperator\.weight contains NaN"):
        H(torch.ones(4, 4, dtype=torch.float64))


def test_big_endian_and_read_only_measurements():
    """red11a: a '>f8' numpy y met torch's byte-order error naming nothing; a read-only one warned."""
    import warnings

    import numpy as np

    H = gaussian_cs((4, 4), 0.5, seed=0)
    y = H(torch.ones(4, 4, dtype=torch.float64)).numpy()
    assert torch.equal(InverseProblem(H, y.astype(">f8")).y, torch.from_numpy(y))
    frozen = y.copy()
    frozen.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.equal(InverseProblem(H, frozen).y, torch.from_numpy(y))
    assert np.array_equal(frozen, y)


def test_user_networks_raising_their_own_errors_are_named():
    """A denoiser or NPN network raising its own ZeroDivisionError/ValueError let it out naming nothing
    (only torch's RuntimeError and Python's TypeError were wrapped)."""
    from algorithms.imaging import NPN, DenoiserPrior, qr_null_rows

    class Broken(torch.nn.Module):
        in_features, out_features = 32, 8

        def forward(self, x):
            raise ZeroDivisionError("inside the user's network")

    with pytest.raises(ValueError, match=r"\bnetwork must map .* it raised ZeroDivisionError"):
        DenoiserPrior(Broken()).prox(torch.ones(8, 8, dtype=torch.float64), 1.0)
    H = gaussian_cs((8, 8), 0.5, seed=0)
    npn = NPN(qr_null_rows(H, 8, seed=0), Broken(), 1.0)
    with pytest.raises(ValueError, match=r"\bnetwork must map .* it raised ZeroDivisionError"):
        npn.predict(H(torch.ones(8, 8, dtype=torch.float64)))


def test_subspace_prior_float32_basis_and_empty_basis():
    """A float32 QR basis (|BᵀB − I| ~ 5e-7) was refused as not orthonormal (tolerance 1e-8 whatever the
    dtype); an (n, 0) basis was accepted (every prox answered zeros); half precision met the orthonormality
    message."""
    basis = torch.linalg.qr(torch.randn(64, 4, dtype=torch.float64))[0]
    assert SubspacePrior(basis.float(), (8, 8)).basis.dtype == torch.float32
    with pytest.raises(ValueError, match=r"\bbasis must have at least one row and one column"):
        SubspacePrior(basis[:, :0], (8, 8))
    with pytest.raises(TypeError, match=r"\bbasis must be a float32 or float64 tensor"):
        SubspacePrior(basis.half(), (8, 8))


def test_constructor_signatures_are_visible():
    """The Problem/Algorithm metaclass's __call__ made inspect.signature (and help) show (*args, **kwargs)
    for every problem and algorithm, hiding the documented parameters."""
    import inspect

    assert list(inspect.signature(InverseProblem).parameters) == ["operator", "y", "noise_std"]
    assert list(inspect.signature(PnPPGD).parameters) == ["prior", "lr", "npn"]


def test_network_body_edited_after_construction_is_named():
    """A ResidualDenoiser whose first conv was swapped for one of 2 input channels met torch's convolution
    error; a body replaced by nn.Identity met "'Identity' object is not subscriptable"."""
    from algorithms.imaging import ResidualDenoiser

    denoiser = ResidualDenoiser(channels=4, depth=2)
    denoiser.body[0] = torch.nn.Conv2d(2, 4, 3, padding=1)
    with pytest.raises(ValueError, match=r"ResidualDenoiser\.body no longer maps"):
        denoiser(torch.rand(2, 8, 8))
    denoiser.body = torch.nn.Identity()
    with pytest.raises(TypeError, match=r"ResidualDenoiser\.body must be a torch module with parameters"):
        denoiser(torch.rand(2, 8, 8))


def test_operator_attributes_are_fixed_after_construction():
    """Held-out first run: MatrixOperator.weight = "abc" met AttributeError 'to' later,
    SubsampledHadamard.ratio = inf and Radon.sparse_t = "x" were kept."""
    from algorithms.imaging import Radon, SubsampledHadamard

    H = gaussian_cs((4, 4), 0.5, seed=0)
    with pytest.raises(ValueError, match=r"\bweight is fixed by MatrixOperator's construction"):
        H.weight = "abc"
    with pytest.raises(ValueError, match=r"\bratio is fixed by SubsampledHadamard's construction"):
        SubsampledHadamard((4, 4), 0.5, 0).ratio = float("inf")
    with pytest.raises(ValueError, match=r"\bsparse_t is fixed by Radon's construction"):
        Radon((8, 8), [0.0]).sparse_t = "x"
