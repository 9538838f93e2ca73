"""Round 23 of #43 in the quantum family: states given as tensors that require grad (red23a)."""

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.quantum import IncoherentSR, PurestStateProblem


@pytest.mark.parametrize("dtype, kept", [(torch.float64, np.float64), (torch.float32, np.complex64)])
@pytest.mark.parametrize("stacked", [False, True])
def test_states_that_require_grad_are_read_as_their_values(dtype, kept, stacked):
    # each passed as_density_matrix, then the dtype rule called numpy() on the raw tensor: torch's bare
    # "Can't call numpy() on Tensor that requires grad"
    arrays = [np.diag([0.75, 0.25]), np.eye(2) / 2]
    if stacked:
        states = torch.tensor(np.stack(arrays), dtype=dtype, requires_grad=True)
    else:
        states = [torch.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    problem = PurestStateProblem(states, copies=200)
    assert problem.purest == 0
    assert problem.states.dtype == (np.complex64 if kept is np.complex64 else np.complex128)
    assert solve(problem, IncoherentSR(), seed=0).x in (0, 1)


@pytest.mark.parametrize("call, inside, outside", [
    (lambda v: __import__("algorithms.quantum", fromlist=["x"]).hardness_h1([v, 0.5]), 1 + 1e-10, 1 + 1e-8),
    (lambda v: __import__("algorithms.quantum", fromlist=["x"]).hardness_h2([v, 0.5]), 1 + 1e-10, 1 + 1e-8),
    (lambda v: __import__("algorithms.quantum", fromlist=["x"]).purity_from_collisions(v, 2, 2),
     0.5 * (1 + 1e-13), 0.5 * (1 + 1e-11)),
])
def test_the_rounding_slack_past_a_documented_bound_is_the_stated_one(call, inside, outside):
    # the docstrings said "(0, 1]" and "[0, (m − 1)/m]" while the code takes a rounding slack past the bound:
    # now stated; the just-inside value is taken and the value past the slack refused
    assert np.isfinite(call(inside))
    with pytest.raises(ValueError, match=r"purities|mean_statistic"):
        call(outside)
