"""#43 round 12: routing instances' arrays and distances cannot be changed after construction."""

import numpy as np
import pytest

from algorithms.routing import random_cvrp, random_tsp


@pytest.mark.parametrize("make", [lambda: random_tsp(6, seed=0), lambda: random_cvrp(5, seed=0)])
def test_distances_cannot_be_replaced_or_made_writable(make):
    # object.__setattr__(p, "distances", zeros) or setflags(write=True) then a write was solved in silence
    problem = make()
    with pytest.raises(AttributeError):
        object.__setattr__(problem, "distances", np.zeros_like(problem.distances))
    arrays = [problem.distances, problem.coords] + ([problem.demands] if hasattr(problem, "demands") else [])
    for array in arrays:
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.setflags(write=True)
    diff = problem.coords[:, None] - problem.coords[None]
    np.testing.assert_allclose(problem.distances, np.sqrt((diff**2).sum(-1)))


@pytest.mark.parametrize("brk", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_library_names_refuse_every_line_break_the_readers_split_at(brk):
    from algorithms.routing import write_cvrplib, write_tsplib

    with pytest.raises(ValueError, match=r"^name must be a single line"):
        write_tsplib(random_tsp(4, seed=0), name=f"a{brk}NODE_COORD_SECTION")  # unreadable file before
    with pytest.raises(ValueError, match=r"^name must be a single line"):
        write_cvrplib(random_cvrp(4, seed=0), name=f"a{brk}DIMENSION : 9")


def test_checkpoints_take_paths_and_refuse_foreign_meta(tmp_path):
    import torch

    from algorithms.routing.gflownet import RoutingGFlowNet
    from algorithms.routing.train import load_checkpoint, save_checkpoint, train

    path = tmp_path / "a.pt"
    save_checkpoint(path, RoutingGFlowNet("tsp", hidden=8, layers=1), {"size": 10})  # a Path met "+" before
    state = torch.load(path, weights_only=False)
    torch.save({**state, "meta": [1, 2]}, tmp_path / "b.pt")
    with pytest.raises(ValueError, match=r"is not a routing GFlowNet checkpoint: its meta must be a dict"):
        load_checkpoint(tmp_path / "b.pt")
    # NaN weights stay loadable: a policy they break ends Diverged (documented; retcode case nan_checkpoint)
    with pytest.raises(ValueError, match=r"^out must be a file path"):
        train(out=tmp_path, size=5, steps=1, batch=1, samples=2, hidden=8, layers=1, progress=False)


def test_resume_refuses_other_settings_than_the_checkpoints(tmp_path):
    from algorithms.routing.train import train

    out = str(tmp_path / "s.pt")
    kw = dict(size=5, steps=1, batch=1, samples=2, hidden=8, layers=1, progress=False, save_every=1)
    train(out=out, **kw)
    with pytest.raises(ValueError, match=r"^resume: checkpoint .* other settings: hidden = 8 \(given 16\)"):
        train(out=out, resume=True, **{**kw, "hidden": 16, "steps": 2})  # metadata 16, model 8 before
    assert train(out=out, resume=True, **{**kw, "steps": 2})["steps"] == 2


@pytest.fixture(scope="module")
def encoded():
    from algorithms.routing.gflownet import RoutingGFlowNet, encode_instances

    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    return model, encode_instances(model, [random_tsp(5, seed=0), random_tsp(5, seed=1)])


@pytest.mark.parametrize("edit, words", [
    (lambda b: b.dist.mul_(np.nan), r"^batch.dist must hold finite distances >= 0"),
    (lambda b: b.dist.__setitem__((0, 0, 1), -5.0), r"^batch.dist must hold finite distances >= 0"),
    (lambda b: setattr(b, "problem", "cvrp"), r"^batch.instances must be a list of 2 CVRP instances"),
    (lambda b: setattr(b, "problem", "zzz"), r"problem"),
])
def test_a_batch_edited_after_encoding_is_refused_at_rollout(encoded, edit, words):
    import dataclasses

    from algorithms.routing.gflownet import rollout

    model, batch = encoded
    edited = dataclasses.replace(batch, dist=batch.dist.detach().clone())
    with pytest.raises(ValueError, match=words):  # NaN or negative costs, or other costs, in silence before
        edit(edited)  # a field set is checked at once since round 18 (an in-place edit at the rollout)
        rollout(model, edited, 2)


def test_rollout_names_bad_forced_actions_and_generators(encoded):
    import torch

    from algorithms.routing.gflownet import rollout

    model, batch = encoded
    with pytest.raises(ValueError, match=r"^actions must hold node indices in \[0, 5\)"):
        rollout(model, batch, 1, mode="forced", actions=torch.tensor([[7, 1, 2, 3], [1, 2, 3, 4]]))
    with pytest.raises(ValueError, match=r"^actions must be an int \(M = 2, T\) tensor"):
        rollout(model, batch, 1, mode="forced", actions=torch.ones(2, 4))
    with pytest.raises(TypeError, match=r"^generator must be a torch.Generator"):
        rollout(model, batch, 1, generator=np.random.default_rng(0))


def test_rewards_and_adjacency_check_their_inputs(encoded):
    import torch

    from algorithms.routing.gflownet import knn_adjacency, rollout

    model, batch = encoded
    traj = rollout(model, batch, 2)
    with pytest.raises(ValueError, match=r"^beta = 1e\+39 is outside the package's working range"):
        traj.log_reward(1e39)  # NaN rewards before
    with pytest.raises(ValueError, match=r"^dist must hold finite distances"):
        knn_adjacency(batch.dist * torch.nan, 2, False)


def test_a_backend_scale_that_rounds_every_distance_to_zero_is_refused():
    from algorithms import solve
    from algorithms.routing.lkh import LKH

    with pytest.raises(ValueError, match=r"^scale=1.2e-38 maps the largest distance .* rounds to 0"):
        solve(random_tsp(8, seed=0), LKH(scale=1.2e-38))  # Failure, unexplained, before


def test_instance_arrays_cannot_be_made_writable_through_their_base():
    problem = random_tsp(7, seed=0)
    for array in (problem.distances, problem.coords):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.base.setflags(write=True)  # Success on distances no longer the coords' before


@pytest.mark.parametrize("copier", ["pickle", "deepcopy"])
def test_copies_of_an_instance_keep_their_arrays_read_only(copier):
    import copy
    import pickle

    from algorithms.routing import TSPInstance

    again = (lambda o: pickle.loads(pickle.dumps(o))) if copier == "pickle" else copy.deepcopy
    problem = again(TSPInstance(np.random.default_rng(0).random((5, 2))))
    with pytest.raises(ValueError):
        problem.distances[0, 1] = 0.0  # numpy gave the copy writable arrays (distances: no field stamp)


def test_a_batch_mixed_with_another_or_another_models_is_refused(encoded):
    import dataclasses

    from algorithms.routing.gflownet import RoutingGFlowNet, encode_instances, rollout

    model, batch = encoded
    other = encode_instances(model, [random_tsp(5, seed=2), random_tsp(5, seed=3)])
    for mixed in ({"dist": other.dist}, {"instances": other.instances}):  # costs of others reported before
        with pytest.raises(ValueError, match=r"^batch.dist\[0\] must be the distances of batch.instances"):
            rollout(model, dataclasses.replace(batch, **mixed), 2)
    with pytest.raises(ValueError, match=r"^batch must be encoded by this model"):
        rollout(RoutingGFlowNet("tsp", hidden=16, layers=1), batch, 2)  # torch's "mat1 and mat2" before


def test_cvrp_two_opt_moves_share_one_budget():
    from algorithms import solve
    from algorithms.routing.nn2opt import NearestNeighbor2Opt

    sol = solve(random_cvrp(60, seed=1), NearestNeighbor2Opt(), maxiters=3)
    assert sol.stats.iterations <= 3  # each route had its own budget of maxiters moves before
