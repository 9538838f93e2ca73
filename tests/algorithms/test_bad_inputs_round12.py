"""Issue #43 round 12 (lead): the package-wide working range and the records' answers."""

import math

import numpy as np
import pytest
import torch

from algorithms._validation import (
    as_float_array,
    as_real_array,
    check_finite_data,
    check_finite_real,
    check_nonnegative,
    check_positive,
)
from algorithms.core import WORKING_MAX, WORKING_MIN, IterationMonitor, RetCode, Solution, SolveOptions


@pytest.mark.parametrize("check, value", [
    (check_positive, 5e-324), (check_positive, math.nextafter(WORKING_MIN, 0.0)), (check_positive, 1e39),
    (check_positive, 2**128), (check_nonnegative, 1e308), (check_finite_real, -1e39),
    (check_finite_real, 10**100),
])
def test_scalars_outside_the_working_range_are_refused_by_name(check, value):
    with pytest.raises(ValueError, match=r"^lr = .* is outside the package's working range"):
        check("lr", value)


@pytest.mark.parametrize("check, value", [
    (check_positive, WORKING_MIN), (check_positive, WORKING_MAX), (check_nonnegative, 0.0),
    (check_nonnegative, 5e-324), (check_finite_real, -WORKING_MAX), (check_finite_real, 5e-324),
])
def test_scalars_at_the_working_range_edges_are_taken(check, value):
    assert check("lr", value) == float(value)


@pytest.mark.parametrize("convert", [
    lambda v: as_float_array("X", v), lambda v: as_real_array("X", v),
    lambda v: check_finite_data("X", torch.tensor(v, dtype=torch.float64)),
])
def test_entries_past_the_working_range_are_refused_unless_computed_by_a_run(convert):
    with pytest.raises(ValueError, match=r"^X has an entry of magnitude 1e\+39, outside the package's"):
        convert([1.0, -1e39])
    convert([1.0, -WORKING_MAX])   # the edge is inside
    # what a run computes (a diverging iterate, a user's gradient) is not bounded: the run says Diverged
    assert as_real_array("grad(x)", [1e300], check_range=False)[0] == 1e300


def test_solve_tol_follows_the_working_range():
    with pytest.raises(ValueError, match=r"^tol = 5e-324 is outside the package's working range"):
        SolveOptions(tol=5e-324)
    assert SolveOptions(tol=WORKING_MIN).tol == WORKING_MIN


@pytest.mark.parametrize("retcode", ["MaxIters", "MaxTime", "Stalled", "Terminated", "Degenerate"])
def test_a_non_finite_answer_is_refused_beside_a_retcode_that_returns_an_answer(retcode):
    # a NaN x beside MaxIters was taken: a blow-up is Diverged
    with pytest.raises(ValueError, match=rf"^x must be finite with retcode {retcode}"):
        Solution(x=np.array([1.0, np.nan]), value=1.0, retcode=retcode)
    with pytest.raises(ValueError, match=rf"^x must be finite with retcode {retcode}"):
        Solution(x=torch.tensor([math.inf]), value=1.0, retcode=retcode)
    sol = Solution(x=np.array([1.0]), value=1.0, retcode=retcode)
    with pytest.raises(ValueError, match=r"^x must be finite"):
        sol.x = np.array([np.inf])


def test_no_answer_only_at_a_horizon_and_blow_ups_as_diverged():
    # a backend capped before its first iterate has no answer: all-NaN x at MaxIters/MaxTime only
    assert Solution(x=np.full(2, np.nan), value=math.nan, retcode="MaxIters").x.size == 2
    with pytest.raises(ValueError, match=r"^x must be finite with retcode Stalled"):
        Solution(x=np.full(2, np.nan), value=math.nan, retcode="Stalled")
    for retcode in ("Diverged", "Failure", "Infeasible", "Unbounded"):
        sol = Solution(x=np.array([np.nan, np.inf]), value=math.nan, retcode=retcode)
        assert sol.retcode is RetCode(retcode)


def test_monitor_total_past_int64_is_a_bar_without_a_length():
    monitor = IterationMonitor(SolveOptions(progress=True), total=2**64)
    assert monitor._bar.total is None
    monitor.close()
    with pytest.raises(ValueError, match=r"^total must be an int >= 0"):
        IterationMonitor(SolveOptions(), total=-1)
