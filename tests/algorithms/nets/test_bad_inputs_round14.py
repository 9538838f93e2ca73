"""Round 14 bad inputs of the nets family (one test per class, asserting the type and the argument's name)."""

from __future__ import annotations

import pytest

from algorithms import solve
from algorithms.nets.gd_map import GDMap, StrictSaddle


@pytest.mark.parametrize("maxiters", [2**31 - 1, 10**7])
def test_gdmap_refuses_a_run_estimated_past_its_time_limit(maxiters):
    # 2**31 - 1 steps at lr = 1e-30 (tol never met) ran for about 33 hours
    with pytest.raises(ValueError, match="maxiters"):
        solve(StrictSaddle(a=[1.0], b=[1.0], x0=[1.0, 0.0]), GDMap(lr=1e-30), maxiters=maxiters)


def test_gdmap_takes_maxiters_inside_the_limit():
    assert solve(StrictSaddle(a=[1.0], b=[1.0]), GDMap(lr=0.1), maxiters=2_000_000, seed=0).successful
