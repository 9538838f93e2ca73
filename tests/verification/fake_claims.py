"""Claims with known verdicts (not registered) to test the runner itself."""

import time
from functools import partial

from theorems.core import Claim, Kind, Outcome


def _outcome(ctx, *, status, sleep=0.0, raise_=False, burn=0.0):
    if sleep:
        time.sleep(sleep)
    started = time.process_time()
    while time.process_time() - started < burn:  # CPU-bound work of a known CPU time
        sum(range(1000))
    if raise_:
        raise RuntimeError("boom")
    rng = ctx.rng("fake")
    return Outcome(status, f"{ctx.role} {status}", {"draw": float(rng.random())})


def make(name: str, check: str, control: str, **kw) -> Claim:
    return Claim(
        id=f"dqp.fake_{name}", paper="dqp", source="test", statement="fake", kind=Kind.NUMERIC,
        check=partial(_outcome, status=check, **kw.pop("check_kw", {})),
        control=partial(_outcome, status=control, **kw.pop("control_kw", {})),
        control_description="fake", **kw)


VERIFIED = make("verified", "pass", "fail")
FALSIFIED = make("falsified", "fail", "fail")
VACUOUS = make("vacuous", "pass", "pass")
INCONCLUSIVE = make("inconclusive", "undecided", "fail")
CONTROL_UNDECIDED = make("control_undecided", "pass", "undecided")
ERROR = make("error", "pass", "fail", check_kw={"raise_": True})
SLOW = make("slow", "pass", "fail", check_kw={"sleep": 30.0}, budget_s=1.0)  # a hang: no CPU used
BUSY = make("busy", "pass", "fail", check_kw={"burn": 30.0}, budget_s=0.5)  # computes past its budget
#: about 0.6 s of CPU under a budget of 1 s (times the worker's threads): beside CPU hogs its wall
#: time is several times its budget, and it must still be verified
CHEAP = make("cheap", "pass", "fail", check_kw={"burn": 0.6}, budget_s=1.0)
EXPECTED = {
    VERIFIED.id: "verified", FALSIFIED.id: "falsified", VACUOUS.id: "vacuous",
    INCONCLUSIVE.id: "inconclusive", CONTROL_UNDECIDED.id: "inconclusive", ERROR.id: "error",
}
