"""Unit tests of spherical gradient descent in torch."""

import numpy as np
import torch

from algorithms import RetCode, solve
from algorithms.attention import SingleLocationProblem, SphericalGD, overlaps

torch.set_num_threads(1)


def test_iterates_stay_on_the_sphere_and_the_trace_holds_the_overlaps():
    p = SingleLocationProblem(d=8, L=3, gamma=0.6, n_samples=100)
    sol = solve(p, SphericalGD(lr=0.1), seed=2, maxiters=40, store_trace=True)
    u, v = torch.as_tensor(sol.x[:8]), torch.as_tensor(sol.x[8:])
    assert abs(float(u.norm()) - 1) < 1e-12 and abs(float(v.norm()) - 1) < 1e-12
    assert sol.retcode is RetCode.MaxIters and len(sol.trace) == 41
    last = sol.trace[-1]
    for key, value in overlaps(u, v, *p.oracle()).items():
        assert abs(last[key] - value) < 1e-12
    assert sol.trace[-1]["risk"] < sol.trace[0]["risk"]


def test_a_small_step_decreases_the_empirical_risk_monotonically():
    p = SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=80)
    sol = solve(p, SphericalGD(lr=0.02), seed=0, maxiters=30, store_trace=True)
    risks = np.array([r["risk"] for r in sol.trace])
    assert np.all(np.diff(risks) < 1e-12)


def test_student_link_override_changes_the_model():
    p = SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=50)
    a = solve(p, SphericalGD(lr=0.1), seed=0, maxiters=5)
    b = solve(p, SphericalGD(lr=0.1, link="quadratic"), seed=0, maxiters=5)
    assert not np.allclose(a.x, b.x)


def test_float32_kept():
    p = SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=50, dtype=np.float32)
    assert solve(p, SphericalGD(), seed=0, maxiters=3).x.dtype == np.float32
