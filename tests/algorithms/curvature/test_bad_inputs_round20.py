"""Round 20: non-finite answers of a user's callable part-way through a run (class H)."""

import math

import numpy as np
import pytest

import algorithms.curvature as C
from algorithms import RetCode, solve


class _TurnsNonFinite:
    """``C(x) = 0.2 I`` (as a diagonal: a valid lower bound for ‖x‖², far from its Hessian, so no method ends
    in one step) for ``k`` calls once armed, then ``bad`` everywhere."""

    def __init__(self, k: int, bad: float) -> None:
        self.k, self.bad, self.calls, self.armed = k, bad, 0, False

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if not self.armed:
            return 0.2 * np.ones_like(x)
        self.calls += 1
        return 0.2 * np.ones_like(x) if self.calls <= self.k else np.full(x.shape, self.bad)


CASES = [(algorithm, k) for algorithm in (C.LCD1(), C.LCD2(), C.LCD3()) for k in (0, 1, 3)]
# GradientDescent reads C only for its rounding floor at maxiters (f* unknown): one call
CASES.append((C.GradientDescent(lr=0.01), 0))


@pytest.mark.parametrize("bad", [math.nan, math.inf], ids=["nan", "inf"])
@pytest.mark.parametrize("algorithm, k", CASES, ids=[f"{type(a).__name__}-k{k}" for a, k in CASES])
def test_a_curvature_turning_non_finite_mid_run_ends_it_diverged(algorithm, k, bad):
    # a NaN f or grad ended the run Diverged; a NaN C(x) raised "curvature(x) contains NaN or inf entries"
    # from inside the run (README: what a user's callable returns during a run ends it Diverged)
    curvature = _TurnsNonFinite(k, bad)
    problem = C.CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=curvature,
                                 L_C=4.0, x0=np.array([1.0, 2.0]),
                                 f_star=None if isinstance(algorithm, C.GradientDescent) else 0.0)
    curvature.armed = True
    sol = solve(problem, algorithm, maxiters=5 if isinstance(algorithm, C.GradientDescent) else 50)
    assert curvature.calls > k  # the non-finite answer was reached
    assert sol.retcode == RetCode.Diverged


@pytest.mark.parametrize("bad", [math.nan, math.inf], ids=["nan", "inf"])
def test_a_non_finite_curvature_is_still_refused_by_name_at_x0_and_on_a_direct_call(bad):
    with pytest.raises(ValueError, match=r"curvature\(x\)"):
        C.CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x,
                           curvature=lambda x: np.full(x.shape, bad), L_C=0.0, x0=np.array([1.0, 2.0]))
    curvature = _TurnsNonFinite(0, bad)
    problem = C.CurvatureProblem(f=lambda x: float(x @ x), grad=lambda x: 2 * x, curvature=curvature,
                                 L_C=0.0, x0=np.array([1.0, 2.0]))
    curvature.armed = True
    with pytest.raises(ValueError, match=r"curvature\(x\)"):
        problem.curvature_at(np.array([1.0, 1.0]))
