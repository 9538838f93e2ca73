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

import contextlib
import dataclasses
import functools
import io
import itertools
import math
import os
import tempfile
import time
import types
from collections import Counter
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy
import torch

from algorithms import solve
from algorithms.core import WORKING_MAX
from algorithms.routing import CVRPInstance, TSPInstance, random_cvrp, random_tsp, tsp_cost
from algorithms.routing.cvrp_enumeration import CVRPEnumeration, cvrp_enumerate
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
    trajectory_loss,
    tsp_log_pb,
)
from algorithms.routing.hbg import HBG, load_model, shipped_checkpoints
from algorithms.routing.held_karp import HeldKarp, held_karp
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from algorithms.routing.problem import (
    check_cvrp_routes,
    cvrp_cost,
    is_valid_cvrp,
    is_valid_tsp,
    routes_from_sequence,
)
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import domain_outcome
from theorems.core.certificates import CannotProve, Certificate, Method, Refuted, Rejected
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
            "summed over the trajectory, with the per-step relative energy of Eq. 9 (the step's cost "
            "minus the mean over the other trajectories at that step)",
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
            "HBG (hybrid balance + depot-guided inference) improves its TB-trained base solver (AGFN, GFACS) "
            "on CVRP200/500/1000 (gaps to LKH, e.g. 11.48 % -> 9.95 % for AGFN at 200)",
            checkable=True,
        ),
        Result(
            "Table 2",
            "Ablation: adding HB to the TB-trained base lowers the gap, and depot-guided inference on top "
            "lowers it again, for AGFN and GFACS on CVRP200/500/1000",
            checkable=True,
        ),
        Result(
            "Table 5",
            "On TSP200/500/1000 the HB-trained solvers (no depot, original decoding) improve on their "
            "TB-trained bases AGFN and GFACS",
            checkable=True,
        ),
        Result(
            "Figure 1",
            "The HBG framework: AGFN/GFACS backbone, the TB and DB losses combined, depot-guided inference",
            checkable=False,
            why="an architecture diagram: it states no measurable property",
        ),
        Result(
            "Figure 2",
            "Illustration of depot-guided inference (sampling at the depot, greedy at customers)",
            checkable=False,
            why="an illustration of Eq. 12, which the results map lists and depot_inference tests",
        ),
    ],
)


# ----------------------------------------------------------------------------- certificates (issue #40)
#: the enumeration certificates cover every CVRP solution on at most this many customers
CERT_CUSTOMERS = 6


def _canonical_route(route) -> tuple[int, ...]:
    route = tuple(route)
    return route if route[0] <= route[-1] else route[::-1]


def _closed_form_count(a: int, j: int) -> int:
    return math.factorial(a + j) * 2**a


def _trajectory_counts_dfs(n: int) -> Counter:
    """Every forward trajectory on n customers with no capacity limit (a capacity only removes the
    trajectories of infeasible solutions: a feasible solution's routes fit in any order), by depth-first
    construction; counted per solution (a set of routes up to reversal)."""
    counts: Counter = Counter()

    def go(routes: tuple, current: tuple, left: frozenset) -> None:
        if not left and not current:
            counts[frozenset(routes)] += 1
            return
        for c in sorted(left):
            go(routes, (*current, c), left - {c})
        if current:
            go((*routes, _canonical_route(current)), (), left)

    go((), (), frozenset(range(1, n + 1)))
    return counts


def _bp_table(counts: Counter) -> dict[tuple[int, int], set[int]]:
    table: dict[tuple[int, int], set[int]] = {}
    for solution, count in counts.items():
        a = sum(len(r) >= 2 for r in solution)
        table.setdefault((a, len(solution) - a), set()).add(count)
    return table


def _backward_prove() -> dict:
    classes = []
    for n in range(1, CERT_CUSTOMERS + 1):
        table = _bp_table(_trajectory_counts_dfs(n))
        solutions = Counter()
        for solution in _trajectory_counts_dfs(n):
            a = sum(len(r) >= 2 for r in solution)
            solutions[(a, len(solution) - a)] += 1
        for (a, j), seen in sorted(table.items()):
            if len(seen) != 1:
                raise Refuted({"n": n, "a": a, "j": j, "counts": sorted(seen)},
                              "solutions of one (a, j) class are built by different numbers of trajectories")
            (count,) = seen
            if count != _closed_form_count(a, j):
                raise Refuted({"n": n, "a": a, "j": j, "count": count},
                              f"{count} trajectories, not (a+j)!·2^a = {_closed_form_count(a, j)}")
            classes.append({"n": n, "a": a, "j": j, "solutions": solutions[(a, j)],
                            "trajectories_each": count})
    return {"max_customers": CERT_CUSTOMERS, "classes": classes,
            "recurrence": "factorial(a + j)*2**a - 2*a*factorial(a + j - 1)*2**(a - 1) "
                          "- j*factorial(a + j - 1)*2**a"}


def _backward_recheck(proof: dict) -> str:
    """Re-enumerate in another order (a customer permutation cut by a depot-separator pattern: each
    trajectory exactly once) and compare with the artifact's table; prove the recurrence exactly."""
    if proof["max_customers"] != CERT_CUSTOMERS:
        raise Rejected(f"max_customers {proof['max_customers']} is not {CERT_CUSTOMERS}")
    claimed = {(c["n"], c["a"], c["j"]): (c["solutions"], c["trajectories_each"]) for c in proof["classes"]}
    found: dict[tuple[int, int, int], tuple[int, int]] = {}
    total = 0
    for n in range(1, CERT_CUSTOMERS + 1):
        counts: Counter = Counter()
        splits = []                          # each depot-separator pattern as route slices
        for cuts in itertools.product((False, True), repeat=n - 1):
            bounds = [0, *(i + 1 for i, cut in enumerate(cuts) if cut), n]
            splits.append(list(itertools.pairwise(bounds)))
        for perm in itertools.permutations(range(1, n + 1)):
            for pieces in splits:
                routes = (perm[lo:hi] for lo, hi in pieces)
                counts[frozenset(r if r[0] <= r[-1] else r[::-1] for r in routes)] += 1
        total += sum(counts.values())
        per_class: dict[tuple[int, int], list[int]] = {}
        for solution, count in counts.items():
            a = sum(len(r) >= 2 for r in solution)
            per_class.setdefault((a, len(solution) - a), []).append(count)
        for (a, j), cs in per_class.items():
            if len(set(cs)) != 1 or cs[0] != math.factorial(a + j) * 2**a:
                raise Rejected(f"n = {n}, (a, j) = ({a}, {j}): trajectory counts {sorted(set(cs))}")
            found[(n, a, j)] = (len(cs), cs[0])
    if found != claimed:
        diff = sorted(set(found.items()) ^ set(claimed.items()))[:3]
        raise Rejected(f"the artifact's table differs from the re-enumeration: {diff}")
    a, j = sympy.symbols("a j", integer=True, nonnegative=True)
    expr = sympy.sympify(proof["recurrence"], locals={"a": a, "j": j})
    expected = (sympy.factorial(a + j) * 2**a - 2 * a * sympy.factorial(a + j - 1) * 2 ** (a - 1)
                - j * sympy.factorial(a + j - 1) * 2**a)
    if sympy.expand(expr - expected) != 0:
        raise Rejected(f"the recurrence {proof['recurrence']} is not B = 2a·B(a−1, j) + j·B(a, j−1)")
    if sympy.expand(sympy.expand_func(sympy.combsimp(expr / (sympy.factorial(a + j - 1) * 2**a)))) != 0:
        raise Rejected("the closed form does not satisfy the recurrence")
    return (f"{total} trajectories on <= {CERT_CUSTOMERS} customers re-enumerated: each solution with a "
            f"multi-node and j single-node routes is built by exactly (a+j)!·2^a of them "
            f"({len(found)} (n, a, j) classes); the closed form satisfies the recurrence for all a, j")


def _backward_refute() -> dict:
    return {"routes": [[1, 2]], "closed_form_without_reversal": 1}


def _backward_recheck_witness(witness: dict) -> str:
    routes = [tuple(r) for r in witness["routes"]]
    customers = sorted(c for r in routes for c in r)
    target = frozenset(_canonical_route(r) for r in routes)
    built = 0
    for perm in itertools.permutations(customers):   # every trajectory, from the definition
        for cuts in itertools.product((False, True), repeat=len(perm) - 1):
            pieces, current = [], [perm[0]]
            for c, cut in zip(perm[1:], cuts, strict=True):
                if cut:
                    pieces.append(tuple(current))
                    current = []
                current.append(c)
            pieces.append(tuple(current))
            built += frozenset(_canonical_route(p) for p in pieces) == target
    claimed = math.factorial(len(routes))            # the control's closed form: (a+j)! without 2^a
    if claimed != witness["closed_form_without_reversal"] or built == claimed:
        raise Rejected(f"{built} trajectories build {witness['routes']}; the control says {claimed}")
    return f"{built} trajectories build {witness['routes']}, the closed form without 2^a says {claimed}"


def _stepwise_walk(n: int, rule) -> tuple[int, int, dict]:
    """Every state on n customers (completed routes up to reversal, the open route), the backward
    probabilities ``rule`` gives each parent transition (exact Fractions), and every trajectory's
    product. Returns (states checked, trajectories, {(a, j): the set of products})."""
    products: dict[tuple[int, int], set] = {}
    states, trajectories = set(), 0

    def parents_sum(routes: frozenset) -> Fraction:
        a = sum(len(r) >= 2 for r in routes)
        total = Fraction(0)
        for r in routes:                    # reopen r, in each direction it can have been built
            for _ in {r, r[::-1]}:
                total += rule(a, len(routes) - a, len(r) >= 2)
        return total

    def go(routes: frozenset, current: tuple, left: frozenset, prob: Fraction) -> None:
        nonlocal trajectories
        key = (routes, current)
        if key not in states:
            states.add(key)
            if not current and routes and parents_sum(routes) != 1:
                raise Rejected(f"at depot state {sorted(routes)} the backward probabilities sum to "
                               f"{parents_sum(routes)}")
        if not left and not current:
            a = sum(len(r) >= 2 for r in routes)
            products.setdefault((a, len(routes) - a), set()).add(prob)
            trajectories += 1
            return
        for c in sorted(left):              # a customer state has one parent: probability 1
            go(routes, (*current, c), left - {c}, prob)
        if current:
            closed = routes | {_canonical_route(current)}
            a = sum(len(r) >= 2 for r in closed)
            go(closed, (), left, prob * rule(a, len(closed) - a, len(current) >= 2))

    go(frozenset(), (), frozenset(range(1, n + 1)), Fraction(1))
    return len(states), trajectories, products


def _ours_rule(a: int, j: int, multi: bool) -> Fraction:
    """Our factorisation: 1/m for which of the m completed routes was closed last, 1/2 for its direction."""
    return Fraction(1, a + j) * (Fraction(1, 2) if multi else 1)


def _paper_rule(a: int, j: int, multi: bool) -> Fraction:
    """Statement 3 as printed: uniform over the 2a + j parent transitions."""
    return Fraction(1, 2 * a + j)


def _stepwise_prove() -> dict:
    rows = []
    for n in range(1, CERT_CUSTOMERS):
        states, trajectories, products = _stepwise_walk(n, _ours_rule)
        for (a, j), seen in sorted(products.items()):
            if seen != {Fraction(1, _closed_form_count(a, j))}:
                raise Refuted({"n": n, "a": a, "j": j, "products": sorted(map(str, seen))},
                              "a trajectory's product differs from 1/((a+j)!·2^a)")
        rows.append({"n": n, "states": states, "trajectories": trajectories})
    return {"max_customers": CERT_CUSTOMERS - 1, "rule": "1/m, times 1/2 for a multi-node route",
            "rows": rows}


def _stepwise_recheck(proof: dict) -> str:
    if proof["max_customers"] != CERT_CUSTOMERS - 1 or len(proof["rows"]) != CERT_CUSTOMERS - 1:
        raise Rejected(f"the artifact covers {proof['max_customers']} customers, not {CERT_CUSTOMERS - 1}")
    total = 0
    for row in proof["rows"]:
        states, trajectories, products = _stepwise_walk(row["n"], _ours_rule)
        if (states, trajectories) != (row["states"], row["trajectories"]):
            raise Rejected(f"n = {row['n']}: {states} states and {trajectories} trajectories, the artifact "
                           f"says {row['states']} and {row['trajectories']}")
        for (a, j), seen in products.items():
            if seen != {Fraction(1, math.factorial(a + j) * 2**a)}:
                raise Rejected(f"n = {row['n']}, (a, j) = ({a}, {j}): products {sorted(seen)}")
        total += trajectories
    return (f"on <= {proof['max_customers']} customers our step-wise P_b sums to exactly 1 over the parents "
            f"of every depot state, and multiplies to 1/((a+j)!·2^a) along all {total} trajectories")


def _stepwise_refute() -> dict:
    return {"routes_in_order": [[1, 2], [3]]}


def _stepwise_recheck_witness(witness: dict) -> str:
    """Statement 3's uniform rule along the witness trajectory, from its definition: 2a + j parents."""
    order = [tuple(r) for r in witness["routes_in_order"]]
    prob, closed = Fraction(1), []
    for r in order:
        closed.append(r)
        a = sum(len(x) >= 2 for x in closed)
        prob *= Fraction(1, 2 * a + (len(closed) - a))
    a = sum(len(x) >= 2 for x in order)
    target = Fraction(1, math.factorial(len(order)) * 2**a)
    if prob == target:
        raise Rejected(f"the uniform rule gives {prob} = 1/((a+j)!·2^a) on {order}")
    return f"Statement 3's uniform rule multiplies to {prob} along {order}, not {target}"


def _telescope_prove() -> dict:
    # D(T) = Σ_{t<T} δ_t − (F_0 + Σ_{t<T} (pf_t − pb_t + e_t) − F_T): D(1) = 0 and D(T+1) − D(T) = 0,
    # written out (unevaluated) so that the recheck expands them itself
    base = "(F0 + pf - F1 - pb + e) - (F0 + pf - pb + e - F1)"
    step = "(F1 + pf - F2 - pb + e) - ((pf - pb + e) - F2 + F1)"
    if any(sympy.expand(sympy.sympify(x)) != 0 for x in (base, step)):
        raise CannotProve("the telescoping identity does not expand to zero")
    return {"delta_t": "F_t + pf_t - F_next - pb_t + e_t", "base": base, "step": step}


def _telescope_recheck(proof: dict) -> str:
    syms = {name: sympy.Symbol(name) for name in ("F0", "F1", "F2", "pf", "pb", "e")}
    F0, F1, F2, pf, pb, e = (syms[k] for k in ("F0", "F1", "F2", "pf", "pb", "e"))
    base = sympy.sympify(proof["base"], locals=syms)
    step = sympy.sympify(proof["step"], locals=syms)
    # the artifact's expressions must be the induction's two obligations, term for term
    want_base = (F0 + pf - F1 - pb + e) - (F0 + pf - pb + e - F1)
    want_step = (F1 + pf - F2 - pb + e) - ((pf - pb + e) - F2 + F1)
    if sympy.expand(base - want_base) != 0 or sympy.expand(step - want_step) != 0:
        raise Rejected("the artifact's base or step is not the induction obligation")
    if sympy.expand(base) != 0 or sympy.expand(step) != 0:
        raise Rejected(f"an obligation does not vanish: base {sympy.expand(base)}, step {sympy.expand(step)}")
    return ("Σ_{t<T} δ_t = log F(s_0) + Σ_t (log P_F − log P_B + e_t) − log F(s_T) for every T >= 1 "
            "(base and induction step vanish over Q[F, pf, pb, e])")


def _telescope_refute() -> dict:
    return {"F": ["1", "0"], "pf": ["0"], "pb": ["0"], "e": ["0"]}


def _telescope_recheck_witness(witness: dict) -> str:
    F = [Fraction(v) for v in witness["F"]]
    pf, pb, e = ([Fraction(v) for v in witness[k]] for k in ("pf", "pb", "e"))
    T = len(pf)
    if len(F) != T + 1 or F[T] != 0:
        raise Rejected("the witness must give F(s_0..s_T) with log F(s_T) = 0 (the terminal energy form)")
    swapped = sum(F[t + 1] + pf[t] - F[t] - pb[t] + e[t] for t in range(T))
    tb = F[0] + sum(pf) - sum(pb) + sum(e)
    if swapped == tb:
        raise Rejected(f"the swapped DB sum {swapped} equals the TB residual")
    return f"with the flow indices swapped Σ δ_t = {swapped} but the TB residual is {tb} (T = {T})"


_CERTIFICATES: dict[str, Certificate] = {
    f"{PAPER}.backward_policy": Certificate(
        statement="Every CVRP solution on at most 6 customers with a multi-node and j single-node routes is "
                  "built by exactly (a+j)!·2^a forward trajectories (so the uniform TB backward "
                  "probability is 1/((a+j)!·2^a), Statement 2), and B(a, j) = (a+j)!·2^a satisfies "
                  "Statement 1's recurrence B = 2a·B(a−1, j) + j·B(a, j−1) for all a, j >= 0 with a + j >= 1",
        scope="every solution of every CVRP instance with <= 6 customers (a capacity only removes "
              "infeasible solutions, whose routes are then absent; a feasible solution's routes fit in any "
              "order); the recurrence for all a, j. The TSP part of the claim (−log 2) is not certified.",
        method=Method.ENUMERATION,
        trusts="Python's integers (exact counting); sympy's combsimp/expand for the factorial recurrence",
        prove=_backward_prove,
        recheck=_backward_recheck,
        control_statement="the closed form without the route-reversal factor: (a+j)! trajectories per "
                          "solution",
        refute=_backward_refute,
        recheck_witness=_backward_recheck_witness,
        mutate=lambda proof: {**proof, "classes": [*proof["classes"][:-1], {
            **proof["classes"][-1], "solutions": proof["classes"][-1]["solutions"] + 1}]},
    ),
    f"{PAPER}.stepwise_backward_ours": Certificate(
        statement="Our step-wise backward policy (at a depot state with m completed routes: 1/m for the "
                  "route closed last, times 1/2 for its direction if it has >= 2 customers; 1 at customer "
                  "states) is a probability distribution over the parents of every state (sums to exactly "
                  "1), and its product along every trajectory equals 1/((a+j)!·2^a)",
        scope="every state and every trajectory on at most 5 customers (capacity removes states, never a "
              "parent of a kept state), exact rationals",
        method=Method.ENUMERATION,
        trusts="Python's Fractions (exact rational arithmetic)",
        prove=_stepwise_prove,
        recheck=_stepwise_recheck,
        control_statement="Statement 3's uniform 1/(2a+j) per parent transition also multiplies to "
                          "1/((a+j)!·2^a) along every trajectory",
        refute=_stepwise_refute,
        recheck_witness=_stepwise_recheck_witness,
        mutate=lambda proof: {**proof, "rows": [*proof["rows"][:-1], {
            **proof["rows"][-1], "trajectories": proof["rows"][-1]["trajectories"] + 1}]},
    ),
    f"{PAPER}.db_implies_tb": Certificate(
        statement="For every trajectory length T >= 1 and all real values, the forward-looking DB residuals "
                  "δ_t = log F(s_t) + log P_F − log F(s_{t+1}) − log P_B + e_t sum to log F(s_0) + Σ_t "
                  "(log P_F − log P_B + e_t) − log F(s_T): with log F(s_0) = log Z and log F(s_T) = 0 "
                  "(the energy form of F(x) = R(x), log R = −Σ e_t) that is the TB residual, so zero DB "
                  "residuals give a zero TB residual",
        scope="all T >= 1 (induction), all real flows, probabilities and energies; not the losses' "
              "averaging or the energy baseline (the claim's check sees those on our code)",
        method=Method.EXACT_ALGEBRA,
        trusts="sympy's polynomial expansion over Q",
        prove=_telescope_prove,
        recheck=_telescope_recheck,
        control_statement="the DB term with the flow indices swapped (log F(s_{t+1}) − log F(s_t)) also "
                          "sums to the TB residual",
        refute=_telescope_refute,
        recheck_witness=_telescope_recheck_witness,
        mutate=lambda proof: {**proof, "step": proof["step"].replace("F2", "2*F2", 1)},
    ),
}


def _one_thread(fn):
    """Run ``fn`` with one torch intra-op thread (restored after): the small rollouts here gain
    nothing from more, and two threads contending for 2 loaded cores cost several times the CPU."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)

    return wrapped


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
        certificate=_CERTIFICATES[f"{PAPER}.backward_policy"],
        expected_verdict="certified",
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
        certificate=_CERTIFICATES[f"{PAPER}.stepwise_backward_ours"],
        expected_verdict="certified",
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


def _numeric_sum(ctx: Context, swapped: bool) -> tuple[float, float, float, float]:
    """(max relative |Σ_t δ_t − δ_TB|, max relative |δ_TB − the TB residual rebuilt independently|,
    |db_loss − mean over trajectories of (Σ_t δ_t²)/T|, |our energy − (S−1)/S · Eq. 9's| (TSP)).

    The independent residual takes log R = −β (cost(x) − c̄) with cost(x) recomputed from the
    decoded solution (``tsp_cost``/``cvrp_cost``) and c̄ the mean over the instance's samples, and
    log P_B from the closed form (``cvrp_log_pb``; −log 2 for a TSP tour), so a wrong energy
    baseline or a wrong step-wise P_b cannot hide behind a telescoping that holds for any values.
    """
    torch.manual_seed(ctx.seed)
    worst, worst_tb, worst_avg, worst_baseline = 0.0, 0.0, 0.0, math.inf
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
        # db_loss: per trajectory the MEAN of δ_t² over its transitions, then the mean (not Eq. 10's sum)
        d2 = delta.double().pow(2).sum(1) / traj.valid.sum(1).clamp_min(1).double()
        loss = float(trajectory_loss(traj, "db", beta=beta))
        worst_avg = max(worst_avg, abs(loss - float(d2.mean())) / (1.0 + abs(loss)))
        if problem == "tsp":
            # Eq. 9's baseline is the mean over the OTHER trajectories; ours includes the trajectory itself:
            # c − mean_all = (S − 1)/S · (c − mean_others), per step (all TSP trajectories have T steps)
            c = traj.step_cost.double().numpy().reshape(-1, traj.samples, traj.step_cost.shape[1])
            others = (c.sum(1, keepdims=True) - c) / (traj.samples - 1)
            paper = (c - others).reshape(traj.step_cost.shape)
            ours = traj.energies(beta).double().numpy() / beta
            worst_baseline = float(np.abs(ours - (traj.samples - 1) / traj.samples * paper).max()
                                   / (1.0 + np.abs(paper).max()))
    return worst, worst_tb, worst_avg, worst_baseline


def _telescope(ctx: Context, swapped: bool) -> Outcome:
    for T in range(1, 7):
        out = prove_zero(_symbolic_sum(T, swapped), what=f"Σ_t δ_t^DB − δ^TB (T = {T} transitions)")
        if not out.passed:
            return out
    err, err_tb, err_avg, err_baseline = _numeric_sum(ctx, swapped)
    # float32 sums of ~10 terms of size <= ~100: relative rounding ~1e-6 (every comparison)
    ok = err <= 1e-5 and err_tb <= 1e-5 and err_avg <= 1e-5 and err_baseline <= 1e-5
    res = fact(
        ok,
        "summing the DB residuals along a trajectory gives the TB residual (sympy for T = 1..6, and "
        "our losses on sampled TSP/CVRP trajectories), and that TB residual has log R = −β(cost − c̄) and "
        "Statement 2's log P_B; db_loss averages δ_t² over each trajectory's transitions, and the step "
        "energy is (S − 1)/S times Eq. 9's (its baseline includes the trajectory itself)",
        max_rel_error=err,
        tb_rebuilt_rel_error=err_tb,
        db_loss_mean_rel_error=err_avg,
        energy_vs_eq9_rel_error=err_baseline,
    )
    return res


register(
    Claim(
        id=f"{PAPER}.db_implies_tb",
        paper=PAPER,
        source=f"Section 3.2.2, Eq. 2 / Eq. 10, Eq. 3 {SRC}",
        statement="With log F(s_0) = log Z, log F(x) = log R(x) and forward-looking energies, the DB "
                  "residuals of "
        "a trajectory telescope to its TB residual, so zero DB loss implies zero TB loss; our db_loss is the "
        "mean over trajectories of the per-trajectory mean of δ_t², and our step energy is (S − 1)/S times "
        "Eq. 9's",
        kind=Kind.NUMERIC,
        check=lambda ctx: _telescope(ctx, False),
        control=lambda ctx: _telescope(ctx, True),
        control_description="a DB term with the flow indices swapped (log F(s_{t+1}) in place of log F(s_t))",
        origin=Origin.PAPER,
    covers=(EQ_DB,),
    deviation="the paper states the per-transition DB loss; that its residuals telescope to TB's (with "
    "F(s_0) = Z, F(x) = R(x) and the Eq. 9 energies summing to the trajectory's) is our derived check, "
    "symbolic for T <= 6 (certified for every T) and numeric on our losses. Two departures of our code, "
    "stated and checked: db_loss takes the MEAN of δ_t² over a trajectory's transitions where the results "
    "map reads Eq. 10 as a sum (a per-trajectory weight 1/T; zero loss is the same), and the Eq. 9 baseline "
    "is the mean over all S samples at the step, the trajectory itself included, where the paper subtracts "
    "the mean of the OTHER trajectories: our energy is (S − 1)/S times the paper's (15/16 at S = 16, the "
    "same as β scaled by 15/16)",
        budget_s=20,
        certificate=_CERTIFICATES[f"{PAPER}.db_implies_tb"],
        expected_verdict="certified",
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
        id=f"{PAPER}.samples_prop_reward", cost_s=6,
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
        power="A longer training horizon: DB's exact KL is 0.060 after 200 steps (TB 0.005, hybrid "
              "0.027; untrained 0.43), between the 0.05 pass line and the 0.22 fail line. The full "
              "profile trains 400 steps on n = 6 (60 tours); whether DB converges below 0.05 there is "
              "not measured.",
        deviation="the theorem is about the loss's global optimum; we train for a fixed budget (quick: 200 "
        "Adam steps) and read a KL in (0.05, half the untrained KL) as not converged (inconclusive), "
        "not as a counterexample",
        budget_s=60,
    )
)


# ----------------------------------------------------------------------------- checkpoints


@functools.lru_cache(maxsize=64)
def _costs_cached(ckpt: str, problem: str, size: int, count: int, seed: int, mode: str, samples: int,
                  untrained: bool) -> tuple[float, ...]:
    path = shipped_checkpoints()[ckpt]
    model, _ = load_model(path)
    if untrained:
        torch.manual_seed(seed)
        model = RoutingGFlowNet(**model.config()).eval()
    gen = random_tsp if problem == "tsp" else random_cvrp
    insts = [gen(size, seed=10_000 + seed * 1000 + i) for i in range(count)]
    out = []
    g = torch.Generator().manual_seed(seed)
    # one intra-op thread: a 50-node rollout gains nothing from more, and under load two threads
    # contending for 2 shared cores cost ~7x the CPU (measured: 41 s against 6 s for depot_inference)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.no_grad():
            for inst in insts:
                traj = rollout(model, encode_instances(model, [inst]), samples, mode=mode, generator=g)
                out.append(float(traj.cost.min()))
    finally:
        torch.set_num_threads(threads)
    return tuple(out)


def _costs(ckpt: str, problem: str, size: int, count: int, seed: int, mode: str, samples: int,
           untrained: bool = False) -> np.ndarray:
    """Best-of-``samples`` cost per seeded test instance (cached: claims share their arms' runs)."""
    return np.array(_costs_cached(ckpt, problem, size, count, seed, mode, samples, untrained))


def _all_paired(parts: list[Outcome], what: str) -> Outcome:
    """Several paired comparisons of one claim: pass when all pass, fail when any fails (a significant
    difference the wrong way), else undecided. Each part's figures are kept, with the instances a part
    would need to be decided at its measured effect and spread (n·(2 SE/|mean|)², two-SE rule)."""
    evidence = {}
    for part in parts:
        figs = dict(part.evidence)
        mean, se, n = figs.get("mean_diff", 0.0), figs.get("std_err", 0.0), figs.get("instances", 0)
        if part.status == "undecided" and mean:
            figs["instances_to_decide"] = math.ceil(n * (2 * se / abs(mean)) ** 2)
        evidence[figs.pop("statement", part.summary)] = figs
    statuses = {p.status for p in parts}
    status = "fail" if "fail" in statuses else ("pass" if statuses == {"pass"} else "undecided")
    verdict = {"pass": "holds", "fail": "violated", "undecided": "within the seed spread"}[status]
    return Outcome(status, f"{what}: {verdict} ({'; '.join(p.summary for p in parts)})",
                   {"statement": what, **evidence})


#: best of 16 sampled trajectories per instance, as the paper's N = 20 at our scale
_SAMPLES = 16


def _cvrp(ckpt: str, mode: str, ctx: Context, untrained: bool = False) -> np.ndarray:
    return _costs(ckpt, "cvrp", 50, ctx.pick(12, 64), ctx.seed, mode, _SAMPLES, untrained=untrained)


def _hybrid_vs_tb(ctx: Context, first_untrained: bool) -> Outcome:
    """Table 3: HB against TB and against DB, trained alike (same steps), same decoding (plain sampling,
    as the table's rows, before depot-guided inference), CVRP50."""
    hb = _cvrp("cvrp50_hybrid", "sample", ctx, untrained=first_untrained)
    first = "an untrained policy" if first_untrained else "HB"
    parts = [_paired(hb, _cvrp(f"cvrp50_{other}", "sample", ctx),
                     f"CVRP50 best-of-16: {first} below {other.upper()}") for other in ("tb", "db")]
    return _all_paired(parts, f"{first} beats TB and DB trained alike on CVRP50 (plain sampling)")


def _hbg_vs_base(ctx: Context, first_untrained: bool) -> Outcome:
    """Table 1: HBG (HB training + depot-guided inference) against its TB-trained base (plain sampling)."""
    hbg = _cvrp("cvrp50_hybrid", "depot", ctx, untrained=first_untrained)
    first = "an untrained policy (depot-guided)" if first_untrained else "HBG"
    return _paired(hbg, _cvrp("cvrp50_tb", "sample", ctx),
                   f"CVRP50 best-of-16: {first} below the TB-trained base with plain sampling")


def _ablation(ctx: Context, first_untrained: bool) -> Outcome:
    """Table 2: TB → + HB (plain sampling) → + depot-guided inference, each step lowering the cost."""
    tb = _cvrp("cvrp50_tb", "sample", ctx)
    hb = _cvrp("cvrp50_hybrid", "sample", ctx, untrained=first_untrained)
    hb_dg = _cvrp("cvrp50_hybrid", "depot", ctx, untrained=first_untrained)
    name = "an untrained policy" if first_untrained else "HB"
    parts = [_paired(hb, tb, f"CVRP50: TB -> + {name} (plain sampling) lowers the cost"),
             _paired(hb_dg, hb, f"CVRP50: {name} -> + depot-guided inference lowers the cost")]
    return _all_paired(parts, f"each component ({name}, then depot-guided inference) lowers the CVRP50 cost")


def _tsp_hybrid_vs_tb(ctx: Context, first_untrained: bool) -> Outcome:
    """Table 5: on TSP50 (no depot: plain sampling) HB against TB trained alike."""
    count = ctx.pick(12, 64)
    hb = _costs("tsp50_hybrid", "tsp", 50, count, ctx.seed, "sample", _SAMPLES, untrained=first_untrained)
    tb = _costs("tsp50_tb", "tsp", 50, count, ctx.seed, "sample", _SAMPLES)
    first = "an untrained policy" if first_untrained else "HB"
    return _paired(hb, tb, f"TSP50 best-of-16: {first} below TB trained alike")


_TRAINING_SCALE = ("CPU scale: 50-node instances (the training size; the paper trains on 100 and tests on "
                   "200-1000), minutes of training, our plain-torch GNN policy (no AGFN discriminator or "
                   "GFACS ant colony), best of 16 samples, no local search; equal training steps per arm")

register(
    Claim(
        id=f"{PAPER}.hybrid_vs_tb",
        paper=PAPER,
        source=f"Table 3, Section 4.2 {SRC}",
        statement="On seeded CVRP50 test sets, the hybrid (TB + DB) checkpoint reaches a lower mean "
                  "best-of-16 "
                  "cost than both the TB-only and the DB-only checkpoints trained for the same steps, with "
                  "the same plain-sampling decoding (two paired comparisons; inconclusive when a difference "
                  "is within 2 standard errors, falsified when either goes significantly the other way)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _hybrid_vs_tb(ctx, False),
        control=lambda ctx: _hybrid_vs_tb(ctx, True),
        control_description="an untrained policy in place of the hybrid checkpoint",
        origin=Origin.PAPER,
        covers=(T3,),
        deviation=_TRAINING_SCALE + "; the AGFN-style arm only. (Earlier versions pooled TSP50 into this "
                  "CVRP table and left out the DB arm; TSP is Table 5's claim tsp_hybrid_vs_tb.)",
        expected_verdict="inconclusive",
        power="HB vs TB: mean difference −0.05 ± 0.18 SE over 12 instances; two standard errors at that "
              "effect need about 645 instances; the full profile runs 64, so it does not decide it "
              "either (HB vs DB already holds).",
        budget_s=60,
    )
)

register(
    Claim(
        id=f"{PAPER}.hbg_vs_base",
        paper=PAPER,
        source=f"Table 1, Section 4.1 {SRC}",
        statement="On seeded CVRP50 test sets, HBG (the hybrid checkpoint with depot-guided inference) "
                  "reaches "
                  "a lower mean best-of-16 cost than its TB-trained base with plain sampling (paired; "
                  "inconclusive within 2 standard errors)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _hbg_vs_base(ctx, False),
        control=lambda ctx: _hbg_vs_base(ctx, True),
        control_description="an untrained policy (depot-guided) in place of HBG",
        origin=Origin.PAPER,
        covers=("Table 1",),
        deviation=_TRAINING_SCALE + "; the comparison of HBG with its base only (the table's other "
                  "baselines, POMO, GANCO, NeuOpt, ACO, are not reimplemented; NN + 2-opt is "
                  "hbg_beats_nn2opt)",
        expected_verdict="inconclusive",
        power="Mean difference −0.25 ± 0.18 SE over 12 instances: two standard errors at that effect "
              "need about 25 instances; the full profile runs 64.",
        budget_s=60,
    )
)

register(
    Claim(
        id=f"{PAPER}.ablation_components",
        paper=PAPER,
        source=f"Table 2, Section 4.2 {SRC}",
        statement="On seeded CVRP50 test sets, adding HB to the TB-trained checkpoint lowers the mean "
                  "best-of-16 cost (both with plain sampling), and depot-guided inference on top of HB "
                  "lowers "
                  "it again (two paired comparisons; inconclusive within 2 standard errors, falsified when "
                  "either goes significantly the other way)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _ablation(ctx, False),
        control=lambda ctx: _ablation(ctx, True),
        control_description="an untrained policy in place of the hybrid checkpoint",
        origin=Origin.PAPER,
        covers=("Table 2",),
        deviation=_TRAINING_SCALE,
        expected_verdict="inconclusive",
        power="The two steps (−0.16 ± 0.19 and −0.11 ± 0.11 SE over 12 instances) need about 75 and 50 "
              "instances at their measured effects; the full profile runs 64, enough for the second, not "
              "the first.",
        budget_s=60,
    )
)

register(
    Claim(
        id=f"{PAPER}.tsp_hybrid_vs_tb",
        paper=PAPER,
        source=f"Table 5, Section 4.3 {SRC}",
        statement="On seeded TSP50 test sets (no depot: plain sampling), the hybrid checkpoint reaches "
                  "a lower "
                  "mean best-of-16 tour length than the TB-only checkpoint trained for the same steps "
                  "(paired; inconclusive within 2 standard errors)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _tsp_hybrid_vs_tb(ctx, False),
        control=lambda ctx: _tsp_hybrid_vs_tb(ctx, True),
        control_description="an untrained policy in place of the hybrid checkpoint",
        origin=Origin.PAPER,
        covers=("Table 5",),
        deviation=_TRAINING_SCALE.replace("200-1000", "200-1000 nodes") + "; HB against TB only (the "
                  "table's other baselines are not reimplemented)",
        expected_verdict="inconclusive",
        power="No practical size: the measured difference (+0.002 ± 0.055 SE over 12 instances) is 0.04 "
              "standard errors, so two would need about 40 000 instances; the full profile's 64 only "
              "narrows the interval around an effect of about zero.",
        budget_s=60,
    )
)


_DECODINGS = {"DS and CG": ("depot", False), "DS and CS": ("sample", False), "DG and CG": ("greedy", False),
              "DG and CS": ("sample", True)}


def _depot_inference(ctx: Context, control: bool) -> Outcome:
    """Table 4: depot sampling + customer greedy (Eq. 12) against each of the other three decodings."""
    count = ctx.pick(16, 64)
    costs = {}
    for name, (mode, swapped) in _DECODINGS.items():
        samples = 1 if mode == "greedy" else _SAMPLES        # greedy everywhere: the 16 runs coincide
        costs[name] = (_costs_dg_cs(count, ctx.seed, samples) if swapped
                       else _costs("cvrp50_hybrid", "cvrp", 50, count, ctx.seed, mode, samples))
    best = "DS and CG"
    if control:
        # the depot test never firing (e.g. ``at_depot`` read after ``cur`` moved): greedy at every node
        costs[best] = costs["DG and CG"]
    parts = [_paired(costs[best], costs[other], f"CVRP50: {best} below {other}")
             for other in _DECODINGS if other != best]
    what = ("of the four depot/customer sample/greedy decodings, depot sampling + customer greedy has the "
            "lowest mean best-of-16 CVRP50 cost")
    if control:
        what += " (its depot test never firing)"
    return _all_paired(parts, what)


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
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in _costs
    try:
        with torch.no_grad():
            for inst in insts:
                traj = rollout(model, encode_instances(model, [inst]), samples, mode="sample", generator=gen)
                out.append(float(traj.cost.min()))
    finally:
        g._choose = orig
        torch.set_num_threads(threads)
    return np.array(out)


register(
    Claim(
        id=f"{PAPER}.depot_inference",
        paper=PAPER,
        source=f"Eq. 12, Table 4 {SRC}",
        statement="With the shipped CVRP50 hybrid checkpoint, depot-guided decoding (sample at the "
                  "depot, greedy "
                  "at customers; 16 trajectories) gives a lower mean best cost than each of the other three "
                  "decodings of Table 4: sampling everywhere (16), greedy everywhere (1), greedy at the "
                  "depot "
                  "with sampling at customers (16) (three paired comparisons; falsified when any of them is "
                  "significantly better, inconclusive when one is within 2 standard errors)",
        kind=Kind.NUMERIC,
        check=lambda ctx: _depot_inference(ctx, False),
        control=lambda ctx: _depot_inference(ctx, True),
        control_description="depot-guided decoding whose depot test never fires (greedy at every node, the "
        "16 trajectories identical)",
        origin=Origin.PAPER,
        covers=(EQ_DG, T4),
        deviation="CVRP50 (the training size), 16 samples, no local search, our CPU-trained policy; all four "
                  "rows of Table 4 compared (an earlier version tested one comparison and only reported the "
                  "'DG and CS' row, which contradicts the table)",
        expected_verdict="falsified",
        budget_s=60,
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
    worst, unsound = 0.0, 0
    for k in range(ctx.pick(12, 40)):
        n = int(rng.integers(3, 9))
        inst = random_tsp(n, seed=int(rng.integers(1 << 30)))
        if broken:
            value = _hk_no_return(inst.distances)
        else:
            sol = solve(inst, HeldKarp())
            value = sol.value
            # the answer itself: Success, a valid tour, and the reported value is its length
            ok = sol.successful and isinstance(sol.x, list) and sorted(sol.x) == list(range(n))
            unsound += not (ok and abs(tsp_cost(inst, sol.x) - value) <= 1e-9)
        worst = max(worst, abs(value - _brute_tsp(inst)))
        del k
    # both sides sum the same <= 8 float edges: rounding <= 1e-12
    return fact(
        worst <= 1e-9 and unsound == 0,
        "Held–Karp returns Success with a valid tour whose length equals brute force over all tours "
        "(n = 3..8)",
        max_abs_error=worst,
        unsound_answers=unsound,
    )


register(
    Claim(
        id=f"{PAPER}.held_karp_exact",
        paper=PAPER,
        source="Held & Karp 1962; algorithms.routing.held_karp",
        statement="Held–Karp returns Success with a valid tour whose length (the reported value) equals the "
        "brute-force optimum on random TSPs with 3..8 nodes",
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
    worst, unsound = 0.0, 0
    for _ in range(ctx.pick(6, 20)):
        n = int(rng.integers(2, 6))
        dem = rng.integers(1, 10, size=n)
        inst = CVRPInstance(rng.random((n + 1, 2)), dem, int(rng.integers(dem.max(), dem.sum() + 1)))
        best = min(cvrp_cost(inst, routes_from_sequence(s)) for s in _cvrp_sequences(inst))
        if broken:  # capacity ignored: one giant route is allowed
            relaxed = CVRPInstance(inst.coords, inst.demands, int(dem.sum()))
            value = solve(relaxed, CVRPEnumeration()).value
        else:
            sol = solve(inst, CVRPEnumeration())
            value = sol.value
            # the answer itself: Success (the DP's value agreed with the routes' recomputed cost),
            # a feasible route set, and the reported value is its cost
            ok = sol.successful and sol.x is not None and is_valid_cvrp(inst, routes_from_sequence(sol.x))
            unsound += not (ok and abs(cvrp_cost(inst, routes_from_sequence(sol.x)) - value) <= 1e-9)
        worst = max(worst, abs(value - best))
    return fact(
        worst <= 1e-9 and unsound == 0,
        "CVRP enumeration returns Success with a feasible route set whose cost equals the best of all "
        "enumerated trajectories (2..5 customers)",
        max_abs_error=worst,
        unsound_answers=unsound,
    )


register(
    Claim(
        id=f"{PAPER}.cvrp_enumeration_exact",
        paper=PAPER,
        source="algorithms.routing.cvrp_enumeration",
        statement="The subset-DP enumeration returns Success with a feasible route set whose cost (the "
        "reported value) equals the cheapest of all forward trajectories (exhaustive) on random instances "
        "with 2..5 customers",
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
        # HGS as the benchmark calls it: the default scale=None picks the power of ten from the data
        # (1e4 on unit-square coordinates)
        # solve's seeds run to 2**64 and PyVRP's to 2**32: a seed past 2**32 must reach it reduced
        sol = solve(inst, HGS(runtime=0.2, scale=1.0 if broken else None), seed=ctx.seed + 2**32)
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
        "PyVRP (its default scale, chosen from the data) on CVRPs of 4..6 customers return valid solutions "
        "whose cost equals the exact optimum "
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
    refused = 0  # valid solutions refused (a validator that rejects everything would pass otherwise)
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
        target = (
            CVRPInstance(inst.coords, inst.demands, int(inst.demands.sum())) if ignore_capacity else inst
        )
        # the boolean form is what the solvers' Success paths (LKH, HGS, HBG, NN + 2-opt) rely on
        refused += not is_valid_cvrp(target, [list(r) for r in routes])
        for b in bad:
            if b is None:
                continue
            missed += is_valid_cvrp(target, b)
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
        missed == 0 and refused == 0,
        "the CVRP validator (check_cvrp_routes and is_valid_cvrp) rejects duplicated, missing and "
        "overloaded solutions and accepts the valid ones they were made from",
        missed=missed,
        cases=cases,
        valid_refused=refused,
    )


register(
    Claim(
        id=f"{PAPER}.validator_rejects",
        paper=PAPER,
        source="algorithms.routing.problem.check_cvrp_routes",
        statement="The CVRP solution check (check_cvrp_routes, and is_valid_cvrp that the solvers' Success "
        "paths use) rejects a solution that visits a customer twice, misses one, or puts every customer on "
        "one overloaded route, and accepts the valid solution each was made from",
        kind=Kind.PROPERTY,
        check=lambda ctx: _validator_check(ctx, False),
        control=lambda ctx: _validator_check(ctx, True),
        control_description="a validator that ignores the capacity",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)


# ----------------------------------------------------------------------------- 2-opt against the optimum


def _cycle_cost(dist: np.ndarray, cycle) -> float:
    c = np.asarray(cycle, dtype=np.int64)
    return float(dist[c, np.roll(c, -1)].sum())


def _best_two_opt_gain(dist: np.ndarray, cycle) -> float:
    """Largest decrease of the closed cycle's length over every 2-opt move (segment reversal),
    each neighbour's length recomputed from scratch (independent of ``two_opt``'s gain formula)."""
    c = list(cycle)
    m, base, best = len(c), _cycle_cost(dist, c), 0.0
    for i in range(m - 1):
        for j in range(i + 2, m):
            best = max(best, base - _cycle_cost(dist, c[: i + 1] + c[i + 1 : j + 1][::-1] + c[j + 1 :]))
    return best


#: a move counts as improving above 1e-9 (the solver's own threshold is 1e-10; lengths are float64
#: sums of <= 11 unit-square edges, rounding ~1e-15)
_MOVE_TOL = 1e-9


def _two_opt_check(ctx: Context) -> Outcome:
    import algorithms.routing.nn2opt as nn2

    rng = ctx.rng("two-opt")
    bad = {"invalid": 0, "not_success": 0, "value_mismatch": 0, "below_optimum": 0, "worsened": 0,
           "not_local_optimum": 0, "n4_not_optimal": 0}
    equal, runs, gaps = 0, 0, []
    for k in range(ctx.pick(16, 60)):
        n = 4 if k < 3 else int(rng.integers(5, 11))
        inst = random_tsp(n, seed=int(rng.integers(1 << 30)))
        dist = inst.distances
        opt = solve(inst, HeldKarp()).value
        start = [0, *(rng.permutation(n - 1) + 1).tolist()]
        # at most n² moves (a local optimum of <= 10 nodes takes far fewer): a move that breaks the tour
        # then ends in an invalid answer instead of running to the default cap of 10 000
        sol = solve(inst, nn2.NearestNeighbor2Opt(), maxiters=n * n)
        direct, ok, _ = nn2.two_opt(dist, start, max_moves=n * n)
        for tour, value, success in ((sol.x, sol.value, sol.successful), (direct, None, ok)):
            runs += 1
            if not (isinstance(tour, list) and sorted(tour) == list(range(n))):
                bad["invalid"] += 1
                continue
            length = tsp_cost(inst, tour)
            bad["not_success"] += not success
            bad["value_mismatch"] += value is not None and abs(value - length) > 1e-9
            bad["below_optimum"] += length < opt - 1e-9
            bad["not_local_optimum"] += _best_two_opt_gain(dist, tour) > _MOVE_TOL
            bad["n4_not_optimal"] += n == 4 and length > opt + 1e-9
            equal += length <= opt + 1e-9
            gaps.append(length / opt - 1.0)
        if isinstance(direct, list) and sorted(direct) == list(range(n)):
            bad["worsened"] += tsp_cost(inst, direct) > _cycle_cost(dist, start) + 1e-12
    for _ in range(ctx.pick(6, 20)):
        inst = random_cvrp(int(rng.integers(4, 8)), seed=int(rng.integers(1 << 30)), capacity=15)
        opt = solve(inst, CVRPEnumeration()).value
        sol = solve(inst, nn2.NearestNeighbor2Opt(), maxiters=(inst.n_customers + 1) ** 2)
        runs += 1
        routes = routes_from_sequence(sol.x)
        try:
            length = cvrp_cost(inst, routes)
        except ValueError:
            bad["invalid"] += 1
            continue
        bad["not_success"] += not sol.successful
        bad["value_mismatch"] += abs(sol.value - length) > 1e-9
        bad["below_optimum"] += length < opt - 1e-9
        gains = [_best_two_opt_gain(inst.distances, [0, *r]) for r in routes]
        bad["not_local_optimum"] += max(gains) > _MOVE_TOL
        equal += length <= opt + 1e-9
        gaps.append(length / opt - 1.0)
    return fact(
        not any(bad.values()),
        "2-opt (alone from a random tour, and NN + 2-opt through solve) returns a valid Success answer "
        "whose reported value is its length, never below the exact optimum, never longer than its start, "
        "with no improving 2-opt move left (every neighbour recomputed), and optimal on 4-node TSPs",
        **bad,
        runs=runs,
        at_optimum=equal,
        mean_gap_to_optimum=float(np.mean(gaps)) if gaps else math.nan,
    )


def _two_opt_control(ctx: Context) -> Outcome:
    """2-opt that returns after its first improving move and still reports a local optimum (a
    misplaced ``return`` in the move loop)."""
    import algorithms.routing.nn2opt as nn2

    orig = nn2.two_opt

    def one_move(dist, tour, max_moves=nn2.MAX_MOVES, tol=1e-10):
        t, _, moves = orig(dist, tour, min(max_moves, 1), tol)
        return t, True, moves

    nn2.two_opt = one_move
    try:
        return _two_opt_check(ctx)
    finally:
        nn2.two_opt = orig


register(
    Claim(
        id=f"{PAPER}.two_opt_exact",
        paper=PAPER,
        source="Croes 1958 (2-opt); algorithms.routing.nn2opt, the benchmark's classical baseline and HBG's "
        "local search",
        statement="On random TSPs of 4..10 nodes (Held–Karp optimum) and CVRPs of 4..7 customers "
        "(enumeration optimum), best-improvement 2-opt, allowed (nodes)² moves, returns a valid answer with "
        "Success (a local optimum within that many moves), reports its "
        "true length, never beats the optimum, never lengthens its start tour, leaves no improving "
        "2-opt move (each neighbour recomputed from scratch) and is optimal on 4-node TSPs (every other "
        "tour is a 2-opt neighbour there)",
        kind=Kind.PROPERTY,
        check=_two_opt_check,
        control=_two_opt_control,
        control_description="a 2-opt that stops after its first improving move yet reports a local optimum",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)


# ----------------------------------------------------------------------------- HBG solve end to end


def _costliest_trajectory(cost):
    """The control's bug: HBG's inference keeps the costliest sample (``argmax`` for ``argmin``)."""
    return int(torch.argmax(cost))


@_one_thread
def _hbg_solve_check(ctx: Context) -> Outcome:
    import algorithms.routing.hbg as hbg_mod
    from algorithms.routing.problem import is_valid_cvrp, is_valid_tsp
    from theorems.core.sabotage import patched

    route_two_opt = hbg_mod._route_two_opt

    def spy_route_two_opt(*args):  # a CVRP route's 2-opt must stop at a local optimum, not at its move cap
        out = route_two_opt(*args)
        bad["move_cap_reached"] += not out[1]
        return out

    rng = ctx.rng("hbg-solve")
    S = 16
    bad = {"not_success": 0, "invalid": 0, "value_mismatch": 0, "not_best_sample": 0, "below_optimum": 0,
           "local_search_worsened": 0, "not_local_optimum": 0, "move_cap_reached": 0, "default_seed_not_0": 0}
    gaps_raw, gaps_ls = [], []
    cases = [("tsp", int(rng.integers(7, 11))) for _ in range(ctx.pick(4, 12))]
    cases += [("cvrp", int(rng.integers(4, 7))) for _ in range(ctx.pick(3, 8))]
    for problem, n in cases:
        seed = int(rng.integers(1 << 30))
        if problem == "tsp":
            inst = random_tsp(n, seed=seed)
            opt = solve(inst, HeldKarp()).value
        else:
            inst = random_cvrp(n, seed=seed, capacity=15)
            opt = solve(inst, CVRPEnumeration()).value
        model, _ = load_model(shipped_checkpoints()[f"{problem}20_hybrid"])
        mode = "sample" if problem == "tsp" else "depot"
        with torch.no_grad():
            traj = rollout(model, encode_instances(model, [inst]), S, mode=mode,
                           generator=torch.Generator().manual_seed(ctx.seed))
        if problem == "tsp":
            sample_costs = [tsp_cost(inst, s[:-1]) for s in traj.sequences()]
        else:
            sample_costs = [cvrp_cost(inst, routes_from_sequence(s)) for s in traj.sequences()]
        values = {}
        for ls in (False, True):
            alg = HBG(checkpoint=f"{problem}20", samples=S, local_search=ls, allow_size_transfer=True)
            with patched(hbg_mod, "_route_two_opt", spy_route_two_opt):
                sol = solve(inst, alg, seed=ctx.seed)
            bad["not_success"] += not sol.successful
            if problem == "tsp":
                valid = isinstance(sol.x, list) and is_valid_tsp(inst, sol.x)
                parts = [sol.x] if valid else []
                length = tsp_cost(inst, sol.x) if valid else math.nan
            else:
                valid = sol.x is not None and is_valid_cvrp(inst, routes_from_sequence(sol.x))
                parts = [[0, *r] for r in routes_from_sequence(sol.x)] if valid else []
                length = cvrp_cost(inst, routes_from_sequence(sol.x)) if valid else math.nan
            if not valid:
                bad["invalid"] += 1
                continue
            values[ls] = length
            bad["value_mismatch"] += abs(sol.value - length) > 1e-9
            bad["below_optimum"] += length < opt - 1e-9
            if ls:
                gains = [_best_two_opt_gain(inst.distances, p) for p in parts]
                bad["not_local_optimum"] += max(gains) > _MOVE_TOL
            else:
                # the policy's answer is the cheapest of the S samples (float32 argmin against
                # float64 lengths: ties within 1e-5 relative)
                bad["not_best_sample"] += length > min(sample_costs) * (1 + 1e-5)
        if len(values) == 2:
            bad["local_search_worsened"] += values[True] > values[False] + 1e-9
            gaps_raw.append(values[False] / opt - 1.0)
            gaps_ls.append(values[True] / opt - 1.0)
    # solve's seed 0, and no seed, sample under torch.Generator().manual_seed(0): on a fixed TSP10 whose
    # best of 4 samples differs between generator seeds 0 and 1, the answer is seed 0's cheapest trajectory
    fixed = random_tsp(10, seed=0)
    model, _ = load_model(shipped_checkpoints()["tsp20_hybrid"])
    with torch.no_grad():
        traj = rollout(model, encode_instances(model, [fixed]), 4, mode="sample",
                       generator=torch.Generator().manual_seed(0))
    cheapest = traj.sequences()[int(traj.cost.argmin())][:-1]
    for seed in (0, None):
        alg = HBG(checkpoint="tsp20", samples=4, local_search=False, allow_size_transfer=True)
        bad["default_seed_not_0"] += solve(fixed, alg, seed=seed).x != cheapest
    return fact(
        not any(bad.values()),
        "solve(instance, HBG(...)) on tiny TSPs/CVRPs returns Success with a valid answer whose value is its "
        "length, never below the exact optimum; without local search it is the cheapest of the sampled "
        "trajectories, with local search no longer than that and a 2-opt local optimum",
        **bad,
        instances=len(cases),
        mean_gap_policy=float(np.mean(gaps_raw)) if gaps_raw else math.nan,
        mean_gap_with_2opt=float(np.mean(gaps_ls)) if gaps_ls else math.nan,
    )


def _hbg_solve_control(ctx: Context) -> Outcome:
    import algorithms.routing.hbg as hbg_mod

    orig = hbg_mod._best_trajectory
    hbg_mod._best_trajectory = _costliest_trajectory
    try:
        return _hbg_solve_check(ctx)
    finally:
        hbg_mod._best_trajectory = orig


register(
    Claim(
        id=f"{PAPER}.hbg_solve_exact",
        paper=PAPER,
        source=f"Section 3.2.3 (inference: best of the sampled trajectories, then local search) {SRC}; "
        "algorithms.routing.hbg",
        statement="End to end through solve(instance, HBG(checkpoint, samples=16)) with the shipped size-20 "
        "hybrid checkpoints on TSPs of 7..10 nodes and CVRPs of 4..6 customers: Success, a valid tour / "
        "route set whose reported value is its length and is >= the exact optimum (Held–Karp / "
        "enumeration); without local search the answer is the cheapest of the 16 trajectories the policy "
        "samples under the same seed; the 2-opt never lengthens it and leaves a 2-opt local optimum (each "
        "CVRP route's 2-opt stops there, before its move cap); with seed 0 or no seed, a fixed TSP10's "
        "answer (4 samples, no local search) is the cheapest of the 4 trajectories sampled under generator "
        "seed 0",
        kind=Kind.PROPERTY,
        check=_hbg_solve_check,
        control=_hbg_solve_control,
        control_description="HBG's decoder keeping the costliest sampled trajectory (argmax for argmin)",
        origin=Origin.IMPLEMENTATION,
        deviation="size transfer (checkpoints trained at 20, tested at <= 10 nodes) so that the exact "
        "optimum is computable",
        budget_s=30,
    )
)


# ----------------------------------------------------------------------------- the encoder's kNN graph


def _knn_reference(dist: np.ndarray, k: int, depot: bool) -> np.ndarray:
    n = dist.shape[0]
    k = min(k, n - 1)
    d = dist.copy()
    np.fill_diagonal(d, np.inf)
    adj = np.zeros((n, n))
    for i in range(n):
        adj[i, np.argsort(d[i])[:k]] = 1.0
    adj = np.maximum(adj, adj.T)
    if depot:
        adj[0, 1:] = adj[1:, 0] = 1.0
    return adj


@_one_thread
def _encoder_check(ctx: Context) -> Outcome:
    import algorithms.routing.gflownet as gfn

    rng = ctx.rng("encoder")
    adj_err, dep_err, cases = 0, 0, 0
    for problem, n, k in (("tsp", 5, None), ("tsp", 9, 2), ("tsp", 12, None), ("cvrp", 5, None),
                          ("cvrp", 10, 2), ("cvrp", 12, 3)):
        seed = int(rng.integers(1 << 30))
        inst = random_tsp(n, seed=seed) if problem == "tsp" else random_cvrp(n - 1, seed=seed)
        torch.manual_seed(seed % 10_000)
        model = RoutingGFlowNet(problem, hidden=8, layers=1, k=k)
        x, dist, _ = gfn._features(inst, torch.float64)
        model = model.double()
        kk = k if k is not None else max(5, n // 5)
        ref = _knn_reference(np.asarray(inst.distances, float), kk, problem == "cvrp")
        got = gfn.knn_adjacency(dist[None], kk, depot=problem == "cvrp")[0].numpy()
        adj_err += int((got != ref).sum())
        # one GNN layer: node i's embedding may depend on node j's features only when j = i or j is
        # a kNN neighbour (message passing restricted to the graph); the Jacobian is exactly zero
        # elsewhere, so any nonzero entry off the pattern is a leak and a missing one a dropped edge
        def embed(z, model=model, dist=dist):
            return model.encode(z[None], dist[None])[1][0]

        jac = torch.autograd.functional.jacobian(embed, x)
        dep = (jac.abs().sum((1, 3)) > 0).numpy()
        dep_err += int((dep != ((ref > 0) | np.eye(n, dtype=bool))).sum())
        cases += 1
    return fact(
        adj_err == 0 and dep_err == 0,
        "the encoder's graph is each node's k nearest neighbours (symmetrised, no self loops) with every "
        "depot edge kept for CVRP, and one GNN layer passes messages along exactly those edges",
        adjacency_mismatches=adj_err,
        dependency_mismatches=dep_err,
        instances=cases,
    )


def _encoder_control(ctx: Context) -> Outcome:
    import algorithms.routing.gflownet as gfn

    orig = gfn.knn_adjacency
    gfn.knn_adjacency = lambda dist, k, depot: orig(dist, k, False)
    try:
        return _encoder_check(ctx)
    finally:
        gfn.knn_adjacency = orig


register(
    Claim(
        id=f"{PAPER}.encoder_knn_graph",
        paper=PAPER,
        source="Section 4 (the AGFN/GFACS sparse kNN encoder, depot edges kept for CVRP) "
        f"{SRC}; algorithms.routing.gflownet",
        statement="The encoder's adjacency equals an independent kNN graph (k nearest per node, symmetrised, "
        "no self loops, k capped at n−1) with every depot edge added for CVRP, and a one-layer encoder's "
        "node embeddings depend (autograd Jacobian) on exactly the node itself and its graph neighbours",
        kind=Kind.PROPERTY,
        check=_encoder_check,
        control=_encoder_control,
        control_description="the CVRP encoder built without the depot edges (plain kNN graph)",
        origin=Origin.IMPLEMENTATION,
        budget_s=20,
    )
)


# ----------------------------------------------------------------------------- the training script


def _train_check(ctx: Context, flip_reward: bool = False) -> Outcome:
    """Run ``algorithms.routing.train.train`` (TSP8, 40 steps, hybrid loss) with spies on the β it
    passes to the loss and the instance seeds it draws; then compare the written checkpoint with
    the untrained policy it started from on 16 held-out instances (paired mean sampled cost)."""
    import algorithms.routing.train as tr

    steps, size, bmin, bmax = 40, 8, 2.0, 20.0
    betas, seeds, saves, centers, drawn = [], [], [], [], []
    orig_loss, orig_inst, orig_save = tr.trajectory_loss, tr._instances, tr.save_checkpoint

    def spy_loss(traj, loss, beta=1.0, center=True, db_weight=1.0):
        betas.append(beta)
        centers.append(center)
        if flip_reward:  # the control's bug: R = exp(+β cost) (energy and reward signs confused)
            traj = dataclasses.replace(traj, step_cost=-traj.step_cost)
        return orig_loss(traj, loss, beta=beta, center=center, db_weight=db_weight)

    def spy_inst(problem, size, count, seed):
        seeds.extend(seed + i for i in range(count))
        out = orig_inst(problem, size, count, seed)
        drawn.extend(inst.coords.tobytes() for inst in out)
        return out

    def spy_save(path, model, meta, *args, **kwargs):
        saves.append((meta["steps"], meta["minutes"], meta["cpu_minutes"]))
        return orig_save(path, model, meta, *args, **kwargs)

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    tr.trajectory_loss, tr._instances, tr.save_checkpoint = spy_loss, spy_inst, spy_save
    try:
        with tempfile.TemporaryDirectory() as d:
            path = f"{d}/m.pt"
            wall0, cpu0 = time.perf_counter(), time.process_time()
            meta = tr.train(problem="tsp", size=size, loss="hybrid", steps=steps, batch=2, samples=8,
                            hidden=16, layers=1, lr=1e-2, beta_min=bmin, beta_max=bmax, seed=ctx.seed,
                            out=path, save_every=10, progress=False)
            wall, cpu = (time.perf_counter() - wall0) / 60.0, (time.process_time() - cpu0) / 60.0
            trained, _, _ = tr.load_checkpoint(path)
    finally:
        tr.trajectory_loss, tr._instances, tr.save_checkpoint = orig_loss, orig_inst, orig_save
        torch.set_num_threads(threads)
    # the wall budget counts this call's own time (a fresh call given 1e-12 minutes stops before its
    # first step; CVRP with 2 customers is the smallest it takes), and the checkpoint it writes, under
    # a path not ending in .pt, loads into HBG by that path
    with tempfile.TemporaryDirectory() as d:
        tiny = os.path.join(d, "budget.ckpt")
        # ... and writes its checkpoint atomically: to a temporary file, then moved onto the path
        written = []
        orig_torch_save = torch.save

        def spy_torch_save(obj, f, *args, **kwargs):
            written.append(os.fspath(f))
            return orig_torch_save(obj, f, *args, **kwargs)

        torch.save = spy_torch_save
        try:
            budget_steps = tr.train(problem="cvrp", size=2, steps=3, minutes=1e-12, batch=1, samples=2,
                                    hidden=4, layers=1, seed=ctx.seed, out=tiny, progress=False)["steps"]
        finally:
            torch.save = orig_torch_save
        atomic = (bool(written) and all(w != tiny and os.path.dirname(w) == d for w in written)
                  and sorted(os.listdir(d)) == ["budget.ckpt", "budget.json"])
        try:
            by_path = solve(random_cvrp(2, seed=ctx.seed), HBG(checkpoint=tiny, samples=2)).retcode.value
        except ValueError as exc:
            by_path = f"refused ({exc})"
        # the budget is a closed limit: with a wall clock that reads one minute later at every look, a
        # budget of 1 minute is spent when the first step would start (0 steps) and one of 2 minutes after
        # the first (1 step)
        clock_steps = []
        for budget in (1.0, 2.0):
            ticks = itertools.count(0.0, 60.0)
            tr.time = types.SimpleNamespace(perf_counter=lambda t=ticks: next(t),
                                            process_time=time.process_time)
            try:
                clock_steps.append(tr.train(problem="cvrp", size=2, steps=3, minutes=budget, batch=1,
                                            samples=2, hidden=4, layers=1, seed=ctx.seed, out=tiny,
                                            progress=False)["steps"])
            finally:
                tr.time = time
        # --resume: a checkpoint for another problem is refused naming resume; the CVRP2 one (1 step, 3
        # minutes on that clock) continues to step 2 with its minutes carried over, and one whose metadata
        # predates the minutes field continues from 0 minutes to step 3, its progress bar ending at 3/3
        try:
            tr.train(problem="tsp", size=3, steps=2, batch=1, samples=2, hidden=4, layers=1, out=tiny,
                     resume=True, progress=False)
            resumed = ["another problem's checkpoint accepted"]
        except ValueError as exc:
            resumed = [] if "resume" in str(exc) else [f"refused without naming resume: {exc}"]
        carried = tr.load_checkpoint(tiny)[1]["minutes"]
        again = tr.train(problem="cvrp", size=2, steps=2, batch=1, samples=2, hidden=4, layers=1,
                         seed=ctx.seed, out=tiny, resume=True, progress=False)
        if not (again["steps"] == 2 and again["minutes"] >= carried >= 3.0):
            resumed.append(f"resumed to {again['steps']} steps, {again['minutes']:.3g} minutes "
                           f"(stored {carried})")
        state = torch.load(tiny, map_location="cpu", weights_only=False)
        state["meta"].pop("minutes")
        torch.save(state, tiny)
        bar = io.StringIO()
        with contextlib.redirect_stderr(bar):
            old = tr.train(problem="cvrp", size=2, steps=3, batch=1, samples=2, hidden=4, layers=1,
                           seed=ctx.seed, out=tiny, resume=True, progress=True)
        if not (old["steps"] == 3 and old["minutes"] < 1.0 and "3/3" in bar.getvalue()):
            resumed.append(f"resumed without minutes to {old['steps']} steps, {old['minutes']:.3g} minutes, "
                           f"bar {bar.getvalue().strip()[-40:]!r}")
    torch.manual_seed(ctx.seed)
    initial = RoutingGFlowNet("tsp", hidden=16, layers=1)
    held_out = [random_tsp(size, seed=777_000 + ctx.seed * 100 + i) for i in range(16)]

    def mean_costs(model):
        with torch.no_grad():
            traj = rollout(model, encode_instances(model, held_out), 16,
                           generator=torch.Generator().manual_seed(ctx.seed))
        return traj.cost.double().reshape(len(held_out), 16).mean(1).numpy()

    expected = [bmin * (bmax / bmin) ** (t / (steps - 1)) for t in range(steps)]
    beta_err = max(abs(b / e - 1.0) for b, e in zip(betas, expected, strict=False)) if betas else math.inf
    beta_err = beta_err if len(betas) == steps else math.inf
    # the instances drawn are the seeded TSPs of those seeds (each step's batch: seed, seed + 1)
    fresh = (len(set(seeds)) == len(seeds) == 2 * steps
             and drawn == [random_tsp(size, seed=s).coords.tobytes() for s in seeds])
    before, after = mean_costs(initial), mean_costs(trained)
    diff = before - after
    se = float(diff.std(ddof=1) / math.sqrt(diff.size))
    # the schedule is float64 arithmetic (1e-12); learning: the paired mean improvement must exceed
    # 2 standard errors over the 16 held-out instances (a ~95% one-sided normal bound)
    # the resumable budget's bookkeeping: a checkpoint every save_every = 10 steps and at the end, its
    # elapsed minutes (wall and CPU) nondecreasing and within the time the call itself took
    saved_steps = [s for s, _, _ in saves]
    clocks = [(m, c) for _, m, c in saves] + [(meta["minutes"], meta["cpu_minutes"])]
    budget_ok = (saved_steps == [10, 20, 30, 40, 40]
                 and all(0.0 <= a[0] <= b[0] and 0.0 <= a[1] <= b[1] for a, b in itertools.pairwise(clocks))
                 and meta["minutes"] <= wall and meta["cpu_minutes"] <= cpu)
    ok = (beta_err <= 1e-12 and fresh and meta["steps"] == steps and budget_ok
          and budget_steps == 0 and atomic and clock_steps == [0, 1] and not resumed and by_path == "Success"
          and centers == [True] * steps
          and float(diff.mean()) > 2 * se)
    return fact(
        ok,
        "the training script anneals β geometrically from β_min to β_max, draws fresh instances each step, "
        "checkpoints every 10 steps with its elapsed minutes, and its checkpoint samples shorter held-out "
        "tours than the untrained policy it started from",
        beta_max_rel_error=beta_err,
        distinct_instances=len(set(seeds)),
        checkpoints_as_documented=float(budget_ok),
        checkpoints=len(saved_steps),
        steps_in_1e_12_minutes=budget_steps,
        checkpoint_written_atomically=float(atomic),
        steps_in_1_minute_of_ticks=clock_steps[0],
        steps_in_2_minutes_of_ticks=clock_steps[1],
        resume_failures=len(resumed),
        steps_with_centered_reward=sum(c is True for c in centers),
        hbg_from_ckpt_path_success=float(by_path == "Success"),
        minutes_reported=meta["minutes"],
        minutes_measured=wall,
        cpu_minutes_reported=meta["cpu_minutes"],
        cpu_minutes_measured=cpu,
        mean_cost_untrained=float(before.mean()),
        mean_cost_trained=float(after.mean()),
        mean_improvement=float(diff.mean()),
        std_err=se,
    )


register(
    Claim(
        id=f"{PAPER}.train_script_learns",
        paper=PAPER,
        source=f"Section 4 (training: on-policy sampling, the loss, the β schedule) {SRC}; "
        "algorithms.routing.train",
        statement="python -m algorithms.routing.train's train() on TSP8 (40 steps of the hybrid loss, 2 "
        "instances × 8 samples, lr 1e-2, β 2 → 20) passes the loss β_t = β_min (β_max/β_min)^(t/(T−1)) and "
        "the centred reward (the baseline c̄ of the other samples), "
        "draws 80 distinct instances (the seeded TSPs of their seeds), writes a checkpoint every 10 steps "
        "and at the end whose elapsed wall "
        "and CPU minutes are nondecreasing and within the call's own, and ends with a checkpoint whose mean "
        "sampled tour length on 16 held-out instances is lower than the untrained starting policy's by more "
        "than 2 standard errors; a fresh train() on CVRP2 given 1e-12 minutes stops before its first step "
        "(its checkpoint written to a temporary file in the same folder and moved onto the path), "
        "and under a clock advancing one minute per reading a budget of 1 (2) minutes allows 0 (1) steps, "
        "--resume refuses another problem's checkpoint naming resume, continues a CVRP2 checkpoint with its "
        "minutes carried over and one without a minutes field from 0 (its progress bar ending at 3/3), "
        "and the checkpoint it writes under a path not ending in .pt solves a CVRP2 through HBG by that path",
        kind=Kind.PROPERTY,
        check=_train_check,
        control=lambda ctx: _train_check(ctx, flip_reward=True),
        control_description="the training step with the reward's sign flipped (R = exp(+β cost): energy and "
        "reward confused)",
        origin=Origin.IMPLEMENTATION,
        budget_s=30,
    )
)


# ----------------------------------------------------------------------------- against the classical baseline


def _raw_demand_features(orig):
    """``_features`` with the CVRP demand column left in load units (not divided by the capacity Q):
    the control's realistic feature bug."""

    def features(inst, dtype):
        x, dist, dem = orig(inst, dtype)
        if isinstance(inst, CVRPInstance):
            x = x.clone()
            x[:, 2] = x[:, 2] * inst.capacity
        return x, dist, dem

    return features


@lru_cache(maxsize=2)
def _nn2opt_costs(count: int, seed: int) -> np.ndarray:
    """NN + 2-opt on the test set of ``_costs`` (shared by the check and its control)."""
    from algorithms.routing.nn2opt import NearestNeighbor2Opt

    insts = [random_cvrp(50, seed=10_000 + seed * 1000 + i) for i in range(count)]
    return np.array([solve(inst, NearestNeighbor2Opt()).value for inst in insts])


def _beats_nn2opt(ctx: Context, raw_demands: bool = False) -> Outcome:
    import algorithms.routing.gflownet as gfn

    count = ctx.pick(16, 64)
    orig = gfn._features
    if raw_demands:
        gfn._features = _raw_demand_features(orig)
    # the sabotaged features must not be answered from the cache of the unsabotaged runs
    run = _costs_cached.__wrapped__ if raw_demands else _costs_cached
    try:
        hbg = np.array(run("cvrp50_hybrid", "cvrp", 50, count, ctx.seed, "depot", 16, False))
    finally:
        gfn._features = orig
    return _paired(
        hbg,
        _nn2opt_costs(count, ctx.seed),
        "the shipped CVRP50 hybrid checkpoint's depot-guided best-of-16 (no local search) is cheaper than "
        "NN + 2-opt on seeded CVRP50 instances",
    )


register(
    Claim(
        id=f"{PAPER}.hbg_beats_nn2opt",
        paper=PAPER,
        source=f"Tables 1 and 5 (learned solvers against classical heuristics), our CPU analogue {SRC}; the "
        "issue's benchmark target",
        statement="On 16 seeded CVRP50 instances (the checkpoint's training size), the shipped hybrid "
        "checkpoint with depot-guided decoding, 16 trajectories and no local search reaches a lower mean "
        "cost than nearest neighbour + 2-opt (paired; falsified below −2 standard errors, inconclusive "
        "within 2)",
        kind=Kind.NUMERIC,
        check=_beats_nn2opt,
        control=lambda ctx: _beats_nn2opt(ctx, raw_demands=True),
        control_description="the same checkpoint fed CVRP demand features in load units instead of "
        "demand / capacity (a feature-scaling bug)",
        origin=Origin.DERIVED,
        deviation="the paper compares against LKH / HGS-scale baselines at 200–1000 nodes after GPU "
        "training; we test the CPU-trained CVRP50 checkpoint against the classical baseline at 50 nodes "
        "(the benchmark measures the rest)",
        budget_s=30,
    )
)


# ---------------------------------------------------------------------------- instance files, immutability


def _io_check(ctx: Context, drop_depot_section: bool = False) -> Outcome:
    """TSPLIB/CVRPLIB round trips of random instances, a CVRPLIB text whose depot is not node 1 (moved
    to node 0 on reading), and the instances' arrays read-only."""
    from algorithms.routing.problem import read_cvrplib, read_tsplib, write_cvrplib, write_tsplib

    failures = []
    for n in (5, 12):
        cv = random_cvrp(n, seed=ctx.seed + n)
        back = read_cvrplib(write_cvrplib(cv))
        if not (np.array_equal(back.coords, cv.coords) and np.array_equal(back.demands, cv.demands)
                and back.capacity == cv.capacity and np.array_equal(back.distances, cv.distances)):
            failures.append(f"CVRPLIB round trip of CVRP{n}")
        ts = random_tsp(n, seed=ctx.seed + n)
        if not np.array_equal(read_tsplib(write_tsplib(ts)).coords, ts.coords):
            failures.append(f"TSPLIB round trip of TSP{n}")
        for name, arr in (("coords", cv.coords), ("demands", cv.demands), ("distances", cv.distances),
                          ("TSP distances", ts.distances)):
            try:
                arr[0, -1] = 1.0 if arr.ndim == 2 else arr[0]
                failures.append(f"{name} of an instance is writable")
            except ValueError:
                pass
    # CVRPLIB numbers nodes from 1 and names the depot in DEPOT_SECTION: write CVRP6 with its nodes
    # rotated so the depot is node 3, and read it back: the depot must come back to node 0
    cv = random_cvrp(6, seed=ctx.seed)
    order = [1, 2, 0, 3, 4, 5, 6]  # file node k + 1 holds our node order[k]; our depot is file node 3
    lines = ["NAME : rotated", "TYPE : CVRP", "DIMENSION : 7", "EDGE_WEIGHT_TYPE : EUC_2D",
             f"CAPACITY : {cv.capacity}", "NODE_COORD_SECTION"]
    xy = cv.coords.tolist()
    lines += [f"{k + 1} {xy[i][0]!r} {xy[i][1]!r}" for k, i in enumerate(order)]
    lines += ["DEMAND_SECTION"] + [f"{k + 1} {int(cv.demands[i])}" for k, i in enumerate(order)]
    if not drop_depot_section:  # the control: the file's depot not declared (node 1 assumed)
        lines += ["DEPOT_SECTION", "3", "-1"]
    expected = [0] + [i for i in order if i != 0]
    try:
        back = read_cvrplib("\n".join([*lines, "EOF"]) + "\n")
    except ValueError as exc:  # e.g. node 1 taken as the depot, with a nonzero demand
        failures.append(f"the rotated file is refused: {exc}")
    else:
        if not (np.array_equal(back.coords, cv.coords[expected])
                and np.array_equal(back.demands, cv.demands[expected])):
            failures.append("the depot of a file whose DEPOT_SECTION is node 3 is not node 0 after reading")
    # the benchmark's capacity table (AGFN / GFACS / HBG data): 20 -> 30, 50 -> 40, 100 -> 50, beyond -> 50
    from algorithms.routing.problem import cvrp_capacity

    # (each table size and the size after it: the next table row starts there)
    table = {n: cvrp_capacity(n) for n in (20, 21, 50, 51, 100, 200)}
    if (table != {20: 30, 21: 40, 50: 40, 51: 50, 100: 50, 200: 50}
            or random_cvrp(50, seed=ctx.seed).capacity != 40):
        failures.append(f"capacities {table} (CVRP50 drawn with {random_cvrp(50, seed=ctx.seed).capacity}), "
                        "not the benchmark's 30 / 40 / 40 / 50 / 50 / 50")
    # both writers end their text with a newline (after EOF), as a text file does
    ends = [write_tsplib(random_tsp(5, seed=ctx.seed))[-4:],
            write_cvrplib(random_cvrp(5, seed=ctx.seed))[-4:]]
    if ends != ["EOF\n", "EOF\n"]:
        failures.append(f"the written files end with {ends}, not 'EOF\\n'")
    # a CVRPLIB text whose DEMAND_SECTION is missing or a row short is refused naming the section
    full_text = write_cvrplib(random_cvrp(5, seed=ctx.seed))
    head, tail = full_text.split("DEMAND_SECTION")
    demand_rows = tail.split("DEPOT_SECTION")[0].strip().splitlines()
    for what, text in (("missing", head + "DEPOT_SECTION" + tail.split("DEPOT_SECTION")[1]),
                       ("a row short", full_text.replace(demand_rows[-1] + "\n", "", 1))):
        try:
            read_cvrplib(text)
            failures.append(f"a CVRPLIB text whose DEMAND_SECTION is {what} was accepted")
        except ValueError as exc:
            if "DEMAND_SECTION" not in str(exc):
                failures.append(f"a DEMAND_SECTION {what} refused without naming it: {exc}")
    return fact(not failures, "TSPLIB/CVRPLIB round trips exact, a declared depot moved to node 0, instance "
                "arrays read-only, the benchmark's capacities, files ending in a newline, a missing or short "
                "DEMAND_SECTION refused"
                + (f" (failed: {'; '.join(failures)})" if failures else ""),
                failures=len(failures))


register(
    Claim(
        id=f"{PAPER}.instance_io",
        paper=PAPER,
        source=f"Section 5 (benchmark instances: uniform TSP/CVRP and CVRPLIB files) {SRC}; "
        "algorithms.routing.problem",
        statement="write_cvrplib/read_cvrplib and write_tsplib/read_tsplib round-trip random CVRP5, CVRP12, "
        "TSP5, TSP12 exactly (coordinates, demands, capacity, distances); a CVRPLIB file whose "
        "DEPOT_SECTION names node 3 is read with that node as node 0 and the others in file order; "
        "the instances' coordinates, demands and distance matrices are read-only; the capacities are "
        "the benchmark's (20, 21, 50, 51, 100, 200 customers: 30, 40, 40, 50, 50, 50; a drawn CVRP50 has "
        "40); both writers end their text with 'EOF' and a newline; and a CVRPLIB text whose DEMAND_SECTION "
        "is missing or a row short is refused with a ValueError naming the section",
        kind=Kind.PROPERTY,
        check=_io_check,
        control=lambda ctx: _io_check(ctx, drop_depot_section=True),
        control_description="the rotated file without its DEPOT_SECTION (the reader then takes node 1 as the "
        "depot): the depot check must fail",
        origin=Origin.IMPLEMENTATION,
    )
)


# ---------------------------------------------------------------------------- the exact references' domains


def _one_pass(instance, algorithm) -> None:
    """Solve with maxiters = 1; refuse (ValueError) anything but Success."""
    sol = solve(instance, algorithm, maxiters=1)
    if sol.retcode.value != "Success":
        raise ValueError(f"maxiters = 1: {sol.retcode.value}, not Success")


def _two_opt_no_move() -> None:
    """2-opt on a 3-node tour (no two non-adjacent edges): the tour back, a local optimum, 0 moves."""
    from algorithms.routing.nn2opt import two_opt

    d = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.5], [2.0, 1.5, 0.0]])
    got = two_opt(d, [0, 2, 1])
    if got != ([0, 2, 1], True, 0):
        raise ValueError(f"tour: 2-opt on 3 nodes returned {got}, not ([0, 2, 1], True, 0)")


def _two_opt_zero_moves(instance) -> None:
    """2-opt allowed 0 moves (the closed end of max_moves >= 0): the tour back unchanged, 0 moves."""
    from algorithms.routing.nn2opt import two_opt

    tour = list(range(instance.n))
    got = two_opt(instance.distances, tour, max_moves=0)
    if got[0] != tour or got[2] != 0:
        raise ValueError(f"max_moves: 2-opt with max_moves = 0 returned {got}")


def _forced_rollout(actions) -> None:
    """rollout in mode "forced" on one TSP4 instance × 2 samples with the given ``actions``."""
    torch.manual_seed(0)
    model = RoutingGFlowNet("tsp", hidden=4, layers=1)
    with torch.no_grad():
        rollout(model, encode_instances(model, [random_tsp(4, seed=0)]), 2, mode="forced", actions=actions)


def _train_tsp2() -> None:
    """train() on a TSP of 2 nodes (below the TSP minimum of 3), given no time: refused before any work."""
    from algorithms.routing.train import train

    with tempfile.TemporaryDirectory() as d:
        train(problem="tsp", size=2, steps=1, minutes=1e-12, batch=1, samples=2, hidden=4, layers=1,
              out=os.path.join(d, "m.pt"), progress=False)


@lru_cache(maxsize=4)  # the check and its control ask the same two questions
def _hgs_rounding_retcode(scale: float) -> str:
    """HGS at ``scale`` on a CVRP3 whose demands each fill the vehicle: three one-customer routes, 6 edges
    of length 1, so the worst-case rounding loss is 6 / scale against the 1 % limit of the length 6
    (accepted iff scale >= 100; the integer distances are exact). The forced routes are found at once:
    0.01 s of search (Success at scale 101 for 30 of 30 seeds, also at 0.002 s)."""
    inst = CVRPInstance([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], [1, 1, 1], 1)
    sol = solve(inst, HGS(runtime=0.01, scale=scale), seed=0)
    why = sol.original.get("check") if isinstance(sol.original, dict) else ""
    return f"{sol.retcode.value} {why}".strip()


def _hgs_rounding(scale: float) -> None:
    """Refuse (ValueError) anything but Success from :func:`_hgs_rounding_retcode`."""
    got = _hgs_rounding_retcode(scale)
    if got != "Success":
        raise ValueError(f"scale={scale:g}: HGS returned {got}")


def _hgs_seed(seed, expect: int) -> None:
    """The seed HGS passes PyVRP (its model replaced by a recording stand-in) for ``solve``'s ``seed``: no
    seed and 0 are PyVRP's 0, a seed past 2**32 is reduced mod 2**32."""
    import algorithms.routing.hgs as hgs_module
    from theorems.core.sabotage import patched

    seen = []
    fake = _fake_pyvrp("infeasible")

    def recording(problem, dist):
        model = fake(problem, dist)
        return types.SimpleNamespace(solve=lambda *a, **k: (seen.append(k.get("seed")), model.solve())[1])

    inst = CVRPInstance([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], [1, 1, 1], 1)
    with patched(hgs_module, "_pyvrp_model", recording):
        solve(inst, HGS(runtime=0.01), seed=seed)
    if seen != [expect]:
        raise ValueError(f"seed: solve's seed {seed!r} reached PyVRP as {seen}, not [{expect}]")


def _lkh_rounding(scale: float) -> None:
    """LKH at ``scale`` on the unit square's corners (the optimal tour is the perimeter: 4 edges of length
    1, length 4, exact integer distances; the diagonals are longer): Success iff the rounding bound 4 / scale
    is at most 1 % of 4, i.e. scale >= 100; a failure must name its check."""
    square = TSPInstance([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    sol = solve(square, LKH(runs=1, scale=scale), seed=0)
    if sol.retcode.value != "Success":
        why = sol.original.get("check") if isinstance(sol.original, dict) else sol.original
        raise ValueError(f"scale={scale:g}: LKH returned {sol.retcode.value} ({why})")


def _enumeration_tie() -> None:
    """CVRPEnumeration on a tie: customers at (0, 1) and (0, −1), demand 1, capacity 2: one route (length
    1 + 2 + 1) or two (2 + 2) both cost 4 exactly; the documented rule keeps the first found, the route set
    with the largest route through customer 1: [[1, 2]]."""
    routes = cvrp_enumerate(CVRPInstance([[0.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [1, 1], 2))
    if routes != ([[1, 2]], 4.0):
        raise ValueError(f"routes: the tie was broken as {routes}, not ([[1, 2]], 4.0)")


def _fake_pyvrp(outcome: str):
    """A stand-in for ``hgs._pyvrp_model`` on a CVRP3: its search raises ("error") or returns 7 iterations
    and an infeasible answer ("infeasible") or one whose routes miss customer 3 ("invalid")."""
    def route(clients):  # PyVRP numbers clients from 0 (our customer c is its client c - 1)
        return types.SimpleNamespace(schedule=lambda: [types.SimpleNamespace(idx=i, is_client=lambda: True)
                                                      for i in clients])

    best = types.SimpleNamespace(routes=lambda: [route([0]), route([1])], distance=lambda: 0)
    result = types.SimpleNamespace(best=best, is_feasible=lambda: outcome != "infeasible", num_iterations=7)

    def search(*args, **kwargs):
        if outcome == "error":
            raise RuntimeError("the backend failed")
        return result

    return lambda problem, dist: types.SimpleNamespace(solve=search)


def _backend_outcome(backend: str, outcome: str, expect: tuple[str, int]) -> None:
    """HGS (PyVRP replaced by :func:`_fake_pyvrp`) or LKH (elkai's solver raising) must answer ``expect``:
    (retcode, iterations counted), and keep the backend's exception or answer as ``original``."""
    import elkai

    import algorithms.routing.hgs as hgs_module
    from theorems.core.sabotage import patched

    if backend == "hgs":
        inst = CVRPInstance([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], [1, 1, 1], 1)
        with patched(hgs_module, "_pyvrp_model", _fake_pyvrp(outcome)):
            sol = solve(inst, HGS(runtime=0.01), seed=0)
    else:
        def broken(*args, **kwargs):
            raise RuntimeError("the backend failed")

        with patched(elkai, "DistanceMatrix", broken):
            sol = solve(random_tsp(5, seed=0), LKH(runs=1), seed=0)
    got = (sol.retcode.value, sol.stats.iterations)
    kept = isinstance(sol.original, RuntimeError) if outcome == "error" else sol.original is not None
    if got != expect or not kept:
        raise ValueError(f"retcode: {backend} on a backend {outcome} gave {got} (original "
                         f"{type(sol.original).__name__}), not {expect}")


def _hbg_nearest(n: int, nearest: int) -> None:
    """HBG without a checkpoint, asked for the model of a TSP of ``n`` nodes (what its solve loads), must
    give the shipped TSP checkpoint trained on size ``nearest``: no decoding, so it costs a cached load."""
    from algorithms.routing.hbg import _model_for

    got = _model_for(HBG(), "tsp", n)[1].get("size")
    if got != nearest:
        raise ValueError(f"checkpoint: HBG() on TSP{n} loads a checkpoint of size {got}, not {nearest}")


def _hbg_budget(problem: str, maxiters: int, expect: str) -> None:
    """HBG (the shipped size-20 checkpoint, no local search) on a TSP5 or CVRP4 with ``maxiters``: its
    retcode must be ``expect`` (one sampled trajectory is a whole run; none returns the starting answer),
    with a valid answer either way."""
    inst = random_tsp(5, seed=0) if problem == "tsp" else random_cvrp(4, seed=0)
    sol = solve(inst, HBG(checkpoint=f"{problem}20", local_search=False, allow_size_transfer=True),
                maxiters=maxiters, seed=0)
    valid = sol.x is not None and (is_valid_tsp(inst, sol.x) if problem == "tsp"
                                   else is_valid_cvrp(inst, routes_from_sequence(sol.x)))
    if sol.retcode.value != expect or not valid:
        raise ValueError(f"maxiters = {maxiters}: HBG on {problem} gave {sol.retcode.value} {sol.x}, "
                         f"not {expect}")


def _tsp_validity(tour, expect: bool) -> None:
    """is_valid_tsp on TSP5 must say ``expect``."""
    got = is_valid_tsp(random_tsp(5, seed=0), tour)
    if got is not expect:
        raise ValueError(f"tour: is_valid_tsp gave {got} for {tour!r}, not {expect}")


#: the training CLI's documented defaults (algorithms.routing.train.main's docstring), as train() gets them
_CLI_DEFAULTS = {"problem": "tsp", "size": 20, "loss": "hybrid", "steps": 400, "minutes": math.inf,
                 "batch": 4, "samples": 20, "lr": 1e-3, "beta_min": 20.0, "beta_max": 200.0, "hidden": 32,
                 "layers": 3, "seed": 0, "save_every": 50, "resume": False, "progress": True, "threads": 1}
#: every flag set away from its default, and what train() must receive (the out path is added)
_CLI_FLAGS = (["--problem", "cvrp", "--size", "7", "--loss", "db", "--steps", "5", "--minutes", "2.5",
               "--batch", "3", "--samples", "6", "--lr", "0.02", "--beta-min", "3", "--beta-max", "30",
               "--hidden", "8", "--layers", "2", "--seed", "9", "--threads", "2", "--save-every", "4",
               "--resume", "--no-progress"],
              {"problem": "cvrp", "size": 7, "loss": "db", "steps": 5, "minutes": 2.5, "batch": 3,
               "samples": 6, "lr": 0.02, "beta_min": 3.0, "beta_max": 30.0, "hidden": 8, "layers": 2,
               "seed": 9, "save_every": 4, "resume": True, "progress": False, "threads": 2})


def _train_cli(argv: list[str], expect: dict) -> None:
    """``algorithms.routing.train.main(argv)`` with train() replaced by a spy: the keyword arguments it
    receives (and the torch threads set) must be ``expect``; a usage error (argparse's exit) is refused
    as a ValueError naming the usage."""
    import algorithms.routing.train as tr

    got: dict = {}

    def spy(**kwargs):
        got.update(kwargs, threads=torch.get_num_threads())
        return {}

    orig, threads, err = tr.train, torch.get_num_threads(), io.StringIO()
    tr.train = spy
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            tr.main(argv)
    except SystemExit as exc:
        raise ValueError(f"usage error (exit {exc.code}): {err.getvalue().strip()[-80:]}") from None
    finally:
        tr.train = orig
        torch.set_num_threads(threads)
    if got != expect:
        wrong = {k: got.get(k, "missing") for k in expect.keys() | got.keys() if got.get(k) != expect.get(k)}
        raise ValueError(f"argv: main passed {wrong} to train(), not the documented values")


def _overflow_matrix(factor: float) -> np.ndarray:
    """4 nodes, every off-diagonal distance the working range's largest (3.4e38) times ``factor``."""
    d = np.full((4, 4), WORKING_MAX * factor)
    np.fill_diagonal(d, 0.0)
    return d


def _domain_check(ctx: Context, open_ends: bool = False) -> Outcome:
    """The exact references and the tour validator on their domains' closed ends (accepted) and just
    outside (refused with a ValueError naming the argument); ``open_ends`` (the control) expects the
    closed ends refused too."""
    from algorithms.routing.nn2opt import nearest_neighbor_tour
    from algorithms.routing.problem import check_tsp_tour, cvrp_capacity

    tsp3, tsp5 = random_tsp(3, seed=ctx.seed), random_tsp(5, seed=ctx.seed)
    cvrp4 = random_cvrp(4, seed=ctx.seed)
    cases = [  # (label, call, closed end, refusal: (type, argument) or None)
        ("Held–Karp on 3 nodes", lambda: held_karp(tsp3.distances), True, None),
        ("HeldKarp with maxiters = 1 (one pass)", lambda: _one_pass(tsp5, HeldKarp()), True, None),
        ("CVRPEnumeration with maxiters = 1", lambda: _one_pass(cvrp4, CVRPEnumeration()), True, None),
        ("a 3 × 4 distance matrix", lambda: held_karp(np.ones((3, 4))), False, (ValueError, "dist")),
        ("a 1-D distance array", lambda: held_karp(np.ones(9)), False, (ValueError, "dist")),
        ("Held–Karp on 13 nodes", lambda: held_karp(np.ones((13, 13))), False, (ValueError, "dist")),
        ("an empty tour", lambda: check_tsp_tour(tsp5, []), False, (ValueError, "tour")),
        ("a tour of floats", lambda: check_tsp_tour(tsp5, [0.0, 1.0, 2.0, 3.0, 4.0]), False,
         (ValueError, "tour")),
        ("a tour missing a node", lambda: check_tsp_tour(tsp5, [0, 1, 2, 3]), False, (ValueError, "tour")),
        ("2-opt on 3 nodes (no move exists: 0 moves)", _two_opt_no_move, True, None),
        ("2-opt with max_moves = 0", lambda: _two_opt_zero_moves(tsp5), True, None),
        ("a checkpoint file that does not exist", lambda: load_model("/nonexistent/hbg_checkpoint.pt"), False,
         (ValueError, "path")),
        ("train() on a TSP of 2 nodes", _train_tsp2, False, (ValueError, "size")),
        ("Held–Karp with every distance the working range's largest (4 nodes)",
         lambda: held_karp(_overflow_matrix(1.0)), True, None),
        ("Held–Karp with a distance past the working range",   # float32's largest is exact in float64
         lambda: held_karp(_overflow_matrix(1 + 1e-15)), False, (ValueError, "dist")),
        ("cvrp_capacity(1)", lambda: cvrp_capacity(1), True, None),
        ("cvrp_capacity(0)", lambda: cvrp_capacity(0), False, (ValueError, "n must")),
        ("forced rollout with (2, 3) actions", lambda: _forced_rollout(torch.tensor([[1, 2, 3], [3, 2, 1]])),
         True, None),
        ("forced rollout without actions", lambda: _forced_rollout(None), False, (ValueError, "actions")),
        ("forced rollout with 1-D actions", lambda: _forced_rollout(torch.tensor([1, 2])), False,
         (ValueError, "actions")),
        ("the kNN graph of a (1, 3, 3) distance tensor", lambda: knn_adjacency(torch.ones(1, 3, 3), 1, False),
         True, None),
        ("the kNN graph of a (1, 3, 4) distance tensor", lambda: knn_adjacency(torch.ones(1, 3, 4), 1, False),
         False, (ValueError, "dist")),
        ("a TSP with two nodes at one point",
         lambda: TSPInstance([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), False,
         (ValueError, "distinct")),
        # duplicates are judged relative to the extent: a distinct TSP5 shrunk into a 1e-13 box stays valid
        ("a distinct TSP5 scaled by 1e-13", lambda: TSPInstance(tsp5.coords * 1e-13), True, None),
        ("nearest neighbour on 1 node", lambda: nearest_neighbor_tour(np.zeros((1, 1))), True, None),
        ("nearest neighbour from the last node", lambda: nearest_neighbor_tour(tsp3.distances, start=2), True,
         None),
        ("nearest neighbour from node n", lambda: nearest_neighbor_tour(tsp3.distances, start=3), False,
         (ValueError, "start")),
        ("nearest neighbour on 0 nodes", lambda: nearest_neighbor_tour(np.zeros((0, 0))), False,
         (ValueError, "dist")),
        ("CVRPEnumeration on 9 customers", lambda: solve(random_cvrp(9, seed=ctx.seed), CVRPEnumeration()),
         False, (ValueError, "<= 8 customers")),
        # HGS's rounding bound counts each route's edges (customers + 1): three one-customer routes are 6
        # edges, so 6 / scale <= 1 % of the length 6 holds at scale 101 and fails at 99
        ("HGS at scale 101 (rounding bound 0.99 % of the length)", lambda: _hgs_rounding(101.0), True, None),
        ("HGS at scale 99 (rounding bound 1.01 % of the length)", lambda: _hgs_rounding(99.0), False,
         (ValueError, "integer rounding")),
        ("the training CLI with only --out (the documented defaults)",
         lambda: _train_cli(["--out", "m.pt"], {**_CLI_DEFAULTS, "out": "m.pt"}), True, None),
        ("the training CLI with every flag set",
         lambda: _train_cli([*_CLI_FLAGS[0], "--out", "m.pt"], {**_CLI_FLAGS[1], "out": "m.pt"}), True, None),
        ("the training CLI without --out", lambda: _train_cli([], {**_CLI_DEFAULTS, "out": None}), False,
         (ValueError, "usage error")),
        ("tsp_log_pb(3) (the smallest TSP)", lambda: tsp_log_pb(3), True, None),
        ("tsp_log_pb(2)", lambda: tsp_log_pb(2), False, (ValueError, "n must")),
        ("cvrp_log_pb of no routes", lambda: cvrp_log_pb([]), False, (ValueError, "routes")),
        ("cvrp_log_pb with an empty route", lambda: cvrp_log_pb([[1], []]), False, (ValueError, "routes")),
        ("Statement 3 opening a multi-node route with one present", lambda: paper_stepwise_log_pb(1, 0, True),
         True, None),
        ("Statement 3 opening a multi-node route with none present",
         lambda: paper_stepwise_log_pb(0, 1, True), False, (ValueError, "kind")),
        ("Statement 3 opening a single-node route with none present",
         lambda: paper_stepwise_log_pb(1, 0, False), False, (ValueError, "kind")),
        ("the kNN graph of a 2-D distance tensor", lambda: knn_adjacency(torch.ones(3, 3), 1, False), False,
         (TypeError, "dist")),
        ("a CVRP with capacity 2.5", lambda: CVRPInstance(cvrp4.coords, [1, 1, 1, 1], 2.5), False,
         (ValueError, "capacity")),
        # the refusal names the first customer with demand < 1 by its index
        ("a CVRP whose customer 2 has demand 0", lambda: CVRPInstance(cvrp4.coords[:4], [2, 0, 3], 5), False,
         (ValueError, "demands[2] = 0")),
        ("HGS without a seed (PyVRP's 0)", lambda: _hgs_seed(None, 0), True, None),
        ("HGS with seed 0", lambda: _hgs_seed(0, 0), True, None),
        ("HGS with seed 2**32 + 5 (reduced: 5)", lambda: _hgs_seed(2**32 + 5, 5), True, None),
        ("LKH at scale 101 on the unit square", lambda: _lkh_rounding(101.0), True, None),
        ("LKH at scale 99 on the unit square", lambda: _lkh_rounding(99.0), False,
         (ValueError, "integer rounding")),
        ("CVRPEnumeration on a tie of one route and two", _enumeration_tie, True, None),
        ("HGS whose backend raises", lambda: _backend_outcome("hgs", "error", ("Failure", 0)), True, None),
        ("HGS whose backend answers infeasible",
         # README's retcode table: a heuristic's infeasible answer proves nothing, so Failure (round 23)
         lambda: _backend_outcome("hgs", "infeasible", ("Failure", 7)), True, None),
        ("HGS whose backend's routes miss a customer",
         lambda: _backend_outcome("hgs", "invalid", ("Failure", 7)), True, None),
        ("LKH whose backend raises", lambda: _backend_outcome("lkh", "error", ("Failure", 0)), True, None),
        # HBG() picks the shipped size nearest the instance's (a tie to the smaller)
        ("HBG on a TSP with maxiters = 1 (one trajectory)", lambda: _hbg_budget("tsp", 1, "Success"),
         True, None),
        ("HBG on a TSP with maxiters = 0 (the starting tour)", lambda: _hbg_budget("tsp", 0, "MaxIters"),
         True, None),
        ("HBG on a CVRP with maxiters = 1", lambda: _hbg_budget("cvrp", 1, "Success"), True, None),
        ("HBG on a CVRP with maxiters = 0", lambda: _hbg_budget("cvrp", 0, "MaxIters"), True, None),
        ("HBG() on TSP36 (nearest shipped: 50)", lambda: _hbg_nearest(36, 50), True, None),
        ("HBG() on TSP35 (a tie: 20)", lambda: _hbg_nearest(35, 20), True, None),
        ("HBG() on TSP30 (nearest shipped: 20)", lambda: _hbg_nearest(30, 20), True, None),
        ("a tour given as an int array", lambda: check_tsp_tour(tsp5, np.arange(5)), True, None),
        ("a tour given as a bool array", lambda: check_tsp_tour(tsp5, np.ones(5, dtype=bool)), False,
         (ValueError, "bool")),
        ("is_valid_tsp on a permutation", lambda: _tsp_validity([4, 2, 0, 1, 3], True), True, None),
        ("is_valid_tsp on a tour missing a node", lambda: _tsp_validity([0, 1, 2, 3], False), True, None),
    ]
    # IndexError too: a tour index out of range must be a named ValueError, never numpy's
    return domain_outcome(cases, open_ends=open_ends, catch=(TypeError, ValueError, IndexError))


register(
    Claim(
        id=f"{PAPER}.reference_domains",
        paper=PAPER,
        source=f"Section 5 (optimality gaps against exact and classical references) {SRC}; our validation "
        "(algorithms.routing.held_karp, cvrp_enumeration, problem)",
        statement="Held–Karp accepts 3..12 nodes (3 tested) and HeldKarp / CVRPEnumeration return Success "
        "with maxiters = 1 (one pass is their whole run), 2-opt returns a 3-node tour as a local optimum "
        "after 0 moves and accepts max_moves = 0 (the tour back, 0 moves); a 3 × 4 or 1-D distance array, "
        "13 nodes, an empty, float or incomplete tour, a checkpoint path that does not exist and train() "
        "on a TSP of 2 nodes are refused with a ValueError naming the argument; Held–Karp accepts 4 nodes "
        "at the working range's largest distance (3.4e38) and refuses a distance just past it (naming "
        "dist); cvrp_capacity accepts 1 customer and refuses 0; a forced rollout accepts an (M, T) action "
        "tensor and refuses none or a 1-D one naming actions; knn_adjacency accepts a (1, 3, 3) and "
        "refuses a (1, 3, 4) distance tensor naming dist; a TSP with two nodes at one point is refused as "
        "not distinct, a distinct TSP5 shrunk by 1e-13 accepted; nearest neighbour accepts 1 node and "
        "refuses 0 naming dist; CVRPEnumeration refuses 9 customers; HGS on three one-customer routes (6 "
        "edges, length 6) returns Success at scale 101 and refuses scale 99 (rounding bound 6 / scale "
        "against 1 % of the length); the training CLI passes its documented defaults and every flag set to "
        "train(), and refuses a call without --out as a usage error; tsp_log_pb accepts 3 nodes and "
        "refuses 2, cvrp_log_pb refuses no routes and an empty route, Statement 3's step probability "
        "refuses opening a route kind the state lacks, knn_adjacency refuses a 2-D tensor and a CVRP a "
        "capacity of 2.5 or a customer demand of 0 (naming its index); HGS reports a backend error as "
        "Failure with 0 iterations, an infeasible answer as Failure and routes missing a customer as "
        "Failure with the backend's iteration count, LKH a backend error as Failure with 0; HBG without a "
        "checkpoint loads the shipped TSP50 for a TSP36 and the TSP20 for a TSP35 and a TSP30 (the nearest "
        "size, a tie to the smaller); a tour is accepted as an int array and refused as a bool array; "
        "is_valid_tsp accepts a permutation and rejects a tour missing a node; HBG on a TSP5 and a CVRP4 "
        "returns Success with maxiters = 1 and MaxIters with 0, a valid answer either way; nearest "
        "neighbour starts from node n − 1 and refuses node n naming start; HGS passes PyVRP seed 0 for no "
        "seed and for 0 and 5 for 2**32 + 5; LKH on the unit square's corners returns Success at scale 101 "
        "and refuses 99 naming the rounding check; the CVRP enumeration "
        "breaks a tie of one route against two (both length 4) for the one route, the first found (65 cases)",
        kind=Kind.PROPERTY,
        check=_domain_check,
        control=lambda ctx: _domain_check(ctx, open_ends=True),
        control_description="the closed ends read as open (3 nodes, maxiters = 1 refused): the check must "
        "fail",
        origin=Origin.IMPLEMENTATION,
    )
)


# ---------------------------------------------------------------------------- a rollout's per-step terms


def _zero_flow_head(model: RoutingGFlowNet, a: float, b: float) -> RoutingGFlowNet:
    """The flow head with its MLP's output layer zeroed and (a, b) set: log F̃(s) = a·log Γ(r+1) + b·r."""
    with torch.no_grad():
        model.flow[-1].weight.zero_()
        model.flow[-1].bias.zero_()
        model.flow_count.fill_(a)
        model.flow_linear.fill_(b)
    return model


def _customers_left(actions: np.ndarray, n: int) -> np.ndarray:
    """r before each transition and after the last one, (M, T + 1): n − 1 minus the customers picked."""
    picked = np.cumsum(actions > 0, axis=1)
    return (n - 1) - np.concatenate([np.zeros((actions.shape[0], 1), dtype=picked.dtype), picked], axis=1)


def _reference_energies(step_cost: np.ndarray, valid: np.ndarray, samples: int, beta: float) -> np.ndarray:
    """Eq. 9 from its definition, row by row: β(c_t − mean over the instance's samples of c_t) on each
    transition taken, the baselines of the steps a shorter trajectory does not take added to its last
    transition, zero on padding."""
    out = np.zeros_like(step_cost)
    for row in range(step_cost.shape[0]):
        group = slice(row - row % samples, row - row % samples + samples)
        centered = step_cost[row] - step_cost[group].mean(axis=0)
        taken = np.flatnonzero(valid[row])
        out[row, taken] = centered[taken]
        out[row, taken[-1]] += centered[~valid[row]].sum()
    return beta * out


def _terms_check(ctx: Context) -> Outcome:
    """The flow head of Eq. 8 along rollouts (TSP7, CVRP6) against a·log Γ(r+1) + b·r, and the rollouts'
    per-transition energies (Eq. 9) against their definition, on CVRP trajectories of unequal lengths."""
    torch.manual_seed(ctx.seed)
    gen = torch.Generator().manual_seed(ctx.seed)
    flow_err, energy_err, padded, loss_err = 0.0, 0.0, 0, 0.0
    for problem, inst in (("tsp", random_tsp(7, seed=ctx.seed)), ("cvrp", random_cvrp(6, seed=ctx.seed))):
        for a, b in ((1.0, 0.0), (0.7, -0.3)):
            model = _zero_flow_head(RoutingGFlowNet(problem, hidden=8, layers=1), a, b)
            with torch.no_grad():
                traj = rollout(model, encode_instances(model, [inst]), samples=6, generator=gen)
            acts = traj.actions.numpy()
            nodes = inst.coords.shape[0]
            r = _customers_left(acts, nodes)
            # column t + 1 is the state after transition t: 0 on padding and after the terminal
            # transition (TSP: the closing one; CVRP: back at the depot with no customer left)
            terminal = (np.arange(acts.shape[1]) == nodes - 1)[None, :] if problem == "tsp" else (
                (acts == 0) & (r[:, 1:] == 0))
            alive = np.concatenate([np.ones((acts.shape[0], 1), bool), traj.valid.numpy() & ~terminal],
                                   axis=1)
            lg = np.vectorize(math.lgamma)(r + 1.0)
            want = np.where(alive, a * lg + b * r, 0.0)
            flow_err = max(flow_err, float(np.abs(traj.log_flow.numpy() - want).max()))
            if problem == "cvrp":
                valid = traj.valid.numpy()
                padded += int((~valid).any(axis=1).sum())
                beta = 3.0
                got = traj.energies(beta, center=True).numpy()
                energy_err = max(energy_err, float(np.abs(got - _reference_energies(
                    traj.step_cost.numpy(), valid, traj.samples, beta)).max()))
                # Eq. 11: the hybrid loss is TB + w·DB, directly and through trajectory_loss
                for w in (1.0, 0.5):
                    parts = float(tb_loss(traj, beta, True)) + w * float(db_loss(traj, beta, True))
                    for got_loss in (hybrid_loss(traj, beta, True, w),
                                     trajectory_loss(traj, "hybrid", beta=beta, center=True, db_weight=w)):
                        loss_err = max(loss_err, abs(float(got_loss) - parts) / max(1.0, abs(parts)))
    # float32 rollouts: log Γ(7) ≈ 6.6 and costs ≈ 1 carry ~1e-6 rounding; an off-by-one in r moves the
    # flow by log(r + 1) >= log 2, a misplaced baseline moves an energy by β·(a step's baseline) ~ 1;
    # the losses are float32 sums (~1e-7 relative), a dropped or misweighted DB term moves them by w·DB
    ok = flow_err <= 1e-4 and energy_err <= 1e-4 and padded > 0 and loss_err <= 1e-5
    return fact(ok, "the rollouts' state flows are a·log Γ(r+1) + b·r with the MLP zeroed (r customers "
                "left; a = 1, b = 0: the log-count of a uniform policy's completions) and their energies are "
                "Eq. 9's, a shorter trajectory's missing baselines on its last transition; the hybrid loss "
                "is TB + w·DB", flow_max_abs_error=flow_err, energy_max_abs_error=energy_err,
                padded_trajectories=padded, hybrid_loss_rel_error=loss_err)


def _terms_control(ctx: Context) -> Outcome:
    import algorithms.routing.gflownet as gfn
    from theorems.core.sabotage import patched

    def off_by_one(model, ctx_, left):  # Γ(r + 2) = (r + 1)! for the count of completions r!
        return (model.flow(ctx_).squeeze(-1) + model.flow_count * torch.lgamma(left + 2.0)
                + model.flow_linear * left)

    with patched(gfn, "_log_flow", off_by_one):
        return _terms_check(ctx)


register(
    Claim(
        id=f"{PAPER}.trajectory_terms",
        paper=PAPER,
        source=f"Eq. 8 (the state flow) and Eq. 9 (the per-step relative energy) {SRC}; "
        "algorithms.routing.gflownet (rollout, Trajectories.energies)",
        statement="Along sampled rollouts of a TSP7 and a CVRP6 policy whose flow MLP outputs 0, every "
        "state's log F̃ is a·log Γ(r+1) + b·r (r the customers left; (a, b) = (1, 0), the log-count of a "
        "uniform policy's completions, and (0.7, −0.3)), and 0 after the terminal transition; and the CVRP "
        "trajectories' energies (β = 3) are β(c_t − c̄_t), c̄_t the mean over the instance's samples at step "
        "t, on each transition taken, with the baselines of the steps a shorter trajectory does not take "
        "added to its last transition and 0 on padding (at least one trajectory shorter than another); on "
        "those trajectories the hybrid loss (directly and as trajectory_loss 'hybrid') is TB + w·DB "
        "(Eq. 11) for w = 1 and 0.5, to 1e-5 relative",
        kind=Kind.PROPERTY,
        check=_terms_check,
        control=_terms_control,
        control_description="the flow head's count term log Γ(r+2) = log (r+1)! instead of log r! (an "
        "off-by-one in r)",
        origin=Origin.IMPLEMENTATION,
    )
)
