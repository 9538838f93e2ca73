"""Every paper's headline claims as executable objects (see :mod:`theorems.core`).

>>> from theorems import all_claims
>>> all(c.control is not None for c in all_claims())
True
"""

from theorems.core import (
    REGISTRY,
    Claim,
    Context,
    Kind,
    Origin,
    Outcome,
    Result,
    all_claims,
    claims_for,
    coverage,
    load_all,
    register,
    register_results,
)
from theorems.papers import PAPERS, Paper, register_paper

__all__ = [
    "PAPERS",
    "REGISTRY",
    "Claim",
    "Context",
    "Kind",
    "Origin",
    "Outcome",
    "Paper",
    "Result",
    "all_claims",
    "claims_for",
    "coverage",
    "load_all",
    "register",
    "register_paper",
    "register_results",
]
