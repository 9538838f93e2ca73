"""Round 16 (issue #43): settings that shape an optimizer's state, edited in param_groups after a step."""

import pytest
import torch

from algorithms.optimizers import SOAP, Muon, Shampoo


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


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("value", [-1, -5, 2.5, True, "3", None])
def test_step_count_edited_after_a_step_is_refused_by_name(cls, value):
    # adam_step = -1 stepped NaN into the weights; -5 / "3" / None reached bare Python errors; 2.5 was taken
    w = torch.nn.Parameter(torch.ones(3))
    opt = cls([w], lr=0.1)
    w.grad = torch.ones_like(w)
    opt.step()
    opt.state[w]["adam_step"] = value
    with pytest.raises(ValueError, match=r"state\[param 0\]\['adam_step'\] was changed after the last step"):
        opt.step()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("after_a_step", [False, True])
def test_parameter_appended_twice_is_refused_by_name(cls, after_a_step):
    # it took two steps per step in silence
    w, v = torch.nn.Parameter(torch.ones(2, 2)), torch.nn.Parameter(torch.ones(3))
    opt = cls([w, v], lr=0.1)
    if after_a_step:
        w.grad, v.grad = torch.ones_like(w), torch.ones_like(v)
        opt.step()
    opt.param_groups[0]["params"].append(w)
    w.grad, v.grad = torch.ones_like(w), torch.ones_like(v)
    with pytest.raises(ValueError, match=r"param_groups\[0\]\['params'\] was edited: params lists a tensor"):
        opt.step()
