"""One contract for every optimizer of the family (``OPTIMIZER_CASES`` and the block optimizer's
``OPTIMIZER_CASES_BCD``): they behave like torch's own. A test a block optimizer cannot meet by
design is listed, with the reason, in ``optimizer_cases_bcd.NOT_APPLICABLE``."""

import copy

import pytest
import torch

from tests.algorithms.optimizers.optimizer_cases import OPTIMIZER_CASES
from tests.algorithms.optimizers.optimizer_cases_bcd import NOT_APPLICABLE, OPTIMIZER_CASES_BCD


def _cases(test_name: str) -> list:
    """Every optimizer's case, less the block optimizer's where ``test_name`` does not apply to it."""
    block = [] if test_name in NOT_APPLICABLE else OPTIMIZER_CASES_BCD
    return [pytest.param(c, id=c.name) for c in [*OPTIMIZER_CASES, *block]]


def _params(dtype=torch.float32, seed=100):
    g = torch.Generator().manual_seed(seed)
    shapes = [(6, 5), (5,), (4, 7)]
    return [torch.nn.Parameter(torch.randn(s, generator=g).to(dtype)) for s in shapes]


def _loss(params, seed):
    g = torch.Generator().manual_seed(seed)
    return sum(((p.float() - torch.randn(p.shape, generator=g)) ** 2).sum() for p in params)


def _train(opt, params, seeds):
    for s in seeds:
        opt.zero_grad()
        _loss(params, s).backward()
        opt.step()


@pytest.mark.parametrize("case", _cases("test_is_a_torch_optimizer_and_decreases_the_loss"))
def test_is_a_torch_optimizer_and_decreases_the_loss(case):
    params = _params()
    opt = case.build(params)
    assert isinstance(opt, torch.optim.Optimizer)
    before = _loss(params, 0).item()
    _train(opt, params, [0] * 30)
    assert _loss(params, 0).item() < 0.9 * before


@pytest.mark.parametrize("case", _cases("test_param_groups_keep_their_own_lr"))
def test_param_groups_keep_their_own_lr(case):
    params = _params()
    opt = case.build([{"params": params[:2]}, {"params": params[2:], "lr": 0.0}])
    frozen = params[2].detach().clone()
    _train(opt, params, [1, 2, 3])
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["lr"] == 0.0
    assert torch.equal(params[2].detach(), frozen)          # lr 0 and no weight decay: untouched
    assert not torch.equal(params[0].detach(), _params()[0].detach())


@pytest.mark.parametrize("case", _cases("test_state_dict_round_trip_mid_training_gives_identical_next_steps"))
def test_state_dict_round_trip_mid_training_gives_identical_next_steps(case):
    params = _params()
    opt = case.build(params)
    _train(opt, params, [0, 1, 2, 3, 4])                    # past a preconditioner refresh
    saved_params = [p.detach().clone() for p in params]
    saved_state = copy.deepcopy(opt.state_dict())
    _train(opt, params, [5, 6, 7])
    reference = [p.detach().clone() for p in params]

    resumed = [torch.nn.Parameter(p.clone()) for p in saved_params]
    opt2 = case.build(resumed)
    opt2.load_state_dict(saved_state)
    _train(opt2, resumed, [5, 6, 7])
    for a, b in zip(resumed, reference, strict=True):
        assert torch.equal(a.detach(), b)


@pytest.mark.parametrize("case", _cases("test_zero_grad_and_closure"))
def test_zero_grad_and_closure(case):
    params = _params()
    opt = case.build(params)
    _loss(params, 0).backward()
    opt.zero_grad()
    assert all(p.grad is None for p in params)

    def closure():
        opt.zero_grad()
        loss = _loss(params, 0)
        loss.backward()
        return loss

    returned = opt.step(closure)
    assert torch.is_tensor(returned) and torch.isfinite(returned)
    assert all(p.grad is not None for p in params)


@pytest.mark.parametrize("case", _cases("test_low_precision_params_keep_fp32_state"))
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_low_precision_params_keep_fp32_state(case, dtype):
    params = _params(dtype)
    opt = case.build(params)
    _train(opt, params, [0, 1, 2])
    assert all(p.dtype == dtype for p in params)
    floats = [v for state in opt.state.values() for v in _tensors(state) if v.is_floating_point()]
    assert floats and all(v.dtype == torch.float32 for v in floats)
    # the fp32 state survives a state_dict round trip (torch's default would cast it to bfloat16)
    opt2 = case.build([torch.nn.Parameter(p.detach().clone()) for p in params])
    opt2.load_state_dict(opt.state_dict())
    floats2 = [v for state in opt2.state.values() for v in _tensors(state) if v.is_floating_point()]
    assert all(v.dtype == torch.float32 for v in floats2)


def _tensors(value):
    if torch.is_tensor(value):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _tensors(v)


@pytest.mark.parametrize("case", _cases("test_nonfinite_gradient_skips_without_touching_state_or_raises"))
def test_nonfinite_gradient_skips_without_touching_state_or_raises(case):
    params = _params()
    opt = case.build(params)
    _train(opt, params, [0, 1])
    before_params = [p.detach().clone() for p in params]
    before_state = copy.deepcopy(opt.state_dict())
    opt.zero_grad()
    _loss(params, 2).backward()
    params[0].grad[0, 0] = float("nan")
    opt.step()
    assert opt.skipped_steps == 1
    assert all(torch.equal(a.detach(), b) for a, b in zip(params, before_params, strict=True))
    after_state = opt.state_dict()
    for key, state in before_state["state"].items():
        for a, b in zip(_tensors(state), _tensors(after_state["state"][key]), strict=True):
            assert torch.equal(a, b)
    opt.on_nonfinite = "raise"
    with pytest.raises(FloatingPointError, match="on_nonfinite"):
        opt.step()


@pytest.mark.parametrize("case", _cases("test_state_dict_from_another_optimizer_is_refused"))
def test_state_dict_from_another_optimizer_is_refused(case):
    params = _params()
    opt = case.build(params)
    adamw = torch.optim.AdamW(params, lr=0.01)
    _loss(params, 0).backward()
    adamw.step()
    with pytest.raises(ValueError, match="state_dict"):
        opt.load_state_dict(adamw.state_dict())
