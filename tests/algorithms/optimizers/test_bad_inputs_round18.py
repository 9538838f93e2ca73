"""Round 18 of issue #43 (optimizers): state changed after construction or loaded, then used."""

import copy
import warnings

import numpy as np
import pytest
import torch

from algorithms.optimizers import SOAP, Muon, Shampoo


def _stepped(cls):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    optimizer = cls(model.parameters(), weight_decay=0.0)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    return model, optimizer


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("key, value", [("LR", 0.1), ("learning_rate", 0.1), ("lrate", torch.tensor(0.1)),
                                        ("decay", (0.9, 0.99)), ("use_it", True)])
def test_a_number_under_a_key_no_step_reads_is_refused_at_the_next_step(cls, key, value):
    # "LR" = 0.1 written into param_groups was kept, and the group's lr stayed in force in silence
    _, optimizer = _stepped(cls)
    optimizer.param_groups[0][key] = value
    with pytest.raises(ValueError, match=rf"param_groups\[0\] has the key '{key}' holding a number"):
        optimizer.step()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("key", ["LR", "lrr"])
def test_a_loaded_group_key_no_step_reads_is_refused_by_the_load(cls, key):
    _, optimizer = _stepped(cls)
    saved = optimizer.state_dict()
    saved["param_groups"][0][key] = 0.5
    _, other = _stepped(cls)
    before = copy.deepcopy(other.state_dict())
    with pytest.raises(ValueError, match=rf"state_dict: param_groups\[0\] has the key '{key}'"):
        other.load_state_dict(saved)
    assert other.state_dict()["param_groups"] == before["param_groups"]


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_top_level_key_no_load_reads_is_refused(cls):
    _, optimizer = _stepped(cls)
    saved = optimizer.state_dict()
    saved["skipped_steps"] = 3      # not part of the state_dict: ignored in silence
    with pytest.raises(ValueError, match=r"state_dict has the keys \['skipped_steps'\]"):
        _stepped(cls)[1].load_state_dict(saved)


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_state_entry_no_step_reads_is_refused_at_the_next_step(cls):
    model, optimizer = _stepped(cls)
    optimizer.state[model.bias]["exp_avg_sqq"] = torch.zeros(2)
    with pytest.raises(ValueError, match=r"state\[param 1\] has the key 'exp_avg_sqq'"):
        optimizer.step()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_str_labels_and_a_state_reset_still_work(cls):
    model, optimizer = _stepped(cls)
    optimizer.param_groups[0]["name"] = "layer"
    optimizer.param_groups[0]["my_tag"] = "head"
    optimizer.state[model.bias] = {}            # a reset: the next step starts the bias's moments afresh
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.step()
    assert optimizer.state[model.bias]["adam_step"] == 1


def _block_stepped():
    from algorithms.optimizers import BlockOptimizer
    from tests.bad_inputs import stepped_once

    def optimizer_of(model):
        return BlockOptimizer(model.named_parameters(), base=torch.optim.AdamW, lr=0.01, switch_every=100)

    return stepped_once(optimizer_of)


@pytest.mark.parametrize("key, value", [("betas", (2.0, 0.9)), ("lr", float("nan")), ("lrr", 0.5),
                                        ("weight_decay", -1.0)])
def test_block_optimizer_refuses_an_edit_of_its_base_optimizers_groups(key, value):
    # betas = (2, 0.9) written into base_optimizer.param_groups stepped; lr = nan and "lrr" were ignored
    _, optimizer, closure = _block_stepped()
    optimizer.base_optimizer.param_groups[0][key] = value
    with pytest.raises(ValueError, match=rf"base_optimizer.param_groups\[0\]\['{key}'\] was edited"):
        optimizer.step(closure)


def test_block_optimizer_follows_a_scheduler_and_its_own_group_edits():
    _, optimizer, closure = _block_stepped()
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    optimizer.step(closure)
    scheduler.step()
    optimizer.param_groups[0]["weight_decay"] = 0.5        # the documented way to edit a base keyword
    optimizer.step(closure)
    group = optimizer.base_optimizer.param_groups[0]
    assert group["lr"] == 0.005 and group["weight_decay"] == 0.5


@pytest.mark.parametrize("edit, words", [
    (lambda s: s.__setitem__("foo", torch.zeros(2)), r"keys added: \['foo'\]"),
    (lambda s: s.pop("step"), r"removed: \['step'\]"),
    (lambda s: s.__setitem__("step", torch.tensor(-2.0)), r"\['step'\] must be a step count"),
    (lambda s: s.__setitem__("step", torch.tensor(2.5)), r"\['step'\] must be a step count"),
])
def test_block_optimizer_refuses_base_state_edited_after_a_step(edit, words):
    # a key added was ignored; 'step' deleted met torch's KeyError, -2 a bare "ComplexFloat" error
    model, optimizer, closure = _block_stepped()
    edit(optimizer.base_optimizer.state[model[0].weight])
    with pytest.raises(ValueError, match=words):
        optimizer.step(closure)


def test_block_optimizer_refuses_writes_into_its_own_unread_state_and_a_replaced_state():
    model, optimizer, closure = _block_stepped()
    optimizer.state[model[0].weight]["exp_avg"] = torch.zeros(4, 3)
    with pytest.raises(ValueError, match="its state was written to"):
        optimizer.step(closure)
    model, optimizer, closure = _block_stepped()
    optimizer.base_optimizer.state = {}
    with pytest.raises(TypeError, match=r"state must be the defaultdict\(dict\)"):
        optimizer.step(closure)


def test_block_optimizer_state_reset_by_clearing_an_entry_restarts_it():
    model, optimizer, closure = _block_stepped()
    optimizer.base_optimizer.state[model[0].weight].clear()
    optimizer.step(closure)
    assert float(optimizer.base_optimizer.state[model[0].weight]["step"]) == 1.0


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_replaced_state_container_is_refused(cls):
    _, optimizer = _stepped(cls)
    with pytest.raises(ValueError, match=r"state is fixed at construction"):   # round 20: at the assignment
        optimizer.state = {}


def _float64_stepped(cls):
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(6, 5, dtype=torch.float64))
    optimizer = cls([w], lr=0.01, weight_decay=0.0)
    for _ in range(2):
        w.grad = torch.ones_like(w)
        optimizer.step()
    return w, optimizer


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_state_entry_past_the_working_range_is_refused_loaded_or_written(cls):
    # red18a: a float64 momentum of 1e39 loaded (or written in place) stepped ~1e38 weights in silence
    w, optimizer = _float64_stepped(cls)
    saved = optimizer.state_dict()
    key = "momentum_buffer" if cls is Muon else "momentum"
    saved["state"][0][key].fill_(1e39)
    _, other = _float64_stepped(cls)
    with pytest.raises(ValueError, match=rf"\['{key}'\] has an entry of magnitude 1e\+39, past the working"):
        other.load_state_dict(saved)
    optimizer.state[w][key].fill_(1e39)
    w.grad = torch.ones_like(w)
    with pytest.raises(ValueError, match=r"entry of magnitude 1e\+39, past the working range"):
        optimizer.step()


def test_block_optimizer_names_amsgrad_edited_after_a_step():
    # red18a: KeyError 'max_exp_avg_sq', naming nothing
    _, optimizer, closure = _block_stepped()
    optimizer.param_groups[0]["amsgrad"] = True
    with pytest.raises(ValueError, match=r"lacks the entry 'max_exp_avg_sq'.*amsgrad"):
        optimizer.step(closure)


def test_block_optimizer_block_names_cannot_be_changed():
    # red18a: block_names edited in place or replaced was reported by state_dict while the old blocks trained
    _, optimizer, _ = _block_stepped()
    names = optimizer.block_names
    names[0] = ["1.weight", "1.bias"]
    assert optimizer.block_names[0] == ["0.weight", "0.bias"]
    assert optimizer.state_dict()["schedule"]["block_names"][0] == ["0.weight", "0.bias"]
    with pytest.raises(ValueError, match="block_names is fixed at construction"):
        optimizer.block_names = [["x"]]


@pytest.mark.parametrize("cls, key", [(Shampoo, "left_root"), (Shampoo, "momentum"), (SOAP, "step")])
def test_an_entry_deleted_from_the_live_state_is_refused(cls, key):
    # red18a: KeyError 'left_root' naming nothing, or that part of the state restarted in silence
    w, optimizer = _float64_stepped(cls)
    del optimizer.state[w][key]
    w.grad = torch.ones_like(w)
    with pytest.raises(ValueError, match=rf"lost the entries \['{key}'\]"):
        optimizer.step()


@pytest.mark.parametrize("value", [torch.tensor(1e39, dtype=torch.float64), torch.tensor(float("nan")),
                                   __import__("numpy").array(1e39)])
def test_block_optimizer_checks_a_tensor_or_array_keyword_as_the_number(value):
    # red18a: weight_decay = np.array(1e39) was taken (the number refused) and drove the weights to 1e73
    from algorithms.optimizers import BlockOptimizer

    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    with pytest.raises(ValueError, match="weight_decay"):
        BlockOptimizer(model, lr=0.01, weight_decay=value)


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_misspelt_attribute_set_on_an_optimizer_is_refused(cls):
    # red18a: opt.lrr = 0.1 was stored and ignored
    _, optimizer = _stepped(cls)
    with pytest.raises(AttributeError, match="takes no attribute 'lrr'"):
        optimizer.lrr = 0.1
    optimizer.on_nonfinite = "skip"
    optimizer.step()


def test_a_misspelt_attribute_set_on_a_block_optimizer_is_refused():
    _, optimizer, closure = _block_stepped()
    with pytest.raises(AttributeError, match="takes no attribute 'switch_evry'"):
        optimizer.switch_evry = 1
    optimizer.switch_every = 1
    optimizer.step(closure)
    assert optimizer.active_block == 1


# ---- second wave: a user's optimizer factory, a task's model edited, the expansion hooks
from algorithms import RetCode, solve  # noqa: E402
from algorithms.optimizers import (  # noqa: E402
    MLP,
    BlockCoordinateDescent,
    BlockOptimizer,
    MarkovLanguageTask,
    OptimizerTraining,
    TrainingProblem,
)
from algorithms.optimizers.finetune import FullFinetune, markov_finetune_task  # noqa: E402

_BAD_GROUP_NUMBERS = [("lr", float("nan")), ("lr", 1e39), ("lr", 1e-39), ("momentum", float("nan")),
                      ("momentum", 1e39), ("weight_decay", float("inf"))]


@pytest.fixture(scope="module")
def finetune_task():
    return markov_finetune_task(vocab_size=8, context=4, n=16, width=16, depth=2, pretrain_steps=5)


@pytest.mark.parametrize("key, value", _BAD_GROUP_NUMBERS)
def test_bcd_refuses_a_factory_whose_optimizer_holds_a_bad_number(finetune_task, key, value):
    def factory(model, **kwargs):
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
        opt.param_groups[0][key] = value     # what a user's factory may set
        return opt

    with pytest.raises(ValueError, match=f"make_optimizer.*'{key}'"):
        solve(finetune_task, BlockCoordinateDescent(optimizer=factory), maxiters=2)


@pytest.mark.parametrize("key, value", _BAD_GROUP_NUMBERS)
def test_optimizer_training_refuses_a_factory_whose_optimizer_holds_a_bad_number(key, value):
    def factory(groups, lr, **kwargs):
        opt = torch.optim.SGD(groups, lr=lr, momentum=0.5)
        for group in opt.param_groups:
            group[key] = value
        return opt

    problem = TrainingProblem(MLP(8, 8, width=16, depth=1, seed=0),
                              MarkovLanguageTask(vocab_size=8, context=8, seed=0), steps=3)
    with pytest.raises(ValueError, match=f"factory.*'{key}'"):
        solve(problem, OptimizerTraining("adamw", lr=0.01, factory=factory))
    good = solve(problem, OptimizerTraining("adamw", lr=0.01, factory=torch.optim.AdamW))   # still works
    assert good.retcode in (RetCode.MaxIters, RetCode.Success)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_finetune_task_whose_model_was_set_to_nan_is_refused_at_solve(value):
    task = markov_finetune_task(vocab_size=8, context=4, n=16, width=16, depth=2, pretrain_steps=5)
    with torch.no_grad():
        next(task.model.parameters())[0] = value
    for algorithm in (FullFinetune(lr=1e-2), BlockCoordinateDescent(lr=1e-2)):
        with pytest.raises(ValueError, match=r"problem\.model"):
            solve(task, algorithm, maxiters=2)


@pytest.mark.parametrize("expansion", ["sgd", "sign"])
@pytest.mark.parametrize("key, value", [("lr", float("nan")), ("lr", -1.0), ("lr", 1e39),
                                        ("expansion_lr_scale", float("nan")), ("expansion_lr_scale", 0.0)])
def test_block_expansion_hooks_refuse_an_invalid_rate_before_moving_anything(expansion, key, value):
    model = MLP(3, 2, 8, 2, seed=0)
    opt = BlockOptimizer(model, expansion=expansion, lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    opt.param_groups[0][key] = value
    with pytest.raises(ValueError, match=key):
        model(torch.ones(4, 3)).sum().backward()
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_a_finetune_task_whose_float64_model_got_a_weight_past_the_working_range_is_refused_at_solve():
    task = markov_finetune_task(vocab_size=8, context=4, n=16, width=16, depth=2, pretrain_steps=5)
    model64 = copy.deepcopy(task.model).double()      # a float32 model cannot hold 1e39
    from algorithms.optimizers.finetune import FinetuneTask
    task64 = FinetuneTask(model=model64, task=task.task, tokens=task.tokens)
    with torch.no_grad():
        next(model64.parameters())[0] = 1e39
    with pytest.raises(ValueError, match=r"problem\.model"):
        solve(task64, FullFinetune(lr=1e-2), maxiters=2)


@pytest.mark.parametrize("key, value", [("betas", "x"), ("betas", (0.9, "x")), ("weight_decay", "x"),
                                        ("eps", None)])
def test_block_optimizer_names_a_non_number_written_for_a_real_keyword(key, value):
    # heldout18 E00309: betas = 'x' met Python's "'<=' not supported" naming nothing
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)).double()
    opt = BlockOptimizer(model, lr=0.01)
    opt.param_groups[0][key] = value
    (model(torch.ones(2, 3, dtype=torch.float64)) ** 2).sum().backward()
    with pytest.raises(TypeError, match=key):
        opt.step()


def _stepped_block():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)).double()
    opt = BlockOptimizer(model, switch_every=3, lr=0.01)
    for _ in range(4):
        opt.zero_grad()
        (model(torch.ones(2, 3, dtype=torch.float64)) ** 2).sum().backward()
        opt.step()
    return opt


@pytest.mark.parametrize("ids", [[0, 1], [0, 1, 2, 7], [3, 2, 1, 0], "0123", None])
def test_block_optimizer_load_refuses_other_parameter_ids_naming_them(ids):
    # heldout18 E00400: fewer ids met torch's own "doesn't match the size of optimizer's group"; a reordered
    # or out-of-range list was loaded in silence
    state = copy.deepcopy(_stepped_block().state_dict())
    state["param_groups"][0]["params"] = ids
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)).double()
    fresh = BlockOptimizer(model, lr=0.01, switch_every=3)
    with pytest.raises(ValueError, match=r"\['params'\]"):
        fresh.load_state_dict(state)
    fresh.load_state_dict(_stepped_block().state_dict())    # the saved one loads


_KIND_CASES = [(torch.optim.SGD, "momentum", True), (torch.optim.SGD, "dampening", 1j),
               (torch.optim.SGD, "dampening", "x"), (torch.optim.AdamW, "eps", True),
               (torch.optim.ASGD, "t0", True), (torch.optim.Rprop, "step_sizes", np.array([1e-6, 50.0])),
               (torch.optim.Adagrad, "lr_decay", True), (torch.optim.RMSprop, "centered", None),
               (torch.optim.AdamW, "betas", np.array([0.9, 0.99]))]


@pytest.mark.parametrize("base, key, value", _KIND_CASES)
def test_block_optimizer_refuses_a_base_keyword_of_another_kind_than_its_default(base, key, value):
    # red18c: momentum=True ran as 1.0, dampening='x' stepped, centered=None ran as False, ...
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
    with pytest.raises(TypeError, match=key):
        BlockOptimizer(model, base=base, lr=0.01, **{key: value})
    opt = BlockOptimizer(model, base=base, lr=0.01)
    opt.param_groups[0][key] = value
    model(torch.ones(2, 3)).pow(2).mean().backward()
    with pytest.raises(TypeError, match=key):
        opt.step()


@pytest.mark.parametrize("key", ["lr", "expansion_lr_scale"])
@pytest.mark.parametrize("value", ["x", None, [0.1], 1j, np.array([0.1, 0.2])])
def test_block_expansion_hooks_name_a_rate_of_the_wrong_type(key, value):
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    opt = BlockOptimizer(model, base=torch.optim.SGD, lr=0.01, switch_every=1, expansion="sgd")
    opt.param_groups[0][key] = value
    with pytest.raises((TypeError, ValueError), match=key):
        model(torch.ones(2, 4)).pow(2).mean().backward()


@pytest.mark.parametrize("dtype", [torch.float16, torch.complex64])
def test_optimizers_models_converted_after_construction_are_refused_at_forward(dtype):
    # red18c: .half() ran in float16 in silence; complex met torch's "clamp is not supported"
    from algorithms.optimizers import LowRankExpansion, Transformer
    with pytest.raises(TypeError, match="dtype"):
        MLP(3, 1, 4, 2).to(dtype)(torch.randn(5, 3).to(dtype))
    with pytest.raises(TypeError, match="dtype"):
        Transformer(8, 8, 1).to(dtype)(torch.randint(0, 8, (2, 8)))
    with pytest.raises(TypeError, match="linear"):
        LowRankExpansion(torch.nn.Linear(3, 2).to(dtype), 1)
    layer = LowRankExpansion(torch.nn.Linear(3, 2), 1).to(dtype)
    with pytest.raises(TypeError, match="dtype"):
        layer(torch.randn(2, 3).to(dtype))
