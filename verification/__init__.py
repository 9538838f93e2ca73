"""The verification runner: executes every claim and its control, writes reports.

Run ``python -m verification --help``. Programmatic use:

>>> from verification import run_claims, select_claims
>>> callable(run_claims) and callable(select_claims)
True
"""

from verification.runner import ClaimResult, run_claim, run_claims, select_claims

__all__ = ["ClaimResult", "run_claim", "run_claims", "select_claims"]
