"""Round 14: routing's hand-built records refused where they contradict their meaning (red14b)."""

from __future__ import annotations

import pytest
import torch

from algorithms.routing.gflownet import Trajectories

F = torch.float64
M, T = 4, 3
BASE = dict(actions=torch.tensor([[1, 2, -1]] * M), log_pf=torch.full((M, T), -0.5, dtype=F),
            log_pb=torch.full((M, T), -0.7, dtype=F),
            step_cost=torch.tensor([[1.0, 2, 0], [3, 1, 0], [2, 2, 0], [5, 1, 0]], dtype=F),
            log_flow=torch.zeros(M, T + 1, dtype=F), valid=torch.tensor([[True, True, False]] * M),
            cost=torch.tensor([3.0, 4, 4, 6], dtype=F), instance=torch.tensor([0, 0, 1, 1]), samples=2)


def test_a_consistent_batch_is_taken():
    Trajectories(**BASE)


@pytest.mark.parametrize("change, words", [
    ({"log_pf": torch.full((M, T), 5.0, dtype=F)}, r"log_pf must hold log-probabilities"),
    ({"log_pb": torch.full((M, T), 0.5, dtype=F)}, r"log_pb must hold log-probabilities"),
    ({"instance": torch.tensor([0, 1, 0, 1])}, r"instance must group"),
    ({"instance": torch.tensor([-5, -5, 7, 7])}, r"instance must hold batch indices >= 0"),
    ({"valid": torch.tensor([[True, False, True]] * M)}, r"valid must mark a prefix")])
def test_hand_built_trajectories_that_contradict_their_meaning_are_refused(change, words):
    # each was taken and the losses ran on it (tb loss 293 for log-probabilities of 5)
    with pytest.raises(ValueError, match=rf"^traj\.{words}"):
        Trajectories(**{**BASE, **change})
