"""Adapters: peers' implementations behind the interface a subject names (:mod:`theorems.core.subjects`).

Each adapter is a small function with the subject's call signature that builds the peer's
object, mapping the keywords whose names or conventions differ, and nothing more: a peer's
own defaults and numerics stay its own, so a claim that fails on a peer reports the peer (or
this mapping, which the paper note then says), not a re-implementation of it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from algorithms.bayesopt import CEI

__all__ = ["BoTorchGP", "BoTorchLogCEI", "badam_block_optimizer", "botorch_constrained_ei", "cvxpylayers_qp",
           "heavyball_muon", "heavyball_soap", "proxsuite_qplayer", "pytorch_optimizer_muon",
           "pytorch_optimizer_sam", "pytorch_optimizer_shampoo", "pytorch_optimizer_soap"]


def pytorch_optimizer_muon(params: Any, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                           nesterov: bool = True, **unmapped: Any):
    """pytorch-optimizer's ``Muon`` with torch.optim.Muon's keywords: decoupled weight decay,
    and its ``use_adjusted_lr`` off (its own default; the subject's lr rule is then not
    torch's, which the claims that measure it will say)."""
    from pytorch_optimizer import Muon

    _no_unmapped("pytorch-optimizer Muon", unmapped)
    return Muon(_muon_groups(params), lr=lr, weight_decay=weight_decay, weight_decouple=True,
                momentum=momentum, nesterov=nesterov)


def heavyball_muon(params: Any, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                   nesterov: bool = True, **unmapped: Any):
    """heavyball's ``Muon`` with torch.optim.Muon's keywords: ``momentum`` is its first beta; its
    other defaults are its own. Uncompiled (``heavyball.utils.compile_mode = None``): torch.compile's
    autotuning costs minutes per new shape on a CPU, and compiling does not change the numerics."""
    import heavyball.utils
    from heavyball import Muon

    heavyball.utils.compile_mode = None

    _no_unmapped("heavyball Muon", unmapped)
    return Muon(params, lr=lr, betas=(momentum, 0.99), weight_decay=weight_decay, nesterov=nesterov,
                compile_step=False)


def pytorch_optimizer_sam(params: Any, base_optimizer: Any = None, rho: float = 0.05, normalize: bool = True,
                          **base_kwargs: Any):
    """pytorch-optimizer's ``SAM`` with our keywords: ``base_optimizer`` defaults to
    ``torch.optim.SGD`` (theirs has no default), ``normalize=True`` is their only rule (ε = ρg/‖g‖;
    their ``adaptive`` is ASAM, a different one), so ``normalize=False`` (USAM, ε = ρg) has no
    mapping and raises ``NotImplementedError``: the claims that draw it skip it for a peer. Their
    ``step(closure)`` expects the gradient at θ already computed and calls the closure once (at θ + ε);
    the subject's calls it at θ too, so the adapter's ``step`` runs the closure first, then theirs."""
    if normalize is not True:  # before the import: the answer does not depend on the package
        raise NotImplementedError("pytorch-optimizer SAM: no unnormalized perturbation (normalize=False); "
                                  f"got normalize={normalize!r}")
    import torch
    from pytorch_optimizer import SAM

    class ClosureAtTheta(SAM):
        def step(self, closure=None):
            if closure is not None:
                with torch.enable_grad():
                    closure()
            return super().step(closure)

    base = torch.optim.SGD if base_optimizer is None else base_optimizer
    return ClosureAtTheta(params, base_optimizer=base, rho=rho, adaptive=False, **base_kwargs)


def pytorch_optimizer_soap(params: Any, lr: float = 3e-3, betas: tuple[float, float] = (0.95, 0.95),
                           eps: float = 1e-8, weight_decay: float = 0.0, precondition_frequency: int = 10,
                           shampoo_beta: float | None = None, block_size: int | None = None, **unmapped: Any):
    """pytorch-optimizer's ``SOAP`` with our SOAP's keywords (same names and meanings; ``block_size``
    has no counterpart: its ``max_precondition_dim`` skips large dimensions instead of tiling them,
    so a ``block_size`` raises ``NotImplementedError``, which claims count as a draw the subject cannot
    express). Its other defaults (bias correction on, 1-D tensors by plain Adam) are its own."""
    _no_tiling("pytorch-optimizer SOAP", block_size)
    from pytorch_optimizer import SOAP

    _no_unmapped("pytorch-optimizer SOAP", unmapped)
    return SOAP(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                precondition_frequency=precondition_frequency, shampoo_beta=shampoo_beta)


def heavyball_soap(params: Any, lr: float = 3e-3, betas: tuple[float, float] = (0.95, 0.95),
                   eps: float = 1e-8, weight_decay: float = 0.0, precondition_frequency: int = 10,
                   shampoo_beta: float | None = None, block_size: int | None = None, **unmapped: Any):
    """heavyball's ``SOAP`` with our SOAP's keywords (``shampoo_beta`` None: ``betas[1]``, as ours);
    ``block_size`` has no counterpart (``NotImplementedError``, as :func:`pytorch_optimizer_soap`); its
    other defaults are its own. Uncompiled, as :func:`heavyball_muon`."""
    _no_tiling("heavyball SOAP", block_size)
    import heavyball.utils
    from heavyball import SOAP

    heavyball.utils.compile_mode = None

    _no_unmapped("heavyball SOAP", unmapped)
    return SOAP(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                precondition_frequency=precondition_frequency,
                shampoo_beta=betas[1] if shampoo_beta is None else shampoo_beta, compile_step=False)


def cvxpylayers_qp(algorithm: Any = None, tol: float | None = None):
    """cvxpylayers' ``CvxpyLayer`` behind our ``QPLayer(algorithm)(P, q, G, h, A, b)``.

    The QP is written as a DPP problem, ½‖Lx‖² + qᵀx s.t. Gx ≤ h, Ax = b, with L = Cᵀ from the
    Cholesky factor C of P (cvxpy's ``quad_form(x, P)`` with a parameter P is not DPP), so ∇P flows
    through ``torch.linalg.cholesky``; a P that is not positive definite, a scipy.sparse input or a QP
    without constraints has no mapping (``NotImplementedError``). ``algorithm`` and ``tol`` (our dQP's
    backend and tolerance) are not used: the layer solves with its own default (diffcp, its solver's
    default accuracy). One ``CvxpyLayer`` is built per shape (n, m, p) and reused."""
    import torch

    class CvxpyQPLayer(torch.nn.Module):
        def forward(self, P, q, G=None, h=None, A=None, b=None, lb=None, ub=None):
            _dense_qp_inputs("cvxpylayers", P, q, G, h, A, b, lb, ub)
            if G is None and A is None:
                raise NotImplementedError("cvxpylayers QP adapter: a QP without constraints (cvxpylayers "
                                          "needs a constraint to differentiate through)")
            try:
                chol = torch.linalg.cholesky(P)
            except RuntimeError as exc:
                raise NotImplementedError("cvxpylayers QP adapter: P must be positive definite (it enters "
                                          f"as a Cholesky factor): {exc}") from None
            n = int(q.shape[-1])
            m, p = (0 if G is None else int(G.shape[-2])), (0 if A is None else int(A.shape[-2]))
            layer = _cvxpy_qp_layer(n, m, p)
            params = [chol.transpose(-1, -2), q, *([G, h] if m else []), *([A, b] if p else [])]
            (x,) = layer(*params)
            return x

    return CvxpyQPLayer()


def proxsuite_qplayer(algorithm: Any = None, tol: float | None = None):
    """proxsuite's QPLayer (``proxsuite.torch.qplayer.QPFunction()``, its defaults) behind our
    ``QPLayer(algorithm)(P, q, G, h, A, b)``: ``Gx ≤ h`` is its ``l ≤ Gx ≤ u`` with ``l = −∞``, an
    absent ``(A, b)`` its empty tensors, and its batch-of-one output is unbatched for unbatched
    inputs. It needs inequality rows (``G`` None: ``NotImplementedError``) and dense tensors.
    ``algorithm`` and ``tol`` are not used (it solves with ProxQP at its own ``eps=1e-9``)."""
    import torch
    from proxsuite.torch.qplayer import QPFunction

    class ProxsuiteQPLayer(torch.nn.Module):
        def forward(self, P, q, G=None, h=None, A=None, b=None, lb=None, ub=None):
            _dense_qp_inputs("proxsuite QPLayer", P, q, G, h, A, b, lb, ub)
            if G is None:
                raise NotImplementedError("proxsuite QPLayer: a QP without inequality rows (its "
                                          "QPFunction needs a 2-D or 3-D G)")
            if A is None:
                A = b = torch.empty(0, dtype=q.dtype)
            x, _, _ = QPFunction()(P, q, A, b, G, torch.full_like(h, -torch.inf), h)
            batched = any(t.dim() == d + 1 for t, d in ((P, 2), (q, 1), (G, 2), (h, 1), (A, 2), (b, 1))
                          if t.numel())
            return x if batched else x[0]

    return ProxsuiteQPLayer()


def _dense_qp_inputs(peer: str, *inputs: Any) -> None:
    """A peer layer takes dense torch tensors only, and no variable bounds (lb, ub)."""
    import torch

    names = ("P", "q", "G", "h", "A", "b", "lb", "ub")
    for name, value in zip(names, inputs):
        if name in ("lb", "ub") and value is not None:
            raise NotImplementedError(f"{peer}: no mapping for variable bounds ({name}); write them as "
                                      "rows of G")
        if value is not None and not torch.is_tensor(value):
            raise NotImplementedError(f"{peer}: {name} must be a dense torch tensor, got "
                                      f"{type(value).__name__}")


_CVXPY_LAYERS: dict[tuple[int, int, int], Any] = {}


def _cvxpy_qp_layer(n: int, m: int, p: int):
    """The DPP QP of :func:`cvxpylayers_qp` for n variables, m inequalities, p equalities (cached)."""
    if (n, m, p) not in _CVXPY_LAYERS:
        import cvxpy as cp
        from cvxpylayers.torch import CvxpyLayer

        x, L, q = cp.Variable(n), cp.Parameter((n, n)), cp.Parameter(n)
        params, constraints = [L, q], []
        if m:
            G, h = cp.Parameter((m, n)), cp.Parameter(m)
            params += [G, h]
            constraints.append(G @ x <= h)
        if p:
            A, b = cp.Parameter((p, n)), cp.Parameter(p)
            params += [A, b]
            constraints.append(A @ x == b)
        problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L @ x) + q @ x), constraints)
        _CVXPY_LAYERS[(n, m, p)] = CvxpyLayer(problem, parameters=params, variables=[x])
    return _CVXPY_LAYERS[(n, m, p)]


class BoTorchLogCEI(CEI):
    """Our CEI loop with BoTorch's acquisition-maximization step: ``LogConstrainedExpectedImprovement``
    (``maximize=False``, each constraint ``(None, 0.0)``) on BoTorch GPs that carry our GPs' kernels,
    means, data and noise (``jitter``·outputscale: gpytorch rounds it up to 1e-6, its own floor),
    maximized by ``optimize_acqf`` with ``num_restarts = n_restarts`` and ``raw_samples = n_candidates``
    (its other defaults its own). Built as our ``CEI(kernel=, fit=, n_candidates=, n_restarts=, ...)``;
    the GPs are ours (fixed kernel, or our fit with ``fit=True``), so a claim that fixes the kernel
    compares the two maximizers of the same criterion. While no point is feasible there is no f⁺ for
    LogCEI: that phase keeps our feasibility search."""

    def maximize_acquisition(self, surrogates, U, F, C, best_feasible, rng):
        if not np.isfinite(best_feasible):
            return super().maximize_acquisition(surrogates, U, F, C, best_feasible, rng)
        import torch
        from botorch.acquisition.analytic import LogConstrainedExpectedImprovement
        from botorch.models import ModelListGP
        from botorch.optim import optimize_acqf

        model = ModelListGP(*[_botorch_gp(gp) for gp in surrogates.gps])
        acquisition = LogConstrainedExpectedImprovement(
            model, best_f=float(best_feasible), objective_index=0,
            constraints={j: (None, 0.0) for j in range(1, len(surrogates.gps))}, maximize=False)
        d = U.shape[1]
        bounds = torch.tensor([[0.0] * d, [1.0] * d], dtype=torch.float64)
        with torch.random.fork_rng():  # its raw samples from a seed drawn from the run's generator
            torch.manual_seed(int(rng.integers(2**31)))
            x, value = optimize_acqf(acquisition, bounds, q=1, num_restarts=self.n_restarts,
                                     raw_samples=self.n_candidates)
        return np.clip(x.detach().numpy().reshape(d), 0.0, 1.0), float(value)


def botorch_constrained_ei(mu_f: Any, sigma_f: Any, mu_c: Any, sigma_c: Any,
                           best_feasible: float) -> np.ndarray:
    """exp of BoTorch's ``LogConstrainedExpectedImprovement`` (``maximize=False``, each constraint
    ``(None, 0.0)``) at given posterior moments, behind our ``constrained_ei(mu_f, sigma_f, mu_c, sigma_c,
    best_feasible)``: the moments enter through BoTorch's own ``MockModel``/``MockPosterior``
    (``botorch.utils.testing``), one q = 1 batch per point."""
    import torch
    from botorch.acquisition.analytic import LogConstrainedExpectedImprovement
    from botorch.utils.testing import MockModel, MockPosterior

    mu_f, sigma_f = np.asarray(mu_f, dtype=np.float64).ravel(), np.asarray(sigma_f, dtype=np.float64).ravel()
    mu_c = np.asarray(mu_c, dtype=np.float64).reshape(mu_f.size, -1)
    sigma_c = np.asarray(sigma_c, dtype=np.float64).reshape(mu_f.size, -1)
    mean = torch.tensor(np.column_stack([mu_f, mu_c]))[:, None, :]
    variance = torch.tensor(np.column_stack([sigma_f, sigma_c]) ** 2)[:, None, :]
    acquisition = LogConstrainedExpectedImprovement(
        MockModel(MockPosterior(mean=mean, variance=variance)), best_f=float(best_feasible),
        objective_index=0, constraints={j: (None, 0.0) for j in range(1, mean.shape[-1])}, maximize=False)
    with torch.no_grad():
        return np.exp(acquisition(torch.zeros(mu_f.size, 1, 1, dtype=torch.float64)).numpy())


class BoTorchGP:
    """BoTorch's ``SingleTaskGP`` behind our ``GaussianProcess(kernel, jitter=, mean=)``: ``add(X, y)``
    collects observations, ``predict(X)`` returns the posterior mean and standard deviation of a
    SingleTaskGP with our kernel's family and hyperparameters (fixed, no fit), constant ``mean`` and
    fixed noise ``jitter``·outputscale (gpytorch rounds a noise below 1e-6 up to 1e-6: its own floor),
    ``log_marginal_likelihood()`` gpytorch's ``ExactMarginalLogLikelihood`` times n (it reports the
    mean per observation)."""

    def __init__(self, kernel: Any, *, jitter: float = 1e-8, mean: float = 0.0) -> None:
        self.kernel, self.jitter, self.mean = kernel, float(jitter), float(mean)
        self._X: list[np.ndarray] = []
        self._y: list[float] = []

    @property
    def X(self) -> np.ndarray:
        return np.array(self._X, dtype=np.float64)

    @property
    def y(self) -> np.ndarray:
        return np.array(self._y, dtype=np.float64)

    @property
    def n(self) -> int:
        return len(self._y)

    def add(self, X: Any, y: Any) -> None:
        self._X.extend(np.atleast_2d(np.asarray(X, dtype=np.float64)))
        self._y.extend(np.asarray(y, dtype=np.float64).ravel().tolist())

    def predict(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        import torch

        with torch.no_grad():
            posterior = _botorch_gp(self).posterior(torch.tensor(np.atleast_2d(X), dtype=torch.float64))
            return posterior.mean.numpy()[:, 0], posterior.variance.clamp_min(0).sqrt().numpy()[:, 0]

    def log_marginal_likelihood(self) -> float:
        import torch
        from gpytorch.mlls import ExactMarginalLogLikelihood

        model = _botorch_gp(self).train()
        mll = ExactMarginalLogLikelihood(model.likelihood, model)
        with torch.no_grad():
            return float(mll(model(*model.train_inputs), model.train_targets)) * self.n


def _botorch_gp(gp: Any):
    """A BoTorch ``SingleTaskGP`` with the posterior of our ``GaussianProcess`` ``gp`` (same kernel
    family and hyperparameters, constant mean, fixed noise; no outcome or input transform)."""
    import torch
    from botorch.models import SingleTaskGP
    from gpytorch.kernels import MaternKernel, RBFKernel, ScaleKernel
    from gpytorch.means import ConstantMean

    kernel, X = gp.kernel, torch.tensor(gp.X, dtype=torch.float64)
    ard = {"ard_num_dims": X.shape[1]} if np.ndim(kernel.lengthscale) == 1 else {}
    base = RBFKernel(**ard) if kernel.name == "se" else MaternKernel(nu=kernel.nu, **ard)
    base.lengthscale = torch.tensor(np.asarray(kernel.lengthscale, dtype=np.float64))
    covar = ScaleKernel(base)
    covar.outputscale = torch.tensor(float(kernel.outputscale), dtype=torch.float64)
    mean = ConstantMean()
    mean.constant = torch.tensor(float(gp.mean), dtype=torch.float64)
    y = torch.tensor(gp.y, dtype=torch.float64)[:, None]
    noise = torch.full_like(y, gp.jitter * float(kernel.outputscale))
    with warnings.catch_warnings():  # gpytorch's notice that it rounds the noise up to its floor
        warnings.filterwarnings("ignore", message="Very small noise values")
        model = SingleTaskGP(X, y, train_Yvar=noise, covar_module=covar.double(), mean_module=mean.double(),
                             outcome_transform=None)
    return model.eval()


def pytorch_optimizer_shampoo(params: Any, lr: float = 1e-3, weight_decay: float = 0.0, eps: float = 1e-6,
                              precondition_frequency: int = 10, betas: tuple[float, float] | None = None,
                              block_size: int | None = None, grafting: str | None = None,
                              adam_eps: float | None = None, **unmapped: Any):
    """pytorch-optimizer's ``Shampoo`` (Gupta et al. 2018) with our Shampoo's keywords: ``eps`` is its
    ``matrix_eps`` (the ridge εI in the statistics under the inverse roots), ``precondition_frequency``
    its ``preconditioning_compute_steps``, decoupled weight decay. With its ``momentum`` 0 (its default)
    its first step from zero state is ours, (GGᵀ + εI)^(−¼) G (GᵀG + εI)^(−¼) (its statistics are sums,
    ours bias-corrected EMAs: equal at step 1). ``betas`` (its statistics have no β₂ and its momentum is
    a lerp of the preconditioned step, no bias correction), ``block_size``, ``grafting`` and
    ``adam_eps`` (no tiling, no grafting, no AdamW path for 1-D tensors: it preconditions them with a
    ½ root) have no counterpart and raise ``NotImplementedError``."""
    for keyword, value in (("betas", betas), ("block_size", block_size), ("grafting", grafting),
                           ("adam_eps", adam_eps)):
        if value is not None:
            raise NotImplementedError(f"pytorch-optimizer Shampoo: no counterpart of {keyword} "
                                      f"(got {keyword}={value!r})")
    from pytorch_optimizer import Shampoo

    _no_unmapped("pytorch-optimizer Shampoo", unmapped)
    return Shampoo(params, lr=lr, momentum=0.0, weight_decay=weight_decay, weight_decouple=True,
                   preconditioning_compute_steps=precondition_frequency, matrix_eps=eps)


def badam_block_optimizer(params: Any, blocks: Any = None, base: Any = None, switch_every: int = 50,
                          order: str = "ascending", expansion: str = "none", expansion_lr_scale: float = 1.0,
                          lr: float = 1e-3, seed: int = 0, **base_kwargs: Any):
    """BAdam's ``BlockOptimizer`` (the ``badam`` package) with our BlockOptimizer's keywords: ``params``
    a module or ``named_parameters()`` (frozen ones left out, as ours), ``base`` the optimizer class
    (default ``torch.optim.AdamW``) built with ``lr`` and ``base_kwargs`` on every parameter as BAdam
    wants, ``switch_every`` its ``switch_block_every``, ``order`` its ``switch_mode``. ``blocks`` (ours:
    None = one block per numbered layer, or patterns / name lists) becomes BAdam's list of name
    prefixes, each block listed by its full names (partitioned by our ``find_blocks``, the keyword's
    meaning); BAdam matches prefixes as substrings, so a name inside another block's name raises
    ``NotImplementedError``. No counterpart: ``expansion`` other than "none" (BAdam is plain BCD) and the
    ``seed`` of ``order="random"`` (BAdam draws from torch's global generator): ``NotImplementedError``.
    Its own conventions stay: float32 master copies of the active block (it expects bfloat16 weights),
    no weight decay on biases, and its prints silenced (``verbose=0``)."""
    if expansion != "none":
        raise NotImplementedError(f"BAdam: plain BCD, no landscape expansion (got expansion={expansion!r})")
    if order == "random":
        raise NotImplementedError("BAdam: its random order draws from torch's global generator, no seed "
                                  f"(got order='random', seed={seed!r})")
    import torch
    from badam import BlockOptimizer as BAdam

    from algorithms.optimizers.block import find_blocks

    named = [(n, p) for n, p in (params.named_parameters() if isinstance(params, torch.nn.Module) else params)
             if p.requires_grad]
    partition = find_blocks([n for n, _ in named], blocks)
    for index, block in enumerate(partition):
        for name, _ in named:
            if name not in block and any(prefix in name for prefix in block):
                raise NotImplementedError(f"BAdam matches block prefixes as substrings: {name!r} would "
                                          f"fall in block {index} too")
    base = torch.optim.AdamW if base is None else base

    class Quiet(BAdam):
        def switch_trainable_params(self, verbose=None):
            return super().switch_trainable_params(0)

    return Quiet(base([p for _, p in named], lr=lr, **base_kwargs), named, block_prefix_list=partition,
                 switch_block_every=switch_every, switch_mode=order, verbose=0)


def _no_tiling(peer: str, block_size: int | None) -> None:
    if block_size is not None:
        raise NotImplementedError(f"{peer}: no tiling of matrices into blocks "
                                  f"(got block_size={block_size!r})")


def _muon_groups(params: Any) -> list[dict[str, Any]]:
    """Parameter groups with ``use_muon`` set (pytorch-optimizer demands it): a group's own
    value, else by shape (2-D: Muon), as our Muon and torch.optim.Muon's users route them."""
    groups = list(params)
    if not all(isinstance(g, dict) for g in groups):
        groups = [{"params": groups}]
    routed = []
    for group in groups:
        tensors = list(group["params"])
        flag = group.get("use_muon")
        split = ((True, [p for p in tensors if p.ndim == 2]), (False, [p for p in tensors if p.ndim != 2]))
        for use_muon, members in ((flag, tensors),) if flag is not None else split:
            if members:
                routed.append({**group, "params": members, "use_muon": use_muon})
    return routed


def _no_unmapped(peer: str, unmapped: dict[str, Any]) -> None:
    if unmapped:
        raise TypeError(f"{peer}: no mapping for the keyword(s) {', '.join(sorted(unmapped))}; "
                        "add one to theorems.core.adapters")
