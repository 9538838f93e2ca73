"""Reports: ``report.json`` (machine-readable), ``report.md`` (tables by paper), the terminal
summary, and the regenerated ``paper_notes/README.md`` index."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from theorems.core import RESULTS, coverage, load_all
from theorems.core.subjects import PEERS
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
    """For each paper in ``results`` that has a results map: its coverage *by the claims that ran*.

    Besides :func:`theorems.core.coverage`'s keys: ``in_run`` (checkable results that a claim of this
    run covers, or that no claim covers at all), split into ``certified`` (a certified claim's
    certificate covers it), ``tested`` (a verified or certified claim covers it, no certificate) and
    ``neither``; and ``not_run`` (checkable results whose claims exist but did not run).
    """
    verdicts = {r.id: r.verdict for r in results}
    papers = sorted({r.paper for r in results if r.paper in RESULTS})
    rows = {}
    for paper in papers:
        cov = coverage(paper, verdicts)
        claims = cov["claims"]
        in_run = [rid for rid in cov["checkable"]
                  if not claims.get(rid) or any(c in verdicts for c in claims[rid])]
        certified = [rid for rid in in_run if rid in cov.get("certified", [])]
        tested = [rid for rid in in_run if rid in cov["covered"] and rid not in certified]
        neither = [rid for rid in in_run if rid not in cov["covered"]]
        not_run = [rid for rid in cov["checkable"] if rid not in in_run]
        rows[paper] = {**cov, "in_run": in_run, "certified": certified, "tested": tested,
                       "neither": neither, "not_run": not_run}
    return rows


def coverage_table(results: list[ClaimResult]) -> str:
    """Per paper, over the checkable numbered results that the claims of this run cover (or that no
    claim covers): how many are certified, tested, neither; how many were not run."""
    rows = coverage_by_paper(results)
    if not rows:
        return ""
    lines = ["coverage of the papers' checkable numbered results by the claims that ran "
             "(not run: results whose claims were not selected)",
             f"{'paper':<26}{'certified':>10}{'tested':>8}{'neither':>9}{'not run':>9}  results with "
             "neither"]
    for paper, cov in rows.items():
        n = len(cov["in_run"])
        lines.append(f"{paper:<26}{len(cov['certified']):>7}/{n:<2}{len(cov['tested']):>5}/{n:<2}"
                     f"{len(cov['neither']):>6}/{n:<2}{len(cov['not_run']):>9}  "
                     f"{', '.join(cov['neither']) or '-'}")
    return "\n".join(lines)


def summary_table(results: list[ClaimResult]) -> str:
    """A plain-text table of verdict counts by paper (what the terminal shows)."""
    table = counts_by_paper(results)
    header = f"{'paper':<26}" + "".join(f"{v:>13}" for v in VERDICTS) + f"{'as pinned':>11}"
    lines = [header, "-" * len(header)]
    total: Counter = Counter()
    pinned = Counter((r.paper or NO_PAPER) for r in results if r.verdict == r.expected_verdict)
    for paper in sorted(table):
        total.update(table[paper])
        lines.append(f"{paper:<26}" + "".join(f"{table[paper][v]:>13}" for v in VERDICTS)
                     + f"{pinned[paper]:>7}/{sum(table[paper].values()):<3}")
    lines.append("-" * len(header))
    lines.append(f"{'total':<26}" + "".join(f"{total[v]:>13}" for v in VERDICTS)
                 + f"{sum(pinned.values()):>7}/{len(results):<3}")
    return "\n".join(lines)


def implementations_table(results: list[ClaimResult]) -> str:
    """Claim x implementation -> verdict, for claims run on implementations other than ours
    (``--subject``, ``--peers``); empty when there are none. Markdown, readable in a terminal."""
    others = sorted({_label(r) for r in results if r.implementations})
    if not others:
        return ""
    labels = ["ours", *others] if any(not r.implementations for r in results) else others
    verdicts: dict[str, dict[str, str]] = {}
    for r in results:
        verdicts.setdefault(r.id, {})[_label(r)] = r.verdict
    rows = [f"| claim | {' | '.join(labels)} |", "|---|" + "---|" * len(labels)]
    for cid in sorted(c for c, row in verdicts.items() if any(lab in row for lab in others)):
        rows.append(f"| `{cid}` | " + " | ".join(verdicts[cid].get(lab, "-") for lab in labels) + " |")
    return "\n".join(rows)


def _label(result: ClaimResult) -> str:
    """The implementations a result ran on: a registered peer by its label (``torch.optim.Muon``),
    anything else as ``NAME=module:object``; ``ours`` when none was given."""
    def one(name: str, spec: str) -> str:
        labels = [label for label, known in PEERS.get(name, {}).items() if known == spec]
        return labels[0] if labels else f"{name}={spec}"

    return ", ".join(one(k, v) for k, v in sorted(result.implementations.items())) or "ours"


def write_json(results: list[ClaimResult], path: Path, meta: dict[str, Any]) -> None:
    payload = {"meta": {**meta, "versions": package_versions()},
               "results": [r.as_dict() for r in results]}
    path.write_text(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n")


def write_report(results: list[ClaimResult], out_dir: Path | str,
                 meta: dict[str, Any] | None = None) -> Path:
    """Write what the CLI writes into ``out_dir``: ``report.json``, ``report.md`` and one evidence page
    per paper (``evidence/<paper>.md``); plots are already under ``out_dir/plots`` when the claims ran
    with ``out_dir``. Returns the path of ``report.md``.

    >>> import tempfile
    >>> from theorems.core import Claim, Kind, Origin, Outcome
    >>> from verification.runner import run_claims
    >>> claim = Claim(id="mine.positive", paper=None, source="mine", origin=Origin.IMPLEMENTATION,
    ...               statement="2 > 1", kind=Kind.NUMERIC, check=lambda ctx: Outcome("pass", "2 > 1"),
    ...               control=lambda ctx: Outcome("fail", "1 > 2 is false"), control_description="swapped")
    >>> with tempfile.TemporaryDirectory() as out:
    ...     md = write_report(run_claims([claim]), out)
    ...     "**verified**" in md.read_text()
    True
    """
    if isinstance(out_dir, str):
        out_dir = Path(out_dir)
    if not isinstance(out_dir, Path):
        raise TypeError(f"out_dir must be a path, got {out_dir!r}")
    meta = {"profile": "quick", "seed": 0, **(meta or {})}
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(results, out_dir / "report.json", meta)
    write_markdown(results, out_dir / "report.md", meta)
    return out_dir / "report.md"


def _inline(text: Any, cell: bool = False) -> str:
    """Text on one line for a list item or (``cell``) a table cell: whole, never cut."""
    text = " ".join(str(text).split())
    return text.replace("|", "\\|") if cell else text


def _anchor(claim_id: str) -> str:
    return claim_id.replace(".", "-")


def _result_anchor(r: ClaimResult) -> str:
    """A claim's anchor; a run on another implementation (``--subject``, ``--peers``) gets its own."""
    implementations = getattr(r, "implementations", None)
    if not implementations:
        return _anchor(r.id)
    return _anchor(r.id) + "--" + re.sub(r"[^A-Za-z0-9_]+", "-", _label(r)).strip("-")


def _title(r: ClaimResult) -> str:
    return f"`{r.id}`" + (f" on {_label(r)}" if getattr(r, "implementations", None) else "")


def _note_link(paper: str, out_dir: Path) -> str | None:
    """A relative link from ``out_dir`` to the paper's note in this checkout, if it has one."""
    import theorems

    note = Path(theorems.__file__).resolve().parent.parent / "paper_notes" / f"{paper}.md"
    if not note.is_file():
        return None
    return Path(os.path.relpath(note, out_dir.resolve())).as_posix()


def _plots(outcome: dict[str, Any] | None) -> list[str]:
    return list(outcome.get("artifacts", [])) if outcome else []


def _claim_section(r: ClaimResult, evidence_page: str) -> list[str]:
    pin = ""
    if getattr(r, "implementations", None):
        pin = f" · check run on {_label(r)} (a control runs on ours)"
    elif r.verdict != r.expected_verdict:
        pin = f" · **changed: pinned `{r.expected_verdict}`**"
    elif r.expected_verdict in ("falsified", "inconclusive"):
        pin = " · expected (pinned on the claim; the paper's note says why)"
    origin = r.origin or "origin not stated"
    source = _inline(r.source)
    if r.covers:
        covers = ", ".join(r.covers)
        origin += f", covering **{covers}**"
        if source.startswith(covers):  # said once: the source's rest only
            source = source[len(covers):].lstrip(" ;,:") or "-"
    lines = ["", f'<a id="{_result_anchor(r)}"></a>', "", f"### {_title(r)}", "",
             f"**{r.verdict}**{pin} · {r.kind} · {r.seconds:.1f} s wall, {r.cpu_seconds:.1f} s CPU · "
             f"claim seed {r.seed}", "",
             f"- **Statement.** {_inline(r.statement)}",
             f"- **Origin.** {origin}. Source: {source}."
             + (f" Differs: {_inline(r.deviation)}" if r.deviation else ""),
             f"- **Control** (what it sabotages): {_inline(r.control_description)}"]
    if getattr(r, "power", "") and r.verdict == "inconclusive":
        lines.append(f"- **What would decide it.** {_inline(r.power)}")
    link = f"[evidence]({evidence_page}#{_result_anchor(r)})"
    if r.check:
        lines.append(f"- **Check** ({r.check['status']}): {_inline(r.check['summary'])} ({link})")
    if r.control:
        lines.append(f"- **Control run** ({r.control['status']}): {_inline(r.control['summary'])}")
    elif r.check:
        lines.append("- **Control run**: not run (it runs only when the check passes)")
    if r.error:
        lines.append(f"- **Error**: {_inline(r.reason)} (traceback: {link})")
    elif r.verdict == "error":
        lines.append(f"- **Error**: {_inline(r.reason)}")
    caught = getattr(r, "warnings", None)
    if caught:
        lines.append(f"- **Warnings raised while it ran** ({len(caught)} distinct): "
                     + "; ".join(_inline(w) for w in caught))
    cert = getattr(r, "certificate", None)
    if cert:
        lines += [f"- **Certificate** ({cert.get('status')}, {cert.get('method')}, artifact "
                  f"{cert.get('source', '-')}): {_inline(cert.get('statement', ''))}",
                  f"  - scope: {_inline(cert.get('scope', ''))}",
                  f"  - trusts: {_inline(cert.get('trusts', ''))}",
                  f"  - {_inline(cert.get('summary', ''))}"]
    for role, outcome in (("check", r.check), ("control", r.control)):
        for plot in _plots(outcome):
            lines += ["", f"**{role} plot** `{plot}`:", "", f"![{role} plot]({plot})"]
    return lines


def _evidence_page(paper: str, results: list[ClaimResult], report: str) -> list[str]:
    lines = [f"# Evidence: {paper}", "",
             f"The whole evidence of each claim of `{paper}` in this run, as `report.json` has it; "
             f"[back to the report]({report}).", ""]
    for r in results:
        lines += [f'<a id="{_result_anchor(r)}"></a>', "", f"## {_title(r)}: {r.verdict}", ""]
        for role, outcome in (("check", r.check), ("control", r.control)):
            if outcome is None:
                continue
            lines += [f"**{role}** ({outcome['status']}): {_inline(outcome['summary'])}", "", "```json",
                      json.dumps(outcome.get("evidence", {}), indent=1, sort_keys=True, default=str,
                                 ensure_ascii=False), "```", ""]
        cert = getattr(r, "certificate", None)
        if cert:
            shown = {k: cert.get(k) for k in ("status", "source", "statement", "scope", "method", "trusts",
                                             "control_statement", "covers", "summary", "recheck",
                                             "witness_recheck", "mutation", "seconds") if k in cert}
            lines += ["**certificate** (the proof and witness artifacts are in `report.json`)", "",
                      "```json", json.dumps(shown, indent=1, default=str, ensure_ascii=False), "```", ""]
        if r.error:
            lines += ["**traceback**", "", "```", r.error.strip(), "```", ""]
    return lines


def write_markdown(results: list[ClaimResult], path: Path, meta: dict[str, Any]) -> None:
    """``report.md`` at ``path`` and, beside it, ``evidence/<paper>.md`` with the whole evidence."""
    out_dir = path.parent
    everything = results
    # the summary, pins and coverage are about our implementations; runs on peers (--peers) are
    # findings, in their own table (with only --subject runs, those are what is under test)
    results = [r for r in everything if not getattr(r, "implementations", None)] or everything
    table = counts_by_paper(results)
    verdicts = [v for v in VERDICTS if v in VERDICT_MEANINGS]
    selection = ", ".join(f"{flag} {' '.join(map(str, meta[k]))}" for k, flag in
                          (("papers", "--paper"), ("claims", "--claim"), ("imports", "--import"))
                          if meta.get(k)) or "every claim"
    lines = ["# Verification report", "",
             f"{len(results)} claim(s) of {len(table)} paper(s) ({selection}"
             + (f"; {len(everything) - len(results)} more runs on other implementations"
                if len(everything) > len(results) else "")
             + f"); profile `{meta['profile']}`, "
             f"run seed `{meta['seed']}` (each claim runs under `claim_seed(seed, id)` = "
             "(seed · 1000003 + crc32(id)) mod 2³²). Every claim runs a check against the implementation "
             "and, when it passes, a control: the same check on something false, which it must reject.",
             "", "## Verdicts", "", "| verdict | meaning |", "|---|---|"]
    lines += [f"| **{v}** | {VERDICT_MEANINGS[v][1]} |" for v in verdicts]
    lines += ["", "A verdict other than `verified` (or `certified`) that the claim pins "
              "(`expected_verdict`) is marked *expected*: we measured it, and the paper's note says why.",
              "", "## Summary", "", "| paper | " + " | ".join(verdicts) + " | as pinned |",
              "|---|" + "---|" * (len(verdicts) + 1)]
    total: Counter = Counter()
    for paper in sorted(table):
        total.update(table[paper])
        same = sum(1 for r in results if (r.paper or NO_PAPER) == paper and r.verdict == r.expected_verdict)
        lines.append(f"| [{paper}](#{_anchor(paper)}) | " + " | ".join(str(table[paper][v]) for v in verdicts)
                     + f" | {same}/{sum(table[paper].values())} |")
    same = sum(1 for r in results if r.verdict == r.expected_verdict)
    lines.append("| **total** | " + " | ".join(str(total[v]) for v in verdicts)
                 + f" | {same}/{len(results)} |")
    if implementations := implementations_table(everything):
        lines += ["", "## Implementations under test", "",
                  "The claims that exercise a subject, run on other implementations of it (the "
                  "controls on ours): `python -m verification --peers` or `--subject NAME=module:object`.",
                  "", implementations]
    changed = regressions(results)
    if changed:
        lines += ["", "**Verdicts that changed from the pinned one (`expected_verdict`):** "
                  + ", ".join(f"[{_title(r)}](#{_result_anchor(r)}) {r.expected_verdict} → **{r.verdict}**"
                              for r in changed)]
    covered = coverage_by_paper(results)
    if covered:
        lines += ["", "## Coverage of the papers' numbered results", "",
                  "Computed over the claims that ran: the checkable results that a claim of this run covers "
                  "(or that no claim covers at all). *Certified*: a certified claim's certificate covers the "
                  "result's whole statement; *tested*: a verified claim covers it; *neither*: no verified "
                  "claim in this run does. *Not run*: results whose claims were not selected.", "",
                  "| paper | certified | tested | neither | not run | not checkable |",
                  "|---|---|---|---|---|---|"]
        for paper, cov in covered.items():
            n = len(cov["in_run"])

            def cell(ids: list[str], n: int = n) -> str:
                return f"{len(ids)}/{n}" + (f": {', '.join(ids)}" if ids else "")

            lines.append(f"| {paper} | {cell(cov['certified'])} | {cell(cov['tested'])} | "
                         f"{cell(cov['neither'])} | {len(cov['not_run'])} | "
                         f"{_inline(', '.join(cov['not_checkable']) or '-', cell=True)} |")
    (out_dir / "evidence").mkdir(parents=True, exist_ok=True)
    for paper in sorted(table):
        group = [r for r in everything if (r.paper or NO_PAPER) == paper]
        page_name = "no_paper" if paper == NO_PAPER else paper
        page = f"evidence/{page_name}.md"
        (out_dir / page).write_text("\n".join(_evidence_page(paper, group, "../report.md")) + "\n")
        record = PAPERS.get(paper)
        title = f"{paper}: {record.title}" if record else paper
        note = _note_link(paper, out_dir) if record else None
        links = [f"the paper's note: [{note}]({note})"] if note else []
        links.append(f"the whole evidence: [{page}]({page})")
        lines += ["", f'<a id="{_anchor(paper)}"></a>', "", f"## {title}", "", "; ".join(links) + ".", "",
                  "| claim | kind | verdict | check says | s |", "|---|---|---|---|---|"]
        for r in group:
            mark = " (expected)" if r.verdict == r.expected_verdict and r.verdict in ("falsified",
                                                                                     "inconclusive") else ""
            mark = f" (pinned {r.expected_verdict})" if r.verdict != r.expected_verdict else mark
            mark = "" if getattr(r, "implementations", None) else mark  # a peer's: a finding, not a pin
            says = r.check["summary"] if r.check else r.reason
            lines.append(f"| [{_title(r)}](#{_result_anchor(r)}) | {r.kind} | **{r.verdict}**{mark} | "
                         f"{_inline(says, cell=True)} | {r.seconds:.1f} |")
        for r in group:
            lines += _claim_section(r, page)
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
                 + (f", {len(cov['certified'])} certified" if cov["certified"] else "")
                 + (f" (uncovered: {', '.join(cov['uncovered'])})" if cov["uncovered"] else "")
                 if cov else "no map")
        lines.append(
            f"| `{key}` | {paper.title} | `algorithms.{paper.family}` | "
            f"{'yes' if implemented and claims_per_paper[key] else 'no'} | "
            f"{claims_per_paper[key]} | {verdicts} | {share} | {note} |")
    path.write_text("\n".join(lines) + "\n")
