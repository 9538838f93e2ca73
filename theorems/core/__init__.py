"""Claims as objects: a statement, a check that runs it against the implementation, and a control.

A :class:`Claim` pairs a ``check`` with a ``control``: the same test run on a
sabotaged implementation, a bound tightened past the truth, or inputs that
break an assumption. The control must be *rejected*; a check whose control
passes proves nothing (verdict ``vacuous``).

Every claim says where it comes from (:class:`Origin`): the paper's numbered
result(s) it encodes (``covers`` names them as in the paper's results map and
``deviation`` says how the claim differs from them, if it does), or a
consequence we derived, a proof ingredient, a prior paper's result applied
here, or an implementation check. Each paper module lists the paper's main
numbered results with :func:`register_results`; coverage (checkable results
with a verified claim) is computed from the two by :func:`coverage`.

A claim of one's own, on a paper of one's own (or on none):

>>> from theorems.papers import register_paper
>>> _ = register_paper("mypaper", "My paper", "Doe 2026")
>>> claim = Claim(id="mypaper.square", paper="mypaper", source="Lemma 1", origin=Origin.PAPER,
...               covers=("Lemma 1",), statement="x² >= 0 for real x", kind=Kind.SYMBOLIC,
...               check=lambda ctx: Outcome("pass", "holds"),
...               control=lambda ctx: Outcome("fail", "x³ >= 0 fails at -1"),
...               control_description="x³ in place of x²")
>>> Claim(id="scratch.check", paper=None, source="mine", origin=Origin.IMPLEMENTATION,
...       statement="s", kind=Kind.NUMERIC, check=claim.check, control=claim.control,
...       control_description="c").paper is None
True
>>> _ = PAPERS.pop("mypaper")

Both callables take a :class:`Context` and return an :class:`Outcome`. The helpers
that turn each kind of check into an Outcome live beside this module:
:mod:`theorems.core.evidence` (symbolic, property, numeric) and
:mod:`theorems.core.rates` (log-log slopes with a bootstrap interval).
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import math
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from theorems.core.certificates import Certificate
from theorems.core.subjects import SUBJECTS, load_object
from theorems.papers import PAPERS

__all__ = [
    "REGISTRY",
    "RESULTS",
    "Claim",
    "Context",
    "Kind",
    "Origin",
    "Outcome",
    "Result",
    "all_claims",
    "claims_for",
    "coverage",
    "load_all",
    "load_papers",
    "numbered_items",
    "pending_maps",
    "register",
    "register_results",
    "unmapped_items",
]


class Kind(enum.StrEnum):
    SYMBOLIC = "symbolic"  # sympy proves an identity/inequality; sympy's "cannot decide" -> undecided
    PROPERTY = "property"  # hypothesis draws instances under the assumptions, asserts the bound
    RATE = "rate"  # log-log slope over a size sweep, bootstrap interval over seeds
    NUMERIC = "numeric"  # one quantity computed two independent ways, justified tolerance


class Origin(enum.StrEnum):
    """Where a claim's statement comes from."""

    PAPER = "paper"  # the cited paper's numbered result(s), named in ``covers``
    DERIVED = "derived"  # a consequence we derived from the paper's results
    PROOF_STEP = "proof step"  # an ingredient of one of the paper's proofs, not a numbered result
    PRIOR = "prior result"  # a prior paper's result, applied to this paper's setting
    IMPLEMENTATION = "implementation check"  # a property of our implementation, not a theorem


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
    """What a check may depend on: a seed, a profile, where to write plots, and the
    implementations it exercises (``implementations``: (subject name, ``module:object``)
    pairs replacing our reference for the check; see :meth:`subject`)."""

    seed: int = 0
    profile: Literal["quick", "full"] = "quick"
    out_dir: Path | None = None
    role: Literal["check", "control"] = "check"
    implementations: tuple[tuple[str, str], ...] = ()

    def subject(self, name: str) -> Any:
        """The implementation registered as subject ``name``: ours, or the one this run was
        given for it (``--subject NAME=module:object``). A control always gets ours, since its
        sabotage is planted in our reference."""
        return load_object(self.subject_spec(name))

    def subject_spec(self, name: str) -> str:
        """The ``module:object`` :meth:`subject` loads for ``name`` (a key for caches of runs)."""
        if name not in SUBJECTS:
            raise ValueError(f"unknown subject {name!r}; known: {', '.join(sorted(SUBJECTS))}")
        given = dict(self.implementations).get(name) if self.role == "check" else None
        return given or SUBJECTS[name].reference

    def rng(self, salt: str = "") -> np.random.Generator:
        """A generator seeded by the context seed and ``salt`` (stable across runs)."""
        return np.random.default_rng([self.seed, zlib.crc32(salt.encode())])

    def pick(self, quick: Any, full: Any) -> Any:
        """The profile's value of a size: ``quick`` for the quick profile, else ``full``."""
        return quick if self.profile == "quick" else full

    def artifact_path(self, name: str) -> Path | None:
        """A path under ``out_dir`` for an artifact (None when no output folder is set):
        ``plots/<name>`` for the check, ``plots/control/<name>`` for the control (so the two never
        overwrite each other)."""
        if not isinstance(name, str) or not name.strip() or Path(name).is_absolute() \
                or ".." in Path(name).parts:
            raise ValueError(f"artifact name must be a relative file name, got {name!r}")
        if self.out_dir is None:
            return None
        path = Path(self.out_dir) / "plots" / ("control" if self.role == "control" else "") / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def savefig(self, fig: Any, name: str, *, dpi: int = 90) -> list[str]:
        """Save a matplotlib figure as ``name`` (see :meth:`artifact_path`), close it, and return the
        artifacts list for :class:`Outcome` (``[]`` when the run writes no files).

        >>> import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
        >>> Context().savefig(plt.figure(), "mine.png")  # no out_dir: nothing written
        []
        """
        if not hasattr(fig, "savefig"):
            raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
        path = self.artifact_path(name if Path(name).suffix else f"{name}.png")
        try:
            if path is None:
                return []
            fig.savefig(path, dpi=dpi)
            return [path.relative_to(self.out_dir).as_posix()]
        finally:
            import matplotlib.pyplot as plt

            plt.close(fig)


@dataclass(frozen=True)
class Result:
    """One numbered result of a paper (``id`` as the paper numbers it, e.g. ``"Theorem 4.1"``).

    ``statement`` is one line in our words; ``checkable`` says whether a computation on
    concrete instances can check it, and ``why`` says why not (required then).
    """

    id: str
    statement: str
    checkable: bool
    why: str = ""

    def __post_init__(self) -> None:
        if not self.id.strip() or not self.statement.strip():
            raise ValueError(f"result {self.id!r}: id and statement must not be empty")
        if not isinstance(self.checkable, bool):
            raise TypeError(f"result {self.id!r}: checkable must be a bool, got {self.checkable!r}")
        if not self.checkable and not self.why.strip():
            raise ValueError(f"result {self.id!r}: say why it is not checkable (why=...)")


@dataclass(frozen=True)
class Claim:
    """One executable claim of one paper (or of none: ``paper=None``).

    ``origin`` says where the statement comes from. For ``Origin.PAPER`` the claim
    ``covers`` the paper's numbered results it encodes (ids of its results map) and
    ``deviation`` is empty when the statement says what those results say, else one
    sentence on how it differs (narrower instances, one direction, a constant we chose).
    Other origins cover no result; their ``source`` names what they come from.

    ``budget_s`` bounds the CPU time of check + control in the quick profile (the full
    profile gets ``full_budget_s``); the runner's workers stop a claim past it (see
    :meth:`verification.runner._Worker.over_budget`), whatever the machine's load.
    """

    id: str
    paper: str | None
    source: str
    statement: str
    kind: Kind
    check: Callable[[Context], Outcome]
    control: Callable[[Context], Outcome]
    control_description: str
    origin: Origin | None = None
    covers: tuple[str, ...] = ()
    deviation: str = ""
    budget_s: float = 120.0
    full_budget_s: float = 1800.0
    #: the claim's CPU seconds (check + control) in the quick profile, measured on an idle core; set on
    #: the costliest claims only. The runner's workers take the costliest first (longest processing time
    #: first), so that a long claim does not start last and set the wall time of the run. Scheduling only:
    #: each claim seeds itself, so its verdict and evidence do not depend on the order.
    cost_s: float = 0.5
    #: ``certified`` for a claim with a certificate that is proved; set to ``falsified`` or
    #: ``inconclusive`` for a claim we measured NOT to be verified (the paper note explains
    #: why). The tests pin it, so a change in either direction is noticed; the runner still
    #: reports the verdict as is.
    expected_verdict: str = "verified"
    #: the mathematics proved over a scope, beside the check (:mod:`theorems.core.certificates`)
    certificate: Certificate | None = None
    #: the implementations the check takes from ``ctx.subject(name)`` (:mod:`theorems.core.subjects`),
    #: so that it can run against anyone's
    subjects: tuple[str, ...] = ()
    #: for a claim pinned ``inconclusive``: its power statement, what would decide it (the sample
    #: size or horizon at the measured effect) and whether the full profile runs that size, or why
    #: no size we can run decides it. Required for that pin; shown beside the verdict.
    power: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValueError(f"claim id must be a non-empty str, got {self.id!r}")
        if self.paper is not None:
            if self.paper not in PAPERS:
                raise ValueError(f"claim {self.id!r}: unknown paper key {self.paper!r}; register it "
                                 "with theorems.papers.register_paper(key, title, reference), or "
                                 "pass paper=None")
            if not self.id.startswith(self.paper + "."):
                raise ValueError(f"claim id {self.id!r} must start with its paper key {self.paper!r}.")
        if self.origin is not None and not isinstance(self.origin, Origin):
            raise TypeError(f"claim {self.id!r}: origin must be an Origin, got {self.origin!r}")
        if isinstance(self.covers, str) or not all(isinstance(c, str) for c in self.covers):
            raise TypeError(f"claim {self.id!r}: covers must be a tuple of result ids, got {self.covers!r}")
        if self.origin is Origin.PAPER and not self.covers:
            raise ValueError(f"claim {self.id!r}: origin PAPER needs covers=(the numbered results,)")
        if self.origin not in (None, Origin.PAPER) and self.covers:
            raise ValueError(f"claim {self.id!r}: only origin PAPER covers the paper's results; "
                             f"a {self.origin} claim names its basis in source")
        if not isinstance(self.kind, Kind):
            raise TypeError(f"claim {self.id!r}: kind must be a Kind, got {self.kind!r}")
        for name in ("check", "control"):
            if not callable(getattr(self, name)):
                raise TypeError(f"claim {self.id!r}: {name} must be callable")
        if self.expected_verdict not in ("certified", "verified", "falsified", "inconclusive"):
            raise ValueError(f"claim {self.id!r}: expected_verdict must be certified, verified, "
                             f"falsified or inconclusive, got {self.expected_verdict!r}")
        if self.certificate is not None and not isinstance(self.certificate, Certificate):
            raise TypeError(f"claim {self.id!r}: certificate must be a Certificate, "
                            f"got {self.certificate!r}")
        if isinstance(self.subjects, str) or any(name not in SUBJECTS for name in self.subjects):
            raise ValueError(f"claim {self.id!r}: subjects must be a tuple of registered subject names "
                             f"(theorems.core.subjects.register_subject), got {self.subjects!r}")
        if not isinstance(self.power, str):
            raise TypeError(f"claim {self.id!r}: power must be a str, got {self.power!r}")
        if self.expected_verdict == "inconclusive" and not self.power.strip():
            raise ValueError(f"claim {self.id!r}: a claim pinned inconclusive needs power=... (the size or "
                             "horizon that would decide it, and whether the full profile runs it; or why "
                             "no size we can run decides it)")
        if self.expected_verdict == "certified" and self.certificate is None:
            raise ValueError(f"claim {self.id!r}: expected_verdict 'certified' needs a certificate")
        for rid in self.certificate.covers if self.certificate is not None else ():
            if rid not in self.covers:
                raise ValueError(f"claim {self.id!r}: its certificate covers {rid!r}, which the "
                                 f"claim does not cover (covers={self.covers!r})")
        if (isinstance(self.cost_s, bool) or not isinstance(self.cost_s, int | float)
                or not math.isfinite(self.cost_s) or self.cost_s <= 0):
            raise ValueError(f"claim {self.id!r}: cost_s must be a finite number of seconds > 0, "
                             f"got {self.cost_s!r}")
        for name in ("source", "statement", "control_description"):
            if not getattr(self, name).strip():
                raise ValueError(f"claim {self.id!r}: {name} must not be empty")

    def budget(self, profile: str) -> float:
        return self.budget_s if profile == "quick" else self.full_budget_s


REGISTRY: dict[str, Claim] = {}

#: paper key -> its main numbered results (each paper module calls :func:`register_results`)
RESULTS: dict[str, tuple[Result, ...]] = {}


def register_results(paper: str, results: list[Result]) -> tuple[Result, ...]:
    """Record ``paper``'s numbered results (its results map); ids must be unique."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper key {paper!r}")
    results = tuple(results)
    ids = [r.id for r in results]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{paper}: result ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}")
    if paper in RESULTS and RESULTS[paper] != results:
        raise ValueError(f"{paper}: results map registered twice")
    RESULTS[paper] = results
    return results


#: the papers' main-text numbered results, tables and figures, read off the full texts by someone
#: other than the maps' authors (``theorems/numbered.toml``); every map must list each of them
NUMBERED_PATH = Path(__file__).resolve().parent.parent / "numbered.toml"


def _numbered() -> dict[str, Any]:
    import tomllib

    return tomllib.loads(NUMBERED_PATH.read_text(encoding="utf-8")) if NUMBERED_PATH.is_file() else {}


def numbered_items(paper: str) -> tuple[str, ...] | None:
    """``paper``'s main-text numbered items as recorded in ``theorems/numbered.toml`` (None: not recorded)."""
    items = _numbered().get(paper, {}).get("items")
    return tuple(items) if items is not None else None


def pending_maps() -> tuple[str, ...]:
    """Papers whose maps are known not to list every recorded numbered item yet (``pending``)."""
    return tuple(_numbered().get("pending", ()))


def unmapped_items(paper: str) -> list[str]:
    """The recorded numbered items of ``paper`` that its results map does not list (an item
    ``Figure 5`` is listed by ``Figure 5`` itself or by its panels, e.g. ``Figure 5 (left)``)."""
    load_all()
    ids = [r.id for r in RESULTS.get(paper, ())]
    return [item for item in numbered_items(paper) or ()
            if not any(i == item or i.startswith(f"{item} ") or i.startswith(f"{item}(") for i in ids)]


def coverage(paper: str, verdicts: dict[str, str] | None = None) -> dict[str, Any]:
    """Which of ``paper``'s checkable results have a claim (``verdicts`` given: a verified or
    certified one), and which are certified.

    Returns ``checkable``, ``covered`` (result ids with a claim: tested or certified),
    ``certified`` (those whose whole statement a certificate's scope covers: a claim with a
    certificate naming the result in its ``covers``; with ``verdicts``, a certified claim),
    ``uncovered`` (checkable ids without a claim), ``not_checkable`` ({id: why}) and ``claims``
    ({result id: claim ids covering it}).
    """
    load_papers([paper])
    results = RESULTS.get(paper, ())
    claims: dict[str, list[str]] = {r.id: [] for r in results}
    certifying: dict[str, list[str]] = {}
    for claim in REGISTRY.values():
        if claim.paper == paper and claim.origin is Origin.PAPER:
            for rid in claim.covers:
                claims.setdefault(rid, []).append(claim.id)
            for rid in claim.certificate.covers if claim.certificate is not None else ():
                certifying.setdefault(rid, []).append(claim.id)
    def counts(rid: str) -> bool:
        ids = claims.get(rid, [])
        return bool(ids) if verdicts is None else any(
            verdicts.get(c) in ("verified", "certified") for c in ids)
    def certified(rid: str) -> bool:
        ids = certifying.get(rid, [])
        return bool(ids) if verdicts is None else any(verdicts.get(c) == "certified" for c in ids)
    checkable = [r.id for r in results if r.checkable]
    return {
        "checkable": checkable,
        "covered": [rid for rid in checkable if counts(rid)],
        "certified": [rid for rid in checkable if certified(rid)],
        "uncovered": [rid for rid in checkable if not counts(rid)],
        "not_checkable": {r.id: r.why for r in results if not r.checkable},
        "claims": {rid: sorted(ids) for rid, ids in claims.items()},
    }


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry (ids are unique)."""
    existing = REGISTRY.get(claim.id)
    if existing is not None and existing is not claim:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    REGISTRY[claim.id] = claim
    return claim


def load_all() -> dict[str, Claim]:
    """Import every paper module under ``theorems`` so that its claims register."""
    return load_papers(list(PAPERS))


def load_papers(keys: list[str]) -> dict[str, Claim]:
    """Import only these papers' modules under ``theorems`` (keys without one, such as a user's
    own paper, are skipped): selecting one paper's claims does not import every paper's
    dependencies."""
    for key in keys:
        name = f"theorems.{key}"
        if name not in sys.modules and importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
    return REGISTRY


def all_claims() -> list[Claim]:
    load_all()
    return [REGISTRY[k] for k in sorted(REGISTRY)]


def claims_for(paper: str | None) -> list[Claim]:
    return [c for c in all_claims() if c.paper == paper]
