"""Benchmark for two_layer_nc: gradient flow (solve_ivp) vs gradient descent on a fixed horizon.

Prints, for one orthogonally separable binary problem, the wall time of each
method to reach t_end, the number of gradient evaluations, the time per unit of
t, the relative gap ‖θ − θ_ref‖/‖θ_ref‖ at t_end against a tight DOP853 reference,
and the ratio of each time to the peer (GD with η = 0.01, measured in the same process).
A second table times the ODE right-hand side: the closed-form numpy gradient used by
the solvers vs torch autograd through the module (``TwoLayerTraining.torch_loss``).

    .venv/bin/python benchmarks/bench_two_layer_nc.py [--quick]
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import torch
from _timing import best_of

from algorithms import solve
from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow, TwoLayerTraining
from algorithms.nets.neural_collapse import orthogonally_separable_data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small version (< 1 minute)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    n_per_class, dim, width = (6, 12, 20) if args.quick else (25, 40, 100)
    horizons = (30.0, 300.0) if args.quick else (30.0, 300.0, 3000.0)
    repeats = 1 if args.quick else 3
    X, y = orthogonally_separable_data(n_per_class, dim, seed=0)
    problem = TwoLayerTraining(X=X, y=y, width=width, init_scale=1e-3)
    print(f"two_layer_nc benchmark: n={len(y)}, d={dim}, width={width}, params={problem.n_params}, "
          f"exponential loss, init_scale=1e-3, torch threads=1")

    methods = {
        "GD lr=0.01 (peer)": GradientDescentTraining(lr=0.01, n_records=2),
        "GD lr=0.05": GradientDescentTraining(lr=0.05, n_records=2),
        "flow RK45 rtol=1e-6": GradientFlow(n_records=2, rtol=1e-6),
        "flow RK45 rtol=1e-9": GradientFlow(n_records=2, rtol=1e-9, atol=1e-14),
        "flow DOP853 rtol=1e-9": GradientFlow(n_records=2, method="DOP853", rtol=1e-9, atol=1e-14),
    }
    if args.quick:
        del methods["flow DOP853 rtol=1e-9"]
    header = f"{'method':24s} {'t_end':>7s} {'time [s]':>9s} {'grad evals':>10s} {'s per unit t':>12s} " \
             f"{'rel gap':>9s} {'x peer':>7s}"
    print()
    print(header)
    print("-" * len(header))
    for t_end in horizons:
        ref = solve(problem, GradientFlow(t_end=t_end, n_records=2, method="DOP853", rtol=1e-12,
                                          atol=1e-16), seed=0).x
        peer_time = None
        for name, algorithm in methods.items():
            algorithm = type(algorithm)(**{**algorithm.__dict__, "t_end": t_end})
            elapsed, sol = best_of(lambda a=algorithm: solve(problem, a, seed=0), repeats)
            if peer_time is None:
                peer_time = elapsed
            gap = np.linalg.norm(sol.x - ref) / np.linalg.norm(ref)
            print(f"{name:24s} {t_end:7.0f} {elapsed:9.3f} {sol.stats.grad_calls:10d} "
                  f"{elapsed / t_end:12.2e} {gap:9.2e} {elapsed / peer_time:7.2f}")
        print()

    theta = problem.initial_theta(0) * 300.0
    calls = 200 if args.quick else 2000
    numpy_time, _ = best_of(lambda: [problem.loss_and_grad(theta) for _ in range(calls)], repeats)
    t = torch.tensor(theta)

    def autograd():
        for _ in range(calls):
            tt = t.clone().requires_grad_(True)
            torch.autograd.grad(problem.torch_loss(tt), tt)

    torch_time, _ = best_of(autograd, repeats)
    print(f"{'gradient (ODE rhs)':28s} {'us per call':>12s} {'x peer':>7s}")
    print(f"{'torch autograd (peer)':28s} {1e6 * torch_time / calls:12.1f} {1.0:7.2f}")
    print(f"{'closed-form numpy':28s} {1e6 * numpy_time / calls:12.1f} {numpy_time / torch_time:7.2f}")


if __name__ == "__main__":
    main()
