"""Contract cases of the single_location_attention pairs (tests/test_contract.py)."""

import numpy as np

from algorithms.attention import OverlapFlow, SingleLocationProblem, SphericalGD


def make_overlap_flow(dtype=np.float64):
    # βd = 3: p(μ) is smooth, so the Euler flow meets tol = 1e-8 within the default 20000 steps
    return SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5, dtype=dtype), OverlapFlow(lr=0.05)


def make_spherical_gd(dtype=np.float64):
    # a small sample and lr = 0.3: the Riemannian gradient reaches 1e-6 within the default 3000 steps
    return SingleLocationProblem(d=3, L=2, gamma=0.6, n_samples=20, dtype=dtype), SphericalGD(lr=0.3)


CASES = [make_overlap_flow, make_spherical_gd]
