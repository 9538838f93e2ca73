"""Certificates: the mathematics of a claim proved over a stated scope, with an artifact rechecked.

A claim's ``check`` runs the statement against *our code* on instances; a
:class:`Certificate` beside it proves the mathematics (often the claim's core) over
its whole ``scope``. The proof is an *artifact* (rational multipliers, a list of
boxes, an enumeration with exact probabilities, an antiderivative...) that a
*producer* finds however it likes (sympy's simplifier, PEPit's SDP, z3, a search)
and that a small, independent ``recheck`` in exact or ball arithmetic accepts.
Nothing the producer says is trusted: only the recheck decides.

A certificate also has a control: ``control_statement`` is the statement made false
just past the truth (0.99× a tight constant, a dropped factor), and ``refute``
finds a *witness* against it that ``recheck_witness`` confirms from the original
definitions. And the recheck must have power: the artifact with one number changed
(``mutate``) must be rejected.

The runner (:func:`run_certificate`) turns this into a status:

==============  ===========================================================
``certified``   proof rechecked, control refuted by a rechecked witness,
                the mutated artifact rejected
``vacuous``     the producer could not prove it (:class:`CannotProve`), the
                control was not refuted, or the mutated artifact was accepted
``rejected``    the artifact failed its recheck (a stored one may be stale)
``refuted``     the producer found the statement false (:class:`Refuted`):
                the claim is then ``falsified``
==============  ===========================================================

The quick profile rechecks the stored artifact ``theorems/certificates/<claim id>.json``
when there is one (and produces it otherwise); the full profile always produces it
anew. ``python -m verification.certify --claim ID`` produces and stores artifacts.

>>> from fractions import Fraction
>>> def prove():                      # (a + b)² = a² + 2ab + b²: the coefficients, exactly
...     return {"lhs": [1, 2, 1], "rhs": [1, 2, 1]}
>>> def recheck(art):
...     if [Fraction(c) for c in art["lhs"]] != [Fraction(c) for c in art["rhs"]]:
...         raise Rejected("coefficients differ")
...     return "coefficients agree"
>>> def refute():                     # control: (a + b)² = a² + b²; witness a = b = 1
...     return {"a": 1, "b": 1}
>>> def recheck_witness(w):
...     if (w["a"] + w["b"]) ** 2 == w["a"] ** 2 + w["b"] ** 2:
...         raise Rejected("not a counterexample")
...     return f"(a+b)² = {(w['a'] + w['b']) ** 2} != a² + b² = {w['a'] ** 2 + w['b'] ** 2}"
>>> cert = Certificate(statement="(a + b)² = a² + 2ab + b²", scope="all a, b in a commutative ring",
...                    method=Method.EXACT_ALGEBRA, trusts="integer arithmetic", prove=prove,
...                    recheck=recheck, control_statement="(a + b)² = a² + b²", refute=refute,
...                    recheck_witness=recheck_witness)
>>> run_certificate("doc.square", cert, profile="full")["status"]
'certified'
"""

from __future__ import annotations

import copy
import enum
import json
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "CERTIFICATE_DIR",
    "CannotProve",
    "Certificate",
    "Method",
    "Refuted",
    "Rejected",
    "default_mutation",
    "load_artifacts",
    "run_certificate",
    "store_artifacts",
]

#: where stored artifacts live: ``<claim id>.json`` with ``proof`` and ``witness``
CERTIFICATE_DIR = Path(__file__).resolve().parent.parent / "certificates"


class Method(enum.StrEnum):
    EXACT_ALGEBRA = "exact algebra"  # polynomial / rational identities over Q (sympy, fractions)
    INTERVAL = "interval arithmetic"  # rigorous enclosures over boxes (python-flint's arb)
    SMT = "SMT"  # a decision procedure's model / unsat core (z3), rechecked exactly
    PEP = "performance estimation"  # PEP dual multipliers rounded to rationals, inequality rechecked
    ENUMERATION = "exhaustive enumeration"  # every case up to a size, exact arithmetic


class Rejected(Exception):
    """Raised by a recheck that does not accept an artifact (or a witness)."""


class CannotProve(Exception):
    """Raised by a producer that found neither a proof nor a counterexample."""


class Refuted(Exception):
    """Raised by a producer that found the statement false; ``witness`` shows it."""

    def __init__(self, witness: dict[str, Any], summary: str) -> None:
        super().__init__(summary)
        self.witness = witness
        self.summary = summary


Artifact = dict[str, Any]


@dataclass(frozen=True)
class Certificate:
    """A proof of ``statement`` over ``scope`` by ``method``, and its control.

    ``prove()`` finds the artifact (a JSON-serialisable dict); ``recheck(artifact)``
    accepts it with a one-line summary or raises :class:`Rejected`. ``refute()`` finds
    a witness against ``control_statement``; ``recheck_witness(witness)`` confirms it
    from the original definitions or raises :class:`Rejected`. ``mutate(artifact)``
    corrupts an artifact (default :func:`default_mutation`); the recheck must reject
    the result. ``covers`` names the results-map ids whose whole statement the scope
    covers; ``trusts`` says what the proof relies on beyond the recheck.
    """

    statement: str
    scope: str
    method: Method
    trusts: str
    prove: Callable[[], Artifact]
    recheck: Callable[[Artifact], str]
    control_statement: str
    refute: Callable[[], Artifact]
    recheck_witness: Callable[[Artifact], str]
    covers: tuple[str, ...] = ()
    mutate: Callable[[Artifact], Artifact] | None = None

    def __post_init__(self) -> None:
        for name in ("statement", "scope", "trusts", "control_statement"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"Certificate.{name} must be a non-empty str, got {value!r}")
        if not isinstance(self.method, Method):
            raise TypeError(f"Certificate.method must be a Method, got {self.method!r}")
        for name in ("prove", "recheck", "refute", "recheck_witness"):
            if not callable(getattr(self, name)):
                raise TypeError(f"Certificate.{name} must be callable, got {getattr(self, name)!r}")
        if self.mutate is not None and not callable(self.mutate):
            raise TypeError(f"Certificate.mutate must be callable or None, got {self.mutate!r}")
        if isinstance(self.covers, str) or not all(isinstance(c, str) for c in self.covers):
            raise TypeError(f"Certificate.covers must be a tuple of result ids, got {self.covers!r}")

    def describe(self) -> dict[str, Any]:
        return {"statement": self.statement, "scope": self.scope, "method": str(self.method),
                "trusts": self.trusts, "control_statement": self.control_statement,
                "covers": list(self.covers)}


# ---------------------------------------------------------------------------------------------
# the default corruption of an artifact: one number changed

_INT = re.compile(r"^-?\d+$")
_RATIONAL = re.compile(r"^(-?\d+)/(\d+)$")
_FLOAT = re.compile(r"^-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")


def _leaves(node: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    if isinstance(node, dict):
        return [leaf for key in sorted(node, key=str) for leaf in _leaves(node[key], (*path, key))]
    if isinstance(node, list | tuple):
        return [leaf for i, item in enumerate(node) for leaf in _leaves(item, (*path, i))]
    return [(path, node)]


def _numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, str) and bool(_RATIONAL.match(value) or _FLOAT.match(value))


def _changed_number(value: Any) -> Any:
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.01 + 1e-3
    if match := _RATIONAL.match(value):
        return f"{int(match.group(1)) + int(match.group(2))}/{match.group(2)}"  # p/q + 1
    if _INT.match(value):
        return str(int(value) + 1)
    return repr(float(value) * 1.01 + 1e-3)


def _set(node: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def default_mutation(artifact: Artifact, seed: int = 0) -> Artifact:
    """``artifact`` with one number changed: a numeric leaf (int + 1, ``"p/q"`` + 1, float
    × 1.01 + 1e-3) chosen by ``seed``, or, when there is none, one digit inside a string.

    >>> art = {"coefficients": ["1/2", 3], "name": "x"}
    >>> default_mutation(art, seed=0) != art
    True
    """
    mutant = copy.deepcopy(artifact)
    leaves = [(p, v) for p, v in _leaves(mutant) if p]
    rng = np.random.default_rng(seed)
    numbers = [(p, v) for p, v in leaves if _numeric(v)]
    if numbers:
        path, value = numbers[int(rng.integers(len(numbers)))]
        _set(mutant, path, _changed_number(value))
        return mutant
    digits = [(p, v, i) for p, v in leaves if isinstance(v, str) for i, ch in enumerate(v) if ch.isdigit()]
    if not digits:
        raise ValueError("the artifact has no number to change; give the Certificate a mutate=")
    path, value, i = digits[int(rng.integers(len(digits)))]
    _set(mutant, path, value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1:])
    return mutant


# ---------------------------------------------------------------------------------------------
# storing and producing artifacts


def artifact_path(claim_id: str) -> Path:
    return CERTIFICATE_DIR / f"{claim_id}.json"


def store_artifacts(claim_id: str, cert: Certificate, artifacts: dict[str, Any]) -> Path:
    """Write ``artifacts`` (with the statement they prove, to notice stale ones) for ``claim_id``."""
    path = artifact_path(claim_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"claim": claim_id, "statement": cert.statement, "scope": cert.scope,
               "control_statement": cert.control_statement, **artifacts}
    path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return path


def load_artifacts(claim_id: str, cert: Certificate) -> dict[str, Any] | None:
    """The stored artifacts of ``claim_id``, or None when there are none or they are stale
    (stored for another statement, scope or control statement)."""
    path = artifact_path(claim_id)
    if not path.is_file():
        return None
    stored = json.loads(path.read_text())
    if any(stored.get(k) != getattr(cert, k) for k in ("statement", "scope", "control_statement")):
        return None
    return {"proof": stored["proof"], "witness": stored["witness"]}


def run_certificate(claim_id: str, cert: Certificate, *, profile: str = "quick",
                    seed: int = 0) -> dict[str, Any]:
    """Recheck (quick profile: the stored artifacts when present) or produce and recheck (full
    profile) ``cert``; return its record: ``status`` (see the module docstring), ``summary``,
    the artifacts, each recheck's word, and the certificate's description.

    An exception from a producer other than CannotProve/Refuted, or from the recheck of the
    genuine artifacts other than Rejected, propagates: it is a defect, not a verdict.
    """
    start = time.perf_counter()
    record: dict[str, Any] = {**cert.describe(), "proof": None, "witness": None, "recheck": None,
                              "witness_recheck": None, "mutation": None}

    def done(status: str, summary: str) -> dict[str, Any]:
        record.update(status=status, summary=summary, seconds=round(time.perf_counter() - start, 3))
        return record

    stored = load_artifacts(claim_id, cert) if profile == "quick" else None
    record["source"] = "stored" if stored is not None else "produced"
    if stored is None:
        try:
            proof = cert.prove()
        except CannotProve as exc:
            return done("vacuous", f"the producer could not prove it: {exc}")
        except Refuted as exc:
            record["witness"] = exc.witness
            return done("refuted", f"the statement is false: {exc.summary}")
        try:
            witness = cert.refute()
        except CannotProve as exc:
            record["proof"] = proof
            return done("vacuous", f"the control statement was not refuted: {exc}")
        stored = {"proof": proof, "witness": witness}
    record["proof"], record["witness"] = stored["proof"], stored["witness"]
    try:
        record["recheck"] = cert.recheck(stored["proof"])
    except Rejected as exc:
        return done("rejected", f"the {record['source']} artifact failed its recheck: {exc}")
    try:
        record["witness_recheck"] = cert.recheck_witness(stored["witness"])
    except Rejected as exc:
        return done("vacuous", f"the control's witness did not refute it: {exc}")
    proof = copy.deepcopy(stored["proof"])
    mutant = (cert.mutate(proof) if cert.mutate is not None
              else default_mutation(proof, zlib.crc32(claim_id.encode()) ^ seed))
    if mutant == stored["proof"]:
        raise ValueError(f"{claim_id}: the certificate's mutate returned the artifact unchanged")
    try:
        accepted = cert.recheck(mutant)
    except Exception as exc:  # any refusal of the corrupted artifact counts as rejection
        record["mutation"] = f"rejected ({type(exc).__name__}: {exc})"
    else:
        record["mutation"] = f"ACCEPTED: {accepted}"
        return done("vacuous", "a corrupted artifact was accepted: the recheck cannot tell")
    return done("certified", f"{record['recheck']}; control refuted: {record['witness_recheck']}")
