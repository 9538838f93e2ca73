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
