"""Round 20 of #43 in the attention family: a stopping test passing on underflowed values (class G)."""

import pytest

from algorithms import RetCode, solve
from algorithms.attention import OverlapFlow, SingleLocationProblem


@pytest.mark.parametrize("exponent", [1000, 1100, 3000])
def test_overlap_flow_is_not_success_where_the_locate_probability_underflows(exponent):
    # p(μ) underflowed to 0 from L ~ 2**1100 (d = 2) and the test max|v| <= tol·p(μ) read 0 <= 0: Success at
    # a start whose rescaled speed max|v|/p(μ) is 0.29 (the same start at L = 2**1000 is Stalled)
    sol = solve(SingleLocationProblem(d=2, L=2**exponent, gamma=0.5), OverlapFlow(), maxiters=200)
    assert sol.retcode is RetCode.Stalled


@pytest.mark.parametrize("edit, words", [
    ({"out_features": 3}, "out_features must be 1"),
    ({"out_features": 1.0}, "out_features must be 1"),
    ({"in_features": 4.0}, "in_features must be an int >= 2"),
    ({"in_features": "4"}, "in_features must be an int >= 2"),
])
@pytest.mark.parametrize("model", ["erf", "softmax"])
def test_a_whole_model_pickle_with_settings_no_constructor_takes_is_refused_at_forward(model, edit, words):
    # torch.load of a torch.save(model) file restores __dict__ past __setattr__: out_features = 3 answered
    # one column in silence (red20b)
    import copy

    import torch

    from algorithms.attention import ErfAttention, SoftmaxAttention

    built = (ErfAttention if model == "erf" else SoftmaxAttention)(4, seed=0)
    state = {**copy.copy(built.__dict__), **edit}
    loaded = object.__new__(type(built))
    loaded.__setstate__(state)
    with pytest.raises(ValueError, match=words):
        loaded(torch.randn(2, 3, 4, dtype=loaded.dtype))
