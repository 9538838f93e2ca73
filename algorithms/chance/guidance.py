"""The gradient guidance of GGDOpt (Theorem 1, Corollary 1).

Theorem 1: the score of the diffused product p̃_t(x_t) ∝ ∫ p_0(x_0) e^{−βf(x_0)} p(x_t | x_0) dx_0 is
the data score plus a guidance term,

    ∇ log p̃_t(x_t) = ∇ log p_t(x_t) + G_t,   G_t = ∇_{x_t} log E[e^{−βf(x_0)} | x_t].

Corollary 1: when the posterior x_0 | x_t is N(μ, σ²I) (μ = μ_{0|t}(x_t)), the gradient of
log E[e^{−βf(x_0)}] with respect to μ is, to first order in f (exact for linear f),

    −β ∇f(μ),

and to second order (exact for quadratic f, by the Gaussian integral)

    −β (I + βσ² ∇²f(μ))⁻¹ ∇f(μ).

:func:`guidance_term` chains either through the Jacobian of Tweedie's mean μ(x_t) (computed
by autograd; G_t = (∂μ/∂x_t)ᵀ · the above). The posterior variance σ² is the paper's
hyperparameter when given, else Tweedie's: Cov[x_0 | x_t] = (1 − ᾱ_t)/√ᾱ_t · ∂μ/∂x_t, of which
σ² is the mean diagonal entry.

>>> import torch
>>> g = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
>>> first_order_guidance(g, beta=2.0)
tensor([[-2., -4.]], dtype=torch.float64)
>>> second_order_guidance(g, torch.eye(2, dtype=torch.float64)[None], beta=2.0, sigma2=0.5)
tensor([[-1., -2.]], dtype=torch.float64)
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from algorithms._validation import (
    WORKING_MAX,
    call_user,
    check_choice,
    check_entries_in_range,
    check_float_tensor,
    check_nonnegative,
    check_positive,
    check_takes,
)
from algorithms.chance.diffusion import (
    ScoreModel,
    _dense,
    _posterior_mean,
    _posterior_variance,
    check_score_model,
    one_time,
)

__all__ = ["GUIDANCE_ORDERS", "first_order_guidance", "guidance_term", "second_order_guidance"]

GUIDANCE_ORDERS = ("none", "first", "second")


def _check_batch(name: str, value, ndim: int) -> torch.Tensor:
    _dense(name, value)
    if not isinstance(value, torch.Tensor) or value.ndim != ndim:
        raise ValueError(
            f"{name} must be a torch tensor with {ndim} dimensions, got "
            f"{getattr(value, 'shape', type(value).__name__)}"
        )
    # NaN/inf, complex and meta tensors named, not propagated; half precision refused (a float16 grad_f
    # answered a float16 guidance, rounded in silence: the sampler runs in float32/float64)
    return check_float_tensor(name, value, allow_half=False)


_TINY = float(torch.finfo(torch.float64).tiny)


def _beta(beta) -> float:
    """The inverse temperature: a finite float >= 1.18e-38 (0 and subnormals refused)."""
    beta = check_positive("beta", beta)
    if beta < _TINY:   # 5e-324 gave subnormal guidance (rounded to 0 or to a few bits)
        raise ValueError(f"beta must be >= 2.2e-308 (not subnormal), got {beta!r}")
    return beta


def _finite_guidance(result: torch.Tensor, names: str) -> torch.Tensor:
    """The guidance, refused by the names of the scales that overflowed it (sigma2 = 1e308 gave NaN rows)."""
    if not bool(torch.isfinite(result).all()):
        raise ValueError(f"{names} too large: the guidance overflows {result.dtype} (non-finite entries)")
    return result


def first_order_guidance(grad_f: torch.Tensor, *, beta: float) -> torch.Tensor:
    """−β ∇f(μ), rows of ``grad_f`` (batch, n) (Corollary 1, first order).

    ``beta`` (finite float >= 1.18e-38: 0 and subnormals refused) is the guidance strength β; a beta whose
    product with the gradient overflows is refused by name.
    """
    grad_f = _check_batch("grad_f", grad_f, 2)
    return _finite_guidance(-_beta(beta) * grad_f, "beta is")


class ModelOverflowError(ValueError):
    """A value the score model's answers make (its posterior variance, the objective's gradient at its
    posterior means) past the working range: the model's scores are too large there (GGDOpt: its own
    trained model blown up, ``Diverged``)."""


def _model_in_range(what: str, value: torch.Tensor) -> None:
    # sigma2 of 5.8e94 from a model trained with lr = 1e20 was refused naming sigma2, a parameter of
    # second_order_guidance the caller never passed (red20c)
    finite = bool(torch.isfinite(value).all())
    largest = float(value.detach().abs().max()) if finite and value.numel() else 0.0
    if not finite or largest > WORKING_MAX:
        raise ModelOverflowError(f"the model's {what} reaches {largest if finite else 'inf/NaN'}, past the "
                                 f"working range (at most {WORKING_MAX:.4g}): the model's scores are too "
                                 f"large at these x")


def _two_product(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """a·b as p + e exactly (Dekker's split; float64 entries of magnitude below ~1e290)."""
    def split(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        t = 134217729.0 * x   # 2**27 + 1
        high = t - (t - x)
        return high, x - high
    p = a * b
    (ah, al), (bh, bl) = split(a), split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _identity_plus_scaled(beta: float, sigma2: torch.Tensor, hess_f: torch.Tensor) -> torch.Tensor:
    """I + β σ² H, each entry rounded once from its exact value (in float64, then to H's dtype): the
    products rounded first cancelled against the 1 (β = 1, σ² = 0.1, H = −10: exactly −5.55e-17, computed
    0.0 and refused as singular; the heldout23 class of gd_step)."""
    c, c_err = _two_product(torch.tensor(beta, dtype=torch.float64), sigma2.to(torch.float64))
    h = hess_f.to(torch.float64)
    p, p_err = _two_product(c, h)
    eye = torch.eye(hess_f.shape[-1], dtype=torch.float64).expand_as(h)
    total = eye + p
    back = total - eye   # two-sum: the rounding error of 1 + p, exactly
    err = (eye - (total - back)) + (p - back)
    return (total + (err + p_err + c_err * h)).to(hess_f.dtype)


def second_order_guidance(
    grad_f: torch.Tensor, hess_f: torch.Tensor, *, beta: float, sigma2: float | torch.Tensor
) -> torch.Tensor:
    """−β (I + βσ² H)⁻¹ ∇f(μ) for rows of ``grad_f`` (batch, n) and ``hess_f`` (batch, n, n)
    (Corollary 1, second order); ``sigma2`` a number or one per row (batch,): a real floating tensor, of
    any floating dtype (converted to ``grad_f``'s, as is a float ``sigma2``), or a real number.

    ``beta`` (finite float >= 1.18e-38) is the guidance strength β; ``sigma2`` finite and >= 0. Scales
    whose products overflow (βσ²H or the answer non-finite) are refused by name. Each ``hess_f[b]`` must be
    symmetric to within 1e-6 of its own largest entry (refused naming hess_f and the row).
    """
    grad_f = _check_batch("grad_f", grad_f, 2)
    hess_f = _check_batch("hess_f", hess_f, 3)
    if hess_f.shape != grad_f.shape + grad_f.shape[1:]:
        # both named: which of the two is wrong cannot be told (a short grad_f was blamed on hess_f)
        raise ValueError(
            f"grad_f (batch, n) and hess_f (batch, n, n) must agree: grad_f has shape {tuple(grad_f.shape)}, "
            f"so hess_f must have shape {(*grad_f.shape, grad_f.shape[1])}, got {tuple(hess_f.shape)}"
        )
    if hess_f.dtype != grad_f.dtype:   # mixed precision was promoted without a word
        raise TypeError(f"hess_f must have grad_f's dtype {grad_f.dtype}, got {hess_f.dtype}")
    # a Hessian is symmetric: an asymmetric one gave an answer (rtol 1e-6 of its largest entry: autograd's
    # per-row Hessians agree with their transposes to rounding); per matrix: one row's Hessian of 1e30 let
    # another's asymmetry of 5 through
    if hess_f.numel():
        scale = hess_f.detach().abs().amax(dim=(1, 2)).to(torch.float64).clamp(min=1e-300)
        asymmetry = (hess_f - hess_f.transpose(1, 2)).detach().abs().amax(dim=(1, 2)).to(torch.float64)
        if bool((asymmetry > 1e-6 * scale).any()):
            row = int(torch.nonzero(asymmetry > 1e-6 * scale)[0, 0])
            raise ValueError(f"hess_f must hold symmetric matrices (Hessians), got an asymmetric one at row "
                             f"{row} (max |H - Hᵀ| = {float(asymmetry[row]):.3g}, beyond 1e-6 of that "
                             f"matrix's largest entry)")
    beta = _beta(beta)
    if not isinstance(sigma2, torch.Tensor):
        sigma2 = torch.as_tensor(check_nonnegative("sigma2", sigma2), dtype=grad_f.dtype)
    elif sigma2.device.type == "meta" or not sigma2.is_floating_point():
        # a bool tensor was read as 0/1, a meta one met torch's "item() on meta tensors", a complex one
        # "ge_cpu not implemented"
        raise TypeError(f"sigma2 must be a number or a real floating tensor on a real device, got a "
                        f"{sigma2.device.type} tensor of dtype {sigma2.dtype}")
    elif _dense("sigma2", sigma2).numel() not in (1, grad_f.shape[0]):  # torch named nothing
        raise ValueError(f"sigma2 must be a number or one per row of grad_f ({grad_f.shape[0]}), got shape "
                         f"{tuple(sigma2.shape)}")
    elif sigma2.numel() and not bool((torch.isfinite(sigma2) & (sigma2 >= 0)).all()):  # NaN/negative answered
        raise ValueError("sigma2 must be finite and >= 0 (a variance), got a NaN, inf or negative entry")
    else:   # a float64 tensor of 1e39 was taken (a number of 1e39 is refused): one working range for both
        check_entries_in_range("sigma2", sigma2)
    sigma2 = sigma2.reshape(-1, 1, 1).to(grad_f.dtype)
    system = _identity_plus_scaled(beta, sigma2, hess_f)
    _finite_guidance(system, "beta · sigma2 (times hess_f) is")
    try:
        return _finite_guidance(-beta * torch.linalg.solve(system, grad_f.unsqueeze(-1)).squeeze(-1),
                                "beta (with sigma2) is")
    except torch.linalg.LinAlgError as exc:   # torch's "Batch element 0 ... singular" named no argument
        raise ValueError(f"I + beta sigma2 hess_f is singular for a row (hess_f has an eigenvalue "
                         f"-1/(beta sigma2)): {str(exc)[:80]}") from None


def _row_hessians(grad_f: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """Per-row Hessians (batch, n, n) from per-row gradients built with ``create_graph``."""
    if not grad_f.requires_grad:  # f linear in every row: its Hessian is zero
        return torch.zeros(mu.shape + mu.shape[1:], dtype=mu.dtype)
    rows = []
    for i in range(mu.shape[1]):
        (row,) = torch.autograd.grad(grad_f[:, i].sum(), mu, retain_graph=True, allow_unused=True)
        rows.append(torch.zeros_like(mu) if row is None else row)
    return torch.stack(rows, dim=1)


def guidance_term(
    model: ScoreModel,
    objective: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    t: float,
    *,
    beta: float,
    order: str = "second",
    posterior_variance: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """G_t at the rows of ``x`` and the data score there: ``(guidance, score)``, both (batch, n).

    ``model`` is a :class:`ScoreModel`, ``x`` a finite floating tensor (batch, n), ``t`` a diffusion time
    in [t_min, 1], ``beta`` a finite float > 0, ``order`` one of ``GUIDANCE_ORDERS`` and
    ``posterior_variance`` σ² (a finite float >= 0, or None: estimated from the score's Jacobian).

    ``objective`` maps (batch, n) to (batch,), row by row (row i of the output depends on row i of
    the input only), and is differentiated by autograd; so is the score model (its forward must leave its
    input unchanged: a backward that fails, e.g. after such a write, is a UserCallableError naming the
    model's backward). ``beta`` a finite float
    >= 1.18e-38 (a beta whose guidance overflows is refused by name); ``order`` one of
    :data:`GUIDANCE_ORDERS`; ``posterior_variance`` None (Tweedie's) or a finite float >= 0 (checked
    whatever the order; only ``order="second"`` uses it, "none" and "first" ignore it); ``t`` in
    the schedule's [t_min, 1].

    >>> import torch
    >>> from algorithms.chance.diffusion import GaussianScore, VPSchedule
    >>> model = GaussianScore([0.0], [1.0], VPSchedule())
    >>> x = torch.zeros(1, 1, dtype=torch.float64)
    >>> G, s = guidance_term(model, lambda z: z[:, 0], x, 0.5, beta=1.0, order="first")
    >>> bool(G[0, 0] < 0), float(s[0, 0])  # f increasing in x: pushed towards smaller x
    (True, 0.0)
    """
    check_choice("order", order, GUIDANCE_ORDERS)
    beta = _beta(beta)
    check_takes("objective", objective, "objective(x)", 1)
    if posterior_variance is not None:   # checked whatever the order (NaN passed unused with order="first")
        posterior_variance = check_nonnegative("posterior_variance", posterior_variance)
    if not isinstance(model, ScoreModel):
        raise TypeError(f"model must be a ScoreModel (e.g. ScoreMLP), got {type(model).__name__}")
    check_score_model(model)
    x = check_float_tensor("x", _dense("x", x), ndim=2)
    if x.shape[1] != model.out_features:  # torch would fail inside the model on the concatenation
        raise ValueError(f"x must have shape (batch, {model.out_features}) (the model's n), got "
                         f"{tuple(x.shape)}")
    # t = 0 divides by a zero noise scale; t > 1 is off the schedule; a plain float: np.float32(0.5)
    # computed ᾱ in float32 (NEP 50), another answer
    t = one_time(model.schedule, t)
    if order == "none":
        with torch.no_grad():
            return torch.zeros_like(x), model.score(x, t)
    n = x.shape[1]
    # rows are independent (a row-wise model and objective), so the gradient of a column sum over
    # the batch is every row's gradient at once: n backward passes give all per-row Jacobians
    with torch.enable_grad():
        # a clone when x was made under torch.inference_mode(): torch refuses requires_grad on such a tensor
        xg = (x.clone() if x.is_inference() else x.detach()).requires_grad_(True)
        score = model.score(xg, t)
        mu = _posterior_mean(model, xg, t, score)
        # the backward runs the model's graph: a forward that wrote into its input after using it failed
        # here with torch's bare "modified by an inplace operation" (red20c); named as the model's
        jac = call_user("model's backward (autograd, through its forward)", lambda: torch.stack(
            [torch.autograd.grad(mu[:, i].sum(), xg, retain_graph=i < n - 1)[0] for i in range(n)], dim=1
        ))
        mu_g = mu.detach().requires_grad_(True)
        before = mu_g.detach().clone()
        value = call_user("objective(x)", objective, mu_g)
        if not torch.equal(mu_g.detach(), before):
            # an objective writing into its input (x.data.mul_(0)) changed the point its gradient was taken
            # at: the sampler completed with other samples, in silence (red13a)
            raise ValueError("objective wrote into its input x (the posterior means it is evaluated at); it "
                             "must leave x unchanged (compute on a copy)")
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"objective must return a torch.Tensor of shape ({x.shape[0]},), "
                            f"got {type(value).__name__}")
        if tuple(value.shape) != (x.shape[0],):
            raise ValueError(f"objective must return shape ({x.shape[0]},) (one value per row), "
                             f"got {tuple(value.shape)}")
        if not value.requires_grad:  # autograd would say only "element 0 of tensors does not require grad"
            raise ValueError("objective must be computed from its input with torch operations (autograd "
                             "differentiates it); its output does not depend on x")
        # the backward runs the objective's graph (an in-place write into a tensor it needs fails there)
        (grad_f,) = call_user("objective(x)'s backward (autograd)", lambda: torch.autograd.grad(
            value.sum(), mu_g, create_graph=order == "second"))
    if not bool(torch.isfinite(value).all() and torch.isfinite(grad_f).all()):
        raise ValueError("objective returned a non-finite value or gradient at the rows of x (at the "
                         "posterior mean of each row)")
    largest = float(grad_f.detach().abs().max()) if grad_f.numel() else 0.0
    if largest > WORKING_MAX:
        # a model whose scores reach 1e39 put the posterior means far out: the guidance's own check then
        # named grad_f, first_order_guidance's parameter, which the caller never passed (red13a)
        raise ModelOverflowError(f"objective's gradient at the posterior means reaches {largest:.3g}, past "
                                 f"the working range (at most {WORKING_MAX:.4g}): the model's scores (or the "
                                 f"objective) are too large at these x")
    if order == "first":
        g_mu = first_order_guidance(grad_f.detach(), beta=beta)
    else:
        with torch.enable_grad():
            hess = call_user("objective(x)'s second backward (autograd)", _row_hessians, grad_f, mu_g)
        if posterior_variance is None:
            sigma2 = _posterior_variance(model, t, jac)
            _model_in_range("posterior variance (Tweedie's, from its scores)", sigma2)
        else:
            sigma2 = check_nonnegative("posterior_variance", posterior_variance)
        g_mu = second_order_guidance(grad_f.detach(), hess.detach(), beta=beta, sigma2=sigma2)
    guidance = _finite_guidance(torch.einsum("bij,bi->bj", jac, g_mu), "beta is")
    return guidance.detach(), score.detach()
