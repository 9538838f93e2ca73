"""Benchmark: our Muon, Shampoo and SOAP against ``torch.optim.AdamW`` and ``torch.optim.Muon`` on the
small transformer of ``algorithms.optimizers`` (CPU, one thread).

Printed per optimizer: the optimizer-step time (the ``step()`` calls alone, after the backward
pass), as the median over steps (a step without a preconditioner refresh) and as the mean (the
refreshes every ``precondition_frequency`` steps amortized), each with its ratio to
torch.optim.Muon's and to AdamW's; the optimizer-state memory (bytes of every state tensor) and
its ratio to AdamW's; and the held-out loss after the training run. Times are the thread's CPU
time (``time.thread_time``; torch runs on one thread here), so other processes on a shared
machine slow the wall clock but barely move these figures; the wall-clock median is printed too.
Targets (issue #10): our Muon step <= 1.1x torch.optim.Muon's at equal settings; Shampoo and
SOAP <= 3x AdamW's at preconditioner frequency 10. A loss-vs-steps plot goes to ``--plot``.

Matrix optimizers take the transformer's hidden matrices; embeddings, read-out and layer-norm
gains go to AdamW (torch.optim.Muon refuses them; ours routes them to its auxiliary AdamW).

    .venv/bin/python benchmarks/bench_optimizers.py --quick      # width 64, < 2 minutes
    .venv/bin/python benchmarks/bench_optimizers.py              # width 128, depth 4
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from algorithms.optimizers import SOAP, MarkovLanguageTask, Muon, Shampoo, Transformer


def _split(model):
    hidden = [p for n, p in model.named_parameters() if n.startswith("blocks.") and p.ndim == 2]
    ids = {id(p) for p in hidden}
    return hidden, [p for p in model.parameters() if id(p) not in ids]


def _optimizers(model):
    hidden, rest = _split(model)
    aux = lambda: torch.optim.AdamW(rest, lr=3e-3, weight_decay=0.0)  # noqa: E731
    return {
        "AdamW": [torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)],
        "torch.optim.Muon": [torch.optim.Muon(hidden, lr=0.02, weight_decay=0.0), aux()],
        "Muon": [Muon(hidden, lr=0.02, weight_decay=0.0), aux()],
        "Shampoo": [Shampoo(hidden, lr=3e-3, precondition_frequency=10, grafting="adam"), aux()],
        "SOAP": [SOAP(hidden, lr=3e-3, precondition_frequency=10), aux()],
    }


def _state_bytes(optimizers) -> int:
    total = 0
    for opt in optimizers:
        for state in opt.state.values():
            stack = list(state.values())
            while stack:
                value = stack.pop()
                if torch.is_tensor(value):
                    total += value.numel() * value.element_size()
                elif isinstance(value, dict | list | tuple):
                    stack.extend(value.values() if isinstance(value, dict) else value)
    return total


def run(name: str, width: int, depth: int, steps: int, task: MarkovLanguageTask):
    model = Transformer(task.vocab_size, width=width, depth=depth, n_heads=4, context=task.context, seed=0)
    optimizers = _optimizers(model)[name]
    generator = torch.Generator().manual_seed(0)
    held_out = task.sample(256, torch.Generator().manual_seed(1))
    step_times, wall_times, curve = [], [], []
    for k in range(1, steps + 1):
        for opt in optimizers:
            opt.zero_grad()
        task.loss(model, task.sample(16, generator)).backward()
        start, wall = time.thread_time(), time.perf_counter()
        for opt in optimizers:
            opt.step()
        step_times.append(time.thread_time() - start)
        wall_times.append(time.perf_counter() - wall)
        if k % 10 == 0:
            with torch.no_grad():
                curve.append((k, float(task.loss(model, held_out))))
    # skip the first 10 steps (allocation, the first preconditioner computations); the mean over
    # the other 90 (quick) includes 9 refreshes at frequency 10
    times = (statistics.median(step_times[10:]), statistics.mean(step_times[10:]),
             statistics.median(wall_times[10:]))
    return times, _state_bytes(optimizers), curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--plot", default="bench_optimizers.png")
    args = parser.parse_args()
    torch.set_num_threads(1)
    width, depth, steps = (64, 2, 100) if args.quick else (128, 4, 300)
    task = MarkovLanguageTask(vocab_size=64, context=32, seed=0)
    names = ["AdamW", "torch.optim.Muon", "Muon", "Shampoo", "SOAP"]
    results = {name: run(name, width, depth, steps, task) for name in names}
    (adam_t, adam_mean, _), adam_m, _ = results["AdamW"]
    muon_t, muon_mean, _ = results["torch.optim.Muon"][0]
    print(f"transformer width {width}, depth {depth}, {steps} steps, vocab {task.vocab_size}, "
          f"context {task.context}, entropy rate {task.entropy_rate():.3f} nats")
    print("step: CPU ms of the step() calls; median (no refresh) and mean (refreshes amortized); "
          "wall: median wall-clock ms")
    print(f"{'optimizer':18s} {'median':>7s} {'/tMuon':>6s} {'/AdamW':>6s} {'mean':>7s} {'/tMuon':>6s} "
          f"{'/AdamW':>6s} {'wall':>7s} {'state KiB':>9s} {'/AdamW':>6s} {'loss':>7s}")
    for name, ((t, mean, wall), mem, curve) in results.items():
        print(f"{name:18s} {1e3 * t:7.2f} {t / muon_t:6.2f} {t / adam_t:6.2f} {1e3 * mean:7.2f} "
              f"{mean / muon_mean:6.2f} {mean / adam_mean:6.2f} {1e3 * wall:7.2f} {mem / 1024:9.1f} "
              f"{mem / adam_m:6.2f} {curve[-1][1]:7.4f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name, (_, _, curve) in results.items():
        ax.plot(*zip(*curve, strict=True), label=name)
    ax.axhline(task.entropy_rate(), color="0.5", ls="--", lw=0.8, label="entropy rate")
    ax.set_xlabel("step")
    ax.set_ylabel("held-out loss (nats)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.plot, dpi=90)
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
