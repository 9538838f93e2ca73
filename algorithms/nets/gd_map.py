"""The (stochastic) gradient descent map of a network loss, its Jacobian and log|det|.

For a loss L(θ) and a step size η > 0 (the keyword ``lr``, as in torch) the GD map is

    G_η(θ) = θ − η ∇L(θ),      DG_η(θ) = I − η ∇²L(θ),

and the SGD map with mini-batch B is the same with L replaced by the batch
loss L_B. Crăciun & Ghoshdastidar (NeurIPS 2025, arXiv:2510.24466) prove that
for networks with piecewise analytic activations G_η is non-singular (the
preimage of a null set is null) for all step sizes outside a null set (their
Theorem 1); the mechanism is that det(I − η∇²L(θ)) is analytic in θ (off a null
set) and not identically zero (their Proposition 11). This module computes the
pieces that statement is about:

* :class:`EmpiricalLoss`: any ``torch.nn.Module`` with ``out_features``
  (:mod:`algorithms.nets.models`, :class:`~algorithms.nets.two_layer.TwoLayerReLU`),
  data and a loss (``cross_entropy`` or ``mse``), as a function of the module's
  parameters or, through ``torch.func.functional_call``, of a flat vector θ;
* :func:`gd_map`, :func:`gd_jacobian` (autodiff of the map itself, via
  ``torch.func.jacrev``), :func:`hessian_matrix`;
* :func:`exact_logabsdet` (``slogdet`` of I − ηH or Σ log|1 − ηλ_i|) and
  :func:`singular_step_sizes` (η = 1/λ_i for the positive eigenvalues λ_i);
* :func:`stochastic_logabsdet` / :func:`gd_logabsdet_slq`: Hutchinson trace
  estimation with Lanczos (Gauss) quadrature of log|·|, matrix-free through
  Hessian-vector products;
* :class:`StrictSaddle` and :class:`GDMap`: a strict-saddle test family and
  plain GD from a (seeded) random initialization, reached through ``solve``.

Every function taking ``fn`` gives it a copy of θ (the caller's θ is never written); an ``fn`` that writes
into the θ it is given (under ``no_grad``, through ``.data``, in place) is refused, a TypeError naming
fn: the derivatives would be taken at another point.

References
----------
A. Crăciun, D. Ghoshdastidar. Non-singularity of the gradient descent map for
neural networks with piecewise analytic activations. NeurIPS 2025
(OpenReview Ecw0Cina9N, arXiv:2510.24466).
S. Ubaru, J. Chen, Y. Saad. Fast estimation of tr(f(A)) via stochastic Lanczos
quadrature. SIAM J. Matrix Anal. Appl. 38(4), 2017.
J. D. Lee, M. Simchowitz, M. I. Jordan, B. Recht. Gradient descent only
converges to minimizers. COLT 2016.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import torch
from torch.func import grad, grad_and_value, jacrev, jvp, vmap

from algorithms._validation import (
    CANCELLATION_SHARE,
    WORKING_MIN,
    UserCallableError,
    as_float_array,
    as_real_array,
    call_user,
    check_count,
    check_finite_data,
    check_fits_memory,
    check_positive,
    check_positive_int,
    check_seed,
    check_takes,
    check_working_range,
    checked_fields,
    in_working_range,
    precision_rank,
    refuse_sparse,
    reseal_state,
    revalidate_if_reassigned,
    rounded_where_cancelled,
    seal_arrays,
    store_plain_scalars,
    to_float,
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
from algorithms.nets.functional import flat_hessian, flatten_params, functional_forward, refuse_written
from algorithms.nets.two_layer import check_init_scale

__all__ = [
    "LOSSES",
    "EmpiricalLoss",
    "GDMap",
    "SLQEstimate",
    "StrictSaddle",
    "exact_logabsdet",
    "gd_jacobian",
    "gd_logabsdet_slq",
    "gd_map",
    "hessian_eigenvalues",
    "hessian_matrix",
    "singular_step_sizes",
    "stochastic_logabsdet",
]

LOSSES = ("cross_entropy", "mse")

Objective = Callable[[torch.Tensor], torch.Tensor]


# ----------------------------------------------------------------------------- inputs

def _check_lr(lr: Any) -> float:
    """The step size as a float; raises unless it is a finite number > 0."""
    if isinstance(lr, torch.Tensor) and lr.numel() == 1:
        lr = lr.item()
    return check_positive("lr", lr)


def _check_fn(fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"fn must be callable (theta -> scalar loss), got {type(fn).__name__}")
    check_takes("fn", fn, "fn(theta)", 1)


def _through_fn(run: Callable[[], torch.Tensor], theta: torch.Tensor | None = None) -> torch.Tensor:
    """``run()``, with torch.func's complaint about a non-scalar output re-raised naming ``fn``; with
    ``theta`` (the copy fn is given), an fn that wrote into it is refused naming fn."""
    before = None if theta is None else theta.clone()
    try:
        out = run()
    except RuntimeError as exc:
        if any(t in str(exc) for t in ("to return a scalar Tensor", "to return only tensors",
                                       "to return a Tensor")):   # the last: a str or None returned
            raise TypeError(f"fn must return a scalar (a 0-d tensor): {exc}") from None
        raise _named_torch_error("fn", exc) from None
    except (TypeError, ValueError):
        raise
    except Exception as exc:    # the user's own KeyError / ZeroDivisionError reached the caller bare
        raise UserCallableError(f"fn raised {type(exc).__name__}: {str(exc)[:200]}") from exc
    if theta is not None:
        refuse_written("fn", (theta,), (before,))
    return out


def _named_torch_error(name: str, exc: RuntimeError) -> Exception:
    """torch's complaint about what a user callable did, as a TypeError naming it (an in-place edit of θ,
    a complex or bool output); any other RuntimeError as it was."""
    text = str(exc)
    if "in-place operation" in text or "modified by an inplace operation" in text:
        return TypeError(f"{name} must not modify its input in place (use out-of-place operations): {text}")
    if "real scalar outputs" in text or "must be floating-point" in text:
        return TypeError(f"{name} must return a real floating-point scalar: {text}")
    if "random operation" in text:
        return TypeError(f"{name} must be deterministic (no random operations: its Hessian-vector products "
                         f"are batched): {text}")
    return exc


def _finite_step(result: torch.Tensor, lr: float) -> torch.Tensor:
    """The map's (or its Jacobian's) value, refused naming lr when η∇fn overflowed the dtype (lr = 1e308
    returned inf in silence)."""
    try:
        finite = bool(torch.isfinite(result).all())
    except RuntimeError:    # under torch.func.vmap: no data-dependent check (the batched caller's job)
        return result
    if not finite:
        raise ValueError(f"lr = {lr!r} is too large at this theta: lr · (the gradient or Hessian of fn) "
                         f"overflows {result.dtype}")
    return result


def _check_value(value: Any, theta: torch.Tensor | None = None) -> None:
    """fn(θ): a real scalar tensor with a finite value (a NaN loss gave a zero Hessian or a NaN step in
    silence), at least as precise as θ (a float32 fn of a float64 θ was differentiated through its rounded
    value, as flat_hessian now refuses)."""
    if not isinstance(value, torch.Tensor) or value.numel() != 1 or not value.is_floating_point():
        # a bool or int output has no gradient: gd_map returned theta unchanged in silence
        got = (f"shape {tuple(value.shape)}, dtype {value.dtype}" if isinstance(value, torch.Tensor)
               else type(value).__name__)
        raise TypeError(f"fn must return a scalar (a 0-d real floating tensor), got {got}")
    if theta is not None and precision_rank(value) < precision_rank(theta):
        raise TypeError(f"fn must return a value of theta's precision {theta.dtype}, got {value.dtype} (its "
                        f"derivatives would be computed through the rounded value)")
    if not bool(torch.isfinite(value).all()):
        raise ValueError(f"fn returned NaN or inf at theta ({float(value)})")


def _check_theta(theta: Any) -> torch.Tensor:
    """θ as a finite 1-D float tensor (float32 kept, anything else float64)."""
    if not isinstance(theta, torch.Tensor):
        theta = torch.as_tensor(as_float_array("theta", theta, ndim=1))
    if theta.ndim != 1 or theta.numel() == 0:
        raise ValueError(f"theta must be a non-empty 1-dimensional tensor (flat parameters), "
                         f"got shape {tuple(theta.shape)}")
    if theta.is_complex():  # .to(float64) would drop the imaginary part
        raise TypeError(f"theta must be real, got {theta.dtype}")
    refuse_sparse("theta", theta)   # torch.func failed on a sparse tensor, naming nothing
    if theta.device.type == "meta":
        raise ValueError("theta is on the meta device (no data); move it to a real device")
    if theta.dtype not in (torch.float32, torch.float64):  # integers, and half precision (documented)
        theta = theta.to(torch.float64)
    check_finite_data("theta", theta)
    # a copy (contiguous: an expanded, stride-0 θ failed inside torch.func's make_dual): an fn writing into
    # its argument past torch.func's in-place check (under no_grad, through .data) changed the caller's θ
    return theta.clone(memory_format=torch.contiguous_format)


# ----------------------------------------------------------------------------- the loss

@dataclass(frozen=True, eq=False)
class EmpiricalLoss:
    """L(θ) = (1/n) Σ_i ℓ(f_θ(x_i), y_i) for a ``torch.nn.Module`` f with ``out_features`` outputs.

    ``model`` is any module whose ``forward(X)`` returns (n, out_features) and that
    has an int attribute ``out_features`` (the models of :mod:`algorithms.nets.models`,
    :class:`algorithms.nets.two_layer.TwoLayerReLU`, ...). ``loss="cross_entropy"``:
    ``y`` holds integer labels in [0, out_features) and ℓ = −log softmax(f)_y.
    ``loss="mse"``: ``y`` holds targets of shape (n, out_features) (or (n,) for one
    output) and ℓ = ½‖f − y‖². Integer ``X`` is promoted to the model's dtype.

    ``model`` must be deterministic (two forward passes agree: a Dropout in training mode is refused,
    pass ``model.eval()``); it is always handed a copy of ``X``. Its outputs at its own parameters must be
    finite: at construction and at every ``value()`` while those parameters are finite (a ValueError naming
    ``model(X)``; ``value(params)`` and ``flat_objective``'s fn answer NaN/inf outputs as a loss, a diverged
    θ's); at every call its forward must return a floating tensor of shape (n, out_features) (else
    TypeError / ValueError naming ``model(X)``), of X's dtype; its own exception other than
    TypeError/ValueError/RuntimeError is re-raised as ``UserCallableError`` naming ``model(X)``.

    ``value()`` differentiates with respect to the module's own parameters (so a torch
    optimizer can train it); ``flat_objective()`` gives the functional view the theory
    uses, θ ↦ L(θ) through ``torch.func.functional_call`` (the module is not modified).

    >>> from algorithms.nets.models import MLP
    >>> net = MLP(in_features=2, hidden=(3,), out_features=2, activation="sigmoid", seed=0)
    >>> L = EmpiricalLoss(net, torch.ones(4, 2, dtype=torch.float64), torch.tensor([0, 1, 0, 1]))
    >>> theta, fn = L.flat_objective()
    >>> theta.shape, bool(torch.equal(fn(theta), L.value()))
    (torch.Size([17]), True)
    """

    model: Any
    X: torch.Tensor
    y: torch.Tensor
    loss: str = "cross_entropy"

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        if not isinstance(self.model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(self.model).__name__}")
        k = getattr(self.model, "out_features", None)
        if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
            raise TypeError(f"model must have a positive int attribute out_features, got {k!r} on "
                            f"{type(self.model).__name__}")
        params = dict(self.model.named_parameters())
        if not params:
            raise ValueError(f"model must have parameters, {type(self.model).__name__} has none")
        dtype = next(iter(params.values())).dtype
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {list(LOSSES)}, got {self.loss!r}")
        X = self.X if isinstance(self.X, torch.Tensor) else torch.as_tensor(as_float_array("X", self.X))
        refuse_sparse("X", X)
        if X.device.type == "meta":
            raise ValueError("X is on the meta device (no data); move it to a real device")
        if X.dtype == torch.bool or X.is_complex():
            raise TypeError(f"X must be a real float tensor, got dtype {X.dtype}")
        if not X.is_floating_point():
            X = X.to(dtype)
        if X.dtype != dtype:
            raise TypeError(f"X must have dtype {dtype} (the model's parameters), got {X.dtype}")
        if X.ndim < 2 or X.shape[0] == 0:
            raise ValueError(f"X must have a leading sample axis with n >= 1, got shape {tuple(X.shape)}")
        check_finite_data("X", X)
        n = X.shape[0]
        out = self._forward(self.model, X)
        with torch.no_grad():   # a Dropout in training mode: a random objective, and vmap's error later
            again = self._forward(self.model, X)
        # NaN where NaN was is the same answer (torch.equal(nan, nan) is False: a model answering NaN was
        # refused as non-deterministic, not as the non-finite loss it gives below)
        if not (torch.equal(torch.isnan(out.detach()), torch.isnan(again))
                and torch.equal(torch.nan_to_num(out.detach()), torch.nan_to_num(again))):
            raise ValueError(f"model must be deterministic (model(X) the same at every call): two forward "
                             f"passes of {type(self.model).__name__} on X differ (a Dropout in training "
                             f"mode? pass model.eval())")
        if tuple(out.shape) != (n, k):
            raise ValueError(f"model(X) must have shape (n, out_features) = ({n}, {k}), "
                             f"got {tuple(out.shape)}")
        if isinstance(self.y, torch.Tensor):
            y = self.y
        else:
            y_array = np.asarray(self.y)
            if not (np.issubdtype(y_array.dtype, np.number) or y_array.dtype == bool):
                raise TypeError(f"y must be numeric (labels or targets), got dtype {y_array.dtype}")
            y = torch.as_tensor(y_array)
        refuse_sparse("y", y)   # torch's comparisons failed on a sparse tensor, naming nothing
        if y.device.type == "meta":
            raise ValueError("y is on the meta device (no data); move it to a real device")
        if self.loss == "cross_entropy":
            not_labels = y.is_floating_point() or y.is_complex() or y.dtype == torch.bool
            if not_labels or y.ndim != 1 or y.shape[0] != n:
                raise ValueError(f"y must be n={n} integer labels for cross_entropy (one per row of X, "
                                 f"X.shape[0] = {n}), got dtype {y.dtype} shape {tuple(y.shape)}")
            if bool((y < 0).any()) or bool((y >= k).any()):
                raise ValueError(f"y labels must lie in [0, {k}) for a model with {k} outputs")
            y = y.to(torch.int64)
        else:
            if y.is_complex() or y.dtype == torch.bool:
                raise TypeError(f"y must be real targets for mse, got dtype {y.dtype}")
            y = y.to(X.dtype)
            if y.ndim == 1 and k == 1:
                y = y[:, None]
            if tuple(y.shape) != (n, k):
                raise ValueError(f"y must have shape ({n}, {k}) for mse (one row per row of X, X.shape[0] = "
                                 f"{n}, and model.out_features = {k} columns), got {tuple(y.shape)}")
            check_finite_data("y", y)
        if not bool(torch.isfinite(out).all()):   # not the data's fault: named as the model's
            raise ValueError(f"model(X) must be finite at the model's parameters, got NaN or inf outputs "
                             f"from {type(self.model).__name__} (X's entries too large for {X.dtype}, or the "
                             f"model's own NaN)")
        with torch.no_grad():   # data so large that the loss overflows the dtype gave an inf loss in silence
            at_start = self._loss_of(out, y)
        if not bool(torch.isfinite(at_start)):
            raise ValueError(f"X and y give a non-finite loss ({float(at_start)}) at the model's parameters: "
                             f"their entries are too large for {dtype} (rescale the data)")
        # copies: a caller's tensor edited after construction must not change the problem
        object.__setattr__(self, "X", X.detach().clone())
        object.__setattr__(self, "y", y.detach().clone())

    @staticmethod
    def _forward(model: torch.nn.Module, X: torch.Tensor, params: dict | None = None) -> torch.Tensor:
        """model(X) (at ``params`` when given); a model that cannot take X raises naming it."""
        X = X.clone()   # a forward that writes into its input edited the problem's (and caller's) X
        try:
            out = model(X) if params is None else functional_forward(model, params, (X,))
        except RuntimeError as exc:  # a module without its own input check (shape or dtype mismatch)
            raise ValueError(f"model {type(model).__name__} cannot be evaluated on X of shape "
                             f"{tuple(X.shape)}: {exc}") from exc
        except (TypeError, ValueError):
            raise
        except Exception as exc:     # the model's own KeyError (...) reached the caller bare (red20a)
            raise UserCallableError(f"model(X) ({type(model).__name__}.forward) raised {type(exc).__name__}: "
                                    f"{exc}") from exc
        # a tuple, an ndarray or int outputs met "'tuple' object has no attribute 'detach'" (or torch's
        # log_softmax error), naming nothing; a wrong shape later met gather's or broadcasting's error
        if not isinstance(out, torch.Tensor) or not out.is_floating_point():
            got = f"a {out.dtype} tensor" if isinstance(out, torch.Tensor) else type(out).__name__
            raise TypeError(f"model(X) must return a floating torch.Tensor, got {got}")
        if out.dtype != X.dtype:   # a float32 answer of a float64 model: a float32 loss in silence (red20a)
            raise TypeError(f"model(X) must return X's dtype {X.dtype} (the model's parameters), got "
                            f"{out.dtype}")
        k = getattr(model, "out_features", None)
        if isinstance(k, int) and tuple(out.shape) != (X.shape[0], k):
            raise ValueError(f"model(X) must have shape (n, out_features) = ({X.shape[0]}, {k}), "
                             f"got {tuple(out.shape)}")
        return out

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def _batch(self, batch: Any) -> torch.Tensor | None:
        if batch is None:
            return None
        try:
            index = torch.as_tensor(np.asarray(batch))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"batch must be a 1-D array of sample indices, "
                            f"got {type(batch).__name__}") from exc
        if index.is_floating_point() or index.is_complex() or index.dtype == torch.bool:
            raise TypeError(f"batch must hold integer sample indices, got dtype {index.dtype}")
        index = index.to(torch.int64)
        out_of_range = bool((index < 0).any()) or bool((index >= self.n).any())
        if index.ndim != 1 or index.numel() == 0 or out_of_range:
            raise ValueError(f"batch must be a non-empty 1-D index set into [0, {self.n}), got {batch!r}")
        return index

    def _loss_of(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if self.loss == "cross_entropy":
            return -torch.log_softmax(out, dim=-1).gather(1, y[:, None]).mean()
        return 0.5 * ((out - y) ** 2).sum(dim=-1).mean()

    def value(self, params: dict[str, torch.Tensor] | None = None, batch: Any = None) -> torch.Tensor:
        """The loss on all samples, or on the index set ``batch`` (the SGD loss L_B).

        With ``params=None`` it is a function of the module's own parameters (call
        ``.backward()`` and step a torch optimizer); otherwise of the dict ``params``.
        """
        revalidate_if_reassigned(self)  # L.y[0] = 7 written in place reached torch's gather (IndexError)
        if params is not None:
            self._check_params(params)
        index = self._batch(batch)
        X, y = (self.X, self.y) if index is None else (self.X[index], self.y[index])
        out = self._forward(self.model, X, params)
        if params is None:
            self._check_own_outputs(out)
        return self._loss_of(out, y)

    def _check_own_outputs(self, out: torch.Tensor) -> None:
        """At the module's own finite parameters the outputs must be finite, as at construction: a forward
        answering NaN part-way through (a user's model) gave a NaN loss in silence (red20a). Parameters a
        training loop drove to NaN/inf or past the working range answer as they do (the loop's divergence)."""
        try:
            finite = bool(torch.isfinite(out).all())
        except RuntimeError:    # under torch.func transforms: no data-dependent check
            return
        if finite or not all(bool(torch.isfinite(p).all()) and in_working_range(p)
                             for p in self.model.parameters()):
            return
        raise ValueError(f"model(X) must be finite at the model's parameters, got NaN or inf outputs from "
                         f"{type(self.model).__name__} at finite parameters (the model's own NaN)")

    def _check_params(self, params: Any) -> None:
        expected = {name: p.shape for name, p in self.model.named_parameters()}
        if not isinstance(params, dict):
            raise TypeError(f"params must be a dict of tensors named like the model's parameters "
                            f"{list(expected)}, got {type(params).__name__}")
        if list(params) != list(expected):
            raise ValueError(f"params must have the model's parameter names {list(expected)} in that order, "
                             f"got {list(params)}")
        for key, value in params.items():
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"params[{key!r}] must be a torch.Tensor, got {type(value).__name__}")
            if value.shape != expected[key]:
                raise ValueError(f"params[{key!r}] must have shape {tuple(expected[key])}, "
                                 f"got {tuple(value.shape)}")
            check_finite_data(f"params[{key!r}]", value)

    def flat_objective(self, params: dict[str, torch.Tensor] | None = None, batch: Any = None
                       ) -> tuple[torch.Tensor, Objective]:
        """θ (the flattened ``params``, default the module's own) and θ ↦ L(θ) (or L_B(θ) for a batch)."""
        revalidate_if_reassigned(self)
        if params is None:
            params = {name: p.detach() for name, p in self.model.named_parameters()}
        self._check_params(params)
        index = self._batch(batch)
        X, y = (self.X, self.y) if index is None else (self.X[index], self.y[index])
        theta, unflatten = flatten_params(params)

        def fn(vector: torch.Tensor) -> torch.Tensor:
            if isinstance(vector, torch.Tensor) and vector.dtype != X.dtype:  # X was blamed by the model
                raise TypeError(f"theta must have dtype {X.dtype} (the model's parameters and X), got "
                                f"{vector.dtype}")
            return self._loss_of(self._forward(self.model, X, unflatten(vector)), y)

        return theta, fn


# ----------------------------------------------------------------------------- the map and its Jacobian

def gd_map(fn: Objective, theta: torch.Tensor, lr: float) -> torch.Tensor:
    """G_η(θ) = θ − η ∇fn(θ) with η = ``lr`` (> 0, in [1.18e-38, 3.4e38]). With ``fn`` a mini-batch loss this
    is the SGD map.

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented). The result
    is the formula's value correctly rounded (from θ and the computed gradient) even where θ and η∇fn(θ)
    cancel (θ = 1e-30, ∇fn = 1e-20, η = 1e-10 gives 1.0175e-46: those entries, |result| <= 2**-10·|θ|, are
    recomputed exactly), elsewhere to float rounding.

    >>> fn = lambda t: 0.5 * (t ** 2).sum()
    >>> gd_map(fn, torch.tensor([2.0, -4.0], dtype=torch.float64), lr=0.25).tolist()
    [1.5, -3.0]
    """
    _check_fn(fn)
    lr = _check_lr(lr)
    theta = _check_theta(theta)
    gradient, value = _through_fn(lambda: grad_and_value(fn)(theta), theta)
    _check_value(value, theta)
    _check_finite_gradient(gradient)
    # exact where θ and η∇fn cancel: η·∇fn rounded before the subtraction (heldout23's gd_step class)
    return rounded_where_cancelled(
        _finite_step(theta - lr * gradient, lr), theta,
        lambda i: Fraction(float(theta[i])) - Fraction(lr) * Fraction(float(gradient[i])))


#: an entry of θ − η∇fn(θ) at most this share of |θ| lost its digits to η·∇fn's rounding: recomputed exactly
def _one_minus(lr: float, values: torch.Tensor, result: torch.Tensor) -> torch.Tensor:
    """``result`` = 1 − η·values (entrywise), exact where 1 and η·v cancel: η = 0.1, v = 10 gave 0 (a
    "singular" map) for the exact 1 − 0.1000000000000000055·10 = −5.55e-17 (red23a, heldout23's class)."""
    return rounded_where_cancelled(result, 1.0, lambda i: 1 - Fraction(lr) * Fraction(float(values[i])))


def _check_finite_gradient(gradient: torch.Tensor) -> None:
    """A finite fn whose gradient is NaN/inf at θ (sqrt|t| at 0) was blamed on lr ("too large")."""
    try:
        finite = bool(torch.isfinite(gradient).all())
    except RuntimeError:    # under torch.func.vmap: no data-dependent check (the batched caller's job)
        return
    if not finite:
        raise ValueError("fn has a NaN or inf gradient at theta (its value is finite; the map θ − lr ∇fn(θ) "
                         "is not defined there)")


def gd_jacobian(fn: Objective, theta: torch.Tensor, lr: float) -> torch.Tensor:
    """DG_η(θ), obtained by differentiating the map θ ↦ θ − η∇fn(θ) itself (reverse mode), η = ``lr`` (> 0,
    in [1.18e-38, 3.4e38]).

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented).

    It equals I − η∇²fn(θ); :func:`hessian_matrix` computes the Hessian by a
    different route (``torch.func.hessian``), so the two are independent checks. A diagonal entry
    1 − η·H_ii where 1 and η·H_ii cancel (|·| <= 2**-10) is recomputed exactly from η and H_ii's float
    (η = 0.1, H = 10 gives −5.55e-17, not 0).

    >>> fn = lambda t: 0.5 * 3.0 * (t ** 2).sum()
    >>> gd_jacobian(fn, torch.ones(2, dtype=torch.float64), lr=0.5).tolist()
    [[-0.5, 0.0], [0.0, -0.5]]
    """
    _check_fn(fn)
    lr = _check_lr(lr)
    theta = _check_theta(theta)
    _check_value(_through_fn(lambda: fn(theta), theta), theta)   # one evaluation beside the d of the Jacobian
    jacobian = _through_fn(lambda: jacrev(lambda t: t - lr * grad(fn)(t))(theta), theta)
    try:
        finite = bool(torch.isfinite(jacobian).all())
    except RuntimeError:    # under torch.func.vmap: the batched caller's job
        return jacobian
    if not finite and not bool(torch.isfinite(_through_fn(lambda: jacrev(grad(fn))(theta))).all()):
        # fn's own Hessian is not finite there (sqrt|t| at 0): lr was blamed ("too large")
        raise ValueError("fn has a NaN or inf second derivative at theta (the Hessian is not finite)")
    jacobian = _finite_step(jacobian, lr)
    diagonal = jacobian.diagonal()
    if bool((diagonal.abs() <= CANCELLATION_SHARE).any()):   # 1 − η·H_ii cancelled: exact from H_ii
        hessian = _through_fn(lambda: jacrev(grad(fn))(theta), theta)
        jacobian = jacobian.clone()
        jacobian.diagonal().copy_(_one_minus(lr, hessian.diagonal(), diagonal))
    return jacobian


def hessian_matrix(fn: Objective, theta: torch.Tensor) -> torch.Tensor:
    """∇²fn(θ), dense and symmetrized (forward-over-reverse round-off is not exactly symmetric).

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented).

    >>> hessian_matrix(lambda t: t[0] * t[1] ** 2, torch.tensor([1.0, 2.0], dtype=torch.float64)).tolist()
    [[0.0, 4.0], [4.0, 2.0]]
    """
    _check_fn(fn)
    theta = _check_theta(theta)
    _check_value(_through_fn(lambda: fn(theta), theta), theta)
    try:
        H = flat_hessian(fn, theta)
    except (TypeError, ValueError) as exc:     # flat_hessian calls it loss
        raise type(exc)(str(exc).replace("loss", "fn", 1)) from None
    return 0.5 * (H + H.T)


def hessian_eigenvalues(fn: Objective, theta: torch.Tensor) -> torch.Tensor:
    """Eigenvalues of ∇²fn(θ), ascending (float64).

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented).

    >>> hessian_eigenvalues(lambda t: (t ** 2).sum() - 2 * t[0] ** 2, torch.ones(2)).tolist()
    [-2.0, 2.0]
    """
    return torch.linalg.eigvalsh(hessian_matrix(fn, theta).to(torch.float64))


def exact_logabsdet(fn: Objective, theta: torch.Tensor, lr: float, method: str = "slogdet"
                    ) -> tuple[float, float]:
    """(sign, log|det(I − η∇²fn(θ))|) computed exactly, η = ``lr`` (> 0, in [1.18e-38, 3.4e38]).

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented).

    ``method="slogdet"`` factorizes I − ηH (LU); ``method="eigvalsh"`` uses the
    product formula det = Π_i (1 − ηλ_i) over the Hessian eigenvalues, each log as log1p(−ηλ_i). A
    singular matrix gives ``(0.0, -inf)``. Where η·‖H‖_F < 1/2 every factor 1 − ηλ_i lies within 1/2 of 1
    and the LU's rounding (about d·1e-16, absolute) would swamp a log-det of −η·tr H (lr = 1.2e-38: 0.0
    instead of ~−1e-38), so ``slogdet`` takes the product formula there too: the answer keeps its relative
    accuracy at every step size. A factor 1 − ηλ_i (a diagonal entry 1 − ηH_ii of I − ηH for ``slogdet``)
    where 1 and ηλ cancel (|·| <= 2**-10) is recomputed exactly from the floats: η = 0.1 with λ = 10 gives
    det = 1 − 0.1000000000000000055·10 = −5.55e-17, sign −1, not a singular (0.0, -inf).

    >>> fn = lambda t: 0.5 * (t[0] ** 2 + 4.0 * t[1] ** 2)
    >>> sign, logdet = exact_logabsdet(fn, torch.zeros(2, dtype=torch.float64), lr=0.5)
    >>> sign, round(math.exp(logdet), 12)     # (1 − 0.5)(1 − 2) = −0.5
    (-1.0, 0.5)
    """
    lr = _check_lr(lr)
    if method not in ("slogdet", "eigvalsh"):
        raise ValueError(f"method must be one of ['eigvalsh', 'slogdet'], got {method!r}")
    if method == "slogdet":
        H = hessian_matrix(fn, theta).to(torch.float64)
        if float(lr * torch.linalg.matrix_norm(H)) < 0.5:      # the LU's rounding swamps log det (see above)
            return _logabsdet_by_eigenvalues(torch.linalg.eigvalsh(H), lr)
        eye = torch.eye(H.shape[0], dtype=H.dtype)
        J = eye - lr * H
        if bool(torch.isfinite(J).all()):   # a diagonal 1 − η·H_ii that cancelled: exact (0 read "singular")
            J.diagonal().copy_(_one_minus(lr, H.diagonal(), J.diagonal()))
        else:
            # η·H overflowed (lr = 1e308): det(I − ηH) = η^d det(I/η − H), whose log is finite
            sign, logabsdet = torch.linalg.slogdet(eye / lr - H)
            return float(sign), float(logabsdet) + H.shape[0] * math.log(lr)
        sign, logabsdet = torch.linalg.slogdet(J)
        return float(sign), float(logabsdet)
    return _logabsdet_by_eigenvalues(hessian_eigenvalues(fn, theta), lr)


def _logabsdet_by_eigenvalues(eigenvalues: torch.Tensor, lr: float) -> tuple[float, float]:
    """(sign, Σ log|1 − ηλ_i|), each term log1p(−ηλ_i) where |ηλ_i| < 1/2 (log(1 − ηλ) lost all of
    −ηλ = −1e-38 to the rounding of 1 − ηλ), log|1 − ηλ_i| elsewhere (η(1/η − λ) where ηλ overflows)."""
    products = lr * eigenvalues
    factors = _one_minus(lr, eigenvalues, 1.0 - products)   # exact where 1 and ηλ cancel (0 read "singular")
    scale = 0.0
    if not bool(torch.isfinite(factors).all()):    # η·λ overflowed: 1 − ηλ = η (1/η − λ)
        factors, scale = 1.0 / lr - eigenvalues, eigenvalues.numel() * math.log(lr)
        products = torch.full_like(factors, math.inf)      # no term takes log1p
    if bool((factors == 0).any()):
        return 0.0, -math.inf
    sign = float(torch.prod(torch.sign(factors)))
    near_one = products.abs() < 0.5
    logs = torch.where(near_one, torch.log1p(-torch.where(near_one, products, torch.zeros_like(products))),
                       torch.log(torch.abs(factors)))
    return sign, float(torch.sum(logs)) + scale


def singular_step_sizes(fn: Objective, theta: torch.Tensor, rtol: float | None = None) -> np.ndarray:
    """The step sizes η > 0 at which DG_η(θ) is singular: η = 1/λ_i for each eigenvalue λ_i > 0.

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented).

    det(I − ηH) = Π_i (1 − ηλ_i) vanishes exactly at these at most d values (with
    multiplicity); non-positive eigenvalues give no positive singular step.
    Eigenvalues with λ_i ≤ ``rtol`` · max|λ| are below what a symmetric eigensolver
    resolves (its error is about d·ε·‖H‖) and are treated as zero; the default
    ``rtol`` is 10·d·ε, and ``rtol`` must lie in [0, 1). Returned ascending.

    >>> fn = lambda t: 0.5 * (2.0 * t[0] ** 2 - t[1] ** 2 + 8.0 * t[2] ** 2)
    >>> singular_step_sizes(fn, torch.zeros(3, dtype=torch.float64)).tolist()
    [0.125, 0.5]
    """
    if rtol is not None:
        if isinstance(rtol, bool) or not isinstance(rtol, int | float | np.floating | np.integer):
            raise TypeError(f"rtol must be a real number or None, got {type(rtol).__name__}")
        try:
            rtol = float(rtol)
        except OverflowError:       # an int past float's range (10**400)
            rtol = math.inf
        if not (math.isfinite(rtol) and 0 <= rtol < 1):
            raise ValueError(f"rtol must lie in [0, 1) (a fraction of max|lambda|), got {rtol!r}")
    lam = hessian_eigenvalues(fn, theta).detach().numpy()    # theta may require grad
    d = lam.size
    if rtol is None:
        rtol = 10.0 * d * np.finfo(np.float64).eps
    cutoff = rtol * max(float(np.max(np.abs(lam), initial=0.0)), np.finfo(np.float64).tiny)
    positive = lam[lam > cutoff]
    return np.sort(1.0 / positive)


# ----------------------------------------------------------------------------- stochastic log-det

class _SLQFields(NamedTuple):
    estimate: float  # mean over probes
    stderr: float  # sample standard deviation over probes / sqrt(num_probes)
    samples: np.ndarray  # one quadrature value per probe


class SLQEstimate(_SLQFields):
    """A Hutchinson + Lanczos estimate of tr log|A| = log|det A|.

    ``estimate`` a real number (−inf for a singular A), ``stderr`` a real number >= 0 (inf with one
    probe, NaN when a sample is infinite), ``samples`` a 1-D float array (one quadrature value per
    probe). A record built by hand with a str, a bool, a negative ``stderr`` or 2-D ``samples`` is
    refused naming the field (it was stored as given). The fields are checked one by one, not against
    each other: :func:`stochastic_logabsdet` writes estimate = mean(samples) and stderr = std(samples,
    ddof=1)/√k, which a hand-built record need not satisfy (it is then what its builder says).
    """

    __slots__ = ()

    def __new__(cls, estimate: Any, stderr: Any, samples: Any) -> SLQEstimate:
        values = {}
        for name, value in (("estimate", estimate), ("stderr", stderr)):
            if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
                raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r:.40}")
            values[name] = to_float(value)
        if math.isnan(values["estimate"]):
            raise ValueError("estimate must not be NaN")
        for name, value in values.items():      # ±inf is documented; a finite one is in the working range
            if math.isfinite(value):
                check_working_range(name, value, scale=False)
        if values["stderr"] < 0:
            raise ValueError(f"stderr must be >= 0 (a standard error), got {values['stderr']!r}")
        samples = as_real_array("samples", samples)
        if samples.ndim != 1:
            raise ValueError(f"samples must be 1-dimensional (one value per probe), got shape "
                             f"{samples.shape}")
        return super().__new__(cls, values["estimate"], values["stderr"], samples)


#: the most Hutchinson probes :func:`stochastic_logabsdet` takes (each gets its own tridiagonal
#: eigensolve in a Python loop: 10**6 probes ran for minutes; estimates use tens to thousands)
MAX_PROBES = 100_000


def _check_symmetric_matvec(V: torch.Tensor, AV: torch.Tensor, dtype: torch.dtype) -> None:
    """uᵀ(A v) = vᵀ(A u) over the pairs of probe vectors, up to rounding: Lanczos assumes a symmetric A, and
    a triangular one gave an estimate of −0.26 for log|det| = 0 in silence."""
    gram = V.T @ AV
    gap = float((gram - gram.T).abs().max())
    size = math.sqrt(float((_column_norms(AV).to(torch.float64) ** 2).sum())) * math.sqrt(V.shape[0])
    if gap > 1e3 * torch.finfo(dtype).eps * max(size, torch.finfo(dtype).tiny):
        raise ValueError(f"matvec must apply a symmetric A (Lanczos' assumption): uᵀ(A v) and vᵀ(A u) differ "
                         f"by {gap:.3g} on the probe vectors")


def _column_norms(w: torch.Tensor) -> torch.Tensor:
    """The 2-norm of each column of ``w``, at unit scale: torch's float32 ``vector_norm`` sums float32
    squares, so A = 1e20·S had β = inf (the estimate off by 0.45 at a stderr of 0.25) and the symmetry
    check's scale became inf (a triangular A passed it) or, for A = 1e-30·S, 0 (a symmetric A refused)."""
    top = w.abs().amax(dim=0)
    safe = torch.where(top > 0, top, torch.ones_like(top))
    return top * torch.linalg.vector_norm(w / safe, dim=0)


def _symmetry_pair(matvec: Callable[[torch.Tensor], torch.Tensor], dim: int, dtype: torch.dtype,
                   seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.dtype]:
    """Two seeded Gaussian vectors G (dim, 2) and matvec(G), for the symmetry check where the probes are one
    direction."""
    G = torch.randn(dim, 2, generator=torch.Generator().manual_seed((seed + 1) % 2**64), dtype=dtype)
    AG = call_user("matvec(V)", matvec, G.clone(), keep=(TypeError, ValueError))
    if not isinstance(AG, torch.Tensor) or AG.shape != G.shape or AG.dtype != dtype \
            or not bool(torch.isfinite(AG).all()):
        got = (f"shape {tuple(AG.shape)}, dtype {AG.dtype}" if isinstance(AG, torch.Tensor)
               else type(AG).__name__)
        raise ValueError(f"matvec must return a finite tensor of V's shape {tuple(G.shape)} and dtype "
                         f"{dtype} (a block of 2 vectors), got {got}")
    return G, AG, dtype


def stochastic_logabsdet(matvec: Callable[[torch.Tensor], torch.Tensor], dim: int, *,
                         num_probes: int = 64, lanczos_steps: int = 30, seed: int = 0,
                         dtype: torch.dtype = torch.float64) -> SLQEstimate:
    """Estimate log|det A| = tr log|A| for a symmetric A known only through products.

    ``matvec(V)`` maps a block V of shape (dim, m) to A V; A must be symmetric: it is checked once (dim > 1)
    on the probes and on a (dim, 2) block of seeded Gaussian vectors, and a non-symmetric A raises
    ValueError naming matvec (one probe, or probes equal up to sign, checked nothing). For each Rademacher
    probe z (seeded by ``seed``, an int in [0, 2**64)), ``lanczos_steps`` steps of Lanczos with full
    re-orthogonalization from z/‖z‖ give a tridiagonal T with eigenpairs (t_j, u_j);
    Gauss quadrature gives zᵀ log|A| z ≈ ‖z‖² Σ_j u_j[0]² log|t_j|, and the
    estimate is the mean over probes (Hutchinson). Lanczos stops early on a probe
    whose Krylov space is exhausted (then its quadrature is exact). ``num_probes`` is at most
    :data:`MAX_PROBES` (100000).

    >>> A = torch.diag(torch.tensor([0.5, 1.0, 2.0, 4.0], dtype=torch.float64))
    >>> est = stochastic_logabsdet(lambda V: A @ V, 4, num_probes=8, lanczos_steps=4, seed=0)
    >>> round(est.estimate, 8) == round(math.log(4.0), 8)     # diagonal A: every probe is exact
    True
    """
    if not callable(matvec):
        raise TypeError(f"matvec must be callable (V -> A V), got {type(matvec).__name__}")
    check_takes("matvec", matvec, "matvec(V)", 1)
    check_positive_int("dim", dim)
    check_positive_int("num_probes", num_probes)
    if num_probes > MAX_PROBES:
        raise ValueError(f"num_probes must be <= {MAX_PROBES} (MAX_PROBES: one eigensolve per probe), got "
                         f"{num_probes}")
    check_positive_int("lanczos_steps", lanczos_steps)
    seed = check_seed(seed)
    if dtype not in (torch.float32, torch.float64):
        raise TypeError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    steps = min(lanczos_steps, dim)
    # Q holds steps · dim · num_probes numbers: 2**31 probes failed inside torch's allocator
    check_fits_memory("stochastic_logabsdet", "num_probes" if num_probes >= dim else "dim",
                      num_probes if num_probes >= dim else dim,
                      torch.finfo(dtype).bits / 8 * (steps + 2) * dim * num_probes)
    gen = torch.Generator().manual_seed(seed)
    Z = (torch.randint(0, 2, (dim, num_probes), generator=gen) * 2 - 1).to(dtype)
    norms2 = (Z * Z).sum(dim=0)
    Q = torch.zeros(steps, dim, num_probes, dtype=dtype)
    alphas = torch.zeros(steps, num_probes, dtype=dtype)
    betas = torch.zeros(steps, num_probes, dtype=dtype)
    lengths = torch.full((num_probes,), steps, dtype=torch.int64)
    active = torch.ones(num_probes, dtype=torch.bool)
    q = Z / torch.sqrt(norms2)
    scale = None
    for j in range(steps):
        Q[j] = q
        # a copy: a matvec writing into its V (V.mul_(2)) changed the Lanczos block (a wrong estimate)
        w = call_user("matvec(V)", matvec, q.clone(), keep=(TypeError, ValueError))
        if not isinstance(w, torch.Tensor):
            raise TypeError(f"matvec must return a torch.Tensor of shape {tuple(q.shape)}, "
                            f"got {type(w).__name__}")
        if w.shape != q.shape:
            raise ValueError(f"matvec must return shape {tuple(q.shape)} (the block V it was given), "
                             f"got {tuple(w.shape)}")
        if w.dtype != dtype:    # a float32 answer met torch's "expected scalar type Double" naming nothing
            raise TypeError(f"matvec must return V's dtype {dtype} (the block it was given), got {w.dtype}")
        if not bool(torch.isfinite(w).all()):  # the estimate would be NaN in silence
            raise ValueError(f"matvec returned NaN or inf entries (at Lanczos step {j})")
        if j == 0 and dim > 1:
            if num_probes > 1:
                _check_symmetric_matvec(q, w, dtype)
            # and on two seeded Gaussian vectors: on one probe, on probes equal up to sign, or on Rademacher
            # probes the antisymmetric part happens to miss, the check was vacuous (red20a: confident wrong
            # estimates, stderr 0)
            _check_symmetric_matvec(*_symmetry_pair(matvec, dim, dtype, seed))
        alpha = (q * w).sum(dim=0)
        alphas[j] = alpha
        # full re-orthogonalization against every stored vector (twice is enough)
        for _ in range(2):
            coef = torch.einsum("kdm,dm->km", Q[: j + 1], w)
            w = w - torch.einsum("kdm,km->dm", Q[: j + 1], coef)
        beta = _column_norms(w)
        if scale is None:
            scale = torch.clamp(torch.abs(alpha) + beta, min=torch.finfo(dtype).tiny)
        if j + 1 < steps:
            done = active & (beta <= 1e3 * torch.finfo(dtype).eps * scale)
            lengths[done] = j + 1
            active = active & ~done
            betas[j] = torch.where(active, beta, torch.zeros_like(beta))
            safe = torch.where(beta > 0, beta, torch.ones_like(beta))
            q = torch.where(active, w / safe, torch.zeros_like(w))
    samples = np.empty(num_probes)
    for i in range(num_probes):
        k = int(lengths[i])
        T = torch.diag(alphas[:k, i])
        if k > 1:
            off = betas[: k - 1, i]
            T = T + torch.diag(off, 1) + torch.diag(off, -1)
        nodes, vecs = torch.linalg.eigh(T.to(torch.float64))
        weights = vecs[0] ** 2
        samples[i] = float(norms2[i]) * float((weights * torch.log(torch.abs(nodes))).sum())
    estimate = float(np.mean(samples))
    stderr = float(np.std(samples, ddof=1) / math.sqrt(num_probes)) if num_probes > 1 else math.inf
    return SLQEstimate(estimate, stderr, samples)


def gd_logabsdet_slq(fn: Objective, theta: torch.Tensor, lr: float, *, num_probes: int = 64,
                     lanczos_steps: int = 30, seed: int = 0) -> SLQEstimate:
    """Stochastic log|det(I − η∇²fn(θ))|, η = ``lr`` (> 0, in [1.18e-38, 3.4e38]), through Hessian-vector
    products only (never forms ∇²fn).

    ``theta``: a finite 1-D tensor of flat parameters (float32 kept, other real dtypes to float64); a
    numpy array or a list of numbers is accepted and converted to a float64 tensor (documented).
    ``num_probes`` an int in [1, :data:`MAX_PROBES` = 100000], ``lanczos_steps`` an int >= 1 and ``seed`` an
    int in [0, 2**64), as :func:`stochastic_logabsdet`'s.

    >>> fn = lambda t: 0.5 * (t ** 2 * torch.arange(1.0, 6.0, dtype=torch.float64)).sum()
    >>> est = gd_logabsdet_slq(fn, torch.zeros(5, dtype=torch.float64), lr=0.1, num_probes=4)
    >>> round(est.estimate, 8) == round(sum(math.log(1 - 0.1 * k) for k in range(1, 6)), 8)
    True
    """
    _check_fn(fn)
    lr = _check_lr(lr)
    theta = _check_theta(theta)
    # a str or generator returned failed in torch.func
    _check_value(_through_fn(lambda: fn(theta), theta), theta)
    grad_fn = grad(fn)

    def hvp(v: torch.Tensor) -> torch.Tensor:
        return jvp(grad_fn, (theta,), (v,))[1]

    block_hvp = vmap(hvp, in_dims=1, out_dims=1)

    def matvec(V: torch.Tensor) -> torch.Tensor:
        return V - lr * block_hvp(V)

    try:
        return stochastic_logabsdet(matvec, theta.numel(), num_probes=num_probes,
                                    lanczos_steps=lanczos_steps, seed=seed, dtype=theta.dtype)
    except RuntimeError as exc:     # torch's, about what fn did inside the batched products
        raise _named_torch_error("fn", exc) from None
    except UserCallableError as exc:    # the matvec is ours: torch's error inside it is about fn
        if isinstance(exc.__cause__, RuntimeError):
            raise _named_torch_error("fn", exc.__cause__) from None
        raise
    except ValueError as exc:   # the matvec is ours: its message named no argument of this call
        if not str(exc).startswith("matvec returned NaN or inf"):
            raise
        raise ValueError(f"(I − lr·∇²fn(theta))·probe has NaN or inf entries (lr={lr!r}): lr is too large "
                         f"for fn's Hessian at theta, or that Hessian is not finite there") from None


# ----------------------------------------------------------------------------- strict saddle + GD

@dataclass(frozen=True, eq=False)
class StrictSaddle(Problem):
    """The strict-saddle family f(u, v) = ½ Σ_i a_i u_i² + Σ_j (¼ v_j⁴ − ½ b_j v_j²), a, b > 0.

    Its critical points are u = 0 with each v_j ∈ {0, ±√b_j}. The origin is a
    strict saddle (Hessian diag(a, −b)); its stable manifold is the subspace
    {v = 0}. The minimizers are u = 0, v_j = ±√b_j (f = −Σ b_j²/4). The variable
    is z = (u, v). ``x0`` fixes the start; when ``None`` it is drawn as
    ``init_scale`` · N(0, I) (``init_scale`` in [1.18e-38, 3.4e38]) from the solve's ``seed`` (an int in
    [0, 2**64); ``seed=None`` is seed 0, as the family's other solvers: one answer). float32 ``a``
    gives float32 iterates.

    >>> p = StrictSaddle(a=[1.0], b=[2.0])
    >>> p.value(np.array([0.0, np.sqrt(2.0)])), p.saddle().tolist()
    (-1.0, [0.0, 0.0])
    """

    a: Any
    b: Any
    x0: Any = None
    init_scale: float = 1.0

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (numpy gives them back writable)."""
        reseal_state(self, state)

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        a = as_float_array("a", self.a, ndim=1)
        b = as_float_array("b", self.b, ndim=1, dtype=a.dtype)
        if a.size == 0 or b.size == 0:
            raise ValueError("a and b must each have at least one entry")
        if np.any(a <= 0):
            raise ValueError("a must be > 0 entrywise (the saddle's stable directions)")
        if np.any(b <= 0):
            raise ValueError("b must be > 0 entrywise (the saddle's unstable directions)")
        for name, curvatures in (("a", a), ("b", b)):   # positive scales: 1e-39 is the working range's 0
            if float(np.min(curvatures)) < WORKING_MIN:
                raise ValueError(f"{name} must be >= {WORKING_MIN:.4g} entrywise (a positive curvature "
                                 f"inside the package's working range), got {float(np.min(curvatures))!r}")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        if self.x0 is not None:
            x0 = as_float_array("x0", self.x0, ndim=1, dtype=a.dtype)
            if x0.size != a.size + b.size:
                raise ValueError(f"x0 must have {a.size + b.size} entries (len(a) + len(b)), got {x0.size}")
            object.__setattr__(self, "x0", x0)
        object.__setattr__(self, "init_scale", check_init_scale(self.init_scale))
        seal_arrays(self)  # README: a problem's arrays are read-only, in immutable memory

    @property
    def dim(self) -> int:
        return self.a.size + self.b.size

    def _split(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return z[: self.a.size], z[self.a.size:]

    def _z(self, z: Any) -> np.ndarray:
        """A user's point for the public methods: real, shape (dim,), finite (a str or a wrong length reached
        numpy's messages, a NaN gave NaN in silence); the solve calls the unchecked private methods, so a
        diverging run still ends ``Diverged``."""
        z = as_float_array("z", z, ndim=1)
        if z.shape != (self.dim,):
            raise ValueError(f"z must have shape ({self.dim},) (u of {self.a.size}, v of {self.b.size}), got "
                             f"{z.shape}")
        return z

    def value(self, z: np.ndarray) -> float:
        """f(z) for a finite z of shape (dim,); a z so large that f overflows float64 (|v| past ~1e77) is
        refused naming z (the solve's own evaluations return inf there: a diverging run)."""
        return self._finite(self._value(self._z(z)), "f(z)")

    def grad(self, z: np.ndarray) -> np.ndarray:
        """∇f(z), with :meth:`value`'s domain for z."""
        return self._finite(self._grad(self._z(z)), "∇f(z)")

    def hessian(self, z: np.ndarray) -> np.ndarray:
        """∇²f(z) (diagonal), with :meth:`value`'s domain for z."""
        return self._finite(self._hessian(self._z(z)), "∇²f(z)")

    @staticmethod
    def _finite(result: Any, what: str) -> Any:
        if not np.all(np.isfinite(result)):
            raise ValueError(f"z is too large: {what} overflows float64 there (a, b and z must keep "
                             f"v⁴ and a·u² finite)")
        return result

    def _value(self, z: np.ndarray) -> float:
        u, v = self._split(np.asarray(z))
        with np.errstate(over="ignore"):  # a huge (diverging) iterate gives inf, not a warning
            return float(0.5 * np.sum(self.a * u * u) + np.sum(0.25 * v**4 - 0.5 * self.b * v * v))

    def _grad(self, z: np.ndarray) -> np.ndarray:
        u, v = self._split(np.asarray(z))
        return np.concatenate([self.a * u, v**3 - self.b * v])

    def _hessian(self, z: np.ndarray) -> np.ndarray:
        _, v = self._split(np.asarray(z))
        return np.diag(np.concatenate([self.a, 3 * v * v - self.b]))

    def saddle(self) -> np.ndarray:
        """The strict saddle at the origin."""
        return np.zeros(self.dim, dtype=self.a.dtype)

    def start(self, seed: int | None) -> np.ndarray:
        if self.x0 is not None:
            return self.x0.copy()
        seed = check_seed(seed, allow_none=True)   # None is 0, as the family's other solvers (red23a: it
        rng = np.random.default_rng(0 if seed is None else seed)   # drew fresh OS entropy, undocumented)
        return (self.init_scale * rng.standard_normal(self.dim)).astype(self.a.dtype)


#: the longest run :class:`GDMap` starts (seconds, from a lower bound of its per-step cost)
MAX_RUN_SECONDS = 60.0

#: GD reports ``Diverged`` once ‖z_k‖ exceeds this multiple of (1 + ‖z_0‖): on the coercive StrictSaddle
#: family a convergent run stays within a few ‖z_0‖ + max √b_j, so this is blow-up, not a slow run.
DIVERGENCE_FACTOR = 1e8


@dataclass(frozen=True)
class GDMap(Algorithm):
    """Gradient descent z_{k+1} = G_η(z_k) = z_k − η ∇f(z_k) with a constant step η = ``lr`` (a float
    >= 1.18e-38, float32's smallest normal: a subnormal step moves nothing and is refused naming lr).

    Stops with ``Success`` when ‖∇f(z_k)‖ ≤ ``tol`` (default 1e-8 in float64,
    1e-4 in float32); ``Diverged`` on a non-finite iterate or once ‖z_k‖ >
    ``DIVERGENCE_FACTOR`` · (1 + ‖z_0‖) (1e8; the last finite iterate is kept);
    ``MaxIters`` after ``maxiters`` steps (default 20000) without the criterion; ``maxiters`` an int >= 0
    whose run fits in ``MAX_RUN_SECONDS`` = 60 s at >= 20 µs a step (about 3·10⁶ steps; a larger one is
    refused naming maxiters, as the family's other long loops: 2**31 − 1 steps ran for hours). The
    start is the problem's ``x0`` or a Gaussian draw from ``seed`` (random initialization; ``seed=None`` is
    seed 0).

    References: Lee, Simchowitz, Jordan & Recht (COLT 2016): GD from a random start
    avoids strict saddles when G_η is a non-singular diffeomorphism; Crăciun &
    Ghoshdastidar, NeurIPS 2025 (arXiv:2510.24466), Theorem 1: for network losses
    G_η is non-singular for almost every η.

    >>> from algorithms import solve
    >>> sol = solve(StrictSaddle(a=[1.0], b=[1.0]), GDMap(lr=0.1), seed=0)
    >>> sol.retcode, np.round(np.abs(sol.x), 6).tolist()
    (<RetCode.Success: 'Success'>, [0.0, 1.0])
    """

    lr: float = 0.1

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        object.__setattr__(self, "lr", check_positive("lr", self.lr))


@_dispatch
def _solve(problem: StrictSaddle, algorithm: GDMap, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    z = problem.start(options.seed)
    dtype = z.dtype
    tol = options.tolerance(1e-8 if dtype == np.float64 else 1e-4)
    maxiters = check_count("maxiters", options.iterations(20000), 0)    # 2**63 looped for ever
    per_step = 2e-5 + 2e-9 * problem.dim       # a lower bound of one step's cost on one core
    if maxiters * per_step > MAX_RUN_SECONDS:  # 2**31 - 1 steps of lr = 1e-30 (tol never met) ran 33 h
        raise ValueError(f"GDMap: maxiters={maxiters} would run for at least {maxiters * per_step:.3g} s if "
                         f"tol is never met, past the limit of {MAX_RUN_SECONDS:g} s (MAX_RUN_SECONDS); pass "
                         f"maxiters <= {int(MAX_RUN_SECONDS / per_step)}")
    lr = dtype.type(algorithm.lr)
    blowup = DIVERGENCE_FACTOR * (1.0 + float(np.linalg.norm(z)))
    monitor = IterationMonitor(options, total=maxiters, desc="GDMap")
    stats = Stats()
    retcode = RetCode.MaxIters
    g = problem._grad(z)
    stats.grad_calls += 1
    for k in range(maxiters):
        with np.errstate(over="ignore", invalid="ignore"):
            z_new = (z - lr * g).astype(dtype, copy=False)
            g_new = problem._grad(z_new)
        stats.grad_calls += 1
        stats.iterations = k + 1
        finite = bool(np.all(np.isfinite(z_new)) and np.all(np.isfinite(g_new)))
        if not finite or float(np.linalg.norm(z_new)) > blowup:
            retcode = RetCode.Diverged  # keep the last iterate within bounds
            break
        z, g = z_new, g_new
        gnorm = float(np.linalg.norm(g))
        if monitor.record(iteration=k + 1, value=problem._value(z), grad_norm=gnorm):
            retcode = RetCode.Terminated
            break
        if gnorm <= tol:
            retcode = RetCode.Success
            break
    if options.store_trace and not monitor.trace:
        monitor.trace.append({"iteration": 0, "value": problem._value(z),
                              "grad_norm": float(np.linalg.norm(g))})
    monitor.close()
    value = problem._value(z)
    return Solution(x=z, value=value, retcode=retcode, stats=stats, trace=monitor.trace)
