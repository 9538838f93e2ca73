"""Public helpers that train (a task built by pretraining) run with autograd on, as ``solve`` does, and take
every valid seed (round 25: under a caller's ``torch.no_grad()`` they met torch's "element 0 of tensors does
not require grad"; seed = 2**64 − 1 was refused naming 2**64, or for more than one run)."""

from __future__ import annotations

import pytest
import torch

from algorithms.optimizers import markov_finetune_task
from algorithms.quantum import PurestStateProblem, identification_errors
from algorithms.unlearning import sine_poisoning_task

BUILDERS = {
    "markov_finetune_task": lambda seed=1: markov_finetune_task(vocab_size=6, context=4, n=16, width=8,
                                                                depth=1, pretrain_steps=2, seed=seed),
    "sine_poisoning_task": lambda seed=0: sine_poisoning_task(n_retain=10, n_forget=2, hidden=(4,),
                                                              train_steps=5, seed=seed),
}


def _trained_weights(task) -> torch.Tensor:
    """What the helper trained: the unlearning task's θ*, the finetuning task's pretrained model."""
    if hasattr(task, "params"):
        return task.params.detach().clone()
    return torch.cat([p.detach().flatten() for p in task.model.parameters()])


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_training_helper_works_inside_no_grad(name, mode):
    plain = BUILDERS[name]()
    with mode():
        inside = BUILDERS[name]()
    assert torch.is_grad_enabled()
    assert torch.equal(_trained_weights(plain), _trained_weights(inside))   # the same training, the same task


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_the_largest_seed_is_taken(name):
    BUILDERS[name](seed=2**64 - 1)


def test_identification_errors_wraps_its_runs_seeds():
    from algorithms import solve
    from algorithms.quantum import CoherentSR, random_state

    problem = PurestStateProblem([random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))],
                                 copies=50)
    runs = [solve(problem, CoherentSR(), seed=s).x for s in (2**64 - 1, 0)]   # run r: (seed + r) mod 2**64
    expected = sum(not problem.is_correct(x) for x in runs)
    assert identification_errors(problem, CoherentSR(), repetitions=2, seed=2**64 - 1) == expected
