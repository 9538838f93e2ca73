"""Train the shipped networks: ``python -m algorithms.imaging.train [--setup NAME ...] [--steps N]``.

For each set-up (:data:`algorithms.imaging.setups.SETUPS`) G is trained with the MSE of the
paper's eq. (3) without its S-terms (S stays the designed one): ‖G(Hx + ω) − Sx‖² / mean‖Sx‖²,
over random 32×32 crops of :data:`algorithms.imaging.TRAIN_IMAGES` (rotated, flipped), ω at the
set-up's SNR, Adam (lr 1e-3), batch 32. ``--setup denoiser`` trains the PnP denoiser on the
same crops with noise std uniform in [0, 0.1]. Checkpoints (``checkpoints/<name>.pt``) are
written every 100 steps with the optimizer state, so a run that is stopped resumes where it
was; a finished one is skipped. Everything is seeded by ``--seed``.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import torch
from tqdm.auto import tqdm

from algorithms._validation import (
    check_bool,
    check_optimizer_state,
    check_positive_int,
    check_seed,
    same_setting,
)
from algorithms.imaging.data import training_patches
from algorithms.imaging.networks import ResidualDenoiser
from algorithms.imaging.setups import CHANNELS, DEPTH, SETUPS, SIZE, checkpoint_path, make_setup, measure

__all__ = ["train"]

BATCH, POOL, SAVE_EVERY = 32, 4000, 100
#: the most steps ``train`` runs: 20000 (about two hours at ~0.36 s a step on one laptop core, 13 times the
#: default 1500; the shipped checkpoints have 600). A count past it would run for days: refused, naming steps
MAX_STEPS = 20000


def _model(name: str, seed: int) -> torch.nn.Module:
    if name == "denoiser":
        return ResidualDenoiser(CHANNELS, DEPTH, seed=seed)
    from algorithms.imaging.networks import NullSpaceNet

    setup = make_setup(name)
    return NullSpaceNet(setup.operator, setup.projection, CHANNELS, DEPTH, seed=seed)


_RESUME_KEYS = {"model", "optimizer", "seed", "rng", "step", "seconds", "losses"}


def _check_resume(path: str, saved: Any, optimizer: torch.optim.Optimizer) -> None:
    """The checkpoint ``train`` resumes, each entry refused naming the file and the entry unless it is as
    train wrote it (red20c: an Adam lr of 5.0 or -1.0, NaN betas or moments were trained on and saved, a
    step of -3 trained 5 steps for steps = 2, a step of 1.5 met torch's "manual_seed expected a long")."""
    def refuse(entry: str, why: str) -> None:
        raise ValueError(f"resume: checkpoint {path!r} has an invalid {entry}: {why} (not as train wrote it)")

    if not isinstance(saved, dict) or set(saved) != _RESUME_KEYS:
        got = sorted(map(str, saved)) if isinstance(saved, dict) else type(saved).__name__
        refuse("content", f"keys {sorted(_RESUME_KEYS)} expected, got {got}")
    own, groups = optimizer.state_dict()["param_groups"], saved["optimizer"]
    groups = groups.get("param_groups") if isinstance(groups, dict) else None
    if not isinstance(groups, list) or len(groups) != len(own):
        refuse("optimizer", f"an Adam state dict of {len(own)} group(s) expected")
    for i, (group, mine) in enumerate(zip(groups, own, strict=True)):
        if not isinstance(group, dict) or set(group) != set(mine):
            refuse(f"optimizer['param_groups'][{i}]", f"keys {sorted(mine)} expected")
        for key, value in mine.items():
            if key != "params" and not same_setting(group[key], value):
                refuse(f"optimizer['param_groups'][{i}][{key!r}]", f"train's Adam uses {value!r}, got "
                                                                   f"{group[key]!r}")
    try:
        check_optimizer_state(saved["optimizer"], optimizer.param_groups, where="optimizer")
    except (ValueError, TypeError) as exc:
        refuse("optimizer", str(exc))
    for index, entry in saved["optimizer"]["state"].items():
        second = entry.get("exp_avg_sq")
        if isinstance(second, torch.Tensor) and bool((second < 0).any()):   # sqrt(-1): NaN weights
            refuse(f"optimizer['state'][{index}]['exp_avg_sq']", "entries >= 0 expected (a mean of squares)")
    step = saved["step"]
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= MAX_STEPS:
        refuse("step", f"an int in [0, MAX_STEPS = {MAX_STEPS}] expected, got {step!r:.40}")
    seconds, losses = saved["seconds"], saved["losses"]
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < math.inf:
        refuse("seconds", f"a finite number >= 0 expected, got {seconds!r:.40}")
    if not isinstance(losses, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < math.inf for v in losses):
        refuse("losses", "a list of finite numbers >= 0 (mean losses) expected")
    if not isinstance(saved["rng"], torch.Tensor) or saved["rng"].dtype != torch.uint8:
        refuse("rng", "a torch generator state (uint8 tensor) expected")
    try:   # set on a scratch generator first: torch's own error named no checkpoint
        torch.Generator().set_state(saved["rng"])
    except (RuntimeError, ValueError, TypeError) as exc:
        refuse("rng", f"{type(exc).__name__}: {str(exc)[:80]}")


def train(name: str, steps: int = 1500, seed: int = 0, progress: bool = True) -> dict:
    """Train (or resume) the network of set-up ``name``; returns the checkpoint dict.

    ``name`` is one of :data:`~algorithms.imaging.setups.SETUPS` or ``"denoiser"``; ``steps`` the total
    number of Adam steps, an int in [1, MAX_STEPS] (20000); ``seed`` an int in [0, 2**64) seeding the weights,
    the crops and the noise; ``progress`` a bool (a tqdm bar). The checkpoint ``checkpoints/<name>.pt`` is
    resumed when it exists: it must have been trained with the same ``seed`` (another one is refused, naming
    ``seed``), and one that already has ``steps`` steps or more is returned as it is (nothing is trained).
    A checkpoint whose entries are not as train writes them (Adam hyperparameters other than train's,
    NaN/inf or negative second moments, a step that is not an int in [0, MAX_STEPS], NaN losses) is
    refused with a ValueError naming the file and the entry.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, one of {(*SETUPS, 'denoiser')}, got {type(name).__name__}")
    if name not in (*SETUPS, "denoiser"):
        raise ValueError(f"name must be one of {(*SETUPS, 'denoiser')}, got {name!r}")
    name = str(name)  # np.str_ as str: the checkpoint's file name and the progress bar
    steps = check_positive_int("steps", steps)
    if steps > MAX_STEPS:
        raise ValueError(f"steps must be <= MAX_STEPS = {MAX_STEPS} (about two hours of training on a laptop "
                         f"core), got {steps}")
    seed = check_seed(seed)
    progress = check_bool("progress", progress)
    torch.manual_seed(seed)
    model = _model(name, seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    path = checkpoint_path(name)
    state = {"step": 0, "seconds": 0.0, "losses": []}
    if path.exists():
        saved = torch.load(path, map_location="cpu", weights_only=True)
        if saved.get("seed", seed) != seed:  # resuming mixed two seeds' runs in silence
            raise ValueError(f"seed must be the seed the checkpoint {str(path)!r} was trained with, "
                             f"{saved['seed']}, to resume it, got {seed}")
        _check_resume(str(path), saved, optimizer)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state = {k: saved[k] for k in state}
        torch.set_rng_state(saved["rng"])
    pool = training_patches(SIZE, POOL, seed=seed).float()
    # mod 2**64: seeds past 2**64/1000 (valid, < 2**64) met torch's bare "Overflow when unpacking long long"
    generator = torch.Generator().manual_seed((seed * 1000 + state["step"]) % 2**64)
    bar = tqdm(total=steps, initial=state["step"], desc=f"train {name}", disable=not progress)
    start = time.perf_counter() - state["seconds"]
    window = []
    while state["step"] < steps:
        x = pool[torch.randint(0, POOL, (BATCH,), generator=generator)]
        if name == "denoiser":
            std = 0.1 * torch.rand(BATCH, 1, 1, generator=generator)
            noisy = x + std * torch.randn(x.shape, generator=generator)
            loss = ((model(noisy) - x) ** 2).mean() / (x**2).mean()
        else:
            setup = make_setup(name)
            y, _ = measure(setup, x, seed=int(torch.randint(0, 2**31 - 1, (1,), generator=generator)))
            target = setup.projection.forward(x).reshape(BATCH, -1)
            loss = ((model(y.reshape(BATCH, -1)) - target) ** 2).mean() / (target**2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state["step"] += 1
        window.append(loss.item())
        bar.update(1)
        bar.set_postfix(loss=f"{sum(window[-50:]) / len(window[-50:]):.4f}")
        if state["step"] % SAVE_EVERY == 0 or state["step"] == steps:
            state["seconds"] = time.perf_counter() - start
            state["losses"].append(sum(window) / len(window))
            window = []
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "seed": seed,
                        "rng": torch.get_rng_state(), **state}, path)
    bar.close()
    return torch.load(path, map_location="cpu", weights_only=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", nargs="*", default=[*SETUPS, "denoiser"])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for name in args.setup:
        saved = train(name, steps=args.steps, seed=args.seed)
        print(f"{name}: {saved['step']} steps, {saved['seconds'] / 60:.1f} min, "
              f"relative MSE {saved['losses'][-1]:.4f}")


if __name__ == "__main__":
    main()
