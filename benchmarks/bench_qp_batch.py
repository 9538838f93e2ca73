"""A batch of tiny QPs through dQP's torch layer: default BLAS threads against one thread (issue #42).

    .venv/bin/python benchmarks/bench_qp_batch.py                 # 32 QPs of 5 variables, best of 21
    .venv/bin/python benchmarks/bench_qp_batch.py --batch 64 --n 10 --repeats 31

The issue's target: the default (whatever BLAS threads the process has) within 1.2x of the same call under
``threadpool_limits(1)``. A multi-threaded BLAS woke its threads for every 5x5 triangular solve and ran
such a batch 5-10x slower than one thread; the layer now sets one BLAS thread per batch of small QPs
(``algorithms.qp.layer.SMALL_N``). Unlike ``bench_dqp.py`` this script leaves the thread settings alone
(no ``OMP_NUM_THREADS``): the default is what it measures. Forward + backward wall time, the best of k,
the two settings interleaved in one process (on a shared machine the minimum is the least noisy).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import torch
from threadpoolctl import threadpool_info, threadpool_limits

from algorithms.qp import qp_layer

warnings.filterwarnings("ignore")


def batch_instance(batch: int, n: int, seed: int = 0):
    """``batch`` strictly convex QPs with n variables and n inequality rows (P = MᵀM + I, h = |N|)."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((batch, n, n))
    P = np.einsum("bji,bjk->bik", M, M) + np.eye(n)
    return P, rng.standard_normal((batch, n)), rng.standard_normal((batch, n, n)), \
        np.abs(rng.standard_normal((batch, n)))


def run_once(P, q, G, h) -> float:
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (P, q, G, h)]
    start = time.perf_counter()
    x = qp_layer(*tensors)
    x.sum().backward()
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=21, help="k of best-of-k (default 21)")
    args = parser.parse_args(argv)
    if min(args.batch, args.n, args.repeats) < 1:
        parser.error("--batch, --n and --repeats must be >= 1")
    data = batch_instance(args.batch, args.n)
    blas = [(i.get("internal_api"), i.get("num_threads")) for i in threadpool_info()
            if i.get("user_api") == "blas"]
    print(f"BLAS pools {blas}, torch threads {torch.get_num_threads()}, load {os.getloadavg()}")
    run_once(*data)  # warm-up: imports, backend setup
    best = {"default": np.inf, "one thread": np.inf}
    for _ in range(args.repeats):
        best["default"] = min(best["default"], run_once(*data))
        with threadpool_limits(1):
            best["one thread"] = min(best["one thread"], run_once(*data))
    print(f"batch of {args.batch} QPs, n = {args.n}, forward + backward, best of {args.repeats}: "
          f"default {1e3 * best['default']:.2f} ms, one thread {1e3 * best['one thread']:.2f} ms, "
          f"ratio {best['default'] / best['one thread']:.3f} (target <= 1.2)")


if __name__ == "__main__":
    main()
