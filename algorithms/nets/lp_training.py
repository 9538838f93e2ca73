"""Gradient training of a univariate ReLU network under the ℓp path norm, then pruning.

The network is a :class:`~algorithms.nets.two_layer.TwoLayerReLU` (``in_features=1``,
its seeded initialization) plus a linear skip term ``a x + c``:

    f_θ(x) = Σ_k v_k (w_k x + b_k)₊ + a x + c.

Interpolation ``f_θ(x_i) = y_i`` is enforced by an augmented Lagrangian with
residual ``r = f_θ(x) - y`` (data standardized: x onto [-1, 1], y divided by max|y|):

    L(θ, λ) = R(θ) + λᵀ r + (μ/2) ‖r‖²,      λ ← λ + μ r   every ``outer_every`` steps,

and Adam minimizes ``L`` over ``θ`` (gradients written out in numpy: a width-16
net on six points is dominated by per-call overhead in torch, ~15x slower). The
regularizer ``R`` is

* ``"lp_path"``: ``Σ_k ((v_k w_k)² + ε²)^{p/2} - ε^p``, the ℓp path norm with
  ``|t|^p`` smoothed near 0 (gradient ``p t (t² + ε²)^{p/2-1}``, bounded). ε is
  annealed geometrically from ``smoothing_start`` to ``smoothing`` over the first
  70% of the steps: with a small ε from the start the penalty kills neurons
  before the data are fit;
* ``"weight_decay"``: ``½ Σ_k (v_k² + w_k²)``, the usual ℓ2 weight decay
  (biases and the skip term unpenalized), the baseline.

After training the net is pruned (:func:`prune_network`): neurons with
``|v_k w_k| ≤ prune_tol · max_k |v_k w_k|`` or with a knot outside the data hull
are dropped, knots closer than ``merge_tol`` times the data range are merged,
and the survivors are polished by least squares on the interpolation residual.

Retcodes: ``Success`` when the method's criterion holds, the pruned and polished
network interpolating every point within ``tol`` of its own scale, |f(x_i) − y_i| <= tol·(|y_i| +
1e-3·max|y|) (1 when y ≡ 0; a label of 1e6 does not excuse a misfit of a label of 1);
``MaxIters`` when the horizon (``maxiters`` Adam steps) is reached without it;
``Diverged`` on a blow-up: a non-finite loss or iterate, or a loss above
``BLOWUP_FACTOR · (1 + |loss₀|)`` = ``1e30 · (1 + |loss at step 0|)``, at the step
where it happens (Adam moves each parameter by at most about ``lr`` per step, so only
a runaway step size gets there).

References
----------
J. Nakhleh, R. D. Nowak. *Global minimizers of ℓ^p-regularized objectives yield
the sparsest ReLU neural networks.* NeurIPS 2025, arXiv:2505.21791 (training
objective, Sections 2–3).

>>> from algorithms import solve
>>> from algorithms.nets.sparse_interpolation import CPWL, InterpolationProblem
>>> prob = InterpolationProblem(x=[0, 1, 2, 3], y=[0, 0, 1, 3], p=0.5)
>>> sol = solve(prob, LpPathNormTraining(width=8), seed=0)
>>> sol.retcode, CPWL.from_vector(sol.x).num_knots
(<RetCode.Success: 'Success'>, 1)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import least_squares

from algorithms._validation import (
    WORKING_MIN,
    as_float_array,
    check_choice,
    check_count,
    check_finite_data,
    check_fits_memory,
    check_nonnegative,
    check_positive,
    check_positive_int,
    checked_fields,
    in_working_range,
    revalidate_if_reassigned,
    store_plain_scalars,
)
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, _dispatch
from algorithms.nets.gradient_flow import MAX_RUN_SECONDS
from algorithms.nets.sparse_interpolation import (
    CPWL,
    InterpolationProblem,
    _check_data,
    _check_p,
    _neuron_terms,
    network_to_cpwl,
)
from algorithms.nets.two_layer import TwoLayerReLU, check_init_scale

_add_reduce = np.add.reduce

__all__ = ["LpPathNormTraining", "count_active_neurons", "prune_network", "smoothed_lp"]


def smoothed_lp(t, p: float, eps: float):
    """``Σ ((t² + ε²)^{p/2} - ε^p)``: within ``ε^p`` of ``Σ |t|^p`` per entry, smooth at 0 (numpy or torch).

    ``0 < p <= 1`` (a positive scale: at least 1.18e-38, a subnormal p acting as the refused 0) and ``eps``
    a positive scale in [1.18e-38, 3.4e38] (``p = 0`` would make every term 0: no penalty at all).
    ``t``: finite entries (NaN/inf refused naming t) in the working range. Each term is computed as
    ``ε^p · expm1(p · log(√(t² + ε²) / ε))``, without cancellation: |t| ≪ ε (t = 1e-10, ε = 1: 5e-21, not
    0) and a tiny p keep their digits, and no square is formed (a float32 tensor overflows only where
    |t|/ε passes float32's range, and then gives inf, which a training loop reports as ``Diverged``).

    >>> round(float(smoothed_lp(np.array([4.0, 0.0]), 0.5, 1e-12)), 6)
    2.0
    """
    p = _check_p(p, allow_zero=False)
    eps = check_positive("eps", eps)        # no square of ε is formed: the whole working range
    if not isinstance(t, torch.Tensor):
        t = as_float_array("t", t, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            value = _smoothed_terms(t, p, eps, np).sum()
        if not np.isfinite(value):
            raise ValueError(f"t is too large: its penalty overflows float64 (max |t| = "
                             f"{float(np.abs(t).max()):.3g}); rescale it")
        return value
    # NaN/inf (or a meta tensor) came out as a NaN/inf/meta penalty; skipped under torch.func.vmap
    check_finite_data("t", t)
    # float32/16 inputs computed in float64 and rounded once (their squares underflowed: 2.4e-38 for t = 4,
    # eps = 3.4e38, p = 1 came out 0); the answer keeps t's dtype
    wide = t.is_floating_point() and t.dtype != torch.float64 and t.device.type not in ("mps", "meta")
    return _smoothed_terms(t.to(torch.float64) if wide else t, p, eps, torch).sum().to(t.dtype)


def _smoothed_terms(t, p: float, eps: float, xp):
    """(t² + ε²)^{p/2} − ε^p per entry, as ε^p·expm1(p·ℓ) where it cancels (ℓ = log(√(t² + ε²)/ε) ≥ 0; numpy
    or torch ``xp``):
    ℓ = ½ log1p((t/ε)²) below |t| = ε, log(|t|/ε) + ½ log1p((ε/t)²) above (log|t| − log ε where |t|/ε
    overflows the dtype). Both branches see safe inputs, so torch's gradients stay finite at t = 0."""
    a = xp.abs(t)
    small = a < eps
    ratio_small = xp.where(small, a, xp.zeros_like(a)) / eps
    big = xp.where(small, xp.full_like(a, eps), a)    # constants, not 0·a: no NaN gradient flows back to t
    ratio_big = big / eps
    finite = xp.isfinite(ratio_big)
    log_big = xp.where(finite, xp.log(xp.where(finite, ratio_big, xp.ones_like(a))),
                       xp.log(big) - math.log(eps))
    ell = xp.where(small, 0.5 * xp.log1p(ratio_small * ratio_small),
                   log_big + 0.5 * xp.log1p(ratio_big ** -2.0))    # not (ε/big)²: its gradient overflowed
    # where the term is at least ε^p (p·ℓ >= log 2) nothing cancels, and the power itself is the accurate form
    # (expm1 of p·ℓ = 176 carried ℓ's rounding times 176: 2e-14)
    direct = xp.hypot(a, xp.full_like(a, eps)) ** p - eps**p
    return xp.where(p * ell >= math.log(2.0), direct, eps**p * xp.expm1(p * ell))


def count_active_neurons(v, w, *, tol: float = 0.0) -> int:
    """Neurons with ``|v_k w_k| > tol`` (the ℓ0 path norm at threshold ``tol``).

    >>> count_active_neurons([1.0, 1e-9, 2.0], [1.0, 1.0, 0.0], tol=1e-6)
    1
    """
    v = as_float_array("v", v, ndim=1, dtype=np.float64)
    w = as_float_array("w", w, ndim=1, dtype=np.float64)
    if v.shape != w.shape:
        raise ValueError(f"v and w must have the same number of neurons, got {v.shape} and {w.shape}")
    tol = check_nonnegative("tol", tol)
    return int(np.sum(_product_above(np.abs(v), np.abs(w), tol)))


def _product_above(a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray:
    """``a·b > tol`` for entries >= 0 without forming a·b: it underflowed to 0 (a = b = 1e-200 at tol = 0:
    an active neuron not counted) or overflowed. Mantissas and exponents apart (``frexp``), compared at
    ``tol``'s scale; near the boundary the exponents cancel and the comparison is the product's."""
    if tol == 0:
        return (a > 0) & (b > 0)
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    mt, et = np.frexp(tol)
    scaled = np.ldexp(ma * mb, np.clip(ea.astype(np.int64) + eb - et, -2100, 2100).astype(np.int32))
    return scaled > mt


#: the largest |x| and |y| prune_network polishes (its least squares squares the residuals)
PRUNE_DATA_MAX = 1e150


def prune_network(x, y, W, b, v, a: float, c: float, *, prune_tol: float, merge_tol: float
                  ) -> tuple[CPWL, float]:
    """Prune a trained univariate net and polish it; return (CPWL, max |residual|).

    Drops neurons with ``|v_k w_k| <= prune_tol · max |v w|``, drops neurons with a
    knot outside ``(x_1, x_N)`` (affine on the data, absorbed by the skip term),
    merges knots within ``merge_tol · (x_N - x_1)``, then polishes: the slope changes
    and ``(a, c)`` are refit by linear least squares, the knots by nonlinear least
    squares on the interpolation residual (scipy ``least_squares``), from the
    trained knots and from the trained knots snapped onto a data point within
    ``10 · merge_tol`` of the range (a knot on a data point is a kink of the
    residual, where least squares stalls); the snapped one is kept unless the other fits better by more
    than rounding (1e-12 relative to max|y|, 1 when y ≡ 0). The
    knot *count* is decided by training and pruning; the polish only removes the
    remaining optimization error. ``x`` and ``y`` have entries in the working range (magnitude at most
    3.4e38); ``prune_tol`` in [0, 1) (1 would drop every neuron, refused naming it); ``merge_tol`` >= 0,
    any value in [0, 3.4e38].

    >>> f, res = prune_network([0, 1, 2], [0, 0, 1], W=[1.0, 1.0], b=[-1.0, -0.5], v=[1.0, 1e-9],
    ...                        a=0.0, c=0.0, prune_tol=1e-6, merge_tol=1e-6)
    >>> f.knots.tolist(), round(res, 12)
    ([1.0], 0.0)
    """
    x, y = _check_data(x, y)
    for name, data in (("x", x), ("y", y)):
        top = float(np.max(np.abs(data), initial=0.0))
        if top > PRUNE_DATA_MAX:     # the polish squares residuals: scipy's least_squares met inf and said so
            raise ValueError(f"{name} has entries up to {top:.3g}; prune_network's least-squares polish "
                             f"squares the residuals, so |{name}| must be <= {PRUNE_DATA_MAX:g}")
    prune_tol = _check_prune_tol(prune_tol)
    merge_tol = check_nonnegative("merge_tol", merge_tol)
    t, jumps, slope, intercept = _neuron_terms(W, b, v, a, c)  # one term per neuron, unmerged
    order = np.argsort(t, kind="stable")
    t, jumps = t[order], jumps[order]
    u = np.abs(jumps)
    umax = float(np.max(u, initial=0.0))
    keep = (u > prune_tol * umax) & (t > x[0]) & (t < x[-1])
    merged = CPWL._merged(t[keep], jumps[keep], slope, intercept, merge_tol * float(np.ptp(x)), 0.0)
    k = merged.num_knots

    def linear_refit(knots):
        A = np.column_stack([np.ones_like(x), x, np.maximum(x[:, None] - knots[None, :], 0.0)])
        coef, *_ = np.linalg.lstsq(A, y, rcond=None)
        return np.concatenate([knots, coef[2:], [coef[1], coef[0]]])

    def residual(z):
        return np.maximum(x[:, None] - z[None, :k], 0.0) @ z[k:2 * k] + z[2 * k] * x + z[2 * k + 1] - y

    # Knots that sit on a data point are kinks of the residual in the knot position, where
    # least squares stalls; so also try each knot snapped onto a data point within snap_tol.
    snap_tol = 10 * merge_tol * float(np.ptp(x))
    nearest = x[np.argmin(np.abs(merged.knots[:, None] - x[None, :]), axis=1)] if k else merged.knots
    snapped = np.where(np.abs(nearest - merged.knots) <= snap_tol, nearest, merged.knots)
    # The snapped start goes first and is kept unless the other one fits better by more than rounding
    # (1e-12 relative to the data): residuals at the rounding level must not decide, or the choice would
    # depend on the units of y.
    top = float(np.max(np.abs(y)))
    rounding = 1e-12 * (top if top > 0 else 1.0)
    best_z, best_res = None, np.inf
    for knots in (snapped, merged.knots):
        z = linear_refit(knots)
        if k:  # an exact start stops at once (zero gradient), so no residual test first
            z = least_squares(residual, z, xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=100 * (k + 2)).x
            z = linear_refit(z[:k])
        res = float(np.max(np.abs(residual(z))))
        if res < best_res - rounding:
            best_z, best_res = z, res
    z = best_z
    f = CPWL.from_terms(z[:k], z[k:2 * k], slope=z[2 * k], intercept=z[2 * k + 1])
    return f, float(np.max(np.abs(f(x) - y)))


def _check_prune_tol(prune_tol) -> float:
    prune_tol = check_nonnegative("prune_tol", prune_tol)
    if prune_tol >= 1:
        raise ValueError(f"prune_tol must be < 1 (relative to the largest |v w|), got {prune_tol}")
    return prune_tol


#: a loss this many times (1 + the first loss) is a blow-up (module docstring)
BLOWUP_FACTOR = 1e30


#: the floor of each point's scale in the Success test, relative to max|y| (labels near 0 are fit to
#: tol·FIT_FLOOR·max|y|, the others to tol·|y_i| at least)
FIT_FLOOR = 1e-3


@dataclass(frozen=True)
class LpPathNormTraining(Algorithm):
    """Adam on the augmented Lagrangian of ``min R(θ) s.t. f_θ(x_i) = y_i``, then prune (module docstring).

    ``regularizer="lp_path"`` uses the problem's ``p`` (``0 < p``, at least 1.18e-38: 0 and subnormal p are
    refused naming p at solve; ``p > 1`` is not an InterpolationProblem). ``width`` hidden ReLUs, Adam step
    ``lr`` (>= 1.18e-38),
    smoothing ``smoothing`` (ε in [1.18e-38, 3.4e38], annealed from ``smoothing_start``, also in
    [1.18e-38, 3.4e38]),
    penalty ``penalty`` (μ, on residuals scaled by
    ``max|y|``), multiplier update every ``outer_every`` steps, pruning threshold
    ``prune_tol`` (relative to the largest ``|v w|``), knot merging ``merge_tol``
    (relative to the data range), ``init_scale`` the initial weights' scale (:class:`TwoLayerReLU`'s).
    Domains: ``width`` and ``outer_every`` ints >= 1 (``width`` also bounded by this machine's memory,
    16 float64 arrays of that size, and by time: a solve whose maxiters · width · data points passes
    1.2e9, estimated past 60 s, is refused naming width and maxiters); ``lr`` > 0 in [1.18e-38, 3.4e38]
    (a huge one makes the run ``Diverged``); ``penalty`` > 0 in [1.18e-38, 3.4e38]; ``prune_tol`` in
    [0, 1) (1 would prune every neuron); ``merge_tol`` >= 0, any value in [0, 3.4e38]; ``init_scale``
    > 0 in [1.18e-38, 3.4e38], one whose drawn weights pass 3.4e38 refused naming init_scale (a trained
    network whose weights or their products leave the working range is ``Diverged``). ``maxiters``
    counts Adam steps (default 4000);
    ``tol`` is the interpolation tolerance of the pruned, refit network, per point relative to
    |y_i| + 1e-3·max|y| (1 when y ≡ 0: labels in any units need the same fit, and each label its own;
    default 1e-6): within it at every point the
    retcode is ``Success``, else
    ``MaxIters`` (the horizon came first); a blow-up gives ``Diverged`` (module docstring).
    The initialization is seeded by ``solve``'s ``seed`` (``seed=None`` is seed 0: always reproducible).
    ``Solution.x`` is the pruned
    interpolant's ``CPWL.to_vector()``, ``value`` its ``V_p``, ``original`` a dict
    with the trained parameters, the pruned CPWL and the residual.

    References: Nakhleh & Nowak, NeurIPS 2025 (arXiv:2505.21791).

    >>> from algorithms import solve
    >>> from algorithms.nets.sparse_interpolation import InterpolationProblem
    >>> prob = InterpolationProblem(x=[0, 1, 2], y=[0, 1, 0], p=0.5)
    >>> solve(prob, LpPathNormTraining(width=4), seed=0).retcode
    <RetCode.Success: 'Success'>
    """

    width: int = 16
    lr: float = 1e-2
    smoothing: float = 1e-3
    smoothing_start: float = 1.0
    penalty: float = 100.0
    outer_every: int = 100
    prune_tol: float = 1e-2
    merge_tol: float = 1e-3
    init_scale: float = 1.0
    regularizer: str = "lp_path"

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        check_positive_int("width", self.width)
        # the parameters, their Adam moments and gradients (float64, a dozen width-sized arrays): 2**30 spent
        # half a minute allocating before it failed
        check_fits_memory("LpPathNormTraining", "width", self.width, 8.0 * 16 * self.width)
        check_positive("lr", self.lr)
        for name in ("smoothing", "smoothing_start"):   # ε² must be finite (1e308 gave a NaN penalty)
            if check_positive(name, getattr(self, name)) > 1e150:
                raise ValueError(f"{name} must be <= 1e150 (its square enters the penalty), got "
                                 f"{getattr(self, name)!r}")
        check_positive("penalty", self.penalty)
        check_positive_int("outer_every", self.outer_every)
        _check_prune_tol(self.prune_tol)
        check_nonnegative("merge_tol", self.merge_tol)
        check_init_scale(self.init_scale)
        check_choice("regularizer", self.regularizer, {"lp_path", "weight_decay"})


def _initial_params(width: int, seed: int, init_scale: float) -> list[np.ndarray]:
    """``[w, b, v, a, c]`` at the start: TwoLayerReLU's seeded weights, knots uniform on [-1, 1], a = c = 0.

    >>> [q.shape for q in _initial_params(3, seed=0, init_scale=1.0)]
    [(3,), (3,), (3,), (1,), (1,)]
    """
    net = TwoLayerReLU(in_features=1, width=width, hidden_bias=True, output_bias=False, seed=seed,
                       init_scale=init_scale)
    rng = np.random.default_rng(seed)
    w = net.W.detach().numpy()[:, 0].copy()
    v = net.v.detach().numpy()[0].copy()
    b = -w * rng.uniform(-1.0, 1.0, width)  # initial knots spread over the data range
    return [w, b, v, np.zeros(1), np.zeros(1)]


def _smoothing_at(k: int, steps: int, eps_start: float, eps_end: float) -> float:
    """ε at step ``k``: geometric from ``eps_start`` to ``eps_end`` over the first 70% of ``steps``."""
    anneal_steps = max(1, int(0.7 * steps))
    return eps_start * (eps_end / eps_start) ** min(1.0, k / anneal_steps)


def _lagrangian(params: list[np.ndarray], X: np.ndarray, Y: np.ndarray, lam: np.ndarray, mu: float, *,
                p: float, eps: float, regularizer: str
                ) -> tuple[float, float, np.ndarray, list[np.ndarray]]:
    """``(L, R, r, ∇L)`` of the augmented Lagrangian at ``params = [w, b, v, a, c]`` (hand-written).

    ``L = R(θ) + λᵀr + (μ/2)‖r‖²`` with ``r = Σ_k v_k (w_k X + b_k)₊ + a X + c - Y``; the
    gradient is returned in the order of ``params`` (``a`` and ``c`` as 1-vectors).
    """
    w, b, v, a, c = params
    # the called forms below (w[:, None] * X for np.outer, add.reduce for .sum) are the same float
    # operations without numpy's Python-level wrappers: this runs 4000 times per training
    pre = w[:, None] * X + b[:, None]
    mask = pre > 0
    hid = pre * mask
    r = v @ hid + a[0] * X + c[0] - Y
    g_out = lam + mu * r
    d_v = hid @ g_out
    d_pre = (v[:, None] * mask) * g_out
    d_w = d_pre @ X
    d_b = _add_reduce(d_pre, axis=1)
    if regularizer == "lp_path":
        u = v * w
        uu = u * u + eps * eps
        reg = float(_add_reduce(uu ** (p / 2) - eps**p))
        g_u = p * u * uu ** (p / 2 - 1)
        d_v = d_v + g_u * w
        d_w = d_w + g_u * v
    else:
        reg = 0.5 * float(w @ w + v @ v)
        d_v = d_v + v
        d_w = d_w + w
    loss = reg + float(lam @ r) + 0.5 * mu * float(r @ r)
    return loss, reg, r, [d_w, d_b, d_v, np.array([g_out @ X]), np.array([_add_reduce(g_out)])]


def _adam_train(X: np.ndarray, Y: np.ndarray, *, p: float, algorithm: LpPathNormTraining, steps: int,
                seed: int, monitor: IterationMonitor) -> tuple[dict, int, RetCode | None]:
    """Adam on the augmented Lagrangian, on standardized data; hand-written gradients (see module doc)."""
    # Adam's update is elementwise, so it runs on one flat vector theta = [w, b, v, a, c] (the same
    # float operations in the same order as per parameter array, in place); params are views into it
    start = _initial_params(algorithm.width, seed, algorithm.init_scale)
    sizes = np.cumsum([0, *(q.size for q in start)])
    theta = np.concatenate(start)
    params = [theta[lo:hi] for lo, hi in itertools.pairwise(sizes)]
    m1, m2 = np.zeros_like(theta), np.zeros_like(theta)
    g, t1, t2 = np.empty_like(theta), np.empty_like(theta), np.empty_like(theta)
    beta1, beta2 = 0.9, 0.999
    lam = np.zeros_like(Y)
    mu, lr = algorithm.penalty, algorithm.lr
    eps_end = algorithm.smoothing
    eps_start = max(algorithm.smoothing_start, eps_end)
    done, retcode = 0, None
    blowup = math.inf
    for k in range(steps):
        eps = _smoothing_at(k, steps, eps_start, eps_end)
        loss, reg, r, grads = _lagrangian(params, X, Y, lam, mu, p=p, eps=eps,
                                          regularizer=algorithm.regularizer)
        if not math.isfinite(loss) or loss > blowup:
            retcode = RetCode.Diverged
            break
        if k == 0:
            blowup = BLOWUP_FACTOR * (1.0 + abs(loss))
        np.concatenate(grads, out=g)
        # m1 = beta1 m1 + (1 - beta1) g;  m2 = beta2 m2 + ((1 - beta2) g) g
        np.multiply(m1, beta1, out=m1)
        np.multiply(g, 1 - beta1, out=t1)
        np.add(m1, t1, out=m1)
        np.multiply(m2, beta2, out=m2)
        np.multiply(g, 1 - beta2, out=t1)
        np.multiply(t1, g, out=t1)
        np.add(m2, t1, out=m2)
        # step = lr (m1 / (1 - beta1^(k+1))) / (sqrt(m2 / (1 - beta2^(k+1))) + 1e-8)
        np.divide(m1, 1 - beta1 ** (k + 1), out=t1)
        np.multiply(t1, lr, out=t1)
        np.divide(m2, 1 - beta2 ** (k + 1), out=t2)
        np.sqrt(t2, out=t2)
        np.add(t2, 1e-8, out=t2)
        np.divide(t1, t2, out=t1)
        np.subtract(theta, t1, out=theta)
        done = k + 1
        if done % algorithm.outer_every == 0:
            w, b, v, a, c = params
            lam = lam + mu * (v @ np.maximum(np.outer(w, X) + b[:, None], 0.0) + a[0] * X + c[0] - Y)
        if monitor.active and monitor.record(iteration=k, loss=loss, regularizer=reg,
                                             max_residual=float(np.max(np.abs(r)))):
            retcode = RetCode.Terminated
            break
    w, b, v, a, c = (q.copy() for q in params)
    return {"W": w, "b": b, "v": v, "a": float(a[0]), "c": float(c[0])}, done, retcode


def _check_run_length(width: int, n: int, steps: int) -> None:
    """A run estimated past :data:`MAX_RUN_SECONDS` from a lower bound of its per-step cost (~0.1 ms plus
    ~50 ns per width·n; measured ~5x that): width = 10**6 on 5 points ran ~2 s a step, hours at the
    default 4000 steps, a hang rather than an error."""
    per_step = 1e-4 + 5e-8 * width * n
    if steps * per_step > MAX_RUN_SECONDS:
        raise ValueError(f"LpPathNormTraining: {steps} steps (maxiters) of width {width} on {n} points "
                         f"would run for at least {steps * per_step:.3g} s, past the limit of "
                         f"{MAX_RUN_SECONDS:g} s (MAX_RUN_SECONDS); pass a smaller width or maxiters")


class _Monitor(IterationMonitor):
    """IterationMonitor that says whether anyone listens (records cost time in a 4000-step loop)."""

    active: bool = False  # declared: IterationMonitor refuses a public name its class does not have

    def __init__(self, options: SolveOptions, total: int, desc: str) -> None:
        super().__init__(options, total, desc)
        self.active = bool(options.store_trace or options.callback is not None or options.progress)


@_dispatch
def _solve(problem: InterpolationProblem, algorithm: LpPathNormTraining, options: SolveOptions
           ) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction
        revalidate_if_reassigned(checked)
    p = problem.p
    if algorithm.regularizer == "lp_path" and p < WORKING_MIN:     # 1e-39 trained with a zero penalty
        raise ValueError(f"p must be > 0, at least {WORKING_MIN:.4g}, for LpPathNormTraining(regularizer="
                         f"'lp_path') (p = 0 is not differentiable and a subnormal p makes the penalty 0), "
                         f"got {p!r}; use SparsestInterpolantDP for p = 0")
    x64 = problem.x.astype(np.float64)
    y64 = problem.y.astype(np.float64)
    # standardize: the x range onto [-1, 1], y by its largest magnitude
    x_mid, x_half = 0.5 * (x64[0] + x64[-1]), 0.5 * (x64[-1] - x64[0])
    y_scale = float(np.max(np.abs(y64))) or 1.0   # y = 0: any (a floor of 1e-12 left y = 1e-300 at 1e-288)
    X = (x64 - x_mid) / x_half
    Y = y64 / y_scale
    steps = check_count("maxiters", options.iterations(default=4000), 0)    # 2**63 looped for ever
    _check_run_length(algorithm.width, X.size, steps)
    seed = 0 if options.seed is None else options.seed
    monitor = _Monitor(options, total=steps, desc="lp path-norm training")
    with np.errstate(over="ignore", invalid="ignore"):  # a blow-up is reported as Diverged, not warned
        params, done, retcode = _adam_train(X, Y, p=p, algorithm=algorithm, steps=steps, seed=seed,
                                            monitor=monitor)
    monitor.close()
    # back to the original units: w x' + b with x' = (x - x_mid)/x_half, outputs times y_scale. The ReLU's
    # positive homogeneity lets the factor 1/x_half of W be shared with v: W·σ/x_half and v·y_scale/σ with
    # σ the power of two nearest sqrt(x_half·y_scale) keep both near sqrt of the slope scale (W = 1/x_half
    # alone reached 1e300 on x of 1e-300, outside the working range: prune_network refused it as "W")
    sigma = 2.0 ** round(0.5 * (math.log2(x_half) + math.log2(y_scale)))
    W = params["W"] * sigma / x_half
    b = params["b"] * sigma - W * x_mid
    v = params["v"] * (y_scale / sigma)
    a = params["a"] * y_scale / x_half
    c = params["c"] * y_scale - a * x_mid
    raw = {"W": W, "b": b, "v": v, "a": a, "c": c}
    # the run's own values past the working range (a huge init_scale or lr): a blow-up, not a bad input
    # (W·v past 3.4e38 was refused naming the knots' "jumps" or the CPWL's "slope", values the user never
    # passed); the sums bound the CPWL's slopes and intercepts
    with np.errstate(over="ignore", invalid="ignore"):
        bounds = np.array([a, c, abs(a) + np.abs(v * W).sum(), abs(c) + np.abs(v * b).sum()])
        finite = all(in_working_range(arr) for arr in (W, b, v, v * W, bounds))
    if retcode is RetCode.Diverged or not finite:
        empty = CPWL(np.zeros(0), np.zeros(0), 0.0, 0.0)
        sol = Solution(empty.to_vector(problem.dtype), float("inf"), RetCode.Diverged, trace=monitor.trace,
                       original={"params": raw, "cpwl": empty, "max_residual": float("inf")})
        sol.stats.iterations = done
        return sol
    if steps == 0:
        f = network_to_cpwl(W, b, v, a=a, c=c)
        residual = float(np.max(np.abs(f(x64) - y64)))
        monitor.record(iteration=0, loss=float("nan"), regularizer=float("nan"), max_residual=residual)
        retcode = RetCode.MaxIters
    else:
        f, residual = prune_network(x64, y64, W, b, v, a, c, prune_tol=algorithm.prune_tol,
                                    merge_tol=algorithm.merge_tol)
        if retcode is None:  # the horizon is reached: Success only if the criterion holds
            # each point on its own label's scale, |y_i| + FIT_FLOOR·max|y|: with max|y| alone a label of 1e6
            # excused a residual of 0.67 on a label of 1 (Success); with a floor of 1, labels in units of 1e-8
            # were "interpolated within 1e-6" by a network that fitted nothing
            top = float(np.max(np.abs(y64)))
            scale = np.abs(y64) + FIT_FLOOR * top if top > 0 else np.ones_like(y64)
            fits = np.all(np.abs(f(x64) - y64) <= options.tolerance(default=1e-6) * scale)
            retcode = RetCode.Success if fits else RetCode.MaxIters
    sol = Solution(f.to_vector(problem.dtype), f.vp(p), retcode, trace=monitor.trace,
                   original={"params": raw, "cpwl": f, "max_residual": residual})
    sol.stats.iterations = done
    sol.stats.grad_calls = done
    return sol
