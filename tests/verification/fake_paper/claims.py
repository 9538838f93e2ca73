"""The fake paper's one claim (not registered: the mutation tests load ``CLAIMS`` by module)."""

from theorems.core import Claim, Kind, Outcome

from . import impl


def _check_on(values: list[float], mean: float, x: float, halved: float):
    ok = impl.mean(values) == mean and impl.halve_below_one(x) == halved
    return Outcome("pass" if ok else "fail", f"mean {impl.mean(values)}, halved {impl.halve_below_one(x)}")


def _check(ctx) -> Outcome:
    return _check_on([1.0, 2.0, 6.0], 3.0, 6.0, 0.75)


def _control(ctx) -> Outcome:  # a bound past the truth: the same check must fail
    return _check_on([1.0, 2.0, 6.0], 3.5, 6.0, 0.75)


CLAIMS = [Claim(id="fake_paper.mean_and_halving", paper=None, source="test",
                statement="mean averages; halving stops below one", kind=Kind.NUMERIC,
                check=_check, control=_control, control_description="a wrong mean")]
