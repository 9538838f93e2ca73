"""Contract case for the (ConstrainedBOProblem, CEI) pair: a smooth problem with an interior optimum behind
a constraint that cuts off half of the box; CEI with a fixed SE kernel reaches the success criterion
(regret <= 1e-6 below the known f* = 0) within 50 steps for every seed the contract uses."""

import numpy as np

from algorithms.bayesopt import CEI, ConstrainedBOProblem, Kernel


def make_cei(dtype):
    problem = ConstrainedBOProblem(
        f=lambda x: float(np.sum((x - 0.3) ** 2)),
        c=lambda x: float(x[0] + x[1] - 1.0),
        bounds=np.array([[0.0, 1.0], [0.0, 1.0]], dtype=dtype),
        initial=6,
        f_star=0.0,
    )
    return problem, CEI.paper(kernel=Kernel("se", lengthscale=0.3))


CASES = [make_cei]
