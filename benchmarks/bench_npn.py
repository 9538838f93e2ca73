"""Benchmark NPN: plug-and-play reconstruction with and without the NPN term, per operator, one process.

For each shipped set-up (CS at m/n = 0.10, 0.25, 0.50; deblurring; ×2 super-resolution; limited-angle
CT; ×4 MRI) and ``--images`` held-out 32×32 crops (never seen in training), it runs

* PnP-PGD with the TV prior, without NPN (the peer) and with the trained NPN term, at the weights
  tuned on training crops (``theorems.npn.TUNED``);
* PnP-ADMM with the trained denoiser, without and with the NPN term (same γ);

and prints mean PSNR/SSIM, the mean PSNR gain with its standard deviation over images, and the
wall time of a reconstruction with NPN relative to the peer without it (best of ``--repeats`` on the
first image). A figure per set-up (ground truth / without / with NPN, PnP-PGD-TV) is written to
``--out`` (default ``reports/bench_npn``). One torch thread.

    .venv/bin/python benchmarks/bench_npn.py               # 8 images per set-up (about 10 minutes)
    .venv/bin/python benchmarks/bench_npn.py --images 3    # a quick look
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from algorithms import solve
from algorithms.imaging import (
    NPN,
    DenoiserPrior,
    InverseProblem,
    PnPADMM,
    PnPPGD,
    TVPrior,
    held_out_images,
    psnr,
    ssim,
)
from algorithms.imaging.setups import SETUPS, load_denoiser, load_network, make_setup, measure
from benchmarks._timing import best_of
from theorems.npn import TUNED


def _solvers(name: str, with_npn: bool) -> dict:
    setup = make_setup(name)
    weight, gamma = TUNED[name]
    npn = None
    if with_npn:
        npn = NPN(setup.projection, load_network(name), gamma, max_leakage=setup.max_leakage)
    lipschitz = setup.operator.norm() ** 2 + (gamma * setup.projection.norm() ** 2 if with_npn else 0.0)
    return {"PGD-TV": PnPPGD(prior=TVPrior(weight=weight, inner=10), lr=1.8 / lipschitz, npn=npn),
            "ADMM-CNN": PnPADMM(prior=DenoiserPrior(load_denoiser()), penalty=lipschitz, npn=npn)}


def run(names: tuple[str, ...], count: int, repeats: int, out: Path) -> None:
    images = held_out_images(32, count, seed=0)
    out.mkdir(parents=True, exist_ok=True)
    header = (f"{'set-up':8} {'solver':9} {'PSNR base':>9} {'PSNR NPN':>9} {'gain dB':>8} {'sd':>5} "
              f"{'SSIM base':>9} {'SSIM NPN':>8} {'time NPN/base':>13}")
    print(header)
    print("-" * len(header))
    for name in names:
        setup = make_setup(name)
        base, with_npn = _solvers(name, False), _solvers(name, True)
        shown = {}
        for solver in base:
            rows = []
            for i, x in enumerate(images):
                y, std = measure(setup, x, seed=i)
                problem = InverseProblem(setup.operator, y, float(std))
                pair = [solve(problem, algo[solver], tol=1e-4, maxiters=300).x for algo in (base, with_npn)]
                rows.append([psnr(pair[0], x), psnr(pair[1], x), ssim(pair[0], x), ssim(pair[1], x)])
                if i == 0 and solver == "PGD-TV":
                    shown = {"truth": x.numpy(), "without NPN": pair[0], "with NPN": pair[1]}
                    times = [best_of(lambda a=algo[solver], p=problem: solve(p, a, tol=1e-4,
                                                                             maxiters=300), repeats)[0]
                             for algo in (base, with_npn)]
            rows = np.array(rows)
            gain = rows[:, 1] - rows[:, 0]
            ratio = f"{times[1] / times[0]:13.2f}" if solver == "PGD-TV" else f"{'':13}"
            spread = gain.std(ddof=1) if count > 1 else 0.0
            means = rows.mean(axis=0)
            print(f"{name:8} {solver:9} {means[0]:9.2f} {means[1]:9.2f} {gain.mean():+8.2f} "
                  f"{spread:5.2f} {means[2]:9.3f} {means[3]:8.3f}{ratio}", flush=True)
        _figure(name, shown, out / f"npn_{name}.png")
    print(f"figures: {out}/npn_<set-up>.png")


def _figure(name: str, panels: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(7.5, 2.8))
    truth = panels["truth"]
    for ax, (title, image) in zip(axes, panels.items()):
        ax.imshow(np.clip(image, 0, 1), cmap="gray", vmin=0, vmax=1)
        label = title if title == "truth" else f"{title}\n{psnr(image, truth):.2f} dB"
        ax.set_title(label, fontsize=9)
        ax.axis("off")
    fig.suptitle(f"{name}: PnP-PGD-TV", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--setups", nargs="*", default=list(SETUPS))
    parser.add_argument("--out", type=Path, default=Path("reports/bench_npn"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    run(tuple(args.setups), args.images, args.repeats, args.out)


if __name__ == "__main__":
    main()
