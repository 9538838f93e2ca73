"""Benchmark the dynamic p-matchoid algorithm against recompute-from-scratch, in one process.

Instance: f is the cut of a random unit-weight 4-regular graph (non-monotone, f({v}) = 4), a
cardinality constraint k ∈ {5, 10, 20} (a matroid, p = 1), ε = 0.1; the stream has 10⁴ updates,
two insertions of new elements per deletion of a random present element (|V_t| grows to ~3300).

* dynamic: ``solve(UpdateStream, DynamicMatchoid(eps=0.1))`` with MAX guessed by parallel runs
  (Appendix B, the algorithm a user runs), every update processed; and with MAX = 4 given.
* recompute: Sample Greedy (the static non-monotone p-matchoid algorithm of Feldman, Harshaw and
  Karbasi) rerun on V_t after an update. Running it after all 10⁴ updates takes far too long in
  Python, so it is run after every 100th update (100 recomputes) and its per-update queries and
  wall time are the means over those times (an estimate: its cost depends only on V_t).
* value: f(S_t) of the dynamic solution over f of Sample Greedy and of Greedy recomputed on V_t,
  at the same 100 times (mean of the ratios).
* flatness: the log-log slope of the dynamic algorithm's amortized queries per update (from the
  start of the stream) against T over T = 10³ … 10⁴ (from one run's trace).

    .venv/bin/python benchmarks/bench_dynamic_matchoid.py           # k = 5, 10, 20, 10⁴ updates
    .venv/bin/python benchmarks/bench_dynamic_matchoid.py --quick   # k = 5, 2000 updates
    .venv/bin/python benchmarks/bench_dynamic_matchoid.py --k 20    # one row
"""

from __future__ import annotations

import argparse
import time

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


def run(k: int, length: int, seed: int, every: int) -> dict:
    updates, n = growing_stream(length, np.random.default_rng(seed))
    f, matchoid = regular_cut(n, seed), Matchoid([UniformMatroid(k)])
    stream = UpdateStream(f, matchoid, updates)
    row: dict = {"k": k, "updates": length}
    dynamic = (("dyn", DynamicMatchoid(eps=0.1)), ("dyn_max", DynamicMatchoid(eps=0.1, max_value=4.0)))
    for name, algorithm in dynamic:
        start = time.perf_counter()
        sol = solve(stream, algorithm, seed=seed, store_trace=True)
        row[f"{name}_s"] = (time.perf_counter() - start) / length
        row[f"{name}_q"] = sol.original.queries / length
        row[f"{name}_trace"] = sol.trace
    present: set = set()
    rec_q, rec_s, vs_sample, vs_greedy = [], [], [], []
    for t, (kind, element) in enumerate(updates, start=1):
        (present.add if kind == "insert" else present.discard)(element)
        if t % every:
            continue
        problem = MatchoidMaximization(f, matchoid, sorted(present))
        start = time.perf_counter()
        static = solve(problem, SampleGreedy(), seed=t)
        rec_s.append(time.perf_counter() - start)
        rec_q.append(static.original["queries"])
        greedy = solve(problem, Greedy())
        value = row["dyn_trace"][t - 1]["value"]
        vs_sample.append(value / static.value if static.value > 0 else 1.0)
        vs_greedy.append(value / greedy.value if greedy.value > 0 else 1.0)
    row.update(rec_q=float(np.mean(rec_q)), rec_s=float(np.mean(rec_s)), vs_sample=float(np.mean(vs_sample)),
               vs_greedy=float(np.mean(vs_greedy)))
    cumulative = np.cumsum([r["update_queries"] for r in row["dyn_trace"]])
    sizes = np.array([s for s in (1000, 2000, 4000, 7000, 10000) if s <= length] or [length // 4, length])
    amortized = cumulative[sizes - 1] / sizes
    row["slope"] = float(np.polyfit(np.log(sizes), np.log(amortized), 1)[0])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="k = 5 and 2000 updates")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, nargs="+", default=None, help="only these k (default 5 10 20)")
    args = parser.parse_args()
    ks, length = ((5,), 2000) if args.quick else ((5, 10, 20), 10_000)
    ks = tuple(args.k) if args.k else ks
    header = (f"{'k':>3} {'updates':>8} {'dyn q/upd':>10} {'dyn(MAX) q/upd':>15} {'recompute q/upd':>16} "
              f"{'q ratio':>8} {'q ratio(MAX)':>13} {'dyn ms/upd':>11} {'recompute ms/upd':>17} "
              f"{'time ratio':>11} {'f/SampleGreedy':>15} {'f/Greedy':>9} {'slope q~T':>10}")
    print(header)
    for k in ks:
        r = run(k, length, args.seed, every=max(length // 100, 1))
        print(f"{k:>3} {length:>8} {r['dyn_q']:>10.1f} {r['dyn_max_q']:>15.1f} {r['rec_q']:>16.1f} "
              f"{r['rec_q'] / r['dyn_q']:>8.1f} {r['rec_q'] / r['dyn_max_q']:>13.1f} "
              f"{1e3 * r['dyn_s']:>11.3f} {1e3 * r['rec_s']:>17.3f} {r['rec_s'] / r['dyn_s']:>11.1f} "
              f"{r['vs_sample']:>15.3f} {r['vs_greedy']:>9.3f} {r['slope']:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
