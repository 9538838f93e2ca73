"""What every optimizer of the family shares: hyperparameter checks, the non-finite-gradient flag,
fp32 state for low-precision parameters, and a ``state_dict`` that knows which optimizer wrote it.

Not public: :class:`~algorithms.optimizers.Muon`, :class:`~algorithms.optimizers.Shampoo` and
:class:`~algorithms.optimizers.SOAP` subclass :class:`MatrixOptimizer`.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable
from itertools import chain
from typing import Any

import torch

from algorithms._validation import (
    check_choice,
    check_int_at_least,
    check_nonnegative,
    check_optimizer_state,
    check_positive,
)

#: what ``step`` does when a gradient holds NaN or ±inf
NONFINITE_POLICIES = ("skip", "raise")


def check_lr(value: Any) -> float:
    """``lr`` >= 0 and finite (torch's own rule), as a float."""
    return check_nonnegative("lr", value)


def check_unit_interval(name: str, value: Any) -> float:
    """A momentum / EMA coefficient in [0, 1)."""
    value = check_nonnegative(name, value)
    if value >= 1.0:
        raise ValueError(f"{name} must be in [0, 1), got {value!r}")
    return value


def check_betas(value: Any, name: str = "betas") -> tuple[float, float]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (beta1, beta2) in [0, 1), got {value!r}")
    return check_unit_interval(f"{name}[0]", value[0]), check_unit_interval(f"{name}[1]", value[1])


def check_eps(name: str, value: Any) -> float:
    return check_positive(name, value)


def check_frequency(name: str, value: Any) -> int:
    return check_int_at_least(name, value, 1)


class MatrixOptimizer(torch.optim.Optimizer):
    """A ``torch.optim.Optimizer`` with the family's common behaviour.

    * ``on_nonfinite="warn"`` (the default of Shampoo and SOAP): a step whose gradients hold
      NaN/±inf changes neither the parameters nor the state (``skipped_steps`` counts them) and
      warns (``RuntimeWarning``); ``"skip"``: the same without the warning; ``"raise"``:
      FloatingPointError. (torch's own optimizers write the NaN into the weights.)
    * state tensors are float32 (float64 for float64 parameters), whatever the parameter
      dtype: a bfloat16 parameter is updated from an fp32 computation and rounded once.
    * ``state_dict()`` records the optimizer class; ``load_state_dict`` refuses another
      optimizer's state and restores the state tensors without casting them to the
      parameter dtype (torch's default would round fp32 state to bfloat16).
    """

    def __init__(self, params, defaults: dict[str, Any], on_nonfinite: str = "warn") -> None:
        self.on_nonfinite = check_choice("on_nonfinite", on_nonfinite, ("warn", *NONFINITE_POLICIES))
        self.skipped_steps = 0
        try:
            super().__init__(params, defaults)
        except (TypeError, ValueError) as exc:  # torch's message about params, raised from here
            raise type(exc)(f"{type(self).__name__}: params: {exc}") from None
        for group in self.param_groups:
            self._check_group(group)

    def _check_group(self, group: dict[str, Any]) -> None:
        """Validate one parameter group's hyperparameters (subclasses extend it)."""
        group["lr"] = check_lr(group["lr"])
        group["weight_decay"] = check_nonnegative("weight_decay", group["weight_decay"])
        for p in group["params"]:
            if not p.is_floating_point() or p.is_complex():
                raise TypeError(f"{type(self).__name__}: params must be real floating tensors, "
                                f"got dtype {p.dtype}")
            if p.device.type == "meta":  # no data: the first finiteness check fails in Tensor.item()
                raise ValueError(f"{type(self).__name__}: params must hold data, got a tensor on the meta "
                                 f"device (materialize the model with .to_empty(device=...) first)")

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        built = hasattr(self, "skipped_steps")  # after __init__ (whose own wrapper names params)
        try:
            super().add_param_group(param_group)
        except (TypeError, ValueError) as exc:  # torch's message (a parameter in two groups) names nothing
            if not built:
                raise
            raise type(exc)(f"{type(self).__name__}.add_param_group: params: {exc}") from None
        if built:  # validate the new group too; a refused group is not left behind
            try:
                self._check_group(self.param_groups[-1])
            except (TypeError, ValueError):
                self.param_groups.pop()
                raise

    @staticmethod
    def state_dtype(p: torch.Tensor) -> torch.dtype:
        """The dtype of ``p``'s optimizer state: float64 for float64 parameters, else float32."""
        return torch.float64 if p.dtype == torch.float64 else torch.float32

    def _gradients_finite(self) -> bool:
        by_kind: dict[tuple, list[torch.Tensor]] = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.is_sparse:  # the dense preconditioners below cannot take one (as torch's Adam)
                        raise RuntimeError(f"{type(self).__name__} does not support sparse gradients: a "
                                           f"parameter of shape {tuple(p.shape)} has one (e.g. from "
                                           "nn.Embedding(sparse=True)); use dense gradients")
                    by_kind.setdefault((p.grad.device, p.grad.dtype), []).append(p.grad)
        for (device, _), grads in by_kind.items():
            found = torch.zeros(1, device=device)
            try:  # GradScaler's fused check (one kernel per dtype); multiplying by 1 leaves grads as they are
                torch._amp_foreach_non_finite_check_and_unscale_(grads, found, torch.ones(1, device=device))
            except (RuntimeError, AttributeError):
                found = torch.stack([~torch.isfinite(g).all() for g in grads]).any().float()
            if found.item():
                return False
        return True

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One step; ``closure`` (optional) re-evaluates the loss with gradients and returns it."""
        return self._step(closure)

    def _step(self, closure: Callable[[], Any] | None) -> Any:
        """:meth:`step`'s body, under ``torch.no_grad`` (a subclass's ``step`` decorates and calls it)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if not self._gradients_finite():
            if self.on_nonfinite == "raise":
                raise FloatingPointError(f"{type(self).__name__}.step: a gradient holds NaN or inf "
                                         "(on_nonfinite='raise'); set on_nonfinite='skip' to skip "
                                         "such steps")
            self.skipped_steps += 1
            if self.on_nonfinite == "warn":
                warnings.warn(f"{type(self).__name__}.step: a gradient holds NaN or inf; the step was "
                              f"skipped (parameters and state unchanged, {self.skipped_steps} skipped so "
                              "far). Pass on_nonfinite='raise' to stop, or 'skip' to skip silently",
                              RuntimeWarning,
                              stacklevel=2)
            return loss
        for group in self.param_groups:
            self._step_group(group)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:
        """The loop every optimizer of the family shares: for each parameter with a gradient,
        ``W ← (1 − lr·λ) W − s·D`` with (D, s) from :meth:`_direction`, in the state dtype and
        written back once. A weight decay of 0 skips the multiplication by 1 (exact either way)."""
        for p in group["params"]:
            if p.grad is not None and p.numel():  # a 0-element parameter has nothing to step (as torch's)
                self._step_param(p, group)

    def _step_param(self, p: torch.Tensor, group: dict[str, Any]) -> None:
        """One parameter's step of :meth:`_step_group`."""
        lr, wd = group["lr"], group["weight_decay"]
        dtype = self.state_dtype(p)
        value = p.to(dtype)                 # p itself for float32 / float64 parameters
        direction, step_size = self._direction(p, p.grad.to(dtype), self.state[p], group, dtype)
        if wd != 0:
            value.mul_(1 - lr * wd)
        value.add_(direction, alpha=-step_size)
        self._write(p, value)

    def _direction(self, p: torch.Tensor, grad: torch.Tensor, state: dict[str, Any], group: dict[str, Any],
                   dtype: torch.dtype) -> tuple[torch.Tensor, float]:
        """(D, s): the update direction of ``p`` (in ``dtype``, updating ``state``) and its step size."""
        raise NotImplementedError

    @staticmethod
    def _write(p: torch.Tensor, value: torch.Tensor) -> None:
        """Store an fp32/fp64 result in ``p``, rounding once to ``p``'s dtype (a no-op when ``value``
        is ``p`` itself: fp32/fp64 parameters are updated in place)."""
        if value.data_ptr() != p.data_ptr():
            p.copy_(value)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["optimizer"] = type(self).__name__
        return state

    def _check_saved_groups(self, groups: Any) -> None:
        """Each saved group's hyperparameters checked as the constructor checks them, before anything is
        loaded (torch loads ``lr="fast"`` or ``lr=-1.0`` as they are: a later step fails or ascends)."""
        if not isinstance(groups, list) or len(groups) != len(self.param_groups):
            return                  # torch's own load reports a mismatched group count
        for index, (own, group) in enumerate(zip(self.param_groups, groups, strict=True)):
            if not isinstance(group, dict):
                continue
            candidate = {**self.defaults, **{k: v for k, v in group.items() if k != "params"},
                         "params": own["params"]}
            try:
                with warnings.catch_warnings():  # a group key warning is the load's, given below by torch
                    warnings.simplefilter("ignore")
                    self._check_group(candidate)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"state_dict['param_groups'][{index}]: {exc}") from None

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not isinstance(state_dict, dict):
            raise TypeError(f"state_dict must be a dict from {type(self).__name__}.state_dict(), "
                            f"got {type(state_dict).__name__}")
        written_by = state_dict.get("optimizer")
        if written_by != type(self).__name__:
            raise ValueError(f"state_dict was written by {written_by or 'another optimizer (no tag)'}, "
                             f"expected a {type(self).__name__} state_dict")
        saved = {k: v for k, v in state_dict.items() if k != "optimizer"}
        check_optimizer_state(saved, self.param_groups)
        self._check_saved_groups(saved.get("param_groups"))
        super().load_state_dict(saved)
        for group in self.param_groups:     # keys an older state_dict lacks (a keyword added since, e.g.
            for key, value in self.defaults.items():    # root_dtype) keep the values this one was built with
                group.setdefault(key, value)
        params = list(chain.from_iterable(g["params"] for g in self.param_groups))
        for index, p in enumerate(params):
            if index in saved["state"]:
                self.state[p] = _copy_to(saved["state"][index], p.device)


def _copy_to(value: Any, device: torch.device) -> Any:
    """A deep copy with every tensor moved to ``device``, dtypes kept."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone().to(device)
    if isinstance(value, dict):
        return {k: _copy_to(v, device) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_copy_to(v, device) for v in value)
    return copy.deepcopy(value)


def adamw_direction(grad: torch.Tensor, state: dict[str, Any], betas: tuple[float, float],
                    eps: float) -> torch.Tensor:
    """The bias-corrected Adam direction m̂ / (√v̂ + ε), updating ``state``'s moments in place."""
    if "exp_avg" not in state:
        state["exp_avg"] = torch.zeros_like(grad)
        state["exp_avg_sq"] = torch.zeros_like(grad)
        state["adam_step"] = 0
    state["adam_step"] += 1
    beta1, beta2 = betas
    state["exp_avg"].lerp_(grad, 1 - beta1)
    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    t = state["adam_step"]
    return (state["exp_avg"] / adam_denominator(state["exp_avg_sq"], beta2**t, eps)).div_(1 - beta1**t)


def adam_denominator(exp_avg_sq: torch.Tensor, beta2_power: float, eps: float) -> torch.Tensor:
    """√v̂ + ε = √v / √(1 − β₂ᵗ) + ε (torch.optim.Adam's order of operations), a new tensor."""
    return exp_avg_sq.sqrt().div_(math.sqrt(1 - beta2_power)).add_(eps)
