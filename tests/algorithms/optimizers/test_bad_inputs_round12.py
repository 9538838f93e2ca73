"""#43 round 12 (working range) for the optimizers family: one test per class, with its message's words."""

from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.optimizers import (
    MLP,
    SOAP,
    BlockCoordinateDescent,
    BlockOptimizer,
    LowRankExpansion,
    MarkovLanguageTask,
    Muon,
    OptimizerTraining,
    Shampoo,
    TrainingProblem,
    newton_schulz,
    param_groups,
)

WR = "outside the package's working range"


def _pair():
    return torch.nn.Parameter(torch.ones(3, 2)), torch.nn.Parameter(torch.ones(2))


# ------------------ class 1: an lr / weight_decay edit in param_groups skipped the range (the free fast path)
@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("lr, wd, words", [
    (1e-39, 0.0, r"param_groups\[0\]\['lr'\] must be 0 or >= 1\.175e-38"),
    (5e-324, 0.0, r"param_groups\[0\]\['lr'\] must be 0 or >= 1\.175e-38"),
    (0.0, 1e300, rf"param_groups\[0\]\['weight_decay'\] = 1e\+300 is {WR}"),
    (0.0, 1e39, rf"param_groups\[0\]\['weight_decay'\] = 1e\+39 is {WR}"),
])
def test_an_edited_lr_or_weight_decay_is_held_to_the_constructors_rule(cls, lr, wd, words):
    w, b = _pair()
    opt = cls([w, b], lr=0.01)
    w.grad, b.grad = torch.ones(3, 2), torch.ones(2)
    opt.step()
    opt.param_groups[0]["lr"], opt.param_groups[0]["weight_decay"] = lr, wd
    with pytest.raises(ValueError, match=words):
        opt.step()
    opt.param_groups[0]["lr"], opt.param_groups[0]["weight_decay"] = 1.2e-38, 0.0   # just inside: a step
    opt.step()
    opt.param_groups[0]["lr"], opt.param_groups[0]["weight_decay"] = 0.0, 3.4e38
    opt.step()


# ------------------ class 2: a base optimizer's keywords went to torch unchecked (BlockOptimizer, training)
@pytest.mark.parametrize("kwargs, words", [
    ({"weight_decay": 1e300}, rf"weight_decay = 1e\+300 is {WR}"),
    ({"weight_decay": 1e39}, rf"weight_decay = 1e\+39 is {WR}"),
    ({"eps": 1e300}, rf"eps = 1e\+300 is {WR}"),
    ({"betas": (0.9, 1e39)}, rf"betas\[1\] = 1e\+39 is {WR}"),
    ({"weight_decay": 1e3}, r"lr·weight_decay must be <= 1"),
])
def test_block_optimizer_base_keywords_are_in_the_working_range(kwargs, words):
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
    with pytest.raises(ValueError, match=words):
        BlockOptimizer(model, lr=0.01, **kwargs)


def test_training_hyperparameters_are_in_the_working_range():
    with pytest.raises(ValueError, match=rf"hyperparameters: eps = 1e\+300 is {WR}"):
        OptimizerTraining("adamw", lr=0.01, hyperparameters={"eps": 1e300})
    with pytest.raises(ValueError, match=rf"hyperparameters: adamw_betas\[0\] = 1e\+39 is {WR}"):
        OptimizerTraining("muon", lr=0.01, hyperparameters={"adamw_betas": (1e39, 0.9)})
    assert OptimizerTraining("adamw", lr=0.01, hyperparameters={"eps": 1e-8}).hyperparameters == {"eps": 1e-8}


# ------------------ class 3: BlockOptimizer's param_groups edits: the lr floor skipped, base keywords ignored
def _block_run():
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
    opt = BlockOptimizer(model, switch_every=2, lr=0.01, expansion="sgd")

    def step():
        opt.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        opt.step()
    step()
    return opt, step


@pytest.mark.parametrize("key, value, words", [
    ("lr", 1e-39, rf"lr = 1e-39 is {WR}"),
    ("expansion_lr_scale", 1e-300, rf"expansion_lr_scale = 1e-300 is {WR}"),
    ("weight_decay", -5.0, "weight_decay must be finite and >= 0"),
    ("weight_decay", 1e300, rf"weight_decay = 1e\+300 is {WR}"),
    ("betas", (2.0, 0.9), "Invalid beta parameter"),
])
def test_block_optimizer_edits_are_checked_not_ignored(key, value, words):
    opt, step = _block_run()
    opt.param_groups[0][key] = value
    with pytest.raises(ValueError, match=words):
        step()


def test_block_optimizer_adopts_a_valid_base_keyword_edit():
    opt, step = _block_run()
    opt.param_groups[0]["weight_decay"] = 0.5
    step()
    assert opt.base_optimizer.param_groups[0]["weight_decay"] == 0.5
    step()
    step()                                  # a switch rebuilds the base with the edit
    assert opt.base_optimizer.param_groups[0]["weight_decay"] == 0.5


# ------------------ class 4: a valid lr scaled by the μP rule out of [LR_MIN, LR_MAX], named at solve by a
# number the user never passed (muon) or stepped in silence (adamw)
@pytest.mark.parametrize("optimizer", ["muon", "adamw", "shampoo"])
@pytest.mark.parametrize("lr, base_width, scaled", [(1.2e-38, 8, r"\de-39"), (1e10, 64, r"\S+e\+10")])
def test_a_scaled_lr_outside_the_optimizers_range_names_lr_and_base_width(optimizer, lr, base_width, scaled):
    task = MarkovLanguageTask(vocab_size=8, context=8, seed=0)
    problem = TrainingProblem(MLP(8, 8, width=32, depth=1, seed=0), task, steps=2, eval_size=16)
    words = rf"lr = {lr!r} times the .* \(width 32 against base_width {base_width}\) is {scaled}"
    with pytest.raises(ValueError, match=words):
        solve(problem, OptimizerTraining(optimizer, lr=lr, base_width=base_width), seed=0)
    with pytest.raises(ValueError, match=words):
        param_groups(MLP(8, 8, width=32, depth=1, seed=0), optimizer, lr, base_width=base_width)


# ------------------ class 5: hand-written checks without the working range (newton_schulz's eps and matrix,
# its coefficients, Shampoo's exponent, BlockCoordinateDescent's lr·weight_decay)
@pytest.mark.parametrize("call, words", [
    (lambda: newton_schulz(torch.ones(3, 2), eps=1e39), rf"eps = 1e\+39 is {WR}"),
    (lambda: newton_schulz(torch.ones(3, 2), eps=1e-39), rf"eps = 1e-39 is {WR}"),
    (lambda: newton_schulz(torch.ones(3, 2), eps=5e-324), rf"eps = 5e-324 is {WR}"),
    (lambda: newton_schulz(torch.full((3, 2), 1e300, dtype=torch.float64)),
     rf"matrix has an entry of magnitude 1e\+300, {WR}"),
    (lambda: newton_schulz(torch.ones(3, 2), ns_coefficients=(1e39, 0.0, 0.0), ns_steps=0),
     rf"ns_coefficients\[0\] = 1e\+39 is {WR}"),
    (lambda: Muon([torch.nn.Parameter(torch.ones(3, 2))], ns_coefficients=(3.0, -1e39, 1.0)),
     rf"ns_coefficients\[1\] = -1e\+39 is {WR}"),
    (lambda: Shampoo([torch.nn.Parameter(torch.ones(2, 2))], exponent=5e-324), rf"exponent = 5e-324 is {WR}"),
    (lambda: Shampoo([torch.nn.Parameter(torch.ones(2, 2))], exponent=1e-39), rf"exponent = 1e-39 is {WR}"),
    (lambda: BlockCoordinateDescent(weight_decay=2**64), r"lr·weight_decay must be <= 1"),
])
def test_hand_checked_reals_are_held_to_the_working_range(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_just_inside_the_working_range_is_valid():
    assert bool(torch.isfinite(newton_schulz(torch.ones(3, 2), eps=1.2e-38)).all())
    assert bool(torch.isfinite(newton_schulz(torch.full((3, 2), 3e38, dtype=torch.float64))).all())
    assert bool(torch.isfinite(newton_schulz(torch.ones(3, 2), ns_coefficients=(Fraction(3), np.float32(-3.0),
                                                                                    1.0))).all())
    Shampoo([torch.nn.Parameter(torch.ones(2, 2))], exponent=1.2e-38)


# ------------------ class 6 (changed after construction): optimizer state written in place or replaced
@pytest.mark.parametrize("cls, key", [(Muon, "momentum_buffer"), (Shampoo, "momentum"), (SOAP, "momentum")])
@pytest.mark.parametrize("edit, words", [
    ("nan", "holds NaN or inf"), ("shape", r"has shape \(7,\), expected \(4, 3\)"),
    ("vector", "holds NaN or inf"), ("dtype", "must be float32 or float64"), ("data", "holds NaN or inf"),
])
def test_optimizer_state_changed_after_a_step_is_checked(cls, key, edit, words):
    torch.manual_seed(0)
    w, b = torch.nn.Parameter(torch.randn(4, 3)), torch.nn.Parameter(torch.randn(3))
    opt = cls([w, b])

    def step():
        opt.zero_grad()
        (w.sum() ** 2 + (b ** 2).sum()).backward()
        opt.step()
    step()
    if edit == "nan":
        opt.state[w][key].fill_(float("nan"))          # stepped NaN into the weights, no warning
    elif edit == "shape":
        opt.state[w][key] = torch.zeros(7)              # failed inside torch naming nothing
    elif edit == "vector":
        opt.state[b]["exp_avg"].fill_(float("inf"))
    elif edit == "dtype":
        opt.state[w][key] = opt.state[w][key].to(torch.int32)
    else:
        opt.state[w][key].data.fill_(float("nan"))     # .data bumps no version counter
    with pytest.raises((ValueError, TypeError), match=rf"state\[param [01]\]\['\w+'\] (was changed after "
                                                      rf"the last step: it )?{words}"):
        step()


def test_a_valid_state_edit_and_a_loaded_state_still_step():
    w = torch.nn.Parameter(torch.randn(4, 3))
    opt = Muon([w])
    w.grad = torch.ones(4, 3)
    opt.step()
    opt.state[w]["momentum_buffer"].mul_(0.5)
    opt.step()
    opt.load_state_dict(opt.state_dict())
    opt.step()
    assert bool(torch.isfinite(w).all())


# ------------------ class 7: a model's submodules replaced after construction
def test_model_submodules_replaced_after_construction_are_refused_by_name():
    net = MLP(4, 3, 8, 2)
    net.readout = torch.nn.Linear(8, 7)                 # answered 7 outputs for out_features 3, in silence
    with pytest.raises(ValueError, match=r"MLP's submodules or parameters were replaced .*readout"):
        net(torch.ones(2, 4))
    net = MLP(4, 3, 8, 2)
    net.blocks[0] = torch.nn.Linear(8, 5, bias=False)    # a shape error inside torch
    with pytest.raises(ValueError, match=r"blocks\.0\.weight: \(8, 8\) -> \(5, 8\)"):
        net(torch.ones(2, 4))
    net = MLP(4, 3, 8, 2)
    net.readout.weight = torch.nn.Parameter(net.readout.weight.detach().double())   # torch's dtype error
    with pytest.raises(ValueError, match="MLP's parameters must share one dtype"):
        net(torch.ones(2, 4))
    expansion = LowRankExpansion(torch.nn.Linear(4, 4), 2)
    expansion.U.data = torch.zeros(4, 3)                 # through .data: torch's matmul error
    with pytest.raises(ValueError, match=r"U: \(4, 2\) -> \(4, 3\)"):
        expansion(torch.ones(1, 4))
    assert MLP(4, 3, 8, 2).double()(torch.ones(2, 4, dtype=torch.float64)).shape == (2, 3)


def test_checked_keywords_keep_ints_as_ints():
    # precondition_frequency=2 became 2.0 and Shampoo refused it as not an int
    training = OptimizerTraining("shampoo", lr=0.01, hyperparameters={"precondition_frequency": np.int64(2)})
    assert type(training.hyperparameters["precondition_frequency"]) is int


def test_low_rank_expansion_parts_replaced_or_out_of_range_are_refused_by_name():
    expansion = LowRankExpansion(torch.nn.Linear(4, 4), 2)
    expansion.linear = torch.nn.Linear(5, 5)            # torch's matmul error before
    with pytest.raises(ValueError, match=r"LowRankExpansion's submodules or parameters were replaced"):
        expansion(torch.ones(1, 4))
    expansion = LowRankExpansion(torch.nn.Linear(4, 4), 2)
    with pytest.raises(ValueError, match="rank is fixed by LowRankExpansion's construction"):
        expansion.rank = 3                              # kept while U, V had rank 2
    layer = torch.nn.Linear(4, 4).double()
    with torch.no_grad():
        layer.weight[0, 0] = 1e300
    with pytest.raises(ValueError, match=rf"linear's weight has an entry of magnitude 1e\+300, {WR}"):
        LowRankExpansion(layer, 2)


def test_a_factory_over_other_tensors_is_refused_not_run():
    task = MarkovLanguageTask(vocab_size=8, context=8, seed=0)
    problem = TrainingProblem(MLP(8, 8, width=16, depth=1, seed=0), task, steps=3, eval_size=16)

    def elsewhere(groups, lr, **kw):
        return torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr)
    with pytest.raises(ValueError, match="factory must build an optimizer over the parameter groups it is"):
        solve(problem, OptimizerTraining("adamw", lr=0.01, factory=elsewhere), seed=0)   # MaxIters before


# ------------------ class 8: a choice or dtype given an array met numpy's "truth value ... is ambiguous"
@pytest.mark.parametrize("call, name", [
    (lambda v: MLP(4, 3, 8, 2, dtype=v), "dtype"),
    (lambda v: newton_schulz(torch.ones(3, 2), dtype=v), "dtype"),
    (lambda v: Muon([torch.nn.Parameter(torch.ones(3, 2))], ns_dtype=v), "ns_dtype"),
    (lambda v: Muon([torch.nn.Parameter(torch.ones(3, 2))], adjust_lr_fn=v), "adjust_lr_fn"),
    (lambda v: Shampoo([torch.nn.Parameter(torch.ones(3, 2))], grafting=v), "grafting"),
    (lambda v: Shampoo([torch.nn.Parameter(torch.ones(3, 2))], root_dtype=v), "root_dtype"),
    (lambda v: BlockCoordinateDescent(order=v), "order"),
    (lambda v: BlockCoordinateDescent(expansion=v), "expansion"),
])
@pytest.mark.parametrize("value", [np.zeros(3), np.zeros(0), torch.ones(2)])
def test_an_array_for_a_choice_is_refused_naming_it(call, name, value):
    with pytest.raises((TypeError, ValueError), match=name):
        call(value)


def test_block_optimizer_refuses_nan_written_into_its_base_state():
    opt, step = _block_run()
    state = opt.base_optimizer.state
    state[next(iter(state))]["exp_avg"].fill_(float("nan"))
    with pytest.raises(ValueError, match=r"BlockOptimizer \(its base optimizer\)\.step: state\[param 0\]"):
        step()
