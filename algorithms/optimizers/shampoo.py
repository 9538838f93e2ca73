"""Shampoo: Kronecker-factored preconditioning of matrix parameters, with blocking and grafting.

For each tile G (a block of a 2-D gradient, see ``block_size``) and step t:

    L ← β₂ L + (1 − β₂) G Gᵀ,   R ← β₂ R + (1 − β₂) Gᵀ G        (factor statistics)
    M ← β₁ M + (1 − β₁) G                                        (momentum)
    every ``precondition_frequency`` steps:  L⁻ = (L̂ + εI)^(−e),  R⁻ = (R̂ + εI)^(−e)
    D = L⁻ M̂ R⁻                                                   (e = ``exponent``, ¼ by default)

with L̂, R̂, M̂ bias-corrected. Inverse roots come from an eigendecomposition in float64 with the
eigenvalues clipped at 0 before the ridge ε. With ``grafting="adam"`` each tile's D is rescaled
to the Frobenius norm of the Adam direction M̂ / (√V̂ + ε_adam) of the same tile (the
layer-wise step size of Adam, the direction of Shampoo; Adam's first moment is the same EMA as
Shampoo's momentum M, kept once, and V ← β₂ V + (1 − β₂) G² is the only extra state); the ratio's
denominator ‖D‖ is floored at 1e-30, so a tile with zero gradient gets direction 0, not 0/0, and every tile
whose ‖D‖ is at least 1e-30 takes Adam's norm exactly. A side longer than
``max_precond_dim`` is left unpreconditioned (identity). The step is W ← (1 − lr·λ) W − lr·D.
Parameters that are not matrices take the Adam direction (Shampoo's grafting base).

References
----------
V. Gupta, T. Koren, Y. Singer, *Shampoo: Preconditioned Stochastic Tensor Optimization*,
ICML 2018; S. Qiu et al., *Hyperparameter Transfer Enables Consistent Gains of
Matrix-Preconditioned Optimizers Across Scales*, NeurIPS 2025 (Table 1: Shampoo's learning
rate ∝ (d_out/d_in)^(1−E) (n_blocks)^(−E), E = 2e when both sides are preconditioned).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from algorithms._validation import INT64_MAX, check_positive, is_choice
from algorithms.optimizers._base import (
    MatrixOptimizer,
    adam_denominator,
    adam_state,
    adamw_direction,
    check_betas,
    check_eps,
    check_frequency,
)
from algorithms.optimizers._blocks import check_root_dtype, from_tiles, inverse_root, tile_shape, to_tiles

__all__ = ["Shampoo"]

GRAFTINGS = (None, "adam")


def check_block_size(value: Any) -> int | None:
    if value is not None and (isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer)
                              or not 1 <= value <= INT64_MAX):     # a size: numpy's and torch's largest
        raise ValueError(f"block_size must be None (no blocking) or an int >= 1 and <= 2**63 - 1, got "
                         f"{value!r}")
    return None if value is None else int(value)


class Shampoo(MatrixOptimizer):
    """Blocked, optionally grafted Shampoo; see the module docstring for the update.

    Which grafting: the default ``grafting=None`` is the bare update of the references (what
    the paper's scaling rules are stated for); its step size is not Adam's, so a learning rate
    tuned for AdamW can be far off (a user's comparison in issue #43 ended about 7x worse than
    AdamW). For practical training pass ``grafting="adam"`` (Adam's layer-wise
    step size, Shampoo's direction: the usual recipe, and what ``OptimizerTraining(
    "grafted_shampoo")`` uses) and reuse an AdamW learning rate; keep ``None`` to reproduce the
    ungrafted setting.

    Parameters
    ----------
    params : iterable of tensors or parameter groups (torch's convention): a group may set any keyword
        below; another key (a misspelt ``"lrr"``) is refused naming it (written into
        ``param_groups`` later, a near-spelling of a keyword, or a torch.optim keyword this
        optimizer does not take (``maximize``, ``betas``, ...), or any other key holding a number, bool
        or tensor (``"LR"``, ``"learning_rate"``), is refused at the next step, and by
        ``load_state_dict`` when loaded; a str label is kept); the keys LR
        schedulers add (``initial_lr``, ...) are kept
    lr : float, 0 or in [1.18e-38, 1e10] (0: no step, as torch's; the cap keeps a step finite, the floor
        (float32's smallest normal) keeps it a step) (default 1e-3)
    betas : (β₁, β₂) in [0, 1) (default (0.9, 0.95)): momentum and the factor statistics' EMA
    weight_decay : float >= 0 with lr·weight_decay <= 1, the float product (default 0): decoupled,
        W ← (1 − lr·λ) W
    eps : float in [1.18e-38 (float32's smallest normal), 1e38] (default 1e-6): the ridge ε of the
        inverse roots, raised to the statistics' rounding floor where it is below it: the ridge is
        max(eps, u · size · λ_max) with u the machine epsilon of the coarser of the state and root dtypes
        (2.2e-16 in float64): eigenvalues below that are rounding, and a float32 Shampoo took 25x steps on
        them
    precondition_frequency : int >= 1 (default 10): steps between inverse-root refreshes
    block_size : int in [1, 2**63 - 1] or None (default None: whole matrices): tile side (it and
        ``max_precond_dim`` shape the state: edited in ``param_groups`` once a parameter has state, they
        are refused at the next step naming them)
    exponent : float in (0, 0.5] (default 0.25): e in (L̂ + εI)^(−e)
    grafting : None or "adam" (default None; see above)
    adam_eps : float in [1.18e-38 (float32's smallest normal), 1e38] (default 1e-8): ε of the grafted
        Adam direction (and of the vectors' AdamW step);
        float32 parameters keep the second moment in float32, where a gradient entry below ~1e-19 squares
        to 0 (as in torch.optim.AdamW): with ε below such an entry the step along it is m̂/ε, not ±lr;
        keep ε >= 1e-19 or use float64 parameters for gradients that small
    max_precond_dim : int >= 1 (default 10000): longer sides are left unpreconditioned
    on_nonfinite : "warn" (default), "skip" or "raise": a step with a NaN/inf gradient (or an entry
        above 1e15, 1e150 for float64 parameters: its square overflows the state) is skipped
        (parameters and state unchanged, counted in ``skipped_steps``) with a RuntimeWarning,
        silently, or raises FloatingPointError
    Raises ``RuntimeError`` at ``step`` for a sparse gradient (as torch's Adam); hand-edited or foreign
    ``state_dict``s are refused by ``load_state_dict`` with ValueError/TypeError naming the entry.
    root_dtype : torch.float64 (default) or torch.float32, keyword: the precision of the refreshes'
        eigendecompositions (float64 is the reference; float32 is pytorch-optimizer's and heavyball's
        precision, faster on CPU; ``benchmarks/bench_optimizers.py`` prints the relative error of the
        update it causes). The statistics and the step stay in the state dtype either way.

    >>> _ = torch.manual_seed(0)
    >>> w = torch.nn.Parameter(torch.randn(6, 4))
    >>> opt = Shampoo([w], lr=0.1, block_size=3, precondition_frequency=1)
    >>> (w ** 2).sum().backward()
    >>> opt.step()
    >>> len(opt.state[w]["left"]), tuple(opt.state[w]["left"].shape[1:])      # 2 × 2 tiles of 3 × 3
    (4, (3, 3))
    """

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.95),
                 weight_decay: float = 0.0, eps: float = 1e-6, precondition_frequency: int = 10,
                 block_size: int | None = None, exponent: float = 0.25, grafting: str | None = None,
                 adam_eps: float = 1e-8, max_precond_dim: int = 10_000, *,
                 on_nonfinite: str = "warn", root_dtype: torch.dtype = torch.float64) -> None:
        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay, eps=eps,
                        precondition_frequency=precondition_frequency, block_size=block_size,
                        exponent=exponent, grafting=grafting, adam_eps=adam_eps,
                        max_precond_dim=max_precond_dim, root_dtype=root_dtype)
        super().__init__(params, defaults, on_nonfinite=on_nonfinite)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        group["betas"] = check_betas(group["betas"])
        group["eps"] = check_eps("eps", group["eps"])
        group["adam_eps"] = check_eps("adam_eps", group["adam_eps"])
        group["precondition_frequency"] = check_frequency("precondition_frequency",
                                                          group["precondition_frequency"])
        group["block_size"] = check_block_size(group["block_size"])
        group["max_precond_dim"] = check_frequency("max_precond_dim", group["max_precond_dim"])
        group["root_dtype"] = check_root_dtype(group["root_dtype"])
        # a real number as every other keyword takes it (Fraction(1, 4) was refused as "out of (0, 0.5]"; a
        # bool, str or array is a TypeError naming it), then a positive scale: >= 1.18e-38 (5e-324 rounded
        # every root to the identity) and at most 0.5
        exponent = check_positive("exponent", group["exponent"])
        if exponent > 0.5:
            raise ValueError(f"exponent must be in (0, 0.5], got {group['exponent']!r}")
        group["exponent"] = exponent
        if not is_choice(group["grafting"], GRAFTINGS):
            raise ValueError(f"grafting must be one of {GRAFTINGS}, got {group['grafting']!r}")

    def _expected_state(self, p, group) -> list[dict[str, tuple | None]]:
        if p.ndim != 2:
            return [adam_state(p)]
        rows, cols, down, across = tile_shape(p.shape, group["block_size"])
        n_tiles = down * across
        state: dict[str, tuple | None] = {"step": None, "momentum": tuple(p.shape)}
        for side, size in (("left", rows), ("right", cols)):
            if size <= group["max_precond_dim"]:
                state[side] = state[side + "_root"] = (n_tiles, size, size)
        # the grafted Adam's second moment exists once a step ran with grafting="adam"; a state without it
        # cannot continue a grafted run (grafting="adam" edited in after a step started V at 0 under the bias
        # correction of step t: a first grafted step of 1.09 for at most 0.035)
        grafted = {**state, "exp_avg_sq": tuple(p.shape)}
        return [grafted] if group["grafting"] == "adam" else [state, grafted]

    def _check_entry_structure(self, key: str, value: torch.Tensor, where: str) -> None:
        """The statistics L, R are Gram sums (diagonal >= 0) and their inverse roots positive definite
        (diagonal > 0): a root negated in place turned the step into ascent, one zeroed moved nothing, in
        silence (red20c)."""
        if key in ("left", "right", "left_root", "right_root"):
            diagonal = torch.diagonal(value, dim1=-2, dim2=-1)
            root = key.endswith("_root")
            if not bool((diagonal > 0).all() if root else (diagonal >= 0).all()):
                rule = "> 0 (an inverse root is positive definite)" if root else ">= 0 (a sum of G Gᵀ)"
                raise ValueError(f"{where}: its diagonal must be {rule}, got an entry "
                                 f"{float(diagonal.min()):.3g}; reload a saved state_dict")

    def _init_matrix_state(self, p: torch.Tensor, group: dict[str, Any], dtype: torch.dtype) -> dict:
        rows, cols, down, across = tile_shape(p.shape, group["block_size"])
        n_tiles = down * across
        eye = lambda n: torch.eye(n, dtype=dtype, device=p.device).expand(n_tiles, n, n).clone()  # noqa: E731
        state: dict[str, Any] = {"step": 0, "momentum": torch.zeros(p.shape, dtype=dtype, device=p.device)}
        if rows <= group["max_precond_dim"]:
            state["left"] = torch.zeros(n_tiles, rows, rows, dtype=dtype, device=p.device)
            state["left_root"] = eye(rows)
        if cols <= group["max_precond_dim"]:
            state["right"] = torch.zeros(n_tiles, cols, cols, dtype=dtype, device=p.device)
            state["right_root"] = eye(cols)
        return state

    def _direction(self, p, grad, state, group, dtype) -> tuple[torch.Tensor, float]:
        if p.ndim != 2:
            return adamw_direction(grad, state, group["betas"], group["adam_eps"]), group["lr"]
        if "momentum" not in state:
            state.update(self._init_matrix_state(p, group, dtype))
        beta1, beta2 = group["betas"]
        state["step"] += 1
        t = state["step"]
        block_size = group["block_size"]
        tiles = to_tiles(grad, block_size)
        refresh = (t - 1) % group["precondition_frequency"] == 0
        for side, (a, b) in (("left", (tiles, tiles.mT)), ("right", (tiles.mT, tiles))):
            if side in state:
                state[side].baddbmm_(a, b, beta=beta2, alpha=1 - beta2)      # β₂ S + (1 − β₂) Gram
                if refresh:
                    state[side + "_root"] = inverse_root(state[side] / (1 - beta2**t), group["exponent"],
                                                         group["eps"], group["root_dtype"])
        state["momentum"].lerp_(grad, 1 - beta1)
        # D = L⁻ M R⁻ on the momentum before bias correction; M̂ = M / (1 − β₁ᵗ) is a scalar
        # multiple, folded into the step size (grafting rescales D per tile, so it cancels there)
        direction = to_tiles(state["momentum"], block_size)
        if "left" in state:
            direction = state["left_root"] @ direction
        if "right" in state:
            direction = direction @ state["right_root"]
        if group["grafting"] == "adam":
            # Adam's direction of the same tile, M̂ / (√V̂ + ε): its first moment is Shampoo's momentum
            if "exp_avg_sq" not in state:
                state["exp_avg_sq"] = torch.zeros_like(grad)
            state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            adam = state["momentum"] / adam_denominator(state["exp_avg_sq"], beta2**t, group["adam_eps"])
            adam_norms = to_tiles(adam, block_size).flatten(1).norm(dim=1)
            norms = direction.flatten(1).norm(dim=1).clamp(min=1e-30)
            direction = direction * (adam_norms / norms)[:, None, None]
        return from_tiles(direction, grad.shape, block_size), group["lr"] / (1 - beta1**t)
