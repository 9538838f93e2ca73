"""Round 23: docstring promises at their boundaries (routing)."""

from __future__ import annotations

import warnings

import pytest

from algorithms import solve
from algorithms.routing import cvrp_cost, random_cvrp, random_tsp, tsp_cost
from algorithms.routing.cvrp_enumeration import CVRPEnumeration
from algorithms.routing.hbg import HBG
from algorithms.routing.held_karp import HeldKarp
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from algorithms.routing.nn2opt import NearestNeighbor2Opt

TSP = [HBG(samples=2), LKH(runs=1), HeldKarp(), NearestNeighbor2Opt()]
CVRP = [HGS(runtime=0.1), CVRPEnumeration(), HBG(samples=2), NearestNeighbor2Opt()]


@pytest.mark.parametrize("maxiters", [None, 0])
@pytest.mark.parametrize(("kind", "index"), [("tsp", i) for i in range(len(TSP))] +
                         [("cvrp", i) for i in range(len(CVRP))])
def test_solution_x_is_the_documented_list_of_node_indices(kind, index, maxiters):
    # the package docstring (and README, which said "every Solution.x is an array"): a list of int node
    # indices, the tour from node 0 or the depot-delimited routes, whose length is the solution's value
    instance = random_tsp(7, seed=1) if kind == "tsp" else random_cvrp(6, seed=1)
    algorithm = (TSP if kind == "tsp" else CVRP)[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(instance, algorithm, seed=0, maxiters=maxiters)
    x = sol.x
    assert isinstance(x, list) and all(type(v) is int for v in x) and x[0] == 0
    if kind == "tsp":
        assert sorted(x) == list(range(7))
        assert tsp_cost(instance, x) == pytest.approx(sol.value, rel=1e-12)
    else:
        assert x[-1] == 0 and sorted(v for v in x if v) == list(range(1, 7))
        assert cvrp_cost(instance, x) == pytest.approx(sol.value, rel=1e-12)


def _edited_checkpoint(tmp_path, edit):
    import torch

    from algorithms.routing.hbg import shipped_checkpoints

    state = torch.load(shipped_checkpoints()["tsp20_hybrid"], weights_only=False)
    edit(state)
    path = str(tmp_path / "edited.pt")
    torch.save(state, path)
    return path


@pytest.mark.parametrize("value", [1e39, -1e39, 3.5e38])
def test_hbg_checkpoint_weight_past_the_working_range_is_refused_naming_it(tmp_path, value):
    # HBG's module docstring: "A checkpoint weight past the working range (|w| > 3.4e38) is refused by name";
    # copied into the float32 model it became inf and the solve ended Diverged (red23b)
    import torch

    def edit(state):
        state["model"]["flow_count"] = torch.tensor(value, dtype=torch.float64)
    path = _edited_checkpoint(tmp_path, edit)
    with pytest.raises(ValueError, match="flow_count"):
        solve(random_tsp(20, seed=1), HBG(checkpoint=path, samples=4), seed=0)


@pytest.mark.parametrize(("key", "value"), [("hidden", 64), ("layers", 7), ("problem", "cvrp")])
def test_checkpoint_meta_contradicting_the_model_is_refused_at_load(tmp_path, key, value):
    # save_checkpoint refuses such a meta; load_checkpoint checked size/problem only (a hidden of 64 beside a
    # 32-wide model loaded without a word)
    from algorithms.routing.train import load_checkpoint

    def edit(state):
        state["meta"][key] = value
    with pytest.raises(ValueError, match=rf"meta\['{key}'\]"):
        load_checkpoint(_edited_checkpoint(tmp_path, edit))


@pytest.mark.parametrize("reach", [1e7, 1e9, 9e11])
def test_hgs_at_a_documented_valid_large_scale_solves_a_feasible_cvrp(reach):
    # red23b: scale · max d >= about 3e6 (valid up to 1e12) gave Infeasible on a feasible CVRP: PyVRP's
    # capacity penalty is capped at 1e5, so an over-capacity route became the cheaper answer
    import numpy as np

    cvrp = random_cvrp(8, seed=3)
    exact = solve(cvrp, CVRPEnumeration()).value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(cvrp, HGS(scale=reach / float(np.max(cvrp.distances)), runtime=0.2), seed=0)
    assert sol.retcode.name == "Success"
    assert abs(sol.value - exact) <= 1e-6 * exact


def test_hgs_docstring_states_failure_for_an_infeasible_heuristic_answer():
    # README's retcode table: a heuristic that finds no feasible point reports Failure (it proves nothing)
    import algorithms.routing.hgs as hgs

    assert "never\n``Infeasible``" in hgs.__doc__ and "RetCode.Infeasible" not in open(hgs.__file__).read()
