"""Benchmark the dynamic p-matchoid algorithm against recompute-from-scratch, in one process.

Instance: f is the cut of a random unit-weight 4-regular graph (non-monotone, f({v}) = 4), a
cardinality constraint k ∈ {5, 10, 20} (a matroid, p = 1), ε = 0.1; the stream has 10⁴ updates,
two insertions of new elements per deletion of a random present element (|V_t| grows to ~3300).

Table 1 (queries and CPU time per update on the cut function):

* dynamic: ``solve(UpdateStream, DynamicMatchoid(eps=0.1))`` with MAX guessed by parallel runs
  (Appendix B, the default), every update processed; with MAX = 4 given; and with MAX guessed by
  ``max_guess="current"``.
* recompute: Sample Greedy (the static non-monotone p-matchoid algorithm of Feldman, Harshaw and
  Karbasi) rerun on V_t after an update. Running it after all 10⁴ updates takes far too long in
  Python, so it is run after every 100th update (100 recomputes) and its per-update queries and
  CPU time are the means over those times (an estimate: its cost depends only on V_t).
* q ratio: recompute's mean queries per update over the dynamic one's (both over the whole stream,
  i.e. total queries after 10⁴ updates); "at T" the same at the end of the stream: recompute on
  V_T against the dynamic algorithm's mean over the last 10 % of the stream.
* value: f(S_t) of the dynamic solution over f of Sample Greedy and of Greedy recomputed on V_t,
  at the same 100 times (mean of the ratios).
* flatness: the log-log slope of the dynamic algorithm's amortized queries per update (from the
  start of the stream) against T over T = 10³ … 10⁴ (from one run's trace).

Table 2 (the oracle's cost as the x-axis): each method's CPU time splits into time inside f
(measured around every call) and the rest, its bookkeeping B. With an oracle that costs c per
call of f, a method's time per update is B + q·c (q: its calls of f per update, the independence
queries are not slowed), so the dynamic algorithm is the faster one for every c above
c* = (B_dyn − B_rec) / (q_rec − q_dyn) (for every c when c* <= 0). One point is checked directly
at k = 10 (``--direct-k``): f slowed by a busy wait of ``--cost`` µs of CPU per call, the whole
stream again, measured against the model's prediction.

Table 1b (the query ratio at T over seeds): one seed's "at T" ratio in table 1 is the mean of a
heavy-tailed count over 1000 updates and moves by 2-3x between seeds; table 1b repeats the query
counts (no timing) over ``--end-seeds`` streams and reports the ratio of the means.

Table 3 (queries per update against the live-set size): the stream grows to n live elements, then
each update deletes a random live element or inserts a new one with equal probability, so |V_t|
stays near n; the mean queries per update over that steady window (MAX given, and MAX guessed with
``max_guess="current"``; several seeds), and the log-log slope against n (flat: slope ≈ 0;
Theorem 5.4's bound has no n).

Every table has a row for ``max_guess="current"`` (our option: one run for the MAX valid now,
rebuilt by Init when ⌈log₂ max f(v)⌉ changes; on this instance every f(v) = 4, so after the first
insertion the exponent changes only when the stream empties the live set).

Times are the CPU time of the one thread (``time.thread_time``: other processes on a shared machine
barely move it, unlike the wall clock), medians over ``--repeats`` interleaved repetitions; the
query counts are exact.

    .venv/bin/python benchmarks/bench_dynamic_matchoid.py           # k = 5, 10, 20, 10⁴ updates
    .venv/bin/python benchmarks/bench_dynamic_matchoid.py --quick   # k = 10, 2000 updates, small table 3
    .venv/bin/python benchmarks/bench_dynamic_matchoid.py --k 10    # one row
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from algorithms import solve
from algorithms.submodular import (
    DynamicMatchoid,
    Greedy,
    Matchoid,
    MatchoidMaximization,
    SampleGreedy,
    UniformMatroid,
    UpdateStream,
)
from theorems.dynamic_matchoid import growing_stream, regular_cut  # the claims' stream and instance

clock = time.thread_time  # CPU time of this thread: other processes on a shared machine barely move it
#: the dynamic variants: MAX guessed by Appendix B's parallel runs, MAX = 4 given, MAX guessed by our
#: max_guess="current" (one run for the MAX valid now, rebuilt by Init when ⌈log₂ max f(v)⌉ changes)
DYNAMIC = {"dyn": (None, "parallel"), "dyn_max": (4.0, "parallel"), "dyn_cur": (None, "current")}


class TimedOracle:
    """f with the CPU time spent inside it summed (and an optional busy wait of ``cost`` CPU seconds
    per call, the x-axis of table 2)."""

    def __init__(self, f: Callable[[frozenset], float], cost: float = 0.0) -> None:
        self.f, self.cost, self.spent = f, cost, 0.0

    def __call__(self, subset: frozenset) -> float:
        start = clock()
        value = self.f(subset)
        if self.cost:
            while clock() - start < self.cost:
                pass
        self.spent += clock() - start
        return value


def _dynamic(oracle: TimedOracle, matchoid: Matchoid, updates: list, max_value: float | None,
             seed: int, max_guess: str = "parallel") -> tuple[float, float, int, list, int, int]:
    """(CPU s, s inside f, queries, trace, value queries, rebuilds) of one dynamic run over ``updates``."""
    oracle.spent = 0.0
    start = clock()
    sol = solve(UpdateStream(oracle, matchoid, updates),
                DynamicMatchoid(eps=0.1, max_value=max_value, max_guess=max_guess), seed=seed,
                store_trace=True)
    return (clock() - start, oracle.spent, sol.original.queries, sol.trace, sol.original.value_queries,
            sol.original.rebuilds)


def _recompute(oracle: TimedOracle, matchoid: Matchoid, elements: list,
               seed: int) -> tuple[float, float, int, float, int]:
    """(CPU s, s inside f, queries, value, value queries) of one Sample Greedy run on ``elements``."""
    oracle.spent = 0.0
    start = clock()
    static = solve(MatchoidMaximization(oracle, matchoid, elements), SampleGreedy(), seed=seed)
    return clock() - start, oracle.spent, static.original["queries"], static.value, static.stats.f_calls


def run(k: int, length: int, seed: int, every: int, repeats: int) -> dict:
    updates, n = growing_stream(length, np.random.default_rng(seed))
    f, matchoid = regular_cut(n, seed), Matchoid([UniformMatroid(k)])
    oracle = TimedOracle(f)
    checkpoints, present = [], set()
    for t, (kind, element) in enumerate(updates, start=1):
        (present.add if kind == "insert" else present.discard)(element)
        if t % every == 0:
            checkpoints.append((t, sorted(present)))
    row: dict = {"k": k, "updates": length}
    walls: dict = {name: [] for name in (*DYNAMIC, "rec")}
    inside: dict = {name: [] for name in (*DYNAMIC, "rec")}
    for _ in range(repeats):  # interleaved: a change of load hits every method alike
        for name, (max_value, guess) in DYNAMIC.items():
            wall, spent, queries, trace, value_queries, rebuilds = _dynamic(oracle, matchoid, updates,
                                                                            max_value, seed, guess)
            walls[name].append(wall / length)
            inside[name].append(spent / length)
            row[f"{name}_q"], row[f"{name}_trace"] = queries / length, trace
            row[f"{name}_vq"] = value_queries / length
            row[f"{name}_rebuilds"] = rebuilds
        rec = [_recompute(oracle, matchoid, elements, t) for t, elements in checkpoints]
        walls["rec"].append(float(np.mean([r[0] for r in rec])))
        inside["rec"].append(float(np.mean([r[1] for r in rec])))
        row["rec_q"] = float(np.mean([r[2] for r in rec]))
        row["rec_vq"] = float(np.mean([r[4] for r in rec]))
        row["rec_q_end"] = float(rec[-1][2])
        rec_values = [r[3] for r in rec]
    for name in walls:
        row[f"{name}_s"] = float(np.median(walls[name]))
        row[f"{name}_b"] = float(np.median(np.subtract(walls[name], inside[name])))  # bookkeeping B
    vs_sample, vs_greedy = [], []
    for (t, elements), static_value in zip(checkpoints, rec_values):
        greedy = solve(MatchoidMaximization(f, matchoid, elements), Greedy())
        value = row["dyn_trace"][t - 1]["value"]
        vs_sample.append(value / static_value if static_value > 0 else 1.0)
        vs_greedy.append(value / greedy.value if greedy.value > 0 else 1.0)
    row.update(vs_sample=float(np.mean(vs_sample)), vs_greedy=float(np.mean(vs_greedy)))
    tail = length - max(length // 10, 1)
    for name in DYNAMIC:
        row[f"{name}_q_end"] = float(np.mean([r["update_queries"] for r in row[f"{name}_trace"][tail:]]))
    cumulative = np.cumsum([r["update_queries"] for r in row["dyn_trace"]])
    sizes = np.array([s for s in (1000, 2000, 4000, 7000, 10000) if s <= length] or [length // 4, length])
    amortized = cumulative[sizes - 1] / sizes
    row["slope"] = float(np.polyfit(np.log(sizes), np.log(amortized), 1)[0])
    row["updates_list"], row["checkpoints"], row["matchoid"], row["f"] = updates, checkpoints, matchoid, f
    return row


def crossover(row: dict, name: str) -> float:
    """c* in seconds per call of f: the cost of f above which the dynamic run is the faster one (the
    independence queries are not slowed: only f's cost varies on this axis)."""
    return (row[f"{name}_b"] - row["rec_b"]) / (row["rec_vq"] - row[f"{name}_vq"])


def direct_check(row: dict, cost: float, seed: int) -> dict:
    """CPU time per update over the whole stream with f slowed by ``cost`` s per call (MAX guessed)."""
    updates, matchoid, slow = row["updates_list"], row["matchoid"], TimedOracle(row["f"], cost)
    spent = _dynamic(slow, matchoid, updates, None, seed)[0]
    rec = [_recompute(slow, matchoid, elements, t) for t, elements in row["checkpoints"]]
    return {"dyn": spent / len(updates), "rec": float(np.mean([r[0] for r in rec]))}


def steady_stream(n: int, window: int, rng: np.random.Generator) -> list:
    """Insert n new elements, then ``window`` updates that each delete a random live element or insert
    a new one with probability 1/2 (|V_t| stays near n)."""
    live, updates, fresh = [], [], 0
    for _ in range(n):
        updates.append(("insert", fresh))
        live.append(fresh)
        fresh += 1
    for _ in range(window):
        if live and rng.random() < 0.5:
            updates.append(("delete", live.pop(int(rng.integers(len(live))))))
        else:
            updates.append(("insert", fresh))
            live.append(fresh)
            fresh += 1
    return updates


def end_ratio_table(k: int, length: int, seeds: int) -> list[dict]:
    """Per seed: recompute's queries on V_T (Sample Greedy) and each dynamic variant's mean queries per
    update over the last 10 % and the last half of the stream (queries only, no timing). A window's
    mean is heavy-tailed (a resample at a low level refilters every level above it), so one seed's
    last 10 % moves by 2-3x; the mean over seeds is the estimate."""
    rows = []
    for seed in range(seeds):
        updates, n = growing_stream(length, np.random.default_rng(seed))
        f, matchoid = regular_cut(n, seed), Matchoid([UniformMatroid(k)])
        present: set = set()
        for kind, element in updates:
            (present.add if kind == "insert" else present.discard)(element)
        rec = solve(MatchoidMaximization(f, matchoid, sorted(present)), SampleGreedy(), seed=seed)
        row = {"seed": seed, "rec": rec.original["queries"]}
        for name, (max_value, guess) in DYNAMIC.items():
            sol = solve(UpdateStream(f, matchoid, updates),
                        DynamicMatchoid(eps=0.1, max_value=max_value, max_guess=guess), seed=seed,
                        store_trace=True)
            q = np.array([r["update_queries"] for r in sol.trace])
            row[name] = (float(q[-(length // 10):].mean()), float(q[length // 2:].mean()))
        rows.append(row)
    return rows


def live_set_table(k: int, sizes: list[int], window: int, seeds: int,
                   algorithm: DynamicMatchoid) -> list[tuple]:
    rows = []
    for n in sizes:
        per_seed = []
        for seed in range(seeds):
            updates = steady_stream(n, window, np.random.default_rng([seed, n]))
            f = regular_cut(len({e for _, e in updates}), seed)
            sol = solve(UpdateStream(f, Matchoid([UniformMatroid(k)]), updates),
                        algorithm, seed=seed, store_trace=True)
            per_seed.append(np.mean([r["update_queries"] for r in sol.trace[n:]]))
        rows.append((n, float(np.mean(per_seed)), float(np.std(per_seed) / np.sqrt(seeds))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="k = 10 and 2000 updates; a small table 3")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, nargs="+", default=None, help="only these k (default 5 10 20)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repetitions of the timings")
    parser.add_argument("--cost", type=float, default=20.0, help="µs per call of the slowed oracle")
    parser.add_argument("--direct-k", type=int, nargs="*", default=[10],
                        help="the k whose crossover model is checked by a run with the slowed oracle")
    parser.add_argument("--skip-live", action="store_true", help="skip table 3")
    parser.add_argument("--end-seeds", type=int, default=6, help="seeds of table 1b")
    args = parser.parse_args()
    ks, length = ((10,), 2000) if args.quick else ((5, 10, 20), 10_000)
    ks = tuple(args.k) if args.k else ks

    print("Table 1: queries and CPU time per update (cut function); dyn = MAX guessed (Appendix B), "
          "dyn(MAX) = MAX given, dyn(cur) = MAX guessed, max_guess='current'")
    print(f"{'k':>3} {'updates':>8} {'variant':>9} {'q/update':>9} {'rec q':>8} {'q ratio':>8} {'at T':>7} "
          f"{'ms/update':>10} {'rec ms':>8} {'rec/dyn':>8} {'f/SG':>6} {'f/G':>6} {'slope q~T':>10}",
          flush=True)
    rows = []
    for k in ks:
        r = run(k, length, args.seed, every=max(length // 100, 1), repeats=args.repeats)
        rows.append(r)
        for name in DYNAMIC:
            print(f"{k:>3} {length:>8} {name:>9} {r[name + '_q']:>9.1f} {r['rec_q']:>8.1f} "
                  f"{r['rec_q'] / r[name + '_q']:>8.1f} {r['rec_q_end'] / r[name + '_q_end']:>7.1f} "
                  f"{1e3 * r[name + '_s']:>10.3f} {1e3 * r['rec_s']:>8.3f} "
                  f"{r['rec_s'] / r[name + '_s']:>8.2f} "
                  f"{r['vs_sample']:>6.3f} {r['vs_greedy']:>6.3f} {r['slope']:>10.3f}", flush=True)
        print(f"    (f/SG, f/G, slope: the MAX-guessed parallel run; max_guess='current' rebuilt its run "
              f"{r['dyn_cur_rebuilds']} times)", flush=True)

    print("\nTable 2: bookkeeping B (CPU time outside f), the crossover oracle cost c* (µs per call of f)")
    print(f"{'k':>3} {'variant':>9} {'B ms':>8} {'B rec ms':>9} {'µs/f':>7} {'µs/f rec':>9} {'c* µs':>8}",
          flush=True)
    for r in rows:
        f_rec = 1e6 * (r["rec_s"] - r["rec_b"]) / r["rec_vq"]
        for name in DYNAMIC:
            f_dyn = 1e6 * (r[name + "_s"] - r[name + "_b"]) / r[name + "_vq"]
            print(f"{r['k']:>3} {name:>9} {1e3 * r[name + '_b']:>8.3f} {1e3 * r['rec_b']:>9.3f} "
                  f"{f_dyn:>7.2f} "
                  f"{f_rec:>9.2f} {1e6 * crossover(r, name):>8.2f}", flush=True)
    for r in rows:
        if r["k"] not in args.direct_k:
            continue
        check, cost = direct_check(r, args.cost * 1e-6, args.seed), args.cost * 1e-6
        # B + q·(c_f + cost): the measured time plus the added cost of every query
        model = {name: r[f"{name}_s"] + r[f"{name}_vq"] * cost for name in ("dyn", "rec")}
        print(f"  k = {r['k']}, f slowed by {args.cost:g} µs of CPU per call, whole stream, MAX guessed: "
              f"dynamic {1e3 * check['dyn']:.3f} ms/update (model {1e3 * model['dyn']:.3f}), recompute "
              f"{1e3 * check['rec']:.3f} ms/update (model {1e3 * model['rec']:.3f}), recompute / dynamic "
              f"{check['rec'] / check['dyn']:.2f}", flush=True)

    seeds = 2 if args.quick else args.end_seeds
    print(f"\nTable 1b: queries at T = {length} over {seeds} seeds (k = 10): recompute on V_T against each "
          "variant's mean queries per update over the last 10 % / last half of the stream")
    table = end_ratio_table(10, length, seeds)
    for row in table:
        print(f"  seed {row['seed']}: recompute {row['rec']} queries; " + "; ".join(
            f"{name} {row[name][0]:.1f} / {row[name][1]:.1f} ({row['rec'] / row[name][0]:.0f}× / "
            f"{row['rec'] / row[name][1]:.0f}×)" for name in DYNAMIC), flush=True)
    rec = np.mean([row["rec"] for row in table])
    print("  mean over seeds: " + "; ".join(
        f"{name} {rec / np.mean([row[name][0] for row in table]):.0f}× (last 10 %) / "
        f"{rec / np.mean([row[name][1] for row in table]):.0f}× (last half)" for name in DYNAMIC), flush=True)

    if args.skip_live:
        return
    full = ([60, 120, 240, 480, 960, 1920], 2000, 3)
    sizes, window, seeds = ([60, 240, 960], 600, 2) if args.quick else full
    print(f"\nTable 3: queries per update at steady state against the live-set size n (k = 10, "
          f"{window} updates past the growth, {seeds} seeds)")
    for label, algorithm in (("MAX = 4 given", DynamicMatchoid(eps=0.1, max_value=4.0)),
                             ("MAX guessed, max_guess='current'",
                              DynamicMatchoid(eps=0.1, max_guess="current"))):
        table = live_set_table(10, sizes, window, seeds, algorithm)
        print(f"  {label}:")
        for n, mean, err in table:
            print(f"    n = {n:>5}: {mean:8.1f} ± {err:.1f} queries/update")
        slope = np.polyfit(np.log([t[0] for t in table]), np.log([t[1] for t in table]), 1)[0]
        late = [t for t in table if t[0] >= 240] or table
        tail = (np.polyfit(np.log([t[0] for t in late]), np.log([t[1] for t in late]), 1)[0]
                if late[1:] else 0.0)
        print(f"    log-log slope of queries/update vs n: {slope:.3f} over all n, {tail:.3f} over n >= 240; "
              f"largest / smallest n: {table[-1][1] / table[0][1]:.2f}×", flush=True)


if __name__ == "__main__":
    main()
