import numpy as np
import torch

from algorithms import RetCode, solve
from algorithms.optimizers import MLP, MarkovLanguageTask, OptimizerTraining, TrainingProblem

TASK = MarkovLanguageTask(vocab_size=8, context=8, seed=0)


def _problem(**kw):
    return TrainingProblem(MLP(8, 8, width=16, depth=1, seed=0), TASK, **kw)


def test_reaches_the_entropy_floor_and_stops():
    algorithm = OptimizerTraining("muon", lr=0.02, hyperparameters={"ns_dtype": torch.float32})
    sol = solve(_problem(steps=400), algorithm, store_trace=True)
    assert sol.retcode is RetCode.Success
    assert sol.value <= TASK.entropy_rate() + 0.1
    assert sol.stats.iterations == len(sol.trace) < 400
    assert "eval_loss" in sol.trace[-1]


def test_problem_model_is_not_mutated_and_runs_repeat():
    problem = _problem(steps=20)
    before = [p.detach().clone() for p in problem.model.parameters()]
    a = solve(problem, OptimizerTraining("soap", lr=0.01), seed=4)
    b = solve(problem, OptimizerTraining("soap", lr=0.01), seed=4)
    assert all(torch.equal(x, y) for x, y in zip(before, problem.model.parameters(), strict=True))
    np.testing.assert_array_equal(a.x, b.x)
    assert a.retcode is RetCode.MaxIters


def test_independent_weight_decay_alone_shrinks_by_one_minus_lambda():
    problem = _problem(steps=5)
    sol = solve(problem, OptimizerTraining("adamw", lr=0.0, independent_weight_decay=0.1))
    assert sol.retcode is RetCode.MaxIters
    # lr = 0: no update from the gradient, and lr·(λ/lr) is undefined -> decay is skipped too
    start = np.concatenate([p.detach().numpy().ravel() for p in problem.model.parameters()])
    np.testing.assert_array_equal(sol.x, start)
    sol = solve(problem, OptimizerTraining("shampoo", lr=1e-12, independent_weight_decay=0.1))
    np.testing.assert_allclose(sol.x, start * 0.9**5, rtol=1e-6, atol=1e-9)


def test_huge_lr_diverges():
    sol = solve(_problem(steps=50), OptimizerTraining("adamw", lr=1e4))
    assert sol.retcode is RetCode.Diverged


def test_float32_and_bfloat16_models():
    for dtype, expected in ((torch.float32, np.float32), (torch.bfloat16, np.float32)):
        problem = TrainingProblem(MLP(8, 8, width=8, depth=1, dtype=dtype), TASK, steps=3)
        sol = solve(problem, OptimizerTraining("muon", lr=0.01))
        assert sol.x.dtype == expected and np.all(np.isfinite(sol.x))


def test_a_factory_replaces_the_optimizer_class_under_the_same_rule():
    """``factory`` builds the optimizer from the scaled groups (our class given explicitly: the same run)."""
    from algorithms.optimizers import SOAP

    problem = _problem(steps=10)
    a = solve(problem, OptimizerTraining("soap", lr=0.01), seed=4)
    seen = []

    def factory(groups, lr, **kwargs):
        seen.append(sorted(group["name"] for group in groups))
        return SOAP(groups, lr=lr, **kwargs)

    b = solve(problem, OptimizerTraining("soap", lr=0.01, factory=factory), seed=4)
    np.testing.assert_array_equal(a.x, b.x)
    assert seen == [sorted(name for name, _ in problem.model.named_parameters())]
