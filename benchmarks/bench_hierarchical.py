"""Benchmark: Ada-Minimax against SGDA and TiAda, Ada-BiO against stocBiO-style SGD, across noise levels.

Every baseline's steps are tuned once, at σ = 0 (best average ‖∇Φ‖ on a small grid), then kept for
σ ∈ {0, 1, 10, 100}; the adaptive methods use one fixed setting throughout (the claims' settings).
Noise: uniform on the sphere of radius σ (Assumption 3.2(ii) with σ̲ = σ̄). Printed per σ: the
average of ‖∇Φ(x_t)‖ over t <= T and over the last tenth of the run, and the ratio of each
baseline's average to the adaptive method's (> 1: the adaptive method is better), all measured in
this process. A plot of the running average against t per σ goes to ``--plot``.

    .venv/bin/python benchmarks/bench_hierarchical.py            # T = 4096 (minimax), 1024 (bilevel)
    .venv/bin/python benchmarks/bench_hierarchical.py --full     # T = 32768, 8192
"""

from __future__ import annotations

import argparse

import numpy as np

from algorithms import RetCode, solve
from algorithms.hierarchical import SGDA, StocBiO, TiAda, quadratic_bilevel, synthetic_minimax
from theorems.adaptive_hierarchical import BILEVEL_SETTING, COUPLING, SETTING

SIGMAS = (0.0, 1.0, 10.0, 100.0)
GRID = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)


def minimax_norms(algorithm, sigma: float, T: int, seed: int = 0) -> np.ndarray:
    sol = solve(synthetic_minimax(sigma, "sphere", coupling=COUPLING, x0=3.0), algorithm, maxiters=T,
                tol=1e-300, seed=seed)
    return _norms(sol, T)


def bilevel_norms(algorithm, sigma: float, T: int, seed: int = 0) -> np.ndarray:
    prob = quadratic_bilevel(mu_g=1.0, l_g1=2.0, sigma=sigma, noise="sphere", seed=0)
    return _norms(solve(prob, algorithm, maxiters=T, tol=1e-300, seed=seed), T)


def _norms(sol, T: int) -> np.ndarray:
    norms = sol.original["grad_phi_norm"]
    # a diverged run counts as inf from there on; a run that stopped on ‖∇Φ‖ = 0 exactly (Success
    # even with tol = 1e-300) stays at its last value
    fill = np.inf if sol.retcode is RetCode.Diverged else norms[-1]
    return np.concatenate([norms, np.full(T - norms.size, fill)])


def tune(make, run, T: int):
    """The grid value with the best average ‖∇Φ‖ at σ = 0."""
    scores = {lr: float(np.mean(run(make(lr), 0.0, T))) for lr in GRID}
    best = min(scores, key=scores.get)
    return make(best), best


def table(title: str, methods: dict, run, T: int, reference: str) -> dict:
    print(f"\n{title} (T = {T}; ratio = average / {reference}'s average)")
    print(f"{'sigma':>6} {'method':>12} {'avg |∇Φ|':>12} {'last 10 %':>12} {'ratio':>8}")
    curves = {}
    for sigma in SIGMAS:
        results = {name: run(algo, sigma, T) for name, algo in methods.items()}
        base = float(np.mean(results[reference]))
        for name, norms in results.items():
            avg, tail = float(np.mean(norms)), float(np.mean(norms[-T // 10:]))
            print(f"{sigma:>6g} {name:>12} {avg:>12.4g} {tail:>12.4g} {avg / base:>8.3g}")
            curves[(sigma, name)] = np.cumsum(norms) / np.arange(1, T + 1)
    return curves


def plot(curves: dict, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(SIGMAS), figsize=(4 * len(SIGMAS), 3.2), sharey=False)
    for ax, sigma in zip(axes, SIGMAS):
        for (s, name), curve in curves.items():
            if s == sigma and np.all(np.isfinite(curve)):
                ax.loglog(np.arange(1, curve.size + 1), curve, label=name)
        ax.set_title(f"{title}, σ = {sigma:g}", fontsize=9)
        ax.set_xlabel("t")
    axes[0].set_ylabel("(1/t) Σ ‖∇Φ(x_k)‖")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="longer horizons")
    parser.add_argument("--plot", default="bench_hierarchical", help="plot file prefix (PNG)")
    args = parser.parse_args()
    T_minimax, T_bilevel = (32768, 8192) if args.full else (4096, 1024)
    sgda, lr_sgda = tune(lambda lr: SGDA(lr_x=lr, lr_y=lr), minimax_norms, T_minimax)
    tiada, lr_tiada = tune(lambda lr: TiAda(lr_x=lr, lr_y=lr), minimax_norms, T_minimax)
    stocbio, lr_stocbio = tune(lambda lr: StocBiO(lr_x=lr, lr_y=min(1.0, 2 * lr)), bilevel_norms, T_bilevel)
    print(f"tuned at σ = 0: SGDA lr = {lr_sgda}, TiAda lr = {lr_tiada}, stocBiO lr_x = {lr_stocbio}")
    curves = table("Minimax, f = cos x + xy/√2 − y²/2",
                   {"Ada-Minimax": SETTING, "SGDA": sgda, "TiAda": tiada}, minimax_norms, T_minimax,
                   "Ada-Minimax")
    plot(curves, f"{args.plot}_minimax.png", "minimax")
    curves = table("Bilevel, quadratic (spec ∇²_yy g ⊂ [1, 2])",
                   {"Ada-BiO": BILEVEL_SETTING, "stocBiO": stocbio}, bilevel_norms, T_bilevel, "Ada-BiO")
    plot(curves, f"{args.plot}_bilevel.png", "bilevel")
    print(f"\nplots: {args.plot}_minimax.png, {args.plot}_bilevel.png")


if __name__ == "__main__":
    main()
