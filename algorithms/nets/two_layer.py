"""The two-layer network ``f(x) = V σ(W x + b) + c`` as a ``torch.nn.Module``, and its functional view.

:class:`TwoLayerReLU` is an ordinary module: its parameters ``W`` (width,
in_features), ``b`` (width,) when ``hidden_bias``, ``v`` (out_features, width)
and ``c`` (out_features,) when ``output_bias`` are ``torch.nn.Parameter``s drawn
from ``seed`` at construction, and ``forward(X)`` maps (n, in_features) to
(n, out_features).

The theory papers differentiate the loss with respect to the parameters, so the
module also offers the *functional view* they use, computed from a parameter
dict rather than from the module's own weights (``torch.func.functional_call``):
``init(seed)`` returns the parameter dict a module built with that seed holds,
``forward_with(params, X)`` evaluates the network at ``params`` and
``hidden(params, X)`` returns its hidden features (``nn.Module.apply(fn)`` keeps
its torch meaning). Flat parameter vectors, Hessians and per-sample
gradients of such functions are in :mod:`algorithms.nets.functional`.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any

import torch

from algorithms._modules import CheckedStateModule, check_structure, fix_attributes, remember_structure
from algorithms._validation import (
    WORKING_MAX,
    allocates,
    check_bool,
    check_device,
    check_finite_data,
    check_positive,
    check_positive_int,
    check_seed,
    check_torch_dtype,
    in_working_range,
    outside_inference,
    refuse_sparse,
)
from algorithms.nets.functional import functional_forward

__all__ = ["ACTIVATIONS", "TwoLayerReLU"]

#: slope of ``leaky_relu`` on the negative half-line
LEAKY_SLOPE = 0.1

#: the piecewise analytic activations every network of the package offers (read-only: an edit of a
#: module-level registry changed every later model's forward in silence)
ACTIVATIONS: Mapping[str, Callable[[torch.Tensor], torch.Tensor]] = types.MappingProxyType({
    "relu": torch.relu,
    "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, LEAKY_SLOPE),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
})

Params = dict[str, torch.Tensor]


def _features(W: torch.Tensor, b: torch.Tensor | None, X: torch.Tensor,
              sigma: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    pre = X @ W.T
    return sigma(pre if b is None else pre + b)


#: the largest |entry| of a TwoLayerReLU input X (as INIT_SCALE_MAX for the weights: X·W stays finite)
X_MAX = 1e150

#: the largest ``init_scale`` of the nets' models: weights of that size still have finite products in
#: float64 (1e308 built a model whose every forward overflowed)
INIT_SCALE_MAX = 1e150


def check_init_scale(value, name: str = "init_scale") -> float:
    """A weight scale: a positive scale in the working range [1.18e-38, 3.4e38] (check_positive; the older
    cap ``INIT_SCALE_MAX`` = 1e150 lies past it), as a float."""
    value = check_positive(name, value)
    if value > INIT_SCALE_MAX:
        raise ValueError(f"{name} must be <= 1e150 (products of two weights must stay finite), got {value!r}")
    return value


class TwoLayerReLU(CheckedStateModule):
    """Two-layer network ``f(x) = V σ(W x (+ b)) (+ c)`` with ``width`` hidden units.

    Parameters (constructor): ``in_features``, ``width``, ``out_features`` (default 1);
    ``hidden_bias`` (default True) adds ``b``, ``output_bias`` (default False) adds
    ``c``; ``activation`` one of :data:`ACTIVATIONS`; ``seed`` (an int in [0, 2**64)) draws the weights:
    ``W``, ``b`` ~ N(0, init_scale²/in_features), ``v`` ~ N(0, init_scale²/width),
    ``c = 0``; ``init_scale`` (a float > 0 in [1.18e-38, 3.4e38]: products of two weights stay finite in
    float64; one so large that a drawn weight, init_scale · N(0, 1)/√fan_in, passes 3.4e38 is refused
    naming init_scale: e.g. 3.4e38 with fan_in 1) scales those draws; ``dtype`` float64 (default)
    or float32. These are fixed by construction: assigning another value to one of the attributes
    afterwards (``net.width = 5``, ``net.activation = "tanh"``) raises ValueError naming it.

    ``forward(X)`` returns shape (n, out_features); ``X`` must be a tensor of the model's dtype with
    ``in_features`` on its last axis (a single sample ``(in_features,)`` is accepted: it is what
    ``torch.func.vmap`` passes). The functional view
    (``init``/``forward_with``/``hidden``, see the module docstring) returns (n,) from
    ``forward_with`` when ``out_features == 1``, the convention of the scalar-output theory.

    >>> net = TwoLayerReLU(in_features=3, width=4, seed=0)
    >>> net(torch.zeros(5, 3, dtype=torch.float64)).shape
    torch.Size([5, 1])
    >>> params = net.init(seed=0)
    >>> sorted(params), net.forward_with(params, torch.zeros(5, 3, dtype=torch.float64)).shape
    (['W', 'b', 'v'], torch.Size([5]))
    >>> bool(torch.equal(net.forward_with(params, torch.ones(2, 3, dtype=torch.float64)),
    ...                  net(torch.ones(2, 3, dtype=torch.float64))[:, 0]))
    True
    """


    _FIXED = ("in_features", "width", "out_features", "hidden_bias", "output_bias", "activation", "seed",
              "init_scale")

    @allocates("in_features", "width", "out_features")
    def __init__(self, in_features: int, width: int, out_features: int = 1, *,
                 hidden_bias: bool = True, output_bias: bool = False, activation: str = "relu",
                 seed: int = 0, init_scale: float = 1.0, dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.width = check_positive_int("width", width)
        self.out_features = check_positive_int("out_features", out_features)
        self.hidden_bias = check_bool("hidden_bias", hidden_bias)
        self.output_bias = check_bool("output_bias", output_bias)
        if not isinstance(activation, str) or activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.activation = activation
        self.seed = check_seed(seed)
        self.init_scale = check_init_scale(init_scale)
        dtype = check_torch_dtype(dtype)
        gen = torch.Generator().manual_seed(self.seed)

        def normal(*shape: int, fan_in: int) -> torch.nn.Parameter:
            # drawn in float64 and rounded to the model's dtype: a float32 model (or float32 data) starts from
            # the float64 model's weights, rounded (torch's float32 draws are another sequence)
            draw = (torch.randn(*shape, generator=gen, dtype=torch.float64)
                    * (self.init_scale / fan_in**0.5))
            if not in_working_range(draw):  # 1e308 gave inf weights in silence, 3.4e38 a refusal naming W
                top = float(draw.abs().max())
                raise ValueError(f"init_scale = {self.init_scale!r} draws initial weights up to {top:.4g} "
                                 f"(init_scale · N(0, 1)/√{fan_in}), past the package's working range "
                                 f"({WORKING_MAX:.4g}); pass a smaller init_scale")
            return torch.nn.Parameter(draw.to(dtype))

        # registration order W, b, v, c fixes the layout of flatten_params(dict(named_parameters()))
        self.W = normal(self.width, self.in_features, fan_in=self.in_features)
        self.b = normal(self.width, fan_in=self.in_features) if self.hidden_bias else None
        self.v = normal(self.out_features, self.width, fan_in=self.width)
        self.c = torch.nn.Parameter(torch.zeros(self.out_features, dtype=dtype)) if self.output_bias else None
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, width={self.width}, out_features={self.out_features}, "
                f"hidden_bias={self.hidden_bias}, output_bias={self.output_bias}, "
                f"activation={self.activation!r}, seed={self.seed}, init_scale={self.init_scale:g}")

    # ------------------------------------------------------------------ the module
    def features(self, X: torch.Tensor) -> torch.Tensor:
        """Hidden-layer features σ(X Wᵀ + b) of the module's weights, shape (n, width)."""
        # the last axis and the dtype only: under torch.func.vmap a sample arrives without its batch axis
        self._check_weights()
        self._check_X(X, self.W)
        X = outside_inference(X)    # an inference-mode input: torch could not save it for backward
        return _features(self.W, self.b, X, ACTIVATIONS[self.activation])

    def _check_weights(self) -> None:
        """The module's own weights as they are now: float32/float64 (``.half()`` ran in half precision,
        which the constructor refuses) and finite (a NaN written in place answered NaN); skipped under
        ``torch.func.vmap``, where the weights are the batched ones being differentiated."""
        if self.W.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"TwoLayerReLU's weights must be float32 or float64 (its dtype), got "
                            f"{self.W.dtype} (after .half() or .to(...)); convert the module with .double()")
        check_structure(self)      # net.W = Parameter(of another shape): torch's matmul error before
        for name, flag in (("b", "hidden_bias"), ("c", "output_bias")):
            value = self.__dict__.get(name, self._parameters.get(name))
            if value is not None and not getattr(self, flag):   # (torch.func swaps tensors in for the flag's)
                # m.c = 2.0 (or a NaN tensor) on a model built with output_bias=False was added by forward
                raise TypeError(f"TwoLayerReLU.{name} was set to {type(value).__name__} {value!r:.40} after "
                                f"construction; it is fixed by {flag}={getattr(self, flag)} (build a new "
                                f"TwoLayerReLU with {flag}=True for a trained {name})")
        for name, p in self.named_parameters():
            check_finite_data(f"the weight {name}", p, check_range=False)

    def _check_X(self, X: Any, weight: torch.Tensor, source: str = "the model's parameters") -> None:
        if not isinstance(X, torch.Tensor):
            raise TypeError(f"X must be a torch.Tensor, got {type(X).__name__}")
        # (n, in_features), or one sample (in_features,) as torch.func.vmap passes it; a 3-D batch
        # broadcast to a (.., .., out) output the functional view does not document
        if X.ndim not in (1, 2) or X.shape[-1] != self.in_features:
            raise ValueError(f"X must have shape (n, {self.in_features}) for TwoLayerReLU, got "
                             f"{tuple(X.shape)}")
        if X.dtype != weight.dtype:
            raise TypeError(f"X must have dtype {weight.dtype} ({source}), got {X.dtype}")
        refuse_sparse("X", X)       # a sparse X reached torch's matmul
        check_device("X", X, weight)
        check_finite_data("X", X)
        try:
            top = float(X.detach().abs().max()) if X.numel() else 0.0
        except RuntimeError:        # a vmap-batched sample: checked at the batched call's entry
            top = 0.0
        if top > X_MAX:     # X of 1e300 was accepted: products X·W kept finite only by luck
            raise ValueError(f"X must have entries of magnitude <= {X_MAX:g} (its products with weights up "
                             f"to init_scale = 1e150 stay inside float64), got max |X| = {top:.3g}; "
                             "rescale X")

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Outputs, shape (n, out_features).

        ``X`` is a finite tensor (n, in_features) of the model's dtype (or one sample of shape
        (in_features,)). The module's weights must be finite and float32/float64 (one set to NaN in
        place, or the module cast with ``.half()``, is refused naming the weight or the dtype); they are the
        model's own state, not an argument, and are not held to the working range: a float64 weight past
        3.4e38 (written in place, or reached by a diverging run) is used as it is, its outputs as large.
        ``X``'s entries are in the working range, at most 3.4e38 in magnitude (larger ones are refused
        naming X).
        """
        out = self.features(X) @ self.v.T
        return out if self.c is None else out + self.c

    # ------------------------------------------------------------------ the functional view
    def init(self, seed: int, scale: float | None = None, dtype: torch.dtype | None = None) -> Params:
        """The parameter dict (detached tensors) of this architecture built with ``seed``.

        ``seed`` is an int in [0, 2**64) (as the constructor's); ``scale`` (> 0, the constructor's
        ``init_scale`` range) defaults to this module's ``init_scale``, ``dtype`` to its dtype.
        """
        if scale is not None:  # named as this method's argument (the constructor would say init_scale)
            scale = check_init_scale(scale, "scale")
        try:
            twin = TwoLayerReLU(self.in_features, self.width, self.out_features, hidden_bias=self.hidden_bias,
                                output_bias=self.output_bias, activation=self.activation, seed=seed,
                                init_scale=self.init_scale if scale is None else scale,
                                dtype=self.W.dtype if dtype is None else dtype)
        except ValueError as exc:       # the twin's init_scale is this method's scale
            if scale is None or "init_scale" not in str(exc):
                raise
            raise ValueError(str(exc).replace("init_scale", "scale")) from None
        return {name: p.detach() for name, p in twin.named_parameters()}

    def hidden(self, params: Params, X: torch.Tensor) -> torch.Tensor:
        """Hidden-layer features σ(X Wᵀ + b) at ``params``, shape (n, width)."""
        self._check_params(params)  # the check forward_with makes (a str params failed on indexing)
        self._check_X(X, params["W"], "that of params['W']: X and params must agree")
        return _features(params["W"], params.get("b"), X, ACTIVATIONS[self.activation])

    def forward_with(self, params: Params, X: torch.Tensor) -> torch.Tensor:
        """``forward`` at ``params`` (``torch.func.functional_call``); shape (n,) when out_features == 1.

        ``X`` is a finite tensor (n, in_features) of the model's dtype.

        ``params`` must hold exactly this module's parameter names with their shapes: functional_call
        would silently fill a missing name from the module and ignore an unknown one.
        """
        self._check_params(params)
        if isinstance(X, torch.Tensor) and X.dtype != params["W"].dtype:    # forward() would name X alone
            raise TypeError(f"X and params must share one dtype: X has {X.dtype}, params['W'] has "
                            f"{params['W'].dtype}")
        out = functional_forward(self, params, (X,))
        return out[:, 0] if self.out_features == 1 else out

    def _check_params(self, params: Params) -> None:
        if not isinstance(params, dict):
            raise TypeError(f"params must be a dict of tensors, got {type(params).__name__}")
        own = dict(self.named_parameters())
        missing, unknown = sorted(set(own) - set(params)), sorted(set(params) - set(own))
        if missing or unknown:
            raise ValueError(f"params must have exactly the keys {sorted(own)}, got missing {missing} "
                             f"and unknown {unknown}")
        for name, p in own.items():
            value = params[name]
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"params[{name!r}] must be a torch.Tensor, got {type(value).__name__}")
            if value.shape != p.shape:
                raise ValueError(f"params[{name!r}] must have shape {tuple(p.shape)}, "
                                 f"got {tuple(value.shape)}")
            if value.dtype != params["W"].dtype:    # a float32 b was promoted in silence, a float32 v met
                raise TypeError(f"params[{name!r}] must have params['W']'s dtype {params['W'].dtype} (one "
                                f"dtype for all parameters), got {value.dtype}")   # torch's matmul error
            # a NaN/inf or meta parameter came out as NaN features/outputs; skipped under torch.func.vmap
            check_finite_data(f"params[{name!r}]", value)
