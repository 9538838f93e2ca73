import json

import pytest

from tests.verification import fake_claims as fake
from theorems.core import Outcome
from verification.report import summary_table, write_json, write_markdown
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


def test_worker_pool_matches_in_process_and_enforces_budget():
    results = run_claims([*FAST, fake.SLOW], jobs=2, progress=False)
    verdicts = {r.id: r.verdict for r in results}
    for claim in FAST:
        assert verdicts[claim.id] == fake.EXPECTED[claim.id]
    assert verdicts[fake.SLOW.id] == "error"
    slow = next(r for r in results if r.id == fake.SLOW.id)
    assert "time budget" in slow.reason
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
    assert "**vacuous**" in markdown and "traceback of dqp.fake_error" in markdown
    table = summary_table(results)
    assert table.splitlines()[-1].split()[1:] == ["0", "1", "1", "1", "2", "1"]


def test_select_claims_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown paper key"):
        select_claims(papers=["nope"])
    with pytest.raises(ValueError, match="unknown claim id"):
        select_claims(ids=["dqp.nope"])
