"""GGDOpt against SAA as a big-M MILP, the CVaR approximation and the scenario approach.

Every test problem at three sample sizes L: objective, out-of-sample feasibility (20000 fresh
draws, never the training ones), empirical violation and wall time of each method, one run each
(seed 0), and the time ratio of each method against SAA-MILP run in the same process, next to the
paper's "nearly 80 % overhead reduction" (ratio ≈ 0.2). GGDOpt's time is split into the training
(stages 1-2: restricted problems and score matching) and the sampling (stage 3); the paper's
runtimes are for sampling with a trained model. GGDOpt runs with both stage-1 restrictions
("moment", the default, and "scenario"; see ``algorithms.chance.data``).

    .venv/bin/python benchmarks/bench_ggdopt.py [--sizes 50 100 200] [--time-limit 60]
        [--problems linear portfolio power beamforming] [--methods SAA-MILP CVaR scenario GGDOpt GGDOpt-sc]

SAA-MILP always runs (the ratios are against it, in the same process).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch
from _timing import best_of

from algorithms import solve
from algorithms.chance import (
    SAAMILP,
    CVaRApproximation,
    GGDOpt,
    ScenarioApproach,
    beamforming_problem,
    linear_gaussian_problem,
    portfolio_var_problem,
    power_control_problem,
)

PROBLEMS = {
    "linear": ("linear CCP (26), n=4", lambda L: linear_gaussian_problem(n=4, n_samples=L, rho=0.1, seed=0)),
    "portfolio": (
        "portfolio VaR, 4 assets",
        lambda L: portfolio_var_problem(n_assets=4, n_samples=L, rho=0.1, seed=0),
    ),
    "power": (
        "power control, 3 users",
        lambda L: power_control_problem(n_users=3, n_samples=L, rho=0.1, seed=0),
    ),
    "beamforming": (
        "waveform (27), Nt=3, K=2",
        lambda L: beamforming_problem(n_antennas=3, n_users=2, n_samples=L, rho=0.1, seed=0),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--problems", nargs="+", choices=list(PROBLEMS), default=list(PROBLEMS))
    ggdopt = GGDOpt(beta=0.5, n_train_points=150, train_steps=1500, batch_size=128, n_samples=256, n_steps=50,
                    corrector_steps=0)
    every = {
        "SAA-MILP": SAAMILP(time_limit=60.0),
        "CVaR": CVaRApproximation(),
        "scenario": ScenarioApproach(),
        "GGDOpt": ggdopt,
        "GGDOpt-sc": replace(ggdopt, restriction="scenario"),
    }
    parser.add_argument("--methods", nargs="+", choices=list(every), default=list(every))
    args = parser.parse_args()
    torch.set_num_threads(1)
    every["SAA-MILP"] = SAAMILP(time_limit=args.time_limit)
    methods = {k: v for k, v in every.items() if k == "SAA-MILP" or k in args.methods}
    header = (f"{'problem':26s} {'L':>4s} {'method':9s} {'retcode':10s} {'objective':>10s} {'fresh':>6s} "
              f"{'emp.viol':>8s} {'time s':>8s} {'sample s':>8s} {'ratio':>6s} {'s.ratio':>7s}")
    print(header)
    print("-" * len(header))
    for key in args.problems:
        name, make = PROBLEMS[key]
        for size in args.sizes:
            problem = make(size)
            saa_time = None
            for label, algorithm in methods.items():
                seconds, sol = best_of(lambda a=algorithm, p=problem: solve(p, a, seed=0), 1)
                if label == "SAA-MILP":
                    saa_time = seconds
                sample = getattr(sol.stats, "sample_seconds", 0.0) if label.startswith("GGDOpt") else seconds
                print(f"{name:26s} {size:4d} {label:9s} {sol.retcode.value:10s} {sol.value:10.4f} "
                      f"{sol.stats.out_of_sample_feasibility:6.3f} {sol.stats.empirical_violation:8.3f} "
                      f"{seconds:8.2f} {sample:8.2f} {seconds / saa_time:6.2f} {sample / saa_time:7.3f}",
                      flush=True)
            if problem.known_optimum is not None:
                print(f"{name:26s} {size:4d} {'SOC ref.':9s} {'(exact)':10s} {problem.known_optimum:10.4f}")
    print("\nratio = time / SAA-MILP time; s.ratio = sampling-stage time / SAA-MILP time (paper: about 0.2);")
    print("GGDOpt-sc = GGDOpt with the scenario restriction in stage 1")


if __name__ == "__main__":
    main()
