"""Claims as objects: a statement, a check that runs it against the implementation, and a control.

A :class:`Claim` pairs a ``check`` with a ``control``: the same test run on a
sabotaged implementation, a bound tightened past the truth, or inputs that
break an assumption. The control must be *rejected*; a check whose control
passes proves nothing (verdict ``vacuous``).

Both callables take a :class:`Context` and return an :class:`Outcome`. The helpers
that turn each kind of check into an Outcome live beside this module:
:mod:`theorems.core.evidence` (symbolic, property, numeric) and
:mod:`theorems.core.rates` (log-log slopes with a bootstrap interval).
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from theorems.papers import PAPERS

__all__ = [
    "REGISTRY",
    "Claim",
    "Context",
    "Kind",
    "Outcome",
    "all_claims",
    "claims_for",
    "load_all",
    "register",
]


class Kind(enum.StrEnum):
    SYMBOLIC = "symbolic"  # sympy proves an identity/inequality; sympy's "cannot decide" -> undecided
    PROPERTY = "property"  # hypothesis draws instances under the assumptions, asserts the bound
    RATE = "rate"  # log-log slope over a size sweep, bootstrap interval over seeds
    NUMERIC = "numeric"  # one quantity computed two independent ways, justified tolerance


Status = Literal["pass", "fail", "undecided"]


@dataclass
class Outcome:
    """What one run of a check (or a control) found.

    ``status`` is ``pass`` (the claimed property held), ``fail`` (it did not:
    ``evidence`` holds the counterexample) or ``undecided`` (e.g. sympy could
    not decide, or a rate interval was too wide). ``evidence`` must be
    JSON-serialisable and deterministic under the context's seed. ``artifacts``
    lists files written (plots), relative to the context's ``out_dir``.
    """

    status: Status
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.status not in ("pass", "fail", "undecided"):
            raise ValueError(f"status must be pass, fail or undecided, got {self.status!r}")

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "summary": self.summary,
            "evidence": self.evidence,
            "artifacts": self.artifacts,
        }


@dataclass(frozen=True)
class Context:
    """What a check may depend on: a seed, a profile and where to write plots."""

    seed: int = 0
    profile: Literal["quick", "full"] = "quick"
    out_dir: Path | None = None
    role: Literal["check", "control"] = "check"

    def rng(self, salt: str = "") -> np.random.Generator:
        """A generator seeded by the context seed and ``salt`` (stable across runs)."""
        return np.random.default_rng([self.seed, zlib.crc32(salt.encode())])

    def pick(self, quick: Any, full: Any) -> Any:
        """The profile's value of a size: ``quick`` for the quick profile, else ``full``."""
        return quick if self.profile == "quick" else full

    def artifact_path(self, name: str) -> Path | None:
        """A path under ``out_dir`` for an artifact (None when no output folder is set)."""
        if self.out_dir is None:
            return None
        path = Path(self.out_dir) / "plots" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


@dataclass(frozen=True)
class Claim:
    """One executable claim of one paper.

    ``budget_s`` bounds the wall time of check + control in the quick profile
    (the full profile gets ``full_budget_s``); the runner stops a claim past it.
    """

    id: str
    paper: str
    source: str
    statement: str
    kind: Kind
    check: Callable[[Context], Outcome]
    control: Callable[[Context], Outcome]
    control_description: str
    budget_s: float = 120.0
    full_budget_s: float = 1800.0
    #: set only for a claim we measured NOT to be verified (``falsified`` or
    #: ``inconclusive``); the paper note explains why. The tests pin it, so a change
    #: in either direction is noticed; the runner still reports the verdict as is.
    expected_verdict: str = "verified"

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"claim {self.id!r}: unknown paper key {self.paper!r}")
        if not self.id.startswith(self.paper + "."):
            raise ValueError(f"claim id {self.id!r} must start with its paper key {self.paper!r}.")
        if not isinstance(self.kind, Kind):
            raise TypeError(f"claim {self.id!r}: kind must be a Kind, got {self.kind!r}")
        for name in ("check", "control"):
            if not callable(getattr(self, name)):
                raise TypeError(f"claim {self.id!r}: {name} must be callable")
        if self.expected_verdict not in ("verified", "falsified", "inconclusive"):
            raise ValueError(f"claim {self.id!r}: expected_verdict must be verified, falsified "
                             f"or inconclusive, got {self.expected_verdict!r}")
        for name in ("source", "statement", "control_description"):
            if not getattr(self, name).strip():
                raise ValueError(f"claim {self.id!r}: {name} must not be empty")

    def budget(self, profile: str) -> float:
        return self.budget_s if profile == "quick" else self.full_budget_s


REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry (ids are unique)."""
    existing = REGISTRY.get(claim.id)
    if existing is not None and existing is not claim:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    REGISTRY[claim.id] = claim
    return claim


def load_all() -> dict[str, Claim]:
    """Import every paper module under ``theorems`` so that its claims register."""
    for key in PAPERS:
        name = f"theorems.{key}"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
    return REGISTRY


def all_claims() -> list[Claim]:
    load_all()
    return [REGISTRY[k] for k in sorted(REGISTRY)]


def claims_for(paper: str) -> list[Claim]:
    return [c for c in all_claims() if c.paper == paper]
