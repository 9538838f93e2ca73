"""Round 25 of issue #43 (routing, red25b): a Batch encoded by one model rolled out with another."""

import copy
import pickle

import pytest
import torch

from algorithms.routing import random_tsp
from algorithms.routing.gflownet import RoutingGFlowNet, encode_instances, rollout


def _models():
    torch.manual_seed(0)
    return RoutingGFlowNet("tsp", hidden=8, layers=1), RoutingGFlowNet("tsp", hidden=8, layers=1)


def test_a_batch_encoded_by_another_model_of_the_same_width_is_refused():
    # red25b: A's encodings went through B's decoder in silence (actions, log_pf and costs other than B's)
    first, second = _models()
    batch = encode_instances(first, [random_tsp(8, seed=0)])
    with pytest.raises(ValueError, match="batch was encoded by another model"):
        rollout(second, batch, 3)


def test_a_model_that_encodes_the_batch_alike_may_roll_it_out():
    first, second = _models()
    batch = encode_instances(first, [random_tsp(8, seed=0)])
    second.load_state_dict(first.state_dict())  # the same encoder weights: the same encodings
    for model in (first, second, copy.deepcopy(first), pickle.loads(pickle.dumps(first))):
        traj = rollout(model, batch, 3, generator=torch.Generator().manual_seed(0))
        assert traj.cost.shape == (3,)
