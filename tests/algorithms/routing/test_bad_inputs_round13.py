"""#43 round 13: routing's training counts and lr capped, the model's state dict checked, routes checked."""

from __future__ import annotations

import os
import tempfile

import pytest
import torch

from algorithms.routing.gflownet import RoutingGFlowNet, cvrp_log_pb, paper_stepwise_log_pb
from algorithms.routing.train import train

BASE = dict(size=5, steps=1, batch=1, samples=2, hidden=4, layers=1, progress=False, save_every=1)


@pytest.mark.parametrize(("kw", "name"), [({"batch": 2**40}, "batch"), ({"layers": 2**31}, "layers"),
                                          ({"steps": 2**40}, "steps"), ({"hidden": 5000}, "hidden"),
                                          ({"lr": 3.4e38}, "lr"), ({"lr": 1e11}, "lr")])
def test_train_refuses_counts_that_hang_and_lr_past_the_optimizers_range(kw, name):
    # batch = 2**40 and layers = 2**31 ran for minutes; lr = 3.4e38 met torch's float conversion error
    out = os.path.join(tempfile.mkdtemp(), "m.pt")
    with pytest.raises(ValueError, match=rf"^{name} must be <= "):
        train(**{**BASE, **kw, "out": out})


def test_train_names_the_settings_of_a_non_finite_loss():
    out = os.path.join(tempfile.mkdtemp(), "m.pt")
    with pytest.raises(FloatingPointError, match=r"db_weight = 3\.4e"):
        train(**{**BASE, "db_weight": 3.4e38, "out": out})


@pytest.mark.parametrize(("kw", "name"), [({"hidden": 2**31}, "hidden"), ({"layers": 2**31}, "layers")])
def test_model_sizes_capped(kw, name):
    with pytest.raises(ValueError, match=rf"^{name} must be <= "):
        RoutingGFlowNet(**kw)


@pytest.mark.parametrize("bad", [lambda t: torch.full_like(t, float("nan")), lambda t: t.to(torch.int64),
                                 lambda t: t.to(torch.complex128), lambda t: t.to_sparse()],
                         ids=["nan", "int", "complex", "sparse"])
def test_model_state_dict_checked_by_name(bad):
    m = RoutingGFlowNet(hidden=4, layers=1)
    sd = m.state_dict()
    with pytest.raises((ValueError, TypeError), match=r"state_dict\['node_in\.weight'\]"):
        m.load_state_dict({**sd, "node_in.weight": bad(sd["node_in.weight"])})


@pytest.mark.parametrize("routes", [[[1], [1]], [[0, 1]], [[-1]]])
def test_cvrp_log_pb_refuses_invalid_routes(routes):
    with pytest.raises(ValueError, match=r"^routes must visit customers"):
        cvrp_log_pb(routes)


def test_paper_stepwise_log_pb_names_its_arguments():
    with pytest.raises(ValueError, match=r"multi = True .* a = 0"):
        paper_stepwise_log_pb(0, 1, True)


@pytest.mark.parametrize("routes", [[[1.5, 2.9]], [["3"]], [[True]], [[-1]], [[0]], [[1], [1]]])
def test_sequence_from_routes_refuses_what_routes_from_sequence_refuses(routes):
    # 1.5 was truncated to 1, "3" read as 3, the depot and repeats passed
    from algorithms.routing.problem import sequence_from_routes

    with pytest.raises(ValueError, match=r"^routes"):
        sequence_from_routes(routes)


def test_route_loads_do_not_wrap_past_int64():
    # 1024 customers of demand 2**53 summed to 2**63 in int64, which wrapped: an over-capacity route was valid
    import numpy as np

    from algorithms.routing import CVRPInstance
    from algorithms.routing.problem import is_valid_cvrp

    n = 1024
    c = CVRPInstance(np.random.default_rng(0).random((n + 1, 2)), np.r_[0, np.full(n, 2**53)], 2**63 - 1)
    assert not is_valid_cvrp(c, [list(range(1, n + 1))])


def _trajectories():
    import dataclasses

    from algorithms.routing import random_tsp
    from algorithms.routing.gflownet import encode_instances, rollout

    m = RoutingGFlowNet(hidden=8, layers=1)
    batch = encode_instances(m, [random_tsp(6, seed=0)])
    traj = rollout(m, batch, 2, generator=torch.Generator().manual_seed(0))
    return {f.name: getattr(traj, f.name) for f in dataclasses.fields(traj)}


@pytest.mark.parametrize(("change", "words"), [
    (lambda f: {"samples": 3}, "traj.samples"), (lambda f: {"valid": f["valid"].float()}, "traj.valid"),
    (lambda f: {"log_flow": f["log_flow"][:, :-1]}, "traj.log_flow"),
    (lambda f: {"log_pf": f["log_pf"] * float("nan")}, "traj.log_pf")],
    ids=["samples", "valid", "flow", "nan"])
def test_trajectories_fields_checked_by_name(change, words):
    # torch's shape/dtype errors inside the losses, or a NaN loss in silence
    from algorithms.routing.gflownet import Trajectories

    fields = _trajectories()
    with pytest.raises((ValueError, TypeError), match=words.replace(".", r"\.")):
        Trajectories(**{**fields, **change(fields)})


def test_two_opt_refuses_an_asymmetric_dist():
    # its gain assumes d[i, j] = d[j, i]: "improving" moves lengthened 14 of 300 tours
    import numpy as np

    from algorithms.routing.nn2opt import two_opt

    d = np.random.default_rng(0).random((6, 6)) * 10
    np.fill_diagonal(d, 0)
    with pytest.raises(ValueError, match=r"^dist must be symmetric"):
        two_opt(d, list(range(6)))


@pytest.mark.parametrize("loss", ["tb", "db"])
def test_hbg_default_checkpoint_is_the_nearest_of_its_loss(loss):
    # only 50-node tb/db checkpoints ship: at n = 20 it looked for tsp20_tb and blamed the checkpoint
    from algorithms import solve
    from algorithms.core import RetCode
    from algorithms.routing import random_tsp
    from algorithms.routing.hbg import HBG

    assert solve(random_tsp(20, seed=0), HBG(loss=loss, samples=4)).retcode is RetCode.Success


def test_load_model_says_a_folder_is_a_folder():
    from algorithms.routing.hbg import load_model

    with pytest.raises(ValueError, match="is a folder"):
        load_model(tempfile.mkdtemp())


@pytest.mark.parametrize(("meta", "key"), [({"problem": "xx"}, "problem"), ({"hidden": 999}, "hidden"),
                                           ({"size": -5}, "size")])
def test_save_checkpoint_refuses_metadata_contradicting_the_model(meta, key):
    # written as given, then read back by HBG ("was trained on TSP-5", or problem "xx" ignored)
    from algorithms.routing.train import save_checkpoint

    model = RoutingGFlowNet(problem="tsp", hidden=8, layers=1)
    with pytest.raises(ValueError, match=rf"^meta\['{key}'\]"):
        save_checkpoint(os.path.join(tempfile.mkdtemp(), "a.pt"), model, meta)
