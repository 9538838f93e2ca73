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


def _tampered(kind: str):
    """A record edited through ``__dict__`` (past its checks), as red18b's cases."""
    if kind == "stats":
        stats = Stats(iterations=3)
        stats.__dict__["iterations"] = -1
        return stats, "iterations must be an int >= 0"
    if kind == "misspelt":
        stats = Stats()
        stats.__dict__["iteratons"] = 5
        return stats, "takes no attribute 'iteratons'"
    if kind == "nested":
        sol = _solution()
        sol.stats.__dict__["wall_time"] = -1.0
        return sol, "wall_time must be a float"
    sol = _solution()
    sol.x[0] = np.nan  # the caller's own x: checked again when the record is pickled or copied
    return sol, "x must be finite with retcode Success"


@pytest.mark.parametrize("kind", ["stats", "misspelt", "nested", "x"])
@pytest.mark.parametrize("roundtrip", [lambda r: pickle.loads(pickle.dumps(r)), copy.copy, copy.deepcopy])
def test_pickled_or_copied_record_is_checked_again(kind, roundtrip):
    # red18b: pickle.loads(pickle.dumps(s)) gave back Success with x = [nan, 0] and iterations = -1, unchecked
    record, words = _tampered(kind)
    if kind == "nested" and roundtrip is copy.copy:
        return  # a shallow copy shares the stats object: nothing is rebuilt
    with pytest.raises(ValueError, match=words):
        roundtrip(record)


@pytest.mark.parametrize(("name", "value", "error", "words"), [
    ("trace", "x", TypeError, "trace must be a list of records"),
    ("trace", [1], TypeError, "trace must be a list of records"),
    ("options", {}, TypeError, "options must be a SolveOptions"),
    ("stopped", "yes", TypeError, "stopped must be a bool"),
    ("stoped", True, ValueError, "takes no attribute 'stoped'"),
])
def test_iteration_monitor_attributes_are_checked(name, value, error, words):
    # red18b: m.trace = "x" met AttributeError('append') at the next record, m.options = {} AttributeError,
    # m.stopped = "yes" was kept
    from algorithms.core import IterationMonitor, SolveOptions

    monitor = IterationMonitor(SolveOptions(store_trace=True), total=2)
    with pytest.raises(error, match=words):
        setattr(monitor, name, value)
    monitor.stopped = True
    monitor.trace = []
    monitor.record(iteration=0)
    assert monitor.trace == [{"iteration": 0}] and monitor.stopped is True


def _problem_arrays(problem, depth: int = 0):
    """(name, array) for the numeric arrays among a problem's fields (and its nested dataclasses')."""
    import dataclasses

    for f in dataclasses.fields(problem):
        value = getattr(problem, f.name, None)
        if isinstance(value, np.ndarray) and not value.dtype.hasobject:
            yield f.name, value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type) and depth < 2:
            yield from ((f"{f.name}.{n}", a) for n, a in _problem_arrays(value, depth + 1))


def _sealed_copies():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.bad_input_sweep import pairs

    for problem, _ in pairs():
        yield f"{type(problem).__name__}-built", problem
        for label, make in (("pickle", lambda p: pickle.loads(pickle.dumps(p))), ("deepcopy", copy.deepcopy)):
            try:
                copied = make(problem)
            except (AttributeError, TypeError, pickle.PicklingError):  # a lambda inside: cannot pickle
                continue
            yield f"{type(problem).__name__}-{label}", copied


def test_pickled_or_copied_problems_keep_immutable_arrays():
    # README "The interface": a pickled or copied problem comes back with read-only arrays in immutable memory
    # (ChanceConstrainedProblem's h_samples/lower/upper/linear.A and ConstrainedBOProblem's bounds/x_star came
    # back writeable)
    failures = []
    for label, problem in _sealed_copies():
        for name, array in _problem_arrays(problem):
            chain = [array]
            while isinstance(chain[-1].base, np.ndarray):  # a view's base could be made writeable instead
                chain.append(chain[-1].base)
            for member in chain:
                try:
                    member.flags.writeable = True
                    failures.append(f"{label}.{name}")
                except ValueError:
                    pass
    assert not failures, failures
