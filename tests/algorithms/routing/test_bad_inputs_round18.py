"""Round 18: objects handed out, then edited (class A): the cached checkpoint, sol.original, Trajectories."""

import pytest
import torch

from algorithms import solve
from algorithms.routing import random_tsp
from algorithms.routing.gflownet import RoutingGFlowNet, encode_instances, rollout
from algorithms.routing.hbg import HBG, load_model, shipped_checkpoints


@pytest.fixture(scope="module")
def setup():
    path = shipped_checkpoints()["tsp20_hybrid"]
    algorithm = HBG(checkpoint=path, samples=8, local_search=False)
    problem = random_tsp(20, seed=1)
    return path, algorithm, problem, solve(problem, algorithm, seed=0)


@pytest.mark.parametrize("edit", ["weights", "meta", "original"])
def test_edits_of_handed_out_model_and_meta_change_no_later_solve(setup, edit):
    # load_model and sol.original handed out the cached model and dict: zeroed weights or meta["size"] = 99
    # changed (or refused) every later HBG solve
    path, algorithm, problem, reference = setup
    if edit == "original":
        solve(problem, algorithm, seed=0).original["size"] = 99
    else:
        model, meta = load_model(path)
        if edit == "meta":
            meta["size"] = 99
        else:
            with torch.no_grad():
                for p in model.parameters():
                    p.zero_()
    again = solve(problem, algorithm, seed=0)
    assert again.retcode == reference.retcode and again.value == reference.value and again.x == reference.x
    assert load_model(path)[1]["size"] == 20


@pytest.mark.parametrize("field, value, words", [
    ("samples", 4, "must group each instance's 4 samples"),
    ("samples", 3, "samples = 3 must divide"),
    ("cost", None, "traj.cost must be a torch tensor"),
])
@pytest.mark.parametrize("use", ["log_reward", "energies", "sequences"])
def test_trajectories_edited_after_construction_are_refused_by_every_use(field, value, words, use):
    torch.manual_seed(0)
    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    traj = rollout(model, encode_instances(model, [random_tsp(6, seed=0), random_tsp(6, seed=1)]), 2)
    setattr(traj, field, value)
    with pytest.raises((ValueError, TypeError), match=words):
        getattr(traj, use)(*(() if use == "sequences" else (1.0,)))


@pytest.mark.parametrize("edit, words", [
    (lambda m: m.gnn.append(m.gnn[0]), "gnn must hold its 1 layers"),
    (lambda m: setattr(m, "heat", torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(),
                                                      torch.nn.Linear(8, 3))), "heat.2.weight"),
    (lambda m: setattr(m, "flow_count", torch.nn.Parameter(torch.ones(3))), "flow_count"),
])
@pytest.mark.parametrize("use", ["encode", "rollout"])
def test_gflownet_layer_replaced_after_construction_is_refused(edit, words, use):
    # model.gnn.append(model.gnn[0]) ran two GNN layers for layers = 1 in silence; others met torch's errors
    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    batch = encode_instances(model, [random_tsp(6, seed=0)])
    edit(model)
    with pytest.raises(ValueError, match=words):
        encode_instances(model, [random_tsp(6, seed=0)]) if use == "encode" else rollout(model, batch, 2)


@pytest.mark.parametrize("use", ["tsp_cost", "write_tsplib", "distances"])
def test_tsp_coords_replaced_after_construction_are_validated_by_every_helper(use):
    # tsp_cost priced the old distances and write_tsplib wrote "nan nan" in silence (red18b); solve refused
    import numpy as np

    from algorithms.routing import tsp_cost, write_tsplib
    t = random_tsp(6, seed=0)
    object.__setattr__(t, "coords", np.full((6, 2), np.nan))
    call = {"tsp_cost": lambda: tsp_cost(t, list(range(6))), "write_tsplib": lambda: write_tsplib(t),
            "distances": lambda: t.distances}[use]
    with pytest.raises(ValueError, match=r"TSPInstance\.coords was changed after construction"):
        call()


def test_valid_coords_replaced_after_construction_give_the_new_instance_answers():
    import numpy as np

    from algorithms.routing import TSPInstance, tsp_cost
    new = np.random.default_rng(5).random((6, 2)) * 10
    t = random_tsp(6, seed=0)
    object.__setattr__(t, "coords", new)
    fresh = TSPInstance(new)
    assert tsp_cost(t, list(range(6))) == tsp_cost(fresh, list(range(6)))
    assert np.array_equal(t.distances, fresh.distances)


@pytest.mark.parametrize("field, value", [("capacity", -1), ("demands", None)])
def test_cvrp_field_replaced_after_construction_is_validated_by_cvrp_cost(field, value):
    from algorithms.routing import cvrp_cost, random_cvrp
    c = random_cvrp(5, seed=0)
    object.__setattr__(c, field, value)
    with pytest.raises((ValueError, TypeError), match=rf"CVRPInstance\.{field} was changed after"):
        cvrp_cost(c, [[1, 2], [3, 4, 5]])
