"""The GFlowNet of HBG in plain torch: kNN-graph GNN encoder, masked autoregressive decoder,
state flow, and the TB, DB and hybrid losses with the symmetric backward policy.

Construction (Section 3.1): a state is the node sequence built so far from the start node
(TSP: node 0; CVRP: the depot, node 0); an action appends a feasible node. TSP: the n-1
customer picks are followed by a closing transition back to node 0 (``P_F = 1``). CVRP: from
the depot any unvisited customer; from a customer any unvisited customer whose demand fits
the remaining load, or the depot; the run ends back at the depot with every customer served.

Encoder: node features (TSP: x, y; CVRP: x, y, demand/Q, is-depot) and edge distances on a
k-nearest-neighbour graph (``k = max(5, n // 5)`` capped at n-1, as AGFN/GFACS; CVRP keeps
every depot edge), L gated residual message-passing layers on nodes and edges (Appendix A.1 is
a GCN of this kind [48]); an MLP maps edge embeddings to a heatmap logit η_ij. Decoder: from
current node i in state s, ``P_F(j | s) ∝ exp(η_ij + ⟨c(s), W_k h_j⟩/√d)`` over feasible j,
where the context ``c(s)`` is an MLP of (h_i, mean of visited h, h_start, remaining load/Q,
fraction of nodes left). Flow head (Eq. 8): ``log F̃(s) = MLP(c(s)) + a·log Γ(r+1) + b·r``
with r the number of customers left (learned a, b; a = 1 matches a uniform policy's count of
completions, so the scale of the flow is reachable from the start); ``log Z = log F̃(s_0)``.

Reward: ``log R(x) = −β (cost(x) − c̄)``, c̄ the mean cost of the other samples of the same
instance (the AGFN/HBG baseline; ``center=False`` drops it, used when the target must be a
fixed distribution). Energies per transition are ``e_t = β (d(x_t, x_{t+1}) − ē_t)``, ē_t the
mean over samples at step t (Eq. 9), so Σ_t e_t = β (cost − c̄).

Backward policy. TSP (start fixed at 0): a tour has 2 constructions (its two directions), so
``log P_B(τ) = −log 2``, put on the closing transition. CVRP: a solution with m routes, a of
them with two or more customers, has ``m!·2^a`` constructions (route order × direction;
Statement 1, the closed form B(A_a, J_j) = (a+j)!·2^a), so ``log P_B(τ) = −log Γ(m+1) −
a·log 2`` (Statement 2). Step-wise (for DB) we use the factorisation that multiplies to it:
when a route is closed at the depot and m routes are complete, ``log P_b = −log m − [route
has ≥ 2 customers]·log 2``, other steps ``P_b = 1``. (Statement 3's uniform 1/(2a+j) over
parent transitions does not multiply to Statement 2 when both route kinds are present; see
:func:`paper_stepwise_log_pb` and the note.)

Losses (Section 3.2):

* TB: ``(log Z + Σ_t log P_F − log R(x) − log P_B(τ))²``, mean over trajectories.
* DB with forward-looking flows [37]: per transition
  ``δ_t = log F̃(s_t) + log P_F(s_{t+1}|s_t) − log F̃(s_{t+1}) − log P_b(s_t|s_{t+1}) + e_t``
  with ``log F̃(s_0) = log Z`` and ``log F̃(x) = 0`` at the terminal; loss mean of δ_t². Summed
  along a trajectory the δ_t telescope to the TB residual.
* Hybrid (Eq. 11): ``TB + w·DB`` with ``w = 1`` as in the released code (the adaptivity is the
  per-step relative energy of Eq. 9, whose scale follows the spread of the samples, and the β
  schedule of training).

References
----------
N. Zhang, Z. Cao. Hybrid-Balance GFlowNet for Solving Vehicle Routing Problems. NeurIPS 2025,
arXiv:2510.04792. N. Malkin et al. Trajectory balance, NeurIPS 2022. L. Pan et al. Better
training of GFlowNets with local credit and incomplete trajectories (forward-looking), ICML 2023.

>>> import torch
>>> from algorithms.routing.problem import random_tsp
>>> torch.manual_seed(0) is not None
True
>>> model = RoutingGFlowNet("tsp", hidden=16, layers=2)
>>> batch = encode_instances(model, [random_tsp(6, seed=0)])
>>> traj = rollout(model, batch, samples=4, generator=torch.Generator().manual_seed(0))
>>> traj.log_pf.shape[0], bool(torch.isfinite(tb_loss(traj)))
(4, True)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from algorithms._modules import (
    CheckedStateModule,
    check_parameter_values,
    check_structure,
    fix_attributes,
    remember_structure,
)
from algorithms._validation import (
    CheckedRecord,
    allocates,
    check_bool,
    check_choice,
    check_count,
    check_device,
    check_entries_in_range,
    check_finite_data,
    check_fits_memory,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_positive_int,
)
from algorithms.routing.problem import CVRPInstance, TSPInstance, route_lists

__all__ = [
    "Batch",
    "RoutingGFlowNet",
    "Trajectories",
    "cvrp_log_pb",
    "db_loss",
    "db_residuals",
    "encode_instances",
    "hybrid_loss",
    "knn_adjacency",
    "paper_stepwise_log_pb",
    "rollout",
    "tb_loss",
    "tb_residuals",
    "trajectory_loss",
    "tsp_log_pb",
]

LOG2 = math.log(2.0)
PROBLEMS = ("tsp", "cvrp")
MODES = ("sample", "greedy", "depot", "forced")
LOSSES = ("tb", "db", "hybrid")


def tsp_log_pb(n: int) -> float:
    """log P_B of a TSP trajectory (start fixed at node 0): −log 2 (the two directions), n >= 3.

    >>> round(tsp_log_pb(5), 6)
    -0.693147
    """
    check_positive_int("n", n)
    if n < 3:
        raise ValueError(f"n must be >= 3, got {n}")
    return -LOG2


def cvrp_log_pb(routes: Any) -> float:
    """Closed-form log P_B of a CVRP solution: −log Γ(m+1) − (#routes with ≥ 2 customers)·log 2.

    ``routes``: a non-empty list of non-empty routes, each a list of customer ints >= 1 (the depot 0 is not
    written), every customer at most once; anything else is refused naming routes.

    >>> round(cvrp_log_pb([[1, 2], [3]]), 6) == round(-math.log(2) - math.log(2), 6)
    True
    """
    routes = route_lists("routes", routes)
    if not routes or any(len(r) == 0 for r in routes):
        raise ValueError(f"routes must be a non-empty list of non-empty routes, got {routes!r}")
    customers = [c for r in routes for c in r]
    if min(customers) < 1 or len(set(customers)) != len(customers):  # [[1], [1]], [[0, 1]], [[-1]] were taken
        raise ValueError(f"routes must visit customers >= 1 (no depot 0 inside a route), each once, got "
                         f"{routes!r:.80}")
    m = len(routes)
    multi = sum(1 for r in routes if len(r) >= 2)
    return -math.lgamma(m + 1) - multi * LOG2


def paper_stepwise_log_pb(a: int, j: int, multi: bool) -> float:
    """Statement 3 as printed: one backward transition out of a depot state with ``a`` multi-node
    and ``j`` single-node completed routes has probability 1/(2a + j) (whichever route it opens).
    ``a`` and ``j`` are ints >= 0 with a + j >= 1; ``multi`` (a bool) says whether the opened route is a
    multi-node one (then a >= 1) or a single-node one (then j >= 1).

    >>> round(paper_stepwise_log_pb(1, 1, True), 6) == round(-math.log(3), 6)
    True
    """
    a, j = check_int_at_least("a", a, 0), check_int_at_least("j", j, 0)  # None, "2", 1.5: by name
    multi = check_bool("multi", multi)
    if a < 0 or j < 0 or a + j == 0:
        raise ValueError(f"a and j must be >= 0 with a + j >= 1, got a={a}, j={j}")
    if (multi and a == 0) or (not multi and j == 0):
        raise ValueError(f"multi = {multi} opens a {'multi' if multi else 'single'}-node route, but the "
                         f"state has {'a' if multi else 'j'} = 0 of them: the opened route's kind must be "
                         f"present in the state (a = {a}, j = {j})")
    return -math.log(2 * a + j)


def knn_adjacency(dist: torch.Tensor, k: int, depot: bool) -> torch.Tensor:
    """(B, n, n) float mask of the k-nearest-neighbour graph (each node to its k nearest),
    symmetrised; with ``depot`` every edge at node 0 is kept."""
    if not isinstance(dist, torch.Tensor) or dist.ndim != 3:
        raise TypeError(f"dist must be a (B, n, n) torch tensor, got {type(dist).__name__}")
    if not dist.is_floating_point():  # complex met topk's "does not support complex dtypes"
        raise TypeError(f"dist must be a real floating tensor, got {dist.dtype}")
    k = check_positive_int("k", k)
    depot = check_bool("depot", depot)
    if dist.shape[1] != dist.shape[2]:
        raise ValueError(f"dist must be a (B, n, n) tensor (square per instance), got shape "
                         f"{tuple(dist.shape)}")
    _check_distances("dist", dist)  # a NaN matrix was answered an adjacency
    n = dist.shape[-1]
    k = min(k, n - 1)
    d = dist.clone()
    d.diagonal(dim1=-2, dim2=-1).fill_(math.inf)
    idx = d.topk(k, dim=-1, largest=False).indices
    adj = torch.zeros_like(dist)
    adj.scatter_(-1, idx, 1.0)
    adj = torch.maximum(adj, adj.transpose(-1, -2))
    if depot:
        adj[:, 0, 1:] = 1.0
        adj[:, 1:, 0] = 1.0
    return adj


def _check_distances(name: str, dist: torch.Tensor) -> None:
    """Distances: finite, >= 0 and in the working range (NaN or -5 written into a batch gave NaN or
    negative tour costs in silence)."""
    if not bool(torch.isfinite(dist).all()) or bool((dist < 0).any()):
        raise ValueError(f"{name} must hold finite distances >= 0 (no NaN, inf or negative entries)")
    check_entries_in_range(name, dist)


class _Layer(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.node_self = nn.Linear(d, d)
        self.node_msg = nn.Linear(d, d)
        self.edge_self = nn.Linear(d, d)
        self.edge_src = nn.Linear(d, d)
        self.edge_dst = nn.Linear(d, d)
        self.node_norm = nn.LayerNorm(d)
        self.edge_norm = nn.LayerNorm(d)

    def forward(
        self, h: torch.Tensor, e: torch.Tensor, adj: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        # h (B, n, d), e (B, n, n, d), adj (B, n, n)
        e_new = e + torch.relu(
            self.edge_norm(
                self.edge_self(e) + self.edge_src(h)[:, :, None, :] + self.edge_dst(h)[:, None, :, :]
            )
        )
        gate = torch.sigmoid(e_new) * adj[..., None]
        msg = (gate * self.node_msg(h)[:, None, :, :]).sum(2) / (gate.sum(2) + 1e-6)
        h_new = h + torch.relu(self.node_norm(self.node_self(h) + msg))
        return h_new, e_new


#: the widest embedding and deepest GNN RoutingGFlowNet builds (the paper: 32-128 wide, a few layers)
MAX_HIDDEN = 4096
MAX_LAYERS = 100
#: a model's encoder token: which model encoded a Batch (see _check_encoded_by)
_ENCODER_TOKENS = itertools.count()


class RoutingGFlowNet(CheckedStateModule):
    """Encoder, decoder and flow head of the routing GFlowNet (see the module docstring).

    ``problem`` is "tsp" or "cvrp"; ``hidden`` the embedding width, an int in [1, 4096] (``MAX_HIDDEN``);
    ``layers`` the GNN depth, an int in [1, 100] (``MAX_LAYERS``: 2**31 layers built for minutes, then ran out
    of memory); ``k`` the kNN degree, None (max(5, n // 5)) or an int >= 1 (capped at n − 1).
    ``load_state_dict`` refuses, by name, NaN/inf or non-floating weights, wrong shapes and missing or
    unexpected keys (strict), as the package's other models do; its parameters are float32 or float64 (one
    converted to half precision after construction is refused by ``encode``); ``problem``, ``hidden`` and
    ``layers`` cannot be reassigned after construction, and a layer or parameter replaced or added after it
    (``model.gnn.append(...)``, ``model.heat = ...`` of another shape) is refused by name at the next use.
    """

    _FIXED = ("problem", "hidden", "layers")

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)

    @allocates("hidden", "layers")
    def __init__(self, problem: str = "tsp", hidden: int = 32, layers: int = 3, k: int | None = None) -> None:
        super().__init__()
        self.problem = check_choice("problem", problem, PROBLEMS)
        self.hidden = check_count("hidden", hidden, 1, MAX_HIDDEN, "the embedding width")
        self.layers = check_count("layers", layers, 1, MAX_LAYERS, "GNN layers, each built and run")
        self.k = None if k is None else check_positive_int("k", k)
        d = self.hidden
        in_dim = 2 if problem == "tsp" else 4
        self.node_in = nn.Linear(in_dim, d)
        self.edge_in = nn.Linear(1, d)
        self.gnn = nn.ModuleList([_Layer(d) for _ in range(self.layers)])
        self.heat = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 1))
        self.key = nn.Linear(d, d, bias=False)
        self.context = nn.Sequential(nn.Linear(3 * d + 2, d), nn.ReLU(), nn.Linear(d, d))
        self.flow = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 1))
        self.flow_count = nn.Parameter(torch.tensor(1.0))  # a: weight of log Γ(r+1)
        self.flow_linear = nn.Parameter(torch.tensor(0.0))  # b: weight of r
        remember_structure(self)
        # which model encoded a Batch (a copy or a pickle of this model keeps it): rollout compares it
        self.__dict__["_encoder_token"] = object.__repr__(self) + f"/{next(_ENCODER_TOKENS)}"
        fix_attributes(self)  # a misspelt public name set later is refused (stored and ignored before)

    def config(self) -> dict[str, Any]:
        return {"problem": self.problem, "hidden": self.hidden, "layers": self.layers, "k": self.k}

    def _check_layers(self) -> None:
        """The layers as built: one replaced by another shape, or added, is refused by name; so is a weight
        written in place that is NaN/inf or past the working range (|w| <= 3.4e38)."""
        check_structure(self)
        check_parameter_values(self)  # 1e39 ran in silence, NaN met torch's multinomial error
        if len(self.gnn) != self.layers:  # model.gnn.append(model.gnn[0]) (shared weights) ran one more layer
            raise ValueError(f"RoutingGFlowNet.gnn must hold its {self.layers} layers (layers, fixed at "
                             f"construction), got {len(self.gnn)}: build a new RoutingGFlowNet")
        if self.node_in.out_features != self.hidden:  # a whole-model pickle restored hidden = 7 (32 wide)
            raise ValueError(f"RoutingGFlowNet.hidden = {self.hidden!r} does not match its layers' width "
                             f"{self.node_in.out_features} (a loaded model's setting): build a new "
                             f"RoutingGFlowNet")

    def _check_dtype(self) -> torch.Tensor:
        """The first weight, float32 or float64 as built (.half() or .to(complex) since: refused)."""
        reference = self.node_in.weight
        if reference.dtype not in (torch.float32, torch.float64):  # .half() or a half state dict assigned
            raise TypeError(f"RoutingGFlowNet must have float32 or float64 parameters, got {reference.dtype} "
                            f"(convert it with .float() or .double())")
        return reference

    def _check_encode_inputs(self, node_x: Any, dist: Any) -> None:
        self._check_layers()
        reference = self._check_dtype()
        features = 2 if self.problem == "tsp" else 4
        for name, value in (("node_x", node_x), ("dist", dist)):
            if not isinstance(value, torch.Tensor) or not value.is_floating_point():
                raise TypeError(f"{name} must be a real floating torch tensor, got "
                                f"{getattr(value, 'dtype', type(value).__name__)}")
            if value.dtype != reference.dtype:
                raise TypeError(f"{name} must have the model's dtype {reference.dtype}, got {value.dtype}")
            check_device(name, value, reference)
        if node_x.ndim != 3 or node_x.shape[-1] != features:
            raise ValueError(f"node_x must have shape (B, n, {features}) for {self.problem}, got "
                             f"{tuple(node_x.shape)}")
        expected = (*node_x.shape[:2], node_x.shape[1])
        if tuple(dist.shape) != expected:
            raise ValueError(f"dist must have shape (B, n, n) = {expected} (node_x's B and n), got "
                             f"{tuple(dist.shape)}")
        check_finite_data("node_x", node_x)

    def encode(self, node_x: torch.Tensor, dist: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(heatmap logits (B, n, n), zero on the diagonal (never feasible), node embeddings (B, n, d)).

        ``node_x`` (B, n, features) (features 2 for "tsp", 4 for "cvrp") and ``dist`` (B, n, n), the same B
        and n: finite real tensors of the model's dtype (float32 or float64) and device, each refused by name
        otherwise (a NaN node_x gave a NaN heatmap, a batch of 2 broadcast against one of 1, in silence)."""
        self._check_encode_inputs(node_x, dist)
        n = dist.shape[-1]
        k = self.k if self.k is not None else max(5, n // 5)
        adj = knn_adjacency(dist, k, depot=self.problem == "cvrp")
        h = self.node_in(node_x)
        e = self.edge_in(dist[..., None])
        for layer in self.gnn:
            h, e = layer(h, e, adj)
        heat = self.heat(e).squeeze(-1)
        eye = torch.eye(n, dtype=torch.bool, device=dist.device)
        heat = heat.masked_fill(eye, 0.0)
        return heat, h


@dataclass
class Batch(CheckedRecord):
    """Instances of one size, encoded: tensors shared by a rollout. Each row's ``dist``, ``units``, ``demand``
    and ``capacity`` must be its instance's, as :func:`encode_instances` gives them (refused by name
    otherwise). A field set after construction is checked at once (refused by name, the batch unchanged); a
    name that is not a field raises UnknownAttributeError."""

    problem: str
    dist: torch.Tensor  # (B, n, n)
    heat: torch.Tensor  # (B, n, n)
    h: torch.Tensor  # (B, n, d)
    keys: torch.Tensor  # (B, n, d)
    demand: torch.Tensor  # (B, n), load units / capacity (zeros for TSP)
    units: torch.Tensor  # (B, n) integer demands (zeros for TSP)
    capacity: torch.Tensor  # (B,) integer capacity (1 for TSP)
    instances: list

    def __post_init__(self) -> None:
        check_batch(self)
        self._checked()  # later sets are checked; a misspelt name (batch.hh = ...) was stored and ignored


def check_batch(batch: Batch) -> None:
    """A batch built or edited by hand, checked by name before a rollout uses it: a known problem, (B, n, n)
    distances that are finite, >= 0 and in range, heat of their shape, one instance per row, and each row's
    distances, demands (``units``, ``demand``) and ``capacity`` those of its instance (a NaN or
    negative ``dist`` gave NaN or negative costs, "cvrp" on a TSP batch changed the costs, a wrong
    shape met torch's errors)."""
    check_choice("problem", batch.problem, ("tsp", "cvrp"))
    for name in ("dist", "heat", "h", "keys", "demand", "units", "capacity"):
        if not isinstance(getattr(batch, name), torch.Tensor):
            raise TypeError(f"batch.{name} must be a torch tensor, got {type(getattr(batch, name)).__name__}")
    dist = batch.dist
    if dist.ndim != 3 or dist.shape[1] != dist.shape[2] or not dist.is_floating_point():
        raise ValueError(f"batch.dist must be a real (B, n, n) tensor, got shape {tuple(dist.shape)}")
    _check_distances("batch.dist", dist)
    B, n = dist.shape[0], dist.shape[1]
    # heat is the model's output: NaN from a broken checkpoint is HBG's Diverged (documented), not refused
    if tuple(batch.heat.shape) != (B, n, n):
        raise ValueError(f"batch.heat must be a ({B}, {n}, {n}) tensor, got shape "
                         f"{tuple(batch.heat.shape)}")
    for name in ("demand", "units"):
        if tuple(getattr(batch, name).shape) != (B, n):
            raise ValueError(f"batch.{name} must have shape ({B}, {n}), got "
                             f"{tuple(getattr(batch, name).shape)}")
    if tuple(batch.capacity.shape) != (B,) or tuple(batch.h.shape[:2]) != (B, n):
        raise ValueError(f"batch.capacity must have shape ({B},) and batch.h ({B}, {n}, d)")
    is_cvrp = [isinstance(i, CVRPInstance) for i in batch.instances]
    if not isinstance(batch.instances, list) or len(batch.instances) != B or any(
            is_cvrp[k] != (batch.problem == "cvrp") for k in range(len(is_cvrp))):
        raise ValueError(f"batch.instances must be a list of {B} {batch.problem.upper()} instances (one per "
                         f"row of batch.dist)")
    for k, inst in enumerate(batch.instances):  # another batch's dist or instances: costs reported for others
        if inst.coords.shape[0] != n or not torch.allclose(
                batch.dist[k].detach(), _features(inst, dist.dtype)[1], rtol=1e-5, atol=1e-12):
            raise ValueError(f"batch.dist[{k}] must be the distances of batch.instances[{k}] (as "
                             f"encode_instances gives them), got another matrix")
    _check_loads(batch)


def _check_loads(batch: Batch) -> None:
    """``units``, ``capacity`` and ``demand`` as encode_instances gives them for ``batch.instances``: units =
    -3, a NaN demand or capacity 0 written into a batch was rolled out in silence (routes past the capacity)
    or met torch's "probability tensor contains either inf, nan or element < 0"."""
    for name in ("units", "capacity"):
        value = getattr(batch, name)
        if value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:
            raise TypeError(f"batch.{name} must be an int tensor, got {value.dtype}")
    cvrp = batch.problem == "cvrp"
    for k, inst in enumerate(batch.instances):
        units = np.asarray(inst.demands, dtype=np.int64) if cvrp else np.zeros(inst.coords.shape[0], np.int64)
        capacity = int(inst.capacity) if cvrp else 1
        demand = units / capacity
        if not np.array_equal(batch.units[k].detach().cpu().numpy(), units):
            raise ValueError(f"batch.units[{k}] must be the integer demands of batch.instances[{k}] (zeros "
                             f"for TSP, as encode_instances gives them), got {batch.units[k].tolist()!r:.80}")
        if int(batch.capacity[k]) != capacity:
            raise ValueError(f"batch.capacity[{k}] must be the capacity of batch.instances[{k}] (1 for TSP, "
                             f"as encode_instances gives it), got {int(batch.capacity[k])}")
        got = batch.demand[k].detach().cpu().to(torch.float64).numpy()
        if not np.allclose(got, demand, rtol=1e-5, atol=1e-12):  # NaN: not close
            raise ValueError(f"batch.demand[{k}] must be batch.instances[{k}]'s demands / capacity (as "
                             f"encode_instances gives them), got {got.tolist()!r:.80}")


def _unit_box(coords: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates and distances as the network was trained on them (points of the unit square): an
    instance outside it is translated and scaled uniformly, which leaves every tour's rank unchanged
    (the solve's cost is then computed from the instance's own distances). The network saw raw
    coordinates before, so its answer depended on the unit: 114.7 % above optimal at 1e7 (Success).
    Instances inside the unit square that span at least half of it (the training data's kind) are passed
    unchanged; one in a smaller box is scaled up too (a TSP in a 1e-3 box reached the network as near-zero
    coordinates: tours 2.1-2.6 times as long as at scale 1, Success)."""
    if coords.size == 0:
        return coords, dist
    low = coords.min(axis=0)
    span = float((coords.max(axis=0) - low).max())
    if coords.min() >= 0.0 and coords.max() <= 1.0 and span >= 0.5:
        return coords, dist
    span = span if span > 0 else 1.0
    return (coords - low) / span, dist / span


def _features(
    inst: TSPInstance | CVRPInstance, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    coords, dist = _unit_box(np.array(inst.coords, dtype=np.float64),
                             np.array(inst.distances, dtype=np.float64))
    coords, dist = torch.tensor(coords, dtype=dtype), torch.tensor(dist, dtype=dtype)
    if isinstance(inst, CVRPInstance):
        dem = torch.as_tensor(np.asarray(inst.demands) / inst.capacity, dtype=dtype)
        depot = torch.zeros_like(dem)
        depot[0] = 1.0
        x = torch.cat([coords, dem[:, None], depot[:, None]], dim=1)
    else:
        dem = torch.zeros(coords.shape[0], dtype=dtype)
        x = coords
    return x, dist, dem


def encode_instances(model: RoutingGFlowNet, instances: list) -> Batch:
    """Encode instances of one problem type and size with ``model``."""
    if not isinstance(model, RoutingGFlowNet):
        raise TypeError(f"model must be a RoutingGFlowNet, got {type(model).__name__}")
    if not instances:
        raise ValueError("instances must be a non-empty list")
    want = TSPInstance if model.problem == "tsp" else CVRPInstance
    sizes = set()
    for inst in instances:
        if not isinstance(inst, want):
            raise TypeError(
                f"instances must be {want.__name__}s for a {model.problem} model, got {type(inst).__name__}"
            )
        sizes.add(inst.coords.shape[0])
    if len(sizes) != 1:
        raise ValueError(f"instances must have one size, got sizes {sorted(sizes)}")
    dtype = next(model.parameters()).dtype
    feats = [_features(inst, dtype) for inst in instances]
    x = torch.stack([f[0] for f in feats])
    dist = torch.stack([f[1] for f in feats])
    dem = torch.stack([f[2] for f in feats])
    heat, h = model.encode(x, dist)
    if model.problem == "cvrp":
        units = torch.tensor(np.stack([np.asarray(i.demands) for i in instances]), dtype=torch.long)
        cap = torch.tensor([int(i.capacity) for i in instances], dtype=torch.long)
    else:
        units = torch.zeros(dem.shape, dtype=torch.long)
        cap = torch.ones(len(instances), dtype=torch.long)
    batch = Batch(model.problem, dist, heat, h, model.key(h), dem, units, cap, list(instances))
    batch.__dict__["_encoded_by"] = model.__dict__.get("_encoder_token")
    return batch


def _check_encoded_by(model: RoutingGFlowNet, batch: Batch) -> None:
    """A batch :func:`encode_instances` made with another model of the same width (red25b: A's encodings
    went through B's decoder in silence: other actions, log-probabilities and costs than B's own) is refused,
    unless this model encodes its instances to the same tensors (its weights loaded from that model)."""
    token = batch.__dict__.get("_encoded_by")
    if token is None or token == model.__dict__.get("_encoder_token", token):
        return
    dtype = batch.h.dtype
    with torch.no_grad():
        x = torch.stack([_features(inst, dtype)[0] for inst in batch.instances])
        heat, h = model.encode(x, batch.dist.detach())
    if not (torch.equal(heat, batch.heat.detach()) and torch.equal(h, batch.h.detach())):
        raise ValueError("batch was encoded by another model (encode_instances(other, ...)); a rollout runs "
                         "this model's decoder on its own encodings: call encode_instances(model, ...) with "
                         "this model")


@dataclass
class Trajectories(CheckedRecord):
    """A batch of M = B·S trajectories, padded to T transitions.

    ``actions`` (M, T) node chosen at each transition (−1 padding); ``log_pf``, ``log_pb``,
    ``step_cost`` (M, T); ``log_flow`` (M, T+1): log F̃ of s_0 (= log Z), ..., with 0 at the
    terminal and after; ``valid`` (M, T) real transitions; ``cost`` (M,) total length;
    ``instance`` (M,) index into the batch; ``samples`` S, an int >= 1 dividing M. Checked by name at
    construction, at once when a field is set afterwards (a name that is not a field raises
    UnknownAttributeError), and again by every loss and residual (a field replaced in place too): the
    shapes, an int ``actions``/``instance``, a bool ``valid``, floating log-probabilities and costs, finite
    where they count (``log_pf``/``log_pb`` on valid transitions, ``log_flow``, ``step_cost``, ``cost``), and
    what the records mean: ``log_pf``/``log_pb`` <= 0 on valid transitions (1e-5 of rounding allowed),
    ``valid`` a prefix of each row, ``instance`` >= 0 and one value per block of ``samples`` consecutive rows.
    The reward's ``beta`` and ``center`` are the losses' arguments.
    """

    actions: torch.Tensor
    log_pf: torch.Tensor
    log_pb: torch.Tensor
    step_cost: torch.Tensor
    log_flow: torch.Tensor
    valid: torch.Tensor
    cost: torch.Tensor
    instance: torch.Tensor
    samples: int

    def __post_init__(self) -> None:
        check_trajectories(self)
        self._checked()  # later sets are checked; a misspelt name (traj.cosst = ...) was stored and ignored

    @property
    def log_z(self) -> torch.Tensor:
        return self.log_flow[:, 0]

    def energies(self, beta: float, center: bool = True) -> torch.Tensor:
        """β·(step cost − mean over the instance's samples at that step) (Eq. 9); (M, T), zero
        on padding. ``center=False``: β·(step cost)."""
        check_trajectories(self)  # a field replaced since construction (samples = M regrouped in silence)
        center = check_bool("center", center)
        beta = check_positive("beta", beta)
        e = self.step_cost
        if center:
            S = self.samples
            grouped = e.reshape(-1, S, e.shape[1])
            e = (grouped - grouped.mean(1, keepdim=True)).reshape(e.shape)
            # a shorter trajectory (CVRP, fewer routes) would miss the baselines of the steps it
            # does not take; fold them into its last transition so that Σ_t e_t = cost − c̄ exactly
            pad = torch.where(self.valid, torch.zeros_like(e), e).sum(1)
            last = self.valid.sum(1) - 1
            e = torch.where(self.valid, e, torch.zeros_like(e))
            e = e.index_put((torch.arange(e.shape[0]), last), pad, accumulate=True)
        return beta * e

    def log_reward(self, beta: float, center: bool = True) -> torch.Tensor:
        """log R(x) = −β (cost − c̄); (M,); ``beta`` a finite float > 0 in the working range."""
        center = check_bool("center", center)
        beta = check_positive("beta", beta)  # 1e39 gave NaN rewards in silence
        return -self.energies(beta, center).sum(1)

    def sequences(self) -> list[list[int]]:
        """Node sequences from the start node (TSP: the tour; CVRP: depot-delimited)."""
        check_trajectories(self)  # actions replaced since construction
        out = []
        for row in self.actions.tolist():
            out.append([0] + [a for a in row if a >= 0])
        return out


def _context(
    model: RoutingGFlowNet,
    batch: Batch,
    inst: torch.Tensor,
    cur: torch.Tensor,
    visited: torch.Tensor,
    load: torch.Tensor,
    left: torch.Tensor,
    n: int,
) -> torch.Tensor:
    h = batch.h[inst]  # (M, n, d)
    h_cur = h[torch.arange(h.shape[0]), cur]
    vis = visited.to(h.dtype)
    h_vis = (vis[..., None] * h).sum(1) / vis.sum(1, keepdim=True).clamp_min(1.0)
    feats = torch.cat([h_cur, h_vis, h[:, 0], load[:, None], (left / n)[:, None]], dim=1)
    return model.context(feats)


def _log_flow(model: RoutingGFlowNet, ctx: torch.Tensor, left: torch.Tensor) -> torch.Tensor:
    return (
        model.flow(ctx).squeeze(-1) + model.flow_count * torch.lgamma(left + 1.0) + model.flow_linear * left
    )


def _policy_logp(
    model: RoutingGFlowNet,
    batch: Batch,
    inst: torch.Tensor,
    cur: torch.Tensor,
    ctx: torch.Tensor,
    mask: torch.Tensor,
) -> torch.Tensor:
    d = ctx.shape[-1]
    heat = batch.heat[inst, cur]  # (M, n)
    att = torch.einsum("md,mnd->mn", ctx, batch.keys[inst]) / math.sqrt(d)
    logits = (heat + att).masked_fill(~mask, -math.inf)
    return torch.log_softmax(logits, dim=-1)


def _choose(
    logp: torch.Tensor,
    mode: str,
    at_depot: torch.Tensor,
    generator: torch.Generator | None,
    forced: torch.Tensor | None,
) -> torch.Tensor:
    if mode == "forced":
        return forced
    probs = logp.exp()
    greedy = logp.argmax(-1)
    if mode == "greedy":
        return greedy
    sample = torch.multinomial(probs.detach(), 1, generator=generator).squeeze(-1)
    if mode == "depot":
        return torch.where(at_depot, sample, greedy)
    return sample


def rollout(
    model: RoutingGFlowNet,
    batch: Batch,
    samples: int,
    mode: str = "sample",
    generator: torch.Generator | None = None,
    actions: torch.Tensor | None = None,
) -> Trajectories:
    """Build ``samples`` trajectories per instance of ``batch``.

    ``mode``: "sample" (from P_F), "greedy" (argmax), "depot" (depot-guided, Eq. 12: sample
    when the current node is the depot, greedy elsewhere; for TSP the start node plays the
    depot, so only the first pick is sampled), "forced" (follow ``actions`` (M, T), used to
    score given trajectories). ``batch`` must come from :func:`encode_instances` with this ``model`` (one
    encoded by another model is refused by name, unless this model encodes its instances to the same tensors).
    """
    check_positive_int("samples", samples)
    check_choice("mode", mode, MODES)
    if not isinstance(model, RoutingGFlowNet):  # None met an AttributeError on .context
        raise TypeError(f"model must be a RoutingGFlowNet, got {type(model).__name__}")
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a Batch (from encode_instances), got {type(batch).__name__}")
    check_batch(batch)  # a Batch is a mutable record: edited in place since encode_instances
    for name in ("heat", "h", "keys"):  # NaN or 1e39 met torch's "probability tensor contains nan"
        check_finite_data(f"batch.{name}", getattr(batch, name))
        check_entries_in_range(f"batch.{name}", getattr(batch, name))
    model._check_layers()  # a layer replaced since the batch was encoded
    reference = model._check_dtype()
    check_device("batch.h", batch.h, reference)  # the model moved since (.to("meta")): torch's device error
    dtype = reference.dtype
    if batch.h.dtype != dtype:  # the model converted since it encoded the batch: torch's "mat1 and mat2"
        raise TypeError(f"batch must be encoded by this model in its dtype {dtype}, got a batch of dtype "
                        f"{batch.h.dtype}: call encode_instances(model, ...) again")
    if batch.h.shape[-1] != model.hidden or batch.problem != model.problem:  # torch's "mat1 and mat2" error
        raise ValueError(f"batch must be encoded by this model ({model.problem}, hidden = "
                         f"{model.hidden}), got a {batch.problem} batch of width {batch.h.shape[-1]}; "
                         f"encode_instances(model, ...) again")
    _check_encoded_by(model, batch)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    B, n, _ = batch.dist.shape
    S = samples
    M = B * S
    check_fits_memory("rollout", "samples", samples, 8.0 * M * n * (n + 8))  # 2**40: torch's allocator error
    if mode == "forced":
        if (not isinstance(actions, torch.Tensor) or actions.ndim != 2 or actions.shape[0] != M
                or actions.is_floating_point() or actions.is_complex() or actions.dtype == torch.bool):
            raise ValueError(f"actions must be an int (M = {M}, T) tensor in mode 'forced', got "
                             f"{type(actions).__name__} {getattr(actions, 'dtype', '')} of shape "
                             f"{tuple(getattr(actions, 'shape', ()))}")
        if actions.numel() and (int(actions.min()) < -1 or int(actions.max()) >= n):
            raise ValueError(f"actions must hold node indices in [0, {n}) (or -1 padding), got range "
                             f"[{int(actions.min())}, {int(actions.max())}]")
        actions = actions.long()
    dtype = batch.dist.dtype
    inst = torch.arange(B).repeat_interleave(S)
    rows = torch.arange(M)
    cur = torch.zeros(M, dtype=torch.long)
    visited = torch.zeros(M, n, dtype=torch.bool)
    visited[:, 0] = True
    load = torch.ones(M, dtype=dtype)  # remaining load / capacity (TSP: unused, stays 1)
    n_routes = torch.zeros(M, dtype=dtype)
    route_len = torch.zeros(M, dtype=torch.long)
    done = torch.zeros(M, dtype=torch.bool)
    left = torch.full((M,), float(n - 1), dtype=dtype)
    units = batch.units[inst]
    cap = batch.capacity[inst]
    load_units = cap.clone()
    zero = torch.zeros(M, dtype=dtype)
    ctx = _context(model, batch, inst, cur, visited, load, left, n)
    flows = [_log_flow(model, ctx, left)]
    acts, lpf, lpb, cst, val = [], [], [], [], []
    T_max = n if batch.problem == "tsp" else 2 * (n - 1)
    for t in range(T_max):
        if batch.problem == "tsp" and t == n - 1:  # closing transition, P_F = 1, P_b = 1/2
            a = torch.zeros(M, dtype=torch.long)
            step_pf, step_pb = zero, torch.full((M,), -LOG2, dtype=dtype)
            active = ~done
            next_flow = zero
            cost = batch.dist[inst, cur, a]
            done = torch.ones(M, dtype=torch.bool)
        else:
            active = ~done
            if batch.problem == "tsp":
                mask = ~visited
                at_depot = cur == 0
            else:
                fits = units <= load_units[:, None]
                mask = (~visited) & fits
                mask[:, 0] = cur != 0
                at_depot = cur == 0
            mask = mask | (~active)[:, None] & (torch.arange(n) == 0)[None, :]  # padded rows: dummy
            logp = _policy_logp(model, batch, inst, cur, ctx, mask)
            forced = None
            if mode == "forced":
                forced = actions[:, t].clone()
                forced[~active] = 0
                if bool((~mask[rows[active], forced[active]]).any()):
                    raise ValueError(f"actions: an infeasible action at transition {t}")
            a = _choose(logp, mode, at_depot, generator, forced)
            a = torch.where(active, a, torch.zeros_like(a))
            step_pf = torch.where(active, logp[rows, a], zero)
            cost = torch.where(active, batch.dist[inst, cur, a], zero)
            to_depot = active & (a == 0)
            to_cust = active & (a != 0)
            if batch.problem == "cvrp":
                n_routes = n_routes + to_depot.to(dtype)
                multi = (route_len >= 2).to(dtype)
                step_pb = torch.where(to_depot, -torch.log(n_routes.clamp_min(1.0)) - multi * LOG2, zero)
                load_units = torch.where(to_depot, cap, load_units - torch.where(to_cust, units[rows, a], 0))
                load = load_units.to(dtype) / cap.to(dtype)
                route_len = torch.where(to_depot, torch.zeros_like(route_len), route_len + to_cust.long())
            else:
                step_pb = zero
            visited = visited.clone()
            visited[rows[to_cust], a[to_cust]] = True
            left = left - to_cust.to(dtype)
            cur = torch.where(active, a, cur)
            if batch.problem == "cvrp":
                done = done | (active & (left == 0) & (cur == 0))
            ctx = _context(model, batch, inst, cur, visited, load, left, n)
            next_flow = torch.where(done, zero, _log_flow(model, ctx, left))
        acts.append(torch.where(active, a, torch.full_like(a, -1)))
        lpf.append(step_pf)
        lpb.append(step_pb)
        cst.append(cost)
        val.append(active)
        flows.append(torch.where(active, next_flow, zero))
        if bool(done.all()):
            break
    if not bool(done.all()):
        raise RuntimeError("rollout did not finish every trajectory (internal error)")
    traj = Trajectories(
        actions=torch.stack(acts, 1),
        log_pf=torch.stack(lpf, 1),
        log_pb=torch.stack(lpb, 1),
        step_cost=torch.stack(cst, 1),
        log_flow=torch.stack(flows, 1),
        valid=torch.stack(val, 1),
        cost=torch.stack(cst, 1).sum(1),
        instance=inst,
        samples=S,
    )
    return traj


class NonFiniteTrajectory(ValueError):
    """A trajectory record with NaN/inf where it counts: refused by name when given (a ValueError); inside
    an HBG solve it is the model's own flows overflowing (a weight of 3e38): the run is ``Diverged``."""


def check_trajectories(traj: Trajectories, name: str = "traj") -> None:
    """The fields of a :class:`Trajectories`, each refused by name (torch's shape or dtype errors inside
    the losses named nothing, and NaN log-probabilities gave a NaN loss in silence)."""
    fields = ("actions", "log_pf", "log_pb", "step_cost", "log_flow", "valid", "cost", "instance")
    for field in fields:
        if not isinstance(getattr(traj, field), torch.Tensor):
            kind = type(getattr(traj, field)).__name__
            raise TypeError(f"{name}.{field} must be a torch tensor, got {kind}")
    if traj.actions.ndim != 2:
        raise ValueError(f"{name}.actions must be (M, T), got shape {tuple(traj.actions.shape)}")
    M, T = traj.actions.shape
    shapes = {"log_pf": (M, T), "log_pb": (M, T), "step_cost": (M, T), "log_flow": (M, T + 1),
              "valid": (M, T), "cost": (M,), "instance": (M,)}
    for field, shape in shapes.items():
        got = tuple(getattr(traj, field).shape)
        if got != shape:
            raise ValueError(f"{name}.{field} must have shape {shape}, got {got}")
    for field in ("actions", "instance"):
        if getattr(traj, field).is_floating_point() or getattr(traj, field).dtype == torch.bool:
            raise TypeError(f"{name}.{field} must be an int tensor, got {getattr(traj, field).dtype}")
    if traj.valid.dtype != torch.bool:
        raise TypeError(f"{name}.valid must be a bool tensor, got {traj.valid.dtype}")
    valid = traj.valid
    for field, mask in (("log_pf", valid), ("log_pb", valid), ("log_flow", None), ("step_cost", None),
                        ("cost", None)):
        value = getattr(traj, field)
        if not value.is_floating_point():
            raise TypeError(f"{name}.{field} must be a floating tensor, got {value.dtype}")
        shown = value.detach() if mask is None else value.detach()[mask]
        if not bool(torch.isfinite(shown).all()):
            raise NonFiniteTrajectory(f"{name}.{field} contains NaN or inf entries"
                                      + (" on valid transitions" if mask is not None else ""))
    samples = check_positive_int(f"{name}.samples", traj.samples)
    if M % samples:
        raise ValueError(f"{name}.samples = {samples} must divide the number of trajectories M = {M}")
    _check_consistent(traj, name, samples)


#: a log-probability may pass 0 by this much (log_softmax's rounding)
_LOG_PROB_SLACK = 1e-5


def _check_consistent(traj: Trajectories, name: str, samples: int) -> None:
    """What the records mean, refused by name: a hand-built batch with log-probabilities of 5, a padding step
    inside a trajectory, or one instance's samples not in one block (energies are centred over consecutive
    blocks of ``samples`` rows) ran the losses in silence."""
    valid = traj.valid
    for field in ("log_pf", "log_pb"):
        value = getattr(traj, field).detach()[valid]
        if value.numel() and float(value.max()) > _LOG_PROB_SLACK:
            raise ValueError(f"{name}.{field} must hold log-probabilities (<= 0) on valid transitions, got "
                             f"{float(value.max()):.3g}")
    if bool((valid[:, 1:] & ~valid[:, :-1]).any()):
        raise ValueError(f"{name}.valid must mark a prefix of each row (the real transitions, then padding), "
                         f"got a padding step before a valid one")
    instance = traj.instance
    if bool((instance < 0).any()):
        raise ValueError(f"{name}.instance must hold batch indices >= 0, got {int(instance.min())}")
    blocks = instance.reshape(-1, samples)
    if bool((blocks != blocks[:, :1]).any()):
        raise ValueError(f"{name}.instance must group each instance's {samples} samples in consecutive rows "
                         f"(the energies are centred over them), got {instance.tolist()!r:.80}")


def _check_loss_inputs(traj: Any, beta: Any) -> float:
    """``traj`` a :class:`Trajectories` (None met an AttributeError on ``log_z``) and ``beta`` a finite float
    > 0 (None met torch's "unsupported operand"), as every loss and residual takes them."""
    if not isinstance(traj, Trajectories):
        raise TypeError(f"traj must be a Trajectories (from rollout), got {type(traj).__name__}")
    check_trajectories(traj)  # again: a field replaced after construction
    return check_positive("beta", beta)


def tb_residuals(traj: Trajectories, beta: float, center: bool = True) -> torch.Tensor:
    """log Z + Σ log P_F − log R − Σ log P_b, one per trajectory (M,); ``beta`` a finite float > 0."""
    beta = _check_loss_inputs(traj, beta)
    center = check_bool("center", center)
    return traj.log_z + traj.log_pf.sum(1) - traj.log_reward(beta, center) - traj.log_pb.sum(1)


def db_residuals(traj: Trajectories, beta: float, center: bool = True) -> torch.Tensor:
    """Forward-looking DB residuals δ_t (M, T), zero on padding; ``beta`` a finite float > 0."""
    beta = _check_loss_inputs(traj, beta)
    center = check_bool("center", center)
    e = traj.energies(beta, center)
    delta = traj.log_flow[:, :-1] + traj.log_pf - traj.log_flow[:, 1:] - traj.log_pb + e
    return torch.where(traj.valid, delta, torch.zeros_like(delta))


def tb_loss(traj: Trajectories, beta: float = 1.0, center: bool = True) -> torch.Tensor:
    """Trajectory balance: mean squared TB residual."""
    center = check_bool("center", center)
    return tb_residuals(traj, beta, center).pow(2).mean()


def db_loss(traj: Trajectories, beta: float = 1.0, center: bool = True) -> torch.Tensor:
    """Detailed balance: per trajectory the mean of δ_t² over its transitions, then the mean."""
    center = check_bool("center", center)
    delta = db_residuals(traj, beta, center)
    count = traj.valid.sum(1).clamp_min(1)
    return (delta.pow(2).sum(1) / count).mean()


def hybrid_loss(
    traj: Trajectories, beta: float = 1.0, center: bool = True, db_weight: float = 1.0
) -> torch.Tensor:
    """Hybrid balance (Eq. 11): TB + w·DB, ``db_weight`` = w a finite float >= 0."""
    center = check_bool("center", center)
    db_weight = check_nonnegative("db_weight", db_weight)
    return tb_loss(traj, beta, center) + db_weight * db_loss(traj, beta, center)


def trajectory_loss(
    traj: Trajectories, loss: str, beta: float = 1.0, center: bool = True, db_weight: float = 1.0
) -> torch.Tensor:
    """The named loss ("tb", "db", "hybrid")."""
    center = check_bool("center", center)
    check_choice("loss", loss, LOSSES)
    beta = _check_loss_inputs(traj, beta)  # a float (2**64 met torch's "int too big to convert")
    if loss == "tb":
        return tb_loss(traj, beta, center)
    if loss == "db":
        return db_loss(traj, beta, center)
    return hybrid_loss(traj, beta, center, db_weight)
