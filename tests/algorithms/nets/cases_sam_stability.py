"""Contract cases for the SAM / SGD training pairs of sam_stability."""

import numpy as np

from algorithms.nets.sam import SAMTraining, SGDTraining, parity_task


def _task(dtype):
    return parity_task(n=8, in_features=3, width=16, seed=0, dtype=dtype)


def make_sgd(dtype=np.float64):
    return _task(dtype), SGDTraining(lr=0.1, batch_size=4)


def make_sam(dtype=np.float64):
    return _task(dtype), SAMTraining(lr=0.1, rho=0.01, batch_size=4)


CASES = [make_sgd, make_sam]
