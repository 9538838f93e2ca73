"""Retcode cases of the routing family: 2-opt cut after one move (MaxIters) and a GFlowNet
checkpoint whose weights are NaN (its policy probabilities are non-finite: Diverged)."""

import os
import tempfile

import torch

from algorithms import RetCode
from algorithms.routing import random_cvrp, random_tsp
from algorithms.routing.gflownet import RoutingGFlowNet
from algorithms.routing.hbg import HBG
from algorithms.routing.nn2opt import NearestNeighbor2Opt
from algorithms.routing.train import save_checkpoint
from tests.retcodes import RetcodeCase

# one scratch folder per test process, removed when the process exits (a mkdtemp per call left
# hundreds of folders in /tmp)
_SCRATCH = tempfile.TemporaryDirectory(prefix="hbg_nan_")


def _capped_tsp():
    return random_tsp(60, seed=1), NearestNeighbor2Opt(), {"maxiters": 1}


def _capped_cvrp():
    return random_cvrp(60, seed=1), NearestNeighbor2Opt(), {"maxiters": 1}


def _nan_checkpoint():
    model = RoutingGFlowNet("tsp", hidden=8, layers=1)
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(float("nan"))
    path = os.path.join(_SCRATCH.name, "nan.pt")
    save_checkpoint(path, model, {"problem": "tsp", "size": 10, "loss": "hybrid", "steps": 0})
    return random_tsp(10, seed=0), HBG(checkpoint=path, samples=4), {}


CASES = [
    RetcodeCase("two_opt_one_move_tsp", _capped_tsp, RetCode.MaxIters),
    RetcodeCase("two_opt_one_move_cvrp", _capped_cvrp, RetCode.MaxIters),
    RetcodeCase("nan_checkpoint", _nan_checkpoint, RetCode.Diverged),
]
