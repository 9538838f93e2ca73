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
gap (qpsolvers' ``Solution`` methods, absolute) are all ≤ 1 ("default") or ≤ 1e-9 ("high accuracy"),
each column judging its own run. For dQP we also count ``Success`` retcodes and how many of them fail
the column's criterion (the default column's ``DQP()`` checks relative residuals, so a point on data of
size 1e7 can pass it and miss the absolute 1; the high column's ``DQP(abs_tol=1e-9)`` checks both).
Time score: the shifted geometric mean of the run times (shift 10 ms), a failure counted at the limit.
``--repeats k`` reruns every run under 1 s up to k times and keeps its fastest time (all configurations
alike; on a shared machine the small problems' single times are mostly load).

Columns: "default" runs every configuration at its defaults (``DQP()``, each backend's own settings) and
judges at 1; "high" runs qpbenchmark's high-accuracy settings (backends: :data:`HIGH_SETTINGS`; dQP:
``DQP(abs_tol=1e-9)``) and judges at 1e-9, as qpbenchmark does.

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
X_ACCURACY = 1e-12  # relative accuracy of a polished x (round-off of K_J's solve), for fd_check's noise floor
#: qpbenchmark's high-accuracy settings of the backends called directly (absolute tolerances 1e-9, relative
#: ones 0, the duality gap checked where the solver can); its "default" column runs each solver's defaults
HIGH_SETTINGS: dict[str, dict] = {
    "clarabel": {"tol_feas": 1e-9, "tol_gap_abs": 1e-9, "tol_gap_rel": 0.0},
    "daqp": {"primal_tol": 1e-9, "dual_tol": 1e-9},
    "highs": {"dual_feasibility_tolerance": 1e-9, "primal_feasibility_tolerance": 1e-9},
    "osqp": {"eps_abs": 1e-9, "eps_rel": 0.0},
    "piqp": {"eps_abs": 1e-9, "eps_rel": 0.0, "check_duality_gap": True, "eps_duality_gap_abs": 1e-9,
             "eps_duality_gap_rel": 0.0},
    "proxqp": {"eps_abs": 1e-9, "eps_rel": 0.0, "check_duality_gap": True, "eps_duality_gap_abs": 1e-9,
               "eps_duality_gap_rel": 0.0},
    "scs": {"eps_abs": 1e-9, "eps_rel": 0.0},
}


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


def dqp_algorithm(accuracy: str):
    """dQP as each column runs it: ``DQP()`` for "default"; for "high", ``DQP(abs_tol=1e-9)``, which asks
    the backend for qpbenchmark's absolute 1e-9 and returns ``Success`` only when the absolute residuals
    meet it too (as qpbenchmark runs each solver with its high-accuracy settings in that column)."""
    from algorithms.qp import DQP

    return DQP() if accuracy == "default" else DQP(abs_tol=CRITERIA[accuracy])


def run_config(data: dict, config: str, seed: int, fd: bool, accuracy: str = "default") -> dict:
    """Solve ``data`` by ``config`` at ``accuracy``'s settings: time, residuals, (dQP) retcode, backward,
    FD."""
    import qpsolvers

    from algorithms import RetCode, solve
    from algorithms.qp import QP

    out: dict = {"found": False, "time": math.nan}
    if config.startswith("dqp"):
        given = data if config == "dqp" else \
            {k: (v.toarray() if sp.issparse(v) else v) for k, v in data.items()}
        algorithm = dqp_algorithm(accuracy)
        start = time.perf_counter()
        try:
            sol = solve(QP(**given), algorithm)
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
            out["fd"] = fd_check(given, sol, g, rng, algorithm)
        return out
    problem = qpsolvers.Problem(data["P"], data["q"], data["G"], data["h"], data["A"], data["b"],
                                data["lb"], data["ub"])
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = qpsolvers.solve_problem(problem, solver=config,
                                          **(HIGH_SETTINGS.get(config, {}) if accuracy == "high" else {}))
    except Exception as exc:
        out.update(time=time.perf_counter() - start, error=f"{type(exc).__name__}: {exc}"[:200])
        return out
    out["time"] = time.perf_counter() - start
    if res.found and res.x is not None and np.all(np.isfinite(res.x)):
        out["found"] = True
        out["res"] = residuals(data, res.x, res.y, res.z, res.z_box)
    return out


def fd_check(data: dict, sol, g, rng, algorithm) -> dict:
    """∇_q⟨g, x*⟩ along a random V against central differences of two more dQP solves.

    x* is affine in q while the active set holds, so the difference quotient is exact up to the solves'
    error over 2ε: with x exact to δ = X_ACCURACY·max(1, ‖x‖∞) the quotient is off by at most
    δ·‖g‖₁/ε (the noise floor, absolute), i.e. ~1e-6 relative at ε = 1e-6·‖q‖; FD_TOL = 1e-3 (relative)
    comes on top and flags a wrong derivative (O(1) off). The floor matters where the derivative is 0 (a
    vertex: x* does not move with q): HS118 gave analytic 5e-28 against a quotient of 6e-7, round-off over
    the step, which a floor without the 1/ε and ‖x‖ factors called a disagreement."""
    from algorithms import solve
    from algorithms.qp import QP

    V = rng.standard_normal(sol.x.size)
    eps = 1e-6 * max(1.0, float(np.abs(data["q"]).max()))
    moved = []
    for s in (1.0, -1.0):
        other = solve(QP(**{**data, "q": data["q"] + s * eps * V}), algorithm)
        if not other.successful:
            return {"skipped": f"perturbed solve {other.retcode.value}"}
        same = np.array_equal(other.active, sol.active) and (
            other.active_box is None or np.array_equal(other.active_box, sol.active_box))
        if not same:
            return {"skipped": "the active set changed within the step (x* not differentiable at this scale)"}
        moved.append(float(g @ other.x))
    fd = (moved[0] - moved[1]) / (2 * eps)
    an = float(sol.vjp(g, wrt=("q",))["q"] @ V)
    floor = X_ACCURACY * max(1.0, float(np.abs(sol.x).max())) * float(np.abs(g).sum()) / eps
    err = abs(an - fd) / max(abs(fd), abs(an), 1e-300)
    agrees = abs(an - fd) <= FD_TOL * max(abs(fd), abs(an)) + floor
    return {"analytic": an, "fd": fd, "relative_error": err, "noise_floor": floor, "agrees": bool(agrees)}


def _worker(conn, paths: dict[str, str]) -> None:
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    cache: dict[str, dict] = {}
    while True:
        msg = conn.recv()
        if msg is None:
            return
        name, config, seed, fd, accuracy = msg
        try:
            if name not in cache:
                cache.clear()  # one problem at a time: configurations run problem by problem
                cache[name] = load_problem(Path(paths[name]))
            conn.send(run_config(cache[name], config, seed, fd, accuracy))
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

    def run(self, name: str, config: str, seed: int, fd: bool, limit: float,
            accuracy: str = "default") -> dict:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        try:
            self.conn.send((name, config, seed, fd, accuracy))
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
    """Per configuration and accuracy column: successes (that run judged at that column's criterion) and
    the shifted geometric mean; for dQP also its retcodes, backward times and FD agreement.

    ``results[problem][config][accuracy]`` is one run's record."""
    rows = []
    for config in configs:
        row: dict = {"config": config, "problems": len(results)}
        for label, tol in CRITERIA.items():
            outs = [results[p][config][label] for p in results if label in results[p][config]]
            if not outs:
                continue
            row[f"success_{label}"] = sum(success(o, tol) for o in outs)
            row[f"geomean_{label}"] = shifted_geomean(o["time"] if success(o, tol) else limit for o in outs)
            if not config.startswith("dqp"):
                continue
            row[f"retcode_success_{label}"] = sum(o.get("retcode") == "Success" for o in outs)
            # Success whose point misses qpbenchmark's criterion of the column (a run over the time limit
            # is a failure of its own, not counted here)
            row[f"success_failing_{label}"] = sum(
                o.get("retcode") == "Success" and o.get("res") is not None and not success(o, tol)
                and o.get("time", math.inf) <= limit for o in outs)
            back = [o["backward"] for o in outs if "backward" in o]
            row[f"backward_median_s_{label}"] = float(np.median(back)) if back else math.nan
            row[f"backward_over_forward_median_{label}"] = float(np.median(
                [o["backward"] / o["time"] for o in outs if "backward" in o])) if back else math.nan
            fds = [o["fd"] for o in outs if "fd" in o and "agrees" in o["fd"]]
            row[f"fd_checked_{label}"], row[f"fd_agree_{label}"] = len(fds), sum(f["agrees"] for f in fds)
            # the worst relative error among derivatives above the noise floor; the others are zero (a vertex)
            above = [max(abs(f["analytic"]), abs(f["fd"])) > f.get("noise_floor", 0.0) for f in fds]
            row[f"fd_worst_{label}"] = max((f["relative_error"] for f, a in zip(fds, above) if a),
                                           default=math.nan)
            row[f"fd_zero_{label}"] = len(fds) - sum(above)
            row[f"fd_skipped_{label}"] = sum("skipped" in o.get("fd", {}) for o in outs)
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


def best_backend(summary: list[dict], label: str) -> dict | None:
    """The directly called backend with the most successes in column ``label`` (then the faster)."""
    backends = [r for r in summary if not r["config"].startswith("dqp") and f"success_{label}" in r]
    return max(backends, key=lambda r: (r[f"success_{label}"], -r[f"geomean_{label}"])) if backends else None


def print_report(results, configs, summary, pub, limit) -> None:
    labels = [k for k in CRITERIA if any(k in results[p][configs[0]] for p in results)]
    print("\n## Per problem (time in s; ✓ success at the column's criterion, ✗ failure)\n")
    heads = [f"{c} ({k})" for c in configs for k in labels]
    print("| problem | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(heads))
    for p, outs in results.items():
        cells = []
        for c in configs:
            for k in labels:
                o = outs[c].get(k, {})
                cells.append(f"{'✓' if success(o, CRITERIA[k]) else '✗'} {_fmt(o.get('time', math.nan))}")
        print(f"| {p} | " + " | ".join(cells) + " |")
    n = len(results)
    best = {k: best_backend(summary, k) for k in labels}
    print(f"\n## Summary ({n} problems, time limit {limit:g} s, shifted geometric mean with shift "
          f"{SHIFT * 1000:g} ms, failure = limit; each column its own run at that column's settings)\n")
    head = "| config |"
    for k in labels:
        head += f" success ({k}) | shifted geomean ({k}) | ratio to best backend ({k}) |"
    print(head)
    print("|---|" + "---|---|---|" * len(labels))
    for r in summary + pub:
        line = f"| {r['config']} |"
        for k in labels:
            if f"success_{k}" not in r:
                line += " - | - | - |"
                continue
            ratio = r[f"geomean_{k}"] / best[k][f"geomean_{k}"] if best[k] else math.nan
            line += f" {r[f'success_{k}']}/{n} | {_fmt(r[f'geomean_{k}'])} | {_fmt(ratio)} |"
        print(line)
    for k in labels:
        if best[k]:
            print(f"\nbest directly called backend in the {k} column (most successes, then time): "
                  f"{best[k]['config']}")
    for r in summary:
        if not r["config"].startswith("dqp"):
            continue
        for k in labels:
            print(f"{r['config']} ({k}): Success retcodes {r[f'retcode_success_{k}']}, of which failing "
                  f"qpbenchmark's {k} criterion {r[f'success_failing_{k}']}; backward median "
                  f"{_fmt(r[f'backward_median_s_{k}'])} s ({_fmt(r[f'backward_over_forward_median_{k}'])}× "
                  f"the forward); finite differences: {r[f'fd_agree_{k}']}/{r[f'fd_checked_{k}']} agree "
                  f"(worst relative error {_fmt(r[f'fd_worst_{k}'])} where the derivative exceeds the noise "
                  f"floor, tolerance {FD_TOL:g}; {r[f'fd_zero_{k}']} zero derivatives within the floor; "
                  f"{r[f'fd_skipped_{k}']} non-degenerate samples skipped: the active set changed within "
                  "the step or a perturbed solve failed)")


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
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs per (problem, configuration, column) under 1 s, the fastest kept "
                             "(default 1; on a shared machine 3 takes the load spikes out of the small "
                             "problems' times, for every configuration alike)")
    parser.add_argument("--accuracies", default="default,high",
                        help="columns to run, comma-separated (default: default,high; each its own run)")
    args = parser.parse_args(argv)
    accuracies = [a for a in args.accuracies.split(",") if a]
    if not accuracies or set(accuracies) - set(CRITERIA):
        parser.error(f"--accuracies must name some of {sorted(CRITERIA)}, got {args.accuracies!r}")
    if not args.directory.is_dir():
        parser.error(f"directory {args.directory} does not exist")
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
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
            results[name] = {c: {} for c in configs}
            for accuracy in accuracies:
                for config in configs:
                    fd = config == "dqp" and name in fd_set and fd_done < args.fd_sample and \
                        accuracy == accuracies[0]
                    out = worker.run(name, config, args.seed + i, fd, args.time_limit, accuracy)
                    for _ in range(args.repeats - 1):  # the same deterministic run again: its best time
                        if not out.get("time", math.inf) < 1.0:
                            break
                        again = worker.run(name, config, args.seed + i, False, args.time_limit, accuracy)
                        faster = again.get("time", math.inf) < out["time"]
                        if again.get("found") == out.get("found") and faster:
                            out["time"] = again["time"]
                    if "fd" in out and "agrees" in out["fd"]:
                        fd_done += 1
                    results[name][config][accuracy] = out
            line = ", ".join(f"{c} {k} {'ok' if success(results[name][c][k], CRITERIA[k]) else 'FAIL'} "
                             f"{_fmt(results[name][c][k].get('time', math.nan))}"
                             for c in configs for k in accuracies)
            print(f"[{i + 1}/{len(paths)}] {name}: {line}", flush=True)
    finally:
        worker.close()
    summary = summarize(results, configs, args.time_limit)
    csv_path = args.directory / "qpbenchmark_results.csv"
    pub = published(csv_path, list(results), args.time_limit) if csv_path.exists() else []
    pub = [r for r in pub if r["config"].split()[-1] in [*backends, "gurobi", "proxqp", "osqp"]]
    print_report(results, configs, summary, pub, args.time_limit)
    fds = [(p, o["dqp"][k]["fd"]) for p, o in results.items() for k in accuracies if "fd" in o["dqp"][k]]
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
