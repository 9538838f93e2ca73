"""Guided reverse sampling of the VP SDE (Algorithm 2 of the paper, predictor–corrector form).

The reverse-time SDE with the guided score (eq. (17)), on t from 1 down to t_min in ``n_steps``
steps of length Δ, starts at x ~ N(0, I) and alternates

* predictor (reverse diffusion, Euler–Maruyama):
  x ← x + [½η(t) x + η(t) (s(x, t) + G_t(x))] Δ + √(η(t) Δ) z,
* corrector (``corrector_steps`` Langevin steps at the new time, Song et al. 2020b):
  x ← x + ε ŝ + √(2ε) z with ŝ the guided score and ε = 2 e^{−ηΔ} (snr ‖z‖ / ‖ŝ‖)²
  (norms averaged over the batch),

with z standard normal; the last predictor step adds no noise. ``G_t`` is the guidance of
:func:`algorithms.chance.guidance.guidance_term` (none, first or second order).

>>> import torch
>>> from algorithms.chance.diffusion import GaussianScore, VPSchedule
>>> model = GaussianScore([2.0], [0.5], VPSchedule())
>>> run = guided_reverse_sample(model, lambda x: x[:, 0], n_samples=2000, beta=1.0, guidance="none",
...                             n_steps=100, seed=0)
>>> run.status, round(float(run.x.mean()), 1), round(float(run.x.std()), 1)
('completed', 2.0, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from algorithms._validation import (
    CheckedRecord,
    call_user,
    check_bool,
    check_choice,
    check_count,
    check_entries_in_range,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_seed,
    check_takes,
    refuse_sparse,
)
from algorithms.chance.diffusion import ScoreModel, _check_dtype, check_score_model
from algorithms.chance.guidance import GUIDANCE_ORDERS, _beta, guidance_term

__all__ = ["ReverseRun", "guided_reverse_sample"]


@dataclass(eq=False)   # identity ==: the generated one compared arrays ("truth value ... ambiguous")
class ReverseRun(CheckedRecord):
    """The samples ``x`` (n_samples, n), the predictor ``steps`` taken (an int in [0, 2**63 - 1]) and why the
    run ended (``status``, one of ``STATUSES``): ``completed`` (reached t_min), ``stopped`` (the step cap came
    first), ``diverged`` (a non-finite entry or one beyond the divergence bound), ``terminated``
    (``on_step``). Checked when built and when a field is set (``run.status = "bogus"`` is refused); ``x``
    is the caller's own tensor, as :class:`~algorithms.core.Solution`'s ``x``: a write into it in place is
    not checked again."""

    x: torch.Tensor
    steps: int
    status: str

    #: why a run ends
    STATUSES = ("completed", "stopped", "diverged", "terminated")

    def __post_init__(self) -> None:   # a public record: built by hand, "done" or steps=-1 was kept
        if not isinstance(self.x, torch.Tensor):
            raise TypeError(f"x must be a torch.Tensor (the samples), got {type(self.x).__name__}")
        self.steps = check_int_at_least("steps", self.steps, 0)
        check_choice("status", self.status, self.STATUSES)
        # the samples as the sampler makes them: a dense real (n_samples, n) tensor with data, finite unless
        # the run diverged (a complex, bool, meta or 3-D x, or a NaN x of a "completed" run, was kept)
        refuse_sparse("x", self.x)
        if self.x.device.type == "meta":
            raise ValueError("x is on the meta device (no data); move it to a real device")
        if not self.x.is_floating_point():
            raise TypeError(f"x must be a real floating tensor (the samples), got dtype {self.x.dtype}")
        if self.x.ndim != 2:
            raise ValueError(f"x must have shape (n_samples, n), got {tuple(self.x.shape)}")
        if self.status != "diverged" and not bool(torch.isfinite(self.x.detach()).all()):
            raise ValueError(f"x has NaN or inf entries with status {self.status!r}: only a 'diverged' run "
                             f"ends on non-finite samples")
        if self.status != "diverged":   # a run that did not diverge stays inside its bound (<= 3.4e38)
            check_entries_in_range("x", self.x)
        self._checked()   # a field set later is checked alike (run.status = "bogus" was kept)


#: the largest sample count, predictor-step count and Langevin steps per predictor step a reverse run takes
#: (the paper samples hundreds with 100-1000 steps and 1 corrector step; at the caps a run takes hours)
MAX_SAMPLES = 10**6
MAX_REVERSE_STEPS = 10**5
MAX_CORRECTOR_STEPS = 1000


def guided_reverse_sample(
    model: ScoreModel,
    objective: Callable[[torch.Tensor], torch.Tensor],
    *,
    n_samples: int,
    beta: float,
    guidance: str = "second",
    posterior_variance: float | None = None,
    n_steps: int = 100,
    corrector_steps: int = 1,
    snr: float = 0.16,
    seed: int = 0,
    max_steps: int | None = None,
    divergence_bound: float = 1e6,
    on_step: Callable[[int, float, torch.Tensor], bool] | None = None,
    dtype: torch.dtype = torch.float64,
) -> ReverseRun:
    """Run the guided reverse SDE from N(0, I); see the module docstring for the steps.

    ``model`` is a :class:`ScoreModel` and ``objective`` maps (batch, n) to (batch,) with torch
    operations; ``n_samples`` (int >= 1) rows; ``beta`` (finite float > 0) and ``guidance`` (one of
    ``GUIDANCE_ORDERS``) and ``posterior_variance`` (float >= 0 or None; checked always, used by the
    second-order guidance only: "none" and "first" ignore it) as in :func:`guidance_term`;
    ``n_steps`` (int >= 1) predictor steps, ``corrector_steps`` (int >= 0; 0: no corrector) Langevin steps
    after each, ``snr`` (finite float > 0) the corrector's signal-to-noise ratio; ``seed`` an int in [0,
    2**64); ``max_steps`` (int >= 0 or None) stops the run ``stopped`` after that many predictor steps;
    ``divergence_bound`` (finite float > 0) the largest |entry| before ``diverged``; ``dtype`` a floating
    torch dtype.

    ``on_step(k, t, x)``, when given, is called after each predictor step (with a copy of the samples ``x``:
    writing into it does not change the run) and returns a bool: True ends
    the run ``terminated``; None is taken as False; anything else (a truthy "no") is a TypeError.
    ``n_samples`` an int in [1, MAX_SAMPLES] (10**6), ``n_steps`` in [1, MAX_REVERSE_STEPS] (10**5),
    ``corrector_steps`` in [0, MAX_CORRECTOR_STEPS] (1000; 0: no corrector): each run's time is linear in
    n_samples · n_steps · (1 + corrector_steps), hours at the caps and no use beyond them; ``max_steps``
    None or an int in [0, 2**63 - 1] (0 returns the starting noise, ``"stopped"``; past n_steps it stops
    nothing); ``beta``
    a finite float in [1.18e-38, 3.4e38]; ``snr`` and ``divergence_bound`` positive scales in [1.18e-38,
    3.4e38] (0, 1e-39 and 1e39 refused); ``posterior_variance`` None or in [0, 3.4e38]; ``dtype``
    torch.float32 or torch.float64.
    """
    if not isinstance(model, ScoreModel):
        raise TypeError(f"model must be a ScoreModel, got {type(model).__name__}")
    check_score_model(model)
    check_takes("objective", objective, "objective(x)", 1)
    n_samples = check_count("n_samples", n_samples, 1, MAX_SAMPLES, "MAX_SAMPLES: each sample is a row of "
                            "every step's tensors and Hessians")
    beta = _beta(beta)
    check_choice("guidance", guidance, GUIDANCE_ORDERS)
    n_steps = check_count("n_steps", n_steps, 1, MAX_REVERSE_STEPS, "MAX_REVERSE_STEPS: 2**40 steps ran on, "
                          "a hang")
    corrector_steps = check_count("corrector_steps", corrector_steps, 0, MAX_CORRECTOR_STEPS,
                                  "MAX_CORRECTOR_STEPS: Langevin steps after every predictor step")
    if on_step is not None:
        check_takes("on_step", on_step, "on_step(k, t, x)", 3)
    snr = check_positive("snr", snr)
    seed = check_seed(seed)   # the int: torch's manual_seed refused a numpy integer
    if max_steps is not None:   # a count: 1.5 was cut to 1, inf overflowed int()
        max_steps = check_int_at_least("max_steps", max_steps, 0)   # a count: 2**64 ran
    if posterior_variance is not None:
        check_nonnegative("posterior_variance", posterior_variance)
    divergence_bound = check_positive("divergence_bound", divergence_bound)
    _check_dtype(dtype)
    weights = model._parameter_dtype()
    if weights is not None and dtype != weights:   # the score's check named an x the caller never passed
        raise TypeError(f"dtype {dtype} differs from the model's parameters' dtype {weights}: the samples "
                        f"must have the model's dtype (pass dtype={weights}, or convert the model)")
    schedule = model.schedule
    generator = torch.Generator().manual_seed(seed)

    def guided_score(x: torch.Tensor, t: float) -> torch.Tensor:
        G, score = guidance_term(
            model, objective, x, t, beta=beta, order=guidance, posterior_variance=posterior_variance
        )
        return score + G

    def noise(shape) -> torch.Tensor:
        return torch.randn(shape, generator=generator, dtype=dtype)

    def diverged(x: torch.Tensor) -> bool:
        return not bool(torch.isfinite(x).all()) or float(x.abs().max()) > divergence_bound

    # the guidance differentiates the objective: inside a caller's torch.inference_mode() it raised torch's
    # "element 0 of tensors does not require grad" (no_grad was already handled by guidance_term)
    with torch.inference_mode(False), torch.enable_grad():
        x = noise((n_samples, model.out_features))
        delta = (1.0 - schedule.t_min) / n_steps
        cap = n_steps if max_steps is None else min(n_steps, int(max_steps))
        for k in range(cap):
            t = 1.0 - k * delta
            eta = schedule.beta(t)
            last = k == n_steps - 1
            x = x + (0.5 * eta * x + eta * guided_score(x, t)) * delta
            if not last:
                x = x + math.sqrt(eta * delta) * noise(x.shape)
                t_next = t - delta
                for _ in range(corrector_steps):
                    # checked before each corrector step too: an x past the bound (3e41 with the bound at
                    # 3e38) reached the guidance's check of a user's x, a ValueError instead of "diverged"
                    if diverged(x):
                        return ReverseRun(x, k + 1, "diverged")
                    s = guided_score(x, t_next)
                    z = noise(x.shape)
                    ratio = z.norm(dim=1).mean() / s.norm(dim=1).mean().clamp_min(1e-30)
                    step = float(snr * ratio)   # snr = 1e308: ** 2 raised Python's OverflowError; * gives inf
                    eps = 2.0 * math.exp(-eta * delta) * step * step
                    x = x + eps * s + math.sqrt(2.0 * eps) * z
            if diverged(x):
                return ReverseRun(x, k + 1, "diverged")
            # a bool stops or continues (None continues): a truthy str such as "no" stopped the run
            # a copy: an on_step that wrote into x (x.fill_(0)) changed the run's state in silence
            stop = None if on_step is None else call_user("on_step(k, t, x)", on_step, k, t,
                                                          x.detach().clone())
            if stop is not None and check_bool("on_step(k, t, x)'s return value", stop):
                return ReverseRun(x, k + 1, "terminated")
        return ReverseRun(x, cap, "completed" if cap == n_steps else "stopped")
