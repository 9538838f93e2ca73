"""The shipped checkpoints and HBG's decoding options."""

import json
import os

import pytest

from algorithms import RetCode, solve
from algorithms.routing import random_cvrp, random_tsp
from algorithms.routing.hbg import CHECKPOINT_DIR, HBG, load_model, shipped_checkpoints
from algorithms.routing.problem import is_valid_cvrp, routes_from_sequence

NAMES = [
    "tsp20_hybrid",
    "tsp50_hybrid",
    "tsp50_tb",
    "tsp50_db",
    "cvrp20_hybrid",
    "cvrp50_hybrid",
    "cvrp50_tb",
    "cvrp50_db",
]


def test_every_checkpoint_is_shipped_with_metadata():
    shipped = shipped_checkpoints()
    for name in NAMES:
        assert name in shipped
        model, meta = load_model(shipped[name])
        problem, rest = name[: -len(name.split("_")[1]) - 1], name.split("_")[1]
        assert model.problem == problem.rstrip("0123456789") and meta["loss"] == rest
        with open(os.path.join(CHECKPOINT_DIR, name + ".json")) as fh:
            assert json.load(fh)["steps"] >= 1
    total = sum(os.path.getsize(p) for p in shipped.values())
    assert total <= 4.5e6


@pytest.mark.parametrize("inference", ["depot", "sample", "greedy"])
def test_cvrp_decodings_give_valid_routes(inference):
    inst = random_cvrp(20, seed=7)
    sol = solve(inst, HBG(checkpoint="cvrp20", samples=4, inference=inference, local_search=False), seed=1)
    assert sol.retcode is RetCode.Success and is_valid_cvrp(inst, routes_from_sequence(sol.x))


def test_local_search_never_hurts():
    inst = random_tsp(20, seed=3)
    raw = solve(inst, HBG(checkpoint="tsp20", samples=8, local_search=False), seed=0).value
    ls = solve(inst, HBG(checkpoint="tsp20", samples=8, local_search=True), seed=0).value
    assert ls <= raw + 1e-12


def test_default_checkpoint_by_size_and_variants():
    assert solve(random_tsp(30, seed=0), HBG(samples=2)).successful
    assert solve(random_cvrp(50, seed=0), HBG(checkpoint="cvrp50", loss="tb", samples=2)).successful


def test_maxiters_zero():
    assert solve(random_tsp(20, seed=0), HBG(checkpoint="tsp20"), maxiters=0).retcode is RetCode.MaxIters


def test_auto_inference_is_depot_guided_for_cvrp_and_sampling_for_tsp():
    # Eq. 12: the default decoding of a CVRP is depot-guided; a TSP keeps plain sampling
    cvrp = random_cvrp(20, seed=5)
    auto = solve(cvrp, HBG(checkpoint="cvrp20", samples=4, local_search=False), seed=2)
    depot = solve(cvrp, HBG(checkpoint="cvrp20", samples=4, inference="depot", local_search=False), seed=2)
    sample = solve(cvrp, HBG(checkpoint="cvrp20", samples=4, inference="sample", local_search=False), seed=2)
    assert auto.x == depot.x and auto.x != sample.x
    tsp = random_tsp(20, seed=5)
    auto = solve(tsp, HBG(checkpoint="tsp20", samples=4, local_search=False), seed=2)
    sample = solve(tsp, HBG(checkpoint="tsp20", samples=4, inference="sample", local_search=False), seed=2)
    assert auto.x == sample.x
