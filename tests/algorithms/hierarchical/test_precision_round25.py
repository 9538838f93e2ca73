"""Round 25 (#43) precision sweep of the hierarchical family: the normalized x-step of Ada-Minimax and Ada-BiO
at a subnormal momentum."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.hierarchical import AdaBiO, AdaMinimax, BilevelProblem, MinimaxProblem

_TINY = np.array([5e-324, 1e-323])  # subnormal gradient entries: ‖m‖ is subnormal too


def _minimax() -> MinimaxProblem:
    return MinimaxProblem(grad=lambda x, y, rng: (_TINY.copy(), np.zeros(1)), phi=lambda x: float(x.sum()),
                          grad_phi=lambda x: np.ones(2), x0=np.zeros(2), y0=np.zeros(1))


def _bilevel() -> BilevelProblem:
    return BilevelProblem(upper_grad=lambda x, y, rng: (_TINY.copy(), np.zeros(1)),
                          lower_grad=lambda x, y, rng: np.zeros(1),
                          lower_hvp=lambda x, y, v, rng: (np.zeros(2), v.copy()),
                          phi=lambda x: float(x.sum()), grad_phi=lambda x: np.ones(2),
                          x0=np.zeros(2), y0=np.zeros(1), mu_g=1.0, l_g1=1.0)


@pytest.mark.parametrize(("make", "algorithm"), [(_minimax, AdaMinimax()), (_bilevel, AdaBiO())])
def test_normalized_step_of_a_subnormal_momentum_has_length_lr(make, algorithm):
    # (η/‖m‖)·m overflowed for ‖m‖ ~ 1e-323: x went to -inf and the run ended Diverged after one step
    sol = solve(make(), algorithm, maxiters=1, store_trace=True)
    assert sol.retcode is RetCode.MaxIters
    lr = sol.trace[-1]["lr_x"]
    assert np.linalg.norm(sol.x) == pytest.approx(lr, rel=1e-15)
    assert np.allclose(sol.x, -lr * np.array([1.0, 2.0]) / np.sqrt(5.0), rtol=1e-15)  # along -m
