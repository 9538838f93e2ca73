"""Mutation testing: the generator's operator classes, and a run on a one-claim fake paper."""

import ast
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verification import mutate
from verification.cli import main as cli_main
from verification.mutators import OPERATORS, apply, generate_mutants, unified_diff

HERE = Path(__file__).resolve().parent
SOURCE = '''"""Docstring 1.0 + 2 is not mutated."""
__all__ = ["f"]


def f(x: float, y: float = 1.0, *, flag: bool = True) -> float:
    """f's docstring."""
    if x < 0:
        raise ValueError(f"x must be >= 0, got {x + 1}")
    z = -x + 2.5 * y ** 2
    z += 1
    if x == y and not flag:
        return z // 3
    print(f"z = {z}")
    return z - x % 2
'''


def replacements(operator):
    return [(m.original, m.replacement) for m in generate_mutants(SOURCE, "m", "m.py", (operator,))]


def test_each_operator_class_plants_its_mutations():
    assert replacements("arith") == [
        ("-x + 2.5 * y ** 2", "-x - 2.5 * y ** 2"), ("2.5 * y ** 2", "2.5 / y ** 2"),
        ("y ** 2", "y * 2"), ("z += 1", "z -= 1"), ("z // 3", "z / 3"), ("z - x % 2", "z + x % 2"),
        ("x % 2", "x // 2")]
    assert replacements("compare") == [("x < 0", "x <= 0"), ("x == y", "x != y")]
    assert replacements("boolean") == [("x == y and not flag", "x == y or not flag"),
                                       ("not flag", "flag")]
    assert replacements("sign") == [("-x", "x"), ("2.5", "-2.5")]
    assert replacements("constant") == [("0", "1"), ("2.5", "5.0"), ("2", "3"), ("1", "2"),
                                        ("3", "4"), ("2", "3")]
    assert ("-x + 2.5 * y ** 2", "-x") in replacements("drop")
    assert ("-x + 2.5 * y ** 2", "2.5 * y ** 2") in replacements("drop")
    assert ("z - x % 2", "z") in replacements("drop")
    assert replacements("return") == [("", "return x\n    ")]


def test_mutants_patch_one_span_and_skip_strings_defaults_annotations_raise_and_print():
    mutants = generate_mutants(SOURCE, "m", "m.py")
    lines = SOURCE.splitlines()
    for m in mutants:
        mutated = apply(SOURCE, m)
        ast.parse(mutated)
        changed = [i for i, (a, b) in enumerate(zip(lines, mutated.splitlines())) if a != b]
        assert changed and changed[0] + 1 == m.line
        assert SOURCE[:m.start] == mutated[:m.start]  # byte-identical outside the span
    touched = {m.line for m in mutants}
    assert touched.isdisjoint({1, 2, 5, 6, 8, 13})  # docstrings, __all__, signature, raise, print
    assert [m.guard for m in mutants if m.line == 7 and m.operator != "return"] == [True, True]
    assert len({m.id for m in mutants}) == len(mutants)
    assert mutants == sorted(mutants, key=lambda m: (m.line, m.col, m.operator, m.replacement))


def test_ids_survive_edits_elsewhere_and_diffs_are_minimal():
    edited = SOURCE.replace('"""f\'s docstring."""', '"""f\'s docstring.\n\n    Longer now.\n    """')
    assert [m.id for m in generate_mutants(SOURCE, "m", "m.py")] == \
        [m.id for m in generate_mutants(edited, "m", "m.py")]
    (m,) = [m for m in generate_mutants(SOURCE, "m", "m.py", ("compare",)) if "<" in m.original]
    assert m.id == "m:f:compare:x < 0->x <= 0"
    diff = unified_diff(SOURCE, m, context=0)
    assert "-    if x < 0:\n+    if x <= 0:\n" in diff and diff.count("\n-") == 1  # one line


def test_non_ascii_text_before_an_operator_keeps_offsets_right():
    source = 'def f(x):\n    return "λ−∞" if x else x + 1\n'
    (m,) = generate_mutants(source, "m", "m.py", ("arith",))
    assert apply(source, m) == 'def f(x):\n    return "λ−∞" if x else x - 1\n'


def test_unknown_operator_class_is_rejected():
    with pytest.raises(ValueError, match="operators must be among"):
        generate_mutants(SOURCE, "m", "m.py", ("swap",))
    assert set(OPERATORS) == {"arith", "compare", "boolean", "sign", "constant", "drop", "return"}


def test_equivalence_file_and_seeded_sample(tmp_path):
    mutants = generate_mutants(SOURCE, "m", "m.py")
    path = tmp_path / "key.equivalent.toml"
    path.write_text(f'[[equivalent]]\nid = "{mutants[0].id}"\nreason = "cannot differ"\n')
    equivalent = mutate.load_equivalent(path)
    assert equivalent == {mutants[0].id: "cannot differ"}
    chosen = mutate.sample(mutants, equivalent, 5, seed=3)
    assert chosen == mutate.sample(mutants, equivalent, 5, seed=3)
    assert len(chosen) == 5 and mutants[0] not in chosen and chosen == sorted(chosen, key=mutants.index)
    path.write_text('[[equivalent]]\nid = "x"\n')
    with pytest.raises(mutate.MutationError, match="non-empty `id` and `reason`"):
        mutate.load_equivalent(path)
    assert mutate.load_equivalent(tmp_path / "absent.toml") == {}


def test_list_through_the_cli_prints_a_seeded_sample(capsys):
    assert cli_main(["mutate", "--paper", "lcd", "--list", "--max-mutants", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[-1].startswith("3 of ")
    assert all(line.startswith("algorithms/curvature/") for line in out[:3])


def test_bad_arguments_are_usage_errors(capsys):
    assert mutate.main(["--paper", "not_a_paper", "--list"]) == 2
    assert "unknown paper key" in capsys.readouterr().err
    assert mutate.main(["--paper", "lcd", "--max-mutants", "0"]) == 2
    assert "--max-mutants must be >= 1" in capsys.readouterr().err
    assert mutate.main(["--paper", "lcd", "--survivors-only"]) == 2
    assert "--survivors-only needs --rerun" in capsys.readouterr().err
    assert mutate.main(["--paper", "lcd", "--rerun", "r.json", "--max-mutants", "3"]) == 2
    assert "drop --max-mutants" in capsys.readouterr().err
    assert mutate.main(["--paper", "lcd", "--rerun", "absent.json", "--list"]) == 2
    assert "no such report" in capsys.readouterr().err


FAKE = mutate.Target("fake_paper", ("fake_paper.impl",), "module:fake_paper.claims",
                     (mutate.ROOT / "verification", mutate.ROOT / "theorems", HERE / "fake_paper"))
PICKED = {
    "fake_paper.impl:mean:arith:total + value->total - value": "killed",
    "fake_paper.impl:spread:arith:max(values) - min(values)->max(values) + min(values)": "survived",
    "fake_paper.impl:halve_below_one:compare:x >= 1.0->x > 1.0": "survived",  # 6, 3, 1.5: never 1
    "fake_paper.impl:<module>:arith:[0.0] * 2->[0.0] / 2": "error",  # the module no longer imports
    "fake_paper.impl:halve_below_one:arith:x / 2.0->x * 2.0": "timeout",  # halving never ends
}


def test_fake_paper_killed_survived_error_and_timeout_are_told_apart(tmp_path):
    pristine = mutate.snapshot(FAKE, tmp_path)
    mutants, sources = mutate.generate(FAKE, pristine)
    chosen = [m for m in mutants if m.id in PICKED]
    assert len(chosen) == len(PICKED)
    baseline = mutate.run_baseline(FAKE, pristine, tmp_path)
    assert [c["verdict"] for c in baseline.claims] == ["verified"]
    # generous against a loaded machine, yet short: the timed-out mutant costs one budget
    budget = 4 + 4 * baseline.seconds
    results, interrupted = mutate.run_mutation(FAKE, chosen, sources, pristine, tmp_path, baseline,
                                               jobs=2, timeout=budget, progress=False)
    assert not interrupted
    assert {r.mutant.id: r.status for r in results} == PICKED
    killed = next(r for r in results if r.status == "killed")
    assert (killed.killed_by, killed.verdict, killed.expected) == \
        ("fake_paper.mean_and_halving", "falsified", "verified")
    assert "TypeError" in next(r for r in results if r.status == "error").detail  # list / int
    # no claim calls spread(): its mutant survives without a run; the other one ran and survived
    assert {r.mutant.qualname: (r.executed, r.seconds > 0) for r in results if r.status == "survived"} \
        == {"spread": (False, False), "halve_below_one": (True, True)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pristine"]  # scratch copies removed

    meta = {"paper": "fake_paper", "modules": list(FAKE.modules), "generated": len(mutants),
            "equivalent": 0, "sampled": len(chosen), "seed": 0, "timeout_s": budget, "jobs": 2,
            "baseline": {"seconds": baseline.seconds, "claims": baseline.claims}, "wall_seconds": 1.0}
    mutate.write_reports(tmp_path / "out", meta, results)
    payload = json.loads((tmp_path / "out" / "mutation.json").read_text())
    assert payload["summary"]["score"] == 0.4  # (killed 1 + error 1) / 5 sampled
    md = (tmp_path / "out" / "mutation.md").read_text()
    assert "## Survivors\n" in md and "+    while x > 1.0:" in md
    assert "## Survivors in code that no claim executes" in md
    assert "+    return max(values) + min(values)" in md
    assert "## Timed out" in md

    # --rerun: the same sample again, matched by id; --survivors-only carries the kills over
    report = tmp_path / "out" / "mutation.json"
    gone = next(m for m in chosen if PICKED[m.id] == "survived")
    now_equivalent = next(m for m in chosen if PICKED[m.id] == "timeout")
    current = [m for m in mutants if m.id != gone.id]  # as if the code under it had changed
    rerun = mutate.load_rerun(report, "fake_paper", current, {now_equivalent.id: "why"}, survivors_only=True)
    assert rerun.missing == [gone.id] and rerun.now_equivalent == [now_equivalent.id]
    assert [m.id for m in rerun.to_run] == [m.id for m in chosen if PICKED[m.id] == "survived" and m != gone]
    assert {r.mutant.id: (r.status, r.carried) for r in rerun.carried} == \
        {m.id: (PICKED[m.id], True) for m in chosen if PICKED[m.id] in ("killed", "error")}
    assert rerun.order == [r.mutant.id for r in results] and rerun.seed == 0
    everything = mutate.load_rerun(report, "fake_paper", mutants, {})
    assert [m.id for m in everything.to_run] == [r.mutant.id for r in results] and not everything.carried
    summary = mutate.summarize(rerun.carried)
    assert summary["carried"] == 2 and summary["seconds_per_mutant"] == {}  # carried: no timing
    with pytest.raises(mutate.MutationError, match="report of paper 'fake_paper', not 'lcd'"):
        mutate.load_rerun(report, "lcd", mutants, {})
    with pytest.raises(mutate.MutationError, match="no such report"):
        mutate.load_rerun(tmp_path / "absent.json", "fake_paper", mutants, {})
    # end to end: the survivors re-run, the kills carried, one report in the earlier order
    args = mutate.build_parser().parse_args(["--paper", "fake_paper", "--rerun", str(report),
                                             "--survivors-only", "--timeout", str(budget), "--jobs", "2",
                                             "--no-progress", "--out", str(tmp_path / "again")])
    assert mutate.run_target(FAKE, args, {}) == 0
    again = json.loads((tmp_path / "again" / "mutation.json").read_text())
    assert [(m["id"], m["status"], m["carried"]) for m in again["mutants"]] == \
        [(r.mutant.id, r.status, r.status in ("killed", "error")) for r in results]
    assert again["summary"]["score"] == 0.4 and again["meta"]["carried"] == 2
    assert "2 earlier kills carried over without a run" in (tmp_path / "again" / "mutation.md").read_text()
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(mutate.MutationError, match=r"not a mutation\.json report"):
        mutate.load_rerun(tmp_path / "bad.json", "fake_paper", mutants, {})


def test_statement_lines_of_a_mutant():
    source = ("def f(x):\n    y = (x +\n         1)\n    if (x >\n            y):\n"
              "        return y\n    return x\n")
    assert mutate._statement_lines(source, 3) == (2, 3)  # inside a two-line assignment
    assert mutate._statement_lines(source, 5) == (4, 5)  # an if header over two lines
    assert mutate._statement_lines(source, 6) == (6, 6)


def test_a_mutant_runs_only_the_claims_that_executed_its_statement():
    source = "X = 1\n\n\ndef f(x):\n    return (x +\n            1)\n\n\ndef g(x):\n    return x - 1\n"
    mutants = {m.id: m for m in generate_mutants(source, "m", "m.py")}
    f_plus, g_minus = mutants["m:f:arith:x + 1->x - 1"], mutants["m:g:arith:x - 1->x + 1"]
    module_level = mutants["m:<module>:constant:1->2"]
    baseline = mutate.Baseline(
        claims=[{"id": "slow", "verdict": "verified", "seconds": 9.0},
                {"id": "fast", "verdict": "verified", "seconds": 1.0}],
        seconds=10.0, lines={"slow": {"m.py": {6}}, "fast": {"m.py": {5, 10}}})
    assert (f_plus.line, g_minus.line) == (5, 10)
    assert baseline.claims_reaching(f_plus, source) == ["fast", "slow"]  # line 6 of a 2-line return
    assert baseline.claims_reaching(g_minus, source) == ["fast"]
    assert baseline.claims_reaching(module_level, source) == ["fast", "slow"]  # runs at import
    baseline.lines["fast"] = {}
    assert baseline.claims_reaching(g_minus, source) == []  # survives without a run


def test_a_shadowed_scratch_copy_stops_the_run():
    run = mutate._WorkerRun(events=[{"event": "shadowed", "files": {"m": "/elsewhere/m.py"}}],
                            returncode=3, seconds=0.1, timed_out=False, stderr_tail="")
    with pytest.raises(mutate.MutationError, match="shadowed"):
        mutate._check_not_shadowed(run)


INTERRUPTED_RUN = """
import signal
import sys
# a shell without job control starts background commands with SIGINT ignored, and Python then installs
# no handler of its own: restore it, as an interactive Ctrl-C would find it
signal.signal(signal.SIGINT, signal.default_int_handler)
from pathlib import Path
from verification import mutate
from tests.verification.test_mutate import FAKE
args = mutate.build_parser().parse_args(["--paper", "fake_paper", "--out", sys.argv[1], "--timeout", "120",
                                         "--operators", "arith"])
sys.exit(mutate.run_target(FAKE, args, {}))
"""


def _processes_under(folder: Path) -> list[int]:
    """Live processes whose working directory lies under ``folder`` (our workers' scratch)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).is_relative_to(folder):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to find leftover workers")
def test_ctrl_c_kills_the_workers_removes_scratch_and_keeps_a_partial_report(tmp_path):
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED_RUN, str(tmp_path / "out")],
                            cwd=mutate.ROOT, env={**os.environ, "TMPDIR": str(scratch_parent)},
                            stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:  # the arith mutants run in order: the 4th never ends (x * 2.0 >= 1 forever)
        seen.append(line)
        if line.startswith("[3/"):
            time.sleep(1.0)
            proc.send_signal(signal.SIGINT)
            break
    assert seen and seen[-1].startswith("[3/"), "the run ended before its third mutant:\n" + "".join(seen)
    # the interrupted run still imports every paper's claims to write its partial report: with 17
    # papers under a parallel (-n 2) test load that has taken over 60 s, though 6 s alone
    _, rest = proc.communicate(timeout=240)  # stderr (stdout is not piped)
    assert proc.returncode == 130, "".join(seen) + rest
    assert list(scratch_parent.iterdir()) == []
    assert _processes_under(scratch_parent) == []
    payload = json.loads((tmp_path / "out" / "mutation.json").read_text())
    assert payload["meta"]["interrupted"] and payload["summary"]["sampled"] == 3


def test_mutants_run_one_blas_thread_each_unless_the_user_set_it(tmp_path, monkeypatch):
    from verification.mutate import _worker_env

    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    assert _worker_env(tmp_path, 1)["OMP_NUM_THREADS"] == "1" == _worker_env(tmp_path, 4)["MKL_NUM_THREADS"]
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert _worker_env(tmp_path, 1)["OMP_NUM_THREADS"] == "3"
