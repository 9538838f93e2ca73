"""GGDOpt: sample the product of the feasible-data distribution and a Boltzmann distribution.

The chance-constrained program is recast (Section 2, eq. (3)-(4)) as sampling from

    Q_β(x | ρ) ∝ r(x | ρ) · e^{−βf(x)},

r the (unknown) distribution of feasible points, which concentrates on the minimisers of f over
the feasible set as β → ∞ (Theorem 2). The three stages (Figure 1, Algorithms 1-2):

1. data: restricted-problem solutions and their empirical violations
   (:func:`algorithms.chance.data.collect_feasible_points`); the points with violation <= ρ
   form D_ρ;
2. learning: a :class:`~algorithms.chance.diffusion.ScoreMLP` fitted to D_ρ by denoising score
   matching (the paper conditions one network on ρ with classifier-free guidance; we fit D_ρ of
   the requested ρ directly, which is the distribution Theorem 2 is about);
3. sampling: the guided reverse SDE (:func:`algorithms.chance.sampler.guided_reverse_sample`)
   with first- or second-order Boltzmann guidance (Corollary 1).

The state is standardised by D_ρ's mean and per-coordinate spread, and f by its spread over D_ρ,
so ``beta`` is dimensionless. Samples are clipped to the box; the answer is the sample of lowest
f among those that are empirically feasible (violation <= ρ on ``h_samples``).

Convergence criterion (``Success``): the reverse process reached t_min and at least one sample is empirically
feasible; none feasible is ``Failure``. ``Failure`` is also the answer when stage 1 finds no feasible training
point (before any reverse step, whatever ``maxiters``): in both cases no empirically feasible point was found
(the heuristic's failure to find one, not a proof that none exists, so never ``Infeasible``, which means no
feasible point; SAA-MILP is the method that proves it), and ``x`` is the point of least violation seen, with
its violation in ``stats``. Stage 1 with 1 to 9 feasible points (too few to train on) is ``Failure``, ``x``
the feasible one of least f. A stop comes first: a run cut by ``maxiters`` is ``MaxIters`` and one stopped by
the callback ``Terminated``, feasible sample or not. The solve option ``maxiters`` caps the reverse steps
(iterations of Algorithm 2; fewer than ``n_steps`` is ``MaxIters``). A non-finite training loss, a trained
score model blown past the working range (a weight, or its posterior variance, beyond 3.4e38: e.g. a large
``lr``), or a sample beyond 1e6 (standardised units) or non-finite, is ``Diverged``, and so is an answer
where the user's f or g answers NaN/inf (f at it, g at it and any row of ``h_samples``; a callback's stop
stays ``Terminated``). ``stats`` (:class:`ChanceStats`) carries the
empirical violation and the out-of-sample feasibility (on ``problem.n_fresh`` fresh draws of
``problem.h_sampler``, from the solve's seed, 0 when none is given) of the answer. The trace records, per
reverse step, the mean of f over the samples at that step (in f's own units, before clipping to the box).

References
----------
B. Zhang, Z. Wang, Y.-F. Liu. A Gradient Guided Diffusion Framework for Chance Constrained
Programming. NeurIPS 2025, arXiv:2510.12238.

>>> from algorithms import solve
>>> from algorithms.chance import GGDOpt, linear_gaussian_problem
>>> p = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
>>> tiny = GGDOpt(beta=0.2, n_train_points=30, train_steps=60, batch_size=64, n_samples=64, n_steps=10,
...               corrector_steps=0)
>>> sol = solve(p, tiny, seed=0)
>>> sol.retcode, bool(sol.stats.empirical_violation <= 0.1)
(<RetCode.Success: 'Success'>, True)
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    C_INT_MAX,
    WORKING_MAX,
    CheckedRecord,
    as_real_array,
    call_user,
    check_choice,
    check_count,
    check_counts_fit,
    check_nonnegative,
    check_positive,
    read_only,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.chance.data import (
    MAX_POINTS,
    RESTRICTIONS,
    NoRestrictedSolutionError,
    collect_feasible_points,
)
from algorithms.chance.diffusion import MAX_TRAIN_STEPS, PROGRESS_TICK, ScoreMLP, ScoreModel, train_score
from algorithms.chance.guidance import GUIDANCE_ORDERS, ModelOverflowError, _beta
from algorithms.chance.problem import ChanceConstrainedProblem, empirical_violation, out_of_sample_feasibility
from algorithms.chance.sampler import (
    MAX_CORRECTOR_STEPS,
    MAX_REVERSE_STEPS,
    MAX_SAMPLES,
    guided_reverse_sample,
)
from algorithms.core import Algorithm, IterationMonitor, RetCode, Solution, SolveOptions, Stats, _dispatch

__all__ = ["ChanceStats", "GGDOpt", "GGDOptResult"]

#: the most seconds a stats record takes (about 31,700 years)
SECONDS_MAX = 1e12

#: fewer feasible training points than this cannot describe a feasible set
MIN_FEASIBLE_POINTS = 10


@dataclass
class ChanceStats(CheckedRecord, Stats):
    """Counters of a chance-constrained solve, plus the answer's feasibility in and out of sample.

    The :class:`~algorithms.core.Stats` counters (``iterations``, ``f_calls``, ``grad_calls``, ``hess_calls``,
    ``linear_solves``, ``wall_time``), plus ``empirical_violation`` (the answer's violation rate on the
    problem's scenarios), ``out_of_sample_feasibility`` (its feasibility rate on fresh scenarios),
    ``n_feasible_samples`` (generated samples that were feasible), ``train_seconds`` and ``sample_seconds``
    (time spent training the score model and sampling). Domains: the counters ``iterations``, ``f_calls``,
    ``grad_calls``, ``hess_calls`` and ``linear_solves`` ints in [0, 2**63 - 1]; ``wall_time`` in [0, 3.4e38]
    seconds or NaN; the two rates ``empirical_violation`` and ``out_of_sample_feasibility`` in [0, 1] or NaN
    (not measured); ``n_feasible_samples`` an int in [0, 2**63 - 1]; ``train_seconds`` and ``sample_seconds``
    floats in [0, 1e12] (seconds; a larger one is refused naming it).
    """

    empirical_violation: float = float("nan")
    out_of_sample_feasibility: float = float("nan")
    n_feasible_samples: int = 0
    train_seconds: float = 0.0
    sample_seconds: float = 0.0

    def __post_init__(self) -> None:   # a public record: a rate of -1 and negative seconds were kept
        super().__post_init__()
        for name in ("empirical_violation", "out_of_sample_feasibility"):
            value = getattr(self, name)
            if not (math.isnan(value) or 0.0 <= value <= 1.0):
                raise ValueError(f"{name} must be a rate in [0, 1] (NaN: not measured), got {value!r}")
        for name in ("train_seconds", "sample_seconds"):
            value = getattr(self, name)
            if not 0.0 <= value <= SECONDS_MAX:   # 1e308 seconds was kept
                raise ValueError(f"{name} must be a float >= 0 and <= {SECONDS_MAX:g} (seconds), got "
                                 f"{value!r}")
        check_counts_fit(self)
        self._checked()   # a field set later is checked alike (stats.empirical_violation = 5.0 was kept)


@dataclass(eq=False)   # identity ==: the generated one compared arrays ("truth value ... ambiguous")
class GGDOptResult(CheckedRecord):
    """What a GGDOpt solve saw: training points, losses, every sample with its f and violation.

    ``train_points`` (N, n) and ``train_violation`` (N,) are the feasible points the score model was
    trained on and their violation rates, ``losses`` the training losses, ``samples`` (S, n) every
    generated sample, ``sample_values`` (S,) its objective and ``sample_violation`` (S,) its violation.
    Domains: ``train_points`` and ``samples`` finite, entries at most 3.4e38 in magnitude; the violations
    rates in [0, 1]; ``losses`` real numbers of any size (a run's own: NaN and inf kept, a training that
    stopped on them), given as a list or tuple and stored as a tuple. The arrays are stored read-only (in
    immutable memory) and ``losses`` as a tuple: a write in place (``result.samples[0, 0] = nan``,
    ``result.losses.append("x")``) fails in the caller's own statement; set the field instead (checked).
    """

    train_points: np.ndarray
    train_violation: np.ndarray
    losses: tuple[float, ...]
    samples: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    sample_values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sample_violation: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:   # a public record: built by hand, strings or ragged rows were kept
        self.train_points = as_real_array("train_points", self.train_points)
        self.train_violation = as_real_array("train_violation", self.train_violation)
        if self.train_points.ndim != 2 or self.train_violation.shape != (self.train_points.shape[0],):
            raise ValueError(f"train_points must be (N, n) and train_violation (N,), got "
                             f"{self.train_points.shape} and {self.train_violation.shape}")
        if not np.all(np.isfinite(self.train_points)):
            raise ValueError("train_points must be finite (feasible points of the box), got NaN or inf")
        if not isinstance(self.losses, list | tuple):
            raise TypeError(f"losses must be a list or tuple of floats, got {type(self.losses).__name__}")
        self.losses = tuple(self.losses)   # a list kept inside took losses.append("x") in silence
        for loss in self.losses:   # "a" and True were kept; NaN/inf stay (a training that stopped on them)
            if isinstance(loss, bool | np.bool_) or not isinstance(loss, _REAL):
                raise TypeError(f"losses must hold real numbers, got {type(loss).__name__} {loss!r:.40}")
        self._check_samples()
        for name in ("train_violation", "sample_violation"):   # rates: 5.0 was kept
            rates = as_real_array(name, getattr(self, name))
            if rates.size and not bool(np.all((rates >= 0.0) & (rates <= 1.0))):
                bad = rates[~((rates >= 0.0) & (rates <= 1.0))]
                raise ValueError(f"{name} must hold violation rates in [0, 1], got {float(bad[0])!r}")
        for name in ("train_points", "train_violation", "samples", "sample_values", "sample_violation"):
            # checked copies in immutable memory: result.train_points[0, 0] = nan went unchecked
            object.__setattr__(self, name, read_only(getattr(self, name)))
        self._checked()   # a field set later is checked alike (result.train_points = "x" was kept)

    def _check_samples(self) -> None:
        """samples (S, n) finite points (clipped to the box), sample_values (S,) their objective values;
        each of sample_values/sample_violation empty or one per sample (they are set one after the other).
        A str, NaN rows, a 3-D array or 5 values for 2 samples were kept."""
        samples = as_real_array("samples", self.samples)
        if samples.ndim != 2 or not np.all(np.isfinite(samples)):
            raise ValueError(f"samples must be a finite (S, n) array, got shape {samples.shape}"
                             f"{'' if np.all(np.isfinite(samples)) else ' with NaN or inf'}")
        n = self.train_points.shape[1]
        if samples.size and samples.shape[1] != n:
            raise ValueError(f"samples must have n = {n} columns (train_points'), got {samples.shape}")
        if not _float_array(self.samples):   # a float32 run's samples keep their dtype (sol.x has it)
            self.samples = samples
        for name in ("sample_values", "sample_violation"):
            values = as_real_array(name, getattr(self, name), check_range=name != "sample_values")
            if values.ndim != 1 or values.size not in (0, samples.shape[0]):
                raise ValueError(f"{name} must be empty or hold one value per sample ({samples.shape[0]},), "
                                 f"got shape {values.shape}")
            if name == "sample_values" and np.any(np.isnan(values)):
                raise ValueError("sample_values must not hold NaN (the objective at finite samples)")
            if not _float_array(getattr(self, name)):
                setattr(self, name, values)


_REAL = (int, float, np.integer, np.floating)


def _float_array(value: object) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


@dataclass(frozen=True)
class GGDOpt(Algorithm):
    """Gradient-guided diffusion for chance-constrained programs (see the module docstring).

    Cost: the defaults are the paper's scale, minutes of CPU even on a 3-variable problem (400 SLSQP solves
    in stage 1, 1500 Adam steps in stage 2, 256 samples × 100 reverse steps in stage 3); for a quick run
    pass smaller ``n_train_points``, ``train_steps``, ``n_samples`` and ``n_steps`` (the tests use 10-50).

    f must be finite and differentiable where stage 3 evaluates it (the samples' posterior means, in the
    box's surroundings): a NaN or inf value or gradient there is refused naming f.

    Precision: a float32 problem (float32 ``h_samples``) runs stages 2 and 3 in float32, its score model
    trained in float32: the run follows another training trajectory than the float64 problem's, so its
    answer differs by more than float32 rounding (a sample of the same method, checked the same way). Pass
    float64 samples for the float64 run.

    ``beta`` the inverse temperature (on the standardised f), ``guidance`` one of "none",
    "first", "second", ``posterior_variance`` σ² of the second-order guidance (None: Tweedie's; checked
    with every guidance, ignored by "none" and "first"),
    ``n_train_points``, ``bootstrap_size`` and ``restriction`` ("moment" or "scenario", see
    :mod:`algorithms.chance.data`) of stage 1, ``train_steps``, ``hidden``, ``lr``,
    ``batch_size`` of stage 2, ``n_samples``, ``n_steps``, ``corrector_steps``, ``snr`` (the corrector's
    signal-to-noise ratio, a float > 0 in [1.18e-38, 3.4e38]) of stage 3.
    ``corrector_steps`` >= 0: 0 runs the predictor alone (no Langevin corrector), a valid choice.

    Domains: ``beta``, ``lr`` and ``snr`` positive scales of the working range, [1.18e-38, 3.4e38] (0, 1e-39
    and 1e39 refused); ``posterior_variance`` None or a real in [0, 3.4e38];
    ``n_train_points`` an int in [10, MAX_POINTS = 10**5] (10 feasible points are the fewest the score
    model is trained on), ``train_steps`` in [1, MAX_TRAIN_STEPS = 10**6], ``n_samples`` in [1, MAX_SAMPLES
    = 10**6], ``n_steps`` in [1, MAX_REVERSE_STEPS = 10**5], ``corrector_steps`` in [0, MAX_CORRECTOR_STEPS
    = 1000], ``bootstrap_size``, ``hidden``, ``batch_size`` ints in [1, 2**31 - 1] (``hidden`` and
    ``batch_size`` refused past this machine's memory, a ``bootstrap_size`` above L uses all L samples):
    the run time grows linearly with the counts, hours at the caps. Solve options: ``maxiters`` caps the
    reverse steps; ``tol`` is accepted
    (checked by ``solve``) and not used; ``seed=None`` is 0.
    """

    beta: float = 20.0
    guidance: str = "second"
    posterior_variance: float | None = None
    n_train_points: int = 400
    bootstrap_size: int = 50
    train_steps: int = 1500
    hidden: int = 64
    lr: float = 2e-3
    batch_size: int = 256
    n_samples: int = 256
    n_steps: int = 100
    corrector_steps: int = 1
    snr: float = 0.16
    restriction: str = "moment"

    def __post_init__(self) -> None:
        # every checked number is stored as a Python int/float (np.int64 / np.float32 were kept as given)
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        set_("beta", _beta(self.beta))
        check_choice("restriction", self.restriction, RESTRICTIONS)
        check_choice("guidance", self.guidance, GUIDANCE_ORDERS)
        if self.posterior_variance is not None:
            set_("posterior_variance", check_nonnegative("posterior_variance", self.posterior_variance))
        # fewer training points than MIN_FEASIBLE_POINTS could never train: every solve ended Infeasible,
        # even with every point feasible
        set_("n_train_points", check_count("n_train_points", self.n_train_points, MIN_FEASIBLE_POINTS,
                                           MAX_POINTS, "MAX_POINTS: each point is one SLSQP solve"))
        # counts and widths: a value past its cap is refused here, not after stage 1 ran (2**31 - 1 training
        # or reverse steps was accepted and ran for months)
        caps = {"train_steps": (MAX_TRAIN_STEPS, "MAX_TRAIN_STEPS: Adam steps, hours at the cap"),
                "n_samples": (MAX_SAMPLES, "MAX_SAMPLES: rows of every reverse step"),
                "n_steps": (MAX_REVERSE_STEPS, "MAX_REVERSE_STEPS: predictor steps")}
        for name in ("bootstrap_size", "train_steps", "hidden", "batch_size", "n_samples", "n_steps"):
            set_(name, check_count(name, getattr(self, name), 1, *caps.get(name, (C_INT_MAX, "a count"))))
        set_("lr", check_positive("lr", self.lr))
        set_("corrector_steps", check_count("corrector_steps", self.corrector_steps, 0, MAX_CORRECTOR_STEPS,
                                            "MAX_CORRECTOR_STEPS: Langevin steps after every predictor step"))
        set_("snr", check_positive("snr", self.snr))
        remember_validated(self)   # a field replaced later with object.__setattr__ is refused by solve

    def _data_score(self, model: ScoreMLP) -> ScoreModel:
        """The data score the sampler uses: the trained model (claims' controls override this)."""
        return model


def answer_feasibility(
    problem: ChanceConstrainedProblem, x: np.ndarray, stats: ChanceStats, seed: int
) -> None:
    """Fill the empirical violation and (when a sampler exists) the out-of-sample feasibility of x."""
    stats.empirical_violation = float(empirical_violation(problem, x[None])[0])
    if problem.h_sampler is not None:
        stats.out_of_sample_feasibility = float(out_of_sample_feasibility(problem, x[None], seed=seed)[0])


def finite_answer(problem: ChanceConstrainedProblem, x: np.ndarray, value: float) -> bool:
    """f's ``value`` and g at (x, every row of h_samples) finite: a user's f or g answering NaN/inf at a run's
    answer ends the run ``Diverged`` (README). A NaN g counted as a violated sample (``NaN >= -tol`` is
    False) and the run reported Success; a NaN f met Solution's guard naming ``value``."""
    return math.isfinite(value) and bool(np.all(np.isfinite(problem.constraints(x[None], problem.h_samples))))


@_dispatch
def _solve(problem: ChanceConstrainedProblem, algorithm: GGDOpt, options: SolveOptions) -> Solution:
    # the guidance and the score training differentiate: inside a caller's torch.no_grad() or
    # torch.inference_mode() the solve raised "element 0 of tensors does not require grad"
    with torch.inference_mode(False), torch.enable_grad():
        return _run(problem, algorithm, options)


def _weights_in_range(model: torch.nn.Module) -> bool:
    """Every weight of the trained model finite and within the working range."""
    return all(bool(torch.isfinite(p).all()) and float(p.detach().abs().max()) <= WORKING_MAX
               for p in model.parameters() if p.numel())


def _named_f(run: Callable[[], Any]) -> Any:
    """Stage 3, its errors about the guidance's objective named as the user's f: the sampler's "objective
    returned a non-finite value" named a parameter the user never passed (f NaN in a region of the box)."""
    try:
        return run()
    except (ValueError, TypeError) as exc:
        if str(exc).startswith("objective must"):   # the sampler's name for the user's f (red20a)
            raise type(exc)("f" + str(exc)[len("objective"):]) from exc
        if isinstance(exc, TypeError) or not str(exc).startswith("objective returned a non-finite"):
            raise
        raise ValueError("f returned a non-finite value or gradient at a sample's posterior mean during "
                         "GGDOpt's stage 3 (which differentiates f there): f must be finite and "
                         "differentiable on the box") from exc


@contextlib.contextmanager
def _stage_bar(options: SolveOptions, total: int, desc: str) -> Iterator[None]:
    """A progress bar over stage 1 or 2 when ``options.progress`` (about two minutes of a default run showed
    nothing before stage 3's bar): ticked by PROGRESS_TICK, closed on the way out."""
    if not options.progress:
        yield
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, leave=False)
    token = PROGRESS_TICK.set(lambda: bar.update(1))
    try:
        yield
    finally:
        PROGRESS_TICK.reset(token)
        bar.close()


def _run(problem: ChanceConstrainedProblem, algorithm: GGDOpt, options: SolveOptions) -> Solution:
    revalidate_if_reassigned(algorithm)   # beta = -1 set with object.__setattr__ ran stage 1 for minutes
    dtype = problem.dtype
    torch_dtype = torch.float32 if dtype == np.float32 else torch.float64
    seed = 0 if options.seed is None else options.seed
    stats = ChanceStats()
    if options.maxiters == 0:
        x = (0.5 * (problem.lower + problem.upper)).astype(dtype)
        monitor = IterationMonitor(options, total=1, desc="GGDOpt")
        value = float(problem.objective(x[None])[0])
        monitor.record(iteration=0, stage="start", value=value)
        monitor.close()
        return Solution(
            x=x,
            value=value,
            retcode=RetCode.MaxIters if math.isfinite(value) else RetCode.Diverged,   # a user's f NaN there
            stats=stats,
            trace=monitor.trace,
        )
    start = time.perf_counter()
    try:
        with _stage_bar(options, algorithm.n_train_points, "GGDOpt stage 1: feasible points"):
            points, violation = collect_feasible_points(
                problem,
                n_points=algorithm.n_train_points,
                bootstrap_size=algorithm.bootstrap_size,
                seed=seed,
                restriction=algorithm.restriction,
            )
    except NoRestrictedSolutionError:
        # no restricted problem solved, so no training point at all: Failure at the box's midpoint (it raised
        # a ValueError that named no argument)
        points = (0.5 * (problem.lower + problem.upper))[None].astype(np.float64)
        violation = empirical_violation(problem, points)
    feasible = points[violation <= problem.rho]
    result = GGDOptResult(train_points=points, train_violation=violation, losses=[])
    if feasible.shape[0] < MIN_FEASIBLE_POINTS:
        # too few feasible points to train on: the best feasible one (Failure: found, but the method did not
        # run), or with none the point of least violation (Failure too)
        if feasible.shape[0]:
            best = feasible[np.argmin(problem.objective(feasible))].astype(dtype)
        else:
            best = points[np.argmin(violation)].astype(dtype)
        answer_feasibility(problem, best, stats, seed)   # the answer's violation was left NaN
        value = float(problem.objective(best[None])[0])
        return Solution(
            x=best,
            value=value,
            # no feasible point found is no proof that none exists: Failure, never Infeasible (red13a)
            retcode=RetCode.Failure if finite_answer(problem, best, value) else RetCode.Diverged,
            stats=stats,
            original=result,
        )
    center = feasible.mean(axis=0)
    width = (problem.upper - problem.lower).astype(np.float64)
    scale = np.maximum(feasible.std(axis=0), 1e-3 * width)
    f_train = problem.objective(feasible)
    f_scale = max(float(f_train.std()), 1e-12)
    model = ScoreMLP(problem.n, hidden=algorithm.hidden, seed=seed, dtype=torch_dtype)
    data = torch.as_tensor((feasible - center) / scale, dtype=torch_dtype)
    with _stage_bar(options, algorithm.train_steps, "GGDOpt stage 2: score training"):
        result.losses = train_score(model, data, steps=algorithm.train_steps, lr=algorithm.lr,
                                    batch_size=algorithm.batch_size, seed=seed)
    stats.train_seconds = time.perf_counter() - start
    if not np.isfinite(result.losses[-1]) or not _weights_in_range(model):
        # a model blown past the working range by a large lr (valid, up to 3.4e38) diverged: stage 3 named
        # its parameter 'net.2.weight' (red20c)
        x = center.astype(dtype)
        return Solution(x=x, value=float("nan"), retcode=RetCode.Diverged, stats=stats, original=result)
    center_t = torch.as_tensor(center, dtype=torch_dtype)
    scale_t = torch.as_tensor(scale, dtype=torch_dtype)

    def standardized_objective(u: torch.Tensor) -> torch.Tensor:
        # the user's f named as such (the sampler named its own "objective(x)", never passed by the user)
        return call_user("f(x)", problem.f, center_t + scale_t * u) / f_scale

    monitor = IterationMonitor(options, total=algorithm.n_steps, desc="GGDOpt")

    def on_step(k: int, t: float, u: torch.Tensor) -> bool:
        with torch.no_grad():
            mean_f = float(standardized_objective(u).mean()) * f_scale
        # the solve's callback named as such (the sampler would name its own on_step)
        return call_user("callback(record)", lambda: monitor.record(iteration=k, t=t, mean_value=mean_f))

    start = time.perf_counter()
    try:
        run = _named_f(lambda: guided_reverse_sample(
            algorithm._data_score(model),
            standardized_objective,
            n_samples=algorithm.n_samples,
            beta=algorithm.beta,
            guidance=algorithm.guidance,
            posterior_variance=algorithm.posterior_variance,
            n_steps=algorithm.n_steps,
            corrector_steps=algorithm.corrector_steps,
            snr=algorithm.snr,
            seed=seed,
            max_steps=options.maxiters,
            on_step=on_step,
            dtype=torch_dtype,
        ))
    except ModelOverflowError:   # the trained model's own values past the working range (red20c: sigma2
        # 5.8e94 at lr = 1e20 was refused naming sigma2)
        monitor.close()
        x = center.astype(dtype)
        return Solution(x=x, value=float("nan"), retcode=RetCode.Diverged, stats=stats, trace=monitor.trace,
                        original=result)
    monitor.close()
    stats.sample_seconds = time.perf_counter() - start
    stats.iterations = run.steps
    samples = center + scale * run.x.detach().double().numpy()
    if run.status == "diverged" or not np.all(np.isfinite(samples)):
        # a point of the box (nan_to_num alone left 1.8e308 for an inf entry, outside the working range)
        x = np.clip(np.nan_to_num(samples[0]), problem.lower, problem.upper).astype(dtype)
        return Solution(
            x=x,
            value=float("nan"),
            retcode=RetCode.Diverged,
            stats=stats,
            trace=monitor.trace,
            original=result,
        )
    samples = np.clip(samples, problem.lower, problem.upper)
    result.samples = samples.astype(dtype)
    values = problem.objective(result.samples)
    if not np.all(np.isfinite(values)):   # the user's f NaN/inf at a final sample: the record refused it,
        # naming its own field sample_values, or a Success carried f = -inf (red20a)
        index = int(np.flatnonzero(~np.isfinite(values))[0])
        return Solution(x=result.samples[index].copy(), value=float(values[index]), retcode=RetCode.Diverged,
                        stats=stats, trace=monitor.trace, original=result)
    result.sample_values = values
    result.sample_violation = empirical_violation(problem, result.samples)
    ok = result.sample_violation <= problem.rho
    stats.n_feasible_samples = int(ok.sum())
    if ok.any():
        index = int(np.flatnonzero(ok)[np.argmin(result.sample_values[ok])])
    else:
        index = int(np.argmin(result.sample_violation))
    x = result.samples[index].copy()   # sol.x the caller's own (writable); the record's stays read-only
    answer_feasibility(problem, x, stats, seed)
    if run.status == "terminated":
        retcode = RetCode.Terminated
    elif run.status == "stopped":
        retcode = RetCode.MaxIters
    else:
        retcode = RetCode.Success if ok.any() else RetCode.Failure   # none found: no proof (not Infeasible)
    value = float(result.sample_values[index])
    if retcode is not RetCode.Terminated and not finite_answer(problem, x, value):
        retcode = RetCode.Diverged   # the user's f or g NaN/inf at the answer (argmin picks a NaN first)
    return Solution(
        x=x,
        value=value,
        retcode=retcode,
        stats=stats,
        trace=monitor.trace,
        original=result,
    )
