"""Retcode cases of the finetune pairs: a blow-up is ``Diverged``, a horizon short of the target
``MaxIters``."""

import functools

from algorithms import RetCode
from algorithms.optimizers.block import BlockCoordinateDescent
from algorithms.optimizers.finetune import FullFinetune, markov_finetune_task
from tests.retcodes import RetcodeCase


@functools.lru_cache(maxsize=1)
def _task():
    return markov_finetune_task(vocab_size=8, context=8, n=32, width=16, depth=2, pretrain_steps=5, seed=0,
                                architecture="mlp")


CASES = [
    # an expansion step 1e8 x lr on every inactive block: the loss overflows within a few steps
    RetcodeCase("bcd-expansion-diverges",
                lambda: (_task(), BlockCoordinateDescent(lr=1e-2, switch_every=5, expansion="sgd",
                                                         expansion_lr_scale=1e8), {"maxiters": 50}),
                RetCode.Diverged),
    RetcodeCase("full-finetune-diverges", lambda: (_task(), FullFinetune(lr=1e6), {"maxiters": 50}),
                RetCode.Diverged),
    # 3 steps cannot bring the pretrained model (on another chain) to the entropy rate + 0.01
    RetcodeCase("bcd-horizon", lambda: (_task(), BlockCoordinateDescent(lr=1e-2, switch_every=2),
                                        {"maxiters": 3, "tol": 0.01}), RetCode.MaxIters),
    RetcodeCase("full-finetune-horizon",
                lambda: (_task(), FullFinetune(lr=1e-2), {"maxiters": 3, "tol": 0.01}), RetCode.MaxIters),
]
