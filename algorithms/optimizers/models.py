"""Width- and depth-parametrized models for optimizer scaling studies: a residual MLP and a small
causal transformer. Both are ``torch.nn.Module``s with ``in_features``/``out_features``, a seeded
init, and ``parameter_roles()`` naming each parameter's role for the scaling rules
(:mod:`algorithms.optimizers.scaling`):

``"input"``   the first matrix (fan-in fixed by the data, fan-out = width),
``"hidden"``  width × width-scaled matrices inside the residual blocks,
``"output"``  the read-out matrix (fan-in = width, fan-out fixed by the data),
``"vector"``  biases, layer-norm gains, positional/token embeddings tables count as ``"input"``.

Residual branches are multiplied by ``residual_multiplier`` (depth-μP uses base_depth/depth).
The read-out starts at zero (μP's choice, as in the paper's code), so the initial output is 0.

References
----------
G. Yang, E. Hu et al., *Tensor Programs V*, 2022 (μP); S. Qiu et al., *Hyperparameter Transfer
Enables Consistent Gains of Matrix-Preconditioned Optimizers Across Scales*, NeurIPS 2025
(residual branch multiplier 1/L for depth transfer).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from algorithms._modules import CheckedStateModule, check_structure, fix_attributes, remember_structure
from algorithms._validation import (
    LAYER_OVERHEAD_BYTES,
    allocates,
    check_device,
    check_finite_data,
    check_fits_memory,
    check_positive,
    check_positive_int,
    check_seed,
    is_choice,
    outside_inference,
)

__all__ = ["MLP", "Transformer"]

_DTYPES = (torch.float32, torch.float64, torch.bfloat16)


def _check_dtype(dtype) -> torch.dtype:
    if not is_choice(dtype, _DTYPES):     # an array compared elementwise: numpy's "ambiguous" error
        raise TypeError(f"dtype must be one of {_DTYPES}, got {type(dtype).__name__} {dtype!r:.60}")
    return dtype


def check_parameter_dtypes(module: nn.Module, name: str) -> None:
    """``module``'s parameters of a dtype its constructor takes (float32, float64, bfloat16): one converted
    after construction (``.half()``, ``.to(torch.complex64)``) ran in float16 in silence or met torch's
    "clamp is not supported for complex types"; refused naming the parameter and the dtype."""
    for key, p in module.named_parameters():
        if p.dtype not in _DTYPES:
            raise TypeError(f"{name}'s parameter {key!r} has dtype {p.dtype} (converted after "
                            f"construction?); it must be one of {_DTYPES}: convert the module with "
                            ".float() or .double()")


def _init_linear(layer: nn.Linear, generator: torch.Generator, std: float | None = None) -> None:
    std = 1.0 / math.sqrt(layer.in_features) if std is None else std
    with torch.no_grad():
        layer.weight.copy_(torch.randn(layer.weight.shape, generator=generator) * std)
        if layer.bias is not None:
            layer.bias.zero_()


#: the most residual blocks a model here is built with: blocks are built one by one (~0.25 ms each for an
#: MLP, ~2 ms for a transformer block on one core), so depth = 10**6 ran for minutes before any use
MAX_DEPTH = 10_000
#: the longest context of :class:`Transformer`: causal attention holds batch × heads × T² scores, 1 GiB
#: for a batch of 32 at T = 2048 (T = 10**6 asked for petabytes inside the first forward)
MAX_CONTEXT = 4096


def _check_depth(depth) -> int:
    depth = check_positive_int("depth", depth)
    if depth > MAX_DEPTH:
        raise ValueError(f"depth must be <= {MAX_DEPTH} (MAX_DEPTH: blocks are built one at a time, minutes "
                         f"past it), got {depth}")
    return depth


class MLP(CheckedStateModule):
    """x ↦ W_out h_L, h_0 = W_in x, h_ℓ = h_{ℓ−1} + m · relu(W_ℓ h_{ℓ−1}) (m = residual_multiplier).

    ``in_features``, ``out_features``, ``width`` and ``depth`` are ints >= 1 (``depth`` residual
    blocks, at most :data:`MAX_DEPTH` = 10000), ``seed`` (int in [0, 2**64)) draws the weights
    (torch's global generator untouched; the
    readout starts at 0), ``residual_multiplier`` is a finite float > 0 (the μP depth rule's 1/N is
    at most 1; a multiplier so large that the activations overflow the dtype makes ``forward``
    return inf, as any torch layer) and ``dtype`` float32 (default), float64 or bfloat16. The sizes, the
    seed and the multiplier are fixed by construction: assigning another value afterwards (``net.width =
    16`` would scale :func:`~algorithms.optimizers.param_groups`' learning rates for a width the weights
    do not have) raises ValueError naming the attribute.

    >>> net = MLP(in_features=5, out_features=3, width=16, depth=2, seed=0)
    >>> net(torch.ones(4, 5)).shape, net.width, net.depth
    (torch.Size([4, 3]), 16, 2)
    >>> net.parameter_roles()["blocks.0.weight"]
    'hidden'
    """


    _FIXED = ("in_features", "out_features", "width", "depth", "seed", "residual_multiplier")

    @allocates("in_features", "out_features", "width", "depth")
    def __init__(self, in_features: int, out_features: int, width: int, depth: int, seed: int = 0,
                 residual_multiplier: float = 1.0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.out_features = check_positive_int("out_features", out_features)
        self.width = check_positive_int("width", width)
        self.depth = _check_depth(depth)
        # the blocks are built one at a time: a depth past memory is refused before the loop (float32)
        owner = type(self).__name__
        check_fits_memory(owner, "width", width, 4.0 * width * width)  # one block past memory
        check_fits_memory(owner, "depth", depth, depth * (4.0 * width * width + LAYER_OVERHEAD_BYTES))
        self.seed = check_seed(seed)
        self.residual_multiplier = check_positive("residual_multiplier", residual_multiplier)
        generator = torch.Generator().manual_seed(self.seed)
        with torch.random.fork_rng(devices=[]):  # nn.Linear's default init draws from the global generator
            self.embed = nn.Linear(in_features, width, bias=False)
            self.blocks = nn.ModuleList(nn.Linear(width, width, bias=False) for _ in range(depth))
            self.readout = nn.Linear(width, out_features, bias=True)
        _init_linear(self.embed, generator, std=1.0)
        for block in self.blocks:
            _init_linear(block, generator)
        _init_linear(self.readout, generator, std=0.0)
        self.to(_check_dtype(dtype))
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Outputs (n, out_features) for ``x`` a finite tensor (n, in_features) of the model's dtype and
        device (NaN/inf, meta, another shape or dtype are refused naming x).
        Finite entries so large that a layer overflows the dtype (near 3.4e38 in float32) give inf
        outputs, as any torch layer does. The weights are the model's own state, used as they are, as
        torch's layers use theirs (the optimizers' documented NaN-through steps go on from them): NaN/inf,
        or a float64 entry past 3.4e38, written into one gives NaN/inf or outputs as large, not an
        error (the package's training loops report such a run ``Diverged``)."""
        check_structure(self)
        check_parameter_dtypes(self, "MLP")     # .half() or complex after construction
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
        if x.ndim != 2 or x.shape[1] != self.in_features:
            raise ValueError(f"x must have shape (n, {self.in_features}), got {tuple(x.shape)}")
        if x.dtype != self.embed.weight.dtype:
            raise TypeError(f"x must have dtype {self.embed.weight.dtype} (the model's parameters), "
                            f"got {x.dtype}")
        check_device("x", x, self.embed.weight)
        check_finite_data("x", x)     # torch answers NaN logits for a NaN input, in silence
        x = outside_inference(x)      # an inference-mode input: torch could not save it for backward
        h = self.embed(x)
        for block in self.blocks:
            h = h + self.residual_multiplier * torch.relu(block(h))
        return self.readout(h)

    def parameter_roles(self) -> dict[str, str]:
        roles = {"embed.weight": "input", "readout.weight": "output", "readout.bias": "vector"}
        roles.update({f"blocks.{i}.weight": "hidden" for i in range(self.depth)})
        return roles


class _Block(nn.Module):
    def __init__(self, width: int, n_heads: int, multiplier: float) -> None:
        super().__init__()
        self.n_heads, self.multiplier = n_heads, multiplier
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)
        self.fc1 = nn.Linear(width, 4 * width, bias=False)
        self.fc2 = nn.Linear(4 * width, width, bias=False)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        n, t, d = h.shape
        q, k, v = self.qkv(self.norm1(h)).reshape(n, t, 3, self.n_heads, d // self.n_heads).unbind(2)
        attn = nn.functional.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                          v.transpose(1, 2), is_causal=True)
        h = h + self.multiplier * self.proj(attn.transpose(1, 2).reshape(n, t, d))
        return h + self.multiplier * self.fc2(torch.relu(self.fc1(self.norm2(h))))


class Transformer(CheckedStateModule):
    """A pre-LN causal transformer over tokens: ``forward(tokens (n, T)) -> logits (n, T, vocab_size)``.

    ``in_features = out_features = vocab_size`` (a language model's input and output are tokens;
    its output has a sequence axis, unlike the package's (n, out_features) convention).
    ``vocab_size``, ``width``, ``depth``, ``n_heads`` and ``context`` (the longest sequence T) are ints
    >= 1, ``width`` a multiple of ``n_heads``, ``depth`` <= :data:`MAX_DEPTH` (10000) and ``context`` <=
    :data:`MAX_CONTEXT` (4096: attention is quadratic in T); ``seed`` (int in [0, 2**64)) draws the weights,
    ``residual_multiplier`` (finite float > 0; one so large that the activations overflow the dtype
    makes ``forward`` return inf, as any torch layer) scales each block's residual branch and ``dtype`` is
    float32 (default), float64 or bfloat16. These attributes are fixed by construction: assigning
    another value afterwards raises ValueError naming it (as for :class:`MLP`).

    >>> lm = Transformer(vocab_size=11, width=16, depth=2, n_heads=2, context=8, seed=0)
    >>> lm(torch.zeros(3, 8, dtype=torch.long)).shape
    torch.Size([3, 8, 11])
    """


    _FIXED = ("vocab_size", "in_features", "out_features", "width", "depth", "n_heads", "context", "seed",
              "residual_multiplier")

    @allocates("vocab_size", "width", "depth", "context")
    def __init__(self, vocab_size: int, width: int, depth: int, n_heads: int = 2, context: int = 32,
                 seed: int = 0, residual_multiplier: float = 1.0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.vocab_size = check_positive_int("vocab_size", vocab_size)
        self.in_features = self.out_features = self.vocab_size
        self.width = check_positive_int("width", width)
        self.depth = _check_depth(depth)
        self.n_heads = check_positive_int("n_heads", n_heads)
        if width % n_heads:
            raise ValueError(f"width must be a multiple of n_heads={n_heads}, got {width}")
        self.context = check_positive_int("context", context)
        if self.context > MAX_CONTEXT:
            raise ValueError(f"context must be <= {MAX_CONTEXT} (MAX_CONTEXT: causal attention holds "
                             f"batch × heads × context² scores), got {self.context}")
        # 12·width² parameters a block (attention 4·w², MLP 8·w²), built one at a time (float32)
        owner = type(self).__name__
        check_fits_memory(owner, "width", width, 48.0 * width * width)
        check_fits_memory(owner, "depth", depth, depth * (48.0 * width * width + 8 * LAYER_OVERHEAD_BYTES))
        self.seed = check_seed(seed)
        self.residual_multiplier = check_positive("residual_multiplier", residual_multiplier)
        generator = torch.Generator().manual_seed(self.seed)
        with torch.random.fork_rng(devices=[]):  # the layers' default inits draw from the global generator
            self.token_embedding = nn.Embedding(vocab_size, width)
            self.position_embedding = nn.Embedding(context, width)
            self.blocks = nn.ModuleList(_Block(width, n_heads, self.residual_multiplier)
                                        for _ in range(depth))
            self.norm = nn.LayerNorm(width)
            self.readout = nn.Linear(width, vocab_size, bias=False)
        with torch.no_grad():
            for table in (self.token_embedding, self.position_embedding):
                table.weight.copy_(torch.randn(table.weight.shape, generator=generator))
        for block in self.blocks:
            for layer in (block.qkv, block.proj, block.fc1, block.fc2):
                _init_linear(layer, generator)
        _init_linear(self.readout, generator, std=0.0)
        self.to(_check_dtype(dtype))
        remember_structure(self)
        fix_attributes(self)  # from here on a misspelt public name is refused (stored and ignored before)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits (n, T, vocab_size) for ``tokens`` an integer tensor (n, T) of ids in [0, vocab_size), 1 <=
        T <= context. The weights are the model's own state, used as they are, as torch's layers use theirs:
        NaN/inf, or a float64 entry past 3.4e38, written into one gives NaN/inf or logits as large, not an
        error (the package's training loops report such a run ``Diverged``).
        """
        check_structure(self)
        check_parameter_dtypes(self, "Transformer")     # .half() or complex after construction
        if not isinstance(tokens, torch.Tensor):
            raise TypeError(f"tokens must be a LongTensor of shape (n, T <= {self.context}), got "
                            f"{type(tokens).__name__}")
        if tokens.layout != torch.strided:   # torch's min() on a sparse tensor named nothing
            raise TypeError(f"tokens must be a dense LongTensor, got layout {tokens.layout}")
        if tokens.ndim != 2 or tokens.dtype != torch.long or not 1 <= tokens.shape[1] <= self.context:
            # T = 0 returned empty logits in silence: a sequence needs a token
            raise ValueError(f"tokens must be a LongTensor of shape (n, 1 <= T <= {self.context}), got "
                             f"{tuple(tokens.shape)} {tokens.dtype}")
        check_device("tokens", tokens, self.readout.weight)   # a meta tensor failed in .item() below
        # nn.Embedding's IndexError names neither tokens nor the vocabulary
        if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size):
            raise ValueError(f"tokens must lie in [0, vocab_size) = [0, {self.vocab_size}), got values in "
                             f"[{int(tokens.min())}, {int(tokens.max())}]")
        tokens = outside_inference(tokens)   # an inference-mode input: torch could not save it for backward
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        h = self.token_embedding(tokens) + self.position_embedding(positions)
        for block in self.blocks:
            h = block(h)
        return self.readout(self.norm(h))

    def parameter_roles(self) -> dict[str, str]:
        roles = {"token_embedding.weight": "input", "position_embedding.weight": "input",
                 "readout.weight": "output"}
        for name, p in self.named_parameters():
            if name.startswith("blocks.") or name.startswith("norm."):
                roles[name] = "hidden" if p.ndim == 2 else "vector"
        return roles
