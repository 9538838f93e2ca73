"""Benchmark: MinNorm-OG and the loss-gradient baselines against retraining (Block et al., 2025).

Two tasks, every method from the same trained θ*, in one process:

* linear (d > n): error = distance to the retrained minimum-norm interpolator pinv(X_r) y_r;
* sine-regression data poisoning (a tanh MLP trained on 50 points (x, sin x) and 5 poisoned
  points (x, 1.5), x in [-5π, 5π]): error = sup over the domain of |f(θ, x) − sin x|.

Printed: error and wall time of each method and their ratios to Retrain. On the MLP task each
method gets the same number of epochs (one full-batch update each), as in the paper's Table 1;
the last lines give, for each Retrain budget, the epochs and time MinNorm-OG needs to match
its error.

    .venv/bin/python benchmarks/bench_unlearning.py --quick   # about a minute
    .venv/bin/python benchmarks/bench_unlearning.py           # the figures in the note
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from algorithms import solve
from algorithms.unlearning import (
    GradientDescent,
    MinNormOG,
    NegGrad,
    NegGradPlus,
    Retrain,
    Ridge,
    linear_task,
    sine_poisoning_task,
    strength_schedule,
    sup_error,
)
from benchmarks._timing import best_of


def linear_methods():
    return [("Retrain", Retrain(), None), ("MinNorm-OG", MinNormOG(), None),
            ("GD", GradientDescent(lr=1e-3), 500), ("NegGrad", NegGrad(lr=1e-3), 500),
            ("NegGrad+", NegGradPlus(lr=1e-3, alpha=0.1), 500),
            ("Ridge", Ridge(lr=1e-3, lam=1e-2, gamma=0.99), 500)]


def mlp_methods(epochs: int):
    # a projection every 5th epoch on 16 retained gradients (T_Proj and n_pert of Appendix F.1.10)
    schedule = strength_schedule(0.1, 0.9, epochs, period=5, final_descent=epochs // 5)
    return [("Retrain", Retrain(lr=1e-2, optimizer="adam")),
            ("MinNorm-OG", MinNormOG(lambda_schedule=schedule, n_pert=16, lr=3e-3, optimizer="adam")),
            ("GD", GradientDescent(lr=3e-3, optimizer="adam")),
            ("NegGrad", NegGrad(lr=1e-3, optimizer="adam")),
            ("NegGrad+", NegGradPlus(lr=3e-3, alpha=0.1, optimizer="adam")),
            ("Ridge", Ridge(lr=3e-3, lam=1e-3, gamma=0.99, optimizer="adam"))]


def table(title: str, rows: list[tuple[str, float, float, str]], error_name: str) -> None:
    ref_error, ref_time = rows[0][1], rows[0][2]
    print(f"\n{title}")
    print(f"{'method':<12}{error_name:>14}{'time s':>10}{'error/Retrain':>15}{'time/Retrain':>14}  retcode")
    for name, error, seconds, retcode in rows:
        ratio = error / ref_error if ref_error else float("inf")
        print(f"{name:<12}{error:>14.4g}{seconds:>10.3f}{ratio:>15.3g}{seconds / ref_time:>14.3g}  {retcode}")


def linear_benchmark(n: int, d: int, n_forget: int, repeats: int) -> None:
    prob = linear_task(n, d, n_forget, seed=0)
    rows = []
    for name, algorithm, maxiters in linear_methods():
        options = {} if maxiters is None else {"maxiters": maxiters}
        seconds, sol = best_of(lambda a=algorithm, o=options: solve(prob, a, **o), repeats)
        rows.append((name, sol.stats.distance_to_retrain, seconds, sol.retcode.value))
    table(f"linear task: n = {n}, d = {d}, {n_forget} forgotten (distance to pinv(X_r) y_r)", rows,
          "‖θ − θ_r‖")


def mlp_benchmark(epoch_list: list[int], seeds: int, train_steps: int) -> None:
    problems = [sine_poisoning_task(50, 5, hidden=(64, 64), train_steps=train_steps, seed=s)
                for s in range(seeds)]
    poisoned = statistics.median(sup_error(p, p.params) for p in problems)
    print(f"\nsine poisoning task: {seeds} seeds, poisoned model's median sup error {poisoned:.3g}")
    curve = {}
    for epochs in epoch_list:
        rows = []
        for name, algorithm in mlp_methods(epochs):
            errors, times, codes = [], [], []
            for prob in problems:
                seconds, sol = best_of(lambda a=algorithm, p=prob, e=epochs: solve(p, a, maxiters=e), 1)
                errors.append(sup_error(prob, sol.x))
                times.append(seconds)
                codes.append(sol.retcode.value)
            rows.append((name, statistics.median(errors), statistics.median(times), codes[0]))
            curve[(name, epochs)] = rows[-1][1:3]
        table(f"MLP task, {epochs} epochs (median over seeds of sup|f − sin|)", rows, "sup error")
    print("\nequal error: for each Retrain budget, the fewest MinNorm-OG epochs with at most its error")
    for retrain_epochs in epoch_list:
        target_error, target_time = curve[("Retrain", retrain_epochs)]
        matched = [(e, curve[("MinNorm-OG", e)][1]) for e in epoch_list
                   if curve[("MinNorm-OG", e)][0] <= target_error]
        if matched:
            epochs, seconds = matched[0]
            print(f"  Retrain@{retrain_epochs} (sup error {target_error:.3g}, {target_time:.2f} s): "
                  f"MinNorm-OG@{epochs} in {seconds:.2f} s, time ratio MinNorm-OG/Retrain "
                  f"{seconds / target_time:.3g}")
        else:
            print(f"  Retrain@{retrain_epochs} (sup error {target_error:.3g}): not reached by MinNorm-OG")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, about a minute")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.quick:
        linear_benchmark(50, 200, 5, repeats=2)
        mlp_benchmark([30, 100], seeds=1, train_steps=1000)
    else:
        linear_benchmark(200, 1000, 20, repeats=3)
        mlp_benchmark([30, 100, 300, 1000], seeds=3, train_steps=3000)


if __name__ == "__main__":
    main()
