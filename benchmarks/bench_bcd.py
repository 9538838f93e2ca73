"""BCD with and without landscape expansion against AdamW on the tiny transformer finetune (bcd_expansion).

Run: ``.venv/bin/python benchmarks/bench_bcd.py [--steps 300] [--seed 0]``. One process, one
pretrained model, each optimizer finetuning a copy of it for the same steps and batches:

* measured optimizer-state bytes (peak over the run, :func:`optimizer_state_bytes`) and the
  bytes of the ``.grad`` tensors held right after each backward pass (peak), both as ratios
  to AdamW's;
* wall time per step (backward + step, median over the run), as a ratio to AdamW's;
* the full-sample loss at a few steps (the loss curve) and at the end.

BAdam (PyPI ``badam`` 1.4) is not run: it imports ``transformers`` at import time (an
undeclared dependency we do not install); BCD without expansion is the same algorithm (BAdam's
block-wise AdamW) and stands in for it.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch

from algorithms.optimizers.block import BlockOptimizer, optimizer_state_bytes
from algorithms.optimizers.finetune import markov_finetune_task


def _grad_bytes(model: torch.nn.Module) -> int:
    return sum(p.grad.untyped_storage().nbytes() for p in model.parameters() if p.grad is not None)


def run(task, make, steps: int, seed: int) -> dict:
    model = copy.deepcopy(task.model)
    opt = make(model)
    gen = torch.Generator().manual_seed(seed)
    state_peak = grad_peak = 0
    times, curve = [], {}
    perm, cursor = torch.empty(0, dtype=torch.long), task.n
    for k in range(1, steps + 1):
        if cursor + task.batch_size > task.n:
            perm, cursor = torch.randperm(task.n, generator=gen), 0
        index = perm[cursor:cursor + task.batch_size]
        cursor += task.batch_size
        opt.zero_grad(set_to_none=True)
        start = time.perf_counter()
        task.loss(model, index).backward()
        grad_peak = max(grad_peak, _grad_bytes(model))
        opt.step()
        times.append(time.perf_counter() - start)
        state_peak = max(state_peak, optimizer_state_bytes(opt))
        if k in (steps // 10, steps // 4, steps // 2, steps):
            with torch.no_grad():
                curve[k] = float(task.loss(model))
    return {"state": state_peak, "grads": grad_peak, "step_s": statistics.median(times), "curve": curve}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args()
    torch.set_num_threads(1)
    task = markov_finetune_task(vocab_size=32, context=16, n=256, width=args.width, depth=args.depth,
                                pretrain_steps=100, seed=args.seed, batch_size=16)
    lr, K = 3e-3, 25
    peers = {
        "AdamW": lambda m: torch.optim.AdamW(m.parameters(), lr=lr),
        "BCD (BAdam)": lambda m: BlockOptimizer(m, switch_every=K, lr=lr),
        "BREAD-SGD": lambda m: BlockOptimizer(m, switch_every=K, lr=lr, expansion="sgd",
                                              expansion_lr_scale=3.0),
        "BREAD-sign": lambda m: BlockOptimizer(m, switch_every=K, lr=lr, expansion="sign",
                                               expansion_lr_scale=0.1),
    }
    blocks = BlockOptimizer(copy.deepcopy(task.model), lr=lr).num_blocks
    n_params = sum(p.numel() for p in task.model.parameters())
    print(f"tiny transformer finetune: {n_params} parameters, {blocks} blocks "
          f"(1/#blocks = {1 / blocks:.3f}), {args.steps} steps, K = {K}, lr = {lr}, "
          f"entropy rate {task.reference_loss:.4f}")
    results = {name: run(task, make, args.steps, args.seed) for name, make in peers.items()}
    base = results["AdamW"]
    marks = sorted(base["curve"])
    header = (f"{'optimizer':<12} {'state B':>9} {'state/AdamW':>11} {'grads B':>9} {'grads/AdamW':>11} "
              f"{'ms/step':>8} {'time/AdamW':>10}  " + "  ".join(f"loss@{k:<4}" for k in marks))
    print(header)
    print("-" * len(header))
    for name, r in results.items():
        print(f"{name:<12} {r['state']:>9} {r['state'] / base['state']:>11.3f} {r['grads']:>9} "
              f"{r['grads'] / base['grads']:>11.3f} {1e3 * r['step_s']:>8.2f} "
              f"{r['step_s'] / base['step_s']:>10.3f}  " + "  ".join(f"{r['curve'][k]:<9.4f}" for k in marks))


if __name__ == "__main__":
    main()
