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
    Outcome,
    all_claims,
    claims_for,
    load_all,
    register,
)
from theorems.papers import PAPERS, Paper

__all__ = [
    "PAPERS",
    "REGISTRY",
    "Claim",
    "Context",
    "Kind",
    "Outcome",
    "Paper",
    "all_claims",
    "claims_for",
    "load_all",
    "register",
]
