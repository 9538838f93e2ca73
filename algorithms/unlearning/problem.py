"""The unlearning problem: a model, its trained parameters θ*, a retain set and a forget set.

A model f(θ, ·) (any ``torch.nn.Module``; the theory's :mod:`~algorithms.unlearning.models` or an
MLP) was trained on D = D_r ⊔ D_f to parameters θ*. Unlearning asks for the model training on
D_r alone would give; under overparameterization that is the *minimum-complexity interpolator*
of D_r (problem (4) of the paper), for linear models the minimum-norm one. Every algorithm of
the family starts from θ* and returns the unlearned flat parameter vector.

The loss is the mean squared error J(θ; D) = (1/|D|) Σ ‖f(θ, x) − y‖², minimized by any
interpolator (the setting of Theorem 1). The flat parameter vector stacks the module's
parameters in registration order (the paper's θ = [c; vec(A_1); ...] for its models); the
functional view f(θ, X) goes through ``torch.func.functional_call``.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601.

>>> import torch
>>> from algorithms.unlearning import LinearModel, UnlearningProblem, forget_split
>>> X = torch.eye(3, dtype=torch.float64); y = torch.ones(3, dtype=torch.float64)
>>> retain, forget = forget_split(X, y, forget=[2])
>>> prob = UnlearningProblem(LinearModel(3, seed=0), torch.ones(3, dtype=torch.float64), retain, forget)
>>> prob.n_retain, prob.n_forget, prob.dim
(2, 1, 3)
>>> forget_split(X, y, forget=[3])
Traceback (most recent call last):
...
ValueError: forget indices must be in the training set (0 <= i < 3), got [3]
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.func import jacrev, vmap

from algorithms._validation import (
    as_real_tensor,
    call_user,
    check_entries_in_range,
    check_nonnegative,
    in_working_range,
    refuse_bools_in_sequence,
    refuse_sparse,
    remember_validated,
    revalidate_if_reassigned,
    stable_norm,
)
from algorithms.core import IterationMonitor, Problem, RetCode, Solution, SolveOptions, Stats
from algorithms.nets.functional import flatten_params, functional_forward, module_params
from algorithms.unlearning.models import (
    DeepLinear,
    LinearModel,
    check_model_dtype,
    computes_class_function,
    effective_predictor,
)

__all__ = ["UnlearningProblem", "UnlearningStats", "forget_split", "retrained_min_norm"]

Samples = tuple[torch.Tensor, torch.Tensor]

#: the default tolerance floor for float32 problems
FLOAT32_TOL = 1e-5

#: iterates whose norm grows past this factor of (1 + ‖θ*‖) count as diverged
DIVERGENCE_FACTOR = 1e6


def _as_tensor(name: str, value: Any, dtype: torch.dtype | None, *, labels: bool = False) -> torch.Tensor:
    # the shared tensor check: integers promoted to float64, float32 kept; half precision (silently
    # upcast before) and meta tensors (a .item() error) refused by name; bool refused (0/1 weights or
    # features) except for labels, where True/False promoted to 1/0 is documented
    return as_real_tensor(name, value, dtype, allow_bool=labels)


def _samples(name: str, pair: Any, dtype: torch.dtype | None, *, allow_empty: bool) -> Samples:
    if not isinstance(pair, tuple | list) or len(pair) != 2:
        raise TypeError(f"{name} must be a pair (X, y), got {type(pair).__name__}")
    X = _as_tensor(f"{name} X", pair[0], dtype)
    y = _as_tensor(f"{name} y", pair[1], X.dtype, labels=True)
    if X.ndim != 2:
        raise ValueError(f"{name} X must be 2-dimensional (n, in_features), got shape {tuple(X.shape)}")
    if X.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} X must not be empty (the {name} set needs n >= 1 rows), got {X.shape[0]} "
                         f"samples")
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2 or y.shape[0] != X.shape[0]:
        raise ValueError(f"{name} y must have shape ({X.shape[0]},) or ({X.shape[0]}, out_features) "
                         f"to match {name} X, got {tuple(y.shape)}")
    return X, y


def forget_split(X: Any, y: Any, forget: Sequence[int]) -> tuple[Samples, Samples]:
    """Split the training set (X, y) into ``(retain, forget)`` pairs by the ``forget`` row indices.

    ``forget`` is a non-empty sequence of int row indices (an empty one is refused naming it: an unlearning
    problem forgets at least one row); every index must name a row of the training set (0 <= i < n) and
    appear once, and at least one row must be retained. ``y`` is converted to ``X``'s dtype (float32 X
    kept, any other real X as float64; int and bool labels promoted, a float y of the other precision cast).
    """
    X, y = _samples("training", (X, y), None, allow_empty=False)
    n = X.shape[0]
    refuse_bools_in_sequence("forget", forget)   # [True, 2] was read as rows 1 and 2
    try:
        indices = np.asarray(forget)
    except Exception as exc:
        raise TypeError(f"forget must be a sequence of int row indices: {exc}") from exc
    if indices.ndim != 1 or indices.size == 0 or not np.issubdtype(indices.dtype, np.integer):
        raise TypeError(f"forget must be a non-empty sequence of int row indices, got {forget!r}")
    outside = sorted({int(i) for i in indices if not 0 <= i < n})
    if outside:
        raise ValueError(f"forget indices must be in the training set (0 <= i < {n}), got {outside}")
    indices = indices.astype(np.int64)  # int8/uint8 indices reached torch's "must be long" IndexError
    if len(set(indices.tolist())) != indices.size:
        raise ValueError(f"forget indices must not repeat, got {sorted(indices.tolist())}")
    mask = torch.zeros(n, dtype=torch.bool)
    mask[torch.as_tensor(indices)] = True
    if mask.all():
        raise ValueError(f"forget must leave a non-empty retain set, got all {n} rows")
    return (X[~mask], y[~mask]), (X[mask], y[mask])


class NonFiniteTheta(ValueError):
    """``theta`` has NaN/inf entries (a solve reports ``Diverged``; a direct call gets this ValueError)."""


def _model_fingerprint(model: torch.nn.Module) -> tuple:
    """What a change of f usually touches, cheap to read: buffers (identity, version), the modules, their
    modes and hooks, torch's global forward hooks."""
    from torch.nn.modules import module as nn_module

    buffers = tuple((name, id(b), b._version) for name, b in model.named_buffers())
    modules = tuple((id(m), m.training, len(m._forward_hooks), len(m._forward_pre_hooks))
                    for m in model.modules())
    hooks = (len(nn_module._global_forward_hooks), len(nn_module._global_forward_pre_hooks))
    return buffers, modules, hooks, _parameter_layout(model)


def _parameter_layout(model: torch.nn.Module) -> list[tuple[str, tuple[int, ...], torch.dtype]]:
    """The names, shapes and dtypes of ``model``'s parameters (``.half()`` or a replaced layer changes
    them)."""
    return [(name, tuple(p.shape), p.dtype) for name, p in model.named_parameters()]


def _same_outputs(built: torch.Tensor, now: torch.Tensor) -> bool:
    """Bitwise the same outputs, NaN where NaN was."""
    return (built.shape == now.shape and built.dtype == now.dtype
            and torch.equal(torch.isnan(built), torch.isnan(now))
            and torch.equal(torch.nan_to_num(built), torch.nan_to_num(now)))


def _writes_parameters(model: torch.nn.Module) -> ValueError:
    return ValueError(f"model's {type(model).__name__}.forward(X) writes into its parameters (they differ "
                      f"after a forward pass): f(θ, X) must leave θ as it is (it would rewrite params, θ*, "
                      f"and every iterate); constrain the weights outside forward")


@dataclass(frozen=True, eq=False)
class UnlearningProblem(Problem):
    """Unlearn ``forget`` from the model ``model`` trained to ``params`` on retain ⊔ forget.

    ``model`` is any deterministic ``torch.nn.Module`` with parameters (two forward passes must agree: a
    Dropout in training mode is refused, pass ``model.eval()``) whose output is differentiable in them (a
    forward that detaches its output is refused); its own registered parameters are the
    fresh initialization :class:`~algorithms.unlearning.Retrain` trains from. ``params`` is θ*,
    the trained parameters: a flat vector (registration order) or a dict name -> tensor.
    ``retain`` and ``forget`` are pairs (X, y) with X of shape (n, in_features) and y of shape
    (n,) or (n, out_features); neither set may be empty (an empty retain set has nothing to fit, an empty
    forget set nothing to unlearn: each is refused naming ``retain X`` or ``forget X``). The dtype is that
    of the retain inputs (float32 kept, anything else float64): the model's parameters, float32 or float64
    (float16 is refused), and ``params`` are cast to it (a float32 model beside float64 data runs in float64).
    float32 params beside float64 data are that float32 θ* (rounded), not float64's: a run from it agrees with
    the float64 one up to float32 rounding of the start, and may need more iterations (or end ``MaxIters``
    at a small ``maxiters``) to meet the same stopping test, or end ``Failure`` where a direct solver's
    float64 residual test (DeepLinearOG's 1e-8) sees the rounded θ*; give float64 params for float64's answer.
    Each y is converted to its X's dtype (int and bool labels promoted, a float y of the other precision
    cast; half precision and complex refused); a forget X of another float dtype than the retain X is
    refused. Rows with the same X but different y (within retain, or across retain and forget) are valid
    data that no model interpolates: the unlearning target is then the least-squares fit of D_r
    (:func:`retrained_min_norm`), ``retain_loss`` stays above zero, and an iterative method's Success means
    its own stopping test held (its docstring), not that D_r is fit; rows that differ only by round-off
    give interpolators of huge norm (ill-conditioned, not invalid). The model's registered parameters are
    copied at construction: ``init_params`` (Retrain's start) does not follow later edits of the model. The
    model itself must stay as it was built: a solve, :meth:`predict`, :meth:`loss` and :meth:`jacobian`
    refuse, naming ``model``, one whose outputs at ``params`` on the retain and forget rows differ from then
    (switched to train() with a Dropout or BatchNorm, a layer replaced, a buffer edited, a forward hook added)
    or whose parameters were converted or replaced (``.half()``); a change that leaves f as it was
    (``.eval()`` on a model without such layers) passes. The retain and forget tensors are the problem's
    own copies: one changed in place afterwards (torch has no read-only tensors) is refused by the next
    solve, naming it (``retain X``, ``forget y``, ...); build a new problem for other data. ``params``
    written in place is validated again and used, as any problem field.
    A forward that writes into its parameters (an in-place ``clamp_`` of a weight, a max-norm rule) is
    refused at construction, a ValueError naming the model's forward: it would rewrite θ* and every iterate.
    The model's forward gets copies of the data: one that writes into its input before using it
    (``nn.ReLU(inplace=True)`` first) runs; one that writes into a tensor after using it (which the gradient
    needs unchanged) is refused at the solve, a ValueError naming the model. A forward that answers other
    than a floating tensor of one output row per input row during a run is refused naming it (TypeError /
    ValueError), so is one returning a tensor detached from the parameters; a NaN, inf or overflowing output
    ends the run ``Diverged``; an exception it raises other than ValueError/TypeError is re-raised as a
    ``UserCallableError`` naming ``<Model>.forward(X)``.
    """

    model: torch.nn.Module
    params: Any
    retain: Samples
    forget: Samples
    _unflatten: Callable[[torch.Tensor], dict[str, torch.Tensor]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(self.model).__name__}")
        if not list(self.model.parameters()):
            raise ValueError("model must have parameters (a torch.nn.Module with nn.Parameters)")
        retain = _samples("retain", self.retain, None, allow_empty=False)
        dtype = retain[0].dtype
        given = self.forget[0] if isinstance(self.forget, tuple | list) and len(self.forget) == 2 else None
        if isinstance(given, torch.Tensor) and given.is_floating_point() and given.dtype != dtype:
            # two float tensors that disagree: a silent cast would round one set (or mix precisions)
            raise TypeError(f"forget X must have the retain X's dtype {dtype}, got {given.dtype}")
        forget = _samples("forget", self.forget, dtype, allow_empty=False)
        check_model_dtype(self.model)  # float16: half-precision weights rounded every result, silently
        try:  # NaN weights, a meta model: "params['weight'] ..." named the model's own weights as params
            init, unflatten = flatten_params({k: p.to(dtype) for k, p in module_params(self.model).items()})
        except ValueError as exc:
            raise ValueError(f"model's own parameters (its fresh initialization) are invalid: {exc}") \
                from None
        params = self.params
        if isinstance(params, dict):
            shapes = {k: tuple(v.shape) for k, v in unflatten(init).items()}
            missing = sorted(set(shapes) - set(params))
            if missing:
                raise ValueError(f"params is missing the model's parameters {missing}")
            unexpected = sorted(map(str, set(params) - set(shapes)))
            if unexpected:  # as load_state_dict(strict=True): a misspelt name must not be dropped
                raise ValueError(f"params has keys that are not the model's parameters {unexpected}; "
                                 f"expected the names {sorted(shapes)}")
            for k, shape in shapes.items():  # a transposed tensor has the right numel: compare shapes
                got = tuple(np.shape(params[k])) if not isinstance(params[k], torch.Tensor) \
                    else tuple(params[k].shape)
                if got != shape:
                    raise ValueError(f"params[{k!r}] must have the parameter's shape {shape}, got {got}")
            params = torch.cat([_as_tensor(f"params[{k!r}]", params[k], dtype).reshape(-1)
                                for k in unflatten(init)])
        params = _as_tensor("params", params, dtype)
        if params.ndim != 1 or params.numel() != init.numel():
            raise ValueError(f"params must be a flat vector of the model's {init.numel()} parameters "
                             f"(or a dict of them), got shape {tuple(params.shape)}")
        for name, (X, y) in (("retain", retain), ("forget", forget)):
            self._check_fits(name, X, y, init, unflatten)
        if forget[0].shape[1] != retain[0].shape[1] or forget[1].shape[1] != retain[1].shape[1]:
            raise ValueError(f"forget must have the retain set's shapes (n, {retain[0].shape[1]}) and "
                             f"(n, {retain[1].shape[1]}), got {tuple(forget[0].shape)} and "
                             f"{tuple(forget[1].shape)}")
        # own copies: the converted tensors can share memory with the caller's (a float64 tensor or ndarray
        # passes through as a view), so a later in-place edit by the caller changed every solve's answer
        retain, forget = tuple(t.clone() for t in retain), tuple(t.clone() for t in forget)
        object.__setattr__(self, "retain", retain)
        object.__setattr__(self, "forget", forget)
        object.__setattr__(self, "params", params.clone())
        object.__setattr__(self, "_unflatten", unflatten)
        object.__setattr__(self, "_init_params", init.detach().clone())  # the fresh start, as it was built
        object.__setattr__(self, "_model_layout", _parameter_layout(self.model))
        object.__setattr__(self, "_model_outputs", self._probe_outputs())
        object.__setattr__(self, "_model_fingerprint", _model_fingerprint(self.model))
        # private copies: torch has no read-only tensors, and an in-place edit of the forget X or params ran
        # to Success on the edited data (one of the retain X was blamed on the model)
        object.__setattr__(self, "_built_data", tuple(t.clone() for t in (params, *retain, *forget)))

    def _check_unchanged(self) -> None:
        """Before each solve: the tensors checked finite at construction still are (torch has no read-only
        tensors: a NaN written into ``problem.forget[1]`` afterwards gave a Success, into the retain X
        torch's LinAlgError)."""
        super()._check_unchanged()  # a field replaced through object.__setattr__: rebuilt (and checked)
        tensors = (("params", self.params), ("retain X", self.retain[0]), ("retain y", self.retain[1]),
                   ("forget X", self.forget[0]), ("forget y", self.forget[1]))
        for name, tensor in tensors:
            if not bool(torch.isfinite(tensor).all()):
                raise ValueError(f"{name} contains NaN or inf entries (written after the problem was built: "
                                 f"it was checked finite then); build a new UnlearningProblem")
            if not in_working_range(tensor):  # 1e39 written via .data (no version bump)
                raise ValueError(f"{name} has entries past the working range (3.4e38; written after the "
                                 f"problem was built: it was checked then); build a new UnlearningProblem")
        for (name, tensor), built in zip(tensors, self.__dict__.get("_built_data", ()), strict=False):
            if not (tensor.shape == built.shape and torch.equal(tensor, built)):
                raise ValueError(f"{name} was changed in place after the problem was built (its entries or "
                                 f"its shape differ from then); the problem is the data it was built with: "
                                 f"build a new UnlearningProblem for other data")
        self._check_model_unchanged()

    def _probe_outputs(self) -> torch.Tensor:
        """The model's outputs at θ* on every retain and forget row (what a solve's f is made of; the first
        16 retain rows missed a buffer edit seen only on later rows)."""
        with torch.no_grad():
            rows = torch.cat([self.retain[0], self.forget[0]])
            # on a copy of θ*: the model must not rewrite the problem's own params (refused at construction)
            copy = self.params.clone()
            out = functional_forward(self.model, self._unflatten(copy), (rows,)).detach().clone()
        if not torch.equal(copy, self.params):  # a write the fresh parameters hid (a clamp they were inside)
            raise _writes_parameters(self.model)
        return out

    def _check_model_fingerprint(self) -> None:
        """:meth:`predict`, :meth:`loss` and :meth:`jacobian` on the model as it was built: a cheap look at
        its buffers (by version), hooks, modules and modes; where any changed, the outputs are compared as a
        solve compares them (a forward hook or a buffer edited was used by these methods in silence)."""
        now = _model_fingerprint(self.model)
        if now == self.__dict__.get("_model_fingerprint", now):
            return
        self._check_model_unchanged()
        object.__setattr__(self, "_model_fingerprint", now)      # changed without changing f: passes

    def _check_model_unchanged(self) -> None:
        """Refuse, naming ``model``, a model changed since the problem was built so that f changed: its
        outputs at θ* differ (switched to train() with a Dropout or BatchNorm: one seed gave two answers; a
        layer replaced, a buffer edited, a forward hook added) or its parameters were converted or replaced
        (``.half()``). A change that leaves f as it was (``.eval()`` on a model without such layers)
        passes."""
        built = self.__dict__.get("_model_outputs")
        if built is None:  # an old pickle
            return
        if _parameter_layout(self.model) != self.__dict__.get("_model_layout"):
            raise ValueError("model was changed after the problem was built: its parameters' names, shapes "
                             "or dtypes changed (a layer replaced, .half()); the problem is the model as it "
                             "was then: restore it or build a new UnlearningProblem")
        try:
            now = self._probe_outputs()
        except Exception:  # the model's own error: the solve meets it and names it as it does mid-run
            return
        if not _same_outputs(built, now):
            raise ValueError("model was changed after the problem was built: its outputs at params differ "
                             "from then (switched to train() with a Dropout or BatchNorm, a layer replaced, "
                             "a buffer edited, a hook added); the problem is the model as it was then: "
                             "restore it or build a new UnlearningProblem")

    def _check_fits(self, name: str, X: torch.Tensor, y: torch.Tensor, init: torch.Tensor,
                    unflatten: Callable) -> None:
        in_features = getattr(self.model, "in_features", None)
        if in_features is not None and X.shape[1] != in_features:
            raise ValueError(f"{name} X must have {in_features} columns (the model's in_features), "
                             f"got shape {tuple(X.shape)}")
        before = init.clone()
        try:  # on copies: a forward that writes into its input would edit the problem's data
            out = functional_forward(self.model, unflatten(init), (X[:1].clone(),))
            rows, params = X[:64], unflatten(init)
            first = functional_forward(self.model, params, (rows.clone(),))
            # NaN where NaN was is the same answer (torch.equal(nan, nan) is False: a model answering NaN
            # at its own fresh parameters was refused as non-deterministic)
            differ = any(not _same_outputs(first, functional_forward(self.model, params, (rows.clone(),)))
                         for _ in range(2))
        except Exception as exc:  # the model's own error, named as a mismatch of model and data, and as
            # its forward's (heldout24: a KeyError raised by forward was reported without naming forward)
            model = type(self.model).__name__
            raise ValueError(f"{name} X of shape {tuple(X.shape)} does not fit the model {model}: "
                             f"{model}.forward(X) raised {type(exc).__name__}: {exc}") from exc
        if not torch.equal(init, before):  # a max-norm clamp_ in forward rewrote θ* (problem.params) at
            # construction, then the first solve blamed params as "changed in place" (red23b)
            raise _writes_parameters(self.model)
        if differ:  # a Dropout in training mode: vmap's "random operation" error later
            raise ValueError(f"model must be deterministic (f(θ, X) the same at every call): two forward "
                             f"passes of {type(self.model).__name__} at the same θ and {name} X differ (a "
                             f"Dropout in training mode? pass model.eval())")
        if out.reshape(1, -1).shape[1] != y.shape[1]:
            raise ValueError(f"{name} y must have {out.reshape(1, -1).shape[1]} column(s) (the model's "
                             f"outputs), got shape {tuple(y.shape)}")
        if name == "retain":  # once: the outputs must depend on the parameters (every method differentiates)
            with torch.inference_mode(False), torch.enable_grad():
                probe = {k: v.detach().clone().requires_grad_(True) for k, v in unflatten(init).items()}
                tracked = functional_forward(self.model, probe, (X[:1].clone(),))
            if not tracked.requires_grad:  # a forward that detaches or runs under no_grad: autograd's
                # "element 0 of tensors does not require grad" at the first solve, naming nothing
                raise ValueError(f"model's output must depend on its parameters (differentiably): "
                                 f"{type(self.model).__name__}'s forward returns a tensor without a gradient "
                                 f"(it detaches its output or runs under torch.no_grad)")

    def __getstate__(self) -> dict[str, Any]:
        # the unflatten map is a closure (not picklable): pickle/deepcopy drop it and rebuild it from model
        state = dict(self.__dict__)
        state.pop("_unflatten", None)
        state.pop("_validated_fields", None)  # holds the closure too; recorded again when unpickled
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        params = {k: p.to(self.params.dtype) for k, p in module_params(self.model).items()}
        object.__setattr__(self, "_unflatten", flatten_params(params)[1])
        remember_validated(self)  # the copy's fields, as checked where the original was built

    @property
    def dtype(self) -> torch.dtype:
        return self.params.dtype

    @property
    def dim(self) -> int:
        """Number of parameters d."""
        return self.params.numel()

    @property
    def n_retain(self) -> int:
        return self.retain[0].shape[0]

    @property
    def n_forget(self) -> int:
        return self.forget[0].shape[0]

    @property
    def init_params(self) -> torch.Tensor:
        """The model's own registered parameters at construction, flat: the fresh start of a retrain (a copy:
        editing the model afterwards changed the start in silence)."""
        saved = self.__dict__.get("_init_params")
        if saved is not None:
            return saved.clone()
        try:  # an old pickle without the copy: the model's current parameters, checked
            return flatten_params({k: p.to(self.dtype) for k, p in module_params(self.model).items()})[0]
        except ValueError as exc:
            raise ValueError(f"model's own parameters (its fresh initialization) are invalid: {exc}") \
                from None

    def unflatten(self, theta: torch.Tensor) -> dict[str, torch.Tensor]:
        """The parameter dict of the flat vector ``theta`` (the problem's dtype and ``dim`` entries; NaN
        entries are passed on: a diverged run's)."""
        if not isinstance(theta, torch.Tensor) or theta.shape != self.params.shape:
            shape = tuple(theta.shape) if isinstance(theta, torch.Tensor) else type(theta).__name__
            raise ValueError(f"theta must be a flat tensor of the model's {self.dim} parameters, got {shape}")
        self._check_theta_dtype(theta)
        return self._unflatten(theta)

    def _check_theta_dtype(self, theta: torch.Tensor) -> None:
        if theta.dtype != self.dtype:  # a float32 theta on a float64 problem: the model's error blamed X
            raise TypeError(f"theta must have the problem's dtype {self.dtype}, got {theta.dtype}")

    def _check_theta(self, theta: Any) -> None:
        if not isinstance(theta, torch.Tensor) or theta.shape != self.params.shape:
            shape = tuple(theta.shape) if isinstance(theta, torch.Tensor) else type(theta).__name__
            raise ValueError(f"theta must be a flat tensor of the model's {self.dim} parameters, got {shape}")
        self._check_theta_dtype(theta)
        if theta.device.type == "meta":  # torch's .item() error
            raise ValueError("theta is on the meta device (no data); move it to a real device")
        refuse_sparse("theta", theta)  # torch's NotImplementedError ("aten::ne.Scalar")
        if not bool(torch.isfinite(theta.detach()).all()):  # NaN parameters answered NaN predictions
            raise NonFiniteTheta("theta must be finite, got NaN or inf entries")

    def predict(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """f(θ, X), shape (n, out_features); ``theta`` finite (:class:`NonFiniteTheta`, a ValueError), its
        entries at most 3.4e38 in magnitude (the working range; a ValueError naming theta).

        ``X`` is a finite (n, in_features) tensor of the problem's dtype; n = 0 rows gives an empty
        (0, out_features) result.
        """
        self._check_theta(theta)
        check_entries_in_range("theta", theta)   # 1e39 was blamed on LinearModel.weight (red23b)
        self._check_model_fingerprint()
        return self._forward(theta, X)

    def _forward(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        # a copy of X: a model whose forward writes into its input edited the retain/forget data (and met
        # autograd's "modified by an inplace operation" error)
        X_in = X.clone() if isinstance(X, torch.Tensor) else X
        # the user model's own KeyError (IndexError, RuntimeError, ...) mid-run reached the caller bare: named
        # (red20b: a RuntimeError too); the package's models' ValueError/TypeError pass as they are
        out = call_user(f"{type(self.model).__name__}.forward(X)", functional_forward, self.model,
                        self._unflatten(theta), (X_in,), keep=(ValueError, TypeError))
        self._check_output(out, X)
        # a forward that detached mid-run gave a zero gradient: Success or MaxIters in silence (red20b)
        if isinstance(theta, torch.Tensor) and theta.requires_grad and torch.is_grad_enabled() \
                and not out.requires_grad:
            raise ValueError(f"model's {type(self.model).__name__}.forward(X) must return a tensor that "
                             f"depends on the parameters (differentiably); it returned one without a "
                             f"gradient (it detaches its output or runs under torch.no_grad)")
        if isinstance(X, torch.Tensor) and X.ndim == 2 and X.shape[0] == 0:  # an empty batch: no rows back
            return out.new_zeros((0, self.retain[1].shape[1]))  # (reshape(0, -1) is torch's RuntimeError)
        return out.reshape(X.shape[0], -1)

    def _check_output(self, out: Any, X: Any) -> None:
        """A forward that answered a non-tensor or a wrong number of outputs part-way through a run met
        torch's reshape error or numpy's operand TypeError, naming neither the model nor its forward."""
        call = f"{type(self.model).__name__}.forward(X)"
        if not isinstance(out, torch.Tensor) or not out.is_floating_point():
            got = f"{type(out).__name__} of dtype {out.dtype}" if isinstance(out, torch.Tensor) else \
                type(out).__name__
            raise TypeError(f"model's {call} must return a floating torch.Tensor, got {got}")
        rows = X.shape[0] if isinstance(X, torch.Tensor) and X.ndim >= 1 else None
        cols = self.retain[1].shape[1]
        if rows is not None and out.numel() != rows * cols:
            raise ValueError(f"model's {call} must return {rows} x {cols} outputs (one row per row of X, "
                             f"{cols} column(s) as at construction), got shape {tuple(out.shape)}")

    def loss(self, theta: torch.Tensor, samples: Samples) -> torch.Tensor:
        """J(θ; D) = (1/|D|) Σ ‖f(θ, x) − y‖² (differentiable in θ); ``samples`` = (X, y), >= 1 row.

        ``theta`` is a finite flat parameter vector of the model. ``samples`` is a pair: X a finite
        (n, in_features) tensor of the problem's dtype, y finite of shape (n,) or (n, out_features),
        converted to the problem's dtype as the constructor's y is (int and bool labels promoted, a float
        of the other precision cast; half precision, complex, NaN/inf and other shapes refused by name).
        """
        if not isinstance(samples, tuple | list) or len(samples) != 2:
            raise TypeError(f"samples must be a pair (X, y), got {type(samples).__name__} of length "
                            f"{len(samples) if hasattr(samples, '__len__') else '?'}")
        X, y = samples
        if isinstance(X, torch.Tensor) and X.ndim >= 1 and X.shape[0] == 0:  # the mean over no rows
            raise ValueError("samples must hold at least one row (J is a mean over them), got 0 rows")
        prediction = self.predict(theta, X)
        # y checked as the constructor's: an inf y gave an inf loss, a complex y a complex one, a bool y
        # torch's RuntimeError, and a (n,) y broadcast against the (n, 1) prediction to an (n, n) sum
        y = _as_tensor("samples y", y, self.dtype, labels=True)
        if y.ndim == 1:
            y = y[:, None]
        if tuple(y.shape) != tuple(prediction.shape):
            got = tuple(getattr(samples[1], "shape", y.shape))
            raise ValueError(f"samples y must have shape ({prediction.shape[0]},) or "
                             f"{tuple(prediction.shape)} (one row per row of samples X, one column per "
                             f"output), got {got}")
        return ((prediction - y) ** 2).sum() / X.shape[0]

    def jacobian(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """The model gradients ∇_θ f(θ, x) of every output at every row of ``X``, stacked (n·out, d).

        ``theta`` is a finite flat parameter vector of the model (the problem's dtype) and ``X`` a finite
        (n, in_features) tensor of that dtype (checked: a 0-d X met vmap's error, an inf entry gave an inf
        Jacobian); n = 0 rows gives an empty (0, d) result.

        Per-sample reverse mode vectorized over the rows (``vmap(jacrev)``): one backward pass per
        output instead of one per (row, output) pair.
        """
        self._check_theta(theta)
        self._check_model_fingerprint()
        if not isinstance(X, torch.Tensor) or X.ndim != 2:  # a 0-d X met vmap's ValueError
            shape = tuple(X.shape) if isinstance(X, torch.Tensor) else type(X).__name__
            raise ValueError(f"X must be a 2-D (n, in_features) torch tensor, got {shape}")
        if X.dtype != self.dtype:
            raise TypeError(f"X must have the problem's dtype {self.dtype}, got {X.dtype}")
        refuse_sparse("X", X)
        if X.device.type == "meta" or not bool(torch.isfinite(X).all()):  # inf gave an inf Jacobian
            raise ValueError("X must be finite (no NaN or inf entries, not on the meta device)")
        if X.shape[0] == 0:  # no rows, no gradients (vmap's reshape of 0 elements was torch's RuntimeError)
            return theta.new_zeros((0, theta.numel()))

        def single(t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return self._forward(t, x[None])[0]

        with model_writes_named(self.model):
            jac = vmap(jacrev(single), in_dims=(None, 0))(theta.detach(), X)
        return jac.reshape(-1, theta.numel())


def checked_problem(problem: Any) -> UnlearningProblem:
    """``problem`` an :class:`UnlearningProblem` checked as a solve checks it before use: a field replaced is
    validated again, and data changed in place (NaN, 1e40, or any edit of retain/forget) or a model changed
    is refused by name. ``retrained_min_norm`` answered NaN or 1e-42 for such data in silence."""
    if not isinstance(problem, UnlearningProblem):
        raise TypeError(f"problem must be an UnlearningProblem, got {type(problem).__name__}")
    revalidate_if_reassigned(problem)
    problem._check_unchanged()
    return problem


def retrained_min_norm(problem: UnlearningProblem) -> torch.Tensor | None:
    """The exact unlearning target for a linear map, or None for other models.

    ``problem`` is an :class:`UnlearningProblem`, checked as a solve checks it (retain/forget data changed in
    place since construction, NaN or 1e40 written into it included, raise ValueError naming it).

    :class:`LinearModel`: the minimum-norm interpolator pinv(X_r) y_r (least squares when D_r
    cannot be interpolated), flat. :class:`DeepLinear`: the minimum-norm *effective predictor*
    of D_r (what Theorem 3 recovers), a vector of length in_features. A subclass of either that overrides
    ``forward`` (or a forward hook that changes the outputs) computes another f: None, as for other models.
    """
    X, y = checked_problem(problem).retain
    if computes_class_function(problem.model, LinearModel):
        return (torch.linalg.pinv(X) @ y).T.reshape(-1)
    if computes_class_function(problem.model, DeepLinear):
        return torch.linalg.pinv(X) @ y[:, 0]
    return None


@dataclass
class UnlearningStats(Stats):
    """:class:`~algorithms.core.Stats` plus the unlearning figures at the returned parameters.

    The counters ``iterations``, ``f_calls``, ``grad_calls``, ``hess_calls``, ``linear_solves`` (ints in
    [0, 2**63 - 1]) and ``wall_time`` (a float in [0, 3.4e38], or NaN until measured) are
    :class:`~algorithms.core.Stats`'s; ``projections`` is an int in [0, 2**63 - 1].

    ``retain_loss`` and ``forget_loss`` are J(θ; D_r) and J(θ; D_f); ``distance_to_retrain`` (>= 0, or NaN) is
    ‖θ − pinv(X_r) y_r‖ for a :class:`LinearModel`, ‖w(θ) − pinv(X_r) y_r‖ (effective predictors)
    for a :class:`DeepLinear` (each computing its class's own f), NaN for other models (subclasses
    overriding ``forward`` included); ``projections`` counts orthogonal-gradient
    updates (MinNorm-OG). The three figures are >= 0 (a mean of squares, a norm; computed, so not held to the
    working range: inf where the run diverged) or NaN (not computed); a negative one is refused by name, at
    construction or when set.
    """

    retain_loss: float = math.nan
    forget_loss: float = math.nan
    distance_to_retrain: float = math.nan
    projections: int = 0

    def __setattr__(self, name: str, value: Any) -> None:
        previous = getattr(self, name, math.nan)
        super().__setattr__(name, value)  # the type checks of Stats (a str, a bool, an array: by name)
        stored = getattr(self, name)
        # computed figures are not held to the working range (README): a diverged loss is inf, documented
        if name in _NONNEGATIVE_FIGURES and not (math.isnan(stored) or stored >= 0):
            object.__setattr__(self, name, previous)  # a refused value leaves the record as it was
            raise ValueError(f"{name} must be >= 0 (a mean of squares or a norm; inf: diverged; NaN: not "
                             f"computed), got {stored!r}")


#: UnlearningStats' figures that cannot be negative
_NONNEGATIVE_FIGURES = ("retain_loss", "forget_loss", "distance_to_retrain")


def norm(t: torch.Tensor) -> float:
    """‖t‖₂ as a float64, scaled where its squares leave float64 (:func:`stable_norm`): torch's float32
    ``vector_norm`` sums float32 squares, so a gradient entry of 1e20 (valid data of 1e10) read as an inf norm
    (a run of finite iterates ended ``Diverged``) and one of 1e-25 as 0 (a gradient criterion met at θ*)."""
    return stable_norm(t.detach().to(device="cpu", dtype=torch.float64).numpy())


def rows_within(residuals: torch.Tensor, y: torch.Tensor, magnitude: torch.Tensor, tol: float) -> bool:
    """Every retained row's |residual| <= tol·(1 + |y_i| + magnitude_i), ``magnitude`` the size of the terms
    the row's prediction sums (its rounding scale), each row on its own scale: one tolerance
    tol·(1 + max|y|) let a label of 1e11 excuse a residual of 1 on a row labelled 1 (Success for a
    predictor that dropped that row)."""
    residuals, y, magnitude = (t.detach().to(torch.float64) for t in (residuals, y, magnitude))
    if not bool(torch.isfinite(residuals).all()):
        return False
    return bool((residuals.abs() <= tol * (1.0 + y.abs() + magnitude)).all())


def distance_to_retrain(problem: UnlearningProblem, theta: torch.Tensor) -> float:
    target = retrained_min_norm(problem)
    if target is None:
        return math.nan
    if not in_working_range(theta):
        return math.nan  # a diverged iterate (effective_predictor refuses non-finite parameters)
    if isinstance(problem.model, DeepLinear):
        theta = effective_predictor(problem.model, problem.unflatten(theta))
    return norm(theta.to(torch.float64) - target.to(torch.float64))  # float32: no rounding to inf


def finish(problem: UnlearningProblem, algorithm: Any, theta: torch.Tensor, retcode: RetCode,
           stats: UnlearningStats, start: float, trace: list, original: Any = None) -> Solution:
    """The :class:`Solution` with the unlearning figures filled in."""
    theta = theta.detach().clone()
    if in_working_range(theta):
        with torch.no_grad():
            stats.retain_loss = _figure(problem.loss(theta, problem.retain))
            stats.forget_loss = _figure(problem.loss(theta, problem.forget))
    else:  # a diverged run (loss() refuses parameters past the working range, NaN or inf)
        stats.retain_loss = stats.forget_loss = math.nan
    stats.distance_to_retrain = _figure(distance_to_retrain(problem, theta))
    stats.wall_time = time.perf_counter() - start
    return Solution(theta, stats.retain_loss, retcode, stats=stats, trace=trace, original=original,
                    problem=problem, algorithm=algorithm)


def _figure(value: Any) -> float:
    """A computed loss or distance as a float, as it is (a computed figure is not held to the working range:
    inf where the run diverged)."""
    return float(value)


def diverged(theta: torch.Tensor, reference_norm: float) -> bool:
    """Non-finite, or grown past :data:`DIVERGENCE_FACTOR` · (1 + ‖θ*‖)."""
    size = norm(theta)
    return not math.isfinite(size) or size > DIVERGENCE_FACTOR * (1.0 + reference_norm)


@contextlib.contextmanager
def model_writes_named(model: torch.nn.Module):
    """A backward through the user's model: a forward that wrote into its input (or a parameter) in place
    after using it met autograd's bare "modified by an inplace operation" RuntimeError, naming nothing; it
    is re-raised as a ValueError naming the model. A write before the use (``nn.ReLU(inplace=True)`` on
    the input) is fine: the problem's data are passed as copies."""
    try:
        yield
    except RuntimeError as exc:
        if "modified by an inplace operation" not in str(exc):
            raise
        raise ValueError(f"model's forward must not write in place into a tensor it has used (its input X "
                         f"or a parameter): {type(model).__name__}.forward changed one that the gradient "
                         f"needs unchanged; copy it before changing it") from exc


def run_descent(problem: UnlearningProblem, algorithm: Any, options: SolveOptions, *,
                start_theta: torch.Tensor, objective: Callable[[torch.Tensor, int], torch.Tensor],
                default_maxiters: int, default_tol: float,
                before_step: Callable[[torch.Tensor, int, UnlearningStats], torch.Tensor] | None = None,
                criterion: str = "gradient", may_stop: Callable[[int], bool] | None = None) -> Solution:
    """The loop every iterative method of the family shares.

    Each iteration ``k``: optionally ``theta = before_step(theta, k, stats)`` (MinNorm-OG's
    projection), then one step of ``algorithm.optimizer`` (``"sgd"`` or ``"adam"``, learning
    rate ``algorithm.lr``) on ``objective(theta, k)``. ``criterion="gradient"``: ``Success``
    once ‖∇objective‖ <= tol before a step; ``criterion="step"``: once the iteration moved θ by
    at most tol·(1 + ‖θ‖) (float32 problems: the default tol is at least 1e-5), counted only at the
    iterations ``k`` where ``may_stop(k)`` holds (default: all). ``Diverged`` on a
    non-finite or blown-up iterate, ``MaxIters`` at the cap, ``Terminated`` when the callback asks,
    ``Stalled`` (gradient criterion) at a step that leaves θ unchanged in its dtype (a learning rate so small
    that lr·∇ rounds away: every later step would too).
    """
    begin = time.perf_counter()
    maxiters = options.iterations(default_maxiters)
    # float32 round-off (~1e-7 relative) sits far above the float64 defaults
    tol = options.tolerance(default_tol if problem.dtype == torch.float64 else max(default_tol, FLOAT32_TOL))
    stats = UnlearningStats()
    reference_norm = norm(problem.params)
    theta = start_theta.detach().clone()
    param = torch.nn.Parameter(theta.clone())
    optimizer = (torch.optim.Adam([param], lr=algorithm.lr) if algorithm.optimizer == "adam"
                 else torch.optim.SGD([param], lr=algorithm.lr))
    monitor = IterationMonitor(options, total=maxiters, desc=type(algorithm).__name__)
    retcode = RetCode.MaxIters
    try:
        for k in range(maxiters):
            previous = param.detach().clone()
            projections = getattr(stats, "projections", 0)
            if before_step is not None:
                with torch.no_grad():
                    param.copy_(before_step(param.detach(), k, stats))
            optimizer.zero_grad()
            try:
                value = objective(param, k)
            except NonFiniteTheta:  # MinNorm-OG's projection answered NaN (overflowing gradients)
                retcode = RetCode.Diverged
                break
            with model_writes_named(problem.model):
                value.backward()
            stats.f_calls += 1
            stats.grad_calls += 1
            grad_norm = norm(param.grad)
            value = value.detach()
            if not math.isfinite(float(value)) or not math.isfinite(grad_norm):
                retcode = RetCode.Diverged
                break
            if criterion == "gradient" and grad_norm <= tol:
                # a callback asking to stop here ends Terminated, as everywhere (its True was ignored)
                stop = monitor.record(iteration=k, objective=float(value), grad_norm=grad_norm, step=0.0)
                retcode = RetCode.Terminated if stop else RetCode.Success
                break
            optimizer.step()
            stats.iterations = k + 1
            moved = norm(param.detach().to(torch.float64) - previous.to(torch.float64))
            if diverged(param.detach(), reference_norm):
                retcode = RetCode.Diverged
                break
            if monitor.record(iteration=k + 1, objective=float(value), grad_norm=grad_norm, step=moved):
                retcode = RetCode.Terminated
                break
            bound = tol * (1.0 + norm(previous))
            if criterion == "step" and (may_stop is None or may_stop(k)) and moved <= bound:
                # no projection and a step that rounded away (lr = 0, 1.2e-38) at a gradient above the
                # tolerance moved nothing: no progress possible, not the criterion (it read Success at θ*
                # untouched, red20b); at an interpolator the gradient is rounding and the run converged
                unmoved = (moved == 0.0 and grad_norm > bound
                           and getattr(stats, "projections", 0) == projections)
                retcode = RetCode.Stalled if unmoved else RetCode.Success
                break
            if criterion == "gradient" and before_step is None and moved == 0.0:
                # the step rounded away in θ's dtype (lr = 1.2e-38): every later one does too, and
                # maxiters = 10**9 ran for hours to MaxIters
                retcode = RetCode.Stalled
                break
    finally:
        monitor.close()
    return finish(problem, algorithm, param.detach(), retcode, stats, begin, monitor.trace)


def check_descent_hyperparameters(lr: Any, optimizer: Any) -> float:
    """``lr`` a step size that may be 0: 0 or at least 1.18e-38, at most 3.4e38 (the README's rule for
    step sizes: 0 is "no step", a positive one must be a step float32 holds), ``optimizer`` one of "sgd",
    "adam" (shared by the iterative methods); returns ``lr`` as a float (an int 2**64 reached torch's
    optimizer as an int and its OverflowError; a Fraction is taken as its float)."""
    lr = check_nonnegative("lr", lr, scale=True)  # 1e-39 was a run that reported steps and moved nothing
    if optimizer not in ("sgd", "adam"):
        raise ValueError(f"optimizer must be one of ['adam', 'sgd'], got {optimizer!r}")
    return float(lr)
