"""#43 round 12 of algorithms.attention: the working range (README "Working range")."""

import math

import pytest
import torch

from algorithms.attention import SingleLocationProblem, monte_carlo_risk, top_score_probability

PROBLEM = SingleLocationProblem(d=6, L=3, gamma=0.5)


@pytest.mark.parametrize("L", [2**63, 2**64, 10**100, 2**3000])
def test_sequence_lengths_past_int64_have_a_value_and_refuse_a_sample(L):
    """L enters the formulas only (documented: no int64 cap, the phase transition at large d needs
    L − 1 = e^{αd} ~ 1e34); a sample of L tokens is refused by memory, naming L."""
    from algorithms.attention import sample_batch

    problem = SingleLocationProblem(d=6, L=L, gamma=0.5)
    assert 0.0 <= top_score_probability(problem) <= 1.0
    with pytest.raises(ValueError, match=r"\bL\b"):
        sample_batch(problem, 1, 0)


@pytest.mark.parametrize("level", [5e-324, 1e-39])
def test_monte_carlo_level_below_the_working_range_is_refused(level):
    """level = 5e-324 gave a zero-width interval in silence."""
    u, v = PROBLEM.oracle()
    with pytest.raises(ValueError, match=r"\blevel = .* is outside the package's working range"):
        monte_carlo_risk(PROBLEM, u, v, n=4, level=level)


def test_monte_carlo_level_at_the_working_range_has_an_interval():
    u, v = PROBLEM.oracle()
    out = monte_carlo_risk(PROBLEM, u, v, n=50, level=1.2e-38)
    assert math.isfinite(out["half_width"]) and out["half_width"] >= 0.0


@pytest.mark.parametrize("value", [1e39, 1e308, -1e308, 10**100, math.inf, 5e-324, 1e-39])
@pytest.mark.parametrize("name", ["beta", "epsilon"])
def test_problem_scales_outside_the_working_range_are_refused(name, value):
    if name == "epsilon" and 0 < value < 1:  # epsilon may be 0: a tiny one acts as it
        assert SingleLocationProblem(d=6, L=3, gamma=0.5, epsilon=abs(value)).epsilon == abs(value)
        return
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        SingleLocationProblem(d=6, L=3, gamma=0.5, **{name: value})


def test_tokens_past_the_working_range_are_refused():
    from algorithms.attention import ErfAttention, SoftmaxAttention

    X = torch.full((2, 3, 4), 1e39, dtype=torch.float64)
    for model in (SoftmaxAttention(4), ErfAttention(4)):
        with pytest.raises(ValueError, match=r"\bX has an entry of magnitude 1e\+39, outside"):
            model(X)


def test_fractions_are_real_overlaps():
    """red12b: Fraction (a numbers.Real) was refused as "must be a real number" by the overlap checks."""
    from fractions import Fraction

    from algorithms.attention import locate_probability, mean_field_risk, vectors_with_overlaps

    half = Fraction(1, 2)
    assert top_score_probability(PROBLEM, half) == top_score_probability(PROBLEM, 0.5)
    assert locate_probability(PROBLEM, half) == locate_probability(PROBLEM, 0.5)
    assert mean_field_risk(PROBLEM, 0.5, 0.5, zeta=half) == mean_field_risk(PROBLEM, 0.5, 0.5, zeta=0.5)
    u, v = vectors_with_overlaps(PROBLEM, mu=half, nu=half)
    assert torch.equal(u, vectors_with_overlaps(PROBLEM, mu=0.5, nu=0.5)[0])
    u, v = PROBLEM.oracle()
    assert monte_carlo_risk(PROBLEM, u, v, n=20, level=Fraction(19, 20)) == \
        monte_carlo_risk(PROBLEM, u, v, n=20, level=0.95)


@pytest.mark.parametrize("make", ["OverlapFlow", "SphericalGD"])
def test_maxiters_zero_ends_maxiters_whatever_the_callback(make):
    """red12b: a callback returning True at the only record of maxiters = 0 ended Terminated (core: the
    run is over, MaxIters)."""
    from algorithms import RetCode, solve
    from algorithms.attention import OverlapFlow, SphericalGD

    algorithm = OverlapFlow() if make == "OverlapFlow" else SphericalGD()
    problem = SingleLocationProblem(d=6, L=3, gamma=0.5, n_samples=10)
    assert solve(problem, algorithm, maxiters=0, callback=lambda record: True).retcode is RetCode.MaxIters
    assert solve(problem, algorithm, maxiters=3, callback=lambda record: True).retcode is RetCode.Terminated


def test_spherical_gd_names_d_beside_n_samples_for_a_sample_too_large():
    """red12b: d = 2**24 was blamed on the default n_samples = 500 ("use a smaller n_samples")."""
    from algorithms import solve
    from algorithms.attention import SphericalGD

    with pytest.raises(ValueError, match=r"n_samples = 500 with L = 3, d = 16777216"):
        solve(SingleLocationProblem(d=2**24, L=3, gamma=0.6), SphericalGD(), maxiters=1)


@pytest.mark.parametrize("call", [
    lambda p: __import__("algorithms.attention", fromlist=["x"]).locate_probability(p, 0.5),
    lambda p: __import__("algorithms.attention", fromlist=["x"]).best_linear_risk(p),
    lambda p: __import__("algorithms.attention", fromlist=["x"]).overlap_velocity(p, [0.5, 0.5, 0.0, 0.0]),
    lambda p: __import__("algorithms.attention", fromlist=["x"]).sample_batch(p, 2, 0),
    lambda p: __import__("algorithms.attention", fromlist=["x"]).vectors_with_overlaps(p, mu=0.5, nu=0.5),
    lambda p: top_score_probability(p),
    lambda p: p.oracle(),
])
def test_a_problem_changed_after_construction_is_validated_again_by_every_function(call):
    """object.__setattr__(problem, "gamma", 2) met math's "domain error" in the formulas, or was answered
    (best_linear_risk, vectors_with_overlaps); a solve re-validated it, the public functions did not."""
    problem = SingleLocationProblem(d=6, L=3, gamma=0.5)
    object.__setattr__(problem, "gamma", 2.0)
    with pytest.raises(ValueError, match=r"SingleLocationProblem\.gamma was changed after construction"):
        call(problem)


def test_a_state_entry_of_another_shape_is_named_as_a_shape():
    """red12b: state_dict['k'] of shape (1,) was refused as "must be a unit vector ..., got norm 0.574"."""
    from algorithms.attention import ErfAttention

    model = ErfAttention(3)
    with pytest.raises(ValueError, match=r"state_dict\['k'\] must have shape \(3,\)"):
        model.load_state_dict({"k": torch.ones(1, dtype=torch.float64), "v": model.v.detach().clone()})


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_least_squares_names_half_precision(dtype):
    """torch's lstsq raised "This function doesn't handle types other than float and double"."""
    from algorithms.attention import fit_linear_predictor

    X = torch.randn(40, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with pytest.raises(TypeError, match=r"\bX must be a real floating tensor \(float32 or float64\)"):
        fit_linear_predictor(X.to(dtype), X[:, 0, 0].to(dtype))


def test_phase_map_takes_fractions_and_ints_past_int64():
    """red12b: phase_map([0.5], [2**64]) (a valid α) and Fractions were refused "must be numeric, got dtype
    object"."""
    from fractions import Fraction

    from algorithms.attention import phase_map

    assert phase_map([0.5], [2**64]).tolist() == phase_map([0.5], [float(2**64)]).tolist()
    assert phase_map([Fraction(1, 2)], [1.0]).tolist() == phase_map([0.5], [1.0]).tolist()
