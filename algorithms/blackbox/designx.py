"""DesignX: Agent 1 designs a workflow for the problem, Agent 2 configures it while it runs.

For a problem p: compute the 13 features F_p from an LHS sample (charged to the budget), let
Agent 1 generate a workflow A_p = π_φ(F_p) under the grammar mask (greedy decoding at
inference unless ``stochastic=True``), then run A_p with :func:`~algorithms.blackbox.modular.run_workflow`;
before every generation Agent 2 maps the progress features O_t to hyperparameters
C_t = π_θ(O_t | A_p) for the CONTROLLABLE modules (its Normal means at inference, samples
when ``stochastic=True``). Training (``python -m algorithms.blackbox.train``) uses the
cooperative episodic objective: REINFORCE for Agent 1 and PPO for Agent 2 on the per-generation
rewards r_t = (ℓ_{t−1} − ℓ_t) / (ℓ_0 − ℓ_min), ℓ_t = log10(f*_t − f* + 1e-8) the log regret of
the best-so-far (the paper's reward is the same ratio on f itself, see the note).

Retcodes as for :class:`~algorithms.blackbox.modular.ModularOptimizer`: ``MaxIters`` when the
budget (or ``maxiters`` generations) ends, ``Success`` only when the problem's ``target`` is
reached, ``Diverged`` only if no finite value was ever seen (a NaN or inf value of ``f``, part-way
through a run too, is a failed evaluation counted as +inf: the family's rule, stated in
:class:`~algorithms.blackbox.problem.BlackBoxProblem`).

References
----------
H. Guo, Z. Ma, Y. Ma, X. Zhang, W.-N. Chen, Y.-J. Gong. DesignX: Human-Competitive Algorithm
Designer for Black-Box Optimization. NeurIPS 2025, arXiv:2505.17866.

>>> import numpy as np
>>> from algorithms import solve
>>> from algorithms.blackbox import DesignX, bbob_problem
>>> sol = solve(bbob_problem(1, 1, 2, 400), DesignX(), seed=0)
>>> sol.retcode, sol.stats.f_calls
(<RetCode.MaxIters: 'MaxIters'>, 400)
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import math
import numbers
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    GLOBAL_RNG_LOCK,
    CheckedRecord,
    as_real_array,
    check_bool,
    check_finite_real,
    check_positive,
    remember_validated,
    to_float,
)
from algorithms.blackbox.agents import (
    N_OBS,
    FeatureOverflowError,
    HyperparameterController,
    WorkflowGenerator,
    check_agent_weights,
)
from algorithms.blackbox.features import problem_features
from algorithms.blackbox.grammar import decode_action, validate
from algorithms.blackbox.modular import WorkflowPlan, check_loop_budget, check_maxiters, finish, run_workflow
from algorithms.blackbox.problem import BlackBoxProblem, Evaluator
from algorithms.core import Algorithm, IterationMonitor, Solution, SolveOptions, _dispatch

__all__ = ["DEFAULT_CHECKPOINT", "DesignX", "Episode", "load_agents", "log_regret_rewards", "run_episode",
           "save_agents"]

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "designx.pt"
#: Agent 2 acts about this many times per run (every ⌈(budget / N) / CONTROL_STEPS⌉ generations);
#: the paper asks it every generation, which costs one Transformer forward per generation
CONTROL_STEPS = 25


def save_agents(path: str | Path, agent1: WorkflowGenerator, agent2: HyperparameterController,
                meta: dict[str, Any] | None = None) -> None:
    """Write both agents' state dicts and sizes to ``path`` (and ``meta`` to ``path``.json)."""
    _check_agents(agent1, agent2)
    if not isinstance(path, str | Path):   # Path(3): "expected str, bytes or os.PathLike object"
        raise TypeError(f"path must be a str or Path, got {type(path).__name__}")
    text = None
    if meta is not None:   # checked before anything is written: a set or NaN failed (or wrote "NaN") late
        if not isinstance(meta, dict):
            raise TypeError(f"meta must be a dict (written as JSON) or None, got {type(meta).__name__}")
        try:
            text = json.dumps(meta, indent=2, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"meta must be JSON data (str keys, finite numbers, lists, dicts): "
                             f"{exc}") from None
    path = Path(path)
    if path.is_dir():   # torch's "open file failed with strerror: Is a directory" named no argument
        raise ValueError(f"path must be a file to write, got the directory {str(path)!r}")
    sizes = {"hidden": agent1.hidden, "heads": agent1.body.layers[0].self_attn.num_heads,
             "layers": len(agent1.body.layers)}
    try:   # a parent that is a file, a read-only directory: the OS's NotADirectoryError/PermissionError
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"agent1": agent1.state_dict(), "agent2": agent2.state_dict(), "sizes": sizes}, path)
        if text is not None:
            path.with_suffix(".json").write_text(text)
    except OSError as exc:
        raise ValueError(f"path {str(path)!r} cannot be written: {type(exc).__name__}: {exc}") from None


def _check_agents(agent1: Any, agent2: Any) -> None:
    if not isinstance(agent1, WorkflowGenerator):
        raise TypeError(f"agent1 must be a WorkflowGenerator, got {type(agent1).__name__}")
    if not isinstance(agent2, HyperparameterController):
        raise TypeError(f"agent2 must be a HyperparameterController, got {type(agent2).__name__}")
    check_agent_weights(agent1, "agent1")   # NaN weights: torch.distributions' message, or a NaN checkpoint
    check_agent_weights(agent2, "agent2")


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: tuple[int, int] = (0, 0)) -> tuple[WorkflowGenerator, HyperparameterController]:
    """The agents at ``path``, cached by (path, ``stamp`` = the file's mtime and size): a checkpoint rewritten
    in place (training saves to one path) is read again, not served from the cache."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        sizes, first, second = state["sizes"], state["agent1"], state["agent2"]
    except Exception as exc:   # not a torch file, or one without the agents: torch's unpickling message
        raise ValueError(f"checkpoint {path!r} is not a DesignX checkpoint (save_agents writes one): "
                         f"{type(exc).__name__}: {str(exc)[:120]}") from None
    foreign = sorted(map(str, set(state) - {"sizes", "agent1", "agent2"}))
    if foreign:   # a key save_agents never writes ("agent3", a misspelt "size") was loaded and ignored
        raise ValueError(f"checkpoint {path!r} holds keys save_agents never writes: {foreign}; a DesignX "
                         f"checkpoint holds exactly 'agent1', 'agent2' and 'sizes'")
    if not isinstance(sizes, dict) or set(sizes) - {"hidden", "heads", "layers"}:
        raise ValueError(f"checkpoint {path!r}'s sizes must be a dict of 'hidden', 'heads' and 'layers', got "
                         f"{sizes!r:.80}")
    # building the modules draws their initial weights from torch's global generator: forked, so loading
    # the agents (once per path, cached) leaves the caller's torch random stream where it was
    # a hand-edited checkpoint is named: sizes = "x" met "argument after ** must be a mapping", hidden = 33
    # the agents' own size message, a weight of 1e39 (inf in float32) "agent1's parameter ... NaN or inf"
    try:
        with GLOBAL_RNG_LOCK, torch.random.fork_rng(devices=[]):   # the lock: no other thread's fork between
            a1, a2 = WorkflowGenerator(**sizes), HyperparameterController(**sizes)
        a1.load_state_dict(first)
        a2.load_state_dict(second)
        check_agent_weights(a1, "agent1")
        check_agent_weights(a2, "agent2")
    except (RuntimeError, ValueError, TypeError) as exc:
        raise ValueError(f"checkpoint {path!r} does not hold valid agents of its recorded sizes "
                         f"({sizes!r:.60}): {str(exc)[:160]}") from None
    return a1.eval(), a2.eval()


class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """A checkpoint path that names no file: Python's ``FileNotFoundError`` (what ``torch.load`` raises) and
    the package's ``ValueError`` for a bad argument (what ``DesignX(checkpoint=...)`` raises), so either
    ``except`` catches it."""


def load_agents(checkpoint: str | Path | None = None) -> tuple[WorkflowGenerator, HyperparameterController]:
    """The agents saved at ``checkpoint`` (``None``: the shipped checkpoint); a path naming no file raises
    :class:`CheckpointNotFoundError` (a ``FileNotFoundError`` and a ``ValueError``), a file that is no
    checkpoint a ``ValueError`` naming ``checkpoint``: a checkpoint holds exactly what :func:`save_agents`
    writes (keys ``agent1``, ``agent2``, ``sizes``; another key or a foreign size name is refused, as are
    weights that do not fit the sizes or lie outside the working range).

    >>> a1, a2 = load_agents()
    >>> type(a1).__name__, type(a2).__name__
    ('WorkflowGenerator', 'HyperparameterController')
    """
    # copies: the cached modules serve every DesignX solve, so a caller fine-tuning or reloading the agents
    # it got changed what DesignX() answered afterwards in the whole process
    return tuple(copy.deepcopy(agent) for agent in _cached_agents(checkpoint))


def _cached_agents(checkpoint: str | Path | None) -> tuple[WorkflowGenerator, HyperparameterController]:
    """The cached agents (shared: never modified by their users here); ``load_agents`` hands out copies."""
    if checkpoint is not None and not isinstance(checkpoint, str | Path):   # Path(3): "expected str, bytes"
        raise TypeError(f"checkpoint must be a path (str or Path) or None, got {type(checkpoint).__name__}")
    path = DEFAULT_CHECKPOINT if checkpoint is None else Path(checkpoint)
    if not path.is_file():
        raise CheckpointNotFoundError(f"checkpoint {str(path)!r} does not exist (train one with "
                                f"python -m algorithms.blackbox.train)")
    info = path.stat()
    return _load(str(path.resolve()), (info.st_mtime_ns, info.st_size))


@dataclass(eq=False)   # identity ==: the generated one compared arrays ("truth value ... ambiguous")
class Episode(CheckedRecord):
    """One DesignX run with what training needs: Agent 1's log-probability and Agent 2's steps.

    ``workflow`` a valid workflow of the grammar (or ``()`` for a record built by hand to score values with
    :func:`log_regret_rewards`), ``logp1``/``entropy1`` 0-d floating tensors, ``obs``/``actions``/``logp2``/
    ``values`` lists, ``start_best`` and ``best_after`` real numbers (+inf allowed, not NaN), ``evaluator``
    an :class:`~algorithms.blackbox.Evaluator` or None; checked when set too. The lists are the run's own
    (``run_episode`` appends to them); an entry appended or written in place is checked by
    :func:`log_regret_rewards` before it answers (``episode.best_after.append(nan)`` is refused there).
    """

    workflow: tuple[str, ...]
    logp1: torch.Tensor
    entropy1: torch.Tensor
    obs: list[np.ndarray] = field(default_factory=list)
    actions: list[np.ndarray] = field(default_factory=list)
    logp2: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    best_after: list[float] = field(default_factory=list)
    start_best: float = math.inf
    evaluator: Evaluator | None = None
    result: Any = None

    def __post_init__(self) -> None:
        # a public record built by hand: a workflow of non-str entries or a log-probability that is no tensor
        # was kept, and failed later inside training with torch's or Python's own message
        if isinstance(self.workflow, str) or not isinstance(self.workflow, tuple | list) \
                or not all(isinstance(w, str) for w in self.workflow):
            raise TypeError(f"workflow must be a tuple of module names (str), got {self.workflow!r:.60}")
        # a grammar's workflow (("init.sobol", "bogus") was kept), or () for a hand-built record of values
        self.workflow = validate(self.workflow) if self.workflow else ()
        for name in ("logp1", "entropy1"):
            value = getattr(self, name)
            if not isinstance(value, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor (Agent 1's sampled value), got "
                                f"{type(value).__name__}")
            if value.numel() != 1 or not value.is_floating_point():   # one real number (a (2, 2) was kept)
                raise ValueError(f"{name} must be one real number (a 0-d floating tensor), got shape "
                                 f"{tuple(value.shape)} of dtype {value.dtype}")
            if not bool(torch.isfinite(value.detach()).all()):   # a NaN log-probability was kept
                raise ValueError(f"{name} must be finite, got {float(value)!r}")
        for name in ("obs", "actions", "logp2", "values"):
            if not isinstance(getattr(self, name), list):
                raise TypeError(f"{name} must be a list, got {type(getattr(self, name)).__name__}")
        self._check_steps()
        if self.evaluator is not None and not isinstance(self.evaluator, Evaluator):
            raise TypeError(f"evaluator must be an Evaluator or None, got {type(self.evaluator).__name__}")
        # best values are real numbers, +inf before any finite one (the Evaluator's worst value), never NaN
        # (a hand-built NaN was read as +inf by log_regret_rewards, in silence)
        for name, values in (("start_best", [self.start_best]), ("best_after", self.best_after)):
            if not isinstance(values, list | tuple):
                raise TypeError(f"{name} must be a list of floats, got {type(values).__name__}")
            for v in values:
                real = isinstance(v, numbers.Real) \
                    and not isinstance(v, bool | np.bool_)
                if not real or math.isnan(to_float(v)) or to_float(v) == -math.inf:   # -inf: no value is
                    raise ValueError(f"{name} must hold real numbers (+inf allowed, not NaN or -inf), got "
                                     f"{v!r}")
        # stored as floats: an int past float's range (10**400, read as inf) met math's OverflowError later
        self.start_best = to_float(self.start_best)
        self.best_after = [to_float(v) for v in self.best_after]
        self._checked()   # a field set later is checked alike (episode.start_best = nan was kept)

    def _check_steps(self) -> None:
        """Agent 2's steps: obs (N_OBS,) and actions (one row of 3 per controlled module) finite arrays,
        logp2/values finite real numbers
        (["x"], NaN log-probabilities and NaN observations were kept, and met training's own errors)."""
        for name in ("obs", "actions"):
            for i, entry in enumerate(getattr(self, name)):
                array = as_real_array(f"{name}[{i}]", entry)
                shape_ok = array.shape == (N_OBS,) if name == "obs" else (array.ndim == 2
                                                                          and array.shape[1] == 3)
                if not shape_ok or not np.all(np.isfinite(array)):
                    shape = f"({N_OBS},)" if name == "obs" else "(k, 3)"
                    raise ValueError(f"{name}[{i}] must be a finite array of shape {shape}, got shape "
                                     f"{array.shape}")
        for name in ("logp2", "values"):
            for i, v in enumerate(getattr(self, name)):
                real = isinstance(v, numbers.Real) \
                    and not isinstance(v, bool | np.bool_)
                if not real or not math.isfinite(to_float(v)):
                    raise ValueError(f"{name}[{i}] must be a finite real number, got {v!r:.40}")


def run_episode(problem: BlackBoxProblem, agent1: WorkflowGenerator, agent2: HyperparameterController,
                rng: np.random.Generator, *, generator: torch.Generator | None = None,
                stochastic: bool = False,
                maxiters: int | None = None, monitor: IterationMonitor | None = None,
                keep_grad: bool = False) -> Episode:
    """Features → Agent 1's workflow → the run controlled by Agent 2 (see the module doc).

    ``problem`` is a :class:`BlackBoxProblem`, ``agent1`` the :class:`WorkflowGenerator` and ``agent2``
    the :class:`HyperparameterController`, each run in the mode it is in (training runs them in train mode:
    their dropout then draws from torch's global generator, so call ``.eval()`` on both, as
    :func:`load_agents` returns them, for an episode that ``rng`` and ``generator`` decide); ``rng`` (a
    ``numpy.random.Generator``) draws the feature sample and the run, ``generator`` (a ``torch.Generator`` or
    None) the agents' samples; ``stochastic`` (bool)
    samples both agents' actions instead of taking the greedy ones; ``maxiters`` (int >= 0 or None) caps
    the workflow's generations after its initial population; ``monitor`` (an
    :class:`~algorithms.core.IterationMonitor` or None) records the run; ``keep_grad`` (bool) keeps Agent 1's
    log-probability differentiable (training).
    """
    stochastic = check_bool("stochastic", stochastic)
    keep_grad = check_bool("keep_grad", keep_grad)
    _check_agents(agent1, agent2)
    check_maxiters(maxiters)   # before the feature sample spends evaluations
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    ev = Evaluator(problem)
    features, _, _ = problem_features(ev, rng)
    # keep_grad inside a caller's torch.inference_mode(): set_grad_enabled alone did not leave it, and the
    # log-probability came back without a graph in silence
    with torch.inference_mode(False) if keep_grad else contextlib.nullcontext(), \
            torch.set_grad_enabled(keep_grad):
        try:
            workflow, logp1, ent1 = agent1.sample(torch.as_tensor(features, dtype=torch.float32),
                                                  generator=generator, greedy=not stochastic)
        except FeatureOverflowError:   # the features hold the mean bounds / 10: a box of side 1e37
            raise ValueError(f"problem.bounds are too large for the agents: their features hold the mean "
                             f"bounds / 10 ({features[2]:.3g}, {features[3]:.3g}), which overflow Agent 1's "
                             f"float32 network; rescale the box (the shipped agents were trained on "
                             f"[-5, 5]^d)") from None
    plan = WorkflowPlan.parse(workflow)
    episode = Episode(workflow, logp1, ent1, evaluator=ev)
    controllable = plan.controllable()
    hyper = {m: decode_action(m, [0.5] * 3) for m in controllable}
    controller = None
    if controllable:
        def controller(obs: np.ndarray) -> dict[str, dict[str, float]]:
            with torch.no_grad():   # obs copied: it is read-only (torch warned of undefined behaviour)
                mean, std, value = agent2(workflow, torch.as_tensor(np.array(obs, dtype=np.float32))[None])
                mean, std = mean[0], std[0]
                if stochastic:
                    raw = mean + std * torch.randn(mean.shape, generator=generator)
                    lp = float(torch.distributions.Normal(mean, std).log_prob(raw).sum())
                else:
                    raw, lp = mean, 0.0
            if not episode.obs:
                episode.start_best = ev.best_value
            episode.obs.append(obs)
            episode.actions.append(raw.numpy().copy())
            episode.logp2.append(lp)
            episode.values.append(float(value[0]))
            if len(episode.obs) > 1:
                episode.best_after.append(ev.best_value)
            return {m: decode_action(m, raw[j].numpy()) for j, m in enumerate(controllable)}
    interval = max(1, math.ceil(problem.budget / plan.size(problem.dim, problem.budget) / CONTROL_STEPS))
    episode.result = run_workflow(plan, ev, rng, hyper, controller=controller, maxiters=maxiters,
                                  monitor=monitor, control_interval=interval)
    if episode.obs:
        episode.best_after.append(ev.best_value)
    return episode


def _recheck(episode: Episode) -> None:
    """The episode's checks run again on a copy: its lists are appended to in place (by the run, or by a
    user: best_after.append(nan) was answered as a reward of -1.16, a str met Python's own TypeError)."""
    trial = copy.copy(episode)
    trial.__dict__["_record_checked"] = False
    try:
        trial.__post_init__()
    except (TypeError, ValueError) as error:
        raise type(error)(f"episode was changed after construction: {error}") from None


def log_regret_rewards(episode: Episode, optimum: float, floor: float = 1e-8) -> np.ndarray:
    """Per-step rewards r_t = (ℓ_{t−1} − ℓ_t)/(ℓ_0 − log10 floor), ℓ = log10(best − f* + floor),
    ℓ_0 at the first control step (after the feature sample and the initial population). They sum to
    the fraction of the log-regret gap closed (1 at f*), however small the starting regret; an episode
    that starts at f* (ℓ_0 = log10 floor: nothing to close) earns 0 per step. ``optimum`` a finite real
    (f*, at most every value the episode reached, up to 1e-6·max(|optimum|, B − optimum), B the largest
    best value of the episode: unit-free); ``floor`` a float in
    [1.18e-38, 3.4e38], a positive scale of the working range (regrets below it count as 0: a floor above
    the episode's regrets, e.g. 3.4e38, gives 0 rewards; 1e39 is refused naming floor)."""
    if not isinstance(episode, Episode):
        raise TypeError(f"episode must be an Episode, got {type(episode).__name__}")
    _recheck(episode)
    optimum, floor = check_finite_real("optimum", optimum), check_positive("floor", floor)
    bests = [b for b in (episode.start_best, *episode.best_after) if math.isfinite(b)]
    # rewards of a wrong f* were all 0; the slack is relative to f's scale (an absolute floor of 1 let f in
    # units of 1e-10 with f* 4e-10 above its minimum through, the rewards all 0), as the Evaluator's check
    if bests and min(bests) < optimum - 1e-6 * max(abs(optimum), max(bests) - optimum):
        raise ValueError(f"optimum = {optimum!r} is above a value the episode reached ({min(bests)!r}): "
                         f"optimum must be the minimum value f*")
    ell = lambda v: math.log10(max(v - optimum, 0.0) + floor) if math.isfinite(v) else 10.0  # noqa: E731
    l0 = ell(episode.start_best)
    denom = l0 - math.log10(floor)
    if denom <= 0.0:  # started at f*: every later best is f* too, nothing to normalize
        return np.zeros(len(episode.best_after))
    prev, out = l0, []
    for b in episode.best_after:
        cur = ell(b)
        out.append((prev - cur) / denom)
        prev = cur
    return np.asarray(out, dtype=float)


@dataclass(frozen=True)
class DesignX(Algorithm):
    """The trained dual-agent designer: ``checkpoint`` (None: the shipped one), ``stochastic``.

    Units: Agent 1's features include the box itself (mean upper and lower bound / 10, see
    :func:`~algorithms.blackbox.problem_features`), as the shipped agents were trained on BBOB's [-5, 5]^d;
    the same problem in other units (a box of side 2e7) can get another workflow. Rescale the box to
    about [-5, 5]^d to run the shipped agents as trained. A box so large that these features overflow Agent
    1's float32 network (bounds of 1e30 do) is refused with a ``ValueError`` naming ``problem.bounds``.

    ``checkpoint`` None or the path (str or Path) of an existing file written by :func:`save_agents`;
    ``stochastic`` a bool (True samples the workflow and the hyperparameters instead of their modes).
    Solve options: ``maxiters`` caps the workflow's generations after its initial population
    (``maxiters=0``: the feature sample and the initial population are evaluated and the best point of them
    returned with ``MaxIters``; iteration 1's record also covers both); ``tol`` is accepted (checked by
    ``solve``) and not used: the budget, ``maxiters`` or the problem's ``target`` end a run; ``seed=None``
    draws the feature sample and the run from fresh OS entropy (the agents' sampling generator from 0).
    A NaN or inf value of the problem's ``f`` (part-way through a run too) is a failed evaluation (+inf,
    counted in ``stats.nonfinite``), not a ``Diverged`` run: the family's rule, stated in
    :class:`~algorithms.blackbox.problem.BlackBoxProblem`.
    """

    checkpoint: Any = None
    stochastic: bool = False

    def __post_init__(self) -> None:
        if self.checkpoint is not None and not isinstance(self.checkpoint, str | Path):
            raise TypeError(f"checkpoint must be a path (str or Path) or None, got "
                            f"{type(self.checkpoint).__name__}")
        if self.checkpoint is not None and not Path(self.checkpoint).is_file():
            raise ValueError(f"checkpoint must be an existing file, got {str(self.checkpoint)!r}")
        object.__setattr__(self, "stochastic", check_bool("stochastic", self.stochastic))   # np.True_ as True
        if self.checkpoint is not None:   # loaded once (cached): a file that is no checkpoint is refused here
            _cached_agents(self.checkpoint)
        remember_validated(self)


@_dispatch
def _solve(problem: BlackBoxProblem, algorithm: DesignX, options: SolveOptions) -> Solution:
    check_loop_budget(problem, options, "DesignX")
    a1, a2 = _cached_agents(algorithm.checkpoint)
    rng = np.random.default_rng(options.seed)
    gen = torch.Generator().manual_seed(0 if options.seed is None else int(options.seed))
    monitor = IterationMonitor(options, total=options.maxiters or 0, desc="DesignX")
    try:
        ep = run_episode(problem, a1, a2, rng, generator=gen, stochastic=algorithm.stochastic,
                         maxiters=options.maxiters, monitor=monitor)
    finally:
        monitor.close()
    return finish(problem, ep.evaluator, ep.result, options, {"workflow": ep.workflow})
