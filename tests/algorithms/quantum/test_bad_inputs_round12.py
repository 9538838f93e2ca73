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
