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
    _run([Muon(ours, **kwargs), torch.optim.Muon(theirs, **kwargs)], [ours, theirs], steps=6)
    for a, b in zip(ours, theirs, strict=True):
        assert torch.equal(a.detach(), b.detach())


def test_vectors_take_torch_adamw():
    ours, theirs = _pair([(7,), (3, 2, 2)])
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
