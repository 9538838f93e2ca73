"""Bad inputs to every public callable of the bcd_expansion modules (block, expansion, finetune):
rejected early, by our own validation, with a message naming the argument and what was expected."""

import numpy as np
import pytest
import torch

import algorithms.optimizers.block as block
import algorithms.optimizers.expansion as expansion
import algorithms.optimizers.finetune as finetune
from algorithms import solve
from algorithms.core import SolveOptions
from algorithms.optimizers.block import (
    BlockCoordinateDescent,
    BlockOptimizer,
    find_blocks,
    optimizer_state_bytes,
)
from algorithms.optimizers.expansion import LowRankExpansion
from algorithms.optimizers.finetune import FinetuneTask, FullFinetune, markov_finetune_task, run_finetune
from algorithms.optimizers.tasks import MarkovLanguageTask
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

MODULES = [block, expansion, finetune]
CHAIN = MarkovLanguageTask(vocab_size=4, context=3)


def _model():
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))


def _tokens(n=4):
    return CHAIN.sample(n, torch.Generator().manual_seed(0))


def _finetune(**kw):
    args = dict(model=torch.nn.Linear(4, 4), task=CHAIN, tokens=_tokens(), batch_size=2)
    args.update(kw)
    return FinetuneTask(**args)


CASES = [
    # ------------------------------------------------------------------ BlockOptimizer (the list)
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), blocks=[r"^0\.", r"\.weight$", r"^2\.bias"]),
             ValueError, ("blocks overlap", "0.weight", "blocks[0]", "blocks[1]"), "overlap"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), blocks=[r"^0\."]), ValueError,
             ("miss", "2.weight", "no block"), "missing"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), switch_every=0), ValueError,
             ("switch_every", "positive int", "0"), "switch-zero"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), switch_every=-3), ValueError,
             ("switch_every", "-3"), "switch-negative"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), blocks=[r"^0\.", r"^2\.", r"^layers\."]),
             ValueError, ("blocks[2]", "matches no parameter", "^layers"), "no-match"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), base=torch.nn.Linear), TypeError,
             ("base", "torch.optim.Optimizer class"), "base-not-optimizer"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), base=torch.optim.AdamW(_model().parameters())),
             TypeError, ("base", "class"), "base-instance"),
    # ------------------------------------------------------------------ BlockOptimizer, the rest
    BadInput(BlockOptimizer, lambda: BlockOptimizer(list(_model().parameters())), TypeError,
             ("params", "(name, parameter) pairs"), "unnamed"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(torch.zeros(3)), TypeError, ("params", "Module"),
             "tensor"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(torch.nn.ReLU()), ValueError,
             ("params", "no trainable parameter"), "empty"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), order="shuffled"), ValueError,
             ("order", "ascending", "shuffled"), "order"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), expansion="lora"), ValueError,
             ("expansion", "sgd", "lora"), "expansion"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), expansion_lr_scale=-1.0), ValueError,
             ("expansion_lr_scale", "> 0"), "scale"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), lr=0.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), seed=-1), ValueError, ("seed", ">= 0"), "seed"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model(), lr=1e-3, betas=(2.0, 0.9)), ValueError,
             ("AdamW", "betas"), "base-kwargs"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model()).load_state_dict({"state": {}}), ValueError,
             ("state_dict", "BlockOptimizer.state_dict()"), "state-dict"),
    BadInput(BlockOptimizer, lambda: BlockOptimizer(_model()).step(closure=3), TypeError,
             ("closure", "callable"), "closure"),
    # ------------------------------------------------------------------ find_blocks
    BadInput(find_blocks, lambda: find_blocks([]), TypeError, ("names", "non-empty"), "empty"),
    BadInput(find_blocks, lambda: find_blocks(["a.w"], blocks="a"), TypeError, ("blocks", "list"), "str"),
    BadInput(find_blocks, lambda: find_blocks(["a.w"], blocks=["("]), ValueError,
             ("blocks[0]", "regular expression"), "bad-regex"),
    BadInput(find_blocks, lambda: find_blocks(["a.w"], blocks=[["b.w"]]), ValueError,
             ("blocks[0]", "b.w"), "unknown-name"),
    BadInput(find_blocks, lambda: find_blocks(["a.w"], blocks=[3]), TypeError, ("blocks[0]", "3"), "entry"),
    # ------------------------------------------------------------------ optimizer_state_bytes
    BadInput(optimizer_state_bytes, lambda: optimizer_state_bytes({"state": {}}), TypeError,
             ("optimizer", "torch.optim.Optimizer", "dict"), "dict"),
    # ------------------------------------------------------------------ BlockCoordinateDescent
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(switch_every=0), ValueError,
             ("switch_every", "positive int"), "switch"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(lr=-1.0), ValueError, ("lr", "> 0"),
             "lr"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(order="up"), ValueError, ("order", "up"),
             "order"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(expansion="x"), ValueError,
             ("expansion", "sign"), "expansion"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(expansion_lr_scale=float("nan")),
             ValueError, ("expansion_lr_scale", "finite"), "scale"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(weight_decay=-0.1), ValueError,
             ("weight_decay", ">= 0"), "wd"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(blocks=["a"]), TypeError,
             ("blocks", "tuple"), "blocks"),
    BadInput(BlockCoordinateDescent, lambda: BlockCoordinateDescent(optimizer="BAdam"), TypeError,
             ("optimizer", "callable"), "optimizer"),
    BadInput(BlockCoordinateDescent, lambda: solve(markov_finetune_task(
        vocab_size=4, context=3, n=4, width=4, depth=1, pretrain_steps=1, architecture="mlp"),
        BlockCoordinateDescent(blocks=(r"^nothing",))), ValueError, ("blocks[0]", "matches no parameter"),
        "blocks-match-nothing"),
    # ------------------------------------------------------------------ LowRankExpansion
    BadInput(LowRankExpansion, lambda: LowRankExpansion(torch.nn.Conv1d(2, 2, 1), rank=1), TypeError,
             ("linear", "torch.nn.Linear"), "not-linear"),
    BadInput(LowRankExpansion, lambda: LowRankExpansion(torch.nn.Linear(3, 2), rank=0), ValueError,
             ("rank", "positive int"), "rank-zero"),
    BadInput(LowRankExpansion, lambda: LowRankExpansion(torch.nn.Linear(3, 2), rank=3), ValueError,
             ("rank", "min(in_features, out_features) = 2"), "rank-big"),
    BadInput(LowRankExpansion, lambda: LowRankExpansion(torch.nn.Linear(3, 2), rank=1, seed=1.5), TypeError,
             ("seed", "int"), "seed"),
    BadInput(LowRankExpansion, lambda: LowRankExpansion(torch.nn.Linear(3, 2), rank=1, freeze="yes"),
             TypeError, ("freeze", "bool"), "freeze"),
    # ------------------------------------------------------------------ FinetuneTask
    BadInput(FinetuneTask, lambda: _finetune(model="net"), TypeError, ("model", "torch.nn.Module"), "model"),
    BadInput(FinetuneTask, lambda: _finetune(task="chain"), TypeError, ("task", "MarkovLanguageTask"),
             "task"),
    BadInput(FinetuneTask, lambda: _finetune(tokens=np.zeros((3, 4))), ValueError,
             ("tokens", "integer", "float64"), "float-tokens"),
    BadInput(FinetuneTask, lambda: _finetune(tokens=np.zeros(4, dtype=np.int64)), ValueError,
             ("tokens", "(n, T + 1)"), "1d"),
    BadInput(FinetuneTask, lambda: _finetune(tokens=np.full((2, 4), 9)), ValueError,
             ("tokens", "[0, 4)", "9"), "range"),
    BadInput(FinetuneTask, lambda: _finetune(batch_size=9), ValueError, ("batch_size", "<= n = 4"), "batch"),
    BadInput(FinetuneTask, lambda: _finetune(batch_size=0), ValueError, ("batch_size", "positive"), "batch0"),
    BadInput(FinetuneTask, lambda: _finetune(reference_loss=-1.0), ValueError, ("reference_loss", ">= 0"),
             "reference"),
    BadInput(FinetuneTask, lambda: FinetuneTask(
        model=finetune.Transformer(vocab_size=4, width=4, depth=1, context=2), task=CHAIN, tokens=_tokens(),
        batch_size=2), ValueError, ("tokens", "model.context + 1 = 3"), "context"),
    # ------------------------------------------------------------------ markov_finetune_task
    BadInput(markov_finetune_task, lambda: markov_finetune_task(pretrain_steps=0), ValueError,
             ("pretrain_steps", "positive int"), "pretrain"),
    BadInput(markov_finetune_task, lambda: markov_finetune_task(n=0), ValueError, ("n", "positive int"), "n"),
    BadInput(markov_finetune_task, lambda: markov_finetune_task(seed=-2), ValueError, ("seed",), "seed"),
    BadInput(markov_finetune_task, lambda: markov_finetune_task(batch_size=0), ValueError,
             ("batch_size", "positive int"), "batch"),
    BadInput(markov_finetune_task, lambda: markov_finetune_task(architecture="rnn"), ValueError,
             ("architecture", "transformer", "rnn"), "architecture"),
    BadInput(markov_finetune_task, lambda: markov_finetune_task(vocab_size=1), ValueError,
             ("vocab_size", ">= 2"), "vocab"),
    # ------------------------------------------------------------------ FullFinetune / run_finetune
    BadInput(FullFinetune, lambda: FullFinetune(lr=0.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(FullFinetune, lambda: FullFinetune(weight_decay=-1.0), ValueError, ("weight_decay", ">= 0"),
             "wd"),
    BadInput(run_finetune, lambda: run_finetune(CHAIN, lambda m, s: None, SolveOptions()), TypeError,
             ("problem", "FinetuneTask"), "problem"),
    BadInput(run_finetune, lambda: run_finetune(_finetune(), "adamw", SolveOptions()), TypeError,
             ("make_optimizer", "callable"), "factory"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_rejected_clearly(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES)


def _two_block_optimizer():
    return BlockOptimizer(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 2)),
                          lr=0.01)


# Round 3 of the held-out audit (#43): silent S1/S3 cases of this family.
ROUND3 = [
    BadInput(find_blocks, lambda: find_blocks("ab"), TypeError, ("names", "str"), "names-str"),
    BadInput(BlockOptimizer.add_param_group,
             lambda: _two_block_optimizer().add_param_group({"params": [torch.nn.Parameter(torch.ones(2))],
                                                             "lr": -1.0}),
             ValueError, ("lr", "> 0"), "lr-neg"),
    BadInput(BlockOptimizer.add_param_group,
             lambda: _two_block_optimizer().add_param_group({"params": [torch.nn.Parameter(torch.ones(2))]}),
             ValueError, ("param_group", "one parameter group"), "second-group"),
    BadInput(BlockOptimizer.step, lambda: _sparse_block_step(), RuntimeError, ("BlockOptimizer", "sparse"),
             "sparse-grad"),
]


def _sparse_block_step():
    emb = torch.nn.Embedding(5, 3, sparse=True)
    opt = BlockOptimizer([("emb.weight", emb.weight)], lr=0.01)
    emb(torch.tensor([1, 2])).sum().backward()
    opt.step()


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_the_same_tensor_under_two_names_warns():
    lin = torch.nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="'b' is the same tensor as 'a'"):
        BlockOptimizer([("a", lin.weight), ("b", lin.weight)], lr=0.01)


def test_block_optimizer_refuses_a_state_dict_of_other_shapes():
    # #43 round 4 (audit4 C5): the same names over other widths loaded silently when the base state was
    # empty (a block switch resets it); the saved shapes are now compared, naming the parameter
    from algorithms.optimizers import BlockOptimizer

    def model(width):
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(4, width), torch.nn.Tanh(), torch.nn.Linear(width, 2))

    def optimizer(m):
        return BlockOptimizer([(f"p{i}", p) for i, p in enumerate(m.parameters())], lr=0.01, switch_every=1)

    m = model(8)
    opt = optimizer(m)
    for _ in range(2):
        opt.zero_grad()
        m(torch.randn(3, 4)).sum().backward()
        opt.step()
    with pytest.raises(ValueError, match=r"^state_dict: parameter 'p0' had shape \(8, 4\) when it was saved"):
        optimizer(model(5)).load_state_dict(opt.state_dict())
    optimizer(model(8)).load_state_dict(opt.state_dict())  # the same shapes still load


# ---------------------------------------------------------------------- round 7 (issue #43, pre-audit sweep)
def _stepped_block_state():
    model = _model()
    opt = BlockOptimizer(model, lr=0.01, switch_every=3)
    for _ in range(2):
        opt.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        opt.step()
    return opt.state_dict()


def _base_tensors(sd):
    return [(entry, k) for entry in sd["base"]["state"].values() for k, v in entry.items()
            if isinstance(v, torch.Tensor) and v.numel() > 1]


def _nan_moment(sd):
    entry, key = _base_tensors(sd)[0]
    entry[key] = torch.full_like(entry[key], float("nan"))


def _int_moment(sd):
    entry, key = _base_tensors(sd)[0]
    entry[key] = entry[key].long()


def _set(path, value):
    def edit(sd):
        target = sd
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    edit.__name__ = "_".join(map(str, path))
    return edit


BASE = "state_dict['base']"
BLOCK_STATE_EDITS = [
    (_nan_moment, ValueError, (f"{BASE}['state']", "NaN")),
    (_int_moment, TypeError, (f"{BASE}['state']", "floating")),
    (_set(("base", "state", 99), {"exp_avg": torch.zeros(2)}), ValueError, (f"{BASE}['state']", "99")),
    (_set(("base", "param_groups", 0, "lr"), float("nan")), ValueError, (f"{BASE}['param_groups'][0]",)),
    (_set(("base", "param_groups", 0, "weight_decay"), -1.0), ValueError, (f"{BASE}['param_groups'][0]",)),
    (_set(("base", "param_groups"), []), ValueError, (f"{BASE}['param_groups']",)),
    (_set(("base",), 3), TypeError, ("state_dict['base']",)),
    (_set(("param_groups", 0, "lr"), float("nan")), ValueError, ("state_dict['param_groups'][0]['lr']",)),
    (_set(("param_groups", 0, "expansion_lr_scale"), float("nan")), ValueError, ("expansion_lr_scale",)),
    (_set(("schedule", "block_names"), [["x"]]), ValueError, ("block_names",)),
]


@pytest.mark.parametrize("edit,error,words", BLOCK_STATE_EDITS, ids=lambda x: getattr(x, "__name__", ""))
def test_block_optimizer_refuses_a_hand_edited_state_dict(edit, error, words):
    import copy

    sd = copy.deepcopy(_stepped_block_state())
    edit(sd)
    model = _model()
    opt = BlockOptimizer(model, lr=0.01, switch_every=3)
    flags = [p.requires_grad for p in model.parameters()]
    with pytest.raises(error) as info:
        opt.load_state_dict(sd)
    assert all(w in str(info.value) for w in words), str(info.value)
    assert [p.requires_grad for p in model.parameters()] == flags and not opt.base_optimizer.state


def test_block_optimizer_refuses_an_lr_edited_to_nan_at_step():
    model = _model()
    opt = BlockOptimizer(model, lr=0.01)
    opt.param_groups[0]["lr"] = float("nan")
    model(torch.ones(2, 3)).sum().backward()
    with pytest.raises(ValueError, match=r"param_groups\[0\]\['lr'\]"):
        opt.step()


def test_block_order_refuses_an_epoch_past_any_run():
    with pytest.raises(ValueError, match="epoch"):
        BlockOptimizer(_model(), order="random").block_order(2**64)


def test_bcd_refuses_a_torch_optimizer_class_as_its_factory():
    with pytest.raises(TypeError, match="optimizer must build a BlockOptimizer"):
        BlockCoordinateDescent(optimizer=torch.optim.AdamW)


def test_finetune_task_copies_tokens_and_checks_index_and_vocabulary():
    tokens = _tokens(4)
    problem = FinetuneTask(torch.nn.Linear(4, 4), CHAIN, tokens, batch_size=2)
    tokens[:] = 3
    assert not torch.equal(problem.tokens, tokens)          # the caller's later edit does not reach it
    for index, error, words in (([0, 99], ValueError, "index must lie in [0, n)"),
                                (torch.tensor([0.5]), TypeError, "index must be a 1-D integer tensor"),
                                (["a"], TypeError, "index must hold integer row indices")):
        with pytest.raises(error) as info:
            problem.loss(problem.model, index)
        assert words in str(info.value)
    with pytest.raises(ValueError, match=r"model outputs 8 logits per token, but task\.vocab_size is 4"):
        FinetuneTask(torch.nn.Linear(4, 8), CHAIN, _tokens(), batch_size=2)


def test_run_finetune_names_options_and_make_optimizer():
    problem = _finetune()
    with pytest.raises(TypeError, match="options must be a SolveOptions"):
        run_finetune(problem, lambda m, s: torch.optim.SGD(m.parameters(), lr=0.1), {"maxiters": 2})
    with pytest.raises(TypeError, match="make_optimizer"):
        run_finetune(problem, lambda m, s: "opt", SolveOptions(maxiters=2))


def test_low_rank_expansion_refuses_non_finite_x():
    layer = LowRankExpansion(torch.nn.Linear(4, 3), 2)
    with pytest.raises(ValueError, match="x contains NaN or inf"):
        layer(torch.full((2, 4), float("nan")))


def test_bcd_with_name_lists_is_hashable():
    lists = BlockCoordinateDescent(blocks=(["a"], ["b"]))
    tuples = BlockCoordinateDescent(blocks=(("a",), ("b",)))
    assert hash(lists) == hash(tuples)


def test_block_optimizer_state_dict_is_a_snapshot():
    model = _model()
    opt = BlockOptimizer(model, lr=0.01, switch_every=5)
    model(torch.ones(2, 3)).sum().backward()
    opt.step()
    saved = opt.state_dict()
    live = opt.base_optimizer.state[next(iter(opt.base_optimizer.state))]
    entry = saved["base"]["state"][0]
    assert all(entry[k] is not live[k] for k in entry if isinstance(entry[k], torch.Tensor))


def test_factories_that_cannot_take_their_call_are_named_at_construction():
    with pytest.raises(TypeError, match="optimizer must accept the call"):
        BlockCoordinateDescent(optimizer=lambda: None)
    with pytest.raises(TypeError, match="make_optimizer must take 2 positional"):
        run_finetune(_finetune(), lambda: None, SolveOptions(maxiters=1))
    BlockCoordinateDescent(optimizer=lambda model, **kw: BlockOptimizer(model, **kw))   # accepted
