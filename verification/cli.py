"""``python -m verification``: run the claims, print one line per claim and a summary, write the reports.

``python -m verification mutate --paper KEY ...`` runs mutation testing instead
(see :mod:`verification.mutate`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from pathlib import Path

import cloudpickle

from verification.report import (
    coverage_table,
    implementations_table,
    legend_line,
    regressions,
    summary_table,
    write_index,
    write_json,
    write_markdown,
)
from verification.runner import ClaimResult, run_claims, select_claims

#: verdicts that fail a run even when pinned (a pin cannot hold them: see ``Claim.expected_verdict``)
ALWAYS_BAD = frozenset({"vacuous", "error"})
#: verdicts that ``--strict`` also fails on, pinned or not
NOT_HOLDING = frozenset({"falsified", "inconclusive"})


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only where there is one to show (not ``None``, ``False`` or ``[]``)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if default is None or default is False or default == [] or default is argparse.SUPPRESS \
                or "default" in text:
            return text
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m verification",
        description="Run each claim and its control against the implementations. Exit status 0 when "
                    "every verdict is the one pinned on its claim (expected_verdict), 1 otherwise or "
                    "on any vacuous or error verdict, 2 on a usage error. "
                    "`python -m verification mutate --help` for mutation testing.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--paper", nargs="+", metavar="KEY", help="only these paper keys (default: all)")
    parser.add_argument("--claim", nargs="+", metavar="ID", help="only these claim ids (default: all)")
    parser.add_argument("--import", dest="imports", nargs="+", metavar="MODULE", default=[],
                        help="also import these modules (dotted names or .py paths) whose claims "
                             "register with theorems.core.register: claims of one's own")
    parser.add_argument("--profile", choices=("quick", "full"), default="quick",
                        help="quick: minutes on a laptop; full: paper-scale sweeps")
    parser.add_argument("--seed", type=int, default=0,
                        help="run seed; a claim runs under (seed * 1000003 + crc32(claim id)) mod 2**32 "
                             "(verification.runner.claim_seed), so claims draw independently and adding "
                             "one changes no other's draws")
    parser.add_argument("--jobs", type=int, default=2,
                        help="worker processes, each claim stopped past its CPU-time budget (0 runs in this "
                             "process, without budgets)")
    parser.add_argument("--out", type=Path, default=Path("reports/latest"),
                        help="output folder for report.json, report.md and plots")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="run the claims on an existing Dask cluster (scheduler address)")
    parser.add_argument("--list", action="store_true",
                        help="list the selected claims by paper (kind, origin, pinned verdict, source) "
                             "and exit")
    parser.add_argument("--subject", nargs="+", metavar="NAME=MODULE:OBJECT", default=[],
                        help="run the claims that exercise subject NAME (e.g. Muon) against another "
                             "implementation, e.g. Muon=torch.optim:Muon or Muon=my_muon:MyMuon; the "
                             "controls keep running on ours; claims that do not exercise NAME are skipped")
    parser.add_argument("--peers", action="store_true",
                        help="run the claims that exercise a subject against every registered peer "
                             "implementation of it (torch, pytorch-optimizer, heavyball, ...) beside ours, "
                             "and print the table claim x implementation")
    parser.add_argument("--strict", action="store_true",
                        help="also exit 1 on falsified or inconclusive verdicts pinned as expected")
    parser.add_argument("--write-index", type=Path, metavar="PATH",
                        help="also regenerate the paper-notes index at PATH from this run")
    parser.add_argument("--no-progress", action="store_true",
                        help="print only the per-claim lines, no progress bar")
    return parser


def import_claim_modules(names: list[str]) -> None:
    """Import each module (a dotted name, or a path to a .py file) so its claims register."""
    for name in names:
        path = Path(name)
        if name.endswith(".py"):
            if not path.is_file():
                raise ValueError(f"--import: no file {name!r}")
            loaded = {Path(m.__file__).resolve() for m in list(sys.modules.values())
                      if getattr(m, "__file__", None)}
            if path.resolve() in loaded:  # already imported (e.g. under its package name)
                continue
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            # a file need not be importable by name in a worker: send its claims by value
            cloudpickle.register_pickle_by_value(module)
        else:
            try:
                importlib.import_module(name)
            except ModuleNotFoundError as exc:
                raise ValueError(f"--import: cannot import {name!r}: {exc}") from exc


def claim_line(result: ClaimResult, done: int, total: int) -> str:
    """One line per finished claim: verdict, id, kind, seconds, whether the verdict is the pinned one,
    and (under it) why when it is not verified."""
    width = len(str(total))
    line = (f"[{done:>{width}}/{total}] {result.verdict.upper():<12} {result.id:<44} "
            f"{result.kind:<9} {result.seconds:7.1f} s")
    if result.implementations:
        line += " on " + ", ".join(f"{k}={v}" for k, v in result.implementations.items())
    if result.verdict != result.expected_verdict:
        line += f"  !! REGRESSION: pinned {result.expected_verdict}"
    elif result.expected_verdict in NOT_HOLDING:
        line += "  (expected: pinned on the claim, see the paper's note)"
    if result.verdict not in ("verified", "certified"):
        line += f"\n{'':>{2 * width + 3}} {' '.join(result.reason.split())[:300]}"
    return line


def exit_code(results: list[ClaimResult], strict: bool = False) -> int:
    """0 when every verdict is the one pinned on its claim and none is vacuous or error; else 1.
    ``strict`` also fails on ``falsified``/``inconclusive`` verdicts that are pinned."""
    if regressions(results) or any(r.verdict in ALWAYS_BAD for r in results):
        return 1
    if strict and any(r.verdict in NOT_HOLDING for r in results):
        return 1
    return 0


def list_claims(claims: list) -> str:
    """The selected claims grouped by paper (its title as the heading): id, kind, origin, pin, source."""
    from theorems.papers import PAPERS

    by_paper: dict[str | None, list] = {}
    for c in claims:
        by_paper.setdefault(c.paper, []).append(c)
    lines: list[str] = []
    for paper, group in by_paper.items():
        record = PAPERS.get(paper) if paper else None
        title = f"{paper}: {record.title}" if record else (paper or "(no paper)")
        lines += [f"{title} ({len(group)} claims)"]
        for c in group:
            pin = "" if c.expected_verdict == "verified" else f"pinned {c.expected_verdict}"
            lines.append(f"  {c.id:<46} {c.kind!s:<9} {c.origin or '-'!s:<21} {pin:<20} {c.source}")
        lines.append("")
    lines.append(f"{len(claims)} claims")
    return "\n".join(lines)


def implementation_runs(subjects: list[str], peers: bool) -> list[dict[str, str]]:
    """The implementation sets to run: one per ``--subject`` NAME (all its specs together when a
    name is given once; ``--peers`` adds one run per registered peer of every subject)."""
    from theorems.core.subjects import PEERS, SUBJECTS, parse_spec

    given: dict[str, str] = {}
    for text in subjects:
        name, spec = parse_spec(text)
        if name not in SUBJECTS:
            raise ValueError(f"--subject: unknown subject {name!r}; known: {', '.join(sorted(SUBJECTS))}")
        if name in given:
            raise ValueError(f"--subject: {name} given twice; run one implementation of it at a time")
        given[name] = spec
    runs = [given] if given else []
    if peers:
        runs += [{name: spec} for name in sorted(PEERS) for spec in PEERS[name].values()]
    return runs


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["mutate"]:
        from verification.mutate import main as mutate_main

        return mutate_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        import_claim_modules(args.imports)
        claims = select_claims(args.paper, args.claim)
        runs = implementation_runs(args.subject, args.peers)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if runs:
        exercising = {c.id for c in claims if any(set(c.subjects) & set(impl) for impl in runs)}
        skipped = len(claims) - len(exercising)
        claims = [c for c in claims if c.id in exercising]
        names = sorted({name for impl in runs for name in impl})
        print(f"{skipped} selected claim(s) skipped: they do not exercise {', '.join(names)}", flush=True)
    if args.list:
        print(list_claims(claims))
        return 0
    if not claims:
        print("no claims selected", file=sys.stderr)
        return 2
    plans = [(impl, [c for c in claims if not impl or set(c.subjects) & set(impl)])
             for impl in ([{}] if args.peers or not runs else []) + runs]
    total = sum(len(subset) for _, subset in plans)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    bar = None
    if not args.no_progress and sys.stdout.isatty():
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="claims", unit="claim", leave=False)
    finished = 0

    def on_result(result: ClaimResult) -> None:
        nonlocal finished
        finished += 1
        line = claim_line(result, finished, total)
        if bar is not None:
            bar.update(1)
            bar.write(line)
        else:  # not a terminal: plain lines, one per claim, flushed as they come
            print(line, flush=True)

    print(f"running {total} claims, profile {args.profile}, seed {args.seed}, "
          f"jobs {args.jobs}", flush=True)
    results: list[ClaimResult] = []
    try:
        for implementations, subset in plans:
            if implementations:
                print("on " + ", ".join(f"{k}={v}" for k, v in implementations.items()), flush=True)
            results += run_claims(subset, seed=args.seed, profile=args.profile, out_dir=args.out,
                                  jobs=args.jobs, dask_address=args.dask, on_result=on_result,
                                  report=False, implementations=implementations)
    finally:
        if bar is not None:
            bar.close()
    table, everything = implementations_table(results), results
    if args.peers:  # peers' verdicts are findings; the exit status and the summary are about ours
        results = [r for r in results if not r.implementations]
    meta = {"profile": args.profile, "seed": args.seed,
            "papers": args.paper, "claims": args.claim, "imports": args.imports,
            "wall_seconds": round(time.time() - started, 1)}
    write_json(everything, args.out / "report.json", meta)
    write_markdown(everything, args.out / "report.md", meta)
    if args.write_index:
        write_index(results, args.write_index)
    print()
    print(summary_table(results))
    if table:
        print()
        print(table)
    coverage = coverage_table(results)
    if coverage:
        print()
        print(coverage)
    changed = regressions(results)
    if changed:
        print()
        print(f"!! {len(changed)} claim(s) changed verdict from the one pinned on the claim "
              "(expected_verdict):")
        for r in changed:
            print(f"!!   {r.id}: {r.expected_verdict} -> {r.verdict}")
    pinned = [r for r in results if r.verdict == r.expected_verdict and r.verdict in NOT_HOLDING]
    print()
    print(legend_line())
    code = exit_code(results, args.strict)
    print(f"{len(results) - len(changed)} of {len(results)} verdicts as pinned "
          f"({len(pinned)} of them pinned falsified or inconclusive: see the papers' notes); "
          f"{len(changed)} changed. Exit status {code}"
          + (" (--strict: pinned falsified/inconclusive fail too)" if args.strict else "") + ".")
    print(f"reports: {args.out / 'report.md'}, {args.out / 'report.json'}")
    return code
