"""Round 20 of issue #43: state written after construction, checked at use (red20a).

The agents' cosine position buffers (``pos``) written NaN in place gave NaN outputs in silence, while every
parameter written NaN was refused at forward.
"""

import pytest
import torch

from algorithms.blackbox import HyperparameterController, WorkflowGenerator

WORKFLOW = ("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e39])
@pytest.mark.parametrize("agent", ["controller", "generator"])
def test_an_agents_position_buffer_written_non_finite_is_refused_at_use(agent, value):
    model = HyperparameterController() if agent == "controller" else WorkflowGenerator()
    model = model.double() if value == 1e39 else model   # 1e39 is a float64 entry past the working range
    with torch.no_grad():
        model.pos.view(-1)[0] = value
    with pytest.raises(ValueError, match=r"buffer 'pos'"):
        if agent == "controller":
            model(WORKFLOW, torch.rand(2, 9, dtype=model.pos.dtype))
        else:
            model.sample(torch.rand(9, dtype=model.pos.dtype))
