"""Contract cases: one ``make(dtype) -> (problem, algorithm)`` per registered pair of the family."""

import numpy as np
import torch

from algorithms.optimizers import MLP, MarkovLanguageTask, OptimizerTraining, TrainingProblem

TASK = MarkovLanguageTask(vocab_size=8, context=8, seed=0)


def make_training(dtype):
    torch_dtype = torch.float32 if dtype == np.float32 else torch.float64
    model = MLP(8, 8, width=16, depth=1, seed=0, dtype=torch_dtype)
    # target: 0.3 nats above the floor, reached by AdamW in well under the 300 steps
    problem = TrainingProblem(model, TASK, steps=300, target_loss=TASK.entropy_rate() + 0.3)
    return problem, OptimizerTraining("adamw", lr=0.02)


CASES = [make_training]
