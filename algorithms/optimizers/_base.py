"""What every optimizer of the family shares: hyperparameter checks, the non-finite-gradient flag,
fp32 state for low-precision parameters, and a ``state_dict`` that knows which optimizer wrote it.

Not public: :class:`~algorithms.optimizers.Muon`, :class:`~algorithms.optimizers.Shampoo` and
:class:`~algorithms.optimizers.SOAP` subclass :class:`MatrixOptimizer`.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import copy
import difflib
import inspect
import math
import numbers
import warnings
from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    INT64_MAX,
    NONNEGATIVE_STATE,
    WORKING_MAX,
    call_user,
    check_bool,
    check_choice,
    check_entries_in_range,
    check_finite_real,
    check_int_at_least,
    check_nonnegative,
    check_optimizer_state,
    check_positive,
    clone_tensors,
    refuse_replaced,
    refuse_unknown_attribute,
)

#: exceptions a closure raises that pass as they are (the package's models name their argument with
#: TypeError/ValueError; torch raises RuntimeError); any other (a KeyError of the user's own code) is
#: re-raised as a UserCallableError naming closure()
CLOSURE_OWN_ERRORS = (TypeError, ValueError, RuntimeError)

#: what ``step`` does when a gradient holds NaN or ±inf
NONFINITE_POLICIES = ("skip", "raise")

#: group keys that are not an optimizer's keywords but are expected: LR schedulers' (OneCycleLR, CyclicLR,
#: any scheduler's ``initial_lr``), torch's ``param_names`` and the ``name``/``role`` labels of
#: ``scaling.param_groups``
EXTRA_GROUP_KEYS = frozenset({"params", "initial_lr", "param_names", "name", "role", "max_lr", "min_lr",
                              "base_lr", "max_momentum", "base_momentum"})

#: keywords of torch's own optimizers: one written into a group of an optimizer that does not take it looks
#: meaningful but would be ignored (refused at the next step)
TORCH_OPTIMIZER_KEYWORDS = frozenset({
    "lr", "momentum", "dampening", "nesterov", "weight_decay", "betas", "eps", "amsgrad", "maximize",
    "foreach", "capturable", "differentiable", "fused", "decoupled_weight_decay", "alpha", "centered",
    "lr_decay", "rho"})

#: the group keys of a wrapping optimizer (SAM's ``rho``, ``normalize``) that share this one's groups: set by
#: :func:`wrapped_by` while the wrapper builds its base, so those keys are not refused as misspelt/unknown
_WRAPPER_KEYS: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("wrapper_group_keys",
                                                                               default=frozenset())


@contextlib.contextmanager
def wrapped_by(keys: frozenset[str] | set[str]):
    """Build a :class:`MatrixOptimizer` inside to let its groups carry ``keys`` (the wrapper's own)."""
    token = _WRAPPER_KEYS.set(frozenset(keys))
    try:
        yield
    finally:
        _WRAPPER_KEYS.reset(token)


_MISSING = object()

#: the per-parameter state of the auxiliary Adam(W) step (non-matrix parameters) and its shapes
ADAM_STATE = ("exp_avg", "exp_avg_sq", "adam_step")


#: the smallest positive learning rate accepted: float32's smallest normal number (a subnormal lr rounds
#: every step of the float32 state to 0)
LR_MIN = float(torch.finfo(torch.float32).tiny)

#: the largest learning rate accepted: torch takes any finite lr, but a step of 1e308 (or 2**64) overflows
#: the float32 state into ±inf weights (or fails inside torch's add_); no training here uses more than 1e4
LR_MAX = 1e10


#: gradient entries larger than this in magnitude are treated as non-finite (``on_nonfinite``): their
#: squares (Adam's second moment, Shampoo's and SOAP's statistics G Gᵀ) overflow the float32 state into
#: inf. A gradient of 3e38 made Shampoo write NaN into the weights and froze the Adam-stepped parameters
#: of Muon and SOAP (m/√inf = 0), in silence. float64 parameters keep float64 state: 1e150 there
LARGE_GRADIENT = 1e15
LARGE_GRADIENT_FLOAT64 = 1e150


class SparseGradientError(RuntimeError, TypeError):
    """A sparse gradient (``nn.Embedding(sparse=True)``) reached an optimizer whose update is dense: a
    ``RuntimeError`` (torch's Adam raises one, and the docstrings said so) and a ``TypeError`` (the
    gradient's layout is the wrong kind of input)."""


def check_model_weights(model: Any, name: str = "model", *, finite: bool = True) -> None:
    """A model to train: its floating weights on a real device and finite (a model with NaN weights, or one
    on the meta device, was accepted and trained into a NaN loss or failed inside torch), named ``name``."""
    for key, p in model.named_parameters():
        if p.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (its weight {key!r} has no data); materialize it "
                             f"first")
        if finite and p.is_floating_point() and not bool(torch.isfinite(p.detach()).all()):
            raise ValueError(f"{name} has NaN or inf in its weight {key!r}")
        if finite and p.is_floating_point():    # a float64 weight of 1e39 trained on in silence
            check_entries_in_range(f"{name}'s weight {key!r}", p)


def check_closure(closure: Any) -> None:
    """``step``'s closure: a callable that is not a class (``closure=dict`` was called, ``{}`` returned)."""
    if isinstance(closure, type) or not callable(closure):
        shown = f"the class {closure.__name__}" if isinstance(closure, type) else type(closure).__name__
        raise TypeError(f"closure must be callable, a function (not a class) re-evaluating the loss "
                        f"(zero_grad, forward, backward, return the loss), got {shown}")


def checked_loss(loss: Any) -> Any:
    """What a closure returned: the loss, a tensor of one element or a real number (torch's contract). None,
    a str, a dict, a generator, a coroutine or a tensor of several entries was returned by ``step`` as it
    was; each is refused naming closure."""
    if isinstance(loss, torch.Tensor) and loss.numel() == 1 and not loss.is_complex() \
            and loss.dtype != torch.bool:
        return loss
    # any real number (np.float32(1.0) or a Fraction was refused as "not a real number")
    if isinstance(loss, numbers.Real) and not isinstance(loss, bool | np.bool_):
        return loss
    if hasattr(loss, "close") and hasattr(loss, "send"):     # a coroutine or generator: closed, not leaked
        loss.close()
    shown = (f"a tensor of shape {tuple(loss.shape)} and dtype {loss.dtype}" if isinstance(loss, torch.Tensor)
             else f"{type(loss).__name__} {loss!r:.40}")
    raise TypeError(f"closure must return the loss (a tensor of one element or a real number), got {shown}")


def check_lr(value: Any, name: str = "lr") -> float:
    """``lr`` 0 or in [``LR_MIN``, ``LR_MAX``] (finite and >= 0 is torch's rule; the cap keeps a step finite,
    the floor keeps it a step: a subnormal lr such as 5e-324 rounds every float32 step to 0 and was a run
    that moved nothing, in silence), as a float. 0 (and -0.0, stored as 0.0) is valid: the step leaves the
    parameters unchanged, as torch's."""
    value = check_nonnegative(name, value)
    if value > LR_MAX:
        raise ValueError(f"{name} must be <= {LR_MAX:g} (a step that large overflows float32 weights into "
                         f"inf), got {value!r}")
    if 0.0 < value < LR_MIN:
        raise ValueError(f"{name} must be 0 or >= {LR_MIN:.4g} (float32's smallest normal number: a smaller "
                         f"step rounds to 0 in the float32 state), got {value!r}")
    return value + 0.0      # -0.0 stored as 0.0


def check_decay_product(lr: float, weight_decay: float, where: str = "") -> None:
    """Decoupled weight decay multiplies the weights by 1 − lr·weight_decay each step: the product must
    be <= 1 (a larger one flips their sign every step, and 1e308 overflowed them into inf). Tested on the
    float product, as the step forms 1 − lr·weight_decay: lr = 0.1 with weight_decay = 10 (exactly 1 + 5.6e-17
    as rationals, 1.0 as a float) passes and decays the weights to 0, no sign flip (the docstrings say
    "(the float product)")."""
    if lr * weight_decay > 1.0:
        raise ValueError(f"{where}lr·weight_decay must be <= 1 (each step multiplies the weights by "
                         f"1 − lr·weight_decay), got lr={lr!r}, weight_decay={weight_decay!r}")


#: torch optimizers' boolean keywords (foreach and fused also take None: torch's choice)
TORCH_FLAG_KEYWORDS = frozenset({"maximize", "capturable", "amsgrad", "nesterov", "foreach", "fused",
                                 "differentiable", "decoupled_weight_decay"})


#: keywords that are positive scales (README): torch takes eps = 0, and Adam's step is then 0/0 on a
#: coordinate whose gradient is 0
POSITIVE_KEYWORDS = frozenset({"eps", "adam_eps", "adamw_eps"})

#: torch flags the package's wrappers cannot honour, and why
UNSUPPORTED_FLAGS = {"capturable": "CUDA-graph capture: the parameters here step outside a graph, and torch "
                                   "refuses it on CPU tensors",
                     "differentiable": "the steps run outside autograd, and torch's in-place step on a leaf "
                                       "that requires grad fails"}
#: keywords that are a pair (β₁, β₂)
PAIR_KEYWORDS = frozenset({"betas", "adamw_betas"})

#: real keywords whose default is None (SOAP's shampoo_beta = None: betas[1])
NONE_DEFAULT_KEYWORDS = frozenset({"shampoo_beta"})

#: torch's and this family's real-valued optimizer keywords: an int given for one is taken as the float
REAL_KEYWORDS = frozenset({
    "lr", "weight_decay", "momentum", "dampening", "eps", "alpha", "lr_decay", "initial_accumulator_value",
    "rho", "lambd", "t0", "max_lr", "momentum_decay", "etas", "step_sizes", "betas", "beta",
    "tolerance_grad", "tolerance_change", "adam_eps", "exponent", "shampoo_beta", "expansion_lr_scale"})


def _is_real(value: Any) -> bool:
    """A real number (not a bool, not complex), or a one-element real tensor or array."""
    if isinstance(value, torch.Tensor):
        return value.numel() == 1 and not value.is_complex() and value.dtype != torch.bool
    if isinstance(value, np.ndarray):
        return value.size == 1 and value.dtype.kind in "iuf"
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def check_keyword_kinds(cls: Any, keywords: dict[str, Any], where: str = "") -> None:
    """Each keyword of the optimizer class ``cls`` of the kind its constructor's default is: a flag a bool
    (None too where the default is None), a number a real number (a one-element tensor too), a pair such as
    ``betas``/``etas``/``step_sizes`` a tuple or list of that many real numbers; else a TypeError naming it.
    torch's constructors check values, not types: momentum = True ran as 1.0, dampening = "x" or 1j stepped,
    centered = None ran as False, betas = np.array([.9, .99]) met numpy's "truth value ... ambiguous", and
    lambd = "x" or weight_decay = True met Python's/torch's errors inside the step, naming nothing."""
    try:
        signature = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    for key, value in keywords.items():
        parameter = signature.get(key)
        if key == "params" or parameter is None or parameter.default is inspect.Parameter.empty:
            continue
        default = parameter.default
        if isinstance(default, bool) or key in TORCH_FLAG_KEYWORDS:
            if not (isinstance(value, bool | np.bool_) or (value is None and default is None)):
                raise TypeError(f"{where}{key} must be a bool ({cls.__name__}'s flag), got "
                                f"{type(value).__name__} {value!r:.40}")
        elif isinstance(default, numbers.Real) or (key in REAL_KEYWORDS and not isinstance(default, tuple)):
            if not (_is_real(value) or (value is None and default is None)):
                raise TypeError(f"{where}{key} must be a real number ({cls.__name__} takes a number), got "
                                f"{type(value).__name__} {value!r:.40}")
        elif isinstance(default, tuple) and default and all(isinstance(d, numbers.Real) for d in default):
            if isinstance(value, tuple | list) and len(value) != len(default):
                if key in PAIR_KEYWORDS:    # check_real_keywords's words for betas
                    raise ValueError(f"{where}{key} must be a pair (β₁, β₂), got {len(value)} values: "
                                     f"{value!r:.60}")
                raise ValueError(f"{where}{key} must hold {len(default)} real numbers (as {cls.__name__}'s "
                                 f"default {default}), got {len(value)} values: {value!r:.60}")
            if not (isinstance(value, tuple | list) and all(_is_real(v) for v in value)):
                raise TypeError(f"{where}{key} must be a tuple of {len(default)} real numbers (as "
                                f"{cls.__name__}'s default {default}), got {type(value).__name__} "
                                f"{value!r:.60}")


def check_real_keywords(keywords: dict[str, Any], where: str = "", lr: float | None = None) -> dict[str, Any]:
    """A base optimizer's keywords (torch's SGD/AdamW/...: momentum, weight_decay, eps, betas, ...) with every
    real number, alone or inside a tuple/list, finite and inside the working range (|x| <= 3.4e38), as
    plain floats; with ``lr``, ``weight_decay`` also >= 0 and lr·weight_decay <= 1 (the family's decoupled
    decay rule). torch takes any finite value: momentum = 1e300 stepped inf into the weights, weight_decay
    = 1e39 failed inside torch ("value cannot be converted to type float without overflow"). torch's flags
    (:data:`TORCH_FLAG_KEYWORDS`) must be bools, and the real keywords (:data:`REAL_KEYWORDS`) real numbers
    (a str or None for one is refused by name; None is taken where it is the default). Other values (strs,
    None, dtypes) are left to the base optimizer."""
    out = dict(keywords)
    for key, value in keywords.items():
        if key == "params":
            continue
        if key in TORCH_FLAG_KEYWORDS:   # maximize="no" is truthy: it maximized the loss, in silence
            if not (isinstance(value, bool | np.bool_) or (value is None and key in ("foreach", "fused"))):
                raise TypeError(f"{where}{key} must be a bool (torch's flag), got {type(value).__name__} "
                                f"{value!r:.40}")
            out[key] = value if value is None else bool(value)
            if key in UNSUPPORTED_FLAGS and out[key]:   # torch's AssertionError / RuntimeError at a step
                raise ValueError(f"{where}{key}=True is not supported here ({UNSUPPORTED_FLAGS[key]}); "
                                 f"leave it False")
            continue
        if key in PAIR_KEYWORDS and isinstance(value, tuple | list) and len(value) != 2:
            # a 3-tuple met "too many values to unpack" inside torch's step, naming nothing
            raise ValueError(f"{where}{key} must be a pair (β₁, β₂), got {len(value)} values: {value!r:.60}")
        items = value if isinstance(value, tuple | list) else (value,)
        checked = []
        for i, item in enumerate(items):
            item = _one_number(f"{where}{key}", item)
            if isinstance(item, bool | np.bool_) or not isinstance(item, numbers.Real):
                if key in REAL_KEYWORDS and not (item is None and (key in NONE_DEFAULT_KEYWORDS
                                                                  or items is value)):
                    # dampening = "x" (unused by SGD at momentum 0) stepped in silence; betas = "x" met
                    # Python's "'<=' not supported" naming nothing. None where a default is None (SOAP's
                    # shampoo_beta; inside Adafactor's eps pair) is taken
                    label = f"{where}{key}" if items is not value else f"{where}{key}[{i}]"
                    raise TypeError(f"{label} must be a real number, got {type(item).__name__} {item!r:.40}")
                checked.append(item)
                continue
            label = f"{where}{key}" if items is not value else f"{where}{key}[{i}]"
            real = check_finite_real(label, item)
            if key in POSITIVE_KEYWORDS and items is not value:     # eps = 0 made Adam's first step 0/0 = NaN
                real = check_positive(label, real)
            # an int stays an int (precondition_frequency=2 as 2.0 was refused by Shampoo as not an int),
            # except a real hyperparameter's: an int weight_decay skipped the float-only checks below and
            # 2**64 failed inside torch's C code ("int too big to convert")
            if isinstance(item, numbers.Integral) and key not in REAL_KEYWORDS:
                if abs(int(item)) > INT64_MAX:
                    raise ValueError(f"{label} must be <= 2**63 - 1 in magnitude (an int keyword: a count or "
                                     f"a size), got {int(item)}")
                checked.append(int(item))
            else:
                checked.append(real)
        out[key] = type(value)(checked) if isinstance(value, tuple | list) else checked[0]
    wd = out.get("weight_decay")
    if lr is not None and isinstance(wd, float):
        check_decay_product(lr, check_nonnegative(f"{where}weight_decay", wd), where)
    return out


def _one_number(name: str, item: Any) -> Any:
    """A one-element tensor or array as its number (then checked as the number is: momentum = tensor(nan)
    was stepped, weight_decay = np.array(1e39) drove the weights to 1e73); anything else as it is."""
    if isinstance(item, torch.Tensor) and item.numel() == 1:
        if item.dtype == torch.bool or item.is_complex():
            raise TypeError(f"{name} must be a real number, got a {item.dtype} tensor")
        return item.item()
    if isinstance(item, np.ndarray) and item.size == 1:
        if item.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be a real number, got a {item.dtype} array")
        return item.item()
    return item


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


#: the largest ε accepted (below bfloat16's largest finite number, 3.39e38, the precision Muon's ε is
#: used in: 1e308 failed inside torch's clamp). Any ε past 1 already makes the step tiny.
EPS_MAX = 1e38

#: the smallest ε accepted: float32's smallest normal number. The state is float32 (for all but float64
#: parameters), where a smaller ε rounds to 0 or a subnormal: SOAP with eps=1e-100 divided 0 by 0 and
#: Shampoo with eps=1e-300 took the inverse root of a singular statistic (NaN weights, no error)
EPS_MIN = float(torch.finfo(torch.float32).tiny)


def check_eps(name: str, value: Any) -> float:
    value = check_positive(name, value)
    if value < EPS_MIN:
        raise ValueError(f"{name} must be >= {EPS_MIN:.4g} (float32's smallest normal number: the optimizer "
                         f"state is float32 and a smaller {name} rounds to 0 there), got {value!r}")
    if value > EPS_MAX:
        raise ValueError(f"{name} must be <= {EPS_MAX:g} (bfloat16's range, where Muon's ε is used), got "
                         f"{value!r}")
    return value


def check_frequency(name: str, value: Any) -> int:
    return check_int_at_least(name, value, 1)


class MatrixOptimizer(torch.optim.Optimizer):
    """A ``torch.optim.Optimizer`` with the family's common behaviour.

    * ``on_nonfinite="warn"`` (the default of Shampoo and SOAP): a step whose gradients hold
      NaN/±inf, or an entry above :data:`LARGE_GRADIENT` (1e15; 1e150 for float64 parameters, whose
      squares would overflow the state), changes neither the parameters nor the state
      (``skipped_steps`` counts them) and
      warns (``RuntimeWarning``); ``"skip"``: the same without the warning; ``"raise"``:
      FloatingPointError. (torch's own optimizers write the NaN into the weights.)
    * state tensors are float32 (float64 for float64 parameters), whatever the parameter
      dtype: a bfloat16 parameter is updated from an fp32 computation and rounded once.
    * a sparse gradient (``nn.Embedding(sparse=True)``) raises ``RuntimeError``, as torch's Adam does.
    * ``state_dict()`` records the optimizer class; ``load_state_dict`` refuses another
      optimizer's state and restores the state tensors without casting them to the
      parameter dtype (torch's default would round fp32 state to bfloat16).
    """

    def __init__(self, params, defaults: dict[str, Any], on_nonfinite: str = "warn") -> None:
        self.on_nonfinite = check_choice("on_nonfinite", on_nonfinite, ("warn", *NONFINITE_POLICIES))
        self._wrapper_keys = _WRAPPER_KEYS.get()    # a wrapping SAM's rho/normalize: its keys, not ours
        self.skipped_steps = 0
        try:
            super().__init__(params, defaults)
        except (TypeError, ValueError) as exc:  # torch's message about params, raised from here
            raise type(exc)(f"{type(self).__name__}: params: {exc}") from None
        # the keywords as built: a key the user writes into the mutable defaults later ('lrr') is not one
        self._keywords = frozenset(self.defaults)
        for index, group in enumerate(self.param_groups):
            self._refuse_unknown_keys(group, f"params[{index}]")
            self._check_group(group)
        self._check_distinct()
        self.__dict__["_built"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        """``on_nonfinite`` and ``skipped_steps`` checked when set after construction (``on_nonfinite = 3``
        skipped NaN steps in silence, ``skipped_steps = -1`` was kept); the routing an optimizer fixed at
        construction (Muon's ``head``) cannot change."""
        if "skipped_steps" in self.__dict__:        # after __init__
            if name == "on_nonfinite":
                value = check_choice("on_nonfinite", value, ("warn", *NONFINITE_POLICIES))
            elif name == "skipped_steps":
                value = check_int_at_least("skipped_steps", value, 0, size=False)
            elif "_built" in self.__dict__ and not name.startswith("_") and name not in self.__dict__ \
                    and name not in self._PICKLED and not hasattr(type(self), name):
                # opt.lrr = 0.1 (meant for a group) was stored and ignored
                refuse_unknown_attribute(self, name, ("on_nonfinite", "skipped_steps"))
            elif "_built" in self.__dict__ and name in ("defaults", "state", "param_groups"):
                # load_state_dict replaces them through __setstate__, not here
                refuse_replaced(type(self).__name__, name, value, self.__dict__.get(name),
                                "edit its entries, load a state_dict, or build a new optimizer")
            elif name in self._FIXED_AFTER_INIT and value != self.__dict__.get(name, value):
                raise ValueError(f"{type(self).__name__}.{name} is fixed at construction "
                                 f"({self.__dict__[name]!r}); build a new {type(self).__name__} for "
                                 f"{name}={value!r:.40}")
        super().__setattr__(name, value)

    #: attributes decided at construction that a later assignment may not change
    _FIXED_AFTER_INIT: tuple[str, ...] = ()

    #: constructor keywords that are the optimizer's own attributes, not parameter-group keys (a wrapper such
    #: as SAM passes them to the constructor only: SAM(..., Muon, head="muon") was refused as a group key)
    CONSTRUCTOR_KEYWORDS: tuple[str, ...] = ("on_nonfinite",)

    #: instance attributes beyond torch's pickled ``defaults``/``state``/``param_groups`` (torch's
    #: ``__getstate__`` drops them: a deepcopy or an unpickled optimizer could not step)
    _PICKLED = ("on_nonfinite", "skipped_steps", "_wrapper_keys", "_keywords")

    def keywords(self) -> frozenset[str]:
        """This optimizer's keywords, fixed at construction (``defaults``' keys then)."""
        return self.__dict__.get("_keywords") or frozenset(self.defaults)

    def _refuse_edited_defaults(self) -> None:
        """A key written into ``defaults`` after construction (``defaults['lrr'] = 0.1``) made the key
        checks take 'lrr' as a keyword: stepped and ignored in silence, copied into later groups (red20c)."""
        extra = sorted(str(k) for k in set(self.defaults) - self.keywords())
        if extra:
            raise ValueError(f"{type(self).__name__}: defaults has the key(s) {extra} written after "
                             f"construction, not {type(self).__name__} keywords (known: "
                             f"{sorted(self.keywords())}); set hyperparameters in param_groups")

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.update({k: self.__dict__[k] for k in self._PICKLED if k in self.__dict__})
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        had_flag = "differentiable" in state.get("defaults", {})
        super().__setstate__(state)
        if not had_flag:     # torch adds it to defaults; it is not one of this optimizer's keywords
            self.defaults.pop("differentiable", None)

    def _check_distinct(self) -> None:
        """A tensor listed twice (in one group or two) would take two steps per ``step`` in silence
        (torch only warns)."""
        seen: set[int] = set()
        for group in self.param_groups:
            for p in group["params"]:
                if id(p) in seen:
                    raise ValueError(f"params lists a tensor of shape {tuple(p.shape)} twice; each "
                                     "parameter may appear once")
                seen.add(id(p))

    def _refuse_unknown_keys(self, group: dict[str, Any], where: str) -> None:
        """A group the user wrote (at construction or ``add_param_group``) holds only this optimizer's
        keywords and the keys LR schedulers and torch add: a misspelt key (``"lrr"``, torch accepts any)
        left the default in force, with a warning only (SAM refuses it, as here). Groups edited later or
        loaded from a state_dict keep extra keys (a scheduler's, another library's)."""
        unknown = sorted(str(k) for k in set(group) - self.keywords() - EXTRA_GROUP_KEYS
                         - self.__dict__.get("_wrapper_keys", frozenset()))
        if unknown:
            name = type(self).__name__
            raise ValueError(f"{where}: parameter group keys {unknown} are not {name} keywords (known: "
                             f"{sorted(self.keywords())})")

    def _refuse_misspelt_keys(self, index: int, group: dict[str, Any], where: str | None = None) -> None:
        """A key written into ``param_groups`` after construction (or loaded) that is a near-spelling of a
        keyword (``"weight_decy"``, ``"lrr"``: difflib ratio >= 0.8), a torch keyword this optimizer does not
        take, or any other key holding a number, bool or tensor (``"LR"``, ``"learning_rate"``) is refused at
        the next step (at the load), naming it: the group's own value stayed in force in silence. Other extra
        keys (a scheduler's, another library's str labels) are kept."""
        where = f"{type(self).__name__}.step: " if where is None else where
        keywords = self.keywords()
        for key in group:
            if not isinstance(key, str) or key in keywords or key in EXTRA_GROUP_KEYS \
                    or key in self.__dict__.get("_wrapper_keys", frozenset()):
                continue
            if key in TORCH_OPTIMIZER_KEYWORDS:   # maximize = "no" written into Shampoo's group was ignored
                raise ValueError(f"{where}param_groups[{index}] has the key {key!r}, a "
                                 f"torch.optim keyword that {type(self).__name__} does not take (it would be "
                                 f"ignored; its keywords: {sorted(keywords)})")
            close = difflib.get_close_matches(key, sorted(keywords), n=1, cutoff=0.8)
            if close:
                raise ValueError(f"{where}param_groups[{index}] has the key {key!r}, "
                                 f"not a {type(self).__name__} keyword: did you mean {close[0]!r}? (the "
                                 f"group's {close[0]} stays unchanged under a misspelt key)")
            if _looks_like_hyperparameter(group[key]):
                # "LR", "learning_rate", Shampoo's "adam_eps": a number under a key no step reads was ignored
                raise ValueError(f"{where}param_groups[{index}] has the key {key!r} holding a number, "
                                 f"not a {type(self).__name__} keyword (it would be ignored; its keywords: "
                                 f"{sorted(keywords)}; labels of other libraries may hold strs)")

    def _check_group(self, group: dict[str, Any]) -> None:
        """Validate one parameter group's hyperparameters (subclasses extend it)."""
        group["lr"] = check_lr(group["lr"])
        group["weight_decay"] = check_nonnegative("weight_decay", group["weight_decay"]) + 0.0
        check_decay_product(group["lr"], group["weight_decay"])
        for p in group["params"]:
            if not p.is_floating_point() or p.is_complex():
                raise TypeError(f"{type(self).__name__}: params must be real floating tensors, "
                                f"got dtype {p.dtype}")
            if p.device.type == "meta":  # no data: the first finiteness check fails in Tensor.item()
                raise ValueError(f"{type(self).__name__}: params must hold data, got a tensor on the meta "
                                 f"device (materialize the model with .to_empty(device=...) first)")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's, with ``set_to_none`` a bool (a truthy str such as "no" was taken as True)."""
        set_to_none = check_bool("set_to_none", set_to_none)
        check_params_lists(f"{type(self).__name__}.zero_grad", self.param_groups)
        super().zero_grad(set_to_none)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        built = hasattr(self, "skipped_steps")  # after __init__ (whose own wrapper names params)
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict with a 'params' entry, got "
                            f"{type(param_group).__name__}")
        if "params" not in param_group:     # torch's own KeyError names nothing
            raise ValueError(f"param_group must have a 'params' entry (the tensors to optimize), got keys "
                             f"{sorted(param_group)}")
        try:
            super().add_param_group(param_group)
        except (TypeError, ValueError) as exc:  # torch's message (a parameter in two groups) names nothing
            if not built:
                raise
            raise type(exc)(f"{type(self).__name__}.add_param_group: params: {exc}") from None
        if built:  # validate the new group too; a refused group is not left behind
            try:
                self._refuse_edited_defaults()
                self._refuse_unknown_keys(self.param_groups[-1], "param_group")
                self._check_group(self.param_groups[-1])
                self._check_distinct()
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
                        raise SparseGradientError(
                            f"{type(self).__name__} does not support sparse gradients: a parameter of shape "
                            f"{tuple(p.shape)} has one (e.g. from nn.Embedding(sparse=True)); use dense "
                            "gradients")
                    by_kind.setdefault((p.grad.device, p.grad.dtype), []).append(p.grad)
        for (device, dtype), grads in by_kind.items():
            found = torch.zeros(1, device=device)
            try:  # GradScaler's fused check (one kernel per dtype); multiplying by 1 leaves grads as they are
                torch._amp_foreach_non_finite_check_and_unscale_(grads, found, torch.ones(1, device=device))
            except (RuntimeError, AttributeError):
                found = torch.stack([~torch.isfinite(g).all() for g in grads]).any().float()
            if found.item():
                return False
            limit = LARGE_GRADIENT_FLOAT64 if dtype == torch.float64 else LARGE_GRADIENT
            sized = [g for g in grads if g.numel()]
            if sized and dtype.itemsize > 1 and torch.finfo(dtype).max > limit:   # fp16/bf16 can't exceed it
                try:        # one fused max-norm per dtype
                    tops = torch._foreach_norm(sized, math.inf)
                except (RuntimeError, AttributeError, TypeError):
                    tops = [g.abs().amax() for g in sized]
                # compared in float64: a float64 top of 1e151 cast to float32 is inf, and the limit 1e150
                # cast to float32 is inf too, so inf > inf let it through (heldout21)
                if bool((torch.stack([t.double() for t in tops]) > limit).any()):
                    return False
        return True

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One step; ``closure`` (optional): a function (not a class) that
        re-evaluates the loss with gradients and returns it, a tensor of one element or a real number
        (None, a str, a dict, a generator or a tensor of several entries is refused naming closure; a
        KeyError or other exception of the closure's own code is re-raised as a ``UserCallableError``, a
        ValueError, naming closure(), while TypeError/ValueError/RuntimeError pass as they are)."""
        return self._step(closure)

    def _step(self, closure: Callable[[], Any] | None) -> Any:
        """:meth:`step`'s body, under ``torch.no_grad`` (a subclass's ``step`` decorates and calls it)."""
        loss = None
        if closure is not None:
            check_closure(closure)
            with torch.enable_grad():
                loss = checked_loss(call_user("closure()", closure, keep=CLOSURE_OWN_ERRORS))
        check_params_lists(f"{type(self).__name__}.step", self.param_groups)
        check_state_container(type(self).__name__, self)
        self._check_step_hyperparameters()
        self._check_live_state()
        if not self._gradients_finite():
            if self.on_nonfinite == "raise":
                raise FloatingPointError(f"{type(self).__name__}.step: a gradient holds NaN or inf, or an "
                                         f"entry above {LARGE_GRADIENT:g} ({LARGE_GRADIENT_FLOAT64:g} for "
                                         "float64) whose square overflows the optimizer state "
                                         "(on_nonfinite='raise'); set on_nonfinite='skip' to skip "
                                         "such steps")
            self.skipped_steps += 1
            if self.on_nonfinite == "warn":
                warnings.warn(f"{type(self).__name__}.step: a gradient holds NaN or inf (or an entry above "
                              f"{LARGE_GRADIENT:g}, whose square overflows the state); the step was "
                              f"skipped (parameters and state unchanged, {self.skipped_steps} skipped so "
                              "far). Pass on_nonfinite='raise' to stop, or 'skip' to skip silently",
                              RuntimeWarning,
                              stacklevel=2)
            return loss
        for group in self.param_groups:
            self._step_group(group)
        self._state_versions = self._live_state_versions()
        return loss

    def _live_state_versions(self) -> dict[tuple[int, str], tuple[torch.Tensor, int]]:
        # step counts too (by identity): adam_step = -1 written after a step made Adam's bias correction 0/0
        return {(id(p), key): (value, value._version if isinstance(value, torch.Tensor) else None)
                for p, entry in self.state.items() for key, value in entry.items()}

    def _check_live_state(self) -> None:
        """State entries written in place or replaced since the last step, checked as load_state_dict checks
        them (finite, float32/float64, the shape a step writes): NaN filled into Muon's momentum_buffer
        stepped NaN into the weights in silence, and a buffer of another shape failed inside torch naming
        nothing. Compared by tensor identity and version counter: free when nothing was touched."""
        seen = self.__dict__.get("_state_versions")
        if seen is None:
            return
        self._check_state_finite()
        self._check_live_keys(seen)
        index = -1
        for group in self.param_groups:
            settings = {**self.defaults, **{k: v for k, v in group.items() if k != "params"}}
            for p in group["params"]:
                index += 1
                entry = self.state.get(p)
                touched = [key for key, value in (entry or {}).items()
                           if seen.get((id(p), key), (None, None))[0] is not value
                           or (isinstance(value, torch.Tensor) and seen[(id(p), key)][1] != value._version)]
                if touched:
                    self._check_live_entry(index, p, entry, touched, settings)

    def _check_live_keys(self, seen: dict[tuple[int, str], Any]) -> None:
        """No entry deleted from a parameter's live state (that part restarted in silence, or torch's
        KeyError 'left_root'); clearing the whole entry restarts the parameter, as in torch."""
        kept: dict[int, set[str]] = {}
        for pid, key in seen:
            kept.setdefault(pid, set()).add(key)
        for index, p in enumerate(q for group in self.param_groups for q in group["params"]):
            entry = self.state.get(p)
            missing = sorted(map(str, kept.get(id(p), set()) - set(entry))) if entry else []
            if missing:
                raise ValueError(f"{type(self).__name__}.step: state[param {index}] lost the entries "
                                 f"{missing} after the last step; the step needs all of them (clear "
                                 "the whole entry to restart the parameter, or reload a saved state_dict)")

    def _check_state_finite(self) -> None:
        """Every floating state tensor finite (:func:`check_state_finite`)."""
        check_state_finite(type(self).__name__, self)

    def _check_live_entry(self, index: int, p: torch.Tensor, entry: dict[str, Any], touched: list[str],
                          settings: dict[str, Any]) -> None:
        shapes: dict[str, Any] = {}
        for option in self._expected_state(p, settings):
            shapes.update(option)
        for key in touched:
            where = (f"{type(self).__name__}.step: state[param {index}]['{key}'] was changed after the last "
                     f"step")
            value = entry[key]
            if key not in shapes:         # written into the state and ignored by every step
                raise ValueError(f"{type(self).__name__}.step: state[param {index}] has the key {key!r}, "
                                 f"which no {type(self).__name__} step reads (it writes "
                                 f"{' or '.join(str(sorted(o)) for o in self._expected_state(p, settings))})")
            if shapes[key] is None:       # a step count, checked as load_state_dict checks it
                n = value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value
                real = isinstance(n, int | float | np.integer) and not isinstance(n, bool | np.bool_)
                if not (real and math.isfinite(n) and 0 <= n < 2**63 and float(n).is_integer()):
                    raise ValueError(f"{where}: a step count must be an integer >= 0, got "
                                     f"{type(value).__name__} {value!r:.40}")
                continue
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"{where}: it must be a tensor, got {type(value).__name__}")
            if value.dtype not in (torch.float32, torch.float64):
                raise TypeError(f"{where}: it must be float32 or float64, got {value.dtype}")
            if tuple(value.shape) != tuple(shapes[key]):
                raise ValueError(f"{where}: it has shape {tuple(value.shape)}, expected {tuple(shapes[key])} "
                                 f"for a parameter of shape {tuple(p.shape)}")
            if not bool(torch.isfinite(value).all()):
                raise ValueError(f"{where}: it holds NaN or inf (the step would write them into the "
                                 f"weights); reload a saved state_dict or build a new optimizer")
            if value.numel() and float(value.abs().max()) > WORKING_MAX:     # 1e39 stepped ~1e38 weights
                raise ValueError(f"{where}: it has an entry of magnitude {float(value.abs().max()):.3g}, "
                                 f"past the working range (<= {WORKING_MAX:.5g})")
            self._check_entry_structure(key, value, where)

    def _check_entry_structure(self, key: str, value: torch.Tensor, where: str) -> None:
        """A subclass's structural invariant of a state entry edited in place (a preconditioner root
        positive definite, a rotation basis orthonormal); none by default."""

    def _check_step_hyperparameters(self) -> None:
        """``lr`` and ``weight_decay`` of every group as they are now: an LR scheduler or a user edits
        ``param_groups`` in place after construction, and a NaN or negative value written there would
        reach the weights in silence (torch's optimizers step with it)."""
        self._refuse_edited_defaults()
        for index, group in enumerate(self.param_groups):
            missing = sorted(str(k) for k in ("lr", "weight_decay", "params") if k not in group)
            if missing:     # a group appended to param_groups by hand met a bare KeyError
                raise ValueError(f"{type(self).__name__}.step: param_groups[{index}] lacks the key(s) "
                                 f"{missing}; add a group with add_param_group, which fills in the defaults")
            lr, wd = group["lr"], group["weight_decay"]
            # the common case, checked for free: the same rules as check_lr / check_nonnegative (lr 0 or
            # in [LR_MIN, LR_MAX], weight_decay in [0, WORKING_MAX]: an edit to lr = 1e-39 or to
            # weight_decay = 1e300 with lr = 0 passed a looser test here)
            if not (type(lr) is float and type(wd) is float and (lr == 0.0 or LR_MIN <= lr <= LR_MAX)
                    and 0.0 <= wd <= WORKING_MAX and lr * wd <= 1.0):
                try:
                    lr = check_lr(lr, f"param_groups[{index}]['lr']")
                    wd = check_nonnegative(f"param_groups[{index}]['weight_decay']", wd) + 0.0
                    check_decay_product(float(lr), float(wd), f"param_groups[{index}]: ")
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"{type(self).__name__}.step: param_groups[{index}] was edited to an "
                                    f"invalid value: {exc}") from None
                # the values as the constructor keeps them: a Fraction(1, 100) lr met torch's "argument
                # 'alpha' must be Number, not Fraction"
                group["lr"], group["weight_decay"] = lr, wd
            self._recheck_edited_group(index, group)

    def _recheck_edited_group(self, index: int, group: dict[str, Any]) -> None:
        """The other hyperparameters (momentum, betas, eps, ...) re-checked when a user edited them in
        ``param_groups`` since the last check (``momentum=nan`` stepped NaN into the weights, ``eps=-1``
        or ``precondition_frequency=0`` failed inside the step). Compared by identity: free when
        nothing changed; ``lr``/``weight_decay`` (what schedulers edit) are checked above."""
        snapshots = self.__dict__.setdefault("_validated_groups", {})
        snapshot = snapshots.get(id(group))
        param_ids = [id(p) for p in group["params"]]
        if snapshot is not None and snapshot[0] is group and len(snapshot[1]) == len(group) and all(
                k in ("lr", "weight_decay", "params") or group.get(k, _MISSING) is v
                for k, v in snapshot[1].items()) and snapshot[2] == param_ids:
            return
        if snapshot is None or snapshot[2] != param_ids:
            # a tensor appended to the params list in place: listed twice it took two steps per step
            try:
                self._check_distinct()
            except ValueError as exc:
                raise ValueError(f"{type(self).__name__}.step: param_groups[{index}]['params'] was edited: "
                                 f"{exc}") from None
        # the group's own parameters: a check may depend on them (Muon's use_muon=True edited onto a group of
        # vectors stepped them through Newton–Schulz's routing in silence)
        self._refuse_misspelt_keys(index, group)
        edited = [] if snapshot is None else sorted(
            str(k) for k in group if k not in ("params", "lr", "weight_decay")
            and snapshot[1].get(k, _MISSING) is not group[k])
        candidate = {**group, "params": list(group["params"])}
        try:
            with warnings.catch_warnings():         # unknown keys were warned about when the group came
                warnings.simplefilter("ignore")
                self._check_group(candidate)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{type(self).__name__}.step: param_groups[{index}] was edited to an invalid "
                            f"value: {exc}") from None
        except KeyError as exc:     # a group appended by hand without a keyword
            raise ValueError(f"{type(self).__name__}.step: param_groups[{index}] lacks the key {exc}; add a "
                             f"group with add_param_group, which fills in the defaults") from None
        for key, value in candidate.items():       # normalized values (np.float32 -> float) written back
            if key not in ("params", "lr", "weight_decay"):
                group[key] = value
        self._check_state_fits(index, group, edited)
        snapshots[id(group)] = (group, dict(group), param_ids)

    def _check_state_fits(self, index: int, group: dict[str, Any], edited: list[str]) -> None:
        """The state of the group's parameters is what a step under the group's edited settings reads:
        Shampoo's and SOAP's ``block_size`` edited after a step failed inside torch ("expanded size"), and
        ``max_precond_dim`` edited was ignored in silence (the statistics built for the old value stayed
        in use). A parameter's state must hold every entry of one of :meth:`_expected_state`'s
        alternatives, with its shape, and no entry outside them."""
        settings = {**self.defaults, **{k: v for k, v in group.items() if k != "params"}}
        for p in group["params"]:
            entry = self.state.get(p)
            if not entry:
                continue
            options = self._expected_state(p, settings)
            known = {key: shape for option in options for key, shape in option.items()}
            fits = all(key in known for key in entry) and any(set(o) <= set(entry) for o in options) \
                and all(known[key] is None or not isinstance(value, torch.Tensor)
                        or tuple(value.shape) == tuple(known[key]) for key, value in entry.items())
            if not fits:
                shown = {key: tuple(v.shape) if isinstance(v, torch.Tensor) else v
                         for key, v in entry.items()}
                name, what = type(self).__name__, ", ".join(edited) or "its settings"
                raise ValueError(f"{name}.step: param_groups[{index}] was edited ({what}) after its "
                                 f"parameters had state: a parameter of shape {tuple(p.shape)} holds "
                                 f"{shown}, built for the old settings, and a step under the new ones needs "
                                 f"{' or '.join(str(o) for o in options)}; these settings are fixed once a "
                                 f"parameter has state: build a new {name} for them")

    def _expected_state(self, p: torch.Tensor, group: dict[str, Any]) -> list[dict[str, tuple | None]]:
        """The state entries one step writes for ``p`` under ``group``'s settings: the alternatives, each
        key with its shape (None: a step count). Subclasses list their matrix state; non-matrix
        parameters take the Adam step."""
        return [adam_state(p)]

    def _check_state_structure(self, saved: dict[str, Any]) -> None:
        """Each saved parameter state has exactly the entries (and shapes) this optimizer's step writes
        for it under the saved group's settings: a missing entry would be re-created as zeros (the
        run restarts its statistics in silence) or fail inside the step, an unknown one is ignored. An
        empty entry is a parameter without state (torch's state holds one for a parameter read but never
        stepped): its next step starts fresh."""
        groups = saved["param_groups"]
        index = 0
        for own, group in zip(self.param_groups, groups, strict=True):
            settings = {**self.defaults, **{k: v for k, v in group.items() if k != "params"}}
            for p in own["params"]:
                entry = saved["state"].get(index)
                if entry:
                    where = f"state_dict['state'][{index}]"
                    options = self._expected_state(p, settings)
                    keys = set(entry)
                    match = next((o for o in options if set(o) == keys), None)
                    if match is None:
                        wanted = " or ".join(str(sorted(o)) for o in options)
                        raise ValueError(f"{where} has the entries {sorted(keys)}, but a "
                                         f"{type(self).__name__} step writes {wanted} for parameter {index} "
                                         f"(shape {tuple(p.shape)}): the state_dict was edited or written "
                                         "for other parameters or settings")
                    for key, shape in match.items():
                        value = entry[key]
                        if shape is None:
                            continue                    # a count, checked by check_optimizer_state
                        if not isinstance(value, torch.Tensor):
                            raise TypeError(f"{where}['{key}'] must be a tensor, got {type(value).__name__}")
                        if value.dtype not in (torch.float32, torch.float64):
                            raise TypeError(f"{where}['{key}'] must be float32 or float64 (as "
                                            f"{type(self).__name__} writes its state), got {value.dtype}")
                        if tuple(value.shape) != shape:
                            raise ValueError(f"{where}['{key}'] has shape {tuple(value.shape)}, expected "
                                             f"{shape} for parameter {index} of shape {tuple(p.shape)}")
                index += 1

    def _step_group(self, group: dict[str, Any]) -> None:
        """The loop every optimizer of the family shares: for each parameter with a gradient,
        ``W ← (1 − lr·λ) W − s·D`` with (D, s) from :meth:`_direction`, in the state dtype and
        written back once. A weight decay of 0 skips the multiplication by 1 (exact either way); lr = 0
        updates the state and leaves every weight bitwise unchanged (−0.0 included)."""
        for p in group["params"]:
            if p.grad is not None and p.numel():  # a 0-element parameter has nothing to step (as torch's)
                self._step_param(p, group)

    def _step_param(self, p: torch.Tensor, group: dict[str, Any]) -> None:
        """One parameter's step of :meth:`_step_group`."""
        lr, wd = group["lr"], group["weight_decay"]
        dtype = self.state_dtype(p)
        value = p.to(dtype)                 # p itself for float32 / float64 parameters
        direction, step_size = self._direction(p, p.grad.to(dtype), self.state[p], group, dtype)
        if lr == 0:     # the state moves, the weights not at all: W + (−0)·D turned a −0.0 weight into +0.0
            return
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
        # a snapshot: torch's load_state_dict keeps a float32 buffer as it is, so another optimizer loading
        # the live buffers would share them with this one (torch.optim.Muon continued 5e-3 off)
        state["state"] = clone_tensors(state["state"])
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
        extra = sorted(str(k) for k in set(saved) - {"state", "param_groups"})
        if extra:       # a key no load reads ("skipped_steps", a misspelt "param_group") was ignored
            raise ValueError(f"state_dict has the keys {extra}, which {type(self).__name__}.load_state_dict "
                             f"does not read (it takes 'state', 'param_groups' and 'optimizer')")
        check_optimizer_state(saved, self.param_groups)
        for index, group in enumerate(saved["param_groups"]):   # "LR": 0.1 loaded was ignored
            self._refuse_misspelt_keys(index, group, "state_dict: ")
        self._check_saved_groups(saved.get("param_groups"))
        for index, group in enumerate(saved["param_groups"]):
            missing = [key for key in ("lr", "weight_decay") if key not in group]
            if missing:     # every version wrote them: a hand-edited group would step with the default
                raise ValueError(f"state_dict['param_groups'][{index}] lacks {missing}")
        self._check_state_structure(saved)
        super().load_state_dict(saved)
        for group in self.param_groups:     # keys an older state_dict lacks (a keyword added since, e.g.
            for key, value in self.defaults.items():    # root_dtype) keep the values this one was built with
                group.setdefault(key, value)
        params = list(chain.from_iterable(g["params"] for g in self.param_groups))
        for index, p in enumerate(params):
            if index in saved["state"]:
                # float32 <-> float64 to this parameter's state dtype (a state saved from a float32 model
                # loads into a float64 one, as torch casts it), on its device
                self.state[p] = _copy_to(saved["state"][index], p.device, self.state_dtype(p))


def _looks_like_hyperparameter(value: Any) -> bool:
    """A number, bool, tensor or numpy value (alone or in a tuple/list): what an optimizer keyword holds."""
    items = value if isinstance(value, tuple | list) and value else (value,)
    return all(isinstance(v, numbers.Number | np.generic | np.ndarray | torch.Tensor) for v in items)


def check_params_lists(owner: str, param_groups: Any) -> None:
    """Each group's ``params`` a list (or tuple) of tensors: one replaced after construction by a str or a
    list holding a non-tensor failed inside torch's zero_grad or the step ("'str' object has no attribute
    'grad'")."""
    for index, group in enumerate(param_groups):
        params = group.get("params") if isinstance(group, dict) else None
        bad = next((p for p in params if not isinstance(p, torch.Tensor)), None) \
            if isinstance(params, list | tuple) else params
        if not isinstance(params, list | tuple) or bad is not None:
            what = f"a {type(bad).__name__} entry" if isinstance(params, list | tuple) else \
                f"{type(params).__name__} {params!r:.40}"
            raise TypeError(f"{owner}: param_groups[{index}]['params'] must be a list of tensors (the "
                            f"parameters), got {what}")
        if not all(p.is_leaf for p in params):     # appended by hand: carried and never stepped (red20c)
            raise ValueError(f"{owner}: param_groups[{index}]['params'] holds a non-leaf tensor (the result "
                             f"of an operation), which no step can update; torch's add_param_group refuses "
                             f"it")


def check_state_finite(owner: str, optimizer: torch.optim.Optimizer, *, allow_inf: bool = False) -> None:
    """Every floating state tensor of ``optimizer`` finite (not NaN only, with ``allow_inf``: a torch base
    optimizer's own second moment may overflow to inf, as torch's Adam does), in one fused pass (as the
    gradients are checked), else a ValueError naming the entry: a write through ``.data``
    (``state[p]['momentum_buffer'].data.fill_(nan)``) bumps no version counter, and the NaN reached the
    weights in silence."""
    tensors = [value for entry in optimizer.state.values() if isinstance(entry, dict)
               for value in entry.values()
               if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel()]
    if not tensors:
        return
    check_state_signs(owner, optimizer)
    norms = torch.stack([n.to(torch.float64) for n in torch._foreach_norm(tensors, math.inf)])
    if not bool(norms.isnan().any()) and (allow_inf or bool(norms.isfinite().all())):
        return
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for index, p in enumerate(params):
        for key, value in optimizer.state.get(p, {}).items():
            bad = (value.isnan() if allow_inf else ~torch.isfinite(value)) \
                if isinstance(value, torch.Tensor) and value.is_floating_point() else None
            if bad is not None and bool(bad.any()):
                raise ValueError(f"{owner}.step: state[param {index}]['{key}'] holds NaN or inf (written "
                                 f"after the last step, e.g. through .data; the step would write them into "
                                 f"the weights); reload a saved state_dict or build a new optimizer")


def check_state_signs(owner: str, optimizer: torch.optim.Optimizer) -> None:
    """Every second-moment entry (:data:`NONNEGATIVE_STATE`) >= 0, in one pass: ``exp_avg_sq`` filled with -1
    after a step is finite, and the next step's sqrt wrote NaN into the weights in silence (red20c)."""
    params = (q for g in optimizer.param_groups for q in g["params"])
    squares = [(index, key, value) for index, p in enumerate(params)
               for key, value in (optimizer.state.get(p) or {}).items()
               if key in NONNEGATIVE_STATE and isinstance(value, torch.Tensor) and value.is_floating_point()
               and value.numel()]
    if not squares:
        return
    lows = torch.stack([value.detach().amin().to(torch.float64) for _, _, value in squares])
    if not bool((lows < 0).any()):
        return
    index, key, value = squares[int(torch.argmin(lows))]
    raise ValueError(f"{owner}.step: state[param {index}]['{key}'] must be >= 0 (a running mean of "
                     f"squares), got an entry {float(value.amin()):.3g} (written after the last step: the "
                     f"step's square root would write NaN into the weights); reload a saved state_dict or "
                     f"build a new optimizer")


#: torch base optimizers' per-parameter buffers that have the parameter's shape and dtype (Adafactor's
#: factored moments and other libraries' entries are left to their own step)
PARAMETER_SHAPED_STATE = frozenset({"exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer",
                                    "square_avg", "acc_delta", "grad_avg", "sum", "prev", "ax", "exp_inf"})


def check_state_layout(owner: str, optimizer: torch.optim.Optimizer) -> None:
    """The parameter-shaped buffers (:data:`PARAMETER_SHAPED_STATE`) of a torch base optimizer as its step
    wrote them: None (SGD's momentum_buffer without momentum) or a tensor of the parameter's shape and dtype.
    One written after a step with another shape or dtype, or as a list, reached torch's own errors, naming
    nothing. The family's own optimizers (fp32 state for low-precision parameters) check their live state
    themselves."""
    check_state_container(owner, optimizer)
    if isinstance(optimizer, MatrixOptimizer):
        return
    stepped = optimizer.__dict__.get("_state_keys_after_step", {})
    for index, p in enumerate(q for group in optimizer.param_groups for q in group["params"]):
        entry = optimizer.state.get(p, {})
        if not isinstance(entry, dict):
            raise TypeError(f"{owner}.step: state[param {index}] must be a dict (as the step writes it), got "
                            f"{type(entry).__name__}")
        seen = stepped.get(id(p))
        if entry and seen is not None and seen[0] is entry and set(entry) != seen[1]:
            # a key added was ignored in silence; one deleted met torch's KeyError ('step')
            added, removed = sorted(map(str, set(entry) - seen[1])), sorted(map(str, seen[1] - set(entry)))
            raise ValueError(f"{owner}.step: state[param {index}] was edited after the last step (keys "
                             f"added: {added}, removed: {removed}); the step reads exactly "
                             f"{sorted(map(str, seen[1]))} (clear the whole entry to restart it, or reload a "
                             "saved state_dict)")
        for key, value in entry.items():
            if key == "step":       # torch's step count: -2 met a bare "ComplexFloat" error, 2.5 was used
                _check_step_count(f"{owner}.step: state[param {index}]['step']", value)
            if value is None or key not in PARAMETER_SHAPED_STATE:
                continue
            where = f"{owner}.step: state[param {index}]['{key}']"
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"{where} must be a tensor (as the step writes it), got "
                                f"{type(value).__name__}")
            if value.dtype != p.dtype:
                raise TypeError(f"{where} must have the parameter's dtype {p.dtype}, got {value.dtype}")
            if value.shape != p.shape:
                raise ValueError(f"{where} has shape {tuple(value.shape)}, the parameter has "
                                 f"{tuple(p.shape)} (written after the last step?); reload a saved "
                                 "state_dict")


def check_state_container(owner: str, optimizer: torch.optim.Optimizer) -> None:
    """``optimizer.state`` the defaultdict(dict) torch keeps: ``state = {}`` met torch's bare KeyError."""
    if not isinstance(optimizer.state, collections.defaultdict):
        raise TypeError(f"{owner}.step: its state must be the defaultdict(dict) the optimizer keeps (reload "
                        f"a saved state_dict to replace it), got {type(optimizer.state).__name__}")


def _check_step_count(where: str, value: Any) -> None:
    """A step count of a torch optimizer's state: an integer >= 0, as a number or a one-element tensor."""
    n = value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value
    real = isinstance(n, int | float | np.integer | np.floating) and not isinstance(n, bool | np.bool_)
    if not (real and math.isfinite(n) and 0 <= n < 2**63 and float(n).is_integer()):
        raise ValueError(f"{where} must be a step count, an integer >= 0, got {type(value).__name__} "
                         f"{value!r:.40}")


def step_user(call: str, optimizer: torch.optim.Optimizer, closure: Any = None) -> Any:
    """``optimizer.step(closure)`` of an optimizer a user's callable built (a training's ``factory``): its own
    exception (a KeyError) reached the caller bare, naming neither the step nor the callable; it is re-raised
    as a :class:`UserCallableError` naming ``call``. TypeError/ValueError/RuntimeError pass as they are."""
    args = () if closure is None else (closure,)
    return call_user(call, optimizer.step, *args, keep=CLOSURE_OWN_ERRORS)


def step_base(owner: str, optimizer: torch.optim.Optimizer) -> None:
    """A wrapper's base step, then :func:`record_state_keys`. A state entry the step needs but the state lacks
    (``amsgrad = True`` edited into an Adam group after a step: torch's bare ``KeyError: 'max_exp_avg_sq'``,
    raised before any parameter moved) is named."""
    try:
        optimizer.step()
    except KeyError as exc:
        raise ValueError(f"{owner}.step: the base optimizer's state lacks the entry {exc}, which its step "
                         f"under the group's current settings reads (a keyword such as amsgrad edited into "
                         f"param_groups after its parameters had state); build a new optimizer for the new "
                         f"settings") from None
    except OverflowError as exc:   # ASGD's alpha = 1e30 inside the working range: Python's bare "(34, ...)"
        large = sorted({f"{k}={v!r}" for g in optimizer.param_groups for k, v in g.items()
                        if isinstance(v, int | float) and not isinstance(v, bool) and abs(v) > 1e10})
        raise ValueError(f"{owner}.step: the base optimizer's step overflowed ({exc}) under its keywords "
                         f"{', '.join(large) or '(none above 1e10)'}: a value too large for its update rule; "
                         f"pass a smaller one") from None
    record_state_keys(optimizer)


def record_state_keys(optimizer: torch.optim.Optimizer) -> None:
    """Remember each parameter's state entry and its keys after a step, for :func:`check_state_layout`."""
    optimizer.__dict__["_state_keys_after_step"] = {
        id(p): (entry, frozenset(entry)) for p, entry in optimizer.state.items() if isinstance(entry, dict)}


def _copy_to(value: Any, device: torch.device, dtype: torch.dtype | None = None) -> Any:
    """A deep copy with every tensor moved to ``device`` (floating ones cast to ``dtype`` when given)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().clone().to(device)
        return value.to(dtype) if dtype is not None and value.is_floating_point() else value
    if isinstance(value, dict):
        return {k: _copy_to(v, device, dtype) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_copy_to(v, device, dtype) for v in value)
    return copy.deepcopy(value)


def adam_state(p: torch.Tensor) -> dict[str, tuple | None]:
    """The entries (and shapes) :func:`adamw_direction` keeps for ``p``."""
    return {"exp_avg": tuple(p.shape), "exp_avg_sq": tuple(p.shape), "adam_step": None}


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
