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
    with pytest.raises((ValueError, TypeError), match=words):
        setattr(traj, field, value)  # checked at once (CheckedRecord); object.__setattr__ below: at the use
        getattr(traj, use)(*(() if use == "sequences" else (1.0,)))
    with pytest.raises((ValueError, TypeError), match=words):
        object.__setattr__(traj, field, value)
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


def _group(st):
    return st["optimizer"]["param_groups"][0]


RESUME_EDITS = [
    (lambda st: _group(st).__setitem__("lr", 5.0), r"param_groups'\]\[0\]\['lr'\]"),
    (lambda st: _group(st).__setitem__("weight_decay", -1.0), r"\['weight_decay'\]"),
    (lambda st: _group(st).__setitem__("betas", (2.0, 0.999)), r"\['betas'\]"),
    (lambda st: _group(st).__setitem__("lrr", 1.0), r"param_groups'\]\[0\]: keys .*'lrr'"),
    (lambda st: next(iter(st["optimizer"]["state"].values()))["exp_avg"].fill_(float("nan")),
     r"\['exp_avg'\]"),
    (lambda st: st.pop("generator"), "invalid generator: it is missing"),
    (lambda st: st["meta"].__setitem__("steps", "x"), r"meta\['steps'\]"),
    (lambda st: st["meta"].__setitem__("minutes", float("nan")), r"meta\['minutes'\]"),
    (lambda st: st.__setitem__("history", "abc"), "invalid history"),
    (lambda st: st["meta"].pop("lr"), r"has no \['lr'\] in its meta"),
]


@pytest.mark.parametrize("edit, words", RESUME_EDITS)
def test_resume_refuses_a_checkpoint_state_train_did_not_write(tmp_path, edit, words):
    # the checkpoint's optimizer groups (lr 5.0 beside a given 1e-3), state and counters were loaded
    # unchecked: stepped in silence, or torch's "probability tensor contains nan" / a bare KeyError (red18b)
    import copy

    from algorithms.routing.train import train
    out = str(tmp_path / "ck.pt")
    kw = dict(problem="tsp", size=5, steps=2, batch=2, samples=2, hidden=8, layers=1, out=out, progress=False,
              save_every=1)
    train(**kw)
    state = copy.deepcopy(torch.load(out, weights_only=False))
    edit(state)
    torch.save(state, out)
    with pytest.raises(ValueError, match=words):
        train(**{**kw, "steps": 4, "resume": True})


@pytest.mark.parametrize("edit, words", [
    (lambda meta: meta.__setitem__("size", "x"), r"meta\['size'\] must be"),
    (lambda meta: meta.__setitem__("problem", "cvrp"), r"meta\['problem'\] must be the model's own 'tsp'"),
    (lambda meta: meta.pop("size"), "records no training size"),
])
def test_hbg_refuses_a_checkpoint_meta_edited_by_hand(tmp_path, edit, words):
    # size "x" met int()'s error naming nothing; problem "cvrp" on a TSP model and a meta without "size" (the
    # size-transfer refusal skipped) were used in silence (red18b)
    import copy
    state = copy.deepcopy(torch.load(shipped_checkpoints()["tsp20_hybrid"], weights_only=False))
    edit(state["meta"])
    path = str(tmp_path / "edited.pt")
    torch.save(state, path)
    with pytest.raises(ValueError, match=words):
        solve(random_tsp(20, seed=3), HBG(checkpoint=path, samples=4), seed=0)


@pytest.mark.parametrize("name", ["hiden", "layer"])
def test_gflownet_refuses_a_misspelt_attribute(name):
    from algorithms._validation import UnknownAttributeError
    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    with pytest.raises(UnknownAttributeError, match=rf"RoutingGFlowNet takes no attribute '{name}'"):
        setattr(model, name, 16)
    model.k = 3   # its own settable k still works
    assert model.k == 3


@pytest.mark.parametrize("value, words", [(float("nan"), "contains NaN or inf"),
                                          (float("inf"), "contains NaN or inf"), (1e39, "working range")])
@pytest.mark.parametrize("where", ["node_in.weight", "key.weight", "flow_count"])
@pytest.mark.parametrize("use", ["encode", "rollout"])
def test_gflownet_weight_written_in_place_is_refused_by_name(value, words, where, use):
    # load_state_dict refuses such a weight; written in place, 1e39 ran in silence and NaN met torch's
    # "probability tensor contains either inf, nan" naming nothing
    model = RoutingGFlowNet("tsp", hidden=8, layers=1).double()
    batch = encode_instances(model, [random_tsp(8, seed=0)])
    with torch.no_grad():
        model.get_parameter(where).view(-1)[0] = value
    calls = {"encode": lambda: encode_instances(model, [random_tsp(8, seed=0)]),
             "rollout": lambda: rollout(model, batch, 4, generator=torch.Generator().manual_seed(0))}
    with pytest.raises(ValueError, match=rf"RoutingGFlowNet\.{where}.*{words}"):
        calls[use]()


def test_gflownet_weight_inside_the_working_range_written_in_place_is_used():
    model = RoutingGFlowNet("tsp", hidden=8, layers=1).double()
    with torch.no_grad():
        model.flow_count.fill_(3.0e38)
    traj = rollout(model, encode_instances(model, [random_tsp(8, seed=0)]), 2,
                   generator=torch.Generator().manual_seed(0))
    assert traj.cost.shape == (2,)


@pytest.mark.parametrize("record", ["batch", "traj"])
def test_a_misspelt_name_on_batch_or_trajectories_is_refused(record):
    # the README: UnknownAttributeError naming it (traj.cosst = ... was stored beside cost and ignored)
    from algorithms._validation import UnknownAttributeError

    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    batch = encode_instances(model, [random_tsp(6, seed=0)])
    obj = batch if record == "batch" else rollout(model, batch, 2, generator=torch.Generator().manual_seed(0))
    with pytest.raises(UnknownAttributeError, match=r"takes no attribute 'cosst'"):
        obj.cosst = 1.0
    assert not hasattr(obj, "cosst")


@pytest.mark.parametrize("field", ["heat", "h", "keys"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e39])
def test_batch_tensors_edited_to_non_finite_are_refused_by_rollout(field, value):
    # torch's "probability tensor contains either inf, nan or element < 0" named nothing
    model = RoutingGFlowNet("tsp", hidden=8, layers=1).double()
    batch = encode_instances(model, [random_tsp(6, seed=0)])
    setattr(batch, field, getattr(batch, field).detach() * 0 + value)
    with pytest.raises(ValueError, match=rf"batch\.{field} (contains NaN or inf|has an entry .* range)"):
        rollout(model, batch, 2, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("convert, words", [
    (lambda m: m.float(), "batch must be encoded by this model in its dtype torch.float32"),
    (lambda m: m.half(), "float32 or float64 parameters, got torch.float16"),
    (lambda m: m.to(torch.complex64), r"must be a floating parameter .*got torch.complex64"),
    (lambda m: m.to("meta"), "batch.h must be on the model's device meta"),
])
def test_rollout_refuses_a_model_converted_since_it_encoded_the_batch(convert, words):
    # torch's "mat1 and mat2 must have the same dtype" / "Tensor on device meta" named nothing
    model = RoutingGFlowNet("tsp", hidden=8, layers=1).double()
    batch = encode_instances(model, [random_tsp(6, seed=0)])
    model = convert(model)
    with pytest.raises((TypeError, ValueError), match=words):
        rollout(model, batch, 2)


@pytest.mark.parametrize("route", [{5, 3, 4}, frozenset({5, 3, 4}), {5: 0, 3: 0, 4: 0}, iter([5, 3, 4]),
                                   "534"], ids=["set", "frozenset", "dict", "iterator", "str"])
def test_cvrp_cost_refuses_a_route_without_an_order(route):
    # a set was priced in hash order, in silence (red18c)
    from algorithms.routing import cvrp_cost, random_cvrp

    with pytest.raises(ValueError, match=r"^routes\[0\] must be an ordered sequence"):
        cvrp_cost(random_cvrp(5), [route, [2, 1]])


@pytest.mark.parametrize("form", [list, tuple, torch.tensor, lambda r: __import__("numpy").array(r)],
                         ids=["list", "tuple", "tensor", "array"])
def test_cvrp_cost_of_ordered_routes_is_their_length(form):
    from algorithms.routing import cvrp_cost, random_cvrp

    instance = random_cvrp(5)
    assert cvrp_cost(instance, [form([5, 3, 4]), form([2, 1])]) == cvrp_cost(instance, [[5, 3, 4], [2, 1]])


@pytest.mark.parametrize("where", ["node_in.weight", "gnn.0.node_norm.bias", "flow_linear"])
def test_gflownet_parameter_replaced_by_an_int_one_is_refused_by_name(where):
    # torch's "self and mat2 must have the same dtype" named nothing; flow_linear ran in silence (red18c)
    model = RoutingGFlowNet("tsp", hidden=8, layers=1).double()
    *path, last = where.split(".")
    owner = model
    for part in path:
        owner = getattr(owner, part)
    shape = getattr(owner, last).shape
    setattr(owner, last, torch.nn.Parameter(torch.zeros(shape, dtype=torch.int64), requires_grad=False))
    with pytest.raises(TypeError, match=rf"RoutingGFlowNet\.{where} must be a floating parameter"):
        encode_instances(model, [random_tsp(6, seed=0)])
