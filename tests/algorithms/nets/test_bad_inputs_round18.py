"""Round 18 of issue #43 (nets): SAM's and its base optimizer's state changed after a step."""

import numpy as np
import pytest
import torch

from algorithms.nets import SAM
from tests.bad_inputs import stepped_once


def _stepped(base=torch.optim.SGD, **kwargs):
    return stepped_once(lambda model: SAM(model.parameters(), base, lr=0.1, rho=0.05, **kwargs))


ADAM = torch.optim.Adam


@pytest.mark.parametrize("base, kwargs, edit, words", [
    (torch.optim.SGD, {"momentum": 0.9}, lambda s: s.__setitem__("foo", torch.zeros(2)), r"added: \['foo'\]"),
    (ADAM, {}, lambda s: s.__setitem__("foo", 1.0), r"keys added: \['foo'\]"),
    (ADAM, {}, lambda s: s.pop("step"), r"removed: \['step'\]"),
    (ADAM, {}, lambda s: s.__setitem__("step", torch.tensor(-2.0)), r"\['step'\] must be a step count"),
    (ADAM, {}, lambda s: s.__setitem__("step", torch.tensor(2.5)), "must be a step count"),
])
def test_sam_refuses_its_base_state_edited_after_a_step(base, kwargs, edit, words):
    # a key added was ignored in silence; 'step' deleted met torch's KeyError, -2 a bare "ComplexFloat" error
    model, optimizer, closure = _stepped(base, **kwargs)
    edit(optimizer.base_optimizer.state[model[0].weight])
    with pytest.raises(ValueError, match=words):
        optimizer.step(closure)


def test_sam_refuses_a_key_written_into_its_own_state():
    model, optimizer, closure = _stepped()
    optimizer.state[model[0].weight]["e_ww"] = torch.zeros(4, 3)     # SAM keeps only theta and e_w
    with pytest.raises(ValueError, match=r"state\[param 0\] has the keys \['e_ww'\]"):
        optimizer.step(closure)


@pytest.mark.parametrize("base", [torch.optim.SGD, torch.optim.Adam])
def test_sam_refuses_a_replaced_base_state(base):
    _, optimizer, closure = _stepped(base)
    optimizer.base_optimizer.state = {}         # torch's bare KeyError naming a Parameter
    with pytest.raises(TypeError, match=r"state must be the defaultdict\(dict\)"):
        optimizer.step(closure)


def test_sam_base_state_cleared_restarts_it_as_torch():
    model, optimizer, closure = _stepped(torch.optim.Adam)
    optimizer.base_optimizer.state[model[0].weight].clear()
    optimizer.step(closure)
    assert float(optimizer.base_optimizer.state[model[0].weight]["step"]) == 1.0


@pytest.mark.parametrize("key, value", [("rho", 0.5), ("lr", 0.5), ("normalize", False), ("momentum", -1.0)])
def test_sam_load_refuses_its_groups_differing_from_the_base_copy(key, value):
    # red18a: sd['param_groups'][0]['rho'] = 0.5 was dropped by the load (the base's copy won)
    _, optimizer, _ = _stepped(momentum=0.9)
    saved = optimizer.state_dict()
    saved["param_groups"][0][key] = value
    _, other, _ = _stepped(momentum=0.9)
    with pytest.raises(ValueError, match=rf"state_dict\['param_groups'\]\[0\]\['{key}'\] is"):
        other.load_state_dict(saved)


def test_sam_load_refuses_a_top_level_key_no_state_dict_has():
    _, optimizer, _ = _stepped()
    saved = optimizer.state_dict()
    saved["extra_top"] = 1
    with pytest.raises(ValueError, match=r"state_dict has the keys \['extra_top'\]"):
        _stepped()[1].load_state_dict(saved)


def test_sam_load_refuses_a_base_state_entry_past_the_working_range():
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(3, dtype=torch.float64))
    optimizer = SAM([w], lr=0.1, rho=0.05, momentum=0.9)
    w.grad = torch.ones_like(w)
    optimizer.first_step()
    optimizer.second_step()
    saved = optimizer.state_dict()
    saved["base_optimizer"]["state"][0]["momentum_buffer"].fill_(1e39)
    with pytest.raises(ValueError, match=r"\['momentum_buffer'\] has an entry of magnitude 1e\+39"):
        SAM([w], lr=0.1, rho=0.05, momentum=0.9).load_state_dict(saved)


def test_sam_names_amsgrad_edited_after_a_step():
    # red18a: KeyError 'max_exp_avg_sq', naming nothing
    _, optimizer, closure = _stepped(ADAM)
    optimizer.param_groups[0]["amsgrad"] = True
    with pytest.raises(ValueError, match=r"lacks the entry 'max_exp_avg_sq'.*amsgrad"):
        optimizer.step(closure)


@pytest.mark.parametrize("name", ["b", "c"])
@pytest.mark.parametrize("value", [2.0, "x", torch.tensor([float("nan")], dtype=torch.float64)])
def test_two_layer_relu_refuses_a_bias_set_after_construction_without_its_flag(name, value):
    # red18a: m.c = 2.0 on an output_bias=False model shifted every output, a NaN tensor answered NaN
    from algorithms.nets import TwoLayerReLU

    model = TwoLayerReLU(2, 3, dtype=torch.float64, hidden_bias=False, output_bias=False)
    setattr(model, name, value)
    with pytest.raises(TypeError, match=rf"TwoLayerReLU.{name} was set to"):
        model(torch.randn(5, 2, dtype=torch.float64))


T64 = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731


@pytest.mark.parametrize("key, value", [("weight_decay", T64(1e39)), ("momentum", T64(float("nan"))),
                                        ("dampening", T64(1e39)), ("weight_decay", np.array(1e39))])
def test_sam_checks_a_tensor_or_array_keyword_as_the_number(key, value):
    # red18a: the number is refused, the 0-d tensor was taken and stepped (weights ~1e74 or NaN)
    w = torch.nn.Parameter(torch.randn(4, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match=key):
        SAM([w], lr=0.01, **{"momentum": 0.5, key: value})
    _, optimizer, closure = _stepped(momentum=0.5)
    optimizer.param_groups[0][key] = value
    with pytest.raises(ValueError, match=key):
        optimizer.step(closure)


def test_sam_refuses_a_base_optimizer_sharing_its_keys():
    # red18a: Adadelta read SAM's radius rho as its own decay coefficient
    with pytest.raises(TypeError, match=r"base_optimizer Adadelta takes the keyword\(s\) \['rho'\]"):
        SAM([torch.nn.Parameter(torch.randn(3))], base_optimizer=torch.optim.Adadelta, rho=0.0, lr=1.0)


@pytest.mark.parametrize("fill", [float("nan"), 1e39])
def test_sam_refuses_its_live_theta_written_between_the_steps(fill):
    # red18a: NaN (or 1e39) written into state[w]['theta'] was restored into the weights
    w = torch.nn.Parameter(torch.randn(3, dtype=torch.float64))
    optimizer = SAM([w], lr=0.1, rho=0.05, momentum=0.9)
    ((w - 1) ** 2).sum().backward()
    optimizer.first_step(zero_grad=True)
    ((w - 1) ** 2).sum().backward()
    optimizer.state[w]["theta"].fill_(fill)
    with pytest.raises(ValueError, match=r"state\[param\]\['theta'\] holds NaN, inf or an entry past"):
        optimizer.second_step()


def _models():
    from algorithms.nets import TwoLayerReLU
    from algorithms.nets.models import MLP as NetsMLP
    from algorithms.optimizers import MLP, LowRankExpansion, Transformer

    return [("in_featuress", TwoLayerReLU(2, 3)), ("hiden", NetsMLP(2, (3,), 1)), ("widht", MLP(2, 1, 3, 1)),
            ("vocab_sizee", Transformer(vocab_size=5, width=8, depth=1, n_heads=2, context=4)),
            ("rankk", LowRankExpansion(torch.nn.Linear(3, 2), rank=1))]


@pytest.mark.parametrize("index", range(5))
def test_a_misspelt_attribute_set_on_a_model_is_refused(index):
    # red18a: net.in_featuress = 5 was stored and ignored
    name, model = _models()[index]
    with pytest.raises(AttributeError, match=f"takes no attribute '{name}'"):
        setattr(model, name, 5)
    model.eval()        # torch's own attributes still work
    assert not model.training


# ---- second wave
from algorithms.nets import TwoLayerReLU  # noqa: E402
from algorithms.nets.functional import flat_forward, per_sample_flat_grads, per_sample_flat_hessians  # noqa: E402


@pytest.mark.parametrize("name", ["rhoo", "rho", "lrr"])
def test_sam_refuses_an_unknown_attribute_set_after_construction(name):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1)
    with pytest.raises(ValueError, match=name):
        setattr(opt, name, 0.1)
    import copy
    clone = copy.deepcopy(opt)   # unpickled/copied too
    with pytest.raises(ValueError, match=name):
        setattr(clone, name, 0.1)


@pytest.mark.parametrize("key, value", [("lr", float("nan")), ("lr", -1.0), ("rho", float("nan")),
                                        ("momentum", -1.0), ("lr", 1e39)])
def test_sam_second_step_rechecks_groups_edited_after_first_step(key, value):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = SAM([w], lr=0.1, momentum=0.0)
    (w ** 2).sum().backward()
    opt.first_step(zero_grad=True)
    perturbed = w.detach().clone()
    good = opt.param_groups[0][key]
    opt.param_groups[0][key] = value
    (w ** 2).sum().backward()
    with pytest.raises(ValueError, match=key):
        opt.second_step()
    assert torch.equal(w.detach(), perturbed)      # nothing moved: still at θ + ε
    opt.param_groups[0][key] = good
    opt.second_step()                               # the corrected group steps
    assert bool(torch.isfinite(w).all())


def _writes_into(target):
    def sample_loss(t, x, y):
        with torch.no_grad():
            {"theta": t, "x": x, "y": y}[target].add_(1.0)
        return ((t * x).sum() - y) ** 2
    return sample_loss


@pytest.mark.parametrize("fn", [per_sample_flat_grads, per_sample_flat_hessians])
@pytest.mark.parametrize("target", ["theta", "x", "y"])
def test_per_sample_derivatives_leave_the_callers_tensors_unchanged(fn, target):
    theta = torch.zeros(3, dtype=torch.float64)
    X = torch.ones(4, 3, dtype=torch.float64)
    y = torch.ones(4, dtype=torch.float64)
    copies = [t.clone() for t in (theta, X, y)]
    with pytest.raises(TypeError, match=r"^sample_loss must not modify its input"):   # round 23 (red23a)
        fn(_writes_into(target), theta, X, y)
    assert all(torch.equal(a, b) for a, b in zip((theta, X, y), copies, strict=True))


@pytest.mark.parametrize("value", [1e39, -1e39, float("nan"), float("inf")])
def test_flat_forward_refuses_theta_outside_the_working_range(value):
    net = TwoLayerReLU(3, 4)
    theta, forward = flat_forward(net)
    bad = theta.clone()
    bad[0] = value
    with pytest.raises(ValueError, match="theta"):
        forward(bad, torch.ones(2, 3, dtype=torch.float64))
    edge = theta.clone()
    edge[0] = 3.4e38     # inside: taken
    forward(edge, torch.zeros(2, 3, dtype=torch.float64))


@pytest.mark.parametrize("base, key, value", [
    (torch.optim.SGD, "dampening", "x"), (torch.optim.SGD, "momentum", None),
    (torch.optim.SGD, "weight_decay", "0"), (torch.optim.Adam, "betas", "x"),
    (torch.optim.Adam, "betas", (0.9, "x")), (torch.optim.Adam, "eps", "1e-8")])
def test_sam_refuses_a_non_number_for_a_real_base_keyword(base, key, value):
    # heldout18 E00282: dampening = 'x' (unused by SGD at momentum 0) was stepped in silence
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = SAM([w], base_optimizer=base, lr=0.1)
    opt.param_groups[0][key] = value

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss

    before = w.detach().clone()
    with pytest.raises(TypeError, match=key):
        opt.step(closure)
    assert torch.equal(w.detach(), before)
    with pytest.raises(TypeError, match=key):
        SAM([torch.nn.Parameter(torch.ones(2))], base_optimizer=base, lr=0.1, **{key: value})


@pytest.mark.parametrize("key, value, kind", [
    ("dampening", "x", "real number"), ("momentum", None, "real number"), ("nesterov", "x", "bool"),
    ("weight_decay", [0.1], "real number")])
def test_sam_load_names_a_base_keyword_of_the_wrong_kind(key, value, kind):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = SAM([w], lr=0.1)
    state = opt.state_dict()
    state["base_optimizer"]["param_groups"][0][key] = value     # both copies, alike
    state["param_groups"][0][key] = value
    with pytest.raises(TypeError, match=rf"\['{key}'\] must be a {kind}"):
        SAM([w], lr=0.1).load_state_dict(state)


@pytest.mark.parametrize("params", ["x", [1.0], [None]])
def test_sam_add_param_group_names_params_that_are_not_tensors(params):
    opt = SAM([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    with pytest.raises(TypeError, match="param_group: params"):
        opt.add_param_group({"params": params})
    assert len(opt.param_groups) == 1


_KIND_CASES = [
    (torch.optim.SGD, "momentum", True), (torch.optim.SGD, "dampening", 1j),
    (torch.optim.SGD, "dampening", None), (torch.optim.SGD, "weight_decay", True),
    (torch.optim.Adam, "eps", True), (torch.optim.ASGD, "lambd", "x"),
    (torch.optim.ASGD, "t0", True), (torch.optim.Rprop, "step_sizes", np.array([1e-6, 50.0])),
    (torch.optim.Rprop, "etas", ["x", 0.5]), (torch.optim.Adam, "betas", np.array([0.9, 0.99])),
    (torch.optim.RMSprop, "centered", None)]


@pytest.mark.parametrize("base, key, value", _KIND_CASES)
def test_sam_refuses_a_base_keyword_of_another_kind_than_its_default(base, key, value):
    # red18c: momentum=True ran as 1.0, dampening=1j stepped, centered=None ran as False, ...
    model = torch.nn.Linear(3, 1)
    with pytest.raises(TypeError, match=key):
        SAM(model.parameters(), base, lr=0.1, **{key: value})
    opt = SAM(model.parameters(), base, lr=0.1)
    with pytest.raises(TypeError, match=key):
        opt.add_param_group({"params": list(torch.nn.Linear(2, 2).parameters()), key: value})
    opt.param_groups[0][key] = value

    def closure():
        opt.zero_grad()
        loss = model(torch.ones(2, 3)).pow(2).mean()
        loss.backward()
        return loss

    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(TypeError, match=key):
        opt.step(closure)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_two_layer_mse_task_refuses_x_without_columns_naming_x():
    from algorithms.nets.sam import TwoLayerMSETask
    with pytest.raises(ValueError, match="X must have at least one column"):
        TwoLayerMSETask(X=np.zeros((8, 0)), y=np.zeros(8), width=4)


def test_sam_names_a_pair_keyword_of_another_length():
    with pytest.raises(ValueError, match="etas must hold 2 real numbers"):   # torch's bare IndexError before
        SAM(torch.nn.Linear(3, 1).parameters(), torch.optim.Rprop, lr=0.1, etas=[0.5])


def test_problems_arrays_reach_torch_without_a_read_only_warning():
    """The nets problems' arrays are read-only (round 18): torch.as_tensor over them warned 'The given NumPy
    array is not writable' at the first solve; they are copied into tensors instead."""
    import warnings

    from algorithms import solve
    from algorithms.nets.gradient_flow import GradientDescentTraining, TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data

    X, y = orthogonally_separable_data(4, 4, 2, seed=0)
    problem = TwoLayerTraining(X, y, width=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solve(problem, GradientDescentTraining(lr=0.1, t_end=2.0), maxiters=2, store_trace=True)
        problem.features(problem.initial_theta(0))


@pytest.mark.parametrize("keywords", [{"head": "muon"}, {"head": "adamw"}, {"on_nonfinite": "skip"}])
def test_sam_passes_the_base_optimizers_own_constructor_keywords(keywords):
    """heldout19: SAM(..., base_optimizer=Muon, head='muon') was refused ('parameter group keys ['head'] are
    not Muon keywords'): head and on_nonfinite are Muon's attributes, passed to its constructor only."""
    from algorithms.optimizers import Muon

    weight = torch.nn.Parameter(torch.randn(4, 3, dtype=torch.float64))
    optimizer = SAM([weight], base_optimizer=Muon, lr=0.01, **keywords)
    for name, value in keywords.items():
        assert getattr(optimizer.base_optimizer, name) == value
        assert name not in optimizer.param_groups[0]
    with pytest.raises(ValueError, match="head must be one of"):
        SAM([weight], base_optimizer=Muon, lr=0.01, head="x")
