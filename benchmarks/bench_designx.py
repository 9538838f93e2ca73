"""Benchmark DesignX on held-out BBOB instances against scipy DE, CMA-ES, PSO and random search.

For each BBOB function (``--functions``, default all 24), dimension (``--dims``, default 5 10) and
held-out instance (``--instances``, default 6..10; training used instances 1-5), every algorithm
runs once (seed = instance) with the same evaluation budget ``--budget-factor``·d (default 10⁴·d),
counted by the same evaluator. It prints a per-function table of the median (over instances)
normalized regret (f_best − f*)/(f_ref − f*), the overall median per algorithm, DesignX's ratio to
each peer's overall median, how often DesignX is better, the wall time per algorithm, the
training minutes of the shipped checkpoint, and writes a plot (per-function median normalized
regret, log scale) and the table as JSON to ``--out`` (default ``reports/bench_designx``).
Each problem (function, dimension) runs in one process with one torch thread; ``--jobs N`` spreads
the problems over N worker processes (default 1). Every run is seeded by its instance, so the
numbers do not depend on ``--jobs``; the wall seconds are summed over the workers.

    .venv/bin/python benchmarks/bench_designx.py --jobs 2                          # the issue's size
    .venv/bin/python benchmarks/bench_designx.py --dims 5 --instances 6 --budget-factor 1000   # smaller
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from algorithms import solve
from algorithms.blackbox import (
    CMAES,
    PSO,
    DesignX,
    RandomSearch,
    ScipyDE,
    bbob_problem,
    normalized_regret,
)
from algorithms.blackbox.designx import DEFAULT_CHECKPOINT

ALGORITHMS = {"DesignX": DesignX(), "DE (scipy)": ScipyDE(), "CMA-ES": CMAES(), "PSO": PSO(),
              "random": RandomSearch()}


def _run_problem(task: tuple[int, int, tuple[int, ...], int]):
    """Every algorithm once per held-out instance of one (function, dimension) problem."""
    fid, d, instances, budget_factor = task
    torch.set_num_threads(1)
    key = f"f{fid}-{d}D"
    regrets = {name: [] for name in ALGORITHMS}
    wall = dict.fromkeys(ALGORITHMS, 0.0)
    workflows = []
    for inst in instances:
        prob = bbob_problem(fid, inst, d, budget_factor * d)
        for name, alg in ALGORITHMS.items():
            start = time.perf_counter()
            sol = solve(prob, alg, seed=inst)
            wall[name] += time.perf_counter() - start
            assert sol.stats.f_calls <= prob.budget
            regrets[name].append(normalized_regret(sol.value, prob))
            if name == "DesignX":
                workflows.append(" ".join(sol.original["workflow"]))
    return key, regrets, wall, workflows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, nargs="+", default=list(range(1, 25)))
    parser.add_argument("--dims", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--instances", type=int, nargs="+", default=[6, 7, 8, 9, 10])
    parser.add_argument("--budget-factor", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=Path("reports/bench_designx"))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes, one problem each at a time")
    args = parser.parse_args(argv)
    if any(i <= 5 for i in args.instances):
        parser.error("instances 1-5 are the training instances; pick held-out ones (>= 6)")
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    meta = json.loads(DEFAULT_CHECKPOINT.with_suffix(".json").read_text())
    print(f"config: functions {args.functions}, dims {args.dims}, held-out instances {args.instances}, "
          f"budget {args.budget_factor}·d; checkpoint trained {meta['minutes']} wall minutes, "
          f"{meta['episodes']} episodes", flush=True)
    tasks = [(fid, d, tuple(args.instances), args.budget_factor) for d in args.dims for fid in args.functions]
    regrets = {name: {} for name in ALGORITHMS}
    wall = dict.fromkeys(ALGORITHMS, 0.0)
    workflows = {}
    with contextlib.ExitStack() as stack:
        mapper = stack.enter_context(ProcessPoolExecutor(args.jobs)).map if args.jobs > 1 else map
        for key, problem_regrets, problem_wall, problem_workflows in mapper(_run_problem, tasks):
            for name in ALGORITHMS:
                regrets[name][key] = problem_regrets[name]
                wall[name] += problem_wall[name]
            workflows[key] = problem_workflows
            row = "  ".join(f"{n}={np.median(regrets[n][key]):.2e}" for n in ALGORITHMS)
            print(f"{key:10s} {row}", flush=True)
    keys = list(regrets["DesignX"])
    overall = {n: float(np.median([v for k in keys for v in regrets[n][k]])) for n in ALGORITHMS}
    ours = np.array([v for k in keys for v in regrets["DesignX"][k]])
    print("\nper-function median normalized regret (over instances)")
    print("| problem | " + " | ".join(ALGORITHMS) + " |")
    print("|---|" + "---|" * len(ALGORITHMS))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{np.median(regrets[n][k]):.2e}" for n in ALGORITHMS) + " |")
    print("| **median** | " + " | ".join(f"{overall[n]:.2e}" for n in ALGORITHMS) + " |")
    print("\nDesignX against each peer (all problems and instances)")
    for n in ALGORITHMS:
        if n == "DesignX":
            continue
        theirs = np.array([v for k in keys for v in regrets[n][k]])
        ratio = overall["DesignX"] / overall[n] if overall[n] > 0 else float("inf")
        print(f"  vs {n:11s}: median ratio {ratio:.3g}, DesignX better on {np.mean(ours < theirs):.0%}, "
              f"ties {np.mean(ours == theirs):.0%}")
    print("\nwall seconds per algorithm: " + ", ".join(f"{n} {wall[n]:.1f}" for n in ALGORITHMS))
    print(f"training: {meta['minutes']} wall minutes, {meta['episodes']} episodes (seed {meta['seed']})")
    (args.out / "bench_designx.json").write_text(json.dumps(
        {"config": vars(args) | {"out": str(args.out)}, "regrets": regrets, "overall_median": overall,
         "wall_s": wall, "designx_workflows": workflows, "training": meta}, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(max(8, 0.35 * len(keys)), 4))
        for j, n in enumerate(ALGORITHMS):
            medians = [max(np.median(regrets[n][k]), 1e-12) for k in keys]
            ax.scatter(np.arange(len(keys)) + 0.12 * (j - 2), medians, label=n, s=14)
        ax.set_yscale("log")
        ax.set_xticks(range(len(keys)), keys, rotation=90, fontsize=7)
        ax.set_ylabel("median normalized regret")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.out / "bench_designx.png", dpi=120)
        print(f"plot: {args.out / 'bench_designx.png'}")
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
