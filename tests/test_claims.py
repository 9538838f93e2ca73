"""Every registered claim with its control, quick profile, parametrized from the registry.

A new claim is tested here without new code. The assertion is the verdict:
``verified``, or an honest ``falsified``/``inconclusive`` recorded on the claim
as ``expected_verdict`` with the paper note that explains it. Anything else
(vacuous, error, or a verdict that changed) fails.
"""

import pytest

from theorems import all_claims
from verification.runner import run_claim

CLAIMS = all_claims()


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_and_control(claim, tmp_path):
    result = run_claim(claim, seed=0, profile="quick", out_dir=tmp_path)
    assert result.verdict == claim.expected_verdict, (
        f"{claim.id}: {result.verdict}: {result.reason}\n{result.error or ''}")
