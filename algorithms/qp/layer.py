"""dQP as a batched, differentiable torch layer (``torch.autograd.Function`` + ``nn.Module``).

The forward solves each QP of the batch with :class:`~algorithms.qp.DQP` (any
qpsolvers backend) and keeps its reduced-KKT factorization; the backward is
the VJP of :meth:`~algorithms.qp.QPSolution.vjp` on that same factorization,
so no matrix is factorized twice.

Inputs are torch tensors, dense, with an optional leading batch dimension
(unbatched inputs are shared by the batch and their gradient is summed over
it), or scipy.sparse matrices for ``P``, ``G``, ``A``, which are treated as
constants (no gradient; useful for large sparse problems such as projections).
Each item is validated exactly as :class:`~algorithms.qp.QP` validates its data
(symmetric positive semidefinite ``P``, shapes, finiteness): the layer builds a ``QP``
per item, so there is one validation. Computations run in float64; the output has the one floating
dtype of the inputs (float32 or float64; mixed ones are refused, as torch's matmul refuses them;
float64 when all are integer tensors: integer inputs are promoted). Bool and half-precision tensors
(float16, bfloat16) and tensors on the meta device are refused by name.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch.autograd.function import once_differentiable

from algorithms._validation import (
    check_bool,
    check_working_range,
    refuse_unknown_attribute,
    revalidate_if_reassigned,
)
from algorithms.core import RetCode, SolveOptions
from algorithms.qp._threads import single_blas_thread
from algorithms.qp.dqp import DQP, forward
from algorithms.qp.problem import QP

__all__ = ["QPFunction", "QPLayer", "QPLayerError", "qp_layer"]


class QPLayerError(RuntimeError, ValueError):
    """A QP of the layer has no solution to differentiate (infeasible, unbounded, or the backend's answer
    fails the KKT check at the requested ``tol``). A ``RuntimeError`` (as documented since the layer
    existed) and a ``ValueError`` (the inputs admit no answer); the message names the QP or batch item,
    its retcode and the arguments to look at."""


#: what each retcode of a failed item says about the layer's arguments
_CULPRITS = {
    RetCode.Infeasible: "the constraints G, h, A, b, lb, ub admit no feasible point",
    RetCode.Unbounded: "P, q: the objective is unbounded below on the feasible set",
}

_NAMES = ("P", "q", "G", "h", "A", "b", "lb", "ub")
#: batches of QPs with at most this many variables run with one BLAS thread, set once per batch (a
#: multi-threaded BLAS spent 5-10× longer waking threads than solving 32 QPs of 5 variables, issue #42);
#: larger problems get the limit per solve, in ``forward`` (``algorithms.qp._threads``)
SMALL_N = 64


def _blas_threads(n: int):
    return single_blas_thread(n) if n <= SMALL_N else contextlib.nullcontext()


_BASE_NDIM = {"P": 2, "q": 1, "G": 2, "h": 1, "A": 2, "b": 1, "lb": 1, "ub": 1}


def _to_numpy(name: str, value: Any, k: int, batched: bool):
    if value is None:
        return None
    if sp.issparse(value):  # a constant: kept as it is when already CSC float64
        return value if (value.format == "csc" and value.dtype == np.float64) \
            else sp.csc_matrix(value, dtype=np.float64)
    item = value[k] if batched else value
    return item.detach().cpu().to(torch.float64).numpy()


def _output_dtype(inputs: dict[str, Any]) -> torch.dtype:
    """The one floating dtype of the tensor inputs (float64 when none is floating: integer inputs are
    promoted); mixed float32/float64 inputs are refused, naming them, as torch's matmul refuses them."""
    floating = {k: v.dtype for k, v in inputs.items() if torch.is_tensor(v) and v.is_floating_point()}
    if len(set(floating.values())) > 1:
        shown = ", ".join(f"{k}: {str(d).replace('torch.', '')}" for k, d in floating.items())
        raise TypeError(f"P, q, G, h, A, b, lb, ub must share one floating dtype, got {shown} (convert "
                        f"with .to(torch.float64) or .double())")
    return next(iter(floating.values()), torch.float64)


def _check_inputs(P, q, G, h, A, b, lb, ub) -> None:
    """The layer's inputs by name: tensors (or scipy.sparse P, G, A), real, dense, float32/float64 or
    integer, with data, of the base or the batched rank; G/h and A/b in pairs."""
    if not torch.is_tensor(q):
        raise TypeError(f"q must be a torch tensor, got {type(q).__name__}")
    for name, value in zip(_NAMES, (P, q, G, h, A, b, lb, ub)):
        if value is not None and not (torch.is_tensor(value) or (name in "PGA" and sp.issparse(value))):
            extra = " or scipy.sparse matrix" if name in "PGA" else ""
            raise TypeError(f"{name} must be a torch tensor{extra}")
        if (torch.is_tensor(value) and value.is_complex()) or (sp.issparse(value)
                                                                and np.iscomplexobj(value.data)):
            raise TypeError(f"{name} must be real, got complex dtype {value.dtype}")  # .real would drop it
        if torch.is_tensor(value) and value.layout != torch.strided:  # torch's "can't convert Sparse layout"
            raise TypeError(f"{name} must be a dense (strided) tensor, got layout {value.layout} (pass a "
                            f"constant sparse matrix as scipy.sparse, or use .to_dense())")
        if torch.is_tensor(value):
            # bool entries would count as 0/1 and half precision is not a dtype the float64 solve can
            # give back faithfully (torch.linalg refuses both); a meta tensor has no data to solve with
            if value.dtype == torch.bool or value.dtype in (torch.float16, torch.bfloat16):
                raise TypeError(f"{name} must be a float32/float64 (or integer) tensor, got {value.dtype}")
            if value.device.type == "meta":
                raise ValueError(f"{name} is on the meta device (no data); move it to a real device")
        if torch.is_tensor(value) and value.dim() not in (_BASE_NDIM[name], _BASE_NDIM[name] + 1):
            raise ValueError(f"{name} must have {_BASE_NDIM[name]} or {_BASE_NDIM[name] + 1} dimensions "
                             f"(optional leading batch), got shape {tuple(value.shape)}")
    if (G is None) != (h is None):
        raise ValueError("G and h must be given together")
    if (A is None) != (b is None):
        raise ValueError("A and b must be given together")


class QPFunction(torch.autograd.Function):
    """``x* = argmin ½xᵀPx + qᵀx s.t. Ax = b, Gx ≤ h`` for each batch item (see :func:`qp_layer`)."""

    @staticmethod
    def forward(ctx, algorithm: DQP, options: SolveOptions, P, q, G, h, A, b, lb=None, ub=None):
        # QPFunction.apply is public: None or a str here met AttributeError ('NoneType' ... 'abs_tol')
        if not isinstance(algorithm, DQP):
            raise TypeError(f"algorithm must be an algorithms.qp.DQP, got {type(algorithm).__name__}")
        if not isinstance(options, SolveOptions):
            raise TypeError(f"options must be an algorithms.core.SolveOptions, got {type(options).__name__}")
        # a DQP changed through object.__setattr__ (kkt_tol = -1) ran as it was, its Failure blaming the data:
        # validated again, as core.solve does before every solve
        revalidate_if_reassigned(algorithm)
        _check_inputs(P, q, G, h, A, b, lb, ub)  # apply() called directly skips qp_layer's checks
        inputs = dict(zip(_NAMES, (P, q, G, h, A, b, lb, ub)))
        batched = {
            k: (torch.is_tensor(v) and v.dim() == _BASE_NDIM[k] + 1) for k, v in inputs.items()
        }
        sizes = {inputs[k].shape[0] for k in _NAMES if batched[k]}
        if len(sizes) > 1:   # name each batched input with its size: the user must find the odd one
            each = ", ".join(f"{k}: {inputs[k].shape[0]}" for k in _NAMES if batched[k])
            raise ValueError(f"inputs disagree on the batch size (the leading dimension): {each}")
        batch = sizes.pop() if sizes else None
        dtype = _output_dtype(inputs)  # refuse mixed dtypes before any solve
        if batch == 0:  # an empty batch: an empty answer, as torch's batched ops give (item 0 was indexed)
            ctx.solutions, ctx.batched, ctx.batch = [], batched, 0
            ctx.shapes = {k: tuple(v.shape) for k, v in inputs.items() if torch.is_tensor(v)}
            ctx.inputs_meta = {k: (True, v.dtype, v.device) if torch.is_tensor(v) else (False, None, None)
                               for k, v in inputs.items()}
            return torch.zeros(0, q.shape[-1], dtype=dtype, device=q.device)
        with _blas_threads(int(q.shape[-1])):
            return QPFunction._forward(ctx, algorithm, options, inputs, batched, batch, q)

    @staticmethod
    def _forward(ctx, algorithm, options, inputs, batched, batch, q):
        solutions, xs = [], []
        degenerate = []
        for k in range(batch or 1):
            where = f"batch item {k}" if batch is not None else "the QP"
            data = {name: _to_numpy(name, inputs[name], k, batched[name]) for name in _NAMES}
            try:
                qp = QP(**data)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{exc} ({where})" if batch is not None else str(exc)) from None
            sol = forward(qp, algorithm, options)
            if sol.retcode is not RetCode.Success:
                culprit = _CULPRITS.get(sol.retcode, f"no answer within the tolerance tol = {options.tol!r} "
                                                     f"(None: the backend's default) and the algorithm's "
                                                     f"kkt_tol; check P, q, G, h, A, b, lb, ub and tol")
                raise QPLayerError(
                    f"dQP layer: {where} ended with retcode {sol.retcode.value}: {culprit} "
                    f"({'; '.join(sol.warnings)})"
                )
            if sol.degenerate:
                degenerate.append(k)
            solutions.append(sol)
            xs.append(np.asarray(sol.x, dtype=np.float64))
        if degenerate:
            warnings.warn(
                f"dQP layer: degenerate QP(s) at batch items {degenerate} "
                f"({solutions[degenerate[0]].warnings[0]}); gradients use a least-squares/one-sided K_J",
                RuntimeWarning, stacklevel=4,
            )
        ctx.solutions = solutions
        ctx.batched = batched
        ctx.batch = batch
        ctx.inputs_meta = {
            k: (True, v.dtype, v.device) if torch.is_tensor(v) else (False, None, None)
            for k, v in inputs.items()
        }
        out = np.stack(xs) if batch is not None else xs[0]
        return torch.as_tensor(out, dtype=_output_dtype(inputs), device=q.device)

    @staticmethod
    @once_differentiable  # the VJP runs in numpy: a second derivative (create_graph=True) would be silently
    # absent (a gradient without grad_fn, then torch's "does not require grad" naming nothing); torch's marker
    # says instead that the layer is differentiable once
    def backward(ctx, grad_out):
        g = grad_out.detach().cpu().to(torch.float64).numpy()
        need = dict(zip(_NAMES, ctx.needs_input_grad[2:]))
        if ctx.batch == 0:  # an empty batch: zero gradients of the inputs' shapes
            return (None, None, *(torch.zeros(ctx.shapes[n], dtype=ctx.inputs_meta[n][1],
                                              device=ctx.inputs_meta[n][2])
                                  if ctx.inputs_meta[n][0] and need[n] else None for n in _NAMES))
        wanted = tuple(name for name in _NAMES if ctx.inputs_meta[name][0] and need[name])
        per_item = []
        with _blas_threads(int(g.shape[-1])):
            for k, sol in enumerate(ctx.solutions):
                gk = g[k] if ctx.batch is not None else g
                # bounds that are all infinite (or absent on one side) leave no box: zero gradients
                known = tuple(w for w in wanted if w not in ("lb", "ub") or sol._box is not None)
                per_item.append(sol.vjp(gk, wrt=known))
        grads = []
        for name in _NAMES:
            is_tensor, dtype, device = ctx.inputs_meta[name]
            if not (is_tensor and need[name]):
                grads.append(None)
                continue
            items = [np.zeros(g.shape[-1]) if d.get(name) is None else np.asarray(d[name], dtype=np.float64)
                     for d in per_item]
            if ctx.batch is None:
                value = items[0]
            elif ctx.batched[name]:
                value = np.stack(items)
            else:
                value = np.sum(items, axis=0)
            grads.append(torch.as_tensor(value, dtype=dtype, device=device))
        return (None, None, *grads)


def qp_layer(P, q, G=None, h=None, A=None, b=None, *, lb=None, ub=None, algorithm: DQP | None = None,
             tol: float | None = None, symmetrize: bool = False):
    """Differentiable ``x*(P, q, G, h, A, b, lb, ub)`` of a (batch of) convex QP(s), by dQP.

    ``tol`` (None: the backend's default, or a float in the working range [1.18e-38, 3.4e38]) is the solve's
    tolerance.

    ``lb``/``ub`` (tensors, ±inf for a free side) are variable bounds, differentiated like the rest
    (zero gradient at an infinite bound).

    Cost: the batch is solved item by item (one backend solve, polish and KKT check per QP, in a Python
    loop: about 2-5 ms per small QP on one core), so the time grows linearly with the batch size: a batch of
    10**4 small QPs takes about a minute, 10**6 about two hours. There is no batch cap; split a huge batch
    (or use ``solve`` per QP) when that matters.

    Raises :class:`QPLayerError` (a ``RuntimeError`` and a ``ValueError``) when a QP has no solution to
    differentiate (infeasible, unbounded, or the backend's answer fails the KKT check, e.g. at a ``tol``
    below what float64 reaches), naming the QP or, in a batch, the failing item, its retcode and the arguments
    to check
    (a layer cannot return a partial batch; ``solve(QP(...), DQP())`` returns the retcode instead);
    ``ValueError``/``TypeError`` for invalid inputs, naming them; an empty batch gives an empty result.
    First derivatives only: the backward is marked ``once_differentiable`` (a second backward through the
    gradient raises torch's RuntimeError saying so).

    ``symmetrize=True`` solves with ``½(P + Pᵀ)``, the only part of ``P`` the objective ``½xᵀPx`` sees,
    so any square ``P`` is accepted and its gradient is the chain rule through that average: each
    entry of ``P`` moves on its own, as ``torch.autograd.gradcheck`` perturbs it (qpth's convention).
    Off by default: a ``P`` that is not symmetric is then an error (``QP``'s check), which catches a
    ``P`` built wrong; the gradient returned is the symmetric one either way.

    >>> import torch
    >>> P = torch.eye(2, dtype=torch.float64, requires_grad=True)
    >>> q = torch.tensor([-2.0, 0.5], dtype=torch.float64, requires_grad=True)
    >>> G, h = -torch.eye(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    >>> x = qp_layer(P, q, G, h, algorithm=DQP(backend="daqp"))   # projection of -q on x >= 0
    >>> x.detach().numpy().round(8)
    array([2., 0.])
    >>> x.sum().backward()
    >>> q.grad.numpy().round(8)
    array([-1.,  0.])
    """
    algorithm = DQP() if algorithm is None else algorithm
    if not isinstance(algorithm, DQP):
        raise TypeError(f"algorithm must be a DQP, got {type(algorithm).__name__}")
    _check_inputs(P, q, G, h, A, b, lb, ub)
    if check_bool("symmetrize", symmetrize):
        if torch.is_tensor(P) and P.shape[-1] != P.shape[-2]:
            raise ValueError(f"P must be square, got shape {tuple(P.shape)}")
        P = 0.5 * (P + (P.T if sp.issparse(P) else P.transpose(-1, -2)))
    return QPFunction.apply(algorithm, SolveOptions(tol=_layer_tol(tol)), P, q, G, h, A, b, lb, ub)


def _layer_tol(tol: Any) -> float | None:
    """The layer's ``tol``: None or a tolerance in the working range [1.18e-38, 3.4e38] (a positive scale:
    5e-324 or 1e308 were passed to the backend as given)."""
    tol = SolveOptions(tol=tol).tol
    return None if tol is None else check_working_range("tol", tol)


class QPLayer(torch.nn.Module):
    """``nn.Module`` form of :func:`qp_layer`: ``QPLayer(DQP(...))(P, q, G, h, A, b)``.

    ``algorithm`` is the :class:`DQP` that solves each QP (None: ``DQP()``); ``tol`` (None or a float > 0
    in [1.18e-38, 3.4e38]) and ``symmetrize`` (bool) as in :func:`qp_layer` (``symmetrize=True``: solve with
    ``½(P + Pᵀ)``, so a non-symmetric ``P`` is accepted and ``gradcheck`` on ``P`` passes). A QP without a
    solution raises :class:`QPLayerError` naming the batch item and its retcode, as :func:`qp_layer`
    documents. ``algorithm``, ``tol`` and ``symmetrize`` may be set after construction (checked as here); any
    other public name (a misspelt ``layer.symetrize = True``) is refused by name (``UnknownAttributeError``).

    >>> import torch
    >>> layer = QPLayer(DQP(backend="clarabel"))
    >>> q = torch.tensor([[1.0, -1.0], [-3.0, 0.5]], requires_grad=True)   # a batch of 2, float32
    >>> x = layer(torch.eye(2), q, -torch.eye(2), torch.zeros(2))
    >>> x.dtype, x.detach().numpy().round(6).tolist()
    (torch.float32, [[0.0, 1.0], [3.0, 0.0]])
    """

    def __init__(self, algorithm: DQP | None = None, tol: float | None = None,
                 symmetrize: bool = False) -> None:
        super().__init__()
        self.algorithm = DQP() if algorithm is None else algorithm
        if not isinstance(self.algorithm, DQP):
            raise TypeError(f"algorithm must be a DQP, got {type(self.algorithm).__name__}")
        self.tol = _layer_tol(tol)  # checked now (None or in the working range), not at forward
        self.symmetrize = check_bool("symmetrize", symmetrize)
        self.__dict__["_layer_built"] = True

    def __setattr__(self, name: str, value: Any) -> None:
        # set after construction: symmetrize = "no" was truthy, tol = -1 or algorithm = "x" reached forward;
        # a misspelt name (layer.symetrize = True) was stored beside the real one and ignored
        if self.__dict__.get("_layer_built") and not isinstance(value, torch.nn.Module | torch.nn.Parameter):
            refuse_unknown_attribute(self, name, ("algorithm", "tol", "symmetrize"))
        if name == "symmetrize":
            value = check_bool("symmetrize", value)
        elif name == "tol":
            value = _layer_tol(value)
        elif name == "algorithm" and not isinstance(value, DQP):
            raise TypeError(f"algorithm must be a DQP, got {type(value).__name__}")
        super().__setattr__(name, value)

    def forward(self, P, q, G=None, h=None, A=None, b=None, lb=None, ub=None):
        """x* of the QP(s) ``P``, ``q``, ``G``, ``h``, ``A``, ``b``, ``lb``, ``ub`` (tensors, batched or not,
        as in :func:`qp_layer`).
        """
        return qp_layer(P, q, G, h, A, b, lb=lb, ub=ub, algorithm=self.algorithm, tol=self.tol,
                        symmetrize=self.symmetrize)
