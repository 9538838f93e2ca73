"""The VP diffusion of GGDOpt: noise schedule, score models and denoising score matching.

Forward SDE (the VP SDE of Song et al. 2020b, the continuous form of the paper's linear
schedule η(t) from 1e-4 to 0.02 over 1000 steps, Section 5)

    dx = −½ η(t) x dt + √η(t) dB_t,   η(t) = beta_min + t (beta_max − beta_min),  t ∈ [0, 1],

so x_t | x_0 ~ N(√ᾱ_t x_0, (1 − ᾱ_t) I) with ᾱ_t = exp(−∫₀ᵗ η). A score model maps the state with
the diffusion time appended as its last column, X = [x, t] of shape (batch, n + 1), to the score
∇ log p_t(x) of shape (batch, n). :class:`ScoreMLP` is the trained one (noise prediction:
score = −ε_θ(x, t)/√(1 − ᾱ_t), trained by denoising score matching, eq. (16) without the ρ
condition); :class:`GaussianScore` is the exact score of Gaussian data, for toys where the target
is known in closed form.

>>> import torch
>>> schedule = VPSchedule()
>>> model = GaussianScore(mean=[1.0], std=[1.0], schedule=schedule)
>>> model.score(torch.tensor([[1.0]], dtype=torch.float64), 0.5)  # at the mean of N(√ᾱ, 1): ...
tensor([[...]], dtype=torch.float64)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from algorithms._modules import (
    FUNCTION_METHODS,
    CheckedStateModule,
    check_structure,
    eval_mode,
    fix_attributes,
    has_forward_hooks,
    overrides_any,
    refuse_reassignment,
    remember_structure,
)
from algorithms._validation import (
    GLOBAL_RNG_LOCK,
    WORKING_MIN,
    allocates,
    as_float_array,
    call_user,
    check_count,
    check_device,
    check_entries_in_range,
    check_fits_memory,
    check_float_tensor,
    check_positive,
    check_positive_int,
    check_seed,
    check_shape,
    check_torch_dtype,
    refuse_overrides,
    refuse_sparse,
    remember_validated,
    revalidate_if_reassigned,
    to_float,
)

__all__ = ["GaussianScore", "ScoreMLP", "ScoreModel", "VPSchedule", "train_score", "tweedie_mean"]


_TINY = float(np.finfo(np.float64).tiny)

#: called once per unit of work by train_score (a step) and collect_feasible_points (a point found) when set:
#: GGDOpt's progress bar over stages 1 and 2 (minutes of a default run showed nothing before stage 3)
PROGRESS_TICK: ContextVar[Callable[[], object] | None] = ContextVar("chance_progress_tick", default=None)


def _dense(name: str, value):
    """A tensor argument in torch's default (strided) layout: a sparse COO or CSR tensor reached torch's
    "Could not run 'aten::as_strided' with arguments from the 'SparseCPU' backend", naming nothing."""
    if isinstance(value, torch.Tensor):
        refuse_sparse(name, value)
    return value


def check_score_model(model, name: str = "model") -> None:
    """A score model whose parameters and buffers hold data: on a real device (not meta), float32 or float64,
    finite (a model with NaN weights trained and sampled NaN in silence: train_score returned [nan]); a
    subclass of ScoreModel must set ``in_features``/``out_features`` (ints, n + 1 and n) and ``schedule``."""
    _check_model_attributes(model, name)
    revalidate_if_reassigned(model.schedule)   # t_min = 0 set with object.__setattr__: 1/0 scores
    for key, tensor in [*model.named_parameters(), *model.named_buffers()]:
        if tensor.device.type == "meta":
            raise ValueError(f"{name} has its parameter {key!r} on the meta device (no data)")
        if tensor.is_floating_point() and tensor.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name}'s parameter {key!r} has dtype {tensor.dtype}: half precision is not "
                            f"supported (convert the model with .double() or .float())")
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor.detach()).all()):
            raise ValueError(f"{name}'s parameter {key!r} contains NaN or inf entries")
        if tensor.is_floating_point():   # 1e39 written in place (load_state_dict refuses it): the range rule
            check_entries_in_range(f"{name}'s parameter {key!r}", tensor)


def _check_model_attributes(model, name: str = "model") -> None:
    # a user's ScoreModel subclass (or ScoreModel itself) without them met an AttributeError in the sampler
    n = getattr(model, "out_features", None)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1 or getattr(model, "in_features", None) != n + 1:
        raise TypeError(f"{name} must set in_features = n + 1 and out_features = n (ints, n >= 1, as "
                        f"ScoreMLP does), got {getattr(model, 'in_features', None)!r} and {n!r}")
    if not isinstance(getattr(model, "schedule", None), VPSchedule):
        raise TypeError(f"{name} must set schedule to a VPSchedule, got "
                        f"{type(getattr(model, 'schedule', None)).__name__}")


def _check_dtype(dtype):
    """``check_torch_dtype`` with anything that is not a torch dtype refused first (an empty array met
    numpy's "truth value of an empty array is ambiguous" inside the membership test)."""
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be torch.float32 or torch.float64, got {type(dtype).__name__} "
                        f"{dtype!r:.60}")
    return check_torch_dtype(dtype)


def _check_time_tensor(name: str, t: torch.Tensor) -> None:
    """A tensor of diffusion times holds real numbers: a bool tensor was read as 0/1 (True as t = 1), a
    complex one went on with its imaginary part, an int one skipped the range check (t = 5 passed)."""
    refuse_sparse(name, t)
    if t.dtype == torch.bool or t.is_complex():
        raise TypeError(f"{name} must hold real diffusion times (a floating tensor), got dtype {t.dtype}")


@dataclass(frozen=True)
class VPSchedule:
    """η(t) = beta_min + t (beta_max − beta_min) on t ∈ [t_min, 1] (defaults: Song et al.'s VP SDE).

    ``beta_min`` < ``beta_max``: finite floats >= 1.18e-38 (0 and subnormals refused); ``t_min`` any float
    in (0, 0.5) from 1.18e-38 (the working range). The noise variance 1 − ᾱ_t (:meth:`noise_variance`, about
    beta_min·t for small t) is computed without cancellation: positive in float64 on the whole range; in
    float32 it underflows to 0 where beta_min·t < about 1e-45, and there :class:`ScoreMLP` refuses to divide
    by its square root (naming t). A large beta_max is valid; the reverse sampler's steps then overflow and
    its run ends ``"diverged"``.


    A subclass may add methods and attributes but not override beta / alpha_bar / noise_variance: the
    package evaluates this class's own, so the constructor refuses such a subclass with a TypeError
    naming the method.

    >>> round(float(VPSchedule().alpha_bar(1.0)), 6)  # the end of the forward process is ≈ N(0, I)
    4.3e-05
    """

    beta_min: float = 0.1
    beta_max: float = 20.0
    t_min: float = 1e-3

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, VPSchedule, ("beta", "alpha_bar", "noise_variance", "_log_alpha_bar"))
        # stored as Python floats (np.float32(20.0) was kept as given)
        object.__setattr__(self, "beta_min", check_positive("beta_min", self.beta_min))
        object.__setattr__(self, "beta_max", check_positive("beta_max", self.beta_max))
        if self.beta_min < _TINY:   # a subnormal rate (5e-324) lost its precision
            raise ValueError(f"beta_min must be >= 2.2e-308 (not subnormal), got {self.beta_min!r}")
        if self.beta_max <= self.beta_min:
            raise ValueError(f"beta_max must be > beta_min, got {self.beta_max!r} <= {self.beta_min!r}")
        if not (0.0 < check_positive("t_min", self.t_min) < 0.5):
            raise ValueError(f"t_min must lie in (0, 0.5), got {self.t_min!r}")
        object.__setattr__(self, "t_min", float(self.t_min))
        remember_validated(self)

    def check_time(self, name: str, t) -> None:
        """Raise unless every entry of ``t`` (a real number or a tensor) lies in [t_min, 1], where the
        schedule is defined (at t = 0 the noise scale √(1 − ᾱ) is 0 and the score divides by it), up to the
        rounding of t's dtype: t_min·(1 − eps) (a float32 tensor's nearest value to t_min may lie below it)
        and 1 + 1e-12 are accepted; t = 0 never is.

        ``name`` (a str) is the argument's name in the error.
        """
        revalidate_if_reassigned(self)   # beta_min = -5 set with object.__setattr__
        if not isinstance(name, str):   # a label: None or a list was accepted as one
            raise TypeError(f"name must be a str (the label of t in messages), got {type(name).__name__}")
        if isinstance(t, torch.Tensor):
            _check_time_tensor(name, t)
            if t.numel() == 0 or t.device.type == "meta":
                return  # shape and device are checked where the tensor is used
            lo, hi = float(t.detach().min()), float(t.detach().max())   # no "requires_grad to scalar" warning
            eps = float(torch.finfo(t.dtype if t.is_floating_point() else torch.float64).eps)
        else:
            if isinstance(t, bool) or not isinstance(t, numbers.Real):
                raise TypeError(f"{name} must be a real number in [t_min, 1] (a diffusion time), got "
                                f"{type(t).__name__} {t!r}")
            lo = hi = to_float(t)  # 10**400: inf, refused below (float() raised a bare OverflowError)
            eps = float(np.finfo(np.float64).eps)
        # relative to t_min: an absolute 1e-12 let t = 0 through for t_min < 1e-12 (red14a), and refused
        # float32's rounding of t_min = 0.45 (train_score's t = t_min + (1 - t_min)·u in float32)
        lowest = self.t_min * (1.0 - eps)
        if not (lowest <= lo and hi <= 1.0 + 1e-12):  # NaN fails both
            bad = lo if not lowest <= lo else hi
            raise ValueError(f"{name} must lie in [t_min = {self.t_min:g}, 1] (the schedule's diffusion "
                             f"times), got {bad!r}")

    @staticmethod
    def _check_process_time(t) -> None:
        """β and ᾱ are defined on the forward process's whole [0, 1] (the score only on [t_min, 1], see
        :meth:`check_time`): NaN or a time outside gave an answer (nan, or the schedule extrapolated)."""
        if isinstance(t, torch.Tensor):
            if t.device.type == "meta":   # no data: beta/alpha_bar returned a meta tensor
                raise ValueError("t is on the meta device (no data); move it to a real device")
            _check_time_tensor("t", t)
            if t.numel() == 0:
                return
            lo, hi = float(t.detach().min()), float(t.detach().max())   # no "requires_grad to scalar" warning
        elif isinstance(t, bool) or not isinstance(t, numbers.Real):
            raise TypeError(f"t must be a real number in [0, 1] (a diffusion time), got {type(t).__name__} "
                            f"{t!r}")
        else:
            lo = hi = to_float(t)  # 10**400: inf, refused below (float() raised a bare OverflowError)
        if not (0.0 <= lo and hi <= 1.0 + 1e-12):  # NaN fails both
            raise ValueError(f"t must lie in [0, 1] (the forward process's times), got "
                             f"{lo if not 0.0 <= lo else hi!r}")

    def beta(self, t):
        """η(t) at a time t in [0, 1] of the forward process (a float or a tensor); t up to 1 + 1e-12 is
        accepted and used as given (a sampler's rounding of 1), beyond it refused."""
        revalidate_if_reassigned(self)   # beta_min = -5 set with object.__setattr__ computed on
        self._check_process_time(t)
        t = t if isinstance(t, torch.Tensor) else to_float(t)   # np.float32 t computed in float32 (NEP 50)
        return self.beta_min + t * (self.beta_max - self.beta_min)

    def alpha_bar(self, t):
        """ᾱ_t = exp(−(beta_min t + ½ (beta_max − beta_min) t²)); t in [0, 1], a float or a tensor; t up to
        1 + 1e-12 is accepted and used as given (a sampler's rounding of 1), beyond it refused."""
        revalidate_if_reassigned(self)
        self._check_process_time(t)
        t = t if isinstance(t, torch.Tensor) else to_float(t)   # np.float32 t computed in float32 (NEP 50)
        exponent = self._log_alpha_bar(t)
        return torch.exp(exponent) if isinstance(exponent, torch.Tensor) else math.exp(exponent)

    def noise_variance(self, t):
        """1 − ᾱ_t, the forward process's noise variance at a time t in [0, 1] (a float or a tensor; up to
        1 + 1e-12 as :meth:`alpha_bar`), computed as −expm1(log ᾱ_t): ``1 - alpha_bar(t)`` cancels for small
        t (0.0 at t = 1e-20, where the variance is 1e-21; 1 % off at t = 1e-4 in float32)."""
        revalidate_if_reassigned(self)
        self._check_process_time(t)
        t = t if isinstance(t, torch.Tensor) else to_float(t)
        exponent = self._log_alpha_bar(t)
        return -torch.expm1(exponent) if isinstance(exponent, torch.Tensor) else -math.expm1(exponent)

    def _log_alpha_bar(self, t):
        return -(self.beta_min * t + 0.5 * (self.beta_max - self.beta_min) * t * t)


class ScoreModel(CheckedStateModule):
    """A time-dependent score: ``forward(X)`` with X = [x, t] (batch, n + 1) returns (batch, n).

    A subclass defines ``forward`` and sets ``in_features`` = n + 1, ``out_features`` = n (ints >= 1) and
    ``schedule`` (a :class:`VPSchedule`) in its ``__init__``, as :class:`ScoreMLP` and :class:`GaussianScore`
    do. Its forward must return finite scores of X's dtype at finite X (a NaN or inf score, another dtype
    or shape is refused naming the model's forward; an exception it raises becomes a ``UserCallableError``
    naming it)."""

    in_features: int
    out_features: int
    schedule: VPSchedule

    def __init__(self) -> None:
        # the abstract base itself, or a subclass without forward: built fine, failing only at the first call
        if type(self).forward is ScoreModel.forward:
            raise TypeError(f"{type(self).__name__} is abstract: subclass ScoreModel and define forward(X) "
                            f"(as ScoreMLP and GaussianScore do)")
        super().__init__()

    def __setattr__(self, name: str, value: object) -> None:
        # set after construction: schedule = None or "x" met an AttributeError inside score(), a new
        # out_features a shape check against a network of another width
        if name == "schedule" and not isinstance(value, VPSchedule):
            raise TypeError(f"schedule must be a VPSchedule, got {type(value).__name__}")
        refuse_reassignment(self, name, value, ("in_features", "out_features", "n", "hidden"))
        super().__setattr__(name, value)

    def score(self, x: torch.Tensor, t: float | torch.Tensor) -> torch.Tensor:
        """∇ log p_t at the rows of ``x`` (batch, n), one time ``t`` for all rows or one per row.

        ``x`` a finite floating tensor of the model's dtype, entries at most 3.4e38 in magnitude; ``t`` a real
        number or a tensor (one entry, or one per row) in the schedule's [t_min, 1]. The model runs in eval
        mode (dropout off, batch-norm statistics read and not updated; its own modes restored after), so the
        samplers and guidance built on it are deterministic for a seed."""
        _check_model_attributes(self)   # ScoreModel() itself, or a subclass without them: AttributeError
        check_float_tensor("x", _dense("x", x), ndim=2)
        _dense("t", t)
        if x.shape[1] != self.out_features:   # forward's message named its own input X = [x, t]
            raise ValueError(f"x must have shape (batch, {self.out_features}) (the model's n), got "
                             f"{tuple(x.shape)}")
        dtype = self._parameter_dtype()
        if dtype is not None and x.dtype != dtype:
            raise TypeError(f"x must have dtype {dtype} (the model's parameters or buffers), got {x.dtype}")
        if isinstance(t, torch.Tensor) and t.device.type == "meta":   # torch's "not on the expected device"
            raise ValueError("t is on the meta device (no data); pass a number or a tensor on x's device")
        if isinstance(t, torch.Tensor) and t.numel() not in (1, x.shape[0]):  # torch's expand message
            raise ValueError(f"t must be one time or one per row of x ({x.shape[0]}), got shape "
                             f"{tuple(t.shape)}")
        self.schedule.check_time("t", t)   # a str reached torch.as_tensor's "new(): invalid data type"
        t_col = torch.as_tensor(t, dtype=x.dtype).reshape(-1, 1).expand(x.shape[0], 1)
        forward = f"model's forward ({type(self).__name__}.forward)"
        # a user subclass's forward that raised (1 / 0) escaped bare, naming neither the model nor the call;
        # the package's own ValueError/TypeError already name the argument
        with eval_mode(self):   # inference: a train-mode dropout drew from torch's global generator
            out = call_user(forward, self, torch.cat([x, t_col], dim=1), keep=(ValueError, TypeError))
        # a user subclass's forward: None or a list met a bare TypeError, an int or misshaped tensor was used,
        # a float32 score in a float64 run was taken as it was
        if not isinstance(out, torch.Tensor) or not out.is_floating_point() or out.shape != x.shape \
                or out.dtype != x.dtype:
            raise TypeError(f"{forward} must return a floating tensor of x's shape {tuple(x.shape)} and "
                            f"dtype {x.dtype} (the score), got {type(out).__name__} "
                            f"{tuple(getattr(out, 'shape', ()))} {getattr(out, 'dtype', '')}")
        if not bool(torch.isfinite(out.detach()).all()):
            # at finite x in the range: a NaN score was answered as a NaN Tweedie mean in silence, or
            # blamed on the guidance's objective
            raise ValueError(f"{forward} returned NaN or inf scores at finite x (t in the schedule's "
                             f"range): a score model must be finite there")
        return out

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The score at X = [x, t]; a subclass defines it (torch said "missing the required forward")."""
        raise TypeError(f"{type(self).__name__} is abstract: subclass ScoreModel and define forward(X) (as "
                        f"ScoreMLP and GaussianScore do)")

    def _parameter_dtype(self) -> torch.dtype | None:
        """The dtype inputs must have: the parameters', else the floating buffers' (GaussianScore's mean and
        var: float32 inputs beside its float64 buffers came back float32, in silence), None for a model
        with neither."""
        first = next(self.parameters(), None)
        if first is None:
            first = next((b for b in self.buffers() if b.is_floating_point()), None)
        return None if first is None else first.dtype

    def _check_input(self, X: object, dtype: torch.dtype | None,
                     reference: torch.Tensor | None = None) -> None:
        """``forward``'s input: a (batch, n + 1) tensor [x, t] of the model's dtype (and device), t in the
        schedule's range (GaussianScore broadcast a (3, 3) X for n = 1 into a (3, 2) answer)."""
        if not isinstance(X, torch.Tensor):
            raise TypeError(f"X must be a torch.Tensor of shape (batch, {self.in_features}), "
                            f"got {type(X).__name__}")
        _dense("X", X)
        check_shape("X", X, (None, self.in_features))
        if dtype is not None and dtype not in (torch.float32, torch.float64):
            # .half() / .bfloat16() after construction (which refuses them) scored in half precision, silently
            raise TypeError(f"the model's parameters or buffers have dtype {dtype}: half precision is not "
                            f"supported (convert the model with .double() or .float())")
        if dtype is None and not X.is_floating_point():  # no parameters: any real floating dtype
            raise TypeError(f"X must be a real floating tensor, got dtype {X.dtype}")
        if dtype is not None and X.dtype != dtype:
            raise TypeError(f"X must have dtype {dtype} (the model's parameters or buffers), got {X.dtype}")
        if reference is not None:
            check_device("X", X, reference)
        if X.device.type != "meta" and not bool(torch.isfinite(X[:, :-1]).all()):  # NaN rows gave NaN scores
            raise ValueError("X contains NaN or inf entries (in x, its first columns)")
        if X.device.type != "meta":   # a float64 x of 1e300 was scored in silence (a numpy one was refused)
            check_entries_in_range("X", X[:, :-1])
        self.schedule.check_time("t (the last column of X)", X[:, -1])


class GaussianScore(ScoreModel):
    """The exact score of N(mean, diag(std²)) data diffused by ``schedule``:
    ∇ log p_t(x) = −(x − √ᾱ_t mean)/(ᾱ_t std² + 1 − ᾱ_t). No parameters.

    ``mean`` is a finite 1-D array of length n, ``std`` a 1-D array of n finite entries > 0 (the
    per-coordinate standard deviations), ``schedule`` a :class:`VPSchedule` and ``dtype`` torch.float32
    or torch.float64 (the buffers'; half precision refused, also after ``.half()``): inputs (``forward``'s
    X, ``score``'s x, a sampler's ``dtype``) must have it. ``forward(X)`` takes X = [x, t] of shape
    (batch, n + 1).

    "Exact" is the model (the true score of that data, not a learned one); it is evaluated in the inputs'
    float arithmetic, ᾱ_t and √ᾱ_t each rounded once, so its error is about eps·(|x| + √ᾱ_t |mean|) over
    the denominator: absolute, not relative, where x and √ᾱ_t mean cancel.
    """

    def __init__(self, mean, std, schedule: VPSchedule, *, dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        mean = as_float_array("mean", mean, ndim=1, dtype=np.float64)
        std = as_float_array("std", std, ndim=1, dtype=np.float64)
        if mean.size == 0:   # n = 0: a model of no coordinates (in_features 1, out_features 0)
            raise ValueError("mean must have n >= 1 entries (the data dimension), got shape (0,)")
        if mean.shape != std.shape or np.any(std <= 0):
            raise ValueError(f"std must be positive with the shape of mean {mean.shape}, got {std}")
        if np.any(std < WORKING_MIN):   # each entry a positive scale: 1e-300 is outside the working range
            raise ValueError(f"std must have entries >= {WORKING_MIN:.4g} (the package's working range for a "
                             f"positive scale: float32's smallest normal number), got min "
                             f"{float(std.min())!r}")
        if not isinstance(schedule, VPSchedule):
            raise TypeError(f"schedule must be a VPSchedule, got {type(schedule).__name__}")
        self.in_features, self.out_features = mean.shape[0] + 1, mean.shape[0]
        self.schedule = schedule
        dtype = _check_dtype(dtype)
        variance = torch.as_tensor(std, dtype=torch.float64) ** 2
        var = variance.to(dtype)
        if not bool(torch.isfinite(var).all()) or bool((var == 0).any()):
            # std = 1e20 in float32 (or 1e200 before the working range): an infinite variance, a zero score
            # everywhere in silence; std = 1e-30 in float32: a variance of 0, the score divided by it
            raise ValueError(f"std must have std² inside {dtype}'s range (the buffers' dtype), got std from "
                             f"{float(std.min())!r} to {float(std.max())!r}")
        self.register_buffer("mean", torch.as_tensor(mean, dtype=dtype))
        self.register_buffer("var", var)
        if type(self) is GaussianScore:   # a user's subclass sets its own attributes after this __init__
            fix_attributes(self)   # a misspelt public name set later is refused (stored and ignored before)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """torch's ``load_state_dict(state_dict, strict, assign)``, after the checks every module of the
        package makes, and with ``state_dict["var"]`` > 0 (a state dict with var <= 0 was loaded as it was:
        a negative variance, scores of the wrong sign)."""
        var = state_dict.get("var") if hasattr(state_dict, "get") else None
        if isinstance(var, torch.Tensor) and var.device.type != "meta" and var.is_floating_point() and \
                not bool((var.detach() > 0).all()):
            raise ValueError(f"state_dict['var'] must hold variances > 0, got min {float(var.min())!r}")
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def __setattr__(self, name: str, value: object) -> None:
        # the buffers set after construction: mean = None met an AttributeError in forward, a variance of 0
        # or a NaN mean gave inf/NaN scores in silence
        if name in ("mean", "var") and "_buffers" in self.__dict__ and name in self._buffers:
            old = self._buffers[name]
            if not isinstance(value, torch.Tensor) or value.shape != old.shape or \
                    not value.is_floating_point():
                raise TypeError(f"{name} must be a floating tensor of shape {tuple(old.shape)}, got "
                                f"{type(value).__name__} {tuple(getattr(value, 'shape', ()))}")
            if value.dtype != old.dtype:   # a float32 var beside a float64 mean was taken, rounded in silence
                raise TypeError(f"{name} must have the model's dtype {old.dtype} (convert the whole model "
                                f"with .float() or .double()), got {value.dtype}")
            data = value.detach()
            if data.device.type == "meta" or not bool(torch.isfinite(data).all()) or (
                    name == "var" and not bool((data > 0).all())):
                raise ValueError(f"{name} must be finite{' and > 0' if name == 'var' else ''} (on a real "
                                 f"device), got {value!r:.60}")
        super().__setattr__(name, value)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The exact score ∇ log p_t(x). ``X`` = [x, t] is a finite floating tensor of shape (batch, n + 1)
        with t in [t_min, 1]; returns the score (batch, n).
        """
        self._check_input(X, self.mean.dtype, self.mean)
        # the buffers written in place after construction (var.fill_(-1) gave scores of the wrong sign)
        if self.mean.device.type != "meta" and not (bool(torch.isfinite(self.mean).all())
                                                    and bool((self.var > 0).all())):
            raise ValueError("mean and var (the buffers) must be finite with var > 0: written in place after "
                             "construction; build a new GaussianScore")
        for key in ("mean", "var"):   # 1e39 written in place (load_state_dict refuses it)
            check_entries_in_range(f"GaussianScore's buffer {key!r} (written in place after construction)",
                                   self._buffers[key])
        x, t = X[:, :-1], X[:, -1:]
        ab, noise_var = self.schedule.alpha_bar(t), self.schedule.noise_variance(t)
        return -(x - ab.sqrt() * self.mean.to(X.dtype)) / (ab * self.var.to(X.dtype) + noise_var)


class ScoreMLP(ScoreModel):
    """A small MLP ε_θ([x, t, sin πt, cos πt, sin 4πt, cos 4πt]); score = −ε_θ/√(1 − ᾱ_t).

    ``n`` (int >= 1) is the data dimension, ``hidden`` (int >= 1) the width of its two hidden SiLU
    layers, ``schedule`` the :class:`VPSchedule` (None: the default ``VPSchedule()``), ``seed`` (int in
    [0, 2**64)) seeds the initial weights without touching torch's global generator, ``dtype``
    torch.float32 or torch.float64 (half precision is refused, also a model made half later with
    ``.half()``/``.bfloat16()``: its forward raises TypeError). ``forward(X)`` takes X = [x, t] of shape
    (batch, n + 1), t in [t_min, 1].

    >>> model = ScoreMLP(2, hidden=16, seed=0)
    >>> model(torch.full((5, 3), 0.5, dtype=torch.float64)).shape  # the last column: t in [t_min, 1]
    torch.Size([5, 2])
    """

    @allocates("n", "hidden")
    def __init__(
        self,
        n: int,
        *,
        hidden: int = 64,
        schedule: VPSchedule | None = None,
        seed: int = 0,
        dtype: torch.dtype = torch.float64,
    ) -> None:
        super().__init__()
        n = check_positive_int("n", n)
        hidden = check_positive_int("hidden", hidden)
        check_seed(seed)
        dtype = _check_dtype(dtype)  # an int/complex dtype would build a net torch cannot run
        # the weights (n + 5)·h + h² + h·n floats: hidden = 2**63 - 1 met torch's "Storage size calculation
        # overflowed" naming nothing
        check_fits_memory("ScoreMLP", "hidden" if hidden >= n else "n", max(hidden, n),
                          8.0 * ((n + 5) * hidden + hidden * hidden + hidden * n))
        self.in_features, self.out_features = n + 1, n
        self.n, self.hidden = n, hidden   # stored, so mlp.n = 5 is refused (a new attribute was accepted)
        if schedule is not None and not isinstance(schedule, VPSchedule):  # "vp" was stored and failed later
            raise TypeError(f"schedule must be a VPSchedule or None, got {type(schedule).__name__} "
                            f"{schedule!r:.40}")
        self.schedule = VPSchedule() if schedule is None else schedule
        with GLOBAL_RNG_LOCK:   # another thread seeding the global generator meanwhile changed the weights
            generator_state = torch.random.get_rng_state()
            torch.manual_seed(seed)
            try:
                self.net = nn.Sequential(
                    nn.Linear(n + 5, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                    nn.Linear(hidden, n)
                ).to(dtype)
            finally:
                torch.random.set_rng_state(generator_state)
        remember_structure(self)   # a layer replaced by one of another shape is refused at use
        if type(self) is ScoreMLP:   # a user's subclass sets its own attributes after this __init__
            fix_attributes(self)   # a misspelt public name set later is refused (stored and ignored before)

    def _check_layers(self) -> None:
        """The layers as built and of one dtype: net[0].weight replaced by a (9, 9) one met torch's "mat1 and
        mat2 shapes cannot be multiplied", one layer made float64 its dtype mismatch, an int64 bias swapped in
        torch's "self and mat2 must have the same dtype"."""
        for key, param in self.named_parameters():
            if not param.is_floating_point():
                raise TypeError(f"ScoreMLP's parameter {key!r} has dtype {param.dtype} (replaced after "
                                f"construction?): its parameters are float32 or float64; build a new "
                                f"ScoreMLP")
        check_structure(self)

    def noise(self, X: torch.Tensor) -> torch.Tensor:
        """ε_θ(x, t): the predicted noise, for X = [x, t] of shape (batch, n + 1) as ``forward``'s."""
        self._check_layers()
        self._check_input(X, self.net[0].weight.dtype, self.net[0].weight)
        return self._noise(X)

    def _noise(self, X: torch.Tensor) -> torch.Tensor:
        t = X[:, -1:]
        features = [
            X,
            torch.sin(math.pi * t),
            torch.cos(math.pi * t),
            torch.sin(4 * math.pi * t),
            torch.cos(4 * math.pi * t),
        ]
        return self.net(torch.cat(features, dim=1))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The score −ε_θ(x, t)/√(1 − ᾱ_t). ``X`` = [x, t] is a finite floating tensor of shape (batch, n + 1)
        with t in [t_min, 1]; returns the score (batch, n).
        """
        self._check_layers()
        self._check_input(X, self.net[0].weight.dtype, self.net[0].weight)
        for key, weight in self.named_parameters():   # NaN written in place gave NaN scores in silence
            if weight.device.type != "meta" and not bool(torch.isfinite(weight.detach()).all()):
                raise ValueError(f"ScoreMLP's parameter {key!r} contains NaN or inf entries (written in "
                                 f"place after construction or loaded); build or train a new model")
            if weight.device.type != "meta":   # 1e39 written in place (load_state_dict refuses it)
                check_entries_in_range(f"ScoreMLP's parameter {key!r} (written in place after construction)",
                                       weight)
        sigma = self.schedule.noise_variance(X[:, -1:]).sqrt()
        if X.shape[0] and not bool((sigma > 0).all()):   # t_min = 1e-300: ε/0, an infinite score in silence
            raise ValueError(f"t (the last column of X) = {float(X[:, -1].min())!r} is too small: the noise "
                             f"scale √(1 − ᾱ_t) is 0 in {X.dtype} there, and the score divides by it")
        return -self._noise(X) / sigma


def one_time(schedule: VPSchedule, t: Any) -> float:
    """``t``, one diffusion time in the schedule's [t_min, 1] (a number or a one-element tensor), checked
    and returned as a float: a tensor's float() raised torch's own message for 2 entries or a meta tensor."""
    if isinstance(t, torch.Tensor):
        if t.numel() != 1:
            raise ValueError(f"t must be one diffusion time, got a tensor of shape {tuple(t.shape)}")
        if t.device.type == "meta":   # "Tensor.item() cannot be called on meta tensors" named nothing
            raise ValueError("t is on the meta device (no data); move it to a real device")
        schedule.check_time("t", t)
        t = float(t.detach())
    schedule.check_time("t", t)
    return to_float(t)


def tweedie_mean(model: ScoreModel, x: torch.Tensor, t: float) -> torch.Tensor:
    """E[x_0 | x_t] = (x_t + (1 − ᾱ_t) ∇ log p_t(x_t)) / √ᾱ_t (Tweedie's formula, eq. (19)).

    ``model`` is a :class:`ScoreModel`, ``x`` a finite floating tensor (batch, n) and ``t`` one diffusion
    time in [t_min, 1]. For a :class:`GaussianScore` computing its own score (no subclass override of its
    forward or score, no forward hook) the mean is computed in its closed form
    (v√ᾱ x + (1 − ᾱ) m)/(ᾱ v + 1 − ᾱ), finite at every t, ᾱ_t = 0 included (the prior mean), in float
    arithmetic: ᾱ_t and 1 − ᾱ_t are rounded once each, so its error is absolute, about
    eps·(|v√ᾱ x| + |(1 − ᾱ) m|)/(ᾱ v + 1 − ᾱ), and not relative where the two terms cancel; for another model
    the formula's rounding error is about eps·|x|/√ᾱ_t (x and (1 − ᾱ_t)·score each rounded before their sum),
    and a time where ᾱ_t underflows to 0 (a steep schedule, beta_min = 1000 at t = 1) is refused naming t.
    """
    if not isinstance(model, ScoreModel):
        raise TypeError(f"model must be a ScoreModel, got {type(model).__name__}")
    check_score_model(model)
    check_float_tensor("x", _dense("x", x), ndim=2)
    check_shape("x", x, (None, model.out_features))
    t = one_time(model.schedule, t)
    return _posterior_mean(model, x, float(t), model.score(x, t))


def _gaussian_closed_form(model: ScoreModel) -> bool:
    """Whether Tweedie's mean and variance may take :class:`GaussianScore`'s closed forms: a GaussianScore
    computing its own score (no subclass override of ``forward``/``score``, no forward hook). A forward hook
    that changed its output got the unhooked closed form, another answer in silence (red25b); such a model
    takes the general formulas from its score, as any model does."""
    return (isinstance(model, GaussianScore) and not has_forward_hooks(model)
            and not overrides_any(model, GaussianScore, (*FUNCTION_METHODS, "score")))


def _posterior_mean(model: ScoreModel, x: torch.Tensor, t: float, score: torch.Tensor) -> torch.Tensor:
    """Tweedie's E[x_0 | x_t] from ``score`` (the model's at x, t), differentiable in x.

    For :class:`GaussianScore` the same mean in its closed form, (v√ᾱ x + (1 − ᾱ) m)/(ᾱ v + 1 − ᾱ): the
    formula's x + (1 − ᾱ)·score cancels, with a rounding error of about eps·|x|/√ᾱ (0.0 for the prior mean
    1.0 at ᾱ = 1e-272, NaN at ᾱ = 0). For other models a mean that is not finite (ᾱ_t underflowed to 0 for a
    steep schedule) is refused naming t."""
    schedule = model.schedule
    ab, noise_var = schedule.alpha_bar(t), schedule.noise_variance(t)
    if _gaussian_closed_form(model):
        mean, var = model.mean.to(x.dtype), model.var.to(x.dtype)
        return (var * math.sqrt(ab) * x + noise_var * mean) / (ab * var + noise_var)
    with np.errstate(divide="ignore"):
        mu = (x + noise_var * score) / math.sqrt(ab) if ab > 0 else torch.full_like(x, math.nan)
    if not bool(torch.isfinite(mu.detach()).all()):
        raise ValueError(f"t = {t!r} is too late in this schedule (alpha_bar(t) = {ab:.3g}): Tweedie's mean "
                         f"divides by sqrt(alpha_bar) and is not finite there (x_t holds no trace of x_0)")
    return mu


def _posterior_variance(model: ScoreModel, t: float, jac: torch.Tensor) -> torch.Tensor:
    """σ² per row: the mean diagonal entry of Tweedie's Cov[x_0 | x_t] = (1 − ᾱ)/√ᾱ · ∂μ/∂x (``jac``); for
    :class:`GaussianScore` its closed form, the mean of v(1 − ᾱ)/(ᾱ v + 1 − ᾱ) (finite at ᾱ = 0 too)."""
    ab, noise_var = model.schedule.alpha_bar(t), model.schedule.noise_variance(t)
    if _gaussian_closed_form(model):
        var = model.var.to(jac.dtype)
        return (var * noise_var / (ab * var + noise_var)).mean().expand(jac.shape[0])
    trace = torch.diagonal(jac, dim1=1, dim2=2).mean(dim=1)
    return (noise_var / math.sqrt(ab) * trace).clamp_min(0.0)   # ab > 0: _posterior_mean refused 0


#: the most Adam steps train_score takes (hours of training at the cap; the paper's fits take thousands)
MAX_TRAIN_STEPS = 10**6


@allocates("batch_size")
def train_score(
    model: ScoreMLP,
    data: torch.Tensor,
    *,
    steps: int = 2000,
    lr: float = 2e-3,
    batch_size: int = 256,
    seed: int = 0,
) -> list[float]:
    """Denoising score matching with Adam: minimise E‖ε_θ(√ᾱ x_0 + √(1 − ᾱ) ε, t) − ε‖², t ~ U[t_min, 1].

    ``model`` is a :class:`ScoreMLP`, ``data`` a finite (N, n) tensor of its dtype and device; ``steps``
    an int in [1, MAX_TRAIN_STEPS] (10**6: the run time grows linearly, hours at the cap), ``batch_size``
    an int >= 1 (rows drawn with replacement; refused when a batch exceeds this machine's memory), ``lr``
    Adam's step, a positive scale in [1.18e-38, 3.4e38] (0, 1e-39 and 1e39 refused), ``seed`` an int in
    [0, 2**64); ``data`` entries at most 3.4e38 in magnitude (the working range; 1e39 refused naming data).

    Returns the per-step losses (a non-finite loss ends training early, before its step, so the model keeps
    its last parameters; the caller checks: a large ``lr`` such as 1e30, or data so large that the loss
    overflows (entries near 3.4e38), is valid and ends so).

    >>> data = torch.randn(200, 2, dtype=torch.float64)
    >>> losses = train_score(ScoreMLP(2, hidden=16), data, steps=50, seed=0)
    >>> len(losses), losses[-1] < losses[0]
    (50, True)
    """
    if not isinstance(model, ScoreMLP):
        raise TypeError(f"model must be a ScoreMLP, got {type(model).__name__}")
    if not isinstance(data, torch.Tensor):   # a numpy array of the right shape was told its shape was wrong
        raise TypeError(f"data must be a torch.Tensor of shape (N, {model.out_features}) and the model's "
                        f"dtype, got {type(data).__name__} (convert with torch.as_tensor)")
    if data.ndim != 2 or data.shape[1] != model.out_features:
        raise ValueError(
            f"data must be a tensor of shape (N, {model.out_features}), got "
            f"{getattr(data, 'shape', type(data).__name__)}"
        )
    check_float_tensor("data", _dense("data", data), ndim=2)   # real floating, finite (NaN: trained on NaN)
    check_score_model(model)
    if not any(p.requires_grad for p in model.parameters()):   # torch: "element 0 of tensors does not ..."
        raise ValueError("model has no trainable parameters (every requires_grad is False): train_score has "
                         "nothing to fit; unfreeze them with model.requires_grad_(True)")
    if any(p.is_inference() for p in model.parameters()):   # torch: "Inference tensors cannot be saved ..."
        raise ValueError("model was built under torch.inference_mode() (its parameters are inference "
                         "tensors, which autograd cannot train); build it outside, or clone its parameters")
    if data.shape[0] == 0:
        raise ValueError("data must hold at least one row, got shape (0, ...)")
    reference = next(model.parameters())
    if data.dtype != reference.dtype:                  # torch's matmul error names neither
        raise TypeError(f"data must have the model's dtype {reference.dtype}, got {data.dtype} "
                        "(convert with data.to(...))")
    check_device("data", data, reference)
    steps = check_count("steps", steps, 1, MAX_TRAIN_STEPS, "MAX_TRAIN_STEPS: a million Adam steps run for "
                        "hours; 2**31 - 1 for months")
    lr = check_positive("lr", lr)
    # Adam's first step is lr / (1 − β1) = 10·lr in the parameters' dtype: lr = 1e38 on a float32 model met
    # torch's "value cannot be converted to type float without overflow"
    largest = 0.1 * float(torch.finfo(reference.dtype).max)
    if lr > largest:
        raise ValueError(f"lr = {lr!r} is too large for a {reference.dtype} model: Adam's first step, "
                         f"lr / (1 - 0.9), overflows it (lr <= {largest:.4g})")
    batch_size = check_count("batch_size", batch_size, 1)
    # a batch's tensors (x0, noise, x_t, the features and the net's activations), before a step draws it:
    # batch_size = 10**9 drew 8 GB of indices per step (a hang)
    hidden = max((p.shape[0] for p in model.parameters() if p.ndim == 2), default=1)
    check_fits_memory("train_score", "batch_size", batch_size,
                      8.0 * batch_size * (6 * model.in_features + 4 * hidden + 16))
    generator = torch.Generator().manual_seed(check_seed(seed))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses: list[float] = []
    # inside a caller's torch.no_grad() the loss had no graph to differentiate; inside torch.inference_mode()
    # enable_grad alone did not help (torch's "element 0 of tensors does not require grad")
    with torch.inference_mode(False), torch.enable_grad():
        _train_steps(model, data, optimizer, generator, steps, batch_size, losses)
    return losses


def _train_steps(model, data, optimizer, generator, steps: int, batch_size: int, losses: list[float]) -> None:
    schedule, t_min = model.schedule, model.schedule.t_min
    tick = PROGRESS_TICK.get()
    for _ in range(steps):
        if tick is not None:
            tick()
        index = torch.randint(0, data.shape[0], (batch_size,), generator=generator)
        x0 = data[index]
        t = t_min + (1.0 - t_min) * torch.rand(batch_size, 1, generator=generator, dtype=data.dtype)
        noise = torch.randn(x0.shape, generator=generator, dtype=data.dtype)
        xt = schedule.alpha_bar(t).sqrt() * x0 + schedule.noise_variance(t).sqrt() * noise
        loss = ((model.noise(torch.cat([xt, t], dim=1)) - noise) ** 2).sum(dim=1).mean()
        losses.append(float(loss.detach()))
        if not math.isfinite(losses[-1]):
            break   # before the step: a non-finite loss's gradient would write NaN into the model
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
