"""The certificate machinery: each status reached, stored artifacts rechecked, stale ones ignored,
and every package certificate's stored artifact present, accepted and its mutation rejected."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import theorems.core.certificates as certificates
from theorems import all_claims
from theorems.core import Claim, Kind, Origin, Outcome
from theorems.core.certificates import (
    CannotProve,
    Certificate,
    Method,
    Refuted,
    Rejected,
    default_mutation,
    load_artifacts,
    run_certificate,
    store_artifacts,
)
from verification.runner import run_claim


def _square_identity(**overrides) -> Certificate:
    """(a + b)² = a² + 2ab + b² by its coefficients in the monomial basis a², ab, b²."""

    def prove():
        return {"lhs": ["1", "2", "1"], "rhs": ["1", "2", "1"]}

    def recheck(art):
        if [Fraction(c) for c in art["lhs"]] != [Fraction(c) for c in art["rhs"]]:
            raise Rejected(f"coefficients differ: {art['lhs']} vs {art['rhs']}")
        return "coefficients of a², ab, b² agree"

    def recheck_witness(w):
        a, b = Fraction(w["a"]), Fraction(w["b"])
        if (a + b) ** 2 == a * a + b * b:
            raise Rejected("not a counterexample")
        return f"(a+b)² = {(a + b) ** 2} != {a * a + b * b}"

    fields = dict(statement="(a + b)² = a² + 2ab + b²", scope="all a, b in Q",
                  method=Method.EXACT_ALGEBRA, trusts="rational arithmetic", prove=prove,
                  recheck=recheck, control_statement="(a + b)² = a² + b²",
                  refute=lambda: {"a": "1", "b": "1"}, recheck_witness=recheck_witness)
    return Certificate(**{**fields, **overrides})


def test_certified_when_proof_witness_and_mutation_all_hold():
    record = run_certificate("t.square", _square_identity(), profile="full")
    assert record["status"] == "certified"
    assert record["mutation"].startswith("rejected")
    assert record["source"] == "produced"


def test_cannot_prove_is_vacuous_and_refuted_is_refuted():
    def cannot():
        raise CannotProve("no antiderivative found")

    def refuted():
        raise Refuted({"a": 1}, "fails at a = 1")

    assert run_certificate("t.x", _square_identity(prove=cannot), profile="full")["status"] == "vacuous"
    record = run_certificate("t.x", _square_identity(prove=refuted), profile="full")
    assert record["status"] == "refuted" and record["witness"] == {"a": 1}
    assert run_certificate("t.x", _square_identity(refute=cannot), profile="full")["status"] == "vacuous"


def test_bad_proof_is_rejected_and_spurious_witness_is_vacuous():
    bad = _square_identity(prove=lambda: {"lhs": ["1", "2", "1"], "rhs": ["1", "0", "1"]})
    assert run_certificate("t.x", bad, profile="full")["status"] == "rejected"
    spurious = _square_identity(refute=lambda: {"a": "0", "b": "0"})
    assert run_certificate("t.x", spurious, profile="full")["status"] == "vacuous"


def test_a_recheck_that_accepts_anything_is_vacuous():
    lax = _square_identity(recheck=lambda art: "looks fine")
    record = run_certificate("t.x", lax, profile="full")
    assert record["status"] == "vacuous" and record["mutation"].startswith("ACCEPTED")


def test_default_mutation_changes_one_number_or_one_digit():
    art = {"coefficients": ["1/2", 3, 0.5], "name": "x", "flag": True}
    mutants = [default_mutation(art, seed) for seed in range(20)]
    assert all(m != art for m in mutants)
    assert all(m["flag"] is True and m["name"] == "x" for m in mutants)
    assert {"3/2", 4, 0.5 * 1.01 + 1e-3} >= {v for m in mutants for v in m["coefficients"]} - {"1/2", 3, 0.5}
    assert default_mutation({"expr": "x**2 + 3"}, 0) in ({"expr": "x**3 + 3"}, {"expr": "x**2 + 4"})
    with pytest.raises(ValueError, match="mutate="):
        default_mutation({"name": "no digits"}, 0)


def test_stored_artifacts_are_used_by_quick_and_ignored_when_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(certificates, "CERTIFICATE_DIR", tmp_path)
    cert = _square_identity()
    store_artifacts("t.square", cert, {"proof": cert.prove(), "witness": cert.refute()})
    calls = []

    def counting_prove():
        calls.append(1)
        return cert.prove()

    counted = _square_identity(prove=counting_prove)
    record = run_certificate("t.square", counted, profile="quick")
    assert record["status"] == "certified" and record["source"] == "stored" and not calls
    run_certificate("t.square", counted, profile="full")
    assert calls  # the full profile produces anew
    stale = _square_identity(statement="(a + b)² = a² + 2ab + b² over Z")
    assert load_artifacts("t.square", stale) is None
    # a corrupted stored artifact is rejected, not trusted
    path = tmp_path / "t.square.json"
    payload = json.loads(path.read_text())
    payload["proof"]["rhs"][1] = "3"
    path.write_text(json.dumps(payload))
    assert run_certificate("t.square", cert, profile="quick")["status"] == "rejected"


def _claim(cert: Certificate, expected: str = "certified") -> Claim:
    return Claim(id="t.square", paper=None, source="mine", origin=Origin.IMPLEMENTATION,
                 statement="(a + b)² = a² + 2ab + b²", kind=Kind.NUMERIC,
                 check=lambda ctx: Outcome("pass", "holds on 10 draws"),
                 control=lambda ctx: Outcome("fail", "(a + b)² = a² + b² fails at 1, 1"),
                 control_description="the cross term dropped", certificate=cert,
                 expected_verdict=expected)


def test_runner_verdicts_with_certificates():
    assert run_claim(_claim(_square_identity())).verdict == "certified"
    lax = run_claim(_claim(_square_identity(recheck=lambda art: "ok")))
    assert lax.verdict == "verified" and lax.certificate["status"] == "vacuous"

    def refuted():
        raise Refuted({"a": 1}, "fails at a = 1")

    assert run_claim(_claim(_square_identity(prove=refuted))).verdict == "falsified"


def test_claim_validates_its_certificate():
    with pytest.raises(ValueError, match="needs a certificate"):
        _claim(None)
    with pytest.raises(TypeError, match="Certificate"):
        _claim("not a certificate")
    with pytest.raises(ValueError, match=r"Certificate\.scope"):
        _square_identity(scope=" ")
    with pytest.raises(TypeError, match="Method"):
        _square_identity(method="algebra")


CERTIFIED = [c for c in all_claims() if c.certificate is not None]


@pytest.mark.parametrize("claim", CERTIFIED, ids=[c.id for c in CERTIFIED])
def test_package_certificates_have_stored_artifacts(claim):
    """Each package certificate's stored artifact exists for its current statement; the claim's
    own run (tests/test_claims.py) rechecks it, its witness and its mutation."""
    assert load_artifacts(claim.id, claim.certificate) is not None, (
        f"{claim.id}: store its artifact with `python -m verification.certify --claim {claim.id}`")


@pytest.mark.parametrize("kind", ["se", "matern", "bayesian"])
def test_cei_rate_controls_are_refuted_only_when_false(kind, monkeypatch):
    """The rate certificates' controls (a dropped log factor, a wrong exponent of t) are refuted
    by rebuilding the proof's term; a control equal to the true rate, or a witness whose exponents
    are not the control's, is not accepted as a refutation."""
    import sympy

    import theorems.cei_rates as cei

    witness = cei._refute_rate(kind)
    assert "+∞" in cei._recheck_rate_witness(witness, kind)
    with pytest.raises(Rejected, match="not the control's"):
        cei._recheck_rate_witness({**witness, "control_log_power": "7/3"}, kind)
    true_t = (lambda nu, d: -sympy.Rational(1, 2)) if kind == "se" else (lambda nu, d: -nu / (2 * nu + d))
    true_log = {"se": lambda nu, d: (d + 1) / 2, "matern": lambda nu, d: nu / (2 * nu + d),
                "bayesian": lambda nu, d: nu / (2 * nu + d) + sympy.Rational(1, 2)}[kind]
    monkeypatch.setitem(cei._RATE_CONTROLS, kind, (true_t, true_log, "the true rate"))
    with pytest.raises(Rejected, match="the control holds"):
        cei._recheck_rate_witness(cei._refute_rate(kind), kind)
