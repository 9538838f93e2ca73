"""Round 23 of issue #43 (optimizers): docstring promises kept at their boundaries."""

import pytest
import torch

from algorithms.optimizers import LowRankExpansion


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("top", [1e38, 3.4e38])
def test_a_fresh_expansion_is_the_wrapped_layer_exactly_near_the_working_max(dtype, top):
    # "at initialization it is the wrapped layer exactly (C = 0)": x Vᵀ overflowed float32 for finite x near
    # 3.4e38 and U = 0 turned the inf into NaN, where the wrapped layer answered a finite output
    layer = torch.nn.Linear(4, 2, dtype=dtype)
    with torch.no_grad():
        layer.weight.fill_(0.01)
    wrapped = LowRankExpansion(layer, rank=2, seed=1)
    x = (top * torch.sign(wrapped.V[0].detach())).reshape(1, 4).to(dtype)
    expected = layer(x)
    assert bool(torch.isfinite(expected).all())
    assert torch.equal(wrapped(x), expected)


def test_an_overflowing_factored_product_gives_the_merged_map():
    # (W + U V) x + b: with U ≠ 0 the map is the merged weight's, not inf · small = NaN
    layer = torch.nn.Linear(4, 2)
    wrapped = LowRankExpansion(layer, rank=2, seed=1)
    with torch.no_grad():
        wrapped.U.fill_(1e-30)
    x = (3e38 * torch.sign(wrapped.V[0].detach())).reshape(1, 4)
    expected = torch.nn.functional.linear(x, wrapped.merged_weight(), layer.bias)
    assert torch.equal(wrapped(x), expected)
    assert not bool(torch.isnan(wrapped(x)).any())


def _with_own_attribute(base: type) -> type:
    class Own(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.extra = 2.0        # the subclass's own attribute, set after the base class fixed its names

    return Own


@pytest.mark.parametrize("name", ["Muon", "Shampoo", "SOAP"])
def test_a_users_optimizer_subclass_sets_its_own_attributes_and_steps(name):
    # a subclass of an exported optimizer setting an attribute in its own __init__ was refused
    # (UnknownAttributeError), so no user subclass could be built
    import algorithms.optimizers as family

    cls = _with_own_attribute(getattr(family, name))
    w = torch.nn.Parameter(torch.randn(3, 3))
    opt = cls([w], lr=0.01)
    assert opt.extra == 2.0
    (w ** 2).sum().backward()
    opt.step()
    opt.load_state_dict(opt.state_dict())
    from algorithms._validation import UnknownAttributeError
    with pytest.raises(UnknownAttributeError, match="extraa"):
        opt.extraa = 1.0        # after construction, a misspelt name is still refused


@pytest.mark.parametrize("name", ["MLP", "LowRankExpansion"])
def test_a_users_model_subclass_sets_its_own_attributes(name):
    import algorithms.optimizers as family

    cls = _with_own_attribute(getattr(family, name))
    model = cls(3, 2, 8, 2) if name == "MLP" else cls(torch.nn.Linear(3, 3), 1)
    assert model.extra == 2.0
    from algorithms._validation import UnknownAttributeError
    with pytest.raises(UnknownAttributeError, match="extraa"):
        model.extraa = 1.0
