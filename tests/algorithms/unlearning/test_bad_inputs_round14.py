"""Round 14: unlearning's runs end honestly (red14b)."""

from __future__ import annotations

from algorithms import solve
from algorithms.unlearning import Ridge, linear_task


def test_a_step_that_moves_nothing_ends_stalled_at_once():
    # lr = 1.2e-38 (valid) moved nothing: maxiters = 10**9 ran for hours to MaxIters
    sol = solve(linear_task(6, 10, 2), Ridge(lr=1.2e-38), maxiters=10**9)
    assert sol.retcode.name == "Stalled" and sol.stats.iterations == 1
