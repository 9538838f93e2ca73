"""Reports: ``report.json`` (machine-readable), ``report.md`` (tables by paper), the terminal
summary, and the regenerated ``paper_notes/README.md`` index."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import platform
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from theorems.core import RESULTS, coverage, load_all
from theorems.papers import PAPERS
from verification.runner import VERDICTS, ClaimResult

#: how results without a paper (``Claim(paper=None)``) are grouped
NO_PAPER = "(no paper)"

#: what each verdict means: (one line for the terminal, a sentence for the report)
VERDICT_MEANINGS: dict[str, tuple[str, str]] = {
    "certified": ("verified, and a certificate of its mathematics rechecked",
                  "verified, and a certificate proves the mathematics over its stated scope: the artifact "
                  "passed an independent recheck, the certificate's control was refuted by a rechecked "
                  "witness, and a mutated artifact was rejected"),
    "verified": ("check passed, control rejected",
                 "the check passed and its control (the same check on something false) was rejected"),
    "falsified": ("check failed",
                  "the check failed: the claim does not hold on our implementation; the counterexample "
                  "is in the evidence"),
    "vacuous": ("control passed too",
                "the check passed, but so did its control: the check cannot tell right from wrong"),
    "inconclusive": ("undecided",
                     "the check could not decide (sympy's None, a rate interval too wide), or it passed "
                     "and the control could not decide"),
    "error": ("raised or over budget",
              "the check or control raised, returned something other than an Outcome, or ran past its "
              "CPU-time budget; the traceback is in the evidence"),
}


def legend_line() -> str:
    """One line: every verdict the runner gives and what it means."""
    return "verdicts: " + "; ".join(f"{v} = {VERDICT_MEANINGS[v][0]}" for v in VERDICTS
                                    if v in VERDICT_MEANINGS)


def package_versions() -> dict[str, str]:
    """Python's version and that of every installed distribution (the resolved environment), by
    normalized name (PEP 503). Read from the ``*.dist-info`` folder names on ``sys.path`` (what pip
    writes), which is 100 times faster than parsing every METADATA file; ``.egg-info`` ones through
    importlib.metadata."""
    found: dict[str, str] = {}
    for entry in sys.path:
        folder = Path(entry or ".")
        if not folder.is_dir():
            continue
        for info in folder.glob("*.dist-info"):
            name, _, version = info.name.removesuffix(".dist-info").partition("-")
            found.setdefault(_normalized(name), version)
        if any(folder.glob("*.egg-info")):
            for dist in importlib.metadata.distributions(path=[str(folder)]):
                found.setdefault(_normalized(dist.metadata["Name"]), dist.version)
    return {"python": platform.python_version(), **dict(sorted(found.items()))}


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def counts_by_paper(results: list[ClaimResult]) -> dict[str, Counter]:
    table: dict[str, Counter] = {}
    for r in results:
        table.setdefault(r.paper or NO_PAPER, Counter())[r.verdict] += 1
    return table


def regressions(results: list[ClaimResult]) -> list[ClaimResult]:
    """Results whose verdict differs from the one pinned on the claim (``expected_verdict``)."""
    return [r for r in results if r.verdict != r.expected_verdict]


def coverage_by_paper(results: list[ClaimResult]) -> dict[str, dict[str, Any]]:
    """For each paper in ``results`` that has a results map: its coverage by verified claims."""
    verdicts = {r.id: r.verdict for r in results}
    papers = sorted({r.paper for r in results if r.paper in RESULTS})
    return {paper: coverage(paper, verdicts) for paper in papers}


def coverage_table(results: list[ClaimResult]) -> str:
    """Per paper: checkable numbered results with a verified claim, and those without one."""
    rows = coverage_by_paper(results)
    if not rows:
        return ""
    lines = [f"{'paper':<26}{'results covered':>18}  uncovered checkable results"]
    for paper, cov in rows.items():
        n, k = len(cov["checkable"]), len(cov["covered"])
        share = f"{k}/{n} ({100 * k / n:.0f} %)" if n else "0/0"
        lines.append(f"{paper:<26}{share:>18}  {', '.join(cov['uncovered']) or '-'}")
    return "\n".join(lines)


def summary_table(results: list[ClaimResult]) -> str:
    """A plain-text table of verdict counts by paper (what the terminal shows)."""
    table = counts_by_paper(results)
    header = f"{'paper':<26}" + "".join(f"{v:>14}" for v in VERDICTS)
    lines = [header, "-" * len(header)]
    total: Counter = Counter()
    for paper in sorted(table):
        total.update(table[paper])
        lines.append(f"{paper:<26}" + "".join(f"{table[paper][v]:>14}" for v in VERDICTS))
    lines.append("-" * len(header))
    lines.append(f"{'total':<26}" + "".join(f"{total[v]:>14}" for v in VERDICTS))
    return "\n".join(lines)


def write_json(results: list[ClaimResult], path: Path, meta: dict[str, Any]) -> None:
    payload = {"meta": {**meta, "versions": package_versions()},
               "results": [r.as_dict() for r in results]}
    path.write_text(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n")


def _cell(text: str, limit: int = 220) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_markdown(results: list[ClaimResult], path: Path, meta: dict[str, Any]) -> None:
    lines = ["# Verification report", "",
             f"Profile `{meta['profile']}`, seed `{meta['seed']}`. Verdicts: verified = check "
             "passed and its control was rejected; vacuous = the control also passed.", "",
             "## Summary", "", "| paper | " + " | ".join(VERDICTS) + " |",
             "|---|" + "---|" * len(VERDICTS)]
    table = counts_by_paper(results)
    for paper in sorted(table):
        lines.append(f"| {paper} | " + " | ".join(str(table[paper][v]) for v in VERDICTS) + " |")
    changed = regressions(results)
    if changed:
        lines += ["", "**Verdicts that changed from the pinned one (`expected_verdict`):** "
                  + ", ".join(f"`{r.id}` {r.expected_verdict} → **{r.verdict}**" for r in changed)]
    covered = coverage_by_paper(results)
    if covered:
        lines += ["", "## Coverage of the papers' numbered results", "",
                  "| paper | checkable results with a verified claim | uncovered checkable | not checkable |",
                  "|---|---|---|---|"]
        for paper, cov in covered.items():
            n, k = len(cov["checkable"]), len(cov["covered"])
            lines.append(f"| {paper} | {k}/{n} | {', '.join(cov['uncovered']) or '-'} | "
                         f"{_cell(', '.join(cov['not_checkable']) or '-')} |")
    for paper in sorted(table):
        record = PAPERS.get(paper)
        title = f"{paper}: {record.title}" if record else paper
        lines += ["", f"## {title}", "",
                  "| claim | kind | origin | covers; source | verdict | check | control | s |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in (r for r in results if (r.paper or NO_PAPER) == paper):
            check = r.check["summary"] if r.check else r.reason
            control = r.control["summary"] if r.control else "not run"
            source = (f"**{', '.join(r.covers)}**; " if r.covers else "") + r.source
            origin = (r.origin or "-") + (f"; differs: {r.deviation}" if r.deviation else "")
            lines.append(
                f"| `{r.id}` | {r.kind} | {_cell(origin, 160)} | {_cell(source, 120)} | "
                f"**{r.verdict}** | {_cell(check)} | {_cell(control, 160)} | {r.seconds:.1f} |")
        plots = [a for r in results if (r.paper or NO_PAPER) == paper for a in r.artifacts]
        for plot in plots:
            lines.append(f"\n![{plot}]({plot})")
        errors = [r for r in results if (r.paper or NO_PAPER) == paper and r.error]
        for r in errors:
            lines += ["", f"<details><summary>traceback of {r.id}</summary>", "", "```",
                      r.error.strip(), "```", "</details>"]
    path.write_text("\n".join(lines) + "\n")


def write_index(results: list[ClaimResult], path: Path) -> None:
    """Regenerate the paper-notes index from a run's results (never typed by hand)."""
    registry = load_all()
    claims_per_paper = Counter(c.paper for c in registry.values())
    table = counts_by_paper(results)
    lines = [
        "# Paper notes", "",
        "One note per paper, in our own words. This index is written by "
        "`python -m verification --write-index paper_notes/README.md`; do not edit it by hand.",
        "", "Results covered: the paper's computationally checkable numbered results (its results "
        "map, in `theorems/<key>.py`) that have a verified claim in that run.",
        "", "| key | paper | family | implemented | claims | verdicts (last run) | results covered "
        "| note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    covered = coverage_by_paper(results)
    for key, paper in PAPERS.items():
        if paper.family and importlib.util.find_spec("algorithms") is not None:
            implemented = importlib.util.find_spec(f"algorithms.{paper.family}") is not None
        else:
            implemented = False
        counts = table.get(key, Counter())
        verdicts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v]) or "not run"
        note = f"[{key}.md]({key}.md)" if (path.parent / f"{key}.md").exists() else "none yet"
        cov = covered.get(key)
        share = (f"{len(cov['covered'])}/{len(cov['checkable'])}"
                 + (f" (uncovered: {', '.join(cov['uncovered'])})" if cov["uncovered"] else "")
                 if cov else "no map")
        lines.append(
            f"| `{key}` | {paper.title} | `algorithms.{paper.family}` | "
            f"{'yes' if implemented and claims_per_paper[key] else 'no'} | "
            f"{claims_per_paper[key]} | {verdicts} | {share} | {note} |")
    path.write_text("\n".join(lines) + "\n")
