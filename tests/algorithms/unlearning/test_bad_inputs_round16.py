"""Round 16 bad inputs of the unlearning family: the model changed after the problem was built, and a model
converted to half precision after construction (red16b)."""

from __future__ import annotations

import copy
import pickle

import pytest
import torch
from torch import nn

from algorithms import RetCode, solve
from algorithms.unlearning import (
    DeepLinear,
    GradientDescent,
    LinearModel,
    NegGrad,
    TwoLayerPerceptron,
    UnlearningProblem,
    forget_split,
)


def _problem() -> tuple[nn.Module, UnlearningProblem]:
    torch.manual_seed(0)
    X = torch.randn(6, 3, dtype=torch.float64)
    y = torch.randn(6, dtype=torch.float64)
    retain, forget = forget_split(X, y, forget=[5])
    model = nn.Sequential(nn.Linear(3, 8), nn.Dropout(0.5), nn.BatchNorm1d(8), nn.Linear(8, 1))
    model = model.double().eval()
    params = torch.cat([q.detach().reshape(-1) for q in model.parameters()])
    return model, UnlearningProblem(model, params, retain, forget)


_EDITS = {
    "train()": (lambda m: m.train(), "outputs at params differ"),
    "a layer replaced": (lambda m: m.__setitem__(1, nn.Tanh()), "outputs at params differ"),
    "a buffer edited": (lambda m: m[2].running_mean.fill_(5.0), "outputs at params differ"),
    "NaN in a buffer": (lambda m: m[2].running_var.fill_(float("nan")), "outputs at params differ"),
    "a forward hook": (lambda m: m.register_forward_hook(lambda mod, i, o: o * 2.0),
                       "outputs at params differ"),
    ".half()": (lambda m: m.half(), "dtypes changed"),
}


@pytest.mark.parametrize("edit", list(_EDITS), ids=list(_EDITS))
@pytest.mark.parametrize("algorithm", [GradientDescent(), NegGrad(lr=0.1)], ids=lambda a: type(a).__name__)
def test_a_model_changed_after_construction_is_refused_by_name(edit, algorithm):
    model, problem = _problem()
    change, words = _EDITS[edit]
    change(model)
    with pytest.raises(ValueError, match=rf"^model was changed after the problem was built: .*{words}"):
        solve(problem, algorithm, maxiters=5, seed=0)


def test_an_unchanged_model_solves_as_before_also_copied_and_pickled():
    model, problem = _problem()
    first = solve(problem, GradientDescent(), maxiters=5, seed=0)
    model[0].weight.data.fill_(1.0)  # the model's own parameter values are not the problem's (params is θ*)
    for copy_of in (problem, copy.deepcopy(problem), pickle.loads(pickle.dumps(problem))):
        again = solve(copy_of, GradientDescent(), maxiters=5, seed=0)
        assert again.retcode is RetCode.MaxIters and torch.equal(again.x, first.x)


@pytest.mark.parametrize("build", [lambda: LinearModel(4), lambda: DeepLinear(4, (3,)),
                                   lambda: TwoLayerPerceptron(4, 3)], ids=["LinearModel", "DeepLinear",
                                                                           "TwoLayerPerceptron"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_a_model_converted_to_half_precision_is_refused_at_forward(build, dtype):
    model = build().to(dtype)
    with pytest.raises(TypeError, match=r"must have float32 or float64 parameters"):
        model(torch.ones(1, 4, dtype=dtype))


def test_a_harmless_eval_on_a_ready_made_task_is_taken():
    """linear_task's LinearModel is built in train mode; .eval() leaves f as it was (it was refused by the
    first version of the check, which compared the training flags)."""
    from algorithms.unlearning import deep_linear_task, linear_task, two_layer_task

    for problem in (linear_task(n=5, d=8, n_forget=1, seed=0),
                    deep_linear_task(n=3, d=4, widths=(3,), n_forget=1, seed=0),
                    two_layer_task(n=6, d=3, width=20, n_forget=2, seed=0)):
        problem.model.eval()
        assert solve(problem, NegGrad(lr=0.1), maxiters=5).retcode in (RetCode.Success, RetCode.MaxIters)


@pytest.mark.parametrize("algorithm",
                         ["MinNormOG", "GradientDescent", "Retrain", "NegGrad", "NegGradPlus", "Ridge"])
def test_a_model_writing_into_its_used_input_is_named(algorithm):
    """heldout16's class (a callable writing into its input): a forward that wrote into X after using it met
    autograd's bare "modified by an inplace operation" RuntimeError; now a ValueError naming the model. A
    write before the use (ReLU(inplace=True) on the input) still runs."""
    import algorithms.unlearning as U

    base = U.linear_task(10, 20, 3, seed=0)

    class Writes(torch.nn.Module):
        def __init__(self, before: bool) -> None:
            super().__init__()
            self.before = before
            self.weight = torch.nn.Parameter(torch.zeros(1, 20, dtype=torch.float64))

        def forward(self, X):
            if self.before:
                X.mul_(1.0)
            out = X @ self.weight.T
            if not self.before:
                X.mul_(2.0)
            return out

    with pytest.raises(ValueError, match=r"model's forward must not write in place.*Writes\.forward"):
        solve(U.UnlearningProblem(Writes(False), base.params, base.retain, base.forget),
              getattr(U, algorithm)(), seed=0, maxiters=5)
    solve(U.UnlearningProblem(Writes(True), base.params, base.retain, base.forget),
          getattr(U, algorithm)(), seed=0, maxiters=5)
