"""Claims of HBG (Zhang, Cao, *Hybrid-Balance GFlowNet for Solving Vehicle Routing Problems*,
NeurIPS 2025, arXiv:2510.04792): the backward policy, TB/DB consistency, sampling ∝ reward,
hybrid vs TB and depot-guided inference, plus checks of the exact solvers and references the
benchmark relies on.

Instances come from the package's generators under the context seed. The GFlowNet claims on
the shipped checkpoints (``hybrid_vs_tb``, ``depot_inference``) compare paired costs over a
seeded test set and say ``undecided`` (→ inconclusive) when the mean paired difference is
within two standard errors.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from functools import lru_cache

import numpy as np
import sympy
import torch

from algorithms import solve
from algorithms.routing import CVRPInstance, random_cvrp, random_tsp, tsp_cost
from algorithms.routing.cvrp_enumeration import CVRPEnumeration
from algorithms.routing.gflownet import (
    RoutingGFlowNet,
    cvrp_log_pb,
    db_residuals,
    encode_instances,
    paper_stepwise_log_pb,
    rollout,
    tb_residuals,
    trajectory_loss,
)
from algorithms.routing.hbg import load_model, shipped_checkpoints
from algorithms.routing.held_karp import HeldKarp, held_karp
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from algorithms.routing.problem import check_cvrp_routes, cvrp_cost, routes_from_sequence
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.evidence import fact, figure, prove_zero

PAPER = "hbg_gflownet"
S1, S2, S3 = "Statement 1", "Statement 2", "Statement 3"
EQ_DB, EQ_DG = "Eq. 2 / Eq. 10", "Eq. 12"
T3, T4 = "Table 3", "Table 4"
SRC = "(arXiv:2510.04792)"

register_results(
    PAPER,
    [
        Result(
            S1,
            "The number B(a, j) of construction orders of a CVRP solution with a multi-node and j "
            "single-node routes satisfies B = 2a·B(a−1, j) + j·B(a, j−1), closed form (a+j)!·2^a",
            checkable=True,
        ),
        Result(
            S2, "The TB backward probability of a complete CVRP trajectory is 1/((a+j)!·2^a)", checkable=True
        ),
        Result(
            S3,
            "The DB backward probability of one transition into a depot state is 1/(2a+j) (uniform over "
            "the parent transitions), and 1 at customer states",
            checkable=True,
        ),
        Result(
            EQ_DB,
            "The DB loss: per transition (log F(s) + log P_f + Ẽ(s) − log F(s') − log P_b − Ẽ(s'))², "
            "summed over the trajectory, with the per-step relative energy of Eq. 9",
            checkable=True,
        ),
        Result(
            EQ_DG, "Depot-guided inference: sample from P_f at the depot, greedy at customers", checkable=True
        ),
        Result(
            T3, "HB beats TB and DB (trained alike) on CVRP200/500/1000 for AGFN and GFACS", checkable=True
        ),
        Result(
            T4,
            "Of the four depot/customer sample/greedy decodings, depot sampling + customer greedy is best",
            checkable=True,
        ),
        Result(
            "Table 1",
            "HBG-AGFN / HBG-GFACS gaps to LKH on CVRP200/500/1000 (e.g. 9.95% / 16.48% at 200)",
            checkable=False,
            why="GPU training on 100-node instances for hours and AGFN/GFACS backbones (adversarial "
            "discriminator, ant colony); benchmarks/bench_routing.py measures our CPU analogue's gaps",
        ),
        Result(
            "Table 5",
            "HBG on TSP200/500/1000 against LKH, POMO, AGFN, GFACS",
            checkable=False,
            why="as Table 1: paper-scale GPU training; our analogue is in the benchmark",
        ),
    ],
)


def _undecided(what: str, **figures: float) -> Outcome:
    return Outcome(
        "undecided",
        f"{what}: within the seed spread",
        {"statement": what, **{k: figure(float(v), floor=1e-14) for k, v in figures.items()}},
    )


def _paired(a: np.ndarray, b: np.ndarray, what: str, extra: dict | None = None) -> Outcome:
    """Pass when mean(b − a) > 2 SE (a lower), fail when < −2 SE, else undecided (2 SE: a
    two-sided ~95% normal interval on the paired mean over the test set)."""
    diff = np.asarray(b, float) - np.asarray(a, float)
    mean = float(diff.mean())
    se = float(diff.std(ddof=1) / math.sqrt(diff.size))
    figs = {
        "mean_first": float(np.mean(a)),
        "mean_second": float(np.mean(b)),
        "mean_diff": mean,
        "std_err": se,
        "instances": diff.size,
        **(extra or {}),
    }
    if mean > 2 * se:
        return fact(True, what, **figs)
    if mean < -2 * se:
        return fact(False, what, **figs)
    return _undecided(what, **figs)


# ----------------------------------------------------------------------------- enumeration helpers


def _cvrp_sequences(inst: CVRPInstance) -> list[list[int]]:
    """Every forward trajectory (depot-delimited node sequence) under the construction rules."""
    n, dem, cap = inst.n_customers, inst.demands, inst.capacity
    out: list[list[int]] = []

    def go(seq: list[int], visited: frozenset, load: int) -> None:
        cur = seq[-1]
        if len(visited) == n and cur == 0:
            out.append(list(seq))
            return
        for c in range(1, n + 1):
            if c not in visited and dem[c] <= load:
                go([*seq, c], visited | {c}, load - int(dem[c]))
        if cur != 0:
            go([*seq, 0], visited, cap)

    go([0], frozenset(), cap)
    return out


def _solution_key(routes: list[list[int]]) -> frozenset:
    return frozenset(tuple(r) if r[0] <= r[-1] else tuple(reversed(r)) for r in routes)


def _forced_log_pb(seqs: list[list[int]], inst, problem: str) -> np.ndarray:
    """Σ log P_b along each sequence, from our rollout in forced mode (a random-weight model)."""
    torch.manual_seed(0)
    model = RoutingGFlowNet(problem, hidden=8, layers=1)
    T = max(len(s) for s in seqs) - 1
    acts = torch.full((len(seqs), T), -1, dtype=torch.long)
    for i, s in enumerate(seqs):
        acts[i, : len(s) - 1] = torch.tensor(s[1:])
    with torch.no_grad():
        batch = encode_instances(model, [inst])
        traj = rollout(model, batch, len(seqs), mode="forced", actions=acts)
    return traj.log_pb.sum(1).numpy()


def _backward_instances(ctx: Context) -> list[CVRPInstance]:
    rng = ctx.rng("backward")
    out = []
    for n in ctx.pick((3, 4, 4), (3, 4, 5, 5)):
        dem = rng.integers(1, 5, size=n)
        cap = int(rng.integers(max(dem.max(), 4), dem.sum() + 1))
        out.append(CVRPInstance(rng.random((n + 1, 2)), dem, cap))
    return out


# ----------------------------------------------------------------------------- backward_policy


def _backward_check(ctx: Context, closed_form) -> Outcome:
    worst, solutions, trajectories = 0.0, 0, 0
    for inst in _backward_instances(ctx):
        seqs = _cvrp_sequences(inst)
        counts = Counter(_solution_key(routes_from_sequence(s)) for s in seqs)
        for key, count in counts.items():
            worst = max(worst, abs(closed_form([list(r) for r in key]) + math.log(count)))
        solutions += len(counts)
        trajectories += len(seqs)
    # TSP (start fixed at 0): 2 constructions per tour, log P_B = −log 2, from our rollout's steps
    inst = random_tsp(5, seed=ctx.seed)
    seqs = [[0, *p, 0] for p in itertools.permutations(range(1, 5))]
    tsp_pb = _forced_log_pb(seqs, inst, "tsp")
    counts = Counter(frozenset([tuple(s[1:-1]), tuple(reversed(s[1:-1]))]) for s in seqs)
    tsp_err = max(
        abs(float(v) + math.log(counts[frozenset([tuple(s[1:-1]), tuple(reversed(s[1:-1]))])]))
        for v, s in zip(tsp_pb, seqs, strict=True)
    )
    # enumeration is exact integer counting: the closed form is float64 (1e-9); the rollout's
    # step-wise log P_b is float32 (eps 1.2e-7, a handful of terms: 1e-6)
    return fact(
        worst <= 1e-9 and tsp_err <= 1e-6,
        "log P_B(x) = −log #(trajectories building x) for every CVRP solution (enumerated) and TSP tour",
        max_abs_error=worst,
        tsp_max_abs_error=tsp_err,
        solutions=solutions,
        trajectories=trajectories,
    )


def _no_reversal(routes) -> float:
    return -math.lgamma(len(routes) + 1)


register(
    Claim(
        id=f"{PAPER}.backward_policy",
        paper=PAPER,
        source=f"Statement 1, Statement 2 {SRC}",
        statement="The closed form log P_B = −log Γ(m+1) − (#multi-node routes)·log 2 equals −log of the "
                  "number "
        "of forward trajectories that build the same CVRP solution, by exhaustive enumeration on small "
        "instances (and −log 2 for a TSP tour from a fixed start, from our rollout's step-wise P_b)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _backward_check(ctx, cvrp_log_pb),
        control=lambda ctx: _backward_check(ctx, _no_reversal),
        control_description="the closed form with the route-reversal term (2^a) dropped",
        origin=Origin.PAPER,
        covers=(S1, S2),
        budget_s=20,
    )
)


# ----------------------------------------------------------------------------- step-wise P_b


def _paper_stepwise(seq: list[int]) -> float:
    """Σ log P_b of Statement 3 along a CVRP sequence (1/(2a+j) when a route is closed)."""
    total, a, j, route = 0.0, 0, 0, []
    for v in seq[1:]:
        if v == 0:
            multi = len(route) >= 2
            a, j = a + multi, j + (not multi)
            total += paper_stepwise_log_pb(a, j, multi)
            route = []
        else:
            route.append(v)
    return total


def _ours_stepwise(seqs: list[list[int]], inst) -> np.ndarray:
    return _forced_log_pb(seqs, inst, "cvrp")


def _stepwise_check(ctx: Context, stepwise) -> Outcome:
    worst, total = 0.0, 0
    example = None
    for inst in _backward_instances(ctx):
        seqs = _cvrp_sequences(inst)
        got = stepwise(seqs, inst)
        for v, s in zip(got, seqs, strict=True):
            err = abs(float(v) - cvrp_log_pb(routes_from_sequence(s)))
            if err > worst:
                worst, example = err, s
            total += 1
    ok = worst <= 1e-6  # sums of a few float32 logs (eps 1.2e-7) against float64
    out = fact(
        ok,
        "the step-wise backward probabilities multiply, along every trajectory, to Statement 2's "
        "P_B = 1/((a+j)!·2^a)",
        max_abs_error=worst,
        trajectories=total,
    )
    if example is not None and not ok:
        out.evidence["worst_trajectory"] = example
    return out


def _paper_stepwise_all(seqs, inst) -> np.ndarray:
    return np.array([_paper_stepwise(s) for s in seqs])


register(
    Claim(
        id=f"{PAPER}.stepwise_backward_paper",
        paper=PAPER,
        source=f"Statement 3 with Statement 2 {SRC}",
        statement="Statement 3's DB backward probability (1/(2a+j) per transition into a depot state) "
                  "multiplies "
        "along every trajectory to Statement 2's TB backward probability 1/((a+j)!·2^a), so TB and DB "
        "target the same backward policy",
        kind=Kind.NUMERIC,
        check=lambda ctx: _stepwise_check(ctx, _paper_stepwise_all),
        control=lambda ctx: _stepwise_check(ctx, lambda seqs, inst: _paper_stepwise_all(seqs, inst) - 0.1),
        control_description="the same products shifted by 0.1 nats",
        origin=Origin.PAPER,
        covers=(S3,),
        expected_verdict="falsified",
        deviation="measured by enumeration; a solution with one multi-node and one single-node route already "
        "gives products 1/6 and 1/3 against 1/4 (each product is still a valid backward policy)",
        budget_s=20,
    )
)

register(
    Claim(
        id=f"{PAPER}.stepwise_backward_ours",
        paper=PAPER,
        source="our factorisation of Statement 2 (algorithms.routing.gflownet): 1/m per closed route, 1/2 "
               "more "
        "for a multi-node route",
        statement="The step-wise backward probabilities our DB loss uses (when a route is closed and m "
                  "routes "
        "are complete: 1/m, and 1/2 more if it has >= 2 customers) multiply along every enumerated "
        "trajectory to 1/((a+j)!·2^a)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _stepwise_check(ctx, _ours_stepwise),
        control=lambda ctx: _stepwise_check(ctx, _paper_stepwise_all),
        control_description="Statement 3's uniform 1/(2a+j) over parent transitions, as printed",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)


# ----------------------------------------------------------------------------- db_implies_tb


def _symbolic_sum(T: int, swapped: bool) -> sympy.Expr:
    F = sympy.symbols(f"F0:{T + 1}")  # log F̃(s_0) = log Z, ..., log F̃(s_T)
    pf = sympy.symbols(f"pf0:{T}")
    pb = sympy.symbols(f"pb0:{T}")
    e = sympy.symbols(f"e0:{T}")
    logZ = F[0]
    terminal = {F[T]: 0}
    if swapped:
        db = sum(F[t + 1] + pf[t] - F[t] - pb[t] + e[t] for t in range(T))
    else:
        db = sum(F[t] + pf[t] - F[t + 1] - pb[t] + e[t] for t in range(T))
    tb = logZ + sum(pf) - sum(pb) + sum(e)  # log R = −Σ e
    return sympy.expand((db - tb).subs(terminal))


def _numeric_sum(ctx: Context, swapped: bool) -> tuple[float, float]:
    """(max relative |Σ_t δ_t − δ_TB|, max relative |δ_TB − the TB residual rebuilt independently|).

    The independent residual takes log R = −β (cost(x) − c̄) with cost(x) recomputed from the
    decoded solution (``tsp_cost``/``cvrp_cost``) and c̄ the mean over the instance's samples, and
    log P_B from the closed form (``cvrp_log_pb``; −log 2 for a TSP tour), so a wrong energy
    baseline or a wrong step-wise P_b cannot hide behind a telescoping that holds for any values.
    """
    torch.manual_seed(ctx.seed)
    worst, worst_tb = 0.0, 0.0
    beta = 3.0
    for problem, inst in (("tsp", random_tsp(7, seed=ctx.seed)), ("cvrp", random_cvrp(6, seed=ctx.seed))):
        model = RoutingGFlowNet(problem, hidden=8, layers=1)
        with torch.no_grad():
            traj = rollout(
                model, encode_instances(model, [inst]), 8, generator=torch.Generator().manual_seed(ctx.seed)
            )
            delta = db_residuals(traj, beta=beta)
            if swapped:
                e = traj.energies(beta)
                delta = torch.where(
                    traj.valid,
                    traj.log_flow[:, 1:] + traj.log_pf - traj.log_flow[:, :-1] - traj.log_pb + e,
                    torch.zeros_like(delta),
                )
            tb = tb_residuals(traj, beta=beta)
        worst = max(worst, float((delta.sum(1) - tb).abs().max() / (1.0 + tb.abs().max())))
        seqs = traj.sequences()
        if problem == "tsp":
            costs = np.array([tsp_cost(inst, s[:-1]) for s in seqs])
            log_pb = np.full(len(seqs), -math.log(2.0))
        else:
            costs = np.array([cvrp_cost(inst, routes_from_sequence(s)) for s in seqs])
            log_pb = np.array([cvrp_log_pb(routes_from_sequence(s)) for s in seqs])
        log_r = -beta * (costs - costs.mean())
        ref = traj.log_z.double().numpy() + traj.log_pf.sum(1).double().numpy() - log_r - log_pb
        worst_tb = max(worst_tb, float(np.abs(tb.double().numpy() - ref).max() / (1.0 + np.abs(ref).max())))
    return worst, worst_tb


def _telescope(ctx: Context, swapped: bool) -> Outcome:
    for T in range(1, 7):
        out = prove_zero(_symbolic_sum(T, swapped), what=f"Σ_t δ_t^DB − δ^TB (T = {T} transitions)")
        if not out.passed:
            return out
    err, err_tb = _numeric_sum(ctx, swapped)
    # float32 sums of ~10 terms of size <= ~100: relative rounding ~1e-6 (both comparisons)
    ok = err <= 1e-5 and err_tb <= 1e-5
    res = fact(
        ok,
        "summing the DB residuals along a trajectory gives the TB residual (sympy for T = 1..6, and "
        "our losses on sampled TSP/CVRP trajectories), and that TB residual has log R = −β(cost − c̄) and "
        "Statement 2's log P_B",
        max_rel_error=err,
        tb_rebuilt_rel_error=err_tb,
    )
    return res


register(
    Claim(
        id=f"{PAPER}.db_implies_tb",
        paper=PAPER,
        source=f"Section 3.2.2, Eq. 2 / Eq. 10, Eq. 3 {SRC}",
        statement="With log F(s_0) = log Z, log F(x) = log R(x) and forward-looking energies, the DB "
                  "residuals of "
        "a trajectory telescope to its TB residual, so zero DB loss implies zero TB loss",
        kind=Kind.SYMBOLIC,
        check=lambda ctx: _telescope(ctx, False),
        control=lambda ctx: _telescope(ctx, True),
        control_description="a DB term with the flow indices swapped (log F(s_{t+1}) in place of log F(s_t))",
        origin=Origin.PAPER,
    covers=(EQ_DB,),
    deviation="the paper states the per-transition DB loss; that its residuals telescope to TB's (with "
    "F(s_0) = Z, F(x) = R(x) and the Eq. 9 energies summing to the trajectory's) is our derived check, "
    "symbolic for T <= 6 and numeric on our losses",
        budget_s=20,
    )
)


# ----------------------------------------------------------------------------- samples_prop_reward

_KL_BETA = 4.0


def _all_tours(n: int) -> list[list[int]]:
    return [[0, *p, 0] for p in itertools.permutations(range(1, n))]


def _exact_kl(model: RoutingGFlowNet, inst, beta: float) -> float:
    """KL(p* ‖ p_θ) over tours, p* ∝ exp(−β cost), p_θ(x) = Σ of P_F over its 2 constructions."""
    seqs = _all_tours(inst.n)
    acts = torch.tensor([s[1:] for s in seqs])
    with torch.no_grad():
        traj = rollout(model, encode_instances(model, [inst]), len(seqs), mode="forced", actions=acts)
    logp = traj.log_pf.sum(1).double().numpy()
    tours: dict[frozenset, list[int]] = {}
    for i, s in enumerate(seqs):
        key = frozenset([tuple(s[1:-1]), tuple(reversed(s[1:-1]))])
        tours.setdefault(key, []).append(i)
    logq = np.array([np.logaddexp.reduce(logp[idx]) for idx in tours.values()])
    cost = np.array([tsp_cost(inst, seqs[idx[0]][:-1]) for idx in tours.values()])
    logt = -beta * cost
    logt -= np.logaddexp.reduce(logt)
    return float(np.sum(np.exp(logt) * (logt - logq)))


def _train_small(inst, loss: str, steps: int, seed: int) -> RoutingGFlowNet:
    # one intra-op thread, so that the figures do not depend on the runner's --jobs (its thread
    # count per worker); a 5-node model gains nothing from more threads
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(seed)
        model = RoutingGFlowNet("tsp", hidden=16, layers=2)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        gen = torch.Generator().manual_seed(seed)
        for _ in range(steps):
            batch = encode_instances(model, [inst])
            traj = rollout(model, batch, 32, generator=gen)
            value = trajectory_loss(traj, loss, beta=_KL_BETA, center=False)
            opt.zero_grad()
            value.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    return model


@lru_cache(maxsize=4)
def _kl_results(seed: int, steps: int, n: int) -> dict[str, float]:
    inst = random_tsp(n, seed=seed)
    out = {}
    for loss in ("tb", "db", "hybrid"):
        out[loss] = _exact_kl(_train_small(inst, loss, steps, seed), inst, _KL_BETA)
    torch.manual_seed(seed)
    out["untrained"] = _exact_kl(RoutingGFlowNet("tsp", hidden=16, layers=2), inst, _KL_BETA)
    return out


#: KL level a GFlowNet counts as sampling ∝ R: 0.05 nats (the untrained policy sits far above;
#: the exact enumeration has no sampling error)
_KL_TOL = 0.05


def _kl_check(ctx: Context, which: tuple[str, ...]) -> Outcome:
    """Pass: every KL <= 0.05. Fail: some KL is at least half the untrained policy's (training did
    not even halve the distance to R/Z, e.g. a sign error in the reward). In between: undecided
    (the policy moved towards R/Z but the fixed step budget did not converge; the sampling
    theorem speaks of the optimum of the loss, so a finite budget cannot falsify it)."""
    n = ctx.pick(5, 6)
    res = _kl_results(ctx.seed, ctx.pick(200, 400), n)
    kls = {k: res[k] for k in which}
    what = f"exact KL(R/Z ‖ p_θ) <= {_KL_TOL} on TSP{n} (β = {_KL_BETA}) for {', '.join(which)}"
    figs = {f"kl_{k}": v for k, v in res.items()}
    if all(v <= _KL_TOL for v in kls.values()):
        return fact(True, what, **figs)
    if any(v >= 0.5 * res["untrained"] for v in kls.values()):
        return fact(False, what, **figs)
    return _undecided(what, **figs)


register(
    Claim(
        id=f"{PAPER}.samples_prop_reward",
        paper=PAPER,
        source=f"GFlowNet sampling theorem (Bengio et al. 2021; Malkin et al. 2022), as used in Section 3 "
               f"{SRC}",
        statement="On an enumerable TSP (quick: n = 5, 12 tours, 200 steps; full: n = 6, 60 tours, 400 "
                  "steps), a "
        "GFlowNet trained in the claim with TB, with DB and with the hybrid loss (β = 4, 32 samples per "
        "step, one thread) samples tours with probability ∝ R(x) = exp(−β cost): exact KL(R/Z ‖ p_θ) "
        "<= 0.05 (falsified when a KL stays at or above half the untrained policy's; inconclusive in "
        "between: not converged within the step budget)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _kl_check(ctx, ("tb", "db", "hybrid")),
        control=lambda ctx: _kl_check(ctx, ("untrained",)),
        control_description="the same policy class untrained (random weights)",
        origin=Origin.PRIOR,
        expected_verdict="inconclusive",
        deviation="the theorem is about the loss's global optimum; we train for a fixed budget (quick: 200 "
        "Adam steps) and read a KL in (0.05, half the untrained KL) as not converged (inconclusive), "
        "not as a counterexample",
        budget_s=60,
    )
)


# ----------------------------------------------------------------------------- checkpoints


def _costs(
    ckpt: str,
    problem: str,
    size: int,
    count: int,
    seed: int,
    mode: str,
    samples: int,
    untrained: bool = False,
) -> np.ndarray:
    path = shipped_checkpoints()[ckpt]
    model, _ = load_model(path)
    if untrained:
        torch.manual_seed(seed)
        model = RoutingGFlowNet(**model.config()).eval()
    gen = random_tsp if problem == "tsp" else random_cvrp
    insts = [gen(size, seed=10_000 + seed * 1000 + i) for i in range(count)]
    out = []
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for inst in insts:
            traj = rollout(model, encode_instances(model, [inst]), samples, mode=mode, generator=g)
            out.append(float(traj.cost.min()))
    return np.array(out)


def _hybrid_vs_tb(ctx: Context, first_untrained: bool) -> Outcome:
    count = ctx.pick(12, 64)
    parts, figs = [], {}
    for problem in ("tsp", "cvrp"):
        mode = "sample" if problem == "tsp" else "depot"
        h = _costs(f"{problem}50_hybrid", problem, 50, count, ctx.seed, mode, 16, untrained=first_untrained)
        t = _costs(f"{problem}50_tb", problem, 50, count, ctx.seed, mode, 16)
        parts.append(t - h)
        figs[f"{problem}50_first"], figs[f"{problem}50_tb"] = float(h.mean()), float(t.mean())
    diff = np.concatenate(parts)
    what = (
        "at equal training steps, the hybrid checkpoint's best-of-16 cost is <= TB's on TSP50 and CVRP50 "
        "(paired over seeded test instances)"
    )
    if first_untrained:
        what = what.replace("the hybrid checkpoint", "an untrained policy")
    zeros = np.zeros_like(diff)
    return _paired(zeros, diff, what, figs)


register(
    Claim(
        id=f"{PAPER}.hybrid_vs_tb",
        paper=PAPER,
        source=f"Table 3, Section 4.2 {SRC}",
        statement="At equal CPU training budget (same steps), the hybrid (TB + DB) checkpoint reaches a "
                  "lower mean "
        "best-of-16 cost than the TB-only checkpoint on seeded TSP50 and CVRP50 test sets (paired; "
        "inconclusive when within 2 standard errors)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _hybrid_vs_tb(ctx, False),
        control=lambda ctx: _hybrid_vs_tb(ctx, True),
        control_description="an untrained policy in place of the hybrid checkpoint",
        origin=Origin.PAPER,
        covers=(T3,),
        deviation="CPU-scale: 50-node instances, minutes of training, our plain-torch GNN policy (no AGFN "
        "discriminator or GFACS ant colony); tested on the training size",
        expected_verdict="inconclusive",
        budget_s=40,
    )
)


def _depot_inference(ctx: Context, control: bool) -> Outcome:
    count = ctx.pick(16, 64)
    plain = _costs("cvrp50_hybrid", "cvrp", 50, count, ctx.seed, "sample", 16)
    if control:
        # the depot test never firing (e.g. ``at_depot`` read after ``cur`` moved): greedy at every
        # node, so the 16 trajectories coincide (1 rollout is the same best cost)
        guided = _costs("cvrp50_hybrid", "cvrp", 50, count, ctx.seed, "greedy", 1)
        what = "depot-guided decoding with a depot test that never fires lowers CVRP50 cost against plain "
        what += "sampling at 16 samples"
    else:
        guided = _costs("cvrp50_hybrid", "cvrp", 50, count, ctx.seed, "depot", 16)
        what = "depot-guided inference lowers CVRP50 cost against plain sampling at 16 samples"
        # reported, not tested: Table 4's "depot greedy + customer sampling" row
        return _paired(guided, plain, what, {"mean_dg_cs": float(_costs_dg_cs(count, ctx.seed, 16).mean())})
    return _paired(guided, plain, what)


def _costs_dg_cs(count: int, seed: int, samples: int) -> np.ndarray:
    """Depot greedy, customer sampling (the 'DG and CS' row of Table 4), by swapping the roles."""
    import algorithms.routing.gflownet as g

    model, _ = load_model(shipped_checkpoints()["cvrp50_hybrid"])
    insts = [random_cvrp(50, seed=10_000 + seed * 1000 + i) for i in range(count)]
    orig = g._choose

    def swapped(logp, mode, at_depot, generator, forced):
        return orig(logp, "depot", ~at_depot, generator, forced)

    out = []
    gen = torch.Generator().manual_seed(seed)
    g._choose = swapped
    try:
        with torch.no_grad():
            for inst in insts:
                traj = rollout(model, encode_instances(model, [inst]), samples, mode="sample", generator=gen)
                out.append(float(traj.cost.min()))
    finally:
        g._choose = orig
    return np.array(out)


register(
    Claim(
        id=f"{PAPER}.depot_inference",
        paper=PAPER,
        source=f"Eq. 12, Table 4 {SRC}",
        statement="With the shipped CVRP50 hybrid checkpoint and 16 trajectories per instance, depot-guided "
        "decoding (sample at the depot, greedy at customers) gives a lower mean best cost than plain "
        "sampling (paired over seeded instances; inconclusive within 2 standard errors)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _depot_inference(ctx, False),
        control=lambda ctx: _depot_inference(ctx, True),
        control_description="depot-guided decoding whose depot test never fires (greedy at every node, the "
        "16 trajectories identical)",
        origin=Origin.PAPER,
        covers=(EQ_DG, T4),
        deviation="CVRP50 (the training size), 16 samples, no local search, our CPU-trained policy",
        expected_verdict="inconclusive",
        budget_s=40,
    )
)


# ----------------------------------------------------------------------------- exact solvers and references


def _brute_tsp(inst) -> float:
    n = inst.n
    return min(tsp_cost(inst, [0, *p]) for p in itertools.permutations(range(1, n)))


def _hk_no_return(dist: np.ndarray) -> float:
    """A Held–Karp that forgets the closing edge (a realistic bug)."""
    tour, length = held_karp(dist)
    return length - float(dist[tour[-1], 0])


def _held_karp_check(ctx: Context, broken: bool) -> Outcome:
    rng = ctx.rng("hk")
    worst = 0.0
    for k in range(ctx.pick(12, 40)):
        n = int(rng.integers(3, 9))
        inst = random_tsp(n, seed=int(rng.integers(1 << 30)))
        value = _hk_no_return(inst.distances) if broken else solve(inst, HeldKarp()).value
        worst = max(worst, abs(value - _brute_tsp(inst)))
        del k
    # both sides sum the same <= 8 float edges: rounding <= 1e-12
    return fact(worst <= 1e-9, "Held–Karp equals brute force over all tours (n = 3..8)", max_abs_error=worst)


register(
    Claim(
        id=f"{PAPER}.held_karp_exact",
        paper=PAPER,
        source="Held & Karp 1962; algorithms.routing.held_karp",
        statement="The Held–Karp tour length equals the brute-force optimum on random TSPs with 3..8 nodes",
        kind=Kind.NUMERIC,
        check=lambda ctx: _held_karp_check(ctx, False),
        control=lambda ctx: _held_karp_check(ctx, True),
        control_description="Held–Karp without the closing edge back to the start",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)


def _cvrp_exact_check(ctx: Context, broken: bool) -> Outcome:
    rng = ctx.rng("cvrp-exact")
    worst = 0.0
    for _ in range(ctx.pick(6, 20)):
        n = int(rng.integers(2, 6))
        dem = rng.integers(1, 10, size=n)
        inst = CVRPInstance(rng.random((n + 1, 2)), dem, int(rng.integers(dem.max(), dem.sum() + 1)))
        best = min(cvrp_cost(inst, routes_from_sequence(s)) for s in _cvrp_sequences(inst))
        if broken:  # capacity ignored: one giant route is allowed
            relaxed = CVRPInstance(inst.coords, inst.demands, int(dem.sum()))
            value = solve(relaxed, CVRPEnumeration()).value
        else:
            value = solve(inst, CVRPEnumeration()).value
        worst = max(worst, abs(value - best))
    return fact(
        worst <= 1e-9,
        "CVRP enumeration equals the best of all enumerated trajectories (2..5 customers)",
        max_abs_error=worst,
    )


register(
    Claim(
        id=f"{PAPER}.cvrp_enumeration_exact",
        paper=PAPER,
        source="algorithms.routing.cvrp_enumeration",
        statement="The subset-DP enumeration's CVRP optimum equals the cheapest of all forward trajectories "
        "(exhaustive) on random instances with 2..5 customers",
        kind=Kind.NUMERIC,
        check=lambda ctx: _cvrp_exact_check(ctx, False),
        control=lambda ctx: _cvrp_exact_check(ctx, True),
        control_description="the enumeration run with the capacity constraint dropped",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)


def _references_check(ctx: Context, broken: bool) -> Outcome:
    rng = ctx.rng("refs")
    worst_tsp, worst_cvrp, below = 0.0, 0.0, 0
    for _ in range(ctx.pick(4, 12)):
        inst = random_tsp(int(rng.integers(6, 11)), seed=int(rng.integers(1 << 30)))
        opt = solve(inst, HeldKarp()).value
        sol = solve(inst, LKH(runs=2, scale=1.0 if broken else 1e6), seed=ctx.seed)
        worst_tsp = max(worst_tsp, (sol.value - opt) / opt if sol.successful else math.inf)
        below += sol.value < opt - 1e-9
    for _ in range(ctx.pick(3, 8)):
        n = int(rng.integers(4, 7))
        inst = random_cvrp(n, seed=int(rng.integers(1 << 30)), capacity=15)
        opt = solve(inst, CVRPEnumeration()).value
        sol = solve(inst, HGS(runtime=0.2, scale=1.0 if broken else 1e4), seed=ctx.seed)
        worst_cvrp = max(worst_cvrp, (sol.value - opt) / opt if sol.successful else math.inf)
        below += sol.value < opt - 1e-9
    # on <= 10 nodes both heuristics find the optimum; scaled-integer rounding can tip ties by
    # <= n·0.5/scale per tour, far below 1e-4 relative
    ok = below == 0 and worst_tsp <= 1e-4 and worst_cvrp <= 1e-4
    return fact(
        ok,
        "LKH (elkai) and HGS (PyVRP) reach the exact optimum on tiny instances and never go below it",
        lkh_rel_gap=worst_tsp,
        hgs_rel_gap=worst_cvrp,
        below_optimum=below,
    )


register(
    Claim(
        id=f"{PAPER}.references_match_exact",
        paper=PAPER,
        source="algorithms.routing.lkh, algorithms.routing.hgs",
        statement="The benchmark's references are sound: LKH through elkai on TSPs of 6..10 nodes and HGS "
                  "through "
        "PyVRP on CVRPs of 4..6 customers return valid solutions whose cost equals the exact optimum "
        "(Held–Karp / enumeration) to 1e-4 relative, never below it",
        kind=Kind.NUMERIC,
        check=lambda ctx: _references_check(ctx, False),
        control=lambda ctx: _references_check(ctx, True),
        control_description="the backends fed unscaled distances (integer truncation/rounding of unit-square "
        "distances, the bug a float matrix causes in elkai)",
        origin=Origin.IMPLEMENTATION,
        budget_s=30,
    )
)


def _validator_check(ctx: Context, ignore_capacity: bool) -> Outcome:
    rng = ctx.rng("validator")
    missed = 0
    cases = 0
    for _ in range(ctx.pick(20, 100)):
        inst = random_cvrp(int(rng.integers(4, 12)), seed=int(rng.integers(1 << 30)), capacity=12)
        routes = routes_from_sequence(solve(inst, CVRPEnumeration()).x) if inst.n_customers <= 6 else None
        if routes is None:
            from algorithms.routing.nn2opt import nearest_neighbor_routes

            routes = nearest_neighbor_routes(inst)
        bad = []
        dup = [list(r) for r in routes]
        dup[0] = dup[0] + [dup[-1][0]] if len(dup) > 1 else dup[0] + dup[0][:1]
        bad.append(dup)
        bad.append([list(r) for r in routes][1:] if len(routes) > 1 else [list(routes[0])[1:] or [1]])
        bad.append([[c for r in routes for c in r]] if sum(inst.demands) > inst.capacity else None)
        for b in bad:
            if b is None:
                continue
            cases += 1
            try:
                if ignore_capacity:
                    relaxed = CVRPInstance(inst.coords, inst.demands, int(inst.demands.sum()))
                    check_cvrp_routes(relaxed, b)
                else:
                    check_cvrp_routes(inst, b)
                missed += 1
            except ValueError:
                pass
    return fact(
        missed == 0,
        "the CVRP validator rejects duplicated, missing and overloaded solutions",
        missed=missed,
        cases=cases,
    )


register(
    Claim(
        id=f"{PAPER}.validator_rejects",
        paper=PAPER,
        source="algorithms.routing.problem.check_cvrp_routes",
        statement="The CVRP solution check rejects a solution that visits a customer twice, misses one, or "
                  "puts "
        "every customer on one overloaded route",
        kind=Kind.PROPERTY,
        check=lambda ctx: _validator_check(ctx, False),
        control=lambda ctx: _validator_check(ctx, True),
        control_description="a validator that ignores the capacity",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)
