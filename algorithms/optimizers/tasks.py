"""A tiny language-modelling task on generated text: a seeded Markov chain over a small vocabulary.

Each row of the transition matrix puts its mass on a few tokens (a Dirichlet draw over
``branching`` random successors), so the chain's entropy rate H — the least next-token
cross-entropy any model can reach — is well below log(vocab_size) and known exactly. A model's
excess loss (loss − H) is then an absolute measure of training progress.

Nothing is downloaded: the text is sampled from the chain with an explicit ``torch.Generator``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import torch
from torch import nn

from algorithms._validation import (
    call_user,
    check_count,
    check_fits_memory,
    check_positive,
    check_positive_int,
    check_seed,
    checked_fields,
    revalidate_if_reassigned,
    store_plain_scalars,
)
from algorithms.core import Problem

__all__ = ["MarkovLanguageTask"]

#: a model's own errors that pass as they are (the package's models name their argument; torch's
#: RuntimeError for a shape mismatch names the layer); any other exception of a user's forward is wrapped
_MODEL_OWN_ERRORS = (TypeError, ValueError, RuntimeError)


#: the largest Dirichlet concentration: numpy's gamma draws of shape 1e308 are no longer a law (1e308 was
#: accepted); past 1e12 a draw is the uniform law to float64's precision anyway
CONCENTRATION_MAX = 1e12


@dataclass(frozen=True)
class MarkovLanguageTask(Problem):
    """Next-token prediction on sequences of a random Markov chain.

    ``vocab_size`` (int >= 2) tokens; each has ``branching`` main successors (an int in [1, vocab_size])
    with Dirichlet(``concentration``) transition probabilities (``concentration`` a float > 0 in
    [1.18e-38, 1e12]); sequences hold ``context`` + 1 tokens (``context`` an int >= 1); ``seed`` (int in
    [0, 2**64)) draws the chain. Each row is mixed with 2 % uniform mass (0.98 · Dirichlet + 0.02 /
    vocab_size: the chain stays irreducible), so every token can follow every other and the entropy rate is
    above 0 even with ``branching=1``.

    >>> task = MarkovLanguageTask(vocab_size=8, context=6, branching=2, seed=0)
    >>> tokens = task.sample(4, torch.Generator().manual_seed(0))
    >>> tokens.shape, bool(0 < task.entropy_rate() < np.log(8))
    (torch.Size([4, 7]), True)
    """

    vocab_size: int = 32
    context: int = 16
    branching: int = 4
    concentration: float = 1.0
    seed: int = 0

    @checked_fields
    def __post_init__(self) -> None:
        store_plain_scalars(self)   # np.float32(0.1) stored as 0.1
        check_count("vocab_size", self.vocab_size, 1)  # the transition matrix is dense, vocab_size²
        check_count("context", self.context, 1)  # sample() fills n × (context + 1) tokens, one column a step
        check_positive_int("branching", self.branching)
        if self.vocab_size < 2:
            raise ValueError(f"vocab_size must be >= 2, got {self.vocab_size}")
        # the dense transition matrix, its cumulative sums and the eigendecomposition's copies (vocab_size²
        # float64 each): 2**20 reached numpy's MemoryError in entropy_rate()/sample()
        check_fits_memory("MarkovLanguageTask", "vocab_size", self.vocab_size, 8.0 * 4 * self.vocab_size**2)
        if self.branching > self.vocab_size:
            raise ValueError(f"branching must be <= vocab_size={self.vocab_size}, got {self.branching}")
        if check_positive("concentration", self.concentration) > CONCENTRATION_MAX:
            raise ValueError(f"concentration must be <= {CONCENTRATION_MAX:g} (past it every Dirichlet draw "
                             f"is the uniform law to float64 precision), got {self.concentration!r}")
        check_seed(self.seed)

    @cached_property
    def transition(self) -> np.ndarray:
        """Row-stochastic (vocab_size, vocab_size) matrix: P[i, j] = Pr(next = j | current = i), read-only."""
        rng = np.random.default_rng(self.seed)
        matrix = np.zeros((self.vocab_size, self.vocab_size))
        for i in range(self.vocab_size):
            successors = rng.choice(self.vocab_size, size=self.branching, replace=False)
            matrix[i, successors] = rng.dirichlet(np.full(self.branching, self.concentration))
        # a little mass everywhere keeps the chain irreducible (one stationary law)
        matrix = 0.98 * matrix + 0.02 / self.vocab_size
        matrix.setflags(write=False)    # cached: a caller's edit changed the task (entropy, samples)
        return matrix

    @cached_property
    def stationary(self) -> np.ndarray:
        values, vectors = np.linalg.eig(self.transition.T)
        pi = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
        pi = pi / pi.sum()
        pi.setflags(write=False)        # cached, as transition
        return pi

    def entropy_rate(self) -> float:
        """H = −Σ_i π_i Σ_j P_ij log P_ij (nats): the floor of the next-token loss."""
        revalidate_if_reassigned(self)   # a field replaced with object.__setattr__ since
        p = self.transition
        return float(-(self.stationary[:, None] * p * np.log(p)).sum())

    def sample(self, n: int, generator: torch.Generator) -> torch.Tensor:
        """``n`` sequences of ``context + 1`` tokens (inputs are [:, :-1], targets [:, 1:]).

        ``generator`` is the ``torch.Generator`` the draw uses; ``n`` an int >= 1.
        """
        revalidate_if_reassigned(self)   # a field replaced with object.__setattr__ since
        n = check_positive_int("n", n)
        check_fits_memory("MarkovLanguageTask.sample", "n", n, 8.0 * n * (self.context + 1))
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        cumulative = torch.as_tensor(np.cumsum(self.transition, axis=1))
        start = torch.tensor(self.stationary)  # a copy: the cached array is read-only (torch warns)
        tokens = torch.empty(n, self.context + 1, dtype=torch.long)
        tokens[:, 0] = torch.multinomial(start, n, replacement=True, generator=generator)
        for t in range(self.context):
            u = torch.rand(n, 1, generator=generator, dtype=torch.float64)
            tokens[:, t + 1] = torch.searchsorted(cumulative[tokens[:, t]], u).squeeze(1).clamp(
                max=self.vocab_size - 1)
        return tokens

    def _check_tokens(self, tokens: Any) -> torch.Tensor:
        """``tokens`` as :meth:`sample` writes them: an integer tensor (n, L >= 2) with values in
        [0, vocab_size), as int64. A float, bool, 1-D or one-column tensor reached torch's one_hot/indexing
        errors, and out-of-range tokens its "Class values must be smaller than num_classes"."""
        if not isinstance(tokens, torch.Tensor):
            raise TypeError(f"tokens must be a torch.Tensor of token ids (from sample()), got "
                            f"{type(tokens).__name__}")
        if tokens.layout != torch.strided:   # torch's min() on a sparse tensor named nothing
            raise TypeError(f"tokens must be a dense tensor of token ids, got layout {tokens.layout}")
        if tokens.dtype == torch.bool or tokens.is_floating_point() or tokens.is_complex():
            raise TypeError(f"tokens must hold integer token ids, got dtype {tokens.dtype}")
        if tokens.ndim != 2 or tokens.shape[0] == 0 or tokens.shape[1] < 2:
            raise ValueError(f"tokens must have shape (n, L) with n >= 1 and L >= 2 (inputs [:, :-1], "
                             f"targets [:, 1:]), got {tuple(tokens.shape)}")
        if tokens.device.type == "meta":
            raise ValueError("tokens is on the meta device (no data); move it to a real device")
        if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size):
            raise ValueError(f"tokens must lie in [0, vocab_size) = [0, {self.vocab_size}), got values in "
                             f"[{int(tokens.min())}, {int(tokens.max())}]")
        return tokens.long()

    def loss(self, model: nn.Module, tokens: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy (nats) of ``model`` on ``tokens``.

        A model with a ``vocab_size`` attribute (the :class:`~algorithms.optimizers.Transformer`)
        reads token sequences; any other (an :class:`~algorithms.optimizers.MLP` with
        ``in_features = out_features = vocab_size``) reads the one-hot current token.
        """
        revalidate_if_reassigned(self)   # a field replaced with object.__setattr__ since
        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        tokens = self._check_tokens(tokens)
        # copies: a model writing into the batch it is given wrote through into the caller's tokens and the
        # targets read after it (red20c)
        inputs, targets = tokens[:, :-1].clone(), tokens[:, 1:].clone()
        if getattr(model, "vocab_size", None) is not None:
            if model.vocab_size != self.vocab_size:
                raise ValueError(f"model reads a vocabulary of {model.vocab_size} tokens, the task has "
                                 f"vocab_size = {self.vocab_size}")
            logits = call_user("model(tokens)", model, inputs, keep=_MODEL_OWN_ERRORS)
        else:
            width = getattr(model, "in_features", None)
            if width is not None and width != self.vocab_size:   # the one-hot input has vocab_size columns
                raise ValueError(f"model must take the one-hot current token (in_features = vocab_size = "
                                 f"{self.vocab_size}), got in_features = {width}")
            dtype = next(model.parameters()).dtype
            one_hot = nn.functional.one_hot(inputs.reshape(-1), self.vocab_size).to(dtype)
            logits = call_user("model(one_hot)", model, one_hot, keep=_MODEL_OWN_ERRORS)
        if not (isinstance(logits, torch.Tensor) and logits.is_floating_point()):
            # a tuple met "'tuple' object has no attribute 'shape'"; int logits "does not require grad"
            shown = f"a {logits.dtype} tensor" if isinstance(logits, torch.Tensor) else type(logits).__name__
            raise TypeError(f"model's forward must return a floating tensor of logits, got {shown}")
        if logits.shape[-1] != self.vocab_size:  # a reshape would mix the rows of the targets in silence
            raise ValueError(f"model must output vocab_size = {self.vocab_size} logits per token (the "
                             f"task's), "
                             f"got {logits.shape[-1]}")
        return nn.functional.cross_entropy(logits.reshape(-1, self.vocab_size).float(), targets.reshape(-1))
