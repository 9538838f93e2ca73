"""#43 round 12 of algorithms.attention: the working range (README "Working range")."""

import math

import pytest
import torch

from algorithms.attention import SingleLocationProblem, monte_carlo_risk, top_score_probability

PROBLEM = SingleLocationProblem(d=6, L=3, gamma=0.5)


@pytest.mark.parametrize("L", [2**63, 2**64, 10**100, 2**3000])
def test_sequence_lengths_past_int64_are_refused_as_counts(L):
    """L is a count (README: ints <= 2**63 - 1); 2**3000 was taken as a formula's e^{αd}."""
    with pytest.raises(ValueError, match=r"\bL must be <= 2\*\*63 - 1"):
        SingleLocationProblem(d=6, L=L, gamma=0.5)


def test_the_largest_sequence_length_has_a_value():
    assert 0.0 <= top_score_probability(SingleLocationProblem(d=6, L=2**63 - 1, gamma=0.5)) <= 1.0


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
