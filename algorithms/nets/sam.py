"""Sharpness-aware minimization (SAM) and plain SGD on two-layer ReLU regression tasks.

SAM (Foret et al. 2021) takes, on the mini-batch loss L_B,

    ε_t = ρ ∇L_B(θ_t) / ‖∇L_B(θ_t)‖          (``normalize=True``; ε_t = ρ ∇L_B(θ_t) otherwise)
    θ_{t+1} = θ_t − η ∇L_B(θ_t + ε_t),

so ρ = 0 is exactly SGD. :class:`SAM` is the ``torch.optim.Optimizer`` (first_step /
second_step around a base optimizer, the usual PyTorch convention); :class:`SAMTraining`
and :class:`SGDTraining` run it through ``solve`` on a :class:`TwoLayerMSETask`
(mean squared error of a :class:`~algorithms.nets.two_layer.TwoLayerReLU`), with batches
drawn without replacement in epochs. :func:`minimum_diagnostics` measures, at the
reached point, the sharpness λ_max(∇²L), the per-sample Gauss–Newton Hessians
H_i = 2∇f_i∇f_iᵀ (the per-sample Hessians at an interpolating minimum), their
coherence matrix S and coherence measure σ, and the exact mean-square radius of
linearized SGD there (:mod:`algorithms.nets.stability`).

References
----------
P. Foret, A. Kleiner, H. Mobahi, B. Neyshabur. Sharpness-aware minimization for
efficiently improving generalization. ICLR 2021. W.-K. Chang, R. Khanna. A unified
stability analysis of SAM vs SGD: role of data coherence and emergence of simplicity
bias. NeurIPS 2025, arXiv:2511.17378 (Section 4, Table 1: SAM reaches minima of lower
λ_max(H), λ_max(S) and σ than SGD on the y = x₀x₁ task).

>>> from algorithms import solve
>>> task = parity_task(n=16, in_features=4, width=8, seed=0)
>>> sol = solve(task, SAMTraining(lr=0.1, rho=0.05, batch_size=4), maxiters=50, seed=0)
>>> sol.retcode in (RetCode.Success, RetCode.MaxIters), sol.x.shape
(True, (48,))
"""

from __future__ import annotations

import difflib
import inspect
import math
import numbers
import warnings
import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    WORKING_MAX,
    UserCallableError,
    allocates,
    as_float_array,
    call_user,
    check_bool,
    check_count,
    check_float_dtype,
    check_nonnegative,
    check_optimizer_state,
    check_positive,
    check_positive_int,
    check_saved_hyperparameters,
    check_seed,
    checked_fields,
    clone_tensors,
    refuse_replaced,
    refuse_unknown_attribute,
    reseal_state,
    revalidate_if_reassigned,
    seal_arrays,
    step_needs_closure,
    store_plain_scalars,
)
from algorithms.core import (
    Algorithm,
    IterationMonitor,
    Problem,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    _dispatch,
)
from algorithms.nets.functional import (
    _flatten_params,
    flat_hessian,
    flatten_params,
    per_sample_flat_grads,
    per_sample_flat_hessians,
)
from algorithms.nets.stability import coherence_matrix, mean_square_radius
from algorithms.nets.two_layer import ACTIVATIONS, TwoLayerReLU, check_init_scale
from algorithms.optimizers._base import (  # schedulers' keys, labels
    CLOSURE_OWN_ERRORS,
    EXTRA_GROUP_KEYS,
    LR_MIN,
    MatrixOptimizer,
    check_keyword_kinds,
    check_lr,
    check_params_lists,
    check_real_keywords,
    check_state_finite,
    check_state_layout,
    step_base,
    step_user,
    wrapped_by,
)

__all__ = [
    "SAM",
    "SAMTraining",
    "SGDTraining",
    "TwoLayerMSETask",
    "generalizing_solution",
    "memorizing_solution",
    "minimum_diagnostics",
    "parity_task",
    "sample_coherence_matrix",
]


def _check_finite_keywords(keywords: dict[str, Any], where: str) -> dict[str, Any]:
    """Every real-number hyperparameter (and each number inside a tuple such as ``betas``) finite and inside
    the working range, as floats: torch's SGD takes ``momentum=nan`` and ``weight_decay=inf`` and steps NaN
    into the weights, ``momentum=1e300`` stepped inf into them and ``weight_decay=1e39`` failed inside
    torch's add_ naming nothing."""
    return check_real_keywords(keywords, where)


_UNSET = object()


@lru_cache(maxsize=64)
def _takes(cls: type, key: str) -> bool:
    """Whether ``cls``'s constructor takes the keyword ``key`` (AdamW's defaults hold Adam's
    ``decoupled_weight_decay``, which AdamW(...) refuses)."""
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return True
    return key in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())

#: the largest ``lr`` and ``rho`` SAM takes (torch's SGD has no cap): a step or a perturbation of 1e308 failed
#: inside torch's add_ ("cannot be converted to type float") or wrote inf into the weights
RATE_MAX = 1e10


def _check_rate(name: str, value: Any) -> float:
    """``lr`` or ``rho``: ``rho`` a float in [0, ``RATE_MAX``] (0 is valid: plain base steps); ``lr`` 0 or in
    [1.18e-38, ``RATE_MAX``] as the optimizers' (0: no step; a subnormal lr rounds every float32 step to
    0, a run that moved nothing in silence)."""
    if name == "lr" or name.endswith("['lr']"):
        return check_lr(value, name)
    value = check_nonnegative(name, value)
    if value > RATE_MAX:
        raise ValueError(f"{name} must be <= 1e10 (a larger one overflows float32 weights), got {value!r}")
    return value + 0.0


def _check_params(params: list[Any]) -> None:
    """A group's tensors (appended after construction too): floating (an integer/bool tensor has no gradient:
    SAM would step nothing, silently) and holding data."""
    for i, p in enumerate(params):
        if not isinstance(p, torch.Tensor) or not (p.is_floating_point() or p.is_complex()):
            shown = p.dtype if isinstance(p, torch.Tensor) else type(p).__name__
            raise TypeError(f"params must be floating tensors (they need gradients), got {shown} at position "
                            f"{i} of the parameter group")
        if p.device.type == "meta":
            raise ValueError(f"params must hold data, got a tensor on the meta device at position {i} of the "
                             "parameter group")
        if not p.is_leaf:   # appended by hand: carried and never stepped (red20c)
            raise ValueError(f"params must be leaf tensors (a non-leaf tensor, the result of an operation, "
                             f"at position {i} of the parameter group; torch's add_param_group refuses it)")


def _check_distinct(groups: list[dict[str, Any]]) -> None:
    """A tensor listed twice would take two steps per ``step`` in silence (torch only warns)."""
    seen: set[int] = set()
    for group in groups:
        for p in group["params"]:
            if id(p) in seen:
                raise ValueError(f"params lists a tensor of shape {tuple(p.shape)} twice; each parameter may "
                                 "appear once")
            seen.add(id(p))


class SAMCallError(RuntimeError, ValueError):
    """:class:`SAM` called out of order (``second_step`` before ``first_step``, ``first_step`` twice) or
    with a closure that computes no gradient: a ``RuntimeError`` (as documented since SAM existed) and a
    ``ValueError`` (the call's arguments or order are invalid); the message names the method and what to
    call first."""


class SAM(torch.optim.Optimizer):
    """Sharpness-aware minimization around a base optimizer (default ``torch.optim.SGD``).

    ``SAM(params, base_optimizer=torch.optim.SGD, rho=0.05, normalize=True, **kwargs)``:
    ``kwargs`` are the base optimizer's own keywords (``lr``, ``momentum``, ...; torch's flags
    ``capturable=True`` and ``differentiable=True`` are refused (ValueError naming the flag) on every
    device, CUDA included: the steps run outside CUDA graphs and outside autograd), and the
    base optimizer shares SAM's parameter groups. ``step(closure)`` needs a closure that
    computes the mini-batch loss, calls ``backward`` and returns the loss; it is evaluated twice
    (at θ and at θ + ε), the gradients zeroed by ``step`` before each evaluation. Or call
    ``first_step()`` after a backward pass at θ, recompute the gradients, then ``second_step()``.
    ``state_dict()``
    holds the base optimizer's state too (e.g. momentum buffers), so a training run saved
    and reloaded continues step for step.

    Parameters: ``params`` (tensors or parameter groups, as for any torch optimizer);
    ``base_optimizer`` the optimizer *class* (an instance is rejected with a one-line
    ``TypeError``; one whose ``step`` requires a closure, such as LBFGS, is refused with a ``TypeError``:
    SAM calls ``base_optimizer.step()`` itself; the package's ``Muon``, ``Shampoo`` and ``SOAP`` are bases
    too, stepping on the gradient at θ + ε as any other); ``rho`` in [0, 1e10] the perturbation radius
    (>= 0: 0 is plain base steps, any value up to 1e10 is taken, 1e-39 included; the cap keeps the weights
    finite: 1e308 overflowed them); ``lr`` (a base-optimizer keyword) 0 or at least 1.18e-38, at most 1e10, as
    the package's optimizers (0: no step; a subnormal lr such as 1e-39 is refused naming lr: it rounds
    every float32 step to 0);
    the base optimizer's other keywords: of the kind of its constructor's default (a number, a bool, a
    pair of numbers: another kind is a TypeError naming it), finite and within the working range; signs
    and ranges only as the base's constructor checks them (torch leaves Rprop's ``step_sizes``, ASGD's
    ``lambd``/``alpha``/``t0`` and SGD's ``dampening`` unchecked, and SAM passes them as given: a negative
    one runs as torch's would);
    ``normalize`` (bool) whether ε is
    ``ρ g/(‖g‖ + 1e-12)`` (SAM, with the reference implementation's guard 1e-12: gradients of norm well
    below 1e-12 get a perturbation ρ g/1e-12, not of norm ρ) or ``ρ g``; with the base optimizer's
    ``maximize=True`` the run is SAM minimizing −L (ε = −ρ g/(‖g‖ + 1e-12), the base step ascends),
    and ``lr = 0`` leaves every weight bitwise unchanged (the base optimizer's state still moves). A
    NaN/inf gradient (at θ or at θ + ε) reaches the weights, as in torch's
    optimizers, with a ``RuntimeWarning`` (SAM has no skip policy; the package's Muon/Shampoo/SOAP skip);
    later steps go on from there as torch's would (a NaN written into the base state through ``.data`` is
    refused at the next step, naming the entry).
    A parameter group may set these and the base optimizer's keywords (and
    the keys LR schedulers add); another key (a misspelt ``"rhoo"``) raises ``ValueError`` naming it, and
    so does an attribute SAM does not have, set on it after construction (``opt.rhoo = 0.1``, or
    ``opt.rho = 0.1``: rho is a group key, set it in ``param_groups``). Values
    written into ``param_groups`` after construction (or by ``add_param_group``) are re-checked at the next
    step: ``lr``/``rho``/``normalize`` as above, the base optimizer's keywords as its constructor checks them
    (``momentum = -1`` for torch's SGD: ValueError naming momentum). A
    closure that never calls ``backward`` raises
    ``SAMCallError`` (a ``RuntimeError`` and a ``ValueError``) instead of stepping nothing; so do
    the two-step path's order errors
    (``second_step()`` without a ``first_step()`` before it, ``first_step()`` twice): a protocol
    error, as torch's own, not a bad argument. A ``torch.optim.lr_scheduler`` works with
    both paths (``second_step`` counts as the optimizer's step, so no "scheduler before
    optimizer" warning). Also exported as ``algorithms.nets.SAM``.

    >>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    >>> opt = SAM([w], lr=0.1, rho=0.0)
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = (w ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> w.detach().tolist()        # ρ = 0: one plain gradient step, w − 0.1·2w
    [0.8, -1.6]
    """

    #: ``step`` evaluates a closure itself (a wrapper calling ``step()`` without one, such as BlockOptimizer,
    #: refuses SAM as its base)
    STEP_NEEDS_CLOSURE = True

    def __init__(self, params, base_optimizer: type[torch.optim.Optimizer] = torch.optim.SGD,
                 rho: float = 0.05, normalize: bool = True, **kwargs: Any) -> None:
        rho = _check_rate("rho", rho)
        normalize = check_bool("normalize", normalize)      # np.True_ (from arr.any()) is a bool too
        kwargs = _check_finite_keywords(kwargs, "")
        if isinstance(base_optimizer, torch.optim.Optimizer):   # one line, not the instance's repr
            name = type(base_optimizer).__name__
            raise TypeError(f"base_optimizer must be an optimizer class, got an instance of {name}: pass "
                            f"base_optimizer={name} and its keywords (e.g. lr=...) to SAM")
        if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, torch.optim.Optimizer)) \
                or issubclass(base_optimizer, SAM):
            shown = getattr(base_optimizer, "__name__", type(base_optimizer).__name__)
            raise TypeError(f"base_optimizer must be a torch.optim.Optimizer subclass other than SAM, "
                            f"got {shown}")
        check_keyword_kinds(base_optimizer, kwargs)     # momentum=True ran as 1.0, dampening="x" stepped
        shared = sorted(k for k in ("rho", "normalize") if _takes(base_optimizer, k))
        if shared:   # Adadelta read SAM's radius as its own decay rho (one group key for two meanings)
            raise TypeError(f"base_optimizer {base_optimizer.__name__} takes the keyword(s) {shared}, which "
                            "SAM uses for itself in the shared parameter groups; use another base optimizer")
        if step_needs_closure(base_optimizer):
            # LBFGS: SAM calls base_optimizer.step() with no closure, and torch's TypeError named nothing
            raise TypeError(f"base_optimizer must step without a closure (SAM evaluates the loss itself and "
                            f"then calls base_optimizer.step()), got {base_optimizer.__name__}, whose step "
                            "requires one")
        if "lr" in kwargs:
            kwargs["lr"] = _check_rate("lr", kwargs["lr"])
        # the base's own attributes (Muon's head, on_nonfinite) go to its constructor, not into the groups
        own = {k: kwargs.pop(k) for k in getattr(base_optimizer, "CONSTRUCTOR_KEYWORDS", ()) if k in kwargs}
        defaults = dict(rho=rho, normalize=normalize, **kwargs)
        try:   # torch's checks of the params alone (a non-leaf tensor): named params, not the keywords
            super().__init__(params, defaults)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"SAM: params: {exc}") from None
        try:
            with wrapped_by(("rho", "normalize")):     # the package's Muon/Shampoo/SOAP refused SAM's keys
                self.base_optimizer = base_optimizer(self.param_groups, **kwargs, **own)
        except (TypeError, ValueError) as exc:   # torch's own message, re-raised from here
            raise type(exc)(f"SAM({base_optimizer.__name__}) rejected params or keywords "
                            f"{sorted([*kwargs, *own])}: {exc}") from None
        except (IndexError, KeyError, AssertionError) as exc:    # torch's IndexError for betas=(0.9,)
            raise ValueError(f"SAM({base_optimizer.__name__}) rejected params or keywords "
                             f"{sorted([*kwargs, *own])}: {type(exc).__name__}: {exc}") from None
        self.param_groups = self.base_optimizer.param_groups
        self.defaults.update(self.base_optimizer.defaults)
        # the keywords as built: a key written into the mutable defaults later ('lrr') is not one (red20c)
        self.__dict__["_built_keywords"] = frozenset(self.defaults)
        _check_distinct(self.param_groups)
        for index, group in enumerate(self.param_groups):
            self._check_group_keys(group, f"params[{index}]")
        self.__dict__["_built"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        """After construction a public name SAM does not have is refused by name: ``opt.rhoo = 0.1`` (or
        ``opt.rho = 0.1``, which is a parameter-group key) was stored and ignored in silence. The optimizer
        SAM built and the containers it shares with it are fixed: ``base_optimizer``, ``defaults`` and
        ``state`` cannot be replaced, nor ``param_groups`` by another list than the base optimizer's (a
        replaced base_optimizer stepped at its own lr, or another model's parameters, in silence)."""
        if "_built" in self.__dict__:
            refuse_unknown_attribute(self, name, ())
            if name in ("base_optimizer", "defaults", "state", "param_groups"):
                own = self.base_optimizer.param_groups if name == "param_groups" else self.__dict__.get(name)
                refuse_replaced("SAM", name, value, own, "it is shared with the base optimizer SAM built; "
                                "edit the entries of param_groups, or build a new SAM")
        super().__setattr__(name, value)

    def _check_group_keys(self, group: dict[str, Any], where: str) -> None:
        """A parameter group's keys: SAM's and its base optimizer's keywords, and the keys LR schedulers and
        torch add; a misspelt one (``"rhoo"``) left the default in force in silence."""
        unknown = sorted(str(k) for k in set(group) - self._keywords() - EXTRA_GROUP_KEYS)
        if unknown:
            raise ValueError(f"{where}: parameter group keys {unknown} are not keywords of SAM or of its "
                             f"base_optimizer {type(self.base_optimizer).__name__} (known: "
                             f"{sorted(self._keywords())})")

    def _keywords(self) -> frozenset[str]:
        """SAM's and its base optimizer's keywords, fixed at construction (``defaults``' keys then)."""
        return self.__dict__.get("_built_keywords") or frozenset(self.defaults)

    def _refuse_edited_defaults(self) -> None:
        """A key written into ``defaults`` after construction ('lrr') passed the key checks as a keyword."""
        extra = sorted(str(k) for k in set(self.defaults) - self._keywords())
        if extra:
            raise ValueError(f"SAM: defaults has the key(s) {extra} written after construction, not keywords "
                             f"of SAM or of its base_optimizer (known: {sorted(self._keywords())}); set "
                             "hyperparameters in param_groups")

    def __getstate__(self) -> dict[str, Any]:
        # torch's keeps defaults/state/param_groups only: a deepcopy or an unpickled SAM lost its base
        # optimizer and could not step (AttributeError)
        return {**super().__getstate__(), "base_optimizer": self.base_optimizer,
                "_nonfinite_stepped": self.__dict__.get("_nonfinite_stepped", False),
                "_built_keywords": self._keywords()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if "base_optimizer" in state:
            self.param_groups = self.base_optimizer.param_groups    # one set of groups, as in __init__
        self.__dict__["_built"] = True      # an unpickled SAM refuses a misspelt attribute too

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's, with ``set_to_none`` a bool (a truthy str such as "no" was taken as True)."""
        set_to_none = check_bool("set_to_none", set_to_none)
        check_params_lists("SAM.zero_grad", self.param_groups)
        super().zero_grad(set_to_none)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """torch's, with the group's ``lr``, ``rho`` and ``normalize`` checked as in the constructor.

        ``param_group`` is a dict with ``params`` and optional ``lr`` (0 or in [1.18e-38, 1e10]), ``rho``
        (in [0, 1e10]),
        ``normalize`` (bool) and the base optimizer's keywords.
        """
        if isinstance(param_group, dict):
            if "params" not in param_group:     # torch's own KeyError names nothing
                raise ValueError(f"param_group must have a 'params' entry (the tensors to optimize), got "
                                 f"keys {sorted(param_group)}")
            if "lr" in param_group:
                param_group["lr"] = _check_rate("lr", param_group["lr"])
            if "rho" in param_group:
                param_group["rho"] = _check_rate("rho", param_group["rho"])
            if "normalize" in param_group:
                param_group["normalize"] = check_bool("normalize", param_group["normalize"])
            if "base_optimizer" in self.__dict__:
                check_keyword_kinds(type(self.base_optimizer), param_group, "param_group: ")
            _check_finite_keywords({k: v for k, v in param_group.items() if k != "params"}, "param_group: ")
        try:
            super().add_param_group(param_group)
        except (TypeError, ValueError) as exc:  # torch's "some parameters appear in more than one parameter
            # group" / "optimizer can only optimize Tensors" named neither param_group nor params
            if str(exc).startswith("param_group"):
                raise
            raise type(exc)(f"param_group: params: {exc}") from None
        added = self.param_groups[-1]["params"]
        if hasattr(self, "base_optimizer"):     # after __init__ (whose own check follows it)
            try:
                _check_distinct(self.param_groups)
                self._refuse_edited_defaults()     # 'lrr' in defaults was copied into the new group
                self._check_group_keys(self.param_groups[-1], "param_group")
                self._check_base_keywords(self.param_groups[-1])   # momentum = -1: torch's check, by name
            except (TypeError, ValueError) as exc:
                self.param_groups.pop()
                raise type(exc)(f"param_group: {exc}") if not str(exc).startswith("param_group") else exc \
                    from None
        bad = [i for i, p in enumerate(added) if not (p.is_floating_point() or p.is_complex())]
        if bad:  # an integer/bool tensor has no gradient: SAM would step nothing, silently
            self.param_groups.pop()
            raise TypeError(f"params must be floating tensors (they need gradients), got "
                            f"{added[bad[0]].dtype} at position {bad[0]} of the parameter group")
        meta = [i for i, p in enumerate(added) if p.device.type == "meta"]
        if meta:  # no data: the first step fails inside torch
            self.param_groups.pop()
            raise ValueError(f"params must hold data, got a tensor on the meta device at position {meta[0]} "
                             "of the parameter group (materialize the model with .to_empty(device=...))")

    @torch.no_grad()
    def _grad_norm(self) -> torch.Tensor:
        grads = [p.grad for g in self.param_groups for p in g["params"] if p.grad is not None]
        if not grads:
            return torch.tensor(0.0)
        # in float32 at least: float16's norm of g = [1e-5, 0] underflowed to 0 and 1e-12 rounds to 0
        # there, so ε was ρ·g/0 = inf/NaN
        wide = [grad if grad.dtype in (torch.float32, torch.float64) else grad.float() for grad in grads]
        norm = torch.linalg.vector_norm(torch.stack([grad.norm(p=2) for grad in wide]), 2)
        if bool(torch.isfinite(norm)) or not all(bool(torch.isfinite(grad).all()) for grad in grads):
            return norm
        # finite gradients whose squares overflowed (float32 entries past ~1e19): ‖g‖ was inf, so ε = 0 and
        # the step was the base optimizer's alone, under a warning about NaN/inf gradients. Taken at unit
        # scale, as a float64 number (the norm itself may pass float32's range)
        top = max(float(grad.abs().amax()) for grad in wide if grad.numel())
        total = math.fsum(float(torch.linalg.vector_norm(grad / top)) ** 2 for grad in wide)
        return torch.tensor(top * math.sqrt(total), dtype=torch.float64)

    def _check_groups(self) -> None:
        """``lr``, ``rho`` and ``normalize`` of every group as they are now: a user or an LR scheduler edits
        ``param_groups`` in place, and a NaN ``rho`` or ``lr`` written there reached the weights in
        silence."""
        self._refuse_edited_defaults()
        for index, group in enumerate(self.param_groups):
            missing = sorted(str(k) for k in {"params", *self._keywords()} if k not in group)
            if missing:     # a group appended to param_groups by hand met a bare KeyError ('rho')
                raise ValueError(f"SAM: param_groups[{index}] lacks the key(s) {missing}; add a group with "
                                 f"add_param_group, which fills in the defaults")
            try:
                for key in ("lr", "rho"):
                    value = group[key]
                    if type(value) is float:    # the common case, checked for free (an array met "ambiguous")
                        floor = LR_MIN if key == "lr" and value != 0.0 else 0.0   # lr: 0 or >= 1.18e-38
                        if floor <= value <= RATE_MAX:
                            continue
                    group[key] = _check_rate(key, value)   # a Fraction stored as the float it checked
                group["normalize"] = check_bool("normalize", group["normalize"])
                # momentum = nan, weight_decay = inf, ... (any key); a Fraction written back as its float
                # (torch's add_ refused one as alpha)
                check_keyword_kinds(type(self.base_optimizer), group)   # dampening = 1j, centered = None
                group.update({k: v for k, v in _check_finite_keywords(group, "").items() if k != "params"})
                self._refuse_misspelt_key(group)
                # any other key, as at construction (betas written into a torch SGD's group was ignored)
                self._check_group_keys(group, "its keys")
                _check_params(group["params"])
                self._check_base_keywords(group)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"SAM: param_groups[{index}] was set to an invalid value: {exc}") from None
        _check_distinct(self.param_groups)  # a tensor appended to a group's params twice took two steps

    def _check_base_keywords(self, group: dict[str, Any]) -> None:
        """The base optimizer's keywords of ``group`` (momentum, betas, eps, ...) checked as its constructor
        checks them, when edited since the last check (compared by identity: free when nothing changed):
        momentum = -1 written into a torch SGD's group after construction stepped in silence. The package's
        Muon/Shampoo/SOAP re-check their own groups at each step."""
        base = self.base_optimizer
        if isinstance(base, MatrixOptimizer):
            return
        keys = [k for k in base.defaults if k in group and k != "params" and _takes(type(base), k)]
        checked = self.__dict__.setdefault("_checked_base_keywords", {})
        seen = checked.get(id(group))
        if seen is not None and seen[0] is group and all(group[k] is seen[1].get(k, _UNSET) for k in keys):
            return
        reference = base.defaults if seen is None else seen[1]     # what the base's constructor checked
        edited = [k for k in keys if group[k] is not reference.get(k, _UNSET)
                  and not (seen is None and group[k] == reference.get(k, _UNSET))]
        params = group["params"]
        like = params[0] if params else torch.zeros(())
        dummy = torch.zeros(1, dtype=like.dtype, device=like.device, requires_grad=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                type(base)([dummy], **{k: group[k] for k in keys})
        except (TypeError, ValueError, RuntimeError) as exc:     # torch's "Invalid momentum value: -1.0"
            shown = ", ".join(f"{k} = {group[k]!r:.40}" for k in (edited or keys))
            kind = TypeError if isinstance(exc, TypeError) else ValueError    # momentum = "0.5": '<' failed
            raise kind(f"its base-optimizer keywords ({shown}), checked as {type(base).__name__}'s "
                       f"constructor checks them, are refused: {exc}") from None
        checked[id(group)] = (group, {k: group[k] for k in keys})

    def _refuse_misspelt_key(self, group: dict[str, Any]) -> None:
        """A key written into a group after construction that is a near-spelling of a keyword (``"rhoo"``,
        ``"momentun"``: difflib ratio >= 0.8): the group's own value stayed in force in silence."""
        keywords = self._keywords()
        for key in group:
            if not isinstance(key, str) or key in keywords or key in EXTRA_GROUP_KEYS:
                continue
            close = difflib.get_close_matches(key, sorted(keywords), n=1, cutoff=0.8)
            if close:
                raise ValueError(f"it has the key {key!r}, not a keyword of SAM or of its base_optimizer: "
                                 f"did you mean {close[0]!r}? (the group's {close[0]} stays unchanged under "
                                 "a misspelt key)")

    def _check_own_state(self, where: str) -> None:
        """SAM's own state holds only θ and ε between the two steps (the base optimizer keeps its moments in
        ``base_optimizer.state``): another key written there was ignored in silence."""
        for index, p in enumerate(self._params()):
            extra = sorted(str(k) for k in self.state.get(p, {}) if k not in ("theta", "e_w"))
            if extra:
                raise ValueError(f"{where}: state[param {index}] has the keys {extra}, which SAM does not "
                                 "read (it keeps only 'theta' and 'e_w' between first_step and second_step; "
                                 "the base optimizer's state is base_optimizer.state)")

    @torch.no_grad()
    def first_step(self, zero_grad: bool = False) -> None:
        """Move to θ + ε (ε = ρ g/(‖g‖ + 1e-12), or ρ g without normalization) and remember θ and ε.

        ``zero_grad`` (bool) zeroes the gradients afterwards.

        Needs the gradients at θ: with none at all it raises ``SAMCallError`` (a ``RuntimeError``;
        nothing would move)."""
        zero_grad = check_bool("zero_grad", zero_grad)
        check_params_lists("SAM.first_step", self.param_groups)
        self._check_own_state("SAM.first_step")
        if any("e_w" in self.state[p] for g in self.param_groups for p in g["params"]):
            # a second first_step would overwrite ε with the move from θ + ε: second_step could then
            # no longer return to θ, and the run would drift by the first ε
            raise SAMCallError("SAM.first_step: already at θ + ε; call second_step() before the next "
                               "first_step()")
        if all(p.grad is None for g in self.param_groups for p in g["params"]):
            raise SAMCallError("SAM.first_step: no parameter has a gradient; call loss.backward() at θ "
                               "first (or pass a closure to step())")
        self._check_groups()
        grad_norm = self._grad_norm()
        if not bool(torch.isfinite(grad_norm)):
            warnings.warn("SAM.first_step: a gradient holds NaN or inf; it reaches the weights, as in "
                          "torch's optimizers (check the loss, or lower lr)", RuntimeWarning, stacklevel=3)
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12) if group["normalize"] else group["rho"]
            if group.get("maximize", False):
                # maximizing L is SAM on −L: ε = ρ ∇(−L)/‖∇L‖ descends L (ε along +∇L ascended it, so the
                # run differed from SAM minimizing −L by 5 % in one step)
                scale = -scale
            for p in group["params"]:
                if p.grad is None:
                    continue
                # in float32 at least (a float16 ρ/‖g‖ overflows), rounded once when added to θ
                e_w = (p.grad if p.grad.dtype in (torch.float32, torch.float64) else p.grad.float()) * scale
                # θ itself is kept: (θ + ε) − ε is not θ when ε dwarfs θ (rho = 1e10 moved the weights by
                # 5.6e-7 with lr = 0; heldout15)
                self.state[p]["theta"] = p.detach().clone()
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad: bool = False) -> None:
        """Return to θ exactly (the θ saved by ``first_step``) and take the base optimizer's step with the
        gradient taken at θ + ε.

        ``zero_grad`` (bool) zeroes the gradients afterwards.

        Must follow ``first_step``: without it there is no ε to undo, and the step would silently be
        a plain base-optimizer step (SAM degenerating to its base), so it raises ``SAMCallError``
        (a ``RuntimeError``). The groups are re-checked first, as ``step`` checks them: a value written
        into ``param_groups`` since ``first_step`` (``lr = nan``, ``lr = -1``, ``momentum = -1``) raises
        ``ValueError`` naming it, with the weights left at θ + ε and ε kept (fix the group and call
        ``second_step()`` again)."""
        zero_grad = check_bool("zero_grad", zero_grad)
        check_params_lists("SAM.second_step", self.param_groups)
        self._check_own_state("SAM.second_step")
        if not any("e_w" in self.state[p] for g in self.param_groups for p in g["params"]):
            raise SAMCallError("SAM.second_step: call first_step() first (no perturbation ε is stored, so "
                               "there is nothing to undo and the step would be the base optimizer's alone)")
        # lr = nan or momentum = -1 written into a group between the two steps reached the weights; refused
        # here with the weights still at θ + ε and ε kept, so a corrected group can still take the step
        self._check_groups()
        restored: dict[int, list[torch.Tensor | None]] = {}   # θ of the groups with lr = 0, put back below
        for group in self.param_groups:
            kept = restored.setdefault(id(group), []) if group["lr"] == 0 else None
            for p in group["params"]:
                theta = None
                if "e_w" in self.state[p]:
                    for key in ("theta", "e_w"):   # edited since first_step: named, not torch's size error
                        if key in self.state[p]:
                            _check_saved_point(self.state[p][key], p,
                                               f"SAM.second_step: state[param]['{key}']",
                                               finite=key == "theta" and not self.__dict__.get(
                                                   "_nonfinite_stepped", False))
                    e_w = self.state[p].pop("e_w")
                    theta = self.state[p].pop("theta", None)   # absent in a state saved before round 14
                    if theta is not None:
                        p.copy_(theta)
                    else:
                        p.sub_(e_w)
                if kept is not None:
                    kept.append(p.detach().clone() if theta is None else theta)
        if not self.__dict__.get("_nonfinite_stepped", False):
            # NaN written in through .data; not one that SAM's own documented NaN-through step left (the
            # next step blamed the user for it)
            check_state_finite("SAM (its base optimizer)", self.base_optimizer, allow_inf=True)
        check_state_layout("SAM (its base optimizer)", self.base_optimizer)    # another shape, dtype, a list
        if not bool(torch.isfinite(self._grad_norm())):     # the loss at θ + ε was NaN: no word before
            warnings.warn("SAM.second_step: a gradient at θ + ε holds NaN or inf; it reaches the weights, as "
                          "in torch's optimizers (check the loss, or lower rho or lr)", RuntimeWarning,
                          stacklevel=3)
            self._nonfinite_stepped = True      # the base state now holds what that gradient made
        step_base("SAM (its base optimizer)", self.base_optimizer)   # a key added or deleted later is refused
        for group in self.param_groups:
            if group["lr"] == 0:   # no step: θ bitwise (torch's θ + (−0)·d turned a −0.0 weight into +0.0)
                for p, theta in zip(group["params"], restored.get(id(group), ()), strict=False):
                    if theta is not None:
                        p.copy_(theta)
        # the two-step path never calls self.step: tell a torch LR scheduler that this optimizer
        # has stepped, as its wrapper of step() would (else it warns "lr_scheduler.step() before
        # optimizer.step()")
        self._opt_called = True
        if zero_grad:
            self.zero_grad()

    def _params(self) -> list[torch.Tensor]:
        return [p for g in self.param_groups for p in g["params"]]

    def _call_closure(self, closure, where: str) -> Any:
        # weak references: a gradient freed and reallocated is a change, and no gradient is kept alive
        before = [None if p.grad is None else (weakref.ref(p.grad), p.grad._version) for p in self._params()]
        loss = call_user("closure()", closure, keep=CLOSURE_OWN_ERRORS)
        params = self._params()
        unchanged = all((b is None and p.grad is None)
                        or (b is not None and p.grad is not None
                            and b[0]() is p.grad and b[1] == p.grad._version)
                        for p, b in zip(params, before, strict=True))
        if unchanged or all(p.grad is None for p in params):
            raise SAMCallError(f"SAM.step: the closure left every gradient {where} unset or unchanged; it "
                               f"must call loss.backward() (after zero_grad()) and return the loss")
        # the loss it returns: a tensor of one element or a real number (None, "x" or a vector was handed
        # back by step as it was; the optimizers of algorithms.optimizers refuse them the same way)
        if isinstance(loss, torch.Tensor) and loss.numel() == 1 and not loss.is_complex() \
                and loss.dtype != torch.bool:
            return loss
        # any real number (np.float32(1.0) or a Fraction was refused as "not a real number")
        if isinstance(loss, numbers.Real) and not isinstance(loss, bool | np.bool_):
            return loss
        shown = (f"a tensor of shape {tuple(loss.shape)} and dtype {loss.dtype}"
                 if isinstance(loss, torch.Tensor) else f"{type(loss).__name__} {loss!r:.40}")
        raise TypeError(f"closure must return the loss (a tensor of one element or a real number), got "
                        f"{shown}")

    def step(self, closure=None):  # type: ignore[override]
        """Evaluate ``closure`` at θ, move to θ + ε, evaluate it again, and take the base step there.

        The closure must compute the loss, call ``backward`` and return the loss (a tensor of one
        element or a real number; anything else is a ``TypeError`` naming closure); ``step`` zeroes the
        gradients before each of its two evaluations (a closure that also calls ``zero_grad()`` is
        fine, one that forgets it no longer accumulates stale gradients); a closure that leaves the
        gradients unset or unchanged raises ``SAMCallError`` (a ``RuntimeError``), rather than stepping
        nothing in silence, at either evaluation. Where the second evaluation raises, the weights are put
        back to θ before the error propagates (nothing stepped).
        """
        if closure is None:
            raise ValueError("closure is required: SAM evaluates the loss at two points")
        if isinstance(closure, type) or not callable(closure):   # closure=dict was called and returned {}
            shown = f"the class {closure.__name__}" if isinstance(closure, type) else type(closure).__name__
            raise TypeError(f"closure must be callable (a function, not a class), got {shown}")
        closure = torch.enable_grad()(closure)
        # SAM owns both evaluations: the gradients are zeroed before each, so a closure that forgets
        # zero_grad() no longer steps with the sum of stale and new gradients
        self.zero_grad()
        loss = self._call_closure(closure, "at θ")   # a closure without backward fails here, before any move
        self.first_step()
        self.zero_grad()
        try:  # checked as the first call: one that skipped backward() here stepped nothing in silence
            self._call_closure(closure, "at θ + ε")
        except BaseException:
            self._undo_first_step()   # its error left the weights at θ + ε (and the next step refused)
            raise
        self.second_step()
        return loss

    @torch.no_grad()
    def _undo_first_step(self) -> None:
        """Back to the θ that ``first_step`` saved, ε dropped: ``step``'s second closure call raised."""
        for p in self._params():
            e_w = self.state[p].pop("e_w", None)
            theta = self.state[p].pop("theta", None)
            if theta is not None:
                p.copy_(theta)
            elif e_w is not None:
                p.sub_(e_w)

    def state_dict(self) -> dict[str, Any]:
        """torch's optimizer state (groups with ``rho``, ``normalize``) plus ``base_optimizer``'s."""
        out = super().state_dict()
        out["state"] = clone_tensors(out["state"])      # snapshots, not the live buffers (another optimizer
        out["base_optimizer"] = clone_tensors(self.base_optimizer.state_dict())  # loading them shares them)
        out["base_optimizer_class"] = type(self.base_optimizer).__name__
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``SAM.state_dict()``: ``state_dict`` must come from a SAM over the same parameters (checked
        by name before anything is loaded).
        """
        if not isinstance(state_dict, dict) or "base_optimizer" not in state_dict:
            raise ValueError("state_dict must be a SAM.state_dict() (a dict with a 'base_optimizer' entry)")
        written_by = state_dict.get("base_optimizer_class")   # absent in a state_dict saved before the tag
        if written_by is not None and written_by != type(self.base_optimizer).__name__:
            raise ValueError(f"state_dict was written by a SAM over {written_by}; this SAM's base_optimizer "
                             f"is "
                             f"{type(self.base_optimizer).__name__} (its state would not fit)")
        extra = sorted(str(k) for k in set(state_dict) - {"state", "param_groups", "base_optimizer",
                                                           "base_optimizer_class"})
        if extra:       # a key no load reads ("scheduler", a misspelt "param_group") was ignored
            raise ValueError(f"state_dict has the keys {extra}, which no SAM.state_dict() has (it holds "
                             "'state', 'param_groups', 'base_optimizer' and 'base_optimizer_class')")
        own = {k: v for k, v in state_dict.items() if k not in ("base_optimizer", "base_optimizer_class")}
        # the shared state check (shapes, finite floating buffers, step counts, parameter indices, group
        # count) on SAM's own state and the base optimizer's, and each group's lr, rho and normalize as
        # the constructor checks them: torch would load rho = NaN as it is
        check_optimizer_state(own, self.param_groups)
        check_optimizer_state(state_dict["base_optimizer"], self.base_optimizer.param_groups,
                              "state_dict['base_optimizer']")
        for index, group in enumerate(own["param_groups"]):
            try:
                # a key that is no keyword of SAM or its base ("lrr") loaded in silence, though the same key
                # written into param_groups is refused at the next step
                self._check_group_keys(group, "its keys")
                for key, check in (("lr", _check_rate), ("rho", _check_rate), ("normalize", check_bool)):
                    if key not in group:   # every SAM.state_dict() has them: the default would step
                        raise ValueError(f"{key} is missing")
                    check(key, group[key])
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"state_dict['param_groups'][{index}]: {exc}") from None
        base_groups = state_dict["base_optimizer"]["param_groups"]
        _check_same_groups(own["param_groups"], base_groups)
        check_saved_hyperparameters(type(self.base_optimizer), base_groups, "state_dict['base_optimizer']")
        for index, group in enumerate(base_groups):  # torch's SGD takes lr = nan (nan < 0 is False)
            if "lr" in group:
                check_lr(group["lr"], f"state_dict['base_optimizer']['param_groups'][{index}]['lr']")
        params = self._params()
        for index, entry in own.get("state", {}).items():
            if isinstance(index, int) and 0 <= index < len(params) and isinstance(entry, dict):
                for key in ("theta", "e_w"):
                    if key in entry:
                        _check_saved_point(entry[key], params[index],
                                           f"state_dict['state'][{index}][{key!r}]")
        super().load_state_dict(own)
        self.base_optimizer.load_state_dict(state_dict["base_optimizer"])
        self.param_groups = self.base_optimizer.param_groups     # one set of groups, as in __init__
        self._nonfinite_stepped = False     # checked finite above: no NaN of an earlier step remains


def _check_same_groups(own: list[Any], base: list[Any]) -> None:
    """A SAM.state_dict() holds its groups twice (SAM's and the base optimizer's, one list when live): a value
    edited in ``param_groups`` only (rho = 0.5, momentum = -1) was dropped by the load, in silence."""
    for index, (mine, theirs) in enumerate(zip(own, base, strict=False)):
        if not isinstance(mine, dict) or not isinstance(theirs, dict):
            continue
        for key in sorted(set(mine) | set(theirs), key=str):
            if key == "params":
                continue
            a, b = mine.get(key, _UNSET), theirs.get(key, _UNSET)
            if a is b:
                continue
            try:
                same = type(a) is type(b) and bool(a == b)
            except (TypeError, ValueError, RuntimeError):
                same = False
            if not same:
                shown = ["absent" if v is _UNSET else f"{v!r:.40}" for v in (a, b)]
                raise ValueError(f"state_dict['param_groups'][{index}][{key!r}] is {shown[0]} but "
                                 f"state_dict['base_optimizer']['param_groups'][{index}][{key!r}] is "
                                 f"{shown[1]}: a SAM.state_dict() holds the groups twice; edit both alike")


def _check_saved_point(value: Any, p: torch.Tensor, where: str, finite: bool = False) -> None:
    """θ or ε saved by ``first_step`` (in a state_dict or the live state): a floating tensor of the
    parameter's shape. Another shape loaded and failed inside ``second_step`` with torch's size error, a
    str with ``copy_``'s TypeError. With ``finite`` (the live θ, unless a documented NaN step ran) also
    finite and in the working range."""
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        shown = f"a {value.dtype} tensor" if isinstance(value, torch.Tensor) else type(value).__name__
        raise ValueError(f"{where} must be a floating tensor of the parameter's shape {tuple(p.shape)} "
                         f"(the point first_step saved), got {shown}")
    if value.shape != p.shape:
        raise ValueError(f"{where} has shape {tuple(value.shape)}, the parameter has {tuple(p.shape)} (a "
                         "state of another model)")
    if finite and value.numel() and not float(value.detach().abs().max()) <= WORKING_MAX:
        # NaN or 1e39 written into the live θ between the two steps was restored into the weights
        raise ValueError(f"{where} holds NaN, inf or an entry past the working range (3.4e38); second_step "
                         "would restore it into the weights")


# ----------------------------------------------------------------------------- problem
@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class TwoLayerMSETask(Problem):
    """Fit f(x) = Σ_k v_k relu(w_kᵀx + b_k) to (X, y) by mean squared error (1/n)Σ(f(x_i) − y_i)².

    ``X`` (n, in_features) and ``y`` (n,); float32 data trains in float32. The network is
    ``TwoLayerReLU(in_features, width, hidden_bias=True, output_bias=False, activation=activation)``
    initialized with ``init_scale`` from the solve seed (``activation`` other than ``"relu"``
    is for experiments outside the paper's ReLU setting). ``width`` an int >= 1 (bounded by memory);
    ``init_scale`` > 0 in [1.18e-38, 3.4e38] (one whose drawn weights pass 3.4e38 is refused naming it).
    """

    X: Any
    y: Any
    width: int
    init_scale: float = 1.0
    activation: str = "relu"

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (numpy gives them back writable)."""
        reseal_state(self, state)

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        X = as_float_array("X", self.X, ndim=2)
        y = as_float_array("y", self.y, ndim=1)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have length n = {X.shape[0]} (rows of X), got {y.shape[0]}")
        if X.shape[0] == 0:
            raise ValueError("X must have at least one row")
        if X.shape[1] == 0:     # the solve named in_features, which the user never passed
            raise ValueError("X must have at least one column (a feature), got shape "
                             f"{tuple(X.shape)}")
        y = y.astype(X.dtype, copy=False)
        # copies when they share the caller's memory (a torch tensor or an array passed through): an edit
        # after construction must not change the problem
        object.__setattr__(self, "X", X.copy() if np.shares_memory(X, np.asarray(self.X)) else X)
        object.__setattr__(self, "y", y.copy() if np.shares_memory(y, np.asarray(self.y)) else y)
        check_positive_int("width", self.width)
        check_init_scale(self.init_scale)
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}")
        # one module for the task's functional view (its own weights are never used)
        object.__setattr__(self, "_net", TwoLayerReLU(in_features=X.shape[1], width=self.width,
                                                      activation=self.activation))
        seal_arrays(self)  # README: a problem's arrays are read-only, in immutable memory

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def net(self) -> TwoLayerReLU:
        return self._net

    @property
    def n_params(self) -> int:
        """Length of the flat parameter vector (``Solution.x``): W, b, v in that order."""
        return self.width * (self.X.shape[1] + 2)

    @property
    def dtype(self) -> torch.dtype:
        return torch.float32 if self.X.dtype == np.float32 else torch.float64

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.tensor(self.X), torch.tensor(self.y)  # copies: the arrays are read-only

    def loss(self, params: dict[str, torch.Tensor]) -> torch.Tensor:
        X, y = self.tensors()
        return torch.mean((self.net.forward_with(params, X) - y) ** 2)

    def loss_at(self, x: Any) -> float:
        """The training loss at flat parameters ``x`` (as in ``Solution.x``), in float64."""
        _, theta = _check_task_point(self, x)
        unflatten, X, y = _functional(self)
        with torch.no_grad():
            return float(torch.mean((self.net.forward_with(unflatten(theta), X) - y) ** 2))


@allocates("n", "in_features", "width")
def parity_task(n: int, in_features: int, width: int, seed: int, *, init_scale: float = 1.0,
                dtype=np.float64) -> TwoLayerMSETask:
    """The paper's synthetic task: x uniform on {−1, 1}^in_features, y = x₀·x₁ (Wen et al. 2023).

    ``n`` (an int >= 1) samples, ``in_features`` an int >= 2, ``seed`` an int in [0, 2**64) drawing X,
    ``dtype`` X's float dtype; ``width`` (an int >= 1) and ``init_scale`` (> 0, in [1.18e-38, 3.4e38]) as
    :class:`TwoLayerMSETask`'s.

    >>> t = parity_task(n=5, in_features=3, width=2, seed=1)
    >>> bool(np.all(t.y == t.X[:, 0] * t.X[:, 1]))
    True
    """
    n = check_positive_int("n", n)
    in_features = check_positive_int("in_features", in_features)
    if in_features < 2:
        raise ValueError(f"in_features must be >= 2 for y = x0*x1, got {in_features}")
    seed = check_seed(seed)
    dtype = check_float_dtype(dtype)
    rng = np.random.default_rng(seed)
    X = (2.0 * rng.integers(0, 2, size=(n, in_features)) - 1.0).astype(dtype)
    return TwoLayerMSETask(X=X, y=X[:, 0] * X[:, 1], width=width, init_scale=init_scale)


# ----------------------------------------------------------------------------- algorithms
#: the most steps SGDTraining / SAMTraining take: 60 s (the family's MAX_RUN_SECONDS) at >= 100 µs a step
MAX_STEPS = 600_000


@dataclass(frozen=True)
class SGDTraining(Algorithm):
    """Mini-batch SGD θ ← θ − η ∇L_B(θ), batches without replacement, reshuffled each epoch.

    An epoch is ⌊n/B⌋ consecutive batches of a fresh permutation (a last partial batch is
    dropped); the permutations are successive ``torch.randperm(n)`` draws of one generator seeded
    with the solve seed (0 when none is given), the initialization ``net.init(seed, init_scale)``.
    ``maxiters`` counts steps (default 2000; at most ``MAX_STEPS`` = 600000, a run of 60 s at >= 100 µs a
    step: a larger one is refused naming maxiters, as 2**31 − 1 steps ran for weeks). ``Success`` (the only
    way to it) once the full training loss is ≤ the tolerance: by default 1e-4·mean(y²), relative to the
    labels' scale (the loss of predicting 0; for y ≡ 0 the initial loss takes its place), so labels in any
    units need the same fit; a ``tol`` given to ``solve`` (> 0) is absolute, in the loss's units (y²). A
    non-finite loss or parameter, or a loss above 1e12·mean(y²) (the same scale), is ``Diverged`` (any
    ``lr`` >= 1.18e-38 is taken, a subnormal one moving nothing is refused: one large
    enough to blow the weights up ends the run there); the horizon
    reached without either is ``MaxIters``. ``lr`` > 0 in [1.18e-38, 3.4e38]; ``batch_size`` B an int in
    [1, n] (n the task's sample count; a larger one is refused at solve naming batch_size).

    >>> from algorithms import solve
    >>> sol = solve(parity_task(n=8, in_features=3, width=8, seed=0), SGDTraining(lr=0.1, batch_size=4),
    ...             maxiters=0)
    >>> sol.retcode
    <RetCode.MaxIters: 'MaxIters'>
    """

    lr: float = 0.1
    batch_size: int = 10

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        object.__setattr__(self, "lr", check_positive("lr", self.lr))   # 2**64 (an int) failed inside torch
        check_positive_int("batch_size", self.batch_size)


@dataclass(frozen=True)
class SAMTraining(Algorithm):
    """SAM θ ← θ − η ∇L_B(θ + ρ ∇L_B(θ)/(‖∇L_B(θ)‖ + 1e-12)) with the batches of :class:`SGDTraining`
    (:class:`SAM`'s step, its guard 1e-12 included).

    ``lr`` > 0, in [1.18e-38, 1e10] (0, a training that never steps, and subnormals are refused naming
    lr) and ``rho`` >= 0, any value in [0, 1e10] (0 is SGD; :class:`SAM`'s caps, checked here);
    ``batch_size`` as :class:`SGDTraining`'s, an int in [1, n].
    ``normalize=False`` drops the normalization (ε = ρ∇L_B, "USAM"). Same ``maxiters``/``tol``
    meaning as :class:`SGDTraining`; ρ = 0 reproduces it exactly. ``optimizer`` builds the SAM
    optimizer, called as ``optimizer(params, torch.optim.SGD, rho=, normalize=, lr=)`` and stepped
    with ``step(closure)`` (default :class:`SAM`; another implementation of the same interface, e.g.
    a user's own, trains under the same batches and criterion). An exception its ``step`` raises other than
    TypeError/ValueError/RuntimeError is re-raised as ``UserCallableError`` naming that step.
    """

    lr: float = 0.1
    rho: float = 0.05
    batch_size: int = 10
    normalize: bool = True
    optimizer: Any = SAM

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        # stored as Python numbers and a bool (numpy's np.True_ / np.int64 are accepted as such)
        object.__setattr__(self, "lr", _check_rate("lr", check_positive("lr", self.lr)))   # as SAM's
        object.__setattr__(self, "rho", _check_rate("rho", self.rho))                       # [0, 1e10]
        object.__setattr__(self, "batch_size", check_positive_int("batch_size", self.batch_size))
        object.__setattr__(self, "normalize", check_bool("normalize", self.normalize))
        if not callable(self.optimizer) or (isinstance(self.optimizer, type)
                                            and not issubclass(self.optimizer, torch.optim.Optimizer)):
            # a class must be an optimizer class (numpy's int64 is callable too); a function is a factory
            raise TypeError(f"optimizer must be a callable building a SAM-like optimizer (e.g. SAM), got "
                            f"{getattr(self.optimizer, '__name__', type(self.optimizer).__name__)}")


#: a full training loss above this times mean(y²) is a blow-up
DIVERGED_LOSS = 1e12
#: the default Success tolerance, relative to mean(y²)
DEFAULT_REL_TOL = 1e-4


def _label_scale(y: torch.Tensor, initial_loss: float) -> float:
    """mean(y²) in float64 (the loss of predicting 0); the initial loss for y ≡ 0 (1 if that is 0 too).

    The tolerance and the blow-up threshold are relative to it: with an absolute 1e-4, labels in units of
    1e-3 ended Success after one step having fitted nothing."""
    scale = float(torch.mean(y.to(torch.float64) ** 2))
    if scale > 0:
        return scale
    return initial_loss if math.isfinite(initial_loss) and initial_loss > 0 else 1.0


def _train(problem: TwoLayerMSETask, lr: float, rho: float | None, batch_size: int, normalize: bool,
           options: SolveOptions, sam: Any = SAM) -> Solution:
    if batch_size > problem.n:
        raise ValueError(f"batch_size must be <= n = {problem.n}, got {batch_size}")
    seed = 0 if options.seed is None else options.seed
    steps = check_count("maxiters", options.iterations(2000), 0)    # 2**63 looped for ever
    if steps > MAX_STEPS:      # 2**31 - 1 steps (a valid count) at >= 100 µs each: weeks
        raise ValueError(f"maxiters must be <= {MAX_STEPS} (MAX_STEPS: 60 s at >= 100 µs a step), got "
                         f"{steps}")
    net = problem.net
    X, y = problem.tensors()
    try:
        drawn = net.init(seed=seed, scale=problem.init_scale, dtype=problem.dtype)
    except ValueError as exc:   # net.init names its own argument "scale": the task's field is init_scale
        raise ValueError(str(exc).replace("scale", "init_scale")) from None
    params = {k: torch.nn.Parameter(v) for k, v in drawn.items()}
    plist = list(params.values())
    if rho is None:
        opt: torch.optim.Optimizer = torch.optim.SGD(plist, lr=lr)
    else:
        try:
            opt = sam(plist, torch.optim.SGD, rho=rho, normalize=normalize, lr=lr)
        except TypeError as exc:  # a factory with another signature: named, not Python's bare message
            raise TypeError(f"optimizer must accept (params, base_optimizer, rho=, normalize=, lr=): "
                            f"{exc}") from exc
        except Exception as exc:  # the user's factory failed: named (1/0 escaped raw)
            if isinstance(exc, ValueError):
                raise
            raise UserCallableError(f"SAMTraining's optimizer(params, base_optimizer, rho=, normalize=, lr=) "
                                    f"raised {type(exc).__name__}: {exc}") from exc
        if not callable(getattr(opt, "step", None)):
            raise TypeError(f"optimizer must build an optimizer with step(closure), got {type(opt).__name__}")
        groups = getattr(opt, "param_groups", None)
        if isinstance(groups, list):    # one over other tensors trained nothing: MaxIters, in silence
            own = {id(p) for p in plist}
            stepped = [p for group in groups if isinstance(group, dict) for p in group.get("params", ())]
            if not stepped or any(id(p) not in own for p in stepped):
                raise ValueError("optimizer must build an optimizer over the parameters it is given "
                                 "(optimizer(params, base_optimizer, ...)); got one over other tensors")
    gen = torch.Generator().manual_seed(seed)
    monitor = IterationMonitor(options, total=steps, desc="SAM" if rho is not None else "SGD")

    def finite_params() -> bool:
        # past the working range counts as a blow-up too: forward_with refuses such weights as user input
        return all(bool(torch.isfinite(p).all()) and (p.numel() == 0 or float(p.detach().abs().max())
                                                      <= WORKING_MAX) for p in plist)

    def full_loss() -> float:
        if not finite_params():     # forward_with refuses inf weights by name: a blow-up is Diverged here
            return math.nan
        with torch.no_grad():
            return float(problem.loss(params))

    def exact_loss() -> float:
        # float32 data: the float32 loss underflows to 0 for labels below ~1e-19 while the fit is still off
        if problem.dtype == torch.float64:
            return value
        with torch.no_grad():
            theta = {key: p.detach().to(torch.float64) for key, p in params.items()}
            return float(torch.mean((net.forward_with(theta, X.double()) - y.double()) ** 2))

    value = full_loss()
    scale = _label_scale(y, value)
    tol = options.tol if options.tol is not None else DEFAULT_REL_TOL * scale
    diverged = DIVERGED_LOSS * scale
    retcode = RetCode.MaxIters
    perm = torch.empty(0, dtype=torch.long)
    cursor = problem.n
    k = 0
    for k in range(1, steps + 1):
        if cursor + batch_size > problem.n:
            perm, cursor = torch.randperm(problem.n, generator=gen), 0
        idx = perm[cursor:cursor + batch_size]
        cursor += batch_size
        xb, yb = X[idx], y[idx]

        def closure(xb=xb, yb=yb) -> torch.Tensor:
            opt.zero_grad()
            loss = torch.mean((net.forward_with(params, xb) - yb) ** 2)
            loss.backward()
            return loss

        try:
            if rho is None:
                closure()
                opt.step()
            else:   # the user's optimizer's own KeyError reached the caller bare
                step_user("optimizer.step(closure) (of the optimizer SAMTraining's optimizer built)", opt,
                          closure)
        except ValueError:
            if finite_params():         # not a blow-up inside SAM's perturbed evaluation: the error stands
                raise
        value = full_loss()
        stop = monitor.record(iteration=k, loss=value)
        if not math.isfinite(value) or value > diverged or not finite_params():
            retcode = RetCode.Diverged
            break
        if stop:        # before the convergence test: a True on the converged record ended Success
            retcode = RetCode.Terminated
            break
        if value <= tol and exact_loss() <= tol:
            retcode = RetCode.Success
            break
    monitor.close()
    theta, _ = _flatten_params({key: p.detach() for key, p in params.items()}, finite=False)  # may be NaN
    x = theta.numpy().astype(problem.X.dtype, copy=True)
    stats = Stats(iterations=k, grad_calls=k * (1 if rho is None else 2), f_calls=k)
    return Solution(x=x, value=value, retcode=retcode, stats=stats, trace=monitor.trace,
                    original={"params": {key: p.detach().clone() for key, p in params.items()}})


@_dispatch
def _solve(problem: TwoLayerMSETask, algorithm: SGDTraining, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    return _train(problem, algorithm.lr, None, algorithm.batch_size, False, options)


@_dispatch
def _solve(problem: TwoLayerMSETask, algorithm: SAMTraining, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    return _train(problem, algorithm.lr, algorithm.rho, algorithm.batch_size, algorithm.normalize, options,
                  algorithm.optimizer)


# ----------------------------------------------------------------------------- diagnostics
def _check_task_point(problem: Any, x: Any) -> tuple[TwoLayerMSETask, torch.Tensor]:
    if not isinstance(problem, TwoLayerMSETask):
        raise TypeError(f"problem must be a TwoLayerMSETask, got {type(problem).__name__}")
    theta = as_float_array("x", x, ndim=1, dtype=np.float64)
    if theta.shape[0] != problem.n_params:
        raise ValueError(f"x must have length {problem.n_params} (the task's flat parameters W, b, v), "
                         f"got {theta.shape[0]}")
    theta = torch.as_tensor(theta)
    unflatten, X, y = _functional(problem)
    with torch.no_grad():   # a finite x whose loss overflows gave inf (or an error naming the loss)
        value = torch.mean((problem.net.forward_with(unflatten(theta), X) - y) ** 2)
    if not bool(torch.isfinite(value)):
        raise ValueError(f"x is too large: the training loss at x overflows float64 (max |x| = "
                         f"{float(theta.abs().max()):.3g})")
    return problem, theta


def _functional(problem: TwoLayerMSETask):
    """(unflatten, X, y) in float64 for derivatives at a flat parameter vector."""
    _, unflatten = flatten_params(problem.net.init(seed=0, dtype=torch.float64))
    X, y = problem.tensors()
    return unflatten, X.to(torch.float64), y.to(torch.float64)


def _output_gradients(problem: TwoLayerMSETask, theta: torch.Tensor) -> np.ndarray:
    """Rows ∇_θ f(x_i; θ), shape (n, p) (torch.func.vmap of grad)."""
    unflatten, X, y = _functional(problem)

    def output(t: torch.Tensor, xi: torch.Tensor, yi: torch.Tensor) -> torch.Tensor:
        return problem.net.forward_with(unflatten(t), xi[None])[0]

    return per_sample_flat_grads(output, theta, X, y).detach().numpy()


def sample_coherence_matrix(problem: TwoLayerMSETask, x: Any) -> np.ndarray:
    """S_ij = √Tr(H_i H_j) = 2|∇f_iᵀ∇f_j| for the Gauss–Newton per-sample Hessians H_i = 2∇f_i∇f_iᵀ.

    These are the per-sample Hessians of (f(x_i) − y_i)² at an interpolating point (x the
    flat parameters, as in ``Solution.x``). Theorem 3.4 of Chang & Khanna: at a memorizing
    solution (every sample activates hidden units no other sample activates) S is diagonal.

    >>> task = parity_task(n=4, in_features=8, width=4, seed=0)    # 4 distinct points of {±1}^8
    >>> S = sample_coherence_matrix(task, memorizing_solution(task))
    >>> bool(np.all(S == np.diag(np.diag(S)))), bool(np.all(np.diag(S) > 0))
    (True, True)
    """
    problem, theta = _check_task_point(problem, x)
    grads = _output_gradients(problem, theta)
    return coherence_matrix(2.0 * np.einsum("ia,ib->iab", grads, grads))


def _flat(problem: TwoLayerMSETask, W: np.ndarray, b: np.ndarray, v: np.ndarray) -> np.ndarray:
    theta, _ = flatten_params({"W": torch.as_tensor(W), "b": torch.as_tensor(b),
                               "v": torch.as_tensor(v)[None, :]})
    return theta.numpy().astype(np.float64)


def generalizing_solution(problem: TwoLayerMSETask, features: int, r: float) -> np.ndarray:
    """Flat parameters of the (C, r)-generalizing solution (Chang & Khanna, Definition 2), C = ``features``.

    For each sign pattern a ∈ {0, 1}^C hidden unit j = Σ_i 2^{i−1} a_i has W_j = r·((−1)^{a_1}, …,
    (−1)^{a_C}, 0, …, 0), b_j = −r(C − 1) and v_j = (−1)^{a_1 + a_2}/r; the other units are 0. On
    x ∈ {±1}^d exactly the unit of x's first C signs fires (pre-activation r, the others ≤ −r),
    so f(x) = x₀x₁: it interpolates the parity task with 2^C units, and samples sharing their
    first C signs share a unit. ``r`` > 0 sets the sharpness, ‖∇f(x)‖² = r² + (d + 1)/r²: in
    [1.18e-38, 3.4e38 / (C − 1)] (b_j = −r(C − 1) must stay in the working range; a larger r is refused
    naming r and features).

    >>> task = parity_task(n=8, in_features=4, width=8, seed=0)
    >>> x = generalizing_solution(task, features=3, r=(4 + 1) ** 0.25)
    >>> float(task.loss_at(x))
    0.0
    """
    if not isinstance(problem, TwoLayerMSETask):
        raise TypeError(f"problem must be a TwoLayerMSETask, got {type(problem).__name__}")
    C = check_positive_int("features", features)
    r = check_positive("r", r)
    d = problem.X.shape[1]
    if not 2 <= C <= d:
        raise ValueError(f"features must be in [2, input dim {d}] (the label uses x0 and x1), got {C}")
    if r * (C - 1) > WORKING_MAX:   # b_j = −r(C − 1) was refused as params['b'], a value never passed
        raise ValueError(f"r must be <= 3.4e38 / (features − 1) = {WORKING_MAX / (C - 1):.4g} (the biases "
                         f"−r(features − 1) stay in the working range), got r={r!r} with features={C}")
    if problem.width < 2**C:
        raise ValueError(f"the task's width must be >= 2**features = {2**C}, got {problem.width}")
    W = np.zeros((problem.width, d))
    b = np.zeros(problem.width)
    v = np.zeros(problem.width)
    for j in range(2**C):
        a = [(j >> i) & 1 for i in range(C)]
        W[j, :C] = r * (-1.0) ** np.array(a)
        b[j] = -r * (C - 1)
        v[j] = (-1.0) ** (a[0] + a[1]) / r
    return _flat(problem, W, b, v)


def memorizing_solution(problem: TwoLayerMSETask) -> np.ndarray:
    """Flat parameters of an interpolating solution in which sample k alone activates hidden unit k.

    W_k = x_k, b_k = −(‖x_k‖² + max_{j≠k} x_kᵀx_j)/2 (unit k fires on x_k only) and v_k fixed so
    that f(x_k) = y_k; units beyond n are 0. The memorizing solution of Section 3.3 of
    Chang & Khanna. Needs width ≥ n and every x_k with x_kᵀx_k > x_kᵀx_j (j ≠ k), e.g. distinct
    rows of {±1}^d.
    """
    if not isinstance(problem, TwoLayerMSETask):
        raise TypeError(f"problem must be a TwoLayerMSETask, got {type(problem).__name__}")
    n, d = problem.X.shape
    if problem.width < n:
        raise ValueError(f"the task's width must be >= n = {n} (one unit per sample), got {problem.width}")
    X = problem.X.astype(np.float64)
    gram = X @ X.T
    own = np.diag(gram).copy()
    np.fill_diagonal(gram, -np.inf)
    rival = gram.max(axis=1) if n > 1 else own - 2.0
    if np.any(own <= rival):
        k = int(np.flatnonzero(own <= rival)[0])
        raise ValueError(f"X row {k} is not separable from the others (x_kᵀx_k <= max_j x_kᵀx_j): "
                         "memorizing needs distinct rows of equal norm, e.g. distinct points of {±1}^d")
    W = np.zeros((problem.width, d))
    b = np.zeros(problem.width)
    v = np.zeros(problem.width)
    W[:n] = X
    b[:n] = -(own + rival) / 2.0
    v[:n] = problem.y.astype(np.float64) / ((own - rival) / 2.0)
    return _flat(problem, W, b, v)


def minimum_diagnostics(problem: TwoLayerMSETask, x: Any, *, lr: float | None = None,
                        batch_size: int | None = None, exact_sample_hessians: bool = False
                        ) -> dict[str, float | bool]:
    """Sharpness and coherence of the reached point ``x`` (flat parameters, as in ``Solution.x``).

    ``sharpness`` = λ_max(∇²L(θ)) (full Hessian); per-sample Gauss–Newton Hessians
    H_i = 2∇f_i∇f_iᵀ give ``gn_sharpness`` = λ_max((1/n)Σ H_i), ``coherence_top`` =
    λ_max(S) with S_ij = √Tr(H_i H_j) = 2|∇f_iᵀ∇f_j|, ``max_sample_top`` = max_i λ_max(H_i)
    = 2 max_i ‖∇f_i‖², ``coherence`` = σ = their ratio, and, when ``lr`` and ``batch_size``
    are given, ``sgd_radius`` = the exact mean-square radius of linearized SGD there (``lr`` > 0 in
    [1.18e-38, 3.4e38], ``batch_size`` an int in [1, n], as
    :func:`~algorithms.nets.stability.mean_square_radius` takes them; give both or neither).
    With ``exact_sample_hessians=True`` also the same three quantities from the true
    per-sample Hessians ∇²ℓ_i (which carry the residual term 2(f_i − y_i)∇²f_i off
    interpolation; negative Tr(H_iH_j) are clipped to 0): ``coherence_top_exact``,
    ``max_sample_top_exact``, ``coherence_exact`` (the paper's code uses these).

    σ is undefined when no per-sample Hessian has a positive eigenvalue (all ∇f_i = 0,
    e.g. a network whose units are all dead): then ``coherence`` (resp. ``coherence_exact``) is NaN, the flag
    ``coherence_defined`` (resp. ``coherence_exact_defined``) is False and a
    ``RuntimeWarning`` names the quantity; otherwise the flags are True.
    """
    problem, theta = _check_task_point(problem, x)
    if (lr is None) != (batch_size is None):
        raise ValueError(f"give lr and batch_size together (for sgd_radius), got lr={lr!r}, "
                         f"batch_size={batch_size!r}")
    if not isinstance(exact_sample_hessians, bool):
        raise TypeError(f"exact_sample_hessians must be a bool, got {type(exact_sample_hessians).__name__}")
    net = problem.net
    unflatten, Xd, yd = _functional(problem)

    def loss(t: torch.Tensor) -> torch.Tensor:
        return torch.mean((net.forward_with(unflatten(t), Xd) - yd) ** 2)

    def output(t: torch.Tensor, xi: torch.Tensor, yi: torch.Tensor) -> torch.Tensor:
        return net.forward_with(unflatten(t), xi[None])[0]

    hess = flat_hessian(loss, theta).detach().numpy()
    grads = _output_gradients(problem, theta)
    gram = grads @ grads.T
    sample_hessians = 2.0 * np.einsum("ia,ib->iab", grads, grads)
    S = coherence_matrix(sample_hessians)
    coherence_top = float(np.linalg.eigvalsh(S)[-1])
    max_sample_top = float(2.0 * np.max(np.diag(gram)))
    out = {
        "loss": float(loss(theta)),
        "sharpness": float(np.linalg.eigvalsh(0.5 * (hess + hess.T))[-1]),
        "gn_sharpness": float(np.linalg.eigvalsh(sample_hessians.mean(axis=0))[-1]),
        "trace": float(np.trace(hess)),
        "coherence_top": coherence_top,
        "max_sample_top": max_sample_top,
        "coherence": _coherence_ratio(coherence_top, max_sample_top, "coherence"),
        "coherence_defined": max_sample_top > 0,
    }
    if lr is not None and batch_size is not None:
        out["sgd_radius"] = mean_square_radius(sample_hessians, lr, batch_size)
    if exact_sample_hessians:
        def sample_loss(t: torch.Tensor, xi: torch.Tensor, yi: torch.Tensor) -> torch.Tensor:
            return (output(t, xi, yi) - yi) ** 2

        exact = per_sample_flat_hessians(sample_loss, theta, Xd, yd).detach().numpy()
        exact = 0.5 * (exact + np.swapaxes(exact, 1, 2))
        top = float(np.linalg.eigvalsh(coherence_matrix(exact))[-1])
        per_top = float(np.linalg.eigvalsh(exact)[:, -1].max())
        out.update(coherence_top_exact=top, max_sample_top_exact=per_top,
                   coherence_exact=_coherence_ratio(top, per_top, "coherence_exact"),
                   coherence_exact_defined=per_top > 0)
    return out


def _coherence_ratio(top: float, per_sample_top: float, name: str) -> float:
    """σ = λ_max(S) / max_i λ_max(H_i), or NaN with a RuntimeWarning when every H_i vanishes."""
    if per_sample_top > 0:
        return top / per_sample_top
    warnings.warn(f"{name} is undefined (NaN): no per-sample Hessian has a positive eigenvalue "
                  f"(max_i λ_max(H_i) = {per_sample_top:.3g})", RuntimeWarning, stacklevel=3)
    return math.nan
