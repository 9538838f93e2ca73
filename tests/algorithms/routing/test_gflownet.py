"""The GFlowNet: feasibility of sampled trajectories, forced scoring, backward policy, losses."""

import itertools
import math
from collections import Counter

import pytest
import torch

from algorithms.routing import random_cvrp, random_tsp
from algorithms.routing.gflownet import (
    RoutingGFlowNet,
    cvrp_log_pb,
    db_loss,
    db_residuals,
    encode_instances,
    hybrid_loss,
    knn_adjacency,
    paper_stepwise_log_pb,
    rollout,
    tb_loss,
    tb_residuals,
    tsp_log_pb,
)
from algorithms.routing.problem import is_valid_cvrp, is_valid_tsp, routes_from_sequence


def _model(problem, seed=0):
    torch.manual_seed(seed)
    return RoutingGFlowNet(problem, hidden=16, layers=2)


def test_sampled_solutions_are_feasible():
    gen = torch.Generator().manual_seed(0)
    m = _model("cvrp")
    insts = [random_cvrp(12, seed=s, capacity=12) for s in range(2)]
    with torch.no_grad():
        traj = rollout(m, encode_instances(m, insts), 16, generator=gen)
    for k, seq in enumerate(traj.sequences()):
        assert seq[-1] == 0 and is_valid_cvrp(insts[k // 16], routes_from_sequence(seq))
    mt = _model("tsp")
    with torch.no_grad():
        traj = rollout(mt, encode_instances(mt, [random_tsp(9, seed=0)]), 8, generator=gen)
    assert all(is_valid_tsp(random_tsp(9, seed=0), s[:-1]) for s in traj.sequences())


def test_cost_matches_the_tour():
    inst = random_tsp(8, seed=1)
    m = _model("tsp")
    with torch.no_grad():
        traj = rollout(m, encode_instances(m, [inst]), 4, generator=torch.Generator().manual_seed(1))
    from algorithms.routing import tsp_cost

    for c, s in zip(traj.cost.tolist(), traj.sequences(), strict=True):
        assert c == pytest.approx(tsp_cost(inst, s[:-1]), rel=1e-5)


def test_forced_rollout_reproduces_sampled_log_probs():
    inst = random_cvrp(8, seed=2)
    m = _model("cvrp")
    with torch.no_grad():
        batch = encode_instances(m, [inst])
        traj = rollout(m, batch, 6, generator=torch.Generator().manual_seed(2))
        forced = rollout(m, batch, 6, mode="forced", actions=traj.actions)
    torch.testing.assert_close(forced.log_pf, traj.log_pf)
    torch.testing.assert_close(forced.log_pb, traj.log_pb)
    torch.testing.assert_close(forced.log_flow, traj.log_flow)


def test_tsp_forced_probabilities_sum_to_one():
    inst = random_tsp(5, seed=0)
    m = _model("tsp")
    seqs = [[*p, 0] for p in itertools.permutations(range(1, 5))]
    with torch.no_grad():
        traj = rollout(m, encode_instances(m, [inst]), len(seqs), mode="forced", actions=torch.tensor(seqs))
    assert float(traj.log_pf.sum(1).exp().sum()) == pytest.approx(1.0, abs=1e-5)
    assert torch.allclose(traj.log_pb.sum(1), torch.full((len(seqs),), tsp_log_pb(5)))


def test_cvrp_closed_form_counts_constructions():
    # one multi-node and one single-node route: 2! orders × 2 directions = 4 constructions
    assert cvrp_log_pb([[1, 2], [3]]) == pytest.approx(-math.log(4))
    assert cvrp_log_pb([[1], [2], [3]]) == pytest.approx(-math.log(6))
    # Statement 3's first backward step out of (a=1, j=1) is 1/3
    assert paper_stepwise_log_pb(1, 1, False) == pytest.approx(-math.log(3))


def test_stepwise_pb_matches_count_by_enumeration():
    inst = random_cvrp(4, seed=3, capacity=10)
    m = _model("cvrp")
    seqs = []

    def go(seq, vis, load):
        if len(vis) == 4 and seq[-1] == 0:
            seqs.append(seq)
            return
        for c in range(1, 5):
            if c not in vis and inst.demands[c] <= load:
                go([*seq, c], vis | {c}, load - int(inst.demands[c]))
        if seq[-1] != 0:
            go([*seq, 0], vis, 10)

    go([0], frozenset(), 10)
    T = max(len(s) for s in seqs) - 1
    acts = torch.full((len(seqs), T), -1)
    for i, s in enumerate(seqs):
        acts[i, : len(s) - 1] = torch.tensor(s[1:])
    with torch.no_grad():
        traj = rollout(m, encode_instances(m, [inst]), len(seqs), mode="forced", actions=acts)
    key = [
        frozenset(tuple(r) if r[0] <= r[-1] else tuple(r[::-1]) for r in routes_from_sequence(s))
        for s in seqs
    ]
    counts = Counter(key)
    for v, k in zip(traj.log_pb.sum(1).tolist(), key, strict=True):
        assert v == pytest.approx(-math.log(counts[k]), abs=1e-5)
    assert float(traj.log_pf.sum(1).exp().sum()) == pytest.approx(1.0, abs=1e-4)


def test_db_residuals_telescope_and_losses_are_consistent():
    for problem, inst in (("tsp", random_tsp(7, seed=0)), ("cvrp", random_cvrp(7, seed=0))):
        m = _model(problem)
        traj = rollout(m, encode_instances(m, [inst]), 8, generator=torch.Generator().manual_seed(0))
        torch.testing.assert_close(
            db_residuals(traj, 5.0).sum(1), tb_residuals(traj, 5.0), rtol=1e-5, atol=1e-3
        )
        h = hybrid_loss(traj, 5.0, db_weight=0.5)
        torch.testing.assert_close(h, tb_loss(traj, 5.0) + 0.5 * db_loss(traj, 5.0))
        h.backward()
        assert all(p.grad is None or torch.isfinite(p.grad).all() for p in m.parameters())


def test_centered_rewards_sum_to_cost_minus_mean():
    inst = random_cvrp(9, seed=4)
    m = _model("cvrp")
    with torch.no_grad():
        traj = rollout(m, encode_instances(m, [inst]), 10, generator=torch.Generator().manual_seed(4))
    e = traj.energies(2.0)
    torch.testing.assert_close(e.sum(1), 2.0 * (traj.cost - traj.cost.mean()), rtol=1e-5, atol=1e-5)
    assert bool((e[~traj.valid] == 0).all())


def test_depot_mode_is_greedy_away_from_the_start():
    # TSP: the start node plays the depot, so samples that share their first move are identical
    inst = random_tsp(10, seed=5)
    m = _model("tsp")
    with torch.no_grad():
        traj = rollout(
            m, encode_instances(m, [inst]), 24, mode="depot", generator=torch.Generator().manual_seed(5)
        )
    by_first = {}
    for s in traj.sequences():
        by_first.setdefault(s[1], set()).add(tuple(s))
    assert all(len(v) == 1 for v in by_first.values()) and len(by_first) > 1


def test_knn_adjacency_keeps_depot_edges():
    d = torch.rand(1, 12, 12)
    d = (d + d.transpose(1, 2)) / 2
    adj = knn_adjacency(d, 3, depot=True)
    assert bool((adj[0, 0, 1:] == 1).all()) and bool((adj[0, 1:, 0] == 1).all())
    assert bool((adj.sum(-1) >= 3).all())


@pytest.mark.parametrize("problem", ["tsp", "cvrp"])
def test_batch_demand_shapes(problem):
    """Batch.demand and Batch.units are (B, n) for both problem types (zeros for a TSP)."""
    model = RoutingGFlowNet(problem, hidden=8, layers=1)
    gen = random_tsp if problem == "tsp" else random_cvrp
    insts = [gen(6, seed=s) for s in range(3)]
    batch = encode_instances(model, insts)
    n = insts[0].coords.shape[0]
    assert batch.demand.shape == (3, n) and batch.units.shape == (3, n)
    if problem == "tsp":
        assert not batch.demand.any() and not batch.units.any()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_multinomial_draws_each_row_apart(dtype):
    """rollout's dummy action for finished CVRP rows (node 0) is recorded equivalent to any other node
    (paper_notes/hbg_gflownet.equivalent.toml, rollout:constant:0->1#7). That rests on torch.multinomial(p, 1)
    drawing every row from its own variates whatever another row's probabilities are, and advancing the
    generator by the same amount: pin it, so a torch that changes it reopens the mutant."""
    probs = torch.rand(64, 9, generator=torch.Generator().manual_seed(1), dtype=dtype)
    dummy_0, dummy_1 = probs.clone(), probs.clone()
    dummy_0[5], dummy_1[5] = 0.0, 0.0
    dummy_0[5, 0], dummy_1[5, 1] = 1.0, 1.0
    draws = []
    for p in (dummy_0, dummy_1):
        gen = torch.Generator().manual_seed(3)
        first = torch.multinomial(p, 1, generator=gen).squeeze(-1)
        draws.append((first, torch.multinomial(probs, 1, generator=gen)))
    (a, a_next), (b, b_next) = draws
    others = torch.arange(64) != 5
    assert int(a[5]) == 0 and int(b[5]) == 1
    assert torch.equal(a[others], b[others]) and torch.equal(a_next, b_next)
