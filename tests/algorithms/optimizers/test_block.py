"""Unit tests of algorithms.optimizers.block: block discovery, the BCD schedule, expansion hooks, state."""

import copy
import itertools

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.optimizers.block import (
    BlockCoordinateDescent,
    BlockOptimizer,
    find_blocks,
    optimizer_state_bytes,
)
from algorithms.optimizers.finetune import FullFinetune, markov_finetune_task


def _mlp(seed=0, widths=(4, 6, 5, 3), dtype=torch.float64):
    torch.manual_seed(seed)
    layers = []
    for a, b in itertools.pairwise(widths):
        layers += [torch.nn.Linear(a, b), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers[:-1]).to(dtype)


def _batch(seed=0, n=8, d=4, out=3):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, d, generator=g, dtype=torch.float64),
            torch.randn(n, out, generator=g, dtype=torch.float64))


def _loss(model, X, y):
    return ((model(X) - y) ** 2).mean()


def _snapshot(model):
    return {k: v.detach().clone() for k, v in model.named_parameters()}


# ----------------------------------------------------------------------------- find_blocks
def test_default_blocks_one_per_numbered_layer_and_the_rest_last():
    names = ["embed.weight", "layers.0.attn.w", "layers.0.mlp.w", "layers.1.attn.w", "norm.w", "head.weight"]
    assert find_blocks(names) == [["layers.0.attn.w", "layers.0.mlp.w"], ["layers.1.attn.w"],
                                  ["embed.weight", "norm.w", "head.weight"]]


def test_default_blocks_gpt2_style_and_sequential_names():
    assert find_blocks(["transformer.h.0.w", "transformer.h.10.w", "transformer.wte"]) == [
        ["transformer.h.0.w"], ["transformer.h.10.w"], ["transformer.wte"]]
    assert find_blocks(["0.weight", "0.bias", "2.weight"]) == [["0.weight", "0.bias"], ["2.weight"]]


def test_default_blocks_without_numbered_layers_are_top_level_modules():
    assert find_blocks(["enc.a", "enc.b", "dec.a"]) == [["enc.a", "enc.b"], ["dec.a"]]


def test_explicit_blocks_by_pattern_and_by_names():
    names = ["a.w", "b.w", "b.v", "c.w"]
    assert find_blocks(names, [r"^(a|c)\.", ["b.w", "b.v"]]) == [["a.w", "c.w"], ["b.w", "b.v"]]


# ----------------------------------------------------------------------------- plain BCD
def test_plain_bcd_moves_only_the_active_block_and_matches_adamw_on_it():
    model = _mlp()
    reference = copy.deepcopy(model)
    X, y = _batch()
    opt = BlockOptimizer(model, switch_every=100, lr=0.05)
    active_names = opt.block_names[opt.active_block]
    ref_params = [p for n, p in reference.named_parameters() if n in active_names]
    ref_opt = torch.optim.AdamW(ref_params, lr=0.05)
    before = _snapshot(model)
    for _ in range(3):
        opt.zero_grad()
        _loss(model, X, y).backward()
        opt.step()
        ref_opt.zero_grad()
        _loss(reference, X, y).backward()
        ref_opt.step()
    after = _snapshot(model)
    for name, ref in reference.named_parameters():
        if name in active_names:
            assert not torch.equal(after[name], before[name])
            torch.testing.assert_close(after[name], ref.detach(), rtol=0, atol=1e-12)
        else:
            assert torch.equal(after[name], before[name]), name
            assert not dict(model.named_parameters())[name].requires_grad


@pytest.mark.parametrize("order, expected", [("ascending", [0, 1, 2, 0, 1, 2]),
                                             ("descending", [2, 1, 0, 2, 1, 0])])
def test_switch_schedule_follows_the_order(order, expected):
    model = _mlp()
    X, y = _batch()
    opt = BlockOptimizer(model, switch_every=2, order=order, lr=0.01)
    seen = []
    for _ in range(12):
        seen.append(opt.active_block)
        opt.zero_grad()
        _loss(model, X, y).backward()
        opt.step()
    assert seen[::2] == expected


def test_random_order_is_a_seeded_permutation_per_block_epoch():
    opt = BlockOptimizer(_mlp(widths=(4, 4, 4, 4, 4, 3)), order="random", seed=5, lr=0.01)
    orders = [opt.block_order(epoch) for epoch in range(6)]
    assert all(sorted(o) == list(range(opt.num_blocks)) for o in orders)
    assert len({tuple(o) for o in orders}) > 1
    again = BlockOptimizer(_mlp(widths=(4, 4, 4, 4, 4, 3)), order="random", seed=5, lr=0.01)
    assert [again.block_order(e) for e in range(6)] == orders


def test_state_is_dropped_at_a_switch_and_equals_adamw_on_the_active_block():
    model = _mlp()
    X, y = _batch()
    opt = BlockOptimizer(model, switch_every=2, lr=0.01)
    opt.zero_grad()
    _loss(model, X, y).backward()
    opt.step()
    active = [p for p in opt.base_optimizer.param_groups[0]["params"]]
    shadow = [torch.nn.Parameter(p.detach().clone()) for p in active]
    for s, p in zip(shadow, active, strict=True):
        s.grad = torch.ones_like(p)
    alone = torch.optim.AdamW(shadow, lr=0.01)
    alone.step()
    assert optimizer_state_bytes(opt) == optimizer_state_bytes(alone) > 0
    opt.zero_grad()
    _loss(model, X, y).backward()
    opt.step()                                  # second step of the block: switch, state dropped
    assert opt.active_block == 1 and optimizer_state_bytes(opt) == 0


def test_lr_of_the_param_group_reaches_the_base_optimizer():
    model = _mlp()
    X, y = _batch()
    opt = BlockOptimizer(model, switch_every=5, lr=0.1)
    opt.param_groups[0]["lr"] = 0.003
    opt.zero_grad()
    _loss(model, X, y).backward()
    opt.step()
    assert opt.base_optimizer.param_groups[0]["lr"] == 0.003


def test_closure_is_evaluated_with_gradients():
    model = _mlp()
    X, y = _batch()
    opt = BlockOptimizer(model, lr=0.01)

    def closure():
        opt.zero_grad()
        loss = _loss(model, X, y)
        loss.backward()
        return loss

    assert torch.isfinite(opt.step(closure))


# ----------------------------------------------------------------------------- expansion
@pytest.mark.parametrize("expansion", ["sgd", "sign"])
def test_expansion_updates_inactive_parameters_in_the_backward_pass_and_frees_grads(expansion):
    model = _mlp()
    X, y = _batch()
    opt = BlockOptimizer(model, switch_every=10, lr=0.02, expansion=expansion, expansion_lr_scale=0.5)
    active = set(opt.block_names[opt.active_block])
    before = _snapshot(model)
    names = [n for n, _ in model.named_parameters()]
    grads = dict(zip(names, torch.autograd.grad(_loss(model, X, y), list(model.parameters())), strict=True))
    opt.zero_grad()
    _loss(model, X, y).backward()
    for name, p in model.named_parameters():
        if name in active:
            assert p.grad is not None
            continue
        assert p.grad is None, name
        g = grads[name].sign() if expansion == "sign" else grads[name]
        torch.testing.assert_close(p.detach(), before[name] - 0.01 * g, rtol=0, atol=1e-14)


def test_removed_hooks_leave_inactive_gradients_in_place():
    model = _mlp()
    X, y = _batch()
    opt = BlockOptimizer(model, lr=0.02, expansion="sgd")
    opt.remove_hooks()
    opt.zero_grad()
    _loss(model, X, y).backward()
    assert all(p.grad is not None for p in model.parameters())


def test_tied_parameter_is_trained_once():
    lin = torch.nn.Linear(3, 3)
    model = torch.nn.Sequential(lin, torch.nn.Tanh(), lin)
    opt = BlockOptimizer(model, lr=0.01)
    assert opt.block_names == [["0.weight", "0.bias"]]


# ----------------------------------------------------------------------------- state_dict
@pytest.mark.parametrize("expansion, order", [("none", "ascending"), ("sgd", "random")])
def test_state_dict_round_trip_continues_step_for_step(expansion, order):
    X, y = _batch()

    def run(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            _loss(model, X, y).backward()
            opt.step()

    model = _mlp()
    opt = BlockOptimizer(model, switch_every=3, order=order, expansion=expansion, lr=0.02, seed=2)
    run(model, opt, 7)
    saved_model, saved_opt = copy.deepcopy(model.state_dict()), copy.deepcopy(opt.state_dict())
    assert saved_opt["schedule"]["block_step"] == 1
    run(model, opt, 6)
    resumed = _mlp(seed=9)
    resumed.load_state_dict(saved_model)
    opt2 = BlockOptimizer(resumed, switch_every=3, order=order, expansion=expansion, lr=0.02, seed=2)
    opt2.load_state_dict(saved_opt)
    run(resumed, opt2, 6)
    for (name, a), b in zip(model.named_parameters(), resumed.parameters(), strict=True):
        assert torch.equal(a, b), name
    assert opt2.active_block == opt.active_block


def test_load_state_dict_refuses_another_block_count():
    opt = BlockOptimizer(_mlp(), lr=0.01)
    other = BlockOptimizer(_mlp(widths=(4, 3)), lr=0.01)
    with pytest.raises(ValueError, match="blocks"):
        opt.load_state_dict(other.state_dict())


# ----------------------------------------------------------------------------- measured state
def test_optimizer_state_bytes_counts_the_live_tensors():
    w = torch.nn.Parameter(torch.zeros(7, 3, dtype=torch.float64))
    w.grad = torch.ones_like(w)
    sgd = torch.optim.SGD([w], lr=0.1)
    sgd.step()
    assert optimizer_state_bytes(sgd) == 0
    momentum = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    momentum.step()
    assert optimizer_state_bytes(momentum) == w.numel() * 8
    adam = torch.optim.AdamW([w])
    adam.step()
    state = adam.state[w]
    expected = sum(t.untyped_storage().nbytes() for t in state.values())
    assert optimizer_state_bytes(adam) == expected == 2 * 21 * 8 + state["step"].element_size()


# ----------------------------------------------------------------------------- solve
def test_solve_bcd_reduces_the_finetune_loss_and_keeps_less_state_than_adamw():
    task = markov_finetune_task(vocab_size=8, context=4, n=32, width=16, depth=2, pretrain_steps=10,
                                architecture="mlp")
    with torch.no_grad():
        start = float(task.loss(task.model))
    sol = solve(task, BlockCoordinateDescent(lr=1e-2, switch_every=5), maxiters=40, seed=0)
    assert sol.value < start
    full = solve(task, FullFinetune(lr=1e-2), maxiters=5, seed=0)
    assert sol.original["peak_state_bytes"] < full.original["peak_state_bytes"]


def test_solve_bcd_float32_and_diverged():
    task = markov_finetune_task(vocab_size=8, context=4, n=16, width=8, depth=1, pretrain_steps=5,
                                dtype=torch.float32)
    sol = solve(task, BlockCoordinateDescent(lr=1e-2, switch_every=5), maxiters=3)
    assert np.asarray(sol.x).dtype == np.float32
    blown = solve(task, BlockCoordinateDescent(lr=1e-2, switch_every=5, expansion="sgd",
                                               expansion_lr_scale=1e12), maxiters=20)
    assert blown.retcode is RetCode.Diverged


def test_a_rejected_constructor_leaves_the_model_unchanged():
    import pytest
    import torch

    from algorithms.optimizers import BlockOptimizer

    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    with pytest.raises(ValueError, match="base AdamW rejected"):
        BlockOptimizer(model, base=torch.optim.AdamW, betas=(2.0, 0.9))
    assert all(p.requires_grad and p.grad is not None for p in model.parameters())
    with pytest.raises(TypeError, match="got an instance of SGD"):
        BlockOptimizer(model, base=torch.optim.SGD(model.parameters(), lr=0.1))


def test_solve_with_another_block_optimizer():
    """``BlockCoordinateDescent(optimizer=...)`` builds the optimizer with BlockOptimizer's keywords (our
    class given explicitly: the same run)."""
    task = markov_finetune_task(vocab_size=8, context=4, n=16, width=16, depth=2, pretrain_steps=5)
    a = solve(task, BlockCoordinateDescent(lr=1e-2, switch_every=3), maxiters=8, seed=1)
    seen = []

    def build(model, **kwargs):
        seen.append(sorted(kwargs))
        return BlockOptimizer(model, **kwargs)

    b = solve(task, BlockCoordinateDescent(lr=1e-2, switch_every=3, optimizer=build), maxiters=8, seed=1)
    np.testing.assert_array_equal(a.x, b.x)
    assert seen == [["blocks", "expansion", "expansion_lr_scale", "lr", "order", "seed", "switch_every",
                     "weight_decay"]]


def test_state_dict_loads_into_an_optimizer_over_a_deepcopy_of_the_model():
    # a BlockOptimizer freezes its inactive blocks, so the copy shows only the active block as
    # trainable; loading the state rebuilds the original layout (#43 round 3, C4)
    X, y = _batch()
    model = _mlp()
    opt = BlockOptimizer(model.named_parameters(), lr=0.01, weight_decay=0.0, switch_every=3)
    for _ in range(2):
        opt.zero_grad()
        _loss(model, X, y).backward()
        opt.step()
    twin = copy.deepcopy(model)
    opt2 = BlockOptimizer(twin.named_parameters(), lr=0.01, weight_decay=0.0, switch_every=3)
    assert opt2.num_blocks < opt.num_blocks
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    assert opt2.block_names == opt.block_names
    for _ in range(7):                       # across block switches
        for m, o in ((model, opt), (twin, opt2)):
            o.zero_grad()
            _loss(m, X, y).backward()
            o.step()
    for (name, a), b in zip(model.named_parameters(), twin.parameters(), strict=True):
        assert torch.equal(a, b), name
    assert opt2.active_block == opt.active_block


def test_load_state_dict_refuses_another_width_naming_the_parameter():
    wide = _mlp(widths=(4, 12, 5, 3))
    X, _ = _batch()
    other = BlockOptimizer(wide, lr=0.01)
    wide(X).sum().backward()
    other.step()
    opt = BlockOptimizer(_mlp(), lr=0.01)
    with pytest.raises(ValueError, match=r"state_dict.*shape"):
        opt.load_state_dict(other.state_dict())
