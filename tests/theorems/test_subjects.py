"""Subjects: claims run against another implementation (the user's, a peer's); controls keep ours."""

from __future__ import annotations

import pytest

from theorems.core import REGISTRY, Context, load_all
from theorems.core.subjects import PEERS, SUBJECTS, load_object, parse_spec
from verification.cli import main
from verification.runner import run_claims

USER_MUON = "tests.verification.user_muon:MyMuon"


@pytest.mark.parametrize("text", ["Muon", "Muon=torch.optim", "Muon=:Muon", "1x=a:b", "Muon=a:b=c"])
def test_parse_spec_names_the_form(text):
    with pytest.raises(ValueError, match="NAME=module:object"):
        parse_spec(text)


def test_load_object_names_what_is_missing():
    with pytest.raises(ValueError, match="cannot import module 'no_such_module'"):
        load_object("no_such_module:X")
    with pytest.raises(ValueError, match="has no attribute 'NoSuchOptimizer'"):
        load_object("torch.optim:NoSuchOptimizer")


def test_a_control_always_gets_our_reference():
    given = (("Muon", USER_MUON),)
    assert Context(role="check", implementations=given).subject("Muon").__name__ == "MyMuon"
    assert Context(role="control", implementations=given).subject("Muon") is load_object(
        SUBJECTS["Muon"].reference)
    with pytest.raises(ValueError, match="unknown subject"):
        Context().subject("NoSuchSubject")


def test_every_registered_peer_and_subject_loads():
    for subject in SUBJECTS.values():
        assert callable(load_object(subject.reference))
    for peers in PEERS.values():
        for spec in peers.values():
            assert callable(load_object(spec))


def test_the_users_changed_line_is_caught_by_the_claim_it_breaks():
    """README's example: a Muon without the Nesterov look-ahead falsifies matches_torch_muon and
    keeps muon_update_band (the first step's direction is the gradient's either way)."""
    load_all()
    claims = [c for c in REGISTRY.values() if "Muon" in c.subjects]
    assert len(claims) >= 2
    results = {r.id: r for r in run_claims(claims, implementations={"Muon": USER_MUON})}
    assert results["second_order_scaling.matches_torch_muon"].verdict == "falsified"
    assert results["second_order_scaling.muon_update_band"].verdict == "verified"
    assert all(r.implementations == {"Muon": USER_MUON} for r in results.values())


def test_cli_subject_skips_the_rest_and_exits_non_zero_on_a_difference(tmp_path, capsys):
    code = main(["--claim", "second_order_scaling.matches_torch_muon", "dqp.kkt_check",
                 "--subject", f"Muon={USER_MUON}", "--jobs", "0", "--out", str(tmp_path), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 1
    assert "1 selected claim(s) skipped: they do not exercise Muon" in out
    assert "| `second_order_scaling.matches_torch_muon` | falsified |" in out
    assert "Implementations under test" in (tmp_path / "report.md").read_text()
    assert main(["--subject", "Nope=torch.optim:Muon", "--list"]) == 2


def only_normalized_sam(params, normalize: bool = True, **kwargs):
    """Our SAM without USAM, as a peer without ``normalize=False`` (pytorch-optimizer's) behaves."""
    from algorithms.nets import SAM

    if not normalize:
        raise NotImplementedError("no normalize=False")
    return SAM(params, normalize=normalize, **kwargs)


def test_draws_a_subject_cannot_express_are_skipped_and_said():
    load_all()
    claim = REGISTRY["sam_stability.sam_step"]
    given = (("SAM", "tests.theorems.test_subjects:only_normalized_sam"),)
    outcome = claim.check(Context(role="check", implementations=given))
    assert outcome.status == "pass", outcome.summary
    assert "normalize=False" in outcome.evidence["skipped_unsupported"]
    with pytest.raises(NotImplementedError, match="normalize=False"):
        load_object(PEERS["SAM"]["pytorch-optimizer SAM"])([], normalize=False)


def test_subject_spec_is_ours_for_a_control_and_the_given_one_for_a_check():
    given = (("Muon", USER_MUON),)
    assert Context(role="check", implementations=given).subject_spec("Muon") == USER_MUON
    assert Context(role="control", implementations=given).subject_spec("Muon") == SUBJECTS["Muon"].reference
    assert Context().subject_spec("SAM") == SUBJECTS["SAM"].reference


def test_the_sam_claims_exercise_the_sam_subject():
    load_all()
    assert {c.id for c in REGISTRY.values() if "SAM" in c.subjects} == {
        f"sam_stability.{name}" for name in ("sam_step", "training_reference", "training_retcodes",
                                             "simplicity_bias", "coherence_drop")}
