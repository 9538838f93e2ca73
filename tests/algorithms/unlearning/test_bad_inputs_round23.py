"""Round 23 of issue #43 (unlearning): docstring promises and users' subclasses of the exported models."""

from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms._validation import UnknownAttributeError
from algorithms.core import RetCode
from algorithms.unlearning import (
    DeepLinear,
    GradientDescent,
    LinearModel,
    MinNormOG,
    NegGrad,
    NegGradPlus,
    Retrain,
    Ridge,
    TwoLayerPerceptron,
    UnlearningProblem,
    forget_split,
    orthogonal_gradient_step,
    strength_schedule,
)
from tests.bad_inputs import with_own_attribute


@pytest.mark.parametrize(("base", "args", "dim"), [(LinearModel, (4,), 4), (DeepLinear, (4, (2,)), 10),
                                                   (TwoLayerPerceptron, (4, 3), 15)])
@pytest.mark.parametrize("algorithm", [Retrain(), GradientDescent(), MinNormOG()])
def test_a_users_model_subclass_with_its_own_attribute_is_solved(base, args, dim, algorithm):
    # a subclass setting an attribute in its own __init__ was refused (UnknownAttributeError): no user
    # subclass of the exported models could be built
    model = with_own_attribute(base)(*args)
    assert model.extra == 2.0
    X = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    retain, forget = forget_split(X, torch.ones(3, dtype=torch.float64), [2])
    problem = UnlearningProblem(model, torch.full((dim,), 0.5, dtype=torch.float64), retain, forget)
    assert solve(problem, algorithm, maxiters=3).retcode in (RetCode.Success, RetCode.MaxIters,
                                                             RetCode.Stalled)
    with pytest.raises(UnknownAttributeError, match="extraa"):
        model.extraa = 1.0      # after construction a misspelt name is still refused


@pytest.mark.parametrize("lam", [1e-10, 1e-13, 1e-17, 1e-39])
@pytest.mark.parametrize("rows", [0, 1])
def test_orthogonal_gradient_step_keeps_the_small_lam_part(lam, rows):
    # θ − θ⊥/(1+λ) cancelled: λ = 1e-17 gave 0 where θ⊥·λ/(1+λ) = 1e-17·θ⊥ (red23b)
    from fractions import Fraction

    from algorithms.unlearning import orthogonal_gradient_step

    theta = torch.tensor([1.0, -3.0], dtype=torch.float64)
    gradients = torch.tensor([[1.0, 0.0]], dtype=torch.float64)[:rows]
    got = orthogonal_gradient_step(theta, gradients, lam).tolist()
    exact_second = float(Fraction(-3.0) * Fraction(lam) / (1 + Fraction(lam)))
    assert got[1] == pytest.approx(exact_second, rel=1e-14)
    first = 1.0 if rows else float(Fraction(lam) / (1 + Fraction(lam)))
    assert got[0] == pytest.approx(first, rel=1e-14)


# red23b: a real past float64's range given exactly (a Fraction, an np.longdouble) became 0.0 / -0.0 / inf
# before the checks: a tiny lr passed as the 0 "no step", a tiny negative passed ">= 0", a huge λ became the
# math.inf limit "no projection"; strength_schedule / orthogonal_gradient_step met ZeroDivision/Overflow
_TINY, _NEG_TINY, _HUGE = Fraction(1, 10**400), -Fraction(1, 10**400), Fraction(10**400)


@pytest.mark.parametrize(("build", "name"), [
    (lambda: NegGrad(lr=_TINY), "lr"), (lambda: Retrain(lr=np.longdouble("1e-4000")), "lr"),
    (lambda: GradientDescent(lr=_NEG_TINY), "lr"), (lambda: Ridge(lam=_NEG_TINY), "lam"),
    (lambda: NegGradPlus(alpha=_NEG_TINY), "alpha"),
    (lambda: MinNormOG(lambda_schedule=_NEG_TINY), "lambda_schedule"),
    (lambda: MinNormOG(lambda_schedule=_HUGE), "lambda_schedule"),
    (lambda: MinNormOG(lambda_schedule=np.longdouble("1e4000")), "lambda_schedule"),
    (lambda: strength_schedule(np.longdouble("1e-4000"), 0.5, 2), "lambda_reg"),
    (lambda: strength_schedule(0.5, _TINY, 2), "gamma_reg"),
    (lambda: orthogonal_gradient_step(torch.ones(2, dtype=torch.float64),
                                      torch.zeros(0, 2, dtype=torch.float64), _HUGE), "lam"),
])
def test_a_real_past_float64s_range_is_checked_as_given(build, name):
    with pytest.raises(ValueError, match=name):
        build()


def test_a_tiny_nonnegative_real_past_float64s_range_acts_as_zero():
    assert Ridge(lam=_TINY).lam <= 5e-324 and MinNormOG(lambda_schedule=_TINY).lambda_schedule == 0.0


class _ClampsItsWeight(torch.nn.Module):
    """A max-norm rule written in forward: an in-place clamp_ of its own weight."""

    def __init__(self, start: float):
        super().__init__()
        self.w = torch.nn.Parameter(torch.full((4,), start, dtype=torch.float64))

    def forward(self, X):
        with torch.no_grad():
            self.w.clamp_(-0.5, 0.5)
        return (X @ self.w)[:, None]


@pytest.mark.parametrize("start", [0.1, 3.0])   # inside the clamp (only θ* is written) or outside
def test_a_forward_writing_into_its_parameters_is_refused_and_theta_star_kept(start):
    # red23b: the forward rewrote problem.params (θ*) at construction; the first solve blamed params
    torch.manual_seed(0)
    X, y = torch.randn(3, 4, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    theta = torch.linalg.pinv(X) @ y
    given = theta.clone()
    with pytest.raises(ValueError, match=r"model's _ClampsItsWeight.forward\(X\) writes into its parameters"):
        UnlearningProblem(_ClampsItsWeight(start), theta, (X[1:], y[1:]), (X[:1], y[:1]))
    assert torch.equal(theta, given)


def test_predict_names_theta_past_the_working_range():
    # red23b: the message named LinearModel.weight, which the caller never set
    from algorithms.unlearning import linear_task

    problem = linear_task(6, 10, 2, seed=1)
    with pytest.raises(ValueError, match=r"^theta has an entry of magnitude 1e\+39"):
        problem.predict(problem.params * 0 + 1e39, problem.retain[0])


@pytest.mark.parametrize(("model", "dim"), [(LinearModel(3), 3), (DeepLinear(3, (2,)), 3),
                                            (TwoLayerPerceptron(3, 4), 3)])
def test_a_half_state_loaded_with_assign_names_the_parameters_dtype(model, dim):
    # red23b: forward asked for a float16 X first, then refused that X for the parameters' dtype
    model.load_state_dict({k: v.half() for k, v in model.state_dict().items()}, assign=True)
    with pytest.raises(TypeError, match="must have float32 or float64 parameters"):
        model(torch.zeros(1, dim, dtype=torch.float64))


def test_heldout24_an_exception_from_forward_at_construction_names_forward():
    from algorithms.unlearning import UnlearningProblem

    class Raising(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 1, bias=False).double()
            self.calls = 0

        def forward(self, X):
            self.calls += 1
            if self.calls > 2:
                raise KeyError("user")
            return self.lin(X)

    model = Raising()
    theta = {k: v.detach().clone() for k, v in model.named_parameters()}
    X, y = torch.ones(4, 3, dtype=torch.float64), torch.zeros(4, 1, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"Raising\.forward\(X\) raised KeyError: 'user'"):
        UnlearningProblem(model, theta, (X, y), (X[:2], y[:2]))
