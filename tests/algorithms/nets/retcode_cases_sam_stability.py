"""Retcode cases of the SGD / SAM training pairs: a blow-up is ``Diverged``, a horizon ``MaxIters``."""

from algorithms import RetCode
from algorithms.nets.sam import SAMTraining, SGDTraining, parity_task
from tests.retcodes import RetcodeCase


def _task():
    return parity_task(n=8, in_features=3, width=8, seed=0)


CASES = [
    # lr = 50 on labels ±1: the loss passes 1e12 (or overflows) within a few dozen steps
    RetcodeCase("sgd-diverges", lambda: (_task(), SGDTraining(lr=50.0, batch_size=8),
                                         {"maxiters": 200, "seed": 0}), RetCode.Diverged),
    RetcodeCase("sam-diverges", lambda: (_task(), SAMTraining(lr=50.0, rho=0.05, batch_size=8),
                                         {"maxiters": 200, "seed": 0}), RetCode.Diverged),
    # 5 steps cannot bring the loss to 1e-12: the horizon comes first
    RetcodeCase("sgd-horizon", lambda: (_task(), SGDTraining(lr=0.1, batch_size=4),
                                        {"maxiters": 5, "tol": 1e-12, "seed": 0}), RetCode.MaxIters),
    RetcodeCase("sam-horizon", lambda: (_task(), SAMTraining(lr=0.1, rho=0.05, batch_size=4),
                                        {"maxiters": 5, "tol": 1e-12, "seed": 0}), RetCode.MaxIters),
]
