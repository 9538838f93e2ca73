"""Round 16 (issue #43): settings that shape an optimizer's state, edited in param_groups after a step."""

import pytest
import torch

from algorithms.optimizers import SOAP, BlockOptimizer, Muon, Shampoo


def _stepped(cls):
    w = torch.nn.Parameter(torch.randn(5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0)))
    opt = cls([w], lr=0.01, precondition_frequency=1)
    for _ in range(2):
        w.grad = torch.ones_like(w)
        opt.step()
    return w, opt


@pytest.mark.parametrize("cls", [Shampoo, SOAP])
@pytest.mark.parametrize(("key", "value"), [("block_size", 2), ("max_precond_dim", 3),
                                            ("max_precond_dim", 4)])
def test_state_shaping_edit_is_refused_by_name(cls, key, value):
    # block_size failed inside torch ("expanded size"); max_precond_dim was ignored in silence (the statistics
    # of the old value stayed in use)
    w, opt = _stepped(cls)
    before = w.detach().clone()
    opt.param_groups[0][key] = value
    w.grad = torch.ones_like(w)
    with pytest.raises(ValueError, match=rf"param_groups\[0\] was edited \({key}\)"):
        opt.step()
    assert torch.equal(w.detach(), before)


@pytest.mark.parametrize("cls", [Shampoo, SOAP])
def test_state_shaping_edit_back_to_the_built_value_steps(cls):
    w, opt = _stepped(cls)
    opt.param_groups[0]["block_size"] = None     # the value it was built with: a new object, same settings
    w.grad = torch.ones_like(w)
    opt.step()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("value", [-1, -5, 2.5, True, "3", None])
def test_step_count_edited_after_a_step_is_refused_by_name(cls, value):
    # adam_step = -1 stepped NaN into the weights; -5 / "3" / None reached bare Python errors; 2.5 was taken
    w = torch.nn.Parameter(torch.ones(3))
    opt = cls([w], lr=0.1)
    w.grad = torch.ones_like(w)
    opt.step()
    opt.state[w]["adam_step"] = value
    with pytest.raises(ValueError, match=r"state\[param 0\]\['adam_step'\] was changed after the last step"):
        opt.step()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("after_a_step", [False, True])
def test_parameter_appended_twice_is_refused_by_name(cls, after_a_step):
    # it took two steps per step in silence
    w, v = torch.nn.Parameter(torch.ones(2, 2)), torch.nn.Parameter(torch.ones(3))
    opt = cls([w, v], lr=0.1)
    if after_a_step:
        w.grad, v.grad = torch.ones_like(w), torch.ones_like(v)
        opt.step()
    opt.param_groups[0]["params"].append(w)
    w.grad, v.grad = torch.ones_like(w), torch.ones_like(v)
    with pytest.raises(ValueError, match=r"param_groups\[0\]\['params'\] was edited: params lists a tensor"):
        opt.step()


def _block_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4), torch.nn.Tanh(),
                               torch.nn.Linear(4, 4))


@pytest.mark.parametrize(("saved", "loading"), [(dict(order="random", seed=1), dict(order="random", seed=2)),
                                                (dict(order="ascending"), dict(order="descending"))])
def test_block_state_dict_of_another_order_is_refused_by_name(saved, loading):
    # the base state of the saving run's active block was loaded onto another block, in silence
    x = torch.randn(6, 4, generator=torch.Generator().manual_seed(1))
    model = _block_model()
    opt = BlockOptimizer(model, lr=0.01, switch_every=3, **saved)
    for _ in range(4):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()
    other = BlockOptimizer(_block_model(), lr=0.01, switch_every=3, **loading)
    key = "seed" if "seed" in loading else "order"
    with pytest.raises(ValueError, match=rf"saved by a BlockOptimizer with {key}="):
        other.load_state_dict(opt.state_dict())


def test_block_param_appended_after_construction_is_refused_by_name():
    # it was never stepped, in silence
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    extra = torch.nn.Parameter(torch.ones(3))
    opt = BlockOptimizer(model, lr=0.1, switch_every=1)
    opt.param_groups[0]["params"].append(extra)
    (model(torch.ones(1, 2)).sum() + (extra**2).sum()).backward()
    with pytest.raises(ValueError, match=r"param_groups\[0\]\['params'\] was edited"):
        opt.step()


def test_muon_state_dict_of_the_other_head_is_refused_by_name():
    # the head's momentum (or AdamW moments) sat unused and the other step restarted from zero, in silence
    g = torch.Generator().manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(*s, generator=g)) for s in [(5, 3), (4, 5)]]
    opt = Muon(params, lr=0.02, head="muon")
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()
    other = Muon([torch.nn.Parameter(p.detach().clone()) for p in params], lr=0.02, head="adamw")
    with pytest.raises(ValueError, match="head='muon'"):
        other.load_state_dict(opt.state_dict())


def _callback_pairs():
    from tests.bad_input_sweep import pairs

    names = {"SGDTraining", "SAMTraining", "BlockCoordinateDescent", "FullFinetune"}
    return [(p, a) for p, a in pairs() if type(a).__name__ in names]


@pytest.mark.parametrize("index", range(6))
def test_callback_true_on_the_converged_record_terminates(index):
    # the convergence test ran before the callback's answer: a True on the last (converged) record
    # ended Success
    from algorithms import RetCode, solve

    chosen = _callback_pairs()
    if index >= len(chosen):
        pytest.skip("fewer pairs")
    problem, algorithm = chosen[index]
    full = solve(problem, algorithm, seed=3, store_trace=True)
    if full.retcode != RetCode.Success:
        pytest.skip("not a converging pair")
    calls = []
    result = solve(problem, algorithm, seed=3,
                   callback=lambda record: (calls.append(1), len(calls) >= len(full.trace))[1])
    assert result.retcode == RetCode.Terminated
    assert len(calls) == len(full.trace)


def test_shampoo_grafting_edited_in_after_a_step_is_refused_by_name():
    # V started at 0 under step t's bias correction: a first grafted step of 1.09 for at most 0.035
    w = torch.nn.Parameter(torch.randn(4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)))
    opt = Shampoo([w], lr=0.1)
    for _ in range(2):
        w.grad = torch.ones_like(w)
        opt.step()
    opt.param_groups[0]["grafting"] = "adam"
    with pytest.raises(ValueError, match=r"param_groups\[0\] was edited \(grafting\)"):
        opt.step()


@pytest.mark.parametrize("bad", [torch.zeros(3), torch.zeros(2, dtype=torch.float64)], ids=["shape", "dtype"])
def test_block_base_state_edited_after_a_step_is_refused_by_name(bad):
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    opt = BlockOptimizer(model, lr=0.1, switch_every=5)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    bias = next(p for p in opt.base_optimizer.state if p.ndim == 1)
    opt.base_optimizer.state[bias]["exp_avg"] = bad
    model(torch.ones(1, 2)).sum().backward()
    with pytest.raises((TypeError, ValueError), match=r"\['exp_avg'\]"):
        opt.step()


@pytest.mark.parametrize("base", [Shampoo, SOAP])
def test_block_over_shampoo_or_soap_reloads_its_own_state_dict(base):
    # refused as "a state of another model": the tile stacks are not of the parameter's shape
    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))

    x = torch.ones(2, 3)
    first = model()
    opt = BlockOptimizer(first, base=base, lr=0.01, switch_every=3)
    for _ in range(4):
        opt.zero_grad()
        first(x).pow(2).sum().backward()
        opt.step()
    second = model()
    second.load_state_dict(first.state_dict())
    other = BlockOptimizer(second, base=base, lr=0.01, switch_every=3)
    other.load_state_dict(opt.state_dict())
    for m, o in ((first, opt), (second, other)):
        for _ in range(3):
            o.zero_grad()
            m(x).pow(2).sum().backward()
            o.step()
    assert all(torch.equal(p, q) for p, q in zip(first.parameters(), second.parameters(), strict=True))


def test_block_steps_after_a_documented_nan_step_do_not_blame_the_user():
    # "A NaN/inf gradient goes to the base optimizer unchanged": the next step said the NaN in the base
    # state was "written after the last step, e.g. through .data"
    model = _block_model()
    opt = BlockOptimizer(model, lr=0.01, switch_every=5)
    for k in range(4):
        opt.zero_grad()
        (model(torch.ones(1, 4)).sum() * (float("nan") if k == 1 else 1.0)).backward()
        opt.step()
    assert all(torch.isnan(p).all() for p in opt._base_optimizer.param_groups[0]["params"])
    model = _block_model()
    opt = BlockOptimizer(model, lr=0.01, switch_every=5)
    opt.zero_grad()
    model(torch.ones(1, 4)).sum().backward()
    opt.step()
    next(iter(opt._base_optimizer.state.values()))["exp_avg"].data.fill_(float("nan"))
    opt.zero_grad()
    model(torch.ones(1, 4)).sum().backward()
    with pytest.raises(ValueError, match=r"exp_avg.*through \.data"):
        opt.step()


def _built(name, model):
    from algorithms.nets import SAM
    return {"Muon": lambda: Muon(model.parameters(), lr=0.01),
            "Shampoo": lambda: Shampoo(model.parameters(), lr=0.01),
            "SOAP": lambda: SOAP(model.parameters(), lr=0.01),
            "BlockOptimizer": lambda: BlockOptimizer(model, lr=0.01, switch_every=2),
            "SAM": lambda: SAM(model.parameters(), lr=0.01)}[name]()


@pytest.mark.parametrize("name", ["Muon", "Shampoo", "SOAP", "BlockOptimizer", "SAM"])
@pytest.mark.parametrize("bad", ["x", [1.0]], ids=["str", "float-entry"])
def test_params_replaced_by_non_tensors_is_refused_naming_params(name, bad):
    # torch's AttributeError ("'str' object has no attribute 'grad'") from zero_grad or the step
    model = _block_model()
    opt = _built(name, model)
    model(torch.ones(2, 4)).sum().backward()
    opt.param_groups[0]["params"] = bad
    with pytest.raises(TypeError, match=r"param_groups\[0\]\['params'\]"):
        opt.zero_grad()
    with pytest.raises(TypeError, match=r"param_groups\[0\]\['params'\]"):
        if name == "SAM":
            opt.first_step()
        else:
            opt.step()


@pytest.mark.parametrize("base", ["LBFGS", "SAM"])
def test_block_base_whose_step_needs_a_closure_is_refused_naming_base(base):
    # LBFGS: Python's "step() missing 1 required positional argument: 'closure'" at the first step
    from algorithms.nets import SAM
    cls = torch.optim.LBFGS if base == "LBFGS" else SAM
    with pytest.raises(TypeError, match=r"base must step without a closure.*" + base):
        BlockOptimizer(_block_model(), base=cls, lr=0.01)


def test_optimizer_factories_building_a_closure_optimizer_are_refused_by_name():
    # the trainers call step() after backward: LBFGS failed with Python's bare missing-argument TypeError
    from algorithms import solve
    from algorithms.optimizers import OptimizerTraining
    from algorithms.optimizers.models import MLP
    from algorithms.optimizers.tasks import MarkovLanguageTask
    from algorithms.optimizers.training import TrainingProblem
    task = MarkovLanguageTask(vocab_size=8, context=8, seed=0)
    problem = TrainingProblem(MLP(8, 8, width=16, depth=1, seed=0), task, steps=3, eval_size=16)
    def lbfgs(groups, lr, **kw):
        return torch.optim.LBFGS([p for g in groups for p in g["params"]], lr=lr)

    with pytest.raises(TypeError, match=r"factory must build an optimizer that steps without a closure"):
        solve(problem, OptimizerTraining("adamw", lr=0.01, factory=lbfgs), seed=0)
