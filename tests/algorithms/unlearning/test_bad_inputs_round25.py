"""Round 25 of issue #43 (unlearning, red25b): a model class's closed form applied to a subclass (or a hooked
instance) whose forward computes another f."""

import pytest
import torch

from algorithms.core import RetCode, solve
from algorithms.unlearning import (
    DeepLinear,
    DeepLinearOG,
    LinearModel,
    Retrain,
    SparseWidthOG,
    TwoLayerPerceptron,
    UnlearningProblem,
    balanced_factorization,
    effective_predictor,
    retrained_min_norm,
)


class _Shifted(LinearModel):
    def forward(self, X):
        return super().forward(X) + 1.0


class _Renamed(LinearModel):
    """A subclass that keeps LinearModel's f."""


class _Doubled(DeepLinear):
    def forward(self, X):
        return 2.0 * super().forward(X)


class _Squared(TwoLayerPerceptron):
    def features(self, X):
        return super().features(X) ** 2


def _data():
    gen = torch.Generator().manual_seed(0)
    X = torch.randn(3, 5, dtype=torch.float64, generator=gen)
    y = torch.randn(3, dtype=torch.float64, generator=gen)
    forget = (torch.randn(1, 5, dtype=torch.float64, generator=gen), torch.zeros(1, dtype=torch.float64))
    return (X, y), forget


def _problem(model):
    retain, forget = _data()
    theta = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return UnlearningProblem(model, theta, retain, forget)


def test_retrain_of_a_linear_subclass_with_its_own_forward_fits_its_f():
    # red25b: the closed form pinv(X) y ignored the subclass's + 1 and called retain loss 1.0 Success
    problem = _problem(_Shifted(5, seed=0))
    sol = solve(problem, Retrain(), maxiters=20000)
    assert sol.retcode == RetCode.Success
    assert sol.stats.retain_loss < 1e-8
    assert retrained_min_norm(problem) is None
    assert not Retrain().runs_in_one_pass(problem)


def test_retrain_of_a_linear_model_with_an_output_hook_fits_its_f():
    model = LinearModel(5, seed=0)
    model.register_forward_hook(lambda module, inputs, out: out + 1.0)
    sol = solve(_problem(model), Retrain(), maxiters=20000)
    assert sol.retcode == RetCode.Success and sol.stats.retain_loss < 1e-8
    with pytest.raises(TypeError, match="model must compute LinearModel's own f"):
        effective_predictor(model)


def test_a_subclass_keeping_the_function_and_a_looking_hook_keep_the_closed_form():
    for model in (_Renamed(5, seed=0), LinearModel(5, seed=0)):
        model.register_forward_hook(lambda module, inputs, out: None)
        problem = _problem(model)
        sol = solve(problem, Retrain())
        assert sol.retcode == RetCode.Success and sol.stats.iterations == 1
        assert torch.allclose(sol.x, retrained_min_norm(problem))


def test_structural_methods_refuse_a_subclass_that_changes_the_function():
    doubled = _Doubled(5, (3,), seed=0)
    with pytest.raises(TypeError, match=r"problem\.model must compute DeepLinear's own f"):
        solve(_problem(doubled), DeepLinearOG())
    with pytest.raises(TypeError, match="model must compute DeepLinear's own f"):
        balanced_factorization(doubled, torch.ones(5, dtype=torch.float64))
    with pytest.raises(TypeError, match="model must compute DeepLinear's own f"):
        effective_predictor(doubled)
    with pytest.raises(TypeError, match=r"problem\.model must compute TwoLayerPerceptron's own f"):
        solve(_problem(_Squared(5, 8, seed=0)), SparseWidthOG())


def test_an_empty_forget_set_is_refused_as_its_docstring_states():
    # red25b: the docstring named only the retain set as non-empty; an empty forget set is refused by name
    (X, y), _ = _data()
    with pytest.raises(ValueError, match="forget X must not be empty"):
        UnlearningProblem(LinearModel(5, seed=0), torch.zeros(5, dtype=torch.float64), (X, y), (X[:0], y[:0]))
    assert "neither set may be empty" in " ".join(UnlearningProblem.__doc__.split())
