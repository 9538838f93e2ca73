import copy

import pytest
import torch

from algorithms.optimizers import Muon


def _pair(shapes, seed=0):
    g = torch.Generator().manual_seed(seed)
    ours = [torch.nn.Parameter(torch.randn(s, generator=g)) for s in shapes]
    return ours, [torch.nn.Parameter(p.detach().clone()) for p in ours]


def _run(opts, params_lists, steps, seed=1):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        grads = [torch.randn(p.shape, generator=g) for p in params_lists[0]]
        for opt, params in zip(opts, params_lists, strict=True):
            for p, gr in zip(params, grads, strict=True):
                p.grad = gr.clone()
            opt.step()


@pytest.mark.parametrize("kwargs", [
    dict(lr=0.02, weight_decay=0.1),
    dict(lr=0.05, weight_decay=0.0, nesterov=False, momentum=0.9),
    dict(lr=0.01, weight_decay=0.01, adjust_lr_fn="match_rms_adamw", ns_steps=3),
])
def test_equals_torch_muon_bitwise(kwargs):
    ours, theirs = _pair([(8, 5), (5, 8), (6, 6)])
    _run([Muon(ours, head="muon", **kwargs), torch.optim.Muon(theirs, **kwargs)], [ours, theirs], steps=6)
    for a, b in zip(ours, theirs, strict=True):
        assert torch.equal(a.detach(), b.detach())


def test_vectors_take_torch_adamw():
    ours, theirs = _pair([(7,), (3,)])
    kwargs = dict(lr=0.01, weight_decay=0.1)
    opt = Muon(ours, adamw_betas=(0.9, 0.99), adamw_eps=1e-8, **kwargs)
    ref = torch.optim.AdamW(theirs, betas=(0.9, 0.99), eps=1e-8, **kwargs)
    assert opt.routing() == {"muon": 0, "adamw": 2}
    _run([opt, ref], [ours, theirs], steps=5)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=1e-6, atol=1e-7)


def test_use_muon_false_routes_matrices_to_adamw_and_true_rejects_vectors():
    w, b = torch.nn.Parameter(torch.ones(3, 3)), torch.nn.Parameter(torch.ones(3))
    opt = Muon([{"params": [w], "use_muon": False}, {"params": [b]}], lr=0.1)
    assert opt.routing() == {"muon": 0, "adamw": 2}
    with pytest.raises(ValueError, match="use_muon=True"):
        Muon([{"params": [b], "use_muon": True}], lr=0.1)


def test_update_is_orthogonal_with_exact_newton_schulz():
    w = torch.nn.Parameter(torch.zeros(4, 4, dtype=torch.float64))
    opt = Muon([w], lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False, ns_dtype=torch.float64,
               ns_coefficients=(1.5, -0.5, 0.0), ns_steps=60)
    w.grad = torch.randn(4, 4, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    opt.step()
    eye = torch.eye(4, dtype=torch.float64)
    torch.testing.assert_close(w.detach().T @ w.detach(), eye, atol=1e-8, rtol=0)


def test_head_on_adamw_by_default_and_paper_routing_by_name():
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = Muon(model.parameters(), lr=0.02)
    assert opt.routing() == {"muon": 2, "adamw": 4}          # two hidden matrices; the head + 3 biases
    head = model[4].weight
    assert not opt._uses_muon(opt.param_groups[0], head)
    assert Muon(model.parameters(), lr=0.02, head="muon").routing() == {"muon": 3, "adamw": 3}
    assert Muon([torch.nn.Parameter(torch.ones(3, 3))]).routing() == {"muon": 1, "adamw": 0}   # one matrix
    assert Muon.paper(model.parameters(), lr=0.02).head == "muon" and Muon.paper is Muon.paper
    with pytest.raises(TypeError, match="head"):
        Muon.paper(model.parameters(), head="adamw")


def test_state_dict_interchange_with_torch_muon_both_ways():
    ours, theirs = _pair([(8, 5), (5, 8), (6, 6)])
    mine, ref = Muon(ours, lr=0.02, head="muon"), torch.optim.Muon(theirs, lr=0.02)
    _run([mine, ref], [ours, theirs], steps=3)
    # reload each into the other's class, then continue: still bit-identical
    ours2 = [torch.nn.Parameter(p.detach().clone()) for p in theirs]
    theirs2 = [torch.nn.Parameter(p.detach().clone()) for p in ours]
    mine2 = Muon(ours2, lr=0.5, head="muon")
    mine2.load_state_dict(copy.deepcopy(ref.state_dict()))     # as through torch.save / torch.load
    ref2 = torch.optim.Muon(theirs2, lr=0.5)
    ref2.load_state_dict(copy.deepcopy(mine.state_dict()))
    assert mine2.param_groups[0]["lr"] == 0.02 and ref2.param_groups[0]["lr"] == 0.02
    assert mine2.param_groups[0]["adamw_betas"] == (0.9, 0.95)     # our own keys kept
    _run([mine2, ref2], [ours2, theirs2], steps=3, seed=2)
    _run([mine, ref], [ours, theirs], steps=3, seed=2)
    for a, b, c in zip(ours2, theirs2, ours, strict=True):
        assert torch.equal(a.detach(), b.detach()) and torch.equal(a.detach(), c.detach())


def test_loading_torch_state_with_the_head_on_adamw_warns():
    ours, theirs = _pair([(8, 5), (5, 8)])
    ref = torch.optim.Muon(theirs, lr=0.02)
    _run([ref], [theirs], steps=1)
    with pytest.warns(UserWarning, match="head='muon'"):
        Muon(ours, lr=0.02).load_state_dict(ref.state_dict())


def test_maximize_ascends_and_foreach_is_accepted():
    ours, theirs = _pair([(6, 4), (4,)])
    up = Muon(ours, lr=0.02, maximize=True, foreach=True)
    down = Muon(theirs, lr=0.02)
    g = [torch.randn(p.shape, generator=torch.Generator().manual_seed(5)) for p in ours]
    for p, q, gr in zip(ours, theirs, g, strict=True):
        p.grad, q.grad = gr.clone(), -gr.clone()
    up.step()
    down.step()
    for a, b in zip(ours, theirs, strict=True):
        assert torch.equal(a.detach(), b.detach())


def test_conv_kernels_are_orthogonalized_flattened():
    w = torch.nn.Parameter(torch.zeros(4, 2, 3, 3, dtype=torch.float64))
    opt = Muon([w], lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False, ns_dtype=torch.float64,
               ns_coefficients=(1.5, -0.5, 0.0), ns_steps=60, adjust_lr_fn="none")
    assert opt.routing() == {"muon": 1, "adamw": 0}
    w.grad = torch.randn(4, 2, 3, 3, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    opt.step()
    flat = w.detach().reshape(4, -1)
    torch.testing.assert_close(flat @ flat.T, torch.eye(4, dtype=torch.float64), atol=1e-8, rtol=0)


def test_nonfinite_gradient_warns_by_default_and_skips():
    w = torch.nn.Parameter(torch.ones(3, 3))
    opt = Muon([w], lr=0.1)
    w.grad = torch.full((3, 3), float("nan"))
    with pytest.warns(RuntimeWarning, match="skipped"):
        opt.step()
    assert opt.skipped_steps == 1 and torch.equal(w.detach(), torch.ones(3, 3))
    quiet = Muon([w], lr=0.1, on_nonfinite="skip")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet.step()
    assert quiet.skipped_steps == 1


def test_a_misspelt_group_key_is_refused():
    # #43 round 13: a warning left the default momentum in force (the held-out audit read it as silent)
    w = torch.nn.Parameter(torch.ones(3, 3))
    with pytest.raises(ValueError, match=r"\['momentun'\] are not Muon keywords"):
        Muon([{"params": [w], "momentun": 0.5}])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Muon([{"params": [w], "name": "hidden", "initial_lr": 0.1}])


@pytest.mark.parametrize("batched", [True, False])
def test_equal_shapes_orthogonalized_together_keep_torch_bits(batched, monkeypatch):
    # equal-shaped matrices share one batched Newton–Schulz iteration where the probe finds it gives
    # the same bits (batched=True: the probe's answer); batched=False forces the one-at-a-time path
    import sys

    ns = sys.modules["algorithms.optimizers.newton_schulz"]
    if not batched:
        monkeypatch.setattr(ns, "_stack_is_exact", lambda *args: False)
    ours, theirs = _pair([(8, 5), (6, 6), (8, 5), (5, 8), (6, 6), (5, 8), (8, 5)])
    kwargs = dict(lr=0.02, weight_decay=0.1)
    _run([Muon(ours, head="muon", **kwargs), torch.optim.Muon(theirs, **kwargs)], [ours, theirs], steps=4)
    for a, b in zip(ours, theirs, strict=True):
        assert torch.equal(a.detach(), b.detach())


def test_stack_probe_compares_with_one_at_a_time():
    import sys

    ns = sys.modules["algorithms.optimizers.newton_schulz"]
    mats = [torch.randn(6, 4, generator=torch.Generator().manual_seed(i)) for i in range(3)]
    out = ns._newton_schulz_many(mats, 3.4445, -4.775, 2.0315, 5, 1e-7, torch.bfloat16)
    if ns._stack_is_exact(6, 4, 3, 3.4445, -4.775, 2.0315, 5, 1e-7, torch.bfloat16, torch.float32,
                          torch.device("cpu")):
        for m, o in zip(mats, out, strict=True):
            assert torch.equal(o, ns._newton_schulz(m, 3.4445, -4.775, 2.0315, 5, 1e-7, torch.bfloat16))
    assert all(o.shape == (6, 4) for o in out)
    assert all(torch.equal(m, m0) for m, m0 in zip(mats, [torch.randn(6, 4, generator=torch.Generator()
                                                                      .manual_seed(i)) for i in range(3)]))
