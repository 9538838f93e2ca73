"""#43 round 10 (pre-audit sweep) of algorithms.attention: overlaps (μ, ζ, ρ) that no unit vectors have
(the Gram matrix of (u, v, u*) not positive semidefinite) were accepted by ``mean_field_risk``."""

import math

import pytest
import torch

from algorithms.attention import SingleLocationProblem, mean_field_risk

P = SingleLocationProblem(d=20, L=4, gamma=0.6)


def test_mean_field_risk_refuses_overlaps_with_no_gram_matrix():
    # u = u* forces rho = <u, v> = <u*, v> = zeta: rho = 0.2 with zeta = 0 has no unit vectors
    with pytest.raises(ValueError, match=r"\brho\b.*positive semidefinite"):
        mean_field_risk(P, 1.0, 0.0, 0.0, 0.2)
    with pytest.raises(ValueError, match=r"\brho\b"):  # tensors too, each entry
        mean_field_risk(P, torch.tensor([1.0, 0.5]), 0.0, 0.0, torch.tensor([0.0, 0.9]))
    with pytest.raises(ValueError, match=r"\brho\b.*rho=None"):  # the default ρ = 0 needs μ² + ζ² <= 1
        mean_field_risk(P, 0.9, 0.1, 0.9)
    with pytest.raises(ValueError, match=r"\brho\b"):  # a given ρ is checked in the frozen limit too
        mean_field_risk(P, 1.0, 0.0, 0.0, 0.2, frozen_limit=True)
    # the boundary and the frozen limit without ρ are accepted
    assert math.isfinite(mean_field_risk(P, 0.6, 0.0, 0.0, 0.8))
    assert math.isfinite(mean_field_risk(P, 0.9, 0.1, 0.9, frozen_limit=True))
    assert math.isfinite(mean_field_risk(P, 0.9, 0.1, 0.9, 0.81))


def test_spherical_gd_overflowing_step_is_diverged():
    """lr = 1e308: the step lr·gradient overflowed, the normalised point was 0 and the next record's
    overlaps raised 'u must be a unit vector' naming no argument of the call."""
    import numpy as np

    from algorithms import RetCode, solve
    from algorithms.attention import SphericalGD

    # round 12: lr = 1e308 is past the working range; in float32 the top of the range overflows the step
    with pytest.raises(ValueError, match=r"\blr = 1e\+308 is outside the package's working range"):
        SphericalGD(lr=1e308)
    problem = SingleLocationProblem(d=8, L=4, gamma=0.6, n_samples=20, dtype=np.float32)
    sol = solve(problem, SphericalGD(lr=3.4e38), maxiters=5, seed=0)
    assert sol.retcode is RetCode.Diverged


def test_models_check_attributes_set_later_and_their_weights():
    """beta/lam = NaN or −1 set after construction gave NaN or negated outputs in silence; NaN weights too."""
    from algorithms.attention import ErfAttention, SoftmaxAttention

    X = torch.randn(2, 3, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    model = SoftmaxAttention(8)
    with pytest.raises(ValueError, match=r"\bbeta\b"):
        model.beta = float("nan")
    with pytest.raises(ValueError, match=r"\bbeta\b"):
        model.beta = -1.0
    with pytest.raises(ValueError, match=r"\blink\b"):
        model.link = "nonsense"
    with pytest.raises(ValueError, match=r"\bin_features is fixed"):
        model.in_features = 3
    model.beta, model.link = 2.0, "relu"  # valid values are taken
    with torch.no_grad():
        model.u[0] = float("nan")
    with pytest.raises(ValueError, match=r"\bparameter u contains NaN"):
        model(X)
    erf = ErfAttention(8)
    with pytest.raises(ValueError, match=r"\blam\b"):
        erf.lam = float("nan")


def test_top_score_nodes_capped_where_the_weights_are_finite():
    """nodes = 2000 (then the cap) returned NaN after 25 s: numpy's Gauss-Hermite weights are NaN from 372."""
    from algorithms.attention import top_score_probability
    from algorithms.attention.risk import MAX_NODES

    with pytest.raises(ValueError, match=r"\bnodes must be <= 360"):
        top_score_probability(P, nodes=372)
    assert 0.0 <= top_score_probability(P, nodes=MAX_NODES) <= 1.0


def test_spherical_gd_sample_capped():
    """n_samples = 10**7 at d = 8, L = 4 spent minutes drawing the sample before the first step."""
    from algorithms import solve
    from algorithms.attention import SphericalGD

    problem = SingleLocationProblem(d=8, L=4, gamma=0.6, n_samples=10**7)
    with pytest.raises(ValueError, match=r"\bn_samples must keep the training sample"):
        solve(problem, SphericalGD(), maxiters=2)


def test_mean_field_risk_names_shapes_that_do_not_broadcast():
    """Overlap tensors of shapes (2,) and (3,) met torch's broadcasting RuntimeError, naming none of them."""
    with pytest.raises(ValueError, match=r"mu, nu, zeta, rho must be tensors of broadcastable.*nu: \(3,\)"):
        mean_field_risk(P, torch.tensor([0.5, 0.4]), torch.tensor([0.1, 0.2, 0.3]))
    out = mean_field_risk(P, torch.tensor([0.5, 0.4]), torch.tensor([[0.1], [0.2], [0.3]]))
    assert tuple(out.shape) == (3, 2)


def test_token_dimension_mismatch_names_the_model_side():
    from algorithms.attention import SoftmaxAttention

    with pytest.raises(ValueError, match=r"\bX must have shape \(n, L, 8\) \(d = 8.*in_features\)"):
        SoftmaxAttention(8)(torch.zeros(2, 3, 5, dtype=torch.float64))


def test_unit_parameters_checked_on_load_and_forward():
    """Held-out round 10 (first run): load_state_dict with the key vector scaled by 3 was loaded as it was."""
    from algorithms.attention import ErfAttention, SoftmaxAttention

    model = SoftmaxAttention(8)
    state = model.state_dict()
    state["u"] = state["u"] * 3
    with pytest.raises(ValueError, match=r"state_dict\['u'\] must be a unit vector"):
        model.load_state_dict(state)
    erf = ErfAttention(8)
    state = erf.state_dict()
    state["k"] = state["k"] * 0
    with pytest.raises(ValueError, match=r"state_dict\['k'\] must be a unit vector"):
        erf.load_state_dict(state)
    with torch.no_grad():
        model.v.mul_(3)
    with pytest.raises(ValueError, match=r"parameter v must be a unit vector"):
        model(torch.zeros(2, 3, 8, dtype=torch.float64))


def test_mean_field_risk_of_an_empty_tensor_is_empty():
    """torch's max() of an empty tensor raised RuntimeError inside the overlap checks."""
    assert mean_field_risk(P, torch.zeros(0, dtype=torch.float64), 0.5).shape == (0,)
