"""Round 26 of #43 (heldout26's first run: 4 silent, 3 cryptic) and one refusal found beside it."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from algorithms.bayesopt import Kernel, rkhs_problem
from algorithms.bayesopt.test_functions import RKHS_DRAWS
from algorithms.forests import AutoencodingProblem
from algorithms.nets import SAM
from algorithms.nets.gradient_flow import RTOL_MIN, GradientFlow
from algorithms.optimizers import Muon, markov_finetune_task
from algorithms.unlearning import sine_poisoning_task


def test_rkhs_problem_states_its_draw_cap():
    # the docstring said draws repeat "until" the conditions hold; the code gives up after 50 (now stated)
    assert RKHS_DRAWS == 50 and "at most ``RKHS_DRAWS`` = 50" in rkhs_problem.__doc__
    with pytest.raises(ValueError, match=rf"^no admissible draw in {RKHS_DRAWS} attempts"):
        rkhs_problem(Kernel("se", lengthscale=0.2), 1, n_centers=1)


@pytest.mark.parametrize("y", [np.full(30, np.nan), np.full(30, np.inf), np.full(30, 1e39)])
def test_autoencoding_problem_refuses_non_finite_labels(y):
    # accepted at construction, refused only by the solve or RFAutoencoder.fit
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ValueError, match=r"^y "):
        AutoencodingProblem(X=X, y=y)


def test_gradient_flow_states_its_rtol_floor_exactly():
    # the docstring said [2.22e-14, ...] and 2.22e-14 was refused (the floor is 100·eps = 2.2204e-14)
    assert RTOL_MIN == 100 * np.finfo(np.float64).eps
    assert repr(RTOL_MIN) in GradientFlow.__doc__
    GradientFlow(rtol=RTOL_MIN)
    with pytest.raises(ValueError, match=rf"^rtol must be >= {RTOL_MIN!r}"):
        GradientFlow(rtol=2.22e-14)


def test_muon_loads_an_emptied_entry_as_no_state_as_documented():
    params = [torch.nn.Parameter(torch.randn(4, 3)), torch.nn.Parameter(torch.randn(3, 4))]
    opt = Muon(params, lr=0.01, weight_decay=0.0)
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()
    saved = copy.deepcopy(opt.state_dict())
    del saved["state"][0]["momentum_buffer"]
    assert "parameter's one entry ``momentum_buffer``" in Muon.load_state_dict.__doc__
    fresh = Muon([torch.nn.Parameter(p.detach().clone()) for p in params], lr=0.01, weight_decay=0.0)
    fresh.load_state_dict(saved)
    assert not fresh.state[fresh.param_groups[0]["params"][0]]   # no state: a fresh momentum at its next step
    renamed = copy.deepcopy(opt.state_dict())
    renamed["state"][0]["momentum"] = renamed["state"][0].pop("momentum_buffer")   # another key: refused
    other = Muon([torch.nn.Parameter(p.detach().clone()) for p in params], lr=0.01, weight_decay=0.0)
    with pytest.raises(ValueError, match=r"state_dict\['state'\]\[0\] has the entries \['momentum'\]"):
        other.load_state_dict(renamed)


@pytest.mark.parametrize("vocab_size", [2, 3, np.int64(2)])
def test_markov_finetune_task_takes_every_documented_vocab_size(vocab_size):
    # vocab_size = 2 was refused naming branching (the chains' default 4), an argument it does not take
    task = markov_finetune_task(vocab_size=vocab_size, context=4, n=16, width=8, depth=1, pretrain_steps=2)
    assert 0 < task.reference_loss < np.log(int(vocab_size))


@pytest.mark.parametrize("seed", [np.int64(7), np.uint64(2**64 - 1)])
def test_sine_poisoning_task_takes_numpy_integer_seeds(seed):
    # np.int64(7) + 1 met numpy's OverflowError inside (seed + 1) % 2**64
    sine_poisoning_task(5, 2, hidden=(4,), train_steps=2, seed=seed)


def test_sam_names_params_for_a_non_leaf_tensor():
    # torch's "can't optimize a non-leaf Tensor" was reported as SAM rejecting the keywords ['lr']
    with pytest.raises(ValueError, match=r"^SAM: params: .*non-leaf Tensor"):
        SAM([torch.ones(3, requires_grad=True) * 2], lr=0.1)
