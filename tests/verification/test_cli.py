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


def test_missing_dependency_is_one_line_not_a_traceback():
    # A Python without the package's dependencies (qpsolvers blocked here) gets the
    # install command and exit status 2, not an import traceback.
    import subprocess
    import sys

    code = ("import runpy, sys; sys.modules['qpsolvers'] = None; sys.argv = ['verification', '--list'];"
            " runpy.run_module('verification', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "'qpsolvers' is not installed" in done.stderr and "pip install" in done.stderr


def test_our_own_broken_import_keeps_its_traceback():
    from verification.__main__ import missing_dependency_message

    assert missing_dependency_message(ModuleNotFoundError("x", name="theorems.nope")) is None
    assert "'scipy' is not installed" in missing_dependency_message(
        ModuleNotFoundError("x", name="scipy.linalg"))
