"""Round 16: options end to end on every method of the family (a callback's True at the record where the
stopping test also holds ends ``Terminated``), and Φ answered below the iterates' precision refused by name
whatever its type (an np.float32 was refused, a 0-d float32 array or tensor accepted)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve


@pytest.mark.parametrize("phi", [lambda x: np.float32(1.0), lambda x: np.array(1.0, dtype=np.float32),
                                 lambda x: torch.tensor(1.0, dtype=torch.float32), lambda x: np.int64(1)],
                         ids=["np.float32", "0-d float32 array", "0-d float32 tensor", "np.int64"])
def test_phi_answering_less_precise_than_the_iterates_is_refused_by_name(phi):
    from algorithms.hierarchical import SGDA, MinimaxProblem

    prob = MinimaxProblem(grad=lambda x, y, rng: (x + 0.5 * y, 0.5 * x - y), phi=phi,
                          grad_phi=lambda x: 1.25 * x, x0=np.ones(1), y0=np.zeros(1))
    with pytest.raises(TypeError, match=r"phi\(x\) must return floats at least as precise"):
        solve(prob, SGDA(), seed=0)


@pytest.mark.parametrize("phi", [lambda x: 1.25 * float(x @ x) / 2,
                                 lambda x: np.float64(0.625 * float(x @ x)),
                                 lambda x: torch.tensor(0.625 * float(x @ x), dtype=torch.float64)])
def test_phi_answering_float64_scalars_is_read(phi):
    from algorithms.hierarchical import SGDA, MinimaxProblem

    prob = MinimaxProblem(grad=lambda x, y, rng: (x + 0.5 * y, 0.5 * x - y), phi=phi,
                          grad_phi=lambda x: 1.25 * x, x0=np.ones(1), y0=np.zeros(1))
    sol = solve(prob, SGDA(), seed=0, tol=1e-8)
    assert sol.retcode is RetCode.Success
    assert sol.value == pytest.approx(0.625 * float(sol.x @ sol.x), rel=1e-12)


@pytest.mark.parametrize("convert", ["half", "bfloat16", "float"])
def test_scorenet_converted_from_float64_is_refused_at_forward(convert):
    """ScoreNet's weights are float64 (documented); .half()/.bfloat16()/.float() ran in silence (red16b)."""
    from algorithms.hierarchical import ScoreNet

    net = getattr(ScoreNet(3, 4, seed=0), convert)()
    dtype = next(net.parameters()).dtype
    with pytest.raises(TypeError, match=r"ScoreNet's weights must be float64"):
        net(torch.zeros(2, 3, dtype=dtype))
