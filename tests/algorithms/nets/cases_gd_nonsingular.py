"""Contract cases for the gd_nonsingular pair StrictSaddle x GDMap."""

import numpy as np

from algorithms.nets.gd_map import GDMap, StrictSaddle


def strict_saddle_gd(dtype):
    problem = StrictSaddle(a=np.array([1.0, 0.5], dtype=dtype), b=np.array([1.0], dtype=dtype),
                           init_scale=0.5)
    return problem, GDMap(lr=0.2)


CASES = [strict_saddle_gd]
