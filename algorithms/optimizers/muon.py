"""Muon: orthogonalized momentum for matrix parameters, an auxiliary AdamW for the rest.

For a 2-D parameter W (shape d_out × d_in) with gradient G, each step does (torch's conventions)

    B ← μ B + (1 − μ) G                       (EMA momentum buffer)
    D ← (1 − μ) G + μ B  if nesterov, else B
    O ← NS_k^{(a,b,c)}(D; ε)                  (Newton–Schulz, :func:`newton_schulz`)
    W ← (1 − lr·λ) W − lr · s(d_out, d_in) · O

with s = √max(1, d_out/d_in) (``adjust_lr_fn="original"``, the default), 0.2·√max(d_out, d_in)
(``"match_rms_adamw"``) or 1 (``"none"``, the paper's convention, where the μP factor
√(d_out/d_in) comes from :mod:`algorithms.optimizers.scaling` instead). Keywords and defaults
are ``torch.optim.Muon``'s, so one can replace the other.

Parameters that are not matrices (biases, gains) cannot be orthogonalized: they go to an
AdamW step (``adamw_betas``, ``adamw_eps``, the group's ``lr`` and ``weight_decay``). Each
parameter group may set ``use_muon``: ``None`` (default) routes by shape (2-D: Muon, else
AdamW), ``False`` sends every parameter of the group to AdamW (embeddings, read-outs), ``True``
demands 2-D parameters and raises on any other, so nothing reaches Muon silently.
``routing()`` says where each parameter went.

References
----------
K. Jordan et al., *Muon: an optimizer for hidden layers in neural networks*, 2024;
S. Qiu, Z. Chen, H. Phan, Q. Lei, A. G. Wilson, *Hyperparameter Transfer Enables Consistent
Gains of Matrix-Preconditioned Optimizers Across Scales*, NeurIPS 2025 (Table 1: Muon's
learning rate ∝ √(d_out/d_in)).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from algorithms.optimizers._base import (
    MatrixOptimizer,
    adamw_direction,
    check_betas,
    check_eps,
    check_unit_interval,
)
from algorithms.optimizers.newton_schulz import (
    QUINTIC_COEFFICIENTS,
    _check_coefficients,
    _check_steps,
    newton_schulz,
)

__all__ = ["Muon"]

ADJUST_LR_FNS = (None, "original", "match_rms_adamw", "none")


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: torch.Size) -> float:
    """``lr`` times the shape factor of ``adjust_lr_fn`` (torch's rule, plus ``"none"``)."""
    d_out, d_in = shape[:2]
    if adjust_lr_fn in (None, "original"):
        return lr * math.sqrt(max(1.0, d_out / d_in))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(d_out, d_in))
    return lr


class Muon(MatrixOptimizer):
    """Muon with torch's keywords and an auxiliary AdamW for non-matrix parameters.

    >>> _ = torch.manual_seed(0)
    >>> w = torch.nn.Parameter(torch.randn(4, 3))
    >>> b = torch.nn.Parameter(torch.zeros(4))
    >>> opt = Muon([w, b], lr=0.02, weight_decay=0.0)
    >>> opt.routing()
    {'muon': 1, 'adamw': 1}
    >>> (w.sum() + b.sum()).backward()
    >>> opt.step()
    >>> [round(v, 4) for v in b.tolist()]           # AdamW's first step: −lr · sign(g)
    [-0.02, -0.02, -0.02, -0.02]
    """

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=QUINTIC_COEFFICIENTS, eps: float = 1e-7,
                 ns_steps: int = 5, adjust_lr_fn: str | None = None, *,
                 adamw_betas: tuple[float, float] = (0.9, 0.95), adamw_eps: float = 1e-8,
                 ns_dtype: torch.dtype = torch.bfloat16, on_nonfinite: str = "skip") -> None:
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn, adamw_betas=adamw_betas, adamw_eps=adamw_eps,
                        ns_dtype=ns_dtype, use_muon=None)
        super().__init__(params, defaults, on_nonfinite=on_nonfinite)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        group["momentum"] = check_unit_interval("momentum", group["momentum"])
        if not isinstance(group["nesterov"], bool):
            raise TypeError(f"nesterov must be a bool, got {group['nesterov']!r}")
        group["ns_coefficients"] = _check_coefficients(group["ns_coefficients"])
        group["ns_steps"] = _check_steps(group["ns_steps"])
        group["eps"] = check_eps("eps", group["eps"])
        if group["adjust_lr_fn"] not in ADJUST_LR_FNS:
            raise ValueError(f"adjust_lr_fn must be one of {ADJUST_LR_FNS}, got {group['adjust_lr_fn']!r}")
        group["adamw_betas"] = check_betas(group["adamw_betas"])
        group["adamw_eps"] = check_eps("adamw_eps", group["adamw_eps"])
        if group["ns_dtype"] not in (torch.bfloat16, torch.float32, torch.float64):
            raise ValueError(f"ns_dtype must be torch.bfloat16, float32 or float64, "
                             f"got {group['ns_dtype']!r}")
        if group["use_muon"] not in (None, True, False):
            raise ValueError(f"use_muon must be None (route by shape), True or False, "
                             f"got {group['use_muon']!r}")
        if group["use_muon"] is True:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon: a group with use_muon=True holds a parameter of shape "
                                     f"{tuple(p.shape)}; Muon needs 2-D parameters (leave use_muon=None "
                                     "to send the others to the auxiliary AdamW)")

    @staticmethod
    def _uses_muon(group: dict[str, Any], p: torch.Tensor) -> bool:
        return p.ndim == 2 if group["use_muon"] is None else bool(group["use_muon"])

    def routing(self) -> dict[str, int]:
        """How many parameters take the Muon step and how many the auxiliary AdamW step."""
        counts = {"muon": 0, "adamw": 0}
        for group in self.param_groups:
            for p in group["params"]:
                counts["muon" if self._uses_muon(group, p) else "adamw"] += 1
        return counts

    def _direction(self, p, grad, state, group, dtype) -> tuple[torch.Tensor, float]:
        lr = group["lr"]
        if not self._uses_muon(group, p):
            return adamw_direction(grad, state, group["adamw_betas"], group["adamw_eps"]), lr
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = torch.zeros_like(grad)
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - group["momentum"])
        direction = grad.lerp(buf, group["momentum"]) if group["nesterov"] else buf
        update = newton_schulz(direction, group["ns_coefficients"], group["ns_steps"], group["eps"],
                               group["ns_dtype"])
        return update.to(dtype), adjusted_lr(lr, group["adjust_lr_fn"], p.shape)
