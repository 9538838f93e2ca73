"""Bad inputs to every public callable of ``algorithms.routing``: rejected early, by our own
validation, with a message naming the argument and what was expected."""

import math
import os

import numpy as np
import pytest
import torch

import algorithms.routing as routing
import algorithms.routing.cvrp_enumeration as enum_mod
import algorithms.routing.gflownet as gfn
import algorithms.routing.hbg as hbg_mod
import algorithms.routing.held_karp as hk_mod
import algorithms.routing.hgs as hgs_mod
import algorithms.routing.lkh as lkh_mod
import algorithms.routing.nn2opt as nn_mod
import algorithms.routing.problem as prob
import algorithms.routing.train as train_mod
from algorithms import RetCode, solve
from algorithms._validation import WORKING_MAX
from algorithms.routing import CVRPInstance, TSPInstance, random_cvrp, random_tsp
from algorithms.routing.cvrp_enumeration import CVRPEnumeration, cvrp_enumerate
from algorithms.routing.gflownet import RoutingGFlowNet
from algorithms.routing.hbg import HBG
from algorithms.routing.held_karp import HeldKarp, held_karp
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

SQ = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
DUP = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
NAN = np.array([[0.0, 0.0], [np.nan, 0.0], [0.0, 1.0]])
TSP = random_tsp(5, seed=0)
CV = random_cvrp(5, seed=0)
SHIPPED = hbg_mod.shipped_checkpoints()

CASES = [
    BadInput(TSPInstance, lambda: TSPInstance(DUP), ValueError, ("coords", "duplicate"), "duplicate"),
    BadInput(TSPInstance, lambda: TSPInstance(NAN), ValueError, ("coords", "NaN"), "nan"),
    BadInput(TSPInstance, lambda: TSPInstance(SQ[:2]), ValueError, ("coords", "n >= 3"), "n<3"),
    BadInput(
        TSPInstance,
        lambda: TSPInstance(np.zeros((4, 3)) + np.arange(4)[:, None]),
        ValueError,
        ("coords", "(n, 2)"),
        "shape",
    ),
    BadInput(
        CVRPInstance,
        lambda: CVRPInstance(SQ, [0, 3, 9, 2], 5),
        ValueError,
        ("demands", "capacity"),
        "above-capacity",
    ),
    BadInput(
        CVRPInstance,
        lambda: CVRPInstance(SQ, [0, -1, 2, 2], 5),
        ValueError,
        ("demands", ">= 1"),
        "negative-demand",
    ),
    BadInput(
        CVRPInstance,
        lambda: CVRPInstance(SQ, [0, 1.5, 2, 2], 5),
        ValueError,
        ("demands", "integers"),
        "fractional-demand",
    ),
    BadInput(
        CVRPInstance,
        lambda: CVRPInstance(SQ, [1, 1, 2, 2], 5),
        ValueError,
        ("demands[0]", "depot"),
        "depot-demand",
    ),
    BadInput(CVRPInstance, lambda: CVRPInstance(SQ, [0, 1], 5), ValueError, ("demands", "length"), "length"),
    BadInput(
        CVRPInstance,
        lambda: CVRPInstance(SQ, [0, 1, 2, 2], 0),
        ValueError,
        ("capacity", "positive"),
        "capacity",
    ),
    BadInput(
        CVRPInstance,
        lambda: CVRPInstance(DUP, [0, 1, 1], 5),
        ValueError,
        ("coords", "duplicate"),
        "duplicate",
    ),
    BadInput(CVRPInstance, lambda: CVRPInstance(SQ[:2], [0, 1], 5), ValueError, ("coords", "n >= 3"), "n<3"),
    BadInput(prob.random_tsp, lambda: random_tsp(2), ValueError, ("n", ">= 3"), "n<3"),
    BadInput(prob.random_tsp, lambda: random_tsp(5, seed=-1), ValueError, ("seed",), "seed"),
    BadInput(prob.random_cvrp, lambda: random_cvrp(1), ValueError, ("n", ">= 2"), "n<2"),
    BadInput(
        prob.random_cvrp,
        lambda: random_cvrp(5, capacity=3),
        ValueError,
        ("demands", "capacity"),
        "small-capacity",
    ),
    BadInput(prob.cvrp_capacity, lambda: prob.cvrp_capacity(0), ValueError, ("n", ">= 1"), "zero"),
    BadInput(prob.cvrp_capacity, lambda: prob.cvrp_capacity(2.5), TypeError, ("n", "int"), "float"),
    BadInput(
        prob.check_tsp_tour,
        lambda: prob.check_tsp_tour(TSP, [0, 1, 1, 2, 3]),
        ValueError,
        ("tour", "exactly once"),
        "repeat",
    ),
    BadInput(prob.tsp_cost, lambda: prob.tsp_cost(TSP, [0, 1]), ValueError, ("tour",), "short"),
    BadInput(
        prob.check_cvrp_routes,
        lambda: prob.check_cvrp_routes(CV, [[1, 2]]),
        ValueError,
        ("routes", "exactly once"),
        "missing",
    ),
    BadInput(
        prob.check_cvrp_routes,
        lambda: prob.check_cvrp_routes(CV, [[1, 2, 3, 4, 5], []]),
        ValueError,
        ("routes", "empty"),
        "empty-route",
    ),
    BadInput(
        prob.check_cvrp_routes, lambda: prob.check_cvrp_routes(CV, 5), ValueError, ("routes",), "not-list"
    ),
    BadInput(
        prob.cvrp_cost, lambda: prob.cvrp_cost(CV, [[1, 1, 2, 3, 4, 5]]), ValueError, ("routes",), "dup"
    ),
    BadInput(prob.read_tsplib, lambda: prob.read_tsplib(5), TypeError, ("text", "str"), "type"),
    BadInput(
        prob.read_tsplib,
        lambda: prob.read_tsplib("NAME : x\nTYPE : TSP\nDIMENSION : 3\nEOF\n"),
        ValueError,
        ("NODE_COORD_SECTION",),
        "no-coords",
    ),
    BadInput(
        prob.read_cvrplib,
        lambda: prob.read_cvrplib(prob.write_tsplib(TSP)),
        ValueError,
        ("CVRP",),
        "wrong-type",
    ),
    BadInput(
        prob.routes_from_sequence,
        lambda: prob.routes_from_sequence([0, "a", 0]),
        ValueError,
        ("sequence",),
        "non-int",
    ),
    BadInput(
        prob.sequence_from_routes,
        lambda: prob.sequence_from_routes([[1, "b"]]),
        ValueError,
        ("routes",),
        "non-int",
    ),
    BadInput(
        prob.write_tsplib, lambda: prob.write_tsplib(CV), TypeError, ("instance", "TSPInstance"), "type"
    ),
    BadInput(
        prob.write_cvrplib, lambda: prob.write_cvrplib(TSP), TypeError, ("instance", "CVRPInstance"), "type"
    ),
    BadInput(
        prob.is_valid_tsp, lambda: prob.is_valid_tsp(CV, [0]), TypeError, ("instance", "TSPInstance"), "type"
    ),
    BadInput(
        prob.is_valid_cvrp,
        lambda: prob.is_valid_cvrp(TSP, [[1]]),
        TypeError,
        ("instance", "CVRPInstance"),
        "type",
    ),
    # exact solvers
    BadInput(HeldKarp, lambda: solve(random_tsp(13), HeldKarp()), ValueError, ("n <= 12",), "too-big"),
    BadInput(hk_mod.held_karp, lambda: held_karp(np.zeros((2, 3))), ValueError, ("dist", "square"), "shape"),
    BadInput(
        CVRPEnumeration, lambda: solve(random_cvrp(9), CVRPEnumeration()), ValueError, ("<= 8",), "too-big"
    ),
    BadInput(
        enum_mod.cvrp_enumerate, lambda: cvrp_enumerate(random_cvrp(9)), ValueError, ("<= 8",), "too-big"
    ),
    BadInput(LKH, lambda: LKH(runs=0), ValueError, ("runs", "positive"), "runs"),
    BadInput(HGS, lambda: HGS(runtime=-1.0), ValueError, ("runtime", "> 0"), "runtime"),
    BadInput(LKH, lambda: solve(random_tsp(5, seed=0), LKH(scale=1e9)), ValueError, ("scale", "limit"),
             "scale-overflows"),
    BadInput(HGS, lambda: solve(random_cvrp(5, seed=0), HGS(scale=1e14)), ValueError, ("scale", "limit"),
             "scale-overflows"),
    BadInput(LKH, lambda: LKH(scale=0.0), ValueError, ("scale", "> 0"), "scale"),
    BadInput(
        nn_mod.NearestNeighbor2Opt,
        lambda: solve(TSP, nn_mod.NearestNeighbor2Opt(), tol=-1.0),
        ValueError,
        ("tol",),
        "tol",
    ),
    BadInput(
        nn_mod.nearest_neighbor_tour,
        lambda: nn_mod.nearest_neighbor_tour(np.zeros(3)),
        ValueError,
        ("dist", "square"),
        "shape",
    ),
    BadInput(
        nn_mod.nearest_neighbor_routes,
        lambda: nn_mod.nearest_neighbor_routes(TSP),
        TypeError,
        ("instance", "CVRPInstance"),
        "type",
    ),
    BadInput(
        nn_mod.two_opt,
        lambda: nn_mod.two_opt(TSP.distances, [0, 1, 1, 2, 3]),
        ValueError,
        ("tour", "permutation"),
        "repeat",
    ),
    # GFlowNet
    BadInput(RoutingGFlowNet, lambda: RoutingGFlowNet("vrp"), ValueError, ("problem", "tsp"), "problem"),
    BadInput(
        RoutingGFlowNet,
        lambda: RoutingGFlowNet("tsp", hidden=0),
        ValueError,
        ("hidden", "positive"),
        "hidden",
    ),
    BadInput(
        gfn.encode_instances,
        lambda: gfn.encode_instances(RoutingGFlowNet("tsp"), [CV]),
        TypeError,
        ("instances", "TSPInstance"),
        "type",
    ),
    BadInput(
        gfn.encode_instances,
        lambda: gfn.encode_instances(RoutingGFlowNet("tsp"), [TSP, random_tsp(6)]),
        ValueError,
        ("instances", "one size"),
        "sizes",
    ),
    BadInput(
        gfn.rollout, lambda: gfn.rollout(RoutingGFlowNet("tsp"), None, 0), ValueError, ("samples",), "samples"
    ),
    BadInput(
        gfn.rollout,
        lambda: gfn.rollout(
            RoutingGFlowNet("tsp"), gfn.encode_instances(RoutingGFlowNet("tsp"), [TSP]), 2, mode="beam"
        ),
        ValueError,
        ("mode",),
        "mode",
    ),
    BadInput(gfn.trajectory_loss, lambda: gfn.trajectory_loss(None, "subtb"), ValueError, ("loss",), "loss"),
    BadInput(gfn.tsp_log_pb, lambda: gfn.tsp_log_pb(2), ValueError, ("n", ">= 3"), "n"),
    BadInput(gfn.cvrp_log_pb, lambda: gfn.cvrp_log_pb([[]]), ValueError, ("routes", "non-empty"), "empty"),
    BadInput(
        gfn.paper_stepwise_log_pb,
        lambda: gfn.paper_stepwise_log_pb(0, 0, True),
        ValueError,
        ("a and j",),
        "zero",
    ),
    BadInput(
        gfn.knn_adjacency,
        lambda: gfn.knn_adjacency(np.zeros((3, 3)), 2, True),
        TypeError,
        ("dist", "tensor"),
        "numpy",
    ),
    BadInput(
        gfn.knn_adjacency,
        lambda: gfn.knn_adjacency(torch.ones(1, 3, 4), 2, True),
        ValueError,
        ("dist", "(1, 3, 4)"),
        "not square",
    ),
    # training and checkpoints
    BadInput(
        train_mod.train, lambda: train_mod.train(problem="tsp", size=2), ValueError, ("size", ">= 3"), "size"
    ),
    BadInput(train_mod.train, lambda: train_mod.train(loss="fm"), ValueError, ("loss",), "loss"),
    BadInput(train_mod.train, lambda: train_mod.train(samples=1), ValueError, ("samples", ">= 2"), "samples"),
    BadInput(
        train_mod.load_checkpoint,
        lambda: train_mod.load_checkpoint("/nonexistent/x.pt"),
        ValueError,
        ("checkpoint", "does not exist"),
        "missing",
    ),
    BadInput(
        train_mod.save_checkpoint,
        lambda: train_mod.save_checkpoint(5, RoutingGFlowNet("tsp"), {}),
        TypeError,
        ("path",),
        "path",
    ),
    BadInput(
        train_mod.beta_at, lambda: train_mod.beta_at(0, 5, -1.0, 2.0), ValueError, ("beta_min",), "beta"
    ),
    BadInput(
        train_mod.main,
        lambda: train_mod.main(["--out", "/tmp/x.pt", "--threads", "0"]),
        ValueError,
        ("threads",),
        "threads",
    ),
    BadInput(HBG, lambda: HBG(samples=0), ValueError, ("samples", "positive"), "samples"),
    BadInput(HBG, lambda: HBG(inference="beam"), ValueError, ("inference",), "inference"),
    BadInput(HBG, lambda: HBG(checkpoint=3), TypeError, ("checkpoint",), "type"),
    BadInput(HBG, lambda: solve(TSP, HBG(checkpoint="tsp30")), ValueError, ("checkpoint", "shipped"), "name"),
    BadInput(
        HBG,
        lambda: solve(random_tsp(20), HBG(checkpoint="cvrp20")),
        ValueError,
        ("checkpoint", "CVRP"),
        "other-problem",
    ),
    BadInput(
        HBG,
        lambda: solve(random_tsp(30), HBG(checkpoint="tsp20")),
        ValueError,
        ("checkpoint", "TSP20", "allow_size_transfer"),
        "other-size",
    ),
    BadInput(
        hbg_mod.load_model,
        lambda: hbg_mod.load_model("/nonexistent.pt"),
        ValueError,
        ("checkpoint",),
        "missing",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    exempt = {
        "shipped_checkpoints": "takes no argument",
        "Batch": "a plain record built by encode_instances (validated there)",
        "Trajectories": "a plain record built by rollout (validated there)",
        "tb_loss": "takes a Trajectories from rollout; beta is checked by trajectory_loss",
        "db_loss": "as tb_loss",
        "hybrid_loss": "as tb_loss",
        "tb_residuals": "as tb_loss",
        "db_residuals": "as tb_loss",
        "LOSSES": "a constant",
    }
    assert_every_callable_covered(
        [routing, prob, hk_mod, enum_mod, nn_mod, lkh_mod, hgs_mod, gfn, train_mod, hbg_mod], CASES, exempt
    )
    assert SHIPPED and os.path.isdir(hbg_mod.CHECKPOINT_DIR)


# held-out audit (issue #43): a NaN distance must not come back as the optimum's length, and
# coordinates whose squared distances overflow float64 are rejected before a backend's log10 fails
def test_held_karp_rejects_non_finite_distances():
    dist = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, np.nan], [2.0, np.nan, 0.0]])
    check_bad_input(BadInput(hk_mod.held_karp, lambda: held_karp(dist), ValueError, ("dist", "finite", "nan"),
                             "nan"))
    check_bad_input(BadInput(hk_mod.held_karp, lambda: held_karp(-np.ones((3, 3))), ValueError,
                             ("dist", ">= 0"), "negative"))

    # finite entries whose tour length overflows: every DP candidate would be inf and the tour read back
    # incomplete ([0, 1] with length inf); n·max d finite is accepted (issue #46 round 4)
    # round 12: entries past the working range (3.4e38) are refused by name; at its edge the tour length
    # n·max d stays finite
    top = np.finfo(np.float64).max
    big = np.full((4, 4), top / 4 * (1 + 1e-15))
    np.fill_diagonal(big, 0.0)
    check_bad_input(BadInput(hk_mod.held_karp, lambda: held_karp(big), ValueError, ("dist", "working range"),
                             "overflow"))
    edge = np.full((4, 4), WORKING_MAX)
    np.fill_diagonal(edge, 0.0)
    tour, length = held_karp(edge)
    assert sorted(tour) == [0, 1, 2, 3] and length == 4 * WORKING_MAX


def test_overflowing_coordinates_are_rejected_naming_the_bound():
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]) * 1e200
    check_bad_input(BadInput(TSPInstance, lambda: TSPInstance(coords), ValueError,
                             ("coords", "working range"), "overflow"))
    check_bad_input(BadInput(CVRPInstance, lambda: CVRPInstance(coords, [1, 1, 1], 2), ValueError,
                             ("coords", "working range"), "overflow"))
    # round 12: coordinates inside the range whose distances are not (the solvers' matrices are checked in it)
    wide = coords * 2.5e-162
    check_bad_input(BadInput(TSPInstance, lambda: TSPInstance(wide), ValueError,
                             ("coords", "pairwise distances at most 3.403e+38"), "distances-overflow"))
    from algorithms.routing._common import integer_distances

    inf = np.array([[0.0, np.inf], [np.inf, 0.0]])
    check_bad_input(BadInput(integer_distances, lambda: integer_distances(inf, None, 1e6, 2**31, "LKH"),
                             ValueError, ("coords", "finite", "inf"), "inf"))
    assert TSPInstance(coords * 1e-170).n == 4  # 1e30: large distances in the working range stay valid


# round 2 of the held-out audit (issue #43): distance matrices checked as distances (strings, NaN,
# negatives), 2-opt on a tour through every node with an int move cap and a tolerance >= 0, a start
# node inside the matrix, bools refused as node indices, one-line TSPLIB names
D4 = np.ones((4, 4)) - np.eye(4)
ROUND2 = [
    BadInput(nn_mod.nearest_neighbor_tour, lambda: nn_mod.nearest_neighbor_tour("d"), TypeError,
             ("dist", "numeric"), "str"),
    BadInput(nn_mod.nearest_neighbor_tour,
             lambda: nn_mod.nearest_neighbor_tour(np.where(D4 > 0, np.nan, 0.0)),
             ValueError, ("dist", "finite"), "nan"),
    BadInput(nn_mod.nearest_neighbor_tour, lambda: nn_mod.nearest_neighbor_tour(-D4), ValueError,
             ("dist", ">= 0"), "negative"),
    BadInput(hk_mod.held_karp, lambda: held_karp("d"), TypeError, ("dist", "numeric"), "str"),
    *[BadInput(nn_mod.nearest_neighbor_tour, lambda s=s: nn_mod.nearest_neighbor_tour(D4, s), ValueError,
               ("start", "[0, 3]"), f"start-{s!r}") for s in (-1, 4, 1.5, "0", True)],
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0, 1, 2]), ValueError, ("tour", "each of the 4"),
             "missing"),
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0, 1, 1, 3]), ValueError, ("tour", "distinct"),
             "repeat"),
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0.0, 1.0, 2.0, 3.0]), ValueError, ("tour", "int"),
             "floats"),
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0, 1, 2, 3], max_moves=-1), ValueError,
             ("max_moves", ">= 0"), "negative"),
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0, 1, 2, 3], max_moves=2.5), ValueError,
             ("max_moves", "int"), "float"),
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0, 1, 2, 3], tol=-1.0), ValueError, ("tol", ">= 0"),
             "negative"),
    BadInput(nn_mod.two_opt, lambda: nn_mod.two_opt(D4, [0, 1, 2, 3], tol=np.nan), ValueError,
             ("tol", "finite"),
             "nan"),
    BadInput(prob.tsp_cost, lambda: prob.tsp_cost(TSPInstance(SQ), [True, False, 2, 3]), ValueError,
             ("tour", "int"), "bool"),
    BadInput(prob.cvrp_cost, lambda: prob.cvrp_cost(CV, [[1.5, 2], [3, 4, 5]]), ValueError, ("routes", "int"),
             "float"),
    BadInput(prob.write_tsplib, lambda: prob.write_tsplib(TSP, "a b\nc"), ValueError, ("name", "single line"),
             "newline"),
    BadInput(prob.write_cvrplib, lambda: prob.write_cvrplib(CV, "a\rb"), ValueError, ("name", "single line"),
             "newline"),
]


@pytest.mark.parametrize("case", ROUND2, ids=lambda c: c.id)
def test_round2_bad_input(case):
    check_bad_input(case)


def test_valid_edges_stay_valid():
    assert nn_mod.two_opt(D4, np.array([3, 2, 1, 0]))[1] is True
    assert nn_mod.nearest_neighbor_tour(D4, np.int64(2))[0] == 2
    assert prob.write_tsplib(TSP, 3).startswith("NAME : 3\n")
    # the duplicate test is relative to the extent: the unit square scaled to 1e-12 with two nodes 5e-14
    # apart is the geometry of 0.05 apart in the unit box (refused before as duplicates)
    tiny = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.05, 0.0]]) * 1e-12
    inst = TSPInstance(tiny)
    assert abs(solve(inst, nn_mod.NearestNeighbor2Opt()).value - 4e-12) < 1e-20
    check_bad_input(BadInput(TSPInstance, lambda: TSPInstance(np.vstack([SQ, SQ[:1] + 1e-14])), ValueError,
                             ("coords", "distinct"), "near-duplicate"))


# Round 3 of the held-out audit (#43, C6): malformed coordinate sections name text.
_TSP3 = "NAME : x\nTYPE : TSP\nDIMENSION : {dim}\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n{rows}EOF\n"
ROUND3 = [
    BadInput(prob.read_tsplib, lambda: prob.read_tsplib(_TSP3.format(dim=2, rows="1 0 0\n2 a 1\n")),
             ValueError, ("text", "malformed"), "badnum"),
    BadInput(prob.read_tsplib, lambda: prob.read_tsplib(_TSP3.format(dim=5, rows="1 0 0\n2 1 1\n")),
             ValueError, ("text", "DIMENSION = 5"), "dim-mismatch"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


@pytest.mark.parametrize("scale", [1e-12, 1e-9, 1e12])
def test_two_opt_threshold_is_relative_to_the_instance(scale):
    # #43 round 7: 2-opt's absolute 1e-10 gain threshold stopped short on coordinates x1e-9 (NN+2-opt and
    # HBG's local search 2.4 % above the tour they find at x1), and sits below the gains' rounding at x1e12
    from algorithms.routing.nn2opt import NearestNeighbor2Opt

    tsp, cvrp = random_tsp(8, seed=1), random_cvrp(6, seed=1)
    scaled = (TSPInstance(tsp.coords * scale), CVRPInstance(cvrp.coords * scale, cvrp.demands, cvrp.capacity))
    for unit, big in zip((tsp, cvrp), scaled):
        for algorithm in (NearestNeighbor2Opt(), HBG(samples=8, allow_size_transfer=True)):
            want, got = solve(unit, algorithm, seed=0), solve(big, algorithm, seed=0)
            assert got.retcode is want.retcode
            assert got.value == pytest.approx(scale * want.value, rel=1e-9)


def test_backends_honour_maxiters_and_bound_runtime():
    # #43 round 7: HGS and LKH ignored solve's maxiters (a full search, then Success); HGS(runtime=2**40)
    # was a search that never ends
    pytest.importorskip("pyvrp")
    sol = solve(random_cvrp(6, seed=1), HGS(runtime=100.0), maxiters=20)
    assert sol.retcode is RetCode.MaxIters and sol.stats.iterations == 20
    with pytest.raises(ValueError, match=r"^runtime must be at most 604800 seconds"):
        HGS(runtime=2.0**40)
    pytest.importorskip("elkai")
    assert solve(random_tsp(10, seed=1), LKH(runs=5), maxiters=2).retcode is RetCode.MaxIters
    assert solve(random_tsp(10, seed=1), LKH(runs=2), maxiters=2).retcode is RetCode.Success


def test_numpy_counts_are_stored_as_ints():
    # #43 round 7: LKH kept runs=np.int64(2) as given and elkai refused it (the solve ended Failure)
    pytest.importorskip("elkai")
    algorithm = LKH(runs=np.int64(2))
    assert type(algorithm.runs) is int
    assert solve(random_tsp(10, seed=1), algorithm).retcode is RetCode.Success
    assert type(HBG(samples=np.int64(4)).samples) is int


def test_save_checkpoint_checks_before_writing(tmp_path):
    # #43 round 7: a meta json could not store (an ndarray) raised json's TypeError after the .pt was written;
    # a non-model reached AttributeError('config')
    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    with pytest.raises(TypeError, match=r"^meta must hold JSON values"):
        train_mod.save_checkpoint(str(tmp_path / "a.pt"), model, {"a": np.ones(2)})
    with pytest.raises(TypeError, match=r"^model must be a RoutingGFlowNet"):
        train_mod.save_checkpoint(str(tmp_path / "a.pt"), "model", {})
    assert list(tmp_path.iterdir()) == []
    train_mod.save_checkpoint(str(tmp_path / "a.pt"), model, {"problem": "tsp", "loss": float("nan")})
    assert train_mod.load_checkpoint(str(tmp_path / "a.pt"))[1]["problem"] == "tsp"


def test_heldout7_overloaded_route_names_routes():
    # #43 round 7 (heldout7 C): "route 0 carries 3 > capacity 2" did not name the argument routes
    instance = CVRPInstance(SQ, [0, 1, 1, 1], 2)
    with pytest.raises(ValueError, match=r"^routes\[0\] carries 3 > capacity 2"):
        prob.cvrp_cost(instance, [[1, 2, 3]])


def test_nn2opt_zero_cap_is_maxiters():
    # #43 round 7 (heldout7 R2 note): a CVRP whose routes are too short for a 2-opt move returned Success at
    # maxiters=0, where solve documents MaxIters for a zero cap
    from algorithms.routing.nn2opt import NearestNeighbor2Opt

    instance = CVRPInstance(SQ, [0, 1, 1, 1], 2)
    for cap in (0, np.int64(0)):
        assert solve(instance, NearestNeighbor2Opt(), maxiters=cap).retcode is RetCode.MaxIters
    assert solve(instance, NearestNeighbor2Opt()).retcode is RetCode.Success


def test_round8_tsplib_metric_ids_and_depots_checked():
    # #43 round 8 (pre-audit sweep): GEO/ATT/CEIL_2D files were read as Euclidean coordinates, a node id past
    # DIMENSION or a third coordinate went unnoticed, a second depot was ignored; instance errors name `text`
    text = prob.write_tsplib(random_tsp(5, seed=0))
    for kind in ("GEO", "ATT", "CEIL_2D", "EXPLICIT"):
        with pytest.raises(ValueError, match=r"^text must have EDGE_WEIGHT_TYPE : EUC_2D"):
            prob.read_tsplib(text.replace("EUC_2D", kind))
    lines = text.splitlines()
    row = next(k for k, line in enumerate(lines) if line.startswith("1 "))
    out_of_range = [*lines[:row], lines[row].replace("1 ", "9 ", 1), *lines[row + 1:]]
    with pytest.raises(ValueError, match=r"^text: NODE_COORD_SECTION must number its rows 1\.\.5"):
        prob.read_tsplib("\n".join(out_of_range))
    extra = [*lines[:row], lines[row] + " 7.0", *lines[row + 1:]]
    with pytest.raises(ValueError, match=r"^text: NODE_COORD_SECTION rows must have 3 fields"):
        prob.read_tsplib("\n".join(extra))
    duplicate = [*lines[:row], lines[row], lines[row].replace("1 ", "2 ", 1), *lines[row + 2:]]
    with pytest.raises(ValueError, match=r"^text: coords must be distinct"):
        prob.read_tsplib("\n".join(duplicate))
    cv = prob.write_cvrplib(random_cvrp(4, seed=0))
    with pytest.raises(ValueError, match=r"^text: DEPOT_SECTION must name exactly one depot"):
        prob.read_cvrplib(cv.replace("DEPOT_SECTION\n1", "DEPOT_SECTION\n1\n2"))
    with pytest.raises(ValueError, match=r"^text: CAPACITY must be a finite"):
        prob.read_cvrplib(cv.replace("CAPACITY : 30", "CAPACITY : inf"))
    with pytest.raises(ValueError, match=r"^text: demands\[0\] \(the depot\) must be 0"):
        prob.read_cvrplib(cv.replace("\n1 0\n", "\n1 3\n"))
    assert np.allclose(prob.read_tsplib(text).coords, random_tsp(5, seed=0).coords)


def test_round8_exact_methods_count_one_pass_and_stop_requests_honoured():
    # #43 round 8: Held-Karp reported its 2**(n-1) subsets as iterations past maxiters=5. Round 14: the one
    # record comes after the run is over, so a callback's True changes nothing (core's callback contract;
    # round 8 had made it Terminated, which called HeldKarp's finished DP stopped)
    sol = solve(random_tsp(8, seed=0), HeldKarp(), maxiters=5)
    assert sol.retcode is RetCode.Success and sol.stats.iterations == 1
    sol = solve(random_cvrp(4, seed=0), CVRPEnumeration(), maxiters=5)
    assert sol.retcode is RetCode.Success and sol.stats.iterations == 1
    sol = solve(random_cvrp(5, seed=0), HGS(), maxiters=5, callback=lambda record: True)
    assert sol.retcode is RetCode.MaxIters
    for algorithm in (HeldKarp(), CVRPEnumeration()):
        problem = random_tsp(7, seed=0) if isinstance(algorithm, HeldKarp) else random_cvrp(4, seed=0)
        assert solve(problem, algorithm, callback=lambda r: True).retcode is RetCode.Success
    capped = solve(random_cvrp(5, seed=0), HGS(), maxiters=0, callback=lambda r: True)
    assert capped.retcode is RetCode.MaxIters


def test_heldout8_hgs_retcode_does_not_depend_on_the_clock():
    # #43 round 8 (heldout8 phase 2): HGS(runtime=0.2) with maxiters=300 ended MaxIters in one run and Success
    # in the next (whichever budget came first on a loaded machine); with a cap it is MaxIters either way
    for runtime in (1e-3, 5.0):
        sol = solve(random_cvrp(6, seed=0), HGS(runtime=runtime), maxiters=50, seed=1)
        assert sol.retcode is RetCode.MaxIters


def test_round8_stop_request_after_the_run_changes_nothing():
    # #43 round 8 made NN+2-opt's stop request Terminated; round 14: its one record comes after the run
    # (core's callback contract: a True returned then changes nothing), with or without 2-opt moves
    from algorithms.routing.nn2opt import NearestNeighbor2Opt

    instance = CVRPInstance(SQ, [0, 1, 1, 1], 2)
    assert solve(instance, NearestNeighbor2Opt(), callback=lambda r: True).retcode is RetCode.Success
    capped = solve(instance, NearestNeighbor2Opt(), maxiters=0, callback=lambda r: True)
    assert capped.retcode is RetCode.MaxIters


def test_round9_instances_routes_and_counts_named():
    # #43 round 9 (pre-audit sweep): cvrp_enumerate(None) met an AttributeError; cvrp_log_pb took None,
    # bytes or a set to Python's "not iterable"; paper_stepwise_log_pb and beta_at compared a str to an int;
    # tsp_cost of an object whose __array__ raises met that error; two_opt of a 0-d array met "not iterable"
    from algorithms.routing import tsp_cost
    from algorithms.routing.cvrp_enumeration import cvrp_enumerate
    from algorithms.routing.gflownet import cvrp_log_pb, paper_stepwise_log_pb
    from algorithms.routing.nn2opt import two_opt
    from algorithms.routing.train import beta_at

    class RaisingArray:
        def __array__(self, *args, **kwargs):
            raise RuntimeError("boom")

    with pytest.raises(TypeError, match=r"^instance must be a CVRPInstance"):
        cvrp_enumerate(None)
    for bad in (None, b"ab", {1, 2}, 3):
        with pytest.raises(TypeError, match=r"^routes must be a list of routes"):
            cvrp_log_pb(bad)
    with pytest.raises(TypeError, match=r"^routes\[0\] must be a route"):
        cvrp_log_pb([3])
    with pytest.raises(ValueError, match=r"^j must be an int >= 0"):
        paper_stepwise_log_pb(1, "1", True)
    with pytest.raises(TypeError, match=r"^multi must be a bool"):
        paper_stepwise_log_pb(1, 1, "yes")
    with pytest.raises(ValueError, match=r"^step must be an int >= 0"):
        beta_at("1", 10, 1.0, 2.0)
    with pytest.raises(ValueError, match=r"^beta_min = 5e-324 is outside the package's working range"):
        beta_at(5, 10, 5e-324, 1e308)  # round 12: the ratio of two scales in the range stays finite
    assert math.isfinite(beta_at(5, 10, 1.2e-38, 3.4e38))
    with pytest.raises(TypeError, match=r"^tour must be a 1-D sequence"):
        tsp_cost(TSP, RaisingArray())
    with pytest.raises(ValueError, match=r"^tour must be a sequence of int node indices"):
        two_opt(np.ones((3, 3)) - np.eye(3), np.array(1))


def test_round9_gflownet_helpers_check_their_objects():
    # #43 round 9 (pre-audit sweep): the losses and residuals took traj=None to an AttributeError and
    # beta=None to torch's "unsupported operand"; rollout(model=None) met an AttributeError;
    # knn_adjacency of a complex dist met topk's error and k=None a comparison error; encode(None, ...)
    # met torch's linear() error
    import torch

    from algorithms.routing.gflownet import (
        RoutingGFlowNet,
        encode_instances,
        hybrid_loss,
        knn_adjacency,
        rollout,
        tb_loss,
    )

    net = RoutingGFlowNet(problem="tsp", hidden=8, layers=1)
    batch = encode_instances(net, [TSP])
    traj = rollout(net, batch, 2)
    with pytest.raises(TypeError, match=r"^traj must be a Trajectories"):
        tb_loss(None)
    with pytest.raises(TypeError, match=r"^beta must be a real number"):
        tb_loss(traj, beta=None)
    with pytest.raises(TypeError, match=r"^db_weight must be a real number"):
        hybrid_loss(traj, db_weight=None)
    with pytest.raises(TypeError, match=r"^model must be a RoutingGFlowNet"):
        rollout(None, batch, 2)
    with pytest.raises(TypeError, match=r"^batch must be a Batch"):
        rollout(net, None, 2)
    with pytest.raises(TypeError, match=r"^dist must be a real floating tensor"):
        knn_adjacency(batch.dist.to(torch.complex128), 2, False)
    with pytest.raises(ValueError, match=r"^k must be a positive int"):
        knn_adjacency(batch.dist, None, False)
    with pytest.raises(TypeError, match=r"^node_x must be a real floating torch tensor"):
        net.encode(None, batch.dist)
    with pytest.raises(ValueError, match=r"^capacity must be <= 2\*\*63 - 1"):
        CVRPInstance(CV.coords, CV.demands, 1e308)  # an integral float past int64 passed as a huge int


def test_heldout9_lib_names_are_strings():
    # #43 round 9 (heldout9 interim): write_tsplib/write_cvrplib wrote NAME : None / b'x' / 3 / ['x']
    from algorithms.routing import write_cvrplib, write_tsplib

    for bad in (None, b"x", True, ["x"]):
        with pytest.raises(TypeError, match=r"^name must be a str"):
            write_tsplib(TSP, name=bad)
        with pytest.raises(TypeError, match=r"^name must be a str"):
            write_cvrplib(CV, name=bad)


def test_round10_capacity_below_int_range_and_demands_past_float():
    # #43 round 10: capacity = -10**400 met np.isfinite's TypeError; a demand past 2**53 was rounded by
    # float64 (a wrong load, silently)
    with pytest.raises(ValueError, match=r"^capacity must be a positive int"):
        CVRPInstance(CV.coords, CV.demands, -10**400)
    demands = [0] + [1] * CV.n_customers
    demands[1] = 2**60 + 1
    with pytest.raises(ValueError, match=r"^demands must be <= 2\*\*53"):
        CVRPInstance(CV.coords, demands, 2**62)


def test_round10_counts_capped_where_a_run_would_never_end():
    # #43 round 10: LKH(runs=2**31 - 1) and HBG(samples=2**31 - 1) were accepted (solves that never end)
    from algorithms.routing.hbg import HBG
    from algorithms.routing.lkh import LKH

    with pytest.raises(ValueError, match=r"^runs must be <= 10000"):
        LKH(runs=2**31 - 1)
    with pytest.raises(ValueError, match=r"^samples must be <= 100000"):
        HBG(samples=2**31 - 1)
    assert LKH(runs=10_000).runs == 10_000


def test_round10_lib_keywords_known_and_once():
    # #43 round 10: 'TYPE : ' met an IndexError; an unknown keyword (a CVRPLIB DISTANCE limit, a misspelt
    # EDGE_WEIGHT_TYPE) was ignored, a repeated DIMENSION or section silently replaced the first
    from algorithms.routing import read_cvrplib, read_tsplib, write_cvrplib, write_tsplib

    text, cv = write_tsplib(TSP), write_cvrplib(CV)
    with pytest.raises(ValueError, match=r"^text must be TYPE : TSP"):
        read_tsplib(text.replace("TYPE : TSP", "TYPE : "))
    with pytest.raises(ValueError, match=r"^text: keyword 'DISTANCE' is not one"):
        read_cvrplib(cv.replace("CAPACITY", "DISTANCE : 10\nCAPACITY"))
    with pytest.raises(ValueError, match=r"^text: keyword 'EDGE_WEIGH_TYPE' is not one"):
        read_tsplib(text.replace("EDGE_WEIGHT_TYPE", "EDGE_WEIGH_TYPE"))
    with pytest.raises(ValueError, match=r"^text: keyword 'DIMENSION' is given twice"):
        read_tsplib(text.replace("TYPE : TSP", "TYPE : TSP\nDIMENSION : 3"))
    with pytest.raises(ValueError, match=r"^text: EDGE_WEIGHT_SECTION is not a section"):
        read_tsplib(text.replace("EOF", "EDGE_WEIGHT_SECTION\n1 2\nEOF"))


def test_round10_tiny_coords_named_as_too_small_not_duplicates():
    # #43 round 10: distinct coords at scale 1e-200 were refused as "duplicate nodes" (the squared
    # differences underflow to 0); the message now says what is wrong and how to rescale
    coords = np.random.default_rng(0).random((6, 2)) * 1e-200
    with pytest.raises(ValueError, match=r"^coords are too small in scale"):
        TSPInstance(coords)
    with pytest.raises(ValueError, match=r"^coords must be distinct"):
        TSPInstance(np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]))


def test_round11_tol_name_close_nodes_and_a_solves_own_x():
    from algorithms import solve
    from algorithms.routing import TSPInstance, cvrp_cost, random_cvrp, random_tsp, write_tsplib
    from algorithms.routing.cvrp_enumeration import CVRPEnumeration
    from algorithms.routing.held_karp import HeldKarp

    with pytest.warns(UserWarning, match=r"tol=0\.5 had no effect"):  # was ignored in silence (core warns)
        solve(random_tsp(6, seed=1), HeldKarp(), tol=0.5)
    instance = random_cvrp(5, seed=2)
    with pytest.raises(ValueError, match="name must not be empty or blank"):
        write_tsplib(random_tsp(4), "")
    far = np.vstack([np.random.default_rng(0).random((5, 2)) * 1e-6, [[1e6, 1e6], [1e6 + 1, 1e6]]])
    with pytest.raises(ValueError, match="coords must be distinct at the instance's scale"):  # "duplicate"
        TSPInstance(far)
    sol = solve(instance, CVRPEnumeration())
    assert cvrp_cost(instance, sol.x) == pytest.approx(sol.value)  # its own x was refused


def test_round11_sizes_whose_distances_cannot_fit_are_named():
    from algorithms.routing import random_cvrp, random_tsp

    with pytest.raises(ValueError, match=r"random_tsp: n=1000000000 is too large"):  # thrashed for minutes
        random_tsp(10**9)
    with pytest.raises(ValueError, match=r"random_cvrp: n=100000000 is too large"):
        random_cvrp(10**8)
