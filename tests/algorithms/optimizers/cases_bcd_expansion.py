"""Contract cases for the finetune pairs of bcd_expansion: BCD / BREAD and the AdamW peer."""

import functools

import numpy as np
import torch

from algorithms.optimizers.block import BlockCoordinateDescent
from algorithms.optimizers.finetune import FullFinetune, markov_finetune_task


@functools.lru_cache(maxsize=2)
def _task(dtype):
    torch_dtype = torch.float32 if dtype == np.float32 else torch.float64
    # the family's MLP (fast); AdamW and BCD reach the entropy rate + 0.1 within the default 200 steps
    return markov_finetune_task(vocab_size=8, context=8, n=64, width=32, depth=2, pretrain_steps=20, seed=2,
                                architecture="mlp", dtype=torch_dtype)


def make_bcd(dtype=np.float64):
    return _task(dtype), BlockCoordinateDescent(lr=2e-2, switch_every=10, expansion="sgd",
                                                expansion_lr_scale=3.0)


def make_full(dtype=np.float64):
    return _task(dtype), FullFinetune(lr=2e-2)


CASES = [make_bcd, make_full]
