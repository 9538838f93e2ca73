"""#43 round 13 (docstring domains) for the optimizers family: one test per class, with its words."""

import pytest
import torch

from algorithms.nets import SAM
from algorithms.optimizers import SOAP, BlockOptimizer, Shampoo


# ------------------ class 1: Shampoo's roots of float32 statistics at large gradients (rounding noise)
@pytest.mark.parametrize("exponent", [0.25, 0.5])
@pytest.mark.parametrize("scale", [1e4, 1e6, 1e10, 1e14])
def test_shampoo_float32_steps_as_float64_on_large_rank_one_gradients(exponent, scale):
    u, v = torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, -1.0, 2.0])
    moved = []
    for dtype in (torch.float32, torch.float64):
        w = torch.nn.Parameter(torch.zeros(4, 3, dtype=dtype))
        opt = Shampoo([w], lr=0.1, precondition_frequency=1, exponent=exponent)
        for _ in range(3):
            w.grad = (scale * torch.outer(u, v)).to(dtype)
            opt.step()
        moved.append(w.detach().to(torch.float64))
    # a float32 Shampoo stepped 25x (exponent 0.25, 1e14) to 27000x (0.5, 1e6) too far before
    assert torch.allclose(moved[0], moved[1], rtol=1e-3, atol=0.0), (moved[0], moved[1])


# ------------------ class 2: an int for a real keyword skipped the float-only checks (or overflowed torch)
def _named():
    return [("w", torch.nn.Parameter(torch.ones(3, 3))), ("v", torch.nn.Parameter(torch.ones(3)))]


@pytest.mark.parametrize("kwargs, words", [
    (dict(weight_decay=5000), "lr·weight_decay must be <= 1"),
    (dict(weight_decay=2**64), "lr·weight_decay must be <= 1"),
    (dict(weight_decay=-1), "weight_decay must be finite and >= 0"),
])
def test_block_optimizer_int_weight_decay_is_checked_as_the_float(kwargs, words):
    with pytest.raises(ValueError, match=words):
        BlockOptimizer(_named(), **kwargs)


@pytest.mark.parametrize("make", [
    lambda w: SAM([w], lr=0.1, weight_decay=2**64),
    lambda w: BlockOptimizer([("w", w)], base=torch.optim.SGD, lr=1e-30, weight_decay=2**64),
    lambda w: BlockOptimizer([("w", w)], eps=2**64),
])
def test_an_int_real_keyword_past_int64_steps_as_its_float(make):
    w = torch.nn.Parameter(torch.ones(2))

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss
    opt = make(w)
    if isinstance(opt, SAM):
        opt.step(closure)
    else:
        closure()
        opt.step()
    assert bool(torch.isfinite(w).all())
    assert all(isinstance(g.get("weight_decay", 0.0), float) for g in opt.param_groups)


# ------------------ class 3: block_size past 2**63 - 1 (a size) was taken
@pytest.mark.parametrize("Opt", [Shampoo, SOAP])
@pytest.mark.parametrize("size", [2**63, 2**64, 2**100])
def test_block_size_is_at_most_int64(Opt, size):
    with pytest.raises(ValueError, match=r"block_size must be .* an int >= 1 and <= 2\*\*63 - 1"):
        Opt([torch.nn.Parameter(torch.ones(3, 3))], block_size=size)


# ------------------ class 4: markov_finetune_task's seed 2**64 - 1 was refused naming 2**64 (chain B's seed)
def test_markov_finetune_task_takes_the_largest_seed():
    from algorithms.optimizers import markov_finetune_task
    task = markov_finetune_task(vocab_size=6, context=4, n=16, width=8, depth=1, pretrain_steps=2,
                                seed=2**64 - 1)
    assert tuple(task.tokens.shape) == (16, 5)


# ------------------ class 5: SOAP scaled the rotation's rounding noise to ±1 (float32 steps, null directions)
@pytest.mark.parametrize("rank_one", [True, False])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e6, 1e14])
def test_soap_float32_steps_as_float64_on_rank_deficient_statistics(rank_one, scale):
    generator = torch.Generator().manual_seed(0)
    u, v = torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([1.0, -1.0, 2.0])
    # a 4 × 3 gradient: its 4 × 4 left statistics have a null direction even at full rank
    full = torch.randn(4, 3, generator=generator, dtype=torch.float64)
    grad = torch.outer(u, v).double() if rank_one else full
    moved = []
    for dtype in (torch.float32, torch.float64):
        w = torch.nn.Parameter(torch.zeros(4, 3, dtype=dtype))
        opt = SOAP([w], lr=0.1, precondition_frequency=2)
        for _ in range(4):
            w.grad = (scale * grad).to(dtype)
            opt.step()
        moved.append(w.detach().to(torch.float64))
    # float32 stepped 4.7 (rank one, scale 1) to 3e14 (scale 1e14) where float64 stepped 0.24
    assert torch.allclose(moved[0], moved[1], rtol=0.0, atol=0.01), (moved[0], moved[1])


# ------------------ class 6: a lazy Linear reached torch's "uninitialized parameter" message
def test_low_rank_expansion_of_a_lazy_linear_names_linear():
    from algorithms.optimizers import LowRankExpansion
    with pytest.raises(ValueError, match=r"linear has uninitialized \(lazy\) parameters"):
        LowRankExpansion(torch.nn.LazyLinear(3), 1)


# ------------------ class 7: OptimizerTraining hyperparameters torch fails on (IndexError, ...) or eps = 0
@pytest.mark.parametrize("hyperparameters, words", [
    ({"betas": (0.9,)}, "betas must be a pair"), ({"capturable": True}, "capturable"),
    ({"differentiable": True}, "differentiable"), ({"eps": 0.0}, "eps must be > 0"),
])
def test_optimizer_training_hyperparameters_torch_fails_on_are_refused_by_name(hyperparameters, words):
    from algorithms.optimizers import OptimizerTraining
    with pytest.raises(ValueError, match=rf"hyperparameters.*{words}"):
        OptimizerTraining(optimizer="adamw", lr=0.01, hyperparameters=hyperparameters)


# ------------------ class 8: a user model whose forward misbehaves reached torch's / Python's messages
@pytest.mark.parametrize("forward, error, words", [
    (lambda z: (z,), TypeError, "model's forward must return a floating tensor of logits, got tuple"),
    (lambda z: 1 / 0, ValueError, r"model\(tokens\) raised ZeroDivisionError"),
    (lambda z: z.long(), TypeError, "must return a floating tensor of logits, got a torch.int64"),
])
def test_finetune_with_a_misbehaving_model_names_its_forward(forward, error, words):
    import copy

    from algorithms import solve
    from algorithms.optimizers import FinetuneTask, FullFinetune, markov_finetune_task
    base = markov_finetune_task(vocab_size=6, context=4, n=16, width=8, depth=1, pretrain_steps=2, seed=1)

    class Wrapped(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner, self.vocab_size = inner, 6

        def forward(self, tokens):
            return forward(self.inner(tokens))
    task = FinetuneTask(Wrapped(copy.deepcopy(base.model)), base.task, base.tokens, batch_size=4)
    with pytest.raises(error, match=words):
        solve(task, FullFinetune(lr=0.01), maxiters=3, seed=0)


@pytest.mark.parametrize("make", [
    lambda: SAM([torch.nn.Parameter(torch.ones(2))], torch.optim.Adam, lr=0.1, betas=(0.9,)),
    lambda: BlockOptimizer([("w", torch.nn.Parameter(torch.ones(3, 3)))], betas=(0.9,)),
])
def test_a_base_keyword_torch_indexes_past_is_refused_by_name(make):
    with pytest.raises(ValueError, match=r"betas must be a pair \(β₁, β₂\), got 1 values"):
        make()


@pytest.mark.parametrize("kwargs, words", [
    (dict(betas=(0.9, 0.9, 0.9)), r"betas must be a pair"),
    (dict(capturable=True), r"capturable=True is not supported"),
    (dict(differentiable=True), r"differentiable=True is not supported"),
])
@pytest.mark.parametrize("make", [
    lambda kw: SAM([torch.nn.Parameter(torch.ones(2))], torch.optim.Adam, lr=0.1, **kw),
    lambda kw: BlockOptimizer([("w", torch.nn.Parameter(torch.ones(3, 3)))], **kw),
])
def test_base_keywords_torch_fails_on_at_a_step_are_refused_at_construction(kwargs, words, make):
    with pytest.raises(ValueError, match=words):
        make(kwargs)
