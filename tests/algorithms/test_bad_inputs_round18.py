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
