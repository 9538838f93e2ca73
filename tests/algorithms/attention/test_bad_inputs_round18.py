"""Round 18: state changed after construction (class A) in the attention family."""

import copy
import pickle

import pytest
import torch
from torch import nn

from algorithms.attention import ErfAttention, SoftmaxAttention

CASES = [(SoftmaxAttention, "bta"), (SoftmaxAttention, "lam"), (SoftmaxAttention, "temperature"),
         (ErfAttention, "beta"), (ErfAttention, "lamda"), (ErfAttention, "u")]


@pytest.mark.parametrize(("cls", "name"), CASES)
def test_model_refuses_an_attribute_it_does_not_take(cls, name):
    # model.bta = 2.0 (or Erf's lam on a softmax model) was stored and ignored: forward kept the old beta
    model = cls(4)
    with pytest.raises(ValueError, match=f"takes no attribute '{name}'"):
        setattr(model, name, 2.0)
    assert name not in vars(model)


@pytest.mark.parametrize("cls", [SoftmaxAttention, ErfAttention])
def test_model_keeps_its_own_attributes_settable(cls):
    model = cls(4)
    scale = "beta" if cls is SoftmaxAttention else "lam"
    setattr(model, scale, 2.0)
    model.train(False)
    model.double()
    model.register_buffer("mask", torch.zeros(1))
    model.mask = torch.ones(1)
    model.extra = nn.Identity()  # a submodule: left to torch (its parametrize utilities set one)
    key = "u" if cls is SoftmaxAttention else "k"
    setattr(model, key, nn.Parameter(getattr(model, key).detach().clone()))
    for copied in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert getattr(copied, scale) == 2.0
    X = torch.randn(3, 2, 4, dtype=torch.float64)
    assert model(X).shape == (3, 1)


@pytest.mark.parametrize(("cls", "name", "value", "words"), [
    (SoftmaxAttention, "beta", float("nan"), "beta must be > 0"),
    (SoftmaxAttention, "beta", -1.0, "beta must be > 0"),
    (SoftmaxAttention, "link", "zz", "link must be one of"), (ErfAttention, "lam", -1.0, "lam must be > 0"),
    (ErfAttention, "lam", float("inf"), "lam must be > 0"),
])
def test_forward_rechecks_hyperparameters_set_past_setattr(cls, name, value, words):
    # red18b: object.__setattr__(m, "lam", -1.0) answered in silence; a NaN beta blamed X
    model = cls(4)
    object.__setattr__(model, name, value)
    with pytest.raises(ValueError, match=words):
        model(torch.randn(3, 5, 4, dtype=torch.float64))


@pytest.mark.parametrize("level", [torch.tensor(0.9), [0.9], "0.9"])
def test_monte_carlo_level_of_another_type_is_a_type_error(level):
    # class C: a 0-d tensor of 0.9 (inside (0, 1)) was told "level must be in (0, 1)" (ValueError)
    from algorithms.attention import SingleLocationProblem, monte_carlo_risk, vectors_with_overlaps

    problem = SingleLocationProblem(d=4, L=3, gamma=0.5)
    u, v = vectors_with_overlaps(problem, mu=0.5, nu=0.5)
    with pytest.raises(TypeError, match=r"^level must be a real number in \(0, 1\), got (Tensor|list|str)"):
        monte_carlo_risk(problem, u, v, n=10, level=level)


# ---- thermodynamics' r was returned but never defined in its docstring (heldout19 doc gap)
@pytest.mark.parametrize(("alpha", "beta"), [(0.5, 0.5), (0.5, 2.0), (0.0, 1.0), (2.0, 1.2e-38),
                                              (1e-39, 3e38)])
def test_thermodynamics_r_is_documented_and_is_min_beta_beta_crit(alpha, beta):
    from algorithms.attention import thermodynamics

    assert "``r`` = ∂_β(βψ)" in thermodynamics.__doc__ and "r = min(β, β_c)" in thermodynamics.__doc__
    out = thermodynamics(alpha, beta)
    assert out["r"] == min(beta, out["beta_crit"])
    assert 0.0 <= out["r"] <= beta
