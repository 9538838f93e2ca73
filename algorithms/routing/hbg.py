"""HBG: solve a TSP or CVRP with a trained Hybrid-Balance GFlowNet.

``solve(instance, HBG(checkpoint=..., samples=S))`` encodes the instance once, draws S
trajectories from the forward policy and keeps the cheapest. Decoding (``inference``):

* "depot" (Eq. 12, depot-guided): sample the next node only when the current node is the
  depot, take the argmax of P_F elsewhere. For a TSP the start node plays the depot, so each
  sample differs only in its first move (at most n−1 distinct tours).
* "sample": sample every move from P_F;  "greedy": one argmax trajectory.
* "auto" (default): "depot" for a CVRP (as the paper), "sample" for a TSP (the paper keeps
  the solver's own decoding on TSP).

``local_search=True`` (default) then applies best-improvement 2-opt to the best trajectory
(the tour; each CVRP route), as GFlowNet routing solvers do at test time; ``False`` reports
the policy's own answer.

Checkpoints: a name "tsp20", "tsp50", "cvrp20", "cvrp50" (the shipped hybrid ones; with
``loss="tb"``/"db" the variants trained with that loss at the same budget, shipped for size
50), a path to a ``.pt`` written by ``python -m algorithms.routing.train``, or None (the
shipped checkpoint of the instance's problem type whose size is nearest). A checkpoint for
the other problem type is refused, and so is one trained on another size unless
``allow_size_transfer=True`` (the paper's protocol trains on one size and tests on larger).

``Success``: every trajectory is finite and the returned answer passed our validity check;
``Diverged``: the policy produced non-finite probabilities (a broken checkpoint: NaN/inf weights).
A checkpoint weight past the working range (|w| > 3.4e38) is refused by name (a ValueError naming the
parameter), as ``RoutingGFlowNet.encode`` refuses it.

References
----------
N. Zhang, Z. Cao. Hybrid-Balance GFlowNet for Solving Vehicle Routing Problems. NeurIPS 2025,
arXiv:2510.04792, Section 3.2.3.

>>> from algorithms import solve
>>> from algorithms.routing import random_cvrp
>>> sol = solve(random_cvrp(20, seed=1), HBG(checkpoint="cvrp20", samples=8), seed=0)
>>> sol.retcode
<RetCode.Success: 'Success'>
"""

from __future__ import annotations

import copy
import functools
import math
import os
from dataclasses import dataclass

import torch

from algorithms._validation import WORKING_MAX, check_bool, check_choice, check_count, check_fits_memory
from algorithms.core import Algorithm, RetCode, Solution, SolveOptions, _dispatch
from algorithms.routing._common import finish, not_started
from algorithms.routing.gflownet import (
    LOSSES,
    NonFiniteTrajectory,
    RoutingGFlowNet,
    encode_instances,
    rollout,
)
from algorithms.routing.nn2opt import DEFAULT_REL_TOL, _route_two_opt, two_opt
from algorithms.routing.problem import (
    CVRPInstance,
    TSPInstance,
    cvrp_cost,
    is_valid_cvrp,
    is_valid_tsp,
    routes_from_sequence,
    tsp_cost,
)
from algorithms.routing.train import load_checkpoint

__all__ = ["CHECKPOINT_DIR", "HBG", "load_model", "shipped_checkpoints"]

CHECKPOINT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints")
INFERENCE = ("auto", "depot", "sample", "greedy")
#: the most trajectories one solve samples (``samples``, or ``maxiters`` when given)
MAX_SAMPLES = 100_000
#: shipped sizes per problem type
SHIPPED_SIZES = (20, 50)


def shipped_checkpoints() -> dict[str, str]:
    """Name (e.g. "tsp50_hybrid") → path of every shipped checkpoint."""
    if not os.path.isdir(CHECKPOINT_DIR):
        return {}
    return {
        f[:-3]: os.path.join(CHECKPOINT_DIR, f)
        for f in sorted(os.listdir(CHECKPOINT_DIR))
        if f.endswith(".pt")
    }


@functools.lru_cache(maxsize=16)
def _load_cached(path: str, mtime: float) -> tuple[RoutingGFlowNet, dict]:
    model, meta, _ = load_checkpoint(path)
    for p in model.parameters():
        p.requires_grad_(False)
    return model, meta


def _cached_model(path: str) -> tuple[RoutingGFlowNet, dict]:
    """The cached (model, metadata) of a checkpoint file, shared by every HBG solve: never handed out."""
    if not isinstance(path, str | os.PathLike) or not os.path.isfile(path):
        what = "is a folder, not a checkpoint file" if isinstance(path, str | os.PathLike) and os.path.isdir(
            path) else "does not exist"
        raise ValueError(f"checkpoint path {path!r} {what}")
    return _load_cached(os.path.abspath(path), os.path.getmtime(path))


def load_model(path: str) -> tuple[RoutingGFlowNet, dict]:
    """(model in eval mode, metadata) of a checkpoint file: the caller's own copies (the file is read once and
    cached), so editing them (weights, ``meta["size"]``) changes no later :class:`HBG` solve."""
    # the cached objects were returned: zeroed weights or meta["size"] = 99 changed every later HBG solve
    model, meta = _cached_model(path)
    return copy.deepcopy(model), copy.deepcopy(meta)


@dataclass(frozen=True)
class HBG(Algorithm):
    """Hybrid-Balance GFlowNet solver (see the module docstring).

    ``checkpoint``: name, path or None (None: the shipped checkpoint of ``loss`` of the nearest trained
    size, used for any instance size: a size transfer ``allow_size_transfer`` need not allow); ``samples``:
    trajectories per instance (an int in [1, 100000]: each is a sampled tour, so 2**31 - 1 was a solve
    that never ends); ``loss``: which shipped variant a name refers to ("hybrid", "tb", "db");
    ``inference``: "auto", "depot", "sample" or "greedy"; ``local_search``: 2-opt the best;
    ``allow_size_transfer``: accept a named or path checkpoint trained on another size (refused
    otherwise). ``tol`` has no effect (``samples`` fixes the run: ``solve`` warns). ``solve``'s ``maxiters``,
    when given, is the sample count instead of ``samples`` (an int in [0, 100000], the same cap; 0 draws no
    tour: ``MaxIters``; a larger one is refused naming maxiters); ``inference="greedy"`` draws one.
    ``solve``'s ``seed``: an int in [0, 2**64); None is read as 0 (the same run every time).
    The network sees the instance translated and scaled into the unit square, so the answer does not depend
    on the coordinates' unit for an instance outside that square or spanning less than half of it; one that
    already lies in it and spans at least half of it (the training data's kind) is passed as it is, so a
    change of unit that keeps it there (coordinates × 0.7) can give another tour.

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    checkpoint: str | None = None
    samples: int = 100
    loss: str = "hybrid"
    inference: str = "auto"
    local_search: bool = True
    allow_size_transfer: bool = False

    def __post_init__(self) -> None:
        if self.checkpoint is not None and not isinstance(self.checkpoint, str | os.PathLike):
            raise TypeError(
                f"checkpoint must be a name, a path or None, got {type(self.checkpoint).__name__}"
            )
        # a sampled tour each: 2**40 would not finish; stored as the checked int
        object.__setattr__(self, "samples", check_count("samples", self.samples, 1, MAX_SAMPLES,
                                                        "each is a sampled tour"))
        check_choice("loss", self.loss, LOSSES)
        check_choice("inference", self.inference, INFERENCE)
        check_bool("local_search", self.local_search)
        check_bool("allow_size_transfer", self.allow_size_transfer)
        if self.checkpoint is not None:  # a name or a path that cannot load is said now, not at solve
            ck = os.fspath(self.checkpoint)
            if os.path.sep in ck or ck.endswith(".pt"):
                if not os.path.exists(ck):
                    raise ValueError(f"checkpoint path {ck!r} does not exist")
            else:
                shipped = shipped_checkpoints()
                name = ck if "_" in ck else f"{ck}_{self.loss}"
                if name not in shipped:
                    raise ValueError(f"checkpoint must be a path or one of the shipped names "
                                     f"{sorted(shipped)}, got {ck!r} (loss={self.loss!r})")


def _resolve(algorithm: HBG, problem_type: str, size: int) -> str:
    ck = algorithm.checkpoint
    shipped = shipped_checkpoints()
    if ck is None:
        # the nearest size among the checkpoints of this loss (only 50-node tb/db ship: loss="tb" at n = 20
        # looked for tsp20_tb and blamed a checkpoint the caller never gave)
        sizes = [s for s in SHIPPED_SIZES if f"{problem_type}{s}_{algorithm.loss}" in shipped]
        sizes = sizes or list(SHIPPED_SIZES)
        nearest = min(sizes, key=lambda s: (abs(s - size), s))
        ck = f"{problem_type}{nearest}"
    ck = str(ck)
    if os.path.sep in ck or ck.endswith(".pt"):
        return ck
    name = ck if "_" in ck else f"{ck}_{algorithm.loss}"
    if name not in shipped:
        raise ValueError(
            f"checkpoint must be a path or one of the shipped names {sorted(shipped)}, got {ck!r}"
            f" (loss={algorithm.loss!r})"
        )
    return shipped[name]


def _model_for(algorithm: HBG, problem_type: str, size: int) -> tuple[RoutingGFlowNet, dict]:
    path = _resolve(algorithm, problem_type, size)
    model, meta = _cached_model(path)
    if model.problem != problem_type:
        raise ValueError(
            f"checkpoint {os.path.basename(path)!r} was trained for {model.problem.upper()}, "
            f"not {problem_type.upper()}: use a {problem_type} checkpoint"
        )
    trained = meta.get("size")
    strict = not (algorithm.allow_size_transfer or algorithm.checkpoint is None)
    if trained is None and strict:  # a meta without "size" skipped the size-transfer refusal in silence
        raise ValueError(f"checkpoint {os.path.basename(path)!r} records no training size (meta['size']): "
                         f"pass allow_size_transfer=True to use it on size {size}")
    if trained is not None and int(trained) != size and strict:
        raise ValueError(
            f"checkpoint {os.path.basename(path)!r} was trained on {problem_type.upper()}{trained}, "
            f"the instance has size {size}: pass allow_size_transfer=True to use it anyway"
        )
    return model, meta


def _decode(model: RoutingGFlowNet, instance, algorithm: HBG, options: SolveOptions):
    mode = algorithm.inference
    if mode == "auto":
        mode = "depot" if model.problem == "cvrp" else "sample"
    samples = 1 if mode == "greedy" else options.iterations(algorithm.samples)
    if options.maxiters is not None and samples > MAX_SAMPLES:  # samples' own cap: 200000 ran for minutes
        raise ValueError(f"maxiters (HBG's sample count when given) must be <= {MAX_SAMPLES}, as samples: "
                         f"each is a sampled tour; got {samples}")
    if options.maxiters is not None and mode != "greedy":  # maxiters is the sample count: 2**63 was named
        # "samples" by the rollout; one float64 cost per node per sample, at the least
        nodes = instance.coords.shape[0]
        check_fits_memory("HBG", "maxiters", samples, 8.0 * samples * (nodes + 1) * 4)
    gen = torch.Generator().manual_seed(int(options.seed or 0))
    with torch.no_grad():
        if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
            return None, samples  # a checkpoint's NaN weights: Diverged (encode refuses them by name)
        batch = encode_instances(model, [instance])
        if not all(bool(torch.isfinite(t).all()) and float(t.abs().max()) <= WORKING_MAX
                   for t in (batch.heat, batch.h, batch.keys)):  # rollout refuses them by name
            return None, samples
        try:
            traj = rollout(model, batch, samples, mode=mode, generator=gen)
        except RuntimeError:  # multinomial on non-finite probabilities
            return None, samples
        except NonFiniteTrajectory:  # a finite weight (flow_count = 3e38) whose flows overflow: as a NaN one
            return None, samples
    if not bool(torch.isfinite(traj.log_pf).all()):
        return None, samples
    return traj.sequences()[_best_trajectory(traj.cost)], samples


def _best_trajectory(cost: torch.Tensor) -> int:
    """Index of the cheapest sampled trajectory (the inference keeps the best of its samples)."""
    return int(torch.argmin(cost))


@_dispatch
def _solve(problem: TSPInstance, algorithm: HBG, options: SolveOptions) -> Solution:
    model, meta = _model_for(algorithm, "tsp", problem.n)
    if options.maxiters == 0:
        return not_started(problem, options, "HBG")
    seq, samples = _decode(model, problem, algorithm, options)
    if seq is None:
        return finish(problem, None, math.nan, RetCode.Diverged, options, samples)
    tour = seq[:-1] if len(seq) == problem.n + 1 else seq
    if algorithm.local_search and is_valid_tsp(problem, tour):
        tour, _, _ = two_opt(problem.distances, tour)
    if not is_valid_tsp(problem, tour):
        return finish(problem, tour, math.nan, RetCode.Failure, options, samples)
    value = tsp_cost(problem, tour)
    return finish(
        problem,
        [int(v) for v in tour],
        value,
        RetCode.Success if math.isfinite(value) else RetCode.Failure,
        options,
        samples,
        original=copy.deepcopy(meta),  # the cached dict: a user edit of sol.original reached the next solve
    )


@_dispatch
def _solve(problem: CVRPInstance, algorithm: HBG, options: SolveOptions) -> Solution:
    model, meta = _model_for(algorithm, "cvrp", problem.n_customers)
    if options.maxiters == 0:
        return not_started(problem, options, "HBG")
    seq, samples = _decode(model, problem, algorithm, options)
    if seq is None:
        return finish(problem, None, math.nan, RetCode.Diverged, options, samples)
    routes = routes_from_sequence(seq)
    if algorithm.local_search and is_valid_cvrp(problem, routes):
        routes = [_route_two_opt(problem.distances, r, 10_000, DEFAULT_REL_TOL)[0]
                  for r in routes]
    if not is_valid_cvrp(problem, routes):
        return finish(problem, routes, math.nan, RetCode.Failure, options, samples)
    value = cvrp_cost(problem, routes)
    return finish(
        problem,
        routes,
        value,
        RetCode.Success if math.isfinite(value) else RetCode.Failure,
        options,
        samples,
        original=copy.deepcopy(meta),  # the cached dict: a user edit of sol.original reached the next solve
    )
