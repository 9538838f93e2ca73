"""Round 23 of issue #43 (unlearning): docstring promises and users' subclasses of the exported models."""

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
    Retrain,
    TwoLayerPerceptron,
    UnlearningProblem,
    forget_split,
)


def _with_own_attribute(base: type) -> type:
    class Own(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.extra = 2.0        # set after the base class fixed its names

    return Own


@pytest.mark.parametrize(("base", "args", "dim"), [(LinearModel, (4,), 4), (DeepLinear, (4, (2,)), 10),
                                                   (TwoLayerPerceptron, (4, 3), 15)])
@pytest.mark.parametrize("algorithm", [Retrain(), GradientDescent(), MinNormOG()])
def test_a_users_model_subclass_with_its_own_attribute_is_solved(base, args, dim, algorithm):
    # a subclass setting an attribute in its own __init__ was refused (UnknownAttributeError): no user
    # subclass of the exported models could be built
    model = _with_own_attribute(base)(*args)
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
