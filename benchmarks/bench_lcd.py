"""Benchmark: LCD1/LCD2/LCD3 against GD (1/L), Polyak and scipy L-BFGS-B on the shipped families.

For every family and size, each method runs from the same x0 until f − f* <= 1e-8 (or an
iteration cap / wall-time budget). Printed: iterations, wall time, the final gap, and the
ratios of iterations and time to gradient descent and to L-BFGS-B measured in the same process.

    .venv/bin/python benchmarks/bench_lcd.py --quick      # small sizes, < 1 minute
    .venv/bin/python benchmarks/bench_lcd.py              # up to n × d = 10⁴ × 10³
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from algorithms import RetCode, solve
from algorithms.curvature import (
    LBFGS,
    LCD1,
    LCD2,
    LCD3,
    GradientDescent,
    Polyak,
    lp_regression,
    squared_huber,
    squared_lp_norm,
    squared_norm_residual,
    sum_of_squared_abs_linear,
)

TOL = 1e-8
METHODS = [("LCD1", LCD1()), ("LCD2", LCD2()), ("LCD3", LCD3()), ("GD", GradientDescent()),
           ("Polyak", Polyak()), ("L-BFGS-B", LBFGS())]


def families(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, d)) / np.sqrt(n)
    x_true = rng.standard_normal(d)
    x0 = x_true + rng.standard_normal(d)
    noisy = A @ x_true + 0.1 * rng.standard_normal(n)
    yield "Σ(aᵢᵀx−bᵢ)² (C=2AᵀA, L_C=0)", sum_of_squared_abs_linear(A, noisy, x0=x0)
    yield "‖Ax−b‖₂² (rank-one C)", squared_norm_residual(A, noisy, x0=x0)
    yield "squared Huber δ=0.1 (planted)", squared_huber(A, A @ x_true, delta=0.1, x0=x0)
    yield "‖Ax−b‖₃² diag C (planted)", lp_regression(A, A @ x_true, 3.0, x0=x0)
    yield "‖x‖₄² diag C", squared_lp_norm(4.0, x0=x0)


def run(prob, algo, maxiters: int, budget_s: float, repeat: int):
    """Best wall time of ``repeat`` runs (same iterates each time: the methods are deterministic)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        sol = solve(prob, algo, maxiters=maxiters, tol=TOL,
                    callback=lambda rec, start=start: time.perf_counter() - start > budget_s)
        times.append(sol.stats.wall_time)
        if sol.stats.wall_time > budget_s / 4:
            break
    gap = sol.value - prob.f_star
    reached = sol.retcode is RetCode.Success
    return sol.stats.iterations, min(times), gap, reached, sol.retcode


def warm_up() -> None:
    """One tiny solve per method, so first-call costs (dispatch caches, imports) are not timed."""
    _, prob = next(iter(families(20, 4)))
    for _, algo in METHODS:
        solve(prob, algo, maxiters=3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (< 1 minute)")
    parser.add_argument("--budget", type=float, default=None, help="wall-time cap per run (s)")
    parser.add_argument("--repeat", type=int, default=None, help="runs per method (best time kept)")
    args = parser.parse_args()
    repeat = args.repeat or (3 if args.quick else 1)
    warm_up()
    sizes = [(500, 50)] if args.quick else [(1000, 100), (10_000, 1000)]
    budget = args.budget if args.budget is not None else (3.0 if args.quick else 120.0)
    maxiters = 20_000
    print(f"target f − f* <= {TOL:g}; cap {maxiters} iterations or {budget:g} s per run; "
          "'*' = target not reached (retcode shown)")
    for n, d in sizes:
        for name, prob in families(n, d):
            print(f"\n{name}, n × d = {n} × {d}, f* = {prob.f_star:.6g}")
            print(f"  {'method':<9} {'iters':>7} {'time [s]':>10} {'f − f*':>10}   "
                  f"{'iters/GD':>9} {'time/GD':>8} {'time/L-BFGS':>11}")
            rows = {label: run(prob, algo, maxiters, budget, repeat) for label, algo in METHODS}
            gd_it, gd_t = rows["GD"][0], rows["GD"][1]
            lb_t = rows["L-BFGS-B"][1]
            for label, (it, t, gap, ok, rc) in rows.items():
                mark = "" if ok else f" * {rc.value}"
                print(f"  {label:<9} {it:>7d} {t:>10.4f} {gap:>10.2e}   {it / max(gd_it, 1):>9.3g} "
                      f"{t / gd_t if gd_t > 0 else math.nan:>8.3g} "
                      f"{t / lb_t if lb_t > 0 else math.nan:>11.3g}{mark}")


if __name__ == "__main__":
    main()
