"""Benchmark the shipped HBG checkpoints against LKH-3 (elkai), PyVRP (HGS) and NN + 2-opt.

Seeded test sets (``random_tsp`` / ``random_cvrp``, seeds 900 000 + i, the paper's
distribution) of TSP50/100 and CVRP50/100; every method runs in this process on the same
instances:

* reference: LKH (elkai, ``runs=1``) for TSP, HGS (PyVRP, a fixed 1.0 s per instance) for CVRP;
* NN + 2-opt (``NearestNeighbor2Opt``);
* HBG with the TB, DB and hybrid checkpoints of size 50 (``allow_size_transfer`` for size 100,
  the paper's train-small/test-large protocol), 100 samples, decoding "auto" (TSP: sampling;
  CVRP: depot-guided), with and without the final 2-opt (``local_search``).

Columns: mean cost, mean gap to the reference in % (per instance (cost − ref)/ref, averaged),
the ratio of HBG's mean cost to NN + 2-opt's, and the mean wall seconds per instance.

    .venv/bin/python benchmarks/bench_routing.py                 # 128 instances per set
    .venv/bin/python benchmarks/bench_routing.py --instances 16 --losses hybrid  # a smaller run
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import torch

from algorithms import solve
from algorithms.routing import random_cvrp, random_tsp
from algorithms.routing.hbg import HBG
from algorithms.routing.hgs import HGS
from algorithms.routing.lkh import LKH
from algorithms.routing.nn2opt import NearestNeighbor2Opt

torch.set_num_threads(1)


def _run(instances, algorithm, seed=0):
    costs, times = [], []
    for inst in instances:
        t0 = time.perf_counter()
        sol = solve(inst, algorithm, seed=seed)
        times.append(time.perf_counter() - t0)
        if not sol.successful:
            raise RuntimeError(f"{type(algorithm).__name__} returned {sol.retcode}")
        costs.append(sol.value)
    return np.array(costs), float(np.mean(times))


def main(argv=None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--instances", type=int, default=128)
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--hgs-runtime", type=float, default=1.0)
    p.add_argument("--sets", default="tsp50,tsp100,cvrp50,cvrp100")
    p.add_argument("--losses", default="tb,db,hybrid")
    args = p.parse_args(argv)
    print(f"{args.instances} instances per set; HBG: {args.samples} samples, checkpoints of size 50\n")
    print("| set | method | mean cost | gap to ref (%) | cost / NN+2-opt | s / instance |")
    print("|---|---|---|---|---|---|", flush=True)

    def row(name, method, c, ref, nn, t):
        gap = 100.0 * float(np.mean((c - ref) / ref))
        print(f"| {name} | {method} | {c.mean():.4f} | {gap:.2f} | {c.mean() / nn.mean():.4f} | {t:.3f} |",
              flush=True)

    for name in args.sets.split(","):
        problem, size = name.rstrip("0123456789"), int(name.lstrip("tsvrpc"))
        gen = random_tsp if problem == "tsp" else random_cvrp
        insts = [gen(size, seed=900_000 + i) for i in range(args.instances)]
        ref_alg = LKH(runs=1) if problem == "tsp" else HGS(runtime=args.hgs_runtime)
        ref, ref_t = _run(insts, ref_alg)
        nn, nn_t = _run(insts, NearestNeighbor2Opt())
        ref_name = "LKH (elkai, runs=1)" if problem == "tsp" else f"HGS (PyVRP, {args.hgs_runtime:g} s)"
        row(name, ref_name, ref, ref, nn, ref_t)
        row(name, "NN + 2-opt", nn, ref, nn, nn_t)
        for loss in args.losses.split(","):
            for ls in (False, True):
                alg = HBG(checkpoint=f"{problem}50", loss=loss, samples=args.samples, local_search=ls,
                          allow_size_transfer=True)
                c, t = _run(insts, alg)
                row(name, f"HBG {loss}{' + 2-opt' if ls else ''}", c, ref, nn, t)

if __name__ == "__main__":
    main()
