"""Round 20: non-finite answers of a user's callable part-way through a run (class H)."""

import math

import numpy as np
import pytest

import algorithms.curvature as C
from algorithms import RetCode, solve
from algorithms._validation import UserCallableError


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


class _RaisesAfter:
    def __init__(self, fn, k: int) -> None:
        self.fn, self.k, self.calls, self.armed = fn, k, 0, False

    def __call__(self, x):
        if self.armed:
            self.calls += 1
            if self.calls > self.k:
                raise KeyError("user")
        return self.fn(x)


_A, _B = np.array([[1.0, 0.5], [0.2, 1.0], [0.3, 0.1]]), np.array([1.0, 2.0, 0.5])


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("which", ["residuals", "jacobian"])
@pytest.mark.parametrize("algorithm", [C.LCD1(), C.GradientDescent(lr=0.01)], ids=["LCD1", "GD"])
def test_sum_of_squared_absolutely_convex_names_the_users_callable_that_raised(algorithm, which, k):
    # a KeyError of the user's jacobian was reported as "grad(x) raised" or "curvature(x) raised", callables
    # the factory composed and the user never wrote
    wrapped = _RaisesAfter(lambda x: _A @ x - _B if which == "residuals" else _A, k)
    given = {"residuals": lambda x: _A @ x - _B, "jacobian": lambda x: _A, which: wrapped}
    problem = C.sum_of_squared_absolutely_convex(**given, L_C=2 * np.linalg.norm(_A, 2) ** 2, x0=np.zeros(2))
    wrapped.armed = True
    with pytest.raises(UserCallableError, match=rf"^{which}\(x\) raised KeyError") as info:
        solve(problem, algorithm, maxiters=30)
    assert isinstance(info.value.__cause__, KeyError)
