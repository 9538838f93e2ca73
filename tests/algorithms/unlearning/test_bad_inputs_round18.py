"""Round 18 of issue #43 (unlearning): the problem's data and model changed after construction."""

import pytest
import torch

from algorithms.core import solve
from algorithms.unlearning import GradientDescent, Retrain, UnlearningProblem, linear_task


@pytest.mark.parametrize("which, index, name", [("retain", 0, "retain X"), ("retain", 1, "retain y"),
                                                 ("forget", 0, "forget X"), ("forget", 1, "forget y")])
def test_data_changed_in_place_after_construction_is_refused_naming_it(which, index, name):
    # red18b: forget X edited in place ran to Success on the edited data (a retain X edit blamed the model)
    problem = linear_task(5, 20, 2)
    getattr(problem, which)[index].view(-1)[0] += 1.0
    with pytest.raises(ValueError, match=f"{name} was changed in place after the problem was built"):
        solve(problem, GradientDescent())


class _Shifted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 1, dtype=torch.float64)
        self.register_buffer("shift", torch.zeros((), dtype=torch.float64))

    def forward(self, x):
        return self.lin(x) + self.shift * (x[:, :1] > 1.5)


def _problem():
    torch.manual_seed(0)
    model = _Shifted()
    X = torch.cat([torch.rand(16, 2, dtype=torch.float64), 2 + torch.rand(8, 2, dtype=torch.float64)])
    Xf = torch.rand(3, 2, dtype=torch.float64)
    theta = torch.tensor([1.0, 1.0, 0.0], dtype=torch.float64)
    return model, UnlearningProblem(model, theta, (X, X.sum(1)), (Xf, Xf.sum(1)))


def test_a_buffer_edit_seen_only_on_later_rows_is_refused_by_solve():
    # red18b: the probe read the first 16 retain rows only; rows 17..24 changed and the solve ran
    model, problem = _problem()
    model.shift.fill_(10.0)
    with pytest.raises(ValueError, match="model was changed after the problem was built"):
        solve(problem, Retrain(), seed=0)


@pytest.mark.parametrize("method", ["predict", "loss", "jacobian"])
def test_the_problems_methods_refuse_a_model_changed_after_construction(method):
    # red18b: a forward hook adding 100 was used by loss/predict in silence
    model, problem = _problem()
    X = problem.retain[0]
    args = {"predict": (X,), "loss": (problem.retain,), "jacobian": (X,)}[method]
    handle = model.lin.register_forward_hook(lambda mod, inputs, out: out + 100)
    with pytest.raises(ValueError, match="model was changed after the problem was built"):
        getattr(problem, method)(problem.params, *args)
    handle.remove()
    model.eval()        # a change that leaves f as it was passes
    assert float(problem.loss(problem.params, problem.retain)) < 1e-20


# ---- second wave: a misspelt attribute set on a model after construction (stored and ignored before)
from algorithms.unlearning.models import DeepLinear, LinearModel, TwoLayerPerceptron  # noqa: E402


@pytest.mark.parametrize("build", [lambda: LinearModel(3), lambda: DeepLinear(3, (2,)),
                                   lambda: TwoLayerPerceptron(3, 4)])
@pytest.mark.parametrize("name, value", [("in_featuress", 5), ("widthh", 8), ("activaton", "relu"),
                                         ("sed", 3)])
def test_an_unknown_attribute_set_on_a_model_is_refused_naming_it(build, name, value):
    model = build()
    with pytest.raises(ValueError, match=name):
        setattr(model, name, value)
    assert name not in model.__dict__


@pytest.mark.parametrize("build", [lambda: DeepLinear(3, (2,)), lambda: TwoLayerPerceptron(3, 4)])
def test_out_features_of_a_scalar_model_cannot_be_reassigned(build):
    model = build()
    with pytest.raises(ValueError, match="out_features"):
        model.out_features = 2
    model.out_features = 1      # the same value: fine
    model.training = False      # torch's own attributes stay settable
    assert model(torch.zeros(2, 3, dtype=torch.float64)).shape == (2, 1)


# ---- second wave: the public helpers check the problem as a solve does (they answered NaN or 1e-42)
from algorithms.unlearning import deep_linear_task, lemma1_perturbation, retrained_min_norm  # noqa: E402


@pytest.mark.parametrize("which, index, value, name", [
    ("retain", 1, float("nan"), "retain y"), ("retain", 0, float("inf"), "retain X"),
    ("retain", 0, 1e40, "retain X"), ("forget", 0, 2.0, "forget X")])
@pytest.mark.parametrize("helper, build", [(retrained_min_norm, lambda: linear_task(5, 20, 2)),
                                           (retrained_min_norm, lambda: deep_linear_task(3, 6, (4, 1), 1)),
                                           (lemma1_perturbation, lambda: deep_linear_task(3, 6, (4, 1), 1))])
def test_helpers_refuse_data_changed_in_place_after_construction(helper, build, which, index, value, name):
    problem = build()
    reference = helper(problem)
    assert bool(torch.isfinite(reference).all())
    getattr(problem, which)[index].view(-1)[0] = value
    with pytest.raises(ValueError, match=name):
        helper(problem)


@pytest.mark.parametrize("build", [lambda: LinearModel(3), lambda: DeepLinear(3, (2, 1)),
                                   lambda: TwoLayerPerceptron(3, 4)])
def test_a_model_converted_to_complex_after_construction_is_refused_at_forward(build):
    model = build().to(torch.complex128)
    with pytest.raises(TypeError, match="complex128"):
        model(torch.randn(2, 3, dtype=torch.complex128))


@pytest.mark.parametrize("build, name, tensor, words", [
    (lambda: LinearModel(3), "weight", torch.zeros(4, 2, dtype=torch.float64), "weight"),
    (lambda: LinearModel(3), "weight", torch.zeros(1, 3, dtype=torch.int64), "weight"),
    (lambda: TwoLayerPerceptron(3, 4), "A", torch.zeros(4, 3, dtype=torch.float32), "dtype"),
    (lambda: DeepLinear(3, (2, 1)), "c", torch.zeros(5, dtype=torch.float64), "c")])
def test_a_parameter_replaced_after_construction_is_refused_at_forward_naming_it(build, name, tensor, words):
    # red18c: torch's "mat1 and mat2 shapes cannot be multiplied", or X blamed for the parameter's dtype
    model = build()
    setattr(model, name, torch.nn.Parameter(tensor, requires_grad=tensor.is_floating_point()))
    with pytest.raises((TypeError, ValueError), match=words):
        model(torch.randn(2, 3, dtype=torch.float64))
