import json

from theorems import all_claims
from verification.cli import main


def test_list_prints_every_claim(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(f"{len(all_claims())} claims")


def test_unknown_paper_is_a_usage_error(capsys):
    assert main(["--paper", "not_a_paper"]) == 2
    assert "unknown paper key" in capsys.readouterr().err


def test_run_one_claim_writes_reports_and_index(tmp_path):
    claims = {c.id: c for c in all_claims()}
    claim = claims.get("lcd.reduces_to_gd_polyak", next(iter(claims.values())))  # a fast one
    index = tmp_path / "README.md"
    code = main(["--claim", claim.id, "--jobs", "0", "--out", str(tmp_path), "--no-progress",
                 "--write-index", str(index)])
    payload = json.loads((tmp_path / "report.json").read_text())
    (result,) = payload["results"]
    assert result["id"] == claim.id
    assert code == (1 if result["verdict"] in ("falsified", "vacuous", "error") else 0)
    assert (tmp_path / "report.md").exists()
    assert f"`{claim.paper}`" in index.read_text()
