"""Flat-parameter views of a model and its derivatives via ``torch.func``.

A scalar loss ``loss(params_dict)`` becomes a function of one flat vector θ, so
that Hessians are plain matrices and Hessian-vector products are plain vectors.
For a ``torch.nn.Module``, :func:`module_params` and :func:`flat_forward` give
that view of the module itself (``torch.func.functional_call``): the module's
own weights are never modified.

The batched transforms run with ``randomness="same"``: a function that builds a
seeded module inside the loss (its initialization draws random numbers) is
then differentiated as the deterministic function it is, instead of failing
under ``vmap``'s default refusal of random operations.

>>> from algorithms.nets.two_layer import TwoLayerReLU
>>> net = TwoLayerReLU(in_features=2, width=3, seed=0)
>>> theta, f = flat_forward(net)
>>> X = torch.ones(4, 2, dtype=torch.float64)
>>> theta.shape, bool(torch.equal(f(theta, X), net(X)))
(torch.Size([12]), True)
>>> flat_hessian(lambda t: f(t, X).square().mean(), theta).shape
torch.Size([12, 12])
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import torch
from torch.func import functional_call, grad_and_value, jacfwd, jacrev, jvp, vmap

from algorithms._validation import (
    UserCallableError,
    check_finite_data,
    check_takes,
    precision_rank,
    refuse_sparse,
)

__all__ = [
    "flat_forward",
    "flat_hessian",
    "flat_hvp",
    "flatten_params",
    "module_params",
    "per_sample_flat_grads",
    "per_sample_flat_hessians",
]

Params = dict[str, torch.Tensor]

# functional_call swaps the module's parameters for the given ones during the call and swaps them back:
# two threads calling it on one module (two solves sharing a problem) would each run on the other's weights.
_SWAP_LOCK = threading.RLock()


def functional_forward(module: torch.nn.Module, params: Params, args: tuple) -> Any:
    """``torch.func.functional_call(module, params, args)``, one thread at a time per process (internal).

    The call temporarily swaps ``module``'s parameters; the lock makes concurrent calls on one module
    (two solves sharing a problem) safe. Autograd through the result does not need the lock.
    """
    with _SWAP_LOCK:
        return functional_call(module, params, args)


def flatten_params(params: Params) -> tuple[torch.Tensor, Callable[[torch.Tensor], Params]]:
    """Return θ (concatenated, in key order) and the map θ -> params dict.

    ``params``: a non-empty dict of dense real floating tensors of one dtype, with finite entries
    (NaN/inf, meta, sparse, integer and complex tensors are refused naming the entry). The map takes a
    finite tensor of θ's shape and dtype (another dtype, a float32 θ of float64 parameters included, is
    refused naming theta: it would come back as parameters of that dtype).

    >>> theta, unflatten = flatten_params({"a": torch.ones(2), "B": torch.zeros(1, 2)})
    >>> theta.tolist(), unflatten(theta)["B"].shape
    ([1.0, 1.0, 0.0, 0.0], torch.Size([1, 2]))
    """
    return _flatten_params(params, finite=True)


def _flatten_params(params: Params, *, finite: bool) -> tuple[torch.Tensor, Callable[[torch.Tensor], Params]]:
    """:func:`flatten_params`; ``finite=False`` lets NaN/inf entries through (a diverged run's final
    parameters, flattened into its Solution)."""
    if not isinstance(params, dict) or not params:
        raise TypeError(f"params must be a non-empty dict of tensors, got {type(params).__name__}")
    keys = [k for k in params if not isinstance(k, str)]
    if keys:        # an int key was flattened and unflattened as a "name" in silence
        raise TypeError(f"params must map str names to tensors (as named_parameters()), got the keys "
                        f"{keys[:5]!r}")
    bad = [k for k, v in params.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise TypeError(f"params must map names to torch tensors; {bad} are "
                        f"{sorted({type(params[k]).__name__ for k in bad})}")
    keys = list(params)
    for k in keys:
        refuse_sparse(f"params[{k!r}]", params[k])   # torch's reshape failed on a sparse tensor
        if finite and params[k].is_floating_point():
            check_finite_data(f"params[{k!r}]", params[k])      # NaN/inf (and meta) named
    integral = [k for k in keys if not params[k].is_floating_point()]
    if integral:  # an integer parameter has no gradient; a complex one would be cast later
        raise TypeError(f"params must be floating tensors (parameters), got {integral} of dtype "
                        f"{params[integral[0]].dtype}")
    dtypes = {k: params[k].dtype for k in keys}
    if len(set(dtypes.values())) > 1:
        # torch.cat promotes to the widest dtype and unflatten would hand every parameter back in it
        raise TypeError(f"params must share one dtype (one flat theta holds them all), got "
                        f"{ {k: str(d).removeprefix('torch.') for k, d in dtypes.items()} }")
    shapes = [params[k].shape for k in keys]
    sizes = [params[k].numel() for k in keys]
    theta = torch.cat([params[k].reshape(-1) for k in keys])

    total = sum(sizes)

    flat_dtype = theta.dtype

    def unflatten(theta: torch.Tensor) -> Params:
        # the parameter is theta, as the messages and the docstring say (it was `vector`: unflatten(theta=...)
        # was a TypeError and the messages named an argument the signature did not have)
        if not isinstance(theta, torch.Tensor) or tuple(theta.shape) != (total,):
            # a short theta would otherwise reach torch.split (or, through functional_call, leave the
            # module's own values in the missing parameters)
            got = (f"shape {tuple(theta.shape)}" if isinstance(theta, torch.Tensor)
                   else type(theta).__name__)
            raise ValueError(f"the flat parameter vector theta must have shape ({total},) (the parameters "
                             f"{keys}), got {got}")
        if theta.dtype != flat_dtype:
            # an int theta would come back as int parameters, a complex one would be cast later, and a
            # float32 (or half) theta of float64 parameters came back as float32 parameters in silence
            raise TypeError(f"the flat parameter vector theta must be a real floating tensor of the "
                            f"parameters' dtype {flat_dtype}, got {theta.dtype} (convert it with "
                            f".to({flat_dtype}))")
        # a NaN/inf or meta theta came back as NaN / data-less parameters; skipped under vmap (torch.func's
        # grad, jacrev, jacfwd and hessian pass it). No range check: theta here is mostly a run's own iterate
        # (a diverging run past 3.4e38 is Diverged, it raised "theta has an entry of magnitude ..."); the
        # public entry points check a user's theta themselves
        check_finite_data("theta", theta, check_range=False)
        chunks = torch.split(theta, sizes)
        return {k: c.reshape(s) for k, c, s in zip(keys, chunks, shapes)}

    return theta, unflatten


def module_params(module: torch.nn.Module) -> Params:
    """The module's parameters as a dict of detached tensors, in registration order.

    ``module``: a ``torch.nn.Module`` whose floating parameters are finite and hold data (NaN/inf weights
    and a meta-device module are refused naming module: the flat view of such a module is no point to
    differentiate at)."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    params = {name: p.detach() for name, p in module.named_parameters()}
    for name, p in params.items():
        if p.device.type == "meta":
            raise ValueError(f"module is on the meta device (its parameter {name!r} has no data): "
                             f"materialize the model first")
        if p.is_floating_point() and not bool(torch.isfinite(p).all()):
            raise ValueError(f"module has NaN or inf entries in its parameter {name!r} (a model with "
                             f"non-finite weights has no point to differentiate at)")
    return params


def _check_buffers(module: torch.nn.Module) -> None:
    """The module's floating buffers free of NaN (an inf is kept: a causal mask of -inf is a valid buffer) and
    a running mean/variance finite (the variance >= 0), else a ValueError naming the buffer: ``f`` reads them,
    and a NaN or negative ``running_var`` answered NaN for finite θ and X in silence (red23a)."""
    for name, buffer in module.named_buffers():
        if not buffer.is_floating_point() or buffer.device.type == "meta":
            continue
        leaf = name.rsplit(".", 1)[-1]
        statistic = leaf in ("running_mean", "running_var")
        if bool(torch.isnan(buffer).any()) or (statistic and not bool(torch.isfinite(buffer).all())):
            raise ValueError(f"module has {'NaN or inf' if statistic else 'NaN'} entries in its buffer "
                             f"{name!r} (f reads its buffers: the outputs would be NaN)")
        if leaf == "running_var" and bool((buffer < 0).any()):
            raise ValueError(f"module's buffer {name!r} (a running variance) has negative entries; a "
                             f"variance is >= 0 (its square root would be NaN)")


def flat_forward(module: torch.nn.Module) -> tuple[torch.Tensor, Callable[[torch.Tensor, torch.Tensor],
                                                                          torch.Tensor]]:
    """θ (the module's parameters, flattened) and ``f(θ, X) = module(X)`` at the parameters θ.

    ``f`` goes through ``torch.func.functional_call``, so ``torch.func`` transforms
    (``grad``, ``hessian``, ``vmap``) differentiate it with respect to θ. ``X`` is a finite torch tensor
    of θ's dtype whose shape the module takes (else TypeError/ValueError naming X); the θ given to ``f`` is
    a finite tensor of θ's shape and dtype with entries of magnitude <= 3.4e38 (the working range; NaN, inf
    or 1e39 raise ValueError naming theta). ``module`` (a
    ``torch.nn.Module`` with finite parameters, floating buffers without NaN (a -inf mask is fine) and a
    BatchNorm's ``running_mean``/``running_var`` finite, the variance >= 0: checked here and at every call
    of ``f``, which reads them, ValueError naming the buffer) is never
    modified: ``f`` runs on copies of its buffers, so a train-mode BatchNorm's running statistics stay as
    they were.
    """
    params = module_params(module)
    if not params:
        raise ValueError(f"module must have parameters to flatten, got a {type(module).__name__} with none")
    theta, unflatten = flatten_params(params)
    _check_buffers(module)

    def forward(vector: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        if not isinstance(vector, torch.Tensor):     # a str or None reached .dtype (AttributeError)
            raise TypeError(f"theta must be a flat parameter tensor of shape ({theta.numel()},), got "
                            f"{type(vector).__name__}")
        if vector.dtype != theta.dtype:  # torch's matmul error names neither θ nor the module
            raise TypeError(f"theta must have the module's dtype {theta.dtype}, got {vector.dtype} "
                            "(convert one of them with .to(...))")
        # entries past 3.4e38 (the working range) were used, answering outputs of 1e79; NaN/inf named too
        # (skipped under vmap, where the batched call's entry checks its θ)
        check_finite_data("theta", vector)
        # X: a tensor of theta's dtype (numpy or float32 X met torch's own linear()/matmul errors)
        if not isinstance(X, torch.Tensor):
            raise TypeError(f"X must be a torch tensor, got {type(X).__name__}")
        if X.dtype != vector.dtype:
            raise TypeError(f"X must have theta's dtype {vector.dtype}, got {X.dtype} (convert one of them "
                            f"with .to(...))")
        check_finite_data("X", X)      # NaN/inf X answered NaN (skipped under vmap, checked at its entry)
        _check_buffers(module)          # read at every call: one written after flat_forward returned too
        # the module's buffers as copies: a train-mode BatchNorm's running statistics were updated in the
        # user's module at every call
        state = {**unflatten(vector), **{k: b.clone() for k, b in module.named_buffers()}}
        try:
            return functional_forward(module, state, (X,))
        except RuntimeError as exc:   # a shape the module cannot take: torch's matmul message named nothing
            if "shape" not in str(exc) and "size" not in str(exc):
                raise
            raise ValueError(f"X of shape {tuple(X.shape)} does not fit {type(module).__name__}: "
                             f"{exc}") from None

    return theta, forward


def _check_function(name: str, fn, n_args: int = 1) -> None:
    if not callable(fn):
        raise TypeError(f"{name} must be callable, got {type(fn).__name__}")
    # Python's "takes 0 positional arguments but 1 was given" named neither the argument nor its call
    check_takes(name, fn, "loss(theta)" if n_args == 1 else "sample_loss(theta, x, y)", n_args)


def _check_theta(theta) -> None:
    if not isinstance(theta, torch.Tensor) or theta.ndim != 1 or not theta.is_floating_point():
        what = (f"shape {tuple(theta.shape)}, dtype {theta.dtype}" if isinstance(theta, torch.Tensor)
                else type(theta).__name__)
        raise TypeError(f"theta must be a 1-D floating torch tensor (a flat parameter vector), got {what}")
    if theta.dtype in (torch.float16, torch.bfloat16):  # the derivatives would be rounded to half
        raise TypeError(f"theta must be float32 or float64, got {theta.dtype}")
    refuse_sparse("theta", theta)   # torch.func failed on a sparse tensor, naming nothing
    if theta.numel() == 0:
        raise ValueError("theta must hold at least one parameter, got shape (0,)")
    check_finite_data("theta", theta)   # NaN/inf: the derivatives at θ are not defined


def _check_data(name: str, value: torch.Tensor, theta: torch.Tensor) -> None:
    """A data tensor beside θ: dense, numeric (not bool), real (complex failed inside torch.func), finite,
    not half precision."""
    refuse_sparse(name, value)
    if value.dtype == torch.bool:       # True/False reached the user's loss as numbers or failed inside it
        raise TypeError(f"{name} must be numeric, got a bool tensor (.to(theta.dtype) if 0/1 is meant)")
    if value.is_complex():
        raise TypeError(f"{name} must be real, got {value.dtype}")
    if value.dtype in (torch.float16, torch.bfloat16):
        raise TypeError(f"{name} must not be half precision (theta is {theta.dtype}), got {value.dtype}")
    check_finite_data(name, value)


def _check_samples(theta, X, y) -> None:
    _check_theta(theta)
    for name, value in (("X", X), ("y", y)):
        if not isinstance(value, torch.Tensor) or value.ndim == 0:
            got = "a 0-d tensor" if isinstance(value, torch.Tensor) else type(value).__name__
            raise TypeError(f"{name} must be a torch tensor with a leading sample axis, got {got}")
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X and y must have the same number of samples, got {X.shape[0]} and {y.shape[0]}")
    if X.dtype != theta.dtype:  # else torch: "addmv ... same dtype" (an int64 X too, as documented)
        raise TypeError(f"X must have theta's dtype {theta.dtype}, got {X.dtype} (convert one with .to(...))")
    if X.device != theta.device:
        raise ValueError(f"X must be on theta's device {theta.device}, got a tensor on {X.device}")
    if X.shape[0] == 0:  # torch.func's vmap over no sample fails with an IndexError
        raise ValueError("X and y must hold at least one sample, got 0")
    _check_data("X", X, theta)
    _check_data("y", y, theta)


def _hessian(fn: Callable) -> Callable:
    return jacfwd(jacrev(fn), randomness="same")


def flat_hessian(loss: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor) -> torch.Tensor:
    """∇²loss(θ) as a dense (d, d) matrix (forward-over-reverse, as ``torch.func.hessian``).

    ``loss`` maps θ to a finite scalar tensor (at least θ's precision) with torch operations, with a finite
    Hessian at θ (a NaN or inf entry raises ValueError naming loss, as in :func:`flat_hvp`); ``theta`` is a
    finite 1-D float32/float64 tensor (a flat parameter vector). ``loss`` gets a copy of θ: one that writes
    into it is refused, a TypeError naming loss (the Hessian would be taken at another point).
    """
    _check_function("loss", loss)
    _check_theta(theta)
    # a contiguous copy: an expanded (stride-0) θ failed inside torch.func's make_dual, and an fn writing into
    # its argument past torch.func's in-place check (under no_grad, through .data) changed the caller's θ
    theta = theta.clone(memory_format=torch.contiguous_format)
    before = theta.clone()
    _check_finite_loss("loss", _through_loss(lambda: loss(theta)), theta)   # one evaluation beside the d
    refuse_written("loss", (theta,), (before,))
    hessian = _through_loss(lambda: _hessian(loss)(theta))
    refuse_written("loss", (theta,), (before,))
    if tuple(hessian.shape) != (theta.numel(), theta.numel()):  # a vector loss gives a stack of them
        raise TypeError(f"loss must return a scalar (a 0-d tensor), got an output of shape "
                        f"{tuple(hessian.shape[:hessian.ndim - 2])}")
    if not bool(torch.isfinite(hessian).all()):   # as flat_hvp: NaN entries were returned (red20a)
        raise ValueError("loss has a NaN or inf second derivative at theta (the Hessian is not finite)")
    return hessian


def flat_hvp(loss: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor,
             vector: torch.Tensor) -> torch.Tensor:
    """∇²loss(θ) v without forming the Hessian (forward-over-reverse).

    ``loss`` maps θ to a finite scalar tensor (at least θ's precision) with torch operations;
    ``theta`` is a finite 1-D
    float32/float64 tensor (a flat parameter vector); ``vector`` a finite tensor of its shape and dtype.
    ``loss`` gets a copy of θ: one that writes into it is refused, a TypeError naming loss.
    """
    _check_function("loss", loss)
    _check_theta(theta)
    if not isinstance(vector, torch.Tensor) or vector.shape != theta.shape:
        got = tuple(vector.shape) if isinstance(vector, torch.Tensor) else type(vector).__name__
        raise ValueError(f"vector must be a tensor of theta's shape {tuple(theta.shape)}, got {got}")
    if vector.dtype != theta.dtype:  # a complex or half vector was cast (or its imaginary part dropped)
        raise TypeError(f"vector must have theta's dtype {theta.dtype}, got {vector.dtype}")
    refuse_sparse("vector", vector)
    check_finite_data("vector", vector)
    # copies, as flat_hessian's; the vector too: a loss writing through .data reached the caller's vector
    theta, vector = (t.clone(memory_format=torch.contiguous_format) for t in (theta, vector))
    before = (theta.clone(), vector.clone())
    (_, value), (product, _) = _through_loss(lambda: jvp(grad_and_value(loss), (theta,), (vector,)))
    refuse_written("loss", (theta, vector), before)
    _check_finite_loss("loss", value, theta)
    if not bool(torch.isfinite(product).all()):
        raise ValueError("loss has a NaN or inf second derivative at theta (the Hessian-vector product is "
                         "not finite)")
    return product


def refuse_written(name: str, given: tuple[torch.Tensor, ...], before: tuple[torch.Tensor, ...],
                   what: str = "theta") -> None:
    """The copies a user callable was given, unchanged by it: one that wrote into its θ (under no_grad,
    through .data) after using it moved the point every later evaluation saw, and the derivative was taken
    at another point in silence (red23a); a TypeError naming ``name``, as torch's own in-place complaint."""
    if any(not torch.equal(now, then) for now, then in zip(given, before, strict=True)):
        raise TypeError(f"{name} must not modify its input in place: it wrote into its {what} during the "
                        f"call (the derivatives would be taken at another point); compute on a copy")


def _check_finite_loss(name: str, value: Any, theta: torch.Tensor | None = None) -> None:
    """The user's loss at θ: a real 0-d tensor with a finite value (a NaN loss gave a zero Hessian or NaN
    derivatives in silence), at least as precise as θ (a float16 loss of a float64 θ was differentiated
    through its rounded value in silence)."""
    if not isinstance(value, torch.Tensor) or value.numel() != 1 or not value.is_floating_point():
        # a bool or int output has no gradient: derivatives of 0 were returned in silence
        got = (f"shape {tuple(value.shape)}, dtype {value.dtype}" if isinstance(value, torch.Tensor)
               else type(value).__name__)
        raise TypeError(f"{name} must return a scalar (a 0-d real floating tensor), got {got}")
    if theta is not None and precision_rank(value) < precision_rank(theta):
        raise TypeError(f"{name} must return a value of theta's precision {theta.dtype}, got {value.dtype} "
                        f"(its derivatives would be computed through the rounded value)")
    try:
        finite = bool(torch.isfinite(value).all())
    except RuntimeError:  # inside vmap
        return
    if not finite:
        raise ValueError(f"{name} returned NaN or inf at theta ({float(value)})")


def _check_precision(values: torch.Tensor, theta: torch.Tensor) -> None:
    """Per-sample losses at least as precise as θ (as :func:`_check_finite_loss`'s)."""
    if values.is_floating_point() and precision_rank(values) < precision_rank(theta):
        raise TypeError(f"sample_loss must return values of theta's precision {theta.dtype}, got "
                        f"{values.dtype} (its derivatives would be computed through the rounded values)")


def _through_loss(run: Callable[[], torch.Tensor], name: str = "loss") -> torch.Tensor:
    """``run()``, with torch.func's complaint about the loss's output re-raised naming ``name``."""
    try:
        return run()
    except (TypeError, ValueError, RuntimeError) as exc:
        _rename_torch_error(name, exc)
        if isinstance(exc, RuntimeError) and not isinstance(exc, ValueError):
            # torch's own error inside the user's loss (a shape mismatch, the loss's RuntimeError) reached
            # the caller bare; other families name the callable
            raise UserCallableError(f"{name} raised RuntimeError: {str(exc)[:200]}") from exc
        raise
    except Exception as exc:
        # the user's own KeyError / ZeroDivisionError reached the caller bare, naming neither the callable
        # nor the call (our checks and torch's raise TypeError/ValueError/RuntimeError, handled above)
        raise UserCallableError(f"{name} raised {type(exc).__name__}: {str(exc)[:200]}") from exc


def _rename_torch_error(name: str, exc: Exception) -> None:
    """torch.func's complaint about the loss's output, re-raised naming ``name`` (else nothing)."""
    if isinstance(exc, RuntimeError | ValueError):  # vmap says "must only return Tensors" with a ValueError
        text = str(exc)
        if any(t in text for t in ("to return only tensors", "to return a scalar Tensor",
                                   "to return a Tensor", "must only return Tensors")):  # a str or None
            raise TypeError(f"{name} must return a scalar (a 0-d tensor): {text}") from None
        if "in-place operation" in text or "modified by an inplace operation" in text:
            raise TypeError(f"{name} must not modify its input in place (use out-of-place operations): "
                            f"{text}") from None
        if "real scalar outputs" in text or "must be floating-point" in text:
            raise TypeError(f"{name} must return a real floating-point scalar: {text}") from None


def _own_copies(theta: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Contiguous copies of what ``sample_loss`` is given: one writing into its ``x``, ``y`` or ``θ`` (under
    ``no_grad``, through ``.data``) changed the caller's X, y or θ (an expanded, stride-0 θ also failed
    inside torch.func's make_dual)."""
    return tuple(t.clone(memory_format=torch.contiguous_format) for t in (theta, X, y))


def per_sample_flat_grads(sample_loss: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
                          theta: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Rows ∇_θ ℓ(θ; x_i, y_i), shape (n, d); ``sample_loss(θ, x, y)`` takes one sample and returns its
    loss, a scalar at least as precise as θ (a float32 loss of a float64 θ is refused naming sample_loss).

    ``theta`` is a finite 1-D float32/float64 tensor (a flat parameter vector); ``X`` and ``y`` tensors
    with one leading sample axis of one length, ``X`` of θ's dtype; ``y`` reaches ``sample_loss`` in its
    own dtype (integer class labels, or float32 targets beside a float64 θ, which torch's arithmetic then
    promotes to θ's dtype), real, finite and not half precision. ``sample_loss`` runs on copies of θ, X
    and y (the caller's tensors are never written): one writing into its inputs is refused, a TypeError
    naming sample_loss. A NaN or inf loss or gradient
    of a sample raises ValueError naming sample_loss and the sample.
    """
    _check_function("sample_loss", sample_loss, 3)
    _check_samples(theta, X, y)
    theta, X, y = _own_copies(theta, X, y)
    per_sample = vmap(grad_and_value(sample_loss), in_dims=(None, 0, 0), randomness="same")
    before = tuple(t.clone() for t in (theta, X, y))
    grads, values = _through_loss(lambda: per_sample(theta, X, y), "sample_loss")
    refuse_written("sample_loss", (theta, X, y), before, "theta, x or y")
    _check_precision(values, theta)
    if not bool(torch.isfinite(values).all()):
        raise ValueError(f"sample_loss returned NaN or inf for sample "
                         f"{int((~torch.isfinite(values)).nonzero()[0, 0])}")
    _check_finite_rows("gradient", grads)
    return grads


def _check_finite_rows(what: str, rows: torch.Tensor) -> None:
    """A finite loss whose derivative is NaN/inf at θ (sqrt|t| at 0): NaN rows were returned (red20a)."""
    bad = ~torch.isfinite(rows.reshape(rows.shape[0], -1)).all(dim=1)
    if bool(bad.any()):
        raise ValueError(f"sample_loss has a NaN or inf {what} at theta for sample "
                         f"{int(bad.nonzero()[0, 0])}")


def per_sample_flat_hessians(
    sample_loss: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
    theta: torch.Tensor, X: torch.Tensor, y: torch.Tensor,
) -> torch.Tensor:
    """Stack of ∇²_θ ℓ(θ; x_i, y_i), shape (n, d, d).

    ``sample_loss(θ, x, y)`` returns one sample's finite scalar loss (at least θ's precision);
    ``theta`` is a finite 1-D
    float32/float64 tensor (a flat parameter vector); ``X`` and ``y`` tensors with one leading sample axis
    of one length, ``X`` of θ's dtype; ``y`` reaches ``sample_loss`` in its own dtype (integer class
    labels, or float32 targets beside a float64 θ, which torch's arithmetic then promotes to θ's dtype),
    real, finite and not half precision. ``sample_loss`` runs on copies of θ, X and y (the caller's tensors
    are never written): one writing into its inputs is refused, naming sample_loss. A NaN or inf loss or
    Hessian entry of a sample raises ValueError naming sample_loss and the sample.
    """
    _check_function("sample_loss", sample_loss, 3)
    _check_samples(theta, X, y)
    theta, X, y = _own_copies(theta, X, y)
    before = tuple(t.clone() for t in (theta, X, y))
    values = _through_loss(lambda: vmap(sample_loss, in_dims=(None, 0, 0), randomness="same")(theta, X, y),
                           "sample_loss")
    refuse_written("sample_loss", (theta, X, y), before, "theta, x or y")
    if isinstance(values, torch.Tensor) and values.is_floating_point():
        _check_precision(values, theta)
    if isinstance(values, torch.Tensor) and values.ndim == 1 and not bool(torch.isfinite(values).all()):
        raise ValueError(f"sample_loss returned NaN or inf for sample "
                         f"{int((~torch.isfinite(values)).nonzero()[0, 0])}")
    per_sample = vmap(_hessian(sample_loss), in_dims=(None, 0, 0), randomness="same")
    hessians = _through_loss(lambda: per_sample(theta, X, y), "sample_loss")
    refuse_written("sample_loss", (theta, X, y), before, "theta, x or y")
    d = theta.numel()
    if tuple(hessians.shape) != (X.shape[0], d, d):  # a vector loss gives a stack of Hessians per sample
        raise TypeError(f"sample_loss must return a scalar (a 0-d tensor) per sample, got an output of "
                        f"shape {tuple(hessians.shape[1:hessians.ndim - 2])}")
    _check_finite_rows("second derivative", hessians)
    return hessians
