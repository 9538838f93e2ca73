"""Round 16 (issue #43): settings that shape an optimizer's state, edited in param_groups after a step."""

import pytest
import torch

from algorithms.optimizers import SOAP, Shampoo


def _stepped(cls):
    w = torch.nn.Parameter(torch.randn(5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0)))
    opt = cls([w], lr=0.01, precondition_frequency=1)
    for _ in range(2):
        w.grad = torch.ones_like(w)
        opt.step()
    return w, opt


@pytest.mark.parametrize("cls", [Shampoo, SOAP])
@pytest.mark.parametrize(("key", "value"), [("block_size", 2), ("max_precond_dim", 3),
                                            ("max_precond_dim", 4)])
def test_state_shaping_edit_is_refused_by_name(cls, key, value):
    # block_size failed inside torch ("expanded size"); max_precond_dim was ignored in silence (the statistics
    # of the old value stayed in use)
    w, opt = _stepped(cls)
    before = w.detach().clone()
    opt.param_groups[0][key] = value
    w.grad = torch.ones_like(w)
    with pytest.raises(ValueError, match=rf"param_groups\[0\] was edited \({key}\)"):
        opt.step()
    assert torch.equal(w.detach(), before)


@pytest.mark.parametrize("cls", [Shampoo, SOAP])
def test_state_shaping_edit_back_to_the_built_value_steps(cls):
    w, opt = _stepped(cls)
    opt.param_groups[0]["block_size"] = None     # the value it was built with: a new object, same settings
    w.grad = torch.ones_like(w)
    opt.step()
