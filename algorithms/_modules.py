"""The package's ``nn.Module`` base: ``load_state_dict`` checked before torch copies anything."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from torch import nn

from algorithms._validation import check_entries_in_range, check_module_load, refuse_unknown_attribute

__all__ = ["FUNCTION_METHODS", "CheckedStateModule", "check_parameter_values", "check_structure", "eval_mode",
           "has_forward_hooks", "overrides_any", "refuse_reassignment", "refuse_unknown_module_attribute",
           "remember_structure"]


class CheckedStateModule(nn.Module):
    """An ``nn.Module`` whose ``load_state_dict`` refuses, before anything is loaded, a ``strict``/``assign``
    that is not a bool (``strict="no"`` was truthy), NaN/inf or non-floating weights, wrong shapes and
    (strict) missing or unexpected keys, each by name: torch loads NaN as it is and half loads a state
    dict whose later entry it then refuses.

    A subclass that calls :func:`fix_attributes` last in its ``__init__`` refuses, from then on, a public name
    it does not have (:func:`refuse_unknown_module_attribute`; ``net.in_featuress = 5`` was stored and
    ignored). A subclass lists in ``_FIXED`` the attributes its parameters were built for (sizes, the seed,
    the activation): assigning another value after construction is refused by :func:`refuse_reassignment`
    (``net.width = 16`` gave wrong scaled learning rates, ``vocab_size = 20`` an IndexError inside
    torch, in silence or naming nothing)."""

    _FIXED: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if self._FIXED:
            refuse_reassignment(self, name, value, self._FIXED)
        refuse_unknown_module_attribute(self, name, value)  # once the subclass called fix_attributes
        super().__setattr__(name, value)

    def load_state_dict(self, state_dict: Any, strict: Any = True, assign: Any = False):
        strict, assign = check_module_load(self, state_dict, strict, assign)
        return super().load_state_dict(state_dict, strict=strict, assign=assign)


def refuse_reassignment(module: nn.Module, name: str, value: Any, fixed: tuple[str, ...]) -> None:
    """Called from a module's ``__setattr__``: an attribute in ``fixed`` (a size, an operator) that the
    parameters were built for cannot take another value after construction. Assigning one only moved
    the error to ``forward`` (a shape error naming X, or an AttributeError), so it is refused by name."""
    if name not in fixed or name not in module.__dict__:
        return
    old = module.__dict__[name]
    if value is old:
        return
    try:
        same = bool(value == old)
    except (TypeError, ValueError, RuntimeError):  # arrays/tensors of several entries: not the same object
        same = False
    if not same:
        kind = type(module).__name__
        raise ValueError(f"{name} is fixed by {kind}'s construction ({old!r:.40}); build a new {kind} for "
                         f"another one, got {type(value).__name__} {value!r:.40}")


def remember_structure(module: nn.Module) -> None:
    """Record the names and shapes of ``module``'s parameters as built, for :func:`check_structure`."""
    module.__dict__["_built_shapes"] = {name: tuple(p.shape) for name, p in module.named_parameters()}


def check_structure(module: nn.Module) -> None:
    """``module``'s parameters as :func:`remember_structure` recorded them: a submodule or parameter
    replaced after construction (``net.readout = nn.Linear(8, 7)`` answered 7 outputs for out_features 3 in
    silence; ``net.blocks[0] = nn.Linear(8, 5)`` failed inside torch naming nothing) is refused by name.
    One pass over the parameters' shapes (a forward's own cost is far larger)."""
    built = module.__dict__.get("_built_shapes")
    if built is None:
        return
    now = {name: tuple(p.shape) for name, p in module.named_parameters()}
    dtypes = {name: p.dtype for name, p in module.named_parameters() if p.is_floating_point()}
    if len(set(dtypes.values())) > 1:   # one parameter replaced by another dtype: torch's matmul error
        kind = type(module).__name__
        shown = ", ".join(f"{k}: {v}" for k, v in dtypes.items())
        raise ValueError(f"{kind}'s parameters must share one dtype (convert the whole module with .double() "
                         f"or .float()); one was replaced after construction: {shown[:200]}")
    if now != built:
        kind = type(module).__name__
        changed = sorted(k for k in built.keys() | now.keys() if built.get(k) != now.get(k))
        shown = ", ".join(f"{k}: {built.get(k, 'absent')} -> {now.get(k, 'absent')}" for k in changed[:4])
        raise ValueError(f"{kind}'s submodules or parameters were replaced after construction ({shown}); "
                         f"its sizes are fixed: build a new {kind}")


def fix_attributes(module: nn.Module) -> None:
    """Called last in a module's ``__init__``: from then on :func:`refuse_unknown_module_attribute` refuses
    a public name the module does not have."""
    module.__dict__["_attributes_fixed"] = True


def refuse_unknown_module_attribute(module: nn.Module, name: str, value: Any) -> None:
    """Called from a module's ``__setattr__``: once built (:func:`fix_attributes`), a public name that is
    none of its attributes, parameters, buffers or submodules is refused by name (``net.channelss = 8`` or
    ``model.seed = 7`` was stored and ignored in silence). A submodule or Parameter assigned under a new name
    is torch's registration (refused at use by :func:`check_structure` where the structure is fixed)."""
    if not module.__dict__.get("_attributes_fixed") or isinstance(value, nn.Module | nn.Parameter):
        return
    refuse_unknown_attribute(module, name, (*module._parameters, *module._buffers, *module._modules))


def check_parameter_values(module: nn.Module) -> None:
    """``module``'s parameters floating (a TypeError naming one that is not), finite and inside the working
    range (|entry| <= 3.4e38), else a ValueError naming the parameter: ``load_state_dict`` refuses such
    weights, but one written in place or replaced after construction (``net.layer.weight[0, 0] = 1e39``)
    was used by forward in silence, and a NaN or an int Parameter met torch's own errors naming nothing.
    One pass over the parameters (a forward costs more)."""
    import torch

    kind = type(module).__name__
    for key, param in module.named_parameters():
        if not param.is_floating_point():  # an int Parameter put in place of a weight: torch's dtype errors
            raise TypeError(f"{kind}.{key} must be a floating parameter (as built), got {param.dtype} "
                            f"(replaced after construction); build, load or train a new {kind}")
        if param.device.type == "meta":
            continue
        values = param.detach()
        if not bool(torch.isfinite(values).all()):
            raise ValueError(f"{kind}.{key} contains NaN or inf entries (written in place after "
                             f"construction); build, load or train a new {kind}")
        check_entries_in_range(f"{kind}.{key} (a parameter written in place after construction)", values)


@contextlib.contextmanager
def eval_mode(module: nn.Module) -> Iterator[nn.Module]:
    """Run a user's network for inference in eval mode (dropout off, batch-norm statistics read, not updated),
    each submodule's own mode restored after: a network in train mode (as torch builds it) drew its dropout
    from torch's global generator (one seed, different answers) and rewrote its batch-norm statistics."""
    modes = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        yield module
    finally:
        for m, mode in modes:
            m.training = mode


#: the methods through which calling a module computes its function
FUNCTION_METHODS = ("forward", "__call__", "_call_impl")


def overrides_any(model: Any, cls: type, names: tuple[str, ...] = FUNCTION_METHODS) -> bool:
    """Whether ``type(model)`` defines any of ``names`` other than ``cls`` does (a subclass's own forward):
    a closed form written for ``cls``'s function would then answer for another one."""
    kind = type(model)
    return any(getattr(kind, name, None) is not getattr(cls, name, None) for name in names)


def has_forward_hooks(module: nn.Module) -> bool:
    """Whether a forward hook or pre-hook (the module's own, a submodule's, or torch's global ones) may change
    what calling ``module`` computes: a closed form bypassing the call would ignore it."""
    from torch.nn.modules import module as nn_module

    return bool(nn_module._global_forward_hooks or nn_module._global_forward_pre_hooks) or any(
        sub._forward_hooks or sub._forward_pre_hooks for sub in module.modules())
