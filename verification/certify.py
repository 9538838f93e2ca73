"""``python -m verification.certify``: produce, recheck and store certificate artifacts.

The quick profile rechecks the artifacts stored in ``theorems/certificates/<claim id>.json``;
this command runs each certificate's producers anew (what the full profile does), rechecks
the result exactly as the runner does (proof accepted, control refuted by its witness, a
corrupted proof rejected) and, when all three hold, stores it::

    python -m verification.certify --claim cei_rates.acquisition_formula
    python -m verification.certify --paper cei_rates dynamic_matchoid
    python -m verification.certify --check      # recheck every stored artifact, store nothing

Exit status 0 when every selected certificate came out ``certified``.
"""

from __future__ import annotations

import argparse
import sys

from theorems.core.certificates import load_artifacts, run_certificate, store_artifacts
from verification.runner import select_claims


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verification.certify",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--paper", nargs="+", metavar="KEY", help="only these papers' certificates")
    parser.add_argument("--claim", nargs="+", metavar="ID", help="only these claims' certificates")
    parser.add_argument("--check", action="store_true",
                        help="recheck the stored artifacts (the quick profile's path); store nothing")
    args = parser.parse_args(argv)
    claims = [c for c in select_claims(args.paper, args.claim) if c.certificate is not None]
    if not claims:
        print("no selected claim has a certificate", file=sys.stderr)
        return 2
    failed = 0
    for claim in claims:
        cert = claim.certificate
        if args.check:
            if load_artifacts(claim.id, cert) is None:
                print(f"MISSING    {claim.id}: no stored artifact for the current statement")
                failed += 1
                continue
            record = run_certificate(claim.id, cert, profile="quick")
        else:
            record = run_certificate(claim.id, cert, profile="full")
            if record["status"] == "certified":
                store_artifacts(claim.id, cert, {"proof": record["proof"], "witness": record["witness"]})
        failed += record["status"] != "certified"
        print(f"{record['status']:<10} {claim.id} ({record['seconds']:.2f} s): {record['summary']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
