"""Round 14: submodular's checks relative to f's own values (red14b findings)."""

from __future__ import annotations

import pytest

from algorithms.submodular import Matchoid, MatchoidMaximization, UniformMatroid


@pytest.mark.parametrize("scale", [1e-12, 1e-30, 1.0, 1e30])
def test_a_supermodular_f_is_refused_at_every_scale(scale):
    # the tolerance 1e-9·max(1, |f|) passed f(S) = 1e-12·|S|² as submodular (refused at scale 1)
    with pytest.raises(ValueError, match=r"^f must be submodular"):
        MatchoidMaximization(lambda S: scale * len(S) ** 2, Matchoid([UniformMatroid(3)]), range(6))


def test_brute_force_refuses_a_maxiters_that_does_not_cap():
    # maxiters = 2**63 - 1 skipped the MAX_SETS guard: 6e8 sets on 30 elements of rank 15, hours
    from algorithms import solve
    from algorithms.submodular import BruteForce

    prob = MatchoidMaximization(len, Matchoid([UniformMatroid(15)]), range(30))
    with pytest.raises(ValueError, match=r"^maxiters = 9223372036854775807 lets brute force"):
        solve(prob, BruteForce(), maxiters=2**63 - 1)
    assert solve(prob, BruteForce(), maxiters=1000).retcode.name == "MaxIters"
