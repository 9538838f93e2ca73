"""Retrain's callback contract on both of its paths (heldout20: its docstring called it one pass, but on a
model other than LinearModel it iterates, and a callback's True ended it Terminated against the words)."""

import pytest
import torch

from algorithms import RetCode, solve
from algorithms.unlearning import Retrain, UnlearningProblem, linear_task


def _torch_linear_problem() -> UnlearningProblem:
    torch.manual_seed(0)
    X = torch.randn(6, 4, dtype=torch.float64)
    y = torch.randn(6, dtype=torch.float64)
    model = torch.nn.Linear(4, 1, bias=False).double()
    params = torch.randn(4, dtype=torch.float64)
    return UnlearningProblem(model, params, (X[:5], y[:5]), (X[5:], y[5:]))


def test_retrain_is_one_pass_on_a_linear_model_only():
    assert Retrain().runs_in_one_pass(linear_task(n=5, d=8, n_forget=1, seed=0))
    assert not Retrain().runs_in_one_pass(_torch_linear_problem())


@pytest.mark.parametrize("stop_at", [1, 2])
def test_retrain_iterating_is_stopped_by_a_true(stop_at):
    problem = _torch_linear_problem()
    reference = solve(problem, Retrain(lr=1e-3), maxiters=10, store_trace=True)
    assert reference.retcode is RetCode.MaxIters and len(reference.trace) >= 3
    seen = []
    sol = solve(problem, Retrain(lr=1e-3), maxiters=10, store_trace=True,
                callback=lambda record: seen.append(record) or len(seen) >= stop_at)
    assert sol.retcode is RetCode.Terminated and len(seen) == stop_at


def test_retrain_closed_form_keeps_its_retcode_under_a_true():
    problem = linear_task(n=5, d=8, n_forget=1, seed=0)
    seen = []
    sol = solve(problem, Retrain(), callback=lambda record: seen.append(record) or True)
    assert sol.retcode is RetCode.Success and len(seen) == 1
