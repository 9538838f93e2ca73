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
over budget        ``error`` (the claim was stopped)
=================  ===================================================

Claims run in worker processes (``jobs`` of them) so that one slow claim is
stopped at its time budget without hanging the run; ``jobs=0`` runs them in
this process (no budget), which is what the tests use.
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from theorems.core import REGISTRY, Claim, Context, Outcome, load_all

VERDICTS = ("verified", "falsified", "vacuous", "inconclusive", "error")
BAD_VERDICTS = frozenset({"falsified", "vacuous", "error"})


@dataclass
class ClaimResult:
    id: str
    paper: str
    kind: str
    source: str
    statement: str
    control_description: str
    verdict: str
    reason: str
    seed: int
    check: dict[str, Any] | None = None
    control: dict[str, Any] | None = None
    error: str | None = None
    seconds: float = 0.0
    artifacts: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


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
              out_dir: Path | None = None) -> ClaimResult:
    """Run one claim's check and (if the check passed) its control, in this process."""
    cseed = claim_seed(seed, claim.id)
    base = dict(id=claim.id, paper=claim.paper, kind=str(claim.kind), source=claim.source,
                statement=claim.statement, control_description=claim.control_description,
                seed=cseed)
    start = time.perf_counter()
    check = control = None
    try:
        check = claim.check(Context(seed=cseed, profile=profile, out_dir=out_dir, role="check"))
        if check.status == "pass":
            control = claim.control(
                Context(seed=cseed, profile=profile, out_dir=out_dir, role="control"))
        verdict, reason = combine(check, control)
        error = None
    except Exception as exc:  # reported, never swallowed
        verdict, reason = "error", f"{type(exc).__name__}: {exc}"
        error = traceback.format_exc()
    artifacts = [a for o in (check, control) if o is not None for a in o.artifacts]
    return ClaimResult(
        **base, verdict=verdict, reason=reason,
        check=check.as_dict() if check else None,
        control=control.as_dict() if control else None,
        error=error, seconds=round(time.perf_counter() - start, 3), artifacts=artifacts,
    )


def _run_claim_task(claim: Claim, seed: int, profile: str, out_dir: str | None) -> dict:
    """Entry point for worker processes and Dask workers (the claim travels pickled, so
    claims defined outside ``theorems`` run the same way as registered ones)."""
    result = run_claim(claim, seed=seed, profile=profile,
                       out_dir=Path(out_dir) if out_dir else None)
    return result.as_dict()


def _timeout_result(claim: Claim, seed: int, budget: float) -> ClaimResult:
    return ClaimResult(
        id=claim.id, paper=claim.paper, kind=str(claim.kind), source=claim.source,
        statement=claim.statement, control_description=claim.control_description,
        verdict="error", reason=f"stopped: exceeded its time budget of {budget:.0f} s",
        seed=claim_seed(seed, claim.id), seconds=budget,
    )


def _worker_loop(conn) -> None:
    while True:
        task = conn.recv()
        if task is None:
            return
        conn.send(_run_claim_task(*task))


class _Worker:
    def __init__(self, ctx) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_loop, args=(child,), daemon=True)
        self.process.start()
        self.claim: Claim | None = None
        self.started = 0.0

    def submit(self, claim: Claim, args: tuple) -> None:
        self.claim, self.started = claim, time.perf_counter()
        self.conn.send(args)

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=2)
        if self.process.is_alive():
            self.process.kill()


def _run_local(claims: list[Claim], seed: int, profile: str, out: str | None, jobs: int,
               on_result: Callable[[ClaimResult], None]) -> None:
    ctx = mp.get_context("spawn")  # fresh interpreters: torch and BLAS threads do not fork well
    pending = list(claims)
    workers = [_Worker(ctx) for _ in range(min(jobs, len(claims)))]
    try:
        while pending or any(w.claim for w in workers):
            for i, worker in enumerate(workers):
                if worker.claim is None and pending:
                    claim = pending.pop(0)
                    worker.submit(claim, (claim, seed, profile, out))
                if worker.claim is None:
                    continue
                budget = worker.claim.budget(profile)
                if worker.conn.poll(0.05):
                    on_result(ClaimResult(**worker.conn.recv()))
                    worker.claim = None
                elif not worker.process.is_alive():
                    on_result(_crash_result(worker.claim, seed))
                    workers[i] = _Worker(ctx)
                elif time.perf_counter() - worker.started > budget:
                    on_result(_timeout_result(worker.claim, seed, budget))
                    worker.process.kill()
                    workers[i] = _Worker(ctx)
    finally:
        for worker in workers:
            worker.stop()


def _crash_result(claim: Claim, seed: int) -> ClaimResult:
    result = _timeout_result(claim, seed, 0.0)
    result.reason = "the worker process died while running this claim"
    return result


def _run_dask(claims: list[Claim], seed: int, profile: str, out: str | None, address: str,
              on_result: Callable[[ClaimResult], None]) -> None:
    from distributed import Client, as_completed

    with Client(address) as client:
        futures = {
            client.submit(_run_claim_task, c, seed, profile, out, pure=False, key=f"claim-{c.id}"): c
            for c in claims
        }
        # Dask cannot kill a running task: the budget bounds the wait, and what is
        # still running at the deadline is cancelled and reported as over budget.
        deadline = time.perf_counter() + sum(c.budget(profile) for c in claims)
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
    out_dir: Path | None = None,
    jobs: int = 1,
    dask_address: str | None = None,
    progress: bool = True,
) -> list[ClaimResult]:
    """Run every claim; results come back sorted by claim id (deterministic order)."""
    claims = list(claims)
    results: list[ClaimResult] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(claims), desc="claims", unit="claim")

    def on_result(result: ClaimResult) -> None:
        results.append(result)
        if bar is not None:
            bar.set_postfix_str(f"{result.id}: {result.verdict}")
            bar.update(1)

    out = str(out_dir) if out_dir else None
    try:
        if dask_address:
            _run_dask(claims, seed, profile, out, dask_address, on_result)
        elif jobs <= 0:
            for claim in claims:
                on_result(run_claim(claim, seed=seed, profile=profile, out_dir=out_dir))
        else:
            _run_local(claims, seed, profile, out, jobs, on_result)
    finally:
        if bar is not None:
            bar.close()
    return sorted(results, key=lambda r: r.id)


def select_claims(papers: list[str] | None = None, ids: list[str] | None = None) -> list[Claim]:
    """Registered claims filtered by paper keys and/or claim ids (unknown names raise)."""
    from theorems.papers import PAPERS

    registry = load_all()
    for key in papers or []:
        if key not in PAPERS:
            raise ValueError(f"unknown paper key {key!r}; known: {', '.join(PAPERS)}")
    for cid in ids or []:
        if cid not in registry:
            raise ValueError(f"unknown claim id {cid!r}; see `python -m verification --list`")
    chosen = [REGISTRY[k] for k in sorted(registry)]
    if papers:
        chosen = [c for c in chosen if c.paper in papers]
    if ids:
        chosen = [c for c in chosen if c.id in ids]
    return chosen
