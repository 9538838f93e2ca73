import json

import pytest

from theorems import all_claims
from verification.cli import exit_code, main
from verification.runner import ClaimResult


def test_list_prints_every_claim(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(f"{len(all_claims())} claims")
    assert "lcd: Local Curvature Descent" in out  # the paper's title heads its claims
    pinned = next(c for c in all_claims() if c.expected_verdict != "verified")
    line = next(line for line in out.splitlines() if line.strip().startswith(pinned.id + " "))
    assert f"pinned {pinned.expected_verdict}" in line


def test_help_shows_only_real_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "(default: None)" not in out and "(default: False)" not in out and "(default: [])" not in out
    assert "(default: all) (default" not in out
    assert "(default: 0)" in out  # the seed's


def test_exit_status_follows_the_pins():
    def result(verdict, expected="verified"):
        return ClaimResult(id="a.b", paper=None, kind="numeric", source="s", statement="s",
                           control_description="c", verdict=verdict, reason="r", seed=0,
                           expected_verdict=expected)

    assert exit_code([result("verified"), result("falsified", "falsified")]) == 0
    assert exit_code([result("verified"), result("falsified", "falsified")], strict=True) == 1
    assert exit_code([result("inconclusive")]) == 1  # a regression
    assert exit_code([result("verified", "inconclusive")]) == 1  # a change either way
    assert exit_code([result("error")]) == 1 and exit_code([result("vacuous")]) == 1


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
    assert code == (0 if result["verdict"] == result["expected_verdict"] else 1)
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


def test_selecting_one_claim_imports_only_its_paper():
    # `--claim lcd.X` must not import every paper's module and dependencies (torch among them)
    import subprocess
    import sys

    code = ("import sys; from verification.cli import main; "
            "main(['--claim', 'lcd.reduces_to_gd_polyak', '--list']); "
            "print(sorted(m for m in sys.modules if m.startswith('theorems.') and m.count('.') == 1 "
            "and m not in ('theorems.core', 'theorems.papers', 'theorems.strategies')), "
            "'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['theorems.lcd'] False"
