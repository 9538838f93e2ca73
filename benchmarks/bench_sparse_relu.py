"""Sparsest-interpolant DP vs brute-force V_p minimization: time as the number of points grows.

    .venv/bin/python benchmarks/bench_sparse_relu.py            # N = 3..11
    .venv/bin/python benchmarks/bench_sparse_relu.py --quick    # N = 3..8, under a minute

Peer: :class:`BruteForceVp` (enumerates knot subsets, exponential in N), timed in the same
process on the same (convex, hence worst-case) data; the table also checks that both find the
same V_p.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of

from algorithms import solve
from algorithms.nets.sparse_interpolation import (
    BruteForceVp,
    InterpolationProblem,
    SparsestInterpolantDP,
    min_knots_slope_dp,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = range(3, 9) if args.quick else range(3, 12)
    rng = np.random.default_rng(args.seed)
    print(f"{'N':>3} {'DP [ms]':>10} {'slope DP [ms]':>14} {'brute [ms]':>12} {'brute/DP':>10} "
          f"{'subsets':>8} {'same V_p':>9} {'knots':>6}")
    for n in sizes:
        x = np.arange(n) + rng.uniform(-0.3, 0.3, n)
        # convex data: every interior gap has a chord crossing, so the brute force sees 2N - 5
        # candidate knots (random-sign data have fewer and flatter it)
        y = 0.5 * x**2 + 0.2 * rng.normal(size=n)
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        t_dp, dp = best_of(lambda prob=prob: solve(prob, SparsestInterpolantDP(objective="vp")), 20)
        t_slope, k0 = best_of(lambda x=x, y=y: min_knots_slope_dp(x, y), 20)
        t_bf, bf = best_of(lambda prob=prob: solve(prob, BruteForceVp(max_points=20)), 1 if n > 8 else 3)
        same = abs(dp.value - bf.value) <= 1e-9 * max(1.0, bf.value)
        print(f"{n:>3} {1e3 * t_dp:>10.3f} {1e3 * t_slope:>14.3f} {1e3 * t_bf:>12.1f} "
              f"{t_bf / t_dp:>10.0f} {bf.stats.iterations:>8} {'yes' if same else 'NO':>9} {k0:>6}")


if __name__ == "__main__":
    main()
