"""A user's own claim on a paper of their own: from a script, the CLI and Dask."""

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from theorems.core import REGISTRY
from theorems.papers import PAPERS
from verification.cli import main
from verification.runner import run_claims

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE / "user_claims_example.py"


def _forget_the_users_paper():
    """Undo what importing the example registered, so no other test sees the user's paper."""
    PAPERS.pop("userpaper", None)
    for key in [k for k in REGISTRY if k.startswith("userpaper.")]:
        del REGISTRY[key]
    for name in [n for n, m in sys.modules.items()
                 if getattr(m, "__file__", None) and Path(m.__file__).resolve() == EXAMPLE]:
        del sys.modules[name]


@pytest.fixture
def forget():
    yield
    _forget_the_users_paper()


@pytest.fixture
def example(forget):
    spec = importlib.util.spec_from_file_location("user_claims_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_unguarded_script_with_worker_processes_runs_once(tmp_path):
    """A script without a __main__ guard, defining its claim inline, runs it in a worker."""
    script = tmp_path / "my_claims.py"
    script.write_text(textwrap.dedent("""
        from theorems.core import Claim, Kind, Outcome
        from verification.runner import run_claims
        print("script body runs")
        claim = Claim(id="inline.claim", paper=None, source="mine", statement="1 < 2",
                      kind=Kind.NUMERIC, check=lambda ctx: Outcome("pass", "1 < 2"),
                      control=lambda ctx: Outcome("fail", "2 < 1 is false"),
                      control_description="swapped")
        (result,) = run_claims([claim], jobs=1)
        print("verdict", result.verdict)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("script body runs") == 1, done.stdout
    assert "verdict verified" in done.stdout


def test_guarded_script_registering_a_paper(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "userpaper.square_nonnegative verified"
    # the README's example gets the CLI's report: its plot, statement and whole evidence
    markdown = (tmp_path / "report.md").read_text()
    assert "![check plot](plots/square.png)" in markdown and (tmp_path / "plots" / "square.png").is_file()
    assert "x² >= 0 for every real x" in markdown
    assert '"draws": 100' in (tmp_path / "evidence" / "userpaper.md").read_text()


def test_cli_imports_a_users_module(tmp_path, capsys, forget):
    code = main(["--import", str(EXAMPLE), "--paper", "userpaper",
                 "--jobs", "1", "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "VERIFIED" in out and "userpaper.square_nonnegative" in out
    (result,) = json.loads((tmp_path / "report.json").read_text())["results"]
    assert (result["paper"], result["verdict"], result["origin"]) == ("userpaper", "verified", "paper")


def test_on_dask(example):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        (result,) = run_claims([example.SQUARE], dask_address=cluster.scheduler_address)
    assert result.verdict == "verified"


def test_cli_prints_a_line_per_claim_with_the_reason(tmp_path, capsys):
    from tests.verification import fake_claims as fake
    from theorems.core import REGISTRY

    for claim in (fake.VERIFIED, fake.FALSIFIED):
        REGISTRY[claim.id] = claim
    try:
        code = main(["--claim", fake.VERIFIED.id, fake.FALSIFIED.id, "--jobs", "0",
                     "--out", str(tmp_path), "--no-progress"])
    finally:
        for claim in (fake.VERIFIED, fake.FALSIFIED):
            del REGISTRY[claim.id]
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    falsified = next(i for i, line in enumerate(lines) if "FALSIFIED" in line and fake.FALSIFIED.id in line)
    assert "numeric" in lines[falsified] and " s" in lines[falsified]
    assert "check fail" in lines[falsified + 1]  # the one-line reason under it
    assert any("changed verdict" in line for line in lines)


def test_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "default: reports/latest" in capsys.readouterr().out
