"""#43 round 12 of algorithms.quantum: the working range (README "Working range")."""

import pytest

from algorithms.quantum import hardness_h1, hardness_h2


@pytest.mark.parametrize("tiny", [5e-324, 1e-39])
@pytest.mark.parametrize("hardness", [hardness_h1, hardness_h2])
def test_purities_below_the_working_range_are_refused(hardness, tiny):
    """A purity of 5e-324 (a state of dimension 1e323) was taken: a positive scale below float32's range."""
    with pytest.raises(ValueError, match=r"\bpurities = .* is outside the package's working range"):
        hardness([1.0, tiny])


@pytest.mark.parametrize("hardness", [hardness_h1, hardness_h2])
def test_purities_at_the_working_range_have_a_hardness(hardness):
    assert hardness([1.0, 1.2e-38]) > 0.0


@pytest.mark.parametrize("atol", [5e-324, 1e-39])
def test_as_density_matrix_atol_below_the_working_range_is_refused(atol):
    """red12a: the hand-written 0 < atol <= 1e-2 check took 1e-39 and 5e-324."""
    import numpy as np

    from algorithms.quantum import as_density_matrix

    with pytest.raises(ValueError, match=r"\batol = .* is outside the package's working range"):
        as_density_matrix(np.eye(2) / 2, atol=atol)


@pytest.mark.parametrize("counts, expected", [([[2**33, 0]], 1.0), ([[2**32, 2**32]], 0.5),
                                              ([[2**40, 2**40]], 0.5)])
def test_collision_statistic_of_huge_counts_does_not_wrap(counts, expected):
    """red12a: c(c − 1) in int64 wrapped around: a statistic of -1.16e-10 for 2**33 shots in one outcome."""
    import numpy as np

    from algorithms.quantum import collision_statistic, cross_correlation_purity

    assert collision_statistic(np.array(counts))[0] == pytest.approx(expected, rel=1e-9)
    small = np.array(counts) // 2**12  # the same proportions at counts int64 holds exactly
    assert cross_correlation_purity(np.array(counts), 1) == pytest.approx(cross_correlation_purity(small, 1),
                                                                          abs=1e-5)


def test_counts_past_int64_are_refused_as_counts():
    import numpy as np

    from algorithms.quantum import collision_statistic

    with pytest.raises(ValueError, match=r"\bcounts must hold at most 2\*\*63 - 1 shots"):
        collision_statistic(np.array([[2**63, 0]], dtype=np.uint64))


@pytest.mark.parametrize("make", ["coherent", "swap"])
def test_complex64_states_are_solved_by_the_swap_test_methods(make):
    """red12a: the problem validated complex64 states at their tolerance, the SWAP-test methods re-checked
    its copies at float64's and refused them naming "rho"."""
    import numpy as np

    from algorithms import solve
    from algorithms.quantum import CoherentSR, PurestStateProblem, UniformAllocation, random_state

    states = [random_state(2, purity=p, seed=i) for i, p in enumerate((0.4, 0.7, 0.95, 0.5))]
    algorithm = CoherentSR() if make == "coherent" else UniformAllocation(estimator="swap")
    single = solve(PurestStateProblem([s.astype(np.complex64) for s in states], copies=4000), algorithm,
                   seed=3)
    double = solve(PurestStateProblem(states, copies=4000), algorithm, seed=3)
    assert single.x == double.x == 2


@pytest.mark.parametrize("make", ["coherent", "swap"])
def test_swap_test_methods_name_the_problem_for_states_past_five_qubits(make):
    """red12a: the refusal came from the simulation, naming its own "rho"."""
    from algorithms import solve
    from algorithms.quantum import CoherentSR, PurestStateProblem, UniformAllocation, random_state

    problem = PurestStateProblem([random_state(6, purity=q, seed=i) for i, q in enumerate((0.5, 0.9))], 1000)
    algorithm = CoherentSR() if make == "coherent" else UniformAllocation(estimator="swap")
    with pytest.raises(ValueError, match=r"problem\.states have 6 qubits"):
        solve(problem, algorithm, seed=0)


def test_copies_per_basis_for_a_huge_dimension_is_refused_as_a_count():
    """red12a: copies_per_basis_for(2**62) returned 2**62 copies per basis (m is capped at 2**31 − 1)."""
    from fractions import Fraction

    from algorithms.quantum import copies_per_basis_for

    with pytest.raises(ValueError, match=r"\bdim must be <= 2\*\*31 - 1"):
        copies_per_basis_for(2**62)
    assert copies_per_basis_for(2, gap=Fraction(1, 10)) == copies_per_basis_for(2, gap=0.1)


def test_states_edited_behind_the_read_only_flag_are_refused():
    """red12a: states made writable, edited and made read-only again kept the stale cached purities (and a
    solve answered for them)."""
    import numpy as np

    from algorithms import solve
    from algorithms.quantum import PurestStateProblem, UniformAllocation

    problem = PurestStateProblem([np.eye(2) / 2, np.diag([1.0, 0.0])], copies=1000)
    # round 18: states live in immutable memory, so the flag cannot be turned back on at all
    with pytest.raises(ValueError, match="WRITEABLE"):
        problem.states.flags.writeable = True
    assert problem.purest == 1 and solve(problem, UniformAllocation(), seed=0).x == 1
