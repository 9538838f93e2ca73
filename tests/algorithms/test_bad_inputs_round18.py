"""Round 18 (core): a name that is not a field, set on a Solution or a Stats, is refused by name."""

import copy
import pickle

import numpy as np
import pytest

from algorithms.core import RetCode, Solution, Stats
from algorithms.quantum import QuantumStats


def _solution() -> Solution:
    return Solution(x=np.ones(2), value=1.0, retcode=RetCode.Success)


@pytest.mark.parametrize(("owner", "name"), [
    (_solution, "retcod"), (_solution, "vale"), (_solution, "X"),
    (Stats, "iteratons"), (Stats, "wal_time"), (QuantumStats, "copy"),
    (lambda: _solution().stats, "f_call"),
])
def test_misspelt_field_is_refused(owner, name):
    # red18b: s.retcod = "bogus" and s.stats.iteratons = 5 were stored beside the real fields, in silence
    record = owner()
    with pytest.raises(ValueError, match=f"takes no attribute '{name}'"):
        setattr(record, name, 5)
    assert name not in vars(record)


def test_fields_and_copies_still_work():
    sol = _solution()
    sol.retcode = "MaxIters"
    sol.stats.iterations = 3
    sol._private = 1  # private names are the implementation's
    for copied in (copy.deepcopy(sol), pickle.loads(pickle.dumps(sol))):
        assert copied.retcode is RetCode.MaxIters and copied.stats.iterations == 3


def test_checked_record_refuses_a_misspelt_field():
    # red18a: BOHistory.n_initiall = 0, GGDOptResult.losess = [] were stored beside the fields in silence
    import dataclasses

    from algorithms._validation import CheckedRecord

    @dataclasses.dataclass
    class Record(CheckedRecord):
        count: int = 0

        def __post_init__(self) -> None:
            if self.count < 0:
                raise ValueError(f"count must be >= 0, got {self.count}")
            self._checked()

    record = Record()
    record.count = 2
    with pytest.raises(ValueError, match="takes no attribute 'cout'"):
        record.cout = 3
    with pytest.raises(ValueError, match="count must be >= 0"):
        record.count = -1
    assert record.count == 2 and "cout" not in vars(record)
