"""Per-parameter learning-rate and weight-decay rules for scaling width and depth (μP-style).

A model tuned at a base width w₀ and depth L₀ is trained at width w and depth L by multiplying
each parameter's learning rate by a factor of the *ratios* d_in/d_in⁰, d_out/d_out⁰ (fan-in and
fan-out against the base model), n_blocks/n_blocks⁰ (preconditioner blocks per side) and
N = L/L₀. The factors (the paper's Table 1, as its official code implements it):

=================  ===========================================================
``"adamw"``        1 / d_in
``"muon"``         √(d_out / d_in)
``"shampoo"``      N^(1−2E) (d_out/d_in)^(1−E) (nb_in·nb_out)^(−E),  E = ½ (both sides
                   preconditioned with exponent ¼; E = ¼ when one side is left out)
``"soap"``         √(d_out/d_in) (nb_in·nb_out)^(−½)  (both sides preconditioned)
``"grafted_shampoo"``  1 / d_in  (Adam grafting fixes the step size)
=================  ===========================================================

Muon only takes the ``"hidden"`` matrices; the input/output matrices and vectors go to its
auxiliary AdamW and follow the AdamW rule. ``parametrization="standard"`` uses factor 1
everywhere (the usual practice, and the paper's "incorrect scaling"). Depth: residual branches
carry 1/N (:class:`~algorithms.optimizers.MLP`'s ``residual_multiplier``), and only Shampoo's
rule has an N factor. Independent weight decay (W ← (1 − λ) W per step, not multiplied by the
learning rate) scales as λ = λ₀ · w₀ / w (:func:`independent_weight_decay`).

References
----------
S. Qiu, Z. Chen, H. Phan, Q. Lei, A. G. Wilson, *Hyperparameter Transfer Enables Consistent
Gains of Matrix-Preconditioned Optimizers Across Scales*, NeurIPS 2025 (Table 1; Section 3 on
weight decay); code: ``charliezchen/scaling-matrix-preconditioning``, ``train.py`` (``assign_lr``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from torch import nn

from algorithms._validation import (
    check_bool,
    check_choice,
    check_nonnegative,
    check_positive,
    check_positive_int,
    is_choice,
)
from algorithms.optimizers._base import LR_MAX, LR_MIN, check_lr

__all__ = ["OPTIMIZER_RULES", "PARAMETRIZATIONS", "independent_weight_decay", "lr_multiplier",
           "param_groups"]

OPTIMIZER_RULES = ("adamw", "muon", "shampoo", "soap", "grafted_shampoo")
PARAMETRIZATIONS = ("mup", "standard")
_ROLES = ("input", "hidden", "output", "vector")


def _check_ratio(name: str, value: Any) -> float:
    """A ratio of widths, depths or block counts: a positive scale in the working range [1.18e-38, 3.4e38]
    (a subnormal ratio such as 1e-320 made the factor 1/ratio overflow to inf in silence; a product of two
    ratios, blocks_in · blocks_out, stays inside float64)."""
    return check_positive(name, value)


def lr_multiplier(optimizer: str, d_in_ratio: float, d_out_ratio: float, *, depth_ratio: float = 1.0,
                  blocks_in_ratio: float = 1.0, blocks_out_ratio: float = 1.0,
                  one_sided: bool = False) -> float:
    """The learning-rate factor of Table 1 for one matrix (all arguments are ratios to the base).

    ``optimizer`` is one of ``OPTIMIZER_RULES``; ``d_in_ratio`` > 0, ``d_out_ratio`` > 0, ``depth_ratio``
    > 0, ``blocks_in_ratio`` > 0 and ``blocks_out_ratio`` > 0 are floats in the working range
    [1.18e-38, 3.4e38] (a subnormal one overflowed the factor), and ratios whose factor overflows or
    underflows float64 (a product of ratios past ~1e308 or below ~1e-308) are refused naming them;
    ``one_sided`` a bool.

    ``one_sided`` says only one side of a Shampoo matrix is preconditioned (E = ¼).

    >>> lr_multiplier("adamw", 4.0, 4.0), lr_multiplier("muon", 1.0, 4.0)
    (0.25, 2.0)
    >>> lr_multiplier("shampoo", 4.0, 4.0, blocks_in_ratio=2.0, blocks_out_ratio=2.0)
    0.5
    """
    one_sided = check_bool("one_sided", one_sided)
    check_choice("optimizer", optimizer, OPTIMIZER_RULES)
    d_in = _check_ratio("d_in_ratio", d_in_ratio)
    d_out = _check_ratio("d_out_ratio", d_out_ratio)
    n = _check_ratio("depth_ratio", depth_ratio)
    blocks = _check_ratio("blocks_in_ratio", blocks_in_ratio) * _check_ratio(
        "blocks_out_ratio", blocks_out_ratio)
    factor = _factor(optimizer, d_in, d_out, n, blocks, one_sided)
    if not (0.0 < factor < math.inf):       # e.g. d_in_ratio = 1e-300 with blocks 1e-300 · 1e-300 = 0
        raise ValueError(f"lr_multiplier: the ratios d_in_ratio={d_in_ratio!r}, d_out_ratio={d_out_ratio!r}, "
                         f"depth_ratio={depth_ratio!r}, blocks_in_ratio={blocks_in_ratio!r}, "
                         f"blocks_out_ratio={blocks_out_ratio!r} give a factor outside float64's range "
                         f"({factor!r})")
    return factor


def _factor(optimizer: str, d_in: float, d_out: float, n: float, blocks: float, one_sided: bool) -> float:
    try:
        if optimizer in ("adamw", "grafted_shampoo"):
            return 1.0 / d_in
        if optimizer == "muon":
            return math.sqrt(d_out / d_in)
        if optimizer == "shampoo":
            e = 0.25 if one_sided else 0.5
            return n ** (1 - 2 * e) * (d_out / d_in) ** (1 - e) * blocks ** (-e)
        return math.sqrt(d_out / d_in) / math.sqrt(blocks)
    except (OverflowError, ZeroDivisionError):     # a power past float64 (Python raises), or 1/0
        return math.inf


def independent_weight_decay(base_weight_decay: float, width: int, base_width: int) -> float:
    """λ(w) = λ₀ · w₀ / w: the paper's near-optimal independent weight decay ∝ 1/width.

    ``base_weight_decay`` λ₀ is a finite float >= 0 (0: no decay), ``width`` w and ``base_width`` w₀ ints
    >= 1; a product that overflows is refused naming base_weight_decay.

    >>> independent_weight_decay(1e-3, width=512, base_width=128)
    0.00025
    """
    base_weight_decay = check_nonnegative("base_weight_decay", base_weight_decay)
    width = check_positive_int("width", width)
    # exact, rounded once (λ₀·w₀ then /w rounded twice, and w₀ past 2**53 once more as a float)
    decay = float(Fraction(base_weight_decay) * check_positive_int("base_width", base_width) / width)
    if not math.isfinite(decay):        # 1e308 · base_width overflowed to inf in silence
        raise ValueError(f"base_weight_decay · base_width / width overflows (got base_weight_decay="
                         f"{base_weight_decay!r}, base_width={base_width!r}, width={width!r})")
    return decay


def _blocks(dim: int, block_size: int | None) -> int:
    return 1 if block_size is None else -(-dim // block_size)     # an integer ceiling, exact


def param_groups(model: nn.Module, optimizer: str, lr: float, *, base_width: int,
                 base_depth: int | None = None, parametrization: str = "mup",
                 block_size: int | None = None) -> list[dict[str, Any]]:
    """One torch parameter group per parameter of ``model``, with its scaled ``lr``.

    ``base_depth`` (int >= 1, or None: the model's own, no depth scaling), ``parametrization`` one of
    ``PARAMETRIZATIONS`` and ``block_size`` (int >= 1 or None) Shampoo/SOAP's preconditioner block.

    ``lr`` 0 or in [1.18e-38, 1e10] (the optimizers' rule, see ``_base.LR_MIN``/``LR_MAX``; ``lr = 0``
    gives groups of lr 0, as a scheduler's warm-up from 0 does: each
    group's lr is ``lr`` times its multiplier, and an ``lr`` whose scaled group lr leaves [1.18e-38, 1e10]
    is refused naming lr and base_width, with the range that fits the model: e.g. 1.2e-38 with a
    multiplier of 0.5).

    ``model`` needs ``width``, ``depth`` and ``parameter_roles()`` (the family's
    :class:`~algorithms.optimizers.MLP` and :class:`~algorithms.optimizers.Transformer`): ``model.width``
    and ``model.depth`` ints >= 1 and ``parameter_roles()`` a dict giving every parameter name (and only
    those) one of the roles ``"input"``, ``"hidden"``, ``"output"``, ``"vector"`` (else TypeError/ValueError
    naming them). For
    ``optimizer="muon"`` each group also says ``use_muon`` (hidden matrices only). Each group
    carries ``name`` and ``role`` for reading.

    >>> from algorithms.optimizers.models import MLP
    >>> groups = param_groups(MLP(4, 4, width=64, depth=2), "adamw", 0.01, base_width=16)
    >>> {g["name"]: g["lr"] for g in groups}["blocks.0.weight"]      # 0.01 / (64 / 16)
    0.0025
    """
    check_choice("optimizer", optimizer, OPTIMIZER_RULES)
    check_choice("parametrization", parametrization, PARAMETRIZATIONS)
    lr = check_lr(lr)
    if block_size is not None:
        block_size = check_positive_int("block_size", block_size)
    for attribute in ("width", "depth", "parameter_roles"):
        if not hasattr(model, attribute):
            raise TypeError(f"model must have width, depth and parameter_roles() (an MLP or a "
                            f"Transformer of algorithms.optimizers), got {type(model).__name__}")
    # a duck-typed model's width True (read as 1), 64.5, NaN, 0 or "64" met arithmetic errors or ran (red20a)
    width = check_positive_int("model.width", model.width)
    depth = check_positive_int("model.depth", model.depth)
    width_ratio = width / check_positive_int("base_width", base_width)
    depth_ratio = 1.0 if base_depth is None else depth / check_positive_int("base_depth", base_depth)
    roles = model.parameter_roles()
    if not isinstance(roles, Mapping):   # a list met "'list' object has no attribute 'get'"
        raise TypeError(f"model.parameter_roles() must return a dict parameter name -> role, got "
                        f"{type(roles).__name__}")
    # a role for a name the model does not have (a misspelling) was dropped in silence (red23a)
    known = {name for name, _ in model.named_parameters(remove_duplicate=False)}   # tied aliases too
    unknown = sorted(map(str, set(roles) - known))
    if unknown:
        raise ValueError(f"model.parameter_roles() names {unknown}, which are not parameters of the model "
                         f"(misspelt?)")
    groups = []
    for name, p in model.named_parameters():
        if name not in roles:
            raise ValueError(f"parameter {name!r} has no role in model.parameter_roles()")
        role = roles[name]
        if not is_choice(role, _ROLES):   # 'bogus' was reported as "has no role"
            raise ValueError(f"model.parameter_roles() gives parameter {name!r} the role {role!r}, not "
                             f"one of {sorted(_ROLES)}")
        rule = "adamw" if optimizer == "muon" and role != "hidden" else optimizer
        factor = 1.0
        if parametrization == "mup" and p.ndim == 2:
            d_out, d_in = p.shape
            d_in_ratio = width_ratio if role in ("hidden", "output") else 1.0
            d_out_ratio = width_ratio if role in ("hidden", "input") else 1.0
            # an embedding table is stored (vocab, width): its fan-out is the width
            if isinstance(_owner(model, name), nn.Embedding):
                d_in, d_out = d_out, d_in
            base_in, base_out = round(d_in / d_in_ratio), round(d_out / d_out_ratio)
            factor = lr_multiplier(rule, d_in_ratio, d_out_ratio,
                                   depth_ratio=depth_ratio if role == "hidden" else 1.0,
                                   blocks_in_ratio=_blocks(d_in, block_size) / _blocks(base_in, block_size),
                                   blocks_out_ratio=_blocks(d_out, block_size)
                                   / _blocks(base_out, block_size))
        group = {"params": [p], "lr": _scaled_lr(lr, factor, name, rule, model.width, base_width),
                 "name": name, "role": role}
        if optimizer == "muon":
            group["use_muon"] = role == "hidden"
        groups.append(group)
    return groups


def _scaled_lr(lr: float, factor: float, name: str, rule: str, width: int, base_width: int) -> float:
    """``lr · factor``, refused naming lr and base_width when it leaves the optimizers' [LR_MIN, LR_MAX]:
    a valid lr of 1.2e-38 (or 1e10) scaled to 3e-39 (or 2e10) was refused at solve naming a number the user
    never passed, or went to torch's AdamW unrefused (a run of subnormal steps)."""
    scaled = lr * factor
    if scaled != 0.0 and not LR_MIN <= scaled <= LR_MAX:
        raise ValueError(f"lr = {lr!r} times the {rule!r} factor {factor:.4g} of parameter {name!r} (width "
                         f"{width} against base_width {base_width}) is {scaled:.4g}, outside the optimizers' "
                         f"learning rates [{LR_MIN:.4g}, {LR_MAX:g}]; pass an lr in "
                         f"[{max(LR_MIN, LR_MIN / factor):.4g}, {min(LR_MAX, LR_MAX / factor):.4g}] for this "
                         f"model and base_width")
    return scaled


def _owner(model: nn.Module, name: str) -> nn.Module:
    return model.get_submodule(name.rsplit(".", 1)[0]) if "." in name else model
