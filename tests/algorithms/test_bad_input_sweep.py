"""The broad bad-input sweep of issue #43 (machinery and classes of bad values: tests/bad_input_sweep.py).

Every generated case must be *handled*: rejected by our validation with a ValueError/TypeError naming
the argument, reported in the result, or documented valid. ``python -m tests.bad_input_sweep`` prints
the per-family tally (handled / cryptic / silent).
"""

import pytest
import torch

from tests.bad_input_sweep import (
    CRYPTIC,
    HANDLED,
    SILENT,
    classify,
    field_cases,
    format_tally,
    option_cases,
    tally,
)

torch.set_num_threads(1)

ALL_CASES = field_cases() + option_cases()

#: case id -> why it stays unhandled (cryptic only; a silent case is never accepted here)
KNOWN_UNHANDLED: dict[str, str] = {}

_RESULTS: dict[str, tuple[str, str]] = {}


def _outcome(case):
    if case.id not in _RESULTS:
        _RESULTS[case.id] = classify(case)
    return _RESULTS[case.id]


def test_case_ids_are_unique():
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})[:10]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_bad_input_is_handled(case):
    outcome, detail = _outcome(case)
    if case.id in KNOWN_UNHANDLED:
        assert outcome == CRYPTIC, f"{case.id}: now {outcome} ({detail}); drop it from KNOWN_UNHANDLED"
        pytest.xfail(KNOWN_UNHANDLED[case.id])
    assert outcome == HANDLED, f"{case.id} [{case.source}]: {outcome}: {detail}"


@pytest.mark.filterwarnings("ignore")
def test_tally_within_the_issue_target(capsys):
    results = [(case, *_outcome(case)) for case in ALL_CASES]
    table = tally(results)
    with capsys.disabled():
        print("\n" + format_tally(table))
    total = sum(sum(c.values()) for c in table.values())
    silent = sum(c[SILENT] for c in table.values())
    unhandled = silent + sum(c[CRYPTIC] for c in table.values())
    assert total >= 1000, f"the sweep shrank to {total} cases"
    assert silent == 0, f"{silent} bad inputs accepted silently"
    assert unhandled <= 0.02 * total, f"{unhandled}/{total} unhandled (> 2 %)"
