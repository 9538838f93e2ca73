"""Round 20: train(resume=True) on optimizer/generator state train never writes (red20b)."""

import copy

import numpy as np
import pytest
import torch

from algorithms.routing.train import train

KW = dict(problem="tsp", size=5, steps=2, batch=1, samples=2, hidden=4, layers=1, progress=False)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("resume") / "model.pt")
    train(**KW, out=out)
    return out, torch.load(out, weights_only=False)


def _steps(value):
    return lambda st: [entry.__setitem__("step", value) for entry in st["optimizer"]["state"].values()]


def _generator(key):
    return lambda st: st.__setitem__(key, torch.zeros(3, dtype=torch.uint8))


# before: torch's "ComplexFloat can't be cast" (-5), "cannot be converted to Scalar" ([2, 3]), a silent resume
# (2.5), "Expected a CPUGeneratorImplState of size 5056" (a short generator state)
EDITS = {
    "negative-step": (_steps(torch.tensor(-5.0)), r"\['step'\]"),
    "vector-step": (_steps(torch.tensor([2.0, 3.0])), r"\['step'\]"),
    "fractional-step": (_steps(torch.tensor(2.5)), r"\['step'\]"),
    "nan-step": (_steps(torch.tensor(float("nan"))), r"\['step'\]"),
    "short-generator": (_generator("generator"), "generator"),
    "short-torch-rng": (_generator("torch_rng"), "torch_rng"),
}


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_resume_refuses_state_train_never_writes_by_name(checkpoint, tmp_path, edit):
    _, base = checkpoint
    change, words = EDITS[edit]
    state = copy.deepcopy(base)
    change(state)
    out = str(tmp_path / "edited.pt")
    torch.save(state, out)
    with pytest.raises(ValueError, match=rf"resume: checkpoint .* has an invalid .*{words}"):
        train(**dict(KW, steps=4), out=out, resume=True)


def test_resume_still_takes_the_state_train_wrote(checkpoint, tmp_path):
    _, base = checkpoint
    out = str(tmp_path / "same.pt")
    torch.save(copy.deepcopy(base), out)
    train(**dict(KW, steps=3), out=out, resume=True)


@pytest.fixture(scope="module")
def huge_flow_checkpoint(tmp_path_factory):
    import shutil

    from algorithms.routing.hbg import CHECKPOINT_DIR
    folder = tmp_path_factory.mktemp("huge")
    state = torch.load(f"{CHECKPOINT_DIR}/tsp20_hybrid.pt", weights_only=False)
    state["model"]["flow_count"] = torch.tensor(3e38)   # finite, inside the working range
    torch.save(state, str(folder / "huge.pt"))
    shutil.copy(f"{CHECKPOINT_DIR}/tsp20_hybrid.json", str(folder / "huge.json"))
    return str(folder / "huge.pt")


def test_hbg_on_a_checkpoint_whose_flows_overflow_ends_diverged(huge_flow_checkpoint):
    # "ValueError: traj.log_flow contains NaN or inf entries", a record the user never passed (red20b); a NaN
    # weight in the same file was already Diverged
    from algorithms import RetCode, solve
    from algorithms.routing import random_tsp
    from algorithms.routing.hbg import HBG
    sol = solve(random_tsp(20, seed=1), HBG(checkpoint=huge_flow_checkpoint, samples=4), seed=0)
    assert sol.retcode == RetCode.Diverged


@pytest.mark.parametrize("maxiters", [100_001, 2**31 - 1, 2**63 - 1])
def test_hbg_maxiters_is_its_sample_count_with_the_samples_cap(maxiters):
    # maxiters replaced samples without a word and without samples' cap: 200000 ran for minutes (red20b)
    from algorithms import solve
    from algorithms.routing import random_tsp
    from algorithms.routing.hbg import HBG
    with pytest.raises(ValueError, match="maxiters"):
        solve(random_tsp(20, seed=1), HBG(checkpoint="tsp20", samples=4), seed=0, maxiters=maxiters)


def test_resume_whose_optimizer_state_overflows_a_weight_names_the_checkpoint(checkpoint, tmp_path):
    # an exp_avg of 3e38 (finite, in range) stepped a weight to inf: the next rollout blamed that weight as
    # "written in place after construction", a write the user never made (red20b)
    _, base = checkpoint
    state = copy.deepcopy(base)
    for entry in state["optimizer"]["state"].values():
        entry["exp_avg"] = torch.full_like(entry["exp_avg"], 3e38)
        entry["exp_avg_sq"] = torch.zeros_like(entry["exp_avg_sq"])
    out = str(tmp_path / "overflow.pt")
    torch.save(state, out)
    with pytest.raises(FloatingPointError, match=r"lr = .*resumed from"):
        train(**dict(KW, steps=4), out=out, resume=True)


def test_a_loaded_gflownet_whose_hidden_disagrees_with_its_layers_is_refused_by_name():
    # a whole-model pickle restored hidden = 7 beside 8-wide layers: accepted, config() said 7 (red20b)
    from algorithms.routing import random_tsp
    from algorithms.routing.gflownet import RoutingGFlowNet, encode_instances
    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    state = copy.copy(model.__dict__)
    state["hidden"] = 7
    loaded = object.__new__(RoutingGFlowNet)
    loaded.__setstate__(state)
    with pytest.raises(ValueError, match="hidden"):
        encode_instances(loaded, [random_tsp(5)])


# before: seed = 2**64 - 1 (documented valid: an int in [0, 2**64)) raised "seed must be an int >= 0 and
# < 2**64, got 18446799413941772744654848" from the per-step instance seed
@pytest.mark.parametrize("seed", [2**64 - 1, np.uint64(2**64 - 1), 2**64 - 2])
def test_train_takes_the_largest_seeds(tmp_path, seed):
    meta = train(**dict(KW, steps=1), seed=seed, out=str(tmp_path / "model.pt"))
    assert meta["seed"] == int(seed)


UNITS = "batch.units\\[0\\] must be the integer demands"
LOADS = {"units=-units": ("units", lambda b: b.units.neg(), UNITS),
         "units=0": ("units", lambda b: torch.zeros_like(b.units), UNITS),
         "units*1000": ("units", lambda b: b.units * 1000, UNITS),
         "units float": ("units", lambda b: b.units.double(), "batch.units must be an int tensor"),
         "capacity=0": ("capacity", lambda b: torch.zeros_like(b.capacity), "batch.capacity\\[0\\] must be"),
         "capacity=-cap": ("capacity", lambda b: -b.capacity, "batch.capacity\\[0\\] must be"),
         "demand=nan": ("demand", lambda b: torch.full_like(b.demand, float("nan")),
                        "batch.demand\\[0\\] must be"),
         "demand=-demand": ("demand", lambda b: -b.demand - 0.5, "batch.demand\\[0\\] must be")}


# before: units = -units, units = 0 and a NaN demand were rolled out in silence (routes past the capacity);
# units ×1000 and capacity 0 met torch's "probability tensor contains either inf, nan or element < 0"
@pytest.mark.parametrize("case", LOADS, ids=list(LOADS))
def test_a_cvrp_batch_whose_loads_are_not_its_instances_is_refused_by_name(case):
    from algorithms.routing import random_cvrp
    from algorithms.routing.gflownet import RoutingGFlowNet, encode_instances, rollout
    torch.manual_seed(0)
    model = RoutingGFlowNet("cvrp", hidden=8, layers=1)
    batch = encode_instances(model, [random_cvrp(6, seed=0), random_cvrp(6, seed=1)])
    rollout(model, batch, 2, generator=torch.Generator().manual_seed(0))  # as encoded: taken
    field, edit, words = LOADS[case]
    error = TypeError if "float" in case else ValueError
    with pytest.raises(error, match=words):
        setattr(batch, field, edit(batch))
