"""Round 20 of issue #43 (optimizers): an optimizer a user's factory built, failing part-way through a run."""

import functools

import numpy as np
import pytest
import torch

from algorithms._validation import UserCallableError
from algorithms.core import RetCode, solve
from algorithms.optimizers import BlockOptimizer, OptimizerTraining
from algorithms.optimizers.block import BlockCoordinateDescent
from tests.algorithms.optimizers.cases_bcd_expansion import _task
from tests.algorithms.optimizers.cases_second_order_scaling import make_training


def _failing_after(base: type, k: int, failure: str) -> type:
    class Failing(base):
        def step(self, closure=None):
            self.__dict__["_calls"] = self.__dict__.get("_calls", 0) + 1
            out = super().step(closure)
            if self.__dict__["_calls"] > k:
                if failure == "raises":
                    raise KeyError("the user's own error")
                with torch.no_grad():
                    for group in self.param_groups:
                        for p in group["params"]:
                            p.fill_(float(failure))
            return out

    return Failing


@pytest.mark.parametrize("k", [0, 1, 3])
def test_a_factory_built_optimizer_raising_mid_run_is_named(k):
    # its KeyError reached the caller bare, naming neither the step nor the factory
    problem, _ = make_training(np.float32)
    cls = _failing_after(torch.optim.AdamW, k, "raises")
    algorithm = OptimizerTraining("adamw", lr=0.02, factory=lambda groups, lr, **kw: cls(groups, lr=lr, **kw))
    with pytest.raises(UserCallableError, match=r"optimizer\.step\(\).*factory.*raised KeyError"):
        solve(problem, algorithm, seed=0, maxiters=6)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_a_block_optimizer_raising_mid_run_is_named(k):
    cls = _failing_after(BlockOptimizer, k, "raises")
    algorithm = BlockCoordinateDescent(lr=2e-2, switch_every=10, optimizer=functools.partial(cls))
    with pytest.raises(UserCallableError, match=r"step\(\).*BlockCoordinateDescent.*raised KeyError"):
        solve(_task(np.float64), algorithm, seed=0, maxiters=6)


@pytest.mark.parametrize("value", ["nan", "inf"])
@pytest.mark.parametrize("k", [0, 1, 3])
def test_a_factory_built_optimizer_writing_non_finite_weights_ends_diverged(value, k):
    problem, _ = make_training(np.float32)
    cls = _failing_after(torch.optim.AdamW, k, value)
    algorithm = OptimizerTraining("adamw", lr=0.02, factory=lambda groups, lr, **kw: cls(groups, lr=lr, **kw))
    assert solve(problem, algorithm, seed=0, maxiters=6).retcode is RetCode.Diverged


@pytest.mark.parametrize("seed", [float("nan"), -1.0, torch.tensor(float("nan")), "x", None])
def test_block_optimizer_load_refuses_a_bad_schedule_seed_under_any_order(seed):
    # red20a: compared with the optimizer's own only under order="random"; loaded in silence otherwise
    import copy

    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    opt = BlockOptimizer(model, lr=0.01, switch_every=2)
    X, Y = torch.randn(5, 3), torch.randn(5, 2)
    for _ in range(2):
        opt.zero_grad()
        ((model(X) - Y) ** 2).mean().backward()
        opt.step()
    state = copy.deepcopy(opt.state_dict())
    state["schedule"]["seed"] = seed
    with pytest.raises(TypeError, match=r"state_dict\['schedule'\]\['seed'\] must be an int"):
        opt.load_state_dict(state)


def test_run_finetune_refuses_a_make_optimizer_that_freezes_the_model():
    # red20a: autograd's "element 0 of tensors does not require grad", naming nothing
    from algorithms.core import SolveOptions
    from algorithms.optimizers import markov_finetune_task, run_finetune

    task = markov_finetune_task(vocab_size=6, context=4, n=16, width=8, depth=1, pretrain_steps=2, seed=1)

    def freeze(model, seed):
        for p in model.parameters():
            p.requires_grad_(False)
        return torch.optim.SGD(model.parameters(), lr=0.1)

    with pytest.raises(ValueError, match="make_optimizer must leave the model trainable"):
        run_finetune(task, freeze, SolveOptions(maxiters=5, seed=0))


class _DuckModel(torch.nn.Module):
    def __init__(self, width, depth, roles):
        super().__init__()
        self.a = torch.nn.Linear(4, 4)
        self.width, self.depth, self._roles = width, depth, roles

    def parameter_roles(self):
        return self._roles


_ROLES = {"a.weight": "hidden", "a.bias": "vector"}


@pytest.mark.parametrize("width, depth, roles, words", [
    (float("nan"), 2, _ROLES, "model.width"), (0, 2, _ROLES, "model.width"), ("64", 2, _ROLES, "model.width"),
    (True, 2, _ROLES, "model.width"), (64.5, 2, _ROLES, "model.width"),
    (64, float("nan"), _ROLES, "model.depth"),
    (64, 2, [("a.weight", "hidden")], r"model.parameter_roles\(\)"),
])
def test_param_groups_checks_a_duck_typed_models_width_depth_and_roles(width, depth, roles, words):
    # red20a: NaN/0/"64" met arithmetic errors; True (read as 1) and 64.5 ran in silence
    from algorithms.optimizers import param_groups

    with pytest.raises((TypeError, ValueError), match=words):
        param_groups(_DuckModel(width, depth, roles), "adamw", 0.01, base_width=16, base_depth=1)
