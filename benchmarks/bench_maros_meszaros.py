"""dQP's default against its backends called directly, on the Maros–Meszaros test set (issue #42).

    .venv/bin/python benchmarks/bench_maros_meszaros.py DIR                 # n + m ≤ 3000, 10 s limit
    .venv/bin/python benchmarks/bench_maros_meszaros.py DIR --max-size 0    # every problem
    .venv/bin/python benchmarks/bench_maros_meszaros.py DIR --problems QSHARE1B CVXQP1_M --time-limit 5

``DIR`` holds qpbenchmark's ``.mat`` files (``P, q, r, A, l, u``: ½xᵀPx + qᵀx + r, l ≤ Ax ≤ u, the last
n rows of A the identity, i.e. the variable bounds) and, optionally, ``qpbenchmark_results.csv``, whose
published rows are summarized on the same problems beside ours. The conversion follows qpbenchmark: a
row with u − l < 1e-10 is an equality, infinite sides are dropped, the last n rows become ``lb``/``ub``.

Configurations, each problem in turn, all in one worker process (the same process for dQP and the
backends, so that load hits them alike): ``dqp`` is ``solve(QP(...), DQP())`` on sparse data (QP's
validation, the backend, the polish and the KKT check all timed); ``dqp-dense`` the same on dense
arrays (``--dense``); every name in ``--backends`` is ``qpsolvers.solve_problem`` with that solver's
defaults on sparse data (qpsolvers densifies for dense-only solvers, as a direct user's call would).
A run past ``--time-limit`` is killed (the worker is restarted) and counts as a failure at the limit.

Success, as qpbenchmark: a solution was returned and its primal residual, dual residual and duality
gap (qpsolvers' ``Solution`` methods, absolute) are all ≤ 1 ("default") or ≤ 1e-9 ("high accuracy");
the one run is judged at both thresholds. For dQP we also count ``Success`` retcodes and how many of
them fail qpbenchmark's default criterion (must be 0) and report dQP's relative KKT residuals.
Time score: the shifted geometric mean of the run times (shift 10 ms), a failure counted at the limit.

Derivatives: on every dQP success, the backward (``sol.vjp`` w.r.t. every input) is timed; on a
seeded sample of non-degenerate successes (``--fd-sample``), ``∇_q⟨g, x*⟩·V`` is compared with central
finite differences at step ``ε = 1e-6·max(1, ‖q‖∞)`` (x* is affine in q while the active set holds).
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing as mp
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import scipy.io as sio
import scipy.sparse as sp

SHIFT = 0.01  # qpbenchmark's shift of the geometric mean (10 ms)
CRITERIA = {"default": 1.0, "high": 1e-9}  # qpbenchmark's absolute tolerances on residuals and gap
EQ_GAP = 1e-10  # qpbenchmark: u − l below this is an equality row
FD_TOL = 1e-3  # relative FD agreement demanded (see fd_check)


# ----------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------


def problem_size(path: Path) -> int:
    """n + m (m counts the rows of A, the n bound rows included), as qpbenchmark's size filter."""
    d = sio.loadmat(str(path), variable_names=["n", "m"])
    return int(d["n"][0, 0]) + int(d["m"][0, 0])


def load_problem(path: Path) -> dict:
    """The ``.mat`` problem as qpsolvers data: P, q, G, h, A, b, lb, ub (sparse CSC matrices)."""
    d = sio.loadmat(str(path))
    return split_constraints(sp.csc_matrix(d["P"], dtype=np.float64), d["q"].ravel().astype(np.float64),
                             sp.csr_matrix(d["A"], dtype=np.float64), d["l"].ravel().astype(np.float64),
                             d["u"].ravel().astype(np.float64))


def split_constraints(P, q, C, lo, up) -> dict:
    """``lo ≤ C x ≤ up`` whose last n rows are the identity → equalities, inequalities and bounds."""
    n = q.size
    P = sp.csc_matrix((P + P.T) * 0.5) if abs(P - P.T).max() > 0 else sp.csc_matrix(P)
    k = C.shape[0] - n
    if k < 0 or (C[k:] - sp.identity(n)).count_nonzero():
        raise ValueError("the last n rows of A must be the identity (the variable bounds)")
    lo, up = np.where(lo <= -1e20, -np.inf, lo), np.where(up >= 1e20, np.inf, up)  # 1e20 stands for ∞
    rows, l_r, u_r = C[:k], lo[:k], up[:k]
    eq = np.isfinite(l_r) & np.isfinite(u_r) & (u_r - l_r < EQ_GAP)
    upper = ~eq & np.isfinite(u_r)
    lower = ~eq & np.isfinite(l_r)
    G = sp.vstack([rows[upper], -rows[lower]]).tocsc()
    h = np.concatenate([u_r[upper], -l_r[lower]])
    lb, ub = lo[k:].copy(), up[k:].copy()
    return {"P": P, "q": q, "G": G if G.shape[0] else None, "h": h if h.size else None,
            "A": sp.csc_matrix(rows[eq]) if eq.any() else None, "b": u_r[eq] if eq.any() else None,
            "lb": lb if np.isfinite(lb).any() else None, "ub": ub if np.isfinite(ub).any() else None}


def residuals(data: dict, x, y, z, z_box) -> tuple[float, float, float]:
    """qpbenchmark's (primal residual, dual residual, duality gap), absolute, by qpsolvers' Solution."""
    import qpsolvers

    problem = qpsolvers.Problem(data["P"], data["q"], data["G"], data["h"], data["A"], data["b"],
                                data["lb"], data["ub"])
    sol = qpsolvers.Solution(problem)
    sol.found, sol.x = True, np.asarray(x, dtype=np.float64)
    sol.y = None if data["A"] is None else np.asarray(y, dtype=np.float64)
    sol.z = None if data["G"] is None else np.asarray(z, dtype=np.float64)
    sol.z_box = None if data["lb"] is None and data["ub"] is None else np.asarray(z_box, dtype=np.float64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(sol.primal_residual()), float(sol.dual_residual()), float(sol.duality_gap())
    except Exception:  # a missing dual: qpbenchmark counts it as not found
        return math.inf, math.inf, math.inf


def shifted_geomean(times, shift: float = SHIFT) -> float:
    """exp(mean(log(t + shift))) − shift."""
    t = np.asarray(list(times), dtype=np.float64)
    return float(np.exp(np.mean(np.log(t + shift))) - shift) if t.size else math.nan


# ----------------------------------------------------------------------------
# one run (in the worker)
# ----------------------------------------------------------------------------


def run_config(data: dict, config: str, seed: int, fd: bool) -> dict:
    """Solve ``data`` by ``config`` and return time, residuals and (dQP) retcode, backward, FD."""
    import qpsolvers

    from algorithms import RetCode, solve
    from algorithms.qp import DQP, QP

    out: dict = {"found": False, "time": math.nan}
    if config.startswith("dqp"):
        given = data if config == "dqp" else \
            {k: (v.toarray() if sp.issparse(v) else v) for k, v in data.items()}
        start = time.perf_counter()
        try:
            sol = solve(QP(**given), DQP())
        except Exception as exc:  # a validation error on a valid problem is a failure, reported
            out.update(time=time.perf_counter() - start, error=f"{type(exc).__name__}: {exc}"[:200])
            return out
        out["time"] = time.perf_counter() - start
        out.update(retcode=sol.retcode.value, backend=sol.backend)
        if sol.retcode is not RetCode.Success:
            out["error"] = "; ".join(sol.warnings)[:200]
            return out
        out["found"] = True
        out["degenerate"] = bool(sol.degenerate)
        out["kkt_rel"] = max(sol.stats.stationarity, sol.stats.primal_residual, sol.stats.dual_residual,
                             sol.stats.complementarity)
        out["res"] = residuals(data, sol.x, sol.y, sol.z, sol.z_box)
        rng = np.random.default_rng(seed)
        g = rng.standard_normal(sol.x.size)
        start = time.perf_counter()
        try:
            sol.vjp(g)
            out["backward"] = time.perf_counter() - start
        except Exception as exc:
            out["backward_error"] = f"{type(exc).__name__}: {exc}"[:200]
        if fd and not sol.degenerate:
            out["fd"] = fd_check(given, sol, g, rng)
        return out
    problem = qpsolvers.Problem(data["P"], data["q"], data["G"], data["h"], data["A"], data["b"],
                                data["lb"], data["ub"])
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = qpsolvers.solve_problem(problem, solver=config)
    except Exception as exc:
        out.update(time=time.perf_counter() - start, error=f"{type(exc).__name__}: {exc}"[:200])
        return out
    out["time"] = time.perf_counter() - start
    if res.found and res.x is not None and np.all(np.isfinite(res.x)):
        out["found"] = True
        out["res"] = residuals(data, res.x, res.y, res.z, res.z_box)
    return out


def fd_check(data: dict, sol, g, rng) -> dict:
    """∇_q⟨g, x*⟩ along a random V against central differences of two more dQP solves.

    x* is affine in q while the active set holds, so the difference quotient is exact up to the solves'
    error over 2ε: the polished x is exact to ~1e-12·‖x‖, i.e. ~1e-6 relative at ε = 1e-6·‖q‖; FD_TOL =
    1e-3 leaves room for a backend-point fallback (~1e-9) and flags a wrong derivative (O(1) off)."""
    from algorithms import solve
    from algorithms.qp import DQP, QP

    V = rng.standard_normal(sol.x.size)
    eps = 1e-6 * max(1.0, float(np.abs(data["q"]).max()))
    moved = []
    for s in (1.0, -1.0):
        other = solve(QP(**{**data, "q": data["q"] + s * eps * V}), DQP())
        if not other.successful:
            return {"skipped": f"perturbed solve {other.retcode.value}"}
        same = np.array_equal(other.active, sol.active) and (
            other.active_box is None or np.array_equal(other.active_box, sol.active_box))
        if not same:
            return {"skipped": "the active set changed within the step (x* not differentiable at this scale)"}
        moved.append(float(g @ other.x))
    fd = (moved[0] - moved[1]) / (2 * eps)
    an = float(sol.vjp(g, wrt=("q",))["q"] @ V)
    err = abs(an - fd) / max(abs(fd), 1e-12 * float(np.abs(g).sum()), 1e-300)
    return {"analytic": an, "fd": fd, "relative_error": err, "agrees": bool(err <= FD_TOL)}


def _worker(conn, paths: dict[str, str]) -> None:
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    cache: dict[str, dict] = {}
    while True:
        msg = conn.recv()
        if msg is None:
            return
        name, config, seed, fd = msg
        try:
            if name not in cache:
                cache.clear()  # one problem at a time: configurations run problem by problem
                cache[name] = load_problem(Path(paths[name]))
            conn.send(run_config(cache[name], config, seed, fd))
        except Exception as exc:
            conn.send({"found": False, "time": math.nan, "error": f"{type(exc).__name__}: {exc}"[:200]})


class Worker:
    """A persistent process; a run past the limit kills it and a new one is started."""

    def __init__(self, paths: dict[str, str]) -> None:
        self.paths, self.proc = paths, None

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.paths), daemon=True)
        self.proc.start()

    def run(self, name: str, config: str, seed: int, fd: bool, limit: float) -> dict:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        try:
            self.conn.send((name, config, seed, fd))
            # the first call also loads the problem and imports the solvers: a grace of 30 s on top
            ready = self.conn.poll(limit + (60.0 if fd else 0.0) + 30.0)
            out = self.conn.recv() if ready else None
        except (EOFError, OSError):  # the worker died (a solver crashed, or the OS killed it)
            self.proc.join(5)
            code = self.proc.exitcode
            self.proc = None
            return {"found": False, "time": limit, "error": f"worker died (exit code {code})"}
        if out is not None:
            t = out.get("time", math.nan)
            if np.isfinite(t) and t > limit:
                out.update(found=False, error=f"over the time limit ({t:.1f} s)")
            return out
        self.proc.kill()
        self.proc.join()
        self.proc = None
        return {"found": False, "time": limit, "error": "killed at the time limit"}

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.proc.join(5)


# ----------------------------------------------------------------------------
# scoring and report
# ----------------------------------------------------------------------------


def success(out: dict, tol: float) -> bool:
    res = out.get("res")
    return bool(out.get("found")) and res is not None and all(np.isfinite(r) and r <= tol for r in res)


def summarize(results: dict[str, dict[str, dict]], configs: list[str], limit: float) -> list[dict]:
    rows = []
    for config in configs:
        outs = [results[p][config] for p in results]
        row = {"config": config, "problems": len(outs)}
        for label, tol in CRITERIA.items():
            row[f"success_{label}"] = sum(success(o, tol) for o in outs)
            row[f"geomean_{label}"] = shifted_geomean(
                o["time"] if success(o, tol) else limit for o in outs)
        if config.startswith("dqp"):
            row["retcode_success"] = sum(o.get("retcode") == "Success" for o in outs)
            # Success whose point misses qpbenchmark's absolute criterion (a run over the time limit is a
            # failure of its own, not counted here)
            row["success_failing_default"] = sum(
                o.get("retcode") == "Success" and o.get("res") is not None and not success(o, 1.0)
                and o.get("time", math.inf) <= limit for o in outs)
            back = [o["backward"] for o in outs if "backward" in o]
            row["backward_median_s"] = float(np.median(back)) if back else math.nan
            row["backward_over_forward_median"] = float(np.median(
                [o["backward"] / o["time"] for o in outs if "backward" in o])) if back else math.nan
            fds = [o["fd"] for o in outs if "fd" in o and "agrees" in o["fd"]]
            row["fd_checked"], row["fd_agree"] = len(fds), sum(f["agrees"] for f in fds)
            row["fd_worst"] = max((f["relative_error"] for f in fds), default=math.nan)
        rows.append(row)
    return rows


def published(csv_path: Path, problems: list[str], limit: float) -> list[dict]:
    """qpbenchmark's published rows on ``problems``: success at each criterion (its own settings for
    each) and the shifted geometric mean with a failure counted at ``limit`` (ours, for comparability)."""
    table: dict[tuple[str, str], dict[str, dict]] = {}
    with open(csv_path) as fh:
        for r in csv.DictReader(fh):
            table.setdefault((r["solver"], r["settings"]), {})[r["problem"]] = r
    rows = []
    for solver in sorted({s for s, _ in table}):
        row = {"config": f"qpbenchmark {solver}"}
        for label, settings, tol in (("default", "default", 1.0), ("high", "high_accuracy", 1e-9)):
            got = table.get((solver, settings), {})
            if not all(p in got for p in problems):
                row = None
                break
            ok, times = 0, []
            for p in problems:
                r = got[p]
                fine = r["found"] == "True" and all(float(r[k]) <= tol for k in
                                                    ("primal_residual", "dual_residual", "duality_gap"))
                ok += fine
                times.append(min(float(r["runtime"]), limit) if fine else limit)
            row[f"success_{label}"], row[f"geomean_{label}"] = ok, shifted_geomean(times)
        if row is not None:
            rows.append(row)
    return rows


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.3g}"
    return str(v)


def print_report(results, configs, summary, pub, limit) -> None:
    print("\n## Per problem (time in s; ✓ default criterion, ✓✓ high accuracy, ✗ failure)\n")
    print("| problem | " + " | ".join(configs) + " |")
    print("|---|" + "---|" * len(configs))
    for p, outs in results.items():
        cells = []
        for c in configs:
            o = outs[c]
            mark = "✓✓" if success(o, 1e-9) else "✓" if success(o, 1.0) else "✗"
            cells.append(f"{mark} {_fmt(o.get('time', math.nan))}")
        print(f"| {p} | " + " | ".join(cells) + " |")
    n = len(results)
    backends = [r for r in summary if not r["config"].startswith("dqp")]
    best = max(backends, key=lambda r: (r["success_default"], -r["geomean_default"])) if backends else None
    print(f"\n## Summary ({n} problems, time limit {limit:g} s, shifted geometric mean with shift "
          f"{SHIFT * 1000:g} ms, failure = limit)\n")
    print("| config | success (default) | success (high acc.) | shifted geomean (default) | ratio to best "
          "backend | shifted geomean (high) |")
    print("|---|---|---|---|---|---|")
    for r in summary + pub:
        ratio = r["geomean_default"] / best["geomean_default"] if best else math.nan
        print(f"| {r['config']} | {r['success_default']}/{n} | {r['success_high']}/{n} | "
              f"{_fmt(r['geomean_default'])} | {_fmt(ratio)} | {_fmt(r['geomean_high'])} |")
    if best:
        print(f"\nbest directly called backend (most default successes, then time): {best['config']}")
    for r in summary:
        if r["config"].startswith("dqp"):
            print(f"{r['config']}: Success retcodes {r['retcode_success']}, of which failing qpbenchmark's "
                  f"default criterion {r['success_failing_default']}; backward median "
                  f"{_fmt(r['backward_median_s'])} s ({_fmt(r['backward_over_forward_median'])}× the "
                  "forward); "
                  f"finite differences: {r['fd_agree']}/{r['fd_checked']} agree (worst relative error "
                  f"{_fmt(r['fd_worst'])}, tolerance {FD_TOL:g})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path,
                        help="the directory of qpbenchmark's Maros-Meszaros .mat files")
    parser.add_argument("--max-size", type=int, default=3000,
                        help="keep problems with n + m <= this (0: all; default 3000, 78 problems)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per run (default 10)")
    parser.add_argument("--problems", nargs="*", default=None, help="problem names to run (default: all)")
    parser.add_argument("--backends", default="piqp,clarabel,daqp",
                        help="backends called directly, comma-separated (default piqp,clarabel,daqp)")
    parser.add_argument("--dense", action="store_true", help="also run dQP on dense arrays")
    parser.add_argument("--fd-sample", type=int, default=10,
                        help="non-degenerate dQP successes checked against finite differences (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write every run's record here")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        parser.error(f"directory {args.directory} does not exist")
    if args.time_limit <= 0:
        parser.error(f"--time-limit must be > 0, got {args.time_limit}")
    import qpsolvers

    backends = [b for b in args.backends.split(",") if b]
    missing = [b for b in backends if b not in qpsolvers.available_solvers]
    if missing:
        parser.error(f"backends not installed: {missing} (installed: {sorted(qpsolvers.available_solvers)})")
    paths = {p.stem: p for p in sorted(args.directory.glob("*.mat"))}
    if args.problems:
        unknown = sorted(set(args.problems) - set(paths))
        if unknown:
            parser.error(f"unknown problems {unknown}")
        paths = {k: paths[k] for k in args.problems}
    if args.max_size > 0:
        paths = {k: p for k, p in paths.items() if problem_size(p) <= args.max_size}
    configs = ["dqp"] + (["dqp-dense"] if args.dense else []) + backends
    rng = np.random.default_rng(args.seed)
    fd_set = set(rng.permutation(sorted(paths))[: 3 * args.fd_sample].tolist())  # candidates; first N used
    worker = Worker({k: str(p) for k, p in paths.items()})
    results: dict[str, dict[str, dict]] = {}
    fd_done = 0
    start = time.perf_counter()
    try:
        for i, name in enumerate(paths):
            results[name] = {}
            for config in configs:
                fd = config == "dqp" and name in fd_set and fd_done < args.fd_sample
                out = worker.run(name, config, args.seed + i, fd, args.time_limit)
                if "fd" in out and "agrees" in out["fd"]:
                    fd_done += 1
                results[name][config] = out
            line = ", ".join(f"{c} {'ok' if success(results[name][c], 1.0) else 'FAIL'} "
                             f"{_fmt(results[name][c].get('time', math.nan))}" for c in configs)
            print(f"[{i + 1}/{len(paths)}] {name}: {line}", flush=True)
    finally:
        worker.close()
    summary = summarize(results, configs, args.time_limit)
    csv_path = args.directory / "qpbenchmark_results.csv"
    pub = published(csv_path, list(results), args.time_limit) if csv_path.exists() else []
    pub = [r for r in pub if r["config"].split()[-1] in [*backends, "gurobi", "proxqp", "osqp"]]
    print_report(results, configs, summary, pub, args.time_limit)
    fds = [(p, o["dqp"]["fd"]) for p, o in results.items() if "fd" in o["dqp"]]
    for p, f in fds:
        print(f"FD {p}: {f}")
    print(f"\nwall time {time.perf_counter() - start:.0f} s")
    if args.json is not None:
        import json

        args.json.write_text(json.dumps({"results": results, "summary": summary, "published": pub},
                                        default=float, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
