"""Contract cases for every (PurestStateProblem, algorithm) pair of algorithms.quantum.

``sol.x`` is an index (the state named purest), so the contract's float32 test has no dtype to keep:
each maker is marked ``index_valued`` (see the family note). The states are built in ``dtype``.
"""

import numpy as np

from algorithms.quantum import CoherentSR, IncoherentSR, PurestStateProblem, UniformAllocation, random_state


def _problem(dtype, copies=400):
    states = [random_state(2, purity=p, seed=i) for i, p in enumerate((0.4, 0.95, 0.5))]
    if dtype == np.float32:  # single precision: keep the complex entries in complex64
        states = [rho.astype(np.complex64) for rho in states]
    return PurestStateProblem(states, copies=copies)


def incoherent(dtype):
    return _problem(dtype), IncoherentSR()


def coherent(dtype):
    return _problem(dtype), CoherentSR()


def uniform(dtype):
    return _problem(dtype), UniformAllocation(estimator="collision")


for _make in (incoherent, coherent, uniform):
    _make.index_valued = True

CASES = [incoherent, coherent, uniform]
