"""Run claims and their controls; turn the two outcomes into a verdict.

=================  ===================================================
check \\ control    verdict
=================  ===================================================
fail               ``falsified`` (the counterexample is the evidence)
undecided          ``inconclusive``
pass, ctrl fail    ``verified``
pass, ctrl pass    ``vacuous`` (the check cannot tell right from wrong)
pass, ctrl undec.  ``inconclusive`` (the control was not rejected)
exception          ``error`` (traceback in the report)
over budget        ``error`` (the claim was stopped: CPU time past its budget)
=================  ===================================================

A ``verified`` claim with a :class:`~theorems.core.certificates.Certificate` then has it
rechecked (:func:`~theorems.core.certificates.run_certificate`): ``certified`` when the
proof's artifact is rechecked, the certificate's control is refuted by a rechecked witness
and a corrupted artifact is rejected; ``falsified`` when the producer found the statement
false; otherwise it stays ``verified`` and ``certificate["status"]`` says why.

``run_claims(claims)`` runs them in this process by default (``jobs=0``: no
time budget), which works the same from a script, a notebook or a test.
``jobs=N`` runs them in N fresh worker interpreters (``python -m
verification._worker``) so that a claim past its CPU-time budget is stopped
without hanging the run (CPU time, so that a busy machine does not change a
verdict; a wall-clock backstop stops a hang); claims travel to them by value (cloudpickle), so
claims defined in a script or a notebook need no ``if __name__ == "__main__"``
guard. ``dask_address`` sends them to a Dask cluster instead.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
import traceback
import warnings
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from theorems.core import REGISTRY, Claim, Context, Outcome, load_all, load_papers
from theorems.core.certificates import run_certificate
from theorems.core.subjects import SUBJECTS, load_object, parse_spec
from verification import _worker

VERDICTS = ("certified", "verified", "falsified", "vacuous", "inconclusive", "error")
BAD_VERDICTS = frozenset({"falsified", "vacuous", "error"})


@dataclass
class ClaimResult:
    id: str
    paper: str | None
    kind: str
    source: str
    statement: str
    control_description: str
    verdict: str
    reason: str
    seed: int
    origin: str | None = None
    covers: list[str] = field(default_factory=list)
    deviation: str = ""
    expected_verdict: str = "verified"
    #: the claim's power statement (claims pinned inconclusive: what would decide them)
    power: str = ""
    check: dict[str, Any] | None = None
    control: dict[str, Any] | None = None
    error: str | None = None
    seconds: float = 0.0
    #: CPU seconds of check + control in the process that ran them (every thread)
    cpu_seconds: float = 0.0
    artifacts: list[str] = field(default_factory=list)
    #: the certificate's record (:func:`theorems.core.certificates.run_certificate`), if any
    certificate: dict[str, Any] | None = None
    #: subject name -> ``module:object`` the check exercised in place of ours (empty: ours)
    implementations: dict[str, str] = field(default_factory=dict)
    #: the warnings that check, control and certificate raised ("Category: message (file:line) xN"), so
    #: the report keeps them with the claim instead of the console interleaving them with other claims
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _identity(claim: Claim, seed: int) -> dict[str, Any]:
    """The fields of a result that come from the claim itself."""
    return dict(id=claim.id, paper=claim.paper, kind=str(claim.kind), source=claim.source,
                statement=claim.statement, control_description=claim.control_description,
                seed=claim_seed(seed, claim.id),
                origin=str(claim.origin) if claim.origin is not None else None,
                covers=list(claim.covers), deviation=claim.deviation,
                expected_verdict=claim.expected_verdict, power=claim.power)


def claim_seed(seed: int, claim_id: str) -> int:
    """The seed a claim runs under: the run seed mixed with a stable hash of the id."""
    return (seed * 1_000_003 + zlib.crc32(claim_id.encode())) % 2**32


def combine(check: Outcome, control: Outcome | None) -> tuple[str, str]:
    """Verdict and one-line reason from the check's and the control's outcomes."""
    if check.status == "fail":
        return "falsified", check.summary
    if check.status == "undecided":
        return "inconclusive", check.summary
    assert control is not None
    if control.status == "fail":
        return "verified", f"{check.summary}; control rejected: {control.summary}"
    if control.status == "pass":
        return "vacuous", f"control was NOT rejected: {control.summary}"
    return "inconclusive", f"check passed but the control was undecided: {control.summary}"


def run_claim(claim: Claim, *, seed: int = 0, profile: str = "quick",
              out_dir: Path | None = None, implementations: dict[str, str] | None = None) -> ClaimResult:
    """Run one claim's check and (if the check passed) its control, in this process.

    ``implementations`` ({subject name: ``module:object``}) replaces our implementation of
    those of the claim's subjects in its check (the control keeps ours)."""
    base = _identity(claim, seed)
    cseed = base["seed"]
    used = {name: spec for name, spec in (implementations or {}).items() if name in claim.subjects}
    start, cpu_start = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # each distinct warning once per place, as Python shows them
        verdict, reason, check, control, certificate, error = _check_and_control(claim, cseed, profile,
                                                                                 out_dir, used)
    artifacts = [a for o in (check, control) if o is not None for a in o.artifacts]
    return ClaimResult(
        **base, verdict=verdict, reason=reason,
        check=check.as_dict() if check else None,
        control=control.as_dict() if control else None,
        error=error, seconds=round(time.perf_counter() - start, 3),
        cpu_seconds=round(time.process_time() - cpu_start, 3), artifacts=artifacts,
        certificate=certificate, implementations=used, warnings=summarize_warnings(caught),
    )


def summarize_warnings(caught: list[warnings.WarningMessage], limit: int = 20) -> list[str]:
    """One line per distinct warning, first line of its message, with where and how often."""
    counts: dict[str, int] = {}
    for w in caught:
        first = str(w.message).strip().splitlines()[0] if str(w.message).strip() else ""
        key = f"{w.category.__name__}: {first[:300]} ({Path(w.filename).name}:{w.lineno})"
        counts[key] = counts.get(key, 0) + 1
    lines = [key + (f" x{n}" if n > 1 else "") for key, n in counts.items()]
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more distinct warnings"]
    return lines


def _check_and_control(claim: Claim, cseed: int, profile: str, out_dir: Path | None,
                       used: dict[str, str]) -> tuple:
    check = control = certificate = None
    try:
        check = _outcome(claim.check(Context(seed=cseed, profile=profile, out_dir=out_dir, role="check",
                                             implementations=tuple(sorted(used.items())))),
                         claim, "check")
        if check.status == "pass":
            control = _outcome(claim.control(
                Context(seed=cseed, profile=profile, out_dir=out_dir, role="control")), claim, "control")
        verdict, reason = combine(check, control)
        if verdict == "verified" and claim.certificate is not None and not used:
            certificate = run_certificate(claim.id, claim.certificate, profile=profile, seed=cseed)
            verdict, reason = with_certificate(reason, certificate)
        error = None
    except Exception as exc:  # reported, never swallowed
        verdict, reason = "error", f"{type(exc).__name__}: {exc}"
        error = traceback.format_exc()
    return verdict, reason, check, control, certificate, error


def with_certificate(reason: str, certificate: dict[str, Any]) -> tuple[str, str]:
    """A verified claim's verdict once its certificate ran (see the module docstring)."""
    status, summary = certificate["status"], certificate["summary"]
    if status == "certified":
        return "certified", f"certified ({certificate['method']}, {certificate['scope']}): {summary}"
    if status == "refuted":
        return "falsified", f"certificate: {summary}"
    return "verified", f"{reason}; certificate {status}: {summary}"


def _outcome(value: Any, claim: Claim, role: str) -> Outcome:
    """``value`` if it is an Outcome; otherwise a TypeError that the run reports as ``error``."""
    if not isinstance(value, Outcome):
        raise TypeError(f"{claim.id}: its {role} must return a theorems.core.Outcome(status, summary, "
                        f"evidence, artifacts), got {type(value).__name__} {value!r:.80}")
    return value


def _run_claim_task(claim: Claim, seed: int, profile: str, out_dir: str | None,
                    implementations: dict[str, str] | None = None) -> dict:
    """Entry point for worker processes and Dask workers (the claim travels pickled, so
    claims defined outside ``theorems`` run the same way as registered ones)."""
    result = run_claim(claim, seed=seed, profile=profile,
                       out_dir=Path(out_dir) if out_dir else None, implementations=implementations)
    return result.as_dict()


def _timeout_result(claim: Claim, seed: int, budget: float, reason: str | None = None,
                    seconds: float | None = None) -> ClaimResult:
    return ClaimResult(**_identity(claim, seed), verdict="error",
                       reason=reason or f"stopped: exceeded its time budget of {budget:.0f} s",
                       seconds=round(budget if seconds is None else seconds, 3))


#: a worker's claim is stopped past ``WALL_BACKSTOP`` times its budget (at least ``WALL_BACKSTOP_MIN_S``)
#: of wall-clock time even when it uses no CPU (a hang, a deadlock); generous, so that a busy machine
#: (load 20 on 2 cores: each process gets a tenth of a core) does not trigger it
WALL_BACKSTOP = 10.0
WALL_BACKSTOP_MIN_S = 120.0
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system, every thread, plus children it waited for) used so far by process
    ``pid``; None where neither ``/proc`` nor psutil can tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / _CLOCK_TICKS  # utime stime cutime cstime
    except (OSError, IndexError, ValueError):
        pass
    try:
        import psutil

        times = psutil.Process(pid).cpu_times()
        return times.user + times.system + times.children_user + times.children_system
    except Exception:  # no psutil, or the process is gone
        return None


_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


class _Worker:
    """One worker interpreter; a reader thread turns its replies into queue items."""

    def __init__(self, replies: queue.Queue, threads: int) -> None:
        # N workers share the machine's cores: each gets cores/N BLAS/OpenMP threads (unless the
        # user set them), since oversubscribed torch threads slow a claim several-fold
        env = {**os.environ, **{name: str(threads) for name in _THREAD_VARIABLES if name not in os.environ}}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "verification._worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        _worker.send(self.process.stdin, list(sys.path))
        self.claim: Claim | None = None
        self.started = 0.0
        self.cpu_start: float | None = None  # the worker's CPU seconds when the claim began
        self.threads = threads
        self._replies = replies
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                self._replies.put((self, _worker.receive(self.process.stdout)))
        except (EOFError, OSError, ValueError):
            self._replies.put((self, None))

    def submit(self, claim: Claim, args: tuple) -> None:
        self.claim, self.started, self.cpu_start = claim, time.perf_counter(), None
        _worker.send(self.process.stdin, args)

    def over_budget(self, budget: float) -> str | None:
        """Why the running claim must stop, or None. The budget is on the worker's CPU time since the
        claim began (after its module was imported), times the BLAS threads it was given, so a busy
        machine does not stop a claim; a wall-clock backstop of ``WALL_BACKSTOP`` x the budget
        (at least ``WALL_BACKSTOP_MIN_S``, from submission) stops a claim that hangs without computing."""
        wall = time.perf_counter() - self.started
        if wall > max(WALL_BACKSTOP * budget, WALL_BACKSTOP_MIN_S):
            return (f"stopped: no result after {wall:.0f} s of wall-clock time (the backstop: "
                    f"{WALL_BACKSTOP:g} x its budget of {budget:.0f} s, at least "
                    f"{WALL_BACKSTOP_MIN_S:.0f} s); hung?")
        if self.cpu_start is None:
            return None
        used = process_cpu_seconds(self.process.pid)
        if used is None:  # no way to read CPU time here: the budget applies to wall-clock time
            return f"stopped: exceeded its time budget of {budget:.0f} s" if wall > budget else None
        allowed = budget * self.threads
        if used - self.cpu_start > allowed:
            return (f"stopped: used {used - self.cpu_start:.0f} s of CPU time, past its budget of "
                    f"{allowed:.0f} s ({budget:.0f} s x {self.threads} thread(s)); wall {wall:.0f} s")
        return None

    def stop(self, kill: bool = False) -> None:
        if not kill:
            try:
                _worker.send(self.process.stdin, None)
                self.process.wait(timeout=2)
            except (BrokenPipeError, OSError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _run_local(claims: list[Claim], seed: int, profile: str, out: str | None, jobs: int,
               on_result: Callable[[ClaimResult], None], implementations: dict[str, str]) -> None:
    replies: queue.Queue = queue.Queue()
    pending = schedule(claims)
    threads = max(1, (os.cpu_count() or 1) // jobs)
    workers = [_Worker(replies, threads) for _ in range(min(jobs, len(claims)))]
    try:
        while pending or any(w.claim for w in workers):
            for worker in workers:
                if worker.claim is None and pending:
                    claim = pending.pop(0)
                    worker.submit(claim, (claim, seed, profile, out, implementations))
            try:
                worker, reply = replies.get(timeout=0.05)
            except queue.Empty:
                worker, reply = None, None
            if isinstance(reply, tuple) and reply[:1] == ("started",):
                worker.cpu_start = reply[1]  # the claim's module is imported: its budget starts
            elif worker is not None and worker in workers and worker.claim is not None:
                i = workers.index(worker)
                if reply is None:  # the interpreter died
                    on_result(_crash_result(worker.claim, seed))
                    worker.stop(kill=True)
                    workers[i] = _Worker(replies, threads)
                else:
                    on_result(ClaimResult(**reply))
                    worker.claim = None
            for i, worker in enumerate(workers):
                if worker.claim is None:
                    continue
                budget = worker.claim.budget(profile)
                why = worker.over_budget(budget)
                if why is not None:
                    on_result(_timeout_result(worker.claim, seed, budget, why,
                                              seconds=time.perf_counter() - worker.started))
                    worker.stop(kill=True)
                    workers[i] = _Worker(replies, threads)
    finally:
        for worker in workers:
            worker.stop()


def schedule(claims: Iterable[Claim]) -> list[Claim]:
    """The order workers take claims in: costliest first by ``Claim.cost_s`` (longest processing time
    first: the last claims to start are short, so the workers finish together), ties in the given order.

    >>> from theorems.core import Claim, Kind
    >>> make = lambda cid, cost: Claim(id=cid, paper=None, source="s", statement="s", kind=Kind.NUMERIC,
    ...                                check=print, control=print, control_description="d", cost_s=cost)
    >>> [c.id for c in schedule([make("a", 0.5), make("b", 9.0), make("c", 0.5), make("d", 2.0)])]
    ['b', 'd', 'a', 'c']
    """
    return sorted(claims, key=lambda claim: -claim.cost_s)


def _crash_result(claim: Claim, seed: int) -> ClaimResult:
    result = _timeout_result(claim, seed, 0.0)
    result.reason = "the worker process died while running this claim"
    return result


def _run_dask(claims: list[Claim], seed: int, profile: str, out: str | None, address: str,
              on_result: Callable[[ClaimResult], None], implementations: dict[str, str]) -> None:
    from distributed import Client, as_completed

    with Client(address) as client:
        futures = {
            client.submit(_run_claim_task, c, seed, profile, out, implementations, pure=False,
                          key=f"claim-{c.id}"): c
            for c in schedule(claims)
        }
        # Dask cannot kill a running task nor tell its CPU time: the wall-clock backstop of the
        # budgets bounds the wait, and what is still running then is cancelled as over budget.
        deadline = time.perf_counter() + max(WALL_BACKSTOP * sum(c.budget(profile) for c in claims),
                                             WALL_BACKSTOP_MIN_S)
        done: set[str] = set()
        try:
            for future in as_completed(futures, timeout=max(1.0, deadline - time.perf_counter())):
                on_result(ClaimResult(**future.result()))
                done.add(futures[future].id)
        except TimeoutError:
            pass
        for future, claim in futures.items():
            if claim.id not in done:
                future.cancel()
                on_result(_timeout_result(claim, seed, claim.budget(profile)))


def run_claims(
    claims: Iterable[Claim],
    *,
    seed: int = 0,
    profile: str = "quick",
    out_dir: Path | str | None = None,
    jobs: int = 0,
    dask_address: str | None = None,
    progress: bool = False,
    on_result: Callable[[ClaimResult], None] | None = None,
    report: bool = True,
    implementations: dict[str, str] | None = None,
) -> list[ClaimResult]:
    """Run every claim; results come back sorted by claim id (deterministic order).

    ``jobs=0`` (the default) runs them one after the other in this process, with no
    time budget; ``jobs=N`` in N worker interpreters, each claim stopped past its CPU-time
    budget, the costliest first (:func:`schedule`). ``on_result`` is called with each result as it
    arrives; ``progress`` shows a bar.
    With ``out_dir``, plots go to ``out_dir/plots`` and (``report=True``) the report the CLI
    writes goes there too (:func:`verification.report.write_report`: ``report.md``,
    ``report.json``, ``evidence/<paper>.md``).
    ``implementations`` ({subject name: ``module:object``}, e.g. ``{"Muon": "torch.optim:Muon"}``)
    runs each claim's check against those implementations of its subjects instead of ours
    (:mod:`theorems.core.subjects`); the controls keep ours.

    >>> from theorems.core import Claim, Kind, Origin, Outcome
    >>> claim = Claim(id="square_nonneg", paper=None, source="ours", origin=Origin.IMPLEMENTATION,
    ...               statement="x*x >= 0 on a grid", kind=Kind.NUMERIC,
    ...               check=lambda ctx: Outcome("pass", "min 0.0"),
    ...               control=lambda ctx: Outcome("fail", "x**3 < 0 at -1"),
    ...               control_description="x**3 in place of x*x")
    >>> [(r.id, r.verdict) for r in run_claims([claim])]
    [('square_nonneg', 'verified')]
    """
    claims = list(claims)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise ValueError(f"jobs must be an int >= 0 (0 runs in this process), got {jobs!r}")
    for claim in claims:
        if not isinstance(claim, Claim):
            raise TypeError(f"claims must be theorems.core.Claim objects, got {type(claim).__name__}")
    if out_dir is not None and not isinstance(out_dir, str | Path):
        raise TypeError(f"out_dir must be a path or None, got {out_dir!r}")
    out_dir = Path(out_dir) if out_dir is not None else None
    implementations = dict(implementations or {})
    for name, spec in implementations.items():
        load_object(parse_spec(f"{name}={spec}")[1])  # fail now, naming the spec, not in a worker
        if name not in SUBJECTS:
            raise ValueError(f"unknown subject {name!r}; known: {', '.join(sorted(SUBJECTS))}")
    results: list[ClaimResult] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(claims), desc="claims", unit="claim")
    user_callback = on_result

    def on_result(result: ClaimResult) -> None:
        results.append(result)
        if user_callback is not None:
            user_callback(result)
        if bar is not None:
            bar.set_postfix_str(f"{result.id}: {result.verdict}")
            bar.update(1)

    out = str(out_dir) if out_dir else None
    try:
        if dask_address:
            _run_dask(claims, seed, profile, out, dask_address, on_result, implementations)
        elif jobs == 0:
            for claim in claims:
                on_result(run_claim(claim, seed=seed, profile=profile, out_dir=out_dir,
                                    implementations=implementations))
        else:
            _run_local(claims, seed, profile, out, jobs, on_result, implementations)
    finally:
        if bar is not None:
            bar.close()
    results = sorted(results, key=lambda r: r.id)
    if out_dir is not None and report:
        from verification.report import write_report

        write_report(results, out_dir, {"profile": profile, "seed": seed})
    return results


def select_claims(papers: list[str] | None = None, ids: list[str] | None = None) -> list[Claim]:
    """Registered claims filtered by paper keys and/or claim ids (unknown names raise); the
    registry holds the package's claims and those a user registered (``theorems.core.register``)."""
    from theorems.papers import PAPERS

    for key in papers or []:
        if key not in PAPERS:
            raise ValueError(f"unknown paper key {key!r}; known: {', '.join(PAPERS)}")
    if papers or ids:
        # import only the selected papers' modules (a claim id starts with its paper key): one
        # claim starts in about a second instead of importing every paper's dependencies
        load_papers([*(papers or []), *(cid.split(".")[0] for cid in ids or [])])
        if any(cid not in REGISTRY for cid in ids or []):
            load_all()  # e.g. a claim of no paper whose id starts with another word
    else:
        load_all()
    registry = REGISTRY
    for cid in ids or []:
        if cid not in registry:
            raise ValueError(f"unknown claim id {cid!r}; see `python -m verification --list`")
    chosen = [REGISTRY[k] for k in sorted(registry)]
    if papers:
        chosen = [c for c in chosen if c.paper in papers]
    if ids:
        chosen = [c for c in chosen if c.id in ids]
    return chosen
