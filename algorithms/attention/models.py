"""The single-location predictors as ``torch.nn.Module`` s, and the best linear predictor.

* :class:`SoftmaxAttention` (Dohmatob, eq. 2): ``f(X; u, v) = Σ_ℓ softmax_ℓ(λ X u) σ(x_ℓᵀ v)``,
  ``λ = β √d``, parameters a pair of unit vectors (u, v);
* :class:`ErfAttention` (Marion et al., their simplified layer): ``T(X) = Σ_ℓ erf(λ x_ℓᵀ k) x_ℓᵀ v``;
* the best linear predictor ``f(X) = Σ_ℓ w_ℓᵀ x_ℓ`` in closed form (linear link) and fitted by
  least squares; its risk stays of order γ², which is the separation both papers start from.

References
----------
E. Dohmatob. Understanding softmax attention layers: exact mean-field analysis on a toy problem.
NeurIPS 2025, eq. (2). P. Marion et al. Attention layers provably solve single-location
regression. ICLR 2025 (arXiv:2410.01537), Sections 2-3.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from algorithms._modules import CheckedStateModule, refuse_reassignment
from algorithms._validation import (
    allocates,
    check_device,
    check_finite_data,
    check_fits_memory,
    check_float_tensor,
    check_int_at_least,
    check_positive,
    check_seed,
    check_torch_dtype,
    refuse_unknown_attribute,
    to_float,
)
from algorithms.attention.problem import LINKS, SingleLocationProblem, check_problem, link_function

__all__ = ["ErfAttention", "SoftmaxAttention", "best_linear_risk", "best_linear_weights",
           "fit_linear_predictor"]


def _random_unit(d: int, gen: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
    vec = torch.randn(d, generator=gen, dtype=torch.float64)
    return (vec / torch.linalg.vector_norm(vec)).to(dtype)


def _check_tokens(X, d: int, dtype: torch.dtype | None = None, name: str = "X") -> torch.Tensor:
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor of shape (n, L, {d}), got {type(X).__name__}")
    if X.ndim != 3 or X.shape[-1] != d:  # a mismatch names both sides: X and the model's token dimension
        raise ValueError(f"{name} must have shape (n, L, {d}) (d = {d}, the token dimension the model was "
                         f"built for: its in_features), got {tuple(X.shape)}")
    if X.shape[1] == 0:  # attention over no token: a softmax over nothing, the output an empty sum (0)
        raise ValueError(f"{name} must hold at least one token (L >= 1), got shape {tuple(X.shape)}")
    # torch's own message for a mixed-dtype matmul names no argument
    if dtype is not None and X.dtype != dtype:
        raise TypeError(f"{name} must have dtype {dtype} (the model's parameters), got {X.dtype}")
    check_finite_data(name, X)  # NaN tokens gave a NaN prediction in silence (as nets' attention refuses)
    if X.is_inference() and not torch.is_inference_mode_enabled():
        X = X.clone()  # an inference-mode tensor outside inference mode: torch refused it for autograd
    return X


def tempered_softmax(scale: float, scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """softmax(scale · scores) along ``dim``. When scale · scores overflows (β near float's max: inf − inf
    gave NaN weights in silence) the scores are shifted by their (detached) maximum first: (s − max s)·scale
    lies in [−inf, 0], so the result is the limit, uniform over the top scores. softmax is shift-invariant, so
    value and gradient are the same; the common case keeps the plain product (bit for bit as before)."""
    logits = scale * scores
    if not bool(torch.isfinite(logits).all()):
        # in float64: a float32 scale past float32's range (β = 3.4e38, λ = β√d) was inf there, and inf · 0
        # at the top score gave NaN weights
        shifted = (scores - scores.detach().amax(dim=dim, keepdim=True)).double()
        return torch.softmax(scale * shifted, dim=dim).to(scores.dtype)
    return torch.softmax(logits, dim=dim)


def _check_dimension(d) -> int:
    return check_int_at_least("in_features", d, 2)


def _unit_tolerance(d: int, dtype: torch.dtype) -> float:
    """The unit-norm tolerance of a d-vector of ``dtype`` (rounding of a normalised vector; 1e-6 at least)."""
    eps = torch.finfo(dtype).eps if dtype.is_floating_point else 2.3e-16
    return max(1e-6, 10.0 * math.sqrt(d) * eps)


def _check_unit(where: str, value: torch.Tensor) -> None:
    norm = float(torch.linalg.vector_norm(value.detach().double()))
    if abs(norm - 1.0) > _unit_tolerance(value.numel(), value.dtype):
        raise ValueError(f"{where} must be a unit vector (the model's key and value live on the sphere), got "
                         f"norm {norm:.6g}")


def _finite_map(X: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """A projection or output of finite tokens: inf when X's entries are too large for its dtype (float32
    tokens at 3e38 gave an inf output in silence, or a link error naming its own argument t)."""
    if not bool(torch.isfinite(out).all()):
        top = float(X.detach().abs().max()) if X.numel() else 0.0
        raise ValueError(f"X has entries too large for {X.dtype}: the model's output overflows (max |X| = "
                         f"{top:.3g}); rescale X or use float64")
    return out


def _check_unit_state(state_dict, names: tuple[str, ...], d: int) -> None:
    """``load_state_dict``'s unit check: a key or value vector scaled by 3 was loaded as it was (the other
    malformed entries are left to the shared state check, which names them)."""
    if not isinstance(state_dict, dict):
        return
    for name in names:
        value = state_dict.get(name)
        # of the model's shape (d,) only: a (1,) entry was refused as "not a unit vector", a shape mismatch
        # reported as a norm (the shared state check names the shape)
        if isinstance(value, torch.Tensor) and value.is_floating_point() and tuple(value.shape) == (d,) \
                and value.layout == torch.strided and value.device.type != "meta" \
                and bool(torch.isfinite(value.detach()).all()):
            _check_unit(f"state_dict[{name!r}]", value)


def _check_vectors(module: nn.Module, names: tuple[str, str]) -> None:
    """The model's two parameter vectors as built: tensors of shape (in_features,) of one floating dtype. One
    replaced after construction (``model.u = nn.Parameter(torch.ones(5))``, a float32 u beside a float64 v,
    ``model.v = None``) met torch's "size mismatch", a message blaming X's dtype, or an AttributeError."""
    d = module.__dict__.get("in_features")
    # set past __setattr__ (a whole-model pickle's __dict__ restored as is): out_features = 3 answered
    # one column in silence
    if type(d) is not int or d < 2:
        raise ValueError(f"the model's in_features must be an int >= 2, got {d!r:.40} (set after "
                         "construction)")
    if module.__dict__.get("out_features") != 1 or type(module.__dict__.get("out_features")) is not int:
        raise ValueError(f"the model's out_features must be 1 (one output per sequence), got "
                         f"{module.__dict__.get('out_features')!r:.40} (set after construction)")
    dtypes = {}
    for name in names:
        value = getattr(module, name, None)
        if not isinstance(value, torch.Tensor) or not value.is_floating_point():
            raise TypeError(f"the model's parameter {name} must be a floating tensor of shape ({d},), got "
                            f"{type(value).__name__} {getattr(value, 'dtype', '')} (replaced after "
                            f"construction)")
        if tuple(value.shape) != (d,):
            raise ValueError(f"the model's parameter {name} must have shape ({d},) (in_features = {d}), got "
                             f"{tuple(value.shape)} (replaced after construction)")
        dtypes[name] = value.dtype
    if len(set(dtypes.values())) > 1:
        shown = ", ".join(f"{name}: {dtype}" for name, dtype in dtypes.items())
        raise TypeError(f"the model's parameters must share one dtype, got {shown}; convert the model with "
                        f".float() or .double()")
    dtype = next(iter(dtypes.values()))
    if dtype not in (torch.float32, torch.float64):
        # .half() / .bfloat16() (or a half state_dict loaded with assign=True) after construction ran the
        # forward in half precision, 0.7 % off, although the constructor refuses those dtypes
        raise TypeError(f"the model's parameters must be float32 or float64 (the dtypes the constructor "
                        f"takes), got {dtype}; convert the model with .float() or .double()")


def _check_parameters(module: nn.Module) -> None:
    """NaN/inf weights (written in place, or loaded before the state check existed) gave NaN outputs in
    silence: refused by name at forward."""
    for name, param in module.named_parameters():
        if param.device.type != "meta" and not bool(torch.isfinite(param.detach()).all()):
            raise ValueError(f"the model's parameter {name} contains NaN or inf entries")


def _refuse_dtype(module: nn.Module, name: str, value: Any = None, known: tuple[str, ...] = ()) -> None:
    """``model.dtype = torch.float32`` was stored as a new attribute while the parameters stayed float64
    (forward then refused float32 tokens, against the attribute): the dtype is the parameters'. Once built
    (its last vector ``known[-1]`` set), a name the model does not take (``model.bta = 2.0``, Erf's ``lam``
    on a softmax model) is refused: it was stored and ignored; a submodule (torch's parametrize) is left to
    torch."""
    if name == "dtype":
        kind = type(module).__name__
        raise TypeError(f"dtype of a {kind} is its parameters' dtype and cannot be assigned; convert the "
                        f"model with .float() or .double() (or .to(dtype))")
    if known and known[-1] in module.__dict__.get("_parameters", {}) and not isinstance(value, nn.Module):
        taken = {*known, *module._parameters, *module._buffers, *module._modules}
        refuse_unknown_attribute(module, name, tuple(taken))


class SoftmaxAttention(CheckedStateModule):
    """Softmax single-location attention with unit parameters ``u`` (key) and ``v`` (value).

    Parameters: ``in_features`` (int >= 2, the token dimension d), ``beta`` (float in [1.18e-38, 3.4e38], the
    working range: the softmax's inverse temperature, scaled by √d, λ = β√d; a tiny β gives uniform weights,
    a huge one the argmax, both valid limits, in float32 too), ``link`` (one of ``"linear"``, ``"quadratic"``,
    ``"relu"``, applied to ``x_ℓᵀ v``), ``seed`` (int in [0, 2**64), draws ``u`` and ``v`` uniformly on
    the unit sphere) and ``dtype`` (torch.float32 or torch.float64; the ``dtype`` attribute reads the
    parameters' and cannot be assigned); ``forward(X)`` takes tokens ``X`` of shape (n, L, d) of that dtype.
    ``u`` and ``v`` stay unit vectors: ``forward`` and ``load_state_dict`` refuse ones off the sphere (beyond
    rounding: |‖u‖ − 1| > max(1e-6, 10·√d·eps of their dtype)) by name; parameters turned float16/bfloat16
    after construction (``.half()``) are refused by ``forward`` (TypeError), as the constructor refuses those
    dtypes. Set after construction, ``beta`` and ``link`` are checked as by the constructor, and a name the
    model does not take (``model.bta = 2.0``) is refused by name (``UnknownAttributeError``, a ValueError).

    >>> model = SoftmaxAttention(4, beta=1.0, seed=0)
    >>> model(torch.zeros(2, 3, 4, dtype=torch.float64)).shape
    torch.Size([2, 1])
    """

    @allocates("in_features")
    def __init__(self, in_features: int, beta: float = 1.0, link: str = "linear", seed: int = 0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.in_features = _check_dimension(in_features)
        self.out_features = 1
        self.beta = check_positive("beta", beta)  # the working range keeps λ = β√d finite in float64
        if not isinstance(link, str) or link not in LINKS:
            raise ValueError(f"link must be one of {sorted(LINKS)}, got {link!r}")
        self.link = str(link)  # a numpy str_ stored as a str
        gen = torch.Generator().manual_seed(check_seed(seed))
        dtype = check_torch_dtype(dtype)
        self.u = nn.Parameter(_random_unit(self.in_features, gen, dtype))
        self.v = nn.Parameter(_random_unit(self.in_features, gen, dtype))

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """torch's ``load_state_dict`` of ``state_dict`` after the shared checks (``strict`` and ``assign``
        bools, finite weights, keys and shapes) and a unit-norm check of its ``u`` and ``v`` (the model's
        documented unit parameters: a vector off the sphere is refused by name)."""
        _check_unit_state(state_dict, ("u", "v"), self.in_features)
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def __setattr__(self, name: str, value) -> None:
        # set after construction: beta = NaN or −1 gave NaN or anti-attention outputs in silence, link =
        # "x" an error at forward naming "name (a link)"
        if name == "beta" and "in_features" in self.__dict__:
            value = check_positive("beta", value)
        elif name == "link" and (not isinstance(value, str) or value not in LINKS):
            raise ValueError(f"link must be one of {sorted(LINKS)}, got {value!r:.40}")
        elif name == "link":
            value = str(value)
        _refuse_dtype(self, name, value, ("beta", "link", "training", "u", "v"))
        refuse_reassignment(self, name, value, ("in_features", "out_features"))
        super().__setattr__(name, value)

    @property
    def dtype(self) -> torch.dtype:
        """The parameters' dtype (what ``forward`` takes); change it with ``.float()`` / ``.double()``."""
        return self.u.dtype

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The model's output on tokens. ``X`` holds tokens, a finite tensor of shape (n, L, d) (entries of
        magnitude <= 3.4e38, the working range) of the
        model's dtype and device; returns (n, 1) (an empty batch, n = 0, gives an empty (0, 1) result;
        L >= 1 tokens are needed). Parameters with NaN or inf entries are refused, and an output that
        overflows X's dtype (float32 tokens near 3e38) is refused naming X.
        """
        _check_vectors(self, ("u", "v"))
        # set past __setattr__ (object.__setattr__): a NaN beta blamed X, link "zz" named "name", in forward
        check_positive("beta", self.beta)
        if not isinstance(self.link, str) or self.link not in LINKS:
            raise ValueError(f"link must be one of {sorted(LINKS)}, got {self.link!r:.40}")
        X = _check_tokens(X, self.in_features, self.u.dtype)
        check_device("X", X, self.u)
        _check_parameters(self)
        for name in ("u", "v"):  # written in place off the sphere: the documented unit parameters
            _check_unit(f"the model's parameter {name}", getattr(self, name))
        keys, values = _finite_map(X, X @ self.u), _finite_map(X, X @ self.v)
        return _finite_map(X, self._attend(keys, values))

    def _output(self, X: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` on tokens the caller validated once (a solver's fixed sample): the per-call checks
        of 2**26 token entries cost ~10 s a step, and a non-finite output is the solver's to report."""
        return self._attend(X @ self.u, X @ self.v)

    def _attend(self, keys: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        weights = tempered_softmax(self.beta * math.sqrt(self.in_features), keys)
        return (weights * link_function(self.link)(values)).sum(-1, keepdim=True)


class ErfAttention(CheckedStateModule):
    """Marion et al.'s pointwise layer ``T(X) = Σ_ℓ erf(λ x_ℓᵀ k) x_ℓᵀ v`` (no softmax coupling).

    Parameters: ``in_features`` (int >= 2, the token dimension d), ``lam`` (a float > 0 in [1.18e-38, 3.4e38],
    λ; a tiny λ gives outputs near 0, a huge one erf = sign: valid limits),
    ``seed`` (int in [0, 2**64), draws k and v uniformly on the unit sphere) and ``dtype`` (torch.float32
    or torch.float64; the ``dtype`` attribute reads the parameters' and cannot be assigned); ``forward(X)``
    takes tokens ``X`` of shape (n, L, d) of that dtype. ``k`` and ``v`` stay unit vectors: ``forward`` and
    ``load_state_dict`` refuse ones off the sphere (beyond rounding, as in :class:`SoftmaxAttention`) by
    name; float16/bfloat16 parameters (``.half()`` after construction) are refused by ``forward``, as in
    :class:`SoftmaxAttention`. Set after construction, ``lam`` is checked as by the constructor, and a name
    the model does not take (``model.beta = 2.0``) is refused by name (``UnknownAttributeError``, a
    ValueError).

    >>> model = ErfAttention(4, lam=0.5, seed=0)
    >>> model(torch.zeros(2, 3, 4, dtype=torch.float64)).shape
    torch.Size([2, 1])
    """

    @allocates("in_features")
    def __init__(self, in_features: int, lam: float = 1.0, seed: int = 0,
                 dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.in_features = _check_dimension(in_features)
        self.out_features = 1
        self.lam = check_positive("lam", lam)
        gen = torch.Generator().manual_seed(check_seed(seed))
        dtype = check_torch_dtype(dtype)
        self.k = nn.Parameter(_random_unit(self.in_features, gen, dtype))
        self.v = nn.Parameter(_random_unit(self.in_features, gen, dtype))

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """torch's ``load_state_dict`` of ``state_dict`` after the shared checks (``strict`` and ``assign``
        bools, finite weights, keys and shapes) and a unit-norm check of its ``k`` and ``v``."""
        _check_unit_state(state_dict, ("k", "v"), self.in_features)
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def __setattr__(self, name: str, value) -> None:
        if name == "lam" and "in_features" in self.__dict__:  # NaN or −1 set later: NaN/negated outputs
            value = check_positive("lam", value)
        _refuse_dtype(self, name, value, ("lam", "training", "k", "v"))
        refuse_reassignment(self, name, value, ("in_features", "out_features"))
        super().__setattr__(name, value)

    @property
    def dtype(self) -> torch.dtype:
        """The parameters' dtype (what ``forward`` takes); change it with ``.float()`` / ``.double()``."""
        return self.k.dtype

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """The model's output on tokens. ``X`` holds tokens, a finite tensor of shape (n, L, d) (entries of
        magnitude <= 3.4e38, the working range) of the
        model's dtype and device; returns (n, 1) (an empty batch, n = 0, gives an empty (0, 1) result;
        L >= 1 tokens are needed). Parameters with NaN or inf entries are refused, and an output that
        overflows X's dtype (float32 tokens near 3e38) is refused naming X.
        """
        _check_vectors(self, ("k", "v"))
        check_positive("lam", self.lam)  # lam = -1 set by object.__setattr__ answered in silence
        X = _check_tokens(X, self.in_features, self.k.dtype)
        check_device("X", X, self.k)
        _check_parameters(self)
        for name in ("k", "v"):
            _check_unit(f"the model's parameter {name}", getattr(self, name))
        keys, values = _finite_map(X, X @ self.k), _finite_map(X, X @ self.v)
        return _finite_map(X, (torch.erf(self.lam * keys) * values).sum(-1, keepdim=True))


def _linear_problem(problem) -> SingleLocationProblem:
    check_problem(problem)  # validated again if changed after construction
    if problem.link != "linear":
        raise ValueError(f"problem.link must be 'linear' for the closed-form linear predictor, "
                         f"got {problem.link!r}")
    return problem


def best_linear_weights(problem: SingleLocationProblem) -> torch.Tensor:
    """The population least-squares weights ``w`` (L, d) of ``f(X) = Σ_ℓ w_ℓᵀ x_ℓ``, linear link.

    ``problem`` is a :class:`SingleLocationProblem`; returns float64 weights.

    The second-moment matrix is block diagonal (distinct tokens are uncorrelated) with v* an
    eigenvector of each block, eigenvalue 1 − (1 − γ²)/L, and E[x_ℓ y] = (γ²/L) v*; so every
    block is w_ℓ = γ² / (L − 1 + γ²) v*, whatever the signal scale (u* ⊥ v*).

    >>> p = SingleLocationProblem(d=3, L=2, gamma=0.5)
    >>> round(float(best_linear_weights(p)[0] @ p.oracle()[1]), 6)
    0.2
    """
    problem = _linear_problem(problem)
    # (L, d) weights; in ints, then to_float (L = 2**3000 is valid: inf bytes, refused naming L)
    check_fits_memory("best_linear_weights", "L", problem.L, to_float(8 * problem.L * problem.d))
    _, v_star = problem.oracle()
    scale = problem.gamma**2 / (problem.L - 1 + problem.gamma**2)
    return scale * v_star.expand(problem.L, problem.d).clone()


def best_linear_risk(problem: SingleLocationProblem) -> float:
    """Excess risk (over ε²) of the best linear predictor: γ² (L − 1) / (L − 1 + γ²) >= γ²/(1 + γ²).

    ``problem`` is a :class:`SingleLocationProblem`.

    >>> round(best_linear_risk(SingleLocationProblem(d=3, L=2, gamma=0.5)), 6)
    0.2
    """
    problem = _linear_problem(problem)
    g2 = problem.gamma**2
    if problem.L - 1 >= 2**1000:  # L − 1 past float's range raised OverflowError; γ²/(L − 1) < 1e-300 there
        return g2
    return g2 * (problem.L - 1) / (problem.L - 1 + g2)


def fit_linear_predictor(X: torch.Tensor, y: torch.Tensor):
    """Least squares with intercept of ``y`` on the flattened tokens; returns ``predict(X) -> (n,)``.

    ``X`` (n, L, d) and ``y`` (n,) are finite float tensors of one dtype with n > L·d + 1 rows. A
    rank-deficient design (duplicate tokens or rows, collinear features) is valid: the minimum-norm
    least-squares solution is taken (its fitted values are the unique least-squares ones).

    >>> X = torch.randn(50, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    >>> predict = fit_linear_predictor(X, X[:, 0, 0] + 1.0)
    >>> round(float(predict(X[:1])[0] - X[0, 0, 0]), 6)
    1.0
    """
    if not isinstance(X, torch.Tensor) or X.ndim != 3:
        raise ValueError(f"X must be a torch tensor of shape (n, L, d), got "
                         f"{tuple(X.shape) if isinstance(X, torch.Tensor) else type(X).__name__}")
    if not isinstance(y, torch.Tensor) or y.ndim != 1:
        raise ValueError(f"y must be a 1-D torch tensor (one target per row of X), got "
                         f"{tuple(y.shape) if isinstance(y, torch.Tensor) else type(y).__name__}")
    if y.shape[0] != X.shape[0]:  # either may be the wrong one: both named
        raise ValueError(f"X and y must have one row per sample: X has {X.shape[0]} rows (shape "
                         f"{tuple(X.shape)}), y has {y.shape[0]}")
    n, L, d = X.shape
    if n <= L * d + 1:
        raise ValueError(f"X must have more rows than features + 1 = {L * d + 1} for least squares, "
                         f"got n={n}")
    # a NaN reaches torch's lstsq as an internal assertion; half precision its "doesn't handle types other
    # than float and double"
    check_float_tensor("X", X, allow_half=False)
    check_float_tensor("y", y, allow_half=False)
    if y.dtype != X.dtype:
        raise TypeError(f"y must have X's dtype {X.dtype}, got {y.dtype}")
    design = torch.cat([X.reshape(n, L * d), torch.ones(n, 1, dtype=X.dtype)], 1)
    # gelsd (SVD, minimum norm): torch's CPU default gelsy answered a rank-deficient design (two identical
    # tokens, collinear features) with residual 1.3 on data it fits exactly, in silence
    # columns scaled to unit max-norm first: gelsd's rank cutoff is relative to the largest singular value, so
    # tokens scaled 1e-20 (or 1e20) against the ones column were cut as rank-deficient (residual 3.2 on data
    # fitted exactly)
    scale = design.abs().amax(dim=0)
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    # the coefficients kept on the scaled columns: coef / scale overflowed for tokens of 1e-39 (float32) or
    # 1e-320 (float64), and predict answered inf or NaN on the data it was fitted to
    coef = torch.linalg.lstsq(design / scale, y.reshape(n, 1), driver="gelsd").solution[:, 0]

    fitted_dtype = X.dtype

    def predict(X: torch.Tensor) -> torch.Tensor:
        """Predictions (m,) for tokens ``X`` of the fitted shape (m, L, d) and dtype, finite."""
        # the fitted shape (m, L, d), the fit's dtype and finite tokens: another L reached torch's matmul
        # message and a float32 batch its dtype message; the parameter is X, as documented (it was X_new,
        # so predict(X=...) was refused and the messages named an argument the signature did not have)
        X = _check_tokens(X, d, fitted_dtype)
        if X.shape[1] != L:
            raise ValueError(f"X must have shape (m, {L}, {d}) (the fitted sequence length L = {L}), "
                             f"got {tuple(X.shape)}")
        check_float_tensor("X", X)
        # (m, L·d), not (m, -1): an empty batch (m = 0) made the -1 ambiguous (torch's RuntimeError)
        return (X.reshape(X.shape[0], L * d) / scale[:-1]) @ coef[:-1] + coef[-1] / scale[-1]

    return predict
