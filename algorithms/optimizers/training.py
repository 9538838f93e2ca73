"""Training a model on a task with one of the family's optimizers, behind ``solve``.

``solve(TrainingProblem(model, task, steps), OptimizerTraining("muon", lr=...))`` trains a copy of
``model`` (the problem is never mutated) on fresh mini-batches of ``task``, with per-parameter
learning rates from :func:`~algorithms.optimizers.scaling.param_groups`.

Criterion (``Success``): the held-out loss (a fixed sample of ``eval_size`` sequences, drawn
with seed ``task.seed + 1``), checked every ``eval_every`` steps, is at most ``target_loss``
(default: the task's entropy rate + ``tol``, ``tol`` = 0.1 nats unless given). ``MaxIters``: the
horizon (``maxiters`` or ``steps``) came first. ``Diverged``: a non-finite loss or parameter, or a
mini-batch loss above ``divergence_factor`` × max(initial held-out loss, 1). Mini-batches are
drawn from a ``torch.Generator`` seeded by ``seed``, 100 steps' worth at a time.

``sol.x`` holds the trained parameters flattened (the model's dtype; float32 for bfloat16),
``sol.value`` the last held-out loss, ``sol.original`` the trained model, ``sol.trace`` (with
``store_trace=True``) one record per step: ``iteration``, ``loss`` and, at evaluations,
``eval_loss``.
"""

from __future__ import annotations

import copy
import inspect
import math
import types
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import torch
from torch import nn

from algorithms._validation import (
    call_user,
    check_built_optimizer,
    check_call_signature,
    check_choice,
    check_count,
    check_nonnegative,
    check_positive,
    check_positive_int,
    checked_fields,
    revalidate_if_reassigned,
    store_plain_scalars,
)
from algorithms.core import Algorithm, IterationMonitor, Problem, RetCode, Solution, SolveOptions, _dispatch
from algorithms.optimizers._base import check_lr, check_model_weights, check_real_keywords, step_user
from algorithms.optimizers.muon import Muon
from algorithms.optimizers.scaling import PARAMETRIZATIONS, param_groups
from algorithms.optimizers.shampoo import Shampoo
from algorithms.optimizers.soap import SOAP
from algorithms.optimizers.tasks import MarkovLanguageTask

__all__ = ["OPTIMIZERS", "OptimizerTraining", "TrainingProblem"]

#: optimizer name -> (class, the scaling rule its learning rates follow); read-only (an edit changed every
#: later OptimizerTraining run in silence)
OPTIMIZERS = types.MappingProxyType({
    "adamw": (torch.optim.AdamW, "adamw"),
    "muon": (Muon, "muon"),
    "shampoo": (Shampoo, "shampoo"),
    "grafted_shampoo": (Shampoo, "grafted_shampoo"),
    "soap": (SOAP, "soap"),
})


@dataclass(frozen=True)
class TrainingProblem(Problem):
    """A model, a task and a step budget; see the module docstring for the criterion.

    ``model`` is an :class:`MLP` or :class:`Transformer` with ``task.vocab_size`` inputs and outputs and
    weights on a real device (a meta model is refused naming model; a model handed over with NaN/inf
    weights is accepted and its run ends ``Diverged`` before any step: 0 iterations, value NaN, the
    parameters as given; so does one given such weights after construction, and float64 weights past 3.4e38
    end ``Diverged`` too),
    ``task`` a :class:`MarkovLanguageTask`, ``steps`` (int in [1, 2**31 − 1]) the horizon (``solve``'s
    ``maxiters``, when given, replaces it, in [0, 2**31 − 1]), ``target_loss`` (finite float > 0, or
    None: the entropy rate + tol) the held-out loss that is ``Success`` (a target above the initial
    held-out loss is ``Success`` at the first evaluation), ``eval_every`` (int >= 1; one past ``steps``
    evaluates at the last step only) the steps between evaluations, ``eval_size`` (int in
    [1, 2**31 − 1]) the held-out sequences and ``divergence_factor`` (finite float > 1; a huge one leaves
    only a non-finite loss or parameter as ``Diverged``) the blow-up threshold's factor.

    >>> from algorithms import solve
    >>> from algorithms.optimizers import MLP
    >>> task = MarkovLanguageTask(vocab_size=8, context=8, seed=0)
    >>> problem = TrainingProblem(MLP(8, 8, width=32, depth=1, seed=0), task, steps=300)
    >>> sol = solve(problem, OptimizerTraining("adamw", lr=0.02), seed=0)
    >>> sol.retcode, bool(sol.value <= task.entropy_rate() + 0.1)
    (<RetCode.Success: 'Success'>, True)
    """

    model: nn.Module
    task: MarkovLanguageTask
    steps: int = 200
    target_loss: float | None = None
    eval_every: int = 10
    eval_size: int = 256
    divergence_factor: float = 10.0

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        if not isinstance(self.model, nn.Module) or not hasattr(self.model, "parameter_roles"):
            raise TypeError(f"model must be an algorithms.optimizers MLP or Transformer, got "
                            f"{type(self.model).__name__}")
        if not isinstance(self.task, MarkovLanguageTask):
            raise TypeError(f"task must be a MarkovLanguageTask, got {type(self.task).__name__}")
        if self.model.in_features != self.task.vocab_size or self.model.out_features != self.task.vocab_size:
            raise ValueError(f"model in_features/out_features must equal task.vocab_size="
                             f"{self.task.vocab_size}, got "
                             f"{self.model.in_features}/{self.model.out_features}")
        context = getattr(self.model, "context", None)  # a Transformer reads at most `context` tokens
        if context is not None and context < self.task.context:
            raise ValueError(f"model context must be >= task.context={self.task.context} (the length of "
                             f"the task's sequences), got {context}")
        # meta weights refused; NaN weights documented valid (the run is Diverged before any step: a claim)
        check_model_weights(self.model, finite=False)
        check_count("steps", self.steps, 1)
        if self.target_loss is not None:
            check_positive("target_loss", self.target_loss)
        check_positive_int("eval_every", self.eval_every)
        check_count("eval_size", self.eval_size, 1)  # a held-out sample of eval_size sequences
        if check_positive("divergence_factor", self.divergence_factor) <= 1:
            raise ValueError(f"divergence_factor must be > 1, got {self.divergence_factor}")


@dataclass(frozen=True)
class OptimizerTraining(Algorithm):
    """Which optimizer, its base learning rate, and how hyperparameters scale with the model.

    ``optimizer``: one of :data:`OPTIMIZERS`. ``lr`` 0 or in [1.18e-38, 1e10], as the optimizers (the cap
    keeps a step finite; a subnormal lr such as 1e-39 rounds every float32 step to 0 and is refused
    naming lr; so is one whose per-parameter scaled lr leaves [1.18e-38, 1e10], see
    :func:`~algorithms.optimizers.param_groups`; ``lr = 0`` is accepted and is a
    run that takes no step, the model kept as it is, as torch's optimizers at lr 0): the base learning
    rate, tuned at ``base_width`` / ``base_depth`` (ints >= 1, or ``None``: the model's own, i.e. no
    scaling) and multiplied per parameter by the ``parametrization`` rule. ``independent_weight_decay``
    in [0, 1): λ in W ← (1 − λ) W per step (for every parameter; 0 by default; λ >= 1 would zero or flip the
    weights and is refused naming it). ``hyperparameters``: further
    keywords of the optimizer's constructor (``momentum``, ``betas``, ``block_size``, ...); torch's flags
    ``capturable=True`` and ``differentiable=True`` are refused (ValueError naming the flag) on every
    device, CUDA included: the steps run outside CUDA graphs and outside autograd.
    ``batch_size`` (int >= 1): sequences per mini-batch.
    ``factory``: a callable built like the class of ``optimizer`` (``factory(groups, lr=,
    **hyperparameters)``, the groups carrying each parameter's scaled ``lr``, ``weight_decay`` and, for
    Muon, ``use_muon``) used in its place: another implementation trained under the same rule. It must
    build a ``torch.optim.Optimizer`` over those groups whose ``step()`` needs no closure (the trainer calls
    it after ``backward``; LBFGS or SAM are refused at solve with ``TypeError`` naming factory). An exception
    its optimizer's ``step`` raises other than TypeError/ValueError/RuntimeError is re-raised as
    ``UserCallableError`` naming that step.
    """

    optimizer: str = "muon"
    lr: float = 0.02
    batch_size: int = 32
    parametrization: str = "mup"
    base_width: int | None = None
    base_depth: int | None = None
    independent_weight_decay: float = 0.0
    hyperparameters: Mapping[str, Any] = field(default_factory=dict)
    factory: Any = None

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        if self.factory is not None and not callable(self.factory):
            raise TypeError(f"factory must be None or a callable building the optimizer from parameter "
                            f"groups, got {type(self.factory).__name__}")
        if isinstance(self.factory, type) and not issubclass(self.factory, torch.optim.Optimizer):
            # factory=dict was accepted and failed at solve with dict's own "dictionary update sequence"
            raise TypeError(f"factory must be a torch.optim.Optimizer subclass or a function returning one, "
                            f"got the class {self.factory.__name__}")
        # the checked values are stored as Python numbers (np.int64(8) reached torch's split_with_sizes)
        object.__setattr__(self, "lr", check_lr(self.lr))    # in [0, 1e10], as the optimizers take it
        object.__setattr__(self, "batch_size", check_count("batch_size", self.batch_size, 1))
        check_choice("parametrization", self.parametrization, PARAMETRIZATIONS)
        if self.base_width is not None:
            check_positive_int("base_width", self.base_width)
        if self.base_depth is not None:
            check_positive_int("base_depth", self.base_depth)
        wd = check_nonnegative("independent_weight_decay", self.independent_weight_decay)
        object.__setattr__(self, "independent_weight_decay", wd)
        if wd >= 1:
            raise ValueError(f"independent_weight_decay must be in [0, 1), got {wd}")
        if not isinstance(self.hyperparameters, Mapping):
            raise TypeError(f"hyperparameters must be a mapping of optimizer keywords, got "
                            f"{type(self.hyperparameters).__name__}")
        # a copy: the caller's dict edited after construction changed this (frozen, hashed) algorithm
        object.__setattr__(self, "hyperparameters", dict(self.hyperparameters))
        reserved = {"lr", "weight_decay", "params"} & set(self.hyperparameters)
        if reserved:
            raise ValueError(f"hyperparameters must not set {sorted(reserved)} (use lr and "
                             "independent_weight_decay)")
        # reals in the working range: torch's AdamW took eps = 1e300 in silence
        object.__setattr__(self, "hyperparameters",
                           check_real_keywords(self.hyperparameters, "hyperparameters: "))
        # an unknown keyword is named now, not by the optimizer's constructor at solve
        params = inspect.signature(OPTIMIZERS[self.optimizer][0]).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            unknown = sorted(set(self.hyperparameters) - set(params) - {"params", "self"})
            if unknown:
                raise TypeError(f"hyperparameters {unknown} are not keywords of "
                                f"{OPTIMIZERS[self.optimizer][0].__name__} ({self.optimizer!r}); it takes "
                                f"{sorted(set(params) - {'params', 'lr', 'weight_decay'})}")
        if self.factory is None and self.hyperparameters:
            # their values through the optimizer's own constructor now, on a throwaway tensor: betas=(2.0,
            # 0.9) met torch.optim.Adam's ValueError from inside torch, at solve, naming no argument of ours
            cls = OPTIMIZERS[self.optimizer][0]
            hyperparameters = dict(self.hyperparameters)
            if self.optimizer == "grafted_shampoo":
                hyperparameters.setdefault("grafting", "adam")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    probe = torch.zeros(2, 2, requires_grad=True)
                    opt = cls([probe], lr=self.lr, weight_decay=0.0, **hyperparameters)
                    probe.grad = torch.ones_like(probe)     # one step: capturable / differentiable fail there
                    opt.step()
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"hyperparameters {dict(self.hyperparameters)!r:.120} are refused by "
                                f"{cls.__name__} ({self.optimizer!r}): {exc}") from None
            except Exception as exc:    # torch's IndexError (betas=(0.9,)), AssertionError (capturable=True)
                raise ValueError(f"hyperparameters {dict(self.hyperparameters)!r:.120} are refused by "
                                 f"{cls.__name__} ({self.optimizer!r}): {type(exc).__name__}: "
                                 f"{exc}") from None
        if self.factory is not None:   # build() calls factory(groups, lr=..., **hyperparameters)
            hyperparameters = dict(self.hyperparameters)
            if self.optimizer == "grafted_shampoo":
                hyperparameters.setdefault("grafting", "adam")
            check_call_signature("factory", self.factory, "factory(param_groups, lr=..., **hyperparameters)",
                                 None, lr=None, **hyperparameters)

    def __hash__(self) -> int:
        """By value, as the generated ``__eq__`` compares (the ``hyperparameters`` dict made the generated
        ``__hash__`` raise "unhashable type: 'dict'")."""
        return hash((type(self).__name__, *(_hashable(getattr(self, f.name)) for f in fields(self))))

    def build(self, model: nn.Module) -> torch.optim.Optimizer:
        """The optimizer over ``model``'s parameters, with scaled per-parameter groups.

        Each group's decoupled weight decay is ``independent_weight_decay / lr`` of the group, so that
        ``lr · weight_decay`` is λ per step; a group whose ``lr`` is 0 takes no step and gets 0."""
        cls, rule = OPTIMIZERS[self.optimizer]
        cls = cls if self.factory is None else self.factory
        if not all(hasattr(model, a) for a in ("width", "depth", "parameter_roles")):  # else AttributeError
            raise TypeError(f"model must have width, depth and parameter_roles() (an MLP or a Transformer of "
                            f"algorithms.optimizers), got {type(model).__name__}")
        groups = param_groups(model, rule, self.lr, base_width=self.base_width or model.width,
                              base_depth=self.base_depth, parametrization=self.parametrization,
                              block_size=self.hyperparameters.get("block_size"))
        for group in groups:
            group["weight_decay"] = self.independent_weight_decay / group["lr"] if group["lr"] > 0 else 0.0
            if self.optimizer != "muon":
                group.pop("use_muon", None)
        hyperparameters = dict(self.hyperparameters)
        if self.optimizer == "grafted_shampoo":
            hyperparameters.setdefault("grafting", "adam")
        try:
            built = (cls(groups, lr=self.lr, **hyperparameters) if self.factory is None else
                     call_user("factory(param_groups, lr=..., **hyperparameters)", lambda: cls(
                         groups, lr=self.lr, **hyperparameters), keep=(TypeError, ValueError)))
        except TypeError as exc:
            raise TypeError(f"hyperparameters {sorted(hyperparameters)} rejected by "
                            f"{getattr(cls, '__name__', repr(cls))}: {exc}") from None
        except ValueError as exc:
            if self.factory is None:
                raise
            raise ValueError(f"factory ({getattr(cls, '__name__', repr(cls))}) refused the parameter groups: "
                             f"{exc}") from None
        if self.factory is None:
            return built
        built = check_built_optimizer("factory", built)
        own = {id(p) for p in model.parameters()}
        stepped = [p for group in built.param_groups for p in group["params"]]
        if not stepped or any(id(p) not in own for p in stepped):   # it trained nothing, in silence
            raise ValueError("factory must build an optimizer over the parameter groups it is given (the "
                             "model's parameters); got one over other tensors")
        return built


def _hashable(value: Any) -> Any:
    """``value`` itself when hashable; a mapping or sequence as a tuple of hashable items; else its id."""
    if isinstance(value, Mapping):
        return tuple(sorted((repr(k), _hashable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return id(value)
    return value


#: how many steps' mini-batches are sampled in one call
_CHUNK = 100


def _flat(model: nn.Module) -> np.ndarray:
    values = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    if values.dtype == torch.bfloat16:
        values = values.float()
    return values.numpy().copy()


def _finite_parameters(model: nn.Module) -> bool:
    return all(bool(torch.isfinite(p).all()) for p in model.parameters())


@_dispatch
def _solve(problem: TrainingProblem, algorithm: OptimizerTraining, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction (the task too)
        revalidate_if_reassigned(checked)
    # a horizon past 2**31 - 1 steps would not finish (a hang, not a result): refused by name
    steps = check_count("maxiters", options.iterations(problem.steps), 0)
    task = problem.task
    model = copy.deepcopy(problem.model)
    optimizer = algorithm.build(model)
    generator = torch.Generator().manual_seed(options.seed or 0)
    held_out = task.sample(problem.eval_size, torch.Generator().manual_seed((task.seed + 1) % 2**64))
    target = problem.target_loss if problem.target_loss is not None else (
        task.entropy_rate() + options.tolerance(0.1))

    def evaluate() -> float:
        with torch.no_grad():
            return float(task.loss(model, held_out))

    value = evaluate()
    ceiling = problem.divergence_factor * max(value, 1.0)
    monitor = IterationMonitor(options, total=steps, desc=f"train ({algorithm.optimizer})")
    retcode, done = RetCode.MaxIters, 0
    batches: list[torch.Tensor] = []
    for k in range(1, steps + 1):
        if not batches:  # draw up to _CHUNK steps' batches at once: one sampling loop, not one per step
            count = min(_CHUNK, steps - k + 1)
            batches = list(task.sample(count * algorithm.batch_size, generator).split(algorithm.batch_size))
        optimizer.zero_grad(set_to_none=True)
        loss = task.loss(model, batches.pop(0))
        loss_value = loss.item()
        if not math.isfinite(loss_value) or loss_value > ceiling:
            retcode = RetCode.Diverged
            break
        loss.backward()
        step_user("optimizer.step() (of the optimizer OptimizerTraining's factory built)", optimizer)
        done = k
        record: dict[str, Any] = {"iteration": k, "loss": loss_value}
        if k % problem.eval_every == 0 or k == steps:
            # a non-finite parameter shows here (and in the next mini-batch loss)
            value = record["eval_loss"] = evaluate()
            if not (math.isfinite(value) and _finite_parameters(model)):
                retcode = RetCode.Diverged
                break
            if value <= target:
                retcode = RetCode.Success
        if monitor.record(**record):
            retcode = RetCode.Terminated
            break
        if retcode is RetCode.Success:
            break
    monitor.close()
    if retcode is RetCode.Diverged:
        value = math.nan if not _finite_parameters(model) else evaluate()
    sol = Solution(x=_flat(model), value=value, retcode=retcode, trace=monitor.trace, original=model)
    sol.stats.iterations = done
    sol.stats.grad_calls = done
    return sol
