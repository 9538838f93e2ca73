"""``python -m verification``: run the claims, print a summary, write the reports."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from verification.report import summary_table, write_index, write_json, write_markdown
from verification.runner import BAD_VERDICTS, run_claims, select_claims


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m verification",
        description="Run each claim and its control against the implementations.",
    )
    parser.add_argument("--paper", nargs="+", metavar="KEY", help="only these paper keys")
    parser.add_argument("--claim", nargs="+", metavar="ID", help="only these claim ids")
    parser.add_argument("--profile", choices=("quick", "full"), default="quick",
                        help="quick: minutes on a laptop (default); full: paper-scale sweeps")
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="worker processes (default 2; 0 runs in-process without budgets)")
    parser.add_argument("--out", type=Path, default=Path("reports/latest"),
                        help="output folder for report.json, report.md and plots")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="run the claims on an existing Dask cluster (scheduler address)")
    parser.add_argument("--list", action="store_true", help="list the selected claims and exit")
    parser.add_argument("--write-index", type=Path, metavar="PATH",
                        help="also regenerate the paper-notes index at PATH from this run")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        claims = select_claims(args.paper, args.claim)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for c in claims:
            print(f"{c.id:<44} {c.kind!s:<9} {c.source}")
        print(f"{len(claims)} claims")
        return 0
    if not claims:
        print("no claims selected", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    results = run_claims(claims, seed=args.seed, profile=args.profile, out_dir=args.out,
                         jobs=args.jobs, dask_address=args.dask,
                         progress=not args.no_progress)
    meta = {"profile": args.profile, "seed": args.seed,
            "papers": args.paper, "claims": args.claim,
            "wall_seconds": round(time.time() - started, 1)}
    write_json(results, args.out / "report.json", meta)
    write_markdown(results, args.out / "report.md", meta)
    if args.write_index:
        write_index(results, args.write_index)
    for r in results:
        if r.verdict != "verified":
            print(f"{r.verdict.upper():>12}  {r.id}: {r.reason}")
    print(summary_table(results))
    print(f"reports: {args.out / 'report.md'}, {args.out / 'report.json'}")
    return 1 if any(r.verdict in BAD_VERDICTS for r in results) else 0
