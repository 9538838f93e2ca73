"""Cost of log|det DG_η(θ)| = log|det(I − η∇²L(θ))|: exact (dense Hessian + slogdet) vs stochastic (SLQ).

Model: a one-hidden-layer tanh MLP (10 inputs, width w, 3 classes, d = 14 w + 3
parameters) with cross-entropy on 64 random samples, at its random
initialization, step η = 0.1. For each d the script times

* exact: ``torch.func.hessian`` (d Hessian-vector products, d x d memory) + ``slogdet``
  (the peer: what one would do without a matrix-free estimator);
* SLQ: :func:`algorithms.nets.gd_map.gd_logabsdet_slq` (probes x Lanczos steps
  Hessian-vector products, no d x d matrix),

and, where both run, their agreement against the 4σ probe-count tolerance used by
the claim ``gd_nonsingular.stochastic_logdet``. Run::

    .venv/bin/python benchmarks/bench_gd_nonsingular.py           # exact up to d ~ 1000, SLQ to ~ 2e4
    .venv/bin/python benchmarks/bench_gd_nonsingular.py --quick   # under a minute
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch

from algorithms.nets.gd_map import EmpiricalLoss, gd_logabsdet_slq, hessian_matrix
from algorithms.nets.models import MLP

LR = 0.1  # the step size η


def objective(width: int, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    model = MLP(10, (width,), 3, activation="tanh", seed=seed)
    X = torch.randn(64, 10, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 3, (64,), generator=gen)
    return EmpiricalLoss(model, X, y).flat_objective()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, finishes in under a minute")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.quick:
        exact_widths, slq_widths, probes, steps = [4, 8, 16, 36], [4, 8, 16, 36, 143, 358], 32, 20
    else:
        exact_widths = [4, 8, 16, 36, 71, 143, 286]
        slq_widths = [4, 8, 16, 36, 71, 143, 358, 714, 1428]
        probes, steps = 64, 30
    print(f"log|det(I - eta H)| of a tanh MLP (10-w-3, CE, n=64), eta={LR}; SLQ: {probes} probes x "
          f"{steps} Lanczos steps; torch threads={args.threads}")
    header = (f"{'d':>7} {'exact s':>9} {'slq s':>9} {'slq/exact':>9} {'exact logdet':>13} "
              f"{'slq logdet':>11} {'|err|':>8} {'4σ tol':>8} {'eta*lmax':>8}")
    theta, fn = objective(2)  # warm-up: the first torch.func call pays one-off dispatch costs
    hessian_matrix(fn, theta)
    gd_logabsdet_slq(fn, theta, lr=LR, num_probes=2, lanczos_steps=2)
    print(header)
    print("-" * len(header))
    for width in sorted(set(exact_widths) | set(slq_widths)):
        theta, fn = objective(width)
        d = theta.numel()
        exact = t_exact = tol = eta_lmax = math.nan
        if width in exact_widths:
            start = time.perf_counter()
            H = hessian_matrix(fn, theta)
            exact = float(torch.linalg.slogdet(torch.eye(d, dtype=H.dtype) - LR * H)[1])
            t_exact = time.perf_counter() - start
            lam = torch.linalg.eigvalsh(H).numpy()
            tol = 4 * math.sqrt(2 * np.sum(np.log(np.abs(1 - LR * lam)) ** 2) / probes)
            eta_lmax = LR * float(lam.max())
        start = time.perf_counter()
        est = gd_logabsdet_slq(fn, theta, lr=LR, num_probes=probes, lanczos_steps=steps, seed=1)
        t_slq = time.perf_counter() - start
        err = abs(est.estimate - exact)
        print(f"{d:>7} {t_exact:>9.3f} {t_slq:>9.3f} {t_slq / t_exact:>9.3f} {exact:>13.5f} "
              f"{est.estimate:>11.5f} {err:>8.4f} {tol:>8.4f} {eta_lmax:>8.4f}")
    print("peer = exact (dense torch.func.hessian + slogdet); slq/exact < 1 means the estimator is cheaper.")
    print("nan: not run at that size (exact is O(d) HVPs + O(d^3) factorization and O(d^2) memory).")


if __name__ == "__main__":
    main()
