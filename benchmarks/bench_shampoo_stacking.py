"""Would stacking equal-shaped parameters speed up Shampoo's step? A measured experiment (issue #10).

Shampoo's step without a preconditioner refresh does, per hidden matrix G (one tile, no blocking):
the Gram updates L ← β₂L + (1 − β₂)GGᵀ and R ← β₂R + (1 − β₂)GᵀG, the momentum M ← β₁M + (1 − β₁)G,
the direction D = L⁻ M R⁻, and Adam grafting (V ← β₂V + (1 − β₂)G², D rescaled to ‖M/(√V̂ + ε)‖).
This script times that sequence written once and run two ways on the hidden-matrix shapes of the
benchmark transformer (``--width``, ``--depth``): one call per parameter (what
:class:`~algorithms.optimizers.Shampoo` does), and one call per *shape group* on stacked state (the
parameters of equal shape concatenated along the batch axis, one batched op each). The difference
is the per-op dispatch that stacking would remove, an upper bound on its gain (a real optimizer
would also have to stack the gradients and unstack the updates, or keep its state stacked).
CPU time of one thread, median over ``--repeats`` calls; also printed: torch.optim.AdamW's step on
the whole transformer, in the same process, for the ratio the issue's target is stated in, and a
floor for Shampoo's mean step at preconditioner frequency 10: AdamW on the parameters that are
not hidden matrices, plus the stacked direction, plus a tenth of a refresh (the float64 ``eigh``
inverse roots of every factor, as :func:`~algorithms.optimizers._blocks.inverse_root` computes them).

    .venv/bin/python benchmarks/bench_shampoo_stacking.py            # width 64, depth 2 (--quick size)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch

from algorithms.optimizers import MarkovLanguageTask, Transformer
from algorithms.optimizers._blocks import inverse_root

BETA1, BETA2, EPS = 0.9, 0.95, 1e-8


def _state(shape: tuple[int, int], count: int, generator: torch.Generator) -> dict[str, torch.Tensor]:
    d_out, d_in = shape
    eye = lambda n: torch.eye(n).expand(count, n, n).clone()  # noqa: E731
    return {"G": torch.randn(count, d_out, d_in, generator=generator), "M": torch.zeros(count, d_out, d_in),
            "V": torch.zeros(count, d_out, d_in), "L": eye(d_out), "R": eye(d_in),
            "L_root": eye(d_out), "R_root": eye(d_in)}


def _direction(st: dict[str, torch.Tensor], t: int = 42) -> torch.Tensor:
    """Shampoo's non-refresh direction with Adam grafting, on a stack of equal-shaped matrices."""
    g = st["G"]
    st["L"].baddbmm_(g, g.mT, beta=BETA2, alpha=1 - BETA2)
    st["R"].baddbmm_(g.mT, g, beta=BETA2, alpha=1 - BETA2)
    st["M"].lerp_(g, 1 - BETA1)
    d = st["L_root"] @ st["M"] @ st["R_root"]
    st["V"].mul_(BETA2).addcmul_(g, g, value=1 - BETA2)
    adam = st["M"] / st["V"].sqrt().div_((1 - BETA2**t) ** 0.5).add_(EPS)
    scale = adam.flatten(1).norm(dim=1) / d.flatten(1).norm(dim=1).clamp(min=1e-30)
    return d * scale[:, None, None]


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    for _ in range(10):
        fn()
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    torch.set_num_threads(1)
    task = MarkovLanguageTask(vocab_size=64, context=32, seed=0)
    model = Transformer(task.vocab_size, width=args.width, depth=args.depth, n_heads=4, context=task.context,
                        seed=0)
    shapes = [tuple(p.shape) for n, p in model.named_parameters() if n.startswith("blocks.") and p.ndim == 2]
    generator = torch.Generator().manual_seed(0)
    per_parameter = [_state(s, 1, generator) for s in shapes]
    stacked = [_state(s, shapes.count(s), generator) for s in dict.fromkeys(shapes)]
    loop_ms = _median_ms(lambda: [_direction(st) for st in per_parameter], args.repeats)
    stacked_ms = _median_ms(lambda: [_direction(st) for st in stacked], args.repeats)

    factors = [st[side] @ st[side].mT for st in per_parameter for side in ("L", "R")]   # full-rank PSD
    refresh_ms = _median_ms(lambda: [inverse_root(f, 0.25, 1e-6) for f in factors],
                            max(10, args.repeats // 10))

    adamw = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    hidden_ids = {id(p) for n, p in model.named_parameters() if n.startswith("blocks.") and p.ndim == 2}
    rest = [p for p in model.parameters() if id(p) not in hidden_ids]
    adamw_rest = torch.optim.AdamW(rest, lr=3e-3, weight_decay=0.0)
    task.loss(model, task.sample(16, torch.Generator().manual_seed(0))).backward()
    adamw_ms = _median_ms(adamw.step, args.repeats)
    adamw_rest_ms = _median_ms(adamw_rest.step, args.repeats)
    floor_ms = adamw_rest_ms + stacked_ms + refresh_ms / 10
    print(f"hidden matrices: {len(shapes)} in {len(stacked)} shape groups {list(dict.fromkeys(shapes))}")
    print(f"Shampoo direction, one call per parameter: {loop_ms:.2f} ms ({loop_ms / adamw_ms:.2f}x AdamW)")
    print(f"Shampoo direction, one call per shape group: {stacked_ms:.2f} ms "
          f"({stacked_ms / adamw_ms:.2f}x AdamW)")
    print(f"saved by stacking: {loop_ms - stacked_ms:.2f} ms a step ({1 - stacked_ms / loop_ms:.0%}, "
          f"{(loop_ms - stacked_ms) / adamw_ms:.2f}x AdamW's step)")
    print(f"torch.optim.AdamW step on the whole transformer: {adamw_ms:.2f} ms; on the {len(rest)} other "
          f"parameters alone: {adamw_rest_ms:.2f} ms")
    print(f"one refresh (float64 eigh inverse roots of the {len(factors)} factors): {refresh_ms:.2f} ms")
    print(f"floor of Shampoo's mean step at frequency 10 (AdamW on the others + stacked direction + "
          f"refresh / 10): {floor_ms:.2f} ms = {floor_ms / adamw_ms:.2f}x AdamW")


if __name__ == "__main__":
    main()
