"""Matrix-preconditioned optimizers (Muon, Shampoo, SOAP) and block coordinate descent with landscape
expansion (BlockOptimizer) as ``torch.optim.Optimizer``s, the
width/depth scaling rules of their hyperparameters, width/depth-parametrized models (MLP,
transformer), a generated-text language-modelling task, and training behind ``solve``.

>>> import torch
>>> from algorithms.optimizers import Muon
>>> w = torch.nn.Parameter(torch.eye(3))
>>> opt = Muon([w], lr=0.1, weight_decay=0.0)
>>> (w.sum()).backward(); opt.step()
>>> w.shape
torch.Size([3, 3])
"""

from algorithms.optimizers.block import (
    BlockCoordinateDescent,
    BlockOptimizer,
    find_blocks,
    optimizer_state_bytes,
)
from algorithms.optimizers.expansion import LowRankExpansion
from algorithms.optimizers.finetune import FinetuneTask, FullFinetune, markov_finetune_task, run_finetune
from algorithms.optimizers.models import MLP, Transformer
from algorithms.optimizers.muon import Muon
from algorithms.optimizers.newton_schulz import (
    CUBIC_COEFFICIENTS,
    QUINTIC_COEFFICIENTS,
    newton_schulz,
    singular_value_map,
)
from algorithms.optimizers.scaling import independent_weight_decay, lr_multiplier, param_groups
from algorithms.optimizers.shampoo import Shampoo
from algorithms.optimizers.soap import SOAP
from algorithms.optimizers.tasks import MarkovLanguageTask
from algorithms.optimizers.training import OPTIMIZERS, OptimizerTraining, TrainingProblem

__all__ = [
    "CUBIC_COEFFICIENTS",
    "MLP",
    "OPTIMIZERS",
    "QUINTIC_COEFFICIENTS",
    "SOAP",
    "BlockCoordinateDescent",
    "BlockOptimizer",
    "FinetuneTask",
    "FullFinetune",
    "LowRankExpansion",
    "MarkovLanguageTask",
    "Muon",
    "OptimizerTraining",
    "Shampoo",
    "TrainingProblem",
    "Transformer",
    "find_blocks",
    "independent_weight_decay",
    "lr_multiplier",
    "markov_finetune_task",
    "newton_schulz",
    "optimizer_state_bytes",
    "param_groups",
    "run_finetune",
    "singular_value_map",
]
