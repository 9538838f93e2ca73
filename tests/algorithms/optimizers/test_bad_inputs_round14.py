"""Round 14 of issue #43 (optimizers): keys misspelt into param_groups after construction."""

import pytest
import torch

from algorithms.optimizers import SOAP, Muon, Shampoo


def _stepped(cls):
    model = torch.nn.Linear(3, 2)
    optimizer = cls(model.parameters())
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    return optimizer


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("key, meant", [("weight_decy", "weight_decay"), ("lrr", "lr")])
def test_a_key_misspelt_into_param_groups_is_refused_at_the_next_step(cls, key, meant):
    # heldout14: param_groups[0]["weight_decy"] = 0.1 then step() kept the group's weight_decay in silence
    optimizer = _stepped(cls)
    optimizer.param_groups[0][key] = 0.1
    with pytest.raises(ValueError, match=rf"param_groups\[0\] has the key '{key}'.*did you mean '{meant}'"):
        optimizer.step()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_schedulers_and_other_libraries_keys_are_kept(cls):
    optimizer = _stepped(cls)
    optimizer.param_groups[0]["my_tag"] = "head"        # another library's bookkeeping: not a near-spelling
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=10)
    optimizer.step()
    scheduler.step()
    assert optimizer.param_groups[0]["my_tag"] == "head" and "max_momentum" in optimizer.param_groups[0]
