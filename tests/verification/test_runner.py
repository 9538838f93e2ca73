import dataclasses
import json

import pytest

from tests.verification import fake_claims as fake
from theorems.core import Claim, Context, Kind, Origin, Outcome
from verification.report import coverage_by_paper, coverage_table, summary_table, write_json, write_markdown
from verification.runner import claim_seed, combine, run_claim, run_claims, select_claims

FAST = [fake.VERIFIED, fake.FALSIFIED, fake.VACUOUS, fake.INCONCLUSIVE, fake.CONTROL_UNDECIDED,
        fake.ERROR]


@pytest.mark.parametrize("claim", FAST, ids=lambda c: c.id)
def test_verdict_table_in_process(claim):
    result = run_claim(claim, seed=0)
    assert result.verdict == fake.EXPECTED[claim.id]
    if result.verdict == "error":
        assert "RuntimeError: boom" in result.error


def test_control_not_run_when_check_fails():
    result = run_claim(fake.FALSIFIED)
    assert result.control is None


def test_combine_rejects_nothing_silently():
    ok, bad = Outcome("pass", "ok"), Outcome("fail", "bad")
    assert combine(ok, bad)[0] == "verified"
    assert combine(ok, ok)[0] == "vacuous"


def test_same_seed_same_evidence_and_claim_seeds_differ():
    first = run_claim(fake.VERIFIED, seed=5)
    second = run_claim(fake.VERIFIED, seed=5)
    assert first.check == second.check and first.control == second.control
    assert run_claim(fake.VERIFIED, seed=6).check != first.check
    assert claim_seed(0, "a.x") != claim_seed(0, "a.y")


def test_worker_pool_matches_in_process_and_enforces_budget(monkeypatch):
    from verification import runner

    # SLOW hangs: the backstop (100 x its 0.1 s budget) stops it at 10 s. BUSY computes: its 0.5 s of
    # CPU must run out long before its own backstop (50 s), even on a machine so loaded that the
    # worker gets a tenth of a core and its import takes seconds
    monkeypatch.setattr(runner, "WALL_BACKSTOP_MIN_S", 0.0)
    monkeypatch.setattr(runner, "WALL_BACKSTOP", 100.0)
    hang = dataclasses.replace(fake.SLOW, budget_s=0.1)
    results = run_claims([*FAST, hang, fake.BUSY], jobs=2, progress=False)
    verdicts = {r.id: r.verdict for r in results}
    for claim in FAST:
        assert verdicts[claim.id] == fake.EXPECTED[claim.id]
    assert verdicts[fake.SLOW.id] == "error" and verdicts[fake.BUSY.id] == "error"
    slow, busy = (next(r for r in results if r.id == c.id) for c in (fake.SLOW, fake.BUSY))
    assert "wall-clock" in slow.reason and "hung" in slow.reason  # the backstop
    assert "of CPU time, past its budget" in busy.reason, busy.reason
    in_process = {r.id: r.check for r in run_claims(FAST, jobs=0, progress=False)}
    assert {r.id: r.check for r in results if r.id in in_process} == in_process


def test_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        results = run_claims(FAST, dask_address=cluster.scheduler_address, progress=False)
    assert {r.id: r.verdict for r in results} == {c.id: fake.EXPECTED[c.id] for c in FAST}


def test_reports_written(tmp_path):
    results = run_claims(FAST, jobs=0, progress=False)
    meta = {"profile": "quick", "seed": 0}
    write_json(results, tmp_path / "report.json", meta)
    write_markdown(results, tmp_path / "report.md", meta)
    payload = json.loads((tmp_path / "report.json").read_text())
    assert payload["meta"]["versions"]["numpy"]
    assert {r["id"] for r in payload["results"]} == {c.id for c in FAST}
    markdown = (tmp_path / "report.md").read_text()
    assert "**vacuous**" in markdown
    # every verdict is defined, each claim has its statement, control and a link to its whole evidence
    for verdict in ("verified", "falsified", "vacuous", "inconclusive", "error"):
        assert f"| **{verdict}** |" in markdown
    assert "- **Statement.** fake" in markdown and "- **Control** (what it sabotages): fake" in markdown
    assert "(evidence/dqp.md#dqp-fake_verified)" in markdown
    assert "paper_notes/dqp.md" in markdown  # the paper's note
    evidence = (tmp_path / "evidence" / "dqp.md").read_text()
    assert '<a id="dqp-fake_error"></a>' in evidence and "RuntimeError: boom" in evidence
    assert '"draw":' in evidence  # the whole evidence, not a cut summary
    table = summary_table(results)
    assert table.splitlines()[-1].split()[1:] == ["0", "1", "1", "1", "2", "1", "1/6"]


def test_coverage_counts_only_the_claims_that_ran():
    one = run_claims(select_claims(ids=["lcd.monotone"]), jobs=0)  # covers Lemma B.2 only
    cov = coverage_by_paper(one)["lcd"]
    assert cov["in_run"] and set(cov["in_run"]) <= set(cov["tested"]) | set(cov["certified"])
    assert not cov["neither"] and len(cov["not_run"]) == len(cov["checkable"]) - len(cov["in_run"])
    assert "not run" in coverage_table(one)


def _plotting_check(ctx):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    return Outcome("pass", "plotted", {"points": 2}, artifacts=ctx.savefig(fig, "line.png"))


def test_claims_of_ones_own_get_the_report_and_their_plots(tmp_path):
    claim = Claim(id="mine.plot", paper=None, source="mine", origin=Origin.IMPLEMENTATION, statement="a line",
                  kind=Kind.NUMERIC, check=_plotting_check, control=lambda ctx: Outcome("fail", "no line"),
                  control_description="nothing drawn")
    (result,) = run_claims([claim], out_dir=tmp_path)
    assert result.verdict == "verified" and result.check["artifacts"] == ["plots/line.png"]
    markdown = (tmp_path / "report.md").read_text()
    assert "![check plot](plots/line.png)" in markdown and (tmp_path / "plots" / "line.png").is_file()
    assert json.loads((tmp_path / "report.json").read_text())["results"][0]["id"] == "mine.plot"
    assert '"points": 2' in (tmp_path / "evidence" / "no_paper.md").read_text()


@pytest.mark.parametrize("returned", [True, None, {"status": "pass"}])
def test_a_check_returning_no_outcome_is_an_error_verdict(returned, tmp_path):
    claim = Claim(id="mine.bool", paper=None, source="mine", origin=Origin.IMPLEMENTATION, statement="s",
                  kind=Kind.NUMERIC, check=lambda ctx: returned, control=lambda ctx: Outcome("fail", "f"),
                  control_description="c")
    (result,) = run_claims([claim], out_dir=tmp_path)
    assert result.verdict == "error" and "must return a theorems.core.Outcome" in result.reason
    assert "Traceback" in result.error
    assert "TypeError" in (tmp_path / "evidence" / "no_paper.md").read_text()


def _warning_check(ctx: Context) -> Outcome:
    import warnings

    for _ in range(3):
        warnings.warn("the library is unsure\nsecond line", RuntimeWarning, stacklevel=1)
    return Outcome("pass", "ok")


def test_warnings_a_claim_raises_stay_with_its_result(tmp_path, recwarn):
    claim = Claim(id="mine.warns", paper=None, source="mine", origin=Origin.IMPLEMENTATION, statement="s",
                  kind=Kind.NUMERIC, check=_warning_check, control=lambda ctx: Outcome("fail", "f"),
                  control_description="c")
    (result,) = run_claims([claim], out_dir=tmp_path)
    assert result.verdict == "verified"
    # one line per distinct warning (first line of its message, where it came from), not on the console
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("RuntimeWarning: the library is unsure (")
    assert "test_runner.py:" in result.warnings[0] and not [w for w in recwarn if "unsure" in str(w.message)]
    assert "Warnings raised while it ran** (1 distinct)" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "report.json").read_text())["results"][0]["warnings"] == result.warnings


def test_control_plots_do_not_overwrite_the_checks(tmp_path):
    check, control = (Context(out_dir=tmp_path, role=role).artifact_path("p.png")
                      for role in ("check", "control"))
    assert check != control and control.parent.name == "control"
    with pytest.raises(ValueError, match="relative file name"):
        Context(out_dir=tmp_path).artifact_path("../p.png")


def test_select_claims_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown paper key"):
        select_claims(papers=["nope"])
    with pytest.raises(ValueError, match="unknown claim id"):
        select_claims(ids=["dqp.nope"])


def test_budget_is_cpu_time_so_a_busy_machine_does_not_change_the_verdict():
    """A claim using ~0.6 s of CPU under a 1 s budget, beside six CPU-bound processes: its wall
    time is several times its budget, yet it is verified, as on an idle machine."""
    import subprocess
    import sys

    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(6)]
    try:
        (busy,) = run_claims([fake.CHEAP], jobs=1)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    alone = run_claim(fake.CHEAP)  # in this process, no budget: what an idle machine gives
    assert (busy.verdict, alone.verdict) == ("verified", "verified"), (busy.reason, busy.seconds)
    assert busy.check == alone.check


def test_a_claim_pinned_inconclusive_carries_what_would_decide_it(tmp_path):
    with pytest.raises(ValueError, match=r"pinned inconclusive needs power="):
        fake.make("pinned", "undecided", "fail", expected_verdict="inconclusive")
    pinned = fake.make("pinned", "undecided", "fail", expected_verdict="inconclusive",
                       power="about 40 pairs would decide; the full profile runs 48")
    results = run_claims([pinned, fake.VERIFIED], jobs=0, progress=False)
    assert results[0].verdict == "inconclusive" and results[0].power.startswith("about 40 pairs")
    write_markdown(results, tmp_path / "report.md", {"profile": "quick", "seed": 0})
    markdown = (tmp_path / "report.md").read_text()
    assert markdown.count("**What would decide it.**") == 1  # beside the inconclusive verdict only
    assert "**What would decide it.** about 40 pairs would decide; the full profile runs 48" in markdown


def test_workers_take_the_costliest_claims_first_and_results_come_back_by_id():
    # one worker answers in the order it was handed the claims: costliest first, ties in the given order
    claims = [dataclasses.replace(fake.VERIFIED, id="dqp.fake_a"),
              dataclasses.replace(fake.FALSIFIED, id="dqp.fake_b", cost_s=9.0),
              dataclasses.replace(fake.INCONCLUSIVE, id="dqp.fake_c"),
              dataclasses.replace(fake.VACUOUS, id="dqp.fake_d", cost_s=2.0)]
    arrived = []
    results = run_claims(claims, jobs=1, on_result=lambda r: arrived.append(r.id))
    assert arrived == ["dqp.fake_b", "dqp.fake_d", "dqp.fake_a", "dqp.fake_c"]
    assert [r.id for r in results] == sorted(arrived)
    assert [r.verdict for r in results] == ["verified", "falsified", "inconclusive", "vacuous"]


@pytest.mark.parametrize("cost", [0, -1.0, float("nan"), float("inf"), True, "5"])
def test_cost_hint_must_be_positive_seconds(cost):
    with pytest.raises(ValueError, match="cost_s must be a finite number of seconds > 0"):
        dataclasses.replace(fake.VERIFIED, cost_s=cost)
