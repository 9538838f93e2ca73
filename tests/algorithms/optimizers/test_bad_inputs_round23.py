"""Round 23 of issue #43 (optimizers): docstring promises kept at their boundaries."""

import copy
import pickle
from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms.optimizers import BlockOptimizer, LowRankExpansion, Shampoo


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


@pytest.mark.parametrize("value", [Fraction(1, 4), Fraction(1, 2), np.float32(0.25)])
def test_shampoo_takes_exponent_as_any_real_number_in_range(value):
    # Fraction(1, 4) was refused "must be in (0, 0.5]" (red23a), where every other keyword takes a Fraction
    w = torch.nn.Parameter(torch.randn(3, 3))
    assert Shampoo([w], exponent=value).param_groups[0]["exponent"] == float(value)


@pytest.mark.parametrize(("value", "error"), [(np.array(0.5), TypeError), (True, TypeError), ("x", TypeError),
                                              (Fraction(3, 4), ValueError), (1e-39, ValueError)])
def test_shampoo_refuses_exponent_by_kind_or_range(value, error):
    w = torch.nn.Parameter(torch.randn(3, 3))
    with pytest.raises(error, match="exponent"):
        Shampoo([w], exponent=value)


@pytest.mark.parametrize("loss", [np.float32(1.5), Fraction(1, 2), np.int64(2)])
@pytest.mark.parametrize("name", ["Muon", "Shampoo", "SOAP", "SAM"])
def test_a_closure_returning_any_real_number_is_taken(name, loss):
    # "returns it, a tensor of one element or a real number": np.float32(1.5) was refused as not one
    import algorithms.optimizers as family
    from algorithms.nets import SAM

    w = torch.nn.Parameter(torch.randn(3, 3))
    opt = SAM([w], lr=0.01) if name == "SAM" else getattr(family, name)([w], lr=0.01)

    def closure():
        opt.zero_grad()
        (w ** 2).sum().backward()
        return loss

    assert opt.step(closure) == loss


@pytest.mark.parametrize(("edit", "key"), [(lambda d: d.__setitem__("lr", float("nan")), "lr"),
                                          (lambda d: d.__setitem__("bogus", 1), "bogus"),
                                          (lambda d: d.__setitem__("expansion_lr_scale", "x"),
                                           "expansion_lr_scale"),
                                          (lambda d: d.pop("lr"), "lr")])
def test_block_optimizer_refuses_defaults_edited_after_construction(edit, key):
    # stored and ignored in silence (red23a): no step reads BlockOptimizer.defaults
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    opt = BlockOptimizer(model.named_parameters(), base=torch.optim.AdamW, lr=0.01, switch_every=1)
    edit(opt.defaults)
    (model(torch.ones(5, 3)) ** 2).sum().backward()
    with pytest.raises(ValueError, match=rf"defaults\['{key}'\]"):
        opt.step()


def test_block_optimizer_with_its_defaults_untouched_steps_after_a_copy():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    opt = BlockOptimizer(model.named_parameters(), base=torch.optim.AdamW, lr=0.01, switch_every=1)
    for copy_of in (lambda o: o, copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))):
        o = copy_of(opt)
        o.zero_grad()
        (model(torch.ones(5, 3)) ** 2).sum().backward()
        o.step()


@pytest.mark.parametrize(("source", "target"), [({"base": torch.optim.SGD, "momentum": 0.9}, {}),
                                                ({}, {"base": torch.optim.SGD, "momentum": 0.9})])
def test_block_optimizer_refuses_a_state_saved_under_another_base(source, target):
    # loaded, then the next step blamed an edit nobody made (red23a)
    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))

    def step(opt, m):
        opt.zero_grad()
        (m(torch.ones(5, 3)) ** 2).sum().backward()
        opt.step()

    saved_model = model()
    saved = BlockOptimizer(saved_model.named_parameters(), lr=0.01, switch_every=1, **source)
    step(saved, saved_model)
    step(saved, saved_model)
    loading = BlockOptimizer(model().named_parameters(), lr=0.01, switch_every=1, **target)
    with pytest.raises(ValueError, match="another base optimizer"):
        loading.load_state_dict(copy.deepcopy(saved.state_dict()))


class _DropoutLM(torch.nn.Module):
    """A user's language model holding a Dropout (train mode), for a FinetuneTask."""

    def __init__(self):
        super().__init__()
        gen = torch.Generator().manual_seed(0)
        self.vocab_size = 6
        self.emb = torch.nn.Embedding(6, 8)
        self.drop = torch.nn.Dropout(0.5)
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8)])
        self.out = torch.nn.Linear(8, 6)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=gen) * 0.3)

    def forward(self, tokens):
        return self.out(self.layers[0](self.drop(self.emb(tokens))))


@pytest.mark.parametrize("name", ["FullFinetune", "BlockCoordinateDescent"])
def test_a_dropout_model_finetunes_from_solves_seed_alone(name):
    # red23a: dropout drew from torch's global generator: one seed gave two answers (and moved it)
    from algorithms import solve
    from algorithms.optimizers import BlockCoordinateDescent, FinetuneTask, FullFinetune, MarkovLanguageTask

    task = MarkovLanguageTask(vocab_size=6, context=4, seed=1)
    tokens = task.sample(16, torch.Generator().manual_seed(0))
    problem = FinetuneTask(_DropoutLM(), task, tokens, batch_size=4)
    algorithm = (FullFinetune if name == "FullFinetune" else BlockCoordinateDescent)(lr=0.01)
    first = solve(problem, algorithm, seed=0, maxiters=5)
    torch.manual_seed(123)     # the caller's generator elsewhere: no effect on the run
    second = solve(problem, algorithm, seed=0, maxiters=5)
    assert np.array_equal(first.x, second.x) and first.value == second.value
    torch.manual_seed(0)
    state = torch.random.get_rng_state()
    solve(problem, algorithm, seed=0, maxiters=5)
    assert torch.equal(state, torch.random.get_rng_state()) and problem.model.training


def test_a_torch_muon_state_in_a_default_muon_keeps_its_own_round_trip():
    # red23a: torch's head momentum was kept beside the AdamW moments the next step wrote, and this
    # optimizer's own state_dict() was then refused by an identical Muon
    from algorithms.optimizers import Muon

    gen = torch.Generator().manual_seed(0)
    ps = [torch.nn.Parameter(torch.randn(shape, generator=gen)) for shape in ((4, 3), (5, 4))]   # ps[1]: head
    reference = torch.optim.Muon(ps, lr=0.02)
    for _ in range(2):
        for p in ps:
            p.grad = torch.randn(p.shape, generator=gen)
        reference.step()
    ours = Muon(ps, lr=0.02)
    with pytest.warns(UserWarning, match=r"momentum of parameter\(s\) \[1\] is not used \(dropped\)"):
        ours.load_state_dict(copy.deepcopy(reference.state_dict()))
    for p in ps:
        p.grad = torch.randn(p.shape, generator=gen)
    ours.step()
    assert "momentum_buffer" not in ours.state[ps[1]]
    Muon(ps, lr=0.02).load_state_dict(copy.deepcopy(ours.state_dict()))


@pytest.mark.parametrize("key", ["switch_every", "seed", "order"])
def test_a_block_optimizer_setting_written_into_param_groups_is_named_as_one(key):
    # heldout23: "switch_every" in param_groups[0] read as AdamW's "unexpected keyword argument"
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
    opt = BlockOptimizer(model.named_parameters(), lr=0.01, switch_every=2)
    opt.param_groups[0][key] = 1
    model(torch.ones(2, 3)).sum().backward()
    with pytest.raises(TypeError, match=rf"holds '{key}', a BlockOptimizer constructor argument"):
        opt.step()


class _RolesModel(torch.nn.Module):
    """A duck-typed model for param_groups with the roles it is given."""

    def __init__(self, roles):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.width, self.depth, self._roles = 4, 1, roles

    def parameter_roles(self):
        return self._roles


@pytest.mark.parametrize(("roles", "words"), [
    ({"lin.weight": "hidden", "lin.bias": "bogus"}, r"the role 'bogus', not one of"),
    ({"lin.weight": "hidden", "lin.bias": "vector", "lin.wieght": "output"},
     r"\['lin.wieght'\], which are not"),
])
def test_param_groups_names_an_unknown_role_and_a_misspelt_name(roles, words):
    # red23a: 'bogus' was reported as "has no role"; a role for a misspelt name was dropped in silence
    from algorithms.optimizers import param_groups

    with pytest.raises(ValueError, match=words):
        param_groups(_RolesModel(roles), "muon", 0.01, base_width=4)
    param_groups(_RolesModel({"lin.weight": "hidden", "lin.bias": "vector"}), "muon", 0.01, base_width=4)
