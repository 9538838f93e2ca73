"""Round 20 of #43 in the qp family: valid QPs scaled far from 1 are answered, not left ``Failure``."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP, installed_backends


def _half_plane(s):  # min |x|² s.t. x1 + x2 >= s: x* = (s/2, s/2) (clarabel answered Failure from s = 1e8 on)
    return QP(P=2 * np.eye(2), q=np.zeros(2), G=np.array([[-1.0, -1.0]]), h=np.array([-s])), np.full(2, s / 2)


def _free(s):  # min ½|x|² − s (3, 4)·x: x* = s (3, 4) (highs answered Failure from s = 1e8 on)
    return QP(P=np.eye(2), q=-s * np.array([3.0, 4.0])), s * np.array([3.0, 4.0])


@pytest.mark.parametrize("backend", ["clarabel", "highs", "daqp", "osqp"])
@pytest.mark.parametrize("scale", [1e8, 1e12, 1e15])
@pytest.mark.parametrize("make", [_half_plane, _free])
def test_a_far_minimiser_is_found_by_every_backend(make, scale, backend):
    if backend not in installed_backends():
        pytest.skip(f"{backend} not installed")
    qp, expected = make(scale)
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode == RetCode.Success
    np.testing.assert_allclose(sol.x, expected, rtol=1e-6)
