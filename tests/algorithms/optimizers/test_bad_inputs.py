"""Bad inputs to every public callable of ``algorithms.optimizers``: rejected early, by our own
validation, with a message naming the argument and what was expected."""

import copy
import pickle

import numpy as np
import pytest
import torch

import algorithms.optimizers.models as models
import algorithms.optimizers.muon as muon
import algorithms.optimizers.newton_schulz as newton_schulz_module
import algorithms.optimizers.scaling as scaling
import algorithms.optimizers.shampoo as shampoo
import algorithms.optimizers.soap as soap
import algorithms.optimizers.tasks as tasks
import algorithms.optimizers.training as training
from algorithms.core import SolveOptions
from algorithms.optimizers import (
    MLP,
    SOAP,
    BlockCoordinateDescent,
    BlockOptimizer,
    FinetuneTask,
    LowRankExpansion,
    MarkovLanguageTask,
    Muon,
    OptimizerTraining,
    Shampoo,
    TrainingProblem,
    Transformer,
    independent_weight_decay,
    lr_multiplier,
    newton_schulz,
    param_groups,
    run_finetune,
    singular_value_map,
)
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

MODULES = [models, muon, newton_schulz_module, scaling, shampoo, soap, tasks, training]
TASK = MarkovLanguageTask(vocab_size=8, context=4)


def _w():
    return [torch.nn.Parameter(torch.zeros(3, 3))]


def _vector():
    return [torch.nn.Parameter(torch.zeros(3))]


def _mlp():
    return MLP(8, 8, width=8, depth=1)


CASES = [
    # ------------------------------------------------------------------ optimizers
    BadInput(Muon, lambda: Muon(_w(), lr=-0.1), ValueError, ("lr", ">= 0")),
    BadInput(Muon, lambda: Muon(_w(), weight_decay=-1.0), ValueError, ("weight_decay", ">= 0"), "wd"),
    BadInput(Muon, lambda: Muon(_w(), momentum=1.0), ValueError, ("momentum", "[0, 1)"), "momentum"),
    BadInput(Muon, lambda: Muon(_w(), momentum=-0.1), ValueError, ("momentum", ">= 0"), "momentum-neg"),
    BadInput(Muon, lambda: Muon([{"params": _vector(), "use_muon": True}]), ValueError,
             ("use_muon=True", "2 or more dimensions", "(3,)"), "vector"),
    BadInput(Muon, lambda: Muon(_w(), adjust_lr_fn="rms"), ValueError, ("adjust_lr_fn",), "adjust"),
    BadInput(Muon, lambda: Muon(_w(), ns_coefficients=(1.0, 2.0)), ValueError, ("ns_coefficients",), "ns"),
    BadInput(Muon, lambda: Muon(_w(), ns_steps=-1), ValueError, ("ns_steps",), "steps"),
    BadInput(Muon, lambda: Muon(_w(), on_nonfinite="ignore"), ValueError, ("on_nonfinite", "skip"), "nf"),
    BadInput(Muon, lambda: Muon(_w(), head="sgd"), ValueError, ("head", "adamw", "muon"), "head"),
    BadInput(Muon, lambda: Muon(_w(), maximize="yes"), TypeError, ("maximize", "bool"), "maximize"),
    BadInput(Muon, lambda: Muon(_w(), foreach=1), TypeError, ("foreach", "bool"), "foreach"),
    BadInput(Muon, lambda: Muon(_w()).load_state_dict(torch.optim.AdamW(_w()).state_dict()), ValueError,
             ("state_dict", "Muon"), "foreign-state"),
    BadInput(Muon, lambda: Muon([torch.zeros(3, dtype=torch.long)]), TypeError, ("params", "floating"),
             "int-param"),
    BadInput(Shampoo, lambda: Shampoo(_w(), lr=-1.0), ValueError, ("lr", ">= 0")),
    BadInput(Shampoo, lambda: Shampoo(_w(), betas=(0.9, 1.0)), ValueError, ("betas[1]", "[0, 1)"), "beta"),
    BadInput(Shampoo, lambda: Shampoo(_w(), block_size=0), ValueError, ("block_size", ">= 1"), "block"),
    BadInput(Shampoo, lambda: Shampoo(_w(), precondition_frequency=0), ValueError,
             ("precondition_frequency", ">= 1"), "freq"),
    BadInput(Shampoo, lambda: Shampoo(_w(), exponent=1.0), ValueError, ("exponent", "(0, 0.5]"), "exp"),
    BadInput(Shampoo, lambda: Shampoo(_w(), grafting="sgd"), ValueError, ("grafting",), "graft"),
    BadInput(Shampoo, lambda: Shampoo(_w(), eps=0.0), ValueError, ("eps", "> 0"), "eps"),
    BadInput(Shampoo, lambda: Shampoo(_w(), root_dtype=torch.float16), ValueError, ("root_dtype", "float32"),
             "root-dtype"),
    BadInput(SOAP, lambda: SOAP(_w(), root_dtype="float32"), ValueError, ("root_dtype", "float64"),
             "root-dtype"),
    BadInput(Shampoo, lambda: Shampoo(_w()).load_state_dict(SOAP(_w()).state_dict()), ValueError,
             ("SOAP", "Shampoo"), "foreign-state"),
    BadInput(SOAP, lambda: SOAP(_w(), weight_decay=-0.1), ValueError, ("weight_decay", ">= 0")),
    BadInput(SOAP, lambda: SOAP(_w(), shampoo_beta=1.5), ValueError, ("shampoo_beta", "[0, 1)"), "beta"),
    BadInput(SOAP, lambda: SOAP(_w(), betas=0.9), TypeError, ("betas",), "betas-type"),
    BadInput(SOAP, lambda: SOAP(_w()).load_state_dict([1]), TypeError, ("state_dict",), "not-dict"),
    # ------------------------------------------------------------------ Newton-Schulz
    BadInput(newton_schulz, lambda: newton_schulz(torch.zeros(3)), ValueError, ("matrix", "2-D")),
    BadInput(newton_schulz, lambda: newton_schulz(torch.zeros(2, 2), dtype=torch.float16), ValueError,
             ("dtype",), "dtype"),
    BadInput(newton_schulz, lambda: newton_schulz(torch.zeros(2, 2, dtype=torch.long)), TypeError,
             ("matrix", "floating"), "int"),
    BadInput(newton_schulz, lambda: newton_schulz(torch.zeros(2, 2), eps=0.0), ValueError, ("eps",), "eps"),
    BadInput(singular_value_map, lambda: singular_value_map([float("nan")]), ValueError, ("sigma", "finite")),
    BadInput(singular_value_map, lambda: singular_value_map([0.5], ns_steps=1.5), ValueError, ("ns_steps",),
             "steps"),
    # ------------------------------------------------------------------ scaling
    BadInput(lr_multiplier, lambda: lr_multiplier("lion", 1.0, 1.0), ValueError, ("optimizer", "muon")),
    BadInput(lr_multiplier, lambda: lr_multiplier("muon", 0.0, 1.0), ValueError, ("d_in_ratio", "> 0"),
             "din"),
    BadInput(independent_weight_decay, lambda: independent_weight_decay(-1.0, 8, 8), ValueError,
             ("base_weight_decay", ">= 0")),
    BadInput(independent_weight_decay, lambda: independent_weight_decay(0.1, 0, 8), ValueError,
             ("width", "positive"), "width"),
    BadInput(param_groups, lambda: param_groups(torch.nn.Linear(2, 2), "muon", 0.1, base_width=2), TypeError,
             ("model", "parameter_roles")),
    BadInput(param_groups, lambda: param_groups(_mlp(), "muon", 0.1, base_width=8, parametrization="sp"),
             ValueError, ("parametrization", "mup"), "param"),
    BadInput(param_groups, lambda: param_groups(_mlp(), "muon", 0.1, base_width=0), ValueError,
             ("base_width",), "base"),
    # ------------------------------------------------------------------ models and task
    BadInput(MLP, lambda: MLP(0, 2, width=4, depth=1), ValueError, ("in_features", "positive")),
    BadInput(MLP, lambda: MLP(2, 2, width=4, depth=1, dtype=torch.int32), TypeError, ("dtype",), "dtype"),
    BadInput(MLP, lambda: MLP(2, 2, width=4, depth=1)(torch.zeros(3, 5)), ValueError, ("x", "(n, 2)"), "x"),
    BadInput(MLP, lambda: MLP(2, 2, width=4, depth=1, residual_multiplier=0.0), ValueError,
             ("residual_multiplier", "> 0"), "mult"),
    BadInput(Transformer, lambda: Transformer(5, width=6, depth=1, n_heads=4), ValueError,
             ("width", "n_heads")),
    BadInput(Transformer, lambda: Transformer(5, width=8, depth=1, context=4)(torch.zeros(1, 9).long()),
             ValueError, ("tokens", "T <= 4"), "long"),
    BadInput(MarkovLanguageTask, lambda: MarkovLanguageTask(vocab_size=4, branching=5), ValueError,
             ("branching", "vocab_size")),
    BadInput(MarkovLanguageTask, lambda: MarkovLanguageTask(vocab_size=1), ValueError, ("vocab_size", ">= 2"),
             "vocab"),
    BadInput(MarkovLanguageTask, lambda: TASK.sample(2, 0), TypeError, ("generator",), "generator"),
    BadInput(MarkovLanguageTask, lambda: TASK.sample(0, torch.Generator()), ValueError, ("n",), "n"),
    # ------------------------------------------------------------------ solve interface
    BadInput(TrainingProblem, lambda: TrainingProblem(torch.nn.Linear(8, 8), TASK), TypeError, ("model",)),
    BadInput(TrainingProblem, lambda: TrainingProblem(MLP(5, 8, width=4, depth=1), TASK), ValueError,
             ("in_features", "vocab_size=8"), "mismatch"),
    BadInput(TrainingProblem, lambda: TrainingProblem(_mlp(), TASK, steps=0), ValueError, ("steps",),
             "steps"),
    BadInput(TrainingProblem, lambda: TrainingProblem(_mlp(), TASK, divergence_factor=1.0), ValueError,
             ("divergence_factor", "> 1"), "div"),
    BadInput(OptimizerTraining, lambda: OptimizerTraining("lion"), ValueError, ("optimizer", "muon")),
    BadInput(OptimizerTraining, lambda: OptimizerTraining(lr=-1.0), ValueError, ("lr", ">= 0"), "lr"),
    BadInput(OptimizerTraining, lambda: OptimizerTraining(independent_weight_decay=1.0), ValueError,
             ("independent_weight_decay", "[0, 1)"), "wd"),
    BadInput(OptimizerTraining, lambda: OptimizerTraining(hyperparameters={"lr": 1.0}), ValueError,
             ("hyperparameters", "lr"), "reserved"),
    BadInput(OptimizerTraining, lambda: OptimizerTraining(hyperparameters={"momentum": 2.0}).build(_mlp()),
             ValueError, ("momentum", "[0, 1)"), "bad-hyper"),
    BadInput(OptimizerTraining,
             lambda: OptimizerTraining("soap", hyperparameters={"beta": 0.9}).build(_mlp()), TypeError,
             ("hyperparameters", "SOAP"), "unknown-hyper"),
    BadInput(OptimizerTraining, lambda: OptimizerTraining(factory="Muon"), TypeError, ("factory", "callable"),
             "factory"),
]


def _load_other_shape(make):
    source = torch.nn.Parameter(torch.randn(4, 3, generator=torch.Generator().manual_seed(0)))
    opt = make([source])
    source.grad = torch.ones_like(source)
    opt.step()
    target = torch.nn.Parameter(torch.zeros(5, 2))
    make([target]).load_state_dict(opt.state_dict())


# a state written for a (4, 3) parameter loaded over a (5, 2) one: named at load, not at the next step
CASES += [
    BadInput(Muon.load_state_dict, lambda: _load_other_shape(lambda p: Muon(p, lr=0.01)), ValueError,
             ("state_dict", "parameter 0", "(5, 2)", "(4, 3)"), "other-shape"),
    BadInput(Shampoo.load_state_dict, lambda: _load_other_shape(lambda p: Shampoo(p, lr=0.01)), ValueError,
             ("state_dict", "parameter 0", "(5, 2)", "(4, 3)"), "other-shape"),
    BadInput(SOAP.load_state_dict, lambda: _load_other_shape(lambda p: SOAP(p, lr=0.01)), ValueError,
             ("state_dict", "parameter 0", "(5, 2)", "(4, 3)"), "other-shape"),
    BadInput(Transformer.forward,
             lambda: Transformer(vocab_size=11, width=16, depth=1, n_heads=2, context=8)(
                 torch.full((2, 4), 11, dtype=torch.long)),
             ValueError, ("tokens", "vocab_size", "11"), "out-of-vocabulary"),
]

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_rejected(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES)


def test_nonfinite_gradient_raises_when_asked():
    w = _w()
    opt = Shampoo(w, on_nonfinite="raise")
    w[0].grad = torch.full((3, 3), float("inf"))
    with pytest.raises(FloatingPointError, match="NaN or inf"):
        opt.step()


def _sparse_step(optimizer_class):
    emb = torch.nn.Embedding(5, 3, sparse=True)
    opt = optimizer_class(emb.parameters(), lr=0.01)
    emb(torch.tensor([1, 2])).sum().backward()
    opt.step()


# Round 3 of the held-out audit (#43): silent S1/S4 and cryptic C2/C4 cases of this family.
ROUND3 = [
    BadInput(param_groups, lambda: param_groups(MLP(4, 4, width=8, depth=2), "adamw", 0.01, base_width=4,
                                                block_size=1.5), ValueError, ("block_size",), "frac"),
    BadInput(param_groups, lambda: param_groups(MLP(4, 4, width=8, depth=2), "adamw", 0.01, base_width=4,
                                                block_size=-2), ValueError, ("block_size",), "neg"),
    BadInput(param_groups, lambda: param_groups(MLP(4, 4, width=8, depth=2), "adamw", 0.01, base_width=4,
                                                block_size=float("nan")), ValueError, ("block_size",), "nan"),
    BadInput(param_groups, lambda: param_groups(MLP(4, 4, width=8, depth=2), "adamw", 0.01, base_width=4,
                                                block_size="2"), ValueError, ("block_size",), "str"),
    BadInput(newton_schulz, lambda: newton_schulz(torch.full((2, 2), float("nan"))), ValueError,
             ("matrix", "NaN"), "nan"),
    BadInput(singular_value_map, lambda: singular_value_map([-0.5, 0.2]), ValueError, ("sigma", ">= 0"),
             "neg"),
    BadInput(Muon, lambda: _sparse_step(Muon), RuntimeError, ("Muon", "sparse"), "sparse-grad"),
    BadInput(Shampoo, lambda: _sparse_step(Shampoo), RuntimeError, ("Shampoo", "sparse"), "sparse-grad"),
    BadInput(SOAP, lambda: _sparse_step(SOAP), RuntimeError, ("SOAP", "sparse"), "sparse-grad"),
    BadInput(Transformer, lambda: Transformer(5, width=8, depth=1, context=4)([[1, 2]]), TypeError,
             ("tokens", "LongTensor"), "forward-list"),
    BadInput(Transformer, lambda: Transformer(5, width=8, depth=1, context=4)(None), TypeError,
             ("tokens", "LongTensor"), "forward-none"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_training_problem_refuses_a_short_context():
    # #43 round 4 (audit4 C19): a Transformer reading 2 tokens was accepted for a task of 8-token sequences
    from algorithms.optimizers import MarkovLanguageTask, TrainingProblem, Transformer

    task = MarkovLanguageTask(vocab_size=8, context=8, seed=0)
    with pytest.raises(ValueError, match=r"^model context must be >= task.context=8 .*got 2$"):
        TrainingProblem(Transformer(8, 8, 1, n_heads=2, context=2), task, steps=3)


# ---------------------------------------------------------------------- round 7 (issue #43, pre-audit sweep)
MATRIX_OPTIMIZERS = [Muon, Shampoo, SOAP]


def _three():
    g = torch.Generator().manual_seed(0)
    return [torch.nn.Parameter(torch.randn(4, 3, generator=g)),
            torch.nn.Parameter(torch.randn(4, generator=g)),
            torch.nn.Parameter(torch.randn(2, 4, generator=g))]


def _stepped_state(cls):
    params = _three()
    opt = cls(params, lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        sum((p ** 2).sum() for p in params).backward()
        opt.step()
    return opt.state_dict()


def _tensor_keys(entry):
    return [k for k, v in entry.items() if isinstance(v, torch.Tensor) and v.numel() > 1]


def _edit_half(sd):
    for k in _tensor_keys(sd["state"][0]):
        sd["state"][0][k] = sd["state"][0][k].half()


def _edit_meta(sd):
    for k in _tensor_keys(sd["state"][0]):
        sd["state"][0][k] = torch.zeros_like(sd["state"][0][k], device="meta")


def _edit_unknown(sd):
    sd["state"][0]["bogus"] = torch.zeros(2)


def _edit_ids(ids):
    def edit(sd):
        sd["param_groups"][0]["params"] = ids
    return edit


def _edit_step_huge(sd):
    for entry in sd["state"].values():
        for k in list(entry):
            if k.endswith("step"):
                entry[k] = 10**30


def _edit_drop_lr(sd):
    del sd["param_groups"][0]["lr"]


STATE_EDITS = [(_edit_half, TypeError, ("state_dict", "float32")), (_edit_meta, ValueError, ("meta",)),
               (_edit_unknown, ValueError, ("state_dict['state'][0]", "bogus")),
               (_edit_ids([0, 0, 0]), ValueError, ("params", "0..2")),
               (_edit_ids([0, 1, 99]), ValueError, ("params", "0..2")),
               (_edit_step_huge, ValueError, ("step count",)), (_edit_drop_lr, ValueError, ("lr",))]


@pytest.mark.parametrize("cls", MATRIX_OPTIMIZERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("edit,error,words", STATE_EDITS, ids=lambda x: getattr(x, "__name__", ""))
def test_hand_edited_state_refused_by_name(cls, edit, error, words):
    import copy

    sd = copy.deepcopy(_stepped_state(cls))
    edit(sd)
    params = _three()
    opt = cls(params, lr=0.01)
    with pytest.raises(error) as info:
        opt.load_state_dict(sd)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert not opt.state                    # nothing was loaded


def test_missing_state_entry_refused_by_name():
    sd = _stepped_state(SOAP)
    del sd["state"][0]["momentum"]
    with pytest.raises(ValueError, match=r"state_dict\['state'\]\[0\] has the entries"):
        SOAP(_three()).load_state_dict(sd)


def test_float32_state_loads_into_float64_parameters():
    sd = _stepped_state(Shampoo)
    params = [torch.nn.Parameter(p.detach().double()) for p in _three()]
    opt = Shampoo(params, lr=0.01)
    opt.load_state_dict(sd)
    assert opt.state[params[0]]["momentum"].dtype == torch.float64
    sum((p ** 2).sum() for p in params).backward()
    opt.step()


@pytest.mark.parametrize("cls", MATRIX_OPTIMIZERS, ids=lambda c: c.__name__)
def test_group_without_params_and_bad_closure_named(cls):
    with pytest.raises(ValueError, match="'params' entry"):
        cls([{"lr": 0.1}])
    opt = cls(_three()[:2])
    with pytest.raises(ValueError, match="param_group must have a 'params' entry"):
        opt.add_param_group({"lr": 0.1})
    with pytest.raises(TypeError, match="closure must be callable"):
        opt.step(3)


@pytest.mark.parametrize("cls", MATRIX_OPTIMIZERS, ids=lambda c: c.__name__)
def test_unknown_group_key_is_refused(cls):
    with pytest.raises(ValueError, match=r"\['lrr'\] are not"):
        cls([{"params": _three(), "lrr": 0.5}])
    opt = cls(_three())
    with pytest.raises(ValueError, match=r"^param_group: parameter group keys \['lrr'\] are not"):
        opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(2, 2))], "lrr": 0.5})
    assert len(opt.param_groups) == 1      # the refused group is not left behind


@pytest.mark.parametrize("cls", MATRIX_OPTIMIZERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("key,value", [("lr", float("nan")), ("lr", -1.0), ("weight_decay", float("inf"))])
def test_group_edited_after_construction_refused_at_step(cls, key, value):
    params = _three()
    opt = cls(params, lr=0.1)
    opt.param_groups[0][key] = value
    sum((p ** 2).sum() for p in params).backward()
    before = [p.detach().clone() for p in params]
    with pytest.raises(ValueError, match=rf"param_groups\[0\]\['{key}'\]"):
        opt.step()
    assert all(torch.equal(a, p) for a, p in zip(before, params, strict=True))


@pytest.mark.parametrize("make", [lambda: MLP(3, 3, 8, 2, seed=5), lambda: Transformer(8, 8, 2, seed=5)],
                         ids=["MLP", "Transformer"])
def test_models_leave_the_global_generator_alone(make):
    state = torch.random.get_rng_state()
    make()
    assert torch.equal(state, torch.random.get_rng_state())


def test_markov_task_refuses_a_sample_past_memory_and_a_non_module():
    with pytest.raises(ValueError, match="n=1099511627776 is too large"):
        TASK.sample(2**40, torch.Generator())
    with pytest.raises(TypeError, match=r"model must be a torch\.nn\.Module"):
        TASK.loss("m", TASK.sample(2, torch.Generator()))


def test_optimizer_training_build_names_a_model_without_the_scaling_attributes():
    with pytest.raises(TypeError, match="model must have width, depth and parameter_roles"):
        OptimizerTraining("muon", lr=0.01).build(torch.nn.Linear(3, 3))


# ---------------------------------------------------------------------- round 7 held-out audit (phase 2)
def test_numpy_scalars_are_the_numbers_they_hold():
    import numpy as np

    opt = Muon(_w(), nesterov=np.True_, maximize=np.False_, ns_steps=np.int64(5))
    group = opt.param_groups[0]
    assert group["nesterov"] is True and group["maximize"] is False and type(group["ns_steps"]) is int
    opt = Shampoo(_w(), exponent=np.float32(0.25), block_size=np.int64(2))
    assert opt.param_groups[0]["exponent"] == 0.25 and type(opt.param_groups[0]["block_size"]) is int
    algorithm = OptimizerTraining("adamw", batch_size=np.int64(8), lr=np.float32(0.5))
    assert type(algorithm.batch_size) is int and type(algorithm.lr) is float


@pytest.mark.parametrize("cls", MATRIX_OPTIMIZERS, ids=lambda c: c.__name__)
def test_zero_grad_refuses_a_truthy_string(cls):
    with pytest.raises(TypeError, match="set_to_none must be a bool"):
        cls(_w()).zero_grad(set_to_none="no")


def test_optimizer_training_hashes_by_value():
    a = OptimizerTraining("muon", hyperparameters={"adamw_betas": [0.9, 0.95]})
    b = OptimizerTraining("muon", hyperparameters={"adamw_betas": [0.9, 0.95]})
    assert a == b and hash(a) == hash(b)


def test_transformer_names_tokens_on_another_device():
    with pytest.raises(ValueError, match="tokens must be on the model's device"):
        Transformer(8, 16, 1, context=4)(torch.zeros(2, 4, dtype=torch.long, device="meta"))


def test_torch_muon_continues_from_our_state_dict_step_for_step():
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(4, 3))
    g1, g2 = torch.randn(4, 3), torch.randn(4, 3)
    ours = Muon([w], lr=0.02, head="muon")
    w.grad = g1.clone()
    ours.step()
    w2 = torch.nn.Parameter(w.detach().clone())
    theirs = torch.optim.Muon([w2], lr=0.02)
    theirs.load_state_dict(ours.state_dict())       # a snapshot: the two no longer share one buffer
    w.grad, w2.grad = g2.clone(), g2.clone()
    ours.step()
    theirs.step()
    assert torch.equal(w, w2)


def test_optimizer_training_factory_must_take_its_call():
    with pytest.raises(TypeError, match="factory must accept the call"):
        OptimizerTraining("adamw", factory=lambda: None)
    OptimizerTraining("adamw", factory=torch.optim.AdamW)   # accepted


# ---- #43 round 8 (pre-audit sweep): kinds beyond round 7's


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
@pytest.mark.parametrize("copier", [copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))])
def test_a_copied_or_unpickled_optimizer_steps_as_the_original(cls, copier):
    # torch's __getstate__ keeps only defaults/state/param_groups: the copy lacked skipped_steps and could
    # not step (AttributeError)
    torch.manual_seed(0)
    w, b = torch.nn.Parameter(torch.randn(3, 3)), torch.nn.Parameter(torch.randn(3))
    opt = cls([w, b], lr=0.1)
    w.grad, b.grad = torch.ones(3, 3), torch.ones(3)
    opt.step()
    twin = copier(opt)
    for original, copied in ((w, twin.param_groups[0]["params"][0]), (b, twin.param_groups[0]["params"][1])):
        original.grad = torch.full_like(original, 0.5)
        copied.grad = torch.full_like(copied, 0.5)
    opt.step()
    twin.step()
    copied_w, copied_b = twin.param_groups[0]["params"]
    assert torch.equal(copied_w, w) and torch.equal(copied_b, b)
    assert sorted(twin.defaults) == sorted(opt.defaults) and twin.skipped_steps == opt.skipped_steps
    if cls is Muon:
        assert twin.routing() == opt.routing()


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_a_parameter_listed_twice_is_refused(cls):
    w = torch.nn.Parameter(torch.ones(3, 3))
    with pytest.raises(ValueError, match=r"params lists a tensor of shape \(3, 3\) twice"):
        cls([w, w])
    opt = cls([torch.nn.Parameter(torch.ones(2))])
    with pytest.raises(ValueError, match="params"):
        opt.add_param_group({"params": [w, w]})
    assert len(opt.param_groups) == 1


@pytest.mark.parametrize(("cls", "key", "bad"), [
    (Muon, "momentum", float("nan")), (Muon, "adamw_betas", (0.9, float("nan"))), (Muon, "ns_steps", -1),
    (Muon, "nesterov", "no"), (Shampoo, "eps", -1.0), (Shampoo, "precondition_frequency", 0),
    (Shampoo, "betas", (0.9, float("nan"))), (SOAP, "eps", -1.0), (SOAP, "shampoo_beta", 2.0),
    (SOAP, "precondition_frequency", 0)])
def test_a_hyperparameter_edited_in_param_groups_is_checked_at_the_next_step(cls, key, bad):
    # momentum=nan stepped NaN into the weights; eps=-1 and precondition_frequency=0 failed inside the step
    w, b = torch.nn.Parameter(torch.ones(3, 3)), torch.nn.Parameter(torch.ones(3))
    opt = cls([w, b])
    opt.param_groups[0][key] = bad
    w.grad, b.grad = torch.ones(3, 3), torch.ones(3)
    before = w.detach().clone()
    with pytest.raises((TypeError, ValueError), match=rf"param_groups\[0\] was edited.*{key}"):
        opt.step()
    assert torch.equal(w, before)


@pytest.mark.parametrize("cls", [Muon, Shampoo, SOAP])
def test_valid_group_edits_are_normalized_and_cost_nothing_when_unchanged(cls):
    w = torch.nn.Parameter(torch.ones(3, 3))
    opt = cls([w])
    key = "momentum" if cls is Muon else "betas"
    opt.param_groups[0][key] = np.float32(0.5) if cls is Muon else (np.float32(0.5), 0.9)
    w.grad = torch.ones(3, 3)
    opt.step()
    value = opt.param_groups[0][key]
    assert (type(value) is float) if cls is Muon else (type(value[0]) is float)
    snapshot = opt._validated_groups[id(opt.param_groups[0])]
    opt.step()
    assert opt._validated_groups[id(opt.param_groups[0])] is snapshot      # not re-checked


@pytest.mark.parametrize(("cls", "key"), [(Muon, "eps"), (Muon, "adamw_eps"), (Shampoo, "eps"),
                                          (Shampoo, "adam_eps"), (SOAP, "eps")])
def test_an_eps_below_float32s_smallest_normal_is_refused(cls, key):
    # SOAP with eps=1e-100 (0 in its float32 state) and Shampoo with eps=1e-300 stepped NaN into the weights
    with pytest.raises(ValueError, match=rf"{key} = 1e-100 is outside the package's working range"):
        cls([torch.nn.Parameter(torch.ones(3, 3))], **{key: 1e-100})
    cls([torch.nn.Parameter(torch.ones(3, 3))], **{key: float(torch.finfo(torch.float32).tiny)})


def test_muon_steps_past_a_zero_element_matrix():
    # Muon's batched loop divided by zero on a (3, 0) matrix (torch's optimizers skip it)
    z, w = torch.nn.Parameter(torch.ones(3, 0)), torch.nn.Parameter(torch.ones(3, 3))
    opt = Muon([z, w], head="muon")
    z.grad, w.grad = torch.ones(3, 0), torch.ones(3, 3)
    opt.step()
    assert torch.isfinite(w).all()


@pytest.mark.parametrize(("field", "spelling", "plain"), [
    ("lr", np.float32(0.5), 0.5), ("batch_size", np.int64(8), 8), ("optimizer", np.str_("adamw"), "adamw"),
    ("parametrization", np.str_("standard"), "standard")])
def test_optimizer_training_stores_numpy_scalars_as_python_values(field, spelling, plain):
    built = OptimizerTraining(**{"optimizer": "adamw", field: spelling})
    assert type(getattr(built, field)) is type(plain) and getattr(built, field) == plain
    assert built == OptimizerTraining(**{"optimizer": "adamw", field: plain})


@pytest.mark.parametrize("expansion", ["none", "sgd"])
@pytest.mark.parametrize("copier", [copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))])
def test_a_copied_block_optimizer_continues_as_the_original(copier, expansion):
    # torch's __getstate__ dropped the blocks and schedule: the copy could not step (AttributeError '_epoch')
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    opt = BlockOptimizer(model, switch_every=2, expansion=expansion)
    x = torch.ones(2, 3)

    def train(optimizer, params, steps):
        for _ in range(steps):
            optimizer.zero_grad()
            out = torch.nn.functional.linear(torch.nn.functional.linear(x, params[0], params[1]), params[2],
                                             params[3])
            out.sum().backward()
            optimizer.step()

    own = list(model.parameters())
    train(opt, own, 3)
    twin = copier(opt)
    copied = twin.param_groups[0]["params"]
    train(opt, own, 3)
    train(twin, copied, 3)
    assert twin.active_block == opt.active_block
    assert all(torch.equal(a, b) for a, b in zip(own, copied, strict=True))
    with pytest.raises(TypeError, match="set_to_none"):
        twin.zero_grad("no")


@pytest.mark.parametrize(("tokens", "kind", "match"), [
    (torch.ones(2, 5), TypeError, "tokens must hold integer"),
    (torch.zeros(2, 5, dtype=torch.bool), TypeError, "tokens must hold integer"),
    (np.zeros((2, 5), dtype=int), TypeError, "tokens must be a torch.Tensor"),
    (torch.zeros(5, dtype=torch.long), ValueError, r"tokens must have shape \(n, L\)"),
    (torch.zeros(2, 1, dtype=torch.long), ValueError, r"tokens must have shape \(n, L\)"),
    (torch.zeros(0, 5, dtype=torch.long), ValueError, r"tokens must have shape \(n, L\)"),
    (torch.full((2, 5), 99), ValueError, r"tokens must lie in \[0, vocab_size\)"),
    (torch.full((2, 5), -1), ValueError, r"tokens must lie in \[0, vocab_size\)")])
def test_task_loss_checks_tokens(tokens, kind, match):
    # the MLP path reached torch's one_hot / indexing errors, and one-column tokens gave a NaN loss
    with pytest.raises(kind, match=match):
        TASK.loss(MLP(8, 8, width=8, depth=1), tokens)


def test_task_loss_takes_other_integer_dtypes_and_names_a_model_of_another_vocabulary():
    tokens = TASK.sample(3, torch.Generator().manual_seed(0))
    model = MLP(8, 8, width=8, depth=1)
    assert torch.equal(TASK.loss(model, tokens.to(torch.uint8)), TASK.loss(model, tokens))
    with pytest.raises(ValueError, match="model must take the one-hot current token"):
        TASK.loss(MLP(7, 7, width=8, depth=1), tokens)
    with pytest.raises(ValueError, match="model reads a vocabulary of 9"):
        TASK.loss(Transformer(9, 8, 1, context=4), tokens)


def test_mlp_refuses_a_non_finite_input():
    with pytest.raises(ValueError, match="x contains NaN"):
        MLP(4, 4, width=8, depth=1)(torch.full((2, 4), float("nan")))


def test_optimizer_training_keeps_its_own_copy_of_hyperparameters():
    # the caller's dict edited after construction changed the frozen algorithm (and its hash)
    given = {"momentum": 0.9}
    algorithm = OptimizerTraining("muon", hyperparameters=given)
    before = hash(algorithm)
    given["ns_steps"] = 3
    assert algorithm.hyperparameters == {"momentum": 0.9} and hash(algorithm) == before


def test_finetune_loss_names_an_empty_index():
    # an empty index gave the mean over no rows (NaN), then a message naming tokens, not index
    task = MarkovLanguageTask(vocab_size=8, context=4)
    tokens = task.sample(4, torch.Generator().manual_seed(0))
    problem = FinetuneTask(MLP(8, 8, width=8, depth=1), task, tokens, batch_size=2)
    with pytest.raises(ValueError, match="index must select at least one row"):
        problem.loss(problem.model, torch.zeros(0, dtype=torch.int64))
    assert torch.isfinite(problem.loss(problem.model, [0, 1]))


def test_run_finetune_names_an_optimizer_over_other_tensors():
    # an optimizer over another model's parameters trained nothing and ended MaxIters in silence
    task = MarkovLanguageTask(vocab_size=8, context=4)
    tokens = task.sample(4, torch.Generator().manual_seed(0))
    problem = FinetuneTask(MLP(8, 8, width=8, depth=1), task, tokens, batch_size=2)
    other = torch.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="make_optimizer must return an optimizer over the parameters"):
        run_finetune(problem, lambda m, s: torch.optim.SGD(other.parameters(), lr=0.1),
                     SolveOptions(maxiters=2))
    run_finetune(problem, lambda m, s: torch.optim.SGD(m.parameters(), lr=0.1), SolveOptions(maxiters=2))


def test_low_rank_expansion_takes_a_numpy_bool():
    layer = torch.nn.Linear(4, 3)
    LowRankExpansion(layer, 1, freeze=np.True_)
    assert not layer.weight.requires_grad


def test_task_vocabulary_beyond_memory_is_refused_by_name():
    # vocab_size=2**20 was accepted, then entropy_rate()/sample() reached numpy's MemoryError (8 TiB)
    with pytest.raises(ValueError, match="vocab_size=1048576 is too large"):
        MarkovLanguageTask(vocab_size=2**20)


# ---- round 8 held-out audit, phase 2 (heldout8 first run)


def test_expansion_lr_scale_must_be_positive():
    # 0 was accepted: an expansion that never moves the inactive blocks
    with pytest.raises(ValueError, match="expansion_lr_scale must be > 0"):
        BlockOptimizer(torch.nn.Linear(2, 2), expansion="sgd", expansion_lr_scale=0.0)
    with pytest.raises(ValueError, match="expansion_lr_scale must be > 0"):
        BlockCoordinateDescent(expansion_lr_scale=0.0)


@pytest.mark.parametrize("drop", ["state", "param_groups", "base", "schedule"])
def test_block_optimizer_load_state_dict_names_a_missing_entry(drop):
    # without 'state' it reached a bare KeyError
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    saved = BlockOptimizer(model).state_dict()
    del saved[drop]
    with pytest.raises(ValueError, match=rf"state_dict must be a BlockOptimizer.state_dict\(\).*'{drop}'"):
        BlockOptimizer(model).load_state_dict(saved)


def test_singular_value_map_refuses_a_matrix():
    with pytest.raises(ValueError, match="sigma must be a 1-D array"):
        singular_value_map(np.full((2, 2), 0.5))
    assert singular_value_map(0.5).shape == ()
