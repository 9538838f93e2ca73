"""``python -m verification mutate --paper KEY``: plant bugs in a paper's code, see which the claims notice.

The harness measuring its own power. The modules that implement the paper (the ``modules``
of its record in :mod:`theorems.papers`) are mutated one planted bug at a time (operator
swaps, sign flips, scaled constants, dropped terms, short-circuited functions; see
:mod:`verification.mutators`), and the paper's quick-profile claims run on each mutant.

.. code-block:: bash

    python -m verification mutate --paper lcd --list                 # the mutants, nothing run
    python -m verification mutate --paper lcd --max-mutants 40 --seed 0 --jobs 2
    python -m verification mutate --paper lcd --module algorithms.curvature.lcd2 --operators arith drop
    python -m verification mutate --paper lcd --rerun reports/mutation/lcd/mutation.json --survivors-only

How a mutant runs: the three packages (``algorithms``, ``theorems``, ``verification``) are
snapshotted once into a scratch folder; each mutant gets its own copy with one file patched,
and a fresh interpreter runs the claims there with ``PYTHONPATH`` pointing at the copy (the
worker checks that each mutated module was imported from the copy, not from the editable
install, and the run stops if it was not). Claims run in-process (``--jobs 0`` of the plain
runner) under seed 0, the seed the tests pin (``--seed`` only draws the sample), fastest
first as timed on the baseline, stopping at the first claim that notices.

The baseline (the unmutated copy) runs first, must reproduce every expected verdict, and
records which lines of the mutated modules each claim executes. A mutant then runs only
the claims that executed the statement it patches: the others run exactly the code they
ran before, so their verdicts cannot change (claims are deterministic under their seed).
A mutant that no claim reaches is reported ``survived`` without a run. ``--run-all`` turns
this off (no tracing; every claim on every mutant).

Outcomes of a mutant:

* ``killed``: some claim's verdict differs from its ``expected_verdict`` (a ``verified``
  claim turned ``falsified``, ``vacuous``, ``inconclusive`` or ``error``; a claim recorded
  as ``falsified`` changed verdict). A claim that raises counts: it left its verdict.
* ``error``: the mutant broke the code before any claim finished (e.g. it does not import);
  counted as killed, listed apart.
* ``timeout``: the mutant ran past its budget (``--timeout``, default three times the
  baseline) before a claim noticed. Not a kill: a planted bug should be caught by a check,
  not by a hang; timeouts are listed with their diffs.
* ``survived``: every claim kept its expected verdict. Each survivor's diff is reported.

Score = (killed + error) / (mutants sampled); mutants recorded as equivalent are not run.

Re-scoring a fixed sample: ``--rerun REPORT.json`` runs exactly the mutants of an earlier report
(matched by id, regenerated from the current code), so the score after closing survivors is
measured by the tool on the same sample. Ids that no longer exist (the code under them changed)
and ids recorded equivalent since are left out and listed. ``--survivors-only`` re-runs only the
earlier survivors and timeouts and carries the earlier kills over unchanged (marked ``carried``
in the report; no fresh evidence for them). A re-scored sample is one whose survivors were read:
its score is optimistic, an independent ``--seed`` is the honest measure.

Equivalent mutants (a mutation no input can tell apart from the original) are recorded per
paper in ``paper_notes/<KEY>.equivalent.toml`` by their stable ids (module, function,
operator, original -> replacement; shown by ``--list`` and in the report), with a reason:

.. code-block:: toml

    [[equivalent]]
    id = "algorithms.family.module:function:compare:r > 0->r >= 0"
    reason = "r is a norm checked positive two lines above: it is never 0 here"

Writes ``mutation.json`` and ``mutation.md`` to ``--out`` (default
``reports/mutation/<KEY>``). Scratch folders are removed at the end, on Ctrl-C too (the
report then covers the mutants finished so far).

>>> from verification.mutate import build_parser
>>> build_parser().parse_args(["--paper", "lcd", "--max-mutants", "5"]).max_mutants
5
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import functools
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verification.mutators import OPERATORS, Mutant, apply, generate_mutants, unified_diff

__all__ = ["MutantResult", "Target", "generate", "main", "paper_target", "run_mutation", "run_target"]

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("algorithms", "theorems", "verification")
STATUSES = ("killed", "error", "timeout", "survived")
_COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".hypothesis")
_WORKER_FLAG = "__worker__"
_SPEC_NAME = "_mutation_spec.json"
_EVENTS_NAME = "_mutation_events.jsonl"
_SHADOWED_EXIT = 3
NOT_EXECUTED = "not run: no claim executes this statement on the unmutated code"
_WORKER_FILE_CAP_BYTES = 256 * 2**20
#: the unmutated run has no budget of its own; this only stops a hung one
BASELINE_TIMEOUT_S = 1800.0


class MutationError(RuntimeError):
    """The run cannot go on (baseline not as expected, scratch copy shadowed, bad input)."""


@dataclass(frozen=True)
class Target:
    """What to mutate and what judges it.

    ``modules``: dotted names of the modules to mutate; ``claims``: ``"paper:KEY"`` (the
    claims registered by ``theorems.KEY``) or ``"module:NAME"`` (the ``CLAIMS`` list of a
    module); ``package_dirs``: top-level package folders copied into each scratch copy
    (each module must live in one of them).
    """

    name: str
    modules: tuple[str, ...]
    claims: str
    package_dirs: tuple[Path, ...]

    def relative_path(self, module: str) -> str:
        """The module's file relative to the scratch root, e.g. ``algorithms/qp/dqp.py``."""
        top, *rest = module.split(".")
        for folder in self.package_dirs:
            if folder.name != top:
                continue
            base = folder.joinpath(*rest)
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    return candidate.relative_to(folder.parent).as_posix()
        raise MutationError(f"module {module!r} is not a file under the copied packages "
                            f"({', '.join(str(p) for p in self.package_dirs)})")


def paper_target(key: str, modules: list[str] | None = None) -> Target:
    """The target of paper ``key``: its record's ``modules`` (or ``modules`` given here)."""
    from theorems.papers import PAPERS

    if key not in PAPERS:
        raise MutationError(f"unknown paper key {key!r}; known: {', '.join(PAPERS)}")
    chosen = tuple(modules or getattr(PAPERS[key], "modules", ()))
    if not chosen:
        raise MutationError(f"paper {key!r} names no implementing modules (the `modules` field of "
                            "its record in theorems/papers.py); pass --module")
    return Target(key, chosen, f"paper:{key}", tuple(ROOT / p for p in PACKAGES))


@dataclass
class MutantResult:
    """What one mutant did: ``status`` (see :data:`STATUSES`), the claim that noticed it
    (``killed_by``, its ``verdict`` and ``expected`` verdict), wall seconds, and a diff."""

    mutant: Mutant
    status: str
    seconds: float
    diff: str
    killed_by: str | None = None
    verdict: str | None = None
    expected: str | None = None
    detail: str = ""
    claims_run: list[str] = field(default_factory=list)
    executed: bool = True  # False: no claim runs the patched statement, so it was not run
    carried: bool = False  # True: taken over from an earlier report (``--survivors-only``), not run

    def as_dict(self) -> dict[str, Any]:
        return {**self.mutant.as_dict(), "status": self.status, "executed": self.executed,
                "carried": self.carried,
                "seconds": self.seconds,
                "killed_by": self.killed_by, "verdict": self.verdict, "expected": self.expected,
                "detail": self.detail, "claims_run": self.claims_run, "diff": self.diff}


# -- mutants ---------------------------------------------------------------------------------
def generate(target: Target, root: Path | None = None,
             operators: tuple[str, ...] = OPERATORS) -> tuple[list[Mutant], dict[str, str]]:
    """Every mutant of the target's modules (sorted by module, line, col, operator) and
    the source text each was generated from, read under ``root`` (default: the tree)."""
    mutants: list[Mutant] = []
    sources: dict[str, str] = {}
    for module in sorted(target.modules):
        rel = target.relative_path(module)
        base = root if root is not None else _source_root(target, rel)
        sources[rel] = (base / rel).read_text(encoding="utf-8")
        mutants += generate_mutants(sources[rel], module, rel, operators)
    return mutants, sources


def _source_root(target: Target, rel: str) -> Path:
    top = rel.split("/")[0]
    return next(p.parent for p in target.package_dirs if p.name == top)


def load_equivalent(path: Path) -> dict[str, str]:
    """``{mutant id: reason}`` from an equivalence file (absent file: no entries)."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise MutationError(f"{path}: not valid TOML: {exc}") from exc
    entries = data.get("equivalent", [])
    if not isinstance(entries, list):
        raise MutationError(f"{path}: `equivalent` must be an array of tables ([[equivalent]])")
    found: dict[str, str] = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not str(entry.get("id", "")).strip() \
                or not str(entry.get("reason", "")).strip():
            raise MutationError(f"{path}: entry {i + 1} needs a non-empty `id` and `reason`")
        found[entry["id"]] = entry["reason"]
    return found


def sample(mutants: list[Mutant], equivalent: dict[str, str], max_mutants: int | None,
           seed: int) -> list[Mutant]:
    """The mutants to run: the non-equivalent ones, a seeded sample of ``max_mutants``."""
    pool = [m for m in mutants if m.id not in equivalent]
    if max_mutants is not None and len(pool) > max_mutants:
        chosen = {m.id for m in random.Random(seed).sample(pool, max_mutants)}
        pool = [m for m in pool if m.id in chosen]
    return pool


@dataclass
class Rerun:
    """An earlier report's sample matched against the current mutants (see ``--rerun``)."""

    to_run: list[Mutant]
    carried: list[MutantResult]
    missing: list[str]  # ids of the report that the current code no longer generates
    now_equivalent: list[str]  # ids of the report recorded equivalent since
    seed: int | None
    order: list[str]  # the report's ids, in its order


def load_rerun(path: Path, paper: str, mutants: list[Mutant], equivalent: dict[str, str],
               survivors_only: bool = False) -> Rerun:
    """The mutants of the report at ``path`` (a ``mutation.json``) among the current ``mutants``.

    With ``survivors_only`` only its survivors and timeouts are to be run; its kills and errors
    come back as carried results."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        meta, entries = payload["meta"], payload["mutants"]
        ids = [str(e["id"]) for e in entries]
    except FileNotFoundError:
        raise MutationError(f"--rerun: no such report: {path}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MutationError(f"--rerun: {path} is not a mutation.json report ({exc!r})") from None
    if meta.get("paper") != paper:
        raise MutationError(f"--rerun: {path} is a report of paper {meta.get('paper')!r}, not {paper!r}")
    current = {m.id: m for m in mutants}
    to_run, carried, missing, now_equivalent = [], [], [], []
    for mutant_id, entry in zip(ids, entries):
        if mutant_id in equivalent:
            now_equivalent.append(mutant_id)
        elif mutant_id not in current:
            missing.append(mutant_id)
        elif survivors_only and entry.get("status") in ("killed", "error"):
            carried.append(MutantResult(
                current[mutant_id], entry["status"], float(entry.get("seconds", 0.0)),
                entry.get("diff", ""), killed_by=entry.get("killed_by"), verdict=entry.get("verdict"),
                expected=entry.get("expected"), detail=f"carried over from {path} (not re-run)",
                claims_run=list(entry.get("claims_run", [])), carried=True))
        else:
            to_run.append(current[mutant_id])
    return Rerun(to_run, carried, missing, now_equivalent, meta.get("seed"), ids)


# -- scratch copies and the worker process --------------------------------------------------------
class _Processes:
    """Running workers, so that Ctrl-C (or a stop) can kill their process groups."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live: set[subprocess.Popen] = set()
        self.stopping = threading.Event()

    def kill_all(self) -> None:
        self.stopping.set()
        with self.lock:
            for proc in list(self.live):
                _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _worker_env(scratch: Path, jobs: int) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(scratch), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a scratch copy lives once: no stale bytecode, no litter
    env.setdefault("MPLBACKEND", "Agg")
    env.setdefault("HF_HUB_OFFLINE", "1")
    # One BLAS/torch thread per mutant unless the user set them: the claims' models are tiny, and two
    # threads per process on a loaded 2-core machine made second_order_scaling's baseline over 12x slower
    # (> 1800 s against 141 s one-threaded); parallel mutants share the cores in any case.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.setdefault(name, "1")
    return env


def _copy_tree(source: Path, dest: Path) -> None:
    dest.mkdir(parents=True)
    for entry in source.iterdir():
        shutil.copytree(entry, dest / entry.name, ignore=_COPY_IGNORE)


@dataclass
class _WorkerRun:
    events: list[dict]
    returncode: int | None
    seconds: float
    timed_out: bool
    stderr_tail: str


def _run_worker(scratch: Path, target: Target, only: list[str] | None, stop_at_kill: bool,
                timeout: float | None, jobs: int, processes: _Processes,
                trace: bool = False) -> _WorkerRun:
    spec = {"root": str(scratch), "claims": target.claims, "modules": list(target.modules),
            "only": only, "stop_at_kill": stop_at_kill, "events": str(scratch / _EVENTS_NAME),
            "out": str(scratch / "_out"), "trace": trace,
            # the worker's own bound, past ours: it only matters if this process is gone
            "deadline_s": None if timeout is None else timeout + 30.0}
    (scratch / _SPEC_NAME).write_text(json.dumps(spec))
    log = scratch / "_worker.log"
    started = time.perf_counter()
    timed_out = False
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "verification.mutate", _WORKER_FLAG, str(scratch / _SPEC_NAME)],
            cwd=scratch, env=_worker_env(scratch, jobs), stdin=subprocess.DEVNULL, stdout=sink,
            stderr=subprocess.STDOUT, start_new_session=True)  # its own group: we kill it whole
        with processes.lock:
            processes.live.add(proc)
        try:
            if processes.stopping.is_set():
                _kill_group(proc)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            proc.wait()
        finally:
            _kill_group(proc)  # anything it started, even after a normal exit
            with processes.lock:
                processes.live.discard(proc)
    seconds = round(time.perf_counter() - started, 2)
    events_path = scratch / _EVENTS_NAME
    events = []
    if events_path.is_file():
        for line in events_path.read_text().splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut by a kill
                break
    tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
    return _WorkerRun(events, proc.returncode, seconds, timed_out, tail)


def _check_not_shadowed(run: _WorkerRun) -> None:
    for event in run.events:
        if event.get("event") == "shadowed":
            raise MutationError(
                "the scratch copy was shadowed: these modules were imported from outside it "
                f"({event['files']}); make sure no other path precedes PYTHONPATH (e.g. a .pth "
                "that inserts the source tree at the front of sys.path)")


def _judge(mutant: Mutant, run: _WorkerRun, diff: str) -> MutantResult:
    claims = [e for e in run.events if e.get("event") == "claim"]
    ran = [e["id"] for e in claims]
    for event in claims:
        if event["verdict"] != event["expected"]:
            return MutantResult(mutant, "killed", run.seconds, diff, killed_by=event["id"],
                                verdict=event["verdict"], expected=event["expected"],
                                detail=event.get("reason", ""), claims_run=ran)
    if run.timed_out:
        started = [e["id"] for e in run.events if e.get("event") == "start"]
        running = started[-1] if started and started[-1] not in ran else None
        return MutantResult(mutant, "timeout", run.seconds, diff, claims_run=ran,
                            detail=f"still running {running}" if running else "")
    if run.returncode != 0 or not any(e.get("event") == "done" for e in run.events):
        return MutantResult(mutant, "error", run.seconds, diff, claims_run=ran,
                            detail=_last_lines(run.stderr_tail))
    return MutantResult(mutant, "survived", run.seconds, diff, claims_run=ran)


def _last_lines(text: str, n: int = 6) -> str:
    return "\n".join(text.strip().splitlines()[-n:])


# -- the run ---------------------------------------------------------------------------------
@dataclass
class Baseline:
    """The unmutated run: each claim's verdict and seconds, and (when traced) the lines of
    the target's files that each claim executed (claim id -> path -> line numbers, paths
    relative to the scratch root)."""

    claims: list[dict]
    seconds: float
    lines: dict[str, dict[str, set[int]]] | None = None

    @property
    def order(self) -> list[str]:
        """Claim ids, fastest first: a mutant is usually noticed soonest that way."""
        return [c["id"] for c in sorted(self.claims, key=lambda c: (c["seconds"], c["id"]))]

    def claims_reaching(self, mutant: Mutant, source: str) -> list[str]:
        """The claims that executed the statement the mutant patches (all claims when not
        traced, and for module-level code, which runs at import). A claim that never runs
        that statement cannot change its verdict under the mutant, so only these run."""
        if self.lines is None or mutant.qualname == "<module>":
            return self.order
        first, last = _statement_lines(source, mutant.line)
        span = range(first, last + 1)
        return [cid for cid in self.order
                if any(line in self.lines[cid].get(mutant.path, ()) for line in span)]


def _statement_lines(source: str, line: int) -> tuple[int, int]:
    """The lines of the innermost statement around ``line``: all of a simple statement, the
    header of a compound one (``if``/``while``/``for`` line(s) before its body)."""
    around = []
    for node in ast.walk(_parsed(source)):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        end = node.end_lineno
        if isinstance(body, list) and body:
            end = max(node.lineno, body[0].lineno - 1)
        if node.lineno <= line <= end:
            around.append((node.lineno, end))
    return max(around, key=lambda span: (span[0], -span[1])) if around else (line, line)


@functools.lru_cache(maxsize=32)
def _parsed(source: str) -> ast.Module:
    return ast.parse(source)


def snapshot(target: Target, scratch_root: Path) -> Path:
    """Copy the target's packages once: mutants and baseline come from this frozen copy,
    so edits to the working tree during a run do not leak into it."""
    pristine = scratch_root / "pristine"
    pristine.mkdir(parents=True)
    for folder in target.package_dirs:
        shutil.copytree(folder, pristine / folder.name, ignore=_COPY_IGNORE)
    return pristine


def run_baseline(target: Target, pristine: Path, scratch_root: Path, *, trace: bool = True,
                 jobs: int = 1, processes: _Processes | None = None) -> Baseline:
    """Run every claim on the unmutated copy; every verdict must be the expected one.
    ``trace`` records which lines of the target's modules the claims execute; ``jobs`` (the
    mutants' parallelism) sets the same thread limits the mutants will run under."""
    scratch = scratch_root / "baseline"
    _copy_tree(pristine, scratch)
    run = _run_worker(scratch, target, None, stop_at_kill=False, timeout=BASELINE_TIMEOUT_S, jobs=jobs,
                      processes=processes or _Processes(), trace=trace)
    _check_not_shadowed(run)
    if run.timed_out:
        raise MutationError(f"the baseline (unmutated) run took over {BASELINE_TIMEOUT_S:.0f} s")
    claims = [e for e in run.events if e.get("event") == "claim"]
    if run.returncode != 0 or not any(e.get("event") == "done" for e in run.events):
        raise MutationError(f"the baseline (unmutated) run failed:\n{_last_lines(run.stderr_tail, 20)}")
    if not claims:
        raise MutationError(f"no claims found for {target.claims}")
    off = [c for c in claims if c["verdict"] != c["expected"]]
    if off:
        lines = "\n".join(f"  {c['id']}: {c['verdict']} (expected {c['expected']}): {c['reason']}"
                          for c in off)
        raise MutationError("the baseline (unmutated) run does not reproduce the expected verdicts, "
                            f"so a mutant's verdict change would mean nothing:\n{lines}")
    shutil.rmtree(scratch, ignore_errors=True)
    traced = {e["id"]: {p: set(v) for p, v in e["lines"].items()}
              for e in run.events if e.get("event") == "lines"}
    complete = trace and set(traced) == {c["id"] for c in claims}  # else a tracer was replaced
    return Baseline(claims=[{k: c[k] for k in ("id", "verdict", "seconds")} for c in claims],
                    seconds=run.seconds, lines=traced if complete else None)


def run_mutation(target: Target, mutants: list[Mutant], sources: dict[str, str], pristine: Path,
                 scratch_root: Path, baseline: Baseline, *, jobs: int = 1,
                 timeout: float | None = None, progress: bool = True) -> tuple[list[MutantResult], bool]:
    """Run each mutant in its own scratch copy; returns (results in mutant order, interrupted)."""
    budget = timeout if timeout is not None else default_timeout(baseline)
    processes = _Processes()
    results: dict[int, MutantResult] = {}
    report = _Progress(len(mutants), progress)

    def one(index: int, mutant: Mutant) -> MutantResult | None:
        if processes.stopping.is_set():
            return None
        original = sources[mutant.path]
        reaching = baseline.claims_reaching(mutant, original)
        if not reaching:
            return MutantResult(mutant, "survived", 0.0, unified_diff(original, mutant),
                                detail=NOT_EXECUTED, executed=False)
        scratch = scratch_root / f"mutant-{index:04d}"
        try:
            _copy_tree(pristine, scratch)
            (scratch / mutant.path).write_text(apply(original, mutant), encoding="utf-8")
            run = _run_worker(scratch, target, reaching, stop_at_kill=True, timeout=budget, jobs=jobs,
                              processes=processes)
            if processes.stopping.is_set():
                return None
            _check_not_shadowed(run)
            return _judge(mutant, run, unified_diff(original, mutant))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    interrupted = False
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs))
    futures = {pool.submit(one, i, m): i for i, m in enumerate(mutants)}
    try:
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            if result is not None:
                results[futures[future]] = result
                report.update(result)
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        processes.kill_all()
        raise
    finally:
        if interrupted:
            processes.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        report.close()
    return [results[i] for i in sorted(results)], interrupted


def default_timeout(baseline: Baseline) -> float:
    """Per-mutant budget: three baseline runs (a mutant may legitimately be slower), >= 30 s."""
    return max(30.0, round(3 * baseline.seconds))


class _Progress:
    """A tqdm bar on a terminal; one plain line per finished mutant otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.counts: Counter = Counter()
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="mutants", unit="mutant", file=sys.stderr)

    def update(self, result: MutantResult) -> None:
        self.done += 1
        self.counts[result.status] += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(", ".join(f"{s} {self.counts[s]}" for s in STATUSES))
            self.bar.update(1)
            return
        by = f"  ({result.killed_by}: {result.verdict})" if result.killed_by else ""
        width = len(str(self.total))
        print(f"[{self.done:>{width}}/{self.total}] {result.status:<8} {result.seconds:6.1f} s  "
              f"{result.mutant.id}{by}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# -- reports ---------------------------------------------------------------------------------
def summarize(results: list[MutantResult]) -> dict[str, Any]:
    counts = Counter(r.status for r in results)
    sampled = len(results)
    noticed = counts["killed"] + counts["error"]
    ran = [r for r in results if r.executed and not r.carried]
    seconds = [r.seconds for r in ran]

    def stats(values: list[float]) -> dict[str, float]:
        if not values:
            return {}
        return {"count": len(values), "mean": round(statistics.fmean(values), 1),
                "median": round(statistics.median(values), 1), "max": round(max(values), 1)}

    by_status = {s: stats([r.seconds for r in ran if r.status == s]) for s in STATUSES}

    return {"sampled": sampled, **{s: counts[s] for s in STATUSES},
            "survived_not_executed": sum(not r.executed for r in results),
            "carried": sum(r.carried for r in results),
            "score": round(noticed / sampled, 3) if sampled else None,
            "seconds_per_mutant": stats(seconds),
            "seconds_by_status": {s: v for s, v in by_status.items() if v}}


def _table(results: list[MutantResult], key: str) -> list[str]:
    groups: dict[str, Counter] = {}
    for r in results:
        groups.setdefault(getattr(r.mutant, key), Counter())[r.status] += 1
    lines = [f"| {key} | sampled | " + " | ".join(STATUSES) + " |", "|---" * (len(STATUSES) + 2) + "|"]
    for name in sorted(groups):
        c = groups[name]
        lines.append(f"| `{name}` | {sum(c.values())} | " + " | ".join(str(c[s]) for s in STATUSES) + " |")
    return lines


def write_reports(out: Path, meta: dict[str, Any], results: list[MutantResult]) -> None:
    """``mutation.json`` (everything) and ``mutation.md`` (tables, survivors' diffs)."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(results)
    payload = {"meta": meta, "summary": summary, "mutants": [r.as_dict() for r in results]}
    (out / "mutation.json").write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    score = "n/a" if summary["score"] is None else f"{summary['score']:.0%}"
    lines = [f"# Mutation testing: `{meta['paper']}`", "",
             f"Score **{score}** = (killed + error) / sampled = "
             f"({summary['killed']} + {summary['error']}) / {summary['sampled']}; "
             f"{summary['timeout']} timed out, {summary['survived']} survived "
             f"({summary['survived_not_executed']} of them in code no claim executes, not run)."
             + (" **Interrupted: partial results.**" if meta.get("interrupted") else ""), "",
             f"Modules: {', '.join(f'`{m}`' for m in meta['modules'])}. Generated "
             f"{meta['generated']} mutants, {meta['equivalent']} recorded equivalent (not run), "
             f"{meta['sampled']} sampled (seed {meta['seed']}). Per-mutant budget "
             f"{meta['timeout_s']:.0f} s, {meta['jobs']} in parallel; baseline "
             f"{meta['baseline']['seconds']:.1f} s; wall {meta['wall_seconds']:.0f} s.", ""]
    if meta.get("rerun_of"):
        lines[-1:-1] = [f"Re-run of the sample in `{meta['rerun_of']}`: {meta['sampled'] - meta['carried']} "
                        f"mutants run, {meta['carried']} earlier kills carried over without a run, "
                        f"{len(meta['rerun_missing'])} no longer generated (code changed), "
                        f"{len(meta['rerun_now_equivalent'])} recorded equivalent since. A sample whose "
                        "survivors were read before this run: the score is optimistic.", ""]
        lines += [f"- gone: `{i}`" for i in meta["rerun_missing"]]
        lines += [f"- equivalent since: `{i}`" for i in meta["rerun_now_equivalent"]]
        if meta["rerun_missing"] or meta["rerun_now_equivalent"]:
            lines.append("")
    per = summary["seconds_by_status"]
    if per:
        lines += ["| status (mutants run) | count | mean s | median s | max s |", "|---|---|---|---|---|"]
        lines += [f"| {s} | {v['count']} | {v['mean']} | {v['median']} | {v['max']} |"
                  for s, v in per.items()]
        lines.append("")
    lines += [*_table(results, "operator"), "", *_table(results, "module"), ""]
    sections = (("survived", True, "Survivors"),
                ("survived", False, "Survivors in code that no claim executes (not run)"),
                ("timeout", True, "Timed out (not killed by a check)"),
                ("error", True, "Broke the code before any claim finished"))
    for status, executed, title in sections:
        chosen = [r for r in results if r.status == status and r.executed == executed]
        if not chosen:
            continue
        lines += [f"## {title}", ""]
        for r in chosen:
            note = " (validation guard)" if r.mutant.guard else ""
            lines += [f"### `{r.mutant.id}`{note}", "",
                      f"line {r.mutant.line}, {r.seconds:.1f} s"
                      + (f"; claims run: {', '.join(f'`{c}`' for c in r.claims_run)}" if r.claims_run else "")
                      + (f"; {r.detail}" if r.detail and status != "error" and r.executed else ""), "",
                      "```diff", r.diff.rstrip(), "```", ""]
            if status == "error" and r.detail:
                lines += ["```", r.detail, "```", ""]
    killed = [r for r in results if r.status == "killed"]
    if killed:
        lines += ["## Killed", "", "| mutant | by claim | verdict | s |", "|---|---|---|---|"]
        lines += [f"| `{r.mutant.id}` | `{r.killed_by}` | {r.verdict} | "
                  + ("carried |" if r.carried else f"{r.seconds:.1f} |") for r in killed]
        lines.append("")
    if meta.get("stale_equivalent"):
        lines += ["## Stale equivalence entries (no such mutant any more)", ""]
        lines += [f"- `{i}`" for i in meta["stale_equivalent"]] + [""]
    (out / "mutation.md").write_text("\n".join(lines))


# -- command line ------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m verification mutate",
        description="Plant generated bugs in a paper's implementing modules and report which ones "
                    "the paper's quick claims notice.")
    parser.add_argument("--paper", required=True, metavar="KEY", help="the paper key")
    parser.add_argument("--module", nargs="+", metavar="NAME",
                        help="mutate these modules instead of the paper's `modules`")
    parser.add_argument("--operators", nargs="+", choices=OPERATORS, default=list(OPERATORS),
                        help="operator classes (default: all)")
    parser.add_argument("--max-mutants", type=int, metavar="N", help="run a seeded sample of N mutants")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run in parallel (default 1)")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="per-mutant budget in seconds (default: 3 x the baseline, at least 30)")
    parser.add_argument("--out", type=Path, help="output folder (default reports/mutation/KEY)")
    parser.add_argument("--equivalent", type=Path, metavar="TOML",
                        help="equivalent-mutant file (default paper_notes/KEY.equivalent.toml)")
    parser.add_argument("--run-all", action="store_true",
                        help="run every claim on every mutant (default: only the claims that execute "
                             "the patched statement on the unmutated code; none: survived, not run)")
    parser.add_argument("--rerun", type=Path, metavar="REPORT",
                        help="run the mutants of an earlier mutation.json instead of a new sample")
    parser.add_argument("--survivors-only", action="store_true",
                        help="with --rerun: run only its survivors and timeouts, carry its kills over")
    parser.add_argument("--list", action="store_true", help="list the mutants (after sampling) and exit")
    parser.add_argument("--no-progress", action="store_true", help="no per-mutant progress output")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.max_mutants is not None and args.max_mutants < 1:
        print(f"error: --max-mutants must be >= 1, got {args.max_mutants}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"error: --jobs must be >= 1, got {args.jobs}", file=sys.stderr)
        return 2
    if args.timeout is not None and args.timeout <= 0:
        print(f"error: --timeout must be > 0 seconds, got {args.timeout}", file=sys.stderr)
        return 2
    if args.survivors_only and args.rerun is None:
        print("error: --survivors-only needs --rerun REPORT.json", file=sys.stderr)
        return 2
    if args.rerun is not None and args.max_mutants is not None:
        print("error: --rerun runs the report's own sample; drop --max-mutants", file=sys.stderr)
        return 2
    try:
        target = paper_target(args.paper, args.module)
        equivalent_path = args.equivalent or ROOT / "paper_notes" / f"{args.paper}.equivalent.toml"
        equivalent = load_equivalent(equivalent_path)
        if args.list:
            return _list(target, equivalent, args)
        return run_target(target, args, equivalent, equivalent_path)
    except MutationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _chosen(mutants: list[Mutant], equivalent: dict[str, str], args: argparse.Namespace,
            paper: str) -> tuple[list[Mutant], Rerun | None]:
    """The mutants to run: a seeded sample, or an earlier report's (``--rerun``)."""
    if args.rerun is None:
        return sample(mutants, equivalent, args.max_mutants, args.seed), None
    rerun = load_rerun(args.rerun, paper, mutants, equivalent, args.survivors_only)
    return rerun.to_run, rerun


def _list(target: Target, equivalent: dict[str, str], args: argparse.Namespace) -> int:
    mutants, _ = generate(target, operators=tuple(args.operators))
    chosen, _ = _chosen(mutants, equivalent, args, target.name)
    for m in chosen:
        print(f"{m.path}:{m.line}:{m.col + 1}  {m.id}" + ("  [guard]" if m.guard else ""))
    print(f"{len(chosen)} of {len(mutants)} mutants ({sum(m.id in equivalent for m in mutants)} "
          "recorded equivalent)")
    return 0


def run_target(target: Target, args: argparse.Namespace, equivalent: dict[str, str],
               equivalent_path: Path | None = None) -> int:
    """Baseline, mutants, reports for ``target`` under the parsed command-line ``args``;
    returns the exit status (130 when interrupted: the report covers the finished mutants)."""
    started = time.time()
    out = args.out or Path("reports") / "mutation" / target.name
    scratch_root = Path(tempfile.mkdtemp(prefix=f"mutation-{target.name}-"))
    restore = _trap_termination()
    try:
        pristine = snapshot(target, scratch_root)
        mutants, sources = generate(target, pristine, tuple(args.operators))
        chosen, rerun = _chosen(mutants, equivalent, args, target.name)
        ids = {m.id for m in mutants}
        progress = not args.no_progress
        if progress:
            print(f"{len(mutants)} mutants, {len(chosen)} to run; baseline first ...", file=sys.stderr)
        baseline = run_baseline(target, pristine, scratch_root, trace=not args.run_all, jobs=args.jobs)
        budget = args.timeout or default_timeout(baseline)
        if progress:
            print(f"baseline: {len(baseline.claims)} claims as expected in {baseline.seconds:.1f} s; "
                  f"per-mutant budget {budget:.0f} s", file=sys.stderr)
        results, interrupted = run_mutation(target, chosen, sources, pristine, scratch_root, baseline,
                                            jobs=args.jobs, timeout=budget, progress=progress)
        if rerun is not None:  # the report's order, carried kills in their places
            order = {mutant_id: i for i, mutant_id in enumerate(rerun.order)}
            results = sorted(results + rerun.carried, key=lambda r: order[r.mutant.id])
    except KeyboardInterrupt:
        print("interrupted before any mutant ran; no report written", file=sys.stderr)
        return 130
    finally:
        restore()
        shutil.rmtree(scratch_root, ignore_errors=True)
    meta = {"paper": target.name, "modules": sorted(target.modules), "operators": args.operators,
            "seed": args.seed if rerun is None else rerun.seed,
            "max_mutants": args.max_mutants, "jobs": args.jobs,
            "timeout_s": budget, "generated": len(mutants),
            "equivalent": sum(m.id in equivalent for m in mutants),
            "sampled": len(chosen) + (0 if rerun is None else len(rerun.carried)),
            "equivalent_file": str(equivalent_path) if equivalent_path else None,
            "stale_equivalent": sorted(set(equivalent) - ids),
            "baseline": {"seconds": baseline.seconds, "claims": baseline.claims},
            "interrupted": interrupted, "wall_seconds": round(time.time() - started, 1),
            "carried": 0 if rerun is None else len(rerun.carried)}
    if rerun is not None:
        meta.update(rerun_of=str(args.rerun), survivors_only=args.survivors_only,
                    rerun_missing=rerun.missing, rerun_now_equivalent=rerun.now_equivalent)
    write_reports(out, meta, results)
    summary = summarize(results)
    for r in results:
        if r.status in ("survived", "timeout"):
            print(f"{r.status.upper():>9}  {r.mutant.id}  ({r.mutant.path}:{r.mutant.line})")
    score = "n/a" if summary["score"] is None else f"{summary['score']:.0%}"
    print(f"{target.name}: score {score}: killed {summary['killed']}, error {summary['error']}, "
          f"timeout {summary['timeout']}, survived {summary['survived']} of {summary['sampled']}"
          + (f" ({summary['carried']} kills carried over, not re-run)" if summary["carried"] else ""))
    print(f"reports: {out / 'mutation.md'}, {out / 'mutation.json'}")
    return 130 if interrupted else 0


def _trap_termination() -> Callable[[], None]:
    """Turn SIGTERM/SIGHUP into KeyboardInterrupt while a run lasts, so that a terminated run
    still kills its workers and removes its scratch copies; returns the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        # one interruption is enough: a repeated signal (timeout's, a second kill) must not
        # escape the clean-up that writes the finished mutants' report
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore


# -- the worker: runs inside a scratch copy --------------------------------------------------------
def _load_claims(spec: str) -> list:
    import importlib

    kind, _, name = spec.partition(":")
    if kind == "paper":
        from theorems.core import REGISTRY

        importlib.import_module(f"theorems.{name}")
        return [REGISTRY[k] for k in sorted(REGISTRY) if REGISTRY[k].paper == name]
    if kind == "module":
        return list(importlib.import_module(name).CLAIMS)
    raise MutationError(f"claims spec must be 'paper:KEY' or 'module:NAME', got {spec!r}")


@dataclass
class _LineTrace:
    hits: dict[str, set[int]]
    tracer: Callable

    def reset(self) -> None:
        for lines in self.hits.values():
            lines.clear()

    def relative_to(self, root: Path) -> dict[str, list[int]]:
        return {Path(f).resolve().relative_to(root).as_posix(): sorted(lines)
                for f, lines in self.hits.items()}


def _trace_lines(files: set[str]) -> _LineTrace:
    """Record the lines executed in ``files`` from now on (this thread and new ones); other
    files are not traced line by line, which keeps the overhead to one call per function."""
    hits: dict[str, set[int]] = {f: set() for f in files}

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            hits[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def on_call(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename in hits else None

    sys.settrace(on_call)
    threading.settrace(on_call)
    return _LineTrace(hits, on_call)


def _guard_worker(deadline_s: float | None) -> None:
    """Bound a worker even if its parent is gone (killed without cleanup): exit when the parent
    dies or the deadline passes, and cap the files it writes (a mutant may print in a loop)."""
    import resource

    cap = _WORKER_FILE_CAP_BYTES
    resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    parent, started = os.getppid(), time.monotonic()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            late = deadline_s is not None and time.monotonic() - started > deadline_s
            if late or os.getppid() != parent:
                os._exit(124)

    threading.Thread(target=watch, daemon=True).start()


def _worker_main(spec_path: str) -> int:
    """Import the (mutated) modules from the scratch copy, then run the claims one by one,
    appending one JSON line per event so that a killed worker still leaves what it found."""
    import importlib

    spec = json.loads(Path(spec_path).read_text())
    root = Path(spec["root"]).resolve()
    _guard_worker(spec.get("deadline_s"))
    with open(spec["events"], "a", buffering=1) as events:
        def emit(**event: Any) -> None:
            events.write(json.dumps(event) + "\n")

        imported = {m: importlib.import_module(m).__file__ for m in spec["modules"]}
        files = {m: str(Path(f).resolve()) for m, f in imported.items()}
        outside = {m: f for m, f in files.items() if not Path(f).is_relative_to(root)}
        if outside:
            emit(event="shadowed", files=outside)
            return _SHADOWED_EXIT
        from verification.runner import run_claim

        claims = _load_claims(spec["claims"])
        if spec["only"] is not None:  # these claims, in this order
            by_id = {c.id: c for c in claims}
            claims = [by_id[cid] for cid in spec["only"]]
        emit(event="ready", files=files, claims=[c.id for c in claims])
        trace = _trace_lines(set(imported.values())) if spec.get("trace") else None
        for claim in claims:
            emit(event="start", id=claim.id)
            if trace is not None:
                trace.reset()
            result = run_claim(claim, seed=0, profile="quick", out_dir=Path(spec["out"]))
            emit(event="claim", id=claim.id, verdict=result.verdict, expected=claim.expected_verdict,
                 seconds=result.seconds, reason=result.reason[:500])
            if trace is not None and sys.gettrace() is trace.tracer:  # else a library replaced it
                emit(event="lines", id=claim.id, lines=trace.relative_to(root))
            if spec["stop_at_kill"] and result.verdict != claim.expected_verdict:
                break
        if trace is not None:
            sys.settrace(None)
            threading.settrace(None)
        emit(event="done")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == _WORKER_FLAG:
        sys.exit(_worker_main(sys.argv[2]))
    sys.exit(main(sys.argv[1:]))
