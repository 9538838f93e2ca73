"""#43 round 11 (pre-audit sweep) for the optimizers family: each class found, with its message's words."""

import pytest
import torch

from algorithms.optimizers import MLP, Transformer, param_groups


# ------------------------------ class 1: a size attribute reassigned after construction
@pytest.mark.parametrize("make, attribute, value", [
    (lambda: MLP(3, 2, width=8, depth=2), "width", 16),      # param_groups scaled lr for width 16, in silence
    (lambda: MLP(3, 2, width=8, depth=2), "residual_multiplier", float("nan")),
    (lambda: Transformer(11, 8, 1, 2, 8), "vocab_size", 20),  # an IndexError inside nn.Embedding
    (lambda: Transformer(11, 8, 1, 2, 8), "residual_multiplier", 5.0),    # ignored by the blocks
])
def test_an_attribute_the_weights_were_built_for_cannot_be_reassigned(make, attribute, value):
    model = make()
    with pytest.raises(ValueError, match=f"{attribute} is fixed by"):
        setattr(model, attribute, value)
    if isinstance(model, MLP):
        assert param_groups(model, "adamw", 0.1, base_width=8)[1]["lr"] == 0.1


# ------------------------------ class 2: a field of a frozen problem/algorithm replaced after construction
def _training():
    from algorithms.optimizers import MarkovLanguageTask, OptimizerTraining, TrainingProblem
    task = MarkovLanguageTask(vocab_size=8, context=8, seed=0)
    return TrainingProblem(MLP(8, 8, width=16, depth=1, seed=0), task, steps=3), OptimizerTraining("adamw")


@pytest.mark.parametrize("which, field, value, kind", [
    (0, "eval_every", 0, ValueError),                # a ZeroDivisionError inside the run
    (0, "divergence_factor", float("nan"), ValueError),    # ran, never Diverged
    (0, "target_loss", -1.0, ValueError),
    (0, "task", None, TypeError),                    # an AttributeError inside the run
    (1, "optimizer", "sgd", ValueError),             # a KeyError
    (1, "independent_weight_decay", -1.0, ValueError),
    (2, "vocab_size", 0, ValueError),                # the problem's task
])
def test_a_field_replaced_with_object_setattr_is_refused_at_solve(which, field, value, kind):
    from algorithms import solve
    problem, algorithm = _training()
    object.__setattr__((problem, algorithm, problem.task)[which], field, value)
    with pytest.raises(kind, match=f"changed after construction.*{field}"):
        solve(problem, algorithm, seed=0)


# ------------------------------ class 3: optimizer_state_bytes counted a wrapped optimizer's state as 0
def test_state_bytes_count_a_sam_base_optimizers_moments():
    from algorithms.nets import SAM
    from algorithms.optimizers import optimizer_state_bytes
    w = torch.nn.Parameter(torch.zeros(10))
    sam = SAM([w], base_optimizer=torch.optim.Adam, lr=0.1)

    def closure():
        sam.zero_grad()
        loss = (w - 1).pow(2).sum()
        loss.backward()
        return loss

    sam.step(closure)
    assert optimizer_state_bytes(sam) == 84      # exp_avg, exp_avg_sq (10 float32 each), the step counter


# ------------------------------ class 4: a group edited after construction re-checked with its parameters
def test_use_muon_edited_onto_a_vector_is_refused_at_step():
    from algorithms.optimizers import Muon
    w = torch.nn.Parameter(torch.ones(3))
    opt = Muon([w])
    opt.param_groups[0]["use_muon"] = True
    w.grad = torch.ones(3)
    with pytest.raises(ValueError, match=r"param_groups\[0\] was edited.*use_muon=True"):
        opt.step()
    assert torch.equal(w.detach(), torch.ones(3))


# ------------------------------ class 5: a name listed twice inside one block was deduplicated in silence
def test_find_blocks_refuses_a_name_listed_twice_in_one_block():
    from algorithms.optimizers import find_blocks
    with pytest.raises(ValueError, match=r"blocks\[0\] lists \['a.w'\] more than once"):
        find_blocks(["a.w", "b.w"], blocks=[["a.w", "a.w"], ["b.w"]])


# ------------------------------ class 6: a closure or factory raising KeyError reached the caller bare
def test_a_raising_closure_is_named_as_a_user_callable_error():
    from algorithms._validation import UserCallableError
    from algorithms.nets import SAM
    from algorithms.optimizers import BlockOptimizer, Muon

    def closure():
        raise KeyError("boom")

    for opt in (Muon([torch.nn.Parameter(torch.ones(2, 2))]),
                SAM([torch.nn.Parameter(torch.ones(2))], lr=0.1),
                BlockOptimizer(torch.nn.Sequential(torch.nn.Linear(2, 2)))):
        with pytest.raises(UserCallableError, match=r"closure\(\) raised KeyError"):
            opt.step(closure)


# ------------------------------ class 2 (methods): a task's own methods re-validate it, caches included
def test_a_task_changed_after_construction_is_revalidated_by_its_methods():
    from algorithms.optimizers import MarkovLanguageTask
    task = MarkovLanguageTask(vocab_size=8, context=6, seed=0)
    task.entropy_rate()                                 # caches the 8 x 8 transition matrix
    object.__setattr__(task, "vocab_size", 4)
    assert int(task.sample(16, torch.Generator().manual_seed(0)).max()) < 4
    assert task.transition.shape == (4, 4)
    object.__setattr__(task, "vocab_size", -1)
    with pytest.raises(ValueError, match="vocab_size was changed after construction"):
        task.sample(2, torch.Generator())


# ------------------------------ first run: extreme finite values accepted in silence
@pytest.mark.parametrize("call, words", [
    (lambda: __import__("algorithms.optimizers", fromlist=["SOAP"]).SOAP(
        [torch.nn.Parameter(torch.ones(2, 2))], lr=5e-324), "lr must be 0 or >= 1.175e-38"),
    (lambda: __import__("algorithms.optimizers", fromlist=["FullFinetune"]).FullFinetune(lr=1e308),
     r"lr = 1e\+308 is outside the package's working range"),
    (lambda: __import__("algorithms.optimizers", fromlist=["MarkovLanguageTask"]).MarkovLanguageTask(
        concentration=1e308), r"concentration = 1e\+308 is outside the package's working range"),
    (lambda: __import__("algorithms.optimizers", fromlist=["lr_multiplier"]).lr_multiplier(
        "shampoo", 4.0, 1e308), r"d_out_ratio = 1e\+308 is outside the package's working range"),
])
def test_first_run_extreme_values_are_refused_by_name(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# ------------------------------ first run: optimizer attributes set after construction
@pytest.mark.parametrize("attribute, value", [
    ("on_nonfinite", 3), ("skipped_steps", -1), ("skipped_steps", 1.5), ("head", 3)])
def test_first_run_optimizer_attributes_are_checked_when_set(attribute, value):
    from algorithms.optimizers import Muon
    opt = Muon([torch.nn.Parameter(torch.ones(2, 2))])
    with pytest.raises((TypeError, ValueError), match=attribute):
        setattr(opt, attribute, value)
    opt.on_nonfinite, opt.skipped_steps = "skip", 2       # valid values are kept
    assert (opt.on_nonfinite, opt.skipped_steps) == ("skip", 2)


@pytest.mark.parametrize("attribute, value", [
    ("switch_every", 0), ("switch_every", 1.5), ("order", "bogus"), ("expansion", "bogus"), ("base", dict)])
def test_block_optimizer_attributes_are_checked_when_set(attribute, value):
    from algorithms.optimizers import BlockOptimizer
    opt = BlockOptimizer(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)), switch_every=1)
    with pytest.raises((TypeError, ValueError), match=attribute):
        setattr(opt, attribute, value)
    opt.switch_every = 3
    assert opt.switch_every == 3
