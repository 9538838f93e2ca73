"""Benchmark our CEI against BoTorch's LogConstrainedExpectedImprovement, in one process.

Both sides minimize the same constrained problems from the same initial designs (a Latin hypercube
of ``n0`` points per seed, passed to both), each for ``budget`` evaluations in all:

* ours: ``CEI(fit=True)``: Matérn-5/2 ARD GPs per output, hyperparameters by marginal likelihood
  after every evaluation (numpy/scipy), multi-start L-BFGS-B on log CEI from 1000 candidates;
* BoTorch: its usual set-up, a ``SingleTaskGP`` over [f, c₁..c_m] (inputs scaled to [0, 1]^d,
  ``Standardize`` outcome transform, its default Matérn-5/2 ARD kernel with priors and a learned
  noise) fitted by ``fit_gpytorch_mll``, then ``LogConstrainedExpectedImprovement``
  (``objective_index=0``, ``constraints={j: (None, 0.0)}``, ``maximize=False``) maximized by
  ``optimize_acqf`` (10 restarts, 512 raw samples), in float64.

Reported per problem: the median (and quartiles) over seeds of the simple regret f⁺ − f* after the
budget, seconds per BO iteration (fit + acquisition, the initial design excluded), and the ratios
ours / BoTorch. One torch thread, one BLAS thread, methods interleaved per seed.

    .venv/bin/python benchmarks/bench_cei.py               # 5 seeds, 50 evaluations
    .venv/bin/python benchmarks/bench_cei.py --seeds 3     # fewer seeds
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import torch
from scipy.stats import qmc

from algorithms import solve
from algorithms.bayesopt import (
    CEI,
    ConstrainedBOProblem,
    Kernel,
    constrained_branin,
    gardner_problem,
    rkhs_problem,
    two_disks_problem,
)

torch.set_num_threads(1)
warnings.filterwarnings("ignore")


def _problems() -> list[ConstrainedBOProblem]:
    return [
        gardner_problem(),
        constrained_branin(),
        two_disks_problem(),
        rkhs_problem(Kernel("matern", nu=2.5, lengthscale=0.3), 4, seed=0, n_initial=8),
    ]


def _design(problem: ConstrainedBOProblem, n0: int, seed: int) -> np.ndarray:
    """A Latin hypercube with at least one feasible point (redrawn with the next seed otherwise)."""
    for attempt in range(100):
        unit = qmc.LatinHypercube(d=problem.dim, seed=seed + 7919 * attempt).random(n0)
        design = problem.from_unit(unit)
        if any(np.all(problem.evaluate(x)[1] <= 0) for x in design):
            return design
    raise RuntimeError(f"{problem.name}: no feasible Latin hypercube in 100 draws")


def run_ours(
    problem: ConstrainedBOProblem, design: np.ndarray, budget: int, seed: int
) -> tuple[float, float]:
    from dataclasses import replace

    prob = replace(problem, initial=design)
    iterations = budget - len(design)
    start = time.perf_counter()
    sol = solve(prob, CEI(fit=True), maxiters=iterations, seed=seed, tol=1e-12)
    elapsed = time.perf_counter() - start
    return float(sol.value - problem.f_star), elapsed / max(sol.stats.iterations, 1)


def run_botorch(
    problem: ConstrainedBOProblem, design: np.ndarray, budget: int, seed: int
) -> tuple[float, float]:
    from botorch.acquisition.analytic import LogConstrainedExpectedImprovement
    from botorch.fit import fit_gpytorch_mll
    from botorch.models import SingleTaskGP
    from botorch.models.transforms import Standardize
    from botorch.optim import optimize_acqf
    from gpytorch.mlls import ExactMarginalLogLikelihood

    torch.manual_seed(seed)
    m = problem.n_constraints
    X = [problem.to_unit(x) for x in design]
    Y = [np.r_[problem.evaluate(x)[0], problem.evaluate(x)[1]] for x in design]
    unit_bounds = torch.stack([torch.zeros(problem.dim), torch.ones(problem.dim)]).double()
    start = time.perf_counter()
    iterations = budget - len(design)
    for _ in range(iterations):
        train_x = torch.tensor(np.array(X), dtype=torch.float64)
        train_y = torch.tensor(np.array(Y), dtype=torch.float64)
        model = SingleTaskGP(train_x, train_y, outcome_transform=Standardize(m=1 + m))
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
        feasible = np.all(np.array(Y)[:, 1:] <= 0, axis=1)
        best = float(np.array(Y)[feasible, 0].min())
        acq = LogConstrainedExpectedImprovement(
            model,
            best_f=best,
            objective_index=0,
            constraints={j: (None, 0.0) for j in range(1, m + 1)},
            maximize=False,
        )
        candidate, _ = optimize_acqf(acq, bounds=unit_bounds, q=1, num_restarts=10, raw_samples=512)
        u = candidate.detach().numpy()[0]
        value, cons = problem.evaluate(problem.from_unit(u))
        X.append(u)
        Y.append(np.r_[value, cons])
    elapsed = time.perf_counter() - start
    Y = np.array(Y)
    feasible = np.all(Y[:, 1:] <= 0, axis=1)
    return float(Y[feasible, 0].min() - problem.f_star), elapsed / max(iterations, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=50, help="evaluations in all, design included")
    parser.add_argument("--n0", type=int, default=10, help="initial design size")
    args = parser.parse_args()
    import botorch

    print(
        f"botorch {botorch.__version__}, torch {torch.__version__}; {args.seeds} seeds, "
        f"{args.budget} evaluations ({args.n0} initial)"
    )
    header = (
        f"{'problem':<32} {'d':>2} {'ours regret (q25/med/q75)':>30} {'BoTorch regret':>30} "
        f"{'regret ratio':>12} {'ours s/it':>9} {'BoTorch s/it':>12} {'time ratio':>10}"
    )
    print(header)
    print("-" * len(header))
    for problem in _problems():
        ours, peer = [], []
        for seed in range(args.seeds):
            design = _design(problem, args.n0, seed)
            ours.append(run_ours(problem, design, args.budget, seed))
            peer.append(run_botorch(problem, design, args.budget, seed))
        r_ours, t_ours = np.array(ours).T
        r_peer, t_peer = np.array(peer).T
        q = lambda r: "/".join(f"{v:.2e}" for v in np.quantile(r, [0.25, 0.5, 0.75]))  # noqa: E731
        ratio = np.median(r_ours) / max(np.median(r_peer), 1e-300)
        print(
            f"{problem.name[:32]:<32} {problem.dim:>2} {q(r_ours):>30} {q(r_peer):>30} {ratio:>12.3g} "
            f"{np.median(t_ours):>9.3f} {np.median(t_peer):>12.3f} "
            f"{np.median(t_ours) / np.median(t_peer):>10.3g}",
            flush=True,
        )


if __name__ == "__main__":
    main()
