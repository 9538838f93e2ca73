"""A deep-AUC-maximization minimax task (Section 6.2 of the paper) on generated imbalanced data.

With score h(w; z) of a small network, positive fraction p and labels ±1, AUC maximization
with the square loss is min_{w,a,b} max_α E F(w, a, b, α; z),

    F = (1−p)(h − a)²·[y=1] + p(h − b)²·[y=−1] + 2(1+α)(p·h·[y=−1] − (1−p)·h·[y=1]) − p(1−p)α²,

strongly concave in α (modulus 2p(1−p)); x = (w, a, b) flattened, y = (α,). The inner
maximizer is closed form, α*(x) = E[p·h·[y=−1] − (1−p)·h·[y=1]] / (p(1−p)), so Φ(x) = f(x,
α*(x)) and, by Danskin's theorem, ∇Φ(x) = ∇_x f(x, α*(x)), both on the full data set. The
oracle is a minibatch gradient (plus the problem's additive noise, if any).

Data: two Gaussian classes in ``in_features`` dimensions with means ±``separation``/2 along
one axis; a fraction ``positive_fraction`` of the ``n_samples`` points are positive.

References
----------
Z. Yuan, Y. Yan, M. Sonka, T. Yang. Large-scale robust deep AUC maximization. ICCV 2021;
X. Gong, J. Hao, M. Liu, arXiv:2509.15399 (Section 6.2).

>>> from algorithms import solve
>>> from algorithms.hierarchical import AdaMinimax, auc_minimax
>>> prob = auc_minimax(n_samples=100, seed=0)
>>> sol = solve(prob, AdaMinimax(lr_x=0.05, lr_y=1.0), maxiters=40, tol=1e-12)
>>> sol.retcode, bool(sol.value < prob.phi(prob.x0))
(<RetCode.MaxIters: 'MaxIters'>, True)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import torch
from torch import nn

from algorithms._modules import (
    CheckedStateModule,
    check_parameter_values,
    check_structure,
    fix_attributes,
    remember_structure,
)
from algorithms._validation import (
    allocates,
    check_device,
    check_finite_data,
    check_fits_memory,
    check_positive,
    check_positive_int,
    check_seed,
    check_working_range,
    read_only,
)
from algorithms.core import rebuilt_by_factory
from algorithms.hierarchical.problems import MinimaxProblem, _OnCheckedPoints

__all__ = ["ScoreNet", "auc_minimax"]


class ScoreNet(CheckedStateModule):
    """A one-hidden-layer tanh network, the score h(w; z) of the AUC task (seeded init).

    ``in_features``, ``hidden`` and ``out_features`` are ints >= 1 (the layers' widths; float64
    weights; ``in_features``/``out_features`` cannot be reassigned later), ``seed`` an int in [0, 2**64)
    for the initial weights (torch's global generator is not touched). ``forward`` refuses NaN/inf weights
    (written in place), weights converted from float64 (``.half()``, ``.float()``) and a layer or parameter
    replaced or added after construction (``net.output = nn.Linear(8, 3)``) by name.

    >>> net = ScoreNet(in_features=3, hidden=4, seed=0)
    >>> tuple(net(torch.zeros(5, 3, dtype=torch.float64)).shape)
    (5, 1)
    """

    #: the sizes the layers were built for: reassigning one is refused by name (forward met torch's shapes)
    _FIXED = ("in_features", "out_features")

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)

    @allocates("in_features", "hidden", "out_features")
    def __init__(self, in_features: int, hidden: int = 8, out_features: int = 1, *, seed: int = 0) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.out_features = check_positive_int("out_features", out_features)
        check_positive_int("hidden", hidden)
        seed = check_seed(seed)
        generator = torch.Generator().manual_seed(seed)
        # skip_init: nn.Linear's own init drew from torch's global generator (a user's seeded stream moved)
        self.hidden = nn.utils.skip_init(nn.Linear, in_features, hidden, dtype=torch.float64)
        self.output = nn.utils.skip_init(nn.Linear, hidden, out_features, dtype=torch.float64)
        with torch.no_grad():
            for layer in (self.hidden, self.output):
                bound = 1.0 / math.sqrt(layer.in_features)
                layer.weight.uniform_(-bound, bound, generator=generator)
                layer.bias.uniform_(-bound, bound, generator=generator)
        remember_structure(self)
        fix_attributes(self)  # a misspelt public name set later is refused (stored and ignored before)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Scores h(w; X), shape (n, out_features), for ``X`` a finite float64 tensor (n, in_features) on the
        network's device.
        """
        if not isinstance(X, torch.Tensor):
            raise TypeError(f"X must be a torch.Tensor, got {type(X).__name__}")
        if X.ndim != 2 or X.shape[1] != self.in_features:
            raise ValueError(f"X must have shape (n, {self.in_features}), got {tuple(X.shape)}")
        check_structure(self)  # net.output = nn.Linear(8, 3) answered 3 scores per row for out_features 1
        if (self.hidden.in_features, self.output.out_features) != (self.in_features, self.out_features):
            # a whole-model pickle restored out_features = 3 beside a 1-output layer (red20b)
            raise ValueError(f"ScoreNet's in_features, out_features = {self.in_features!r}, "
                             f"{self.out_features!r} do not match its layers ({self.hidden.in_features}, "
                             f"{self.output.out_features}): a loaded model's settings; build a new ScoreNet")
        for key, param in self.named_parameters():  # .half()/.float() after construction ran in silence
            if param.dtype != torch.float64:
                raise TypeError(f"ScoreNet's weights must be float64 (as built), got {key} of dtype "
                                f"{param.dtype}: convert it back with .double()")
        if X.dtype != self.hidden.weight.dtype:
            raise TypeError(f"X must have dtype {self.hidden.weight.dtype} (the model's parameters), "
                            f"got {X.dtype}")
        check_device("X", X, self.hidden.weight)
        check_finite_data("X", X)  # NaN rows gave NaN scores in silence
        check_parameter_values(self)  # NaN weights written in place gave NaN scores, 1e39 ran in silence
        if X.is_inference() and not torch.is_inference_mode_enabled():
            X = X.clone()  # an inference-mode tensor met "Inference tensors cannot be saved for backward"
        return self.output(torch.tanh(self.hidden(X)))


@rebuilt_by_factory
@allocates("n_samples", "in_features", "hidden")
def auc_minimax(n_samples: int = 400, in_features: int = 5, hidden: int = 8, *,
                positive_fraction: float = 0.1, separation: float = 2.0, batch_size: int = 32,
                sigma: float = 0.0, noise: str = "gaussian", seed: int = 0,
                dtype=np.float64) -> MinimaxProblem:
    """The AUC minimax problem on generated data (see the module docstring).

    ``n_samples`` (int >= 2) examples with ``in_features`` (int >= 1) features, a fraction
    ``positive_fraction`` in (0, 1) of them positive (round(positive_fraction·n_samples) positives, clamped
    to [1, n_samples − 1]: the model's p is that count over n_samples), the classes' means ``separation``
    (finite float > 0) apart; the score network has ``hidden`` (int >= 1) units; ``batch_size`` (int in
    [1, n_samples]) examples per oracle call; ``sigma`` (finite float >= 0) and ``noise`` (one of
    ``NOISE_KINDS``) the added oracle noise; ``seed`` an int in [0, 2**64); ``dtype`` numpy float32 or
    float64.

    x0 is the seeded network's parameters followed by a = b = 0; y0 = (α = 0,).
    """
    check_positive_int("n_samples", n_samples)
    if n_samples < 2:  # one positive and one negative example at least: the AUC pairs them
        raise ValueError(f"n_samples must be >= 2 (a positive and a negative example), got {n_samples!r}")
    check_positive_int("batch_size", batch_size)
    if batch_size > n_samples:  # a mini-batch cannot hold more examples than the data set has
        raise ValueError(f"batch_size must be <= n_samples = {n_samples}, got {batch_size!r}")
    if isinstance(positive_fraction, bool | np.bool_) or not isinstance(positive_fraction, numbers.Real):
        raise TypeError(f"positive_fraction must be a real number in (0, 1), got "
                        f"{type(positive_fraction).__name__}")
    positive_fraction = float(positive_fraction)  # np.float32 and Fraction were refused "must be in (0, 1)"
    if not 0 < positive_fraction < 1:
        raise ValueError(f"positive_fraction must be in (0, 1), got {positive_fraction!r}")
    check_working_range("positive_fraction", positive_fraction)  # > 0: 1e-39 acted as the 0 it excludes
    check_positive("separation", separation)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {dtype!r}")
    model = ScoreNet(in_features, hidden, seed=seed)
    # the data (n_samples × in_features floats, with their labels and torch copies) must fit in memory:
    # n_samples = 2**31 was drawn row after row for minutes before numpy's MemoryError
    check_fits_memory("auc_minimax", "n_samples", n_samples, 8.0 * n_samples * (2 * in_features + 4))
    rng = np.random.default_rng(seed)
    n_pos = max(1, min(n_samples - 1, round(positive_fraction * n_samples)))
    labels = np.where(np.arange(n_samples) < n_pos, 1.0, -1.0)
    Z = rng.standard_normal((n_samples, in_features))
    Z[:, 0] += 0.5 * separation * labels
    p = n_pos / n_samples
    # the data in immutable memory, and the network's formula (ScoreNet's forward: output(tanh(hidden(z))))
    # from the parameters alone: the oracles closed over Z's tensor and the ScoreNet, so a write into either
    # (through grad.fn's closure) changed every later solve's objective in silence (red20b)
    Z, positive = read_only(Z), read_only(labels > 0)
    names = tuple(name for name, _ in model.named_parameters())
    shapes = tuple(tuple(param.shape) for _, param in model.named_parameters())
    sizes = tuple(param.numel() for _, param in model.named_parameters())
    w0 = torch.cat([param.detach().reshape(-1) for _, param in model.named_parameters()]).numpy()
    del model

    def unpack(x_t):
        chunks = torch.split(x_t[:-2], sizes)
        return {n: c.reshape(s) for n, c, s in zip(names, chunks, shapes)}, x_t[-2], x_t[-1]

    def scores(params, index):
        rows = torch.from_numpy(Z[index])  # a fresh copy of the rows
        hidden_ = torch.tanh(nn.functional.linear(rows, params["hidden.weight"], params["hidden.bias"]))
        return nn.functional.linear(hidden_, params["output.weight"], params["output.bias"])

    def objective(x_t, alpha, index):
        params, a, b = unpack(x_t)
        h = scores(params, index).reshape(-1)
        pos = torch.from_numpy(positive[index]).to(h.dtype)
        neg = 1.0 - pos
        value = ((1 - p) * (h - a) ** 2 * pos + p * (h - b) ** 2 * neg
                 + 2 * (1 + alpha) * (p * h * neg - (1 - p) * h * pos))
        return value.mean() - p * (1 - p) * alpha**2, h, pos

    full = read_only(np.arange(n_samples))

    def grad(x, y, rng_):
        index = rng_.integers(0, n_samples, batch_size)
        x_t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y_t = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        value, _, _ = objective(x_t, y_t[0], index)
        gx, gy = torch.autograd.grad(value, (x_t, y_t))
        return gx.numpy(), gy.numpy()

    def inner_max(x_t):
        with torch.no_grad():
            _, h, pos = objective(x_t, torch.zeros((), dtype=torch.float64), full)
            neg = 1.0 - pos
            return ((p * h * neg - (1 - p) * h * pos).mean() / (p * (1 - p))).detach()

    def phi(x):
        x_t = torch.tensor(x, dtype=torch.float64)
        with torch.no_grad():
            return float(objective(x_t, inner_max(x_t), full)[0])

    def grad_phi(x):
        x_t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        value, _, _ = objective(x_t, inner_max(x_t.detach()), full)
        return torch.autograd.grad(value, x_t)[0].numpy()

    x0 = np.concatenate([w0, np.zeros(2)]).astype(dtype)
    y0 = np.zeros(1, dtype=dtype)
    # the callables check their points (phi(1.0) met torch's "slice() cannot be applied to a 0-dim tensor")
    return MinimaxProblem(grad=_OnCheckedPoints(grad, "grad(x, y, rng)", x0, y0, None, exact=False),
                          phi=_OnCheckedPoints(phi, "phi(x)", x0),
                          grad_phi=_OnCheckedPoints(grad_phi, "grad_phi(x)", x0), x0=x0, y0=y0,
                          sigma=sigma, noise=noise)
