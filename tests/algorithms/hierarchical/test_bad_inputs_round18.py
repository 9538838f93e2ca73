"""Round 18: state changed after construction (class A) of the hierarchical family's model."""

import pytest
import torch
from torch import nn

from algorithms.hierarchical import ScoreNet


@pytest.mark.parametrize("edit, words", [
    (lambda n: setattr(n, "output", nn.Linear(8, 3, dtype=torch.float64)), "output.weight"),
    (lambda n: setattr(n, "hidden", nn.Linear(3, 5, dtype=torch.float64)), "hidden.weight"),
    (lambda n: setattr(n.output, "weight", nn.Parameter(torch.zeros(2, 8, dtype=torch.float64))),
     "output.weight"),
    (lambda n: n.register_parameter("extra", nn.Parameter(torch.ones(1, dtype=torch.float64))), "extra"),
])
def test_scorenet_layer_replaced_after_construction_is_refused(edit, words):
    # net.output = nn.Linear(8, 3) answered 3 scores per row for out_features = 1 in silence
    net = ScoreNet(3, 8)
    edit(net)
    with pytest.raises(ValueError, match=rf"replaced after construction \(.*{words}"):
        net(torch.zeros(5, 3, dtype=torch.float64))


def test_scorenet_unchanged_still_scores():
    net = ScoreNet(3, 8)
    assert tuple(net(torch.zeros(5, 3, dtype=torch.float64)).shape) == (5, 1)
