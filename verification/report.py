"""Reports: ``report.json`` (machine-readable), ``report.md`` (tables by paper), the terminal
summary, and the regenerated ``paper_notes/README.md`` index."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import platform
from collections import Counter
from pathlib import Path
from typing import Any

from theorems.core import load_all
from theorems.papers import PAPERS
from verification.runner import VERDICTS, ClaimResult

_VERSIONED = ("numpy", "scipy", "sympy", "hypothesis", "torch", "qpsolvers", "plum-dispatch")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def counts_by_paper(results: list[ClaimResult]) -> dict[str, Counter]:
    table: dict[str, Counter] = {}
    for r in results:
        table.setdefault(r.paper, Counter())[r.verdict] += 1
    return table


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
    for paper in sorted(table):
        lines += ["", f"## {paper}: {PAPERS[paper].title}", "",
                  "| claim | kind | source | verdict | evidence | control | s |",
                  "|---|---|---|---|---|---|---|"]
        for r in (r for r in results if r.paper == paper):
            control = r.control["summary"] if r.control else "not run"
            lines.append(
                f"| `{r.id}` | {r.kind} | {_cell(r.source, 60)} | **{r.verdict}** | "
                f"{_cell(r.reason)} | {_cell(control, 160)} | {r.seconds:.1f} |")
        plots = [a for r in results if r.paper == paper for a in r.artifacts]
        for plot in plots:
            lines.append(f"\n![{plot}]({plot})")
        errors = [r for r in results if r.paper == paper and r.error]
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
        "", "| key | paper | family | implemented | claims | verdicts (last run) | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, paper in PAPERS.items():
        implemented = importlib.util.find_spec(f"algorithms.{paper.family}") is not None
        counts = table.get(key, Counter())
        verdicts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v]) or "not run"
        note = f"[{key}.md]({key}.md)" if (path.parent / f"{key}.md").exists() else "none yet"
        lines.append(
            f"| `{key}` | {paper.title} | `algorithms.{paper.family}` | "
            f"{'yes' if implemented and claims_per_paper[key] else 'no'} | "
            f"{claims_per_paper[key]} | {verdicts} | {note} |")
    path.write_text("\n".join(lines) + "\n")
