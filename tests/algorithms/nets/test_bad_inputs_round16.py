"""Round 16 (issue #43): SAM's parameter groups edited after construction, and float16 gradients."""

from fractions import Fraction

import pytest
import torch

from algorithms.nets import SAM


def _sam(**kwargs):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1, rho=0.05, momentum=0.9, **kwargs)

    def closure():
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    return w, opt, closure


@pytest.mark.parametrize(("key", "meant"), [("rhoo", "rho"), ("lrr", "lr"), ("momentun", "momentum"),
                                            ("weight_decy", "weight_decay"), ("normalise", "normalize")])
def test_misspelt_key_written_after_construction_is_refused_by_name(key, meant):
    # the group's own value stayed in force in silence
    _, opt, closure = _sam()
    opt.param_groups[0][key] = 0.5
    with pytest.raises(ValueError, match=rf"key '{key}'.*did you mean '{meant}'"):
        opt.step(closure)


@pytest.mark.parametrize(("key", "value"), [("rho", Fraction(1, 20)), ("lr", Fraction(1, 10)),
                                            ("weight_decay", Fraction(1, 100))])
def test_fraction_written_after_construction_steps_as_its_float(key, value):
    # torch's TypeError ("alpha must be Number, not Fraction") or Fraction / Tensor
    w, opt, closure = _sam(weight_decay=0.0)
    opt.param_groups[0][key] = value
    opt.step(closure)
    expected = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    reference = SAM([expected], **{"lr": 0.1, "rho": 0.05, "momentum": 0.9, "weight_decay": 0.0,
                                   key: float(value)})

    def closure2():
        reference.zero_grad()
        loss = (expected**2).sum()
        loss.backward()
        return loss

    reference.step(closure2)
    assert torch.equal(w, expected)


@pytest.mark.parametrize("appended", ["twice", "int"])
def test_params_appended_after_construction_are_refused_by_name(appended):
    # a tensor listed twice took two steps per step; an int64 one was stepped as nothing
    w, opt, closure = _sam()
    opt.param_groups[0]["params"].append(w if appended == "twice" else torch.zeros(2, dtype=torch.int64))
    with pytest.raises((TypeError, ValueError), match="params"):
        opt.step(closure)


def test_float16_gradients_perturb_by_rho():
    # ‖g‖ in float16: 1e-5 squared underflowed and 1e-12 rounded to 0, so ε = ρ g/0 = inf/NaN
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float16))
    opt = SAM([w], lr=0.1, rho=0.05)
    w.grad = torch.tensor([1e-5, 0.0], dtype=torch.float16)
    opt.first_step()
    assert torch.equal(w.detach(), torch.tensor([1.05, -2.0], dtype=torch.float16))
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float16))
    opt = SAM([w], lr=0.1, rho=0.05)

    def closure():         # a stationary point: ε = 0, the base step with g = 0
        opt.zero_grad()
        loss = ((w.float() - torch.tensor([1.0, -2.0])) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert torch.equal(w.detach(), torch.tensor([1.0, -2.0], dtype=torch.float16))


@pytest.mark.parametrize("bad", [torch.zeros(3), torch.zeros(2, dtype=torch.float64), [0.0, 0.0]],
                         ids=["shape", "dtype", "list"])
def test_base_state_edited_after_a_step_is_refused_by_name(bad):
    # torch's RuntimeError / AttributeError, naming nothing
    w, opt, closure = _sam()
    opt.step(closure)
    opt.base_optimizer.state[w]["momentum_buffer"] = bad
    with pytest.raises((TypeError, ValueError), match=r"state\[param 0\]\['momentum_buffer'\]"):
        opt.step(closure)
