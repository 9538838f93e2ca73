"""Round 20: a user's f raising, at its first call or part-way through a run (class H)."""

import numpy as np
import pytest

import algorithms.submodular as S
from algorithms import solve
from algorithms._validation import UserCallableError


class _Raises:
    """A coverage function that raises KeyError from its ``k``-th call on, once armed."""

    def __init__(self, k: int) -> None:
        self.inner, self.k, self.calls, self.armed = S.Coverage([[0, 1], [1, 2], [2]]), k, 0, False

    def __call__(self, subset: frozenset) -> float:
        if self.armed:
            self.calls += 1
            if self.calls > self.k:
                raise KeyError("user")
        return self.inner(subset)


def _problem(f):
    matchoid = S.Matchoid([S.UniformMatroid(2, [0, 1, 2])])
    return S.MatchoidMaximization(f=f, matchoid=matchoid, elements=[0, 1, 2])


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("algorithm", [S.Greedy(), S.BruteForce(), S.SampleGreedy()],
                         ids=["Greedy", "BruteForce", "SampleGreedy"])
def test_f_raising_at_any_call_is_a_user_callable_error_naming_f(algorithm, k):
    # f's probe f(frozenset()) turned its exception into a plain TypeError; every later call gave a
    # UserCallableError naming f(S): one class for one event (README: UserCallableError where the package
    # uses it)
    f = _Raises(k)
    problem = _problem(f)
    f.armed = True
    with pytest.raises(UserCallableError, match=r"f\(") as info:
        solve(problem, algorithm, seed=0)
    assert isinstance(info.value.__cause__, KeyError)


def test_f_raising_at_construction_is_a_user_callable_error_and_still_a_type_error():
    f = _Raises(0)
    f.armed = True
    with pytest.raises(UserCallableError, match=r"f must be a set function .* raised KeyError"):
        _problem(f)
    with pytest.raises(TypeError, match=r"f must be a set function"):
        _problem(f)


@pytest.mark.parametrize("build", [
    lambda: S.UniformMatroid(1, [0, float("nan")]),
    lambda: S.UniformMatroid(1, [0, np.float64("nan")]),
    lambda: S.UniformMatroid(2).is_independent({float("nan")}),
    lambda: S.UniformMatroid(2, [0, 1]).is_independent([0, float("nan")]),
], ids=["ground-nan", "ground-np-nan", "subset-nan-free", "subset-list-nan"])
def test_a_nan_element_is_refused_by_name_by_every_collection_of_elements(build):
    # UniformMatroid(1, [0, nan]) was built (the other matroids refused a NaN element by name): a NaN is
    # found by identity in a set and by == in a list, so it is not one element (class G)
    with pytest.raises(ValueError, match=r"(ground|subset) element must equal itself"):
        build()


LOADED = {"eps": float("nan"), "q": 2.0, "seed": -1, "monotone": "yes", "max_guess": "zz", "max_value": -1.0}


@pytest.mark.parametrize("name", LOADED, ids=list(LOADED))
def test_a_loaded_maximizer_state_is_checked_by_name(name):
    # pickle restored the sealed maximizer's __dict__ as it was: eps = nan or q = 2 ran the next inserts
    # (red20b)
    import copy

    dm = S.DynamicMatchoidMaximizer(S.Coverage([[0], [1], [2], [0, 1]]), S.Matchoid([S.UniformMatroid(2)]),
                                    eps=0.1, seed=0, max_guess="current")
    dm.insert(0)
    state = copy.deepcopy(dm.__dict__)
    state[name] = LOADED[name]
    loaded = object.__new__(S.DynamicMatchoidMaximizer)
    with pytest.raises((ValueError, TypeError), match=name if name not in ("q",) else "q, c"):
        loaded.__setstate__(state)


def test_a_pickled_maximizer_still_loads_and_runs():
    import pickle

    dm = S.DynamicMatchoidMaximizer(S.Coverage([[0], [1], [2], [0, 1]]), S.Matchoid([S.UniformMatroid(2)]),
                                    eps=0.1, seed=0)
    dm.insert(0)
    again = pickle.loads(pickle.dumps(dm))
    again.insert(1)
    assert again.value >= dm.value


@pytest.mark.parametrize("nan", [float("nan"), np.float64("nan"), np.float32("nan")])
def test_ready_made_frozenset_with_nan_refused_by_a_matroid_without_ground(nan):
    """lead, round 20: a frozenset skipped the member checks (its fast path), so UniformMatroid(2) answered
    is_independent(frozenset({nan})) True where the same subset as a list is refused naming subset."""
    with pytest.raises(ValueError, match="subset element must equal itself"):
        S.UniformMatroid(2).is_independent(frozenset({nan}))
    assert S.UniformMatroid(2).is_independent(frozenset({1.5, 2})) is True


def _tensor_elements():
    import torch

    return {"ground": (lambda: S.UniformMatroid(2, torch.arange(5)), "ground element"),
            "universe": (lambda: S.MatchoidMaximization(len, S.Matchoid([S.UniformMatroid(2)]),
                                                        torch.arange(5)), "elements element"),
            "insert": (lambda: S.DynamicMatchoidMaximizer(len, S.Matchoid([S.UniformMatroid(2)]),
                                                          eps=0.1).insert(torch.tensor(5)), "e must"),
            "updates": (lambda: S.UpdateStream(len, S.Matchoid([S.UniformMatroid(2)]),
                                               [("insert", torch.tensor(1))]), r"updates\[0\] element"),
            "subset": (lambda: S.UniformMatroid(2).is_independent([torch.tensor(1)]), "subset element"),
            "frozenset": (lambda: S.UniformMatroid(2).is_independent(frozenset({torch.tensor(1)})),
                          "subset element")}


@pytest.mark.parametrize("case", ["ground", "universe", "insert", "updates", "subset", "frozenset"])
def test_torch_tensor_elements_are_refused_by_name(case):
    # before: a tensor hashes by identity, so UniformMatroid(2, torch.arange(5)) had no element 2 (its
    # is_independent({0, 1}) refused 0 and 1 as outside the ground set) and two tensor(1) were two elements
    build, words = _tensor_elements()[case]
    with pytest.raises(TypeError, match=rf"{words}.*hashable by value.*torch tensor"):
        build()
    # numpy elements hash by value: taken
    assert S.UniformMatroid(2, np.arange(5)).in_ground(2)
