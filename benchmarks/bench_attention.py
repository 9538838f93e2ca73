"""Benchmark of algorithms.attention: the closed-form risk against Monte Carlo, and training curves.

1. Risk: at increasing (d, L) with L − 1 = e^{αd} (α = 0.1, the regime log L = O(d)), the
   mean-field closed form R̄ (Corollary 1) against the projection Monte Carlo (exact in law) at
   overlaps where the softmax locates the secret token: the error in units of the 95 % half-width,
   and the wall time of each. The named peer is the Monte Carlo over full token sequences
   (``sample_batch`` + ``SoftmaxAttention``), timed at the same (d, L, n) in the same process where
   it fits in memory; the table gives its time over the projection Monte Carlo's.
2. Dynamics: spherical GD on an empirical risk started on M against the overlap ODE (Euler,
   OverlapFlow) with time t = k · lr, written as a plot (``--plot PATH``) and summarised by the
   largest gap in (μ, ν).

    .venv/bin/python benchmarks/bench_attention.py            # d up to 120 (L = e^12)
    .venv/bin/python benchmarks/bench_attention.py --quick    # d up to 60 (< 1 minute)
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from functools import partial
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import torch

from algorithms import solve
from algorithms.attention import (
    OverlapFlow,
    SingleLocationProblem,
    SoftmaxAttention,
    SphericalGD,
    mean_field_risk,
    monte_carlo_risk,
    sample_batch,
    vectors_with_overlaps,
)
from benchmarks._timing import best_of

torch.set_num_threads(1)
OVERLAPS = {"mu": 0.9, "nu": 0.5, "zeta": 0.1, "eta": 0.0, "rho": 0.2}
FULL_TOKEN_LIMIT = 4e7  # n · L · d entries: the full-token peer is skipped beyond (memory)


def _full_token_risk(problem: SingleLocationProblem, u, v, n: int) -> float:
    X, _, secret = sample_batch(problem, n, seed=1)
    model = SoftmaxAttention(problem.d, beta=problem.beta)
    with torch.no_grad():
        model.u.copy_(u)
        model.v.copy_(v)
        target = X[torch.arange(n), secret] @ problem.oracle()[1]
        return float(((model(X)[:, 0] - target) ** 2).mean())


def risk_table(sizes, n: int, repeats: int) -> None:
    print(f"closed form vs Monte Carlo (n = {n}) at {OVERLAPS}, gamma = 0.6, beta = 1, alpha = 0.1")
    header = ("d", "L", "closed", "MC", "half_width", "err/hw", "t_closed_s", "t_MC_s", "t_full_s",
              "full/MC")
    print(" ".join(f"{h:>11}" for h in header))
    for d in sizes:
        problem = SingleLocationProblem(d=d, L=1 + round(math.exp(0.1 * d)), gamma=0.6, beta=1.0)
        u, v = vectors_with_overlaps(problem, **OVERLAPS)
        t_closed, closed = best_of(partial(mean_field_risk, problem, OVERLAPS["mu"], OVERLAPS["nu"],
                                           OVERLAPS["zeta"], OVERLAPS["rho"]), repeats)
        t_mc, mc = best_of(partial(monte_carlo_risk, problem, u, v, n=n, seed=0), repeats)
        if n * problem.L * d <= FULL_TOKEN_LIMIT:
            t_full, _ = best_of(partial(_full_token_risk, problem, u, v, n), repeats)
            full, ratio = f"{t_full:11.4f}", f"{t_full / t_mc:11.1f}"
        else:
            full, ratio = f"{'-':>11}", f"{'-':>11}"
        err = abs(closed - mc["risk"]) / mc["half_width"]
        print(f"{d:>11} {problem.L:>11} {closed:11.4f} {mc['risk']:11.4f} {mc['half_width']:11.4f} "
              f"{err:11.2f} {t_closed:11.2e} {t_mc:11.4f} {full} {ratio}")


def dynamics_plot(path: Path | None, steps: int) -> None:
    problem = SingleLocationProblem(d=60, L=21, gamma=1 / math.sqrt(2), beta=1.0, n_samples=600)
    u0, v0 = vectors_with_overlaps(problem, mu=0.3, nu=0.1)
    start = SingleLocationProblem(d=60, L=21, gamma=1 / math.sqrt(2), beta=1.0, n_samples=600,
                                  u0=u0.numpy(), v0=v0.numpy())
    lr = 0.02
    t0 = time.perf_counter()
    gd = solve(start, SphericalGD(lr=lr), seed=0, maxiters=steps, store_trace=True)
    t_gd = time.perf_counter() - t0
    flow = solve(start, OverlapFlow(lr=lr), maxiters=steps, tol=1e-300, store_trace=True)
    gd_path = np.array([[r["mu"], r["nu"]] for r in gd.trace])
    ode_path = np.array([[r["mu"], r["nu"]] for r in flow.trace])
    m = min(len(gd_path), len(ode_path))
    gap = np.abs(gd_path[:m] - ode_path[:m]).max(0)
    print(f"\nspherical GD (d = 60, L = 21, n = 600, lr = {lr}, {steps} steps, {t_gd:.1f} s) vs the overlap "
          f"ODE from mu0 = 0.3, nu0 = 0.1 on M: max |gap| mu {gap[0]:.3f}, nu {gap[1]:.3f}; final GD "
          f"(mu, nu) = ({gd_path[-1, 0]:.3f}, {gd_path[-1, 1]:.3f}), ODE ({ode_path[-1, 0]:.3f}, "
          f"{ode_path[-1, 1]:.3f})")
    if path is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        t = lr * np.arange(m)
        fig, ax = plt.subplots(figsize=(5, 3.2))
        for j, name in enumerate(("μ", "ν")):
            ax.plot(t, gd_path[:m, j], label=f"{name}: spherical GD (empirical)")
            ax.plot(t, ode_path[:m, j], "--", label=f"{name}: overlap ODE (mean field)")
        ax.set_xlabel("t = k · lr")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        print(f"plot: {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args()
    sizes = (20, 40, 60) if args.quick else (20, 40, 60, 80, 100, 120)
    risk_table(sizes, n=2000, repeats=2 if args.quick else 3)
    dynamics_plot(args.plot, steps=300 if args.quick else 1500)


if __name__ == "__main__":
    main()
