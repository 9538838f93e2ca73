"""Muon: orthogonalized momentum for matrix parameters, an auxiliary AdamW for the rest.

For a 2-D parameter W (shape d_out × d_in) with gradient G, each step does (torch's conventions)

    B ← μ B + (1 − μ) G                       (EMA momentum buffer)
    D ← (1 − μ) G + μ B  if nesterov, else B
    O ← NS_k^{(a,b,c)}(D / max(‖D‖_F, ε))     (Newton–Schulz, :func:`newton_schulz`)
    W ← (1 − lr·λ) W − lr · s(d_out, d_in) · O

with s = √max(1, d_out/d_in) (``adjust_lr_fn="original"``, the default), 0.2·√max(d_out, d_in)
(``"match_rms_adamw"``) or 1 (``"none"``, the paper's convention, where the μP factor
√(d_out/d_in) comes from :mod:`algorithms.optimizers.scaling` instead). Keywords and defaults
are ``torch.optim.Muon``'s, so one can replace the other.

Parameters that are not matrices (biases, gains) cannot be orthogonalized: they go to an
AdamW step (``adamw_betas``, ``adamw_eps``, the group's ``lr`` and ``weight_decay``). Conv
kernels (and any parameter of more than two dimensions) are flattened to
``(shape[0], prod(shape[1:]))`` for the Newton–Schulz step, as the usual Muon recipe does. The
output layer (``head="adamw"``, the default) also takes AdamW, as in the usual recipe;
``head="muon"`` is the paper's (and ``torch.optim.Muon``'s) routing, every matrix to Muon. The
full routing rules are on the class. ``routing()`` says where each parameter went.

References
----------
K. Jordan et al., *Muon: an optimizer for hidden layers in neural networks*, 2024;
S. Qiu, Z. Chen, H. Phan, Q. Lei, A. G. Wilson, *Hyperparameter Transfer Enables Consistent
Gains of Matrix-Preconditioned Optimizers Across Scales*, NeurIPS 2025 (Table 1: Muon's
learning rate ∝ √(d_out/d_in)).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import torch

from algorithms._validation import check_bool, check_choice, is_choice
from algorithms.optimizers._base import (
    NONFINITE_POLICIES,
    MatrixOptimizer,
    adam_state,
    adamw_direction,
    check_betas,
    check_eps,
    check_unit_interval,
)
from algorithms.optimizers.newton_schulz import (
    QUINTIC_COEFFICIENTS,
    _check_coefficients,
    _check_growth,
    _check_steps,
    _newton_schulz,
    _newton_schulz_many,
)

__all__ = ["Muon"]

ADJUST_LR_FNS = (None, "original", "match_rms_adamw", "none")
HEAD_ROUTINGS = ("adamw", "muon")


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: torch.Size) -> float:
    """``lr`` times the shape factor of ``adjust_lr_fn`` (torch's rule, plus ``"none"``)."""
    d_out, d_in = shape[:2]
    if adjust_lr_fn in (None, "original"):
        return lr * math.sqrt(max(1.0, d_out / d_in))
    if adjust_lr_fn == "match_rms_adamw":      # lr · (0.2 √·), torch's order: (lr · 0.2) · √· was 1 ulp off
        return lr * (0.2 * math.sqrt(max(d_out, d_in)))
    return lr


class Muon(MatrixOptimizer):
    """Muon with torch's keywords and an auxiliary AdamW for the parameters Muon does not take.

    Parameters
    ----------
    params : iterable of tensors, of (name, tensor) pairs, or of parameter groups (dicts)
        as for any ``torch.optim`` optimizer. A group may set any keyword below and ``use_muon``;
        another key (a misspelt ``"lrr"``) is refused naming it (written into
        ``param_groups`` later, a near-spelling of a keyword, or a torch.optim keyword this
        optimizer does not take (``maximize``, ``betas``, ...), or any other key holding a number, bool
        or tensor (``"LR"``, ``"learning_rate"``), is refused at the next step, and by
        ``load_state_dict`` when loaded; a str label is kept); the keys LR
        schedulers add (``initial_lr``, ...) are kept.
    lr : float, 0 or in [1.18e-38 (float32's smallest normal), 1e10]
        learning rate of both the Muon and the AdamW steps (default 1e-3, torch's). 0 leaves the
        parameters unchanged (as torch's); the cap (torch has none) keeps a step finite: 1e308
        failed inside torch's add_ and 2**64 wrote inf.
    weight_decay : float >= 0, with lr·weight_decay <= 1 (the float product)
        decoupled weight decay λ: ``W ← (1 − lr·λ) W`` before each step (default 0.1, torch's); a
        product past 1 would flip the weights' sign every step (and 1e308 overflowed them).
    momentum : float in [0, 1)
        μ of the EMA momentum buffer (default 0.95).
    nesterov : bool
        Nesterov-style look-ahead ``(1 − μ) G + μ B`` (default True).
    ns_coefficients : (a, b, c)
        the quintic Newton–Schulz polynomial (default torch's (3.4445, −4.775, 2.0315)): three finite
        numbers whose polynomial, iterated ``ns_steps`` times, stays within 1e6 on [0, 1] (larger ones
        overflow the iteration and are refused).
    eps : float in [1.18e-38 (float32's smallest normal), 1e38]
        the floor of ‖D‖_F: Newton–Schulz starts from D / max(‖D‖_F, ε), torch's clamp (default 1e-7).
    ns_steps : int in [0, 100)
        Newton–Schulz iterations (default 5; 100 or more are refused naming ns_steps, as by
        :func:`newton_schulz`).
    adjust_lr_fn : None, "original", "match_rms_adamw" or "none"
        the shape factor s(d_out, d_in) of the Muon step (module docstring); ``None`` is
        ``"original"`` (torch's); ``"none"`` is the paper's convention (μP factors come from
        :mod:`algorithms.optimizers.scaling`).
    maximize : bool
        ascend instead of descend (the gradient's sign flipped), as torch's optimizers do.
    foreach : bool or None
        accepted for drop-in compatibility with torch's optimizers (results do not depend on it):
        small matrices of one shape (up to 2¹⁵ entries) are orthogonalized together either way, in
        one batched Newton–Schulz iteration where this machine's batched products give the same
        bits as one matrix at a time (probed once per shape), others one by one.
    adamw_betas : (β₁, β₂) in [0, 1)
        the auxiliary AdamW's betas (default (0.9, 0.95)).
    adamw_eps : float in [1.18e-38 (float32's smallest normal), 1e38]
        the auxiliary AdamW's ε (default 1e-8);
        float32 parameters keep the second moment in float32, where a gradient entry below ~1e-19 squares
        to 0 (as in torch.optim.AdamW): with ε below such an entry the step along it is m̂/ε, not ±lr;
        keep ε >= 1e-19 or use float64 parameters for gradients that small.
    ns_dtype : torch.bfloat16, torch.float32 or torch.float64
        precision of the Newton–Schulz iteration (default bfloat16, torch's; float64 is the exact
        polynomial map).
    head : "adamw" or "muon"
        ``"adamw"`` (default, the usual recipe): the output layer takes the AdamW step. The head
        is the last parameter of two or more dimensions, in ``params`` order, among the groups
        that route by shape (``use_muon=None``), when there are at least two such matrices; with
        ``model.parameters()`` that is the output layer's weight (modules register in order).
        ``"muon"``: the paper's routing and ``torch.optim.Muon``'s, every matrix to Muon (use it
        to reproduce torch's steps bit for bit on float32 and float64 parameters (a bfloat16 or float16
        parameter is stepped from float32 state and rounded once, where torch keeps its momentum in the
        parameter's dtype: the steps then differ by that rounding), or to follow the paper; :meth:`Muon.paper`
        builds it). Decided at construction; groups added later never change it.
    on_nonfinite : "warn", "skip" or "raise"
        a step whose gradients hold NaN/±inf (or an entry above 1e15, 1e150 for float64 parameters:
        its square overflows the state) changes neither the parameters nor the state
        (``skipped_steps`` counts them) and warns (``"warn"``, default: an LR scheduler keeps
        stepping, so a silent skip would go unnoticed), skips silently (``"skip"``), or raises
        ``FloatingPointError`` (``"raise"``). torch's own optimizers would write the NaN into
        the weights; no setting here does.

    ``step`` raises ``RuntimeError`` for a sparse gradient (as torch's Adam); ``load_state_dict`` refuses a
    hand-edited or foreign state with ValueError/TypeError naming the entry.

    Routing per group (``use_muon``): ``None`` (default) by shape (2-D and conv kernels: Muon,
    flattened to ``(shape[0], -1)``; vectors and scalars: AdamW; the head as above), ``False``
    every parameter to AdamW (embeddings, read-outs), ``True`` every parameter to Muon (raises
    on a vector or scalar), so nothing reaches Muon silently.

    ``state_dict()`` interchanges with ``torch.optim.Muon``'s both ways (same group keys, same
    ``momentum_buffer`` state): ``load_state_dict`` accepts one written by ``torch.optim.Muon``
    (our own keywords keep their current values; the momentum torch saved for a parameter routed to AdamW
    here, the head under ``head="adamw"``, is dropped with a UserWarning: it starts fresh AdamW moments),
    and ``torch.optim.Muon.load_state_dict`` accepts ours. To continue a torch run step for step, build
    with ``head="muon"``. Our ``state_dict()``
    records ``head``; ``load_state_dict`` refuses one written under the other ``head`` (naming head: the
    head's saved statistics belong to the other step).

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
                 ns_steps: int = 5, adjust_lr_fn: str | None = None, *, maximize: bool = False,
                 foreach: bool | None = None, adamw_betas: tuple[float, float] = (0.9, 0.95),
                 adamw_eps: float = 1e-8, ns_dtype: torch.dtype = torch.bfloat16, head: str = "adamw",
                 on_nonfinite: str = "warn") -> None:
        head = check_choice("head", head, HEAD_ROUTINGS)
        on_nonfinite = check_choice("on_nonfinite", on_nonfinite, ("warn", *NONFINITE_POLICIES))
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn, maximize=maximize, foreach=foreach,
                        adamw_betas=adamw_betas, adamw_eps=adamw_eps, ns_dtype=ns_dtype, use_muon=None)
        super().__init__(params, defaults, on_nonfinite=on_nonfinite)   # the base class skips and warns
        self.head = head
        self._head_param: torch.Tensor | None = None
        if head == "adamw":
            by_shape = [p for g in self.param_groups if g["use_muon"] is None
                        for p in g["params"] if p.ndim >= 2]
            if len(by_shape) >= 2:
                self._head_param = by_shape[-1]

    _PICKLED = (*MatrixOptimizer._PICKLED, "head", "_head_param")
    _FIXED_AFTER_INIT = ("head",)
    CONSTRUCTOR_KEYWORDS = (*MatrixOptimizer.CONSTRUCTOR_KEYWORDS, "head")

    @staticmethod
    def paper(params, **kwargs: Any) -> Muon:
        """Muon with the paper's routing, which is also ``torch.optim.Muon``'s: every matrix to
        Muon, the head included (``head="muon"``); other keywords as for :class:`Muon`.

        A staticmethod, so ``Muon.paper`` is one object (claims name it as their subject)."""
        if "head" in kwargs:
            raise TypeError("Muon.paper() fixes head='muon'; use Muon(head=...) to choose")
        return Muon(params, head="muon", **kwargs)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        group["momentum"] = check_unit_interval("momentum", group["momentum"])
        for name in ("nesterov", "maximize"):    # numpy's np.True_ (arr.any()) is a bool too, stored as one
            group[name] = check_bool(name, group[name])
        if group["foreach"] is not None:
            group["foreach"] = check_bool("foreach", group["foreach"])
        group["ns_coefficients"] = _check_coefficients(group["ns_coefficients"])
        group["ns_steps"] = _check_steps(group["ns_steps"])
        _check_growth(group["ns_coefficients"], group["ns_steps"])
        group["eps"] = check_eps("eps", group["eps"])
        if not is_choice(group["adjust_lr_fn"], ADJUST_LR_FNS):
            raise ValueError(f"adjust_lr_fn must be one of {ADJUST_LR_FNS}, got {group['adjust_lr_fn']!r}")
        group["adamw_betas"] = check_betas(group["adamw_betas"], "adamw_betas")
        group["adamw_eps"] = check_eps("adamw_eps", group["adamw_eps"])
        if not is_choice(group["ns_dtype"], (torch.bfloat16, torch.float32, torch.float64)):
            raise ValueError(f"ns_dtype must be torch.bfloat16, float32 or float64, "
                             f"got {group['ns_dtype']!r}")
        if group["use_muon"] is not None:
            if not isinstance(group["use_muon"], bool | np.bool_):
                raise ValueError(f"use_muon must be None (route by shape), True or False, "
                                 f"got {group['use_muon']!r}")
            group["use_muon"] = bool(group["use_muon"])
        if group["use_muon"] is True:
            for p in group["params"]:
                if p.ndim < 2:
                    raise ValueError(f"Muon: a group with use_muon=True holds a parameter of shape "
                                     f"{tuple(p.shape)}; Muon needs parameters of 2 or more dimensions "
                                     "(leave use_muon=None to send the others to the auxiliary AdamW)")

    def _expected_state(self, p, group) -> list[dict[str, tuple | None]]:
        # either step's state: a torch.optim.Muon momentum may sit on a parameter routed to AdamW here
        # (load_state_dict warns), and a changed head routing keeps the other kind
        return [{"momentum_buffer": tuple(p.shape)}, adam_state(p)]

    def _uses_muon(self, group: dict[str, Any], p: torch.Tensor) -> bool:
        if group["use_muon"] is None:
            return p.ndim >= 2 and p is not getattr(self, "_head_param", None)
        return bool(group["use_muon"])

    @torch.no_grad()
    def step(self, closure=None) -> Any:
        """One step; ``closure`` (optional): a function (not a class) that
        re-evaluates the loss with gradients and returns it, a tensor of one element or a real number
        (None, a str, a dict, a generator or a tensor of several entries is refused naming closure).

        A step with a non-finite gradient is skipped (``skipped_steps``) and, with
        ``on_nonfinite="warn"``, warns; see the class docstring.
        """
        return self._step(closure)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``Muon.state_dict()`` or a ``torch.optim.Muon.state_dict()``.

        ``state_dict`` is one of those, over the same parameter groups.

        torch's groups lack our own keywords (``adamw_betas``, ``maximize``, ``use_muon``, ...):
        they keep the values this optimizer was built with.

        Each parameter's entry must hold exactly what a step writes (a momentum_buffer of its shape, or
        the AdamW moments and step); an entry with other keys is refused by name. An empty entry (``{}``,
        what torch's state holds for a parameter read but never stepped, and what deleting a Muon
        parameter's one entry ``momentum_buffer`` leaves) loads as a parameter without state: its next
        step starts a fresh momentum, as ``torch.optim.Muon`` does for a missing buffer.
        """
        if (isinstance(state_dict, dict) and "optimizer" not in state_dict
                and isinstance(state_dict.get("param_groups"), list)
                and all(isinstance(g, dict) and "ns_coefficients" in g and "adjust_lr_fn" in g
                        for g in state_dict["param_groups"])):     # written by torch.optim.Muon
            if len(state_dict["param_groups"]) != len(self.param_groups):
                raise ValueError(f"state_dict has {len(state_dict['param_groups'])} parameter groups, "
                                 f"this Muon has {len(self.param_groups)}")
            groups = [{**{k: v for k, v in own.items() if k != "params"}, **saved}
                      for own, saved in zip(self.param_groups, state_dict["param_groups"], strict=True)]
            state_dict = {**state_dict, "param_groups": groups, "optimizer": type(self).__name__}
            params = [p for g in self.param_groups for p in g["params"]]
            moved = [i for i in state_dict["state"] if i < len(params) and not self._uses_muon(
                self._group_of(params[i]), params[i])]
            if moved:
                # dropped, not kept: a momentum beside the AdamW moments the next step writes made this
                # optimizer's own state_dict() one an identical Muon refused (red23a)
                state_dict["state"] = {i: s for i, s in state_dict["state"].items() if i not in moved}
                warnings.warn(f"Muon.load_state_dict: torch.optim.Muon's momentum of parameter(s) {moved} "
                              "is not used (dropped): here they take the AdamW step, from fresh moments "
                              "(head='adamw' or use_muon=False); build with head='muon' to continue torch's "
                              "run step for step", UserWarning, stacklevel=2)
        if isinstance(state_dict, dict) and "head" in state_dict:
            saved = state_dict["head"]
            if saved != self.head:     # the head's momentum (or AdamW moments) sat unused, in silence
                raise ValueError(f"state_dict was written by a Muon with head={saved!r}, this one has "
                                 f"head={self.head!r}: the head's saved state belongs to the other step; "
                                 f"build the Muon with head={saved!r}")
            state_dict = {k: v for k, v in state_dict.items() if k != "head"}
        super().load_state_dict(state_dict)

    def _group_of(self, p: torch.Tensor) -> dict[str, Any]:
        return next(g for g in self.param_groups if any(q is p for q in g["params"]))

    def state_dict(self) -> dict[str, Any]:
        """torch's optimizer state (loadable by ``torch.optim.Muon`` too) tagged ``optimizer="Muon"`` and with
        the ``head`` routing it was written under."""
        return {**super().state_dict(), "head": self.head}

    def routing(self) -> dict[str, int]:
        """How many parameters take the Muon step and how many the auxiliary AdamW step."""
        counts = {"muon": 0, "adamw": 0}
        for group in self.param_groups:
            for p in group["params"]:
                counts["muon" if self._uses_muon(group, p) else "adamw"] += 1
        return counts

    def _step_group(self, group: dict[str, Any]) -> None:
        """The shared loop's arithmetic (:meth:`_direction`), reordered for speed: the small Muon
        matrices of one shape are orthogonalized together (one batched Newton–Schulz iteration where
        this machine gives it the same bits as one matrix at a time, see
        ``newton_schulz._newton_schulz_many``), and the group's settings are read once. A subclass
        that overrides :meth:`_direction` gets the shared per-parameter loop, so its own direction
        is used."""
        if type(self)._direction is not Muon._direction:
            super()._step_group(group)
            return
        by_shape: dict[tuple, list[torch.Tensor]] = {}
        for p in group["params"]:
            if p.grad is None or not p.numel():    # a 0-element parameter has nothing to step (torch's)
                continue
            if self._uses_muon(group, p):
                key = (p.shape[0], math.prod(p.shape[1:]), self.state_dtype(p), p.device)
                by_shape.setdefault(key, []).append(p)
            else:
                self._step_param(p, group)
        lr, wd, mu = group["lr"], group["weight_decay"], group["momentum"]
        a, b, c = group["ns_coefficients"]
        maximize, nesterov = group["maximize"], group["nesterov"]
        for (rows, cols, dtype, _), params in by_shape.items():
            directions = []
            for p in params:
                grad = p.grad if p.grad.dtype == dtype else p.grad.to(dtype)
                if maximize:
                    grad = -grad
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = torch.zeros_like(grad)
                buf.lerp_(grad, 1 - mu)
                direction = grad.lerp(buf, mu) if nesterov else buf
                directions.append(direction if direction.ndim == 2 else direction.reshape(rows, cols))
            if lr == 0:     # momentum updated, weights bitwise unchanged (W + (−0)·O turned −0.0 into +0.0)
                continue
            updates = _newton_schulz_many(directions, a, b, c, group["ns_steps"], group["eps"],
                                          group["ns_dtype"])
            step_size = -adjusted_lr(lr, group["adjust_lr_fn"], (rows, cols))
            for p, update in zip(params, updates, strict=True):
                value = p if p.dtype == dtype else p.to(dtype)   # fp32 state for low-precision parameters
                if wd != 0:
                    value.mul_(1 - lr * wd)
                # torch's add_ of the update in ns_dtype (promoted exactly to the parameter's dtype)
                value.add_(update if p.ndim == 2 else update.reshape(p.shape), alpha=step_size)
                if value is not p:
                    p.copy_(value)

    def _direction(self, p, grad, state, group, dtype) -> tuple[torch.Tensor, float]:
        lr = group["lr"]
        if group["maximize"]:
            grad = -grad
        if not self._uses_muon(group, p):
            return adamw_direction(grad, state, group["adamw_betas"], group["adamw_eps"]), lr
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = torch.zeros_like(grad)
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - group["momentum"])
        direction = grad.lerp(buf, group["momentum"]) if group["nesterov"] else buf
        if direction.ndim > 2:      # a conv kernel (out, in, kh, kw): orthogonalized as (out, in·kh·kw)
            direction = direction.reshape(direction.shape[0], -1)
        # the group's values were checked; a float64 gradient may pass 3.4e38 (up to 1e150, see
        # LARGE_GRADIENT_FLOAT64), which the public newton_schulz refuses as user data
        a, b, c = group["ns_coefficients"]
        update = _newton_schulz(direction, a, b, c, group["ns_steps"], group["eps"], group["ns_dtype"])
        return update.reshape(p.shape).to(dtype), adjusted_lr(lr, group["adjust_lr_fn"], direction.shape)
