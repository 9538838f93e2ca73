"""Round 23 of #43 in core: a problem or algorithm loaded without its validation record (red23b)."""


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
