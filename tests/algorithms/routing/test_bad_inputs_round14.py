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


def test_nn2opt_callback_sees_each_move_and_can_stop_it():
    # heldout14 first run: NN+2-opt called the callback once, after its moves, so a True could not stop it
    # and the run stayed Success; now one record per move, and a True stops there with Terminated
    from algorithms import RetCode, solve
    from algorithms.routing import random_cvrp, random_tsp, tsp_cost
    from algorithms.routing.nn2opt import NearestNeighbor2Opt

    problem = random_tsp(6)
    full = solve(problem, NearestNeighbor2Opt(), maxiters=20, store_trace=True)
    assert full.retcode is RetCode.Success and full.stats.iterations == 2
    assert [r["iteration"] for r in full.trace] == [1, 2]
    assert full.trace[-1]["value"] == pytest.approx(full.value)
    stopped = solve(problem, NearestNeighbor2Opt(), maxiters=20, callback=lambda r: True)
    assert stopped.retcode is RetCode.Terminated and stopped.stats.iterations == 1
    assert stopped.value == pytest.approx(tsp_cost(problem, stopped.x)) and stopped.value > full.value
    cvrp = random_cvrp(8, seed=3)
    assert solve(cvrp, NearestNeighbor2Opt(), callback=lambda r: True).retcode is RetCode.Terminated
    # no move to make: one final record after the run, and a True for it changes nothing
    unmoved = solve(random_cvrp(8, seed=2), NearestNeighbor2Opt(), callback=lambda r: True)
    assert unmoved.retcode is RetCode.Success and unmoved.stats.iterations == 0
