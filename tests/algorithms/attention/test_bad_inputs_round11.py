"""#43 round 11 (pre-audit sweep) of algorithms.attention: a frozen SingleLocationProblem or algorithm
changed after construction through ``object.__setattr__`` was solved as it was (gamma = 2 met math's
'domain error', a negative lr ran)."""

import math

import pytest

from algorithms import solve
from algorithms.attention import OverlapFlow, SingleLocationProblem, SphericalGD


def test_problem_fields_changed_after_construction_are_validated_again():
    problem = SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=20)
    object.__setattr__(problem, "gamma", 2.0)
    with pytest.raises(ValueError, match=r"SingleLocationProblem\.gamma was changed.*gamma"):
        solve(problem, SphericalGD(), maxiters=2)
    problem = SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=20)
    object.__setattr__(problem, "u0", (1.0, 1.0, 0.0, 0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"SingleLocationProblem\.u0 was changed.*u0 must be a unit"):
        solve(problem, OverlapFlow(), maxiters=2)


def test_algorithm_fields_changed_after_construction_are_validated_again():
    problem = SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=20)
    algorithm = SphericalGD()
    object.__setattr__(algorithm, "lr", -0.1)
    with pytest.raises(ValueError, match=r"SphericalGD\.lr was changed.*\blr\b"):
        solve(problem, algorithm, maxiters=2)


def test_denormal_beta_is_the_uniform_limit_not_zero():
    """β = 5e-324: ψ = α/β + β/2 overflowed to inf, so p(μ) = 0 and the flow's velocity vanished; the uniform
    limit (L = 3: p = 1/3) is what a tiny β gives."""
    from algorithms.attention import locate_probability, overlap_velocity

    # round 12: a subnormal β is outside the working range (refused); its smallest normal β is the limit
    with pytest.raises(ValueError, match=r"\bbeta = 5e-324 is outside the package's working range"):
        SingleLocationProblem(d=6, L=3, gamma=0.6, beta=5e-324)
    tiny, smallest = (SingleLocationProblem(d=6, L=3, gamma=0.6, beta=b) for b in (1e-30, 1.2e-38))
    assert locate_probability(smallest, 0.5) == pytest.approx(1.0 / 3.0)
    assert locate_probability(smallest, 0.5) == pytest.approx(locate_probability(tiny, 0.5))
    assert overlap_velocity(smallest, [0.5, 0.5, 0.0, 0.0])[1] == pytest.approx(0.18)


def test_link_refuses_nan_and_inf():
    import torch

    from algorithms.attention import link_function

    with pytest.raises(ValueError, match=r"\bt \(the relu link's argument\) contains NaN"):
        link_function("relu")(torch.tensor([float("nan"), 1.0]))


def test_model_dtype_is_the_parameters_and_cannot_be_assigned():
    """red11b: model.dtype = torch.float32 was stored while the parameters stayed float64."""
    import torch

    from algorithms.attention import ErfAttention, SoftmaxAttention

    for model in (SoftmaxAttention(4), ErfAttention(4)):
        assert model.dtype == torch.float64 and model.float().dtype == torch.float32
        with pytest.raises(TypeError, match=r"\bdtype of a \w+Attention is its parameters' dtype"):
            model.dtype = torch.float64


def test_monte_carlo_risk_is_continuous_in_the_vectors():
    """red11b: a float32 copy of u drew another sample with the same seed (0.066 vs 0.169): the Gram matrix's
    eigenvector factor turned by 45° when ρ moved off 0; the symmetric square root does not."""
    from algorithms.attention import monte_carlo_risk

    problem = SingleLocationProblem(d=6, L=4, gamma=0.6)
    u, v = problem.oracle()
    exact = monte_carlo_risk(problem, u, v, n=100, seed=0)["risk"]
    assert monte_carlo_risk(problem, u.float(), v, n=100, seed=0)["risk"] == pytest.approx(exact, rel=1e-5)


def test_overlaps_of_float32_vectors_stay_cosines():
    """red11b: overlaps(u.float(), v, u, v) gave mu = 1.000000007 (float32 rounding passed off as float64)."""
    from algorithms.attention import overlaps

    problem = SingleLocationProblem(d=6, L=4, gamma=0.6)
    u, v = problem.oracle()
    values = overlaps(u.float(), v, u, v)
    assert all(-1.0 <= x <= 1.0 for x in values.values()) and values["mu"] == pytest.approx(1.0)


def test_phase_map_grid_capped():
    """red11b: phase_map over 10⁵ × 10⁵ cells ran for minutes (a hang)."""
    import numpy as np

    from algorithms.attention import phase_map

    with pytest.raises(ValueError, match=r"\bgammas and alphas must span at most"):
        phase_map(np.linspace(0.01, 0.99, 100000), np.linspace(0.0, 1.0, 100000))


def test_linear_predictor_fits_a_rank_deficient_design():
    """Two identical tokens (collinear features): torch's default lstsq driver (gelsy) fitted y = x + 1 with
    residual 1.3 in silence; the minimum-norm SVD solution fits it exactly."""
    import torch

    from algorithms.attention import fit_linear_predictor

    X = torch.randn(50, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    X[:, 1] = X[:, 0]
    y = X[:, 0, 0] + 1.0
    assert torch.allclose(fit_linear_predictor(X, y)(X), y, atol=1e-10)


def test_parameter_vectors_replaced_after_construction_are_named():
    """model.u = nn.Parameter(torch.ones(5)) met torch's 'size mismatch', a float32 u beside a float64 v a
    message blaming X's dtype, model.v = None an AttributeError."""
    import torch

    from algorithms.attention import SoftmaxAttention

    X = torch.randn(2, 3, 4, dtype=torch.float64)
    model = SoftmaxAttention(4)
    model.u = torch.nn.Parameter(torch.ones(5, dtype=torch.float64) / 5**0.5)
    with pytest.raises(ValueError, match=r"\bparameter u must have shape \(4,\)"):
        model(X)
    model = SoftmaxAttention(4)
    model.u = torch.nn.Parameter(torch.ones(4) / 2)
    with pytest.raises(TypeError, match=r"\bparameters must share one dtype, got u: torch\.float32"):
        model(X)


def test_thermodynamics_refuses_psi_beyond_float64():
    """Held-out first run: thermodynamics(1e308, 0.5) answered psi = inf (alpha/beta overflowed)."""
    from algorithms.attention import learnable, locate_probability, thermodynamics

    # round 12: α past the working range is refused by name; at its edges ψ is finite
    for call in (lambda: thermodynamics(1e308, 0.5), lambda: learnable(0.5, 1e308, 0.5)):
        with pytest.raises(ValueError, match=r"\balpha = 1e\+308 is outside the package's working range"):
            call()
    assert math.isfinite(thermodynamics(3.4e38, 1.2e-38)["psi"])
    assert learnable(0.5, 3.4e38, 0.5) is False
    problem = SingleLocationProblem(d=6, L=3, gamma=0.6, beta=1.2e-38)
    assert locate_probability(problem, 0.5) == pytest.approx(1.0 / 3.0)


def test_subnormal_step_sizes_are_refused():
    """Held-out first run: SphericalGD/OverlapFlow (and imaging's PnPPGD) with lr = 5e-324 ran, moving
    nothing (shared check_step_size: >= float32's smallest normal)."""
    from algorithms.attention import OverlapFlow
    from algorithms.imaging import PnPPGD, TVPrior

    for make in (SphericalGD, OverlapFlow):
        with pytest.raises(ValueError, match=r"\blr = 5e-324 is outside the package's working range"):
            make(lr=5e-324)
    with pytest.raises(ValueError, match=r"\blr = 5e-324 is outside the package's working range"):
        PnPPGD(prior=TVPrior(0.1), lr=5e-324)
