"""Time of the exact mean-square criterion vs parameter dimension d.

Peers measured in the same process: the dense d²×d² Kronecker matrix (``method="dense"``,
eigvalsh) against the matrix-free operator X ↦ E[(I − ηH_B) X (I − ηH_B)] applied in
O(n d³) (``method="lanczos"``: ARPACK; ``method="power"``: power iteration from X = I).
Per-sample Hessians are random PSD matrices of rank max(2, d/8) (n samples, batch B,
η = 1/λ_max(H)); the radii must agree where several methods run.

    .venv/bin/python benchmarks/bench_sam_stability.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from algorithms.nets.stability import mean_square_radius


def instance(n: int, d: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rank = max(2, d // 8)                   # n·rank ≥ d: the mean Hessian has full rank
    G = 0.5 * rng.standard_normal((n, d, rank)) + 0.5 * rng.standard_normal((d, rank))
    return G @ np.swapaxes(G, 1, 2)


def timed(fn) -> tuple[float, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes, < 1 minute")
    args = parser.parse_args()
    n, B = 16, 4
    dims = [5, 10, 20, 30, 40] if args.quick else [5, 10, 20, 30, 40, 50, 100, 200, 300]
    dense_max = 30 if args.quick else 50
    power_max = 40 if args.quick else 100
    print(f"n = {n} per-sample Hessians, batch {B} without replacement, η = 1/λ_max(H)")
    header = f"{'d':>5} {'dense s':>10} {'lanczos s':>10} {'power s':>10} {'radius':>12} " \
             f"{'|lanczos-dense|':>16} {'|power-lanczos|':>16} {'dense/lanczos':>14}"
    print(header)
    print("-" * len(header))
    for d in dims:
        H = instance(n, d)
        eta = 1.0 / np.linalg.eigvalsh(H.mean(0))[-1]
        lan, t_lan = timed(lambda H=H, eta=eta: mean_square_radius(H, eta, B, method="lanczos"))
        den, t_den = (timed(lambda H=H, eta=eta: mean_square_radius(H, eta, B, method="dense"))
                      if d <= dense_max else (None, None))
        pw, t_pw = (timed(lambda H=H, eta=eta: mean_square_radius(H, eta, B, method="power", tol=1e-12))
                    if d <= power_max else (None, None))

        def fmt(x, spec):
            return f"{x:{spec}}" if x is not None else f"{'—':>{spec.split('.')[0]}}"

        err_d = abs(lan - den) if den is not None else None
        err_p = abs(pw - lan) if pw is not None else None
        ratio = t_den / t_lan if t_den is not None else None
        print(f"{d:>5} {fmt(t_den, '10.4f')} {t_lan:>10.4f} {fmt(t_pw, '10.4f')} {lan:>12.8f} "
              f"{fmt(err_d, '16.2e')} {fmt(err_p, '16.2e')} {fmt(ratio, '14.2f')}")


if __name__ == "__main__":
    main()
