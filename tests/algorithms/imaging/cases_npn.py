"""Contract cases for every (problem, algorithm) pair of the imaging family.

``sol.x`` is the reconstructed image, in the float type of the measurements.
"""

import torch

from algorithms.imaging import PnPADMM, PnPPGD, TVPrior
from tests.algorithms.imaging._instances import cs_problem, oracle_npn


def _to_torch(dtype):
    return torch.float32 if dtype.__name__ == "float32" else torch.float64


def make_pgd(dtype):
    problem, x = cs_problem(_to_torch(dtype))
    return problem, PnPPGD(prior=TVPrior(weight=0.01), lr=0.5, npn=oracle_npn(problem, x, gamma=0.5))


def make_admm(dtype):
    problem, _ = cs_problem(_to_torch(dtype))
    return problem, PnPADMM(prior=TVPrior(weight=0.01), penalty=0.5)


CASES = [make_pgd, make_admm]
