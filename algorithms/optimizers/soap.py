"""SOAP: Adam run in the eigenbasis of Shampoo's preconditioner, the basis refreshed periodically.

For each tile G of a 2-D gradient (see ``block_size``) and step t:

    L ← β_s L + (1 − β_s) G Gᵀ,   R ← β_s R + (1 − β_s) Gᵀ G       (Shampoo's statistics)
    Q_L, Q_R: eigenvectors of L, R (exact at t = 1; then refreshed every
              ``precondition_frequency`` steps by one power iteration Q ← qr(L Q), columns
              kept in decreasing order of the estimated eigenvalues)
    M ← β₁ M + (1 − β₁) G                                           (momentum, original basis)
    G' = Q_Lᵀ G Q_R,  V ← β₂ V + (1 − β₂) G'²                        (second moment, rotated basis)
    D = Q_L [ (Q_Lᵀ M̂ Q_R) / (√V̂ + ε) ] Q_Rᵀ

and W ← (1 − lr·λ) W − lr·D. When the basis is refreshed, V is permuted with it. A side longer
than ``max_precond_dim`` keeps the identity basis. Non-matrix parameters take the Adam step.

References
----------
N. Vyas et al., *SOAP: Improving and Stabilizing Shampoo using Adam*, ICLR 2025; S. Qiu et al.,
*Hyperparameter Transfer Enables Consistent Gains of Matrix-Preconditioned Optimizers Across
Scales*, NeurIPS 2025 (Table 1: SOAP's learning rate ∝ √(d_out/d_in) (n_blocks)^(−½) when both
sides are preconditioned).
"""

from __future__ import annotations

from typing import Any

import torch

from algorithms.optimizers._base import (
    MatrixOptimizer,
    adam_denominator,
    adam_state,
    adamw_direction,
    check_betas,
    check_eps,
    check_frequency,
    check_unit_interval,
)
from algorithms.optimizers._blocks import check_root_dtype, from_tiles, tile_shape, to_tiles
from algorithms.optimizers.shampoo import check_block_size

__all__ = ["SOAP"]


def _eigenbasis(stat: torch.Tensor, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Eigenvectors of a stack of symmetric matrices, by decreasing eigenvalue (eigh in ``dtype``)."""
    s64 = stat.to(dtype)
    _, vectors = torch.linalg.eigh(0.5 * (s64 + s64.transpose(-1, -2)))
    return vectors.flip(-1).to(stat.dtype)


def _power_refresh(stat: torch.Tensor, basis: torch.Tensor,
                   dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    """One power iteration + QR (in ``dtype``); returns the new basis and the column order it applied.

    One product S Q serves both the eigenvalue estimates qⱼᵀ S qⱼ (column sums of Q ⊙ S Q) and the
    power step (its columns reordered), instead of a three-operand einsum and a second product."""
    power = stat @ basis
    estimates = (basis * power).sum(dim=-2)
    order = estimates.argsort(dim=-1, descending=True)
    q, _ = torch.linalg.qr(torch.gather(power, -1, order[:, None, :].expand_as(power)).to(dtype))
    return q.to(stat.dtype), order


class SOAP(MatrixOptimizer):
    """SOAP (Adam in Shampoo's eigenbasis); see the module docstring for the update.

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
        (float32's smallest normal) keeps it a step) (default 3e-3)
    betas : (β₁, β₂) in [0, 1) (default (0.95, 0.95)): Adam's moments
    shampoo_beta : float in [0, 1) or None (default None: β₂): β_s of the factor statistics
    eps : float in [1.18e-38 (float32's smallest normal), 1e38] (default 1e-8): Adam's ε in the rotated basis,
        added to √v̂ (and of the vectors' AdamW step); a rotated coordinate whose √v̂ is at or below
        10 · u · (rows + cols) · ‖√v̂‖_F of its tile (u the state dtype's machine epsilon) is the rotation's
        rounding (0 in exact arithmetic) and takes no step (Adam would scale it to ±1, ε to noise/ε);
        float32 parameters keep the second moment in float32, where a gradient entry below ~1e-19 squares
        to 0 (as in torch.optim.AdamW): with ε below such an entry the
        step along it is m̂/ε, not ±lr; keep ε >= 1e-19 or use float64 parameters for gradients that small
    weight_decay : float >= 0 with lr·weight_decay <= 1, the float product (default 0): decoupled,
        W ← (1 − lr·λ) W
    precondition_frequency : int >= 1 (default 10): steps between basis refreshes
    block_size : int in [1, 2**63 - 1] or None (default None: whole matrices): tile side (it and
        ``max_precond_dim`` shape the state: edited in ``param_groups`` once a parameter has state, they
        are refused at the next step naming them)
    max_precond_dim : int >= 1 (default 10000): longer sides keep the identity basis
    on_nonfinite : "warn" (default), "skip" or "raise": a step with a NaN/inf gradient (or an entry
        above 1e15, 1e150 for float64 parameters: its square overflows the state) is skipped
        (parameters and state unchanged, counted in ``skipped_steps``) with a RuntimeWarning,
        silently, or raises FloatingPointError
    Raises ``RuntimeError`` at ``step`` for a sparse gradient (as torch's Adam); hand-edited or foreign
    ``state_dict``s are refused by ``load_state_dict`` with ValueError/TypeError naming the entry.
    root_dtype : torch.float64 (default) or torch.float32, keyword: the precision of the
        eigendecomposition and of the refreshes' QR (float64 is the reference; float32 is
        pytorch-optimizer's and heavyball's precision, faster on CPU; ``benchmarks/bench_optimizers.py``
        prints the relative error of the update it causes). Everything else stays in the state dtype.

    >>> _ = torch.manual_seed(0)
    >>> w = torch.nn.Parameter(torch.randn(5, 3))
    >>> opt = SOAP([w], lr=0.01)
    >>> (w ** 2).sum().backward()
    >>> opt.step()
    >>> sorted(k for k in opt.state[w] if k.startswith("basis"))
    ['basis_left', 'basis_right']
    """

    def __init__(self, params, lr: float = 3e-3, betas: tuple[float, float] = (0.95, 0.95),
                 shampoo_beta: float | None = None, eps: float = 1e-8, weight_decay: float = 0.0,
                 precondition_frequency: int = 10, block_size: int | None = None,
                 max_precond_dim: int = 10_000, *, on_nonfinite: str = "warn",
                 root_dtype: torch.dtype = torch.float64) -> None:
        defaults = dict(lr=lr, betas=betas, shampoo_beta=shampoo_beta, eps=eps, weight_decay=weight_decay,
                        precondition_frequency=precondition_frequency, block_size=block_size,
                        max_precond_dim=max_precond_dim, root_dtype=root_dtype)
        super().__init__(params, defaults, on_nonfinite=on_nonfinite)

    def _check_group(self, group: dict[str, Any]) -> None:
        super()._check_group(group)
        group["betas"] = check_betas(group["betas"])
        if group["shampoo_beta"] is not None:
            group["shampoo_beta"] = check_unit_interval("shampoo_beta", group["shampoo_beta"])
        group["eps"] = check_eps("eps", group["eps"])
        group["precondition_frequency"] = check_frequency("precondition_frequency",
                                                          group["precondition_frequency"])
        group["block_size"] = check_block_size(group["block_size"])
        group["max_precond_dim"] = check_frequency("max_precond_dim", group["max_precond_dim"])
        group["root_dtype"] = check_root_dtype(group["root_dtype"])

    def _expected_state(self, p, group) -> list[dict[str, tuple | None]]:
        if p.ndim != 2:
            return [adam_state(p)]
        rows, cols, down, across = tile_shape(p.shape, group["block_size"])
        n_tiles = down * across
        state: dict[str, tuple | None] = {"step": None, "momentum": tuple(p.shape),
                                          "second_moment": (n_tiles, rows, cols)}
        for side, size in (("left", rows), ("right", cols)):
            if size <= group["max_precond_dim"]:
                state[side] = state["basis_" + side] = (n_tiles, size, size)
        return [state]

    def _check_entry_structure(self, key: str, value: torch.Tensor, where: str) -> None:
        """The statistics L, R are Gram sums (diagonal >= 0) and the bases orthonormal (unit columns, to 1e-3:
        eigh's float32 columns are unit to ~1e-6): a basis zeroed in place moved nothing, in silence
        (red20c)."""
        if key in ("left", "right"):
            diagonal = torch.diagonal(value, dim1=-2, dim2=-1)
            if not bool((diagonal >= 0).all()):
                raise ValueError(f"{where}: its diagonal must be >= 0 (a sum of G Gᵀ), got an entry "
                                 f"{float(diagonal.min()):.3g}; reload a saved state_dict")
        elif key in ("basis_left", "basis_right"):
            norms = torch.linalg.vector_norm(value, dim=-2)
            if not bool(((norms - 1).abs() <= 1e-3).all()):
                worst = float(norms.flatten()[(norms - 1).abs().flatten().argmax()])
                raise ValueError(f"{where}: it must be orthonormal (an eigenbasis), got a column of norm "
                                 f"{worst:.3g}; reload a saved state_dict")

    def _direction(self, p, grad, state, group, dtype) -> tuple[torch.Tensor, float]:
        if p.ndim != 2:
            return adamw_direction(grad, state, group["betas"], group["eps"]), group["lr"]
        return self._matrix_direction(p, grad, state, group, dtype)

    def _rotate(self, tiles: torch.Tensor, state: dict[str, Any], inverse: bool = False) -> torch.Tensor:
        left, right = state.get("basis_left"), state.get("basis_right")
        if not inverse:
            if left is not None:
                tiles = left.mT @ tiles
            if right is not None:
                tiles = tiles @ right
        else:
            if left is not None:
                tiles = left @ tiles
            if right is not None:
                tiles = tiles @ right.mT
        return tiles

    def _matrix_direction(self, p, grad, state, group, dtype) -> tuple[torch.Tensor, float]:
        beta1, beta2 = group["betas"]
        beta_s = beta2 if group["shampoo_beta"] is None else group["shampoo_beta"]
        block_size = group["block_size"]
        rows, cols, down, across = tile_shape(p.shape, block_size)
        tiles = to_tiles(grad, block_size)
        first = "step" not in state
        if first:
            state["step"] = 0
            state["momentum"] = torch.zeros(p.shape, dtype=dtype, device=p.device)
            state["second_moment"] = torch.zeros(down * across, rows, cols, dtype=dtype, device=p.device)
        state["step"] += 1
        t = state["step"]
        grams = {"left": ((tiles, tiles.mT), rows), "right": ((tiles.mT, tiles), cols)}
        for side, ((a, b), size) in grams.items():
            if size > group["max_precond_dim"]:
                continue
            if first:
                state[side] = torch.zeros(a.shape[0], size, size, dtype=dtype, device=p.device)
            state[side].baddbmm_(a, b, beta=beta_s, alpha=1 - beta_s)     # β_s S + (1 − β_s) Gram
            if first:
                state["basis_" + side] = _eigenbasis(state[side], group["root_dtype"])
        state["momentum"].lerp_(grad, 1 - beta1)
        rotated_grad = self._rotate(tiles, state)
        state["second_moment"].mul_(beta2).addcmul_(rotated_grad, rotated_grad, value=1 - beta2)
        # the rotated momentum before bias correction: M̂ = M / (1 − β₁ᵗ) is folded into the step size
        rotated_momentum = self._rotate(to_tiles(state["momentum"], block_size), state)
        denominator = adam_denominator(state["second_moment"], beta2**t, 0.0)
        # rotated coordinates below the rotation's own rounding (10 · the dtype's eps · (rows + cols) · the
        # tile's RMS norm) are noise: Adam scaled them to ±1, so a float32 SOAP took full steps along
        # directions a rank-one gradient does not span (float64 kept them at 0)
        floor = denominator.square().sum(dim=(-2, -1), keepdim=True).sqrt_()
        floor.mul_(10 * torch.finfo(dtype).eps * (rows + cols))
        # and they take no step (0 in exact arithmetic): divided by the floor or by ε they moved the weights
        # by noise/ε, 1e-7 off the first step's closed form U diag(σ/(σ + ε)) Vᵀ at gradients of 1, 1e-2 off
        # at gradients of 1e30
        noise = denominator <= floor
        ratio = rotated_momentum / torch.maximum(denominator, floor).add_(group["eps"])
        direction = self._rotate(ratio.masked_fill_(noise, 0.0), state, inverse=True)
        if t % group["precondition_frequency"] == 0:
            self._refresh(state, group["root_dtype"])
        return from_tiles(direction, p.shape, block_size), group["lr"] / (1 - beta1**t)

    @staticmethod
    def _refresh(state: dict[str, Any], dtype: torch.dtype = torch.float64) -> None:
        """Refresh both eigenbases; V's rows/columns follow the reordering of the columns."""
        for side, axis in (("left", -2), ("right", -1)):
            if "basis_" + side not in state:
                continue
            basis, order = _power_refresh(state[side], state["basis_" + side], dtype)
            state["basis_" + side] = basis
            v = state["second_moment"]
            index = order[:, :, None].expand_as(v) if axis == -2 else order[:, None, :].expand_as(v)
            state["second_moment"] = torch.gather(v, axis, index)
