"""Round 23 (issue #43): docstring promises at their boundaries (chance)."""
import pytest
import torch

from algorithms.chance import ScoreModel, VPSchedule, guidance_term, guided_reverse_sample, tweedie_mean


class _Dropout(ScoreModel):
    """A user score model with dropout, in train mode as torch builds it."""

    def __init__(self):
        super().__init__()
        self.in_features, self.out_features, self.schedule = 3, 2, VPSchedule()
        self.lin, self.drop = torch.nn.Linear(3, 2).double(), torch.nn.Dropout(0.5)

    def forward(self, X):
        return -X[:, :2] + 0.1 * self.drop(self.lin(X))


def _objective(z):
    return (z**2).sum(1)


CALLS = {
    "guided_reverse_sample": lambda m: guided_reverse_sample(m, _objective, n_samples=4, beta=1.0, n_steps=5,
                                                             seed=0).x,
    "tweedie_mean": lambda m: tweedie_mean(m, torch.ones(3, 2, dtype=torch.float64), 0.5),
    "guidance_term": lambda m: guidance_term(m, _objective, torch.ones(3, 2, dtype=torch.float64), 0.5,
                                             beta=1.0, order="second")[0],
}


@pytest.mark.parametrize("call", CALLS.values(), ids=list(CALLS))
def test_train_mode_score_model_runs_in_eval_mode(call):
    # red23a: the model's dropout drew from torch's global generator: one seed, two answers, the global
    # state changed; ScoreModel.score now runs the model in eval mode and restores its modes
    model = _Dropout()
    state = torch.random.get_rng_state()
    assert torch.equal(call(model), call(model))
    assert torch.equal(state, torch.random.get_rng_state())
    assert model.training and model.drop.training


@pytest.mark.parametrize("shape", [(2,), (0, 2), (1, 2), (3, 2)])
def test_violation_and_feasibility_take_the_shapes_their_docstrings_state(shape):
    # one point (n,) is a batch of one, batch 0 an empty result (the docstrings said only "each row of x")
    import numpy as np

    from algorithms.chance import empirical_violation, linear_gaussian_problem, out_of_sample_feasibility

    problem = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    batch = 1 if len(shape) == 1 else shape[0]
    assert empirical_violation(problem, np.zeros(shape)).shape == (batch,)
    assert out_of_sample_feasibility(problem, np.zeros(shape), seed=1).shape == (batch,)


def _sub(base, **namespace):
    import dataclasses

    return dataclasses.make_dataclass("Sub", [], bases=(base,), frozen=True, eq=False, namespace=namespace)


def _linear_fields():
    import dataclasses

    from algorithms.chance import linear_gaussian_problem

    p = linear_gaussian_problem(n=2, n_samples=20)
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(p) if f.init}


OVERRIDING = {
    "VPSchedule alpha_bar 2": (lambda: _sub(VPSchedule, alpha_bar=lambda s, t: 2.0)(), "alpha_bar"),
    "VPSchedule noise_variance -1": (lambda: _sub(VPSchedule, noise_variance=lambda s, t: -1.0)(),
                                     "noise_variance"),
    "VPSchedule beta": (lambda: _sub(VPSchedule, beta=lambda s, t: 0.0)(), "beta"),
    "problem objective None": (lambda: _sub(__import__("algorithms.chance").chance.ChanceConstrainedProblem,
                                            objective=lambda s, x: None)(**_linear_fields()), "objective"),
}


@pytest.mark.parametrize("make, method", OVERRIDING.values(), ids=list(OVERRIDING))
def test_subclass_overriding_an_evaluated_method_is_refused(make, method):
    # red23a: an alpha_bar of 2.0 was used by the score, Tweedie's mean and the sampler in silence; an
    # objective override answering None met AttributeError at construction
    with pytest.raises(TypeError, match=rf"overrides \w+\.{method}"):
        make()
    _sub(VPSchedule, extra=lambda s: 1)()   # a subclass adding a method stays valid


CANCELLING = {   # (g, h, beta, sigma2): 1 + beta·sigma2·h cancels to a few ulps (heldout23's gd_step class)
    "sigma2 0.1, h -10": (1.0, -10.0, 1.0, 0.1),
    "beta 1e10, sigma2 1e-10, h -1": (1.0, -1.0, 1e10, 1e-10),
    "sigma2 1/3, h -3": (2.0, -3.0, 1.0, 1 / 3),
    "beta 3, sigma2 1/3, h -(1 + eps)": (1.0, -(1 + 2.0**-52), 3.0, 1 / 3),
    "g 1e-30, sigma2 1/7, h -7": (1e-30, -7.0, 1.0, 1 / 7),
}


@pytest.mark.parametrize("g, h, beta, sigma2", CANCELLING.values(), ids=list(CANCELLING))
def test_second_order_guidance_keeps_its_digits_where_the_system_cancels(g, h, beta, sigma2):
    # the products beta·sigma2·h were rounded before the 1 was added: 0.0 (refused as singular) or 2x off
    from fractions import Fraction

    from algorithms.chance import second_order_guidance

    exact = float(-Fraction(beta) * Fraction(g) / (1 + Fraction(beta) * Fraction(sigma2) * Fraction(h)))
    grad, hess = torch.tensor([[g]], dtype=torch.float64), torch.tensor([[[h]]], dtype=torch.float64)
    got = second_order_guidance(grad, hess, beta=beta, sigma2=sigma2)
    assert float(got[0, 0]) == pytest.approx(exact, rel=1e-14)
