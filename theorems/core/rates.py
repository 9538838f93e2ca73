"""Rate claims: fit a log-log slope over a size sweep, with a bootstrap interval over seeds.

``values[s, i]`` is the measured quantity (error, regret, ...) for seed ``s`` at
size ``sizes[i]``. The slope is the least-squares fit of ``log mean_s values``
against ``log sizes``; its interval resamples the *seeds* with replacement
(B times) and refits, which is what makes the interval honest about run-to-run
variation. A claim compares the interval with the claimed exponent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from theorems.core import Context, Outcome

__all__ = ["RateFit", "fit_loglog", "rate_outcome"]


@dataclass(frozen=True)
class RateFit:
    slope: float
    intercept: float
    low: float
    high: float
    sizes: tuple[float, ...]
    means: tuple[float, ...]
    level: float

    def as_dict(self) -> dict[str, object]:
        return {
            "slope": round(self.slope, 6),
            "intercept": round(self.intercept, 6),
            "interval": [round(self.low, 6), round(self.high, 6)],
            "level": self.level,
            "sizes": list(self.sizes),
            "means": [float(f"{m:.6g}") for m in self.means],
        }


def _slope(log_sizes: np.ndarray, log_values: np.ndarray) -> tuple[float, float]:
    slope, intercept = np.polyfit(log_sizes, log_values, 1)
    return float(slope), float(intercept)


def fit_loglog(
    sizes, values, *, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> RateFit:
    """Least-squares slope of log(mean over seeds) vs log(size), bootstrap over seeds.

    >>> sizes = np.array([10, 20, 40, 80])
    >>> values = np.vstack([c * sizes ** -0.5 for c in (0.9, 1.0, 1.1)])
    >>> fit = fit_loglog(sizes, values)
    >>> round(fit.slope, 6), round(fit.low, 6), round(fit.high, 6)
    (-0.5, -0.5, -0.5)
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    if values.shape[1] != sizes.size:
        raise ValueError(f"values must have shape (seeds, {sizes.size}), got {values.shape}")
    if sizes.size < 2:
        raise ValueError("a rate fit needs at least two sizes")
    if np.any(sizes <= 0) or np.any(values <= 0) or not np.all(np.isfinite(values)):
        raise ValueError("sizes and values must be positive and finite for a log-log fit")
    log_sizes = np.log(sizes)
    means = values.mean(axis=0)
    slope, intercept = _slope(log_sizes, np.log(means))
    rng = np.random.default_rng(seed)
    n_seeds = values.shape[0]
    boot = np.empty(n_boot)
    for b in range(n_boot):
        resampled = values[rng.integers(0, n_seeds, n_seeds)].mean(axis=0)
        boot[b] = _slope(log_sizes, np.log(resampled))[0]
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(boot, [alpha, 1.0 - alpha])
    return RateFit(slope, intercept, float(low), float(high), tuple(sizes.tolist()),
                   tuple(means.tolist()), level)


def _plot(fit: RateFit, values: np.ndarray, claimed: float, ctx: Context, name: str,
          xlabel: str, ylabel: str, margin: float = 0.0) -> list[str]:
    """The log-log plot of a rate claim: each seed's values, their means, the fitted line (slope and
    interval in the legend) and a line of the claimed slope through the same centre."""
    if ctx.out_dir is None:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    sizes = np.asarray(fit.sizes)
    centre = float(np.mean(np.log(sizes)))
    fitted_at_centre = fit.intercept + fit.slope * centre
    fig, ax = plt.subplots(figsize=(4.8, 3.6))
    rows = np.atleast_2d(values)
    for i, row in enumerate(rows):
        ax.loglog(sizes, row, color="0.8", lw=0.8, label="each seed" if i == 0 and len(rows) > 1 else None)
    ax.loglog(sizes, fit.means, "o", color="C0", label="mean over seeds")
    ax.loglog(sizes, np.exp(fitted_at_centre + fit.slope * (np.log(sizes) - centre)), "-", color="C0",
              label=f"fitted slope {fit.slope:.3f} [{fit.low:.3f}, {fit.high:.3f}]")
    ax.loglog(sizes, np.exp(fitted_at_centre + claimed * (np.log(sizes) - centre)), "--", color="C3",
              label=f"claimed slope {claimed:g}" + (f" (margin {margin:g})" if margin else ""))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # minor labels overlap
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    ax.set_title(f"{ctx.role}: {name.removesuffix('.png')}", fontsize=9)
    fig.tight_layout()
    return ctx.savefig(fig, name)


def rate_outcome(
    sizes,
    values,
    *,
    claimed: float,
    relation: Literal["==", "<="],
    ctx: Context,
    what: str,
    margin: float,
    max_width: float,
    plot_name: str,
    xlabel: str = "size",
    ylabel: str = "error",
) -> Outcome:
    """Compare the fitted slope's interval with the ``claimed`` exponent.

    ``relation="<="`` (an upper-bound rate, "decays at least as fast as"):
    pass when the interval's upper end is ``<= claimed + margin``, fail when its
    lower end is above it. ``relation="=="``: pass when ``claimed`` lies within
    the interval widened by ``margin``, fail when it lies outside. An interval
    wider than ``max_width`` is ``undecided``.
    """
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    fit = fit_loglog(sizes, values, seed=ctx.seed)
    evidence = {"statement": what, "claimed": claimed, "relation": relation,
                "margin": margin, **fit.as_dict()}
    artifacts = _plot(fit, values, claimed, ctx, plot_name, xlabel, ylabel, margin)
    interval = f"slope {fit.slope:.3f} [{fit.low:.3f}, {fit.high:.3f}]"
    if fit.high - fit.low > max_width:
        return Outcome("undecided", f"{what}: {interval} too wide to decide", evidence, artifacts)
    if relation == "<=":
        if fit.high <= claimed + margin:
            return Outcome("pass", f"{what}: {interval} <= {claimed:g}", evidence, artifacts)
        if fit.low > claimed + margin:
            return Outcome("fail", f"{what}: {interval} exceeds {claimed:g}", evidence, artifacts)
        return Outcome("undecided", f"{what}: {interval} straddles {claimed:g}", evidence,
                       artifacts)
    if fit.low - margin <= claimed <= fit.high + margin:
        return Outcome("pass", f"{what}: {interval} contains {claimed:g}", evidence, artifacts)
    return Outcome("fail", f"{what}: {interval} excludes {claimed:g}", evidence, artifacts)
