"""Block coordinate descent with landscape expansion (BREAD) as a ``torch.optim.Optimizer``.

The trainable parameters are split into D blocks W = (W_1, …, W_D). One block is active
at a time; it takes ``switch_every`` = K steps of the base optimizer (AdamW by default),

    W_π(i) ← BaseStep(W_π(i), ∇_{W_π(i)} H, s)          (s: base state of the active block only)

then the next block of the order π becomes active and the old block's state is dropped
(BAdam: Luo, Yu & Li 2024). An order is ``"ascending"`` (input to output), ``"descending"``
or ``"random"`` (a fresh seeded permutation each block-epoch). With ``expansion="none"`` the
inactive blocks are frozen (``requires_grad=False``, plain BCD). Landscape expansion
(BREAD-SGD, Algorithm 2 of Luo et al. 2025) also moves every inactive parameter W_l, inside
the same backward pass, as soon as its gradient is accumulated:

    W_l ← W_l − β g_l    (``"sgd"``)      or      W_l ← W_l − β sign(g_l)    (``"sign"``),
    g_l ← None                          (freed at once: no inactive gradient outlives the pass)

with β = ``expansion_lr_scale`` · ``lr`` (read from the optimizer's param group at each pass,
so an lr scheduler scales both); with the base optimizer's ``maximize=True`` the expansion ascends too,
W_l ← W_l + β g_l (or + β sign(g_l)), as the active block does. The update runs in a
post-accumulate-grad hook, so only the active block's gradient is ever stored.

Blocks are found from parameter names (:func:`find_blocks`): by default one block per
numbered layer (the shortest dotted name prefix ending in an integer, e.g. ``layers.3`` of
a transformer or ``2`` of an ``nn.Sequential``) plus one block for the remaining parameters
(embeddings, final norm, head); or given explicitly as regular expressions or lists of
names. :func:`optimizer_state_bytes` measures the bytes of the tensors an optimizer's state
holds (walking its ``state_dict``).

References
----------
Q. Luo, Y. Shen, L. Peng, D. Li, X. Li. Accelerating Block Coordinate Descent for LLM
Finetuning via Landscape Expansion. NeurIPS 2025 (OpenReview DBybUx7ARy), Section 4.2
(Algorithm I/II), Appendix C (Algorithm 2, BREAD-SGD).
Q. Luo, H. Yu, X. Li. BAdam: A memory efficient full parameter optimization method for
large language models. arXiv:2404.02827, 2024.

>>> model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
>>> opt = BlockOptimizer(model, lr=0.1, switch_every=1)
>>> opt.block_names
[['0.weight', '0.bias'], ['2.weight', '2.bias']]
>>> loss = model(torch.ones(5, 3)).square().mean()
>>> loss.backward(); opt.step(); opt.active_block
1
"""

from __future__ import annotations

import collections
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    WORKING_MIN,
    call_user,
    check_bool,
    check_call_signature,
    check_int_at_least,
    check_nonnegative,
    check_optimizer_state,
    check_positive,
    check_positive_int,
    check_saved_hyperparameters,
    check_seed,
    checked_fields,
    clone_tensors,
    is_choice,
    refuse_replaced,
    refuse_unknown_attribute,
    revalidate_if_reassigned,
    step_needs_closure,
    store_plain_scalars,
)
from algorithms.core import Algorithm, Solution, SolveOptions, _dispatch
from algorithms.optimizers._base import (
    CLOSURE_OWN_ERRORS,
    EXTRA_GROUP_KEYS,
    LR_MAX,
    MatrixOptimizer,
    SparseGradientError,
    check_closure,
    check_keyword_kinds,
    check_params_lists,
    check_real_keywords,
    check_state_finite,
    check_state_layout,
    checked_loss,
    step_base,
)
from algorithms.optimizers.finetune import FinetuneTask, run_finetune

__all__ = ["BlockCoordinateDescent", "BlockOptimizer", "find_blocks", "optimizer_state_bytes"]

ORDERS = ("ascending", "descending", "random")

_UNSET = object()


def _check_rates(lr: Any, expansion_lr_scale: Any, lr_name: str = "lr",
                 scale_name: str = "expansion_lr_scale") -> tuple[float, float]:
    """``lr`` in (0, LR_MAX] and ``expansion_lr_scale`` > 0 with β = lr · expansion_lr_scale <= LR_MAX
    (1e10): lr = 1e308 failed inside torch's add_ ("cannot be converted to type float without overflow")
    and lr = 2**64 wrote inf into the weights."""
    lr = check_positive(lr_name, lr)
    if lr > LR_MAX:
        raise ValueError(f"{lr_name} must be <= {LR_MAX:g} (a step that large overflows float32 weights), "
                         f"got {lr!r}")
    scale = check_positive(scale_name, expansion_lr_scale)
    if lr * scale > LR_MAX:
        raise ValueError(f"{lr_name} · {scale_name} (the expansion step β) must be <= {LR_MAX:g}, got "
                         f"{lr!r} · {scale!r}")
    return lr, scale
EXPANSIONS = ("none", "sgd", "sign")
_LAYER_PREFIX = re.compile(r"^((?:[^.]+\.)*?\d+)\.")


def _named_parameters(params: Any) -> tuple[dict[str, torch.nn.Parameter], dict[str, torch.Tensor]]:
    """(name -> trainable parameter, name -> every leaf parameter given), from a module or an
    iterable of (name, parameter) pairs. The second map lets ``load_state_dict`` rebuild a saved
    block layout on a model whose inactive blocks a BlockOptimizer had frozen (e.g. a deepcopy)."""
    if isinstance(params, torch.nn.Module):
        pairs = list(params.named_parameters())
    elif isinstance(params, Iterable) and not isinstance(params, str | torch.Tensor | dict):
        pairs = list(params)
        if not all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str)
                   and isinstance(p[1], torch.Tensor) for p in pairs):
            raise TypeError("params must be a torch.nn.Module or an iterable of (name, parameter) pairs "
                            "(e.g. model.named_parameters()); got an iterable of "
                            f"{sorted({type(p).__name__ for p in pairs})}")
    else:
        raise TypeError("params must be a torch.nn.Module or an iterable of (name, parameter) pairs "
                        f"(e.g. model.named_parameters()), got {type(params).__name__}")
    named: dict[str, torch.nn.Parameter] = {}
    every: dict[str, torch.Tensor] = {}
    seen: dict[int, str] = {}
    for name, p in pairs:
        if p.is_leaf and name not in every and id(p) not in {id(q) for q in every.values()}:
            every[name] = p
        if not p.requires_grad:
            continue                      # frozen by the user: not ours to train
        if not p.is_leaf:
            raise ValueError(f"params: {name!r} is not a leaf tensor (a parameter), so it cannot be "
                             "optimized")
        if name in named:
            raise ValueError(f"params: the name {name!r} appears twice")
        if id(p) in seen:                 # a shared (tied) parameter is trained once, under its first name
            warnings.warn(f"params: {name!r} is the same tensor as {seen[id(p)]!r}; it is trained once, "
                          f"under {seen[id(p)]!r}", UserWarning, stacklevel=3)
            continue
        seen[id(p)] = name
        named[name] = p
    if not named:
        raise ValueError("params holds no trainable parameter (none with requires_grad=True)")
    return named, every


def find_blocks(names: Sequence[str], blocks: Sequence[str | Sequence[str]] | None = None) -> list[list[str]]:
    """Partition the parameter ``names`` into blocks (lists of names, in ``names`` order).

    ``blocks=None``: one block per numbered layer (the shortest dotted prefix of a name that
    ends in an integer: ``layers.0``, ``transformer.h.11``, ``2`` of an ``nn.Sequential``) in
    order of first appearance, and one block of the remaining names at the end; a model
    without numbered layers gets one block per top-level module. Otherwise each entry of
    ``blocks`` is a regular expression (``re.search`` on the name) or a list of names; every
    name must fall in exactly one block and every entry must match at least one name.

    >>> find_blocks(["emb.weight", "layers.0.w", "layers.1.w", "head.weight"])
    [['layers.0.w'], ['layers.1.w'], ['emb.weight', 'head.weight']]
    >>> find_blocks(["a.w", "b.w", "b.v"], blocks=[r"^a\\.", ["b.w", "b.v"]])
    [['a.w'], ['b.w', 'b.v']]
    """
    if isinstance(names, str | bytes):   # list("ab") would be two one-letter names
        raise TypeError(f"names must be a sequence of parameter names, not a single str, got {names!r}")
    try:
        names = list(names)
    except TypeError:       # None, an int: Python's bare "'NoneType' object is not iterable"
        raise TypeError(f"names must be a sequence of parameter names, got {type(names).__name__}") from None
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"names must be a non-empty sequence of parameter names, got {names!r}")
    # counted once (Counter, sets): names.count per name and list lookups were quadratic, 6 s for 5000 names
    repeated = sorted(n for n, c in collections.Counter(names).items() if c > 1)
    if repeated:  # a name twice would put one parameter in a block twice (or in two blocks)
        raise ValueError(f"names must be distinct parameter names, got {repeated} more than once")
    if blocks is None:
        return _default_blocks(names)
    if isinstance(blocks, str) or not isinstance(blocks, Sequence) or len(blocks) == 0:
        raise TypeError("blocks must be None or a non-empty list of regular expressions / lists of "
                        f"parameter names, got {blocks!r}")
    owner: dict[str, int] = {}
    out: list[list[str]] = []
    known = set(names)
    for index, entry in enumerate(blocks):
        if isinstance(entry, str):
            try:
                pattern = re.compile(entry)
            except re.error as exc:
                raise ValueError(f"blocks[{index}]: {entry!r} is not a valid regular expression "
                                 f"({exc})") from None
            members = [n for n in names if pattern.search(n)]
            if not members:
                raise ValueError(f"blocks[{index}]: the pattern {entry!r} matches no parameter name; "
                                 f"names are {names[:8]}{' ...' if len(names) > 8 else ''}")
        elif isinstance(entry, Sequence) and entry and all(isinstance(n, str) for n in entry):
            twice = sorted(n for n, c in collections.Counter(entry).items() if c > 1)
            if twice:   # was deduplicated in silence (a name in two blocks is refused)
                raise ValueError(f"blocks[{index}] lists {twice} more than once; each name may appear once")
            unknown = [n for n in entry if n not in known]
            if unknown:
                raise ValueError(f"blocks[{index}] names parameters the model does not have "
                                 f"(or that are frozen): {unknown}")
            listed = set(entry)
            members = [n for n in names if n in listed]
        else:
            raise TypeError(f"blocks[{index}] must be a regular expression or a non-empty list of "
                            f"parameter names, got {entry!r}")
        for n in members:
            if n in owner:
                raise ValueError(f"blocks overlap: parameter {n!r} is in blocks[{owner[n]}] and "
                                 f"blocks[{index}]; every parameter must be in exactly one block")
            owner[n] = index
        out.append(members)
    missing = [n for n in names if n not in owner]
    if missing:
        raise ValueError(f"blocks miss parameters: {missing} are in no block; every trainable "
                         "parameter must be in exactly one block")
    return out


def _default_blocks(names: list[str]) -> list[list[str]]:
    layers: dict[str, list[str]] = {}
    rest: list[str] = []
    for n in names:
        match = _LAYER_PREFIX.match(n)
        if match:
            layers.setdefault(match.group(1), []).append(n)
        else:
            rest.append(n)
    if not layers:                        # no numbered layers: one block per top-level module
        top: dict[str, list[str]] = {}
        for n in names:
            top.setdefault(n.split(".", 1)[0], []).append(n)
        return list(top.values())
    return list(layers.values()) + ([rest] if rest else [])


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Bytes of the distinct tensor storages an optimizer's ``state_dict()`` holds (measured).

    ``optimizer``: any ``torch.optim.Optimizer``. Its state dict holds the state tensors (moments, step
    counters), so this counts what the optimizer keeps in memory, each storage once, including a wrapped
    optimizer's state (a :class:`BlockOptimizer`'s active block's base optimizer, a
    :class:`~algorithms.nets.SAM`'s base optimizer).

    >>> w = torch.nn.Parameter(torch.zeros(10))
    >>> adam = torch.optim.AdamW([w]); w.grad = torch.ones(10); adam.step()
    >>> optimizer_state_bytes(adam)     # exp_avg + exp_avg_sq (10 float32 each) + the step counter
    84
    """
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    seen: set[int] = set()
    total = 0
    state_dict = optimizer.state_dict()
    # every entry but the hyperparameter groups: a BlockOptimizer's active block's base state ("base"), a
    # SAM's base optimizer's ("base_optimizer": its Adam moments were counted as 0 bytes)
    stack: list[Any] = [v for k, v in state_dict.items() if k != "param_groups"]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            storage = item.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return total


#: BlockOptimizer attributes rebuilt on unpickling (hook handles; ids of the active block's tensors) and
#: torch's own hook dictionaries (which may hold unpicklable user callables)
#: keys torch's own Optimizer.__setstate__ adds to ``defaults`` (an unpickled optimizer has them)
_TORCH_DEFAULT_FLAGS = frozenset({"differentiable", "foreach", "fused", "capturable", "maximize"})


def _equal(a: Any, b: Any) -> bool:
    """Two hyperparameter values equal (numbers, bools, strs, tuples of them)."""
    try:
        return bool(a == b)
    except Exception:   # a tensor of several entries, an array: compared by identity above
        return False


_NOT_PICKLED = frozenset({"_hooks", "_active_ids", "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                          "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                          "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"})


#: the entries BlockOptimizer.state_dict() writes (a hand-edited one without 'state' reached a bare KeyError)
_SAVED_KEYS = ("state", "param_groups", "base", "schedule")


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` as one bool (False where the comparison is not one: tensors of several entries, NaN)."""
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError, RuntimeError):
        return False


class BlockOptimizer(torch.optim.Optimizer):
    """Block coordinate descent (BAdam) with optional landscape expansion (BREAD-SGD / sign).

    ``BlockOptimizer(params, blocks=None, base=torch.optim.AdamW, switch_every=50,
    order="ascending", expansion="none", expansion_lr_scale=1.0, lr=1e-3, seed=0, **base_kwargs)``

    ``params`` is a module or ``model.named_parameters()`` (names find the blocks, see
    :func:`find_blocks`); ``base`` a ``torch.optim.Optimizer`` class, built on the active
    block with ``lr`` and ``base_kwargs`` and rebuilt (state dropped) at every switch (torch's flags
    ``capturable=True`` and ``differentiable=True`` are refused (ValueError naming the flag) on every
    device, CUDA included: the steps run outside CUDA graphs and outside autograd);
    ``seed`` seeds the ``"random"`` order. A base whose ``step`` needs a closure (``torch.optim.LBFGS``, the
    package's ``SAM``) is refused with ``TypeError`` naming base. Construction sets ``requires_grad`` of the
    parameters (only the active block, or all with expansion) and, with expansion, installs
    the post-accumulate-grad hooks; :meth:`remove_hooks` takes them away again. ``params`` are the
    parameters with ``requires_grad`` at construction: a second BlockOptimizer built on a model a first one
    froze sees only the first's active block as trainable (its blocks come from those names), until its
    :meth:`load_state_dict` adopts a saved block layout over every parameter given; build one per model
    (or one on a fresh copy) to partition the whole model. Call
    ``loss.backward()`` then ``step()``; ``state_dict()`` holds the base optimizer's state and
    the schedule position (block-epoch, position in the order, steps in the block) with the ``order`` and
    ``seed`` that define it (``load_state_dict`` refuses a state saved under another order, or another seed
    of the random order, naming it: its base state belongs to another block). ``param_groups[0]['params']``
    edited after construction is refused at the next step (the blocks are fixed at construction), and so is
    an entry of ``defaults`` edited, added or removed (no step reads ``defaults``). A NaN/inf
    gradient goes to the base optimizer unchanged, so the step behaves as that torch optimizer's
    does (for ``torch.optim.AdamW``, the NaN reaches the weights; later steps go on from there, as torch's
    would; a NaN written into the base state through ``.data`` is refused, naming the entry). A sparse
    gradient raises
    ``RuntimeError`` (as torch's Adam); ``load_state_dict`` refuses a hand-edited or foreign state with
    ValueError/TypeError naming the entry.

    Domains: ``lr`` a float > 0 in [1.18e-38, 1e10] (a positive scale of the working range: 0 and
    subnormals such as 1e-39 are refused naming lr); ``expansion_lr_scale`` a float > 0 (at least
    1.18e-38) with β = lr · expansion_lr_scale <= 1e10 (the cap keeps a step finite: 1e308 overflowed
    float32 weights); ``switch_every`` an int >= 1 (past the run's length:
    the first block trains throughout; an attribute, ``opt.switch_every = k`` changes it, not a key of
    ``param_groups[0]``, where it is refused by name at the next step, as ``seed`` and ``order`` are);
    ``seed`` an int in [0, 2**64); ``order`` one of ``ORDERS``;
    ``expansion`` one of ``EXPANSIONS``; ``base_kwargs`` of the kind of the base constructor's defaults (a
    number, a bool, a pair of numbers: another kind is a TypeError naming it), finite and within the working
    range, signs and ranges only as the base's constructor checks them (torch leaves Rprop's ``step_sizes``,
    ASGD's ``lambd``/``alpha``/``t0`` and SGD's ``dampening`` unchecked: passed as given, a negative one runs
    as torch's would). ``lr`` and ``expansion_lr_scale`` written into ``param_groups[0]``
    after construction are re-checked where they are used: by ``step()``, and with expansion ``"sgd"`` or
    ``"sign"`` by the backward hooks too (an invalid value raises ValueError naming it from
    ``loss.backward()``, before any inactive parameter moves).
    """

    def __init__(self, params: Any, blocks: Sequence[str | Sequence[str]] | None = None,
                 base: type[torch.optim.Optimizer] = torch.optim.AdamW, switch_every: int = 50,
                 order: str = "ascending", expansion: str = "none", expansion_lr_scale: float = 1.0,
                 lr: float = 1e-3, seed: int = 0, **base_kwargs: Any) -> None:
        if not (isinstance(base, type) and issubclass(base, torch.optim.Optimizer)) or \
                issubclass(base, BlockOptimizer):
            shown = f"an instance of {type(base).__name__}" if isinstance(base, torch.optim.Optimizer) \
                else getattr(base, "__name__", type(base).__name__)
            raise TypeError("base must be a torch.optim.Optimizer class (e.g. torch.optim.AdamW) other "
                            f"than BlockOptimizer, got {shown}")
        if step_needs_closure(base):   # LBFGS's step() failed with Python's bare missing-argument TypeError
            raise TypeError(f"base must step without a closure (BlockOptimizer evaluates the closure itself, "
                            f"then calls the base's step()), got {base.__name__}, whose step requires one")
        self.switch_every = check_positive_int("switch_every", switch_every)
        if not is_choice(order, ORDERS):
            raise ValueError(f"order must be one of {list(ORDERS)}, got {order!r}")
        if not is_choice(expansion, EXPANSIONS):
            raise ValueError(f"expansion must be one of {list(EXPANSIONS)}, got {expansion!r}")
        # > 0: β = expansion_lr_scale·lr moves the inactive blocks; 0 would be expansion="none" with hooks
        lr, expansion_lr_scale = _check_rates(lr, expansion_lr_scale)
        self.seed = check_seed(seed)
        named, self._every_named = _named_parameters(params)
        self._block_names = find_blocks(list(named), blocks)
        self._blocks = [[named[n] for n in block] for block in self._block_names]
        self.base = base
        self.order = order
        self.expansion = expansion
        # torch takes any finite keyword (weight_decay = 1e300 stepped inf into the weights)
        check_keyword_kinds(base, base_kwargs)     # momentum=True ran as 1.0, dampening="x" stepped
        self._base_kwargs = check_real_keywords(base_kwargs, "", lr)
        super().__init__(list(named.values()),
                         dict(lr=lr, expansion_lr_scale=expansion_lr_scale, **self._base_kwargs))
        self._built_defaults = dict(self.defaults)      # no step reads defaults: an edit is refused at step
        self._hooks: list[Any] = []
        self._epoch, self._position, self._block_step = 0, 0, 0
        self._active_ids: set[int] = set()
        self._base_optimizer: torch.optim.Optimizer
        self._activate()
        self._install_hooks()

    def __setattr__(self, name: str, value: Any) -> None:
        """After construction: ``switch_every`` is checked when set (0 or 1.5 were kept and stepped), and the
        choices the blocks and the base optimizer were built with (``order``, ``expansion``, ``seed``,
        ``base``) cannot change (a bogus order was kept in silence, a base of dict failed at the switch)."""
        if "_base_optimizer" in self.__dict__:
            if name == "switch_every":
                value = check_positive_int("switch_every", value)
            elif not name.startswith("_") and name not in self.__dict__ and not hasattr(type(self), name):
                # o.switch_evry = 1 was stored and ignored
                refuse_unknown_attribute(self, name, ("switch_every",))
            elif name in ("defaults", "state", "param_groups"):   # 'x' or []: bare AttributeError/IndexError
                refuse_replaced("BlockOptimizer", name, value, self.__dict__.get(name),
                                "edit its entries, or build a new BlockOptimizer")
            elif name in ("order", "expansion", "seed", "base") and value is not self.__dict__.get(name) \
                    and value != self.__dict__.get(name):
                raise ValueError(f"BlockOptimizer.{name} is fixed at construction "
                                 f"({self.__dict__.get(name)!r}); build a new BlockOptimizer for "
                                 f"{name}={value!r:.40}")
        super().__setattr__(name, value)

    @property
    def block_names(self) -> list[list[str]]:
        """The parameter names of each block, fixed at construction (a copy: an edit of it is not used)."""
        return [list(block) for block in self._block_names]

    @block_names.setter
    def block_names(self, value: Any) -> None:
        # an edited block_names was reported by state_dict while the original blocks trained (red18a)
        raise ValueError(f"BlockOptimizer.block_names is fixed at construction ({self._block_names!r:.80}); "
                         f"build a new BlockOptimizer with blocks={value!r:.40}")

    def __getstate__(self) -> dict[str, Any]:
        # torch's keeps defaults/state/param_groups only: a deepcopy or an unpickled BlockOptimizer lost its
        # blocks and schedule and could not step (AttributeError '_epoch'); hook handles are re-made
        state = super().__getstate__()
        state.update({k: v for k, v in self.__dict__.items() if k not in state and k not in _NOT_PICKLED})
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._hooks = []
        self._active_ids = {id(p) for p in self._blocks[self.active_block]}
        self._install_hooks()

    def zero_grad(self, set_to_none: bool = True) -> None:
        """torch's, with ``set_to_none`` a bool (a truthy str such as "no" was taken as True)."""
        set_to_none = check_bool("set_to_none", set_to_none)
        check_params_lists("BlockOptimizer.zero_grad", self.param_groups)
        super().zero_grad(set_to_none)

    def _install_hooks(self) -> None:
        if self.expansion != "none":
            for block in self._blocks:
                for p in block:
                    self._hooks.append(p.register_post_accumulate_grad_hook(self._expand))

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """torch's, with ``lr`` checked as in the constructor; only the constructor's one group is
        allowed (``step`` trains the blocks of ``param_groups[0]``; a second group would never move).

        ``param_group`` is a dict with ``params`` and optional ``lr`` (refused: see above).
        """
        if isinstance(param_group, dict) and "lr" in param_group:
            param_group["lr"] = _check_rates(param_group["lr"], param_group.get("expansion_lr_scale", 1.0))[0]
        if getattr(self, "param_groups", None):
            raise ValueError("param_group: a BlockOptimizer has one parameter group (its blocks); build a "
                             "new BlockOptimizer over all the parameters instead of add_param_group")
        super().add_param_group(param_group)

    # -------------------------------------------------------------- schedule
    @property
    def num_blocks(self) -> int:
        return len(self._blocks)

    def block_order(self, epoch: int | None = None) -> list[int]:
        """The order π of the blocks in block-epoch ``epoch`` (an int in [0, 2**63),
        default: the current one)."""
        # a block-epoch counts from 0: -1 gave an order (and seeded numpy with it) in silence
        epoch = self._epoch if epoch is None else check_int_at_least("epoch", epoch, 0, size=False)
        if epoch >= 2**63:  # no run reaches it; numpy would seed with it in silence
            raise ValueError(f"epoch must be a block-epoch count below 2**63, got {epoch}")
        D = self.num_blocks
        if self.order == "ascending":
            return list(range(D))
        if self.order == "descending":
            return list(range(D - 1, -1, -1))
        return [int(i) for i in np.random.default_rng([self.seed, epoch]).permutation(D)]

    @property
    def active_block(self) -> int:
        """Index (into ``block_names``) of the block the base optimizer now trains."""
        return self.block_order()[self._position]

    @property
    def base_optimizer(self) -> torch.optim.Optimizer:
        """The base optimizer of the active block (rebuilt at every switch)."""
        return self._base_optimizer

    def _activate(self) -> None:
        self._nonfinite_stepped = False     # a fresh base optimizer: no state a NaN gradient made
        active = self._blocks[self.active_block]
        # the base optimizer first: if it rejects its keywords, the user's model is left as it was
        # (no requires_grad flag or gradient changed by a constructor that raised)
        try:
            base_optimizer = self.base(active, lr=self.param_groups[0]["lr"], **self._base_kwargs)
        except (TypeError, ValueError) as exc:   # the base's own message, raised from here with its name
            raise type(exc)(f"base {self.base.__name__} rejected lr / keywords {sorted(self._base_kwargs)}: "
                            f"{exc}") from None
        except (IndexError, KeyError, AssertionError) as exc:    # torch's IndexError for betas=(0.9,)
            raise ValueError(f"base {self.base.__name__} rejected lr / keywords {sorted(self._base_kwargs)}: "
                             f"{type(exc).__name__}: {exc}") from None
        self._active_ids = {id(p) for p in active}
        for block in self._blocks:
            for p in block:
                if id(p) not in self._active_ids:
                    p.grad = None
                    p.requires_grad_(self.expansion != "none")
                else:
                    p.requires_grad_(True)
        self._base_optimizer = base_optimizer

    def _switch(self) -> None:
        self._block_step = 0
        self._position += 1
        if self._position == self.num_blocks:
            self._epoch, self._position = self._epoch + 1, 0
        self._activate()

    # -------------------------------------------------------------- expansion
    @torch.no_grad()
    def _expand(self, p: torch.Tensor) -> None:
        """Post-accumulate-grad hook: move an inactive parameter by β·g (or β·sign g), free g."""
        if id(p) in self._active_ids or p.grad is None:
            return
        group = self.param_groups[0]
        lr, scale = group["lr"], group["expansion_lr_scale"]
        if not (type(lr) is float and type(scale) is float and WORKING_MIN <= lr <= LR_MAX
                and WORKING_MIN <= scale and lr * scale <= LR_MAX):   # as step() checks them
            # lr = nan (or -1) written into the group moved the inactive blocks by NaN in backward(), before
            # step() could refuse it
            try:
                lr, scale = _check_rates(lr, scale)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"BlockOptimizer (expansion {self.expansion!r}, in backward): "
                                f"param_groups[0]['lr'] (or ['expansion_lr_scale']) was set to an invalid "
                                f"value: {exc}") from None
        beta = lr * scale
        update = p.grad.sign() if self.expansion == "sign" else p.grad
        # the base's maximize=True ascends L on the active block: the expansion ascends with it (it descended)
        p.add_(update, alpha=beta if group.get("maximize", False) else -beta)
        p.grad = None

    def remove_hooks(self) -> None:
        """Remove the expansion hooks (inactive parameters then keep their gradients)."""
        for handle in self._hooks:
            handle.remove()
        self._hooks = []

    # -------------------------------------------------------------- torch API
    @torch.no_grad()
    def _adopt_edited_keywords(self, own: dict[str, Any]) -> None:
        """A base keyword edited in ``param_groups[0]`` (weight_decay, betas, ...) checked as the constructor
        checks it and handed to the base optimizer: it kept its own copy, so an edit was ignored in silence
        (weight_decay = -5 too). Compared by identity: free when nothing changed."""
        edited = {key: value for key, value in own.items()
                  if key not in ("params", "lr", "expansion_lr_scale") and key not in EXTRA_GROUP_KEYS
                  and self._base_kwargs.get(key, _UNSET) is not value}
        if not edited:
            return
        own_settings = sorted(set(edited) & {"switch_every", "seed", "order", "expansion", "blocks", "base"})
        if own_settings:   # torch's "unexpected keyword argument" read as a bad value (heldout23)
            key = own_settings[0]
            hint = " and set opt.switch_every instead" if key == "switch_every" else ""
            raise TypeError(f"BlockOptimizer.step: param_groups[0] holds {key!r}, a BlockOptimizer "
                            f"constructor argument, not a parameter-group key of its base "
                            f"{self.base.__name__}: remove it from param_groups[0]{hint}")
        try:
            check_keyword_kinds(self.base, edited, "param_groups[0]: ")
            kwargs = check_real_keywords({**self._base_kwargs, **edited}, "param_groups[0]: ", own["lr"])
            self.base(self._blocks[self.active_block], lr=own["lr"], **kwargs)   # the base's own checks
        except (TypeError, ValueError) as exc:     # torch's "'<=' not supported ..." named no key: named here
            shown = ", ".join(f"{k} = {v!r:.40}" for k, v in edited.items())
            raise type(exc)(f"BlockOptimizer.step: param_groups[0] was edited to an invalid value ({shown}): "
                            f"{exc}") from None
        self._base_kwargs = kwargs
        own.update({key: kwargs[key] for key in edited})
        for group in self._base_optimizer.param_groups:
            group.update({key: kwargs[key] for key in edited})

    def _check_base_groups(self, own: dict[str, Any]) -> None:
        """The base optimizer's groups hold what this optimizer handed it: a keyword edited there (betas =
        (2, 0.9) stepped, lr = nan and "lrr" were ignored) is refused; edit ``param_groups[0]`` instead."""
        base = self._base_optimizer
        for index, group in enumerate(base.param_groups):
            for key, value in group.items():
                if key == "params":
                    continue
                if key == "lr":     # what the last step (or the switch, or a load) handed it
                    handed = (self.__dict__.get("_lr_handed", _UNSET), base.defaults.get("lr"), own["lr"])
                    if any(value is lr or _equal(value, lr) for lr in handed if lr is not _UNSET):
                        continue
                    expected = handed[0]
                else:
                    expected = self._base_kwargs.get(key, base.defaults.get(key, _UNSET))
                if value is expected or (expected is not _UNSET and _equal(value, expected)):
                    continue
                raise ValueError(f"BlockOptimizer.step: base_optimizer.param_groups[{index}][{key!r}] was "
                                 f"edited to {value!r:.40}; the base optimizer's groups follow "
                                 f"BlockOptimizer.param_groups[0]: edit that instead")

    def _refuse_edited_defaults(self) -> None:
        """``defaults`` as built: no step reads it (the hyperparameters live in ``param_groups[0]``), so an
        entry edited, added or removed after construction (``defaults['lr'] = nan``,
        ``defaults['bogus'] = 1``) was stored and ignored in silence (red23a); refused by name, as
        Muon/Shampoo/SOAP refuse theirs."""
        built = self.__dict__.get("_built_defaults")
        if built is None:       # an old pickle
            return
        for key in sorted(set(built) | set(self.defaults), key=str):
            if key in _TORCH_DEFAULT_FLAGS and key not in built:    # torch's __setstate__ adds it
                continue
            now, then = self.defaults.get(key, _UNSET), built.get(key, _UNSET)
            if not (now is then or (type(now) is type(then) and _equal(now, then))):
                raise ValueError(f"BlockOptimizer.step: defaults[{key!r}] was changed after construction "
                                 f"(built {then if then is not _UNSET else 'without it'!r:.40}, now "
                                 f"{now if now is not _UNSET else 'removed'!r:.40}); no step reads defaults: "
                                 f"set lr / expansion_lr_scale / the base's keywords in param_groups[0]")

    def step(self, closure=None):  # type: ignore[override]
        """One base step on the active block; switch to the next block after ``switch_every``.

        ``closure`` (optional): a function (not a class) that re-evaluates the loss with gradients and
        returns it, a tensor of one element or a real number (None, a str, a dict, a generator or a tensor
        of several entries is refused naming closure).
        """
        loss = None
        if closure is not None:
            check_closure(closure)      # a class (closure=dict) was called and its {} returned
            with torch.enable_grad():
                loss = checked_loss(call_user("closure()", closure, keep=CLOSURE_OWN_ERRORS))
        check_params_lists("BlockOptimizer.step", self.param_groups)
        self._refuse_edited_defaults()
        own = self.param_groups[0]
        lr, scale = own["lr"], own["expansion_lr_scale"]     # a scheduler or a user may have edited them
        if not (type(lr) is float and type(scale) is float and WORKING_MIN <= lr <= LR_MAX
                and WORKING_MIN <= scale and lr * scale <= LR_MAX):   # the common case, checked for free
            try:
                _check_rates(own["lr"], own["expansion_lr_scale"])
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"BlockOptimizer.step: param_groups[0]['lr'] (or ['expansion_lr_scale']) was "
                                f"set to an invalid value: {exc}") from None
        trained = {id(p) for block in self._blocks for p in block}
        if len(own["params"]) != len(trained) or any(id(p) not in trained for p in own["params"]):
            # a tensor appended to the group's params was never stepped, in silence (the blocks are fixed)
            raise ValueError("BlockOptimizer.step: param_groups[0]['params'] was edited; its blocks were "
                             "fixed at construction (a tensor added there would never move): build a new "
                             "BlockOptimizer over all the parameters")
        self._adopt_edited_keywords(own)
        self._check_base_groups(own)
        if any(self.state.values()):     # torch's own state of this wrapper: no step reads it
            raise ValueError("BlockOptimizer.step: its state was written to (BlockOptimizer keeps none: the "
                             "active block's moments are in base_optimizer.state), and it would be ignored")
        if not self.__dict__.get("_nonfinite_stepped", False):
            # a NaN the documented NaN-through step put in the state is not a write through .data: the
            # next step blamed the user for it
            check_state_finite("BlockOptimizer (its base optimizer)", self._base_optimizer,
                               allow_inf=True)
        check_state_layout("BlockOptimizer (its base optimizer)", self._base_optimizer)
        self._lr_handed = own["lr"]
        for group in self._base_optimizer.param_groups:
            group["lr"] = own["lr"]
            for p in group["params"]:
                if p.grad is not None and p.grad.is_sparse:  # before the base's own, unnamed, error
                    raise SparseGradientError(
                        f"BlockOptimizer does not support sparse gradients: a parameter of shape "
                        f"{tuple(p.shape)} of the active block has one (e.g. from nn.Embedding(sparse=True));"
                        " use dense gradients")
        stepped = [p.grad for group in self._base_optimizer.param_groups for p in group["params"]
                   if p.grad is not None and p.grad.numel()]
        if stepped and not bool(torch.stack([n.to(torch.float64) for n in torch._foreach_norm(stepped, 2)])
                                .isfinite().all()):
            self._nonfinite_stepped = True      # the base state now holds what the NaN/inf gradient made
        step_base("BlockOptimizer (its base optimizer)", self._base_optimizer)   # records its state keys
        self._block_step += 1
        if self._block_step >= self.switch_every:
            self._switch()
        return loss

    def state_dict(self) -> dict[str, Any]:
        """torch's groups, the active block's base state (``base``) and the schedule position."""
        out = super().state_dict()
        out["base"] = clone_tensors(self._base_optimizer.state_dict())  # a snapshot, not the live moments
        out["schedule"] = {"epoch": self._epoch, "position": self._position, "block_step": self._block_step,
                           "num_blocks": self.num_blocks, "order": self.order, "seed": self.seed,
                           "block_names": [list(block) for block in self.block_names],
                           "block_shapes": [[list(p.shape) for p in block] for block in self._blocks]}
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``BlockOptimizer.state_dict()`` of the same blocks: ``state_dict`` is checked (keys, block
        names, the base optimizer's state) before anything is loaded.

        The learning rate steps use is the saved top-level ``state_dict['param_groups'][0]['lr']``: the
        base groups' saved ``lr`` (``state_dict['base']['param_groups'][i]['lr']``) is only the last value
        handed to the base optimizer, which an LR scheduler may have changed since, and the next step
        replaces it with the top-level one (edit that one to change the rate). The base groups' other
        keywords must equal the top-level group's (one edited there is refused by name at the next step).
        """
        if not isinstance(state_dict, dict) or any(k not in state_dict for k in _SAVED_KEYS):
            got = (f"one without {sorted(set(_SAVED_KEYS) - set(state_dict))}" if isinstance(state_dict, dict)
                   else type(state_dict).__name__)
            raise ValueError(f"state_dict must be a BlockOptimizer.state_dict() (with 'state', "
                             f"'param_groups', 'base' and 'schedule'), got {got}")
        extra = sorted(str(k) for k in set(state_dict) - set(_SAVED_KEYS))
        if extra:   # a misspelt 'lrr' beside them loaded in silence
            raise ValueError(f"state_dict has keys {extra} that no BlockOptimizer.state_dict() has (it holds "
                             f"{list(_SAVED_KEYS)})")
        for key, kind in (("state", dict), ("param_groups", list), ("base", dict)):
            if not isinstance(state_dict[key], kind):   # a str met "'str' object has no attribute 'items'"
                raise TypeError(f"state_dict[{key!r}] must be a {kind.__name__}, got "
                                f"{type(state_dict[key]).__name__} {state_dict[key]!r:.40}")
        schedule = state_dict["schedule"]
        if not isinstance(schedule, dict):
            raise TypeError(f"state_dict['schedule'] must be a dict (the block position), got "
                            f"{type(schedule).__name__} {schedule!r:.40}")
        self._check_own_groups(state_dict)
        self._check_same_base(state_dict["base"])
        _check_saved_layout(schedule)
        saved_names = schedule.get("block_names")
        self._check_own_ids(state_dict["param_groups"][0].get("params"), saved_names)
        if saved_names is not None and saved_names != self.block_names:
            if not self._covers(saved_names):
                raise ValueError(f"state_dict is for other blocks (another parameter group layout): its "
                                 f"['schedule']['block_names'] {saved_names!r:.120} are not this optimizer's "
                                 f"{self.block_names!r:.120}")
            self._adopt_blocks(saved_names)
        if schedule.get("num_blocks") != self.num_blocks:
            raise ValueError(f"state_dict is for {schedule.get('num_blocks')} blocks, this optimizer has "
                             f"{self.num_blocks}")
        self._check_block_shapes(schedule.get("block_shapes"))
        self._check_schedule(schedule)
        # the active block is block_order(epoch)[position] under the saving run's order: another order (or a
        # random order's other seed) put its base state onto a different block, in silence
        if "seed" in schedule:   # NaN, -1 or a tensor loaded in silence under a fixed order (red20a)
            check_seed(schedule["seed"], "state_dict['schedule']['seed']")
        for key in ("order", "seed"):
            saved = schedule.get(key, getattr(self, key))     # absent in a state_dict saved before round 16
            if saved != getattr(self, key) and (key == "order" or self.order == "random"):
                own = getattr(self, key)
                raise ValueError(f"state_dict was saved by a BlockOptimizer with {key}={saved!r}, this one "
                                 f"has {key}={own!r}: its base state belongs to another block; build the "
                                 f"BlockOptimizer with {key}={saved!r}")
        self._check_base_state(state_dict["base"], schedule)
        super().load_state_dict({k: v for k, v in state_dict.items() if k not in ("base", "schedule")})
        self._epoch = int(schedule["epoch"])
        self._position = int(schedule["position"])
        self._block_step = int(schedule["block_step"])
        self._check_base_shapes(state_dict["base"])
        self._activate()
        self._base_optimizer.load_state_dict(state_dict["base"])
        self._lr_handed = self._base_optimizer.param_groups[0]["lr"]

    def _check_own_ids(self, ids: Any, saved_names: Any) -> None:
        """The saved group's parameter ids 0..n-1 in order, n the parameters of the saved block layout, as
        ``state_dict()`` writes them: fewer met torch's "doesn't match the size of optimizer's group" naming
        nothing, and a reordered or out-of-range list was loaded in silence."""
        saved = isinstance(saved_names, list) and all(isinstance(b, list) for b in saved_names)
        if saved_names is not None and not (saved and (saved_names == self.block_names
                                                       or self._covers(saved_names))):
            return      # another layout (or not a list of lists): refused next, naming block_names
        expected = list(range(sum(len(block) for block in (saved_names if saved else self.block_names))))
        if not (isinstance(ids, list | tuple) and list(ids) == expected):
            raise ValueError(f"state_dict['param_groups'][0]['params'] must be the parameter ids "
                             f"0..{len(expected) - 1} in order (as state_dict() writes them), got "
                             f"{ids!r:.80}")

    def _check_own_groups(self, state_dict: dict[str, Any]) -> None:
        """The saved group's ``lr`` > 0 and ``expansion_lr_scale`` > 0, as the constructor checks them."""
        groups = state_dict.get("param_groups")
        if not isinstance(groups, list) or len(groups) != 1 or not isinstance(groups[0], dict):
            raise ValueError(f"state_dict['param_groups'] must hold the one parameter group of a "
                             f"BlockOptimizer, got {groups!r:.80}")
        for key in ("lr", "expansion_lr_scale"):
            if key not in groups[0]:
                raise ValueError(f"state_dict['param_groups'][0] lacks {key!r}")
        where = "state_dict['param_groups'][0]"
        _check_rates(groups[0]["lr"], groups[0]["expansion_lr_scale"], f"{where}['lr']",
                     f"{where}['expansion_lr_scale']")

    def _check_same_base(self, base_state: dict[str, Any]) -> None:
        """The saved base optimizer's keywords (its groups' keys) are this base's: a state saved under SGD was
        loaded into an AdamW-based BlockOptimizer, and the next step blamed an edit nobody made (red23a)."""
        groups = base_state.get("param_groups")
        if not (isinstance(groups, list) and groups and isinstance(groups[0], dict)):
            return      # the base state's own checks name it
        live = self._base_optimizer.param_groups[0]
        own = sorted(str(k) for k in live if k != "params" and k not in EXTRA_GROUP_KEYS)
        saved = sorted(str(k) for k in groups[0] if k != "params" and k not in EXTRA_GROUP_KEYS)
        if saved != own:
            raise ValueError(f"state_dict was saved under another base optimizer: its ['base'] group has the "
                             f"keywords {saved}, this BlockOptimizer's base {self.base.__name__} has {own}; "
                             f"load it into a BlockOptimizer built with the same base")

    def _check_base_state(self, base_state: Any, schedule: dict[str, Any]) -> None:
        """The saved base optimizer's state, for the block the saved schedule makes active, before anything
        is loaded: the shared check (finite floating buffers of the parameters' shapes, step counts, ids,
        group count) and its groups' hyperparameters through the base class's own constructor (torch's
        ``load_state_dict`` loads ``lr = nan`` or ``weight_decay = -1`` as they are)."""
        if not isinstance(base_state, dict):
            raise TypeError(f"state_dict['base'] must be the base optimizer's state_dict (a dict), got "
                            f"{type(base_state).__name__}")
        active = self._blocks[self.block_order(int(schedule["epoch"]))[int(schedule["position"])]]
        check_optimizer_state(base_state, [{"params": active}], "state_dict['base']")
        check_saved_hyperparameters(self.base, base_state["param_groups"], "state_dict['base']")

    def _check_schedule(self, schedule: dict[str, Any]) -> None:
        """The saved schedule position is one this optimizer can be at (an edited position of 99 reached an
        index error inside the next step)."""
        limits = {"epoch": (None, ""), "position": (self.num_blocks, "the number of blocks"),
                  "block_step": (self.switch_every, "switch_every")}
        for key, (limit, what) in limits.items():
            name = f"state_dict['schedule'][{key!r}]"
            value = check_int_at_least(name, schedule.get(key), 0, size=False)
            if limit is not None and value >= limit:
                raise ValueError(f"{name} must be < {limit} ({what}), got {value}")

    def _check_block_shapes(self, saved: Any) -> None:
        """The saved parameters' shapes (kept since #43 round 4) are this model's: a state_dict of a model
        with the same names but other widths is refused by name, even when its base state is empty (a
        block switch resets it) and nothing else would show the mismatch."""
        if saved is None:  # a state_dict written before the shapes were kept
            return
        if len(saved) != len(self._blocks) or any(len(s) != len(b) for s, b in zip(saved, self._blocks)):
            return  # another block layout: torch's parameter-group check names that mismatch
        for names, params, shapes in zip(self.block_names, self._blocks, saved, strict=False):
            for name, p, shape in zip(names, params, shapes, strict=False):
                if list(p.shape) != list(shape):
                    raise ValueError(f"state_dict: parameter {name!r} had shape {tuple(shape)} when it was "
                                     f"saved, this model's has shape {tuple(p.shape)}")

    def _check_base_shapes(self, base_state: Any) -> None:
        """Every per-parameter tensor of the saved base state has its parameter's shape (torch checks
        only the counts, and a moment of another width fails later inside the base's step)."""
        if issubclass(self.base, MatrixOptimizer):
            return      # Shampoo's/SOAP's statistics are stacks of tiles: their own load checks each by name
        active = self._blocks[self.active_block]
        groups = base_state.get("param_groups", []) if isinstance(base_state, dict) else []
        order = [i for g in groups for i in g.get("params", [])]
        for index, entries in (base_state.get("state", {}) if isinstance(base_state, dict) else {}).items():
            if index not in order or order.index(index) >= len(active) or not isinstance(entries, dict):
                continue
            p = active[order.index(index)]
            for key, value in entries.items():
                if isinstance(value, torch.Tensor) and value.ndim > 0 and value.shape != p.shape:
                    raise ValueError(f"state_dict: the saved base state {key!r} of parameter "
                                     f"{self.block_names[self.active_block][order.index(index)]!r} has shape "
                                     f"{tuple(value.shape)}, the parameter has {tuple(p.shape)} (a state of "
                                     "another model)")

    def _covers(self, saved_names: Any) -> bool:
        """Whether a saved layout trains every parameter this optimizer trains, plus only parameters it
        was given frozen (the layout of the optimizer whose model this one's is a copy of)."""
        try:
            saved = {n for block in saved_names for n in block}
        except TypeError:
            return False
        mine = {n for block in self.block_names for n in block}
        return mine < saved and saved <= set(self._every_named)

    def _adopt_blocks(self, saved_names: Any) -> None:
        """Rebuild the block layout a state_dict was saved with, from the parameters given to the
        constructor (frozen ones included: a BlockOptimizer freezes its inactive blocks, so a copy of
        its model shows fewer trainable parameters than the original optimizer had)."""
        if not (isinstance(saved_names, list) and all(isinstance(b, list) and b for b in saved_names)):
            raise ValueError(f"state_dict['schedule']['block_names'] must be a list of lists of names, "
                             f"got {saved_names!r:.80}")
        unknown = [n for block in saved_names for n in block if n not in self._every_named]
        if unknown:
            raise ValueError(f"state_dict is for blocks over parameters this optimizer was not given: "
                             f"{unknown[:8]}")
        self.remove_hooks()
        self._block_names = [list(block) for block in saved_names]
        self._blocks = [[self._every_named[n] for n in block] for block in self._block_names]
        self.param_groups[0]["params"] = [p for block in self._blocks for p in block]
        self._install_hooks()


# ----------------------------------------------------------------------------- solve
@dataclass(frozen=True)
class BlockCoordinateDescent(Algorithm):
    """BCD / BREAD finetuning through ``solve``: a :class:`BlockOptimizer` over AdamW on a FinetuneTask.

    Fields are the optimizer's (``blocks`` as in :func:`find_blocks`, ``weight_decay`` AdamW's, a finite float
    >= 0 with lr·weight_decay <= 1 (the float product); ``lr``, ``expansion_lr_scale``, ``switch_every`` with
    :class:`BlockOptimizer`'s domains); the solve ``seed`` seeds the batches and the ``"random"`` order. Loop,
    convergence criterion and retcodes: :func:`algorithms.optimizers.finetune.run_finetune`. ``optimizer``
    builds the optimizer with :class:`BlockOptimizer`'s keywords (default :class:`BlockOptimizer`; another
    implementation of its interface, e.g. BAdam's behind an adapter, trains under the same loop; one whose
    step() needs a closure is refused naming it, as the loop calls step() after backward). ``lr`` (> 0,
    in [1.18e-38, 1e10]) and ``expansion_lr_scale`` (> 0, at least 1.18e-38) are finite floats with β =
    expansion_lr_scale·lr <= 1e10 (β moves the inactive blocks when ``expansion`` is not ``"none"``; the cap
    keeps a step finite: a larger scale is refused naming it), ``switch_every`` an int >= 1, ``weight_decay``
    a finite float >= 0 with lr·weight_decay <= 1 (the float product; decoupled decay multiplies the
    weights by 1 − lr·weight_decay: e.g. 2**64 at lr 1e-3 is refused naming both), ``order`` one of
    ``ORDERS`` and ``expansion`` one of ``EXPANSIONS``. An exception the built optimizer's ``step`` raises
    other than TypeError/ValueError/RuntimeError is re-raised as ``UserCallableError`` naming that step.

    >>> from algorithms import solve
    >>> from algorithms.optimizers.finetune import markov_finetune_task
    >>> task = markov_finetune_task(vocab_size=8, context=4, n=16, width=16, depth=2, pretrain_steps=5)
    >>> solve(task, BlockCoordinateDescent(lr=1e-2, switch_every=5, expansion="sgd"), maxiters=0).retcode
    <RetCode.MaxIters: 'MaxIters'>
    """

    lr: float = 1e-3
    switch_every: int = 50
    order: str = "ascending"
    expansion: str = "none"
    expansion_lr_scale: float = 1.0
    weight_decay: float = 0.0
    blocks: tuple | None = None
    optimizer: Any = None

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        _check_rates(self.lr, self.expansion_lr_scale)   # lr in (0, 1e10], lr · expansion_lr_scale <= 1e10
        check_positive_int("switch_every", self.switch_every)
        if isinstance(self.optimizer, type) and issubclass(self.optimizer, torch.optim.Optimizer) \
                and not issubclass(self.optimizer, BlockOptimizer):
            raise TypeError(f"optimizer must build a BlockOptimizer from BlockOptimizer's keywords; "
                            f"{self.optimizer.__name__} is a torch optimizer class, pass it as the base "
                            "instead: optimizer=functools.partial(BlockOptimizer, base=...)")
        if self.optimizer is not None and not callable(self.optimizer):
            raise TypeError(f"optimizer must be None or a callable with BlockOptimizer's keywords, got "
                            f"{type(self.optimizer).__name__}")
        if self.optimizer is not None:
            keywords = dict.fromkeys(("blocks", "switch_every", "order", "expansion", "expansion_lr_scale",
                                      "lr", "seed", "weight_decay"))
            check_call_signature("optimizer", self.optimizer, "optimizer(model, blocks=..., "
                                 "switch_every=..., order=..., expansion=..., expansion_lr_scale=..., "
                                 "lr=..., seed=..., weight_decay=...)", None, **keywords)
        if not is_choice(self.order, ORDERS):
            raise ValueError(f"order must be one of {list(ORDERS)}, got {self.order!r}")
        if not is_choice(self.expansion, EXPANSIONS):
            raise ValueError(f"expansion must be one of {list(EXPANSIONS)}, got {self.expansion!r}")
        check_positive("expansion_lr_scale", self.expansion_lr_scale)   # > 0, as BlockOptimizer
        # AdamW's decoupled decay multiplies the weights by 1 − lr·weight_decay: the optimizer's own rule, now
        # (weight_decay = 2**64 was accepted here and refused at solve)
        check_real_keywords({"weight_decay": check_nonnegative("weight_decay", self.weight_decay)}, "",
                            self.lr)
        if self.blocks is not None and (isinstance(self.blocks, str) or not isinstance(self.blocks, tuple)):
            raise TypeError(f"blocks must be None or a tuple of patterns / name lists, got {self.blocks!r}")
        if self.blocks is not None:   # name lists as tuples: the algorithm stays hashable, as documented
            blocks = tuple(tuple(b) if isinstance(b, list) else b for b in self.blocks)
            object.__setattr__(self, "blocks", blocks)


@_dispatch
def _solve(problem: FinetuneTask, algorithm: BlockCoordinateDescent, options: SolveOptions) -> Solution:
    for checked in (problem, algorithm):    # a field replaced after construction (the task too)
        revalidate_if_reassigned(checked)
    build = BlockOptimizer if algorithm.optimizer is None else algorithm.optimizer

    def make(model: torch.nn.Module, seed: int) -> torch.optim.Optimizer:
        return build(model, blocks=algorithm.blocks, switch_every=algorithm.switch_every,
                              order=algorithm.order, expansion=algorithm.expansion,
                              expansion_lr_scale=algorithm.expansion_lr_scale, lr=algorithm.lr, seed=seed,
                              weight_decay=algorithm.weight_decay)

    return run_finetune(problem, make, options, desc=f"BCD({algorithm.expansion})")


def _check_saved_layout(schedule: dict[str, Any]) -> None:
    """A loaded schedule's ``block_names`` (a list of lists of str) and ``block_shapes`` (a list of lists of
    shapes, each a list of ints) as state_dict writes them, when present, else a ValueError naming the key (as
    for a tuple): None or 'x' skipped the layout
    check in silence, -1 met "object of type 'int' has no len()" (red20c)."""
    for key, leaf in (("block_names", str), ("block_shapes", list)):
        if key not in schedule:
            continue
        value = schedule[key]
        ok = isinstance(value, list) and all(
            isinstance(block, list) and all(isinstance(entry, leaf) for entry in block) for block in value)
        if ok and leaf is list:
            ok = all(isinstance(n, int) and not isinstance(n, bool) for block in value for shape in block
                     for n in shape)
        if not ok:
            what = "lists of parameter names" if leaf is str else "lists of shapes (lists of ints)"
            raise ValueError(f"state_dict['schedule'][{key!r}] must be a list of {what}, as state_dict "
                             f"writes it, got {type(value).__name__} {value!r:.60}")
