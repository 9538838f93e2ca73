"""Round 16: the chance family's solvers used end to end, the way a user runs them (issue #43)."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.chance import GGDOpt, empirical_violation
from algorithms.chance.data import collect_feasible_points
from algorithms.chance.problem import ChanceConstrainedProblem
from algorithms.core import RetCode

TINY = GGDOpt(beta=0.2, n_train_points=30, train_steps=60, batch_size=64, n_samples=64, n_steps=10,
              corrector_steps=0)


def _halfplane(unit: float, dtype) -> ChanceConstrainedProblem:
    # max x0 + x1 s.t. P[unit - x0 - x1 + 0.3 h >= 0] >= 0.9, h ~ N(0, unit²), the box [0, 2 unit]²
    h = (np.random.default_rng(0).normal(size=(100, 1)) * unit).astype(dtype)
    return ChanceConstrainedProblem(f=lambda x: -(x[:, 0] + x[:, 1]),
                                    g=lambda x, hh: unit - x[:, :1] - x[:, 1:2] + 0.3 * hh[None, :, 0],
                                    h_samples=h, rho=0.1, lower=[0.0, 0.0], upper=[2 * unit, 2 * unit])


@pytest.mark.parametrize("unit, dtype", [(1e-30, np.float64), (1e-30, np.float32), (1e30, np.float32)])
def test_ggdopt_solves_a_problem_in_any_units(unit, dtype):
    # the moment restriction's spread floor 1e-12 was absolute: g ~ 1e-30 got a margin z·1e-6 that no point
    # met, and a float32 variance of g ~ 1e30 overflowed: "none of 60 restricted problems (13) had a solution"
    problem = _halfplane(unit, dtype)
    points, violation = collect_feasible_points(problem, n_points=20, seed=0)
    assert len(points) == 20 and np.all(violation <= 1.0)
    sol = solve(problem, TINY, seed=0)
    assert sol.retcode is RetCode.Success
    assert empirical_violation(problem, sol.x[None])[0] <= problem.rho
    assert -1.0 < sol.value / unit < -0.4   # the SAA optimum is about -0.62


def test_ggdopt_without_any_restricted_solution_is_failure():
    # g < 0 everywhere: no restricted problem has a solution, and the solve raised a ValueError naming nothing
    problem = ChanceConstrainedProblem(f=lambda x: x[:, 0],
                                       g=lambda x, h: -1.0 + 0.0 * x[:, :1] + 0.0 * h[None, :, 0],
                                       h_samples=np.zeros((20, 1)), rho=0.1, lower=[0.0], upper=[1.0])
    sol = solve(problem, TINY, seed=0)
    assert sol.retcode is RetCode.Failure and sol.x.tolist() == [0.5]
    assert sol.stats.empirical_violation == 1.0


@pytest.mark.parametrize("convert", ["half", "bfloat16"])
@pytest.mark.parametrize("model", ["ScoreMLP", "GaussianScore"])
def test_a_model_made_half_after_construction_is_refused(model, convert):
    # the constructors refuse float16, but .half() / .bfloat16() afterwards scored in half precision, silently
    import torch

    from algorithms.chance import GaussianScore, ScoreMLP, VPSchedule

    built = (ScoreMLP(2, hidden=8, seed=0) if model == "ScoreMLP" else
             GaussianScore(torch.zeros(2), torch.ones(2), VPSchedule()))
    built = getattr(built, convert)()
    dtype = torch.float16 if convert == "half" else torch.bfloat16
    with pytest.raises(TypeError, match=r"^the model's parameters or buffers have dtype torch\.(f|bf)"):
        built(torch.tensor([[0.3, -0.2, 0.5]], dtype=dtype))
