"""DesignX's two agents as small torch modules.

Agent 1 (:class:`WorkflowGenerator`, π_φ): the 13 problem features are embedded into a start
token; module tokens are embedded (a learned table over :data:`~algorithms.blackbox.grammar.TOKENS`),
cosine positional codes are added, a causal Transformer encoder (GPT-2 style, ``layers``
blocks, ``heads`` heads, width ``hidden``) reads the prefix and a linear head gives logits over
the modules and the end token. Illegal tokens (``allowed_next`` of the prefix) get −∞ before
the softmax, so every sampled workflow obeys the grammar; the workflow's log-probability is
the sum of the steps' (the paper's Eq. 2).

Agent 2 (:class:`HyperparameterController`, π_θ): each module of the workflow is embedded as
(module embedding + linear map of the 9 progress features O_t) + cosine position; a
Transformer encoder mixes them; for each CONTROLLABLE module a head gives the mean (sigmoid)
and log standard deviation of a Normal over ``N_MAX = 3`` numbers, decoded to the module's
hyperparameters by :func:`~algorithms.blackbox.grammar.decode_action`; a value head (mean-pooled)
is the PPO critic.

References
----------
H. Guo et al. DesignX. NeurIPS 2025, arXiv:2505.17866 (Sections 3.2.1, 3.2.2, Eqs. 1-6).

>>> import torch
>>> torch.manual_seed(0) and None
>>> a1 = WorkflowGenerator()
>>> wf, logp, _ = a1.sample(torch.zeros(13), generator=torch.Generator().manual_seed(0))
>>> from algorithms.blackbox.grammar import validate
>>> validate(wf) == wf
True
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from algorithms._modules import (
    CheckedStateModule,
    check_structure,
    fix_attributes,
    refuse_reassignment,
    remember_structure,
)
from algorithms._validation import (
    GLOBAL_RNG_LOCK,
    LAYER_OVERHEAD_BYTES,
    allocates,
    as_real_array,
    check_bool,
    check_entries_in_range,
    check_finite_real,
    check_fits_memory,
    check_positive_int,
    check_seed,
    refuse_sparse,
    to_float,
)
from algorithms.blackbox.features import N_FEATURES
from algorithms.blackbox.grammar import CONFIG_SPACE, END, MODULES, N_MAX, TOKENS, allowed_next, validate


class FeatureOverflowError(ValueError):
    """Features too large for Agent 1's float32 network: its logits came out NaN or inf."""


def _features(features) -> torch.Tensor:
    """The problem's feature vector: N_FEATURES finite reals (a wrong length reached torch's reshape
    message, NaN torch.distributions' logits check)."""
    # as_real_array: a complex tensor cast to float32 would lose its imaginary part without a word
    refuse_sparse("features", features)
    array = as_real_array("features", features)
    # (n,) or one row (1, n): a (13, 1) column was flattened in silence
    if array.shape not in ((N_FEATURES,), (1, N_FEATURES)):
        raise ValueError(f"features must hold the {N_FEATURES} problem features, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("features contains NaN or inf entries")
    # float64: each agent converts them to its own dtype (a float32 detour rounded a float64 agent's features)
    return torch.as_tensor(array, dtype=torch.float64)


def _checked_features(features) -> torch.Tensor:
    """``_features`` with a fast path for what ``sample`` passes on (a finite float32 tensor of 13)."""
    # not an inference-mode tensor (torch: "Inference tensors cannot be saved for backward"): the full path
    # a meta or sparse tensor too: the full path names it (isfinite raised torch's own errors)
    if (isinstance(features, torch.Tensor) and features.dtype == torch.float32 and not features.is_inference()
            and features.layout == torch.strided and features.device.type != "meta"
            and features.shape == (N_FEATURES,) and bool(torch.isfinite(features).all())):
        return features
    return _features(features)


def check_agent_weights(module: nn.Module, name: str) -> None:
    """An agent whose weights hold data: on a real device, float32 or float64, finite (NaN weights reached
    torch.distributions' "Expected parameter logits ... to satisfy the constraint"; a float16 agent ran), its
    layers as built (agent.feature = nn.Linear(3, 3) met torch's "mat1 and mat2 shapes cannot be multiplied")
    and of one dtype (one layer made float64 met torch's dtype mismatch), entries of magnitude <= 3.4e38."""
    check_structure(module)   # shapes and one dtype
    for key, tensor in module.named_parameters():
        if tensor.device.type == "meta":
            raise ValueError(f"{name} has its parameter {key!r} on the meta device (no data)")
        if tensor.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name}'s parameter {key!r} has dtype {tensor.dtype}: only float32 or float64 "
                            f"agents run (convert with .float() or .double())")
        if not bool(torch.isfinite(tensor.detach()).all()):
            raise ValueError(f"{name}'s parameter {key!r} contains NaN or inf entries")
        # a float64 agent's weight of 1e39 written in place was used (load_state_dict refuses it)
        check_entries_in_range(f"{name}'s parameter {key!r}", tensor)
    for key, tensor in module.named_buffers():   # the positions `pos` written NaN gave NaN outputs (red20a)
        if tensor.is_floating_point() and tensor.device.type != "meta":
            if not bool(torch.isfinite(tensor).all()):
                raise ValueError(f"{name}'s buffer {key!r} contains NaN or inf entries")
            check_entries_in_range(f"{name}'s buffer {key!r}", tensor)


def _check_prefix(prefix) -> tuple[str, ...]:
    """A prefix of tokens (module names, "end"): an unknown one was a bare KeyError."""
    if isinstance(prefix, str) or not isinstance(prefix, Sequence):
        raise TypeError(f"prefix must be a sequence of module names, got {type(prefix).__name__} "
                        f"{prefix!r:.40}")
    unknown = [t for t in prefix if not isinstance(t, str) or t not in _INDEX]
    if unknown:
        raise ValueError(f"prefix holds {unknown[0]!r}, which is not a module of the space (or 'end')")
    if len(prefix) > MAX_LEN:
        raise ValueError(f"prefix must hold at most {MAX_LEN} tokens, got {len(prefix)}")
    return tuple(prefix)


__all__ = ["N_OBS", "HyperparameterController", "WorkflowGenerator", "cosine_positions"]

N_OBS = 9
MAX_LEN = 12
_INDEX = {t: i for i, t in enumerate(TOKENS)}


@allocates("n", "hidden")
def cosine_positions(n: int, hidden: int) -> torch.Tensor:
    """Sinusoidal position codes, shape ``(n, hidden)`` (Vaswani et al. 2017); ``n`` and ``hidden``
    positive ints, hidden even (sizes whose codes exceed this machine's memory are refused by name).

    >>> cosine_positions(3, 4).shape
    torch.Size([3, 4])
    """
    check_positive_int("n", n)
    if check_positive_int("hidden", hidden) % 2:
        raise ValueError(f"hidden must be even, got {hidden}")
    # torch's arange and the (n, hidden) codes, before any is built: n = 2**31 ran on (a hang)
    check_fits_memory("cosine_positions", "n" if n >= hidden else "hidden", max(n, hidden),
                      12.0 * float(n) * float(hidden) + 8.0 * (n + hidden))
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    i = torch.arange(0, hidden, 2, dtype=torch.float32)
    angle = pos / (10000 ** (i / hidden))
    out = torch.zeros(n, hidden)
    out[:, 0::2] = torch.sin(angle)
    out[:, 1::2] = torch.cos(angle[:, : hidden // 2])
    return out


def _encoder(hidden: int, heads: int, layers: int) -> nn.TransformerEncoder:
    layer = nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=2 * hidden, dropout=0.0,
                                       batch_first=True, norm_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


@contextlib.contextmanager
def _initial_weights(seed: Any):
    """torch's global generator (``seed=None``, torch's convention), or a private one seeded with ``seed``
    (the global generator forked: left where it was)."""
    if seed is None:
        yield
        return
    seed = check_seed(seed)
    # the lock: another thread seeding the global generator meanwhile changed the weights
    with GLOBAL_RNG_LOCK, torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def _check_sizes(hidden: int, heads: int, layers: int, owner: str) -> None:
    check_positive_int("hidden", hidden)
    check_positive_int("heads", heads)
    check_positive_int("layers", layers)
    if hidden % heads or hidden % 2:
        raise ValueError(f"hidden must be even and divisible by heads, got hidden={hidden}, heads={heads}")
    # the encoder's layers are built one at a time: layers = 10**9 ran on for hours (a hang) before any
    # allocation failed; each holds about 8·hidden² float32 weights and a dozen torch objects
    # named by the larger factor of the bytes (hidden = 2**31 with one layer was blamed on layers)
    name, value = ("layers", layers) if layers * 12 * LAYER_OVERHEAD_BYTES >= 32.0 * hidden * hidden \
        else ("hidden", hidden)
    n_bytes = float(layers) * (32.0 * hidden * hidden + 12 * LAYER_OVERHEAD_BYTES)
    check_fits_memory(owner, name, value, n_bytes)


class _Agent(CheckedStateModule):
    """The agents' base: ``hidden`` (the width the layers were built with, and what ``save_agents`` records)
    is fixed once built (agent.hidden = 64 was kept: a checkpoint saved then recorded the wrong size)."""

    def __setattr__(self, name: str, value: Any) -> None:
        refuse_reassignment(self, name, value, ("hidden",))
        super().__setattr__(name, value)


class WorkflowGenerator(_Agent):
    """Agent 1: problem features -> a grammar-valid workflow, token by token.

    ``hidden``, ``heads``, ``layers``: the transformer's width, attention heads and depth (positive ints,
    hidden even and divisible by heads; sizes whose weights exceed this machine's memory are refused by name).
    ``seed``: None (default) or an int in [0, 2**64). None draws the initial weights from torch's global
    generator, as torch's own modules do (so ``torch.manual_seed`` decides them, and it advances); an int
    draws them from a private generator seeded with it, leaving the global one untouched.
    """

    @allocates("hidden", "heads", "layers")
    def __init__(self, hidden: int = 32, heads: int = 2, layers: int = 1, *, seed: int | None = None) -> None:
        super().__init__()
        _check_sizes(hidden, heads, layers, "WorkflowGenerator")
        self.hidden = int(hidden)
        with _initial_weights(seed):
            self.feature = nn.Linear(N_FEATURES, hidden)
            self.token = nn.Embedding(len(TOKENS), hidden)
            self.body = _encoder(hidden, heads, layers)
            self.head = nn.Linear(hidden, len(TOKENS))
        self.register_buffer("pos", cosine_positions(MAX_LEN + 1, hidden), persistent=False)
        remember_structure(self)   # a layer replaced by one of another shape is refused at use
        if type(self) is WorkflowGenerator:   # a user's subclass sets its own attributes after this __init__
            fix_attributes(self)   # a misspelt public name set later is refused (stored and ignored before)

    def logits(self, features: torch.Tensor, prefix: Sequence[str]) -> torch.Tensor:
        """Unmasked next-token logits after ``prefix``, shape ``(len(TOKENS),)``.

        ``features`` is the problem's feature vector, a finite real tensor or array of length ``N_FEATURES``
        (shape (N_FEATURES,) or (1, N_FEATURES); converted to the agent's dtype); ``prefix`` any sequence of
        at most ``MAX_LEN`` known tokens, grammatical or not: the network is defined on every token sequence,
        and the unmasked logits are what a sampler without the grammar's mask draws from (the
        ``designx.workflows_valid`` claim's control); :meth:`masked_distribution` is the one that requires a
        valid prefix.
        """
        features, prefix = _checked_features(features), _check_prefix(prefix)
        check_agent_weights(self, "WorkflowGenerator")   # NaN weights written in place answered NaN logits
        # the parameters' dtype: float64 under torch.set_default_dtype(torch.float64) ("mat1 and mat2 ...")
        start = self.feature(features.reshape(1, N_FEATURES).to(self.feature.weight.dtype))
        if prefix:
            ids = torch.tensor([_INDEX[t] for t in prefix])
            seq = torch.cat([start, self.token(ids)], 0)
        else:
            seq = start
        n = seq.shape[0]
        seq = (seq + self.pos[:n])[None]
        causal = torch.triu(torch.full((n, n), float("-inf")), 1)
        logits = self.head(self.body(seq, mask=causal)[0, -1])
        if not bool(torch.isfinite(logits).all()):
            # features of 1e37 (inside the working range) overflowed the float32 activations: torch's
            # Categorical then refused its NaN logits with a message naming no argument
            largest = float(features.detach().abs().max())
            raise FeatureOverflowError(
                f"features (largest magnitude {largest:.3g}) overflow Agent 1's float32 network: its logits "
                f"are not finite; the agents were trained on features of order 1 (BBOB's [-5, 5]^d)")
        return logits

    def masked_distribution(self, features: torch.Tensor, prefix: Sequence[str]
                            ) -> torch.distributions.Categorical:
        """The next-token distribution after the valid ``prefix``, restricted to what the grammar allows.

        ``features`` is the problem's feature vector, a finite float tensor of length ``N_FEATURES``.
        """
        allowed = allowed_next(prefix)
        if len(prefix) >= MAX_LEN - 1 and END in allowed:
            allowed = frozenset({END})
        mask = torch.tensor([t in allowed for t in TOKENS])
        logits = self.logits(features, prefix).masked_fill(~mask, float("-inf"))
        return torch.distributions.Categorical(logits=logits)

    def sample(self, features: torch.Tensor, *, generator: torch.Generator | None = None, greedy: bool = False
               ) -> tuple[tuple[str, ...], torch.Tensor, torch.Tensor]:
        """A workflow, its log-probability (with gradient) and the summed entropy.

        ``features`` is the problem's feature vector, a finite float tensor of length ``N_FEATURES``;
        ``generator`` a ``torch.Generator`` or None (torch's global one); ``greedy`` (bool) takes the
        most likely token at each step instead of sampling.
        """
        greedy = check_bool("greedy", greedy)
        check_agent_weights(self, "WorkflowGenerator")
        if generator is not None and not isinstance(generator, torch.Generator):   # torch's own message
            raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
        features = _features(features)
        prefix: list[str] = []
        logp = torch.zeros(())
        entropy = torch.zeros(())
        while True:
            dist = self.masked_distribution(features, prefix)
            if greedy:
                k = int(torch.argmax(dist.probs))
            else:
                k = int(torch.multinomial(dist.probs, 1, generator=generator))
            logp = logp + dist.log_prob(torch.tensor(k))
            entropy = entropy + dist.entropy()
            token = TOKENS[k]
            if token == END:
                return tuple(prefix), logp, entropy
            prefix.append(token)

    def log_prob(self, features: torch.Tensor, workflow: Sequence[str]) -> torch.Tensor:
        """log π_φ(workflow | features), the sum over the steps including the end token; a workflow the
        grammar rejects raises its ``InvalidWorkflowError`` (its probability is 0: −inf came back)."""
        features = _features(features)
        workflow = validate(workflow)
        total = torch.zeros(())
        seq = [*workflow, END]
        for i, token in enumerate(seq):
            total = total + self.masked_distribution(features, seq[:i]).log_prob(torch.tensor(_INDEX[token]))
        return total


class HyperparameterController(_Agent):
    """Agent 2: (workflow, progress features O_t) -> Normal over each controllable module's actions.

    ``hidden``, ``heads``, ``layers`` positive ints (hidden even and divisible by heads) and ``seed`` None or
    an int in [0, 2**64), as :class:`WorkflowGenerator`'s (``seed=None``: torch's global generator, as
    torch's modules; an int: a private one, the global generator untouched).
    """

    @allocates("hidden", "heads", "layers")
    def __init__(self, hidden: int = 32, heads: int = 2, layers: int = 1, *, seed: int | None = None) -> None:
        super().__init__()
        _check_sizes(hidden, heads, layers, "HyperparameterController")
        self.hidden = int(hidden)
        with _initial_weights(seed):
            self.module = nn.Embedding(len(MODULES), hidden)
            self.obs = nn.Linear(N_OBS, hidden)
            self.body = _encoder(hidden, heads, layers)
            self.mu = nn.Linear(hidden, N_MAX)
            self.log_std = nn.Linear(hidden, N_MAX)
            self.value = nn.Linear(hidden, 1)
        self.register_buffer("pos", cosine_positions(MAX_LEN, hidden), persistent=False)
        remember_structure(self)
        if type(self) is HyperparameterController:   # a user subclass: its own attributes
            fix_attributes(self)   # a misspelt public name set later is refused (stored and ignored before)

    def forward(self, workflow: Sequence[str], obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor,
                                                                             torch.Tensor]:
        """Means (in (0, 1)) and stds (0.5·exp of the log-std head clamped to [-4, 0], so in
        [0.5·e^-4, 0.5]) for the controllable modules, shape ``(T, M_c, N_MAX)``, and
        values ``(T,)``, for a batch of observations ``obs`` of shape ``(T, 9)``.

        ``workflow`` is the workflow's module names (a sequence of str, as :meth:`WorkflowGenerator.sample`
        returns); ``obs`` finite progress features, shape (T, 9) or (9,), of any real dtype (converted to the
        agent's); T = 0 gives empty outputs (shapes (0, M_c, N_MAX) and (0,)).
        """
        workflow = validate(workflow)  # an unknown module reached tuple.index's message
        check_agent_weights(self, "HyperparameterController")
        refuse_sparse("obs", obs)
        obs = as_real_array("obs", obs)
        if obs.ndim not in (1, 2) or obs.shape[-1] != N_OBS or not np.all(np.isfinite(obs)):
            raise ValueError(f"obs must be finite progress features of shape (T, {N_OBS}) or ({N_OBS},), got "
                             f"shape {obs.shape}{'' if np.all(np.isfinite(obs)) else ' with NaN or inf'}")
        obs = torch.as_tensor(obs, dtype=self.obs.weight.dtype).reshape(-1, N_OBS)   # float64 modules too
        ids = torch.tensor([MODULES.index(m) for m in workflow])
        x = self.module(ids)[None] + self.obs(obs)[:, None, :] + self.pos[: len(workflow)][None]
        h = self.body(x)
        ctrl = torch.tensor([i for i, m in enumerate(workflow) if m in CONFIG_SPACE], dtype=torch.long)
        hc = h[:, ctrl]
        mean = torch.sigmoid(self.mu(hc))
        std = torch.exp(torch.clamp(self.log_std(hc), -4.0, 0.0)) * 0.5
        return mean, std, self.value(h.mean(1)).squeeze(-1)


def initial_log_std_bias(model: HyperparameterController, value: float = math.log(0.3)) -> None:
    """Set the log-std head's bias (a starting exploration level for training): ``value`` a finite real
    (the std is 0.5·exp(clamp(·, -4, 0)), so values outside [-4, 0] act as the nearer end)."""
    if not isinstance(model, HyperparameterController):
        raise TypeError(f"model must be a HyperparameterController, got {type(model).__name__}")
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real) \
            or not math.isfinite(to_float(value)):   # NaN filled the bias, and every std of Agent 2 was NaN
        raise ValueError(f"value must be a finite real number, got {value!r}")
    # inside the working range: 1e300 met torch's "value cannot be converted to type float without overflow"
    value = check_finite_real("value", value)
    with torch.no_grad():
        model.log_std.bias.fill_(value)
