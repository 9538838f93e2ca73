"""Subjects: claims run against another implementation (the user's, a peer's); controls keep ours."""

from __future__ import annotations

import dataclasses

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
    # the two Muon claims of the README's example (the others train networks: minutes, not seconds)
    claims = [REGISTRY[f"second_order_scaling.{name}"] for name in ("matches_torch_muon", "muon_update_band")]
    assert all("Muon" in c.subjects for c in claims)
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


def test_claims_exercising_subjects():
    """The claims whose checks run on a subject (issue #44): at least these, each naming registered ones."""
    load_all()
    exercising = {c.id for c in REGISTRY.values() if c.subjects}
    assert {"second_order_scaling.update_scale", "second_order_scaling.depth_update_scale",
            "second_order_scaling.lr_transfer", "second_order_scaling.wider_is_better",
            "second_order_scaling.wd_inverse_width", "second_order_scaling.speedup",
            "sam_stability.simplicity_bias", "sam_stability.coherence_drop",
            "sam_stability.training_retcodes", "sam_stability.training_reference",
            "bcd_expansion.subproblem_suboptimal",
            "bcd_expansion.rank_one_expansion", "bcd_expansion.matches_adam",
            "bcd_expansion.switch_frequency"} <= exercising


@pytest.mark.parametrize("adapter, keyword", [
    ("pytorch_optimizer_soap", "block_size"), ("heavyball_soap", "block_size"),
    ("pytorch_optimizer_shampoo", "block_size"), ("pytorch_optimizer_shampoo", "betas"),
    ("pytorch_optimizer_shampoo", "adam_eps"), ("badam_block_optimizer", "expansion"),
    ("badam_block_optimizer", "order")])
def test_adapters_say_what_they_cannot_express(adapter, keyword):
    """Keywords without a counterpart raise NotImplementedError (claims skip those parts), before the peer
    package is imported, so this holds without the bench extra."""
    value = {"block_size": 4, "betas": (0.9, 0.95), "adam_eps": 1e-8, "expansion": "sgd", "order": "random"}
    with pytest.raises(NotImplementedError, match=keyword):
        load_object(f"theorems.core.adapters:{adapter}")([], **{keyword: value[keyword]})


def test_pytorch_optimizer_shampoo_first_step_is_ours():
    """With zero state, one step of pytorch-optimizer's Shampoo through the adapter is ours:
    (GGᵀ + εI)^(−¼) G (GᵀG + εI)^(−¼) times lr (its statistics are sums, ours bias-corrected EMAs)."""
    pytest.importorskip("pytorch_optimizer")
    import torch

    from algorithms.optimizers import Shampoo

    gen = torch.Generator().manual_seed(0)
    start, grad = (torch.randn(6, 4, generator=gen, dtype=torch.float64) for _ in range(2))
    moved = []
    for build in (Shampoo, load_object(PEERS["Shampoo"]["pytorch-optimizer Shampoo"])):
        w = torch.nn.Parameter(start.clone())
        opt = build([w], lr=0.01, weight_decay=0.0, eps=1e-6, precondition_frequency=1)
        w.grad = grad.clone()
        opt.step()
        moved.append(w.detach() - start)
    # float64 eigen / SVD roots of the same 4×4 and 6×6 matrices: 1e-10 on a step of size 1e-2
    assert torch.allclose(moved[0], moved[1], rtol=0.0, atol=1e-10), (moved[0] - moved[1]).abs().max()


def test_badam_adapter_trains_one_block_at_a_time():
    """BAdam through the adapter: plain BCD, only the active block moves; its first block gets
    switch_every − 1 steps (BAdam switches after step K − 1, then every K), ours K (the paper note's
    finding), so the schedules agree from the first switch on up to that shift."""
    pytest.importorskip("badam")
    import torch

    def moves(build):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
        X = torch.randn(5, 3, generator=torch.Generator().manual_seed(1))
        opt = build(model, switch_every=3, lr=0.1)
        out = []
        for _ in range(7):
            opt.zero_grad()
            model(X).square().mean().backward()
            before = [p.detach().clone() for p in model.parameters()]
            opt.step()
            out.append([i for i, (p, q) in enumerate(zip(model.parameters(), before, strict=True))
                        if not torch.equal(p, q)])
        return out

    ours = moves(load_object(SUBJECTS["BAdam"].reference))
    theirs = moves(load_object(PEERS["BAdam"]["BAdam (badam)"]))
    assert ours == [[0, 1]] * 3 + [[2, 3]] * 3 + [[0, 1]]
    assert theirs == [[0, 1]] * 2 + [[2, 3]] * 3 + [[0, 1]] * 2


def test_the_report_names_a_registered_peer_by_its_label_and_anything_else_by_its_spec():
    from verification.report import implementations_table

    load_all()
    results = run_claims([REGISTRY["second_order_scaling.muon_update_band"]], jobs=0, progress=False)
    ours = results[0]
    on_torch = dataclasses.replace(ours, implementations={"Muon": "torch.optim:Muon"})
    on_user = dataclasses.replace(ours, implementations={"Muon": USER_MUON})
    table = implementations_table([ours, on_torch, on_user])
    assert table.splitlines()[0] == f"| claim | ours | Muon={USER_MUON} | torch.optim.Muon |"
    assert "| `second_order_scaling.muon_update_band` | verified | verified | verified |" in table
