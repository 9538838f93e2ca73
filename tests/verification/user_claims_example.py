"""A user's own paper and claim, as the README shows them (imported by the tests, and run as a script)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from theorems.core import Claim, Kind, Origin, Outcome, register
from theorems.papers import register_paper

register_paper("userpaper", "A user's paper", "Doe. 2026.")


def check(ctx):
    xs = ctx.rng("grid").uniform(-3, 3, size=ctx.pick(100, 10_000))
    fig, ax = plt.subplots()
    ax.plot(xs, xs * xs, ".")
    return Outcome("pass" if (xs * xs >= 0).all() else "fail", f"min x² = {min(xs * xs):.3g}",
                   {"draws": len(xs), "min": float(min(xs * xs))}, artifacts=ctx.savefig(fig, "square.png"))


def control(ctx):
    xs = ctx.rng("grid").uniform(-3, 3, size=ctx.pick(100, 10_000))
    return Outcome("pass" if (xs ** 3 >= 0).all() else "fail", f"min x³ = {min(xs ** 3):.3g}")


SQUARE = register(Claim(
    id="userpaper.square_nonnegative", paper="userpaper", source="Lemma 1", origin=Origin.PAPER,
    covers=("Lemma 1",), statement="x² >= 0 for every real x (100 random draws)", kind=Kind.NUMERIC,
    check=check, control=control, control_description="x³ in place of x²: negative draws fail"))

if __name__ == "__main__":  # pragma: no cover - exercised by a test through a subprocess
    import sys

    from verification import run_claims

    (result,) = run_claims([SQUARE], jobs=1, out_dir=sys.argv[1] if len(sys.argv) > 1 else None)
    print(result.id, result.verdict)
