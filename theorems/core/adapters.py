"""Adapters: peers' implementations behind the interface a subject names (:mod:`theorems.core.subjects`).

Each adapter is a small function with the subject's call signature that builds the peer's
object, mapping the keywords whose names or conventions differ, and nothing more: a peer's
own defaults and numerics stay its own, so a claim that fails on a peer reports the peer (or
this mapping, which the paper note then says), not a re-implementation of it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["heavyball_muon", "heavyball_soap", "pytorch_optimizer_muon", "pytorch_optimizer_sam",
           "pytorch_optimizer_soap"]


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
                           shampoo_beta: float | None = None, **unmapped: Any):
    """pytorch-optimizer's ``SOAP`` with our SOAP's keywords (same names and meanings; ``block_size``
    has no counterpart: its ``max_precondition_dim`` skips large dimensions instead of tiling them,
    so it is not mapped). Its other defaults (bias correction on, 1-D tensors by plain Adam) are its own."""
    from pytorch_optimizer import SOAP

    _no_unmapped("pytorch-optimizer SOAP", unmapped)
    return SOAP(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                precondition_frequency=precondition_frequency, shampoo_beta=shampoo_beta)


def heavyball_soap(params: Any, lr: float = 3e-3, betas: tuple[float, float] = (0.95, 0.95),
                   eps: float = 1e-8, weight_decay: float = 0.0, precondition_frequency: int = 10,
                   shampoo_beta: float | None = None, **unmapped: Any):
    """heavyball's ``SOAP`` with our SOAP's keywords (``shampoo_beta`` None: ``betas[1]``, as ours);
    ``block_size`` has no counterpart (not mapped); its other defaults are its own. Uncompiled, as
    :func:`heavyball_muon`."""
    import heavyball.utils
    from heavyball import SOAP

    heavyball.utils.compile_mode = None

    _no_unmapped("heavyball SOAP", unmapped)
    return SOAP(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                precondition_frequency=precondition_frequency,
                shampoo_beta=betas[1] if shampoo_beta is None else shampoo_beta, compile_step=False)


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
