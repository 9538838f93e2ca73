"""Train DesignX's two agents cooperatively on BBOB training instances (REINFORCE + PPO).

    python -m algorithms.blackbox.train --minutes 20 --seed 0 --out algorithms/blackbox/checkpoints
    python -m algorithms.blackbox.train --minutes 5 --out DIR --resume     # continue from DIR/state.pt

Training set: the 24 BBOB functions, instances 1-5 (:data:`TRAIN_INSTANCES`), dimensions 5 and
10, budgets 100·d, 250·d and 500·d; held-out evaluation uses other instances (6 and up).
Each iteration runs a batch of ``--batch`` stochastic episodes
(:func:`~algorithms.blackbox.designx.run_episode`), then

* Agent 1 (REINFORCE with a baseline): loss = −(R − b_key) log π_φ(A_p) − β H, with R = Σ_t r_t
  the episode's normalized log-regret improvement (in [0, 1]) and b_key an exponential moving
  average of R per (function, dimension, budget) training key;
* Agent 2 (PPO, clip 0.2, ``--ppo-epochs`` epochs): per-step rewards r_t, discounted
  returns-to-go G_t (γ = 0.99), advantages G_t − V(O_t) normalized over the batch, value loss
  ½ (V − G)².

The cooperative objective is the same return for both agents. Progress bar (tqdm), a checkpoint
``DIR/designx.pt`` (+ ``.json`` metadata: minutes, episodes, seed, training set) every
``--every`` iterations and at the end, and ``DIR/state.pt`` (optimizers, baselines, RNG states)
for ``--resume``. Importing this module has no side effects.

References
----------
H. Guo et al. DesignX. NeurIPS 2025, arXiv:2505.17866 (Section 3.3, Appendix D Alg. 1).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    check_bool,
    check_count,
    check_optimizer_state,
    check_positive,
    check_seed,
    same_setting,
)

__all__ = ["TRAIN_DIMS", "TRAIN_INSTANCES", "main", "train"]

TRAIN_INSTANCES = (1, 2, 3, 4, 5)
TRAIN_DIMS = (5, 10)
TRAIN_BUDGET_FACTORS = (100, 250, 500)
GAMMA = 0.99
CLIP = 0.2


def _problem(fid: int, instance: int, dim: int, factor: int):
    from algorithms.blackbox.problem import bbob_problem

    return bbob_problem(fid, instance, dim, factor * dim)


def _ppo_loss(agent2, episodes, advantages, returns, old_logps):
    from algorithms.blackbox.grammar import CONFIG_SPACE, N_MAX

    losses = []
    for ep, adv, ret, old_logp in zip(episodes, advantages, returns, old_logps):
        if not ep.obs:
            continue
        obs = torch.as_tensor(np.asarray(ep.obs), dtype=torch.float32)
        act = torch.as_tensor(np.asarray(ep.actions), dtype=torch.float32)
        mean, std, value = agent2(ep.workflow, obs)
        ctrl = [m for m in ep.workflow if m in CONFIG_SPACE]
        used = torch.tensor([[j < len(CONFIG_SPACE[m]) for j in range(N_MAX)] for m in ctrl],
                            dtype=torch.float32)
        dist = torch.distributions.Normal(mean, std)
        logp = (dist.log_prob(act) * used).sum((1, 2))
        old = torch.as_tensor(old_logp, dtype=torch.float32)
        ratio = torch.exp(logp - old)
        a = torch.as_tensor(adv, dtype=torch.float32)
        g = torch.as_tensor(ret, dtype=torch.float32)
        pg = -torch.min(ratio * a, torch.clamp(ratio, 1 - CLIP, 1 + CLIP) * a).mean()
        vl = 0.5 * ((value - g) ** 2).mean()
        ent = (dist.entropy() * used).sum((1, 2)).mean()
        losses.append(pg + vl - 1e-3 * ent)
    return torch.stack(losses).mean() if losses else None


def _used_logp(agent2, ep):
    """Old log-probabilities of the taken actions over the used action dimensions only."""
    from algorithms.blackbox.grammar import CONFIG_SPACE, N_MAX

    if not ep.obs:
        return []
    with torch.no_grad():
        mean, std, _ = agent2(ep.workflow, torch.as_tensor(np.asarray(ep.obs), dtype=torch.float32))
        ctrl = [m for m in ep.workflow if m in CONFIG_SPACE]
        used = torch.tensor([[j < len(CONFIG_SPACE[m]) for j in range(N_MAX)] for m in ctrl],
                            dtype=torch.float32)
        act = torch.as_tensor(np.asarray(ep.actions), dtype=torch.float32)
        return (torch.distributions.Normal(mean, std).log_prob(act) * used).sum((1, 2)).tolist()


class _OneTorchThread:
    """torch limited to one intra-op thread while ``train`` runs, the process's count restored when the last
    concurrent training leaves. torch.set_num_threads sets the calling thread's OpenMP count and the default
    of threads that start later: each training saving and restoring it on its own let the second of two
    concurrent ones save the first's limit (1) and restore it at its end, so every thread started afterwards
    ran on one thread. Counted under a lock instead: the first to enter saves the count, each entrant limits
    its own thread, a leaver gives its thread back its own count, and the last leaves the saved one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._saved = 0

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            own = torch.get_num_threads()
            if self._users == 0:
                self._saved = own
            self._users += 1
            torch.set_num_threads(1)
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                torch.set_num_threads(self._saved if self._users == 0 else own)


#: the one counter of every training in this process (the thread count it guards is the process's)
_ONE_TORCH_THREAD = _OneTorchThread()


def _restoring_threads(fn):
    """Run ``fn`` on one torch thread, the caller's count restored when the last concurrent call ends
    (training sets it to 1: it stayed 1 in the caller's process)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _ONE_TORCH_THREAD.held():
            return fn(*args, **kwargs)
    return wrapper


#: the longest training run train takes, in minutes (a week; resume=True continues one)
MAX_MINUTES = 7 * 24 * 60


@_restoring_threads
def train(minutes: float, seed: int, out: Path, *, resume: bool = False, batch: int = 8, every: int = 10,
          ppo_epochs: int = 3, lr: float = 1e-3, hidden: int = 32, progress: bool = True) -> dict:
    """Run the training loop for ``minutes`` of wall time (a number in (0, MAX_MINUTES = 10080], a week;
    ``resume=True`` continues a run from ``out``); returns the metadata written. torch runs on one intra-op
    thread meanwhile; the caller's thread count is restored when the last of concurrent trainings ends."""
    from tqdm.auto import tqdm

    from algorithms.blackbox.agents import HyperparameterController, WorkflowGenerator, initial_log_std_bias
    from algorithms.blackbox.designx import log_regret_rewards, run_episode, save_agents

    # finite: minutes = inf trained for ever (a hang); every = 0 was a ZeroDivisionError after the first
    # iteration, lr < 0 torch's "Invalid learning rate", ppo_epochs = 0 trained nothing, out = 3 pathlib's
    # "expected str, bytes or os.PathLike"
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not 0 < minutes < math.inf:
        raise ValueError(f"minutes must be a finite number > 0, got {minutes!r}")
    minutes = check_positive("minutes", minutes)   # a positive scale: 1e-39 was kept
    if minutes > MAX_MINUTES:   # 1e300 minutes is finite and trained for ever (a hang)
        raise ValueError(f"minutes must be <= MAX_MINUTES = {MAX_MINUTES} (a week of wall time; resume= "
                         f"continues a run), got {minutes!r}")
    batch = check_count("batch", batch, 1)
    every = check_count("every", every, 1)
    ppo_epochs = check_count("ppo_epochs", ppo_epochs, 1)
    lr = check_positive("lr", lr)
    if lr > 0.1 * float(torch.finfo(torch.float32).max):   # Adam's first step lr / (1 − 0.9), float32 agents
        raise ValueError(f"lr = {lr!r} is too large for the float32 agents: Adam's first step, "
                         f"lr / (1 - 0.9), overflows float32")
    if not isinstance(out, str | Path):
        raise TypeError(f"out must be a directory path (str or Path), got {type(out).__name__}")
    if Path(out).exists() and not Path(out).is_dir():
        raise ValueError(f"out must be a directory, got the file {str(out)!r}")
    seed = check_seed(seed)
    resume, progress = check_bool("resume", resume), check_bool("progress", progress)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    a1, a2 = WorkflowGenerator(hidden=hidden), HyperparameterController(hidden=hidden)
    initial_log_std_bias(a2)
    opt1 = torch.optim.Adam(a1.parameters(), lr=lr)
    opt2 = torch.optim.Adam(a2.parameters(), lr=lr)
    baselines: dict[str, float] = {}
    iteration, episodes, spent, history = 0, 0, 0.0, []
    state_path = out / "state.pt"
    if resume and state_path.is_file():
        st = torch.load(state_path, map_location="cpu", weights_only=False)
        _check_resume_state(str(state_path), st, {"opt1": opt1, "opt2": opt2})
        a1.load_state_dict(st["agent1"])
        a2.load_state_dict(st["agent2"])
        opt1.load_state_dict(st["opt1"])
        opt2.load_state_dict(st["opt2"])
        baselines, iteration = st["baselines"], st["iteration"]
        episodes, spent = st["episodes"], st["minutes"]
        history = st["history"]
        rng.bit_generator.state = st["rng"]
        gen.set_state(st["torch_gen"])
    keys = [(f, i, d, b) for f in range(1, 25) for i in TRAIN_INSTANCES for d in TRAIN_DIMS
            for b in TRAIN_BUDGET_FACTORS]
    start = time.perf_counter()
    bar = tqdm(total=round(minutes * 60), desc="train designx", unit="s", disable=not progress)

    def meta() -> dict:
        return {"seed": seed, "minutes": round(spent + (time.perf_counter() - start) / 60, 2),
                "iterations": iteration, "episodes": episodes, "batch": batch, "hidden": hidden, "lr": lr,
                "train_functions": list(range(1, 25)), "train_instances": list(TRAIN_INSTANCES),
                "train_dims": list(TRAIN_DIMS), "train_budget_factors": list(TRAIN_BUDGET_FACTORS),
                "reward": "normalized log10-regret improvement", "torch": torch.__version__,
                "mean_return_last_20": float(np.mean(history[-20:])) if history else None}

    def checkpoint() -> None:
        m = meta()
        save_agents(out / "designx.pt", a1, a2, m)
        torch.save({"agent1": a1.state_dict(), "agent2": a2.state_dict(), "opt1": opt1.state_dict(),
                    "opt2": opt2.state_dict(), "baselines": baselines, "iteration": iteration,
                    "episodes": episodes, "minutes": m["minutes"], "history": history,
                    "rng": rng.bit_generator.state, "torch_gen": gen.get_state()}, state_path)

    last = 0.0
    while (elapsed := time.perf_counter() - start) < minutes * 60:
        a1.train()
        # rewards and old log-probabilities kept beside the episodes (an Episode refuses a new attribute)
        eps, rets, advs1, keys_b, rewards_b = [], [], [], [], []
        for _ in range(batch):
            key = keys[int(rng.integers(len(keys)))]
            prob = _problem(*key)
            ep = run_episode(prob, a1, a2, rng, generator=gen, stochastic=True, keep_grad=True)
            r = log_regret_rewards(ep, prob.optimum)
            rewards_b.append(r)
            R = float(r.sum()) if r.size else _final_gain(ep, prob.optimum)
            bkey = f"{key[0]}-{key[2]}-{key[3]}"
            b = baselines.get(bkey, R)
            advs1.append(R - b)
            baselines[bkey] = 0.9 * b + 0.1 * R
            eps.append(ep)
            rets.append(R)
            keys_b.append(bkey)
        episodes += batch
        loss1 = (-sum(a * ep.logp1 for a, ep in zip(advs1, eps))
                 - 1e-3 * sum(ep.entropy1 for ep in eps)) / batch
        opt1.zero_grad()
        loss1.backward()
        torch.nn.utils.clip_grad_norm_(a1.parameters(), 1.0)
        opt1.step()
        # PPO for Agent 2 on the per-generation rewards
        returns, advantages = [], []
        old_logps = [_used_logp(a2, ep) for ep in eps]
        for ep, rewards in zip(eps, rewards_b):
            g, G = 0.0, np.zeros(len(rewards))
            for t in range(len(rewards) - 1, -1, -1):
                g = rewards[t] + GAMMA * g
                G[t] = g
            returns.append(G)
            advantages.append(G - np.asarray(ep.values[: len(G)]))
        nonempty = [a for a in advantages if len(a)]
        flat = np.concatenate(nonempty) if nonempty else np.zeros(1)
        mu, sd = float(flat.mean()), float(flat.std() + 1e-8)
        advantages = [(a - mu) / sd for a in advantages]
        for _ in range(ppo_epochs):
            loss2 = _ppo_loss(a2, eps, advantages, returns, old_logps)
            if loss2 is None:
                break
            opt2.zero_grad()
            loss2.backward()
            torch.nn.utils.clip_grad_norm_(a2.parameters(), 1.0)
            opt2.step()
        iteration += 1
        history.append(float(np.mean(rets)))
        bar.update(round(elapsed - last))
        last = elapsed
        bar.set_postfix(it=iteration, ret=f"{np.mean(history[-20:]):.3f}")
        if iteration % every == 0:
            checkpoint()
    bar.close()
    checkpoint()
    result = meta()
    (out / "designx.json").write_text(json.dumps(result, indent=2, sort_keys=True))
    return result


_RESUME_KEYS = {"agent1", "agent2", "opt1", "opt2", "baselines", "iteration", "episodes", "minutes",
                "history", "rng", "torch_gen"}


def _check_resume_state(path: str, st: Any, optimizers: dict[str, torch.optim.Optimizer]) -> None:
    """What ``train(resume=True)`` restores, each entry refused naming the file and the entry unless it is as
    train wrote it: the Adam groups hold train's own hyperparameters for the given settings (an lr of 5.0
    in the file stepped in silence beside a given lr of 1e-3; an unknown key "lrr" was ignored), their
    state finite tensors of the parameters' shapes, the counters ints >= 0, the baselines and history
    finite numbers, the generator state a uint8 tensor."""
    def refuse(entry: str, why: str) -> None:
        raise ValueError(f"resume: checkpoint {path!r} has an invalid {entry}: {why} (not as train wrote it)")

    if not isinstance(st, dict) or set(st) != _RESUME_KEYS:
        got = sorted(map(str, st)) if isinstance(st, dict) else type(st).__name__
        refuse("content", f"keys {sorted(_RESUME_KEYS)} expected, got {got}")
    for name, optimizer in optimizers.items():
        saved, own = st[name], optimizer.state_dict()
        if not isinstance(saved, dict) or set(saved) != set(own) \
                or not isinstance(saved["param_groups"], list) \
                or len(saved["param_groups"]) != len(own["param_groups"]):
            refuse(name, f"an Adam state dict of {len(own['param_groups'])} group(s) expected")
        for i, (group, mine) in enumerate(zip(saved["param_groups"], own["param_groups"], strict=True)):
            if not isinstance(group, dict) or set(group) != set(mine):
                refuse(f"{name}['param_groups'][{i}]", f"keys {sorted(mine)} expected, got "
                       f"{sorted(map(str, group)) if isinstance(group, dict) else type(group).__name__}")
            for key, value in mine.items():
                if not same_setting(group[key], value):
                    refuse(f"{name}['param_groups'][{i}][{key!r}]", f"train's Adam uses {value!r}, got "
                           f"{group[key]!r}")
        shapes = [tuple(p.shape) for group in optimizer.param_groups for p in group["params"]]
        if not isinstance(saved["state"], dict) or not set(saved["state"]) <= set(range(len(shapes))):
            refuse(f"{name}['state']", "one entry per agent parameter expected")
        for index, entry in saved["state"].items():
            for key, value in (entry.items() if isinstance(entry, dict) else [("entry", entry)]):
                where = f"{name}['state'][{index}][{key!r}]"
                if not isinstance(value, torch.Tensor) or not value.is_floating_point() \
                        or not bool(torch.isfinite(value).all()):
                    refuse(where, "a finite floating tensor expected")
                if key != "step" and tuple(value.shape) != shapes[index]:
                    refuse(where, f"shape {shapes[index]} expected, got {tuple(value.shape)}")
                if key == "exp_avg_sq" and bool((value < 0).any()):
                    refuse(where, "entries >= 0 expected")
        try:   # the step counts whole numbers >= 0 (a step of -1 met torch's ZeroDivisionError; red20c)
            check_optimizer_state(saved, optimizer.param_groups, where=name)
        except (ValueError, TypeError) as exc:
            refuse(name, str(exc))
    for key in ("iteration", "episodes"):
        if isinstance(st[key], bool) or not isinstance(st[key], int) or st[key] < 0:
            refuse(key, f"an int >= 0 expected, got {st[key]!r}")
    numbers = [st["minutes"], *(st["history"] if isinstance(st["history"], list) else [None])]
    if not isinstance(st["baselines"], dict):
        refuse("baselines", f"a dict expected, got {type(st['baselines']).__name__}")
    numbers += list(st["baselines"].values())
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in numbers) \
            or st["minutes"] < 0:
        refuse("minutes/history/baselines", "finite numbers expected (minutes >= 0)")
    if not (isinstance(st["torch_gen"], torch.Tensor) and st["torch_gen"].dtype == torch.uint8):
        refuse("torch_gen", f"a generator state (uint8 tensor) expected, got "
                            f"{type(st['torch_gen']).__name__}")
    # keys train never writes ("not-a-key") were taken and ignored (red20c)
    known = {f"{f}-{d}-{b}" for f in range(1, 25) for d in TRAIN_DIMS for b in TRAIN_BUDGET_FACTORS}
    if not set(st["baselines"]) <= known:
        refuse("baselines", f"keys 'function-dim-budget factor' of the training set expected, got "
                            f"{sorted(map(str, set(st['baselines']) - known))[:3]}")
    if not isinstance(st["rng"], dict):
        refuse("rng", f"a numpy bit generator state (dict) expected, got {type(st['rng']).__name__}")
    try:   # the states are set on scratch generators first: their own errors named no checkpoint
        np.random.default_rng().bit_generator.state = st["rng"]
        torch.Generator().set_state(st["torch_gen"])
    except (ValueError, TypeError, KeyError, RuntimeError, OverflowError) as exc:
        refuse("rng/torch_gen", f"{type(exc).__name__}: {str(exc)[:80]}")


def _final_gain(ep, optimum: float) -> float:
    ev = ep.evaluator
    if not math.isfinite(ev.best_value) or not math.isfinite(ev.first_value):
        return 0.0
    lf = math.log10(max(ev.first_value - optimum, 0.0) + 1e-8)
    lb = math.log10(max(ev.best_value - optimum, 0.0) + 1e-8)
    return (lf - lb) / max(lf + 8.0, 1e-6)


def main(argv: list[str] | None = None) -> int:
    # a str was split into characters by argparse ("unrecognized arguments: - - m i n ...")
    if argv is not None and (isinstance(argv, str | bytes) or not all(isinstance(a, str) for a in argv)):
        raise TypeError(f"argv must be a list of str (the command-line words) or None, got {argv!r:.60}")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="wall-clock training minutes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("algorithms/blackbox/checkpoints"))
    parser.add_argument("--resume", action="store_true", help="continue from OUT/state.pt")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--every", type=int, default=10, help="checkpoint every EVERY iterations")
    parser.add_argument("--ppo-epochs", type=int, default=3)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if not 0 < args.minutes <= MAX_MINUTES:
        parser.error(f"--minutes must be a number in (0, {MAX_MINUTES}] (a week), got {args.minutes}")
    result = train(args.minutes, args.seed, args.out, resume=args.resume, batch=args.batch, every=args.every,
                   ppo_epochs=args.ppo_epochs, progress=not args.no_progress)
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
