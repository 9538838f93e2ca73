"""Round 16 (issue #43): SAM's parameter groups edited after construction, and float16 gradients."""

from fractions import Fraction

import pytest
import torch

from algorithms.nets import SAM


def _squares_closure(opt, w):
    """SAM's closure for the loss ‖w‖²."""
    def closure():
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    return closure


def _sam(**kwargs):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1, rho=0.05, momentum=0.9, **kwargs)
    return w, opt, _squares_closure(opt, w)


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
    reference.step(_squares_closure(reference, expected))
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


@pytest.mark.parametrize("key", ["theta", "e_w"])
@pytest.mark.parametrize("bad", [torch.zeros(3), "x"], ids=["shape", "str"])
def test_saved_point_of_another_shape_or_type_is_refused_at_load(key, bad):
    # loaded as it was, then torch's size error (or copy_'s TypeError) inside second_step
    import copy

    w, opt, _ = _sam()
    (w ** 2).sum().backward()
    opt.first_step()
    saved = copy.deepcopy(opt.state_dict())
    saved["state"][0][key] = bad
    w2, opt2, _ = _sam()
    with pytest.raises(ValueError, match=rf"state_dict\['state'\]\[0\]\['{key}'\]"):
        opt2.load_state_dict(saved)
    opt2.load_state_dict(opt.state_dict())
    opt2.state[w2][key] = torch.zeros(3)       # edited in the live state between the two steps
    (w2 ** 2).sum().backward()
    with pytest.raises(ValueError, match=rf"second_step: state\[param\]\['{key}'\]"):
        opt2.second_step()


def test_steps_after_a_documented_nan_step_do_not_blame_the_user():
    # the next step said the NaN was "written after the last step, e.g. through .data": SAM's step wrote it
    import warnings

    w, opt, _ = _sam()
    calls = [0]

    def closure():
        opt.zero_grad()
        calls[0] += 1
        loss = (w ** 2).sum() * (float("nan") if calls[0] == 2 else 1.0)
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(3):
            opt.step(closure)
    assert torch.isnan(w).all()
    w, opt, closure = _sam()        # a NaN written through .data is still refused by name
    opt.step(closure)
    opt.base_optimizer.state[w]["momentum_buffer"].data.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"momentum_buffer.*through \.data"):
        opt.step(closure)


@pytest.mark.parametrize(("base", "key", "value", "named"), [
    (torch.optim.SGD, "momentum", -1.0, "momentum"), (torch.optim.SGD, "weight_decay", -1.0, "weight_decay"),
    (torch.optim.Adam, "betas", (1.5, 0.9), "beta"), (torch.optim.AdamW, "betas", (0.9, -0.1), "beta")])
def test_base_keyword_edited_to_an_invalid_value_is_refused_at_the_next_step(base, key, value, named):
    # heldout16 (optimizers.e2e.pg_invalid): momentum = -1 written into a torch SGD's group stepped in silence
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], base, lr=0.05)
    closure = _squares_closure(opt, w)
    opt.step(closure)
    opt.param_groups[0][key] = value
    before = w.detach().clone()
    with pytest.raises(ValueError, match=rf"param_groups\[0\].*{named}"):
        opt.step(closure)
    assert torch.equal(w.detach(), before)
    with pytest.raises(ValueError, match=rf"param_group.*{named}"):
        opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(2))], key: value})
    assert len(opt.param_groups) == 1


@pytest.mark.parametrize("value", ["0.5", None])
def test_base_keyword_edited_to_a_non_number_is_refused_naming_it(value):
    # torch's own "'<' not supported between instances of 'str' and 'float'" names nothing
    _, opt, closure = _sam()
    opt.step(closure)
    opt.param_groups[0]["momentum"] = value
    with pytest.raises(TypeError, match=r"param_groups\[0\].*momentum"):
        opt.step(closure)
