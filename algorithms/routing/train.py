"""CPU training of the routing GFlowNet: ``python -m algorithms.routing.train``.

Each step draws ``batch`` fresh random instances of the paper's distribution (seeded by the
run seed and the step), samples ``samples`` trajectories per instance on-policy (the paper
trains with N = 20 samples per instance), and takes one AdamW step on the chosen loss
(``tb``, ``db`` or ``hybrid``; gradient norm clipped at 3 as AGFN/HBG). The inverse
temperature β rises geometrically from ``beta_min`` to ``beta_max`` over the run (the
β schedule of the released AGFN/HBG code, log-shaped). Runs stop after ``steps`` steps or
``minutes`` wall minutes, whichever comes first; a checkpoint (model, optimizer, RNG and step)
is written every ``save_every`` steps and at the end, with a ``.json`` of metadata (problem,
size, loss, steps, minutes, final loss, mean training cost); ``--resume`` continues from it.

Importing this module has no side effects (``algorithms.core`` imports every family module).

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as d:
...     meta = train(problem="tsp", size=6, loss="hybrid", steps=2, batch=1, samples=4,
...                  hidden=8, layers=1, out=os.path.join(d, "m.pt"), progress=False)
>>> meta["steps"], meta["problem"], meta["size"]
(2, 'tsp', 6)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from typing import Any

import torch
from torch import nn

from algorithms._validation import (
    WORKING_MAX,
    check_bool,
    check_choice,
    check_count,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_seed,
    same_setting,
)
from algorithms.routing.gflownet import (
    LOSSES,
    PROBLEMS,
    RoutingGFlowNet,
    encode_instances,
    rollout,
    trajectory_loss,
)
from algorithms.routing.problem import random_cvrp, random_tsp

__all__ = ["beta_at", "load_checkpoint", "main", "save_checkpoint", "train"]

#: gradient-norm clip of the released AGFN/HBG training
GRAD_CLIP = 3.0
#: the most training steps and instances per step train() takes (batch = 2**40 and layers = 2**31 ran for
#: minutes without a word; the paper trains a few thousand steps of a few instances)
MAX_STEPS = 10**7
MAX_BATCH = 4096
#: the torch optimizers' largest lr (README, working range)
LR_MAX = 1e10


def beta_at(step: int, steps: int, beta_min: float, beta_max: float) -> float:
    """Geometric interpolation from beta_min (step 0) to beta_max (last step).

    ``step`` (int >= 0; past the last step it stays at beta_max) of ``steps`` (int >= 1); ``beta_min`` and
    ``beta_max`` finite floats > 0 whose ratio is a finite float.

    >>> beta_at(0, 11, 10.0, 1000.0), round(beta_at(10, 11, 10.0, 1000.0), 6)
    (10.0, 1000.0)
    """
    step, steps = check_int_at_least("step", step, 0), check_positive_int("steps", steps)
    beta_min, beta_max = check_positive("beta_min", beta_min), check_positive("beta_max", beta_max)
    frac = 0.0 if steps <= 1 else min(step / (steps - 1), 1.0)
    # the ends exactly: beta_min·(beta_max/beta_min)**1 rounded twice (1 ulp off beta_max in 11 % of cases)
    beta = beta_max if frac == 1.0 else beta_min * (beta_max / beta_min) ** frac
    if not math.isfinite(beta):  # beta_max / beta_min past float's range (1e308 / 5e-324)
        raise ValueError(f"beta_max / beta_min = {beta_max!r} / {beta_min!r} overflows; use a ratio below "
                         f"1e308")
    return float(beta)


def _instances(problem: str, size: int, count: int, seed: int) -> list:
    gen = random_tsp if problem == "tsp" else random_cvrp
    return [gen(size, seed=(seed + i) % 2**64) for i in range(count)]  # the generators take seeds < 2**64


def save_checkpoint(
    path: str,
    model: RoutingGFlowNet,
    meta: dict[str, Any],
    optimizer: torch.optim.Optimizer | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Write ``path`` (torch) and ``path`` with ``.json`` (metadata).

    ``meta`` is a JSON-able dict; where it records the model's settings they must be the model's own
    (``problem``, ``hidden``, ``layers``), and a ``size`` is an int >= 2: each is read back by HBG, so a
    contradiction is refused by name (size -5 or problem "xx" was written).
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str path for the .pt checkpoint, got {type(path).__name__}")
    path = os.fspath(path)  # a pathlib.Path met "unsupported operand type(s) for +" at the save
    if os.path.isdir(path):  # trained, then IsADirectoryError (and a "<folder>.tmp" written beside it)
        raise ValueError(f"path must be a file path for the .pt checkpoint, got the folder {path!r}")
    # checked before anything is written (a meta json could not store left a .pt without its .json)
    if not isinstance(model, RoutingGFlowNet):
        raise TypeError(f"model must be a RoutingGFlowNet, got {type(model).__name__}")
    if not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict (written as JSON), got {type(meta).__name__}")
    for key, own in model.config().items():
        if key in meta and key != "k" and meta[key] != own:
            raise ValueError(f"meta[{key!r}] must be the model's own {own!r}, got {meta[key]!r}")
    if "size" in meta and (isinstance(meta["size"], bool) or not isinstance(meta["size"], int)
                           or meta["size"] < 2):
        raise ValueError(f"meta['size'] must be the training instances' size, an int >= 2, got "
                         f"{meta['size']!r}")
    try:
        meta_text = json.dumps(meta, indent=1, sort_keys=True)  # NaN allowed: a loss before the first step
    except (TypeError, ValueError) as exc:
        raise TypeError(f"meta must hold JSON values (str keys, numbers, str, lists, dicts): {exc}") \
            from None
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer or None, got {type(optimizer).__name__}")
    if extra is not None and not isinstance(extra, dict):
        raise TypeError(f"extra must be a dict or None, got {type(extra).__name__}")
    clash = sorted({"config", "model", "meta", "optimizer"} & set(extra or {}))
    if clash:
        raise ValueError(f"extra must not replace the checkpoint's own entries {clash}")
    state = {"config": model.config(), "model": model.state_dict(), "meta": meta}
    if optimizer is not None:
        state["optimizer"] = optimizer.state_dict()
    if extra:
        state.update(extra)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)
    with open(os.path.splitext(path)[0] + ".json", "w") as fh:
        fh.write(meta_text)


def _check_meta(meta: dict[str, Any], model: RoutingGFlowNet) -> None:
    """A checkpoint's meta as save_checkpoint accepts it: a ``size`` an int >= 2 and a ``problem`` the
    model's own, where given (a meta edited by hand with size "x" met int()'s error in HBG naming nothing,
    problem "cvrp" on a TSP model was used in silence)."""
    if "size" in meta and (isinstance(meta["size"], bool) or not isinstance(meta["size"], int)
                           or meta["size"] < 2):
        raise ValueError(f"its meta['size'] must be the training instances' size, an int >= 2, got "
                         f"{meta['size']!r}")
    for key, own in model.config().items():  # as save_checkpoint: a meta hidden = 64 beside a 32-wide model
        if key in meta and key != "k" and meta[key] != own:
            raise ValueError(f"its meta[{key!r}] must be the model's own {own!r}, got {meta[key]!r}")


def load_checkpoint(path: str) -> tuple[RoutingGFlowNet, dict[str, Any], dict[str, Any]]:
    """(model, metadata, raw state) from a checkpoint written by :func:`save_checkpoint` (or :func:`train`): a
    meta ``size`` must be an int >= 2 and a meta ``problem``, ``hidden`` or ``layers`` the model's own, each
    refused by name otherwise (HBG reads them); a finite weight past the working range (|w| > 3.4e38) is
    refused naming it (a NaN/inf one loads: HBG's broken checkpoint, ``Diverged``)."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str path to a .pt checkpoint, got {type(path).__name__}")
    if not os.path.isfile(path):
        raise ValueError(f"checkpoint path {str(path)!r} does not exist")
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
        # the layers' default inits (overwritten by the checkpoint) draw from torch's global generator
        with torch.random.fork_rng(devices=[]):
            model = RoutingGFlowNet(**state["config"])
        # torch's own load, not the checked one: a checkpoint's NaN weights are HBG's documented Diverged (a
        # broken checkpoint), and a file save_checkpoint wrote holds the model's own dtypes and shapes
        nn.Module.load_state_dict(model, state["model"])
        meta = state.get("meta", {})
        if not isinstance(meta, dict):  # dict(meta) of a list met "dictionary update sequence" unnamed
            raise TypeError(f"its meta must be a dict, got {type(meta).__name__}")
        _check_meta(meta, model)
    except Exception as exc:  # a corrupt or foreign file
        raise ValueError(f"checkpoint {str(path)!r} is not a routing GFlowNet checkpoint: {exc}") from exc
    _refuse_out_of_range_weights(path, state["model"])
    model.eval()
    return model, dict(meta), state


def _refuse_out_of_range_weights(path: str, weights: dict[str, Any]) -> None:
    """HBG's documented refusal: a finite weight past the working range (|w| > 3.4e38) named. Copied into the
    float32 model it became inf, the broken checkpoint's Diverged, not the ValueError promised (red23b)."""
    for name, value in weights.items():
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
            finite = value[torch.isfinite(value)]
            if finite.numel() and float(finite.abs().max()) > WORKING_MAX:
                raise ValueError(f"checkpoint {str(path)!r}: weight {name} has an entry of magnitude "
                                 f"{float(finite.abs().max()):.3g}, past the working range (|w| <= 3.4e38)")


def _whole_count(value: torch.Tensor) -> bool:
    """Whether ``value`` is a 0-d tensor holding a whole number >= 0 (an optimizer state's ``step``)."""
    if value.ndim != 0:
        return False
    number = float(value)
    return math.isfinite(number) and number >= 0 and number == int(number)


def _check_resume_state(out: str, state: dict[str, Any], meta: dict[str, Any],
                        optimizer: torch.optim.Optimizer) -> None:
    """The entries ``train(resume=True)`` restores, each refused naming the checkpoint and the entry: the
    optimizer's groups must hold the hyperparameters train gives AdamW (an lr of 5.0 written into the file
    stepped in silence beside a given lr of 1e-3; betas of 2, an unknown key "lrr", weight_decay -1 too), its
    state finite tensors of the parameters' shapes, the generators' states byte tensors, and the meta's
    counters numbers in range (a NaN exp_avg met torch's "probability tensor contains nan" in the rollout,
    a missing "generator" a bare KeyError)."""
    def refuse(entry: str, why: str) -> None:
        raise ValueError(f"resume: checkpoint {out!r} has an invalid {entry}: {why} (not as train wrote it)")

    for key in ("optimizer", "generator", "torch_rng"):
        if key not in state:
            refuse(key, "it is missing")
    state_size = torch.Generator().get_state().numel()  # a CPU generator's state, as train saves both
    for key in ("generator", "torch_rng"):
        if not (isinstance(state[key], torch.Tensor) and state[key].dtype == torch.uint8):
            refuse(key, f"a generator state is a uint8 tensor, got {type(state[key]).__name__}")
        if tuple(state[key].shape) != (state_size,):  # torch's "Expected a CPUGeneratorImplState of size .."
            refuse(key, f"a CPU generator state of shape ({state_size},) expected, got "
                        f"{tuple(state[key].shape)}")
    saved = state["optimizer"]
    expected = optimizer.state_dict()
    if not isinstance(saved, dict) or set(saved) != set(expected):
        refuse("optimizer", f"keys {sorted(expected)} expected, got "
                            f"{sorted(saved) if isinstance(saved, dict) else type(saved).__name__}")
    groups = saved["param_groups"]
    if not isinstance(groups, list) or len(groups) != len(expected["param_groups"]):
        refuse("optimizer['param_groups']", f"{len(expected['param_groups'])} group(s) expected")
    for i, (group, own) in enumerate(zip(groups, expected["param_groups"], strict=True)):
        if not isinstance(group, dict) or set(group) != set(own):
            extra = sorted(set(group) - set(own)) if isinstance(group, dict) else type(group).__name__
            refuse(f"optimizer['param_groups'][{i}]", f"keys {sorted(own)} expected, got extra/other {extra}")
        for key, value in own.items():
            if key == "params":
                if list(group[key]) != list(value):
                    refuse(f"optimizer['param_groups'][{i}]['params']", "another model's parameter ids")
            elif not same_setting(group[key], value):
                refuse(f"optimizer['param_groups'][{i}][{key!r}]",
                       f"train's AdamW uses {value!r} for the given settings, got {group[key]!r}")
    params = dict(enumerate(p for group in optimizer.param_groups for p in group["params"]))
    entries = saved["state"]
    if not isinstance(entries, dict) or not set(entries) <= set(params):
        refuse("optimizer['state']", "one entry per model parameter expected")
    for index, entry in entries.items():
        for key, value in (entry.items() if isinstance(entry, dict) else [("entry", entry)]):
            where = f"optimizer['state'][{index}][{key!r}]"
            if not isinstance(value, torch.Tensor) or not value.is_floating_point():
                refuse(where, f"a floating tensor expected, got {type(value).__name__}")
            if key == "step" and not _whole_count(value):
                # -5 met torch's "ComplexFloat can't be cast", [2, 3] "cannot be converted to Scalar", and 2.5
                # resumed with a bias correction train never computes (red20b)
                refuse(where, f"a 0-d tensor holding a whole number >= 0 (the steps taken) expected, got "
                              f"{value.tolist()!r:.60}")
            if key != "step" and tuple(value.shape) != tuple(params[index].shape):
                refuse(where, f"shape {tuple(params[index].shape)} expected, got {tuple(value.shape)}")
            if not bool(torch.isfinite(value).all()) or (key == "exp_avg_sq" and bool((value < 0).any())):
                refuse(where, "finite entries expected (and >= 0 for exp_avg_sq)")
    steps = meta["steps"]
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        refuse("meta['steps']", f"an int >= 0 expected, got {steps!r}")
    for key in ("minutes", "cpu_minutes"):
        value = meta.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
            refuse(f"meta[{key!r}]", f"a finite number >= 0 expected, got {value!r}")
    history = state.get("history", [])
    if not isinstance(history, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in history):
        refuse("history", "a list of finite numbers (the training costs) expected")


def train(
    problem: str = "tsp",
    size: int = 20,
    loss: str = "hybrid",
    steps: int = 200,
    minutes: float = math.inf,
    batch: int = 4,
    samples: int = 20,
    lr: float = 1e-3,
    beta_min: float = 20.0,
    beta_max: float = 200.0,
    hidden: int = 32,
    layers: int = 3,
    seed: int = 0,
    out: str = "model.pt",
    save_every: int = 50,
    resume: bool = False,
    progress: bool = True,
    db_weight: float = 1.0,
) -> dict[str, Any]:
    """Train a GFlowNet and write the checkpoint ``out``; returns the metadata dict.

    ``problem`` "tsp" or "cvrp"; ``size`` the instances' size, an int >= 3 (tsp) or >= 2 (cvrp) whose
    batches fit this machine's memory; ``loss`` one of ``LOSSES``; ``steps`` an int in [1, 10**7]
    (``MAX_STEPS``: each is a batch of rollouts); ``minutes`` a time budget, a float > 0 in
    [1.18e-38, 3.4e38] or ``math.inf`` (none); ``batch`` instances per step, an int in [1, 4096]
    (``MAX_BATCH``); ``samples`` rollouts per instance, an int >= 2 (the reward baseline is the others'
    mean) whose tensors fit in memory; ``lr`` AdamW's step, a float in [1.18e-38, 1e10] (the torch
    optimizers' range, README); ``beta_min`` and ``beta_max`` the reward's inverse temperatures, floats > 0
    in [1.18e-38, 3.4e38] with a finite ratio (β goes geometrically from beta_min to beta_max); ``hidden``
    and ``layers`` the model's width and depth (see :class:`~algorithms.routing.gflownet.RoutingGFlowNet`:
    [1, 4096] and [1, 100]); ``seed`` an int in [0, 2**64); ``out`` a file path (not a folder);
    ``save_every`` an int >= 1; ``resume``, ``progress`` bools (``resume`` refuses, by name, a checkpoint
    trained with another hidden, layers, lr, beta_min, beta_max, db_weight, samples, batch or seed, and one
    whose optimizer or generator state is not as train writes it: moments of other shapes or non-finite, a
    ``step`` that is not a whole number >= 0, a generator state of another size);
    ``db_weight`` the detailed-balance weight
    of the hybrid loss, a float >= 0, any value from 0 to 3.4e38. A loss that becomes non-finite (a huge
    ``lr``, ``db_weight`` or β) raises FloatingPointError naming those settings.
    """
    progress = check_bool("progress", progress)
    check_choice("problem", problem, PROBLEMS)
    check_choice("loss", loss, LOSSES)
    size = check_positive_int("size", size)  # a plain int: a numpy int64 failed later in the JSON metadata
    if size < (3 if problem == "tsp" else 2):
        raise ValueError(f"size must be >= {3 if problem == 'tsp' else 2} for {problem}, got {size}")
    # inf (no time budget) or a finite float > 0; a str met math.isfinite's TypeError, naming nothing
    if not (isinstance(minutes, float) and minutes == math.inf):
        minutes = check_positive("minutes", minutes)
    steps = check_count("steps", steps, 1, MAX_STEPS, "each is a batch of rollouts")  # 2**40 never ended
    batch = check_count("batch", batch, 1, MAX_BATCH, "instances encoded and rolled out per step")
    samples = check_positive_int("samples", samples)
    hidden, layers = check_positive_int("hidden", hidden), check_positive_int("layers", layers)
    save_every = check_positive_int("save_every", save_every)
    db_weight = check_nonnegative("db_weight", db_weight)
    if samples < 2:
        raise ValueError(
            f"samples must be >= 2 (the reward baseline is the mean of the others), got {samples}"
        )
    lr = check_positive("lr", lr)
    if lr > LR_MAX:  # AdamW's: 3.4e38 met torch's "value cannot be converted to type float without overflow"
        raise ValueError(f"lr must be <= {LR_MAX:g} (the torch optimizers' range, README), got {lr!r}")
    beta_min, beta_max = check_positive("beta_min", beta_min), check_positive("beta_max", beta_max)
    seed = check_seed(seed)
    check_bool("resume", resume)
    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out must be a path, got {type(out).__name__}")
    out = os.fspath(out)  # a pathlib.Path trained, then failed at the save
    if os.path.isdir(out):  # trained, then IsADirectoryError
        raise ValueError(f"out must be a file path for the checkpoint, got the folder {out!r}")
    torch.manual_seed(seed)
    model = RoutingGFlowNet(problem, hidden=hidden, layers=layers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    start_step, used_minutes = 0, 0.0
    history: list[float] = []
    resumed_from = ""  # named where the run turns non-finite: a resumed file's state may be why
    if resume and os.path.isfile(out):
        resumed_from = f"; resumed from {out!r}: its weights or optimizer state"
        model, meta_old, state = load_checkpoint(out)
        if (meta_old.get("problem"), meta_old.get("size"), meta_old.get("loss")) != (problem, size, loss):
            raise ValueError(
                f"resume: checkpoint {out!r} is for {meta_old.get('problem')}{meta_old.get('size')} "
                f"({meta_old.get('loss')}), not {problem}{size} ({loss})"
            )
        # the checkpoint's model and optimizer are used: other settings were taken in silence while the
        # written metadata recorded the new ones
        given = {"hidden": hidden, "layers": layers, "lr": lr, "beta_min": beta_min, "beta_max": beta_max,
                 "db_weight": db_weight, "samples": samples, "batch": batch, "seed": seed}  # seed: the stream
        # of training instances follows it, the restored generator the old one (red16b)
        missing = sorted(k for k in (*given, "steps") if k not in meta_old)
        if missing:  # a meta without "lr" skipped the settings check
            raise ValueError(f"resume: checkpoint {out!r} has no {missing} in its meta (not written by "
                             f"train)")
        differ = {k: (meta_old[k], v) for k, v in given.items() if meta_old[k] != v}
        if differ:
            shown = ", ".join(f"{k} = {old!r} (given {new!r})" for k, (old, new) in differ.items())
            raise ValueError(f"resume: checkpoint {out!r} was trained with other settings: {shown}; pass the "
                             f"same ones")
        model.train()
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        _check_resume_state(out, state, meta_old, optimizer)
        optimizer.load_state_dict(state["optimizer"])
        gen.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])
        start_step = int(meta_old["steps"])
        used_minutes = float(meta_old.get("minutes", 0.0))
        history = [float(v) for v in state.get("history", [])]
    model.train()
    t0 = time.perf_counter()
    c0 = time.process_time()
    used_cpu = 0.0 if not (resume and os.path.isfile(out)) else float(meta_old.get("cpu_minutes", 0.0))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=steps, initial=start_step, desc=f"train {problem}{size} {loss}")
    step = start_step
    last_loss, last_cost = math.nan, math.nan

    def meta() -> dict[str, Any]:
        return {
            "problem": problem,
            "size": size,
            "loss": loss,
            "steps": step,
            "target_steps": steps,
            "minutes": used_minutes + (time.perf_counter() - t0) / 60.0,
            "cpu_minutes": used_cpu + (time.process_time() - c0) / 60.0,
            "batch": batch,
            "samples": samples,
            "lr": lr,
            "beta_min": beta_min,
            "beta_max": beta_max,
            "hidden": hidden,
            "layers": layers,
            "seed": seed,
            "final_loss": last_loss,
            "final_train_cost": last_cost,
            "db_weight": db_weight,
            "torch_threads": torch.get_num_threads(),
        }

    def save() -> None:
        save_checkpoint(
            out,
            model,
            meta(),
            optimizer,
            {"generator": gen.get_state(), "torch_rng": torch.get_rng_state(), "history": history},
        )

    for _ in range(start_step, steps):  # a bounded loop: a slip in the step count cannot run forever
        if (used_minutes + (time.perf_counter() - t0) / 60.0) >= minutes:
            break
        beta = beta_at(step, steps, beta_min, beta_max)
        # mod 2**64: seed = 2**64 - 1 (documented valid) gave a stream seed past the generators' range
        insts = _instances(problem, size, batch, seed=(1_000_003 * (seed + 1) + batch * step) % 2**64)
        enc = encode_instances(model, insts)
        traj = rollout(model, enc, samples, mode="sample", generator=gen)
        value = trajectory_loss(traj, loss, beta=beta, center=True, db_weight=db_weight)
        if not torch.isfinite(value):
            raise FloatingPointError(f"training loss became non-finite at step {step} (lr = {lr!r}, "
                                     f"db_weight = {db_weight!r}, beta = {beta!r}{resumed_from}): use "
                                     f"smaller settings")
        optimizer.zero_grad()
        value.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
        optimizer.step()
        if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
            # an Adam moment of 3e38 from a resumed file stepped a weight to inf: the next rollout blamed that
            # weight as "written in place after construction" (red20b)
            raise FloatingPointError(f"the model's weights became non-finite at step {step} (lr = {lr!r}"
                                     f"{resumed_from}): use smaller settings")
        step += 1
        last_loss, last_cost = float(value.detach()), float(traj.cost.detach().mean())
        history.append(last_cost)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{last_loss:.3g}", cost=f"{last_cost:.3f}", beta=f"{beta:.0f}")
        if step % save_every == 0:
            save()
    if bar is not None:
        bar.close()
    save()
    model.eval()
    return meta()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Command line: ``python -m algorithms.routing.train --problem tsp --size 20 --loss hybrid ...``.

    ``--out`` is required; the defaults: TSP, size 20, hybrid loss, 400 steps, no time limit
    (``--minutes`` inf), batch 4 instances × 20 samples, lr 1e-3, β from 20 to 200, hidden 32,
    3 layers, seed 0, 1 torch thread, a checkpoint every 50 steps, no resume, a progress bar.
    """
    p = argparse.ArgumentParser(
        prog="python -m algorithms.routing.train", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--problem", choices=PROBLEMS, default="tsp")
    p.add_argument("--size", type=int, default=20)
    p.add_argument("--loss", choices=LOSSES, default="hybrid")
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--minutes", type=float, default=math.inf)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--beta-min", type=float, default=20.0)
    p.add_argument("--beta-max", type=float, default=200.0)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--save-every", type=int, default=50)
    p.add_argument("--out", required=True)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    torch.set_num_threads(check_positive_int("threads", args.threads))
    meta = train(
        problem=args.problem,
        size=args.size,
        loss=args.loss,
        steps=args.steps,
        minutes=args.minutes,
        batch=args.batch,
        samples=args.samples,
        lr=args.lr,
        beta_min=args.beta_min,
        beta_max=args.beta_max,
        hidden=args.hidden,
        layers=args.layers,
        seed=args.seed,
        out=args.out,
        save_every=args.save_every,
        resume=args.resume,
        progress=not args.no_progress,
    )
    print(json.dumps(meta, indent=1, sort_keys=True))
    return meta


if __name__ == "__main__":
    main()
