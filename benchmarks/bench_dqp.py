"""Benchmark dQP's torch layer (the DEFAULT algorithm, ``DQP()``) against its peers, in one process.

Peers, on the same QPs in the same run:

* proxsuite's QPLayer (``proxsuite.torch.qplayer.QPFunction``, dense proxqp);
* the authors' ``libdqp`` (``dqp.dQP.dQP_layer``) with its dense and its sparse settings and the
  *same* forward backend and backend keywords as ours (``DQP()``'s automatic choice);
* cvxpylayers (SCS at eps 1e-6) where a call takes seconds, not minutes.

Cases
-----
* dense: P = MᵀM + I, G an n×n Gaussian, h = |N(0, 1)|, q ~ N(0, 1); P, q, G, h all require
  gradients; ``qp_layer(P, q, G, h)`` then ``x.sum().backward()``.
* simplex: min ½‖x − y‖² s.t. 1ᵀx = 1, x ≥ 0 with sparse constant P = I, G = −I, A = 1ᵀ and
  y requiring gradients.

Timing: forward + backward wall time, the best of k runs (the machine is shared with other
jobs, so the minimum is the least noisy estimate), with dQP and the peers interleaved so that
load hits them alike. One torch thread, one BLAS thread.

``--table`` measures the backend table behind ``DQP(backend="auto")`` (``AUTO_TABLE`` in
``algorithms/qp/dqp.py``): every candidate backend's forward + backward on the dense case at
several n and on the simplex case, best of k, and prints the fastest per size.

    .venv/bin/python benchmarks/bench_dqp.py            # dense n = 100, 300, 1000; simplex to 1e5
    .venv/bin/python benchmarks/bench_dqp.py --quick    # small sizes only (< 1 minute)
    .venv/bin/python benchmarks/bench_dqp.py --table    # the auto-backend table
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import scipy.sparse as sp
import torch

from algorithms.core import SolveOptions
from algorithms.qp import DQP, QP, qp_layer
from algorithms.qp.dqp import choose_backend

torch.set_num_threads(1)
warnings.filterwarnings("ignore")

#: cvxpylayers (SCS) at eps = 1e-6: its default settings returned x off by 0.3 on the n = 1e3 simplex
CVXPY_ARGS: dict = {"eps": 1e-6}
DENSE_CANDIDATES = ("daqp", "quadprog", "piqp", "proxqp", "clarabel", "osqp")
SPARSE_CANDIDATES = ("piqp", "clarabel", "osqp")


def dense_instance(n: int, seed: int = 0):
    """The issue's dense family: P = MᵀM + I, G an n×n Gaussian, h = |N(0, 1)|, q ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, n))
    return M.T @ M + np.eye(n), rng.standard_normal(n), rng.standard_normal((n, n)), np.abs(
        rng.standard_normal(n))


def _tensors(*arrays):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]


def _timed(forward):
    """(forward + backward seconds, forward seconds, x) of one call of ``forward() -> x``."""
    t0 = time.perf_counter()
    x = forward()
    t1 = time.perf_counter()
    x.sum().backward()
    t2 = time.perf_counter()
    return t2 - t0, t1 - t0, x.detach().numpy().ravel()


def best_of(runs: dict, repeats: dict) -> dict:
    """Best (total, forward, x) per named run over ``repeats[name]`` calls, the runs interleaved."""
    best: dict = {}
    for r in range(max(repeats.values())):
        for name, run in runs.items():
            if r < repeats[name]:
                total, fwd, x = run()
                if name not in best or total < best[name][0]:
                    best[name] = (total, fwd, x)
    return best


# ----------------------------------------------------------------------------- dQP (ours)


def dqp_dense(P, q, G, h, algorithm=None):
    def forward():
        Pt, qt, Gt, ht = _tensors(P, q, G, h)
        return qp_layer(Pt, qt, Gt, ht, algorithm=algorithm)
    return lambda: _timed(forward)


def dqp_simplex(y, algorithm=None):
    n = y.size
    P, G, A = sp.identity(n, format="csc"), -sp.identity(n, format="csc"), sp.csc_matrix(np.ones((1, n)))
    h, b = torch.zeros(n, dtype=torch.float64), torch.ones(1, dtype=torch.float64)

    def forward():
        yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        return qp_layer(P, -yt, G, h, A, b, algorithm=algorithm)
    return lambda: _timed(forward)


# ----------------------------------------------------------------------------- peers


def proxsuite_dense(P, q, G, h):
    from proxsuite.torch.qplayer import QPFunction

    n, m = P.shape[0], G.shape[0]
    lo = torch.full((m,), -1e20, dtype=torch.float64)
    A, b = torch.empty(0, n, dtype=torch.float64), torch.empty(0, dtype=torch.float64)

    def forward():
        Pt, qt, Gt, ht = _tensors(P, q, G, h)
        return QPFunction()(Pt, qt, A, b, Gt, lo, ht)[0][0]
    return lambda: _timed(forward)


def proxsuite_simplex(y):
    from proxsuite.torch.qplayer import QPFunction

    n = y.size
    P, G = torch.eye(n, dtype=torch.float64), -torch.eye(n, dtype=torch.float64)
    lo, hi = torch.full((n,), -1e20, dtype=torch.float64), torch.zeros(n, dtype=torch.float64)
    A, b = torch.ones(1, n, dtype=torch.float64), torch.ones(1, dtype=torch.float64)

    def forward():
        yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        return QPFunction()(P, -yt, A, b, G, lo, hi)[0][0]
    return lambda: _timed(forward)


def _libdqp_layer(backend: str, solve_type: str):
    """libdqp's layer with our backend and our backend keywords (tolerances, iteration caps)."""
    from dqp import dQP

    keywords = DQP().backend_kwargs(SolveOptions(), backend)
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its settings
        settings = dQP.build_settings(solve_type=solve_type, qp_solver=backend, qp_solver_keywords=keywords,
                                      eps_active=DQP().eps_active, empty_batch=False)
    return dQP.dQP_layer(settings)


def libdqp_dense(P, q, G, h, backend, solve_type):
    layer = _libdqp_layer(backend, solve_type)

    def forward():
        Pt, qt, Gt, ht = _tensors(P, q, G, h)
        if solve_type == "sparse":
            return layer(Pt.to_sparse_csc(), qt, Gt.to_sparse_csc(), ht)[0].reshape(-1)
        return layer(Pt, qt, Gt, ht)[0].reshape(-1)
    return lambda: _timed(forward)


def libdqp_simplex(y, backend, solve_type):
    n = y.size
    layer = _libdqp_layer(backend, solve_type)
    if solve_type == "sparse":
        def csc(M):
            M = sp.csc_matrix(M)
            return torch.sparse_csc_tensor(torch.tensor(M.indptr), torch.tensor(M.indices),
                                           torch.tensor(M.data, dtype=torch.float64), size=M.shape)
        P, G, A = csc(sp.identity(n)), csc(-sp.identity(n)), csc(np.ones((1, n)))
    else:
        P, G = torch.eye(n, dtype=torch.float64), -torch.eye(n, dtype=torch.float64)
        A = torch.ones(1, n, dtype=torch.float64)
    h, b = torch.zeros(n, dtype=torch.float64), torch.ones(1, dtype=torch.float64)

    def forward():
        yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        return layer(P, -yt, G, h, A, b)[0].reshape(-1)
    return lambda: _timed(forward)


def cvxpy_dense(P, q, G, h):
    import cvxpy as cp
    from cvxpylayers.torch import CvxpyLayer

    n, m = P.shape[0], G.shape[0]
    x = cp.Variable(n)
    L, qp_, Gp, hp = cp.Parameter((n, n)), cp.Parameter(n), cp.Parameter((m, n)), cp.Parameter(m)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L @ x) + qp_ @ x), [Gp @ x <= hp])
    layer = CvxpyLayer(prob, parameters=[L, qp_, Gp, hp], variables=[x])
    chol = np.linalg.cholesky(P).T  # ½‖Lx‖² = ½xᵀPx (DPP form)

    def forward():
        Lt, qt, Gt, ht = _tensors(chol, q, G, h)
        return layer(Lt, qt, Gt, ht, solver_args=CVXPY_ARGS)[0]
    return lambda: _timed(forward)


def cvxpy_simplex(y):
    import cvxpy as cp
    from cvxpylayers.torch import CvxpyLayer

    n = y.size
    x, yp = cp.Variable(n), cp.Parameter(n)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(x - yp)), [cp.sum(x) == 1, x >= 0])
    layer = CvxpyLayer(prob, parameters=[yp], variables=[x])

    def forward():
        return layer(torch.tensor(y, dtype=torch.float64, requires_grad=True), solver_args=CVXPY_ARGS)[0]
    return lambda: _timed(forward)


def _have_libdqp() -> bool:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import dqp  # noqa: F401
    except ImportError:
        print("(libdqp not installed: its columns are left out; pip install libdqp)")
        return False
    return True


# ----------------------------------------------------------------------------- cases


def dense_case(n: int, repeats: int, with_libdqp: bool):
    P, q, G, h = dense_instance(n)
    backend = choose_backend(QP(P=P, q=q, G=G, h=h))
    runs = {"dQP": dqp_dense(P, q, G, h), "QPLayer": proxsuite_dense(P, q, G, h)}
    if with_libdqp:
        runs["libdqp dense"] = libdqp_dense(P, q, G, h, backend, "dense")
        runs["libdqp sparse"] = libdqp_dense(P, q, G, h, backend, "sparse")
    if n <= 100:
        runs["cvxpylayers"] = cvxpy_dense(P, q, G, h)
    for run in runs.values():  # warm-up (imports, compilation)
        run()
    reps = {k: (max(2, repeats // 3) if k in ("cvxpylayers", "libdqp sparse") else repeats) for k in runs}
    return f"dense n={n}", backend, best_of(runs, reps)


def simplex_case(n: int, repeats: int, with_libdqp: bool):
    y = np.random.default_rng(2).standard_normal(n)
    P, A = sp.identity(n, format="csc"), sp.csc_matrix(np.ones((1, n)))
    backend = choose_backend(QP(P=P, q=-y, G=-P, h=np.zeros(n), A=A, b=np.ones(1)))
    runs = {"dQP": dqp_simplex(y)}
    if n <= 1000:
        runs["QPLayer"] = proxsuite_simplex(y)
        runs["cvxpylayers"] = cvxpy_simplex(y)
    if with_libdqp:
        runs["libdqp sparse"] = libdqp_simplex(y, backend, "sparse")
        if n <= 1000:
            runs["libdqp dense"] = libdqp_simplex(y, backend, "dense")
    for run in runs.values():
        run()
    reps = {k: (repeats if n <= 10_000 else max(2, repeats // 2)) for k in runs}
    return f"simplex n={n}", backend, best_of(runs, reps)


def _fastest_row(label: str, runs: dict, repeats: int) -> None:
    ok = {}
    for name, run in runs.items():
        try:
            run()  # warm-up; a backend failing the case (e.g. osqp's iteration cap) is marked
            ok[name] = run
        except RuntimeError:
            pass
    res = best_of(ok, dict.fromkeys(ok, repeats))
    fastest = min(res, key=lambda k: res[k][0])
    cells = [f"{b}{'*' if b == fastest else ''} {1e3 * res[b][0]:.1f}" if b in res else f"{b} failed"
             for b in runs]
    print(f"  {label}: " + "  ".join(cells), flush=True)


def backend_table(repeats: int) -> None:
    """Best-of-k forward + backward (ms) of every candidate backend, dense and simplex cases."""
    print("backend table (forward + backward ms, best of k; * = fastest)")
    for n in (30, 100, 200, 300, 400, 600, 1000):
        P, q, G, h = dense_instance(n)
        # clarabel and osqp were > 10x slower than the fastest at every n <= 400: not timed beyond
        names = DENSE_CANDIDATES if n <= 400 else DENSE_CANDIDATES[:4]
        _fastest_row(f"dense   n={n:>6}", {b: dqp_dense(P, q, G, h, DQP(backend=b)) for b in names},
                     repeats if n <= 300 else max(2, repeats // 2))
    for n in (1000, 10_000, 100_000):
        y = np.random.default_rng(2).standard_normal(n)
        _fastest_row(f"sparse  n={n:>6}", {b: dqp_simplex(y, DQP(backend=b)) for b in SPARSE_CANDIDATES},
                     max(2, repeats // 2))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--table", action="store_true", help="measure the auto-backend table")
    parser.add_argument("--repeats", type=int, default=7, help="k of best-of-k (default 7)")
    args = parser.parse_args(argv)
    print(f"torch {torch.__version__}, 1 thread; forward + backward, best of {args.repeats}, interleaved")
    if args.table:
        backend_table(args.repeats)
        return
    with_libdqp = _have_libdqp()
    dense_sizes = (30, 100) if args.quick else (100, 300, 1000)
    simplex_sizes = (100, 1000) if args.quick else (100, 1000, 10_000, 100_000)
    rows = [dense_case(n, args.repeats, with_libdqp) for n in dense_sizes]
    rows += [simplex_case(n, args.repeats, with_libdqp) for n in simplex_sizes]
    peers = ("QPLayer", "libdqp dense", "libdqp sparse", "cvxpylayers")
    head = f"{'case':16} {'auto backend':>12} {'dQP ms':>8} {'fwd ms':>8} " + " ".join(
        f"{p + ' ms':>17} {'dQP/' + p.split()[-1][:6]:>11}" for p in peers) + f" {'max |dx|':>9}"
    print("\n" + head + "\n" + "-" * len(head))
    for case, backend, res in rows:
        total, fwd, x = res["dQP"]
        cells = []
        for p in peers:
            if p in res:
                cells.append(f"{1e3 * res[p][0]:17.2f} {total / res[p][0]:11.2f}")
            else:
                cells.append(f"{'-':>17} {'-':>11}")
        dx = max((float(np.abs(r[2] - x).max()) for k, r in res.items() if k != "dQP"), default=0.0)
        print(f"{case:16} {backend:>12} {1e3 * total:8.2f} {1e3 * fwd:8.2f} " + " ".join(cells)
              + f" {dx:9.1e}")
    print("\ndQP/peer: dQP's forward + backward time over the peer's (< 1: dQP is faster); '-': peer not run "
          "(dense n×n inputs at large n, or minutes per call). |dx|: the largest difference of a peer's x "
          "from dQP's (cvxpylayers: SCS at 1e-6).")


if __name__ == "__main__":
    main()
