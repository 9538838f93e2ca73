"""The verification runner: executes every claim and its control, writes reports.

Run ``python -m verification --help``. Programmatic use:

>>> from verification import run_claims, select_claims, write_report
>>> callable(run_claims) and callable(select_claims) and callable(write_report)
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["ClaimResult", "run_claim", "run_claims", "select_claims", "write_report"]


def __getattr__(name: str) -> Any:
    # Lazy, so that ``python -m verification`` reaches its own check for a missing
    # dependency (``__main__``) before numpy or torch is imported.
    if name == "write_report":
        from verification import report

        return report.write_report
    if name in __all__:
        from verification import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'verification' has no attribute {name!r}")
