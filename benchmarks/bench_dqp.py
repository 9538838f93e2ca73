"""Benchmark dQP's torch layer against proxsuite's QPLayer and cvxpylayers, in one process.

Cases
-----
* dense: a random strictly convex QP, n variables, n/2 inequalities of which n/4
  are active at the solution (built around a known primal-dual pair), all of
  P, q, G, h requiring gradients; loss = ⟨w, x*⟩.
* simplex: the projection min ½‖x − y‖² s.t. 1ᵀx = 1, x ≥ 0 with sparse
  P = I, G = −I, A = 1ᵀ (constants) and y requiring gradients.

For each case dQP runs every candidate backend once, keeps the fastest
(forward + backward) and reports it. Timings are medians over repeats, one
thread. Peers run on the same instance; a peer is skipped where it would need
a dense n×n matrix beyond the memory/time budget (marked "-").

    .venv/bin/python benchmarks/bench_dqp.py            # n up to 1000 dense, 1e5 simplex
    .venv/bin/python benchmarks/bench_dqp.py --quick    # n <= 100 only (< 1 minute)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import scipy.sparse as sp
import torch

from algorithms.qp import DQP, qp_layer

torch.set_num_threads(1)
warnings.filterwarnings("ignore")

DENSE_BACKENDS = ("daqp", "proxqp", "piqp", "quadprog", "clarabel")
SPARSE_BACKENDS = ("piqp", "clarabel", "osqp", "highs")
#: for small simplex projections dense matrices (and dense backends) are also tried
DENSE_SIMPLEX = ("daqp", "proxqp", "quadprog")
#: cvxpylayers (SCS) at eps = 1e-6: its default settings returned x off by 0.3 on the n = 1e3
#: simplex, and eps = 1e-8 took 196 s at n = 1e4; 1e-6 is still looser than dQP (see |dx|)
CVXPY_ARGS: dict = {"eps": 1e-6}
#: backends too slow at a size to be worth a try (measured: proxqp sparse 133 s at n=1e5)
SLOW = {("highs", 100_000)}


def dense_instance(n: int, seed: int = 0):
    """P = MᵀM/n + I, n/2 inequality rows, n/4 active with multipliers in [0.5, 2]."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, n))
    P = M.T @ M / n + np.eye(n)
    m = max(1, n // 2)
    G = rng.standard_normal((m, n))
    x = rng.standard_normal(n)
    z = np.zeros(m)
    n_act = max(1, n // 4)
    z[:n_act] = rng.uniform(0.5, 2.0, n_act)
    slack = np.where(z > 0, 0.0, rng.uniform(0.5, 2.0, m))
    h = G @ x + slack
    q = -(P @ x) - G.T @ z
    return P, q, G, h


def median_time(fn, repeats: int) -> tuple[float, float]:
    """Median (forward, backward) seconds of ``fn`` (returns the pair for one run)."""
    fwd, bwd = [], []
    for _ in range(repeats):
        f, b, x = fn()
        fwd.append(f)
        bwd.append(b)
    return statistics.median(fwd), statistics.median(bwd), x


def _tensors(*arrays):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]


# ----------------------------------------------------------------------------- dQP


def run_dqp_dense(P, q, G, h, backend, w):
    Pt, qt, Gt, ht = _tensors(P, q, G, h)
    t0 = time.perf_counter()
    x = qp_layer(Pt, qt, Gt, ht, algorithm=DQP(backend=backend))
    t1 = time.perf_counter()
    (x @ w).backward()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, x.detach().numpy().ravel()


def run_dqp_simplex(y, backend, w):
    """``backend`` "name" uses sparse scipy constants, "name/dense" dense torch constants."""
    n = y.size
    backend, _, layout = backend.partition("/")
    if layout == "dense":
        P, G = torch.eye(n, dtype=torch.float64), -torch.eye(n, dtype=torch.float64)
        A = torch.ones(1, n, dtype=torch.float64)
    else:
        P, G = sp.identity(n, format="csc"), -sp.identity(n, format="csc")
        A = sp.csc_matrix(np.ones((1, n)))
    yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    h, b = torch.zeros(n, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    t0 = time.perf_counter()
    x = qp_layer(P, -yt, G, h, A, b, algorithm=DQP(backend=backend))
    t1 = time.perf_counter()
    (x @ w).backward()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, x.detach().numpy().ravel()


def best_dqp(run, backends, repeats, size):
    results = {}
    for backend in backends:
        if (backend, size) in SLOW:
            continue
        try:
            run(backend)  # warm-up and a first measure
            results[backend] = median_time(lambda b=backend: run(b), repeats)
        except Exception as exc:  # a backend failing a case is reported, not fatal
            print(f"    ({backend} failed: {type(exc).__name__}: {str(exc)[:80]})")
    best = min(results, key=lambda k: results[k][0] + results[k][1])
    return best, results[best], results


# ----------------------------------------------------------------------------- peers


def run_proxsuite_dense(P, q, G, h, w):
    from proxsuite.torch.qplayer import QPFunction

    n, m = P.shape[0], G.shape[0]
    Pt, qt, Gt, ht = _tensors(P, q, G, h)
    lo = torch.full((m,), -1e20, dtype=torch.float64)
    A, b = torch.empty(0, n, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
    t0 = time.perf_counter()
    x = QPFunction()(Pt, qt, A, b, Gt, lo, ht)[0][0]
    t1 = time.perf_counter()
    (x @ w).backward()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, x.detach().numpy().ravel()


def run_proxsuite_simplex(y, w):
    from proxsuite.torch.qplayer import QPFunction

    n = y.size
    P = torch.eye(n, dtype=torch.float64)
    yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    G = -torch.eye(n, dtype=torch.float64)
    lo = torch.full((n,), -1e20, dtype=torch.float64)
    hi = torch.zeros(n, dtype=torch.float64)
    A, b = torch.ones(1, n, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    t0 = time.perf_counter()
    x = QPFunction()(P, -yt, A, b, G, lo, hi)[0][0]
    t1 = time.perf_counter()
    (x @ w).backward()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, x.detach().numpy().ravel()


def make_cvxpy_dense(n, m):
    import cvxpy as cp
    from cvxpylayers.torch import CvxpyLayer

    x = cp.Variable(n)
    L, q, G, h = cp.Parameter((n, n)), cp.Parameter(n), cp.Parameter((m, n)), cp.Parameter(m)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L @ x) + q @ x), [G @ x <= h])
    return CvxpyLayer(prob, parameters=[L, q, G, h], variables=[x])


def run_cvxpy_dense(layer, P, q, G, h, w):
    L = np.linalg.cholesky(P).T  # ½‖Lx‖² = ½xᵀPx (DPP form)
    Lt, qt, Gt, ht = _tensors(L, q, G, h)
    t0 = time.perf_counter()
    (x,) = layer(Lt, qt, Gt, ht, solver_args=CVXPY_ARGS)
    t1 = time.perf_counter()
    (x @ w).backward()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, x.detach().numpy().ravel()


def make_cvxpy_simplex(n):
    import cvxpy as cp
    from cvxpylayers.torch import CvxpyLayer

    x, y = cp.Variable(n), cp.Parameter(n)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(x - y)), [cp.sum(x) == 1, x >= 0])
    return CvxpyLayer(prob, parameters=[y], variables=[x])


def run_cvxpy_simplex(layer, y, w):
    yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    t0 = time.perf_counter()
    (x,) = layer(yt, solver_args=CVXPY_ARGS)
    t1 = time.perf_counter()
    (x @ w).backward()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, x.detach().numpy().ravel()


# ----------------------------------------------------------------------------- driver


def interleaved(runs: dict, repeats: dict) -> dict:
    """Median (fwd, bwd, x) per named run, the runs alternating so machine load hits all alike."""
    out = {name: ([], [], None) for name in runs}
    for r in range(max(repeats.values())):
        for name, fn in runs.items():
            if r < repeats[name]:
                f, b, x = fn()
                out[name][0].append(f)
                out[name][1].append(b)
                out[name] = (out[name][0], out[name][1], x)
    return {k: (statistics.median(f), statistics.median(b), x) for k, (f, b, x) in out.items()}


def dense_case(n, repeats, cvxpy_max):
    repeats = repeats or (20 if n <= 100 else 7 if n <= 500 else 5)
    P, q, G, h = dense_instance(n)
    w = torch.tensor(np.random.default_rng(1).standard_normal(n))
    print(f"dense n={n}: choosing the dQP backend ...", flush=True)
    backend, _, _ = best_dqp(lambda be: run_dqp_dense(P, q, G, h, be, w), DENSE_BACKENDS,
                             max(2, repeats // 4), n)
    runs = {"dqp": lambda: run_dqp_dense(P, q, G, h, backend, w),
            "prox": lambda: run_proxsuite_dense(P, q, G, h, w)}
    reps = {"dqp": repeats, "prox": repeats}
    if n <= cvxpy_max:
        layer = make_cvxpy_dense(n, G.shape[0])
        run_cvxpy_dense(layer, P, q, G, h, w)
        runs["cvx"] = lambda: run_cvxpy_dense(layer, P, q, G, h, w)
        reps["cvx"] = max(3, repeats // 4)
    res = interleaved(runs, reps)
    f, b, x = res["dqp"]
    return ("dense", n, backend, f, b, res["prox"], res.get("cvx"), x)


def simplex_case(n, repeats, cvxpy_max, prox_max):
    repeats = repeats or (10 if n <= 10_000 else 5)
    y = np.random.default_rng(2).standard_normal(n)
    w = torch.tensor(np.random.default_rng(3).standard_normal(n))
    print(f"simplex n={n}: choosing the dQP backend ...", flush=True)
    candidates = SPARSE_BACKENDS + (tuple(f"{b}/dense" for b in DENSE_SIMPLEX) if n <= 1000 else ())
    backend, _, _ = best_dqp(lambda be: run_dqp_simplex(y, be, w), candidates, max(2, repeats // 4), n)
    runs = {"dqp": lambda: run_dqp_simplex(y, backend, w)}
    reps = {"dqp": repeats}
    if n <= prox_max:
        runs["prox"] = lambda: run_proxsuite_simplex(y, w)
        reps["prox"] = repeats
    if n <= cvxpy_max:
        layer = make_cvxpy_simplex(n)
        if n < 10_000:  # one warm-up call; at n >= 1e4 one call takes about a minute, timed once
            run_cvxpy_simplex(layer, y, w)
        runs["cvx"] = lambda: run_cvxpy_simplex(layer, y, w)
        reps["cvx"] = max(3, repeats // 3) if n < 10_000 else 1
    res = interleaved(runs, reps)
    f, b, x = res["dqp"]
    return ("simplex", n, backend, f, b, res.get("prox"), res.get("cvx"), x)


def fmt(t):
    return "-" if t is None else f"{1e3 * t:9.2f}"


def ratio(a, b):
    return "-" if (a is None or b is None) else f"{a / b:7.2f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n <= 100 only")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    dense_sizes = (10, 50, 100) if args.quick else (10, 50, 100, 500, 1000)
    simplex_sizes = (10, 100) if args.quick else (100, 1000, 10_000, 100_000)
    cvxpy_dense_max, cvxpy_simplex_max, prox_simplex_max = 100, 10_000, 1000

    rows = []
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}; times in ms (median)")
    for n in dense_sizes:
        rows.append(dense_case(n, args.repeats, cvxpy_dense_max))
    for n in simplex_sizes:
        rows.append(simplex_case(n, args.repeats, cvxpy_simplex_max, prox_simplex_max))

    head = (f"{'case':8} {'n':>7} {'dQP backend':>14} {'dQP fwd':>9} {'dQP bwd':>9} {'bwd/fwd':>7} "
            f"{'dQP f+b':>9} {'QPLayer':>9} {'cvxpyl.':>9} {'QPL/dQP':>7} {'cvx/dQP':>7} "
            f"{'QPL |dx|':>8} {'cvx |dx|':>8}")
    print("\n" + head + "\n" + "-" * len(head))
    for case, n, backend, f, b, prox, cvx, x in rows:
        total = f + b
        prox_t = None if prox is None else prox[0] + prox[1]
        cvx_t = None if cvx is None else cvx[0] + cvx[1]
        errs = ["       -" if r is None else f"{np.abs(r[2] - x).max():8.1e}" for r in (prox, cvx)]
        print(f"{case:8} {n:>7} {backend:>14} {fmt(f)} {fmt(b)} {b / f:7.3f} {fmt(total)} "
              f"{fmt(prox_t)} {fmt(cvx_t)} {ratio(prox_t, total)} {ratio(cvx_t, total)} {errs[0]} {errs[1]}")
    print("\nQPL/dQP, cvx/dQP: peer fwd+bwd time over dQP's (> 1 means dQP is faster); |dx|: max "
          "difference of the peer's x from dQP's. '-': peer not run at this size (dense n×n matrices "
          "or minutes per call). cvxpylayers: SCS at eps = 1e-6.")


if __name__ == "__main__":
    main()
