"""Benchmark: our Muon, Shampoo, SOAP and SAM against the implementations a user would pick instead
(torch.optim.Muon, pytorch-optimizer, heavyball), on the same models, in one process (CPU, one thread).

For each model and method every implementation trains its own copy of the model from the same
initialization on the same mini-batches with hyperparameters mapped between the APIs, and the
implementations are stepped round-robin (step k of each, in a rotating order, before step k + 1),
so a change of the machine's load hits all of them alike. Printed per implementation:

* ms/step: the median CPU time of the thread (``time.thread_time``; torch runs on one thread here,
  so other processes on a shared machine barely move it) of the ``step()`` calls alone (after the
  backward pass; for SAM the whole step with both gradients), over the steps after the first 10, and the
  mean (refreshes amortized), each with its ratio to ours; the median wall clock beside them;
* state: bytes of the optimizer state (every tensor storage once, the auxiliary AdamW included);
* loss: the held-out loss after the step budget.

Models (matrix optimizers take the hidden matrices; embeddings, read-out, biases and gains go to an
AdamW with the same settings in every row):

* ``mlp``: the residual MLP of ``algorithms.optimizers`` (width 256, depth 4: four 256 × 256 hidden
  matrices, the issue's 4 × 256² case) on a random teacher's regression task;
* ``transformer``: the small transformer on the Markov language task;
* ``conv``: a three-layer conv net on random-teacher image classification (the conv kernels are
  4-D: our Shampoo/SOAP give them the Adam step, pytorch-optimizer's and heavyball's SOAP
  precondition every dimension; the rows say so).

Numerics differ between implementations; each row names what it computes and the ``equal`` rows
set both sides to the same schedule and precision where the APIs allow:

* SOAP: ours does eigh and QR in float64 by default; pytorch-optimizer in float32; heavyball in float32
  with its own schedule (``precondition_frequency=10`` without the warm-up schedule here). The ``ours
  fp32 roots`` row is ours with ``root_dtype=torch.float32`` (the equal-numerics row); beside the
  table the script prints its drift from the float64 run after training and the relative error of
  one preconditioned update against the float64 reference from the same state (:func:`update_error`).
* Shampoo: ours is EMA Shampoo with Adam grafting and float64 eigh roots every 10 steps;
  pytorch-optimizer's ``Shampoo`` is the original (summed statistics, SVD roots, no grafting),
  its ``ScalableShampoo`` the distributed-Shampoo variant (Newton iteration roots, Adam-normalized
  grafting); the rows set the frequency to 10 and roots from step 1. ``ours fp32 roots``:
  ``root_dtype=torch.float32``, as for SOAP.
* Muon: ours, torch.optim.Muon and pytorch-optimizer's run the same bfloat16 quintic Newton–Schulz
  (the same losses); heavyball's has its own scaling; ``ours ns_dtype=float32`` is our existing
  keyword for a float32 iteration (faster than bfloat16 on some CPUs, slower on others).

Before the SOAP rows a cProfile of our SOAP and Shampoo steps on the MLP shows where the time goes.

    .venv/bin/python benchmarks/bench_optimizers.py --quick       # mlp only, 60 steps
    .venv/bin/python benchmarks/bench_optimizers.py               # mlp, transformer, conv, 100 steps
    .venv/bin/python benchmarks/bench_optimizers.py --models mlp --methods soap shampoo
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from algorithms.nets.sam import SAM
from algorithms.optimizers import MLP, SOAP, MarkovLanguageTask, Muon, Shampoo, Transformer

try:
    import pytorch_optimizer as po
except ImportError:  # pragma: no cover - optional peer
    po = None
try:
    import heavyball
    import heavyball.utils

    heavyball.utils.compile_mode = None  # heavyball compiles by default; eager mode runs on CPU here
except ImportError:  # pragma: no cover - optional peer
    heavyball = None


# ---- models and tasks ---------------------------------------------------------------------------
@dataclass
class Task:
    name: str
    make: Callable[[], nn.Module]
    batch: Callable[[int], tuple]          # step -> the mini-batch of that step (same for every row)
    loss: Callable[[nn.Module, tuple], torch.Tensor]
    held_out: tuple
    hidden: Callable[[nn.Module], list] = field(repr=False, default=None)


def mlp_task(width: int = 256, depth: int = 4) -> Task:
    g = torch.Generator().manual_seed(5)
    teacher = torch.randn(32, 10, generator=g) / 32**0.5

    def data(n: int, seed: int) -> tuple:
        x = torch.randn(n, 32, generator=torch.Generator().manual_seed(seed))
        return x, torch.tanh(x @ teacher) + 0.1 * torch.sin(3 * x[:, :10])

    return Task("mlp", lambda: MLP(32, 10, width=width, depth=depth, seed=0),
                lambda k: data(64, 1000 + k), lambda m, b: nn.functional.mse_loss(m(b[0]), b[1]),
                data(512, 1), lambda m: [p for n, p in m.named_parameters() if n.startswith("blocks.")])


def transformer_task(width: int = 64, depth: int = 2) -> Task:
    task = MarkovLanguageTask(vocab_size=64, context=32, seed=0)
    return Task("transformer",
                lambda: Transformer(task.vocab_size, width=width, depth=depth, n_heads=4, context=32, seed=0),
                lambda k: (task.sample(16, torch.Generator().manual_seed(1000 + k)),),
                lambda m, b: task.loss(m, b[0]), (task.sample(256, torch.Generator().manual_seed(1)),),
                lambda m: [p for n, p in m.named_parameters() if n.startswith("blocks.") and p.ndim == 2])


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.features = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def conv_task() -> Task:
    torch.manual_seed(7)
    teacher = nn.Sequential(nn.Conv2d(3, 8, 5, padding=2), nn.Tanh(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                            nn.Linear(32, 10)).requires_grad_(False)

    def data(n: int, seed: int) -> tuple:
        x = torch.randn(n, 3, 16, 16, generator=torch.Generator().manual_seed(seed))
        return x, teacher(x).argmax(dim=1)

    return Task("conv", ConvNet, lambda k: data(32, 1000 + k),
                lambda m, b: nn.functional.cross_entropy(m(b[0]), b[1]), data(512, 1),
                lambda m: [p for n, p in m.named_parameters() if p.ndim >= 2 and n != "head.3.weight"])


TASKS = {"mlp": mlp_task, "transformer": transformer_task, "conv": conv_task}


# ---- implementations ------------------------------------------------------------------------------
@dataclass
class Row:
    label: str
    numerics: str
    build: Callable[[list, list], list]       # (hidden, rest) -> optimizers
    sam: bool = False
    sam_first_gradient: bool = False  # pytorch-optimizer's SAM.step wants the gradient at θ before it


def _aux(rest: list) -> torch.optim.Optimizer:
    return torch.optim.AdamW(rest, lr=3e-3, weight_decay=0.0)


def _matrices(build: Callable[[list, list], list]) -> Callable[[list, list], list]:
    """Muon rows take the 2-D hidden parameters only (torch.optim.Muon refuses others): conv kernels go
    to the auxiliary AdamW in every Muon row."""
    return lambda h, r: build([p for p in h if p.ndim == 2], r + [p for p in h if p.ndim != 2])


def muon_rows() -> list[Row]:
    # head="muon": every hidden matrix to Muon, as torch.optim.Muon (the head is in r, on AdamW)
    rows = [Row("ours", "quintic NS, bf16",
                lambda h, r: [Muon(h, lr=0.02, weight_decay=0.0, head="muon"), _aux(r)]),
            Row("ours ns_dtype=float32", "quintic NS, fp32",
                lambda h, r: [Muon(h, lr=0.02, weight_decay=0.0, ns_dtype=torch.float32, head="muon"),
                              _aux(r)]),
            Row("torch.optim.Muon", "quintic NS, bf16",
                lambda h, r: [torch.optim.Muon(h, lr=0.02, weight_decay=0.0), _aux(r)])]
    if po is not None:
        rows.append(Row("pytorch-optimizer", "quintic NS, bf16, its own loop",
                        lambda h, r: [po.Muon([{"params": h, "use_muon": True}], lr=0.02, momentum=0.95,
                                              nesterov=True, weight_decay=0.0),
                                      _aux(r)]))
    if heavyball is not None:
        rows.append(Row("heavyball", "its NS and scaling",
                        lambda h, r: [heavyball.Muon(h, lr=0.02, betas=(0.95, 0.95), weight_decay=0.0),
                                      _aux(r)]))
    return rows


def soap_rows() -> list[Row]:
    def ours(root_dtype: torch.dtype) -> Callable[[list, list], list]:
        return lambda h, r: [SOAP(h, lr=3e-3, betas=(0.95, 0.95), precondition_frequency=10,
                                  root_dtype=root_dtype), _aux(r)]

    rows = [Row("ours", "fp64 eigh/QR, every 10", ours(torch.float64)),
            Row("ours fp32 roots", "fp32 eigh/QR, every 10 (equal)", ours(torch.float32))]
    if po is not None:
        rows.append(Row("pytorch-optimizer", "fp32 eigh/QR, every 10",
                        lambda h, r: [po.SOAP(h, lr=3e-3, betas=(0.95, 0.95), weight_decay=0.0,
                                              precondition_frequency=10), _aux(r)]))
    if heavyball is not None:
        rows.append(Row("heavyball", "fp32, every 10, no schedule",
                        lambda h, r: [heavyball.SOAP(h, lr=3e-3, betas=(0.95, 0.95), shampoo_beta=0.95,
                                                     weight_decay=0.0, precondition_frequency=10,
                                                     use_precond_schedule=False), _aux(r)]))
    return rows


def shampoo_rows() -> list[Row]:
    def ours(root_dtype: torch.dtype) -> Callable[[list, list], list]:
        return lambda h, r: [Shampoo(h, lr=3e-3, precondition_frequency=10, grafting="adam",
                                     root_dtype=root_dtype), _aux(r)]

    rows = [Row("ours", "EMA, Adam graft, fp64 eigh, every 10", ours(torch.float64)),
            Row("ours fp32 roots", "EMA, Adam graft, fp32 eigh, every 10", ours(torch.float32))]
    if po is not None:
        rows.append(Row("pytorch-optimizer Shampoo", "summed stats, SVD roots, every 10, no graft, lr 1e-3",
                        lambda h, r: [po.Shampoo(h, lr=1e-3, momentum=0.9, preconditioning_compute_steps=10),
                                      _aux(r)]))
        rows.append(Row("pytorch-optimizer ScalableShampoo", "EMA, RMSprop graft, Newton roots, every 10",
                        lambda h, r: [po.ScalableShampoo(h, lr=3e-3, betas=(0.9, 0.95),
                                                         preconditioning_compute_steps=10,
                                                         start_preconditioning_step=1, graft_type=3),
                                      _aux(r)]))
    return rows


def sam_rows() -> list[Row]:
    rows = [Row("ours", "AdamW(lr 3e-3) base, rho 0.05",
                lambda h, r: [SAM(h + r, torch.optim.AdamW, lr=3e-3, weight_decay=0.0, rho=0.05)], sam=True)]
    if po is not None:
        rows.append(Row("pytorch-optimizer", "AdamW(lr 3e-3) base, rho 0.05",
                        lambda h, r: [po.SAM(h + r, base_optimizer=torch.optim.AdamW, lr=3e-3,
                                             weight_decay=0.0, rho=0.05)], sam=True,
                        sam_first_gradient=True))
    return rows


def _muon_rows() -> list[Row]:
    return [Row(row.label, row.numerics, _matrices(row.build)) for row in muon_rows()]


METHODS = {"muon": _muon_rows, "soap": soap_rows, "shampoo": shampoo_rows, "sam": sam_rows}


# ---- measurement ----------------------------------------------------------------------------------
def state_bytes(optimizers: list) -> int:
    """Bytes of every tensor storage the optimizers' state reaches (each once), through dicts, lists and
    the attributes of state objects (pytorch-optimizer's ScalableShampoo keeps a preconditioner object)."""
    seen, visited, total = set(), set(), 0
    stack = [opt.state for opt in optimizers]
    stack += [opt.base_optimizer.state for opt in optimizers if hasattr(opt, "base_optimizer")]
    while stack:
        value = stack.pop()
        if torch.is_tensor(value):
            key = value.untyped_storage().data_ptr()
            if key not in seen:
                seen.add(key)
                total += value.untyped_storage().nbytes()
            continue
        if id(value) in visited or isinstance(value, str | bytes | int | float | bool | type(None)):
            continue
        visited.add(id(value))
        if isinstance(value, dict) or (hasattr(value, "values") and callable(value.values)):
            stack.extend(value.values())
        elif isinstance(value, list | tuple | set):
            stack.extend(value)
        elif hasattr(value, "__dict__") and not isinstance(value, nn.Module | torch.optim.Optimizer):
            stack.extend(vars(value).values())
    return total


def _split(task: Task, model: nn.Module) -> tuple[list, list]:
    hidden = task.hidden(model)
    ids = {id(p) for p in hidden}
    return hidden, [p for p in model.parameters() if id(p) not in ids]


def _one_step(task: Task, model: nn.Module, optimizers: list, batch: tuple, row: Row) -> tuple[float, float]:
    """(CPU s of this thread, wall s) of the optimizer step of one training step (SAM: both gradients,
    inside the step)."""
    for opt in optimizers:
        opt.zero_grad()
    if row.sam:
        (opt,) = optimizers

        def closure() -> torch.Tensor:
            opt.zero_grad()
            loss = task.loss(model, batch)
            loss.backward()
            return loss

        start, wall = time.thread_time(), time.perf_counter()
        if row.sam_first_gradient:
            closure()
        opt.step(closure)
        return time.thread_time() - start, time.perf_counter() - wall
    task.loss(model, batch).backward()
    start, wall = time.thread_time(), time.perf_counter()
    for opt in optimizers:
        opt.step()
    return time.thread_time() - start, time.perf_counter() - wall


def compare(task: Task, rows: list[Row], steps: int) -> list[dict]:
    runs = []
    for row in rows:
        model = task.make()
        hidden, rest = _split(task, model)
        runs.append({"row": row, "model": model, "opts": row.build(hidden, rest), "times": []})
    for k in range(steps):
        batch = task.batch(k)
        for index in range(len(runs)):
            run = runs[(index + k) % len(runs)]  # a rotating order: no row always runs first
            if "error" in run:
                continue
            try:
                run["times"].append(_one_step(task, run["model"], run["opts"], batch, run["row"]))
            except (RuntimeError, ValueError) as exc:  # a peer that breaks down: its row says so
                run["error"] = f"failed at step {k + 1}: {type(exc).__name__}: {str(exc)[:60]}"
    out = []
    for run in runs:
        times = [t for t, _ in run["times"][10:]] or [float("nan")]
        walls = [w for _, w in run["times"][10:]] or [float("nan")]
        with torch.no_grad():
            loss = float(task.loss(run["model"], task.held_out)) if "error" not in run else float("nan")
        out.append({"label": run["row"].label, "numerics": run.get("error", run["row"].numerics),
                    "median": statistics.median(times), "mean": statistics.mean(times),
                    "wall": statistics.median(walls),
                    "bytes": state_bytes(run["opts"]), "loss": loss, "model": run["model"]})
    return out


def drift(results: list[dict]) -> str:
    """Relative parameter distance between the fp32-roots run and the float64 reference after training."""
    ours = next((r for r in results if r["label"] == "ours"), None)
    fp32 = next((r for r in results if r["label"] == "ours fp32 roots"), None)
    if ours is None or fp32 is None:
        return ""
    a = torch.cat([p.detach().flatten() for p in ours["model"].parameters()])
    b = torch.cat([p.detach().flatten() for p in fp32["model"].parameters()])
    return f"fp32 roots vs fp64 after the run: ‖Δθ‖/‖θ‖ = {float((a - b).norm() / a.norm()):.2e}"


def update_error(task: Task, method: str, refreshes: tuple[int, ...] = (30, 60, 90)) -> str:
    """Relative error of one preconditioned update with float32 roots against float64, from the same state.

    The ``ours`` row (our optimizer with float64 roots on the hidden matrices, AdamW on the rest) trains
    to step ``k - 1`` for each ``k`` in ``refreshes``; a copy switched to ``root_dtype=torch.float32``
    and one left at float64 then take steps ``k`` and ``k + 1`` on the same batches. Shampoo
    refreshes its roots at the start of step ``k + 1``, SOAP its bases at the end of step ``k``, so
    step ``k + 1`` is the first update that uses the float32 refresh (step ``k``'s are equal).
    Printed: max over ``refreshes`` of ‖ΔW₃₂ − ΔW₆₄‖ / ‖ΔW₆₄‖ over the hidden matrices of step ``k + 1``."""
    rows = {"soap": soap_rows, "shampoo": shampoo_rows}[method]()
    model = task.make()
    hidden, rest = _split(task, model)
    opts = rows[0].build(hidden, rest)          # the "ours" row: our optimizer + the auxiliary AdamW
    errors, done = [], 0

    def train(m: nn.Module, o: list, k: int) -> None:
        for opt in o:
            opt.zero_grad()
        task.loss(m, task.batch(k)).backward()
        for opt in o:
            opt.step()

    for k in refreshes:
        while done < k - 1:
            train(model, opts, done)
            done += 1
        pair = []
        for dtype in (torch.float64, torch.float32):
            m, o = copy.deepcopy((model, opts))  # one deepcopy: the copied optimizers hold m's parameters
            o[0].param_groups[0]["root_dtype"] = dtype
            train(m, o, k - 1)
            h = _split(task, m)[0]
            before = [p.detach().clone() for p in h]
            train(m, o, k)
            pair.append(torch.cat([(p.detach() - b).flatten() for p, b in zip(h, before, strict=True)]))
        errors.append(float((pair[1] - pair[0]).norm() / pair[0].norm()))
    return (f"fp32 roots, one update against fp64 from the same state (after refreshes at steps "
            f"{', '.join(map(str, refreshes))}): ‖ΔW₃₂ − ΔW₆₄‖/‖ΔW₆₄‖ max {max(errors):.1e} "
            f"(each: {', '.join(f'{e:.1e}' for e in errors)})")


def profile_ours(task: Task, steps: int = 30) -> None:
    builds = (("SOAP", lambda h: SOAP(h, lr=3e-3, betas=(0.95, 0.95), precondition_frequency=10)),
              ("Shampoo", lambda h: Shampoo(h, lr=3e-3, precondition_frequency=10, grafting="adam")))
    for name, build in builds:
        model = task.make()
        hidden, _ = _split(task, model)
        opt = build(hidden)
        profiler = cProfile.Profile()
        for k in range(steps):
            opt.zero_grad()
            task.loss(model, task.batch(k)).backward()
            profiler.enable()
            opt.step()
            profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(8)
        lines = [ln for ln in text.getvalue().splitlines() if ln.strip()][-9:]
        print(f"profile of our {name} on {task.name} ({steps} steps, tottime):")
        print("\n".join("    " + ln for ln in lines))


def _version(name: str, module) -> str:
    if module is None:
        return "absent"
    from importlib.metadata import version

    return version(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the MLP only, 60 steps")
    parser.add_argument("--models", nargs="+", choices=list(TASKS), default=None)
    parser.add_argument("--methods", nargs="+", choices=list(METHODS), default=list(METHODS))
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    models = args.models or (["mlp"] if args.quick else list(TASKS))
    steps = args.steps or (60 if args.quick else 100)
    print(f"torch {torch.__version__}, pytorch-optimizer {_version('pytorch_optimizer', po)}, heavyball "
          f"{_version('heavyball', heavyball)} (eager, compile off); one thread; {steps} "
          "steps; ms/step: median CPU time (this thread) of step() after step 10 (mean: refreshes "
          "amortized; wall: the median wall clock)")
    if not args.no_profile and "mlp" in models:
        profile_ours(TASKS["mlp"]())
    for model_name in models:
        task = TASKS[model_name]()
        for method in args.methods:
            results = compare(task, METHODS[method](), steps)
            base = results[0]
            print(f"\n{model_name} / {method}")
            print(f"  {'implementation':34s} {'ms/step':>8s} {'/ours':>6s} {'mean ms':>8s} {'/ours':>6s} "
                  f"{'wall ms':>8s} {'state KiB':>10s} {'/ours':>6s} {'loss':>8s}  numerics")
            for r in results:
                print(f"  {r['label']:34s} {1e3 * r['median']:8.3f} {r['median'] / base['median']:6.2f} "
                      f"{1e3 * r['mean']:8.3f} {r['mean'] / base['mean']:6.2f} {1e3 * r['wall']:8.2f} "
                      f"{r['bytes'] / 1024:10.1f} "
                      f"{r['bytes'] / max(base['bytes'], 1):6.2f} {r['loss']:8.4f}  {r['numerics']}",
                      flush=True)
            if method in ("soap", "shampoo"):
                print("  " + drift(results))
                print("  " + update_error(task, method))


if __name__ == "__main__":
    main()
