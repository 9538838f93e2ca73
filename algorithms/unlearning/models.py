"""The model classes of the unlearning theory as ``torch.nn.Module``s.

* :class:`LinearModel`: ``f(θ, x) = θᵀx`` (Section 4.1, Theorem 2);
* :class:`DeepLinear`: ``f(θ, x) = cᵀ A_{L-1} ⋯ A_1 x`` with θ = [c; vec(A_1); ...; vec(A_{L-1})]
  (Section 4.2, Lemma 1, Theorems 3-4); its effective predictor is ``w(θ) = A_1ᵀ ⋯ A_{L-1}ᵀ c``;
* :class:`TwoLayerPerceptron`: ``f(θ, x) = cᵀ φ(A x)`` with θ = [c; vec(A)] (Section 4.3,
  Lemma 2, Theorem 5, Proposition 1, Corollary 1).

Each draws its parameters N(0, 1/fan_in) from a generator seeded by ``seed``, has
``in_features``/``out_features`` and ``forward(X)`` of shape (n, out_features). The algorithms
use them through their flat parameter vector (registration order, as the paper stacks θ) and
``torch.func.functional_call``.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601.

>>> net = DeepLinear(in_features=4, widths=(3, 2), seed=0)
>>> [name for name, _ in net.named_parameters()]
['c', 'A1', 'A2']
>>> X = torch.randn(5, 4, dtype=torch.float64)
>>> bool(torch.allclose(net(X)[:, 0], X @ effective_predictor(net)))
True
"""

from __future__ import annotations

import itertools
import math
import types
from collections.abc import Callable, Mapping
from typing import Any

import torch

from algorithms._modules import (
    FUNCTION_METHODS,
    CheckedStateModule,
    check_structure,
    fix_attributes,
    has_forward_hooks,
    overrides_any,
    remember_structure,
)
from algorithms._validation import (
    allocates,
    check_device,
    check_finite_data,
    check_fits_memory,
    check_float_tensor,
    check_positive_int,
    check_seed,
    check_torch_dtype,
    outside_inference,
)

__all__ = ["ACTIVATIONS", "DeepLinear", "LinearModel", "TwoLayerPerceptron", "effective_predictor"]


def check_model_dtype(model: torch.nn.Module, dtype: torch.dtype | None = None, name: str = "model") -> None:
    """A model's floating parameters are float32 or float64 (``model.half()`` was used as it is, rounding
    every result to half precision) and, when ``dtype`` is given, all of that dtype (a float32 model beside
    float64 data was cast in silence)."""
    for key, param in model.named_parameters():
        if param.is_complex():      # LinearModel(3).to(torch.complex128) answered complex outputs in silence
            raise TypeError(f"{name} must have float32 or float64 parameters, got {key} of dtype "
                            f"{param.dtype} (converted after construction? convert it with .float() or "
                            ".double())")
        if not param.is_floating_point():
            continue
        if param.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must have float32 or float64 parameters, got {key} of dtype "
                            f"{param.dtype} (convert it with .float() or .double())")
        if dtype is not None and param.dtype != dtype:
            raise TypeError(f"{name} must have the data's dtype {dtype}, got {key} of dtype {param.dtype} "
                            f"(convert the model or the data)")

#: activations of :class:`TwoLayerPerceptron` (Theorem 5 holds for any activation); read-only, as every
#: module-level registry of the package
ACTIVATIONS: Mapping[str, Callable[[torch.Tensor], torch.Tensor]] = types.MappingProxyType({
    "relu": torch.relu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "silu": torch.nn.functional.silu,
})


def _draw(gen: torch.Generator, dtype: torch.dtype, *shape: int, fan_in: int) -> torch.nn.Parameter:
    return torch.nn.Parameter(torch.randn(*shape, generator=gen, dtype=dtype) / math.sqrt(fan_in))


def _remember_settings(model: torch.nn.Module) -> None:
    """Record the settings the parameters were built for (``_FIXED``), for :func:`_check_settings`."""
    model.__dict__["_built_settings"] = {k: model.__dict__[k] for k in model._FIXED if k in model.__dict__}


def _check_settings(model: torch.nn.Module) -> None:
    """The settings as built: a whole-model pickle (``torch.load``) or ``__setstate__`` restores ``__dict__``
    as it is, past the refusal of a reassignment (activation "zz" met a bare KeyError, width 7 on a layer
    of 5 neurons was taken in silence; red20b)."""
    for name, built in model.__dict__.get("_built_settings", {}).items():
        now = model.__dict__.get(name, built)
        if now is not built and now != built:
            kind = type(model).__name__
            raise ValueError(f"{kind}.{name} is {now!r:.40}, but its parameters were built for {built!r:.40} "
                             f"(a restored or edited __dict__); build a new {kind}")


def _check_input(model: torch.nn.Module, X: Any, dtype: torch.dtype) -> torch.Tensor:
    """``X`` checked for ``model``; an inference-mode tensor used outside inference mode is cloned (torch's
    "Inference tensors cannot be saved for backward" named no argument)."""
    # a parameter replaced (m.weight = Parameter(of another shape or an int dtype)) met torch's matmul error
    # or blamed X's dtype: named here, by the parameter
    check_structure(model)
    _check_settings(model)
    for key, param in model.named_parameters():
        if not param.is_floating_point():
            raise TypeError(f"{type(model).__name__}.{key} was replaced by a {param.dtype} parameter; the "
                            f"model's parameters are float32 or float64 (build a new model)")
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch.Tensor, got {type(X).__name__}")
    if X.ndim != 2 or X.shape[1] != model.in_features:
        raise ValueError(f"X must have shape (n, {model.in_features}) for {type(model).__name__}, "
                         f"got {tuple(X.shape)}")
    # .half() / .bfloat16() after construction (refused there) ran in half precision in silence; before X's
    # dtype: a half state loaded with assign=True asked for a float16 X, then refused it (red23b)
    check_model_dtype(model, name=type(model).__name__)
    if X.dtype != dtype:
        raise TypeError(f"X must have dtype {dtype} (the model's parameters), got {X.dtype}")
    reference = next(model.parameters(), None)
    if reference is not None:
        check_device("X", X, reference)
    check_finite_data("X", X)  # NaN rows gave NaN predictions in silence (as the other families' models)
    for key, param in model.named_parameters():  # NaN weights written in place answered NaN outputs
        check_finite_data(f"{type(model).__name__}.{key}", param)
    return outside_inference(X)


def check_layers_fit(owner: str, name: str, value: Any, dims: tuple[int, ...], rows: int = 0) -> None:
    """A model of the layer sizes ``dims`` refused by name, before anything is built, when its parameters
    (with their gradients and two optimizer states) and ``rows`` of activations do not fit in memory: a width
    of 2**31 was granted by the kernel's overcommit and then paged into the OOM killer, with no error."""
    params = sum(a * b + b for a, b in itertools.pairwise(dims))
    check_fits_memory(owner, name, value, 8.0 * (4 * params + rows * sum(dims)))


class LinearModel(CheckedStateModule):
    """``f(θ, x) = θᵀx`` without intercept; parameter ``weight`` of shape (out_features, in_features).

    ``in_features`` and ``out_features`` (default 1) are positive ints whose weight fits this machine's
    memory (a larger one is refused, naming the larger of the two); ``seed`` an int in [0, 2**64) draws the
    weight; ``dtype`` torch.float32 or torch.float64. After construction the sizes and seed cannot be
    reassigned, and an attribute the model does not have (a misspelt ``m.in_featuress = 5``) raises
    ValueError naming it.

    >>> LinearModel(in_features=3, seed=1)(torch.zeros(2, 3, dtype=torch.float64)).shape
    torch.Size([2, 1])
    """

    #: the sizes the parameters were built for: reassigning one is refused by name (a later forward
    #: met torch's matmul shape error)
    _FIXED = ("in_features", "out_features", "seed")

    @allocates("in_features", "out_features")
    def __init__(self, in_features: int, out_features: int = 1, *, seed: int = 0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.out_features = check_positive_int("out_features", out_features)
        # named by the larger size (in_features = 2**40 was blamed on out_features = 1)
        larger = "in_features" if self.in_features >= self.out_features else "out_features"
        check_layers_fit("LinearModel", larger, getattr(self, larger), (self.in_features, self.out_features))
        self.seed = check_seed(seed)
        check_torch_dtype(dtype)
        gen = torch.Generator().manual_seed(self.seed)
        self.weight = _draw(gen, dtype, self.out_features, self.in_features, fan_in=self.in_features)
        remember_structure(self)
        _remember_settings(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Outputs (n, out) for ``X`` a finite tensor (n, in_features) of the model's dtype and device."""
        X = _check_input(self, X, self.weight.dtype)
        return X @ self.weight.T


class DeepLinear(CheckedStateModule):
    """``f(θ, x) = cᵀ A_{L-1} ⋯ A_1 x``: ``widths`` = (h_1, ..., h_{L-1}), at least one hidden width.

    Parameters registered as ``c`` (h_{L-1},), ``A1`` (h_1, in_features), ..., ``A{L-1}``
    (h_{L-1}, h_{L-2}), the paper's order θ = [c; vec(A_1); ...]. ``depth`` is L. ``in_features``
    and each width are ints >= 1 (``widths`` a non-empty tuple, or a list, kept as a tuple), ``seed``
    (int in [0, 2**64)) draws the weights and ``dtype`` is torch.float32 or torch.float64 (default float64).
    After construction the sizes, ``out_features`` (1) and seed cannot be reassigned, and an attribute the
    model does not have (a misspelt ``m.widthss = (3,)``) raises ValueError naming it.

    >>> DeepLinear(in_features=5, widths=(4,), seed=0).depth
    2
    """

    #: the sizes the parameters were built for: reassigning one is refused by name (a later forward
    #: met torch's matmul shape error)
    _FIXED = ("in_features", "widths", "seed", "out_features")

    out_features = 1

    @allocates("in_features", "widths")
    def __init__(self, in_features: int, widths: tuple[int, ...], *, seed: int = 0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        if not isinstance(widths, tuple | list) or len(widths) == 0:
            raise ValueError(f"widths must be a non-empty tuple of hidden widths, got {widths!r}")
        self.widths = tuple(check_positive_int(f"widths[{k}]", h) for k, h in enumerate(widths))
        check_layers_fit("DeepLinear", "widths", self.widths, (self.in_features, *self.widths, 1))
        self.seed = check_seed(seed)
        self.out_features = 1   # an instance attribute, so that reassigning it is refused (it was ignored)
        check_torch_dtype(dtype)
        gen = torch.Generator().manual_seed(self.seed)
        self.c = _draw(gen, dtype, self.widths[-1], fan_in=self.widths[-1])
        sizes = (self.in_features, *self.widths)
        for layer in range(1, len(sizes)):
            setattr(self, f"A{layer}", _draw(gen, dtype, sizes[layer], sizes[layer - 1],
                                             fan_in=sizes[layer - 1]))
        remember_structure(self)
        _remember_settings(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    @property
    def depth(self) -> int:
        return len(self.widths) + 1

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Outputs (n, out) for ``X`` a finite tensor (n, in_features) of the model's dtype and device."""
        X = _check_input(self, X, self.c.dtype)
        h = X
        for layer in range(1, self.depth):
            h = h @ getattr(self, f"A{layer}").T
        return (h @ self.c)[:, None]


class TwoLayerPerceptron(CheckedStateModule):
    """``f(θ, x) = cᵀ φ(A x)`` with ``width`` neurons: parameters ``c`` (width,), ``A`` (width, in_features).

    ``activation`` is one of :data:`ACTIVATIONS`. The width measure of Section 4.3 counts the
    neurons with ``|c_i|·‖a_i‖ > 0``. ``in_features`` and ``width`` are ints >= 1, ``seed`` (int in
    [0, 2**64)) draws the weights and ``dtype`` is torch.float32 or torch.float64 (default float64).
    After construction the sizes, activation, ``out_features`` (1) and seed cannot be reassigned, and an
    attribute the model does not have (a misspelt ``m.activaton = "relu"``) raises ValueError naming it.

    >>> TwoLayerPerceptron(in_features=2, width=6, activation="tanh", seed=0).A.shape
    torch.Size([6, 2])
    """

    #: the sizes the parameters were built for: reassigning one is refused by name (a later forward
    #: met torch's matmul shape error)
    _FIXED = ("in_features", "width", "activation", "seed", "out_features")

    out_features = 1

    @allocates("in_features", "width")
    def __init__(self, in_features: int, width: int, *, activation: str = "tanh", seed: int = 0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.width = check_positive_int("width", width)
        check_layers_fit("TwoLayerPerceptron", "width", self.width, (self.in_features, self.width, 1))
        if not isinstance(activation, str) or activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.activation = activation
        self.seed = check_seed(seed)
        self.out_features = 1   # an instance attribute, so that reassigning it is refused (it was ignored)
        check_torch_dtype(dtype)
        gen = torch.Generator().manual_seed(self.seed)
        self.c = _draw(gen, dtype, self.width, fan_in=self.width)
        self.A = _draw(gen, dtype, self.width, self.in_features, fan_in=self.in_features)
        remember_structure(self)
        _remember_settings(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def features(self, X: torch.Tensor) -> torch.Tensor:
        """The hidden representation φ(A x) of each row of ``X``, shape (n, width)."""
        X = _check_input(self, X, self.A.dtype)
        return ACTIVATIONS[self.activation](X @ self.A.T)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Outputs (n, out) for ``X`` a finite tensor (n, in_features) of the model's dtype and device."""
        return (self.features(X) @ self.c)[:, None]


#: the methods that make up each model class's function: a subclass overriding one computes another f
def computes_class_function(model: Any, cls: type) -> bool:
    """Whether ``model`` is a ``cls`` that computes ``cls``'s documented f (what the closed forms assume).

    False for another type, for a subclass that overrides ``forward`` (or ``features``, ``__call__``), and for
    an instance whose forward hooks (its own or torch's global ones) change its outputs; a hook that only
    looks (returns None) keeps f. A LinearModel subclass whose forward added 1 was retrained by the closed
    form θ = pinv(X) y, which ignored the 1, and reported Success with retain loss 1 (red25b)."""
    if not isinstance(model, cls):
        return False
    if overrides_any(model, cls, (*FUNCTION_METHODS, "features")):
        return False
    if not has_forward_hooks(model):
        return True
    weight = next(model.parameters())
    # a few basis rows and a row of ones: enough to see a hook that changes outputs (not an (n, n) eye)
    rows = min(model.in_features, 4)
    probe = torch.cat([torch.eye(rows, model.in_features, dtype=weight.dtype, device=weight.device),
                       torch.ones(1, model.in_features, dtype=weight.dtype, device=weight.device)])
    try:
        with torch.no_grad():
            hooked, plain = model(probe), cls.forward(model, probe)
    except Exception:  # a hook that raises: not the class's f
        return False
    return isinstance(hooked, torch.Tensor) and hooked.shape == plain.shape and bool(
        torch.equal(hooked, plain))


def check_class_function(name: str, model: Any, cls: type) -> None:
    """Refuse, naming ``name``, a model that is not a ``cls`` computing ``cls``'s own f (see
    :func:`computes_class_function`): a method built on that f's structure would answer for another f."""
    if not isinstance(model, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {type(model).__name__}")
    if not computes_class_function(model, cls):
        how = ("a subclass overriding forward" if type(model) is not cls
               else "a forward hook changes its outputs")
        raise TypeError(f"{name} must compute {cls.__name__}'s own f (this method relies on its structure), "
                        f"got a {type(model).__name__} whose f differs ({how}); use a method for any model "
                        f"(MinNormOG, GradientDescent, Retrain)")


def effective_predictor(model: torch.nn.Module,
                        params: dict[str, torch.Tensor] | None = None) -> torch.Tensor:
    """The linear map x -> f(θ, x) as a vector: θ itself for :class:`LinearModel` (one output),
    ``A_1ᵀ ⋯ A_{L-1}ᵀ c`` for :class:`DeepLinear`; ``params`` (name -> tensor) default to the model's.
    ``model`` must compute its class's own f: a subclass overriding ``forward`` or a forward hook that changes
    its outputs is refused (TypeError naming ``model``), since the vector would not be its map.

    ``params``' tensors share one dtype, float32 or float64 (a mix, half precision, integers or complex
    are refused by name); the result has that dtype, which may differ from the model's own parameters'
    (an :class:`~algorithms.unlearning.UnlearningProblem` runs a float32 model's map in its data's float64).

    >>> m = LinearModel(in_features=2, seed=0)
    >>> bool(torch.equal(effective_predictor(m), m.weight.detach()[0]))
    True
    """
    if not isinstance(model, LinearModel | DeepLinear):
        raise TypeError("model must be a LinearModel or a DeepLinear (a linear map), "
                        f"got {type(model).__name__}")
    check_class_function("model", model, LinearModel if isinstance(model, LinearModel) else DeepLinear)
    if params is None:
        params = {k: p.detach() for k, p in model.named_parameters()}
    names = [k for k, _ in model.named_parameters()]
    unknown = sorted(map(str, set(params) - set(names))) if isinstance(params, dict) else []
    if unknown:  # an unknown key was dropped in silence
        raise ValueError(f"params has keys that are not the model's parameters: {unknown} (the model's are "
                         f"{names})")
    if not isinstance(params, dict) or any(not isinstance(params.get(k), torch.Tensor) for k in names):
        got = sorted(params) if isinstance(params, dict) else type(params).__name__
        raise ValueError(f"params must be a dict holding the model's parameters {names} as tensors, "
                         f"got {got}")
    for k, p in model.named_parameters():
        if tuple(params[k].shape) != tuple(p.shape):
            raise ValueError(f"params[{k!r}] must have the model's shape {tuple(p.shape)}, "
                             f"got {tuple(params[k].shape)}")
        check_float_tensor(f"params[{k!r}]", params[k], allow_half=False)  # NaN: a NaN predictor, silently
    dtypes = {k: params[k].dtype for k in names}
    if len(set(dtypes.values())) > 1 or not set(dtypes.values()) <= {torch.float32, torch.float64}:
        # a float32 weight beside a float64 one was mixed (torch promoted); float16 gave a half predictor
        raise TypeError(f"params must share one dtype, float32 or float64, got "
                        f"{ {k: str(d).replace('torch.', '') for k, d in dtypes.items()} }")
    if isinstance(model, LinearModel):
        if model.out_features != 1:
            raise ValueError("model must have out_features = 1 for a predictor vector, "
                             f"got {model.out_features}")
        return params["weight"][0]
    w = params["c"]
    for layer in range(model.depth - 1, 0, -1):
        w = params[f"A{layer}"].T @ w
    return w
