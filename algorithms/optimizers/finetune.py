"""A tiny finetuning task: a small model of the family pretrained on one Markov chain, finetuned on another.

:func:`markov_finetune_task` pretrains a :class:`~algorithms.optimizers.models.Transformer`
(``architecture="transformer"``) or a residual :class:`~algorithms.optimizers.models.MLP` on
the one-hot current token (``"mlp"``: the chain is first-order, so it can reach the entropy rate
but cannot memorize the sample, and it is fast) briefly (AdamW, ``pretrain_steps`` fresh mini-batches)
on the text of the
:class:`~algorithms.optimizers.tasks.MarkovLanguageTask` with seed ``seed`` (chain A), then
returns a :class:`FinetuneTask` on a fixed sample of ``n`` sequences of the chain with seed
``seed + 1`` (chain B: other successors, the distribution shift). The task's
``reference_loss`` is B's entropy rate, the least expected next-token loss (a finite sample
can go a little below it).

:class:`FullFinetune` is the full-parameter AdamW peer; :func:`run_finetune` is the training
loop both it and :class:`~algorithms.optimizers.block.BlockCoordinateDescent` use: epochs over
the fixed sample in mini-batches without replacement (reshuffled each epoch from the solve ``seed``,
0 when none is given; rows left over after the last full batch sit out that epoch),
``maxiters`` steps (default 200), ``Success`` once the full-sample cross-entropy is <=
``reference_loss + tol`` (``tol`` default 0.1 nats), ``Diverged`` on a non-finite or blown-up
(> 1e6) loss, else ``MaxIters``. ``Solution.x`` is the flat parameter vector (the model's
dtype); ``original`` holds the trained model and the measured peak optimizer-state bytes.

>>> from algorithms import solve
>>> task = markov_finetune_task(vocab_size=8, context=8, n=32, width=16, depth=2, pretrain_steps=5, seed=0)
>>> sol = solve(task, FullFinetune(lr=1e-2), maxiters=5, seed=0)
>>> sol.retcode, sol.x.dtype
(<RetCode.MaxIters: 'MaxIters'>, dtype('float32'))
"""

from __future__ import annotations

import copy
import math
import numbers
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    call_user,
    check_built_optimizer,
    check_count,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_seed,
    check_takes,
    checked_fields,
    revalidate_if_reassigned,
    store_plain_scalars,
)
from algorithms.core import (
    Algorithm,
    IterationMonitor,
    Problem,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    _dispatch,
    with_autograd,
)
from algorithms.optimizers._base import check_decay_product, check_lr, check_model_weights, step_user
from algorithms.optimizers.models import MLP, Transformer
from algorithms.optimizers.tasks import MarkovLanguageTask

__all__ = ["FinetuneTask", "FullFinetune", "markov_finetune_task", "run_finetune"]

#: a full-sample cross-entropy above this (nats) is a blow-up (uniform guessing over 1e6 tokens is 13.8)
DIVERGED_LOSS = 1e6


#: the version of each FinetuneTask's own tokens copy when it was built, by id (kept outside the problem:
#: core's solve rebuilds a problem whose tensor field was written in place, and the rebuilt one took the
#: edit as its data in silence)
_OWN_TOKENS: dict[int, tuple[weakref.ref, int | None]] = {}


def _tensor_version(tensor: torch.Tensor) -> int | None:
    try:
        return tensor._version
    except RuntimeError:    # an inference tensor keeps no version (and cannot be written outside it)
        return None


def _own_tokens(tokens: torch.Tensor) -> torch.Tensor:
    """Register ``tokens`` (a problem's private copy) with its version (:func:`_refuse_own_tokens_edited`)."""
    key = id(tokens)
    _OWN_TOKENS[key] = (weakref.ref(tokens, lambda _ref: _OWN_TOKENS.pop(key, None)), _tensor_version(tokens))
    return tokens


def _refuse_own_tokens_edited(tokens: Any) -> None:
    """A problem's own tokens written in place since it was built (``problem.tokens[0, 0] = 3``) are refused
    naming tokens: the problem is the sample it was built with."""
    entry = _OWN_TOKENS.get(id(tokens))
    if entry is not None and entry[0]() is tokens and _tensor_version(tokens) != entry[1]:
        raise ValueError("tokens was written in place after the FinetuneTask was built (problem.tokens[...] "
                         "= ...); the problem is the sample it was built with: build a new FinetuneTask from "
                         "a fresh tensor for other data")


@dataclass(frozen=True)
class FinetuneTask(Problem):
    """Finetune ``model`` (a pretrained language model with finite weights of magnitude <= 3.4e38 on a real
    device, never modified) on a fixed sample of ``task``. Its weights are checked again at each solve: NaN,
    inf or 1e39 written into them after construction raise ValueError naming ``problem.model``.

    ``tokens`` is an (n, T + 1) integer array of sequences (inputs ``[:, :-1]``, targets
    ``[:, 1:]``); the loss is ``task.loss`` (mean next-token cross-entropy). ``reference_loss``
    (default: ``task.entropy_rate()``; else a float >= 0, any value in [0, 3.4e38]) is the level the
    convergence criterion measures from (``loss <= reference_loss + tol``); ``batch_size`` (int >= 1) is
    the number of sequences a mini-batch draws from ``tokens``.

    ``tokens`` is kept as the problem's own copy (the caller's tensor edited afterwards changes nothing);
    that copy written in place afterwards (``problem.tokens[0, 0] = 3``, valid ids or not) is refused by
    the next solve and by :meth:`loss`, a ValueError naming tokens: build a new FinetuneTask for other data.

    A model holding random layers (a Dropout) trains with them in the mode it was given: a solve draws them
    from its ``seed`` (one seed, one answer; torch's global generator is left as it was), and the loss the
    convergence criterion and the Solution's ``value`` read is evaluated in eval mode (the weights' loss,
    not one draw's), the model's mode restored.
    """

    model: torch.nn.Module
    task: MarkovLanguageTask
    tokens: Any
    batch_size: int = 16
    reference_loss: float | None = None

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        if not isinstance(self.model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(self.model).__name__}")
        if not isinstance(self.task, MarkovLanguageTask):
            raise TypeError(f"task must be a MarkovLanguageTask, got {type(self.task).__name__}")
        check_model_weights(self.model)
        try:
            tokens = self.tokens if isinstance(self.tokens, torch.Tensor) else torch.as_tensor(self.tokens)
        except (TypeError, ValueError, RuntimeError) as exc:
            raise TypeError(f"tokens must be an (n, T + 1) integer array of sequences, got "
                            f"{type(self.tokens).__name__}") from exc
        if tokens.layout != torch.strided:   # torch's min() on a sparse tensor named nothing
            raise TypeError(f"tokens must be a dense integer array, got a tensor of layout {tokens.layout}")
        if tokens.device.type == "meta":
            raise ValueError("tokens is on the meta device (no data); move it to a real device")
        if tokens.ndim != 2 or tokens.shape[0] == 0 or tokens.shape[1] < 2 or \
                tokens.dtype not in (torch.int64, torch.int32):
            raise ValueError("tokens must be a non-empty (n, T + 1) integer array of sequences (T >= 1), "
                             f"got shape {tuple(tokens.shape)} dtype {tokens.dtype}")
        if int(tokens.min()) < 0 or int(tokens.max()) >= self.task.vocab_size:
            raise ValueError(f"tokens must be ids in [0, {self.task.vocab_size}) (task.vocab_size), got "
                             f"range [{int(tokens.min())}, {int(tokens.max())}]")
        context = getattr(self.model, "context", None)
        if context is not None and tokens.shape[1] - 1 > context:
            raise ValueError(f"tokens must have at most model.context + 1 = {context + 1} columns, got "
                             f"{tokens.shape[1]}")
        _refuse_own_tokens_edited(tokens)
        # a copy: the caller's tensor edited after construction must not change the problem
        object.__setattr__(self, "tokens", _own_tokens(tokens.to(torch.int64, copy=True)))
        logits = getattr(self.model, "vocab_size", None) or getattr(self.model, "out_features", None)
        if isinstance(logits, int) and logits != self.task.vocab_size:
            raise ValueError(f"model outputs {logits} logits per token, but task.vocab_size is "
                             f"{self.task.vocab_size}: the model must be built for the task's vocabulary")
        batch = check_positive_int("batch_size", self.batch_size)
        if batch > tokens.shape[0]:
            raise ValueError(f"batch_size must be <= n = {tokens.shape[0]} (rows of tokens), got {batch}")
        reference = self.task.entropy_rate() if self.reference_loss is None else self.reference_loss
        object.__setattr__(self, "reference_loss", check_nonnegative("reference_loss", reference))

    @property
    def n(self) -> int:
        return int(self.tokens.shape[0])

    def loss(self, model: torch.nn.Module, index: torch.Tensor | None = None) -> torch.Tensor:
        """Mean next-token cross-entropy of ``model`` on the sample (all rows, or those in ``index``)."""
        _refuse_own_tokens_edited(self.tokens)
        if index is not None:
            if not isinstance(index, torch.Tensor):
                array = np.asarray(index)
                if not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
                    raise TypeError(f"index must hold integer row indices, got dtype {array.dtype}")
                index = torch.as_tensor(array, dtype=torch.int64)
            if index.dtype not in (torch.int64, torch.int32) or index.ndim != 1:
                raise TypeError(f"index must be a 1-D integer tensor of row indices, got dtype {index.dtype} "
                                f"shape {tuple(index.shape)}")
            if index.numel() == 0:       # the mean over no rows is NaN
                raise ValueError("index must select at least one row (the loss is a mean over them)")
            if index.numel() and (int(index.min()) < 0 or int(index.max()) >= self.n):
                raise ValueError(f"index must lie in [0, n) = [0, {self.n}), got values in "
                                 f"[{int(index.min())}, {int(index.max())}]")
        return self.task.loss(model, self.tokens if index is None else self.tokens[index])


#: the longest pretraining :func:`markov_finetune_task` runs (each step a forward and backward of the model:
#: tens of ms at the default sizes, so 10**6 steps ran for hours before the task existed)
MAX_PRETRAIN_STEPS = 10_000


@with_autograd   # it pretrains: a caller's torch.no_grad() met torch's "does not require grad"
def markov_finetune_task(vocab_size: int = 16, context: int = 16, n: int = 128, width: int = 32,
                         depth: int = 4, pretrain_steps: int = 100, seed: int = 0,
                         dtype: torch.dtype = torch.float32, batch_size: int = 16,
                         architecture: str = "transformer") -> FinetuneTask:
    """A :class:`FinetuneTask`: a Transformer pretrained on chain ``seed``, a sample of chain ``seed + 1``.

    ``vocab_size`` an int >= 2 (a chain needs two tokens; each token has min(4, vocab_size) main
    successors), ``context``, ``n`` (sequences), ``width`` and
    ``depth`` ints >= 1 (for ``architecture="transformer"`` ``width`` a multiple of the Transformer's
    ``n_heads`` = 2, and the sizes within :class:`~algorithms.optimizers.Transformer`'s caps),
    ``pretrain_steps`` an int in [1, :data:`MAX_PRETRAIN_STEPS` = 10000], ``seed`` an int in
    [0, 2**64) (chain B is seeded ``(seed + 1) mod 2**64``), ``dtype`` float32,
    float64 or bfloat16, ``batch_size`` an int >= 1 (capped at ``n``) and ``architecture``
    ``"transformer"`` or ``"mlp"``.

    >>> task = markov_finetune_task(vocab_size=6, context=4, n=16, width=8, depth=1, pretrain_steps=2, seed=1)
    >>> tuple(task.tokens.shape), 0 < task.reference_loss < math.log(6)
    ((16, 5), True)
    """
    pretrain_steps = check_count("pretrain_steps", pretrain_steps, 1)   # <= 2**31 - 1: 2**31 steps hung
    if pretrain_steps > MAX_PRETRAIN_STEPS:
        raise ValueError(f"pretrain_steps must be <= {MAX_PRETRAIN_STEPS} (MAX_PRETRAIN_STEPS: each step "
                         f"trains the model once, hours past it), got {pretrain_steps}")
    n = check_positive_int("n", n)
    batch_size = min(check_positive_int("batch_size", batch_size), n)
    seed = check_seed(seed)
    # min(4, vocab_size) successors (MarkovLanguageTask's default 4): vocab_size = 2, documented valid, was
    # refused naming branching, an argument this function does not take
    integral = isinstance(vocab_size, numbers.Integral) and not isinstance(vocab_size, bool)
    branching = MarkovLanguageTask.branching
    if integral:   # a bad vocab_size is MarkovLanguageTask's to refuse by name
        branching = min(branching, int(vocab_size))
    source = MarkovLanguageTask(vocab_size=vocab_size, context=context, branching=branching, seed=seed)
    # chain B's seed wraps: seed = 2**64 - 1 was refused naming 2**64, a value the user never passed
    target = MarkovLanguageTask(vocab_size=vocab_size, context=context, branching=branching,
                                seed=(seed + 1) % 2**64)
    if architecture == "transformer":
        model: torch.nn.Module = Transformer(vocab_size=vocab_size, width=width, depth=depth, context=context,
                                             seed=seed, dtype=dtype)
    elif architecture == "mlp":
        model = MLP(vocab_size, vocab_size, width=width, depth=depth, seed=seed, dtype=dtype)
    else:
        raise ValueError(f"architecture must be 'transformer' or 'mlp', got {architecture!r}")
    pretrain = torch.optim.AdamW(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(pretrain_steps):
        pretrain.zero_grad()
        source.loss(model, source.sample(batch_size, generator)).backward()
        pretrain.step()
    model.zero_grad(set_to_none=True)
    return FinetuneTask(model=model, task=target, tokens=target.sample(n, generator), batch_size=batch_size)


@dataclass(frozen=True)
class FullFinetune(Algorithm):
    """Full-parameter AdamW (torch's) on every trainable parameter: the memory-hungry peer of BCD.

    ``lr`` (a float > 0 in [1.18e-38, 1e10], the family's learning-rate range: 1e308 was accepted) and
    ``weight_decay`` (a float >= 0 with lr·weight_decay <= 1, the float product) are AdamW's; loop and
    retcodes as in :func:`run_finetune`.
    """

    lr: float = 1e-3
    weight_decay: float = 0.0

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        check_positive("lr", self.lr)
        object.__setattr__(self, "lr", check_lr(self.lr))
        object.__setattr__(self, "weight_decay", check_nonnegative("weight_decay", self.weight_decay))
        check_decay_product(self.lr, self.weight_decay)


def run_finetune(problem: FinetuneTask,
                 make_optimizer: Callable[[torch.nn.Module, int], torch.optim.Optimizer],
                 options: SolveOptions, desc: str = "finetune") -> Solution:
    """Train a copy of ``problem.model`` with ``make_optimizer(model, seed)``; see the module docstring.

    ``options`` are the solve's :class:`~algorithms.core.SolveOptions` and ``desc`` (a str) labels the
    progress bar. ``make_optimizer`` must return a ``torch.optim.Optimizer`` over the parameters of the model
    it is given and leave at least one of them trainable (else ValueError naming it); an exception its
    optimizer's ``step`` raises other than TypeError/ValueError/RuntimeError is a ``UserCallableError``.
    """
    if not isinstance(problem, FinetuneTask):
        raise TypeError(f"problem must be a FinetuneTask, got {type(problem).__name__}")
    if not callable(make_optimizer):
        raise TypeError(f"make_optimizer must be callable, got {type(make_optimizer).__name__}")
    check_takes("make_optimizer", make_optimizer, "make_optimizer(model, seed)", 2)
    if not isinstance(options, SolveOptions):
        raise TypeError(f"options must be a SolveOptions (solve builds it from its keywords), got "
                        f"{type(options).__name__}")
    # NaN/inf weights written into the model after the task was built ran to Diverged (refused at
    # construction): checked again here, by name
    check_model_weights(problem.model, "problem.model")
    seed = 0 if options.seed is None else options.seed
    # a model holding Dropout draws at every training step: from solve's seed, in a forked generator
    # (torch's global one drew them: one seed gave two answers, and the caller's generator moved; red23a)
    devices = sorted({p.device.index or 0 for p in problem.model.parameters() if p.device.type == "cuda"})
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        return _train(problem, make_optimizer, options, desc, seed)


def _train(problem: FinetuneTask, make_optimizer: Callable[[torch.nn.Module, int], torch.optim.Optimizer],
           options: SolveOptions, desc: str, seed: int) -> Solution:
    from algorithms.optimizers.block import optimizer_state_bytes  # block.py imports this module

    # a horizon past 2**31 - 1 steps would not finish (a hang, not a result): refused by name
    steps = check_count("maxiters", options.iterations(200), 0)
    tol = options.tolerance(0.1)
    model = copy.deepcopy(problem.model)
    # BlockCoordinateDescent(optimizer=...) is the user's factory: its answer is checked by name
    built = call_user("make_optimizer(model, seed)", make_optimizer, model, seed,
                      keep=(TypeError, ValueError))
    optimizer = check_built_optimizer("make_optimizer (the optimizer factory, BlockCoordinateDescent's "
                                      "optimizer)", built)
    own = {id(p) for p in model.parameters()}
    stepped = [p for group in optimizer.param_groups for p in group["params"]]
    if not stepped or any(id(p) not in own for p in stepped):   # it would train nothing of the copy
        raise ValueError("make_optimizer must return an optimizer over the parameters of the model it is "
                         "given (make_optimizer(model, seed)); got one over other tensors")
    # a factory that froze every parameter met autograd's "element 0 ... does not require grad" (red20a)
    if not any(p.requires_grad for p in model.parameters()):
        raise ValueError("make_optimizer must leave the model trainable: it set requires_grad=False on every "
                         "parameter of the model it was given (make_optimizer(model, seed))")
    gen = torch.Generator().manual_seed(seed)
    monitor = IterationMonitor(options, total=steps, desc=desc)

    def full_loss() -> float:
        # in eval mode (the model's mode restored): the criterion and the Solution's value are the loss of
        # the weights, not of one dropout draw (nor a BatchNorm statistics update)
        training = [(m, m.training) for m in model.modules()]
        model.eval()
        try:
            with torch.no_grad():
                return float(problem.loss(model))
        finally:
            for m, mode in training:
                m.training = mode

    value = full_loss()
    retcode = RetCode.MaxIters
    peak_state = optimizer_state_bytes(optimizer)
    perm, cursor, k = torch.empty(0, dtype=torch.long), problem.n, 0
    for k in range(1, steps + 1):
        if cursor + problem.batch_size > problem.n:
            perm, cursor = torch.randperm(problem.n, generator=gen), 0
        index = perm[cursor:cursor + problem.batch_size]
        cursor += problem.batch_size
        optimizer.zero_grad(set_to_none=True)
        problem.loss(model, index).backward()
        step_user("optimizer.step() (of the optimizer BlockCoordinateDescent's optimizer built)", optimizer)
        state_bytes = optimizer_state_bytes(optimizer)
        peak_state = max(peak_state, state_bytes)
        value = full_loss()
        stop = monitor.record(iteration=k, loss=value, state_bytes=state_bytes)
        if not math.isfinite(value) or value > DIVERGED_LOSS:
            retcode = RetCode.Diverged
            break
        if stop:        # before the convergence test: a True on the converged record ended Success
            retcode = RetCode.Terminated
            break
        if value <= problem.reference_loss + tol:
            retcode = RetCode.Success
            break
    monitor.close()
    with torch.no_grad():
        flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
        x = (flat.float() if flat.dtype == torch.bfloat16 else flat).numpy().copy()
    return Solution(x=x, value=value, retcode=retcode, stats=Stats(iterations=k, grad_calls=k, f_calls=k),
                    trace=monitor.trace, original={"model": model, "peak_state_bytes": peak_state})


@_dispatch
def _solve(problem: FinetuneTask, algorithm: FullFinetune, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction (the task too)
        revalidate_if_reassigned(checked)
    def make(model: torch.nn.Module, seed: int) -> torch.optim.Optimizer:
        return torch.optim.AdamW(model.parameters(), lr=algorithm.lr, weight_decay=algorithm.weight_decay)

    return run_finetune(problem, make, options, desc="AdamW")
