"""Round 23 of #43 in core: a problem or algorithm loaded without its validation record (red23b)."""

import pytest


def test_a_problem_or_algorithm_loaded_without_its_validation_record_is_validated_at_solve():
    # a pickled state stripped of _validated_fields skipped revalidation: a TSPInstance with NaN coords was
    # solved to Success, a PurestStateProblem with copies = -5 and an IncoherentSR with copies_per_basis = -3
    # were run (red23b)
    import copy

    import numpy as np
    import pytest

    from algorithms import solve
    from algorithms.quantum import IncoherentSR, PurestStateProblem, random_state
    from algorithms.routing import TSPInstance
    from algorithms.routing.held_karp import HeldKarp

    def loaded(obj, **edits):
        state = copy.copy(obj.__reduce_ex__(2)[2])
        state.pop("_validated_fields", None)
        state.update(edits)
        new = type(obj).__new__(type(obj))
        new.__setstate__(state) if hasattr(new, "__setstate__") else new.__dict__.update(state)
        return new

    tour = TSPInstance(np.random.default_rng(0).random((6, 2)))
    with pytest.raises(ValueError, match=r"TSPInstance\.coords .*coords contains NaN"):
        solve(loaded(tour, coords=np.full((6, 2), np.nan)), HeldKarp())
    assert solve(loaded(tour), HeldKarp()).value == solve(tour, HeldKarp()).value  # unedited: as before
    states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))]
    problem = PurestStateProblem(states, copies=100)
    with pytest.raises(ValueError, match="copies must be >= K = 2"):
        solve(loaded(problem, copies=-5), IncoherentSR())
    with pytest.raises(ValueError, match="copies_per_basis must be an int >= 2"):
        solve(problem, loaded(IncoherentSR(), copies_per_basis=-3))


def _f(x):
    return float(x @ x)


def _grad(x):
    return 2 * x


def _curvature(x):
    import numpy as np

    return 2 * np.ones_like(x)


def test_an_unpickled_problem_with_derived_floats_solves_and_still_refuses_an_edit():
    # the derived floats (f0, scale_f, ...) were stamped by identity, which pickle does not keep: every solve
    # of an unpickled CurvatureProblem was refused as "changed after construction" (red23b)
    import pickle

    import numpy as np
    import pytest

    from algorithms import solve
    from algorithms.curvature import LCD1, CurvatureProblem

    problem = CurvatureProblem(f=_f, grad=_grad, curvature=_curvature, L_C=0.0, x0=np.array([1.0, 2.0]),
                               f_star=0.0)
    loaded = pickle.loads(pickle.dumps(problem))
    assert solve(loaded, LCD1()).retcode == solve(problem, LCD1()).retcode
    object.__setattr__(loaded, "f0", 6.0)  # f(x0) = 5: a derived value edited is still refused
    with pytest.raises(ValueError, match=r"CurvatureProblem\.f0 was changed after construction"):
        solve(loaded, LCD1())


def _held_karp_subclass(kind: str):
    from dataclasses import dataclass

    from algorithms.routing.held_karp import HeldKarp
    if kind == "documented":
        @dataclass(frozen=True)
        class Logged(HeldKarp):
            """Held-Karp, logged (the user's own docstring, without core's one-pass words)."""
        return Logged, True
    if kind == "undocumented":
        @dataclass(frozen=True)
        class Plain(HeldKarp):
            pass
        return Plain, True

    @dataclass(frozen=True)
    class Iterative(HeldKarp):
        """Declares itself not one-pass."""
        one_pass = False
    return Iterative, False


@pytest.mark.parametrize("kind", ["documented", "undocumented", "declared_not_one_pass"])
def test_a_users_subclass_of_a_one_pass_method_keeps_its_callback_rule(kind):
    # a subclass's own docstring (without "One pass for ``callback``") cleared the inherited flag: the same
    # single after-run callback call then turned Success into Terminated on a True (red23b)
    from algorithms.core import RetCode, solve
    from algorithms.routing import random_tsp
    cls, one_pass = _held_karp_subclass(kind)
    assert cls.one_pass is one_pass
    retcode = solve(random_tsp(7, seed=0), cls(), callback=lambda record: True).retcode
    assert retcode is (RetCode.Success if one_pass else RetCode.Terminated)
