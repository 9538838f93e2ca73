"""Round 18 (issue #43): numeric twins (a number, numpy scalar, 0-d array or tensor) of one parameter get the
same checks and the same answer (chance)."""
import numpy as np
import pytest
import torch

from algorithms.chance import GaussianScore, VPSchedule, guidance_term, tweedie_mean


def _model():
    return GaussianScore(np.zeros(2), np.ones(2), VPSchedule())


def _x():
    return torch.full((1, 2), 0.3, dtype=torch.float64)


def _objective(x):
    return (x ** 2).sum(-1)


CALLS = {
    "tweedie_mean": lambda t: tweedie_mean(_model(), _x(), t),
    "guidance_term": lambda t: guidance_term(_model(), _objective, _x(), t, beta=1.0)[0],
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("value", [0.5, 1e39, float("nan"), -1.0])
def test_meta_time_refused_by_name(call, value):
    # torch's "Tensor.item() cannot be called on meta tensors" named nothing
    with pytest.raises(ValueError, match=r"\bt\b.*meta"):
        CALLS[call](torch.tensor(value).to("meta"))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("form", [np.float64, np.float32, lambda v: torch.tensor(v, dtype=torch.float64),
                                  lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)])
def test_time_twins_give_the_number_answer(call, form):
    expected = CALLS[call](0.5)
    assert torch.allclose(CALLS[call](form(0.5)).detach(), expected.detach(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("value", [1e39, float("nan"), -1.0])
@pytest.mark.parametrize("form", [float, np.float64, lambda v: torch.tensor(v, dtype=torch.float64)])
def test_time_out_of_range_refused_in_every_form(call, value, form):
    with pytest.raises(ValueError, match=r"\bt\b"):
        CALLS[call](form(value))


def _mlp_weight(model):
    return model.net[0].weight


@pytest.mark.parametrize("where", ["mean", "var", "mlp"])
@pytest.mark.parametrize("use", ["forward", "tweedie_mean", "guidance_term"])
def test_weight_past_working_range_written_in_place_refused(where, use):
    # load_state_dict refuses an entry of 1e39; the same entry written in place was used (red18a)
    from algorithms.chance import ScoreMLP
    model = ScoreMLP(2, hidden=4) if where == "mlp" else _model()
    with torch.no_grad():
        (_mlp_weight(model) if where == "mlp" else getattr(model, where)).view(-1)[0] = 1e39
    calls = {"forward": lambda: model(torch.full((3, 3), 0.5, dtype=torch.float64)),
             "tweedie_mean": lambda: tweedie_mean(model, _x(), 0.5),
             "guidance_term": lambda: guidance_term(model, _objective, _x(), 0.5, beta=1.0)}
    with pytest.raises(ValueError, match=r"(parameter|buffer) '(mean|var|net\.0\.weight)'.*working range"):
        calls[use]()


def test_weight_inside_working_range_written_in_place_is_used():
    model = _model()
    with torch.no_grad():
        model.var.fill_(3.0e38)
    assert bool(torch.isfinite(tweedie_mean(model, _x(), 0.5)).all())
