"""Gradient flow of a two-layer ReLU classifier as an ODE, and gradient descent as its discretization.

The problem :class:`TwoLayerTraining` holds data ``(X, y)`` (classes ``0..K-1``),
a bias-free :class:`~algorithms.nets.two_layer.TwoLayerReLU` of width ``h`` and a
loss; θ is the flat parameter vector of :func:`~algorithms.nets.functional.flatten_params`
(``W`` (h, d), ``b`` (h,) if ``hidden_bias``, ``v`` (K_out, h)). The network is

    f(x) = V σ(W x (+ b)),        σ = ReLU,

and the empirical loss ``L(θ) = (1/n) Σ_i ℓ(f(x_i), y_i)`` with

* ``exponential`` (binary, K_out = 1, class 0 -> +1, class 1 -> -1): ``ℓ = exp(-s_i f(x_i))``,
* ``logistic`` (binary): ``ℓ = log(1 + exp(-s_i f(x_i)))``,
* ``cross_entropy`` (K classes, K_out = K): ``ℓ = logsumexp(f(x_i)) - f(x_i)_{y_i}``.

Initialization (``init="balanced"``, the paper's small balanced initialization):
``w_j = ε g_j / √d`` with ``g_j ~ N(0, I)``, and the output weights balanced,
``|v_j| = ||w_j||`` (binary: ``v_j = ±||w_j||`` with a random sign; multi-class:
``v_j = ||w_j|| u_j`` with ``u_j`` uniform on the sphere); ``ε = init_scale``.
``init="data"`` is the initialization from data that the paper (Section 4.2) notes
satisfies its semi-local Assumption 4: neuron ``j`` belongs to class ``k = j mod K``,
``w_j = ε x_i/||x_i||`` for a sample ``i`` drawn uniformly from class ``k`` and
``v_j = ε ẽ_k`` with ``ẽ_k`` the ``k``-th column of ``Ẽ = sqrt(K/(K-1)) (I - 11ᵀ/K)``
(binary: ``v_j = ε s_k``), so ``||v_j|| = ||w_j|| = ε``. ``init_noise = τ > 0`` perturbs
both unit directions, ``u -> (u + τ g/√m)/||·||`` with ``g ~ N(0, I_m)`` (binary output
signs are kept), so that a neuron may start active on a few points of other classes.
With ``hidden_bias`` the bias is one more input coordinate equal to 1 (the paper's
Appendix A remark).
``init="gaussian"`` keeps the module's own draw (``TwoLayerReLU(seed=seed,
init_scale=ε)``, not balanced).

Algorithms (``solve(problem, algorithm, seed=...)``; the seed draws the initialization, seed 0
when none is given):

* :class:`GradientFlow`: ``dθ/dt = -∇L(θ)`` integrated by ``scipy.integrate.solve_ivp``
  (``method``, ``rtol``, ``atol``) from ``t = 0`` to ``t_end``, restarted at each
  record time; one *iteration* is one interval between record times.
  The right-hand side is discontinuous where a pre-activation ``w_jᵀx_i`` crosses 0;
  adaptive solvers then shorten their steps (sliding along the switching
  surface is the Filippov solution), which is where most evaluations go.
* :class:`GradientDescentTraining`: ``θ_{k+1} = θ_k - lr ∇L(θ_k)``, the explicit Euler
  discretization of the same ODE with ``t_k = k lr``; one iteration is one step.

The loss is the *mean* over samples, where the paper sums: our time ``t`` is the
paper's ``t / n`` (rates in ``t`` and limit directions are unchanged).

Both record, at the same times, the loss and the neural-collapse metrics of the
hidden features ``σ(W x_i)`` (:func:`~algorithms.nets.neural_collapse.nc_metrics`),
return θ at ``t_end`` as ``x`` and the loss there as ``value``, and keep the
trajectory (times, θ's, losses) and the data's orthogonal-separability margins in
``Solution.original``. Data that are not orthogonally separable are accepted
(the dynamics are still defined); ``original["separability"]`` reports it.

The gradient is written in closed form (numpy), which keeps an ODE right-hand
side at tens of microseconds; :meth:`TwoLayerTraining.torch_loss` is the same loss
through the module ``TwoLayerTraining.net()`` (``torch.func.functional_call``) for
autograd, Hessians and cross-checks. The ODE
always runs in float64; float32 data give float32 ``x`` (and GD runs in float32).

References
----------
H. Min, Z. Zhu, R. Vidal. Neural collapse under gradient flow on shallow ReLU
networks for orthogonally separable data. NeurIPS 2025, arXiv:2510.21078.
H. Min, E. Mallada, R. Vidal. Early neuron alignment in two-layer ReLU networks
with small initialization. ICLR 2024, arXiv:2307.12851.

>>> from algorithms import solve
>>> from algorithms.nets.neural_collapse import orthogonally_separable_data
>>> X, y = orthogonally_separable_data(4, 8, seed=0)
>>> problem = TwoLayerTraining(X=X, y=y, width=10, init_scale=1e-3)
>>> sol = solve(problem, GradientFlow(t_end=50.0, n_records=6), seed=0, store_trace=True)
>>> sol.retcode, sol.value < 0.1, sol.trace[-1]["max_mean_cosine"] < 1e-6
(<RetCode.Success: 'Success'>, True, True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch
from scipy.integrate import DOP853, RK23, RK45

from algorithms._validation import (
    WORKING_MAX,
    as_float_array,
    as_real_array,
    call_user,
    check_bool,
    check_choice,
    check_count,
    check_finite_data,
    check_fits_memory,
    check_nonnegative,
    check_positive,
    check_positive_int,
    checked_fields,
    reseal_state,
    revalidate_if_reassigned,
    seal_arrays,
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
from algorithms.nets.functional import flat_forward, flatten_params, module_params
from algorithms.nets.neural_collapse import (
    as_class_labels,
    nc_metrics,
    orthogonal_separability,
    pseudo_labels,
)
from algorithms.nets.two_layer import TwoLayerReLU, check_init_scale

__all__ = ["GradientDescentTraining", "GradientFlow", "TwoLayerTraining", "record_times"]

LOSSES = ("exponential", "logistic", "cross_entropy")
BINARY_LOSSES = ("exponential", "logistic")
INITS = ("balanced", "data", "gaussian")
SPACINGS = ("geometric", "linear")
#: divergence threshold of both solvers: a loss above (1 + DIVERGENCE_RISE) L(θ_0). Gradient flow
#: never increases the loss and gradient descent at a stable step size decreases it, while round-off
#: moves a loss by ~1e-7 (float32) relative; a huge step that throws θ away rises by 1e-2 or more.
DIVERGENCE_RISE = 1e-3
#: gradient descent's default criterion: the training loss at most 1e-4
DEFAULT_LOSS_TOL = 1e-4
_EXP_CLIP = 700.0  # exp(700) ~ 1e304: keeps trial steps of an adaptive solver finite


def _float64_tensor(theta: np.ndarray) -> torch.Tensor:
    """A flat θ (float32 or float64) as the float64 tensor the problem's float64 template takes."""
    return torch.as_tensor(np.asarray(theta, dtype=np.float64))


@dataclass(frozen=True, eq=False)
class TwoLayerTraining(Problem):
    """Train ``f(x) = V σ(W x)`` on classes ``y`` by the ``loss`` (see the module docstring).

    ``X`` (n, d); ``y`` (n,) class indices ``0..K-1``, every class present
    (``n_classes`` fixes K; binary losses need K = 2); ``width`` hidden units;
    ``init_scale`` ε > 0 whose drawn weights stay inside the working range (<= 3.4e38); ``init``
    "balanced", "data" or "gaussian"; ``init_noise`` >= 0 (any value in [0, 3.4e38]) perturbs
    ``init="data"`` and must be 0 with another ``init`` (a positive one is refused naming init_noise);
    ``hidden_bias`` adds ``b``.

    A subclass may override :meth:`loss_and_grad`: :class:`GradientFlow` and
    :class:`GradientDescentTraining` then follow its gradient (the records and the divergence test keep
    this class's loss). Its answers are checked as any user callable's: a pair (a real loss, a float numpy
    array of θ's shape), else TypeError/ValueError naming it; an exception of its own other than
    TypeError/ValueError is re-raised as ``UserCallableError``; a NaN/inf loss or gradient part-way through
    ends the run ``Diverged``.
    """

    X: Any
    y: Any
    width: int = 50
    loss: str = "exponential"
    init_scale: float = 1e-3
    init: str = "balanced"
    hidden_bias: bool = False
    n_classes: int | None = None
    init_noise: float = 0.0

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays in immutable memory again (numpy gives them back writable)."""
        reseal_state(self, state)

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        X = as_float_array("X", self.X, ndim=2)
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
        check_choice("loss", self.loss, LOSSES)
        if self.n_classes is not None:      # an array's "!= 2" below raised numpy's "ambiguous" error
            check_positive_int("n_classes", self.n_classes)
        if self.n_classes is not None and self.loss in BINARY_LOSSES and self.n_classes != 2:
            # before y's check, whose "y must contain every class 0..2" named neither n_classes nor loss
            raise ValueError(f"loss {self.loss!r} is binary: n_classes must be 2, got {self.n_classes!r} "
                             "(use loss='cross_entropy' for more classes)")
        y, k = as_class_labels("y", self.y, self.n_classes)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have length n = {X.shape[0]} (rows of X), got {y.shape[0]}")
        # X's inner products inside float64 (the solve reports X's separability; a row of 1e-200 entries
        # was refused there only after the whole run)
        orthogonal_separability(X, y)
        if self.loss in BINARY_LOSSES and k != 2:
            raise ValueError(f"loss {self.loss!r} is binary: y must hold exactly 2 classes, got {k} "
                             "(use loss='cross_entropy')")
        check_positive_int("width", self.width)
        check_init_scale(self.init_scale)
        check_choice("init", self.init, INITS)
        check_nonnegative("init_noise", self.init_noise)
        if self.init_noise > 0 and self.init != "data":
            raise ValueError(f"init_noise perturbs init='data' only, got init={self.init!r} "
                             f"with init_noise={self.init_noise}")
        if self.init == "data" and self.width < k:
            raise ValueError(f"init='data' gives every class a neuron: width must be >= n_classes = {k}, "
                             f"got {self.width}")
        object.__setattr__(self, "hidden_bias", check_bool("hidden_bias", self.hidden_bias))  # np.True_ too
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "n_classes", k)
        # the module through which the functional views evaluate any θ; built here, never lazily
        # inside a torch.func transform (its parameters would be captured by the transform)
        object.__setattr__(self, "_template", self.net(0))
        # loss_and_grad runs 10^4-10^5 times per flow: the targets are built once, not per call
        object.__setattr__(self, "_signs", self.signs)
        seal_arrays(self)  # README: a problem's arrays are read-only, in immutable memory

    # ------------------------------------------------------------------ shapes and views
    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def output_dim(self) -> int:
        return 1 if self.loss in BINARY_LOSSES else int(self.n_classes)

    @property
    def n_params(self) -> int:
        d, h = self.X.shape[1], self.width
        return h * d + (h if self.hidden_bias else 0) + self.output_dim * h

    @property
    def signs(self) -> np.ndarray:
        """Binary targets ``s_i``: +1 for class 0, -1 for class 1."""
        return np.where(self.y == 0, 1.0, -1.0)

    #: the largest |θ| entry the public methods take (as ``init_scale``'s cap)
    THETA_MAX = 1e150

    def _theta(self, theta: Any) -> np.ndarray:
        """A user's flat θ for the public methods: real, 1-D of ``n_params`` entries, finite (a wrong length
        reached numpy's reshape message, a NaN gave a NaN loss in silence). The solvers call the unchecked
        private methods, so a diverging run still ends ``Diverged``."""
        theta = as_real_array("theta", theta)
        if theta.shape != (self.n_params,):
            raise ValueError(f"theta must be a flat parameter vector of shape ({self.n_params},) (width "
                             f"{self.width}, {self.X.shape[1]} features), got shape {theta.shape}")
        if not np.all(np.isfinite(theta)):
            raise ValueError("theta contains NaN or inf entries")
        top = float(np.max(np.abs(theta), initial=0.0))
        if top > self.THETA_MAX:     # V σ(W x) and the gradient overflowed: NaN entries in silence
            raise ValueError(f"theta has entries up to {top:.3g}; they must be <= {self.THETA_MAX:g} in "
                             f"magnitude (the network's products overflow float64 past it)")
        return theta

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """``(W, b or None, V)`` views of a flat θ (the layout of ``flatten_params``)."""
        return self._split(self._theta(theta))

    def _split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        d, h = self.X.shape[1], self.width
        W = theta[: h * d].reshape(h, d)
        offset = h * d
        b = None
        if self.hidden_bias:
            b = theta[offset: offset + h]
            offset += h
        V = theta[offset: offset + self.output_dim * h].reshape(self.output_dim, h)
        return W, b, V

    def net(self, seed: int = 0) -> TwoLayerReLU:
        """The network as a module (float64) whose weights are the initialization drawn from ``seed`` (an
        int in [0, 2**64))."""
        net = TwoLayerReLU(in_features=self.X.shape[1], width=self.width, out_features=self.output_dim,
                           hidden_bias=self.hidden_bias, output_bias=False, seed=seed,
                           init_scale=self.init_scale)
        if self.init != "gaussian":
            with torch.no_grad():
                for name, value in self._shaped_params(seed).items():
                    getattr(net, name).copy_(torch.as_tensor(value, dtype=torch.float64))
        return net

    def initial_params(self, seed: int) -> dict[str, torch.Tensor]:
        """The initialization drawn from ``seed`` (an int in [0, 2**64); the parameters of
        ``self.net(seed)``), in float64."""
        params = module_params(self.net(seed))
        top = max(float(p.detach().abs().max()) if p.numel() else 0.0 for p in params.values())
        if top > WORKING_MAX:   # init_scale 3e38 drew 3.5e38: refused later naming params['W'], no argument
            raise ValueError(f"init_scale = {self.init_scale!r} draws initial weights up to {top:.4g}, past "
                             f"the package's working range ({WORKING_MAX:.4g}); pass a smaller init_scale")
        return params

    def pseudo_labels(self) -> np.ndarray:
        """Row ``k`` is class ``k``'s target output direction ``ẽ_k`` (binary: ``s_k = ±1``)."""
        return pseudo_labels(int(self.n_classes), binary=self.output_dim == 1).T

    def data_neuron_classes(self) -> np.ndarray:
        """Class of each neuron under ``init="data"``: neuron ``j`` belongs to class ``j mod K``."""
        return np.arange(self.width) % int(self.n_classes)

    def _shaped_params(self, seed: int) -> dict[str, np.ndarray]:
        """The balanced (``|v_j| = ||w_j||``) initializations of the module docstring."""
        rng = np.random.default_rng([int(seed), 2510_21078])
        d, h = self.X.shape[1], self.width
        if self.init == "data":
            # one sample per neuron, uniformly within the neuron's class (classes cycle over neurons)
            classes = self.data_neuron_classes()
            rows = np.array([rng.choice(np.flatnonzero(self.y == c)) for c in classes])
            inputs = self.X[rows].astype(np.float64)
            if self.hidden_bias:  # a bias is one more input coordinate, equal to 1
                inputs = np.hstack([inputs, np.ones((h, 1))])
            shapes = _perturbed_directions(inputs, self.init_noise, rng)
            params = {"W": self.init_scale * shapes[:, :d]}
            if self.hidden_bias:
                params["b"] = self.init_scale * shapes[:, d]
            outputs = self.pseudo_labels()[classes]
            if self.output_dim > 1:
                outputs = _perturbed_directions(outputs, self.init_noise, rng)
            params["v"] = self.init_scale * outputs.T
            return params
        W = self.init_scale * rng.standard_normal((h, d)) / math.sqrt(d)
        params = {"W": W}
        norms2 = np.sum(W**2, axis=1)
        if self.hidden_bias:
            params["b"] = self.init_scale * rng.standard_normal(h) / math.sqrt(d)
            norms2 = norms2 + params["b"] ** 2
        norms = np.sqrt(norms2)
        if self.output_dim == 1:
            V = (rng.choice([-1.0, 1.0], size=h) * norms)[None, :]
        else:
            U = rng.standard_normal((self.output_dim, h))
            V = U / np.linalg.norm(U, axis=0, keepdims=True) * norms
        params["v"] = V
        return params

    def initial_theta(self, seed: int) -> np.ndarray:
        theta, _ = flatten_params(self.initial_params(seed))
        return theta.numpy().astype(np.float64)

    def params(self, theta) -> dict[str, torch.Tensor]:
        """θ as the parameter dict of ``self.net()`` (float64 tensors; a float32 θ is widened, as the
        template's parameters are float64)."""
        _, unflatten = flatten_params(module_params(self._template))
        return unflatten(_float64_tensor(self._theta(theta)))

    # ------------------------------------------------------------------ loss, gradient, features
    def loss_and_grad(self, theta: np.ndarray, X: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """``L(θ)`` and ``∇L(θ)`` in closed form, in the dtype of θ (``X``: other inputs of the data's
        shape, default the problem's)."""
        theta = self._theta(theta)
        if X is not None:
            X = as_real_array("X", X)
            if X.shape != self.X.shape or not np.all(np.isfinite(X)):
                raise ValueError(f"X must be finite of the data's shape {self.X.shape}, got {X.shape}")
        with np.errstate(over="ignore", invalid="ignore"):   # a loss past float64 is inf, as its gradient
            return self._loss_and_grad(theta, X, clip=False)

    def _loss_and_grad(self, theta: np.ndarray, X: np.ndarray | None = None, *, clip: bool = True
                       ) -> tuple[float, np.ndarray]:
        """``clip``: the solvers' exponential loss capped at exp(700) (an adaptive solver's trial steps stay
        finite); the public methods pass False, so a margin below −700 gives its own value (exp(705) was
        reported as exp(700)) or inf where the loss passes float64's range."""
        X = self.X.astype(theta.dtype, copy=False) if X is None else X
        W, b, V = self._split(theta)
        pre = X @ W.T
        if b is not None:
            pre = pre + b
        act = np.maximum(pre, 0.0)
        out = act @ V.T  # (n, K_out)
        n = self.n
        # means as add.reduce(.) / n: np.mean's own arithmetic (a pairwise sum, then a division in the
        # sum's dtype) without its Python-level wrappers
        if self.loss in BINARY_LOSSES:
            s = self._signs if theta.dtype == self._signs.dtype else self._signs.astype(theta.dtype)
            margin = s * out[:, 0]
            if self.loss == "exponential":
                with np.errstate(over="ignore"):
                    e = np.exp(np.minimum(-margin, _EXP_CLIP) if clip else -margin)
                    loss = float(np.add.reduce(e) / n)
                dout = (-s * e)[:, None]
            else:
                loss = float(np.add.reduce(np.logaddexp(0.0, -margin)) / n)
                # σ(−margin) = exp(−log(1 + e^margin)): no overflow and no clip (1/(1 + e^700) was 1e-304
                # where the derivative is e^−margin ~ 1e-310 or 0)
                dout = (-s * np.exp(-np.logaddexp(0.0, margin)))[:, None]
        else:
            shifted = out - out.max(axis=1, keepdims=True)
            logz = np.log(np.sum(np.exp(shifted), axis=1))
            loss = float(np.add.reduce(logz - shifted[np.arange(n), self.y]) / n)
            dout = np.exp(shifted - logz[:, None])
            dout[np.arange(n), self.y] -= 1.0
        dout = dout / n
        grad_V = dout.T @ act
        back = (dout @ V) * (pre > 0)
        parts = [(back.T @ X).ravel()]
        if b is not None:
            parts.append(back.sum(axis=0))
        parts.append(grad_V.ravel())
        return loss, np.concatenate(parts).astype(theta.dtype, copy=False)

    def loss_value(self, theta) -> float:
        with np.errstate(over="ignore", invalid="ignore"):   # a loss past float64 is inf
            return self._loss_and_grad(self._theta(theta), clip=False)[0]

    def _loss_value(self, theta: np.ndarray) -> float:
        return self._loss_and_grad(theta)[0]

    def torch_loss(self, theta: torch.Tensor) -> torch.Tensor:
        """The same loss as a torch function of a flat float64 θ: the module ``self.net()`` evaluated at
        θ by ``torch.func.functional_call`` (:func:`~algorithms.nets.functional.flat_forward`)."""
        if not isinstance(theta, torch.Tensor) or tuple(theta.shape) != (self.n_params,):
            got = tuple(theta.shape) if isinstance(theta, torch.Tensor) else type(theta).__name__
            raise TypeError(f"theta must be a torch tensor of shape ({self.n_params},), got {got}")
        check_finite_data("theta", theta)
        _, forward = flat_forward(self._template)
        out = forward(theta, torch.tensor(self.X, dtype=theta.dtype))
        if self.loss in BINARY_LOSSES:
            margin = torch.tensor(self.signs, dtype=theta.dtype) * out[:, 0]
            if self.loss == "exponential":
                return torch.exp(-margin).mean()
            return torch.nn.functional.softplus(-margin).mean()
        return torch.nn.functional.cross_entropy(out, torch.tensor(self.y))

    def features(self, theta) -> np.ndarray:
        """Hidden-layer features ``σ(W x_i (+ b))``, shape (n, width), via ``TwoLayerReLU.hidden``."""
        params = self.params(theta)
        return self._features(params)

    def _features(self, params: dict[str, torch.Tensor]) -> np.ndarray:
        return self._template.hidden(params, torch.tensor(self.X, dtype=torch.float64)).numpy()

    def metrics(self, theta) -> dict[str, float]:
        """Loss, ‖θ‖ and the NC metrics of the hidden features at θ."""
        return self._metrics(self._theta(theta))

    def _metrics(self, theta: np.ndarray) -> dict[str, float]:
        _, _, V = self._split(theta)
        out = {"loss": self._loss_value(theta), "param_norm": float(np.linalg.norm(theta))}
        _, unflatten = flatten_params(module_params(self._template))
        # widened: a float32 problem's run records its float32 θ, which the float64 template refused (a
        # TypeError from inside the run whenever store_trace or a callback asked for records; red25a)
        out.update(nc_metrics(self._features(unflatten(_float64_tensor(theta))), self.y, V))
        return out


def _perturbed_directions(rows: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """Unit rows ``(r/||r|| + noise g/√m) / ||·||``, ``g ~ N(0, I_m)``: directions near each row."""
    units = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    if noise > 0:
        units = units + noise * rng.standard_normal(units.shape) / math.sqrt(units.shape[1])
        units = units / np.linalg.norm(units, axis=1, keepdims=True)
    return units


def record_times(t_end: float, n_records: int, spacing: str = "geometric", t_first: float = 1.0
                 ) -> np.ndarray:
    """Record times in (0, t_end]: ``geometric`` from ``t_first`` (< t_end) or ``linear`` (equal gaps).

    ``t_end`` and ``t_first`` > 0 in [1.18e-38, 3.4e38]; ``n_records`` an int >= 1 (at most 2**31 - 1 and
    this machine's memory, 32 bytes per record).

    ``n_records == 1`` records ``t_end`` only; ``linear`` ignores ``t_first``.

    >>> record_times(100.0, 3, "geometric", 1.0).tolist()
    [1.0, 10.0, 100.0]
    >>> record_times(1.0, 4, "linear").tolist()
    [0.25, 0.5, 0.75, 1.0]
    >>> record_times(1.0, 3, "geometric", t_first=5.0)
    Traceback (most recent call last):
    ...
    ValueError: t_first must be < t_end = 1.0 for geometric spacing with n_records > 1, got 5.0 ...
    """
    t_end = check_positive("t_end", t_end)
    n_records = check_count("n_records", n_records, 1)
    # the grid, numpy's temporaries and a solve's per-record times and losses (float64 each): 2**31 - 1
    # records spent a minute allocating 17 GB before the first step
    check_fits_memory("record_times", "n_records", n_records, 8.0 * 4 * n_records)
    check_choice("spacing", spacing, SPACINGS)
    t_first = check_positive("t_first", t_first)
    if n_records == 1:
        return np.array([t_end])
    if spacing == "linear":
        return np.linspace(t_end / n_records, t_end, n_records)
    if t_first >= t_end:
        raise ValueError(f"t_first must be < t_end = {t_end} for geometric spacing with n_records > 1, "
                         f"got {t_first} (use spacing='linear' or a smaller t_first)")
    times = np.geomspace(t_first, t_end, n_records)
    times[-1] = t_end
    return times


#: the smallest rtol GradientFlow takes: solve_ivp raises a smaller one to 100 × float64's eps with a
#: warning, and a Success then claimed a tolerance it did not use
RTOL_MIN = 100 * float(np.finfo(np.float64).eps)

#: the most gradient evaluations one GradientFlow solve takes: a stiff or overflowing flow (init_scale
#: 1e5) made solve_ivp shrink its steps without end, a hang even at maxiters=1
MAX_FIELD_EVALS = 10**6


class _FieldBudget(Exception):
    """Raised inside solve_ivp's right-hand side once MAX_FIELD_EVALS is spent."""


#: a ReLU unit's pre-activation on one data point changing sign CHATTER_FLIPS times within a block of
#: CHATTER_BLOCK accepted steps is a flow sliding along the kink (Filippov sliding): the explicit integrator
#: then crosses the kink back and forth (every step with RK45, every other with DOP853) at steps of ~1e-6,
#: and 4 points of width 4 (seed 2**64 - 1) spent the 10**6 evaluations in 30 s; a flow crossing a kink
#: changes the sign once
CHATTER_FLIPS = 10
CHATTER_BLOCK = 50
#: the evaluations over which a sliding flow's pace is measured (time covered per evaluation): the step size
#: of one step is no measure (it dips 100-fold for a few steps where a flow slides for a while and goes on,
#: as the claims' interleaved-sector controls do in < 10**4 evaluations per record interval), counted from the
#: sliding's detection; at most 1/50 of a smaller budget
CHATTER_WINDOW = 10_000

_METHODS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}
_REACHED = "The solver successfully reached the end of the integration interval."


def _active(problem: TwoLayerTraining, X64: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Which unit is active on which point at θ (the pattern a ReLU kink flips)."""
    W, b, _ = problem._split(theta)
    pre = X64 @ W.T
    return (pre + b if b is not None else pre) > 0


class _Interval(NamedTuple):
    """One record interval's integration: ``outcome`` "ok" | "failed" | "nonfinite" | "sliding", θ at its
    end (or the last accepted θ), the message, and the integrator's own count of evaluations."""

    outcome: str
    y: np.ndarray
    message: str
    nfev: int


def _flow_interval(rhs, problem: TwoLayerTraining, X64: np.ndarray, algorithm: GradientFlow,
                   t0: float, t1: float, theta: np.ndarray, budget_left, horizon: float) -> _Interval:
    """Integrate θ over [t0, t1] as solve_ivp does (the same solver, the same steps), watching each
    accepted step.

    "sliding": a pattern entry flipped CHATTER_FLIPS times within a block of CHATTER_BLOCK steps, and over
    the CHATTER_WINDOW evaluations from there the pace (time covered per evaluation) would spend the
    evaluations left (``budget_left()``) before ``horizon`` (the run's last record time): the Failure it
    would reach anyway."""
    solver = _METHODS[algorithm.method](rhs, t0, theta, t1, rtol=algorithm.rtol, atol=algorithm.atol)
    pattern = _active(problem, X64, theta)
    flips = np.zeros(pattern.shape, dtype=np.int64)   # sign changes per entry in the current block
    steps = 0
    window = max(1000, min(CHATTER_WINDOW, int(budget_left()) // 50))
    t_ref, nfev_ref, sliding = t0, 0, False
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            return _Interval("failed", solver.y, message or "", solver.nfev)
        if not np.all(np.isfinite(solver.y)):
            return _Interval("nonfinite", solver.y, "", solver.nfev)
        steps += 1
        now = _active(problem, X64, solver.y)
        if steps % CHATTER_BLOCK == 1:
            flips[...] = 0
        flips += now != pattern
        pattern = now
        if not sliding and flips.max() >= CHATTER_FLIPS:    # the window measures the sliding flow only
            t_ref, nfev_ref, sliding = solver.t, solver.nfev, True
        if solver.status == "running" and sliding and solver.nfev - nfev_ref >= window:
            rate = (solver.t - t_ref) / (solver.nfev - nfev_ref)     # time per evaluation over the window
            pace = (horizon - solver.t) / max(rate, 1e-300)
            if pace > budget_left():
                return _Interval("sliding", solver.y, (
                    f"the flow slides along a ReLU kink at t = {solver.t:.6g} (a unit's pre-activation on a "
                    f"data point changed sign {CHATTER_FLIPS} times within {CHATTER_BLOCK} steps; "
                    f"{solver.nfev - nfev_ref} evaluations covered {solver.t - t_ref:.3g}): "
                    f"the explicit integrator would need ~{pace:.3g} more gradient evaluations to reach "
                    f"t = {horizon:.6g}, past the budget"), solver.nfev)
            sliding = False
    return _Interval("ok", solver.y, _REACHED, solver.nfev)


@dataclass(frozen=True)
class GradientFlow(Algorithm):
    """``dθ/dt = -∇L(θ)`` on ``[0, t_end]`` by ``scipy.integrate.solve_ivp``.

    ``method`` is any explicit ``solve_ivp`` method ("RK45", "DOP853", "RK23"; the
    right-hand side is not smooth, so implicit methods gain nothing);
    ``rtol``/``atol`` its tolerances; records at :func:`record_times`
    (``n_records``, ``spacing``, ``t_first``). One iteration is one interval between
    record times; ``maxiters`` caps them (then ``MaxIters``).

    Domains: ``t_end`` > 0 in [1.18e-38, 3.4e38]; ``n_records`` an int >= 1 (at most 2**31 - 1 and what
    this machine's memory holds, 32 bytes per record; refused naming it); ``spacing`` "geometric" or
    "linear"; ``t_first`` > 0 in [1.18e-38, 3.4e38] and, for geometric spacing with ``n_records`` > 1,
    below ``t_end`` (refused naming t_first otherwise: ``t_end=0.5`` with the default ``t_first=1.0``
    needs a smaller t_first or ``spacing="linear"``); ``rtol`` in [``RTOL_MIN``, 3.4e38], ``RTOL_MIN`` =
    100·eps = 2.220446049250313e-14 exactly (solve_ivp's floor: a smaller one, 2.22e-14 included, is refused
    naming rtol) and ``atol`` > 0 in [1.18e-38, 3.4e38].

    Retcodes: ``Success`` when the integrator reached ``t_end`` with its error control
    satisfied on every interval (its own criterion: θ(t_end) is computed to ``rtol``/``atol``),
    or earlier when ``tol`` is given and the loss at a record time is ``<= tol``;
    ``Diverged`` for a non-finite θ or loss, or a loss above ``(1 + DIVERGENCE_RISE) L(θ_0)``
    (the flow never increases the loss, so such a rise is a blow-up of the integration);
    ``Failure`` when ``solve_ivp`` gives up or needs more than ``MAX_FIELD_EVALS`` = 10**6 gradient
    evaluations, or more than fit in ``MAX_RUN_SECONDS`` = 60 s at >= 20 µs + 1 ns · n · n_params each (a
    stiff or blowing-up flow, or tolerances too tight; the velocity not finite at θ₀ is ``Diverged`` at
    once); also ``Failure`` as soon as the flow slides along a ReLU kink (a unit's pre-activation on a data
    point changes sign ``CHATTER_FLIPS`` = 10 times within a block of ``CHATTER_BLOCK`` = 50 accepted
    steps, where a flow crossing the kink changes it once) at a pace, measured over ``CHATTER_WINDOW`` =
    10000 evaluations from there (time covered per evaluation), that would spend those evaluations before
    the run's last record time (``t_end``, or the ``maxiters``-th record): that run would reach the same
    Failure, tens of seconds later (some seeds of a symmetric data set start such a flow).

    >>> from algorithms import solve
    >>> from algorithms.nets.neural_collapse import orthogonally_separable_data
    >>> X, y = orthogonally_separable_data(3, 6, seed=1)
    >>> sol = solve(TwoLayerTraining(X=X, y=y, width=4), GradientFlow(t_end=5.0), maxiters=0)
    >>> sol.retcode, round(sol.value, 6), sol.stats.iterations
    (<RetCode.MaxIters: 'MaxIters'>, 1.0, 0)
    """

    t_end: float = 100.0
    n_records: int = 20
    spacing: str = "geometric"
    t_first: float = 1.0
    method: str = "RK45"
    rtol: float = 1e-6
    atol: float = 1e-12

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        record_times(self.t_end, self.n_records, self.spacing, self.t_first)
        check_choice("method", self.method, ("RK45", "RK23", "DOP853"))
        if check_positive("rtol", self.rtol) < RTOL_MIN:     # scipy raised it with a warning: Success
            raise ValueError(f"rtol must be >= {RTOL_MIN!r} (solve_ivp's floor, 100 × float64's eps: a "
                             f"smaller one is not a tolerance the integrator can meet), got {self.rtol!r}")
        check_positive("atol", self.atol)


#: the most steps GradientDescentTraining takes (round(t_end / lr)), as the package's other counts
MAX_STEPS = 2**31 - 1


@dataclass(frozen=True)
class GradientDescentTraining(Algorithm):
    """``θ_{k+1} = θ_k - lr ∇L(θ_k)`` for ``round(t_end/lr)`` steps (time ``t_k = k lr``; at most
    ``MAX_STEPS`` = 2³¹ − 1 of them, else ValueError; ``lr`` >= 1.18e-38, float32's smallest normal).

    Records at the iterates nearest to :func:`record_times` (same arguments as
    :class:`GradientFlow`, so the two trajectories can be compared). One iteration
    is one step; ``maxiters`` caps them.

    A run estimated past ``MAX_RUN_SECONDS`` = 60 s (at >= 20 µs a step: about 3·10⁶ steps on small
    problems, fewer on large ones) is refused naming lr, t_end and maxiters; pass ``maxiters`` to cap it.

    Domains: ``lr`` > 0 in [1.18e-38, 3.4e38]; ``t_end`` > 0 in [1.18e-38, 3.4e38] with round(t_end / lr)
    >= 1 (at least one step: lr < 2·t_end, an lr between t_end and 2·t_end takes one step of size lr)
    and t_end / lr <= 2**31 - 1 (``MAX_STEPS``; e.g. t_end = 3.4e38 needs lr >= 1.6e29,
    both refused naming t_end / lr); ``n_records``, ``spacing`` and ``t_first`` as :class:`GradientFlow`'s
    (t_first < t_end for geometric spacing).

    Retcodes: ``Success`` only when the loss at an iterate is ``<= tol`` (GD's own criterion;
    ``tol`` defaults to ``DEFAULT_LOSS_TOL = 1e-4``; that iterate is returned); ``MaxIters``
    when the horizon ``t_end`` or ``maxiters`` is reached first; ``Diverged`` for a non-finite
    θ or loss, or a loss above ``(1 + DIVERGENCE_RISE) L(θ_0)`` (the divergence threshold:
    GD at a stable step size decreases the loss); ``Stalled`` when the gradient is exactly zero above ``tol``
    (every unit dead: GD cannot move).

    >>> from algorithms import solve
    >>> from algorithms.nets.neural_collapse import orthogonally_separable_data
    >>> X, y = orthogonally_separable_data(4, 8, seed=0)
    >>> p = TwoLayerTraining(X=X, y=y, width=10)
    >>> gd = solve(p, GradientDescentTraining(lr=0.01, t_end=20.0, n_records=4), seed=0)
    >>> flow = solve(p, GradientFlow(t_end=20.0, n_records=4, rtol=1e-9), seed=0)
    >>> gd.retcode, bool(np.linalg.norm(gd.x - flow.x) < 0.05 * np.linalg.norm(flow.x))
    (<RetCode.MaxIters: 'MaxIters'>, True)
    >>> solve(p, GradientDescentTraining(lr=0.01, t_end=20.0), tol=0.5, seed=0).retcode
    <RetCode.Success: 'Success'>
    """

    lr: float = 0.01
    t_end: float = 100.0
    n_records: int = 20
    spacing: str = "geometric"
    t_first: float = 1.0

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        check_positive("lr", self.lr)
        record_times(self.t_end, self.n_records, self.spacing, self.t_first)
        with np.errstate(over="ignore"):
            ratio = float(self.t_end) / float(self.lr)
        if not ratio <= MAX_STEPS:     # inf (lr = 5e-324, t_end = 1e308) met int()'s bare OverflowError
            raise ValueError(f"t_end / lr must be at most {MAX_STEPS} steps (a C int, as every count of the "
                             f"package), got t_end={self.t_end} / lr={self.lr} = {ratio:.3g} steps")
        if self.n_steps < 1:
            raise ValueError(f"t_end must be at least one step (lr={self.lr}), got {self.t_end}")
        if self.n_steps > MAX_STEPS:   # lr=1e-300 asked for 1e300 steps: a loop that never ends
            raise ValueError(f"t_end / lr must be at most {MAX_STEPS} steps (a C int, as every count of the "
                             f"package), got t_end={self.t_end} / lr={self.lr} = {self.t_end / self.lr:.3g} "
                             "steps")

    @property
    def n_steps(self) -> int:
        return int(np.rint(self.t_end / self.lr))


def _original(problem: TwoLayerTraining, times: list[float], thetas: list[np.ndarray],
              losses: list[float], **extra: Any) -> dict[str, Any]:
    return {
        "times": np.asarray(times, dtype=np.float64),
        "thetas": np.vstack(thetas),
        "losses": np.asarray(losses, dtype=np.float64),
        "separability": orthogonal_separability(problem.X, problem.y).as_dict(),
        **extra,
    }


def _record(monitor: IterationMonitor, problem: TwoLayerTraining, iteration: int, t: float,
            theta: np.ndarray) -> tuple[bool, float]:
    """Record the metrics at θ (only computed when a trace or callback wants them)."""
    if monitor.options.store_trace or monitor.options.callback is not None:
        m = problem._metrics(theta)
        stop = monitor.record(iteration=iteration, t=float(t), **m)
        return stop, m["loss"]
    stop = monitor.record(iteration=iteration, t=float(t))
    return stop, problem._loss_value(theta)


class _UserNonFinite(Exception):
    """A subclass's ``loss_and_grad`` answered a NaN/inf loss or gradient part-way through: ``Diverged``."""


def _field(problem: TwoLayerTraining):
    """The solvers' loss and gradient: the unchecked private method (a diverging θ must reach the
    ``Diverged`` test, not a refusal), or a subclass's own ``loss_and_grad`` where one overrides it (the
    claims' planted-bug controls do), its answers checked as any user callable's (red23a: a gradient one
    entry short, a list or a str loss were taken or met numpy's errors, a NaN gradient ended ``Failure``):
    a pair (a real loss, a float array of θ's shape), else TypeError/ValueError naming it; NaN/inf in either
    raises :class:`_UserNonFinite`, which the solvers report as ``Diverged`` (README's rule)."""
    if type(problem).loss_and_grad is TwoLayerTraining.loss_and_grad:
        return problem._loss_and_grad
    name = f"{type(problem).__name__}.loss_and_grad(theta, X)"

    def checked(theta: np.ndarray, X: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        out = call_user(name, problem.loss_and_grad, theta, X, keep=(TypeError, ValueError))
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise TypeError(f"{name} must return a pair (loss, gradient), got {type(out).__name__}")
        loss, grad = out
        if isinstance(loss, bool | np.bool_) or not isinstance(loss, numbers.Real):
            raise TypeError(f"{name} must return a real number as its loss, got {type(loss).__name__}")
        if not isinstance(grad, np.ndarray) or not np.issubdtype(grad.dtype, np.floating):
            raise TypeError(f"{name} must return its gradient as a float numpy array, got "
                            f"{type(grad).__name__}")
        if grad.shape != np.shape(theta):
            raise ValueError(f"{name} must return a gradient of theta's shape {np.shape(theta)}, got "
                             f"{grad.shape}")
        if not (math.isfinite(float(loss)) and bool(np.all(np.isfinite(grad)))):
            raise _UserNonFinite(f"{name} returned a NaN or inf loss or gradient")
        return float(loss), grad

    return checked


def _blown_up(loss: float, threshold: float) -> bool:
    return not math.isfinite(loss) or loss > threshold


@_dispatch
def _solve(problem: TwoLayerTraining, algorithm: GradientFlow, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    seed = 0 if options.seed is None else options.seed
    out_dtype = problem.X.dtype
    theta = problem.initial_theta(seed)
    grid = record_times(algorithm.t_end, algorithm.n_records, algorithm.spacing, algorithm.t_first)
    cap = options.iterations(len(grid))
    monitor = IterationMonitor(options, total=min(cap, len(grid)), desc="gradient flow")
    stats = Stats()
    nfev = [0]
    X64 = problem.X.astype(np.float64)
    field = _field(problem)

    # evaluations bounded by count and by an estimate of their time (the count alone let 100 points of
    # width 200 at rtol 2.3e-14 run past 90 s)
    per_eval = 2e-5 + 1e-9 * problem.X.shape[0] * problem.n_params
    field_budget = min(MAX_FIELD_EVALS, max(1000, int(MAX_RUN_SECONDS / per_eval)))

    def rhs(_t: float, th: np.ndarray) -> np.ndarray:
        nfev[0] += 1
        if nfev[0] > field_budget:      # a stiff or overflowing flow shrank its steps without end (a hang)
            raise _FieldBudget
        return -field(th, X64)[1]

    # a callback's stop request at the first record (t = 0) ends the run there, as at any other record; with
    # maxiters = 0 that record is the run's final one, and a True changes nothing (core's rule)
    stop_at_start, loss = _record(monitor, problem, 0, 0.0, theta)
    stop_at_start = stop_at_start and cap > 0
    threshold = (1.0 + DIVERGENCE_RISE) * loss
    times, thetas, losses = [0.0], [theta.copy()], [loss]
    retcode = RetCode.Terminated if stop_at_start else RetCode.Success
    t_prev = 0.0
    message = ""
    horizon = float(grid[min(cap, len(grid)) - 1]) if cap > 0 else 0.0   # the run's last record time
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            finite_start = stop_at_start or cap == 0 or bool(np.all(np.isfinite(field(theta, X64)[1])))
        except _UserNonFinite:
            finite_start = False
        if not finite_start:
            # the velocity overflows at θ₀ (init_scale = 1e5): every trial step failed, for ever
            grid, retcode, message = (), RetCode.Diverged, "the gradient at the initial point is not finite"
        for i, t_next in enumerate(grid if not stop_at_start else ()):
            if i >= cap:
                retcode = RetCode.MaxIters
                break
            try:
                outcome, y, message, _ = _flow_interval(rhs, problem, X64, algorithm, t_prev, float(t_next),
                                                     theta, lambda: field_budget - nfev[0], horizon)
            except _UserNonFinite as exc:     # a subclass's loss_and_grad turned NaN/inf mid-run
                retcode, message = RetCode.Diverged, str(exc)
                break
            except _FieldBudget:
                retcode = RetCode.Failure
                message = (f"the integrator needed more than {field_budget} gradient evaluations "
                           f"(MAX_FIELD_EVALS, or fewer estimated past MAX_RUN_SECONDS: a stiff or "
                           f"blowing-up flow, or tolerances too tight for this problem)")
                break
            if outcome == "nonfinite":
                retcode = RetCode.Diverged
                break
            if outcome != "ok":     # solve_ivp gave up, or a sliding flow would spend the budget
                retcode = RetCode.Failure
                break
            theta = y
            t_prev = float(t_next)
            stats.iterations += 1
            stop, loss = _record(monitor, problem, i + 1, t_prev, theta)
            times.append(t_prev)
            thetas.append(theta.copy())
            losses.append(loss)
            if _blown_up(loss, threshold):
                retcode = RetCode.Diverged
                break
            if stop:
                retcode = RetCode.Terminated
                break
            if options.tol is not None and loss <= options.tol:
                break
    monitor.close()
    stats.grad_calls = stats.f_calls = nfev[0]
    return Solution(x=theta.astype(out_dtype), value=float(losses[-1]), retcode=retcode, stats=stats,
                    trace=monitor.trace,
                    original=_original(problem, times, thetas, losses, solver_message=message))


#: the longest gradient-descent run taken without maxiters, estimated from a lower bound of its per-step
#: cost (~20 µs plus ~1 ns per n·n_params on one core; measured 20-65 µs on the smallest problems, the
#: earlier 2 µs bound let lr = 1e-6 with t_end = 100, 10⁸ steps, run for hours): lr = 1e-7 with t_end
#: = 100 asked for 10⁹ steps, which the count check (a C int) allows
MAX_RUN_SECONDS = 60.0


def _check_run_length(problem: TwoLayerTraining, algorithm: GradientDescentTraining, steps: int) -> None:
    per_step = 2e-5 + 1e-9 * problem.X.shape[0] * problem.n_params
    if steps * per_step > MAX_RUN_SECONDS:
        raise ValueError(f"GradientDescentTraining: {steps} steps (t_end / lr = {algorithm.t_end!r} / "
                         f"{algorithm.lr!r}, or maxiters) would run for at least {steps * per_step:.3g} s, "
                         f"past the limit of {MAX_RUN_SECONDS:g} s (MAX_RUN_SECONDS); pass a larger lr, a "
                         f"smaller t_end, or maxiters to stop earlier")


@_dispatch
def _solve(problem: TwoLayerTraining, algorithm: GradientDescentTraining,
           options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    seed = 0 if options.seed is None else options.seed
    dtype = problem.X.dtype
    theta = problem.initial_theta(seed).astype(dtype)
    lr = dtype.type(algorithm.lr)
    n_steps = algorithm.n_steps
    grid = record_times(algorithm.t_end, algorithm.n_records, algorithm.spacing, algorithm.t_first)
    record_set = {min(max(int(np.rint(t / algorithm.lr)), 1), n_steps) for t in grid}
    cap = options.iterations(n_steps)
    _check_run_length(problem, algorithm, min(n_steps, cap))
    tol = options.tolerance(DEFAULT_LOSS_TOL)
    monitor = IterationMonitor(options, total=len(record_set), desc="gradient descent")
    stats = Stats()
    X = problem.X
    field = _field(problem)
    # a callback's stop request at the first record (t = 0) ends the run there, as at any other record; with
    # maxiters = 0 that record is the run's final one, and a True changes nothing (core's rule)
    stop_at_start, loss = _record(monitor, problem, 0, 0.0, theta)
    stop_at_start = stop_at_start and cap > 0
    threshold = (1.0 + DIVERGENCE_RISE) * loss
    times, thetas, losses = [0.0], [theta.astype(np.float64)], [loss]
    retcode = RetCode.Terminated if stop_at_start else RetCode.MaxIters
    loss_k = loss
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(0 if stop_at_start else n_steps + 1):  # the loss (and gradient) at θ_k, then the step
            last = k == n_steps or k >= cap
            if last:
                loss_k = problem._loss_value(theta)
            else:
                try:
                    loss_k, grad = field(theta, X)
                except _UserNonFinite:      # a subclass's loss_and_grad turned NaN/inf mid-run
                    retcode = RetCode.Diverged
                    break
                stats.grad_calls += 1
            stats.f_calls += 1
            if _blown_up(loss_k, threshold):
                retcode = RetCode.Diverged
                break
            if loss_k <= tol:
                retcode = RetCode.Success
                break
            if last:
                break
            if not np.any(grad):
                retcode = RetCode.Stalled
                break
            new = theta - lr * grad
            if not np.all(np.isfinite(new)):
                retcode = RetCode.Diverged
                break
            theta = new
            stats.iterations = k + 1
            if k + 1 in record_set:
                stop, loss = _record(monitor, problem, k + 1, (k + 1) * algorithm.lr, theta)
                times.append((k + 1) * algorithm.lr)
                thetas.append(theta.astype(np.float64))
                losses.append(loss)
                if stop:
                    retcode = RetCode.Terminated
                    loss_k = loss
                    break
    if stats.iterations * algorithm.lr != times[-1] and math.isfinite(loss_k):
        # the run stopped between record times: the trajectory ends at the returned iterate
        times.append(stats.iterations * algorithm.lr)
        thetas.append(theta.astype(np.float64))
        losses.append(float(loss_k))
    monitor.close()
    return Solution(x=theta.astype(dtype), value=float(loss_k), retcode=retcode, stats=stats,
                    trace=monitor.trace, original=_original(problem, times, thetas, losses))
