"""#43 round 9 (pre-audit sweep) for the optimizers family: each class found, with its message's words."""

import math

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.optimizers import (
    MLP,
    SOAP,
    BlockCoordinateDescent,
    BlockOptimizer,
    FinetuneTask,
    MarkovLanguageTask,
    Muon,
    OptimizerTraining,
    Shampoo,
    TrainingProblem,
    Transformer,
    independent_weight_decay,
    lr_multiplier,
    markov_finetune_task,
    newton_schulz,
    param_groups,
    singular_value_map,
)


def _params():
    torch.manual_seed(0)
    return [torch.nn.Parameter(torch.randn(4, 3)), torch.nn.Parameter(torch.randn(4))]


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize(("lr", "words"), [(1e308, r"lr = 1e\+308 is outside the package's working range"),
                                           (2**63, r"lr must be <= 1e\+10"), (2**64, r"lr must be <= 1e\+10"),
                                           (1e11, r"lr must be <= 1e\+10")])
def test_a_learning_rate_past_the_cap_is_refused(cls, lr, words):
    # 1e308 failed inside torch's add_ ("cannot be converted to type float without overflow"), 2**64 wrote inf
    # (round 12: 1e308 is outside the package's working range, refused before the optimizers' own cap)
    with pytest.raises(ValueError, match=words):
        cls(_params(), lr=lr, weight_decay=0.0)


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_decay_product_past_one_is_refused_naming_both(cls):
    with pytest.raises(ValueError, match=r"lr·weight_decay must be <= 1.*lr=0\.02, weight_decay=1e\+30"):
        cls(_params(), lr=0.02, weight_decay=1e30)
    with pytest.raises(ValueError, match=r"weight_decay = 1e\+308 is outside the package's working range"):
        cls(_params(), lr=0.02, weight_decay=1e308)


def test_zero_lr_with_any_weight_decay_stays_valid():
    Muon(_params(), lr=0.0, weight_decay=3.4e38)     # lr 0: no step, the decay multiplies by 1


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_learning_rate_edited_past_the_cap_is_refused_at_step(cls):
    params = _params()
    opt = cls(params, lr=0.01, weight_decay=0.0)
    for p in params:
        p.grad = torch.ones_like(p)
    opt.param_groups[0]["lr"] = 1e11
    with pytest.raises(ValueError, match=r"param_groups\[0\]\['lr'\] must be <= 1e\+10"):
        opt.step()
    opt.param_groups[0]["lr"] = 1e308
    with pytest.raises(ValueError, match=r"param_groups\[0\]\['lr'\] = 1e\+308 is outside the"):
        opt.step()
    opt.param_groups[0]["lr"], opt.param_groups[0]["weight_decay"] = 0.5, 10.0
    with pytest.raises(ValueError, match=r"lr·weight_decay must be <= 1"):
        opt.step()


@pytest.mark.parametrize("name", ["eps", "adamw_eps"])
def test_muon_eps_past_bfloat16s_range_is_refused(name):
    with pytest.raises(ValueError, match=rf"{name} must be <= 1e\+38"):
        Muon(_params(), **{name: 2e38})
    with pytest.raises(ValueError, match=rf"{name} = 1e\+308 is outside the package's working range"):
        Muon(_params(), **{name: 1e308})


def test_coefficients_whose_iteration_overflows_are_refused():
    with pytest.raises(ValueError, match=r"ns_coefficients \(1e\+30, 0\.0, 0\.0\) send"):
        Muon(_params(), ns_coefficients=(1e30, 0.0, 0.0))
    with pytest.raises(ValueError, match="ns_coefficients"):
        newton_schulz(torch.ones(3, 3), ns_coefficients=(1e30, 0.0, 0.0))
    with pytest.raises(ValueError, match="ns_coefficients"):
        singular_value_map([0.5], ns_coefficients=(1e30, 0.0, 0.0))
    Muon(_params(), ns_coefficients=(3.0, -3.0, 1.0), ns_steps=99)    # bounded on [0, 1]: valid


@pytest.mark.parametrize("eps", [5e-324, 1e-320, 1e-300])
def test_newton_schulz_eps_below_the_dtypes_normal_range_maps_zero_to_zero(eps):
    # 0/0 = NaN in silence before: the normalization floor rounded to 0 in bfloat16. Round 12: an eps below
    # the working range is refused by name; its smallest, 1.18e-38, is normal in every dtype
    with pytest.raises(ValueError, match=f"eps = {eps!r} is outside the package's working range"):
        newton_schulz(torch.zeros(4, 3), eps=eps)
    out = newton_schulz(torch.zeros(4, 3), eps=1.2e-38)
    assert bool(torch.isfinite(out).all()) and float(out.abs().max()) == 0.0


@pytest.mark.parametrize("eps", [1e308, 10**400])
def test_newton_schulz_eps_past_the_dtype_is_refused(eps):
    with pytest.raises(ValueError, match=r"eps (must be|= 1e\+308 is outside the package's working range)"):
        newton_schulz(torch.ones(4, 3), eps=eps)
    with pytest.raises(ValueError, match=r"eps must be <= 3.39e\+38 \(the largest torch.bfloat16"):
        newton_schulz(torch.ones(4, 3), eps=3.4e38)


def test_newton_schulz_refuses_a_sparse_matrix():
    with pytest.raises(TypeError, match="matrix must be a dense"):
        newton_schulz(torch.ones(3, 3).to_sparse())


@pytest.mark.parametrize("name", ["d_in_ratio", "d_out_ratio", "depth_ratio", "blocks_in_ratio",
                                  "blocks_out_ratio"])
@pytest.mark.parametrize("value", [5e-324, 1e-320])
def test_lr_multiplier_subnormal_ratios_are_refused(name, value):
    kwargs = {"d_in_ratio": 2.0, "d_out_ratio": 2.0, name: value}
    with pytest.raises(ValueError, match=rf"{name} = {value!r} is outside the package's working range"):
        lr_multiplier("shampoo", **kwargs)


def test_lr_multiplier_factor_of_ratios_at_the_working_ranges_edges_is_finite():
    # round 12: a ratio is in [1.18e-38, 3.4e38] (1e-300 is refused by name); every factor of such ratios,
    # products of two included, is finite and > 0
    with pytest.raises(ValueError, match="blocks_in_ratio = 1e-300 is outside the package's working range"):
        lr_multiplier("shampoo", 2.0, 2.0, blocks_in_ratio=1e-300)
    for rule in ("adamw", "muon", "shampoo", "soap"):
        for small, large in ((1.2e-38, 3.4e38), (3.4e38, 1.2e-38)):
            factor = lr_multiplier(rule, small, large, depth_ratio=large, blocks_in_ratio=small,
                                   blocks_out_ratio=small)
            assert 0.0 < factor < math.inf


def test_independent_weight_decay_overflow_is_refused():
    with pytest.raises(ValueError, match="base_weight_decay"):
        independent_weight_decay(1e308, width=16, base_width=64)


def test_param_groups_lr_past_the_cap_is_refused():
    with pytest.raises(ValueError, match=r"lr must be <= 1e\+10"):
        param_groups(MLP(4, 3, 8, 2), "muon", 1e11, base_width=4)
    with pytest.raises(ValueError, match=r"lr = 1e\+308 is outside the package's working range"):
        param_groups(MLP(4, 3, 8, 2), "muon", 1e308, base_width=4)


@pytest.mark.parametrize("kwargs, words", [
    ({"lr": 1e308}, r"lr = 1e\+308 is outside the package's working range"),
    ({"lr": 2**64}, r"lr must be <= 1e\+10"),
    ({"lr": 0.1, "expansion_lr_scale": 1e308}, r"expansion_lr_scale = 1e\+308 is outside the"),
    ({"lr": 0.1, "expansion_lr_scale": 1e30}, r"lr · expansion_lr_scale"),
    ({"lr": 0.1, "expansion_lr_scale": 2**63}, r"lr · expansion_lr_scale"),
])
def test_block_optimizer_rates_past_the_cap_are_refused(kwargs, words):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    with pytest.raises(ValueError, match=words):
        BlockOptimizer(model, expansion="sgd", **kwargs)
    with pytest.raises(ValueError, match=words):
        BlockCoordinateDescent(**kwargs)


def test_optimizer_training_lr_past_the_cap_is_refused():
    with pytest.raises(ValueError, match=r"lr must be <= 1e\+10"):
        OptimizerTraining("muon", lr=1e11)
    with pytest.raises(ValueError, match=r"lr = 1e\+308 is outside the package's working range"):
        OptimizerTraining("muon", lr=1e308)


@pytest.mark.parametrize("maxiters", [2**31, 2**63, 2**64])
def test_a_training_horizon_past_a_c_int_is_refused_not_run(maxiters):
    problem = TrainingProblem(MLP(8, 8, 8, 1), MarkovLanguageTask(vocab_size=8, context=4), steps=3,
                              eval_every=1, eval_size=8)
    with pytest.raises(ValueError, match=r"maxiters must be <= 2\*\*(31|63) - 1"):
        solve(problem, OptimizerTraining("adamw", lr=0.01, batch_size=4), maxiters=maxiters)


def test_pretrain_steps_past_a_c_int_is_refused():
    with pytest.raises(ValueError, match=r"pretrain_steps must be <= 2\*\*31 - 1"):
        markov_finetune_task(vocab_size=8, context=4, n=16, width=8, depth=1, pretrain_steps=2**31)


def test_sparse_and_meta_tokens_are_refused_by_name():
    task = MarkovLanguageTask(vocab_size=8, context=4, branching=2)
    tokens = task.sample(3, torch.Generator().manual_seed(0))
    with pytest.raises(TypeError, match="tokens must be a dense"):
        Transformer(8, 8, 1, context=4)(tokens[:, :-1].to_sparse())
    with pytest.raises(TypeError, match="tokens must be a dense"):
        task.loss(Transformer(8, 8, 1, context=4), tokens.to_sparse())
    ft = markov_finetune_task(vocab_size=8, context=4, n=8, width=8, depth=1, pretrain_steps=1,
                              architecture="mlp", batch_size=2)
    with pytest.raises(TypeError, match="tokens must be a dense"):
        FinetuneTask(model=ft.model, task=ft.task, tokens=ft.tokens.to_sparse(), batch_size=2)
    with pytest.raises(ValueError, match="tokens is on the meta device"):
        FinetuneTask(model=ft.model, task=ft.task, tokens=ft.tokens.to("meta"), batch_size=2)


def test_documented_boundary_values_stay_valid():
    # lr 0 (no step) and a subnormal positive lr are valid where documented
    assert math.isfinite(float(newton_schulz(torch.ones(3, 3), eps=1.2e-38).float().sum()))
    assert np.isfinite(lr_multiplier("muon", 2.0**63, 2.0**-63))
    BlockOptimizer(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)), lr=1e10)


# ---------------------------------------------------------------- heldout9 interim report (first run)
def _stepper(cls):
    params = _params()
    if cls is BlockOptimizer:
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
        return BlockOptimizer(model, lr=0.1), list(model.parameters())
    return cls(params, lr=0.01), params


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP, BlockOptimizer])
@pytest.mark.parametrize("closure, words", [
    (dict, "got the class dict"),
    (lambda: None, "got NoneType"),
    (lambda: "oops", "got str"),
    (lambda: {"value": 1.0}, "got dict"),
    (lambda: (x for x in range(2)), "got generator"),
    (lambda: torch.zeros(2), r"got a tensor of shape \(2,\)"),
])
def test_step_refuses_a_closure_that_is_no_loss_function(cls, closure, words):
    opt, params = _stepper(cls)
    for p in params:
        p.grad = torch.ones_like(p)
    with pytest.raises(TypeError, match=rf"closure must .*{words}"):
        opt.step(closure)


def test_step_refuses_a_coroutine_closure_and_closes_it():
    async def coroutine():
        return 1.0

    opt, _ = _stepper(SOAP)
    with pytest.raises(TypeError, match=r"closure must return the loss.*got coroutine"):
        opt.step(coroutine)


def test_step_takes_a_closure_returning_a_number_or_a_scalar_tensor():
    opt, params = _stepper(Muon)
    for p in params:
        p.grad = torch.ones_like(p)
    assert opt.step(lambda: 1.5) == 1.5
    assert float(opt.step(lambda: torch.tensor([2.0]))) == 2.0


def test_a_model_with_nan_or_meta_weights():
    task = MarkovLanguageTask(vocab_size=8, context=4)
    model = MLP(8, 8, 8, 1)
    with torch.no_grad():
        model.embed.weight[0, 0] = float("nan")
    # TrainingProblem takes it (documented: the run is Diverged before any step; a claim relies on it)
    run = solve(TrainingProblem(model, task, steps=3), OptimizerTraining("adamw"))
    assert run.retcode.value == "Diverged"
    assert "Diverged`` before any step" in TrainingProblem.__doc__
    ft = markov_finetune_task(vocab_size=8, context=4, n=8, width=8, depth=1, pretrain_steps=1,
                              architecture="mlp", batch_size=2)
    with pytest.raises(ValueError, match="model has NaN or inf"):
        FinetuneTask(model=model, task=ft.task, tokens=ft.tokens, batch_size=2)
    with pytest.raises(ValueError, match="model is on the meta device"):
        TrainingProblem(MLP(8, 8, 8, 1).to("meta"), task, steps=3)
