"""Seeded unlearning tasks: overparameterized linear, deep-linear and two-layer problems, and the
paper's sine-regression data-poisoning task.

Each returns an :class:`~algorithms.unlearning.UnlearningProblem` whose θ* interpolates the whole
training set D = D_r ⊔ D_f (the overparameterized setting of the paper). The forget rows are
the first ``n_forget`` of a random permutation.

References
----------
J. L. Block, A. Mokhtari, S. Shakkottai. Machine Unlearning under Overparameterization.
NeurIPS 2025, arXiv:2505.22601 (Sections 4.1-4.3; Section 5.1 and Appendix F.2 for the
data-poisoning task).

>>> prob = linear_task(n=6, d=10, n_forget=2, seed=1)
>>> float((prob.predict(prob.params, prob.forget[0]) - prob.forget[1]).abs().max()) < 1e-10
True
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from algorithms._validation import (
    _brief,
    allocates,
    check_count,
    check_int_at_least,
    check_positive,
    check_positive_int,
    check_seed,
    check_torch_dtype,
    in_working_range,
)
from algorithms.core import with_autograd
from algorithms.nets.models import MLP
from algorithms.unlearning.models import (
    DeepLinear,
    LinearModel,
    TwoLayerPerceptron,
    check_layers_fit,
    effective_predictor,
)
from algorithms.unlearning.problem import UnlearningProblem, forget_split

__all__ = ["deep_linear_task", "linear_task", "sine_poisoning_task", "sup_error", "two_layer_task"]

#: the poisoning task's input domain [-5π, 5π] and the forget points' poisoned label
SINE_DOMAIN = (-5 * math.pi, 5 * math.pi)
POISON_LABEL = 1.5
#: the most Adam steps sine_poisoning_task trains θ* for (about a minute on a laptop CPU)
MAX_TRAIN_STEPS = 100_000
#: the longest sine_poisoning_task training: steps × layers and steps × parameters (minutes, not weeks)
MAX_LAYER_STEPS = 10**6
MAX_PARAM_STEPS = 10**11


def _sizes(n: int, d: int, n_forget: int, *, need: str, limit: int, dtype=None) -> None:
    check_positive_int("n", n)
    check_positive_int("d", d)
    check_positive_int("n_forget", n_forget)
    check_positive_int(need, limit)  # the width (or d) before it is compared with n
    if dtype is not None:
        check_torch_dtype(dtype)
    if n_forget >= n:
        raise ValueError(f"n_forget must be < n (a non-empty retain set), got n_forget={n_forget}, n={n}")
    if n > limit:
        raise ValueError(f"n must be <= {need} = {limit} (an interpolating θ* exists), got {n}")


def _split(X: torch.Tensor, y: torch.Tensor, n_forget: int, rng: np.random.Generator):
    forget = rng.permutation(X.shape[0])[:n_forget]
    return forget_split(X, y, forget=forget.tolist())


@allocates("n", "d")
def linear_task(n: int, d: int, n_forget: int, *, seed: int = 0, dtype: torch.dtype = torch.float64
                ) -> UnlearningProblem:
    """Gaussian X (n × d, n <= d), y = Xβ + noise, θ* = the minimum-norm interpolator of all of D.

    ``n`` and ``d`` are positive ints with ``n <= d`` (an interpolating θ* exists; sizes whose n × d data
    would not fit this machine's memory are refused by name).
    ``seed`` (int in [0, 2**64)) draws the data and the split; ``dtype`` torch.float32 or torch.float64 (half
    precision refused by name).

    ``n_forget`` is an int in [1, n): an unlearning task forgets at least one sample and keeps one.
    """
    _sizes(n, d, n_forget, need="d", limit=d, dtype=dtype)
    rng = np.random.default_rng(check_seed(seed))
    X = torch.from_numpy(rng.standard_normal((n, d)))
    beta = torch.from_numpy(rng.standard_normal(d)) / math.sqrt(d)
    y = X @ beta + 0.1 * torch.from_numpy(rng.standard_normal(n))
    theta = torch.linalg.pinv(X) @ y
    retain, forget = _split(X.to(dtype), y.to(dtype), n_forget, rng)
    return UnlearningProblem(LinearModel(d, seed=seed, dtype=dtype), theta.to(dtype), retain, forget)


@allocates("n", "d", "widths")
def deep_linear_task(n: int, d: int, widths: tuple[int, ...], n_forget: int, *, seed: int = 0,
                     dtype: torch.dtype = torch.float64) -> UnlearningProblem:
    """A random L-layer linear network whose first layer is corrected so that it interpolates D.

    ``n`` samples (int >= 1, at most ``d``) in dimension ``d`` (int >= 1); ``widths`` the hidden
    widths (ints >= 1, at least one; a network so deep that the interpolating correction of A1 leaves the
    working range, a few hundred narrow layers, is refused naming widths); ``n_forget`` an int in [1, n);
    ``seed`` an int in [0, 2**64); ``dtype`` torch.float32 or torch.float64 (half precision refused by name).

    The correction A_1 += u (w_D − w(θ))ᵀ/‖u‖² (u = A_2ᵀ⋯c) sets the predictor to w_D = the
    minimum-norm interpolator plus a random kernel component (θ* need not be minimum norm).
    """
    _sizes(n, d, n_forget, need="d", limit=d, dtype=dtype)
    rng = np.random.default_rng(check_seed(seed))
    X = torch.from_numpy(rng.standard_normal((n, d)))
    y = torch.from_numpy(rng.standard_normal(n))
    net = DeepLinear(d, widths, seed=seed)
    params = {k: p.detach().clone() for k, p in net.named_parameters()}
    kernel = torch.from_numpy(rng.standard_normal(d))
    kernel -= torch.linalg.pinv(X) @ (X @ kernel)
    target = torch.linalg.pinv(X) @ y + kernel
    u = params["c"]
    for layer in range(net.depth - 1, 1, -1):
        u = params[f"A{layer}"].T @ u
    params["A1"] += torch.outer(u, target - effective_predictor(net, params)) / (u @ u)
    theta = torch.cat([p.reshape(-1) for p in params.values()])
    if not in_working_range(theta.to(dtype)):  # blamed on params, which the caller never gave
        raise ValueError(f"widths = {_brief(tuple(widths))} ({net.depth} layers) is too deep for this "
                         f"task: the product of the random layers shrinks u to {float(u.norm()):.3g}, so the "
                         f"interpolating correction of A1 leaves the working range (3.4e38 in {dtype}); use "
                         f"fewer layers")
    retain, forget = _split(X.to(dtype), y.to(dtype), n_forget, rng)
    return UnlearningProblem(DeepLinear(d, widths, seed=seed, dtype=dtype), theta.to(dtype), retain, forget)


@allocates("n", "d", "width")
def two_layer_task(n: int, d: int, width: int, n_forget: int, *, activation: str = "tanh", seed: int = 0,
                   dtype: torch.dtype = torch.float64) -> UnlearningProblem:
    """A random first layer A and the minimum-norm output layer c with cᵀφ(A x_i) = y_i on all of D.

    ``n`` samples (int >= 1, at most ``width``) in dimension ``d`` (int >= 1); ``width`` (int >= 1)
    neurons with ``activation`` one of ``ACTIVATIONS``; ``n_forget`` an int in [1, n); ``seed`` an int in
    [0, 2**64); ``dtype`` torch.float32 or torch.float64 (half precision refused by name).

    Raises when the features φ(A x_i) have rank < n (e.g. relu on one-dimensional inputs), since no
    output layer then interpolates D.
    """
    _sizes(n, d, n_forget, need="width", limit=width, dtype=dtype)
    rng = np.random.default_rng(check_seed(seed))
    X = torch.from_numpy(rng.standard_normal((n, d)))
    y = torch.from_numpy(rng.standard_normal(n))
    net = TwoLayerPerceptron(d, width, activation=activation, seed=seed)
    features = net.features(X).detach()
    rank = int(torch.linalg.matrix_rank(features))
    if rank < n:
        raise ValueError(f"the features φ(A x) of this draw have rank {rank} < n = {n}: no output layer "
                         f"interpolates D (activation {activation!r}, d = {d}); use a wider or "
                         "higher-dimensional network")
    c = torch.linalg.pinv(features) @ y
    theta = torch.cat([c, net.A.detach().reshape(-1)])
    retain, forget = _split(X.to(dtype), y.to(dtype), n_forget, rng)
    model = TwoLayerPerceptron(d, width, activation=activation, seed=seed, dtype=dtype)
    return UnlearningProblem(model, theta.to(dtype), retain, forget)


@allocates("n_retain", "n_forget", "hidden")  # n_retain = 2**40 met numpy's MemoryError
@with_autograd   # it trains θ*: a caller's torch.no_grad() met torch's "does not require grad"
def sine_poisoning_task(n_retain: int = 50, n_forget: int = 5, *, hidden: tuple[int, ...] = (64, 64),
                        train_steps: int = 3000, lr: float = 3e-3, seed: int = 0,
                        dtype: torch.dtype = torch.float64) -> UnlearningProblem:
    """The data-poisoning task: retain points (x, sin x), forget points (x, 1.5), x ~ U[-5π, 5π].

    ``n_retain`` and ``n_forget`` (ints >= 1) points; ``hidden`` the MLP's hidden widths (ints >= 1, whose
    two MLPs fit in memory); ``train_steps`` (int in [1, 100000]; 2**31 - 1 was a build that never ends)
    Adam steps, with train_steps × layers <= 10**6 and train_steps × parameters <= 10**11 (refused by name
    beyond: 10000 layers × 100000 steps took weeks), with step
    ``lr`` (finite float > 0; a training that blows the loss up past 10 times its start is refused, naming
    ``lr``); ``seed`` an int in [0, 2**64); ``dtype`` torch.float32 or torch.float64 (half precision refused
    by name).

    The problem's inputs are the scaled x/(5π), in [−1, 1] (``problem.retain[0]`` holds x/(5π), its labels
    sin x; the forget labels 1.5); :func:`sup_error` scales its grid the same way. An MLP (tanh) is trained on
    all of D with Adam
    for ``train_steps`` steps to give θ*; the problem's model keeps a fresh initialization (seed
    ``(seed + 1) mod 2**64``) for :class:`~algorithms.unlearning.Retrain`. The paper trains a wider SiLU
    network far longer (Appendix F.2); this is a small CPU version of the same task.
    """
    check_positive_int("n_retain", n_retain)
    check_positive_int("n_forget", n_forget)
    check_count("train_steps", train_steps, 1, MAX_TRAIN_STEPS, "each is an Adam step on all of D")
    if isinstance(hidden, tuple | list) and all(isinstance(h, int) and h > 0 for h in hidden):
        # two MLPs (trained, fresh) and their Adam states: hidden=(2**31,) ran into the OOM killer
        check_layers_fit("sine_poisoning_task", "hidden", tuple(hidden), (1, *hidden, 1))
        # the training's cost is the product: 10000 layers × 100000 steps (each cap valid alone) took weeks
        sizes = (1, *hidden, 1)
        layers = len(sizes) - 1
        params = sum((a + 1) * b for a, b in itertools.pairwise(sizes))
        if train_steps * layers > MAX_LAYER_STEPS or train_steps * params > MAX_PARAM_STEPS:
            raise ValueError(f"hidden = {_brief(tuple(hidden))} with train_steps = {train_steps} is too long "
                             f"a training ({layers} layers and {params} parameters per step): train_steps × "
                             f"layers must be <= {MAX_LAYER_STEPS:.0e} and train_steps × parameters <= "
                             f"{MAX_PARAM_STEPS:.0e}; use fewer steps or a smaller network")
    lr = check_positive("lr", lr)  # checked here, not by torch.optim.Adam's own message
    seed = check_seed(seed)   # a plain int: np.int64(7) + 1 met numpy's OverflowError in (seed + 1) % 2**64
    rng = np.random.default_rng(seed)
    low, high = SINE_DOMAIN
    x_r = torch.from_numpy(rng.uniform(low, high, n_retain))
    x_f = torch.from_numpy(rng.uniform(low, high, n_forget))
    scale = 1.0 / SINE_DOMAIN[1]
    X_r, X_f = (scale * x_r)[:, None], (scale * x_f)[:, None]
    y_r, y_f = torch.sin(x_r), torch.full((n_forget,), POISON_LABEL, dtype=torch.float64)
    trained = MLP(1, hidden, 1, activation="tanh", seed=seed)
    optimizer = torch.optim.Adam(trained.parameters(), lr=lr)
    X, y = torch.cat([X_r, X_f]), torch.cat([y_r, y_f])[:, None]
    first = None
    for _ in range(train_steps):
        optimizer.zero_grad()
        loss = ((trained(X) - y) ** 2).mean()
        first = float(loss.detach()) if first is None else first
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        final = float(((trained(X) - y) ** 2).mean())
    if not math.isfinite(final) or final > 10.0 * max(first, 1.0):
        # lr = 1e6 gave a θ* of entries ~1e6 whose "training" had blown the loss up, stored as the problem
        raise ValueError(f"lr = {lr!r} is too large: training θ* on D diverged (the mean squared error went "
                         f"from {first:.3g} to {final:.3g}); use a smaller lr")
    theta = torch.cat([p.detach().reshape(-1) for p in trained.parameters()])
    # wraps: seed = 2**64 − 1 was refused naming 2**64, a value the user never passed
    fresh = MLP(1, hidden, 1, activation="tanh", seed=(seed + 1) % 2**64, dtype=dtype)
    retain, forget = (X_r.to(dtype), y_r.to(dtype)), (X_f.to(dtype), y_f.to(dtype))
    return UnlearningProblem(fresh, theta.to(dtype), retain, forget)


#: the largest grid sup_error takes, and the points of one forward pass
MAX_SUP_GRID = 2**22
SUP_CHUNK = 2**18


@allocates("grid")
def sup_error(problem: UnlearningProblem, theta: torch.Tensor, *, grid: int = 2001) -> float:
    """sup over x in [-5π, 5π] of |f(θ, x/(5π)) − sin x| on a ``grid``-point grid (the task's metric; the
    model sees x/(5π), as the task's data hold it: see :func:`sine_poisoning_task`).

    ``problem`` is the sine task's :class:`UnlearningProblem` (one input feature) and ``theta`` a finite
    flat parameter vector of its model; ``grid`` an int in [2, 2**22] (``MAX_SUP_GRID``; refused by name
    otherwise), evaluated in chunks of 2**18 points (memory bounded whatever the model's width).
    """
    check_int_at_least("grid", grid, 2)  # one point would be x = -5π alone, not a sup over the interval
    # (grid, width) activations per layer: 2**31 - 1 points passed a check of the (grid,) vector alone and
    # the process was OOM-killed (red20b); 2**22 points take seconds
    check_count("grid", grid, 2, MAX_SUP_GRID, "points of the sup's grid, each a forward of the model")
    if not isinstance(problem, UnlearningProblem):
        raise TypeError(f"problem must be an UnlearningProblem, got {type(problem).__name__}")
    problem._check_theta(theta)  # theta's shape and finiteness first, by name
    if problem.retain[0].shape[1] != 1:  # a d-input task met the model's "X must have shape (n, d)"
        raise ValueError(f"problem must have one input feature (the sine task's x), got "
                         f"{problem.retain[0].shape[1]}")
    x = torch.linspace(*SINE_DOMAIN, grid, dtype=problem.dtype)
    worst = 0.0
    with torch.no_grad():
        for chunk in x.split(SUP_CHUNK):
            pred = problem.predict(theta, (chunk / SINE_DOMAIN[1])[:, None])[:, 0]
            error = float((pred - torch.sin(chunk)).abs().max())
            worst = error if math.isnan(error) else max(worst, error)
            if math.isnan(worst):
                break
    return worst
