"""Round 14 of issue #43 (core): public helpers whose numeric arguments were taken unchecked."""

import pytest

from algorithms.core import SolveOptions


@pytest.mark.parametrize("default", [-1, 2.5, "10", True, 2**64])
def test_solve_options_iterations_refuses_a_bad_default_by_name(default):
    # iterations(-1) returned -1 (a loop of no steps reported as the algorithm's cap) in silence
    with pytest.raises((ValueError, TypeError), match="default"):
        SolveOptions().iterations(default)


def test_solve_options_iterations_keeps_valid_defaults_and_maxiters():
    assert SolveOptions().iterations(0) == 0
    assert SolveOptions().iterations(7) == 7
    assert SolveOptions(maxiters=3).iterations(7) == 3
