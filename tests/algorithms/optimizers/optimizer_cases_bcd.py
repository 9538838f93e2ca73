"""BlockOptimizer's cases for the family's optimizer contract (``OPTIMIZER_CASES_BCD``, same shape as
``optimizer_cases.OPTIMIZER_CASES``: ``build(params)`` over a list of tensors or of parameter groups).

BlockOptimizer takes named parameters (its blocks come from names), so ``build`` names them
``p0, p1, ...``; parameter groups are flattened to one group (``lr`` per group is not supported:
the base optimizer is rebuilt per block with the one ``lr``).
"""

from __future__ import annotations

import torch

from algorithms.optimizers.block import BlockOptimizer
from tests.algorithms.optimizers.optimizer_cases import OptimizerCase


def _named(params) -> list[tuple[str, torch.Tensor]]:
    params = list(params)
    if params and isinstance(params[0], dict):
        params = [p for group in params for p in group["params"]]
    return [(f"p{i}", p) for i, p in enumerate(params)]


OPTIMIZER_CASES_BCD = [
    OptimizerCase("block-adamw", lambda params: BlockOptimizer(_named(params), switch_every=2, lr=0.05)),
    OptimizerCase("block-adamw-sgd-expansion", lambda params: BlockOptimizer(
        _named(params), switch_every=3, order="random", expansion="sgd", expansion_lr_scale=0.5, lr=0.05)),
]

#: tests of test_optimizer_contract.py that do not apply to a BlockOptimizer, and why
NOT_APPLICABLE = {
    "test_param_groups_keep_their_own_lr": "one lr for all blocks: the base optimizer is rebuilt on each "
                                           "active block with the optimizer's lr",
    "test_zero_grad_and_closure": "by design only the active block keeps a .grad after backward (inactive "
                                  "blocks are frozen, or updated and freed by the expansion hooks)",
    "test_low_precision_params_keep_fp32_state": "the state is the base optimizer's (torch's AdamW keeps "
                                                 "moments in the parameter dtype), held in base_optimizer",
    "test_nonfinite_gradient_skips_without_touching_state_or_raises": "no on_nonfinite policy: the base "
                                                                      "optimizer's own behaviour applies",
}
