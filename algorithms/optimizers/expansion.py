"""Low-rank landscape expansion (BREAD-LoRA): a trainable correction C = U V on a frozen linear map.

Proposition 4.1 of Luo et al. (2025) resolves the suboptimality of a BCD sub-problem by a
rank-1 update of the frozen output layer; Algorithm 1 (BREAD-LoRA) trains such low-rank
corrections of the inactive layers together with the active block. :class:`LowRankExpansion`
wraps an ``nn.Linear`` (its weight W, shape (out, in), and bias stay as they are) and computes

    y = x (W + U V)ᵀ + b,         U ∈ R^{out×r} (zero at start),  V ∈ R^{r×in} (Kaiming uniform),

so at initialization it is the wrapped layer exactly (C = 0), as in the paper's Appendix B.
:meth:`LowRankExpansion.merged_weight` gives W + U V. Train ``U``/``V`` with any optimizer
(a separate AdamW in Algorithm 1, its state kept across block switches).

References
----------
Q. Luo, Y. Shen, L. Peng, D. Li, X. Li. Accelerating Block Coordinate Descent for LLM
Finetuning via Landscape Expansion. NeurIPS 2025, Proposition 4.1, Algorithm 1, Appendix B.

>>> layer = torch.nn.Linear(3, 2)
>>> wrapped = LowRankExpansion(layer, rank=1, seed=0)
>>> x = torch.randn(4, 3)
>>> bool(torch.equal(wrapped(x), layer(x)))        # C = U V = 0 at initialization
True
>>> [name for name, p in wrapped.named_parameters() if p.requires_grad]
['U', 'V']
"""

from __future__ import annotations

import math

import torch

from algorithms._modules import CheckedStateModule, check_structure, fix_attributes, remember_structure
from algorithms._validation import (
    allocates,
    check_bool,
    check_device,
    check_entries_in_range,
    check_finite_data,
    check_positive_int,
    check_seed,
    outside_inference,
)
from algorithms.optimizers.models import check_parameter_dtypes

__all__ = ["LowRankExpansion"]


class LowRankExpansion(CheckedStateModule):
    """``LowRankExpansion(linear, rank, seed=0, freeze=True)``: ``linear`` plus a rank-``rank`` correction.

    ``rank`` an int in [1, min(in_features, out_features)]; ``seed`` an int in [0, 2**64) (draws the
    correction's initial factors); ``freeze=True`` sets ``requires_grad=False`` on the wrapped layer's own
    parameters (the inactive block of BCD); ``in_features``/``out_features`` are those of ``linear``.
    """


    _FIXED = ("in_features", "out_features", "rank")

    @allocates("rank")
    def __init__(self, linear: torch.nn.Linear, rank: int, seed: int = 0, freeze: bool = True) -> None:
        super().__init__()
        if not isinstance(linear, torch.nn.Linear):
            raise TypeError(f"linear must be a torch.nn.Linear, got {type(linear).__name__}")
        if any(isinstance(q, torch.nn.parameter.UninitializedParameter) for q in linear.parameters()):
            # a LazyLinear before its first forward: torch's "Attempted to use an uninitialized parameter"
            raise ValueError("linear has uninitialized (lazy) parameters; run a forward through it first so "
                             "torch sizes them")
        if linear.weight.device.type == "meta":
            raise ValueError("linear is on the meta device (no data); materialize it first")
        check_parameter_dtypes(linear, "linear")    # a complex or float16 layer was taken and used
        for name, tensor in linear.named_parameters():     # a NaN weight made every forward NaN, in silence
            if tensor.is_floating_point() and not bool(torch.isfinite(tensor.detach()).all()):
                raise ValueError(f"linear has NaN or inf entries in its {name}")
            if tensor.is_floating_point():      # and a weight of 1e300 is outside the working range
                check_entries_in_range(f"linear's {name}", tensor)
        rank = check_positive_int("rank", rank)
        if rank > min(linear.in_features, linear.out_features):
            raise ValueError(f"rank must be <= min(in_features, out_features) = "
                             f"{min(linear.in_features, linear.out_features)}, got {rank}")
        seed = check_seed(seed)
        freeze = check_bool("freeze", freeze)     # np.True_ (from arr.any()) is a bool too
        self.linear = linear
        self.in_features, self.out_features, self.rank = linear.in_features, linear.out_features, rank
        dtype = linear.weight.dtype
        gen = torch.Generator().manual_seed(seed)
        bound = math.sqrt(6.0 / linear.in_features)          # Kaiming uniform for V (fan-in)
        self.U = torch.nn.Parameter(torch.zeros(linear.out_features, rank, dtype=dtype))
        self.V = torch.nn.Parameter((torch.rand(rank, linear.in_features, generator=gen, dtype=dtype)
                                     * 2 - 1) * bound)
        if freeze:
            for p in linear.parameters():
                p.requires_grad_(False)
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def merged_weight(self) -> torch.Tensor:
        """W + U V, the corrected weight (shape (out_features, in_features))."""
        check_structure(self)
        return self.linear.weight + self.U @ self.V

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(W + UV) x + b for ``x`` a tensor of shape (*, in_features) of the layer's dtype and device, with
        finite entries (NaN/inf, meta, another shape or dtype are refused naming x).
        Finite entries so large that a layer overflows the dtype (near 3.4e38 in float32) give inf
        outputs, as any torch layer does. The weights (``linear``'s, ``U``, ``V``) are the layer's own state,
        used as they are, as torch's layers use theirs: NaN/inf, or a float64 entry past 3.4e38, written
        into one gives NaN/inf or outputs as large, not an error."""
        # nn.Linear's convention (*, in_features), checked here: torch's matmul errors name no argument
        check_structure(self)       # e.linear / e.U replaced by another shape: torch's matmul error before
        check_parameter_dtypes(self, "LowRankExpansion")     # .half() or complex after construction
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if x.ndim == 0 or x.shape[-1] != self.in_features:
            raise ValueError(f"x must have shape (*, {self.in_features}) (in_features), got {tuple(x.shape)}")
        if x.dtype != self.V.dtype:
            raise TypeError(f"x must have dtype {self.V.dtype} (the layer's parameters), got {x.dtype}")
        check_device("x", x, self.V)
        check_finite_data("x", x)
        x = outside_inference(x)    # an inference-mode input: torch could not save it for backward
        low = (x @ self.V.T) @ self.U.T
        if not bool(torch.isfinite(low).all()):
            # the factored product overflowed (x Vᵀ past the dtype's top, near 3.4e38 in float32): with U = 0
            # (at initialization) inf · 0 gave NaN where the wrapped layer is finite, breaking "the wrapped
            # layer exactly"; through the merged weight it is (W + U V) x + b, inf only where that overflows
            return torch.nn.functional.linear(x, self.merged_weight(), self.linear.bias)
        return self.linear(x) + low
