"""Retcode cases of the training pairs: a blow-up is ``Diverged``, a horizon without the target
``MaxIters``."""

from algorithms import RetCode
from algorithms.optimizers import MLP, MarkovLanguageTask, OptimizerTraining, TrainingProblem
from tests.retcodes import RetcodeCase

TASK = MarkovLanguageTask(vocab_size=8, context=8, seed=0)


def _problem(steps):
    return TrainingProblem(MLP(8, 8, width=16, depth=1, seed=0), TASK, steps=steps)


CASES = [
    # lr = 1e4 on every parameter: the loss passes 10x its start (or overflows) within a few steps
    RetcodeCase("adamw-diverges", lambda: (_problem(50), OptimizerTraining("adamw", lr=1e4), {}),
                RetCode.Diverged),
    RetcodeCase("shampoo-diverges", lambda: (_problem(50), OptimizerTraining("shampoo", lr=1e4), {}),
                RetCode.Diverged),
    # 3 steps cannot bring the held-out loss from log 8 to the entropy floor + 0.1
    RetcodeCase("muon-horizon", lambda: (_problem(3), OptimizerTraining("muon", lr=0.02), {}),
                RetCode.MaxIters),
    RetcodeCase("soap-horizon", lambda: (_problem(100), OptimizerTraining("soap", lr=0.01),
                                         {"maxiters": 3}), RetCode.MaxIters),
]
