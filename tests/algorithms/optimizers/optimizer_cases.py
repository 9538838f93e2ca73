"""The optimizers the family's contract test loops over: one ``OptimizerCase`` each.

A later optimizer of the family joins the contract by adding its case here: ``build(params)``
returns the optimizer over ``params`` (a list of tensors or of parameter groups).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from algorithms.optimizers import SOAP, Muon, Shampoo


@dataclass(frozen=True)
class OptimizerCase:
    name: str
    build: Callable[[Any], torch.optim.Optimizer]


OPTIMIZER_CASES = [
    OptimizerCase("muon", lambda params: Muon(params, lr=0.02, weight_decay=0.01, ns_dtype=torch.float32)),
    OptimizerCase("muon-bf16-ns", lambda params: Muon(params, lr=0.02, weight_decay=0.0)),
    OptimizerCase("shampoo", lambda params: Shampoo(params, lr=0.01, precondition_frequency=2)),
    OptimizerCase("shampoo-blocked-grafted",
                  lambda params: Shampoo(params, lr=0.01, block_size=3, grafting="adam",
                                         precondition_frequency=3)),
    OptimizerCase("soap", lambda params: SOAP(params, lr=0.01, precondition_frequency=2)),
    OptimizerCase("soap-blocked", lambda params: SOAP(params, lr=0.01, block_size=4, precondition_frequency=3,
                                                      weight_decay=0.01)),
]
