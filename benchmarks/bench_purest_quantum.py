"""Benchmark purest-state identification: copies for 95 % success, IncoherentSR and CoherentSR
against the peer UniformAllocation, and the simulation speed at n = 4, K = 16, N = 10⁵.

Instances: K states of n qubits, the purest at purity 0.95 and the others evenly spread over
[0.5, 0.75] (depolarized Haar states, valid for every n >= 1; gap Δ₍₂₎ = 0.2). Algorithms, in
one process on the same instances and seeds:

* ``IncoherentSR()``: the paper's Algorithm 1 with m = d (Lemma 4.2, no gap knowledge);
* ``CoherentSR()``: the paper's Algorithm 2 (SWAP tests);
* ``UniformAllocation("collision")``: the peer, ⌊N/K⌋ copies per state in Haar bases (m = d).

Copies for 95 % success: N doubles from 4K until at least 95 % of ``--reps`` runs name the
purest state, then two geometric bisection steps between the last failing and the first passing
budget. The ratio column is an algorithm's N₉₅ over the peer's. A plot of N₉₅ against n per K
goes to ``--plot``.

    .venv/bin/python benchmarks/bench_purest_quantum.py            # n = 1..4, K = 4, 8, 16, 40 runs
    .venv/bin/python benchmarks/bench_purest_quantum.py --quick    # n = 1, 2 and K = 4, 8, 20 runs
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_of

from algorithms import solve
from algorithms.quantum import (
    CoherentSR,
    IncoherentSR,
    PurestStateProblem,
    UniformAllocation,
    random_state,
)

ALGORITHMS = {
    "IncoherentSR": IncoherentSR(),
    "CoherentSR": CoherentSR(),
    "Uniform (peer)": UniformAllocation(estimator="collision"),
}
PEER = "Uniform (peer)"


def instance_states(n_qubits: int, K: int) -> list[np.ndarray]:
    others = np.linspace(0.5, 0.75, K - 1)
    purities = [0.95, *others]
    return [random_state(n_qubits, purity=p, seed=1000 * n_qubits + i) for i, p in enumerate(purities)]


def success_rate(states, copies: int, algorithm, reps: int) -> float:
    problem = PurestStateProblem(states, copies=copies)
    return sum(solve(problem, algorithm, seed=s).x == 0 for s in range(reps)) / reps


def copies_for_95(states, algorithm, reps: int, cap: int) -> int | None:
    """The smallest budget found with >= 95 % success (doubling, then two bisection steps)."""
    K = len(states)
    low, high = None, 4 * K
    while success_rate(states, high, algorithm, reps) < 0.95:
        low, high = high, 2 * high
        if high > cap:
            return None
    for _ in range(2):
        if low is None:
            break
        mid = round(math.sqrt(low * high))
        if mid in (low, high):
            break
        if success_rate(states, mid, algorithm, reps) >= 0.95:
            high = mid
        else:
            low = mid
    return high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1, 2; K = 4, 8; 20 runs per budget")
    parser.add_argument("--reps", type=int, default=None, help="runs per budget (default 40)")
    parser.add_argument("--cap", type=int, default=2_000_000, help="largest budget tried")
    parser.add_argument("--plot", type=Path, default=Path("reports/bench_purest_quantum.png"))
    args = parser.parse_args()
    qubits = (1, 2) if args.quick else (1, 2, 3, 4)
    arms = (4, 8) if args.quick else (4, 8, 16)
    reps = args.reps or (20 if args.quick else 40)

    print("simulation speed: one run at n = 4, K = 16, N = 10⁵ (best of 3)")
    big = PurestStateProblem(instance_states(4, 16), copies=100_000)
    for name, algorithm in ALGORITHMS.items():
        seconds, sol = best_of(lambda a=algorithm: solve(big, a, seed=0), 3)
        print(f"  {name:16s} {seconds:7.3f} s   copies used {sol.stats.copies:6d}   answer {sol.x}")

    print(f"\ncopies for 95 % success ({reps} runs per budget); ratio = N₉₅ / N₉₅(peer)")
    print(f"{'n':>2} {'K':>3} " + " ".join(f"{name:>24s}" for name in ALGORITHMS))
    table: dict[tuple[int, int, str], int | None] = {}
    for K in arms:
        for n_qubits in qubits:
            states = instance_states(n_qubits, K)
            for name, algorithm in ALGORITHMS.items():
                table[n_qubits, K, name] = copies_for_95(states, algorithm, reps, args.cap)
            peer = table[n_qubits, K, PEER]
            cells = []
            for name in ALGORITHMS:
                value = table[n_qubits, K, name]
                ratio = f"{value / peer:5.2f}" if value and peer else "  -  "
                cells.append(f"{(str(value) if value else '>cap'):>15s} ({ratio})")
            print(f"{n_qubits:>2} {K:>3} " + " ".join(f"{c:>24s}" for c in cells), flush=True)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(arms), figsize=(4 * len(arms), 3.2), sharey=True)
    for ax, K in zip(np.atleast_1d(axes), arms):
        for name in ALGORITHMS:
            values = [table[n, K, name] or np.nan for n in qubits]
            ax.semilogy(qubits, values, "o-", label=name)
        ax.set_title(f"K = {K}")
        ax.set_xlabel("qubits n")
    np.atleast_1d(axes)[0].set_ylabel("copies for 95 % success")
    np.atleast_1d(axes)[0].legend(fontsize=8)
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=90)
    print(f"\nplot: {args.plot}")


if __name__ == "__main__":
    main()
